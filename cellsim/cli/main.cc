// The `cellsim` binary: parses the command line with CLI11 and dispatches to
// the subcommand groups registered in kCommandGroups (see commands.h).
#include <iostream>

#include "cellsim/cli/commands.h"
#include "cellsim/cli/rack_lock_cli.h"
#include "fmt/format.h"

namespace cellsim::cli {

namespace {

// When argv names a subcommand that does not exist where one is expected
// ("cellsim sq", "cellsim rack craete"), says so and lists the choices.
bool ReportUnknownSubcommand(CLI::App& app, int argc, char** argv) {
  CLI::App* level = &app;
  std::string path = "cellsim";
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.empty() || arg[0] == '-') return false;  // options: CLI11 judges them
    const std::vector<CLI::App*> subs = level->get_subcommands({});
    if (subs.empty()) return false;
    CLI::App* next = nullptr;
    std::string names;
    for (CLI::App* s : subs) {
      if (s->check_name(arg)) next = s;
      names += (names.empty() ? "" : ", ") + s->get_name();
    }
    if (next == nullptr) {
      std::cerr << fmt::format("{}: unknown subcommand '{}' (subcommands: {}); see `{} --help`\n",
                               path, arg, names, path);
      return true;
    }
    level = next;
    path += " " + next->get_name();
  }
  return false;
}

constexpr RegisterFn kCommandGroups[] = {
    RegisterProbe,
    RegisterIo,
    RegisterDemo,
    RegisterRack,
    RegisterSql,
    RegisterCellCli,
    RegisterAsmcmd,
    RegisterWrite,
    RegisterSqlrun,
    RegisterInstance,
};
}  // namespace

int Main(int argc, char** argv) {
  CLI::App app{"cellsim: a simulator of Oracle Exadata storage cells on real files"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "cellsim 0.1.0");
  SetCommandLine(argc, argv);
  CommandContext ctx;
  for (RegisterFn fn : kCommandGroups) fn(app, ctx);
  if (ReportUnknownSubcommand(app, argc, argv)) return kExitUsage;
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version succeed; every other parse error is a usage
    // error: CLI11's message, then exit 2 as docs/cli.md promises.
    const int code = app.exit(e);
    return code == 0 ? 0 : kExitUsage;
  }
  return ctx.exit_code;
}

}  // namespace cellsim::cli

int main(int argc, char** argv) { return cellsim::cli::Main(argc, argv); }
