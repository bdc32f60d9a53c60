// Indexes (docs/db.md "Indexes"): the B-tree over 8 KiB blocks on its own
// (splits, branch levels, removal, duplicate keys), then through SQL: CREATE /
// DROP INDEX and their Oracle errors, maintenance by every DML statement,
// rollback and statement rollback, unique keys, GTT indexes per session, and
// the redo an index adds. ANALYZE ... VALIDATE STRUCTURE CASCADE checks after
// each step that the index and the table agree.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <random>
#include <string>

#include "cellsim/db/btree.h"
#include "cellsim/db/database.h"
#include "cellsim/db/row_format.h"
#include "cellsim/io/fault_injection.h"
#include "cellsim/io/io_backend.h"
#include "db/db_test_util.h"
#include "gtest/gtest.h"
#include "testing/test_util.h"

namespace cellsim::db {
namespace {

using ::testing::HasSubstr;
using stats::Stat;

// ---- the tree on its own ----

class MemStore : public internal::BlockStore {
 public:
  absl::Span<uint8_t> Get(uint32_t block, bool) override { return absl::MakeSpan(blocks_.at(block)); }
  absl::StatusOr<uint32_t> Allocate() override {
    const uint32_t b = next_++;
    blocks_[b].assign(internal::kBlockSize, 0);
    return b;
  }
  uint32_t Rdba(uint32_t block) const override { return block; }
  uint32_t Object() const override { return 77; }
  size_t blocks() const { return blocks_.size(); }

 private:
  std::map<uint32_t, std::vector<uint8_t>> blocks_;
  uint32_t next_ = 128;
};

// The key of a row (number, varchar2) at rowid (block, slot), on both columns.
std::vector<uint8_t> Key(double n, const std::string& s, uint32_t block, uint16_t slot) {
  const std::vector<internal::Column> cols = {{"N", internal::ColType::kNumber, 0},
                                              {"S", internal::ColType::kVarchar2, 40}};
  const internal::Row row = {internal::Value::Num(n), internal::Value::Str(s)};
  return *internal::MakeIndexKey(internal::ColumnImages(internal::EncodeRow(cols, row)), {0, 1},
                                 block, slot);
}

TEST(BTreeTest, SplitsKeepEveryKeyInOrderAndFindable) {
  MemStore store;
  const uint32_t root = *store.Allocate();
  internal::BTree::InitRoot(store, root);
  internal::BTree tree(store, root, 2);
  std::vector<std::vector<uint8_t>> keys;
  std::mt19937 rng(7);
  // Negative, fractional and large numbers; 3 rows per value (duplicates).
  for (int i = 0; i < 6000; ++i) {
    const double n = (static_cast<int>(rng() % 4000) - 2000) / 8.0;
    keys.push_back(Key(n, "name " + std::to_string(i % 50), 1000 + i / 3, static_cast<uint16_t>(i % 3)));
  }
  std::vector<internal::BTree::Split> splits;
  for (const auto& k : keys) ASSERT_TRUE(tree.Insert(k, &splits).ok());
  EXPECT_GT(splits.size(), 10u);
  EXPECT_GE(tree.Height(), 2u);
  // The root stayed the first block.
  EXPECT_EQ(internal::IndexBlock(store.Get(root, false)).level() + 1u, tree.Height());
  auto sorted = keys;
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
    return internal::CompareKeys(a, b, 2, true) < 0;
  });
  std::vector<std::vector<uint8_t>> scanned;
  tree.Scan(nullptr, [&](absl::Span<const uint8_t> k) {
    scanned.emplace_back(k.begin(), k.end());
    return true;
  });
  ASSERT_EQ(scanned, sorted);
  // Numeric order of the first column, negatives included.
  for (size_t i = 1; i < scanned.size(); ++i) {
    const auto a = internal::KeyColumnImages(scanned[i - 1], 2)[0];
    const auto b = internal::KeyColumnImages(scanned[i], 2)[0];
    EXPECT_LE(internal::DecodeNumber(absl::MakeConstSpan(a).subspan(1)),
              internal::DecodeNumber(absl::MakeConstSpan(b).subspan(1)));
  }
  // Remove every other key; the rest stay, each found by a probe on its columns.
  for (size_t i = 0; i < keys.size(); i += 2) ASSERT_TRUE(tree.Remove(keys[i]).has_value());
  EXPECT_FALSE(tree.Remove(keys[0]).has_value());
  size_t left = 0;
  tree.Scan(nullptr, [&](absl::Span<const uint8_t>) { return ++left > 0; });
  EXPECT_EQ(left, keys.size() / 2);
  for (size_t i = 1; i < keys.size(); i += 198) {  // odd: the kept ones
    bool found = false;
    tree.Scan(&keys[i], [&](absl::Span<const uint8_t> k) {
      found |= internal::CompareKeys(k, keys[i], 2, true) == 0;
      return true;
    });
    EXPECT_TRUE(found) << i;
  }
  // A descent from the root finds a kept key and no removed one.
  for (size_t i = 0; i < keys.size(); i += 97) EXPECT_EQ(tree.Contains(keys[i]), i % 2 == 1) << i;
  // A key put into the wrong leaf (the leftmost, though it is above every
  // key) is not where the branch blocks lead (ANALYZE's ORA-01499).
  std::vector<uint8_t> stray = Key(1e6, "stray", 9999, 0);
  uint32_t leftmost = root;
  while (internal::IndexBlock(store.Get(leftmost, false)).level() != 0) {
    leftmost = internal::IndexBlock(store.Get(leftmost, false)).leftmost();
  }
  internal::IndexBlock leaf(store.Get(leftmost, true));
  ASSERT_TRUE(leaf.InsertAt(leaf.entries(), internal::IndexBlock::LeafEntry(stray)));  // half empty
  EXPECT_FALSE(tree.Contains(stray));
  ASSERT_TRUE(tree.Insert(stray, nullptr).ok());  // now where it belongs too
  EXPECT_TRUE(tree.Contains(stray));
}

TEST(BTreeTest, AscendingKeysFillLeaves) {
  MemStore store;
  const uint32_t root = *store.Allocate();
  internal::BTree::InitRoot(store, root);
  internal::BTree tree(store, root, 2);
  for (int i = 0; i < 20000; ++i) {
    ASSERT_TRUE(tree.Insert(Key(i, "x", 5000 + i / 100, static_cast<uint16_t>(i % 100)), nullptr).ok());
  }
  // 90/10 splits: leaves nearly full. A key is about 16 bytes, an entry 22.
  const size_t leaves_if_full = 20000 * 22 / (internal::kBlockSize - 120);
  EXPECT_LE(store.blocks(), leaves_if_full * 11 / 10 + 3);
}

// ---- through SQL ----

class IndexTest : public testing::SqlTest {
 protected:
  void Configure(DatabaseOptions* o) const override { o->all_objects_rows = 20000; }
  // The index and the table agree (ORA-01499 otherwise).
  void Valid(const std::string& table, Session* s = nullptr) {
    EXPECT_EQ(Run("analyze table " + table + " validate structure cascade", s).feedback,
              "Table analyzed.");
  }
};

TEST_F(IndexTest, DdlAndItsErrorsAreOracleLike) {
  Run("create table t (id number, name varchar2(20))");
  EXPECT_EQ(Run("create index t_id on t (id)").feedback, "Index created.");
  EXPECT_THAT(Error("create index t_id on t (name)"), HasSubstr("ORA-00955"));
  EXPECT_THAT(Error("create index t on t (name)"), HasSubstr("ORA-00955"));
  EXPECT_THAT(Error("create table t_id (x number)"), HasSubstr("ORA-00955"));
  EXPECT_THAT(Error("create index x on nope (id)"), HasSubstr("ORA-00942"));
  EXPECT_THAT(Error("create index x on t (nope)"), HasSubstr("ORA-00904"));
  EXPECT_THAT(Error("create index x on t (id, id)"), HasSubstr("ORA-00957"));
  EXPECT_THAT(Error("create index x on t (id)"), HasSubstr("ORA-01408"));
  EXPECT_THAT(Error("create index x on t (name) tablespace undotbs1"), HasSubstr("ORA-30022"));
  EXPECT_THAT(Error("create index x on t (name) tablespace nosuch"), HasSubstr("ORA-00959"));
  EXPECT_THAT(Error("drop index nope"), HasSubstr("ORA-01418"));
  EXPECT_THAT(Error("create index x on t (id"), HasSubstr("ORA-"));
  // Unique: a duplicate is refused and leaves nothing behind.
  EXPECT_EQ(Run("create unique index t_name on t (name) tablespace users").feedback,
            "Index created.");
  Run("insert into t values (1, 'one')");
  EXPECT_THAT(Error("insert into t values (2, 'one')"),
              HasSubstr("ORA-00001: unique constraint (CELLSIM.T_NAME) violated"));
  EXPECT_EQ(One("select count(*) from t"), "1");
  Valid("t");
  // NULL keys are not indexed: several rows may have a NULL name.
  Run("insert into t values (3, null)");
  Run("insert into t values (4, null)");
  Valid("t");
  Run("commit");
  EXPECT_EQ(Run("drop index t_name").feedback, "Index dropped.");
  Run("insert into t values (2, 'one')");
  EXPECT_THAT(Error("create unique index t_name on t (name)"), HasSubstr("ORA-01452"));
  EXPECT_THAT(Error("analyze index t_name validate structure"), HasSubstr("ORA-01418"));
  EXPECT_EQ(Run("analyze index t_id validate structure").feedback, "Index analyzed.");
  // GTTs: the index lives in TEMP; no DDL on it while a session has rows.
  Run("create global temporary table g (x number) on commit preserve rows");
  EXPECT_THAT(Error("create index g_x on g (x) tablespace users"), HasSubstr("ORA-14451"));
  Run("insert into g values (1)");
  Run("commit");
  EXPECT_THAT(Error("create index g_x on g (x)"), HasSubstr("ORA-14452"));
  Run("truncate table g");
  EXPECT_EQ(Run("create index g_x on g (x)").feedback, "Index created.");
  std::unique_ptr<Session> other = db_->NewSession();
  Run("insert into g values (1)", other.get());
  EXPECT_THAT(Error("drop index g_x"), HasSubstr("ORA-14452"));
  // A heap table with another session's open transaction: busy.
  Run("insert into t values (9, 'nine')", other.get());
  EXPECT_THAT(Error("create index t_both on t (id, name)"), HasSubstr("ORA-00054"));
  Run("rollback", other.get());
  EXPECT_EQ(Run("create index t_both on t (id, name)").feedback, "Index created.");
  StatementResult v = Run(
      "select index_name, table_name, uniqueness, tablespace_name, status from user_indexes "
      "order by index_name");
  ASSERT_EQ(v.result_rows.size(), 3u);
  EXPECT_EQ(v.result_rows[0], (std::vector<std::string>{"G_X", "G", "NONUNIQUE", "", "VALID"}));
  EXPECT_EQ(v.result_rows[2], (std::vector<std::string>{"T_ID", "T", "NONUNIQUE", "USERS", "VALID"}));
  EXPECT_EQ(One("select count(*) from dba_indexes where owner = 'CELLSIM'"), "3");
  // The tables and the segments: a GTT has no tablespace and no segment listed;
  // a heap table's and an index's segments are in their tablespace, whole
  // extents of 8 KiB blocks.
  v = Run("select table_name, tablespace_name, temporary, duration from user_tables order by 1");
  ASSERT_EQ(v.result_rows.size(), 2u);
  EXPECT_EQ(v.result_rows[0], (std::vector<std::string>{"G", "", "Y", "SYS$SESSION"}));
  EXPECT_EQ(v.result_rows[1], (std::vector<std::string>{"T", "USERS", "N", ""}));
  v = Run("select segment_name, segment_type, tablespace_name from dba_segments "
          "where owner = 'CELLSIM' order by 1");
  ASSERT_EQ(v.result_rows.size(), 3u);  // T, T_BOTH, T_ID
  EXPECT_EQ(v.result_rows[0], (std::vector<std::string>{"T", "TABLE", "USERS"}));
  EXPECT_EQ(v.result_rows[2], (std::vector<std::string>{"T_ID", "INDEX", "USERS"}));
  EXPECT_EQ(One("select count(*) from user_segments where bytes <> blocks * 8192 or blocks <> "
                "extents * 8 or header_block is null"),
            "0");
  // DROP TABLE drops its indexes: their names are free again.
  Run("drop table t purge");
  Run("create table t2 (id number)");
  EXPECT_EQ(Run("create index t_id on t2 (id)").feedback, "Index created.");
}

TEST_F(IndexTest, EveryDmlKeepsIndexAndTableInAgreement) {
  Run("create table t (id number, grp number, name varchar2(128))");
  Run("create unique index t_id on t (id)");
  Run("create index t_grp on t (grp, name)");
  // Array insert: 20,000 rows, leaf splits and a branch level.
  EXPECT_EQ(Run("insert into t select object_id, mod_grp, object_name from "
                "(select object_id, object_id - 10 * round(object_id / 10 - 0.5) mod_grp, "
                "object_name from all_objects)").rows,
            20000);
  Valid("t");
  Run("commit");
  // Single-row inserts, an update of an indexed column (every key moves: the
  // unique check is at the statement's end), a delete, a merge.
  Run("insert into t values (-1, 3, 'minus one')");
  Run("insert into t values (-2, null, null)");
  EXPECT_EQ(Run("update t set id = id + 1 where id > 0").rows, 20000);
  Valid("t");
  EXPECT_THAT(Error("update t set id = 5 where id in (6, 7)"), HasSubstr("ORA-00001"));
  Run("update t set name = 'renamed and much longer than before' where grp = 3");
  Valid("t");
  // Rows that outgrow their block move (migration): each is updated once.
  const std::string sevens = One("select count(*) from t where grp = 7");
  Run("update t set grp = grp + 1000, name = 'a name long enough to move the row elsewhere "
      "in the segment' where grp = 7");
  EXPECT_EQ(One("select count(*) from t where grp = 1007"), sevens);
  EXPECT_EQ(One("select count(*) from t where grp = 2007"), "0");
  Valid("t");
  EXPECT_GT(Run("delete from t where grp = 4").rows, 1000);
  Valid("t");
  Run("merge into t using (select 0 id from dual) s on (t.id = s.id) when matched then update "
      "set name = 'matched' when not matched then insert (id, grp, name) values (0, 0, 'zero')");
  EXPECT_EQ(One("select name from t where id = 0"), "zero");
  Valid("t");
  Run("commit");
  const std::string rows = One("select count(*) from t");
  // Rollback: every index entry goes back with its row.
  Run("delete from t where grp = 5");
  Run("update t set grp = grp + 100 where grp = 6");
  Run("insert into t select object_id + 100000, 1, 'new' from all_objects where object_id < 3000");
  Run("rollback");
  EXPECT_EQ(One("select count(*) from t"), rows);
  Valid("t");
  // Statement rollback: an insert ... select failing on a duplicate key
  // half-way leaves none of its rows or keys.
  EXPECT_THAT(Error("insert into t select object_id + 200000 - 20 * round(object_id / 500 - 0.5), "
                    "1, 'dup' from all_objects"),
              HasSubstr("ORA-00001"));
  EXPECT_EQ(One("select count(*) from t"), rows);
  Valid("t");
  // TRUNCATE empties the indexes.
  Run("truncate table t");
  Valid("t");
  Run("insert into t values (1, 1, 'again')");
  Valid("t");
  Run("commit");
}

TEST_F(IndexTest, GttIndexEntriesArePerSessionAndGoAtCommit) {
  Run("create global temporary table g (x number, y varchar2(10)) on commit delete rows");
  Run("create unique index g_x on g (x)");
  std::unique_ptr<Session> other = db_->NewSession();
  Run("insert into g select object_id, 'a' from all_objects where object_id < 5000");
  // Another session's rows are its own: the same keys do not collide.
  Run("insert into g select object_id, 'b' from all_objects where object_id < 100", other.get());
  Valid("g");
  Valid("g", other.get());
  StatementResult seg = Run("select segtype from v$tempseg_usage where session_num = " +
                            std::to_string(s_->sid()) + " order by segtype");
  ASSERT_EQ(seg.result_rows.size(), 2u);
  EXPECT_EQ(seg.result_rows[0][0], "DATA");
  EXPECT_EQ(seg.result_rows[1][0], "INDEX");
  EXPECT_THAT(Error("insert into g values (7, 'dup')"), HasSubstr("ORA-00001"));
  Run("commit");  // ON COMMIT DELETE ROWS: rows and index entries go
  EXPECT_EQ(One("select count(*) from g"), "0");
  Valid("g");
  Run("insert into g values (7, 'again')");  // no stale entry refuses it
  Run("rollback");
  Valid("g");
  Valid("g", other.get());
}

// A correlated subquery's `col = outer.col` probes the index with the outer
// row's value: the same rows as its full scans, NULLs and type mismatches
// included.
TEST_F(IndexTest, CorrelatedSubqueriesProbeTheIndexWithTheOuterValue) {
  Run("create table p (id number, name varchar2(128), code varchar2(10))");
  Run("create table c (pid number, tag varchar2(128), n number)");
  Run("insert into p select object_id, object_name, to_char(object_id + 2) from all_objects "
      "where rownum <= 1000");
  Run("insert into p values (null, 'nameless', null)");
  Run("insert into c select object_id * 2, object_name, mod(object_id, 3) from all_objects "
      "where rownum <= 1000");
  Run("insert into c values (null, 'nameless', 0)");
  Run("commit");
  const std::string outer = "(id is null or id < 300)";  // bounds the full scans' work
  const std::vector<std::string> queries = {
      "select count(*) from p where " + outer + " and exists (select 1 from c where c.pid = p.id)",
      "select count(*) from p x where " + outer +
          " and not exists (select 1 from c where pid = x.id and n = 1)",
      "select count(*) from p where " + outer +
          " and (select count(*) from c where c.tag = p.name) > 0",
      // Text that reads as a number probes a NUMBER index as that number.
      "select count(*) from p where " + outer +
          " and exists (select 1 from c where c.pid = p.code)",
      "select max((select max(n) from c where c.pid = p.id + 2)) from p where " + outer,
  };
  auto results = [&] {
    std::vector<std::string> out;
    for (const std::string& q : queries) out.push_back(One(q));
    return out;
  };
  const auto scanned = results();
  EXPECT_NE(scanned[0], "0");
  EXPECT_NE(scanned[3], "0");
  Run("create index c_pid on c (pid)");
  Run("create index c_tag on c (tag)");
  EXPECT_EQ(results(), scanned);
}

// `select ... where col = literal` on an indexed column reads through the
// index (an index range scan): the same rows as a full scan, for duplicates,
// NULLs, negative and fractional numbers, strings, composite indexes, and an
// insert ... select reading the table it writes.
TEST_F(IndexTest, SelectsThroughAnIndexFindWhatAScanFinds) {
  Run("create table t (id number, grp number, name varchar2(128))");
  Run("insert into t select object_id - 5000, object_id - 7 * round(object_id / 7 - 0.5), "
      "object_name from all_objects");
  Run("insert into t values (-2.5, null, 'frac')");
  Run("insert into t values (null, 3, null)");
  Run("commit");
  const std::vector<std::string> queries = {
      "select id, name from t where id = 17",
      "select id, name from t where -2.5 = id",
      "select count(*) from t where grp = 3",
      "select count(*) from t where grp = 3 and id > 1000",
      "select id from t where name = 'frac'",
      "select count(*) from t where name = 'no such name'",
      "select count(*) from t where id = 17 or grp = 2",
  };
  auto results = [&] {
    std::vector<std::vector<std::vector<std::string>>> out;
    for (const std::string& q : queries) out.push_back(Run(q + " order by 1").result_rows);
    return out;
  };
  const auto scanned = results();
  EXPECT_EQ(scanned[2].at(0).at(0), std::to_string(20000 / 7 + 1));
  Run("create index t_id on t (id)");
  Run("create index t_grp on t (grp, id)");
  Run("create index t_name on t (name)");
  EXPECT_EQ(results(), scanned);
  // Reading and writing the same table through its index.
  Run("insert into t select id, grp + 100, name from t where grp = 3");
  EXPECT_EQ(One("select count(*) from t where grp = 103"), scanned[2].at(0).at(0));
  Valid("t");
  Run("rollback");
  // After changes the index still finds exactly the table's rows.
  Run("update t set grp = 3 where id = 17");
  Run("delete from t where name = 'frac'");
  const auto changed = results();
  Run("drop index t_id");
  Run("drop index t_grp");
  Run("drop index t_name");
  EXPECT_EQ(results(), changed);
}

// Hatem: with temporary undo a GTT's DML makes no redo, except that index
// leaf splits run as recursive transactions with permanent undo: redo (a
// change record and a commit per split) even with TRUE.
TEST_F(IndexTest, GttLeafSplitsCostRedoEvenWithTempUndo) {
  Run("create global temporary table g (a number, b number) on commit delete rows");
  Run("create global temporary table h (a number, b number) on commit delete rows");
  Run("create index g_ab on g (a, b)");
  Run("alter session set temp_undo_enabled = true");
  Run("insert into h values (1, 1)");  // the transaction's 272-byte begin record
  auto redo = [&](const std::string& sql) {
    const stats::StatValues before = s_->Stats();
    Run(sql);
    return s_->Stats() - before;
  };
  const std::string rows =
      " select object_id, 1111111111111111111 from all_objects where object_id <= 2001";
  const stats::StatValues plain = redo("insert into h" + rows);
  const stats::StatValues indexed = redo("insert into g" + rows);
  EXPECT_EQ(plain[Stat::kRedoSize], 0);
  // 2,000 keys of about 20 bytes fill several leaves: one split each.
  EXPECT_GE(indexed[Stat::kRedoEntries], 2 * 5);
  EXPECT_EQ(indexed[Stat::kRedoEntries] % 2, 0);  // a change record and a commit per split
  EXPECT_EQ(indexed[Stat::kRedoSize], indexed[Stat::kRedoEntries] / 2 * (24 + 64 + 120 + 96));
  Valid("g");
  Run("commit");
}

// A heap table's index makes redo: per single-row insert a second record
// (the key's 5.1 undo and its 10.2 leaf insert).
TEST_F(IndexTest, HeapIndexRedo) {
  Run("create table t (id number, name varchar2(20))");
  Run("create table u (id number, name varchar2(20))");
  Run("create index u_id on u (id)");
  Run("insert into t values (0, 'first')");  // each table's first extent
  Run("insert into u values (0, 'first')");
  auto delta = [&](const std::string& sql) {
    const stats::StatValues before = s_->Stats();
    Run(sql);
    return s_->Stats() - before;
  };
  const stats::StatValues plain = delta("insert into t values (1, 'one')");
  const stats::StatValues indexed = delta("insert into u values (1, 'one')");
  EXPECT_EQ(plain[Stat::kRedoEntries], 1);
  EXPECT_EQ(indexed[Stat::kRedoEntries], 2);
  // 24 + 5.1 (64 + key) + 10.2 (KTB, kdxl, entry): about 200 bytes.
  const int64_t index_redo = indexed[Stat::kRedoSize] - plain[Stat::kRedoSize];
  EXPECT_GT(index_redo, 150);
  EXPECT_LT(index_redo, 300);
  EXPECT_GT(indexed[Stat::kUndoChangeVectorSize], plain[Stat::kUndoChangeVectorSize]);
  Run("commit");
}

// Instance recovery rebuilds every index from its recovered table and
// writes the dictionary once, in its checkpoint, not at each new extent of
// the rebuilt indexes. A power cut at any write of that recovery leaves a
// database the next open recovers whole: every committed row, the indexes
// agreeing with their tables, the uncommitted row gone.
using IndexRecoveryTest = testing::FaultSqlTest<IndexTest>;

TEST_F(IndexRecoveryTest, PowerLossAtEveryWriteOfTheRebuildLosesNothing) {
  Run("create table r as select object_id id, object_name name from all_objects where rownum <= 5000");
  Run("create index r_id on r (id)");
  Run("create index r_name on r (name, id)");
  Run("insert into r values (-1, 'committed')");
  Run("commit");
  Run("insert into r values (-2, 'uncommitted')");
  PowerOff();
  int cuts = 0;
  std::string rebuilt;
  // Every write of the first 64, then every ~8th (the cells' and ASM's
  // recovery writes come first, the rebuilt blocks and the dictionary last).
  for (int n = 0;; n += n < 64 ? 1 : 1 + n / 8) {
    ASSERT_LT(n, 5000) << "recovery should run out of writes";
    fault()->CrashAfter({.ops = io::kOpWrite}, n);
    const absl::Status opened = Reopen();
    if (!fault()->Crashed()) {
      fault()->ClearFaults();  // the cut would have come after recovery
      ASSERT_OK(opened);
      for (const std::string& a : db_->recovery_actions()) {
        if (a.find("indexes rebuilt") != std::string::npos) rebuilt = a;
      }
      break;
    }
    ++cuts;
    PowerOff();
  }
  std::printf("recovery cut %d times, then: %s\n", cuts, rebuilt.c_str());
  EXPECT_GT(cuts, 10);
  EXPECT_NE(rebuilt.find("2 indexes rebuilt"), std::string::npos) << rebuilt;
  EXPECT_EQ(One("select count(*) from r"), "5001");
  EXPECT_EQ(One("select name from r where id = -1"), "committed");
  EXPECT_EQ(One("select count(*) from r where id = -2"), "0");
  Valid("r");
  // The rebuilt indexes are durable and in use after a clean restart.
  ASSERT_OK(Reopen());
  Valid("r");
  EXPECT_EQ(One("select name from r where id = -1"), "committed");
}

}  // namespace
}  // namespace cellsim::db
