#include "cellsim/db/creation.h"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <future>
#include <map>
#include <set>
#include <vector>

#include "cellsim/base/executor.h"
#include "cellsim/io/io_backend.h"

namespace cellsim::db::internal {
namespace {

struct FormatRange {
  uint64_t offset = 0;
  uint64_t length = 0;
};

struct BatchOutcome {
  absl::Status status;
  asmgr::AsmIoResult result;
  uint64_t modeled_end_ns = 0;  // simulated clock: when the batch's last copy landed
};

// One zero-fill batch: `len` bytes at file offset `at` in requests of `req`
// that end on multiples of `req` in the file, so that none straddles an AU
// (a resize's extension starts one block past an AU boundary: its first
// request is shorter) (`redo`: an online log's, which the cells keep out of
// the flash cache).
BatchOutcome WriteBatch(asmgr::DiskGroup* dg, uint32_t file, const uint8_t* data, uint64_t len,
                        uint64_t at, uint64_t req, bool redo) {
  std::vector<asmgr::AsmWriteRequest> w;
  uint64_t step = 0;
  for (uint64_t o = 0; o < len; o += step) {
    step = std::min(req - (at + o) % req, len - o);
    asmgr::AsmWriteRequest r;
    r.file_offset = at + o;
    r.data = absl::MakeConstSpan(data + o, step);
    r.redo = redo;
    w.push_back(std::move(r));
  }
  BatchOutcome out;
  out.status = dg->Write(file, absl::MakeSpan(w), &out.result);
  return out;
}

// Starts WriteBatch on the shared executor. With a simulated clock the batch
// is split in two passes (Clock::CellCalls): its cell writes are charged to
// the device model now, on this thread, in issue order and from the
// foreground's issue time, which stays (a charge-only DiskGroup::Write: no
// real I/O, cheap); then its real bytes move on the executor (perform-only),
// concurrently with the other batches in flight as with a real clock. The
// device queues see the same sequence on every run, whatever order the real
// writes complete in; the real pass gives the outcome and the statistics.
std::future<BatchOutcome> LaunchBatch(Clock* clock, asmgr::DiskGroup* dg, uint32_t file,
                                      const uint8_t* data, uint64_t len, uint64_t at,
                                      uint64_t req, bool redo) {
  if (!clock->simulated()) {
    const uint64_t tag = clock->ThreadTag();  // the batch is the caller's work
    return Executor::Shared()->Submit([=] {
      clock->SetThreadTag(tag);
      return WriteBatch(dg, file, data, len, at, req, redo);
    });
  }
  const uint64_t issued_ns = clock->NowNanos();
  uint64_t stale_marked = 0;  // the charge pass marks copies on offline disks stale
  {
    ScopedCellCalls charge(clock, Clock::CellCalls::kChargeOnly);
    stale_marked = WriteBatch(dg, file, data, len, at, req, redo).result.stale_extents_marked;
  }
  const uint64_t landed_ns = clock->NowNanos();
  clock->SetThreadNanos(issued_ns);
  const uint64_t tag = clock->ThreadTag();
  return Executor::Shared()->Submit([=] {
    clock->SetThreadTag(tag);
    clock->SetThreadNanos(landed_ns);
    ScopedCellCalls perform(clock, Clock::CellCalls::kPerformOnly);
    BatchOutcome out = WriteBatch(dg, file, data, len, at, req, redo);
    out.result.stale_extents_marked += stale_marked;
    out.modeled_end_ns = landed_ns;
    return out;
  });
}

// Zero-fill: the database builds the blocks and writes every copy itself.
// Batches of `requests_per_batch` requests of `request_bytes` go to ASM in one
// DiskGroup::Write each (which sends every copy, all cells at once); up to
// `batches_in_flight` such writes run concurrently while the foreground
// generates the next batch into a free buffer. The foreground waits (one
// `* file init write` wait per batch) only for the oldest batch, when every
// buffer is in flight or at the end.
absl::Status ZeroFill(Recorder& rec, const FormatJob& job, const ZeroFillOptions& o,
                      const CreationWaitOptions& waits, const ProgressCallback& progress) {
  asmgr::DiskGroup* dg = job.dg;
  const uint32_t file = job.file.number;
  const uint64_t size = job.file.size_bytes;
  const uint64_t req = std::max<uint64_t>(512, io::AlignUp(o.request_bytes, 512));
  const uint64_t batch = req * std::max<uint32_t>(1, o.requests_per_batch);
  const size_t in_flight = std::max<uint32_t>(1, o.batches_in_flight);

  struct Pending {
    std::future<BatchOutcome> done;
    size_t buffer;
    uint64_t bytes;
    uint64_t requests;
  };
  Clock* clock = rec.clock();
  std::vector<io::AlignedBuffer> buffers;
  std::vector<size_t> free_buffers;
  std::deque<Pending> queue;
  absl::Status first;
  uint64_t offset = job.from, written = job.from;
  CreationWindow window(rec, waits, job.init_write_wait);
  const bool redo = job.init_write_wait == stats::Wait::kLogFileInitWrite;

  auto reap = [&] {
    Pending p = std::move(queue.front());
    queue.pop_front();
    const uint64_t t0 = clock->NowNanos();
    BatchOutcome out = p.done.get();
    clock->AdvanceThreadTo(out.modeled_end_ns);
    window.AddInitWrites(p.requests, clock->NowNanos() - t0);
    AccountWrite(rec, out.result, p.requests, p.bytes);
    free_buffers.push_back(p.buffer);
    if (!out.status.ok()) {
      if (first.ok()) first = out.status;
      return;
    }
    written += p.bytes;
    if (progress) {
      progress({job.file.name, CreationPath::kZeroFill, written, size});
    }
  };

  while (true) {
    if (offset < size && first.ok() && queue.size() < in_flight && !Cancelled(job.cancel)) {
      if (free_buffers.empty()) {
        buffers.emplace_back(static_cast<size_t>(std::min(batch, size)));
        free_buffers.push_back(buffers.size() - 1);
      }
      const size_t b = free_buffers.back();
      free_buffers.pop_back();
      // Batches end on multiples of the request size too.
      const uint64_t len = std::min(batch - offset % req, size - offset);
      uint8_t* data = buffers[b].data();
      format::GenerateRange(job.block_template, offset, absl::MakeSpan(data, len));
      const uint64_t nreq = (offset % req + len + req - 1) / req;
      Pending p{LaunchBatch(clock, dg, file, data, len, offset, req, redo), b, len, nreq};
      queue.push_back(std::move(p));
      offset += len;
      continue;
    }
    if (queue.empty()) break;
    reap();
  }
  window.Record();
  if (first.ok() && offset < size) return CancelStatus();
  return first;
}

// The ranges of a file the cells format, as Oracle asks for them
// (docs/statistics.md "Creation requests"): block 0, then [2 blocks, end).
// Block 1, the file header, is written by the database itself right after
// (WriteHeaders), so the cells never format it. A file of 2 blocks has only
// block 0 to format. A resize's extension is one range, [from, end).
std::vector<FormatRange> CellFormatRanges(const FormatJob& job) {
  const asmgr::FileInfo& f = job.file;
  if (job.from != 0) {
    if (job.from >= f.size_bytes) return {};
    return {{job.from, f.size_bytes - job.from}};
  }
  const uint64_t b = std::max<uint64_t>(512, f.block_size);
  std::vector<FormatRange> out;
  out.push_back({0, std::min(b, f.size_bytes)});
  if (f.size_bytes > 2 * b) out.push_back({2 * b, f.size_bytes - 2 * b});
  return out;
}

// Smart and fast: one format-range request per AU piece of every range of
// CellFormatRanges, per extent copy, sent by ASM to the owning cells.
absl::Status Offload(Recorder& rec, const FormatJob& job, bool fast,
                     const DatabaseOptions& options, const ProgressCallback& progress) {
  asmgr::DiskGroup* dg = job.dg;
  const uint64_t au = dg->au_size();
  const uint64_t size = job.file.size_bytes;
  const uint32_t per_call =
      fast ? options.fast_requests_per_format : options.smart_requests_per_format;
  const uint64_t slice =
      fast || options.smart_extents_per_call == 0 ? size : options.smart_extents_per_call * au;
  CreationWindow window(rec, options.creation_waits, stats::Wait::kCellSmartFileCreation);
  for (const FormatRange& range : CellFormatRanges(job)) {
    uint64_t length = 0;
    for (uint64_t off = range.offset; off < range.offset + range.length; off += length) {
      if (Cancelled(job.cancel)) {
        window.Record();
        return CancelStatus();
      }
      asmgr::FormatOptions fo;
      fo.block_template = job.block_template;
      fo.method = fast ? cell::FormatMethod::kMetadataOnly : cell::FormatMethod::kWriteBlocks;
      fo.file_offset = off;
      // Slices end on AU boundaries, so no AU piece is split in two requests.
      fo.length = length = std::min(off / au * au + slice, range.offset + range.length) - off;
      fo.requests_per_call = per_call;
      asmgr::FormatResult fr;
      const uint64_t t0 = rec.clock()->NowNanos();
      absl::Status st = dg->FormatFile(job.file.number, fo, &fr);
      window.AddFormat(fr, rec.clock()->NowNanos() - t0, *dg);
      AccountFormat(rec, fr);
      if (!st.ok()) {
        window.Record();
        return st;
      }
      if (progress) {
        progress({job.file.name, fast ? CreationPath::kFast : CreationPath::kSmart,
                  off + fo.length, size});
      }
    }
  }
  window.Record();
  return absl::OkStatus();
}

}  // namespace

absl::Status CancelStatus() { return absl::CancelledError(std::string(kCancelMessage)); }

absl::StatusOr<PathChoice> ChoosePath(const asmgr::DiskGroup& dg, bool offload,
                                      bool metadata_only_allowed) {
  if (!offload) {
    return PathChoice{CreationPath::kZeroFill, "_cell_fast_file_create = FALSE"};
  }
  std::map<uint32_t, std::vector<uint32_t>> cells;  // cell -> its grid disks in the group
  for (uint32_t d = 0; d < dg.disk_count(); ++d) {
    cells[dg.disk(d).cell].push_back(dg.disk(d).grid_disk);
  }
  std::string write_through, uncached;
  for (const auto& [c, grid_disks] : cells) {
    absl::StatusOr<cell::CellDescription> desc = dg.cell(c)->Describe();
    if (!desc.ok()) return desc.status();
    if (desc->flash_cache_mode != cell::FlashCacheMode::kWriteBack && write_through.empty()) {
      write_through = desc->name;
    }
    for (uint32_t g : grid_disks) {
      if (g < desc->grid_disks.size() && uncached.empty() &&
          desc->grid_disks[g].caching_policy == cell::CachingPolicy::kNone) {
        uncached = desc->grid_disks[g].name;
      }
    }
  }
  // Every cellsim cell is an Exadata cell: offload is always possible here.
  if (!write_through.empty()) {
    return PathChoice{CreationPath::kSmart,
                      fmt::format("cell {} of +{} is WriteThrough", write_through, dg.name())};
  }
  // Fast creation lives in the write-back cache, which a grid disk with
  // cachingPolicy=none stays out of (fidelity.md §6 item 12, §7 item 6).
  if (!uncached.empty()) {
    return PathChoice{CreationPath::kSmart, fmt::format("grid disk {} of +{} has cachingPolicy=none",
                                                        uncached, dg.name())};
  }
  if (!metadata_only_allowed) {
    return PathChoice{CreationPath::kSmart, "cellsim_fast_file_create_metadata = FALSE"};
  }
  return PathChoice{CreationPath::kFast,
                    fmt::format("all {} cells of +{} are WriteBack", cells.size(), dg.name())};
}

absl::Status FormatFastTogether(Recorder& rec, const std::vector<FormatJob>& jobs,
                                const DatabaseOptions& options, const ProgressCallback& progress,
                                std::vector<uint64_t>* format_ns, size_t* failed_job) {
  const uint32_t per_call = options.fast_requests_per_format;
  std::vector<std::vector<asmgr::FormatResult>> results(jobs.size());
  std::vector<std::vector<FormatRange>> ranges(jobs.size());
  size_t most = 0;
  for (size_t i = 0; i < jobs.size(); ++i) {
    ranges[i] = CellFormatRanges(jobs[i]);
    results[i].resize(ranges[i].size());
    most = std::max(most, ranges[i].size());
  }
  // Every file's first range (block 0), then every file's second: a cell
  // journals the requests of one call in groups of disjoint cache lines, and
  // block 0 shares its line with the start of [2 blocks, end), so this order
  // makes two groups (two flash syncs) a call, whatever the number of files.
  std::vector<asmgr::FileFormat> formats;
  std::vector<size_t> job_of;  // formats[k] formats a range of jobs[job_of[k]]
  for (size_t r = 0; r < most; ++r) {
    for (size_t i = 0; i < jobs.size(); ++i) {
      if (r >= ranges[i].size()) continue;
      asmgr::FormatOptions o;
      o.block_template = jobs[i].block_template;
      o.method = cell::FormatMethod::kMetadataOnly;
      o.file_offset = ranges[i][r].offset;
      o.length = ranges[i][r].length;
      o.requests_per_call = per_call;
      formats.push_back({jobs[i].dg, jobs[i].file.number, o, &results[i][r], {}});
      job_of.push_back(i);
    }
  }
  const uint64_t t0 = rec.clock()->NowNanos();
  (void)asmgr::DiskGroup::FormatFiles(absl::MakeSpan(formats));
  const uint64_t measured = rec.clock()->NowNanos() - t0;
  std::vector<absl::Status> status(jobs.size());
  for (size_t k = 0; k < formats.size(); ++k) {
    if (status[job_of[k]].ok()) status[job_of[k]] = formats[k].status;
  }
  format_ns->assign(jobs.size(), measured);
  // The foreground sends the files' requests one file after another.
  CreationWindow window(rec, options.creation_waits, stats::Wait::kCellSmartFileCreation);
  bool first_result = true;
  for (size_t i = 0; i < jobs.size(); ++i) {
    for (const asmgr::FormatResult& r : results[i]) {
      window.AddFormat(r, first_result ? measured : 0, *jobs[i].dg);
      first_result = false;
    }
  }
  window.Record();
  absl::Status first;
  for (size_t i = 0; i < jobs.size(); ++i) {
    for (const asmgr::FormatResult& r : results[i]) AccountFormat(rec, r);
    if (!status[i].ok() && first.ok()) {
      first = status[i];
      *failed_job = i;
    }
  }
  if (!first.ok()) return first;
  if (progress) {
    for (const FormatJob& j : jobs) {
      progress({j.file.name, CreationPath::kFast, j.file.size_bytes, j.file.size_bytes});
    }
  }
  return absl::OkStatus();
}

absl::Status FormatByPath(Recorder& rec, const FormatJob& job, CreationPath path,
                          const DatabaseOptions& options, const ProgressCallback& progress) {
  switch (path) {
    case CreationPath::kZeroFill:
      return ZeroFill(rec, job, options.zero_fill, options.creation_waits, progress);
    case CreationPath::kSmart:
      return Offload(rec, job, /*fast=*/false, options, progress);
    case CreationPath::kFast:
      return Offload(rec, job, /*fast=*/true, options, progress);
  }
  return absl::InternalError("unknown creation path");
}

}  // namespace cellsim::db::internal
