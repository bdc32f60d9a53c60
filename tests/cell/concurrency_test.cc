// Concurrent requests on one cell with the background cleaner running: threads
// own disjoint byte ranges (some sharing cache lines) and check their own
// data; a flusher thread flushes and reads metrics meanwhile. Run under TSan.
#include <atomic>
#include <chrono>
#include <thread>

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
  std::mutex model_mu;
  constexpr int kThreads = 4;
  std::atomic<bool> failed{false};
  std::mutex why_mu;
  std::string why;
  auto fail = [&](const std::string& what) {
    std::lock_guard<std::mutex> l(why_mu);
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
        std::lock_guard<std::mutex> l(model_mu);
        model.Format(disk, off, 4096, tm, off);
      } else if (kind == 4) {
        auto got = ReadOne(cell.get(), disk, off, 4096);
        std::lock_guard<std::mutex> l(model_mu);
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
          std::lock_guard<std::mutex> l(model_mu);
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

}  // namespace
}  // namespace cellsim::cell
