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

// A DiskGroup::Write the database issued: `logical_requests` AsmWriteRequests,
// each of `request_bytes` (the optimized-bytes rule needs a uniform size).
void AccountWrite(Recorder& rec, const asmgr::AsmIoResult& r, uint64_t logical_requests,
                  uint64_t request_bytes);
// A DiskGroup::Read of requests of `request_bytes` each.
void AccountRead(Recorder& rec, const asmgr::AsmIoResult& r, uint64_t request_bytes);
// A DiskGroup::FormatFile call with `options` on a group with AU `au_size`.
void AccountFormat(Recorder& rec, const asmgr::FormatResult& r,
                   const asmgr::FormatOptions& options, uint64_t au_size);

// Bytes a format-range exchange puts on the interconnect: the request message
// and its reply, encoded as cellsim's iDB-like messages (docs/statistics.md).
uint64_t FormatExchangeBytes(const cell::FormatRangeRequest& request);

// Records one `cell smart file creation` wait per FormatRange call that
// `r` reports, as the foreground sees them: calls to the cells start together
// and run concurrently, the foreground waits for the next reply each time, so
// wait i lasts from reply i-1 to reply i (completion times from the measured
// call latencies). The waits thus add up to the latest reply, never more than
// the FormatFile call's own duration. `requests_per_call` is the value given
// to FormatFile (0: all of a cell's requests in one call).
void RecordFormatWaits(Recorder& rec, const asmgr::FormatResult& r, uint32_t requests_per_call);
// The same for several FormatFile calls started together on different
// threads (one per file): their replies are merged in arrival order.
void RecordFormatWaits(Recorder& rec, const std::vector<const asmgr::FormatResult*>& results,
                       uint32_t requests_per_call);

}  // namespace cellsim::db::internal

#endif  // CELLSIM_DB_ACCOUNTING_H_
