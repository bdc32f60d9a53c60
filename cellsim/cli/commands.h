// The subcommand registry of the `cellsim` binary. Each group of subcommands
// lives in its own file and exposes one Register function that adds its
// subcommands to the root CLI::App; main.cc calls them in kCommandGroups.
// Adding a group (demo, rack, sql, cellcli, asmcmd) = a new .cc file, a
// declaration here, and one line in main.cc.
//
// A subcommand's callback runs the command and stores the process exit code in
// CommandContext::exit_code (0 success, 1 the command failed, 2 bad input);
// errors go to stderr as "cellsim <command>: <message>".
#ifndef CELLSIM_CLI_COMMANDS_H_
#define CELLSIM_CLI_COMMANDS_H_

#include <memory>
#include <string>
#include <utility>

#include "CLI/CLI.hpp"
#include "absl/status/status.h"

namespace cellsim::cli {

inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

struct CommandContext {
  int exit_code = 0;
};

// Prints "cellsim <command>: <message>" to stderr and records `code`.
void Fail(CommandContext& ctx, const std::string& command, const std::string& message,
          int code = kExitFailure);
void Fail(CommandContext& ctx, const std::string& command, const absl::Status& status);
// Ends a command that opened something (a rack, a file) and closed it again:
// reports the work's error, else the close's (the work's is the cause).
// Returns true when either failed. `closed` is evaluated before the call, so
// FailFirst(ctx, cmd, failure, env->Close()) always closes.
bool FailFirst(CommandContext& ctx, const std::string& command, const absl::Status& work,
               const absl::Status& closed);

// Adds subcommand `name` to `parent`; its options fill an `Args` that lives as
// long as the app, and `run(args, ctx)` runs when the subcommand is chosen.
// Returns the subcommand (to add options to) and the Args (to bind them to).
template <typename Args>
std::pair<CLI::App*, Args*> AddCommand(CLI::App& parent, CommandContext& ctx,
                                       const std::string& name, const std::string& description,
                                       void (*run)(const Args&, CommandContext&)) {
  auto args = std::make_shared<Args>();
  CLI::App* command = parent.add_subcommand(name, description);
  command->callback([args, run, &ctx] { run(*args, ctx); });
  return {command, args.get()};
}

// Lets the words after `cmd`'s positionals form one more command, as Oracle's
// asmcmd and cellcli take one on their own command line (`asmcmd lsdsk -G
// DATA`, `cellcli -e list cell detail`): everything from the first word the
// parser has no place for, the command's own options included, is joined with
// spaces and appended to `*commands` (after the -e ones). Options of `cmd` go
// before it.
void AddTrailingCommand(CLI::App* cmd, std::vector<std::string>* commands);

using RegisterFn = void (*)(CLI::App& app, CommandContext& ctx);

void RegisterProbe(CLI::App& app, CommandContext& ctx);  // probe.cc
void RegisterIo(CLI::App& app, CommandContext& ctx);     // io_cmd.cc
void RegisterDemo(CLI::App& app, CommandContext& ctx);     // demo.cc
void RegisterRack(CLI::App& app, CommandContext& ctx);     // rack_cmd.cc
void RegisterSql(CLI::App& app, CommandContext& ctx);      // sql_cmd.cc
void RegisterCellCli(CLI::App& app, CommandContext& ctx);  // cellcli_cmd.cc
void RegisterAsmcmd(CLI::App& app, CommandContext& ctx);   // asmcmd_cmd.cc
void RegisterWrite(CLI::App& app, CommandContext& ctx);    // write_cmd.cc
void RegisterSqlrun(CLI::App& app, CommandContext& ctx);   // sqlrun_cmd.cc (and tkprof)
void RegisterInstance(CLI::App& app, CommandContext& ctx);  // instance.cc

}  // namespace cellsim::cli

#endif  // CELLSIM_CLI_COMMANDS_H_
