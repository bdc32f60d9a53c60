// The `cellsim` binary: parses the command line with CLI11 and dispatches to
// the subcommand groups registered in kCommandGroups (see commands.h).
#include <iostream>

#include "cellsim/cli/commands.h"
#include "cellsim/cli/rack_lock_cli.h"
#include "fmt/format.h"

namespace cellsim::cli {

void Fail(CommandContext& ctx, const std::string& command, const std::string& message,
          int code) {
  std::cerr << "cellsim " << command << ": " << message << "\n";
  ctx.exit_code = code;
}

void Fail(CommandContext& ctx, const std::string& command, const absl::Status& status) {
  Fail(ctx, command, std::string(status.message()),
       status.code() == absl::StatusCode::kInvalidArgument ? kExitUsage : kExitFailure);
}

namespace {
constexpr RegisterFn kCommandGroups[] = {
    RegisterProbe,
    RegisterIo,
    RegisterDemo,
    RegisterRack,
    RegisterSql,
    RegisterCellCli,
    RegisterAsmcmd,
    RegisterWrite,
};
}  // namespace

int Main(int argc, char** argv) {
  CLI::App app{"cellsim: a simulator of Oracle Exadata storage cells on real files"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "cellsim 0.1.0");
  SetCommandLine(argc, argv);
  CommandContext ctx;
  for (RegisterFn fn : kCommandGroups) fn(app, ctx);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  return ctx.exit_code;
}

}  // namespace cellsim::cli

int main(int argc, char** argv) { return cellsim::cli::Main(argc, argv); }
