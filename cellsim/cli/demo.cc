// `cellsim demo [--size SIZE] [--dir DIR] [--json] [--io auto|direct|buffered]`: the seed command
//   alter database add logfile thread 2 group 5 ('+DATA','+RECO') size SIZE
// run by each of the three creation paths, side by side.
//
// Each path gets a fresh rack built from asmgr::DefaultRackConfig() and a new
// database (rather than one rack and `drop logfile group 5` between paths), so
// every path starts from the same state: empty flash caches, the same free
// extents, and no dirty data left by the previous path's destaging. Racks go to
// a temporary directory that is removed after each path (so a 4096m zero-fill
// never holds more than one rack's 16 GiB), or to DIR/<path> with --dir, where
// they are kept for `cellsim asmcmd` / `cellcli`.
//
// The paths are chosen with session settings, as a DBA would:
//   zero-fill  alter session set "_cell_fast_file_create" = false
//   smart      alter session set cellsim_fast_file_create_metadata = false
//   fast       (the default on a write-back rack)
//
// Grid disks and flash are opened with O_DIRECT where the directory's
// filesystem accepts it (as a real cell bypasses the page cache), buffered
// where it refuses it (tmpfs); the first line of output says which and why.
#include <sys/statvfs.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "cellsim/base/units.h"
#include "cellsim/cli/commands.h"
#include "cellsim/cli/interrupt.h"
#include "cellsim/cli/progress.h"
#include "cellsim/cli/rack_env.h"
#include "cellsim/report/demo_table.h"
#include "cellsim/report/json.h"
#include "fmt/format.h"

namespace cellsim::cli {
namespace {

struct DemoArgs {
  std::string size = "256m";
  std::string dir;
  bool json = false;
  std::string io = "auto";
  RackOptions rack;
};

struct PathRun {
  std::string_view path;
  std::string_view setting;  // "" for the default
};

constexpr PathRun kPaths[] = {
    {db::kPathZeroFill, "alter session set \"_cell_fast_file_create\" = false"},
    {db::kPathSmart, "alter session set cellsim_fast_file_create_metadata = false"},
    {db::kPathFast, ""},
};

// Removes a temporary directory on every way out of the command.
class TempTree {
 public:
  TempTree() = default;
  ~TempTree() { Remove(); }
  absl::Status Make() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") +
                          "/cellsim-demo-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) {
      return absl::InternalError(
          fmt::format("cannot create a temporary directory {}: {}", pattern, strerror(errno)));
    }
    path_ = pattern;
    return absl::OkStatus();
  }
  void Remove() {
    if (path_.empty()) return;
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
    path_.clear();
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// One path on a fresh rack in `rack_dir`.
// `say_io`: print what the I/O choice was (the first path only).
absl::StatusOr<db::StatementResult> RunPath(const PathRun& run, const std::string& rack_dir,
                                            const std::string& seed, const DemoArgs& a,
                                            sim::TraceWriter* trace, bool say_io) {
  if (InterruptFlag()->cancelled()) return absl::CancelledError(std::string(db::kCancelMessage));
  absl::StatusOr<lab::EnvOptions> options =
      ToEnvOptions(a.rack, rack_dir, asmgr::RackAccess::kReadWrite);
  if (!options.ok()) return options.status();
  absl::StatusOr<io::IoModeRequest> mode = io::ParseIoModeRequest(a.io);
  if (!mode.ok()) return mode.status();
  absl::StatusOr<IoEnv> io = lab::MakeIoEnv(*options, fmt::format("{}: ", run.path), trace);
  if (!io.ok()) return io.status();
  const db::DatabaseOptions db_options = io->db_options;
  io::IoChoice choice;
  absl::StatusOr<RackEnv> created = lab::CreateRackEnv(
      std::move(*io), rack_dir, *options, asmgr::DefaultRackConfig(), *mode, &choice);
  if (!created.ok()) return created.status();
  RackEnv env = std::move(*created);
  if (say_io) {
    (a.json ? std::cerr : std::cout) << fmt::format("I/O: {}\n\n", choice.Describe());
    (a.json ? std::cerr : std::cout).flush();
  }
  absl::StatusOr<std::unique_ptr<db::Database>> database =
      db::Database::Create(env.rack.get(), db_options);
  if (!database.ok()) return database.status();
  env.db = std::move(*database);
  absl::StatusOr<db::StatementResult> result =
      absl::CancelledError(std::string(db::kCancelMessage));
  if (!InterruptFlag()->cancelled()) {
    std::unique_ptr<db::Session> session = env.db->NewSession();
    session->SetCancelFlag(InterruptFlag());
    ProgressBar bar(fmt::format("{:<9}", run.path));
    session->SetProgressCallback(
        [&bar](const db::CreationProgress& p) { bar.Update(p.file, p.bytes_done, p.bytes_total); });
    if (!run.setting.empty()) {
      absl::StatusOr<db::StatementResult> set = session->Execute(run.setting);
      if (!set.ok()) return set.status();
    }
    result = session->Execute(seed);
    bar.Finish();
  }
  absl::Status closed = env.Close();
  if (!result.ok()) return result.status();
  if (!closed.ok()) return closed;
  if (result->path != run.path) {
    return absl::FailedPreconditionError(fmt::format(
        "the {} run took the {} path instead ({})", run.path, result->path, result->path_reason));
  }
  return result;
}

// The zero-fill and smart paths write size x 2 members x 2 copies to the grid
// disks; check the space before starting rather than failing half-way.
absl::Status CheckSpace(const std::string& dir, uint64_t size) {
  struct statvfs vfs {};
  if (statvfs(dir.c_str(), &vfs) != 0) return absl::OkStatus();  // let the run say
  if (vfs.f_blocks == 0) return absl::OkStatus();  // no size reported (ramfs): let the run say
  const uint64_t avail = static_cast<uint64_t>(vfs.f_bavail) * vfs.f_frsize;
  const uint64_t need = size * 4 + 256 * kMiB;  // + flash devices and metadata
  if (avail < need) {
    return absl::ResourceExhaustedError(fmt::format(
        "{} has {} free; the zero-fill and smart paths of a {} demo write {} there (one rack "
        "at a time): choose a smaller --size or another --dir",
        dir, FormatBytes(avail), FormatBytes(size), FormatBytes(need)));
  }
  return absl::OkStatus();
}

void RunDemo(const DemoArgs& a, CommandContext& ctx) {
  const std::string cmd = "demo";
  absl::StatusOr<uint64_t> size = ParseSize(a.size);
  if (!size.ok()) return Fail(ctx, cmd, "--size: " + std::string(size.status().message()), kExitUsage);
  if (*size == 0 || *size % kMiB != 0) {
    return Fail(ctx, cmd, fmt::format("--size {} must be a positive whole number of MiB", a.size),
                kExitUsage);
  }
  const std::string seed = fmt::format(
      "alter database add logfile thread 2 group 5 ('+DATA','+RECO') size {}m", *size / kMiB);
  // Ctrl-C / kill: the running statement undoes itself, then `temp` goes.
  InterruptScope interrupts;
  TempTree temp;
  std::string base = a.dir;
  if (base.empty()) {
    absl::Status made = temp.Make();
    if (!made.ok()) return Fail(ctx, cmd, made);
    base = temp.path();
  } else {
    std::error_code ec;
    std::filesystem::create_directories(base, ec);
    if (ec) return Fail(ctx, cmd, fmt::format("cannot create {}: {}", base, ec.message()));
  }
  if (!a.rack.sim.model_only) {
    if (absl::Status space = CheckSpace(base, *size); !space.ok()) return Fail(ctx, cmd, space);
  }
  // Checks the clock options once (and names the clock) before any rack is built.
  absl::StatusOr<IoEnv> probe_env = MakeIoEnv(a.rack);
  if (!probe_env.ok()) return Fail(ctx, cmd, std::string(probe_env.status().message()), kExitUsage);
  asmgr::RackConfig shape = asmgr::DefaultRackConfig();
  probe_env->ApplyShape(&shape);
  const std::string clock = probe_env->ClockDescription();
  std::unique_ptr<sim::TraceWriter> trace;
  if (!a.rack.sim.trace.empty()) {
    trace = std::make_unique<sim::TraceWriter>(probe_env->sim != nullptr &&
                                                       !probe_env->sim->options().real_clock
                                                   ? "simulated"
                                                   : "real");
  }

  if (!a.json) {
    std::cout << fmt::format(
        "cellsim demo: the seed command by each creation path, each on a fresh default rack\n"
        "({} cells x {} disks, write-back flash cache, +DATA and +RECO NORMAL redundancy, AU 4 "
        "MiB) in {}{}\nclock: {}\n\n",
        shape.cells, shape.cell_disks_per_cell, base,
        a.dir.empty() ? " (removed afterwards)" : "/<path> (kept)", clock);
    std::cout.flush();
  }
  report::DemoResult demo;
  demo.size_bytes = *size;
  for (const PathRun& run : kPaths) {
    const std::string rack_dir = base + "/" + std::string(run.path);
    absl::StatusOr<db::StatementResult> r =
        RunPath(run, rack_dir, seed, a, trace.get(), run.path == kPaths[0].path);
    if (a.dir.empty()) {
      std::error_code ec;
      std::filesystem::remove_all(rack_dir, ec);
    }
    if (!r.ok()) {
      Fail(ctx, cmd, fmt::format("{} path: {}", run.path, std::string(r.status().message())));
      if (r.status().code() == absl::StatusCode::kCancelled) ctx.exit_code = InterruptExitCode();
      return;
    }
    demo.paths.push_back(ToReportResult(*r));
  }
  if (trace != nullptr) {
    if (absl::Status st = trace->WriteFile(a.rack.sim.trace); !st.ok()) return Fail(ctx, cmd, st);
  }
  if (a.json) {
    std::cout << report::DemoJson(demo) << "\n";
    return;
  }
  std::cout << report::RenderDemoTable(demo);
  const report::StatementSummary& zero = demo.paths.front();
  const report::StatementSummary& fast = demo.paths.back();
  std::cout << "\n"
            << fmt::format("times: {} clock\n", clock.substr(0, clock.find(' ')))
            << fmt::format("fast vs zero-fill: {:.0f}x faster (zero-fill {:.3f} s, smart {:.3f} "
                           "s, fast {:.3f} s)\n",
                           fast.elapsed_s > 0 ? zero.elapsed_s / fast.elapsed_s : 0.0,
                           zero.elapsed_s, demo.paths[1].elapsed_s, fast.elapsed_s);
}

}  // namespace

void RegisterDemo(CLI::App& app, CommandContext& ctx) {
  auto [demo, args] = AddCommand<DemoArgs>(
      app, ctx, "demo",
      "Run the seed `alter database add logfile thread 2 group 5 ('+DATA','+RECO') size SIZE` "
      "by the zero-fill, smart and fast creation paths on fresh default racks and print "
      "timings and statistics side by side",
      RunDemo);
  demo->add_option("--size", args->size,
                   "Size of each of the two log members (256m by default; 4096m is the seed's)")
      ->capture_default_str();
  demo->add_option("--dir", args->dir,
                   "Build the racks in DIR/zero-fill, DIR/smart and DIR/fast and keep them "
                   "(default: a temporary directory, removed afterwards)");
  demo->add_flag("--json", args->json,
                 "Print {\"size_bytes\", \"statement\", \"paths\": [{\"path\", \"elapsed_s\", "
                 "\"statistics\", \"waits\"}, ...]}");
  AddIoModeOption(demo, &args->io);
  AddRackOptions(demo, &args->rack);
}

}  // namespace cellsim::cli
