// The database's tables across processes and crashes (issue 15): `cellsim sql`
// twice sees the same tables and rows; the DML crash campaign kills (SIGKILL)
// a child process running several sessions of insert / update / delete /
// commit / rollback on heap tables and a GTT (all indexed) at random points,
// then checks that the reopened database holds every acknowledged commit, no
// uncommitted change, no GTT rows, and indexes that agree with their tables.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <map>
#include <mutex>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cellsim/asm/rack.h"
#include "cellsim/db/database.h"
#include "cellsim/io/fault_injection.h"
#include "cellsim/io/io_backend.h"
#include "db/db_test_util.h"
#include "faults/child_process.h"
#include "fmt/format.h"
#include "gtest/gtest.h"
#include "testing/sanitizer.h"
#include "testing/test_util.h"

namespace cellsim::faults::testing {
namespace {

using ::cellsim::testing::BySanitizer;
using ::cellsim::testing::TempDir;
using ::testing::HasSubstr;
using ::testing::Not;

std::string MakeRack(const TempDir& tmp) {
  const std::string rack = tmp.File("rack");
  const CmdRun r = Cellsim(tmp.File("create.err"),
                           {"rack", "create", rack, "--cells", "3", "--disks-per-cell", "2",
                            "--disk-group", "DATA:NORMAL:512m", "--disk-group",
                            "RECO:NORMAL:256m", "--flash-size", "64m"});
  EXPECT_TRUE(r.ok()) << r.err;
  return rack;
}

TEST(TxnAcrossProcesses, TablesAndRowsPersistBetweenSqlRuns) {
  TempDir tmp;
  const std::string rack = MakeRack(tmp);
  CmdRun r = Cellsim(tmp.File("e1"),
                     {"sql", rack, "--standard-files", "--all-objects-rows", "2000", "-e",
                      "create table t (a number, b varchar2(20))", "-e",
                      "insert into t values (1, 'one')", "-e",
                      "insert into t select object_id, 'x' from all_objects", "-e", "commit", "-e",
                      "create global temporary table g (x number) on commit preserve rows", "-e",
                      "insert into g values (1)", "-e", "commit"});
  ASSERT_TRUE(r.ok()) << r.err;
  r = Cellsim(tmp.File("e2"), {"sql", rack, "-e", "select count(*) from t", "-e",
                               "select b from t where a = 1", "-e", "select count(*) from g"});
  ASSERT_TRUE(r.ok()) << r.err;
  EXPECT_THAT(r.out, HasSubstr("2001"));
  EXPECT_THAT(r.out, HasSubstr("one"));
  EXPECT_THAT(r.out, HasSubstr("\n       0\n"));  // the GTT is there, its rows are not
  r = Cellsim(tmp.File("e3"), {"sql", rack, "-e", "drop table t purge"});
  ASSERT_TRUE(r.ok()) << r.err;
  r = Cellsim(tmp.File("e4"), {"sql", rack, "-e", "select count(*) from t"});
  EXPECT_FALSE(r.ok());
  EXPECT_THAT(r.err, HasSubstr("ORA-00942"));
  EXPECT_THAT(r.err, Not(HasSubstr("uncommitted")));
  // A run that ends without COMMIT rolls back, and says so (SQL*Plus would
  // have committed); EXIT commits, silently.
  r = Cellsim(tmp.File("e5"), {"sql", rack, "-e", "create table u (a number)", "-e",
                               "insert into u values (1)"});
  ASSERT_TRUE(r.ok()) << r.err;
  EXPECT_THAT(r.err, HasSubstr("the session ended with uncommitted changes: rolled back"));
  // After a failure, the failure first, then what ending the session undid.
  r = Cellsim(tmp.File("e5b"), {"sql", rack, "-e", "insert into u values (7)", "-e",
                                "insert into u values ('x')"});
  EXPECT_FALSE(r.ok());
  const size_t failed = r.err.find("statement 2 failed");
  ASSERT_NE(failed, std::string::npos) << r.err;
  EXPECT_NE(r.err.find("the session ended with uncommitted changes: rolled back", failed),
            std::string::npos)
      << r.err;
  // A run whose only change failed (and undid itself: the row was in its
  // block before the key refused it, so the transaction had begun) has
  // nothing to roll back.
  r = Cellsim(tmp.File("e5c"), {"sql", rack, "-e", "create table k (a number primary key)",
                                "-e", "insert into k values (1)", "-e", "commit"});
  ASSERT_TRUE(r.ok()) << r.err;
  r = Cellsim(tmp.File("e5d"), {"sql", rack, "-e", "insert into k values (1)"});
  EXPECT_FALSE(r.ok());
  EXPECT_THAT(r.err, HasSubstr("ORA-00001"));
  EXPECT_THAT(r.err, Not(HasSubstr("uncommitted"))) << r.err;
  r = Cellsim(tmp.File("e6"), {"sql", rack, "-e", "insert into u values (2)", "-e", "exit"});
  ASSERT_TRUE(r.ok()) << r.err;
  EXPECT_THAT(r.err, Not(HasSubstr("uncommitted")));
  r = Cellsim(tmp.File("e7"), {"sql", rack, "-e", "select sum(a) from u"});
  ASSERT_TRUE(r.ok()) << r.err;
  EXPECT_THAT(r.out, HasSubstr("------\n     2\n"));
  EXPECT_THAT(r.err, Not(HasSubstr("uncommitted")));
}

// A sequence across processes: each clean run hands on where the last one
// stopped; a run killed with SIGKILL loses its cached values, and the next
// run never hands out a value the killed one did.
TEST(TxnAcrossProcesses, SequencesSurviveRunsAndAKill) {
  TempDir tmp;
  const std::string rack = MakeRack(tmp);
  CmdRun r = Cellsim(tmp.File("e1"), {"sql", rack, "--standard-files", "-e",
                                      "create sequence s cache 10", "-e",
                                      "select s.nextval from dual"});
  ASSERT_TRUE(r.ok()) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\n      1\n"));
  r = Cellsim(tmp.File("e2"), {"sql", rack, "-e", "select s.nextval from dual"});
  ASSERT_TRUE(r.ok()) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\n      2\n"));  // the clean close gave 3..10 back
  ChildProcess child = CellsimChild({"sql", rack, "-i"}, tmp.File("child.err"), true);
  ASSERT_TRUE(child.started()) << child.error();
  ASSERT_TRUE(child.ReadUntil("SQL> "));
  ASSERT_TRUE(child.WriteStdin("select s.nextval from dual connect by level <= 12;\n"));
  std::optional<std::string> out = child.ReadUntil("SQL> ");
  ASSERT_TRUE(out) << child.Stderr();
  EXPECT_THAT(*out, HasSubstr("\n     14\n"));  // 3..14: its cache runs to 22
  child.Kill();
  child.Wait();
  r = Cellsim(tmp.File("e3"), {"sql", rack, "-e", "select s.nextval from dual", "-e",
                               "select last_number from user_sequences"});
  ASSERT_TRUE(r.ok()) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\n     23\n"));  // 15..22 were cached: skipped
  EXPECT_THAT(r.err, HasSubstr("recovery"));
}

// ---- the DML crash campaign ----

constexpr const char* kChildEnv = "CELLSIM_TXN_CRASH_CHILD";  // the rack directory
constexpr int kSessions = 4;
constexpr uint64_t kAllObjectsRows = 3000;

// One session's committed view: its rows of T (key -> value) and how many
// rows of B it owns.
struct SessionState {
  std::map<int64_t, int64_t> rows;
  int64_t bulk = 0;
  std::string Text() const {
    std::string out = fmt::format("{}", bulk);
    for (const auto& [k, v] : rows) out += fmt::format(" {}:{}", k, v);
    return out;
  }
};

db::DatabaseOptions Options() {
  db::DatabaseOptions o;
  o.all_objects_rows = kAllObjectsRows;
  o.standard_files.log_bytes = 4ull << 20;  // Oracle's minimum: log switches (checkpoints) often
  // CELLSIM_TXN_CRASH_LOG_KIB=N: logs of N KiB instead (more switches, and
  // checkpoints, per cut).
  if (const char* kib = std::getenv("CELLSIM_TXN_CRASH_LOG_KIB"); kib != nullptr) {
    o.min_log_file_bytes = std::strtoull(kib, nullptr, 10) << 10;
    o.standard_files.log_bytes = o.min_log_file_bytes;
  }
  return o;
}

// What the database holds for session `i` (as a Session sees it).
SessionState ReadState(db::Session& s, int i, std::string* error) {
  SessionState st;
  absl::StatusOr<db::StatementResult> r =
      s.Execute(fmt::format("select k, v from t where s = {} order by k", i));
  absl::StatusOr<db::StatementResult> b =
      s.Execute(fmt::format("select count(*) from b where s = {}", i));
  if (!r.ok() || !b.ok()) {
    *error = std::string(r.ok() ? b.status().message() : r.status().message());
    return st;
  }
  for (const auto& row : r->result_rows) st.rows[std::stoll(row[0])] = std::stoll(row[1]);
  st.bulk = std::stoll(b->result_rows.at(0).at(0));
  return st;
}

std::mutex out_mu;
void Say(const std::string& line) {
  std::lock_guard<std::mutex> lock(out_mu);
  const std::string l = line + "\n";
  (void)!write(STDOUT_FILENO, l.data(), l.size());  // one write: atomic on the pipe
}

// Where a session reports: `say` gets its S / P / C / X lines; a statement
// failing unexpectedly ends the session (after an X line).
struct Reporter {
  std::function<void(const std::string&)> say;
};

// One session of the workload: transactions of 1-4 statements, committed (P
// line before, C line after the acknowledgement) or rolled back.
void SessionLoop(db::Database* database, int i, uint64_t seed, const Reporter& out) {
  std::unique_ptr<db::Session> s = database->NewSession();
  std::string error;
  SessionState committed = ReadState(*s, i, &error);
  if (!error.empty()) return out.say(fmt::format("X {} {}", i, error));
  out.say(fmt::format("S {} {}", i, committed.Text()));
  int64_t next_key = committed.rows.empty() ? 1 : committed.rows.rbegin()->first + 1;
  std::mt19937_64 rng(seed);
  bool failed = false;
  auto run = [&](const std::string& sql, bool may_fail = false) {
    if (failed) return;
    absl::StatusOr<db::StatementResult> r = s->Execute(sql);
    if (!r.ok() && !may_fail) {
      out.say(fmt::format("X {} {}: {}", i, sql, std::string(r.status().message())));
      failed = true;
    }
  };
  while (!failed) {
    SessionState work = committed;
    const int ops = 1 + static_cast<int>(rng() % 4);
    for (int op = 0; op < ops; ++op) {
      const int kind = static_cast<int>(rng() % 13);
      if (kind < 4 || work.rows.empty() || (kind < 8 && work.rows.size() < 3)) {
        const int64_t v = static_cast<int64_t>(rng() % 10);
        run(fmt::format("insert into t values ({}, {}, {})", i, next_key, v));
        work.rows[next_key++] = v;
      } else if (kind < 7) {
        auto it = std::next(work.rows.begin(), static_cast<long>(rng() % work.rows.size()));
        run(fmt::format("update t set v = v + 1 where s = {} and k = {}", i, it->first));
        ++it->second;
      } else if (kind < 9 || work.rows.size() > 25) {
        auto it = std::next(work.rows.begin(), static_cast<long>(rng() % work.rows.size()));
        run(fmt::format("delete from t where s = {} and k = {}", i, it->first));
        work.rows.erase(it);
      } else if (kind < 10 || kind == 12) {
        run(fmt::format("insert into b select {}, object_id, object_name from all_objects", i));
        work.bulk += static_cast<int64_t>(kAllObjectsRows);
      } else if (kind < 11) {
        run(fmt::format("insert into g values ({})", i));
      } else {
        // Fails part-way (a division by zero): statement-level rollback.
        run(fmt::format("insert into b select {}, 1000 / (object_id - 2500), 'x' from all_objects", i),
            /*may_fail=*/true);
      }
    }
    if (failed) break;
    if (rng() % 10 < 7) {
      out.say(fmt::format("P {} {}", i, work.Text()));
      run("commit");
      if (failed) break;
      out.say(fmt::format("C {}", i));
      committed = work;
    } else {
      run("rollback");
    }
  }
}

// The child: opens the database (recovering it) and runs the sessions until
// it is killed.
TEST(TxnCrashChild, Workload) {
  const char* dir = std::getenv(kChildEnv);
  if (dir == nullptr) GTEST_SKIP() << "the crash campaign's child; runs only under TxnCrash";
  std::unique_ptr<io::IoBackend> io = io::MakePosixBackend();
  absl::StatusOr<std::unique_ptr<asmgr::Rack>> rack = asmgr::Rack::Open(io.get(), SystemClock(), dir);
  if (!rack.ok()) return Say(fmt::format("X - rack: {}", std::string(rack.status().message())));
  absl::StatusOr<std::unique_ptr<db::Database>> database = db::Database::Open(rack->get(), Options());
  if (!database.ok()) return Say(fmt::format("X - open: {}", std::string(database.status().message())));
  const uint64_t seed = std::strtoull(std::getenv("CELLSIM_TXN_CRASH_SEED"), nullptr, 10);
  const Reporter out{[](const std::string& line) {
    Say(line);
    if (line[0] == 'X') std::_Exit(3);
  }};
  std::vector<std::thread> threads;
  for (int i = 0; i < kSessions; ++i) {
    threads.emplace_back(SessionLoop, database->get(), i, seed * 100 + static_cast<uint64_t>(i),
                         std::cref(out));
  }
  for (std::thread& t : threads) t.join();
}

// What the sessions were told, from their S / P / C lines: per session the
// last acknowledged state and the commit in flight, if any.
struct Acknowledged {
  std::map<int, SessionState> acked;
  std::map<int, std::optional<SessionState>> pending;
  std::map<int, SessionState> proposed;
  int commits = 0;
  std::vector<std::string> errors;  // X lines

  void Parse(const std::string& line) {
    std::istringstream in(line);
    std::string tag;
    int i = 0;
    in >> tag >> i;
    if (tag == "X") errors.push_back(line);
    if (tag == "C") {
      acked[i] = proposed[i];
      pending[i].reset();
      ++commits;
    }
    if (tag != "S" && tag != "P") return;
    SessionState st;
    in >> st.bulk;
    std::string kv;
    while (in >> kv) {
      st.rows[std::stoll(kv.substr(0, kv.find(':')))] = std::stoll(kv.substr(kv.find(':') + 1));
    }
    if (tag == "S") {
      acked[i] = st;
    } else {
      proposed[i] = st;
      pending[i] = st;
    }
  }
};

// Reopens the database (instance recovery) and checks every session's rows
// against what it was told, and that the GTT is empty. `clean_close` closes
// the database after, else abandons it (a crash of the checker). Returns the
// commits found durable while in flight; counts recoveries in `recovered`.
int64_t Verify(io::IoBackend* io, const std::string& dir, int it, Acknowledged& a, bool clean_close,
               int64_t* recovered) {
  auto rack = asmgr::Rack::Open(io, SystemClock(), dir);
  EXPECT_TRUE(rack.ok()) << rack.status();
  if (!rack.ok()) return 0;
  auto database = db::Database::Open(rack->get(), Options());
  EXPECT_TRUE(database.ok()) << database.status();
  if (!database.ok()) return 0;
  for (const std::string& line : (*database)->recovery_actions()) {
    *recovered += line.rfind("instance recovery: the database was not closed cleanly", 0) == 0;
    std::printf("iteration %d: %s\n", it, line.c_str());
  }
  std::unique_ptr<db::Session> s = (*database)->NewSession();
  int64_t in_flight = 0;
  for (int i = 0; i < kSessions; ++i) {
    std::string error;
    const SessionState got = ReadState(*s, i, &error);
    EXPECT_TRUE(error.empty()) << error;
    const bool is_acked = got.Text() == a.acked[i].Text();
    const bool is_pending = a.pending[i].has_value() && got.Text() == a.pending[i]->Text();
    EXPECT_TRUE(is_acked || is_pending)
        << "iteration " << it << " session " << i << "\n  database:     " << got.Text()
        << "\n  acknowledged: " << a.acked[i].Text()
        << "\n  in flight:    " << (a.pending[i] ? a.pending[i]->Text() : "-");
    in_flight += is_pending && !is_acked;
  }
  // T's and B's indexes agree with the recovered tables: every row found
  // through them, no other entry (ORA-01499 otherwise).
  for (const char* sql : {"analyze table t validate structure cascade",
                          "analyze table b validate structure cascade"}) {
    absl::StatusOr<db::StatementResult> v = s->Execute(sql);
    EXPECT_TRUE(v.ok()) << "iteration " << it << ": " << sql << ": " << v.status();
  }
  absl::StatusOr<db::StatementResult> g = s->Execute("select count(*) from g");
  EXPECT_TRUE(g.ok());
  if (g.ok()) {
    EXPECT_EQ(g->result_rows.at(0).at(0), "0");  // GTT contents are gone
  }
  s.reset();
  if (clean_close) EXPECT_OK((*database)->Close());
  database->reset();
  EXPECT_OK((*rack)->Close());
  return in_flight;
}

// The rack and database of a campaign: tables T and B, the GTT G.
void MakeDatabase(io::IoBackend* io, const std::string& dir) {
  ASSERT_OK_AND_ASSIGN(auto rack, asmgr::Rack::Create(io, SystemClock(), dir,
                                                      db::testing::SmallRack()));
  db::DatabaseOptions o = Options();
  o.standard_files.create = true;
  ASSERT_OK_AND_ASSIGN(auto database, db::Database::Create(rack.get(), o));
  std::unique_ptr<db::Session> s = database->NewSession();
  for (const char* sql : {"create table t (s number, k number, v number)",
                          "create table b (s number, id number, name varchar2(128))",
                          "create global temporary table g (s number) on commit preserve rows",
                          // Indexes on both heap tables (one unique) and the GTT.
                          "create unique index t_sk on t (s, k)", "create index t_v on t (v)",
                          "create index b_id on b (id, s)", "create index g_s on g (s)"}) {
    ASSERT_TRUE(s->Execute(sql).ok()) << sql;
  }
  s.reset();
  ASSERT_OK(database->Close());
  ASSERT_OK(rack->Close());
}

int Iterations(int fallback) {
  const char* env = std::getenv("CELLSIM_TXN_CRASH_ITERATIONS");
  return env != nullptr ? std::atoi(env) : fallback;
}

std::string SelfExe() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
}

TEST(TxnCrash, KilledSessionsLoseNoAcknowledgedCommit) {
  TempDir tmp;
  const std::string dir = tmp.File("rack");
  std::unique_ptr<io::IoBackend> io = io::MakePosixBackend();
  MakeDatabase(io.get(), dir);
  if (::testing::Test::HasFatalFailure()) return;
  // Two kills under TSan still cover both ways the checker closes (below).
  const int iterations = Iterations(BySanitizer(3, 3, 2));
  std::mt19937_64 rng(20261201);
  int64_t verified_commits = 0, in_flight_seen = 0, recovered = 0;
  for (int it = 0; it < iterations; ++it) {
    setenv(kChildEnv, dir.c_str(), 1);
    setenv("CELLSIM_TXN_CRASH_SEED", std::to_string(it + 1).c_str(), 1);
    ChildProcess child({SelfExe(), "--gtest_filter=TxnCrashChild.Workload"}, tmp.File("child.err"));
    unsetenv(kChildEnv);
    ASSERT_TRUE(child.started()) << child.error();
    const int kill_after = 5 + static_cast<int>(rng() % 60);  // acknowledged commits
    Acknowledged a;
    const auto t0 = std::chrono::steady_clock::now();
    while (std::optional<std::string> line = child.ReadLine()) {
      a.Parse(*line);
      if (a.commits >= kill_after) break;
      ASSERT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(120)) << child.Stderr();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(rng() % 20));
    child.Kill();
    while (std::optional<std::string> line = child.ReadLine()) a.Parse(*line);
    child.Wait();
    ASSERT_TRUE(a.errors.empty()) << a.errors[0] << "\n" << child.Stderr();
    ASSERT_EQ(a.acked.size(), static_cast<size_t>(kSessions)) << child.Stderr();
    // Every other iteration the checker itself "crashes" (no Close): the
    // next child's open then recovers a database that recovery made.
    in_flight_seen += Verify(io.get(), dir, it, a, it % 2 == 0, &recovered);
    verified_commits += a.commits;
  }
  std::printf("crash campaign (kill -9): %d iterations, %d kills, %lld acknowledged commits "
              "verified, %lld commits in flight found durable, %lld instance recoveries\n",
              iterations, iterations, static_cast<long long>(verified_commits),
              static_cast<long long>(in_flight_seen), static_cast<long long>(recovered));
  EXPECT_EQ(recovered, iterations);
}

// Power cuts: the same sessions in this process on a FaultInjectionBackend;
// after a random number of writes and syncs every I/O fails (the power is
// gone), every write not synced is undone, and the database reopens on a
// clean backend.
TEST(TxnCrash, PowerCutsLoseNoAcknowledgedCommit) {
  TempDir tmp;
  const std::string dir = tmp.File("rack");
  auto fault = std::make_unique<io::FaultInjectionBackend>(io::MakePosixBackend());
  MakeDatabase(fault.get(), dir);
  if (::testing::Test::HasFatalFailure()) return;
  std::unique_ptr<io::IoBackend> clean = io::MakePosixBackend();
  const int iterations = Iterations(3);
  std::mt19937_64 rng(20261202);
  int64_t verified_commits = 0, in_flight_seen = 0, recovered = 0;
  for (int it = 0; it < iterations; ++it) {
    Acknowledged a;
    std::mutex mu;
    {
      auto rack = asmgr::Rack::Open(fault.get(), SystemClock(), dir);
      ASSERT_TRUE(rack.ok()) << rack.status();
      auto database = db::Database::Open(rack->get(), Options());
      ASSERT_TRUE(database.ok()) << database.status();
      const Reporter out{[&](const std::string& line) {
        std::lock_guard<std::mutex> lock(mu);
        if (line[0] == 'X' && !fault->Crashed()) ADD_FAILURE() << "before the power cut: " << line;
        if (line[0] != 'X') a.Parse(line);
      }};
      // The cut: after 200-3,000 more writes / syncs anywhere in the rack.
      fault->CrashAfter({.ops = io::kOpWrite | io::kOpSync}, 200 + rng() % 2800);
      std::vector<std::thread> threads;
      for (int i = 0; i < kSessions; ++i) {
        threads.emplace_back(SessionLoop, database->get(), i, (it + 1) * 1000 + i, std::cref(out));
      }
      for (std::thread& t : threads) t.join();  // each ends at its first failed statement
      database->reset();  // the power is gone: nothing closes
      rack->reset();
    }
    ASSERT_OK(fault->SimulatePowerLoss());
    fault->ClearFaults();
    ASSERT_EQ(a.acked.size(), static_cast<size_t>(kSessions));
    in_flight_seen += Verify(clean.get(), dir, it, a, /*clean_close=*/true, &recovered);
    verified_commits += a.commits;
  }
  std::printf("crash campaign (power cuts): %d iterations, %d cuts, %lld acknowledged commits "
              "verified, %lld commits in flight found durable, %lld instance recoveries\n",
              iterations, iterations, static_cast<long long>(verified_commits),
              static_cast<long long>(in_flight_seen), static_cast<long long>(recovered));
  EXPECT_EQ(recovered, iterations);
}

}  // namespace
}  // namespace cellsim::faults::testing
