// SIGINT (Ctrl-C) of the real `cellsim sql` at random moments of a creation
// by each path (issue 11): the statement stops at its next safe point, undoes
// itself and the command prints ORA-01013 and exits 130. Afterwards nothing
// half-made is visible (no log group 5, no ASM file), the free space is as
// before (`asmcmd lsdg` identical), the mount needs no recovery, nothing
// leaked and every copy agrees. SIGTERM ends `cellsim demo` the same way and
// its temporary racks are gone.
//
// The moment: after the session setting's feedback line (the creation starts
// right after it), a random delay within the statement's own duration,
// measured by a first uninterrupted run of the same statement on the same
// rack. A signal that arrives after the statement committed cannot cancel it
// (the command then says "interrupted after the last statement completed");
// such late runs are retried and counted apart. CELLSIM_INTERRUPT_SEED fixes
// the delays (printed on failure).
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "cellsim/asm/rack.h"
#include "cellsim/db/database.h"
#include "cellsim/io/io_backend.h"
#include "faults/child_process.h"
#include "faults/stack_check.h"
#include "fmt/format.h"
#include "gtest/gtest.h"
#include "testing/sanitizer.h"
#include "testing/test_util.h"

#ifndef CELLSIM_BIN
#error "CELLSIM_BIN must name the cellsim binary (target_compile_definitions)"
#endif

namespace cellsim::faults {
namespace {

using ::cellsim::faults::testing::ChildProcess;
using ::cellsim::faults::testing::CmdRun;
using ::cellsim::faults::testing::Cellsim;
using ::cellsim::faults::testing::CellsimChild;
using ::cellsim::testing::TempDir;
using ::testing::HasSubstr;

// SIGINTs at random points; under ASan (CI) 12: the three paths and the
// early/late windows all come up within a dozen.
constexpr int kRuns = cellsim::testing::BySanitizer(20, 12, 20);
constexpr const char* kCreate = "alter database add logfile group 5 ('+DATA','+RECO') size 96m";

struct PathCase {
  const char* name;
  const char* setting;
};
constexpr PathCase kPaths[] = {
    {"zero-fill", "alter session set \"_cell_fast_file_create\" = false"},
    {"smart", "alter session set cellsim_fast_file_create_metadata = false"},
    {"fast", "alter session set cellsim_fast_file_create_metadata = true"},
};


// A 3-cell rack of 2 disks each, +DATA and +RECO of 1 GiB per disk (sparse).
CmdRun CreateRack(const TempDir& tmp, const std::string& rack) {
  return Cellsim(tmp, {"rack", "create", rack, "--cells", "3", "--disks-per-cell", "2",
                       "--disk-group", "DATA:NORMAL:1g:1m", "--disk-group", "RECO:NORMAL:1g:1m",
                       "--flash-size", "64m"});
}

struct Interrupted {
  int status = 0;
  std::string out, err;
};

// Starts the creation by `path`, sends `sig` `delay` after the setting's
// feedback line, returns what the command did.
Interrupted RunAndSignal(const TempDir& tmp, const std::string& rack, const PathCase& path,
                         std::chrono::microseconds delay, int sig) {
  ChildProcess child =
      CellsimChild({"sql", rack, "-e", path.setting, "-e", kCreate}, tmp.File("child.err"));
  Interrupted r;
  if (!child.started()) {
    r.err = child.error();
    return r;
  }
  std::optional<std::string> line = child.ReadLine();  // "Session altered. ..."
  if (line) {
    r.out += *line + "\n";
    std::this_thread::sleep_for(delay);
    child.Signal(sig);
  }
  while ((line = child.ReadLine())) r.out += *line + "\n";
  r.status = child.Wait();
  r.err = child.Stderr();
  return r;
}

// The creation's statement time as `set timing on` printed it.
std::chrono::microseconds StatementTime(const std::string& out) {
  std::smatch m;
  const std::regex re("Database altered\\.  Elapsed: (\\d+):(\\d+):(\\d+)\\.(\\d+)");
  if (!std::regex_search(out, m, re)) return std::chrono::microseconds(0);
  const int64_t cs = ((std::stoll(m[1]) * 60 + std::stoll(m[2])) * 60 + std::stoll(m[3])) * 100 +
                     std::stoll(m[4]);
  return std::chrono::microseconds(cs * 10'000);
}

TEST(Interrupt, SigintUndoesTheCreationByEveryPath) {
  uint64_t seed = std::random_device{}();
  if (const char* s = std::getenv("CELLSIM_INTERRUPT_SEED")) seed = std::strtoull(s, nullptr, 10);
  SCOPED_TRACE("CELLSIM_INTERRUPT_SEED=" + std::to_string(seed));
  std::mt19937_64 rng(seed);
  TempDir tmp;
  const std::string rack = tmp.File("rack");
  CmdRun r = Cellsim(tmp, {"rack", "create", rack, "--cells", "3", "--disks-per-cell", "2",
                           "--disk-group", "DATA:NORMAL:512m:1m", "--disk-group",
                           "RECO:NORMAL:512m:1m", "--flash-size", "64m"});
  ASSERT_TRUE(r.ok()) << r.err;
  r = Cellsim(tmp, {"sql", rack, "-e", "create tablespace users datafile '+DATA' size 8m"});
  ASSERT_TRUE(r.ok()) << r.err;
  const CmdRun lsdg_before = Cellsim(tmp, {"asmcmd", rack, "-e", "lsdg"});
  ASSERT_TRUE(lsdg_before.ok()) << lsdg_before.err;

  // Each path's statement time, from an uninterrupted run (then undone by a drop).
  std::chrono::microseconds duration[3];
  for (int p = 0; p < 3; ++p) {
    r = Cellsim(tmp, {"sql", rack, "-e", kPaths[p].setting, "-e", kCreate});
    ASSERT_TRUE(r.ok()) << r.err;
    ASSERT_THAT(r.out, HasSubstr(fmt::format("({} path)", kPaths[p].name)));
    duration[p] = std::max(StatementTime(r.out), std::chrono::microseconds(2000));
    r = Cellsim(tmp, {"sql", rack, "-e", "alter database drop logfile group 5"});
    ASSERT_TRUE(r.ok()) << r.err;
  }
  ASSERT_EQ(Cellsim(tmp, {"asmcmd", rack, "-e", "lsdg"}).out, lsdg_before.out);

  int cancelled[3] = {0, 0, 0}, late = 0;
  std::unique_ptr<io::IoBackend> io = io::MakePosixBackend();
  for (int run = 0, attempts = 0; run < kRuns && attempts < 4 * kRuns; ++attempts) {
    const int p = run % 3;
    const auto delay = std::chrono::microseconds(std::uniform_int_distribution<int64_t>(
        0, duration[p].count() * 7 / 10)(rng));
    SCOPED_TRACE(fmt::format("run {}: {} path, SIGINT {} us into a {} us statement", run,
                             kPaths[p].name, delay.count(), duration[p].count()));
    const Interrupted i = RunAndSignal(tmp, rack, kPaths[p], delay, SIGINT);
    SCOPED_TRACE("stdout: " + i.out + "stderr: " + i.err);
    if (i.out.find("Database altered.") != std::string::npos) {
      // Late: the statement had committed; it stays, acknowledged. The command
      // says so (exit 130), had already ended (exit 0: the signal found a
      // finished process), or was past its handlers (killed by SIGINT).
      if (WIFEXITED(i.status)) {
        if (WEXITSTATUS(i.status) != 0) {
          EXPECT_EQ(WEXITSTATUS(i.status), 130);
          EXPECT_THAT(i.err, HasSubstr("interrupted after the last statement completed"));
        }
      } else {
        EXPECT_TRUE(WIFSIGNALED(i.status) && WTERMSIG(i.status) == SIGINT);
      }
      ++late;
      duration[p] = duration[p] * 2 / 3;  // this machine is faster than measured: aim earlier
      r = Cellsim(tmp, {"sql", rack, "-e", "alter database drop logfile group 5"});
      ASSERT_TRUE(r.ok()) << r.err;
      continue;
    }
    ASSERT_TRUE(WIFEXITED(i.status)) << testing::DescribeWaitStatus(i.status);
    EXPECT_EQ(WEXITSTATUS(i.status), 130);
    EXPECT_THAT(i.err, HasSubstr("ORA-01013: user requested cancel of current operation"));
    ++cancelled[p];
    ++run;
    // Nothing half-made, the space as before, no recovery needed, no leak.
    EXPECT_EQ(Cellsim(tmp, {"asmcmd", rack, "-e", "lsdg"}).out, lsdg_before.out);
    ASSERT_OK_AND_ASSIGN(auto opened, asmgr::Rack::Open(io.get(), SystemClock(), rack));
    {
      ASSERT_OK_AND_ASSIGN(auto database, db::Database::Open(opened.get()));
      EXPECT_TRUE(database->recovery_actions().empty())
          << "the statement was not undone by its own process: "
          << database->recovery_actions().front();
      const db::FileTable table = database->file_table();
      EXPECT_EQ(table.FindLogGroup(5), nullptr);
      EXPECT_NE(table.FindTablespace("USERS"), nullptr);
      EXPECT_OK(testing::CheckNoLeaks(opened.get(), table));
      EXPECT_OK(testing::VerifyTableFormatted(opened.get(), table));
    }
    EXPECT_OK(testing::ScrubClean(opened.get()));
    ASSERT_OK(opened->Close());
  }
  std::printf(
      "interrupt campaign: %d runs cancelled with ORA-01013 (zero-fill %d, smart %d, fast %d; "
      "statement times %lld/%lld/%lld us), %d late signals after the commit\n",
      cancelled[0] + cancelled[1] + cancelled[2], cancelled[0], cancelled[1], cancelled[2],
      static_cast<long long>(duration[0].count()), static_cast<long long>(duration[1].count()),
      static_cast<long long>(duration[2].count()), late);
  EXPECT_EQ(cancelled[0] + cancelled[1] + cancelled[2], kRuns);
}

// `timeout -s INT` (and some job controls) signal both the process and its
// group, so one interrupt arrives twice within microseconds. That is still one
// Ctrl-C: the statement undoes itself (ORA-01013, exit 130) instead of dying by
// the second signal and leaving its half-made files to the next open.
TEST(Interrupt, ASignalDeliveredTwiceAtOnceIsOneInterrupt) {
  TempDir tmp;
  const std::string rack = tmp.File("rack");
  CmdRun r = CreateRack(tmp, rack);
  ASSERT_TRUE(r.ok()) << r.err;
  r = Cellsim(tmp, {"sql", rack, "-e", "select 1 from dual"});  // creates the database
  ASSERT_TRUE(r.ok()) << r.err;
  const CmdRun lsdg_before = Cellsim(tmp, {"asmcmd", rack, "-e", "lsdg"});
  ASSERT_TRUE(lsdg_before.ok()) << lsdg_before.err;
  ChildProcess child = CellsimChild(
      {"sql", rack, "-e", "alter session set \"_cell_fast_file_create\" = false", "-e",
       "alter database add logfile group 5 ('+DATA','+RECO') size 1g"},
      tmp.File("child.err"));
  ASSERT_TRUE(child.started()) << child.error();
  ASSERT_TRUE(child.ReadLine().has_value());  // "Session altered.": the creation starts now
  child.Signal(SIGINT);
  // Not back to back: two pending SIGINTs would merge into one in the kernel.
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  child.Signal(SIGINT);
  const int status = child.Wait();
  const std::string err = child.Stderr();
  ASSERT_TRUE(WIFEXITED(status)) << testing::DescribeWaitStatus(status) << err;
  EXPECT_EQ(WEXITSTATUS(status), 128 + SIGINT) << err;
  EXPECT_THAT(err, HasSubstr("ORA-01013"));
  // Nothing was left for recovery: the next command reports no recovery and
  // the disk groups are as before.
  const CmdRun after = Cellsim(tmp, {"asmcmd", rack, "-e", "lsdg"});
  ASSERT_TRUE(after.ok()) << after.err;
  EXPECT_EQ(after.out, lsdg_before.out);
  r = Cellsim(tmp, {"sql", rack, "-e", "select 1 from dual"});
  ASSERT_TRUE(r.ok()) << r.err;
  EXPECT_THAT(r.err, ::testing::Not(HasSubstr("recovery")));
}

// Ctrl-C stops a runaway query (a cartesian join of ALL_OBJECTS; correlated
// subqueries whose runs are each shorter than the scans' 4,096-row check,
// which ran to the end before) and a DML that would run for hours (INSERT
// ... SELECT of a billion rows): ORA-01013, exit 130, and the insert undone,
// nothing of it left.
TEST(Interrupt, SigintStopsARunawayQueryAndUndoesARunawayInsert) {
  TempDir tmp;
  const std::string rack = tmp.File("rack");
  CmdRun r = CreateRack(tmp, rack);
  ASSERT_TRUE(r.ok()) << r.err;
  r = Cellsim(tmp, {"sql", rack, "--standard-files", "--all-objects-rows", "5000", "-e",
                    "create table t (n number)", "-e",
                    "create table c as select object_id n from all_objects where rownum <= 3000"});
  ASSERT_TRUE(r.ok()) << r.err;
  for (const char* statement : {"select count(*) from all_objects a, all_objects b",
                                "select count(*) from c a where not exists (select 1 from c b "
                                "where b.n = -a.n) and not exists (select 1 from c d where d.n "
                                "= -a.n - 1)",
                                "insert into t select level from dual connect by level <= "
                                "1000000000",
                                "begin loop insert into t values (1); end loop; end;"}) {
    SCOPED_TRACE(statement);
    ChildProcess child = CellsimChild(
        {"sql", rack, "--all-objects-rows", "5000", "-e", "select 1 from dual", "-e", statement},
        tmp.File("child.err"));
    ASSERT_TRUE(child.started()) << child.error();
    for (int i = 0; i < 3; ++i) (void)child.ReadLine();  // the first query's rows: the next runs
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    child.Signal(SIGINT);
    const int status = child.Wait();
    const std::string err = child.Stderr();
    ASSERT_TRUE(WIFEXITED(status)) << testing::DescribeWaitStatus(status) << err;
    EXPECT_EQ(WEXITSTATUS(status), 128 + SIGINT) << err;
    EXPECT_THAT(err, HasSubstr("ORA-01013"));
  }
  r = Cellsim(tmp, {"sql", rack, "-e", "select count(*) from t"});
  ASSERT_TRUE(r.ok()) << r.err;
  EXPECT_THAT(r.out, ::testing::HasSubstr("\n       0\n"));
  EXPECT_THAT(r.err, ::testing::Not(HasSubstr("recovery")));
}

// `cellsim sql` at a SQL> prompt (-i; the default at a terminal): statements
// run as they are typed, an error leaves the prompt, Ctrl-C while typing
// drops the line (twice, a second apart, still does not kill it), Ctrl-C
// during a statement undoes it and returns to the prompt, and SIGTERM at the
// prompt ends the session: its open transaction rolled back, said so, exit
// 143.
TEST(Interrupt, InteractiveSqlKeepsItsPromptThroughCtrlC) {
  TempDir tmp;
  const std::string rack = tmp.File("rack");
  CmdRun r = CreateRack(tmp, rack);
  ASSERT_TRUE(r.ok()) << r.err;
  r = Cellsim(tmp, {"sql", rack, "--standard-files", "-e", "create table t (n number)"});
  ASSERT_TRUE(r.ok()) << r.err;
  ChildProcess child = CellsimChild({"sql", rack, "-i"}, tmp.File("child.err"), true);
  ASSERT_TRUE(child.started()) << child.error();
  ASSERT_TRUE(child.ReadUntil("SQL> "));
  ASSERT_TRUE(child.WriteStdin("insert into t values (1);\n"));
  std::optional<std::string> out = child.ReadUntil("SQL> ");
  ASSERT_TRUE(out);
  EXPECT_THAT(*out, HasSubstr("1 row created."));
  ASSERT_TRUE(child.WriteStdin("select no_such_column\nfrom t;\n"));
  out = child.ReadUntil("SQL> ");
  ASSERT_TRUE(out) << child.Stderr();
  EXPECT_THAT(*out, HasSubstr("  2  "));  // the second line's number
  EXPECT_THAT(child.Stderr(), HasSubstr("ORA-00904"));
  for (int i = 0; i < 2; ++i) {  // typing, then Ctrl-C: the line goes
    ASSERT_TRUE(child.WriteStdin("select count(*)\n"));
    ASSERT_TRUE(child.ReadUntil("  2  "));
    child.Signal(SIGINT);
    ASSERT_TRUE(child.ReadUntil("SQL> ")) << child.Stderr();
    std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  }
  ASSERT_TRUE(child.WriteStdin("insert into t select level from dual connect by level <= "
                               "1000000000;\n"));
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  child.Signal(SIGINT);
  ASSERT_TRUE(child.ReadUntil("SQL> ")) << child.Stderr();
  EXPECT_THAT(child.Stderr(), HasSubstr("ORA-01013"));
  ASSERT_TRUE(child.WriteStdin("select count(*) from t;\n"));
  out = child.ReadUntil("SQL> ");
  ASSERT_TRUE(out) << child.Stderr();
  EXPECT_THAT(*out, HasSubstr("\n       1\n"));  // the first insert, in the open transaction
  child.Signal(SIGTERM);
  const int status = child.Wait();
  const std::string err = child.Stderr();
  ASSERT_TRUE(WIFEXITED(status)) << testing::DescribeWaitStatus(status) << err;
  EXPECT_EQ(WEXITSTATUS(status), 128 + SIGTERM) << err;
  EXPECT_THAT(err, HasSubstr("the session ended with uncommitted changes: rolled back"));
  // What ended the run first, then what ending the session undid.
  EXPECT_LT(err.find("ended by "), err.find("the session ended with uncommitted changes")) << err;
  r = Cellsim(tmp, {"sql", rack, "-e", "select count(*) from t"});
  ASSERT_TRUE(r.ok()) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\n       0\n"));
  EXPECT_THAT(r.err, ::testing::Not(HasSubstr("recovery")));
  // The end of input ends it too, with exit 0; -i with -e is a usage error.
  ChildProcess eof = CellsimChild({"sql", rack, "-i"}, tmp.File("eof.err"), true);
  ASSERT_TRUE(eof.WriteStdin("select count(*) from t;\n"));
  eof.CloseStdin();
  while (eof.ReadLine()) {
  }
  const int eof_status = eof.Wait();
  EXPECT_TRUE(WIFEXITED(eof_status) && WEXITSTATUS(eof_status) == 0) << eof.Stderr();
  r = Cellsim(tmp, {"sql", rack, "-i", "-e", "select 1 from dual"});
  EXPECT_EQ(r.exit_code(), 2);
  EXPECT_THAT(r.err, HasSubstr("-i (a SQL> prompt) reads its statements from standard input"));
}

// `cellsim demo` removes its temporary racks however it ends: SIGTERM during
// the zero-fill run leaves nothing in TMPDIR.
TEST(Interrupt, DemoRemovesItsTemporaryRackOnSigterm) {
  TempDir tmp;
  const std::string tmpdir = tmp.File("demo-tmp");
  std::filesystem::create_directories(tmpdir);
  setenv("TMPDIR", tmpdir.c_str(), 1);
  ChildProcess child = CellsimChild({"demo", "--size", "512m"}, tmp.File("demo.err"));
  unsetenv("TMPDIR");
  ASSERT_TRUE(child.started()) << child.error();
  // Wait for the zero-fill rack to be in use, then SIGTERM.
  bool signalled = false;
  for (int i = 0; i < 3000 && !child.Exited(); ++i) {
    std::error_code ec;
    for (const auto& e : std::filesystem::recursive_directory_iterator(tmpdir, ec)) {
      if (e.path().filename() == "flash.img") signalled = true;
    }
    if (signalled) {
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      child.Signal(SIGTERM);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_TRUE(signalled) << "the demo never built its rack";
  const int status = child.Wait();
  const std::string err = child.Stderr();
  ASSERT_TRUE(WIFEXITED(status)) << testing::DescribeWaitStatus(status) << err;
  EXPECT_EQ(WEXITSTATUS(status), 128 + SIGTERM) << err;
  EXPECT_THAT(err, HasSubstr("ORA-01013"));
  EXPECT_TRUE(std::filesystem::is_empty(tmpdir))
      << std::filesystem::directory_iterator(tmpdir)->path();
}

}  // namespace
}  // namespace cellsim::faults
