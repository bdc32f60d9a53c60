// Tables, DML, transactions, undo and redo (issue 15): the seed's SQL end to
// end on a small rack, rollback, GTT semantics, temporary undo and its latch,
// the V$ views, LGWR's writes, and the fidelity table of docs/redo.md.
#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "cellsim/db/data_statement.h"
#include "cellsim/db/database.h"
#include "cellsim/db/row_format.h"
#include "cellsim/format/block_template.h"
#include "cellsim/io/io_backend.h"
#include "db/db_test_util.h"
#include "gtest/gtest.h"
#include "testing/test_util.h"

namespace cellsim::db {
namespace {

using ::cellsim::db::testing::SmallRack;
using ::testing::AllOf;
using ::testing::HasSubstr;
using stats::Stat;
using internal::HeapBlock;
using internal::kBlockSize;

// The seed's schema (create/create.sql) and statements (temp-undo.md §4.6).
constexpr const char* kCreateGtt =
    "create global temporary table sqlrun_gtt\non commit delete rows\nas\n"
    "select * from all_objects\nwhere 1=0";
constexpr const char* kCreateTxcount = "create table txcount ( sid number, txacts number)";
constexpr const char* kInsert = "insert into sqlrun_gtt select * from all_objects";
constexpr const char* kUpdate = "update sqlrun_gtt set object_id = object_id + 1";
constexpr const char* kMerge =
    "merge into txcount tx\n  using (select sys_context('userenv','sid') sid from dual ) s\n"
    "  on (s.sid = tx.sid)\nwhen matched then\n  update set tx.txacts = tx.txacts + 1\n"
    "when not matched then\n  insert (sid, txacts)\n  values(sys_context('userenv','sid'),1)";

class TxnTest : public testing::SqlTest {
 protected:
  void Configure(DatabaseOptions* o) const override { o->all_objects_rows = AllObjectsRows(); }
  virtual uint64_t AllObjectsRows() const { return 70000; }
  int64_t Count(const std::string& table, Session* s = nullptr) {
    StatementResult r = Run("select count(*) from " + table, s);
    return r.result_rows.empty() ? -1 : std::stoll(r.result_rows[0][0]);
  }
};

TEST(DataParserTest, SeedStatementsParse) {
  for (const char* sql : {kCreateGtt, kCreateTxcount, kInsert, kUpdate, kMerge,
                          "drop table sqlrun_gtt purge", "commit", "rollback",
                          "alter system set temp_undo_enabled = TRUE scope=both",
                          "show parameter temp_undo",
                          "select f.member, l.bytes/power(1024,2) m from v$log l, v$logfile f "
                          "where l.group# = f.group# and l.group# = 5"}) {
    EXPECT_TRUE(IsDataStatement(sql)) << sql;
    absl::StatusOr<DataStatement> st = ParseDataStatement(sql);
    EXPECT_TRUE(st.ok()) << sql << "\n" << st.status();
  }
  EXPECT_FALSE(IsDataStatement("create tablespace x datafile '+DATA' size 1m"));
  absl::StatusOr<DataStatement> bad = ParseDataStatement("update t set c = where x = 1");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("ORA-00936"));
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("at 1:18"));
}

// Oracle names an expression's column by its text in capitals without
// blanks (quoted literals' too), a column by its name, an alias as given.
TEST(DataParserTest, AColumnHeadingIsTheExpressionWithoutBlanks) {
  absl::StatusOr<DataStatement> st = ParseDataStatement(
      "select nvl(null, 1), empno || ' ' || ename,\n count( * ), e.sal, sal * 12 annual from emp e");
  ASSERT_TRUE(st.ok()) << st.status();
  std::vector<std::string> headings;
  for (const SelectItem& it : std::get<Select>(*st).items) headings.push_back(it.heading);
  EXPECT_EQ(headings, (std::vector<std::string>{"NVL(NULL,1)", "EMPNO||''||ENAME", "COUNT(*)",
                                                "SAL", "ANNUAL"}));
}

TEST_F(TxnTest, SeedStatementsEndToEnd) {
  EXPECT_EQ(Run(kCreateGtt).feedback, "Table created.");
  EXPECT_EQ(Run(kCreateTxcount).feedback, "Table created.");
  StatementResult ins = Run(kInsert);
  EXPECT_EQ(ins.rows, 70000);
  EXPECT_EQ(ins.feedback, "70,000 rows created.");
  EXPECT_EQ(Count("sqlrun_gtt"), 70000);
  EXPECT_EQ(Run(kUpdate).feedback, "70,000 rows updated.");
  EXPECT_EQ(Run("select max(object_id) from sqlrun_gtt").result_rows[0][0], "70002");
  EXPECT_EQ(Run(kMerge).feedback, "1 row merged.");
  EXPECT_EQ(Run("commit").feedback, "Commit complete.");
  // ON COMMIT DELETE ROWS: the GTT is empty after commit; txcount kept its row.
  EXPECT_EQ(Count("sqlrun_gtt"), 0);
  EXPECT_EQ(Count("txcount"), 1);
  Run(kMerge);
  Run("commit");
  StatementResult tx = Run("select sid, txacts from txcount");
  ASSERT_EQ(tx.result_rows.size(), 1u);
  EXPECT_EQ(tx.result_rows[0][0], std::to_string(s_->sid()));
  EXPECT_EQ(tx.result_rows[0][1], "2");
  EXPECT_EQ(Run("drop table sqlrun_gtt purge").feedback, "Table dropped.");
  EXPECT_EQ(s_->Execute("select * from sqlrun_gtt").status().code(), absl::StatusCode::kNotFound);
}

TEST_F(TxnTest, RollbackRestoresEveryChange) {
  Run("create table t (id number, name varchar2(30))");
  Run("insert into t values (1, 'one')");
  Run("insert into t values (2, 'two')");
  Run("commit");
  Run("update t set name = 'a much longer name than before' where id = 1");
  Run("delete from t where id = 2");
  Run("insert into t select object_id, 'x' from all_objects where object_id < 500");
  EXPECT_EQ(Count("t"), 1 + 498);
  EXPECT_EQ(Run("rollback").feedback, "Rollback complete.");
  StatementResult r = Run("select id, name from t order by id");
  ASSERT_EQ(r.result_rows.size(), 2u);
  EXPECT_EQ(r.result_rows[0][1], "one");
  EXPECT_EQ(r.result_rows[1][1], "two");
  EXPECT_EQ(s_->Stats()[Stat::kUserRollbacks], 1);
}

// SAVEPOINT and ROLLBACK TO: the changes since the savepoint go (several
// statements' worth, an index's entries too), the transaction and the
// earlier changes stay, later savepoints go; COMMIT ends them all. After a
// crash, recovery replays exactly what was committed.
TEST_F(TxnTest, RollbackToSavepointUndoesOnlyWhatFollowsIt) {
  Run("create table t (id number primary key, name varchar2(30))");
  Run("insert into t values (1, 'one')");
  EXPECT_EQ(Run("savepoint a").feedback, "Savepoint created.");
  Run("insert into t values (2, 'two')");
  Run("update t set name = 'uno' where id = 1");
  Run("savepoint b");
  Run("delete from t where id = 1");
  Run("insert into t select object_id + 10, 'x' from all_objects where object_id < 100");
  EXPECT_EQ(Run("rollback to savepoint b").feedback, "Rollback complete.");
  EXPECT_EQ(Count("t"), 2);
  EXPECT_EQ(One("select name from t where id = 1"), "uno");
  Run("rollback work to a");
  EXPECT_EQ(Count("t"), 1);
  EXPECT_EQ(One("select name from t where id = 1"), "one");
  EXPECT_THAT(Error("rollback to b"), ::testing::HasSubstr("ORA-01086"));  // set after A: gone
  Run("insert into t values (2, 'deux')");  // the index took back its entry for 2
  Run("savepoint a");                       // the name again: moved here
  Run("insert into t values (3, 'trois')");
  Run("rollback to a");
  Run("commit");
  EXPECT_THAT(Error("rollback to a"), ::testing::HasSubstr("ORA-01086"));
  Run("insert into t values (4, 'never committed')");
  Crash();
  ASSERT_OK(Reopen());
  StatementResult r = Run("select id, name from t order by id");
  ASSERT_EQ(r.result_rows.size(), 2u);
  EXPECT_EQ(r.result_rows[0], (std::vector<std::string>{"1", "one"}));
  EXPECT_EQ(r.result_rows[1], (std::vector<std::string>{"2", "deux"}));
  EXPECT_THAT(Error("insert into t values (2, 'dup')"), ::testing::HasSubstr("ORA-00001"));
}

// Statement-level read consistency: the SELECT of an INSERT ... SELECT sees its
// table as it was when the statement began, not the rows the statement adds
// to the table's last block while it scans (the Halloween problem).
TEST_F(TxnTest, InsertSelectFromItsOwnTableSeesTheTableAsItWas) {
  for (const std::string t : {"heap", "gtt"}) {
    SCOPED_TRACE(t);
    Run(t == "heap" ? "create table heap as select * from all_objects where 1=0"
                    : "create global temporary table gtt on commit preserve rows as select * "
                      "from all_objects where 1=0");
    // ~1,000 rows: the last block is part full, so the copies go into it first.
    Run("insert into " + t + " select * from all_objects where object_id <= 1001");
    const int64_t before = Count(t);
    ASSERT_GT(before, 0);
    EXPECT_EQ(Run("insert into " + t + " select * from " + t).rows, before);
    EXPECT_EQ(Count(t), 2 * before);
    EXPECT_EQ(Run("insert into " + t + " select * from " + t).rows, 2 * before);
    EXPECT_EQ(Count(t), 4 * before);
    Run("commit");
  }
}

// MERGE joins the target as it was when the statement began: two source rows
// with the same new key are both inserted (the second does not match the row
// the first inserted), and a target row two source rows match is ORA-30926,
// the statement then leaving nothing changed.
TEST_F(TxnTest, MergeJoinsTheTargetAsItWasAndRefusesAnUnstableSet) {
  Run("create table m (id number, v varchar2(10))");
  Run("create table src (id number)");
  Run("insert into m values (1, 'one')");
  Run("insert into src values (2)");
  Run("insert into src values (2)");
  Run("commit");
  const std::string merge =
      "merge into m using (select id from src) s on (m.id = s.id) when matched then update set "
      "m.v = 'upd' when not matched then insert (id, v) values (s.id, 'new')";
  EXPECT_EQ(Run(merge).rows, 2);
  EXPECT_EQ(One("select count(*) from m where id = 2 and v = 'new'"), "2");
  Run("rollback");
  Run("insert into src values (1)");
  Run("insert into src values (1)");
  EXPECT_THAT(Error(merge), HasSubstr("ORA-30926: unable to get a stable set of rows"));
  EXPECT_EQ(One("select v from m where id = 1"), "one");
  EXPECT_EQ(Count("m"), 1);
  // A column the ON condition reads from the target cannot be SET
  // (ORA-38104), qualified or not, and nothing changes.
  EXPECT_THAT(Error("merge into m using (select id from src) s on (m.id = s.id) when matched "
                    "then update set m.id = s.id + 10"),
              HasSubstr("ORA-38104: Columns referenced in the ON Clause cannot be updated: "
                        "\"M\".\"ID\""));
  EXPECT_THAT(Error("merge into m t using (select id from src) s on (id = s.id) when matched "
                    "then update set id = 7"),
              HasSubstr("ORA-38104: Columns referenced in the ON Clause cannot be updated: "
                        "\"T\".\"ID\""));
  EXPECT_EQ(One("select count(*) from m where id = 1 and v = 'one'"), "1");
  // A source column in ON (s.v) is not the target's column of that name.
  Run("delete from src");
  Run("insert into src values (1)");
  EXPECT_EQ(Run("merge into m using (select id, id v from src) s on (m.id = s.v) when matched "
                "then update set m.v = 'x'").rows, 1);
  EXPECT_EQ(One("select v from m where id = 1"), "x");
  // USING a table (named by its alias, or by its name without one) or DUAL.
  Run("insert into src values (3)");
  EXPECT_EQ(Run("merge into m using src on (m.id = src.id) when matched then update set m.v = "
                "'tbl' when not matched then insert (id, v) values (src.id, 'tbl-new')").rows,
            2);
  EXPECT_EQ(One("select listagg(id || v, ',') within group (order by id) from m"),
            "1tbl,3tbl-new");
  EXPECT_EQ(Run("merge into m t using src s on (t.id = s.id) when matched then update set "
                "t.v = 'alias'").rows,
            2);
  EXPECT_EQ(Run("merge into m using dual on (m.id = 9) when not matched then insert (id, v) "
                "values (9, dual.dummy)").rows,
            1);
  EXPECT_EQ(One("select v from m where id = 9"), "X");
  EXPECT_EQ(Run("merge into m using dual on (m.id = 9) when matched then update set v = 'nine' "
                "when not matched then insert (id, v) values (9, 'dup')").rows,
            1);
  EXPECT_EQ(One("select count(*) || v from m where id = 9 group by v"), "1nine");
  EXPECT_THAT(Error("merge into m using nosuch on (1 = 1) when matched then update set v = 'z'"),
              HasSubstr("ORA-00942"));
  EXPECT_THAT(Error("merge into m using 'x' on (1 = 1) when matched then update set v = 'z'"),
              HasSubstr("expected '(' and a query, or a table or view, found the string 'x'"));
}

TEST_F(TxnTest, RownumAndLevelAreOraclesPseudocolumns) {
  Run("create table r (id number)");
  EXPECT_EQ(Run("insert into r select level from dual connect by level <= 10").rows, 10);
  EXPECT_EQ(One("select sum(id) from r"), "55");
  EXPECT_EQ(One("select max(l) from (select level l from dual connect by level <= 5)"), "5");
  EXPECT_EQ(One("select count(*) from dual connect by level < 5"), "4");
  EXPECT_EQ(One("select count(*) from dual connect by level < 2.5"), "2");
  EXPECT_EQ(One("select count(*) from dual connect by level <= 0"), "1");  // the root row stays
  // ROWNUM: given to each row WHERE accepts, before ORDER BY sorts.
  EXPECT_EQ(One("select count(*) from r where rownum <= 3"), "3");
  EXPECT_EQ(One("select count(*) from r where rownum > 1"), "0");
  EXPECT_EQ(One("select rownum from r where id = 7"), "1");
  EXPECT_EQ(One("select max(n) from (select rownum n, id from r where id > 5 order by id desc)"),
            "5");
  // WHERE filters every row of the CONNECT BY hierarchy.
  EXPECT_EQ(One("select count(*) from dual where rownum <= 2 connect by level <= 4"), "2");
  EXPECT_EQ(Run("delete from r where rownum <= 4").rows, 4);
  EXPECT_EQ(Count("r"), 6);
  EXPECT_EQ(Run("update r set id = rownum").rows, 6);
  EXPECT_EQ(One("select sum(id) from r"), "21");
  EXPECT_THAT(Error("select level from r"), HasSubstr("ORA-01788"));
  EXPECT_THAT(Error("insert into r values (rownum)"), HasSubstr("ORA-00976"));
  EXPECT_EQ(Count("r"), 6);
}

// A query's rows, as SQL*Plus prints their cells.
using Cells = std::vector<std::vector<std::string>>;

TEST_F(TxnTest, GroupByHavingDistinctAndAggregatesAreOracles) {
  Run("create table emp (id number, name varchar2(10), dept number, sal number)");
  Run("insert into emp values (1, 'alice', 10, 1000)");
  Run("insert into emp values (2, 'bob', 20, 2000)");
  Run("insert into emp values (3, 'carol', 10, 1500)");
  Run("insert into emp values (4, 'dave', null, null)");
  Run("insert into emp values (5, 'erin', 20, 2000)");
  // Groups in the order of their GROUP BY values, NULL last; aggregates skip NULLs.
  EXPECT_EQ(Run("select dept, count(*), count(sal), sum(sal), avg(sal), min(name), "
                       "max(name) from emp group by dept").result_rows,
            (Cells{{"10", "2", "2", "2500", "1250", "alice", "carol"},
                   {"20", "2", "2", "4000", "2000", "bob", "erin"},
                   {"", "1", "0", "", "", "dave", "dave"}}));
  EXPECT_EQ(Run("select dept, sum(sal) / count(*) per from emp group by dept "
                       "having count(*) > 1 order by per desc").result_rows,
            (Cells{{"20", "2000"}, {"10", "1250"}}));
  EXPECT_EQ(Run("select count(distinct sal), sum(distinct sal) from emp").result_rows,
            (Cells{{"3", "4500"}}));
  // No row: one group without GROUP BY, none with it.
  EXPECT_EQ(Run("select count(*), sum(sal) from emp where id > 9").result_rows, (Cells{{"0", ""}}));
  EXPECT_EQ(Run("select dept, count(*) from emp where id > 9 group by dept").result_rows.size(), 0u);
  EXPECT_EQ(Run("select distinct dept from emp order by dept").result_rows,
            (Cells{{"10"}, {"20"}, {""}}));
  EXPECT_EQ(Run("select distinct dept from emp order by dept nulls first").result_rows,
            (Cells{{""}, {"10"}, {"20"}}));
  EXPECT_EQ(Run("select distinct dept from emp order by dept desc nulls last").result_rows,
            (Cells{{"20"}, {"10"}, {""}}));
  EXPECT_EQ(Run("select distinct sal from emp where sal is not null order by 1 desc").result_rows,
            (Cells{{"2000"}, {"1500"}, {"1000"}}));
  // ORDER BY a select-list alias (which wins over a column of that name).
  EXPECT_EQ(Run("select name, 0 - id id from emp where id < 3 order by id").result_rows,
            (Cells{{"bob", "-2"}, {"alice", "-1"}}));
  // A grouped query feeds INSERT ... SELECT and CTAS.
  Run("create table by_dept as select dept, count(*) n from emp where dept is not null group by dept");
  EXPECT_EQ(One("select sum(n) from by_dept"), "4");
  // Oracle's parse errors, before any row is read; the crash of a bare column
  // beside an aggregate is gone.
  EXPECT_THAT(Error("select count(*), name from emp"), HasSubstr("ORA-00937"));
  EXPECT_THAT(Error("select name, count(*) from emp group by dept"), HasSubstr("ORA-00979"));
  EXPECT_THAT(Error("select * from emp group by dept"), HasSubstr("ORA-00979"));
  EXPECT_THAT(Error("select max(count(*)) from emp group by dept"), HasSubstr("ORA-00935"));
  EXPECT_THAT(Error("select id from emp where count(*) > 1"), HasSubstr("ORA-00934"));
  EXPECT_THAT(Error("select distinct dept from emp order by sal"), HasSubstr("ORA-01791"));
  EXPECT_THAT(Error("select id from emp order by 3"), HasSubstr("ORA-01785"));
  EXPECT_THAT(Error("select dept from emp group by nope"), HasSubstr("ORA-00904"));
}

// CTAS types each SELECT-list expression as Oracle does when it parses
// (RPAD(x, 100) is VARCHAR2(100), SYSDATE a DATE, ...), where every
// expression that was not a column or a literal used to be a NUMBER (and
// `rpad('x', 100) pad` failed with ORA-01722); a compound query's text
// columns are as long as the longest branch's.
TEST_F(TxnTest, CreateTableAsSelectTypesEachExpression) {
  Run("create table c1 as select rownum id, rpad('x', 100) pad, sysdate d, upper('abc') u, "
      "'a' || rownum cat, trunc(sysdate) td, sysdate + 1 tomorrow, nvl(null, 'xy') n, "
      "decode(rownum, 1, 'one', 'other') dc, case when rownum = 1 then 'yes' else null end cs, "
      "cast(rownum as varchar2(7)) ca, to_char(rownum) tc, length('abc') ln "
      "from dual connect by level <= 5");
  EXPECT_EQ(Run("select column_name || ' ' || data_type || ' ' || data_length "
                "from user_tab_columns where table_name = 'C1' order by column_id")
                .result_rows,
            (Cells{{"ID NUMBER 22"},         {"PAD VARCHAR2 100"}, {"D DATE 7"},
                   {"U VARCHAR2 3"},         {"CAT VARCHAR2 41"},  {"TD DATE 7"},
                   {"TOMORROW DATE 7"},      {"N VARCHAR2 2"},     {"DC VARCHAR2 5"},
                   {"CS VARCHAR2 3"},        {"CA VARCHAR2 7"},    {"TC VARCHAR2 40"},
                   {"LN NUMBER 22"}}));
  EXPECT_EQ(One("select count(*) || ' ' || max(length(pad)) || ' ' || max(dc) from c1"),
            "5 100 other");
  Run("create table c2 as select 'ab' a from dual union all select 'abcd' from dual");
  EXPECT_EQ(One("select data_length from user_tab_columns where table_name = 'C2'"), "4");
  EXPECT_EQ(One("select count(*) from c2"), "2");
  // What cellsim lacks says so, at the word it lacks.
  EXPECT_THAT(Error("select percentile_cont(0.5) within group (order by id) from c1"),
              HasSubstr("PERCENTILE_CONT(...) WITHIN is not supported"));
}

// A CTAS whose rows fail leaves no table and no transaction, as Oracle's.
TEST_F(TxnTest, AFailedCreateTableAsSelectLeavesNoTable) {
  Run("create table src (v varchar2(10))");
  Run("insert into src values ('12')");
  Run("insert into src values ('x')");
  Run("commit");
  EXPECT_THAT(Error("create table bad as select to_number(v) n from src"), HasSubstr("ORA-01722"));
  EXPECT_EQ(One("select count(*) from user_tables where table_name = 'BAD'"), "0");
  EXPECT_EQ(One("select count(*) from v$transaction"), "0");
  EXPECT_EQ(One("select count(*) from user_segments where segment_name = 'BAD'"), "0");
  // The name is free again, and the restart finds no trace of it either.
  Run("create table bad as select v from src");
  EXPECT_EQ(One("select count(*) from bad"), "2");
  Run("drop table bad purge");
  EXPECT_THAT(Error("create table bad as select to_number(v) n from src"), HasSubstr("ORA-01722"));
  ASSERT_OK(Reopen());
  EXPECT_EQ(One("select count(*) from user_tables where table_name = 'BAD'"), "0");
}

TEST_F(TxnTest, NullMakesUnknownNotFalse) {
  Run("create table n (a number, b number)");
  Run("insert into n values (1, null)");
  Run("insert into n values (null, 2)");
  Run("insert into n values (3, 3)");
  // Arithmetic with NULL is NULL: an UPDATE keeps it NULL.
  EXPECT_EQ(Run("select 1 + null, null * 2, 'x' || null from dual").result_rows,
            (Cells{{"", "", "x"}}));
  EXPECT_EQ(Run("update n set a = a + 1").rows, 3);
  EXPECT_EQ(One("select count(*) from n where a is null"), "1");
  // NOT of UNKNOWN is UNKNOWN: the row with a NULL is in neither half.
  EXPECT_EQ(One("select count(*) from n where a = 2"), "1");
  EXPECT_EQ(One("select count(*) from n where not (a = 2)"), "1");
  EXPECT_EQ(One("select count(*) from n where a = 2 or b = 2"), "2");
  EXPECT_EQ(One("select count(*) from n where not (a = 2 and b = 9)"), "2");
  // IN with a NULL in the list: NOT IN keeps nothing.
  EXPECT_EQ(One("select count(*) from n where a in (2, null)"), "1");
  EXPECT_EQ(One("select count(*) from n where a not in (2, null)"), "0");
  EXPECT_EQ(One("select count(*) from n where a not in (2)"), "1");
  // BETWEEN is >= AND <=: a NULL bound or value is UNKNOWN either way.
  EXPECT_EQ(One("select count(*) from n where a between 2 and 4"), "2");
  EXPECT_EQ(One("select count(*) from n where a not between 3 and 4"), "1");
  EXPECT_EQ(One("select count(*) from n where b between a - 1 and 9"), "1");
  EXPECT_EQ(One("select count(*) from n where a between 1 and null"), "0");
  EXPECT_EQ(One("select count(*) from n where a between 3 and 2 + 2 and b = 3"), "1");
  EXPECT_THAT(Error("select * from n where a between 1"), HasSubstr("ORA-00905"));
  // A misspelt FROM is read as a column alias: Oracle's ORA-00923, and which alias.
  EXPECT_THAT(Error("select count(*) form n"),
              AllOf(HasSubstr("ORA-00923: FROM keyword not found where expected"),
                    HasSubstr("expected FROM, found 'n' (after the column alias FORM)")));
  EXPECT_THAT(Error("select 1"), HasSubstr("ORA-00923"));
  // CAST, EXTRACT and the DATE literal.
  EXPECT_EQ(One("select cast('12.345' as number(5,2)) from dual"), "12.35");
  EXPECT_EQ(One("select cast(42 as varchar2(5)) || '|' from dual"), "42|");
  EXPECT_EQ(One("select cast('x' as char(3)) || '|' from dual"), "x  |");
  EXPECT_EQ(One("select nvl(cast(null as number), -1) from dual"), "-1");
  EXPECT_EQ(One("select to_char(cast('04-DEC-26' as date), 'YYYY-MM-DD') from dual"), "2026-12-04");
  EXPECT_THAT(Error("select cast(123456 as varchar2(3)) from dual"), HasSubstr("ORA-25137"));
  EXPECT_THAT(Error("select cast(sysdate as number) from dual"), HasSubstr("ORA-00932"));
  EXPECT_THAT(Error("select cast(1 as blob) from dual"), HasSubstr("ORA-00902"));
  EXPECT_EQ(One("select extract(year from date '2026-12-04') * 100 + "
                "extract(month from date '2026-12-04') from dual"), "202612");
  EXPECT_EQ(One("select extract(day from to_date('2026-02-03', 'YYYY-MM-DD')) from dual"), "3");
  EXPECT_THAT(Error("select extract(hour from sysdate) from dual"), HasSubstr("ORA-30076"));
  EXPECT_THAT(Error("select date '2026-13-01' from dual"), HasSubstr("ORA-01843"));
}

TEST_F(TxnTest, DatesAndFunctionsAreOracles) {
  Run("create table d (id number, at date)");
  Run("insert into d values (1, sysdate)");
  Run("insert into d values (2, '15-MAR-26')");  // the session's DD-MON-RR
  Run("insert into d values (3, to_date('2024-02-29 13:45:10', 'YYYY-MM-DD HH24:MI:SS'))");
  EXPECT_EQ(One("select count(*) from d where at is null"), "0");
  EXPECT_EQ(One("select count(*) from d where at > to_date('2020-01-01', 'YYYY-MM-DD')"), "3");
  EXPECT_EQ(One("select to_char(at, 'YYYY-MM-DD HH24:MI:SS') from d where id = 2"),
            "2026-03-15 00:00:00");
  EXPECT_EQ(One("select at from d where id = 3"), "29-FEB-24");
  EXPECT_EQ(One("select to_char(at + 1, 'DD-MON-YYYY HH12:MI:SS PM') from d where id = 3"),
            "01-MAR-2024 01:45:10 PM");
  EXPECT_EQ(One("select to_char(at, 'FMDay, Month DD') from d where id = 2"), "Sunday, March 15");
  EXPECT_EQ(One("select at - to_date('2026-03-14', 'YYYY-MM-DD') from d where id = 2"), "1");
  EXPECT_EQ(One("select to_char(add_months(at, 12), 'YYYY-MM-DD') from d where id = 3"),
            "2025-02-28");
  EXPECT_EQ(One("select to_char(trunc(at, 'MM'), 'YYYY-MM-DD HH24:MI') from d where id = 3"),
            "2024-02-01 00:00");
  EXPECT_EQ(One("select count(*) from d where at >= '15-MAR-26' and id > 1"), "1");
  EXPECT_THAT(Error("select at + at from d"), HasSubstr("ORA-00975"));
  EXPECT_THAT(Error("select to_date('31-FEB-24') from dual"), HasSubstr("ORA-01847"));
  EXPECT_THAT(Error("select to_date('2024-13-01', 'YYYY-MM-DD') from dual"), HasSubstr("ORA-01843"));
  EXPECT_THAT(Error("insert into d values (4, 'soon')"), HasSubstr("ORA-01858"));
  EXPECT_THAT(Error("insert into d values (4, 5)"), HasSubstr("ORA-00932"));
  // Single-row functions.
  EXPECT_EQ(Run("select length('abc'), substr('abcdef', 2, 3), substr('abcdef', -2), "
                       "instr('banana', 'an', 1, 2), lpad('7', 3, '0'), rtrim('xy  '), "
                       "replace('a-b-c', '-'), initcap('hello world') from dual").result_rows,
            (Cells{{"3", "bcd", "ef", "4", "007", "xy", "abc", "Hello World"}}));
  EXPECT_EQ(Run("select round(1.005, 2), trunc(0.29 * 100), mod(-7, 3), abs(-2), "
                       "ceil(1.1), floor(-1.1), to_char(1234567.891, '9,999,999.99'), "
                       "to_number('42') + 1, coalesce(null, null, 3), nvl2(null, 1, 2), "
                       "decode(2, 1, 'one', 2, 'two', 'many'), greatest(3, 7, 5) from dual").result_rows,
            (Cells{{"1.01", "29", "-1", "2", "2", "-2", " 1,234,567.89", "43", "3", "2", "two",
                    "7"}}));
  EXPECT_THAT(Error("select substr('abc') from dual"), HasSubstr("ORA-00909"));
  EXPECT_THAT(Error("select to_number('4x') from dual"), HasSubstr("ORA-01722"));
  EXPECT_THAT(Error("select soundex('a') from dual"), HasSubstr("ORA-00904"));
}

// A comparison converts as Oracle does, and fails where Oracle fails: text
// against a number is read as a number (ORA-01722 for a row whose text is
// none: it was read as 0), text against a DATE in the session's format, a
// DATE against a number is ORA-00932. DECODE and GREATEST convert to their
// first argument's datatype; CASE and NULLIF take one datatype only.
TEST_F(TxnTest, AComparisonConvertsTextAsOracleDoesAndFailsWhereOracleFails) {
  Run("create table t (id number, s varchar2(10), at date)");
  Run("insert into t values (1, '10', '15-MAR-26')");
  Run("insert into t values (2, 'abc', '16-MAR-26')");
  Run("insert into t values (3, ' 7 ', null)");
  EXPECT_THAT(Error("select count(*) from t where s = 10"), HasSubstr("ORA-01722: invalid number ('abc')"));
  EXPECT_THAT(Error("select count(*) from t where s = 0"), HasSubstr("ORA-01722"));
  EXPECT_EQ(One("select count(*) from t where id <> 2 and s < 9"), "1");  // ' 7 ' is 7
  EXPECT_EQ(One("select count(*) from t where id = '1'"), "1");
  EXPECT_EQ(One("select count(*) from t where id in ('1', 3)"), "2");
  EXPECT_THAT(Error("select count(*) from t where id = 'one'"), HasSubstr("ORA-01722"));
  EXPECT_THAT(Error("select count(*) from t where id in (5, 'x')"), HasSubstr("ORA-01722"));
  EXPECT_THAT(Error("select count(*) from t where id in (select s from t)"), HasSubstr("ORA-01722"));
  EXPECT_THAT(Error("select count(*) from t a join t b on a.id = b.s"), HasSubstr("ORA-01722"));
  Run("create table u (id varchar2(5))");
  Run("insert into u values ('1')");
  EXPECT_EQ(One("select count(*) from t join u using (id)"), "1");
  Run("insert into u values ('x')");
  EXPECT_THAT(Error("select count(*) from t join u using (id)"), HasSubstr("ORA-01722"));
  EXPECT_EQ(One("select count(*) from t where at >= '16-MAR-26'"), "1");
  EXPECT_THAT(Error("select count(*) from t where at > 'soon'"), HasSubstr("ORA-01858"));
  EXPECT_THAT(Error("select count(*) from t where at > 5"),
              HasSubstr("ORA-00932: inconsistent datatypes: expected DATE got NUMBER"));
  EXPECT_EQ(Run("select decode(1, '01', 'y', 'n'), decode(1, 1, 'y', 'n'), decode('1', 1, 'y', 'n'), "
                "greatest('10', 9), greatest(9, '10'), least('b', 'a', 'c') from dual").result_rows,
            (Cells{{"n", "y", "y", "9", "10", "a"}}));
  EXPECT_THAT(Error("select decode('a', 1, 'y', 'n') from dual"), HasSubstr("ORA-01722"));
  EXPECT_THAT(Error("select greatest(1, 'x') from dual"), HasSubstr("ORA-01722"));
  EXPECT_THAT(Error("select case 1 when '1' then 'y' end from dual"),
              HasSubstr("ORA-00932: inconsistent datatypes: expected NUMBER got CHAR"));
  EXPECT_THAT(Error("select nullif(1, '1') from dual"), HasSubstr("ORA-00932"));
  EXPECT_EQ(One("select case s when 'abc' then 'found' end from t where id = 2"), "found");
}

// A stored NUMBER reads back as the value written: `where x = 0.7` finds
// the row `insert ... values (0.7)` wrote (it read back as 0.7 + 1 ulp
// before the decoding scaled its digits once, and matched no row).
TEST_F(TxnTest, AStoredDecimalEqualsTheLiteralItWasWrittenFrom) {
  Run("create table money (x number)");
  const std::vector<std::string> values = {"0.7", "-0.7", "0.07", "1234567.89", "3.14159265358979",
                                           "0.00001", "99999999.99", "1e-100", "123456789012345"};
  for (const std::string& v : values) Run("insert into money values (" + v + ")");
  for (const std::string& v : values) {
    EXPECT_EQ(One("select count(*) from money where x = " + v), "1") << v;
  }
  EXPECT_EQ(One("select x * 10 - 7 from money where x = 0.7"), "0");
}

TEST_F(TxnTest, NumberPrecisionScaleAndNotNullAreKept) {
  Run("create table p (a number(5,2) not null, b integer, c number(3), e number(*,1), "
      "f number(4,-2), g number)");
  Run("insert into p values (1.005, 1.5, 12.7, 1.25, 1249, 1.23456789)");
  EXPECT_EQ(Run("select * from p").result_rows,
            (Cells{{"1.01", "2", "13", "1.3", "1200", "1.23456789"}}));
  EXPECT_THAT(Error("insert into p (a, c) values (1234.5, 1)"), HasSubstr("ORA-01438"));
  EXPECT_THAT(Error("insert into p (a, c) values (1, 1000)"), HasSubstr("ORA-01438"));
  EXPECT_THAT(Error("insert into p (a, c) values (999.999, 1)"), HasSubstr("ORA-01438"));
  EXPECT_THAT(Error("insert into p (b) values (1)"),
              HasSubstr("ORA-01400: cannot insert NULL into (\"CELLSIM\".\"P\".\"A\")"));
  EXPECT_THAT(Error("update p set a = null"), HasSubstr("ORA-01407"));
  EXPECT_THAT(Error("update p set a = a * 1000"), HasSubstr("ORA-01438"));
  EXPECT_EQ(One("select a from p"), "1.01");  // the failed statements changed nothing
  EXPECT_THAT(Error("create table q (a number(39))"), HasSubstr("ORA-01727"));
  EXPECT_THAT(Error("create table q (a number(5, 128))"), HasSubstr("ORA-01728"));
  EXPECT_THAT(Error("create table q (a varchar2(5, 2))"), HasSubstr("ORA-00907"));
  // Text that is not a number, or one past a double, never becomes one.
  EXPECT_THAT(Error("insert into p (a) values ('nan')"), HasSubstr("ORA-01722"));
  EXPECT_THAT(Error("insert into p (g, a) values ('1e400', 1)"), HasSubstr("ORA-01426"));
  EXPECT_THAT(Error("select to_number('inf') from dual"), HasSubstr("ORA-01722"));
  EXPECT_THAT(Error("select exp(1000) from dual"), HasSubstr("ORA-01426"));
  EXPECT_THAT(Error("select 1e308 * 10 from dual"), HasSubstr("ORA-01426"));
  EXPECT_EQ(Run("select 1e3, 2.5E-2, round(1.5, 400), length(rpad('x', 100000000000)) "
                "from dual").result_rows,
            (Cells{{"1000", ".025", "1.5", "4000"}}));
  EXPECT_THAT(Error("select lpad('x', 4000) || 'y' from dual"), HasSubstr("ORA-01489"));
  EXPECT_EQ(Run("desc p").result_rows,
            (Cells{{"A", "NOT NULL", "NUMBER(5,2)"}, {"B", "", "NUMBER(38)"},
                   {"C", "", "NUMBER(3)"}, {"E", "", "NUMBER(38,1)"}, {"F", "", "NUMBER(4,-2)"},
                   {"G", "", "NUMBER"}}));
  EXPECT_THAT(Error("describe nope"), HasSubstr("ORA-04043"));
  // CTAS keeps the columns' precision, scale and type.
  Run("create table p2 as select a from p");
  EXPECT_THAT(Error("insert into p2 values (1234.5)"), HasSubstr("ORA-01438"));
}

// PRIMARY KEY and UNIQUE are unique indexes of the constraint's name (or
// SYS_Cnnnnnnn), created with the table in one DDL; a primary key's columns
// are NOT NULL.
TEST_F(TxnTest, PrimaryKeyAndUniqueConstraintsAreUniqueIndexes) {
  Run("create table emp (id number primary key, name varchar2(20) constraint emp_name_uk unique, "
      "dept number, constraint emp_dept_name unique (dept, name))");
  Run("insert into emp values (1, 'a', 10)");
  EXPECT_THAT(Error("insert into emp values (1, 'b', 10)"),
              AllOf(HasSubstr("ORA-00001"), HasSubstr("CELLSIM.SYS_C")));
  EXPECT_THAT(Error("insert into emp values (2, 'a', 20)"), HasSubstr("EMP_NAME_UK"));
  EXPECT_THAT(Error("insert into emp (name) values ('c')"), HasSubstr("ORA-01400"));
  Run("insert into emp values (2, 'b', 10)");
  EXPECT_EQ(One("select count(*) from user_indexes where table_name = 'EMP' and uniqueness = "
                "'UNIQUE'"), "3");
  Run("create table kv (k varchar2(10), v number, constraint kv_pk primary key (k, v))");
  Run("insert into kv values ('x', 1)");
  EXPECT_THAT(Error("insert into kv values ('x', 1)"), HasSubstr("CELLSIM.KV_PK"));
  // Refused before the table exists, which then does not.
  EXPECT_THAT(Error("create table t2 (a number primary key, b number, primary key (b))"),
              HasSubstr("ORA-02260"));
  EXPECT_THAT(Error("create table t2 (a number unique, unique (a))"), HasSubstr("ORA-02261"));
  EXPECT_THAT(Error("create table t2 (a number, constraint kv_pk unique (a))"),
              HasSubstr("ORA-00955"));
  EXPECT_THAT(Error("create table t2 (a number, primary key (zz))"), HasSubstr("ORA-00904"));
  EXPECT_THAT(Error("create table t2 (a number references emp (id))"),
              HasSubstr("REFERENCES constraints are not supported"));
  EXPECT_THAT(Error("select * from t2"), HasSubstr("ORA-00942"));
  Run("drop table emp");
  EXPECT_EQ(One("select count(*) from user_indexes where table_name = 'EMP'"), "0");
}

// CASE, scalar subqueries and IN (SELECT ...): a subquery runs once, before
// the statement's rows, as of the statement's start.
TEST_F(TxnTest, CaseAndSubqueriesAreOracles) {
  Run("create table e (id number, dept number, sal number)");
  Run("insert into e values (1, 10, 1000)");
  Run("insert into e values (2, 20, 2000)");
  Run("insert into e values (3, 10, 1500)");
  Run("insert into e values (4, null, null)");
  EXPECT_EQ(Run("select id, case when sal >= 1500 then 'high' when sal < 1500 then 'low' end, "
                "case dept when 10 then 'ten' when null then 'never' else 'other' end from e "
                "order by id").result_rows,
            (Cells{{"1", "low", "ten"}, {"2", "high", "other"}, {"3", "high", "ten"},
                   {"4", "", "other"}}));
  EXPECT_EQ(One("select count(*) from e where dept in (select dept from e where sal > 1900)"), "1");
  EXPECT_EQ(One("select count(*) from e where sal > (select avg(sal) from e)"), "1");
  // NOT IN over a subquery with a NULL in it keeps nothing, as the list form.
  EXPECT_EQ(One("select count(*) from e where id not in (select dept from e)"), "0");
  EXPECT_EQ(One("select count(*) from e where id not in (select id from e where dept = 10)"), "2");
  EXPECT_EQ(One("select count(*) from e where sal = (select sal from e where id = 9)"), "0");
  EXPECT_EQ(Run("update e set sal = (select max(sal) from e) where id = 1").rows, 1);
  EXPECT_EQ(Run("delete from e where id in (select id from e where sal < 1600)").rows, 1);
  Run("insert into e values ((select max(id) + 1 from e), 30, 1)");
  EXPECT_EQ(One("select max(id) from e"), "5");
  EXPECT_EQ(One("select sum(case when sal is null then 1 else 0 end) from e"), "1");
  EXPECT_THAT(Error("select id from e where sal = (select sal from e)"), HasSubstr("ORA-01427"));
  EXPECT_THAT(Error("select id from e where id in (select id, sal from e)"), HasSubstr("ORA-00913"));
  EXPECT_EQ(One("select count(*) from e a where sal >= (select avg(sal) from e b where b.dept = "
                "a.dept)"), "3");
  EXPECT_THAT(Error("insert into e values ((select max(id) from e b where b.id = e.id), 1, 1)"),
              AllOf(HasSubstr("ORA-00904"), HasSubstr("cannot name a column of the statement")));
  EXPECT_THAT(Error("select case when 1 = 1 then 'x' from dual"), HasSubstr("END"));
  // A subquery where cellsim does not run one: said, not a wrong answer.
  EXPECT_THAT(Error("merge into e a using (select 1 id from dual) s on (a.id = (select 1 from "
                    "dual)) when matched then update set sal = 1"),
              HasSubstr("a subquery is not supported here"));
}

// Correlated subqueries and [NOT] EXISTS: a subquery that names a column of
// the row around it runs for each such row (innermost name first); a name
// nothing has is ORA-00904 before any row is read; in UPDATE / DELETE one
// may name the target's row, but not read the target (which the statement
// changes as it goes) — refused, not a wrong answer.
TEST_F(TxnTest, CorrelatedSubqueriesAndExists) {
  Run("create table dept (deptno number, dname varchar2(14))");
  Run("create table emp (empno number, ename varchar2(10), sal number, deptno number)");
  for (const char* d : {"(10, 'ACCOUNTING')", "(20, 'RESEARCH')", "(30, 'SALES')", "(40, 'OPS')"}) {
    Run(std::string("insert into dept values ") + d);
  }
  for (const char* e : {"(1, 'KING', 5000, 10)", "(2, 'CLARK', 2450, 10)", "(3, 'SCOTT', 3000, 20)",
                        "(4, 'SMITH', 800, 20)", "(5, 'ADAMS', 1100, 20)", "(6, 'ALLEN', 1600, 30)",
                        "(7, 'NOBODY', 100, null)"}) {
    Run(std::string("insert into emp values ") + e);
  }
  Run("commit");
  EXPECT_EQ(Run("select dname from dept d where exists (select 1 from emp e where e.deptno = "
                "d.deptno) order by dname").result_rows,
            (Cells{{"ACCOUNTING"}, {"RESEARCH"}, {"SALES"}}));
  EXPECT_EQ(One("select dname from dept d where not exists (select * from emp e where e.deptno = "
                "d.deptno)"), "OPS");
  // Each employee paid more than the average of their department.
  EXPECT_EQ(Run("select ename from emp e where sal > (select avg(sal) from emp x where x.deptno = "
                "e.deptno) order by ename").result_rows,
            (Cells{{"KING"}, {"SCOTT"}}));
  // In the select list, with an aggregate, and unqualified: DEPTNO inside is
  // the subquery's own (EMP's), so this counts all of EMP's rows with a dept.
  EXPECT_EQ(Run("select dname, (select count(*) from emp e where e.deptno = d.deptno) n, "
                "(select count(*) from emp where deptno = deptno) m from dept d order by 1")
                .result_rows,
            (Cells{{"ACCOUNTING", "2", "6"}, {"OPS", "0", "6"}, {"RESEARCH", "3", "6"},
                   {"SALES", "1", "6"}}));
  // Two levels down, naming the outermost row.
  EXPECT_EQ(One("select count(*) from dept d where exists (select 1 from emp e where e.deptno = "
                "d.deptno and exists (select 1 from dual where e.sal > 2500 and d.dname <> "
                "'SALES'))"), "2");
  // IN (SELECT ...) correlated; EXISTS over an uncorrelated query.
  EXPECT_EQ(One("select count(*) from emp e where e.ename in (select e.ename from dept d where "
                "d.deptno = e.deptno)"), "6");
  EXPECT_EQ(One("select count(*) from dept where exists (select 1 from dual where 1 = 0)"), "0");
  EXPECT_EQ(One("select count(*) from dept where not exists (select 1 from dual where 1 = 0)"), "4");
  // In a grouped query's select list and HAVING: its GROUP BY columns
  // (ORA-00979 / ORA-00937 for another of its columns, as in Oracle).
  EXPECT_EQ(Run("select e.deptno, count(*), (select dname from dept d where d.deptno = e.deptno) "
                "from emp e where e.deptno is not null group by e.deptno having count(*) > "
                "(select count(*) from dept d where d.deptno = e.deptno) order by 1")
                .result_rows,
            (Cells{{"10", "2", "ACCOUNTING"}, {"20", "3", "RESEARCH"}}));
  EXPECT_EQ(One("select count(*) from (select deptno from emp e group by deptno having exists "
                "(select 1 from dept d where d.deptno = e.deptno and d.dname like 'S%'))"),
            "1");
  EXPECT_THAT(Error("select deptno, (select count(*) from emp x where x.sal > e.sal) from emp e "
                    "group by deptno"),
              HasSubstr("ORA-00979: not a GROUP BY expression (E.SAL is named in a subquery"));
  EXPECT_THAT(Error("select count(*), (select 1 from dual where e.deptno = 10) from emp e"),
              HasSubstr("ORA-00937: not a single-group group function"));
  // A name no query has.
  EXPECT_THAT(Error("select * from dept d where exists (select 1 from emp e where e.deptno = "
                    "d.deptnox)"), HasSubstr("ORA-00904: \"D\".\"DEPTNOX\""));
  EXPECT_THAT(Error("select * from dept d where exists (select 1 from emp e where e.deptnox = 1)"),
              HasSubstr("ORA-00904: \"E\".\"DEPTNOX\""));
  // UPDATE / DELETE naming the target's row.
  Run("create table bonus (deptno number, amount number)");
  Run("insert into bonus values (10, 5)");
  Run("insert into bonus values (20, 7)");
  EXPECT_EQ(Run("update emp e set sal = sal + (select amount from bonus b where b.deptno = "
                "e.deptno) where exists (select 1 from bonus b where b.deptno = e.deptno)").rows, 5);
  EXPECT_EQ(One("select sum(sal) from emp where deptno in (10, 20)"), "12381");
  EXPECT_EQ(Run("delete from dept d where not exists (select 1 from emp e where e.deptno = "
                "d.deptno)").rows, 1);
  EXPECT_THAT(Error("delete from emp e where exists (select 1 from emp x where x.sal > e.sal)"),
              HasSubstr("a correlated subquery that reads EMP in a statement that changes EMP"));
  Run("create view v as select * from emp");
  EXPECT_THAT(Error("update emp e set sal = (select max(sal) from v where v.deptno = e.deptno)"),
              HasSubstr("reads EMP"));
  Run("commit");
  EXPECT_EQ(One("select count(*) from dept"), "3");
  EXPECT_EQ(One("select sum(sal) from emp"), "14081");
}

// WITH name AS (query), ...: each name stands for its query where a FROM
// names it (hiding a table of that name), later ones may read earlier ones,
// in queries, subqueries, CTAS, INSERT ... SELECT and views; bad clauses say
// what is wrong.
TEST_F(TxnTest, WithNamesQueries) {
  Run("create table e (id number, dept number, sal number)");
  Run("insert into e values (1, 10, 1000)");
  Run("insert into e values (2, 20, 2000)");
  Run("insert into e values (3, 10, 1500)");
  EXPECT_EQ(Run("with d as (select dept, sum(sal) total from e group by dept) "
                "select dept, total from d order by dept").result_rows,
            (Cells{{"10", "2500"}, {"20", "2000"}}));
  EXPECT_EQ(Run("with a as (select max(sal) m from e), b as (select id from e, a where sal = a.m) "
                "select b.id, a.m from a, b").result_rows,
            (Cells{{"2", "2000"}}));
  EXPECT_EQ(One("with e as (select 42 id from dual) select id from e"), "42");  // hides table E
  EXPECT_EQ(One("select count(*) from (with q as (select id from e where dept = 10) select * "
                "from q)"), "2");
  EXPECT_EQ(One("select count(*) from e x where exists (with q as (select dept from e where sal "
                "> 1800) select 1 from q where q.dept = x.dept)"), "1");
  EXPECT_EQ(One("select count(*) from e where id in (with q as (select 1 n from dual union all "
                "select 3 from dual) select n from q)"), "2");
  Run("create table c as with q as (select id, sal from e where sal < 2000) select * from q");
  EXPECT_EQ(One("select sum(sal) from c"), "2500");
  Run("insert into c with q as (select 9 id, 9 sal from dual) select * from q");
  EXPECT_EQ(One("select count(*) from c"), "3");
  Run("create view v as with q as (select dept from e) select dept, count(*) n from q group by dept "
      "with read only");
  EXPECT_EQ(Run("select * from v order by dept").result_rows, (Cells{{"10", "2"}, {"20", "1"}}));
  EXPECT_THAT(Error("with a as (select 1 x from dual), a as (select 2 x from dual) select * from a"),
              HasSubstr("A is named twice in the WITH clause"));
  EXPECT_THAT(Error("with a (x) as (select 1 from dual) select * from a"),
              HasSubstr("a column list after WITH A is not supported"));
  EXPECT_THAT(Error("with a as (select 1 x from dual) delete from e"),
              HasSubstr("expected SELECT after the WITH clause"));
  EXPECT_THAT(Error("with a as (select 1 x from dual)"), HasSubstr("expected SELECT after the WITH"));
  // A name a WITH does not define is still a table's.
  EXPECT_THAT(Error("with a as (select 1 x from dual) select * from b"), HasSubstr("ORA-00942"));
}

// UNION [ALL], INTERSECT and MINUS, left to right, ORDER BY over the whole.
TEST_F(TxnTest, SetOperatorsCombineQueries) {
  EXPECT_EQ(Run("select 1 a, 'x' b from dual union all select 2, 'y' from dual union all "
                "select 1, 'x' from dual").result_rows,
            (Cells{{"1", "x"}, {"2", "y"}, {"1", "x"}}));
  EXPECT_EQ(Run("select 1 a from dual union select 1 from dual union select 3 from dual "
                "order by a desc").result_rows,
            (Cells{{"3"}, {"1"}}));
  EXPECT_EQ(Run("select level n from dual connect by level <= 5 minus select level + 2 from "
                "dual connect by level <= 5 order by 1").result_rows,
            (Cells{{"1"}, {"2"}}));
  EXPECT_EQ(Run("select level from dual connect by level <= 4 intersect select level + 2 from "
                "dual connect by level <= 4 order by 1").result_rows,
            (Cells{{"3"}, {"4"}}));
  Run("create table u as select level id from dual connect by level <= 3 union all select 10 "
      "from dual");
  EXPECT_EQ(One("select sum(id) from u"), "16");
  EXPECT_EQ(One("select count(*) from (select 1 from dual union all (select 2 from dual))"), "2");
  EXPECT_THAT(Error("select 1 from dual union select 1, 2 from dual"), HasSubstr("ORA-01789"));
  EXPECT_THAT(Error("select 1 a from dual union select 2 from dual order by a + 1"),
              HasSubstr("ORA-01785"));
}

// Oracle 12c's row limiting clause, after ORDER BY (and after a compound
// query's); FETCH and OFFSET still name a table alias elsewhere. USER is the
// schema, CELLSIM.
TEST_F(TxnTest, OffsetAndFetchFirstLimitTheSortedRows) {
  Run("create table f as select level id from dual connect by level <= 10");
  EXPECT_EQ(Run("select id from f order by id desc fetch first 3 rows only").result_rows,
            (Cells{{"10"}, {"9"}, {"8"}}));
  EXPECT_EQ(Run("select id from f order by id offset 8 rows").result_rows, (Cells{{"9"}, {"10"}}));
  EXPECT_EQ(Run("select id from f order by id offset 2 rows fetch next 1 row only").result_rows,
            (Cells{{"3"}}));
  EXPECT_EQ(Run("select id from f order by id offset 20 rows").result_rows, Cells{});
  EXPECT_EQ(One("select count(*) from (select * from f fetch first 4 rows only)"), "4");
  EXPECT_EQ(One("select sum(id) from f where id in (select id from f order by id fetch first 2 "
                "rows only)"),
            "3");
  EXPECT_EQ(Run("select 1 a from dual union all select 2 from dual order by a desc fetch first "
                "1 rows only").result_rows,
            (Cells{{"2"}}));
  EXPECT_EQ(Run("insert into f select id + 100 from f order by id fetch first 2 rows only").rows, 2);
  EXPECT_EQ(One("select count(*) from f fetch where fetch.id > 100"), "2");  // FETCH as an alias
  EXPECT_THAT(Error("select id from f fetch first 10 percent rows only"), HasSubstr("ORA-00905"));
  EXPECT_THAT(Error("select id from f fetch first 1.5 rows only"), HasSubstr("whole number"));
  EXPECT_EQ(One("select user from dual"), "CELLSIM");
}

TEST_F(TxnTest, GttRowsArePrivateToTheSession) {
  Run("create global temporary table g (x number) on commit preserve rows");
  std::unique_ptr<Session> other = db_->NewSession();
  Run("insert into g values (1)");
  Run("commit");
  EXPECT_EQ(Count("g"), 1);  // PRESERVE ROWS keeps them past commit
  EXPECT_EQ(Count("g", other.get()), 0);
  Run("truncate table g");
  EXPECT_EQ(Count("g"), 0);
}

// Row locks: a row another session's open transaction inserted, updated or
// deleted cannot be changed (before, B's committed update was undone by A's
// rollback: the row showed A's before-image). Locks go with the transaction
// (COMMIT, ROLLBACK, the session's end) or with the statement that took
// them when it fails; other rows, and reads, are free.
TEST_F(TxnTest, ARowAnOpenTransactionChangedIsLocked) {
  Run("create table t (id number, v number)");
  for (int i = 1; i <= 4; ++i) Run("insert into t values (" + std::to_string(i) + ", 0)");
  Run("commit");
  std::unique_ptr<Session> b = db_->NewSession();
  Run("update t set v = 1 where id = 1");  // A holds row 1
  EXPECT_THAT(Error("update t set v = 2 where id = 1", b.get()),
              AllOf(HasSubstr("ORA-00054"), HasSubstr("a row of T is locked by session")));
  EXPECT_THAT(Error("delete from t where id <= 2", b.get()), HasSubstr("ORA-00054"));
  EXPECT_EQ(One("select v from t where id = 2", b.get()), "0");  // the failed DELETE left row 2
  EXPECT_EQ(Run("update t set v = 2 where id = 2", b.get()).rows, 1);  // another row is free
  EXPECT_EQ(One("select count(*) from t", b.get()), "4");              // reads are free
  Run("commit", b.get());
  Run("rollback");  // A: row 1 back to 0, row 2 keeps B's committed 2
  EXPECT_EQ(Run("select id, v from t order by id").result_rows,
            (Cells{{"1", "0"}, {"2", "2"}, {"3", "0"}, {"4", "0"}}));
  // Released by ROLLBACK: B may change row 1 now.
  EXPECT_EQ(Run("update t set v = 3 where id = 1", b.get()).rows, 1);
  // A row B inserted and has not committed is B's too: A does not even see
  // it (read consistency), so its DELETE finds nothing to wait for.
  Run("insert into t values (5, 0)", b.get());
  EXPECT_EQ(Run("delete from t where id = 5").rows, 0);
  Run("commit", b.get());  // committed: now A sees it
  EXPECT_EQ(Run("delete from t where id = 5").rows, 1);
  Run("commit");
  // A session that ends rolls back and releases its rows.
  Run("update t set v = 9 where id = 4", b.get());
  b.reset();
  EXPECT_EQ(Run("update t set v = 4 where id = 4").rows, 1);
  // A failed statement releases the rows it took; its earlier ones stay held.
  std::unique_ptr<Session> c = db_->NewSession();
  Run("update t set v = 7 where id = 3", c.get());
  Run("update t set v = 8 where id = 2");
  // Row 1 first (taken), then row 2 (A's): the statement fails and lets row 1 go.
  EXPECT_THAT(Error("update t set v = 8 where id in (1, 2)", c.get()), HasSubstr("ORA-00054"));
  Run("commit");
  EXPECT_EQ(Run("update t set v = 8 where id = 1").rows, 1);
  EXPECT_THAT(Error("update t set v = 8 where id = 3"), HasSubstr("ORA-00054"));
  Run("rollback", c.get());
  Run("commit");
  EXPECT_EQ(Run("select id, v from t order by id").result_rows,
            (Cells{{"1", "8"}, {"2", "8"}, {"3", "0"}, {"4", "4"}}));
}

// Read consistency: a session's queries see other sessions' changes only
// once committed (a row another open transaction inserted is not there, one
// it updated or deleted is as committed), through a table scan and through
// an index (whose keys the other transaction changed); its own changes it
// sees. Its DML finds rows the same way: a committed row it changes that
// another transaction holds is a wait (ORA-00054 here), an uncommitted
// one is nothing to it.
TEST_F(TxnTest, QueriesSeeOnlyCommittedRowsOfOtherSessions) {
  Run("create table t (id number primary key, v number)");
  for (int i = 1; i <= 4; ++i) Run("insert into t values (" + std::to_string(i) + ", 0)");
  Run("commit");
  std::unique_ptr<Session> b = db_->NewSession();
  Run("update t set v = 10 where id = 1");
  Run("delete from t where id = 2");
  Run("update t set id = 30 where id = 3");
  Run("insert into t values (5, 5)");
  const Cells committed = {{"1", "0"}, {"2", "0"}, {"3", "0"}, {"4", "0"}};
  const int64_t applied0 = b->Stats()[Stat::kDataBlocksConsistentReadsUndoRecordsApplied];
  EXPECT_EQ(Run("select id, v from t order by id", b.get()).result_rows, committed);
  EXPECT_EQ(b->Stats()[Stat::kDataBlocksConsistentReadsUndoRecordsApplied] - applied0, 4);
  EXPECT_EQ(Run("select id, v from t order by id").result_rows,
            (Cells{{"1", "10"}, {"4", "0"}, {"5", "5"}, {"30", "0"}}));  // A's own
  EXPECT_EQ(One("select v from t where id = 1", b.get()), "0");
  EXPECT_EQ(One("select count(*) from t where id = 3", b.get()), "1");  // the index says 30
  EXPECT_EQ(One("select count(*) from t where id = 30", b.get()), "0");
  EXPECT_EQ(One("select count(*) from t where id = 5", b.get()), "0");
  EXPECT_EQ(One("select sum(v) from t", b.get()), "0");
  // B's DML: the committed row 1 (v 0) it changes is A's: a wait.
  EXPECT_THAT(Error("update t set v = 1 where v = 0 and id = 1", b.get()), HasSubstr("ORA-00054"));
  EXPECT_THAT(Error("delete from t where id = 2", b.get()), HasSubstr("ORA-00054"));
  EXPECT_EQ(Run("update t set v = 1 where v = 10", b.get()).rows, 0);  // A's uncommitted 10
  EXPECT_EQ(Run("update t set v = 1 where id = 5", b.get()).rows, 0);  // A's uncommitted row
  EXPECT_EQ(Run("update t set v = 4 where id = 4", b.get()).rows, 1);  // a row no one holds
  EXPECT_EQ(One("select v from t where id = 4"), "0");                 // B's, uncommitted
  Run("commit");
  EXPECT_EQ(Run("select id, v from t order by id", b.get()).result_rows,
            (Cells{{"1", "10"}, {"4", "4"}, {"5", "5"}, {"30", "0"}}));
  Run("commit", b.get());
  EXPECT_EQ(Run("select id, v from t order by id").result_rows,
            (Cells{{"1", "10"}, {"4", "4"}, {"5", "5"}, {"30", "0"}}));
}

// SELECT ... FOR UPDATE locks the rows it returns for the session's
// transaction, as an UPDATE of them would; NOWAIT, WAIT n and SKIP LOCKED as
// in Oracle (the engine never waits: WAIT's ORA-00054 carries the holder and
// the limit for a caller that does).
TEST_F(TxnTest, SelectForUpdateLocksTheRowsItReturns) {
  Run("create table t (id number, v number)");
  for (int i = 1; i <= 4; ++i) Run(fmt::format("insert into t values ({}, 0)", i));
  Run("commit");
  std::unique_ptr<Session> b = db_->NewSession();
  const int64_t redo0 = s_->Stats()[Stat::kRedoSize];
  StatementResult r = Run("select id, v from t where id <= 2 order by id desc for update");
  EXPECT_EQ(r.result_rows, (Cells{{"2", "0"}, {"1", "0"}}));
  EXPECT_GT(s_->Stats()[Stat::kRedoSize] - redo0, 0);  // lock-row changes are logged
  EXPECT_TRUE(s_->InTransaction());
  EXPECT_EQ(One("select count(*) from v$transaction", b.get()), "1");
  // V$LOCK: the transaction's TX (ID1/ID2 its XID, as an enq: TX wait's P2
  // and P3 name it) and a TM lock on the table.
  EXPECT_EQ(Run("select type, lmode, request, block from v$lock order by type").result_rows,
            (Cells{{"TM", "3", "0", "0"}, {"TX", "6", "0", "0"}}));
  EXPECT_EQ(One("select count(*) from v$lock l, v$transaction x where l.type = 'TX' and "
                "l.id1 = x.xidusn * 65536 + x.xidslot and l.id2 = x.xidsqn and l.sid = x.ses_sid"),
            "1");
  EXPECT_EQ(One("select count(*) from v$lock l, user_objects o where l.type = 'TM' and "
                "l.id1 = o.object_id and o.object_name = 'T'"),
            "1");
  // Another session's change of a locked row waits (here: ORA-00054 with the
  // holder), of another row does not; reads are free.
  absl::Status busy = b->Execute("update t set v = 9 where id = 1").status();
  EXPECT_THAT(std::string(busy.message()), HasSubstr("ORA-00054"));
  EXPECT_TRUE(busy.GetPayload(kRowLockHolderPayload).has_value());
  EXPECT_EQ(Run("update t set v = 3 where id = 3", b.get()).rows, 1);
  EXPECT_EQ(One("select count(*) from t where v = 0", b.get()), "3");
  // Its own FOR UPDATE: NOWAIT fails at once with no payload to wait on;
  // WAIT n carries the limit; the default carries the holder.
  busy = b->Execute("select * from t where id = 2 for update nowait").status();
  EXPECT_THAT(std::string(busy.message()),
              HasSubstr("ORA-00054: resource busy and acquire with NOWAIT specified"));
  EXPECT_FALSE(busy.GetPayload(kRowLockHolderPayload).has_value());
  EXPECT_FALSE(RowLockConflictOf(busy).has_value());  // not to be waited for
  busy = b->Execute("select * from t where id = 2 for update of v wait 5").status();
  EXPECT_EQ(RowLockConflictOf(busy)->wait_limit_s, 5u);
  ASSERT_TRUE(busy.GetPayload(kRowLockWaitLimitPayload).has_value()) << busy;
  EXPECT_EQ(std::string(*busy.GetPayload(kRowLockWaitLimitPayload)), "5");
  busy = b->Execute("select * from t for update").status();
  ASSERT_TRUE(busy.GetPayload(kRowLockHolderPayload).has_value()) << busy;
  EXPECT_EQ(std::string(*busy.GetPayload(kRowLockHolderPayload)), std::to_string(s_->sid()));
  // The failed FOR UPDATE took rows 3 and 4 on its way and let them go
  // (row 3 stays B's by its UPDATE): a third session may lock row 4.
  std::unique_ptr<Session> c = db_->NewSession();
  EXPECT_EQ(Run("select id from t where id = 4 for update nowait", c.get()).result_rows,
            (Cells{{"4"}}));
  Run("rollback", c.get());
  // SKIP LOCKED passes over the rows others hold and locks the rest.
  EXPECT_EQ(Run("select id from t order by id for update skip locked", b.get()).result_rows,
            (Cells{{"3"}, {"4"}}));
  EXPECT_THAT(Error("update t set v = 4 where id = 4", c.get()), HasSubstr("ORA-00054"));
  // COMMIT (or ROLLBACK) releases the rows.
  Run("commit");
  EXPECT_EQ(Run("update t set v = 1 where id <= 2", b.get()).rows, 2);
  Run("commit", b.get());
  EXPECT_EQ(Run("select id, v from t order by id").result_rows,
            (Cells{{"1", "1"}, {"2", "1"}, {"3", "3"}, {"4", "0"}}));
  // What FOR UPDATE cannot lock, with Oracle's errors.
  EXPECT_THAT(Error("select distinct v from t for update"), HasSubstr("ORA-01786"));
  EXPECT_THAT(Error("select count(*) from t for update"), HasSubstr("ORA-01786"));
  EXPECT_THAT(Error("select id from t union select id from t for update"), HasSubstr("ORA-01786"));
  EXPECT_THAT(Error("select id from t fetch first 1 rows only for update"), HasSubstr("ORA-02014"));
  EXPECT_THAT(Error("select * from t a, t b for update"), HasSubstr("one table"));
  EXPECT_THAT(Error("select * from dual for update"), HasSubstr("one table"));
  EXPECT_THAT(Error("select * from t for update of nope"), HasSubstr("ORA-00904"));
  EXPECT_THAT(Error("select * from t for update wait"), HasSubstr("ORA-30005"));
  EXPECT_THAT(Error("select * from t for update skip"), HasSubstr("LOCKED"));
  EXPECT_THAT(Error("select * from t where id in (select id from t for update)"),
              HasSubstr("ORA-00907"));
  EXPECT_FALSE(s_->InTransaction());  // none of those began one
  EXPECT_EQ(One("select count(*) from v$lock"), "0");
}

// A caller that waits for a row lock itself (as the sqlrun driver does)
// records the wait as Oracle's enq: TX - row lock contention, naming the
// holder's transaction as V$TRANSACTION shows it.
TEST_F(TxnTest, ACallerThatWaitsForARowLockRecordsOracleWait) {
  Run("create table t (id number, v number)");
  Run("insert into t values (1, 0)");
  Run("commit");
  std::unique_ptr<Session> b = db_->NewSession();
  Run("update t set v = 1 where id = 1");  // A holds the row
  const StatementResult xid = Run("select xidusn, xidslot, xidsqn from v$transaction");
  ASSERT_EQ(xid.result_rows.size(), 1u);
  const absl::Status conflict = b->Execute("update t set v = 2 where id = 1").status();
  ASSERT_THAT(std::string(conflict.message()), HasSubstr("ORA-00054"));
  EXPECT_EQ(std::string(*conflict.GetPayload(kRowLockTransactionPayload)),
            fmt::format("{}.{}.{}", xid.result_rows[0][0], xid.result_rows[0][1],
                        xid.result_rows[0][2]));
  // The same, typed.
  const std::optional<RowLockConflict> c = RowLockConflictOf(conflict);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->holder_sid, s_->sid());
  EXPECT_EQ(fmt::format("{}.{}.{}", c->usn, c->slot, c->sequence),
            fmt::format("{}.{}.{}", xid.result_rows[0][0], xid.result_rows[0][1],
                        xid.result_rows[0][2]));
  EXPECT_FALSE(c->wait_limit_s.has_value());
  EXPECT_EQ(c->mode, 6u);  // a row: exclusive
  EXPECT_FALSE(RowLockConflictOf(absl::OkStatus()).has_value());
  const int64_t db_time0 = b->Stats()[Stat::kDbTime];
  const stats::WaitValue system0 = db_->SystemWaits()[stats::Wait::kEnqTxRowLockContention];
  ASSERT_OK_AND_ASSIGN(stats::WaitEvent w, b->RecordRowLockWait(conflict, 30'000'000));
  EXPECT_EQ(w.event, stats::Wait::kEnqTxRowLockContention);
  EXPECT_EQ(w.ns, 30'000'000u);
  EXPECT_EQ(w.params.p1, 0x54580006u);  // 'T' 'X', mode 6
  EXPECT_EQ(w.params.p2, (std::stoull(xid.result_rows[0][0]) << 16) |
                             std::stoull(xid.result_rows[0][1]));
  EXPECT_EQ(w.params.p3, std::stoull(xid.result_rows[0][2]));
  EXPECT_EQ(b->Waits()[stats::Wait::kEnqTxRowLockContention].count, 1);
  EXPECT_EQ(b->Waits()[stats::Wait::kEnqTxRowLockContention].total_ns, 30'000'000u);
  EXPECT_EQ(db_->SystemWaits()[stats::Wait::kEnqTxRowLockContention].count, system0.count + 1);
  EXPECT_EQ(b->Stats()[Stat::kDbTime] - db_time0, 3);  // centiseconds
  // V$SESSION_WAIT and V$EVENT_NAME show it as Oracle's.
  EXPECT_EQ(One(fmt::format("select event || ':' || p1text || ':' || p1 || ':' || p2text || ':' "
                            "|| p3text from v$session_wait where sid = {}",
                            b->sid())),
            "enq: TX - row lock contention:name|mode:1415053318:usn<<16 | slot:sequence");
  EXPECT_EQ(One("select wait_class from v$event_name where name = "
                "'enq: TX - row lock contention'"),
            "Application");
  // Only the ORA-00054 of a locked row names a transaction.
  EXPECT_EQ(b->RecordRowLockWait(absl::OkStatus(), 1).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(b->RecordRowLockWait(s_->Execute("select nope from t").status(), 1).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(b->Waits()[stats::Wait::kEnqTxRowLockContention].count, 1);
  Run("commit");
  EXPECT_EQ(Run("update t set v = 2 where id = 1", b.get()).rows, 1);
  Run("commit", b.get());
}

TEST_F(TxnTest, ErrorsAreOracleLike) {
  Run("create table t (id number, c char(3))");
  EXPECT_THAT(std::string(s_->Execute("insert into t values (1, 'toolong')").status().message()),
              HasSubstr("ORA-12899"));
  EXPECT_THAT(std::string(s_->Execute("insert into t values (1)").status().message()),
              HasSubstr("ORA-00947"));
  EXPECT_THAT(std::string(s_->Execute("select nope from t").status().message()),
              HasSubstr("ORA-00904"));
  EXPECT_THAT(std::string(s_->Execute("create table t (x number)").status().message()),
              HasSubstr("ORA-00955"));
  EXPECT_THAT(std::string(s_->Execute("alter session set temp_undo_enabled = maybe").status().message()),
              HasSubstr("ORA-00096"));
  EXPECT_EQ(Count("t"), 0);  // nothing half-inserted
  // A statement failing part-way leaves none of its rows (statement-level
  // rollback); earlier statements of the transaction stay.
  Run("insert into t values (1, 'abc')");
  absl::StatusOr<StatementResult> bad =
      s_->Execute("insert into t select 1000 / (object_id - 100), 'x' from all_objects");
  ASSERT_FALSE(bad.ok());  // 98 rows in, then a division by zero
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("ORA-01476"));
  EXPECT_EQ(Count("t"), 1);
  Run("commit");
  EXPECT_EQ(Count("t"), 1);
}

// Inserts one ~1 KB row at a time until a statement fails; its message, and
// the rows inserted before it in `rows`.
std::string FillUntilFull(Session* s, const std::string& table, int* rows) {
  *rows = 0;
  for (int i = 1; i <= 5000; ++i) {
    absl::StatusOr<StatementResult> r = s->Execute(
        fmt::format("insert into {} values ({}, 'row {}')", table, i, i));
    if (!r.ok()) return std::string(r.status().message());
    ++*rows;
  }
  return "never full";
}

// SIZE 159 blocks is blocks 0-159 on disk (OnDiskBlocks): extents from block
// 128 (below: headers and space maps) hold the 32 blocks 128-159, four
// extents of 8, the last one ending at the file's last block.
TEST_F(TxnTest, ASmallTablespaceIsFilledToItsLastBlock) {
  Run("create tablespace small datafile '+DATA' size 1272k");
  Run("create table s (id number, pad char(1000)) tablespace small");
  int rows = 0;
  EXPECT_THAT(FillUntilFull(s_.get(), "s", &rows),
              HasSubstr("ORA-01653: unable to extend segment by 8 in tablespace SMALL"));
  Run("commit");
  EXPECT_EQ(Count("s"), rows);
  ASSERT_OK(Reopen());  // a clean stop: DBWR wrote every block
  EXPECT_EQ(Count("s"), rows);

  const FileTable t = db_->file_table();
  const DataFile* f = testing::FileOf(t, "SMALL");
  ASSERT_NE(f, nullptr);
  const uint64_t blocks = OnDiskBlocks(f->size_bytes, kBlockSize);
  ASSERT_EQ(blocks, 160u);
  std::vector<uint8_t> bytes =
      testing::ReadAsmFile(*rack_->disk_group(f->file.disk_group), f->file.number, blocks * kBlockSize);
  ASSERT_EQ(bytes.size(), blocks * kBlockSize);
  uint32_t obj = 0;
  int stored = 0;
  for (uint64_t b = 128; b < blocks; ++b) {
    const absl::Span<uint8_t> block = absl::MakeSpan(bytes.data() + b * kBlockSize, kBlockSize);
    uint32_t rdba = 0, block_obj = 0;
    std::memcpy(&rdba, &block[4], 4);
    std::memcpy(&block_obj, &block[24], 4);
    if (b == 128) obj = block_obj;
    EXPECT_EQ(rdba, format::Rdba(f->file_number, static_cast<uint32_t>(b))) << "block " << b;
    EXPECT_EQ(block_obj, obj) << "block " << b;
    const uint16_t n = HeapBlock(block).rows();
    EXPECT_GT(n, 0) << "block " << b;
    stored += n;
  }
  EXPECT_NE(obj, 0u);
  EXPECT_EQ(stored, rows);  // every row is in blocks 128-159
  // Still full after the restart.
  EXPECT_THAT(Error("insert into s values (0, 'one more')"), HasSubstr("ORA-01653"));
}

// A file whose last block holds data resizes to its own size (a no-op) but
// not one block smaller (ORA-03297 names the last used block).
TEST_F(TxnTest, AFileFullToItsLastBlockResizesToItsSizeButNoSmaller) {
  Run("create tablespace small datafile '+DATA' size 1272k");
  Run("create table s (id number, pad char(1000)) tablespace small");
  int rows = 0;
  EXPECT_THAT(FillUntilFull(s_.get(), "s", &rows), HasSubstr("ORA-01653"));
  Run("commit");
  const FileTable t = db_->file_table();
  const DataFile* f = testing::FileOf(t, "SMALL");
  ASSERT_NE(f, nullptr);
  const std::string file = std::to_string(f->file_number);
  Run("alter database datafile " + file + " resize 1272k");
  EXPECT_THAT(Error("alter database datafile " + file + " resize 1264k"),
              HasSubstr("ORA-03297: file contains used data beyond requested RESIZE value (file " +
                        file + " is used up to block 159"));
  EXPECT_EQ(Count("s"), rows);
}

// TEMP resized to 255 blocks (0-255 on disk) holds one 128-block extent
// (128-255) and no second one.
TEST_F(TxnTest, TempIsFilledToItsLastBlock) {
  const std::string temp = One("select file_id from dba_temp_files");
  Run("alter database tempfile " + temp + " resize 2040k");
  Run("create global temporary table g (id number, pad char(1000)) on commit preserve rows");
  int rows = 0;
  EXPECT_THAT(FillUntilFull(s_.get(), "g", &rows),
              HasSubstr("ORA-01652: unable to extend temp segment by 128 in tablespace TEMP"));
  EXPECT_GT(rows, 0);
  EXPECT_EQ(Count("g"), rows);
  EXPECT_EQ(One("select blocks from v$tempseg_usage where segtype = 'DATA'"), "128");
  // As many rows as the same 1 KB rows fill 128 blocks of a table.
  Run("create tablespace t128 datafile '+DATA' size 2040k");
  Run("create table p (id number, pad char(1000)) tablespace t128");
  int permanent = 0;
  EXPECT_THAT(FillUntilFull(s_.get(), "p", &permanent), HasSubstr("ORA-01653"));
  EXPECT_EQ(rows, permanent);
}

// ---- The fidelity table (docs/redo.md): published measurements, ±25 % ----

namespace fidelity {

void Within25(const char* what, double got, double published) {
  std::printf("fidelity: %-58s cellsim %12.0f  published %12.0f  (%+.1f %%)\n", what, got,
              published, 100.0 * (got - published) / published);
  EXPECT_GE(got, published * 0.75) << what;
  EXPECT_LE(got, published * 1.25) << what;
}

}  // namespace fidelity

class FidelityTest : public TxnTest {
 protected:
  // Runs `sql` and returns the session's delta of `stat`.
  int64_t Delta(Stat stat, const std::string& sql, Session* s = nullptr) {
    Session* ses = s ? s : s_.get();
    const int64_t before = ses->Stats()[stat];
    Run(sql, ses);
    return ses->Stats()[stat] - before;
  }
};

// AskTom (11.2): a one-row GTT insert moved `undo change vector size` by 108.
TEST_F(FidelityTest, OneRowGttInsertUndo) {
  Run("create global temporary table g (x number, y varchar2(10)) on commit delete rows");
  fidelity::Within25("1-row GTT insert: undo change vector size",
                     static_cast<double>(Delta(Stat::kUndoChangeVectorSize,
                                               "insert into g values (1, 'a')")),
                     108);
}

// AskTom / Oracle Magazine (12c): insert of 87,310 ALL_OBJECTS rows into a
// GTT: 566,304 B of redo with FALSE, 280 B with TRUE.
class AskTomTest : public FidelityTest {
 protected:
  uint64_t AllObjectsRows() const override { return 87310; }
};

TEST_F(AskTomTest, BulkGttInsertFalseAndTrue) {
  Run(kCreateGtt);
  fidelity::Within25("insert 87,310 all_objects rows into GTT, FALSE: redo",
                     static_cast<double>(Delta(Stat::kRedoSize, kInsert)), 566304);
  Run("commit");
  std::unique_ptr<Session> t = db_->NewSession();
  Run("alter session set temp_undo_enabled = true", t.get());
  fidelity::Within25("insert 87,310 all_objects rows into GTT, TRUE: redo",
                     static_cast<double>(Delta(Stat::kRedoSize, kInsert, t.get())), 280);
}

// Connor McDonald (12c): 50,000 char(1000) rows deleted from a GTT after
// setting TRUE in the same session: 60,566,000 B of redo (the session had
// bound its GTT undo to permanent undo), as with FALSE (60,562,540).
TEST_F(FidelityTest, TempUndoLatchedAtFirstUse) {
  Run("create global temporary table t (c char(1000)) on commit preserve rows");
  Run("insert into t select 'x' from dual connect by level <= 50000");
  Run("commit");
  Run("alter session set temp_undo_enabled = true");
  fidelity::Within25("delete 50,000 char(1000) GTT rows, TRUE set too late: redo",
                     static_cast<double>(Delta(Stat::kRedoSize, "delete from t")), 60566000);
  Run("commit");
  // A new session that sets TRUE before its first GTT use: temporary undo,
  // no redo for it.
  std::unique_ptr<Session> t = db_->NewSession();
  Run("alter session set temp_undo_enabled = true", t.get());
  Run("insert into t select 'x' from dual connect by level <= 5000", t.get());
  Run("commit", t.get());
  const int64_t redo = Delta(Stat::kRedoSize, "delete from t", t.get());
  EXPECT_LT(redo, 400);
  StatementResult seg = Run("select segtype from v$tempseg_usage where segtype = 'TEMP_UNDO'", t.get());
  EXPECT_EQ(seg.result_rows.size(), 1u);
}

// Hatem (12.1.0.2): two single-row inserts into a GTT with a two-column
// index: 1,056 B of redo with FALSE, 272 B with TRUE (the transaction's slot
// and begin record in permanent undo; the table's and the index's undo are
// temporary). Each figure is the statements' `redo size` delta, no commit.
TEST_F(FidelityTest, IndexedGttTwoInsertsFalseAndTrue) {
  Run("create global temporary table test_undo_temp (a number, b number) on commit delete rows");
  Run("create index test_undo_temp_idx1 on test_undo_temp (a, b)");
  constexpr const char* kHatemInsert =
      "insert into test_undo_temp select 1111111111111111111, 1111111111111111111 from dual";
  auto two_inserts = [&](Session* s) {
    const stats::StatValues before = s->Stats();
    Run(kHatemInsert, s);
    Run(kHatemInsert, s);
    const stats::StatValues d = s->Stats() - before;
    return d;
  };
  const stats::StatValues f = two_inserts(s_.get());
  fidelity::Within25("2 single-row inserts into an indexed GTT, FALSE: redo",
                     static_cast<double>(f[Stat::kRedoSize]), 1056);
  EXPECT_EQ(Count("test_undo_temp"), 2);
  // The index holds both rows: found through it (and a leaf insert and its
  // undo record per row: 4 redo records).
  EXPECT_EQ(f[Stat::kRedoEntries], 4);
  Run("commit");
  std::unique_ptr<Session> t = db_->NewSession();
  Run("alter session set temp_undo_enabled = true", t.get());
  const stats::StatValues tr = two_inserts(t.get());
  fidelity::Within25("2 single-row inserts into an indexed GTT, TRUE: redo",
                     static_cast<double>(tr[Stat::kRedoSize]), 272);
  Run("commit", t.get());
  // Without the index the same inserts make less redo with FALSE: the
  // index's undo is what the measurement adds.
  Run("drop index test_undo_temp_idx1");
  std::unique_ptr<Session> u = db_->NewSession();
  const stats::StatValues plain = two_inserts(u.get());
  EXPECT_LT(plain[Stat::kRedoSize] + 300, f[Stat::kRedoSize]);
}

// The seed (19c, Sqlrun, 10 sessions): per transaction cycle (insert from
// ALL_OBJECTS, update, merge, each committed), from its monitor lines:
// redo 984,328,224 B and undo 588,628,380 B over 2,407 cycles with FALSE;
// 2.54 MB of redo over about 2,500 cycles with TRUE.
TEST_F(FidelityTest, SeedCyclePerTransaction) {
  Run(kCreateGtt);
  Run(kCreateTxcount);
  auto cycle = [&](Session* s, int64_t* redo, int64_t* undo) {
    const stats::StatValues before = s->Stats();
    for (const char* sql : {kInsert, "commit", kUpdate, "commit", kMerge, "commit"}) Run(sql, s);
    const stats::StatValues d = s->Stats() - before;
    *redo = d[Stat::kRedoSize];
    *undo = d[Stat::kUndoChangeVectorSize];
  };
  int64_t redo = 0, undo = 0;
  cycle(s_.get(), &redo, &undo);  // the first MERGE inserts; steady state updates
  cycle(s_.get(), &redo, &undo);
  fidelity::Within25("seed cycle, FALSE: redo per transaction", static_cast<double>(redo),
                     984328224.0 / 2407);
  fidelity::Within25("seed cycle, FALSE: undo change vector size per transaction",
                     static_cast<double>(undo), 588628380.0 / 2407);
  Run("alter system set temp_undo_enabled = true scope=both");
  std::unique_ptr<Session> t = db_->NewSession();
  cycle(t.get(), &redo, &undo);
  cycle(t.get(), &redo, &undo);
  fidelity::Within25("seed cycle, TRUE: redo per transaction", static_cast<double>(redo),
                     2.54e6 / 2500);
}

// Bytes the cells took into their flash caches (FC_IO_BY_W, summed).
double FlashBytesWritten(asmgr::Rack* rack) {
  double mb = 0;
  for (uint32_t c = 0; c < rack->cell_count(); ++c) {
    absl::StatusOr<std::vector<cell::Metric>> m = rack->cell(c)->Metrics();
    if (!m.ok()) return -1;
    for (const cell::Metric& x : *m) {
      if (x.name == "FC_IO_BY_W") mb += x.value;
    }
  }
  return mb * 1024 * 1024;
}

// Must-show 2: `redo size` is what LGWR wrote into the log members, up to
// block rounding, and every byte of it reached the write-back flash caches
// of the cells (each member's every mirror copy).
TEST_F(TxnTest, RedoSizeIsWhatLgwrWroteAtTheCells) {
  Run(kCreateGtt);
  Run(kCreateTxcount);
  // txcount's first extent: its allocation writes the dictionary (data-file
  // blocks, not redo), so it is made before the measurement.
  Run(kMerge);
  Run("commit");
  const stats::StatValues sys0 = db_->SystemStats();
  const double flash0 = FlashBytesWritten(rack_.get());
  for (int i = 0; i < 3; ++i) {
    for (const char* sql : {kInsert, "commit", kUpdate, "commit", kMerge, "commit"}) Run(sql);
  }
  const stats::StatValues d = db_->SystemStats() - sys0;
  const double flash = FlashBytesWritten(rack_.get()) - flash0;
  const int64_t blocks = d[Stat::kRedoBlocksWritten];
  ASSERT_GT(blocks, 0);
  // Each 512-byte redo block: a 16-byte header and 496 bytes of records; the
  // unused tail of a write's last block is redo wastage.
  EXPECT_EQ(blocks * 512, d[Stat::kRedoSize] + d[Stat::kRedoWastage] + 16 * blocks);
  EXPECT_LE(d[Stat::kRedoWastage], d[Stat::kRedoWrites] * 496);
  // 2 members (+DATA, +RECO) x 2 copies (NORMAL redundancy).
  EXPECT_EQ(static_cast<int64_t>(flash), blocks * 512 * 2 * 2);
  // One per commit at least; more when LGWR's 3-second timeout passed (slow builds).
  EXPECT_GE(d[Stat::kRedoWrites], 6);
  EXPECT_GT(d[Stat::kCellWritesToFlashCache], 0);
  std::printf("must-show 2: redo size %lld, redo wastage %lld, redo blocks written %lld "
              "(x512 = %lld), redo writes %lld, bytes into flash caches %.0f\n",
              static_cast<long long>(d[Stat::kRedoSize]),
              static_cast<long long>(d[Stat::kRedoWastage]), static_cast<long long>(blocks),
              static_cast<long long>(blocks * 512), static_cast<long long>(d[Stat::kRedoWrites]),
              flash);
}

TEST_F(TxnTest, ViewsShowTransactionsLogsAndStatistics) {
  Run(kCreateGtt);
  Run(kInsert);
  StatementResult tx = Run("select used_ublk, used_urec from v$transaction");
  ASSERT_EQ(tx.result_rows.size(), 1u);
  EXPECT_GT(std::stoll(tx.result_rows[0][0]), 10);
  Run("commit");
  EXPECT_TRUE(Run("select * from v$transaction").result_rows.empty());
  StatementResult st = Run(
      "select n.name, s.value from v$mystat s, v$statname n where s.statistic# = n.statistic# "
      "and n.name in ('redo size', 'undo change vector size', 'user commits') order by n.name");
  ASSERT_EQ(st.result_rows.size(), 3u);
  EXPECT_EQ(st.result_rows[0][0], "redo size");
  EXPECT_EQ(st.result_rows[0][1], std::to_string(s_->Stats()[Stat::kRedoSize]));
  StatementResult logs = Run(
      "select f.member, l.bytes/power(1024,2) m from v$log l, v$logfile f where l.group# = "
      "f.group# and l.group# = 1");
  ASSERT_EQ(logs.result_rows.size(), 2u);
  EXPECT_THAT(logs.result_rows[0][0], HasSubstr("+DATA/ORCL/ONLINELOG/group_1."));
  EXPECT_EQ(logs.result_rows[0][1], "32");
  EXPECT_EQ(Run("select status from v$log where group# = 1").result_rows[0][0], "CURRENT");
  StatementResult u = Run(
      "select p.undoblks, p.txncount, t.txncount from v$undostat p left outer join "
      "v$tempundostat t on t.begin_time = p.begin_time");
  // One row per 10-minute interval of the wall clock: a slow run (sanitizers,
  // a loaded machine) may cross a boundary and see two.
  ASSERT_GE(u.result_rows.size(), 1u);
  ASSERT_LE(u.result_rows.size(), 2u);
  int64_t undo_blocks = 0;
  for (const auto& row : u.result_rows) {
    undo_blocks += std::stoll(row[0]);
    EXPECT_EQ(row[2], "");  // no temporary undo yet
  }
  EXPECT_GT(undo_blocks, 10);
  Run("alter session set temp_undo_enabled = true");
  EXPECT_EQ(Run("show parameter temp_undo_enabled").result_rows[0][2], "TRUE");
}

// V$UNDOSTAT is Oracle's histogram: a row for every 10-minute interval since
// the instance started, the current one first, zeros where no undo was
// written (before, only intervals with undo had a row, and a fresh
// instance's V$UNDOSTAT was empty).
class UndoStatTest : public testing::SqlTest {
 protected:
  Clock* clock() const override { return &clock_; }
  // 22:11:20 UTC: the interval 22:10-22:20.
  mutable ManualClock clock_{0, 1'700'000'000 - 1'700'000'000 % 600 + 80};
};

TEST_F(UndoStatTest, EveryTenMinuteIntervalSinceStartupHasARow) {
  ASSERT_OK(Reopen());  // a new instance
  EXPECT_EQ(Run("select undoblks, txncount from v$undostat").result_rows,
            (std::vector<std::vector<std::string>>{{"0", "0"}}));
  Run("create table t (n number)");
  Run("insert into t values (1)");
  Run("commit");
  clock_.Advance(uint64_t{25} * 60 * 1'000'000'000);  // 22:36:20
  Run("insert into t values (2)");
  Run("commit");
  const StatementResult r = Run(
      "select to_char(begin_time, 'HH24:MI'), to_char(end_time, 'HH24:MI'), "
      "sign(undoblks), txncount from v$undostat");
  EXPECT_EQ(r.result_rows, (std::vector<std::vector<std::string>>{{"22:30", "22:40", "1", "1"},
                                                                   {"22:20", "22:30", "0", "0"},
                                                                   {"22:10", "22:20", "1", "1"}}));
}

// SHUTDOWN TRANSACTIONAL's "no new transaction": the open one goes on to its
// end; a session without one may query, not change; DDL is refused.
TEST_F(TxnTest, RefusingNewTransactionsLetsTheOpenOnesEnd) {
  Run("create table r (id number)");
  std::unique_ptr<Session> other = db_->NewSession();
  Run("insert into r values (1)");  // s_'s transaction is open
  EXPECT_FALSE(db_->refuses_new_transactions());
  db_->RefuseNewTransactions();
  EXPECT_TRUE(db_->refuses_new_transactions());
  EXPECT_THAT(Error("insert into r values (2)", other.get()),
              HasSubstr("ORA-01089: immediate shutdown or close in progress - no operations are "
                        "permitted (SHUTDOWN TRANSACTIONAL waits for the open transactions to "
                        "end and lets no new one begin: INSERT refused; an open transaction still "
                        "ends with COMMIT or ROLLBACK)"));
  EXPECT_THAT(Error("select * from r for update", other.get()), HasSubstr("ORA-01089"));
  EXPECT_THAT(Error("create table r2 (id number)", other.get()), HasSubstr("CREATE TABLE refused"));
  EXPECT_THAT(Error("create tablespace omf datafile size 1m", other.get()),
              HasSubstr("CREATE TABLESPACE refused"));
  EXPECT_EQ(One("select count(*) from r", other.get()), "0");  // queries run
  Run("commit", other.get());
  Run("update r set id = 3");  // within the open transaction
  EXPECT_THAT(Error("create index r_i on r (id)"), HasSubstr("ORA-01089"));  // DDL: never
  Run("commit");
  EXPECT_EQ(One("select count(*) from v$transaction"), "0");
  EXPECT_THAT(Error("delete from r"), HasSubstr("DELETE refused"));  // its next one cannot begin
  EXPECT_EQ(One("select id from r"), "3");
}

// Updates that shrink rows of a full block, then ROLLBACK: every row is as
// it was, in memory and after a checkpoint and a reopen (the rollback of an
// update used to fail silently when the block had no free space for the
// longer row, leaving uncommitted values behind, durable at the next close).
TEST_F(TxnTest, RollbackRestoresRowsThatShrankInAFullBlock) {
  Run("create table f (id number primary key, pad varchar2(100))");
  Run("insert into f select level, rpad('x', 100, 'x') from dual connect by level <= 300");
  Run("commit");
  for (int i = 1; i <= 13; ++i) Run(fmt::format("update f set pad = 'y' where id = {}", i));
  Run("alter system checkpoint");
  for (int i = 14; i <= 40; ++i) Run(fmt::format("update f set pad = 'y' where id = {}", i));
  EXPECT_EQ(One("select count(*) from f where pad = 'y'"), "40");
  Run("rollback");
  EXPECT_EQ(One("select count(*) from f where pad = 'y'"), "0");
  EXPECT_EQ(One("select count(*) from f where pad = rpad('x', 100, 'x')"), "300");
  ASSERT_OK(Reopen());
  EXPECT_EQ(One("select count(*) from f where pad = rpad('x', 100, 'x')"), "300");
}

// Space a transaction freed by shrinking rows stays its own until it ends:
// another session's growing updates migrate their rows instead of taking
// it, its inserts go to a new block, and the rollback restores every row.
TEST_F(TxnTest, AnotherSessionCannotTakeTheRoomARollbackNeeds) {
  Run("create table f (id number primary key, pad varchar2(300))");
  Run("insert into f select level, rpad('x', 100, 'x') from dual connect by level <= 60");
  Run("commit");
  // 60 rows of 107 bytes: one block.
  for (int i = 1; i <= 27; ++i) Run(fmt::format("update f set pad = 'y' where id = {}", i));
  Run("update f set pad = rpad('w', 150, 'w') where id = 28");  // its own room: reused
  std::unique_ptr<Session> b = db_->NewSession();
  for (int i = 30; i <= 60; ++i) {
    ASSERT_OK(b->Execute(fmt::format("update f set pad = rpad('z', 200, 'z') where id = {}", i)).status());
  }
  ASSERT_OK(b->Execute("insert into f select 100 + level, rpad('n', 100, 'n') from dual connect by level <= 20").status());
  ASSERT_OK(b->Execute("commit").status());
  ASSERT_OK(s_->Execute("rollback").status());
  EXPECT_EQ(One("select count(*) from f where pad = rpad('x', 100, 'x')"), "29");
  EXPECT_EQ(One("select count(*) from f where pad = rpad('z', 200, 'z')"), "31");
  EXPECT_EQ(One("select count(*) from f where id > 100 and pad = rpad('n', 100, 'n')"), "20");
  EXPECT_EQ(One("select count(*) from f"), "80");
  b.reset();
  ASSERT_OK(Reopen());
  EXPECT_EQ(One("select count(*) from f where pad = rpad('x', 100, 'x')"), "29");
  EXPECT_EQ(One("select count(*) from f where pad = rpad('z', 200, 'z')"), "31");
  EXPECT_EQ(One("select count(*) from f"), "80");
}

TEST_F(TxnTest, GttNeedsATemporaryTablespace) {
  // A database without TEMP: GTT rows cannot be stored, temp undo has no home.
  Shutdown();
  ASSERT_OK_AND_ASSIGN(rack_, asmgr::Rack::Create(io_.get(), SystemClock(),
                                                  tmp_.path() + "/rack2", SmallRack()));
  ASSERT_OK_AND_ASSIGN(db_, Database::Create(rack_.get()));
  s_ = db_->NewSession();
  Run("create tablespace SYSTEM datafile '+DATA' size 16m");
  Run("create tablespace USERS datafile '+DATA' size 16m");
  Run("create tablespace UNDOTBS1 datafile '+DATA' size 16m");
  Run("create table p (x number)");
  Run("alter session set temp_undo_enabled = true");
  absl::StatusOr<StatementResult> r =
      s_->Execute("create global temporary table g (x number) as select 1 x from dual");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("ORA-00959"));
}
}  // namespace
}  // namespace cellsim::db
