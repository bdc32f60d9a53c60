// `cellsim rack create DIR [options]`, `cellsim rack info DIR` and `cellsim rack
// recover DIR` (what a killed writer left: cells, disk groups and the
// database recover at a write open, and nothing else is done): a persistent
// rack directory (cells, grid disks, flash, ASM disk groups) that `sql`,
// `cellcli` and `asmcmd` then work on. The defaults are those of
// asmgr::DefaultRackConfig(); --disk-group (repeatable) replaces its groups.
#include <unistd.h>

#include <iostream>
#include <ostream>

#include "absl/strings/ascii.h"
#include "cellsim/base/units.h"
#include "cellsim/lab/command_parsers.h"
#include "cellsim/cli/commands.h"
#include "cellsim/cli/console.h"
#include "cellsim/cli/instance.h"
#include "cellsim/cli/rack_env.h"
#include "cellsim/cli/rack_lock_cli.h"
#include "cellsim/cli/served_commands.h"
#include "cellsim/report/asmcmd.h"
#include "fmt/format.h"

namespace cellsim::cli {
namespace {

struct CreateArgs {
  std::string dir;
  uint32_t cells = 0;
  uint32_t disks_per_cell = 0;
  std::vector<std::string> disk_groups;
  std::string flash_size;
  std::string flash_cache_mode;
  std::string io = "auto";
  RackOptions rack;
};

struct InfoArgs {
  std::string dir;
  RackOptions rack;
};

std::string DescribeConfig(const asmgr::RackConfig& c) {
  std::string out = fmt::format(
      "cells:              {} ({}01..{}{:02d}), {} cell disks each\n"
      "flash per cell:     {}\n"
      "flash cache mode:   {} (at creation)\n"
      "grid disk I/O:      {}\n",
      c.cells, c.cell_name_prefix, c.cell_name_prefix, c.cells, c.cell_disks_per_cell,
      c.flash_size == 0 ? "cell default" : FormatBytes(c.flash_size),
      cell::FlashCacheModeName(c.flash_cache_mode), c.direct_io ? "O_DIRECT" : "buffered");
  for (const asmgr::DiskGroupSpec& g : c.disk_groups) {
    out += fmt::format("disk group +{}:  {} redundancy, AU {}, {} per cell disk\n", g.name,
                       asmgr::RedundancyName(g.redundancy), FormatBytes(g.au_size),
                       FormatBytes(g.grid_disk_size));
  }
  return out;
}

// The rack's state as the other front ends show it: cells with their flash
// cache mode, disk groups (lsdg) and the database, if any.
absl::Status PrintInfo(const RackEnv& env, std::ostream& out = std::cout) {
  const asmgr::Rack& rack = *env.rack;
  out << fmt::format("rack {}\n", rack.dir()) << DescribeConfig(rack.config()) << "\n";
  for (uint32_t i = 0; i < rack.cell_count(); ++i) {
    absl::StatusOr<cell::CellDescription> d = rack.cell(i)->Describe();
    if (!d.ok()) return d.status();
    out << fmt::format("{}: flashCacheMode {}, flash cache {} ({}), {} grid disks\n",
                             d->name, cell::FlashCacheModeName(d->flash_cache_mode),
                             FormatBytes(d->flash_cache_size_bytes), d->flash_cache_status,
                             d->grid_disks.size());
  }
  const report::AsmSnapshot snap = SnapshotAsm(rack);
  absl::StatusOr<std::string> lsdg = report::RenderLsdg(snap);
  if (!lsdg.ok()) return lsdg.status();
  out << "\n" << *lsdg << "\n";
  std::vector<std::string> control_files;
  for (const report::AsmDiskGroupSnapshot& g : snap.groups) {
    for (const asmgr::FileView& f : g.files) {
      if (f.type == "CONTROLFILE") control_files.push_back(f.name);
    }
  }
  if (control_files.empty()) {
    out << "database: none yet (`cellsim sql` creates ORCL on first use)\n";
  } else {
    out << "database control files:\n";
    for (const std::string& n : control_files) out << "  " << n << "\n";
  }
  if (env.db != nullptr) {  // served by the instance that has it open
    out << fmt::format("instance: pid {} has the rack and database {} open and serves its "
                       "sessions (`cellsim instance`)\n",
                       getpid(), env.db->name());
  }
  out << std::flush;
  return absl::OkStatus();
}

void RunCreate(const CreateArgs& a, CommandContext& ctx) {
  const std::string cmd = "rack create";
  asmgr::RackConfig config = asmgr::DefaultRackConfig();
  if (a.cells != 0) config.cells = a.cells;
  if (a.disks_per_cell != 0) config.cell_disks_per_cell = a.disks_per_cell;
  if (!a.disk_groups.empty()) {
    config.disk_groups.clear();
    for (const std::string& text : a.disk_groups) {
      absl::StatusOr<asmgr::DiskGroupSpec> g = ParseDiskGroupOption(text);
      if (!g.ok()) return Fail(ctx, cmd, g.status());
      config.disk_groups.push_back(*g);
    }
  }
  if (!a.flash_size.empty()) {
    absl::StatusOr<uint64_t> fs = ParseSize(a.flash_size);
    if (!fs.ok() || *fs == 0) {
      return Fail(ctx, cmd, fmt::format("--flash-size '{}' is not a size like 1g", a.flash_size),
                  kExitUsage);
    }
    config.flash_size = *fs;
  }
  if (!a.flash_cache_mode.empty()) {
    const std::string m = absl::AsciiStrToLower(a.flash_cache_mode);
    config.flash_cache_mode =
        m == "writethrough" ? cell::FlashCacheMode::kWriteThrough : cell::FlashCacheMode::kWriteBack;
  }
  if (absl::Status v = asmgr::ValidateRackConfig(config); !v.ok()) return Fail(ctx, cmd, v);
  absl::StatusOr<RackEnv> created = CreateRackEnv(a.dir, a.rack, config, a.io, /*quiet=*/false);
  if (!created.ok()) return Fail(ctx, cmd, created.status());
  RackEnv env = std::move(*created);
  std::cout << fmt::format("Rack created in {}.\n", a.dir);
  absl::Status printed = PrintInfo(env);
  FailFirst(ctx, cmd, printed, env.Close());
}

void RunInfo(const InfoArgs& a, CommandContext& ctx) {
  const std::string cmd = "rack info";
  if (std::optional<int> code = RunInInstance(a.dir, a.rack, cmd, "{}")) {
    ctx.exit_code = *code;
    return;
  }
  absl::StatusOr<RackEnv> env = OpenRackEnv(a.dir, a.rack, asmgr::RackAccess::kReadOnly);
  if (!env.ok()) return Fail(ctx, cmd, env.status());
  absl::Status printed = PrintInfo(*env);
  FailFirst(ctx, cmd, printed, env->Close());
}

// Opens the rack for write (each cell replays its journal, each disk group
// its own) and the database if there is one (its mount undoes interrupted
// statements), says what was done, and closes.
void RunRecover(const InfoArgs& a, CommandContext& ctx) {
  const std::string cmd = "rack recover";
  if (std::optional<int> code = RunInInstance(a.dir, a.rack, cmd, "{}")) {
    ctx.exit_code = *code;
    return;
  }
  absl::StatusOr<RackEnv> env =
      OpenRackEnv(a.dir, a.rack, asmgr::RackAccess::kReadWrite, /*report_repairs=*/false);
  if (!env.ok()) return Fail(ctx, cmd, env.status());
  std::vector<std::string> actions = env->rack->metadata_repairs();
  absl::StatusOr<std::unique_ptr<db::Database>> db = db::Database::Open(env->rack.get());
  if (db.ok()) {
    env->db = std::move(*db);
    for (const std::string& action : env->db->recovery_actions()) {
      actions.push_back(fmt::format("database {}: {}", env->db->name(), action));
    }
  } else if (db.status().code() != absl::StatusCode::kNotFound) {
    (void)env->Close();
    return Fail(ctx, cmd, db.status());
  }
  for (const std::string& action : actions) std::cout << "recovery: " << action << "\n";
  std::cout << fmt::format("Rack in {} recovered{}: cells, disk groups{} consistent and closed.\n",
                           a.dir, actions.empty() ? " (nothing was half-done)" : "",
                           env->db != nullptr ? " and the database" : "");
  if (absl::Status closed = env->Close(); !closed.ok()) return Fail(ctx, cmd, closed);
}

}  // namespace

int ServeRackInfo(lab::RackEnv& env, const std::string& /*request*/, pid_t /*client_pid*/,
                  Console& console) {
  const absl::Status printed = PrintInfo(env, *console.out);
  return printed.ok() ? 0 : ReportFailure(console, "rack info", printed);
}

int ServeRackRecover(lab::RackEnv& env, const std::string& /*request*/, pid_t /*client_pid*/,
                     Console& console) {
  std::vector<std::string> actions = env.rack->metadata_repairs();
  for (const std::string& action : env.db->recovery_actions()) {
    actions.push_back(fmt::format("database {}: {}", env.db->name(), action));
  }
  for (const std::string& action : actions) {
    *console.out << "recovery (when the instance opened the rack): " << action << "\n";
  }
  *console.out << fmt::format(
                      "Rack in {} is open in the instance (pid {}), which recovered it when it "
                      "started{}: cells, disk groups and the database are consistent; nothing "
                      "to do.\n",
                      env.rack->dir(), getpid(),
                      actions.empty() ? " (nothing was half-done)" : "")
               << std::flush;
  return 0;
}

void RegisterRack(CLI::App& app, CommandContext& ctx) {
  CLI::App* rack = app.add_subcommand("rack", "Create or describe a persistent rack directory");
  rack->require_subcommand(1);

  auto [create, c] = AddCommand<CreateArgs>(
      *rack, ctx, "create",
      "Create a rack in DIR (must be empty or missing): cells with grid disks and a flash "
      "cache, and ASM disk groups. Defaults: 3 cells x 12 cell disks, 1 GiB flash, "
      "write-back, DATA NORMAL 2g and RECO NORMAL 1g per cell disk, AU 4m (sparse files)",
      RunCreate);
  AddRackDirArgument(create, &c->dir);
  create->add_option("--cells", c->cells, "Number of cells (cel01, cel02, ...; default 3)")
      ->check(CLI::Range(1, 99));
  create->add_option("--disks-per-cell", c->disks_per_cell,
                     "Cell disks per cell, each carrying one grid disk per disk group (default 12)")
      ->check(CLI::Range(1, 99));
  create->add_option("--disk-group", c->disk_groups,
                     "NAME:REDUNDANCY:SIZE_PER_DISK[:AU[:CACHING_POLICY]], e.g. DATA:NORMAL:2g, "
                     "RECO:high:512m:1m or RECO:NORMAL:1g:4m:none (grid disks kept off the flash "
                     "cache, as Oracle suggests for RECO) (repeatable; replaces the default DATA "
                     "and RECO)");
  create->add_option("--flash-size", c->flash_size, "Flash device size per cell (default 1g)");
  create->add_option("--flash-cache-mode", c->flash_cache_mode,
                     "writeback (default) or writethrough")
      ->transform(CLI::IsMember({"writeback", "writethrough"}, CLI::ignore_case));
  AddIoModeOption(create, &c->io);
  AddRackOptions(create, &c->rack);

  auto [info, i] = AddCommand<InfoArgs>(
      *rack, ctx, "info",
      "Describe the rack in DIR: configuration, cells, disk groups, database",
      RunInfo);
  AddRackDirArgument(info, &i->dir);
  AddRackOptions(info, &i->rack);

  auto [recover, r] = AddCommand<InfoArgs>(
      *rack, ctx, "recover",
      "Recover the rack in DIR after a writer was killed or crashed (read commands refuse such "
      "a rack): cells replay their journals, disk groups theirs, the database undoes "
      "interrupted statements; nothing else is changed",
      RunRecover);
  AddRackDirArgument(recover, &r->dir);
  AddRackOptions(recover, &r->rack);
}

}  // namespace cellsim::cli
