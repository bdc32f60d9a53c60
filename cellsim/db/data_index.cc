// Indexes (docs/db.md "Indexes"): CREATE / DROP INDEX, the B-tree of each
// index in the engine's buffer cache, its maintenance by DML with undo and
// redo sized by redo_model.h, rollback of index entries, and the rebuild
// after instance recovery.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "absl/cleanup/cleanup.h"
#include "cellsim/db/btree.h"
#include "cellsim/db/data_engine.h"
#include "cellsim/db/redo_model.h"
#include "cellsim/format/block_template.h"

namespace cellsim::db::internal {
namespace {

// The blocks of one index segment, in the engine's buffer cache. Lives
// inside a call that holds the engine's mu. Given a statement's recorder and
// session, it counts the statement's logical reads: a consistent get per
// block read, a current-mode get per block changed (CountCurrentGet); an
// index build's and a rollback's blocks are not counted.
class SegmentStore : public BlockStore {
 public:
  SegmentStore(DataEngine& e, Segment& seg, bool temp, uint32_t obj)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu)
      : e_(e), seg_(seg), temp_(temp), obj_(obj) {}
  SegmentStore(DataEngine& e, Segment& seg, bool temp, uint32_t obj, Recorder& rec,
               SessionData& sd) ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu)
      : e_(e), seg_(seg), temp_(temp), obj_(obj), rec_(&rec), sd_(&sd) {}

  absl::Span<uint8_t> Get(uint32_t block, bool write) override {
    e_.mu.AssertHeld();
    CachedBlock& cb = e_.Block(seg_.file_number, block);
    if (write) cb.dirty = !cb.temp;
    if (rec_ != nullptr) {
      if (write) {
        CountCurrentGet(*rec_, *sd_, seg_.file_number, block);
      } else {
        CountConsistentGets(*rec_, 1);
      }
    }
    return absl::MakeSpan(cb.bytes);
  }
  absl::StatusOr<uint32_t> Allocate() override {
    e_.mu.AssertHeld();
    return e_.NewBlock(seg_, temp_, obj_);
  }
  uint32_t Rdba(uint32_t block) const override { return format::Rdba(seg_.file_number, block); }
  uint32_t Object() const override { return obj_; }

 private:
  DataEngine& e_;
  Segment& seg_;
  bool temp_;
  uint32_t obj_;
  Recorder* rec_ = nullptr;
  SessionData* sd_ = nullptr;
};

absl::Status UniqueViolated(const IndexDef& ix) {
  return absl::AlreadyExistsError(
      fmt::format("ORA-00001: unique constraint (CELLSIM.{}) violated", ix.name));
}

// The row an index key points at (its rowid: rdba = file# << 22 | block#).
IndexRowId RowOfKey(absl::Span<const uint8_t> key) {
  uint32_t rdba = 0;
  uint16_t slot = 0;
  KeyRowId(key, &rdba, &slot);
  return {rdba >> 22, rdba & 0x3FFFFFu, slot};
}

// Marks the ORA-00054 of a unique key's wait: Oracle waits for the other
// transaction in share mode (TX mode 4), not for its row (6).
absl::Status KeyWait(absl::Status st) {
  if (!st.ok()) st.SetPayload(kRowLockModePayload, absl::Cord("4"));
  return st;
}

// A key of unique index `ix` of `t` that session sd would add, found in the
// index as `existing` (another row's): ORA-00001 when that row is
// committed, or sd's own; when another open transaction put it there (it
// inserted the row, or updated it to this key), the ORA-00054 of that
// transaction's row: whether the key is a duplicate depends on its commit,
// so the statement waits for it (or its caller does), as Oracle's waits.
absl::Status DuplicateKey(DataEngine& e, const SessionData& sd, const TableDef& t,
                          const IndexDef& ix, absl::Span<const uint8_t> existing)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu) {
  const IndexRowId row = RowOfKey(existing);
  if (!t.temporary && CommittedView(e, sd).ChangedByOthers(row.file, row.block, row.slot)) {
    return KeyWait(e.CheckRowLock(sd, t, row.file, row.block, row.slot));
  }
  return UniqueViolated(ix);
}

// The columns of index key `key` (without its rowid).
std::vector<uint8_t> KeyColumns(const std::vector<uint8_t>& key) {
  return {key.begin(), key.end() - std::min<size_t>(key.size(), kRowIdBytes)};
}

// A key of unique index `ix` of `t` that session sd would add and that the
// index does not hold: free, unless another open transaction deleted it
// (DataEngine::deleted_unique_keys): then that transaction's ORA-00054 (its
// rollback would put the key back), for the statement to wait.
absl::Status CheckDeletedKey(DataEngine& e, const SessionData& sd, const TableDef& t,
                             const IndexDef& ix, const std::vector<uint8_t>& key)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu) {
  if (t.temporary || e.deleted_unique_keys.empty()) return absl::OkStatus();
  auto [from, to] = e.deleted_unique_keys.equal_range({ix.object_id, KeyColumns(key)});
  for (auto it = from; it != to; ++it) {
    if (it->second.first == sd.sid) continue;
    const IndexRowId row = RowOfKey(it->second.second);
    return KeyWait(e.CheckRowLock(sd, t, row.file, row.block, row.slot));
  }
  return absl::OkStatus();
}

// Index keys of one leaf block changed by one batch, for one record.
struct LeafBatch {
  bool insert = true;
  uint32_t leaf = 0;
  std::vector<std::vector<uint8_t>> keys;
};

void AddToBatch(std::vector<LeafBatch>& batches, bool insert, uint32_t leaf,
                const std::vector<uint8_t>& key) {
  for (LeafBatch& b : batches) {
    if (b.insert == insert && b.leaf == leaf) {
      b.keys.push_back(key);
      return;
    }
  }
  batches.push_back(LeafBatch{insert, leaf, {key}});
}

// The index keys of `changes` for `ix`, an update's unchanged key dropped
// (a delete and an insert of the same key and rowid cancel).
std::vector<std::pair<bool, std::vector<uint8_t>>> KeysOf(const IndexDef& ix,
                                                          const std::vector<IndexedRow>& changes) {
  std::vector<std::pair<bool, std::vector<uint8_t>>> ops;
  for (const IndexedRow& c : changes) {
    std::optional<std::vector<uint8_t>> k = MakeIndexKey(
        ColumnImages(c.row), ix.columns, format::Rdba(c.file, c.block), c.slot);
    if (!k.has_value()) continue;  // every key column NULL: not indexed
    if (c.insert && !ops.empty() && !ops.back().first && ops.back().second == *k) {
      ops.pop_back();
      continue;
    }
    ops.emplace_back(c.insert, std::move(*k));
  }
  return ops;
}

}  // namespace

TableDef* DataEngine::OwnerOf(uint32_t obj, IndexDef** index) {
  for (auto& [name, t] : tables) {
    if (t.object_id == obj) {
      if (index != nullptr) *index = nullptr;
      return &t;
    }
    for (IndexDef& ix : t.indexes) {
      if (ix.object_id == obj) {
        if (index != nullptr) *index = &ix;
        return &t;
      }
    }
  }
  return nullptr;
}

absl::StatusOr<Segment*> DataEngine::IndexSegment(Recorder& rec, SessionData& sd,
                                                  const TableDef& t, IndexDef& ix, bool create) {
  Segment* seg = nullptr;
  if (!t.temporary) {
    seg = &ix.segment;
  } else if (auto it = sd.gtt_segments.find(ix.object_id); it != sd.gtt_segments.end()) {
    seg = &it->second;
  } else {
    if (!create) return nullptr;
    absl::StatusOr<uint32_t> file = DataFileOf("TEMP");
    if (!file.ok()) return file.status();
    Segment s;
    s.file_number = *file;
    s.extent_blocks = kTempExtentBlocks;
    seg = &sd.gtt_segments.emplace(ix.object_id, s).first->second;
  }
  if (seg->blocks.empty()) {
    if (!create) return nullptr;
    absl::StatusOr<uint32_t> root = NewBlock(*seg, t.temporary, ix.object_id);
    if (!root.ok()) return root.status();
    SegmentStore store(*this, *seg, t.temporary, ix.object_id, rec, sd);
    BTree::InitRoot(store, *root);
    return seg;
  }
  if (!t.temporary) {
    if (absl::Status st = EnsureCached(rec, seg->file_number, seg->blocks, ix.object_id); !st.ok()) {
      return st;
    }
  }
  return seg;
}

// A leaf (or branch) split: Oracle runs it as a recursive transaction with
// permanent undo even for a GTT's index (temp-undo.md §1.5, Hatem): one
// record of 5.2 + 5.1 (+ for a heap index 10.8 init of the new block with
// the entries moved and 10.15 the parent's new entry), then its commit.
static absl::Status SplitRedo(DataEngine& e, Recorder& rec, SessionData& sd, bool temporary,
                              const BTree::Split& s) ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu) {
  Transaction rt;
  rt.usn = e.next_usn;
  e.next_usn = e.next_usn % 10 + 1;
  rt.slot = (sd.sid + 17) % 34;
  rt.wrap = ++e.undo_slot_wrap[(rt.usn << 16) | rt.slot];
  uint32_t record = redo::kRecordHeader + redo::BeginVector() + redo::UndoVector(redo::kUndoSingleRow);
  uint32_t vectors = 2;
  if (!temporary) {
    record += redo::VectorBytes({redo::kKtb, redo::kKdxSplit, s.moved_bytes}) +
              redo::VectorBytes({redo::kKtb, redo::kKdxLeaf, s.separator_bytes + 6});
    vectors += 2;
  }
  rec.Add(stats::Stat::kUndoChangeVectorSize, redo::kUndoSingleRow);
  if (absl::Status st = e.GenerateRedo(rec, record, vectors, redo::RecordKind::kChange, rt);
      !st.ok()) {
    return st;
  }
  return e.GenerateRedo(rec, redo::CommitRecord(), 1, redo::RecordKind::kCommit, rt);
}

absl::Status DataEngine::MaintainIndexes(
    Recorder& rec, SessionData& sd, TableDef& t, const std::vector<IndexedRow>& changes,
    std::vector<std::pair<IndexDef*, std::vector<uint8_t>>>* deferred) {
  for (IndexDef& ix : t.indexes) {
    const std::vector<std::pair<bool, std::vector<uint8_t>>> ops = KeysOf(ix, changes);
    if (ops.empty()) continue;
    absl::StatusOr<Segment*> seg = IndexSegment(rec, sd, t, ix, true);
    if (!seg.ok()) return seg.status();
    const uint32_t file = (*seg)->file_number;
    SegmentStore store(*this, **seg, t.temporary, ix.object_id, rec, sd);
    BTree tree(store, (*seg)->blocks[0], static_cast<uint32_t>(ix.columns.size()));
    std::vector<BTree::Split> splits;
    std::vector<LeafBatch> batches;
    for (const auto& [insert, key] : ops) {
      std::optional<uint32_t> leaf;
      if (insert) {
        if (ix.unique && deferred == nullptr) {
          std::optional<std::vector<uint8_t>> dup;
          tree.Scan(&key, [&](absl::Span<const uint8_t> k) {
            dup.emplace(k.begin(), k.end());
            return false;
          });
          if (dup.has_value()) return DuplicateKey(*this, sd, t, ix, *dup);
          if (absl::Status st = CheckDeletedKey(*this, sd, t, ix, key); !st.ok()) return st;
        }
        absl::StatusOr<uint32_t> at = tree.Insert(key, &splits);
        if (!at.ok()) return at.status();
        leaf = *at;
        if (ix.unique && deferred != nullptr) deferred->emplace_back(&ix, key);
      } else {
        leaf = tree.Remove(key);
        if (!leaf.has_value()) {
          return absl::InternalError(fmt::format(
              "index {} has no entry for the row of {} being changed: the index and the table "
              "disagree (drop and create the index)", ix.name, t.name));
        }
        if (ix.unique && !t.temporary) {
          deleted_unique_keys.emplace(std::make_pair(ix.object_id, KeyColumns(key)),
                                      std::make_pair(sd.sid, key));
        }
      }
      sd.txn.undo.push_back({insert ? RowChange::kInsert : RowChange::kDelete, file, *leaf, 0, key,
                             ix.object_id, false, false, true});
      AddToBatch(batches, insert, *leaf, key);
    }
    for (const BTree::Split& s : splits) {
      if (absl::Status st = SplitRedo(*this, rec, sd, t.temporary, s); !st.ok()) return st;
    }
    for (const LeafBatch& b : batches) {
      const uint32_t n = static_cast<uint32_t>(b.keys.size());
      uint32_t key_bytes = 0;
      for (const auto& k : b.keys) key_bytes += static_cast<uint32_t>(k.size());
      uint32_t data = 0;
      if (!t.temporary) {
        data = b.insert ? redo::IndexInsertVector(n, key_bytes + 4 * n) : redo::IndexDeleteVector(n);
        redo::AppendIndex(pending_redo, b.insert, ix.object_id, file, b.leaf, b.keys);
        ++pending_entries;
      }
      absl::Status st = AddUndo(rec, sd, t.temporary, redo::IndexUndoRecord(n, key_bytes), data, 1);
      if (!st.ok()) return st;
    }
  }
  return absl::OkStatus();
}

absl::Status DataEngine::CheckUnique(
    Recorder& rec, SessionData& sd, TableDef& t,
    const std::vector<std::pair<IndexDef*, std::vector<uint8_t>>>& keys) {
  for (const auto& written : keys) {
    IndexDef* const ix = written.first;  // (not a structured binding: the lambda below uses it)
    const std::vector<uint8_t>& key = written.second;
    absl::StatusOr<Segment*> seg = IndexSegment(rec, sd, t, *ix, false);
    if (!seg.ok()) return seg.status();
    if (*seg == nullptr) continue;
    SegmentStore store(*this, **seg, t.temporary, ix->object_id, rec, sd);
    BTree tree(store, (*seg)->blocks[0], static_cast<uint32_t>(ix->columns.size()));
    // The key written (with its rowid) and any other: a duplicate.
    std::optional<std::vector<uint8_t>> other;
    tree.Scan(&key, [&](absl::Span<const uint8_t> k) {
      if (CompareKeys(k, key, static_cast<uint32_t>(ix->columns.size()), true) != 0) {
        other.emplace(k.begin(), k.end());
      }
      return !other.has_value();
    });
    if (other.has_value()) return DuplicateKey(*this, sd, t, *ix, *other);
    if (absl::Status st = CheckDeletedKey(*this, sd, t, *ix, key); !st.ok()) return st;
  }
  return absl::OkStatus();
}

void DataEngine::UndoIndexEntry(SessionData& sd, const UndoEntry& u) {
  IndexDef* ix = nullptr;
  TableDef* t = OwnerOf(u.obj, &ix);
  if (t == nullptr || ix == nullptr) return;  // dropped since (or truncated: a new object id)
  Segment* seg = &ix->segment;
  if (t->temporary) {
    auto it = sd.gtt_segments.find(u.obj);
    if (it == sd.gtt_segments.end()) return;
    seg = &it->second;
  }
  if (seg->blocks.empty()) return;
  SegmentStore store(*this, *seg, t->temporary, ix->object_id);
  BTree tree(store, seg->blocks[0], static_cast<uint32_t>(ix->columns.size()));
  if (u.op == RowChange::kInsert) {
    (void)tree.Remove(u.before);
  } else {
    // Putting a key back may split a leaf; a full tablespace then leaves the
    // entry out (rare: the key's own space was freed by its delete).
    (void)tree.Insert(u.before, nullptr);
  }
}

absl::StatusOr<std::optional<std::vector<IndexRowId>>> DataEngine::IndexRange(
    Recorder& rec, SessionData& sd, TableDef& t, uint16_t column, const Value& value) {
  IndexDef* ix = nullptr;
  for (IndexDef& x : t.indexes) {
    if (ix == nullptr && x.columns[0] == column) ix = &x;
  }
  Value v = value;
  if (ix == nullptr || v.is_null() || CoerceForColumn(t.columns[column], v).has_value()) {
    return std::optional<std::vector<IndexRowId>>();  // no index, or a value the column cannot hold
  }
  // The probe: the leading column's image; the tree compares that column only.
  const std::vector<std::vector<uint8_t>> images =
      ColumnImages(EncodeRow({t.columns[column]}, {v}));
  std::vector<uint8_t> probe = images.empty() ? std::vector<uint8_t>{0xFF} : images[0];
  std::vector<IndexRowId> out;
  absl::StatusOr<Segment*> seg = IndexSegment(rec, sd, t, *ix, false);
  if (!seg.ok()) return seg.status();
  if (*seg == nullptr) return std::optional<std::vector<IndexRowId>>(out);
  SegmentStore store(*this, **seg, t.temporary, ix->object_id, rec, sd);
  BTree(store, (*seg)->blocks[0], 1).Scan(&probe, [&](absl::Span<const uint8_t> k) {
    out.push_back(RowOfKey(k));
    return true;
  });
  return std::optional<std::vector<IndexRowId>>(std::move(out));
}

absl::Status DataEngine::BuildIndex(Recorder& rec, SessionData* sd, TableDef& t, IndexDef& ix) {
  if (t.temporary) return absl::OkStatus();  // a GTT's index fills with its session's rows
  Segment& ts = t.segment;
  if (absl::Status st = EnsureCached(rec, ts.file_number, ts.blocks, t.object_id); !st.ok()) {
    return st;
  }
  std::vector<std::vector<uint8_t>> keys;
  CountConsistentGets(rec, static_cast<int64_t>(ts.blocks.size()));  // a full scan of the table
  for (uint32_t b : ts.blocks) {
    HeapBlock hb(absl::MakeSpan(Block(ts.file_number, b).bytes));
    for (uint16_t slot = 0; slot < hb.rows(); ++slot) {
      if (!hb.live(slot)) continue;
      std::optional<std::vector<uint8_t>> k = MakeIndexKey(
          ColumnImages(hb.RowBytes(slot)), ix.columns, format::Rdba(ts.file_number, b), slot);
      if (k.has_value()) keys.push_back(std::move(*k));
    }
  }
  const uint32_t ncols = static_cast<uint32_t>(ix.columns.size());
  CountSort(rec, static_cast<int64_t>(keys.size()));
  std::sort(keys.begin(), keys.end(), [&](const auto& a, const auto& b) {
    return CompareKeys(a, b, ncols, true) < 0;
  });
  for (size_t i = 1; ix.unique && i < keys.size(); ++i) {
    if (CompareKeys(keys[i - 1], keys[i], ncols, false) == 0) {
      return absl::FailedPreconditionError(fmt::format(
          "ORA-01452: cannot CREATE UNIQUE INDEX {}; duplicate keys found in {}", ix.name, t.name));
    }
  }
  SessionData none;
  absl::StatusOr<Segment*> seg = IndexSegment(rec, sd != nullptr ? *sd : none, t, ix, true);
  if (!seg.ok()) return seg.status();
  SegmentStore store(*this, **seg, false, ix.object_id);
  BTree tree(store, (*seg)->blocks[0], ncols);
  // Ascending keys: each leaf fills before the next (90/10 splits).
  for (const std::vector<uint8_t>& k : keys) {
    if (absl::StatusOr<uint32_t> at = tree.Insert(k, nullptr); !at.ok()) return at.status();
  }
  return absl::OkStatus();
}

absl::Status DataEngine::RebuildIndexes(std::vector<std::string>* actions) {
  Recorder rec = db->SystemRecorder();
  uint32_t n = 0;
  std::string names;
  // Nothing logs an index change or reads an index before recovery's
  // checkpoint, which writes the dictionary with every new extent in it.
  defer_extent_dictionary_writes = true;
  absl::Cleanup resume = [this]() ABSL_NO_THREAD_SAFETY_ANALYSIS {
    defer_extent_dictionary_writes = false;
  };
  for (auto& [name, t] : tables) {
    if (t.temporary) continue;
    for (IndexDef& ix : t.indexes) {
      FreeSegment(ix.segment);
      if (absl::Status st = BuildIndex(rec, nullptr, t, ix); !st.ok()) {
        return absl::Status(st.code(), fmt::format("instance recovery: rebuilding index {} of {}: {}",
                                                   ix.name, t.name, std::string(st.message())));
      }
      names += (n++ == 0 ? "" : ", ") + ix.name;
    }
  }
  if (n > 0) {
    actions->push_back(fmt::format(
        "instance recovery: {} indexes rebuilt from their recovered tables ({})", n, names));
  }
  return absl::OkStatus();
}

// ---- CREATE INDEX / DROP INDEX ----

absl::Status CheckSegmentTablespace(DataEngine& e, const std::string& tablespace) {
  // TEMP's space is the instance's (never persisted); UNDOTBS1 holds the
  // checkpoint's undo (docs/redo.md).
  const FileTable table = e.FileTableCopy();
  const Tablespace* ts = table.FindTablespace(tablespace);
  if (ts != nullptr && (ts->name == "TEMP" || ts->contents != TablespaceContents::kPermanent)) {
    return absl::InvalidArgumentError(
        ts->contents == TablespaceContents::kUndo
            ? fmt::format("ORA-30022: Cannot create segments in undo tablespace {}", ts->name)
            : fmt::format("ORA-02195: Attempt to create PERMANENT object in a TEMPORARY "
                          "tablespace ({})", ts->name));
  }
  return absl::OkStatus();
}

IndexDef* FindIndexNamed(DataEngine& e, const std::string& name, TableDef** table) {
  e.mu.AssertHeld();
  for (auto& [tname, t] : e.tables) {
    for (IndexDef& ix : t.indexes) {
      if (ix.name == name) {
        if (table != nullptr) *table = &t;
        return &ix;
      }
    }
  }
  return nullptr;
}

absl::Status ForEachLiveRow(DataEngine& e, SessionData& sd, Recorder& rec, TableDef& t,
                            const LiveRowVisitor& fn) {
  Segment* seg = e.TableSegment(sd, t, false);
  if (seg == nullptr) return absl::OkStatus();
  if (!t.temporary) {
    if (absl::Status st = e.EnsureCached(rec, seg->file_number, seg->blocks, t.object_id); !st.ok()) {
      return st;
    }
  }
  for (uint32_t b : seg->blocks) {
    CountConsistentGets(rec, 1);
    HeapBlock hb(absl::MakeSpan(e.Block(seg->file_number, b).bytes));
    for (uint16_t slot = 0; slot < hb.rows(); ++slot) {
      if (hb.live(slot) && !fn(seg->file_number, b, slot, hb.RowBytes(slot))) return absl::OkStatus();
    }
  }
  return absl::OkStatus();
}

absl::Status CheckTableNotInUse(DataEngine& e, const SessionData& sd, const TableDef& t,
                                bool own_gtt_rows_too) {
  for (auto& [sid, other] : e.sessions) {
    if (t.temporary) {
      if ((other != &sd || own_gtt_rows_too) && other->gtt_segments.count(t.object_id) != 0) {
        return absl::FailedPreconditionError(fmt::format(
            "ORA-14452: attempt to create, alter or drop an index on temporary table already in "
            "use (session {} has rows in {})", sid, t.name));
      }
      continue;
    }
    if (other == &sd || !other->txn.active) continue;
    for (const UndoEntry& u : other->txn.undo) {
      if (u.obj == t.object_id) {
        return absl::FailedPreconditionError(fmt::format(
            "ORA-00054: resource busy and acquire with NOWAIT specified or timeout expired "
            "(session {} has an open transaction on {})", sid, t.name));
      }
    }
  }
  return absl::OkStatus();
}

namespace {

// Oracle's limit for an 8 KiB block is 6,398 bytes; cellsim's tree needs two
// entries per block.
constexpr uint32_t kMaxKeyBytes = 3800;

absl::StatusOr<std::vector<uint16_t>> IndexColumns(const TableDef& t, const CreateIndex& c) {
  std::vector<uint16_t> cols;
  uint32_t key_bytes = kRowIdBytes;
  for (const std::string& name : c.columns) {
    absl::StatusOr<size_t> column = ColumnOf(t, name);
    if (!column.ok()) return column.status();
    const size_t k = *column;
    if (std::find(cols.begin(), cols.end(), k) != cols.end()) {
      return absl::InvalidArgumentError(fmt::format("ORA-00957: duplicate column name ({})", name));
    }
    cols.push_back(static_cast<uint16_t>(k));
    const Column& col = t.columns[k];
    key_bytes += 3 + ColumnMaxBytes(col);
  }
  if (key_bytes > kMaxKeyBytes) {
    return absl::InvalidArgumentError(fmt::format(
        "ORA-01450: maximum key length ({}) exceeded: the columns of index {} take up to {} bytes",
        kMaxKeyBytes, c.name, key_bytes));
  }
  for (const IndexDef& ix : t.indexes) {
    if (ix.columns == cols) {
      return absl::InvalidArgumentError(fmt::format(
          "ORA-01408: such column list already indexed (by {})", ix.name));
    }
  }
  return cols;
}

absl::Status CreateIndexRun(DataEngine& e, SessionData& sd, Recorder& rec, const CreateIndex& c,
                            DataOutcome* out) ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu) {
  if (absl::Status st = CheckNameFree(e, c.name); !st.ok()) return st;
  auto it = e.tables.find(c.table);
  if (it == e.tables.end()) {
    return absl::NotFoundError(
        fmt::format("ORA-00942: table or view \"{}\" does not exist", c.table));
  }
  // DDL commits the session's transaction first.
  if (absl::Status st = e.Commit(rec, sd); !st.ok()) return st;
  DataEngine::DictionaryState before = e.BeginDdl();
  if (absl::Status st = AddIndex(e, sd, rec, it->second, c); !st.ok()) {
    return e.FailDdl(std::move(st), std::move(before), &sd);
  }
  // DDL is acknowledged once the dictionary holds it.
  if (absl::Status st = e.WriteDictionaryOrRestore(std::move(before), &sd); !st.ok()) return st;
  out->feedback = "Index created.";
  return absl::OkStatus();
}

}  // namespace

absl::Status AddIndex(DataEngine& e, SessionData& sd, Recorder& rec, TableDef& t,
                      const CreateIndex& c) {
  e.mu.AssertHeld();
  absl::StatusOr<std::vector<uint16_t>> cols = IndexColumns(t, c);
  if (!cols.ok()) return cols.status();
  if (t.temporary && !c.tablespace.empty()) {
    return absl::InvalidArgumentError(fmt::format(
        "ORA-14451: unsupported feature with temporary table (TABLESPACE {}: a temporary table's "
        "index lives in the session's temporary segment)", c.tablespace));
  }
  if (absl::Status st = CheckTableNotInUse(e, sd, t, true); !st.ok()) return st;
  IndexDef ix;
  ix.name = c.name;
  ix.columns = *cols;
  ix.unique = c.unique;
  ix.tablespace = t.temporary ? "TEMP" : c.tablespace.empty() ? t.tablespace : c.tablespace;
  absl::StatusOr<uint32_t> file = e.DataFileOf(ix.tablespace);
  if (!file.ok()) return file.status();
  if (!t.temporary) {
    if (absl::Status st = CheckSegmentTablespace(e, ix.tablespace); !st.ok()) return st;
  }
  ix.segment.file_number = *file;
  ix.object_id = e.next_object_id++;
  t.indexes.push_back(std::move(ix));
  if (absl::Status st = e.BuildIndex(rec, &sd, t, t.indexes.back()); !st.ok()) {
    if (!t.temporary) e.FreeSegment(t.indexes.back().segment);
    e.FreeSessionSegment(sd, t.indexes.back().object_id);
    t.indexes.pop_back();
    return st;
  }
  return absl::OkStatus();
}

absl::Status AddKeyConstraint(DataEngine& e, SessionData& sd, Recorder& rec, TableDef& t,
                              const TableConstraint& k) {
  e.mu.AssertHeld();
  CreateIndex c;
  c.name = k.name.empty() ? fmt::format("SYS_C{:07d}", e.next_object_id) : k.name;
  c.table = t.name;
  c.columns = k.columns;
  c.unique = true;
  // (AddIndex checks them further: ORA-00957, ORA-01408)
  absl::StatusOr<std::vector<uint16_t>> cols = ColumnPositions(t, k.columns);
  if (!cols.ok()) return cols.status();
  for (const IndexDef& ix : t.indexes) {
    if (k.primary_key && ix.constraint == KeyConstraint::kPrimaryKey) {
      return absl::InvalidArgumentError(fmt::format(
          "ORA-02260: table can have only one primary key ({} has {})", t.name, ix.name));
    }
    if (ix.constraint != KeyConstraint::kNone && ix.columns == *cols) {
      return absl::InvalidArgumentError(fmt::format(
          "ORA-02261: such unique or primary key already exists in the table ({} on {})",
          ix.name, fmt::join(k.columns, ", ")));
    }
  }
  if (absl::Status st = CheckNameFree(e, c.name); !st.ok()) return st;
  if (absl::Status st = CheckConstraintNameFree(e, t, c.name); !st.ok()) return st;
  if (absl::Status st = AddIndex(e, sd, rec, t, c); !st.ok()) return st;
  t.indexes.back().constraint = k.primary_key ? KeyConstraint::kPrimaryKey : KeyConstraint::kUnique;
  return absl::OkStatus();
}

DroppedIndex::DroppedIndex(DataEngine& e, TableDef& t, std::vector<IndexDef>::iterator ix)
    : object_id_(ix->object_id), temporary_(t.temporary) {
  if (!temporary_) freed_ = e.ReleaseExtents(ix->segment);
  t.indexes.erase(ix);
}

void DroppedIndex::Forget(DataEngine& e, SessionData& sd) {
  if (object_id_ == 0) return;
  if (temporary_) {
    e.FreeSessionSegment(sd, object_id_);
  } else {
    e.EvictBlocks(freed_);
  }
}

namespace {

absl::Status DropIndexRun(DataEngine& e, SessionData& sd, Recorder& rec, const DropIndex& d,
                          DataOutcome* out) ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu) {
  TableDef* t = nullptr;
  IndexDef* ix = FindIndexNamed(e, d.name, &t);
  if (ix == nullptr) return absl::NotFoundError("ORA-01418: specified index does not exist");
  if (ix->constraint != KeyConstraint::kNone) {
    return absl::FailedPreconditionError(fmt::format(
        "ORA-02429: cannot drop index used for enforcement of unique/primary key ({} is the "
        "index of {}'s {} constraint {}: ALTER TABLE {} DROP CONSTRAINT {} drops both)",
        ix->name, t->name, ix->constraint == KeyConstraint::kPrimaryKey ? "PRIMARY KEY" : "UNIQUE",
        ix->name, t->name, ix->name));
  }
  if (absl::Status st = e.Commit(rec, sd); !st.ok()) return st;
  if (absl::Status st = CheckTableNotInUse(e, sd, *t, false); !st.ok()) return st;
  DataEngine::DictionaryState before = e.BeginDdl();
  DroppedIndex dropped(e, *t, t->indexes.begin() + (ix - t->indexes.data()));
  if (absl::Status st = e.WriteDictionaryOrRestore(std::move(before)); !st.ok()) return st;
  dropped.Forget(e, sd);
  out->feedback = "Index dropped.";
  return absl::OkStatus();
}

// The index's entries against the table's rows: the same keys (every row
// with a non-NULL key found, no other entry), in ascending order along the
// leaf chain, each found again by a descent from the root.
absl::Status ValidateIndex(DataEngine& e, Recorder& rec, SessionData& sd, TableDef& t,
                           IndexDef& ix) ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu) {
  const uint32_t ncols = static_cast<uint32_t>(ix.columns.size());
  std::vector<std::vector<uint8_t>> rows;
  absl::Status scanned = ForEachLiveRow(
      e, sd, rec, t, [&](uint32_t file, uint32_t b, uint16_t slot, absl::Span<const uint8_t> bytes) {
        std::optional<std::vector<uint8_t>> k =
            MakeIndexKey(ColumnImages(bytes), ix.columns, format::Rdba(file, b), slot);
        if (k.has_value()) rows.push_back(std::move(*k));
        return true;
      });
  if (!scanned.ok()) return scanned;
  std::sort(rows.begin(), rows.end(),
            [&](const auto& a, const auto& b) { return CompareKeys(a, b, ncols, true) < 0; });
  std::vector<std::vector<uint8_t>> entries;
  std::string bad;
  absl::StatusOr<Segment*> seg = e.IndexSegment(rec, sd, t, ix, false);
  if (!seg.ok()) return seg.status();
  if (*seg != nullptr) {
    SegmentStore store(e, **seg, t.temporary, ix.object_id);
    BTree tree(store, (*seg)->blocks[0], ncols);
    tree.Scan(nullptr, [&](absl::Span<const uint8_t> k) {
      if (!entries.empty() && CompareKeys(entries.back(), k, ncols, true) >= 0) {
        bad = fmt::format("entry {} is out of order", entries.size() + 1);
      }
      entries.emplace_back(k.begin(), k.end());
      return true;
    });
    for (size_t i = 0; bad.empty() && i < entries.size(); ++i) {
      if (!tree.Contains(entries[i])) {
        bad = fmt::format("entry {} is not where the branch blocks lead", i + 1);
      }
    }
  }
  if (bad.empty() && entries != rows) {
    size_t i = 0;
    while (i < entries.size() && i < rows.size() && entries[i] == rows[i]) ++i;
    bad = fmt::format("the index has {} entries, the table {} rows to index; they differ from "
                      "key {} on", entries.size(), rows.size(), i + 1);
  }
  if (bad.empty()) return absl::OkStatus();
  return absl::DataLossError(fmt::format(
      "ORA-01499: table/index cross reference failure: index {} of table {}: {}", ix.name, t.name,
      bad));
}

// Index `ix` of `t`'s statistics, read from its tree.
absl::StatusOr<IndexStats> GatherIndexStats(DataEngine& e, Recorder& rec, SessionData& sd,
                                            TableDef& t, IndexDef& ix, int64_t now)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu) {
  IndexStats x;
  x.last_analyzed = now;
  absl::StatusOr<Segment*> seg = e.IndexSegment(rec, sd, t, ix, false);
  if (!seg.ok()) return seg.status();
  if (*seg == nullptr) return x;  // a GTT's, before this session's first row
  const uint32_t ncols = static_cast<uint32_t>(ix.columns.size());
  SegmentStore store(e, **seg, t.temporary, ix.object_id);
  BTree tree(store, (*seg)->blocks[0], ncols);
  std::vector<uint8_t> last;
  tree.Scan(nullptr, [&](absl::Span<const uint8_t> k) {
    ++x.num_rows;
    if (last.empty() || CompareKeys(last, k, ncols, false) != 0) ++x.distinct_keys;
    // The rowid's block (its last 6 bytes: rdba, slot): a new one is a
    // table block more to read in the index's order.
    if (last.empty() || !std::equal(last.end() - kRowIdBytes, last.end() - 2, k.end() - kRowIdBytes)) {
      ++x.clustering_factor;
    }
    last.assign(k.begin(), k.end());
    return true;
  });
  x.leaf_blocks = tree.LeafBlocks();
  x.blevel = tree.Height() - 1;
  return x;
}

// ANALYZE ... COMPUTE / DELETE STATISTICS (and DBMS_STATS): a DDL
// statement, committing first, the statistics kept in the dictionary.
absl::Status AnalyzeStatistics(DataEngine& e, SessionData& sd, Recorder& rec, const Analyze& a,
                               TableDef& t, IndexDef* only) ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu) {
  if (absl::Status st = e.Commit(rec, sd); !st.ok()) return st;
  DataEngine::DictionaryState before = e.BeginDdl();
  const bool gather = a.action == Analyze::Action::kComputeStatistics;
  const int64_t now = e.db->clock->UnixSeconds();
  if (only == nullptr) {
    t.stats.reset();
    if (gather) {
      TableStats s;
      s.last_analyzed = now;
      uint64_t bytes = 0;
      absl::Status scanned = ForEachLiveRow(
          e, sd, rec, t, [&](uint32_t, uint32_t, uint16_t, absl::Span<const uint8_t> row) {
            ++s.num_rows;
            bytes += row.size();
            return true;
          });
      if (!scanned.ok()) return e.FailDdl(std::move(scanned), std::move(before), &sd);
      const Segment* seg = e.TableSegment(sd, t, false);
      s.blocks = seg == nullptr ? 0 : seg->blocks.size();
      s.avg_row_len = s.num_rows == 0 ? 0 : (bytes + s.num_rows / 2) / s.num_rows;
      t.stats = s;
    }
  }
  for (IndexDef& ix : t.indexes) {
    if (only != nullptr ? &ix != only : !a.cascade) continue;
    ix.stats.reset();
    if (!gather) continue;
    absl::StatusOr<IndexStats> x = GatherIndexStats(e, rec, sd, t, ix, now);
    if (!x.ok()) return e.FailDdl(x.status(), std::move(before), &sd);
    ix.stats = *x;
  }
  return e.WriteDictionaryOrRestore(std::move(before), &sd);
}

absl::Status AnalyzeRun(DataEngine& e, SessionData& sd, Recorder& rec, const Analyze& a,
                        DataOutcome* out) ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu) {
  const bool statistics = a.action != Analyze::Action::kValidateStructure;
  if (a.index) {
    TableDef* t = nullptr;
    IndexDef* ix = FindIndexNamed(e, a.name, &t);
    if (ix == nullptr) return absl::NotFoundError("ORA-01418: specified index does not exist");
    out->feedback = "Index analyzed.";
    if (statistics) return AnalyzeStatistics(e, sd, rec, a, *t, ix);
    return ValidateIndex(e, rec, sd, *t, *ix);
  }
  auto it = e.tables.find(a.name);
  if (it == e.tables.end()) {
    return absl::NotFoundError(
        fmt::format("ORA-00942: table or view \"{}\" does not exist", a.name));
  }
  if (statistics) {
    out->feedback = "Table analyzed.";
    return AnalyzeStatistics(e, sd, rec, a, it->second, nullptr);
  }
  for (IndexDef& ix : it->second.indexes) {
    if (!a.cascade) break;
    if (absl::Status st = ValidateIndex(e, rec, sd, it->second, ix); !st.ok()) return st;
  }
  out->feedback = "Table analyzed.";
  return absl::OkStatus();
}

}  // namespace

bool RunIndexDdl(DataEngine& e, SessionData& sd, Recorder& rec, const DataStatement& st,
                 DataOutcome* out, absl::Status* status) {
  e.mu.AssertHeld();
  if (const auto* x = std::get_if<CreateIndex>(&st)) {
    *status = CreateIndexRun(e, sd, rec, *x, out);
    return true;
  }
  if (const auto* x = std::get_if<DropIndex>(&st)) {
    *status = DropIndexRun(e, sd, rec, *x, out);
    return true;
  }
  if (const auto* x = std::get_if<Analyze>(&st)) {
    *status = AnalyzeRun(e, sd, rec, *x, out);
    return true;
  }
  return false;
}

}  // namespace cellsim::db::internal
