// ALTER DATABASE DATAFILE|TEMPFILE ... RESIZE (ddl.cc "Resizing a file"):
// growing formats the extension by the creation path and keeps the rows;
// shrinking stops at the highest block in use; the new size is in the views,
// survives a restart, and a resize the control file never recorded is undone
// at the next open.
#include <string>
#include <vector>

#include "cellsim/format/block_template.h"
#include "db/db_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace cellsim::db {
namespace {

using ::cellsim::db::testing::Count;
using ::cellsim::db::testing::ReadAsmFile;
using stats::Wait;
using ::testing::HasSubstr;
using ::testing::Not;

class ResizeTest : public testing::SqlTest {
 protected:
  const DataFile& File(const std::string& tablespace) {
    table_ = db_->file_table();
    const Tablespace* ts = table_.FindTablespace(tablespace);
    EXPECT_NE(ts, nullptr) << tablespace;
    for (const DataFile& f : table_.data_files) {
      if (ts != nullptr && f.tablespace == ts->number) return f;
    }
    ADD_FAILURE() << "no file in " << tablespace;
    return table_.data_files.at(0);
  }
  asmgr::DiskGroup* Dg(const DataFile& f) { return *rack_->disk_group(f.file.disk_group); }
  uint64_t AsmBytes(const DataFile& f) {
    absl::StatusOr<asmgr::FileInfo> info = Dg(f)->LookupFile(f.file.number);
    EXPECT_TRUE(info.ok()) << info.status();
    return info.ok() ? info->size_bytes : 0;
  }
  // Every block but the header reads as the template of the recorded size
  // generates it (`from`: the first block checked).
  void ExpectFormatted(const DataFile& f, uint64_t from) {
    const format::BlockTemplate tmpl{format::BlockKind::kData, f.block_size, f.file_number,
                                     OnDiskBlocks(f.size_bytes, f.block_size)};
    const uint64_t bs = f.block_size;
    const std::vector<uint8_t> bytes = ReadAsmFile(Dg(f), f.file.number, tmpl.file_blocks * bs);
    ASSERT_EQ(bytes.size(), tmpl.file_blocks * bs);
    EXPECT_OK(format::VerifyBlock(tmpl, 0, absl::MakeConstSpan(bytes.data(), bs)));
    for (uint64_t b = from; b < tmpl.file_blocks; ++b) {
      const absl::Status st =
          format::VerifyBlock(tmpl, b, absl::MakeConstSpan(bytes.data() + b * bs, bs));
      ASSERT_TRUE(st.ok()) << "block " << b << ": " << st;
    }
  }

  FileTable table_;
};

TEST_F(ResizeTest, GrowingKeepsTheRowsAndSurvivesARestart) {
  Run("create table t (id number, name varchar2(64))");
  Run("insert into t select object_id, object_name from all_objects");
  Run("commit");
  const std::string rows = One("select count(*) from t");
  const std::string sum = One("select sum(id) from t");
  const DataFile before = File("USERS");
  ASSERT_EQ(before.size_bytes, 64 * kMiB);
  const std::string id = std::to_string(before.file_number);

  const StatementResult r = Run("alter database datafile " + id + " resize 100m");
  EXPECT_EQ(r.kind, "ALTER DATABASE DATAFILE RESIZE");
  EXPECT_EQ(r.path, "fast");
  EXPECT_EQ(r.execute.current, 1);
  // One control-file transaction after the statement's 3 reads; blocks 0-1
  // in one write; ASM's extension; the extension by the fast path.
  EXPECT_EQ(Count(r.waits, Wait::kControlFileParallelWrite), 2);
  EXPECT_EQ(Count(r.waits, Wait::kControlFileSequentialRead), 7);
  EXPECT_EQ(Count(r.waits, Wait::kDbFileSingleWrite), 1);
  EXPECT_EQ(Count(r.waits, Wait::kKsvMasterWait), 1);
  EXPECT_GT(Count(r.waits, Wait::kCellSmartFileCreation), 0);
  EXPECT_EQ(r.statistics[stats::Stat::kCellPhysicalIoBytesSavedDuringOptimizedFileCreation],
            static_cast<int64_t>(36 * kMiB * 2));

  EXPECT_EQ(One("select bytes from v$datafile where file# = " + id), "104857600");
  EXPECT_EQ(One("select blocks from v$datafile where file# = " + id), "12800");
  EXPECT_EQ(One("select bytes from dba_data_files where file_id = " + id), "104857600");
  const DataFile after = File("USERS");
  EXPECT_EQ(after.size_bytes, 100 * kMiB);
  EXPECT_EQ(AsmBytes(after), 100 * kMiB + 8192);
  ExpectFormatted(after, OnDiskBlocks(before.size_bytes, before.block_size));
  EXPECT_EQ(One("select count(*) from t"), rows);
  EXPECT_EQ(One("select sum(id) from t"), sum);
  // The new room is used: rows go on past the old end.
  Run("insert into t select object_id, object_name from all_objects");
  Run("insert into t select object_id, object_name from all_objects");
  Run("commit");

  ASSERT_OK(Reopen());
  EXPECT_TRUE(db_->recovery_actions().empty());
  EXPECT_EQ(One("select bytes from v$datafile where file# = " + id), "104857600");
  EXPECT_EQ(One("select count(*) from t"), std::to_string(3 * std::stoll(rows)));
  // By name, after a crash (the control file is the commit point).
  const std::string name = File("USERS").file.name;
  Run("alter database datafile '" + name + "' resize 120m");
  Crash();
  ASSERT_OK(Reopen());
  for (const std::string& a : db_->recovery_actions()) EXPECT_THAT(a, Not(HasSubstr("resized")));
  EXPECT_EQ(One("select bytes from v$datafile where file# = " + id), "125829120");
  EXPECT_EQ(AsmBytes(File("USERS")), 120 * kMiB + 8192);
  EXPECT_EQ(One("select count(*) from t"), std::to_string(3 * std::stoll(rows)));
}

TEST_F(ResizeTest, ShrinkingStopsAtTheHighestBlockInUse) {
  Run("create tablespace small datafile '+DATA' size 16m");
  const std::string id = std::to_string(File("SMALL").file_number);
  // Nothing in it yet: down to a few blocks.
  StatementResult r = Run("alter database datafile " + id + " resize 8m");
  EXPECT_EQ(Count(r.waits, Wait::kCellSmartFileCreation), 0);
  EXPECT_EQ(r.statistics[stats::Stat::kCellPhysicalIoBytesSavedDuringOptimizedFileCreation], 0);
  EXPECT_EQ(Count(r.waits, Wait::kDbFileSingleWrite), 1);
  EXPECT_EQ(AsmBytes(File("SMALL")), 8 * kMiB + 8192);
  ExpectFormatted(File("SMALL"), 2);
  // A table in it: its extents stay.
  Run("create table s (x number, y varchar2(100)) tablespace small");
  Run("insert into s select object_id, object_name from all_objects where object_id < 20000");
  Run("commit");
  const std::string rows = One("select count(*) from s");
  EXPECT_THAT(Error("alter database datafile " + id + " resize 1m"),
              HasSubstr("ORA-03297: file contains used data beyond requested RESIZE value"));
  EXPECT_EQ(One("select bytes from v$datafile where file# = " + id), "8388608");
  // SYSTEM keeps its dictionary (blocks up to 127).
  const std::string system = std::to_string(File("SYSTEM").file_number);
  EXPECT_THAT(Error("alter database datafile " + system + " resize 512k"),
              HasSubstr("ORA-03297"));
  // The undo area spans its whole file.
  const std::string undo = std::to_string(File("UNDOTBS1").file_number);
  EXPECT_THAT(Error("alter database datafile " + undo + " resize 32m"),
              HasSubstr("holds the undo area"));
  ASSERT_OK(Reopen());
  EXPECT_EQ(One("select count(*) from s"), rows);
  EXPECT_EQ(One("select bytes from v$datafile where file# = " + id), "8388608");
}

// The undo a checkpoint saves for the active transactions lies in a half of
// UNDOTBS1's file that its size places, and the dictionary names only the
// half: a resize would move it from under crash recovery, so it waits for a
// checkpoint that saved none.
TEST_F(ResizeTest, UndoFileResizeWaitsForACheckpointWithoutActiveTransactions) {
  const std::string undo = std::to_string(File("UNDOTBS1").file_number);
  Run("create table u (x number)");
  Run("insert into u values (1)");
  Run("alter system switch logfile");  // a checkpoint saves the insert's undo
  EXPECT_THAT(Error("alter database datafile " + undo + " resize 80m"),
              HasSubstr("ORA-30013: undo tablespace data file " + undo + " is currently in use"));
  Run("commit");
  Run("alter system switch logfile");  // nothing active: nothing saved
  Run("alter database datafile " + undo + " resize 80m");
  EXPECT_EQ(One("select bytes from v$datafile where file# = " + undo), "83886080");
}

TEST_F(ResizeTest, TempfilesGrowUnformatted) {
  const DataFile& temp = File("TEMP");
  const std::string id = std::to_string(temp.file_number);
  EXPECT_THAT(Error("alter database datafile " + id + " resize 100m"), HasSubstr("ORA-01516"));
  const StatementResult r = Run("alter database tempfile " + id + " resize 100m");
  EXPECT_EQ(r.kind, "ALTER DATABASE TEMPFILE RESIZE");
  EXPECT_EQ(r.path, "");
  EXPECT_EQ(Count(r.waits, Wait::kCellSmartFileCreation), 0);
  EXPECT_EQ(Count(r.waits, Wait::kDbFileSingleWrite), 1);
  EXPECT_EQ(One("select bytes from v$tempfile where file# = " + id), "104857600");
  EXPECT_EQ(One("select bytes from dba_temp_files where file_id = " + id), "104857600");
  EXPECT_EQ(AsmBytes(File("TEMP")), 100 * kMiB + 8192);
  ASSERT_OK(Reopen());
  EXPECT_EQ(One("select bytes from v$tempfile where file# = " + id), "104857600");
}

TEST_F(ResizeTest, BadResizesSayWhy) {
  const std::string users = std::to_string(File("USERS").file_number);
  EXPECT_THAT(Error("alter database datafile 999 resize 10m"),
              HasSubstr("ORA-01516: nonexistent log file, data file, or temporary file \"999\""));
  EXPECT_THAT(Error("alter database datafile '+DATA/ORCL/DATAFILE/nope.999.1' resize 10m"),
              HasSubstr("\"+DATA/ORCL/DATAFILE/nope.999.1\""));
  EXPECT_THAT(Error("alter database tempfile " + users + " resize 10m"), HasSubstr("ORA-01516"));
  EXPECT_THAT(Error("alter database datafile " + users + " resize 40g"),
              HasSubstr("ORA-01144: File size (5242880 blocks) exceeds maximum of 4194303"));
  EXPECT_THAT(Error("alter database datafile " + users + " resize 0"), HasSubstr("'0' is zero"));
  EXPECT_THAT(Error("alter database datafile " + users + " size 10m"), HasSubstr("RESIZE"));
  EXPECT_THAT(Error("alter database datafile 5000 resize 10m"), HasSubstr("5000"));
  EXPECT_THAT(Error("alter database datafile " + users + " resize 10q"), HasSubstr("10q"));
  // Nothing changed.
  EXPECT_EQ(One("select bytes from v$datafile where file# = " + users), "67108864");
}

// A resize the control file never recorded (the instance stopped after ASM
// grew the file): the next open cuts the file back and rewrites blocks 0-1.
TEST_F(ResizeTest, OpenUndoesAResizeTheControlFileNeverRecorded) {
  const DataFile f = File("USERS");
  ASSERT_OK_AND_ASSIGN(asmgr::FileInfo grown, Dg(f)->ResizeFile(f.file.number, 96 * kMiB + 8192));
  ASSERT_EQ(grown.size_bytes, 96 * kMiB + 8192);
  Crash();
  ASSERT_OK(Reopen());
  ASSERT_EQ(db_->recovery_actions().size(), 1u);
  EXPECT_THAT(db_->recovery_actions()[0], HasSubstr("was being resized"));
  EXPECT_EQ(AsmBytes(File("USERS")), 64 * kMiB + 8192);
  ExpectFormatted(File("USERS"), 2);
  EXPECT_EQ(One("select bytes from v$datafile where file# = " + std::to_string(f.file_number)),
            "67108864");
}

}  // namespace
}  // namespace cellsim::db
