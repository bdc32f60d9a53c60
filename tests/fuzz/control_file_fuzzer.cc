// Fuzz target: the database's control file (cellsim/db/control_file.h) — the
// header block, the file-table slot (blocks of 16 KiB with headers, chunked
// payload and checksums) — and the file table encoding inside it
// (include/cellsim/db/file_table.h).
//
// The first input byte picks the operation:
//   0 file table bytes             1 header block, raw (padded to 16 KiB)
//   2 header block, re-sealed      3 slot, raw     4 slot, re-sealed
// A slot input is u32 dbid, u8 block count (1..15), then per block u16 length
// and that many bytes at the block's start (the rest of the block is zero);
// "re-sealed" recomputes every block's checksum.
// Properties: no crash, hang or leak; errors are DataLoss with a message (a
// rejected slot says why); an accepted file table re-encodes to bytes that
// decode to the same table.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cellsim/db/control_file.h"
#include "cellsim/db/file_table.h"
#include "fuzz/fuzz_util.h"

namespace cellsim::fuzz {
namespace {

using db::internal::kControlFileBlockSize;
using db::internal::kControlFileSlotBlocks;

enum Op : uint8_t { kTable, kHeaderRaw, kHeaderSealed, kSlotRaw, kSlotSealed, kOps };

// An accepted table re-encodes to bytes that decode to the same table (the
// bytes themselves may differ: any non-zero flag byte reads as true).
void CheckTable(const db::FileTable& t) {
  const std::vector<uint8_t> again = t.Encode();
  absl::StatusOr<db::FileTable> t2 = db::FileTable::Decode(again);
  FUZZ_CHECK(t2.ok() && *t2 == t, "file table round trip changed it");
  FUZZ_CHECK(t2->Encode() == again, "file table encoding is not stable");
}

void TableOp(absl::Span<const uint8_t> bytes) {
  absl::StatusOr<db::FileTable> t = db::FileTable::Decode(bytes);
  if (!t.ok()) {
    CheckError(t.status(), {absl::StatusCode::kDataLoss});
    return;
  }
  CheckTable(*t);
}

void HeaderOp(absl::Span<const uint8_t> bytes, bool seal) {
  std::vector<uint8_t> block(kControlFileBlockSize, 0);
  std::memcpy(block.data(), bytes.data(), std::min<size_t>(bytes.size(), block.size()));
  if (seal) db::internal::SealControlFileBlock(block.data());
  absl::StatusOr<db::internal::Header> h = db::internal::ParseHeader(block.data(), "+DATA/ORCL/CONTROLFILE/current.256.1");
  if (!h.ok()) CheckError(h.status(), {absl::StatusCode::kDataLoss});
}

void SlotOp(Input& in, bool seal) {
  const uint32_t dbid = in.U32();
  const uint32_t n = in.U8() % kControlFileSlotBlocks + 1;
  std::vector<uint8_t> blocks(size_t{n} * kControlFileBlockSize, 0);
  for (uint32_t i = 0; i < n; ++i) {
    uint8_t* b = blocks.data() + size_t{i} * kControlFileBlockSize;
    const absl::Span<const uint8_t> seg = in.Bytes(in.U16() % (kControlFileBlockSize + 1));
    std::memcpy(b, seg.data(), seg.size());
    if (seal) db::internal::SealControlFileBlock(b);
  }
  std::string why;
  std::optional<db::internal::SlotContent> s = db::internal::ParseSlot(blocks.data(), n, dbid, &why);
  if (!s.has_value()) {
    FUZZ_CHECK(!why.empty(), "slot rejected without a reason");
    return;
  }
  FUZZ_CHECK(s->blocks >= 1 && s->blocks <= n, "slot of %u blocks", s->blocks);
  CheckTable(s->table);
}

}  // namespace
}  // namespace cellsim::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cellsim::fuzz;  // NOLINT
  Input in(data, size);
  switch (in.U8() % kOps) {
    case kTable:
      TableOp(in.Rest());
      break;
    case kHeaderRaw:
      HeaderOp(in.Rest(), false);
      break;
    case kHeaderSealed:
      HeaderOp(in.Rest(), true);
      break;
    case kSlotRaw:
      SlotOp(in, false);
      break;
    default:
      SlotOp(in, true);
      break;
  }
  return 0;
}
