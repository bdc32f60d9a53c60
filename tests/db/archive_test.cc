// ARCHIVELOG mode (issue 15): ALTER DATABASE ARCHIVELOG, log switches, ARCH
// copying each filled online log into +RECO byte for byte, V$ARCHIVED_LOG,
// V$LOG's ARCHIVED, ARCHIVE LOG LIST, the switch waits, a restart, and what
// happens when the destination is missing or full.
#include <functional>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "cellsim/db/database.h"
#include "cellsim/io/io_backend.h"
#include "db/db_test_util.h"
#include "fmt/format.h"
#include "gtest/gtest.h"
#include "testing/sanitizer.h"
#include "testing/test_util.h"

namespace cellsim::db {
namespace {

using ::cellsim::db::testing::ReadAsmFile;
using ::cellsim::db::testing::SmallRack;
using ::testing::HasSubstr;
using stats::Wait;

constexpr int kRows = 8000;  // ALL_OBJECTS rows: about 0.9 MB of redo per insert

class ArchiveTest : public testing::SqlTest {
 protected:
  void Configure(DatabaseOptions* o) const override {
    o->min_log_file_bytes = 1ull << 20;
    o->standard_files.log_bytes = 1ull << 20;  // below Oracle's 4 MiB: switches come fast
    o->all_objects_rows = kRows;
  }
  // Heap-table redo.
  void MakeRedo(int rounds) {
    for (int i = 0; i < rounds; ++i) {
      Run("insert into t select * from all_objects");
      Run("commit");
    }
  }
};

TEST_F(ArchiveTest, NoArchivelogByDefault) {
  EXPECT_EQ(One("select log_mode from v$database"), "NOARCHIVELOG");
  StatementResult r = Run("archive log list");
  EXPECT_THAT(r.feedback, HasSubstr("Database log mode              No Archive Mode"));
  EXPECT_THAT(r.feedback, HasSubstr("Automatic archival             Disabled"));
  EXPECT_THAT(r.feedback, ::testing::Not(HasSubstr("Next log sequence to archive")));
  Run("create table t as select * from all_objects where 1=0");
  MakeRedo(4);
  Run("alter system switch logfile");
  EXPECT_EQ(One("select count(*) from v$archived_log"), "0");
  EXPECT_EQ(One("select count(*) from v$log where archived = 'YES'"), "0");
  absl::StatusOr<StatementResult> st = s_->Execute("alter system archive log current");
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.status().message(), HasSubstr("ORA-00258"));
}

// V$LOG's rows as "group:sequence:status:first:next" (NEXT_CHANGE# empty
// when NULL), by GROUP#.
std::vector<std::string> LogRows(Session* s) {
  absl::StatusOr<StatementResult> r = s->Execute(
      "select group#, sequence#, status, first_change#, next_change# from v$log order by group#");
  EXPECT_TRUE(r.ok()) << r.status();
  std::vector<std::string> out;
  for (const auto& row : r.ok() ? r->result_rows : std::vector<std::vector<std::string>>{}) {
    out.push_back(row[0] + ":" + row[1] + ":" + row[2] + ":" + row[3] + ":" + row[4]);
  }
  return out;
}

// Each group's last sequence and SCN range stay in V$LOG after a restart and
// after a crash (the dictionary keeps them, as Oracle's control file does):
// the group the close left CURRENT is INACTIVE with its range closed, the
// others as they were; no group shows SEQUENCE# 0 once it has been used.
TEST_F(ArchiveTest, VlogKeepsEachGroupsSequenceAcrossARestartAndACrash) {
  Run("create table t as select * from all_objects where 1=0");
  Run("alter system switch logfile");
  Run("alter system switch logfile");
  MakeRedo(1);
  const std::vector<std::string> before = LogRows(s_.get());
  ASSERT_EQ(before.size(), 3u);
  const std::string current_seq = One("select sequence# from v$log where status = 'CURRENT'");
  ASSERT_OK(Reopen());
  const std::vector<std::string> after = LogRows(s_.get());
  ASSERT_EQ(after.size(), 3u);
  int current = 0;
  for (size_t i = 0; i < 3; ++i) {
    const std::vector<std::string> was = absl::StrSplit(before[i], ':');
    const std::vector<std::string> is = absl::StrSplit(after[i], ':');
    EXPECT_NE(is[1], "0") << after[i];
    EXPECT_NE(is[3], "0") << after[i];
    if (is[2] == "CURRENT") {
      ++current;
      EXPECT_EQ(is[1], std::to_string(std::stoi(current_seq) + 1)) << after[i];
    } else if (was[2] == "CURRENT") {  // the log the close left CURRENT: closed now
      EXPECT_EQ(is[1], was[1]);
      EXPECT_EQ(is[3], was[3]);  // its FIRST_CHANGE#, kept
      EXPECT_NE(is[4], "") << after[i];
    } else {
      EXPECT_EQ(after[i], before[i]);
    }
  }
  EXPECT_EQ(current, 1);
  // A group added and not used yet is UNUSED (it was INACTIVE once the
  // sequence had passed its place).
  Run("alter database add logfile group 9 ('+DATA') size 1m");
  EXPECT_EQ(One("select status || ':' || sequence# from v$log where group# = 9"), "UNUSED:0");
  Run("alter database drop logfile group 9");
  // A crash: recovery reads the logs; the sequences stay the same.
  MakeRedo(1);
  const std::vector<std::string> at_crash = LogRows(s_.get());
  Crash();
  ASSERT_OK(Reopen());
  const std::vector<std::string> recovered = LogRows(s_.get());
  for (size_t i = 0; i < 3; ++i) {
    const std::vector<std::string> was = absl::StrSplit(at_crash[i], ':');
    const std::vector<std::string> is = absl::StrSplit(recovered[i], ':');
    if (is[2] == "CURRENT") continue;
    EXPECT_EQ(is[1], was[1]) << recovered[i] << " was " << at_crash[i];
    EXPECT_EQ(is[3], was[3]) << recovered[i] << " was " << at_crash[i];
  }
}

// One row of V$LOG_HISTORY.
struct LogSwitch {
  uint64_t recid = 0, stamp = 0, sequence = 0, first_change = 0, next_change = 0;
  std::string first_time;  // "YYYY MM DD HH24 MI SS" ("" when NULL)
};

std::vector<LogSwitch> History(Session* s) {
  absl::StatusOr<StatementResult> r = s->Execute(
      "select recid, stamp, sequence#, first_change#, next_change#, "
      "to_char(first_time, 'YYYY MM DD HH24 MI SS') from v$log_history order by recid");
  EXPECT_TRUE(r.ok()) << r.status();
  std::vector<LogSwitch> out;
  for (const auto& row : r.ok() ? r->result_rows : std::vector<std::vector<std::string>>{}) {
    out.push_back({std::stoull(row[0]), std::stoull(row[1]), std::stoull(row[2]),
                   std::stoull(row[3]), std::stoull(row[4]), row[5]});
  }
  return out;
}

// Oracle's record stamp of a time "YYYY MM DD HH24 MI SS": seconds since
// 1988-01-01 with 31-day months.
uint64_t StampOf(const std::string& time) {
  const std::vector<std::string> f = absl::StrSplit(time, ' ');
  if (f.size() != 6) return 0;
  const uint64_t days = ((std::stoull(f[0]) - 1988) * 12 + std::stoull(f[1]) - 1) * 31 + std::stoull(f[2]) - 1;
  return ((days * 24 + std::stoull(f[3])) * 60 + std::stoull(f[4])) * 60 + std::stoull(f[5]);
}

// V$LOG_HISTORY is one unbroken run of switches up to the log before the
// CURRENT one: RECID and SEQUENCE# step by one, each log begins at the SCN
// and time the one before ended (its STAMP), and every range is not empty.
void ExpectUnbroken(const std::vector<LogSwitch>& h, uint64_t current_sequence, const std::string& what) {
  ASSERT_FALSE(h.empty()) << what;
  EXPECT_EQ(h.back().sequence + 1, current_sequence) << what;
  for (size_t i = 0; i < h.size(); ++i) {
    EXPECT_LT(h[i].first_change, h[i].next_change) << what << ", sequence " << h[i].sequence;
    EXPECT_NE(h[i].first_time, "") << what << ", sequence " << h[i].sequence;
    if (i == 0) continue;
    EXPECT_EQ(h[i].recid, h[i - 1].recid + 1) << what;
    EXPECT_EQ(h[i].sequence, h[i - 1].sequence + 1) << what;
    EXPECT_EQ(h[i].first_change, h[i - 1].next_change) << what << ", sequence " << h[i].sequence;
    EXPECT_EQ(h[i - 1].stamp, StampOf(h[i].first_time)) << what << ", sequence " << h[i].sequence;
  }
}

// V$LOG_HISTORY: a record for every log switch (a full log, ALTER SYSTEM
// SWITCH LOGFILE, the switch an open makes), kept across a restart and a
// crash (the dictionary keeps them, as Oracle's control file does).
TEST_F(ArchiveTest, LogHistoryRecordsEverySwitchAcrossARestartAndACrash) {
  EXPECT_EQ(One("select count(*) from v$log_history"), "0");
  Run("create table t as select * from all_objects where 1=0");
  Run("alter system switch logfile");
  MakeRedo(3);  // ~2.7 MB through 1 MiB logs: switches of full logs
  const auto current = [&] { return std::stoull(One("select sequence# from v$log where status = 'CURRENT'")); };
  std::vector<LogSwitch> h = History(s_.get());
  ExpectUnbroken(h, current(), "after switches");
  EXPECT_GE(h.size(), 3u);
  EXPECT_EQ(h.front().recid, 1u);
  EXPECT_EQ(h.front().sequence, 1u);
  // V$LOG's INACTIVE groups are the history's newest records.
  for (const auto& row : Run("select sequence#, first_change#, next_change#, "
                             "to_char(first_time, 'YYYY MM DD HH24 MI SS') from v$log "
                             "where status = 'INACTIVE'").result_rows) {
    const uint64_t seq = std::stoull(row[0]);
    ASSERT_LT(seq, current());
    const LogSwitch& r = h[h.size() - (current() - seq)];
    EXPECT_EQ(r.sequence, seq);
    EXPECT_EQ(std::to_string(r.first_change), row[1]);
    EXPECT_EQ(std::to_string(r.next_change), row[2]);
    EXPECT_EQ(r.first_time, row[3]);
  }
  ASSERT_OK(Reopen());  // the open switches out of the log the close left CURRENT
  std::vector<LogSwitch> reopened = History(s_.get());
  ASSERT_EQ(reopened.size(), h.size() + 1);
  EXPECT_EQ(reopened[h.size() - 1].next_change, h.back().next_change);
  ExpectUnbroken(reopened, current(), "after a restart");
  MakeRedo(2);
  const size_t at_crash = History(s_.get()).size();
  Crash();
  ASSERT_OK(Reopen());  // recovery's walk through the logs closes the last one
  std::vector<LogSwitch> recovered = History(s_.get());
  EXPECT_EQ(recovered.size(), at_crash + 1);
  ExpectUnbroken(recovered, current(), "after a crash");
}

// The dictionary keeps the newest 292 switches (a default control file's LOG
// HISTORY section); RECID keeps counting.
TEST_F(ArchiveTest, LogHistoryKeepsTheNewestSwitches) {
  for (int i = 0; i < 300; ++i) Run("alter system switch logfile");
  std::vector<LogSwitch> h = History(s_.get());
  ASSERT_EQ(h.size(), 292u);
  EXPECT_EQ(h.front().recid, 9u);
  EXPECT_EQ(h.back().recid, 300u);
  ExpectUnbroken(h, 301, "after 300 switches");
  ASSERT_OK(Reopen());
  h = History(s_.get());
  ASSERT_EQ(h.size(), 292u);
  EXPECT_EQ(h.front().recid, 10u);
  EXPECT_EQ(h.back().sequence, 301u);
}

// A power cut at any write of a commit that crosses log switches (LGWR's in
// both logs, DBWR's checkpoint, the dictionary's) loses nothing acknowledged,
// keeps each commit whole, and leaves V$LOG_HISTORY unbroken once the next
// open recovered: a switch whose checkpoint did not finish is recorded by
// recovery's walk through the logs, its SCN range and times taken from its
// neighbours' or from the first redo record of the log it switched to. The
// table keeps its blocks from one cut to the next: DBWR once stamped the
// blocks of a checkpoint a crash cut short with an SCN beyond the one
// recovery went on from, and the recovery after the next cut skipped the
// changes made to them since as already written (a committed insert lost
// ~30 of its 2,000 rows).
class ArchiveFaultTest : public testing::FaultSqlTest<ArchiveTest> {
 protected:
  void Configure(DatabaseOptions* o) const override {
    ArchiveTest::Configure(o);
    o->min_log_file_bytes = 256 << 10;
    o->standard_files.log_bytes = 256 << 10;  // a 2,000-row commit crosses a switch
  }
  // Cuts the power at every write of a commit of `added` rows into table t
  // (every write of the first 8, then every ~8th; every ~4th under ASan),
  // `prepare` making the change before each and returning the rows t held
  // before it. After each cut the reopened t holds its rows before or, the
  // commit whole, after (after when it was acknowledged), and V$LOG_HISTORY
  // is unbroken. Returns the number of cuts.
  int CutEveryCommitWrite(const std::function<uint64_t()>& prepare, uint64_t added) {
    int cuts = 0;
    const int stride = ::cellsim::testing::BySanitizer(8, 4, 4);
    for (int n = 0;; n += 1 + n / stride) {
      if (n >= 4000) {
        ADD_FAILURE() << "the commit should run out of writes";
        return cuts;
      }
      const uint64_t before = prepare();
      fault()->CrashAfter({.ops = io::kOpWrite}, n);
      const absl::StatusOr<StatementResult> r = s_->Execute("commit");
      const bool cut = fault()->Crashed();
      PowerOff();
      if (absl::Status st = Reopen(); !st.ok()) {
        ADD_FAILURE() << "cut after " << n << " writes: " << st;
        return cuts;
      }
      const std::string what =
          fmt::format("cut after {} writes ({})", n, r.ok() ? "acknowledged" : "failed");
      ExpectUnbroken(History(s_.get()),
                     std::stoull(One("select sequence# from v$log where status = 'CURRENT'")), what);
      const uint64_t now = std::stoull(One("select count(*) from t"));
      if (r.ok()) {
        EXPECT_EQ(now, before + added) << what;  // an acknowledged commit is kept
      } else {
        EXPECT_TRUE(now == before || now == before + added)
            << what << ": " << now << " rows, " << before << " before: the commit whole or not at all";
      }
      if (!cut) return cuts;
      ++cuts;
    }
  }
};

TEST_F(ArchiveFaultTest, PowerLossAtEveryWriteOfACommitAcrossSwitches) {
  Run("create table t as select * from all_objects where 1=0");
  constexpr uint64_t kInsert = 2000;
  EXPECT_GT(CutEveryCommitWrite(
                [&] {
                  const uint64_t rows = std::stoull(One("select count(*) from t"));
                  Run(fmt::format("insert into t select * from all_objects where rownum <= {}", kInsert));
                  return rows;
                },
                kInsert),
            10);
}

// A commit whose redo is more than the online logs hold (~0.9 MB into three
// 256 KiB logs), cut at every write. LGWR once wrote a log buffer that large
// in one go: each switch's checkpoint waits for the rest of the write, so
// the write came back to the group the checkpoint was in and overwrote redo
// crash recovery needed, and a cut before those checkpoints left a database
// whose recovery found no redo (committed changes lost, uncommitted ones
// kept). LGWR now writes before its buffer holds more than the other groups
// do, and refuses to reuse a group recovery still needs.
TEST_F(ArchiveFaultTest, PowerLossAtEveryWriteOfACommitLargerThanTheLogs) {
  Run("create table t as select * from all_objects where 1=0");
  EXPECT_GT(CutEveryCommitWrite(
                [&] {
                  Run("truncate table t");
                  Run("insert into t select * from all_objects");
                  return uint64_t{0};
                },
                kRows),
            3);
}

TEST_F(ArchiveTest, ArchCopiesEveryFilledLogIntoReco) {
  EXPECT_EQ(Run("alter database archivelog").feedback, "Database altered.");
  EXPECT_EQ(One("select log_mode from v$database"), "ARCHIVELOG");
  Run("create table t as select * from all_objects where 1=0");
  const std::string first_seq = One("select sequence# from v$log where status = 'CURRENT'");
  MakeRedo(5);  // ~4.5 MB of redo through 1 MiB logs: several switches
  EXPECT_GT(s_->Stats()[stats::Stat::kRedoSize], 4 << 20);
  const stats::WaitValues waits = s_->Waits();
  EXPECT_GE(waits[Wait::kLogFileSwitchCompletion].count, 2);
  EXPECT_EQ(waits[Wait::kLogFileSwitchArchivingNeeded].count, 0);  // ARCH kept up

  StatementResult logs = Run(
      "select sequence#, first_change#, next_change#, blocks, block_size, name from "
      "v$archived_log order by sequence#");
  ASSERT_GE(logs.result_rows.size(), 2u);
  // ARCH's waits (its own, not the session's): a read of the online log and a
  // write of the copy per archived log, each timed as `log archive I/O`.
  EXPECT_EQ(db_->SystemWaits()[Wait::kLogArchiveIo].count, 2 * logs.result_rows.size());
  EXPECT_EQ(s_->Waits()[Wait::kLogArchiveIo].count, 0);
  EXPECT_EQ(logs.result_rows[0][0], first_seq);
  // Consecutive sequences whose SCN ranges meet, each a byte-for-byte copy of
  // the online log it came from (as far as LGWR wrote it).
  asmgr::DiskGroup* reco = *rack_->disk_group("RECO");
  for (size_t i = 0; i < logs.result_rows.size(); ++i) {
    const auto& row = logs.result_rows[i];
    EXPECT_THAT(row[5], HasSubstr("+RECO/ORCL/ARCHIVELOG/thread_1_seq_" + row[0]));
    if (i > 0) {
      EXPECT_EQ(std::stoll(row[0]), std::stoll(logs.result_rows[i - 1][0]) + 1);
      EXPECT_EQ(row[1], logs.result_rows[i - 1][2]);
    }
    EXPECT_LT(std::stoll(row[1]), std::stoll(row[2]));
    EXPECT_EQ(row[4], "512");
  }
  // The newest archived log is still in its online group (3 groups: the one
  // before CURRENT); compare its bytes.
  const auto& last = logs.result_rows.back();
  const std::string group = One("select group# from v$log where sequence# = " + last[0]);
  ASSERT_NE(group, "<none>");
  EXPECT_EQ(One("select archived from v$log where group# = " + group), "YES");
  const std::string member = One("select member from v$logfile where group# = " + group);
  const uint64_t bytes = std::stoull(last[3]) * 512;
  ASSERT_OK_AND_ASSIGN(asmgr::FileInfo archived, reco->LookupFile(last[5]));
  EXPECT_EQ(archived.size_bytes, bytes);
  const std::string member_dg = member.substr(1, member.find('/') - 1);
  asmgr::DiskGroup* online_dg = *rack_->disk_group(member_dg);
  ASSERT_OK_AND_ASSIGN(asmgr::FileInfo online, online_dg->LookupFile(member));
  EXPECT_EQ(ReadAsmFile(reco, archived.number, bytes),
            ReadAsmFile(online_dg, online.number, bytes));

  StatementResult list = Run("archive log list");
  EXPECT_THAT(list.feedback, HasSubstr("Database log mode              Archive Mode"));
  EXPECT_THAT(list.feedback, HasSubstr("Archive destination            USE_DB_RECOVERY_FILE_DEST"));
  EXPECT_THAT(list.feedback,
              HasSubstr("Current log sequence           " +
                        One("select sequence# from v$log where status = 'CURRENT'")));
}

TEST_F(ArchiveTest, ArchiveLogCurrentAndRestartKeepTheRecords) {
  Run("alter database archivelog");
  Run("create table t as select * from all_objects where 1=0");
  MakeRedo(1);
  const std::string seq = One("select sequence# from v$log where status = 'CURRENT'");
  EXPECT_EQ(Run("alter system archive log current").feedback, "System altered.");
  EXPECT_EQ(One("select count(*) from v$archived_log where sequence# = " + seq), "1");
  Run("create table u (x number)");
  Run("insert into u values (1)");
  Run("commit");  // redo in the CURRENT log, which the close leaves unarchived
  const int64_t before = std::stoll(One("select count(*) from v$archived_log"));
  ASSERT_OK(Reopen());
  // The control file keeps the mode and the records; the log the close left
  // CURRENT (with redo in it) is archived at open.
  EXPECT_EQ(One("select log_mode from v$database"), "ARCHIVELOG");
  EXPECT_EQ(One("select count(*) from v$archived_log where sequence# = " + seq), "1");
  EXPECT_EQ(std::stoll(One("select count(*) from v$archived_log")), before + 1);
  EXPECT_EQ(One("select count(*) from t"), std::to_string(kRows));
  EXPECT_EQ(One("select count(*) from u"), "1");
  // A restart with no redo since: the log it leaves is archived too, so the
  // archived sequences have no gap.
  ASSERT_OK(Reopen());
  ASSERT_OK(Reopen());
  StatementResult seqs = Run("select sequence# from v$archived_log order by sequence#");
  ASSERT_GE(seqs.result_rows.size(), 3u);
  for (size_t i = 1; i < seqs.result_rows.size(); ++i) {
    EXPECT_EQ(std::stoll(seqs.result_rows[i][0]), std::stoll(seqs.result_rows[i - 1][0]) + 1);
  }
  EXPECT_EQ(std::stoll(seqs.result_rows.back()[0]) + 1,
            std::stoll(One("select sequence# from v$log where status = 'CURRENT'")));
  Run("alter database noarchivelog");
  ASSERT_OK(Reopen());
  EXPECT_EQ(One("select log_mode from v$database"), "NOARCHIVELOG");
}

// A transaction with more redo than a whole log: LGWR fills the log, switches
// and goes on in the next (the write used to fail: "does not fit log group");
// a record that spans two logs is read back whole by instance recovery.
TEST_F(ArchiveTest, RedoLargerThanALogSpansSwitchesAndRecovers) {
  Run("alter database archivelog");
  Run("create table t as select * from all_objects where 1=0");
  Run("insert into t select * from all_objects");
  Run("insert into t select * from all_objects");
  Run("commit");  // ~1.8 MB of redo into 1 MiB logs in one write
  Run("insert into t select * from all_objects");  // never committed
  Crash();
  ASSERT_OK(Reopen());
  ASSERT_FALSE(db_->recovery_actions().empty());
  EXPECT_THAT(db_->recovery_actions()[0], HasSubstr("instance recovery"));
  EXPECT_EQ(One("select count(*) from t"), std::to_string(2 * kRows));
  StatementResult logs = Run("select sequence# from v$archived_log order by sequence#");
  ASSERT_GE(logs.result_rows.size(), 2u);
  for (size_t i = 1; i < logs.result_rows.size(); ++i) {
    EXPECT_EQ(std::stoll(logs.result_rows[i][0]), std::stoll(logs.result_rows[i - 1][0]) + 1);
  }
}

// ALTER SYSTEM CHECKPOINT: DBWR writes every dirty block and the checkpoint
// moves to the end of the log, so instance recovery after a crash has no
// change left to apply; without it, recovery re-applies the inserts.
TEST_F(ArchiveTest, CheckpointLeavesRecoveryNothingToApply) {
  Run("create table t (id number, pad varchar2(100))");
  auto crash_after = [&](bool checkpoint) -> std::string {
    Run("insert into t select rownum, 'x' from all_objects where rownum <= 300");
    Run("commit");
    const std::string writes = "select value from v$sysstat where name = 'physical writes'";
    const int64_t before = std::stoll(One(writes));
    if (checkpoint) {
      EXPECT_EQ(Run("alter system checkpoint global").feedback, "System altered.");
      EXPECT_GT(std::stoll(One(writes)), before);  // DBWR wrote the insert's blocks
    }
    Crash();
    EXPECT_OK(Reopen());
    EXPECT_FALSE(db_->recovery_actions().empty());
    return db_->recovery_actions().empty() ? "" : db_->recovery_actions()[0];
  };
  EXPECT_THAT(crash_after(false), ::testing::Not(HasSubstr(" 0 changes applied")));
  EXPECT_THAT(crash_after(true), HasSubstr(" 0 changes applied"));
  EXPECT_EQ(One("select count(*) from t"), "600");
  EXPECT_THAT(Error("alter system flush redo to standby"),
              ::testing::AllOf(HasSubstr("ORA-02065"), HasSubstr("expected BUFFER_CACHE or SHARED_POOL")));
  EXPECT_THAT(Error("alter system checkpoint now"), HasSubstr("ORA-00933"));
  EXPECT_THAT(Error("alter system frobnicate"),
              HasSubstr("expected SET, SWITCH LOGFILE, ARCHIVE LOG CURRENT, CHECKPOINT or FLUSH"));
}

TEST_F(ArchiveTest, MissingDestinationIsAClearError) {
  // A rack without RECO cannot archive.
  Shutdown();
  asmgr::RackConfig c = SmallRack();
  c.disk_groups.pop_back();  // DATA only
  ASSERT_OK_AND_ASSIGN(rack_, asmgr::Rack::Create(io_.get(), SystemClock(), tmp_.path() + "/rack2", c));
  DatabaseOptions o;
  o.standard_files.create = true;
  Configure(&o);
  ASSERT_OK_AND_ASSIGN(db_, Database::Create(rack_.get(), o));
  s_ = db_->NewSession();
  absl::StatusOr<StatementResult> r = s_->Execute("alter database archivelog");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("ORA-19802"));
  EXPECT_THAT(r.status().message(), HasSubstr("DB_RECOVERY_FILE_DEST is not set"));
  EXPECT_THAT(r.status().message(), HasSubstr("+RECO"));
  EXPECT_EQ(One("select log_mode from v$database"), "NOARCHIVELOG");
  // Without a recovery area an Oracle-managed log has its one member in
  // DB_CREATE_FILE_DEST, and the parameter is NULL (left at its default).
  EXPECT_EQ(One("select nvl(value, 'null') || ' ' || isdefault from v$parameter "
                "where name = 'db_recovery_file_dest'"),
            "null TRUE");
  Run("alter database add logfile group 9 size 8m");
  EXPECT_EQ(One("select count(*) || ' ' || min(substr(member, 1, 6)) from v$logfile "
                "where group# = 9"),
            "1 +DATA/");
}

TEST_F(ArchiveTest, FullDestinationStopsReuseNotCommittedData) {
  // Fill RECO (512 MiB usable) so ARCH cannot copy; LGWR goes round the
  // groups until it needs an unarchived one, then the statement fails with
  // ORA-00257 and every acknowledged commit stays.
  asmgr::DiskGroup* reco = *rack_->disk_group("RECO");
  std::vector<uint32_t> fillers;
  for (int i = 0; i < 1000; ++i) {  // until not one more AU fits
    absl::StatusOr<asmgr::FileInfo> f = reco->CreateFile(
        {.db_name = "FILL", .type = asmgr::FileType::kDataFile, .tag = "filler",
         .size_bytes = 4ull << 20});
    if (!f.ok()) break;
    fillers.push_back(f->number);
  }
  ASSERT_FALSE(fillers.empty());
  Run("alter database archivelog");
  Run("create table t as select * from all_objects where 1=0");
  int committed = 0;
  absl::Status failure;
  for (int i = 0; i < 12 && failure.ok(); ++i) {
    absl::StatusOr<StatementResult> r = s_->Execute("insert into t select * from all_objects");
    if (r.ok()) r = s_->Execute("commit");
    if (r.ok()) {
      ++committed;
    } else {
      failure = r.status();
    }
  }
  ASSERT_FALSE(failure.ok()) << "12 rounds never needed an unarchived group";
  EXPECT_THAT(failure.message(), HasSubstr("ORA-00257"));
  EXPECT_GE(s_->Waits()[Wait::kLogFileSwitchArchivingNeeded].count, 1);
  (void)s_->Execute("rollback");
  // Room again: ARCH catches up at the next switch and work goes on.
  for (uint32_t f : fillers) ASSERT_OK(reco->DeleteFile(f));
  Run("alter system switch logfile");
  Run("insert into t select * from all_objects");
  Run("commit");
  EXPECT_EQ(One("select count(*) from t"), std::to_string((committed + 1) * kRows));
  ASSERT_OK(Reopen());
  EXPECT_EQ(One("select count(*) from t"), std::to_string((committed + 1) * kRows));
}

}  // namespace
}  // namespace cellsim::db
