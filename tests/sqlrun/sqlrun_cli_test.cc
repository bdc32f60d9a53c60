// `cellsim sqlrun` end to end: bad input exits 2 naming what is wrong; the
// seed's SQL directory (examples/temp-undo) runs with --setup and --json; the
// --trace files read back with `cellsim tkprof`.
#include <filesystem>
#include <fstream>
#include <string>

#include "cli/cli_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "testing/test_util.h"

namespace cellsim::sqlrun {
namespace {

using ::cellsim::cli::testing::Cellsim;
using ::cellsim::cli::testing::CmdResult;
using ::testing::HasSubstr;

const std::string kSeed = std::string(CELLSIM_EXAMPLES) + "/temp-undo";
const std::string kRack = " --backend posix --profile x3-2 --rack eighth --clock simulated";

class SqlrunCli : public ::testing::Test {
 protected:
  void SetUp() override {
    rack_ = tmp_.path() + "/rack";
    CmdResult r = Cellsim(tmp_, "rack create " + rack_ + kRack +
                                    " --disk-group DATA:NORMAL:256m --disk-group RECO:NORMAL:128m"
                                    " --flash-size 64m");
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  CmdResult Sqlrun(const std::string& args) {
    return Cellsim(tmp_, "sqlrun " + rack_ + kRack + " --standard-files --all-objects-rows 500 " + args);
  }
  void WriteConf(const std::string& text) {
    std::filesystem::create_directories(tmp_.path() + "/SQL/Oracle");
    std::ofstream(tmp_.path() + "/SQL/Oracle/sqlfile.conf") << text;
    std::ofstream(tmp_.path() + "/SQL/Oracle/a.sql") << "select 1 from dual\n";
  }

  cellsim::testing::TempDir tmp_;
  std::string rack_;
};

TEST_F(SqlrunCli, BadInputExitsTwoNamingIt) {
  CmdResult r = Sqlrun("--sqldir " + tmp_.path() + "/none");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("none/Oracle/sqlfile.conf: no such file"));
  WriteConf(",\n1,a.sql\n1;b.sql\n");
  r = Sqlrun("--sqldir " + tmp_.path() + "/SQL");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("sqlfile.conf:3: the frequency '1;b.sql' is not a positive integer"));
  WriteConf(",\n1,a.sql\n2,missing.sql\n");
  r = Sqlrun("--sqldir " + tmp_.path() + "/SQL");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("sqlfile.conf:3: SQL file"));
  WriteConf(",\n1,a.sql\n");
  r = Sqlrun("--sqldir " + tmp_.path() + "/SQL --exe-mode randomly");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("--exe-mode 'randomly': expected sequential, semi-random or truly-random"));
  r = Sqlrun("--sqldir " + tmp_.path() + "/SQL --connect-mode burst");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  r = Sqlrun("--sqldir " + tmp_.path() + "/SQL --max-sessions 0");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("--max-sessions"));
}

// A session is a thread: more sessions than the process may create is an
// error naming the session and what to change, not std::terminate, and the
// rack is left as it was (the next run needs no recovery).
TEST_F(SqlrunCli, MoreSessionsThanThreadsIsAClearError) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "the sanitizers reserve more address space than the limit this test sets";
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
  GTEST_SKIP() << "the sanitizers reserve more address space than the limit this test sets";
#endif
#endif
  WriteConf(",\n1,a.sql\n");
  // 2 GB of address space: a few hundred 8 MiB thread stacks.
  CmdResult r = Cellsim(tmp_, "sqlrun " + rack_ + kRack + " --standard-files --all-objects-rows 500 "
                              "--runtime 1 --max-sessions 2000 --sqldir " + tmp_.path() + "/SQL",
                        "ulimit -v 2000000;");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_THAT(r.err, ::testing::ContainsRegex("cannot start session [0-9]+ of 2000: .*lower "
                                              "--max-sessions"));
  r = Sqlrun("--runtime 1 --max-sessions 1 --sqldir " + tmp_.path() + "/SQL");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, ::testing::Not(HasSubstr("recover")));
}

TEST_F(SqlrunCli, TheSeedsDirectoryRunsAndItsTracesReadBack) {
  CmdResult r = Sqlrun("--setup " + kSeed + "/create/create.sql --setup " + kSeed +
                       "/set-temp-undo-off.sql --exe-mode sequential --connect-mode flood "
                       "--tx-behavior commit --max-sessions 3 --exe-delay 0.25 --db p2 "
                       "--username undotest --password XXXX --runtime 5 --sqldir " + kSeed +
                       "/SQL --allseg --json --trace --trace-dir " + tmp_.path() +
                       " --fixed-time 1657025160");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j["simulated"].get<bool>());
  const int64_t tx = j["final"]["txcount"].get<int64_t>();
  // 500-row inserts: a cycle is 3 x 0.25 s of sleep and ~3 ms of modeled
  // work, so 6-7 cycles per session in 5 s.
  EXPECT_GE(tx, 3 * 5);
  EXPECT_LE(tx, 3 * 7);
  EXPECT_GT(j["final"]["redo_size"].get<int64_t>(), 0);
  ASSERT_FALSE(j["allseg"].empty());
  EXPECT_GT(j["allseg"][0]["perm_undo_blocks"].get<int64_t>(), 0);
  EXPECT_EQ(j["allseg"][0]["temp_undo_blocks"].get<int64_t>(), -1);  // no V$TEMPUNDOSTAT row
  // The run began at 2022-07-05 12:46:00 UTC: its V$UNDOSTAT bucket is 12:40-12:50.
  EXPECT_EQ(j["allseg"][0]["begin_unix"].get<int64_t>(), 1657024800);
  EXPECT_EQ(j["allseg"][0]["end_unix"].get<int64_t>(), 1657024800 + 600);
  EXPECT_THAT(j["allseg_report"].get<std::string>(), HasSubstr("07/05/2022 12:40:00 07/05/2022 12:50:00"));
  std::string files;
  for (const auto& s : j["sessions"]) files += " " + s["trace_file"].get<std::string>();
  CmdResult t = Cellsim(tmp_, "tkprof" + files);
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_THAT(t.out, HasSubstr("merge into txcount"));
  EXPECT_THAT(t.out, HasSubstr("log file sync"));
  EXPECT_THAT(t.err, ::testing::Not(HasSubstr("no SQL statement")));
  EXPECT_EQ(Cellsim(tmp_, "tkprof " + tmp_.path() + "/nothing.trc").exit_code, 2);
  // Not a trace: tkprof's empty report, and a word on stderr.
  std::ofstream(tmp_.path() + "/notes.txt") << "not a trace\n";
  t = Cellsim(tmp_, "tkprof " + tmp_.path() + "/notes.txt");
  EXPECT_EQ(t.exit_code, 0) << t.err;
  EXPECT_THAT(t.err, HasSubstr("no SQL statement in " + tmp_.path() + "/notes.txt (not a 10046 trace?"));
}

}  // namespace
}  // namespace cellsim::sqlrun
