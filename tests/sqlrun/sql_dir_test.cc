// Sqlrun's SQL directory format and its statement choice, against
// lib/Sqlrun/File.pm and lib/Sqlrun.pm (../shared/temp-undo.md §4.3-4.5).
#include <filesystem>
#include <fstream>
#include <sstream>
#include <map>

#include "cellsim/sqlrun/driver.h"
#include "cellsim/sqlrun/sql_dir.h"
#include "cellsim/sqlrun/trace.h"
#include "gtest/gtest.h"
#include "testing/test_util.h"

namespace cellsim::sqlrun {
namespace {

using ::cellsim::testing::TempDir;

SqlDirOptions Opts(const std::string& sqldir) {
  SqlDirOptions o;
  o.sqldir = sqldir;
  return o;
}

void Write(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
}

TEST(SqlFileConfTest, TheSeedsFileParses) {
  // The seed's sqlfile.conf: delimiter line, comments, a trailing delimiter.
  std::string d;
  absl::StatusOr<std::vector<SqlEntry>> e = ParseSqlFileConf(
      ",\n# frequency, sqlfile, bindfile\n#1,sql-1.sql,\n\n1,temp-insert.sql,\n  1,temp-update.sql,\n"
      "1,txcount-update.sql,\n",
      "sqlfile.conf", &d);
  ASSERT_OK(e);
  EXPECT_EQ(d, ",");
  ASSERT_EQ(e->size(), 3u);
  EXPECT_EQ((*e)[0].file, "temp-insert.sql");
  EXPECT_EQ((*e)[1].file, "temp-update.sql");
  EXPECT_EQ((*e)[2].file, "txcount-update.sql");
  EXPECT_EQ((*e)[2].conf_line, 7u);
  EXPECT_EQ((*e)[0].bind_file, "");
}

TEST(SqlFileConfTest, DelimiterLosesItsFirstWhitespaceAndDuplicatesKeepTheLastLine) {
  std::string d;
  absl::StatusOr<std::vector<SqlEntry>> e =
      ParseSqlFileConf(", \n5,a.sql\n2,b.sql,b.binds\n7,a.sql\n", "c", &d);
  ASSERT_OK(e);
  EXPECT_EQ(d, ",");
  ASSERT_EQ(e->size(), 2u);
  EXPECT_EQ((*e)[0].file, "a.sql");
  EXPECT_EQ((*e)[0].frequency, 7);  // Sqlrun's hash: the last frequency
  EXPECT_EQ((*e)[1].bind_file, "b.binds");
}

TEST(SqlFileConfTest, BadLinesNameTheFileAndLine) {
  std::string d;
  absl::StatusOr<std::vector<SqlEntry>> e = ParseSqlFileConf(",\n1,a.sql\nx,b.sql\n", "conf", &d);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(e.status().message().find("conf:3:"), std::string::npos) << e.status();
  EXPECT_NE(e.status().message().find("'x'"), std::string::npos) << e.status();
  e = ParseSqlFileConf(",\n1,\n", "conf", &d);
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status().message().find("conf:2: no SQL file"), std::string::npos) << e.status();
  e = ParseSqlFileConf("\n1,a.sql\n", "conf", &d);
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status().message().find("conf:1:"), std::string::npos) << e.status();
  e = ParseSqlFileConf(",\n# nothing\n", "conf", &d);
  EXPECT_FALSE(e.ok());
  // A file that starts with an entry: its first line was taken as the delimiter.
  e = ParseSqlFileConf("1,q.sql\n", "conf", &d);
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status().message().find("line 1, '1,q.sql', is the delimiter"), std::string::npos)
      << e.status();
  // ... and with more entries, the second fails to parse: the same hint.
  e = ParseSqlFileConf("1,q.sql\n1,r.sql\n", "conf", &d);
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status().message().find("conf:2: the frequency '1,r.sql' is not a positive integer"),
            std::string::npos)
      << e.status();
  EXPECT_NE(e.status().message().find("line 1, '1,q.sql', was taken as the delimiter"),
            std::string::npos)
      << e.status();
}

TEST(ParametersConfTest, ValueIsTheRestJoinedAndTheLastDuplicateWins) {
  absl::StatusOr<std::vector<std::pair<std::string, std::string>>> p = ParseParametersConf(
      "# nls\nnls_date_format,yyyy-mm-dd hh24:mi:ss\n nls_numeric_characters,.,\n"
      "nls_date_format,dd-mon-yyyy\n",
      "parameters.conf");
  ASSERT_OK(p);
  ASSERT_EQ(p->size(), 2u);
  EXPECT_EQ((*p)[0], std::make_pair(std::string("nls_date_format"), std::string("dd-mon-yyyy")));
  EXPECT_EQ((*p)[1].second, ".");  // "." and "" joined with ''
  EXPECT_FALSE(ParseParametersConf("justaname\n", "p").ok());
}

TEST(ClassifyTest, AsSqlrunsClassifySql) {
  EXPECT_EQ(ClassifySql("insert into t select * from all_objects"), SqlType::kDml);
  EXPECT_EQ(ClassifySql("-- a comment\n  merge into t"), SqlType::kDml);
  EXPECT_EQ(ClassifySql("with x as (select 1 from dual) select * from x"), SqlType::kSelect);
  EXPECT_EQ(ClassifySql("Select 1 from dual"), SqlType::kSelect);
  EXPECT_EQ(ClassifySql("begin null; end;"), SqlType::kPlsql);
  EXPECT_EQ(ClassifySql("truncate table t"), SqlType::kUnknown);
}

TEST(LoadSqlDirTest, ReadsTheDirectoryAndReportsMissingFiles) {
  TempDir tmp;
  const std::string o = tmp.path() + "/SQL/Oracle";
  std::filesystem::create_directories(o);
  Write(o + "/sqlfile.conf", ",\n1,a.sql,a.binds\n");
  Write(o + "/a.sql", "select *\n\nfrom dual where 1 = ?\n");
  Write(o + "/a.binds", "1\n2\n3\n");
  Write(o + "/parameters.conf", "nls_date_format,yyyy\n");
  absl::StatusOr<SqlDir> d = LoadSqlDir(Opts(tmp.path() + "/SQL"));
  ASSERT_OK(d);
  ASSERT_EQ(d->entries.size(), 1u);
  EXPECT_EQ(d->entries[0].text, "select *\nfrom dual where 1 = ?");
  EXPECT_EQ(d->entries[0].type, SqlType::kSelect);
  EXPECT_EQ(d->entries[0].bind_rows.size(), 3u);
  EXPECT_EQ(d->parameters.size(), 1u);
  std::filesystem::remove(o + "/a.binds");
  d = LoadSqlDir(Opts(tmp.path() + "/SQL"));
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("sqlfile.conf:2: bind file"), std::string::npos) << d.status();
  d = LoadSqlDir(Opts(tmp.path() + "/nothing"));
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("nothing/Oracle/sqlfile.conf: no such file"), std::string::npos)
      << d.status();
}

TEST(PickerTest, SequentialStartsAtIndexOne) {
  StatementPicker p(ExeMode::kSequential, 3, 1);
  std::vector<size_t> got;
  for (int i = 0; i < 7; ++i) got.push_back(p.Next());
  EXPECT_EQ(got, (std::vector<size_t>{1, 2, 0, 1, 2, 0, 1}));
  StatementPicker one(ExeMode::kSequential, 1, 1);
  EXPECT_EQ(one.Next(), 0u);
}

TEST(PickerTest, SemiRandomHonoursFrequencies) {
  SqlDir dir;
  dir.entries.resize(2);
  dir.entries[0].frequency = 1;
  dir.entries[1].frequency = 3;
  const std::vector<size_t> array = StatementArray(dir, ExeMode::kSemiRandom);
  EXPECT_EQ(array, (std::vector<size_t>{0, 1, 1, 1}));
  EXPECT_EQ(StatementArray(dir, ExeMode::kTrulyRandom).size(), 2u);
  StatementPicker p(ExeMode::kSemiRandom, array.size(), 7);
  std::map<size_t, int> n;
  for (int i = 0; i < 40000; ++i) ++n[array[p.Next()]];
  EXPECT_NEAR(n[1] / 40000.0, 0.75, 0.01);
  StatementPicker q(ExeMode::kTrulyRandom, 2, 7);
  int first = 0;
  for (int i = 0; i < 40000; ++i) first += q.Next() == 0 ? 1 : 0;
  EXPECT_NEAR(first / 40000.0, 0.5, 0.01);
}

TEST(BindCursorTest, TheLastRowIsNeverUsed) {
  BindCursor c(4);
  std::vector<size_t> got;
  for (int i = 0; i < 7; ++i) got.push_back(c.Next());
  EXPECT_EQ(got, (std::vector<size_t>{0, 1, 2, 0, 1, 2, 0}));
  BindCursor one(1);
  EXPECT_EQ(one.Next(), 0u);
  EXPECT_EQ(one.Next(), 0u);
  BindCursor two(2);
  EXPECT_EQ(two.Next(), 0u);
  EXPECT_EQ(two.Next(), 0u);
}

TEST(BindSqlTest, PlaceholdersOutsideQuotes) {
  absl::StatusOr<std::string> s = BindSql("select '?' from t where a = ? and b = :x", {"12", "O'K"});
  ASSERT_OK(s);
  EXPECT_EQ(*s, "select '?' from t where a = 12 and b = 'O''K'");
  EXPECT_FALSE(BindSql("select ? , ? from dual", {"1"}).ok());
}

TEST(TraceTest, WhatTheWriterWritesTkprofReadsBack) {
  TempDir tmp;
  TraceWriter w;
  ASSERT_OK(w.Open(tmp.File("t.trc"), 7, "SQLRUN"));
  db::StatementResult r;
  r.rows = 3;
  r.cpu_ns = 2'000'000;
  r.waits[stats::Wait::kLogFileSync].count = 2;
  r.waits[stats::Wait::kLogFileSync].total_ns = 3'000'000;
  r.wait_events = {{stats::Wait::kLogFileSync, {0, 77, 0}, 1'000'000, 90'000, 0, 1},
                   {stats::Wait::kLogFileSync, {0, 78, 0}, 2'000'000, 95'000, 0, 2}};
  w.Call("insert into t values (1)", r, 5000, 100);
  w.Call("insert into t values (1)", r, 7000, 200);
  w.Call("commit", db::StatementResult{}, 10, 300);
  ASSERT_OK(w.Close());
  absl::StatusOr<std::vector<report::TkprofStatement>> t =
      ParseTrace({::cellsim::testing::ReadFileText(tmp.File("t.trc"))});
  ASSERT_OK(t);
  ASSERT_EQ(t->size(), 2u);
  const report::TkprofStatement& ins = (*t)[0];
  EXPECT_EQ(ins.sql_text, "insert into t values (1)");
  EXPECT_EQ(ins.parse.count, 1);
  EXPECT_EQ(ins.execute.count, 2);
  EXPECT_EQ(ins.execute.rows, 6);
  EXPECT_NEAR(ins.execute.elapsed_s, 0.012, 1e-9);
  ASSERT_EQ(ins.waits.size(), 1u);
  EXPECT_EQ(ins.waits[0].event, "log file sync");
  EXPECT_EQ(ins.waits[0].times_waited, 4);
  EXPECT_NEAR(ins.waits[0].total_waited_s, 0.006, 1e-9);
  EXPECT_FALSE(ParseTrace({"PARSING IN CURSOR #1 len=1\nx\nEND OF STMT\nEXEC #1:c=zz\n"}).ok());
}

// Oracle's 10046 WAIT line: the parameters by their V$EVENT_NAME names, p1..p3
// for an unnamed one, then obj# and the wait's end in microseconds.
TEST(TraceTest, WaitLinesNameTheParametersAsOracleDoes) {
  const stats::WaitEvent creation{stats::Wait::kCellSmartFileCreation, {2393838416u, 0, 0},
                                  1'234'567, 5'000'000'000, 0, 9};
  EXPECT_EQ(WaitLine(3, creation),
            "WAIT #3: nam='cell smart file creation' ela= 1234 cellhash#=2393838416 p2=0 p3=0 "
            "obj#=-1 tim=5000000\n");
  const stats::WaitEvent cf{stats::Wait::kControlFileParallelWrite, {2, 3, 2}, 123'999, 7'000'000,
                            0, 10};
  EXPECT_EQ(WaitLine(1, cf),
            "WAIT #1: nam='control file parallel write' ela= 123 files=2 block#=3 requests=2 "
            "obj#=-1 tim=7000\n");
  const stats::WaitEvent log{stats::Wait::kLogFileSingleWrite, {5, 1, 1}, 2'000, 9'000, 0, 11};
  EXPECT_EQ(WaitLine(2, log),
            "WAIT #2: nam='log file single write' ela= 2 log#=5 block#=1 blocks=1 obj#=-1 tim=9\n");
  // tkprof reads them back.
  absl::StatusOr<std::vector<report::TkprofStatement>> t = ParseTrace(
      {"PARSING IN CURSOR #3 len=1\nx\nEND OF STMT\n" + WaitLine(3, creation) + WaitLine(3, creation)});
  ASSERT_OK(t);
  ASSERT_EQ(t->size(), 1u);
  ASSERT_EQ((*t)[0].waits.size(), 1u);
  EXPECT_EQ((*t)[0].waits[0].times_waited, 2);
  EXPECT_NEAR((*t)[0].waits[0].total_waited_s, 0.002468, 1e-9);
}

}  // namespace
}  // namespace cellsim::sqlrun
