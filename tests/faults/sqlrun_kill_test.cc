// Issue 16, must-show 4: kill -9 of `cellsim sqlrun` mid-run (the seed's
// SQL directory, several sessions, real clock), then reopen: every
// txcount row keeps every MERGE whose commit a session was told of. What the
// sessions were told comes from their --trace files: a session writes its
// XCTEND line (flushed at once) after the COMMIT returned, so the file holds
// every acknowledged commit but the last one at most.
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <regex>
#include <string>
#include <thread>

#include "faults/child_process.h"
#include "gtest/gtest.h"
#include "testing/test_util.h"

namespace cellsim::faults {
namespace {

using ::cellsim::faults::testing::CellsimChild;
using ::cellsim::faults::testing::ChildProcess;
using ::cellsim::faults::testing::CmdRun;
using ::cellsim::testing::TempDir;

const std::string kSeed = std::string(CELLSIM_EXAMPLES) + "/temp-undo";

// One session's trace: its MERGEs executed and those whose commit returned.
struct Told {
  int64_t merges = 0;
  int64_t committed = 0;
};

// sid -> what the session was told, from <db>_ora_<sid>_<id>.trc files.
std::map<int64_t, Told> ReadTraces(const std::string& dir) {
  std::map<int64_t, Told> out;
  const std::regex name(R"(_ora_(\d+)_[^_]*\.trc$)");
  for (const auto& f : std::filesystem::directory_iterator(dir)) {
    std::smatch m;
    const std::string path = f.path().string();
    if (!std::regex_search(path, m, name)) continue;
    Told& t = out[std::stoll(m[1])];
    std::ifstream in(path);
    std::string line, merge_cursor = "#none:";
    bool in_flight = false, next_is_text = false;
    std::string cursor;
    while (std::getline(in, line)) {
      if (next_is_text) {
        if (line.rfind("merge into txcount", 0) == 0) merge_cursor = cursor + ":";
        next_is_text = false;
      } else if (line.rfind("PARSING IN CURSOR ", 0) == 0) {
        cursor = line.substr(18, line.find(' ', 18) - 18);
        next_is_text = true;
      } else if (line.rfind("EXEC " + merge_cursor, 0) == 0) {
        ++t.merges;
        in_flight = true;
      } else if (line.rfind("XCTEND rlbk=0", 0) == 0 && in_flight) {
        ++t.committed;
        in_flight = false;
      }
    }
  }
  return out;
}

int64_t TotalCommitted(const std::map<int64_t, Told>& told) {
  int64_t n = 0;
  for (const auto& [sid, t] : told) n += t.committed;
  return n;
}

TEST(SqlrunKill, KilledMidRunKeepsEveryCommittedTxcountRow) {
  std::mt19937 rng(16);
  for (int round = 0; round < 2; ++round) {
    SCOPED_TRACE(round);
    TempDir tmp;
    const std::string rack = tmp.path() + "/rack", traces = tmp.path() + "/trc";
    std::filesystem::create_directories(traces);
    CmdRun r = testing::Cellsim(tmp, {"rack", "create", rack, "--backend", "posix", "--disk-group",
                                      "DATA:NORMAL:256m", "--disk-group", "RECO:NORMAL:128m",
                                      "--flash-size", "64m"});
    ASSERT_TRUE(r.ok()) << r.err;
    // Real clock (no profile): the run goes on in wall time until killed.
    ChildProcess child = CellsimChild(
        {"sqlrun", rack, "--backend", "posix", "--standard-files", "--all-objects-rows", "300",
         "--setup", kSeed + "/create/create.sql", "--setup", kSeed + "/set-temp-undo-off.sql",
         "--exe-mode", "sequential", "--connect-mode", "flood", "--tx-behavior", "commit",
         "--max-sessions", "4", "--exe-delay", "0.01", "--runtime", "120", "--sqldir",
         kSeed + "/SQL", "--trace", "--trace-dir", traces},
        tmp.File("child.err"));
    ASSERT_TRUE(child.started()) << child.error();
    // Killed once the sessions have committed some MERGEs (a random number),
    // at whatever each is doing then.
    const int64_t target = 8 + static_cast<int64_t>(rng() % 24);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    while (TotalCommitted(ReadTraces(traces)) < target &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20 + rng() % 40));
    }
    child.Kill();
    const int status = child.Wait();
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
        << "the run ended before the kill: " << child.Stderr();
    const std::map<int64_t, Told> told = ReadTraces(traces);
    ASSERT_GE(TotalCommitted(told), target);
    // Reopen (instance recovery) and read txcount.
    r = testing::Cellsim(tmp, {"sql", rack, "--backend", "posix", "-e",
                               "select sid, txacts from txcount order by sid"});
    ASSERT_TRUE(r.ok()) << r.err;
    std::map<int64_t, int64_t> rows;
    const std::regex row(R"(^\s*(\d+)\s+(\d+)\s*$)");
    std::istringstream out(r.out);
    for (std::string line; std::getline(out, line);) {
      std::smatch m;
      if (std::regex_match(line, m, row)) rows[std::stoll(m[1])] = std::stoll(m[2]);
    }
    for (const auto& [sid, t] : told) {
      if (t.merges == 0) continue;
      SCOPED_TRACE("sid " + std::to_string(sid));
      const int64_t txacts = rows.count(sid) != 0 ? rows[sid] : 0;
      std::printf("round %d, sid %lld: %lld merges, %lld acknowledged, txacts %lld after reopen\n",
                  round, static_cast<long long>(sid), static_cast<long long>(t.merges),
                  static_cast<long long>(t.committed), static_cast<long long>(txacts));
      EXPECT_GE(txacts, t.committed) << r.out;  // every acknowledged commit
      EXPECT_LE(txacts, t.merges) << r.out;     // nothing never executed
    }
  }
}

}  // namespace
}  // namespace cellsim::faults
