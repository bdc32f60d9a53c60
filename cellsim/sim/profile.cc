#include "cellsim/sim/profile.h"

#include <fstream>
#include <sstream>

#include "fmt/format.h"
#include "nlohmann/json.hpp"

namespace cellsim::sim {
namespace {

// Sources (docs/profiles.md repeats them with the reasoning).
constexpr const char* kNanda =
    "[S] https://informit.com/articles/article.aspx?p=2418151&seqNum=2 (12 HDDs, 4 flash cards "
    "per cell, X2-X4)";
constexpr const char* kX3Slide =
    "[S] https://www.yumpu.com/en/document/view/7711728/exadata-technical-overview-oracle/21 "
    "(X3-2 per-cell data sheet)";
constexpr const char* kWhitePaper =
    "[S] http://oradbastuff.blogspot.com/2015/01/50k-iops-for-exadata.html (Oracle white paper: "
    "HP disks ~300 small IOPS, 4 TB HC ~120-190)";
constexpr const char* kIb =
    "[S] https://docs.oracle.com/cd/E21659_01/html/E21660/z40006df1295603.html (one dual-port "
    "QDR InfiniBand HCA per cell, 40 Gb/s per link)";
constexpr const char* kX4Flash =
    "[S] http://flaviosoares.com/tag/exadata/ (X4-2 full rack > 1,960,000 8 KiB flash write IOPS, "
    "~140 k per cell)";
constexpr const char* kX9Flash =
    "[S] https://docs.oracle.com/cd/F56555_01/ecsid/exadbd_storage.html (X9M: 25.6 TB raw NVMe "
    "flash per storage server = 4 x 6.4 TB)";
constexpr const char* kFw =
    "[I] f_w = 0.5 x data-sheet disk bandwidth / disks (fidelity.md 5.2; agrees within 25 % "
    "with the white paper's 300 IOPS x 3-small-per-large)";
constexpr const char* kRf =
    "[I] calibrated: Oracle's 90 s for 1 TB FDFC on a full rack, HIGH: 3 x 262,144 / (14 x 90 s) "
    "= 624 per cell = 156 per card (fidelity.md 5.2); no source gives it";
constexpr const char* kRfEf =
    "[I] EOE2 ch. 5: X5-2 EF created 20 GB in 0.89 s, ~3,800-5,700 AU-copies/s per cell "
    "(fidelity.md 4.3) / 8 drives; reused for later generations (no source)";
constexpr const char* kRpc = "[I] RDS over InfiniBand round trip ~0.2 ms (fidelity.md 5.2, not sourced)";
constexpr const char* kRoce = "[I] ~20 us RoCE/RDMA round trip (Oracle X8M marketing order of magnitude, not sourced here)";
constexpr const char* kT0 =
    "[A] seed tkprof: 5.09 s elapsed - 4.64 s of cell smart file creation waits (fidelity.md 5.2)";
constexpr const char* kZf =
    "[I] calibrated: cellsim stripes coarsely (one 4 MiB AU per disk), so what sets zero-fill "
    "speed is how many disks the in-flight writes cover; 3 AU-sized batches of 4 x 1 MiB "
    "reproduce Nash's ~37 s (Oracle keeps 4 x 1 MiB buffers: _db_file_format_io_buffers, "
    "fidelity.md 0.4, which at 16.7 ms each also gives ~35 s)";
constexpr const char* kDs = "[S-unverified] Oracle data sheet of the generation, quoted from memory (no internet here to re-check)";
constexpr const char* kGuess = "[I] no source: assumed equal to the previous generation";

Figure S(double v, const char* src) { return Figure{v, src}; }

struct Row {
  const char* name;
  const char* description;
  double disks, disk_bw_cell_gb_s;  // data-sheet per-cell disk bandwidth
  const char* disk_src;
  double disk_iops;
  const char* iops_src;
  double cards, flash_w_iops_cell, flash_r_iops_cell, flash_gb_s_cell;
  const char* flash_src;
  double fdfc_cell;
  const char* fdfc_src;
  double net_gbit;
  const char* net_src;
  double rpc_us;
  const char* rpc_src;
};

// Per-cell figures; every one has its source string.
const Row kRows[] = {
    {"x2-2-hp", "Exadata X2-2, high performance (12 x 600 GB 15K), 4 x 96 GB F20 flash", 12, 1.8,
     kDs, 300, kWhitePaper, 4, 75000, 107000, 3.6, kDs, 624, kRf, 40, kIb, 200, kRpc},
    {"x2-2-hc", "Exadata X2-2, high capacity (12 x 2 TB), 4 x 96 GB F20 flash", 12, 1.0, kDs,
     150, kWhitePaper, 4, 75000, 107000, 3.6, kDs, 624, kRf, 40, kIb, 200, kRpc},
    {"x3-2-hp", "Exadata X3-2, high performance (12 x 600 GB 15K), 4 x 400 GB F40 flash", 12,
     1.8, kX3Slide, 300, kWhitePaper, 4, 75000, 107000, 7.25, kX3Slide, 624, kRf, 40, kIb, 200,
     kRpc},
    {"x3-2-hc", "Exadata X3-2, high capacity (12 x 3 TB), 4 x 400 GB F40 flash", 12, 1.3,
     kX3Slide, 167, kX3Slide, 4, 75000, 107000, 6.75, kX3Slide, 624, kRf, 40, kIb, 200, kRpc},
    {"x4-2-hp", "Exadata X4-2, high performance (12 x 1.2 TB 10K), 4 x 800 GB F80 flash", 12,
     1.8, kDs, 300, kWhitePaper, 4, 140000, 190000, 7.1, kX4Flash, 624, kRf, 40, kIb, 200, kRpc},
    {"x4-2-hc", "Exadata X4-2, high capacity (12 x 4 TB), 4 x 800 GB F80 flash", 12, 1.43, kDs,
     190, kWhitePaper, 4, 140000, 190000, 7.1, kX4Flash, 624, kRf, 40, kIb, 200, kRpc},
    {"x5-2-hc", "Exadata X5-2, high capacity (12 x 4 TB), 4 x 1.6 TB F160 NVMe flash", 12, 1.43,
     kDs, 190, kWhitePaper, 4, 190000, 300000, 8.6, kDs, 624, kGuess, 40, kIb, 200, kRpc},
    {"x5-2-ef", "Exadata X5-2, extreme flash (8 x 1.6 TB NVMe drives, no HDD)", 0, 0, kDs, 0,
     kDs, 8, 190000, 300000, 12.5, kDs, 4700, kRfEf, 40, kIb, 200, kRpc},
    {"x7-2-hc", "Exadata X7-2, high capacity (12 x 10 TB), 4 x 6.4 TB F640 NVMe flash", 12, 1.8,
     kDs, 190, kGuess, 4, 250000, 400000, 25, kDs, 624, kGuess, 40, kIb, 200, kRpc},
    {"x7-2-ef", "Exadata X7-2, extreme flash (8 x 6.4 TB NVMe drives)", 0, 0, kDs, 0, kDs, 8,
     250000, 400000, 25, kDs, 4700, kRfEf, 40, kIb, 200, kRpc},
    {"x8m-2-hc", "Exadata X8M-2, high capacity (12 x 14 TB), 4 x 6.4 TB NVMe flash, PMEM, RoCE",
     12, 1.8, kDs, 190, kGuess, 4, 250000, 400000, 25, kDs, 624, kGuess, 100, kDs, 20, kRoce},
    {"x8m-2-ef", "Exadata X8M-2, extreme flash (8 x 6.4 TB NVMe), PMEM, RoCE", 0, 0, kDs, 0, kDs,
     8, 250000, 400000, 25, kDs, 4700, kRfEf, 100, kDs, 20, kRoce},
    {"x9m-2-hc", "Exadata X9M-2, high capacity (12 x 18 TB), 4 x 6.4 TB NVMe flash, PMEM, RoCE",
     12, 1.8, kDs, 190, kGuess, 4, 250000, 400000, 25, kX9Flash, 624, kGuess, 100, kDs, 20,
     kRoce},
    {"x9m-2-ef", "Exadata X9M-2, extreme flash (8 x 6.4 TB NVMe), PMEM, RoCE", 0, 0, kDs, 0, kDs,
     8, 250000, 400000, 25, kDs, 4700, kRfEf, 100, kDs, 20, kRoce},
    {"x10m-hc", "Exadata X10M, high capacity (12 x 22 TB), 4 x 6.8 TB NVMe flash, XRMEM, RoCE",
     12, 1.8, kDs, 190, kGuess, 4, 250000, 400000, 25, kDs, 624, kGuess, 100, kDs, 20, kRoce},
    {"x10m-ef", "Exadata X10M, extreme flash (4 x 30.72 TB NVMe), XRMEM, RoCE", 0, 0, kDs, 0,
     kDs, 4, 250000, 400000, 25, kDs, 4700, kRfEf, 100, kDs, 20, kRoce},
};

DeviceProfile FromRow(const Row& r) {
  DeviceProfile p;
  p.name = r.name;
  p.description = r.description;
  p.disks_per_cell = S(r.disks, r.disks > 0 ? kNanda : kDs);
  const double per_disk = r.disks > 0 ? r.disk_bw_cell_gb_s * 1000.0 / r.disks : 0;
  p.disk_write_mb_s = S(0.5 * per_disk, kFw);
  p.disk_read_mb_s = S(per_disk, r.disk_src);
  p.disk_iops = S(r.disk_iops, r.iops_src);
  p.flash_cards_per_cell = S(r.cards, r.disks > 0 ? kNanda : kDs);
  p.flash_write_iops = S(r.flash_w_iops_cell / r.cards, r.flash_src);
  p.flash_read_iops = S(r.flash_r_iops_cell / r.cards, r.flash_src);
  p.flash_mb_s = S(r.flash_gb_s_cell * 1000.0 / r.cards, r.flash_src);
  p.fdfc_requests_per_s = S(r.fdfc_cell / r.cards, r.fdfc_src);
  p.network_gbit_s = S(r.net_gbit, r.net_src);
  p.rpc_us = S(r.rpc_us, r.rpc_src);
  p.statement_ms = S(450, kT0);
  p.zero_fill_request_kib = S(1024, "[S] _db_file_direct_io_count = 1 MiB (fidelity.md 0.4)");
  p.zero_fill_requests_per_batch = S(4, "[S] _db_file_format_io_buffers = 4 (fidelity.md 0.4)");
  p.zero_fill_batches_in_flight = S(3, kZf);
  p.cells_per_rack = {{"eighth", 3}, {"quarter", 3}, {"half", 7}, {"full", 14}};
  return p;
}

std::vector<std::pair<const char*, Figure DeviceProfile::*>> Fields() {
  return {{"disks_per_cell", &DeviceProfile::disks_per_cell},
          {"disk_write_mb_s", &DeviceProfile::disk_write_mb_s},
          {"disk_read_mb_s", &DeviceProfile::disk_read_mb_s},
          {"disk_iops", &DeviceProfile::disk_iops},
          {"flash_cards_per_cell", &DeviceProfile::flash_cards_per_cell},
          {"flash_write_iops", &DeviceProfile::flash_write_iops},
          {"flash_read_iops", &DeviceProfile::flash_read_iops},
          {"flash_mb_s", &DeviceProfile::flash_mb_s},
          {"fdfc_requests_per_s", &DeviceProfile::fdfc_requests_per_s},
          {"network_gbit_s", &DeviceProfile::network_gbit_s},
          {"rpc_us", &DeviceProfile::rpc_us},
          {"statement_ms", &DeviceProfile::statement_ms},
          {"zero_fill_request_kib", &DeviceProfile::zero_fill_request_kib},
          {"zero_fill_requests_per_batch", &DeviceProfile::zero_fill_requests_per_batch},
          {"zero_fill_batches_in_flight", &DeviceProfile::zero_fill_batches_in_flight}};
}

}  // namespace

const std::vector<DeviceProfile>& BuiltinProfiles() {
  static const std::vector<DeviceProfile>* all = [] {
    auto* v = new std::vector<DeviceProfile>();
    for (const Row& r : kRows) v->push_back(FromRow(r));
    return v;
  }();
  return *all;
}

std::string ProfileToJson(const DeviceProfile& p) {
  nlohmann::ordered_json j;
  j["name"] = p.name;
  j["description"] = p.description;
  for (const auto& [key, member] : Fields()) {
    j[key] = {{"value", (p.*member).value}, {"source", (p.*member).source}};
  }
  j["cells_per_rack"] = p.cells_per_rack;
  return j.dump(2);
}

absl::StatusOr<DeviceProfile> ProfileFromJson(const std::string& text, const std::string& origin) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return absl::InvalidArgumentError(fmt::format("profile {}: not a JSON object", origin));
  }
  DeviceProfile p;
  if (!j.contains("name") || !j["name"].is_string()) {
    return absl::InvalidArgumentError(fmt::format("profile {}: \"name\" (a string) is missing", origin));
  }
  p.name = j["name"].get<std::string>();
  if (j.contains("description") && j["description"].is_string()) p.description = j["description"];
  for (const auto& [key, member] : Fields()) {
    if (!j.contains(key)) {
      return absl::InvalidArgumentError(fmt::format("profile {}: field \"{}\" is missing", origin, key));
    }
    const nlohmann::json& f = j[key];
    const nlohmann::json* v = f.is_object() && f.contains("value") ? &f["value"] : &f;
    if (!v->is_number() || v->get<double>() < 0) {
      return absl::InvalidArgumentError(fmt::format(
          "profile {}: field \"{}\" must be a number >= 0 (or {{\"value\": N, \"source\": "
          "\"...\"}}), found {}", origin, key, v->dump()));
    }
    p.*member = Figure{v->get<double>(),
                       f.is_object() && f.contains("source") && f["source"].is_string()
                           ? f["source"].get<std::string>()
                           : "user profile " + origin};
  }
  if (p.flash_cards_per_cell.value < 1) {
    return absl::InvalidArgumentError(fmt::format("profile {}: flash_cards_per_cell must be >= 1", origin));
  }
  if (p.disks_per_cell.value >= 1 && p.disk_write_mb_s.value <= 0) {
    return absl::InvalidArgumentError(fmt::format(
        "profile {}: disk_write_mb_s must be > 0 when there are disks", origin));
  }
  if (p.fdfc_requests_per_s.value <= 0 || p.flash_write_iops.value <= 0 || p.flash_mb_s.value <= 0 ||
      p.network_gbit_s.value <= 0) {
    return absl::InvalidArgumentError(fmt::format(
        "profile {}: fdfc_requests_per_s, flash_write_iops, flash_mb_s and network_gbit_s must "
        "be > 0", origin));
  }
  p.cells_per_rack = {{"eighth", 3}, {"quarter", 3}, {"half", 7}, {"full", 14}};
  if (j.contains("cells_per_rack") && j["cells_per_rack"].is_object()) {
    for (const auto& [k, v] : j["cells_per_rack"].items()) {
      if (!v.is_number_unsigned() || v.get<uint32_t>() == 0 || v.get<uint32_t>() > 99) {
        return absl::InvalidArgumentError(
            fmt::format("profile {}: cells_per_rack.{} must be 1..99", origin, k));
      }
      p.cells_per_rack[k] = v.get<uint32_t>();
    }
  }
  return p;
}

absl::StatusOr<DeviceProfile> LoadProfile(const std::string& name_or_path) {
  std::string names;
  for (const DeviceProfile& p : BuiltinProfiles()) {
    if (p.name == name_or_path) return p;
    names += (names.empty() ? "" : ", ") + p.name;
  }
  for (const DeviceProfile& p : BuiltinProfiles()) {  // bare generation: first kind
    if (p.name.rfind(name_or_path + "-", 0) == 0) return p;
  }
  if (name_or_path.find('/') != std::string::npos ||
      name_or_path.find(".json") != std::string::npos) {
    std::ifstream in(name_or_path);
    if (!in) {
      return absl::NotFoundError(fmt::format("profile file {} cannot be read", name_or_path));
    }
    std::stringstream ss;
    ss << in.rdbuf();
    return ProfileFromJson(ss.str(), name_or_path);
  }
  return absl::NotFoundError(fmt::format(
      "no profile '{}': use a generation (x2-2, x3-2, x4-2, x5-2, x7-2, x8m-2, x9m-2, x10m), one "
      "of {}, or a path to a JSON profile (cellsim probe --profile writes one)",
      name_or_path, names));
}

absl::StatusOr<RackShape> ShapeFor(const DeviceProfile& p, const std::string& rack) {
  auto it = p.cells_per_rack.find(rack);
  if (it == p.cells_per_rack.end()) {
    return absl::InvalidArgumentError(
        fmt::format("--rack {}: use eighth, quarter, half or full", rack));
  }
  RackShape s;
  s.rack = rack;
  s.cells = it->second;
  s.disks_per_cell = static_cast<uint32_t>(p.disks_per_cell.value);
  s.flash_cards_per_cell = static_cast<uint32_t>(p.flash_cards_per_cell.value);
  if (s.disks_per_cell == 0) s.disks_per_cell = s.flash_cards_per_cell;  // EF: cell disks are flash
  if (rack == "eighth") {  // half the disks and flash enabled (fidelity.md 5.1)
    s.disks_per_cell = std::max<uint32_t>(s.disks_per_cell / 2, s.disks_per_cell > 0 ? 1 : 0);
    s.flash_cards_per_cell = std::max<uint32_t>(s.flash_cards_per_cell / 2, 1);
  }
  return s;
}

std::string ProfilesMarkdown() {
  std::string out;
  for (const DeviceProfile& p : BuiltinProfiles()) {
    out += fmt::format("### {}\n\n{}\n\n| figure | value | source |\n| --- | ---: | --- |\n",
                       p.name, p.description);
    for (const auto& [key, member] : Fields()) {
      out += fmt::format("| {} | {:g} | {} |\n", key, (p.*member).value, (p.*member).source);
    }
    out += "\n";
  }
  return out;
}

}  // namespace cellsim::sim
