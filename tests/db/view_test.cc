// Views: CREATE [OR REPLACE] [[NO]FORCE] VIEW, DROP VIEW, a view named
// wherever a table is read (joins, subqueries, other views, CTAS), Oracle's
// refusals at CREATE, a view whose table went away (ORA-04063, INVALID in
// USER_OBJECTS) and back, read-only DML refusals, USER_VIEWS / TAB / DESC,
// and views surviving a clean close and a crash (dictionary format 6).
#include <chrono>
#include <string>

#include "db/db_test_util.h"
#include "gtest/gtest.h"

namespace cellsim::db {
namespace {

using ::testing::HasSubstr;

class ViewTest : public testing::SqlTest {
 protected:
  void SetUp() override {
    testing::SqlTest::SetUp();
    Run("create table emp (empno number primary key, ename varchar2(20), sal number, deptno number)");
    Run("create table dept (deptno number primary key, dname varchar2(20))");
    Run("insert into dept values (10, 'ACCOUNTING')");
    Run("insert into dept values (20, 'RESEARCH')");
    Run("insert into emp values (7369, 'SMITH', 800, 20)");
    Run("insert into emp values (7499, 'ALLEN', 1600, 10)");
    Run("insert into emp values (7521, 'WARD', 1250, 20)");
    Run("commit");
  }
  std::string Rows(const std::string& sql) {
    std::string out;
    for (const auto& row : Run(sql).result_rows) {
      std::string line;
      for (const std::string& v : row) line += (line.empty() ? "" : ",") + v;
      out += (out.empty() ? "" : ";") + line;
    }
    return out;
  }
};

TEST_F(ViewTest, AViewIsReadWhereverATableIs) {
  EXPECT_EQ(Run("create view rich as select empno, ename, sal * 12 annual from emp where sal > 1000")
                .feedback, "View created.");
  EXPECT_EQ(Rows("select * from rich order by empno"), "7499,ALLEN,19200;7521,WARD,15000");
  StatementResult r = Run("select * from rich where annual > 16000");
  ASSERT_EQ(r.headings.size(), 3u);
  EXPECT_EQ(r.headings[2], "ANNUAL");
  // A column list names the columns; joins, aliases, subqueries, aggregates.
  Run("create view emp_dept (who, dept) as select e.ename, d.dname from emp e join dept d on e.deptno = d.deptno");
  EXPECT_EQ(Rows("select v.who from emp_dept v where v.dept = 'RESEARCH' order by 1"), "SMITH;WARD");
  EXPECT_EQ(Rows("select dept, count(*) from emp_dept group by dept order by dept"), "ACCOUNTING,1;RESEARCH,2");
  EXPECT_EQ(Rows("select ename from emp where empno in (select empno from rich) order by ename"),
            "ALLEN;WARD");
  EXPECT_EQ(One("select (select count(*) from rich) from dual"), "2");
  // A view over a view, a view twice in one query, a view with a subquery.
  Run("create view richest as select * from rich where annual = (select max(annual) from rich)");
  EXPECT_EQ(One("select ename from richest"), "ALLEN");
  EXPECT_EQ(One("select count(*) from rich a, rich b"), "4");
  // The rows as the statement sees them (the view runs where it is named).
  Run("update emp set sal = 5000 where ename = 'SMITH'");
  EXPECT_EQ(One("select ename from richest"), "SMITH");
  Run("rollback");
  // CREATE TABLE AS SELECT from a view; an empty view still has its columns.
  Run("create table rich_copy as select * from rich");
  EXPECT_EQ(One("select count(*) from rich_copy"), "2");
  Run("create view nobody as select * from emp where 1 = 0");
  EXPECT_EQ(Run("desc nobody").result_rows.size(), 4u);
  // DESC, USER_VIEWS, TAB, USER_OBJECTS.
  StatementResult d = Run("desc emp_dept");
  ASSERT_EQ(d.result_rows.size(), 2u);
  EXPECT_EQ(d.result_rows[0][0], "WHO");
  EXPECT_EQ(One("select text from user_views where view_name = 'RICH'"),
            "select empno, ename, sal * 12 annual from emp where sal > 1000");
  EXPECT_EQ(One("select tabtype from tab where tname = 'RICH'"), "VIEW");
  EXPECT_EQ(One("select status from user_objects where object_name = 'RICH' and object_type = 'VIEW'"),
            "VALID");
}

TEST_F(ViewTest, OraclesRefusalsAtCreate) {
  EXPECT_THAT(Error("create view v as select ename, sal * 12 from emp"), HasSubstr("ORA-00998"));
  EXPECT_THAT(Error("create view v (a, b) as select ename from emp"), HasSubstr("ORA-01730"));
  EXPECT_THAT(Error("create view v as select e.ename, d.dname ename from emp e, dept d"),
              HasSubstr("ORA-00957"));
  EXPECT_THAT(Error("create view v as select nosuch from emp"), HasSubstr("ORA-00904"));
  EXPECT_THAT(Error("create view v as select * from nosuch"), HasSubstr("ORA-00942"));
  EXPECT_THAT(Error("create view emp as select * from dept"), HasSubstr("ORA-00955"));
  Run("create sequence s");
  EXPECT_THAT(Error("create view v as select s.nextval n from dual"), HasSubstr("ORA-02287"));
  EXPECT_THAT(Error("create view v as select * from emp with check option"), HasSubstr("read-only"));
  EXPECT_THAT(Error("create view v as update emp set sal = 0"), HasSubstr("ORA-00928"));
  // Nothing of the refused views exists.
  EXPECT_EQ(One("select count(*) from user_views"), "0");
  Run("create view v as select * from dept");
  EXPECT_THAT(Error("create view v as select * from emp"), HasSubstr("ORA-00955"));
  EXPECT_THAT(Error("create table v (x number)"), HasSubstr("ORA-00955"));
  EXPECT_THAT(Error("drop view nosuch"), HasSubstr("ORA-00942"));
  EXPECT_THAT(Error("drop table v"), HasSubstr("V is a view: DROP TABLE names tables; DROP VIEW V"));
}

TEST_F(ViewTest, OrReplaceKeepsTheObjectAndFindsALoop) {
  Run("create view a as select * from emp");
  const std::string id = One("select object_id from user_objects where object_name = 'A'");
  Run("create or replace view a as select ename from emp");
  EXPECT_EQ(One("select object_id from user_objects where object_name = 'A'"), id);
  EXPECT_EQ(Run("select * from a").headings.size(), 1u);
  Run("create view b as select * from a");
  // a -> b -> a: refused, and a stays as it was.
  EXPECT_THAT(Error("create or replace view a as select * from b"), HasSubstr("ORA-01731"));
  EXPECT_EQ(One("select count(*) from a"), "3");
  Run("drop view b");
  EXPECT_EQ(Run("drop view a").feedback, "View dropped.");
  EXPECT_EQ(One("select count(*) from user_objects where object_type = 'VIEW'"), "0");
}

// A view of a view of ... runs each one once per use: finding a view's
// column types takes its sources' shapes, not their rows (it ran each inner
// view again: 2^depth runs, minutes at depth 20).
TEST_F(ViewTest, ViewsOfViewsRunEachViewOnce) {
  constexpr int kDepth = 20;
  Run("create view v0 as select ename, sal, deptno from emp");
  for (int i = 1; i <= kDepth; ++i) {
    Run("create view v" + std::to_string(i) + " as select ename, sal + 1 sal, deptno from v" +
        std::to_string(i - 1) + " where deptno in (10, 20)");
  }
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(Rows("select ename, sal from v20 where sal > 1000 order by sal"),
            "WARD,1270;ALLEN,1620");
  Run("create table t20 as select * from v20 where 1 = 0");
  EXPECT_EQ(Rows("select column_name, data_type, data_length from user_tab_columns "
                 "where table_name = 'T20' order by column_id"),
            "ENAME,VARCHAR2,20;SAL,NUMBER,22;DEPTNO,NUMBER,22");
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(20));
}

TEST_F(ViewTest, AViewWhoseTableWentAwayIsInvalidUntilItIsBack) {
  Run("create table t (x number)");
  Run("insert into t values (1)");
  Run("commit");
  Run("create view v as select x from t");
  Run("drop table t");
  EXPECT_THAT(Error("select * from v"), HasSubstr("ORA-04063: view \"CELLSIM.V\" has errors"));
  EXPECT_THAT(Error("select * from v"), HasSubstr("ORA-00942"));
  EXPECT_EQ(One("select status from user_objects where object_name = 'V'"), "INVALID");
  Run("create table t (x number)");
  Run("insert into t values (2)");
  EXPECT_EQ(One("select x from v"), "2");
  EXPECT_EQ(One("select status from user_objects where object_name = 'V'"), "VALID");
  // FORCE makes a view over what does not exist yet.
  EXPECT_THAT(Run("create force view w as select * from later").feedback,
              HasSubstr("Warning: View created with compilation errors"));
  EXPECT_EQ(One("select status from user_objects where object_name = 'W'"), "INVALID");
  Run("create table later (y number)");
  EXPECT_EQ(One("select count(*) from w"), "0");
}

TEST_F(ViewTest, ViewsAreReadOnly) {
  Run("create view v as select * from emp");
  Run("create view r as select * from emp with read only");
  EXPECT_THAT(Error("insert into v values (1, 'X', 1, 10)"), HasSubstr("ORA-01732"));
  EXPECT_THAT(Error("update v set sal = 0"), HasSubstr("ORA-01732"));
  EXPECT_THAT(Error("delete from v"), HasSubstr("ORA-01732"));
  EXPECT_THAT(Error("delete from r"), HasSubstr("ORA-42399"));
  EXPECT_EQ(One("select read_only from user_views where view_name = 'R'"), "Y");
  EXPECT_EQ(One("select count(*) from emp"), "3");
}

TEST_F(ViewTest, ViewsSurviveACleanCloseAndACrash) {
  Run("create view v (name) as select ename from emp where deptno = 20");
  ASSERT_OK(Reopen());
  EXPECT_EQ(Rows("select name from v order by name"), "SMITH;WARD");
  Run("create or replace view v (name) as select ename from emp where deptno = 10");
  Run("create view w as select dname from dept");
  Crash();
  ASSERT_OK(Reopen());
  EXPECT_EQ(Rows("select name from v"), "ALLEN");
  EXPECT_EQ(One("select count(*) from w"), "2");
  Run("drop view w");
  Crash();
  ASSERT_OK(Reopen());
  EXPECT_EQ(One("select count(*) from user_views"), "1");
}

}  // namespace
}  // namespace cellsim::db
