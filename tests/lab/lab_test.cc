// cellsim::Lab: create / open a lab, SQL, CellCLI and asmcmd through it, the
// reports, and the backend / O_DIRECT choice (including the fallback where a
// filesystem refuses O_DIRECT: ramfs, mounted when the test may).
#include "cellsim/cellsim.h"

#include <sys/mount.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "cellsim/report/json.h"
#include "testing/test_util.h"
#include "testing/tiny_rack.h"

namespace cellsim {
namespace {

using ::cellsim::testing::TempDir;
using ::testing::HasSubstr;

constexpr const char* kSeed =
    "alter database add logfile thread 2 group 5 ('+DATA','+RECO') size 16m";

LabOptions TinyLab() {
  LabOptions o;
  o.rack = testing::TinyRackConfig();
  o.fixed_time = 1'700'000'000;
  return o;
}

TEST(LabTest, RunsSqlCellCliAndAsmcmdWithReports) {
  TempDir dir;
  const std::string where = dir.File("lab");
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Lab> lab, Lab::Create(where, TinyLab()));
  // The choice is the probe's.
  ASSERT_OK_AND_ASSIGN(io::ProbeReport probe, io::ProbeIo(where));
  EXPECT_EQ(lab->io().direct, probe.direct_io);
  EXPECT_EQ(io::BackendKindName(lab->io().backend), probe.backend);
  EXPECT_EQ(lab->rack().config().direct_io, probe.direct_io);
  EXPECT_THAT(lab->io().Describe(), HasSubstr(probe.filesystem));

  ASSERT_OK_AND_ASSIGN(db::StatementResult r, lab->Sql(kSeed));
  EXPECT_EQ(r.path, db::kPathFast);
  EXPECT_EQ(r.files.size(), 2u);
  EXPECT_THAT(Lab::Feedback(r), HasSubstr("Database altered.  Elapsed: 00:00:"));
  EXPECT_THAT(Lab::Feedback(r), HasSubstr("(fast path)"));
  EXPECT_THAT(Lab::Tkprof({r}), HasSubstr("alter database add logfile"));
  // A query's rows and a DML's feedback, as `cellsim sql` prints them.
  ASSERT_OK_AND_ASSIGN(db::StatementResult q, lab->Sql("select group#, status from v$log where group# = 5"));
  EXPECT_THAT(Lab::Feedback(q), ::testing::StartsWith("\nGROUP# STATUS\n------ ------\n     5 UNUSED\n\n"
                                                     "Elapsed: 00:00:"));
  ASSERT_OK_AND_ASSIGN(db::StatementResult commit, lab->Sql("commit"));
  EXPECT_THAT(Lab::Feedback(commit), ::testing::StartsWith("\nCommit complete.\nElapsed: 00:00:"));
  ASSERT_OK_AND_ASSIGN(auto back, report::ParseStatementJson(Lab::Json(r)));
  EXPECT_EQ(back.path, "fast");
  ASSERT_OK_AND_ASSIGN(std::string mystats, lab->Mystats("l=cell"));
  EXPECT_THAT(mystats, HasSubstr("cell physical IO bytes saved during optimized file creation"));

  ASSERT_OK_AND_ASSIGN(std::string cells, lab->CellCli("list cell"));
  EXPECT_THAT(cells, HasSubstr("cel01: "));
  EXPECT_THAT(cells, HasSubstr("cel03: "));
  ASSERT_OK_AND_ASSIGN(std::string one, lab->CellCli("LIST GRIDDISK", "CEL02"));
  EXPECT_THAT(one, HasSubstr("DATA_CD_00_cel02"));
  EXPECT_THAT(one, ::testing::Not(HasSubstr("cel01")));

  ASSERT_OK(lab->Asmcmd("cd +DATA/ORCL"));
  ASSERT_OK_AND_ASSIGN(std::string ls, lab->Asmcmd("ls ONLINELOG"));
  EXPECT_THAT(ls, HasSubstr("group_5"));
  ASSERT_OK(lab->Close());
  ASSERT_OK(lab->Close());  // twice is fine
  EXPECT_EQ(lab->Sql(kSeed).status().code(), absl::StatusCode::kFailedPrecondition);
}

TEST(LabTest, ReopensWithTheModeItWasCreatedWith) {
  TempDir dir;
  const std::string where = dir.File("lab");
  bool direct = false;
  {
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<Lab> lab, Lab::Create(where, TinyLab()));
    direct = lab->io().direct;
    ASSERT_OK(lab->Sql(kSeed));
    ASSERT_OK(lab->Close());
  }
  // A second Create on the same directory refuses; Open finds the data.
  auto again = Lab::Create(where, TinyLab());
  EXPECT_EQ(again.status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(std::string(again.status().message()), HasSubstr(where));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Lab> lab, Lab::Open(where, TinyLab()));
  EXPECT_EQ(lab->io().direct, direct);
  EXPECT_THAT(lab->io().mode_reason, HasSubstr("as the rack was created"));
  ASSERT_OK_AND_ASSIGN(std::string ls, lab->Asmcmd("ls +RECO/ORCL/ONLINELOG"));
  EXPECT_THAT(ls, HasSubstr("group_5"));
  // Adding the same group again is Oracle's error, and changes nothing.
  auto dup = lab->Sql(kSeed);
  EXPECT_THAT(std::string(dup.status().message()), HasSubstr("ORA-01184"));
  ASSERT_OK(lab->Close());
}

// Lab::Abort: the crash without a second process. The committed row is
// back after instance recovery, the open transaction's is not (no rollback
// and no checkpoint reached the files), and the lab is closed.
TEST(LabTest, AbortLeavesTheFilesAsAKillWouldAndOpenRecovers) {
  TempDir dir;
  const std::string where = dir.File("lab");
  LabOptions options = TinyLab();
  options.database.standard_files.create = true;
  options.database.standard_files.undo_bytes = 16ull << 20;
  options.database.standard_files.temp_bytes = 16ull << 20;
  options.database.standard_files.users_bytes = 16ull << 20;
  options.database.standard_files.log_bytes = 16ull << 20;
  {
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<Lab> lab, Lab::Create(where, options));
    ASSERT_OK(lab->Sql("create table t (x number)"));
    ASSERT_OK(lab->Sql("insert into t values (1)"));
    ASSERT_OK(lab->Sql("commit"));
    ASSERT_OK(lab->Sql("insert into t values (2)"));  // open at the crash
    ASSERT_OK(lab->Abort());
    EXPECT_EQ(lab->Sql("select 1 from dual").status().code(),
              absl::StatusCode::kFailedPrecondition);
    ASSERT_OK(lab->Close());  // nothing left to close
  }
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Lab> lab, Lab::Open(where, options));
  const std::vector<std::string> actions = lab->database().recovery_actions();
  ASSERT_FALSE(actions.empty());
  EXPECT_THAT(actions[0], HasSubstr("instance recovery"));
  // The commit's redo is replayed; the open transaction's never left the
  // log buffer.
  EXPECT_THAT(actions[0], HasSubstr("1 transactions committed")) << actions[0];
  ASSERT_OK_AND_ASSIGN(db::StatementResult r, lab->Sql("select count(*), max(x) from t"));
  ASSERT_EQ(r.result_rows.size(), 1u);
  EXPECT_EQ(r.result_rows[0][0], "1");
  EXPECT_EQ(r.result_rows[0][1], "1");
  ASSERT_OK(lab->Close());
}

TEST(LabTest, BadInputSaysWhat) {
  TempDir dir;
  auto missing = Lab::Open(dir.File("nowhere"), TinyLab());
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(missing.status().message()), HasSubstr(dir.File("nowhere")));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Lab> lab, Lab::Create(dir.File("lab"), TinyLab()));
  EXPECT_EQ(lab->Sql("alter databse add logfile").status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(lab->CellCli("list nonsense").status().message()),
              HasSubstr("CELL-01504"));
  EXPECT_EQ(lab->CellCli("list cell", "cel99").status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(lab->Asmcmd("frobnicate").status().message()),
              HasSubstr("ASMCMD-8022"));
  EXPECT_FALSE(lab->Mystats("t=").ok());
  ASSERT_OK(lab->Close());
}

// A filesystem that refuses O_DIRECT (ramfs: tmpfs accepts it since Linux
// 6.6): auto falls back to buffered and says so; asking for O_DIRECT fails
// naming the filesystem; buffered is honoured everywhere.
TEST(LabTest, FallsBackWhereTheFilesystemRefusesDirectIo) {
  TempDir dir;
  const std::string mnt = dir.File("ramfs");
  std::filesystem::create_directories(mnt);
  if (mount("ramfs", mnt.c_str(), "ramfs", 0, "size=64m") != 0) {
    GTEST_SKIP() << "cannot mount a ramfs (needs root / CAP_SYS_ADMIN): " << std::strerror(errno);
  }
  struct Unmount {
    std::string dir;
    ~Unmount() { umount2(dir.c_str(), MNT_DETACH); }
  } unmount{mnt};
  {
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<Lab> lab, Lab::Create(mnt + "/auto", TinyLab()));
    EXPECT_FALSE(lab->io().direct);
    EXPECT_TRUE(lab->io().fell_back);
    EXPECT_THAT(lab->io().Describe(), HasSubstr("buffered (fell back: ramfs at"));
    EXPECT_THAT(lab->io().Describe(), HasSubstr("refuses O_DIRECT"));
    EXPECT_FALSE(lab->rack().config().direct_io);
    ASSERT_OK(lab->Sql(kSeed));
    ASSERT_OK(lab->Close());
  }
  LabOptions direct = TinyLab();
  direct.io.mode = io::IoModeRequest::kDirect;
  auto refused = Lab::Create(mnt + "/direct", direct);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(refused.status().message()), HasSubstr("O_DIRECT is refused by ramfs"));
  LabOptions buffered = TinyLab();
  buffered.io.mode = io::IoModeRequest::kBuffered;
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Lab> lab, Lab::Create(dir.File("buffered"), buffered));
  EXPECT_FALSE(lab->io().direct);
  EXPECT_FALSE(lab->io().fell_back);
  ASSERT_OK(lab->Close());
}

// LabOptions::sim: the rack takes the profile's shape and the statement is
// timed on Exadata's clock (the seed's 2 x 4 GiB log group on an X3-2 eighth
// rack: about 5 s, docs/sim.md), model-only so that 16 GiB of copies fit in a
// test; the trace is written at Close.
TEST(LabTest, RunsOnTheSimulatedClockOfAProfile) {
  TempDir dir;
  LabOptions o;
  o.fixed_time = 1'700'000'000;
  o.sim.profile = "x3-2";
  o.sim.rack = "eighth";
  o.sim.model_only = true;
  o.sim.trace = dir.File("trace.json");
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Lab> lab, Lab::Create(dir.File("lab"), o));
  ASSERT_OK_AND_ASSIGN(sim::DeviceProfile x3, sim::LoadProfile("x3-2"));
  ASSERT_OK_AND_ASSIGN(sim::RackShape eighth, sim::ShapeFor(x3, "eighth"));
  EXPECT_EQ(lab->rack().config().cells, eighth.cells);
  EXPECT_EQ(lab->rack().config().cell_disks_per_cell, eighth.disks_per_cell);
  ASSERT_OK_AND_ASSIGN(
      db::StatementResult r,
      lab->Sql("alter database add logfile thread 2 group 5 ('+DATA','+RECO') size 4g"));
  EXPECT_EQ(r.path, db::kPathFast);
  // Simulated time does not depend on this machine: the same figure anywhere.
  EXPECT_GT(r.elapsed_ns, 3'000'000'000u);
  EXPECT_LT(r.elapsed_ns, 7'000'000'000u);
  ASSERT_OK(lab->Close());
  std::error_code ec;
  EXPECT_GT(std::filesystem::file_size(o.sim.trace, ec), 1000u) << ec.message();
}

// LabOptions::lock: a lab holds its rack for write; a second lab (another
// process would be the same) fails at once naming the holder, and opens once
// the first is closed.
TEST(LabTest, HoldsItsRackAgainstASecondLab) {
  TempDir dir;
  const std::string where = dir.File("lab");
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Lab> first, Lab::Create(where, TinyLab()));
  absl::StatusOr<std::unique_ptr<Lab>> second = Lab::Open(where, TinyLab());
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), absl::StatusCode::kUnavailable) << second.status();
  EXPECT_THAT(std::string(second.status().message()), HasSubstr("cellsim::Lab"));
  ASSERT_OK(first->Close());
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Lab> again, Lab::Open(where, TinyLab()));
  ASSERT_OK(again->Close());
}

}  // namespace
}  // namespace cellsim
