// Fault scenarios on the whole stack: a Database on a real Rack (3 cells x 2
// cell disks over sparse files, NORMAL redundancy) with faults injected
// underneath by FaultInjectionBackend or Cell::LoseFlash while sessions create
// files and a workload writes into a data file.
//
// The lower layers test each mechanism alone (tests/asm/rack_test.cc: a dead
// disk, md-raid1 offline/online/scrub, flash loss; tests/db/database_test.cc:
// a failed write part-way through a creation on EXTERNAL redundancy, ORA-15041
// for a two-member statement). Here the same faults hit a database at work:
// creations by all three paths, control-file writes, a write workload, a
// restart, and then every acknowledged byte and every created file is checked.
// docs/fault-scenarios.md lists what each test checks.
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <map>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "cellsim/asm/rack.h"
#include "cellsim/base/units.h"
#include "cellsim/cell/cell.h"
#include "cellsim/db/database.h"
#include "cellsim/io/fault_injection.h"
#include "faults/stack_check.h"
#include "fmt/format.h"
#include "gtest/gtest.h"
#include "testing/test_util.h"

namespace cellsim::faults {
namespace {

using ::cellsim::faults::testing::CheckNoLeaks;
using ::cellsim::faults::testing::ReadAsm;
using ::cellsim::faults::testing::ReadAsmInPieces;
using ::cellsim::faults::testing::ScrubClean;
using ::cellsim::faults::testing::VerifyTableFormatted;
using ::cellsim::testing::TempDir;
using ::testing::HasSubstr;

constexpr const char* kZeroFill = "alter session set \"_cell_fast_file_create\" = false";
constexpr const char* kSmart =
    "alter session set \"_cell_fast_file_create\" = true";  // + metadata = false below
constexpr const char* kNoMetadata = "alter session set cellsim_fast_file_create_metadata = false";
constexpr const char* kFast[] = {"alter session set \"_cell_fast_file_create\" = true",
                                 "alter session set cellsim_fast_file_create_metadata = true"};

// 3 cells x 2 cell disks; DATA 96 MiB and RECO 48 MiB per cell disk, AU 1 MiB
// (fine-grained stale tracking); 32 MiB of flash per cell.
asmgr::RackConfig ScenarioRack(cell::FlashCacheMode mode) {
  asmgr::RackConfig c;
  c.cells = 3;
  c.cell_disks_per_cell = 2;
  c.disk_groups = {{.name = "DATA",
                    .redundancy = asmgr::Redundancy::kNormal,
                    .au_size = 1 * kMiB,
                    .grid_disk_size = 96 * kMiB},
                   {.name = "RECO",
                    .redundancy = asmgr::Redundancy::kNormal,
                    .au_size = 1 * kMiB,
                    .grid_disk_size = 48 * kMiB}};
  c.flash_size = 32 * kMiB;
  c.flash_cache_mode = mode;
  return c;
}

// A rack and its database on a fault-injecting backend, in a temp dir.
class Stack {
 public:
  explicit Stack(cell::FlashCacheMode mode)
      : fault_(std::make_unique<io::FaultInjectionBackend>(io::MakePosixBackend())) {
    auto rack = asmgr::Rack::Create(fault_.get(), SystemClock(), dir(), ScenarioRack(mode));
    EXPECT_TRUE(rack.ok()) << rack.status();
    if (!rack.ok()) return;
    rack_ = *std::move(rack);
    auto db = db::Database::Create(rack_.get());
    EXPECT_TRUE(db.ok()) << db.status();
    if (db.ok()) db_ = *std::move(db);
  }
  ~Stack() {
    db_.reset();
    if (rack_) EXPECT_OK(rack_->Close());
  }
  bool ok() const { return db_ != nullptr; }
  std::string dir() const { return tmp_.path() + "/rack"; }
  io::FaultInjectionBackend* fault() { return fault_.get(); }
  asmgr::Rack* rack() { return rack_.get(); }
  db::Database* db() { return db_.get(); }
  asmgr::DiskGroup* dg(const std::string& name) { return *rack_->disk_group(name); }

  // Restarts everything (the database first). `close_status` receives the
  // rack's Close status (a dead cell cannot close cleanly); `before_open`
  // runs between the close and the open (e.g. clearing faults).
  void Restart(absl::Status* close_status = nullptr,
               const std::function<void()>& before_open = nullptr) {
    if (db_) EXPECT_OK(db_->Close());
    db_.reset();
    absl::Status closed = rack_->Close();
    if (close_status != nullptr) {
      *close_status = closed;
    } else {
      EXPECT_OK(closed);
    }
    rack_.reset();
    if (before_open) before_open();
    auto rack = asmgr::Rack::Open(fault_.get(), SystemClock(), dir());
    ASSERT_TRUE(rack.ok()) << rack.status();
    rack_ = *std::move(rack);
    auto db = db::Database::Open(rack_.get());
    ASSERT_TRUE(db.ok()) << db.status();
    db_ = *std::move(db);
    EXPECT_TRUE(db_->recovery_actions().empty());
  }

 private:
  TempDir tmp_;
  std::unique_ptr<io::FaultInjectionBackend> fault_;
  std::unique_ptr<asmgr::Rack> rack_;
  std::unique_ptr<db::Database> db_;
};

// A write workload on data files of the database: random 8..64 KiB writes at
// 8 KiB-aligned offsets (below the cells' 1 MiB bypass threshold, so they go
// through the write-back flash cache), and the model of what every
// acknowledged write left in each file.
class Workload {
 public:
  explicit Workload(uint64_t seed) : rng_(seed) {}

  // Starts tracking a data file of the table (reads its current content).
  absl::Status Track(Stack& st, const std::string& tablespace) {
    const db::FileTable t = st.db()->file_table();
    const db::Tablespace* ts = t.FindTablespace(tablespace);
    if (ts == nullptr) return absl::NotFoundError(tablespace);
    for (const db::DataFile& f : t.data_files) {
      if (f.tablespace != ts->number) continue;
      absl::StatusOr<asmgr::FileInfo> info = st.dg(f.file.disk_group)->LookupFile(f.file.number);
      if (!info.ok()) return info.status();
      Model m{f.file.disk_group, f.file.number, f.file.name,
              std::vector<uint8_t>(info->size_bytes)};
      if (absl::Status s = ReadAsm(st.dg(m.group), m.number, 0, absl::MakeSpan(m.bytes)); !s.ok()) {
        return s;
      }
      files_.push_back(std::move(m));
    }
    return absl::OkStatus();
  }
  std::set<std::string> names() const {
    std::set<std::string> n;
    for (const Model& m : files_) n.insert(m.name);
    return n;
  }

  // `n` writes, one DiskGroup::Write each; every one must be acknowledged.
  // Disks taken offline and copy failures are collected.
  absl::Status Write(Stack& st, int n) {
    for (int i = 0; i < n; ++i) {
      Model& m = files_[rng_() % files_.size()];
      const uint64_t blocks = m.bytes.size() / 8192;
      const uint64_t len = 1 + rng_() % 8;
      const uint64_t off = (rng_() % (blocks - len + 1)) * 8192;
      std::vector<uint8_t> data(len * 8192);
      for (auto& b : data) b = static_cast<uint8_t>(rng_());
      std::vector<asmgr::AsmWriteRequest> w = {{.file_offset = off, .data = data}};
      asmgr::AsmIoResult r;
      if (absl::Status s = st.dg(m.group)->Write(m.number, absl::MakeSpan(w), &r); !s.ok()) {
        return absl::Status(s.code(), fmt::format("write {} of {} at {}: {}", writes_, m.name, off,
                                                  std::string(s.message())));
      }
      std::copy(data.begin(), data.end(), m.bytes.begin() + off);
      for (const std::string& d : r.disks_taken_offline) taken_offline_.insert(d);
      copy_failures_ += r.failures.size();
      ++writes_;
    }
    return absl::OkStatus();
  }

  // Reads every tracked file back and compares it with the model.
  absl::Status Verify(Stack& st, uint64_t* failovers = nullptr) const {
    for (const Model& m : files_) {
      auto compare = [&](uint64_t off, absl::Span<const uint8_t> got) -> absl::Status {
        const uint8_t* want = m.bytes.data() + off;
        if (std::memcmp(got.data(), want, got.size()) == 0) return absl::OkStatus();
        const size_t i = static_cast<size_t>(
            std::mismatch(got.begin(), got.end(), want).first - got.begin());
        return absl::DataLossError(
            fmt::format("{}: byte {} reads 0x{:02x}, the last acknowledged write left 0x{:02x}",
                        m.name, off + i, got[i], want[i]));
      };
      if (absl::Status s = ReadAsmInPieces(st.dg(m.group), m.number, m.bytes.size(),
                                           "reading " + m.name, compare, failovers);
          !s.ok()) {
        return s;
      }
    }
    return absl::OkStatus();
  }

  const std::set<std::string>& taken_offline() const { return taken_offline_; }
  uint64_t copy_failures() const { return copy_failures_; }
  uint64_t writes() const { return writes_; }

 private:
  struct Model {
    std::string group;
    uint32_t number;
    std::string name;
    std::vector<uint8_t> bytes;
  };
  std::mt19937_64 rng_;
  std::vector<Model> files_;
  std::set<std::string> taken_offline_;
  uint64_t copy_failures_ = 0;
  uint64_t writes_ = 0;
};

// Offline disks of every group, and their stale AUs.
struct OfflineSet {
  std::vector<std::pair<asmgr::DiskGroup*, uint32_t>> disks;
  uint64_t stale_aus = 0;
};
OfflineSet OfflineDisks(asmgr::Rack* rack) {
  OfflineSet s;
  for (asmgr::DiskGroup* dg : rack->disk_groups()) {
    for (const asmgr::DiskView& d : dg->Disks()) {
      if (d.mode_status != "OFFLINE") continue;
      s.disks.push_back({dg, d.index});
      s.stale_aus += d.stale_aus;
    }
  }
  return s;
}

// Onlines every offline disk (fast mirror resync) and sums the results.
absl::Status OnlineAll(asmgr::Rack* rack, asmgr::ResyncResult* total) {
  for (auto [dg, d] : OfflineDisks(rack).disks) {
    asmgr::ResyncResult r;
    if (absl::Status s = dg->OnlineDisk(d, &r); !s.ok()) return s;
    total->extents_copied += r.extents_copied;
    total->bytes_copied += r.bytes_copied;
    total->extents_unrecoverable += r.extents_unrecoverable;
  }
  return absl::OkStatus();
}

// ------------------------------------------------- (a) one cell offline

// cel02 dies in the middle of a workload (every I/O on its grid disks and
// flash fails). Writes keep being acknowledged from the other copies, every
// read succeeds from the mirrors, creations by all three paths succeed; the
// disks of cel02 go offline as ASM meets the errors (the rest of its
// failure group is taken offline as ASM does for a lost cell). After a
// restart the cell is back: onlining its disks resyncs exactly the stale
// extents, and every copy agrees again.
TEST(FaultScenario, CellOfflineDuringWorkloadReadsFromMirrorsThenResyncs) {
  Stack st(cell::FlashCacheMode::kWriteBack);
  ASSERT_TRUE(st.ok());
  auto s = st.db()->NewSession();
  ASSERT_OK(s->Execute("create tablespace users datafile '+DATA' size 24m"));
  ASSERT_OK(s->Execute("alter database add logfile group 1 ('+DATA','+RECO') size 8m"));
  Workload wl(11);
  ASSERT_OK(wl.Track(st, "USERS"));
  ASSERT_OK(wl.Write(st, 40));

  st.fault()->FailAll({.ops = io::kOpAll, .path_substring = "/cel02/"});
  ASSERT_OK(wl.Write(st, 60));
  EXPECT_FALSE(wl.taken_offline().empty());
  for (const std::string& d : wl.taken_offline()) EXPECT_THAT(d, HasSubstr("_cel02"));
  uint64_t failovers = 0;
  ASSERT_OK(wl.Verify(st, &failovers));
  EXPECT_GT(failovers, 0u) << "reads of extents whose primary is on cel02 use the mirror";
  // Creations by every path while the cell is dead.
  ASSERT_OK_AND_ASSIGN(db::StatementResult fast,
                       s->Execute("alter database add logfile group 2 ('+DATA','+RECO') size 4m"));
  EXPECT_EQ(fast.path, "fast");
  ASSERT_OK(s->Execute(kNoMetadata));
  ASSERT_OK_AND_ASSIGN(db::StatementResult smart,
                       s->Execute("create tablespace s1 datafile '+RECO' size 6m"));
  EXPECT_EQ(smart.path, "smart");
  ASSERT_OK(s->Execute(kZeroFill));
  ASSERT_OK_AND_ASSIGN(db::StatementResult zero,
                       s->Execute("create tablespace z1 datafile '+DATA' size 6m"));
  EXPECT_EQ(zero.path, "zero-fill");
  ASSERT_OK(wl.Write(st, 40));
  ASSERT_OK(VerifyTableFormatted(st.rack(), st.db()->file_table(), wl.names()));
  ASSERT_OK(wl.Verify(st));
  // ASM takes the rest of the lost failure group offline.
  for (asmgr::DiskGroup* dg : st.rack()->disk_groups()) {
    for (const asmgr::DiskView& d : dg->Disks()) {
      if (d.cell == 1 && d.mode_status == "ONLINE") {
        ASSERT_OK(dg->OfflineDisk(d.index));
      }
      if (d.cell != 1) {
        EXPECT_EQ(d.mode_status, "ONLINE") << d.name;
      }
    }
  }
  const OfflineSet off = OfflineDisks(st.rack());
  EXPECT_EQ(off.disks.size(), 4u);  // 2 grid disks of cel02 in each of DATA and RECO
  EXPECT_GT(off.stale_aus, 0u);

  // The cell comes back: restart with the fault gone.
  s.reset();
  absl::Status closed;  // cel02 cannot close cleanly while dead; that is expected
  st.Restart(&closed, [&] { st.fault()->ClearFaults(); });
  RecordProperty("dead_cell_close", std::string(closed.message()));
  ASSERT_FALSE(HasFailure());
  const OfflineSet still = OfflineDisks(st.rack());
  EXPECT_EQ(still.disks.size(), 4u) << "offline state and stale marks are persistent";
  EXPECT_EQ(still.stale_aus, off.stale_aus);
  ASSERT_OK(wl.Verify(st));
  asmgr::ResyncResult rs;
  ASSERT_OK(OnlineAll(st.rack(), &rs));
  EXPECT_EQ(rs.extents_copied, off.stale_aus) << "only the changed extents are copied";
  EXPECT_EQ(rs.extents_unrecoverable, 0u);
  EXPECT_TRUE(OfflineDisks(st.rack()).disks.empty());
  uint64_t extents = 0;
  ASSERT_OK(ScrubClean(st.rack(), &extents));
  EXPECT_GT(extents, 0u);
  ASSERT_OK(wl.Verify(st));
  ASSERT_OK(VerifyTableFormatted(st.rack(), st.db()->file_table(), wl.names()));
  ASSERT_OK(CheckNoLeaks(st.rack(), st.db()->file_table()));
  RecordProperty("writes", static_cast<int>(wl.writes()));
  RecordProperty("stale_extents_resynced", static_cast<int>(rs.extents_copied));
}

// ------------------------------------------- (b) flash of a write-back cell lost

// cel01's flash device fails while it holds dirty lines (workload writes) and
// unmaterialized fast-creation templates (a data file and a redo log made by
// the fast path): both become lost ranges, persistently across a restart.
// ASM's resync of lost ranges rewrites them from the partners; then every
// acknowledged write reads back, the created files read formatted, all copies
// agree, and a flush of every cache leaves the disks authoritative. A second
// loss (cel03) is healed by reads alone (read repair), before any resync.
TEST(FaultScenario, LostFlashOfWriteBackCellIsRestoredFromMirrors) {
  Stack st(cell::FlashCacheMode::kWriteBack);
  ASSERT_TRUE(st.ok());
  auto s = st.db()->NewSession();
  ASSERT_OK(s->Execute("create tablespace users datafile '+DATA' size 24m"));
  ASSERT_OK_AND_ASSIGN(db::StatementResult log,
                       s->Execute("alter database add logfile group 1 ('+DATA','+RECO') size 8m"));
  EXPECT_EQ(log.path, "fast");
  Workload wl(22);
  ASSERT_OK(wl.Track(st, "USERS"));
  ASSERT_OK(wl.Write(st, 80));
  cell::Cell* cel01 = st.rack()->concrete_cell(0);
  const uint64_t dirty = cel01->DirtyBytes();
  EXPECT_GT(dirty, 0u);
  EXPECT_GT(cel01->TemplateRangeCount(), 0u);
  ASSERT_OK(cel01->LoseFlash());
  EXPECT_EQ(cel01->DirtyBytes(), 0u);
  ASSERT_OK_AND_ASSIGN(std::vector<cell::LostRange> lost, cel01->LostRanges());
  ASSERT_FALSE(lost.empty());

  s.reset();
  st.Restart();
  ASSERT_FALSE(HasFailure());
  cel01 = st.rack()->concrete_cell(0);
  ASSERT_OK_AND_ASSIGN(std::vector<cell::LostRange> after, cel01->LostRanges());
  // Lost ranges survive a restart (mounting the database rewrites its control
  // files, which heals the ones under them).
  EXPECT_GT(after.size(), 0u);
  EXPECT_LE(after.size(), lost.size());
  asmgr::ResyncResult rs;
  ASSERT_OK(st.rack()->ResyncLostRanges(&rs));
  EXPECT_GT(rs.extents_copied, 0u);
  EXPECT_EQ(rs.extents_unrecoverable, 0u);
  for (uint32_t c = 0; c < st.rack()->cell_count(); ++c) {
    ASSERT_OK_AND_ASSIGN(after, st.rack()->cell(c)->LostRanges());
    EXPECT_TRUE(after.empty()) << st.rack()->cell_name(c);
  }
  ASSERT_OK(wl.Verify(st));
  ASSERT_OK(VerifyTableFormatted(st.rack(), st.db()->file_table(), wl.names()));
  ASSERT_OK(ScrubClean(st.rack()));

  // A second loss, healed by reading: every read fails over and repairs.
  ASSERT_OK(wl.Write(st, 40));
  cell::Cell* cel03 = st.rack()->concrete_cell(2);
  EXPECT_GT(cel03->DirtyBytes(), 0u);
  ASSERT_OK(cel03->LoseFlash());
  uint64_t failovers = 0;
  ASSERT_OK(wl.Verify(st, &failovers));
  EXPECT_GT(failovers, 0u);
  ASSERT_OK(VerifyTableFormatted(st.rack(), st.db()->file_table(), wl.names()));
  asmgr::ResyncResult rest;
  ASSERT_OK(st.rack()->ResyncLostRanges(&rest));  // what the reads did not touch
  EXPECT_EQ(rest.extents_unrecoverable, 0u);
  ASSERT_OK_AND_ASSIGN(after, cel03->LostRanges());
  EXPECT_TRUE(after.empty());
  ASSERT_OK(ScrubClean(st.rack()));
  for (uint32_t c = 0; c < st.rack()->cell_count(); ++c) {
    ASSERT_OK(st.rack()->cell(c)->Flush(nullptr).status());
    EXPECT_EQ(st.rack()->concrete_cell(c)->DirtyBytes(), 0u);
  }
  ASSERT_OK(wl.Verify(st));
  ASSERT_OK(CheckNoLeaks(st.rack(), st.db()->file_table()));
  // No disk was taken offline: a lost flash is not a disk failure.
  EXPECT_TRUE(OfflineDisks(st.rack()).disks.empty());
  s = st.db()->NewSession();
  ASSERT_OK(s->Execute("create tablespace after_loss datafile '+DATA' size 4m"));
  ASSERT_OK(VerifyTableFormatted(st.rack(), st.db()->file_table(), wl.names()));
  RecordProperty("dirty_bytes_lost", static_cast<int>(dirty));
  RecordProperty("extents_resynced", static_cast<int>(rs.extents_copied));
}

// A missing flash device (flash.img deleted while the rack is down) is not
// silently replaced (issue 11): the read-write open puts a fresh flash in its
// place, says so (metadata_repairs names the cell and its flash), and rebuilds
// the cell's disks from the mirrors before anything reads them.
TEST(FaultScenario, MissingFlashDeviceIsReplacedAndRebuiltAtOpen) {
  TempDir tmp;
  auto io = io::MakePosixBackend();
  const std::string dir = tmp.path() + "/rack";
  {
    ASSERT_OK_AND_ASSIGN(auto rack,
                         asmgr::Rack::Create(io.get(), SystemClock(), dir,
                                             ScenarioRack(cell::FlashCacheMode::kWriteBack)));
    ASSERT_OK_AND_ASSIGN(auto db, db::Database::Create(rack.get()));
    auto s = db->NewSession();
    ASSERT_OK(s->Execute("create tablespace users datafile '+DATA' size 4m"));
    s.reset();
    ASSERT_OK(db->Close());
    db.reset();
    ASSERT_OK(rack->Close());
  }
  ASSERT_TRUE(std::filesystem::remove(dir + "/cel01/flash.img"));
  ASSERT_OK_AND_ASSIGN(auto rack, asmgr::Rack::Open(io.get(), SystemClock(), dir));
  ASSERT_FALSE(rack->metadata_repairs().empty());
  EXPECT_THAT(rack->metadata_repairs().back(), HasSubstr("cel01: flash device lost"));
  ASSERT_OK_AND_ASSIGN(auto db, db::Database::Open(rack.get()));
  ASSERT_OK(VerifyTableFormatted(rack.get(), db->file_table()));
  ASSERT_OK(ScrubClean(rack.get()));
  for (asmgr::DiskGroup* dg : rack->disk_groups()) EXPECT_EQ(dg->View().offline_disks, 0u);
  ASSERT_OK(db->Close());
  db.reset();
  ASSERT_OK(rack->Close());
}

// ------------------------------------------------- (c) 1-in-N write errors

// Write-through cells, so every write reaches the grid disk files. One disk
// (DATA_CD_01_cel02) fails 1 write in 4. Each of two rounds: writes and creations
// (zero-fill and smart) are all acknowledged; the first error takes the disk
// offline (its error kept), later writes skip it; every acknowledged byte
// reads back; the resync after the fault is cleared copies exactly its stale
// extents and the copies agree. A resync attempted while the fault is still
// there fails and leaves the disk offline with its stale marks.
TEST(FaultScenario, OneInNWriteErrorsTakeTheDiskOfflineAndLoseNothing) {
  Stack st(cell::FlashCacheMode::kWriteThrough);
  ASSERT_TRUE(st.ok());
  auto s = st.db()->NewSession();
  ASSERT_OK(s->Execute("create tablespace users datafile '+DATA' size 24m"));
  ASSERT_OK(s->Execute("alter database add logfile group 1 ('+DATA','+RECO') size 4m"));
  Workload wl(33);
  ASSERT_OK(wl.Track(st, "USERS"));
  const std::string victim_name = "DATA_CD_01_cel02";
  asmgr::DiskGroup* data = st.dg("DATA");
  ASSERT_OK_AND_ASSIGN(const uint32_t victim, data->FindDisk(victim_name));
  uint64_t resynced = 0;
  for (int round = 0; round < 2; ++round) {
    SCOPED_TRACE(round);
    const uint64_t failures_before = st.fault()->InjectedFailures();
    st.fault()->FailOneIn({.ops = io::kOpWrite, .path_substring = victim_name}, 4, 100 + round);
    ASSERT_OK(wl.Write(st, 20));
    ASSERT_OK(s->Execute(kZeroFill));
    ASSERT_OK(s->Execute(fmt::format("create tablespace z{} datafile '+DATA' size 6m", round)));
    ASSERT_OK(s->Execute(kSmart));
    ASSERT_OK(s->Execute(fmt::format("alter tablespace users add datafile '+DATA' size 2m")));
    ASSERT_OK(wl.Write(st, 20));
    EXPECT_GT(st.fault()->InjectedFailures(), failures_before);
    asmgr::DiskView v = data->Disks()[victim];
    EXPECT_EQ(v.mode_status, "OFFLINE");
    EXPECT_FALSE(v.last_error.empty());
    EXPECT_GT(v.stale_aus, 0u);
    // Only the failing disk went offline.
    const OfflineSet off = OfflineDisks(st.rack());
    ASSERT_EQ(off.disks.size(), 1u);
    EXPECT_EQ(off.disks[0].second, victim);
    // Later writes skip it: no more injected failures.
    const uint64_t failures = st.fault()->InjectedFailures();
    ASSERT_OK(wl.Write(st, 10));
    EXPECT_EQ(st.fault()->InjectedFailures(), failures);
    ASSERT_OK(wl.Verify(st));
    ASSERT_OK(VerifyTableFormatted(st.rack(), st.db()->file_table(), wl.names()));

    v = data->Disks()[victim];
    if (round == 1) {
      // Resync into a disk that still fails: refused, nothing claimed.
      st.fault()->FailOneIn({.ops = io::kOpWrite, .path_substring = victim_name}, 1, 7);
      asmgr::ResyncResult bad;
      EXPECT_FALSE(data->OnlineDisk(victim, &bad).ok());
      EXPECT_EQ(data->Disks()[victim].mode_status, "OFFLINE");
      EXPECT_GT(data->Disks()[victim].stale_aus, 0u);
      ASSERT_OK(wl.Verify(st));
      v = data->Disks()[victim];
    }
    st.fault()->ClearFaults();
    asmgr::ResyncResult rs;
    ASSERT_OK(data->OnlineDisk(victim, &rs));
    EXPECT_EQ(rs.extents_copied, v.stale_aus);
    EXPECT_EQ(rs.extents_unrecoverable, 0u);
    EXPECT_EQ(data->Disks()[victim].mode_status, "ONLINE");
    EXPECT_EQ(data->Disks()[victim].stale_aus, 0u);
    resynced += rs.extents_copied;
    ASSERT_OK(ScrubClean(st.rack()));
    ASSERT_OK(wl.Verify(st));
  }
  s.reset();
  st.Restart();
  ASSERT_FALSE(HasFailure());
  ASSERT_OK(wl.Verify(st));
  ASSERT_OK(VerifyTableFormatted(st.rack(), st.db()->file_table(), wl.names()));
  ASSERT_OK(CheckNoLeaks(st.rack(), st.db()->file_table()));
  RecordProperty("extents_resynced", static_cast<int>(resynced));
}

// The same fault on a write-back cell: small writes land in flash, so the
// failing disk is met by the cell's own destaging (a flush fails with the
// disk's error and the dirty data stays in flash, readable) and by the
// writes that bypass the cache (a zero-fill creation's 1 MiB writes), which
// ASM sees: the disk goes offline. Nothing acknowledged is lost; once the
// disk is repaired, resync and flush complete and the copies agree.
TEST(FaultScenario, OneInNWriteErrorsOnAWriteBackCellLoseNothing) {
  Stack st(cell::FlashCacheMode::kWriteBack);
  ASSERT_TRUE(st.ok());
  auto s = st.db()->NewSession();
  ASSERT_OK(s->Execute("create tablespace users datafile '+DATA' size 32m"));
  Workload wl(44);
  ASSERT_OK(wl.Track(st, "USERS"));
  const std::string victim_name = "DATA_CD_01_cel02";
  asmgr::DiskGroup* data = st.dg("DATA");
  ASSERT_OK_AND_ASSIGN(const uint32_t victim, data->FindDisk(victim_name));
  st.fault()->FailOneIn({.ops = io::kOpWrite, .path_substring = victim_name}, 4, 5);
  ASSERT_OK(wl.Write(st, 120));
  // ALTER FLASHCACHE ALL FLUSH on cel02 meets the failing disk: it fails with
  // the disk's error and the dirty data stays in flash.
  cell::Cell* cel02 = st.rack()->concrete_cell(1);
  const uint64_t dirty = cel02->DirtyBytes();
  ASSERT_GT(dirty, 0u);
  absl::StatusOr<cell::FlushProgress> flush = cel02->Flush(nullptr);
  ASSERT_FALSE(flush.ok());
  EXPECT_THAT(std::string(flush.status().message()), HasSubstr(victim_name));
  const uint64_t destage_failures = st.fault()->InjectedFailures();
  EXPECT_GT(destage_failures, 0u);
  EXPECT_GT(cel02->DirtyBytes(), 0u);
  ASSERT_OK(wl.Verify(st));
  ASSERT_OK(wl.Write(st, 50));
  // Zero-fill creations until one of their 1 MiB writes meets the fault
  // (each sends a few copies to the disk; the first failing one takes it
  // offline and later ones skip it).
  ASSERT_OK(s->Execute(kZeroFill));
  for (int i = 0; i < 6 && data->Disks()[victim].mode_status == "ONLINE"; ++i) {
    ASSERT_OK(s->Execute(fmt::format("create tablespace z{} datafile '+DATA' size 8m", i)));
  }
  ASSERT_OK(wl.Write(st, 30));
  ASSERT_OK(wl.Verify(st));
  ASSERT_OK(VerifyTableFormatted(st.rack(), st.db()->file_table(), wl.names()));
  const OfflineSet off = OfflineDisks(st.rack());
  ASSERT_EQ(off.disks.size(), 1u);
  EXPECT_EQ(off.disks[0].first, data);
  EXPECT_EQ(off.disks[0].second, victim);
  EXPECT_GT(off.stale_aus, 0u);
  st.fault()->ClearFaults();
  asmgr::ResyncResult rs;
  ASSERT_OK(OnlineAll(st.rack(), &rs));
  EXPECT_EQ(rs.extents_copied, off.stale_aus);
  ASSERT_OK(ScrubClean(st.rack()));
  // The disk repaired, the same flush completes.
  for (uint32_t c = 0; c < st.rack()->cell_count(); ++c) {
    ASSERT_OK(st.rack()->cell(c)->Flush(nullptr).status());
    EXPECT_EQ(st.rack()->concrete_cell(c)->DirtyBytes(), 0u);
  }
  ASSERT_OK(wl.Verify(st));
  ASSERT_OK(ScrubClean(st.rack()));
  ASSERT_OK(CheckNoLeaks(st.rack(), st.db()->file_table()));
  RecordProperty("destage_failures", static_cast<int>(destage_failures));
  RecordProperty("offline_disks", static_cast<int>(off.disks.size()));
}

// --------------------------------------------- (d) a full disk group

struct Space {
  std::vector<uint64_t> free_mb;
  bool operator==(const Space&) const = default;
};
Space SpaceOf(asmgr::Rack* rack) {
  Space s;
  for (asmgr::DiskGroup* dg : rack->disk_groups()) s.free_mb.push_back(dg->Space().free_mb);
  return s;
}

// RECO is filled with data files until less than 40 MiB usable is left. A
// creation that needs more fails with ORA-15041 by every path, including a
// two-member group whose +DATA member was made first: nothing is left behind,
// free space and the control file are unchanged (also after a restart). The
// next, smaller creation succeeds and reads formatted. Two sessions racing
// for the last space: exactly one wins.
TEST(FaultScenario, FullDiskGroupFailsTheCreationAndLeavesNothing) {
  Stack st(cell::FlashCacheMode::kWriteBack);
  ASSERT_TRUE(st.ok());
  auto s = st.db()->NewSession();
  asmgr::DiskGroup* reco = st.dg("RECO");
  // RECO: 6 x 48 MiB = 288 MiB raw, 144 MiB for mirrored files.
  int n = 0;
  while (reco->Space().free_mb / 2 >= 40 + 24) {
    ASSERT_OK(s->Execute(fmt::format("create tablespace fill{} datafile '+RECO' size 24m", n++)));
  }
  const uint64_t usable = reco->Space().free_mb / 2;
  ASSERT_LT(usable, 64u);
  const Space before = SpaceOf(st.rack());
  const db::FileTable table = st.db()->file_table();
  const uint64_t seq = st.db()->control_file_sequence();
  const std::string too_big = fmt::format("{}m", usable + 8);
  const std::vector<std::vector<std::string>> paths = {
      {kZeroFill}, {kSmart, kNoMetadata}, {kFast[0], kFast[1]}};
  for (const auto& settings : paths) {
    SCOPED_TRACE(settings.back());
    for (const std::string& set : settings) ASSERT_OK(s->Execute(set));
    for (const std::string& stmt :
         {"create tablespace big datafile '+RECO' size " + too_big,
          "alter database add logfile group 9 ('+DATA','+RECO') size " + too_big}) {
      absl::StatusOr<db::StatementResult> r = s->Execute(stmt);
      ASSERT_FALSE(r.ok()) << stmt;
      EXPECT_EQ(r.status().code(), absl::StatusCode::kResourceExhausted);
      EXPECT_THAT(std::string(r.status().message()),
                  HasSubstr("ORA-15041: disk group RECO space exhausted: "));
      EXPECT_EQ(SpaceOf(st.rack()), before) << stmt;
      EXPECT_EQ(st.db()->file_table(), table) << stmt;
      EXPECT_EQ(st.db()->control_file_sequence(), seq) << stmt;
      ASSERT_OK(CheckNoLeaks(st.rack(), st.db()->file_table()));
    }
  }
  s.reset();
  st.Restart();
  ASSERT_FALSE(HasFailure());
  EXPECT_EQ(SpaceOf(st.rack()), before);
  EXPECT_EQ(st.db()->file_table(), table);
  reco = st.dg("RECO");

  // The next smaller creation fits.
  s = st.db()->NewSession();
  ASSERT_OK(s->Execute(kZeroFill));
  ASSERT_OK(
      s->Execute(fmt::format("create tablespace fits datafile '+RECO' size {}m", usable / 2)));
  std::set<std::string> fill_files;
  for (const db::DataFile& f : table.data_files) fill_files.insert(f.file.name);
  ASSERT_OK(VerifyTableFormatted(st.rack(), st.db()->file_table(), fill_files));
  ASSERT_OK(CheckNoLeaks(st.rack(), st.db()->file_table()));

  // Two sessions race for what is left: each alone would fit, both do not.
  const uint64_t left = reco->Space().free_mb / 2;
  ASSERT_GE(left, 8u);
  const uint64_t each = left * 6 / 10;
  const uint64_t race_before = reco->Space().free_mb;
  auto a = st.db()->NewSession();
  auto b = st.db()->NewSession();
  absl::StatusOr<db::StatementResult> ra, rb;
  std::thread ta([&] {
    ra = a->Execute(fmt::format("create tablespace race_a datafile '+RECO' size {}m", each));
  });
  std::thread tb([&] {
    rb = b->Execute(fmt::format("alter database add logfile group 20 ('+RECO') size {}m", each));
  });
  ta.join();
  tb.join();
  ASSERT_NE(ra.ok(), rb.ok()) << ra.status() << " / " << rb.status();
  const absl::Status& loser = ra.ok() ? rb.status() : ra.status();
  EXPECT_THAT(std::string(loser.message()), HasSubstr("ORA-15041"));
  EXPECT_LT(reco->Space().free_mb, race_before);
  ASSERT_OK(VerifyTableFormatted(st.rack(), st.db()->file_table(), fill_files));
  ASSERT_OK(CheckNoLeaks(st.rack(), st.db()->file_table()));
  a.reset();
  b.reset();
  s.reset();
  const Space after_race = SpaceOf(st.rack());
  st.Restart();
  ASSERT_FALSE(HasFailure());
  EXPECT_EQ(SpaceOf(st.rack()), after_race);
  ASSERT_OK(VerifyTableFormatted(st.rack(), st.db()->file_table()));
  RecordProperty("fill_files", n);
}

}  // namespace
}  // namespace cellsim::faults
