#include "cellsim/cell/cache_state.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>

namespace cellsim::cell::internal {

CacheState::CacheState(std::vector<uint64_t> disk_sizes, uint32_t line_size,
                       uint32_t num_slots)
    : disk_sizes_(std::move(disk_sizes)),
      line_size_(line_size),
      pages_per_line_(static_cast<uint32_t>(line_size / kPage)),
      num_slots_(num_slots),
      full_mask_(pages_per_line_ >= 64 ? ~uint64_t{0}
                                       : ((uint64_t{1} << pages_per_line_) - 1)),
      lines_on_disk_(disk_sizes_.size(), 0),
      slot_state_(num_slots, kFree),
      templates_(disk_sizes_.size()),
      lost_(disk_sizes_.size()) {
  free_.reserve(num_slots);
  for (uint32_t s = num_slots; s > 0; --s) free_.push_back(s - 1);
}

absl::Status CacheState::CheckRange(const Record& r) const {
  if (r.disk >= disk_sizes_.size()) {
    return absl::DataLossError(fmt::format(
        "flash journal: record type {} names grid disk {} of {}", static_cast<int>(r.type),
        r.disk, disk_sizes_.size()));
  }
  const uint64_t size = disk_sizes_[r.disk];
  if (SetsLine(r.type) || r.type == RecordType::kLineDrop) {
    // Key() keeps 44 bits for the line: a larger one (a grid disk of 2^44
    // lines, from a damaged superblock) would alias another disk's lines.
    if (r.line >= size / line_size_ || r.line >= (uint64_t{1} << 44)) {
      return absl::DataLossError(
          fmt::format("flash journal: line {} past the end of grid disk {}", r.line, r.disk));
    }
    if (SetsLine(r.type) &&
        (r.slot >= num_slots_ || (r.valid & ~full_mask_) != 0 || (r.dirty & ~r.valid) != 0)) {
      return absl::DataLossError(fmt::format(
          "flash journal: line {} of disk {}: slot {} (of {}) or bitmaps valid={:x} "
          "dirty={:x} are inconsistent",
          r.line, r.disk, r.slot, num_slots_, r.valid, r.dirty));
    }
    return absl::OkStatus();
  }
  if (r.offset % kPage != 0 || r.length % kPage != 0 || r.offset > size ||
      r.length > size - r.offset) {
    return absl::DataLossError(fmt::format(
        "flash journal: range {}+{} of grid disk {} is misaligned or past its end {}", r.offset,
        r.length, r.disk, size));
  }
  return absl::OkStatus();
}

absl::Status CacheState::Apply(const Record& r, uint64_t seq) {
  if (r.type == RecordType::kCounter || r.type == RecordType::kDurable) {
    return absl::OkStatus();  // see below
  }
  if (absl::Status s = CheckRange(r); !s.ok()) return s;
  switch (r.type) {
    case RecordType::kLineSet:
    case RecordType::kLineData: {
      const uint64_t key = Key(r.disk, r.line);
      auto it = lines_.find(key);
      const bool same_slot = it != lines_.end() && it->second.slot == r.slot;
      if (!same_slot && slot_state_[r.slot] == kUsed) {
        return absl::DataLossError(fmt::format(
            "flash journal: slot {} given to line {} of disk {} is already in use", r.slot,
            r.line, r.disk));
      }
      if (r.valid == 0) {
        if (it != lines_.end()) DropLine(key, seq);
        if (slot_state_[r.slot] == kReserved) UnreserveSlot(r.slot);
        return absl::OkStatus();
      }
      SetLine(r.disk, r.line, r.slot, r.valid, r.dirty, seq);
      return absl::OkStatus();
    }
    case RecordType::kLineDrop:
      if (lines_.count(Key(r.disk, r.line)) != 0) DropLine(Key(r.disk, r.line), seq);
      return absl::OkStatus();
    case RecordType::kTemplateAdd: {
      DropPages(r.disk, r.offset, r.length, seq);
      const auto at = TrimTemplates(r.disk, r.offset, r.offset + r.length);
      TrimLost(r.disk, r.offset, r.offset + r.length);
      if (r.length > 0) {
        templates_[r.disk].emplace_hint(
            at, r.offset, TemplateRange{r.offset + r.length, r.tmpl, r.file_offset});
        ++template_count_;
        template_bytes_ += r.length;
      }
      return absl::OkStatus();
    }
    case RecordType::kRangeOnDisk:
      DropPages(r.disk, r.offset, r.length, seq);
      TrimTemplates(r.disk, r.offset, r.offset + r.length);
      TrimLost(r.disk, r.offset, r.offset + r.length);
      return absl::OkStatus();
    case RecordType::kTemplateTrim:
      TrimTemplates(r.disk, r.offset, r.offset + r.length);
      return absl::OkStatus();
    case RecordType::kLostAdd:
      AddLost(r.disk, r.offset, r.offset + r.length);
      return absl::OkStatus();
    case RecordType::kLostTrim:
      TrimLost(r.disk, r.offset, r.offset + r.length);
      return absl::OkStatus();
    case RecordType::kCounter:
    case RecordType::kDurable:
      // Metric counters are the cell's, not the directory's: MetadataStore
      // hands them over at recovery; durability marks only guide its replay.
      return absl::OkStatus();
  }
  return absl::DataLossError("flash journal: unknown record type");
}

void CacheState::SetLine(uint32_t disk, uint64_t line, uint32_t slot, uint64_t valid,
                         uint64_t dirty, uint64_t seq) {
  const uint64_t key = Key(disk, line);
  auto it = lines_.find(key);
  if (it == lines_.end()) {
    lru_.push_front(key);
    it = lines_.emplace(key, LineState{.slot = slot, .lru = lru_.begin()}).first;
    ++lines_on_disk_[disk];
  } else {
    if (it->second.slot != slot) FreeSlot(it->second.slot, seq);
    valid_pages_ -= std::popcount(it->second.valid);
    dirty_pages_ -= std::popcount(it->second.dirty);
    if (it->second.dirty != 0) --dirty_lines_;
    lru_.splice(lru_.begin(), lru_, it->second.lru);
  }
  if (slot_state_[slot] == kFree) {
    // Only replay maps a slot that is still on the free list (live mappings use
    // reserved slots); rebuild the list lazily instead of searching it here.
    free_stale_ = true;
  }
  if (slot_state_[slot] == kPending) {
    // Replay can hand a slot freed earlier in the same replay to a new line.
    std::erase_if(pending_, [slot](const auto& p) { return p.second == slot; });
  }
  it->second.slot = slot;
  it->second.valid = valid;
  it->second.dirty = dirty;
  valid_pages_ += std::popcount(valid);
  dirty_pages_ += std::popcount(dirty);
  if (dirty != 0) ++dirty_lines_;
  slot_state_[slot] = kUsed;
}

void CacheState::DropLine(uint64_t key, uint64_t seq) {
  auto it = lines_.find(key);
  valid_pages_ -= std::popcount(it->second.valid);
  dirty_pages_ -= std::popcount(it->second.dirty);
  if (it->second.dirty != 0) --dirty_lines_;
  lru_.erase(it->second.lru);
  FreeSlot(it->second.slot, seq);
  --lines_on_disk_[KeyDisk(key)];
  lines_.erase(it);
}

void CacheState::FreeSlot(uint32_t slot, uint64_t seq) {
  slot_state_[slot] = kPending;
  pending_.emplace_back(seq, slot);
}

void CacheState::MarkSynced(uint64_t seq) {
  size_t keep = 0;
  for (auto& [s, slot] : pending_) {
    if (s <= seq) {
      slot_state_[slot] = kFree;
      if (!free_stale_) free_.push_back(slot);
    } else {
      pending_[keep++] = {s, slot};
    }
  }
  pending_.resize(keep);
}

void CacheState::DropPages(uint32_t disk, uint64_t offset, uint64_t length, uint64_t seq) {
  if (length == 0 || lines_on_disk_[disk] == 0) return;
  const uint64_t end = offset + length;
  auto drop_in_line = [&](uint64_t line) {
    auto it = lines_.find(Key(disk, line));
    if (it == lines_.end()) return;
    const uint64_t lstart = line * line_size_;
    const uint64_t a = std::max(offset, lstart), b = std::min(end, lstart + line_size_);
    if (a >= b) return;
    const uint32_t p0 = static_cast<uint32_t>((a - lstart) / kPage);
    const uint32_t p1 = static_cast<uint32_t>((b - lstart) / kPage);
    const uint64_t mask = (p1 - p0 >= 64 ? ~uint64_t{0} : ((uint64_t{1} << (p1 - p0)) - 1)) << p0;
    LineState& l = it->second;
    valid_pages_ -= std::popcount(l.valid & mask);
    dirty_pages_ -= std::popcount(l.dirty & mask);
    if (l.dirty != 0 && (l.dirty & ~mask) == 0) --dirty_lines_;
    l.valid &= ~mask;
    l.dirty &= ~mask;
    if (l.valid == 0) {
      lru_.erase(l.lru);
      FreeSlot(l.slot, seq);
      --lines_on_disk_[disk];
      lines_.erase(it);
    }
  };
  const uint64_t first = offset / line_size_, last = (end - 1) / line_size_;
  if (last - first + 1 <= lines_.size()) {
    for (uint64_t line = first; line <= last; ++line) drop_in_line(line);
  } else {
    std::vector<uint64_t> hit;
    for (const auto& [key, l] : lines_) {
      if (KeyDisk(key) == disk && KeyLine(key) >= first && KeyLine(key) <= last) {
        hit.push_back(KeyLine(key));
      }
    }
    for (uint64_t line : hit) drop_in_line(line);
  }
}

CacheState::TemplateMap::iterator CacheState::TrimTemplates(uint32_t disk, uint64_t a,
                                                            uint64_t b) {
  auto& m = templates_[disk];
  auto it = m.lower_bound(a);
  if (it != m.begin() && std::prev(it)->second.end > a) --it;
  while (it != m.end() && it->first < b) {
    const uint64_t start = it->first;
    const TemplateRange r = it->second;
    it = m.erase(it);
    --template_count_;
    template_bytes_ -= r.end - start;
    if (start < a) {
      m[start] = {a, r.tmpl, r.file_offset};
      ++template_count_;
      template_bytes_ += a - start;
    }
    if (r.end > b) {
      ++template_count_;
      template_bytes_ += r.end - b;
      return m.emplace_hint(it, b, TemplateRange{r.end, r.tmpl, r.file_offset + (b - start)});
    }
  }
  return it;
}

void CacheState::TrimLost(uint32_t disk, uint64_t a, uint64_t b) {
  auto& m = lost_[disk];
  auto it = m.lower_bound(a);
  if (it != m.begin() && std::prev(it)->second > a) --it;
  while (it != m.end() && it->first < b) {
    const uint64_t start = it->first, end = it->second;
    it = m.erase(it);
    --lost_count_;
    if (start < a) {
      m[start] = a;
      ++lost_count_;
    }
    if (end > b) {
      m[b] = end;
      ++lost_count_;
      break;
    }
  }
}

void CacheState::AddLost(uint32_t disk, uint64_t a, uint64_t b) {
  if (a >= b) return;
  TrimLost(disk, a, b);
  auto& m = lost_[disk];
  // Merge with touching neighbours to keep the set small.
  auto next = m.find(b);
  if (next != m.end()) {
    b = next->second;
    m.erase(next);
    --lost_count_;
  }
  auto it = m.lower_bound(a);
  if (it != m.begin() && std::prev(it)->second == a) {
    --it;
    it->second = b;
    return;
  }
  m[a] = b;
  ++lost_count_;
}

absl::Status CacheState::LoadCheckpoint(const CheckpointImage& image) {
  for (const CheckpointLine& l : image.lines) {
    Record r{.type = RecordType::kLineSet, .disk = l.disk, .line = l.line, .slot = l.slot,
             .valid = l.valid, .dirty = l.dirty};
    if (absl::Status s = Apply(r, 0); !s.ok()) return s;
  }
  for (const CheckpointTemplate& t : image.templates) {
    Record r{.type = RecordType::kTemplateAdd, .disk = t.disk, .offset = t.offset,
             .length = t.length, .tmpl = t.tmpl, .file_offset = t.file_offset};
    if (absl::Status s = Apply(r, 0); !s.ok()) return s;
  }
  for (const CheckpointRange& l : image.lost) {
    Record r{.type = RecordType::kLostAdd, .disk = l.disk, .offset = l.offset, .length = l.length};
    if (absl::Status s = Apply(r, 0); !s.ok()) return s;
  }
  MarkSynced(0);
  return absl::OkStatus();
}

CheckpointImage CacheState::Snapshot() const {
  CheckpointImage img;
  img.lines.reserve(lines_.size());
  // Coldest first, so that replaying the image rebuilds the same LRU order.
  for (auto it = lru_.rbegin(); it != lru_.rend(); ++it) {
    const LineState& l = lines_.at(*it);
    img.lines.push_back({KeyDisk(*it), KeyLine(*it), l.slot, l.valid, l.dirty});
  }
  for (uint32_t d = 0; d < templates_.size(); ++d) {
    for (const auto& [start, r] : templates_[d]) {
      img.templates.push_back({d, start, r.end - start, r.tmpl, r.file_offset});
    }
  }
  img.lost = AllLost();
  return img;
}

const LineState* CacheState::Find(uint64_t key) const {
  auto it = lines_.find(key);
  return it == lines_.end() ? nullptr : &it->second;
}

void CacheState::Touch(uint64_t key) {
  auto it = lines_.find(key);
  if (it != lines_.end()) lru_.splice(lru_.begin(), lru_, it->second.lru);
}

std::vector<uint64_t> CacheState::ColdLines(bool want_dirty, size_t n,
                                            const std::function<bool(uint64_t)>& accept) const {
  std::vector<uint64_t> out;
  for (auto it = lru_.rbegin(); it != lru_.rend() && out.size() < n; ++it) {
    const LineState& l = lines_.at(*it);
    if ((l.dirty != 0) != want_dirty) continue;
    if (accept(*it)) out.push_back(*it);
  }
  return out;
}

std::vector<uint64_t> CacheState::DirtyLines() const {
  std::vector<uint64_t> out;
  for (auto it = lru_.rbegin(); it != lru_.rend(); ++it) {
    if (lines_.at(*it).dirty != 0) out.push_back(*it);
  }
  return out;
}

void CacheState::RebuildFreeList() const {
  if (!free_stale_) return;
  free_.clear();
  for (uint32_t s = num_slots_; s > 0; --s) {
    if (slot_state_[s - 1] == kFree) free_.push_back(s - 1);
  }
  free_stale_ = false;
}

std::optional<uint32_t> CacheState::ReserveSlot() {
  RebuildFreeList();
  if (free_.empty()) return std::nullopt;
  const uint32_t s = free_.back();
  free_.pop_back();
  slot_state_[s] = kReserved;
  return s;
}

void CacheState::UnreserveSlot(uint32_t slot) {
  if (slot_state_[slot] != kReserved) return;
  slot_state_[slot] = kFree;
  if (!free_stale_) free_.push_back(slot);
}

const TemplateRange* CacheState::FindTemplate(uint32_t disk, uint64_t offset,
                                              uint64_t* start) const {
  const auto& m = templates_[disk];
  auto it = m.upper_bound(offset);
  if (it == m.begin()) return nullptr;
  --it;
  if (it->second.end <= offset) return nullptr;
  *start = it->first;
  return &it->second;
}

bool CacheState::AnyTemplate(uint32_t disk, uint64_t offset, uint64_t length) const {
  const auto& m = templates_[disk];
  auto it = m.lower_bound(offset);
  if (it != m.end() && it->first < offset + length) return true;
  return it != m.begin() && std::prev(it)->second.end > offset;
}

std::vector<CheckpointTemplate> CacheState::TemplatesIn(uint32_t disk, uint64_t offset,
                                                        uint64_t length) const {
  std::vector<CheckpointTemplate> out;
  const auto& m = templates_[disk];
  const uint64_t end = offset + length;
  auto it = m.lower_bound(offset);
  if (it != m.begin() && std::prev(it)->second.end > offset) --it;
  for (; it != m.end() && it->first < end; ++it) {
    const uint64_t a = std::max(offset, it->first), b = std::min(end, it->second.end);
    out.push_back({disk, a, b - a, it->second.tmpl, it->second.file_offset + (a - it->first)});
  }
  return out;
}

std::optional<CheckpointTemplate> CacheState::FirstTemplate() const {
  for (uint32_t d = 0; d < templates_.size(); ++d) {
    if (!templates_[d].empty()) {
      const auto& [start, r] = *templates_[d].begin();
      return CheckpointTemplate{d, start, r.end - start, r.tmpl, r.file_offset};
    }
  }
  return std::nullopt;
}

bool CacheState::AnyLost(uint32_t disk, uint64_t offset, uint64_t length) const {
  const auto& m = lost_[disk];
  auto it = m.lower_bound(offset);
  if (it != m.end() && it->first < offset + length) return true;
  return it != m.begin() && std::prev(it)->second > offset;
}

std::vector<CheckpointRange> CacheState::AllLost() const {
  std::vector<CheckpointRange> out;
  for (uint32_t d = 0; d < lost_.size(); ++d) {
    for (const auto& [a, b] : lost_[d]) out.push_back({d, a, b - a});
  }
  return out;
}

bool CacheState::AnyCached(uint32_t disk, uint64_t offset, uint64_t length) const {
  if (lines_.empty() || length == 0) return false;
  const uint64_t end = offset + length;
  const uint64_t first = offset / line_size_, last = (end - 1) / line_size_;
  auto line_hits = [&](uint64_t line, const LineState& l) {
    const uint64_t lstart = line * line_size_;
    const uint64_t a = std::max(offset, lstart), b = std::min(end, lstart + line_size_);
    for (uint64_t p = (a - lstart) / kPage; p < (b - lstart + kPage - 1) / kPage; ++p) {
      if (l.valid & (uint64_t{1} << p)) return true;
    }
    return false;
  };
  if (last - first + 1 <= lines_.size()) {
    for (uint64_t line = first; line <= last; ++line) {
      auto it = lines_.find(Key(disk, line));
      if (it != lines_.end() && line_hits(line, it->second)) return true;
    }
    return false;
  }
  for (const auto& [key, l] : lines_) {
    if (KeyDisk(key) == disk && KeyLine(key) >= first && KeyLine(key) <= last &&
        line_hits(KeyLine(key), l)) {
      return true;
    }
  }
  return false;
}

std::vector<CheckpointRange> CacheState::LoseAll() {
  std::vector<CheckpointRange> lost;
  for (const auto& [key, l] : lines_) {
    for (uint32_t p = 0; p < pages_per_line_; ++p) {
      if (l.dirty & (uint64_t{1} << p)) {
        lost.push_back({KeyDisk(key), KeyLine(key) * line_size_ + p * kPage, kPage});
      }
    }
  }
  for (uint32_t d = 0; d < templates_.size(); ++d) {
    for (const auto& [start, r] : templates_[d]) lost.push_back({d, start, r.end - start});
  }
  for (const CheckpointRange& r : lost) AddLost(r.disk, r.offset, r.offset + r.length);
  lines_.clear();
  lines_on_disk_.assign(disk_sizes_.size(), 0);
  lru_.clear();
  templates_.assign(disk_sizes_.size(), {});
  template_count_ = 0;
  template_bytes_ = 0;
  valid_pages_ = dirty_pages_ = 0;
  dirty_lines_ = 0;
  pending_.clear();
  free_stale_ = false;
  free_.clear();
  for (uint32_t s = num_slots_; s > 0; --s) {
    slot_state_[s - 1] = kFree;
    free_.push_back(s - 1);
  }
  return lost;
}

absl::Status CacheState::CheckInvariants() const {
  uint64_t valid = 0, dirty = 0, dirty_lines = 0;
  std::vector<int> owners(num_slots_, 0);
  for (const auto& [key, l] : lines_) {
    if ((l.dirty & ~l.valid) != 0 || l.valid == 0) {
      return absl::InternalError(fmt::format("line {:x}: dirty not within valid", key));
    }
    if (++owners[l.slot] > 1) return absl::InternalError(fmt::format("slot {} shared", l.slot));
    if (slot_state_[l.slot] != kUsed) {
      return absl::InternalError(fmt::format("slot {} of a line is not marked used", l.slot));
    }
    valid += std::popcount(l.valid);
    dirty += std::popcount(l.dirty);
    if (l.dirty != 0) ++dirty_lines;
    const uint64_t lstart = KeyLine(key) * line_size_;
    for (uint32_t p = 0; p < pages_per_line_; ++p) {
      if ((l.valid & (uint64_t{1} << p)) && AnyTemplate(KeyDisk(key), lstart + p * kPage, kPage)) {
        return absl::InternalError(fmt::format(
            "page {} of disk {} is both cached and in a template range", lstart + p * kPage,
            KeyDisk(key)));
      }
    }
  }
  if (valid != valid_pages_ || dirty != dirty_pages_ || dirty_lines != dirty_lines_) {
    return absl::InternalError("valid/dirty page or dirty line counts drifted");
  }
  size_t nt = 0;
  for (uint32_t d = 0; d < templates_.size(); ++d) {
    uint64_t prev_end = 0;
    for (const auto& [start, r] : templates_[d]) {
      if (start < prev_end || r.end <= start) return absl::InternalError("templates overlap");
      if (AnyLost(d, start, r.end - start)) return absl::InternalError("template is lost");
      prev_end = r.end;
      ++nt;
    }
  }
  if (nt != template_count_) return absl::InternalError("template count drifted");
  return absl::OkStatus();
}

}  // namespace cellsim::cell::internal
