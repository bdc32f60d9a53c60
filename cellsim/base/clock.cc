#include "cellsim/base/clock.h"

#include <chrono>

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

Clock* SystemClock() {
  static RealClock* clock = new RealClock();
  return clock;
}

}  // namespace cellsim
