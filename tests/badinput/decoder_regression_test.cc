// Regression tests for the decoder bugs the fuzz targets (tests/fuzz) found:
// each builds the offending input by hand, so the case stays covered in every
// build, not only in the clang fuzzing build. docs/reliability.md lists them.
#include <algorithm>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "cellsim/asm/catalog.h"
#include "cellsim/base/checksum.h"
#include "cellsim/base/clock.h"
#include "cellsim/cell/cache_state.h"
#include "cellsim/cell/cell.h"
#include "cellsim/cell/metadata.h"
#include "cellsim/io/io_backend.h"
#include "testing/test_util.h"

namespace cellsim::badinput {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

// cell_metadata_fuzzer: EncodeChunk of an empty record list passed a null
// pointer to memcpy (undefined behaviour; UBSan aborts).
TEST(DecoderRegression, EmptyJournalChunkEncodesAndDecodes) {
  std::vector<uint8_t> chunk;
  cell::internal::EncodeChunk(/*epoch=*/1, /*seq=*/8, {}, &chunk);
  ASSERT_EQ(chunk.size(), cell::internal::kPage);
  std::vector<cell::internal::Record> records;
  uint64_t bytes = 0;
  EXPECT_TRUE(cell::internal::DecodeChunk(chunk, 1, 8, &records, &bytes));
  EXPECT_TRUE(records.empty());
  EXPECT_EQ(bytes, cell::internal::kPage);
}

// cell_metadata_fuzzer: a journal chunk whose header (checksum valid) claims
// 2^32 - 1 records made DecodeChunk reserve 320 GiB before decoding any.
TEST(DecoderRegression, JournalChunkHugeRecordCountIsRejected) {
  std::vector<cell::internal::Record> one = {
      {.type = cell::internal::RecordType::kLineDrop, .disk = 0, .line = 3}};
  std::vector<uint8_t> chunk;
  cell::internal::EncodeChunk(1, 8, one, &chunk);
  for (int i = 0; i < 4; ++i) chunk[28 + i] = 0xFF;  // record count
  const uint64_t sum = Checksum64(absl::MakeConstSpan(chunk).subspan(0, 40),
                                  cell::internal::kSeedChunk);
  for (int i = 0; i < 8; ++i) chunk[40 + i] = static_cast<uint8_t>(sum >> (8 * i));
  std::vector<cell::internal::Record> records;
  uint64_t bytes = 0;
  EXPECT_FALSE(cell::internal::DecodeChunk(chunk, 1, 8, &records, &bytes));
  EXPECT_TRUE(records.empty());
  // The header itself is valid: recovery tells this damage from a torn tail.
  EXPECT_TRUE(cell::internal::LooksLikeLaterChunk(chunk, 1, 7));
}

// cell_metadata_fuzzer: a superblock whose body length is 0xFFFFFFF9 wrapped
// the 32-bit bounds check (body + 8 == 1) and the checksum was read 4 GiB past
// the page (SEGV).
TEST(DecoderRegression, SuperblockBodyLengthWrapIsDataLoss) {
  std::vector<uint8_t> page(cell::internal::kPage, 0);
  Encoder e;
  e.PutU64(0x3146534D4C4C4543ull);  // "CELLMSF1"
  e.PutU32(cell::internal::kFormatVersion);
  e.PutU32(0xFFFFFFF9u);            // body length
  std::copy(e.data().begin(), e.data().end(), page.begin());
  absl::StatusOr<cell::internal::Superblock> sb = cell::internal::DecodeSuperblock(page, 'A');
  ASSERT_FALSE(sb.ok());
  EXPECT_EQ(sb.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(std::string(sb.status().message()),
              HasSubstr("copy A: body length 4294967289 out of range"));
}

// A flash checkpoint whose lost-range count wraps the size computation
// (20 * (2^62 + 1) == 20 mod 2^64) so that the size check passed and the
// decoder tried to allocate 2^62 entries.
TEST(DecoderRegression, FlashCheckpointCountOverflowIsDataLoss) {
  Encoder e;
  e.PutU32(0x314B4353);  // "SCK1"
  e.PutU32(cell::internal::kFormatVersion);
  e.PutU64(0);                          // lines
  e.PutU64(0);                          // templates
  e.PutU64((uint64_t{1} << 62) + 1);    // lost ranges
  e.PutU32(0);                          // one range entry: disk, offset, length
  e.PutU64(0);
  e.PutU64(4096);
  e.PutU64(Checksum64(e.data(), cell::internal::kSeedCheckpoint));
  ASSERT_EQ(e.size(), cell::internal::CheckpointBytes(0, 0, (uint64_t{1} << 62) + 1));
  absl::StatusOr<cell::internal::CheckpointImage> img = cell::internal::DecodeCheckpoint(e.data());
  ASSERT_FALSE(img.ok());
  EXPECT_EQ(img.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(std::string(img.status().message()), HasSubstr("do not fit"));
}

// An ASM checkpoint of one disk claiming 2^32 - 2 AUs (its size says 2^62
// bytes): decoding allocated an owner map of 48 GiB before anything else
// could fail.
std::vector<uint8_t> CatalogWithDisk(uint64_t size_bytes, uint32_t total_aus, uint32_t stale) {
  Encoder e;
  e.PutU32(0x4B434741);  // "AGCK"
  e.PutU32(1);
  e.PutU64(1);           // seq
  e.PutString("DATA");
  e.PutU8(0);            // EXTERNAL
  e.PutU64(1 << 20);     // AU
  e.PutU32(8);           // max partners
  e.PutU32(256);         // next file
  e.PutU32(0);           // last incarnation
  e.PutU32(1);           // disks
  e.PutU32(0);           // cell
  e.PutU32(0);           // grid disk
  e.PutString("DATA_CD_00_CEL01");
  e.PutString("CEL01");
  e.PutU64(size_bytes);
  e.PutU32(total_aus);
  e.PutU8(1);            // online
  e.PutString("");
  e.PutU32(0);           // partners
  e.PutU32(stale);       // stale AUs (none follow)
  e.PutU32(0);           // files
  e.PutU64(Checksum64(e.data(), asmgr::internal::kCatalogCheckpointSeed));
  return std::move(e.bytes());
}

TEST(DecoderRegression, AsmCheckpointHugeDiskIsDataLoss) {
  absl::StatusOr<asmgr::internal::Catalog> c = asmgr::internal::Catalog::DecodeCheckpoint(
      CatalogWithDisk(uint64_t{1} << 62, UINT32_MAX - 1, 0), "DATA.ckpt0");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(std::string(c.status().message()), HasSubstr("AUs"));
}

TEST(DecoderRegression, AsmCheckpointStaleCountPastTheEndIsDataLoss) {
  absl::StatusOr<asmgr::internal::Catalog> c = asmgr::internal::Catalog::DecodeCheckpoint(
      CatalogWithDisk(uint64_t{1} << 36, 1u << 16, 1u << 16), "DATA.ckpt0");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(std::string(c.status().message()), HasSubstr("DATA.ckpt0"));
  // The same disk with a sane stale list decodes.
  EXPECT_OK(asmgr::internal::Catalog::DecodeCheckpoint(
      CatalogWithDisk(uint64_t{1} << 36, 1u << 16, 0), "DATA.ckpt0"));
}

// cell_metadata_fuzzer: a journal whose checksums hold but whose records
// contradict each other — a cache line set over a fast-created (template)
// range with no kTemplateTrim after it — was replayed into a state breaking
// the cache invariants (a page both cached and templated). Recovery now
// checks the replayed state and refuses the cell.
// cell_metadata fuzzing (issue 11 work): a superblock claiming a grid disk of
// 2^44 lines or more let a journal line number spill into the disk bits of
// the directory's key, so replay filed the line under a disk that does not
// exist and the invariant check read past the per-disk maps (ASan SEGV).
TEST(DecoderRegression, JournalLineBeyondTheKeyRangeIsDataLoss) {
  cell::internal::CacheState state({uint64_t{1} << 62}, 4096, 8);
  const cell::internal::Record r{.type = cell::internal::RecordType::kLineSet, .disk = 0,
                                 .line = uint64_t{1} << 44, .slot = 0, .valid = 1, .dirty = 1};
  const absl::Status s = state.Apply(r, 1);
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(std::string(s.message()), HasSubstr("past the end of grid disk 0"));
  EXPECT_OK(state.CheckInvariants());
}

TEST(DecoderRegression, ContradictoryJournalIsDataLossAtOpen) {
  cellsim::testing::TempDir tmp;
  std::unique_ptr<io::IoBackend> io = io::MakePosixBackend();
  const std::string dir = tmp.path() + "/cel01";
  {
    ASSERT_OK_AND_ASSIGN(auto cell, cell::Cell::Create(io.get(), SystemClock(), dir, {},
                                                       {.start_cleaner = false}));
    std::vector<cell::FormatRangeRequest> f(1);
    f[0].grid_disk = 0;
    f[0].offset = 0;
    f[0].length = 1 << 20;
    f[0].block_template = {.kind = format::BlockKind::kData, .block_size = 8192,
                           .file_number = 5, .file_blocks = 128};
    cell::CellIoStats stats;
    ASSERT_OK(cell->FormatRange(absl::MakeSpan(f), &stats));
    ASSERT_TRUE(f[0].metadata_only);  // the template is in the flash metadata
    ASSERT_OK(cell->Close());
  }
  {  // Reopen: the template moves into the checkpoint, the journal restarts.
    ASSERT_OK_AND_ASSIGN(auto cell, cell::Cell::Open(io.get(), SystemClock(), dir,
                                                     {.start_cleaner = false}));
    ASSERT_OK(cell->Close());
  }
  // Append, at the journal's end, a well-formed chunk that caches page 0 of
  // line 0 of disk 0, inside the template range, and never trims the template.
  const std::string flash = dir + "/flash.img";
  std::vector<uint8_t> img = ::cellsim::testing::ReadFileBytes(flash);
  const auto span = absl::MakeConstSpan(img);
  absl::StatusOr<cell::internal::Superblock> a =
      cell::internal::DecodeSuperblock(span.subspan(0, cell::internal::kPage), 'A');
  absl::StatusOr<cell::internal::Superblock> b = cell::internal::DecodeSuperblock(
      span.subspan(cell::internal::kPage, cell::internal::kPage), 'B');
  ASSERT_TRUE(a.ok() || b.ok());
  const cell::internal::Superblock sb =
      !a.ok() ? *b : !b.ok() ? *a : (a->generation > b->generation ? *a : *b);
  ASSERT_OK_AND_ASSIGN(cell::internal::FlashLayout layout, cell::internal::ComputeLayout(sb.config));
  uint64_t pos = 0, seq = sb.journal_first_seq;
  for (;;) {
    std::vector<cell::internal::Record> records;
    uint64_t bytes = 0;
    if (!cell::internal::DecodeChunk(span.subspan(layout.journal_offset + pos), sb.epoch, seq,
                                     &records, &bytes)) {
      break;
    }
    pos += bytes;
    ++seq;
  }
  std::vector<uint8_t> chunk;
  cell::internal::EncodeChunk(sb.epoch, seq,
                              {{.type = cell::internal::RecordType::kLineSet, .disk = 0,
                                .line = 0, .slot = 0, .valid = 1, .dirty = 1}},
                              &chunk);
  {
    std::fstream out(flash, std::ios::binary | std::ios::in | std::ios::out);
    out.seekp(static_cast<std::streamoff>(layout.journal_offset + pos));
    out.write(reinterpret_cast<const char*>(chunk.data()), static_cast<std::streamsize>(chunk.size()));
  }
  absl::StatusOr<std::unique_ptr<cell::Cell>> cell =
      cell::Cell::Open(io.get(), SystemClock(), dir, {.start_cleaner = false});
  ASSERT_FALSE(cell.ok());
  EXPECT_EQ(cell.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(std::string(cell.status().message()),
              AllOf(HasSubstr("replayed metadata is inconsistent"),
                    HasSubstr("both cached and in a template range")));
}

}  // namespace
}  // namespace cellsim::badinput
