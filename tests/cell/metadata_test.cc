// The flash metadata formats under hostile input, and a cell's reaction to a
// corrupt or truncated metadata area: a clear error on open, or (for the
// documented cases: a torn journal tail, a torn superblock write) recovery
// without losing acknowledged data — never a crash.
#include "cellsim/cell/metadata.h"

#include <cstring>
#include <filesystem>

#include "cell_test_util.h"
#include "cellsim/base/checksum.h"
#include "cellsim/cell/cache_state.h"
#include "cellsim/io/block_file.h"

namespace cellsim::cell {
namespace {

using internal::CheckpointImage;
using internal::Record;
using internal::RecordType;
using testing::Model;
using testing::RandomBytes;
using testing::SmallConfig;
using testing::VerifyAgainst;
using testing::WriteOne;

TEST(MetadataCodecTest, SuperblockRoundTripAndRejection) {
  internal::Superblock sb{.generation = 7, .epoch = 9, .journal_first_seq = 100,
                          .checkpoint_area = 1, .checkpoint_length = 4242,
                          .checkpoint_checksum = 0x1234, .creation_time_unix = 1700000000,
                          .config = SmallConfig("cel07")};
  std::vector<uint8_t> page(4096);
  internal::EncodeSuperblock(sb, absl::MakeSpan(page));
  ASSERT_OK_AND_ASSIGN(internal::Superblock back, internal::DecodeSuperblock(page, 'A'));
  EXPECT_EQ(back.generation, 7u);
  EXPECT_EQ(back.config.name, "cel07");
  EXPECT_EQ(back.config.grid_disks.size(), 2u);
  EXPECT_EQ(back.config.destage_high_watermark, sb.config.destage_high_watermark);
  for (size_t pos : {size_t{0}, size_t{9}, size_t{30}, size_t{100}}) {
    std::vector<uint8_t> bad = page;
    bad[pos] ^= 0x40;
    absl::StatusOr<internal::Superblock> r = internal::DecodeSuperblock(bad, 'B');
    EXPECT_EQ(r.status().code(), absl::StatusCode::kDataLoss) << pos;
    EXPECT_THAT(std::string(r.status().message()), ::testing::HasSubstr("copy B"));
  }
}

// Superblock format 2 carries each grid disk's cachingPolicy; a format-1
// superblock (a cell made before it) still decodes, with none recorded (all
// default); a policy byte out of range is damage.
TEST(MetadataCodecTest, SuperblockCachingPoliciesAndFormatOne) {
  internal::Superblock sb{.generation = 3, .config = SmallConfig("cel02")};
  sb.config.caching_policies = {CachingPolicy::kDefault, CachingPolicy::kDefault,
                                CachingPolicy::kNone, CachingPolicy::kNone};
  std::vector<uint8_t> page(4096);
  internal::EncodeSuperblock(sb, absl::MakeSpan(page));
  ASSERT_OK_AND_ASSIGN(internal::Superblock back, internal::DecodeSuperblock(page, 'A'));
  EXPECT_EQ(back.config.caching_policies, sb.config.caching_policies);

  std::vector<uint8_t> v1(4096);
  internal::EncodeSuperblock(sb, absl::MakeSpan(v1), /*version=*/1);
  ASSERT_OK_AND_ASSIGN(internal::Superblock old, internal::DecodeSuperblock(v1, 'A'));
  EXPECT_TRUE(old.config.caching_policies.empty());
  EXPECT_EQ(old.config.name, "cel02");

  sb.config.caching_policies[3] = static_cast<CachingPolicy>(7);
  internal::EncodeSuperblock(sb, absl::MakeSpan(page));
  EXPECT_EQ(internal::DecodeSuperblock(page, 'B').status().code(), absl::StatusCode::kDataLoss);
}

// Every record type encodes to exactly the bytes DecodeRecord reads back
// (the chunk encoder sizes a chunk's records before writing them in place),
// and a template record keeps its field-by-field layout.
TEST(MetadataCodecTest, EveryRecordTypeEncodesToTheBytesItDecodes) {
  const format::BlockTemplate t{.kind = format::BlockKind::kRedo, .block_size = 512,
                                .file_number = 5, .file_blocks = 4097};
  for (uint8_t type = 1; type <= 10; ++type) {
    Record r{.type = static_cast<RecordType>(type), .disk = 3, .line = 77, .slot = 9,
             .valid = 0xF0, .dirty = 0x30, .offset = 8192, .length = 4096, .tmpl = t,
             .file_offset = 1024, .data_mask = 0x10, .data_checksum = 0xABCDEF};
    Encoder e;
    internal::EncodeRecord(r, &e);
    Decoder d(e.data());
    Record back;
    ASSERT_TRUE(internal::DecodeRecord(&d, &back)) << "type " << int{type};
    EXPECT_EQ(d.remaining(), 0u) << "type " << int{type} << ": encoded longer than decoded";
    EXPECT_EQ(back.type, r.type);
    EXPECT_EQ(back.disk, r.disk);
  }
  Record r{.type = RecordType::kTemplateAdd, .disk = 3, .offset = 8192, .length = 4096,
           .tmpl = t, .file_offset = 1024};
  Encoder got, want;
  internal::EncodeRecord(r, &got);
  want.PutU8(static_cast<uint8_t>(RecordType::kTemplateAdd));
  want.PutU32(3);
  want.PutU64(8192);
  want.PutU64(4096);
  want.PutU8(static_cast<uint8_t>(format::BlockKind::kRedo));
  want.PutU8(0);
  want.PutU16(0);
  want.PutU32(512);
  want.PutU32(5);
  want.PutU64(4097);
  want.PutU64(1024);
  EXPECT_EQ(got.bytes(), want.bytes());
}

TEST(MetadataCodecTest, ChunkRoundTripAndTornTails) {
  std::vector<Record> recs = {
      {.type = RecordType::kLineSet, .disk = 1, .line = 5, .slot = 3, .valid = 0xF, .dirty = 3},
      {.type = RecordType::kTemplateAdd, .disk = 0, .offset = 4096, .length = 8192,
       .tmpl = {.kind = format::BlockKind::kData, .block_size = 8192, .file_number = 1,
                .file_blocks = 10},
       .file_offset = 512},
      {.type = RecordType::kLostAdd, .disk = 2, .offset = 0, .length = 4096}};
  std::vector<uint8_t> chunk;
  internal::EncodeChunk(3, 17, recs, &chunk);
  EXPECT_EQ(chunk.size() % 4096, 0u);
  std::vector<Record> out;
  uint64_t bytes = 0;
  ASSERT_TRUE(internal::DecodeChunk(chunk, 3, 17, &out, &bytes));
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[1].tmpl.block_size, 8192u);
  EXPECT_EQ(out[0].dirty, 3u);
  EXPECT_EQ(bytes, chunk.size());
  EXPECT_FALSE(internal::DecodeChunk(chunk, 4, 17, &out, &bytes));  // other epoch
  EXPECT_FALSE(internal::DecodeChunk(chunk, 3, 18, &out, &bytes));  // not the next seq
  for (size_t pos : {size_t{0}, size_t{20}, size_t{47}, size_t{48}, size_t{60}}) {
    std::vector<uint8_t> bad = chunk;
    bad[pos] ^= 1;
    EXPECT_FALSE(internal::DecodeChunk(bad, 3, 17, &out, &bytes)) << pos;
  }
  EXPECT_FALSE(internal::DecodeChunk(absl::MakeSpan(chunk).subspan(0, 40), 3, 17, &out, &bytes));
  EXPECT_TRUE(internal::IsStaleChunk(chunk, 4));
  EXPECT_TRUE(internal::IsNewerChunk(chunk, 2));
}

// A version 2 chunk carries the pages of its LineData records after them;
// pages that fail their checksum make the chunk a torn one (a data page not
// written), never a damaged whole page.
TEST(MetadataCodecTest, DataChunkRoundTripAndTornData) {
  std::mt19937_64 rng(3);
  std::vector<uint8_t> line = RandomBytes(rng, 16 * 4096);
  const uint64_t mask = 0b1011;  // pages 0, 1 and 3
  std::vector<Record> recs = {
      {.type = RecordType::kDurable, .offset = 16},
      {.type = RecordType::kLineData, .disk = 1, .line = 5, .slot = 3, .valid = 0xF,
       .dirty = 0xB, .data_mask = mask,
       .data_checksum = internal::LinePagesChecksum(line.data(), mask), .data = line.data()}};
  std::vector<uint8_t> chunk;
  internal::EncodeChunk(3, 17, recs, &chunk);
  ASSERT_EQ(chunk.size(), 4096u);
  ASSERT_EQ(internal::ChunkDataPages(recs), 3u);
  for (uint32_t p : {0u, 1u, 3u}) {
    chunk.insert(chunk.end(), line.begin() + p * 4096, line.begin() + (p + 1) * 4096);
  }
  std::vector<Record> out;
  std::vector<absl::Span<const uint8_t>> data;
  uint64_t bytes = 0;
  ASSERT_TRUE(internal::DecodeChunk(chunk, 3, 17, &out, &bytes, &data));
  EXPECT_EQ(bytes, 4u * 4096);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].type, RecordType::kDurable);
  EXPECT_EQ(out[0].offset, 16u);
  EXPECT_EQ(out[1].data_mask, mask);
  ASSERT_EQ(data.size(), 2u);
  EXPECT_TRUE(data[0].empty());
  ASSERT_EQ(data[1].size(), 3u * 4096);
  EXPECT_EQ(std::memcmp(data[1].data() + 2 * 4096, line.data() + 3 * 4096, 4096), 0);
  // A data page not (or half) written: torn, not damage.
  for (size_t at : {size_t{4096}, 3 * size_t{4096} + 4000}) {
    std::vector<uint8_t> torn = chunk;
    torn[at] ^= 0x40;
    EXPECT_FALSE(internal::DecodeChunk(torn, 3, 17, &out, &bytes)) << at;
    EXPECT_FALSE(internal::IsDamagedWholePageChunk(torn, 3, 17)) << at;
  }
  // The chunk cut before its data pages.
  EXPECT_FALSE(internal::DecodeChunk(absl::MakeSpan(chunk).subspan(0, 4096), 3, 17, &out, &bytes));
  // Data pages outside the valid ones are a damaged record.
  recs[1].data_mask = 0x10;
  recs[1].data_checksum = internal::LinePagesChecksum(line.data(), 0x10);
  std::vector<uint8_t> bad;
  internal::EncodeChunk(3, 17, recs, &bad);
  bad.resize(2 * 4096);
  EXPECT_FALSE(internal::DecodeChunk(bad, 3, 17, &out, &bytes));
}

// Chunks written before data pages existed (version 1, 0 in the data-pages
// field) still decode: an older cell's journal replays.
TEST(MetadataCodecTest, VersionOneChunksStillDecode) {
  std::vector<Record> recs = {
      {.type = RecordType::kLineSet, .disk = 1, .line = 5, .slot = 3, .valid = 0xF, .dirty = 3}};
  std::vector<uint8_t> chunk;
  internal::EncodeChunk(3, 17, recs, &chunk);
  // Rewrite the header as version 1 and re-seal it.
  const uint16_t v1 = 1;
  std::memcpy(chunk.data() + 4, &v1, 2);
  const uint64_t sum = Checksum64(absl::MakeSpan(chunk).subspan(0, 40), internal::kSeedChunk);
  std::memcpy(chunk.data() + 40, &sum, 8);
  std::vector<Record> out;
  uint64_t bytes = 0;
  ASSERT_TRUE(internal::DecodeChunk(chunk, 3, 17, &out, &bytes));
  EXPECT_EQ(out[0].valid, 0xFu);
  // Version 1 with data pages claimed, or a version from the future: invalid.
  for (uint16_t v : {uint16_t{3}, uint16_t{1}}) {
    std::vector<uint8_t> bad = chunk;
    std::memcpy(bad.data() + 4, &v, 2);
    if (v == 1) bad[6] = 1;
    const uint64_t s2 = Checksum64(absl::MakeSpan(bad).subspan(0, 40), internal::kSeedChunk);
    std::memcpy(bad.data() + 40, &s2, 8);
    EXPECT_FALSE(internal::DecodeChunk(bad, 3, 17, &out, &bytes)) << v;
  }
}

// The metric counters after the lost ranges: optional (an image without
// them is what cellsim wrote before), never empty, re-encoded byte for byte.
TEST(MetadataCodecTest, CheckpointCounterSection) {
  CheckpointImage img;
  img.lost.push_back({1, 4096, 8192});
  std::vector<uint8_t> plain, counted;
  internal::EncodeCheckpoint(img, &plain);
  img.counters = {7, 0, 1ull << 40};
  internal::EncodeCheckpoint(img, &counted);
  EXPECT_EQ(counted.size(), plain.size() + 4 + 3 * 8);
  ASSERT_OK_AND_ASSIGN(CheckpointImage back, internal::DecodeCheckpoint(counted));
  EXPECT_EQ(back.counters, img.counters);
  EXPECT_EQ(back.lost[0].length, 8192u);
  ASSERT_OK_AND_ASSIGN(CheckpointImage old, internal::DecodeCheckpoint(plain));
  EXPECT_TRUE(old.counters.empty());
  // A section claiming no counters (never written) or more than fit.
  for (uint32_t n : {0u, 4u}) {
    std::vector<uint8_t> bad(counted.begin(), counted.end() - 8);  // without the checksum
    std::memcpy(bad.data() + plain.size() - 8, &n, 4);
    if (n == 0) bad.resize(plain.size() - 8 + 4);
    const uint64_t sum = Checksum64(bad, internal::kSeedCheckpoint);
    bad.insert(bad.end(), reinterpret_cast<const uint8_t*>(&sum),
               reinterpret_cast<const uint8_t*>(&sum) + 8);
    EXPECT_EQ(internal::DecodeCheckpoint(bad).status().code(), absl::StatusCode::kDataLoss) << n;
  }
}

TEST(MetadataCodecTest, CheckpointRoundTripAndRandomGarbage) {
  CheckpointImage img;
  img.lines.push_back({1, 2, 3, 0xFF, 0x0F});
  img.templates.push_back({0, 8192, 4096, {.kind = format::BlockKind::kRedo, .block_size = 512,
                                           .file_number = 1, .file_blocks = 99}, 1024});
  img.lost.push_back({3, 0, 4096});
  std::vector<uint8_t> bytes;
  internal::EncodeCheckpoint(img, &bytes);
  EXPECT_EQ(bytes.size(), internal::CheckpointBytes(1, 1, 1));
  ASSERT_OK_AND_ASSIGN(CheckpointImage back, internal::DecodeCheckpoint(bytes));
  EXPECT_EQ(back.lines[0].slot, 3u);
  EXPECT_EQ(back.templates[0].file_offset, 1024u);
  EXPECT_EQ(back.lost[0].disk, 3u);
  EXPECT_EQ(internal::DecodeCheckpoint(absl::MakeSpan(bytes).subspan(0, bytes.size() - 1))
                .status()
                .code(),
            absl::StatusCode::kDataLoss);
  // Hostile input never crashes a decoder.
  std::mt19937_64 rng(5);
  for (int i = 0; i < 2000; ++i) {
    std::vector<uint8_t> junk = RandomBytes(rng, rng() % 5000);
    if (!junk.empty() && i % 2) junk[0] = 0x53;  // sometimes a plausible magic byte
    (void)internal::DecodeCheckpoint(junk);
    (void)internal::DecodeSuperblock(junk, 'A');
    std::vector<Record> out;
    uint64_t b;
    (void)internal::DecodeChunk(junk, 1, 1, &out, &b);
  }
}

TEST(CacheStateTest, ReplayedJournalContradictionsAreDataLoss) {
  internal::CacheState st({4 * kMiB}, 64 * kKiB, 8);
  EXPECT_OK(st.Apply({.type = RecordType::kLineSet, .disk = 0, .line = 1, .slot = 2, .valid = 1,
                      .dirty = 1}, 1));
  // Another line claiming the same slot, a slot out of range, dirty not in valid,
  // a disk that does not exist, a range past the end.
  EXPECT_EQ(st.Apply({.type = RecordType::kLineSet, .disk = 0, .line = 3, .slot = 2, .valid = 1},
                     2).code(), absl::StatusCode::kDataLoss);
  EXPECT_FALSE(st.Apply({.type = RecordType::kLineSet, .line = 3, .slot = 9, .valid = 1}, 2).ok());
  EXPECT_FALSE(st.Apply({.type = RecordType::kLineSet, .line = 3, .slot = 4, .valid = 1,
                         .dirty = 2}, 2).ok());
  EXPECT_FALSE(st.Apply({.type = RecordType::kLostAdd, .disk = 5, .length = 4096}, 2).ok());
  EXPECT_FALSE(st.Apply({.type = RecordType::kRangeOnDisk, .offset = 4 * kMiB,
                         .length = 4096}, 2).ok());
  EXPECT_OK(st.CheckInvariants());
}

class CorruptionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    io_ = io::MakePosixBackend();
    layout_ = *internal::ComputeLayout(SmallConfig());
    auto cell = Cell::Create(io_.get(), &clock_, Dir(), SmallConfig(), {.start_cleaner = false});
    ASSERT_TRUE(cell.ok()) << cell.status();
    model_ = std::make_unique<Model>((*cell)->config());
    std::mt19937_64 rng(1);
    for (int i = 0; i < 10; ++i) {
      auto d = RandomBytes(rng, 8192);
      ASSERT_OK(WriteOne(cell->get(), i % 4, i * 65536, d));
      model_->Write(i % 4, i * 65536, d);
    }
    ASSERT_OK((*cell)->Close());
  }
  std::string Dir() const { return tmp_.File("cel01"); }
  absl::StatusOr<std::unique_ptr<Cell>> Open() {
    return Cell::Open(io_.get(), &clock_, Dir(), {.start_cleaner = false});
  }
  // Read-modify-write of one 4 KiB page of flash.img.
  void Patch(uint64_t page_offset, const std::function<void(uint8_t*)>& f) {
    auto file = io::BlockFile::Open(io_.get(), Dir() + "/flash.img", {.block_size = 4096});
    ASSERT_TRUE(file.ok());
    std::vector<uint8_t> page(4096);
    ASSERT_OK((*file)->Read(page_offset, absl::MakeSpan(page)));
    f(page.data());
    ASSERT_OK((*file)->Write(page_offset, page));
    ASSERT_OK((*file)->Sync());
  }
  // Offset of the superblock copy with the highest generation.
  uint64_t NewestSuperblock() {
    uint64_t best = 0, gen = 0;
    for (uint64_t off : {uint64_t{0}, uint64_t{4096}}) {
      auto f = io::BlockFile::Open(io_.get(), Dir() + "/flash.img", {.block_size = 4096});
      std::vector<uint8_t> page(4096);
      EXPECT_OK((*f)->Read(off, absl::MakeSpan(page)));
      auto sb = internal::DecodeSuperblock(page, 'X');
      if (sb.ok() && sb->generation > gen) {
        gen = sb->generation;
        best = off;
      }
    }
    return best;
  }

  cellsim::testing::TempDir tmp_;
  ManualClock clock_;
  std::unique_ptr<io::IoBackend> io_;
  internal::FlashLayout layout_;
  std::unique_ptr<Model> model_;
};

TEST_F(CorruptionTest, IntactCellReopensWithItsData) {
  ASSERT_OK_AND_ASSIGN(auto cell, Open());
  ASSERT_OK(VerifyAgainst(cell.get(), *model_));
}

TEST_F(CorruptionTest, BothSuperblocksCorruptIsAClearError) {
  Patch(0, [](uint8_t* p) { p[0] ^= 0xFF; });
  Patch(4096, [](uint8_t* p) { p[100] ^= 0xFF; });
  auto cell = Open();
  EXPECT_EQ(cell.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(std::string(cell.status().message()),
              ::testing::HasSubstr("no valid metadata superblock"));
}

TEST_F(CorruptionTest, DamagedSuperblockCopyIsRepairedFromTheCurrentOne) {
  // The cell was written after its last checkpoint (Create), so the journal
  // holds chunks of the newest epoch. Both superblock copies hold the newest
  // generation (every copy current): one damaged copy is rewritten from the
  // other and nothing acknowledged is lost.
  {
    ASSERT_OK_AND_ASSIGN(auto cell, Open());  // checkpoint: new epoch
    std::vector<uint8_t> d(8192, 0x5A);
    ASSERT_OK(WriteOne(cell.get(), 0, 1 * kMiB, d));
    model_->Write(0, 1 * kMiB, d);
    ASSERT_OK(cell->Close());
  }
  for (uint64_t copy : {uint64_t{0}, uint64_t{4096}}) {
    Patch(copy, [](uint8_t* p) { p[40] ^= 0x01; });
    {  // read-only: said, read from the other copy, and left as it is
      ASSERT_OK_AND_ASSIGN(auto cell, Cell::Open(io_.get(), &clock_, Dir(),
                                                 {.start_cleaner = false, .read_only = true}));
      ASSERT_OK(VerifyAgainst(cell.get(), *model_));
      ASSERT_EQ(cell->metadata_repairs().size(), 1u);
      EXPECT_THAT(cell->metadata_repairs()[0],
                  ::testing::AllOf(::testing::HasSubstr(copy == 0 ? "copy A" : "copy B"),
                                   ::testing::HasSubstr("is damaged (bad checksum); read copy " +
                                                        std::string(copy == 0 ? "B" : "A"))));
      ASSERT_OK(cell->Close());
    }
    ASSERT_OK_AND_ASSIGN(auto cell, Open());
    ASSERT_OK(VerifyAgainst(cell.get(), *model_));
    ASSERT_EQ(cell->metadata_repairs().size(), 1u);
    EXPECT_THAT(cell->metadata_repairs()[0],
                ::testing::AllOf(::testing::HasSubstr(copy == 0 ? "copy A" : "copy B"),
                                 ::testing::HasSubstr("flash.img"),
                                 ::testing::HasSubstr("was damaged (bad checksum)")));
    ASSERT_OK(cell->Close());
  }
  ASSERT_OK_AND_ASSIGN(auto cell, Open());
  EXPECT_TRUE(cell->metadata_repairs().empty());
}

TEST_F(CorruptionTest, TornSuperblockWriteFallsBackToTheOtherCopy) {
  // Open writes a checkpoint and a new superblock; nothing is appended after.
  // Losing that superblock (as a torn write would) leaves the previous copy,
  // whose checkpoint and journal are intact: recovery with all data.
  { ASSERT_OK_AND_ASSIGN(auto cell, Open()); ASSERT_OK(cell->Close()); }
  Patch(NewestSuperblock(), [](uint8_t* p) { std::memset(p + 2000, 0xEE, 100); });
  ASSERT_OK_AND_ASSIGN(auto cell, Open());
  ASSERT_OK(VerifyAgainst(cell.get(), *model_));
}

TEST_F(CorruptionTest, CorruptCheckpointIsAClearError) {
  { ASSERT_OK_AND_ASSIGN(auto cell, Open()); ASSERT_OK(cell->Close()); }
  // The newest superblock's checkpoint area: corrupt both areas' first page.
  Patch(layout_.checkpoint_offset[0], [](uint8_t* p) { p[12] ^= 0x10; });
  Patch(layout_.checkpoint_offset[1], [](uint8_t* p) { p[12] ^= 0x10; });
  auto cell = Open();
  EXPECT_EQ(cell.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(std::string(cell.status().message()), ::testing::HasSubstr("checkpoint"));
}

TEST_F(CorruptionTest, CorruptMiddleJournalChunkIsAClearError) {
  // The 10 writes after Create are 10 chunks at the journal's start.
  Patch(layout_.journal_offset + 3 * 4096, [](uint8_t* p) { p[60] ^= 0x01; });  // a record
  auto cell = Open();
  EXPECT_EQ(cell.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(std::string(cell.status().message()), ::testing::HasSubstr("damaged"));
}

TEST_F(CorruptionTest, TornTailIsDroppedAndAcknowledgedDataKept) {
  // Garbage where the next chunk would go: a write torn by a power loss.
  Patch(layout_.journal_offset + 40 * 4096, [](uint8_t* p) {  // past 10 chunks of 3 pages
    std::memset(p, 0xA5, 4096);
    const uint32_t magic = internal::kChunkMagic;
    std::memcpy(p, &magic, 4);
  });
  ASSERT_OK_AND_ASSIGN(auto cell, Open());
  ASSERT_OK(VerifyAgainst(cell.get(), *model_));
  ASSERT_OK(cell->CheckConsistency());
}

TEST_F(CorruptionTest, TruncatedFlashIsAClearError) {
  const std::string flash = Dir() + "/flash.img";
  const uint64_t size = std::filesystem::file_size(flash);
  std::filesystem::resize_file(flash, size - 65536);
  auto cell = Open();
  EXPECT_EQ(cell.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(cell.status().message()), ::testing::HasSubstr("truncated"));
  std::filesystem::resize_file(flash, 4096);
  EXPECT_FALSE(Open().ok());
  std::filesystem::resize_file(flash, 0);
  EXPECT_FALSE(Open().ok());
  std::filesystem::resize_file(flash, size);  // zeros: no valid superblock
  EXPECT_EQ(Open().status().code(), absl::StatusCode::kDataLoss);
}

// A grid disk file of the wrong size: the cell opens without it, as without
// a missing one, says why, and vouches for none of its bytes (content_lost:
// ASM rebuilds it whole); the file is left as it is.
TEST_F(CorruptionTest, TruncatedGridDiskIsNotPresentAndSaysWhy) {
  const std::string path = Dir() + "/RECO_CD_01_cel01.img";
  std::filesystem::resize_file(path, 1 * kMiB);
  ASSERT_OK_AND_ASSIGN(auto cell, Open());
  ASSERT_OK_AND_ASSIGN(CellDescription d, cell->Describe());
  uint32_t index = 0;
  while (index < d.grid_disks.size() && d.grid_disks[index].name != "RECO_CD_01_cel01") ++index;
  ASSERT_LT(index, d.grid_disks.size());
  const GridDiskInfo& g = d.grid_disks[index];
  EXPECT_EQ(g.status, "not present");
  EXPECT_TRUE(g.content_lost);
  EXPECT_THAT(g.status_reason, ::testing::HasSubstr("RECO_CD_01_cel01.img is damaged: its size "
                                                    "is 1048576 bytes"));
  std::vector<uint8_t> page(4096);
  std::vector<ReadRequest> read{{.grid_disk = index, .offset = 0, .buffer = absl::MakeSpan(page)}};
  const absl::Status st = cell->Read(absl::MakeSpan(read), nullptr);
  EXPECT_EQ(st.code(), absl::StatusCode::kUnavailable) << st;
  EXPECT_THAT(std::string(st.message()), ::testing::HasSubstr("is damaged"));
  for (const GridDiskInfo& other : d.grid_disks) {
    if (other.name != g.name) {
      EXPECT_EQ(other.status, "active") << other.name;
    }
  }
  ASSERT_OK(cell->Close());
  EXPECT_EQ(std::filesystem::file_size(path), 1 * kMiB);
}

TEST_F(CorruptionTest, RandomMetadataDamageNeverCrashes) {
  std::mt19937_64 rng(11);
  const uint64_t meta_pages = layout_.data_offset / 4096;
  int errors = 0, opened = 0;
  for (int i = 0; i < 40; ++i) {
    const uint64_t page = rng() % std::min<uint64_t>(meta_pages, 2 + (i % 2 ? 4 : meta_pages));
    const size_t byte = rng() % 4096;
    Patch(page * 4096, [&](uint8_t* p) { p[byte] ^= static_cast<uint8_t>(1 + rng() % 255); });
    auto cell = Open();
    if (!cell.ok()) {
      ++errors;
      EXPECT_NE(cell.status().message(), "");
      break;  // stays broken; the loop has shown an error, not a crash
    }
    ++opened;
    EXPECT_OK((*cell)->CheckConsistency());
    ASSERT_OK((*cell)->Close());
  }
  EXPECT_GT(errors + opened, 0);
}

}  // namespace
}  // namespace cellsim::cell
