// The seed command at its real size (2 members of 4096 MiB, NORMAL, AU 4 MiB,
// write-back) on asmgr::DefaultRackConfig(), by the fast path only: metadata
// only, so it is cheap. The size-derived figures must equal the seed's.
#include <cmath>
#include <cstdio>

#include "cellsim/db/database.h"
#include "db/db_test_util.h"
#include "gtest/gtest.h"
#include "testing/test_util.h"

namespace cellsim::db {
namespace {

using stats::Stat;
using stats::Wait;

TEST(SeedFullSize, FastPathFiguresAreExact) {
  cellsim::testing::TempDir tmp;
  auto io = io::MakePosixBackend();
  ASSERT_OK_AND_ASSIGN(auto rack, asmgr::Rack::Create(io.get(), SystemClock(),
                                                      tmp.path() + "/rack",
                                                      asmgr::DefaultRackConfig()));
  ASSERT_OK_AND_ASSIGN(auto db, Database::Create(rack.get()));
  auto s = db->NewSession();
  ASSERT_OK_AND_ASSIGN(
      StatementResult r,
      s->Execute("alter database add logfile thread 2 group 5 ('+DATA','+RECO') size 4096m"));
  EXPECT_EQ(r.path, "fast");
  const stats::StatValues& st = r.statistics;
  EXPECT_EQ(st[Stat::kCellPhysicalIoBytesSavedDuringOptimizedFileCreation], 17'179'869'184);
  EXPECT_EQ(st[Stat::kCellPhysicalIoBytesEligibleForPredicateOffload], 17'179'869'184);
  EXPECT_EQ(st[Stat::kPhysicalWriteTotalMultiBlockRequests], 4'096);
  const double total = static_cast<double>(st[Stat::kPhysicalWriteTotalBytes]);
  EXPECT_LE(std::fabs(total - 17'180'197'888.0) / 17'180'197'888.0, 0.0001) << total;
  EXPECT_LE(st[Stat::kPhysicalWriteTotalMultiBlockRequests],
            st[Stat::kPhysicalWriteTotalIoRequests]);
  std::printf("seed at 4096m, fast path: elapsed %.3f s, cpu %.3f s\n", r.elapsed_ns / 1e9,
              r.cpu_ns / 1e9);
  for (size_t i = 0; i < stats::kStatCount; ++i) {
    if (st.v[i] != 0) std::printf("  %-62s %16lld\n", stats::kStatTable[i].name.data(),
                                  static_cast<long long>(st.v[i]));
  }
  for (size_t i = 0; i < stats::kWaitCount; ++i) {
    const stats::WaitValue& w = r.waits.v[i];
    if (w.count != 0) {
      std::printf("  wait %-45s %6lld  max %.4f s  total %.4f s\n",
                  stats::kWaitTable[i].name.data(), static_cast<long long>(w.count),
                  w.max_ns / 1e9, w.total_ns / 1e9);
    }
  }
  s.reset();
  db.reset();
  ASSERT_OK(rack->Close());
}

}  // namespace
}  // namespace cellsim::db
