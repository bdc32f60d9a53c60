// The seed command at its real size (2 members of 4096 MiB) on the seed's rack
// configuration (docs/statistics.md "The seed's rack"): every statistic of the
// seed's table and the waits, as the model of docs/statistics.md gives them.
// The +RECO member is made by smart creation (RECO's grid disks do not cache),
// so the cells write 8 GiB: a backend decorator drops those large formatting
// writes to the grid disks (nothing reads them back here), which keeps the
// test fast and small; every statistic comes from the requests, not the bytes.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "cellsim/db/accounting.h"
#include "cellsim/db/database.h"
#include "cellsim/io/io_backend_wrapper.h"
#include "db/db_test_util.h"
#include "db/seed_table.h"
#include "gtest/gtest.h"
#include "testing/test_util.h"

namespace cellsim::db {
namespace {

using stats::Stat;
using stats::Wait;

// Drops writes of at least 1 MiB to grid-disk images (celNN/<grid disk>.img):
// only the cells' smart-creation formatting writes are that large here.
class DropLargeGridDiskWrites : public io::IoBackendWrapper {
 public:
  using IoBackendWrapper::IoBackendWrapper;
  absl::Status Submit(absl::Span<io::IoRequest> requests) override {
    std::vector<io::IoRequest> pass;
    std::vector<size_t> where;
    for (size_t i = 0; i < requests.size(); ++i) {
      io::IoRequest& r = requests[i];
      if (r.op == io::IoOp::kWrite && r.length >= (1u << 20) && IsGridDisk(r.file)) {
        r.status = absl::OkStatus();
        r.transferred = r.length;
        continue;
      }
      pass.push_back(r);
      where.push_back(i);
    }
    absl::Status st = target()->Submit(absl::MakeSpan(pass));
    for (size_t k = 0; k < pass.size(); ++k) requests[where[k]] = pass[k];
    return st;
  }
  absl::Status SubmitStream(absl::FunctionRef<bool(io::IoRequest&)> next,
                            absl::FunctionRef<void(io::IoRequest&)> on_complete) override {
    return IoBackend::SubmitStream(next, on_complete);
  }

 private:
  bool IsGridDisk(io::FileHandle f) const {
    absl::StatusOr<std::string> p = PathOf(f);
    return p.ok() && p->size() > 4 && p->ends_with(".img") && !p->ends_with("flash.img");
  }
};

TEST(SeedFullSize, EveryStatisticOfTheSeedsTable) {
  cellsim::testing::TempDir tmp;
  auto io = std::make_unique<DropLargeGridDiskWrites>(io::MakePosixBackend());
  ASSERT_OK_AND_ASSIGN(auto rack, asmgr::Rack::Create(io.get(), SystemClock(),
                                                      tmp.path() + "/rack", SeedRackConfig()));
  ASSERT_OK_AND_ASSIGN(auto db, Database::Create(rack.get()));
  auto s = db->NewSession();
  ASSERT_OK(s->Execute("alter session set sql_trace = true").status());  // every wait's P1-P3
  ASSERT_OK_AND_ASSIGN(StatementResult r, s->Execute(std::string(kSeedStatement)));
  ASSERT_EQ(r.files.size(), 2u);
  EXPECT_EQ(r.files[0].path, CreationPath::kFast);   // +DATA: write-back cached
  EXPECT_EQ(r.files[1].path, CreationPath::kSmart);  // +RECO: cachingPolicy=none
  const stats::StatValues& st = r.statistics;
  // Oracle's CONTROLFILE template mirrors the control files 3-way even in a
  // NORMAL group (docs/statistics.md): each of the 10 writes to the +DATA
  // control file lands in flash 3 times and each of the 20 control-file block
  // writes crosses the interconnect 3 times, as the seed's figures say.
  for (const char* dg : {"DATA", "RECO"}) {
    ASSERT_OK_AND_ASSIGN(asmgr::DiskGroup * g, rack->disk_group(dg));
    for (const asmgr::FileInfo& f : g->ListFiles()) {
      const uint32_t want = f.type == asmgr::FileType::kControlFile ? 3 : 2;
      EXPECT_EQ(f.copies, want) << f.name;
    }
  }
  for (const SeedRow& row : kSeedStatistics) {
    if (row.stat == Stat::kCellLogicalWriteIoRequests) continue;  // its own rule, below
    EXPECT_EQ(st[row.stat], row.seed) << stats::StatName(row.stat);
  }
  // cell logical write IO requests: logical write requests that reached the
  // cells (docs/statistics.md: [I]): 20 control-file block writes + 2 headers.
  EXPECT_EQ(st[Stat::kCellLogicalWriteIoRequests], 22);
  EXPECT_EQ(st[Stat::kCellPartialWritesInFlashCache], 0);
  EXPECT_EQ(r.waits[Wait::kControlFileParallelWrite].count, 10);
  EXPECT_EQ(r.waits[Wait::kControlFileSequentialRead].count, 23);
  EXPECT_EQ(r.waits[Wait::kLogFileSingleWrite].count, 2);
  const int64_t creation_requests = 4'104;
  const int64_t waits = r.waits[Wait::kCellSmartFileCreation].count;
  EXPECT_GE(waits, creation_requests * 60 / 100);
  EXPECT_LE(waits, creation_requests * 95 / 100);
  EXPECT_LE(r.waits[Wait::kCellSmartFileCreation].total_ns, r.elapsed_ns);
  std::printf("seed at 4096m: elapsed %.3f s, cpu %.3f s; %lld creation waits for %lld requests "
              "(%.0f %%; the seed: 3,258, 79 %%)\n",
              r.elapsed_ns / 1e9, r.cpu_ns / 1e9, static_cast<long long>(waits),
              static_cast<long long>(creation_requests), 100.0 * waits / creation_requests);
  const std::string table = FormatSeedTable(st);
  std::printf("%s", table.c_str());
  // docs/statistics.md shows this very table: it must be the one computed.
  std::ifstream doc(CELLSIM_SOURCE_DIR "/docs/statistics.md");
  ASSERT_TRUE(doc.good()) << "docs/statistics.md not found under " << CELLSIM_SOURCE_DIR;
  std::stringstream text;
  text << doc.rdbuf();
  const std::string md = text.str();
  const std::string begin = "<!-- seed-table:begin -->\n", end = "<!-- seed-table:end -->";
  const size_t b = md.find(begin), e = md.find(end);
  ASSERT_TRUE(b != std::string::npos && e != std::string::npos && b < e)
      << "docs/statistics.md lacks the seed-table markers";
  EXPECT_EQ(md.substr(b + begin.size(), e - b - begin.size()), table)
      << "docs/statistics.md's seed table differs from the computed one: replace it with the "
         "table printed above";
  for (size_t i = 0; i < stats::kWaitCount; ++i) {
    const stats::WaitValue& w = r.waits.v[i];
    if (w.count != 0) {
      std::printf("  wait %-45s %6lld  max %.4f s  total %.4f s\n",
                  stats::kWaitTable[i].name.data(), static_cast<long long>(w.count),
                  w.max_ns / 1e9, w.total_ns / 1e9);
    }
  }
  // Each creation wait names a cell of the rack by its cellhash# (V$CELL's
  // CELL_HASHVAL); each control-file write goes to the 2 control files.
  std::set<uint64_t> cells, waited_on;
  for (uint32_t c = 0; c < rack->cell_count(); ++c) {
    cells.insert(internal::CellHashValue(rack->cell(c)->name()));
  }
  int64_t all_waits = 0;
  for (const stats::WaitValue& w : r.waits.v) all_waits += w.count;
  ASSERT_EQ(static_cast<int64_t>(r.wait_events.size()), all_waits);
  for (const stats::WaitEvent& e : r.wait_events) {
    if (e.event == Wait::kCellSmartFileCreation) {
      EXPECT_EQ(cells.count(e.params.p1), 1u) << e.params.p1;
      waited_on.insert(e.params.p1);
    }
    if (e.event == Wait::kControlFileParallelWrite) {
      EXPECT_EQ(e.params.p1, 2u);  // files
      EXPECT_EQ(e.params.p3, 2u);  // requests
    }
  }
  EXPECT_EQ(waited_on, cells);  // 4,104 requests reach every cell
  s.reset();
  db.reset();
  ASSERT_OK(rack->Close());
}

}  // namespace
}  // namespace cellsim::db
