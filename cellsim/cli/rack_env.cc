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
}

absl::StatusOr<IoEnv> MakeIoEnv(const RackOptions& options) {
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
