#include "cellsim/cli/interrupt.h"

#include <atomic>

namespace cellsim::cli {
namespace {

constexpr int kSignals[3] = {SIGINT, SIGTERM, SIGHUP};
CancelFlag g_flag;
std::atomic<int> g_signal{0};
static_assert(std::atomic<int>::is_always_lock_free);

extern "C" void OnInterrupt(int sig) {
  g_signal.store(sig, std::memory_order_relaxed);
  g_flag.Cancel();
}

}  // namespace

const CancelFlag* InterruptFlag() { return &g_flag; }
int InterruptSignal() { return g_signal.load(std::memory_order_relaxed); }
int InterruptExitCode() { return InterruptSignal() == 0 ? 1 : 128 + InterruptSignal(); }

InterruptScope::InterruptScope() {
  struct sigaction sa {};
  sa.sa_handler = OnInterrupt;
  sigemptyset(&sa.sa_mask);
  // One shot; system calls restart (the I/O layers retry EINTR anyway).
  sa.sa_flags = SA_RESETHAND | SA_RESTART;
  for (int i = 0; i < 3; ++i) sigaction(kSignals[i], &sa, &old_[i]);
}

InterruptScope::~InterruptScope() {
  for (int i = 0; i < 3; ++i) sigaction(kSignals[i], &old_[i], nullptr);
}

}  // namespace cellsim::cli
