// Private: where the database's statistics and waits come from. A Recorder adds
// every increment to a session's sets and to the instance's sums at once
// (v$mystat and v$sysstat move together); the Account* functions turn what ASM
// and the cells report about the I/O actually issued into Oracle statistics,
// by the rules of docs/statistics.md.
#ifndef CELLSIM_DB_ACCOUNTING_H_
#define CELLSIM_DB_ACCOUNTING_H_

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "cellsim/asm/types.h"
#include "cellsim/base/clock.h"
#include "cellsim/db/database.h"
#include "cellsim/stats/statistics.h"

namespace cellsim::asmgr {
class DiskGroup;
}  // namespace cellsim::asmgr

namespace cellsim::db::internal {

// A cell's cellhash# (the P1 of its `cell smart file creation` and cell read
// waits) and V$CELL.CELL_HASHVAL: a stable 32-bit hash (FNV-1a) of the cell's
// name. Oracle hashes the cell's path; both are fixed for the cell's life.
uint32_t CellHashValue(std::string_view cell_name);

class Recorder {
 public:
  // Session sets may be null (the instance's own work: Create, Open).
  Recorder(Clock* clock, stats::StatSet* session_stats, stats::WaitSet* session_waits,
           stats::WaitHistory* session_history, stats::StatSet* system_stats,
           stats::WaitSet* system_waits)
      : clock_(clock),
        session_stats_(session_stats),
        session_waits_(session_waits),
        session_history_(session_history),
        system_stats_(system_stats),
        system_waits_(system_waits) {}

  Clock* clock() const { return clock_; }

  void Add(stats::Stat s, int64_t delta) {
    if (delta == 0) return;
    if (session_stats_ != nullptr) session_stats_->Add(s, delta);
    system_stats_->Add(s, delta);
  }
  // One wait `w` of `ns` with parameters `p` (docs/statistics.md "Wait
  // parameters"), ending now; WaitEndedAt when it ended at `end_ns`.
  void Wait(stats::Wait w, uint64_t ns, const stats::WaitParams& p = {}) {
    WaitEndedAt(w, ns, session_history_ != nullptr ? clock_->NowNanos() : 0, p);
  }
  void WaitEndedAt(stats::Wait w, uint64_t ns, uint64_t end_ns, const stats::WaitParams& p) {
    if (session_waits_ != nullptr) session_waits_->Record(w, ns);
    if (session_history_ != nullptr) session_history_->Record(w, p, ns, end_ns);
    system_waits_->Record(w, ns);
  }
  // WaitEndedAt of each of `waits`, in order (summed per set first).
  void WaitsEndedAt(stats::Wait w, absl::Span<const stats::EndedWait> waits) {
    if (session_waits_ != nullptr) session_waits_->RecordAll(w, waits);
    if (session_history_ != nullptr) session_history_->RecordAll(w, waits);
    system_waits_->RecordAll(w, waits);
  }
  // Runs f() and records its duration as one wait `w` with parameters `p`.
  template <typename F>
  auto Timed(stats::Wait w, const stats::WaitParams& p, F&& f) {
    const uint64_t t0 = clock_->NowNanos();
    if constexpr (std::is_void_v<decltype(f())>) {
      std::forward<F>(f)();
      Wait(w, clock_->NowNanos() - t0, p);
    } else {
      auto r = std::forward<F>(f)();
      Wait(w, clock_->NowNanos() - t0, p);
      return r;
    }
  }
  template <typename F>
  auto Timed(stats::Wait w, F&& f) {
    return Timed(w, stats::WaitParams{}, std::forward<F>(f));
  }

 private:
  Clock* clock_;
  stats::StatSet* session_stats_;
  stats::WaitSet* session_waits_;
  stats::WaitHistory* session_history_;
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
// For bytes under the database's own checksum, which ASM cannot check (the
// control files, the dictionary copies, the checkpoint's undo): after
// `accept` refused what a read of [offset, +out.size()) of ASM file `file`
// returned, reads the range from each mirror copy in turn (ASM copy 1, then
// 2) into `out` until `accept` takes one. Returns the copy taken, or nullopt (no mirror, or none
// accepted; `out` then holds the last read). The reads are `rec`'s.
std::optional<uint32_t> ReadFromMirrors(Recorder& rec, asmgr::DiskGroup* dg, uint32_t file,
                                        uint64_t offset, absl::Span<uint8_t> out,
                                        const std::function<bool()>& accept);

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
  // The creation requests of a FormatFile call on `dg` (in the order ASM sent
  // them: extent by extent, copy by copy), which took `measured_ns`.
  void AddFormat(const asmgr::FormatResult& r, uint64_t measured_ns, const asmgr::DiskGroup& dg);
  // `requests` zero-fill writes, waited for during `measured_ns`.
  void AddInitWrites(uint64_t requests, uint64_t measured_ns);
  // Runs the model and records its waits, placed in order over the measured
  // time that ends now; a creation wait's P1 is the cellhash# of the cell
  // whose reply it waited for. A second call records nothing.
  void Record();
  // The model alone (exposed for tests): the waits the foreground blocks
  // for, in modeled nanoseconds, and the queue whose reply each waited for.
  struct Request {
    uint32_t queue = 0;      // the cell (format) or 0 (zero-fill)
    double mean_ns = 0;      // mean service time
    bool exponential = true;  // drawn from an exponential, else fixed
  };
  struct BlockingWait {
    double ns = 0;
    uint32_t queue = 0;
  };
  static std::vector<BlockingWait> BlockingWaits(const std::vector<Request>& requests,
                                                 uint32_t window, const CreationWaitOptions& o);

 private:
  Recorder& rec_;
  const CreationWaitOptions& options_;
  stats::Wait wait_;
  std::vector<Request> requests_;
  std::map<uint32_t, uint32_t> cell_hashes_;  // queue (cell index) -> cellhash#
  uint64_t measured_ns_ = 0;
  bool init_writes_ = false;
};

}  // namespace cellsim::db::internal

#endif  // CELLSIM_DB_ACCOUNTING_H_
