// DDL on tables, DML with undo and redo, COMMIT / ROLLBACK, ALTER SYSTEM and
// SHOW PARAMETER (docs/redo.md gives the undo and redo of each operation).
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>
#include <set>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/ascii.h"
#include "cellsim/db/all_objects.h"
#include "cellsim/db/data_engine.h"
#include "cellsim/db/data_views.h"
#include "cellsim/db/sql_functions.h"
#include "cellsim/db/redo_model.h"

namespace cellsim::db::internal {
namespace {

struct Dml {
  DataEngine& e;
  Session::State& s;
  SessionData& sd;
  Recorder& rec;
  StatementEnv env;  // StatementEnvOf(s, the statement's SequenceDraw)
};

// The table `statement` (DROP TABLE, TRUNCATE TABLE) names: ORA-00942 for
// any other name, saying so when it is a view's.
absl::StatusOr<TableDef*> FindTable(DataEngine& e, const std::string& name, std::string_view statement)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu) {
  auto it = e.tables.find(name);
  if (it != e.tables.end()) return &it->second;
  if (e.views.count(name) != 0) {  // Oracle's error, and what was meant
    return absl::NotFoundError(fmt::format(
        "ORA-00942: table or view does not exist ({} is a view: {} names tables{})", name,
        statement, statement == "DROP TABLE" ? fmt::format("; DROP VIEW {}", name) : ""));
  }
  return absl::NotFoundError(fmt::format("ORA-00942: table or view \"{}\" does not exist", name));
}

// The table a DML statement changes: a view's name gets ORA-01732 or
// ORA-42399 (cellsim's views are read-only).
absl::StatusOr<TableDef*> FindDmlTarget(DataEngine& e, const std::string& name)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu) {
  if (absl::Status st = RefuseViewDml(e, name); !st.ok()) return st;
  return FindTable(e, name, "DML");
}


// Inserts rows block by block: one undo record (and for a heap table one
// QMI vector) per block when `array`, one per row otherwise.
//
// It lives inside one call of a function that holds the engine's mu (its
// constructor requires it), so its methods assert that lock for the analysis,
// which cannot follow the reference d_.e back to the caller's engine.
class RowInserter {
 public:
  RowInserter(Dml& d, TableDef& t, bool array) ABSL_EXCLUSIVE_LOCKS_REQUIRED(d.e.mu)
      : d_(d), t_(t), array_(array) {}

  absl::Status Add(Row row) {
    d_.e.mu.AssertHeld();
    for (size_t i = 0; i < t_.columns.size(); ++i) {
      if (std::optional<std::string> err = CoerceForColumn(t_.columns[i], row[i]); err) {
        return absl::InvalidArgumentError(*err);
      }
      if (t_.columns[i].not_null && row[i].is_null()) {
        return absl::InvalidArgumentError(fmt::format(
            "ORA-01400: cannot insert NULL into (\"CELLSIM\".\"{}\".\"{}\")", t_.name,
            t_.columns[i].name));
      }
    }
    if (absl::Status st = CheckRow(t_, row, d_.env); !st.ok()) return st;
    return AddEncoded(EncodeRow(t_.columns, row));
  }

  // A row already in the table's row format (coerced and encoded).
  absl::Status AddEncoded(absl::Span<const uint8_t> bytes) {
    d_.e.mu.AssertHeld();
    if (seg_ == nullptr) {
      seg_ = d_.e.TableSegment(d_.sd, t_, true);
      if (seg_ == nullptr) return d_.e.DataFileOf("TEMP").status();
    }
    Segment& seg = *seg_;
    std::optional<uint16_t> slot;
    if (block_ == nullptr && !seg.blocks.empty()) {  // the segment's last block, read if need be
      if (!t_.temporary) {
        absl::Status st = d_.e.EnsureCached(d_.rec, seg.file_number,
                                            absl::MakeConstSpan(&seg.blocks.back(), 1), t_.object_id);
        if (!st.ok()) return st;
      }
      block_ = &d_.e.Block(seg.file_number, seg.blocks.back());
    }
    if (block_ != nullptr) {
      slot = HeapBlock(absl::MakeSpan(block_->bytes))
                 .Insert(bytes, false, d_.e.HeldSpace(seg.file_number, seg.blocks.back()));
    }
    if (!slot) {
      if (absl::Status st = FlushBlock(); !st.ok()) return st;
      absl::StatusOr<uint32_t> b = d_.e.NewBlock(seg, t_.temporary, t_.object_id);
      if (!b.ok()) return b.status();
      block_ = &d_.e.Block(seg.file_number, *b);
      slot = HeapBlock(absl::MakeSpan(block_->bytes)).Insert(bytes, true);
      if (!slot) return absl::InvalidArgumentError("ORA-01401: row larger than a block");
    }
    block_->dirty = !block_->temp;
    d_.e.AddRowUndo(d_.rec, d_.sd, {RowChange::kInsert, seg.file_number, seg.blocks.back(), *slot, {},
                            t_.object_id, !t_.temporary});
    if (!t_.temporary) {  // the after image for the block's redo entry
      pending_file_ = seg.file_number;
      pending_block_ = seg.blocks.back();
      pending_slots_.push_back(*slot);
      const uint16_t len = static_cast<uint16_t>(bytes.size());
      pending_images_.push_back(static_cast<uint8_t>(len));
      pending_images_.push_back(static_cast<uint8_t>(len >> 8));
      pending_images_.insert(pending_images_.end(), bytes.begin(), bytes.end());
    }
    if (!t_.indexes.empty()) {
      index_rows_.push_back({true, std::vector<uint8_t>(bytes.begin(), bytes.end()), seg.file_number,
                             seg.blocks.back(), *slot});
    }
    ++rows_;
    ++pending_rows_;
    pending_bytes_ += static_cast<uint32_t>(bytes.size());
    if (!array_) return FlushBlock();
    return absl::OkStatus();
  }

  absl::Status FlushBlock() {
    d_.e.mu.AssertHeld();
    if (pending_rows_ == 0) return absl::OkStatus();
    uint32_t undo = 0, data = 0;
    if (array_) {
      undo = redo::kUndoArrayBase + redo::kUndoArrayPerRow * pending_rows_;
      if (!t_.temporary) {
        data = redo::VectorBytes({redo::kKtb, redo::kKdoArray + 2 * pending_rows_, pending_bytes_});
      }
    } else {
      undo = redo::kUndoSingleRow;
      if (!t_.temporary) data = redo::VectorBytes({redo::kKtb, redo::kKdoSingle, pending_bytes_});
    }
    pending_rows_ = 0;
    pending_bytes_ = 0;
    if (!pending_slots_.empty()) {
      redo::AppendInsert(d_.e.pending_redo, t_.object_id, pending_file_, pending_block_,
                         pending_slots_, pending_images_);
      ++d_.e.pending_entries;
      pending_slots_.clear();
      pending_images_.clear();
    }
    absl::Status st = d_.e.AddUndo(d_.rec, d_.sd, t_.temporary, undo, data, 1,
                                   array_ ? redo::kArrayUndoVectorExtra : 0);
    if (!st.ok() || index_rows_.empty()) return st;
    // The block's rows into the table's indexes (after its own record).
    std::vector<IndexedRow> rows = std::move(index_rows_);
    index_rows_.clear();
    return d_.e.MaintainIndexes(d_.rec, d_.sd, t_, rows);
  }

  int64_t rows() const { return rows_; }

 private:
  Dml& d_;
  TableDef& t_;
  bool array_;
  int64_t rows_ = 0;
  // The table's segment and the block being filled: the engine's map and
  // cache keep their elements in place while the statement runs (only
  // FreeSegment, at DDL and commit, removes blocks).
  Segment* seg_ = nullptr;
  CachedBlock* block_ = nullptr;
  uint32_t pending_rows_ = 0;
  uint32_t pending_bytes_ = 0;
  // The rows of the block being filled, for its redo entry (heap tables).
  uint32_t pending_file_ = 0, pending_block_ = 0;
  std::vector<uint16_t> pending_slots_;
  std::vector<uint8_t> pending_images_;  // per row: u16 length, the row
  std::vector<IndexedRow> index_rows_;    // the block's rows, for the indexes
};

// The rows already in the block are logged even when the statement failed:
// they took row slots, so the redo must hold them for the log to replay the
// block (the statement-level rollback's record then undoes them).
absl::Status FlushEvenOnError(RowInserter& ins, const absl::Status& st) {
  absl::Status flushed = ins.FlushBlock();
  return st.ok() ? flushed : st;
}

// `select * from all_objects` (or DBA_OBJECTS) and nothing else.
bool IsAllObjectsStar(const Select& sel) {
  if (sel.from.size() != 1 || sel.items.size() != 1 || sel.where || sel.connect_by_level ||
      !sel.order_by.empty() || sel.distinct || !sel.group_by.empty() || sel.having ||
      !sel.set_operations.empty() || sel.offset_rows || sel.fetch_rows) {
    return false;
  }
  const FromSource& f = sel.from[0];
  const Expr& star = *sel.items[0].expr;
  return (f.table == "ALL_OBJECTS" || f.table == "DBA_OBJECTS") && !f.subquery && !f.on &&
         star.kind == Expr::Kind::kStar &&
         (star.qualifier.empty() || star.qualifier == (f.alias.empty() ? f.table : f.alias));
}

// INSERT ... SELECT * FROM ALL_OBJECTS (and CTAS of it), the seed's
// statement: the rows as `t` stores them come encoded once per process
// (all_objects.h) and go into the blocks as the row-by-row path would put
// them, with the same undo and redo. Nullopt when the statement has another
// shape or a value does not fit (the row-by-row path runs it and reports).
std::optional<absl::Status> InsertAllObjects(Dml& d, const TableDef& t, const Select& sel,
                                             RowInserter& ins)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(d.e.mu) {
  if (!IsAllObjectsStar(sel) || t.columns.size() != AllObjectsColumns().size() || !t.checks.empty()) {
    return std::nullopt;  // (a CHECK is evaluated row by row)
  }
  std::shared_ptr<const EncodedRows> rows =
      EncodedAllObjectsRows(d.e.all_objects_rows, d.e.FileTableCopy().created_unix, t.columns);
  if (rows == nullptr) return std::nullopt;
  // One undo entry per row: sized once, not grown by doubling (a session's
  // first 70,000-row insert spent most of its time moving the list).
  std::vector<UndoEntry>& undo = d.sd.txn.undo;
  if (undo.capacity() < undo.size() + rows->size()) {
    undo.reserve(std::max(undo.size() + rows->size(), 2 * undo.capacity()));
  }
  for (size_t i = 0; i < rows->size(); ++i) {
    if (absl::Status st = ins.AddEncoded(rows->row(i)); !st.ok()) return st;
  }
  return absl::OkStatus();
}

// What each column takes where an INSERT leaves it out or gives DEFAULT (and
// SET c = DEFAULT): its DEFAULT, evaluated once per statement (SYSDATE is one
// value for the statement, as in Oracle), or NULL without one; a DEFAULT
// that draws a sequence (DEFAULT s.NEXTVAL) is evaluated for each row
// (DefaultOf, RowToInsert).
struct ColumnDefaultValues {
  Row values;
  std::vector<std::pair<size_t, ExprPtr>> per_row;  // column, its DEFAULT
};

absl::StatusOr<Value> EvalDefault(const TableDef& t, size_t i, const absl::StatusOr<ExprPtr>& x,
                                  const StatementEnv& env) {
  static const std::vector<Column> kNone;
  static const Row kEmpty;
  absl::StatusOr<Value> v =
      x.ok() ? EvalIn(**x, kNone, kEmpty, "", nullptr, nullptr, "", env) : x.status();
  if (!v.ok()) {
    const Column& c = t.columns[i];
    return absl::Status(v.status().code(),
                        fmt::format("{} (in the DEFAULT of column {}.{}: {})",
                                    std::string(v.status().message()), t.name, c.name,
                                    c.default_sql));
  }
  return v;
}

absl::StatusOr<ColumnDefaultValues> ColumnDefaults(const TableDef& t, const StatementEnv& env) {
  ColumnDefaultValues d;
  d.values.resize(t.columns.size());
  for (size_t i = 0; i < t.columns.size(); ++i) {
    const Column& c = t.columns[i];
    if (c.default_sql.empty()) continue;
    absl::StatusOr<ExprPtr> x = ParseDataExpression(c.default_sql);
    if (x.ok() && HasSequence(**x)) {
      d.per_row.emplace_back(i, *x);
      continue;
    }
    absl::StatusOr<Value> v = EvalDefault(t, i, x, env);
    if (!v.ok()) return v.status();
    d.values[i] = *std::move(v);
  }
  return d;
}

// Column `k`'s default for the row at hand (a sequence's draw:
// BeginSequenceRow).
absl::StatusOr<Value> DefaultOf(const TableDef& t, const ColumnDefaultValues& d, size_t k,
                                const StatementEnv& env) {
  for (const auto& [i, x] : d.per_row) {
    if (i == k) return EvalDefault(t, i, x, env);
  }
  return d.values[k];
}

// Where an INSERT's values go: the named columns in order, or every column.
absl::StatusOr<std::vector<size_t>> Targets(const TableDef& t, const std::vector<std::string>& names,
                                            size_t values) {
  std::vector<size_t> to;
  if (names.empty()) {
    for (size_t i = 0; i < t.columns.size(); ++i) to.push_back(i);
  }
  for (const std::string& n : names) {
    absl::StatusOr<size_t> k = ColumnOf(t, n);
    if (!k.ok()) return k.status();
    if (std::find(to.begin(), to.end(), *k) != to.end()) {
      return absl::InvalidArgumentError(
          fmt::format("ORA-00957: duplicate column name ({} twice in the column list)", n));
    }
    to.push_back(*k);
  }
  if (values != to.size()) {
    return absl::InvalidArgumentError(values < to.size() ? "ORA-00947: not enough values"
                                                         : "ORA-00913: too many values");
  }
  return to;
}

// ORA-32795: a GENERATED ALWAYS identity column takes no value but the
// keyword DEFAULT (`exprs`: VALUES, null entries DEFAULT; null: a query's rows).
absl::Status CheckIdentityTargets(const TableDef& t, const std::vector<size_t>& targets,
                                  const std::vector<ExprPtr>* exprs) {
  for (size_t i = 0; i < targets.size(); ++i) {
    const Column& c = t.columns[targets[i]];
    if (c.identity != IdentityKind::kAlways || (exprs != nullptr && (*exprs)[i] == nullptr)) continue;
    return absl::InvalidArgumentError(fmt::format(
        "ORA-32795: cannot insert into a generated always identity column ({}.{}: leave it out, "
        "or give DEFAULT)", t.name, c.name));
  }
  return absl::OkStatus();
}

// ORA-32796: nor is it updated (but to DEFAULT).
absl::Status CheckIdentityUpdate(const TableDef& t, const std::vector<Assignment>& set) {
  for (const Assignment& a : set) {
    absl::StatusOr<size_t> k = ColumnOf(t, a.column);
    if (k.ok() && t.columns[*k].identity == IdentityKind::kAlways && a.value != nullptr) {
      return absl::InvalidArgumentError(fmt::format(
          "ORA-32796: cannot update a generated always identity column ({}.{})", t.name, a.column));
    }
  }
  return absl::OkStatus();
}

// The row an INSERT stores: `values` at `targets` (`keyword[i]`: the
// keyword DEFAULT there), the defaults elsewhere; a NULL given to a BY
// DEFAULT ON NULL identity column takes its default. A DEFAULT drawn per row
// (s.NEXTVAL) is drawn only for a column that takes it.
absl::StatusOr<Row> RowToInsert(const TableDef& t, const std::vector<size_t>& targets,
                                const Row& values, const std::vector<bool>* keyword,
                                const ColumnDefaultValues& d, const StatementEnv& env) {
  Row row = d.values;
  std::vector<bool> takes_default(t.columns.size(), true);
  for (size_t i = 0; i < targets.size(); ++i) {
    const size_t k = targets[i];
    const bool on_null = t.columns[k].identity == IdentityKind::kByDefaultOnNull && values[i].is_null();
    if ((keyword != nullptr && (*keyword)[i]) || on_null) continue;
    row[k] = values[i];
    takes_default[k] = false;
  }
  for (const auto& [k, x] : d.per_row) {
    if (!takes_default[k]) continue;
    absl::StatusOr<Value> v = EvalDefault(t, k, x, env);
    if (!v.ok()) return v.status();
    row[k] = *std::move(v);
  }
  return row;
}

// The row VALUES (...) gives `t` (null expressions: the keyword DEFAULT),
// evaluated over the source row, if any; `targets` from Targets.
absl::StatusOr<Row> ValuesRow(Dml& d, const TableDef& t, const std::vector<size_t>& targets,
                              const std::vector<ExprPtr>& exprs,
                              const ColumnDefaultValues& column_defaults, const Row* src_row,
                              const std::vector<Column>* src_cols, const std::string& src_q) {
  Row values(exprs.size());
  std::vector<bool> keyword(exprs.size(), false);
  static const std::vector<Column> kNone;
  static const Row kEmpty;
  for (size_t i = 0; i < exprs.size(); ++i) {
    if (exprs[i] == nullptr) {
      keyword[i] = true;
      continue;
    }
    absl::StatusOr<Value> v = EvalIn(*exprs[i], src_cols ? *src_cols : kNone,
                                     src_row ? *src_row : kEmpty, src_q, nullptr, nullptr, "", d.env);
    if (!v.ok()) return v.status();
    values[i] = *std::move(v);
  }
  return RowToInsert(t, targets, values, &keyword, column_defaults, d.env);
}

// VALUES (...) into `t` (null expressions: the keyword DEFAULT); `column_defaults`
// from ColumnDefaults.
absl::StatusOr<int64_t> InsertValues(Dml& d, TableDef& t, const std::vector<std::string>& cols,
                                     const std::vector<ExprPtr>& exprs,
                                     const ColumnDefaultValues& column_defaults,
                                     const Row* src_row, const std::vector<Column>* src_cols,
                                     const std::string& src_q)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(d.e.mu) {
  absl::StatusOr<std::vector<size_t>> targets = Targets(t, cols, exprs.size());
  if (!targets.ok()) return targets.status();
  if (absl::Status st = CheckIdentityTargets(t, *targets, &exprs); !st.ok()) return st;
  BeginSequenceRow(d.env);
  absl::StatusOr<Row> row =
      ValuesRow(d, t, *targets, exprs, column_defaults, src_row, src_cols, src_q);
  if (!row.ok()) return row.status();
  RowInserter ins(d, t, false);
  if (absl::Status st = ins.Add(*row); !st.ok()) return st;
  return 1;
}

// A row deleted from block `b`: its undo entry and, for a heap table, its
// redo entry (the row keeps its bytes: undo clears the flag).
void LogDelete(Dml& d, const TableDef& t, uint32_t file, uint32_t b, uint16_t slot)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(d.e.mu) {
  d.e.AddRowUndo(d.rec, d.sd, {RowChange::kDelete, file, b, slot, {}, t.object_id, !t.temporary});
  if (!t.temporary) {
    redo::AppendDelete(d.e.pending_redo, t.object_id, file, b, slot);
    ++d.e.pending_entries;
  }
}

// UPDATE / DELETE / MERGE's matched part: visits the live rows of `t` that
// `match` accepts and changes them.
using RowVisitor = std::function<absl::StatusOr<bool>(const Row&)>;
using RowRewrite = std::function<absl::StatusOr<std::optional<Row>>(const Row&)>;

// `merged` (MERGE): the rows earlier calls of this statement changed, where
// they are now; this call adds its own, and a row it matches that is already
// there is ORA-30926 (a target row joined to two source rows).
// For ChangeRows: whether row `at` of `t` (its block's bytes in `hb`) is one
// another open transaction changed, which the statement then finds as
// committed (CommittedView; one it inserted it does not see) and leaves
// alone; unless it is a row the statement changes: then the ORA-00054 of
// its holder, for the statement to wait (as Oracle's consistent read of the
// row, then its current get, waits).
absl::StatusOr<bool> AnotherTransactionsRow(Dml& d, CommittedView& view, const TableDef& t,
                                            const HeapBlock& hb, const IndexRowId& at,
                                            const RowVisitor& match)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(d.e.mu) {
  bool rebuilt = false;
  std::optional<absl::Span<const uint8_t>> seen = view.Row(hb, at.file, at.block, at.slot, &rebuilt);
  if (!rebuilt) return false;
  if (!seen.has_value()) return true;
  CountUndoRecordApplied(d.rec);
  absl::StatusOr<bool> m = match(DecodeRow(t.columns, *seen));
  if (!m.ok()) return m.status();
  if (!*m) return true;
  return d.e.CheckRowLock(d.sd, t, at.file, at.block, at.slot);
}

absl::StatusOr<int64_t> ChangeRows(Dml& d, TableDef& t, const RowVisitor& match,
                                   const RowRewrite& change /* nullopt: delete */,
                                   std::set<std::pair<uint32_t, uint16_t>>* merged = nullptr)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(d.e.mu) {
  Segment* seg = d.e.TableSegment(d.sd, t, false);
  if (seg == nullptr) return 0;
  if (!t.temporary) {
    absl::Status st = d.e.EnsureCached(d.rec, seg->file_number, seg->blocks, t.object_id);
    if (!st.ok()) return st;
  }
  int64_t n = 0;
  const std::vector<uint32_t> blocks = seg->blocks;
  // Rows this statement moved (row migration) are not visited again.
  std::set<std::pair<uint32_t, uint16_t>> moved;
  // Unique keys an update wrote, checked at the statement's end.
  std::vector<std::pair<IndexDef*, std::vector<uint8_t>>> unique_keys;
  CommittedView view(d.e, d.sd);
  for (uint32_t b : blocks) {
    // Ctrl-C: the statement stops between blocks and undoes itself (ORA-01013).
    if (Cancelled(d.s.cancel)) return absl::CancelledError(std::string(kCancelMessage));
    CountConsistentGets(d.rec, 1);  // the block as of the statement's start, to find its rows
    const uint16_t nrows = HeapBlock(absl::MakeSpan(d.e.Block(seg->file_number, b).bytes)).rows();
    for (uint16_t slot = 0; slot < nrows; ++slot) {
      if (moved.count({b, slot}) != 0) continue;
      CachedBlock& cb = d.e.Block(seg->file_number, b);
      HeapBlock hb(absl::MakeSpan(cb.bytes));
      if (!view.trivial() && !t.temporary) {
        absl::StatusOr<bool> others =
            AnotherTransactionsRow(d, view, t, hb, IndexRowId{seg->file_number, b, slot}, match);
        if (!others.ok()) return others.status();
        if (*others) continue;
      }
      if (!hb.live(slot)) continue;
      const std::vector<uint8_t> old_bytes(hb.RowBytes(slot).begin(), hb.RowBytes(slot).end());
      const Row old = DecodeRow(t.columns, old_bytes);
      absl::StatusOr<bool> m = match(old);
      if (!m.ok()) return m.status();
      if (!*m) continue;
      if (merged != nullptr && !merged->insert({b, slot}).second) {
        return absl::FailedPreconditionError(
            "ORA-30926: unable to get a stable set of rows in the source tables (a row of " +
            t.name + " matches more than one source row of the MERGE)");
      }
      if (!t.temporary) {
        if (absl::Status st = d.e.CheckRowLock(d.sd, t, seg->file_number, b, slot); !st.ok()) return st;
      }
      absl::StatusOr<std::optional<Row>> nr = change(old);
      if (!nr.ok()) return nr.status();
      ++n;
      cb.dirty = !cb.temp;
      if (!nr->has_value()) {  // delete: the undo holds the whole row
        hb.SetDeleted(slot, true);
        LogDelete(d, t, seg->file_number, b, slot);
        const uint32_t data = t.temporary ? 0 : redo::VectorBytes({redo::kKtb, redo::kKdoDelete});
        absl::Status st = d.e.AddUndo(d.rec, d.sd, t.temporary,
                                      redo::kUndoSingleRow + static_cast<uint32_t>(old_bytes.size()),
                                      data, 1);
        if (st.ok() && !t.indexes.empty()) {
          st = d.e.MaintainIndexes(d.rec, d.sd, t, {{false, old_bytes, seg->file_number, b, slot}});
        }
        if (!st.ok()) return st;
        continue;
      }
      Row row = **nr;
      uint32_t before = 0, after = 0;
      for (size_t i = 0; i < t.columns.size(); ++i) {
        if (std::optional<std::string> err = CoerceForColumn(t.columns[i], row[i]); err) {
          return absl::InvalidArgumentError(*err);
        }
        if (t.columns[i].not_null && row[i].is_null()) {
          return absl::InvalidArgumentError(fmt::format(
              "ORA-01407: cannot update (\"CELLSIM\".\"{}\".\"{}\") to NULL", t.name,
              t.columns[i].name));
        }
        if (ValueText(row[i]) != ValueText(old[i]) || row[i].is_null() != old[i].is_null()) {
          before += ColumnImageBytes(t.columns[i], old[i]);
          after += ColumnImageBytes(t.columns[i], row[i]);
        }
      }
      if (absl::Status st = CheckRow(t, row, d.env); !st.ok()) return st;
      const std::vector<uint8_t> bytes = EncodeRow(t.columns, row);
      if (!d.e.ReplaceRow(d.sd, seg->file_number, b, hb, slot, bytes)) {
        // Row migration, simplified: the row moves to a block with room.
        hb.SetDeleted(slot, true);
        LogDelete(d, t, seg->file_number, b, slot);
        if (!t.indexes.empty()) {
          absl::Status gone =
              d.e.MaintainIndexes(d.rec, d.sd, t, {{false, old_bytes, seg->file_number, b, slot}});
          if (!gone.ok()) return gone;
        }
        RowInserter ins(d, t, false);
        if (absl::Status st = ins.Add(row); !st.ok()) return st;
        // Where the row went: the insert's undo entry (its index entries follow).
        auto row_entry = std::find_if(d.sd.txn.undo.rbegin(), d.sd.txn.undo.rend(),
                                      [](const UndoEntry& u) { return !u.index; });
        moved.insert({row_entry->block, row_entry->slot});
        if (merged != nullptr) merged->insert({row_entry->block, row_entry->slot});
        continue;
      }
      d.e.AddRowUndo(
          d.rec, d.sd, {RowChange::kUpdate, seg->file_number, b, slot, old_bytes, t.object_id, !t.temporary});
      if (!t.temporary) {
        redo::AppendUpdate(d.e.pending_redo, t.object_id, seg->file_number, b, slot, old_bytes, bytes);
        ++d.e.pending_entries;
      }
      const uint32_t data =
          t.temporary ? 0 : redo::VectorBytes({redo::kKtb, redo::kKdoSingle, after});
      absl::Status st = d.e.AddUndo(d.rec, d.sd, t.temporary, redo::kUndoSingleRow + before, data, 1);
      if (st.ok() && !t.indexes.empty()) {
        st = d.e.MaintainIndexes(d.rec, d.sd, t,
                                 {{false, old_bytes, seg->file_number, b, slot},
                                  {true, bytes, seg->file_number, b, slot}},
                                 &unique_keys);
      }
      if (!st.ok()) return st;
    }
  }
  if (absl::Status st = d.e.CheckUnique(d.rec, d.sd, t, unique_keys); !st.ok()) return st;
  return n;
}

// SET's new values of a row; `defaults` (ColumnDefaults) for SET c = DEFAULT.
RowRewrite Setter(Dml& d, const TableDef& t, const std::vector<Assignment>& set,
                  const ColumnDefaultValues& defaults, const std::string& q,
                  const std::vector<Column>* cols2, const Row* row2, const std::string& q2) {
  // ROWNUM in a SET value numbers the rows changed (`update t set id =
  // rownum`).
  auto changed = std::make_shared<uint64_t>(0);
  return [&d, &t, &set, &defaults, q, cols2, row2, q2,
          changed](const Row& old) -> absl::StatusOr<std::optional<Row>> {
    Row row = old;
    ++*changed;
    BeginSequenceRow(d.env);  // each row changed draws its own NEXTVAL
    for (const Assignment& a : set) {
      absl::StatusOr<size_t> k = ColumnOf(t, a.column);
      if (!k.ok()) return k.status();
      if (a.value == nullptr) {
        absl::StatusOr<Value> v = DefaultOf(t, defaults, *k, d.env);
        if (!v.ok()) return v.status();
        row[*k] = *std::move(v);
        continue;
      }
      absl::StatusOr<Value> v =
          EvalIn(*a.value, t.columns, old, q, cols2, row2, q2, d.env, *changed);
      if (!v.ok()) return v.status();
      row[*k] = *v;
    }
    return std::optional<Row>(row);
  };
}

RowVisitor Where(Dml& d, const TableDef& t, const ExprPtr& where, const std::string& q,
                 const std::vector<Column>* cols2 = nullptr, const Row* row2 = nullptr,
                 const std::string& q2 = "") {
  // ROWNUM: one more than the rows accepted so far (`delete from t where
  // rownum <= 1000` deletes 1,000 rows).
  auto accepted = std::make_shared<uint64_t>(0);
  return [&d, &t, where, q, cols2, row2, q2, accepted](const Row& r) -> absl::StatusOr<bool> {
    if (!where) return true;
    absl::StatusOr<Value> v =
        EvalIn(*where, t.columns, r, q, cols2, row2, q2, d.env, *accepted + 1);
    if (!v.ok()) return v.status();
    const bool yes = v->kind == Value::Kind::kNumber && v->number != 0;
    if (yes) ++*accepted;
    return yes;
  };
}

std::string Rows(int64_t n, std::string_view verb) {
  if (n == 1) return fmt::format("1 row {}.", verb);
  return fmt::format("{} rows {}.", CountWithCommas(n), verb);
}

// PRIMARY KEY and UNIQUE constraints checked against the table they will be
// on, before it exists (Oracle's errors: at most one primary key, no two
// constraints on one column list, names not in use, known columns).
absl::Status CheckConstraints(Dml& d, const CreateTable& c) ABSL_EXCLUSIVE_LOCKS_REQUIRED(d.e.mu) {
  bool primary = false;
  std::vector<std::vector<std::string>> lists;
  std::vector<std::string> names;
  for (const TableConstraint& k : c.constraints) {
    if (k.check) continue;  // NewCheck, once the table's columns are known
    if (k.primary_key && std::exchange(primary, true)) {
      return absl::InvalidArgumentError("ORA-02260: table can have only one primary key");
    }
    for (size_t i = 0; i < k.columns.size(); ++i) {
      const bool known = std::any_of(c.columns.begin(), c.columns.end(),
                                     [&](const ColumnDef& cd) { return cd.name == k.columns[i]; });
      if (!known) {
        return absl::InvalidArgumentError(
            fmt::format("ORA-00904: \"{}\": invalid identifier", k.columns[i]));
      }
      if (std::find(k.columns.begin(), k.columns.begin() + static_cast<long>(i), k.columns[i]) !=
          k.columns.begin() + static_cast<long>(i)) {
        return absl::InvalidArgumentError(
            fmt::format("ORA-00957: duplicate column name ({})", k.columns[i]));
      }
    }
    if (std::find(lists.begin(), lists.end(), k.columns) != lists.end()) {
      return absl::InvalidArgumentError(
          "ORA-02261: such unique or primary key already exists in the table");
    }
    lists.push_back(k.columns);
    if (k.name.empty()) continue;
    if (k.name == c.name || std::find(names.begin(), names.end(), k.name) != names.end()) {
      return absl::AlreadyExistsError(fmt::format(
          "ORA-00955: name is already used by an existing object (constraint {})", k.name));
    }
    if (absl::Status st = CheckNameFree(d.e, k.name); !st.ok()) return st;
    names.push_back(k.name);
  }
  return absl::OkStatus();
}

// A DEFAULT's sequences exist (ORA-02289), and a table has at most one
// identity column (ORA-30669).
absl::Status CheckColumnSequences(Dml& d, const CreateTable& c) ABSL_EXCLUSIVE_LOCKS_REQUIRED(d.e.mu) {
  if (std::count_if(c.columns.begin(), c.columns.end(), [](const ColumnDef& cd) {
        return cd.identity != IdentityKind::kNone;
      }) > 1) {
    return absl::InvalidArgumentError("ORA-30669: table can have only one identity column");
  }
  for (const ColumnDef& cd : c.columns) {
    if (cd.default_value == nullptr) continue;
    auto unknown = [&](const Expr& n) ABSL_EXCLUSIVE_LOCKS_REQUIRED(d.e.mu) {
      return n.kind == Expr::Kind::kSequence && d.e.sequences.count(n.qualifier) == 0;
    };
    if (const Expr* x = FindExprNode(*cd.default_value, unknown)) {
      return absl::NotFoundError(fmt::format(
          "ORA-02289: sequence does not exist ({}, in the DEFAULT of column {})", x->qualifier,
          cd.name));
    }
  }
  return absl::OkStatus();
}

// CREATE TABLE's identity sequences, check constraints and unique indexes,
// added to `stored` (the caller restores the dictionary when this fails).
absl::Status AddTableParts(Dml& d, const CreateTable& c, TableDef& stored)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(d.e.mu) {
  for (size_t i = 0; i < c.columns.size() && !c.as_select; ++i) {
    if (c.columns[i].identity == IdentityKind::kNone) continue;
    absl::StatusOr<std::string> dflt =
        AddIdentitySequence(d.e, stored.object_id, c.columns[i].identity_options);
    if (!dflt.ok()) return dflt.status();
    stored.columns[i].default_sql = *dflt;
  }
  // NOT NULL constraints are named after the table (SYS_C numbers after
  // its object id), before its other constraints, as Oracle numbers them.
  for (size_t i = 0; i < stored.columns.size(); ++i) {
    Column& col = stored.columns[i];
    if (!col.not_null || col.not_null_by_key) continue;
    const std::string wanted = c.as_select ? "" : c.columns[i].not_null_name;
    if (absl::Status st = NameNotNull(d.e, stored, col, wanted); !st.ok()) return st;
  }
  for (const TableConstraint& k : c.constraints) {
    if (k.check) {
      absl::StatusOr<CheckDef> check = NewCheck(d.e, stored, k);
      if (!check.ok()) return check.status();
      stored.checks.push_back(*std::move(check));
      continue;
    }
    if (absl::Status st = AddKeyConstraint(d.e, d.sd, d.rec, stored, k); !st.ok()) return st;
  }
  return absl::OkStatus();
}

// CREATE TABLE ... AS SELECT's rows, into the table the statement is
// building, then committed (DDL commits) - all before the dictionary names
// the table, so that the statement is all or nothing, as Oracle's: when a
// row fails (a value too large, an invalid number, Ctrl-C, a full disk) the
// rows are undone and the caller's FailDdl takes the table away; a crash
// before the dictionary write finds no table, and instance recovery skips
// the rows' redo and undo (their object is unknown).
absl::Status CreateTableRows(Dml& d, const CreateTable& c, TableDef& stored)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(d.e.mu) {
  // DDL commits the session's transaction first; the rows are a transaction
  // of their own, which a failure ends (no transaction is left open).
  if (absl::Status st = d.e.Commit(d.rec, d.sd); !st.ok()) return st;
  RowInserter ins(d, stored, true);
  std::vector<Column> cols;
  std::optional<absl::Status> fast = InsertAllObjects(d, stored, *c.as_select, ins);
  absl::Status st = fast ? *fast
                         : ScanSelect(d.e, d.s, d.sd, d.rec, d.env, *c.as_select,
                                      [&](const Row& r) { return ins.Add(r); }, &cols);
  st = FlushEvenOnError(ins, st);
  if (st.ok()) st = d.e.Commit(d.rec, d.sd);  // a failed commit leaves them open: undone here
  if (!st.ok()) (void)d.e.EndInRollback(d.rec, d.sd);
  return st;
}

absl::Status CreateTableRun(Dml& d, const CreateTable& c, DataOutcome* out)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(d.e.mu) {
  if (absl::Status st = CheckNameFree(d.e, c.name); !st.ok()) return st;
  if (absl::Status st = CheckConstraints(d, c); !st.ok()) return st;
  if (absl::Status st = CheckColumnSequences(d, c); !st.ok()) return st;
  TableDef t;
  t.name = c.name;
  t.temporary = c.global_temporary;
  t.preserve_rows = c.on_commit_preserve;
  t.tablespace = c.tablespace.empty() ? (t.temporary ? "TEMP" : "USERS") : c.tablespace;
  for (const ColumnDef& cd : c.columns) {
    const ColType ty = ColTypeNamed(cd.type);
    bool key = false;  // a primary key's columns are NOT NULL
    for (const TableConstraint& k : c.constraints) {
      key |= k.primary_key && std::find(k.columns.begin(), k.columns.end(), cd.name) != k.columns.end();
    }
    t.columns.push_back(
        {cd.name, ty, cd.length, cd.scale, cd.not_null || key, cd.default_text, cd.identity,
         key && !cd.not_null && cd.identity == IdentityKind::kNone});
  }
  if (c.as_select) {
    absl::StatusOr<std::vector<Column>> shape = SelectShape(d.e, d.s, d.sd, d.rec, d.env, *c.as_select);
    if (!shape.ok()) return shape.status();
    t.columns = *shape;
    // A source column's NOT NULL (a key's too) is the new table's own
    // constraint, named anew (AddTableParts).
    for (Column& col : t.columns) {
      col.not_null_by_key = false;
      col.not_null_name.clear();
    }
  }
  absl::StatusOr<uint32_t> file = d.e.DataFileOf(t.tablespace);
  if (!file.ok()) return file.status();
  if (!t.temporary) {
    if (absl::Status st = CheckSegmentTablespace(d.e, t.tablespace); !st.ok()) return st;
  }
  t.segment.file_number = *file;
  // The table, its identity sequences and each constraint's unique index,
  // then the dictionary once: they are acknowledged together, or not at all.
  DataEngine::DictionaryState before = d.e.BeginDdl();
  t.object_id = d.e.next_object_id++;
  TableDef& stored = d.e.tables.emplace(t.name, std::move(t)).first->second;
  if (absl::Status st = AddTableParts(d, c, stored); !st.ok()) {
    return d.e.FailDdl(std::move(st), std::move(before), &d.sd);
  }
  if (c.as_select) {
    if (absl::Status st = CreateTableRows(d, c, stored); !st.ok()) {
      return d.e.FailDdl(std::move(st), std::move(before), &d.sd);
    }
  }
  // DDL is acknowledged once the dictionary holds it.
  if (absl::Status st = d.e.WriteDictionaryOrRestore(std::move(before), &d.sd); !st.ok()) {
    return st;
  }
  out->feedback = "Table created.";
  return absl::OkStatus();
}

// The row a subquery's row `r` gives `t`, its values into `columns` (every
// column when empty): `targets` (Targets') found from the first row, as
// every row has its shape.
absl::StatusOr<Row> SelectedRow(const TableDef& t, const std::vector<std::string>& columns,
                                const Row& r, std::optional<std::vector<size_t>>* targets,
                                const ColumnDefaultValues& defaults, const StatementEnv& env) {
  if (!targets->has_value()) {
    absl::StatusOr<std::vector<size_t>> to = Targets(t, columns, r.size());
    if (!to.ok()) return to.status();
    if (absl::Status id = CheckIdentityTargets(t, *to, nullptr); !id.ok()) return id;
    *targets = *std::move(to);
  }
  return RowToInsert(t, **targets, r, nullptr, defaults, env);
}

// One INTO of a multitable INSERT, resolved before any row is read.
struct IntoTarget {
  const InsertInto* into;
  TableDef* table;
  ColumnDefaultValues defaults;
  std::optional<std::vector<size_t>> columns;  // Targets' (without VALUES: from the first row)
};

// INSERT ALL | FIRST: each INTO's table, defaults and columns found first
// (ORA-00942, ORA-00904, ORA-00913 before any row); then for each row of
// the subquery the INTOs of the WHENs that fire, each table's rows through
// one array inserter, as INSERT ... SELECT's. NEXTVAL is drawn once per
// subquery row, whichever INTOs use it (Oracle's rule).
absl::Status MultitableInsertRun(Dml& d, const Insert& ins, DataOutcome* out)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(d.e.mu) {
  std::vector<std::vector<IntoTarget>> targets(ins.multitable.size());
  std::map<TableDef*, std::unique_ptr<RowInserter>> inserters;
  std::vector<const Expr*> roots;
  for (size_t w = 0; w < ins.multitable.size(); ++w) {
    roots.push_back(ins.multitable[w].when.get());
    for (const InsertInto& into : ins.multitable[w].into) {
      absl::StatusOr<TableDef*> t = FindDmlTarget(d.e, into.table);
      if (!t.ok()) return t.status();
      absl::StatusOr<ColumnDefaultValues> defaults = ColumnDefaults(**t, d.env);
      if (!defaults.ok()) return defaults.status();
      IntoTarget target{&into, *t, *std::move(defaults), std::nullopt};
      if (!into.values.empty()) {
        absl::StatusOr<std::vector<size_t>> to = Targets(**t, into.columns, into.values.size());
        if (!to.ok()) return to.status();
        if (absl::Status st = CheckIdentityTargets(**t, *to, &into.values); !st.ok()) return st;
        target.columns = *std::move(to);
      }
      for (const ExprPtr& v : into.values) roots.push_back(v.get());
      targets[w].push_back(std::move(target));
      if (!inserters.count(*t)) inserters.emplace(*t, std::make_unique<RowInserter>(d, **t, true));
    }
  }
  if (absl::Status sq = RunSubqueries(d.e, d.s, d.sd, d.rec, roots, &d.env); !sq.ok()) return sq;
  std::vector<Column> cols;  // the subquery's, set before its first row
  auto insert = [&](IntoTarget& to, const Row& r) -> absl::Status {
    d.e.mu.AssertHeld();
    TableDef& t = *to.table;
    absl::StatusOr<Row> row;
    if (to.into->values.empty()) {
      row = SelectedRow(t, to.into->columns, r, &to.columns, to.defaults, d.env);
    } else {
      row = ValuesRow(d, t, *to.columns, to.into->values, to.defaults, &r, &cols, "");
    }
    if (!row.ok()) return row.status();
    return inserters.at(&t)->Add(*std::move(row));
  };
  absl::Status st = ScanSelect(d.e, d.s, d.sd, d.rec, d.env, *ins.select, [&](const Row& r) -> absl::Status {
    bool fired = false;  // a WHEN (or the unconditional INTOs) took the row
    for (size_t w = 0; w < ins.multitable.size(); ++w) {
      const InsertWhen& when = ins.multitable[w];
      if ((when.otherwise || ins.first) && fired) break;
      if (when.when) {
        absl::StatusOr<Value> c = EvalIn(*when.when, cols, r, "", nullptr, nullptr, "", d.env);
        if (!c.ok()) return c.status();
        if (!Truthy(*c)) continue;
      }
      fired = true;
      for (IntoTarget& to : targets[w]) {
        if (absl::Status added = insert(to, r); !added.ok()) return added;
      }
    }
    return absl::OkStatus();
  }, &cols);
  int64_t rows = 0;
  for (auto& [t, inserter] : inserters) {
    st = FlushEvenOnError(*inserter, st);
    rows += inserter->rows();
  }
  if (!st.ok()) return st;
  out->rows = rows;
  out->feedback = Rows(rows, "created");
  return absl::OkStatus();
}

absl::Status InsertRun(Dml& d, const Insert& ins, DataOutcome* out)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(d.e.mu) {
  if (!ins.multitable.empty()) return MultitableInsertRun(d, ins, out);
  absl::StatusOr<TableDef*> t = FindDmlTarget(d.e, ins.table);
  if (!t.ok()) return t.status();
  absl::StatusOr<ColumnDefaultValues> defaults = ColumnDefaults(**t, d.env);
  if (!defaults.ok()) return defaults.status();
  if (!ins.select) {
    std::vector<const Expr*> roots;
    for (const ExprPtr& v : ins.values) roots.push_back(v.get());
    if (absl::Status sq = RunSubqueries(d.e, d.s, d.sd, d.rec, roots, &d.env); !sq.ok()) return sq;
    absl::StatusOr<int64_t> n =
        InsertValues(d, **t, ins.columns, ins.values, *defaults, nullptr, nullptr, "");
    if (!n.ok()) return n.status();
    out->rows = *n;
    out->feedback = Rows(*n, "created");
    return absl::OkStatus();
  }
  RowInserter w(d, **t, true);
  std::vector<Column> cols;
  std::optional<absl::Status> fast;
  if (ins.columns.empty()) fast = InsertAllObjects(d, **t, *ins.select, w);
  std::optional<std::vector<size_t>> targets;  // from the first row
  absl::Status st = fast ? *fast
                         : ScanSelect(d.e, d.s, d.sd, d.rec, d.env, *ins.select,
                                      [&](const Row& r) -> absl::Status {
                                        absl::StatusOr<Row> row = SelectedRow(
                                            **t, ins.columns, r, &targets, *defaults, d.env);
                                        if (!row.ok()) return row.status();
                                        return w.Add(*row);
                                      }, &cols);
  st = FlushEvenOnError(w, st);
  if (!st.ok()) return st;
  out->rows = w.rows();
  out->feedback = Rows(w.rows(), "created");
  return absl::OkStatus();
}

// The target's columns the ON condition reads: qualified by `q` (the
// target's alias, else its name), or unqualified and the target's (the
// target binds an unqualified name first, as in Where).
void OnTargetColumns(const ExprPtr& e, const TableDef& t, const std::string& q,
                     std::set<std::string>* out) {
  if (!e) return;
  if (e->kind == Expr::Kind::kColumn && (e->qualifier == q || e->qualifier.empty()) &&
      ColumnOf(t, e->text).ok()) {
    out->insert(e->text);
  }
  for (const ExprPtr& a : e->args) OnTargetColumns(a, t, q, out);
}

absl::Status MergeRun(Dml& d, const Merge& m, DataOutcome* out)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(d.e.mu) {
  absl::StatusOr<TableDef*> t = FindDmlTarget(d.e, m.table);
  if (!t.ok()) return t.status();
  const std::string q = m.alias.empty() ? m.table : m.alias;
  // ORA-38104 before any row is read: updating a column of the join would
  // change which target rows the ON condition matches.
  std::set<std::string> on_columns;
  OnTargetColumns(m.on, **t, q, &on_columns);
  if (absl::Status st = CheckIdentityUpdate(**t, m.matched_update); !st.ok()) return st;
  for (const Assignment& a : m.matched_update) {
    if (on_columns.count(a.column) != 0) {
      return absl::InvalidArgumentError(fmt::format(
          "ORA-38104: Columns referenced in the ON Clause cannot be updated: \"{}\".\"{}\"", q,
          a.column));
    }
  }
  std::vector<Row> src;
  std::vector<Column> src_cols;
  absl::Status st = ScanSelect(d.e, d.s, d.sd, d.rec, d.env, *m.using_select, [&](const Row& r) {
    src.push_back(r);
    return absl::OkStatus();
  }, &src_cols);
  if (!st.ok()) return st;
  absl::StatusOr<ColumnDefaultValues> defaults = ColumnDefaults(**t, d.env);
  if (!defaults.ok()) return defaults.status();
  int64_t n = 0;
  // The join is the target as it was when the statement began: the rows
  // WHEN NOT MATCHED inserts go in after every source row was joined (a later
  // source row does not match them), and a target row two source rows match
  // is ORA-30926, as in Oracle.
  std::set<std::pair<uint32_t, uint16_t>> merged;
  std::vector<const Row*> unmatched;
  for (const Row& s : src) {
    bool matched = false;
    RowVisitor on = Where(d, **t, m.on, q, &src_cols, &s, m.using_alias);
    RowVisitor seen = [&](const Row& r) -> absl::StatusOr<bool> {
      absl::StatusOr<bool> ok = on(r);
      if (ok.ok() && *ok) matched = true;
      return ok.ok() ? (*ok && !m.matched_update.empty()) : ok;
    };
    absl::StatusOr<int64_t> u = ChangeRows(
        d, **t, seen, Setter(d, **t, m.matched_update, *defaults, q, &src_cols, &s, m.using_alias), &merged);
    if (!u.ok()) return u.status();
    n += *u;
    if (!matched && m.has_insert) unmatched.push_back(&s);
  }
  for (const Row* s : unmatched) {
    absl::StatusOr<int64_t> i =
        InsertValues(d, **t, m.insert_columns, m.insert_values, *defaults, s, &src_cols,
                     m.using_alias);
    if (!i.ok()) return i.status();
    n += *i;
  }
  out->rows = n;
  out->feedback = Rows(n, "merged");
  return absl::OkStatus();
}

// DROP / TRUNCATE TABLE. The dictionary write decides: until it succeeds
// nothing is freed for good (the GTT rows, the cached blocks), and when it
// fails the table is put back as it was.
absl::Status DropOrTruncate(Dml& d, const std::string& name, bool drop, DataOutcome* out)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(d.e.mu) {
  absl::StatusOr<TableDef*> t = FindTable(d.e, name, drop ? "DROP TABLE" : "TRUNCATE TABLE");
  if (!t.ok()) return t.status();
  // DDL commits the session's transaction first.
  if (absl::Status st = d.e.Commit(d.rec, d.sd); !st.ok()) return st;
  std::vector<uint32_t> gtt_objects;  // this session's segments of a GTT: its rows and index entries
  std::vector<Segment> freed;         // a heap table's segments, evicted once the drop is durable
  if ((*t)->temporary) {
    for (auto& [sid, other] : d.e.sessions) {
      if (other != &d.sd && drop && other->gtt_segments.count((*t)->object_id) != 0) {
        return absl::FailedPreconditionError(fmt::format(
            "ORA-14452: attempt to create, alter or drop an index on temporary table already in "
            "use (session {} has rows in {})", sid, name));
      }
    }
    gtt_objects.push_back((*t)->object_id);
    for (const IndexDef& ix : (*t)->indexes) gtt_objects.push_back(ix.object_id);
  }
  DataEngine::DictionaryState before = d.e.BeginDdl();
  if (!(*t)->temporary) {
    freed.push_back(d.e.ReleaseExtents((*t)->segment));
    // A truncated table's new segment is a new data object (Oracle's
    // DATAOBJ#), so redo of its old rows never applies to reused blocks;
    // its indexes are emptied the same way.
    if (!drop) (*t)->object_id = d.e.next_object_id++;
    for (IndexDef& ix : (*t)->indexes) {
      freed.push_back(d.e.ReleaseExtents(ix.segment));
      if (!drop) ix.object_id = d.e.next_object_id++;
    }
  }
  if (drop) {
    for (const Column& col : (*t)->columns) d.e.sequences.erase(IdentitySequenceOf(col));
    d.e.tables.erase(name);
  }
  if (absl::Status st = d.e.WriteDictionaryOrRestore(std::move(before)); !st.ok()) return st;
  for (const Segment& seg : freed) d.e.EvictBlocks(seg);
  for (uint32_t obj : gtt_objects) d.e.FreeSessionSegment(d.sd, obj);
  out->feedback = drop ? "Table dropped." : "Table truncated.";
  return absl::OkStatus();
}

// ROLLBACK TO SAVEPOINT: the changes since it are undone (as a failed
// statement's are), the savepoints set after it go, it and the transaction
// stay.
absl::Status RollbackToSavepoint(Dml& d, const std::string& name) ABSL_EXCLUSIVE_LOCKS_REQUIRED(d.e.mu) {
  std::vector<std::pair<std::string, size_t>>& points = d.sd.txn.savepoints;
  auto it = std::find_if(points.begin(), points.end(), [&](const auto& p) { return p.first == name; });
  if (it == points.end()) {
    return absl::FailedPreconditionError(fmt::format(
        "ORA-01086: savepoint '{}' never established in this session or is invalid{}", name,
        d.sd.txn.active ? "" : " (COMMIT, ROLLBACK and DDL end a transaction and its savepoints)"));
  }
  const size_t mark = it->second;
  points.erase(it + 1, points.end());
  return d.e.RollbackTo(d.rec, d.sd, mark);
}

absl::Status AlterSystem(Dml& d, const AlterSystemSet& a, DataOutcome* out)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(d.e.mu) {
  if (a.name != "temp_undo_enabled") {
    for (const Parameter& p : Parameters(d.e, d.sd)) {
      if (p.name != a.name) continue;
      return absl::FailedPreconditionError(fmt::format(
          "ORA-02095: specified initialization parameter cannot be modified (cellsim shows {} = "
          "{} and keeps it; ALTER SYSTEM changes temp_undo_enabled)",
          p.name, p.value.empty() ? "NULL" : p.value));
    }
    return absl::InvalidArgumentError(fmt::format(
        "ORA-02065: illegal option for ALTER SYSTEM: cellsim does not know parameter \"{}\" "
        "(it knows temp_undo_enabled)", a.name));
  }
  const std::string v = absl::AsciiStrToUpper(a.value);
  if (v != "TRUE" && v != "FALSE") {
    return absl::InvalidArgumentError(fmt::format(
        "ORA-00096: invalid value {} for parameter temp_undo_enabled, must be from among TRUE, FALSE",
        a.value));
  }
  if (a.scope != "SPFILE") d.e.temp_undo_enabled = v == "TRUE";
  out->feedback = "System altered.";
  return absl::OkStatus();
}

absl::Status ShowParameterRun(Dml& d, const ShowParameter& p, DataOutcome* out)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(d.e.mu) {
  out->headings = {"NAME", "TYPE", "VALUE"};
  out->numeric = {false, false, false};
  for (const Parameter& x : Parameters(d.e, d.sd)) {
    if (x.name.find(p.pattern) == std::string::npos) continue;
    out->rows_text.push_back({x.name, std::string(ParameterTypeName(x.type)), x.value});
  }
  out->rows = static_cast<int64_t>(out->rows_text.size());
  return absl::OkStatus();
}

// SQL*Plus's DESCRIBE: a table's or view's columns, as SQL*Plus lays them out.
absl::Status DescribeRun(Dml& d, const Describe& x, DataOutcome* out)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(d.e.mu) {
  std::vector<Column> cols;
  if (auto it = d.e.tables.find(x.name); it != d.e.tables.end()) {
    cols = it->second.columns;
  } else if (auto v = d.e.views.find(x.name); v != d.e.views.end()) {
    absl::StatusOr<ViewRows> r = RunView(d.e, d.s, d.sd, d.rec, d.env, v->second);
    if (!r.ok()) {
      return absl::Status(r.status().code(), fmt::format("ORA-24372: invalid object for describe (view "
                                                         "{} has errors: {})", x.name,
                                                         std::string(r.status().message())));
    }
    cols = std::move(r->columns);
  } else if (x.name == "ALL_OBJECTS" || x.name == "DBA_OBJECTS") {
    cols = AllObjectsColumns();
  } else if (std::optional<ViewRows> v = BuildView(d.e, d.sd, x.name); v.has_value()) {
    cols = v->columns;
  } else if (x.name == "DUAL") {
    cols = {{"DUMMY", ColType::kVarchar2, 1}};
  } else {
    return absl::NotFoundError(fmt::format("ORA-04043: object {} does not exist", x.name));
  }
  out->headings = {"Name", "Null?", "Type"};
  out->numeric = {false, false, false};
  for (const Column& c : cols) {
    std::string type;
    switch (c.type) {
      case ColType::kNumber:
        type = c.length == 0  ? "NUMBER"
               : c.scale == 0 ? fmt::format("NUMBER({})", c.length)
                              : fmt::format("NUMBER({},{})", c.length, c.scale);
        break;
      case ColType::kVarchar2: type = fmt::format("VARCHAR2({})", c.length); break;
      case ColType::kChar: type = fmt::format("CHAR({})", c.length); break;
      case ColType::kDate:
      case ColType::kTimestamp: type = ColumnTypeName(c); break;
    }
    out->rows_text.push_back({c.name, c.not_null ? "NOT NULL" : "", type});
  }
  out->rows = static_cast<int64_t>(out->rows_text.size());
  return absl::OkStatus();
}

}  // namespace

absl::Status RunDml(DataEngine& e, Session::State& s, SessionData& sd, Recorder& rec,
                    SequenceDraw* draw, const DataStatement& st, DataOutcome* out)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu) {
  Dml d{e, s, sd, rec, StatementEnvOf(s, draw)};
  d.e.mu.AssertHeld();  // d.e is e, whose mu the caller holds
  // A DDL that returns without its own dictionary write built nothing that
  // later writes must leave out.
  absl::Cleanup ddl_ends = [&e] {
    e.mu.AssertHeld();
    e.ddl_objects_from.reset();
  };
  if (const auto* x = std::get_if<CreateTable>(&st)) return CreateTableRun(d, *x, out);
  if (absl::Status ddl; RunIndexDdl(e, sd, rec, st, out, &ddl)) return ddl;
  if (absl::Status ddl; RunSequenceDdl(e, sd, rec, st, out, &ddl)) return ddl;
  if (const auto* x = std::get_if<AlterTable>(&st)) return AlterTableRun(e, sd, rec, *x, out);
  if (const auto* x = std::get_if<CreateView>(&st)) return CreateViewRun(e, s, sd, rec, d.env, *x, out);
  if (const auto* x = std::get_if<DropView>(&st)) return DropViewRun(e, sd, rec, *x, out);
  if (const auto* x = std::get_if<DropTable>(&st)) return DropOrTruncate(d, x->name, true, out);
  if (const auto* x = std::get_if<TruncateTable>(&st)) return DropOrTruncate(d, x->name, false, out);
  if (const auto* x = std::get_if<Insert>(&st)) return InsertRun(d, *x, out);
  if (const auto* x = std::get_if<Merge>(&st)) return MergeRun(d, *x, out);
  if (const auto* x = std::get_if<Update>(&st)) {
    absl::StatusOr<TableDef*> t = FindDmlTarget(e, x->table);
    if (!t.ok()) return t.status();
    if (absl::Status st = CheckIdentityUpdate(**t, x->set); !st.ok()) return st;
    std::vector<const Expr*> roots = {x->where.get()};
    for (const Assignment& a : x->set) roots.push_back(a.value.get());
    const std::string q = x->alias.empty() ? x->table : x->alias;
    const DmlTarget target{**t, q};
    if (absl::Status sq = RunSubqueries(e, s, sd, rec, roots, &d.env, &target); !sq.ok()) return sq;
    absl::StatusOr<ColumnDefaultValues> defaults = ColumnDefaults(**t, d.env);
    if (!defaults.ok()) return defaults.status();
    absl::StatusOr<int64_t> n =
        ChangeRows(d, **t, Where(d, **t, x->where, q),
                   Setter(d, **t, x->set, *defaults, q, nullptr, nullptr, ""));
    if (!n.ok()) return n.status();
    out->rows = *n;
    out->feedback = Rows(*n, "updated");
    return absl::OkStatus();
  }
  if (const auto* x = std::get_if<Delete>(&st)) {
    absl::StatusOr<TableDef*> t = FindDmlTarget(e, x->table);
    if (!t.ok()) return t.status();
    const std::string q = x->alias.empty() ? x->table : x->alias;
    const DmlTarget target{**t, q};
    if (absl::Status sq = RunSubqueries(e, s, sd, rec, {x->where.get()}, &d.env, &target); !sq.ok()) {
      return sq;
    }
    absl::StatusOr<int64_t> n = ChangeRows(
        d, **t, Where(d, **t, x->where, q),
        [](const Row&) -> absl::StatusOr<std::optional<Row>> { return std::optional<Row>(); });
    if (!n.ok()) return n.status();
    out->rows = *n;
    out->feedback = Rows(*n, "deleted");
    return absl::OkStatus();
  }
  if (std::holds_alternative<Commit>(st)) {
    out->feedback = "Commit complete.";
    return e.Commit(rec, sd);
  }
  if (const auto* x = std::get_if<Rollback>(&st)) {
    out->feedback = "Rollback complete.";
    if (x->to_savepoint.empty()) return e.Rollback(rec, sd);
    return RollbackToSavepoint(d, x->to_savepoint);
  }
  if (const auto* x = std::get_if<Savepoint>(&st)) {
    std::vector<std::pair<std::string, size_t>>& points = sd.txn.savepoints;
    std::erase_if(points, [&](const auto& p) { return p.first == x->name; });
    points.emplace_back(x->name, sd.txn.undo.size());
    out->feedback = "Savepoint created.";
    return absl::OkStatus();
  }
  if (const auto* x = std::get_if<AlterSystemSet>(&st)) return AlterSystem(d, *x, out);
  if (const auto* x = std::get_if<ShowParameter>(&st)) return ShowParameterRun(d, *x, out);
  if (const auto* x = std::get_if<Describe>(&st)) return DescribeRun(d, *x, out);
  if (const auto* x = std::get_if<LogCommand>(&st)) return RunLogCommand(e, rec, *x, out);
  return absl::InternalError("unhandled data statement");
}

DataEngine& EngineOf(Database::State& db) {
  MutexLock lock(&db.engine_mu);
  if (!db.engine) {
    auto e = std::make_shared<DataEngine>();
    e->db = &db;
    MutexLock engine_lock(&e->mu);  // no other thread sees it yet
    e->all_objects_rows = db.options.all_objects_rows;
    e->log_first_time = db.clock->UnixSeconds();  // the first log's (OpenInstance sets an open's)
    db.engine = e;
  }
  return *db.engine;
}

void WarmEngine(DataEngine& e) {
  MutexLock lock(&e.mu);
  const std::vector<Column>& all_objects = AllObjectsColumns();
  const int64_t created = e.FileTableCopy().created_unix;
  for (const auto& [name, t] : e.tables) {
    // Tables made from ALL_OBJECTS (CREATE TABLE AS SELECT *): its columns.
    const bool copy = std::equal(t.columns.begin(), t.columns.end(), all_objects.begin(),
                                 all_objects.end(),
                                 [](const Column& a, const Column& b) { return a.name == b.name; });
    if (copy) (void)EncodedAllObjectsRows(e.all_objects_rows, created, t.columns);
  }
  while (e.free_block_buffers.size() < DataEngine::kPooledBlockBuffers) {
    e.free_block_buffers.emplace_back(kBlockSize);  // zeroed: every page touched
  }
}

bool SetDataSessionParameter(Session::State& s, const std::string& name, const std::string& value,
                             absl::Status* status) {
  if (name != "temp_undo_enabled") return false;
  const std::string v = absl::AsciiStrToUpper(value);
  if (v != "TRUE" && v != "FALSE") {
    *status = absl::InvalidArgumentError(fmt::format(
        "ORA-00096: invalid value {} for parameter temp_undo_enabled, must be from among TRUE, FALSE",
        value));
    return true;
  }
  DataEngine& e = EngineOf(*s.db);
  MutexLock lock(&e.mu);
  // The session's value; ignored once the session has bound its temporary
  // undo mode (docs/redo.md "Temporary undo"), without an error, as Oracle.
  s.data->temp_undo_param = v == "TRUE";
  *status = absl::OkStatus();
  return true;
}

}  // namespace cellsim::db::internal
