// ALTER TABLE: ADD (a nullable column changes no row: the rows there read it
// as NULL), ADD CONSTRAINT, MODIFY, RENAME COLUMN / TO, each one DDL that
// leaves the table as it was when refused, and all of it across a reopen and
// a crash (recovery replays rows written after the change).
#include <string>

#include "db/db_test_util.h"
#include "gtest/gtest.h"

namespace cellsim::db {
namespace {

using ::testing::HasSubstr;

class AlterTableTest : public testing::SqlTest {
 protected:
  std::string Rows(const std::string& sql) {
    std::string out;
    for (const auto& row : Run(sql).result_rows) {
      for (const std::string& v : row) out += v + "|";
      out += ";";
    }
    return out;
  }
};

TEST_F(AlterTableTest, AddModifyRenameAndTheirRefusals) {
  Run("create table emp (empno number(4), ename varchar2(10), sal number(7,2))");
  Run("insert into emp values (1, 'KING', 5000)");
  Run("insert into emp values (2, 'SCOTT', null)");
  EXPECT_EQ(Run("alter table emp add (hiredate date, deptno number(2))").feedback, "Table altered.");
  EXPECT_EQ(Rows("select empno, nvl(deptno, -1) from emp order by empno"), "1|-1|;2|-1|;");
  EXPECT_THAT(Error("alter table emp add comm number default 0"), HasSubstr("without rows"));
  EXPECT_THAT(Error("alter table emp add bonus number not null"), HasSubstr("ORA-01758"));
  EXPECT_THAT(Error("alter table emp add ename varchar2(5)"), HasSubstr("ORA-01430"));
  EXPECT_THAT(Error("alter table emp drop column sal"), HasSubstr("ORA-01735"));
  EXPECT_THAT(Error("alter table nosuch add (x number)"), HasSubstr("ORA-00942"));
  Run("insert into emp values (3, 'ADAMS', 1100, sysdate, 20)");
  // A key: refused on duplicates or NULLs, the table unchanged; then made.
  Run("insert into emp (empno, ename) values (3, 'DUP')");
  EXPECT_THAT(Error("alter table emp add constraint emp_pk primary key (empno)"),
              HasSubstr("ORA-01452"));
  Run("delete from emp where ename = 'DUP'");
  Run("insert into emp (ename) values ('NOBODY')");
  EXPECT_THAT(Error("alter table emp add constraint emp_pk primary key (empno)"),
              HasSubstr("ORA-01449"));
  EXPECT_EQ(One("select nullable from user_tab_columns where column_name = 'EMPNO'"), "Y");
  Run("delete from emp where ename = 'NOBODY'");
  Run("alter table emp add constraint emp_pk primary key (empno)");
  EXPECT_THAT(Error("insert into emp (empno, ename) values (1, 'DUP')"), HasSubstr("EMP_PK"));
  EXPECT_EQ(One("select nullable from user_tab_columns where column_name = 'EMPNO'"), "N");
  // MODIFY.
  Run("alter table emp modify (ename varchar2(20))");
  EXPECT_THAT(Error("alter table emp modify ename varchar2(3)"), HasSubstr("ORA-01441"));
  EXPECT_THAT(Error("alter table emp modify sal not null"), HasSubstr("ORA-02296"));
  Run("update emp set sal = 1 where sal is null");
  Run("alter table emp modify sal not null");
  EXPECT_THAT(Error("alter table emp modify sal not null"), HasSubstr("ORA-01442"));
  EXPECT_THAT(Error("alter table emp modify sal number(5,2)"), HasSubstr("ORA-01440"));
  EXPECT_THAT(Error("alter table emp modify ename number"), HasSubstr("ORA-01439"));
  Run("alter table emp modify deptno default 10");
  Run("insert into emp (empno, ename, sal) values (4, 'X', 2)");
  EXPECT_EQ(One("select deptno from emp where empno = 4"), "10");
  // RENAME.
  Run("alter table emp rename column sal to salary");
  EXPECT_THAT(Error("alter table emp rename column salary to ename"), HasSubstr("ORA-00957"));
  Run("create table other (x number)");
  EXPECT_THAT(Error("alter table emp rename to other"), HasSubstr("ORA-00955"));
  Run("alter table emp rename to employees");
  EXPECT_THAT(Error("select * from emp"), HasSubstr("ORA-00942"));
  const std::string all = "select empno, ename, salary, nvl(deptno, -1) from employees order by empno";
  const std::string expect = "1|KING|5000|-1|;2|SCOTT|1|-1|;3|ADAMS|1100|20|;4|X|2|10|;";
  EXPECT_EQ(Rows(all), expect);
  Run("commit");
  ASSERT_OK(Reopen());
  EXPECT_EQ(Rows(all), expect);
  EXPECT_THAT(Error("insert into employees (empno, ename, salary) values (1, 'D', 1)"),
              HasSubstr("EMP_PK"));
  // Rows written after an ADD, recovered after a crash.
  Run("alter table employees add (code varchar2(5))");
  Run("insert into employees (empno, ename, salary, code) values (5, 'Y', 3, 'A')");
  Run("commit");
  Crash();
  ASSERT_OK(Reopen());
  EXPECT_EQ(Rows("select empno, code from employees where code is not null"), "5|A|;");
  Run("analyze table employees validate structure cascade");
}

// CHECK constraints: a row for which one is FALSE is refused on INSERT,
// UPDATE and MERGE (NULL passes); ALTER TABLE ADD CONSTRAINT ... CHECK
// validates the rows there; Oracle's parse-time refusals; kept across a
// reopen.
TEST_F(AlterTableTest, CheckConstraints) {
  Run("create table emp (empno number primary key, sal number check (sal > 0), deptno number, "
      "constraint dept_ck check (deptno in (10, 20)))");
  Run("insert into emp values (1, 5000, 10)");
  Run("insert into emp values (2, null, null)");
  EXPECT_THAT(Error("insert into emp values (3, -1, 10)"), HasSubstr("ORA-02290"));
  EXPECT_THAT(Error("insert into emp values (3, 1, 40)"),
              HasSubstr("ORA-02290: check constraint (CELLSIM.DEPT_CK) violated"));
  EXPECT_THAT(Error("update emp set sal = 0 where empno = 1"), HasSubstr("ORA-02290"));
  EXPECT_THAT(Error("insert into emp select 7, -7, 10 from dual"), HasSubstr("ORA-02290"));
  EXPECT_THAT(Error("merge into emp using (select 8 k from dual) s on (emp.empno = s.k) "
                    "when not matched then insert (empno, sal) values (s.k, -8)"),
              HasSubstr("ORA-02290"));
  EXPECT_EQ(Rows("select empno, nvl(sal, -1) from emp order by empno"), "1|5000|;2|-1|;");
  EXPECT_THAT(Error("alter table emp add constraint big check (sal > 5000)"), HasSubstr("ORA-02293"));
  Run("insert into emp values (3, 50, 20)");  // the refused CHECK was not kept
  Run("alter table emp add constraint small check (sal < 10000)");
  EXPECT_THAT(Error("update emp set sal = 20000 where empno = 3"), HasSubstr("SMALL"));
  EXPECT_THAT(Error("alter table emp add constraint small check (sal < 1)"), HasSubstr("ORA-02264"));
  EXPECT_THAT(Error("create table bad (a number check (a > sysdate))"), HasSubstr("ORA-02436"));
  EXPECT_THAT(Error("create table bad (a number check (b > 0))"), HasSubstr("ORA-02438"));
  EXPECT_THAT(Error("create table bad (a number, check (b > 0))"), HasSubstr("ORA-00904"));
  EXPECT_THAT(Error("create table bad (a number check (a in (select 1 from dual)))"),
              HasSubstr("ORA-02251"));
  EXPECT_THAT(Error("create table bad (a number check (count(a) > 0))"), HasSubstr("ORA-00934"));
  EXPECT_THAT(Error("alter table emp rename column sal to salary"), HasSubstr("CHECK"));
  Run("commit");
  ASSERT_OK(Reopen());
  EXPECT_THAT(Error("insert into emp values (4, -1, 10)"), HasSubstr("ORA-02290"));
  EXPECT_THAT(Error("insert into emp values (4, 20000, 10)"), HasSubstr("SMALL"));
  Run("insert into emp values (4, 1, 20)");
}

// USER_CONSTRAINTS and USER_CONS_COLUMNS: the keys (their indexes) and
// CHECKs of every table, across a reopen; DROP CONSTRAINT / PRIMARY KEY /
// UNIQUE take a key's index with it, and DROP INDEX refuses a key's.
TEST_F(AlterTableTest, ConstraintsAreListedAndDropped) {
  Run("create table dept (deptno number primary key, dname varchar2(14) constraint dname_u "
      "unique, loc varchar2(13), constraint loc_ck check (loc <> dname))");
  Run("create table emp (empno number, ename varchar2(10), deptno number, "
      "constraint emp_pk primary key (empno), unique (ename, deptno))");
  Run("create unique index emp_e on emp (ename)");  // an index, not a constraint
  Run("insert into dept values (10, 'ACCOUNTING', 'NEW YORK')");
  const std::string pk = One("select constraint_name from user_constraints where table_name = "
                             "'DEPT' and constraint_type = 'P'");
  EXPECT_TRUE(pk.starts_with("SYS_C")) << pk;
  const std::string listed =
      "select table_name, constraint_type, constraint_name, nvl(search_condition, '-'), "
      "nvl(index_name, '-'), generated from user_constraints order by 1, 2, 3";
  const std::string emp_u = One("select constraint_name from user_constraints where table_name "
                                "= 'EMP' and constraint_type = 'U'");
  const std::string want =
      "DEPT|C|LOC_CK|loc <> dname|-|USER NAME|;DEPT|P|" + pk + "|-|" + pk +
      "|GENERATED NAME|;DEPT|U|DNAME_U|-|DNAME_U|USER NAME|;EMP|P|EMP_PK|-|EMP_PK|USER NAME|;"
      "EMP|U|" + emp_u + "|-|" + emp_u + "|GENERATED NAME|;";
  EXPECT_EQ(Rows(listed), want);
  EXPECT_EQ(Rows("select constraint_name, column_name, nvl(position, 0) from user_cons_columns "
                 "where table_name = 'EMP' order by 1, 3"),
            "EMP_PK|EMPNO|1|;" + emp_u + "|ENAME|1|;" + emp_u + "|DEPTNO|2|;");
  EXPECT_EQ(Rows("select column_name, nvl(position, 0) from user_cons_columns where "
                 "constraint_name = 'LOC_CK' order by 1"),
            "DNAME|0|;LOC|0|;");
  EXPECT_EQ(One("select count(*) from dba_constraints where owner = 'CELLSIM'"), "5");
  // A second key of the same kind or on the same columns is refused.
  EXPECT_THAT(Error("alter table emp add primary key (ename)"), HasSubstr("ORA-02260"));
  EXPECT_THAT(Error("alter table emp add constraint u2 unique (ename, deptno)"),
              HasSubstr("ORA-02261"));
  // A key's index goes only with its constraint.
  EXPECT_THAT(Error("drop index emp_pk"),
              HasSubstr("ORA-02429: cannot drop index used for enforcement of unique/primary key"));
  Run("drop index emp_e");
  Run("commit");
  ASSERT_OK(Reopen());
  EXPECT_EQ(Rows(listed), want);  // the kinds are in the dictionary
  EXPECT_THAT(Error("drop index " + pk), HasSubstr("ORA-02429"));
  EXPECT_EQ(Run("alter table emp drop primary key").feedback, "Table altered.");
  Run("insert into emp values (1, 'A', 10)");
  Run("insert into emp values (1, 'B', 10)");  // no key on EMPNO any more
  EXPECT_THAT(Error("insert into emp values (2, 'A', 10)"), HasSubstr(emp_u));
  Run("alter table emp drop unique (ename, deptno)");
  Run("insert into emp values (2, 'A', 10)");
  Run("alter table dept drop constraint loc_ck");
  Run("insert into dept values (20, 'X', 'X')");
  Run("alter table dept drop constraint dname_u");
  Run("insert into dept values (30, 'X', 'Y')");
  EXPECT_EQ(Rows("select index_name from user_indexes order by 1"), pk + "|;");
  EXPECT_THAT(Error("alter table emp drop primary key"), HasSubstr("ORA-02441"));
  EXPECT_THAT(Error("alter table emp drop unique (ename)"), HasSubstr("ORA-02442"));
  EXPECT_THAT(Error("alter table emp drop constraint nope"), HasSubstr("ORA-02443"));
  EXPECT_THAT(Error("alter table emp drop column ename"), HasSubstr("does not drop columns"));
  EXPECT_THAT(Error("alter table emp drop constraint"),
              HasSubstr("expected a constraint name, found end of statement (ORA-02250: missing "
                        "or invalid constraint name)"));
  EXPECT_THAT(Error("alter table emp add constraint c2 unique ()"),
              HasSubstr("expected a column name, found ')' (ORA-00904"));
  EXPECT_THAT(Error("alter table emp drop foo"),
              HasSubstr("expected CONSTRAINT, PRIMARY KEY or UNIQUE after DROP, found 'foo'"));
  Run("commit");
  Crash();
  ASSERT_OK(Reopen());
  EXPECT_EQ(Rows(listed), "DEPT|P|" + pk + "|-|" + pk + "|GENERATED NAME|;");
  EXPECT_EQ(One("select count(*) from emp"), "3");
}

// USER_OBJECTS, CAT and TAB list the schema's tables, indexes and
// sequences; a table of the schema hides a view of its name, as in Oracle.
// A key column is NOT NULL because of the key, not a constraint of its own
// (Oracle's): dropping the key allows NULLs again unless the column was
// declared NOT NULL; that survives a restart.
TEST_F(AlterTableTest, ADroppedPrimaryKeysColumnsAllowNullsUnlessDeclaredNotNull) {
  const std::string nullable =
      "select column_name, nullable from user_tab_columns where table_name = 'K' order by 1";
  Run("create table k (x number not null, y number, z number, constraint k_pk primary key (x, y))");
  EXPECT_EQ(Rows(nullable), "X|N|;Y|N|;Z|Y|;");
  EXPECT_THAT(Error("alter table k modify (y null)"),
              AllOf(HasSubstr("ORA-01451"), HasSubstr("K.Y is in the primary key")));
  ASSERT_OK(Reopen());
  Run("alter table k drop primary key");
  EXPECT_EQ(Rows(nullable), "X|N|;Y|Y|;Z|Y|;");
  Run("insert into k values (1, null, null)");
  EXPECT_THAT(Error("insert into k values (null, 1, 1)"), HasSubstr("ORA-01400"));
  Run("delete from k");
  Run("alter table k add primary key (z)");
  Run("create table k2 (id number primary key)");
  ASSERT_OK(Reopen());
  EXPECT_EQ(Rows(nullable), "X|N|;Y|Y|;Z|N|;");
  Run("alter table k drop primary key");
  Run("alter table k2 drop primary key");
  EXPECT_EQ(Rows(nullable), "X|N|;Y|Y|;Z|Y|;");
  Run("insert into k2 values (null)");
  EXPECT_EQ(One("select count(*) from k2 where id is null"), "1");
}

// A NOT NULL is a constraint of its own, as Oracle's: listed (type C,
// "COL" IS NOT NULL), named by CONSTRAINT n or SYS_Cnnnnnnn, its name
// unique among all constraints, gone with MODIFY NULL or DROP CONSTRAINT,
// named anew by CTAS; a primary key's columns have none of their own.
TEST_F(AlterTableTest, NotNullConstraintsAreNamedListedAndDropped) {
  Run("create table n (id number primary key, a number not null, b varchar2(5) constraint n_b_nn "
      "not null, c number)");
  const std::string listed =
      "select table_name, constraint_name, search_condition, generated from user_constraints "
      "where constraint_type = 'C' order by 1, 3";
  const std::string a_nn = One("select constraint_name from user_constraints where "
                               "search_condition = '\"A\" IS NOT NULL'");
  EXPECT_TRUE(a_nn.starts_with("SYS_C")) << a_nn;
  EXPECT_EQ(Rows(listed), "N|" + a_nn + "|\"A\" IS NOT NULL|GENERATED NAME|;"
                          "N|N_B_NN|\"B\" IS NOT NULL|USER NAME|;");
  EXPECT_EQ(Rows("select column_name, nvl(position, 0) from user_cons_columns where "
                 "constraint_name = 'N_B_NN'"),
            "B|0|;");
  // One namespace for every kind of constraint.
  EXPECT_THAT(Error("create table m (x number constraint n_b_nn not null)"),
              HasSubstr("ORA-02264: name already used by an existing constraint (N_B_NN)"));
  EXPECT_THAT(Error("alter table n add constraint n_b_nn check (c > 0)"), HasSubstr("ORA-02264"));
  EXPECT_THAT(Error("alter table n add constraint n_b_nn unique (c)"), HasSubstr("ORA-02264"));
  EXPECT_THAT(Error("alter table n modify (c constraint " + a_nn + " not null)"),
              HasSubstr("ORA-02264"));
  EXPECT_THAT(Error("alter table n modify (c constraint c_nn)"),
              HasSubstr("expected NOT NULL after CONSTRAINT C_NN"));
  EXPECT_THAT(Error("create table m (x number constraint not null)"),
              HasSubstr("expected a constraint name, found 'not' (ORA-02250"));
  EXPECT_EQ(One("select count(*) from user_tables where table_name = 'M'"), "0");
  Run("alter table n modify (c constraint n_c_nn not null)");
  Run("alter table n add (e number constraint n_e_nn not null)");
  ASSERT_OK(Reopen());
  EXPECT_EQ(Rows(listed), "N|" + a_nn + "|\"A\" IS NOT NULL|GENERATED NAME|;"
                          "N|N_B_NN|\"B\" IS NOT NULL|USER NAME|;"
                          "N|N_C_NN|\"C\" IS NOT NULL|USER NAME|;"
                          "N|N_E_NN|\"E\" IS NOT NULL|USER NAME|;");
  Run("alter table n modify (c null)");
  Run("alter table n drop constraint n_b_nn");
  Run("alter table n modify (e null)");
  Run("alter table n modify (e not null)");
  const std::string e_nn = One("select constraint_name from user_constraints where "
                               "search_condition = '\"E\" IS NOT NULL'");
  EXPECT_TRUE(e_nn.starts_with("SYS_C")) << e_nn;
  Run("insert into n values (1, 1, null, null, 1)");
  EXPECT_THAT(Error("insert into n values (2, null, 'x', 1, 1)"), HasSubstr("ORA-01400"));
  EXPECT_THAT(Error("alter table n modify (c constraint n_c2 not null)"),
              HasSubstr("ORA-02296: cannot enable (CELLSIM.N_C2) - null values found (N.C)"));
  EXPECT_EQ(One("select count(*) from user_constraints where constraint_name = 'N_C2'"), "0");
  // CTAS: the new table's own constraints, named anew (the key's column too).
  Run("create table n2 as select * from n");
  EXPECT_EQ(Rows("select search_condition, generated from user_constraints where table_name = "
                 "'N2' order by 1"),
            "\"A\" IS NOT NULL|GENERATED NAME|;\"E\" IS NOT NULL|GENERATED NAME|;"
            "\"ID\" IS NOT NULL|GENERATED NAME|;");
  EXPECT_EQ(One("select count(distinct constraint_name) from user_constraints"),
            One("select count(*) from user_constraints"));
  // A key column declared NOT NULL: dropping that constraint leaves it NOT
  // NULL by the key; dropping the key then allows NULLs.
  Run("create table p (id number constraint p_nn not null constraint p_pk primary key)");
  Run("alter table p drop constraint p_nn");
  EXPECT_EQ(One("select nullable from user_tab_columns where table_name = 'P'"), "N");
  Run("alter table p drop primary key");
  Run("insert into p values (null)");
  Run("commit");
  Crash();
  ASSERT_OK(Reopen());
  EXPECT_EQ(One("select count(*) from user_constraints where table_name = 'P'"), "0");
  EXPECT_EQ(One("select count(*) from user_constraints where constraint_type = 'C'"), "5");
}

// RENAME t TO u, Oracle's statement for ALTER TABLE t RENAME TO u: the
// rows, keys and constraints go with it; a view or sequence is refused
// plainly, an unknown name is ORA-04043.
TEST_F(AlterTableTest, RenameStatementRenamesATable) {
  Run("create table r1 (id number primary key, v number constraint r1_v_nn not null)");
  Run("insert into r1 values (1, 10)");
  Run("create view rv as select * from r1");
  Run("create sequence rs");
  EXPECT_EQ(Run("rename r1 to r2").feedback, "Table renamed.");
  EXPECT_EQ(One("select v from r2 where id = 1"), "10");
  EXPECT_THAT(Error("select * from r1"), HasSubstr("ORA-00942"));
  EXPECT_EQ(One("select table_name from user_constraints where constraint_name = 'R1_V_NN'"), "R2");
  EXPECT_THAT(Error("insert into r2 values (1, 11)"), HasSubstr("ORA-00001"));
  EXPECT_THAT(Error("rename rv to rv2"), HasSubstr("RV is a view"));
  EXPECT_THAT(Error("rename rs to rs2"), HasSubstr("RS is a sequence"));
  EXPECT_THAT(Error("rename nosuch to x"), HasSubstr("ORA-04043: object NOSUCH does not exist"));
  EXPECT_THAT(Error("rename r2 r3"), HasSubstr("expected TO"));
  EXPECT_EQ(One("select command_type from v$sql where sql_text = 'rename r1 to r2'"), "28");
  ASSERT_OK(Reopen());
  EXPECT_EQ(One("select count(*) from r2"), "1");
}

TEST_F(AlterTableTest, UserObjectsCatAndTab) {
  Run("create table t (id number primary key)");
  Run("create global temporary table g (x number)");
  Run("create sequence s");
  EXPECT_EQ(Rows("select object_name, object_type, temporary, generated from user_objects "
                 "where object_name not like 'SYS_C%' order by object_name"),
            "G|TABLE|Y|N|;S|SEQUENCE|N|N|;T|TABLE|N|N|;");
  EXPECT_EQ(One("select count(*) from user_objects where object_type = 'INDEX' and generated = 'Y'"),
            "1");
  EXPECT_EQ(Rows("select * from cat order by 1"), "G|TABLE|;S|SEQUENCE|;T|TABLE|;");
  EXPECT_EQ(Rows("select tname from tab order by 1"), "G|;T|;");
  Run("create table tab (x number)");
  Run("insert into tab values (7)");
  EXPECT_EQ(One("select x from tab"), "7");
  Run("drop table tab");
  EXPECT_EQ(One("select count(*) from tab"), "2");
}

}  // namespace
}  // namespace cellsim::db
