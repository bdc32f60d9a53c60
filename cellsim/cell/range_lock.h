// RangeLocks (private): exclusive locks on byte ranges of grid disks, taken
// all-or-nothing so that a batch locking many ranges can never deadlock with
// another. A cell request locks the cache lines it touches for the whole time
// it reads or changes them, so that the cleaner, eviction and other requests
// never see a line half-updated or reuse a slot under a reader.
//
// Usage:
//   RangeLocks locks;
//   RangeLocks::Guard g = locks.Acquire({{disk, begin, end}});  // blocks
//   std::optional<RangeLocks::Guard> t = locks.TryAcquire({{disk, b, e}});
//
// Thread-safety: fully thread-safe. The table's mutex is innermost: it may be
// taken with any cell lock held (TryAcquire under the cell's state mutex) and
// nothing is taken while holding it.
#ifndef CELLSIM_CELL_RANGE_LOCK_H_
#define CELLSIM_CELL_RANGE_LOCK_H_

#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "absl/container/btree_map.h"
#include "cellsim/base/mutex.h"

namespace cellsim::cell::internal {

class RangeLocks {
 public:
  // disk == kAllDisks locks everything (LoseFlash, mode changes).
  static constexpr uint32_t kAllDisks = UINT32_MAX;
  struct Range {
    uint32_t disk = 0;
    uint64_t begin = 0, end = 0;  // [begin, end)
  };

  class Guard {
   public:
    Guard() = default;
    Guard(RangeLocks* owner, uint64_t id) : owner_(owner), id_(id) {}
    Guard(Guard&& o) noexcept : owner_(o.owner_), id_(o.id_) { o.owner_ = nullptr; }
    Guard& operator=(Guard&& o) noexcept;
    Guard(const Guard&) = delete;
    Guard& operator=(const Guard&) = delete;
    ~Guard() { Release(); }
    void Release();

   private:
    RangeLocks* owner_ = nullptr;
    uint64_t id_ = 0;
  };

  Guard Acquire(std::vector<Range> ranges) ABSL_LOCKS_EXCLUDED(mu_);
  std::optional<Guard> TryAcquire(std::vector<Range> ranges) ABSL_LOCKS_EXCLUDED(mu_);

 private:
  // Held ranges never overlap (a conflicting Acquire waits), and each guard's
  // ranges are merged before they are inserted, so the held ranges of one disk
  // are disjoint intervals: a map keyed by (disk, begin) answers "does this
  // range overlap anything held?" with one lookup and its predecessor, so a
  // batch of n ranges against m held ones costs O(n log m), not O(n m).
  using Key = std::pair<uint32_t, uint64_t>;  // (disk, begin)
  struct Held {
    uint64_t end;
    uint64_t id;
  };
  static std::vector<Range> Normalize(std::vector<Range> ranges);
  bool ConflictsLocked(const std::vector<Range>& ranges) const ABSL_SHARED_LOCKS_REQUIRED(mu_);
  uint64_t InsertLocked(const std::vector<Range>& ranges) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Release(uint64_t id) ABSL_LOCKS_EXCLUDED(mu_);

  Mutex mu_;
  CondVar cv_;  // signalled when a guard is released
  // A B-tree: a batch of thousands of ranges costs a few node allocations.
  absl::btree_map<Key, Held> held_ ABSL_GUARDED_BY(mu_);  // ranges of single disks
  // kAllDisks ranges and their guard
  std::vector<std::pair<Range, uint64_t>> all_ ABSL_GUARDED_BY(mu_);
  std::map<uint64_t, std::vector<Key>> by_guard_ ABSL_GUARDED_BY(mu_);
  uint64_t next_id_ ABSL_GUARDED_BY(mu_) = 1;
};

}  // namespace cellsim::cell::internal

#endif  // CELLSIM_CELL_RANGE_LOCK_H_
