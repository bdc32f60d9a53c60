// CancelFlag: a request to stop the current operation, set from anywhere (a
// signal handler included: the flag is a lock-free atomic) and checked by the
// operation at its own safe points, so that its undo path runs (as Oracle's
// ORA-01013 "user requested cancel of current operation": the call stops and
// the statement rolls back; the session stays usable).
//
// Usage:
//   CancelFlag cancel;                       // e.g. static, set by a SIGINT handler
//   session->SetCancelFlag(&cancel);
//   ... cancel.Cancel();                     // from another thread or a handler
//   // Execute returns Cancelled "ORA-01013: ..." after undoing the statement
#ifndef CELLSIM_BASE_CANCEL_H_
#define CELLSIM_BASE_CANCEL_H_

#include <atomic>

namespace cellsim {

class CancelFlag {
 public:
  static_assert(std::atomic<bool>::is_always_lock_free);
  void Cancel() noexcept { flag_.store(true, std::memory_order_relaxed); }
  void Reset() noexcept { flag_.store(false, std::memory_order_relaxed); }
  bool cancelled() const noexcept { return flag_.load(std::memory_order_relaxed); }

 private:
  std::atomic<bool> flag_{false};
};

// True when `flag` is set (a null flag never is).
inline bool Cancelled(const CancelFlag* flag) { return flag != nullptr && flag->cancelled(); }

}  // namespace cellsim

#endif  // CELLSIM_BASE_CANCEL_H_
