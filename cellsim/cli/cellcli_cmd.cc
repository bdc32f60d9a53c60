// `cellsim cellcli DIR [-c CELL[,CELL]] -e "COMMAND" [-e ...]`: CellCLI against
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
#include "cellsim/cli/command_parsers.h"
#include "cellsim/cli/commands.h"
#include "cellsim/cli/progress.h"
#include "cellsim/cli/rack_env.h"
#include "cellsim/report/cellcli.h"
#include "fmt/format.h"

namespace cellsim::cli {
namespace {

struct CellCliArgs {
  std::string dir;
  std::vector<std::string> commands;
  std::vector<std::string> cells;
  bool utc = false;
  RackOptions rack;
};

// Runs one command on one cell and returns what CellCLI prints.
absl::StatusOr<std::string> RunOnCell(const CellCliCommand& c, cell::CellService* cell,
                                      bool utc) {
  using Kind = CellCliCommand::Kind;
  switch (c.kind) {
    case Kind::kListCell:
    case Kind::kListFlashCache:
    case Kind::kListCellDisk:
    case Kind::kListGridDisk: {
      absl::StatusOr<cell::CellDescription> d = cell->Describe();
      if (!d.ok()) return d.status();
      if (c.kind == Kind::kListGridDisk) return report::RenderListGridDisk(*d);
      if (c.kind == Kind::kListCellDisk) return report::RenderListCellDisk(*d);
      if (c.kind == Kind::kListCell) {
        if (c.detail) {
          report::CellDetailExtras extras;
          extras.utc = utc;
          return report::RenderListCellDetail(*d, extras);
        }
        // LIST CELL: name, status (a cell Open found absent is offline).
        const bool absent = std::all_of(d->grid_disks.begin(), d->grid_disks.end(),
                                        [](const auto& g) { return g.status == "not present"; });
        return fmt::format("\t {}\t {}\n", d->name, absent ? "offline" : "online");
      }
      if (c.detail) return report::RenderListFlashCacheDetail(*d, utc);
      return fmt::format("\t {}_FLASHCACHE\t {}\n", d->name, d->flash_cache_status);
    }
    case Kind::kListMetricCurrent: {
      absl::StatusOr<std::vector<cell::Metric>> metrics = cell->Metrics();
      if (!metrics.ok()) return metrics.status();
      std::vector<cell::Metric> kept;
      for (const cell::Metric& m : *metrics) {
        if (MetricMatches(m, c.filters)) kept.push_back(m);
      }
      return report::RenderListMetricCurrent(kept);
    }
    case Kind::kFlushFlashCache: {
      ProgressBar bar(fmt::format("{} flush", cell->name()));
      uint64_t total = 0;
      absl::StatusOr<cell::FlushProgress> done =
          cell->Flush([&bar, &total](const cell::FlushProgress& p) {
            total = std::max(total, p.bytes_destaged + p.dirty_bytes_remaining);
            bar.Update("flush", p.bytes_destaged, total);
          });
      bar.Finish();
      if (!done.ok()) return done.status();
      return fmt::format("Flash cache {}_FLASHCACHE altered successfully\n", cell->name());
    }
    case Kind::kSetFlashCacheMode: {
      absl::Status s = cell->SetFlashCacheMode(c.mode);
      if (!s.ok()) return s;
      return fmt::format("Cell {} successfully altered\n", cell->name());
    }
    case Kind::kCreateGridDisk:
      break;  // a rack operation (RunCellCli)
  }
  return absl::InternalError("unhandled CellCLI command");
}

std::string Prefix(const std::string& text, const std::string& cell) {
  std::string out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) out += cell + ": " + line + "\n";
  return out;
}

void RunCellCli(const CellCliArgs& a, CommandContext& ctx) {
  const std::string cmd = "cellcli";
  if (a.commands.empty()) return Fail(ctx, cmd, "nothing to run: give -e COMMAND", kExitUsage);
  std::vector<CellCliCommand> parsed;
  for (const std::string& text : a.commands) {
    absl::StatusOr<CellCliCommand> c = ParseCellCliCommand(text);
    if (!c.ok()) return Fail(ctx, cmd, c.status());
    parsed.push_back(*c);
  }
  // LIST commands read; ALTER (flush, flashCacheMode) and CREATE write.
  bool writes = false;
  for (const CellCliCommand& c : parsed) {
    writes |= c.kind == CellCliCommand::Kind::kFlushFlashCache ||
              c.kind == CellCliCommand::Kind::kSetFlashCacheMode ||
              c.kind == CellCliCommand::Kind::kCreateGridDisk;
  }
  absl::StatusOr<RackEnv> env = OpenRackEnv(
      a.dir, a.rack, writes ? asmgr::RackAccess::kReadWrite : asmgr::RackAccess::kReadOnly);
  if (!env.ok()) return Fail(ctx, cmd, env.status());
  std::vector<uint32_t> chosen;
  std::vector<std::string> names;
  for (uint32_t i = 0; i < env->rack->cell_count(); ++i) names.push_back(env->rack->cell_name(i));
  if (a.cells.empty()) {
    for (uint32_t i = 0; i < names.size(); ++i) chosen.push_back(i);
  } else {
    for (const std::string& want : a.cells) {
      bool found = false;
      for (uint32_t i = 0; i < names.size(); ++i) {
        if (absl::AsciiStrToLower(want) == names[i]) {
          chosen.push_back(i);
          found = true;
        }
      }
      if (!found) {
        (void)env->Close();
        return Fail(ctx, cmd,
                    fmt::format("-c {}: no such cell (the rack has {})", want, fmt::join(names, ", ")),
                    kExitUsage);
      }
    }
  }
  const bool prefix = a.cells.size() != 1;
  absl::Status failure;
  for (const CellCliCommand& c : parsed) {
    if (c.kind == CellCliCommand::Kind::kCreateGridDisk) {
      // The name says which cell; ASM records the disk's content as lost
      // first (Rack::CreateGridDisk), then the cell creates the file.
      if (absl::Status s = env->rack->CreateGridDisk(c.grid_disk); !s.ok()) {
        failure = s;
        break;
      }
      std::cout << fmt::format("GridDisk {} successfully created\n", c.grid_disk);
      continue;
    }
    for (uint32_t i : chosen) {
      absl::StatusOr<std::string> out = RunOnCell(c, env->rack->cell(i), a.utc);
      if (!out.ok()) {
        failure = absl::Status(out.status().code(), fmt::format("{}: {}", names[i],
                                                                std::string(out.status().message())));
        break;
      }
      std::cout << (prefix ? Prefix(*out, names[i]) : *out);
      std::cout.flush();
    }
    if (!failure.ok()) break;
  }
  absl::Status closed = env->Close();
  if (!failure.ok()) return Fail(ctx, cmd, failure);
  if (!closed.ok()) return Fail(ctx, cmd, closed);
}

}  // namespace

void RegisterCellCli(CLI::App& app, CommandContext& ctx) {
  auto args = std::make_shared<CellCliArgs>();
  CLI::App* c = app.add_subcommand(
      "cellcli",
      "CellCLI on the cells of rack DIR: LIST CELL|CELLDISK|FLASHCACHE|GRIDDISK [DETAIL], LIST "
      "METRICCURRENT [NAME] [WHERE objectType = 'FLASHCACHE'], ALTER FLASHCACHE ALL FLUSH, "
      "ALTER CELL flashCacheMode = writeback|writethrough, CREATE GRIDDISK NAME (replaces a "
      "grid disk that is not present) (case-insensitive)");
  c->add_option("DIR", args->dir, "Rack directory")->required();
  c->add_option("-e,--execute", args->commands, "A CellCLI command (repeatable, in order)");
  c->add_option("-c,--cell", args->cells,
                "Cell(s) to run on, e.g. -c cel02 or -c cel01,cel03 (default: every cell, each "
                "line prefixed by the cell name as dcli does)")
      ->delimiter(',');
  c->add_flag("--utc", args->utc, "Print times in UTC");
  AddRackOptions(c, &args->rack);
  c->callback([args, &ctx] { RunCellCli(*args, ctx); });
}

}  // namespace cellsim::cli
