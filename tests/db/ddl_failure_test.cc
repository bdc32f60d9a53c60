// DDL whose dictionary write fails. DROP / TRUNCATE TABLE, DROP / CREATE
// INDEX, CREATE TABLE with its keys' indexes, ALTER TABLE (a constraint's
// index, a rename), CREATE / DROP SEQUENCE, CREATE VIEW and CTAS run with their
// n-th write failing (ENOSPC: a full filesystem, which
// takes no disk offline, so the error reaches the statement), for n = 1, 2,
// ... until the statement has no n-th write: whatever each one reports is
// what the database shows at once, and again after a crash and reopen. A
// DDL that failed leaves its table with every committed row (before, a
// failed DROP was undone on disk but not in memory, and the next dictionary
// write made it durable); one that succeeded is gone for good. And the
// same statements cut by a power loss at each write are all or nothing.
// Found on the way: a failed write may have landed on a mirror (the
// dictionary now writes the old state back over it), and ASM counted a write
// to a stale copy as a landed copy, so the last current copy of an extent
// could be marked stale after a second full-filesystem error (the SYSTEM
// file unreadable, the database lost); and a CREATE TABLE cut after its
// first key's index had a new extent left a table with one of its two
// indexes (the extent's dictionary write held the half-built table: now it
// leaves the statement's objects out until the statement's own write).
#include <array>
#include <cerrno>
#include <cstdio>
#include <memory>
#include <ostream>
#include <string>

#include "absl/strings/match.h"
#include "cellsim/db/database.h"
#include "cellsim/io/fault_injection.h"
#include "db/db_test_util.h"
#include "fmt/format.h"
#include "gtest/gtest.h"
#include "testing/test_util.h"

namespace cellsim::db {
namespace {

constexpr int kRows = 300;

// One DDL statement on table `t` and what a query shows after it.
struct DdlCase {
  const char* name;
  const char* ddl;    // "{0}" is the table's name
  const char* query;  // likewise: one number
  const char* done;   // what the query shows once the DDL is done
  const char* before; // ... and while it is not
};

// gtest names the case by it (not by the struct's bytes).
void PrintTo(const DdlCase& c, std::ostream* os) { *os << c.name; }

const DdlCase kCases[] = {
    {"DropTable", "drop table {0}", "select count(*) from user_tables where table_name = upper('{0}')",
     "0", "1"},
    {"TruncateTable", "truncate table {0}", "select count(*) from {0}", "0", "300"},
    {"DropIndex", "drop index {0}_v", "select count(*) from user_indexes where index_name = upper('{0}_v')",
     "0", "1"},
    // Statements that build something first (new segments, a new object id)
    // and then write the dictionary.
    {"CreateIndex", "create index {0}_w on {0} (v, id)",
     "select count(*) from user_indexes where index_name = upper('{0}_w')", "1", "0"},
    {"CreateTableWithKeys", "create table {0}_c (a number primary key, b varchar2(10) unique)",
     "select count(*) from user_indexes where table_name = upper('{0}_c')", "2", "0"},
    {"AddConstraint", "alter table {0} add constraint {0}_u unique (v, id)",
     "select count(*) from user_indexes where index_name = upper('{0}_u')", "1", "0"},
    // The constraint's index goes too; a reopen reads which index is a key.
    {"DropPrimaryKey", "alter table {0} drop primary key",
     "select count(*) from user_constraints where table_name = upper('{0}') and "
     "constraint_type = 'P'",
     "0", "1"},
    {"RenameTable", "alter table {0} rename to {0}_r",
     "select count(*) from user_tables where table_name = upper('{0}_r')", "1", "0"},
    {"CreateSequence", "create sequence {0}_s",
     "select count(*) from user_sequences where sequence_name = upper('{0}_s')", "1", "0"},
    {"DropSequence", "drop sequence {0}_q",
     "select count(*) from user_sequences where sequence_name = upper('{0}_q')", "0", "1"},
    {"CreateView", "create view {0}_view as select v from {0}",
     "select count(*) from user_views where view_name = upper('{0}_view')", "1", "0"},
    // Its rows' writes (LGWR's) fail too: a failed CTAS leaves no table.
    {"CreateTableAsSelect", "create table {0}_x as select id, v from {0}",
     "select count(*) from user_tables where table_name = upper('{0}_x')", "1", "0"},
};

class DdlFailureTest : public testing::FaultSqlTest<>, public ::testing::WithParamInterface<DdlCase> {
 protected:
  void Configure(DatabaseOptions* o) const override { o->all_objects_rows = 1000; }

  // A table with kRows committed rows, an index, and a second table whose
  // rows must never change.
  void MakeTable(const std::string& t) {
    Run(fmt::format("create table {} (id number primary key, v varchar2(128))", t));
    Run(fmt::format("create index {}_v on {} (v)", t, t));
    Run(fmt::format("create sequence {}_q", t));
    Run(fmt::format("insert into {} select object_id, object_name from all_objects where rownum <= {}",
                    t, kRows));
    Run("commit");
  }
  std::string Query(const std::string& t) { return One(fmt::format(fmt::runtime(GetParam().query), t)); }
  // What the database shows of `t` and of the table `keep`, now and after a
  // crash and reopen: the DDL `done` or not, `keep` untouched. `in_doubt`:
  // the error said the outcome is known at the next open (either, whole).
  void Expect(const std::string& t, bool done, const std::string& what, bool in_doubt = false) {
    std::string want = done ? GetParam().done : GetParam().before;
    EXPECT_EQ(Query(t), want) << what;
    EXPECT_EQ(One("select count(*) from keep"), "1000") << what;
    Kill();
    ASSERT_OK(Reopen());
    if (in_doubt && Query(t) == GetParam().done) {
      done = true;
      want = GetParam().done;
    }
    EXPECT_EQ(Query(t), want) << what << ", after a crash and reopen";
    EXPECT_EQ(One("select count(*) from keep"), "1000") << what << ", after a crash and reopen";
    if (!done) {  // the table is whole and in use
      EXPECT_EQ(One(fmt::format("select count(*) from {} where v is not null", t)),
                std::to_string(kRows)) << what;
      Run(fmt::format("insert into {} values (-1, 'after')", t));
      Run("commit");
    }
  }

  // The statement with its n-th write failing, n = 1, 2, ... until it has
  // no n-th write: how many failed and changed nothing, failed in doubt,
  // and succeeded.
  std::array<int, 3> FailEachWriteInTurn() {
    Run("create table keep as select object_id, object_name from all_objects");
    std::array<int, 3> n = {0, 0, 0};
    for (int w = 1; w < 400; ++w) {
      const std::string t = fmt::format("t{}", w);
      MakeTable(t);
      const uint64_t injected = fault()->InjectedFailures();
      fault()->FailNth({.ops = io::kOpWrite}, w, ENOSPC);
      absl::StatusOr<StatementResult> r = s_->Execute(fmt::format(fmt::runtime(GetParam().ddl), t));
      const bool hit = fault()->InjectedFailures() > injected;
      fault()->ClearFaults();
      const std::string what = fmt::format("{} with write {} failing: {}", GetParam().name, w,
                                           r.ok() ? "succeeded" : std::string(r.status().message()));
      const bool in_doubt = absl::StrContains(what, "known when the database is next opened");
      ++n[r.ok() ? 2 : in_doubt ? 1 : 0];
      Expect(t, r.ok(), what, in_doubt);
      if (!hit) {  // the w-th write came after the statement: every write was tried
        EXPECT_TRUE(r.ok()) << what;
        std::printf("%s: %d failed and changed nothing, %d failed in doubt, %d succeeded\n",
                    GetParam().name, n[0], n[1], n[2]);
        return n;
      }
    }
    ADD_FAILURE() << "the statement should run out of writes";
    return n;
  }
};

// On write-back cells a write error on the flash (its metadata) leaves the
// cell refusing writes until it is reopened: the old state cannot be written
// back, and the error says the outcome is known at the next open.
TEST_P(DdlFailureTest, WhatAFailedWriteReportsIsWhatTheDiskHolds) {
  const std::array<int, 3> n = FailEachWriteInTurn();
  EXPECT_GT(n[0] + n[1], 0) << "no write failure reached the statement";
  EXPECT_GT(n[2], 0);
}

// Write-through cells: a failed grid-disk write leaves the disk writable, the
// old state goes back over what a mirror took, and the statement failed
// cleanly.
class DdlFailureWriteThroughTest : public DdlFailureTest {
 protected:
  asmgr::RackConfig MakeRackConfig() const override {
    return testing::SmallRack(asmgr::Redundancy::kNormal, cell::FlashCacheMode::kWriteThrough);
  }
};

TEST_P(DdlFailureWriteThroughTest, AFailedStatementChangedNothing) {
  const std::array<int, 3> n = FailEachWriteInTurn();
  EXPECT_GT(n[0], 0) << "no write failure was undone cleanly";
  EXPECT_EQ(n[1], 0) << "a write-through rack should never leave the outcome in doubt";
  EXPECT_GT(n[2], 0);
}

TEST_P(DdlFailureTest, PowerLossAtEveryWriteIsAllOrNothing) {
  Run("create table keep as select object_id, object_name from all_objects");
  for (int n = 0;; ++n) {
    ASSERT_LT(n, 400) << "the statement should run out of writes";
    const std::string t = fmt::format("t{}", n);
    MakeTable(t);
    fault()->CrashAfter({.ops = io::kOpWrite}, n);
    absl::StatusOr<StatementResult> r = s_->Execute(fmt::format(fmt::runtime(GetParam().ddl), t));
    const bool cut = fault()->Crashed();
    PowerOff();  // the power is gone: nothing more reaches the files
    ASSERT_OK(Reopen());
    const std::string now = Query(t);
    const std::string what = fmt::format("{} cut after {} writes ({}): shows {}", GetParam().name,
                                         n, r.ok() ? "acknowledged" : "failed", now);
    // Acknowledged means durable; otherwise either outcome, whole.
    if (r.ok()) {
      EXPECT_EQ(now, GetParam().done) << what;
    }
    EXPECT_TRUE(now == GetParam().done || now == GetParam().before) << what;
    Expect(t, now == GetParam().done, what);
    if (!cut) break;
  }
}

INSTANTIATE_TEST_SUITE_P(Ddl, DdlFailureTest, ::testing::ValuesIn(kCases),
                         [](const auto& info) { return std::string(info.param.name); });
INSTANTIATE_TEST_SUITE_P(Ddl, DdlFailureWriteThroughTest, ::testing::ValuesIn(kCases),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace cellsim::db
