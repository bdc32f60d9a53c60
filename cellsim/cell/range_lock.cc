#include "cellsim/cell/range_lock.h"

#include <algorithm>

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

bool RangeLocks::ConflictsLocked(const std::vector<Range>& ranges) const {
  for (const Held& h : held_) {
    for (const Range& r : ranges) {
      const bool same_disk = h.range.disk == r.disk || h.range.disk == kAllDisks ||
                             r.disk == kAllDisks;
      if (same_disk && h.range.begin < r.end && r.begin < h.range.end) return true;
    }
  }
  return false;
}

uint64_t RangeLocks::InsertLocked(const std::vector<Range>& ranges) {
  const uint64_t id = next_id_++;
  for (const Range& r : ranges) held_.push_back({r, id});
  return id;
}

RangeLocks::Guard RangeLocks::Acquire(std::vector<Range> ranges) {
  std::unique_lock<std::mutex> l(mu_);
  cv_.wait(l, [&] { return !ConflictsLocked(ranges); });
  return Guard(this, InsertLocked(ranges));
}

std::optional<RangeLocks::Guard> RangeLocks::TryAcquire(std::vector<Range> ranges) {
  std::lock_guard<std::mutex> l(mu_);
  if (ConflictsLocked(ranges)) return std::nullopt;
  return Guard(this, InsertLocked(ranges));
}

void RangeLocks::Release(uint64_t id) {
  {
    std::lock_guard<std::mutex> l(mu_);
    std::erase_if(held_, [id](const Held& h) { return h.id == id; });
  }
  cv_.notify_all();
}

}  // namespace cellsim::cell::internal
