// The IoBackend conformance suite: every test runs against every backend
// (posix, io_uring buffered, io_uring O_DIRECT, fault(io_uring) with no fault).
#include "cellsim/io/io_backend.h"

#include <sys/stat.h>

#include <cstring>
#include <set>
#include <vector>

#include "cellsim/io/block_file.h"
#include "io/backend_params.h"
#include "testing/test_util.h"

namespace cellsim::io {
namespace {

using ::cellsim::testing::TempDir;
using ::testing::HasSubstr;
using namespace ::cellsim::io::testing;  // NOLINT

constexpr size_t kBlock = 4096;

class IoBackendTest : public ::testing::TestWithParam<BackendParam> {
 protected:
  void SetUp() override {
    REQUIRE_BACKEND(GetParam(), dir_.path());
    auto io = MakeTestBackend(GetParam().flavor);
    ASSERT_OK(io);
    io_ = std::move(*io);
  }

  FileHandle OpenNew(const std::string& name) {
    auto h = io_->Open(dir_.File(name),
                       {.create = true, .truncate = true, .direct = GetParam().direct});
    EXPECT_OK(h);
    return h.ok() ? *h : kInvalidFile;
  }

  TempDir dir_;
  std::unique_ptr<IoBackend> io_;
};

TEST_P(IoBackendTest, ReadAfterWrite) {
  const FileHandle f = OpenNew("a.img");
  EXPECT_EQ(io_->IsDirect(f), GetParam().direct);
  AlignedBuffer out(3 * kBlock), in(3 * kBlock);
  FillPattern(out.data(), out.size(), 1);
  ASSERT_OK(io_->WriteAt(f, 5 * kBlock, out.data(), out.size()));
  size_t got = 0;
  ASSERT_OK(io_->ReadAt(f, 5 * kBlock, in.data(), in.size(), &got));
  EXPECT_EQ(got, in.size());
  EXPECT_EQ(std::memcmp(in.data(), out.data(), in.size()), 0);
  // The hole before the write reads as zeros.
  ASSERT_OK(io_->ReadAt(f, 0, in.data(), kBlock, &got));
  EXPECT_EQ(got, kBlock);
  EXPECT_TRUE(std::all_of(in.data(), in.data() + kBlock, [](uint8_t b) { return b == 0; }));
  ASSERT_OK_AND_ASSIGN(uint64_t size, io_->Size(f));
  EXPECT_EQ(size, 8 * kBlock);
  ASSERT_OK_AND_ASSIGN(std::string path, io_->PathOf(f));
  EXPECT_EQ(path, dir_.File("a.img"));
  ASSERT_OK(io_->Sync(f, SyncKind::kData));
  ASSERT_OK(io_->Sync(f, SyncKind::kFull));
  ASSERT_OK(io_->Close(f));
  // Counters saw one write and two reads.
  const IoBackendCounters c = io_->Counters();
  EXPECT_EQ(c.writes, 1u);
  EXPECT_EQ(c.write_bytes, 3 * kBlock);
  EXPECT_EQ(c.reads, 2u);
  EXPECT_EQ(c.syncs, 2u);
}

TEST_P(IoBackendTest, UnalignedDirectRequestsAreRejectedBeforeSubmission) {
  REQUIRE_DIRECT_IO(dir_.path());
  const std::string path = dir_.File("direct.img");
  ASSERT_OK_AND_ASSIGN(FileHandle f, io_->Open(path, {.create = true, .direct = true}));
  AlignedBuffer buf(2 * kBlock);
  absl::Status s = io_->WriteAt(f, 4097, buf.data(), kBlock);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("O_DIRECT write to " + path + " at offset 4097"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("offset 4097 not a multiple of 4096"));
  s = io_->WriteAt(f, 0, buf.data(), 1000);
  EXPECT_THAT(std::string(s.message()), HasSubstr("length 1000 not a multiple of 4096"));
  s = io_->WriteAt(f, 0, buf.data() + 512, kBlock);
  EXPECT_THAT(std::string(s.message()), HasSubstr("buffer address 0x"));
  size_t got = 1;
  s = io_->ReadAt(f, 100, buf.data(), kBlock, &got);
  EXPECT_THAT(std::string(s.message()), HasSubstr("O_DIRECT read from " + path));
  EXPECT_EQ(got, 0u);
  // Nothing reached the file.
  ASSERT_OK_AND_ASSIGN(uint64_t size, io_->Size(f));
  EXPECT_EQ(size, 0u);
  EXPECT_EQ(io_->Counters().writes, 0u);
  ASSERT_OK(io_->Close(f));
}

TEST_P(IoBackendTest, ReadsPastTheEndAreShortNotErrors) {
  const FileHandle f = OpenNew("short.img");
  AlignedBuffer buf(4 * kBlock);
  FillPattern(buf.data(), 3 * kBlock, 2);
  ASSERT_OK(io_->WriteAt(f, 0, buf.data(), 3 * kBlock));
  uint64_t expect = 3 * kBlock;
  if (!GetParam().direct) {  // an EOF that is not block-aligned
    ASSERT_OK(io_->Truncate(f, 3 * kBlock + 100));
    expect += 100;
  }
  AlignedBuffer in(4 * kBlock);
  size_t got = 0;
  ASSERT_OK(io_->ReadAt(f, 0, in.data(), in.size(), &got));
  EXPECT_EQ(got, expect);
  EXPECT_EQ(std::memcmp(in.data(), buf.data(), 3 * kBlock), 0);
  ASSERT_OK(io_->ReadAt(f, 8 * kBlock, in.data(), kBlock, &got));
  EXPECT_EQ(got, 0u);
  ASSERT_OK(io_->Close(f));
}

TEST_P(IoBackendTest, ErrnoIsMappedWithFileAndText) {
  const std::string missing = dir_.File("missing.img");
  auto h = io_->Open(missing, {.direct = GetParam().direct});
  EXPECT_EQ(h.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(h.status().message()), HasSubstr(missing));
  EXPECT_THAT(std::string(h.status().message()), HasSubstr("No such file or directory"));

  auto d = io_->Open(dir_.path(), {});
  EXPECT_FALSE(d.ok());
  EXPECT_THAT(std::string(d.status().message()), HasSubstr("Is a directory"));

  const FileHandle w = OpenNew("ro.img");
  ASSERT_OK(io_->Close(w));
  ASSERT_OK_AND_ASSIGN(FileHandle ro, io_->Open(dir_.File("ro.img"),
                                                {.read_only = true, .direct = GetParam().direct}));
  AlignedBuffer buf(kBlock);
  absl::Status s = io_->WriteAt(ro, 0, buf.data(), kBlock);
  EXPECT_EQ(s.code(), absl::ErrnoToStatusCode(EBADF));
  EXPECT_THAT(std::string(s.message()), HasSubstr(dir_.File("ro.img")));
  EXPECT_THAT(std::string(s.message()), HasSubstr("Bad file descriptor"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("read-only"));
  ASSERT_OK(io_->Close(ro));

  EXPECT_EQ(io_->Close(ro).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(io_->Sync(12345, SyncKind::kData).code(), absl::StatusCode::kInvalidArgument);
  s = io_->ReadAt(12345, 0, buf.data(), kBlock);
  EXPECT_THAT(std::string(s.message()), HasSubstr("file handle 12345 is not open"));
}

TEST_P(IoBackendTest, BatchedSubmissionOfManyRequests) {
  const FileHandle f = OpenNew("batch.img");
  constexpr size_t kCount = 1500;
  AlignedBuffer out(kCount * kBlock), in(kCount * kBlock);
  FillPattern(out.data(), out.size(), 3);
  std::vector<IoRequest> reqs(kCount);
  // Reverse order, so a backend that ignored offsets would be caught.
  for (size_t i = 0; i < kCount; ++i) {
    const size_t block = kCount - 1 - i;
    reqs[i] = MakeWrite(f, block * kBlock, out.data() + block * kBlock, kBlock);
  }
  ASSERT_OK(io_->Submit(absl::MakeSpan(reqs)));
  for (const IoRequest& r : reqs) {
    EXPECT_OK(r.status);
    EXPECT_EQ(r.transferred, kBlock);
    EXPECT_GT(r.latency_ns, 0u);
  }
  for (size_t i = 0; i < kCount; ++i) {
    reqs[i] = MakeRead(f, i * kBlock, in.data() + i * kBlock, kBlock);
  }
  ASSERT_OK(io_->Submit(absl::MakeSpan(reqs)));
  EXPECT_EQ(std::memcmp(in.data(), out.data(), in.size()), 0);
  EXPECT_EQ(io_->Counters().writes, kCount);
  ASSERT_OK(io_->Close(f));
}

TEST_P(IoBackendTest, OneBadRequestFailsAloneInABatch) {
  const FileHandle f = OpenNew("mixed.img");
  AlignedBuffer buf(4 * kBlock);
  std::vector<IoRequest> reqs(4);
  for (size_t i = 0; i < 4; ++i) {
    reqs[i] = MakeWrite(f, i * kBlock, buf.data() + i * kBlock, kBlock);
  }
  reqs[2].file = 9999;
  absl::Status s = io_->Submit(absl::MakeSpan(reqs));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_OK(reqs[0].status);
  EXPECT_OK(reqs[1].status);
  EXPECT_FALSE(reqs[2].status.ok());
  EXPECT_OK(reqs[3].status);
  ASSERT_OK(io_->Close(f));
}

TEST_P(IoBackendTest, SubmitStreamCompletesEveryRequestOnce) {
  const FileHandle f = OpenNew("stream.img");
  constexpr uint64_t kCount = 1200;
  AlignedBuffer block(kBlock);
  FillPattern(block.data(), kBlock, 4);
  ASSERT_OK_AND_ASSIGN(int reg, io_->RegisterBuffer(block.data(), block.size()));
  uint64_t issued = 0;
  std::vector<int> seen(kCount, 0);
  ASSERT_OK(io_->SubmitStream(
      [&](IoRequest& r) {
        if (issued == kCount) return false;
        r = MakeWrite(f, issued * kBlock, block.data(), kBlock, reg, issued);
        ++issued;
        return true;
      },
      [&](IoRequest& r) {
        EXPECT_OK(r.status);
        EXPECT_EQ(r.transferred, kBlock);
        ASSERT_LT(r.user_data, kCount);
        ++seen[r.user_data];
      }));
  EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; }));
  AlignedBuffer in(kBlock);
  for (uint64_t i : {uint64_t{0}, kCount / 2, kCount - 1}) {
    ASSERT_OK(io_->ReadAt(f, i * kBlock, in.data(), kBlock));
    EXPECT_EQ(std::memcmp(in.data(), block.data(), kBlock), 0) << "block " << i;
  }
  ASSERT_OK(io_->Close(f));
}

TEST_P(IoBackendTest, RegisteredBuffersAreChecked) {
  const FileHandle f = OpenNew("reg.img");
  AlignedBuffer a(2 * kBlock), b(kBlock), in(kBlock);
  FillPattern(a.data(), a.size(), 5);
  ASSERT_OK_AND_ASSIGN(int ia, io_->RegisterBuffer(a.data(), a.size()));
  ASSERT_OK_AND_ASSIGN(int ib, io_->RegisterBuffer(b.data(), b.size()));
  EXPECT_NE(ia, ib);
  IoRequest w = MakeWrite(f, 0, a.data() + kBlock, kBlock, ia);
  ASSERT_OK(io_->Submit(absl::MakeSpan(&w, 1)));
  ASSERT_OK(io_->ReadAt(f, 0, in.data(), kBlock));
  EXPECT_EQ(std::memcmp(in.data(), a.data() + kBlock, kBlock), 0);
  w.registered_buffer = ib;  // buffer is not inside b
  EXPECT_THAT(std::string(io_->Submit(absl::MakeSpan(&w, 1)).message()),
              HasSubstr("not inside registered buffer"));
  w.registered_buffer = 77;
  EXPECT_THAT(std::string(io_->Submit(absl::MakeSpan(&w, 1)).message()),
              HasSubstr("registered buffer 77 does not exist"));
  EXPECT_EQ(io_->RegisterBuffer(nullptr, 0).status().code(),
            absl::StatusCode::kInvalidArgument);
  // Unregistering: requests naming it are refused, the others still work
  // (the rings re-register a table with an empty slot).
  ASSERT_OK(io_->UnregisterBuffer(ia));
  w.registered_buffer = ia;
  EXPECT_THAT(std::string(io_->Submit(absl::MakeSpan(&w, 1)).message()),
              HasSubstr("registered buffer " + std::to_string(ia) + " does not exist"));
  FillPattern(b.data(), b.size(), 8);
  IoRequest wb = MakeWrite(f, kBlock, b.data(), kBlock, ib);
  ASSERT_OK(io_->Submit(absl::MakeSpan(&wb, 1)));
  ASSERT_OK(io_->ReadAt(f, kBlock, in.data(), kBlock));
  EXPECT_EQ(std::memcmp(in.data(), b.data(), kBlock), 0);
  EXPECT_FALSE(io_->UnregisterBuffer(ia).ok());
  ASSERT_OK(io_->Close(f));
}

TEST_P(IoBackendTest, TruncateAndFallocateModes) {
  const FileHandle f = OpenNew("falloc.img");
  AlignedBuffer buf(4 * kBlock), in(4 * kBlock);
  FillPattern(buf.data(), buf.size(), 6);
  ASSERT_OK(io_->WriteAt(f, 0, buf.data(), buf.size()));
  for (AllocateMode mode : {AllocateMode::kAllocate, AllocateMode::kKeepSize,
                            AllocateMode::kZeroRange, AllocateMode::kPunchHole}) {
    SCOPED_TRACE(std::string(AllocateModeName(mode)));
    ASSERT_OK_AND_ASSIGN(uint64_t before, io_->Size(f));
    absl::Status s;
    switch (mode) {
      case AllocateMode::kAllocate:
        s = io_->Allocate(f, mode, 4 * kBlock, 4 * kBlock);  // extends to 8 blocks
        break;
      case AllocateMode::kKeepSize:
        s = io_->Allocate(f, mode, 8 * kBlock, 8 * kBlock);  // beyond EOF, size kept
        break;
      case AllocateMode::kZeroRange:
        s = io_->Allocate(f, mode, 1 * kBlock, kBlock);
        break;
      case AllocateMode::kPunchHole:
        s = io_->Allocate(f, mode, 2 * kBlock, kBlock);
        break;
    }
    if (s.code() == absl::StatusCode::kUnimplemented) {
      GTEST_SKIP() << "the filesystem refuses fallocate " << AllocateModeName(mode) << ": "
                   << s;
    }
    ASSERT_OK(s);
    ASSERT_OK_AND_ASSIGN(uint64_t after, io_->Size(f));
    EXPECT_EQ(after, mode == AllocateMode::kAllocate ? 8 * kBlock : before);
  }
  ASSERT_OK(io_->ReadAt(f, 0, in.data(), in.size()));
  EXPECT_EQ(std::memcmp(in.data(), buf.data(), kBlock), 0);
  EXPECT_TRUE(std::all_of(in.data() + kBlock, in.data() + 3 * kBlock,
                          [](uint8_t b) { return b == 0; }));  // zeroed + punched
  EXPECT_EQ(std::memcmp(in.data() + 3 * kBlock, buf.data() + 3 * kBlock, kBlock), 0);
  ASSERT_OK(io_->Truncate(f, kBlock));
  ASSERT_OK_AND_ASSIGN(uint64_t size, io_->Size(f));
  EXPECT_EQ(size, kBlock);
  ASSERT_OK(io_->Close(f));
}

TEST_P(IoBackendTest, BlockFileCreateOpenAndErrors) {
  const std::string path = dir_.File("disk.img");
  const BlockFileOptions opts{.block_size = 8192, .block_count = 1 << 20,
                              .direct = GetParam().direct};  // 8 GiB, sparse
  ASSERT_OK_AND_ASSIGN(auto disk, BlockFile::Create(io_.get(), path, opts));
  EXPECT_EQ(disk->size_bytes(), 8192ull << 20);
  EXPECT_EQ(disk->IsDirect(), GetParam().direct);
  EXPECT_LT(::cellsim::testing::AllocatedBytes(path), 1u << 20);
  AlignedBuffer out(16384), in(16384);
  FillPattern(out.data(), out.size(), 7);
  ASSERT_OK(disk->Write(8192 * 1000, out.span()));
  ASSERT_OK(disk->Sync());
  ASSERT_OK(disk->Read(8192 * 1000, in.span()));
  EXPECT_EQ(std::memcmp(in.data(), out.data(), in.size()), 0);

  absl::Status s = disk->Write(100, out.span());
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("not a multiple of the block size 8192"));
  s = disk->Read(disk->size_bytes() - 8192, in.span());
  EXPECT_EQ(s.code(), absl::StatusCode::kOutOfRange);
  EXPECT_THAT(std::string(s.message()), HasSubstr(path));
  EXPECT_THAT(std::string(s.message()), HasSubstr("past its end"));
  ASSERT_OK(disk->Discard(8192 * 1000, 8192));
  ASSERT_OK(disk->Read(8192 * 1000, in.span()));
  EXPECT_TRUE(std::all_of(in.data(), in.data() + 8192, [](uint8_t b) { return b == 0; }));
  ASSERT_OK(disk->Close());
  EXPECT_EQ(disk->Read(0, in.span()).code(), absl::StatusCode::kFailedPrecondition);

  ASSERT_OK_AND_ASSIGN(auto again, BlockFile::Open(io_.get(), path, opts));
  EXPECT_EQ(again->block_count(), 1u << 20);
  ASSERT_OK(again->Read(8192 * 1001, absl::MakeSpan(in.data(), 8192)));
  EXPECT_EQ(std::memcmp(in.data(), out.data() + 8192, 8192), 0);
  again.reset();

  ASSERT_OK_AND_ASSIGN(auto derived, BlockFile::Open(io_.get(), path,
                                                     {.block_size = 8192, .direct = opts.direct}));
  EXPECT_EQ(derived->block_count(), 1u << 20);
  derived.reset();

  auto mismatch = BlockFile::Open(io_.get(), path,
                                  {.block_size = 8192, .block_count = 100, .direct = opts.direct});
  EXPECT_EQ(mismatch.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(mismatch.status().message()), HasSubstr(path));
  EXPECT_THAT(std::string(mismatch.status().message()),
              HasSubstr("size is 8589934592 bytes, expected 819200"));

  auto missing = BlockFile::Open(io_.get(), dir_.File("nope.img"), opts);
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  auto bad = BlockFile::Create(io_.get(), path, {.block_size = 1000, .block_count = 1});
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("block size 1000"));
  auto empty = BlockFile::Create(io_.get(), path, {.block_size = 4096, .block_count = 0});
  EXPECT_EQ(empty.status().code(), absl::StatusCode::kInvalidArgument);
}

INSTANTIATE_TEST_SUITE_P(Backends, IoBackendTest, ::testing::ValuesIn(kAllBackends),
                         ParamName);

TEST(IoBackendFactoryTest, MakesBackendsByKind) {
  ASSERT_OK_AND_ASSIGN(auto posix, MakeBackend(BackendKind::kPosix));
  EXPECT_EQ(posix->Name(), "posix");
  EXPECT_EQ(*ParseBackendKind("posix"), BackendKind::kPosix);
  EXPECT_EQ(*ParseBackendKind("io_uring"), BackendKind::kUring);
  EXPECT_THAT(std::string(ParseBackendKind("spdk").status().message()), HasSubstr("'spdk'"));
  EXPECT_EQ(AllocateModeName(AllocateMode::kPunchHole), "punch-hole");
  REQUIRE_URING();
  auto uring = MakeBackend(BackendKind::kUring, {.queue_depth = 8});
  ASSERT_OK(uring);
  EXPECT_EQ((*uring)->Name(), "io_uring");
  EXPECT_EQ(MakeUringBackend({.queue_depth = 0}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(AlignedBufferTest, IsAlignedZeroedAndMovable) {
  AlignedBuffer a(10000);
  EXPECT_TRUE(IsAligned(reinterpret_cast<uintptr_t>(a.data()), kDirectAlignment));
  EXPECT_TRUE(std::all_of(a.data(), a.data() + a.size(), [](uint8_t b) { return b == 0; }));
  uint8_t* p = a.data();
  AlignedBuffer b = std::move(a);
  EXPECT_EQ(b.data(), p);
  EXPECT_EQ(a.data(), nullptr);  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(AlignUp(4097, 4096), 8192u);
  EXPECT_EQ(AlignDown(4097, 4096), 4096u);
}

}  // namespace
}  // namespace cellsim::io
