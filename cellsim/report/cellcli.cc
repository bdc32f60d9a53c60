#include "cellsim/report/cellcli.h"

#include <algorithm>
#include <map>
#include <cctype>
#include <cmath>
#include <optional>
#include <regex>
#include <tuple>

#include <fmt/format.h>

#include "cellsim/base/checksum.h"
#include "cellsim/report/text_format.h"

namespace cellsim::report {
namespace {

constexpr std::string_view kIndent = "         ";  // CellCLI's "\t " at tab stop 8

// "         name:                   value": attribute and colon padded to 24.
std::string DetailLine(std::string_view attribute, std::string_view value) {
  std::string key = fmt::format("{}:", attribute);
  if (key.size() < 24) key.resize(24, ' ');
  else key += ' ';
  return fmt::format("{}{}{}\n", kIndent, key, value);
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

// Column width the way tab stops make it: at least the widest value + 1,
// rounded up to a multiple of 8.
size_t TabWidth(size_t widest) { return (widest + 1 + 7) / 8 * 8; }

}  // namespace

std::string_view CellCliFlashCacheMode(cell::FlashCacheMode mode) {
  return cell::FlashCacheModeName(mode);
}

std::string FormatCellCliSize(uint64_t bytes) {
  static constexpr std::pair<uint64_t, char> kUnits[] = {
      {uint64_t{1} << 40, 'T'}, {uint64_t{1} << 30, 'G'}, {uint64_t{1} << 20, 'M'},
      {uint64_t{1} << 10, 'K'}};
  for (const auto& [unit, suffix] : kUnits) {
    if (bytes >= unit) {
      // Exact binary fractions print in full, as CellCLI's Java doubles do.
      std::string s = fmt::format("{}", static_cast<double>(bytes) / static_cast<double>(unit));
      return s + suffix;
    }
  }
  return fmt::format("{}", bytes);
}

std::string FormatMetricValue(double value, std::string_view unit) {
  std::string number;
  const bool count_unit = unit.find("IO") != std::string_view::npos && unit.find("/sec") == std::string_view::npos;
  if (count_unit || std::fabs(value) >= 100.0) {
    number = internal::GroupThousands(std::llround(value));
  } else {
    number = fmt::format("{:.3f}", value);
  }
  if (unit.empty()) return number;
  return fmt::format("{} {}", number, unit);
}

std::string FlashCacheId(const cell::CellDescription& cell) {
  const std::string key = fmt::format("{}/{}", cell.name, cell.creation_time_unix);
  const auto* bytes = reinterpret_cast<const uint8_t*>(key.data());
  const uint64_t a = Checksum64(absl::MakeConstSpan(bytes, key.size()), 0x4643);  // "FC"
  const uint64_t b = Checksum64(absl::MakeConstSpan(bytes, key.size()), 0x4944);  // "ID"
  return fmt::format("{:08x}-{:04x}-{:04x}-{:04x}-{:012x}", a >> 32, (a >> 16) & 0xffff,
                     a & 0xffff, b >> 48, b & 0xffffffffffffULL);
}

namespace {

using Attributes = std::vector<std::pair<std::string, std::string>>;

constexpr std::string_view kCannotDeactivate =
    "Cannot de-activate due to other offline disks in the diskgroup";

CellCliObject CellObject(const cell::CellDescription& cell, const CellDetailExtras& extras) {
  // A cell whose every grid disk Open found absent is offline.
  const bool absent = !cell.grid_disks.empty() &&
                      std::all_of(cell.grid_disks.begin(), cell.grid_disks.end(),
                                  [](const auto& g) { return g.status == "not present"; });
  Attributes a = {{"name", cell.name},
                  {"cellVersion", extras.cell_version},
                  {"flashCacheMode", std::string(CellCliFlashCacheMode(cell.flash_cache_mode))},
                  {"makeModel", extras.make_model}};
  a.insert(a.end(), extras.more.begin(), extras.more.end());
  a.emplace_back("status", absent ? "offline" : extras.status);
  if (!extras.up_time.empty()) a.emplace_back("upTime", extras.up_time);
  for (const char* daemon : {"cellsrvStatus", "msStatus", "rsStatus"}) {
    a.emplace_back(daemon, "running");
  }
  return {std::move(a)};
}

// A cell disk as its grid disks make it: how many, how many are missing, and
// their total size (a cell disk here is exactly its grid disks).
struct CellDiskTotals {
  int grid_disks = 0;
  int absent = 0;
  uint64_t size = 0;
};

// The cell's cell disks, sorted by name.
std::map<std::string, CellDiskTotals> CellDisksOf(const cell::CellDescription& cell) {
  std::map<std::string, CellDiskTotals> disks;
  for (const cell::GridDiskInfo& g : cell.grid_disks) {
    CellDiskTotals& d = disks[g.cell_disk];
    ++d.grid_disks;
    d.absent += g.status == "not present" ? 1 : 0;
    d.size += g.size_bytes;
  }
  return disks;
}

std::vector<CellCliObject> CellDiskObjects(const cell::CellDescription& cell) {
  std::vector<CellCliObject> out;
  for (const auto& [name, d] : CellDisksOf(cell)) {
    const char* status = d.absent == 0               ? "normal"
                         : d.absent == d.grid_disks ? "not present"
                                                     : "critical";
    // A cell disk here is exactly its grid disks: no space is left over.
    out.push_back({{{"name", name},
                    {"diskType", "HardDisk"},
                    {"freeSpace", "0"},
                    {"size", FormatCellCliSize(d.size)},
                    {"status", status}}});
  }
  return out;
}

// A short serial number, stable for a cell's disk ("R7K4NV"-like).
std::string DiskSerial(std::string_view cell, std::string_view disk) {
  const std::string key = fmt::format("{}/{}", cell, disk);
  uint64_t h = Checksum64(absl::MakeConstSpan(reinterpret_cast<const uint8_t*>(key.data()),
                                              key.size()),
                          0x5044);  // "PD"
  static constexpr char kDigits[] = "0123456789ABCDEFGHJKLMNPQRSTUVWXYZ";
  std::string serial;
  for (int i = 0; i < 6; ++i, h /= 34) serial += kDigits[h % 34];
  return serial;
}

// The physical disks under the cell disks: one hard disk per cell disk
// ("20:n", slot n, in the cell disks' order) and the flash device
// ("FLASH_1_0"). A hard disk is `not present` when every grid disk on its
// cell disk is; the flash when the cell's flash is gone.
std::vector<CellCliObject> PhysicalDiskObjects(const cell::CellDescription& cell) {
  std::vector<CellCliObject> out;
  size_t slot = 0;
  for (const auto& [cell_disk, d] : CellDisksOf(cell)) {
    out.push_back({{{"name", fmt::format("20:{}", slot)},
                    {"diskType", "HardDisk"},
                    {"id", DiskSerial(cell.name, cell_disk)},
                    {"luns", fmt::format("0_{}", slot)},
                    {"physicalSize", FormatCellCliSize(d.size)},
                    {"slotNumber", std::to_string(slot)},
                    {"status", d.absent < d.grid_disks ? "normal" : "not present"}}});
    ++slot;
  }
  const bool flash_present = cell.flash_cache_status.empty() || cell.flash_cache_status == "normal";
  out.push_back({{{"name", "FLASH_1_0"},
                  {"diskType", "FlashDisk"},
                  {"id", DiskSerial(cell.name, cell.flash_device)},
                  {"luns", "1_0"},
                  {"physicalSize", FormatCellCliSize(cell.flash_size_bytes)},
                  {"slotNumber", "PCI Slot: 1; FDOM: 0"},
                  {"status", flash_present ? "normal" : "not present"}}});
  return out;
}

std::vector<CellCliObject> GridDiskObjects(const CellCliInputs& in) {
  std::vector<CellCliObject> out;
  for (const cell::GridDiskInfo& g : in.cell->grid_disks) {
    Attributes a = {{"name", g.name}};
    if (in.asm_disks != nullptr) {
      const GridDiskAsm* m = nullptr;
      for (const GridDiskAsm& x : *in.asm_disks) {
        if (x.grid_disk == g.name) m = &x;
      }
      if (m != nullptr) {
        a.emplace_back("asmDeactivationOutcome", m->can_deactivate ? "Yes" : kCannotDeactivate);
        a.emplace_back("asmDiskGroupName", m->disk_group);
        a.emplace_back("asmDiskName", m->disk_name);
        a.emplace_back("asmFailGroupName", m->fail_group);
        a.emplace_back("asmModeStatus", m->mode_status);
      } else {
        a.emplace_back("asmDeactivationOutcome", "Yes");
        a.emplace_back("asmModeStatus", "UNUSED");
      }
    }
    // cachedBy: the flash disk that caches the grid disk's data.
    a.emplace_back("cachedBy",
                   g.caching_policy == cell::CachingPolicy::kDefault ? in.cell->flash_device : "");
    a.emplace_back("cachingPolicy", std::string(cell::CachingPolicyName(g.caching_policy)));
    a.emplace_back("cellDisk", g.cell_disk);
    a.emplace_back("diskType", "HardDisk");
    a.emplace_back("size", FormatCellCliSize(g.size_bytes));
    a.emplace_back("status", g.status);
    if (!g.status_reason.empty()) a.emplace_back("statusReason", g.status_reason);
    out.push_back({std::move(a)});
  }
  return out;
}

CellCliObject FlashCacheObject(const cell::CellDescription& cell, bool utc) {
  const std::string status = cell.flash_cache_status.empty() ? "normal" : cell.flash_cache_status;
  // A degraded cache lists the flash cell disks it lost; cellsim has one device.
  return {{{"name", fmt::format("{}_FLASHCACHE", cell.name)},
           {"cellDisk", cell.flash_device},
           {"creationTime", internal::Iso8601(cell.creation_time_unix, utc)},
           {"degradedCelldisks", status == "normal" ? "" : cell.flash_device},
           {"effectiveCacheSize", FormatCellCliSize(cell.flash_cache_size_bytes)},
           {"id", FlashCacheId(cell)},
           {"size", FormatCellCliSize(cell.flash_size_bytes)},
           {"status", status}}};
}

std::vector<CellCliObject> MetricObjects(const CellCliInputs& in) {
  std::vector<const cell::Metric*> rows;
  if (in.metrics != nullptr) {
    for (const cell::Metric& m : *in.metrics) rows.push_back(&m);
  }
  std::stable_sort(rows.begin(), rows.end(), [](const cell::Metric* a, const cell::Metric* b) {
    return std::tie(a->name, a->object) < std::tie(b->name, b->object);
  });
  std::vector<CellCliObject> out;
  for (const cell::Metric* m : rows) {
    // No thresholds are defined on a simulated cell: every alert state is normal.
    out.push_back({{{"name", m->name},
                    {"alertState", "normal"},
                    {"collectionTime", internal::Iso8601(in.now_unix, in.utc)},
                    {"metricObjectName", m->object},
                    {"metricValue", FormatMetricValue(m->value, m->unit)},
                    {"objectType", m->object_type}}});
  }
  return out;
}

// Attributes a type has but DESCRIBE, ATTRIBUTES ALL and DETAIL leave out.
std::vector<std::string_view> AskedOnlyAttributes(CellCliObjectType type) {
  if (type == CellCliObjectType::kGridDisk) return {"asmDeactivationOutcome", "asmModeStatus"};
  return {};
}

bool Contains(const std::vector<std::string_view>& list, std::string_view name) {
  return std::any_of(list.begin(), list.end(),
                     [&](std::string_view x) { return EqualsIgnoreCase(x, name); });
}

// The leading number of a CellCLI value: "1,325 IO requests" 1325, "512M"
// 536870912, "0.000 MB" 0. Nullopt when it does not start with a number.
std::optional<double> NumberOf(std::string_view text) {
  std::string digits;
  size_t i = 0;
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) digits += text[i++];
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') {
      digits += c;
    } else if (c != ',') {
      break;
    }
  }
  if (digits.empty() || digits == "-" || digits == "+") return std::nullopt;
  char* end = nullptr;
  double v = std::strtod(digits.c_str(), &end);
  if (end != digits.c_str() + digits.size()) return std::nullopt;
  // A unit letter right after the number is a size ("512M"); "0.000 MB" is a
  // metric in MB, compared as printed.
  if (i < text.size()) {
    static constexpr std::pair<char, double> kUnits[] = {
        {'K', 1024.0}, {'M', 1048576.0}, {'G', 1073741824.0}, {'T', 1099511627776.0}};
    for (const auto& [letter, scale] : kUnits) {
      if (std::toupper(static_cast<unsigned char>(text[i])) == letter) v *= scale;
    }
  }
  return v;
}

bool FilterHolds(const CellCliFilter& f, const std::string& value) {
  using Op = CellCliFilter::Op;
  switch (f.op) {
    case Op::kEq:
      return EqualsIgnoreCase(value, f.value);
    case Op::kNe:
      return !EqualsIgnoreCase(value, f.value);
    case Op::kLike:
      return std::regex_match(value,
                              std::regex(f.value, std::regex::icase | std::regex::extended));
    default:
      break;
  }
  const std::optional<double> a = NumberOf(value);
  const std::optional<double> b = NumberOf(f.value);
  if (!a || !b) return false;
  switch (f.op) {
    case Op::kLt: return *a < *b;
    case Op::kLe: return *a <= *b;
    case Op::kGt: return *a > *b;
    default: return *a >= *b;
  }
}

// The attribute names a LIST may use: DESCRIBE's, the asked-only ones, and
// any an object carries (CellDetailExtras::more).
absl::Status CheckAttribute(CellCliObjectType type, const std::vector<CellCliObject>& objects,
                            std::string_view attribute) {
  if (CellCliHasAttribute(type, attribute)) return absl::OkStatus();
  for (const CellCliObject& o : objects) {
    if (o.Find(attribute) != nullptr) return absl::OkStatus();
  }
  return absl::InvalidArgumentError(fmt::format(
      "CELL-01504: Invalid command syntax. {} has no attribute '{}' (DESCRIBE {} lists them)",
      CellCliObjectTypeName(type), attribute, CellCliObjectTypeName(type)));
}

// The attributes LIST prints: those asked for, or every one DETAIL shows, or
// the type's default columns.
std::vector<std::string> ListedAttributes(CellCliObjectType type, const CellCliObject& object,
                                          const CellCliList& list) {
  if (!list.attributes.empty()) return list.attributes;
  if (list.detail || list.all_attributes) {
    std::vector<std::string> all;
    for (const auto& [name, value] : object.attributes) {
      if (!Contains(AskedOnlyAttributes(type), name)) all.push_back(name);
    }
    return all;
  }
  if (type == CellCliObjectType::kMetricCurrent) return {"name", "metricObjectName", "metricValue"};
  if (type == CellCliObjectType::kPhysicalDisk) return {"name", "id", "status"};
  return {"name", "status"};
}

}  // namespace

std::string_view CellCliObjectTypeName(CellCliObjectType type) {
  switch (type) {
    case CellCliObjectType::kCell: return "CELL";
    case CellCliObjectType::kCellDisk: return "CELLDISK";
    case CellCliObjectType::kGridDisk: return "GRIDDISK";
    case CellCliObjectType::kFlashCache: return "FLASHCACHE";
    case CellCliObjectType::kMetricCurrent: return "METRICCURRENT";
    case CellCliObjectType::kPhysicalDisk: return "PHYSICALDISK";
  }
  return "";
}

std::string CellCliObjectTypeNames(std::string_view separator) {
  std::string out;
  for (CellCliObjectType t : kCellCliObjectTypes) {
    if (!out.empty()) out += separator;
    out += CellCliObjectTypeName(t);
  }
  return out;
}

bool ParseCellCliObjectType(std::string_view word, CellCliObjectType* type) {
  for (CellCliObjectType t : kCellCliObjectTypes) {
    if (EqualsIgnoreCase(word, CellCliObjectTypeName(t))) {
      *type = t;
      return true;
    }
  }
  return false;
}

const std::string* CellCliObject::Find(std::string_view attribute) const {
  for (const auto& [name, value] : attributes) {
    if (EqualsIgnoreCase(name, attribute)) return &value;
  }
  return nullptr;
}

std::vector<CellCliObject> CellCliObjects(CellCliObjectType type, const CellCliInputs& in) {
  switch (type) {
    case CellCliObjectType::kCell: return {CellObject(*in.cell, in.extras)};
    case CellCliObjectType::kCellDisk: return CellDiskObjects(*in.cell);
    case CellCliObjectType::kGridDisk: return GridDiskObjects(in);
    case CellCliObjectType::kFlashCache: return {FlashCacheObject(*in.cell, in.utc)};
    case CellCliObjectType::kMetricCurrent: return MetricObjects(in);
    case CellCliObjectType::kPhysicalDisk: return PhysicalDiskObjects(*in.cell);
  }
  return {};
}

std::vector<std::string_view> CellCliDescribedAttributes(CellCliObjectType type) {
  switch (type) {
    case CellCliObjectType::kCell:
      return {"name", "cellVersion", "flashCacheMode", "makeModel", "status", "upTime",
              "cellsrvStatus", "msStatus", "rsStatus"};
    case CellCliObjectType::kCellDisk:
      return {"name", "diskType", "freeSpace", "size", "status"};
    case CellCliObjectType::kGridDisk:
      return {"name", "asmDiskGroupName", "asmDiskName", "asmFailGroupName", "cachedBy",
              "cachingPolicy", "cellDisk", "diskType", "size", "status", "statusReason"};
    case CellCliObjectType::kFlashCache:
      return {"name", "cellDisk", "creationTime", "degradedCelldisks", "effectiveCacheSize", "id",
              "size", "status"};
    case CellCliObjectType::kMetricCurrent:
      return {"name", "alertState", "collectionTime", "metricObjectName", "metricValue",
              "objectType"};
    case CellCliObjectType::kPhysicalDisk:
      return {"name", "diskType", "id", "luns", "physicalSize", "slotNumber", "status"};
  }
  return {};
}

bool CellCliHasAttribute(CellCliObjectType type, std::string_view attribute) {
  return Contains(CellCliDescribedAttributes(type), attribute) ||
         Contains(AskedOnlyAttributes(type), attribute);
}

std::string RenderCellCliDescribe(CellCliObjectType type) {
  std::string out;
  for (std::string_view a : CellCliDescribedAttributes(type)) out += fmt::format("{}{}\n", kIndent, a);
  return out;
}

bool CellCliMatches(const CellCliObject& object, const std::vector<CellCliFilter>& filters) {
  for (const CellCliFilter& f : filters) {
    const std::string* value = object.Find(f.attribute);
    if (value == nullptr || !FilterHolds(f, *value)) return false;
  }
  return true;
}

absl::StatusOr<std::string> RenderCellCliList(CellCliObjectType type,
                                              const std::vector<CellCliObject>& objects,
                                              const CellCliList& list) {
  for (const CellCliFilter& f : list.filters) {
    if (absl::Status s = CheckAttribute(type, objects, f.attribute); !s.ok()) return s;
    const bool numeric = f.op != CellCliFilter::Op::kEq && f.op != CellCliFilter::Op::kNe &&
                         f.op != CellCliFilter::Op::kLike;
    if (numeric && !NumberOf(f.value)) {
      return absl::InvalidArgumentError(fmt::format(
          "CELL-01504: Invalid command syntax. '{}' is not a number: <, <=, > and >= compare "
          "numbers",
          f.value));
    }
  }
  for (const std::string& a : list.attributes) {
    if (absl::Status s = CheckAttribute(type, objects, a); !s.ok()) return s;
  }
  std::vector<const CellCliObject*> kept;
  for (const CellCliObject& o : objects) {
    if (CellCliMatches(o, list.filters)) kept.push_back(&o);
  }
  std::string out;
  if (list.detail) {
    for (const CellCliObject* o : kept) {
      if (!out.empty()) out += "\n";  // a blank line between objects
      for (const std::string& a : ListedAttributes(type, *o, list)) {
        const std::string* v = o->Find(a);
        // Asked for by name: printed even when the object lacks it.
        if (v != nullptr || !list.attributes.empty()) out += DetailLine(a, v ? *v : "");
      }
    }
    return out;
  }
  // Rows: every column but the last as wide as its widest value, to a tab stop.
  std::vector<std::vector<std::string>> rows;
  std::vector<size_t> widths;
  for (const CellCliObject* o : kept) {
    std::vector<std::string> row;
    for (const std::string& a : ListedAttributes(type, *o, list)) {
      const std::string* v = o->Find(a);
      row.push_back(v ? *v : "");
      if (widths.size() < row.size()) widths.push_back(0);
      widths[row.size() - 1] = std::max(widths[row.size() - 1], row.back().size());
    }
    rows.push_back(std::move(row));
  }
  for (const std::vector<std::string>& row : rows) {
    std::string line(kIndent);
    for (size_t c = 0; c < row.size(); ++c) {
      line += c + 1 < row.size() ? fmt::format("{:<{}}", row[c], TabWidth(widths[c])) : row[c];
    }
    out += line + "\n";
  }
  return out;
}

}  // namespace cellsim::report
