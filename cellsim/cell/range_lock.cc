#include "cellsim/cell/range_lock.h"

#include <algorithm>
#include <iterator>
#include <tuple>

namespace cellsim::cell::internal {

RangeLocks::Guard& RangeLocks::Guard::operator=(Guard&& o) noexcept {
  if (this != &o) {
    Release();
    owner_ = o.owner_;
    id_ = o.id_;
    o.owner_ = nullptr;
  }
  return *this;
}

void RangeLocks::Guard::Release() {
  if (owner_ != nullptr) owner_->Release(id_);
  owner_ = nullptr;
}

namespace {

// Sorts by (disk, begin). ASM sends a cell its AU copies in allocation order:
// ascending on each disk, the disks interleaved. So: a stable counting sort
// by disk (a cell has a few dozen grid disks), then a disk's run is sorted
// only when it is not already; a comparison sort of thousands of ranges cost
// more than the rest of a fast creation's locking.
bool DiskThenBegin(const RangeLocks::Range& a, const RangeLocks::Range& b) {
  return std::tie(a.disk, a.begin) < std::tie(b.disk, b.begin);
}

void SortByDisk(std::vector<RangeLocks::Range>* ranges) {
  constexpr uint32_t kMaxCounted = 4096;  // kAllDisks and the like: a plain sort
  uint32_t top = 0;
  for (const RangeLocks::Range& r : *ranges) top = std::max(top, r.disk);
  if (top >= kMaxCounted) {
    std::sort(ranges->begin(), ranges->end(), DiskThenBegin);
    return;
  }
  auto by_begin = [](const RangeLocks::Range& a, const RangeLocks::Range& b) {
    return a.begin < b.begin;
  };
  std::vector<size_t> start(size_t{top} + 2, 0);  // start[d]: disk d's first slot
  for (const RangeLocks::Range& r : *ranges) ++start[size_t{r.disk} + 1];
  for (size_t d = 1; d < start.size(); ++d) start[d] += start[d - 1];
  std::vector<RangeLocks::Range> out(ranges->size());
  std::vector<size_t> next(start.begin(), start.end() - 1);
  for (const RangeLocks::Range& r : *ranges) out[next[r.disk]++] = r;
  for (size_t d = 0; d + 1 < start.size(); ++d) {
    const auto b = out.begin() + static_cast<ptrdiff_t>(start[d]);
    const auto e = out.begin() + static_cast<ptrdiff_t>(start[d + 1]);
    if (!std::is_sorted(b, e, by_begin)) std::sort(b, e, by_begin);
  }
  ranges->swap(out);
}

}  // namespace

std::vector<RangeLocks::Range> RangeLocks::Normalize(std::vector<Range> ranges) {
  std::erase_if(ranges, [](const Range& r) { return r.begin >= r.end; });
  if (!std::is_sorted(ranges.begin(), ranges.end(), DiskThenBegin)) SortByDisk(&ranges);
  size_t out = 0;  // merged in place: ranges[0, out) are done
  for (const Range& r : ranges) {
    if (out > 0 && ranges[out - 1].disk == r.disk && r.begin <= ranges[out - 1].end) {
      ranges[out - 1].end = std::max(ranges[out - 1].end, r.end);
    } else {
      ranges[out++] = r;
    }
  }
  ranges.resize(out);
  return ranges;
}

bool RangeLocks::ConflictsLocked(const std::vector<Range>& ranges) const {
  auto overlaps = [](const Range& a, uint64_t begin, uint64_t end) {
    return a.begin < end && begin < a.end;
  };
  for (const Range& r : ranges) {
    for (const auto& [a, id] : all_) {
      if (overlaps(a, r.begin, r.end)) return true;
    }
    if (r.disk == kAllDisks) {
      for (const auto& [key, h] : held_) {
        if (overlaps(r, key.second, h.end)) return true;
      }
      continue;
    }
    auto it = held_.lower_bound({r.disk, r.begin});
    if (it != held_.end() && it->first.first == r.disk && it->first.second < r.end) return true;
    if (it != held_.begin()) {
      const auto prev = std::prev(it);
      if (prev->first.first == r.disk && prev->second.end > r.begin) return true;
    }
  }
  return false;
}

uint64_t RangeLocks::InsertLocked(const std::vector<Range>& ranges) {
  const uint64_t id = next_id_++;
  std::vector<Key>& keys = by_guard_[id];
  keys.reserve(ranges.size());
  // `ranges` is sorted: each one goes right after the one before (the hint
  // saves the B-tree a search per range).
  auto next = held_.end();
  for (const Range& r : ranges) {
    if (r.disk == kAllDisks) {
      all_.emplace_back(r, id);
    } else {
      next = std::next(held_.emplace_hint(next, Key{r.disk, r.begin}, Held{r.end, id}));
      keys.push_back({r.disk, r.begin});
    }
  }
  return id;
}

RangeLocks::Guard RangeLocks::Acquire(std::vector<Range> ranges) {
  ranges = Normalize(std::move(ranges));
  MutexLock l(&mu_);
  while (ConflictsLocked(ranges)) cv_.Wait(&mu_);
  return Guard(this, InsertLocked(ranges));
}

std::optional<RangeLocks::Guard> RangeLocks::TryAcquire(std::vector<Range> ranges) {
  ranges = Normalize(std::move(ranges));
  MutexLock l(&mu_);
  if (ConflictsLocked(ranges)) return std::nullopt;
  return Guard(this, InsertLocked(ranges));
}

void RangeLocks::Release(uint64_t id) {
  {
    MutexLock l(&mu_);
    auto g = by_guard_.find(id);
    if (g != by_guard_.end()) {
      // The keys are sorted: most follow the one erased before them.
      auto it = held_.end();
      for (const Key& k : g->second) {
        if (it == held_.end() || it->first != k) it = held_.find(k);
        if (it != held_.end()) it = held_.erase(it);
      }
      by_guard_.erase(g);
    }
    std::erase_if(all_, [id](const auto& a) { return a.second == id; });
  }
  cv_.SignalAll();
}

}  // namespace cellsim::cell::internal
