// CellCLI's LIST and DESCRIBE of a cell's objects, laid out as `cellcli -e
// "..."` prints them. Each object type (CELL, CELLDISK, GRIDDISK, FLASHCACHE,
// METRICCURRENT) is a list of objects, each a list of attributes; LIST picks
// objects by name or WHERE filters and prints
//   - DETAIL: one "attribute: value" line per attribute, indented 9 columns,
//     values aligned at column 34:
//            name:                   cel01_FLASHCACHE
//            effectiveCacheSize:     364.75G
//   - otherwise one row per object of the ATTRIBUTES asked for (default: the
//     type's usual columns, name and status), in columns as wide as the widest
//     value rounded up to a tab stop:
//            DATA_CD_00_cel01        active
//            FC_BY_DIRTY             FLASHCACHE      38,912 MB
//
// Inputs are the plain values of include/cellsim/cell/cell_service.h and, for
// the grid disks' asm* attributes, ASM's view of them.
//
// Usage:
//   CellCliInputs in{.cell = &*cell->Describe()};
//   std::vector<CellCliObject> disks = CellCliObjects(CellCliObjectType::kGridDisk, in);
//   CellCliList list{.filters = {{"status", CellCliFilter::Op::kEq, "active"}},
//                    .attributes = {"name", "size"}};
//   absl::StatusOr<std::string> text = RenderCellCliList(CellCliObjectType::kGridDisk,
//                                                        disks, list);
//
// Thread-safety: pure functions.
#ifndef CELLSIM_REPORT_CELLCLI_H_
#define CELLSIM_REPORT_CELLCLI_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "cellsim/cell/cell_service.h"

namespace cellsim::report {

enum class CellCliObjectType {
  kCell,
  kCellDisk,
  kGridDisk,
  kFlashCache,
  kMetricCurrent,
  kPhysicalDisk,
};
// Every type, in the order help texts list them.
inline constexpr CellCliObjectType kCellCliObjectTypes[] = {
    CellCliObjectType::kCell,       CellCliObjectType::kCellDisk,
    CellCliObjectType::kFlashCache, CellCliObjectType::kGridDisk,
    CellCliObjectType::kMetricCurrent, CellCliObjectType::kPhysicalDisk};

// "CELL", "CELLDISK", ...
std::string_view CellCliObjectTypeName(CellCliObjectType type);
// The names of kCellCliObjectTypes joined by `separator` ("CELL, CELLDISK, ...").
std::string CellCliObjectTypeNames(std::string_view separator);
// The type a word names (case-insensitive); false for anything else.
bool ParseCellCliObjectType(std::string_view word, CellCliObjectType* type);

// One object: its attributes in DESCRIBE's order, "name" first. An attribute
// the object does not have (a grid disk's statusReason while it is active) is
// absent: DETAIL leaves it out, ATTRIBUTES prints it empty.
struct CellCliObject {
  std::vector<std::pair<std::string, std::string>> attributes;
  // The value of `attribute` (case-insensitive), or nullptr.
  const std::string* Find(std::string_view attribute) const;
};

// What a cell description does not carry but LIST CELL DETAIL shows.
struct CellDetailExtras {
  std::string cell_version = "OSS_CELLSIM_0.1.0";
  std::string make_model = "cellsim simulated Exadata storage cell";
  std::string status = "online";
  std::string up_time;  // e.g. "0 days, 0:12"; attribute absent when empty
  // Further "attribute", "value" pairs, listed before status.
  std::vector<std::pair<std::string, std::string>> more;
};

// ASM's view of one grid disk (the cell does not know it).
struct GridDiskAsm {
  std::string grid_disk;         // "DATA_CD_00_cel01"
  std::string disk_group;        // asmDiskGroupName, "DATA"
  std::string disk_name;         // asmDiskName
  std::string fail_group;        // asmFailGroupName, "CEL01"
  std::string mode_status;       // asmModeStatus, "ONLINE" / "OFFLINE"
  bool can_deactivate = true;    // asmDeactivationOutcome "Yes"
};

struct CellCliInputs {
  const cell::CellDescription* cell = nullptr;  // required
  CellDetailExtras extras{};                    // CELL
  // METRICCURRENT (nullptr: none); their collectionTime is `now_unix`.
  const std::vector<cell::Metric>* metrics = nullptr;
  // GRIDDISK's asm* attributes; nullptr leaves them out, and a grid disk
  // missing from the list is asmModeStatus UNUSED (in no disk group).
  const std::vector<GridDiskAsm>* asm_disks = nullptr;
  int64_t now_unix = 0;
  bool utc = false;  // print times in UTC rather than local time
};

// The objects of one type on one cell, in CellCLI's order (METRICCURRENT by
// name then object).
std::vector<CellCliObject> CellCliObjects(CellCliObjectType type, const CellCliInputs& in);

// The attributes DESCRIBE lists for a type, in order. GRIDDISK's
// asmDeactivationOutcome and asmModeStatus are not among them (as in CellCLI,
// they are asked of ASM, so only ATTRIBUTES and WHERE name them).
std::vector<std::string_view> CellCliDescribedAttributes(CellCliObjectType type);
// Whether LIST may name `attribute` for `type` (DESCRIBE's and the asked-only
// ones, case-insensitive).
bool CellCliHasAttribute(CellCliObjectType type, std::string_view attribute);
// DESCRIBE's output: one attribute per line, indented as LIST's rows.
std::string RenderCellCliDescribe(CellCliObjectType type);

struct CellCliFilter {
  // = and != compare case-insensitively; LIKE is a case-insensitive regular
  // expression over the whole value; < <= > >= compare numbers (the value's
  // leading number, thousands separators ignored, times K/M/G/T when a unit
  // letter follows: "1,325 IO requests" is 1325, "512M" 536870912).
  enum class Op { kEq, kNe, kLike, kLt, kLe, kGt, kGe };
  std::string attribute{};
  Op op = Op::kEq;
  std::string value{};
};

// What LIST asks for.
struct CellCliList {
  std::vector<CellCliFilter> filters{};   // every one must hold
  std::vector<std::string> attributes{};  // ATTRIBUTES a, b (empty: see below)
  bool all_attributes = false;          // ATTRIBUTES ALL
  bool detail = false;
};

// LIST over `objects` of `type`: the objects every filter holds for, as
// DETAIL lines (the attributes asked for, or all of them) or as rows (the
// attributes asked for, or the type's default columns). InvalidArgument
// "CELL-01504: ..." for an attribute the type does not have, or a comparison
// with a value that is not a number.
[[nodiscard]] absl::StatusOr<std::string> RenderCellCliList(
    CellCliObjectType type, const std::vector<CellCliObject>& objects, const CellCliList& list);

// Whether `object` passes every filter (unknown attributes never match).
bool CellCliMatches(const CellCliObject& object, const std::vector<CellCliFilter>& filters);

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
