#include <string>
#include <variant>

#include "cellsim/base/units.h"
#include "cellsim/db/statement.h"
#include "testing/test_util.h"

namespace cellsim::db {
namespace {

using ::testing::HasSubstr;

template <typename T>
T ParseAs(const std::string& sql) {
  absl::StatusOr<Statement> st = ParseStatement(sql);
  EXPECT_TRUE(st.ok()) << sql << "\n" << st.status();
  if (!st.ok()) return T{};
  const T* v = std::get_if<T>(&*st);
  EXPECT_NE(v, nullptr) << sql << " parsed as " << StatementKind(*st);
  return v ? *v : T{};
}

// The error message of a statement that must not parse.
std::string ErrorOf(const std::string& sql) {
  absl::StatusOr<Statement> st = ParseStatement(sql);
  EXPECT_FALSE(st.ok()) << sql << " parsed as " << (st.ok() ? ToSql(*st) : "");
  if (st.ok()) return "";
  EXPECT_EQ(st.status().code(), absl::StatusCode::kInvalidArgument) << st.status();
  return std::string(st.status().message());
}

// --- statement forms -------------------------------------------------------

TEST(ParserTest, SeedAddLogfile) {
  auto st = ParseAs<AddLogfile>(
      "alter database add logfile thread 2 group 5 ('+DATA','+RECO') size 4096m");
  ASSERT_EQ(st.thread, 2u);
  ASSERT_EQ(st.groups.size(), 1u);
  EXPECT_EQ(st.groups[0].group, 5u);
  EXPECT_EQ(st.groups[0].members, (std::vector<std::string>{"DATA", "RECO"}));
  EXPECT_EQ(st.groups[0].size_bytes, 4096 * kMiB);
  EXPECT_EQ(st.groups[0].block_size, 0u);
  EXPECT_FALSE(st.groups[0].reuse);
}

TEST(ParserTest, AddLogfileSingleMemberWithoutParentheses) {
  auto st = ParseAs<AddLogfile>("ALTER DATABASE ADD LOGFILE '+reco' SIZE 1G;");
  EXPECT_FALSE(st.thread.has_value());
  ASSERT_EQ(st.groups.size(), 1u);
  EXPECT_FALSE(st.groups[0].group.has_value());
  EXPECT_EQ(st.groups[0].members, (std::vector<std::string>{"RECO"}));
  EXPECT_EQ(st.groups[0].size_bytes, kGiB);
}

TEST(ParserTest, AddLogfileSeveralGroupsBlocksizeReuse) {
  auto st = ParseAs<AddLogfile>(
      "alter database add logfile group 5 ('+DATA','+RECO') size 4g blocksize 4096, "
      "group 6 ('+DATA') size 512M blocksize 512 reuse, '+RECO' size 100m");
  ASSERT_EQ(st.groups.size(), 3u);
  EXPECT_EQ(st.groups[0].group, 5u);
  EXPECT_EQ(st.groups[0].block_size, 4096u);
  EXPECT_EQ(st.groups[0].size_bytes, 4 * kGiB);
  EXPECT_EQ(st.groups[1].group, 6u);
  EXPECT_EQ(st.groups[1].block_size, 512u);
  EXPECT_TRUE(st.groups[1].reuse);
  EXPECT_FALSE(st.groups[2].group.has_value());
  EXPECT_EQ(st.groups[2].size_bytes, 100 * kMiB);
}

TEST(ParserTest, AddLogfileBlocksizeInK) {
  auto st = ParseAs<AddLogfile>("alter database add logfile ('+DATA') size 1g blocksize 4k");
  EXPECT_EQ(st.groups[0].block_size, 4096u);
}

TEST(ParserTest, AlterDiskgroupOnlineOffline) {
  AlterDiskgroupDisks off = ParseAs<AlterDiskgroupDisks>(
      "alter diskgroup data offline disk DATA_CD_00_cel01");
  EXPECT_EQ(off, (AlterDiskgroupDisks{"DATA", false, "DATA_CD_00_CEL01"}));
  EXPECT_EQ(ParseAs<AlterDiskgroupDisks>("ALTER DISKGROUP reco ONLINE ALL;"),
            (AlterDiskgroupDisks{"RECO", true, ""}));
  EXPECT_EQ(ParseAs<AlterDiskgroupDisks>("alter diskgroup DATA online disk d1"),
            (AlterDiskgroupDisks{"DATA", true, "D1"}));
  for (const char* sql : {"alter diskgroup data offline disk DATA_CD_00_cel01",
                          "alter diskgroup \"a b\" online all"}) {
    absl::StatusOr<Statement> st = ParseStatement(sql);
    ASSERT_TRUE(st.ok()) << st.status();
    EXPECT_EQ(*ParseStatement(ToSql(*st)), *st) << ToSql(*st);
  }
  EXPECT_THAT(std::string(ParseStatement("alter diskgroup data offline all").status().message()),
              ::testing::HasSubstr("expected DISK, found 'all'"));
  EXPECT_THAT(std::string(ParseStatement("alter diskgroup data online").status().message()),
              ::testing::HasSubstr("expected DISK or ALL"));
  EXPECT_THAT(std::string(ParseStatement("alter diskgroup data drop disk x").status().message()),
              ::testing::HasSubstr("expected ONLINE, OFFLINE or SCRUB"));
}

TEST(ParserTest, AlterDiskgroupScrub) {
  ScrubDiskgroup plain;
  plain.disk_group = "DATA";
  EXPECT_EQ(ParseAs<ScrubDiskgroup>("alter diskgroup data scrub"), plain);
  ScrubDiskgroup all = ParseAs<ScrubDiskgroup>(
      "ALTER DISKGROUP data SCRUB FILE '+DATA/ORCL/DATAFILE/users.256.1' REPAIR POWER high "
      "WAIT FORCE;");
  EXPECT_EQ(all, (ScrubDiskgroup{"DATA", "+DATA/ORCL/DATAFILE/users.256.1", "", true, "HIGH",
                                 "WAIT", "FORCE", false}));
  EXPECT_EQ(ParseAs<ScrubDiskgroup>("alter diskgroup reco scrub disk reco_cd_01_cel02 norepair "
                                    "nowait noforce"),
            (ScrubDiskgroup{"RECO", "", "RECO_CD_01_CEL02", false, "", "NOWAIT", "NOFORCE",
                            false}));
  EXPECT_TRUE(ParseAs<ScrubDiskgroup>("alter diskgroup data scrub stop").stop);
  for (const char* sql : {"alter diskgroup data scrub file '+DATA/o''k.256.1' repair power max",
                          "alter diskgroup data scrub disk d1 nowait noforce stop",
                          "alter diskgroup data scrub"}) {
    absl::StatusOr<Statement> st = ParseStatement(sql);
    ASSERT_TRUE(st.ok()) << st.status();
    EXPECT_EQ(*ParseStatement(ToSql(*st)), *st) << ToSql(*st);
  }
  for (const auto& [sql, why] : std::vector<std::pair<const char*, const char*>>{
           {"alter diskgroup data scrub power", "expected AUTO, LOW, HIGH or MAX, found end"},
           {"alter diskgroup data scrub power 11", "expected AUTO, LOW, HIGH or MAX, found '11'"},
           {"alter diskgroup data scrub file", "expected an ASM file name in quotes"},
           {"alter diskgroup data scrub repair repair", "expected STOP or end of statement"},
           {"alter diskgroup data scrub wait repair",
            "expected STOP or end of statement, found 'repair'"},
       }) {
    EXPECT_THAT(std::string(ParseStatement(sql).status().message()), ::testing::HasSubstr(why))
        << sql;
  }
}

TEST(ParserTest, DropLogfileGroup) {
  EXPECT_EQ(ParseAs<DropLogfileGroup>("alter database drop logfile group 5").group, 5u);
}

TEST(ParserTest, CreateTablespace) {
  auto st = ParseAs<CreateTablespace>(
      "create tablespace users datafile '+DATA' size 100M, '+data' size 2g");
  EXPECT_EQ(st.name, "USERS");
  ASSERT_EQ(st.datafiles.size(), 2u);
  EXPECT_EQ(st.datafiles[0], (FileClause{"DATA", 100 * kMiB}));
  EXPECT_EQ(st.datafiles[1], (FileClause{"DATA", 2 * kGiB}));
  EXPECT_EQ(st.block_size, 0u);
}

TEST(ParserTest, OracleManagedFilesNeedNoDiskGroupOrSize) {
  // No clause: one file in DB_CREATE_FILE_DEST of OMF's size (both left
  // empty for the database to fill).
  EXPECT_EQ(ParseAs<CreateTablespace>("create tablespace x").datafiles,
            (std::vector<FileClause>{{}}));
  EXPECT_EQ(ParseAs<CreateTablespace>("create temporary tablespace t2 blocksize 8k").datafiles,
            (std::vector<FileClause>{{}}));
  EXPECT_EQ(ParseAs<CreateTablespace>(
                "create tablespace y datafile size 10m, '+reco', '+DATA' size 1g")
                .datafiles,
            (std::vector<FileClause>{{"", 10 * kMiB}, {"RECO", 0}, {"DATA", kGiB}}));
  EXPECT_EQ(ParseAs<AlterTablespaceAddDatafile>("alter tablespace y add datafile size 5m").datafiles,
            (std::vector<FileClause>{{"", 5 * kMiB}}));
  // ADD LOGFILE without members (one in each destination) or SIZE.
  auto add = ParseAs<AddLogfile>("alter database add logfile");
  ASSERT_EQ(add.groups.size(), 1u);
  EXPECT_TRUE(add.groups[0].members.empty());
  EXPECT_EQ(add.groups[0].size_bytes, 0u);
  add = ParseAs<AddLogfile>(
      "alter database add logfile thread 2 group 7, group 8 size 20m blocksize 4096, size 8m");
  ASSERT_EQ(add.groups.size(), 3u);
  EXPECT_EQ(add.thread, 2u);
  EXPECT_EQ(add.groups[0].group, 7u);
  EXPECT_EQ(add.groups[1].size_bytes, 20 * kMiB);
  EXPECT_EQ(add.groups[1].block_size, 4096u);
  EXPECT_FALSE(add.groups[2].group.has_value());
  EXPECT_TRUE(add.groups[2].members.empty());
  EXPECT_EQ(add.groups[2].size_bytes, 8 * kMiB);
}

TEST(ParserTest, CreateBigfileAndUndoTablespaces) {
  auto big = ParseAs<CreateTablespace>("create bigfile tablespace b datafile '+D' size 1t");
  EXPECT_TRUE(big.bigfile);
  EXPECT_FALSE(big.undo);
  auto undo = ParseAs<CreateTablespace>("create undo tablespace u datafile '+D' size 1g");
  EXPECT_TRUE(undo.undo);
  EXPECT_FALSE(undo.bigfile);
  EXPECT_THAT(ErrorOf("create undo table u datafile '+D' size 1g"), HasSubstr("ORA-00901"));
}

TEST(ParserTest, TemporaryTablespacesTakeTempfiles) {
  auto temp = ParseAs<CreateTablespace>("create temporary tablespace t2 tempfile '+D' size 64m");
  EXPECT_TRUE(temp.temporary);
  EXPECT_FALSE(temp.undo);
  EXPECT_EQ(temp.datafiles, (std::vector<FileClause>{{"D", 64 * kMiB}}));
  auto add = ParseAs<AlterTablespaceAddDatafile>("alter tablespace t2 add tempfile '+D' size 1m");
  EXPECT_TRUE(add.tempfile);
  EXPECT_FALSE(
      ParseAs<AlterTablespaceAddDatafile>("alter tablespace u add datafile '+D' size 1m").tempfile);
  EXPECT_THAT(ErrorOf("create temporary tablespace t2 datafile '+D' size 64m"),
              HasSubstr("ORA-25139"));
  EXPECT_THAT(ErrorOf("create tablespace t2 tempfile '+D' size 64m"), HasSubstr("ORA-02180"));
  EXPECT_THAT(ErrorOf("alter tablespace t2 add logfile '+D' size 64m"),
              HasSubstr("expected DATAFILE or TEMPFILE"));
  EXPECT_THAT(ErrorOf("create undo temporary tablespace t2 tempfile '+D' size 64m"),
              HasSubstr("ORA-00901"));
}

TEST(ParserTest, CreateTablespaceBlocksizeAndUnits) {
  EXPECT_EQ(ParseAs<CreateTablespace>("create tablespace t datafile '+D' size 1t blocksize 8k")
                .block_size,
            8192u);
  auto st = ParseAs<CreateTablespace>(
      "create tablespace t datafile '+D' size 65536 blocksize 16384");
  EXPECT_EQ(st.block_size, 16384u);
  EXPECT_EQ(st.datafiles[0].size_bytes, 65536u);
  EXPECT_EQ(ParseAs<CreateTablespace>("create tablespace t datafile '+D' size 64K")
                .datafiles[0]
                .size_bytes,
            64 * kKiB);
  EXPECT_EQ(ParseAs<CreateTablespace>("create tablespace t datafile '+D' size 2T")
                .datafiles[0]
                .size_bytes,
            2 * kTiB);
}

TEST(ParserTest, QuotedIdentifierKeepsCase) {
  EXPECT_EQ(ParseAs<CreateTablespace>("create tablespace \"MixedCase\" datafile '+D' size 1m").name,
            "MixedCase");
}

TEST(ParserTest, AlterTablespaceAddDatafile) {
  auto st = ParseAs<AlterTablespaceAddDatafile>(
      "alter tablespace Users add datafile '+DATA' size 10m, '+RECO' size 20m");
  EXPECT_EQ(st.name, "USERS");
  ASSERT_EQ(st.datafiles.size(), 2u);
  EXPECT_EQ(st.datafiles[1], (FileClause{"RECO", 20 * kMiB}));
}

TEST(ParserTest, DropTablespaceForms) {
  auto plain = ParseAs<DropTablespace>("drop tablespace t");
  EXPECT_EQ(plain.name, "T");
  EXPECT_FALSE(plain.including_contents);
  auto full = ParseAs<DropTablespace>("drop tablespace t including contents and datafiles");
  EXPECT_TRUE(full.including_contents);
  EXPECT_TRUE(full.and_datafiles);
  auto keep = ParseAs<DropTablespace>(
      "drop tablespace t including contents keep datafiles cascade constraints");
  EXPECT_TRUE(keep.including_contents);
  EXPECT_FALSE(keep.and_datafiles);
  EXPECT_TRUE(keep.keep_datafiles);
  EXPECT_TRUE(keep.cascade_constraints);
}

TEST(ParserTest, SessionSettings) {
  EXPECT_FALSE(
      ParseAs<SetCellFastFileCreate>("alter session set \"_cell_fast_file_create\" = false")
          .enabled);
  EXPECT_TRUE(
      ParseAs<SetCellFastFileCreate>("ALTER SESSION SET \"_CELL_FAST_FILE_CREATE\"=TRUE").enabled);
  EXPECT_FALSE(ParseAs<SetFastFileCreateMetadata>(
                   "alter session set cellsim_fast_file_create_metadata = False")
                   .enabled);
  auto p = ParseAs<SetParameter>("alter session set NLS_DATE_FORMAT = 'DD-MON-YYYY'");
  EXPECT_EQ(p.name, "nls_date_format");
  EXPECT_EQ(p.value, "DD-MON-YYYY");
  EXPECT_TRUE(p.value_is_string);
  auto w = ParseAs<SetParameter>("alter session set optimizer_mode = all_rows");
  EXPECT_EQ(w.value, "all_rows");
  EXPECT_FALSE(w.value_is_string);
  EXPECT_EQ(ParseAs<SetParameter>("alter session set \"_x\" = 10").value, "10");
}

TEST(ParserTest, KeywordsAreCaseInsensitive) {
  const char* forms[] = {
      "ALTER DATABASE ADD LOGFILE THREAD 2 GROUP 5 ('+DATA','+RECO') SIZE 4096M",
      "Alter Database Add Logfile Thread 2 Group 5 ('+data','+reco') Size 4096m",
      "aLtEr dAtAbAsE aDd lOgFiLe tHrEaD 2 gRoUp 5 ('+Data','+Reco') sIzE 4096M",
  };
  absl::StatusOr<Statement> first = ParseStatement(forms[0]);
  ASSERT_OK(first);
  for (const char* sql : forms) {
    absl::StatusOr<Statement> st = ParseStatement(sql);
    ASSERT_OK(st);
    EXPECT_EQ(*st, *first) << sql;
  }
}

TEST(ParserTest, CommentsAndWhitespace) {
  auto st = ParseAs<AddLogfile>(
      "-- the seed\n alter /* offload */ database\n\tadd logfile -- more\n group 7\n"
      "('+DATA') /* size next */ size 8m ;  -- done\n");
  EXPECT_EQ(st.groups[0].group, 7u);
  EXPECT_EQ(st.groups[0].size_bytes, 8 * kMiB);
}

TEST(ParserTest, ResizeDataFileAndTempfile) {
  const ResizeDataFile by_number = ParseAs<ResizeDataFile>("alter database datafile 7 resize 200m");
  EXPECT_FALSE(by_number.tempfile);
  EXPECT_EQ(by_number.file_number, 7u);
  EXPECT_EQ(by_number.size_bytes, 200 * kMiB);
  const ResizeDataFile by_name = ParseAs<ResizeDataFile>(
      "ALTER DATABASE TEMPFILE '+DATA/ORCL/TEMPFILE/temp.260.1' RESIZE 1G;");
  EXPECT_TRUE(by_name.tempfile);
  EXPECT_EQ(by_name.file_number, 0u);
  EXPECT_EQ(by_name.file_name, "+DATA/ORCL/TEMPFILE/temp.260.1");  // as written
  EXPECT_EQ(by_name.size_bytes, kGiB);
  EXPECT_THAT(ErrorOf("alter database datafile 7 resize 0"), HasSubstr("size '0' is zero"));
  EXPECT_THAT(ErrorOf("alter database datafile 0 resize 1m"), HasSubstr("FILE 0 is out of range"));
  EXPECT_THAT(ErrorOf("alter database datafile 7 autoextend on"),
              HasSubstr("expected RESIZE, found 'autoextend'"));
  EXPECT_THAT(ErrorOf("alter database datafile resize 1m"),
              HasSubstr("expected a data file name in quotes or its file number"));
  EXPECT_THAT(ErrorOf("alter database tempfile '' resize 1m"), HasSubstr("empty tempfile name"));
  EXPECT_THAT(ErrorOf("alter database datafile 7 resize 1m reuse"),
              HasSubstr("expected end of statement"));
  EXPECT_EQ(StatementKind(ResizeDataFile{}), "ALTER DATABASE DATAFILE RESIZE");
}

TEST(ParserTest, ToSqlRoundTrips) {
  const char* forms[] = {
      "alter database add logfile thread 2 group 5 ('+DATA','+RECO') size 4096m",
      "alter database add logfile group 1 '+D' size 1000000 blocksize 4096 reuse, ('+R') size 3k",
      "create tablespace \"lower\" datafile '+D' size 1536m blocksize 32k",
      "create bigfile tablespace big datafile '+D' size 1t",
      "create undo tablespace undo2 datafile '+D' size 64m",
      "create smallfile undo tablespace u3 datafile '+D' size 64m",
      "alter tablespace t add datafile '+D' size 5g",
      "create temporary tablespace temp2 tempfile '+D' size 64m, '+D' size 32m",
      "create bigfile temporary tablespace bt tempfile '+D' size 1g",
      "alter tablespace temp2 add tempfile '+D' size 16m",
      "drop tablespace t including contents and datafiles cascade constraints",
      "alter database drop logfile group 9",
      "alter database datafile 12 resize 1536m",
      "alter database tempfile '+DATA/ORCL/TEMPFILE/temp.260.1' resize 100k",
      "alter session set \"_cell_fast_file_create\" = false",
      "alter session set cellsim_fast_file_create_metadata = true",
      "alter session set nls_date_format = 'it''s'",
      // Oracle-managed files.
      "create tablespace omf",
      "create temporary tablespace omft blocksize 8k",
      "create tablespace omf2 datafile size 10m, '+reco', '+D' size 1g",
      "alter tablespace omf add datafile size 5m",
      "alter database add logfile",
      "alter database add logfile thread 2 group 7, group 8 size 20m blocksize 4096, size 8m",
      "alter database add logfile group 9 reuse",
  };
  for (const char* sql : forms) {
    absl::StatusOr<Statement> st = ParseStatement(sql);
    ASSERT_OK(st);
    const std::string canonical = ToSql(*st);
    absl::StatusOr<Statement> again = ParseStatement(canonical);
    ASSERT_OK(again);
    EXPECT_EQ(*again, *st) << sql << " -> " << canonical;
  }
  EXPECT_EQ(ToSql(*ParseStatement(forms[0])),
            "ALTER DATABASE ADD LOGFILE THREAD 2 GROUP 5 ('+DATA', '+RECO') SIZE 4G");
  EXPECT_EQ(ToSql(*ParseStatement("create tablespace omf")), "CREATE TABLESPACE OMF");
  EXPECT_EQ(ToSql(*ParseStatement("create tablespace y datafile size 10m, '+reco'")),
            "CREATE TABLESPACE Y DATAFILE SIZE 10M, '+RECO'");
  EXPECT_EQ(ToSql(*ParseStatement("alter database add logfile")), "ALTER DATABASE ADD LOGFILE");
  EXPECT_EQ(ToSql(*ParseStatement("alter database add logfile group 3, size 1m")),
            "ALTER DATABASE ADD LOGFILE GROUP 3, SIZE 1M");
}

TEST(ParserTest, StatementKinds) {
  EXPECT_EQ(StatementKind(*ParseStatement("drop tablespace t")), "DROP TABLESPACE");
  EXPECT_EQ(StatementKind(*ParseStatement("alter database add logfile '+D' size 1m")),
            "ALTER DATABASE ADD LOGFILE");
}

// --- errors -------------------------------------------------------------------

TEST(ParserErrorTest, PointsAtPositionWithCaret) {
  const std::string msg = ErrorOf("alter tablespace T add datafile '+DATA' sise 10m");
  EXPECT_THAT(msg, HasSubstr("at 1:41: expected SIZE, ',' or end of statement, found 'sise'"));
  // The excerpt and a caret under the 's' of "sise".
  EXPECT_THAT(msg, HasSubstr("\n  alter tablespace T add datafile '+DATA' sise 10m\n"));
  EXPECT_THAT(msg, HasSubstr("\n  " + std::string(40, ' ') + "^"));
}

TEST(ParserErrorTest, LineAndColumnOnLaterLines) {
  const std::string msg = ErrorOf("alter database\n  add logfile\n  group 5 ('+DATA' size 1g");
  EXPECT_THAT(msg, HasSubstr("at 3:20: expected ',' or ')', found 'size'"));
  EXPECT_THAT(msg, HasSubstr("ORA-00907: missing right parenthesis"));
  EXPECT_THAT(msg, HasSubstr("\n    group 5 ('+DATA' size 1g\n"));
}

TEST(ParserErrorTest, LongLineIsWindowed) {
  const std::string sql = "create tablespace t datafile " + std::string(100, ' ') + "'+D' size 1x";
  const std::string msg = ErrorOf(sql);
  EXPECT_THAT(msg, HasSubstr("unknown unit 'x'"));
  EXPECT_THAT(msg, HasSubstr("  ..."));
  // Every line of the message is short enough for a terminal.
  size_t start = 0;
  while (start < msg.size()) {
    size_t end = msg.find('\n', start);
    if (end == std::string::npos) end = msg.size();
    if (start > 0) {
      EXPECT_LE(end - start, 90u);
    }
    start = end + 1;
  }
}

TEST(ParserErrorTest, EmptyStatement) {
  EXPECT_THAT(ErrorOf(""), HasSubstr("empty statement"));
  EXPECT_THAT(ErrorOf("   -- nothing\n /* here */ "), HasSubstr("empty statement"));
  EXPECT_THAT(ErrorOf(";"), HasSubstr("empty statement"));
}

TEST(ParserErrorTest, SizeZero) {
  EXPECT_THAT(ErrorOf("create tablespace t datafile '+DATA' size 0"),
              HasSubstr("size '0' is zero"));
  EXPECT_THAT(ErrorOf("alter database add logfile ('+DATA') size 0m"),
              HasSubstr("size '0m' is zero"));
}

TEST(ParserErrorTest, SizeOverflow) {
  EXPECT_THAT(ErrorOf("create tablespace t datafile '+DATA' size 16777216T"),
              HasSubstr("too large"));
  EXPECT_THAT(ErrorOf("alter database add logfile '+D' size 99999999999999999999999"),
              HasSubstr("too large"));
}

TEST(ParserErrorTest, SizeUnit) {
  EXPECT_THAT(ErrorOf("create tablespace t datafile '+DATA' size 10mb"),
              HasSubstr("unknown unit 'mb'"));
  EXPECT_THAT(ErrorOf("create tablespace t datafile '+DATA' size 1P"), HasSubstr("unknown unit"));
  EXPECT_THAT(ErrorOf("create tablespace t datafile '+DATA' size big"),
              HasSubstr("expected a size such as 4096M, found 'big'"));
  EXPECT_THAT(ErrorOf("create tablespace t datafile '+DATA' size 1.5g"),
              HasSubstr("unexpected character '.'"));
}

TEST(ParserErrorTest, DiskGroupNames) {
  EXPECT_THAT(ErrorOf("create tablespace t datafile 'DATA' size 1m"),
              HasSubstr("file name 'DATA' is not a disk group: write '+NAME'"));
  EXPECT_THAT(ErrorOf("create tablespace t datafile '/u01/t.dbf' size 1m"),
              HasSubstr("ORA-02236"));
  EXPECT_THAT(ErrorOf("alter database add logfile ('+DATA', 'RECO') size 1m"),
              HasSubstr("'RECO' is not a disk group"));
  EXPECT_THAT(ErrorOf("alter database add logfile ('+') size 1m"),
              HasSubstr("invalid disk group name '+'"));
  EXPECT_THAT(ErrorOf("alter database add logfile ('+DATA/orcl/x.log') size 1m"),
              HasSubstr("names a file inside the disk group"));
  EXPECT_THAT(ErrorOf("alter database add logfile ('+DA TA') size 1m"),
              HasSubstr("invalid disk group name"));
  EXPECT_THAT(ErrorOf("create tablespace t datafile +DATA size 1m"),
              HasSubstr("unexpected character '+'"));
}

TEST(ParserErrorTest, ThreadAndGroupRanges) {
  EXPECT_THAT(ErrorOf("alter database add logfile thread 0 ('+D') size 1m"),
              HasSubstr("THREAD 0 is out of range 1..1000"));
  EXPECT_THAT(ErrorOf("alter database add logfile thread 1001 ('+D') size 1m"),
              HasSubstr("THREAD 1001 is out of range"));
  EXPECT_THAT(ErrorOf("alter database add logfile group 0 ('+D') size 1m"),
              HasSubstr("GROUP 0 is out of range"));
  EXPECT_THAT(ErrorOf("alter database add logfile group 99999999999999999999 ('+D') size 1m"),
              HasSubstr("out of range"));
  EXPECT_THAT(ErrorOf("alter database drop logfile group 1001"), HasSubstr("out of range"));
  EXPECT_THAT(ErrorOf("alter database add logfile group 5k ('+D') size 1m"),
              HasSubstr("not an integer"));
  EXPECT_THAT(ErrorOf("alter database add logfile group 5 ('+D') size 1m, group 5 ('+D') size 1m"),
              HasSubstr("group 5 is given twice"));
}

TEST(ParserErrorTest, BlockSizes) {
  EXPECT_THAT(ErrorOf("alter database add logfile ('+D') size 1m blocksize 1024"),
              HasSubstr("use 512 or 4096"));
  EXPECT_THAT(ErrorOf("alter database add logfile ('+D') size 1m blocksize 8k"),
              HasSubstr("use 512 or 4096"));
  EXPECT_THAT(ErrorOf("create tablespace t datafile '+D' size 1m blocksize 12k"),
              HasSubstr("use 2K, 4K, 8K, 16K or 32K"));
  EXPECT_THAT(ErrorOf("create tablespace t datafile '+D' size 1m blocksize 64k"),
              HasSubstr("not allowed"));
}

TEST(ParserErrorTest, MalformedSql) {
  EXPECT_THAT(ErrorOf("alter database add logfile ('+DATA' size 1m"),
              HasSubstr("expected ',' or ')', found 'size'"));
  EXPECT_THAT(ErrorOf("alter database add logfile () size 1m"),
              HasSubstr("expected a disk group in quotes"));
  EXPECT_THAT(ErrorOf("alter database add logfile 1m"),
              HasSubstr("expected THREAD, GROUP, '(', a disk group such as '+DATA', SIZE or the "
                        "end, found '1m'"));
  EXPECT_THAT(ErrorOf("alter database add logfile group 5 1m"),
              HasSubstr("expected '(', a disk group such as '+DATA', SIZE or the end, found '1m'"));
  EXPECT_THAT(ErrorOf("alter database add logfile size 1m,"),
              HasSubstr("expected GROUP, '(', a disk group such as '+DATA' or SIZE after ',', "
                        "found end of statement"));
  EXPECT_THAT(ErrorOf("alter database add logfile , size 1m"),
              HasSubstr("expected THREAD, GROUP, '(', a disk group such as '+DATA', SIZE or the "
                        "end, found ','"));
  EXPECT_THAT(ErrorOf("alter database add logfile ('+DATA') 1m"),
              HasSubstr("expected SIZE, ',', BLOCKSIZE, REUSE or end of statement, found '1m'"));
  EXPECT_THAT(ErrorOf("create tablespace t datafile autoextend on"),
              HasSubstr("expected a disk group such as '+DATA' or SIZE, found 'autoextend'"));
  EXPECT_THAT(ErrorOf("create tablespace t datafile size 1m, "),
              HasSubstr("expected a disk group such as '+DATA' or SIZE, found end of statement"));
  EXPECT_THAT(ErrorOf("alter database add logfile ('+DATA') size"),
              HasSubstr("expected a size such as 4096M, found end of statement"));
  EXPECT_THAT(ErrorOf("select * from dual"),
              HasSubstr("at 1:1: expected CREATE, ALTER, DROP, TRUNCATE, INSERT, UPDATE, DELETE, MERGE, SELECT, COMMIT, ROLLBACK, SAVEPOINT, ANALYZE, ARCHIVE, SHOW, DESCRIBE, BEGIN or DECLARE, found 'select' (ORA-00900"));
  EXPECT_THAT(ErrorOf("create table t (x int)"), HasSubstr("expected TABLESPACE, found 'table'"));
  EXPECT_THAT(ErrorOf("alter system set x = 1"),
              HasSubstr("expected TABLESPACE, DATABASE, SESSION or DISKGROUP, found 'system'"));
  EXPECT_THAT(ErrorOf("alter database open"), HasSubstr("expected ADD, DROP, DATAFILE, TEMPFILE, ARCHIVELOG or NOARCHIVELOG"));
  EXPECT_THAT(ErrorOf("alter database drop logfile member '+DATA'"),
              HasSubstr("expected GROUP, found 'member'"));
  EXPECT_THAT(ErrorOf("drop tablespace t including datafiles"),
              HasSubstr("expected CONTENTS, found 'datafiles'"));
  EXPECT_THAT(ErrorOf("create tablespace t '+D' size 1m"), HasSubstr("ORA-02180"));
  EXPECT_THAT(ErrorOf("create tablespace datafile '+D' size 1m"),
              HasSubstr("expected DATAFILE, found '+D'"));
  EXPECT_THAT(ErrorOf("alter session set \"_cell_fast_file_create\" false"),
              HasSubstr("expected '='"));
  EXPECT_THAT(ErrorOf("alter session set x ="), HasSubstr("expected a value for x"));
}

TEST(ParserErrorTest, TrailingGarbage) {
  EXPECT_THAT(ErrorOf("alter database add logfile ('+D') size 1m autoextend on"),
              HasSubstr("expected ',', BLOCKSIZE, REUSE or end of statement, found 'autoextend'"));
  EXPECT_THAT(ErrorOf("create tablespace t datafile '+D' size 1m extent management local"),
              HasSubstr("expected ',', BLOCKSIZE or end of statement, found 'extent'"));
  EXPECT_THAT(ErrorOf("alter database drop logfile group 1 2"),
              HasSubstr("expected end of statement, found '2'"));
  EXPECT_THAT(ErrorOf("drop tablespace t; drop tablespace u"),
              HasSubstr("expected end of statement after ';'"));
  EXPECT_THAT(ErrorOf("drop tablespace t;;"), HasSubstr("ORA-00933"));
}

TEST(ParserErrorTest, UnterminatedQuotesAndComments) {
  const std::string s = ErrorOf("alter database add logfile ('+DATA) size 1m");
  EXPECT_THAT(s, HasSubstr("at 1:29: unterminated string"));
  EXPECT_THAT(s, HasSubstr("ORA-01756"));
  EXPECT_THAT(ErrorOf("create tablespace \"t datafile '+D' size 1m"),
              HasSubstr("unterminated identifier"));
  EXPECT_THAT(ErrorOf("drop tablespace t /* never closed"), HasSubstr("unterminated comment"));
  EXPECT_THAT(ErrorOf("create tablespace \"\" datafile '+D' size 1m"), HasSubstr("ORA-01741"));
}

TEST(ParserErrorTest, SessionValues) {
  EXPECT_THAT(ErrorOf("alter session set \"_cell_fast_file_create\" = 1"),
              HasSubstr("expected TRUE or FALSE for _cell_fast_file_create, found '1'"));
  EXPECT_THAT(ErrorOf("alter session set cellsim_fast_file_create_metadata = yes"),
              HasSubstr("expected TRUE or FALSE"));
  EXPECT_THAT(ErrorOf("alter session set _cell_fast_file_create = false"),
              HasSubstr("must be double-quoted"));
}

TEST(ParserErrorTest, IdentifierTooLong) {
  EXPECT_THAT(ErrorOf("create tablespace " + std::string(129, 'T') + " datafile '+D' size 1m"),
              HasSubstr("ORA-00972"));
  EXPECT_EQ(ParseAs<CreateTablespace>("create tablespace " + std::string(128, 'T') +
                                      " datafile '+D' size 1m")
                .name.size(),
            128u);
}

// --- script splitting ------------------------------------------------------------

TEST(SplitStatementsTest, SplitsOnSemicolonsOutsideQuotesAndComments) {
  const std::string script =
      "-- a script; with a semicolon in a comment\n"
      "alter session set nls_date_format = 'a;b';\n"
      "/* block; comment */ create tablespace \"x;y\" datafile '+D' size 1m ;\n"
      "\n"
      ";;  -- empty statements vanish\n"
      "drop tablespace t including contents and datafiles";
  const std::vector<std::string> parts = SplitStatements(script);
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[0], "-- a script; with a semicolon in a comment\n"
                      "alter session set nls_date_format = 'a;b'");
  EXPECT_EQ(parts[1], "/* block; comment */ create tablespace \"x;y\" datafile '+D' size 1m");
  // A comment before a statement stays with it, as the first one does.
  EXPECT_EQ(parts[2], "-- empty statements vanish\ndrop tablespace t including contents and datafiles");
  for (const std::string& p : parts) EXPECT_OK(ParseStatement(p));
  EXPECT_EQ(ParseAs<CreateTablespace>(parts[1]).name, "x;y");
}

TEST(SplitStatementsTest, EmptyAndCommentOnlyScripts) {
  EXPECT_TRUE(SplitStatements("").empty());
  EXPECT_TRUE(SplitStatements("  ;\n; -- c\n/* d */").empty());
}

TEST(SplitStatementsTest, SqlPlusCommandsEndAtTheirLine) {
  EXPECT_EQ(SplitStatements("show parameter undo\nselect 1 from dual;\nexit\nquit 3 rollback\n"
                            "EXIT;select 2 from dual;\nexited_count\n"),
            (std::vector<std::string>{"show parameter undo", "select 1 from dual", "exit",
                                      "quit 3 rollback", "EXIT", "select 2 from dual",
                                      "exited_count"}));
  // PROMPT and REM take their whole line, ';' included; SET and DESC end at it.
  EXPECT_EQ(SplitStatements("prompt a; b\nrem c; d\nset lines 200;\ndesc t\nupdate t\nset a = 1;\n"),
            (std::vector<std::string>{"prompt a; b", "rem c; d", "set lines 200", "desc t",
                                      "update t\nset a = 1"}));
}

TEST(SplitStatementsTest, UnterminatedQuoteRunsToEnd) {
  const std::vector<std::string> parts = SplitStatements("drop tablespace a; drop tablespace 'b;c");
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[1], "drop tablespace 'b;c");
  EXPECT_FALSE(ParseStatement(parts[1]).ok());
}

}  // namespace
}  // namespace cellsim::db
