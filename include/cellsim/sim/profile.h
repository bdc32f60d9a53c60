// Device profiles: the hardware an Exadata generation gives a rack of each size,
// as the simulated clock's device model needs it (docs/profiles.md lists every
// figure with its source; the same source string travels in the data).
//
// Built-in profiles are named "<generation>-<kind>": x2-2-hp, x2-2-hc,
// x3-2-hp, x3-2-hc, x4-2-hp, x4-2-hc, x5-2-hc, x5-2-ef, x7-2-hc, x7-2-ef,
// x8m-2-hc, x8m-2-ef, x9m-2-hc, x9m-2-ef, x10m-hc, x10m-ef. A bare generation
// ("x3-2") means its first kind (HP where it exists, else HC). A user profile is
// a JSON file with the same fields (write one with `cellsim probe --profile`
// or ProfileToJson, edit it, pass its path where a profile name goes).
//
// Usage:
//   absl::StatusOr<DeviceProfile> p = LoadProfile("x3-2");      // or "my.json"
//   absl::StatusOr<RackShape> shape = ShapeFor(*p, "quarter");  // 3 cells, 12 disks
//
// Thread-safety: plain values.
#ifndef CELLSIM_SIM_PROFILE_H_
#define CELLSIM_SIM_PROFILE_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace cellsim::sim {

// One figure with where it comes from: "[S] URL" (sourced), "[A] ..." (seed
// arithmetic), "[I] ..." (inferred or calibrated, the reason given).
struct Figure {
  double value = 0;
  std::string source;
};

struct DeviceProfile {
  std::string name;         // "x3-2-hp"
  std::string description;  // "Exadata X3-2, high performance 600 GB 15K disks"
  // Per cell (a full-size cell; eighth racks enable half of it).
  Figure disks_per_cell;           // HDDs (0 on extreme flash)
  Figure disk_write_mb_s;          // one HDD's sustained formatting write bandwidth, MB/s
  Figure disk_read_mb_s;           // one HDD's scan bandwidth, MB/s
  Figure disk_iops;                // one HDD's small (8 KiB) I/Os per second
  Figure flash_cards_per_cell;     // flash cards / drives
  Figure flash_write_iops;         // one card's 8 KiB writes per second
  Figure flash_read_iops;          // one card's 8 KiB reads per second
  Figure flash_mb_s;               // one card's bandwidth, MB/s
  Figure fdfc_requests_per_s;      // one card's fast-creation (metadata-only) requests per second
  Figure network_gbit_s;           // one cell's link to the database servers, Gbit/s
  Figure rpc_us;                   // database <-> cell round trip, microseconds
  Figure statement_ms;             // non-I/O time of a creating statement (CPU, ASM, CSS)
  // The database's zero-fill I/O shape under this profile.
  Figure zero_fill_request_kib;    // bytes per write
  Figure zero_fill_requests_per_batch;
  Figure zero_fill_batches_in_flight;
  // Cells per rack size.
  std::map<std::string, uint32_t> cells_per_rack;  // eighth, quarter, half, full
};

// How a rack of one size is built under a profile.
struct RackShape {
  std::string rack;            // "quarter"
  uint32_t cells = 0;
  uint32_t disks_per_cell = 0;  // enabled HDDs (6 in an eighth rack)
  uint32_t flash_cards_per_cell = 0;
};

// Every built-in profile, in generation order.
const std::vector<DeviceProfile>& BuiltinProfiles();
// A built-in name, a bare generation, or a path to a JSON profile. NotFound
// lists the names; a bad file gives InvalidArgument naming the file and field.
[[nodiscard]] absl::StatusOr<DeviceProfile> LoadProfile(const std::string& name_or_path);
// eighth / quarter / half / full. InvalidArgument lists the sizes.
[[nodiscard]] absl::StatusOr<RackShape> ShapeFor(const DeviceProfile& p, const std::string& rack);

std::string ProfileToJson(const DeviceProfile& p);
[[nodiscard]] absl::StatusOr<DeviceProfile> ProfileFromJson(const std::string& text,
                                                           const std::string& origin);
// A Markdown table of every figure of every built-in profile with its source.
std::string ProfilesMarkdown();

}  // namespace cellsim::sim

#endif  // CELLSIM_SIM_PROFILE_H_
