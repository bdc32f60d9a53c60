#include "cellsim/report/cellcli.h"

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
  EXPECT_EQ(RenderListGridDisk(Cel01()),
            "         DATA_CD_00_cel01        active\n"
            "         RECO_CD_00_cel01        inactive\n");
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
