#include "cellsim/report/cellcli.h"

#include <fmt/format.h>

#include <string>
#include <vector>

#include "testing/test_util.h"

namespace cellsim::report {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

cell::CellDescription Cel01() {
  cell::CellDescription d;
  d.name = "cel01";
  d.flash_cache_mode = cell::FlashCacheMode::kWriteBack;
  d.grid_disks = {{"DATA_CD_00_cel01", "CD_00_cel01", 1 << 30, "active"},
                  {"RECO_CD_00_cel01", "CD_00_cel01", 1 << 29, "inactive"}};
  d.flash_device = "FD_00_cel01";
  d.flash_size_bytes = 391647330304;  // 364.75G
  d.flash_cache_size_bytes = 391378894848;  // 364.5G
  d.cache_line_size = 65536;
  d.creation_time_unix = 1421724817;  // 2015-01-20T03:33:37Z
  d.flash_cache_status = "normal";
  return d;
}

// LIST `type` of one cell with `list`; the test fails on an error.
std::string List(CellCliObjectType type, const CellCliInputs& in, const CellCliList& list) {
  absl::StatusOr<std::string> text = RenderCellCliList(type, CellCliObjects(type, in), list);
  EXPECT_TRUE(text.ok()) << text.status();
  return text.ok() ? *text : "";
}

std::string RenderListFlashCacheDetail(const cell::CellDescription& d, bool utc) {
  return List(CellCliObjectType::kFlashCache, {.cell = &d, .utc = utc}, {.detail = true});
}

std::string RenderListCellDetail(const cell::CellDescription& d, CellDetailExtras extras = {}) {
  return List(CellCliObjectType::kCell, {.cell = &d, .extras = extras}, {.detail = true});
}

std::string RenderListMetricCurrent(const std::vector<cell::Metric>& metrics,
                                    std::string object_type = "") {
  const cell::CellDescription d = Cel01();
  CellCliList list;
  if (!object_type.empty()) list.filters.push_back({"objectType", CellCliFilter::Op::kEq, object_type});
  return List(CellCliObjectType::kMetricCurrent, {.cell = &d, .metrics = &metrics}, list);
}

TEST(CellCliTest, ListFlashCacheDetail) {
  const std::string id = FlashCacheId(Cel01());
  const std::string expected =
      "         name:                   cel01_FLASHCACHE\n"
      "         cellDisk:               FD_00_cel01\n"
      "         creationTime:           2015-01-20T03:33:37+00:00\n"
      "         degradedCelldisks:      \n"
      "         effectiveCacheSize:     364.5G\n"
      "         id:                     " + id + "\n"
      "         size:                   364.75G\n"
      "         status:                 normal\n";
  EXPECT_EQ(RenderListFlashCacheDetail(Cel01(), /*utc=*/true), expected);
}

TEST(CellCliTest, DegradedFlashCacheNamesItsDisk) {
  cell::CellDescription d = Cel01();
  d.flash_cache_status = "degraded";
  const std::string text = RenderListFlashCacheDetail(d, true);
  EXPECT_THAT(text, HasSubstr("         degradedCelldisks:      FD_00_cel01\n"));
  EXPECT_THAT(text, HasSubstr("         status:                 degraded\n"));
}

TEST(CellCliTest, FlashCacheIdIsStableAndUuidShaped) {
  const std::string a = FlashCacheId(Cel01());
  EXPECT_EQ(a, FlashCacheId(Cel01()));
  ASSERT_EQ(a.size(), 36u);
  for (size_t i : {8u, 13u, 18u, 23u}) EXPECT_EQ(a[i], '-');
  cell::CellDescription other = Cel01();
  other.name = "cel02";
  EXPECT_NE(FlashCacheId(other), a);
}

TEST(CellCliTest, ListCellDetail) {
  CellDetailExtras extras;
  extras.up_time = "0 days, 0:05";
  extras.more = {{"cpuCount", "2"}};
  const std::string text = RenderListCellDetail(Cel01(), extras);
  EXPECT_EQ(text.substr(0, text.find('\n') + 1), "         name:                   cel01\n");
  EXPECT_THAT(text, HasSubstr("         flashCacheMode:         WriteBack\n"));
  EXPECT_THAT(text, HasSubstr("         cellVersion:            OSS_CELLSIM_0.1.0\n"));
  EXPECT_THAT(text, HasSubstr("         cpuCount:               2\n"));
  EXPECT_THAT(text, HasSubstr("         status:                 online\n"));
  EXPECT_THAT(text, HasSubstr("         upTime:                 0 days, 0:05\n"));
  cell::CellDescription wt = Cel01();
  wt.flash_cache_mode = cell::FlashCacheMode::kWriteThrough;
  EXPECT_THAT(RenderListCellDetail(wt), HasSubstr("flashCacheMode:         WriteThrough\n"));
  EXPECT_THAT(RenderListCellDetail(wt), Not(HasSubstr("upTime")));
}

TEST(CellCliTest, ListGridDisk) {
  const cell::CellDescription d = Cel01();
  EXPECT_EQ(List(CellCliObjectType::kGridDisk, {.cell = &d}, {}),
            "         DATA_CD_00_cel01        active\n"
            "         RECO_CD_00_cel01        inactive\n");
}

// LIST PHYSICALDISK: a hard disk per cell disk (name, serial, status by
// default) and the flash device; each disk's serial is stable and differs
// from the others'.
TEST(CellCliTest, ListPhysicalDisk) {
  cell::CellDescription d = Cel01();
  d.grid_disks.push_back({"DATA_CD_01_cel01", "CD_01_cel01", 1 << 30, "not present"});
  const std::string rows = List(CellCliObjectType::kPhysicalDisk, {.cell = &d}, {});
  const std::vector<CellCliObject> disks = CellCliObjects(CellCliObjectType::kPhysicalDisk, {.cell = &d});
  ASSERT_EQ(disks.size(), 3u);
  const std::string id0 = *disks[0].Find("id"), id1 = *disks[1].Find("id"), id2 = *disks[2].Find("id");
  EXPECT_EQ(id0.size(), 6u);
  EXPECT_NE(id0, id1);
  EXPECT_NE(id1, id2);
  EXPECT_EQ(rows, fmt::format("         20:0            {}  normal\n"
                              "         20:1            {}  not present\n"
                              "         FLASH_1_0       {}  normal\n",
                              id0, id1, id2));
  EXPECT_EQ(List(CellCliObjectType::kPhysicalDisk, {.cell = &d},
                 {.filters = {{"diskType", CellCliFilter::Op::kEq, "flashdisk"}},
                  .attributes = {"name", "physicalSize", "slotNumber"}}),
            "         FLASH_1_0       364.75G PCI Slot: 1; FDOM: 0\n");
  EXPECT_THAT(List(CellCliObjectType::kPhysicalDisk, {.cell = &d}, {.detail = true}),
              HasSubstr("         physicalSize:           1.5G\n"));
  d.flash_cache_status = "lost";
  EXPECT_THAT(List(CellCliObjectType::kPhysicalDisk, {.cell = &d}, {}),
              HasSubstr("FLASH_1_0       " + id2 + "  not present\n"));
  EXPECT_EQ(CellCliObjectTypeNames(", "),
            "CELL, CELLDISK, FLASHCACHE, GRIDDISK, METRICCURRENT, PHYSICALDISK");
}

TEST(CellCliTest, ListPicksObjectsByNameOrFiltersAndShowsTheAttributesAsked) {
  const cell::CellDescription d = Cel01();
  const std::vector<GridDiskAsm> asm_disks = {
      {"DATA_CD_00_cel01", "DATA", "DATA_CD_00_CEL01", "CEL01", "ONLINE", false}};
  const CellCliInputs in{.cell = &d, .asm_disks = &asm_disks};
  using Op = CellCliFilter::Op;
  EXPECT_EQ(List(CellCliObjectType::kGridDisk, in,
                 {.filters = {{"name", Op::kEq, "reco_cd_00_CEL01"}},
                  .attributes = {"name", "size", "cachingPolicy"}}),
            "         RECO_CD_00_cel01        512M    default\n");
  // ASM's view: a disk in no disk group is UNUSED; the other holds the only
  // current copy of something, so it cannot be deactivated.
  EXPECT_EQ(List(CellCliObjectType::kGridDisk, in,
                 {.attributes = {"name", "asmModeStatus", "asmDeactivationOutcome"}}),
            "         DATA_CD_00_cel01        ONLINE  Cannot de-activate due to other offline "
            "disks in the diskgroup\n"
            "         RECO_CD_00_cel01        UNUSED  Yes\n");
  // DETAIL: one block per object, blank line between; the asked-only asm
  // attributes are left out unless named.
  const std::string detail = List(CellCliObjectType::kGridDisk, in, {.detail = true});
  EXPECT_THAT(detail, HasSubstr("         asmDiskGroupName:       DATA\n"));
  EXPECT_THAT(detail, HasSubstr("status:                 active\n\n         name:"));
  EXPECT_THAT(detail, Not(HasSubstr("asmModeStatus")));
  EXPECT_EQ(List(CellCliObjectType::kGridDisk, in,
                 {.filters = {{"size", Op::kGt, "600M"}}, .attributes = {"name"}, .detail = true}),
            "         name:                   DATA_CD_00_cel01\n");
  EXPECT_EQ(List(CellCliObjectType::kGridDisk, in,
                 {.filters = {{"name", Op::kLike, ".*_cd_00_.*"}, {"status", Op::kNe, "active"}}}),
            "         RECO_CD_00_cel01        inactive\n");
  // Numbers in metric values: "1,325,800,847 IO requests" > 1000.
  const std::vector<cell::Metric> metrics = {
      {"FC_IO_RQ_W", "FLASHCACHE", "FLASHCACHE", 1325800847, "IO requests"},
      {"FC_BY_DIRTY", "FLASHCACHE", "FLASHCACHE", 0, "MB"}};
  EXPECT_EQ(List(CellCliObjectType::kMetricCurrent, {.cell = &d, .metrics = &metrics},
                 {.filters = {{"metricValue", Op::kGt, "1000"}}, .attributes = {"name"}}),
            "         FC_IO_RQ_W\n");
  // Errors name the attribute or the value.
  absl::StatusOr<std::string> bad = RenderCellCliList(
      CellCliObjectType::kGridDisk, CellCliObjects(CellCliObjectType::kGridDisk, in),
      {.attributes = {"colour"}});
  EXPECT_THAT(bad.status().message(), HasSubstr("GRIDDISK has no attribute 'colour'"));
  bad = RenderCellCliList(CellCliObjectType::kGridDisk,
                          CellCliObjects(CellCliObjectType::kGridDisk, in),
                          {.filters = {{"size", Op::kGt, "big"}}});
  EXPECT_THAT(bad.status().message(), HasSubstr("'big' is not a number"));
}

TEST(CellCliTest, DescribeListsEveryAttributeTheObjectsCarry) {
  const cell::CellDescription d = Cel01();
  const std::vector<GridDiskAsm> none;
  const std::vector<cell::Metric> metrics = {{"FC_BY_DIRTY", "FLASHCACHE", "FLASHCACHE", 0, "MB"}};
  const CellCliInputs in{.cell = &d, .metrics = &metrics, .asm_disks = &none};
  for (CellCliObjectType t : kCellCliObjectTypes) {
    const std::string described = RenderCellCliDescribe(t);
    for (const CellCliObject& o : CellCliObjects(t, in)) {
      for (const auto& [name, value] : o.attributes) {
        EXPECT_TRUE(CellCliHasAttribute(t, name)) << CellCliObjectTypeName(t) << " " << name;
      }
    }
    EXPECT_THAT(described, ::testing::StartsWith("         name\n"));
  }
  EXPECT_THAT(RenderCellCliDescribe(CellCliObjectType::kGridDisk), Not(HasSubstr("asmModeStatus")));
}

TEST(CellCliTest, ListMetricCurrentFiltersSortsAndAligns) {
  const std::vector<cell::Metric> metrics = {
      {"FC_IO_RQ_W", "FLASHCACHE", "FLASHCACHE", 1325800847, "IO requests"},
      {"FC_BY_DIRTY", "FLASHCACHE", "FLASHCACHE", 38912, "MB"},
      {"CD_IO_RQ_W_LG", "CELLDISK", "CD_00_cel01", 4096, "IO requests"},
      {"FC_BY_USED", "FLASHCACHE", "FLASHCACHE", 17.4453, "MB"},
      {"FC_IO_BY_W", "FLASHCACHE", "FLASHCACHE", 0, "MB"},
  };
  EXPECT_EQ(RenderListMetricCurrent(metrics, "flashcache"),
            "         FC_BY_DIRTY     FLASHCACHE      38,912 MB\n"
            "         FC_BY_USED      FLASHCACHE      17.445 MB\n"
            "         FC_IO_BY_W      FLASHCACHE      0.000 MB\n"
            "         FC_IO_RQ_W      FLASHCACHE      1,325,800,847 IO requests\n");
  const std::string all = RenderListMetricCurrent(metrics);
  EXPECT_EQ(all.substr(0, all.find('\n') + 1),
            "         CD_IO_RQ_W_LG   CD_00_cel01     4,096 IO requests\n");
  EXPECT_EQ(RenderListMetricCurrent(metrics, "GRIDDISK"), "");
}

TEST(CellCliTest, Formats) {
  EXPECT_EQ(FormatCellCliSize(512ull << 20), "512M");
  EXPECT_EQ(FormatCellCliSize(391647330304ull), "364.75G");
  EXPECT_EQ(FormatCellCliSize(1ull << 40), "1T");
  EXPECT_EQ(FormatCellCliSize(1000), "1000");
  EXPECT_EQ(FormatMetricValue(373, "MB"), "373 MB");
  EXPECT_EQ(FormatMetricValue(5, "MB"), "5.000 MB");
  EXPECT_EQ(FormatMetricValue(0, "IO requests"), "0 IO requests");
  EXPECT_EQ(FormatMetricValue(12.5, "IO/sec"), "12.500 IO/sec");
  EXPECT_EQ(FormatMetricValue(1234567, ""), "1,234,567");
}

}  // namespace
}  // namespace cellsim::report
