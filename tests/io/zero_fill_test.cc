// The zero-fill engine and the probe.
#include "cellsim/io/zero_fill.h"

#include <cstring>

#include "cellsim/io/probe.h"
#include "io/backend_params.h"
#include "testing/test_util.h"

namespace cellsim::io {
namespace {

using ::cellsim::testing::TempDir;
using ::testing::HasSubstr;
using namespace ::cellsim::io::testing;  // NOLINT

class ZeroFillTest : public ::testing::TestWithParam<BackendParam> {};

TEST_P(ZeroFillTest, ZeroesExactlyTheRangeAndReportsLatencies) {
  TempDir dir;
  REQUIRE_BACKEND(GetParam(), dir.path());
  ASSERT_OK_AND_ASSIGN(auto io, MakeTestBackend(GetParam().flavor, 4));
  const std::string path = dir.File("z.img");
  ASSERT_OK_AND_ASSIGN(FileHandle f,
                       io->Open(path, {.create = true, .direct = GetParam().direct}));
  // Non-zero content around and inside the range.
  constexpr size_t kSize = 1 << 20;
  AlignedBuffer data(kSize);
  FillPattern(data.data(), kSize, 9);
  ASSERT_OK(io->WriteAt(f, 0, data.data(), kSize));
  ASSERT_OK_AND_ASSIGN(auto filler, ZeroFiller::Create(io.get(), {.block_size = 64 << 10}));
  // 200 KiB from 12 KiB: three full requests and a short last one.
  ASSERT_OK_AND_ASSIGN(ZeroFillResult r, filler->Fill(f, 12 << 10, 200 << 10));
  EXPECT_EQ(r.bytes, 200u << 10);
  EXPECT_EQ(r.requests, 4u);
  EXPECT_GT(r.p50_ns, 0u);
  EXPECT_LE(r.p50_ns, r.p99_ns);
  EXPECT_LE(r.p99_ns, r.p999_ns);
  EXPECT_LE(r.p999_ns, r.max_ns);
  AlignedBuffer in(kSize);
  ASSERT_OK(io->ReadAt(f, 0, in.data(), kSize));
  EXPECT_EQ(std::memcmp(in.data(), data.data(), 12 << 10), 0);
  EXPECT_TRUE(std::all_of(in.data() + (12 << 10), in.data() + (212 << 10),
                          [](uint8_t b) { return b == 0; }));
  EXPECT_EQ(std::memcmp(in.data() + (212 << 10), data.data() + (212 << 10),
                        kSize - (212 << 10)), 0);
  // Extending a file, reusing the filler (and its registered buffer).
  ASSERT_OK_AND_ASSIGN(r, filler->Fill(f, kSize, kSize));
  EXPECT_EQ(r.requests, 16u);
  ASSERT_OK_AND_ASSIGN(uint64_t size, io->Size(f));
  EXPECT_EQ(size, 2 * kSize);
  if (GetParam().direct) {
    auto bad = filler->Fill(f, 100, 4096);
    EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(bad.status().message()), HasSubstr("O_DIRECT"));
  }
  filler.reset();
  ASSERT_OK(io->Close(f));
}

TEST_P(ZeroFillTest, FailuresSurface) {
  TempDir dir;
  REQUIRE_BACKEND(GetParam(), dir.path());
  ASSERT_OK_AND_ASSIGN(auto base, MakeTestBackend(GetParam().flavor, 4));
  FaultInjectionBackend fault(std::move(base));
  ASSERT_OK_AND_ASSIGN(FileHandle f, fault.Open(dir.File("f.img"), {.create = true}));
  fault.FailNth({.ops = kOpWrite, .path_substring = {}}, 3);
  auto r = ZeroFill(&fault, f, 0, 10 * 4096, {.block_size = 4096});
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("FailNth"));
  EXPECT_THAT(std::string(r.status().message()), HasSubstr(dir.File("f.img")));
  ASSERT_OK(fault.Close(f));
}

INSTANTIATE_TEST_SUITE_P(Backends, ZeroFillTest, ::testing::ValuesIn(kAllBackends), ParamName);

TEST(LatencyHistogramTest, PercentilesWithinPrecision) {
  LatencyHistogram h;
  EXPECT_EQ(h.Percentile(0.5), 0u);
  for (uint64_t v = 1; v <= 100000; ++v) h.Record(v * 1000);  // 1 us .. 100 ms
  EXPECT_EQ(h.count(), 100000u);
  EXPECT_NEAR(static_cast<double>(h.Percentile(0.5)), 50e6, 50e6 * 0.02);
  EXPECT_NEAR(static_cast<double>(h.Percentile(0.99)), 99e6, 99e6 * 0.02);
  EXPECT_NEAR(static_cast<double>(h.Percentile(0.999)), 99.9e6, 99.9e6 * 0.02);
  EXPECT_EQ(h.Percentile(1.0), 100000u * 1000);
  EXPECT_EQ(h.max(), 100000u * 1000);
  LatencyHistogram small;
  for (uint64_t v : {3, 5, 7}) small.Record(v);
  EXPECT_EQ(small.Percentile(0.5), 5u);  // exact below 64 ns
}

TEST(ProbeTest, ReportsTheDirectoryAndAllModes) {
  TempDir dir;
  ASSERT_OK_AND_ASSIGN(ProbeReport p, ProbeIo(dir.path()));
  EXPECT_EQ(p.directory, dir.path());
  EXPECT_FALSE(p.kernel.empty());
  EXPECT_FALSE(p.filesystem.empty());
  EXPECT_EQ(p.direct_io, ::cellsim::testing::RequireDirectIo(dir.path()).empty());
  EXPECT_EQ(p.io_mode, p.direct_io ? "O_DIRECT" : "buffered (only with --buffered)");
  ASSERT_EQ(p.fallocate.size(), 4u);
  EXPECT_EQ(p.fallocate[3].name, "punch-hole");
  if (p.io_uring) {
    EXPECT_EQ(p.opcodes.size(), 4u);
    EXPECT_EQ(p.backend, "io_uring");
  }
  auto missing = ProbeIo(dir.File("nope"));
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(missing.status().message()), HasSubstr(dir.File("nope")));
}

}  // namespace
}  // namespace cellsim::io
