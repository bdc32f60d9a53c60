// Clock: the injected source of time. Everything that measures an elapsed time
// (wait events, latencies, destage ages) takes a Clock*, so a test can drive
// time by hand with ManualClock instead of sleeping.
//
// Usage:
//   Clock* clock = SystemClock();
//   uint64_t t0 = clock->NowNanos(); ...; uint64_t ns = clock->NowNanos() - t0;
//
// Thread-safety: every Clock may be read from any thread.
#ifndef CELLSIM_BASE_CLOCK_H_
#define CELLSIM_BASE_CLOCK_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>

namespace cellsim {

class Clock {
 public:
  virtual ~Clock() = default;
  // Monotonic nanoseconds since an arbitrary origin.
  virtual uint64_t NowNanos() const = 0;
  // Wall-clock seconds since the Unix epoch (for creation times shown to users).
  virtual int64_t UnixSeconds() const = 0;
  // The same in microseconds (the database's SYSTIMESTAMP); by default
  // UnixSeconds' whole seconds.
  virtual int64_t UnixMicros() const { return UnixSeconds() * 1'000'000; }

  // --- simulated time (sim::SimClock; the defaults are a real clock's) ---
  // A simulated clock keeps one virtual timeline per thread: NowNanos() is the
  // calling thread's modeled time, moved on by the device model as the thread's
  // I/O completes. Real clocks ignore the setters.
  virtual bool simulated() const { return false; }
  // Sets the calling thread's modeled time (fork-join bookkeeping, see ForkJoin).
  virtual void SetThreadNanos(uint64_t /*ns*/) {}
  // Moves the calling thread's modeled time to `ns` if that is later.
  void AdvanceThreadTo(uint64_t ns) {
    if (simulated() && ns > NowNanos()) SetThreadNanos(ns);
  }
  // An opaque per-thread value naming whose work the thread does: ForkJoin,
  // and the creation engine's batches, hand it to the workers that do part
  // of a thread's work, so that work is the thread's. A simulated clock
  // keeps its trace track there; by default it is the thread's logical
  // number (never 0): its own, given on first use, or the one handed to it.
  virtual uint64_t ThreadTag() const;
  virtual void SetThreadTag(uint64_t tag);
  // What the cell calls a thread makes do under a simulated clock. One
  // concurrent activity (a zero-fill batch) can be split in two passes, so
  // that the device model sees the activities in issue order while their
  // real bytes move concurrently, as with a real clock:
  enum class CellCalls : uint8_t {
    kChargeAndPerform,  // the default: performed, then charged
    kChargeOnly,   // writes and format ranges are charged (modeled time, trace)
                   // and answered as --model-only answers them: the cells are
                   // not called. A read cannot be: its charge needs its outcome
    kPerformOnly,  // performed, not charged: the thread's modeled time stays
  };
  virtual CellCalls ThreadCellCalls() const { return CellCalls::kChargeAndPerform; }
  virtual void SetThreadCellCalls(CellCalls /*calls*/) {}
  // CPU work the database does that no I/O measures; a simulated clock charges
  // it to the calling thread by its device profile.
  enum class Work : uint8_t {
    kStatement,  // parse, dictionary/control-file bookkeeping, ASM and CSS calls
  };
  virtual void Charge(Work /*work*/) {}
};

// Sets the calling thread's Clock::ThreadCellCalls for a scope, then restores it.
class ScopedCellCalls {
 public:
  ScopedCellCalls(Clock* clock, Clock::CellCalls calls)
      : clock_(clock), saved_(clock->ThreadCellCalls()) {
    clock_->SetThreadCellCalls(calls);
  }
  ~ScopedCellCalls() { clock_->SetThreadCellCalls(saved_); }
  ScopedCellCalls(const ScopedCellCalls&) = delete;
  ScopedCellCalls& operator=(const ScopedCellCalls&) = delete;

 private:
  Clock* clock_;
  Clock::CellCalls saved_;
};

// Runs fn(0) .. fn(n-1) as concurrent activities that the caller joins. With a
// real clock each runs on its own thread (fn(n-1) on the caller's). With a
// simulated clock each starts from the caller's modeled time and the caller
// continues at the latest end: the same fork-join in modeled time (mirror
// copies cost the max of the copies, not their sum). To stay deterministic
// they run one after another on the calling thread, unless `disjoint` says
// that no two of them touch the same modeled device (e.g. one cell each):
// then they keep their threads, as they do in a kPerformOnly pass (which
// charges nothing); the threads take the caller's ThreadCellCalls. A
// kChargeOnly pass (no real I/O) always runs in order on the calling thread.
void ForkJoin(Clock* clock, size_t n, const std::function<void(size_t)>& fn,
              bool disjoint = false);

// The process-wide steady/system clock. Never null, never freed.
Clock* SystemClock();

// A clock that moves only when told to. Starts at `start_ns`.
class ManualClock : public Clock {
 public:
  explicit ManualClock(uint64_t start_ns = 0, int64_t unix_seconds = 1'700'000'000)
      : now_(start_ns), unix_(unix_seconds) {}
  uint64_t NowNanos() const override { return now_.load(std::memory_order_relaxed); }
  int64_t UnixSeconds() const override {
    return unix_ + static_cast<int64_t>(NowNanos() / 1'000'000'000);
  }
  int64_t UnixMicros() const override {
    return unix_ * 1'000'000 + static_cast<int64_t>(NowNanos() / 1'000);
  }
  void Advance(uint64_t ns) { now_.fetch_add(ns, std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> now_;
  int64_t unix_;
};

}  // namespace cellsim

#endif  // CELLSIM_BASE_CLOCK_H_
