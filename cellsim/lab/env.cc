#include "cellsim/lab/env.h"

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "fmt/format.h"

namespace cellsim::lab {

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

// The backend part of MakeIoEnv: io_uring or posix, as `request` says.
absl::Status MakeBackend(io::BackendRequest request, IoEnv* env) {
  const io::BackendKind want =
      request == io::BackendRequest::kPosix ? io::BackendKind::kPosix : io::BackendKind::kUring;
  absl::StatusOr<std::unique_ptr<io::IoBackend>> backend = io::MakeBackend(want);
  env->backend = want;
  if (backend.ok()) {
    env->backend_reason = request == io::BackendRequest::kAuto ? "available" : "asked for";
  } else if (want == io::BackendKind::kUring && request == io::BackendRequest::kAuto) {
    env->backend = io::BackendKind::kPosix;
    env->backend_reason = fmt::format("fell back: io_uring refused: {}",
                                      std::string(backend.status().message()));
    backend = io::MakePosixBackend();
  } else if (want == io::BackendKind::kUring) {
    return absl::UnavailableError(
        fmt::format("io_uring is not available here ({}); rerun with --backend posix",
                    std::string(backend.status().message())));
  }
  if (!backend.ok()) return backend.status();
  auto fenced = std::make_unique<io::FencedBackend>(*std::move(backend));
  env->fence = fenced.get();
  env->io = std::move(fenced);
  return absl::OkStatus();
}

}  // namespace

void ApplyProfileIoShape(const sim::DeviceProfile& profile, db::DatabaseOptions* options) {
  options->zero_fill.request_bytes = static_cast<uint64_t>(profile.zero_fill_request_kib.value) * 1024;
  options->zero_fill.requests_per_batch =
      static_cast<uint32_t>(profile.zero_fill_requests_per_batch.value);
  options->zero_fill.batches_in_flight =
      static_cast<uint32_t>(profile.zero_fill_batches_in_flight.value);
  options->smart_extents_per_call = 0;  // every extent in flight, as the cells allow
}

namespace {

// The simulation part of MakeIoEnv: profile, clock kind, trace.
absl::Status MakeSimulation(const EnvOptions& options, const std::string& trace_prefix,
                            sim::TraceWriter* shared_trace, IoEnv* env) {
  const SimOptions& o = options.sim;
  const bool has_profile = !o.profile.empty();
  const bool simulated = o.clock == "simulated" || (o.clock.empty() && has_profile);
  if (simulated && !has_profile) {
    return absl::InvalidArgumentError("--clock simulated needs --profile (e.g. --profile x3-2)");
  }
  if (o.model_only && !simulated) {
    return absl::InvalidArgumentError(
        "--model-only needs the simulated clock (--profile NAME, without --clock real)");
  }
  if (!has_profile && o.trace.empty() && shared_trace == nullptr) return absl::OkStatus();
  sim::Simulation::Options so;
  absl::StatusOr<sim::DeviceProfile> p = sim::LoadProfile(has_profile ? o.profile : "x3-2");
  if (!p.ok()) return absl::Status(p.status().code(), "--profile: " + std::string(p.status().message()));
  absl::StatusOr<sim::RackShape> shape = sim::ShapeFor(*p, o.rack);
  if (!shape.ok()) return shape.status();
  so.profile = *p;
  so.shape = *shape;
  if (!has_profile) so.profile.name.clear();  // tracing only: the rack keeps its own shape
  so.model_only = o.model_only;
  so.real_clock = !simulated;
  so.trace_prefix = trace_prefix;
  if (options.fixed_time.has_value()) so.unix_seconds = *options.fixed_time;
  if (shared_trace != nullptr) {
    so.trace = shared_trace;
  } else if (!o.trace.empty()) {
    env->owned_trace = std::make_unique<sim::TraceWriter>(simulated ? "simulated" : "real");
    so.trace = env->owned_trace.get();
    env->trace_path = o.trace;
  }
  env->sim = std::make_unique<sim::Simulation>(so);
  if (simulated) {
    env->clock = env->sim->clock();
    env->owned_clock.reset();
    ApplyProfileIoShape(so.profile, &env->db_options);
  }
  sim::Simulation* s = env->sim.get();
  env->wrap = [s](uint32_t i, cell::CellService* c) { return s->WrapCell(i, c); };
  return absl::OkStatus();
}

// Rack::Open / Rack::Create options: the lock of `options`, the cells wrapped
// by the simulation.
asmgr::RackOpenOptions RackOpenOptionsFor(const EnvOptions& options, const IoEnv& env) {
  return asmgr::RackOpenOptions{.lock = options.lock, .wrap = env.wrap};
}

}  // namespace

absl::StatusOr<IoEnv> MakeIoEnv(const EnvOptions& options, const std::string& trace_prefix,
                                sim::TraceWriter* shared_trace) {
  IoEnv env;
  if (absl::Status st = MakeBackend(options.backend, &env); !st.ok()) return st;
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

absl::Status FinishTrace(IoEnv& env) {
  if (env.owned_trace == nullptr || env.trace_path.empty()) return absl::OkStatus();
  absl::Status s = env.owned_trace->WriteFile(env.trace_path);
  env.trace_path.clear();
  return s;
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

absl::Status RackEnv::Abort() {
  if (io.fence != nullptr) io.fence->Fence();
  if (db != nullptr) {
    (void)db->Close();  // fails at its first write: nothing reaches the files
    db.reset();
  }
  if (rack != nullptr) {
    (void)rack->Close();
    rack.reset();
  }
  return FinishTrace(io);
}

absl::StatusOr<RackEnv> OpenRackEnv(const std::string& dir, const EnvOptions& options) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    return absl::NotFoundError(fmt::format(
        "{} is not a directory: create a rack there first with `cellsim rack create {}`", dir,
        dir));
  }
  absl::StatusOr<IoEnv> io = MakeIoEnv(options);
  if (!io.ok()) return io.status();
  RackEnv env;
  env.io = std::move(*io);
  absl::StatusOr<std::unique_ptr<asmgr::Rack>> rack = asmgr::Rack::Open(
      env.io.io.get(), env.io.clock, dir, RackOpenOptionsFor(options, env.io));
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

absl::StatusOr<RackEnv> CreateRackEnv(const std::string& dir, const EnvOptions& options,
                                      asmgr::RackConfig config, io::IoModeRequest mode,
                                      io::IoChoice* choice) {
  absl::StatusOr<IoEnv> io = MakeIoEnv(options);
  if (!io.ok()) return io.status();
  return CreateRackEnv(std::move(*io), dir, options, std::move(config), mode, choice);
}

absl::StatusOr<RackEnv> CreateRackEnv(IoEnv io_env, const std::string& dir,
                                      const EnvOptions& options, asmgr::RackConfig config,
                                      io::IoModeRequest mode, io::IoChoice* choice) {
  IoEnv* io = &io_env;
  io->ApplyShape(&config);  // a profile decides the cells and cell disks
  if (absl::Status v = asmgr::ValidateRackConfig(config); !v.ok()) return v;
  // Rack::Create makes `dir` (and removes it again if creation fails), so a
  // missing directory is probed through the nearest existing parent: the
  // same filesystem.
  std::filesystem::path probe_dir = std::filesystem::absolute(dir);
  std::error_code ec;
  while (!std::filesystem::is_directory(probe_dir, ec) && probe_dir.has_parent_path() &&
         probe_dir != probe_dir.parent_path()) {
    probe_dir = probe_dir.parent_path();
  }
  // The backend is settled; probe only what the directory accepts.
  absl::StatusOr<io::IoChoice> chosen =
      io::ChooseIo(probe_dir.string(), {.backend = io::BackendRequest::kPosix, .mode = mode});
  if (!chosen.ok()) return chosen.status();
  chosen->backend = io->backend;
  chosen->backend_reason = io->backend_reason;
  chosen->fell_back = chosen->fell_back || io->backend_reason.starts_with("fell back");
  config.direct_io = chosen->direct;
  RackEnv env;
  env.io = std::move(*io);
  absl::StatusOr<std::unique_ptr<asmgr::Rack>> rack = asmgr::Rack::Create(
      env.io.io.get(), env.io.clock, dir, config, RackOpenOptionsFor(options, env.io));
  if (!rack.ok()) return rack.status();
  env.rack = std::move(*rack);
  if (choice != nullptr) *choice = *chosen;
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

std::vector<std::string> MissingStandardTablespaces(const db::Database& db) {
  const db::FileTable t = db.file_table();
  std::vector<std::string> missing;
  for (const char* name : {"SYSTEM", "SYSAUX", "UNDOTBS1", "TEMP", "USERS"}) {
    if (t.FindTablespace(name) == nullptr) missing.push_back(name);
  }
  return missing;
}

report::StatementSummary ToReportResult(const db::StatementResult& r) {
  report::StatementSummary out;
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
    call->query = c.query;
    call->disk = c.disk;
    call->rows = c.rows;
  };
  if (r.parse.count > 0) fill(r.parse, &t.parse);
  if (r.execute.count > 0) fill(r.execute, &t.execute);
  return t;
}

report::AsmSnapshot SnapshotAsm(const asmgr::Rack& rack) {
  report::AsmSnapshot snap;
  for (asmgr::DiskGroup* dg : rack.disk_groups()) {
    snap.groups.push_back({dg->View(), dg->Disks(), dg->Files(), dg->Templates()});
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

namespace {

// SqlPlusResult without the autotrace block; `elapsed` ("" with TIMING OFF)
// is the "Elapsed: ..." text.
std::string SqlPlusResultText(const db::StatementResult& r, bool traceonly,
                              const std::string& elapsed) {
  if (r.feedback.empty() && r.headings.empty()) {
    std::string line = SqlPlusFeedback(r.kind);
    if (!elapsed.empty()) line += "  " + elapsed;
    if (!r.path.empty()) line += fmt::format("  ({} path)", r.path);
    return line + "\n";
  }
  if (traceonly && !r.result_rows.empty()) {  // the rows are fetched, not printed
    db::StatementResult quiet;
    quiet.kind = r.kind;
    quiet.headings = r.headings;
    quiet.feedback = r.feedback;
    return SqlPlusResultText(quiet, false, elapsed);
  }
  std::string out;
  const size_t n = r.headings.size();
  std::vector<size_t> width(n);
  for (size_t i = 0; i < n; ++i) {
    width[i] = r.headings[i].size();
    for (const auto& row : r.result_rows) width[i] = std::max(width[i], row[i].size());
  }
  auto line = [&](const std::vector<std::string>& cells, bool dashes) {
    std::string l;
    for (size_t i = 0; i < n; ++i) {
      if (i > 0) l += ' ';
      const bool right = i < r.numeric_columns.size() && r.numeric_columns[i];
      l += dashes  ? std::string(width[i], '-')
           : right ? fmt::format("{:>{}}", cells[i], width[i])
                   : fmt::format("{:<{}}", cells[i], width[i]);
    }
    while (!l.empty() && l.back() == ' ') l.pop_back();
    out += l + "\n";
  };
  if (!r.result_rows.empty()) {
    out += "\n";
    line(r.headings, false);
    line(r.headings, true);
    for (const auto& row : r.result_rows) line(row, false);
  }
  const bool select = r.kind == "SELECT";
  if (r.feedback.empty() || (select && !r.result_rows.empty() && r.result_rows.size() < 6)) {
    out += "\n";
  } else {
    out += (r.result_rows.empty() && !r.headings.empty() ? "" : "\n") + r.feedback + "\n";
  }
  return elapsed.empty() ? out : out + elapsed + "\n";
}

}  // namespace

std::string SqlPlusResult(const db::StatementResult& r, const SqlPlusSettings& settings) {
  const std::string elapsed =
      settings.timing ? fmt::format("Elapsed: {}", SqlPlusElapsed(r.elapsed_ns)) : "";
  std::string out;
  if (settings.serveroutput) {
    for (const std::string& line : r.output) out += line + "\n";
  }
  out += SqlPlusResultText(r, settings.autotrace_traceonly, elapsed);
  if (settings.autotrace_statistics) out += SqlPlusAutotraceStatistics(r);
  return out;
}

std::string SqlPlusAutotraceStatistics(const db::StatementResult& r) {
  using stats::Stat;
  std::string out = "\nStatistics\n" + std::string(58, '-') + "\n";
  for (Stat s : {Stat::kDbBlockGets, Stat::kConsistentGets, Stat::kPhysicalReads, Stat::kRedoSize,
                 Stat::kSortsMemory}) {
    out += fmt::format("{:>10}  {}\n", r.statistics[s], stats::StatName(s));
  }
  out += fmt::format("{:>10}  sorts (disk)\n", 0);  // cellsim sorts in memory only
  out += fmt::format("{:>10}  rows processed\n\n", r.rows);
  return out;
}

std::string SqlPlusElapsed(uint64_t elapsed_ns) {
  const uint64_t cs = (elapsed_ns + 5'000'000) / 10'000'000;  // hundredths, rounded
  return fmt::format("{:02d}:{:02d}:{:02d}.{:02d}", cs / 360000, cs / 6000 % 60, cs / 100 % 60,
                     cs % 100);
}

}  // namespace cellsim::lab
