// How the driver's threads wait for their time (internal to the sqlrun layer).
//
// Simulated clock: a conductor. Every participant (a session, the monitor)
// registers its first step's time; Turn(i, t) blocks until participant i,
// next due at t, has the smallest (time, index) among those not finished,
// then sets the calling thread's modeled time to t. Only that participant
// runs until it calls Turn again or Finish, so the interleaving, and with it
// every figure, is the same on every run and machine.
//
// Real clock: Turn sleeps until the clock reaches t (or the run is cancelled);
// Charge sleeps until a call has lasted its modeled CPU.
//
// Thread-safety: every method may be called from any thread.
#ifndef CELLSIM_SQLRUN_PACER_H_
#define CELLSIM_SQLRUN_PACER_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "cellsim/base/cancel.h"
#include "cellsim/base/clock.h"
#include "cellsim/base/mutex.h"

namespace cellsim::sqlrun::internal {

class Pacer {
 public:
  // `starts[i]`: participant i's first step time (clock nanoseconds).
  Pacer(Clock* clock, std::vector<uint64_t> starts, const CancelFlag* cancel);

  bool simulated() const { return clock_->simulated(); }
  Clock* clock() const { return clock_; }
  // Waits until participant i may run its step due at `t` (see above).
  void Turn(size_t i, uint64_t t) ABSL_LOCKS_EXCLUDED(mu_);
  // Participant i runs no more steps.
  void Finish(size_t i) ABSL_LOCKS_EXCLUDED(mu_);
  // Participants in [0, n) that have finished.
  size_t Finished(size_t n) const ABSL_LOCKS_EXCLUDED(mu_);
  // A call's modeled CPU `ns` (CostModel); the call took `elapsed_ns` of the
  // clock. Simulated clock: moves the calling thread's modeled time on by
  // `ns` (the device model has charged the call's I/O). Real clock: sleeps
  // until the call has lasted `ns`, so it lasts its modeled CPU or its real
  // time, whichever is longer: this machine's own CPU and its waits for the
  // engine's lock and for a CPU (cellsim serialises its engine; the modeled
  // database's sessions run on CPUs of their own) hide inside the modeled
  // CPU, a longer wait (a log write at commit) shows.
  void Charge(uint64_t ns, uint64_t elapsed_ns) const;

 private:
  size_t NextLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void SleepUntil(uint64_t t) const;  // real clock

  Clock* const clock_;
  const CancelFlag* const cancel_;
  mutable Mutex mu_;
  CondVar cv_;
  std::vector<uint64_t> next_ ABSL_GUARDED_BY(mu_);
  std::vector<bool> done_ ABSL_GUARDED_BY(mu_);
};

}  // namespace cellsim::sqlrun::internal

#endif  // CELLSIM_SQLRUN_PACER_H_
