// Placement: partner sets and extent allocation of a disk group.
//
// Partners (ComputePartners): disks are grouped by failure group (cell). A disk
// at position p of its failure group f gets up to `max_partners` partners, all
// in other failure groups: with G other groups and G <= max, each group gives
// max/G of them (the remainder rotating with p), taken at consecutive positions
// starting where p falls in that group; with G > max, max groups are picked by
// rotating with p and each gives one. So every disk is a partner of about as
// many disks as it has partners: mirror load stays even.
//
// Allocation (PlanExtents): for each extent, the primary goes to the least
// filled disk (fill = used AUs / AUs, ties broken round-robin); each mirror goes
// to the least filled partner of the primary in a failure group not used yet by
// that extent. If the primary's partners cannot take the mirrors, the next
// least filled primary is tried. Within a disk the lowest free AU is taken.
//
// Private to cellsim/asm.
#ifndef CELLSIM_ASM_PLACEMENT_H_
#define CELLSIM_ASM_PLACEMENT_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "cellsim/asm/catalog.h"

namespace cellsim::asmgr::internal {

// `failgroup[i]` is the failure group (cell) of disk i.
std::vector<std::vector<uint32_t>> ComputePartners(const std::vector<uint32_t>& failgroup,
                                                   uint32_t max_partners);

// Chooses locations for `count` new extents of `copies` copies each (the
// file's, 1..3) without changing `cat`.
// ResourceExhausted (bare message; the caller names the group and sizes) when
// they do not fit. `rotation` spreads where ties start (e.g. the file number).
[[nodiscard]] absl::StatusOr<std::vector<ExtentLocs>> PlanExtents(const Catalog& cat,
                                                                  uint64_t count,
                                                                  uint64_t rotation,
                                                                  uint32_t copies);

}  // namespace cellsim::asmgr::internal

#endif  // CELLSIM_ASM_PLACEMENT_H_
