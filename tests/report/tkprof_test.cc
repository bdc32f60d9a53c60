#include "cellsim/report/tkprof.h"

#include <string>

#include "testing/test_util.h"

namespace cellsim::report {
namespace {

using stats::Wait;
using ::testing::HasSubstr;
using ::testing::Not;

// The seed's trace (domain.md §4): Execute cpu 0.37 s, elapsed 5.09 s, current 2.
StatementSummary SeedResult() {
  StatementSummary r;
  r.statement = "alter database add logfile thread 2 group 5 ('+DATA','+RECO') size 4096m";
  r.path = "fast";
  r.elapsed_s = 5.09;
  r.cpu_s = 0.37;
  r.waits[Wait::kCellSmartFileCreation] = {3258, 4'640'000'000, 130'000'000};
  r.waits[Wait::kControlFileSequentialRead] = {23, 10'000'000, 1'000'000};
  r.waits[Wait::kLogFileSync] = {1, 1'000'000, 1'000'000};
  return r;
}

TEST(TkprofTest, SeedStatementLayout) {
  TkprofStatement t = TkprofFromResult(SeedResult());
  t.execute.current = 2;
  // The seed's SQL ID line: Oracle's SQL_ID of the statement's text, which
  // db::SqlIdOf computes (docs/sql.md "Cursors").
  const std::string expected =
      "SQL ID: fvt6psf2t3cdz Plan Hash: 0\n"
      "\n"
      "alter database add logfile thread 2 group 5 ('+DATA','+RECO') size 4096m\n"
      "\n"
      "\n"
      "call     count       cpu    elapsed       disk      query    current        rows\n"
      "------- ------  -------- ---------- ---------- ---------- ----------  ----------\n"
      "Parse        1      0.00       0.00          0          0          0           0\n"
      "Execute      1      0.37       5.09          0          0          2           0\n"
      "Fetch        0      0.00       0.00          0          0          0           0\n"
      "------- ------  -------- ---------- ---------- ---------- ----------  ----------\n"
      "total        2      0.37       5.09          0          0          2           0\n"
      "\n"
      "Misses in library cache during parse: 1\n"
      "Optimizer mode: ALL_ROWS\n"
      "Parsing user id: SYS\n"
      "\n"
      "Elapsed times include waiting on following events:\n"
      "  Event waited on                             Times   Max. Wait  Total Waited\n"
      "  ----------------------------------------   Waited  ----------  ------------\n"
      "  cell smart file creation                     3258        0.13          4.64\n"
      "  control file sequential read                   23        0.00          0.01\n"
      "  log file sync                                   1        0.00          0.00\n"
      "********************************************************************************\n";
  EXPECT_EQ(RenderTkprofStatement(t), expected);
}

TEST(TkprofTest, TotalsSumTheCalls) {
  TkprofStatement t;
  t.sql_id = "8u3ys4mrq2q2x";
  t.sql_text = "select 1 from dual";
  t.parse = {1, 0.01, 0.02, 0, 0, 0, 0};
  t.execute = {1, 0.00, 0.00, 0, 0, 0, 0};
  t.fetch = {2, 0.10, 1.25, 182, 998, 0, 1};
  t.misses_during_execute = 1;
  const std::string text = RenderTkprofStatement(t);
  EXPECT_THAT(text, HasSubstr("SQL ID: 8u3ys4mrq2q2x Plan Hash: 0\n\nselect 1 from dual\n"));
  EXPECT_THAT(text, HasSubstr(
      "total        4      0.11       1.27        182        998          0           1\n"));
  EXPECT_THAT(text, HasSubstr("Misses in library cache during execute: 1\n"));
  // No waits: no events section, as tkprof.
  EXPECT_THAT(text, Not(HasSubstr("Elapsed times include")));
}

TEST(TkprofTest, LongNumbersAndNamesWidenColumns) {
  TkprofStatement t;
  t.sql_text = "x";
  t.execute = {12345678, 123456.78, 1234567.891, 0, 0, 0, 12345678901};
  t.waits.push_back({"an event name that is longer than forty characters", 123456789, 1.5, 2.25});
  const std::string text = RenderTkprofStatement(t);
  EXPECT_THAT(text, HasSubstr("Execute 12345678  123456.78 1234567.89"));
  EXPECT_THAT(text, HasSubstr("  12345678901\n"));
  EXPECT_THAT(text, HasSubstr("  an event name that is longer than forty characters 123456789"
                              "        1.50          2.25\n"));
}

TEST(TkprofTest, FromResultKeepsOnlyEventsWaitedOn) {
  const TkprofStatement t = TkprofFromResult(SeedResult());
  ASSERT_EQ(t.waits.size(), 3u);
  EXPECT_EQ(t.waits[0].event, "cell smart file creation");
  EXPECT_EQ(t.waits[0].times_waited, 3258);
  EXPECT_DOUBLE_EQ(t.waits[0].total_waited_s, 4.64);
  EXPECT_DOUBLE_EQ(t.waits[0].max_wait_s, 0.13);
  EXPECT_EQ(t.parse.count, 1);
  EXPECT_EQ(t.execute.count, 1);
  EXPECT_EQ(t.fetch.count, 0);
  EXPECT_DOUBLE_EQ(t.execute.elapsed_s, 5.09);
}

TEST(TkprofTest, LegendAndSeparators) {
  const std::vector<TkprofStatement> two = {TkprofFromResult(SeedResult()),
                                            TkprofFromResult(SeedResult())};
  const std::string with = RenderTkprof(two);
  EXPECT_THAT(with, HasSubstr("count    = number of times OCI procedure was executed\n"));
  EXPECT_THAT(with, HasSubstr("rows     = number of rows processed by the fetch or execute call\n"));
  size_t stars = 0;
  for (size_t p = with.find(std::string(80, '*')); p != std::string::npos;
       p = with.find(std::string(80, '*'), p + 1)) {
    ++stars;
  }
  EXPECT_EQ(stars, 4u);  // legend framed by two, one after each statement
  const std::string without = RenderTkprof(two, {.legend = false});
  EXPECT_THAT(without, Not(HasSubstr("count    =")));
}

}  // namespace
}  // namespace cellsim::report
