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

TEST(WaitHistogramTest, BucketsArePowersOfTwoMicroseconds) {
  EXPECT_EQ(WaitHistogramBucket(0), 0u);
  EXPECT_EQ(WaitHistogramBucket(999), 0u);          // < 1 us
  EXPECT_EQ(WaitHistogramBucket(1000), 1u);         // [1, 2) us
  EXPECT_EQ(WaitHistogramBucket(1999), 1u);
  EXPECT_EQ(WaitHistogramBucket(2000), 2u);         // [2, 4) us
  EXPECT_EQ(WaitHistogramBucket(3999), 2u);
  EXPECT_EQ(WaitHistogramBucket(4000), 3u);
  EXPECT_EQ(WaitHistogramBucket(1'200'000), 11u);   // 1200 us in [1024, 2048)
  EXPECT_EQ(WaitHistogramBucket((uint64_t{1} << 33) * 1000), 34u);
  EXPECT_EQ(WaitHistogramBucket((uint64_t{1} << 34) * 1000), kWaitHistogramBuckets - 1);
  EXPECT_EQ(WaitHistogramBucket(UINT64_MAX), kWaitHistogramBuckets - 1);
  EXPECT_EQ(WaitHistogramUpperUs(0), 1u);
  EXPECT_EQ(WaitHistogramUpperUs(11), 2048u);
  EXPECT_EQ(WaitHistogramUpperUs(kWaitHistogramBuckets - 1), UINT64_MAX);
  // Every bucket's upper edge is the next bucket's first value.
  for (size_t b = 0; b + 1 < kWaitHistogramBuckets; ++b) {
    EXPECT_EQ(WaitHistogramBucket(WaitHistogramUpperUs(b) * 1000), b + 1) << b;
    EXPECT_EQ(WaitHistogramBucket(WaitHistogramUpperUs(b) * 1000 - 1), b) << b;
  }
}

TEST(WaitHistogramTest, RecordFillsTheHistogram) {
  WaitSet w;
  w.Record(Wait::kLogFileInitWrite, 500);        // bucket 0
  w.Record(Wait::kLogFileInitWrite, 10'000);     // 10 us: bucket 4 [8, 16)
  w.Record(Wait::kLogFileInitWrite, 12'000);     // bucket 4
  w.Record(Wait::kLogFileInitWrite, 5'000'000);  // 5 ms: bucket 13 [4096, 8192)
  const WaitValue v = w.Snapshot()[Wait::kLogFileInitWrite];
  EXPECT_EQ(v.count, 4);
  EXPECT_EQ(v.histogram[0], 1);
  EXPECT_EQ(v.histogram[4], 2);
  EXPECT_EQ(v.histogram[13], 1);
  int64_t sum = 0;
  for (int64_t n : v.histogram) sum += n;
  EXPECT_EQ(sum, v.count);
  // Other events are untouched.
  const WaitValues all = w.Snapshot();
  for (int64_t n : all[Wait::kLogFileSync].histogram) EXPECT_EQ(n, 0);
}

TEST(WaitHistogramTest, PercentileIsTheBucketEdgeCappedByMax) {
  WaitSet w;
  for (int i = 0; i < 99; ++i) w.Record(Wait::kCellSmartFileCreation, 10'000);  // 10 us
  w.Record(Wait::kCellSmartFileCreation, 5'000'000);                            // 5 ms
  const WaitValue v = w.Snapshot()[Wait::kCellSmartFileCreation];
  EXPECT_EQ(WaitPercentileNs(v, 0.50), 16'000u);  // "< 16 us"
  EXPECT_EQ(WaitPercentileNs(v, 0.99), 16'000u);  // the 99th of 100 is still 10 us
  EXPECT_EQ(WaitPercentileNs(v, 0.995), 5'000'000u);  // edge 8192 us, capped at max 5 ms
  EXPECT_EQ(WaitPercentileNs(v, 1.0), 5'000'000u);
  EXPECT_EQ(WaitPercentileNs(v, 7.0), 5'000'000u);  // clamped to 1
  EXPECT_EQ(WaitPercentileNs(v, 0.0), 16'000u);     // clamped to the first wait
  EXPECT_EQ(WaitPercentileNs(v, -1.0), 16'000u);
  // One wait: the cap makes p50 exact.
  WaitSet one;
  one.Record(Wait::kLogFileSync, 10'000);
  EXPECT_EQ(WaitPercentileNs(one.Snapshot()[Wait::kLogFileSync], 0.5), 10'000u);
  // No waits (or a value without a histogram, as read back from JSON): 0.
  EXPECT_EQ(WaitPercentileNs(WaitValue{}, 0.5), 0u);
  WaitValue from_report;
  from_report.count = 3;
  from_report.max_ns = 7;
  EXPECT_EQ(WaitPercentileNs(from_report, 0.5), 0u);
}

TEST(WaitHistogramTest, DeltasAndSumsIncludeTheHistogram) {
  WaitSet session;
  session.Record(Wait::kLogFileInitWrite, 3'000);  // bucket 2
  const WaitValues before = session.Snapshot();
  session.Record(Wait::kLogFileInitWrite, 3'500);    // bucket 2
  session.Record(Wait::kLogFileInitWrite, 100'000);  // bucket 7 [64, 128)
  const WaitValues delta = session.Snapshot() - before;
  EXPECT_EQ(delta[Wait::kLogFileInitWrite].count, 2);
  EXPECT_EQ(delta[Wait::kLogFileInitWrite].histogram[2], 1);
  EXPECT_EQ(delta[Wait::kLogFileInitWrite].histogram[7], 1);
  EXPECT_EQ(WaitPercentileNs(delta[Wait::kLogFileInitWrite], 0.5), 4'000u);
  const WaitValues none = before - before;
  for (int64_t n : none[Wait::kLogFileInitWrite].histogram) EXPECT_EQ(n, 0);

  // The instance (v$system_event) is the sum of its sessions, histograms too.
  WaitSet system;
  system.AddAll(delta);
  system.AddAll(delta);
  const WaitValue sys = system.Snapshot()[Wait::kLogFileInitWrite];
  EXPECT_EQ(sys.count, 4);
  EXPECT_EQ(sys.histogram[2], 2);
  EXPECT_EQ(sys.histogram[7], 2);
  WaitValues sum = delta;
  sum += delta;
  EXPECT_EQ(sum[Wait::kLogFileInitWrite].histogram, sys.histogram);
  EXPECT_EQ(sum[Wait::kLogFileInitWrite].max_ns, 100'000u);
}

// Issue 11: `--report json` printed a statement's max_s above its total_s
// when an earlier statement of the session had waited longer.
TEST(WaitHistogramTest, DeltaMaxNeverExceedsTheDeltaTotal) {
  WaitSet session;
  session.Record(Wait::kLogFileInitWrite, 900'000'000);  // statement 1: one long wait
  const WaitValues before = session.Snapshot();
  session.Record(Wait::kLogFileInitWrite, 3'000'000);    // statement 2: two short ones
  session.Record(Wait::kLogFileInitWrite, 5'000'000);
  const WaitValue two = (session.Snapshot() - before)[Wait::kLogFileInitWrite];
  EXPECT_EQ(two.total_ns, 8'000'000u);
  EXPECT_LE(two.max_ns, two.total_ns);
  EXPECT_LE(two.max_ns, 8'192'000u);  // the upper edge of bucket [4096, 8192) us
  EXPECT_GE(two.max_ns, 5'000'000u);  // never below the true max
  const WaitValues mid = session.Snapshot();
  session.Record(Wait::kLogFileInitWrite, 7'000);  // statement 3: a single wait
  const WaitValue one = (session.Snapshot() - mid)[Wait::kLogFileInitWrite];
  EXPECT_EQ(one.max_ns, 7'000u);  // exact
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
  // Every i < 10000 ns is under 10 us: buckets 0..4, summing to the count.
  const WaitValue v = w.Snapshot()[Wait::kLogFileSync];
  EXPECT_EQ(v.histogram[0], 2 * 1000);  // 0..999 ns
  EXPECT_EQ(v.histogram[1], 2 * 1000);  // 1000..1999 ns
  int64_t sum = 0;
  for (int64_t n : v.histogram) sum += n;
  EXPECT_EQ(sum, 20000);
}

TEST(WaitHistoryTest, KeepsTheLastTenNewestFirst) {
  WaitHistory h;
  EXPECT_TRUE(h.Last().empty());
  // Wait i lasts 100 + i ns and ends at 1000 * i: 1000 - 101 ns pass between
  // the end of one and the start of the next.
  for (uint64_t i = 1; i <= 25; ++i) {
    h.Record(i % 2 ? Wait::kCellSmartFileCreation : Wait::kControlFileParallelWrite,
             {i, 2 * i, 3 * i}, 100 + i, 1000 * i);
  }
  const std::vector<WaitEvent> last = h.Last();
  ASSERT_EQ(last.size(), WaitHistory::kCapacity);
  for (size_t k = 0; k < last.size(); ++k) {
    const uint64_t i = 25 - k;  // newest first
    EXPECT_EQ(last[k].seq, i);
    EXPECT_EQ(last[k].event, i % 2 ? Wait::kCellSmartFileCreation : Wait::kControlFileParallelWrite);
    EXPECT_EQ(last[k].params.p1, i);
    EXPECT_EQ(last[k].params.p2, 2 * i);
    EXPECT_EQ(last[k].params.p3, 3 * i);
    EXPECT_EQ(last[k].ns, 100 + i);
    EXPECT_EQ(last[k].end_ns, 1000 * i);
    EXPECT_EQ(last[k].since_last_ns, 1000 - 100 - i);
  }
  WaitHistory first;
  first.Record(Wait::kLogFileSync, {}, 5, 50);
  EXPECT_EQ(first.Last()[0].since_last_ns, 0u);  // no wait before it
  EXPECT_EQ(first.Last()[0].seq, 1u);
}

TEST(WaitHistoryTest, CaptureKeepsEveryWaitOfTheCallOnlyWhenAsked) {
  WaitHistory h;
  h.ResetCapture(false);
  h.Record(Wait::kLogFileSync, {1, 2, 0}, 10, 100);
  EXPECT_TRUE(h.TakeCapture().empty());
  h.ResetCapture(true);
  for (uint64_t i = 0; i < 30; ++i) h.Record(Wait::kCellSmartFileCreation, {i, 0, 0}, i, 200 + i);
  const std::vector<WaitEvent> call = h.TakeCapture();
  ASSERT_EQ(call.size(), 30u);  // more than the ring keeps
  for (uint64_t i = 0; i < 30; ++i) {
    EXPECT_EQ(call[i].params.p1, i);
    EXPECT_EQ(call[i].seq, i + 2);
  }
  h.Record(Wait::kLogFileSync, {}, 1, 300);  // TakeCapture stopped the capture
  EXPECT_TRUE(h.TakeCapture().empty());
}

// RecordAll (a fast creation's thousands of creation waits at once) leaves
// the wait sets, the history ring and a capture exactly as Record of each
// wait in order would.
TEST(WaitHistoryTest, RecordAllEqualsRecordOfEach) {
  std::vector<EndedWait> waits;
  for (uint64_t i = 0; i < 40; ++i) {
    waits.push_back({.ns = (i * 7919) % 5000 + i, .end_ns = 10000 + 600 * i, .params = {i, 1, 2}});
  }
  WaitSet one, all;
  WaitHistory h_one, h_all;
  h_one.ResetCapture(true);
  h_all.ResetCapture(true);
  one.Record(Wait::kLogFileSync, 3);  // earlier waits stay as they were
  all.Record(Wait::kLogFileSync, 3);
  h_one.Record(Wait::kLogFileSync, {}, 3, 9000);
  h_all.Record(Wait::kLogFileSync, {}, 3, 9000);
  for (const EndedWait& w : waits) {
    one.Record(Wait::kCellSmartFileCreation, w.ns);
    h_one.Record(Wait::kCellSmartFileCreation, w.params, w.ns, w.end_ns);
  }
  all.RecordAll(Wait::kCellSmartFileCreation, waits);
  h_all.RecordAll(Wait::kCellSmartFileCreation, waits);
  all.RecordAll(Wait::kCellSmartFileCreation, {});
  for (Wait w : {Wait::kLogFileSync, Wait::kCellSmartFileCreation}) {
    const WaitValue a = one.Snapshot()[w], b = all.Snapshot()[w];
    EXPECT_EQ(a.count, b.count);
    EXPECT_EQ(a.total_ns, b.total_ns);
    EXPECT_EQ(a.max_ns, b.max_ns);
    EXPECT_EQ(a.histogram, b.histogram);
  }
  auto same = [](const std::vector<WaitEvent>& x, const std::vector<WaitEvent>& y) {
    ASSERT_EQ(x.size(), y.size());
    for (size_t k = 0; k < x.size(); ++k) {
      EXPECT_EQ(x[k].event, y[k].event);
      EXPECT_EQ(x[k].params.p1, y[k].params.p1);
      EXPECT_EQ(x[k].ns, y[k].ns);
      EXPECT_EQ(x[k].end_ns, y[k].end_ns);
      EXPECT_EQ(x[k].since_last_ns, y[k].since_last_ns);
      EXPECT_EQ(x[k].seq, y[k].seq);
    }
  };
  same(h_one.Last(), h_all.Last());
  same(h_one.TakeCapture(), h_all.TakeCapture());
}

TEST(WaitHistoryTest, ParameterNamesAsTheTracePrintsThem) {
  EXPECT_EQ(WaitParamTraceName(Wait::kCellSmartFileCreation, 1), "cellhash#");
  EXPECT_EQ(WaitParamTraceName(Wait::kCellSmartFileCreation, 2), "p2");
  EXPECT_EQ(WaitParamTraceName(Wait::kCellSmartFileCreation, 3), "p3");
  EXPECT_EQ(WaitParamTraceName(Wait::kControlFileParallelWrite, 2), "block#");
  EXPECT_EQ(WaitParamTraceName(Wait::kKsvMasterWait, 1), "p1");
}

TEST(WaitHistoryTest, ConcurrentReadersSeeWholeWaits) {
  WaitHistory h;
  std::thread writer([&] {
    for (uint64_t i = 1; i <= 20000; ++i) h.Record(Wait::kLogFileSync, {i, i, i}, i, 2 * i);
  });
  for (int n = 0; n < 2000; ++n) {
    for (const WaitEvent& e : h.Last()) {
      EXPECT_EQ(e.params.p1, e.seq);
      EXPECT_EQ(e.params.p3, e.ns);
    }
  }
  writer.join();
  EXPECT_EQ(h.Last()[0].seq, 20000u);
}

}  // namespace
}  // namespace cellsim::stats
