// Concurrent requests on one cell with the background cleaner running: threads
// own disjoint byte ranges (some sharing cache lines) and check their own
// data; a flusher thread flushes and reads metrics meanwhile. Run under TSan.
#include <atomic>
#include <chrono>
#include <filesystem>
#include <thread>

#include "cell_test_util.h"
#include "cellsim/base/mutex.h"
#include "cellsim/io/fault_injection.h"

namespace cellsim::cell {
namespace {

using testing::FormatOne;
using testing::Model;
using testing::RandomBytes;
using testing::ReadOne;
using testing::SmallConfig;
using testing::VerifyAgainst;
using testing::WriteOne;

TEST(ConcurrencyTest, ParallelRequestsCleanerAndFlush) {
  cellsim::testing::TempDir tmp;
  auto io = io::MakePosixBackend();
  ManualClock clock;
  CellConfig c = SmallConfig();
  c.destage_high_watermark = 0.3;
  c.destage_low_watermark = 0.1;
  auto made = Cell::Create(io.get(), &clock, tmp.File("c"), c, {.start_cleaner = true});
  ASSERT_TRUE(made.ok()) << made.status();
  std::unique_ptr<Cell> cell = std::move(*made);
  ASSERT_TRUE(cell->CleanerRunning());
  Model model(cell->config());
  Mutex model_mu;
  constexpr int kThreads = 4;
  std::atomic<bool> failed{false};
  Mutex why_mu;
  std::string why;
  auto fail = [&](const std::string& what) {
    MutexLock l(&why_mu);
    if (why.empty()) why = what;
    failed = true;
  };
  std::atomic<bool> writers_done{false};
  // Thread t owns the 4 KiB pages p of disk (t / 2) with p % 2 == t % 2: two
  // threads interleave inside the same cache lines.
  auto worker = [&](int t) {
    std::mt19937_64 rng(100 + t);
    const uint32_t disk = t / 2;
    const uint64_t pages = 2 * kMiB / 4096;
    for (int i = 0; i < 150 && !failed; ++i) {
      const uint64_t page = (rng() % (pages / 2)) * 2 + (t % 2);
      const uint64_t off = page * 4096;
      const int kind = rng() % 6;
      if (kind == 5) {
        format::BlockTemplate tm{.kind = format::BlockKind::kRedo, .block_size = 512,
                                 .file_number = static_cast<uint32_t>(t), .file_blocks = 4096};
        if (absl::Status s = FormatOne(cell.get(), disk, off, 4096, tm, off, FormatMethod::kAuto);
            !s.ok()) {
          fail(s.ToString());
        }
        MutexLock l(&model_mu);
        model.Format(disk, off, 4096, tm, off);
      } else if (kind == 4) {
        auto got = ReadOne(cell.get(), disk, off, 4096);
        MutexLock l(&model_mu);
        if (!got.ok()) {
          fail(got.status().ToString());
        } else if (!std::equal(got->begin(), got->end(), model.disk(disk).begin() + off)) {
          fail(fmt::format("thread {}: disk {} page at {} differs", t, disk, off));
        }
      } else {
        auto d = RandomBytes(rng, 4096);
        {
          // The model is updated before the write, under the lock only this
          // thread's pages are read by this thread, so order is irrelevant.
          MutexLock l(&model_mu);
          model.Write(disk, off, d);
        }
        if (absl::Status s = WriteOne(cell.get(), disk, off, d); !s.ok()) fail(s.ToString());
      }
    }
  };
  std::thread flusher([&] {
    while (!writers_done && !failed) {
      if (auto f = cell->Flush({}); !f.ok()) fail(f.status().ToString());
      if (!cell->Metrics().ok() || !cell->Describe().ok()) fail("metrics/describe");
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  });
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) threads.emplace_back(worker, t);
  for (auto& th : threads) th.join();
  writers_done = true;
  flusher.join();
  ASSERT_FALSE(failed) << why;
  ASSERT_OK(VerifyAgainst(cell.get(), model));
  ASSERT_OK(cell->CheckConsistency());
  cell->StopCleaner();
  EXPECT_FALSE(cell->CleanerRunning());
  ASSERT_OK(cell->Close());
  auto again = Cell::Open(io.get(), &clock, tmp.File("c"), {.start_cleaner = false});
  ASSERT_TRUE(again.ok()) << again.status();
  ASSERT_OK(VerifyAgainst(again->get(), model));
}

TEST(ConcurrencyTest, BackgroundCleanerBringsDirtyBelowHighWatermark) {
  cellsim::testing::TempDir tmp;
  auto io = io::MakePosixBackend();
  ManualClock clock;
  CellConfig c = SmallConfig();
  c.destage_high_watermark = 0.4;
  c.destage_low_watermark = 0.2;
  auto made = Cell::Create(io.get(), &clock, tmp.File("c"), c, {.start_cleaner = false});
  ASSERT_TRUE(made.ok());
  std::unique_ptr<Cell> cell = std::move(*made);
  Model model(cell->config());
  std::mt19937_64 rng(3);
  const uint64_t lines = cell->CacheCapacityBytes() / c.cache_line_size;
  for (uint64_t i = 0; i < lines; ++i) {
    auto d = RandomBytes(rng, 32 * kKiB);
    ASSERT_OK(WriteOne(cell.get(), i % 2, (i / 2) * 64 * kKiB, d));
    model.Write(i % 2, (i / 2) * 64 * kKiB, d);
  }
  const double cap = static_cast<double>(cell->CacheCapacityBytes());
  ASSERT_GT(cell->DirtyBytes(), 0.4 * cap);
  // A stopped cleaner loses nothing: the dirty data is still there.
  EXPECT_FALSE(cell->CleanerRunning());
  cell->StartCleaner();
  // Wait for the condition (not for a time): the cleaner is woken by writes,
  // and polls on its own as well.
  for (int i = 0; i < 3000 && cell->DirtyBytes() > 0.4 * cap; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_LE(static_cast<double>(cell->DirtyBytes()), 0.4 * cap);
  cell->StopCleaner();
  ASSERT_OK(VerifyAgainst(cell.get(), model));
}

// Two mode changes at once (write-through flushes first, write-back does not):
// whatever order they finish in, the mode persisted for the next Open is the
// one in effect. (Before SetMode was serialized, a write-back change could
// checkpoint between a write-through change's switch and its checkpoint.)
TEST(ConcurrencyTest, OverlappingModeChangesPersistTheModeInEffect) {
  cellsim::testing::TempDir tmp;
  auto io = io::MakePosixBackend();
  ManualClock clock;
  auto made = Cell::Create(io.get(), &clock, tmp.File("c"), SmallConfig(),
                           {.start_cleaner = false});
  ASSERT_TRUE(made.ok()) << made.status();
  std::unique_ptr<Cell> cell = std::move(*made);
  std::mt19937_64 rng(7);
  for (int round = 0; round < 12; ++round) {
    // Dirty lines, so that the switch to write-through has a flush to do.
    ASSERT_OK(cell->SetFlashCacheMode(FlashCacheMode::kWriteBack));
    for (uint64_t i = 0; i < 8; ++i) {
      ASSERT_OK(WriteOne(cell.get(), 0, i * 64 * kKiB, RandomBytes(rng, 16 * kKiB)));
    }
    absl::Status to_wt, to_wb;
    std::thread a([&] { to_wt = cell->SetFlashCacheMode(FlashCacheMode::kWriteThrough); });
    std::thread b([&] { to_wb = cell->SetFlashCacheMode(FlashCacheMode::kWriteBack); });
    a.join();
    b.join();
    ASSERT_OK(to_wt);
    ASSERT_OK(to_wb);
    const FlashCacheMode in_effect = cell->flash_cache_mode();
    ASSERT_OK(cell->Close());
    auto again = Cell::Open(io.get(), &clock, tmp.File("c"), {.start_cleaner = false});
    ASSERT_TRUE(again.ok()) << again.status();
    cell = std::move(*again);
    ASSERT_EQ(cell->flash_cache_mode(), in_effect) << "round " << round;
  }
}

// Describe and reads while CREATE GRIDDISK brings back a grid disk that is not
// present: they see the disk either absent or active, never half-made (TSan
// checks that they do not race with it).
TEST(ConcurrencyTest, DescribeWhileCreatingAGridDisk) {
  cellsim::testing::TempDir tmp;
  auto io = io::MakePosixBackend();
  ManualClock clock;
  {
    auto made = Cell::Create(io.get(), &clock, tmp.File("c"), SmallConfig(),
                             {.start_cleaner = false});
    ASSERT_TRUE(made.ok()) << made.status();
    ASSERT_OK((*made)->Close());
  }
  ASSERT_TRUE(std::filesystem::remove(tmp.File("c") + "/RECO_CD_01_cel01.img"));
  auto opened = Cell::Open(io.get(), &clock, tmp.File("c"), {.start_cleaner = false});
  ASSERT_TRUE(opened.ok()) << opened.status();
  std::unique_ptr<Cell> cell = std::move(*opened);
  std::atomic<bool> created{false};
  std::thread describer([&] {
    while (!created) {
      auto d = cell->Describe();
      ASSERT_TRUE(d.ok()) << d.status();
      ASSERT_EQ(d->grid_disks.size(), 4u);
      auto r = ReadOne(cell.get(), /*disk=*/3, 0, 4096);
      ASSERT_TRUE(r.ok() || r.status().code() == absl::StatusCode::kUnavailable) << r.status();
    }
  });
  absl::Status s = cell->CreateGridDisk("RECO_CD_01_cel01");
  created = true;
  describer.join();
  ASSERT_OK(s);
  auto d = cell->Describe();
  ASSERT_TRUE(d.ok()) << d.status();
  for (const auto& g : d->grid_disks) EXPECT_EQ(g.status, "active") << g.name;
  ASSERT_OK(cell->Close());
}

}  // namespace
}  // namespace cellsim::cell

namespace cellsim::cell {
namespace {

// Group commit: 8 threads writing write-back lines at once share journal
// chunks and syncs (a sync made slow so that they overlap), and every
// acknowledged write reads back.
TEST(ConcurrencyTest, ConcurrentWritersShareSyncs) {
  cellsim::testing::TempDir tmp;
  auto io = std::make_unique<io::FaultInjectionBackend>(io::MakePosixBackend());
  io->AddLatency({.ops = io::kOpSync, .path_substring = "flash.img"}, 2'000'000);
  ManualClock clock;
  auto made = Cell::Create(io.get(), &clock, tmp.File("c"), testing::SmallConfig(),
                           {.start_cleaner = false});
  ASSERT_TRUE(made.ok()) << made.status();
  std::unique_ptr<Cell> cell = std::move(*made);
  constexpr int kThreads = 8, kWrites = 12;
  std::vector<std::vector<uint8_t>> data(kThreads * kWrites);
  std::atomic<int> failures{0};
  const uint64_t syncs0 = io->Counters().syncs;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937_64 rng(7 + t);
      for (int i = 0; i < kWrites; ++i) {
        std::vector<uint8_t>& d = data[t * kWrites + i];
        d = testing::RandomBytes(rng, 8192);
        // Thread t's writes: 8 KiB pieces of its own line (line t / 4 of
        // grid disk t % 4), overwritten in turn.
        const uint64_t off = (t / 4) * 64 * kKiB + (i % 8) * 8192;
        if (!testing::WriteOne(cell.get(), t % 4, off, d).ok()) failures++;
      }
    });
  }
  for (auto& th : threads) th.join();
  ASSERT_EQ(failures.load(), 0);
  const uint64_t syncs = io->Counters().syncs - syncs0;
  EXPECT_LT(syncs, uint64_t{kThreads * kWrites} * 3 / 4)
      << "writers did not share syncs: " << syncs << " for " << kThreads * kWrites;
  for (int t = 0; t < kThreads; ++t) {
    for (int i = kWrites - 8; i < kWrites; ++i) {  // the last write of each piece
      const uint64_t off = (t / 4) * 64 * kKiB + (i % 8) * 8192;
      auto got = testing::ReadOne(cell.get(), t % 4, off, 8192);
      ASSERT_TRUE(got.ok()) << got.status();
      ASSERT_EQ(*got, data[t * kWrites + i]) << t << " " << i;
    }
  }
  // And after a reopen (the journal replays the grouped chunks).
  ASSERT_OK(cell->Close());
  cell.reset();
  auto again = Cell::Open(io.get(), &clock, tmp.File("c"), {.start_cleaner = false});
  ASSERT_TRUE(again.ok()) << again.status();
  auto got = testing::ReadOne(again->get(), 3, 64 * kKiB + 3 * 8192, 8192);  // t = 7, i = 11
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(*got, data[7 * kWrites + 11]);
}

}  // namespace
}  // namespace cellsim::cell
