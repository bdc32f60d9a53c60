// The small rack the hostile-input tests and the fuzz corpus generator share:
// 3 cells x 2 cell disks; DATA 64 MiB and RECO 32 MiB per cell disk, AU 1 MiB,
// NORMAL (DATA has 192 MiB usable, RECO 96 MiB); 64 MiB write-back flash each.
// Header-only: users link cellsim_asm themselves.
#ifndef CELLSIM_TESTS_TESTING_TINY_RACK_H_
#define CELLSIM_TESTS_TESTING_TINY_RACK_H_

#include "cellsim/asm/rack.h"
#include "cellsim/base/units.h"

namespace cellsim::testing {

inline asmgr::RackConfig TinyRackConfig() {
  asmgr::RackConfig c;
  c.cells = 3;
  c.cell_disks_per_cell = 2;
  c.disk_groups = {
      {.name = "DATA", .redundancy = asmgr::Redundancy::kNormal, .au_size = kMiB,
       .grid_disk_size = 64 * kMiB},
      {.name = "RECO", .redundancy = asmgr::Redundancy::kNormal, .au_size = kMiB,
       .grid_disk_size = 32 * kMiB},
  };
  c.flash_size = 64 * kMiB;
  c.flash_cache_mode = cell::FlashCacheMode::kWriteBack;
  return c;
}

}  // namespace cellsim::testing

#endif  // CELLSIM_TESTS_TESTING_TINY_RACK_H_
