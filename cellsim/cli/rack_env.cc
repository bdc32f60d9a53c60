#include "cellsim/cli/rack_env.h"

#include <filesystem>

#include "cellsim/cli/rack_lock_cli.h"

#include "fmt/format.h"

namespace cellsim::cli {

void AddRackOptions(CLI::App* cmd, RackOptions* options) {
  cmd->add_option("--backend", options->backend,
                  "I/O backend of the grid disks and flash: io_uring or posix")
      ->check(CLI::IsMember({"io_uring", "uring", "posix"}))
      ->capture_default_str();
  cmd->add_option("--fixed-time", options->fixed_time,
                  "Use this wall-clock time (Unix seconds) for creation times, the dbid and "
                  "ASM file incarnations instead of the real time, so that racks built the "
                  "same way hold the same bytes (elapsed times stay real)");
  AddLockTimeoutOption(cmd, &options->lock_timeout);
  cmd->add_option("--profile", options->profile,
                  "Exadata device profile (x2-2, x3-2, x4-2, x5-2, x7-2, x8m-2, x9m-2, x10m, or "
                  "x3-2-hc, x5-2-ef, ...; or a JSON file from `cellsim probe --profile`): "
                  "times are then modeled on that hardware (docs/profiles.md)");
  cmd->add_option("--rack", options->rack, "Rack size under --profile: eighth, quarter, half, full")
      ->check(CLI::IsMember({"eighth", "quarter", "half", "full"}))
      ->capture_default_str();
  cmd->add_option("--clock", options->clock,
                  "simulated (the default with --profile: deterministic modeled time) or real "
                  "(this machine's time)")
      ->check(CLI::IsMember({"simulated", "real"}));
  cmd->add_flag("--model-only", options->model_only,
                "With the simulated clock: do not store data bytes on the grid disks (formatting "
                "and large writes are modeled and counted, metadata stays real), so a 1 TB file "
                "or a full rack fits here; such files read back as zeros");
  cmd->add_option("--trace", options->trace,
                  "Write a Chrome trace-event timeline to FILE (open it in ui.perfetto.dev or "
                  "chrome://tracing): a track per session, cell, cell disk and flash card");
}

std::string IoEnv::ClockDescription() const {
  return sim != nullptr ? sim->ClockDescription() : "real (this machine)";
}

void IoEnv::ApplyShape(asmgr::RackConfig* config) const {
  if (sim == nullptr || sim->options().profile.name.empty()) return;
  config->cells = sim->options().shape.cells;
  config->cell_disks_per_cell = sim->options().shape.disks_per_cell;
}

absl::Status IoEnv::CheckShape(const asmgr::Rack& rack) const {
  if (sim == nullptr || sim->options().profile.name.empty()) return absl::OkStatus();
  const sim::RackShape& shape = sim->options().shape;
  if (rack.config().cells == shape.cells && rack.config().cell_disks_per_cell == shape.disks_per_cell) {
    return absl::OkStatus();
  }
  return absl::FailedPreconditionError(fmt::format(
      "the rack in {} has {} cells x {} cell disks, but a {} rack of {} has {} x {}: pass the "
      "--rack it was created with, or create one with `cellsim rack create DIR --profile {} "
      "--rack {}`",
      rack.dir(), rack.config().cells, rack.config().cell_disks_per_cell, shape.rack,
      sim->options().profile.name, shape.cells, shape.disks_per_cell, sim->options().profile.name,
      shape.rack));
}

namespace {

// The simulation part of MakeIoEnv: profile, clock kind, trace.
absl::Status MakeSimulation(const RackOptions& options, const std::string& trace_prefix,
                            sim::TraceWriter* shared_trace, IoEnv* env) {
  const bool has_profile = !options.profile.empty();
  const bool simulated = options.clock == "simulated" || (options.clock.empty() && has_profile);
  if (simulated && !has_profile) {
    return absl::InvalidArgumentError("--clock simulated needs --profile (e.g. --profile x3-2)");
  }
  if (options.model_only && !simulated) {
    return absl::InvalidArgumentError(
        "--model-only needs the simulated clock (--profile NAME, without --clock real)");
  }
  if (!has_profile && options.trace.empty() && shared_trace == nullptr) return absl::OkStatus();
  sim::Simulation::Options so;
  absl::StatusOr<sim::DeviceProfile> p = sim::LoadProfile(has_profile ? options.profile : "x3-2");
  if (!p.ok()) return absl::Status(p.status().code(), "--profile: " + std::string(p.status().message()));
  absl::StatusOr<sim::RackShape> shape = sim::ShapeFor(*p, options.rack);
  if (!shape.ok()) return shape.status();
  so.profile = *p;
  so.shape = *shape;
  if (!has_profile) so.profile.name.clear();  // tracing only: the rack keeps its own shape
  so.model_only = options.model_only;
  so.real_clock = !simulated;
  so.trace_prefix = trace_prefix;
  if (options.fixed_time.has_value()) so.unix_seconds = *options.fixed_time;
  if (shared_trace != nullptr) {
    so.trace = shared_trace;
  } else if (!options.trace.empty()) {
    env->owned_trace = std::make_unique<sim::TraceWriter>(simulated ? "simulated" : "real");
    so.trace = env->owned_trace.get();
    env->trace_path = options.trace;
  }
  env->sim = std::make_unique<sim::Simulation>(so);
  if (simulated) {
    env->clock = env->sim->clock();
    env->owned_clock.reset();
    // The database's I/O shape under the profile (docs/sim.md).
    env->db_options.zero_fill.request_bytes =
        static_cast<uint64_t>(so.profile.zero_fill_request_kib.value) * 1024;
    env->db_options.zero_fill.requests_per_batch =
        static_cast<uint32_t>(so.profile.zero_fill_requests_per_batch.value);
    env->db_options.zero_fill.batches_in_flight =
        static_cast<uint32_t>(so.profile.zero_fill_batches_in_flight.value);
    env->db_options.smart_extents_per_call = 0;  // every extent in flight, as the cells allow
  }
  sim::Simulation* s = env->sim.get();
  env->wrap = [s](uint32_t i, cell::CellService* c) { return s->WrapCell(i, c); };
  return absl::OkStatus();
}

}  // namespace

absl::Status FinishTrace(IoEnv& env) {
  if (env.owned_trace == nullptr || env.trace_path.empty()) return absl::OkStatus();
  absl::Status s = env.owned_trace->WriteFile(env.trace_path);
  env.trace_path.clear();
  return s;
}

absl::StatusOr<IoEnv> MakeIoEnv(const RackOptions& options, const std::string& trace_prefix,
                                sim::TraceWriter* shared_trace) {
  absl::StatusOr<io::BackendKind> kind = io::ParseBackendKind(options.backend);
  if (!kind.ok()) return kind.status();
  absl::StatusOr<std::unique_ptr<io::IoBackend>> backend = io::MakeBackend(*kind);
  if (!backend.ok()) {
    if (*kind == io::BackendKind::kUring) {
      return absl::UnavailableError(
          fmt::format("io_uring is not available here ({}); rerun with --backend posix",
                      std::string(backend.status().message())));
    }
    return backend.status();
  }
  IoEnv env;
  env.io = std::move(*backend);
  if (options.fixed_time.has_value()) {
    env.owned_clock = std::make_unique<FixedWallClock>(*options.fixed_time);
    env.clock = env.owned_clock.get();
  } else {
    env.clock = SystemClock();
  }
  if (absl::Status st = MakeSimulation(options, trace_prefix, shared_trace, &env); !st.ok()) {
    return st;
  }
  return env;
}

absl::Status RackEnv::Close() {
  absl::Status status;
  if (db != nullptr) {
    status = db->Close();
    db.reset();
  }
  if (rack != nullptr) {
    absl::Status s = rack->Close();
    if (status.ok()) status = s;
    rack.reset();
  }
  absl::Status t = FinishTrace(io);
  if (status.ok()) status = t;
  return status;
}

absl::StatusOr<RackEnv> OpenRackEnv(const std::string& dir, const RackOptions& options,
                                    asmgr::RackAccess access) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    return absl::NotFoundError(fmt::format(
        "{} is not a directory: create a rack there first with `cellsim rack create {}`", dir,
        dir));
  }
  absl::StatusOr<asmgr::RackOpenOptions> open = MakeRackOpenOptions(dir, access, options.lock_timeout);
  if (!open.ok()) return open.status();
  absl::StatusOr<IoEnv> io = MakeIoEnv(options);
  if (!io.ok()) return io.status();
  RackEnv env;
  env.io = std::move(*io);
  open->wrap = env.io.wrap;
  absl::StatusOr<std::unique_ptr<asmgr::Rack>> rack =
      asmgr::Rack::Open(env.io.io.get(), env.io.clock, dir, *open);
  if (!rack.ok()) {
    // The lock's own message already names the rack and the holder.
    if (rack.status().code() == absl::StatusCode::kUnavailable) return rack.status();
    return absl::Status(rack.status().code(),
                        fmt::format("cannot open the rack in {}: {}", dir,
                                    std::string(rack.status().message())));
  }
  env.rack = std::move(*rack);
  if (absl::Status st = env.io.CheckShape(*env.rack); !st.ok()) return st;
  return env;
}

absl::Status OpenOrCreateDatabase(RackEnv& env, bool* created,
                                  const db::DatabaseOptions& options) {
  *created = false;
  absl::StatusOr<std::unique_ptr<db::Database>> db = db::Database::Open(env.rack.get(), options);
  if (db.ok()) {
    env.db = std::move(*db);
    return absl::OkStatus();
  }
  if (db.status().code() != absl::StatusCode::kNotFound) return db.status();
  db = db::Database::Create(env.rack.get(), options);
  if (!db.ok()) return db.status();
  env.db = std::move(*db);
  *created = true;
  return absl::OkStatus();
}

report::StatementResult ToReportResult(const db::StatementResult& r) {
  report::StatementResult out;
  out.statement = r.statement;
  out.path = r.path;
  out.elapsed_s = static_cast<double>(r.elapsed_ns) / 1e9;
  out.cpu_s = static_cast<double>(r.cpu_ns) / 1e9;
  out.statistics = r.statistics;
  out.waits = r.waits;
  return out;
}

report::TkprofStatement ToTkprof(const db::StatementResult& r) {
  report::TkprofStatement t = report::TkprofFromResult(ToReportResult(r));
  auto fill = [](const db::CallStats& c, report::TkprofCall* call) {
    call->count = c.count;
    call->cpu_s = static_cast<double>(c.cpu_ns) / 1e9;
    call->elapsed_s = static_cast<double>(c.elapsed_ns) / 1e9;
    call->current = c.current;
    call->rows = c.rows;
  };
  if (r.parse.count > 0) fill(r.parse, &t.parse);
  if (r.execute.count > 0) fill(r.execute, &t.execute);
  return t;
}

report::AsmSnapshot SnapshotAsm(const asmgr::Rack& rack) {
  report::AsmSnapshot snap;
  for (asmgr::DiskGroup* dg : rack.disk_groups()) {
    snap.groups.push_back({dg->View(), dg->Disks(), dg->Files()});
  }
  return snap;
}

std::string SqlPlusFeedback(std::string_view kind) {
  auto starts = [&](std::string_view p) { return kind.substr(0, p.size()) == p; };
  if (starts("CREATE TABLESPACE")) return "Tablespace created.";
  if (starts("ALTER TABLESPACE")) return "Tablespace altered.";
  if (starts("DROP TABLESPACE")) return "Tablespace dropped.";
  if (starts("ALTER DATABASE")) return "Database altered.";
  if (starts("ALTER SESSION")) return "Session altered.";
  if (starts("ALTER DISKGROUP")) return "Diskgroup altered.";
  return "Statement processed.";
}

std::string SqlPlusElapsed(uint64_t elapsed_ns) {
  const uint64_t cs = (elapsed_ns + 5'000'000) / 10'000'000;  // hundredths, rounded
  return fmt::format("{:02d}:{:02d}:{:02d}.{:02d}", cs / 360000, cs / 6000 % 60, cs / 100 % 60,
                     cs % 100);
}

}  // namespace cellsim::cli
