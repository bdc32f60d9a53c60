// A one-line progress bar on stderr (or a session's: `cellsim instance`) for long operations (zero-filling a 4 GiB
// redo log, flushing a flash cache). It draws only when stderr is a terminal,
// so pipes, files and tests see no control characters, and redraws at most
// ten times a second so that it costs nothing next to the I/O it reports.
//
// Usage:
//   ProgressBar bar("zero-fill");
//   session->SetProgressCallback([&](const db::CreationProgress& p) {
//     bar.Update(p.file, p.bytes_done, p.bytes_total);
//   });
//   ... run ...
//   bar.Finish();   // clears the line
//
// Thread-safety: Update may be called from several threads (mu_, a leaf
// lock, guards the items and the drawing state).
#ifndef CELLSIM_CLI_PROGRESS_H_
#define CELLSIM_CLI_PROGRESS_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "cellsim/base/mutex.h"

namespace cellsim::cli {

// "zero-fill [##########----------]  50%  512 MiB / 1 GiB  410 MiB/s" fitted
// to `width` columns (the bar shrinks; at least 10 cells).
std::string RenderProgressLine(std::string_view label, uint64_t done, uint64_t total,
                               double elapsed_s, size_t width);

class ProgressBar {
 public:
  // Draws on `fd` (a session's stderr) when it is a terminal; `force` draws
  // even when it is not (for tests of the bar).
  explicit ProgressBar(std::string label, bool force = false, int fd = 2);
  ~ProgressBar();
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  bool enabled() const { return enabled_; }
  // Progress of one item (a file): the bar shows the sum over every item seen.
  void Update(const std::string& item, uint64_t done, uint64_t total) ABSL_LOCKS_EXCLUDED(mu_);
  // Clears the line (idempotent).
  void Finish() ABSL_LOCKS_EXCLUDED(mu_);

 private:
  void Draw(const std::string& text) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::string label_;
  const int fd_;
  const bool enabled_;
  uint64_t start_ns_ = 0;  // set by the constructor
  Mutex mu_;
  std::map<std::string, std::pair<uint64_t, uint64_t>> items_ ABSL_GUARDED_BY(mu_);
  uint64_t last_draw_ns_ ABSL_GUARDED_BY(mu_) = 0;
  bool drawn_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace cellsim::cli

#endif  // CELLSIM_CLI_PROGRESS_H_
