#include "cellsim/report/demo_table.h"

#include <string>

#include "testing/test_util.h"

namespace cellsim::report {
namespace {

using stats::Stat;
using stats::Wait;
using ::testing::HasSubstr;
using ::testing::Not;

DemoResult Demo() {
  DemoResult d;
  d.size_bytes = 4 * 1024ull * 1024 * 1024;
  for (const char* path : {"zero-fill", "smart", "fast"}) {
    StatementSummary r;
    r.statement = "alter database add logfile thread 2 group 5 ('+DATA','+RECO') size 4096m";
    r.path = path;
    r.statistics[Stat::kPhysicalWriteTotalBytes] = 17180197888;
    d.paths.push_back(r);
  }
  d.paths[0].elapsed_s = 36.0;
  d.paths[1].elapsed_s = 12.0;
  d.paths[2].elapsed_s = 0.03;
  d.paths[1].statistics[Stat::kCellPhysicalIoBytesSavedDuringOptimizedFileCreation] = 17179869184;
  d.paths[2].statistics[Stat::kCellPhysicalIoBytesSavedDuringOptimizedFileCreation] = 17179869184;
  // WaitValue is {count, total_ns, max_ns}.
  d.paths[0].waits[Wait::kLogFileInitWrite] = {4096, 30'250'000'000, 50'000'000};
  d.paths[2].waits[Wait::kCellSmartFileCreation] = {3258, 4'640'000'000, 130'000'000};
  return d;
}

TEST(DemoTableTest, LayoutFitsATerminalAndLinesUp) {
  const std::string text = RenderDemoTable(Demo());
  size_t start = 0;
  while (start < text.size()) {
    const size_t end = text.find('\n', start);
    EXPECT_LE(end - start, 120u) << text.substr(start, end - start);
    start = end + 1;
  }
  // Name column 59, then " " + 18 per path.
  EXPECT_THAT(text, HasSubstr("Statistic" + std::string(50, ' ') + " " + std::string(9, ' ') +
                              "zero-fill " + std::string(13, ' ') + "smart " +
                              std::string(14, ' ') + "fast\n"));
  EXPECT_THAT(text, HasSubstr(std::string(59, '-') + " " + std::string(18, '-') + " " +
                              std::string(18, '-') + " " + std::string(18, '-') + "\n"));
  EXPECT_THAT(text, HasSubstr("cell physical IO bytes saved during optimized file creation " +
                              std::string(17, ' ') + "0 " + std::string(4, ' ') +
                              "17,179,869,184 " + std::string(4, ' ') + "17,179,869,184\n"));
}

TEST(DemoTableTest, TimingsSpeedupAndWaits) {
  const std::string text = RenderDemoTable(Demo());
  EXPECT_THAT(text, HasSubstr("member size 4 GiB (4,294,967,296 bytes)"));
  EXPECT_THAT(text, HasSubstr("elapsed (s)"));
  EXPECT_THAT(text, HasSubstr("36.00"));
  EXPECT_THAT(text, HasSubstr("0.03\n"));
  EXPECT_THAT(text, HasSubstr("speed-up vs zero-fill"));
  EXPECT_THAT(text, HasSubstr("3.0x"));
  EXPECT_THAT(text, HasSubstr("1200.0x\n"));
  EXPECT_THAT(text, HasSubstr("Log file init write"));
  EXPECT_THAT(text, HasSubstr("4,096 / 30.25"));
  EXPECT_THAT(text, HasSubstr("3,258 / 4.64\n"));
  // Statistics that are zero on every path are left out.
  EXPECT_THAT(text, Not(HasSubstr("redo size")));
  EXPECT_THAT(text, Not(HasSubstr("control file parallel write")));
}

}  // namespace
}  // namespace cellsim::report
