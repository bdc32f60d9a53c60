// ASM's refusal to take a disk offline (ORA-15066) by the partnership rule,
// which holds before any file exists: an empty NORMAL group once let every
// disk of every cell go offline (`cellcli -e "alter griddisk all inactive"`
// on all cells), leaving a "MOUNTED" group with no disk to write to.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "asm/fake_rack.h"
#include "cellsim/asm/disk_group.h"
#include "cellsim/base/units.h"
#include "cellsim/io/io_backend.h"
#include "gmock/gmock.h"
#include "testing/test_util.h"

namespace cellsim::asmgr {
namespace {

using ::testing::HasSubstr;
using testing::FakeRack;

struct Group {
  FakeRack rack;
  cellsim::testing::TempDir dir;
  std::unique_ptr<io::IoBackend> io = io::MakePosixBackend();
  std::unique_ptr<DiskGroup> dg;

  Group(std::vector<uint32_t> disks_per_cell, Redundancy r)
      : rack(std::move(disks_per_cell), {{"DATA", 16 * kMiB}}) {
    dg = DiskGroup::Create(rack.Env(io.get(), dir.path()),
                           {.name = "DATA", .redundancy = r, .au_size = 1 * kMiB,
                            .disks = rack.Disks(0), .max_partners = 8})
             .value();
  }
  bool Partnered(uint32_t a, uint32_t b) const {
    const std::vector<DiskView> v = dg->Disks();
    auto has = [](const std::vector<uint32_t>& p, uint32_t x) {
      return std::find(p.begin(), p.end(), x) != p.end();
    };
    return has(v[a].partners, b) || has(v[b].partners, a);
  }
  std::vector<uint32_t> DisksOfCell(uint32_t cell) const {
    std::vector<uint32_t> out;
    for (const DiskView& d : dg->Disks()) {
      if (d.cell == cell) out.push_back(d.index);
    }
    return out;
  }
};

TEST(AsmOfflineTest, PartnersOfAnOfflineDiskStayOnlineInAnEmptyNormalGroup) {
  Group g({12, 12, 12}, Redundancy::kNormal);
  ASSERT_OK(g.dg->OfflineDisk(0));
  const std::string zero = g.dg->Disks()[0].name;
  int partners = 0, others = 0;
  for (const DiskView& d : g.dg->Disks()) {
    if (d.cell == 0) {
      EXPECT_TRUE(d.can_offline) << d.name << ": its own cell is the same failure group";
      continue;
    }
    SCOPED_TRACE(d.name);
    if (g.Partnered(0, d.index)) {
      ++partners;
      EXPECT_FALSE(d.can_offline);
      absl::Status st = g.dg->OfflineDisk(d.index);
      EXPECT_EQ(st.code(), absl::StatusCode::kFailedPrecondition);
      EXPECT_THAT(st.message(), HasSubstr("ORA-15066: offlining disk \"" + d.name +
                                          "\" in group \"DATA\" may result in a data loss: its "
                                          "partner disk \"" + zero + "\" is already offline, "
                                          "and NORMAL redundancy keeps 2 copies"));
      EXPECT_EQ(g.dg->Disks()[d.index].mode_status, "ONLINE");
    } else {
      ++others;
      EXPECT_TRUE(d.can_offline);
    }
  }
  EXPECT_GT(partners, 0);
  EXPECT_GT(others, 0) << "12 disks per cell and 8 partners: some disks are not partners";
  // A whole cell (one failure group) may go; then no disk of another may.
  for (uint32_t d : g.DisksOfCell(0)) ASSERT_OK(g.dg->OfflineDisk(d));
  for (uint32_t c = 1; c < 3; ++c) {
    for (uint32_t d : g.DisksOfCell(c)) {
      EXPECT_FALSE(g.dg->Disks()[d].can_offline) << d;
      EXPECT_THAT(g.dg->OfflineDisk(d).message(), HasSubstr("ORA-15066")) << d;
    }
  }
  // Back online, the rule lifts.
  ASSERT_OK(g.dg->OnlineAll(nullptr));
  for (const DiskView& d : g.dg->Disks()) EXPECT_TRUE(d.can_offline) << d.name;
  ASSERT_OK(g.dg->OfflineDisk(g.DisksOfCell(1)[0]));
}

TEST(AsmOfflineTest, HighGroupLosesTwoFailureGroupsButNotThree) {
  Group g({2, 2, 2, 2}, Redundancy::kHigh);
  for (uint32_t c = 0; c < 2; ++c) {
    for (uint32_t d : g.DisksOfCell(c)) ASSERT_OK(g.dg->OfflineDisk(d));
  }
  const uint32_t third = g.DisksOfCell(2)[0];
  absl::Status st = g.dg->OfflineDisk(third);
  EXPECT_EQ(st.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(st.message(), HasSubstr("are already offline, and HIGH redundancy keeps 3 copies"));
  EXPECT_FALSE(g.dg->Disks()[third].can_offline);
}

TEST(AsmOfflineTest, ExternalGroupNeverTakesADiskOffline) {
  Group g({1, 1}, Redundancy::kExternal);
  absl::Status st = g.dg->OfflineDisk(0);
  EXPECT_EQ(st.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(st.message(), HasSubstr("EXTERNAL redundancy"));
  EXPECT_FALSE(g.dg->Disks()[0].can_offline);
  EXPECT_EQ(g.dg->Disks()[0].mode_status, "ONLINE");
}

}  // namespace
}  // namespace cellsim::asmgr
