// FaultInjectionBackend: injected failures name the file and the operation,
// 1-in-N is reproducible by seed, bad blocks fail reads until rewritten, and a
// power loss leaves files holding exactly what was synced (checked byte for
// byte against a model, including overwrites of synced data and truncates).
#include "cellsim/io/fault_injection.h"
#include "cellsim/io/fenced_backend.h"

#include <cstring>
#include <filesystem>
#include <random>
#include <vector>

#include "io/backend_params.h"
#include "testing/test_util.h"

namespace cellsim::io {
namespace {

using ::cellsim::testing::TempDir;
using ::testing::HasSubstr;
using namespace ::cellsim::io::testing;  // NOLINT

constexpr size_t kBlock = 4096;

class FaultInjectionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto base = MakeUringBackend({.queue_depth = 16});
    if (!base.ok()) base = MakePosixBackend();  // the wrapper works over any backend
    fault_ = std::make_unique<FaultInjectionBackend>(std::move(*base));
  }
  FileHandle Create(const std::string& name) {
    auto h = fault_->Open(dir_.File(name), {.create = true, .truncate = true});
    EXPECT_OK(h);
    return h.ok() ? *h : kInvalidFile;
  }
  absl::Status WriteBlock(FileHandle f, uint64_t block, uint64_t seed) {
    AlignedBuffer b(kBlock);
    FillPattern(b.data(), kBlock, seed);
    return fault_->WriteAt(f, block * kBlock, b.data(), kBlock);
  }
  // The whole file as bytes (read through a fresh POSIX backend, not the
  // wrapper, so no rule interferes).
  std::vector<uint8_t> Contents(const std::string& name) {
    auto io = MakePosixBackend();
    auto h = io->Open(dir_.File(name), {.read_only = true});
    EXPECT_OK(h);
    if (!h.ok()) return {};
    auto size = io->Size(*h);
    std::vector<uint8_t> data(size.ok() ? *size : 0);
    size_t got = 0;
    EXPECT_OK(io->ReadAt(*h, 0, data.data(), data.size(), &got));
    EXPECT_EQ(got, data.size());
    EXPECT_OK(io->Close(*h));
    return data;
  }

  TempDir dir_;
  std::unique_ptr<FaultInjectionBackend> fault_;
};

TEST_F(FaultInjectionTest, NthOperationFailsWithFileAndOpNamed) {
  const FileHandle a = Create("a.img");
  const FileHandle b = Create("b.img");
  fault_->FailNth({.ops = kOpWrite, .path_substring = "b.img"}, 3);
  for (int i = 0; i < 3; ++i) EXPECT_OK(WriteBlock(a, i, 1));  // other file: not counted
  EXPECT_OK(WriteBlock(b, 0, 1));
  EXPECT_OK(WriteBlock(b, 1, 1));
  absl::Status s = WriteBlock(b, 2, 1);
  EXPECT_EQ(s.code(), absl::ErrnoToStatusCode(EIO));
  EXPECT_THAT(std::string(s.message()), HasSubstr(dir_.File("b.img")));
  EXPECT_THAT(std::string(s.message()), HasSubstr("write (injected: FailNth, operation #3)"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("at offset 8192"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("Input/output error"));
  EXPECT_OK(WriteBlock(b, 3, 1));  // only the 3rd
  EXPECT_EQ(fault_->InjectedFailures(), 1u);
  // The failed write never reached the file.
  const std::vector<uint8_t> bytes = Contents("b.img");
  ASSERT_EQ(bytes.size(), 4 * kBlock);
  EXPECT_TRUE(std::all_of(bytes.begin() + 2 * kBlock, bytes.begin() + 3 * kBlock,
                          [](uint8_t x) { return x == 0; }));
  EXPECT_THAT(fault_->Name(), ::testing::AnyOf("fault(io_uring)", "fault(posix)"));
}

TEST_F(FaultInjectionTest, NthSyncAndOpenFailuresNameTheFile) {
  const FileHandle a = Create("sync.img");
  fault_->FailNth({.ops = kOpSync, .path_substring = {}}, 1, ENOSPC);
  absl::Status s = fault_->Sync(a, SyncKind::kFull);
  EXPECT_EQ(s.code(), absl::ErrnoToStatusCode(ENOSPC));
  EXPECT_THAT(std::string(s.message()), HasSubstr("sync (injected"));
  EXPECT_THAT(std::string(s.message()), HasSubstr(dir_.File("sync.img")));
  EXPECT_OK(fault_->Sync(a, SyncKind::kFull));
  fault_->FailNth({.ops = kOpOpen, .path_substring = "x.img"}, 1);
  auto h = fault_->Open(dir_.File("x.img"), {.create = true});
  EXPECT_THAT(std::string(h.status().message()), HasSubstr("open (injected"));
  EXPECT_THAT(std::string(h.status().message()), HasSubstr(dir_.File("x.img")));
}

// Which of `ops` writes fail under FailOneIn(4, seed).
std::vector<int> FailurePattern(FaultInjectionBackend* fault, FileHandle f, uint64_t seed) {
  fault->FailOneIn({.ops = kOpWrite, .path_substring = {}}, 4, seed);
  std::vector<int> failed;
  AlignedBuffer b(kBlock);
  for (int i = 0; i < 200; ++i) {
    if (!fault->WriteAt(f, 0, b.data(), kBlock).ok()) failed.push_back(i);
  }
  fault->ClearFaults();
  return failed;
}

TEST_F(FaultInjectionTest, OneInNIsReproducibleBySeed) {
  const FileHandle f = Create("rand.img");
  const std::vector<int> first = FailurePattern(fault_.get(), f, 42);
  const std::vector<int> again = FailurePattern(fault_.get(), f, 42);
  const std::vector<int> other = FailurePattern(fault_.get(), f, 43);
  EXPECT_EQ(first, again);
  EXPECT_NE(first, other);
  // About 1 in 4 (200 draws): far from none and far from all.
  EXPECT_GT(first.size(), 20u);
  EXPECT_LT(first.size(), 100u);
}

TEST_F(FaultInjectionTest, FailAllUntilCleared) {
  const FileHandle f = Create("dead.img");
  fault_->FailAll({.ops = kOpRead | kOpWrite, .path_substring = "dead"});
  EXPECT_FALSE(WriteBlock(f, 0, 1).ok());
  AlignedBuffer b(kBlock);
  EXPECT_FALSE(fault_->ReadAt(f, 0, b.data(), kBlock).ok());
  EXPECT_OK(fault_->Sync(f, SyncKind::kData));  // not in the mask
  fault_->ClearFaults();
  EXPECT_OK(WriteBlock(f, 0, 1));
}

TEST_F(FaultInjectionTest, CrashAfterFailsEverythingUntilPowerLoss) {
  const FileHandle f = Create("crash.img");
  const FileHandle g = Create("other.img");
  fault_->CrashAfter({.ops = kOpWrite, .path_substring = {}}, 2);
  EXPECT_OK(WriteBlock(f, 0, 1));
  EXPECT_FALSE(fault_->Crashed());
  EXPECT_OK(WriteBlock(f, 1, 1));
  EXPECT_TRUE(fault_->Crashed());
  absl::Status s = WriteBlock(g, 0, 1);
  EXPECT_THAT(std::string(s.message()), HasSubstr("crashed"));
  EXPECT_FALSE(fault_->Sync(f, SyncKind::kData).ok());
  EXPECT_EQ(fault_->CrashFilterMatches(), 2u);
  ASSERT_OK(fault_->SimulatePowerLoss());
  EXPECT_FALSE(fault_->Crashed());
  EXPECT_OK(WriteBlock(g, 0, 1));
  // Nothing had been synced: both files are empty again.
  EXPECT_TRUE(Contents("crash.img").empty());
}

TEST_F(FaultInjectionTest, BadBlocksFailReadsUntilRewritten) {
  const FileHandle f = Create("media.img");
  for (int i = 0; i < 8; ++i) ASSERT_OK(WriteBlock(f, i, i));
  fault_->AddBadBlocks("media", 2 * kBlock, 2 * kBlock);  // blocks 2 and 3
  AlignedBuffer b(2 * kBlock);
  EXPECT_OK(fault_->ReadAt(f, 0, b.data(), 2 * kBlock));
  absl::Status s = fault_->ReadAt(f, kBlock, b.data(), 2 * kBlock);
  EXPECT_THAT(std::string(s.message()), HasSubstr("bad block range [8192, 16384)"));
  EXPECT_THAT(std::string(s.message()), HasSubstr(dir_.File("media.img")));
  ASSERT_OK(WriteBlock(f, 2, 9));  // heals block 2 only
  EXPECT_OK(fault_->ReadAt(f, 2 * kBlock, b.data(), kBlock));
  EXPECT_FALSE(fault_->ReadAt(f, 3 * kBlock, b.data(), kBlock).ok());
  EXPECT_EQ(fault_->InjectedFailures(), 2u);
}

TEST_F(FaultInjectionTest, LatencyIsAddedToMatchingRequests) {
  const FileHandle f = Create("slow.img");
  fault_->AddLatency({.ops = kOpWrite, .path_substring = {}}, 2'000'000);
  AlignedBuffer b(kBlock);
  IoRequest w = MakeWrite(f, 0, b.data(), kBlock);
  ASSERT_OK(fault_->Submit(absl::MakeSpan(&w, 1)));
  EXPECT_GE(w.latency_ns, 2'000'000u);
}

TEST_F(FaultInjectionTest, PowerLossKeepsSyncedDropsUnsynced) {
  const FileHandle f = Create("p.img");
  const FileHandle g = Create("q.img");
  for (int i = 0; i < 4; ++i) ASSERT_OK(WriteBlock(f, i, 10 + i));
  ASSERT_OK(fault_->Sync(f, SyncKind::kData));
  const std::vector<uint8_t> synced_f = Contents("p.img");
  ASSERT_OK(WriteBlock(g, 0, 20));  // never synced
  ASSERT_OK(WriteBlock(f, 1, 30));  // overwrites synced data
  ASSERT_OK(WriteBlock(f, 9, 31));  // extends the file
  ASSERT_OK(fault_->Truncate(f, kBlock));  // cuts synced data
  ASSERT_OK(WriteBlock(f, 2, 32));
  ASSERT_OK(fault_->Allocate(f, AllocateMode::kPunchHole, 0, kBlock));
  EXPECT_NE(Contents("p.img"), synced_f);
  ASSERT_OK(fault_->SimulatePowerLoss());
  EXPECT_EQ(Contents("p.img"), synced_f);
  EXPECT_TRUE(Contents("q.img").empty());
  EXPECT_EQ(fault_->UnsyncedUndoBytes(), 0u);
  // Handles still work, and a new synced write survives the next loss.
  ASSERT_OK(WriteBlock(f, 5, 40));
  ASSERT_OK(fault_->Sync(f, SyncKind::kFull));
  const std::vector<uint8_t> synced_again = Contents("p.img");
  ASSERT_OK(WriteBlock(f, 5, 41));
  ASSERT_OK(fault_->SimulatePowerLoss());
  EXPECT_EQ(Contents("p.img"), synced_again);
}

// A seeded random workload of writes, truncates, zero-ranges, punches and
// syncs over two files, against a model of the synced bytes.
TEST_F(FaultInjectionTest, PowerLossMatchesModelByteForByte) {
  for (uint64_t seed : {1, 2, 3, 4, 5}) {
    SCOPED_TRACE(seed);
    const std::string names[2] = {"m0.img", "m1.img"};
    FileHandle h[2] = {Create(names[0]), Create(names[1])};
    std::vector<uint8_t> current[2], synced[2];
    std::mt19937_64 rng(seed);
    AlignedBuffer buf(8 * kBlock);
    for (int step = 0; step < 150; ++step) {
      const int i = static_cast<int>(rng() % 2);
      const uint64_t kind = rng() % 10;
      const uint64_t off = (rng() % 48) * 1024;  // unaligned: buffered files
      const uint64_t len = 1 + rng() % (8 * kBlock);
      if (kind < 5) {
        FillPattern(buf.data(), len, rng());
        ASSERT_OK(fault_->WriteAt(h[i], off, buf.data(), len));
        if (current[i].size() < off + len) current[i].resize(off + len, 0);
        std::memcpy(current[i].data() + off, buf.data(), len);
      } else if (kind == 5) {
        const uint64_t size = rng() % (40 * 1024);
        ASSERT_OK(fault_->Truncate(h[i], size));
        current[i].resize(size, 0);
      } else if (kind == 6 || kind == 7) {
        const AllocateMode mode = kind == 6 ? AllocateMode::kZeroRange : AllocateMode::kPunchHole;
        absl::Status s = fault_->Allocate(h[i], mode, off, len);
        if (s.code() == absl::StatusCode::kUnimplemented) continue;
        ASSERT_OK(s);
        // zero-range may extend the file; punch-hole keeps its size.
        if (mode == AllocateMode::kZeroRange && current[i].size() < off + len) {
          current[i].resize(off + len, 0);
        }
        const uint64_t end = std::min<uint64_t>(off + len, current[i].size());
        if (off < end) std::memset(current[i].data() + off, 0, end - off);
      } else {
        ASSERT_OK(fault_->Sync(h[i], rng() % 2 ? SyncKind::kData : SyncKind::kFull));
        synced[i] = current[i];
      }
    }
    EXPECT_EQ(Contents(names[0]), current[0]);  // the model tracks the live files
    ASSERT_OK(fault_->SimulatePowerLoss());
    for (int i = 0; i < 2; ++i) {
      const std::vector<uint8_t> got = Contents(names[i]);
      ASSERT_EQ(got.size(), synced[i].size()) << names[i];
      EXPECT_TRUE(got == synced[i]) << names[i] << " differs from its synced state";
      ASSERT_OK(fault_->Close(h[i]));
    }
  }
}

TEST_F(FaultInjectionTest, LargeSparseFilesSaveOnlyTouchedData) {
  const std::string path = dir_.File("huge.img");
  const FileHandle f = Create("huge.img");
  constexpr uint64_t kTiB = uint64_t{1} << 40;
  ASSERT_OK(fault_->Truncate(f, kTiB));
  ASSERT_OK(WriteBlock(f, (kTiB / 2) / kBlock, 1));
  ASSERT_OK(fault_->Sync(f, SyncKind::kData));
  EXPECT_EQ(fault_->UnsyncedUndoBytes(), 0u);
  ASSERT_OK(WriteBlock(f, 7, 2));  // over a hole: nothing to save
  EXPECT_EQ(fault_->UnsyncedUndoBytes(), 0u);
  ASSERT_OK(fault_->Truncate(f, 1 << 20));  // cuts 1 TiB, of which 4 KiB is data
  EXPECT_EQ(fault_->UnsyncedUndoBytes(), kBlock);
  ASSERT_OK(fault_->SimulatePowerLoss());
  ASSERT_OK_AND_ASSIGN(uint64_t size, fault_->Size(f));
  EXPECT_EQ(size, kTiB);
  AlignedBuffer got(kBlock), want(kBlock);
  FillPattern(want.data(), kBlock, 1);
  ASSERT_OK(fault_->ReadAt(f, kTiB / 2, got.data(), kBlock));
  EXPECT_EQ(std::memcmp(got.data(), want.data(), kBlock), 0);
  ASSERT_OK(fault_->ReadAt(f, 7 * kBlock, got.data(), kBlock));
  EXPECT_TRUE(std::all_of(got.data(), got.data() + kBlock, [](uint8_t b) { return b == 0; }));
  EXPECT_LT(::cellsim::testing::AllocatedBytes(path), 1u << 20);
}


// FencedBackend (fenced_backend.h): what was written before the fence stays;
// after it no write, sync, allocation, truncation, open or stream request
// reaches the file (each fails with EIO naming the fence), and a stream
// stops taking requests at the fence.
TEST(FencedBackendTest, NothingReachesTheFilesAfterTheFence) {
  TempDir dir;
  auto base = MakeUringBackend({.queue_depth = 16});
  if (!base.ok()) base = MakePosixBackend();
  FencedBackend fenced(std::move(*base));
  const std::string path = dir.File("f.img");
  ASSERT_OK_AND_ASSIGN(FileHandle f, fenced.Open(path, {.create = true, .truncate = true}));
  AlignedBuffer before(kBlock), after(kBlock);
  FillPattern(before.data(), kBlock, 1);
  FillPattern(after.data(), kBlock, 2);
  ASSERT_OK(fenced.WriteAt(f, 0, before.data(), kBlock));
  size_t streamed = 0;  // a stream fenced as it makes its third request
  const absl::Status stream = fenced.SubmitStream(
      [&](IoRequest& r) {
        if (streamed == 2) fenced.Fence();
        if (streamed == 4) return false;
        r = MakeWrite(f, (1 + streamed++) * kBlock, before.data(), kBlock);
        return true;
      },
      [](IoRequest&) {});
  EXPECT_THAT(stream.message(), HasSubstr("fenced"));
  EXPECT_EQ(streamed, 3u);  // the third was made past the fence: not sent, and no more asked
  EXPECT_TRUE(fenced.fenced());
  const absl::Status w = fenced.WriteAt(f, 0, after.data(), kBlock);
  EXPECT_FALSE(w.ok());
  EXPECT_THAT(w.message(), HasSubstr("fenced"));
  EXPECT_THAT(w.message(), HasSubstr(path));
  EXPECT_FALSE(fenced.Sync(f, SyncKind::kData).ok());
  EXPECT_FALSE(fenced.Allocate(f, AllocateMode::kZeroRange, 0, 64 * kBlock).ok());
  EXPECT_FALSE(fenced.Truncate(f, 0).ok());
  EXPECT_FALSE(fenced.Open(dir.File("g.img"), {.create = true}).ok());
  EXPECT_FALSE(std::filesystem::exists(dir.File("g.img")));
  EXPECT_OK(fenced.Close(f));
  // The file holds what came before the fence: block 0, and the two
  // streamed blocks.
  const std::string text = ::cellsim::testing::ReadFileText(path);
  ASSERT_EQ(text.size(), 3 * kBlock);
  for (size_t b = 0; b < 3; ++b) {
    EXPECT_EQ(std::memcmp(text.data() + b * kBlock, before.data(), kBlock), 0) << b;
  }
}

}  // namespace
}  // namespace cellsim::io
