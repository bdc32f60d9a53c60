// Anonymous PL/SQL blocks (docs/sql.md "PL/SQL blocks"): variables in SQL,
// loops, SELECT INTO, cursor FOR loops, exceptions, DBMS_OUTPUT, the
// call-level rollback of an unhandled error, statistics, and what the
// parser refuses before anything runs.
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "cellsim/db/database.h"
#include "cellsim/db/statement.h"
#include "db/db_test_util.h"
#include "gtest/gtest.h"
#include "testing/test_util.h"

namespace cellsim::db {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using stats::Stat;

class PlsqlTest : public testing::SqlTest {
 protected:
  void SetUp() override {
    SqlTest::SetUp();
    Run("create table t (id number primary key, name varchar2(20), n number)");
  }
  std::vector<std::string> Output(const std::string& block) {
    return Run(block).output;
  }
};

TEST_F(PlsqlTest, LoopsAndVariablesFillATable) {
  StatementResult r = Run(
      "declare\n"
      "  v_total number := 0;\n"
      "  v_name  varchar2(20);\n"
      "begin\n"
      "  for i in 1..10 loop\n"
      "    insert into t values (i, 'row ' || i, i * 2);\n"
      "    v_total := v_total + i;\n"
      "  end loop;\n"
      "  commit;\n"
      "  select max(name) into v_name from t where n < 10;\n"
      "  dbms_output.put_line('total ' || v_total || ', ' || v_name);\n"
      "end;");
  EXPECT_EQ(r.feedback, "PL/SQL procedure successfully completed.");
  EXPECT_EQ(r.kind, "PL/SQL EXECUTE");
  EXPECT_THAT(r.output, ElementsAre("total 55, row 4"));
  EXPECT_EQ(One("select count(*) || ':' || sum(n) from t"), "10:110");
  // The block is one call; each SQL statement it ran is an execution of its own.
  EXPECT_EQ(r.statistics[Stat::kExecuteCount], 1 + 10 + 1 + 1);
  EXPECT_EQ(r.statistics[Stat::kUserCommits], 1);
  EXPECT_FALSE(s_->InTransaction());
}

TEST_F(PlsqlTest, AColumnNameWinsOverAVariableOfTheSameName) {
  Run("insert into t values (1, 'a', 5)");
  Run("insert into t values (2, 'b', 7)");
  // N is T's column: "where n = n" keeps every row, as in Oracle.
  EXPECT_THAT(Output("declare n number := 99; c number; begin\n"
                     "  select count(*) into c from t where n = n;\n"
                     "  dbms_output.put_line(c);\n"
                     "  update t set name = 'x' where id = n - 97;\n"
                     "  dbms_output.put_line(sql%rowcount);\n"
                     "end;"),
              ElementsAre("2", "0"));  // ID = N - 97 compares T's own N
  EXPECT_THAT(Output("declare v_id number := 2; begin\n"
                     "  update t set name = 'y' where id = v_id;\n"
                     "  dbms_output.put_line(sql%rowcount || ' ' || sql%found);\n"
                     "end;"),
              ElementsAre("1 1"));
  EXPECT_EQ(One("select name from t where id = 2"), "y");
}

TEST_F(PlsqlTest, ControlFlow) {
  EXPECT_THAT(Output("declare x number := 0; done boolean := false; begin\n"
                     "  while x < 5 loop x := x + 2; end loop;\n"
                     "  if x = 6 then dbms_output.put_line('six');\n"
                     "  elsif x > 6 then dbms_output.put_line('more');\n"
                     "  else dbms_output.put_line('less'); end if;\n"
                     "  for i in reverse 1..3 loop dbms_output.put(i); end loop;\n"
                     "  dbms_output.new_line;\n"
                     "  <<outer>> for i in 1..3 loop\n"
                     "    for j in 1..3 loop\n"
                     "      continue when j = 2;\n"
                     "      exit outer when i = 2;\n"
                     "      dbms_output.put_line(i || j);\n"
                     "    end loop;\n"
                     "  end loop;\n"
                     "  loop x := x - 1; done := x <= 4; exit when done; end loop;\n"
                     "  dbms_output.put_line('x=' || x);\n"
                     "end;"),
              ElementsAre("six", "321", "11", "13", "x=4"));
}

TEST_F(PlsqlTest, CursorForLoopAndSelectInto) {
  for (int i = 1; i <= 4; ++i) Run("insert into t values (" + std::to_string(i) + ", 'n', " + std::to_string(i * i) + ")");
  EXPECT_THAT(Output("begin for r in (select id, n sq from t where id > 2 order by id desc) loop\n"
                     "  dbms_output.put_line(r.id || '^2=' || r.sq);\n"
                     "end loop; end;"),
              ElementsAre("4^2=16", "3^2=9"));
  EXPECT_THAT(Error("declare v number; begin select n into v from t; end;"),
              HasSubstr("ORA-01422: exact fetch returns more than requested number of rows\n"
                        "ORA-06512: at line 1"));
  EXPECT_THAT(Output("declare v number; begin\n"
                     "  select n into v from t where id = 99;\n"
                     "exception\n"
                     "  when no_data_found then dbms_output.put_line('none ' || sqlcode);\n"
                     "end;"),
              ElementsAre("none 100"));
}

TEST_F(PlsqlTest, ExplicitCursorsAndCaseStatements) {
  for (int i = 1; i <= 5; ++i) Run(fmt::format("insert into t values ({}, 'n{}', {})", i, i, i));
  EXPECT_THAT(Output("declare\n"
                     "  cursor c is select id, name from t where id <= 3 order by id;\n"
                     "  v_id number; v_name varchar2(20);\n"
                     "begin\n"
                     "  open c;\n"
                     "  loop\n"
                     "    fetch c into v_id, v_name;\n"
                     "    exit when c%notfound;\n"
                     "    dbms_output.put_line(c%rowcount || ':' || v_name);\n"
                     "  end loop;\n"
                     "  close c;\n"
                     "  for r in c loop dbms_output.put(r.id); end loop;\n"
                     "  dbms_output.new_line;\n"
                     "  case v_id when 2 then null; when 3 then dbms_output.put_line('three'); end case;\n"
                     "  case when v_id > 3 then null; else dbms_output.put_line('else'); end case;\n"
                     "end;"),
              ElementsAre("1:n1", "2:n2", "3:n3", "123", "three", "else"));
  EXPECT_THAT(Error("begin case 1 when 2 then null; end case; end;"),
              HasSubstr("ORA-06592: CASE not found while executing CASE statement"));
  EXPECT_THAT(Error("declare cursor c is select 1 from dual; x number; begin fetch c into x; end;"),
              HasSubstr("ORA-01001: invalid cursor"));
  EXPECT_THAT(Error("declare cursor c is select 1 from dual; begin open c; open c; end;"),
              HasSubstr("ORA-06511"));
  EXPECT_THAT(Output("declare cursor c is select 1 from dual; begin\n"
                     "  if not c%isopen then dbms_output.put_line('closed'); end if; end;"),
              ElementsAre("closed"));
  EXPECT_THAT(Error("begin open nosuch; end;"), HasSubstr("PLS-00201: identifier 'NOSUCH'"));
  EXPECT_THAT(Error("begin dbms_pipe.pack_message(1); end;"),
              HasSubstr("PLS-00201: identifier 'DBMS_PIPE.PACK_MESSAGE' must be declared"));
}

TEST_F(PlsqlTest, RowtypeRecords) {
  for (int i = 1; i <= 3; ++i) Run(fmt::format("insert into t values ({}, 'n{}', {})", i, i, i));
  EXPECT_THAT(Output("declare\n"
                     "  r t%rowtype;\n"
                     "  cursor c is select id, name || '!' bang from t order by id;\n"
                     "  cr c%rowtype;\n"
                     "begin\n"
                     "  select * into r from t where id = 2;\n"
                     "  dbms_output.put_line(r.id || ' ' || r.name || ' ' || r.n);\n"
                     "  r.name := 'changed';\n"
                     "  update t set name = r.name where id = r.id;\n"
                     "  open c;\n"
                     "  loop fetch c into cr; exit when c%notfound; dbms_output.put(cr.bang); end loop;\n"
                     "  close c;\n"
                     "  dbms_output.new_line;\n"
                     "end;"),
              ElementsAre("2 n2 2", "n1!changed!n3!"));
  // A field is typed as its column: ORA-06502, the block's update undone.
  EXPECT_THAT(Error("declare r t%rowtype; begin update t set n = 0; r.n := 'x'; end;"),
              HasSubstr("ORA-06502"));
  EXPECT_EQ(One("select sum(n) from t"), "6");
  EXPECT_THAT(Error("declare r nosuch%rowtype; begin null; end;"), HasSubstr("PLS-00201"));
  EXPECT_THAT(Error("declare r t%rowtype; begin r := null; end;"), HasSubstr("PLS-00382"));
  EXPECT_THAT(Error("declare r t%rowtype; begin select id, name into r from t where id = 1; end;"),
              HasSubstr("PLS-00394"));
  // A list of variables: SELECT's counts as SQL's, FETCH's as PL/SQL's.
  EXPECT_THAT(Error("declare a number; begin select id, n into a from t where id = 1; end;"),
              HasSubstr("ORA-00913: too many values (2 columns selected into 1 variables)"));
  EXPECT_THAT(Error("declare a number; b number; begin select id into a, b from t where id = 1; end;"),
              HasSubstr("ORA-00947: not enough values"));
  EXPECT_THAT(Error("declare cursor c is select id, n from t; a number; begin open c; fetch c into "
                    "a; end;"),
              HasSubstr("PLS-00394: wrong number of values in the INTO list of a FETCH statement"));
}

TEST_F(PlsqlTest, AnUnhandledErrorUndoesTheBlocksWorkAndNamesItsLine) {
  Run("insert into t values (1, 'kept', 1)");  // before the block: stays
  const std::string e = Error(
      "begin\n"
      "  insert into t values (2, 'gone', 2);\n"
      "  insert into t values (1, 'duplicate', 3);\n"
      "end;");
  EXPECT_THAT(e, HasSubstr("ORA-00001"));
  EXPECT_THAT(e, HasSubstr("ORA-06512: at line 3"));
  EXPECT_EQ(One("select count(*) from t"), "1");
  EXPECT_TRUE(s_->InTransaction());  // the insert before the block is still open
  Run("commit");
  // Work a COMMIT inside the block made durable stays; after it, it goes.
  EXPECT_THAT(Error("begin insert into t values (3, 'c', 3); commit;\n"
                    "  insert into t values (4, 'd', 4);\n"
                    "  raise_application_error(-20042, 'stop at ' || 4);\n"
                    "end;"),
              HasSubstr("ORA-20042: stop at 4\nORA-06512: at line 3"));
  EXPECT_EQ(One("select listagg(id, ',') within group (order by id) from t"), "1,3");
  // What it wrote before the error comes with the error.
  const absl::Status failed =
      s_->Execute("begin dbms_output.put_line('a'); dbms_output.put_line('b'); "
                  "raise no_data_found; end;").status();
  EXPECT_THAT(std::string(failed.message()), HasSubstr("ORA-01403"));
  EXPECT_EQ(std::string(failed.GetPayload(kDbmsOutputPayload).value_or(absl::Cord())), "a\nb\n");
  EXPECT_FALSE(s_->Execute("begin raise no_data_found; end;").status().GetPayload(kDbmsOutputPayload));
  // A handled error keeps the block's work.
  Run("begin insert into t values (5, 'e', 5);\n"
      "  begin insert into t values (5, 'again', 5); exception when dup_val_on_index then null; end;\n"
      "end;");
  EXPECT_EQ(One("select count(*) from t where id = 5"), "1");
}

TEST_F(PlsqlTest, ExceptionsAndErrors) {
  EXPECT_THAT(Output("declare n number; begin n := 1 / 0;\n"
                     "exception when zero_divide then dbms_output.put_line(sqlerrm); end;"),
              ElementsAre("ORA-01476: divisor is equal to zero"));
  EXPECT_THAT(Output("declare e_mine exception; begin raise e_mine;\n"
                     "exception when e_mine then dbms_output.put_line('mine ' || sqlcode); end;"),
              ElementsAre("mine 1"));
  EXPECT_THAT(Error("declare e_mine exception; begin raise e_mine; end;"),
              HasSubstr("ORA-06510: PL/SQL: unhandled user-defined exception"));
  EXPECT_THAT(Error("begin begin raise no_data_found; exception when others then raise; end; end;"),
              HasSubstr("ORA-01403: no data found"));
  EXPECT_THAT(Error("declare v varchar2(3); begin v := 'toolong'; end;"),
              HasSubstr("ORA-06502: PL/SQL: numeric or value error: character string buffer too small"));
  EXPECT_THAT(Error("declare v number not null := 1; begin v := null; end;"), HasSubstr("ORA-06502"));
  EXPECT_THAT(Error("declare c constant number := 1; begin c := 2; end;"), HasSubstr("PLS-00363"));
  EXPECT_THAT(Error("begin raise_application_error(-1, 'x'); end;"), HasSubstr("ORA-21000"));
  EXPECT_THAT(Error("declare v number; begin v := w + 1; end;"), HasSubstr("\"W\": invalid identifier"));
}

// A block that does not parse runs nothing: ORA-06550 with its line and column.
TEST_F(PlsqlTest, ABlockThatDoesNotParseRunsNothing) {
  struct Case {
    const char* block;
    const char* error;
  };
  for (const Case& c : std::vector<Case>{
           {"begin\n  insert into t values (1, 'a', 1);\n  x := 1;\nend;",
            "ORA-06550: line 3, column 3:\nPLS-00201: identifier 'X' must be declared"},
           {"begin insert into t values (1, 'a', 1); select 1 from dual; end;", "PLS-00428"},
           {"begin insert into t values (1, 'a', 1) end;", "ORA-00933"},
           {"begin insert into t values (1, 'a', 1); end", "ORA-06550: line 1, column 44"},
           {"begin end;", "when expecting a statement"},
           {"begin create table u (a number); end;", "only through EXECUTE IMMEDIATE"},
           {"declare v varchar2; begin null; end;", "PLS-00215"},
           {"declare v number; begin if v then null; end; end;", "expecting IF"},
           {"declare c constant number; begin null; end;", "PLS-00322"},
           {"begin dbms_output.put_linex('a'); end;", "PLS-00302"},
           {"begin v := (select 1 from dual); end;", "PLS-00201"},
           {"declare v number; begin v = 1; end;", "when expecting \":=\""},
       }) {
    EXPECT_THAT(Error(c.block), HasSubstr(c.error)) << c.block;
  }
  EXPECT_EQ(One("select count(*) from t"), "0");
  EXPECT_FALSE(s_->InTransaction());
}

TEST_F(PlsqlTest, ExecuteImmediateRunsDdlAndSessionSettings) {
  Run("begin\n"
      "  execute immediate 'create table u (a number)';\n"
      "  execute immediate 'insert into u values (7)';\n"
      "  execute immediate 'alter session set temp_undo_enabled = true';\n"
      "  commit;\n"
      "end;");
  EXPECT_EQ(One("select a from u"), "7");
  EXPECT_EQ(One("select value from v$parameter where name = 'temp_undo_enabled'"), "TRUE");
  EXPECT_THAT(Error("begin execute immediate 'create tabel v (a number)'; end;"),
              HasSubstr("ORA-06512: at line 1"));
}

TEST_F(PlsqlTest, TypesAndConversions) {
  Run("insert into t values (1, 'abc', 2.5)");
  EXPECT_THAT(Output("declare\n"
                     "  v_name t.name%type;\n"
                     "  v_n    t.n%type;\n"
                     "  v_int  pls_integer := 7.6;\n"
                     "  v_d    date := to_date('2026-12-07', 'YYYY-MM-DD');\n"
                     "  v_c    char(4) := 'ab';\n"
                     "begin\n"
                     "  select name, n into v_name, v_n from t where id = 1;\n"
                     "  dbms_output.put_line(v_name || ' ' || v_n || ' ' || v_int || ' [' || v_c || ']');\n"
                     "  insert into t values (2, to_char(v_d + 1, 'YYYY-MM-DD'), v_int);\n"
                     "end;"),
              ElementsAre("abc 2.5 8 [ab  ]"));
  EXPECT_EQ(One("select name || '/' || n from t where id = 2"), "2026-12-08/8");
}

// Blocks of two sessions run side by side: each takes the engine's mutex
// statement by statement, and a row one holds makes the other's block fail
// (ORA-00054), its own work undone.
TEST_F(PlsqlTest, TwoSessionsRunBlocksSideBySide) {
  std::unique_ptr<Session> other = db_->NewSession();
  std::vector<std::thread> threads;
  for (Session* s : {s_.get(), other.get()}) {
    threads.emplace_back([s, offset = s == s_.get() ? 0 : 1000] {
      absl::StatusOr<StatementResult> r = s->Execute(fmt::format(
          "begin for i in 1..200 loop insert into t values (i + {}, 'x', i);\n"
          "  if mod(i, 50) = 0 then commit; end if; end loop; end;",
          offset));
      EXPECT_TRUE(r.ok()) << r.status();
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(One("select count(*) from t"), "400");
  Run("update t set n = 0 where id = 1");  // s_ holds row 1
  EXPECT_THAT(Error("begin insert into t values (5000, 'y', 1); update t set n = 2 where id = 1; end;",
                    other.get()),
              HasSubstr("ORA-00054"));
  Run("rollback");
  EXPECT_EQ(One("select count(*) from t where id = 5000"), "0");
}

TEST(PlsqlSplitTest, ABlockRunsToItsSlashLine) {
  EXPECT_THAT(SplitStatements("create table a (x number);\n"
                              "declare\n  v number;\nbegin\n  v := 1;\n\n  null;\nend;\n/\n"
                              "select 1 from dual;\nbegin null; end;"),
              ElementsAre("create table a (x number)",
                          "declare\n  v number;\nbegin\n  v := 1;\n\n  null;\nend;",
                          "select 1 from dual", "begin null; end;"));
  EXPECT_TRUE(IsPlsqlBlock("  -- a comment\n BEGIN null; end;"));
  EXPECT_FALSE(IsPlsqlBlock("select begin from t"));
  EXPECT_TRUE(IsSqlPlusCommandStart("exec dbms_output.put_line('x')"));
}

}  // namespace
}  // namespace cellsim::db
