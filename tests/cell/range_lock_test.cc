// RangeLocks: conflicts exactly when two held ranges of one disk overlap (or
// one of them is an all-disks lock), checked against a brute-force model.
#include "cellsim/cell/range_lock.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <optional>
#include <random>
#include <tuple>
#include <vector>

#include "cellsim/cell/cell_impl.h"

namespace cellsim::cell::internal {
namespace {

using Range = RangeLocks::Range;

TEST(RangeLocksTest, OverlapConflictsAdjacentDoesNot) {
  RangeLocks locks;
  std::optional<RangeLocks::Guard> a = locks.TryAcquire({{1, 100, 200}});
  ASSERT_TRUE(a.has_value());
  EXPECT_FALSE(locks.TryAcquire({{1, 150, 160}}).has_value());  // inside
  EXPECT_FALSE(locks.TryAcquire({{1, 0, 101}}).has_value());    // left edge
  EXPECT_FALSE(locks.TryAcquire({{1, 199, 300}}).has_value());  // right edge
  EXPECT_FALSE(locks.TryAcquire({{1, 0, 1000}}).has_value());   // covers it
  EXPECT_TRUE(locks.TryAcquire({{1, 200, 300}}).has_value());   // adjacent after
  EXPECT_TRUE(locks.TryAcquire({{1, 0, 100}}).has_value());     // adjacent before
  EXPECT_TRUE(locks.TryAcquire({{2, 100, 200}}).has_value());   // other disk
  a->Release();
  EXPECT_TRUE(locks.TryAcquire({{1, 150, 160}}).has_value());
}

TEST(RangeLocksTest, AllDisksLockConflictsWithEveryDisk) {
  RangeLocks locks;
  std::optional<RangeLocks::Guard> a = locks.TryAcquire({{3, 0, 10}});
  ASSERT_TRUE(a.has_value());
  EXPECT_FALSE(locks.TryAcquire({{RangeLocks::kAllDisks, 0, UINT64_MAX}}).has_value());
  a->Release();
  std::optional<RangeLocks::Guard> all =
      locks.TryAcquire({{RangeLocks::kAllDisks, 0, UINT64_MAX}});
  ASSERT_TRUE(all.has_value());
  EXPECT_FALSE(locks.TryAcquire({{7, 5, 6}}).has_value());
  all->Release();
  EXPECT_TRUE(locks.TryAcquire({{7, 5, 6}}).has_value());
}

TEST(RangeLocksTest, OneGuardMayListOverlappingRanges) {
  RangeLocks locks;
  // Two requests of one batch on the same line: the guard merges them.
  std::optional<RangeLocks::Guard> a = locks.TryAcquire({{1, 0, 64}, {1, 32, 128}, {1, 0, 64}});
  ASSERT_TRUE(a.has_value());
  EXPECT_FALSE(locks.TryAcquire({{1, 100, 101}}).has_value());
  a->Release();
  EXPECT_TRUE(locks.TryAcquire({{1, 0, 128}}).has_value());
}

// Random batches of up to `max_batch` ranges, sorted by (disk, begin) when
// `sorted` (as ASM sends a cell its AU copies), against a brute-force model.
void ExpectMatchesBruteForceModel(size_t max_batch, bool sorted) {
  std::mt19937_64 rng(20261130 + max_batch);
  RangeLocks locks;
  struct Model {
    std::vector<Range> ranges;
    RangeLocks::Guard guard;
  };
  std::vector<Model> held;
  auto conflicts = [&](const std::vector<Range>& want) {
    for (const Model& m : held) {
      for (const Range& h : m.ranges) {
        for (const Range& r : want) {
          const bool disk = h.disk == r.disk || h.disk == RangeLocks::kAllDisks ||
                            r.disk == RangeLocks::kAllDisks;
          if (disk && h.begin < r.end && r.begin < h.end) return true;
        }
      }
    }
    return false;
  };
  for (int step = 0; step < 5000; ++step) {
    if (!held.empty() && rng() % 3 == 0) {
      const size_t k = rng() % held.size();
      held[k].guard.Release();
      held.erase(held.begin() + static_cast<ptrdiff_t>(k));
      continue;
    }
    std::vector<Range> want;
    const size_t n = 1 + rng() % max_batch;
    for (size_t i = 0; i < n; ++i) {
      const uint32_t disk = rng() % 50 == 0 ? RangeLocks::kAllDisks : rng() % 3;
      const uint64_t begin = rng() % 64, len = 1 + rng() % 8;
      want.push_back({disk, begin, begin + len});
    }
    if (sorted) {
      std::sort(want.begin(), want.end(), [](const Range& a, const Range& b) {
        return std::tie(a.disk, a.begin) < std::tie(b.disk, b.begin);
      });
    }
    const bool expect_conflict = conflicts(want);
    std::optional<RangeLocks::Guard> g = locks.TryAcquire(want);
    ASSERT_EQ(g.has_value(), !expect_conflict) << "step " << step;
    if (g.has_value()) held.push_back({want, std::move(*g)});
  }
}

TEST(RangeLocksTest, MatchesBruteForceModel) { ExpectMatchesBruteForceModel(4, false); }

TEST(RangeLocksTest, SortedBatchesMatchBruteForceModel) {
  ExpectMatchesBruteForceModel(12, true);
}

// SpanSet (the cell's "does this request overlap the group so far?") answers
// as the union of the ranges added does, for ranges added in ascending order
// per disk (its vector path, including ranges that start inside the last one),
// in any order (its B-tree; ranges may overlap, nest and repeat a begin) and
// across the switch.
TEST(SpanSetTest, AnswersAsTheUnionOfItsRanges) {
  std::mt19937_64 rng(20261202);
  for (int round = 0; round < 300; ++round) {
    SpanSet set;
    std::vector<Range> model;
    auto model_overlaps = [&](const Range& r) {
      return std::any_of(model.begin(), model.end(), [&](const Range& m) {
        return m.disk == r.disk && m.begin < m.end && m.begin < r.end && r.begin < m.end;
      });
    };
    const int ascending_steps = static_cast<int>(rng() % 50);
    std::vector<uint64_t> next(3, 0);
    for (int step = 0; step < 60; ++step) {
      const uint32_t disk = rng() % 3;
      uint64_t begin = rng() % 256, len = rng() % 8;
      if (step < ascending_steps) {
        // Past the last range, or (one time in four) starting inside it.
        begin = next[disk] + rng() % 4;
        if (next[disk] > 0 && rng() % 4 == 0) begin = next[disk] - 1 - rng() % 2;
        len = 1 + rng() % 8;
        next[disk] = std::max(next[disk], begin + len);
      }
      const uint64_t qb = rng() % 300;
      const Range query{static_cast<uint32_t>(rng() % 3), qb, qb + 1 + rng() % 16};
      ASSERT_EQ(set.Overlaps(query), model_overlaps(query)) << "round " << round << " step "
                                                             << step;
      set.Add({disk, begin, begin + len});
      model.push_back({disk, begin, begin + len});
    }
    set.Clear();
    EXPECT_FALSE(set.Overlaps({0, 0, 1000}));
  }
}

}  // namespace
}  // namespace cellsim::cell::internal
