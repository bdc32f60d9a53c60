// The seed redo-log lab, through cellsim's C++ API only (no CLI): the command
//
//   alter database add logfile thread 2 group 5 ('+DATA','+RECO') size SIZE
//
// run by each of Oracle's three file-creation paths on a fresh default rack
// (asmgr::DefaultRackConfig(): 3 cells x 12 disks, write-back flash cache, DATA
// and RECO in NORMAL redundancy, AU 4 MiB) in a temporary directory, printing
// for each path what a DBA would look at: the statement's tkprof block and the
// session's mystats delta (@mystats start / @mystats stop). It then checks the
// figures that follow from the size alone and exits 1 if one is off, so the
// build runs it as a test. docs/labs/seed-redo-log.md is the lab text.
//
//   seed_redo_log_lab [--size 256m] [--dir DIR]     (--size 4096m is the seed)
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "cellsim/base/units.h"
#include "cellsim/cellsim.h"
#include "cellsim/report/mystats.h"
#include "fmt/format.h"

namespace {

using cellsim::stats::Stat;
using cellsim::stats::Wait;
namespace db = cellsim::db;
namespace report = cellsim::report;

struct PathRun {
  std::string_view path;
  std::string_view setting;  // the session setting that selects it ("" = default)
};

constexpr PathRun kPaths[] = {
    {db::kPathZeroFill, "alter session set \"_cell_fast_file_create\" = false"},
    {db::kPathSmart, "alter session set cellsim_fast_file_create_metadata = false"},
    {db::kPathFast, ""},
};

int Die(const std::string& what) {
  std::fprintf(stderr, "seed_redo_log_lab: %s\n", what.c_str());
  return 1;
}

// A failed check is printed and remembered; the lab carries on so that every
// figure is shown.
struct Checker {
  int failures = 0;
  void Equal(std::string_view path, std::string_view what, int64_t got, int64_t want) {
    const bool ok = got == want;
    std::printf("  [%s] %-60s %16lld %s %lld\n", ok ? "ok" : "FAIL", std::string(what).c_str(),
                static_cast<long long>(got), ok ? "==" : "!=", static_cast<long long>(want));
    if (!ok) {
      ++failures;
      std::fprintf(stderr, "%s path: %s is %lld, expected %lld\n", std::string(path).c_str(),
                   std::string(what).c_str(), static_cast<long long>(got),
                   static_cast<long long>(want));
    }
  }
};

}  // namespace

int main(int argc, char** argv) {
  std::string size_text = "256m";
  std::string dir;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--size" && i + 1 < argc) {
      size_text = argv[++i];
    } else if (a == "--dir" && i + 1 < argc) {
      dir = argv[++i];
    } else {
      std::fprintf(stderr, "usage: %s [--size 256m] [--dir DIR]\n", argv[0]);
      return 2;
    }
  }
  absl::StatusOr<uint64_t> size = cellsim::ParseSize(size_text);
  if (!size.ok() || *size == 0 || *size % cellsim::kMiB != 0) {
    return Die(fmt::format("--size {}: give a whole number of MiB, e.g. 256m", size_text));
  }
  const bool temporary = dir.empty();
  if (temporary) {
    std::string pattern = std::filesystem::temp_directory_path().string() + "/cellsim-lab-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) return Die(std::strerror(errno));
    dir = pattern;
  }
  // The temporary racks go away on every way out, errors included.
  struct Cleanup {
    std::string dir;
    ~Cleanup() {
      std::error_code ec;
      if (!dir.empty()) std::filesystem::remove_all(dir, ec);
    }
  } cleanup{temporary ? dir : std::string()};
  const std::string seed = fmt::format(
      "alter database add logfile thread 2 group 5 ('+DATA','+RECO') size {}m",
      *size / cellsim::kMiB);
  std::printf("Lab: %s\non a default rack per path in %s\n\n", seed.c_str(), dir.c_str());

  Checker check;
  std::vector<std::pair<std::string, double>> elapsed;
  for (const PathRun& run : kPaths) {
    const std::string rack_dir = dir + "/" + std::string(run.path);
    // Backend and O_DIRECT chosen by probing the directory; said, never silent.
    absl::StatusOr<std::unique_ptr<cellsim::Lab>> lab = cellsim::Lab::Create(rack_dir);
    if (!lab.ok()) return Die(std::string(lab.status().message()));
    if (run.path == kPaths[0].path) std::printf("I/O: %s\n\n", (*lab)->io().Describe().c_str());
    uint64_t au = 0;
    for (const auto& g : (*lab)->rack().config().disk_groups) {
      if (g.name == "DATA") au = g.au_size;
    }
    {
      if (!run.setting.empty()) {
        if (auto s = (*lab)->Sql(run.setting); !s.ok()) {
          return Die(std::string(s.status().message()));
        }
      }
      db::Session& session = (*lab)->session();
      // @mystats start
      const cellsim::stats::StatValues stats0 = session.Stats();
      const cellsim::stats::WaitValues waits0 = session.Waits();
      const uint64_t t0 = (*lab)->clock().NowNanos();
      absl::StatusOr<db::StatementResult> r = (*lab)->Sql(seed);
      if (!r.ok()) return Die(std::string(r.status().message()));
      const double interval_s = static_cast<double>((*lab)->clock().NowNanos() - t0) / 1e9;
      // @mystats stop t=1
      report::MystatsInput in{.statistics = session.Stats() - stats0,
                              .waits = session.Waits() - waits0,
                              .interval_s = interval_s,
                              .cpu_s = static_cast<double>(r->cpu_ns) / 1e9,
                              .report_time_unix = (*lab)->clock().UnixSeconds()};

      std::printf("==================== %s path (%s) ====================\n",
                  std::string(run.path).c_str(), r->path_reason.c_str());
      std::printf("%s\n", cellsim::Lab::Tkprof({*r}).c_str());
      absl::StatusOr<report::MystatsOptions> opt = report::ParseMystatsOptions("t=1");
      absl::StatusOr<std::string> mystats = report::RenderMystats(in, *opt);
      if (!mystats.ok()) return Die(std::string(mystats.status().message()));
      std::printf("%s\n", mystats->c_str());

      // The figures that follow from the size alone (docs/labs/seed-redo-log.md).
      const int64_t formatted = static_cast<int64_t>(*size) * 2 /*members*/ * 2 /*copies*/;
      const auto& st = r->statistics;
      std::printf("Checks:\n");
      check.Equal(run.path, "path taken is the one asked for", r->path == run.path, 1);
      const bool offloaded = run.path != db::kPathZeroFill;
      check.Equal(run.path, "cell physical IO bytes saved during optimized file creation",
                  st[Stat::kCellPhysicalIoBytesSavedDuringOptimizedFileCreation],
                  offloaded ? formatted : 0);
      check.Equal(run.path, "cell physical IO bytes eligible for predicate offload",
                  st[Stat::kCellPhysicalIoBytesEligibleForPredicateOffload],
                  offloaded ? formatted : 0);
      if (offloaded) {
        check.Equal(run.path, "physical write total multi block requests",
                    st[Stat::kPhysicalWriteTotalMultiBlockRequests],
                    formatted / static_cast<int64_t>(au));
      }
      // Creation requests count per copy; zero-fill's writes once per
      // logical request, before ASM mirrors them (docs/statistics.md).
      check.Equal(run.path,
                  offloaded ? "physical write total bytes >= size x members x copies"
                            : "physical write total bytes >= size x members",
                  st[Stat::kPhysicalWriteTotalBytes] >= (offloaded ? formatted : formatted / 2),
                  1);
      check.Equal(run.path, "waits on `cell smart file creation` > 0",
                  r->waits[Wait::kCellSmartFileCreation].count > 0, offloaded);
      check.Equal(run.path, "waits on `Log file init write` > 0",
                  r->waits[Wait::kLogFileInitWrite].count > 0, !offloaded);
      std::printf("\n");
      elapsed.emplace_back(std::string(run.path), static_cast<double>(r->elapsed_ns) / 1e9);
    }
    if (auto s = (*lab)->Close(); !s.ok()) return Die(std::string(s.message()));
    lab->reset();
    if (temporary) std::filesystem::remove_all(rack_dir);
  }
  std::printf("Elapsed:");
  for (const auto& [path, s] : elapsed) std::printf("  %s %.3f s", path.c_str(), s);
  if (elapsed.back().second > 0) {
    std::printf("  (fast is %.0fx faster than zero-fill)", elapsed.front().second / elapsed.back().second);
  }
  std::printf("\n%s\n", check.failures == 0 ? "All checks passed."
                                            : fmt::format("{} checks FAILED.", check.failures).c_str());
  return check.failures == 0 ? 0 : 1;
}
