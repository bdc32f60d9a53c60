// The deterministic write workload behind `cellsim write`: write i of a
// workload is a pure function of (seed, i) and the file's size, so a test that
// killed the command can regenerate exactly what each acknowledged write (and
// the one in flight) put where, and check that it reads back.
//
// Shape: writes of 1..max_blocks whole blocks of `block_size` at block-aligned
// offsets. With `batch` > 1 the file is cut into `batch` equal slots and write
// i lands in slot i % batch, so the writes of one batch never overlap (their
// order inside a DiskGroup::Write call does not matter). Each 512-byte sector
// of a write starts with a 16-byte tag (magic "CSWR", sector index inside the
// write, write index) followed by pseudo-random bytes, so a mismatch can name
// the write whose data is there.
//
// Usage:
//   WriteWorkloadSpec spec{.seed = 7, .file_size = info.size_bytes};
//   ASSERT_OK(spec.Validate());
//   WorkloadWrite w = MakeWorkloadWrite(spec, 42);   // w.offset, w.data
//   std::optional<uint64_t> who = WorkloadWriteOfSector(sector_bytes);
//
// Thread-safety: pure functions.
#ifndef CELLSIM_CLI_WRITE_WORKLOAD_H_
#define CELLSIM_CLI_WRITE_WORKLOAD_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"

namespace cellsim::cli {

struct WriteWorkloadSpec {
  uint64_t seed = 1;
  uint64_t file_size = 0;      // bytes of the target file
  uint32_t block_size = 8192;  // write unit and alignment (multiple of 512)
  uint32_t max_blocks = 8;     // blocks per write: 1..max_blocks (default up to 64 KiB)
  uint32_t batch = 1;          // writes per DiskGroup::Write call

  // InvalidArgument naming the field: a block size that is 0 or not a
  // multiple of 512, max_blocks or batch of 0, or a file too small to give
  // each of the `batch` slots one block.
  [[nodiscard]] absl::Status Validate() const;
};

struct WorkloadWrite {
  uint64_t index = 0;
  uint64_t offset = 0;        // byte offset in the file (block-aligned)
  std::vector<uint8_t> data;  // whole blocks
};

// Write `index` of the workload (spec must be valid).
WorkloadWrite MakeWorkloadWrite(const WriteWorkloadSpec& spec, uint64_t index);

// The write index stored in the tag of a 512-byte sector written by the
// workload, or nullopt when the sector does not carry a workload tag.
std::optional<uint64_t> WorkloadWriteOfSector(absl::Span<const uint8_t> sector);

}  // namespace cellsim::cli

#endif  // CELLSIM_CLI_WRITE_WORKLOAD_H_
