#include "cellsim/cli/interrupt.h"

#include <signal.h>
#include <time.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>

#include <atomic>
#include <cstdint>

namespace cellsim::cli {
namespace {

constexpr int kSignals[3] = {SIGINT, SIGTERM, SIGHUP};
CancelFlag g_flag;
std::atomic<int> g_signal{0};
static_assert(std::atomic<int>::is_always_lock_free);

std::atomic<int64_t> g_first_ns{0};  // CLOCK_MONOTONIC of the first signal
static_assert(std::atomic<int64_t>::is_always_lock_free);

// A repeat within this long is the same interrupt delivered twice: `timeout`
// and some job controls signal both the process and its group.
constexpr int64_t kRepeatIsForceNs = 1'000'000'000;

int64_t MonotonicNs() {  // clock_gettime is async-signal-safe
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

extern "C" void OnInterrupt(int sig) {
  int expected = 0;
  if (g_signal.compare_exchange_strong(expected, sig, std::memory_order_relaxed)) {
    g_first_ns.store(MonotonicNs(), std::memory_order_relaxed);
    g_flag.Cancel();
    return;
  }
  // 0: the first signal's handler, on another thread, has not stored its time
  // yet, so this one came at the same moment.
  const int64_t first = g_first_ns.load(std::memory_order_relaxed);
  if (first == 0 || MonotonicNs() - first < kRepeatIsForceNs) return;
  // A second signal, a second or more after the first: the user insists. Die
  // by it, as kill -9 would (the next open recovers).
  signal(sig, SIG_DFL);
  raise(sig);
}

}  // namespace

const CancelFlag* InterruptFlag() { return &g_flag; }
int InterruptSignal() { return g_signal.load(std::memory_order_relaxed); }
int InterruptExitCode() { return InterruptSignal() == 0 ? 1 : 128 + InterruptSignal(); }

void ForgetInterrupt() {
  g_signal.store(0, std::memory_order_relaxed);
  g_first_ns.store(0, std::memory_order_relaxed);
  g_flag.Reset();
}

namespace {

class ProcessSignals final : public Interrupts {
 public:
  const CancelFlag* flag() const override { return InterruptFlag(); }
  int signal() const override { return InterruptSignal(); }
  void Forget() override { ForgetInterrupt(); }
};

}  // namespace

Interrupts& ProcessInterrupts() {
  static ProcessSignals signals;
  return signals;
}

PromptRead ReadPromptLine(int fd, Interrupts& interrupts, std::string* line) {
  line->clear();
  // A signal may be handled on any of the process's threads, so the wait for
  // input polls the flag rather than counting on its read being interrupted.
  while (true) {
    if (interrupts.signal() == SIGINT) {  // Ctrl-C: drop the line, forget the signal
      interrupts.Forget();
      return PromptRead::kInterrupted;
    }
    if (interrupts.signal() != 0) return PromptRead::kEnd;
    pollfd in{fd, POLLIN, 0};
    const int ready = poll(&in, 1, /*timeout_ms=*/50);
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) continue;
    char c = 0;
    const ssize_t n = ready < 0 ? -1 : read(fd, &c, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n == 1 && c != '\n') {
      line->push_back(c);
    } else if (n == 1) {
      return PromptRead::kLine;
    } else {  // end of input (or an unreadable one)
      return line->empty() ? PromptRead::kEnd : PromptRead::kLine;
    }
  }
}

InterruptScope::InterruptScope() {
  struct sigaction sa {};
  sa.sa_handler = OnInterrupt;
  sigemptyset(&sa.sa_mask);
  // System calls restart (the I/O layers retry EINTR anyway).
  sa.sa_flags = SA_RESTART;
  for (int i = 0; i < 3; ++i) sigaction(kSignals[i], &sa, &old_[i]);
}

InterruptScope::~InterruptScope() {
  // After an interrupt the command is on its way out with 128 + signal: the
  // handlers stay, so the same interrupt delivered again a moment later is
  // still one interrupt, not the default action of a second one.
  if (InterruptSignal() != 0) return;
  for (int i = 0; i < 3; ++i) sigaction(kSignals[i], &old_[i], nullptr);
}

}  // namespace cellsim::cli
