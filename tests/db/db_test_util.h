// Helpers of the database tests: small real racks (3 cells, sparse files) and
// statistic shortcuts.
#ifndef CELLSIM_TESTS_DB_DB_TEST_UTIL_H_
#define CELLSIM_TESTS_DB_DB_TEST_UTIL_H_

#include <memory>
#include <string>
#include <vector>

#include "cellsim/asm/rack.h"
#include "cellsim/base/units.h"
#include "cellsim/db/database.h"
#include "cellsim/io/io_backend.h"
#include "cellsim/stats/statistics.h"

namespace cellsim::db::testing {

// 3 cells x 2 cell disks; DATA 512 MiB and RECO 256 MiB per cell disk; AU
// 4 MiB. With NORMAL redundancy DATA has 1 GiB usable and RECO 512 MiB.
inline asmgr::RackConfig SmallRack(
    asmgr::Redundancy redundancy = asmgr::Redundancy::kNormal,
    cell::FlashCacheMode mode = cell::FlashCacheMode::kWriteBack) {
  asmgr::RackConfig c;
  c.cells = 3;
  c.cell_disks_per_cell = 2;
  c.disk_groups = {
      {.name = "DATA", .redundancy = redundancy, .au_size = 4 * kMiB,
       .grid_disk_size = 512 * kMiB},
      {.name = "RECO", .redundancy = redundancy, .au_size = 4 * kMiB,
       .grid_disk_size = 256 * kMiB},
  };
  c.flash_size = 64 * kMiB;
  c.flash_cache_mode = mode;
  return c;
}

inline int64_t Get(const stats::StatValues& v, stats::Stat s) { return v[s]; }
inline int64_t Count(const stats::WaitValues& v, stats::Wait w) { return v[w].count; }

// Reads a whole ASM file through ASM (what `asmcmd cp` copies out).
inline std::vector<uint8_t> ReadAsmFile(asmgr::DiskGroup* dg, uint32_t file, uint64_t size) {
  std::vector<uint8_t> out(size);
  const uint64_t chunk = 8 * kMiB;
  for (uint64_t off = 0; off < size; off += chunk) {
    std::vector<asmgr::AsmReadRequest> r(1);
    r[0].file_offset = off;
    r[0].buffer = absl::MakeSpan(out.data() + off, std::min(chunk, size - off));
    if (!dg->Read(file, absl::MakeSpan(r), nullptr).ok()) return {};
  }
  return out;
}

}  // namespace cellsim::db::testing

#endif  // CELLSIM_TESTS_DB_DB_TEST_UTIL_H_
