// The rack configuration file (DIR/rack.meta0, rack.meta1): encode and decode
// of one copy. Version 2: every change writes the same state to both copies
// (io/metadata_copies.h); Rack::Open keeps the valid one with the higher
// sequence and repairs the other. Version 1 (read, rewritten as 2 at the next
// change) wrote the slots in turn. The decoder is exposed here (private to cellsim/asm, plus the
// fuzz targets and hostile-input tests) so that it can be exercised without a
// rack directory.
//
// Layout: magic u32 "RACK", version u32, seq u64, the RackConfig fields, the
// disk-group names, xxHash64 of everything before it.
#ifndef CELLSIM_ASM_RACK_META_H_
#define CELLSIM_ASM_RACK_META_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "cellsim/asm/rack.h"

namespace cellsim::asmgr::internal {

inline constexpr uint32_t kRackMetaVersion = 2;
inline constexpr uint32_t kRackMetaFirstVersion = 1;  // oldest version read
inline constexpr uint64_t kRackMetaSeed = 0x5241434B4D455441ull;  // xxHash64 seed

struct RackMeta {
  uint32_t version = kRackMetaVersion;  // as found in the file
  uint64_t seq = 0;
  RackConfig config;
  std::vector<std::string> group_names;  // every disk group, in creation order
};

std::vector<uint8_t> EncodeRackMeta(const RackMeta& meta);
// Errors name `path`: DataLoss for a short file, a checksum mismatch, a bad
// magic, malformed fields or a configuration ValidateRackConfig rejects;
// FailedPrecondition "newer format version N, this build reads version M".
[[nodiscard]] absl::StatusOr<RackMeta> DecodeRackMeta(absl::Span<const uint8_t> bytes,
                                                      const std::string& path);

}  // namespace cellsim::asmgr::internal

#endif  // CELLSIM_ASM_RACK_META_H_
