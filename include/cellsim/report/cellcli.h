// CellCLI's views of a cell, laid out as `cellcli -e "..."` prints them:
//
//   LIST CELL DETAIL / LIST FLASHCACHE DETAIL: one "attribute: value" line per
//   attribute, indented 9 columns, values aligned at column 34:
//            name:                   cel01_FLASHCACHE
//            effectiveCacheSize:     364.75G
//   LIST GRIDDISK: one row per grid disk (name, status).
//   LIST METRICCURRENT [WHERE objectType = 'FLASHCACHE']: name, object, value
//   with unit, in aligned columns:
//            FC_BY_DIRTY             FLASHCACHE      38,912 MB
//
// Inputs are the plain values of include/cellsim/cell/cell_service.h.
//
// Usage:
//   absl::StatusOr<cell::CellDescription> d = cell->Describe();
//   std::string text = RenderListFlashCacheDetail(*d);
//   std::string m = RenderListMetricCurrent(*cell->Metrics(), "FLASHCACHE");
//
// Thread-safety: pure functions.
#ifndef CELLSIM_REPORT_CELLCLI_H_
#define CELLSIM_REPORT_CELLCLI_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cellsim/cell/cell_service.h"

namespace cellsim::report {

// What a cell description does not carry but LIST CELL DETAIL shows.
struct CellDetailExtras {
  std::string cell_version = "OSS_CELLSIM_0.1.0";
  std::string make_model = "cellsim simulated Exadata storage cell";
  std::string status = "online";
  std::string up_time;  // e.g. "0 days, 0:12"; line omitted when empty
  // Further "attribute", "value" pairs, printed before status.
  std::vector<std::pair<std::string, std::string>> more;
  bool utc = false;  // print times in UTC rather than local time
};

std::string RenderListCellDetail(const cell::CellDescription& cell,
                                 const CellDetailExtras& extras = {});
std::string RenderListFlashCacheDetail(const cell::CellDescription& cell, bool utc = false);
std::string RenderListGridDisk(const cell::CellDescription& cell);
// LIST GRIDDISK DETAIL: per grid disk name, cachingPolicy, cellDisk, size and
// status (and why it is not present), as CellCLI's attribute lines.
std::string RenderListGridDiskDetail(const cell::CellDescription& cell);
// LIST CELLDISK: name and status, "normal", "not present" (every grid disk on
// it is missing) or "critical" (some are).
std::string RenderListCellDisk(const cell::CellDescription& cell);
// Metrics whose objectType equals `object_type` (case-insensitive; empty: all),
// sorted by name then object.
std::string RenderListMetricCurrent(const std::vector<cell::Metric>& metrics,
                                    std::string_view object_type = "");

// CellCLI sizes: the largest unit (T, G, M, K) the size reaches, with as many
// decimals as needed: 391378894848 -> "364.5G", 536870912 -> "512M", 1000 -> "1000".
std::string FormatCellCliSize(uint64_t bytes);
// CellCLI metric values: "0.000 MB", "17.445 MB", "38,912 MB", "1,325 IO requests".
std::string FormatMetricValue(double value, std::string_view unit);
// "WriteBack" / "WriteThrough" (cell::FlashCacheModeName).
std::string_view CellCliFlashCacheMode(cell::FlashCacheMode mode);
// The flash cache id: a UUID-shaped string derived from the cell name and the
// creation time, so it is stable across runs.
std::string FlashCacheId(const cell::CellDescription& cell);

}  // namespace cellsim::report

#endif  // CELLSIM_REPORT_CELLCLI_H_
