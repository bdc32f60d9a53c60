// The seed (/work/shared/seeds/fast-data-file-creation.txt, docs/statistics.md
// "Comparison with the seed"): its statement, its rack as the model reads it,
// and its table of statistics, for the tests that reproduce it and the one that
// keeps docs/statistics.md's comparison table true.
#ifndef CELLSIM_TESTS_DB_SEED_TABLE_H_
#define CELLSIM_TESTS_DB_SEED_TABLE_H_

#include <fmt/format.h>

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "cellsim/asm/rack.h"
#include "cellsim/stats/statistics.h"

namespace cellsim::db {

inline constexpr std::string_view kSeedStatement =
    "alter database add logfile thread 2 group 5 ('+DATA','+RECO') size 4096m";

struct SeedRow {
  stats::Stat stat;
  int64_t seed;
};

// The seed's mystats rows, in its (alphabetical) order.
inline constexpr std::array<SeedRow, 12> kSeedStatistics = {{
    {stats::Stat::kCellFlashCacheReadHits, 20},
    {stats::Stat::kCellLogicalWriteIoRequests, 14},
    {stats::Stat::kCellOverwritesInFlashCache, 30},
    {stats::Stat::kCellPhysicalIoBytesEligibleForPredicateOffload, 17'179'869'184},
    {stats::Stat::kCellPhysicalIoBytesSavedDuringOptimizedFileCreation, 17'179'869'184},
    {stats::Stat::kCellPhysicalIoInterconnectBytes, 1'361'920},
    {stats::Stat::kCellWritesToFlashCache, 30},
    {stats::Stat::kPhysicalWriteRequestsOptimized, 10},
    {stats::Stat::kPhysicalWriteTotalIoRequests, 4'126},
    {stats::Stat::kPhysicalWriteTotalBytes, 17'180'197'888},
    {stats::Stat::kPhysicalWriteTotalBytesOptimized, 163'840},
    {stats::Stat::kPhysicalWriteTotalMultiBlockRequests, 4'096},
}};

// The seed's rack as the model reads it (docs/statistics.md "The seed's
// rack"): asmgr::DefaultRackConfig() (a quarter rack: 3 cells x 12 disks,
// NORMAL, AU 4 MiB, write-back) with RECO's grid disks at cachingPolicy=none
// and 16 KiB flash-cache lines (a control-file block fills one: the seed shows
// no partial writes) [I].
inline asmgr::RackConfig SeedRackConfig() {
  asmgr::RackConfig c = asmgr::DefaultRackConfig();
  for (asmgr::DiskGroupSpec& g : c.disk_groups) {
    if (g.name == "RECO") g.caching_policy = cell::CachingPolicy::kNone;
  }
  c.cache_line_size = 16 * 1024;
  return c;
}

inline std::string Thousands(int64_t v) {
  std::string digits = fmt::format("{}", v < 0 ? -v : v), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i != 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return v < 0 ? "-" + out : out;
}

// The comparison table of docs/statistics.md, from a statement's statistics.
template <typename Values>
std::string FormatSeedTable(const Values& st) {
  std::string out = "| statistic | seed | cellsim |\n|---|---:|---:|\n";
  for (const SeedRow& row : kSeedStatistics) {
    out += fmt::format("| {} | {} | {} |\n", stats::StatName(row.stat), Thousands(row.seed),
                       Thousands(st[row.stat]));
  }
  return out;
}

}  // namespace cellsim::db

#endif  // CELLSIM_TESTS_DB_SEED_TABLE_H_
