// Sequences: CREATE / ALTER / DROP SEQUENCE, NEXTVAL and CURRVAL where
// Oracle takes them (one value per row), DEFAULT s.NEXTVAL, the cache's
// highwater in the dictionary (no value handed out twice after a crash, no
// gap after a clean close), and Oracle's refusals.
#include <string>

#include "db/db_test_util.h"
#include "gtest/gtest.h"

namespace cellsim::db {
namespace {

using ::testing::HasSubstr;

class SequenceTest : public testing::SqlTest {};

std::string Column(const StatementResult& r, size_t col) {
  std::string out;
  for (const auto& row : r.result_rows) out += (out.empty() ? "" : ",") + row[col];
  return out;
}

TEST_F(SequenceTest, NextvalIsOneValuePerRowAndCurrvalTheSessionsLast) {
  Run("create sequence s");
  EXPECT_THAT(Error("select s.currval from dual"), HasSubstr("ORA-08002"));
  EXPECT_EQ(One("select s.nextval from dual"), "1");
  // Every NEXTVAL and CURRVAL of a row is that row's one value.
  StatementResult r = Run("select s.nextval a, s.currval b, s.nextval c from dual connect by level <= 3");
  EXPECT_EQ(Column(r, 0), "2,3,4");
  EXPECT_EQ(Column(r, 1), "2,3,4");
  EXPECT_EQ(Column(r, 2), "2,3,4");
  EXPECT_EQ(r.headings[0], "A");
  EXPECT_EQ(Run("select s.currval from dual").headings[0], "CURRVAL");
  EXPECT_EQ(One("select s.currval from dual"), "4");
  // A second session has its own CURRVAL and shares the sequence.
  std::unique_ptr<Session> other = db_->NewSession();
  EXPECT_THAT(Error("select s.currval from dual", other.get()), HasSubstr("ORA-08002"));
  EXPECT_EQ(One("select s.nextval from dual", other.get()), "5");
  EXPECT_EQ(One("select s.currval from dual"), "4");

  Run("create table t (id number default s.nextval primary key, name varchar2(10))");
  Run("insert into t (name) values ('a')");                                 // 6
  Run("insert into t (name) select 'b' from dual connect by level <= 3");   // 7, 8, 9
  Run("insert into t values (s.nextval, 'c')");                             // 10
  Run("insert into t (name) select 'd' from t where name = 'b' order by id desc");  // 11-13
  EXPECT_EQ(Column(Run("select id from t order by id"), 0), "6,7,8,9,10,11,12,13");
  // CURRVAL alone is constant for the statement; UPDATE's NEXTVAL is per row.
  Run("update t set name = s.currval where name = 'd'");
  EXPECT_EQ(One("select count(*) from t where name = '13'"), "3");
  Run("update t set id = s.nextval + 100 where name = 'b'");
  EXPECT_EQ(Column(Run("select id from t where name = 'b' order by id"), 0), "114,115,116");
  Run("update t set id = default where name = 'a'");
  EXPECT_EQ(One("select id from t where name = 'a'"), "17");
  // NEXTVAL is not transactional.
  Run("rollback");
  EXPECT_EQ(One("select s.nextval from dual"), "18");
  Run("merge into t using (select 1 k from dual connect by level <= 2) src on (1 = 0) "
      "when not matched then insert (name) values ('m')");
  EXPECT_EQ(Column(Run("select id from t where name = 'm' order by id"), 0), "19,20");
  Run("create table c as select s.nextval id, level l from dual connect by level <= 2");
  EXPECT_EQ(Column(Run("select id from c order by l"), 0), "21,22");
  EXPECT_EQ(One("select column_name from user_tab_columns where data_default = 's.nextval'"), "ID");
}

TEST_F(SequenceTest, OracleRefusesNextvalOutsideTheSelectListValuesAndSet) {
  Run("create sequence s");
  Run("create table t (id number)");
  Run("insert into t values (1)");
  for (const char* sql : {"select s.nextval from t where s.nextval > 0",
                          "select distinct s.nextval from t", "select s.nextval from t order by 1",
                          "select count(*), s.nextval from t",
                          "select s.nextval from t group by id",
                          "select s.nextval from t union select 1 from dual",
                          "select (select s.nextval from dual) from t",
                          "select * from (select s.nextval from dual)",
                          "delete from t where id = s.currval",
                          "update t set id = 1 where id = s.nextval",
                          "insert into t values ((select s.nextval from dual))",
                          "insert into t select distinct s.nextval from t"}) {
    EXPECT_THAT(Error(sql), HasSubstr("ORA-02287")) << sql;
  }
  EXPECT_THAT(Error("select x.nextval from dual"), HasSubstr("ORA-02289"));
  EXPECT_THAT(Error("create table d (a number default x.nextval)"), HasSubstr("ORA-02289"));
  EXPECT_THAT(Error("create sequence t"), HasSubstr("ORA-00955"));
  EXPECT_THAT(Error("create table s (a number)"), HasSubstr("ORA-00955"));
  EXPECT_THAT(Error("create index s on t (id)"), HasSubstr("ORA-00955"));
  EXPECT_THAT(Error("create sequence q increment by 0"), HasSubstr("ORA-04002"));
  EXPECT_THAT(Error("create sequence q minvalue 5 maxvalue 3"), HasSubstr("ORA-04004"));
  EXPECT_THAT(Error("create sequence q maxvalue 3 increment by 5"), HasSubstr("ORA-04005"));
  EXPECT_THAT(Error("create sequence q start with 0"), HasSubstr("ORA-04006"));
  EXPECT_THAT(Error("create sequence q maxvalue 10 start with 11"), HasSubstr("ORA-04008"));
  EXPECT_THAT(Error("create sequence q cache 1"), HasSubstr("ORA-04010"));
  EXPECT_THAT(Error("create sequence q maxvalue 5 cycle"), HasSubstr("ORA-04013"));
  EXPECT_THAT(Error("create sequence q cache 2 cache 3"), HasSubstr("ORA-02247"));
  EXPECT_THAT(Error("create sequence q start with 1.5"), HasSubstr("ORA-01722"));
  EXPECT_THAT(Error("alter sequence s start with 5"), HasSubstr("ORA-02283"));
  EXPECT_THAT(Error("alter sequence s"), HasSubstr("ORA-02286"));
  EXPECT_THAT(Error("drop sequence q"), HasSubstr("ORA-02289"));
  // DBMS_METADATA's form of a NOMAXVALUE sequence is taken as written.
  Run("create sequence m minvalue 1 maxvalue 9999999999999999999999999999 increment by 1 "
      "start with 1 cache 20 noorder nocycle");
  EXPECT_EQ(One("select max_value from user_sequences where sequence_name = 'M'"), "1.0000E+28");
}

TEST_F(SequenceTest, BoundsCycleAlterAndDrop) {
  Run("create sequence down increment by -2 start with 5 minvalue 1 maxvalue 5 nocache");
  EXPECT_EQ(Column(Run("select down.nextval from dual connect by level <= 3"), 0), "5,3,1");
  EXPECT_THAT(Error("select down.nextval from dual"), HasSubstr("goes below MINVALUE"));
  Run("create sequence c minvalue 1 maxvalue 3 cycle cache 2");
  EXPECT_EQ(Column(Run("select c.nextval from dual connect by level <= 7"), 0), "1,2,3,1,2,3,1");
  Run("create sequence up maxvalue 2 increment by 1 minvalue 0");
  EXPECT_EQ(Column(Run("select up.nextval from dual connect by level <= 3"), 0), "0,1,2");
  EXPECT_THAT(Error("select up.nextval from dual"), HasSubstr("ORA-08004"));
  Run("alter sequence up maxvalue 4");
  EXPECT_EQ(One("select up.nextval from dual"), "3");
  EXPECT_THAT(Error("alter sequence up maxvalue 2"), HasSubstr("ORA-04009"));
  Run("create sequence s");
  EXPECT_EQ(One("select s.nextval from dual"), "1");
  Run("alter sequence s increment by 10");
  EXPECT_EQ(One("select s.nextval from dual"), "11");
  Run("alter sequence s restart start with 100 increment by 1");
  EXPECT_EQ(One("select s.nextval from dual"), "100");
  StatementResult v = Run(
      "select min_value, max_value, increment_by, cycle_flag, order_flag, cache_size "
      "from user_sequences where sequence_name = 'C'");
  ASSERT_EQ(v.result_rows.size(), 1u);
  EXPECT_EQ(v.result_rows[0], (std::vector<std::string>{"1", "3", "1", "Y", "N", "2"}));
  EXPECT_EQ(One("select sequence_owner from dba_sequences where sequence_name = 'S'"), "CELLSIM");
  Run("drop sequence s");
  EXPECT_THAT(Error("select s.currval from dual"), HasSubstr("ORA-02289"));
  Run("create sequence s");
  EXPECT_THAT(Error("select s.currval from dual"), HasSubstr("ORA-08002"));
}

// The cache's highwater is in the dictionary before any value it covers is
// handed out: a crash skips the cached values (as SHUTDOWN ABORT), a clean
// close hands them back (as SHUTDOWN IMMEDIATE), and no value comes twice.
TEST_F(SequenceTest, CacheHighwaterSurvivesCrashAndCleanClose) {
  Run("create sequence s cache 10");
  Run("create sequence n nocache");
  EXPECT_EQ(One("select last_number from user_sequences where sequence_name = 'S'"), "1");
  EXPECT_EQ(One("select s.nextval from dual"), "1");
  EXPECT_EQ(One("select n.nextval from dual"), "1");
  EXPECT_EQ(One("select last_number from user_sequences where sequence_name = 'S'"), "11");
  EXPECT_EQ(One("select last_number from user_sequences where sequence_name = 'N'"), "2");
  Run("select s.nextval from dual connect by level <= 11");  // 2..12: one more refill
  Crash();
  ASSERT_OK(Reopen());
  EXPECT_EQ(One("select s.nextval from dual"), "21");  // 13..20 were cached: skipped
  EXPECT_EQ(One("select n.nextval from dual"), "2");   // NOCACHE skips nothing
  ASSERT_OK(Reopen());                                   // a clean close in between
  EXPECT_EQ(One("select s.nextval from dual"), "22");
  EXPECT_EQ(One("select last_number from user_sequences where sequence_name = 'S'"), "32");
  Run("drop sequence n");
  Crash();
  ASSERT_OK(Reopen());
  EXPECT_EQ(One("select count(*) from user_sequences"), "1");
  EXPECT_EQ(One("select s.nextval from dual"), "32");
}

// Identity columns (12c): a sequence of their own, ISEQ$$_n, that the
// table's DDL makes and drops; ALWAYS refuses a given value, BY DEFAULT
// takes one, ON NULL fills a NULL; a value is drawn only for a row that
// takes it; everything survives a reopen.
TEST_F(SequenceTest, IdentityColumns) {
  Run("create table a (id number generated always as identity, name varchar2(10))");
  Run("insert into a (name) values ('x')");
  Run("insert into a values (default, 'y')");
  Run("insert into a (name) select 'z' from dual connect by level <= 2");
  EXPECT_EQ(Column(Run("select id from a order by id"), 0), "1,2,3,4");
  EXPECT_THAT(Error("insert into a values (9, 'n')"), HasSubstr("ORA-32795"));
  EXPECT_THAT(Error("insert into a (id, name) select 9, 'n' from dual"), HasSubstr("ORA-32795"));
  EXPECT_THAT(Error("update a set id = 9"), HasSubstr("ORA-32796"));
  Run("create table b (id number generated by default on null as identity "
      "(start with 100 increment by 10 nocache), n number)");
  Run("insert into b values (null, 1)");
  Run("insert into b values (7, 2)");  // given: nothing drawn
  Run("insert into b (n) values (3)");
  EXPECT_EQ(Column(Run("select id from b order by n"), 0), "100,7,110");
  Run("create table c (id number generated by default as identity, n number)");
  EXPECT_THAT(Error("insert into c values (null, 1)"), HasSubstr("ORA-01400"));
  Run("insert into c values (5, 1)");
  Run("insert into c (n) values (2)");
  EXPECT_EQ(One("select id from c where n = 2"), "1");  // the refused and the given drew nothing
  EXPECT_THAT(Error("create table d (id varchar2(9) generated always as identity)"),
              HasSubstr("ORA-30675"));
  EXPECT_THAT(Error("create table d (a number generated always as identity, "
                    "b number generated always as identity)"),
              HasSubstr("ORA-30669"));
  EXPECT_THAT(Error("create table d (a number default 1 generated always as identity)"),
              HasSubstr("ORA-30614"));
  const std::string seq = One("select sequence_name from user_tab_identity_cols where table_name = 'A'");
  EXPECT_EQ(seq.rfind("ISEQ$$_", 0), 0u) << seq;
  EXPECT_THAT(Error("drop sequence \"" + seq + "\""), HasSubstr("ORA-32794"));
  EXPECT_THAT(Error("alter sequence \"" + seq + "\" cache 5"), HasSubstr("ORA-32793"));
  EXPECT_EQ(One("select identity_options from user_tab_identity_cols where table_name = 'B'"),
            "START WITH: 100, INCREMENT BY: 10, MAX_VALUE: 9999999999999999999999999999, "
            "MIN_VALUE: 1, CYCLE_FLAG: N, CACHE_SIZE: 0, ORDER_FLAG: N");
  EXPECT_EQ(One("select nullable || identity_column from user_tab_columns where table_name = 'A' "
                "and column_name = 'ID'"),
            "NYES");
  // CREATE TABLE AS SELECT copies the values, not the identity.
  Run("create table e as select * from a");
  Run("insert into e values (42, 'copy')");
  Run("commit");
  ASSERT_OK(Reopen());
  Run("insert into a (name) values ('after')");
  EXPECT_EQ(One("select id from a where name = 'after'"), "5");
  EXPECT_THAT(Error("insert into a values (9, 'n')"), HasSubstr("ORA-32795"));
  EXPECT_EQ(One("select generation_type from user_tab_identity_cols where table_name = 'B'"),
            "BY DEFAULT");
  Run("drop table a");
  EXPECT_EQ(One("select count(*) from user_sequences where sequence_name = '" + seq + "'"), "0");
  Crash();
  ASSERT_OK(Reopen());
  EXPECT_EQ(One("select count(*) from user_sequences"), "2");  // B's and C's
}

}  // namespace
}  // namespace cellsim::db
