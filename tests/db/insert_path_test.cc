// `insert into t select * from all_objects` (and CTAS of it) takes a fast path
// (rows encoded once per process, put into blocks without a Row per row):
// every statistic, redo and undo byte, row and recovery must be what the
// row-by-row path gives. The row-by-row path is forced with `where 1=1`.
#include <string>
#include <vector>

#include "cellsim/db/database.h"
#include "cellsim/io/io_backend.h"
#include "db/db_test_util.h"
#include "gtest/gtest.h"
#include "testing/test_util.h"

namespace cellsim::db {
namespace {

using ::testing::HasSubstr;
using stats::Stat;

constexpr uint64_t kRows = 12000;  // ~250 blocks, two 1 MiB TEMP extents

class InsertPathTest : public testing::SqlTest {
 protected:
  void Configure(DatabaseOptions* o) const override { o->all_objects_rows = kRows; }
  // The session statistics a statement moved, and its result.
  stats::StatValues Delta(const std::string& sql, Session* s = nullptr,
                          StatementResult* result = nullptr) {
    Session* ses = s ? s : s_.get();
    const stats::StatValues before = ses->Stats();
    StatementResult r = Run(sql, ses);
    if (result != nullptr) *result = r;
    return ses->Stats() - before;
  }
  // The figures both paths must agree on.
  static void ExpectSameUndoAndRedo(const stats::StatValues& fast, const stats::StatValues& slow) {
    for (Stat st : {Stat::kRedoSize, Stat::kRedoEntries, Stat::kUndoChangeVectorSize,
                    Stat::kDbBlockChanges, Stat::kUserCommits}) {
      EXPECT_EQ(fast[st], slow[st]) << stats::StatName(st);
    }
    EXPECT_GT(fast[Stat::kDbBlockChanges], 0);
  }
};

// Each insert in its own transaction (a transaction's first change carries
// its begin vector and more undo).
TEST_F(InsertPathTest, HeapInsertGivesTheSameRowsRedoAndUndo) {
  Run("create table a as select * from all_objects where 1=0");
  Run("create table b as select * from all_objects where 1=0");
  StatementResult fast_result;
  const stats::StatValues fast = Delta("insert into a select * from all_objects", nullptr, &fast_result);
  Run("commit");
  const stats::StatValues slow = Delta("insert into b select * from all_objects where 1=1");
  Run("commit");
  EXPECT_EQ(fast_result.rows, static_cast<int64_t>(kRows));
  EXPECT_EQ(fast_result.feedback, "12,000 rows created.");
  ExpectSameUndoAndRedo(fast, slow);
  EXPECT_GT(fast[Stat::kRedoSize], 12000 * 100);  // the rows' after images are in the redo
  const StatementResult ra = Run("select * from a");
  const StatementResult rb = Run("select * from b");
  ASSERT_EQ(ra.result_rows.size(), kRows);
  EXPECT_EQ(ra.result_rows, rb.result_rows);
  // The same tables filled again from their last blocks on, then rolled back.
  const stats::StatValues again = Delta("insert into a select * from all_objects");
  Run("rollback");
  const stats::StatValues again_slow = Delta("insert into b select * from all_objects where 1=1");
  Run("rollback");
  ExpectSameUndoAndRedo(again, again_slow);
  EXPECT_EQ(Run("select count(*) from a").result_rows[0][0], "12000");
  EXPECT_EQ(Run("select count(*) from b").result_rows[0][0], "12000");
}

TEST_F(InsertPathTest, GttInsertFalseAndTrueGiveTheSameFigures) {
  Run("create global temporary table g on commit delete rows as select * from all_objects where 1=0");
  for (const char* setting : {"false", "true"}) {
    std::unique_ptr<Session> s = db_->NewSession();
    Run(std::string("alter session set temp_undo_enabled = ") + setting, s.get());
    const stats::StatValues fast = Delta("insert into g select * from all_objects", s.get());
    EXPECT_EQ(Run("select count(*) from g", s.get()).result_rows[0][0], "12000");
    const stats::StatValues fast_commit = Delta("commit", s.get());
    const stats::StatValues slow = Delta("insert into g select * from all_objects where 1=1", s.get());
    const stats::StatValues slow_commit = Delta("commit", s.get());
    SCOPED_TRACE(setting);
    ExpectSameUndoAndRedo(fast, slow);
    ExpectSameUndoAndRedo(fast_commit, slow_commit);
    EXPECT_EQ(Run("select count(*) from g", s.get()).result_rows[0][0], "0");
  }
}

TEST_F(InsertPathTest, CreateTableAsSelectGivesTheSameFigures) {
  const stats::StatValues fast = Delta("create table c as select * from all_objects");
  const stats::StatValues slow = Delta("create table d as select * from all_objects where 1=1");
  ExpectSameUndoAndRedo(fast, slow);
  EXPECT_EQ(Run("select * from c").result_rows, Run("select * from d").result_rows);
}

// A value that does not fit the target's column: the fast path steps aside
// and the statement fails as the row-by-row one does, leaving no row.
TEST_F(InsertPathTest, AValueThatDoesNotFitFailsAsRowByRow) {
  std::string cols;
  const char* names[] = {"OWNER", "OBJECT_NAME", "SUBOBJECT_NAME", "OBJECT_ID", "DATA_OBJECT_ID",
                         "OBJECT_TYPE", "CREATED", "LAST_DDL_TIME", "TIMESTAMP", "STATUS",
                         "TEMPORARY", "GENERATED", "SECONDARY", "NAMESPACE", "EDITION_NAME",
                         "SHARING", "EDITIONABLE", "ORACLE_MAINTAINED", "APPLICATION",
                         "DEFAULT_COLLATION", "DUPLICATED", "SHARDED", "CREATED_APPID",
                         "CREATED_VSNID", "MODIFIED_APPID", "MODIFIED_VSNID"};
  for (const char* n : names) {
    if (!cols.empty()) cols += ", ";
    const std::string name(n);
    cols += name + (name == "OBJECT_NAME" ? " varchar2(5)"
                    : name.find("ID") != std::string::npos || name == "NAMESPACE" ? " number"
                    : name == "CREATED" || name == "LAST_DDL_TIME" ? " date"
                                                                   : " varchar2(128)");
  }
  Run("create table narrow (" + cols + ")");
  absl::StatusOr<StatementResult> fast = s_->Execute("insert into narrow select * from all_objects");
  absl::StatusOr<StatementResult> slow =
      s_->Execute("insert into narrow select * from all_objects where 1=1");
  ASSERT_FALSE(fast.ok());
  ASSERT_FALSE(slow.ok());
  EXPECT_EQ(fast.status(), slow.status());
  EXPECT_THAT(std::string(fast.status().message()), HasSubstr("OBJECT_NAME"));
  EXPECT_EQ(Run("select count(*) from narrow").result_rows[0][0], "0");
}

// The rows of the fast path reach the log as real change entries: after a
// crash (no Close, no checkpoint since the insert) recovery brings back the
// committed ones and not the uncommitted ones.
TEST_F(InsertPathTest, RecoveryReplaysTheFastPathsRows) {
  Run("create table a as select * from all_objects where 1=0");
  Run("create table u as select * from all_objects where 1=0");
  Run("insert into a select * from all_objects");
  Run("commit");
  const std::string sum = Run("select sum(object_id) from a").result_rows[0][0];
  std::unique_ptr<Session> other = db_->NewSession();
  Run("insert into u select * from all_objects", other.get());  // never committed
  other.reset();  // ... its session gone; the crash comes before any checkpoint
  Crash();
  ASSERT_OK(Reopen());
  ASSERT_FALSE(db_->recovery_actions().empty());
  EXPECT_THAT(db_->recovery_actions()[0], HasSubstr("instance recovery"));
  EXPECT_EQ(Run("select count(*) from a").result_rows[0][0], "12000");
  EXPECT_EQ(Run("select sum(object_id) from a").result_rows[0][0], sum);
  EXPECT_EQ(Run("select count(*) from u").result_rows[0][0], "0");
}

}  // namespace
}  // namespace cellsim::db
