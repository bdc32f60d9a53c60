// Logical and physical reads of the buffer cache (docs/statistics.md
// "Logical reads"): consistent gets a block per visit of a scan, an index
// probe's root-to-leaf path and the table block it leads to; db block gets
// each block a statement changes once, and the undo segment header and undo
// blocks a transaction takes; physical reads the blocks read into the cache;
// sorts (memory) the ORDER BY and CREATE INDEX sorts; V$SQL's BUFFER_GETS,
// DISK_READS and SORTS the same per cursor.
#include <string>

#include "db/db_test_util.h"
#include "gtest/gtest.h"

namespace cellsim::db {
namespace {

using stats::Stat;

class LogicalReadsTest : public testing::SqlTest {
 protected:
  // A table of 10,000 rows of ~110 bytes (about 150 blocks) with an index on
  // ID, written to its data file.
  void MakeTable() {
    Run("create table t as select rownum id, rpad('x', 100) pad from dual connect by level <= "
        "10000");
    Run("create index t_i on t (id)");
    Run("alter system checkpoint");
  }
  // The statistic `s` of a statement's result, and the invariant every
  // statement keeps: session logical reads = db block gets + consistent gets.
  static int64_t Stat(const StatementResult& r, stats::Stat s) {
    EXPECT_EQ(r.statistics[Stat::kSessionLogicalReads],
              r.statistics[Stat::kDbBlockGets] + r.statistics[Stat::kConsistentGets])
        << r.statement;
    return r.statistics[s];
  }
};

TEST_F(LogicalReadsTest, AFullScanGetsEachBlockOnceAndAfterARestartReadsEachOnce) {
  MakeTable();
  const StatementResult warm = Run("select count(*) from t");
  const int64_t blocks = Stat(warm, Stat::kConsistentGets);
  // 10,000 rows of 100 to 110 bytes in 8 KiB blocks.
  EXPECT_GE(blocks, 10000 * 100 / 8192);
  EXPECT_LE(blocks, 200);
  EXPECT_EQ(Stat(warm, Stat::kDbBlockGets), 0);
  EXPECT_EQ(Stat(warm, Stat::kPhysicalReads), 0);  // still in the buffer cache
  ASSERT_OK(Reopen());
  const StatementResult cold = Run("select count(*) from t");
  EXPECT_EQ(cold.result_rows[0][0], "10000");
  EXPECT_EQ(Stat(cold, Stat::kConsistentGets), blocks);
  EXPECT_EQ(Stat(cold, Stat::kPhysicalReads), blocks);  // each block read once
  EXPECT_GE(Stat(cold, Stat::kPhysicalReadIoRequests), 1);
  EXPECT_LE(Stat(cold, Stat::kPhysicalReadIoRequests), blocks);
  EXPECT_LE(Stat(cold, Stat::kPhysicalReadIoRequests),
            Stat(cold, Stat::kPhysicalReadTotalIoRequests));
  EXPECT_EQ(Stat(cold, Stat::kPhysicalReadBytes), blocks * 8192);
  EXPECT_EQ(cold.execute.disk, blocks);
  EXPECT_EQ(cold.execute.query, blocks);
  const StatementResult again = Run("select count(*) from t");
  EXPECT_EQ(Stat(again, Stat::kConsistentGets), blocks);
  EXPECT_EQ(Stat(again, Stat::kPhysicalReads), 0);
}

TEST_F(LogicalReadsTest, AnIndexProbeGetsRootLeafAndTheRowsBlock) {
  MakeTable();
  // 10,000 keys: a root branch block over the leaves (BLEVEL 1).
  const StatementResult r = Run("select pad from t where id = 4242");
  ASSERT_EQ(r.result_rows.size(), 1u);
  EXPECT_EQ(Stat(r, Stat::kConsistentGets), 3);
  EXPECT_EQ(Stat(r, Stat::kDbBlockGets), 0);
  // A table of a few rows: its index is one leaf (the root): 2 gets.
  Run("create table small (id number, v varchar2(10))");
  Run("create index small_i on small (id)");
  Run("insert into small values (1, 'a')");
  Run("insert into small values (2, 'b')");
  Run("commit");
  EXPECT_EQ(Stat(Run("select v from small where id = 2"), Stat::kConsistentGets), 2);
  // Rows of one block by rowid: one get for the block, not one per row.
  Run("insert into small values (2, 'c')");
  Run("commit");
  const StatementResult two = Run("select v from small where id = 2");
  EXPECT_EQ(two.result_rows.size(), 2u);
  EXPECT_EQ(Stat(two, Stat::kConsistentGets), 2);
}

TEST_F(LogicalReadsTest, DmlGetsTheBlocksItChangesInCurrentModeOncePerStatement) {
  MakeTable();
  const int64_t blocks = Stat(Run("select count(*) from t"), Stat::kConsistentGets);
  // A transaction's first change: the undo segment header (its slot), an
  // undo block, the row's block. The rows are found by a full scan.
  const StatementResult first = Run("update t set pad = 'y' where id = 1");
  EXPECT_EQ(Stat(first, Stat::kDbBlockGets), 3);
  EXPECT_EQ(Stat(first, Stat::kConsistentGets), blocks);
  // The next row of the same block, in the same undo block: that block only.
  EXPECT_EQ(Stat(Run("update t set pad = 'z' where id = 2"), Stat::kDbBlockGets), 1);
  // Two rows of one block in one statement: one get (the block stays pinned).
  EXPECT_EQ(Stat(Run("update t set pad = 'w' where id in (3, 4)"), Stat::kDbBlockGets), 1);
  // The commit: the undo segment header, to mark the slot committed.
  const StatementResult commit = Run("commit");
  EXPECT_EQ(Stat(commit, Stat::kDbBlockGets), 1);
  EXPECT_EQ(Stat(commit, Stat::kConsistentGets), 0);
  // A rollback gets the blocks it restores and the header.
  Run("update t set pad = 'v' where id = 5");
  EXPECT_EQ(Stat(Run("rollback"), Stat::kDbBlockGets), 2);
  EXPECT_EQ(One("select pad from t where id = 5"), "x" + std::string(99, ' '));
  // An insert changes its block and the index's: at least the header, the
  // undo block, the table block and the index leaf.
  EXPECT_GE(Stat(Run("insert into t values (10001, 'n')"), Stat::kDbBlockGets), 4);
  Run("commit");
}

TEST_F(LogicalReadsTest, ReadingAroundAnotherTransactionsChangesGetsTheirUndo) {
  MakeTable();
  const int64_t blocks = Stat(Run("select sum(id) from t"), Stat::kConsistentGets);
  std::unique_ptr<Session> other = db_->NewSession();
  Run("update t set id = id + 100000 where id <= 5", other.get());
  const StatementResult r = Run("select sum(id) from t");
  EXPECT_EQ(r.result_rows[0][0], "50005000");  // the committed values
  EXPECT_EQ(Stat(r, Stat::kDataBlocksConsistentReadsUndoRecordsApplied), 5);
  EXPECT_EQ(Stat(r, Stat::kConsistentGets), blocks + 5);
  Run("rollback", other.get());
}

TEST_F(LogicalReadsTest, SortsAreCountedForOrderByAndCreateIndex) {
  MakeTable();
  const StatementResult sorted = Run("select id from t where id <= 20 order by id desc");
  EXPECT_EQ(Stat(sorted, Stat::kSortsMemory), 1);
  EXPECT_EQ(Stat(sorted, Stat::kSortsRows), 20);
  EXPECT_EQ(Stat(Run("select count(*) from t"), Stat::kSortsMemory), 0);
  // SORT UNIQUE: of both branches for UNION, of each for MINUS.
  const StatementResult u =
      Run("select id from t where id <= 5 union select id from t where id between 4 and 7");
  EXPECT_EQ(u.result_rows.size(), 7u);
  EXPECT_EQ(Stat(u, Stat::kSortsMemory), 1);
  EXPECT_EQ(Stat(u, Stat::kSortsRows), 9);
  const StatementResult m =
      Run("select id from t where id <= 5 minus select id from t where id between 4 and 7");
  EXPECT_EQ(Stat(m, Stat::kSortsMemory), 2);
  EXPECT_EQ(Stat(m, Stat::kSortsRows), 9);
  EXPECT_EQ(Stat(Run("select distinct id from t where id <= 5"), Stat::kSortsMemory), 0);
  const StatementResult index = Run("create index t_pad on t (pad)");
  EXPECT_EQ(Stat(index, Stat::kSortsMemory), 1);
  EXPECT_EQ(Stat(index, Stat::kSortsRows), 10000);
}

TEST_F(LogicalReadsTest, VsqlSumsEachCursorsGetsReadsAndSorts) {
  MakeTable();
  ASSERT_OK(Reopen());
  const std::string q = "select count(*) from t where pad is not null order by 1";
  const StatementResult cold = Run(q);
  const StatementResult warm = Run(q);
  const StatementResult v = Run(
      "select buffer_gets, disk_reads, sorts, executions from v$sql where sql_text = '" + q + "'");
  ASSERT_EQ(v.result_rows.size(), 1u);
  EXPECT_EQ(v.result_rows[0][0], std::to_string(Stat(cold, Stat::kSessionLogicalReads) +
                                                Stat(warm, Stat::kSessionLogicalReads)));
  EXPECT_EQ(v.result_rows[0][1], std::to_string(Stat(cold, Stat::kPhysicalReads)));
  EXPECT_NE(v.result_rows[0][1], "0");
  EXPECT_EQ(v.result_rows[0][2], "2");
  EXPECT_EQ(v.result_rows[0][3], "2");
}

// ALTER SYSTEM FLUSH BUFFER_CACHE: the next scan reads every block again;
// the blocks an open transaction changed stay, and its rollback (and
// another session's read around it) still works.
TEST_F(LogicalReadsTest, FlushingTheBufferCacheMakesTheNextScanReadEveryBlock) {
  MakeTable();
  const int64_t blocks = Stat(Run("select count(*) from t"), Stat::kConsistentGets);
  EXPECT_EQ(Run("alter system flush buffer_cache").feedback, "System altered.");
  EXPECT_EQ(Stat(Run("select count(*) from t"), Stat::kPhysicalReads), blocks);
  EXPECT_EQ(Stat(Run("select count(*) from t"), Stat::kPhysicalReads), 0);
  // An open transaction across a flush: its rows roll back, the index agrees.
  Run("update t set pad = 'changed' where id <= 3");
  Run("insert into t values (20000, 'new')");
  std::unique_ptr<Session> other = db_->NewSession();
  Run("alter system flush buffer_cache global", other.get());
  EXPECT_EQ(One("select count(*) from t where pad = 'changed'", other.get()), "0");
  EXPECT_EQ(One("select count(*) from t where pad = 'changed'"), "3");
  Run("rollback");
  EXPECT_EQ(One("select count(*) from t where pad = 'changed' or id = 20000"), "0");
  EXPECT_EQ(Run("analyze table t validate structure cascade").feedback, "Table analyzed.");
  other.reset();
  // What was flushed was written first: a crash loses nothing committed.
  Run("update t set pad = 'kept' where id = 7");
  Run("commit");
  Run("alter system flush buffer_cache");
  Crash();
  ASSERT_OK(Reopen());
  EXPECT_EQ(One("select pad from t where id = 7"), "kept");
}

// ALTER SYSTEM FLUSH SHARED_POOL empties V$SQL of the cursors no session runs.
TEST_F(LogicalReadsTest, FlushingTheSharedPoolForgetsIdleCursors) {
  Run("select count(*) from dual");
  const std::string n = "select count(*) from v$sql where sql_text = 'select count(*) from dual'";
  EXPECT_EQ(One(n), "1");
  EXPECT_EQ(Run("alter system flush shared_pool").feedback, "System altered.");
  EXPECT_EQ(One(n), "0");
}

// The seed's statement changes two file-table entries: its tkprof's
// `current` 2 (seeds/fast-data-file-creation.txt) is its db block gets.
TEST_F(LogicalReadsTest, TheSeedsAddLogfileGetsTwoBuffersInCurrentMode) {
  const StatementResult r =
      Run("alter database add logfile thread 2 group 5 ('+DATA','+RECO') size 4m");
  EXPECT_EQ(r.execute.current, 2);
  EXPECT_EQ(Stat(r, Stat::kDbBlockGets), 2);
}

}  // namespace
}  // namespace cellsim::db
