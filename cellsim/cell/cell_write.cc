// Write path. In write-back mode a write smaller than the bypass threshold goes
// to the flash cache line by line: the line's slot (new, or the one it has)
// receives the written pages, any sub-page edges merged with their current
// bytes, and every page of the line still covered by a fast-creation template
// (generated), all marked dirty; then one journal chunk carrying those pages
// and one flash sync for the whole group (slot pages already allocated in
// flash.img are written by the journal in the chunk's submission). Larger writes, and every write in write-through
// mode, go straight to the grid disk (DiskWriteLocked).
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <cstring>
#include <new>

#include "cellsim/cell/cell_impl.h"

namespace cellsim::cell::internal {
namespace {

uint64_t PageMask(uint32_t p0, uint32_t p1) {  // pages [p0, p1)
  const uint32_t n = p1 - p0;
  return (n >= 64 ? ~uint64_t{0} : ((uint64_t{1} << n) - 1)) << p0;
}

}  // namespace

uint8_t* StagingPool::Take() {
  MutexLock l(&mu_);
  if (idle_.empty()) {
    auto* slab = static_cast<uint8_t*>(io::internal::TakeBlock(kSlabBytes, kSlabAlign));
    if (slab == nullptr) throw std::bad_alloc();
    slabs_.emplace_back(slab);
    for (size_t o = kSlabBytes; o > 0; o -= kMaxDiskIo) idle_.push_back(slab + o - kMaxDiskIo);
  }
  uint8_t* b = idle_.back();
  idle_.pop_back();
  return b;
}

void StagingPool::Give(uint8_t* buffer) {
  MutexLock l(&mu_);
  idle_.push_back(buffer);
}

LineBuffers::~LineBuffers() {
  for (uint8_t* b : staged_) pool_->Give(b);
}

uint8_t* LineBuffers::Take(size_t bytes) {
  if (staged_.empty() || used_ + bytes > kMaxDiskIo) {
    staged_.push_back(pool_->Take());
    used_ = 0;
  }
  uint8_t* b = staged_.back() + used_;
  used_ += bytes;
  return b;
}

absl::Status CellImpl::Write(absl::Span<WriteRequest> requests, CellIoStats* stats) {
  if (absl::Status s = CheckOpen(); !s.ok()) return s;
  ReaderMutexLock mode_lock(&mode_mu_);
  CellIoStats local;
  RangeLocks::Guard guard =
      ValidateAndLockLines(requests, "write", [](const WriteRequest& r) { return r.data.size(); });
  const FlashCacheMode mode = mode_.load();

  // Requests run in batch order; consecutive requests of the same route whose
  // lines are disjoint form one group (one sync, one journal chunk).
  std::vector<WriteRequest*> cache_group;
  std::vector<DiskSpan> disk_group;
  SpanSet group_lines;
  auto flush_groups = [&] {
    if (!cache_group.empty()) CacheWriteGroupLocked(absl::MakeSpan(cache_group), &local);
    if (!disk_group.empty()) (void)DiskWriteLocked(disk_group, &local);
    cache_group.clear();
    disk_group.clear();
    group_lines.Clear();
  };
  for (WriteRequest& r : requests) {
    if (!r.status.ok()) continue;
    // cachingPolicy=none keeps the grid disk's writes off the cache, and
    // redo-type writes never enter it.
    const bool to_disk = mode == FlashCacheMode::kWriteThrough || r.redo ||
                         r.data.size() >= config_.write_bypass_bytes || !Cached(r.grid_disk);
    const RangeLocks::Range lr = LineRange(r.grid_disk, r.offset, r.data.size());
    if (group_lines.Overlaps(lr) || (to_disk && !cache_group.empty()) ||
        (!to_disk && !disk_group.empty())) {
      flush_groups();
    }
    group_lines.Add(lr);
    if (to_disk) {
      if (mode == FlashCacheMode::kWriteBack) fc_.rq_w_skip++;
      disk_group.push_back(
          {.disk = r.grid_disk, .offset = r.offset, .length = r.data.size(),
           .source = r.data.data(), .fill = nullptr, .status = &r.status});
    } else {
      cache_group.push_back(&r);
    }
  }
  flush_groups();
  if (stats != nullptr) *stats += local;
  KickCleanerIfNeeded();
  for (const WriteRequest& r : requests) {
    if (!r.status.ok()) return r.status;
  }
  return absl::OkStatus();
}

void CellImpl::CacheWriteGroupLocked(absl::Span<WriteRequest*> group, CellIoStats* stats,
                                     bool sync) {
  auto fail_all = [&](const absl::Status& s) {
    for (WriteRequest* r : group) {
      if (r->status.ok()) r->status = s;
    }
  };
  CacheWritePlan plan(&staging_);
  size_t need = 0;
  {
    MutexLock l(&state_mu_);
    need = RejectLostEdgesAndCountNewLinesLocked(group);
  }
  if (absl::Status s = ReserveSlots(need, /*force=*/true, &plan.spare_slots); !s.ok()) {
    fail_all(s);
    ReleaseSlots(plan, /*with_new_lines=*/true);
    return;
  }
  {
    MutexLock l(&state_mu_);
    PlanCacheLinesLocked(group, &plan);
  }
  uint64_t pages = 0;
  for (const CacheWritePlan::Line& w : plan.lines) pages += std::popcount(w.write_mask);
  plan.data_in_journal =
      pages * kPage <= layout_.journal_bytes / 2 && pages <= kMaxChunkDataPages;
  RunGens(plan.gens);
  if (absl::Status s = SubmitBatch(&plan.base); !s.ok()) {
    fail_all(s);
    ReleaseSlots(plan, /*with_new_lines=*/true);
    return;
  }
  if (absl::Status s = CopyIntoFlash(group, &plan); !s.ok()) {
    ReleaseSlots(plan, /*with_new_lines=*/true);
    if (s.code() == absl::StatusCode::kResourceExhausted) {
      // The filesystem under flash.img is full (ENOSPC/EDQUOT while filling
      // never-written slot pages; pages written before are allocated, so no
      // valid line was touched): write the group through to disk instead.
      WriteThroughLocked(group, stats);
      return;
    }
    fail_all(s);
    return;
  }
  if (absl::Status s = JournalCacheLines(group, plan, stats, sync); !s.ok()) {
    fail_all(s);
    ReleaseSlots(plan, /*with_new_lines=*/true);
    return;
  }
  ReleaseSlots(plan, /*with_new_lines=*/false);
  CountCacheWrites(group, plan, stats);
}

size_t CellImpl::RejectLostEdgesAndCountNewLinesLocked(absl::Span<WriteRequest*> group) {
  const uint64_t ls = layout_.line_size;
  size_t need = 0;
  for (WriteRequest* r : group) {
    const uint64_t end = r->offset + r->data.size();
    for (uint64_t edge : {r->offset, end}) {
      if (edge % kPage != 0 && state_->AnyLost(r->grid_disk, io::AlignDown(edge, kPage), kPage)) {
        r->status = absl::DataLossError(fmt::format(
            "grid disk {}: write at offset {} (+{}) covers part of page {} whose only copy "
            "was lost; rewrite the whole 4 KiB page",
            GridDiskName(r->grid_disk), r->offset, r->data.size(), io::AlignDown(edge, kPage)));
      }
    }
    if (!r->status.ok()) continue;
    for (uint64_t a = io::AlignDown(r->offset, ls); a < end; a += ls) {
      if (state_->Find(CacheState::Key(r->grid_disk, a / ls)) == nullptr) ++need;
    }
  }
  return need;
}

void CellImpl::PlanCacheLinesLocked(absl::Span<WriteRequest*> group, CacheWritePlan* plan) {
  const uint64_t ls = layout_.line_size;
  for (size_t ri = 0; ri < group.size(); ++ri) {
    WriteRequest* r = group[ri];
    if (!r->status.ok()) continue;
    const uint64_t end = r->offset + r->data.size();
    for (uint64_t lstart = io::AlignDown(r->offset, ls); lstart < end; lstart += ls) {
      const uint64_t line = lstart / ls;
      const uint64_t key = CacheState::Key(r->grid_disk, line);
      CacheWritePlan::Line w{ri, r->grid_disk, line, 0, false, 0, 0, 0, 0, 0,
                             plan->buffers.Take(ls)};
      if (const LineState* st = state_->Find(key)) {
        w.slot = st->slot;
        w.old_valid = st->valid;
        w.old_dirty = st->dirty;
      } else {
        w.slot = plan->spare_slots.back();
        plan->spare_slots.pop_back();
        w.is_new = true;
      }
      const uint64_t a = std::max(r->offset, lstart), b = std::min(end, lstart + ls);
      const uint32_t p0 = static_cast<uint32_t>((a - lstart) / kPage);
      const uint32_t p1 = static_cast<uint32_t>((b - lstart + kPage - 1) / kPage);
      w.touched = PageMask(p0, p1);
      // Pages not in the cache that a template covers are generated.
      for (uint32_t p = 0; p < state_->pages_per_line(); ++p) {
        const uint64_t bit = uint64_t{1} << p;
        if (w.old_valid & bit) continue;
        uint64_t tstart;
        if (const TemplateRange* t =
                state_->FindTemplate(r->grid_disk, lstart + p * kPage, &tstart)) {
          w.tmpl_pages |= bit;
          plan->gens.push_back({w.buf + p * kPage, kPage, t->tmpl,
                                t->file_offset + (lstart + p * kPage - tstart)});
        }
      }
      // Partial pages at the request's edges need their current bytes.
      for (uint64_t edge : {a, b}) {
        if (edge % kPage == 0) continue;
        const uint32_t p = static_cast<uint32_t>((io::AlignDown(edge, kPage) - lstart) / kPage);
        const uint64_t bit = uint64_t{1} << p;
        if (w.tmpl_pages & bit) continue;
        if (w.old_valid & bit) {
          plan->base.Add(io::IoOp::kRead, flash_->handle(), -1,
                         layout_.SlotOffset(w.slot) + p * kPage, w.buf + p * kPage, kPage);
        } else {
          plan->base.Add(io::IoOp::kRead, disks_[r->grid_disk]->handle(),
                         static_cast<int32_t>(r->grid_disk), lstart + p * kPage,
                         w.buf + p * kPage, kPage);
        }
        if (a % kPage != 0 && b % kPage != 0 && p0 + 1 == p1) break;  // same page twice
      }
      w.write_mask = w.touched | w.tmpl_pages;
      w.slot_allocated = (slot_allocated_[w.slot] & w.write_mask) == w.write_mask;
      state_->Touch(key);
      plan->lines.push_back(std::move(w));
    }
  }
}

absl::Status CellImpl::CopyIntoFlash(absl::Span<WriteRequest*> group, CacheWritePlan* plan) {
  const uint64_t ls = layout_.line_size;
  const auto pages = static_cast<uint32_t>(ls / kPage);
  IoBatch writes;
  for (CacheWritePlan::Line& w : plan->lines) {
    const WriteRequest* r = group[w.req];
    const uint64_t lstart = w.line * ls;
    const uint64_t a = std::max(r->offset, lstart);
    const uint64_t b = std::min(r->offset + r->data.size(), lstart + ls);
    std::memcpy(w.buf + (a - lstart), r->data.data() + (a - r->offset), b - a);
    // Allocated slot pages are written by the journal with its chunk (one
    // submission); pages that may still be holes go first, here, so that a
    // full filesystem fails them before any record names them.
    if (plan->data_in_journal && w.slot_allocated) continue;
    // One request per run of consecutive written pages.
    for (uint32_t p = 0; p < pages;) {
      if ((w.write_mask & (uint64_t{1} << p)) == 0) {
        ++p;
        continue;
      }
      uint32_t q = p;
      while (q < pages && (w.write_mask & (uint64_t{1} << q))) ++q;
      writes.Add(io::IoOp::kWrite, flash_->handle(), -1, layout_.SlotOffset(w.slot) + p * kPage,
                 w.buf + p * kPage, (q - p) * kPage);
      p = q;
    }
  }
  // No sync here when the journal chunk carries these pages too: one sync
  // makes both durable (JournalCacheLines).
  absl::Status s = SubmitBatch(&writes);
  if (s.ok() && !writes.reqs.empty()) {
    MutexLock l(&state_mu_);
    for (CacheWritePlan::Line& w : plan->lines) {
      MarkSlotPagesAllocatedLocked(w.slot, w.write_mask);
    }
  }
  if (s.ok() && !plan->data_in_journal) s = meta_->SyncAll(state_.get(), &state_mu_);
  return s;
}

absl::Status CellImpl::JournalCacheLines(absl::Span<WriteRequest*> group,
                                         const CacheWritePlan& plan, CellIoStats* stats,
                                         bool sync) {
  const uint64_t ls = layout_.line_size;
  std::vector<Record> records;
  for (const CacheWritePlan::Line& w : plan.lines) {
    if (plan.data_in_journal) {
      records.push_back({.type = RecordType::kLineData, .disk = w.disk, .line = w.line,
                         .slot = w.slot, .valid = w.old_valid | w.write_mask,
                         .dirty = w.old_dirty | w.write_mask, .data_mask = w.write_mask,
                         .data_checksum = LinePagesChecksum(w.buf, w.write_mask),
                         .data = w.buf, .write_slot = w.slot_allocated});
    } else {
      records.push_back({.type = RecordType::kLineSet, .disk = w.disk, .line = w.line,
                         .slot = w.slot, .valid = w.old_valid | w.write_mask,
                         .dirty = w.old_dirty | w.write_mask});
    }
    if (w.tmpl_pages != 0) {
      records.push_back({.type = RecordType::kTemplateTrim, .disk = w.disk,
                         .offset = w.line * ls, .length = ls});
    }
  }
  {
    MutexLock l(&state_mu_);
    for (const WriteRequest* r : group) {
      if (!r->status.ok()) continue;
      const uint64_t a = io::AlignUp(r->offset, kPage);
      const uint64_t b = io::AlignDown(r->offset + r->data.size(), kPage);
      if (a < b && state_->AnyLost(r->grid_disk, a, b - a)) {
        records.push_back(
            {.type = RecordType::kLostTrim, .disk = r->grid_disk, .offset = a, .length = b - a});
      }
    }
  }
  return Append(records, sync, stats);
}

void CellImpl::ReleaseSlots(const CacheWritePlan& plan, bool with_new_lines) {
  MutexLock l(&state_mu_);
  for (uint32_t slot : plan.spare_slots) state_->UnreserveSlot(slot);
  if (!with_new_lines) return;
  for (const CacheWritePlan::Line& w : plan.lines) {
    if (w.is_new) state_->UnreserveSlot(w.slot);
  }
}

// Statistics, per request (docs/cell.md "Counting rules").
void CellImpl::CountCacheWrites(absl::Span<WriteRequest*> group, const CacheWritePlan& plan,
                                CellIoStats* stats) {
  const uint64_t ls = layout_.line_size;
  std::vector<bool> overwrite(group.size(), false), partial(group.size(), false);
  for (const CacheWritePlan::Line& w : plan.lines) {
    if (w.old_dirty != 0) overwrite[w.req] = true;
    const WriteRequest* r = group[w.req];
    const uint64_t lstart = w.line * ls;
    if (r->offset > lstart || r->offset + r->data.size() < lstart + ls) partial[w.req] = true;
    stats->flash_bytes_written += std::popcount(w.write_mask) * kPage;
  }
  for (size_t i = 0; i < group.size(); ++i) {
    if (!group[i]->status.ok()) continue;
    stats->flash_cache_writes++;
    fc_.rq_w++;
    fc_.by_w += group[i]->data.size();
    if (overwrite[i]) {
      stats->flash_cache_overwrites++;
      fc_.rq_w_overwrite++;
    } else {
      fc_.rq_w_first++;
    }
    if (partial[i]) stats->flash_cache_partial_writes++;
  }
  for (const io::IoRequest& q : plan.base.reqs) {
    (q.file == flash_->handle() ? stats->flash_bytes_read : stats->disk_bytes_read) += q.length;
  }
}

void CellImpl::WriteThroughLocked(absl::Span<WriteRequest*> group, CellIoStats* stats) {
  std::vector<DiskSpan> spans;
  for (WriteRequest* r : group) {
    if (!r->status.ok()) continue;
    spans.push_back({.disk = r->grid_disk, .offset = r->offset, .length = r->data.size(),
                     .source = r->data.data(), .fill = nullptr, .status = &r->status});
  }
  fc_.rq_w_skip += spans.size();
  (void)DiskWriteLocked(spans, stats);
}

absl::Status CellImpl::DiskWriteLocked(std::vector<DiskSpan>& spans, CellIoStats* stats) {
  std::vector<DiskEdgePages> edges(spans.size());
  std::vector<absl::Status> st(spans.size());
  ReadEdgePages(spans, &edges, &st, stats);
  StreamSpansToDisk(spans, edges, &st);
  // The disk now holds these ranges: drop what the cache or templates said.
  if (absl::Status s = JournalRangesOnDisk(spans, st, stats); !s.ok()) {
    for (auto& x : st) x.Update(s);
  }
  absl::Status first;
  for (size_t i = 0; i < spans.size(); ++i) {
    if (spans[i].status != nullptr && spans[i].status->ok()) *spans[i].status = st[i];
    if (st[i].ok() && stats != nullptr) {
      stats->disk_bytes_written += io::AlignUp(spans[i].offset + spans[i].length, kPage) -
                                   io::AlignDown(spans[i].offset, kPage);
    }
    first.Update(st[i]);
  }
  return first;
}

void CellImpl::ReadEdgePages(const std::vector<DiskSpan>& spans,
                             std::vector<DiskEdgePages>* edges, std::vector<absl::Status>* st,
                             CellIoStats* stats) {
  FillPlan plan;
  {
    MutexLock l(&state_mu_);
    for (size_t i = 0; i < spans.size(); ++i) {
      const DiskSpan& sp = spans[i];
      const uint64_t end = sp.offset + sp.length;
      DiskEdgePages& e = (*edges)[i];
      if (sp.offset % kPage != 0) {
        e.head = io::AlignedBuffer(kPage);
        e.has_head = true;
        (*st)[i].Update(PlanFillLocked(sp.disk, io::AlignDown(sp.offset, kPage), kPage,
                                       e.head.data(), &plan));
      }
      if (end % kPage != 0 &&
          !(e.has_head && io::AlignDown(end, kPage) == io::AlignDown(sp.offset, kPage))) {
        e.tail = io::AlignedBuffer(kPage);
        e.has_tail = true;
        (*st)[i].Update(PlanFillLocked(sp.disk, io::AlignDown(end, kPage), kPage, e.tail.data(),
                                       &plan));
      }
    }
  }
  RunGens(plan.gens);
  if (absl::Status s = SubmitBatch(&plan.io); !s.ok()) {
    for (auto& x : *st) x.Update(s);
  }
  if (stats != nullptr) {
    stats->disk_bytes_read += plan.disk_pages * kPage;
    stats->flash_bytes_read += plan.flash_pages * kPage;
  }
}

namespace {

// A piece of a disk span written by one request (at most kMaxDiskIo bytes).
struct DiskPiece {
  size_t span;
  uint64_t at, len;
  int32_t slot = -1;  // staging slot, or -1 when written from the caller's buffer
};

// Puts the bytes of piece [at, at + len) of `sp` into `buf`: the edge pages,
// then the span's bytes (copied from its source or filled) over them.
void StagePiece(const DiskSpan& sp, const DiskEdgePages& e, uint64_t at, uint64_t len,
                uint8_t* buf) {
  const uint64_t end = sp.offset + sp.length;
  const uint64_t ps = io::AlignDown(sp.offset, kPage), pe = io::AlignUp(end, kPage);
  if (e.has_head && at == ps) std::memcpy(buf, e.head.data(), kPage);
  if (e.has_tail && at + len == pe) std::memcpy(buf + len - kPage, e.tail.data(), kPage);
  const uint64_t a = std::max(at, sp.offset), b = std::min(at + len, end);
  if (sp.source != nullptr) {
    std::memcpy(buf + (a - at), sp.source + (a - sp.offset), b - a);
  } else {
    sp.fill(a, absl::MakeSpan(buf + (a - at), b - a));
  }
}

}  // namespace

// Streams the spans to disk in pieces of at most kMaxDiskIo, keeping the
// backend's queue full. A piece made only of the caller's bytes, at a
// page-aligned address, is written straight from the caller's buffer (no
// copy); any other piece (generated blocks, merged edge pages) is staged in a
// buffer from the cell's pool, which is reused across calls. Staging memory is
// thus bounded by the stream window, not by the call's size.
void CellImpl::StreamSpansToDisk(const std::vector<DiskSpan>& spans,
                                 const std::vector<DiskEdgePages>& edges,
                                 std::vector<absl::Status>* st) {
  std::vector<DiskPiece> pieces;
  std::vector<uint32_t> touched;
  for (size_t i = 0; i < spans.size(); ++i) {
    if ((*st)[i].ok() && disks_[spans[i].disk] == nullptr) {
      (*st)[i] = AbsentDiskError(spans[i].disk);
    }
    if (!(*st)[i].ok()) continue;
    const DiskSpan& sp = spans[i];
    const uint64_t pe = io::AlignUp(sp.offset + sp.length, kPage);
    touched.push_back(sp.disk);
    for (uint64_t c = io::AlignDown(sp.offset, kPage); c < pe; c += kMaxDiskIo) {
      pieces.push_back({i, c, std::min(kMaxDiskIo, pe - c)});
    }
  }
  std::vector<uint8_t*> staged;
  std::vector<int32_t> free_slots;
  size_t next = 0;
  (void)io_->SubmitStream(
      [&](io::IoRequest& r) {
        if (next == pieces.size()) return false;
        DiskPiece& p = pieces[next];
        const DiskSpan& sp = spans[p.span];
        const uint8_t* src = nullptr;
        if (sp.source != nullptr && p.at >= sp.offset && p.at + p.len <= sp.offset + sp.length &&
            reinterpret_cast<uintptr_t>(sp.source + (p.at - sp.offset)) % kPage == 0) {
          src = sp.source + (p.at - sp.offset);
        } else {
          if (free_slots.empty()) {
            staged.push_back(staging_.Take());
            free_slots.push_back(static_cast<int32_t>(staged.size() - 1));
          }
          p.slot = free_slots.back();
          free_slots.pop_back();
          uint8_t* buf = staged[static_cast<size_t>(p.slot)];
          StagePiece(sp, edges[p.span], p.at, p.len, buf);
          src = buf;
        }
        r = io::MakeWrite(disks_[sp.disk]->handle(), p.at, src, p.len, -1, next);
        ++next;
        return true;
      },
      [&](io::IoRequest& r) {
        DiskPiece& p = pieces[r.user_data];
        if (p.slot >= 0) free_slots.push_back(p.slot);
        if (r.status.ok()) {
          CountDiskIo(spans[p.span].disk, io::IoOp::kWrite, r.length);
        } else {
          (*st)[p.span].Update(r.status);
        }
      });
  for (uint8_t* b : staged) staging_.Give(b);
  if (absl::Status s = SyncDisks(touched); !s.ok()) {
    for (auto& x : *st) x.Update(s);
  }
}

absl::Status CellImpl::JournalRangesOnDisk(const std::vector<DiskSpan>& spans,
                                           const std::vector<absl::Status>& st,
                                           CellIoStats* stats) {
  std::vector<Record> records;
  {
    MutexLock l(&state_mu_);
    for (size_t i = 0; i < spans.size(); ++i) {
      if (!st[i].ok()) continue;
      const uint64_t ps = io::AlignDown(spans[i].offset, kPage);
      const uint64_t len = io::AlignUp(spans[i].offset + spans[i].length, kPage) - ps;
      const uint32_t d = spans[i].disk;
      if (state_->AnyCached(d, ps, len) || state_->AnyTemplate(d, ps, len) ||
          state_->AnyLost(d, ps, len)) {
        records.push_back({.type = RecordType::kRangeOnDisk, .disk = d, .offset = ps, .length = len});
      }
    }
  }
  return Append(records, /*sync=*/true, stats);
}

}  // namespace cellsim::cell::internal

namespace cellsim::cell::internal {

absl::Status CellImpl::Discard(absl::Span<DiscardRequest> requests, CellIoStats* stats) {
  if (absl::Status s = CheckWritable(); !s.ok()) return s;
  ReaderMutexLock mode_lock(&mode_mu_);
  std::vector<RangeLocks::Range> ranges;
  for (DiscardRequest& r : requests) {
    r.status = ValidateIo(r.grid_disk, r.offset, r.length, "discard");
    if (r.status.ok()) ranges.push_back(LineRange(r.grid_disk, r.offset, r.length));
  }
  RangeLocks::Guard guard;
  if (!ranges.empty()) guard = locks_.Acquire(std::move(ranges));
  // 1. Forget what the cache and the templates hold there (durable first: a
  //    crash after it leaves the old bytes on disk, which nobody reads).
  std::vector<Record> records;
  {
    MutexLock l(&state_mu_);
    for (const DiscardRequest& r : requests) {
      const uint64_t a = io::AlignUp(r.offset, kPage), b = io::AlignDown(r.offset + r.length, kPage);
      if (!r.status.ok() || a >= b) continue;
      if (state_->AnyCached(r.grid_disk, a, b - a) || state_->AnyTemplate(r.grid_disk, a, b - a) ||
          state_->AnyLost(r.grid_disk, a, b - a)) {
        records.push_back(
            {.type = RecordType::kRangeOnDisk, .disk = r.grid_disk, .offset = a, .length = b - a});
      }
    }
  }
  // (In chunks that fit any journal: a large file's discard may be long.)
  constexpr size_t kRecordsPerChunk = 2048;
  for (size_t i = 0; i < records.size(); i += kRecordsPerChunk) {
    const std::vector<Record> part(
        records.begin() + static_cast<ptrdiff_t>(i),
        records.begin() + static_cast<ptrdiff_t>(std::min(records.size(), i + kRecordsPerChunk)));
    if (absl::Status s = Append(part, /*sync=*/true, stats); !s.ok()) {
      for (DiscardRequest& r : requests) r.status.Update(s);
      return s;
    }
  }
  // 2. Give the space back to the filesystem. Best effort: a filesystem
  //    without hole punching keeps the bytes, which nobody reads.
  absl::Status first;
  for (DiscardRequest& r : requests) {
    const uint64_t a = io::AlignUp(r.offset, kPage), b = io::AlignDown(r.offset + r.length, kPage);
    if (r.status.ok() && a < b) {
      absl::Status s = disks_[r.grid_disk]->Discard(a, b - a);
      if (!s.ok() && s.code() != absl::StatusCode::kUnimplemented &&
          s.code() != absl::StatusCode::kInvalidArgument) {
        r.status = s;
      }
    }
    first.Update(r.status);
  }
  return first;
}

}  // namespace cellsim::cell::internal
