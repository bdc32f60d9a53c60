// `cellsim asmcmd DIR -e "COMMAND" [-e ...]`, or `cellsim asmcmd DIR COMMAND
// [ARGS...]` as asmcmd takes one: asmcmd against the disk groups
// of a rack: lsdg, lsdsk [-k] [-p] [-G DG], lstmpl, ls [-l] [PATH], cd, pwd, and
// `cp +DG/PATH LOCALFILE`, which copies a file's logical bytes out of ASM
// through DiskGroup::Read (the primary copy, failing over to mirrors) as
// Oracle's asmcmd cp does. Commands of one invocation share the current
// directory (it starts at '+'), so `-e "cd +DATA/ORCL" -e "ls -l ONLINELOG"` works.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "absl/strings/ascii.h"
#include "cellsim/base/units.h"
#include "cellsim/cli/commands.h"
#include "cellsim/cli/rack_env.h"
#include "cellsim/lab/command_run.h"
#include "cellsim/io/io_backend.h"
#include "cellsim/report/asmcmd.h"
#include "fmt/format.h"

namespace cellsim::cli {
namespace {

struct AsmcmdArgs {
  std::string dir;
  std::vector<std::string> commands;
  bool utc = false;
  RackOptions rack;
};

void RunAsmcmd(const AsmcmdArgs& a, CommandContext& ctx) {
  const std::string cmd = "asmcmd";
  if (a.commands.empty()) {
    return Fail(ctx, cmd, "nothing to run: give a command (`asmcmd DIR lsdg`) or -e COMMAND",
                kExitUsage);
  }
  std::vector<AsmcmdCommand> parsed;
  for (const std::string& text : a.commands) {
    absl::StatusOr<AsmcmdCommand> c = ParseAsmcmdCommand(text);
    if (!c.ok()) return Fail(ctx, cmd, c.status());
    parsed.push_back(*c);
  }
  // Every asmcmd command here only reads (cp copies out of ASM), but online
  // and offline, which change disk states and resync.
  bool writes = false;
  for (const AsmcmdCommand& c : parsed) {
    writes |= c.kind == AsmcmdCommand::Kind::kOnline || c.kind == AsmcmdCommand::Kind::kOffline;
  }
  absl::StatusOr<RackEnv> env = OpenRackEnv(
      a.dir, a.rack, writes ? asmgr::RackAccess::kReadWrite : asmgr::RackAccess::kReadOnly);
  if (!env.ok()) return Fail(ctx, cmd, env.status());
  std::string cwd = "+";
  absl::Status failure;
  for (const AsmcmdCommand& c : parsed) {
    absl::StatusOr<std::string> out =
        lab::RunAsmcmdCommand(c, *env->rack, &cwd,
                              {.utc = a.utc, .flush_progress = {}});
    if (!out.ok()) {
      failure = out.status();
      break;
    }
    std::cout << *out;
    std::cout.flush();
  }
  if (FailFirst(ctx, cmd, failure, env->Close())) return;
}

}  // namespace

void RegisterAsmcmd(CLI::App& app, CommandContext& ctx) {
  auto [c, args] = AddCommand<AsmcmdArgs>(
      app, ctx, "asmcmd",
      "asmcmd on the disk groups of rack DIR: lsdg [DG], lsdsk [-k] [-p] [-G DG] [PATTERN], "
      "lstmpl [-l] [-G DG] [PATTERN], "
      "ls [-l] [-s] [PATH], cd PATH, pwd, du [PATH], find [--type TYPE] DIR PATTERN, "
      "cp +DG/PATH LOCALFILE (copies the file's logical bytes out of ASM), online -G DG (-D DISK | -a) (resyncs, then onlines), offline -G DG -D DISK",
      RunAsmcmd);
  AddRackDirArgument(c, &args->dir);
  // Each -e takes one word: the words after it are the trailing command.
  c->add_option("-e,--execute", args->commands,
                "An asmcmd command (repeatable, in order; they share the current directory)")
      ->allow_extra_args(false);
  c->add_flag("--utc", args->utc, "Print times in UTC");
  AddRackOptions(c, &args->rack);
  AddTrailingCommand(c, &args->commands);
  c->footer(
      "A command may also follow DIR, as asmcmd takes one: cellsim asmcmd DIR lsdsk -k -G DATA "
      "(options of cellsim asmcmd go before it; it runs after the -e commands).");
}

}  // namespace cellsim::cli
