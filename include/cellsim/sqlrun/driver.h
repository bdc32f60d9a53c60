// The Sqlrun-compatible workload driver (issue 16, docs/sqlrun.md): runs the
// statements of a SqlDir in N sessions of one database, with Sqlrun's options
// and semantics (../shared/temp-undo.md §4): statement order per --exe-mode,
// commit/rollback after every (N+1)th DML, a delay after every statement, a
// shared timer checked between statements, bind rows cycled with the last
// one never used. Sessions are threads, each a real db::Session.
//
// Before its timer starts the driver has the database do its one-time work
// (Database::WarmUp), as Sqlrun starts against an instance that has been
// open a while; connects, session setup and first parses are timed.
//
// Time: under a simulated clock (sim::SimClock, the rack's clock with a
// profile) a conductor lets the session whose modeled time is smallest run
// its next step (one statement, its commit, its sleep) while the others wait,
// so sleeps cost nothing, the interleaving is the same on every machine and
// every figure is reproducible. Each statement's modeled time is what the
// device model charges for its I/O (log writes at commit, DBWR) plus the
// CostModel below. With a real clock the sessions run freely and sleep, and
// each call lasts at least its CostModel CPU (the driver sleeps the rest), so
// both clocks model the same database and give the same figures within the
// noise.
//
// Usage:
//   absl::StatusOr<SqlDir> dir = LoadSqlDir({.sqldir = "SQL"});
//   RunOptions o; o.max_sessions = 10; o.runtime_s = 300; o.exe_delay_s = 0.25;
//   o.tx_behavior = TxBehavior::kCommit;
//   absl::StatusOr<RunResult> r = RunSqlDir(db, *dir, o);   // r->final_sample.redo_size ...
//
// Thread-safety: Run blocks until the run ends; the callbacks run on the
// driver's threads one at a time.
#ifndef CELLSIM_SQLRUN_DRIVER_H_
#define CELLSIM_SQLRUN_DRIVER_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "cellsim/base/cancel.h"
#include "cellsim/db/database.h"
#include "cellsim/sqlrun/sql_dir.h"

namespace cellsim::sqlrun {

enum class ExeMode : uint8_t { kSequential, kSemiRandom, kTrulyRandom };
enum class ConnectMode : uint8_t { kFlood, kTrickle, kTsunami };
enum class TxBehavior : uint8_t { kRollback, kCommit };
// Parse Sqlrun's spellings ("semi-random", "tsunami", "commit"); InvalidArgument
// listing the choices otherwise. As in Sqlrun, any --tx-behavior other than
// "rollback" means commit.
[[nodiscard]] absl::StatusOr<ExeMode> ParseExeMode(std::string_view s);
[[nodiscard]] absl::StatusOr<ConnectMode> ParseConnectMode(std::string_view s);
TxBehavior ParseTxBehavior(std::string_view s);

// The modeled CPU time of a call under the simulated clock (the I/O is the
// device model's). docs/sqlrun.md "Time model" derives each figure:
//   call_ns      [I] one parse+execute or commit call of a simple statement;
//   row_ns       [A] per row a statement processes: the seed's TRUE cycle
//                (10 sessions x 300 s / (2,514 + 99) cycles, minus 3 x 0.25 s
//                of sleep and 6 calls) over 70,000 ALL_OBJECTS rows;
//   redo_byte_ns [A] per byte of redo generated: the FALSE cycle's extra time
//                (3,000 s / 2,514 - 3,000 s / 2,613) over the 423,200 B of
//                redo a FALSE cycle makes (docs/redo.md).
struct CostModel {
  uint64_t call_ns = 100'000;
  uint64_t row_ns = 5'679;
  double redo_byte_ns = 106.8;
};

// What one session did at one step (RunOptions::record_events).
struct Event {
  enum class Kind : uint8_t { kExecute, kCommit, kRollback, kError };
  uint32_t session = 0;  // 1..max_sessions
  uint64_t time_ns = 0;  // clock time at the start of the call, from the run's start
  Kind kind = Kind::kExecute;
  std::string sql_file;  // kExecute/kError: the sqlfile.conf name
  int bind_row = -1;     // kExecute: the bind row used (-1: no binds)
};

// The seed's monitor (stats-end.sh + stats-report.sql) at one instant: the sum
// over the driver's sessions of v$sesstat minus its value when the session
// connected (a disconnected session keeps its last sample).
struct Sample {
  double t_s = 0;                  // seconds since the run started
  int sessions = 0;                // connected driver sessions
  int64_t transactions = 0;        // commits + rollbacks the driver issued
  int64_t executions = 0;
  int64_t redo_size = 0;
  int64_t undo_change_vector_size = 0;
  int64_t tally = -1;              // RunOptions::tally_sql's sum; -1 when it failed
};

struct SessionSummary {
  uint32_t sid = 0;
  int64_t executions = 0;
  int64_t commits = 0;
  int64_t rollbacks = 0;
  int64_t errors = 0;
  int64_t redo_size = 0;
  int64_t undo_change_vector_size = 0;
  std::string trace_file;  // when traced
  std::string error;       // the error that stopped it ("" when none)
};

struct RunOptions {
  ExeMode exe_mode = ExeMode::kSequential;
  ConnectMode connect_mode = ConnectMode::kFlood;
  double connect_delay_s = 0.25;  // trickle: between session starts
  TxBehavior tx_behavior = TxBehavior::kRollback;
  int tx_per_transaction = 0;     // commit/rollback after every (N+1)th DML
  int max_sessions = 2;
  double exe_delay_s = 0.1;       // after every statement
  int runtime_s = 60;
  int bind_array_size = 10000;    // bind rows kept: this many usable
  std::string schema;             // alter session set current_schema
  uint64_t seed = 1;              // random modes: session i's RNG is seeded with seed + i
  std::string trace_dir;          // 10046-style trace per session here; "": none
  std::string trace_id = "SQLRUN";  // tracefile_identifier
  // Sampling interval of the monitor (seconds of the run's clock); every
  // sample is passed to on_sample and kept in RunResult::samples.
  double sample_interval_s = 5;
  std::function<void(const Sample&)> on_sample;
  // The seed's transaction tally (stats-report.sql: sum(txacts) from txcount).
  std::string tally_sql = "select txacts from txcount";
  bool record_events = false;
  CostModel cost;
  const CancelFlag* cancel = nullptr;  // stops the run between statements
  // V$SESSION's PROGRAM and PROCESS of the workload's sessions
  // (Session::SetClient); "": the database's defaults.
  std::string client_program, client_process;
};

struct RunResult {
  bool simulated = false;
  double elapsed_s = 0;              // run clock: start to the last session's end
  // The window Sqlrun's whole-second timer gave: runtime less the fraction of
  // a second the start came after a whole second of Unix time (so in
  // (runtime - 1, runtime]); the sessions stop at the first statement
  // boundary after it.
  double timer_s = 0;
  std::vector<Sample> samples;       // every sample_interval_s, then the final one
  Sample final_sample;
  std::vector<SessionSummary> sessions;
  std::vector<Event> events;         // when record_events (ordered by time)
  std::vector<std::string> warnings;  // parameters.conf settings that failed, ...
};

// Runs `dir` in `db` (its rack's clock decides simulated or real). Errors:
// InvalidArgument for bad options (max_sessions < 1, runtime < 1, negative
// delays); the first session error stops only that session (as a Sqlrun child
// dies) and is reported in its SessionSummary.
[[nodiscard]] absl::StatusOr<RunResult> RunSqlDir(db::Database* db, const SqlDir& dir,
                                           const RunOptions& options);

// Sqlrun's statement choice (lib/Sqlrun.pm getNextSql): sequential returns
// idx + 1, wrapping to 0 after the last (so the first statement run is index 1);
// the random modes draw int(rand(last + 1)).
class StatementPicker {
 public:
  StatementPicker(ExeMode mode, size_t size, uint64_t seed);
  size_t Next();

 private:
  ExeMode mode_;
  size_t size_;
  size_t idx_ = 0;
  uint64_t state_;
};

// Sqlrun's nextBind: 0 first, then n + 1 while n + 1 < last index, else 0 (the
// last row is never used; a single row is always used).
class BindCursor {
 public:
  explicit BindCursor(size_t rows) : rows_(rows) {}
  size_t Next();

 private:
  size_t rows_;
  bool started_ = false;
  size_t n_ = 0;
};

// The statement array of a mode: semi-random holds `frequency` copies of each
// entry (indexes into dir.entries), the other modes one of each.
std::vector<size_t> StatementArray(const SqlDir& dir, ExeMode mode);

// A statement with its bind row substituted for the `?` / `:name` placeholders
// outside quotes (numbers as they are, other values as quoted literals).
// InvalidArgument when the row has fewer values than placeholders.
[[nodiscard]] absl::StatusOr<std::string> BindSql(std::string_view sql,
                                                  const std::vector<std::string>& row);

}  // namespace cellsim::sqlrun

#endif  // CELLSIM_SQLRUN_DRIVER_H_
