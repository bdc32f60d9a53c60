// The driver against Sqlrun's semantics (../shared/temp-undo.md §4.5), on
// real sessions of a small database: statement order per mode, the commit
// pattern, bind rows, the timer, determinism under the simulated clock, and a
// real-clock run. Sessions are threads (label `concurrent`, run under TSan).
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <thread>

#include "cellsim/asm/rack.h"
#include "cellsim/base/units.h"
#include "cellsim/db/database.h"
#include "cellsim/io/io_backend.h"
#include "cellsim/sim/simulation.h"
#include "cellsim/sqlrun/driver.h"
#include "cellsim/sqlrun/trace.h"
#include "gtest/gtest.h"
#include "testing/test_util.h"

// Sanitizer builds: calls take several times their modeled CPU.
#if defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define CELLSIM_SQLRUN_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define CELLSIM_SQLRUN_SANITIZED 1
#endif

namespace cellsim::sqlrun {
namespace {

using ::cellsim::testing::TempDir;

constexpr char kMerge[] =
    "merge into txcount tx\n  using (select sys_context('userenv','sid') sid from dual ) s\n"
    "  on (s.sid = tx.sid)\nwhen matched then\n  update set tx.txacts = tx.txacts + 1\n"
    "when not matched then\n  insert (sid, txacts)\n  values(sys_context('userenv','sid'),1)";

// A database on a small rack, with a simulated (x3-2, eighth rack) or the real clock.
class TestDb {
 public:
  absl::Status Open(bool simulated, uint64_t all_objects_rows = 300) {
    io_ = io::MakePosixBackend();
    asmgr::RackConfig config = asmgr::DefaultRackConfig();
    config.cells = 3;
    config.cell_disks_per_cell = 2;
    config.disk_groups = {
        {.name = "DATA", .redundancy = asmgr::Redundancy::kNormal, .au_size = 4 * kMiB,
         .grid_disk_size = 512 * kMiB},
        {.name = "RECO", .redundancy = asmgr::Redundancy::kNormal, .au_size = 4 * kMiB,
         .grid_disk_size = 256 * kMiB}};
    config.flash_size = 64 * kMiB;
    Clock* clock = SystemClock();
    asmgr::RackOpenOptions open;
    if (simulated) {
      absl::StatusOr<sim::DeviceProfile> p = sim::LoadProfile("x3-2");
      if (!p.ok()) return p.status();
      absl::StatusOr<sim::RackShape> shape = sim::ShapeFor(*p, "eighth");
      if (!shape.ok()) return shape.status();
      sim::Simulation::Options so;
      so.profile = *p;
      so.shape = *shape;
      sim_ = std::make_unique<sim::Simulation>(so);
      clock = sim_->clock();
      sim::Simulation* s = sim_.get();
      open.wrap = [s](uint32_t i, cell::CellService* c) { return s->WrapCell(i, c); };
    }
    absl::StatusOr<std::unique_ptr<asmgr::Rack>> rack =
        asmgr::Rack::Create(io_.get(), clock, tmp_.path() + "/rack", config, open);
    if (!rack.ok()) return rack.status();
    rack_ = std::move(*rack);
    db::DatabaseOptions o;
    o.standard_files.create = true;
    o.standard_files.log_bytes = 8 * kMiB;
    o.all_objects_rows = all_objects_rows;
    absl::StatusOr<std::unique_ptr<db::Database>> db = db::Database::Create(rack_.get(), o);
    if (!db.ok()) return db.status();
    db_ = std::move(*db);
    return absl::OkStatus();
  }
  ~TestDb() {
    if (db_ != nullptr) EXPECT_OK(db_->Close());
    db_.reset();
    if (rack_ != nullptr) EXPECT_OK(rack_->Close());
  }
  db::Database* db() { return db_.get(); }
  absl::Status Sql(const std::string& sql) { return db_->NewSession()->Execute(sql).status(); }
  const std::string& dir() const { return tmp_.path(); }

 private:
  TempDir tmp_;
  std::unique_ptr<io::IoBackend> io_;
  std::unique_ptr<sim::Simulation> sim_;
  std::unique_ptr<asmgr::Rack> rack_;
  std::unique_ptr<db::Database> db_;
};

SqlEntry Entry(std::string file, std::string text, int frequency = 1) {
  SqlEntry e;
  e.file = std::move(file);
  e.frequency = frequency;
  e.text = std::move(text);
  e.type = ClassifySql(e.text);
  return e;
}

// The seed's SQL directory, as sqlrun.sh runs it (10 sessions there).
SqlDir SeedDir() {
  SqlDir d;
  d.delimiter = ",";
  d.entries = {Entry("temp-insert.sql", "insert into sqlrun_gtt select * from all_objects"),
               Entry("temp-update.sql", "update sqlrun_gtt set object_id = object_id + 1"),
               Entry("txcount-update.sql", kMerge)};
  return d;
}

absl::Status CreateSeedSchema(TestDb& t) {
  if (absl::Status s = t.Sql("create global temporary table sqlrun_gtt on commit delete rows as "
                             "select * from all_objects where 1=0");
      !s.ok()) {
    return s;
  }
  return t.Sql("create table txcount ( sid number, txacts number)");
}

RunOptions SeedOptions(int sessions, int runtime_s) {
  RunOptions o;
  o.exe_mode = ExeMode::kSequential;
  o.connect_mode = ConnectMode::kFlood;
  o.tx_behavior = TxBehavior::kCommit;
  o.max_sessions = sessions;
  o.exe_delay_s = 0.25;
  o.runtime_s = runtime_s;
  o.record_events = true;
  return o;
}

std::vector<Event> OfSession(const std::vector<Event>& all, uint32_t s) {
  std::vector<Event> out;
  for (const Event& e : all) {
    if (e.session == s) out.push_back(e);
  }
  return out;
}

TEST(DriverTest, SequentialStartsAtIndexOneAndEveryDmlIsItsOwnTransaction) {
  TestDb t;
  ASSERT_OK(t.Open(true));
  ASSERT_OK(CreateSeedSchema(t));
  // The run starts at this thread's modeled time (WarmUp does not move it).
  const uint64_t start_ns = t.db()->rack()->clock()->NowNanos();
  ASSERT_OK_AND_ASSIGN(RunResult r, RunSqlDir(t.db(), SeedDir(), SeedOptions(2, 5)));
  using K = Event::Kind;
  for (uint32_t s = 1; s <= 2; ++s) {
    const std::vector<Event> ev = OfSession(r.events, s);
    ASSERT_GE(ev.size(), 8u);
    // index 1 (update), 2 (merge), 0 (insert), 1, ...: each DML then its commit.
    const std::vector<std::pair<std::string, K>> want = {
        {"temp-update.sql", K::kExecute}, {"temp-update.sql", K::kCommit},
        {"txcount-update.sql", K::kExecute}, {"txcount-update.sql", K::kCommit},
        {"temp-insert.sql", K::kExecute}, {"temp-insert.sql", K::kCommit},
        {"temp-update.sql", K::kExecute}, {"temp-update.sql", K::kCommit}};
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_EQ(ev[i].sql_file, want[i].first) << "session " << s << " event " << i;
      EXPECT_EQ(ev[i].kind, want[i].second) << "session " << s << " event " << i;
    }
    const SessionSummary& sum = r.sessions[s - 1];
    EXPECT_EQ(sum.commits, sum.executions);
    EXPECT_EQ(sum.error, "");
  }
  // The tally is the MERGE count.
  int64_t merges = 0;
  for (const Event& e : r.events) merges += e.sql_file == "txcount-update.sql" && e.kind == K::kExecute;
  EXPECT_EQ(r.final_sample.tally, merges);
  // The timer: whole seconds of Unix time (the simulated clock's are whole
  // seconds plus its modeled time), so 5 s less the start's fraction of a
  // second; checked between statements, so the last ones end after it.
  EXPECT_NEAR(r.timer_s, 5.0 - static_cast<double>(start_ns % 1'000'000'000) / 1e9, 1e-9);
  EXPECT_GT(r.elapsed_s, r.timer_s);
  EXPECT_LT(r.elapsed_s, 6.0);
  for (const Event& e : r.events) {
    if (e.kind == K::kExecute) {
      EXPECT_LT(static_cast<double>(e.time_ns) / 1e9, r.timer_s);
    }
  }
}

TEST(DriverTest, TxPerTransactionCommitsEveryNPlusOnethDmlAndRollbackRollsBack) {
  TestDb t;
  ASSERT_OK(t.Open(true));
  ASSERT_OK(t.Sql("create table t (x number)"));
  SqlDir d;
  d.entries = {Entry("ins.sql", "insert into t values (1)"), Entry("sel.sql", "select x from t")};
  RunOptions o = SeedOptions(1, 3);
  o.tx_per_transaction = 2;
  o.tx_behavior = TxBehavior::kRollback;
  o.exe_delay_s = 0.05;
  ASSERT_OK_AND_ASSIGN(RunResult r, RunSqlDir(t.db(), d, o));
  int dml_since = 0;
  int rollbacks = 0;
  for (const Event& e : r.events) {
    ASSERT_NE(e.kind, Event::Kind::kCommit);
    if (e.kind == Event::Kind::kExecute && e.sql_file == "ins.sql") ++dml_since;
    if (e.kind == Event::Kind::kRollback) {
      EXPECT_EQ(dml_since, 3);  // after every third DML; the SELECT never ends one
      dml_since = 0;
      ++rollbacks;
    }
  }
  EXPECT_GT(rollbacks, 5);
  EXPECT_EQ(r.sessions[0].rollbacks, rollbacks);
  // Everything was rolled back: at most the last, unfinished transaction's rows were
  // ever visible, and the disconnect rolled those back too.
  std::unique_ptr<db::Session> s = t.db()->NewSession();
  ASSERT_OK_AND_ASSIGN(db::StatementResult rows, s->Execute("select x from t"));
  EXPECT_EQ(rows.result_rows.size(), 0u);
}

// A PL/SQL file runs in the engine; as in Sqlrun, the driver never commits
// after it (its own COMMIT does), and a SELECT never ends a transaction.
TEST(DriverTest, PlsqlBlocksRunAndAreNeverCommittedByTheDriver) {
  TestDb t;
  ASSERT_OK(t.Open(true));
  ASSERT_OK(t.Sql("create table t (x number)"));
  SqlDir d;
  d.entries = {Entry("fill.sql", "begin\n  for i in 1..3 loop insert into t values (i); end loop;\n"
                                 "  commit;\nend;"),
               Entry("undone.sql", "begin insert into t values (-1); end;")};
  ASSERT_EQ(d.entries[0].type, SqlType::kPlsql);
  RunOptions o = SeedOptions(1, 2);
  o.exe_delay_s = 0.2;
  ASSERT_OK_AND_ASSIGN(RunResult r, RunSqlDir(t.db(), d, o));
  int fills = 0;
  for (const Event& e : r.events) {
    EXPECT_NE(e.kind, Event::Kind::kCommit) << e.sql_file;
    fills += e.kind == Event::Kind::kExecute && e.sql_file == "fill.sql";
  }
  EXPECT_GT(fills, 0);
  EXPECT_EQ(r.sessions[0].error, "");
  std::unique_ptr<db::Session> s = t.db()->NewSession();
  ASSERT_OK_AND_ASSIGN(db::StatementResult rows, s->Execute("select count(*) from t where x > 0"));
  EXPECT_EQ(rows.result_rows[0][0], std::to_string(3 * fills));
  // The last block's uncommitted insert went with the session: only one
  // may have been committed by a later fill.sql's COMMIT.
  ASSERT_OK_AND_ASSIGN(rows, s->Execute("select count(*) from t where x < 0"));
  EXPECT_LE(std::stoi(rows.result_rows[0][0]), fills);
}

TEST(DriverTest, SemiRandomHonoursFrequenciesAndBindsSkipTheLastRow) {
  TestDb t;
  ASSERT_OK(t.Open(true));
  SqlDir d;
  d.entries = {Entry("a.sql", "select 1 from dual", 1), Entry("b.sql", "select ? from dual", 3)};
  d.entries[1].bind_rows = {{"10"}, {"11"}, {"12"}, {"13"}};
  RunOptions o = SeedOptions(2, 30);
  o.exe_mode = ExeMode::kSemiRandom;
  o.exe_delay_s = 0.01;
  ASSERT_OK_AND_ASSIGN(RunResult r, RunSqlDir(t.db(), d, o));
  std::map<std::string, int> n;
  std::vector<int> b_rows;
  for (const Event& e : r.events) {
    ++n[e.sql_file];
    if (e.sql_file == "b.sql" && e.session == 1) b_rows.push_back(e.bind_row);
  }
  const double share = static_cast<double>(n["b.sql"]) / (n["a.sql"] + n["b.sql"]);
  EXPECT_GT(n["a.sql"] + n["b.sql"], 2000);
  EXPECT_NEAR(share, 0.75, 0.03);
  ASSERT_GE(b_rows.size(), 4u);
  EXPECT_EQ(std::vector<int>(b_rows.begin(), b_rows.begin() + 4), (std::vector<int>{0, 1, 2, 0}));
  for (int b : b_rows) EXPECT_NE(b, 3);  // the last bind row is never used
  EXPECT_EQ(r.sessions[0].commits, 0);   // SELECTs never end a transaction
}

// Truly random: every statement equally often, whatever its frequency.
TEST(DriverTest, TrulyRandomIgnoresFrequencies) {
  TestDb t;
  ASSERT_OK(t.Open(true));
  SqlDir d;
  d.entries = {Entry("a.sql", "select 1 from dual", 1), Entry("b.sql", "select 2 from dual", 3)};
  RunOptions o = SeedOptions(2, 30);
  o.exe_mode = ExeMode::kTrulyRandom;
  o.exe_delay_s = 0.01;
  ASSERT_OK_AND_ASSIGN(RunResult r, RunSqlDir(t.db(), d, o));
  std::map<std::string, int> n;
  for (const Event& e : r.events) ++n[e.sql_file];
  EXPECT_GT(n["a.sql"] + n["b.sql"], 2000);
  EXPECT_NEAR(static_cast<double>(n["b.sql"]) / (n["a.sql"] + n["b.sql"]), 0.5, 0.04);
}

TEST(DriverTest, BindArraySizeKeepsThatManyUsableRows) {
  TestDb t;
  ASSERT_OK(t.Open(true));
  SqlDir d;
  d.entries = {Entry("b.sql", "select ? from dual")};
  d.entries[0].bind_rows = {{"1"}, {"2"}, {"3"}, {"4"}, {"5"}, {"6"}};
  RunOptions o = SeedOptions(1, 2);
  o.bind_array_size = 2;
  o.exe_delay_s = 0.1;
  ASSERT_OK_AND_ASSIGN(RunResult r, RunSqlDir(t.db(), d, o));
  std::vector<int> rows;
  for (const Event& e : r.events) rows.push_back(e.bind_row);
  ASSERT_GE(rows.size(), 5u);
  EXPECT_EQ(std::vector<int>(rows.begin(), rows.begin() + 5), (std::vector<int>{0, 1, 0, 1, 0}));
}

TEST(DriverTest, TrickleStartsSessionsConnectDelayApart) {
  TestDb t;
  ASSERT_OK(t.Open(true));
  SqlDir d;
  d.entries = {Entry("a.sql", "select 1 from dual")};
  RunOptions o = SeedOptions(3, 4);
  o.connect_mode = ConnectMode::kTrickle;
  o.connect_delay_s = 1.0;
  ASSERT_OK_AND_ASSIGN(RunResult r, RunSqlDir(t.db(), d, o));
  for (uint32_t s = 1; s <= 3; ++s) {
    const std::vector<Event> ev = OfSession(r.events, s);
    ASSERT_FALSE(ev.empty());
    EXPECT_GE(ev[0].time_ns, (s - 1) * 1'000'000'000ull);
    EXPECT_LT(ev[0].time_ns, (s - 1) * 1'000'000'000ull + 100'000'000ull);
  }
}

struct SeedFigures {
  int64_t redo = 0, undo = 0, tally = 0, transactions = 0, executions = 0;
  size_t events = 0;
  double elapsed = 0;
  bool operator==(const SeedFigures&) const = default;
};

SeedFigures RunSeedOnce(bool temp_undo, int sessions, int runtime_s) {
  TestDb t;
  EXPECT_OK(t.Open(true, 500));
  EXPECT_OK(CreateSeedSchema(t));
  if (temp_undo) EXPECT_OK(t.Sql("alter system set temp_undo_enabled = TRUE scope=both"));
  absl::StatusOr<RunResult> r = RunSqlDir(t.db(), SeedDir(), SeedOptions(sessions, runtime_s));
  EXPECT_OK(r);
  if (!r.ok()) return {};
  return SeedFigures{r->final_sample.redo_size, r->final_sample.undo_change_vector_size,
                     r->final_sample.tally, r->final_sample.transactions,
                     r->final_sample.executions, r->events.size(), r->elapsed_s};
}

TEST(DriverTest, SimulatedRunsAreDeterministicAndTempUndoSavesRedo) {
  const SeedFigures a = RunSeedOnce(false, 3, 8);
  const SeedFigures b = RunSeedOnce(false, 3, 8);
  EXPECT_EQ(a, b);
  EXPECT_GT(a.tally, 3 * 5);
  const SeedFigures on = RunSeedOnce(true, 3, 8);
  EXPECT_LT(on.redo * 3, a.redo);  // 500-row inserts: the fixed per-transaction redo weighs more
  EXPECT_GE(on.tally, a.tally);
}

TEST(DriverTest, RealClockRunsInWallTime) {
  TestDb t;
  ASSERT_OK(t.Open(false));
  ASSERT_OK(CreateSeedSchema(t));
  RunOptions o = SeedOptions(3, 2);
  o.sample_interval_s = 0.5;
  int samples = 0;
  o.on_sample = [&samples](const Sample&) { ++samples; };
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_OK_AND_ASSIGN(RunResult r, RunSqlDir(t.db(), SeedDir(), o));
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_FALSE(r.simulated);
  EXPECT_GE(wall, 1.0);  // the timer has whole-second granularity
  EXPECT_LT(wall, 6.0);
  EXPECT_GE(samples, 2);
  EXPECT_GT(r.final_sample.tally, 0);
  for (const SessionSummary& s : r.sessions) EXPECT_EQ(s.error, "");
}

// Sets TMPDIR to /dev/shm (when writable) for its scope: the rack's log
// writes on this machine's disk take far longer than the X3-2 model's (the
// lab keeps its racks there too).
class ScopedShmTmpdir {
 public:
  ScopedShmTmpdir() {
    if (const char* v = std::getenv("TMPDIR")) saved_ = v;
    if (access("/dev/shm", W_OK) == 0) setenv("TMPDIR", "/dev/shm", 1);
  }
  ~ScopedShmTmpdir() {
    if (saved_.has_value()) {
      setenv("TMPDIR", saved_->c_str(), 1);
    } else {
      unsetenv("TMPDIR");
    }
  }
  ScopedShmTmpdir(const ScopedShmTmpdir&) = delete;
  ScopedShmTmpdir& operator=(const ScopedShmTmpdir&) = delete;

 private:
  std::optional<std::string> saved_;
};

// Both clocks model the same database: under the real clock a call lasts its
// CostModel CPU or its real time, whichever is longer, so the seed's cycles
// come at the simulated rate (40,000-row inserts: a modeled ~250 ms each, far
// more than this engine takes, against 3 x 50 ms of sleep per cycle; without
// the modeled CPU the real rate would be ~1.6x), and the database's one-time
// work (Database::WarmUp) is done before the timer starts. The whole runs
// compare: the statements the real run started (each before its timer ran
// out) against those the simulated run started in the same window (the real
// timer's: 5 s less the start's fraction of a second; the simulated run is
// given a second more so that it covers the window). Noise bound +-8 %:
// measured 0 to -2.9 % at load 7-8 on 2 cores (debug build, two copies of
// the test at once); the real clock lags where the machine's load stretches
// its sleeps and calls. Without the warm-up it was -4.7 to -7.6 %; without
// the modeled CPU it would be ~+60 %.
TEST(DriverTest, RealClockMatchesTheSimulatedRun) {
#ifdef CELLSIM_SQLRUN_SANITIZED
  GTEST_SKIP() << "a sanitizer build's calls take longer than the modeled CPU (a 40,000-row "
                  "insert takes seconds under TSan), so the real clock cannot keep the modeled rate";
#endif
  auto run = [](bool simulated, int runtime_s) -> absl::StatusOr<RunResult> {
    ScopedShmTmpdir shm;
    TestDb t;
    if (absl::Status s = t.Open(simulated, 40000); !s.ok()) return s;
    if (absl::Status s = CreateSeedSchema(t); !s.ok()) return s;
    RunOptions o = SeedOptions(3, runtime_s);
    o.exe_delay_s = 0.05;
    // Sessions a third of a cycle apart: the statements start evenly, not
    // in rounds of three, so a small lag costs a statement, not a round.
    o.connect_mode = ConnectMode::kTrickle;
    o.connect_delay_s = 0.135;
    return RunSqlDir(t.db(), SeedDir(), o);
  };
  ASSERT_OK_AND_ASSIGN(RunResult real, run(false, 5));
  ASSERT_OK_AND_ASSIGN(RunResult simulated, run(true, 6));
  EXPECT_GT(real.timer_s, 4.0);
  EXPECT_LE(real.timer_s, 5.0);
  const auto window_ns = static_cast<uint64_t>(real.timer_s * 1e9);
  int64_t expected = 0;
  for (const Event& e : simulated.events) {
    if (e.kind == Event::Kind::kExecute && e.time_ns < window_ns) ++expected;
  }
  ASSERT_LT(expected, simulated.final_sample.executions);  // the simulated run covers the window
  const int64_t got = real.final_sample.executions;
  std::printf("statements in the real timer's %.2f s: simulated %lld, real %lld (%+.1f %%)\n",
              real.timer_s, static_cast<long long>(expected), static_cast<long long>(got),
              100.0 * static_cast<double>(got - expected) / static_cast<double>(expected));
  EXPECT_GE(static_cast<double>(got), 0.92 * static_cast<double>(expected));
  EXPECT_LE(static_cast<double>(got), 1.08 * static_cast<double>(expected));
  for (const SessionSummary& s : real.sessions) EXPECT_EQ(s.error, "");
}

TEST(DriverTest, TraceFilesPerSessionReadBackByTkprof) {
  TestDb t;
  ASSERT_OK(t.Open(true));
  ASSERT_OK(CreateSeedSchema(t));
  RunOptions o = SeedOptions(2, 3);
  o.trace_dir = t.dir();
  ASSERT_OK_AND_ASSIGN(RunResult r, RunSqlDir(t.db(), SeedDir(), o));
  std::vector<std::string> texts;
  for (const SessionSummary& s : r.sessions) {
    ASSERT_TRUE(std::filesystem::exists(s.trace_file)) << s.trace_file;
    texts.push_back(::cellsim::testing::ReadFileText(s.trace_file));
  }
  ASSERT_OK_AND_ASSIGN(std::vector<report::TkprofStatement> st, ParseTrace(texts));
  int64_t merges = 0;
  for (const report::TkprofStatement& s : st) {
    if (s.sql_text.rfind("merge", 0) == 0) merges = s.execute.count;
  }
  EXPECT_EQ(merges, r.final_sample.tally);
}

// Sessions changing the same rows: the engine refuses a row another open
// transaction holds (ORA-00054); the driver waits as Oracle's session would
// (its turn again, until the holder commits), so every update lands, none is
// lost or fails; a cycle of waits is ORA-00060 for one session, the run
// goes on.
// Two rows every session updates (table HOT, ids 1 and 2): one.sql and
// two.sql, one statement each, in transactions of two (each holds its rows
// across two calls), 1 ms apart.
absl::Status CreateHotRows(TestDb& t, SqlDir* d, RunOptions* o) {
  // (t.Sql runs each statement in a session of its own: CTAS commits.)
  if (absl::Status s = t.Sql("create table hot as select level id, 0 x from dual connect by level <= 2");
      !s.ok()) {
    return s;
  }
  d->entries = {Entry("one.sql", "update hot set x = x + 1 where id = 1"),
                Entry("two.sql", "update hot set x = x + 1 where id = 2")};
  o->exe_delay_s = 0.001;
  o->tx_per_transaction = 1;
  return absl::OkStatus();
}

// The run's commits, every session expected to end without an error.
int64_t CommitsWithoutErrors(const RunResult& r) {
  int64_t commits = 0;
  for (const SessionSummary& s : r.sessions) {
    EXPECT_EQ(s.error, "") << "session " << s.sid;
    commits += s.commits;
  }
  return commits;
}

// How many sessions stopped on an error, each expected to hold `error`.
int SessionsStoppedWith(const RunResult& r, const std::string& error) {
  int stopped = 0;
  for (const SessionSummary& s : r.sessions) {
    if (s.error.empty()) continue;
    EXPECT_NE(s.error.find(error), std::string::npos) << s.error;
    ++stopped;
  }
  return stopped;
}

TEST(DriverTest, SessionsWaitForEachOthersRowLocks) {
  TestDb t;
  ASSERT_OK(t.Open(true));
  SqlDir d;
  RunOptions o = SeedOptions(4, 3);
  ASSERT_OK(CreateHotRows(t, &d, &o));
  o.trace_dir = t.dir();
  const stats::WaitValue enq0 = t.db()->SystemWaits()[stats::Wait::kEnqTxRowLockContention];
  ASSERT_OK_AND_ASSIGN(RunResult r, RunSqlDir(t.db(), d, o));
  // Each wait is Oracle's enq: TX - row lock contention: in the system's
  // waits and in the traces, inside the call that got the lock.
  const stats::WaitValue enq = t.db()->SystemWaits()[stats::Wait::kEnqTxRowLockContention];
  EXPECT_GT(enq.count - enq0.count, 10);
  EXPECT_GE(enq.total_ns - enq0.total_ns, static_cast<uint64_t>(enq.count - enq0.count) * 1'000'000);
  int64_t traced = 0;
  for (const SessionSummary& ss : r.sessions) {
    std::ifstream in(ss.trace_file);
    std::string waiting;  // "EXEC #n:" the last enq wait's call is to write
    for (std::string line; std::getline(in, line);) {
      if (line.find("nam='enq: TX - row lock contention'") != std::string::npos) {
        ++traced;
        EXPECT_NE(line.find("name|mode=1415053318 usn<<16 | slot="), std::string::npos) << line;
        waiting = "EXEC " + line.substr(5, line.find(':') - 5) + ":";
      } else if (!waiting.empty() && line.rfind("WAIT ", 0) != 0) {
        // The waits come before their call's line, as in Oracle's traces.
        EXPECT_EQ(line.rfind(waiting, 0), 0u) << line;
        waiting.clear();
      }
    }
  }
  EXPECT_GT(traced, 0);
  EXPECT_LE(traced, enq.count - enq0.count);
  o.trace_dir.clear();
  // Committed updates: those before each session's last commit (the
  // session's end rolls back the rest).
  int64_t updates = 0;
  for (uint32_t i = 1; i <= 4; ++i) {
    int64_t pending = 0;
    for (const Event& e : OfSession(r.events, i)) {
      if (e.kind == Event::Kind::kExecute) ++pending;
      if (e.kind == Event::Kind::kCommit) {
        updates += pending;
        pending = 0;
      }
    }
  }
  for (const SessionSummary& s : r.sessions) EXPECT_EQ(s.error, "") << "session " << s.sid;
  std::unique_ptr<db::Session> s = t.db()->NewSession();
  ASSERT_OK_AND_ASSIGN(db::StatementResult sum, s->Execute("select sum(x) from hot"));
  EXPECT_EQ(sum.result_rows.at(0).at(0), std::to_string(updates));
  EXPECT_GT(updates, 100);
  // Opposite orders (semi-random picks per session) with transactions of two
  // updates: deadlocks; each is one session's ORA-00060, and the run ends.
  o.exe_mode = ExeMode::kSemiRandom;
  o.runtime_s = 5;
  ASSERT_OK_AND_ASSIGN(r, RunSqlDir(t.db(), d, o));
  EXPECT_GT(SessionsStoppedWith(r, "ORA-00060: deadlock detected"), 0);
  // A holder outside the run never lets go: the waits end with the run,
  // each session's error the ORA-00054 (not a run that never ends).
  std::unique_ptr<db::Session> outside = t.db()->NewSession();
  ASSERT_OK(outside->Execute("update hot set x = x where id in (1, 2)").status());
  o.runtime_s = 1;
  ASSERT_OK_AND_ASSIGN(r, RunSqlDir(t.db(), d, o));
  for (const SessionSummary& ss : r.sessions) {
    EXPECT_NE(ss.error.find("ORA-00054"), std::string::npos) << ss.error;
  }
  // FOR UPDATE WAIT n waits n seconds, then ORA-30006, the run's time
  // notwithstanding; NOWAIT does not wait.
  d.entries = {Entry("wait.sql", "select x from hot where id = 1 for update wait 1")};
  o.runtime_s = 5;
  ASSERT_OK_AND_ASSIGN(r, RunSqlDir(t.db(), d, o));
  for (const SessionSummary& ss : r.sessions) {
    EXPECT_NE(ss.error.find("ORA-30006: resource busy; acquire with WAIT timeout expired (waited 1."),
              std::string::npos)
        << ss.error;
  }
  EXPECT_LT(r.elapsed_s, 2.5);
  d.entries = {Entry("nowait.sql", "select x from hot where id = 1 for update nowait")};
  ASSERT_OK_AND_ASSIGN(r, RunSqlDir(t.db(), d, o));
  for (const SessionSummary& ss : r.sessions) {
    EXPECT_NE(ss.error.find("ORA-00054: resource busy and acquire with NOWAIT"), std::string::npos)
        << ss.error;
  }
  EXPECT_LT(r.elapsed_s, 1.5);
}

// The OLTP pattern: lock the row (SELECT ... FOR UPDATE), change it, commit.
// Sessions wait on the FOR UPDATE (enq: TX) and none loses an update.
TEST(DriverTest, SelectForUpdateThenUpdateLosesNoUpdate) {
  TestDb t;
  ASSERT_OK(t.Open(true));
  SqlDir d;
  RunOptions o = SeedOptions(4, 3);
  ASSERT_OK(CreateHotRows(t, &d, &o));
  d.entries = {Entry("lock.sql", "select x from hot where id = 1 for update"),
               Entry("change.sql", "update hot set x = x + 1 where id = 1")};
  o.tx_per_transaction = 0;  // COMMIT after each UPDATE (a query is no DML)
  o.tx_behavior = TxBehavior::kCommit;
  const int64_t enq0 = t.db()->SystemWaits()[stats::Wait::kEnqTxRowLockContention].count;
  ASSERT_OK_AND_ASSIGN(RunResult r, RunSqlDir(t.db(), d, o));
  const int64_t commits = CommitsWithoutErrors(r);
  EXPECT_GT(commits, 100);
  EXPECT_GT(t.db()->SystemWaits()[stats::Wait::kEnqTxRowLockContention].count, enq0);
  std::unique_ptr<db::Session> s = t.db()->NewSession();
  ASSERT_OK_AND_ASSIGN(db::StatementResult x, s->Execute("select x from hot where id = 1"));
  EXPECT_EQ(x.result_rows.at(0).at(0), std::to_string(commits));
}

// Under the simulated clock a PL/SQL block that finds a row locked (here by
// another session's UPDATE, which the driver commits with the session's
// next DML) is undone whole, its call-level rollback, and the driver waits
// and runs it again, as it does a statement: no update lost, no session
// stopped. A block that committed part of its work before the locked row
// stops its session instead: a second run would do that part twice.
TEST(DriverTest, PlsqlBlocksWaitForRowLocksUnderTheSimulatedClock) {
  TestDb t;
  ASSERT_OK(t.Open(true));
  SqlDir d;
  RunOptions o = SeedOptions(3, 2);
  ASSERT_OK(CreateHotRows(t, &d, &o));
  d.entries = {Entry("one.sql", "update hot set x = x + 1 where id = 1"),
               Entry("block.sql", "begin update hot set x = x + 1 where id = 1; "
                                  "dbms_session.sleep(0.001); commit; end;")};
  const int64_t enq0 = t.db()->SystemWaits()[stats::Wait::kEnqTxRowLockContention].count;
  ASSERT_OK_AND_ASSIGN(RunResult r, RunSqlDir(t.db(), d, o));
  int64_t runs = 0, blocks = 0;
  for (const Event& e : r.events) {
    runs += e.kind == Event::Kind::kExecute;
    blocks += e.kind == Event::Kind::kExecute && e.sql_file == "block.sql";
  }
  for (const SessionSummary& s : r.sessions) EXPECT_EQ(s.error, "") << "session " << s.sid;
  EXPECT_GT(blocks, 10);
  EXPECT_GT(t.db()->SystemWaits()[stats::Wait::kEnqTxRowLockContention].count, enq0);
  // Every run's update is there but a session's last UPDATE, which its end
  // rolled back when no DML committed it.
  std::unique_ptr<db::Session> s = t.db()->NewSession();
  ASSERT_OK_AND_ASSIGN(db::StatementResult x, s->Execute("select x from hot where id = 1"));
  EXPECT_LE(std::stoll(x.result_rows.at(0).at(0)), runs);
  EXPECT_GE(std::stoll(x.result_rows.at(0).at(0)), runs - 3);
  d.entries[1] = Entry("half.sql", "begin update hot set x = x + 1 where id = 2; commit; "
                                   "update hot set x = x + 1 where id = 1; commit; end;");
  ASSERT_OK_AND_ASSIGN(r, RunSqlDir(t.db(), d, o));
  EXPECT_GT(SessionsStoppedWith(r, "ORA-00054"), 0);
}

// Under the real clock the sessions run at once: a session that has just
// got its row still shows, for an instant, as waiting for the session it
// waited for, and a holder that ended its transaction may already wait for
// another. Such a wait seen once is no deadlock; every session of a run whose
// transactions take the rows in one order ends without ORA-00060 (before the
// driver asked a cycle to be found again, try after try, 2 s runs of 4
// sessions lost one or two sessions to a false ORA-00060 each time).
TEST(DriverTest, RealClockSessionsFindNoDeadlockWhereThereIsNone) {
  TestDb t;
  ASSERT_OK(t.Open(false));
  SqlDir d;
  RunOptions o = SeedOptions(4, 2);
  ASSERT_OK(CreateHotRows(t, &d, &o));
  o.tx_behavior = TxBehavior::kCommit;
  int64_t commits = 0;
  for (int run = 0; run < 2; ++run) {
    ASSERT_OK_AND_ASSIGN(RunResult r, RunSqlDir(t.db(), d, o));
    commits += CommitsWithoutErrors(r);
  }
  EXPECT_GT(commits, 50);
  // Every committed update is in the table, none lost: two per commit (the
  // sessions' ends roll back the rest).
  std::unique_ptr<db::Session> s = t.db()->NewSession();
  ASSERT_OK_AND_ASSIGN(db::StatementResult sum, s->Execute("select sum(x) from hot"));
  EXPECT_EQ(sum.result_rows.at(0).at(0), std::to_string(2 * commits));
}

// Under the real clock a session waits in the engine, as Oracle's: one enq:
// TX wait for a holder's transaction however long it lasts, ended by its
// commit (the driver's polls, 1-8 ms each, recorded a dozen for this one).
TEST(DriverTest, RealClockSessionsWaitInTheEngineOncePerHolder) {
  TestDb t;
  ASSERT_OK(t.Open(false));
  SqlDir d;
  RunOptions o = SeedOptions(1, 2);  // a window of (1, 2] s: the hold ends inside it
  ASSERT_OK(CreateHotRows(t, &d, &o));
  o.tx_behavior = TxBehavior::kCommit;
  std::unique_ptr<db::Session> outside = t.db()->NewSession();
  ASSERT_OK(outside->Execute("update hot set x = 100 where id = 1").status());
  const stats::WaitValue before = t.db()->SystemWaits()[stats::Wait::kEnqTxRowLockContention];
  std::unique_ptr<db::Session> monitor = t.db()->NewSession();
  std::thread committer([&outside, &monitor] {
    // Once the run's session waits (V$LOCK shows its request), 100 ms more.
    for (int i = 0; i < 2000; ++i) {
      absl::StatusOr<db::StatementResult> r =
          monitor->Execute("select count(*) from v$lock where request > 0");
      if (r.ok() && r->result_rows.at(0).at(0) == "1") break;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    EXPECT_OK(outside->Execute("commit").status());
  });
  ASSERT_OK_AND_ASSIGN(RunResult r, RunSqlDir(t.db(), d, o));
  committer.join();
  const int64_t commits = CommitsWithoutErrors(r);
  EXPECT_GT(commits, 0);
  const stats::WaitValue after = t.db()->SystemWaits()[stats::Wait::kEnqTxRowLockContention];
  EXPECT_EQ(after.count - before.count, 1);
  EXPECT_GE(after.total_ns - before.total_ns, 100'000'000u);
  std::unique_ptr<db::Session> s = t.db()->NewSession();
  ASSERT_OK_AND_ASSIGN(db::StatementResult sum, s->Execute("select sum(x) from hot"));
  EXPECT_EQ(sum.result_rows.at(0).at(0), std::to_string(100 + 2 * commits));  // two updates a commit
}

// Ctrl-C while sessions wait for a row another session holds: the waits
// end with the run, and no session reports the row lock as its error
// (before: "stopped: ... ORA-00054 ... cellsim does not wait").
TEST(DriverTest, CancelEndsRowLockWaitsWithoutAnError) {
  TestDb t;
  ASSERT_OK(t.Open(false));
  SqlDir d;
  RunOptions o = SeedOptions(3, 30);
  ASSERT_OK(CreateHotRows(t, &d, &o));
  std::unique_ptr<db::Session> outside = t.db()->NewSession();
  ASSERT_OK(outside->Execute("update hot set x = x where id = 1").status());
  CancelFlag cancel;
  o.cancel = &cancel;
  std::thread stopper([&cancel] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    cancel.Cancel();
  });
  ASSERT_OK_AND_ASSIGN(RunResult r, RunSqlDir(t.db(), d, o));
  stopper.join();
  EXPECT_LT(r.elapsed_s, 5.0);
  for (const SessionSummary& s : r.sessions) EXPECT_EQ(s.error, "") << "session " << s.sid;
}

TEST(DriverTest, ASessionErrorStopsThatSessionOnly) {
  TestDb t;
  ASSERT_OK(t.Open(true));
  SqlDir d;
  d.entries = {Entry("bad.sql", "insert into no_such_table values (1)")};
  ASSERT_OK_AND_ASSIGN(RunResult r, RunSqlDir(t.db(), d, SeedOptions(2, 2)));
  for (const SessionSummary& s : r.sessions) {
    EXPECT_NE(s.error.find("bad.sql"), std::string::npos) << s.error;
    EXPECT_EQ(s.errors, 1);
  }
  RunOptions bad = SeedOptions(0, 2);
  EXPECT_EQ(RunSqlDir(t.db(), d, bad).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace cellsim::sqlrun
