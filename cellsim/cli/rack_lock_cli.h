// The rack lock as the CLI takes it (asmgr::RackLock): --lock-timeout, the
// command line recorded in DIR/LOCK for other processes' messages, and the
// "waiting for ..." line printed while another process holds the rack.
//
// Every rack subcommand is a reader or a writer (docs/cli.md "Rack lock"):
// readers (rack info, asmcmd, cellcli LIST ...) share the lock and open the
// rack read-only; writers (rack create, sql, write, cellcli ALTER ...) hold
// it alone.
#ifndef CELLSIM_CLI_RACK_LOCK_CLI_H_
#define CELLSIM_CLI_RACK_LOCK_CLI_H_

#include <string>

#include "CLI/CLI.hpp"
#include "absl/status/statusor.h"
#include "cellsim/asm/rack.h"

namespace cellsim::cli {

inline constexpr const char* kDefaultLockTimeout = "5m";

// Adds --lock-timeout DURATION (default kDefaultLockTimeout) to `cmd`.
void AddLockTimeoutOption(CLI::App* cmd, std::string* timeout);

// Remembers the process's command line for the lock file (main calls it).
void SetCommandLine(int argc, char** argv);

// Open options for `dir` with `access`, waiting up to `lock_timeout` (a
// duration, base/units.h ParseDuration) and telling stderr once when it
// waits. InvalidArgument for a malformed --lock-timeout.
[[nodiscard]] absl::StatusOr<asmgr::RackOpenOptions> MakeRackOpenOptions(
    const std::string& dir, asmgr::RackAccess access, const std::string& lock_timeout);

}  // namespace cellsim::cli

#endif  // CELLSIM_CLI_RACK_LOCK_CLI_H_
