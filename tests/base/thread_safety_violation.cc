// Must NOT compile under clang -Wthread-safety -Werror: it touches a member
// guarded by a cellsim::Mutex without holding it, and calls a *Locked function
// without the lock. CTest compiles it and expects the failure (see
// tests/base/CMakeLists.txt), so the annotations in cellsim/base/mutex.h are
// known to be checked, not just present.
#include "cellsim/base/mutex.h"

namespace cellsim {

class Counter {
 public:
  void Add() { ++value_; }  // error: writing value_ requires holding mu_
  void AddLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { ++value_; }
  void CallWithoutLock() { AddLocked(); }  // error: calling AddLocked requires mu_

 private:
  Mutex mu_;
  int value_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace cellsim
