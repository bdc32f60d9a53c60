// cellsim's mutexes: std::mutex / std::shared_mutex with clang's thread-safety
// annotations, so that `-Wthread-safety` checks statically that every member
// marked ABSL_GUARDED_BY(mu) is touched only with `mu` held and that every
// function marked ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) is called with it held
// (RocksDB's port::Mutex is the model: a thin annotated wrapper).
//
// Why not absl::Mutex: Debian's libabsl_synchronization is compiled without
// ThreadSanitizer, so TSan sees none of its lock/unlock edges and reports every
// access guarded by an absl::Mutex as a race (a 4-thread counter under
// absl::MutexLock gave 6 false reports with Debian 12's Abseil). std::mutex is
// intercepted by TSan through pthread, so these wrappers keep the TSan CI run
// meaningful and add the static checks on top.
//
// Lock order across objects is stated with ABSL_ACQUIRED_AFTER / _BEFORE on the
// mutex members. All types here are neither copyable nor movable.
#ifndef CELLSIM_BASE_MUTEX_H_
#define CELLSIM_BASE_MUTEX_H_

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <shared_mutex>

#include "absl/base/thread_annotations.h"  // IWYU pragma: export

namespace cellsim {

// An exclusive lock.
class ABSL_LOCKABLE Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  void Lock() ABSL_EXCLUSIVE_LOCK_FUNCTION() { mu_.lock(); }
  void Unlock() ABSL_UNLOCK_FUNCTION() { mu_.unlock(); }
  [[nodiscard]] bool TryLock() ABSL_EXCLUSIVE_TRYLOCK_FUNCTION(true) { return mu_.try_lock(); }
  // Tells the analysis the caller holds the lock (where it cannot see it, e.g.
  // in a callback run under the lock). Checks nothing at run time.
  void AssertHeld() const ABSL_ASSERT_EXCLUSIVE_LOCK() {}

 private:
  friend class CondVar;
  std::mutex mu_;
};

// A reader/writer lock: Lock() is exclusive, ReaderLock() shared.
class ABSL_LOCKABLE SharedMutex {
 public:
  SharedMutex() = default;
  SharedMutex(const SharedMutex&) = delete;
  SharedMutex& operator=(const SharedMutex&) = delete;

  void Lock() ABSL_EXCLUSIVE_LOCK_FUNCTION() { mu_.lock(); }
  void Unlock() ABSL_UNLOCK_FUNCTION() { mu_.unlock(); }
  void ReaderLock() ABSL_SHARED_LOCK_FUNCTION() { mu_.lock_shared(); }
  void ReaderUnlock() ABSL_UNLOCK_FUNCTION() { mu_.unlock_shared(); }
  void AssertReaderHeld() const ABSL_ASSERT_SHARED_LOCK() {}

 private:
  std::shared_mutex mu_;
};

// Holds a Mutex for its scope.
class ABSL_SCOPED_LOCKABLE MutexLock {
 public:
  explicit MutexLock(Mutex* mu) ABSL_EXCLUSIVE_LOCK_FUNCTION(mu) : mu_(mu) { mu_->Lock(); }
  ~MutexLock() ABSL_UNLOCK_FUNCTION() { mu_->Unlock(); }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

 private:
  Mutex* const mu_;
};

// Holds a Mutex for its scope unless Release() gave it up earlier.
class ABSL_SCOPED_LOCKABLE ReleasableMutexLock {
 public:
  explicit ReleasableMutexLock(Mutex* mu) ABSL_EXCLUSIVE_LOCK_FUNCTION(mu) : mu_(mu) {
    mu_->Lock();
  }
  ~ReleasableMutexLock() ABSL_UNLOCK_FUNCTION() {
    if (mu_ != nullptr) mu_->Unlock();
  }
  void Release() ABSL_UNLOCK_FUNCTION() {
    mu_->Unlock();
    mu_ = nullptr;
  }
  ReleasableMutexLock(const ReleasableMutexLock&) = delete;
  ReleasableMutexLock& operator=(const ReleasableMutexLock&) = delete;

 private:
  Mutex* mu_;
};

// Holds a SharedMutex exclusively for its scope.
class ABSL_SCOPED_LOCKABLE WriterMutexLock {
 public:
  explicit WriterMutexLock(SharedMutex* mu) ABSL_EXCLUSIVE_LOCK_FUNCTION(mu) : mu_(mu) {
    mu_->Lock();
  }
  ~WriterMutexLock() ABSL_UNLOCK_FUNCTION() { mu_->Unlock(); }
  WriterMutexLock(const WriterMutexLock&) = delete;
  WriterMutexLock& operator=(const WriterMutexLock&) = delete;

 private:
  SharedMutex* const mu_;
};

// Holds a SharedMutex shared for its scope.
class ABSL_SCOPED_LOCKABLE ReaderMutexLock {
 public:
  explicit ReaderMutexLock(SharedMutex* mu) ABSL_SHARED_LOCK_FUNCTION(mu) : mu_(mu) {
    mu_->ReaderLock();
  }
  ~ReaderMutexLock() ABSL_UNLOCK_FUNCTION() { mu_->ReaderUnlock(); }
  ReaderMutexLock(const ReaderMutexLock&) = delete;
  ReaderMutexLock& operator=(const ReaderMutexLock&) = delete;

 private:
  SharedMutex* const mu_;
};

// A condition variable over a Mutex. Wait() must be called with the Mutex
// held; it is held again when Wait() returns (spurious wake-ups happen: wait
// in a loop on the condition).
class CondVar {
 public:
  CondVar() = default;
  CondVar(const CondVar&) = delete;
  CondVar& operator=(const CondVar&) = delete;

  void Wait(Mutex* mu) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    std::unique_lock<std::mutex> l(mu->mu_, std::adopt_lock);
    cv_.wait(l);
    l.release();
  }
  // Returns true when woken before `timeout` passed (or spuriously).
  template <typename Rep, typename Period>
  bool WaitFor(Mutex* mu, std::chrono::duration<Rep, Period> timeout)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    std::unique_lock<std::mutex> l(mu->mu_, std::adopt_lock);
    const bool woken = cv_.wait_for(l, timeout) == std::cv_status::no_timeout;
    l.release();
    return woken;
  }
  void Signal() { cv_.notify_one(); }
  void SignalAll() { cv_.notify_all(); }

 private:
  std::condition_variable cv_;
};

}  // namespace cellsim

#endif  // CELLSIM_BASE_MUTEX_H_
