#include "cellsim/base/clock.h"

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

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
};

}  // namespace

void ForkJoin(Clock* clock, size_t n, const std::function<void(size_t)>& fn, bool disjoint) {
  if (n == 0) return;
  if (clock != nullptr && clock->simulated() && disjoint && n > 1) {
    const uint64_t start = clock->NowNanos();
    const uint64_t tag = clock->ThreadTag();
    std::vector<uint64_t> ends(n, start);
    auto child = [&](size_t i) {
      clock->SetThreadTag(tag);
      clock->SetThreadNanos(start);
      fn(i);
      ends[i] = clock->NowNanos();
    };
    std::vector<std::thread> threads;
    threads.reserve(n - 1);
    for (size_t i = 0; i + 1 < n; ++i) threads.emplace_back(child, i);
    child(n - 1);
    for (std::thread& t : threads) t.join();
    clock->SetThreadNanos(*std::max_element(ends.begin(), ends.end()));
    return;
  }
  if (clock != nullptr && clock->simulated()) {
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
  std::vector<std::thread> threads;
  threads.reserve(n - 1);
  for (size_t i = 0; i + 1 < n; ++i) threads.emplace_back(fn, i);
  fn(n - 1);
  for (std::thread& t : threads) t.join();
}

Clock* SystemClock() {
  static RealClock* clock = new RealClock();
  return clock;
}

}  // namespace cellsim
