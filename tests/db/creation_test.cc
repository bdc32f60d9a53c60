// The creation engine on real racks: the seed command by each path at 64 MiB,
// the statistics model, byte equality of the paths, progress.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include "cellsim/db/accounting.h"
#include "cellsim/db/database.h"
#include "cellsim/format/block_template.h"
#include "cellsim/io/io_backend_wrapper.h"
#include "db/db_test_util.h"
#include "fmt/format.h"
#include "gtest/gtest.h"
#include "testing/sanitizer.h"
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

// docs/statistics.md "Other shapes: the formulas": what a creating or
// resizing statement must count, from its files, the path and the rack alone.
struct ModelFile {
  uint64_t size = 0;    // SIZE (v$log.bytes, or the data file's SIZE); a resize's new SIZE
  uint32_t block = 0;   // b: 512 for redo, 8192 for data
  uint64_t au = 0;      // A of its disk group
  uint32_t copies = 0;  // m: 1 EXTERNAL, 2 NORMAL, 3 HIGH
  bool tempfile = false;
  uint64_t old_size = 0;  // a resize: the SIZE before it (0: a new file)
};
// c_k: a control file's copies, by Oracle's CONTROLFILE template (HIGH in a
// NORMAL group, so 3-way in NORMAL and HIGH groups; UNPROT in EXTERNAL).
int64_t ControlFileCopies(asmgr::Redundancy group) {
  return group == asmgr::Redundancy::kExternal ? 1 : 3;
}
struct ModelFigures {
  int64_t requests = 0, multi = 0, bytes = 0, saved = 0, interconnect = 0;
  int64_t cf_writes = 0, cf_reads = 0, headers = 0, init_writes = 0;
};
// The pieces of [from, to) cut at multiples of `a` (an AU, or zero-fill's
// request size), and how many of them hold one block only.
struct Pieces {
  int64_t count = 0, single = 0;
};
Pieces AuPieces(int64_t from, int64_t to, int64_t a, int64_t b) {
  Pieces p;
  if (to <= from) return p;
  p.count = (to + a - 1) / a - from / a;
  const int64_t first = std::min(to, (from / a + 1) * a) - from;
  const int64_t last = to - ((to - 1) / a) * a;
  p.single = (first == b ? 1 : 0) + (p.count > 1 && last == b ? 1 : 0);
  return p;
}
ModelFigures Model(const std::vector<ModelFile>& files, int64_t control_files,
                   int64_t cf_copies, bool zero_fill, uint64_t zero_fill_request) {
  ModelFigures m;
  const int64_t n = static_cast<int64_t>(files.size());
  const bool resize = n == 1 && files[0].old_size != 0;
  // W and R: a creating statement runs M + 3 transactions, a resize 1.
  const int64_t transactions = resize ? 1 : n + 3;
  m.cf_writes = 2 * transactions;
  m.cf_reads = 3 + 4 * transactions;
  m.headers = n;
  m.requests = control_files * m.cf_writes + n;
  m.bytes = control_files * m.cf_writes * 16384;
  m.interconnect = control_files * m.cf_writes * 16384 * cf_copies + m.cf_reads * 16384;
  for (const ModelFile& f : files) {
    const int64_t b = f.block, c = f.copies, s = static_cast<int64_t>(f.size);
    // Blocks 0-1 of a tempfile or a resized file, else block 1.
    const int64_t header = f.tempfile || resize ? 2 * b : b;
    m.bytes += header;
    m.interconnect += header * c;
    if (header > b) m.multi += 1;
    if (f.tempfile) continue;  // formatted at first use
    const int64_t file = s + b, a = static_cast<int64_t>(f.au);
    const int64_t old_file = resize ? static_cast<int64_t>(f.old_size) + b : 0;
    if (zero_fill) {
      // Zero-fill requests end on multiples of the request size (as AUs do).
      const Pieces w = AuPieces(old_file, file, static_cast<int64_t>(zero_fill_request), b);
      m.requests += w.count;
      m.init_writes += w.count;
      m.multi += w.count - w.single;
      m.bytes += std::max<int64_t>(0, file - old_file);
      m.interconnect += std::max<int64_t>(0, file - old_file) * c;
      continue;
    }
    // A new file: block 0, then [2b, F); a resize's extension [F_old, F).
    Pieces p = AuPieces(old_file, file, a, b);
    if (!resize) {
      p = AuPieces(2 * b, file, a, b);
      p.count += 1;   // block 0
      p.single += 1;
    }
    const int64_t formatted = resize ? std::max<int64_t>(0, file - old_file) : s;
    m.requests += c * p.count;
    m.multi += c * (p.count - p.single);
    m.bytes += c * formatted;
    m.saved += c * formatted;
  }
  return m;
}

void ExpectModel(const StatementResult& r, const ModelFigures& m, bool zero_fill) {
  const stats::StatValues& st = r.statistics;
  const stats::WaitValues& w = r.waits;
  EXPECT_EQ(st[Stat::kPhysicalWriteTotalIoRequests], m.requests);
  EXPECT_EQ(st[Stat::kPhysicalWriteTotalMultiBlockRequests], m.multi);
  EXPECT_EQ(st[Stat::kPhysicalWriteTotalBytes], m.bytes);
  EXPECT_EQ(st[Stat::kCellPhysicalIoBytesSavedDuringOptimizedFileCreation], m.saved);
  EXPECT_EQ(st[Stat::kCellPhysicalIoBytesEligibleForPredicateOffload], m.saved);
  EXPECT_EQ(st[Stat::kCellPhysicalIoInterconnectBytes], m.interconnect);
  EXPECT_EQ(Count(w, Wait::kControlFileParallelWrite), m.cf_writes);
  EXPECT_EQ(Count(w, Wait::kControlFileSequentialRead), m.cf_reads);
  EXPECT_EQ(Count(w, Wait::kLogFileSingleWrite) + Count(w, Wait::kDbFileSingleWrite), m.headers);
  EXPECT_EQ(st[Stat::kPhysicalReadTotalIoRequests], m.cf_reads);
  const int64_t creation = zero_fill ? 0 : m.requests - 2 * m.cf_writes - m.headers;
  // About one `* file init write` wait per zero-fill write (4 in flight).
  const int64_t init_waits =
      Count(w, Wait::kDataFileInitWrite) + Count(w, Wait::kLogFileInitWrite);
  EXPECT_LE(init_waits, m.init_writes);
  if (m.init_writes > 0) {
    EXPECT_GE(init_waits, 1);
  }
  if (creation > 0) {
    // Waits by blocking: some replies but not all cost a wait.
    EXPECT_GT(Count(w, Wait::kCellSmartFileCreation), 0);
    EXPECT_LE(Count(w, Wait::kCellSmartFileCreation), creation);
  } else {
    EXPECT_EQ(Count(w, Wait::kCellSmartFileCreation), 0);
  }
}

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
  const uint64_t au = f.dg("DATA")->au_size();
  const bool zero_fill = path == CreationPath::kZeroFill;
  // Two control files (+DATA, +RECO), W = 10, R = 23; members of S + 512 B.
  const ModelFigures m =
      Model({{kSize, 512, au, copies}, {kSize, 512, au, copies}}, 2,
            ControlFileCopies(f.dg("DATA")->redundancy()), zero_fill,
            f.db()->options().zero_fill.request_bytes);
  ExpectModel(r, m, zero_fill);
  EXPECT_EQ(Count(w, Wait::kKsvMasterWait), 2);  // one allocation per member
  EXPECT_EQ(Count(w, Wait::kDiskFileOperationsIo), 2);
  EXPECT_EQ(Count(w, Wait::kAsmFileMetadataOperation), 2);
  // Logical write requests (control-file blocks and headers; zero-fill's
  // writes): docs/statistics.md's [I] rule.
  const int64_t logical = zero_fill ? m.requests : 2 * m.cf_writes + m.headers;
  EXPECT_EQ(st[Stat::kCellLogicalWriteIoRequests], logical);
  if (zero_fill) {
    // About one `Log file init write` per 1 MiB write (4 in flight).
    const int64_t writes = m.requests - 2 * m.cf_writes - m.headers;
    EXPECT_GE(Count(w, Wait::kLogFileInitWrite), writes * 9 / 10);
    EXPECT_LE(Count(w, Wait::kLogFileInitWrite), writes);
  } else {
    EXPECT_EQ(Count(w, Wait::kLogFileInitWrite), 0);
  }
  // Both control files cache (write-back, cachingPolicy default): every
  // control-file write is optimized, every copy (3: the CONTROLFILE template) a
  // flash write; the headers are redo-type writes, never cached.
  EXPECT_EQ(st[Stat::kPhysicalWriteRequestsOptimized], 2 * m.cf_writes);
  EXPECT_EQ(st[Stat::kCellWritesToFlashCache],
            2 * m.cf_writes * ControlFileCopies(f.dg("DATA")->redundancy()));
  // Invariants (statistics.h).
  EXPECT_LE(st[Stat::kPhysicalWriteTotalMultiBlockRequests],
            st[Stat::kPhysicalWriteTotalIoRequests]);
  EXPECT_LE(st[Stat::kPhysicalWriteRequestsOptimized], st[Stat::kPhysicalWriteTotalIoRequests]);
  EXPECT_LE(st[Stat::kPhysicalWriteTotalBytesOptimized], st[Stat::kPhysicalWriteTotalBytes]);
  EXPECT_LE(st[Stat::kPhysicalWriteIoRequests], st[Stat::kPhysicalWriteTotalIoRequests]);
  EXPECT_LE(st[Stat::kPhysicalWriteBytes], st[Stat::kPhysicalWriteTotalBytes]);
  EXPECT_LE(st[Stat::kPhysicalReadRequestsOptimized], st[Stat::kPhysicalReadTotalIoRequests]);
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

// docs/statistics.md "Other shapes": one row per shape and path, each checked
// against the formulas (Model) on its own rack (write-back cells: the fast
// path unless the session asks for smart creation or zero-fill).
struct Shape {
  std::string name;
  asmgr::Redundancy redundancy = asmgr::Redundancy::kNormal;
  uint64_t au = 4 * kMiB;
  std::vector<std::string> setup;  // statements run first
  std::string statement;           // the one measured
  std::vector<ModelFile> files;    // its files (au and copies filled in)
};

void PrintTo(const Shape& s, std::ostream* os) { *os << s.name; }

class OracleShapes : public ::testing::TestWithParam<std::tuple<Shape, CreationPath>> {};

TEST_P(OracleShapes, StatisticsFollowTheFormulas) {
  const auto& [shape, path] = GetParam();
  TempDir tmp;
  asmgr::RackConfig cfg = SmallRack(shape.redundancy);
  for (asmgr::DiskGroupSpec& g : cfg.disk_groups) g.au_size = shape.au;
  Fixture f(tmp.path(), SystemClock(), cfg);
  ASSERT_TRUE(f.ok());
  auto s = f.db()->NewSession();
  for (const std::string& q : shape.setup) ASSERT_OK(s->Execute(q));
  ASSERT_OK(s->Execute(SessionSetting(path)));
  ASSERT_OK_AND_ASSIGN(StatementResult r, s->Execute(shape.statement));
  const uint32_t copies = f.dg("DATA")->copies();
  std::vector<ModelFile> files = shape.files;
  for (ModelFile& m : files) {
    m.au = shape.au;
    m.copies = copies;
  }
  SCOPED_TRACE(shape.statement);
  const bool zero_fill = path == CreationPath::kZeroFill;
  ExpectModel(r,
              Model(files, 2, ControlFileCopies(shape.redundancy), zero_fill,
                    f.db()->options().zero_fill.request_bytes),
              zero_fill);
  for (const FileCreation& c : r.files) EXPECT_EQ(c.path, path) << c.name;
}

std::string PathName(CreationPath p) {
  return p == CreationPath::kZeroFill ? "ZeroFill" : p == CreationPath::kSmart ? "Smart" : "Fast";
}

constexpr char kTablespace8m[] = "create tablespace t1 datafile '+DATA' size 8m";
constexpr char kTemp8m[] = "create temporary tablespace tt tempfile '+DATA' size 8m";

// Every shape by every path; under TSan (which looks for races in the
// creation's threads, the same for every shape) each shape by one path, the
// paths taking turns: 16 racks instead of 48.
std::vector<std::tuple<Shape, CreationPath>> ShapeRows(const std::vector<Shape>& shapes) {
  constexpr CreationPath kPaths[] = {CreationPath::kZeroFill, CreationPath::kSmart,
                                     CreationPath::kFast};
  const bool one_path_each = cellsim::testing::kSanitizer == cellsim::testing::Sanitizer::kThread;
  std::vector<std::tuple<Shape, CreationPath>> rows;
  for (size_t i = 0; i < shapes.size(); ++i) {
    for (size_t p = 0; p < 3; ++p) {
      if (!one_path_each || p == i % 3) rows.emplace_back(shapes[i], kPaths[p]);
    }
  }
  return rows;
}

INSTANTIATE_TEST_SUITE_P(
    Rows, OracleShapes,
    ::testing::ValuesIn(ShapeRows({
            Shape{"High", asmgr::Redundancy::kHigh, 4 * kMiB, {},
                  "alter database add logfile group 7 ('+DATA','+RECO') size 16m",
                  {{16 * kMiB, 512}, {16 * kMiB, 512}}},
            Shape{"External", asmgr::Redundancy::kExternal, 4 * kMiB, {},
                  "alter database add logfile group 7 ('+DATA','+RECO') size 16m",
                  {{16 * kMiB, 512}, {16 * kMiB, 512}}},
            Shape{"Au1MiB", asmgr::Redundancy::kNormal, 1 * kMiB, {},
                  "alter database add logfile group 7 ('+DATA','+RECO') size 16m",
                  {{16 * kMiB, 512}, {16 * kMiB, 512}}},
            Shape{"Au16MiB", asmgr::Redundancy::kNormal, 16 * kMiB, {},
                  "alter database add logfile group 7 ('+DATA','+RECO') size 32m",
                  {{32 * kMiB, 512}, {32 * kMiB, 512}}},
            Shape{"OneMember", asmgr::Redundancy::kNormal, 4 * kMiB, {},
                  "alter database add logfile group 7 ('+DATA') size 16m", {{16 * kMiB, 512}}},
            Shape{"ThreeMembers", asmgr::Redundancy::kNormal, 4 * kMiB, {},
                  "alter database add logfile group 7 ('+DATA','+RECO','+DATA') size 8m",
                  {{8 * kMiB, 512}, {8 * kMiB, 512}, {8 * kMiB, 512}}},
            Shape{"CreateTablespace", asmgr::Redundancy::kNormal, 4 * kMiB, {},
                  "create tablespace t1 datafile '+DATA' size 20m", {{20 * kMiB, 8192}}},
            Shape{"AddDatafile", asmgr::Redundancy::kNormal, 4 * kMiB, {kTablespace8m},
                  "alter tablespace t1 add datafile '+RECO' size 12m", {{12 * kMiB, 8192}}},
            Shape{"UndoTablespace", asmgr::Redundancy::kNormal, 4 * kMiB, {},
                  "create undo tablespace u1 datafile '+DATA' size 8m", {{8 * kMiB, 8192}}},
            Shape{"Tempfile", asmgr::Redundancy::kNormal, 4 * kMiB, {}, kTemp8m,
                  {{8 * kMiB, 8192, 0, 0, /*tempfile=*/true}}},
            Shape{"AddTempfile", asmgr::Redundancy::kNormal, 4 * kMiB, {kTemp8m},
                  "alter tablespace tt add tempfile '+RECO' size 12m",
                  {{12 * kMiB, 8192, 0, 0, /*tempfile=*/true}}},
            Shape{"ResizeGrow", asmgr::Redundancy::kNormal, 4 * kMiB, {kTablespace8m},
                  "alter database datafile 1 resize 20m",
                  {{20 * kMiB, 8192, 0, 0, false, 8 * kMiB}}},
            Shape{"ResizeGrowHighAu1MiB", asmgr::Redundancy::kHigh, 1 * kMiB, {kTablespace8m},
                  "alter database datafile 1 resize 10m",
                  {{10 * kMiB, 8192, 0, 0, false, 8 * kMiB}}},
            Shape{"ResizeGrowExternalAu16MiB", asmgr::Redundancy::kExternal, 16 * kMiB,
                  {kTablespace8m}, "alter database datafile 1 resize 40m",
                  {{40 * kMiB, 8192, 0, 0, false, 8 * kMiB}}},
            Shape{"ResizeShrink", asmgr::Redundancy::kNormal, 4 * kMiB, {kTablespace8m},
                  "alter database datafile 1 resize 2m",
                  {{2 * kMiB, 8192, 0, 0, false, 8 * kMiB}}},
            Shape{"ResizeTempfile", asmgr::Redundancy::kNormal, 4 * kMiB, {kTemp8m},
                  "alter database tempfile 1 resize 20m",
                  {{20 * kMiB, 8192, 0, 0, /*tempfile=*/true, 8 * kMiB}}}})),
    [](const auto& info) {
      return std::get<0>(info.param).name + PathName(std::get<1>(info.param));
    });

// The blocking rule alone: a reply costs a wait only when it has not arrived
// by the time the foreground needs it.
TEST(CreationWaits, OnlyRepliesNotYetThereCostAWait) {
  using internal::CreationWindow;
  CreationWaitOptions o;
  o.foreground_ns_per_request = 90'000;
  auto requests = [](uint32_t cells, size_t n, double mean_ns, bool exponential) {
    std::vector<CreationWindow::Request> r;
    for (size_t i = 0; i < n; ++i) {
      r.push_back({static_cast<uint32_t>(i % cells), mean_ns, exponential});
    }
    return r;
  };
  // Cells far faster than the foreground: every reply is there when needed,
  // but for the last one (sent when there is nothing left to do).
  EXPECT_EQ(CreationWindow::BlockingWaits(requests(3, 300, 1'000, false), 1, o).size(), 1u);
  // One slow cell, one request in flight: every reply is waited for.
  EXPECT_EQ(CreationWindow::BlockingWaits(requests(1, 300, 1e6, false), 1, o).size(), 300u);
  // Zero-fill: 4 writes in flight, one completing every L/4 (>> 90 us).
  EXPECT_EQ(CreationWindow::BlockingWaits(requests(1, 100, 16.7e6 / 4, false), 4, o).size(),
            100u);
  // Three cells at Oracle's fast-creation rate, the copies of extent x on
  // cells x and x + 1 (mod 3) as ASM's partnering spreads them: about 3
  // replies in 4 (the seed: 79 %), the same on every run (seeded draws).
  std::vector<CreationWindow::Request> fast;
  for (uint32_t x = 0; x < 4104 / 2; ++x) {
    fast.push_back({x % 3, 1e9 / 624, true});
    fast.push_back({(x + 1) % 3, 1e9 / 624, true});
  }
  const size_t waits = CreationWindow::BlockingWaits(fast, 1, o).size();
  EXPECT_GE(waits, 4104u * 60 / 100);
  EXPECT_LE(waits, 4104u * 95 / 100);
  EXPECT_EQ(CreationWindow::BlockingWaits(fast, 1, o).size(), waits);
  // A wider window lets more replies arrive unwaited for.
  EXPECT_LT(CreationWindow::BlockingWaits(fast, 8, o).size(), waits);
}

// Runs `statements` on three identically built racks (simulated clock), each
// after choosing one path (the last statement must take it), then checks that
// what `read` reads back from each rack is the same bytes.
template <typename Read>
void ExpectSameBytesOnEveryPath(const std::vector<std::string>& statements, Read read) {
  std::vector<std::vector<uint8_t>> files;
  for (CreationPath path : {CreationPath::kZeroFill, CreationPath::kSmart, CreationPath::kFast}) {
    SCOPED_TRACE(CreationPathName(path));
    TempDir tmp;
    ManualClock clock(0, 1'700'000'000);
    Fixture f(tmp.path(), &clock);
    ASSERT_TRUE(f.ok());
    auto s = f.db()->NewSession();
    ASSERT_OK(s->Execute(SessionSetting(path)));
    StatementResult r;
    for (const std::string& q : statements) {
      absl::StatusOr<StatementResult> done = s->Execute(q);
      ASSERT_TRUE(done.ok()) << q << ": " << done.status();
      r = *std::move(done);
    }
    EXPECT_EQ(r.path, CreationPathName(path));
    files.push_back(read(f));
  }
  ASSERT_EQ(files.size(), 3u);
  EXPECT_TRUE(files[0] == files[1]) << "smart differs from zero-fill";
  EXPECT_TRUE(files[0] == files[2]) << "fast differs from zero-fill";
}

// Counts the syncs of the cells' flash devices (celNN/flash.img).
class FlashSyncCounter : public io::IoBackendWrapper {
 public:
  using IoBackendWrapper::IoBackendWrapper;
  absl::Status Sync(io::FileHandle f, io::SyncKind k) override {
    absl::StatusOr<std::string> p = PathOf(f);
    if (p.ok() && p->ends_with("/flash.img")) ++flash_syncs;
    return target()->Sync(f, k);
  }
  std::atomic<uint64_t> flash_syncs{0};
};

// The fast path's syncs (issue 14): a cell holding copies of both control
// files (+DATA's and +RECO's, 3-way each) syncs its flash once per
// control-file write, not once per copy; the format requests of both members
// (block 0 and [2 blocks, end) of each) and their sub-page edges cost each
// cell one sync in all; the two header writes go to each cell in one batch.
TEST(Creation, FastPathSyncsEachCellOncePerControlFileWrite) {
  cellsim::testing::TempDir tmp;
  auto io = std::make_unique<FlashSyncCounter>(io::MakePosixBackend());
  ASSERT_OK_AND_ASSIGN(auto rack, asmgr::Rack::Create(io.get(), SystemClock(),
                                                      tmp.path() + "/rack", SmallRack()));
  ASSERT_OK_AND_ASSIGN(auto db, Database::Create(rack.get()));
  auto s = db->NewSession();
  const uint64_t before = io->flash_syncs.load();
  ASSERT_OK_AND_ASSIGN(StatementResult r,
                       s->Execute("alter database add logfile thread 2 group 5 ('+DATA','+RECO') "
                                  "size 64m"));
  const uint64_t syncs = io->flash_syncs.load() - before;
  ASSERT_EQ(r.files.size(), 2u);
  EXPECT_EQ(r.files[0].path, CreationPath::kFast);
  EXPECT_EQ(r.files[1].path, CreationPath::kFast);
  const int64_t cf_writes = Count(r.waits, stats::Wait::kControlFileParallelWrite);
  EXPECT_EQ(cf_writes, 10);
  const uint64_t cells = rack->cell_count();
  std::printf("flash syncs of the statement: %llu\n", static_cast<unsigned long long>(syncs));
  // Separate writes per control file and per format range took 80 here.
  EXPECT_LE(syncs, cf_writes * cells + cells + cells) << "flash syncs of the statement";
  EXPECT_GE(syncs, cf_writes * cells) << "every control-file write is durable on every cell";
}

// The core property: a member made by the fast or smart path reads back, byte
// for byte, as the one the database zero-filled, on identically built racks.
TEST(Creation, EveryPathGivesTheSameBytes) {
  ExpectSameBytesOnEveryPath({"alter database add logfile group 3 ('+RECO') size 32m"},
                             [](Fixture& f) {
    const FileTable t = f.db()->file_table();
    const LogMember& m = t.FindLogGroup(3)->members.at(0);
    // The member is SIZE + one redo block (block 0, the OS header).
    std::vector<uint8_t> bytes = ReadAsmFile(f.dg("RECO"), m.file.number, 32 * kMiB + 512);
    EXPECT_EQ(bytes.size(), 32 * kMiB + 512);
    if (bytes.size() != 32 * kMiB + 512) return bytes;
    // Block 0 and blocks >= 2 are what the template generates; block 1 is
    // the log file header with a valid checksum.
    const format::BlockTemplate tmpl{format::BlockKind::kRedo, 512, 3, 32 * kMiB / 512 + 1};
    EXPECT_OK(format::VerifyBlock(tmpl, 0, absl::MakeConstSpan(bytes.data(), 512)));
    for (uint64_t b : {uint64_t{2}, uint64_t{3}, uint64_t{8191}, uint64_t{65535}, uint64_t{65536}}) {
      EXPECT_OK(format::VerifyBlock(tmpl, b, absl::MakeConstSpan(bytes.data() + b * 512, 512)));
    }
    EXPECT_EQ(bytes[512], format::kRedoSignature);
    EXPECT_EQ(format::RedoBlockChecksum(absl::MakeConstSpan(bytes.data() + 512, 512)),
              bytes[512 + 14] | (bytes[512 + 15] << 8));
    return bytes;
  });
}

// The same for a data file grown by ALTER DATABASE DATAFILE ... RESIZE (each
// path formats the extension; the database rewrites blocks 0-1): it reads as
// a file created at the new size would.
TEST(Creation, EveryPathResizesToTheSameBytes) {
  ExpectSameBytesOnEveryPath(
      {"create tablespace users datafile '+RECO' size 6m", "alter database datafile 1 resize 21m"},
      [](Fixture& f) {
        const FileTable t = f.db()->file_table();
        const uint64_t blocks = OnDiskBlocks(21 * kMiB, 8192);
        std::vector<uint8_t> bytes =
            ReadAsmFile(f.dg("RECO"), t.FindDataFile(1)->file.number, blocks * 8192);
        EXPECT_EQ(bytes.size(), blocks * 8192);
        if (bytes.size() != blocks * 8192) return bytes;
        const format::BlockTemplate tmpl{format::BlockKind::kData, 8192, 1, blocks};
        for (uint64_t b = 0; b < blocks; ++b) {
          if (b == 1) continue;
          const absl::Status st =
              format::VerifyBlock(tmpl, b, absl::MakeConstSpan(bytes.data() + b * 8192, 8192));
          EXPECT_TRUE(st.ok()) << "block " << b << ": " << st;
          if (!st.ok()) break;
        }
        EXPECT_EQ(bytes[8192], 0x0B);  // the file header
        return bytes;
      });
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
  // The cells format every block but block 1 (the header the database writes).
  EXPECT_EQ(r.statistics[Stat::kCellPhysicalIoBytesSavedDuringOptimizedFileCreation],
            static_cast<int64_t>((blocks - 1) * 8192 * 2));
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
  // The member is SIZE + one redo block (block 0, the OS header).
  EXPECT_EQ(seen.back().bytes_done, 150 * kMiB + 512);
  EXPECT_EQ(seen.back().bytes_total, 150 * kMiB + 512);
  EXPECT_EQ(seen.back().path, CreationPath::kZeroFill);
  const ZeroFillOptions& zf = f.db()->options().zero_fill;
  const uint64_t batch = zf.request_bytes * zf.requests_per_batch;
  EXPECT_EQ(seen.size(), (150 * kMiB + 512 + batch - 1) / batch);  // one call per batch
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

// ASM file templates as the database sees them: V$ASM_TEMPLATE and V$ASM_FILE
// (a control file 3-way mirrored in a NORMAL group, the rest 2-way).
class AsmTemplateViews : public testing::SqlTest {};

TEST_F(AsmTemplateViews, ControlFilesAreHighInNormalGroups) {
  EXPECT_EQ(One("select redundancy from v$asm_template where group_number = 1 and "
                "name = 'CONTROLFILE'"),
            "HIGH");
  EXPECT_EQ(One("select stripe from v$asm_template where group_number = 1 and "
                "name = 'CONTROLFILE'"),
            "FINE");
  EXPECT_EQ(One("select redundancy from v$asm_template where group_number = 2 and "
                "name = 'DATAFILE'"),
            "MIRROR");
  EXPECT_EQ(One("select count(*) from v$asm_template"), "12");  // 6 per group
  // The two control files (+DATA, +RECO): HIGH, 3 copies of each AU.
  EXPECT_EQ(One("select count(*) from v$asm_file where type = 'CONTROLFILE' and "
                "redundancy = 'HIGH' and redundancy_lowered = 'N'"),
            "2");
  EXPECT_EQ(One("select count(*) from v$asm_file where type <> 'CONTROLFILE' and "
                "redundancy <> 'MIRROR'"),
            "0");
  // SPACE: 3 copies of whole 4 MiB AUs.
  EXPECT_EQ(One("select count(*) from v$asm_file where type = 'CONTROLFILE' and "
                "space >= 3 * bytes and space < 3 * (bytes + 4194304)"),
            "2");
}

}  // namespace
}  // namespace cellsim::db
