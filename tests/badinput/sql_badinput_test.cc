// Bad-input catalogue, statements (docs/reliability.md): hostile SQL run
// through a real session on a real rack — sizes 0, negative, overflowing;
// unknown and full disk groups; duplicate log group numbers; malformed text.
// Each case asserts the status code and the key words of the message, and
// that the database and its disk groups are unchanged afterwards.
#include <string>
#include <vector>

#include "badinput/badinput_util.h"
#include "cellsim/db/database.h"
#include "fmt/format.h"

namespace cellsim::badinput {
namespace {

using ::testing::HasSubstr;

class SqlBadInput : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new cellsim::testing::TempDir();
    io_ = io::MakePosixBackend().release();
    auto rack = asmgr::Rack::Create(io_, SystemClock(), dir_->path() + "/rack", TinyRack());
    ASSERT_TRUE(rack.ok()) << rack.status();
    rack_ = rack->release();
    auto db = db::Database::Create(rack_);
    ASSERT_TRUE(db.ok()) << db.status();
    db_ = db->release();
  }
  static void TearDownTestSuite() {
    if (db_ != nullptr) EXPECT_OK(db_->Close());
    delete db_;
    if (rack_ != nullptr) EXPECT_OK(rack_->Close());
    delete rack_;
    delete io_;
    delete dir_;
  }

  // Runs `sql` in a fresh session; expects it to fail with `code` and every
  // word of `words` in the message, and nothing to change.
  void ExpectRejected(const std::string& sql, absl::StatusCode code,
                      const std::vector<std::string>& words) {
    SCOPED_TRACE(sql);
    ASSERT_NE(db_, nullptr);
    const db::FileTable table = db_->file_table();
    std::vector<GroupSnapshot> before;
    for (asmgr::DiskGroup* dg : rack_->disk_groups()) before.push_back(Snapshot(dg));
    std::unique_ptr<db::Session> s = db_->NewSession();
    absl::StatusOr<db::StatementResult> r = s->Execute(sql);
    ASSERT_FALSE(r.ok()) << "accepted: " << sql;
    EXPECT_EQ(r.status().code(), code) << r.status();
    RecordProperty("error for " + sql, std::string(r.status().ToString()));  // for the docs
    for (const std::string& w : words) EXPECT_THAT(std::string(r.status().message()), HasSubstr(w));
    EXPECT_EQ(db_->file_table(), table) << "the file table changed";
    std::vector<GroupSnapshot> after;
    for (asmgr::DiskGroup* dg : rack_->disk_groups()) {
      after.push_back(Snapshot(dg));
      EXPECT_OK(dg->CheckConsistency());
    }
    EXPECT_EQ(after, before) << "a disk group changed";
  }

  static cellsim::testing::TempDir* dir_;
  static io::IoBackend* io_;
  static asmgr::Rack* rack_;
  static db::Database* db_;
};
cellsim::testing::TempDir* SqlBadInput::dir_ = nullptr;
io::IoBackend* SqlBadInput::io_ = nullptr;
asmgr::Rack* SqlBadInput::rack_ = nullptr;
db::Database* SqlBadInput::db_ = nullptr;

constexpr auto kInvalid = absl::StatusCode::kInvalidArgument;

// ---- sizes ------------------------------------------------------------------
TEST_F(SqlBadInput, SizeZero) {
  ExpectRejected("create tablespace t datafile '+DATA' size 0", kInvalid,
                 {"at 1:43", "size '0' is zero", "at least one block"});
  ExpectRejected("alter database add logfile group 7 ('+DATA') size 0m", kInvalid,
                 {"size '0m' is zero"});
}

TEST_F(SqlBadInput, SizeNegative) {
  ExpectRejected("create tablespace t datafile '+DATA' size -5m", kInvalid,
                 {"unexpected character '-'", "ORA-00911"});
}

TEST_F(SqlBadInput, SizeOverflowing) {
  ExpectRejected("create tablespace t datafile '+DATA' size 99999999999999999999g", kInvalid,
                 {"size '99999999999999999999g' is too large", "does not fit in 64 bits"});
  ExpectRejected("alter database add logfile ('+DATA') size 16777216T", kInvalid,
                 {"size '16777216T' is too large"});
  // "1e30" is not a number Oracle (or cellsim) reads: the unit is the problem.
  ExpectRejected("create tablespace t datafile '+DATA' size 1e30", kInvalid,
                 {"size '1e' has unknown unit 'e'", "use K, M, G or T"});
  ExpectRejected("create tablespace t datafile '+DATA' size 1.5g", kInvalid,
                 {"unexpected character '.'"});
}

TEST_F(SqlBadInput, SizeBeyondLimits) {
  // Fits 64 bits but not Oracle's file limits.
  ExpectRejected("create tablespace t datafile '+DATA' size 16777215T", kInvalid,
                 {"ORA-01144", "exceeds maximum"});
  // A log beyond the 32-bit redo block#: Oracle's wording, not the encoder's.
  ExpectRejected("alter database add logfile group 6 ('+DATA') size 4T", kInvalid,
                 {"ORA-01144: File size (8589934592 blocks) exceeds maximum of 4294967296 "
                  "blocks"});
}

// Oracle refuses an online log member below 4 MiB (ORA-00336; 8192 blocks of
// 512 bytes, 1024 of 4096), before looking at the disk groups.
TEST_F(SqlBadInput, LogMemberBelowOraclesMinimum) {
  ExpectRejected("alter database add logfile group 6 ('+DATA') size 2m", kInvalid,
                 {"ORA-00336: log file size 4096 blocks is less than minimum 8192 blocks"});
  ExpectRejected("alter database add logfile group 6 ('+DATA') size 1m blocksize 4096", kInvalid,
                 {"ORA-00336: log file size 256 blocks is less than minimum 1024 blocks"});
  std::unique_ptr<db::Session> s = db_->NewSession();
  ASSERT_OK(s->Execute("alter database add logfile group 6 ('+DATA') size 4m"));
  ASSERT_OK(s->Execute("alter database drop logfile group 6"));
}

// ---- disk groups ------------------------------------------------------------
TEST_F(SqlBadInput, UnknownDiskGroup) {
  ExpectRejected("create tablespace t datafile '+NOPE' size 1m", absl::StatusCode::kNotFound,
                 {"ORA-15001", "diskgroup \"NOPE\" does not exist"});
  ExpectRejected("alter database add logfile group 7 ('+DATA', '+NOPE') size 4m",
                 absl::StatusCode::kNotFound, {"ORA-15001", "NOPE"});
  ExpectRejected("create tablespace t datafile 'DATA' size 1m", kInvalid,
                 {"is not a disk group", "ORA-02236"});
}

TEST_F(SqlBadInput, FullDiskGroupSingleFile) {
  ExpectRejected("create tablespace big datafile '+DATA' size 1g",
                 absl::StatusCode::kResourceExhausted,
                 {"ORA-15041", "disk group DATA space exhausted", "MiB requested"});
}

TEST_F(SqlBadInput, FullDiskGroupDuringCreation) {
  // Each file fits alone, both do not: the first is allocated (and, in a log
  // group, the DATA member too) before the allocation of the next one fails;
  // the statement must roll every created file back.
  // What ASM can still allocate (usable_file_mb also holds back a failure
  // group's worth for re-mirroring, which allocation does not).
  auto allocatable_mb = [](asmgr::DiskGroup* dg) {
    return static_cast<int64_t>(dg->Space().free_mb / dg->copies());
  };
  asmgr::DiskGroup* data = *rack_->disk_group("DATA");
  const int64_t usable = allocatable_mb(data);
  ASSERT_GT(usable, 16);
  const int64_t part = usable * 2 / 3;
  ExpectRejected(
      fmt::format("create tablespace big datafile '+DATA' size {}m, '+DATA' size {}m", part, part),
      absl::StatusCode::kResourceExhausted, {"ORA-15041", "disk group DATA space exhausted"});
  asmgr::DiskGroup* reco = *rack_->disk_group("RECO");
  const int64_t reco_usable = allocatable_mb(reco);
  ASSERT_LT(reco_usable, usable);
  ExpectRejected(fmt::format("alter database add logfile group 9 ('+DATA','+RECO') size {}m",
                             reco_usable + 8),
                 absl::StatusCode::kResourceExhausted,
                 {"ORA-15041", "disk group RECO space exhausted"});
  // The space really is free again: the same tablespace with one file works.
  std::unique_ptr<db::Session> s = db_->NewSession();
  ASSERT_OK(s->Execute(fmt::format("create tablespace big datafile '+DATA' size {}m", part)));
  ASSERT_OK(s->Execute("drop tablespace big including contents and datafiles"));
}

// Issue 11: DROP TABLESPACE ... KEEP DATAFILES removed the files anyway.
TEST_F(SqlBadInput, DropTablespaceKeepDatafilesKeepsThem) {
  std::unique_ptr<db::Session> s = db_->NewSession();
  ASSERT_OK(s->Execute("create tablespace kept datafile '+DATA' size 4m"));
  ASSERT_OK(s->Execute("create tablespace gone datafile '+DATA' size 4m"));
  const db::FileTable before = db_->file_table();
  const db::AsmFileRef kept = before.data_files[before.data_files.size() - 2].file;
  const db::AsmFileRef gone = before.data_files.back().file;
  ASSERT_OK(s->Execute("drop tablespace kept including contents keep datafiles"));
  ASSERT_OK(s->Execute("drop tablespace gone including contents and datafiles"));
  asmgr::DiskGroup* data = *rack_->disk_group("DATA");
  EXPECT_TRUE(data->LookupFile(kept.number).ok()) << kept.name << " was removed";
  EXPECT_EQ(data->LookupFile(gone.number).status().code(), absl::StatusCode::kNotFound);
  const db::FileTable after = db_->file_table();
  EXPECT_EQ(after.FindTablespace("KEPT"), nullptr);
  ASSERT_EQ(after.kept_files.size(), 1u);
  EXPECT_EQ(after.kept_files[0], kept);
  // A remount's recovery does not take the kept file for a leftover, and the
  // control file round-trips the list.
  s.reset();
  ASSERT_OK(db_->Close());
  delete db_;
  db_ = nullptr;
  ASSERT_OK_AND_ASSIGN(auto reopened, db::Database::Open(rack_));
  EXPECT_TRUE(reopened->recovery_actions().empty());
  EXPECT_EQ(reopened->file_table().kept_files, after.kept_files);
  EXPECT_OK(data->LookupFile(kept.number).status());
  db_ = reopened.release();
}

// ---- log group numbers --------------------------------------------------------
TEST_F(SqlBadInput, DuplicateLogGroupInOneStatement) {
  ExpectRejected(
      "alter database add logfile group 5 ('+DATA') size 1m, group 5 ('+RECO') size 1m",
      kInvalid, {"group 5 is given twice in this statement"});
}

TEST_F(SqlBadInput, DuplicateLogGroupExisting) {
  std::unique_ptr<db::Session> s = db_->NewSession();
  ASSERT_OK(s->Execute("alter database add logfile group 8 ('+DATA') size 4m"));
  ExpectRejected("alter database add logfile group 8 ('+RECO') size 4m",
                 absl::StatusCode::kAlreadyExists, {"ORA-01184", "logfile group 8 already exists"});
  ASSERT_OK(s->Execute("alter database drop logfile group 8"));
}

TEST_F(SqlBadInput, LogGroupOutOfRange) {
  ExpectRejected("alter database add logfile group 0 ('+DATA') size 1m", kInvalid,
                 {"GROUP 0 is out of range 1..1000"});
  ExpectRejected("alter database add logfile group 99999999999999999999 ('+DATA') size 1m",
                 kInvalid, {"is out of range 1..1000"});
}

// ---- malformed text -------------------------------------------------------------
TEST_F(SqlBadInput, MalformedTruncated) {
  ExpectRejected("alter database add logfile group 5 ('+DATA'", kInvalid,
                 {"expected ',' or ')', found end of statement", "ORA-00907"});
  ExpectRejected("create tablespace", kInvalid, {"expected a tablespace name"});
}

TEST_F(SqlBadInput, MalformedQuotes) {
  ExpectRejected("create tablespace t datafile '+DATA size 1m", kInvalid,
                 {"unterminated string", "ORA-01756"});
  ExpectRejected("create tablespace \"t datafile '+DATA' size 1m", kInvalid,
                 {"unterminated identifier", "ORA-01740"});
  ExpectRejected("create tablespace \"\" datafile '+DATA' size 1m", kInvalid, {"ORA-01741"});
}

TEST_F(SqlBadInput, MalformedUnknownKeyword) {
  ExpectRejected("grant select on t to u", kInvalid,
                 {"expected CREATE, ALTER, DROP, TRUNCATE, INSERT, UPDATE, DELETE, MERGE, SELECT, COMMIT, ROLLBACK, SAVEPOINT, ANALYZE, ARCHIVE, SHOW, DESCRIBE, BEGIN or DECLARE, found 'grant'", "ORA-00900"});
  // Data statements have their own parser (data_statement.h) and its errors.
  ExpectRejected("select * from dual where", kInvalid, {"at 1:25", "ORA-00936"});
  ExpectRejected("update t set x = 1 wher x = 2", kInvalid, {"ORA-00933"});
  ExpectRejected("insert into t valuez (1)", kInvalid, {"ORA-00926"});
  ExpectRejected("alter database open", kInvalid, {"expected ADD, DROP, DATAFILE, TEMPFILE, ARCHIVELOG or NOARCHIVELOG", "ORA-02231"});
  ExpectRejected("create tablespace t datafile '+DATA' size 1m autoextend on", kInvalid,
                 {"found 'autoextend'", "ORA-00933"});
}

TEST_F(SqlBadInput, MalformedGarbageBytes) {
  ExpectRejected(std::string("\x01\xfe\xff\x80 drop", 9), kInvalid,
                 {"at 1:1", "unexpected character 0x01", "ORA-00911", "\n  ???? drop\n  ^"});
  ExpectRejected(std::string("drop tablespace t\0x", 19), kInvalid,
                 {"at 1:18", "unexpected character 0x00"});
}

TEST_F(SqlBadInput, MalformedEmpty) {
  ExpectRejected("", kInvalid, {"empty statement"});
  ExpectRejected("  -- only a comment\n /* and another */ ", kInvalid, {"empty statement"});
  ExpectRejected(";", kInvalid, {"empty statement"});
}

}  // namespace
}  // namespace cellsim::badinput
