// What the rack-level subcommands (demo, rack, sql, cellcli, asmcmd) share:
// the I/O backend and clock options, opening a rack directory and its
// database, and turning database results into the report layer's values.
//
// Usage:
//   RackOptions opt;                       // filled by AddRackOptions(cmd, &opt)
//   absl::StatusOr<RackEnv> env = OpenRackEnv(dir, opt);
//   absl::Status s = OpenOrCreateDatabase(*env, &created);
//   ... env->db->NewSession() ...
//   s = env->Close();
#ifndef CELLSIM_CLI_RACK_ENV_H_
#define CELLSIM_CLI_RACK_ENV_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "CLI/CLI.hpp"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cellsim/asm/rack.h"
#include "cellsim/base/clock.h"
#include "cellsim/db/database.h"
#include "cellsim/io/io_backend.h"
#include "cellsim/report/asmcmd.h"
#include "cellsim/report/results.h"
#include "cellsim/report/tkprof.h"
#include "cellsim/sim/simulation.h"
#include "cellsim/sim/trace.h"

namespace cellsim::cli {

// A clock whose monotonic time is real (so waits and elapsed times are
// measured) but whose wall-clock time stands still at `unix_seconds`. Creation
// times, the dbid, ASM incarnations and file headers derive from the wall
// clock, so two racks built with the same fixed time hold the same bytes.
class FixedWallClock : public Clock {
 public:
  explicit FixedWallClock(int64_t unix_seconds) : unix_(unix_seconds) {}
  uint64_t NowNanos() const override { return SystemClock()->NowNanos(); }
  int64_t UnixSeconds() const override { return unix_; }

 private:
  int64_t unix_;
};

struct RackOptions {
  std::string backend = "io_uring";    // --backend io_uring|posix
  std::optional<int64_t> fixed_time;   // --fixed-time UNIX_SECONDS
  std::string lock_timeout;            // --lock-timeout DURATION (rack_lock_cli.h)
  // The simulated clock (docs/sim.md): --profile NAME|FILE, --rack SIZE,
  // --clock simulated|real, --model-only, --trace FILE.
  std::string profile;
  std::string rack = "quarter";
  std::string clock;  // "" = simulated with --profile, else real
  bool model_only = false;
  std::string trace;
};

// Adds --backend, --fixed-time, --lock-timeout and the simulated-clock options to `cmd`.
void AddRackOptions(CLI::App* cmd, RackOptions* options);

// The I/O backend and clock of a command (the clock is SystemClock() unless
// --fixed-time). Errors: InvalidArgument for an unknown backend name;
// Unavailable (with a hint to use --backend posix) when io_uring is refused.
struct IoEnv {
  std::unique_ptr<io::IoBackend> io;
  std::unique_ptr<Clock> owned_clock;
  Clock* clock = nullptr;
  // With --profile or --trace: the device model / tracer, the cell wrapper
  // racks are built with, and the database options the profile implies.
  std::unique_ptr<sim::TraceWriter> owned_trace;
  std::unique_ptr<sim::Simulation> sim;
  asmgr::CellWrapper wrap;
  db::DatabaseOptions db_options;
  std::string trace_path;  // written by FinishTrace (empty: none)
  // "real (this machine)" or "simulated (x3-2-hp, quarter rack: ...)".
  std::string ClockDescription() const;
  // Shapes a new rack by the profile (cells, cell disks); no-op without one.
  void ApplyShape(asmgr::RackConfig* config) const;
  // FailedPrecondition when an opened rack does not have the profile's shape.
  [[nodiscard]] absl::Status CheckShape(const asmgr::Rack& rack) const;
};
// `trace_prefix` and `shared_trace` let one command put several racks in one
// trace (cellsim demo: one per creation path); the caller then writes it.
[[nodiscard]] absl::StatusOr<IoEnv> MakeIoEnv(const RackOptions& options,
                                              const std::string& trace_prefix = "",
                                              sim::TraceWriter* shared_trace = nullptr);
// Writes the trace of --trace (if this IoEnv owns one).
[[nodiscard]] absl::Status FinishTrace(IoEnv& env);

// An open rack and, once opened, its database. Members are destroyed in
// reverse order: session users must drop their sessions first.
struct RackEnv {
  IoEnv io;
  std::unique_ptr<asmgr::Rack> rack;
  std::unique_ptr<db::Database> db;

  // Closes the database (if open) and the rack; the first error wins.
  [[nodiscard]] absl::Status Close();
};

// Opens the rack in `dir` for `access` under its lock (rack_lock_cli.h).
// NotFound names the directory when no rack is there.
[[nodiscard]] absl::StatusOr<RackEnv> OpenRackEnv(
    const std::string& dir, const RackOptions& options,
    asmgr::RackAccess access = asmgr::RackAccess::kReadWrite);

// Opens the rack's database, creating it when the rack has none yet
// (*created tells which) with `options` (standard files, ALL_OBJECTS rows).
[[nodiscard]] absl::Status OpenOrCreateDatabase(RackEnv& env, bool* created,
                                                const db::DatabaseOptions& options = {});

// The report layer's view of a statement result.
report::StatementResult ToReportResult(const db::StatementResult& r);
// tkprof's block for a statement, with the call counts the engine measured.
report::TkprofStatement ToTkprof(const db::StatementResult& r);
// asmcmd's view of every disk group of the rack.
report::AsmSnapshot SnapshotAsm(const asmgr::Rack& rack);

// SQL*Plus's feedback for a statement kind: "Database altered.",
// "Tablespace created.", "Session altered.", ...
std::string SqlPlusFeedback(std::string_view kind);
// SQL*Plus's `set timing on` line body: "00:00:05.09".
std::string SqlPlusElapsed(uint64_t elapsed_ns);

}  // namespace cellsim::cli

#endif  // CELLSIM_CLI_RACK_ENV_H_
