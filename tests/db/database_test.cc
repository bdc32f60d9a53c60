// Database and Session: lifecycle and reopen, statements and their errors,
// session vs instance statistics, failure part-way and crash recovery.
#include <string>

#include "cellsim/db/database.h"
#include "cellsim/io/fault_injection.h"
#include "db/db_test_util.h"
#include "gtest/gtest.h"
#include "testing/test_util.h"

namespace cellsim::db {
namespace {

using ::cellsim::db::testing::Count;
using ::cellsim::db::testing::SmallRack;
using ::cellsim::testing::TempDir;
using ::testing::AnyOf;
using ::testing::HasSubstr;
using stats::Stat;
using stats::Wait;

std::string Msg(const absl::Status& s) { return std::string(s.message()); }

// The ASM files of the database in every disk group, except control files.
std::vector<std::string> DatabaseFiles(asmgr::Rack* rack) {
  std::vector<std::string> out;
  for (asmgr::DiskGroup* dg : rack->disk_groups()) {
    for (const asmgr::FileInfo& f : dg->ListFiles()) {
      if (f.type != asmgr::FileType::kControlFile) out.push_back(f.name);
    }
  }
  return out;
}

class DatabaseTest : public ::testing::Test {
 protected:
  void SetUp() override { Build(SmallRack()); }
  void Build(const asmgr::RackConfig& cfg) {
    io_ = io::MakePosixBackend();
    ASSERT_OK_AND_ASSIGN(rack_, asmgr::Rack::Create(io_.get(), SystemClock(), dir(), cfg));
    ASSERT_OK_AND_ASSIGN(db_, Database::Create(rack_.get()));
  }
  void TearDown() override {
    db_.reset();
    if (rack_) EXPECT_OK(rack_->Close());
  }
  std::string dir() const { return tmp_.path() + "/rack"; }
  // Closes everything and opens rack and database again.
  void Reopen() {
    ASSERT_OK(db_->Close());
    db_.reset();
    ASSERT_OK(rack_->Close());
    rack_.reset();
    ASSERT_OK_AND_ASSIGN(rack_, asmgr::Rack::Open(io_.get(), SystemClock(), dir()));
    ASSERT_OK_AND_ASSIGN(db_, Database::Open(rack_.get()));
  }

  TempDir tmp_;
  std::unique_ptr<io::IoBackend> io_;
  std::unique_ptr<asmgr::Rack> rack_;
  std::unique_ptr<Database> db_;
};

TEST_F(DatabaseTest, CreateMakesTwoControlFiles) {
  EXPECT_EQ(db_->name(), "ORCL");
  const std::vector<std::string> cf = db_->control_files();
  ASSERT_EQ(cf.size(), 2u);
  EXPECT_THAT(cf[0], HasSubstr("+DATA/ORCL/CONTROLFILE/Current."));
  EXPECT_NE(cf[0], cf[1]);
  EXPECT_EQ(db_->control_file_sequence(), 1u);
  // The instance wrote both copies at once: one parallel write, not counted
  // in any session.
  EXPECT_EQ(Count(db_->SystemWaits(), Wait::kControlFileParallelWrite), 1);
  EXPECT_TRUE(DatabaseFiles(rack_.get()).empty());
  EXPECT_EQ(Database::Create(rack_.get()).status().code(), absl::StatusCode::kAlreadyExists);
  DatabaseOptions bad_name;
  bad_name.db_name = "TOOLONGNAME";
  EXPECT_EQ(Database::Create(rack_.get(), bad_name).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(DatabaseTest, ReopenKeepsTheFileTable) {
  auto s = db_->NewSession();
  ASSERT_OK(s->Execute("alter database add logfile thread 2 group 5 ('+DATA','+RECO') size 8m"));
  ASSERT_OK(s->Execute("alter database add logfile ('+RECO') size 4m blocksize 4096"));
  ASSERT_OK(s->Execute("create tablespace users datafile '+DATA' size 8m, '+RECO' size 4m"));
  ASSERT_OK(s->Execute("alter tablespace users add datafile '+DATA' size 2m"));
  const FileTable before = db_->file_table();
  const uint64_t seq = db_->control_file_sequence();
  // W = 2(M + 3) control-file writes per creating statement of M files
  // (docs/statistics.md "Control-file transactions"): M = 2, 1, 2, 1.
  EXPECT_EQ(seq, 1u + 10 + 8 + 10 + 8);
  ASSERT_EQ(before.log_groups.size(), 2u);
  EXPECT_EQ(before.log_groups[1].group, 1u);  // the lowest free number
  EXPECT_EQ(before.log_groups[1].thread, 1u);
  EXPECT_EQ(before.log_groups[1].block_size, 4096u);
  ASSERT_EQ(before.data_files.size(), 3u);
  EXPECT_EQ(before.data_files[2].file_number, 3u);
  ASSERT_EQ(before.threads.size(), 2u);
  s.reset();
  Reopen();
  EXPECT_EQ(db_->file_table(), before);
  EXPECT_EQ(db_->control_file_sequence(), seq);
  EXPECT_TRUE(db_->recovery_actions().empty());
  // And the files are still there, usable: drop them.
  s = db_->NewSession();
  ASSERT_OK_AND_ASSIGN(StatementResult r,
                       s->Execute("drop tablespace users including contents and datafiles"));
  EXPECT_EQ(r.execute.current, 3);
  EXPECT_EQ(Count(r.waits, Wait::kControlFileParallelWrite), 1);
  ASSERT_OK(s->Execute("alter database drop logfile group 5"));
  ASSERT_OK(s->Execute("alter database drop logfile group 1"));
  EXPECT_TRUE(DatabaseFiles(rack_.get()).empty());
  EXPECT_TRUE(db_->file_table().data_files.empty());
  EXPECT_TRUE(db_->file_table().tablespaces.empty());
}

// A tablespace's bigfile flag and contents are kept in the control file: after
// a reopen a bigfile tablespace still refuses a second data file (ORA-32771),
// and the dictionary views show both.
TEST_F(DatabaseTest, BigfileAndUndoTablespacesSurviveReopen) {
  auto s = db_->NewSession();
  ASSERT_OK(s->Execute("create bigfile tablespace big datafile '+DATA' size 8m"));
  ASSERT_OK(s->Execute("create undo tablespace undo2 datafile '+DATA' size 4m"));
  ASSERT_OK(s->Execute("create tablespace small datafile '+DATA' size 4m"));
  s.reset();
  Reopen();
  const FileTable t = db_->file_table();
  ASSERT_NE(t.FindTablespace("BIG"), nullptr);
  EXPECT_TRUE(t.FindTablespace("BIG")->bigfile);
  EXPECT_EQ(t.FindTablespace("UNDO2")->contents, TablespaceContents::kUndo);
  EXPECT_FALSE(t.FindTablespace("SMALL")->bigfile);
  s = db_->NewSession();
  absl::StatusOr<StatementResult> add = s->Execute("alter tablespace big add datafile '+DATA' size 4m");
  ASSERT_FALSE(add.ok());
  EXPECT_THAT(Msg(add.status()), HasSubstr("ORA-32771"));
  EXPECT_EQ(db_->file_table(), t);  // refused before anything was reserved
  ASSERT_OK(s->Execute("alter tablespace small add datafile '+DATA' size 4m"));

  ASSERT_OK_AND_ASSIGN(StatementResult ts,
                       s->Execute("select name, bigfile from v$tablespace order by name"));
  ASSERT_EQ(ts.result_rows.size(), 3u);
  EXPECT_EQ(ts.result_rows[0], (std::vector<std::string>{"BIG", "YES"}));
  EXPECT_EQ(ts.result_rows[1], (std::vector<std::string>{"SMALL", "NO"}));
  ASSERT_OK_AND_ASSIGN(StatementResult dba,
                       s->Execute("select tablespace_name, contents from dba_tablespaces "
                                  "where tablespace_name = 'UNDO2'"));
  ASSERT_EQ(dba.result_rows.size(), 1u);
  EXPECT_EQ(dba.result_rows[0][1], "UNDO");
  ASSERT_OK_AND_ASSIGN(StatementResult files,
                       s->Execute("select count(*) from dba_data_files where tablespace_name = "
                                  "'SMALL'"));
  EXPECT_EQ(files.result_rows[0][0], "2");
  ASSERT_OK_AND_ASSIGN(StatementResult v, s->Execute("select file#, bytes from v$datafile"));
  EXPECT_EQ(v.result_rows.size(), 4u);
}

// CREATE TEMPORARY TABLESPACE: ASM TEMPFILEs whose blocks nobody formats
// (Oracle creates tempfiles sparse, writing only the header), shown in
// V$TEMPFILE / DBA_TEMP_FILES and not in V$DATAFILE; a reopen keeps them; a
// permanent object is refused there, and each kind of tablespace refuses the
// other kind of file.
TEST_F(DatabaseTest, TemporaryTablespaceHasUnformattedTempfiles) {
  auto s = db_->NewSession();
  ASSERT_OK_AND_ASSIGN(StatementResult r,
                       s->Execute("create temporary tablespace temp2 tempfile '+DATA' size 8m"));
  EXPECT_TRUE(r.files.empty());  // no creation path ran
  EXPECT_EQ(r.path, "");
  EXPECT_EQ(r.statistics[Stat::kCellPhysicalIoBytesSavedDuringOptimizedFileCreation], 0);
  EXPECT_EQ(r.waits[Wait::kDataFileInitWrite].count, 0);
  EXPECT_EQ(r.waits[Wait::kCellSmartFileCreation].count, 0);
  EXPECT_EQ(r.waits[Wait::kDbFileSingleWrite].count, 1);  // the header
  ASSERT_OK(s->Execute("alter tablespace temp2 add tempfile '+DATA' size 4m"));
  ASSERT_OK(s->Execute("create tablespace perm datafile '+DATA' size 4m"));
  for (const char* bad : {"alter tablespace temp2 add datafile '+DATA' size 4m",
                          "alter tablespace perm add tempfile '+DATA' size 4m"}) {
    const FileTable before = db_->file_table();
    absl::StatusOr<StatementResult> refused = s->Execute(bad);
    ASSERT_FALSE(refused.ok()) << bad;
    EXPECT_THAT(Msg(refused.status()), AnyOf(HasSubstr("ORA-03217"), HasSubstr("ORA-02142")));
    EXPECT_EQ(db_->file_table(), before) << bad;
  }
  s.reset();
  Reopen();
  const FileTable t = db_->file_table();
  ASSERT_NE(t.FindTablespace("TEMP2"), nullptr);
  EXPECT_EQ(t.FindTablespace("TEMP2")->contents, TablespaceContents::kTemporary);
  int tempfiles = 0;
  for (asmgr::DiskGroup* dg : rack_->disk_groups()) {
    for (const asmgr::FileInfo& f : dg->ListFiles()) {
      if (f.type != asmgr::FileType::kTempFile) continue;
      ++tempfiles;
      EXPECT_THAT(f.name, HasSubstr("/TEMPFILE/TEMP2."));
    }
  }
  EXPECT_EQ(tempfiles, 2);
  s = db_->NewSession();
  ASSERT_OK_AND_ASSIGN(StatementResult temp,
                       s->Execute("select tablespace_name, bytes from dba_temp_files "
                                  "order by bytes"));
  ASSERT_EQ(temp.result_rows.size(), 2u);
  EXPECT_EQ(temp.result_rows[0], (std::vector<std::string>{"TEMP2", "4194304"}));
  ASSERT_OK_AND_ASSIGN(StatementResult v, s->Execute("select count(*) from v$tempfile"));
  EXPECT_EQ(v.result_rows[0][0], "2");
  ASSERT_OK_AND_ASSIGN(StatementResult data, s->Execute("select name from v$datafile"));
  ASSERT_EQ(data.result_rows.size(), 1u);
  EXPECT_THAT(data.result_rows[0][0], HasSubstr("/DATAFILE/PERM."));
  absl::StatusOr<StatementResult> heap = s->Execute("create table h (a number) tablespace temp2");
  ASSERT_FALSE(heap.ok());  // no SYSTEM tablespace to keep it in
  EXPECT_THAT(Msg(heap.status()), HasSubstr("ORA-00959: tablespace 'SYSTEM' does not exist "
                                            "(CREATE TABLE refused"));
  ASSERT_OK(s->Execute("create tablespace system datafile '+DATA' size 8m"));
  heap = s->Execute("create table h (a number) tablespace temp2");
  ASSERT_FALSE(heap.ok());
  EXPECT_THAT(Msg(heap.status()), HasSubstr("ORA-02195"));
  ASSERT_OK(s->Execute("create table h (a number) tablespace system"));
}

TEST_F(DatabaseTest, ErrorsAreOracleLikeAndLeaveNothing) {
  auto s = db_->NewSession();
  absl::StatusOr<StatementResult> r =
      s->Execute("alter database add logfile group 7 ('+DATA','+FOO') size 8m");
  EXPECT_EQ(r.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(Msg(r.status()), "ORA-15001: diskgroup \"FOO\" does not exist or is not mounted");
  EXPECT_TRUE(DatabaseFiles(rack_.get()).empty());

  ASSERT_OK(s->Execute("alter database add logfile group 5 ('+DATA') size 4m"));
  r = s->Execute("alter database add logfile group 5 ('+RECO') size 4m");
  EXPECT_EQ(Msg(r.status()), "ORA-01184: logfile group 5 already exists");
  r = s->Execute("alter database add logfile group 6 ('+RECO') size 4m, group 6 ('+RECO') size 4m");
  EXPECT_FALSE(r.ok());

  // RECO has 1.5 GiB raw: the DATA member (2 x 1 GiB) fits, RECO's does not,
  // and the DATA member made first is removed again.
  const FileTable before = db_->file_table();
  const uint64_t seq = db_->control_file_sequence();
  r = s->Execute("alter database add logfile ('+DATA','+RECO') size 1024m");
  EXPECT_EQ(r.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(Msg(r.status()), HasSubstr("ORA-15041: disk group RECO space exhausted: "));
  // ASM's own explanation: the member is 1 GiB + one redo block, 257 AUs.
  EXPECT_THAT(Msg(r.status()), HasSubstr("1028 MiB"));
  EXPECT_EQ(db_->file_table(), before);
  EXPECT_EQ(db_->control_file_sequence(), seq);  // never written
  EXPECT_EQ(DatabaseFiles(rack_.get()).size(), 1u);  // group 5 only
  // The groups create their files at once: the +DATA member is made even when
  // +RECO's, first in the statement, fails, and is removed again.
  r = s->Execute("alter database add logfile ('+RECO','+DATA') size 1024m");
  EXPECT_EQ(r.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(Msg(r.status()), HasSubstr("ORA-15041: disk group RECO space exhausted: "));
  EXPECT_EQ(db_->file_table(), before);
  EXPECT_EQ(db_->control_file_sequence(), seq);
  EXPECT_EQ(DatabaseFiles(rack_.get()).size(), 1u);

  r = s->Execute("alter database drop logfile group 9");
  EXPECT_THAT(Msg(r.status()), HasSubstr("ORA-01514"));
  r = s->Execute("alter tablespace nope add datafile '+DATA' size 1m");
  EXPECT_EQ(Msg(r.status()), "ORA-00959: tablespace 'NOPE' does not exist");
  ASSERT_OK(s->Execute("create tablespace t1 datafile '+DATA' size 1m"));
  r = s->Execute("create tablespace t1 datafile '+DATA' size 1m");
  EXPECT_EQ(Msg(r.status()), "ORA-01543: tablespace 'T1' already exists");
  r = s->Execute("create tablespace big datafile '+DATA' size 64g");
  EXPECT_THAT(Msg(r.status()), HasSubstr("ORA-01144"));
  r = s->Execute("alter session set optimizer_goal_x = 1");
  EXPECT_THAT(Msg(r.status()), HasSubstr("ORA-02248"));
  ASSERT_OK(s->Execute("alter session set tracefile_identifier = 'lab1'"));
  EXPECT_EQ(s->Parameter("TRACEFILE_IDENTIFIER"), "lab1");
  r = s->Execute("alter database add logfile size");  // the parser's error
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  // Reopening shows exactly what succeeded.
  const FileTable after = db_->file_table();
  s.reset();
  Reopen();
  EXPECT_EQ(db_->file_table(), after);
  EXPECT_TRUE(db_->recovery_actions().empty());
}

TEST_F(DatabaseTest, SystemStatisticsAreTheSumOfSessions) {
  const stats::StatValues sys0 = db_->SystemStats();
  const stats::WaitValues sysw0 = db_->SystemWaits();
  auto a = db_->NewSession();
  auto b = db_->NewSession();
  EXPECT_NE(a->sid(), b->sid());
  ASSERT_OK(a->Execute("alter database add logfile ('+DATA') size 8m"));
  ASSERT_OK(b->Execute("alter session set \"_cell_fast_file_create\" = false"));
  ASSERT_OK(b->Execute("create tablespace t datafile '+RECO' size 4m"));
  EXPECT_FALSE(a->Execute("drop tablespace nope").ok());
  ASSERT_OK(a->Execute(Statement{DropTablespace{.name = "T"}}));  // parsed: no parse call

  stats::StatValues sum = a->Stats();
  sum += b->Stats();
  const stats::StatValues sys = db_->SystemStats() - sys0;
  for (size_t i = 0; i < stats::kStatCount; ++i) {
    EXPECT_EQ(sys.v[i], sum.v[i]) << stats::kStatTable[i].name;
  }
  stats::WaitValues wsum = a->Waits();
  wsum += b->Waits();
  const stats::WaitValues sysw = db_->SystemWaits() - sysw0;
  for (size_t i = 0; i < stats::kWaitCount; ++i) {
    EXPECT_EQ(sysw.v[i].count, wsum.v[i].count) << stats::kWaitTable[i].name;
    EXPECT_EQ(sysw.v[i].total_ns, wsum.v[i].total_ns) << stats::kWaitTable[i].name;
  }
  EXPECT_EQ(a->Stats()[Stat::kExecuteCount], 3);
  EXPECT_EQ(a->Stats()[Stat::kParseCountTotal], 2);
  EXPECT_EQ(b->Stats()[Stat::kExecuteCount], 2);
  EXPECT_GT(Count(b->Waits(), Wait::kDataFileInitWrite), 0);
  EXPECT_EQ(Count(a->Waits(), Wait::kDataFileInitWrite), 0);
  EXPECT_FALSE(db_->Close().ok());  // sessions still open
}

TEST_F(DatabaseTest, ControlFileCopyDamageIsRepairedAtOpen) {
  auto s = db_->NewSession();
  ASSERT_OK(s->Execute("alter database add logfile group 4 ('+DATA') size 4m"));
  const FileTable before = db_->file_table();
  s.reset();
  // The two control files: one in +DATA, one in +RECO (OMF's default).
  const std::vector<std::string> names = db_->control_files();
  ASSERT_EQ(names.size(), 2u);
  EXPECT_TRUE(names[0].starts_with("+DATA/")) << names[0];
  EXPECT_TRUE(names[1].starts_with("+RECO/")) << names[1];
  auto group_of = [&](size_t i) { return *rack_->disk_group(i == 0 ? "DATA" : "RECO"); };
  ASSERT_OK_AND_ASSIGN(asmgr::FileInfo cf0, group_of(0)->LookupFile(names[0]));
  ASSERT_OK_AND_ASSIGN(asmgr::FileInfo cf1, group_of(1)->LookupFile(names[1]));
  // Overwrite both table slots of the first copy with garbage.
  std::vector<uint8_t> junk(30 * 16384, 0x5A);
  std::vector<asmgr::AsmWriteRequest> w(1);
  w[0].file_offset = 16384;
  w[0].data = junk;
  ASSERT_OK(group_of(0)->Write(cf0.number, absl::MakeSpan(w), nullptr));
  Reopen();
  EXPECT_EQ(db_->file_table(), before);
  ASSERT_EQ(db_->recovery_actions().size(), 1u);
  EXPECT_THAT(db_->recovery_actions()[0], HasSubstr("rewritten from"));
  // Both copies are good again: damage the second one now.
  ASSERT_OK(group_of(1)->Write(cf1.number, absl::MakeSpan(w), nullptr));
  Reopen();
  EXPECT_EQ(db_->file_table(), before);
  // Both copies damaged: the database cannot be mounted.
  ASSERT_OK(group_of(0)->Write(cf0.number, absl::MakeSpan(w), nullptr));
  ASSERT_OK(group_of(1)->Write(cf1.number, absl::MakeSpan(w), nullptr));
  db_.reset();
  absl::StatusOr<std::unique_ptr<Database>> bad = Database::Open(rack_.get());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(Msg(bad.status()), HasSubstr("ORA-00227"));
}

TEST(DatabaseOpen, NoControlFileIsNotFound) {
  TempDir tmp;
  auto io = io::MakePosixBackend();
  ASSERT_OK_AND_ASSIGN(auto rack,
                       asmgr::Rack::Create(io.get(), SystemClock(), tmp.path() + "/r", SmallRack()));
  absl::StatusOr<std::unique_ptr<Database>> db = Database::Open(rack.get());
  EXPECT_EQ(db.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(Msg(db.status()), HasSubstr("ORA-00205"));
  DatabaseOptions no_dg;
  no_dg.control_file_disk_group = "NOPE";
  EXPECT_EQ(Database::Create(rack.get(), no_dg).status().code(), absl::StatusCode::kNotFound);
  ASSERT_OK(rack->Close());
}

// A cell write fails part-way through the creation (EXTERNAL redundancy, so
// no mirror can save it): the statement fails with the cause, the ASM files
// are gone, the control file is as before, and a reopen shows no trace.
class FailurePartWay : public ::testing::TestWithParam<bool /*zero_fill*/> {};

TEST_P(FailurePartWay, CleansUp) {
  TempDir tmp;
  auto fault = std::make_unique<io::FaultInjectionBackend>(io::MakePosixBackend());
  io::FaultInjectionBackend* f = fault.get();
  const std::string dir = tmp.path() + "/rack";
  ASSERT_OK_AND_ASSIGN(auto rack, asmgr::Rack::Create(fault.get(), SystemClock(), dir,
                                                      SmallRack(asmgr::Redundancy::kExternal)));
  // Both control files in +DATA: on EXTERNAL redundancy the failing RECO disk
  // may hold +RECO's control file, which Oracle would lose too (ORA-00221);
  // this test is about the creation's cleanup.
  DatabaseOptions options;
  options.control_files.recovery_disk_group = "";
  ASSERT_OK_AND_ASSIGN(auto db, Database::Create(rack.get(), options));
  auto s = db->NewSession();
  if (GetParam()) ASSERT_OK(s->Execute("alter session set \"_cell_fast_file_create\" = false"));
  ASSERT_OK(s->Execute("alter session set cellsim_fast_file_create_metadata = false"));
  const FileTable before = db->file_table();
  // The 6th write to a RECO grid disk fails (1 MiB writes go straight to disk).
  f->FailNth({.ops = io::kOpWrite, .path_substring = "RECO_CD"}, 6);
  absl::StatusOr<StatementResult> r =
      s->Execute("alter database add logfile group 5 ('+DATA','+RECO') size 32m");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(Msg(r.status()), HasSubstr("ORA-00301: error in adding log file '+RECO/ORCL/"));
  EXPECT_THAT(Msg(r.status()), HasSubstr("RECO_CD"));  // the failing grid disk
  EXPECT_EQ(f->InjectedFailures(), 1u);
  EXPECT_EQ(db->file_table(), before);
  EXPECT_TRUE(DatabaseFiles(rack.get()).empty());
  // The session saw the work done before the failure.
  EXPECT_GT(s->Stats()[Stat::kPhysicalWriteTotalBytes], 0);
  // Recorded (the reservation and one transaction per member, 2 writes each:
  // 2(M + 1)), then removed (1).
  EXPECT_EQ(Count(s->Waits(), Wait::kControlFileParallelWrite), 2 * (2 + 1) + 1);
  s.reset();
  db.reset();
  ASSERT_OK(rack->Close());
  ASSERT_OK_AND_ASSIGN(rack, asmgr::Rack::Open(fault.get(), SystemClock(), dir));
  ASSERT_OK_AND_ASSIGN(db, Database::Open(rack.get(), options));
  EXPECT_EQ(db->file_table(), before);
  EXPECT_TRUE(db->recovery_actions().empty());
  // EXTERNAL: the failed write's only copy stays current and its disk online
  // (ASM never offlines an extent's last copy); the disk works again, and the
  // same statement works.
  asmgr::DiskGroup* reco = *rack->disk_group("RECO");
  for (const asmgr::DiskView& d : reco->Disks()) EXPECT_EQ(d.mode_status, "ONLINE") << d.name;
  s = db->NewSession();
  ASSERT_OK(s->Execute("alter database add logfile group 5 ('+DATA','+RECO') size 32m"));
  s.reset();
  db.reset();
  ASSERT_OK(rack->Close());
}

INSTANTIATE_TEST_SUITE_P(Paths, FailurePartWay, ::testing::Values(true, false),
                         [](const auto& info) { return info.param ? "ZeroFill" : "Smart"; });

// Power fails in the middle of a zero-fill, after the control file recorded
// the group as CREATING: Open removes the entry and the files.
TEST(CrashRecovery, InterruptedCreationIsUndoneAtOpen) {
  TempDir tmp;
  auto fault = std::make_unique<io::FaultInjectionBackend>(io::MakePosixBackend());
  io::FaultInjectionBackend* f = fault.get();
  const std::string dir = tmp.path() + "/rack";
  ASSERT_OK_AND_ASSIGN(auto rack,
                       asmgr::Rack::Create(fault.get(), SystemClock(), dir, SmallRack()));
  ASSERT_OK_AND_ASSIGN(auto db, Database::Create(rack.get()));
  auto s = db->NewSession();
  ASSERT_OK(s->Execute("alter database add logfile group 1 ('+DATA') size 4m"));
  const FileTable before = db->file_table();
  ASSERT_OK(s->Execute("alter session set \"_cell_fast_file_create\" = false"));
  f->CrashAfter({.ops = io::kOpWrite, .path_substring = "RECO_CD"}, 10);
  EXPECT_FALSE(s->Execute("alter database add logfile group 2 ('+RECO') size 64m").ok());
  EXPECT_TRUE(f->Crashed());
  s.reset();
  db.reset();
  rack.reset();  // the power is gone: nothing more reaches the files
  ASSERT_OK(f->SimulatePowerLoss());
  ASSERT_OK_AND_ASSIGN(rack, asmgr::Rack::Open(fault.get(), SystemClock(), dir));
  ASSERT_OK_AND_ASSIGN(db, Database::Open(rack.get()));
  EXPECT_EQ(db->file_table(), before);
  const std::vector<std::string> actions = db->recovery_actions();
  ASSERT_EQ(actions.size(), 2u);
  EXPECT_THAT(actions[0], HasSubstr("log group 2 (thread 1) was being created"));
  EXPECT_THAT(actions[1], HasSubstr("+RECO/ORCL/ONLINELOG/group_2."));
  EXPECT_EQ(DatabaseFiles(rack.get()).size(), 1u);
  // Reopening again finds nothing more to do.
  db.reset();
  ASSERT_OK(rack->Close());
  ASSERT_OK_AND_ASSIGN(rack, asmgr::Rack::Open(fault.get(), SystemClock(), dir));
  ASSERT_OK_AND_ASSIGN(db, Database::Open(rack.get()));
  EXPECT_TRUE(db->recovery_actions().empty());
  EXPECT_EQ(db->file_table(), before);
  db.reset();
  ASSERT_OK(rack->Close());
}

}  // namespace
}  // namespace cellsim::db
