// Read path: every 4 KiB page of a request comes from exactly one source, in
// this order of precedence: a valid page in the flash cache, a fast-creation
// template range (generated), or the grid disk. Lost pages fail the request.
// Misses of small reads populate the cache (docs/cell.md, "Read population").
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <map>

#include "cellsim/cell/cell_impl.h"

namespace cellsim::cell::internal {

absl::Status CellImpl::PlanFillLocked(uint32_t disk, uint64_t offset, uint64_t length,
                                      uint8_t* dst, FillPlan* plan) {
  if (disks_[disk] == nullptr) return AbsentDiskError(disk);
  const uint64_t ls = layout_.line_size;
  const uint64_t end = offset + length;
  auto cached_slot = [&](uint64_t pos, uint32_t* slot)
                         ABSL_EXCLUSIVE_LOCKS_REQUIRED(state_mu_) {
    const LineState* l = state_->Find(CacheState::Key(disk, pos / ls));
    if (l == nullptr) return false;
    const uint32_t p = static_cast<uint32_t>((pos % ls) / kPage);
    if ((l->valid & (uint64_t{1} << p)) == 0) return false;
    *slot = l->slot;
    return true;
  };
  uint64_t pos = offset;
  while (pos < end) {
    uint32_t slot;
    uint64_t tstart;
    if (cached_slot(pos, &slot)) {
      // A run of valid pages inside this line's slot.
      uint64_t run = kPage;
      uint32_t s2;
      while (pos + run < end && (pos + run) % ls != 0 && cached_slot(pos + run, &s2)) run += kPage;
      plan->io.Add(io::IoOp::kRead, flash_->handle(), -1,
                   layout_.SlotOffset(slot) + pos % ls, dst + (pos - offset), run);
      plan->flash_pages += run / kPage;
      pos += run;
    } else if (const TemplateRange* t = state_->FindTemplate(disk, pos, &tstart)) {
      const uint64_t run = std::min(end, t->end) - pos;
      plan->gens.push_back({dst + (pos - offset), run, t->tmpl, t->file_offset + (pos - tstart)});
      plan->gen_pages += run / kPage;
      pos += run;
    } else if (state_->AnyLost(disk, pos, kPage)) {
      return absl::DataLossError(fmt::format(
          "grid disk {}: offset {} lies in a range whose only current copy was lost with a "
          "flash device; it must be rewritten (ASM resyncs it from a mirror)",
          GridDiskName(disk), pos));
    } else {
      uint64_t run = kPage;
      uint32_t s2;
      uint64_t t2;
      while (pos + run < end && run < kMaxDiskIo && !cached_slot(pos + run, &s2) &&
             state_->FindTemplate(disk, pos + run, &t2) == nullptr &&
             !state_->AnyLost(disk, pos + run, kPage)) {
        run += kPage;
      }
      plan->io.Add(io::IoOp::kRead, disks_[disk]->handle(), static_cast<int32_t>(disk), pos,
                   dst + (pos - offset), run);
      for (uint64_t p = pos; p < pos + run; p += kPage) plan->disk_page_offsets.push_back(p);
      plan->disk_pages += run / kPage;
      pos += run;
    }
  }
  return absl::OkStatus();
}

namespace {
// Spare read buffers a cell keeps: a few, none larger than a 4 MiB AU plus
// a page on each side (larger reads allocate and free theirs).
constexpr size_t kSpareReadBuffers = 2;
constexpr size_t kMaxSpareReadBytes = (4u << 20) + 2 * kPage;
}  // namespace

io::AlignedBuffer CellImpl::TakeReadBuffer(size_t size) {
  {
    MutexLock l(&spare_mu_);
    auto best = spare_read_buffers_.end();
    for (auto it = spare_read_buffers_.begin(); it != spare_read_buffers_.end(); ++it) {
      if (it->size() >= size && (best == spare_read_buffers_.end() || it->size() < best->size())) {
        best = it;
      }
    }
    if (best != spare_read_buffers_.end()) {
      io::AlignedBuffer b = std::move(*best);
      spare_read_buffers_.erase(best);
      return b;
    }
  }
  return io::AlignedBuffer(size);
}

void CellImpl::GiveReadBuffers(std::vector<io::AlignedBuffer>* buffers) {
  MutexLock l(&spare_mu_);
  for (io::AlignedBuffer& b : *buffers) {
    if (b.size() == 0 || b.size() > kMaxSpareReadBytes) continue;
    if (spare_read_buffers_.size() < kSpareReadBuffers) {
      spare_read_buffers_.push_back(std::move(b));
      continue;
    }
    // Full: keep the larger ones (they serve more reads).
    auto smallest = std::min_element(
        spare_read_buffers_.begin(), spare_read_buffers_.end(),
        [](const io::AlignedBuffer& a, const io::AlignedBuffer& c) { return a.size() < c.size(); });
    if (smallest->size() < b.size()) *smallest = std::move(b);
  }
  buffers->clear();
}

void CellImpl::RunGens(const std::vector<GenTask>& gens) {
  for (const GenTask& g : gens) {
    format::GenerateRange(g.tmpl, g.file_offset, absl::MakeSpan(g.dst, g.length));
  }
}

absl::Status CellImpl::Read(absl::Span<ReadRequest> requests, CellIoStats* stats) {
  if (absl::Status s = CheckOpen(); !s.ok()) return s;
  // Like every request: ValidateIo reads disks_, which CreateGridDisk changes.
  ReaderMutexLock mode_lock(&mode_mu_);
  CellIoStats local;
  RangeLocks::Guard guard =
      ValidateAndLockLines(requests, "read", [](const ReadRequest& r) { return r.buffer.size(); });

  const size_t n = requests.size();
  std::vector<io::AlignedBuffer> bufs(n);
  std::vector<FillPlan> plans(n);
  std::vector<uint64_t> pstart(n);
  struct GiveBack {
    CellImpl* cell;
    std::vector<io::AlignedBuffer>* bufs;
    ~GiveBack() { cell->GiveReadBuffers(bufs); }
  } give_back{this, &bufs};
  for (size_t i = 0; i < n; ++i) {
    const ReadRequest& r = requests[i];
    if (!r.status.ok()) continue;
    pstart[i] = io::AlignDown(r.offset, kPage);
    bufs[i] = TakeReadBuffer(io::AlignUp(r.offset + r.buffer.size(), kPage) - pstart[i]);
  }
  {
    MutexLock l(&state_mu_);
    for (size_t i = 0; i < n; ++i) {
      ReadRequest& r = requests[i];
      if (!r.status.ok()) continue;
      const uint64_t pend = io::AlignUp(r.offset + r.buffer.size(), kPage);
      r.status = PlanFillLocked(r.grid_disk, pstart[i], pend - pstart[i], bufs[i].data(),
                                &plans[i]);
      if (plans[i].flash_pages > 0) {
        for (uint64_t a = io::AlignDown(pstart[i], layout_.line_size); a < pend;
             a += layout_.line_size) {
          state_->Touch(CacheState::Key(r.grid_disk, a / layout_.line_size));
        }
      }
    }
  }
  // One Submit for the whole batch keeps every request's I/O in flight together.
  IoBatch all;
  std::vector<size_t> first(n + 1, 0);
  for (size_t i = 0; i < n; ++i) {
    first[i] = all.reqs.size();
    if (!requests[i].status.ok()) continue;
    all.reqs.insert(all.reqs.end(), plans[i].io.reqs.begin(), plans[i].io.reqs.end());
    all.disk.insert(all.disk.end(), plans[i].io.disk.begin(), plans[i].io.disk.end());
  }
  first[n] = all.reqs.size();
  for (size_t i = 0; i < n; ++i) {
    if (requests[i].status.ok()) RunGens(plans[i].gens);
  }
  (void)SubmitBatch(&all);  // per-request statuses are checked below
  for (size_t i = 0; i < n; ++i) {
    ReadRequest& r = requests[i];
    if (!r.status.ok()) continue;
    for (size_t k = first[i]; k < first[i + 1] && r.status.ok(); ++k) {
      const io::IoRequest& q = all.reqs[k];
      if (!q.status.ok()) {
        r.status = q.status;
      } else if (q.transferred != q.length) {
        r.status = absl::DataLossError(fmt::format("cell {}: short read at offset {}",
                                                   config_.name, q.offset));
      }
    }
    if (!r.status.ok()) continue;
    std::memcpy(r.buffer.data(), bufs[i].data() + (r.offset - pstart[i]), r.buffer.size());
    const FillPlan& p = plans[i];
    local.flash_bytes_read += p.flash_pages * kPage;
    local.disk_bytes_read += p.disk_pages * kPage;
    if (p.gen_pages > 0) {
      // Generated bytes inside the caller's range (the plan works in pages).
      uint64_t gen = 0;
      const uint8_t* lo = bufs[i].data() + (r.offset - pstart[i]);
      const uint8_t* hi = lo + r.buffer.size();
      for (const GenTask& g : p.gens) {
        const uint8_t* a = std::max<const uint8_t*>(g.dst, lo);
        const uint8_t* b = std::min<const uint8_t*>(g.dst + g.length, hi);
        if (a < b) gen += static_cast<uint64_t>(b - a);
      }
      local.generated_reads++;
      local.generated_bytes += gen;
      fc_.rq_generated++;
      fc_.by_generated += gen;
    }
    if (p.disk_pages == 0 && p.gen_pages == 0) {
      local.flash_cache_read_hits++;
      fc_.rq_r++;
      fc_.by_r += r.buffer.size();
    } else if (p.disk_pages > 0) {
      fc_.rq_r_miss++;
      if (r.buffer.size() < config_.read_populate_max_bytes && !read_only_ &&
          Cached(r.grid_disk)) {
        std::vector<const uint8_t*> data;
        for (uint64_t off : p.disk_page_offsets) data.push_back(bufs[i].data() + (off - pstart[i]));
        bool populated = false;
        Populate(r.grid_disk, p.disk_page_offsets, data, &local, &populated);
        if (populated) fc_.rq_w_populate++;
      }
    }
  }
  if (stats != nullptr) *stats += local;
  for (const ReadRequest& r : requests) {
    if (!r.status.ok()) return r.status;
  }
  return absl::OkStatus();
}

void CellImpl::Populate(uint32_t disk, const std::vector<uint64_t>& page_offsets,
                        const std::vector<const uint8_t*>& page_data, CellIoStats* stats,
                        bool* populated) {
  const uint64_t ls = layout_.line_size;
  // The journal carries the populated pages (so that its record never names
  // a slot page the power loss kept from the medium): a read too large for
  // that is not cached.
  if (page_offsets.size() * kPage > layout_.journal_bytes / 2) return;
  std::map<uint64_t, std::vector<size_t>> by_line;  // line -> indices into page_offsets
  for (size_t i = 0; i < page_offsets.size(); ++i) by_line[page_offsets[i] / ls].push_back(i);
  size_t need = 0;
  {
    MutexLock l(&state_mu_);
    for (const auto& [line, idx] : by_line) {
      if (state_->Find(CacheState::Key(disk, line)) == nullptr) ++need;
    }
  }
  std::vector<uint32_t> slots;
  // Population never forces a destage: without room, the read just is not cached.
  if (!ReserveSlots(need, /*force=*/false, &slots).ok()) slots.clear();
  IoBatch writes;
  std::vector<Record> records;
  std::vector<uint32_t> used_new;
  LineBuffers buffers(&staging_);
  {
    MutexLock l(&state_mu_);
    for (const auto& [line, idx] : by_line) {
      const LineState* ls_state = state_->Find(CacheState::Key(disk, line));
      uint32_t slot;
      uint64_t valid = 0, dirty = 0;
      if (ls_state != nullptr) {
        slot = ls_state->slot;
        valid = ls_state->valid;
        dirty = ls_state->dirty;
      } else if (!slots.empty()) {
        slot = slots.back();
        slots.pop_back();
        used_new.push_back(slot);
      } else {
        continue;
      }
      uint8_t* buf = buffers.Take(ls);
      uint64_t mask = 0;
      for (size_t i : idx) {
        const uint32_t p = static_cast<uint32_t>((page_offsets[i] % ls) / kPage);
        if (valid & (uint64_t{1} << p)) continue;
        valid |= uint64_t{1} << p;
        mask |= uint64_t{1} << p;
        std::memcpy(buf + p * kPage, page_data[i], kPage);
        writes.Add(io::IoOp::kWrite, flash_->handle(), -1,
                   layout_.SlotOffset(slot) + p * kPage, buf + p * kPage, kPage);
      }
      if (mask == 0) continue;
      records.push_back({.type = RecordType::kLineData, .disk = disk, .line = line,
                         .slot = slot, .valid = valid, .dirty = dirty, .data_mask = mask,
                         .data_checksum = LinePagesChecksum(buf, mask), .data = buf});
    }
  }
  absl::Status s = SubmitBatch(&writes);
  // Clean data needs no sync: if its record is lost in a crash the line is simply
  // not cached; if the record survives without the slot pages, replay writes
  // them from the journal (the chunk is not known durable).
  if (s.ok()) s = Append(records, /*sync=*/false, stats);
  {
    MutexLock l(&state_mu_);
    for (uint32_t slot : slots) state_->UnreserveSlot(slot);
    if (!s.ok()) {
      for (uint32_t slot : used_new) state_->UnreserveSlot(slot);
    }
  }
  if (s.ok() && !writes.reqs.empty()) {
    *populated = true;
    stats->flash_bytes_written += writes.reqs.size() * kPage;
    fc_.by_w_populate += writes.reqs.size() * kPage;
  }
}

}  // namespace cellsim::cell::internal
