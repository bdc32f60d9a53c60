// What the database benchmarks share: a temporary folder under $TMPDIR
// (default /tmp) and the small lab they run on.
#ifndef CELLSIM_BENCH_BENCH_LAB_H_
#define CELLSIM_BENCH_BENCH_LAB_H_

#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <string>
#include <system_error>

#include <fmt/format.h>

#include "cellsim/cellsim.h"

namespace cellsim::bench {

// A new folder "cellsim-<what>-XXXXXX"; empty when it cannot be made.
inline std::string MakeTemp(const char* what) {
  const char* t = getenv("TMPDIR");
  std::string p = fmt::format("{}/cellsim-{}-XXXXXX", t != nullptr && *t != '\0' ? t : "/tmp", what);
  return mkdtemp(p.data()) != nullptr ? p : "";
}

// 3 write-back cells x 2 disks (256 MiB flash each, 512 MiB grid disks) with
// the database's standard files.
inline LabOptions SmallLabOptions() {
  LabOptions o;
  o.rack.cells = 3;
  o.rack.cell_disks_per_cell = 2;
  o.rack.flash_size = 256ull << 20;
  for (auto& dg : o.rack.disk_groups) dg.grid_disk_size = 512ull << 20;
  o.database.standard_files.create = true;
  return o;
}

// A lab in a new temporary folder, closed and the folder removed with it.
struct TempLab {
  std::string dir;
  std::unique_ptr<Lab> lab;

  // Creates the lab with `o` in a new folder "cellsim-<what>-XXXXXX".
  absl::Status StartLab(const char* what, const LabOptions& o) {
    dir = MakeTemp(what);
    if (dir.empty()) return absl::InternalError("cannot create a temporary directory");
    absl::StatusOr<std::unique_ptr<Lab>> l = Lab::Create(dir + "/lab", o);
    if (!l.ok()) return l.status();
    lab = *std::move(l);
    return absl::OkStatus();
  }
  ~TempLab() {
    if (lab) (void)lab->Close();
    lab.reset();
    std::error_code ec;
    if (!dir.empty()) std::filesystem::remove_all(dir, ec);
  }
};

}  // namespace cellsim::bench

#endif  // CELLSIM_BENCH_BENCH_LAB_H_
