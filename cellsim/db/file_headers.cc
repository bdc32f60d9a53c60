#include "cellsim/db/file_headers.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "cellsim/format/block_template.h"

namespace cellsim::db::internal {
namespace {

constexpr uint32_t kSoftwareVersion = 0x0C100000;  // 12.1.0.0.0, as kcvfh shows it

class Writer {
 public:
  Writer(uint8_t* p, size_t end) : p_(p), end_(end) {}
  void U8(size_t at, uint8_t v) { Put(at, v, 1); }
  void U16(size_t at, uint16_t v) { Put(at, v, 2); }
  void U32(size_t at, uint32_t v) { Put(at, v, 4); }
  void U64(size_t at, uint64_t v) { Put(at, v, 8); }
  // A blank-padded fixed-width text field, as Oracle stores names.
  void Text(size_t at, const std::string& s, size_t width) {
    if (at + width > end_) return;
    std::memset(p_ + at, ' ', width);
    std::memcpy(p_ + at, s.data(), std::min(width, s.size()));
  }

 private:
  void Put(size_t at, uint64_t v, int n) {
    if (at + n > end_) return;
    for (int i = 0; i < n; ++i) p_[at + i] = static_cast<uint8_t>(v >> (8 * i));
  }
  uint8_t* p_;
  size_t end_;
};

}  // namespace

void BuildDataFileHeader(const DataFileHeaderInfo& info, absl::Span<uint8_t> out) {
  std::memset(out.data(), 0, out.size());
  const size_t bs = out.size();
  Writer w(out.data(), bs);
  // Cache header (domain.md §6): type 0x0B, format 0xA2, rdba of block 1,
  // SCN = the creation change, sequence 1, flags 0x04 (checksum present).
  const uint32_t scn = static_cast<uint32_t>(info.creation_change);
  w.U8(0, kDataFileHeaderType);
  w.U8(1, format::kDataBlockFormat);
  w.U32(4, format::Rdba(info.file_number, 1));
  w.U32(8, scn);
  w.U16(12, static_cast<uint16_t>(info.creation_change >> 32));
  w.U8(14, 1);
  w.U8(15, 0x04);
  // File header body (cellsim's kcvfh): identity of the database and file.
  w.U32(20, kSoftwareVersion);
  w.U32(24, kSoftwareVersion);
  w.U32(28, info.dbid);
  w.Text(32, info.db_name, 8);
  w.U32(44, static_cast<uint32_t>(info.file_blocks - 1));
  w.U32(48, info.block_size);
  w.U16(52, info.file_number);
  w.U16(54, 3);  // file type: data file
  w.U32(56, info.tablespace);
  w.Text(60, info.tablespace_name, 30);
  w.U64(96, info.creation_change);
  w.U64(104, static_cast<uint64_t>(info.created_unix));
  // Tail: low 16 bits of SCN base, type, sequence.
  w.U16(bs - 4, static_cast<uint16_t>(scn));
  w.U8(bs - 2, kDataFileHeaderType);
  w.U8(bs - 1, 1);
  w.U16(16, format::DataBlockChecksum(out));
}

void BuildLogFileHeader(const LogFileHeaderInfo& info, absl::Span<uint8_t> out) {
  std::memset(out.data(), 0, out.size());
  Writer w(out.data(), out.size());
  // Redo block header: signature, format, block# 1, sequence# 0 (never used).
  w.U8(0, format::kRedoSignature);
  w.U8(1, format::kRedoFormat);
  w.U32(4, 1);
  w.U32(8, 0);
  w.U16(12, 0);
  // Log file header body (cellsim's kcclh).
  w.U32(16, kSoftwareVersion);
  w.U32(20, info.dbid);
  w.Text(24, info.db_name, 8);
  w.U32(32, info.block_size);
  w.U32(36, static_cast<uint32_t>(info.file_blocks - 1));
  w.U16(40, static_cast<uint16_t>(info.thread));
  w.U32(44, info.group);
  w.U64(48, info.creation_change);
  w.U64(56, static_cast<uint64_t>(info.created_unix));
  // Oracle's header dump shows this description line.
  w.Text(64,
         fmt::format("T {:04}, S 0000000000, SCN 0x{:012x}-0xffffffffffff", info.thread,
                     info.creation_change),
         64);
  w.U16(14, format::RedoBlockChecksum(out));
}

}  // namespace cellsim::db::internal
