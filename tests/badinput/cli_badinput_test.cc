// Bad-input catalogue through the `cellsim` binary (docs/reliability.md): the
// exit code (1 failure, 2 bad input) and the message on stderr for malformed
// SQL, bad sizes, unknown disk groups, damaged / missing / newer racks and a
// read-only rack directory.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "badinput/badinput_util.h"
#include "cellsim/asm/rack_meta.h"
#include "cellsim/base/checksum.h"
#include "cli/cli_test_util.h"

namespace cellsim::badinput {
namespace {

using ::cellsim::cli::testing::Cellsim;
using ::cellsim::cli::testing::CmdResult;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

class CliBadInput : public ::testing::Test {
 protected:
  void SetUp() override {
    rack_ = tmp_.path() + "/rack";
    CmdResult r = Cellsim(tmp_, "rack create " + rack_ +
                                    " --backend posix --cells 3 --disks-per-cell 2"
                                    " --disk-group DATA:NORMAL:64m:1m"
                                    " --disk-group RECO:NORMAL:32m:1m --flash-size 64m");
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  CmdResult Sql(const std::string& statement, const std::string& env = "") {
    return Cellsim(tmp_, "sql " + rack_ + " --backend posix -e \"" + statement + "\"", env);
  }
  // `cellsim sql -f` of a script `name` in the test's folder holding `text`.
  CmdResult SqlScript(const std::string& name, const std::string& text) {
    const std::string script = tmp_.path() + "/" + name;
    std::ofstream(script) << text;
    return Cellsim(tmp_, "sql " + rack_ + " --backend posix -f " + script);
  }

  cellsim::testing::TempDir tmp_;
  std::string rack_;
};

TEST_F(CliBadInput, SqlMalformedExitsTwo) {
  CmdResult r = Sql("alter database add logfile group 5 ('+DATA' size 1m");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.err, AllOf(HasSubstr("cellsim sql:"), HasSubstr("expected ',' or ')'"),
                           HasSubstr("ORA-00907")));
  r = Sql("grant select on t to u");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("ORA-00900"));
  r = Sql("select * from dual where");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("ORA-00936"));
  r = Cellsim(tmp_, "sql " + rack_ + " --backend posix -e ''");
  EXPECT_EQ(r.exit_code, 2) << r.err;
}

// A script's WHENEVER SQLERROR decides what an error does, as in SQL*Plus:
// CONTINUE reports it and goes on; EXIT n stops with exit code n; a malformed
// WHENEVER is itself an error (SP2-0591) naming what it expected.
TEST_F(CliBadInput, SqlWheneverSqlerrorInScripts) {
  CmdResult r = SqlScript("s.sql",
      "whenever sqlerror continue\n"
      "create tablespace t1 datafile '+NOPE' size 1m;\n"
      "create tablespace t2 datafile '+DATA' size 1m;\n"
      "WHENEVER SQLERROR EXIT 7 ROLLBACK\n"
      "create tablespace t3 datafile '+NOPE' size 1m;\n"
      "create tablespace t4 datafile '+DATA' size 1m;\n");
  EXPECT_EQ(r.exit_code, 7) << r.err;
  EXPECT_THAT(r.err, AllOf(HasSubstr("statement 2 failed (continuing)"),
                           HasSubstr("statement 5 failed:"), HasSubstr("ORA-15001")));
  EXPECT_THAT(r.out, HasSubstr("Tablespace created."));  // t2, after the first error
  r = Sql("create tablespace t4 datafile '+DATA' size 1m");
  EXPECT_EQ(r.exit_code, 0) << "t4 must not exist: EXIT stopped before it\n" << r.err;
  r = Sql("whenever sqlerror exit badcode");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.err, AllOf(HasSubstr("SP2-0591"), HasSubstr("BADCODE")));
}

// A script piped in runs as SQL*Plus runs `sqlplus ... < script.sql`; EXIT
// (or QUIT) ends it there with its code; an empty input is nothing to run.
TEST_F(CliBadInput, SqlReadsAScriptOnStandardInputUpToExit) {
  const std::string script = tmp_.path() + "/in.sql";
  std::ofstream(script) << (
      "create tablespace s1 datafile '+DATA' size 1m;\n"
      "exit 4\n"
      "create tablespace s2 datafile '+DATA' size 1m;\n");
  CmdResult r = Cellsim(tmp_, "sql " + rack_ + " --backend posix < " + script);
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_THAT(r.out, HasSubstr("Tablespace created."));
  r = Sql("create tablespace s2 datafile '+DATA' size 1m");
  EXPECT_EQ(r.exit_code, 0) << "s2 must not exist: EXIT ended the script before it\n" << r.err;
  r = Cellsim(tmp_, "sql " + rack_ + " --backend posix -f - < " + script);
  EXPECT_EQ(r.exit_code, 1) << r.err;  // s1 exists now
  EXPECT_THAT(r.err, HasSubstr("statement 1 failed"));
  r = Cellsim(tmp_, "sql " + rack_ + " --backend posix < /dev/null");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("nothing to run"));
  r = Sql("quit later");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.err, AllOf(HasSubstr("SP2-0591"), HasSubstr("LATER")));
}

// A SQL*Plus script's display commands run instead of stopping it: SET's
// layout options change nothing, SET AUTOCOMMIT ON commits each DML, PROMPT
// prints its line (';' and all), REM and COLUMN are skipped, SPOOL says it
// writes nothing, DESC lists the columns; an unknown SET option is SP2-0735.
TEST_F(CliBadInput, SqlPlusDisplayCommandsInScripts) {
  CmdResult r = SqlScript("display.sql",
      "set lines 200 pages 100\n"
      "set timing on\n"
      "column name format a20\n"
      "prompt Creating the tablespace; then done\n"
      "rem a remark; with a semicolon\n"
      "set autocommit on\n"
      "create tablespace d1 datafile '+DATA' size 1m;\n"
      "spool /tmp/never.lst\n"
      "set bogus on\n"
      "create tablespace d2 datafile '+DATA' size 1m;\n");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.out, AllOf(HasSubstr("Creating the tablespace; then done\n"),
                           HasSubstr("Tablespace created.")));
  EXPECT_THAT(r.err, AllOf(HasSubstr("SPOOL writes nothing"), HasSubstr("statement 9 failed"),
                           HasSubstr("SP2-0735: unknown SET option beginning \"bogus\"")));
  r = Sql("create tablespace d2 datafile '+DATA' size 1m");
  EXPECT_EQ(r.exit_code, 0) << "the script stopped at SET BOGUS, before d2\n" << r.err;
}

// SQL*Plus's substitution variables: DEFINE and &name / &&name / &name.
// (SET VERIFY prints the old and new lines), DEFINE x and DEFINE alone
// list values, SET DEFINE OFF takes & as it is, --define gives a value; an
// undefined &name with no terminal to ask is an error naming it, and stops
// the script there.
TEST_F(CliBadInput, SubstitutionVariablesAsSqlPlus) {
  CmdResult r = SqlScript("subst.sql",
      "create tablespace system datafile '+DATA' size 4m;\n"
      "create table t (id number, s varchar2(20)) tablespace system;\n"
      "show user\n"
      "define n = 3\n"
      "define tab = 't'\n"
      "insert into &tab values (&n, 'row &n');\n"
      "insert into &tab values (&n + 1, '&tab._copy');\n"
      "define n\n"
      "set verify off\n"
      "select s from &&tab where id = &N + 1;\n"
      "set define off\n"
      "select 'A&B' ab from dual;\n"
      "set define on\n"
      "undefine n\n"
      "select &n from dual;\n"
      "select 'never' from dual;\n");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.out, AllOf(HasSubstr("old   1: insert into &tab values (&n, 'row &n')\n"
                                     "new   1: insert into t values (3, 'row 3')\n"),
                           HasSubstr("DEFINE N               = \"3\" (CHAR)"), HasSubstr("t_copy"),
                           HasSubstr("A&B"), Not(HasSubstr("never")), HasSubstr("USER is \"CELLSIM\"\n"),
                           Not(HasSubstr("old   1: select s"))));
  EXPECT_THAT(r.err, AllOf(HasSubstr("statement 15 failed"),
                           HasSubstr("SP2-0546: substitution variable &N has no value")));
  // @script's arguments are &1, &2 ... in it.
  std::ofstream(tmp_.path() + "/args.sql") << "select &1 * &2 product from dual;\n";
  r = SqlScript("caller.sql", "@" + tmp_.path() + "/args 6 '7'\n");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("new   1: select 6 * 7 product from dual"));
  r = Cellsim(tmp_, "sql " + rack_ + " --backend posix --define n=41 -e \"select &n + 1 x from dual\"");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("42"));
  r = Cellsim(tmp_, "sql " + rack_ + " --backend posix --define n -e \"select 1 from dual\"");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.err, HasSubstr("--define: expected NAME=VALUE, found 'n'"));
}

// SET TIMING OFF leaves "Elapsed" out; SET AUTOTRACE TRACEONLY STATISTICS
// prints each statement's statistics in SQL*Plus's layout and not a query's
// rows; AUTOTRACE ON (plans and statistics) says cellsim has no plans; a
// wrong AUTOTRACE option is SP2-0618 naming it.
TEST_F(CliBadInput, SqlPlusAutotraceAndTiming) {
  CmdResult r = SqlScript("autotrace.sql",
      "create tablespace system datafile '+DATA' size 4m;\n"
      "create table t (id number) tablespace system;\n"
      "insert into t values (1234);\n"
      "set timing off\n"
      "set autotrace traceonly statistics\n"
      "select * from t;\n"
      "set autot on\n"
      "set autotrace trace explian\n");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  size_t elapsed = 0;
  for (size_t at = r.out.find("Elapsed:"); at != std::string::npos;
       at = r.out.find("Elapsed:", at + 1)) {
    ++elapsed;
  }
  EXPECT_EQ(elapsed, 3u) << r.out;  // the three statements before SET TIMING OFF
  EXPECT_THAT(r.out, AllOf(HasSubstr("1 row selected.\n\nStatistics\n" + std::string(58, '-') +
                                     "\n         0  db block gets\n         1  consistent gets\n"),
                           HasSubstr("         1  rows processed\n"),
                           Not(HasSubstr("1234"))));
  EXPECT_THAT(r.err, AllOf(HasSubstr("cellsim has no execution plans"),
                           HasSubstr("SP2-0618"), HasSubstr("(found 'explian')")));
}

// A PL/SQL block runs to its '/' line with its blank lines, SET SERVEROUTPUT
// ON prints its DBMS_OUTPUT before its feedback, EXEC is a one-line block,
// and a block that fails stops the script naming its line.
TEST_F(CliBadInput, SqlPlusPlsqlBlocks) {
  CmdResult r = SqlScript("plsql.sql",
      "create tablespace system datafile '+DATA' size 8m;\n"
      "alter database add logfile group 1 size 4m;\n"
      "create table t (id number) tablespace system;\n"
      "set timing off\n"
      "begin\n"
      "  for i in 1..3 loop\n"
      "    insert into t values (i);\n"
      "\n"
      "  end loop;\n"
      "  dbms_output.put_line('hidden');\n"
      "  commit;\n"
      "end;\n"
      "/\n"
      "set serveroutput on\n"
      "exec dbms_output.put_line('rows: ' || 3)\n"
      "declare n number; begin select count(*) into n from t; dbms_output.put_line(n); end;\n"
      "/\n"
      "begin\n"
      "  insert into t values (4);\n"
      "  dbms_output.put_line('before the error');\n"
      "  insert into t values ('four');\n"
      "end;\n"
      "/\n"
      "select 'not run' from dual;\n");
  EXPECT_EQ(r.exit_code, 2) << r.err;  // ORA-01722: bad input, as outside a block
  EXPECT_THAT(r.out, HasSubstr("\nPL/SQL procedure successfully completed.\n"
                               "rows: 3\n\nPL/SQL procedure successfully completed.\n"
                               "3\n\nPL/SQL procedure successfully completed.\n"));
  EXPECT_THAT(r.out, AllOf(Not(HasSubstr("hidden")), Not(HasSubstr("not run"))));
  // What the failed block wrote before its error is printed all the same.
  EXPECT_THAT(r.out, HasSubstr("PL/SQL procedure successfully completed.\nbefore the error\n"));
  EXPECT_THAT(r.err, AllOf(HasSubstr("statement 9 failed"), HasSubstr("ORA-01722"),
                           HasSubstr("ORA-06512: at line 4")));
  r = Sql("select count(*) from t");
  EXPECT_THAT(r.out, HasSubstr("\n       3\n")) << r.err;  // the failed block's insert of 4 undone
}

// @@script runs a script from the calling script's folder, @ and START from
// the current one; a missing file is SP2-0310 where it is met, a script that
// calls itself stops at 20 levels (SP2-0309).
TEST_F(CliBadInput, SqlRunsNestedScriptsAsSqlPlus) {
  std::filesystem::create_directories(tmp_.path() + "/s/sub");
  std::ofstream(tmp_.path() + "/s/main.sql") << (
      "prompt main\n@@sub/inner\nstart sub/inner.sql\nprompt never\n");
  std::ofstream(tmp_.path() + "/s/sub/inner.sql") << (
      "prompt inner; from sub\ncreate tablespace n1 datafile '+DATA' size 1m;\n");
  std::ofstream(tmp_.path() + "/s/self.sql") << "@@self\n";
  CmdResult r = Cellsim(tmp_, "sql " + rack_ + " --backend posix -f " + tmp_.path() + "/s/main.sql");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_THAT(r.out, AllOf(HasSubstr("main\ninner; from sub\n"), HasSubstr("Tablespace created."),
                           Not(HasSubstr("never"))));
  EXPECT_THAT(r.err, HasSubstr("SP2-0310: unable to open file \"sub/inner.sql\""));
  r = Cellsim(tmp_, "sql " + rack_ + " --backend posix -f " + tmp_.path() + "/s/self.sql");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("SP2-0309"));
  r = Cellsim(tmp_, "sql " + rack_ + " --backend posix -e @" + tmp_.path() + "/s/sub/inner");
  EXPECT_EQ(r.exit_code, 1) << r.err;  // n1 exists: the script ran again
  EXPECT_THAT(r.err, HasSubstr("ORA-01543"));
  // `cellsim sql DIR @FILE ARG`, as `sqlplus user @FILE ARG`; anything else
  // after DIR says where a statement or script goes.
  std::ofstream(tmp_.path() + "/s/args.sql") << "prompt hello &1\n";
  r = Cellsim(tmp_, "sql " + rack_ + " --backend posix @" + tmp_.path() + "/s/args world");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("hello world\n"));
  r = Cellsim(tmp_, "sql " + rack_ + " --backend posix " + tmp_.path() + "/s/args.sql");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.err, AllOf(HasSubstr("unexpected argument"), HasSubstr("-f FILE or @FILE")));
}

TEST_F(CliBadInput, SqlBadSizesExitTwo) {
  CmdResult r = Sql("create tablespace t datafile '+DATA' size 0");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("size '0' is zero"));
  r = Sql("create tablespace t datafile '+DATA' size 99999999999999999999g");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("does not fit in 64 bits"));
  r = Sql("create tablespace t datafile '+DATA' size -5m");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("unexpected character '-'"));
}

TEST_F(CliBadInput, SqlUnknownAndFullDiskGroupExitOne) {
  CmdResult r = Sql("create tablespace t datafile '+NOPE' size 1m");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_THAT(r.err, AllOf(HasSubstr("ORA-15001"), HasSubstr("NOPE"), HasSubstr("does not exist")));
  r = Sql("create tablespace t datafile '+DATA' size 1g");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_THAT(r.err, AllOf(HasSubstr("ORA-15041"), HasSubstr("space exhausted")));
}

TEST_F(CliBadInput, RackCreateBadSizesExitTwo) {
  CmdResult r = Cellsim(tmp_, "rack create " + tmp_.path() + "/r2 --disk-group DATA:NORMAL:0");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("--disk-group 'DATA:NORMAL:0': size per disk '0' is not a size"));
  r = Cellsim(tmp_, "rack create " + tmp_.path() + "/r3 --flash-size -5m");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("--flash-size '-5m' is not a size like 1g"));
  r = Cellsim(tmp_, "rack create " + tmp_.path() + "/r4 --flash-size 99999999999999999999g");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("--flash-size '99999999999999999999g' is not a size"));
  EXPECT_FALSE(std::filesystem::exists(tmp_.path() + "/r2/rack.meta0"));
}

TEST_F(CliBadInput, RackInfoOnCorruptRack) {
  for (int slot = 0; slot < 2; ++slot) {
    const std::string p = rack_ + "/rack.meta" + std::to_string(slot);
    std::vector<uint8_t> b = ReadFileBytes(p);
    b[b.size() / 2] ^= 0xFF;
    WriteBytes(p, b);
  }
  CmdResult r = Cellsim(tmp_, "rack info " + rack_ + " --backend posix");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_THAT(r.err, AllOf(HasSubstr("cellsim rack info: cannot open the rack in " + rack_),
                           HasSubstr("holds no valid rack"), HasSubstr("checksum mismatch")));
}

// One damaged copy of rack.meta: a reader says so and leaves it; the next
// command that writes repairs it and says that.
TEST_F(CliBadInput, OneDamagedRackMetaCopyIsSaidByReadersAndRepairedByWriters) {
  const std::string p = rack_ + "/rack.meta0";
  std::vector<uint8_t> b = ReadFileBytes(p);
  b[b.size() / 2] ^= 0xFF;
  WriteBytes(p, b);
  CmdResult r = Cellsim(tmp_, "asmcmd " + rack_ + " --backend posix lsdg");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("DATA"));
  EXPECT_THAT(r.err, HasSubstr("cellsim: damaged metadata left as it is (this command only reads; "
                               "the next command that writes repairs it): " + p +
                               " is damaged (checksum mismatch); read " + rack_ +
                               "/rack.meta1 (sequence "));
  EXPECT_EQ(ReadFileBytes(p), b);
  r = Cellsim(tmp_, "rack recover " + rack_ + " --backend posix");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out + r.err, HasSubstr(p + " was damaged (checksum mismatch); rewritten from"));
  EXPECT_NE(ReadFileBytes(p), b);
  r = Cellsim(tmp_, "asmcmd " + rack_ + " --backend posix lsdg");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, Not(HasSubstr("damaged")));
}

TEST_F(CliBadInput, RackInfoOnTruncatedAndMissingRackFiles) {
  std::filesystem::resize_file(rack_ + "/rack.meta0", 7);
  std::filesystem::remove(rack_ + "/rack.meta1");
  CmdResult r = Cellsim(tmp_, "rack info " + rack_ + " --backend posix");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_THAT(r.err, AllOf(HasSubstr("rack.meta0: too short (7 bytes)"), HasSubstr("rack.meta1")));
  r = Cellsim(tmp_, "rack info " + tmp_.path() + "/nowhere --backend posix");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_THAT(r.err, HasSubstr("is not a directory"));
}

TEST_F(CliBadInput, RackInfoOnNewerRack) {
  for (int slot = 0; slot < 2; ++slot) {
    const std::string p = rack_ + "/rack.meta" + std::to_string(slot);
    std::vector<uint8_t> b = ReadFileBytes(p);
    b[4] = 3;  // this build reads versions 1 and 2
    const uint64_t sum = Checksum64(absl::MakeConstSpan(b).subspan(0, b.size() - 8),
                                    asmgr::internal::kRackMetaSeed);
    for (int i = 0; i < 8; ++i) b[b.size() - 8 + i] = static_cast<uint8_t>(sum >> (8 * i));
    WriteBytes(p, b);
  }
  CmdResult r = Cellsim(tmp_, "rack info " + rack_ + " --backend posix");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_THAT(r.err, HasSubstr("newer format version 3, this build reads version 2"));
}

// A read-only rack directory (every file 0444, every folder 0555). Tests run
// as root here, and root's CAP_DAC_OVERRIDE ignores modes: the binary is then
// run with that capability (and DAC_READ_SEARCH, FOWNER) dropped from its
// bounding set with setpriv(1), which makes the modes bind root as well.
TEST_F(CliBadInput, ReadOnlyRackDirectory) {
  std::string env;
  if (geteuid() == 0) {
    env = "setpriv --bounding-set=-dac_override,-dac_read_search,-fowner";
    CmdResult probe = Cellsim(tmp_, "--help", env);
    if (probe.exit_code != 0) {
      GTEST_SKIP() << "running as root and setpriv cannot drop CAP_DAC_OVERRIDE here: " << probe.err;
    }
  }
  namespace fs = std::filesystem;
  std::vector<fs::path> dirs = {rack_};
  for (const auto& e : fs::recursive_directory_iterator(rack_)) {
    if (e.is_directory()) dirs.push_back(e.path());
    else fs::permissions(e.path(), fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  }
  const fs::perms rx = fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                       fs::perms::group_exec | fs::perms::others_read | fs::perms::others_exec;
  for (const fs::path& d : dirs) fs::permissions(d, rx);
  CmdResult info = Cellsim(tmp_, "rack info " + rack_ + " --backend posix", env);
  CmdResult lsdg = Cellsim(tmp_, "asmcmd " + rack_ + " --backend posix -e lsdg", env);
  CmdResult list = Cellsim(tmp_, "cellcli " + rack_ + " --backend posix -e 'list griddisk'", env);
  CmdResult sql = Sql("create tablespace t datafile '+DATA' size 1m", env);
  CmdResult flush =
      Cellsim(tmp_, "cellcli " + rack_ + " --backend posix -e 'alter flashcache all flush'", env);
  // Restore write permission so the temporary directory can be removed.
  for (const fs::path& d : dirs) fs::permissions(d, fs::perms::owner_all, fs::perm_options::add);
  for (const auto& e : fs::recursive_directory_iterator(rack_)) {
    fs::permissions(e.path(), fs::perms::owner_write, fs::perm_options::add);
  }
  // Readers open the rack read-only and work; writers say why they cannot.
  EXPECT_EQ(info.exit_code, 0) << info.err;
  EXPECT_THAT(info.out, HasSubstr("MOUNTED"));
  EXPECT_EQ(lsdg.exit_code, 0) << lsdg.err;
  EXPECT_THAT(lsdg.out, HasSubstr("DATA/"));
  EXPECT_EQ(list.exit_code, 0) << list.err;
  EXPECT_THAT(list.out, HasSubstr("DATA_CD_00_cel01"));
  for (const CmdResult* w : {&sql, &flush}) {
    EXPECT_EQ(w->exit_code, 1) << w->err;
    EXPECT_THAT(w->err, AllOf(HasSubstr("is read-only"), HasSubstr("Permission denied"),
                              HasSubstr("this command writes to the rack")));
  }
  // Nothing was changed: the rack still opens and holds no tablespace T.
  CmdResult after = Cellsim(tmp_, "rack info " + rack_ + " --backend posix");
  EXPECT_EQ(after.exit_code, 0) << after.err;
}

}  // namespace
}  // namespace cellsim::badinput
