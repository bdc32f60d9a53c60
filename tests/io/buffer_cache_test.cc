// io's buffer cache under AlignedBuffer (cellsim/io/buffer_cache.h): a large
// buffer reuses the memory of one destroyed before it, zeroed like a new one,
// within the cache's cap; threads share it (this binary runs under TSan too);
// under ASan a destroyed buffer's memory, cached, still reports a use.
#include "cellsim/io/buffer_cache.h"

#include <algorithm>
#include <cstring>
#include <thread>
#include <vector>

#include "cellsim/io/io_backend.h"
#include "gtest/gtest.h"
#include "testing/sanitizer.h"

namespace cellsim::io {
namespace {

using internal::GetBufferCacheStats;
using internal::kBufferCacheBytes;
using internal::kCachedBlockMin;

constexpr size_t kMiB = size_t{1} << 20;

bool AllZero(const AlignedBuffer& b) {
  return std::all_of(b.data(), b.data() + b.size(), [](uint8_t v) { return v == 0; });
}

class BufferCacheTest : public ::testing::Test {
 protected:
  void SetUp() override { internal::TrimBufferCache(); }
  void TearDown() override { internal::TrimBufferCache(); }
};

TEST_F(BufferCacheTest, ALargeBufferReusesTheMemoryOfADestroyedOneZeroed) {
  uint8_t* first = nullptr;
  {
    AlignedBuffer a(kMiB);
    first = a.data();
    std::memset(a.data(), 0xAB, a.size());
  }
  EXPECT_EQ(GetBufferCacheStats().cached_blocks, 1u);
  const uint64_t hits = GetBufferCacheStats().hits;
  AlignedBuffer b(kMiB);
  EXPECT_EQ(b.data(), first);
  EXPECT_EQ(GetBufferCacheStats().hits, hits + 1);
  EXPECT_EQ(GetBufferCacheStats().cached_blocks, 0u);
  EXPECT_TRUE(AllZero(b)) << "a reused buffer must read as zeros, as a new one does";
}

TEST_F(BufferCacheTest, SmallBuffersAndOtherSizesAreNotServedFromIt) {
  { AlignedBuffer small(kCachedBlockMin - 4096); }
  EXPECT_EQ(GetBufferCacheStats().cached_blocks, 0u);
  { AlignedBuffer one(kMiB); }
  const uint64_t misses = GetBufferCacheStats().misses;
  AlignedBuffer two(2 * kMiB);  // another size: a new block
  EXPECT_EQ(GetBufferCacheStats().misses, misses + 1);
  EXPECT_EQ(GetBufferCacheStats().cached_bytes, kMiB);
  // A huge-page buffer (2 MiB-aligned) is cached and reused as well.
  uint8_t* p = two.data();
  two = AlignedBuffer();
  AlignedBuffer again(2 * kMiB);
  EXPECT_EQ(again.data(), p);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(again.data()) % (2 * kMiB), 0u);
}

TEST_F(BufferCacheTest, NeverHoldsMoreThanItsCapAndKeepsTheNewest) {
  constexpr size_t kBuf = 4 * kMiB;
  constexpr size_t kCount = kBufferCacheBytes / kBuf + 16;
  std::vector<AlignedBuffer> bufs;
  for (size_t i = 0; i < kCount; ++i) bufs.emplace_back(kBuf);
  std::vector<uint8_t*> order;
  for (AlignedBuffer& b : bufs) order.push_back(b.data());
  bufs.clear();  // destroyed in order: the last kBufferCacheBytes of them stay
  EXPECT_EQ(GetBufferCacheStats().cached_bytes, kBufferCacheBytes);
  EXPECT_EQ(GetBufferCacheStats().cached_blocks, kBufferCacheBytes / kBuf);
  AlignedBuffer newest(kBuf);
  EXPECT_EQ(newest.data(), order.back());
}

TEST_F(BufferCacheTest, AMovedBufferGivesItsBlockBackOnce) {
  AlignedBuffer a(kMiB), b(kMiB);
  uint8_t* pa = a.data();
  b = std::move(a);  // b's old block goes back; a is empty
  EXPECT_EQ(a.data(), nullptr);
  EXPECT_EQ(b.data(), pa);
  EXPECT_EQ(GetBufferCacheStats().cached_blocks, 1u);
  AlignedBuffer c(std::move(b));
  EXPECT_EQ(GetBufferCacheStats().cached_blocks, 1u);
  c = AlignedBuffer();
  EXPECT_EQ(GetBufferCacheStats().cached_blocks, 2u);
}

// Each thread fills its buffers with its own byte and checks them: a block
// handed to two owners at once, or not zeroed, shows as a wrong byte; TSan
// checks the hand-over between threads.
TEST_F(BufferCacheTest, ThreadsShareItSafely) {
  constexpr int kThreads = 4;
  constexpr int kRounds = cellsim::testing::BySanitizer(400, 200, 60);
  std::vector<std::thread> threads;
  std::vector<int> bad(kThreads, 0);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, &bad] {
      for (int r = 0; r < kRounds; ++r) {
        const size_t size = kCachedBlockMin * (1 + (r + t) % 4);
        AlignedBuffer a(size), b(size);
        if (!AllZero(a) || !AllZero(b)) ++bad[t];
        std::memset(a.data(), t + 1, size);
        std::memset(b.data(), t + 101, size);
        for (size_t i = 0; i < size; i += 4096) {
          if (a.data()[i] != t + 1 || b.data()[i] != t + 101) ++bad[t];
        }
      }
    });
  }
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(bad[t], 0) << "thread " << t;
  EXPECT_GT(GetBufferCacheStats().hits, 0u);
}

TEST_F(BufferCacheTest, UnderAsanADestroyedBuffersMemoryIsStillReported) {
  if (cellsim::testing::kSanitizer != cellsim::testing::Sanitizer::kAddress) {
    GTEST_SKIP() << "checks AddressSanitizer's poisoning of cached blocks (not an ASan build)";
  }
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        uint8_t* p = nullptr;
        {
          AlignedBuffer a(kMiB);
          p = a.data();
        }
        volatile uint8_t v = p[100];
        (void)v;
      },
      "use-after-poison");
}

}  // namespace
}  // namespace cellsim::io
