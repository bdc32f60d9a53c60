// Names, parsing and small helpers of the ASM value types.
#include "cellsim/asm/types.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <utility>
#include <string>

#include "cellsim/base/ascii.h"
#include "cellsim/base/hash.h"
#include "fmt/format.h"

namespace cellsim::asmgr {

std::string_view RedundancyName(Redundancy r) {
  switch (r) {
    case Redundancy::kExternal:
      return "EXTERN";
    case Redundancy::kNormal:
      return "NORMAL";
    case Redundancy::kHigh:
      return "HIGH";
  }
  return "UNKNOWN";
}

std::string_view FileRedundancyName(Redundancy r) {
  switch (r) {
    case Redundancy::kExternal:
      return "UNPROT";
    case Redundancy::kNormal:
      return "MIRROR";
    case Redundancy::kHigh:
      return "HIGH";
  }
  return "UNKNOWN";
}

uint32_t DiskIncarnation(std::string_view path) {
  return 1'000'000'000u + Fnv1a32(path) % 1'000'000'000u;
}

std::string_view DiskMountStatus(const DiskView& d) {
  return d.mode_status != "ONLINE" && d.state != "NORMAL" ? "MISSING" : "CACHED";
}

absl::StatusOr<Redundancy> ParseRedundancy(std::string_view text) {
  const std::string up = base::Upper(text);
  if (up == "EXTERNAL" || up == "EXTERN") return Redundancy::kExternal;
  if (up == "NORMAL") return Redundancy::kNormal;
  if (up == "HIGH") return Redundancy::kHigh;
  return absl::InvalidArgumentError(fmt::format(
      "redundancy '{}' is not one of EXTERNAL, NORMAL, HIGH", std::string(text)));
}

absl::Status ValidateAuSize(uint64_t au_size) {
  if (std::find(kAllowedAuSizes.begin(), kAllowedAuSizes.end(), au_size) !=
      kAllowedAuSizes.end()) {
    return absl::OkStatus();
  }
  std::string shown = au_size % (1 << 20) == 0 ? fmt::format("{} MiB", au_size >> 20)
                                                : fmt::format("{} bytes", au_size);
  return absl::InvalidArgumentError(
      fmt::format("AU size {} is not one of 1, 2, 4, 8, 16, 32, 64 MiB", shown));
}

std::string_view FileTypeName(FileType t) {
  switch (t) {
    case FileType::kControlFile:
      return "CONTROLFILE";
    case FileType::kOnlineLog:
      return "ONLINELOG";
    case FileType::kDataFile:
      return "DATAFILE";
    case FileType::kTempFile:
      return "TEMPFILE";
    case FileType::kArchiveLog:
      return "ARCHIVELOG";
    case FileType::kParameterFile:
      return "PARAMETERFILE";
  }
  return "UNKNOWN";
}

Redundancy TemplateRedundancy(Redundancy group, FileType type) {
  if (group != Redundancy::kNormal) return group;
  return type == FileType::kControlFile ? Redundancy::kHigh : Redundancy::kNormal;
}

std::string_view TemplateStripe(FileType type) {
  return type == FileType::kControlFile ? "FINE" : "COARSE";
}

std::vector<TemplateView> SystemTemplates(Redundancy group) {
  // Oracle's entry order of the types cellsim knows (V$ASM_TEMPLATE of 10g+:
  // PARAMETERFILE 0, CONTROLFILE 2, ARCHIVELOG 3, ONLINELOG 4, DATAFILE 5,
  // TEMPFILE 6).
  constexpr std::array<std::pair<FileType, uint32_t>, 6> kTypes = {{
      {FileType::kParameterFile, 0},
      {FileType::kControlFile, 2},
      {FileType::kArchiveLog, 3},
      {FileType::kOnlineLog, 4},
      {FileType::kDataFile, 5},
      {FileType::kTempFile, 6},
  }};
  std::vector<TemplateView> out;
  for (const auto& [type, entry] : kTypes) {
    out.push_back(TemplateView{.entry = entry,
                               .name = std::string(FileTypeName(type)),
                               .type = type,
                               .redundancy = TemplateRedundancy(group, type),
                               .stripe = std::string(TemplateStripe(type))});
  }
  return out;
}

uint32_t PlacedCopies(Redundancy wanted, uint32_t failure_groups, uint32_t max_partners) {
  return std::max<uint32_t>(1, std::min({Copies(wanted), failure_groups, max_partners + 1}));
}

std::string AsmFileName(std::string_view disk_group, const FileSpec& spec, uint32_t number,
                        uint32_t incarnation) {
  return fmt::format("+{}/{}/{}/{}.{}.{}", std::string(disk_group), base::Upper(spec.db_name),
                     std::string(FileTypeName(spec.type)), spec.tag, number, incarnation);
}

AsmIoStats& AsmIoStats::operator+=(const AsmIoStats& o) {
  cell_requests += o.cell_requests;
  cell_bytes += o.cell_bytes;
  multi_block_requests += o.multi_block_requests;
  cell += o.cell;
  return *this;
}

}  // namespace cellsim::asmgr
