// `cellsim cellcli DIR [-c CELL[,CELL]] -e "COMMAND" [-e ...]` (or a command
// after DIR: `cellsim cellcli DIR list cell detail`): CellCLI against
// the cells of a rack (command_parsers.h lists the commands). Without -c the
// command runs on every cell and each output line is prefixed by the cell's
// name, as `dcli -g cell_group cellcli -e ...` prints; with -c naming one cell
// the output is that cell's CellCLI output as is.
#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "cellsim/cell/cell.h"
#include "cellsim/cli/commands.h"
#include "cellsim/cli/console.h"
#include "cellsim/cli/instance.h"
#include "cellsim/cli/served_commands.h"
#include "cellsim/cli/progress.h"
#include "cellsim/cli/rack_env.h"
#include "cellsim/lab/command_run.h"
#include "cellsim/report/cellcli.h"
#include "fmt/format.h"
#include "fmt/ranges.h"
#include "nlohmann/json.hpp"

namespace cellsim::cli {
namespace {

struct CellCliArgs {
  std::string dir;
  std::vector<std::string> commands;
  std::vector<std::string> cells;
  bool utc = false;
  RackOptions rack;
};

absl::StatusOr<std::vector<CellCliCommand>> ParseCellCliCommands(
    const std::vector<std::string>& texts) {
  if (texts.empty()) {
    return absl::InvalidArgumentError(
        "nothing to run: give a command (`cellcli DIR list cell`) or -e COMMAND");
  }
  std::vector<CellCliCommand> parsed;
  for (const std::string& text : texts) {
    absl::StatusOr<CellCliCommand> c = ParseCellCliCommand(text);
    if (!c.ok()) return c.status();
    parsed.push_back(*c);
  }
  return parsed;
}

// Runs `parsed` in order on the cells `cells` names (every cell when
// empty; with more than one, each line prefixed by its cell's name, as dcli
// does), printing on `console`; the first error (InvalidArgument for a cell
// the rack does not have).
absl::Status RunCellCliCommands(const std::vector<CellCliCommand>& parsed,
                         const std::vector<std::string>& cells, bool utc, asmgr::Rack& rack,
                         Console& console) {
  std::vector<uint32_t> chosen;
  std::vector<std::string> names;
  for (uint32_t i = 0; i < rack.cell_count(); ++i) names.push_back(rack.cell_name(i));
  if (cells.empty()) {
    for (uint32_t i = 0; i < names.size(); ++i) chosen.push_back(i);
  }
  for (const std::string& want : cells) {
    bool found = false;
    for (uint32_t i = 0; i < names.size(); ++i) {
      if (absl::AsciiStrToLower(want) == names[i]) {
        chosen.push_back(i);
        found = true;
      }
    }
    if (!found) {
      return absl::InvalidArgumentError(
          fmt::format("-c {}: no such cell (the rack has {})", want, fmt::join(names, ", ")));
    }
  }
  const bool prefix = cells.size() != 1;
  // ALTER FLASHCACHE ALL FLUSH draws a progress bar per cell.
  std::unique_ptr<ProgressBar> bar;
  uint64_t total = 0;
  lab::CommandRunOptions run{
      .utc = utc, .flush_progress = [&](uint32_t cell, const cell::FlushProgress& p) {
        if (bar == nullptr) {
          bar = std::make_unique<ProgressBar>(fmt::format("{} flush", names[cell]),
                                              /*force=*/false, console.err_fd);
          total = 0;
        }
        total = std::max(total, p.bytes_destaged + p.dirty_bytes_remaining);
        bar->Update("flush", p.bytes_destaged, total);
      }};
  for (const CellCliCommand& c : parsed) {
    const auto print = [&](uint32_t cell, const std::string& text) {
      if (bar != nullptr) bar->Finish();
      bar.reset();
      *console.out << (prefix ? lab::PrefixLines(text, names[cell]) : text) << std::flush;
    };
    absl::Status failure = lab::RunCellCli(c, rack, chosen, run, print);
    bar.reset();
    if (!failure.ok()) return failure;
  }
  return absl::OkStatus();
}

void RunCellCli(const CellCliArgs& a, CommandContext& ctx) {
  const std::string cmd = "cellcli";
  absl::StatusOr<std::vector<CellCliCommand>> parsed = ParseCellCliCommands(a.commands);
  if (!parsed.ok()) return Fail(ctx, cmd, parsed.status());
  const nlohmann::json request = {{"commands", a.commands}, {"cells", a.cells}, {"utc", a.utc}};
  if (std::optional<int> code = RunInInstance(a.dir, a.rack, cmd, request.dump())) {
    ctx.exit_code = *code;
    return;
  }
  // LIST and DESCRIBE read; ALTER (flush, flashCacheMode, cachingPolicy) and CREATE write.
  bool writes = false;
  for (const CellCliCommand& c : *parsed) {
    writes |= c.kind != CellCliCommand::Kind::kList && c.kind != CellCliCommand::Kind::kDescribe;
  }
  absl::StatusOr<RackEnv> env = OpenRackEnv(
      a.dir, a.rack, writes ? asmgr::RackAccess::kReadWrite : asmgr::RackAccess::kReadOnly);
  if (!env.ok()) return Fail(ctx, cmd, env.status());
  Console console;
  const absl::Status failure = RunCellCliCommands(*parsed, a.cells, a.utc, *env->rack, console);
  if (FailFirst(ctx, cmd, failure, env->Close())) return;
}

}  // namespace

int ServeCellCli(lab::RackEnv& env, const std::string& request, pid_t /*client_pid*/,
                 Console& console) {
  const nlohmann::json j = nlohmann::json::parse(request, nullptr, /*allow_exceptions=*/false);
  std::optional<std::vector<std::string>> texts = StringsOf(j, "commands");
  std::optional<std::vector<std::string>> cells = StringsOf(j, "cells");
  if (!texts.has_value() || !cells.has_value()) {
    return ReportFailure(console, "cellcli",
                         absl::InvalidArgumentError("the instance cannot read this request"));
  }
  absl::StatusOr<std::vector<CellCliCommand>> parsed = ParseCellCliCommands(*texts);
  if (!parsed.ok()) return ReportFailure(console, "cellcli", parsed.status());
  const absl::Status failure =
      RunCellCliCommands(*parsed, *cells, j.value("utc", false), *env.rack, console);
  return failure.ok() ? 0 : ReportFailure(console, "cellcli", failure);
}

void RegisterCellCli(CLI::App& app, CommandContext& ctx) {
  auto [c, args] = AddCommand<CellCliArgs>(
      app, ctx, "cellcli",
      "CellCLI on the cells of rack DIR: LIST " + report::CellCliObjectTypeNames("|") +
          " [NAME | WHERE attr op value [AND ...]] [ATTRIBUTES a, b | ALL] [DETAIL], DESCRIBE "
          "type, ALTER FLASHCACHE ALL FLUSH, "
          "ALTER CELL flashCacheMode = writeback|writethrough, ALTER GRIDDISK {ALL | NAME[,NAME]} "
          "INACTIVE|ACTIVE|cachingPolicy=none|default, CREATE GRIDDISK NAME (replaces a "
          "grid disk that is not present) (case-insensitive)",
      RunCellCli);
  AddRackDirArgument(c, &args->dir);
  // Each -e and -c takes one word: the words after it are the trailing command.
  c->add_option("-e,--execute", args->commands, "A CellCLI command (repeatable, in order)")
      ->allow_extra_args(false);
  c->add_option("-c,--cell", args->cells,
                "Cell(s) to run on, e.g. -c cel02 or -c cel01,cel03 (default: every cell, each "
                "line prefixed by the cell name as dcli does)")
      ->delimiter(',')
      ->allow_extra_args(false);
  c->add_flag("--utc", args->utc, "Print times in UTC");
  AddRackOptions(c, &args->rack);
  AddTrailingCommand(c, &args->commands);
  c->footer(
      "A command may also follow DIR, as cellcli -e takes one: cellsim cellcli DIR list "
      "griddisk detail (options of cellsim cellcli go before it; it runs after the -e "
      "commands).");
}

}  // namespace cellsim::cli
