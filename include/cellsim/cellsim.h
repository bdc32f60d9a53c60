// cellsim.h: the one header a test harness or lab includes. A cellsim::Lab is
// a rack (cells, grid disks and flash as files, ASM disk groups) and its
// database in one directory, with a session to run SQL, and CellCLI and
// asmcmd commands; results come back typed (db::StatementResult) and as the
// reports the CLI prints (SQL*Plus feedback, tkprof, mystats, JSON).
//
// Usage (examples/consumer is this as a complete program):
//   absl::StatusOr<std::unique_ptr<cellsim::Lab>> lab = cellsim::Lab::Create("/tmp/lab");
//   std::cout << (*lab)->io().Describe() << "\n";  // backend and O_DIRECT chosen, and why
//   absl::StatusOr<cellsim::db::StatementResult> r = (*lab)->Sql(
//       "alter database add logfile thread 2 group 5 ('+DATA','+RECO') size 64m");
//   std::cout << (*lab)->Feedback(*r) << (*lab)->Tkprof({*r});
//   std::cout << *(*lab)->Asmcmd("ls -l +DATA/ORCL/ONLINELOG");
//   absl::Status s = (*lab)->Close();
//
// Choices made for the caller, each reported by io():
//   - backend: io_uring where the kernel allows it, else posix (LabOptions::io);
//   - O_DIRECT for grid disks and flash where the directory's filesystem accepts
//     it (ext4, xfs), buffered where it refuses it (tmpfs) -- the choice
//     `cellsim probe DIR` prints. A rack keeps the choice made at creation.
//
// Ownership and threading: a Lab owns its backend, clock, rack, database and
// one session. Its methods are called by one thread at a time (like one
// SQL*Plus session); for concurrent statements open more sessions with
// database().NewSession() and run them on other threads, and destroy them
// before the Lab (a session waits for another's row locks as Oracle's does
// once told to, db::Session::SetRowLockWait; examples/lab/row_lock_waits_lab.cc). The rack and database are thread-safe (asm/rack.h,
// db/database.h). Destroying a Lab closes it (errors are then lost: call
// Close() to see them).
#ifndef CELLSIM_CELLSIM_H_
#define CELLSIM_CELLSIM_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cellsim/asm/rack.h"
#include "cellsim/base/clock.h"
#include "cellsim/db/database.h"
#include "cellsim/io/probe.h"
#include "cellsim/lab/env.h"
#include "cellsim/report/mystats.h"
#include "cellsim/stats/statistics.h"

namespace cellsim {


struct LabOptions {
  // Backend and O_DIRECT: both auto by default (see above). Asking for
  // io_uring or O_DIRECT explicitly makes Create/Open fail where refused.
  io::IoPreference io;
  // Wall clock fixed at these Unix seconds (creation times, dbid, ASM
  // incarnations), so labs built the same way hold the same bytes.
  std::optional<int64_t> fixed_time;
  // The rack Create builds (its direct_io is replaced by the io choice).
  asmgr::RackConfig rack = asmgr::DefaultRackConfig();
  // Database options; under a simulated profile its zero-fill I/O shape is
  // the profile's.
  db::DatabaseOptions database;
  // The rack lock (asm/rack_lock.h): how long to wait while another process
  // holds the rack (default: fail at once with Unavailable naming it), and
  // what to call while waiting. A lab always opens read-write.
  asmgr::RackLockOptions lock;
  // The simulated clock: an Exadata profile, rack size, clock kind,
  // model-only data, a Perfetto trace written at Close (docs/sim.md).
  lab::SimOptions sim;
};

class Lab {
 public:
  // Creates a rack in `dir` (created if missing; it must hold no rack yet)
  // and its database. Errors: those of io::ChooseIo (FailedPrecondition when
  // an explicit io_uring or O_DIRECT request is refused), Rack::Create and
  // db::Database::Create, each naming the directory.
  // (The overloads without options build the default LabOptions in the
  // library, not in the caller: g++ 12 -O2 warns -Wmaybe-uninitialized on
  // the strings of a default-argument temporary.)
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<Lab>> Create(const std::string& dir,
                                                                   const LabOptions& options);
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<Lab>> Create(const std::string& dir);
  // Opens the rack in `dir` and its database (creating the database if the
  // rack has none). options.rack is ignored. NotFound when `dir` holds no rack.
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<Lab>> Open(const std::string& dir,
                                                                 const LabOptions& options);
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<Lab>> Open(const std::string& dir);

  ~Lab();
  Lab(const Lab&) = delete;
  Lab& operator=(const Lab&) = delete;

  // What the lab runs on: backend and O_DIRECT, and why (a reopened rack
  // reports the mode it was created with).
  const io::IoChoice& io() const;
  const std::string& dir() const;

  // Runs one SQL statement (docs/sql.md) in the lab's session.
  [[nodiscard]] absl::StatusOr<db::StatementResult> Sql(std::string_view statement);
  // Runs one CellCLI command (docs/cli.md) on every cell, each output line
  // prefixed "cel01: " as dcli prints; or on the one cell named by `cell`.
  [[nodiscard]] absl::StatusOr<std::string> CellCli(std::string_view command,
                                                    std::string_view cell = "");
  // Runs one asmcmd command; the lab keeps asmcmd's current directory
  // between calls (it starts at '+').
  [[nodiscard]] absl::StatusOr<std::string> Asmcmd(std::string_view command);

  // Reports of statement results, as `cellsim sql` prints them:
  // "Database altered.  Elapsed: 00:00:05.09  (fast path)\n", or a query's
  // rows in SQL*Plus's layout then "Elapsed: ..." (lab::SqlPlusResult).
  static std::string Feedback(const db::StatementResult& result);
  // tkprof's blocks for the statements.
  static std::string Tkprof(const std::vector<db::StatementResult>& results);
  // One JSON object (docs/reports.md).
  static std::string Json(const db::StatementResult& result);
  // The mystats report of the session so far (options as `@mystats stop`).
  [[nodiscard]] absl::StatusOr<std::string> Mystats(std::string_view options = "") const;

  // The parts, for what the methods above do not cover.
  asmgr::Rack& rack();
  db::Database& database();
  db::Session& session();
  Clock& clock();
  io::IoBackend& backend();

  // Ends the session and closes the database and the rack; the first error
  // wins. Further calls do nothing.
  [[nodiscard]] absl::Status Close();
  // SHUTDOWN ABORT, the crash a harness checks recovery from without a
  // second process: the lab's files are cut off first (lab::RackEnv::Abort)
  // and stay as kill -9 would leave them: committed work is in the online
  // log, an open transaction is not rolled back, nothing is checkpointed.
  // Then the session, database and rack are dropped and the rack's lock
  // released; Lab::Open(dir()) runs instance recovery. Returns the trace's
  // error, if any; the lab is closed after it (Close does nothing).
  [[nodiscard]] absl::Status Abort();

 private:
  struct State;
  explicit Lab(std::unique_ptr<State> state);
  static absl::StatusOr<std::unique_ptr<Lab>> Start(lab::RackEnv env, io::IoChoice io,
                                                    const std::string& dir,
                                                    const LabOptions& options);
  std::unique_ptr<State> s_;
};

}  // namespace cellsim

#endif  // CELLSIM_CELLSIM_H_
