// Oracle block formats and the template that describes a freshly formatted
// range of them (domain.md §6; the exact byte layout is in docs/cell.md).
//
// A BlockTemplate is what fast data file creation stores instead of data: a few
// dozen bytes from which every block of a range can be generated on demand. The
// database's zero-fill path and the cells' smart/fast paths all generate blocks
// with GenerateRange(), so a block produced by any path is byte-identical to the
// same block produced by another: the project's core correctness property.
//
// Generation patches the few non-zero header/tail bytes of each block into a
// zeroed buffer (memset + a handful of stores per block), so it runs at memory
// bandwidth: it is the zero-fill path's block builder and the fast path's read
// generator.
//
// Usage:
//   BlockTemplate t{.kind = BlockKind::kData, .block_size = 8192,
//                   .file_number = 7, .file_blocks = 131072};
//   std::vector<uint8_t> buf(64 * 8192);
//   GenerateRange(t, /*byte_offset_in_file=*/0, absl::MakeSpan(buf));
//
// Thread-safety: pure functions.
#ifndef CELLSIM_FORMAT_BLOCK_TEMPLATE_H_
#define CELLSIM_FORMAT_BLOCK_TEMPLATE_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "cellsim/base/checksum.h"

namespace cellsim::format {

enum class BlockKind : uint8_t {
  kZero = 0,  // all zero bytes (plain space, no Oracle format, no OS header)
  kData = 1,  // Oracle data block: 20-byte cache header, 4-byte tail
  kRedo = 2,  // redo log block: 16-byte header
};

std::string_view BlockKindName(BlockKind kind);  // "zero", "data", "redo"

// Data block cache header (bytes 0..19) field values of a new block.
inline constexpr uint8_t kDataBlockFormat = 0xA2;
inline constexpr uint8_t kDataBlockTypeNew = 0x06;   // type of a formatted, unused block
inline constexpr uint8_t kDataBlockFlagsNew = 0x05;  // 0x01 new | 0x04 checksum present
inline constexpr uint8_t kDataBlockSeqNew = 0x01;
inline constexpr uint8_t kOsHeaderType = 0x00;
inline constexpr uint32_t kOsHeaderMagic = 0x7A7B7C7D;
inline constexpr uint32_t kOsHeaderRdba = 0xFFC00000;  // rdba field of block 0
inline constexpr uint8_t kRedoSignature = 0x01;
inline constexpr uint8_t kRedoFormat = 0x22;  // byte 1 of redo blocks and their OS header

// Describes every block of one file. Block i of the file lives at byte
// i * block_size of the file. Block 0 is the OS header (block size, block count,
// magic); blocks 1..file_blocks-1 are formatted blocks of `kind` carrying their
// own address. Bytes at or past file_blocks * block_size generate as zeros.
struct BlockTemplate {
  BlockKind kind = BlockKind::kZero;
  uint32_t block_size = 8192;   // data: 2048..32768 (power of 2); redo: 512 or 4096
  uint32_t file_number = 0;     // relative file number (data) / log group# (redo)
  uint64_t file_blocks = 0;     // number of blocks in the file incl. block 0

  bool operator==(const BlockTemplate&) const = default;

  // InvalidArgument when block_size is not allowed for the kind, or
  // file_number exceeds 1023 for data blocks (10-bit rdba field), or
  // file_blocks exceeds 2^22 for data blocks (22-bit block field).
  [[nodiscard]] absl::Status Validate() const;

  // "data(bs=8192, file#=7, blocks=131072)": for error messages.
  std::string DebugString() const;

  // Persistent form (fixed 20 bytes): used inside cell metadata records.
  // Layout: kind u8, 3 zero bytes, block_size u32, file_number u32,
  // file_blocks u64 (little-endian).
  static constexpr size_t kEncodedSize = 20;
  void EncodeTo(Encoder* e) const;
  // The same kEncodedSize bytes written at `out`; returns out + kEncodedSize.
  uint8_t* EncodeTo(uint8_t* out) const;
  // False on truncated input, an unknown kind, non-zero reserved bytes or a
  // template that fails Validate() (consumes kEncodedSize bytes when it can).
  [[nodiscard]] static bool DecodeFrom(Decoder* d, BlockTemplate* out);
};

// rdba = (file# << 22) | block#.
constexpr uint32_t Rdba(uint32_t file_number, uint32_t block) {
  return (file_number << 22) | (block & 0x3FFFFFu);
}

// Writes block `block_index` of the file described by `t` into `out`
// (out.size() == t.block_size).
void GenerateBlock(const BlockTemplate& t, uint64_t block_index, absl::Span<uint8_t> out);

// Fills `out` with the bytes of the file at [byte_offset, byte_offset+out.size()).
// The range need not be block-aligned.
void GenerateRange(const BlockTemplate& t, uint64_t byte_offset, absl::Span<uint8_t> out);

// Oracle's block checksum: XOR of all 16-bit little-endian words with the
// checksum field (bytes 16..17) taken as zero. Storing it there makes the whole
// block XOR to zero. Requires an even block size.
uint16_t DataBlockChecksum(absl::Span<const uint8_t> block);
// The same for redo blocks, whose checksum field is bytes 14..15.
uint16_t RedoBlockChecksum(absl::Span<const uint8_t> block);

// OK when `block` is exactly block `block_index` of `t`; otherwise DataLoss
// naming the first differing byte, the header field it belongs to, and both
// values (used by scrub and by tests to diagnose a mismatch).
[[nodiscard]] absl::Status VerifyBlock(const BlockTemplate& t, uint64_t block_index,
                                       absl::Span<const uint8_t> block);

}  // namespace cellsim::format

#endif  // CELLSIM_FORMAT_BLOCK_TEMPLATE_H_
