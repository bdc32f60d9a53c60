// Private: where the database's statistics and waits come from. A Recorder adds
// every increment to a session's sets and to the instance's sums at once
// (v$mystat and v$sysstat move together); the Account* functions turn what ASM
// and the cells report about the I/O actually issued into Oracle statistics,
// by the rules of docs/statistics.md.
#ifndef CELLSIM_DB_ACCOUNTING_H_
#define CELLSIM_DB_ACCOUNTING_H_

#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "cellsim/asm/types.h"
#include "cellsim/base/clock.h"
#include "cellsim/db/database.h"
#include "cellsim/stats/statistics.h"

namespace cellsim::db::internal {

class Recorder {
 public:
  // Session sets may be null (the instance's own work: Create, Open).
  Recorder(Clock* clock, stats::StatSet* session_stats, stats::WaitSet* session_waits,
           stats::StatSet* system_stats, stats::WaitSet* system_waits)
      : clock_(clock),
        session_stats_(session_stats),
        session_waits_(session_waits),
        system_stats_(system_stats),
        system_waits_(system_waits) {}

  Clock* clock() const { return clock_; }

  void Add(stats::Stat s, int64_t delta) {
    if (delta == 0) return;
    if (session_stats_ != nullptr) session_stats_->Add(s, delta);
    system_stats_->Add(s, delta);
  }
  void Wait(stats::Wait w, uint64_t ns) {
    if (session_waits_ != nullptr) session_waits_->Record(w, ns);
    system_waits_->Record(w, ns);
  }
  // Runs f() and records its duration as one wait `w`.
  template <typename F>
  auto Timed(stats::Wait w, F&& f) {
    const uint64_t t0 = clock_->NowNanos();
    if constexpr (std::is_void_v<decltype(f())>) {
      std::forward<F>(f)();
      Wait(w, clock_->NowNanos() - t0);
    } else {
      auto r = std::forward<F>(f)();
      Wait(w, clock_->NowNanos() - t0);
      return r;
    }
  }

 private:
  Clock* clock_;
  stats::StatSet* session_stats_;
  stats::WaitSet* session_waits_;
  stats::StatSet* system_stats_;
  stats::WaitSet* system_waits_;
};

// A DiskGroup::Write the database issued: `logical_requests` AsmWriteRequests
// of `logical_bytes` in all. Counted once per logical request, before ASM's
// mirroring (`physical write total *`); the cells' flash statistics and the
// interconnect bytes once per copy (docs/statistics.md).
void AccountWrite(Recorder& rec, const asmgr::AsmIoResult& r, uint64_t logical_requests,
                  uint64_t logical_bytes);
// A DiskGroup::Read of requests of `request_bytes` each.
void AccountRead(Recorder& rec, const asmgr::AsmIoResult& r, uint64_t request_bytes);
// A DiskGroup::FormatFile call: one creation request per AU piece per copy;
// requests carry no interconnect bytes.
void AccountFormat(Recorder& rec, const asmgr::FormatResult& r);

// Records the waits of one file's creation I/O by the blocking rule
// (CreationWaitOptions): add the requests as they were sent, with the
// measured time the foreground spent on them, then Record().
class CreationWindow {
 public:
  CreationWindow(Recorder& rec, const CreationWaitOptions& options, stats::Wait wait)
      : rec_(rec), options_(options), wait_(wait) {}
  // The creation requests of a FormatFile call (in the order ASM sent them:
  // extent by extent, copy by copy), which took `measured_ns`.
  void AddFormat(const asmgr::FormatResult& r, uint64_t measured_ns);
  // `requests` zero-fill writes, waited for during `measured_ns`.
  void AddInitWrites(uint64_t requests, uint64_t measured_ns);
  // Runs the model and records its waits; a second call records nothing.
  void Record();
  // The model alone (exposed for tests): the lengths of the waits the
  // foreground blocks for, in modeled nanoseconds.
  struct Request {
    uint32_t queue = 0;      // the cell (format) or 0 (zero-fill)
    double mean_ns = 0;      // mean service time
    bool exponential = true;  // drawn from an exponential, else fixed
  };
  static std::vector<double> BlockingWaits(const std::vector<Request>& requests,
                                           uint32_t window, const CreationWaitOptions& o);

 private:
  Recorder& rec_;
  const CreationWaitOptions& options_;
  stats::Wait wait_;
  std::vector<Request> requests_;
  uint64_t measured_ns_ = 0;
  bool init_writes_ = false;
};

}  // namespace cellsim::db::internal

#endif  // CELLSIM_DB_ACCOUNTING_H_
