#include "cellsim/report/mystats.h"

#include <string>
#include <vector>

#include "testing/test_util.h"

namespace cellsim::report {
namespace {

using stats::Stat;
using stats::Wait;
using ::testing::HasSubstr;
using ::testing::Not;

// The seed's session deltas (domain.md §4) for the size-derived rows and a few small ones.
MystatsInput SeedInput() {
  MystatsInput in;
  in.statistics[Stat::kCellPhysicalIoBytesSavedDuringOptimizedFileCreation] = 17179869184;
  in.statistics[Stat::kPhysicalWriteTotalBytes] = 17180197888;
  in.statistics[Stat::kPhysicalWriteTotalIoRequests] = 4126;
  in.statistics[Stat::kPhysicalWriteTotalMultiBlockRequests] = 4096;
  in.statistics[Stat::kCellWritesToFlashCache] = 30;
  in.statistics[Stat::kCellOverwritesInFlashCache] = 30;
  in.statistics[Stat::kCellFlashCacheReadHits] = 20;
  in.statistics[Stat::kCpuUsedByThisSession] = 37;
  in.waits[Wait::kCellSmartFileCreation] = {3258, 4'640'000'000, 130'000'000};
  in.interval_s = 5.12;
  in.cpu_s = 0.37;
  in.report_time_unix = 1438424372;  // 2015-08-01 10:19:32 UTC
  return in;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

TEST(MystatsTest, RowLayoutMatchesOriginal) {
  MystatsOptions o;
  o.compact = true;
  o.threshold = 4096;
  ASSERT_OK_AND_ASSIGN(std::string text, RenderMystats(SeedInput(), o));
  const std::vector<std::string> lines = Lines(text);
  ASSERT_EQ(lines.size(), 7u);
  // Header and rule exactly as mystats_pkg's sh(): 8 + 64 + 18 and 6/64/16 dashes.
  EXPECT_EQ(lines[0],
            "Type    Statistic Name                                                               "
            "Value");
  EXPECT_EQ(lines[1], "------  ----------------------------------------------------------------  "
                      "----------------");
  for (const std::string& l : lines) EXPECT_EQ(l.size(), 90u) << l;
  // rpad(type, 8) || rpad(name, 64) || lpad(to_char(v, '999,999,999,999'), 18)
  auto row = [](std::string type, std::string name, std::string value) {
    return type + std::string(8 - type.size(), ' ') + name + std::string(64 - name.size(), ' ') +
           std::string(18 - value.size(), ' ') + value;
  };
  EXPECT_EQ(lines[2], row("STAT", "physical write total multi block requests", "4,096"));
  EXPECT_EQ(lines[3], row("STAT", "physical write total IO requests", "4,126"));
  EXPECT_EQ(lines[4], row("TIME", "cell smart file creation time waited (us)", "4,640,000"));
  EXPECT_EQ(lines[5],
            row("STAT", "cell physical IO bytes saved during optimized file creation",
                "17,179,869,184"));
  EXPECT_EQ(lines[6], row("STAT", "physical write total bytes", "17,180,197,888"));
}

TEST(MystatsTest, SortedByAbsoluteDeltaThenName) {
  MystatsInput in;
  in.statistics[Stat::kRedoSize] = -500;
  in.statistics[Stat::kUserCalls] = 100;
  in.statistics[Stat::kExecuteCount] = 7;
  in.statistics[Stat::kCpuUsedByThisSession] = 7;  // same |delta|: "CPU..." < "execute..." bytewise
  MystatsOptions o;
  o.threshold = 1;
  o.include_time = false;
  ASSERT_OK_AND_ASSIGN(std::vector<MystatsRow> rows, MystatsRows(in, o));
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0], (MystatsRow{"STAT", "CPU used by this session", 7}));
  EXPECT_EQ(rows[1], (MystatsRow{"STAT", "execute count", 7}));
  EXPECT_EQ(rows[2], (MystatsRow{"STAT", "user calls", 100}));
  EXPECT_EQ(rows[3], (MystatsRow{"STAT", "redo size", -500}));
}

TEST(MystatsTest, NoThresholdListsEveryStatistic) {
  MystatsOptions o;
  o.include_time = false;
  ASSERT_OK_AND_ASSIGN(std::vector<MystatsRow> rows, MystatsRows(SeedInput(), o));
  EXPECT_EQ(rows.size(), stats::kStatCount);
  EXPECT_EQ(rows.front().value, 0);
}

TEST(MystatsTest, Threshold) {
  MystatsOptions o;
  o.threshold = 30;
  o.include_time = false;
  ASSERT_OK_AND_ASSIGN(std::vector<MystatsRow> rows, MystatsRows(SeedInput(), o));
  ASSERT_EQ(rows.size(), 7u);  // 30, 30, 37, 4096, 4126, 16 GiB, 16 GiB + small
  EXPECT_EQ(rows[0].name, "cell overwrites in flash cache");
  EXPECT_EQ(rows[1].name, "cell writes to flash cache");
  for (const MystatsRow& r : rows) EXPECT_GE(r.value, 30);
}

TEST(MystatsTest, LikeNotLikeAndRegexpFilters) {
  MystatsInput in = SeedInput();
  MystatsOptions o;
  o.include_time = false;
  o.like = "flash cache";
  ASSERT_OK_AND_ASSIGN(std::vector<MystatsRow> like, MystatsRows(in, o));
  for (const MystatsRow& r : like) EXPECT_THAT(r.name, HasSubstr("flash cache"));
  EXPECT_EQ(like.size(), 4u);  // writes, overwrites, partial writes, read hits

  o.not_like = "over%";
  ASSERT_OK_AND_ASSIGN(std::vector<MystatsRow> both, MystatsRows(in, o));
  EXPECT_EQ(both.size(), 3u);
  for (const MystatsRow& r : both) EXPECT_THAT(r.name, Not(HasSubstr("overwrites")));

  MystatsOptions r;
  r.include_time = false;
  r.regexp = "^PHYSICAL WRITE TOTAL (BYTES|IO)";  // case-insensitive, as the original
  ASSERT_OK_AND_ASSIGN(std::vector<MystatsRow> re, MystatsRows(in, r));
  ASSERT_EQ(re.size(), 3u);
  EXPECT_EQ(re[0].name, "physical write total bytes optimized");
  EXPECT_EQ(re[1].name, "physical write total IO requests");
  EXPECT_EQ(re[2].name, "physical write total bytes");
}

TEST(MystatsTest, TimeRows) {
  MystatsOptions o;
  o.include_statistics = false;
  ASSERT_OK_AND_ASSIGN(std::vector<MystatsRow> rows, MystatsRows(SeedInput(), o));
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0], (MystatsRow{"TIME", "elapsed time", 512}));
  EXPECT_EQ(rows[1], (MystatsRow{"TIME", "cell smart file creation time waited (us)", 4640000}));
}

TEST(MystatsTest, FullReportSections) {
  MystatsOptions o;
  o.utc = true;
  o.threshold = 1000;
  ASSERT_OK_AND_ASSIGN(std::string text, RenderMystats(SeedInput(), o));
  const std::vector<std::string> lines = Lines(text);
  ASSERT_GE(lines.size(), 5u);
  EXPECT_EQ(lines[0], "");
  EXPECT_EQ(lines[1], std::string(90, '='));
  EXPECT_EQ(lines[2], "MyStats report : 01-AUG-2015 10:19:32");
  EXPECT_THAT(text, HasSubstr("\n\n\n" + std::string(90, '-') + "\n1. Summary Timings\n"));
  EXPECT_THAT(text, HasSubstr("\nTIMER   snapshot interval (seconds)" + std::string(37, ' ') +
                              std::string(14, ' ') + "5.12\n"));
  EXPECT_THAT(text, HasSubstr("\nTIMER   CPU time used (seconds)" + std::string(41, ' ') +
                              std::string(14, ' ') + "0.37\n"));
  EXPECT_THAT(text, HasSubstr("2. Statistics Report"));
  EXPECT_THAT(text, HasSubstr("- Reporting filter : threshold=1000\n"));
  EXPECT_THAT(text, HasSubstr("- Statistics types : statistics=Y, latches=N, time model=Y\n"));
  EXPECT_THAT(text, HasSubstr("TIME    cell smart file creation time waited (us)"));
  EXPECT_THAT(text, Not(HasSubstr("cell flash cache read hits")));  // 20 < 1000
  EXPECT_EQ(lines[lines.size() - 2], "End of report");
  EXPECT_EQ(lines.back(), std::string(90, '='));
}

TEST(MystatsTest, NumberFormat) {
  MystatsInput in;
  in.statistics[Stat::kRedoSize] = -1234567;
  in.statistics[Stat::kUserCalls] = 1'000'000'000'000'000;  // 16 digits: does not fit
  MystatsOptions o;
  o.compact = true;
  o.threshold = 1;
  o.include_time = false;
  ASSERT_OK_AND_ASSIGN(std::string text, RenderMystats(in, o));
  EXPECT_THAT(text, HasSubstr("redo size" + std::string(55, ' ') + "        -1,234,567\n"));
  EXPECT_THAT(text, HasSubstr("user calls" + std::string(54, ' ') + "  ################\n"));
}

TEST(MystatsTest, ParseOptions) {
  ASSERT_OK_AND_ASSIGN(MystatsOptions o,
                       ParseMystatsOptions("t=1000 l='flash cache' n=over r=^cell"));
  EXPECT_EQ(o.threshold, 1000);
  EXPECT_EQ(o.like, "flash cache");
  EXPECT_EQ(o.not_like, "over");
  EXPECT_EQ(o.regexp, "^cell");
  ASSERT_OK_AND_ASSIGN(MystatsOptions empty, ParseMystatsOptions("   "));
  EXPECT_FALSE(empty.threshold.has_value());
  EXPECT_THAT(std::string(ParseMystatsOptions("t=abc").status().message()),
              HasSubstr("not an integer"));
  EXPECT_THAT(std::string(ParseMystatsOptions("x=1").status().message()),
              HasSubstr("unknown mystats option 'x'"));
  EXPECT_THAT(std::string(ParseMystatsOptions("t").status().message()), HasSubstr("no value"));
  EXPECT_THAT(std::string(ParseMystatsOptions("r=(").status().message()), HasSubstr("invalid"));
  EXPECT_THAT(std::string(ParseMystatsOptions("l='abc").status().message()),
              HasSubstr("unterminated"));
  MystatsOptions bad;
  bad.regexp = "[";
  EXPECT_FALSE(MystatsRows(SeedInput(), bad).ok());
}

TEST(MystatsTest, SqlLike) {
  EXPECT_TRUE(SqlLike("physical write total bytes", "%write%"));
  EXPECT_TRUE(SqlLike("physical write total bytes", "physical%bytes"));
  EXPECT_TRUE(SqlLike("redo size", "redo_size"));
  EXPECT_FALSE(SqlLike("redo size", "redo_"));
  EXPECT_FALSE(SqlLike("Redo size", "redo%"));  // LIKE is case-sensitive
  EXPECT_TRUE(SqlLike("", "%"));
  // A '%' of the pattern is the wildcard also where the text holds a '%'
  // (it matched it literally, and "%x" was not LIKE '%').
  EXPECT_TRUE(SqlLike("%x", "%"));
  EXPECT_TRUE(SqlLike("a%b%c", "a%c"));
  EXPECT_TRUE(SqlLike("abcabd", "%ab_"));
}

}  // namespace
}  // namespace cellsim::report
