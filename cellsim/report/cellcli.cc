#include "cellsim/report/cellcli.h"

#include <algorithm>
#include <map>
#include <cctype>
#include <cmath>
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

std::string RenderListCellDetail(const cell::CellDescription& cell,
                                 const CellDetailExtras& extras) {
  std::string out;
  out += DetailLine("name", cell.name);
  out += DetailLine("cellVersion", extras.cell_version);
  out += DetailLine("flashCacheMode", CellCliFlashCacheMode(cell.flash_cache_mode));
  out += DetailLine("makeModel", extras.make_model);
  for (const auto& [attribute, value] : extras.more) out += DetailLine(attribute, value);
  out += DetailLine("status", extras.status);
  if (!extras.up_time.empty()) out += DetailLine("upTime", extras.up_time);
  out += DetailLine("cellsrvStatus", "running");
  out += DetailLine("msStatus", "running");
  out += DetailLine("rsStatus", "running");
  return out;
}

std::string RenderListFlashCacheDetail(const cell::CellDescription& cell, bool utc) {
  std::string out;
  out += DetailLine("name", fmt::format("{}_FLASHCACHE", cell.name));
  out += DetailLine("cellDisk", cell.flash_device);
  out += DetailLine("creationTime", internal::Iso8601(cell.creation_time_unix, utc));
  // A degraded cache lists the flash cell disks it lost; cellsim has one device.
  out += DetailLine("degradedCelldisks",
                    cell.flash_cache_status == "normal" || cell.flash_cache_status.empty()
                        ? ""
                        : cell.flash_device);
  out += DetailLine("effectiveCacheSize", FormatCellCliSize(cell.flash_cache_size_bytes));
  out += DetailLine("id", FlashCacheId(cell));
  out += DetailLine("size", FormatCellCliSize(cell.flash_size_bytes));
  out += DetailLine("status", cell.flash_cache_status.empty() ? "normal" : cell.flash_cache_status);
  return out;
}

std::string RenderListGridDisk(const cell::CellDescription& cell) {
  size_t widest = 0;
  for (const cell::GridDiskInfo& g : cell.grid_disks) widest = std::max(widest, g.name.size());
  const size_t w = TabWidth(widest);
  std::string out;
  for (const cell::GridDiskInfo& g : cell.grid_disks) {
    out += fmt::format("{}{:<{}}{}\n", kIndent, g.name, w, g.status);
  }
  return out;
}

std::string RenderListGridDiskDetail(const cell::CellDescription& cell) {
  std::string out;
  for (const cell::GridDiskInfo& g : cell.grid_disks) {
    out += DetailLine("name", g.name);
    out += DetailLine("cachingPolicy", cell::CachingPolicyName(g.caching_policy));
    out += DetailLine("cellDisk", g.cell_disk);
    out += DetailLine("size", FormatCellCliSize(g.size_bytes));
    out += DetailLine("status", g.status);
    if (!g.status_reason.empty()) out += DetailLine("statusReason", g.status_reason);
  }
  return out;
}

std::string RenderListCellDisk(const cell::CellDescription& cell) {
  std::vector<std::string> names;
  std::map<std::string, std::pair<int, int>> counts;  // cell disk -> (grid disks, not present)
  for (const cell::GridDiskInfo& g : cell.grid_disks) {
    if (counts.count(g.cell_disk) == 0) names.push_back(g.cell_disk);
    auto& [all, absent] = counts[g.cell_disk];
    ++all;
    absent += g.status == "not present" ? 1 : 0;
  }
  std::sort(names.begin(), names.end());
  size_t widest = 0;
  for (const std::string& n : names) widest = std::max(widest, n.size());
  const size_t w = TabWidth(widest);
  std::string out;
  for (const std::string& n : names) {
    const auto [all, absent] = counts[n];
    const char* status = absent == 0 ? "normal" : absent == all ? "not present" : "critical";
    out += fmt::format("{}{:<{}}{}\n", kIndent, n, w, status);
  }
  return out;
}

std::string RenderListMetricCurrent(const std::vector<cell::Metric>& metrics,
                                    std::string_view object_type) {
  std::vector<const cell::Metric*> rows;
  for (const cell::Metric& m : metrics) {
    if (object_type.empty() || EqualsIgnoreCase(m.object_type, object_type)) rows.push_back(&m);
  }
  std::stable_sort(rows.begin(), rows.end(), [](const cell::Metric* a, const cell::Metric* b) {
    return std::tie(a->name, a->object) < std::tie(b->name, b->object);
  });
  size_t name_w = 0, object_w = 0;
  for (const cell::Metric* m : rows) {
    name_w = std::max(name_w, m->name.size());
    object_w = std::max(object_w, m->object.size());
  }
  name_w = TabWidth(name_w);
  object_w = TabWidth(object_w);
  std::string out;
  for (const cell::Metric* m : rows) {
    out += fmt::format("{}{:<{}}{:<{}}{}\n", kIndent, m->name, name_w, m->object, object_w,
                       FormatMetricValue(m->value, m->unit));
  }
  return out;
}

}  // namespace cellsim::report
