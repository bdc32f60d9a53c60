// Cell-side formatting: the fast (metadata-only) path must be byte-for-byte
// equivalent to the smart path (blocks written to disk) — before a flush,
// after a flush (then from the disk alone) and after a reopen — for random
// ranges, block kinds/sizes, partial overwrites and re-formats.
#include <filesystem>

#include "cell_test_util.h"

namespace cellsim::cell {
namespace {

using testing::FormatOne;
using testing::Model;
using testing::RandomBytes;
using testing::ReadOne;
using testing::SmallConfig;
using testing::VerifyAgainst;
using testing::WriteOne;

format::BlockTemplate RandomTemplate(std::mt19937_64& rng) {
  static constexpr uint32_t kDataSizes[] = {2048, 4096, 8192, 16384, 32768};
  format::BlockTemplate t;
  switch (rng() % 3) {
    case 0:
      t = {.kind = format::BlockKind::kRedo, .block_size = (rng() % 2) ? 512u : 4096u,
           .file_number = static_cast<uint32_t>(rng() % 16), .file_blocks = 1 + rng() % 8192};
      break;
    default:
      t = {.kind = format::BlockKind::kData, .block_size = kDataSizes[rng() % 5],
           .file_number = static_cast<uint32_t>(rng() % 1024), .file_blocks = 1 + rng() % 4096};
      break;
  }
  return t;
}

class FormatRangeTest : public ::testing::TestWithParam<uint64_t> {
 protected:
  void SetUp() override { io_ = io::MakePosixBackend(); }
  std::unique_ptr<Cell> Make(const std::string& dir) {
    auto c = Cell::Create(io_.get(), &clock_, tmp_.File(dir), SmallConfig(), {.start_cleaner = false});
    EXPECT_TRUE(c.ok()) << c.status();
    return std::move(*c);
  }
  std::unique_ptr<Cell> Reopen(std::unique_ptr<Cell> cell, const std::string& dir) {
    EXPECT_OK(cell->Close());
    cell.reset();
    auto c = Cell::Open(io_.get(), &clock_, tmp_.File(dir), {.start_cleaner = false});
    EXPECT_TRUE(c.ok()) << c.status();
    return std::move(*c);
  }
  // Every grid disk file read directly equals the model: the disk alone is
  // authoritative.
  void ExpectDisksEqualModel(const std::string& dir, Cell* cell, const Model& model) {
    testing::ExpectRawDisksEqualModel(io_.get(), tmp_.File(dir), cell, model);
  }

  cellsim::testing::TempDir tmp_;
  ManualClock clock_;
  std::unique_ptr<io::IoBackend> io_;
};

TEST_P(FormatRangeTest, FastEqualsSmartBeforeAndAfterFlushAndReopen) {
  std::mt19937_64 rng(GetParam());
  auto fast = Make("fast");
  auto smart = Make("smart");
  Model model(fast->config());
  for (int op = 0; op < 40; ++op) {
    const uint32_t disk = rng() % model.count();
    const uint64_t size = model.disk(disk).size();
    const uint64_t off = (rng() % (size / 512)) * 512;
    const int kind = rng() % 10;
    if (kind < 5) {
      // Format (or re-format) a random range, often unaligned, up to 1 MiB.
      const uint64_t len = std::min<uint64_t>(512 * (1 + rng() % 2048), size - off);
      const format::BlockTemplate t = RandomTemplate(rng);
      const uint64_t foff = (rng() % 64) * 512;
      bool md_only = false;
      ASSERT_OK(FormatOne(fast.get(), disk, off, len, t, foff, FormatMethod::kMetadataOnly,
                          nullptr, &md_only));
      EXPECT_TRUE(md_only);
      CellIoStats st;
      ASSERT_OK(FormatOne(smart.get(), disk, off, len, t, foff, FormatMethod::kWriteBlocks, &st,
                          &md_only));
      EXPECT_FALSE(md_only);
      EXPECT_EQ(st.bytes_saved_by_creation, len);
      EXPECT_GE(st.disk_bytes_written, len);
      model.Format(disk, off, len, t, foff);
    } else if (kind < 9) {
      // Partial overwrite: small (cached) or large (bypass) writes.
      const uint64_t len = std::min<uint64_t>(
          (kind == 8 ? 512 * (512 + rng() % 512) : 512 * (1 + rng() % 64)), size - off);
      auto data = RandomBytes(rng, len);
      ASSERT_OK(WriteOne(fast.get(), disk, off, data));
      ASSERT_OK(WriteOne(smart.get(), disk, off, data));
      model.Write(disk, off, data);
    } else {
      // Reads in the middle of it all (populate the cache on both cells).
      const uint64_t len = std::min<uint64_t>(512 * (1 + rng() % 128), size - off);
      ASSERT_OK_AND_ASSIGN(auto a, ReadOne(fast.get(), disk, off, len));
      ASSERT_OK_AND_ASSIGN(auto b, ReadOne(smart.get(), disk, off, len));
      ASSERT_EQ(a, b);
    }
  }
  ASSERT_OK(fast->CheckConsistency());
  ASSERT_OK(smart->CheckConsistency());
  EXPECT_GT(fast->TemplateRangeCount(), 0u);
  EXPECT_EQ(smart->TemplateRangeCount(), 0u);
  // 1. Before a flush.
  ASSERT_OK(VerifyAgainst(fast.get(), model));
  ASSERT_OK(VerifyAgainst(smart.get(), model));
  // 2. After a reopen (templates and dirty lines come back from flash).
  fast = Reopen(std::move(fast), "fast");
  smart = Reopen(std::move(smart), "smart");
  ASSERT_OK(VerifyAgainst(fast.get(), model));
  ASSERT_OK(VerifyAgainst(smart.get(), model));
  // 3. After a flush: no dirty data, no template, and the disks alone hold it.
  std::vector<FlushProgress> seen;
  ASSERT_OK_AND_ASSIGN(FlushProgress p,
                       fast->Flush([&](const FlushProgress& x) { seen.push_back(x); }));
  EXPECT_TRUE(p.done);
  EXPECT_EQ(p.dirty_bytes_remaining, 0u);
  EXPECT_GT(p.ranges_materialized, 0u);
  EXPECT_FALSE(seen.empty());
  EXPECT_EQ(fast->DirtyBytes(), 0u);
  EXPECT_EQ(fast->TemplateRangeCount(), 0u);
  ASSERT_OK(smart->Flush({}).status());
  ASSERT_OK(VerifyAgainst(fast.get(), model));
  ASSERT_OK(VerifyAgainst(smart.get(), model));
  ExpectDisksEqualModel("fast", fast.get(), model);
  ExpectDisksEqualModel("smart", smart.get(), model);
  // 4. After a flush and a reopen.
  fast = Reopen(std::move(fast), "fast");
  ASSERT_OK(VerifyAgainst(fast.get(), model));
  ASSERT_OK(fast->CheckConsistency());
}

INSTANTIATE_TEST_SUITE_P(Seeds, FormatRangeTest, ::testing::Values(1, 2, 3, 4, 5, 6));

class FormatRangeCases : public FormatRangeTest {};

TEST_F(FormatRangeCases, GeneratedReadsAreCountedApart) {
  auto cell = Make("c");
  format::BlockTemplate t{.kind = format::BlockKind::kData, .block_size = 8192,
                          .file_number = 4, .file_blocks = 512};
  CellIoStats fs;
  ASSERT_OK(FormatOne(cell.get(), 0, 1 * kMiB, 1 * kMiB, t, 0, FormatMethod::kAuto, &fs));
  EXPECT_EQ(fs.disk_bytes_written, 0u);
  EXPECT_EQ(fs.flash_bytes_written, 0u);
  EXPECT_EQ(fs.bytes_saved_by_creation, 1 * kMiB);
  CellIoStats rs;
  ASSERT_OK_AND_ASSIGN(auto blocks, ReadOne(cell.get(), 0, 1 * kMiB, 64 * kKiB, &rs));
  EXPECT_EQ(rs.generated_reads, 1u);
  EXPECT_EQ(rs.generated_bytes, 64 * kKiB);
  EXPECT_EQ(rs.flash_cache_read_hits, 0u);
  EXPECT_EQ(rs.disk_bytes_read, 0u);
  for (uint64_t b = 0; b < 8; ++b) {
    EXPECT_OK(format::VerifyBlock(t, b, absl::MakeSpan(blocks).subspan(b * 8192, 8192)));
  }
  // Reading generated blocks does not populate the cache.
  EXPECT_EQ(cell->UsedBytes(), 0u);
  // A write into the range generates its line, merges and makes it dirty.
  std::vector<uint8_t> w(512, 0xAB);
  ASSERT_OK(WriteOne(cell.get(), 0, 1 * kMiB + 8192 + 100 * 512, w));
  EXPECT_EQ(cell->DirtyBytes(), 64 * kKiB);  // the whole 64 KiB line
  CellIoStats hs;
  ASSERT_OK_AND_ASSIGN(auto again, ReadOne(cell.get(), 0, 1 * kMiB, 64 * kKiB, &hs));
  EXPECT_EQ(hs.flash_cache_read_hits, 1u);
  EXPECT_EQ(hs.generated_reads, 0u);
  std::memset(blocks.data() + 8192 + 100 * 512, 0xAB, 512);
  EXPECT_EQ(again, blocks);
}

// What the database sends for a new file (block 0, then [2 blocks, end), on
// two disks): block 0 is a sub-page range sharing its line with the next
// range, so the call runs in two groups (edges, then templates), and still
// syncs the flash once; after a reopen every formatted byte reads back.
TEST_F(FormatRangeCases, OneCallSyncsOnceForAllItsGroups) {
  auto cell = Make("c");
  Model model(cell->config());
  const format::BlockTemplate t{.kind = format::BlockKind::kRedo, .block_size = 512,
                                .file_number = 5, .file_blocks = 4097};
  std::vector<FormatRangeRequest> reqs;
  for (uint32_t disk : {0u, 1u}) {
    reqs.push_back({.grid_disk = disk, .offset = 0, .length = 512, .block_template = t,
                    .file_offset = 0, .method = FormatMethod::kMetadataOnly});
    reqs.push_back({.grid_disk = disk, .offset = 1024, .length = 4095 * 512, .block_template = t,
                    .file_offset = 1024, .method = FormatMethod::kMetadataOnly});
  }
  const uint64_t syncs0 = io_->Counters().syncs;
  CellIoStats st;
  ASSERT_OK(cell->FormatRange(absl::MakeSpan(reqs), &st));
  EXPECT_EQ(io_->Counters().syncs - syncs0, 1u) << "one flash sync for the whole call";
  for (const FormatRangeRequest& r : reqs) {
    EXPECT_TRUE(r.metadata_only);
    model.Format(r.grid_disk, r.offset, r.length, t, r.file_offset);
  }
  EXPECT_EQ(st.bytes_saved_by_creation, 2 * (512 + 4095 * 512));
  ASSERT_OK(VerifyAgainst(cell.get(), model));
  cell = Reopen(std::move(cell), "c");
  ASSERT_OK(VerifyAgainst(cell.get(), model));
  ASSERT_OK(cell->CheckConsistency());
}

TEST_F(FormatRangeCases, ReformatOverridesDirtyDataAndAdjacentRangesStaySeparate) {
  auto cell = Make("c");
  Model model(cell->config());
  std::mt19937_64 rng(9);
  auto data = RandomBytes(rng, 192 * kKiB);
  ASSERT_OK(WriteOne(cell.get(), 1, 0, data));  // dirty lines 0..2
  model.Write(1, 0, data);
  format::BlockTemplate a{.kind = format::BlockKind::kData, .block_size = 8192, .file_number = 1,
                          .file_blocks = 1000};
  format::BlockTemplate b{.kind = format::BlockKind::kRedo, .block_size = 512, .file_number = 2,
                          .file_blocks = 100000};
  // Re-format part of the dirty data, then an adjacent range, then a range
  // that straddles both.
  for (auto [off, len, t, foff] :
       {std::tuple{uint64_t{32768}, uint64_t{65536}, a, uint64_t{0}},
        std::tuple{uint64_t{98304}, uint64_t{65536}, b, uint64_t{512}},
        std::tuple{uint64_t{90112}, uint64_t{16384}, a, uint64_t{8192 * 7}}}) {
    ASSERT_OK(FormatOne(cell.get(), 1, off, len, t, foff, FormatMethod::kMetadataOnly));
    model.Format(1, off, len, t, foff);
    ASSERT_OK(cell->CheckConsistency());
  }
  EXPECT_EQ(cell->TemplateRangeCount(), 3u);
  EXPECT_LT(cell->DirtyBytes(), 192 * kKiB);
  ASSERT_OK(VerifyAgainst(cell.get(), model));
  ASSERT_OK(cell->Flush({}).status());
  ASSERT_OK(VerifyAgainst(cell.get(), model));
}

TEST_F(FormatRangeCases, SmartPathIssuesLargeRequestsAndInvalidatesCache) {
  auto cell = Make("c");
  std::mt19937_64 rng(3);
  auto data = RandomBytes(rng, 16384);
  ASSERT_OK(WriteOne(cell.get(), 0, 2 * kMiB, data));
  format::BlockTemplate t{.kind = format::BlockKind::kData, .block_size = 8192, .file_number = 9,
                          .file_blocks = 256};
  CellIoStats st;
  ASSERT_OK(FormatOne(cell.get(), 0, 1 * kMiB, 2 * kMiB, t, 0, FormatMethod::kWriteBlocks, &st));
  EXPECT_EQ(cell->DirtyBytes(), 0u);
  EXPECT_EQ(st.disk_bytes_written, 2 * kMiB);
  // 1 MiB requests: 2 large writes on cell disk 0.
  EXPECT_EQ(testing::MetricValue(cell.get(), "CD_IO_RQ_W_LG", "CD_00_cel01"), 2);
  ASSERT_OK_AND_ASSIGN(auto blk, ReadOne(cell.get(), 0, 2 * kMiB, 8192));
  EXPECT_OK(format::VerifyBlock(t, 128, blk));
}

}  // namespace
}  // namespace cellsim::cell
