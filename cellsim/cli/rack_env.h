// What the rack-level subcommands (demo, rack, sql, cellcli, asmcmd) add to
// the library's harness glue (cellsim/lab/env.h, which this file re-exports
// into cellsim::cli): their command-line options for the I/O backend, the
// clock, the rack lock, the simulated clock and, when a rack is created,
// O_DIRECT.
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
#include <iostream>
#include <optional>
#include <string>

#include "CLI/CLI.hpp"
#include "absl/status/statusor.h"
#include "cellsim/lab/command_parsers.h"
#include "cellsim/lab/env.h"

namespace cellsim::cli {

using lab::AsmcmdCommand;
using lab::CellCliCommand;
using lab::FinishTrace;
using lab::FixedWallClock;
using lab::IoEnv;
using lab::OpenOrCreateDatabase;
using lab::ParseAsmcmdCommand;
using lab::ParseCellCliCommand;
using lab::ParseDiskGroupOption;
using lab::RackEnv;
using lab::SnapshotAsm;
using lab::SqlPlusElapsed;
using lab::SqlPlusFeedback;
using lab::SqlPlusResult;
using lab::ToReportResult;
using lab::ToTkprof;

struct RackOptions {
  std::string backend = "io_uring";    // --backend io_uring|posix|auto
  std::optional<int64_t> fixed_time;   // --fixed-time UNIX_SECONDS
  std::string lock_timeout;            // --lock-timeout DURATION (rack_lock_cli.h)
  // The simulated clock (docs/sim.md): --profile NAME|FILE, --rack SIZE,
  // --clock simulated|real, --model-only, --trace FILE.
  lab::SimOptions sim;
};

// The options in `options` that differ from their defaults, as the flags
// that set them ("--profile, --fixed-time"), --lock-timeout aside; "" when
// none. A command an instance serves takes the instance's.
std::string RackOptionsGiven(const RackOptions& options);

// Adds the required positional DIR (the rack directory) to `cmd`.
void AddRackDirArgument(CLI::App* cmd, std::string* dir);
// Adds --backend, --fixed-time, --lock-timeout and the simulated-clock options to `cmd`.
void AddRackOptions(CLI::App* cmd, RackOptions* options);
// Adds --io auto|direct|buffered (and --direct / --buffered for short) to a
// command that creates racks; `mode` starts as "auto".
void AddIoModeOption(CLI::App* cmd, std::string* mode);

// The library's options for a command's flags, the lock taken on `dir` for
// `access` (rack_lock_cli.h). InvalidArgument for an unknown backend name or
// a malformed --lock-timeout.
[[nodiscard]] absl::StatusOr<lab::EnvOptions> ToEnvOptions(
    const RackOptions& options, const std::string& dir,
    asmgr::RackAccess access = asmgr::RackAccess::kReadWrite);
// The I/O backend and clock of a command (lab::MakeIoEnv).
[[nodiscard]] absl::StatusOr<IoEnv> MakeIoEnv(const RackOptions& options,
                                              const std::string& trace_prefix = "",
                                              sim::TraceWriter* shared_trace = nullptr);
// Opens the rack in `dir` for `access` under its lock (lab::OpenRackEnv).
// With `report_repairs`, each metadata repair the open made goes to stderr
// ("cellsim: repaired on open: ...", or on a read-only rack "cellsim: damaged
// metadata left as it is (...): ..."); `rack recover` prints them itself.
[[nodiscard]] absl::StatusOr<RackEnv> OpenRackEnv(
    const std::string& dir, const RackOptions& options,
    asmgr::RackAccess access = asmgr::RackAccess::kReadWrite, bool report_repairs = true);
// Creates a rack in `dir` with `config`, O_DIRECT as `io_mode` ("auto",
// "direct", "buffered") and the directory decide, and prints one line saying
// what was chosen (to stderr when `quiet`: JSON output).
[[nodiscard]] absl::StatusOr<RackEnv> CreateRackEnv(const std::string& dir,
                                                   const RackOptions& options,
                                                   const asmgr::RackConfig& config,
                                                   const std::string& io_mode, bool quiet);

// The options of the commands that open the rack's database and create it
// when the rack has none (sql, sqlrun, instance).
struct DatabaseFlags {
  bool standard_files = false;               // --standard-files
  std::optional<uint64_t> all_objects_rows;  // --all-objects-rows N; unset: the default
  // `base` (the profile's I/O shape) with these flags applied.
  db::DatabaseOptions Apply(db::DatabaseOptions base) const;
};
// Adds --standard-files and --all-objects-rows to `cmd`.
void AddDatabaseFlags(CLI::App* cmd, DatabaseFlags* flags);

// `--standard-files` given for a database that already existed: they are
// made only when the database is created, so say which standard tablespaces
// it lacks and how to get them (to `out`, prefixed with `command`); nothing
// when it has them all.
void WarnStandardFilesTooLate(const db::Database& db, std::string_view command,
                              std::ostream& out = std::cerr);

}  // namespace cellsim::cli

#endif  // CELLSIM_CLI_RACK_ENV_H_
