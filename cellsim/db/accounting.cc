#include "cellsim/db/accounting.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>
#include <vector>

#include "cellsim/asm/disk_group.h"
#include "cellsim/base/hash.h"

namespace cellsim::db::internal {

uint32_t CellHashValue(std::string_view cell_name) { return Fnv1a32(cell_name); }

namespace {

using stats::Stat;

int64_t I(uint64_t v) { return static_cast<int64_t>(v); }

// Statistics the cells report back with every reply.
void AccountCell(Recorder& rec, const cell::CellIoStats& c) {
  rec.Add(Stat::kCellWritesToFlashCache, I(c.flash_cache_writes));
  rec.Add(Stat::kCellOverwritesInFlashCache, I(c.flash_cache_overwrites));
  rec.Add(Stat::kCellPartialWritesInFlashCache, I(c.flash_cache_partial_writes));
  rec.Add(Stat::kCellFlashCacheReadHits, I(c.flash_cache_read_hits));
}

}  // namespace

void AccountWrite(Recorder& rec, const asmgr::AsmIoResult& r, uint64_t logical_requests,
                  uint64_t logical_bytes) {
  const asmgr::AsmIoStats& io = r.io;
  if (io.cell_requests == 0) return;  // nothing reached a cell
  rec.Add(Stat::kPhysicalWriteTotalIoRequests, I(logical_requests));
  rec.Add(Stat::kPhysicalWriteTotalBytes, I(logical_bytes));
  // ASM counts pieces per copy; a logical request's copies are alike.
  rec.Add(Stat::kPhysicalWriteTotalMultiBlockRequests,
          I(io.multi_block_requests * logical_requests / io.cell_requests));
  // A logical request is optimized when the flash cache absorbed every copy
  // of it (the seed: 10 +DATA control-file writes of 3 copies, 30 flash writes).
  const uint64_t optimized =
      std::min(logical_requests, io.cell.flash_cache_writes * logical_requests / io.cell_requests);
  rec.Add(Stat::kPhysicalWriteRequestsOptimized, I(optimized));
  rec.Add(Stat::kPhysicalWriteTotalBytesOptimized,
          I(logical_requests == 0 ? 0 : optimized * logical_bytes / logical_requests));
  rec.Add(Stat::kCellPhysicalIoInterconnectBytes, I(io.cell_bytes));
  // [I]: no published definition; counted once per logical write request
  // (docs/statistics.md "cell logical write IO requests").
  rec.Add(Stat::kCellLogicalWriteIoRequests, I(logical_requests));
  AccountCell(rec, io.cell);
}

std::optional<uint32_t> ReadFromMirrors(Recorder& rec, asmgr::DiskGroup* dg, uint32_t file,
                                        uint64_t offset, absl::Span<uint8_t> out,
                                        const std::function<bool()>& accept) {
  for (uint32_t copy = 1;; ++copy) {
    std::vector<asmgr::AsmReadRequest> r(1);
    r[0].file_offset = offset;
    r[0].buffer = out;
    r[0].copy = copy;
    asmgr::AsmIoResult res;
    const absl::Status st = dg->Read(file, absl::MakeSpan(r), &res);
    AccountRead(rec, res, out.size());
    if (st.code() == absl::StatusCode::kOutOfRange) return std::nullopt;  // no such copy
    if (st.ok() && accept()) return copy;
  }
}

void AccountRead(Recorder& rec, const asmgr::AsmIoResult& r, uint64_t request_bytes) {
  const asmgr::AsmIoStats& io = r.io;
  rec.Add(Stat::kPhysicalReadTotalIoRequests, I(io.cell_requests));
  rec.Add(Stat::kPhysicalReadTotalBytes, I(io.cell_bytes));
  rec.Add(Stat::kPhysicalReadTotalMultiBlockRequests, I(io.multi_block_requests));
  const uint64_t hits = std::min(io.cell.flash_cache_read_hits, io.cell_requests);
  rec.Add(Stat::kPhysicalReadRequestsOptimized, I(hits));
  rec.Add(Stat::kPhysicalReadTotalBytesOptimized, I(std::min(hits * request_bytes, io.cell_bytes)));
  rec.Add(Stat::kCellPhysicalIoInterconnectBytes, I(io.cell_bytes));
  AccountCell(rec, io.cell);
  // ASM's repair of a copy that failed a read is carried in the same
  // AsmIoStats, so it counts here as read requests: rare (a media error) and
  // documented in docs/statistics.md.
}

void AccountFormat(Recorder& rec, const asmgr::FormatResult& r) {
  uint64_t bytes = 0;
  for (const asmgr::FormatCopyResult& c : r.copies) bytes += c.length;
  const asmgr::AsmIoStats& io = r.result.io;
  rec.Add(Stat::kPhysicalWriteTotalIoRequests, I(r.copies.size()));
  rec.Add(Stat::kPhysicalWriteTotalBytes, I(bytes));
  rec.Add(Stat::kPhysicalWriteTotalMultiBlockRequests, I(io.multi_block_requests));
  rec.Add(Stat::kCellPhysicalIoBytesEligibleForPredicateOffload, I(bytes));
  rec.Add(Stat::kCellPhysicalIoBytesSavedDuringOptimizedFileCreation,
          I(io.cell.bytes_saved_by_creation));
  // A creation request carries no data: the seed's interconnect bytes are
  // exactly its control-file and header I/O (fidelity.md §1.2 [A]).
  AccountCell(rec, io.cell);
}

namespace {

// Deterministic draws for the wait model: splitmix64.
class Draws {
 public:
  explicit Draws(uint64_t seed) : x_(seed) {}
  double Exponential(double mean) {
    x_ += 0x9e3779b97f4a7c15ULL;
    uint64_t z = x_;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    const double u = (static_cast<double>(z >> 11) + 0.5) / 9007199254740992.0;  // (0, 1)
    return -mean * std::log(u);
  }

 private:
  uint64_t x_;
};

}  // namespace

std::vector<CreationWindow::BlockingWait> CreationWindow::BlockingWaits(
    const std::vector<Request>& requests, uint32_t window, const CreationWaitOptions& o) {
  // The foreground sends requests in order, paying foreground_ns_per_request
  // for each; a queue with `window` requests in flight makes it reap replies
  // in the order it sent them until that queue has room; a reply that has not
  // arrived yet is one wait. A queue (a cell; zero-fill's storage) serves its
  // requests one after another.
  Draws draws(o.seed);
  std::deque<std::pair<double, uint32_t>> in_flight;  // reply time, queue
  // Per queue (queues are cell indexes or 0: a vector, not a map, as a 64 GiB
  // fast creation models ~33,000 requests).
  uint32_t queues = 0;
  for (const Request& r : requests) queues = std::max(queues, r.queue + 1);
  std::vector<uint32_t> per_queue(queues, 0);
  std::vector<double> busy_until(queues, 0.0);
  std::vector<BlockingWait> waits;
  double t = 0;
  auto reap_oldest = [&] {
    const auto [reply, queue] = in_flight.front();
    in_flight.pop_front();
    if (reply > t) {
      waits.push_back({reply - t, queue});
      t = reply;
    }
    --per_queue[queue];
  };
  const uint32_t w = std::max<uint32_t>(1, window);
  for (const Request& r : requests) {
    while (per_queue[r.queue] >= w) reap_oldest();
    t += static_cast<double>(o.foreground_ns_per_request);
    const double service = r.exponential ? draws.Exponential(r.mean_ns) : r.mean_ns;
    const double start = std::max(t, busy_until[r.queue]);
    busy_until[r.queue] = start + service;
    in_flight.emplace_back(start + service, r.queue);
    ++per_queue[r.queue];
  }
  while (!in_flight.empty()) reap_oldest();
  return waits;
}

void CreationWindow::AddFormat(const asmgr::FormatResult& r, uint64_t measured_ns,
                               const asmgr::DiskGroup& dg) {
  for (const asmgr::FormatCopyResult& c : r.copies) {
    if (cell_hashes_.count(c.cell) == 0) {
      cell_hashes_[c.cell] = CellHashValue(dg.cell(c.cell)->name());
    }
    Request q;
    q.queue = c.cell;
    q.mean_ns = c.metadata_only ? 1e9 / options_.fast_requests_per_sec_per_cell
                                : 1e9 * static_cast<double>(c.length) /
                                      options_.smart_bytes_per_sec_per_cell;
    requests_.push_back(q);
  }
  measured_ns_ += measured_ns;
}

void CreationWindow::AddInitWrites(uint64_t requests, uint64_t measured_ns) {
  // init_writes_in_flight writes of latency L each keep the storage busy: one
  // completes every L / in-flight (fidelity.md §5: T = S L / (N_buf io)).
  const double latency = static_cast<double>(wait_ == stats::Wait::kLogFileInitWrite
                                                 ? options_.log_init_write_ns
                                                 : options_.data_init_write_ns);
  const double per_write = latency / std::max<uint32_t>(1, options_.init_writes_in_flight);
  requests_.insert(requests_.end(), requests, Request{0, per_write, false});
  measured_ns_ += measured_ns;
  init_writes_ = true;
}

void CreationWindow::Record() {
  const std::vector<BlockingWait> waits = BlockingWaits(
      requests_, init_writes_ ? options_.init_writes_in_flight : options_.cell_window, options_);
  requests_.clear();
  double modeled = 0;
  for (const BlockingWait& w : waits) modeled += w.ns;
  // The foreground really waited measured_ns_, which ends now: each modeled
  // wait gets its share, in order, so the waits add up to the time measured
  // (never more).
  const uint64_t now = rec_.clock()->NowNanos();
  const uint64_t start = now - std::min(now, measured_ns_);
  uint64_t given = 0;
  double so_far = 0;
  std::vector<stats::EndedWait> ended;
  ended.reserve(waits.size());
  for (const BlockingWait& w : waits) {
    so_far += w.ns;
    const uint64_t upto = modeled > 0 ? static_cast<uint64_t>(static_cast<double>(measured_ns_) *
                                                              (so_far / modeled))
                                      : 0;
    // Zero-fill's init writes: Oracle does not document their parameters.
    stats::WaitParams p;
    if (auto hash = cell_hashes_.find(w.queue); !init_writes_ && hash != cell_hashes_.end()) {
      p.p1 = hash->second;
    }
    ended.push_back({upto - std::min(upto, given), start + upto, p});
    given = std::max(given, upto);
  }
  rec_.WaitsEndedAt(wait_, ended);
  measured_ns_ = 0;
}

}  // namespace cellsim::db::internal
