// ALTER TABLE (docs/sql.md "ALTER TABLE"): columns added, modified and
// renamed, keys added, the table renamed. Each is one dictionary write after
// the session's transaction commits (DDL); on an error the table is as it was.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <functional>

#include "cellsim/db/data_engine.h"
#include "cellsim/db/data_views.h"

namespace cellsim::db::internal {
namespace {

// Whether column `column` of `t` is in its primary key.
bool InPrimaryKey(const TableDef& t, size_t column) {
  return std::any_of(t.indexes.begin(), t.indexes.end(), [&](const IndexDef& ix) {
    return ix.constraint == KeyConstraint::kPrimaryKey &&
           std::find(ix.columns.begin(), ix.columns.end(), column) != ix.columns.end();
  });
}

// The table's rows this session sees, decoded, until `fn` returns false.
absl::Status ForEachRow(DataEngine& e, SessionData& sd, Recorder& rec, TableDef& t,
                        const std::function<bool(const Row&)>& fn) ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu) {
  return ForEachLiveRow(e, sd, rec, t,
                        [&](uint32_t, uint32_t, uint16_t, absl::Span<const uint8_t> bytes) {
                          return fn(DecodeRow(t.columns, bytes));
                        });
}

absl::StatusOr<bool> HasRows(DataEngine& e, SessionData& sd, Recorder& rec, TableDef& t)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu) {
  bool any = false;
  absl::Status st = ForEachRow(e, sd, rec, t, [&](const Row&) { return !(any = true); });
  if (!st.ok()) return st;
  return any;
}

// ADD: columns at the end (a row's missing trailing columns read as NULL,
// so a nullable column without a DEFAULT changes no row, as in Oracle),
// then the keys (a unique index each; a primary key's columns NOT NULL).
absl::Status AddToTable(DataEngine& e, SessionData& sd, Recorder& rec, TableDef& t, const AlterTable& a)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu) {
  absl::StatusOr<bool> rows = HasRows(e, sd, rec, t);
  if (!rows.ok()) return rows.status();
  for (const ColumnDef& cd : a.columns) {
    if (ColumnOf(t, cd.name).ok()) {
      return absl::AlreadyExistsError(fmt::format(
          "ORA-01430: column being added already exists in table ({}.{})", t.name, cd.name));
    }
    if (cd.identity != IdentityKind::kNone) {
      return absl::UnimplementedError(fmt::format(
          "cellsim makes an identity column with CREATE TABLE only (ALTER TABLE {} ADD {})", t.name,
          cd.name));
    }
    if (*rows && cd.not_null && cd.default_text.empty()) {
      return absl::FailedPreconditionError(fmt::format(
          "ORA-01758: table must be empty to add mandatory (NOT NULL) column ({}.{}: give it a "
          "DEFAULT, or add it nullable, fill it and MODIFY it NOT NULL)", t.name, cd.name));
    }
    if (*rows && !cd.default_text.empty()) {
      // Oracle keeps such a DEFAULT for the rows already there in the
      // dictionary (11g/12c); cellsim's rows do not know it.
      return absl::UnimplementedError(fmt::format(
          "cellsim adds a column with a DEFAULT only to a table without rows ({}.{}: add it "
          "without the DEFAULT, UPDATE {} SET {} = ..., then MODIFY {} DEFAULT ...)",
          t.name, cd.name, t.name, cd.name, cd.name));
    }
    t.columns.push_back({cd.name, ColTypeNamed(cd.type), cd.length, cd.scale, cd.not_null, cd.default_text,
                         IdentityKind::kNone});
    if (cd.not_null) {
      if (absl::Status st = NameNotNull(e, t, t.columns.back(), cd.not_null_name); !st.ok()) return st;
    }
  }
  for (const TableConstraint& k : a.constraints) {
    if (k.check) {  // the rows there must pass it (ORA-02293)
      absl::StatusOr<CheckDef> c = NewCheck(e, t, k);
      if (!c.ok()) return c.status();
      t.checks.push_back(*std::move(c));
      absl::Status failed;
      TableDef one = t;
      one.checks = {t.checks.back()};
      const StatementEnv env{};
      absl::Status st = ForEachRow(e, sd, rec, t, [&](const Row& r) {
        failed = CheckRow(one, r, env);
        return failed.ok();
      });
      if (!st.ok()) return st;
      if (!failed.ok()) {
        return absl::FailedPreconditionError(fmt::format(
            "ORA-02293: cannot validate (CELLSIM.{}) - check constraint violated (a row of {} "
            "fails CHECK ({}))", t.checks.back().name, t.name, t.checks.back().condition));
      }
      continue;
    }
    std::vector<size_t> cols;
    for (const std::string& c : k.columns) {
      absl::StatusOr<size_t> i = ColumnOf(t, c);
      if (!i.ok()) return i.status();
      cols.push_back(*i);
    }
    if (k.primary_key) {
      bool nulls = false;
      absl::Status st = ForEachRow(e, sd, rec, t, [&](const Row& r) {
        for (size_t i : cols) nulls |= r[i].is_null();
        return !nulls;
      });
      if (!st.ok()) return st;
      if (nulls) {
        return absl::FailedPreconditionError(fmt::format(
            "ORA-01449: column contains NULL values; cannot alter to NOT NULL (the primary key "
            "of {} on {})", t.name, fmt::join(k.columns, ", ")));
      }
      for (size_t i : cols) {
        if (t.columns[i].not_null) continue;
        t.columns[i].not_null = true;
        t.columns[i].not_null_by_key = true;
      }
    }
    if (absl::Status st = AddKeyConstraint(e, sd, rec, t, k); !st.ok()) return st;
  }
  return absl::OkStatus();
}

// MODIFY: a wider type of the same kind always; another type, a narrower
// NUMBER, or a shorter string only where the rows allow it, as Oracle.
absl::Status ModifyColumn(DataEngine& e, SessionData& sd, Recorder& rec, TableDef& t,
                          const ColumnDef& cd, std::optional<bool> not_null)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu) {
  absl::StatusOr<size_t> k = ColumnOf(t, cd.name);
  if (!k.ok()) return k.status();
  Column& c = t.columns[*k];
  bool any = false, null = false;
  size_t longest = 0;
  absl::Status st = ForEachRow(e, sd, rec, t, [&](const Row& r) {
    any |= !r[*k].is_null();
    null |= r[*k].is_null();
    if (r[*k].kind == Value::Kind::kString) longest = std::max(longest, r[*k].text.size());
    return true;
  });
  if (!st.ok()) return st;
  if (!cd.type.empty()) {
    const ColType type = ColTypeNamed(cd.type);
    const bool same = type == c.type || (type == ColType::kVarchar2 && c.type == ColType::kChar) ||
                      (type == ColType::kChar && c.type == ColType::kVarchar2);
    if (!same && any) {
      return absl::FailedPreconditionError(fmt::format(
          "ORA-01439: column to be modified must be empty to change datatype ({}.{} is {})", t.name,
          c.name, ColTypeName(c.type)));
    }
    if (same && type == ColType::kNumber && any &&
        ((c.length == 0 && cd.length != 0) || (cd.length != 0 && cd.length < c.length) ||
         cd.scale < c.scale)) {
      return absl::FailedPreconditionError(fmt::format(
          "ORA-01440: column to be modified must be empty to decrease precision or scale ({}.{})",
          t.name, c.name));
    }
    if (same && type == ColType::kTimestamp && any && cd.length < c.length) {
      return absl::FailedPreconditionError(fmt::format(
          "ORA-30082: datetime/interval column to be modified must be empty to decrease "
          "fractional second or leading field precision ({}.{} is TIMESTAMP({}))",
          t.name, c.name, c.length));
    }
    if (same && (type == ColType::kVarchar2 || type == ColType::kChar) && cd.length < longest) {
      return absl::FailedPreconditionError(fmt::format(
          "ORA-01441: cannot decrease column length because some value is too big ({}.{} holds "
          "a value of {} bytes)", t.name, c.name, longest));
    }
    c.type = type;
    c.length = cd.length;
    c.scale = cd.scale;
  }
  if (!cd.default_text.empty()) c.default_sql = cd.default_text;
  if (not_null.has_value()) {
    const bool in_key = InPrimaryKey(t, *k);
    if (!*not_null && in_key) {
      return absl::FailedPreconditionError(fmt::format(
          "ORA-01451: column to be modified to NULL cannot be modified to NULL ({}.{} is in the "
          "primary key: ALTER TABLE {} DROP PRIMARY KEY first)", t.name, c.name, t.name));
    }
    if (*not_null == c.not_null) {
      return absl::FailedPreconditionError(fmt::format(
          "{} ({}.{})", *not_null ? "ORA-01442: column to be modified to NOT NULL is already NOT NULL"
                                  : "ORA-01451: column to be modified to NULL cannot be modified to NULL",
          t.name, c.name));
    }
    c.not_null = *not_null;
    c.not_null_by_key = false;
    c.not_null_name.clear();
    if (!*not_null) return absl::OkStatus();
    if (absl::Status st = NameNotNull(e, t, c, cd.not_null_name); !st.ok()) return st;
    if (null) {  // (the statement fails: the table and the number go back)
      return absl::FailedPreconditionError(
          fmt::format("ORA-02296: cannot enable (CELLSIM.{}) - null values found ({}.{})",
                      c.not_null_name, t.name, c.name));
    }
  }
  return absl::OkStatus();
}

// DROP CONSTRAINT name | PRIMARY KEY | UNIQUE (cols): a CHECK goes from the
// dictionary; a key's index goes with it (`dropped`, which the caller
// forgets once its dictionary write succeeds). A primary key's columns
// that were NOT NULL only because of it allow NULLs again, as Oracle's.
absl::Status DropConstraint(DataEngine& e, TableDef& t, const TableConstraint& k,
                            DroppedIndex* dropped) ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu) {
  if (!k.name.empty()) {
    for (auto c = t.checks.begin(); c != t.checks.end(); ++c) {
      if (c->name != k.name) continue;
      t.checks.erase(c);
      return absl::OkStatus();
    }
    // A NOT NULL constraint: the column allows NULLs, unless it is in the
    // primary key (then NOT NULL by the key alone).
    for (uint16_t i = 0; i < t.columns.size(); ++i) {
      Column& c = t.columns[i];
      if (c.not_null_name != k.name) continue;
      const bool in_key = InPrimaryKey(t, i);
      c.not_null = in_key;
      c.not_null_by_key = in_key;
      c.not_null_name.clear();
      return absl::OkStatus();
    }
  }
  absl::StatusOr<std::vector<uint16_t>> cols = ColumnPositions(t, k.columns);
  if (!cols.ok()) return cols.status();
  for (auto ix = t.indexes.begin(); ix != t.indexes.end(); ++ix) {
    const bool match = ix->constraint != KeyConstraint::kNone &&
                       (!k.name.empty()  ? ix->name == k.name
                        : k.primary_key ? ix->constraint == KeyConstraint::kPrimaryKey
                                        : ix->constraint == KeyConstraint::kUnique &&
                                              ix->columns == *cols);
    if (!match) continue;
    if (ix->constraint == KeyConstraint::kPrimaryKey) {
      for (uint16_t c : ix->columns) {
        if (!t.columns[c].not_null_by_key) continue;
        t.columns[c].not_null = false;
        t.columns[c].not_null_by_key = false;
      }
    }
    *dropped = DroppedIndex(e, t, ix);
    return absl::OkStatus();
  }
  if (!k.name.empty()) {
    return absl::NotFoundError(fmt::format(
        "ORA-02443: Cannot drop constraint  - nonexistent constraint ({} has no constraint {})",
        t.name, k.name));
  }
  if (k.primary_key) {
    return absl::NotFoundError(
        fmt::format("ORA-02441: Cannot drop nonexistent primary key ({} has none)", t.name));
  }
  return absl::NotFoundError(fmt::format(
      "ORA-02442: Cannot drop nonexistent unique key ({} has no UNIQUE constraint on {})", t.name,
      fmt::join(k.columns, ", ")));
}

absl::Status ChangeTable(DataEngine& e, SessionData& sd, Recorder& rec, TableDef& t,
                         const AlterTable& a, DroppedIndex* dropped)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu) {
  switch (a.kind) {
    case AlterTable::Kind::kDropConstraint:
      return DropConstraint(e, t, a.constraints.at(0), dropped);
    case AlterTable::Kind::kAdd:
      return AddToTable(e, sd, rec, t, a);
    case AlterTable::Kind::kModify:
      for (size_t i = 0; i < a.columns.size(); ++i) {
        if (absl::Status st = ModifyColumn(e, sd, rec, t, a.columns[i], a.not_null[i]); !st.ok()) {
          return st;
        }
      }
      return absl::OkStatus();
    case AlterTable::Kind::kRenameColumn: {
      absl::StatusOr<size_t> k = ColumnOf(t, a.from);
      if (!k.ok()) return k.status();
      if (ColumnOf(t, a.to).ok()) {
        return absl::AlreadyExistsError(
            fmt::format("ORA-00957: duplicate column name ({}.{})", t.name, a.to));
      }
      for (const CheckDef& c : t.checks) {
        if (FindExprNode(*c.parsed, [&](const Expr& n) {
              return n.kind == Expr::Kind::kColumn && n.text == a.from;
            })) {
          return absl::UnimplementedError(fmt::format(
              "cellsim does not rewrite CHECK constraint {} (CHECK ({})), which names column "
              "{}.{}: the column keeps its name", c.name, c.condition, t.name, a.from));
        }
      }
      t.columns[*k].name = a.to;
      return absl::OkStatus();
    }
    case AlterTable::Kind::kRenameTable:
      return CheckNameFree(e, a.to);
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<CheckDef> NewCheck(DataEngine& e, const TableDef& t, const TableConstraint& k) {
  if (const Expr* x = FindExprNode(*k.check, [&](const Expr& n) {
        return n.kind == Expr::Kind::kColumn && !ColumnOf(t, n.text).ok();
      })) {
    return absl::InvalidArgumentError(
        fmt::format("ORA-00904: \"{}\": invalid identifier (in CHECK ({}))", x->text, k.check_text));
  }
  CheckDef c{k.name.empty() ? fmt::format("SYS_C{:07d}", e.next_object_id++) : k.name,
             k.check_text, k.check};
  if (absl::Status st = CheckConstraintNameFree(e, t, c.name); !st.ok()) return st;
  return c;
}

absl::Status CheckConstraintNameFree(const DataEngine& e, const TableDef& t, const std::string& name) {
  const auto has = [&](const TableDef& x) {
    for (const IndexDef& ix : x.indexes) {
      if (ix.constraint != KeyConstraint::kNone && ix.name == name) return true;
    }
    for (const CheckDef& c : x.checks) {
      if (c.name == name) return true;
    }
    for (const Column& c : x.columns) {
      if (c.not_null_name == name) return true;
    }
    return false;
  };
  bool used = has(t);
  for (const auto& [tname, other] : e.tables) used = used || has(other);
  if (!used) return absl::OkStatus();
  return absl::AlreadyExistsError(
      fmt::format("ORA-02264: name already used by an existing constraint ({})", name));
}

absl::Status NameNotNull(DataEngine& e, const TableDef& t, Column& c, const std::string& wanted) {
  const std::string name = wanted.empty() ? fmt::format("SYS_C{:07d}", e.next_object_id++) : wanted;
  if (absl::Status st = CheckConstraintNameFree(e, t, name); !st.ok()) return st;
  c.not_null_name = name;
  return absl::OkStatus();
}

absl::Status CheckRow(const TableDef& t, const Row& row, const StatementEnv& env) {
  for (const CheckDef& c : t.checks) {
    absl::StatusOr<Value> v = EvalIn(*c.parsed, t.columns, row, t.name, nullptr, nullptr, "", env);
    if (!v.ok()) return v.status();
    if (v->kind == Value::Kind::kNumber && v->number == 0) {
      return absl::InvalidArgumentError(fmt::format(
          "ORA-02290: check constraint (CELLSIM.{}) violated (CHECK ({}) on {})", c.name,
          c.condition, t.name));
    }
  }
  return absl::OkStatus();
}

absl::Status AlterTableRun(DataEngine& e, SessionData& sd, Recorder& rec, const AlterTable& a,
                           DataOutcome* out) {
  auto it = e.tables.find(a.table);
  if (it == e.tables.end() && a.rename_statement) {
    const char* what = e.views.count(a.table) != 0       ? "a view"
                       : e.sequences.count(a.table) != 0 ? "a sequence"
                                                         : nullptr;
    if (what != nullptr) {
      return absl::UnimplementedError(fmt::format(
          "cellsim's RENAME renames tables; {} is {} (create it again under the new name)",
          a.table, what));
    }
    return absl::NotFoundError(fmt::format("ORA-04043: object {} does not exist", a.table));
  }
  if (it == e.tables.end()) {
    return absl::NotFoundError(fmt::format("ORA-00942: table or view \"{}\" does not exist", a.table));
  }
  TableDef& t = it->second;
  if (absl::Status st = CheckTableNotInUse(e, sd, t, false); !st.ok()) return st;
  // DDL commits the session's transaction first.
  if (absl::Status st = e.Commit(rec, sd); !st.ok()) return st;
  DataEngine::DictionaryState before = e.BeginDdl();
  DroppedIndex dropped;
  if (absl::Status st = ChangeTable(e, sd, rec, t, a, &dropped); !st.ok()) {
    return e.FailDdl(std::move(st), std::move(before), &sd);
  }
  if (a.kind == AlterTable::Kind::kRenameTable) {
    auto moved = e.tables.extract(it);
    moved.key() = a.to;
    moved.mapped().name = a.to;
    e.tables.insert(std::move(moved));
  }
  if (absl::Status st = e.WriteDictionaryOrRestore(std::move(before), &sd); !st.ok()) return st;
  dropped.Forget(e, sd);
  out->feedback = a.rename_statement ? "Table renamed." : "Table altered.";
  return absl::OkStatus();
}

}  // namespace cellsim::db::internal
