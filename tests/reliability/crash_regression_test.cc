// Focused regression tests for the bugs the crash campaign found
// (docs/crash-campaign.md "Bugs found"). Each failed before its fix.
#include <cstdio>
#include <fmt/format.h>

#include "cellsim/base/units.h"
#include "cellsim/cell/cell.h"
#include "crash_harness.h"
#include "testing/sanitizer.h"
#include "testing/test_util.h"

namespace cellsim::reliability {
namespace {

// A small rack like the campaign's: 3 cells x 2 disks, AU 1 MiB.
WorkloadParams SmallParams() {
  WorkloadParams p;
  p.rack.cells = 3;
  p.rack.cell_disks_per_cell = 2;
  p.rack.disk_groups = {
      {.name = "DATA",
       .redundancy = asmgr::Redundancy::kNormal,
       .au_size = 1 * kMiB,
       .grid_disk_size = 48 * kMiB},
      {.name = "RECO",
       .redundancy = asmgr::Redundancy::kNormal,
       .au_size = 1 * kMiB,
       .grid_disk_size = 24 * kMiB},
  };
  p.rack.flash_size = 16 * kMiB;
  p.db.min_log_file_bytes = 0;  // logs of 128-256 KiB on this tiny rack
  return p;
}

// Bug 1: dropping the last log group of a thread left the thread in the file
// table, and Database::Open (which removes threads without a group as
// leftovers of an interrupted ADD LOGFILE) then dropped it: the acknowledged
// file table changed across a restart. Now the thread goes with its last group.
TEST(CrashRegression, DroppingTheLastGroupOfAThreadSurvivesARestart) {
  cellsim::testing::TempDir tmp;
  std::unique_ptr<io::IoBackend> io = io::MakePosixBackend();
  Rig rig;
  rig.io = io.get();
  rig.dir = tmp.File("rack");
  ASSERT_OK(rig.Create(SmallParams()));
  ASSERT_OK(
      rig.session->Execute("alter database add logfile thread 1 group 1 ('+DATA') size 256k"));
  ASSERT_OK(
      rig.session->Execute("alter database add logfile thread 2 group 2 ('+RECO') size 256k"));
  ASSERT_OK(rig.session->Execute("alter database drop logfile group 2"));
  const db::FileTable before = rig.db->file_table();
  ASSERT_EQ(before.threads.size(), 1u);
  EXPECT_EQ(before.threads[0].thread, 1u);
  for (bool clean : {true, false}) {
    ASSERT_OK(rig.Drop(clean));
    ASSERT_OK(rig.Open(rig.db_options));
    EXPECT_TRUE(rig.db->recovery_actions().empty()) << rig.db->recovery_actions()[0];
    EXPECT_EQ(rig.db->file_table(), before) << TableSummary(rig.db->file_table());
  }
  ASSERT_OK(rig.Drop(true));
}

// Bug 2: a power cut during Database::Create, after ASM had made the control
// files but before they were written, left a rack where Open failed
// (ORA-00227, no valid file table) and Create refused (ORA-01100, already
// exists): stuck for good. Now Create starts again over such leftovers. Cut at
// every write/sync of the creation: afterwards either Open works and finds an
// empty database, or Open fails and Create works; then nothing is leaked.
TEST(CrashRegression, CutDuringDatabaseCreateNeverLeavesTheRackStuck) {
  const WorkloadParams p = SmallParams();
  int opened = 0, recreated = 0;
  // Every cut point; under ASan (CI) every second, under TSan (races, not
  // cut points) every sixth.
  constexpr uint64_t kStride = cellsim::testing::BySanitizer<uint64_t>(1, 2, 6);
  for (uint64_t k = 0;; k += kStride) {
    SCOPED_TRACE(fmt::format("cut after {} writes/syncs of Database::Create", k));
    cellsim::testing::TempDir tmp;
    auto fault = std::make_unique<io::FaultInjectionBackend>(io::MakePosixBackend());
    ManualClock clock;
    ASSERT_OK_AND_ASSIGN(auto rack,
                         asmgr::Rack::Create(fault.get(), &clock, tmp.File("r"), p.rack));
    fault->CrashAfter({.ops = io::kOpWrite | io::kOpSync | io::kOpTruncate | io::kOpAllocate}, k);
    const bool created = db::Database::Create(rack.get(), p.db).ok();
    const bool crashed = fault->Crashed();
    rack.reset();
    ASSERT_OK(fault->SimulatePowerLoss());
    std::unique_ptr<io::IoBackend> clean = io::MakePosixBackend();
    Rig rig;
    rig.io = clean.get();
    rig.dir = tmp.File("r");
    rig.clock = std::make_unique<ManualClock>();
    ASSERT_OK_AND_ASSIGN(rig.rack, asmgr::Rack::Open(clean.get(), rig.clock.get(), rig.dir));
    absl::StatusOr<std::unique_ptr<db::Database>> db = db::Database::Open(rig.rack.get(), p.db);
    if (db.ok()) {
      ++opened;
      rig.db = *std::move(db);
    } else {
      EXPECT_FALSE(created) << "an acknowledged Create must open: " << db.status();
      ASSERT_OK_AND_ASSIGN(rig.db, db::Database::Create(rig.rack.get(), p.db));
      ++recreated;
    }
    rig.db_options = p.db;
    rig.session = rig.db->NewSession();
    EXPECT_TRUE(rig.db->file_table().data_files.empty() && rig.db->file_table().log_groups.empty());
    // The database works and nothing is leaked: only its two control files
    // hold space.
    ASSERT_OK(rig.session->Execute("alter database add logfile group 1 ('+DATA') size 256k"));
    // (A clean restart first: the open above may have repaired a copy, a
    // recovery action the checker only allows with a statement in flight.)
    ASSERT_OK(rig.Drop(true));
    ASSERT_OK(rig.Open(p.db));
    Model model;
    model.table = rig.db->file_table();
    model.files = FormattedImages(model.table);
    for (uint32_t c = 0; c < rig.rack->cell_count(); ++c) {
      model.modes.push_back(rig.rack->concrete_cell(c)->flash_cache_mode());
    }
    Tally tally;
    Checker checker(&tally);
    checker.AfterCut(rig, model, InFlight{}, /*deep=*/false);
    EXPECT_TRUE(checker.ok()) << checker.first_failure();
    ASSERT_OK(rig.Drop(true));
    if (!crashed) break;
  }
  std::printf("cut points: %d recreated, %d opened (stride %llu)\n", recreated, opened,
              static_cast<unsigned long long>(kStride));
  EXPECT_GT(recreated, 10 / kStride);  // cuts that used to leave the rack stuck
  // Cuts after the control files hold a valid table: how many writes and
  // syncs Create has left by then depends on batching (a control-file write
  // is one batch per cell since WriteFiles) and on how many appends the
  // cells' group commit merges, which timing (a sanitizer) changes; at least
  // one cut must land there, or the test would not check the Open side.
  EXPECT_GT(opened, 0);
}

// The checker itself must be able to fail: a write the model does not know
// is caught, and allowed only as the in-flight write.
TEST(CrashHarness, CheckerCatchesAnUnacknowledgedChange) {
  cellsim::testing::TempDir tmp;
  std::unique_ptr<io::IoBackend> io = io::MakePosixBackend();
  Rig rig;
  rig.io = io.get();
  rig.dir = tmp.File("rack");
  ASSERT_OK(rig.Create(SmallParams()));
  ASSERT_OK(rig.session->Execute("alter database add logfile group 1 ('+DATA') size 256k"));
  Model model;
  model.table = rig.db->file_table();
  model.files = FormattedImages(model.table);
  for (uint32_t c = 0; c < 3; ++c) model.modes.push_back(cell::FlashCacheMode::kWriteBack);
  ASSERT_EQ(model.files.size(), 1u);
  const FileImage& img = model.files.begin()->second;
  {
    Tally tally;
    Checker ok(&tally);
    ok.AfterCut(rig, model, InFlight{}, /*deep=*/true);
    EXPECT_TRUE(ok.ok()) << ok.first_failure();
    EXPECT_GT(tally.invariants, 20u);
  }
  // A write the model did not acknowledge.
  std::vector<uint8_t> data(4096, 0xAB);
  std::vector<asmgr::AsmWriteRequest> w(1);
  w[0].file_offset = 8192;
  w[0].data = data;
  ASSERT_OK((*rig.rack->disk_group("DATA"))->Write(img.number, absl::MakeSpan(w), nullptr));
  {
    Tally tally;
    Checker bad(&tally);
    bad.AfterCut(rig, model, InFlight{}, /*deep=*/false);
    EXPECT_FALSE(bad.ok());
    EXPECT_THAT(bad.first_failure(), ::testing::HasSubstr("page at file offset 8192 differs"));
  }
  {
    InFlight f;
    f.kind = InFlight::kWrite;
    f.file = model.files.begin()->first;
    f.writes = {{8192, data}};
    Tally tally;
    Checker inflight(&tally);
    inflight.AfterCut(rig, model, f, /*deep=*/false);
    EXPECT_TRUE(inflight.ok()) << inflight.first_failure();
  }
  // From now on the write counts as acknowledged.
  std::copy(data.begin(), data.end(), model.files.begin()->second.bytes.begin() + 8192);
  // A statement the model did not acknowledge: only allowed as the one in
  // flight, and only with the effect it asks for.
  DdlEffect e;
  e.kind = DdlEffect::kAddLog;
  e.sql = "alter database add logfile thread 1 group 2 ('+RECO') size 128k";
  e.thread = 1;
  e.groups = {{.group = 2, .size = 128 * 1024, .block_size = 512, .members = {"RECO"}}};
  ASSERT_OK(rig.session->Execute(e.sql));
  {
    Tally tally;
    Checker bad(&tally);
    bad.AfterCut(rig, model, InFlight{}, /*deep=*/false);
    EXPECT_THAT(bad.first_failure(), ::testing::HasSubstr("recovered file table is neither"));
  }
  {
    InFlight f;
    f.kind = InFlight::kDdl;
    f.ddl = e;
    f.ddl.groups[0].size = 256 * 1024;  // not what ran
    Tally tally;
    Checker bad(&tally);
    bad.AfterCut(rig, model, f, /*deep=*/false);
    EXPECT_THAT(bad.first_failure(), ::testing::HasSubstr("group 2 is not as asked"));
  }
  {
    InFlight f;
    f.kind = InFlight::kDdl;
    f.ddl = e;
    Tally tally;
    Checker good(&tally);
    good.AfterCut(rig, model, f, /*deep=*/false);
    EXPECT_TRUE(good.ok()) << good.first_failure();
  }
  ASSERT_OK(rig.Drop(true));
}

}  // namespace
}  // namespace cellsim::reliability
