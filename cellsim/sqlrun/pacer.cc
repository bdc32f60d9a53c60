#include "cellsim/sqlrun/pacer.h"

#include <algorithm>
#include <chrono>
#include <thread>

namespace cellsim::sqlrun::internal {

Pacer::Pacer(Clock* clock, std::vector<uint64_t> starts, const CancelFlag* cancel)
    : clock_(clock), cancel_(cancel), next_(std::move(starts)), done_(next_.size(), false) {}

size_t Pacer::NextLocked() const {
  size_t best = next_.size();
  for (size_t i = 0; i < next_.size(); ++i) {
    if (done_[i]) continue;
    if (best == next_.size() || next_[i] < next_[best]) best = i;
  }
  return best;
}

void Pacer::SleepUntil(uint64_t t) const {
  // Real time: sleep in slices so a cancel is seen within 100 ms.
  while (!Cancelled(cancel_)) {
    const uint64_t now = clock_->NowNanos();
    if (now >= t) break;
    std::this_thread::sleep_for(std::chrono::nanoseconds(std::min<uint64_t>(t - now, 100'000'000)));
  }
}

void Pacer::Turn(size_t i, uint64_t t) {
  if (!simulated()) {
    SleepUntil(t);
    return;
  }
  {
    MutexLock l(&mu_);
    next_[i] = t;
    cv_.SignalAll();
    while (NextLocked() != i) cv_.Wait(&mu_);
  }
  clock_->SetThreadNanos(t);
}

void Pacer::Finish(size_t i) {
  MutexLock l(&mu_);
  done_[i] = true;
  cv_.SignalAll();
}

size_t Pacer::Finished(size_t n) const {
  MutexLock l(&mu_);
  return static_cast<size_t>(std::count(done_.begin(), done_.begin() + static_cast<long>(n), true));
}

void Pacer::Charge(uint64_t ns, uint64_t elapsed_ns) const {
  if (simulated()) {
    clock_->SetThreadNanos(clock_->NowNanos() + ns);
  } else if (ns > elapsed_ns) {
    SleepUntil(clock_->NowNanos() + (ns - elapsed_ns));
  }
}

}  // namespace cellsim::sqlrun::internal
