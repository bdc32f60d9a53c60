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
#include "cellsim/cli/console.h"
#include "cellsim/cli/instance.h"
#include "cellsim/cli/served_commands.h"
#include "cellsim/cli/rack_env.h"
#include "cellsim/lab/command_run.h"
#include "cellsim/io/io_backend.h"
#include "cellsim/report/asmcmd.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"

namespace cellsim::cli {
namespace {

struct AsmcmdArgs {
  std::string dir;
  std::vector<std::string> commands;
  bool utc = false;
  RackOptions rack;
};

absl::StatusOr<std::vector<AsmcmdCommand>> ParseAsmcmdCommands(
    const std::vector<std::string>& texts) {
  if (texts.empty()) {
    return absl::InvalidArgumentError(
        "nothing to run: give a command (`asmcmd DIR lsdg`) or -e COMMAND");
  }
  std::vector<AsmcmdCommand> parsed;
  for (const std::string& text : texts) {
    absl::StatusOr<AsmcmdCommand> c = ParseAsmcmdCommand(text);
    if (!c.ok()) return c.status();
    parsed.push_back(*c);
  }
  return parsed;
}

// Runs `parsed` on `rack` in order (they share the current directory),
// printing each one's output on `console`; the first error.
absl::Status RunAsmcmdCommands(const std::vector<AsmcmdCommand>& parsed, bool utc,
                               asmgr::Rack& rack, Console& console) {
  std::string cwd = "+";
  for (const AsmcmdCommand& c : parsed) {
    absl::StatusOr<std::string> out =
        lab::RunAsmcmdCommand(c, rack, &cwd, {.utc = utc, .flush_progress = {}});
    if (!out.ok()) return out.status();
    *console.out << *out << std::flush;
  }
  return absl::OkStatus();
}

void RunAsmcmd(const AsmcmdArgs& a, CommandContext& ctx) {
  const std::string cmd = "asmcmd";
  absl::StatusOr<std::vector<AsmcmdCommand>> parsed = ParseAsmcmdCommands(a.commands);
  if (!parsed.ok()) return Fail(ctx, cmd, parsed.status());
  const nlohmann::json request = {{"commands", a.commands}, {"utc", a.utc}};
  if (std::optional<int> code = RunInInstance(a.dir, a.rack, cmd, request.dump())) {
    ctx.exit_code = *code;
    return;
  }
  // Every asmcmd command here only reads (cp copies out of ASM), but online
  // and offline, which change disk states and resync.
  bool writes = false;
  for (const AsmcmdCommand& c : *parsed) {
    writes |= c.kind == AsmcmdCommand::Kind::kOnline || c.kind == AsmcmdCommand::Kind::kOffline;
  }
  absl::StatusOr<RackEnv> env = OpenRackEnv(
      a.dir, a.rack, writes ? asmgr::RackAccess::kReadWrite : asmgr::RackAccess::kReadOnly);
  if (!env.ok()) return Fail(ctx, cmd, env.status());
  Console console;
  const absl::Status failure = RunAsmcmdCommands(*parsed, a.utc, *env->rack, console);
  if (FailFirst(ctx, cmd, failure, env->Close())) return;
}

}  // namespace

int ServeAsmcmd(lab::RackEnv& env, const std::string& request, pid_t /*client_pid*/,
                Console& console) {
  const nlohmann::json j = nlohmann::json::parse(request, nullptr, /*allow_exceptions=*/false);
  std::optional<std::vector<std::string>> texts = StringsOf(j, "commands");
  if (!texts.has_value()) {
    return ReportFailure(console, "asmcmd",
                         absl::InvalidArgumentError("the instance cannot read this request"));
  }
  absl::StatusOr<std::vector<AsmcmdCommand>> parsed = ParseAsmcmdCommands(*texts);
  if (!parsed.ok()) return ReportFailure(console, "asmcmd", parsed.status());
  for (AsmcmdCommand& c : *parsed) {  // cp's local file is the client's
    if (c.kind == AsmcmdCommand::Kind::kCp && c.args.size() > 1 &&
        std::filesystem::path(c.args[1]).is_relative()) {
      std::string local = (std::filesystem::path(console.cwd) / c.args[1]).lexically_normal();
      if (local.size() > 1 && local.back() == '/') local.pop_back();  // "." is the folder
      c.args[1] = local;
    }
  }
  const absl::Status failure =
      RunAsmcmdCommands(*parsed, j.value("utc", false), *env.rack, console);
  return failure.ok() ? 0 : ReportFailure(console, "asmcmd", failure);
}

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
