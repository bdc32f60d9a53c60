// The instance's views (docs/sql.md "Views"): where the waits went
// (V$SYSTEM_EVENT with its foreground columns, V$SESSION_EVENT, the wait
// classes, V$EVENT_HISTOGRAM_MICRO), what the instance is (V$VERSION,
// V$INSTANCE, V$CONTROLFILE, V$SESSION), the ASM it runs on
// (V$ASM_DISKGROUP, V$ASM_DISK, X$KFFXP) and the space its files have left
// (DBA_FREE_SPACE), each checked against the counters, the rack or the
// segments it is built from.
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "db/db_test_util.h"
#include "fmt/format.h"
#include "gtest/gtest.h"

namespace cellsim::db {
namespace {

using stats::Wait;

class InstanceViewsTest : public testing::SqlTest {
 protected:
  // Work that waits: a data file added (creation, control file), rows
  // committed (log file sync; LGWR's log file parallel write).
  void Work(Session* s = nullptr) {
    Run("create table t (id number, v number)", s);
    Run("insert into t select rownum, 0 from all_objects where rownum <= 200", s);
    Run("commit", s);
    Run("update t set v = v + 1", s);
    Run("commit", s);
  }
  // Rows of `sql` keyed by their first column, the others as numbers.
  std::map<std::string, std::vector<int64_t>> ByFirst(const std::string& sql) {
    std::map<std::string, std::vector<int64_t>> out;
    for (const std::vector<std::string>& row : Run(sql).result_rows) {
      std::vector<int64_t>& v = out[row[0]];
      for (size_t i = 1; i < row.size(); ++i) v.push_back(std::strtoll(row[i].c_str(), nullptr, 10));
    }
    return out;
  }
};

TEST_F(InstanceViewsTest, SystemEventIsEveryWaitAndItsForegroundShare) {
  Work();
  const auto events = ByFirst(
      "select event, total_waits, time_waited_micro, total_waits_fg, time_waited_micro_fg "
      "from v$system_event");
  const stats::WaitValues sys = db_->SystemWaits();
  size_t waited = 0;
  for (size_t i = 0; i < stats::kWaitCount; ++i) {
    const auto w = static_cast<Wait>(i);
    const std::string name(stats::WaitName(w));
    if (sys[w].count == 0) {
      EXPECT_EQ(events.count(name), 0u) << name;  // only what was waited on
      continue;
    }
    ++waited;
    ASSERT_EQ(events.count(name), 1u) << name;
    const std::vector<int64_t>& e = events.at(name);
    // The view's query waits for nothing, so the counters it read are these.
    EXPECT_EQ(e[0], sys[w].count) << name;
    EXPECT_EQ(e[1], static_cast<int64_t>(sys[w].total_ns / 1000)) << name;
    EXPECT_LE(e[2], e[0]) << name;
    EXPECT_LE(e[3], e[1]) << name;
  }
  EXPECT_EQ(events.size(), waited);
  // LGWR's writes are the background's; a commit's wait for them is the session's.
  ASSERT_EQ(events.count("log file parallel write"), 1u);
  EXPECT_GT(events.at("log file parallel write")[0], 0);
  EXPECT_EQ(events.at("log file parallel write")[2], 0);
  ASSERT_EQ(events.count("log file sync"), 1u);
  EXPECT_EQ(events.at("log file sync")[2], events.at("log file sync")[0]);
  // The instance's own control-file writes (creating the database) are not
  // the foreground's; the sessions' DDL's are.
  const std::vector<int64_t>& cf = events.at("control file parallel write");
  EXPECT_GT(cf[2], 0);
  EXPECT_LT(cf[2], cf[0]);
}

TEST_F(InstanceViewsTest, SessionEventIsEachSessionsOwn) {
  std::unique_ptr<Session> other = db_->NewSession();
  Work(other.get());
  Run("select count(*) from t");
  const StatementResult r = Run(
      "select sid, event, total_waits, time_waited_micro, max_wait, average_wait, wait_class "
      "from v$session_event order by sid, event");
  std::map<uint32_t, int64_t> rows_of;
  for (const std::vector<std::string>& row : r.result_rows) {
    const uint32_t sid = static_cast<uint32_t>(std::stoul(row[0]));
    ++rows_of[sid];
    ASSERT_TRUE(sid == s_->sid() || sid == other->sid()) << sid;
    const stats::WaitValues waits = (sid == s_->sid() ? s_.get() : other.get())->Waits();
    const std::optional<Wait> w = stats::WaitByName(row[1]);
    ASSERT_TRUE(w.has_value()) << row[1];
    EXPECT_EQ(row[2], std::to_string(waits[*w].count)) << row[1];
    EXPECT_EQ(row[3], std::to_string(waits[*w].total_ns / 1000)) << row[1];
    EXPECT_EQ(row[4], std::to_string(waits[*w].max_ns / 10'000'000)) << row[1];
    EXPECT_NEAR(std::stod(row[5]),
                static_cast<double>(waits[*w].total_ns) / 1e7 / static_cast<double>(waits[*w].count),
                0.006)
        << row[1];
    EXPECT_EQ(row[6], stats::WaitClassName(stats::kWaitTable[static_cast<size_t>(*w)].wait_class));
  }
  // The other session committed (log file sync); this one only read.
  int64_t other_events = 0;
  for (const stats::WaitValue& v : other->Waits().v) other_events += v.count > 0;
  EXPECT_EQ(rows_of[other->sid()], other_events);
  EXPECT_GT(other->Waits()[Wait::kLogFileSync].count, 0);
  EXPECT_EQ(s_->Waits()[Wait::kLogFileSync].count, 0);
}

TEST_F(InstanceViewsTest, WaitClassesAndHistogramsAddUpToTheEvents) {
  Work();
  // V$SYSTEM_WAIT_CLASS is V$SYSTEM_EVENT summed by class.
  const auto by_class = ByFirst(
      "select wait_class, sum(total_waits), sum(total_waits_fg) from v$system_event "
      "group by wait_class");
  const auto classes =
      ByFirst("select wait_class, total_waits, total_waits_fg, wait_class#, wait_class_id "
              "from v$system_wait_class");
  ASSERT_EQ(classes.size(), by_class.size());
  for (const auto& [name, sums] : by_class) {
    ASSERT_EQ(classes.count(name), 1u) << name;
    EXPECT_EQ(classes.at(name)[0], sums[0]) << name;
    EXPECT_EQ(classes.at(name)[1], sums[1]) << name;
  }
  EXPECT_EQ(classes.at("User I/O")[2], 8);
  EXPECT_EQ(classes.at("User I/O")[3], 1740759767);
  EXPECT_EQ(classes.at("Commit")[2], 5);
  EXPECT_EQ(classes.at("System I/O")[3], 4108307767);
  // V$SESSION_WAIT_CLASS: this session's, which committed.
  EXPECT_EQ(One("select total_waits from v$session_wait_class where wait_class = 'Commit'"),
            std::to_string(s_->Waits()[Wait::kLogFileSync].count));
  // V$EVENT_HISTOGRAM_MICRO: every wait in one bucket.
  const auto histogram = ByFirst(
      "select event, sum(wait_count) from v$event_histogram_micro group by event");
  const auto events = ByFirst("select event, total_waits from v$system_event");
  ASSERT_EQ(histogram.size(), events.size());
  for (const auto& [name, total] : events) EXPECT_EQ(histogram.at(name)[0], total[0]) << name;
  // A bucket's edge is a power of two, spelled in its unit.
  for (const std::vector<std::string>& row :
       Run("select wait_time_micro, wait_time_format from v$event_histogram_micro").result_rows) {
    const uint64_t us = std::stoull(row[0]);
    EXPECT_EQ(us & (us - 1), 0u) << us;
    if (us == 4096) {
      EXPECT_EQ(row[1], "4 milliseconds");
    } else if (us == 512) {
      EXPECT_EQ(row[1], "512 microseconds");
    }
  }
}

TEST_F(InstanceViewsTest, VersionInstanceControlFilesAndSessions) {
  EXPECT_EQ(One("select banner from v$version"), std::string(kOracleBanner));
  const StatementResult inst = Run(
      "select instance_number, instance_name, version, status, archiver, database_status, "
      "thread# from v$instance");
  ASSERT_EQ(inst.result_rows.size(), 1u);
  EXPECT_EQ(inst.result_rows[0],
            (std::vector<std::string>{"1", "orcl", "19.0.0.0.0", "OPEN", "STOPPED", "ACTIVE",
                                      "1"}));
  // ARCH runs once the database is in ARCHIVELOG mode.
  Run("alter database archivelog");
  EXPECT_EQ(One("select archiver from v$instance"), "STARTED");
  // V$CONTROLFILE: the two copies, the one in +RECO the recovery area's.
  const StatementResult cf =
      Run("select name, is_recovery_dest_file, block_size, file_size_blks from v$controlfile");
  const std::vector<std::string> names = db_->control_files();
  ASSERT_EQ(cf.result_rows.size(), names.size());
  for (size_t i = 0; i < names.size(); ++i) {
    EXPECT_EQ(cf.result_rows[i][0], names[i]);
    EXPECT_EQ(cf.result_rows[i][1], names[i].rfind("+RECO/", 0) == 0 ? "YES" : "NO");
    EXPECT_EQ(cf.result_rows[i][2], "16384");
    EXPECT_EQ(cf.result_rows[i][3], "31");
  }
  // V$SESSION: SERIAL# 1 (a SID is never reused), the other session INACTIVE.
  std::unique_ptr<Session> other = db_->NewSession();
  const StatementResult ses =
      Run("select sid, serial#, status, type, program from v$session order by sid");
  ASSERT_EQ(ses.result_rows.size(), 2u);
  EXPECT_EQ(ses.result_rows[0],
            (std::vector<std::string>{std::to_string(s_->sid()), "1", "ACTIVE", "USER",
                                      "cellsim"}));
  EXPECT_EQ(ses.result_rows[1][2], "INACTIVE");
  EXPECT_EQ(One("select count(*) from v$session where logon_time > sysdate - 1"), "2");
  // PROCESS and PROGRAM: this process by default, or the client a session
  // serves (Session::SetClient: `cellsim instance` names each `cellsim sql`).
  EXPECT_EQ(One(fmt::format("select process from v$session where sid = {}", s_->sid())),
            std::to_string(getpid()));
  other->SetClient("cellsim sql", "4242");
  EXPECT_EQ(One(fmt::format("select process || ' ' || program from v$session where sid = {}",
                            other->sid())),
            "4242 cellsim sql");
}

TEST_F(InstanceViewsTest, OracleManagedFilesGoToTheDestinationsTheParametersShow) {
  // The parameters: where the control files are, and the two destinations.
  EXPECT_EQ(Run("show parameter db_create_online_log_dest").result_rows.size(), 5u);  // unset
  const StatementResult dest = Run("show parameter file_dest");
  ASSERT_EQ(dest.result_rows.size(), 2u);
  EXPECT_EQ(dest.result_rows[0], (std::vector<std::string>{"db_create_file_dest", "string", "+DATA"}));
  EXPECT_EQ(dest.result_rows[1],
            (std::vector<std::string>{"db_recovery_file_dest", "string", "+RECO"}));
  EXPECT_EQ(One("select value from v$parameter where name = 'control_files'"),
            absl::StrJoin(db_->control_files(), ", "));
  EXPECT_EQ(One("select type || ' ' || value from v$parameter where name = 'db_block_size'"),
            "3 8192");
  EXPECT_EQ(Run("show parameter db_name").result_rows[0][2], "ORCL");
  // A file without a disk group goes to DB_CREATE_FILE_DEST, one without a
  // SIZE is 100M; a log group without members has one in each destination.
  Run("create tablespace omf");
  Run("create tablespace omf2 datafile size 8m, '+RECO'");
  Run("alter tablespace omf add datafile size 4m");
  Run("create temporary tablespace omftemp");
  Run("alter database add logfile group 9 size 8m, group 10");
  const StatementResult files = Run(
      "select tablespace_name, substr(file_name, 1, 5), bytes from dba_data_files "
      "where tablespace_name like 'OMF%' order by file_id");
  EXPECT_EQ(files.result_rows,
            (std::vector<std::vector<std::string>>{{"OMF", "+DATA", "104857600"},
                                                   {"OMF2", "+DATA", "8388608"},
                                                   {"OMF2", "+RECO", "104857600"},
                                                   {"OMF", "+DATA", "4194304"}}));
  EXPECT_EQ(One("select substr(file_name, 1, 5) || ' ' || bytes from dba_temp_files "
                "where tablespace_name = 'OMFTEMP'"),
            "+DATA 104857600");
  const StatementResult logs = Run(
      "select l.group#, l.bytes, substr(f.member, 1, 5) from v$log l join v$logfile f "
      "on f.group# = l.group# where l.group# >= 9 order by 1, 3");
  EXPECT_EQ(logs.result_rows, (std::vector<std::vector<std::string>>{{"9", "8388608", "+DATA"},
                                                                     {"9", "8388608", "+RECO"},
                                                                     {"10", "104857600", "+DATA"},
                                                                     {"10", "104857600", "+RECO"}}));
  // cellsim shows them and keeps them.
  absl::StatusOr<StatementResult> set =
      s_->Execute("alter system set db_create_file_dest = '+RECO'");
  ASSERT_FALSE(set.ok());
  EXPECT_THAT(set.status().message(),
              ::testing::HasSubstr("ORA-02095: specified initialization parameter cannot be "
                                   "modified (cellsim shows db_create_file_dest = +DATA"));
  // A disk group the rack lacks is still ORA-15001.
  absl::StatusOr<StatementResult> bad = s_->Execute("create tablespace nope datafile '+NOPE'");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), ::testing::HasSubstr("ORA-15001: diskgroup \"NOPE\""));
}

TEST_F(InstanceViewsTest, AsmViewsAreTheRacksDiskGroupsAndDisks) {
  const std::vector<asmgr::DiskGroup*> groups = rack_->disk_groups();
  const StatementResult dg = Run(
      "select group_number, name, state, type, total_mb, free_mb, usable_file_mb, "
      "allocation_unit_size, offline_disks from v$asm_diskgroup order by group_number");
  ASSERT_EQ(dg.result_rows.size(), groups.size());
  for (size_t g = 0; g < groups.size(); ++g) {
    const asmgr::DiskGroupView v = groups[g]->View();
    const std::vector<std::string>& row = dg.result_rows[g];
    EXPECT_EQ(row[0], std::to_string(g + 1));
    EXPECT_EQ(row[1], v.name);
    EXPECT_EQ(row[2], "CONNECTED");  // each holds a file of the database
    EXPECT_EQ(row[3], asmgr::RedundancyName(v.redundancy));
    EXPECT_EQ(row[4], std::to_string(v.space.total_mb));
    EXPECT_EQ(row[5], std::to_string(v.space.free_mb));
    EXPECT_EQ(row[6], std::to_string(v.space.usable_file_mb));
    EXPECT_EQ(row[7], std::to_string(v.au_size));
    EXPECT_EQ(row[8], "0");
  }
  const std::string disks = One("select count(*) from v$asm_disk");
  size_t n = 0;
  for (asmgr::DiskGroup* g : groups) n += g->Disks().size();
  EXPECT_EQ(disks, std::to_string(n));
  // A disk taken offline shows in both.
  const std::string name = One("select name from v$asm_disk where group_number = 1 and disk_number = 0");
  Run("alter diskgroup data offline disk " + name);
  EXPECT_EQ(One("select offline_disks from v$asm_diskgroup where name = 'DATA'"), "1");
  EXPECT_EQ(One("select mode_status from v$asm_disk where name = '" + name + "'"), "OFFLINE");
  EXPECT_EQ(One("select count(*) from v$asm_disk where mode_status = 'ONLINE'"),
            std::to_string(n - 1));
}

// X$KFFXP is ASM's extent map, copy for copy: the DBA's way from a block to
// the disk and allocation unit that hold it; a copy written while its disk
// was offline is flagged stale.
TEST_F(InstanceViewsTest, ExtentMapViewIsEveryCopyOfEveryExtent) {
  const std::vector<asmgr::DiskGroup*> groups = rack_->disk_groups();
  asmgr::DiskGroup* data = groups[0];
  ASSERT_OK_AND_ASSIGN(asmgr::FileInfo f,
                       data->CreateFile({.db_name = "ORCL",
                                         .type = asmgr::FileType::kDataFile,
                                         .tag = "MAPPED",
                                         .size_bytes = 3 * data->au_size()}));
  size_t copies = 0;
  for (asmgr::DiskGroup* g : groups) {
    for (const asmgr::FileInfo& file : g->ListFiles()) {
      copies += uint64_t{file.extents} * file.copies;
    }
  }
  EXPECT_EQ(One("select count(*) from x$kffxp"), std::to_string(copies));
  ASSERT_OK_AND_ASSIGN(std::vector<asmgr::Extent> map, data->ExtentMap(f.number));
  ASSERT_EQ(map.size(), 3u);
  const std::string of_file =
      fmt::format(" from x$kffxp where group_kffxp = 1 and number_kffxp = {}", f.number);
  const StatementResult rows =
      Run("select pxn_kffxp, xnum_kffxp, lxn_kffxp, disk_kffxp, au_kffxp, size_kffxp, "
          "flags_kffxp, incarn_kffxp" + of_file + " order by xnum_kffxp, lxn_kffxp");
  ASSERT_EQ(rows.result_rows.size(), map.size() * f.copies);
  for (size_t x = 0, k = 0; x < map.size(); ++x) {
    for (size_t c = 0; c < map[x].copies.size(); ++c, ++k) {
      const asmgr::ExtentCopy& copy = map[x].copies[c];
      EXPECT_EQ(rows.result_rows[k],
                (std::vector<std::string>{
                    std::to_string(x * f.copies + c), std::to_string(x), std::to_string(c),
                    std::to_string(copy.disk), std::to_string(copy.disk_offset / data->au_size()),
                    "1", "0", std::to_string(f.incarnation)}))
          << "extent " << x << " copy " << c;
    }
  }
  // A write while a disk is offline leaves that disk's copies stale.
  const uint32_t disk = map[0].copies[1].disk;
  size_t on_disk = 0;
  for (const asmgr::Extent& x : map) {
    for (const asmgr::ExtentCopy& c : x.copies) on_disk += c.disk == disk ? 1 : 0;
  }
  Run(fmt::format("alter diskgroup data offline disk {}", data->Disks()[disk].name));
  const std::vector<uint8_t> bytes(3 * data->au_size(), 0x5a);
  std::vector<asmgr::AsmWriteRequest> w = {{.file_offset = 0, .data = bytes}};
  ASSERT_OK(data->Write(f.number, absl::MakeSpan(w), nullptr));
  EXPECT_EQ(One(fmt::format("select count(*){} and disk_kffxp = {} and flags_kffxp = 1", of_file,
                            disk)),
            std::to_string(on_disk));
  EXPECT_EQ(One(fmt::format("select count(*){} and flags_kffxp = 1", of_file)),
            std::to_string(on_disk));
}

// DBA_FREE_SPACE: a fresh file is free from block 128 (its headers and
// space maps below) in whole extents; what segments take and give back
// moves between DBA_SEGMENTS and it, block for block.
TEST_F(InstanceViewsTest, FreeSpaceIsWhatNoSegmentHolds) {
  const std::string users_free =
      "select count(*), min(block_id), sum(blocks), sum(bytes) from dba_free_space "
      "where tablespace_name = 'USERS'";
  const StatementResult fresh = Run(users_free);
  ASSERT_EQ(fresh.result_rows.size(), 1u);
  const std::vector<std::string> whole = fresh.result_rows[0];
  const uint64_t file_blocks = std::stoull(One(
      "select blocks from dba_data_files where tablespace_name = 'USERS'"));
  EXPECT_EQ(whole[0], "1");
  EXPECT_EQ(whole[1], "128");
  EXPECT_EQ(whole[2], std::to_string((file_blocks + 1 - 128) / 8 * 8));
  EXPECT_EQ(whole[3], std::to_string(std::stoull(whole[2]) * 8192));
  Run("create table a (id number primary key, pad char(1000))");
  Run("create table b (id number, pad char(1000))");
  Run("insert into a select rownum, 'x' from all_objects where rownum <= 300");
  Run("insert into b select rownum, 'x' from all_objects where rownum <= 300");
  Run("commit");
  const uint64_t used = std::stoull(
      One("select sum(blocks) from dba_segments where tablespace_name = 'USERS'"));
  EXPECT_GT(used, 80u);
  EXPECT_EQ(One("select sum(blocks) from dba_free_space where tablespace_name = 'USERS'"),
            std::to_string(std::stoull(whole[2]) - used));
  // A's extents come back between B's and the rest: a run of their own.
  Run("drop table a purge");
  const uint64_t b_blocks = std::stoull(
      One("select sum(blocks) from dba_segments where tablespace_name = 'USERS'"));
  EXPECT_EQ(One("select sum(blocks) from dba_free_space where tablespace_name = 'USERS'"),
            std::to_string(std::stoull(whole[2]) - b_blocks));
  EXPECT_GE(One("select count(*) from dba_free_space where tablespace_name = 'USERS'"), "2");
  // All back: one run again.
  Run("drop table b purge");
  EXPECT_EQ(Run(users_free).result_rows[0], whole);
  // The undo area takes its whole file; temporary tablespaces are not listed.
  EXPECT_EQ(One("select count(*) from dba_free_space where tablespace_name in ('UNDOTBS1', "
                "'TEMP')"),
            "0");
}

// DBA_EXTENTS and DBA_FREE_SPACE tile the USERS file exactly: every block
// from 128 to the last whole extent is in one extent or one free run, never
// two, through creates, inserts, an index and a drop.
TEST_F(InstanceViewsTest, ExtentsAndFreeSpaceTileTheDataFile) {
  Run("create table a (id number primary key, pad char(1000))");
  Run("create table b (id number, pad char(1000))");
  Run("insert into a select rownum, 'x' from all_objects where rownum <= 300");
  Run("insert into b select rownum, 'x' from all_objects where rownum <= 200");
  Run("create index b_id on b (id)");
  Run("commit");
  Run("drop table a purge");
  Run("insert into b select rownum, 'y' from all_objects where rownum <= 100");
  Run("commit");
  const uint64_t file_blocks = std::stoull(
      One("select blocks from dba_data_files where tablespace_name = 'USERS'"));
  std::vector<int> owner(file_blocks, 0);  // per block: extents + free runs covering it
  auto cover = [&](const std::string& sql) {
    for (const std::vector<std::string>& row : Run(sql).result_rows) {
      const uint64_t first = std::stoull(row[0]), n = std::stoull(row[1]);
      ASSERT_LE(first + n, file_blocks) << sql;
      for (uint64_t b = first; b < first + n; ++b) ++owner[b];
    }
  };
  cover("select block_id, blocks from dba_extents where tablespace_name = 'USERS'");
  cover("select block_id, blocks from dba_free_space where tablespace_name = 'USERS'");
  const uint64_t end = 128 + (file_blocks - 128) / 8 * 8;
  for (uint64_t b = 0; b < file_blocks; ++b) {
    EXPECT_EQ(owner[b], b >= 128 && b < end ? 1 : 0) << "block " << b;
    if (owner[b] != (b >= 128 && b < end ? 1 : 0)) break;
  }
  // Each segment's extents add up to DBA_SEGMENTS' figures, numbered from 0.
  const StatementResult segs = Run(
      "select s.segment_name, s.blocks, s.extents, count(*), sum(e.blocks), max(e.extent_id) "
      "from dba_segments s, dba_extents e where e.segment_name = s.segment_name "
      "group by s.segment_name, s.blocks, s.extents order by 1");
  ASSERT_EQ(segs.result_rows.size(), 2u);  // B and B_ID (A was dropped)
  for (const std::vector<std::string>& row : segs.result_rows) {
    EXPECT_EQ(row[2], row[3]) << row[0];
    EXPECT_EQ(row[1], row[4]) << row[0];
    EXPECT_EQ(std::stoull(row[5]) + 1, std::stoull(row[2])) << row[0];
  }
  // USER_EXTENTS has Oracle's columns: no OWNER, FILE_ID or BLOCK_ID.
  EXPECT_NE(Error("select block_id from user_extents").find("ORA-00904"), std::string::npos);
  EXPECT_EQ(One("select count(*) from user_extents where segment_name = 'B_ID'"),
            One("select extents from user_segments where segment_name = 'B_ID'"));
}

// V$FILESTAT: DBWR's writes of a checkpoint land on the table's file, block
// for block as 'physical writes' counts them; after a restart a scan reads
// them back, PHYBLKRD as many blocks as the session's physical read bytes,
// served from the write-back flash (OPTIMIZED_PHYBLKRD).
TEST_F(InstanceViewsTest, FileStatCountsEachFilesReadsAndWrites) {
  Run("create table t (id number, pad char(500))");
  Run("insert into t select rownum, 'x' from all_objects where rownum <= 500");
  Run("commit");
  const std::string users =
      "select phywrts, phyblkwrt, phyrds, phyblkrd, optimized_phyblkrd from v$filestat "
      "where file# = (select file_id from dba_data_files where tablespace_name = 'USERS')";
  const std::string writes = "select value from v$sysstat where name = 'physical writes'";
  const std::vector<std::string> before = Run(users).result_rows.at(0);
  const int64_t writes0 = std::stoll(One(writes));
  Run("alter system checkpoint");
  const std::vector<std::string> after = Run(users).result_rows.at(0);
  const int64_t written = std::stoll(after[1]) - std::stoll(before[1]);
  EXPECT_GT(written, 30);  // 500 rows of ~510 bytes
  EXPECT_EQ(written, std::stoll(One(writes)) - writes0);
  EXPECT_EQ(after[0], after[1]);  // DBWR writes each block on its own
  ASSERT_OK(Reopen());
  const std::string read_bytes =
      "select m.value from v$mystat m, v$statname n where m.statistic# = n.statistic# and "
      "n.name = 'physical read total bytes'";
  const std::string blocks_read = "select sum(phyblkrd) from v$filestat";
  const int64_t bytes0 = std::stoll(One(read_bytes)), blocks0 = std::stoll(One(blocks_read));
  EXPECT_EQ(One("select count(*) from t"), "500");
  EXPECT_EQ((std::stoll(One(read_bytes)) - bytes0) / 8192,
            std::stoll(One(blocks_read)) - blocks0);
  const std::vector<std::string> read = Run(users).result_rows.at(0);
  EXPECT_GE(std::stoll(read[2]), 1);
  EXPECT_EQ(std::stoll(read[3]), written);  // the blocks DBWR wrote, read back
  EXPECT_EQ(read[4], read[3]);              // all from the write-back flash cache
  // TEMP's tempfile is in V$TEMPSTAT, never written.
  EXPECT_EQ(One("select count(*) || ' ' || sum(phywrts) from v$tempstat"), "1 0");
}

TEST_F(InstanceViewsTest, AColumnAViewDoesNotHaveIsNamed) {
  EXPECT_NE(Error("select event_id from v$system_event").find("ORA-00904"), std::string::npos);
  EXPECT_NE(Error("select * from v$event_histogram").find("ORA-00942"), std::string::npos);
}

}  // namespace
}  // namespace cellsim::db
