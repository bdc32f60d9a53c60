// Placement properties over many random disk-group shapes and files (issue 4,
// must-show 1): copies in distinct failure groups, mirrors on partners of the
// primary's disk, <= 8 partners each in other failure groups, and per-disk
// allocation within a stated tolerance of even.
#include <algorithm>
#include <map>
#include <random>
#include <set>

#include "asm/fake_rack.h"
#include "cellsim/asm/disk_group.h"
#include "cellsim/base/units.h"
#include "cellsim/io/io_backend.h"
#include "fmt/format.h"
#include "testing/test_util.h"

namespace cellsim::asmgr {
namespace {

using testing::FakeRack;

// The evenness guarantee (docs/asm.md): in a group whose failure groups have
// the same number of equal disks, after any sequence of file creations the
// allocated AU counts of any two disks differ by at most kEvenTolerance.
constexpr uint64_t kEvenTolerance = 2;

struct Shape {
  std::vector<uint32_t> disks_per_cell;
  Redundancy redundancy;
  bool balanced;
};

Shape RandomShape(std::mt19937_64& rng) {
  Shape s;
  const uint32_t cells = 1 + rng() % 7;
  s.balanced = rng() % 2 == 0;
  const uint32_t per = 1 + rng() % 12;
  for (uint32_t c = 0; c < cells; ++c) s.disks_per_cell.push_back(s.balanced ? per : 1 + rng() % 12);
  const uint32_t max_copies = std::min<uint32_t>(3, cells);
  s.redundancy = static_cast<Redundancy>(rng() % max_copies);
  return s;
}

// Checks everything placement promises about the group as it is now.
void CheckPlacement(const DiskGroup& dg) {
  ASSERT_OK(dg.CheckConsistency());
  for (uint32_t d = 0; d < dg.disk_count(); ++d) {
    std::vector<uint32_t> p = dg.Partners(d);
    EXPECT_LE(p.size(), kMaxPartners);
    for (uint32_t q : p) EXPECT_NE(dg.disk(q).cell, dg.disk(d).cell) << "disk " << d;
    // Each disk has partners in min(8, other failure groups) distinct groups
    // at least, so HIGH redundancy can always find two.
  }
  for (const FileInfo& f : dg.ListFiles()) {
    ASSERT_OK_AND_ASSIGN(std::vector<Extent> map, dg.ExtentMap(f.number));
    ASSERT_EQ(map.size(), f.extents);
    for (const Extent& e : map) {
      ASSERT_EQ(e.copies.size(), dg.copies());
      std::set<uint32_t> cells;
      for (const ExtentCopy& c : e.copies) cells.insert(c.cell);
      EXPECT_EQ(cells.size(), e.copies.size()) << f.name << " extent " << e.index;
      const std::vector<uint32_t> partners = dg.Partners(e.copies[0].disk);
      for (size_t c = 1; c < e.copies.size(); ++c) {
        EXPECT_TRUE(std::count(partners.begin(), partners.end(), e.copies[c].disk))
            << f.name << " extent " << e.index << " copy " << c << " not on a partner";
      }
    }
  }
}

TEST(PlacementTest, RandomShapesAndFiles) {
  std::mt19937_64 rng(20240611);
  std::unique_ptr<io::IoBackend> io = io::MakePosixBackend();
  int balanced_checked = 0;
  for (int round = 0; round < 60; ++round) {
    SCOPED_TRACE(round);
    Shape shape = RandomShape(rng);
    const uint64_t disk_size = 96 * kMiB;  // 96 AUs of 1 MiB
    FakeRack rack(shape.disks_per_cell, {{"DATA", disk_size}});
    cellsim::testing::TempDir dir;
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<DiskGroup> dg,
                         DiskGroup::Create(rack.Env(io.get(), dir.path()),
                                           {.name = "DATA",
                                            .redundancy = shape.redundancy,
                                            .au_size = 1 * kMiB,
                                            .disks = rack.Disks(0)}));
    // Phase 1: creations only, until about 60% full.
    const uint64_t capacity = dg->Space().total_mb / dg->copies();
    uint64_t used = 0;
    int n = 0;
    while (used < capacity * 6 / 10) {
      const uint64_t mb = 1 + rng() % std::max<uint64_t>(1, capacity / 20);
      auto f = dg->CreateFile({.db_name = "ORCL", .type = FileType::kDataFile,
                               .tag = fmt::format("TS{}", n++), .size_bytes = mb * kMiB});
      if (!shape.balanced && !f.ok()) {
        // Unequal failure groups fill up before the raw total says so: the
        // smallest group must hold a copy of every extent.
        ASSERT_EQ(f.status().code(), absl::StatusCode::kResourceExhausted) << f.status();
        break;
      }
      ASSERT_OK(f.status());
      used += mb;
    }
    CheckPlacement(*dg);
    if (shape.balanced) {
      uint64_t lo = UINT64_MAX, hi = 0;
      for (const DiskView& d : dg->Disks()) {
        lo = std::min(lo, d.allocated_aus);
        hi = std::max(hi, d.allocated_aus);
      }
      EXPECT_LE(hi - lo, kEvenTolerance) << "cells " << shape.disks_per_cell.size() << " x "
                                         << shape.disks_per_cell[0] << " "
                                         << RedundancyName(shape.redundancy);
      ++balanced_checked;
    }
    // Phase 2: random deletes, resizes and creations, then the hard
    // properties again (evenness is not promised after deletes).
    for (int op = 0; op < 40; ++op) {
      std::vector<FileInfo> files = dg->ListFiles();
      const int kind = static_cast<int>(rng() % 3);
      if (kind == 0 && !files.empty()) {
        ASSERT_OK(dg->DeleteFile(files[rng() % files.size()].number));
      } else if (kind == 1 && !files.empty()) {
        const FileInfo& f = files[rng() % files.size()];
        auto r = dg->ResizeFile(f.number, (1 + rng() % 8) * kMiB + 512 * (rng() % 4));
        if (!r.ok()) {
          EXPECT_EQ(r.status().code(), absl::StatusCode::kResourceExhausted);
        }
      } else {
        auto f = dg->CreateFile({.db_name = "ORCL", .type = FileType::kDataFile,
                                 .tag = fmt::format("X{}", n++),
                                 .size_bytes = (1 + rng() % 6) * kMiB});
        if (!f.ok()) {
          EXPECT_EQ(f.status().code(), absl::StatusCode::kResourceExhausted);
        }
      }
    }
    CheckPlacement(*dg);
  }
  EXPECT_GT(balanced_checked, 10);
}

TEST(PlacementTest, PartnerSetsOnAFullRack) {
  // 14 cells x 12 disks (a full Exadata rack): more failure groups than
  // partners, so each disk gets 8 partners in 8 different cells.
  FakeRack rack(std::vector<uint32_t>(14, 12), {{"DATA", 64 * kMiB}});
  cellsim::testing::TempDir dir;
  std::unique_ptr<io::IoBackend> io = io::MakePosixBackend();
  ASSERT_OK_AND_ASSIGN(auto dg, DiskGroup::Create(rack.Env(io.get(), dir.path()),
                                                  {.name = "DATA",
                                                   .redundancy = Redundancy::kHigh,
                                                   .au_size = 1 * kMiB,
                                                   .disks = rack.Disks(0)}));
  std::map<uint32_t, int> in_degree;
  for (uint32_t d = 0; d < dg->disk_count(); ++d) {
    std::vector<uint32_t> p = dg->Partners(d);
    ASSERT_EQ(p.size(), 8u);
    std::set<uint32_t> cells;
    for (uint32_t q : p) {
      cells.insert(dg->disk(q).cell);
      ++in_degree[q];
    }
    EXPECT_EQ(cells.size(), 8u);
  }
  // Every disk is a partner of exactly 8 disks: mirror load is even.
  for (const auto& [disk, n] : in_degree) EXPECT_EQ(n, 8) << disk;
  ASSERT_OK(dg->CreateFile({.db_name = "ORCL", .type = FileType::kDataFile, .tag = "BIG",
                            .size_bytes = 1024 * kMiB})
                .status());
  CheckPlacement(*dg);
}

}  // namespace
}  // namespace cellsim::asmgr
