// Cell basics: lifecycle, write-back vs write-through, bypass, partial writes,
// read population, counters and their documented rules (docs/cell.md).
#include "cellsim/cell/cell.h"

#include <filesystem>

#include "cell_test_util.h"
#include "cellsim/io/block_file.h"

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

class CellTest : public ::testing::Test {
 protected:
  void SetUp() override { io_ = io::MakePosixBackend(); }
  std::string Dir() const { return tmp_.File("cel01"); }
  std::unique_ptr<Cell> MakeCell(CellConfig c = SmallConfig()) {
    auto cell = Cell::Create(io_.get(), &clock_, Dir(), c, {.start_cleaner = false});
    EXPECT_TRUE(cell.ok()) << cell.status();
    return cell.ok() ? std::move(*cell) : nullptr;
  }
  std::unique_ptr<Cell> Reopen(std::unique_ptr<Cell> cell) {
    EXPECT_OK(cell->Close());
    cell.reset();
    auto again = Cell::Open(io_.get(), &clock_, Dir(), {.start_cleaner = false});
    EXPECT_TRUE(again.ok()) << again.status();
    return again.ok() ? std::move(*again) : nullptr;
  }
  // Bytes of a grid disk file read directly, bypassing the cell.
  std::vector<uint8_t> RawDisk(const std::string& name, uint64_t off, uint64_t len) {
    auto f = io::BlockFile::Open(io_.get(), Dir() + "/" + name + ".img", {.block_size = 4096});
    EXPECT_TRUE(f.ok()) << f.status();
    std::vector<uint8_t> buf(len);
    EXPECT_OK((*f)->Read(off, absl::MakeSpan(buf)));
    return buf;
  }

  cellsim::testing::TempDir tmp_;
  ManualClock clock_;
  std::unique_ptr<io::IoBackend> io_;
  std::mt19937_64 rng_{42};
};

TEST_F(CellTest, CreateDescribeAndNames) {
  auto cell = MakeCell();
  ASSERT_NE(cell, nullptr);
  ASSERT_OK_AND_ASSIGN(CellDescription d, cell->Describe());
  EXPECT_EQ(d.name, "cel01");
  ASSERT_EQ(d.grid_disks.size(), 4u);
  EXPECT_EQ(d.grid_disks[0].name, "DATA_CD_00_cel01");
  EXPECT_EQ(d.grid_disks[1].name, "DATA_CD_01_cel01");
  EXPECT_EQ(d.grid_disks[2].name, "RECO_CD_00_cel01");
  EXPECT_EQ(d.grid_disks[3].cell_disk, "CD_01_cel01");
  EXPECT_EQ(d.grid_disks[2].size_bytes, 2 * kMiB);
  EXPECT_EQ(d.flash_device, "FD_00_cel01");
  EXPECT_EQ(d.flash_cache_mode, FlashCacheMode::kWriteBack);
  EXPECT_GT(d.flash_cache_size_bytes, 0u);
  EXPECT_LT(d.flash_cache_size_bytes, d.flash_size_bytes);
  EXPECT_EQ(d.creation_time_unix, clock_.UnixSeconds());
  EXPECT_EQ(*cell->GridDiskIndex("RECO_CD_01_cel01"), 3u);
  EXPECT_EQ(cell->GridDiskIndex("DATA_CD_09_cel01").status().code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(std::filesystem::exists(Dir() + "/DATA_CD_00_cel01.img"));
  EXPECT_TRUE(std::filesystem::exists(Dir() + "/flash.img"));
  // Sparse: creating the cell wrote metadata only.
  EXPECT_LT(cellsim::testing::AllocatedBytes(Dir() + "/DATA_CD_00_cel01.img"), 64 * kKiB);
  auto again = Cell::Create(io_.get(), &clock_, Dir(), SmallConfig(), {.start_cleaner = false});
  EXPECT_EQ(again.status().code(), absl::StatusCode::kAlreadyExists);
}

TEST_F(CellTest, OpenOfMissingCellAndBadConfigsFailClearly) {
  auto none = Cell::Open(io_.get(), &clock_, tmp_.File("nothing"), {});
  EXPECT_EQ(none.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(none.status().message()), ::testing::HasSubstr("flash.img"));
  CellConfig c = SmallConfig();
  c.cache_line_size = 3000;
  auto bad = Cell::Create(io_.get(), &clock_, tmp_.File("b1"), c, {});
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad.status().message()), ::testing::HasSubstr("3000"));
  c = SmallConfig();
  c.destage_low_watermark = 0.9;
  EXPECT_EQ(Cell::Create(io_.get(), &clock_, tmp_.File("b2"), c, {}).status().code(),
            absl::StatusCode::kInvalidArgument);
  c = SmallConfig();
  c.flash_size_bytes = 256 * kKiB;  // no room for 4 lines after the metadata
  EXPECT_EQ(Cell::Create(io_.get(), &clock_, tmp_.File("b3"), c, {}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(CellTest, RequestValidationNamesTheGridDisk) {
  auto cell = MakeCell();
  std::vector<uint8_t> buf(4096);
  absl::Status s = WriteOne(cell.get(), 2, 2 * kMiB - 2048, buf);
  EXPECT_EQ(s.code(), absl::StatusCode::kOutOfRange);
  EXPECT_THAT(std::string(s.message()), ::testing::HasSubstr("RECO_CD_00_cel01"));
  EXPECT_EQ(WriteOne(cell.get(), 0, 100, buf).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(WriteOne(cell.get(), 7, 0, buf).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ReadOne(cell.get(), 0, 0, 0).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(CellTest, WriteBackKeepsDataInFlashAcrossReopen) {
  auto cell = MakeCell();
  Model model(cell->config());
  for (int i = 0; i < 20; ++i) {
    const uint64_t off = (rng_() % 512) * 8192;
    auto data = RandomBytes(rng_, 8192);
    ASSERT_OK(WriteOne(cell.get(), 0, off, data));
    model.Write(0, off, data);
  }
  ASSERT_OK(VerifyAgainst(cell.get(), model));
  const uint64_t dirty = cell->DirtyBytes();
  EXPECT_GT(dirty, 0u);
  // Nothing reached the grid disk: write-back acknowledged on flash.
  auto raw = RawDisk("DATA_CD_00_cel01", 0, 4 * kMiB);
  EXPECT_TRUE(std::all_of(raw.begin(), raw.end(), [](uint8_t v) { return v == 0; }));
  cell = Reopen(std::move(cell));
  ASSERT_NE(cell, nullptr);
  EXPECT_EQ(cell->DirtyBytes(), dirty);
  ASSERT_OK(VerifyAgainst(cell.get(), model));
  ASSERT_OK(cell->CheckConsistency());
}

TEST_F(CellTest, WriteThroughWritesDiskBeforeAck) {
  CellConfig c = SmallConfig();
  c.flash_cache_mode = FlashCacheMode::kWriteThrough;
  auto cell = MakeCell(c);
  auto data = RandomBytes(rng_, 8192);
  CellIoStats st;
  ASSERT_OK(WriteOne(cell.get(), 1, 65536, data, &st));
  EXPECT_EQ(RawDisk("DATA_CD_01_cel01", 65536, 8192), data);
  EXPECT_EQ(cell->DirtyBytes(), 0u);
  EXPECT_EQ(st.flash_cache_writes, 0u);
  EXPECT_EQ(st.disk_bytes_written, 8192u);
  EXPECT_EQ(MetricValue(cell.get(), "FC_IO_RQ_W"), 0);
  EXPECT_EQ(MetricValue(cell.get(), "CD_IO_RQ_W_SM", "CD_01_cel01"), 1);
  EXPECT_EQ(MetricValue(cell.get(), "CD_IO_RQ_W_SM", "CD_00_cel01"), 0);
  // Reads populate the cache, later writes keep it coherent.
  ASSERT_OK_AND_ASSIGN(auto r1, ReadOne(cell.get(), 1, 65536, 8192));
  EXPECT_EQ(r1, data);
  EXPECT_GT(cell->UsedBytes(), 0u);
  auto data2 = RandomBytes(rng_, 4096);
  ASSERT_OK(WriteOne(cell.get(), 1, 65536 + 2048, data2));
  std::memcpy(data.data() + 2048, data2.data(), 4096);
  CellIoStats rs;
  ASSERT_OK_AND_ASSIGN(auto r2, ReadOne(cell.get(), 1, 65536, 8192, &rs));
  EXPECT_EQ(r2, data);
  EXPECT_EQ(RawDisk("DATA_CD_01_cel01", 65536, 8192), data);
  // Fast creation needs write-back.
  format::BlockTemplate t{.kind = format::BlockKind::kData, .block_size = 8192,
                          .file_number = 1, .file_blocks = 64};
  EXPECT_EQ(FormatOne(cell.get(), 0, 0, 512 * kKiB, t, 0, FormatMethod::kMetadataOnly).code(),
            absl::StatusCode::kFailedPrecondition);
  bool fast = true;
  ASSERT_OK(FormatOne(cell.get(), 0, 0, 512 * kKiB, t, 0, FormatMethod::kAuto, nullptr, &fast));
  EXPECT_FALSE(fast);
}

TEST_F(CellTest, LargeWritesBypassTheCacheAndInvalidateIt) {
  auto cell = MakeCell();
  Model model(cell->config());
  auto small = RandomBytes(rng_, 8192);
  ASSERT_OK(WriteOne(cell.get(), 0, 128 * kKiB + 4096, small));
  model.Write(0, 128 * kKiB + 4096, small);
  EXPECT_EQ(cell->DirtyBytes(), 8192u);
  // A 512 KiB write (>= the 256 KiB bypass threshold) starting mid-page over it.
  auto big = RandomBytes(rng_, 512 * kKiB);
  CellIoStats st;
  ASSERT_OK(WriteOne(cell.get(), 0, 64 * kKiB + 512, big, &st));
  model.Write(0, 64 * kKiB + 512, big);
  EXPECT_EQ(st.flash_cache_writes, 0u);
  EXPECT_EQ(cell->DirtyBytes(), 0u);
  ASSERT_OK(VerifyAgainst(cell.get(), model));
  EXPECT_EQ(RawDisk("DATA_CD_00_cel01", 0, 4 * kMiB), model.disk(0));
  EXPECT_EQ(MetricValue(cell.get(), "CD_IO_RQ_W_LG", "CD_00_cel01"), 1);
  cell = Reopen(std::move(cell));
  ASSERT_OK(VerifyAgainst(cell.get(), model));
}

TEST_F(CellTest, SubPageWritesMergeWithEverySource) {
  auto cell = MakeCell();
  Model model(cell->config());
  // Background data on disk (bypass), then 512-byte writes on cached,
  // uncached and template pages.
  auto bg = RandomBytes(rng_, 1 * kMiB);
  ASSERT_OK(WriteOne(cell.get(), 2, 0, bg));
  model.Write(2, 0, bg);
  format::BlockTemplate t{.kind = format::BlockKind::kRedo, .block_size = 512,
                          .file_number = 3, .file_blocks = 4096};
  ASSERT_OK(FormatOne(cell.get(), 2, 1 * kMiB, 1 * kMiB, t, 0, FormatMethod::kMetadataOnly));
  model.Format(2, 1 * kMiB, 1 * kMiB, t, 0);
  for (int i = 0; i < 200; ++i) {
    const uint64_t off = (rng_() % (2 * kMiB / 512)) * 512;
    const uint64_t len = std::min<uint64_t>(512 * (1 + rng_() % 20), 2 * kMiB - off);
    auto data = RandomBytes(rng_, len);
    ASSERT_OK(WriteOne(cell.get(), 2, off, data));
    model.Write(2, off, data);
  }
  ASSERT_OK(VerifyAgainst(cell.get(), model, 12 * 1024));
  ASSERT_OK(cell->CheckConsistency());
  cell = Reopen(std::move(cell));
  ASSERT_OK(VerifyAgainst(cell.get(), model, 12 * 1024));
}

// cachingPolicy=none (RECO's, created so; DATA_CD_01 altered so): the grid
// disk's small writes go to disk before the ack, its read misses do not
// populate, fast creation is refused there (kAuto takes the smart path); the
// policy survives a reopen; switching to none destages the dirty lines first.
TEST_F(CellTest, CachingPolicyNoneKeepsAGridDiskOffTheCache) {
  CellConfig c = SmallConfig();
  c.grid_disks[1].caching_policy = CachingPolicy::kNone;  // RECO
  auto cell = MakeCell(c);
  ASSERT_OK_AND_ASSIGN(CellDescription d, cell->Describe());
  ASSERT_EQ(d.grid_disks.size(), 4u);
  EXPECT_EQ(d.grid_disks[0].caching_policy, CachingPolicy::kDefault);
  EXPECT_EQ(d.grid_disks[2].caching_policy, CachingPolicy::kNone);  // RECO_CD_00_cel01
  auto data = RandomBytes(rng_, 8192);
  CellIoStats st;
  ASSERT_OK(WriteOne(cell.get(), 2, 65536, data, &st));
  EXPECT_EQ(st.flash_cache_writes, 0u);
  EXPECT_EQ(RawDisk("RECO_CD_00_cel01", 65536, 8192), data);
  EXPECT_EQ(cell->DirtyBytes(), 0u);
  EXPECT_EQ(MetricValue(cell.get(), "FC_IO_RQ_W_SKIP"), 1);
  ASSERT_OK_AND_ASSIGN(auto back, ReadOne(cell.get(), 2, 65536, 8192));
  EXPECT_EQ(back, data);
  EXPECT_EQ(cell->UsedBytes(), 0u);  // no read population
  format::BlockTemplate t{.kind = format::BlockKind::kData, .block_size = 8192,
                          .file_number = 1, .file_blocks = 64};
  EXPECT_EQ(FormatOne(cell.get(), 2, 0, 512 * kKiB, t, 0, FormatMethod::kMetadataOnly).code(),
            absl::StatusCode::kFailedPrecondition);
  bool fast = true;
  ASSERT_OK(FormatOne(cell.get(), 3, 0, 512 * kKiB, t, 0, FormatMethod::kAuto, nullptr, &fast));
  EXPECT_FALSE(fast);

  // DATA_CD_01 holds a dirty line; ALTER GRIDDISK ... cachingPolicy='none'.
  auto dirty = RandomBytes(rng_, 8192);
  ASSERT_OK(WriteOne(cell.get(), 1, 0, dirty));
  EXPECT_EQ(cell->DirtyBytes(), 8192u);
  EXPECT_EQ(cell->SetCachingPolicy("NO_SUCH_DISK", CachingPolicy::kNone).code(),
            absl::StatusCode::kNotFound);
  ASSERT_OK(cell->SetCachingPolicy("DATA_CD_01_cel01", CachingPolicy::kNone));
  EXPECT_EQ(cell->DirtyBytes(), 0u);
  EXPECT_EQ(RawDisk("DATA_CD_01_cel01", 0, 8192), dirty);
  // Its clean line stays coherent with the disk writes that follow.
  auto over = RandomBytes(rng_, 4096);
  ASSERT_OK(WriteOne(cell.get(), 1, 4096, over));
  std::memcpy(dirty.data() + 4096, over.data(), 4096);
  ASSERT_OK_AND_ASSIGN(auto again, ReadOne(cell.get(), 1, 0, 8192));
  EXPECT_EQ(again, dirty);
  cell = Reopen(std::move(cell));
  ASSERT_NE(cell, nullptr);
  ASSERT_OK_AND_ASSIGN(d, cell->Describe());
  EXPECT_EQ(d.grid_disks[0].caching_policy, CachingPolicy::kDefault);
  EXPECT_EQ(d.grid_disks[1].caching_policy, CachingPolicy::kNone);
  EXPECT_EQ(d.grid_disks[2].caching_policy, CachingPolicy::kNone);
  ASSERT_OK_AND_ASSIGN(again, ReadOne(cell.get(), 1, 0, 8192));
  EXPECT_EQ(again, dirty);
  // Back to default: its writes are cached again.
  ASSERT_OK(cell->SetCachingPolicy("DATA_CD_01_cel01", CachingPolicy::kDefault));
  CellIoStats wb;
  ASSERT_OK(WriteOne(cell.get(), 1, 131072, data, &wb));
  EXPECT_EQ(wb.flash_cache_writes, 1u);
  ASSERT_OK(cell->CheckConsistency());
}

TEST_F(CellTest, ReadMissPopulatesThenHits) {
  auto cell = MakeCell();
  auto bg = RandomBytes(rng_, 512 * kKiB);
  ASSERT_OK(WriteOne(cell.get(), 1, 0, bg));  // bypass: on disk only
  EXPECT_EQ(cell->UsedBytes(), 0u);
  CellIoStats s1;
  ASSERT_OK_AND_ASSIGN(auto r1, ReadOne(cell.get(), 1, 8192, 16384, &s1));
  EXPECT_TRUE(std::equal(r1.begin(), r1.end(), bg.begin() + 8192));
  EXPECT_EQ(s1.flash_cache_read_hits, 0u);
  EXPECT_EQ(s1.disk_bytes_read, 16384u);
  EXPECT_EQ(MetricValue(cell.get(), "FC_IO_RQ_R_MISS"), 1);
  EXPECT_EQ(MetricValue(cell.get(), "FC_IO_RQ_W_POPULATE"), 1);
  EXPECT_EQ(cell->UsedBytes(), 16384u);
  EXPECT_EQ(cell->DirtyBytes(), 0u);
  CellIoStats s2;
  ASSERT_OK_AND_ASSIGN(auto r2, ReadOne(cell.get(), 1, 8192, 16384, &s2));
  EXPECT_EQ(r1, r2);
  EXPECT_EQ(s2.flash_cache_read_hits, 1u);
  EXPECT_EQ(s2.disk_bytes_read, 0u);
  EXPECT_EQ(s2.flash_bytes_read, 16384u);
  EXPECT_EQ(MetricValue(cell.get(), "FC_IO_RQ_R"), 1);
  // Mixed: part cached, part disk -> a miss, not a hit.
  CellIoStats s3;
  ASSERT_OK(ReadOne(cell.get(), 1, 0, 32768, &s3).status());
  EXPECT_EQ(s3.flash_cache_read_hits, 0u);
  EXPECT_EQ(MetricValue(cell.get(), "FC_IO_RQ_R_MISS"), 2);
  // A read at or above read_populate_max_bytes does not populate.
  const uint64_t used = cell->UsedBytes();
  ASSERT_OK(ReadOne(cell.get(), 1, 256 * kKiB, 256 * kKiB).status());
  EXPECT_EQ(cell->UsedBytes(), used);
  EXPECT_EQ(MetricValue(cell.get(), "CD_IO_RQ_R_LG", "CD_01_cel01"), 1);
  // Population survives a reopen (clean lines are journaled too).
  cell = Reopen(std::move(cell));
  CellIoStats s4;
  ASSERT_OK(ReadOne(cell.get(), 1, 8192, 16384, &s4).status());
  EXPECT_EQ(s4.flash_cache_read_hits, 1u);
}

TEST_F(CellTest, WriteCountersFollowTheDocumentedRules) {
  auto cell = MakeCell();
  auto d = RandomBytes(rng_, 16384);
  CellIoStats a, b, c, e;
  ASSERT_OK(WriteOne(cell.get(), 0, 0, d, &a));  // first write of line 0
  EXPECT_EQ(a.flash_cache_writes, 1u);
  EXPECT_EQ(a.flash_cache_overwrites, 0u);
  EXPECT_EQ(a.flash_cache_partial_writes, 1u);  // 16 KiB of a 64 KiB line
  ASSERT_OK(WriteOne(cell.get(), 0, 32768, d, &b));  // same line, already dirty
  EXPECT_EQ(b.flash_cache_overwrites, 1u);
  auto full = RandomBytes(rng_, 64 * kKiB);
  ASSERT_OK(WriteOne(cell.get(), 0, 64 * kKiB, full, &c));  // a whole new line
  EXPECT_EQ(c.flash_cache_partial_writes, 0u);
  EXPECT_EQ(c.flash_cache_overwrites, 0u);
  // A batch of 3 requests: counted per request.
  std::vector<WriteRequest> w = {{.grid_disk = 1, .offset = 0, .data = d},
                                 {.grid_disk = 1, .offset = 1 * kMiB, .data = d},
                                 {.grid_disk = 0, .offset = 4096, .data = d}};
  ASSERT_OK(cell->Write(absl::MakeSpan(w), &e));
  EXPECT_EQ(e.flash_cache_writes, 3u);
  EXPECT_EQ(e.flash_cache_overwrites, 1u);
  EXPECT_EQ(MetricValue(cell.get(), "FC_IO_RQ_W"), 6);
  EXPECT_EQ(MetricValue(cell.get(), "FC_IO_RQ_W_OVERWRITE"), 2);
  EXPECT_EQ(MetricValue(cell.get(), "FC_IO_RQ_W_FIRST"), 4);
  EXPECT_DOUBLE_EQ(MetricValue(cell.get(), "FC_IO_BY_W"), (5 * 16384 + 65536) / 1048576.0);
  EXPECT_DOUBLE_EQ(MetricValue(cell.get(), "FC_BY_DIRTY"), cell->DirtyBytes() / 1048576.0);
  EXPECT_DOUBLE_EQ(MetricValue(cell.get(), "FC_BY_USED"), cell->UsedBytes() / 1048576.0);
  EXPECT_EQ(MetricValue(cell.get(), "FC_IO_RQ_DISK_WRITE"), 0);
  ASSERT_OK(cell->Flush({}).status());
  EXPECT_GT(MetricValue(cell.get(), "FC_IO_RQ_DISK_WRITE"), 0);
  EXPECT_DOUBLE_EQ(MetricValue(cell.get(), "FC_IO_BY_DISK_WRITE"),
                   (9 * 4096 + 65536 + 2 * 16384) / 1048576.0);  // dirty pages, once each
  for (const char* n : {"CD_IO_RQ_W_LG", "CD_IO_RQ_W_SM", "CD_IO_BY_W_LG", "CD_IO_BY_W_SM",
                        "CD_IO_RQ_R_LG", "CD_IO_RQ_R_SM"}) {
    EXPECT_GE(MetricValue(cell.get(), n, "CD_00_cel01"), 0) << n;
  }
}

TEST_F(CellTest, BatchesCostOneJournalSync) {
  auto cell = MakeCell();
  std::vector<std::vector<uint8_t>> bufs;
  std::vector<WriteRequest> w;
  for (int i = 0; i < 16; ++i) {
    bufs.push_back(RandomBytes(rng_, 8192));
    w.push_back({.grid_disk = static_cast<uint32_t>(i % 4), .offset = (i / 4) * 65536ull,
                 .data = bufs.back()});
  }
  const io::IoBackendCounters before = io_->Counters();
  CellIoStats st;
  ASSERT_OK(cell->Write(absl::MakeSpan(w), &st));
  const io::IoBackendCounters after = io_->Counters();
  // One fdatasync for the data and the journal chunk that carries it too.
  EXPECT_EQ(after.syncs - before.syncs, 1u);
  EXPECT_EQ(st.flash_cache_writes, 16u);
}

// A durable write-back write whose slot pages are allocated in flash.img is one
// submission (chunk and slot pages together) and one fdatasync, like fio's
// pwrite + fdatasync; pages that may be holes are written first (a full
// filesystem must fail them before a record names them).
TEST_F(CellTest, DurableCacheWriteIsOneSubmissionAndOneSync) {
  auto cell = MakeCell();
  const std::vector<uint8_t> a = RandomBytes(rng_, 8192), b = RandomBytes(rng_, 8192);
  auto write = [&](const std::vector<uint8_t>& data) {
    std::vector<WriteRequest> w = {{.grid_disk = 0, .offset = 64 * kKiB, .data = data}};
    const io::IoBackendCounters before = io_->Counters();
    EXPECT_OK(cell->Write(absl::MakeSpan(w), nullptr));
    const io::IoBackendCounters after = io_->Counters();
    EXPECT_EQ(after.syncs - before.syncs, 1u);
    return after.submits - before.submits;
  };
  EXPECT_EQ(write(a), 2u);  // sparse flash.img: the slot pages first, then the chunk
  EXPECT_EQ(write(b), 1u);  // the same pages again: allocated now
  // Open finds the allocated pages (SEEK_DATA) and keeps the one submission.
  cell = Reopen(std::move(cell));
  EXPECT_EQ(write(a), 1u);
  ASSERT_OK_AND_ASSIGN(auto got, ReadOne(cell.get(), 0, 64 * kKiB, 8192));
  EXPECT_EQ(got, a);
  cell = Reopen(std::move(cell));
  ASSERT_OK_AND_ASSIGN(got, ReadOne(cell.get(), 0, 64 * kKiB, 8192));
  EXPECT_EQ(got, a);
}

TEST_F(CellTest, LaidOutFlashHasNoHolesAndWritesInOneSubmission) {
  auto cell = Cell::Create(io_.get(), &clock_, Dir(), SmallConfig(),
                           {.start_cleaner = false, .lay_out_flash = true});
  ASSERT_TRUE(cell.ok()) << cell.status();
  EXPECT_GE(cellsim::testing::AllocatedBytes(Dir() + "/flash.img"),
            SmallConfig().flash_size_bytes - 64 * kKiB);
  const std::vector<uint8_t> a = RandomBytes(rng_, 8192);
  std::vector<WriteRequest> w = {{.grid_disk = 1, .offset = 128 * kKiB + 4096, .data = a}};
  const io::IoBackendCounters before = io_->Counters();
  ASSERT_OK((*cell)->Write(absl::MakeSpan(w), nullptr));
  const io::IoBackendCounters after = io_->Counters();
  EXPECT_EQ(after.submits - before.submits, 1u);
  EXPECT_EQ(after.syncs - before.syncs, 1u);
  std::unique_ptr<Cell> c = Reopen(std::move(*cell));
  ASSERT_OK_AND_ASSIGN(auto got, ReadOne(c.get(), 1, 128 * kKiB + 4096, 8192));
  EXPECT_EQ(got, a);
}

TEST_F(CellTest, TemplateRoomCountsOneSlotPerFreshRange) {
  CellConfig c = SmallConfig();
  c.max_template_ranges = 4;
  auto cell = MakeCell(c);
  format::BlockTemplate t{.kind = format::BlockKind::kData, .block_size = 8192, .file_number = 7,
                          .file_blocks = 64};
  auto req = [&](uint64_t offset, uint64_t length) {
    return FormatRangeRequest{.grid_disk = 0, .offset = offset, .length = length,
                              .block_template = t, .file_offset = offset,
                              .method = FormatMethod::kMetadataOnly};
  };
  // Four ranges on fresh space take one slot each: all four fit.
  std::vector<FormatRangeRequest> f;
  for (uint64_t i = 0; i < 4; ++i) f.push_back(req(i * 128 * kKiB, 64 * kKiB));
  ASSERT_OK(cell->FormatRange(absl::MakeSpan(f), nullptr));
  EXPECT_EQ(cell->TemplateRangeCount(), 4u);
  // A fifth is refused before anything is written, as a request error (the
  // disk is fine), saying how much room there is.
  std::vector<FormatRangeRequest> g = {req(1 * kMiB, 64 * kKiB)};
  absl::Status s = cell->FormatRange(absl::MakeSpan(g), nullptr);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_NE(std::string(s.message()).find("room for 4"), std::string::npos) << s;
  EXPECT_EQ(cell->TemplateRangeCount(), 4u);
}

TEST_F(CellTest, FastCreationOf16GiBIsOneJournalWrite) {
  CellConfig c = SmallConfig();
  c.grid_disks = {{"DATA", 8 * kGiB}};
  c.max_template_ranges = 8192;
  c.journal_bytes = 1 * kMiB;
  c.flash_size_bytes = 8 * kMiB;
  auto cell = MakeCell(c);
  format::BlockTemplate t{.kind = format::BlockKind::kRedo, .block_size = 512, .file_number = 5,
                          .file_blocks = 8 * kMiB};
  std::vector<FormatRangeRequest> f;
  for (uint64_t i = 0; i < 4096; ++i) {
    f.push_back({.grid_disk = static_cast<uint32_t>(i % 2), .offset = (i / 2) * 4 * kMiB,
                 .length = 4 * kMiB, .block_template = t, .file_offset = i * 4 * kMiB,
                 .method = FormatMethod::kMetadataOnly});
  }
  const io::IoBackendCounters before = io_->Counters();
  CellIoStats st;
  ASSERT_OK(cell->FormatRange(absl::MakeSpan(f), &st));
  const io::IoBackendCounters after = io_->Counters();
  EXPECT_EQ(after.syncs - before.syncs, 1u);
  EXPECT_EQ(after.writes - before.writes, 1u);
  EXPECT_EQ(st.bytes_saved_by_creation, 16 * kGiB);
  EXPECT_LT(st.metadata_bytes_written, 1 * kMiB);
  EXPECT_EQ(cell->TemplateRangeCount(), 4096u);
  for (const FormatRangeRequest& r : f) EXPECT_TRUE(r.metadata_only);
  EXPECT_LT(cellsim::testing::AllocatedBytes(Dir() + "/DATA_CD_00_cel01.img"), 64 * kKiB);
  // A read deep inside returns generated redo blocks, counted as generated.
  CellIoStats rs;
  ASSERT_OK_AND_ASSIGN(auto blk, ReadOne(cell.get(), 1, 4 * kGiB - 4096, 4096, &rs));
  EXPECT_EQ(rs.generated_reads, 1u);
  EXPECT_EQ(rs.generated_bytes, 4096u);
  EXPECT_EQ(rs.disk_bytes_read + rs.flash_bytes_read, 0u);
  // Disk 1 offset X holds file offset 2 * X + 4 MiB - (X % 4 MiB) ... check via template.
  const uint64_t file_off = (2 * ((4 * kGiB - 4096) / (4 * kMiB)) + 1) * 4 * kMiB + 4 * kMiB - 4096;
  EXPECT_OK(format::VerifyBlock(t, file_off / 512, absl::MakeSpan(blk).subspan(0, 512)));
  cell = Reopen(std::move(cell));
  EXPECT_EQ(cell->TemplateRangeCount(), 4096u);
}

// Issue 11: the metric counters are stored with the cell's metadata, so a
// reopened cell (another process) continues from them; a read-only open shows
// them and changes nothing.
TEST_F(CellTest, MetricsAreCumulativeAcrossReopens) {
  auto cell = MakeCell();
  for (int i = 0; i < 5; ++i) ASSERT_OK(WriteOne(cell.get(), 0, i * 128 * kKiB, RandomBytes(rng_, 8192)));
  ASSERT_OK(WriteOne(cell.get(), 1, 0, RandomBytes(rng_, 512 * kKiB)));  // bypasses the cache
  const double rq_w = MetricValue(cell.get(), "FC_IO_RQ_W");
  const double lg = MetricValue(cell.get(), "CD_IO_BY_W_LG");
  const double skip = MetricValue(cell.get(), "FC_IO_RQ_W_SKIP");
  ASSERT_EQ(rq_w, 5);
  ASSERT_GT(lg, 0);
  ASSERT_EQ(skip, 1);
  cell = Reopen(std::move(cell));
  ASSERT_NE(cell, nullptr);
  EXPECT_EQ(MetricValue(cell.get(), "FC_IO_RQ_W"), rq_w);
  EXPECT_EQ(MetricValue(cell.get(), "CD_IO_BY_W_LG"), lg);
  EXPECT_EQ(MetricValue(cell.get(), "FC_IO_RQ_W_SKIP"), skip);
  ASSERT_OK(WriteOne(cell.get(), 0, 0, RandomBytes(rng_, 8192)));
  EXPECT_EQ(MetricValue(cell.get(), "FC_IO_RQ_W"), rq_w + 1);
  ASSERT_OK(cell->Close());
  cell.reset();
  auto ro = Cell::Open(io_.get(), &clock_, Dir(), {.start_cleaner = false, .read_only = true});
  ASSERT_OK(ro.status());
  EXPECT_EQ(MetricValue(ro->get(), "FC_IO_RQ_W"), rq_w + 1);
  ASSERT_OK((*ro)->Close());
}

// Issue 11: Discard forgets dirty lines and templates without writing them
// back (durably: a reopen does not bring them back), gives the space back to
// the filesystem, and leaves neighbouring data alone.
TEST_F(CellTest, DiscardDropsDirtyLinesAndTemplatesWithoutWriteBack) {
  auto cell = MakeCell();
  const format::BlockTemplate t{.kind = format::BlockKind::kData, .block_size = 8192,
                                .file_number = 3, .file_blocks = 128};
  ASSERT_OK(FormatOne(cell.get(), 0, 1 * kMiB, 1 * kMiB, t, 0, FormatMethod::kMetadataOnly));
  ASSERT_OK(WriteOne(cell.get(), 0, 1 * kMiB + 64 * kKiB, RandomBytes(rng_, 8192)));
  const auto keep = RandomBytes(rng_, 8192);
  ASSERT_OK(WriteOne(cell.get(), 0, 0, keep));  // outside the discarded range
  ASSERT_OK(WriteOne(cell.get(), 0, 2 * kMiB, RandomBytes(rng_, 512 * kKiB)));  // to disk
  ASSERT_GT(cell->TemplateRangeCount(), 0u);
  const uint64_t keep_dirty = 8192;
  std::vector<DiscardRequest> d = {{.grid_disk = 0, .offset = 1 * kMiB, .length = 2 * kMiB}};
  CellIoStats st;
  ASSERT_OK(cell->Discard(absl::MakeSpan(d), &st));
  EXPECT_EQ(cell->TemplateRangeCount(), 0u);
  EXPECT_EQ(cell->DirtyBytes(), keep_dirty);
  ASSERT_OK(cell->CheckConsistency());
  cell = Reopen(std::move(cell));
  ASSERT_NE(cell, nullptr);
  EXPECT_EQ(cell->TemplateRangeCount(), 0u);
  EXPECT_EQ(cell->DirtyBytes(), keep_dirty);
  absl::StatusOr<FlushProgress> f = cell->Flush({});
  ASSERT_OK(f.status());
  EXPECT_EQ(f->bytes_destaged, keep_dirty);
  EXPECT_EQ(f->ranges_materialized, 0u);
  EXPECT_EQ(ReadOne(cell.get(), 0, 0, 8192).value(), keep);
  // The discarded range reads as zeros (hole punched) and the disk is sparse there.
  const auto raw = RawDisk("DATA_CD_00_cel01", 1 * kMiB, 2 * kMiB);
  EXPECT_TRUE(std::all_of(raw.begin(), raw.end(), [](uint8_t v) { return v == 0; }));
  // Bad requests are refused naming the grid disk.
  d = {{.grid_disk = 0, .offset = 100, .length = 4096}};
  EXPECT_EQ(cell->Discard(absl::MakeSpan(d), &st).code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace cellsim::cell
