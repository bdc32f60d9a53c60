// The pieces every harness of a rack needs, shared by cellsim::Lab
// (cellsim/cellsim.h) and the `cellsim` CLI: the I/O backend and clock, opening
// a rack directory and its database, and the conversions of database results
// into the report layer's values.
//
// Usage:
//   absl::StatusOr<RackEnv> env = OpenRackEnv(dir, {.fixed_time = 1700000000});
//   bool created = false;
//   absl::Status s = OpenOrCreateDatabase(*env, &created);
//   ... env->db->NewSession() ...
//   s = env->Close();
//
// Thread-safety: RackEnv is a plain owner; its rack and database are
// thread-safe as documented in asm/rack.h and db/database.h.
#ifndef CELLSIM_LAB_ENV_H_
#define CELLSIM_LAB_ENV_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cellsim/asm/rack.h"
#include "cellsim/base/clock.h"
#include "cellsim/db/database.h"
#include "cellsim/io/fenced_backend.h"
#include "cellsim/io/io_backend.h"
#include "cellsim/io/probe.h"
#include "cellsim/report/asmcmd.h"
#include "cellsim/report/results.h"
#include "cellsim/report/tkprof.h"
#include "cellsim/sim/simulation.h"
#include "cellsim/sim/trace.h"

namespace cellsim::lab {

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

// The simulated clock (docs/sim.md): which hardware the times are modeled on.
struct SimOptions {
  std::string profile;           // a profile name (x3-2, x5-2-ef, ...) or JSON file; "": none
  std::string rack = "quarter";  // eighth, quarter, half, full (with a profile)
  std::string clock;             // "simulated" | "real"; "": simulated with a profile, else real
  bool model_only = false;       // simulated clock only: data bytes modeled, not stored
  std::string trace;             // Chrome trace-event file written on Close; "": none
};

// How a rack is opened: backend, clock, lock and device model.
struct EnvOptions {
  // kAuto: io_uring where the kernel allows it, else posix (IoEnv::backend_reason
  // says which and why). kUring fails with Unavailable when refused.
  io::BackendRequest backend = io::BackendRequest::kAuto;
  std::optional<int64_t> fixed_time;  // wall clock fixed at these Unix seconds
  // Read-only or read-write, how long to wait for another process's lock
  // (default: fail at once), and what to tell while waiting (asm/rack_lock.h).
  asmgr::RackLockOptions lock{};
  SimOptions sim{};
};

// The I/O backend and clock of a harness (the clock is SystemClock() unless
// fixed_time, or the simulation's clock under a profile). Errors: Unavailable
// (saying to use the posix backend) when io_uring is asked for and refused;
// InvalidArgument for inconsistent simulation options; NotFound for an
// unknown profile.
struct IoEnv {
  std::unique_ptr<io::IoBackend> io;
  io::FencedBackend* fence = nullptr;  // `io` itself: RackEnv::Abort cuts it off
  std::unique_ptr<Clock> owned_clock;
  Clock* clock = nullptr;
  io::BackendKind backend = io::BackendKind::kPosix;  // the backend `io` is
  std::string backend_reason;  // "available", "asked for", "fell back: io_uring refused: ..."
  // With a profile or a trace: the device model / tracer, the cell wrapper
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
// `trace_prefix` and `shared_trace` let one program put several racks in one
// trace (cellsim demo: one per creation path); the caller then writes it.
[[nodiscard]] absl::StatusOr<IoEnv> MakeIoEnv(const EnvOptions& options,
                                              const std::string& trace_prefix = "",
                                              sim::TraceWriter* shared_trace = nullptr);
// The database's I/O shape under a profile's simulated clock (docs/sim.md):
// zero-fill request size and batches, every smart extent in flight.
void ApplyProfileIoShape(const sim::DeviceProfile& profile, db::DatabaseOptions* options);
// Writes the trace of options.sim.trace (if this IoEnv owns one).
[[nodiscard]] absl::Status FinishTrace(IoEnv& env);

// An open rack and, once opened, its database. Members are destroyed in
// reverse order: session users must drop their sessions first.
struct RackEnv {
  IoEnv io;
  std::unique_ptr<asmgr::Rack> rack;
  std::unique_ptr<db::Database> db;

  // Closes the database (if open) and the rack, then writes the trace; the
  // first error wins.
  [[nodiscard]] absl::Status Close();
  // SHUTDOWN ABORT in this process: fences the backend (io.fence), so the
  // files stay as kill -9 would leave them, then drops the database and
  // rack (their closing I/O fails unseen) and releases the rack's lock. The
  // next open runs instance recovery. The trace is still written (OK or its
  // error). Further calls do nothing.
  [[nodiscard]] absl::Status Abort();
};

// Opens the rack in `dir` under its lock (options.lock: read-only or
// read-write). NotFound names the directory when no rack is there;
// Unavailable (naming the holder) when the lock stays busy.
[[nodiscard]] absl::StatusOr<RackEnv> OpenRackEnv(const std::string& dir,
                                                 const EnvOptions& options);

// Creates a rack in `dir` (empty or missing) with `config` shaped by the
// profile, under the write lock, choosing
// O_DIRECT for its grid disks and flash by probing `dir` as `mode` says
// (config.direct_io is replaced by the choice). *choice (if given) receives
// what was chosen and why. Errors: those of io::ChooseIo and Rack::Create.
[[nodiscard]] absl::StatusOr<RackEnv> CreateRackEnv(const std::string& dir,
                                                   const EnvOptions& options,
                                                   asmgr::RackConfig config,
                                                   io::IoModeRequest mode,
                                                   io::IoChoice* choice = nullptr);
// The same on an IoEnv already made (MakeIoEnv with a trace prefix or a
// shared trace); options.backend and options.sim are not used again.
[[nodiscard]] absl::StatusOr<RackEnv> CreateRackEnv(IoEnv io, const std::string& dir,
                                                   const EnvOptions& options,
                                                   asmgr::RackConfig config,
                                                   io::IoModeRequest mode,
                                                   io::IoChoice* choice = nullptr);

// Opens the rack's database, creating it when the rack has none yet
// (*created tells which) with `options` (standard files, ALL_OBJECTS rows).
[[nodiscard]] absl::Status OpenOrCreateDatabase(RackEnv& env, bool* created,
                                                const db::DatabaseOptions& options = {});

// The standard tablespaces (SYSTEM, SYSAUX, UNDOTBS1, TEMP, USERS) `db`
// lacks: a front end asked for the standard files of a database that
// already existed says which ones the option could not add.
std::vector<std::string> MissingStandardTablespaces(const db::Database& db);

// The report layer's view of a statement result.
report::StatementSummary ToReportResult(const db::StatementResult& r);
// tkprof's block for a statement, with the call counts the engine measured.
report::TkprofStatement ToTkprof(const db::StatementResult& r);
// asmcmd's view of every disk group of the rack.
report::AsmSnapshot SnapshotAsm(const asmgr::Rack& rack);

// SQL*Plus's feedback for a statement kind: "Database altered.",
// "Tablespace created.", "Session altered.", ...
std::string SqlPlusFeedback(std::string_view kind);
// SQL*Plus's `set timing on` line body: "00:00:05.09".
std::string SqlPlusElapsed(uint64_t elapsed_ns);
// What SQL*Plus (with `set timing on`) prints for a statement's result: a
// query's rows laid out (headings, dashes, one line per row, numbers
// right-aligned, then "n rows selected." from 6 rows on: FEEDBACK 6) or a
// data statement's feedback ("1 row updated.", "Commit complete."), then
// "Elapsed: ..."; else "Database altered.  Elapsed: 00:00:05.09  (fast
// path)". What `cellsim sql` prints and Lab::Feedback returns.
//
// SQL*Plus's SET settings that change it: TIMING OFF leaves "Elapsed" out;
// AUTOTRACE ON STATISTICS adds the statement's statistics after it
// (SqlPlusAutotraceStatistics); AUTOTRACE TRACEONLY leaves a query's rows
// out (its "n rows selected." stays); SERVEROUTPUT ON prints a PL/SQL
// block's DBMS_OUTPUT lines before its feedback.
struct SqlPlusSettings {
  bool timing = true;  // cellsim's default is ON: its point is the time a statement takes
  bool autotrace_statistics = false;
  bool autotrace_traceonly = false;
  bool serveroutput = false;
};
std::string SqlPlusResult(const db::StatementResult& r, const SqlPlusSettings& settings = {});
// SET AUTOTRACE's "Statistics" block: the statement's db block gets,
// consistent gets, physical reads, redo size, sorts (memory), sorts (disk)
// and rows processed, in SQL*Plus's layout. The lines for statistics cellsim
// does not count (recursive calls, the SQL*Net ones) are left out, not
// printed as 0.
std::string SqlPlusAutotraceStatistics(const db::StatementResult& r);

}  // namespace cellsim::lab

#endif  // CELLSIM_LAB_ENV_H_
