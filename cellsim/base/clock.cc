#include "cellsim/base/clock.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <vector>

#include "cellsim/base/executor.h"
#include "cellsim/base/mutex.h"

namespace cellsim {
namespace {

class RealClock : public Clock {
 public:
  uint64_t NowNanos() const override {
    return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                     std::chrono::steady_clock::now().time_since_epoch())
                                     .count());
  }
  int64_t UnixSeconds() const override {
    return std::chrono::duration_cast<std::chrono::seconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
  int64_t UnixMicros() const override {
    return std::chrono::duration_cast<std::chrono::microseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
};

std::atomic<uint64_t> next_logical_thread{1};
thread_local uint64_t logical_thread = 0;  // Clock::ThreadTag's default; 0: none yet

// Runs fn(0) .. fn(n-2) on the shared executor and fn(n-1) on the caller's
// thread, and returns when all have.
void RunOnExecutor(size_t n, const std::function<void(size_t)>& fn) {
  struct Join {
    Mutex mu;
    CondVar done;
    size_t running ABSL_GUARDED_BY(mu) = 0;
  } join;
  {
    MutexLock l(&join.mu);
    join.running = n - 1;
  }
  for (size_t i = 0; i + 1 < n; ++i) {
    Executor::Shared()->Run([&join, &fn, i] {
      fn(i);
      MutexLock l(&join.mu);
      if (--join.running == 0) join.done.Signal();
    });
  }
  fn(n - 1);
  MutexLock l(&join.mu);
  while (join.running > 0) join.done.Wait(&join.mu);
}

}  // namespace

void ForkJoin(Clock* clock, size_t n, const std::function<void(size_t)>& fn, bool disjoint) {
  if (n == 0) return;
  const bool simulated = clock != nullptr && clock->simulated();
  const Clock::CellCalls calls =
      simulated ? clock->ThreadCellCalls() : Clock::CellCalls::kChargeAndPerform;
  // Threads where the order cannot change the model: branches on disjoint
  // devices, or a pass that charges nothing. A charge-only pass does no real
  // I/O: in order on this thread is also the cheapest.
  const bool threads = disjoint || calls == Clock::CellCalls::kPerformOnly;
  if (simulated && threads && n > 1 && calls != Clock::CellCalls::kChargeOnly) {
    const uint64_t start = clock->NowNanos();
    const uint64_t tag = clock->ThreadTag();
    std::vector<uint64_t> ends(n, start);
    auto child = [&](size_t i) {
      // Children run on executor workers (and the last on the caller's
      // thread), which keep their thread-local state for their next task.
      ScopedCellCalls scope(clock, calls);
      clock->SetThreadTag(tag);
      clock->SetThreadNanos(start);
      fn(i);
      ends[i] = clock->NowNanos();
    };
    RunOnExecutor(n, child);
    clock->SetThreadNanos(*std::max_element(ends.begin(), ends.end()));
    return;
  }
  if (simulated) {
    const uint64_t start = clock->NowNanos();
    uint64_t end = start;
    for (size_t i = 0; i < n; ++i) {
      clock->SetThreadNanos(start);
      fn(i);
      end = std::max(end, clock->NowNanos());
    }
    clock->SetThreadNanos(end);
    return;
  }
  if (clock == nullptr || n == 1) return RunOnExecutor(n, fn);
  const uint64_t tag = clock->ThreadTag();  // the branches are the caller's work
  RunOnExecutor(n, [&](size_t i) {
    clock->SetThreadTag(tag);
    fn(i);
  });
}

uint64_t Clock::ThreadTag() const {
  if (logical_thread == 0) logical_thread = next_logical_thread.fetch_add(1);
  return logical_thread;
}

void Clock::SetThreadTag(uint64_t tag) {
  if (tag != 0) logical_thread = tag;
}

Clock* SystemClock() {
  static RealClock* clock = new RealClock();
  return clock;
}

}  // namespace cellsim
