// Joins of the FROM list: [INNER] JOIN ... ON, JOIN ... USING (...), NATURAL
// JOIN, CROSS JOIN, and LEFT, RIGHT and FULL [OUTER] JOIN, as Oracle runs
// them (a USING column shown once, first, either side's value).
#include <string>
#include <vector>

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
};

TEST_F(JoinTest, UsingMatchesItsColumnsAndShowsThemOnceFirst) {
  const StatementResult r = Run("select * from emp join dept using (dept) order by id");
  EXPECT_EQ(r.headings, (Names{"DEPT", "ID", "NAME", "DNAME"}));
  EXPECT_EQ(r.result_rows, (Cells{{"10", "1", "alice", "sales"},
                                  {"20", "2", "bob", "ops"},
                                  {"10", "3", "carol", "sales"}}));
  // The same rows as ON, and the column named without qualifier.
  EXPECT_EQ(Run("select id, dept, dname from emp e join dept d on e.dept = d.dept order by id")
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

}  // namespace
}  // namespace cellsim::db
