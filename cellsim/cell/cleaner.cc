// Destage, slot reservation with eviction, the background cleaner and Flush
// (ALTER FLASHCACHE ALL FLUSH).
//
// Destaging a line copies its dirty pages from its slot to the grid disk,
// syncs the disk, then journals the line as clean (unsynced: if that record is
// lost in a crash the line is merely destaged again). Evicting a line journals
// kLineDrop; its slot is reused only once that record is durable.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "cellsim/cell/cell_impl.h"

namespace cellsim::cell::internal {
namespace {
constexpr size_t kDestageBatchLines = 32;
constexpr uint64_t kMaterializeChunk = 8 * 1024 * 1024;

// The records that evict `keys` (their slots free once they are durable).
std::vector<Record> DropRecords(const std::vector<uint64_t>& keys) {
  std::vector<Record> drops;
  drops.reserve(keys.size());
  for (uint64_t key : keys) {
    drops.push_back({.type = RecordType::kLineDrop, .disk = CacheState::KeyDisk(key),
                     .line = CacheState::KeyLine(key)});
  }
  return drops;
}
}  // namespace

bool CellImpl::TryLockLine(uint64_t key, std::vector<RangeLocks::Guard>* guards) {
  const uint64_t ls = layout_.line_size;
  const uint64_t a = CacheState::KeyLine(key) * ls;
  std::optional<RangeLocks::Guard> g = locks_.TryAcquire({{CacheState::KeyDisk(key), a, a + ls}});
  if (!g) return false;
  if (disks_[CacheState::KeyDisk(key)] == nullptr) return false;  // not present: kept dirty
  guards->push_back(std::move(*g));
  return true;
}

absl::StatusOr<uint64_t> CellImpl::DestageLocked(const std::vector<uint64_t>& keys) {
  const uint64_t ls = layout_.line_size;
  struct Work {
    uint64_t key;
    uint32_t slot;
    uint64_t valid, dirty;
    io::AlignedBuffer buf;
  };
  std::vector<Work> works;
  {
    MutexLock l(&state_mu_);
    for (uint64_t key : keys) {
      const LineState* st = state_->Find(key);
      if (st == nullptr || st->dirty == 0) continue;
      if (disks_[CacheState::KeyDisk(key)] == nullptr) {
        return AbsentDiskError(CacheState::KeyDisk(key));
      }
      works.push_back({key, st->slot, st->valid, st->dirty, io::AlignedBuffer(ls)});
    }
  }
  if (works.empty()) return 0;
  IoBatch reads, writes;
  std::vector<uint32_t> touched;
  uint64_t bytes = 0;
  for (Work& w : works) {
    const uint32_t disk = CacheState::KeyDisk(w.key);
    const uint64_t lstart = CacheState::KeyLine(w.key) * ls;
    touched.push_back(disk);
    for (uint32_t p = 0; p < 64;) {
      if ((w.dirty & (uint64_t{1} << p)) == 0) {
        ++p;
        continue;
      }
      uint32_t q = p;
      while (q < 64 && (w.dirty & (uint64_t{1} << q))) ++q;
      const uint64_t len = (q - p) * kPage;
      reads.Add(io::IoOp::kRead, flash_->handle(), -1, layout_.SlotOffset(w.slot) + p * kPage,
                w.buf.data() + p * kPage, len);
      writes.Add(io::IoOp::kWrite, disks_[disk]->handle(), static_cast<int32_t>(disk),
                 lstart + p * kPage, w.buf.data() + p * kPage, len);
      bytes += len;
      p = q;
    }
  }
  if (absl::Status s = SubmitBatch(&reads); !s.ok()) return s;
  if (absl::Status s = SubmitBatch(&writes); !s.ok()) return s;
  if (absl::Status s = SyncDisks(touched); !s.ok()) return s;
  fc_.rq_disk_write += writes.reqs.size();
  fc_.by_disk_write += bytes;
  std::vector<Record> records;
  for (const Work& w : works) {
    records.push_back({.type = RecordType::kLineSet, .disk = CacheState::KeyDisk(w.key),
                       .line = CacheState::KeyLine(w.key), .slot = w.slot, .valid = w.valid,
                       .dirty = 0});
  }
  if (absl::Status s = Append(records, /*sync=*/false, nullptr); !s.ok()) return s;
  return bytes;
}

absl::Status CellImpl::ReserveSlots(size_t n, bool force, std::vector<uint32_t>* slots) {
  if (n > layout_.num_slots) {
    return absl::ResourceExhaustedError(fmt::format(
        "cell {}: a batch needs {} new cache lines, the flash cache has {}; use smaller batches",
        config_.name, n, layout_.num_slots));
  }
  int busy_rounds = 0;
  while (slots->size() < n) {
    bool have_pending;
    {
      MutexLock l(&state_mu_);
      while (slots->size() < n) {
        std::optional<uint32_t> s = state_->ReserveSlot();
        if (!s) break;
        slots->push_back(*s);
      }
      have_pending = state_->pending_free_slots() > 0;
    }
    if (slots->size() == n) break;
    if (have_pending) {
      // Slots freed by unsynced records become reusable once they are durable.
      if (absl::Status s = meta_->Sync(state_.get(), &state_mu_); !s.ok()) return s;
      continue;
    }
    const size_t want = n - slots->size();
    std::vector<RangeLocks::Guard> guards;
    std::vector<uint64_t> victims;
    auto lock = [&](uint64_t key) { return TryLockLine(key, &guards); };
    {
      MutexLock l(&state_mu_);
      victims = state_->ColdLines(/*want_dirty=*/false, want, lock);
    }
    if (victims.empty()) {
      if (!force) break;
      // Everything is dirty: destage the coldest lines now, then evict them.
      {
        MutexLock l(&state_mu_);
        victims = state_->ColdLines(/*want_dirty=*/true, std::max<size_t>(want, 8), lock);
      }
      if (victims.empty()) {
        // Every line is locked by requests in flight, the cleaner or a flush:
        // they release them soon. (Waiting while holding our own range locks
        // could deadlock, so poll.)
        if (++busy_rounds > 5000) {
          return absl::ResourceExhaustedError(fmt::format(
              "cell {}: all {} flash cache lines stayed in use by requests in flight; {} more "
              "are needed (use a larger flash or smaller batches)",
              config_.name, layout_.num_slots, want));
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        continue;
      }
      absl::StatusOr<uint64_t> d = DestageLocked(victims);
      if (!d.ok()) return d.status();
    }
    if (absl::Status s = Append(DropRecords(victims), /*sync=*/true, nullptr); !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

double CellImpl::DirtyShareLocked() const {
  const double slots = static_cast<double>(layout_.num_slots);
  const double pages = static_cast<double>(state_->dirty_pages()) /
                       (slots * static_cast<double>(layout_.line_size / kPage));
  return std::max(pages, static_cast<double>(state_->dirty_lines()) / slots);
}

size_t CellImpl::FreeSlotTarget() const {
  return std::max<size_t>(kDestageBatchLines / 4, layout_.num_slots / 32);
}

size_t CellImpl::SpareSlotsLocked() const {
  return state_->free_slots() + state_->pending_free_slots();
}

bool CellImpl::FreeSlotsLowLocked() const { return SpareSlotsLocked() < FreeSlotTarget() / 2; }

absl::Status CellImpl::RefillFreeSlots() {
  while (true) {
    std::vector<RangeLocks::Guard> guards;
    std::vector<uint64_t> victims;
    {
      MutexLock l(&state_mu_);
      const size_t have = SpareSlotsLocked();
      if (have >= FreeSlotTarget()) break;
      victims = state_->ColdLines(/*want_dirty=*/false,
                                  std::min(kDestageBatchLines, FreeSlotTarget() - have),
                                  [&](uint64_t key) { return TryLockLine(key, &guards); });
    }
    // No clean line to spare (or all busy): the destage half of the pass, or
    // a writer's own eviction, makes some.
    if (victims.empty()) break;
    // Unsynced: the slots become free when the next writer's chunk is synced
    // (or a writer that finds none free syncs, ReserveSlots).
    if (absl::Status s = Append(DropRecords(victims), /*sync=*/false, nullptr); !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<uint64_t> CellImpl::CleanerPass() {
  if (absl::Status s = CheckOpen(); !s.ok()) return s;
  bool destage;
  {
    MutexLock l(&state_mu_);
    destage = DirtyShareLocked() > config_.destage_high_watermark;
  }
  uint64_t total = 0;
  while (destage) {
    // Between destage batches too: a pass from the high to the low watermark
    // destages hundreds of lines while writers keep taking free slots.
    if (absl::Status s = RefillFreeSlots(); !s.ok()) return s;
    std::vector<RangeLocks::Guard> guards;
    std::vector<uint64_t> victims;
    {
      MutexLock l(&state_mu_);
      if (DirtyShareLocked() <= config_.destage_low_watermark) break;
      victims = state_->ColdLines(/*want_dirty=*/true, kDestageBatchLines,
                                  [&](uint64_t key) { return TryLockLine(key, &guards); });
    }
    if (victims.empty()) break;  // every dirty line is busy; try again later
    absl::StatusOr<uint64_t> d = DestageLocked(victims);
    if (!d.ok()) return d.status();
    total += *d;
  }
  if (absl::Status s = RefillFreeSlots(); !s.ok()) return s;
  return total;
}

void CellImpl::KickCleanerIfNeeded() {
  {
    MutexLock l(&state_mu_);
    if (DirtyShareLocked() <= config_.destage_high_watermark && !FreeSlotsLowLocked()) return;
  }
  {
    MutexLock l(&cleaner_mu_);
    cleaner_kick_ = true;
  }
  cleaner_cv_.SignalAll();
}

void CellImpl::StartCleaner() {
  MutexLock l(&cleaner_mu_);
  if (cleaner_.joinable() || closed_.load()) return;
  cleaner_stop_ = false;
  cleaner_ = std::thread(&CellImpl::CleanerLoop, this);
}

void CellImpl::StopCleaner() {
  std::thread t;
  {
    MutexLock l(&cleaner_mu_);
    cleaner_stop_ = true;
    t = std::move(cleaner_);
  }
  cleaner_cv_.SignalAll();
  if (t.joinable()) t.join();
}

bool CellImpl::CleanerRunning() const {
  MutexLock l(&cleaner_mu_);
  return cleaner_.joinable();
}

void CellImpl::CleanerLoop() {
  MutexLock l(&cleaner_mu_);
  while (!cleaner_stop_) {
    // Woken by writes crossing the high watermark; the timeout is a safety net
    // (real time, as a real cleaner's polling would be).
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(50);
    while (!cleaner_stop_ && !cleaner_kick_) {
      const auto now = std::chrono::steady_clock::now();
      if (now >= deadline) break;
      cleaner_cv_.WaitFor(&cleaner_mu_, deadline - now);
    }
    if (cleaner_stop_) break;
    cleaner_kick_ = false;
    cleaner_mu_.Unlock();
    absl::StatusOr<uint64_t> r = CleanerPass();
    cleaner_mu_.Lock();
    if (!r.ok()) cleaner_error_ = r.status();
  }
}

absl::StatusOr<FlushProgress> CellImpl::Flush(
    const std::function<void(const FlushProgress&)>& progress) {
  if (absl::Status s = CheckOpen(); !s.ok()) return s;
  const uint64_t ls = layout_.line_size;
  FlushProgress p;
  auto report = [&] {
    {
      MutexLock l(&state_mu_);
      p.dirty_bytes_remaining = state_->dirty_pages() * kPage;
    }
    if (progress) progress(p);
  };
  for (int round = 0; round < 1000; ++round) {
    std::vector<uint64_t> dirty;
    {
      MutexLock l(&state_mu_);
      if (state_->dirty_pages() == 0 && state_->template_count() == 0) {
        p.done = true;
        break;
      }
      dirty = state_->DirtyLines();
    }
    for (size_t i = 0; i < dirty.size(); i += kDestageBatchLines) {
      std::vector<uint64_t> batch(dirty.begin() + i,
                                  dirty.begin() + std::min(dirty.size(), i + kDestageBatchLines));
      std::vector<RangeLocks::Range> ranges;
      for (uint64_t key : batch) {
        const uint64_t a = CacheState::KeyLine(key) * ls;
        ranges.push_back({CacheState::KeyDisk(key), a, a + ls});
      }
      RangeLocks::Guard g = locks_.Acquire(std::move(ranges));
      absl::StatusOr<uint64_t> d = DestageLocked(batch);
      if (!d.ok()) return d.status();
      p.bytes_destaged += *d;
      report();
    }
    // Materialize fast-creation ranges: afterwards the disk alone is authoritative.
    while (true) {
      std::optional<CheckpointTemplate> t;
      {
        MutexLock l(&state_mu_);
        t = state_->FirstTemplate();
      }
      if (!t) break;
      const uint64_t len = std::min(t->length, kMaterializeChunk);
      RangeLocks::Guard g = locks_.Acquire({LineRange(t->disk, t->offset, len)});
      std::vector<CheckpointTemplate> pieces;
      {
        MutexLock l(&state_mu_);
        pieces = state_->TemplatesIn(t->disk, t->offset, len);
      }
      std::vector<DiskSpan> spans;
      for (const CheckpointTemplate& piece : pieces) {
        spans.push_back(TemplateSpan(piece.disk, piece.offset, piece.length, piece.tmpl,
                                     piece.file_offset, nullptr));
      }
      if (absl::Status s = DiskWriteLocked(spans, nullptr); !s.ok()) return s;
      p.ranges_materialized += pieces.size();
      for (const CheckpointTemplate& piece : pieces) p.bytes_destaged += piece.length;
      report();
    }
  }
  if (absl::Status s = meta_->Sync(state_.get(), &state_mu_); !s.ok()) return s;
  report();
  return p;
}

}  // namespace cellsim::cell::internal
