// The data statements: expression evaluation, queries over tables, DUAL,
// ALL_OBJECTS and V$ views, DML with undo and redo, transactions.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <regex>

#include "absl/strings/ascii.h"
#include "cellsim/db/all_objects.h"
#include "cellsim/db/data_engine.h"
#include "cellsim/db/data_views.h"
#include "cellsim/db/redo_model.h"

namespace cellsim::db::internal {
namespace {

using stats::Stat;

// ---- evaluation ----

struct Binding {
  std::string qualifier;  // alias, else table name
  const std::vector<Column>* columns = nullptr;
  const Row* row = nullptr;  // null: the outer-join side without a match
};
using Scope = std::vector<Binding>;

struct EvalEnv {
  uint32_t sid = 0;
  uint64_t rownum = 0;  // ROWNUM of the row at hand; 0 where ROWNUM is not allowed
  uint64_t level = 0;   // LEVEL under CONNECT BY; 0 without one
};

absl::StatusOr<Value> Eval(const Expr& e, const Scope& scope, const EvalEnv& env);

bool Truthy(const Value& v) { return v.kind == Value::Kind::kNumber && v.number != 0; }
Value Bool(bool b) { return Value::Num(b ? 1 : 0); }

int Compare(const Value& a, const Value& b) {
  if (a.kind == Value::Kind::kNumber && b.kind == Value::Kind::kNumber) {
    return a.number < b.number ? -1 : a.number > b.number ? 1 : 0;
  }
  const std::string x = ValueText(a), y = ValueText(b);
  if (a.kind == Value::Kind::kNumber || b.kind == Value::Kind::kNumber) {
    char* end = nullptr;
    const double dx = a.kind == Value::Kind::kNumber ? a.number : std::strtod(x.c_str(), &end);
    const double dy = b.kind == Value::Kind::kNumber ? b.number : std::strtod(y.c_str(), &end);
    return dx < dy ? -1 : dx > dy ? 1 : 0;
  }
  return x < y ? -1 : x > y ? 1 : 0;
}

bool Like(const std::string& text, const std::string& pattern) {
  std::string re;
  for (char c : pattern) {
    if (c == '%') re += ".*";
    else if (c == '_') re += ".";
    else if (std::string_view("\\^$.|?*+()[]{}").find(c) != std::string_view::npos) re += std::string("\\") + c;
    else re += c;
  }
  return std::regex_match(text, std::regex(re));
}

absl::StatusOr<Value> ColumnValue(const Expr& e, const Scope& scope, const EvalEnv& env) {
  for (const Binding& b : scope) {
    if (!e.qualifier.empty() && b.qualifier != e.qualifier) continue;
    for (size_t i = 0; i < b.columns->size(); ++i) {
      if ((*b.columns)[i].name == e.text) return b.row == nullptr ? Value::Null() : (*b.row)[i];
    }
  }
  if (e.qualifier.empty() && e.text == "SYSDATE") return Value::Null();
  // The pseudocolumns, where no source has a column of that name.
  if (e.qualifier.empty() && e.text == "ROWNUM") {
    if (env.rownum == 0) {
      return absl::InvalidArgumentError(
          "ORA-00976: Specified pseudocolumn or operator not allowed here (ROWNUM)");
    }
    return Value::Num(static_cast<double>(env.rownum));
  }
  if (e.qualifier.empty() && e.text == "LEVEL") {
    if (env.level == 0) {
      return absl::InvalidArgumentError(
          "ORA-01788: CONNECT BY clause required in this query block (LEVEL)");
    }
    return Value::Num(static_cast<double>(env.level));
  }
  return absl::InvalidArgumentError(fmt::format(
      "ORA-00904: \"{}\": invalid identifier",
      e.qualifier.empty() ? e.text : e.qualifier + "\".\"" + e.text));
}

absl::StatusOr<Value> Function(const Expr& e, const Scope& scope, const EvalEnv& env) {
  std::vector<Value> a;
  for (const ExprPtr& x : e.args) {
    absl::StatusOr<Value> v = Eval(*x, scope, env);
    if (!v.ok()) return v;
    a.push_back(*v);
  }
  const std::string& f = e.text;
  if (f == "SYS_CONTEXT" && a.size() == 2) {
    const std::string param = absl::AsciiStrToUpper(ValueText(a[1]));
    if (param == "SID") return Value::Str(fmt::format("{}", env.sid));
    if (param == "SESSION_USER" || param == "CURRENT_USER") return Value::Str("CELLSIM");
    if (param == "INSTANCE") return Value::Str("1");
    return Value::Null();
  }
  if (f == "POWER" && a.size() == 2) return Value::Num(std::pow(a[0].number, a[1].number));
  if (f == "LOWER" && a.size() == 1) return Value::Str(absl::AsciiStrToLower(ValueText(a[0])));
  if (f == "UPPER" && a.size() == 1) return Value::Str(absl::AsciiStrToUpper(ValueText(a[0])));
  if (f == "NVL" && a.size() == 2) return a[0].is_null() ? a[1] : a[0];
  if (f == "ROUND" && !a.empty()) {
    const double p = a.size() > 1 ? std::pow(10.0, a[1].number) : 1;
    return Value::Num(std::round(a[0].number * p) / p);
  }
  return absl::InvalidArgumentError(
      fmt::format("ORA-00904: \"{}\": invalid identifier (cellsim supports SYS_CONTEXT, POWER, "
                  "LOWER, UPPER, NVL, ROUND and the aggregates COUNT, SUM, MIN, MAX)", f));
}

absl::StatusOr<Value> Eval(const Expr& e, const Scope& scope, const EvalEnv& env) {
  switch (e.kind) {
    case Expr::Kind::kNumber: return Value::Num(e.number);
    case Expr::Kind::kString: return Value::Str(e.text);
    case Expr::Kind::kNull: return Value::Null();
    case Expr::Kind::kStar: return absl::InvalidArgumentError("ORA-00936: missing expression (*)");
    case Expr::Kind::kColumn: return ColumnValue(e, scope, env);
    case Expr::Kind::kFunction: return Function(e, scope, env);
    case Expr::Kind::kIsNull: {
      absl::StatusOr<Value> v = Eval(*e.args[0], scope, env);
      if (!v.ok()) return v;
      return Bool(v->is_null() != e.negated);
    }
    case Expr::Kind::kInList: {
      absl::StatusOr<Value> v = Eval(*e.args[0], scope, env);
      if (!v.ok()) return v;
      bool found = false;
      for (size_t i = 1; i < e.args.size(); ++i) {
        absl::StatusOr<Value> x = Eval(*e.args[i], scope, env);
        if (!x.ok()) return x;
        found |= !v->is_null() && !x->is_null() && Compare(*v, *x) == 0;
      }
      return Bool(found != e.negated);
    }
    case Expr::Kind::kUnary: {
      absl::StatusOr<Value> v = Eval(*e.args[0], scope, env);
      if (!v.ok()) return v;
      if (e.text == "NOT") return Bool(!Truthy(*v));
      if (v->is_null()) return v;
      return Value::Num(-v->number);
    }
    case Expr::Kind::kBinary: break;
  }
  absl::StatusOr<Value> a = Eval(*e.args[0], scope, env);
  if (!a.ok()) return a;
  const std::string& op = e.text;
  if (op == "AND" && !Truthy(*a)) return Bool(false);
  if (op == "OR" && Truthy(*a)) return Bool(true);
  absl::StatusOr<Value> b = Eval(*e.args[1], scope, env);
  if (!b.ok()) return b;
  if (op == "AND" || op == "OR") return Bool(Truthy(*b));
  if (op == "||") return Value::Str(ValueText(*a) + ValueText(*b));
  if (a->is_null() || b->is_null()) return op == "LIKE" || op.size() <= 2 ? Bool(false) : Value::Null();
  if (op == "LIKE") return Bool(Like(ValueText(*a), ValueText(*b)) != e.negated);
  if (op == "=" || op == "<>" || op == "<" || op == "<=" || op == ">" || op == ">=") {
    const int c = Compare(*a, *b);
    return Bool(op == "=" ? c == 0 : op == "<>" ? c != 0 : op == "<" ? c < 0 : op == "<=" ? c <= 0
                : op == ">" ? c > 0 : c >= 0);
  }
  auto num = [](const Value& v) -> std::optional<double> {
    if (v.kind == Value::Kind::kNumber) return v.number;
    char* end = nullptr;
    const double d = std::strtod(v.text.c_str(), &end);
    if (end == v.text.c_str() || *end != '\0') return std::nullopt;
    return d;
  };
  const std::optional<double> x = num(*a), y = num(*b);
  if (!x || !y) return absl::InvalidArgumentError("ORA-01722: invalid number");
  if (op == "+") return Value::Num(*x + *y);
  if (op == "-") return Value::Num(*x - *y);
  if (op == "*") return Value::Num(*x * *y);
  if (*y == 0) return absl::InvalidArgumentError("ORA-01476: divisor is equal to zero");
  return Value::Num(*x / *y);
}

// ---- row sources ----

struct RowId {
  uint32_t file = 0, block = 0;
  uint16_t slot = 0;
};

struct Source {
  std::string qualifier;
  std::vector<internal::Column> columns;
  // Streams rows; return false from the callback to stop.
  std::function<absl::Status(const std::function<bool(const Row&, const RowId&)>&)> scan;
  TableDef* table = nullptr;
  Segment* segment = nullptr;  // heap or this session's GTT segment (null: empty GTT)
};

struct Ctx {
  DataEngine& e;
  Session::State& s;
  SessionData& sd;
  Recorder& rec;
  EvalEnv env;
};

absl::StatusOr<std::vector<Row>> RunSelectRows(Ctx& c, const Select& sel,
                                               std::vector<internal::Column>* cols,
                                               DataOutcome* out)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(c.e.mu);


absl::StatusOr<Source> TableSource(Ctx& c, const FromSource& f)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(c.e.mu) {
  Source src;
  src.qualifier = f.alias.empty() ? f.table : f.alias;
  if (f.subquery) {
    auto rows = std::make_shared<std::vector<Row>>();
    absl::StatusOr<std::vector<Row>> r = RunSelectRows(c, *f.subquery, &src.columns, nullptr);
    if (!r.ok()) return r.status();
    *rows = *std::move(r);
    src.scan = [rows](const auto& cb) {
      for (const Row& row : *rows) {
        if (!cb(row, RowId{})) break;
      }
      return absl::OkStatus();
    };
    return src;
  }
  if (f.table == "DUAL") {
    src.columns = {{"DUMMY", ColType::kVarchar2, 1}};
    src.scan = [](const auto& cb) {
      cb(Row{Value::Str("X")}, RowId{});
      return absl::OkStatus();
    };
    return src;
  }
  if (f.table == "ALL_OBJECTS" || f.table == "DBA_OBJECTS") {
    src.columns = AllObjectsColumns();
    const uint64_t n = c.e.all_objects_rows;
    const int64_t created = c.e.FileTableCopy().created_unix;
    src.scan = [n, created](const auto& cb) {
      for (uint64_t i = 0; i < n; ++i) {
        if (!cb(AllObjectsRow(i, created), RowId{})) break;
      }
      return absl::OkStatus();
    };
    return src;
  }
  if (std::optional<ViewRows> v = BuildView(c.e, c.sd, f.table); v.has_value()) {
    src.columns = v->columns;
    auto rows = std::make_shared<std::vector<Row>>(std::move(v->rows));
    src.scan = [rows](const auto& cb) {
      for (const Row& row : *rows) {
        if (!cb(row, RowId{})) break;
      }
      return absl::OkStatus();
    };
    return src;
  }
  auto it = c.e.tables.find(f.table);
  if (it == c.e.tables.end()) {
    return absl::NotFoundError(fmt::format("ORA-00942: table or view \"{}\" does not exist", f.table));
  }
  TableDef* t = &it->second;
  src.table = t;
  src.columns = t->columns;
  src.segment = c.e.TableSegment(c.sd, *t, false);
  Segment* seg = src.segment;
  if (seg != nullptr && !t->temporary) {
    absl::Status st = c.e.EnsureCached(c.rec, seg->file_number, seg->blocks, t->object_id);
    if (!st.ok()) return st;
  }
  DataEngine* e = &c.e;
  src.scan = [t, seg, e](const auto& cb) {
    e->mu.AssertHeld();  // the scan runs inside the statement, under the engine's mu
    if (seg == nullptr) return absl::OkStatus();
    // The table as it was when the scan began (statement-level read
    // consistency): an INSERT ... SELECT from its own table adds rows while
    // this scan runs, to the last block and then to new blocks. So the block
    // list is copied, and the last block's bytes too: the rows the statement
    // puts into it are not read back (the Halloween problem).
    const std::vector<uint32_t> blocks = seg->blocks;
    std::vector<uint8_t> last;
    if (!blocks.empty()) last = e->Block(seg->file_number, blocks.back()).bytes;
    for (size_t i = 0; i < blocks.size(); ++i) {
      const uint32_t b = blocks[i];
      HeapBlock hb(i + 1 == blocks.size() ? absl::MakeSpan(last)
                                          : absl::MakeSpan(e->Block(seg->file_number, b).bytes));
      const uint16_t n = hb.rows();
      for (uint16_t slot = 0; slot < n; ++slot) {
        if (!hb.live(slot)) continue;
        if (!cb(DecodeRow(t->columns, hb.RowBytes(slot)), RowId{seg->file_number, b, slot})) {
          return absl::OkStatus();
        }
      }
    }
    return absl::OkStatus();
  };
  return src;
}

// Index range scan: a `column = literal` conjunct of WHERE on a column an
// index of the table leads with (a NUMBER column and a number, a VARCHAR2
// column and a string: where the comparison is the stored bytes') makes the
// source read the rows the index finds; WHERE still filters them.
absl::Status UseIndex(Ctx& c, Source& src, const Expr& where) ABSL_EXCLUSIVE_LOCKS_REQUIRED(c.e.mu) {
  std::vector<const Expr*> conjuncts;
  std::function<void(const Expr&)> flatten = [&](const Expr& x) {
    if (x.kind == Expr::Kind::kBinary && x.text == "AND") {
      flatten(*x.args[0]);
      flatten(*x.args[1]);
    } else {
      conjuncts.push_back(&x);
    }
  };
  flatten(where);
  TableDef* t = src.table;
  for (const Expr* x : conjuncts) {
    if (x->kind != Expr::Kind::kBinary || x->text != "=") continue;
    const Expr* col = x->args[0].get();
    const Expr* lit = x->args[1].get();
    if (col->kind != Expr::Kind::kColumn) std::swap(col, lit);
    if (col->kind != Expr::Kind::kColumn || (!col->qualifier.empty() && col->qualifier != src.qualifier)) {
      continue;
    }
    absl::StatusOr<size_t> k = ColumnOf(*t, col->text);
    if (!k.ok()) continue;
    const ColType type = t->columns[*k].type;
    Value v;
    if (type == ColType::kNumber && lit->kind == Expr::Kind::kNumber) v = Value::Num(lit->number);
    else if (type == ColType::kVarchar2 && lit->kind == Expr::Kind::kString) v = Value::Str(lit->text);
    else continue;
    absl::StatusOr<std::optional<std::vector<IndexRowId>>> rowids =
        c.e.IndexRange(c.rec, c.sd, *t, static_cast<uint16_t>(*k), v);
    if (!rowids.ok()) return rowids.status();
    if (!rowids->has_value()) continue;
    auto list = std::make_shared<std::vector<IndexRowId>>(std::move(**rowids));
    DataEngine* e = &c.e;
    src.scan = [t, list, e](const auto& cb) {
      e->mu.AssertHeld();  // the scan runs inside the statement, under the engine's mu
      for (const IndexRowId& r : *list) {
        HeapBlock hb(absl::MakeSpan(e->Block(r.file, r.block).bytes));
        if (!hb.live(r.slot)) continue;
        if (!cb(DecodeRow(t->columns, hb.RowBytes(r.slot)), RowId{r.file, r.block, r.slot})) break;
      }
      return absl::OkStatus();
    };
    return absl::OkStatus();
  }
  return absl::OkStatus();
}

// ORA-00904 for a column no source has (checked before any row is read, as
// Oracle's parse does).
absl::Status CheckColumns(const Expr& e, const std::vector<Source>& sources) {
  if (e.kind == Expr::Kind::kColumn) {
    for (const Source& s : sources) {
      if (!e.qualifier.empty() && e.qualifier != s.qualifier) continue;
      for (const internal::Column& c : s.columns) {
        if (c.name == e.text) return absl::OkStatus();
      }
    }
    if (e.qualifier.empty() && (e.text == "LEVEL" || e.text == "ROWNUM")) return absl::OkStatus();
    return absl::InvalidArgumentError(fmt::format(
        "ORA-00904: \"{}\": invalid identifier",
        e.qualifier.empty() ? e.text : e.qualifier + "\".\"" + e.text));
  }
  for (const ExprPtr& a : e.args) {
    if (absl::Status st = CheckColumns(*a, sources); !st.ok()) return st;
  }
  return absl::OkStatus();
}

// Every combination of the FROM list's rows that the joins and WHERE keep.
absl::Status ForEachJoined(Ctx& c, const Select& sel,
                           const std::function<absl::Status(const Scope&, const RowId&)>& fn)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(c.e.mu) {
  std::vector<Source> sources;
  for (const FromSource& f : sel.from) {
    absl::StatusOr<Source> s = TableSource(c, f);
    if (!s.ok()) return s.status();
    sources.push_back(*std::move(s));
  }
  for (const SelectItem& it : sel.items) {
    if (absl::Status st = CheckColumns(*it.expr, sources); !st.ok()) return st;
  }
  if (sel.where) {
    if (absl::Status st = CheckColumns(*sel.where, sources); !st.ok()) return st;
    if (sources.size() == 1 && sources[0].table != nullptr && !sources[0].table->indexes.empty()) {
      if (absl::Status st = UseIndex(c, sources[0], *sel.where); !st.ok()) return st;
    }
  }
  // Materialise all but the first source (small: V$ views, DUAL, subqueries).
  std::vector<std::vector<Row>> rest(sources.size());
  for (size_t i = 1; i < sources.size(); ++i) {
    absl::Status st = sources[i].scan([&](const Row& r, const RowId&) {
      rest[i].push_back(r);
      return true;
    });
    if (!st.ok()) return st;
  }
  const uint64_t levels = sel.connect_by_level.value_or(1);
  // ROWNUM and LEVEL of the row at hand, for WHERE and for `fn` (the select
  // list, ORDER BY keys): a row's ROWNUM is one more than the rows WHERE has
  // accepted before it (so `rownum > 1` accepts none, as in Oracle), given
  // before ORDER BY sorts. WHERE filters each row of the CONNECT BY
  // hierarchy, as Oracle applies it after CONNECT BY.
  const EvalEnv outer_env = c.env;
  uint64_t accepted = 0;
  absl::Status inner;
  std::function<bool(Scope&, size_t, const RowId&)> join = [&](Scope& scope, size_t i,
                                                               const RowId& rid) -> bool {
    if (i == sources.size()) {
      for (uint64_t l = 0; l < levels; ++l) {
        c.env.level = sel.connect_by_level ? l + 1 : 0;
        c.env.rownum = accepted + 1;
        if (sel.where) {
          absl::StatusOr<Value> w = Eval(*sel.where, scope, c.env);
          if (!w.ok()) {
            inner = w.status();
            return false;
          }
          if (!Truthy(*w)) continue;
        }
        ++accepted;
        inner = fn(scope, rid);
        if (!inner.ok()) break;
      }
      c.env = outer_env;  // a join's ON sees no ROWNUM
      return inner.ok();
    }
    bool matched = false;
    for (const Row& r : rest[i]) {
      scope.push_back(Binding{sources[i].qualifier, &sources[i].columns, &r});
      bool keep = true;
      if (sel.from[i].on) {
        absl::StatusOr<Value> on = Eval(*sel.from[i].on, scope, c.env);
        if (!on.ok()) {
          inner = on.status();
          return false;
        }
        keep = Truthy(*on);
      }
      bool go = true;
      if (keep) {
        matched = true;
        go = join(scope, i + 1, rid);
      }
      scope.pop_back();
      if (!go) return false;
    }
    if (!matched && sel.from[i].left_join) {
      scope.push_back(Binding{sources[i].qualifier, &sources[i].columns, nullptr});
      const bool go = join(scope, i + 1, rid);
      scope.pop_back();
      return go;
    }
    return true;
  };
  absl::Status st = sources[0].scan([&](const Row& r, const RowId& rid) {
    Scope scope{Binding{sources[0].qualifier, &sources[0].columns, &r}};
    return join(scope, 1, rid);
  });
  c.env = outer_env;
  if (!st.ok()) return st;
  return inner;
}

bool IsAggregate(const Expr& e) {
  return e.kind == Expr::Kind::kFunction &&
         (e.text == "COUNT" || e.text == "SUM" || e.text == "MIN" || e.text == "MAX");
}

// The output columns of a SELECT list over `scope`'s first binding shape.
void ExpandItems(const Select& sel, const Scope& scope, std::vector<ExprPtr>* exprs,
                 std::vector<std::string>* headings) {
  for (const SelectItem& it : sel.items) {
    if (it.expr->kind == Expr::Kind::kStar) {
      for (const Binding& b : scope) {
        if (!it.expr->qualifier.empty() && it.expr->qualifier != b.qualifier) continue;
        for (const internal::Column& col : *b.columns) {
          auto e = std::make_shared<Expr>();
          e->kind = Expr::Kind::kColumn;
          e->qualifier = b.qualifier;
          e->text = col.name;
          exprs->push_back(e);
          headings->push_back(col.name);
        }
      }
      continue;
    }
    exprs->push_back(it.expr);
    headings->push_back(it.heading);
  }
}

absl::StatusOr<std::vector<Row>> RunSelectRows(Ctx& c, const Select& sel,
                                               std::vector<internal::Column>* cols,
                                               DataOutcome* out)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(c.e.mu) {
  std::vector<ExprPtr> exprs;
  std::vector<std::string> headings;
  std::vector<Row> rows;
  std::vector<Row> keys;
  const bool aggregate = !sel.items.empty() && IsAggregate(*sel.items[0].expr);
  std::vector<double> acc(sel.items.size(), 0);
  std::vector<bool> seen(sel.items.size(), false);
  bool expanded = false;
  absl::Status st = ForEachJoined(c, sel, [&](const Scope& scope, const RowId&) -> absl::Status {
    if (!expanded) {
      ExpandItems(sel, scope, &exprs, &headings);
      expanded = true;
    }
    if (aggregate) {
      for (size_t i = 0; i < sel.items.size(); ++i) {
        const Expr& e = *sel.items[i].expr;
        if (e.text == "COUNT") {
          acc[i] += 1;
          continue;
        }
        absl::StatusOr<Value> v = Eval(*e.args.at(0), scope, c.env);
        if (!v.ok()) return v.status();
        if (v->is_null()) continue;
        if (e.text == "SUM") acc[i] += v->number;
        if (e.text == "MIN") acc[i] = seen[i] ? std::min(acc[i], v->number) : v->number;
        if (e.text == "MAX") acc[i] = seen[i] ? std::max(acc[i], v->number) : v->number;
        seen[i] = true;
      }
      return absl::OkStatus();
    }
    Row row;
    for (const ExprPtr& e : exprs) {
      absl::StatusOr<Value> v = Eval(*e, scope, c.env);
      if (!v.ok()) return v.status();
      row.push_back(*v);
    }
    Row key;
    for (const OrderItem& o : sel.order_by) {
      if (o.expr->kind == Expr::Kind::kNumber) {
        key.push_back(row.at(static_cast<size_t>(o.expr->number) - 1));
        continue;
      }
      absl::StatusOr<Value> v = Eval(*o.expr, scope, c.env);
      if (!v.ok()) return v.status();
      key.push_back(*v);
    }
    rows.push_back(std::move(row));
    keys.push_back(std::move(key));
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  if (aggregate) {
    Row row;
    headings.clear();  // one per aggregate, not the expanded select list's
    exprs.clear();
    for (size_t i = 0; i < sel.items.size(); ++i) {
      const std::string& f = sel.items[i].expr->text;
      row.push_back(f == "COUNT" || seen[i] ? Value::Num(acc[i]) : Value::Null());
      headings.push_back(sel.items[i].heading);
    }
    rows = {row};
  } else if (!sel.order_by.empty()) {
    std::vector<size_t> idx(rows.size());
    for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
    std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
      for (size_t k = 0; k < sel.order_by.size(); ++k) {
        const int cmp = Compare(keys[a][k], keys[b][k]);
        if (cmp != 0) return sel.order_by[k].descending ? cmp > 0 : cmp < 0;
      }
      return false;
    });
    std::vector<Row> sorted;
    for (size_t i : idx) sorted.push_back(std::move(rows[i]));
    rows = std::move(sorted);
  }
  if (!expanded && !aggregate) {  // no row: headings still come from the select list
    for (const SelectItem& it : sel.items) headings.push_back(it.heading);
  }
  if (cols != nullptr) {
    cols->clear();
    for (size_t i = 0; i < headings.size(); ++i) {
      const bool num = !rows.empty() && rows[0][i].kind == Value::Kind::kNumber;
      std::string name = headings[i];
      if (i < sel.items.size() && !sel.items[i].alias.empty()) name = sel.items[i].alias;
      cols->push_back({name, num ? ColType::kNumber : ColType::kVarchar2, 4000});
    }
  }
  if (out != nullptr) {
    out->headings = headings;
    out->numeric.assign(headings.size(), false);
    for (const Row& r : rows) {
      std::vector<std::string> text;
      for (size_t i = 0; i < r.size(); ++i) {
        text.push_back(ValueText(r[i]));
        if (r[i].kind == Value::Kind::kNumber && !r[i].is_date) out->numeric[i] = true;
      }
      out->rows_text.push_back(std::move(text));
    }
    out->rows = static_cast<int64_t>(rows.size());
  }
  return rows;
}

}  // namespace

// Defined in data_dml.cc.
absl::Status RunDml(DataEngine& e, Session::State& s, SessionData& sd, Recorder& rec,
                    const DataStatement& st, DataOutcome* out) ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu);

std::string CountWithCommas(int64_t n) {
  std::string digits = fmt::format("{}", n < 0 ? -n : n);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return n < 0 ? "-" + out : out;
}

absl::StatusOr<std::vector<Row>> QueryRows(DataEngine& e, Session::State& s, SessionData& sd,
                                           Recorder& rec, const Select& sel,
                                           std::vector<internal::Column>* cols, DataOutcome* out)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu) {
  Ctx c{e, s, sd, rec, EvalEnv{s.sid}};
  c.e.mu.AssertHeld();  // c.e is e, whose mu the caller holds
  return RunSelectRows(c, sel, cols, out);
}

absl::Status RunDataStatement(Session::State& s, const DataStatement& st, DataOutcome* out) {
  DataEngine& e = EngineOf(*s.db);
  MutexLock lock(&e.mu);
  SessionData& sd = *s.data;
  Recorder rec = s.MakeRecorder();
  if (const auto* sel = std::get_if<Select>(&st)) {
    absl::StatusOr<std::vector<Row>> rows = QueryRows(e, s, sd, rec, *sel, nullptr, out);
    if (!rows.ok()) return rows.status();
    out->feedback = rows->empty() ? "no rows selected"
                    : rows->size() == 1 ? "1 row selected."
                                        : fmt::format("{} rows selected.", CountWithCommas(static_cast<int64_t>(rows->size())));
    return absl::OkStatus();
  }
  const size_t mark = sd.txn.undo.size();
  absl::Status status = RunDml(e, s, sd, rec, st, out);
  if (!status.ok() && !std::holds_alternative<Commit>(st) &&
      !std::holds_alternative<Rollback>(st)) {
    e.RollbackTo(rec, sd, mark);  // statement-level rollback, as Oracle
  }
  return status;
}

absl::Status ScanSelect(DataEngine& e, Session::State& s, SessionData& sd, Recorder& rec,
                        const Select& sel,
                        const std::function<absl::Status(const Row&)>& fn,
                        std::vector<internal::Column>* cols) {
  Ctx c{e, s, sd, rec, EvalEnv{s.sid}};
  c.e.mu.AssertHeld();  // c.e is e, whose mu the caller holds
  std::vector<ExprPtr> exprs;
  std::vector<std::string> headings;
  bool expanded = false;
  return ForEachJoined(c, sel, [&](const Scope& scope, const RowId&) -> absl::Status {
    if (!expanded) {
      ExpandItems(sel, scope, &exprs, &headings);
      expanded = true;
      cols->clear();
      // Columns of the result: a plain column keeps its type, others are derived.
      for (size_t i = 0; i < exprs.size(); ++i) {
        internal::Column col{headings[i], ColType::kNumber, 0};
        if (exprs[i]->kind == Expr::Kind::kColumn) {
          for (const Binding& b : scope) {
            if (!exprs[i]->qualifier.empty() && exprs[i]->qualifier != b.qualifier) continue;
            for (const internal::Column& bc : *b.columns) {
              if (bc.name == exprs[i]->text) col = bc;
            }
          }
        }
        if (i < sel.items.size() && !sel.items[i].alias.empty()) col.name = sel.items[i].alias;
        cols->push_back(col);
      }
    }
    Row row;
    for (const ExprPtr& x : exprs) {
      absl::StatusOr<Value> v = Eval(*x, scope, c.env);
      if (!v.ok()) return v.status();
      row.push_back(*v);
    }
    return fn(row);
  });
}

// The columns a SELECT would produce even when it returns no row (CTAS ...
// WHERE 1=0): taken from the sources' shapes.
absl::StatusOr<std::vector<internal::Column>> SelectShape(DataEngine& e, Session::State& s,
                                                          SessionData& sd, Recorder& rec,
                                                          const Select& sel) {
  Ctx c{e, s, sd, rec, EvalEnv{s.sid}};
  c.e.mu.AssertHeld();  // c.e is e, whose mu the caller holds
  std::vector<Source> sources;
  std::vector<internal::Column> cols;
  for (const FromSource& f : sel.from) {
    absl::StatusOr<Source> src = TableSource(c, f);
    if (!src.ok()) return src.status();
    sources.push_back(*std::move(src));
  }
  for (const SelectItem& it : sel.items) {
    if (it.expr->kind == Expr::Kind::kStar) {
      for (const Source& src : sources) {
        if (!it.expr->qualifier.empty() && it.expr->qualifier != src.qualifier) continue;
        cols.insert(cols.end(), src.columns.begin(), src.columns.end());
      }
      continue;
    }
    internal::Column col{it.alias.empty() ? it.heading : it.alias, ColType::kNumber, 0};
    if (it.expr->kind == Expr::Kind::kColumn) {
      for (const Source& src : sources) {
        for (const internal::Column& bc : src.columns) {
          if (bc.name == it.expr->text) {
            col = bc;
            if (!it.alias.empty()) col.name = it.alias;
          }
        }
      }
    } else if (it.expr->kind == Expr::Kind::kString) {
      col.type = ColType::kVarchar2;
      col.length = static_cast<uint32_t>(std::max<size_t>(1, it.expr->text.size()));
    }
    cols.push_back(col);
  }
  return cols;
}

absl::StatusOr<Value> EvalIn(const Expr& expr, const std::vector<internal::Column>& cols,
                             const Row& row, const std::string& qualifier,
                             const std::vector<internal::Column>* cols2, const Row* row2,
                             const std::string& qualifier2, uint32_t sid, uint64_t rownum) {
  Scope scope{Binding{qualifier, &cols, &row}};
  if (cols2 != nullptr) scope.push_back(Binding{qualifier2, cols2, row2});
  return Eval(expr, scope, EvalEnv{.sid = sid, .rownum = rownum});
}

}  // namespace cellsim::db::internal
