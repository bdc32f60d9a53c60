#include "cellsim/stats/statistics.h"

#include <set>
#include <string>
#include <thread>

#include "testing/test_util.h"

namespace cellsim::stats {
namespace {

TEST(StatisticsTest, NamesAreUniqueAndExact) {
  std::set<std::string_view> names;
  for (const auto& info : kStatTable) EXPECT_TRUE(names.insert(info.name).second) << info.name;
  EXPECT_EQ(StatName(Stat::kCellPhysicalIoBytesSavedDuringOptimizedFileCreation),
            "cell physical IO bytes saved during optimized file creation");
  EXPECT_EQ(StatName(Stat::kPhysicalWriteTotalMultiBlockRequests),
            "physical write total multi block requests");
  EXPECT_EQ(*StatByName("cell flash cache read hits"), Stat::kCellFlashCacheReadHits);
  EXPECT_FALSE(StatByName("no such statistic").has_value());
  std::set<std::string_view> waits;
  for (const auto& info : kWaitTable) EXPECT_TRUE(waits.insert(info.name).second) << info.name;
  EXPECT_EQ(WaitName(Wait::kCellSmartFileCreation), "cell smart file creation");
  EXPECT_EQ(*WaitByName("Log file init write"), Wait::kLogFileInitWrite);
}

TEST(StatisticsTest, DeltasAndSums) {
  StatSet s;
  s.Add(Stat::kPhysicalWriteTotalBytes, 100);
  StatValues before = s.Snapshot();
  s.Add(Stat::kPhysicalWriteTotalBytes, 50);
  s.Add(Stat::kPhysicalWriteTotalIoRequests, 1);
  StatValues d = s.Snapshot() - before;
  EXPECT_EQ(d[Stat::kPhysicalWriteTotalBytes], 50);
  EXPECT_EQ(d[Stat::kPhysicalWriteTotalIoRequests], 1);
  StatSet total;
  total.AddAll(d);
  total.AddAll(d);
  EXPECT_EQ(total.Get(Stat::kPhysicalWriteTotalBytes), 100);
}

TEST(StatisticsTest, WaitsKeepCountTotalAndMax) {
  WaitSet w;
  w.Record(Wait::kCellSmartFileCreation, 10);
  w.Record(Wait::kCellSmartFileCreation, 30);
  WaitValues v = w.Snapshot();
  EXPECT_EQ(v[Wait::kCellSmartFileCreation].count, 2);
  EXPECT_EQ(v[Wait::kCellSmartFileCreation].total_ns, 40u);
  EXPECT_EQ(v[Wait::kCellSmartFileCreation].max_ns, 30u);
  WaitValues none = v - v;
  EXPECT_EQ(none[Wait::kCellSmartFileCreation].count, 0);
  EXPECT_EQ(none[Wait::kCellSmartFileCreation].max_ns, 0u);
}

TEST(StatisticsTest, ConcurrentRecordingIsExact) {
  StatSet s;
  WaitSet w;
  auto work = [&] {
    for (int i = 0; i < 10000; ++i) {
      s.Add(Stat::kUserCalls, 1);
      w.Record(Wait::kLogFileSync, static_cast<uint64_t>(i));
    }
  };
  std::thread a(work), b(work);
  a.join();
  b.join();
  EXPECT_EQ(s.Get(Stat::kUserCalls), 20000);
  EXPECT_EQ(w.Snapshot()[Wait::kLogFileSync].count, 20000);
  EXPECT_EQ(w.Snapshot()[Wait::kLogFileSync].max_ns, 9999u);
}

}  // namespace
}  // namespace cellsim::stats
