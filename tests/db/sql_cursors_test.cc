// The library cache (docs/sql.md "Cursors"): Oracle's SQL_ID and HASH_VALUE
// of a statement's text, its COMMAND_TYPE, V$SQL and V$SQLAREA counting each
// cursor's executions as Oracle does (the failed ones too, not those that
// fail to parse), V$SESSION's SQL_ID and PREV_SQL_ID, and the cache's
// ageing of the least recently used cursor.
#include <cstdlib>
#include <string>
#include <vector>

#include "cellsim/db/library_cache.h"
#include "cellsim/db/sql_id.h"
#include "db/db_test_util.h"
#include "gtest/gtest.h"

namespace cellsim::db {
namespace {

// Published by Oracle users from V$SQL (docs/sql.md "Cursors"), the seed's
// tkprof, and one from the same algorithm in Python's hashlib.
TEST(SqlIdTest, IsOraclesForTheSameText) {
  const SqlIdentity dual = SqlIdOf("select * from dual");
  EXPECT_EQ(dual.sql_id, "a5ks9fhw2v9s1");
  EXPECT_EQ(dual.hash_value, 942515969u);
  // The seed's tkprof (seeds/fast-data-file-creation.txt) names its statement.
  EXPECT_EQ(
      SqlIdOf("alter database add logfile thread 2 group 5 ('+DATA','+RECO') size 4096m").sql_id,
      "fvt6psf2t3cdz");
  const SqlIdentity one = SqlIdOf("select 1 from dual");
  EXPECT_EQ(one.sql_id, "520mkxqpf15q8");
  EXPECT_EQ(one.hash_value, 2866845384u);
  // Every character counts: case, spaces, a trailing semicolon.
  EXPECT_NE(SqlIdOf("SELECT * FROM DUAL").sql_id, dual.sql_id);
  EXPECT_NE(SqlIdOf("select *  from dual").sql_id, dual.sql_id);
  EXPECT_NE(SqlIdOf("select * from dual;").sql_id, dual.sql_id);
}

TEST(SqlIdTest, CommandTypeIsVsqlcommands) {
  const std::pair<const char*, int> cases[] = {
      {"select * from dual", 3},
      {"  with x as (select 1 from dual) select * from x", 3},
      {"/* hint */ insert into t values (1)", 2},
      {"update t set a = 1", 6},
      {"delete from t", 7},
      {"merge into t using s on (1 = 1) when matched then update set a = 1", 189},
      {"commit", 44},
      {"rollback to savepoint a", 45},
      {"savepoint a", 46},
      {"create table t (a number)", 1},
      {"create global temporary table g (a number)", 1},
      {"create unique index i on t (a)", 9},
      {"create or replace view v as select 1 x from dual", 21},
      {"create temporary tablespace t2 tempfile '+DATA' size 1m", 39},
      {"create undo tablespace u2 datafile '+DATA' size 1m", 39},
      {"alter tablespace users add datafile '+DATA' size 1m", 40},
      {"drop tablespace x", 41},
      {"drop table t", 12},
      {"drop index i", 10},
      {"create sequence s", 13},
      {"alter sequence s increment by 2", 14},
      {"drop sequence s", 16},
      {"alter table t add (b number)", 15},
      {"truncate table t", 85},
      {"alter database add logfile size 1m", 35},
      {"alter session set temp_undo_enabled = true", 42},
      {"alter system switch logfile", 49},
      {"analyze table t compute statistics", 62},
      {"begin null; end;", 47},
      {"declare n number; begin null; end;", 47},
      {"show parameter undo", 0},
      {"", 0},
  };
  for (const auto& [sql, type] : cases) EXPECT_EQ(CommandTypeOf(sql), type) << sql;
}

class SqlCursorsTest : public testing::SqlTest {
 protected:
  // V$SQL's row for `text`: the named columns, by name; empty when none.
  std::map<std::string, std::string> Cursor(const std::string& text) {
    static const std::vector<std::string> kColumns = {
        "sql_id",          "hash_value",      "executions",     "parse_calls",
        "users_executing", "rows_processed",  "command_type",   "elapsed_time",
        "cpu_time",        "user_io_wait_time", "physical_write_bytes", "child_number",
        "io_interconnect_bytes", "application_wait_time"};
    std::string sql = "select ";
    for (size_t i = 0; i < kColumns.size(); ++i) sql += (i ? ", " : "") + kColumns[i];
    sql += " from v$sql where sql_fulltext = '";
    for (char c : text) sql += c == '\'' ? std::string("''") : std::string(1, c);
    sql += "'";
    const StatementResult r = Run(sql);
    std::map<std::string, std::string> out;
    if (r.result_rows.empty()) return out;
    EXPECT_EQ(r.result_rows.size(), 1u) << text;
    for (size_t i = 0; i < kColumns.size(); ++i) out[kColumns[i]] = r.result_rows[0][i];
    return out;
  }
  static int64_t I(const std::string& v) { return std::strtoll(v.c_str(), nullptr, 10); }
};

TEST_F(SqlCursorsTest, VsqlCountsEachCursorsExecutions) {
  Run("create table t (id number primary key, v varchar2(10))");
  Run("select * from dual");
  Run("select * from dual");
  Run("insert into t select rownum, 'x' from all_objects where rownum <= 150");
  Run("commit");
  const auto dual = Cursor("select * from dual");
  ASSERT_FALSE(dual.empty());
  EXPECT_EQ(dual.at("sql_id"), "a5ks9fhw2v9s1");
  EXPECT_EQ(dual.at("hash_value"), "942515969");
  EXPECT_EQ(dual.at("executions"), "2");
  EXPECT_EQ(dual.at("parse_calls"), "2");
  EXPECT_EQ(dual.at("rows_processed"), "2");
  EXPECT_EQ(dual.at("command_type"), "3");
  EXPECT_EQ(dual.at("users_executing"), "0");
  EXPECT_EQ(dual.at("child_number"), "0");
  const auto insert = Cursor("insert into t select rownum, 'x' from all_objects where rownum <= 150");
  ASSERT_FALSE(insert.empty());
  EXPECT_EQ(insert.at("executions"), "1");
  EXPECT_EQ(insert.at("rows_processed"), "150");
  EXPECT_EQ(insert.at("command_type"), "2");
  EXPECT_GE(I(insert.at("elapsed_time")), I(insert.at("user_io_wait_time")));
  // The query that reads V$SQL is in it, running: one execution, one user.
  const StatementResult self =
      Run("select executions, users_executing, sql_id from v$sql where sql_text like "
          "'select executions, users_executing%'");
  ASSERT_EQ(self.result_rows.size(), 1u);
  EXPECT_EQ(self.result_rows[0][0], "1");
  EXPECT_EQ(self.result_rows[0][1], "1");
  EXPECT_EQ(self.result_rows[0][2], SqlIdOf(self.statement).sql_id);
  // V$SQLAREA: one row per SQL_ID, VERSION_COUNT 1.
  EXPECT_EQ(One("select version_count || ' ' || executions from v$sqlarea where sql_id = "
                "'a5ks9fhw2v9s1'"),
            "1 2");
}

TEST_F(SqlCursorsTest, FailedExecutionsCountButFailedParsesLoadNothing) {
  Run("create table t (id number primary key)");
  Run("insert into t values (1)");
  // ORA-00001 at run time: an execution, no rows.
  EXPECT_NE(Error("insert into t values (1)").find("ORA-00001"), std::string::npos);
  EXPECT_NE(Error("insert into t values (1)").find("ORA-00001"), std::string::npos);
  const auto dup = Cursor("insert into t values (1)");
  ASSERT_FALSE(dup.empty());
  EXPECT_EQ(dup.at("executions"), "3");
  EXPECT_EQ(dup.at("rows_processed"), "1");
  // ORA-00942 and ORA-00904 are parse errors in Oracle: no cursor.
  EXPECT_NE(Error("select * from no_such_table").find("ORA-00942"), std::string::npos);
  EXPECT_NE(Error("select no_such_column from t").find("ORA-00904"), std::string::npos);
  EXPECT_TRUE(Cursor("select * from no_such_table").empty());
  EXPECT_TRUE(Cursor("select no_such_column from t").empty());
  // A syntax error never reaches the engine.
  Error("selct * from t");
  EXPECT_TRUE(Cursor("selct * from t").empty());
  // SQL*Plus answers SHOW and DESCRIBE itself: no cursor.
  Run("describe t");
  Run("show parameter undo");
  EXPECT_TRUE(Cursor("describe t").empty());
  EXPECT_TRUE(Cursor("show parameter undo").empty());
}

TEST_F(SqlCursorsTest, DdlCursorsCarryTheirFileCreationIo) {
  const StatementResult r = Run("create tablespace extra datafile '+DATA' size 8m");
  const auto c = Cursor("create tablespace extra datafile '+DATA' size 8m");
  ASSERT_FALSE(c.empty());
  EXPECT_EQ(c.at("command_type"), "39");
  EXPECT_EQ(I(c.at("physical_write_bytes")),
            r.statistics[stats::Stat::kPhysicalWriteTotalBytes]);
  EXPECT_EQ(I(c.at("io_interconnect_bytes")),
            r.statistics[stats::Stat::kCellPhysicalIoInterconnectBytes]);
  EXPECT_GT(I(c.at("physical_write_bytes")), 0);
  EXPECT_EQ(I(c.at("elapsed_time")), static_cast<int64_t>(r.elapsed_ns / 1000));
}

TEST_F(SqlCursorsTest, VsessionShowsWhatEachSessionRunsAndRanLast) {
  std::unique_ptr<Session> other = db_->NewSession();
  Run("select 1 from dual", other.get());
  Run("select * from dual");
  const std::string q =
      "select sid, sql_id, prev_sql_id, sql_hash_value from v$session order by sid";
  const StatementResult r = Run(q);
  ASSERT_EQ(r.result_rows.size(), 2u);
  // This session: running the query, after select * from dual.
  EXPECT_EQ(r.result_rows[0][0], std::to_string(s_->sid()));
  EXPECT_EQ(r.result_rows[0][1], SqlIdOf(q).sql_id);
  EXPECT_EQ(r.result_rows[0][2], "a5ks9fhw2v9s1");
  EXPECT_EQ(r.result_rows[0][3], std::to_string(SqlIdOf(q).hash_value));
  // The other: idle (no SQL_ID, hash 0), its last statement select 1 from dual.
  EXPECT_EQ(r.result_rows[1][1], "");
  EXPECT_EQ(r.result_rows[1][2], "520mkxqpf15q8");
  EXPECT_EQ(r.result_rows[1][3], "0");
}

TEST(LibraryCacheTest, AgesOutTheLeastRecentlyUsedCursorNoSessionRuns) {
  internal::LibraryCache cache(3);
  const internal::CursorExecution done;
  cache.Begin(1, "a", 0);  // left running: never aged out
  for (const char* t : {"b", "c"}) {
    cache.Begin(1, t, 0);
    cache.End(1, t, done, 0);
  }
  cache.Begin(1, "b", 0);  // b is used again: c is now the least recent
  cache.End(1, "b", done, 0);
  cache.Begin(2, "d", 0);
  cache.End(2, "d", done, 0);
  std::vector<std::string> texts;
  for (const internal::Cursor& c : cache.Cursors()) texts.push_back(c.text);
  EXPECT_EQ(texts, (std::vector<std::string>{"d", "b", "a"}));
  EXPECT_EQ(cache.Cursors()[1].executions, 2);
  EXPECT_EQ(cache.SqlOf(2).previous->sql_id, SqlIdOf("d").sql_id);
  EXPECT_FALSE(cache.SqlOf(2).current.has_value());
  cache.Forget(2);
  EXPECT_FALSE(cache.SqlOf(2).previous.has_value());
}

}  // namespace
}  // namespace cellsim::db
