// FakeRack: N FakeCells and a DiskGroupEnv over them, with the metadata in a
// real directory through a real (optionally fault-injecting) IoBackend.
#ifndef CELLSIM_TESTS_ASM_FAKE_RACK_H_
#define CELLSIM_TESTS_ASM_FAKE_RACK_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "asm/fake_cell.h"
#include "cellsim/asm/disk_group.h"
#include "cellsim/base/clock.h"
#include "fmt/format.h"

namespace cellsim::asmgr::testing {

struct FakeRack {
  // `disks_per_cell[i]` cell disks on cell i, each with one grid disk per prefix.
  FakeRack(std::vector<uint32_t> disks_per_cell,
           std::vector<std::pair<std::string, uint64_t>> prefixes) {
    for (size_t i = 0; i < disks_per_cell.size(); ++i) {
      cells.push_back(std::make_unique<FakeCell>(fmt::format("cel{:02}", i + 1), prefixes,
                                                 disks_per_cell[i]));
    }
    this->prefixes = std::move(prefixes);
    this->disks_per_cell = std::move(disks_per_cell);
  }
  DiskGroupEnv Env(io::IoBackend* io, const std::string& dir) {
    DiskGroupEnv env{.io = io, .clock = &clock, .metadata_dir = dir, .cells = {}};
    for (auto& c : cells) env.cells.push_back(c.get());
    return env;
  }
  // Every grid disk of prefix number `p` on every cell.
  std::vector<DiskRef> Disks(size_t p) const {
    std::vector<DiskRef> out;
    for (uint32_t c = 0; c < disks_per_cell.size(); ++c) {
      for (uint32_t cd = 0; cd < disks_per_cell[c]; ++cd) {
        out.push_back(DiskRef{c, static_cast<uint32_t>(cd * prefixes.size() + p)});
      }
    }
    return out;
  }
  FakeCell& cell(uint32_t i) { return *cells.at(i); }

  ManualClock clock{0, 1'700'000'000};
  std::vector<std::unique_ptr<FakeCell>> cells;
  std::vector<std::pair<std::string, uint64_t>> prefixes;
  std::vector<uint32_t> disks_per_cell;
};

}  // namespace cellsim::asmgr::testing

#endif  // CELLSIM_TESTS_ASM_FAKE_RACK_H_
