#include "cellsim/cli/write_workload.h"

#include <algorithm>
#include <cstring>

#include "fmt/format.h"

namespace cellsim::cli {
namespace {

constexpr uint32_t kSector = 512;
constexpr uint32_t kTagMagic = 0x52575343;  // "CSWR" little-endian

// SplitMix64: a tiny, well-mixed generator; one stream per (seed, index).
uint64_t Mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

void PutLe(uint8_t* p, uint64_t v, int n) {
  for (int i = 0; i < n; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

uint64_t GetLe(const uint8_t* p, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
  return v;
}

}  // namespace

absl::Status WriteWorkloadSpec::Validate() const {
  if (block_size == 0 || block_size % kSector != 0) {
    return absl::InvalidArgumentError(
        fmt::format("block size {} is not a positive multiple of 512", block_size));
  }
  if (max_blocks == 0) return absl::InvalidArgumentError("max blocks per write must be at least 1");
  if (batch == 0) return absl::InvalidArgumentError("batch must be at least 1");
  const uint64_t blocks = file_size / block_size;
  if (blocks < batch) {
    return absl::InvalidArgumentError(fmt::format(
        "the file has {} blocks of {} bytes: too small for batches of {} non-overlapping writes",
        blocks, block_size, batch));
  }
  return absl::OkStatus();
}

WorkloadWrite MakeWorkloadWrite(const WriteWorkloadSpec& spec, uint64_t index) {
  const uint64_t slot_blocks = spec.file_size / spec.block_size / spec.batch;
  const uint64_t slot = index % spec.batch;
  uint64_t r = Mix(spec.seed ^ Mix(index));
  const uint64_t max_len = std::min<uint64_t>(spec.max_blocks, slot_blocks);
  const uint64_t len = 1 + r % max_len;
  r = Mix(r);
  const uint64_t start = slot * slot_blocks + r % (slot_blocks - len + 1);
  WorkloadWrite w;
  w.index = index;
  w.offset = start * spec.block_size;
  w.data.resize(len * spec.block_size);
  for (uint64_t s = 0; s < w.data.size() / kSector; ++s) {
    uint8_t* p = w.data.data() + s * kSector;
    PutLe(p, kTagMagic, 4);
    PutLe(p + 4, s, 4);
    PutLe(p + 8, index, 8);
    for (uint32_t i = 16; i < kSector; i += 8) {
      r = Mix(r);
      PutLe(p + i, r, 8);
    }
  }
  return w;
}

std::optional<uint64_t> WorkloadWriteOfSector(absl::Span<const uint8_t> sector) {
  if (sector.size() < 16 || GetLe(sector.data(), 4) != kTagMagic) return std::nullopt;
  return GetLe(sector.data() + 8, 8);
}

}  // namespace cellsim::cli
