#include "cellsim/cli/rack_lock_cli.h"

#include <iostream>

#include "cellsim/base/units.h"
#include "cellsim/cli/interrupt.h"
#include "fmt/format.h"

namespace cellsim::cli {
namespace {
std::string& CommandLine() {
  static std::string line = "cellsim";
  return line;
}
}  // namespace

void AddLockTimeoutOption(CLI::App* cmd, std::string* timeout) {
  *timeout = kDefaultLockTimeout;
  cmd->add_option("--lock-timeout", *timeout,
                  "How long to wait while another process holds the rack (e.g. 30s, 5m, 0 = "
                  "fail at once); readers share the rack, writers hold it alone")
      ->capture_default_str();
}

void SetCommandLine(int argc, char** argv) {
  std::string line;
  for (int i = 0; i < argc; ++i) {
    if (i > 0) line += ' ';
    line += i == 0 ? "cellsim" : argv[i];
  }
  CommandLine() = line;
}

absl::StatusOr<asmgr::RackOpenOptions> MakeRackOpenOptions(const std::string& dir,
                                                          asmgr::RackAccess access,
                                                          const std::string& lock_timeout) {
  absl::StatusOr<std::chrono::milliseconds> timeout = ParseDuration(lock_timeout);
  if (!timeout.ok()) {
    return absl::InvalidArgumentError(
        fmt::format("--lock-timeout: {}", std::string(timeout.status().message())));
  }
  asmgr::RackOpenOptions options;
  options.lock.access = access;
  options.lock.timeout = *timeout;
  options.lock.timeout_name = "--lock-timeout";
  options.lock.command = CommandLine();
  options.lock.cancel = InterruptFlag();  // Ctrl-C ends a wait (when handlers are installed)
  // As the user wrote it ("2m", "500ms"); a bare number is seconds: say so.
  const bool bare = !lock_timeout.empty() &&
                    lock_timeout.find_first_not_of("0123456789.") == std::string::npos;
  const std::string shown = bare ? lock_timeout + " s" : lock_timeout;
  options.lock.on_wait = [dir, access, shown](const std::string& holders) {
    // Two terminals on one rack take turns; an instance serves both at once.
    const bool instance = holders.find("cellsim instance") != std::string::npos ||
                          CommandLine().rfind("cellsim instance", 0) == 0;
    std::cerr << fmt::format(
        "cellsim: the rack in {} is in use by {}; waiting up to {} for the {} lock "
        "(--lock-timeout){}\n",
        dir, holders, shown, asmgr::RackAccessName(access),
        instance ? ""
                 : fmt::format(". To run sessions side by side, start `cellsim instance {}` "
                               "in a terminal of its own: sql, sqlrun, asmcmd, cellcli, write "
                               "and rack info then run in it",
                               dir));
  };
  return options;
}

}  // namespace cellsim::cli
