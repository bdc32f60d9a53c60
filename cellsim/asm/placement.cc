// Partner sets and least-filled-first extent allocation.
#include "cellsim/asm/placement.h"

#include <algorithm>
#include <map>
#include <numeric>

namespace cellsim::asmgr::internal {

std::vector<std::vector<uint32_t>> ComputePartners(const std::vector<uint32_t>& failgroup,
                                                   uint32_t max_partners) {
  const uint32_t n = static_cast<uint32_t>(failgroup.size());
  std::map<uint32_t, std::vector<uint32_t>> by_fg;  // ordered: deterministic
  for (uint32_t i = 0; i < n; ++i) by_fg[failgroup[i]].push_back(i);
  std::vector<std::vector<uint32_t>> groups;
  std::vector<uint32_t> group_of(n), pos_of(n);
  for (auto& [fg, disks] : by_fg) {
    for (uint32_t p = 0; p < disks.size(); ++p) {
      group_of[disks[p]] = static_cast<uint32_t>(groups.size());
      pos_of[disks[p]] = p;
    }
    groups.push_back(disks);
  }
  const uint32_t nfg = static_cast<uint32_t>(groups.size());
  std::vector<std::vector<uint32_t>> partners(n);
  if (nfg < 2 || max_partners == 0) return partners;
  const uint32_t others = nfg - 1;
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t f = group_of[i], p = pos_of[i];
    const uint64_t kf = groups[f].size();
    auto start_in = [&](uint32_t g) {  // where p falls in group g
      return static_cast<uint32_t>(uint64_t{p} * groups[g].size() / kf);
    };
    if (others <= max_partners) {
      const uint32_t base = max_partners / others, extra = max_partners % others;
      for (uint32_t o = 1; o <= others; ++o) {
        const uint32_t g = (f + o) % nfg;
        const uint32_t kg = static_cast<uint32_t>(groups[g].size());
        uint32_t quota = base + (((o - 1 + p) % others) < extra ? 1 : 0);
        quota = std::min(quota, kg);
        const uint32_t s = start_in(g);
        for (uint32_t j = 0; j < quota; ++j) partners[i].push_back(groups[g][(s + j) % kg]);
      }
    } else {
      for (uint32_t k = 0; k < max_partners; ++k) {
        const uint32_t o = 1 + (p + k) % others;  // independent of f: even in-degree
        const uint32_t g = (f + o) % nfg;
        partners[i].push_back(groups[g][start_in(g) % groups[g].size()]);
      }
    }
    std::sort(partners[i].begin(), partners[i].end());
  }
  return partners;
}

absl::StatusOr<std::vector<ExtentLocs>> PlanExtents(const Catalog& cat, uint64_t count,
                                                    uint64_t rotation, uint32_t copies) {
  const uint32_t n = static_cast<uint32_t>(cat.disks.size());
  if (count > cat.FreeAus() / copies) {
    return absl::ResourceExhaustedError("not enough free allocation units");
  }
  // Plan-local view: AUs taken so far by this plan and a scan cursor per disk.
  std::vector<uint64_t> used(n), total(n);
  std::vector<uint32_t> cursor(n);
  for (uint32_t i = 0; i < n; ++i) {
    used[i] = cat.disks[i].used;
    total[i] = cat.disks[i].total_aus;
    cursor[i] = cat.disks[i].first_free;
  }
  // a is less filled than b (after taking one more AU), ties round-robin.
  uint64_t rot = rotation;
  uint32_t rot_n = n == 0 ? 0 : static_cast<uint32_t>(rot % n);  // rot % n, kept in step
  // Position of disk d in the round-robin order that starts at rot_n
  // ((d + n - rot % n) % n without a division: this runs n times per extent).
  auto rr = [&](uint32_t d) { return d >= rot_n ? d - rot_n : d + n - rot_n; };
  auto less_filled = [&](uint32_t a, uint32_t b) {
    const uint64_t la = (used[a] + 1) * total[b];  // < 2^64: both < 2^32
    const uint64_t lb = (used[b] + 1) * total[a];
    if (la != lb) return la < lb;
    return rr(a) < rr(b);
  };
  auto has_free = [&](uint32_t d) { return used[d] < total[d]; };
  auto take = [&](uint32_t d) {
    const DiskRec& r = cat.disks[d];
    while (r.owners[cursor[d]].file != 0) ++cursor[d];
    ++used[d];
    return CopyLoc{d, cursor[d]++};
  };

  std::vector<ExtentLocs> out;
  out.reserve(count);
  // Places one extent with `primary` as its first copy; false when the
  // primary's partners cannot hold the other copies.
  auto try_place = [&](uint32_t primary) {
    std::array<uint32_t, 3> chosen = {primary, 0, 0};
    std::array<uint32_t, 3> fgs = {cat.disks[primary].ref.cell, 0, 0};  // cells of chosen
    uint32_t got = 1;
    while (got < copies) {
      int best = -1;
      for (uint32_t p : cat.disks[primary].partners) {
        if (!has_free(p)) continue;
        if (std::find(fgs.begin(), fgs.begin() + got, cat.disks[p].ref.cell) !=
            fgs.begin() + got) {
          continue;
        }
        if (best < 0 || less_filled(p, static_cast<uint32_t>(best))) best = static_cast<int>(p);
      }
      if (best < 0) return false;
      fgs[got] = cat.disks[static_cast<uint32_t>(best)].ref.cell;
      chosen[got++] = static_cast<uint32_t>(best);
    }
    ExtentLocs locs;
    for (uint32_t c = 0; c < copies; ++c) locs[c] = take(chosen[c]);
    out.push_back(locs);
    return true;
  };
  // Primaries are tried from the least filled on (less_filled is a strict
  // total order). The least filled one nearly always works, so it is found by
  // one scan; only when it fails are the others ordered (a heap, popped in
  // the order a full sort gives): a 1 TB file on 168 disks stays O(n) per extent.
  std::vector<uint32_t> order(n);
  auto more_filled = [&](uint32_t a, uint32_t b) { return less_filled(b, a); };
  for (uint64_t x = 0; x < count; ++x, ++rot, rot_n = rot_n + 1 == n ? 0 : rot_n + 1) {
    uint32_t least = 0;
    for (uint32_t d = 1; d < n; ++d) {
      if (less_filled(d, least)) least = d;
    }
    if (!has_free(least)) {
      return absl::ResourceExhaustedError("no disk with partners that have free space");
    }
    if (try_place(least)) continue;
    std::iota(order.begin(), order.end(), 0u);
    std::make_heap(order.begin(), order.end(), more_filled);
    bool placed = false;
    for (auto heap_end = order.end(); heap_end != order.begin() && !placed;) {
      std::pop_heap(order.begin(), heap_end, more_filled);
      --heap_end;
      const uint32_t primary = *heap_end;
      if (!has_free(primary)) break;  // in fill order: the rest are full too
      if (primary != least) placed = try_place(primary);
    }
    if (!placed) return absl::ResourceExhaustedError("no disk with partners that have free space");
  }
  return out;
}

}  // namespace cellsim::asmgr::internal
