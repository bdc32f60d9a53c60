// Two threads using one backend at once (each backend of the conformance
// suite): batches on disjoint ranges of a shared file and on a file each,
// checked afterwards. Runs under TSan (label `concurrent`).
#include <cstring>
#include <thread>
#include <vector>

#include "cellsim/io/io_backend.h"
#include "io/backend_params.h"
#include "testing/test_util.h"

namespace cellsim::io {
namespace {

using ::cellsim::testing::TempDir;
using namespace ::cellsim::io::testing;  // NOLINT

constexpr size_t kBlock = 4096;
constexpr size_t kBlocksPerThread = 256;
constexpr int kRounds = 20;

class IoConcurrentTest : public ::testing::TestWithParam<BackendParam> {};

TEST_P(IoConcurrentTest, TwoThreadsSubmitConcurrently) {
  TempDir dir;
  REQUIRE_BACKEND(GetParam(), dir.path());
  auto made = MakeTestBackend(GetParam().flavor, 8);
  ASSERT_OK(made);
  IoBackend* io = made->get();
  const bool direct = GetParam().direct;
  ASSERT_OK_AND_ASSIGN(FileHandle shared,
                       io->Open(dir.File("shared.img"), {.create = true, .direct = direct}));
  AlignedBuffer zero(kBlock);
  ASSERT_OK_AND_ASSIGN(int reg, io->RegisterBuffer(zero.data(), zero.size()));
  std::vector<AlignedBuffer> data;
  for (int t = 0; t < 2; ++t) {
    data.emplace_back(kBlocksPerThread * kBlock);
    FillPattern(data.back().data(), data.back().size(), 100 + t);
  }
  auto worker = [&](int t) {
    auto own = io->Open(dir.File("own" + std::to_string(t) + ".img"),
                        {.create = true, .direct = direct});
    ASSERT_OK(own);
    std::vector<IoRequest> reqs;
    for (int round = 0; round < kRounds; ++round) {
      reqs.clear();
      for (size_t b = 0; b < kBlocksPerThread; ++b) {
        const uint64_t off = (t * kBlocksPerThread + b) * kBlock;
        reqs.push_back(MakeWrite(shared, off, data[t].data() + b * kBlock, kBlock));
        reqs.push_back(MakeWrite(*own, b * kBlock, zero.data(), kBlock, reg));
      }
      ASSERT_OK(io->Submit(absl::MakeSpan(reqs)));
      if (round == kRounds / 2) {  // registering while the other thread submits
        ASSERT_OK(io->RegisterBuffer(data[t].data(), data[t].size()));
      }
    }
    AlignedBuffer in(kBlocksPerThread * kBlock);
    ASSERT_OK(io->ReadAt(shared, t * kBlocksPerThread * kBlock, in.data(), in.size()));
    EXPECT_EQ(std::memcmp(in.data(), data[t].data(), in.size()), 0) << "thread " << t;
    ASSERT_OK(io->Sync(*own, SyncKind::kData));
    ASSERT_OK(io->Close(*own));
  };
  std::thread a(worker, 0), b(worker, 1);
  a.join();
  b.join();
  const IoBackendCounters c = io->Counters();
  EXPECT_EQ(c.writes, 2u * kRounds * kBlocksPerThread * 2);
  ASSERT_OK(io->Close(shared));
}

INSTANTIATE_TEST_SUITE_P(Backends, IoConcurrentTest, ::testing::ValuesIn(kAllBackends),
                         ParamName);

}  // namespace
}  // namespace cellsim::io
