// The creation engine on real racks: the seed command by each path at 64 MiB,
// the statistics model, byte equality of the paths, progress.
#include <cstring>
#include <string>

#include "cellsim/db/database.h"
#include "cellsim/format/block_template.h"
#include "db/db_test_util.h"
#include "fmt/format.h"
#include "gtest/gtest.h"
#include "testing/test_util.h"

namespace cellsim::db {
namespace {

using ::cellsim::db::testing::Count;
using ::cellsim::db::testing::ReadAsmFile;
using ::cellsim::db::testing::SmallRack;
using ::cellsim::testing::TempDir;
using stats::Stat;
using stats::Wait;

constexpr uint64_t kSize = 64 * kMiB;
constexpr char kSeed[] = "alter database add logfile thread 2 group 5 ('+DATA','+RECO') size 64m";

std::string SessionSetting(CreationPath p) {
  switch (p) {
    case CreationPath::kZeroFill:
      return "alter session set \"_cell_fast_file_create\" = false";
    case CreationPath::kSmart:
      return "alter session set cellsim_fast_file_create_metadata = false";
    case CreationPath::kFast:
      return "alter session set \"_cell_fast_file_create\" = true";
  }
  return "";
}

class Fixture {
 public:
  explicit Fixture(const std::string& dir, Clock* clock = SystemClock(),
                   asmgr::RackConfig cfg = SmallRack())
      : io_(io::MakePosixBackend()) {
    auto rack = asmgr::Rack::Create(io_.get(), clock, dir + "/rack", cfg);
    EXPECT_TRUE(rack.ok()) << rack.status();
    if (!rack.ok()) return;
    rack_ = *std::move(rack);
    auto db = Database::Create(rack_.get());
    EXPECT_TRUE(db.ok()) << db.status();
    if (db.ok()) db_ = *std::move(db);
  }
  ~Fixture() {
    db_.reset();
    if (rack_) EXPECT_OK(rack_->Close());
  }
  bool ok() const { return db_ != nullptr; }
  asmgr::Rack* rack() { return rack_.get(); }
  Database* db() { return db_.get(); }
  asmgr::DiskGroup* dg(const std::string& name) { return *rack_->disk_group(name); }

 private:
  std::unique_ptr<io::IoBackend> io_;
  std::unique_ptr<asmgr::Rack> rack_;
  std::unique_ptr<Database> db_;
};

class SeedByPath : public ::testing::TestWithParam<CreationPath> {};

TEST_P(SeedByPath, StatisticsFollowTheModel) {
  TempDir tmp;
  Fixture f(tmp.path());
  ASSERT_TRUE(f.ok());
  const CreationPath path = GetParam();
  auto s = f.db()->NewSession();
  ASSERT_OK(s->Execute(SessionSetting(path)));
  ASSERT_OK_AND_ASSIGN(StatementResult r, s->Execute(kSeed));
  EXPECT_EQ(r.path, CreationPathName(path)) << r.path_reason;
  EXPECT_EQ(r.kind, "ALTER DATABASE ADD LOGFILE");
  ASSERT_EQ(r.files.size(), 2u);
  EXPECT_EQ(r.execute.current, 2);
  EXPECT_EQ(r.parse.count, 1);
  EXPECT_EQ(r.execute.count, 1);

  const stats::StatValues& st = r.statistics;
  const stats::WaitValues& w = r.waits;
  const uint32_t copies = f.dg("DATA")->copies();
  const int64_t formatted = static_cast<int64_t>(kSize * 2 * copies);  // members x copies
  const int64_t au = static_cast<int64_t>(f.dg("DATA")->au_size());

  // Small writes: each control-file change writes one 16 KiB block to both
  // control files, each mirrored; each member header is one redo block per copy.
  const int64_t small = Count(w, Wait::kControlFileParallelWrite) * 2 * 16384 * copies +
                        Count(w, Wait::kLogFileSingleWrite) * 512 * copies;
  const int64_t small_requests = Count(w, Wait::kControlFileParallelWrite) * 2 * copies +
                                 Count(w, Wait::kLogFileSingleWrite) * copies;
  EXPECT_EQ(Count(w, Wait::kControlFileParallelWrite), 2);  // CREATING, then AVAILABLE
  EXPECT_EQ(Count(w, Wait::kLogFileSingleWrite), 2);        // one per member
  EXPECT_EQ(Count(w, Wait::kKsvMasterWait), 2);              // one allocation per member
  EXPECT_EQ(Count(w, Wait::kDiskFileOperationsIo), 2);
  EXPECT_EQ(Count(w, Wait::kAsmFileMetadataOperation), 2);
  EXPECT_EQ(Count(w, Wait::kControlFileSequentialRead), 3);
  EXPECT_EQ(st[Stat::kPhysicalWriteTotalBytes], formatted + small);
  EXPECT_EQ(st[Stat::kPhysicalReadTotalIoRequests], 3);
  EXPECT_EQ(st[Stat::kPhysicalReadTotalBytes], 3 * 16384);

  if (path == CreationPath::kZeroFill) {
    EXPECT_EQ(st[Stat::kCellPhysicalIoBytesSavedDuringOptimizedFileCreation], 0);
    EXPECT_EQ(st[Stat::kCellPhysicalIoBytesEligibleForPredicateOffload], 0);
    EXPECT_EQ(Count(w, Wait::kCellSmartFileCreation), 0);
    const ZeroFillOptions& zf = f.db()->options().zero_fill;
    const int64_t req = static_cast<int64_t>(zf.request_bytes);
    const int64_t batch = req * zf.requests_per_batch;
    EXPECT_EQ(Count(w, Wait::kLogFileInitWrite),
              2 * ((static_cast<int64_t>(kSize) + batch - 1) / batch));
    EXPECT_EQ(st[Stat::kPhysicalWriteTotalMultiBlockRequests], formatted / req);
    EXPECT_EQ(st[Stat::kPhysicalWriteTotalIoRequests], formatted / req + small_requests);
    // The formatted bytes cross the interconnect, plus the small writes and reads.
    EXPECT_EQ(st[Stat::kCellPhysicalIoInterconnectBytes], formatted + small + 3 * 16384);
    EXPECT_EQ(st[Stat::kCellLogicalWriteIoRequests],
              formatted / copies / req + small_requests / copies);
  } else {
    EXPECT_EQ(st[Stat::kCellPhysicalIoBytesSavedDuringOptimizedFileCreation], formatted);
    EXPECT_EQ(st[Stat::kCellPhysicalIoBytesEligibleForPredicateOffload], formatted);
    EXPECT_EQ(st[Stat::kPhysicalWriteTotalMultiBlockRequests], formatted / au);
    EXPECT_EQ(st[Stat::kPhysicalWriteTotalIoRequests], formatted / au + small_requests);
    EXPECT_GT(Count(w, Wait::kCellSmartFileCreation), 0);
    EXPECT_EQ(Count(w, Wait::kLogFileInitWrite), 0);
    // Only messages and small writes cross: one request/reply per extent copy.
    const int64_t exchange =
        st[Stat::kCellPhysicalIoInterconnectBytes] - small - 3 * 16384;
    EXPECT_GT(exchange, 0);
    EXPECT_EQ(exchange % (formatted / au), 0) << exchange;
    EXPECT_LT(st[Stat::kCellPhysicalIoInterconnectBytes], 1 << 20);
    EXPECT_EQ(st[Stat::kCellLogicalWriteIoRequests], small_requests / copies);
    if (path == CreationPath::kFast) {
      // One FormatRange call per cell per member (both members at once).
      EXPECT_EQ(Count(w, Wait::kCellSmartFileCreation), 2 * 3);
    }
  }
  // Invariants (statistics.h).
  EXPECT_LE(st[Stat::kPhysicalWriteTotalMultiBlockRequests],
            st[Stat::kPhysicalWriteTotalIoRequests]);
  EXPECT_LE(st[Stat::kPhysicalWriteRequestsOptimized], st[Stat::kPhysicalWriteTotalIoRequests]);
  EXPECT_LE(st[Stat::kPhysicalWriteTotalBytesOptimized], st[Stat::kPhysicalWriteTotalBytes]);
  EXPECT_LE(st[Stat::kPhysicalWriteIoRequests], st[Stat::kPhysicalWriteTotalIoRequests]);
  EXPECT_LE(st[Stat::kPhysicalWriteBytes], st[Stat::kPhysicalWriteTotalBytes]);
  EXPECT_LE(st[Stat::kPhysicalReadRequestsOptimized], st[Stat::kPhysicalReadTotalIoRequests]);
  // The small writes land in the write-back flash cache.
  EXPECT_GT(st[Stat::kCellWritesToFlashCache], 0);
  EXPECT_EQ(st[Stat::kPhysicalWriteRequestsOptimized], st[Stat::kCellWritesToFlashCache]);
  EXPECT_EQ(st[Stat::kExecuteCount], 1);
  EXPECT_EQ(st[Stat::kParseCountTotal], 1);
  // Waits never add up to more than the elapsed time.
  uint64_t waited = 0;
  for (const stats::WaitValue& v : w.v) waited += v.total_ns;
  EXPECT_LE(waited, r.elapsed_ns);

  std::string report;
  for (size_t i = 0; i < stats::kStatCount; ++i) {
    if (st.v[i] != 0) report += fmt::format("  {:<62} {:>14}\n", stats::kStatTable[i].name, st.v[i]);
  }
  for (size_t i = 0; i < stats::kWaitCount; ++i) {
    if (w.v[i].count != 0) {
      report += fmt::format("  wait {:<57} {:>6} {:>10.6f}s\n", stats::kWaitTable[i].name,
                            w.v[i].count, w.v[i].total_ns / 1e9);
    }
  }
  std::printf("seed at 64m, path %s, elapsed %.3fs:\n%s", r.path.c_str(), r.elapsed_ns / 1e9,
              report.c_str());

  // The table records the group.
  const FileTable t = f.db()->file_table();
  const LogGroup* g = t.FindLogGroup(5);
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->thread, 2u);
  EXPECT_EQ(g->state, EntryState::kAvailable);
  EXPECT_EQ(g->size_bytes, kSize);
  ASSERT_EQ(g->members.size(), 2u);
  EXPECT_EQ(g->members[0].file.disk_group, "DATA");
  EXPECT_EQ(g->members[1].file.disk_group, "RECO");
}

INSTANTIATE_TEST_SUITE_P(Paths, SeedByPath,
                         ::testing::Values(CreationPath::kZeroFill, CreationPath::kSmart,
                                           CreationPath::kFast),
                         [](const auto& info) {
                           return std::string(info.param == CreationPath::kZeroFill ? "ZeroFill"
                                              : info.param == CreationPath::kSmart  ? "Smart"
                                                                                    : "Fast");
                         });

// The core property: a member made by the fast or smart path reads back, byte
// for byte, as the one the database zero-filled, on identically built racks.
TEST(Creation, EveryPathGivesTheSameBytes) {
  std::vector<std::vector<uint8_t>> members;
  for (CreationPath path : {CreationPath::kZeroFill, CreationPath::kSmart, CreationPath::kFast}) {
    TempDir tmp;
    ManualClock clock(0, 1'700'000'000);
    Fixture f(tmp.path(), &clock);
    ASSERT_TRUE(f.ok());
    auto s = f.db()->NewSession();
    ASSERT_OK(s->Execute(SessionSetting(path)));
    ASSERT_OK_AND_ASSIGN(StatementResult r,
                         s->Execute("alter database add logfile group 3 ('+RECO') size 32m"));
    EXPECT_EQ(r.path, CreationPathName(path));
    const FileTable t = f.db()->file_table();
    const LogMember& m = t.FindLogGroup(3)->members.at(0);
    std::vector<uint8_t> bytes = ReadAsmFile(f.dg("RECO"), m.file.number, 32 * kMiB);
    ASSERT_EQ(bytes.size(), 32 * kMiB);
    // Block 0 and blocks >= 2 are what the template generates; block 1 is
    // the log file header with a valid checksum.
    const format::BlockTemplate tmpl{format::BlockKind::kRedo, 512, 3, 32 * kMiB / 512};
    EXPECT_OK(format::VerifyBlock(tmpl, 0, absl::MakeConstSpan(bytes.data(), 512)));
    for (uint64_t b : {uint64_t{2}, uint64_t{3}, uint64_t{8191}, uint64_t{65535}}) {
      EXPECT_OK(format::VerifyBlock(tmpl, b, absl::MakeConstSpan(bytes.data() + b * 512, 512)));
    }
    EXPECT_EQ(bytes[512], format::kRedoSignature);
    EXPECT_EQ(format::RedoBlockChecksum(absl::MakeConstSpan(bytes.data() + 512, 512)),
              bytes[512 + 14] | (bytes[512 + 15] << 8));
    members.push_back(std::move(bytes));
  }
  ASSERT_EQ(members.size(), 3u);
  EXPECT_TRUE(members[0] == members[1]) << "smart differs from zero-fill";
  EXPECT_TRUE(members[0] == members[2]) << "fast differs from zero-fill";
}

// RECO's grid disks with cachingPolicy=none (fidelity.md §6 item 12): the
// seed's member in +RECO is made by the smart path, the one in +DATA by the
// fast path, and the RECO member's bytes still read back as the fast one's.
TEST(Creation, CachingPolicyNoneMakesItsDiskGroupSmart) {
  TempDir tmp;
  asmgr::RackConfig cfg = SmallRack();
  cfg.disk_groups[1].caching_policy = cell::CachingPolicy::kNone;
  Fixture f(tmp.path(), SystemClock(), cfg);
  ASSERT_TRUE(f.ok());
  auto s = f.db()->NewSession();
  ASSERT_OK_AND_ASSIGN(StatementResult r, s->Execute(kSeed));
  ASSERT_EQ(r.files.size(), 2u);
  EXPECT_EQ(r.files[0].path, CreationPath::kFast) << r.files[0].name;
  EXPECT_EQ(r.files[1].path, CreationPath::kSmart) << r.files[1].name;
  EXPECT_THAT(r.files[1].path_reason, ::testing::HasSubstr("cachingPolicy=none"));
  const FileTable t = f.db()->file_table();
  const LogGroup* g = t.FindLogGroup(5);
  ASSERT_NE(g, nullptr);
  ASSERT_OK_AND_ASSIGN(asmgr::FileInfo di, f.dg("DATA")->LookupFile(g->members[0].file.number));
  ASSERT_OK_AND_ASSIGN(asmgr::FileInfo ri, f.dg("RECO")->LookupFile(g->members[1].file.number));
  ASSERT_EQ(di.size_bytes, ri.size_bytes);
  std::vector<uint8_t> data = ReadAsmFile(f.dg("DATA"), di.number, di.size_bytes);
  std::vector<uint8_t> reco = ReadAsmFile(f.dg("RECO"), ri.number, ri.size_bytes);
  EXPECT_TRUE(std::equal(data.begin() + 1024, data.end(), reco.begin() + 1024));
}

TEST(Creation, DataFilesGetTheirHeaderAndTemplate) {
  TempDir tmp;
  Fixture f(tmp.path());
  ASSERT_TRUE(f.ok());
  auto s = f.db()->NewSession();
  ASSERT_OK(s->Execute("alter session set cellsim_fast_file_create_metadata = false"));
  ASSERT_OK_AND_ASSIGN(StatementResult r,
                       s->Execute("create tablespace users datafile '+DATA' size 10m"));
  EXPECT_EQ(r.path, "smart");
  EXPECT_EQ(Count(r.waits, Wait::kDbFileSingleWrite), 1);
  EXPECT_EQ(Count(r.waits, Wait::kLogFileSingleWrite), 0);
  const FileTable t = f.db()->file_table();
  ASSERT_EQ(t.data_files.size(), 1u);
  const DataFile& df = t.data_files[0];
  EXPECT_EQ(df.file_number, 1u);
  EXPECT_EQ(df.size_bytes, 10 * kMiB);
  const uint64_t blocks = 10 * kMiB / 8192 + 1;  // + the OS header block
  ASSERT_OK_AND_ASSIGN(asmgr::FileInfo info, f.dg("DATA")->LookupFile(df.file.number));
  EXPECT_EQ(info.size_bytes, blocks * 8192);
  EXPECT_EQ(r.statistics[Stat::kCellPhysicalIoBytesSavedDuringOptimizedFileCreation],
            static_cast<int64_t>(blocks * 8192 * 2));
  std::vector<uint8_t> bytes = ReadAsmFile(f.dg("DATA"), df.file.number, blocks * 8192);
  ASSERT_EQ(bytes.size(), blocks * 8192);
  const format::BlockTemplate tmpl{format::BlockKind::kData, 8192, 1, blocks};
  EXPECT_OK(format::VerifyBlock(tmpl, 0, absl::MakeConstSpan(bytes.data(), 8192)));
  for (uint64_t b : {uint64_t{2}, uint64_t{100}, blocks - 1}) {
    EXPECT_OK(format::VerifyBlock(tmpl, b, absl::MakeConstSpan(bytes.data() + b * 8192, 8192)));
  }
  const uint8_t* h = bytes.data() + 8192;
  EXPECT_EQ(h[0], 0x0B);  // file header block type
  EXPECT_EQ(h[1], format::kDataBlockFormat);
  uint32_t rdba = 0;
  std::memcpy(&rdba, h + 4, 4);
  EXPECT_EQ(rdba, format::Rdba(1, 1));
  // A correct checksum makes the block XOR to zero.
  EXPECT_EQ(format::DataBlockChecksum(absl::MakeConstSpan(h, 8192)), h[16] | (h[17] << 8));
}

TEST(Creation, ZeroFillReportsProgress) {
  TempDir tmp;
  Fixture f(tmp.path());
  ASSERT_TRUE(f.ok());
  auto s = f.db()->NewSession();
  std::vector<CreationProgress> seen;
  s->SetProgressCallback([&](const CreationProgress& p) { seen.push_back(p); });
  ASSERT_OK(s->Execute("alter session set \"_cell_fast_file_create\" = false"));
  ASSERT_OK(s->Execute("alter database add logfile ('+DATA') size 150m"));
  ASSERT_FALSE(seen.empty());
  for (size_t i = 1; i < seen.size(); ++i) EXPECT_GT(seen[i].bytes_done, seen[i - 1].bytes_done);
  EXPECT_EQ(seen.back().bytes_done, 150 * kMiB);
  EXPECT_EQ(seen.back().bytes_total, 150 * kMiB);
  EXPECT_EQ(seen.back().path, CreationPath::kZeroFill);
  const ZeroFillOptions& zf = f.db()->options().zero_fill;
  const uint64_t batch = zf.request_bytes * zf.requests_per_batch;
  EXPECT_EQ(seen.size(), (150 * kMiB + batch - 1) / batch);  // one call per batch
}

TEST(Creation, WriteThroughCellsTakeTheSmartPath) {
  TempDir tmp;
  Fixture f(tmp.path(), SystemClock(),
            SmallRack(asmgr::Redundancy::kNormal, cell::FlashCacheMode::kWriteThrough));
  ASSERT_TRUE(f.ok());
  auto s = f.db()->NewSession();
  ASSERT_OK_AND_ASSIGN(StatementResult r, s->Execute("alter database add logfile ('+RECO') size 8m"));
  EXPECT_EQ(r.path, "smart");
  EXPECT_NE(r.path_reason.find("WriteThrough"), std::string::npos) << r.path_reason;
  // Nothing is absorbed by flash in write-through mode.
  EXPECT_EQ(r.statistics[Stat::kPhysicalWriteRequestsOptimized], 0);
  EXPECT_EQ(r.statistics[Stat::kCellWritesToFlashCache], 0);
}

}  // namespace
}  // namespace cellsim::db
