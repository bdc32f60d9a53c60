#include "cellsim/cli/rack_env.h"

#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "cellsim/cli/rack_lock_cli.h"
#include "fmt/format.h"
#include "fmt/ranges.h"

namespace cellsim::cli {

void AddRackDirArgument(CLI::App* cmd, std::string* dir) {
  cmd->add_option("DIR", *dir, "Rack directory")->required();
}

void AddRackOptions(CLI::App* cmd, RackOptions* options) {
  cmd->add_option("--backend", options->backend,
                  "I/O backend of the grid disks and flash: io_uring, posix, or auto (io_uring "
                  "where the kernel allows it, else posix, saying so)")
      ->check(CLI::IsMember({"io_uring", "uring", "posix", "auto"}))
      ->capture_default_str();
  cmd->add_option("--fixed-time", options->fixed_time,
                  "Use this wall-clock time (Unix seconds) for creation times, the dbid and "
                  "ASM file incarnations instead of the real time, so that racks built the "
                  "same way hold the same bytes (elapsed times stay real)");
  AddLockTimeoutOption(cmd, &options->lock_timeout);
  lab::SimOptions& sim = options->sim;
  cmd->add_option("--profile", sim.profile,
                  "Exadata device profile (x2-2, x3-2, x4-2, x5-2, x7-2, x8m-2, x9m-2, x10m, or "
                  "x3-2-hc, x5-2-ef, ...; or a JSON file from `cellsim probe --profile`): "
                  "times are then modeled on that hardware (docs/profiles.md)");
  cmd->add_option("--rack", sim.rack, "Rack size under --profile: eighth, quarter, half, full")
      ->check(CLI::IsMember({"eighth", "quarter", "half", "full"}))
      ->capture_default_str();
  cmd->add_option("--clock", sim.clock,
                  "simulated (the default with --profile: deterministic modeled time) or real "
                  "(this machine's time)")
      ->check(CLI::IsMember({"simulated", "real"}));
  cmd->add_flag("--model-only", sim.model_only,
                "With the simulated clock: do not store data bytes on the grid disks (formatting "
                "and large writes are modeled and counted, metadata stays real), so a 1 TB file "
                "or a full rack fits here; such files read back as zeros");
  cmd->add_option("--trace", sim.trace,
                  "Write a Chrome trace-event timeline to FILE (open it in ui.perfetto.dev or "
                  "chrome://tracing): a track per session, cell, cell disk and flash card");
}

void AddIoModeOption(CLI::App* cmd, std::string* mode) {
  cmd->add_option("--io", *mode,
                  "How grid disks and flash are opened: auto (O_DIRECT where the directory's "
                  "filesystem accepts it, as `cellsim probe` shows, else buffered, saying "
                  "so), direct (fail if refused) or buffered")
      ->check(CLI::IsMember({"auto", "direct", "buffered"}))
      ->capture_default_str();
  cmd->add_flag_callback("--direct", [mode] { *mode = "direct"; }, "Same as --io direct");
  cmd->add_flag_callback("--buffered", [mode] { *mode = "buffered"; }, "Same as --io buffered");
}

absl::StatusOr<lab::EnvOptions> ToEnvOptions(const RackOptions& options, const std::string& dir,
                                             asmgr::RackAccess access) {
  absl::StatusOr<io::BackendRequest> backend = io::ParseBackendRequest(options.backend);
  if (!backend.ok()) return backend.status();
  lab::EnvOptions env{.backend = *backend, .fixed_time = options.fixed_time, .sim = options.sim};
  if (!dir.empty()) {
    absl::StatusOr<asmgr::RackOpenOptions> open =
        MakeRackOpenOptions(dir, access, options.lock_timeout);
    if (!open.ok()) return open.status();
    env.lock = open->lock;
  }
  return env;
}

absl::StatusOr<IoEnv> MakeIoEnv(const RackOptions& options, const std::string& trace_prefix,
                                sim::TraceWriter* shared_trace) {
  absl::StatusOr<lab::EnvOptions> env = ToEnvOptions(options, "");
  if (!env.ok()) return env.status();
  return lab::MakeIoEnv(*env, trace_prefix, shared_trace);
}

namespace {

// A grid disk the cells opened without (its file missing or damaged) is said
// on every command, as a repair is: its disk group runs on the mirrors, and
// the reason names the way out.
void ReportAbsentGridDisks(const asmgr::Rack& rack) {
  for (uint32_t c = 0; c < rack.cell_count(); ++c) {
    cell::CellService* cell = rack.cell(c);
    if (cell == nullptr) continue;
    absl::StatusOr<cell::CellDescription> d = cell->Describe();
    if (!d.ok()) continue;
    std::vector<std::pair<std::string, std::vector<std::string>>> by_reason;  // a lost cell: one
    for (const cell::GridDiskInfo& g : d->grid_disks) {
      if (g.status != "not present") continue;
      if (by_reason.empty() || by_reason.back().first != g.status_reason) {
        by_reason.push_back({g.status_reason, {}});
      }
      by_reason.back().second.push_back(g.name);
    }
    for (const auto& [reason, names] : by_reason) {
      std::cerr << fmt::format("cellsim: grid disk{} {} of cell {} {} not present (ASM serves "
                               "{} from the mirrors): {}\n",
                               names.size() == 1 ? "" : "s", fmt::join(names, ", "), d->name,
                               names.size() == 1 ? "is" : "are", names.size() == 1 ? "it" : "them",
                               reason);
    }
  }
}

}  // namespace

absl::StatusOr<RackEnv> OpenRackEnv(const std::string& dir, const RackOptions& options,
                                    asmgr::RackAccess access, bool report_repairs) {
  absl::StatusOr<lab::EnvOptions> env = ToEnvOptions(options, dir, access);
  if (!env.ok()) return env.status();
  absl::StatusOr<RackEnv> rack = lab::OpenRackEnv(dir, *env);
  // Damaged metadata the open repaired (a flipped superblock byte, a lost
  // flash device) is said on every command, not only by `rack recover`; a
  // read-only command says what it found and left for one that writes.
  if (rack.ok() && report_repairs) {
    const char* what = rack->rack->read_only()
                           ? "damaged metadata left as it is (this command only reads; the next "
                             "command that writes repairs it)"
                           : "repaired on open";
    for (const std::string& r : rack->rack->metadata_repairs()) {
      std::cerr << "cellsim: " << what << ": " << r << "\n";
    }
    ReportAbsentGridDisks(*rack->rack);
  }
  return rack;
}

absl::StatusOr<RackEnv> CreateRackEnv(const std::string& dir, const RackOptions& options,
                                      const asmgr::RackConfig& config,
                                      const std::string& io_mode, bool quiet) {
  absl::StatusOr<lab::EnvOptions> env = ToEnvOptions(options, dir, asmgr::RackAccess::kReadWrite);
  if (!env.ok()) return env.status();
  absl::StatusOr<io::IoModeRequest> mode = io::ParseIoModeRequest(io_mode);
  if (!mode.ok()) return mode.status();
  io::IoChoice choice;
  absl::StatusOr<RackEnv> rack = lab::CreateRackEnv(dir, *env, config, *mode, &choice);
  if (!rack.ok()) return rack.status();
  (quiet ? std::cerr : std::cout) << fmt::format("I/O: {}\n", choice.Describe());
  return rack;
}

std::string RackOptionsGiven(const RackOptions& options) {
  const RackOptions defaults;
  std::vector<std::string> given;
  if (options.backend != defaults.backend) given.push_back("--backend");
  if (options.fixed_time.has_value()) given.push_back("--fixed-time");
  if (options.sim.profile != defaults.sim.profile) given.push_back("--profile");
  if (options.sim.rack != defaults.sim.rack) given.push_back("--rack");
  if (options.sim.clock != defaults.sim.clock) given.push_back("--clock");
  if (options.sim.model_only != defaults.sim.model_only) given.push_back("--model-only");
  if (options.sim.trace != defaults.sim.trace) given.push_back("--trace");
  return fmt::format("{}", fmt::join(given, ", "));
}

db::DatabaseOptions DatabaseFlags::Apply(db::DatabaseOptions base) const {
  base.standard_files.create = standard_files;
  if (all_objects_rows.has_value()) base.all_objects_rows = *all_objects_rows;
  return base;
}

void AddDatabaseFlags(CLI::App* cmd, DatabaseFlags* flags) {
  cmd->add_flag("--standard-files", flags->standard_files,
                "When the database is created: also create SYSTEM, SYSAUX, UNDOTBS1, TEMP, USERS "
                "and thread 1's log groups 1-3 (needed by tables and DML)");
  cmd->add_option("--all-objects-rows", flags->all_objects_rows,
                  fmt::format("Rows of the built-in ALL_OBJECTS view (default {}; a setting of "
                              "the open database, not stored: give it at every open)",
                              db::DatabaseOptions{}.all_objects_rows));
}

void WarnStandardFilesTooLate(const db::Database& db, std::string_view command,
                              std::ostream& out) {
  const std::vector<std::string> missing = lab::MissingStandardTablespaces(db);
  if (missing.empty()) return;
  out << fmt::format(
      "{}: --standard-files changed nothing: database {} already exists, and the standard files "
      "are made only when a database is created; it has no {}. Create them (e.g. CREATE "
      "TABLESPACE {} DATAFILE '+DATA' SIZE 64M) or start from a new rack (cellsim rack create).\n",
      command, db.name(), fmt::join(missing, ", "), missing.back());
}

}  // namespace cellsim::cli
