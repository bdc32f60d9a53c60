#include "cellsim/format/block_template.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <vector>

namespace cellsim::format {
namespace {

inline void PutLe16(uint8_t* p, uint16_t v) {
  p[0] = static_cast<uint8_t>(v);
  p[1] = static_cast<uint8_t>(v >> 8);
}
inline void PutLe32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

bool IsPowerOfTwo(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

// XOR of the 16-bit LE words of `b`, skipping the word at `skip` (byte offset).
uint16_t XorWords(absl::Span<const uint8_t> b, size_t skip) {
  uint64_t acc = 0;
  size_t i = 0;
  // 8 bytes at a time: XOR of words is lane-wise, folded at the end.
  for (; i + 8 <= b.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, b.data() + i, 8);
    acc ^= w;
  }
  uint16_t r = static_cast<uint16_t>(acc ^ (acc >> 16) ^ (acc >> 32) ^ (acc >> 48));
  for (; i + 2 <= b.size(); i += 2) r ^= static_cast<uint16_t>(b[i] | (b[i + 1] << 8));
  // Remove the skipped word's contribution.
  if (skip + 2 <= b.size()) r ^= static_cast<uint16_t>(b[skip] | (b[skip + 1] << 8));
  return r;
}

// Block 0 of data and redo files: the OS header.
void PatchOsHeader(const BlockTemplate& t, uint8_t* p) {
  p[0] = kOsHeaderType;
  p[1] = t.kind == BlockKind::kRedo ? kRedoFormat : kDataBlockFormat;
  PutLe32(p + 4, kOsHeaderRdba);
  PutLe32(p + 20, t.block_size);
  PutLe32(p + 24, static_cast<uint32_t>(t.file_blocks - 1));
  PutLe32(p + 28, kOsHeaderMagic);
}

// Patches the non-zero bytes of block `index` (>= 1, < file_blocks) into `p`,
// which holds block_size zero bytes. The checksum is computed from the few
// non-zero words, since everything else is zero.
void PatchFormattedBlock(const BlockTemplate& t, uint64_t index, uint8_t* p) {
  const uint32_t bs = t.block_size;
  if (t.kind == BlockKind::kData) {
    const uint32_t rdba = Rdba(t.file_number, static_cast<uint32_t>(index));
    const uint16_t w0 = kDataBlockTypeNew | (kDataBlockFormat << 8);
    const uint16_t w7 = kDataBlockSeqNew | (kDataBlockFlagsNew << 8);
    const uint16_t tail = kDataBlockTypeNew | (kDataBlockSeqNew << 8);
    const uint16_t sum = static_cast<uint16_t>(w0 ^ (rdba & 0xFFFF) ^ (rdba >> 16) ^ w7 ^ tail);
    PutLe16(p, w0);
    PutLe32(p + 4, rdba);
    PutLe16(p + 14, w7);
    PutLe16(p + 16, sum);
    // Tail: low 16 bits of SCN base (0), type, sequence.
    PutLe16(p + bs - 2, tail);
  } else {  // kRedo
    const uint32_t block = static_cast<uint32_t>(index);
    const uint16_t w0 = kRedoSignature | (kRedoFormat << 8);
    const uint16_t sum = static_cast<uint16_t>(w0 ^ (block & 0xFFFF) ^ (block >> 16));
    PutLe16(p, w0);
    PutLe32(p + 4, block);
    // sequence# (8..11) = 0 and first-record offset (12..13) = 0: no redo yet.
    PutLe16(p + 14, sum);
  }
}

void PatchBlock(const BlockTemplate& t, uint64_t index, uint8_t* p) {
  if (t.kind == BlockKind::kZero || index >= t.file_blocks) return;
  if (index == 0) {
    PatchOsHeader(t, p);
  } else {
    PatchFormattedBlock(t, index, p);
  }
}

std::string_view FieldAt(const BlockTemplate& t, uint64_t index, size_t off) {
  if (t.kind == BlockKind::kZero || index >= t.file_blocks) return "zero fill";
  if (index == 0) {
    if (off < 2) return "OS header type/format";
    if (off >= 4 && off < 8) return "OS header rdba";
    if (off >= 20 && off < 24) return "OS header block size";
    if (off >= 24 && off < 28) return "OS header block count";
    if (off >= 28 && off < 32) return "OS header magic";
    return "OS header zero area";
  }
  if (t.kind == BlockKind::kData) {
    if (off == 0) return "type";
    if (off == 1) return "format";
    if (off >= 4 && off < 8) return "rdba";
    if (off >= 8 && off < 14) return "SCN";
    if (off == 14) return "sequence";
    if (off == 15) return "flags";
    if (off == 16 || off == 17) return "checksum";
    if (off + 4 >= t.block_size) return "tail";
    return "block body";
  }
  if (off < 2) return "signature/format";
  if (off >= 4 && off < 8) return "block#";
  if (off >= 8 && off < 12) return "sequence#";
  if (off >= 12 && off < 14) return "first-record offset";
  if (off >= 14 && off < 16) return "checksum";
  return "block body";
}

}  // namespace

std::string_view BlockKindName(BlockKind kind) {
  switch (kind) {
    case BlockKind::kZero:
      return "zero";
    case BlockKind::kData:
      return "data";
    case BlockKind::kRedo:
      return "redo";
  }
  return "unknown";
}

absl::Status BlockTemplate::Validate() const {
  switch (kind) {
    case BlockKind::kZero:
      if (!IsPowerOfTwo(block_size) || block_size < 512) {
        return absl::InvalidArgumentError(fmt::format(
            "block template: block size {} of a zero template must be a power of two >= 512",
            block_size));
      }
      return absl::OkStatus();
    case BlockKind::kData:
      if (!IsPowerOfTwo(block_size) || block_size < 2048 || block_size > 32768) {
        return absl::InvalidArgumentError(fmt::format(
            "block template: data block size {} is not one of 2048, 4096, 8192, 16384, 32768",
            block_size));
      }
      if (file_number > 1023) {
        return absl::InvalidArgumentError(fmt::format(
            "block template: relative file number {} exceeds 1023 (10-bit rdba field)",
            file_number));
      }
      if (file_blocks > (uint64_t{1} << 22)) {
        return absl::InvalidArgumentError(fmt::format(
            "block template: {} blocks exceed the 2^22 blocks a data file can address",
            file_blocks));
      }
      return absl::OkStatus();
    case BlockKind::kRedo:
      if (block_size != 512 && block_size != 4096) {
        return absl::InvalidArgumentError(fmt::format(
            "block template: redo block size {} is neither 512 nor 4096", block_size));
      }
      if (file_blocks > (uint64_t{1} << 32)) {
        return absl::InvalidArgumentError(fmt::format(
            "block template: {} redo blocks exceed the 32-bit block# field", file_blocks));
      }
      return absl::OkStatus();
  }
  return absl::InvalidArgumentError(
      fmt::format("block template: unknown block kind {}", static_cast<int>(kind)));
}

std::string BlockTemplate::DebugString() const {
  return fmt::format("{}(bs={}, file#={}, blocks={})", BlockKindName(kind), block_size,
                     file_number, file_blocks);
}

void BlockTemplate::EncodeTo(Encoder* e) const { EncodeTo(e->Extend(kEncodedSize)); }

uint8_t* BlockTemplate::EncodeTo(uint8_t* out) const {
  uint8_t* p = StoreLe(out, static_cast<uint8_t>(kind), 1);
  p = StoreLe(p, 0, 3);
  p = StoreLe(p, block_size, 4);
  p = StoreLe(p, file_number, 4);
  return StoreLe(p, file_blocks, 8);
}

bool BlockTemplate::DecodeFrom(Decoder* d, BlockTemplate* out) {
  if (d->remaining() < kEncodedSize) return false;
  uint8_t kind, r8;
  uint16_t r16;
  BlockTemplate t;
  if (!d->GetU8(&kind) || !d->GetU8(&r8) || !d->GetU16(&r16) || !d->GetU32(&t.block_size) ||
      !d->GetU32(&t.file_number) || !d->GetU64(&t.file_blocks)) {
    return false;
  }
  if (kind > static_cast<uint8_t>(BlockKind::kRedo) || r8 != 0 || r16 != 0) return false;
  t.kind = static_cast<BlockKind>(kind);
  if (!t.Validate().ok()) return false;
  *out = t;
  return true;
}

void GenerateBlock(const BlockTemplate& t, uint64_t block_index, absl::Span<uint8_t> out) {
  std::memset(out.data(), 0, out.size());
  if (out.size() != t.block_size) return;
  PatchBlock(t, block_index, out.data());
}

void GenerateRange(const BlockTemplate& t, uint64_t byte_offset, absl::Span<uint8_t> out) {
  std::memset(out.data(), 0, out.size());
  if (out.empty() || t.kind == BlockKind::kZero || t.file_blocks == 0) return;
  const uint64_t bs = t.block_size;
  const uint64_t end = byte_offset + out.size();
  const uint64_t first = byte_offset / bs;
  const uint64_t last = std::min((end - 1) / bs, t.file_blocks - 1);
  std::vector<uint8_t> edge;  // only for blocks cut by the range's ends
  for (uint64_t b = first; b <= last && first < t.file_blocks; ++b) {
    const uint64_t bstart = b * bs;
    if (bstart >= byte_offset && bstart + bs <= end) {
      PatchBlock(t, b, out.data() + (bstart - byte_offset));
      continue;
    }
    edge.assign(bs, 0);
    PatchBlock(t, b, edge.data());
    const uint64_t from = std::max(bstart, byte_offset);
    const uint64_t to = std::min(bstart + bs, end);
    std::memcpy(out.data() + (from - byte_offset), edge.data() + (from - bstart), to - from);
  }
}

uint16_t DataBlockChecksum(absl::Span<const uint8_t> block) { return XorWords(block, 16); }
uint16_t RedoBlockChecksum(absl::Span<const uint8_t> block) { return XorWords(block, 14); }

absl::Status VerifyBlock(const BlockTemplate& t, uint64_t block_index,
                         absl::Span<const uint8_t> block) {
  if (block.size() != t.block_size) {
    return absl::InvalidArgumentError(fmt::format(
        "verify block {} of {}: buffer holds {} bytes, block size is {}", block_index,
        t.DebugString(), block.size(), t.block_size));
  }
  std::vector<uint8_t> want(t.block_size);
  GenerateBlock(t, block_index, absl::MakeSpan(want));
  for (size_t i = 0; i < want.size(); ++i) {
    if (want[i] != block[i]) {
      return absl::DataLossError(fmt::format(
          "block {} of {}: byte {} ({}) is 0x{:02x}, expected 0x{:02x}", block_index,
          t.DebugString(), i, FieldAt(t, block_index, i), block[i], want[i]));
    }
  }
  return absl::OkStatus();
}

}  // namespace cellsim::format
