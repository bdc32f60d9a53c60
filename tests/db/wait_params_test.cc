// The parameters of every wait (docs/statistics.md "Wait parameters"): what
// the seed statement's waits carry, V$CELL's hashes they join to, and the
// per-session history (V$SESSION_WAIT_HISTORY, V$SESSION_WAIT).
#include <map>
#include <set>
#include <string>

#include "cellsim/db/accounting.h"
#include "db/db_test_util.h"
#include "gtest/gtest.h"

namespace cellsim::db {
namespace {

using stats::Wait;
using stats::WaitEvent;

// The seed statement at a size SmallRack() holds.
constexpr char kSmallSeed[] =
    "alter database add logfile thread 2 group 5 ('+DATA','+RECO') size 64m";

class WaitParamsTest : public testing::SqlTest {
 protected:
  // The seed statement with the trace on: its every wait.
  StatementResult TracedSeed() {
    Run("alter session set sql_trace = true");
    return Run(kSmallSeed);
  }
  std::string Num(uint64_t v) { return std::to_string(v); }
};

TEST_F(WaitParamsTest, CreationWaitsNameTheCellsOfTheRackByTheirHash) {
  const StatementResult r = TracedSeed();
  // V$CELL: one row per cell of the rack, its hash the one the waits carry.
  const StatementResult cells = Run("select cell_path, cell_hashval from v$cell");
  ASSERT_EQ(cells.result_rows.size(), rack_->cell_count());
  std::set<std::string> hashes;
  for (uint32_t c = 0; c < rack_->cell_count(); ++c) {
    EXPECT_EQ(cells.result_rows[c][0], rack_->cell_name(c));
    EXPECT_EQ(cells.result_rows[c][1], Num(internal::CellHashValue(rack_->cell_name(c))));
    hashes.insert(cells.result_rows[c][1]);
  }
  EXPECT_EQ(hashes.size(), rack_->cell_count());  // distinct
  std::set<std::string> waited_on;
  int64_t creation = 0;
  for (const WaitEvent& e : r.wait_events) {
    if (e.event != Wait::kCellSmartFileCreation) continue;
    ++creation;
    EXPECT_EQ(hashes.count(Num(e.params.p1)), 1u) << e.params.p1;
    EXPECT_EQ(e.params.p2, 0u);
    EXPECT_EQ(e.params.p3, 0u);
    waited_on.insert(Num(e.params.p1));
    // Oracle's way to name it: the cell whose hash is P1.
    if (waited_on.size() == 1 && creation == 1) {
      const std::string path = One("select cell_path from v$cell where cell_hashval = " +
                                   Num(e.params.p1));
      EXPECT_EQ(path.rfind("cel", 0), 0u) << path;
    }
  }
  EXPECT_GT(creation, 0);
  EXPECT_EQ(creation, r.waits[Wait::kCellSmartFileCreation].count);
  EXPECT_GE(waited_on.size(), 2u);  // the copies go to several cells
}

TEST_F(WaitParamsTest, EveryWaitOfTheStatementCarriesOraclesParameters) {
  const StatementResult r = TracedSeed();
  // The list adds up to the aggregated waits, event by event.
  std::map<Wait, std::pair<int64_t, uint64_t>> sums;
  for (const WaitEvent& e : r.wait_events) {
    sums[e.event].first += 1;
    sums[e.event].second += e.ns;
  }
  for (size_t i = 0; i < stats::kWaitCount; ++i) {
    const auto w = static_cast<Wait>(i);
    EXPECT_EQ(sums[w].first, r.waits[w].count) << stats::WaitName(w);
    EXPECT_EQ(sums[w].second, r.waits[w].total_ns) << stats::WaitName(w);
  }
  int64_t cf_writes = 0, cf_reads = 0;
  for (const WaitEvent& e : r.wait_events) {
    if (e.event == Wait::kControlFileParallelWrite) {
      ++cf_writes;
      EXPECT_EQ(e.params.p1, 2u);  // files: the two control files
      EXPECT_GE(e.params.p2, 1u);  // blocks of each copy
      EXPECT_EQ(e.params.p3, 2u);  // requests: one per copy
    }
    if (e.event == Wait::kControlFileSequentialRead) {
      ++cf_reads;
      EXPECT_LE(e.params.p1, 1u);  // file#: the first or the second copy
      EXPECT_GE(e.params.p3, 1u);  // blocks
    }
  }
  EXPECT_GT(cf_writes, 0);
  EXPECT_GT(cf_reads, 0);
  int64_t headers = 0;
  for (const WaitEvent& e : r.wait_events) {
    if (e.event != Wait::kLogFileSingleWrite) continue;
    ++headers;
    EXPECT_EQ(e.params.p1, 5u);  // log#: the group
    EXPECT_EQ(e.params.p2, 1u);  // block#: the header, block 1
    EXPECT_EQ(e.params.p3, 1u);  // blocks
  }
  EXPECT_EQ(headers, 2);  // one per member
  // In order: each ends no earlier than the one before (one foreground).
  for (size_t i = 1; i < r.wait_events.size(); ++i) {
    EXPECT_GE(r.wait_events[i].end_ns, r.wait_events[i - 1].end_ns) << i;
    EXPECT_EQ(r.wait_events[i].seq, r.wait_events[i - 1].seq + 1);
  }
}

TEST_F(WaitParamsTest, DataFileHeaderWriteNamesItsFile) {
  Run("alter session set sql_trace = true");
  const StatementResult r = Run("create tablespace wp datafile '+DATA' size 16m");
  const std::string file = One("select file_id from dba_data_files where tablespace_name = 'WP'");
  int64_t headers = 0;
  for (const WaitEvent& e : r.wait_events) {
    if (e.event != Wait::kDbFileSingleWrite) continue;
    ++headers;
    EXPECT_EQ(Num(e.params.p1), file);  // file#
    EXPECT_EQ(e.params.p2, 1u);         // block#: the file header
    EXPECT_EQ(e.params.p3, 1u);
  }
  EXPECT_EQ(headers, 1);
}

TEST_F(WaitParamsTest, NoTraceNoList) {
  const StatementResult r = Run(kSmallSeed);
  EXPECT_GT(r.waits[Wait::kCellSmartFileCreation].count, 0);
  EXPECT_TRUE(r.wait_events.empty());
}

TEST_F(WaitParamsTest, HistoryShowsTheLastTenWaitsNewestFirst) {
  const StatementResult r = TracedSeed();
  ASSERT_GE(r.wait_events.size(), 10u);
  const StatementResult h = Run(
      "select sid, seq#, event, p1text, p1, p2, p3, wait_time_micro, time_since_last_wait_micro "
      "from v$session_wait_history");
  EXPECT_TRUE(h.wait_events.empty());  // the query itself does not wait
  ASSERT_EQ(h.result_rows.size(), 10u);
  const size_t n = r.wait_events.size();
  for (size_t k = 0; k < 10; ++k) {
    const WaitEvent& e = r.wait_events[n - 1 - k];
    const std::vector<std::string>& row = h.result_rows[k];
    EXPECT_EQ(row[0], Num(s_->sid()));
    EXPECT_EQ(row[1], Num(k + 1));
    EXPECT_EQ(row[2], stats::WaitName(e.event));
    EXPECT_EQ(row[4], Num(e.params.p1));
    EXPECT_EQ(row[5], Num(e.params.p2));
    EXPECT_EQ(row[6], Num(e.params.p3));
    EXPECT_EQ(row[7], Num(e.ns / 1000));
    EXPECT_EQ(row[8], Num(e.since_last_ns / 1000));
  }
  // EVENT# joins V$EVENT_NAME, whose PARAMETER1 is the history's P1TEXT.
  const StatementResult names = Run(
      "select h.event, n.name, h.p1text, n.parameter1 from v$session_wait_history h, "
      "v$event_name n where h.event# = n.event#");
  ASSERT_EQ(names.result_rows.size(), 10u);
  for (const std::vector<std::string>& row : names.result_rows) {
    EXPECT_EQ(row[0], row[1]);
    EXPECT_EQ(row[2], row[3]);
  }
  // V$SESSION_WAIT: the last one, SEQ# counting every wait of the session.
  int64_t total = 0;
  for (const stats::WaitValue& v : s_->Waits().v) total += v.count;
  const StatementResult w = Run("select seq#, event, p1, state from v$session_wait");
  ASSERT_EQ(w.result_rows.size(), 1u);
  EXPECT_EQ(w.result_rows[0][0], Num(static_cast<uint64_t>(total)));
  EXPECT_EQ(w.result_rows[0][1], stats::WaitName(r.wait_events.back().event));
  EXPECT_EQ(w.result_rows[0][2], Num(r.wait_events.back().params.p1));
}

}  // namespace
}  // namespace cellsim::db
