// Joins of the FROM list: [INNER] JOIN ... ON, JOIN ... USING (...), NATURAL
// JOIN, CROSS JOIN, and LEFT, RIGHT and FULL [OUTER] JOIN, as Oracle runs
// them (a USING column shown once, first, either side's value).
#include <string>
#include <vector>

#include "cellsim/base/cancel.h"
#include "db/db_test_util.h"
#include "gtest/gtest.h"

namespace cellsim::db {
namespace {

using ::testing::HasSubstr;
using Cells = std::vector<std::vector<std::string>>;
using Names = std::vector<std::string>;

class JoinTest : public testing::SqlTest {
 protected:
  void Configure(DatabaseOptions* o) const override { o->all_objects_rows = 100; }
  void SetUp() override {
    testing::SqlTest::SetUp();
    Run("create table emp (id number, name varchar2(10), dept number)");
    Run("create table dept (dept number, dname varchar2(10))");
    // dept 30 has no employee; dave has no department, erin one that does not exist.
    for (const char* row : {"1, 'alice', 10", "2, 'bob', 20", "3, 'carol', 10", "4, 'dave', null",
                            "5, 'erin', 40"}) {
      Run(std::string("insert into emp values (") + row + ")");
    }
    for (const char* row : {"10, 'sales'", "20, 'ops'", "30, 'empty'"}) {
      Run(std::string("insert into dept values (") + row + ")");
    }
    Run("commit");
  }
  // a (100 rows) and b (60): k with NULLs and repeats, s text, d DATEs,
  // b.code text that is a number, sometimes with leading zeros, or NULL.
  void CreateAAndB() {
    Run("create table a (id number, k number, s varchar2(10), d date)");
    Run("create table b (id number, k number, s varchar2(10), d date, code varchar2(10))");
    Run("insert into a select object_id, case when mod(object_id, 11) = 0 then null else "
        "mod(object_id, 7) end, 's' || mod(object_id, 5), trunc(sysdate) + mod(object_id, 3) "
        "from all_objects");
    Run("insert into b select object_id, case when mod(object_id, 13) = 0 then null else "
        "mod(object_id, 9) end, 's' || mod(object_id, 4), trunc(sysdate) + mod(object_id, 4), "
        "case mod(object_id, 3) when 0 then '00' || mod(object_id, 9) when 1 then "
        "to_char(mod(object_id, 9)) end from all_objects where object_id <= 60");
    Run("commit");
  }
};

TEST_F(JoinTest, UsingMatchesItsColumnsAndShowsThemOnceFirst) {
  const StatementResult r = Run("select * from emp join dept using (dept) order by id");
  EXPECT_EQ(r.headings, (Names{"DEPT", "ID", "NAME", "DNAME"}));
  EXPECT_EQ(r.result_rows, (Cells{{"10", "1", "alice", "sales"},
                                  {"20", "2", "bob", "ops"},
                                  {"10", "3", "carol", "sales"}}));
  // The same rows as ON; with USING the column is named without qualifier.
  EXPECT_EQ(Run("select id, e.dept, dname from emp e join dept d on e.dept = d.dept order by id")
                .result_rows,
            Run("select id, dept, dname from emp join dept using (dept) order by id").result_rows);
  // NATURAL JOIN: USING every column both have.
  const StatementResult n = Run("select * from emp natural join dept order by id");
  EXPECT_EQ(n.headings, r.headings);
  EXPECT_EQ(n.result_rows, r.result_rows);
}

TEST_F(JoinTest, OuterJoinsKeepTheRowsWithoutAMatch) {
  EXPECT_EQ(Run("select id, dname from emp left outer join dept using (dept) order by id")
                .result_rows,
            (Cells{{"1", "sales"}, {"2", "ops"}, {"3", "sales"}, {"4", ""}, {"5", ""}}));
  // RIGHT: every department, the empty one with no employee.
  EXPECT_EQ(Run("select dname, id from emp right join dept on emp.dept = dept.dept "
                "order by dname, id").result_rows,
            (Cells{{"empty", ""}, {"ops", "2"}, {"sales", "1"}, {"sales", "3"}}));
  // FULL: both; the USING column is either side's value (COALESCE).
  EXPECT_EQ(Run("select dept, id, dname from emp full join dept using (dept) "
                "order by dept nulls first, id").result_rows,
            (Cells{{"", "4", ""},
                   {"10", "1", "sales"},
                   {"10", "3", "sales"},
                   {"20", "2", "ops"},
                   {"30", "", "empty"},
                   {"40", "5", ""}}));
  // ON decides the match, WHERE filters the joined rows.
  EXPECT_EQ(Run("select count(*) from emp right join dept on emp.dept = dept.dept and "
                "emp.id > 100").result_rows,
            (Cells{{"3"}}));
  EXPECT_EQ(Run("select count(*) from emp cross join dept").result_rows, (Cells{{"15"}}));
}

// Before, RIGHT, FULL, NATURAL and CROSS were taken as the table's alias and
// the join ran as an inner join: a wrong answer, no error.
TEST_F(JoinTest, JoinWordsAreNotTakenForAnAlias) {
  EXPECT_EQ(One("select count(*) from emp right join dept on emp.dept = dept.dept"), "4");
  EXPECT_EQ(One("select count(*) from emp full outer join dept on emp.dept = dept.dept"), "6");
  // Elsewhere the words still name things.
  EXPECT_EQ(One("select full.id from emp full where full.id = 2"), "2");
}

TEST_F(JoinTest, TheRedoLabsJoinOfVMystatAndVStatname) {
  Run("insert into emp select object_id, 'x', 10 from all_objects");
  const std::string redo = One("select value from v$mystat join v$statname using (statistic#) "
                               "where name = 'redo size'");
  EXPECT_GT(std::stoll(redo), 0);
  EXPECT_EQ(redo, One("select m.value from v$mystat m, v$statname s where m.statistic# = "
                      "s.statistic# and s.name = 'redo size'"));
  Run("rollback");
}

// A view's and CREATE TABLE AS SELECT's columns are the query's: a USING
// column once (before, their shape listed it twice: ORA-00957 for the view,
// ORA-01722 for the table, whose rows had one column fewer); an outer
// join's optional side may be NULL, whatever its table says.
TEST_F(JoinTest, ViewsAndTablesOfAJoinHaveItsColumns) {
  Run("create view v as select * from emp join dept using (dept)");
  EXPECT_EQ(Run("select * from v order by id").headings, (Names{"DEPT", "ID", "NAME", "DNAME"}));
  Run("create table j as select * from emp natural join dept");
  EXPECT_EQ(One("select count(*) from j"), "3");
  Run("alter table dept modify (dname not null)");
  Run("create table o as select * from emp left join dept using (dept)");
  EXPECT_EQ(Run("select column_name, nullable from user_tab_columns where table_name = 'O' "
                "order by column_id").result_rows,
            (Cells{{"DEPT", "Y"}, {"ID", "Y"}, {"NAME", "Y"}, {"DNAME", "Y"}}));
  EXPECT_EQ(One("select count(*) from o where dname is null"), "2");
}

// A comma binds less tightly than JOIN: `a, b JOIN c USING (x)` joins b
// and c on x, then crosses the result with a.
TEST_F(JoinTest, AJoinAfterACommaJoinsTheSourcesSinceTheComma) {
  const StatementResult r = Run("select * from dept d0, emp join dept using (dept) "
                                "where d0.dept = 30 order by id");
  EXPECT_EQ(r.headings, (Names{"DEPT", "DNAME", "DEPT", "ID", "NAME", "DNAME"}));
  EXPECT_EQ(r.result_rows, (Cells{{"30", "empty", "10", "1", "alice", "sales"},
                                  {"30", "empty", "20", "2", "bob", "ops"},
                                  {"30", "empty", "10", "3", "carol", "sales"}}));
  EXPECT_EQ(One("select count(*) from dept d0, emp natural join dept"), "9");
  // Not joined to every source before it, as cellsim would: refused.
  EXPECT_THAT(Error("select count(*) from dept d0, emp right join dept on emp.dept = dept.dept"),
              HasSubstr("RIGHT or FULL JOIN after a comma"));
}

// A join with an equality (USING, ON a.x = b.y, a WHERE's a.x = b.y
// between inner joins) looks the joined source's rows up by it; the same
// join written so that no equality of two columns is there (`a.k + 0`)
// tries every row. Both give the same rows in the same order: NULLs,
// repeated keys, DATEs, text, and a text column against a number, which
// `=` converts (so '010' equals 10 and the lookup must not miss it).
TEST_F(JoinTest, AnEqualityLooksTheRowsUpAndGivesTheRowsEveryRowWould) {
  CreateAAndB();
  const std::vector<std::pair<std::string, std::string>> same = {
      {"select a.id, b.id from a join b on a.k = b.k",
       "select a.id, b.id from a join b on a.k + 0 = b.k"},
      {"select a.id, b.id from a join b on b.k = a.k and b.id > 5",
       "select a.id, b.id from a join b on b.k = a.k + 0 and b.id > 5"},
      {"select a.id, b.id from a join b using (k)",
       "select a.id, b.id from a join b on a.k + 0 = b.k"},
      {"select a.id, b.id from a, b where a.k = b.k and a.id < 50",
       "select a.id, b.id from a, b where a.k + 0 = b.k and a.id < 50"},
      {"select a.id, b.id from a left join b on a.k = b.k",
       "select a.id, b.id from a left join b on a.k + 0 = b.k"},
      {"select a.id, b.id from a full join b on a.k = b.k",
       "select a.id, b.id from a full join b on a.k + 0 = b.k"},
      {"select a.id, b.id from a right join b on a.s = b.s",
       "select a.id, b.id from a right join b on a.s || '' = b.s"},
      {"select a.id, b.id from a join b on a.d = b.d",
       "select a.id, b.id from a join b on a.d + 0 = b.d"},
      {"select a.id, b.id from a join b on a.k = b.code",
       "select a.id, b.id from a join b on a.k + 0 = b.code"},
      {"select a.id, b.id, c.id from a, b, b c where a.k = c.k and b.s = c.s and b.id < 9",
       "select a.id, b.id, c.id from a, b, b c where a.k + 0 = c.k and b.s = c.s || '' "
       "and b.id < 9"},
      {"select a.id, b.id from a left join b on a.k = b.k where a.k = b.k",
       "select a.id, b.id from a left join b on a.k + 0 = b.k where a.k + 0 = b.k"},
  };
  for (const auto& [indexed, every_row] : same) {
    SCOPED_TRACE(indexed);
    const Cells rows = Run(indexed).result_rows;
    EXPECT_GT(rows.size(), 10u);
    EXPECT_EQ(rows, Run(every_row).result_rows);
  }
  // '010' and '10' are 10 to `=` against a number.
  EXPECT_EQ(One("select count(*) from a join b on a.k = b.code where b.code like '0%'"),
            One("select count(*) from a join b on a.k = to_number(b.code) where b.code like '0%'"));
  EXPECT_NE(One("select count(*) from a join b on a.k = b.code where b.code like '0%'"), "0");
}

// `x IN (SELECT ...)` of more than a few values looks x up rather than
// comparing it with each: the same counts as EXISTS (a correlated subquery,
// which compares row by row), with NULLs in the list (NOT IN then keeps no
// row), DATEs, text, and text against a number (compared one by one).
TEST_F(JoinTest, InASubqueryLooksTheValueUp) {
  CreateAAndB();
  const std::vector<std::pair<std::string, std::string>> same = {
      {"k in (select k from b)", "exists (select 1 from b where b.k = a.k)"},
      {"k not in (select k from b where k > 3)",
       "k is not null and not exists (select 1 from b where b.k = a.k and b.k > 3)"},
      {"s in (select s from b where id > 20)", "exists (select 1 from b where b.s = a.s and id > 20)"},
      {"d in (select d from b where mod(id, 2) = 0)",
       "exists (select 1 from b where b.d = a.d and mod(id, 2) = 0)"},
      {"k in (select code from b)", "exists (select 1 from b where b.code = a.k)"},
      {"k + 10 in (select id from b)", "exists (select 1 from b where b.id = a.k + 10)"},
  };
  for (const auto& [in, exists] : same) {
    SCOPED_TRACE(in);
    const std::string count = One("select count(*) from a where " + in);
    EXPECT_NE(count, "0");
    EXPECT_NE(count, One("select count(*) from a"));
    EXPECT_EQ(count, One("select count(*) from a where " + exists));
  }
  // b.k has NULLs: NOT IN is never TRUE, IN is TRUE or UNKNOWN.
  EXPECT_EQ(One("select count(*) from a where k not in (select k from b)"), "0");
  EXPECT_EQ(One("select count(*) from a where not (k in (select k from b))"), "0");
}

// Ctrl-C stops a join whose ON keeps no row (before, only rows that got
// through every join were counted toward the check: 6,000 tries here, none
// kept, and `select count(*) from big b join big c on b.g = c.g and b.id <
// 0` of 1,000,000 rows ignored Ctrl-C).
TEST_F(JoinTest, CtrlCStopsAJoinWhoseOnKeepsNoRow) {
  CreateAAndB();
  CancelFlag cancel;
  s_->SetCancelFlag(&cancel);
  cancel.Cancel();
  const absl::StatusOr<StatementResult> r = s_->Execute("select count(*) from a join b on a.id < 0");
  EXPECT_TRUE(absl::IsCancelled(r.status())) << r.status();
  s_->SetCancelFlag(nullptr);
  EXPECT_EQ(One("select count(*) from a join b on a.id < 0"), "0");
}

TEST_F(JoinTest, BadJoinsAreOracleErrors) {
  EXPECT_THAT(Error("select * from emp join dept using (emp.dept)"), HasSubstr("ORA-01748"));
  EXPECT_THAT(Error("select * from emp join dept using (dname)"),
              HasSubstr("ORA-00904: \"DNAME\": invalid identifier (USING (DNAME): no source "
                        "before the join has a column DNAME)"));
  EXPECT_THAT(Error("select * from emp join dept using (name)"),
              HasSubstr("the joined source has no column NAME"));
  EXPECT_THAT(Error("select * from emp natural join dept on (1 = 1)"), HasSubstr("ORA-00933"));
  EXPECT_THAT(Error("select * from emp cross join dept using (dept)"), HasSubstr("ORA-00933"));
  EXPECT_THAT(Error("select * from emp left join dept"), HasSubstr("expected ON"));
}

// A column two sources have is ambiguous without a qualifier (before, the
// first source's value was taken): in the select list, WHERE, GROUP BY and
// ON; a USING or NATURAL JOIN column is the join's one value, and an ON
// sees only the sources up to its join.
TEST_F(JoinTest, AColumnTwoSourcesHaveNeedsAQualifier) {
  EXPECT_THAT(Error("select dept from emp e, dept d where e.dept = d.dept"),
              HasSubstr("ORA-00918: column ambiguously defined (DEPT: E, D have it; name it "
                        "E.DEPT)"));
  EXPECT_THAT(Error("select count(*) from emp, dept where dept = 10"), HasSubstr("ORA-00918"));
  EXPECT_THAT(Error("select count(*) from emp join dept on dept = 10"), HasSubstr("ORA-00918"));
  EXPECT_THAT(Error("select count(*) from emp e, dept d group by dept"), HasSubstr("ORA-00918"));
  EXPECT_EQ(One("select count(*) from emp, emp"), "25");
  EXPECT_THAT(Error("select id from emp, emp"), HasSubstr("ORA-00918"));
  EXPECT_EQ(One("select count(*) from emp join dept using (dept) where dept = 10"), "2");
  EXPECT_EQ(One("select count(*) from emp natural join dept where dept = 10"), "2");
  EXPECT_EQ(One("select count(*) from emp e join dept d on e.dept = d.dept where dname = 'ops'"),
            "1");
  // The first ON's `name` is emp's alone; the second join's source has one too.
  EXPECT_EQ(One("select count(*) from emp join dept d on name = 'bob' and emp.dept = d.dept "
                "join emp e2 on e2.id = emp.id"),
            "1");
  // A subquery's names are its own sources' first, not ambiguous with the
  // query around it.
  EXPECT_EQ(One("select count(*) from emp o where exists (select 1 from dept d where "
                "d.dept = o.dept and dept = 10)"),
            "2");
}

// A USING column after an outer join is either side's value (Oracle's
// COALESCE): a join after `emp full join dept using (dept)` matches dept
// 30, which only dept has (before, it took emp's, NULL there, and lost the
// row), and looks it up by that value.
TEST_F(JoinTest, AUsingColumnAfterAnOuterJoinIsEitherSidesValue) {
  Run("create table x (dept number, tag varchar2(10))");
  Run("insert into x values (30, 'thirty')");
  Run("insert into x values (10, 'ten')");
  const Cells expected = {{"10", "alice", "sales", "ten"},
                          {"10", "carol", "sales", "ten"},
                          {"30", "", "empty", "thirty"}};
  EXPECT_EQ(Run("select dept, e.name, d.dname, x.tag from emp e full join dept d using (dept) "
                "join x using (dept) order by 1, 2").result_rows,
            expected);
  EXPECT_EQ(Run("select dept, e.name, d.dname, x.tag from emp e right join dept d using (dept) "
                "join x using (dept) order by 1, 2").result_rows,
            expected);
  EXPECT_EQ(One("select count(*) from emp e full join dept d using (dept) join x on x.dept = d.dept"),
            "3");
}

// A WHERE term that names one source's columns picks that source's rows
// before the join (an index finds them, or they are dropped as they are
// read): the same rows as the terms written so that they name two sources
// (`or a.id < 0`, never TRUE), which only WHERE can decide. Not with an
// outer join, where the NULL row must reach WHERE (`b.id is null` is the
// rows without a match).
TEST_F(JoinTest, ASourcesOwnWhereTermsPickItsRowsBeforeTheJoin) {
  CreateAAndB();
  const std::vector<std::pair<std::string, std::string>> same = {
      {"select a.id, b.id from a, b where a.k = b.k and b.s = 's1' and a.id > 10",
       "select a.id, b.id from a, b where a.k = b.k and (b.s = 's1' or a.id < 0) and "
       "(a.id > 10 or b.id < 0)"},
      {"select a.id, b.id from a join b on a.k = b.k where b.d > trunc(sysdate) and a.s <> 's0'",
       "select a.id, b.id from a join b on a.k = b.k where (b.d > trunc(sysdate) or a.id < 0) "
       "and (a.s <> 's0' or b.id < 0)"},
      {"select a.id, b.id, c.id from a, b, b c where a.k = c.k and c.s = 's2' and b.id = 7",
       "select a.id, b.id, c.id from a, b, b c where a.k = c.k and (c.s = 's2' or a.id < 0) and "
       "(b.id = 7 or a.id < 0)"},
      {"select a.id, b.id from a left join b on a.k = b.k where b.id is null",
       "select a.id, null from a where not exists (select 1 from b where b.k = a.k)"},
      {"select a.id, b.id from a full join b on a.k = b.k where a.id is null or b.s = 's3'",
       "select a.id, b.id from a full join b on a.k + 0 = b.k where a.id is null or b.s = 's3'"},
  };
  for (const auto& [own, both] : same) {
    SCOPED_TRACE(own);
    const Cells rows = Run(own + " order by 1, 2").result_rows;
    EXPECT_GT(rows.size(), 3u);
    EXPECT_EQ(rows, Run(both + " order by 1, 2").result_rows);
  }
  // An index of a joined source finds its rows: a few blocks, not the table.
  Run("create table c as select a.id * 100 + b.id id, a.k, rpad('x', 100) pad from a, b");
  Run("create index c_id on c (id)");
  const StatementResult by_index =
      Run("select count(*) from a join c on c.k = a.k where c.id = 4207");
  const StatementResult scanned =
      Run("select count(*) from a join c on c.k = a.k where c.id + 0 = 4207");
  EXPECT_EQ(by_index.result_rows, scanned.result_rows);
  EXPECT_NE(by_index.result_rows, (Cells{{"0"}}));
  EXPECT_LT(by_index.statistics[stats::Stat::kConsistentGets] * 10,
            scanned.statistics[stats::Stat::kConsistentGets]);
  // A term's error is still the statement's.
  EXPECT_THAT(Error("select count(*) from a, b where a.k = b.k and b.s = 5"), HasSubstr("ORA-01722"));
}

}  // namespace
}  // namespace cellsim::db
