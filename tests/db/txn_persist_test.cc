// The database's tables survive (issue 15): the dictionary persists in the
// SYSTEM data file (two checksummed copies), committed rows are in the data
// files after the checkpoint at Close and are read back after reopen; GTT
// definitions persist, their contents never do; a damaged dictionary copy is
// survived, two are refused with a clear error.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

#include "cellsim/cell/cell.h"
#include "cellsim/db/control_file.h"
#include "cellsim/db/database.h"
#include "cellsim/format/block_template.h"
#include "cellsim/io/fault_injection.h"
#include "cellsim/io/io_backend.h"
#include "db/db_test_util.h"
#include "gtest/gtest.h"
#include "fmt/format.h"
#include "testing/test_util.h"

namespace cellsim::db {
namespace {

using ::testing::HasSubstr;
using Cells = std::vector<std::vector<std::string>>;

class PersistTest : public testing::SqlTest {
 protected:
  void Configure(DatabaseOptions* o) const override { o->all_objects_rows = 5000; }

  // Shuts the database down and flips one byte of dictionary copy `copy`
  // (blocks 2-64 and 65-127 of the SYSTEM data file), `offset` bytes into it.
  void FlipDictionaryByte(uint32_t copy, uint32_t offset) {
    const FileTable t = db_ ? db_->file_table() : table_;
    table_ = t;
    Shutdown();
    ASSERT_OK_AND_ASSIGN(rack_, asmgr::Rack::Open(io_.get(), SystemClock(), dir()));
    const DataFile* f = testing::FileOf(t, "SYSTEM");
    ASSERT_NE(f, nullptr);
    ASSERT_OK_AND_ASSIGN(asmgr::DiskGroup * dg, rack_->disk_group(f->file.disk_group));
    const uint64_t at = (2 + uint64_t{copy} * 63) * 8192;
    std::vector<uint8_t> block(8192);
    std::vector<asmgr::AsmReadRequest> r(1);
    r[0].file_offset = at;
    r[0].buffer = absl::MakeSpan(block);
    ASSERT_OK(dg->Read(f->file.number, absl::MakeSpan(r), nullptr));
    block[offset] ^= 0x40;
    std::vector<asmgr::AsmWriteRequest> w(1);
    w[0].file_offset = at;
    w[0].data = block;
    asmgr::AsmIoResult res;
    ASSERT_OK(dg->Write(f->file.number, absl::MakeSpan(w), &res));
    ASSERT_OK(rack_->Close());
    rack_.reset();
  }

  FileTable table_;
};

TEST_F(PersistTest, TablesAndCommittedRowsSurviveReopen) {
  Run("create table t (id number, name varchar2(128), d date)");
  Run("insert into t values (1, 'one', null)");
  Run("insert into t select object_id, object_name, created from all_objects");
  Run("commit");
  Run("create table c as select object_id, owner from all_objects where object_id < 1000");
  // What the committed work leaves (the engine's reads see other sessions'
  // uncommitted rows, so the figures are taken before those exist).
  const int64_t all = std::stoll(One("select count(*) from t"));
  const int64_t bumped = std::stoll(One("select count(*) from t where id >= 100 and id < 200"));
  const int64_t deleted = std::stoll(One("select count(*) from t where id >= 200 and id < 300"));
  const std::string expect_keep = One("select count(*) from all_objects where object_id < 500");
  const std::string expect_t = std::to_string(all - deleted);
  const std::string expect_sum = std::to_string(bumped);
  Run("create global temporary table g (x number) on commit preserve rows");
  Run("insert into g values (7)");
  Run("commit");
  Run("create table gone (x number)");
  Run("drop table gone purge");
  Run("create table emptied (x number)");
  Run("insert into emptied values (1)");
  Run("commit");
  Run("truncate table emptied");
  Run("update t set name = 'uno' where id = 1");
  Run("delete from t where id >= 100 and id < 200");
  Run("commit");
  Run("insert into t values (-1, 'never committed', null)");
  Run("rollback");
  const std::string t_count = One("select count(*) from t");
  const std::string c_count = One("select count(*) from c");
  ASSERT_NE(t_count, "0");
  ASSERT_OK(Reopen());
  EXPECT_EQ(One("select count(*) from t"), t_count);
  EXPECT_EQ(One("select name from t where id = 1"), "uno");
  EXPECT_EQ(One("select count(*) from t where id >= 100 and id < 200"), "0");
  EXPECT_EQ(One("select count(*) from t where id = -1"), "0");
  EXPECT_EQ(One("select count(*) from c"), c_count);
  EXPECT_EQ(One("select count(*) from g"), "0");  // the definition, not the rows
  EXPECT_EQ(One("select count(*) from emptied"), "0");
  absl::StatusOr<StatementResult> gone = s_->Execute("select count(*) from gone");
  EXPECT_THAT(std::string(gone.status().message()), HasSubstr("ORA-00942"));
  EXPECT_THAT(std::string(s_->Execute("create table t (x number)").status().message()),
              HasSubstr("ORA-00955"));
  // New space after reopen never overlaps the old segments.
  Run("create table more as select object_id from all_objects");
  Run("insert into t select object_id, 'again', null from all_objects");
  Run("insert into g values (8)");
  Run("commit");
  EXPECT_EQ(One("select count(*) from more"), "5000");
  EXPECT_EQ(One("select count(*) from t"), std::to_string(std::stoll(t_count) + 5000));
  EXPECT_EQ(One("select count(*) from c"), c_count);
  EXPECT_EQ(One("select count(*) from g"), "1");
  ASSERT_OK(Reopen());
  EXPECT_EQ(One("select count(*) from t"), std::to_string(std::stoll(t_count) + 5000));
  EXPECT_EQ(One("select count(*) from more"), "5000");
  EXPECT_EQ(One("select sum(object_id) from more"), One("select sum(object_id) from all_objects"));
  EXPECT_TRUE(db_->recovery_actions().empty());
}

TEST_F(PersistTest, ADamagedDictionaryCopyIsSurvivedBothAreRefused) {
  Run("create table t (x number)");
  Run("insert into t values (42)");
  Run("commit");
  ASSERT_OK(Reopen());  // both copies now hold the same generation
  FlipDictionaryByte(0, 100);
  ASSERT_OK(Reopen());
  EXPECT_EQ(One("select x from t"), "42");
  const std::vector<std::string> actions = db_->recovery_actions();
  ASSERT_EQ(actions.size(), 1u);
  EXPECT_THAT(actions[0], HasSubstr("data dictionary copy 0"));
  EXPECT_THAT(actions[0], HasSubstr("checksum mismatch"));
  EXPECT_THAT(actions[0], HasSubstr("using data dictionary copy 1"));
  // The open rewrote both copies: the damage is gone.
  ASSERT_OK(Reopen());
  EXPECT_TRUE(db_->recovery_actions().empty());
  EXPECT_EQ(One("select x from t"), "42");
  // Both copies damaged: a clear refusal, never an empty dictionary.
  FlipDictionaryByte(0, 100);
  FlipDictionaryByte(1, 60);
  absl::Status st = Reopen();
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), absl::StatusCode::kDataLoss);
  const std::string msg(st.message());
  EXPECT_THAT(msg, HasSubstr("data dictionary cannot be read"));
  EXPECT_THAT(msg, HasSubstr("+DATA/ORCL/DATAFILE/SYSTEM"));
  EXPECT_THAT(msg, HasSubstr("copy 0"));
  EXPECT_THAT(msg, HasSubstr("copy 1"));
}

// Index definitions are in the dictionary and their blocks in the data files:
// a clean reopen reads them back (no rebuild), and they go on being
// maintained. A dictionary of an unknown format version is refused, naming it.
TEST_F(PersistTest, IndexesSurviveReopen) {
  Run("create table t (id number, name varchar2(128))");
  Run("create unique index t_id on t (id)");
  Run("create index t_name on t (name) tablespace system");
  Run("insert into t select object_id, object_name from all_objects");
  Run("commit");
  ASSERT_OK(Reopen());
  EXPECT_TRUE(db_->recovery_actions().empty());
  EXPECT_EQ(Run("analyze table t validate structure cascade").feedback, "Table analyzed.");
  EXPECT_THAT(s_->Execute("insert into t values (100, 'dup')").status().message(),
              HasSubstr("ORA-00001: unique constraint (CELLSIM.T_ID) violated"));
  Run("delete from t where id < 1000");
  Run("insert into t values (100, 'back')");
  Run("commit");
  ASSERT_OK(Reopen());
  EXPECT_EQ(Run("analyze table t validate structure cascade").feedback, "Table analyzed.");
  EXPECT_EQ(One("select count(*) from t where id < 1000"), "1");
  Run("drop index t_name");
  ASSERT_OK(Reopen());
  EXPECT_THAT(s_->Execute("drop index t_name").status().message(), HasSubstr("ORA-01418"));
  // Both copies' format version bytes (offset 8) changed: refused, named.
  FlipDictionaryByte(0, 8);
  FlipDictionaryByte(1, 8);
  absl::Status st = Reopen();
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(std::string(st.message()), HasSubstr("format version 72"));
  EXPECT_THAT(std::string(st.message()), HasSubstr("reads versions 1 to 11"));
}

TEST_F(PersistTest, NumberScaleNotNullAndKeysSurviveReopen) {
  Run("create table p (a number(5,2) not null, b varchar2(3) primary key)");
  Run("insert into p values (1.005, 'x')");
  Run("commit");
  ASSERT_OK(Reopen());
  EXPECT_EQ(One("select a from p"), "1.01");
  Run("insert into p values (3.14159, 'y')");
  EXPECT_EQ(One("select max(a) from p"), "3.14");
  EXPECT_THAT(Error("insert into p values (1000, 'z')"), HasSubstr("ORA-01438"));
  EXPECT_THAT(Error("insert into p (b) values ('z')"), HasSubstr("ORA-01400"));
  EXPECT_THAT(Error("insert into p values (1, 'x')"), HasSubstr("ORA-00001"));
}

// A column's DEFAULT: what an INSERT leaving the column out (or giving
// DEFAULT) and SET c = DEFAULT store, kept in the dictionary (format 4,
// written only once a column has a DEFAULT: the test above still finds 3)
// with its text as USER_TAB_COLUMNS shows it; SYSDATE is the statement's.
TEST_F(PersistTest, ColumnDefaultsSurviveReopen) {
  Run("create table d (id number, name varchar2(10) default 'none', "
      "n number(5,2) default 1.234 not null, at date default sysdate - 1)");
  Run("insert into d (id) values (1)");
  Run("insert into d values (2, default, default, default)");
  Run("insert into d (id) select level + 10 from dual connect by level <= 3");
  Run("commit");
  ASSERT_OK(Reopen());
  EXPECT_EQ(One("select count(*) from d where name = 'none' and n = 1.23 and "
                "at between sysdate - 2 and sysdate"),
            "5");
  Run("insert into d (id, name) values (3, null)");
  EXPECT_EQ(One("select nvl(name, '(null)') || n from d where id = 3"), "(null)1.23");
  Run("update d set name = default, n = 5 where id = 3");
  EXPECT_EQ(One("select name || n from d where id = 3"), "none5");
  Run("merge into d using (select 20 id from dual) s on (d.id = s.id) "
      "when not matched then insert (id) values (s.id)");
  EXPECT_EQ(One("select name || n from d where id = 20"), "none1.23");
  EXPECT_EQ(One("select data_default from user_tab_columns where table_name = 'D' and "
                "column_name = 'N'"),
            "1.234");
  EXPECT_EQ(One("select count(*) from user_tab_columns where table_name = 'D' and "
                "data_default is null"),
            "1");
  // What Oracle refuses, at the statement that says it.
  EXPECT_THAT(Error("create table e (a number default b)"), HasSubstr("ORA-00984"));
  EXPECT_THAT(Error("create table e (a number default (select 1 from dual))"),
              HasSubstr("ORA-22818"));
  EXPECT_THAT(Error("create table e (a number default rownum)"), HasSubstr("ORA-00976"));
  EXPECT_THAT(Error("create table e (a number not null default 1)"), HasSubstr("ORA-00907"));
  EXPECT_THAT(Error("insert into d (id, id) values (1, 2)"), HasSubstr("ORA-00957"));
  Run("create table e (a number default 'x')");  // as Oracle: refused only when used
  EXPECT_THAT(Error("insert into e values (default)"), HasSubstr("ORA-01722"));
  Run("commit");
  // Both copies' version bytes changed: format 10, N's NOT NULL
  // constraint's name (74 = 10 ^ 0x40), refused and named.
  FlipDictionaryByte(0, 8);
  FlipDictionaryByte(1, 8);
  absl::Status st = Reopen();
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(std::string(st.message()), HasSubstr("format version 74"));
}

TEST_F(PersistTest, ADatabaseWithoutADictionaryOpens) {
  // No table was ever created: the SYSTEM file's reserved blocks are as the
  // creation engine formatted them (like a database made before issue 15).
  ASSERT_OK(Reopen());
  EXPECT_TRUE(db_->recovery_actions().empty());
  Run("create table t (x number)");
  Run("insert into t values (1)");
  Run("commit");
  ASSERT_OK(Reopen());
  EXPECT_EQ(One("select count(*) from t"), "1");
}

TEST_F(PersistTest, ReadsAfterReopenComeFromTheDataFiles) {
  Run("create table t as select * from all_objects");
  const std::string sum = One("select sum(object_id) from t");
  ASSERT_OK(Reopen());
  const int64_t reads0 = db_->SystemStats()[stats::Stat::kPhysicalReadTotalIoRequests];
  EXPECT_EQ(One("select sum(object_id) from t"), sum);
  EXPECT_GT(db_->SystemStats()[stats::Stat::kPhysicalReadTotalIoRequests], reads0);
  // Cached now: a second scan reads nothing.
  const int64_t reads1 = db_->SystemStats()[stats::Stat::kPhysicalReadTotalIoRequests];
  EXPECT_EQ(One("select sum(object_id) from t"), sum);
  EXPECT_EQ(db_->SystemStats()[stats::Stat::kPhysicalReadTotalIoRequests], reads1);
}

// A table block overwritten on every copy behind the database's back
// (garbage, or another block's bytes: a misdirected write) is ORA-01578 naming
// the file and block, not an empty block whose rows silently vanish (a
// 5,000-row table once read back 1,313 rows after random writes into its data
// file). With one copy bad, ASM serves the mirror (BadBlock tests).
TEST_F(PersistTest, AnOverwrittenTableBlockIsORA01578NotLostRows) {
  Run("create table t as select * from all_objects");
  const std::string file = One("select header_file from user_segments where segment_name = 'T'");
  const uint32_t block = static_cast<uint32_t>(
      std::stoul(One("select header_block from user_segments where segment_name = 'T'")));
  const FileTable t = db_->file_table();
  const DataFile* users = testing::FileOf(t, "USERS");
  ASSERT_NE(users, nullptr);
  ASSERT_EQ(file, std::to_string(users->file_number));
  for (int variant = 0; variant < 2; ++variant) {
    SCOPED_TRACE(variant == 0 ? "garbage" : "the next block's bytes");
    Shutdown();
    ASSERT_OK_AND_ASSIGN(rack_, asmgr::Rack::Open(io_.get(), SystemClock(), dir()));
    ASSERT_OK_AND_ASSIGN(asmgr::DiskGroup * dg, rack_->disk_group(users->file.disk_group));
    std::vector<uint8_t> bytes(8192, 0x43);  // no checksum flag: ASM cannot tell
    if (variant == 1) {
      std::vector<asmgr::AsmReadRequest> r(1);
      r[0].file_offset = (uint64_t{block} + 1) * 8192;
      r[0].buffer = absl::MakeSpan(bytes);
      ASSERT_OK(dg->Read(users->file.number, absl::MakeSpan(r), nullptr));
    }
    std::vector<asmgr::AsmWriteRequest> w(1);
    w[0].file_offset = uint64_t{block} * 8192;
    w[0].data = bytes;
    asmgr::AsmIoResult res;
    ASSERT_OK(dg->Write(users->file.number, absl::MakeSpan(w), &res));
    ASSERT_OK(rack_->Close());
    rack_.reset();
    ASSERT_OK(Reopen());
    absl::StatusOr<StatementResult> r = s_->Execute("select count(*) from t");
    ASSERT_FALSE(r.ok()) << r->result_rows[0][0];
    EXPECT_EQ(r.status().code(), absl::StatusCode::kDataLoss);
    const std::string msg(r.status().message());
    EXPECT_THAT(msg, HasSubstr(fmt::format("blocks of data file {} ({})", file, users->file.name)));
    EXPECT_THAT(msg, HasSubstr(fmt::format("ORA-01578: ORACLE data block corrupted: block {} of {} "
                                           "fails its checksum (or holds no data block of its "
                                           "address) on every copy tried",
                                           block, users->file.name)));
  }
}

// Instance recovery in-process: the database is abandoned without Close (what
// kill -9 leaves: the data files as of the last checkpoint, the online logs as
// LGWR wrote them); the next open rolls forward and back.
// INSERT ALL / FIRST: several rows from one SELECT FROM DUAL, a WHEN per
// row with its ELSE, FIRST's first TRUE WHEN, the subquery's columns where
// an INTO has no VALUES, one NEXTVAL per subquery row; a failing row undoes
// every INTO's rows; what committed survives a crash (its redo), what did
// not is rolled back.
TEST_F(PersistTest, MultitableInsertsAreOraclesAndRecoverAfterACrash) {
  Run("create table lo (id number not null, s varchar2(10))");
  Run("create table hi (id number, s varchar2(10))");
  Run("create sequence q");
  EXPECT_EQ(Run("insert all into lo values (1, 'one') into lo values (2, 'two') into hi (id) "
                "values (3) select * from dual").feedback,
            "3 rows created.");
  EXPECT_EQ(Run("insert all when id < 3 then into lo values (id + 10, s) when id >= 2 then into hi "
                "else into hi values (-1, 'else') select id, s from lo").rows,
            3);  // 1 -> lo; 2 -> lo and hi (no VALUES: the subquery's id, s)
  EXPECT_EQ(Run("insert first when id > 10 then into hi values (id, 'big') when id > 0 then into "
                "lo values (id + 100, s) select id, s from lo where id < 20").rows,
            4);  // 1, 2 -> lo (101, 102); 11, 12 -> hi
  EXPECT_EQ(Run("select count(*), sum(id) from lo").result_rows, (Cells{{"6", "229"}}));
  EXPECT_EQ(Run("select count(*), sum(id) from hi").result_rows, (Cells{{"4", "28"}}));
  // One draw per subquery row, whichever INTOs take it.
  Run("insert all into lo values (q.nextval + 1000, 'seq') into hi values (q.nextval + 1000, 'seq') "
      "select level from dual connect by level <= 3");
  EXPECT_EQ(One("select count(*) from lo l join hi h on l.id = h.id where l.s = 'seq'"), "3");
  // A row that fails (NULL into lo's NOT NULL id) undoes the statement's rows in both tables.
  EXPECT_THAT(Error("insert all into hi values (id, 'undone') into lo values (case when id = 2 then "
                    "null else id end, 'undone') select level id from dual connect by level <= 3"),
              HasSubstr("ORA-01400"));
  EXPECT_EQ(One("select count(*) from hi where s = 'undone'"), "0");
  // Errors before any row: each INTO's table and columns.
  EXPECT_THAT(Error("insert all into lo values (1, 'x') into nope values (1) select * from dual"),
              HasSubstr("ORA-00942"));
  EXPECT_THAT(Error("insert all into lo values (1, 'x', 3) select * from dual"), HasSubstr("ORA-00913"));
  EXPECT_THAT(Error("insert first into lo values (1, 'x') select * from dual"), HasSubstr("ORA-00905"));
  EXPECT_THAT(Error("insert all into lo values (1, 'x')"), HasSubstr("ORA-00928"));
  EXPECT_THAT(Error("insert all into lo valuse (1, 'x') select * from dual"),
              HasSubstr("expected VALUES, another INTO or the subquery"));
  EXPECT_THAT(Error("insert al into lo values (1, 'x')"), HasSubstr("expected INTO, ALL or FIRST"));
  EXPECT_THAT(Error("insert all into lo values (id, 'x') select q.nextval id from dual"),
              HasSubstr("ORA-02287"));
  Run("commit");
  Run("insert all into lo values (-7, 'open') into hi values (-7, 'open') "
      "select * from dual");
  Crash();
  ASSERT_OK(Reopen());
  EXPECT_EQ(Run("select count(*), sum(id) from lo").result_rows, (Cells{{"9", "3235"}}));
  EXPECT_EQ(Run("select count(*), sum(id) from hi").result_rows, (Cells{{"7", "3034"}}));
}

TEST_F(PersistTest, OpenAfterACrashRecoversCommittedAndRollsBackTheRest) {
  std::unique_ptr<Session> other = db_->NewSession();
  Run("create table t (id number, v number, pad varchar2(200))");
  Run("create table keep (id number)");
  // Indexes on both: after the crash they must agree with the recovered rows.
  Run("create unique index t_id on t (id)");
  Run("create index t_v on t (v, pad)");
  Run("create index keep_id on keep (id)");
  Run("insert into t select object_id, 0, object_name from all_objects");
  Run("commit");
  // What the committed work leaves (the engine's reads see other sessions'
  // uncommitted rows, so the figures are taken before those exist).
  const int64_t all = std::stoll(One("select count(*) from t"));
  const int64_t bumped = std::stoll(One("select count(*) from t where id >= 100 and id < 200"));
  const int64_t deleted = std::stoll(One("select count(*) from t where id >= 200 and id < 300"));
  const std::string expect_keep = One("select count(*) from all_objects where object_id < 500");
  const std::string expect_t = std::to_string(all - deleted);
  const std::string expect_sum = std::to_string(bumped);
  Run("create global temporary table g (x number) on commit preserve rows");
  Run("insert into g values (1)");
  Run("commit");
  // Uncommitted in `other`: an insert, an update and a delete of committed rows.
  ASSERT_TRUE(other->Execute("insert into t values (-5, -5, 'uncommitted')").ok());
  ASSERT_TRUE(other->Execute("update t set v = 99 where id < 50").ok());
  ASSERT_TRUE(other->Execute("delete from t where id >= 50 and id < 60").ok());
  ASSERT_TRUE(other->Execute("select id from t where id >= 300 and id < 310 for update").ok());
  // Committed in this session afterwards, touching other rows.
  Run("update t set v = v + 1 where id >= 100 and id < 200");
  Run("delete from t where id >= 200 and id < 300");
  Run("insert into keep select object_id from all_objects where object_id < 500");
  // A failed statement: its rows are undone, the transaction goes on.
  EXPECT_FALSE(s_->Execute("insert into keep select 1000 / (object_id - 400) from all_objects").ok());
  Run("commit");
  // A transaction of locks only (its lock-row redo, then its commit).
  Run("select id from t where id >= 400 and id < 410 for update");
  Run("commit");
  // Rolled back before the crash.
  Run("insert into keep values (-1)");
  Run("rollback");
  // Crash: nothing is closed, the log buffer's uncommitted tail is lost.
  other.reset();
  Crash();
  ASSERT_OK(Reopen());
  const std::vector<std::string> actions = db_->recovery_actions();
  ASSERT_FALSE(actions.empty());
  EXPECT_THAT(actions[0], HasSubstr("instance recovery"));
  std::printf("%s\n", actions[0].c_str());
  EXPECT_EQ(One("select count(*) from t where id >= 0"), expect_t);
  EXPECT_EQ(One("select count(*) from t where id < 0"), "0");
  EXPECT_EQ(One("select sum(v) from t where id >= 0"), expect_sum);
  EXPECT_EQ(One("select count(*) from t where v = 99"), "0");
  EXPECT_EQ(One("select count(*) from keep"), expect_keep);
  EXPECT_EQ(One("select count(*) from keep where id = -1"), "0");
  EXPECT_EQ(One("select count(*) from g"), "0");
  bool rebuilt = false;
  for (const std::string& a : actions) rebuilt |= a.find("3 indexes rebuilt") != std::string::npos;
  EXPECT_TRUE(rebuilt);
  EXPECT_EQ(Run("analyze table t validate structure cascade").feedback, "Table analyzed.");
  EXPECT_EQ(Run("analyze table keep validate structure cascade").feedback, "Table analyzed.");
  EXPECT_THAT(s_->Execute("insert into t values (150, 0, 'taken')").status().message(),
              HasSubstr("ORA-00001"));
  // And it goes on: a clean close after recovery needs none.
  Run("insert into keep values (7)");
  Run("commit");
  ASSERT_OK(Reopen());
  EXPECT_TRUE(db_->recovery_actions().empty());
  EXPECT_EQ(One("select count(*) from keep"), std::to_string(std::stoll(expect_keep) + 1));
}

// Damaged media (a byte flipped on a disk, a log member overwritten): what
// the database reads at open and in instance recovery comes from a copy that
// is whole, as in Oracle. Redo: an ASM mirror copy (ASM checks a redo block's
// checksum and repairs the bad copy), else another member of the log group.
// The control files, dictionary copies and the checkpoint's undo (raw bytes
// under the database's own checksums): a mirror copy read on its own.
// Write-through cells, so that a byte flipped in a grid disk file is what the
// next read gets.
class MediaDamageTest : public testing::SqlTest {
 protected:
  static constexpr uint64_t kRedoBlock = 512;
  void Configure(DatabaseOptions* o) const override { o->all_objects_rows = 2000; }
  asmgr::RackConfig MakeRackConfig() const override {
    return testing::SmallRack(asmgr::Redundancy::kNormal, cell::FlashCacheMode::kWriteThrough);
  }

  // Committed inserts, each its own transaction, then a crash; returns the
  // rows they left. `group_` is the CURRENT log group, `last_block_` its last
  // redo block of the CURRENT sequence (it holds the last commit record).
  std::string CommitThenCrash(bool archivelog = false) {
    if (archivelog) Run("alter database archivelog");
    Run("create table t (id number, pad varchar2(100))");
    for (int i = 0; i < 6; ++i) {
      Run(fmt::format("insert into t select object_id + {}, object_name from all_objects "
                      "where object_id < 300", i * 10000));
      Run("commit");
    }
    const std::string rows = One("select count(*) from t");
    last_commit_rows_ = std::stoll(One("select count(*) from t where id >= 50000"));
    const uint32_t group = static_cast<uint32_t>(
        std::stoul(One("select group# from v$log where status = 'CURRENT'")));
    const uint32_t seq = static_cast<uint32_t>(
        std::stoul(One("select sequence# from v$log where status = 'CURRENT'")));
    seq_ = seq;
    const FileTable table = db_->file_table();
    Crash();
    for (const LogGroup& g : table.log_groups) {
      if (g.group == group) group_ = g;
    }
    EXPECT_EQ(group_.members.size(), 2u);
    absl::StatusOr<std::unique_ptr<asmgr::Rack>> rack =
        asmgr::Rack::Open(io_.get(), SystemClock(), dir());
    EXPECT_OK(rack.status());
    if (!rack.ok()) return rows;
    rack_ = *std::move(rack);
    const std::vector<uint8_t> log = MemberBytes(0);
    for (uint64_t b = 2; (b + 1) * kRedoBlock <= log.size(); ++b) {
      uint32_t s = 0;
      std::memcpy(&s, &log[b * kRedoBlock + 8], 4);
      if (log[b * kRedoBlock] != format::kRedoSignature || s != seq) break;
      last_block_ = b;
    }
    EXPECT_GT(last_block_, 20u);
    return rows;
  }

  asmgr::DiskGroup* GroupOf(size_t member) {
    absl::StatusOr<asmgr::DiskGroup*> dg = rack_->disk_group(group_.members[member].file.disk_group);
    EXPECT_OK(dg.status());
    return *dg;
  }
  std::vector<uint8_t> MemberBytes(size_t member) {
    return testing::ReadAsmFile(GroupOf(member), group_.members[member].file.number,
                                group_.size_bytes);
  }
  // Overwrites redo block `block` of `member` (every ASM copy) with itself, one
  // byte flipped: the member holds a bad block there.
  void DamageMember(size_t member, uint64_t block) {
    std::vector<uint8_t> b(kRedoBlock);
    std::vector<asmgr::AsmReadRequest> r(1);
    r[0].file_offset = block * kRedoBlock;
    r[0].buffer = absl::MakeSpan(b);
    ASSERT_OK(GroupOf(member)->Read(group_.members[member].file.number, absl::MakeSpan(r), nullptr));
    b[100] ^= 0x40;
    std::vector<asmgr::AsmWriteRequest> w(1);
    w[0].file_offset = block * kRedoBlock;
    w[0].data = b;
    asmgr::AsmIoResult res;
    ASSERT_OK(GroupOf(member)->Write(group_.members[member].file.number, absl::MakeSpan(w), &res));
  }
  // Flips a byte of the primary ASM copy of redo block `block` of `member`,
  // in its grid disk's file (a bit gone bad on one disk).
  void DamagePrimaryCopy(size_t member, uint64_t block) {
    DamagePrimaryCopy(group_.members[member].file, block * kRedoBlock + 100);
  }
  // Flips the byte at `offset` of ASM file `file`'s primary copy.
  void DamagePrimaryCopy(const AsmFileRef& file, uint64_t offset) {
    ASSERT_OK_AND_ASSIGN(asmgr::DiskGroup * dg, rack_->disk_group(file.disk_group));
    ASSERT_OK_AND_ASSIGN(std::vector<asmgr::Extent> x, dg->ExtentMap(file.number, offset, 512));
    ASSERT_EQ(x.size(), 1u);
    ASSERT_GE(x[0].copies.size(), 2u);
    const asmgr::ExtentCopy& c = x[0].copies[0];
    ASSERT_OK_AND_ASSIGN(cell::CellDescription d, rack_->cell(c.cell)->Describe());
    const std::string path =
        fmt::format("{}/{}/{}.img", dir(), d.name, d.grid_disks[c.grid_disk].name);
    const uint64_t at = c.disk_offset + offset - x[0].file_offset;
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(static_cast<std::streamoff>(at));
    const int ch = f.get();
    f.seekp(static_cast<std::streamoff>(at));
    f.put(static_cast<char>(ch ^ 0x40));
  }
  void OpenRack() {
    ASSERT_OK_AND_ASSIGN(rack_, asmgr::Rack::Open(io_.get(), SystemClock(), dir()));
  }
  bool Told(const std::string& what) {
    for (const std::string& a : db_->recovery_actions()) {
      if (a.find(what) != std::string::npos) return true;
    }
    return false;
  }

  LogGroup group_;
  uint32_t seq_ = 0;
  uint64_t last_block_ = 0;
  int64_t last_commit_rows_ = 0;
};

// The last commit's redo block is bad in the first member, the one before it
// in the second: neither member alone holds the whole redo, the two together
// do.
TEST_F(MediaDamageTest, ABadBlockInOneMemberIsReadFromTheOther) {
  const std::string rows = CommitThenCrash();
  DamageMember(0, last_block_);
  DamageMember(1, last_block_ - 1);
  ASSERT_OK(Reopen());
  EXPECT_EQ(One("select count(*) from t"), rows);
  const std::vector<std::string> actions = db_->recovery_actions();
  ASSERT_FALSE(actions.empty());
  EXPECT_THAT(actions[0], HasSubstr("instance recovery"));
  bool told = false;
  for (const std::string& a : actions) {
    std::printf("%s\n", a.c_str());
    told |= a.find(fmt::format("block {}", last_block_)) != std::string::npos &&
            a.find(group_.members[1].file.name) != std::string::npos;
  }
  EXPECT_TRUE(told) << fmt::format("{}", fmt::join(actions, "\n"));
}

// ARCH copies such a log too, each block from a member that holds it whole
// (without that, reading each member whole fails, and the log could never be
// archived, nor its group reused).
TEST_F(MediaDamageTest, ALogBadInEachMemberAtAnotherBlockIsArchivedWhole) {
  const std::string rows = CommitThenCrash(/*archivelog=*/true);
  DamageMember(0, last_block_);
  DamageMember(1, last_block_ - 1);
  ASSERT_OK(Reopen());  // recovery, then ARCH copies the log it ended in
  EXPECT_EQ(One("select count(*) from t"), rows);
  EXPECT_EQ(One(fmt::format("select count(*) from v$archived_log where sequence# = {}", seq_)), "1");
  // ARCH timed every read as `log archive I/O`: each member's whole read (both
  // fail), the block-by-block assembly, the headers' read, and the write; 2
  // (a read, a write) for each other log archived since the open.
  const uint64_t others =
      std::stoull(One(fmt::format("select count(*) from v$archived_log where sequence# > {}", seq_)));
  EXPECT_EQ(db_->SystemWaits()[stats::Wait::kLogArchiveIo].count, 5 + 2 * others);
  const StatementResult r = Run(fmt::format(
      "select name, blocks from v$archived_log where sequence# = {}", seq_));
  ASSERT_EQ(r.result_rows.size(), 1u);
  // A log ARCH finds at open is copied whole (docs/redo.md).
  EXPECT_EQ(std::stoull(r.result_rows[0][1]), group_.size_bytes / kRedoBlock);
  // Block for block what LGWR wrote: the undamaged blocks of the members.
  const std::string name = r.result_rows[0][0];
  ASSERT_OK_AND_ASSIGN(asmgr::DiskGroup * reco, rack_->disk_group("RECO"));
  uint32_t number = 0;
  for (const asmgr::FileInfo& f : reco->ListFiles()) {
    if (name.find(f.name) != std::string::npos) number = f.number;
  }
  ASSERT_NE(number, 0u);
  const std::vector<uint8_t> archived =
      testing::ReadAsmFile(reco, number, (last_block_ + 1) * kRedoBlock);
  std::vector<uint8_t> m0 = MemberBytes(0), m1 = MemberBytes(1);
  for (uint64_t b = 2; b <= last_block_; ++b) {
    const std::vector<uint8_t>& good = b == last_block_ ? m1 : m0;
    ASSERT_TRUE(std::equal(good.begin() + b * kRedoBlock, good.begin() + (b + 1) * kRedoBlock,
                           archived.begin() + b * kRedoBlock))
        << "block " << b;
  }
}

// The same block bad on the primary ASM copy of both members: ASM serves it
// from the mirror copies (and rewrites the bad ones).
TEST_F(MediaDamageTest, ABadBlockOnOneDiskIsReadFromItsMirror) {
  const std::string rows = CommitThenCrash();
  DamagePrimaryCopy(0, last_block_);
  DamagePrimaryCopy(1, last_block_);
  ASSERT_OK(Reopen());
  EXPECT_EQ(One("select count(*) from t"), rows);
  // Repaired: every copy of the file reads the same again.
  Shutdown();
  ASSERT_OK_AND_ASSIGN(rack_, asmgr::Rack::Open(io_.get(), SystemClock(), dir()));
  for (size_t m = 0; m < 2; ++m) {
    asmgr::ScrubResult r;
    ASSERT_OK(GroupOf(m)->Scrub(asmgr::ScrubOptions{}, &r));
    EXPECT_TRUE(r.mismatches.empty()) << group_.members[m].file.name;
  }
}

// Every member bad at the same block: the redo ends there, as after a write
// cut short; the commits before it are kept and the database opens.
TEST_F(MediaDamageTest, ABlockBadInEveryMemberEndsTheRedo) {
  const std::string rows = CommitThenCrash();
  DamageMember(0, last_block_);
  DamageMember(1, last_block_);
  ASSERT_OK(Reopen());
  EXPECT_EQ(One("select count(*) from t"), std::to_string(std::stoll(rows) - last_commit_rows_));
}

// Both copies of the dictionary damaged on the disk under their primary ASM
// copies: each is read from its mirror, and the database opens as it was.
TEST_F(MediaDamageTest, DictionaryCopiesDamagedOnOneDiskAreReadFromTheirMirrors) {
  Run("create table t (id number)");
  Run("insert into t select object_id from all_objects");
  Run("commit");
  const std::string rows = One("select count(*) from t");
  const FileTable table = db_->file_table();
  Shutdown();
  OpenRack();
  const DataFile* system = testing::FileOf(table, "SYSTEM");
  ASSERT_NE(system, nullptr);
  DamagePrimaryCopy(system->file, 2 * 8192 + 100);         // dictionary copy 0
  DamagePrimaryCopy(system->file, (2 + 63) * 8192 + 100);  // dictionary copy 1
  ASSERT_OK(Reopen());
  EXPECT_EQ(One("select count(*) from t"), rows);
  EXPECT_TRUE(Told("data dictionary copy 0 (blocks 2-64")) << "no action names copy 0";
  EXPECT_TRUE(Told("read from mirror copy 1"));
}

// The undo a checkpoint saved for a transaction active then, damaged on the
// disk under its primary ASM copy: recovery reads it from the mirror and
// rolls the transaction back.
TEST_F(MediaDamageTest, CheckpointUndoDamagedOnOneDiskIsReadFromItsMirror) {
  Run("create table t (id number)");
  Run("insert into t select object_id from all_objects");
  Run("commit");
  const std::string rows = One("select count(*) from t");
  std::unique_ptr<Session> other = db_->NewSession();
  ASSERT_OK(other->Execute("update t set id = -id").status());
  ASSERT_OK(other->Execute("insert into t select -object_id from all_objects").status());
  Run("alter system switch logfile");  // a checkpoint saves `other`'s undo
  const FileTable table = db_->file_table();
  other.reset();
  Crash();
  OpenRack();
  // Both halves of UNDOTBS1 the checkpoint could have used.
  const DataFile* undo = testing::FileOf(table, "UNDOTBS1");
  ASSERT_NE(undo, nullptr);
  const uint64_t n = undo->size_bytes / 8192, half = (n - 128) / 2;
  DamagePrimaryCopy(undo->file, 128 * 8192 + 100);
  DamagePrimaryCopy(undo->file, (128 + half) * 8192 + 100);
  ASSERT_OK(Reopen());
  EXPECT_EQ(One("select count(*) from t"), rows);
  EXPECT_EQ(One("select count(*) from t where id < 0"), "0");
  EXPECT_TRUE(Told("read from mirror copy 1"));
}

// The header and both slots of both control files damaged on the disk under
// their primary ASM copies: each slot is read from a mirror, the newest table is the one
// the database opens with (the tablespace created last is there), and the
// bad copies are rewritten.
TEST_F(MediaDamageTest, ControlFileSlotsDamagedOnOneDiskAreReadFromTheirMirrors) {
  Run("create tablespace last_one datafile '+DATA' size 8m");
  Shutdown();
  OpenRack();
  std::vector<AsmFileRef> control_files;
  for (const char* name : {"DATA", "RECO"}) {
    ASSERT_OK_AND_ASSIGN(asmgr::DiskGroup * dg, rack_->disk_group(name));
    for (const asmgr::FileInfo& f : dg->ListFiles()) {
      if (f.type == asmgr::FileType::kControlFile) control_files.push_back({name, f.number, f.name});
    }
  }
  ASSERT_EQ(control_files.size(), 2u);
  for (const AsmFileRef& f : control_files) {
    DamagePrimaryCopy(f, 100);  // the header block
    for (uint32_t slot = 0; slot < 2; ++slot) {
      DamagePrimaryCopy(f, uint64_t{1 + slot * internal::kControlFileSlotBlocks} *
                                   internal::kControlFileBlockSize + 100);
    }
  }
  ASSERT_OK(Reopen());
  EXPECT_EQ(One("select count(*) from dba_tablespaces where tablespace_name = 'LAST_ONE'"), "1");
  EXPECT_TRUE(Told("as ASM first read it; read from mirror copy 1"));
  // Rewritten: the next open reads every slot whole at once.
  ASSERT_OK(Reopen());
  EXPECT_FALSE(Told("read from mirror copy"));
}

// Damage anywhere on one failure group is what NORMAL redundancy survives: a
// byte flipped every 4 KiB of what is allocated in every grid disk of one
// cell, after commits, a checkpoint that saved an active transaction's undo,
// more commits and a crash. The database opens, recovers every commit, rolls
// the active transaction back, and its table and index agree.
TEST_F(MediaDamageTest, ABitFlippedEvery4KiBOfOneCellIsSurvived) {
  Run("create table t (id number, pad varchar2(100))");
  Run("create index t_id on t (id)");
  Run("insert into t select object_id, object_name from all_objects");
  Run("commit");
  std::unique_ptr<Session> other = db_->NewSession();
  ASSERT_OK(other->Execute("update t set id = -id where id < 500").status());
  Run("alter system switch logfile");
  for (int i = 1; i <= 5; ++i) {
    Run(fmt::format("insert into t select object_id + {}, object_name from all_objects", i * 100000));
    Run("commit");
  }
  const std::string rows = One("select count(*) from t");
  other.reset();
  Crash();
  uint64_t flipped = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir() + "/cel01")) {
    const std::string name = e.path().filename().string();
    if (name.find("_CD_") == std::string::npos) continue;  // grid disks only
    const int fd = ::open(e.path().c_str(), O_RDWR);
    ASSERT_GE(fd, 0) << e.path();
    const off_t size = ::lseek(fd, 0, SEEK_END);
    for (off_t at = 0; at < size;) {
      const off_t data = ::lseek(fd, at, SEEK_DATA);
      if (data < 0) break;
      const off_t hole = ::lseek(fd, data, SEEK_HOLE);
      for (off_t o = data + 100; o < hole; o += 4096, ++flipped) {
        uint8_t b = 0;
        ASSERT_EQ(::pread(fd, &b, 1, o), 1);
        b ^= 0x5A;
        ASSERT_EQ(::pwrite(fd, &b, 1, o), 1);
      }
      at = hole;
    }
    ::close(fd);
  }
  EXPECT_GT(flipped, 500u);
  ASSERT_OK(Reopen());
  EXPECT_EQ(One("select count(*) from t"), rows);
  EXPECT_EQ(One("select count(*) from t where id < 0"), "0");
  EXPECT_EQ(One("select count(*) from t where id = 600005"), One("select count(*) from t where id + 0 = 600005"));
  EXPECT_EQ(Run("analyze table t validate structure cascade").feedback, "Table analyzed.");
  Run("insert into t values (-7, 'after')");
  Run("commit");
  ASSERT_OK(Reopen());
  EXPECT_EQ(One("select count(*) from t"), std::to_string(std::stoll(rows) + 1));
}

// A multiplexed log group whose member cannot be written: as Oracle's LGWR,
// cellsim's goes on with the members it can write, shows the other INVALID
// in V$LOGFILE, and tries it again when it next switches into its group.
// The rack writes through to the grid disks (what fails there fails the
// write), and both control files are in +DATA (a +RECO copy would fail
// first, as ORA-00221 ends an Oracle instance).
class LostMemberTest : public testing::SqlTest {
 protected:
  void Configure(DatabaseOptions* o) const override {
    o->all_objects_rows = 500;
    // The control files both in +DATA (a RECO write fault is a log
    // member's), the online logs in both groups.
    o->control_files.recovery_disk_group = "";
    o->online_log_dests = {"DATA", "RECO"};
    o->archive_dest = "RECO";
  }
  asmgr::RackConfig MakeRackConfig() const override {
    asmgr::RackConfig c =
        testing::SmallRack(asmgr::Redundancy::kNormal, cell::FlashCacheMode::kWriteThrough);
    c.disk_groups.push_back({.name = "REDO", .redundancy = asmgr::Redundancy::kNormal,
                             .au_size = 4 * kMiB, .grid_disk_size = 128 * kMiB});
    return c;
  }
  std::unique_ptr<io::IoBackend> MakeBackend() const override {
    auto f = std::make_unique<io::FaultInjectionBackend>(io::MakePosixBackend());
    fault_ = f.get();
    return f;
  }
  // Inserts 300 rows in their own transaction.
  void InsertAndCommit(int batch) {
    Run(fmt::format("insert into t select object_id + {}, object_name from all_objects "
                    "where object_id <= 300", batch * 1000));
    Run("commit");
  }
  // A table t with one committed batch, then every write of a cell's grid
  // disks failing: an update of every row to `pad` whose COMMIT and the
  // checkpoint after it fail. The writes fail until ClearFaults. Returns
  // the batch's row count.
  long long CommitThenFailEveryWrite(const std::string& pad) {
    Run("create table t (id number, pad varchar2(100))");
    InsertAndCommit(0);
    const long long batch = std::stoll(One("select count(*) from t"));
    fault_->FailAll({.ops = io::kOpWrite, .path_substring = "_CD_"});
    Run(fmt::format("update t set pad = '{}'", pad));
    EXPECT_FALSE(Error("commit").empty());
    EXPECT_FALSE(Error("alter system checkpoint").empty());
    return batch;
  }
  mutable io::FaultInjectionBackend* fault_ = nullptr;
};

TEST_F(LostMemberTest, LgwrGoesOnWithTheMemberItCanWriteAndRecoveryReadsIt) {
  Run("create table t (id number, pad varchar2(100))");
  InsertAndCommit(0);
  const std::string batch = One("select count(*) from t");
  const std::string rows = std::to_string(6 * std::stoll(batch));
  const std::string current = One("select group# from v$log where status = 'CURRENT'");
  fault_->FailAll({.ops = io::kOpWrite, .path_substring = "RECO_CD"});
  for (int i = 1; i <= 5; ++i) InsertAndCommit(i);  // each commit acknowledged
  EXPECT_GT(fault_->InjectedFailures(), 0u);
  const StatementResult files = Run(
      "select group#, member from v$logfile where status = 'INVALID'");
  ASSERT_EQ(files.result_rows.size(), 1u);
  EXPECT_EQ(files.result_rows[0][0], current);
  EXPECT_EQ(files.result_rows[0][1].rfind("+RECO/", 0), 0u) << files.result_rows[0][1];
  EXPECT_EQ(One("select count(*) from t"), rows);
  // kill -9: the +RECO member holds none of the five commits; the +DATA one
  // holds them all, and recovery reads each redo block from a member that
  // holds it whole.
  Crash();
  fault_->ClearFaults();
  ASSERT_OK(Reopen());
  EXPECT_EQ(One("select count(*) from t"), rows);
  EXPECT_EQ(One("select count(*) from v$logfile where status = 'INVALID'"), "0");
}

TEST_F(LostMemberTest, ACommitNoMemberTakesFailsNamingTheMembers) {
  // DB_CREATE_ONLINE_LOG_DEST_n put the standard logs' members in both
  // groups, though there is no recovery area.
  EXPECT_EQ(One("select listagg(name || '=' || nvl(value, '-'), ' ') within group (order by "
                "name) from v$parameter where name like '%_dest%'"),
            "db_create_file_dest=+DATA db_create_online_log_dest_1=+DATA "
            "db_create_online_log_dest_2=+RECO db_create_online_log_dest_3=- "
            "db_create_online_log_dest_4=- db_create_online_log_dest_5=- "
            "db_recovery_file_dest=- log_archive_dest_1=LOCATION=+RECO");
  EXPECT_EQ(One("select count(*) from v$logfile where member like '+RECO/%'"), "3");
  Run("create table t (id number, pad varchar2(100))");
  InsertAndCommit(0);
  Run("insert into t values (1, 'x')");
  fault_->FailAll({.ops = io::kOpWrite, .path_substring = "_CD_"});
  const std::string error = Error("commit");
  EXPECT_THAT(error, HasSubstr("LGWR: writing +DATA/"));
  EXPECT_THAT(error, HasSubstr("; +RECO/"));  // every member, with its failure
  EXPECT_THAT(error, HasSubstr("(no member of the group could be written)"));
  EXPECT_EQ(One("select count(*) from v$logfile where status = 'INVALID'"), "0");
  fault_->ClearFaults();
  Crash();
}

// A COMMIT whose log write failed is not acknowledged; a COMMIT typed again
// once the log can be written is, and must write the first one's redo
// before it says so (before, it found no transaction and said "Commit
// complete." with the redo still in the log buffer: a crash then lost it).
TEST_F(LostMemberTest, ACommitAgainAfterAFailedLogWriteWritesTheRedo) {
  Run("create table t (id number, pad varchar2(100))");
  InsertAndCommit(0);
  const std::string batch = One("select count(*) from t");
  Run("insert into t select object_id + 1000, object_name from all_objects "
      "where object_id <= 300");
  fault_->FailAll({.ops = io::kOpWrite, .path_substring = "_CD_"});
  EXPECT_THAT(Error("commit"), HasSubstr("COMMIT again"));
  fault_->ClearFaults();
  Run("commit");  // acknowledged now
  Crash();
  ASSERT_OK(Reopen());
  EXPECT_EQ(One("select count(*) from t"), std::to_string(2 * std::stoll(batch)));
}

// Every write failing for a while (the path to the storage lost and back):
// the statements meanwhile fail, nothing acknowledged is lost, and the
// database opens again and takes commits.
TEST_F(LostMemberTest, EveryWriteFailingForAWhileLosesNothingAcknowledged) {
  const long long batch = CommitThenFailEveryWrite("lost");
  EXPECT_FALSE(Error("create table u (x number)").empty());
  fault_->ClearFaults();
  Crash();
  ASSERT_OK(Reopen());
  EXPECT_EQ(One("select count(*) from t"), std::to_string(batch));
  InsertAndCommit(1);
  ASSERT_OK(Reopen());  // a clean stop and open
  EXPECT_EQ(One("select count(*) from t"), std::to_string(2 * batch));
}

// The same, and the instance carries on once the writes work again: the
// next commit writes the failed one's record too (both acknowledged then),
// the disks the failures took offline come back with ONLINE ALL, and a
// crash after loses neither.
TEST_F(LostMemberTest, AfterAWhileOfFailedWritesTheInstanceCarriesOn) {
  const long long batch = CommitThenFailEveryWrite("kept");
  fault_->ClearFaults();
  InsertAndCommit(1);
  Run("alter system checkpoint");
  Run("alter diskgroup data online all");
  Run("alter diskgroup reco online all");
  Crash();
  ASSERT_OK(Reopen());
  EXPECT_EQ(One("select count(*) from t"), std::to_string(2 * batch));
  EXPECT_EQ(One("select count(*) from t where pad = 'kept'"), std::to_string(batch));
  EXPECT_EQ(One("select count(*) from v$asm_disk where mode_status <> 'ONLINE'"), "0");
}

// The write-ahead rule holds when LGWR fails for any reason: a checkpoint
// whose log write fails (here a read-only filesystem, which is
// FailedPrecondition) writes no data block, and says so.
TEST_F(LostMemberTest, ACheckpointWritesNoBlockWhoseRedoIsNotWritten) {
  Run("create table t (id number, pad varchar2(100))");
  InsertAndCommit(0);
  Run("update t set pad = 'changed'");  // its redo still in the log buffer
  fault_->FailAll({.ops = io::kOpWrite, .path_substring = "_CD_"}, EROFS);
  const std::string error = Error("alter system checkpoint");
  EXPECT_THAT(error, HasSubstr("LGWR: writing"));
  EXPECT_THAT(error, ::testing::Not(HasSubstr("DBWR")));
  fault_->ClearFaults();
  Crash();
  ASSERT_OK(Reopen());
  EXPECT_EQ(One("select count(*) from t where pad = 'changed'"), "0");
}

// ARCH copies a log whose first member reads whole but holds, at one block,
// an older log's block (a write the device acknowledged and lost, or a
// member LGWR stopped writing) block by block from the members that hold
// each block of this sequence, as recovery reads it: not the stale block.
TEST_F(LostMemberTest, ArchTakesEachBlockOfTheSequenceNotAnOlderLogsBlock) {
  Run("alter database archivelog");  // into LOG_ARCHIVE_DEST_1: no recovery area here
  EXPECT_THAT(Run("archive log list").feedback, HasSubstr("Archive destination            +RECO\n"));
  Run("create table t (id number, pad varchar2(100))");
  for (int i = 0; i < 3; ++i) InsertAndCommit(i);
  const uint32_t group =
      static_cast<uint32_t>(std::stoul(One("select group# from v$log where status = 'CURRENT'")));
  const uint32_t seq = static_cast<uint32_t>(
      std::stoul(One("select sequence# from v$log where status = 'CURRENT'")));
  const FileTable table = db_->file_table();
  const LogGroup* g = table.FindLogGroup(group);
  ASSERT_NE(g, nullptr);
  ASSERT_EQ(g->members.size(), 2u);
  ASSERT_OK_AND_ASSIGN(asmgr::DiskGroup * data, rack_->disk_group(g->members[0].file.disk_group));
  ASSERT_OK_AND_ASSIGN(asmgr::DiskGroup * reco, rack_->disk_group(g->members[1].file.disk_group));
  const std::vector<uint8_t> good = testing::ReadAsmFile(reco, g->members[1].file.number, 64 * 512);
  // Block 5 of the first member: block 5 of another round of this group
  // (sequence seq - 3, or seq + 3 this early), its checksum right.
  constexpr uint64_t kBlock = 5;
  std::vector<uint8_t> stale(good.begin() + kBlock * 512, good.begin() + (kBlock + 1) * 512);
  const uint32_t old_seq = seq > 3 ? seq - 3 : seq + 3;
  std::memcpy(&stale[8], &old_seq, 4);
  stale[14] = stale[15] = 0;
  const uint16_t sum = format::RedoBlockChecksum(stale);
  std::memcpy(&stale[14], &sum, 2);
  std::vector<asmgr::AsmWriteRequest> w(1);
  w[0].file_offset = kBlock * 512;
  w[0].data = stale;
  ASSERT_OK(data->Write(g->members[0].file.number, absl::MakeSpan(w), nullptr));
  Run("alter system switch logfile");  // ARCH copies sequence seq
  const StatementResult arch =
      Run(fmt::format("select name, blocks from v$archived_log where sequence# = {}", seq));
  ASSERT_EQ(arch.result_rows.size(), 1u);
  uint32_t number = 0;
  for (const asmgr::FileInfo& f : reco->ListFiles()) {
    if (arch.result_rows[0][0].find(f.name) != std::string::npos) number = f.number;
  }
  ASSERT_NE(number, 0u);
  const std::vector<uint8_t> archived = testing::ReadAsmFile(reco, number, 64 * 512);
  EXPECT_TRUE(std::equal(archived.begin() + kBlock * 512, archived.begin() + (kBlock + 1) * 512,
                         good.begin() + kBlock * 512));
}

}  // namespace
}  // namespace cellsim::db
