// Destage behaviour: watermark-driven cleaner passes, eviction of clean lines
// under pressure, forced destage when everything is dirty, flush to zero dirty
// with progress, the write-back -> write-through switch, and flash loss.
#include <filesystem>

#include "cell_test_util.h"

namespace cellsim::cell {
namespace {

using testing::FormatOne;
using testing::MetricValue;
using testing::Model;
using testing::RandomBytes;
using testing::ReadOne;
using testing::SmallConfig;
using testing::VerifyAgainst;
using testing::WriteOne;

class CleanerTest : public ::testing::Test {
 protected:
  void SetUp() override { io_ = io::MakePosixBackend(); }
  std::string Dir() const { return tmp_.File("cel01"); }
  void Make(CellConfig c = SmallConfig()) {
    auto cell = Cell::Create(io_.get(), &clock_, Dir(), c, {.start_cleaner = false});
    ASSERT_TRUE(cell.ok()) << cell.status();
    cell_ = std::move(*cell);
    model_ = std::make_unique<Model>(cell_->config());
    lines_ = cell_->CacheCapacityBytes() / cell_->config().cache_line_size;
  }
  void Reopen() {
    ASSERT_OK(cell_->Close());
    cell_.reset();
    auto cell = Cell::Open(io_.get(), &clock_, Dir(), {.start_cleaner = false});
    ASSERT_TRUE(cell.ok()) << cell.status();
    cell_ = std::move(*cell);
  }
  // One 8 KiB write into line `i` (spread over DATA_CD_00 and DATA_CD_01).
  void WriteLine(uint64_t i) {
    auto d = RandomBytes(rng_, 8192);
    const uint32_t disk = i % 2;
    const uint64_t off = (i / 2) * 64 * kKiB + 4096;
    ASSERT_OK(WriteOne(cell_.get(), disk, off, d));
    model_->Write(disk, off, d);
  }
  // A cell with destage watermarks of 50 % and 20 % whose first quarter of
  // lines holds 8 KiB dirty each: below both marks, so a pass destages nothing.
  void MakeQuarterDirtyBelowTheWatermarks() {
    CellConfig c = SmallConfig();
    c.destage_high_watermark = 0.5;
    c.destage_low_watermark = 0.2;
    Make(c);
    ASSERT_GT(lines_, 10u);
    for (uint64_t i = 0; i < lines_ / 4; ++i) WriteLine(i);
    ASSERT_OK_AND_ASSIGN(uint64_t none, cell_->RunCleanerPass());
    EXPECT_EQ(none, 0u);
  }
  // Populates the whole cache with clean lines by reading disk data (written
  // past the cache to grid disk 2).
  void FillWithCleanLines() {
    auto bg = RandomBytes(rng_, 2 * kMiB);
    ASSERT_OK(WriteOne(cell_.get(), 2, 0, bg));  // bypass
    model_->Write(2, 0, bg);
    for (uint64_t i = 0; i < lines_; ++i) {
      ASSERT_OK(ReadOne(cell_.get(), 2, i * 64 * kKiB, 64 * kKiB).status());
    }
  }
  void ExpectRawDisksEqualModel() {
    testing::ExpectRawDisksEqualModel(io_.get(), Dir(), cell_.get(), *model_);
  }

  cellsim::testing::TempDir tmp_;
  ManualClock clock_;
  std::unique_ptr<io::IoBackend> io_;
  std::unique_ptr<Cell> cell_;
  std::unique_ptr<Model> model_;
  std::mt19937_64 rng_{7};
  uint64_t lines_ = 0;
};

TEST_F(CleanerTest, PassDestagesFromHighToLowWatermark) {
  // Below the high watermark a pass does nothing.
  MakeQuarterDirtyBelowTheWatermarks();
  if (HasFatalFailure()) return;
  const uint64_t cap = cell_->CacheCapacityBytes();
  // 8 KiB per line: fill every line with 32 KiB to cross 50 %.
  for (uint64_t i = 0; i < lines_; ++i) {
    for (int k = 0; k < 4; ++k) {
      auto d = RandomBytes(rng_, 8192);
      const uint64_t off = (i / 2) * 64 * kKiB + k * 16384;
      ASSERT_OK(WriteOne(cell_.get(), i % 2, off, d));
      model_->Write(i % 2, off, d);
    }
  }
  const uint64_t before = cell_->DirtyBytes();
  ASSERT_GT(static_cast<double>(before), 0.5 * static_cast<double>(cap));
  ASSERT_OK_AND_ASSIGN(uint64_t destaged, cell_->RunCleanerPass());
  EXPECT_GT(destaged, 0u);
  EXPECT_LE(static_cast<double>(cell_->DirtyBytes()), 0.2 * static_cast<double>(cap));
  EXPECT_EQ(before - cell_->DirtyBytes(), destaged);
  EXPECT_DOUBLE_EQ(MetricValue(cell_.get(), "FC_IO_BY_DISK_WRITE"), destaged / 1048576.0);
  // Destaged lines stay cached (clean) and everything reads back.
  EXPECT_GT(cell_->UsedBytes(), cell_->DirtyBytes());
  ASSERT_OK(VerifyAgainst(cell_.get(), *model_));
  ASSERT_OK(cell_->CheckConsistency());
}

// Small random writes dirty 8 KiB of each 64 KiB line: far below the high
// watermark in bytes, yet every such line pins its slot. The pass counts
// dirty lines too, so it destages before the cache runs out of clean slots.
TEST_F(CleanerTest, PassDestagesWhenDirtyLinesCrossTheHighWatermark) {
  MakeQuarterDirtyBelowTheWatermarks();  // a quarter of the lines: below both marks
  if (HasFatalFailure()) return;
  const uint64_t cap = cell_->CacheCapacityBytes();
  for (uint64_t i = lines_ / 4; i < lines_ * 3 / 4; ++i) WriteLine(i);
  const uint64_t before = cell_->DirtyBytes();
  ASSERT_LT(static_cast<double>(before), 0.5 * static_cast<double>(cap));  // bytes: below
  ASSERT_OK_AND_ASSIGN(uint64_t destaged, cell_->RunCleanerPass());
  EXPECT_GT(destaged, 0u);
  EXPECT_EQ(before - cell_->DirtyBytes(), destaged);
  // At most 20 % of the lines stay dirty, 8 KiB each.
  EXPECT_LE(cell_->DirtyBytes(), lines_ / 5 * 8192);
  ASSERT_OK(VerifyAgainst(cell_.get(), *model_));
  ASSERT_OK(cell_->CheckConsistency());
  Reopen();  // the dirty-line count is rebuilt from the journal
  ASSERT_OK(cell_->CheckConsistency());
  ASSERT_OK(VerifyAgainst(cell_.get(), *model_));
}

TEST_F(CleanerTest, CleanLinesAreEvictedUnderPressureWithoutDestage) {
  Make();
  FillWithCleanLines();
  if (HasFatalFailure()) return;
  EXPECT_EQ(cell_->UsedBytes(), cell_->CacheCapacityBytes());
  EXPECT_EQ(cell_->DirtyBytes(), 0u);
  // New writes evict clean lines; nothing needs to be destaged for that.
  for (uint64_t i = 0; i < lines_ / 2; ++i) WriteLine(i);
  EXPECT_EQ(MetricValue(cell_.get(), "FC_IO_RQ_DISK_WRITE"), 0);
  EXPECT_EQ(cell_->DirtyBytes(), (lines_ / 2) * 8192);
  ASSERT_OK(VerifyAgainst(cell_.get(), *model_));
  Reopen();
  ASSERT_OK(VerifyAgainst(cell_.get(), *model_));
}

// A pass keeps a reserve of free slots by evicting cold clean lines (no
// destage needed), so that writes of new lines find a slot free: each costs
// one sync (its own chunk), not an eviction of its own ahead of it as well.
TEST_F(CleanerTest, PassKeepsFreeSlotsSoNewLinesEvictNothingInline) {
  Make();
  FillWithCleanLines();
  if (HasFatalFailure()) return;
  ASSERT_EQ(cell_->UsedBytes(), cell_->CacheCapacityBytes());
  ASSERT_OK_AND_ASSIGN(uint64_t destaged, cell_->RunCleanerPass());
  EXPECT_EQ(destaged, 0u);
  const uint64_t freed = lines_ - cell_->UsedBytes() / (64 * kKiB);
  EXPECT_GE(freed, std::max<uint64_t>(8, lines_ / 32));
  EXPECT_EQ(MetricValue(cell_.get(), "FC_IO_RQ_DISK_WRITE"), 0);
  const uint64_t syncs0 = io_->Counters().syncs;
  for (uint64_t i = 0; i < freed; ++i) WriteLine(i);
  // (The pass's drop records are not synced by it: the first write finds the
  // reserve freed by unsynced records and syncs them once.)
  EXPECT_LE(io_->Counters().syncs - syncs0, freed + 1) << "a write evicted a line itself";
  ASSERT_OK(VerifyAgainst(cell_.get(), *model_));
  ASSERT_OK(cell_->CheckConsistency());
  Reopen();
  ASSERT_OK(cell_->CheckConsistency());
  ASSERT_OK(VerifyAgainst(cell_.get(), *model_));
}

TEST_F(CleanerTest, AllDirtyForcesDestageAndNothingIsLost) {
  Make();
  // Twice as many distinct lines as the cache holds, cleaner stopped.
  for (uint64_t i = 0; i < 2 * lines_; ++i) WriteLine(i);
  EXPECT_GT(MetricValue(cell_.get(), "FC_IO_RQ_DISK_WRITE"), 0);
  EXPECT_LE(cell_->DirtyBytes(), cell_->CacheCapacityBytes());
  ASSERT_OK(VerifyAgainst(cell_.get(), *model_));
  Reopen();
  ASSERT_OK(VerifyAgainst(cell_.get(), *model_));
  ASSERT_OK(cell_->CheckConsistency());
}

TEST_F(CleanerTest, FlushEndsWithZeroDirtyAndDisksAuthoritative) {
  Make();
  for (uint64_t i = 0; i < lines_ - 2; ++i) WriteLine(i);
  format::BlockTemplate t{.kind = format::BlockKind::kData, .block_size = 8192, .file_number = 3,
                          .file_blocks = 256};
  ASSERT_OK(FormatOne(cell_.get(), 3, 0, 2 * kMiB, t, 0, FormatMethod::kMetadataOnly));
  model_->Format(3, 0, 2 * kMiB, t, 0);
  const uint64_t dirty = cell_->DirtyBytes();
  std::vector<FlushProgress> seen;
  ASSERT_OK_AND_ASSIGN(FlushProgress p,
                       cell_->Flush([&](const FlushProgress& x) { seen.push_back(x); }));
  EXPECT_TRUE(p.done);
  EXPECT_EQ(p.dirty_bytes_remaining, 0u);
  EXPECT_EQ(p.bytes_destaged, dirty + 2 * kMiB);
  EXPECT_EQ(p.ranges_materialized, 1u);
  ASSERT_GE(seen.size(), 2u);
  for (size_t i = 1; i < seen.size(); ++i) {
    EXPECT_LE(seen[i].dirty_bytes_remaining, seen[i - 1].dirty_bytes_remaining);
    EXPECT_GE(seen[i].bytes_destaged, seen[i - 1].bytes_destaged);
  }
  EXPECT_EQ(cell_->DirtyBytes(), 0u);
  EXPECT_EQ(cell_->TemplateRangeCount(), 0u);
  EXPECT_DOUBLE_EQ(MetricValue(cell_.get(), "FC_BY_DIRTY"), 0);
  ExpectRawDisksEqualModel();
  Reopen();
  EXPECT_EQ(cell_->DirtyBytes(), 0u);
  ASSERT_OK(VerifyAgainst(cell_.get(), *model_));
}

TEST_F(CleanerTest, SwitchingToWriteThroughFlushesFirst) {
  Make();
  for (uint64_t i = 0; i < 6; ++i) WriteLine(i);
  format::BlockTemplate t{.kind = format::BlockKind::kRedo, .block_size = 512, .file_number = 1,
                          .file_blocks = 4096};
  ASSERT_OK(FormatOne(cell_.get(), 2, 0, 1 * kMiB, t, 0, FormatMethod::kMetadataOnly));
  model_->Format(2, 0, 1 * kMiB, t, 0);
  ASSERT_OK(cell_->SetFlashCacheMode(FlashCacheMode::kWriteThrough));
  EXPECT_EQ(cell_->DirtyBytes(), 0u);
  EXPECT_EQ(cell_->TemplateRangeCount(), 0u);
  ExpectRawDisksEqualModel();
  // Now writes go to disk before they are acknowledged.
  WriteLine(20);
  EXPECT_EQ(cell_->DirtyBytes(), 0u);
  ExpectRawDisksEqualModel();
  Reopen();
  EXPECT_EQ(cell_->flash_cache_mode(), FlashCacheMode::kWriteThrough);
  ASSERT_OK_AND_ASSIGN(CellDescription d, cell_->Describe());
  EXPECT_EQ(d.flash_cache_mode, FlashCacheMode::kWriteThrough);
  ASSERT_OK(cell_->SetFlashCacheMode(FlashCacheMode::kWriteBack));
  WriteLine(21);
  EXPECT_EQ(cell_->DirtyBytes(), 8192u);
  ASSERT_OK(VerifyAgainst(cell_.get(), *model_));
}

TEST_F(CleanerTest, LostFlashTurnsDirtyDataIntoLostRanges) {
  Make();
  WriteLine(0);
  WriteLine(1);
  ASSERT_OK(cell_->Flush({}).status());  // both on disk now: clean in the cache
  WriteLine(3);  // dirty: disk 1, line 1
  format::BlockTemplate t{.kind = format::BlockKind::kData, .block_size = 8192, .file_number = 1,
                          .file_blocks = 64};
  ASSERT_OK(FormatOne(cell_.get(), 2, 64 * kKiB, 128 * kKiB, t, 0, FormatMethod::kMetadataOnly));
  ASSERT_OK(cell_->LoseFlash());
  ASSERT_OK_AND_ASSIGN(std::vector<LostRange> lost, cell_->LostRanges());
  ASSERT_EQ(lost.size(), 2u);  // the dirty 8 KiB on disk 1 and the template range
  EXPECT_EQ(lost[0].grid_disk, 1u);
  EXPECT_EQ(lost[0].offset, 64 * kKiB + 4096);
  EXPECT_EQ(lost[0].length, 8192u);
  EXPECT_EQ(lost[1].grid_disk, 2u);
  EXPECT_EQ(lost[1].length, 128 * kKiB);
  EXPECT_EQ(cell_->DirtyBytes(), 0u);
  EXPECT_EQ(cell_->UsedBytes(), 0u);
  EXPECT_EQ(ReadOne(cell_.get(), 1, 64 * kKiB, 64 * kKiB).status().code(),
            absl::StatusCode::kDataLoss);
  EXPECT_EQ(ReadOne(cell_.get(), 2, 64 * kKiB + 4096, 4096).status().code(),
            absl::StatusCode::kDataLoss);
  // Clean (destaged) and untouched data is fine, from disk.
  ASSERT_OK_AND_ASSIGN(auto d0, ReadOne(cell_.get(), 0, 4096, 8192));
  EXPECT_TRUE(std::equal(d0.begin(), d0.end(), model_->disk(0).begin() + 4096));
  ASSERT_OK(ReadOne(cell_.get(), 1, 128 * kKiB, 64 * kKiB).status());
  // A sub-page write over a lost page cannot be merged.
  std::vector<uint8_t> small(512, 1);
  EXPECT_EQ(WriteOne(cell_.get(), 1, 64 * kKiB + 4096 + 512, small).code(),
            absl::StatusCode::kDataLoss);
  // Lost ranges survive a restart.
  Reopen();
  ASSERT_OK_AND_ASSIGN(std::vector<LostRange> again, cell_->LostRanges());
  EXPECT_EQ(again.size(), lost.size());
  // Rewriting (as ASM resync would) heals them: a write, a re-format.
  for (const LostRange& r : again) {
    if (r.grid_disk == 2) {
      ASSERT_OK(FormatOne(cell_.get(), 2, r.offset, r.length, t, 0, FormatMethod::kWriteBlocks));
    } else {
      std::vector<uint8_t> fresh(r.length, 0x33);
      ASSERT_OK(WriteOne(cell_.get(), r.grid_disk, r.offset, fresh));
    }
  }
  ASSERT_OK_AND_ASSIGN(std::vector<LostRange> none, cell_->LostRanges());
  EXPECT_TRUE(none.empty());
  ASSERT_OK(ReadOne(cell_.get(), 1, 64 * kKiB, 64 * kKiB).status());
  ASSERT_OK(cell_->CheckConsistency());
}

}  // namespace
}  // namespace cellsim::cell
