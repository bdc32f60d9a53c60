// `cellsim sqlrun DIR --sqldir SQL [Sqlrun's options]`: runs an unmodified
// Sqlrun SQL directory (github.com/jkstill/sqlrun) in sessions of the
// database of rack DIR (docs/sqlrun.md), like sqlrun.pl:
//
//   cellsim sqlrun rack --profile x3-2 --rack eighth --exe-mode sequential
//     --connect-mode flood --tx-behavior commit --max-sessions 10 --exe-delay 0.25
//     --runtime 300 --sqldir examples/temp-undo/SQL --monitor 5 --allseg
//
// On a terminal a live line shows sessions, transactions, redo size and undo
// change vector size; --monitor N prints the seed's stats-report every N
// seconds of the run's clock; the end prints a summary (and the allseg
// report with --allseg); --json prints one JSON object instead.
// `cellsim tkprof TRACE...` reads the --trace files back as tkprof does.
// Exit codes: 0, 1 (a session or the rack failed), 2 (bad options or SQL directory).
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cellsim/cli/commands.h"
#include "cellsim/cli/console.h"
#include "cellsim/cli/instance.h"
#include "cellsim/cli/served_commands.h"
#include "cellsim/cli/interrupt.h"
#include "cellsim/cli/rack_env.h"
#include "cellsim/db/statement.h"
#include "cellsim/sqlrun/driver.h"
#include "cellsim/sqlrun/seed_reports.h"
#include "cellsim/sqlrun/trace.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"

namespace cellsim::cli {
namespace {

struct SqlrunArgs {
  std::string dir;
  std::string sqldir;
  std::string driver = "Oracle";
  std::string sqlfile, parmfile;
  std::string exe_mode = "sequential", connect_mode = "flood", tx_behavior = "rollback";
  double connect_delay = 0.25, exe_delay = 0.1;
  int tx_per_transaction = 0, max_sessions = 2, runtime = 60, bind_array_size = 10000;
  std::string schema;
  bool trace = false;
  std::string trace_dir = ".", tracefile_id = "SQLRUN";
  std::string db, username, password;  // accepted for compatibility
  double monitor = 0;
  bool json = false, allseg = false;
  std::vector<std::string> setup;
  uint64_t seed = 1;
  DatabaseFlags database;  // --standard-files, --all-objects-rows
  std::string tally_sql = "select txacts from txcount";
  RackOptions rack;
};

absl::StatusOr<std::string> ReadText(const std::string& path, const std::string& what) {
  std::ifstream in(path);
  if (!in) return absl::InvalidArgumentError(fmt::format("cannot read {}{}: no such file", what, path));
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// --setup scripts, in one session, as SQL*Plus runs them (an error is shown and
// the script goes on, SQL*Plus's default WHENEVER SQLERROR CONTINUE).
absl::Status RunSetup(db::Database* db, const std::vector<std::string>& files,
                      std::ostream& err) {
  std::unique_ptr<db::Session> s = db->NewSession();
  for (const std::string& f : files) {
    absl::StatusOr<std::string> text = ReadText(f, "--setup ");
    if (!text.ok()) return text.status();
    for (const std::string& sql : db::SplitStatements(*text)) {
      absl::StatusOr<db::StatementResult> r = s->Execute(sql);
      if (!r.ok()) {
        err << fmt::format("--setup {}: {}\n  {}\n", f, sql, std::string(r.status().message()));
      }
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<sqlrun::RunOptions> ToRunOptions(const SqlrunArgs& a) {
  sqlrun::RunOptions o;
  absl::StatusOr<sqlrun::ExeMode> exe = sqlrun::ParseExeMode(a.exe_mode);
  if (!exe.ok()) return exe.status();
  absl::StatusOr<sqlrun::ConnectMode> connect = sqlrun::ParseConnectMode(a.connect_mode);
  if (!connect.ok()) return connect.status();
  o.exe_mode = *exe;
  o.connect_mode = *connect;
  o.tx_behavior = sqlrun::ParseTxBehavior(a.tx_behavior);
  o.connect_delay_s = a.connect_delay;
  o.exe_delay_s = a.exe_delay;
  o.tx_per_transaction = a.tx_per_transaction;
  o.max_sessions = a.max_sessions;
  o.runtime_s = a.runtime;
  o.bind_array_size = a.bind_array_size;
  o.schema = a.schema;
  o.seed = a.seed;
  o.trace_id = a.tracefile_id;
  if (a.trace) o.trace_dir = a.trace_dir;
  o.sample_interval_s = a.monitor > 0 ? a.monitor : 5;
  o.tally_sql = a.tally_sql;
  return o;
}

std::string LiveLine(const sqlrun::Sample& s) {
  return fmt::format("\r[{:>6.0f} s] sessions {:>3}  transactions {:>8}  redo size {:>15}  undo change "
                     "vector size {:>15}",
                     s.t_s, s.sessions, s.transactions, s.redo_size, s.undo_change_vector_size);
}

nlohmann::json SampleJson(const sqlrun::Sample& s) {
  return {{"t_s", s.t_s},
          {"sessions", s.sessions},
          {"transactions", s.transactions},
          {"executions", s.executions},
          {"redo_size", s.redo_size},
          {"undo_change_vector_size", s.undo_change_vector_size},
          {"txcount", s.tally}};
}

nlohmann::json ResultJson(const SqlrunArgs& a, const sqlrun::RunResult& r, const std::string& clock,
                          const std::vector<sqlrun::AllsegRow>& allseg, double wall_s) {
  nlohmann::json j = {{"clock", clock},
                      {"simulated", r.simulated},
                      {"max_sessions", a.max_sessions},
                      {"runtime_s", a.runtime},
                      {"exe_mode", a.exe_mode},
                      {"connect_mode", a.connect_mode},
                      {"tx_behavior", a.tx_behavior},
                      {"exe_delay_s", a.exe_delay},
                      {"timer_s", r.timer_s},
                      {"elapsed_s", r.elapsed_s},
                      {"wall_s", wall_s},
                      {"final", SampleJson(r.final_sample)},
                      {"warnings", r.warnings}};
  for (const sqlrun::Sample& s : r.samples) j["samples"].push_back(SampleJson(s));
  for (const sqlrun::SessionSummary& s : r.sessions) {
    j["sessions"].push_back({{"sid", s.sid}, {"executions", s.executions}, {"commits", s.commits},
                             {"rollbacks", s.rollbacks}, {"errors", s.errors},
                             {"redo_size", s.redo_size},
                             {"undo_change_vector_size", s.undo_change_vector_size},
                             {"trace_file", s.trace_file}, {"error", s.error}});
  }
  j["stats_report"] = sqlrun::RenderStatsReport(r.final_sample);
  if (!allseg.empty()) j["allseg_report"] = sqlrun::RenderAllseg(allseg);
  for (const sqlrun::AllsegRow& x : allseg) {
    j["allseg"].push_back({{"begin_unix", x.begin_unix}, {"end_unix", x.end_unix},
                           {"perm_undo_blocks", x.perm_undo_blocks},
                           {"perm_txn_count", x.perm_txn_count},
                           {"temp_txn_count", x.temp_txn_count.value_or(-1)},
                           {"temp_undo_blocks", x.temp_undo_blocks.value_or(-1)}});
  }
  return j;
}

void PrintSummary(const SqlrunArgs& a, const sqlrun::RunResult& r, const std::string& clock,
                  double wall_s, std::ostream& out) {
  int64_t commits = 0, rollbacks = 0, errors = 0;
  for (const sqlrun::SessionSummary& s : r.sessions) {
    commits += s.commits;
    rollbacks += s.rollbacks;
    errors += s.errors;
  }
  out << fmt::format(
      "\nsqlrun: {} sessions, runtime {} s, exe-mode {}, connect-mode {}, tx-behavior {}, "
      "exe-delay {} s\nclock: {}; timer {:.2f} s, run {:.1f} s, wall {:.1f} s\nexecutions {}  commits {}  "
      "rollbacks {}  errors {}\n",
      a.max_sessions, a.runtime, a.exe_mode, a.connect_mode, a.tx_behavior, a.exe_delay, clock,
      r.timer_s, r.elapsed_s, wall_s, r.final_sample.executions, commits, rollbacks, errors);
  out << sqlrun::RenderStatsReport(r.final_sample);
  for (const sqlrun::SessionSummary& s : r.sessions) {
    if (!s.trace_file.empty()) out << fmt::format("trace file: {}\n", s.trace_file);
  }
}

// The options a client sends the instance (RunInInstance): every one of
// `a` but the rack's and the accepted-for-compatibility ones, its paths made
// absolute (they are the client's).
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(SqlrunArgs, sqldir, driver, sqlfile, parmfile,
                                                exe_mode, connect_mode, tx_behavior,
                                                connect_delay, exe_delay, tx_per_transaction,
                                                max_sessions, runtime, bind_array_size, schema,
                                                trace, trace_dir, tracefile_id, monitor, json,
                                                allseg, setup, seed, database, tally_sql)

nlohmann::json ArgsJson(SqlrunArgs a) {
  std::error_code ec;
  const auto abs = [&ec](std::string* p) {
    if (!p->empty()) *p = std::filesystem::absolute(*p, ec).lexically_normal().string();
  };
  for (std::string* p : {&a.sqldir, &a.sqlfile, &a.parmfile, &a.trace_dir}) abs(p);
  for (std::string& f : a.setup) abs(&f);
  return a;
}

// Runs --setup, the workload and the reports on `db` (open), printing on
// `console`; its exit code (0, 1: a session or the rack failed, 2: a
// --setup file cannot be read; 128 + signal when interrupted).
int RunWorkload(db::Database& db, const std::string& clock, const SqlrunArgs& a,
                const sqlrun::SqlDir& dir, sqlrun::RunOptions options, Console& console) {
  if (absl::Status s = RunSetup(&db, a.setup, *console.err); !s.ok()) {
    return ReportFailure(console, "sqlrun", absl::InvalidArgumentError(s.message()));
  }
  options.cancel = console.interrupts->flag();
  const bool live = !a.json && isatty(console.err_fd) == 1;
  options.on_sample = [&a, live, &console](const sqlrun::Sample& s) {
    if (live) *console.err << LiveLine(s) << std::flush;
    if (a.monitor > 0 && !a.json) *console.out << sqlrun::RenderStatsReport(s) << std::flush;
  };
  const auto wall0 = std::chrono::steady_clock::now();
  absl::StatusOr<sqlrun::RunResult> r = sqlrun::RunSqlDir(&db, dir, options);
  const double wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  if (live) *console.err << "\n";
  std::vector<sqlrun::AllsegRow> allseg;
  absl::Status reported = r.status();
  if (r.ok() && a.allseg) {
    std::unique_ptr<db::Session> s = db.NewSession();
    absl::StatusOr<std::vector<sqlrun::AllsegRow>> rows = sqlrun::QueryAllseg(*s);
    reported = rows.status();
    if (rows.ok()) allseg = std::move(*rows);
  }
  int code = 0;
  if (r.ok() && reported.ok()) {
    if (a.json) {
      *console.out << ResultJson(a, *r, clock, allseg, wall_s).dump(2) << "\n";
    } else {
      PrintSummary(a, *r, clock, wall_s, *console.out);
      if (a.allseg) *console.out << sqlrun::RenderAllseg(allseg);
    }
    *console.out << std::flush;
    for (const std::string& w : r->warnings) *console.err << "cellsim sqlrun: warning: " << w << "\n";
    for (const sqlrun::SessionSummary& s : r->sessions) {
      if (s.error.empty()) continue;
      *console.err << fmt::format("cellsim sqlrun: session sid {} stopped: {}\n", s.sid, s.error);
      code = kExitFailure;
    }
    *console.err << std::flush;
  }
  if (!reported.ok()) return ReportFailure(console, "sqlrun", reported);
  if (console.interrupts->flag()->cancelled()) return console.interrupts->ExitCode();
  return code;
}

// Opens the rack and database (or asks the instance serving it), runs
// --setup, the workload and the reports.
void RunSqlrun(const SqlrunArgs& a, CommandContext& ctx) {
  const std::string cmd = "sqlrun";
  absl::StatusOr<sqlrun::RunOptions> options = ToRunOptions(a);
  if (!options.ok()) return Fail(ctx, cmd, std::string(options.status().message()), kExitUsage);
  sqlrun::SqlDirOptions d{.sqldir = a.sqldir, .driver = a.driver, .sqlfile = a.sqlfile, .parmfile = a.parmfile};
  absl::StatusOr<sqlrun::SqlDir> dir = sqlrun::LoadSqlDir(d);
  if (!dir.ok()) return Fail(ctx, cmd, std::string(dir.status().message()), kExitUsage);
  if (std::optional<int> code = RunInInstance(a.dir, a.rack, cmd, ArgsJson(a).dump())) {
    ctx.exit_code = *code;
    return;
  }
  InterruptScope interrupts;
  absl::StatusOr<RackEnv> env = OpenRackEnv(a.dir, a.rack);
  if (!env.ok()) return Fail(ctx, cmd, env.status());
  const db::DatabaseOptions dbo = a.database.Apply(env->io.db_options);
  bool created = false;
  if (absl::Status s = OpenOrCreateDatabase(*env, &created, dbo); !s.ok()) {
    (void)env->Close();
    return Fail(ctx, cmd, s);
  }
  if (!created && a.database.standard_files) WarnStandardFilesTooLate(*env->db, "cellsim sqlrun");
  Console console;
  const int code =
      RunWorkload(*env->db, env->io.ClockDescription(), a, *dir, *options, console);
  const absl::Status closed = env->Close();
  ctx.exit_code = code;
  if (code == 0 && !closed.ok()) Fail(ctx, cmd, closed);
}

struct TkprofArgs {
  std::vector<std::string> files;
};

void RunTkprof(const TkprofArgs& a, CommandContext& ctx) {
  std::vector<std::string> texts;
  for (const std::string& f : a.files) {
    absl::StatusOr<std::string> text = ReadText(f, "");
    if (!text.ok()) return Fail(ctx, "tkprof", std::string(text.status().message()), kExitUsage);
    texts.push_back(std::move(*text));
  }
  absl::StatusOr<std::vector<report::TkprofStatement>> st = sqlrun::ParseTrace(texts);
  if (!st.ok()) return Fail(ctx, "tkprof", std::string(st.status().message()), kExitUsage);
  // As tkprof, an empty report; but say why, a wrong file is the usual cause.
  if (st->empty()) {
    std::cerr << fmt::format("cellsim tkprof: no SQL statement in {} (not a 10046 trace? "
                             "`cellsim sqlrun --trace` writes them)\n",
                             fmt::join(a.files, ", "));
  }
  std::cout << report::RenderTkprof(*st);
}

void AddSqlrunOptions(CLI::App* c, SqlrunArgs* a) {
  c->add_option("--sqldir", a->sqldir, "Sqlrun's SQL directory; files are read from SQLDIR/DRIVER/")->required();
  c->add_option("--driver", a->driver, "DBI driver name (the subdirectory)")->capture_default_str();
  c->add_option("--sqlfile", a->sqlfile, "Default SQLDIR/DRIVER/sqlfile.conf");
  c->add_option("--parmfile", a->parmfile, "Default SQLDIR/DRIVER/parameters.conf");
  c->add_option("--exe-mode", a->exe_mode, "sequential, semi-random or truly-random")->capture_default_str();
  c->add_option("--connect-mode", a->connect_mode, "flood, trickle or tsunami")->capture_default_str();
  c->add_option("--connect-delay", a->connect_delay, "Seconds between session starts (trickle)")->capture_default_str();
  c->add_option("--tx-behavior", a->tx_behavior, "rollback or commit (anything else: commit)")->capture_default_str();
  c->add_option("--tx-per-transaction", a->tx_per_transaction, "Commit/rollback after every N+1 DML")->capture_default_str();
  c->add_option("--max-sessions", a->max_sessions, "Sessions")->capture_default_str();
  c->add_option("--exe-delay", a->exe_delay, "Seconds slept after every statement")->capture_default_str();
  c->add_option("--runtime", a->runtime, "Seconds the sessions run")->capture_default_str();
  c->add_option("--bind-array-size", a->bind_array_size, "Usable bind rows per statement")->capture_default_str();
  c->add_option("--schema", a->schema, "alter session set current_schema");
  c->add_flag("--trace", a->trace, "Write a 10046-style trace per session (read it with `cellsim tkprof`)");
  c->add_option("--trace-dir", a->trace_dir, "Where the trace files go")->capture_default_str();
  c->add_option("--tracefile-id", a->tracefile_id, "tracefile_identifier")->capture_default_str();
  c->add_option("--db", a->db, "Accepted for compatibility (the database is the rack's)");
  c->add_option("--username", a->username, "Accepted for compatibility");
  c->add_option("--password", a->password, "Accepted for compatibility");
  c->add_option("--monitor", a->monitor, "Print the seed's stats-report every N seconds of the run's clock");
  c->add_flag("--json", a->json, "Print one JSON object (samples, sessions, allseg) instead of text");
  c->add_flag("--allseg", a->allseg, "Print the seed's allseg report (V$UNDOSTAT joined to V$TEMPUNDOSTAT) at the end");
  c->add_option("--setup", a->setup, "SQL script run in one session before the workload (repeatable)");
  c->add_option("--seed", a->seed, "Random modes: session i draws from seed + i")->capture_default_str();
  c->add_option("--tally-sql", a->tally_sql, "The monitor's TXCOUNT query (summed; the seed's sum(txacts))")
      ->capture_default_str();
  AddDatabaseFlags(c, &a->database);
}

}  // namespace

int ServeSqlrun(lab::RackEnv& env, const std::string& request, pid_t client_pid,
                Console& console) {
  const nlohmann::json j = nlohmann::json::parse(request, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) {
    return ReportFailure(console, "sqlrun",
                         absl::InvalidArgumentError("the instance cannot read this request"));
  }
  SqlrunArgs a;
  try {
    a = j.get<SqlrunArgs>();
  } catch (const nlohmann::json::exception& e) {
    return ReportFailure(console, "sqlrun", absl::InvalidArgumentError(e.what()));
  }
  absl::StatusOr<sqlrun::RunOptions> options = ToRunOptions(a);
  if (!options.ok()) return ReportFailure(console, "sqlrun", options.status());
  options->client_program = "cellsim sqlrun";  // its sessions in V$SESSION
  options->client_process = std::to_string(client_pid);
  sqlrun::SqlDirOptions d{
      .sqldir = a.sqldir, .driver = a.driver, .sqlfile = a.sqlfile, .parmfile = a.parmfile};
  absl::StatusOr<sqlrun::SqlDir> dir = sqlrun::LoadSqlDir(d);
  if (!dir.ok()) {
    return ReportFailure(console, "sqlrun", absl::InvalidArgumentError(dir.status().message()));
  }
  if (a.database.standard_files) {
    WarnStandardFilesTooLate(*env.db, "cellsim sqlrun", *console.err);
  }
  return RunWorkload(*env.db, env.io.ClockDescription(), a, *dir, *options, console);
}

void RegisterSqlrun(CLI::App& app, CommandContext& ctx) {
  auto [c, args] = AddCommand<SqlrunArgs>(
      app, ctx, "sqlrun",
      "Run an unmodified Sqlrun SQL directory (sqlfile.conf, parameters.conf, .sql and bind "
      "files) in sessions of the database of rack DIR, with Sqlrun's options; see docs/sqlrun.md",
      RunSqlrun);
  AddRackDirArgument(c, &args->dir);
  AddRackOptions(c, &args->rack);
  // Sqlrun's --trace is the SQL trace; the rack's timeline is --timeline here.
  c->remove_option(c->get_option("--trace"));
  c->add_option("--timeline", args->rack.sim.trace, "Write a Chrome trace-event timeline to FILE");
  AddSqlrunOptions(c, args);
  auto [t, targs] = AddCommand<TkprofArgs>(
      app, ctx, "tkprof", "tkprof's report of 10046 trace files (`cellsim sqlrun --trace`)", RunTkprof);
  t->add_option("TRACE", targs->files, "Trace files")->required();
}

}  // namespace cellsim::cli
