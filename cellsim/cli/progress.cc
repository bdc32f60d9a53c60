#include "cellsim/cli/progress.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>

#include "cellsim/base/clock.h"
#include "cellsim/base/units.h"
#include "fmt/format.h"

namespace cellsim::cli {
namespace {

size_t TerminalWidth(int fd) {
  struct winsize ws {};
  if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 40) return ws.ws_col;
  return 80;
}

constexpr uint64_t kRedrawNs = 100'000'000;  // 10 redraws a second at most

}  // namespace

std::string RenderProgressLine(std::string_view label, uint64_t done, uint64_t total,
                               double elapsed_s, size_t width) {
  const double fraction =
      total == 0 ? 0.0 : std::min(1.0, static_cast<double>(done) / static_cast<double>(total));
  std::string tail = fmt::format(" {:3d}%  {} / {}", static_cast<int>(fraction * 100),
                                 FormatBytes(done), FormatBytes(total));
  if (elapsed_s > 0) {
    tail += fmt::format("  {}/s", FormatBytes(static_cast<uint64_t>(done / elapsed_s)));
  }
  const std::string head = std::string(label) + " [";
  const size_t fixed = head.size() + 1 + tail.size();
  const size_t cells = width > fixed + 10 ? width - fixed : 10;
  const size_t full = static_cast<size_t>(fraction * static_cast<double>(cells));
  return head + std::string(full, '#') + std::string(cells - full, '-') + "]" + tail;
}

ProgressBar::ProgressBar(std::string label, bool force, int fd)
    : label_(std::move(label)), fd_(fd), enabled_(force || isatty(fd) == 1) {
  start_ns_ = SystemClock()->NowNanos();
}

ProgressBar::~ProgressBar() { Finish(); }

void ProgressBar::Draw(const std::string& text) {
  size_t at = 0;
  while (at < text.size()) {  // a short write or a signal: go on; an error: give up
    const ssize_t n = write(fd_, text.data() + at, text.size() - at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    at += static_cast<size_t>(n);
  }
}

void ProgressBar::Update(const std::string& item, uint64_t done, uint64_t total) {
  if (!enabled_) return;
  MutexLock lock(&mu_);
  items_[item] = {done, total};
  const uint64_t now = SystemClock()->NowNanos();
  bool all_done = true;
  uint64_t sum_done = 0, sum_total = 0;
  for (const auto& [name, v] : items_) {
    sum_done += v.first;
    sum_total += v.second;
    all_done = all_done && v.first >= v.second;
  }
  if (drawn_ && now - last_draw_ns_ < kRedrawNs && !all_done) return;
  last_draw_ns_ = now;
  drawn_ = true;
  const std::string line = RenderProgressLine(
      label_, sum_done, sum_total, static_cast<double>(now - start_ns_) / 1e9,
      TerminalWidth(fd_) - 1);
  Draw("\r" + line + "\033[K");
}

void ProgressBar::Finish() {
  MutexLock lock(&mu_);
  if (!drawn_) return;
  Draw("\r\033[K");
  drawn_ = false;
}

}  // namespace cellsim::cli
