// The data statements: expression evaluation, queries over tables, DUAL,
// ALL_OBJECTS and V$ views, DML with undo and redo, transactions.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <regex>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "cellsim/base/sql_like.h"
#include "cellsim/db/all_objects.h"
#include "cellsim/db/aggregate.h"
#include "cellsim/db/analytic.h"
#include "cellsim/db/data_engine.h"
#include "cellsim/db/data_views.h"
#include "cellsim/db/join_index.h"
#include "cellsim/db/redo_model.h"
#include "cellsim/db/sql_functions.h"

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

struct EvalEnv;

struct EvalEnv {
  StatementEnv stmt;    // SYS_CONTEXT's SID, SYSDATE
  uint64_t rownum = 0;  // ROWNUM of the row at hand; 0 where ROWNUM is not allowed
  uint64_t level = 0;   // LEVEL under CONNECT BY; 0 without one
  // A grouped query's output stage: the values of the group at hand for its
  // aggregate and GROUP BY nodes (nullopt for any other node).
  const std::function<std::optional<Value>(const Expr&)>* group_values = nullptr;
  // In a correlated subquery: the rows of the queries around it, whose
  // columns a name not found in the subquery's own sources may be.
  const Scope* outer = nullptr;
};

}  // namespace

// Runs a correlated subquery node for the row at hand (`scope`, and the rows
// around it in env.outer): its rows' first column (one value per row for
// EXISTS).
struct CorrelatedSubqueries {
  std::function<absl::StatusOr<std::shared_ptr<const std::vector<Value>>>(
      const Expr& node, const Scope& scope, const EvalEnv& env)>
      run;
};

namespace {

absl::StatusOr<Value> Eval(const Expr& e, const Scope& scope, const EvalEnv& env);

Value Bool(bool b) { return Value::Num(b ? 1 : 0); }

// SYSDATE, SYSTIMESTAMP, CURRENT_TIMESTAMP, LOCALTIMESTAMP, USER and
// DBMS_UTILITY's GET_TIME and GET_CPU_TIME: columns by their syntax, with no
// source row needed (the clock's are the statement's, GET_CPU_TIME's the
// session's as it is read).
enum class StatementConstant : uint8_t {
  kNone, kSysdate, kSystimestamp, kLocaltimestamp, kUser, kGetTime, kGetCpuTime
};
StatementConstant StatementConstantOf(const Expr& e) {
  using K = StatementConstant;
  if (e.kind != Expr::Kind::kColumn) return K::kNone;
  if (e.qualifier == "DBMS_UTILITY") {
    return e.text == "GET_TIME" ? K::kGetTime : e.text == "GET_CPU_TIME" ? K::kGetCpuTime : K::kNone;
  }
  if (!e.qualifier.empty()) return K::kNone;
  return e.text == "SYSDATE"                                          ? K::kSysdate
         : e.text == "SYSTIMESTAMP" || e.text == "CURRENT_TIMESTAMP" ? K::kSystimestamp
         : e.text == "LOCALTIMESTAMP"                                 ? K::kLocaltimestamp
         : e.text == "USER"                                           ? K::kUser
                                                                      : K::kNone;
}
bool IsStatementConstant(const Expr& e) {
  return StatementConstantOf(e) != StatementConstant::kNone;
}

// An aggregate of a grouped query (not one with OVER: an analytic function).
bool IsAggregate(const Expr& e) {
  return e.kind == Expr::Kind::kFunction && !e.over && IsAggregateFunction(e.text);
}

bool HasAggregate(const Expr& e) {
  if (IsAggregate(e)) return true;
  return std::any_of(e.args.begin(), e.args.end(), [](const ExprPtr& a) { return HasAggregate(*a); });
}


std::optional<size_t> ColumnIndex(const std::vector<Column>& columns, const std::string& name) {
  for (size_t i = 0; i < columns.size(); ++i) {
    if (columns[i].name == name) return i;
  }
  return std::nullopt;
}

// The binding and column `e` names in `scope`: the first that has it; for
// a name without qualifier, the first whose row is there (an outer join's
// side without a match has none), so that a column of JOIN ... USING is
// either side's value, as Oracle's COALESCE of the two.
std::optional<std::pair<const Binding*, size_t>> FindColumn(const Expr& e, const Scope& scope) {
  std::optional<std::pair<const Binding*, size_t>> first;
  for (const Binding& b : scope) {
    if (!e.qualifier.empty() && b.qualifier != e.qualifier) continue;
    if (std::optional<size_t> i = ColumnIndex(*b.columns, e.text)) {
      if (!e.qualifier.empty() || b.row != nullptr) return std::make_pair(&b, *i);
      if (!first) first = std::make_pair(&b, *i);
    }
  }
  return first;
}

// The columns join `i` of `sel` matches on: its USING list, or for NATURAL
// JOIN every column of source i a source before it has (in the order the
// sources before give them). `scope`: a binding per source.
std::vector<std::string> UsingColumns(const Select& sel, const Scope& scope, size_t i) {
  const FromSource& f = sel.from[i];
  if (!f.natural) return f.using_columns;
  std::vector<std::string> names;
  for (size_t j = JoinGroupStart(sel.from, i); j < i; ++j) {
    for (const Column& col : *scope[j].columns) {
      if (ColumnIndex(*scope[i].columns, col.name) &&
          std::find(names.begin(), names.end(), col.name) == names.end()) {
        names.push_back(col.name);
      }
    }
  }
  return names;
}

// SELECT *'s columns: each source's in turn, except that a join with USING
// (or NATURAL) puts its columns first, once (as Oracle: the join's common
// columns, then the other columns of the sources before it, then its own),
// named without qualifier (either side's value).
struct StarColumn {
  size_t binding = 0;
  size_t column = 0;
  bool shared = false;  // a USING column
};
std::vector<StarColumn> StarColumns(const Select& sel, const Scope& scope) {
  std::vector<StarColumn> out;
  const bool joins = scope.size() == sel.from.size();
  const auto name_of = [&](const StarColumn& c) -> const std::string& {
    return (*scope[c.binding].columns)[c.column].name;
  };
  for (size_t i = 0; i < scope.size(); ++i) {
    const std::vector<std::string> shared =
        joins && i > 0 ? UsingColumns(sel, scope, i) : std::vector<std::string>{};
    const auto is_shared = [&](const std::string& name) {
      return std::find(shared.begin(), shared.end(), name) != shared.end();
    };
    // The join's left side is the sources since the last comma: the shared
    // columns go first among its columns, once.
    const size_t group = joins ? JoinGroupStart(sel.from, i) : 0;
    std::vector<StarColumn> next;
    std::vector<bool> taken(out.size(), false);
    for (size_t k = 0; k < out.size() && out[k].binding < group; ++k) next.push_back(out[k]);
    for (const std::string& name : shared) {
      for (size_t k = 0; k < out.size(); ++k) {
        if (taken[k] || out[k].binding < group || name_of(out[k]) != name) continue;
        next.push_back({out[k].binding, out[k].column, true});
        taken[k] = true;
        break;
      }
    }
    for (size_t k = 0; k < out.size(); ++k) {
      if (out[k].binding >= group && !taken[k]) next.push_back(out[k]);
    }
    for (size_t k = 0; k < scope[i].columns->size(); ++k) {
      if (!is_shared((*scope[i].columns)[k].name)) next.push_back({i, k, false});
    }
    out = std::move(next);
  }
  return out;
}

absl::StatusOr<Value> ColumnValue(const Expr& e, const Scope& scope, const EvalEnv& env) {
  // The query's own sources first, then (a correlated subquery) the rows of
  // the queries around it, innermost first.
  for (const Scope* s : {&scope, env.outer}) {
    if (s == nullptr) continue;
    if (auto found = FindColumn(e, *s)) {
      const Binding& b = *found->first;
      return b.row == nullptr ? Value::Null() : (*b.row)[found->second];
    }
  }
  switch (StatementConstantOf(e)) {
    case StatementConstant::kNone: break;
    case StatementConstant::kSysdate: return Value::Date(env.stmt.sysdate_unix());
    case StatementConstant::kSystimestamp:
    case StatementConstant::kLocaltimestamp:
      return Value::Timestamp(static_cast<double>(env.stmt.now_unix_us) / 1e6,
                              kDefaultTimestampPrecision,
                              StatementConstantOf(e) == StatementConstant::kSystimestamp);
    case StatementConstant::kUser: return Value::Str("CELLSIM");
    case StatementConstant::kGetTime: return Value::Num(static_cast<double>(env.stmt.time_cs));
    case StatementConstant::kGetCpuTime:
      return Value::Num(static_cast<double>(ThreadCpuNs() / 10'000'000));
  }
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

// The rows a subquery node gave: AddSubqueryRows ran it before the scan, or
// (correlated) it runs now for the row at hand.
absl::StatusOr<std::shared_ptr<const std::vector<Value>>> SubqueryValues(const Expr& e,
                                                                         const Scope& scope,
                                                                         const EvalEnv& env) {
  if (env.stmt.subqueries != nullptr) {
    if (auto it = env.stmt.subqueries->find(&e); it != env.stmt.subqueries->end()) {
      return std::shared_ptr<const std::vector<Value>>(it->second, &it->second->values);
    }
  }
  if (env.stmt.correlated != nullptr) return env.stmt.correlated->run(e, scope, env);
  return absl::UnimplementedError(
      "a subquery is not supported here (cellsim runs subqueries in a SELECT's select list, "
      "WHERE, HAVING and ORDER BY, in UPDATE and DELETE, and in INSERT VALUES)");
}

// The ValueSet of IN (SELECT ...) node `e` when it ran before the rows and
// gave more than kInSetMinValues values; null otherwise.
constexpr size_t kInSetMinValues = 8;
const ValueSet* InSetOf(const Expr& e, const EvalEnv& env) {
  if (!e.subquery || env.stmt.subqueries == nullptr) return nullptr;
  auto it = env.stmt.subqueries->find(&e);
  return it == env.stmt.subqueries->end() ? nullptr : it->second->in_set.get();
}

// x [NOT] IN (a, b) or IN (SELECT ...): TRUE on a match, else UNKNOWN when
// x or an element is NULL, else FALSE (so NOT IN with a NULL in the list
// keeps no row).
absl::StatusOr<Value> InList(const Expr& e, const Scope& scope, const EvalEnv& env) {
  absl::StatusOr<Value> v = Eval(*e.args[0], scope, env);
  if (!v.ok()) return v;
  bool found = false, unknown = v->is_null();
  absl::Status converted;  // take's conversion error (ORA-01722 ...), if any
  auto take = [&](const Value& x) {
    if (x.is_null()) {
      unknown = true;
    } else if (!v->is_null()) {
      absl::StatusOr<int> c = CompareConverting(*v, x);
      if (!c.ok()) converted = c.status();
      found = c.ok() && *c == 0;
    }
  };
  // A long list run before the rows: looked up (InSetOf), unless the set
  // cannot answer (values of two kinds, which `=` converts).
  const ValueSet* set = v->is_null() ? nullptr : InSetOf(e, env);
  const std::optional<bool> in = set != nullptr ? set->Contains(*v) : std::nullopt;
  if (in) {
    found = *in;
    unknown = set->has_null();
  } else if (e.subquery) {
    absl::StatusOr<std::shared_ptr<const std::vector<Value>>> rows = SubqueryValues(e, scope, env);
    if (!rows.ok()) return rows.status();
    for (size_t i = 0; i < (*rows)->size() && !found && converted.ok(); ++i) take((**rows)[i]);
  }
  for (size_t i = 1; i < e.args.size() && !found && converted.ok(); ++i) {
    absl::StatusOr<Value> x = Eval(*e.args[i], scope, env);
    if (!x.ok()) return x;
    take(*x);
  }
  if (!converted.ok()) return converted;
  if (!found && unknown) return Value::Null();
  return Bool(found != e.negated);
}

// ORA-00904 for a function cellsim does not have, with those it has.
absl::Status UnknownFunction(std::string_view f) {
  return absl::InvalidArgumentError(fmt::format(
      "ORA-00904: \"{}\": invalid identifier (cellsim's functions: {}; the aggregates {}; with "
      "OVER: {})", f, ScalarFunctionNames(), AggregateFunctionNames(), AnalyticFunctionNames()));
}

absl::StatusOr<Value> Function(const Expr& e, const Scope& scope, const EvalEnv& env) {
  if (e.over) {  // here outside a query's output (its select list and ORDER BY)
    return absl::InvalidArgumentError(fmt::format(
        "ORA-30483: window functions are not allowed here ({} OVER (...): only in a query's "
        "select list and ORDER BY)", e.text));
  }
  if (IsAggregateFunction(e.text)) {  // here outside a grouped query's output
    return absl::InvalidArgumentError(
        fmt::format("ORA-00934: group function is not allowed here ({})", e.text));
  }
  std::vector<Value> a;
  for (const ExprPtr& x : e.args) {
    absl::StatusOr<Value> v = Eval(*x, scope, env);
    if (!v.ok()) return v;
    a.push_back(*v);
  }
  const std::string& f = e.text;
  if (f == "SYS_CONTEXT" && a.size() == 2) {
    const std::string param = absl::AsciiStrToUpper(ValueText(a[1]));
    if (param == "SID") return Value::Str(fmt::format("{}", env.stmt.sid));
    if (param == "SESSION_USER" || param == "CURRENT_USER") return Value::Str("CELLSIM");
    if (param == "INSTANCE") return Value::Str("1");
    return Value::Null();
  }
  if (std::optional<absl::StatusOr<Value>> v = ScalarFunction(f, a, env.stmt.sysdate_unix())) {
    return *std::move(v);
  }
  return UnknownFunction(f);
}

absl::StatusOr<Value> Eval(const Expr& e, const Scope& scope, const EvalEnv& env) {
  if (env.group_values != nullptr) {
    if (std::optional<Value> v = (*env.group_values)(e)) return *std::move(v);
  }
  switch (e.kind) {
    case Expr::Kind::kNumber: return Value::Num(e.number);
    case Expr::Kind::kString: return Value::Str(e.text);
    case Expr::Kind::kNull: return Value::Null();
    case Expr::Kind::kStar: return absl::InvalidArgumentError("ORA-00936: missing expression (*)");
    case Expr::Kind::kColumn: return ColumnValue(e, scope, env);
    case Expr::Kind::kSequence:
      if (env.stmt.sequences == nullptr) {  // CheckSequencePlacement's rule, where no row is drawn
        return absl::InvalidArgumentError(fmt::format(
            "ORA-02287: sequence number not allowed here ({}.{})", e.qualifier, e.text));
      }
      return env.stmt.sequences->Get(e);
    case Expr::Kind::kFunction: return Function(e, scope, env);
    case Expr::Kind::kIsNull: {
      absl::StatusOr<Value> v = Eval(*e.args[0], scope, env);
      if (!v.ok()) return v;
      return Bool(v->is_null() != e.negated);
    }
    case Expr::Kind::kInList: return InList(e, scope, env);
    case Expr::Kind::kExists: {
      absl::StatusOr<std::shared_ptr<const std::vector<Value>>> rows = SubqueryValues(e, scope, env);
      if (!rows.ok()) return rows.status();
      return Bool(!(*rows)->empty());
    }
    case Expr::Kind::kSubquery: {
      absl::StatusOr<std::shared_ptr<const std::vector<Value>>> rows = SubqueryValues(e, scope, env);
      if (!rows.ok()) return rows.status();
      if ((*rows)->size() > 1) {
        return absl::InvalidArgumentError(fmt::format(
            "ORA-01427: single-row subquery returns more than one row ({} rows)", (*rows)->size()));
      }
      return (*rows)->empty() ? Value::Null() : (**rows)[0];
    }
    case Expr::Kind::kCase: {
      // CASE x WHEN w THEN t ...: the first w equal to x (NULL matches
      // nothing); CASE WHEN c THEN t ...: the first TRUE c; else ELSE or NULL.
      const bool simple = e.text == "SIMPLE";
      const size_t first = simple ? 1 : 0;
      Value x;
      if (simple) {
        absl::StatusOr<Value> v = Eval(*e.args[0], scope, env);
        if (!v.ok()) return v;
        x = *std::move(v);
      }
      size_t i = first;
      for (; i + 1 < e.args.size(); i += 2) {
        absl::StatusOr<Value> w = Eval(*e.args[i], scope, env);
        if (!w.ok()) return w;
        bool hit = !simple && Truthy(*w);
        if (simple && !x.is_null() && !w->is_null()) {
          // CASE x WHEN w: one datatype, as Oracle requires (no conversion).
          if (TypeName(x) != TypeName(*w)) return InconsistentTypes(TypeName(x), TypeName(*w));
          hit = Compare(x, *w) == 0;
        }
        if (hit) return Eval(*e.args[i + 1], scope, env);
      }
      if (i < e.args.size()) return Eval(*e.args[i], scope, env);  // ELSE
      return Value::Null();
    }
    case Expr::Kind::kUnary: {
      absl::StatusOr<Value> v = Eval(*e.args[0], scope, env);
      if (!v.ok()) return v;
      if (v->is_null()) return Value::Null();
      if (e.text == "NOT") return Bool(!Truthy(*v));
      if (v->is_interval()) return Value::Interval(-v->number, v->precision);
      absl::StatusOr<double> x = ToNumber(*v);  // (ORA-00932 for a datetime)
      if (!x.ok()) return x.status();
      return Value::Num(-*x);
    }
    case Expr::Kind::kBinary: break;
  }
  absl::StatusOr<Value> a = Eval(*e.args[0], scope, env);
  if (!a.ok()) return a;
  const std::string_view op = e.text;  // (a view: `op == "AND"` then needs no strlen per row)
  // AND / OR: FALSE AND x is FALSE, TRUE OR x is TRUE, whatever x is;
  // otherwise a NULL side makes UNKNOWN.
  if (op == "AND" && !a->is_null() && !Truthy(*a)) return Bool(false);
  if (op == "OR" && Truthy(*a)) return Bool(true);
  absl::StatusOr<Value> b = Eval(*e.args[1], scope, env);
  if (!b.ok()) return b;
  if (op == "AND" || op == "OR") {
    if (op == "AND" && !b->is_null() && !Truthy(*b)) return Bool(false);
    if (op == "OR" && Truthy(*b)) return Bool(true);
    if (a->is_null() || b->is_null()) return Value::Null();
    return Bool(op == "AND");
  }
  if (op == "||") return Concatenate(*a, *b);
  if (a->is_null() || b->is_null()) return Value::Null();  // comparisons, LIKE, arithmetic
  if (op == "LIKE") {
    return Bool(::cellsim::internal::SqlLike(ValueText(*a), ValueText(*b)) != e.negated);
  }
  if (op == "=" || op == "<>" || op == "<" || op == "<=" || op == ">" || op == ">=") {
    absl::StatusOr<int> compared = CompareConverting(*a, *b);
    if (!compared.ok()) return compared.status();
    const int c = *compared;
    return Bool(op == "=" ? c == 0 : op == "<>" ? c != 0 : op == "<" ? c < 0 : op == "<=" ? c <= 0
                : op == ">" ? c > 0 : c >= 0);
  }
  return Arithmetic(op, *a, *b);
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
  // Sources give only their columns (SelectShape): a view's or a subquery's
  // from its query's shape, without running it.
  bool shape_only = false;
  // SELECT ... FOR UPDATE: the statement's query, whose rows of `locked`
  // (its one table) it locks (LockForUpdate).
  const Select* for_update = nullptr;
  const TableDef* locked = nullptr;
};

absl::StatusOr<std::vector<internal::Column>> ShapeOf(Ctx& c, const Select& sel)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(c.e.mu);

absl::StatusOr<std::vector<Row>> RunSelectRows(Ctx& c, const Select& sel,
                                               std::vector<internal::Column>* cols,
                                               DataOutcome* out)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(c.e.mu);


// A scan over rows already made (a subquery's, a view's).
void ScanRows(Source& src, std::vector<Row> made) {
  auto rows = std::make_shared<std::vector<Row>>(std::move(made));
  src.scan = [rows](const auto& cb) {
    for (const Row& row : *rows) {
      if (!cb(row, RowId{})) break;
    }
    return absl::OkStatus();
  };
}

absl::StatusOr<ViewRows> ViewRowsOf(Ctx& c, const ViewDef& v) ABSL_EXCLUSIVE_LOCKS_REQUIRED(c.e.mu);

// The column names a query block may read (NamedColumns); null: every one.
using ColumnNames = std::set<std::string, std::less<>>;

// Which of `t`'s columns a scan decodes: those `named` (the others stay
// NULL: the query never reads them); null (every one) without `named`.
std::shared_ptr<const std::vector<bool>> WantedColumns(const TableDef& t, const ColumnNames* named) {
  if (named == nullptr) return nullptr;
  auto wanted = std::make_shared<std::vector<bool>>(t.columns.size());
  for (size_t i = 0; i < t.columns.size(); ++i) (*wanted)[i] = named->count(t.columns[i].name) != 0;
  return wanted;
}

absl::StatusOr<Source> TableSource(Ctx& c, const FromSource& f, const ColumnNames* named = nullptr)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(c.e.mu) {
  Source src;
  src.qualifier = f.alias.empty() ? f.table : f.alias;
  if (f.subquery && c.shape_only) {
    absl::StatusOr<std::vector<internal::Column>> cols = ShapeOf(c, *f.subquery);
    if (!cols.ok()) return cols.status();
    src.columns = *std::move(cols);
    return src;
  }
  if (f.subquery) {
    absl::StatusOr<std::vector<Row>> r = RunSelectRows(c, *f.subquery, &src.columns, nullptr);
    if (!r.ok()) return r.status();
    ScanRows(src, *std::move(r));
    return src;
  }
  if (auto v = c.e.views.find(f.table); v != c.e.views.end()) {
    absl::StatusOr<ViewRows> r = ViewRowsOf(c, v->second);
    if (!r.ok()) {
      // Oracle's invalid view; the cause once, however deep the views nest.
      const std::string cause(r.status().message());
      if (cause.starts_with("ORA-04063")) return r.status();
      return absl::Status(r.status().code(),
                          fmt::format("ORA-04063: view \"CELLSIM.{}\" has errors: {}", f.table, cause));
    }
    src.columns = std::move(r->columns);
    ScanRows(src, std::move(r->rows));
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
  // A view, unless the schema has a table of that name (which, as in Oracle,
  // hides the public synonym: `create table tab ...` then `select * from tab`).
  std::optional<ViewRows> v;
  if (c.e.tables.count(f.table) == 0) v = BuildView(c.e, c.sd, f.table);
  if (v.has_value()) {
    src.columns = v->columns;
    ScanRows(src, std::move(v->rows));
    return src;
  }
  auto it = c.e.tables.find(f.table);
  if (it == c.e.tables.end()) {
    return absl::NotFoundError(fmt::format("ORA-00942: table or view \"{}\" does not exist", f.table));
  }
  TableDef* t = &it->second;
  src.table = t;
  src.columns = t->columns;
  if (c.shape_only) return src;
  src.segment = c.e.TableSegment(c.sd, *t, false);
  Segment* seg = src.segment;
  if (seg != nullptr && !t->temporary) {
    absl::Status st = c.e.EnsureCached(c.rec, seg->file_number, seg->blocks, t->object_id);
    if (!st.ok()) return st;
  }
  DataEngine* e = &c.e;
  const SessionData* reader = &c.sd;
  Recorder* rec = &c.rec;  // (the statement's: it outlives the scan)
  std::shared_ptr<const std::vector<bool>> wanted = WantedColumns(*t, named);
  src.scan = [t, seg, e, reader, rec, wanted](const auto& cb) {
    e->mu.AssertHeld();  // the scan runs inside the statement, under the engine's mu
    if (seg == nullptr) return absl::OkStatus();
    // Only committed rows and the session's own (CommittedView).
    CommittedView view(*e, *reader);
    const bool as_stored = view.trivial() || t->temporary;
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
      CountConsistentGets(*rec, 1);
      HeapBlock hb(i + 1 == blocks.size() ? absl::MakeSpan(last)
                                          : absl::MakeSpan(e->Block(seg->file_number, b).bytes));
      const uint16_t n = hb.rows();
      for (uint16_t slot = 0; slot < n; ++slot) {
        std::optional<absl::Span<const uint8_t>> bytes;
        if (as_stored) {
          if (hb.live(slot)) bytes = hb.RowBytes(slot);
        } else {
          bool rebuilt = false;
          bytes = view.Row(hb, seg->file_number, b, slot, &rebuilt);
          if (rebuilt) CountUndoRecordApplied(*rec);
        }
        if (!bytes.has_value()) continue;
        if (!cb(DecodeRow(t->columns, *bytes, wanted.get()), RowId{seg->file_number, b, slot})) {
          return absl::OkStatus();
        }
      }
    }
    return absl::OkStatus();
  };
  return src;
}

// The value `x` gives an index probe of `src`: a literal, or in a correlated
// subquery a column of the row around it (a name `src` does not have).
std::optional<Value> ProbeValue(const Ctx& c, const Source& src, const Expr& x) {
  if (x.kind == Expr::Kind::kNumber) return Value::Num(x.number);
  if (x.kind == Expr::Kind::kString) return Value::Str(x.text);
  if (x.kind != Expr::Kind::kColumn || c.env.outer == nullptr) return std::nullopt;
  if ((x.qualifier.empty() || x.qualifier == src.qualifier) && ColumnOf(*src.table, x.text).ok()) {
    return std::nullopt;  // the source's own column
  }
  std::optional<std::pair<const Binding*, size_t>> found = FindColumn(x, *c.env.outer);
  if (!found || found->first->row == nullptr) return std::nullopt;
  return (*found->first->row)[found->second];
}

// Index range scan: a `column = literal` conjunct of WHERE on a column an
// index of the table leads with (a NUMBER column and a number or text that
// reads as one, a VARCHAR2 column and a string: where the comparison is the
// stored bytes') makes the
// source read the rows the index finds; WHERE still filters them. In a
// correlated subquery the outer row's column is a literal for this run.
absl::Status UseIndex(Ctx& c, Source& src, const std::vector<const Expr*>& conjuncts)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(c.e.mu) {
  TableDef* t = src.table;
  // An index holds other open transactions' keys, not the committed ones
  // the statement sees: while one has changed the table, its rows are
  // scanned instead.
  if (!t->temporary && CommittedView(c.e, c.sd).ChangedByOthers(t->object_id)) {
    return absl::OkStatus();
  }
  for (const Expr* x : conjuncts) {
    if (x->kind != Expr::Kind::kBinary || x->text != "=") continue;
    const Expr* col = x->args[0].get();
    const Expr* lit = x->args[1].get();
    std::optional<Value> probe = ProbeValue(c, src, *lit);
    if (!probe) {
      std::swap(col, lit);
      probe = ProbeValue(c, src, *lit);
    }
    if (!probe || col->kind != Expr::Kind::kColumn ||
        (!col->qualifier.empty() && col->qualifier != src.qualifier)) {
      continue;
    }
    absl::StatusOr<size_t> k = ColumnOf(*t, col->text);
    if (!k.ok()) continue;
    const ColType type = t->columns[*k].type;
    Value v = *std::move(probe);
    if (type == ColType::kNumber && v.kind == Value::Kind::kString) {
      // `id = '5'`: Oracle reads the text as a number (WHERE raises
      // ORA-01722 for text that is none).
      absl::StatusOr<double> d = ToNumber(v);
      if (!d.ok()) continue;
      v = Value::Num(*d);
    }
    if (!(type == ColType::kNumber && v.is_number()) &&
        !(type == ColType::kVarchar2 && v.kind == Value::Kind::kString)) {
      continue;
    }
    absl::StatusOr<std::optional<std::vector<IndexRowId>>> rowids =
        c.e.IndexRange(c.rec, c.sd, *t, static_cast<uint16_t>(*k), v);
    if (!rowids.ok()) return rowids.status();
    if (!rowids->has_value()) continue;
    auto list = std::make_shared<std::vector<IndexRowId>>(std::move(**rowids));
    DataEngine* e = &c.e;
    Recorder* rec = &c.rec;  // (the statement's: it outlives the scan)
    src.scan = [t, list, e, rec](const auto& cb) {
      e->mu.AssertHeld();  // the scan runs inside the statement, under the engine's mu
      const IndexRowId* last = nullptr;
      for (const IndexRowId& r : *list) {
        // Table access by rowid: a get per row, but the next row of the
        // block already pinned (Oracle's buffer pinning within a call).
        if (last == nullptr || last->file != r.file || last->block != r.block) {
          CountConsistentGets(*rec, 1);
        }
        last = &r;
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

// ORA-30483 for an analytic function in WHERE, ON, GROUP BY or HAVING
// (checked before any row is read): Oracle computes them after those.
absl::Status CheckNoAnalytics(const Select& sel) {
  std::vector<std::pair<const Expr*, std::string_view>> clauses;
  if (sel.where) clauses.emplace_back(sel.where.get(), "WHERE");
  for (const FromSource& f : sel.from) {
    if (f.on) clauses.emplace_back(f.on.get(), "ON");
  }
  for (const ExprPtr& g : sel.group_by) clauses.emplace_back(g.get(), "GROUP BY");
  if (sel.having) clauses.emplace_back(sel.having.get(), "HAVING");
  for (const auto& [e, clause] : clauses) {
    if (const Expr* f = FindExprNode(*e, [](const Expr& x) { return x.over != nullptr; })) {
      return absl::InvalidArgumentError(fmt::format(
          "ORA-30483: window functions are not allowed here ({} OVER (...) in {}: only in a "
          "query's select list and ORDER BY)", f->text, clause));
    }
  }
  return absl::OkStatus();
}

// ORA-00904 for a column no source has (checked before any row is read, as
// Oracle's parse does).
absl::Status CheckColumns(const Expr& e, const std::vector<Source>& sources, const Scope* outer) {
  if (e.kind == Expr::Kind::kColumn) {
    for (const Source& s : sources) {
      if (!e.qualifier.empty() && e.qualifier != s.qualifier) continue;
      for (const internal::Column& c : s.columns) {
        if (c.name == e.text) return absl::OkStatus();
      }
    }
    if (outer != nullptr && FindColumn(e, *outer)) return absl::OkStatus();
    if (IsStatementConstant(e) || (e.qualifier.empty() && (e.text == "LEVEL" || e.text == "ROWNUM"))) {
      return absl::OkStatus();
    }
    return absl::InvalidArgumentError(fmt::format(
        "ORA-00904: \"{}\": invalid identifier",
        e.qualifier.empty() ? e.text : e.qualifier + "\".\"" + e.text));
  }
  for (const ExprPtr& a : e.args) {
    if (absl::Status st = CheckColumns(*a, sources, outer); !st.ok()) return st;
  }
  return absl::OkStatus();
}

// Every combination of the FROM list's rows that the joins and WHERE keep.
void CollectSubqueries(const Expr& e, std::vector<const Expr*>* out) {
  if (e.subquery) out->push_back(&e);
  for (const ExprPtr& a : e.args) CollectSubqueries(*a, out);
}

// A subquery's rows as Eval takes them: the first column (ORA-00913 for
// more), or for EXISTS one value per row, whatever its columns.
absl::StatusOr<std::vector<Value>> SubqueryColumn(const Expr& node, const std::vector<Row>& rows,
                                                  size_t columns) {
  if (node.kind != Expr::Kind::kExists && columns != 1) {
    return absl::InvalidArgumentError(fmt::format(
        "ORA-00913: too many values (the subquery gives {} columns; here it may give one)",
        columns));
  }
  std::vector<Value> v;
  v.reserve(rows.size());
  for (const Row& row : rows) v.push_back(node.kind == Expr::Kind::kExists ? Value::Num(1) : row[0]);
  return v;
}

// Runs subquery `node` with `outer` around it (a correlated one, for a row
// of the statement that holds it).
absl::StatusOr<std::vector<Value>> RunCorrelated(DataEngine& e, Session::State& s, SessionData& sd,
                                                 Recorder& rec, const StatementEnv& stmt,
                                                 const Expr& node, const Scope& outer)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu) {
  Ctx sub{e, s, sd, rec, EvalEnv{stmt}};
  sub.e.mu.AssertHeld();  // sub.e is e
  sub.env.outer = &outer;
  std::vector<internal::Column> cols;
  absl::StatusOr<std::vector<Row>> r = RunSelectRows(sub, *node.subquery, &cols, nullptr);
  if (!r.ok()) return r.status();
  return SubqueryColumn(node, *r, cols.size());
}

// Whether `sel` (its FROM lists, subqueries, set operations, the views it
// names) reads table `name`.
bool ReadsTable(DataEngine& e, const Select& sel, const std::string& name, int depth = 0)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu) {
  if (depth > 32) return true;  // a loop of views: say yes (the query fails on it anyway)
  std::vector<const Expr*> nodes;
  auto exprs = [&](const Expr* x) {
    if (x != nullptr) CollectSubqueries(*x, &nodes);
  };
  exprs(sel.where.get());
  exprs(sel.having.get());
  for (const SelectItem& it : sel.items) exprs(it.expr.get());
  for (const FromSource& f : sel.from) {
    exprs(f.on.get());
    if (f.table == name) return true;
    if (f.subquery && ReadsTable(e, *f.subquery, name, depth + 1)) return true;
    if (auto v = e.views.find(f.table); v != e.views.end()) {
      absl::StatusOr<DataStatement> st = ParseDataStatement(v->second.text);
      const Select* vs = st.ok() ? std::get_if<Select>(&*st) : nullptr;
      if (vs == nullptr || ReadsTable(e, *vs, name, depth + 1)) return true;
    }
  }
  for (const SetOperation& op : sel.set_operations) {
    if (ReadsTable(e, *op.query, name, depth + 1)) return true;
  }
  for (const Expr* n : nodes) {
    if (ReadsTable(e, *n->subquery, name, depth + 1)) return true;
  }
  return false;
}

// Runs the subqueries of `roots` (not those inside a subquery: its own query
// runs them) and keeps each one's first column in c.env for Eval. A subquery
// that names a column of the row `holder` describes (the query or DML that
// holds it: correlated) runs for each row instead, through
// c.env.stmt.correlated; once first with `holder`'s NULLs, so that a name
// nothing has is ORA-00904 before any row is read. `holder` null: no
// subquery may be correlated. `dml_target`: the table an UPDATE / DELETE
// changes, which a correlated subquery may not read.
absl::Status AddSubqueryRows(Ctx& c, const std::vector<const Expr*>& roots, const Scope* holder,
                             const std::string* dml_target = nullptr)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(c.e.mu) {
  std::vector<const Expr*> nodes;
  for (const Expr* r : roots) {
    if (r != nullptr) CollectSubqueries(*r, &nodes);
  }
  // This query's runner only (a subquery run below may leave its own).
  c.env.stmt.correlated = nullptr;
  if (nodes.empty()) return absl::OkStatus();
  auto rows = std::make_shared<SubqueryRows>(c.env.stmt.subqueries ? *c.env.stmt.subqueries
                                                                   : SubqueryRows{});
  std::set<const Expr*> correlated;
  for (const Expr* node : nodes) {
    if (rows->count(node) != 0 || correlated.count(node) != 0) continue;
    std::vector<internal::Column> cols;
    absl::StatusOr<std::vector<Row>> r = RunSelectRows(c, *node->subquery, &cols, nullptr);
    if (!r.ok() && holder != nullptr && absl::StrContains(r.status().message(), "ORA-00904")) {
      // Named a column of the row around it? Try with that row (all NULLs)
      // in reach: the real error if even that fails.
      Scope nulls = *holder;
      if (c.env.outer != nullptr) nulls.insert(nulls.end(), c.env.outer->begin(), c.env.outer->end());
      absl::StatusOr<std::vector<Value>> check =
          RunCorrelated(c.e, c.s, c.sd, c.rec, c.env.stmt, *node, nulls);
      if (!check.ok()) return check.status();
      if (dml_target != nullptr && ReadsTable(c.e, *node->subquery, *dml_target)) {
        return absl::UnimplementedError(fmt::format(
            "a correlated subquery that reads {} in a statement that changes {}: cellsim changes "
            "the rows as it goes, so the subquery would see some of them changed (Oracle reads "
            "them as they were when the statement began); select the values into another table "
            "first, or use MERGE", *dml_target, *dml_target));
      }
      correlated.insert(node);
      continue;
    }
    if (!r.ok()) {
      if (absl::StrContains(r.status().message(), "ORA-00904")) {
        return absl::InvalidArgumentError(fmt::format(
            "{} (in a subquery here cellsim runs a subquery on its own, so it cannot name a "
            "column of the statement around it)", std::string(r.status().message())));
      }
      return r.status();
    }
    absl::StatusOr<std::vector<Value>> v = SubqueryColumn(*node, *r, cols.size());
    if (!v.ok()) return v.status();
    auto kept = std::make_shared<SubqueryResult>();
    kept->values = *std::move(v);
    if (node->kind == Expr::Kind::kInList && kept->values.size() > kInSetMinValues) {
      kept->in_set = std::make_shared<const ValueSet>(kept->values);
    }
    (*rows)[node] = std::move(kept);
  }
  c.env.stmt.subqueries = std::move(rows);
  c.env.stmt.correlated = nullptr;
  if (correlated.empty()) return absl::OkStatus();
  // Runs inside the statement, under the engine's mu; e, s, sd and rec
  // outlive it.
  auto runner = std::make_shared<CorrelatedSubqueries>();
  runner->run = [e = &c.e, s = &c.s, sd = &c.sd, rec = &c.rec, correlated](
                    const Expr& node, const Scope& scope,
                    const EvalEnv& env) -> absl::StatusOr<std::shared_ptr<const std::vector<Value>>> {
    e->mu.AssertHeld();
    if (correlated.count(&node) == 0) return absl::UnimplementedError("a subquery is not supported here");
    // The row at hand, then the rows around this query (innermost first).
    Scope around = scope;
    if (env.outer != nullptr) around.insert(around.end(), env.outer->begin(), env.outer->end());
    absl::StatusOr<std::vector<Value>> v = RunCorrelated(*e, *s, *sd, *rec, env.stmt, node, around);
    if (!v.ok()) return v.status();
    return std::make_shared<const std::vector<Value>>(*std::move(v));
  };
  c.env.stmt.correlated = std::move(runner);
  return absl::OkStatus();
}

// AddSubqueryRows for the subqueries of query `sel` over `sources`.
absl::Status AddQuerySubqueries(Ctx& c, const Select& sel, const std::vector<Source>& sources)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(c.e.mu) {
  std::vector<const Expr*> roots = {sel.where.get(), sel.having.get()};
  for (const SelectItem& it : sel.items) roots.push_back(it.expr.get());
  for (const ExprPtr& g : sel.group_by) roots.push_back(g.get());
  for (const OrderItem& o : sel.order_by) roots.push_back(o.expr.get());
  for (const FromSource& f : sel.from) roots.push_back(f.on.get());
  Scope holder;  // this query's row, for a correlated subquery's names
  for (const Source& src : sources) holder.push_back(Binding{src.qualifier, &src.columns, nullptr});
  return AddSubqueryRows(c, roots, &holder);
}

// A column of one source of the FROM list.
struct SourceColumn {
  size_t source = 0;
  size_t column = 0;
};

// An equality a join's rows must meet: their column `column` equal to the
// value of `left`'s first column whose source has a row: for ON and WHERE
// one column of a source before the join; for USING (and NATURAL) that
// column of each source of the join's left side that has it, in order, so
// that its value is either side's: the COALESCE of both after an outer
// join, as Oracle's (`a full join b using (k) join c using (k)` matches c
// to b's k where a has no row).
struct JoinEquality {
  std::vector<SourceColumn> left;
  size_t column = 0;
};

// The value `left` gives in `scope` (its first column whose source has a
// row); null when none has.
const Value* LeftValue(const std::vector<SourceColumn>& left, const Scope& scope) {
  for (const SourceColumn& at : left) {
    if (const Row* row = scope[at.source].row) return &(*row)[at.column];
  }
  return nullptr;
}

// Each join's USING (or NATURAL) columns as equalities; ORA-00904 for a
// USING column a side does not have.
absl::StatusOr<std::vector<std::vector<JoinEquality>>> UsingEqualities(
    const Select& sel, const std::vector<Source>& sources) {
  std::vector<std::vector<JoinEquality>> pairs(sources.size());
  Scope shapes;
  for (const Source& src : sources) shapes.push_back(Binding{src.qualifier, &src.columns, nullptr});
  for (size_t i = 1; i < sources.size(); ++i) {
    for (const std::string& name : UsingColumns(sel, shapes, i)) {
      JoinEquality p;
      for (size_t j = JoinGroupStart(sel.from, i); j < i; ++j) {
        if (std::optional<size_t> at = ColumnIndex(sources[j].columns, name)) p.left.push_back({j, *at});
      }
      std::optional<size_t> own = ColumnIndex(sources[i].columns, name);
      if (p.left.empty() || !own) {
        return absl::InvalidArgumentError(fmt::format(
            "ORA-00904: \"{}\": invalid identifier (USING ({}): {} column {})", name, name,
            p.left.empty() ? "no source before the join has a" : "the joined source has no", name));
      }
      p.column = *own;
      pairs[i].push_back(p);
    }
  }
  return pairs;
}

// Whether the joined row `r` equals, on every USING column, the rows before
// it in `scope` (NULL equals nothing, as in `=`).
absl::StatusOr<bool> UsingMatch(const std::vector<JoinEquality>& pairs, const Scope& scope,
                                const Row& r) {
  for (const JoinEquality& p : pairs) {
    const Value* a = LeftValue(p.left, scope);
    const Value& b = r[p.column];
    if (a == nullptr || a->is_null() || b.is_null()) return false;
    absl::StatusOr<int> c = CompareConverting(*a, b);
    if (!c.ok()) return c.status();
    if (*c != 0) return false;
  }
  return true;
}

// The scope of row `r` of source `i` that no row before it met (a RIGHT or
// FULL join): the sources before it empty (NULL).
Scope UnmatchedScope(const std::vector<Source>& sources, size_t i, const Row& r) {
  Scope scope;
  for (size_t j = 0; j < i; ++j) {
    scope.push_back(Binding{sources[j].qualifier, &sources[j].columns, nullptr});
  }
  scope.push_back(Binding{sources[i].qualifier, &sources[i].columns, &r});
  return scope;
}

// ORA-00918 for a column named without a qualifier in `e` that two sources
// have, as Oracle (a column of JOIN ... USING or NATURAL JOIN, `shared`,
// excepted: it is the join's one value). Not `e`'s subqueries: their own.
absl::Status CheckUnambiguousIn(const Expr& e, absl::Span<const Source> sources,
                                const std::set<std::string>& shared) {
  if (e.kind == Expr::Kind::kColumn && e.qualifier.empty() && !shared.contains(e.text)) {
    std::vector<std::string> holders;
    for (const Source& src : sources) {
      if (ColumnIndex(src.columns, e.text)) holders.push_back(src.qualifier);
    }
    if (holders.size() > 1) {
      return absl::InvalidArgumentError(fmt::format(
          "ORA-00918: column ambiguously defined ({}: {} have it; name it {}.{})", e.text,
          fmt::join(holders, ", "), holders[0], e.text));
    }
  }
  for (const ExprPtr& a : e.args) {
    if (absl::Status st = CheckUnambiguousIn(*a, sources, shared); !st.ok()) return st;
  }
  return absl::OkStatus();
}

// CheckUnambiguousIn for each expression of `sel` over its FROM list.
absl::Status CheckUnambiguous(const Select& sel, const std::vector<Source>& sources) {
  if (sources.size() < 2) return absl::OkStatus();
  Scope shapes;
  for (const Source& src : sources) shapes.push_back(Binding{src.qualifier, &src.columns, nullptr});
  std::set<std::string> shared;
  for (size_t i = 1; i < sources.size(); ++i) {
    for (std::string& name : UsingColumns(sel, shapes, i)) shared.insert(std::move(name));
  }
  // A join's ON sees the sources up to it; the rest all of them.
  std::vector<std::pair<const Expr*, size_t>> exprs = {{sel.where.get(), sources.size()},
                                                       {sel.having.get(), sources.size()}};
  for (const SelectItem& it : sel.items) exprs.emplace_back(it.expr.get(), sources.size());
  for (const ExprPtr& g : sel.group_by) exprs.emplace_back(g.get(), sources.size());
  for (size_t i = 0; i < sel.from.size(); ++i) exprs.emplace_back(sel.from[i].on.get(), i + 1);
  for (const auto& [e, seen] : exprs) {
    if (e == nullptr) continue;
    absl::Status st = CheckUnambiguousIn(*e, absl::MakeConstSpan(sources).first(seen), shared);
    if (!st.ok()) return st;
  }
  return absl::OkStatus();
}

// Where column reference `e` is among sources[0, limit): the one source
// that has it (by its qualifier, or for a name without one the only source
// with that column) and the column; nullopt when none does or several do.
std::optional<std::pair<size_t, size_t>> OnlySourceOf(const Expr& e,
                                                      const std::vector<Source>& sources,
                                                      size_t limit) {
  if (e.kind != Expr::Kind::kColumn) return std::nullopt;
  std::optional<std::pair<size_t, size_t>> found;
  for (size_t j = 0; j < limit; ++j) {
    if (!e.qualifier.empty() && sources[j].qualifier != e.qualifier) continue;
    if (std::optional<size_t> col = ColumnIndex(sources[j].columns, e.text)) {
      if (found) return std::nullopt;
      found = std::make_pair(j, *col);
    }
  }
  return found;
}

// The terms of `e`'s top-level ANDs (`e` itself when it is no AND).
void Conjuncts(const Expr& e, std::vector<const Expr*>* out) {
  if (e.kind == Expr::Kind::kBinary && e.text == "AND" && e.args.size() == 2) {
    Conjuncts(*e.args[0], out);
    Conjuncts(*e.args[1], out);
    return;
  }
  out->push_back(&e);
}

// Whether every join of the FROM list is an inner one (or a comma), so that
// WHERE sees a row of every source.
bool InnerJoinsOnly(const Select& sel) {
  return std::none_of(sel.from.begin(), sel.from.end(), [](const FromSource& f) {
    return f.KeepsRowsBefore() || f.KeepsOwnRows();
  });
}

// Whether every column `e` names is one of source `i`'s (and it names one):
// none of another source, of the query around this one, no pseudocolumn
// (ROWNUM, LEVEL) and no subquery; SYSDATE and USER are allowed.
bool NamesOnlySource(const Expr& e, const std::vector<Source>& sources, size_t i, bool* named) {
  if (e.subquery) return false;
  if (e.kind == Expr::Kind::kColumn) {
    std::optional<std::pair<size_t, size_t>> at = OnlySourceOf(e, sources, sources.size());
    if (!at) return IsStatementConstant(e);
    *named = true;
    return at->first == i;
  }
  for (const ExprPtr& a : e.args) {
    if (!NamesOnlySource(*a, sources, i, named)) return false;
  }
  return true;
}

// For each source of a join, the terms ANDed in WHERE that name only its
// columns: they can pick its rows before the join (an index finds them,
// or they are filtered as they are read) rather than after it, as Oracle
// applies a table's own predicates at its access. Only when every join is an
// inner one (an outer join's NULL row must reach WHERE) and there is no
// CONNECT BY; WHERE still decides every joined row.
std::vector<std::vector<const Expr*>> SourceFilters(const Select& sel,
                                                    const std::vector<Source>& sources) {
  std::vector<std::vector<const Expr*>> filters(sources.size());
  if (sources.size() < 2 || !sel.where || !InnerJoinsOnly(sel) || sel.connect_by_level) {
    return filters;
  }
  std::vector<const Expr*> terms;
  Conjuncts(*sel.where, &terms);
  for (const Expr* x : terms) {
    for (size_t i = 0; i < sources.size(); ++i) {
      bool named = false;
      if (NamesOnlySource(*x, sources, i, &named) && named) {
        filters[i].push_back(x);
        break;
      }
    }
  }
  return filters;
}

// The equality join `i` looks its rows up by (JoinIndex): its first USING
// column; else the first `x = y` ANDed in its ON between a column of the
// joined source and one of a source before; else, when no join of the FROM
// list is an outer one (so that WHERE sees a row of every source), such an
// equality ANDed in WHERE. nullopt when there is none: every row is tried.
// The condition is still evaluated in full for the rows found.
std::optional<JoinEquality> JoinEqualityOf(const Select& sel, const std::vector<Source>& sources,
                                           const std::vector<JoinEquality>& using_equalities, size_t i) {
  if (!using_equalities.empty()) return using_equalities[0];
  const bool inner_only = InnerJoinsOnly(sel);
  // ON sees the sources up to the join; WHERE all of them.
  for (const auto& [cond, limit] : {std::pair{sel.from[i].on.get(), i + 1},
                                    std::pair{inner_only ? sel.where.get() : nullptr,
                                              sources.size()}}) {
    if (cond == nullptr) continue;
    std::vector<const Expr*> terms;
    Conjuncts(*cond, &terms);
    for (const Expr* x : terms) {
      if (x->kind != Expr::Kind::kBinary || x->text != "=" || x->args.size() != 2) continue;
      std::optional<std::pair<size_t, size_t>> a = OnlySourceOf(*x->args[0], sources, limit);
      std::optional<std::pair<size_t, size_t>> b = OnlySourceOf(*x->args[1], sources, limit);
      if (!a || !b) continue;
      if (a->first != i) std::swap(a, b);
      if (a->first == i && b->first < i) return JoinEquality{{{b->first, b->second}}, a->second};
    }
  }
  return std::nullopt;
}

// ForEachJoined's rows: the first source's streamed, each further source's
// kept (Materialize) and, for a join with an equality, looked up by it
// (a JoinIndex) rather than tried row by row; then, for RIGHT and FULL
// joins, the rows no row before met. A source's own WHERE terms
// (SourceFilters) drop its rows before they join.
class JoinWalk {
 public:
  using RowFn = std::function<absl::Status(const Scope&, const RowId&)>;
  JoinWalk(Ctx& c, const Select& sel, std::vector<Source>& sources,
           const std::vector<std::vector<JoinEquality>>& using_equalities,
           std::vector<std::vector<const Expr*>> filters, const RowFn& fn)
      : c_(c), sel_(sel), sources_(sources), using_equalities_(using_equalities),
        filters_(std::move(filters)), fn_(fn), outer_env_(c.env),
        levels_(sel.connect_by_level.value_or(1)) {}

  absl::Status Run() {
    rest_.resize(sources_.size());
    met_.resize(sources_.size());
    if (absl::Status st = Materialize(); !st.ok()) return st;
    equalities_.resize(sources_.size());
    indexes_.resize(sources_.size());
    for (size_t i = 1; i < sources_.size(); ++i) {
      equalities_[i] = JoinEqualityOf(sel_, sources_, using_equalities_[i], i);
      if (equalities_[i]) indexes_[i].emplace(rest_[i], equalities_[i]->column);
    }
    absl::Status st = sources_[0].scan([&](const Row& r, const RowId& rid) {
      if (!Passes(0, r)) return inner_.ok();
      Scope scope{Binding{sources_[0].qualifier, &sources_[0].columns, &r}};
      return Join(scope, 1, rid);
    });
    // RIGHT and FULL joins: the source's rows no row before it matched, with
    // the sources before it empty (NULL).
    for (size_t i = 1; st.ok() && inner_.ok() && i < sources_.size(); ++i) {
      for (size_t k = 0; k < met_[i].size(); ++k) {
        if (met_[i][k]) continue;
        Scope scope = UnmatchedScope(sources_, i, rest_[i][k]);
        if (!Join(scope, i + 1, RowId{})) break;
      }
    }
    c_.env = outer_env_;
    if (!st.ok()) return st;
    return inner_;
  }

 private:
  // The rows of every source but the first that pass its filters (small:
  // V$ views, DUAL, subqueries, or what a filter keeps), and for a RIGHT or
  // FULL join a flag per row: whether a row before it met it.
  absl::Status Materialize() {
    for (size_t i = 1; i < sources_.size() && inner_.ok(); ++i) {
      absl::Status st = sources_[i].scan([&](const Row& r, const RowId&) {
        if (Passes(i, r)) rest_[i].push_back(r);
        return inner_.ok();
      });
      if (!st.ok()) return st;
      if (sel_.from[i].KeepsOwnRows()) met_[i].assign(rest_[i].size(), false);
    }
    return inner_;
  }

  // Whether row `r` of source `i` passes its filters (every one TRUE); false
  // with inner_ set when one fails or Ctrl-C stops the statement.
  bool Passes(size_t i, const Row& r) {
    if (filters_[i].empty()) return true;
    inner_ = CheckCancelEvery4096Rows(c_.sd);
    if (!inner_.ok()) return false;
    const Scope scope{Binding{sources_[i].qualifier, &sources_[i].columns, &r}};
    for (const Expr* f : filters_[i]) {
      absl::StatusOr<Value> v = Eval(*f, scope, c_.env);
      if (!v.ok()) {
        inner_ = v.status();
        return false;
      }
      if (!Truthy(*v)) return false;
    }
    return true;
  }

  // A whole combination: ROWNUM and LEVEL of the row at hand, for WHERE and
  // for `fn` (the select list, ORDER BY keys): a row's ROWNUM is one more
  // than the rows WHERE has accepted before it (so `rownum > 1` accepts
  // none, as in Oracle), given before ORDER BY sorts. WHERE filters each
  // row of the CONNECT BY hierarchy, as Oracle applies it after CONNECT BY.
  bool Emit(Scope& scope, const RowId& rid) {
    for (uint64_t l = 0; l < levels_; ++l) {
      // Ctrl-C: the session's 4,096th row, counted across every scan of the
      // statement, may stop it.
      inner_ = CheckCancelEvery4096Rows(c_.sd);
      if (!inner_.ok()) return false;
      c_.env.level = sel_.connect_by_level ? l + 1 : 0;
      c_.env.rownum = accepted_ + 1;
      if (sel_.where) {
        absl::StatusOr<Value> w = Eval(*sel_.where, scope, c_.env);
        if (!w.ok()) {
          inner_ = w.status();
          return false;
        }
        if (!Truthy(*w)) continue;
      }
      ++accepted_;
      inner_ = fn_(scope, rid);
      if (!inner_.ok()) break;
    }
    c_.env = outer_env_;  // a join's ON sees no ROWNUM
    return inner_.ok();
  }

  // The rows of source `i` that may join `scope` (the rows of the sources
  // before it): those its equality finds, else all of them.
  std::optional<absl::Span<const uint32_t>> Candidates(const Scope& scope, size_t i) const {
    if (!indexes_[i]) return std::nullopt;
    const Value* left = LeftValue(equalities_[i]->left, scope);
    return indexes_[i]->Find(left == nullptr ? Value::Null() : *left);
  }

  // Joins source `i`'s rows to `scope`, then the sources after it; false to stop.
  bool Join(Scope& scope, size_t i, const RowId& rid) {
    if (i == sources_.size()) return Emit(scope, rid);
    const std::optional<absl::Span<const uint32_t>> found = Candidates(scope, i);
    const size_t n = found ? found->size() : rest_[i].size();
    bool matched = false;
    for (size_t h = 0; h < n; ++h) {
      // Ctrl-C, here too: a join whose ON keeps few rows may try many.
      inner_ = CheckCancelEvery4096Rows(c_.sd);
      if (!inner_.ok()) return false;
      const size_t k = found ? (*found)[h] : h;
      const Row& r = rest_[i][k];
      scope.push_back(Binding{sources_[i].qualifier, &sources_[i].columns, &r});
      absl::StatusOr<bool> using_match = UsingMatch(using_equalities_[i], scope, r);
      if (!using_match.ok()) {
        inner_ = using_match.status();
        scope.pop_back();
        return false;
      }
      bool keep = *using_match;
      if (keep && sel_.from[i].on) {
        absl::StatusOr<Value> on = Eval(*sel_.from[i].on, scope, c_.env);
        if (!on.ok()) {
          inner_ = on.status();
          return false;
        }
        keep = Truthy(*on);
      }
      bool go = true;
      if (keep) {
        matched = true;
        if (!met_[i].empty()) met_[i][k] = true;
        go = Join(scope, i + 1, rid);
      }
      scope.pop_back();
      if (!go) return false;
    }
    if (!matched && sel_.from[i].KeepsRowsBefore()) {
      scope.push_back(Binding{sources_[i].qualifier, &sources_[i].columns, nullptr});
      const bool go = Join(scope, i + 1, rid);
      scope.pop_back();
      return go;
    }
    return true;
  }

  Ctx& c_;
  const Select& sel_;
  std::vector<Source>& sources_;
  const std::vector<std::vector<JoinEquality>>& using_equalities_;
  const std::vector<std::vector<const Expr*>> filters_;  // SourceFilters, by source
  const RowFn& fn_;
  const EvalEnv outer_env_;
  const uint64_t levels_;
  std::vector<std::vector<Row>> rest_;
  std::vector<std::vector<bool>> met_;
  std::vector<std::optional<JoinEquality>> equalities_;
  std::vector<std::optional<JoinIndex>> indexes_;  // by equalities_[i], over rest_[i]
  uint64_t accepted_ = 0;
  absl::Status inner_;
};

// The column names `e` reads, its subqueries' included (a correlated one
// names the query around it); `all` when it reads every column (`*`).
void CollectColumnNames(const Select& sel, ColumnNames* out, bool* all);
void CollectColumnNames(const Expr& e, ColumnNames* out, bool* all) {
  if (e.kind == Expr::Kind::kColumn) out->insert(e.text);
  if (e.subquery) CollectColumnNames(*e.subquery, out, all);
  for (const ExprPtr& a : e.args) {
    if (a) CollectColumnNames(*a, out, all);
  }
}

void CollectColumnNames(const Select& sel, ColumnNames* out, bool* all) {
  auto expr = [&](const ExprPtr& e) {
    if (e) CollectColumnNames(*e, out, all);
  };
  for (const SelectItem& it : sel.items) {
    if (it.expr->kind == Expr::Kind::kStar) *all = true;
    expr(it.expr);
  }
  for (const FromSource& f : sel.from) {
    if (f.natural) *all = true;  // the columns both sides have
    out->insert(f.using_columns.begin(), f.using_columns.end());
    expr(f.on);
    if (f.subquery) CollectColumnNames(*f.subquery, out, all);
  }
  expr(sel.where);
  for (const ExprPtr& g : sel.group_by) expr(g);
  expr(sel.having);
  for (const SetOperation& op : sel.set_operations) CollectColumnNames(*op.query, out, all);
  for (const OrderItem& o : sel.order_by) expr(o.expr);
}

// The column names query block `sel` may read anywhere (select list, FROM's
// ON and USING, WHERE, GROUP BY, HAVING, ORDER BY, every subquery in it);
// nullopt when it reads every column (`*`, NATURAL JOIN). A table's scan
// decodes only these: a column never named is never read.
std::optional<ColumnNames> NamedColumns(const Select& sel) {
  ColumnNames names;
  bool all = false;
  CollectColumnNames(sel, &names, &all);
  if (all) return std::nullopt;
  return names;
}

// `checked`, when given, runs once the names are resolved and before any row
// is read (a grouped query's own checks: Oracle reports an unknown column
// before a column outside GROUP BY).
absl::Status ForEachJoined(Ctx& c, const Select& sel,
                           const std::function<absl::Status(const Scope&, const RowId&)>& fn,
                           const std::function<absl::Status()>& checked = nullptr)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(c.e.mu) {
  std::vector<Source> sources;
  const std::optional<ColumnNames> named = NamedColumns(sel);
  for (const FromSource& f : sel.from) {
    absl::StatusOr<Source> s = TableSource(c, f, named ? &*named : nullptr);
    if (!s.ok()) return s.status();
    sources.push_back(*std::move(s));
  }
  for (const SelectItem& it : sel.items) {
    if (absl::Status st = CheckColumns(*it.expr, sources, c.env.outer); !st.ok()) return st;
  }
  for (const ExprPtr& g : sel.group_by) {
    if (absl::Status st = CheckColumns(*g, sources, c.env.outer); !st.ok()) return st;
  }
  if (sel.having) {
    if (absl::Status st = CheckColumns(*sel.having, sources, c.env.outer); !st.ok()) return st;
  }
  if (absl::Status st = CheckUnambiguous(sel, sources); !st.ok()) return st;
  if (sel.where && HasAggregate(*sel.where)) {
    return absl::InvalidArgumentError("ORA-00934: group function is not allowed here (WHERE)");
  }
  if (absl::Status st = CheckNoAnalytics(sel); !st.ok()) return st;
  if (checked) {
    if (absl::Status st = checked(); !st.ok()) return st;
  }
  if (absl::Status st = AddQuerySubqueries(c, sel, sources); !st.ok()) return st;
  std::vector<std::vector<const Expr*>> filters = SourceFilters(sel, sources);
  if (sel.where) {
    if (absl::Status st = CheckColumns(*sel.where, sources, c.env.outer); !st.ok()) return st;
    // A single source: every WHERE term may find its rows by an index; in
    // a join, a source's own terms (filters).
    if (sources.size() == 1) Conjuncts(*sel.where, &filters[0]);
  }
  for (size_t i = 0; i < sources.size(); ++i) {
    if (filters[i].empty() || sources[i].table == nullptr || sources[i].table->indexes.empty()) continue;
    if (absl::Status st = UseIndex(c, sources[i], filters[i]); !st.ok()) return st;
  }
  if (sources.size() == 1) filters[0].clear();  // WHERE itself filters a single source
  absl::StatusOr<std::vector<std::vector<JoinEquality>>> using_equalities = UsingEqualities(sel, sources);
  if (!using_equalities.ok()) return using_equalities.status();
  JoinWalk walk(c, sel, sources, *using_equalities, std::move(filters), fn);
  return walk.Run();
}

// The same expression, as Oracle matches a select-list, HAVING or ORDER BY
// expression to a GROUP BY one or an ORDER BY one to the select list (a
// column matches itself with or without its qualifier).
bool SameExpr(const Expr& a, const Expr& b) {
  if (a.kind != b.kind || a.args.size() != b.args.size() || a.negated != b.negated ||
      a.distinct != b.distinct) {
    return false;
  }
  if (a.kind == Expr::Kind::kNumber) return a.number == b.number;
  if (a.text != b.text || a.subquery != b.subquery) return false;
  for (const auto& [x, y] : {std::pair{a.over.get(), b.over.get()},
                             std::pair{a.within_group.get(), b.within_group.get()}}) {
    if ((x == nullptr) != (y == nullptr) || (x != nullptr && !(*x == *y))) return false;
  }
  if (a.qualifier != b.qualifier && !a.qualifier.empty() && !b.qualifier.empty()) return false;
  for (size_t i = 0; i < a.args.size(); ++i) {
    if (!SameExpr(*a.args[i], *b.args[i])) return false;
  }
  return true;
}

// A query that aggregates: GROUP BY, HAVING, or an aggregate in its select list.
bool IsGrouped(const Select& sel) {
  if (!sel.group_by.empty() || sel.having) return true;
  return std::any_of(sel.items.begin(), sel.items.end(),
                     [](const SelectItem& it) { return HasAggregate(*it.expr); });
}

// The output columns of a SELECT list over `scope`'s first binding shape;
// `item_pos[i]`: where item i's (first) column is.
void ExpandItems(const Select& sel, const Scope& scope, std::vector<ExprPtr>* exprs,
                 std::vector<std::string>* headings, std::vector<size_t>* item_pos) {
  for (const SelectItem& it : sel.items) {
    item_pos->push_back(exprs->size());
    if (it.expr->kind == Expr::Kind::kStar) {
      const auto add = [&](const Binding& b, size_t k, bool qualified) {
        auto e = std::make_shared<Expr>();
        e->kind = Expr::Kind::kColumn;
        if (qualified) e->qualifier = b.qualifier;
        e->text = (*b.columns)[k].name;
        exprs->push_back(e);
        headings->push_back(e->text);
      };
      if (it.expr->qualifier.empty()) {
        // A USING column is its left side's value, or with a RIGHT or FULL
        // join (never after a comma) either side's: named without
        // qualifier, the first binding whose row is there.
        const bool coalesce = std::any_of(sel.from.begin(), sel.from.end(),
                                          [](const FromSource& f) { return f.KeepsOwnRows(); });
        for (const StarColumn& sc : StarColumns(sel, scope)) {
          add(scope[sc.binding], sc.column, !sc.shared || !coalesce);
        }
        continue;
      }
      for (const Binding& b : scope) {
        if (it.expr->qualifier != b.qualifier) continue;
        for (size_t k = 0; k < b.columns->size(); ++k) add(b, k, true);
      }
      continue;
    }
    exprs->push_back(it.expr);
    headings->push_back(it.heading);
  }
}

// The output column an ORDER BY item names: its number (ORDER BY 2), a
// select-list alias (which wins over a table column of that name, as in
// Oracle), or an expression the select list has; nullopt when the item is
// evaluated on the row. ORA-01785 for a number out of range, ORA-01791 for
// an item DISTINCT's output does not have.
absl::StatusOr<std::optional<size_t>> OrderColumn(const Select& sel, const OrderItem& o,
                                                  const std::vector<size_t>& item_pos,
                                                  size_t columns) {
  const Expr& x = *o.expr;
  if (x.kind == Expr::Kind::kNumber) {
    if (x.number != std::floor(x.number) || x.number < 1 || x.number > static_cast<double>(columns)) {
      return absl::InvalidArgumentError(fmt::format(
          "ORA-01785: ORDER BY item must be the number of a SELECT-list expression ({} of {} "
          "columns)", x.text, columns));
    }
    return static_cast<size_t>(x.number) - 1;
  }
  if (x.kind == Expr::Kind::kColumn && x.qualifier.empty()) {
    for (size_t i = 0; i < sel.items.size(); ++i) {
      if (sel.items[i].alias == x.text) return item_pos[i];
    }
  }
  for (size_t i = 0; i < sel.items.size(); ++i) {
    if (sel.items[i].expr->kind != Expr::Kind::kStar && SameExpr(x, *sel.items[i].expr)) {
      return item_pos[i];
    }
  }
  if (sel.distinct) {
    return absl::InvalidArgumentError("ORA-01791: not a SELECTed expression (ORDER BY of a DISTINCT query)");
  }
  return std::optional<size_t>();
}

// Sort order: NULLs last going up (first going down), as Oracle's default.
int SortCompare(const Value& a, const Value& b) {
  if (a.is_null() || b.is_null()) return a.is_null() == b.is_null() ? 0 : a.is_null() ? 1 : -1;
  return Compare(a, b);
}

// A value as a map key: equal keys for equal values (NULLs equal, as
// GROUP BY and DISTINCT take them).
std::string ValueKey(const Value& v) {
  if (v.is_null()) return "N;";
  if (v.kind == Value::Kind::kNumber) {
    return fmt::format("{}{};", v.is_datetime() ? 'D' : v.is_interval() ? 'I' : 'n', v.number);
  }
  return fmt::format("s{}:{}", v.text.size(), v.text);
}

std::string RowKey(const Row& r) {
  std::string k;
  for (const Value& v : r) k += ValueKey(v);
  return k;
}

// One output row, `exprs` evaluated, and its ORDER BY keys: the row's column
// where `order_cols` names one, else the ORDER BY expression evaluated.
absl::Status AddOutputRow(const Select& sel, const std::vector<ExprPtr>& exprs,
                          const std::vector<std::optional<size_t>>& order_cols,
                          const Scope& scope, const EvalEnv& env, std::vector<Row>* rows,
                          std::vector<Row>* keys) {
  BeginSequenceRow(env.stmt);
  Row row;
  for (const ExprPtr& e : exprs) {
    absl::StatusOr<Value> v = Eval(*e, scope, env);
    if (!v.ok()) return v.status();
    row.push_back(*std::move(v));
  }
  Row key;
  for (size_t k = 0; k < sel.order_by.size(); ++k) {
    if (order_cols[k].has_value()) {
      key.push_back(row[*order_cols[k]]);
      continue;
    }
    absl::StatusOr<Value> v = Eval(*sel.order_by[k].expr, scope, env);
    if (!v.ok()) return v.status();
    key.push_back(*std::move(v));
  }
  rows->push_back(std::move(row));
  keys->push_back(std::move(key));
  return absl::OkStatus();
}

// ---- analytic functions ----

// The analytic function nodes of a query block's select list and ORDER BY
// (those of its subqueries are theirs; one in another's arguments is
// ORA-30483 when evaluated).
void CollectAnalytics(const Expr& e, std::vector<const Expr*>* out) {
  if (e.over) {
    out->push_back(&e);
    return;
  }
  for (const ExprPtr& a : e.args) CollectAnalytics(*a, out);
}

std::vector<const Expr*> QueryAnalytics(const Select& sel) {
  std::vector<const Expr*> out;
  for (const SelectItem& it : sel.items) CollectAnalytics(*it.expr, &out);
  for (const OrderItem& o : sel.order_by) CollectAnalytics(*o.expr, &out);
  return out;
}

// A query block's rows before its select list (joined rows WHERE kept, or
// groups HAVING kept): EachRow calls `fn` with each one's scope and
// environment, in order.
using RowFn = std::function<absl::Status(const Scope&, const EvalEnv&)>;
using EachRow = std::function<absl::Status(const RowFn& fn)>;
using AnalyticTable = std::unordered_map<const Expr*, std::vector<Value>>;

// Each analytic node's value on each row `each` gives, in order.
absl::StatusOr<AnalyticTable> ComputeAnalytics(const std::vector<const Expr*>& nodes,
                                               const EachRow& each) {
  std::vector<std::vector<AnalyticInput>> inputs(nodes.size());
  absl::Status st = each([&](const Scope& scope, const EvalEnv& env) -> absl::Status {
    for (size_t k = 0; k < nodes.size(); ++k) {
      const Expr& f = *nodes[k];
      const Window& w = *f.over;
      AnalyticInput in;
      for (size_t a = 0; a < f.args.size(); ++a) {
        if (f.args[a]->kind == Expr::Kind::kStar) continue;  // COUNT(*)
        absl::StatusOr<Value> v = Eval(*f.args[a], scope, env);
        if (!v.ok()) return v.status();
        Row& to = a < w.arguments                    ? in.args
                  : a < w.arguments + w.partition_by ? in.partition
                                                     : in.order;
        to.push_back(*std::move(v));
      }
      inputs[k].push_back(std::move(in));
    }
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  AnalyticTable table;
  for (size_t k = 0; k < nodes.size(); ++k) {
    absl::StatusOr<std::vector<Value>> v = AnalyticValues(*nodes[k], inputs[k]);
    if (!v.ok()) return v.status();
    table[nodes[k]] = *std::move(v);
  }
  return table;
}

// A query block's output rows and ORDER BY keys from `each`'s rows: their
// analytic functions computed first (`analytics`, when it has any), then
// `exprs` evaluated on each row with its values.
absl::Status OutputRows(const Select& sel, const std::vector<ExprPtr>& exprs,
                        const std::vector<std::optional<size_t>>& order_cols,
                        const std::vector<const Expr*>& analytics, const EachRow& each,
                        std::vector<Row>* rows, std::vector<Row>* keys) {
  AnalyticTable table;
  if (!analytics.empty()) {
    absl::StatusOr<AnalyticTable> t = ComputeAnalytics(analytics, each);
    if (!t.ok()) return t.status();
    table = *std::move(t);
  }
  size_t i = 0;
  return each([&](const Scope& scope, const EvalEnv& env) -> absl::Status {
    const std::function<std::optional<Value>(const Expr&)> values =
        [&](const Expr& x) -> std::optional<Value> {
      if (auto it = table.find(&x); it != table.end()) return it->second[i];
      return env.group_values != nullptr ? (*env.group_values)(x) : std::nullopt;
    };
    EvalEnv with = env;
    if (!table.empty()) with.group_values = &values;
    absl::Status st = AddOutputRow(sel, exprs, order_cols, scope, with, rows, keys);
    ++i;
    return st;
  });
}

// The joined rows of a query with analytic functions, kept (their values
// copied, their sources' columns once) to be evaluated after the scan.
class KeptRows {
 public:
  void Keep(const Scope& scope, const EvalEnv& env) {
    if (columns_.empty()) {
      for (const Binding& b : scope) {
        qualifiers_.push_back(b.qualifier);
        columns_.push_back(*b.columns);
      }
    }
    Kept k{{}, env.rownum, env.level};
    for (const Binding& b : scope) {
      k.bindings.push_back(b.row != nullptr ? std::optional<Row>(*b.row) : std::nullopt);
    }
    rows_.push_back(std::move(k));
  }
  size_t size() const { return rows_.size(); }
  // Row i's scope and environment (`env` with its ROWNUM and LEVEL).
  Scope ScopeOf(size_t i) const {
    Scope scope;
    for (size_t b = 0; b < columns_.size(); ++b) {
      const std::optional<Row>& r = rows_[i].bindings[b];
      scope.push_back(Binding{qualifiers_[b], &columns_[b], r ? &*r : nullptr});
    }
    return scope;
  }
  EvalEnv EnvOf(size_t i, EvalEnv env) const {
    env.rownum = rows_[i].rownum;
    env.level = rows_[i].level;
    return env;
  }

 private:
  struct Kept {
    std::vector<std::optional<Row>> bindings;  // nullopt: an outer join's side without a match
    uint64_t rownum = 0, level = 0;
  };
  std::vector<std::string> qualifiers_;
  std::vector<std::vector<Column>> columns_;
  std::vector<Kept> rows_;
};

// ---- GROUP BY ----

// The aggregate and GROUP BY nodes a grouped query's output reads, found
// and checked as Oracle's parse checks them.
struct GroupPlan {
  std::vector<const Expr*> aggregates;
  std::unordered_map<const Expr*, size_t> aggregate_of;
  std::unordered_map<const Expr*, size_t> key_of;
};

absl::Status PlanGroupNode(const Select& sel, const Expr& e, GroupPlan* plan) {
  for (size_t k = 0; k < sel.group_by.size(); ++k) {
    if (SameExpr(e, *sel.group_by[k])) {
      plan->key_of[&e] = k;
      return absl::OkStatus();
    }
  }
  if (IsAggregate(e)) {
    if (e.distinct && !AllowsDistinct(e.text)) {
      return absl::InvalidArgumentError(fmt::format(
          "ORA-30482: DISTINCT option not allowed for this function ({})", e.text));
    }
    if (e.args.size() != 1 && !e.within_group) {
      return absl::InvalidArgumentError(
          fmt::format("ORA-00909: invalid number of arguments ({} to {})", e.args.size(), e.text));
    }
    if (std::any_of(e.args.begin(), e.args.end(), [](const ExprPtr& a) { return HasAggregate(*a); })) {
      return absl::InvalidArgumentError(
          fmt::format("ORA-00935: group function is nested too deeply ({})", e.text));
    }
    if (e.args[0]->kind == Expr::Kind::kStar && (e.text != "COUNT" || e.distinct)) {
      return absl::InvalidArgumentError(fmt::format("ORA-00936: missing expression ({}(*))", e.text));
    }
    plan->aggregate_of[&e] = plan->aggregates.size();
    plan->aggregates.push_back(&e);
    return absl::OkStatus();
  }
  if (e.over) {  // an analytic function: what its arguments and window name
    for (const ExprPtr& a : e.args) {
      if (a->kind == Expr::Kind::kStar) continue;  // COUNT(*) OVER
      if (absl::Status st = PlanGroupNode(sel, *a, plan); !st.ok()) return st;
    }
    return absl::OkStatus();
  }
  // A function cellsim lacks: ORA-00904 for it, not ORA-00937 for its column.
  if (e.kind == Expr::Kind::kFunction && !IsScalarFunction(e.text)) return UnknownFunction(e.text);
  const bool pseudo = IsStatementConstant(e);
  if ((e.kind == Expr::Kind::kColumn && !pseudo) || e.kind == Expr::Kind::kStar) {
    const std::string what = e.kind == Expr::Kind::kStar ? "*"
                             : e.qualifier.empty()        ? e.text
                                                          : e.qualifier + "." + e.text;
    if (sel.group_by.empty()) {
      return absl::InvalidArgumentError(
          fmt::format("ORA-00937: not a single-group group function ({} beside an aggregate "
                      "without GROUP BY)", what));
    }
    return absl::InvalidArgumentError(fmt::format("ORA-00979: not a GROUP BY expression ({})", what));
  }
  for (const ExprPtr& a : e.args) {
    if (absl::Status st = PlanGroupNode(sel, *a, plan); !st.ok()) return st;
  }
  return absl::OkStatus();
}

// One aggregate's running state in one group.
struct Accumulator {
  explicit Accumulator(const Expr& agg) : value(agg.text) {}
  Aggregate value;   // (the Expr, and so its name, outlives it)
  Value list;        // LISTAGG's list once made (FinishListAgg)
  std::unordered_set<std::string> seen;  // DISTINCT: the values taken
  std::vector<std::pair<Value, Row>> items;  // LISTAGG: each value and its WITHIN GROUP keys
};

// A group's accumulators, one per aggregate of `plan`.
std::vector<Accumulator> NewAccumulators(const std::vector<const Expr*>& aggregates) {
  std::vector<Accumulator> acc;
  acc.reserve(aggregates.size());
  for (const Expr* agg : aggregates) acc.emplace_back(*agg);
  return acc;
}

// LISTAGG: the row's value and WITHIN GROUP keys (its separator is a
// literal), kept for FinishListAgg.
absl::Status AccumulateListAgg(const Expr& agg, const Scope& scope, const EvalEnv& env,
                               Accumulator* a) {
  Row values;
  for (size_t i = 0; i < agg.args.size(); ++i) {
    if (i > 0 && i < agg.within_group->arguments) continue;  // the separator
    absl::StatusOr<Value> v = Eval(*agg.args[i], scope, env);
    if (!v.ok()) return v.status();
    values.push_back(*std::move(v));
  }
  a->items.emplace_back(values[0], Row(values.begin() + 1, values.end()));
  return absl::OkStatus();
}

absl::Status FinishListAgg(const Expr& agg, Accumulator* a) {
  absl::StatusOr<Value> list = ListAgg(std::move(a->items), agg.within_group->order_by,
                                       ListAggSeparator(agg), agg.distinct);
  if (!list.ok()) return list.status();
  a->list = *std::move(list);
  a->items.clear();
  return absl::OkStatus();
}

absl::Status Accumulate(const Expr& agg, const Scope& scope, const EvalEnv& env, Accumulator* a) {
  if (agg.within_group) return AccumulateListAgg(agg, scope, env, a);
  const Expr& arg = *agg.args[0];
  if (arg.kind == Expr::Kind::kStar) {  // COUNT(*)
    a->value.AddRow();
    return absl::OkStatus();
  }
  absl::StatusOr<Value> v = Eval(arg, scope, env);
  if (!v.ok()) return v.status();
  if (v->is_null()) return absl::OkStatus();  // aggregates skip NULLs
  if (agg.distinct && !a->seen.insert(ValueKey(*v)).second) return absl::OkStatus();
  double x = 0;
  if (IsNumericAggregate(agg.text)) {
    absl::StatusOr<double> number = ToNumber(*v);
    if (!number.ok()) return number.status();
    x = *number;
  }
  a->value.Add(*v, x);
  return absl::OkStatus();
}

Value AggregateResult(const Expr& agg, const Accumulator& a) {
  if (agg.within_group) return a.list;  // LISTAGG (FinishListAgg)
  return a.value.Result();
}

// A grouped query's rows and ORDER BY keys: the joined rows WHERE keeps, in
// groups by the GROUP BY values (one group without GROUP BY, even of no
// row), each group's select list and keys evaluated with its aggregates'
// results, the groups HAVING keeps, in the order of their GROUP BY values.
// What a grouped query's select list and HAVING see of its rows: the
// GROUP BY columns, with each group's values (a correlated subquery there
// may name them, as in Oracle; any other column of the query is not there).
struct GroupedColumns {
  bool mapped = false;
  std::vector<std::string> qualifiers;       // per source
  std::vector<std::vector<Column>> columns;  // per source: its GROUP BY columns
  std::vector<std::pair<size_t, size_t>> of_key;  // per such column: source, GROUP BY position
  std::vector<std::vector<Column>> all;      // per source: every column
  // From any joined row: which GROUP BY expressions are columns, of which source.
  void Map(const Select& sel, const Scope& scope) {
    mapped = true;
    qualifiers.clear();
    all.clear();
    for (const Binding& b : scope) {
      qualifiers.push_back(b.qualifier);
      all.push_back(*b.columns);
    }
    columns.assign(scope.size(), {});
    for (size_t k = 0; k < sel.group_by.size(); ++k) {
      const Expr& g = *sel.group_by[k];
      if (g.kind != Expr::Kind::kColumn) continue;
      std::optional<std::pair<const Binding*, size_t>> at = FindColumn(g, scope);
      if (!at) continue;  // an outer query's column
      const size_t b = static_cast<size_t>(at->first - scope.data());
      columns[b].push_back((*at->first->columns)[at->second]);
      of_key.emplace_back(b, k);
    }
  }
  // A subquery that named another column of the query than a GROUP BY one
  // failed with ORA-00904 (that column is not in the scope): Oracle's error
  // for it. Other errors as they are.
  absl::Status Explain(const Select& sel, absl::Status st) const {
    static const std::regex kInvalid(R"re(^ORA-00904: (?:"([^"]+)"\.)?"([^"]+)": invalid identifier)re");
    std::cmatch m;
    const std::string message(st.message());
    if (!std::regex_search(message.c_str(), m, kInvalid)) return st;
    for (size_t b = 0; b < all.size(); ++b) {
      if (m[1].matched && m[1].str() != qualifiers[b]) continue;
      for (const Column& col : all[b]) {
        if (col.name != m[2].str()) continue;
        return absl::InvalidArgumentError(fmt::format(
            "{} ({}.{} is named in a subquery of a grouped query, where only its GROUP BY "
            "columns may be named)",
            sel.group_by.empty() ? "ORA-00937: not a single-group group function"
                                 : "ORA-00979: not a GROUP BY expression",
            qualifiers[b], col.name));
      }
    }
    return st;
  }
  // The scope of the group with `key` (its rows kept in *rows).
  Scope ScopeOf(const Row& key, std::vector<Row>* rows) const {
    rows->assign(columns.size(), Row{});
    for (const auto& [b, k] : of_key) (*rows)[b].push_back(key[k]);
    Scope scope;
    for (size_t b = 0; b < columns.size(); ++b) {
      if (!columns[b].empty()) scope.push_back(Binding{qualifiers[b], &columns[b], &(*rows)[b]});
    }
    return scope;
  }
};

absl::Status GroupedRows(Ctx& c, const Select& sel, std::vector<Row>* rows,
                         std::vector<Row>* keys, std::vector<std::string>* headings)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(c.e.mu) {
  GroupPlan plan;
  std::vector<std::optional<size_t>> order_cols;
  struct Group {
    Row key;
    std::vector<Accumulator> acc;
  };
  std::vector<Group> groups;
  std::unordered_map<std::string, size_t> index;
  for (const SelectItem& it : sel.items) headings->push_back(it.heading);
  auto plan_groups = [&]() -> absl::Status {
    std::vector<size_t> item_pos;
    for (size_t i = 0; i < sel.items.size(); ++i) {
      item_pos.push_back(i);
      if (absl::Status st = PlanGroupNode(sel, *sel.items[i].expr, &plan); !st.ok()) return st;
    }
    for (const ExprPtr& g : sel.group_by) {
      if (HasAggregate(*g)) {
        return absl::InvalidArgumentError("ORA-00934: group function is not allowed here (GROUP BY)");
      }
    }
    if (sel.having) {
      if (absl::Status st = PlanGroupNode(sel, *sel.having, &plan); !st.ok()) return st;
    }
    for (const OrderItem& o : sel.order_by) {
      absl::StatusOr<std::optional<size_t>> col = OrderColumn(sel, o, item_pos, sel.items.size());
      if (!col.ok()) return col.status();
      order_cols.push_back(*col);
      if (!col->has_value()) {
        if (absl::Status st = PlanGroupNode(sel, *o.expr, &plan); !st.ok()) return st;
      }
    }
    if (sel.group_by.empty()) groups.push_back({Row{}, NewAccumulators(plan.aggregates)});
    return absl::OkStatus();
  };
  GroupedColumns grouped;
  absl::Status st = ForEachJoined(c, sel, [&](const Scope& scope, const RowId&) -> absl::Status {
    if (!grouped.mapped) grouped.Map(sel, scope);
    Row key;
    for (const ExprPtr& g : sel.group_by) {
      absl::StatusOr<Value> v = Eval(*g, scope, c.env);
      if (!v.ok()) return v.status();
      key.push_back(*std::move(v));
    }
    size_t gi = 0;
    if (!sel.group_by.empty()) {
      auto [it, added] = index.try_emplace(RowKey(key), groups.size());
      if (added) groups.push_back({std::move(key), NewAccumulators(plan.aggregates)});
      gi = it->second;
    }
    for (size_t i = 0; i < plan.aggregates.size(); ++i) {
      if (absl::Status a = Accumulate(*plan.aggregates[i], scope, c.env, &groups[gi].acc[i]); !a.ok()) {
        return a;
      }
    }
    return absl::OkStatus();
  }, plan_groups);
  if (!st.ok()) return st;
  for (Group& g : groups) {
    for (size_t i = 0; i < plan.aggregates.size(); ++i) {
      if (!plan.aggregates[i]->within_group) continue;
      if (absl::Status f = FinishListAgg(*plan.aggregates[i], &g.acc[i]); !f.ok()) return f;
    }
  }
  std::stable_sort(groups.begin(), groups.end(), [](const Group& a, const Group& b) {
    for (size_t k = 0; k < a.key.size(); ++k) {
      const int cmp = SortCompare(a.key[k], b.key[k]);
      if (cmp != 0) return cmp < 0;
    }
    return false;
  });
  const Group* at = nullptr;
  const std::function<std::optional<Value>(const Expr&)> values =
      [&](const Expr& x) -> std::optional<Value> {
    if (auto it = plan.aggregate_of.find(&x); it != plan.aggregate_of.end()) {
      return AggregateResult(x, at->acc[it->second]);
    }
    if (auto it = plan.key_of.find(&x); it != plan.key_of.end()) return at->key[it->second];
    return std::nullopt;
  };
  EvalEnv env = c.env;
  env.group_values = &values;
  std::vector<ExprPtr> items;
  for (const SelectItem& it : sel.items) items.push_back(it.expr);
  std::vector<const Group*> kept;  // the groups HAVING keeps
  for (const Group& g : groups) {
    at = &g;
    if (sel.having) {
      std::vector<Row> key_rows;
      absl::StatusOr<Value> h = Eval(*sel.having, grouped.ScopeOf(g.key, &key_rows), env);
      if (!h.ok()) return grouped.Explain(sel, h.status());
      if (!Truthy(*h)) continue;
    }
    kept.push_back(&g);
  }
  const EachRow each = [&](const RowFn& fn) -> absl::Status {
    for (const Group* g : kept) {
      if (absl::Status st = CheckCancelEvery4096Rows(c.sd); !st.ok()) return st;  // Ctrl-C
      at = g;
      std::vector<Row> key_rows;
      if (absl::Status st = fn(grouped.ScopeOf(g->key, &key_rows), env); !st.ok()) {
        return grouped.Explain(sel, st);
      }
    }
    return absl::OkStatus();
  };
  return OutputRows(sel, items, order_cols, QueryAnalytics(sel), each, rows, keys);
}

// SELECT ... FOR UPDATE: row `rid` of the query's table becomes the
// session's transaction's, as a row an UPDATE changed: its lock (released at
// COMMIT or ROLLBACK) and a lock-row change in the redo (11.4 and its undo;
// the block itself is not changed: the lock lives in the engine's table).
// A GTT's rows are the session's own: nothing to lock. A row another open
// transaction holds: with SKIP LOCKED, *skip; else ORA-00054, which names
// the holder in its payloads (a caller may wait for it) unless NOWAIT.
absl::Status LockForUpdate(Ctx& c, const Select::ForUpdate& f, const RowId& rid, bool* skip)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(c.e.mu) {
  const TableDef& t = *c.locked;
  if (t.temporary) return absl::OkStatus();
  if (absl::Status held = c.e.CheckRowLock(c.sd, t, rid.file, rid.block, rid.slot); !held.ok()) {
    using Wait = Select::ForUpdate::Wait;
    if (f.wait == Wait::kSkipLocked) {
      *skip = true;
      return absl::OkStatus();
    }
    if (f.wait == Wait::kNoWait) {
      return absl::FailedPreconditionError(fmt::format(
          "ORA-00054: resource busy and acquire with NOWAIT specified or timeout expired (a row "
          "of {} is locked by session {}'s open transaction)",
          t.name, std::string(*held.GetPayload(kRowLockHolderPayload))));
    }
    if (f.wait == Wait::kWaitSeconds) {
      held.SetPayload(kRowLockWaitLimitPayload, absl::Cord(std::to_string(f.wait_seconds)));
    }
    return held;
  }
  c.e.AddRowUndo(c.rec, c.sd, {RowChange::kLock, rid.file, rid.block, rid.slot, {}, t.object_id, false});
  return c.e.AddUndo(c.rec, c.sd, false, redo::kUndoSingleRow,
                     redo::VectorBytes({redo::kKtb, redo::kKdoLock}), 1);
}

// The one table a SELECT ... FOR UPDATE may lock, or why not.
absl::StatusOr<const TableDef*> ForUpdateTable(DataEngine& e, const Select& sel)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu) {
  if (!sel.set_operations.empty() || sel.distinct || IsGrouped(sel)) {
    return absl::InvalidArgumentError(
        "ORA-01786: FOR UPDATE of this query expression is not allowed (a set operation, "
        "DISTINCT, GROUP BY or an aggregate makes rows that are no table's rows)");
  }
  if (sel.offset_rows || sel.fetch_rows) {
    return absl::InvalidArgumentError(
        "ORA-02014: cannot select FOR UPDATE from view with DISTINCT, GROUP BY, etc. (the "
        "row limiting clause OFFSET / FETCH FIRST is such a view)");
  }
  auto t = sel.from.size() == 1 && sel.from[0].subquery == nullptr
               ? e.tables.find(sel.from[0].table)
               : e.tables.end();
  if (t == e.tables.end()) {
    return absl::InvalidArgumentError(
        "SELECT ... FOR UPDATE: cellsim locks the rows of one table (FROM t [WHERE ...] FOR "
        "UPDATE), not those of a join, a view, a subquery, DUAL or a V$ view");
  }
  for (const std::string& col : sel.for_update->of) {
    const auto& cols = t->second.columns;
    if (std::none_of(cols.begin(), cols.end(), [&](const auto& c) { return c.name == col; })) {
      return absl::InvalidArgumentError(
          fmt::format("ORA-00904: \"{}\".\"{}\": invalid identifier (FOR UPDATE OF)", t->first, col));
    }
  }
  return &t->second;
}

// A plain query's rows and ORDER BY keys: the select list over each joined
// row WHERE keeps.
absl::Status PlainRows(Ctx& c, const Select& sel, std::vector<Row>* rows, std::vector<Row>* keys,
                       std::vector<std::string>* headings, bool* expanded)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(c.e.mu) {
  std::vector<ExprPtr> exprs;
  std::vector<size_t> item_pos;
  std::vector<std::optional<size_t>> order_cols;
  const auto expand = [&](const Scope& scope) -> absl::Status {
    ExpandItems(sel, scope, &exprs, headings, &item_pos);
    *expanded = true;
    for (const OrderItem& o : sel.order_by) {
      absl::StatusOr<std::optional<size_t>> col = OrderColumn(sel, o, item_pos, exprs.size());
      if (!col.ok()) return col.status();
      order_cols.push_back(*col);
    }
    return absl::OkStatus();
  };
  // With analytic functions the rows are kept, and evaluated once the scan
  // is over; without, each as the scan finds it.
  const std::vector<const Expr*> analytics = QueryAnalytics(sel);
  KeptRows kept;
  absl::Status st = ForEachJoined(c, sel, [&](const Scope& scope, const RowId& rid) -> absl::Status {
    c.e.mu.AssertHeld();  // the scan runs under it
    if (&sel == c.for_update) {
      bool skip = false;
      if (absl::Status st = LockForUpdate(c, *sel.for_update, rid, &skip); !st.ok() || skip) {
        return st;
      }
    }
    if (!analytics.empty()) {
      kept.Keep(scope, c.env);
      return absl::OkStatus();
    }
    if (!*expanded) {
      if (absl::Status st = expand(scope); !st.ok()) return st;
    }
    return AddOutputRow(sel, exprs, order_cols, scope, c.env, rows, keys);
  });
  if (!st.ok() || analytics.empty() || kept.size() == 0) return st;
  if (absl::Status st = expand(kept.ScopeOf(0)); !st.ok()) return st;
  const EachRow each = [&](const RowFn& fn) -> absl::Status {
    for (size_t i = 0; i < kept.size(); ++i) {
      if (absl::Status st = CheckCancelEvery4096Rows(c.sd); !st.ok()) return st;  // Ctrl-C
      if (absl::Status st = fn(kept.ScopeOf(i), kept.EnvOf(i, c.env)); !st.ok()) return st;
    }
    return absl::OkStatus();
  };
  return OutputRows(sel, exprs, order_cols, analytics, each, rows, keys);
}

// DISTINCT, UNION ...: the first of equal rows stays (with its key).
void KeepFirstOfEqualRows(std::vector<Row>* rows, std::vector<Row>* keys) {
  std::unordered_set<std::string> seen;
  size_t kept = 0;
  for (size_t i = 0; i < rows->size(); ++i) {
    if (!seen.insert(RowKey((*rows)[i])).second) continue;
    if (kept != i) {
      (*rows)[kept] = std::move((*rows)[i]);
      (*keys)[kept] = std::move((*keys)[i]);
    }
    ++kept;
  }
  rows->resize(kept);
  keys->resize(kept);
}

// ORDER BY: one in-memory sort (CountSort).
void SortByKeys(Recorder& rec, const std::vector<OrderItem>& order_by, const std::vector<Row>& keys,
                std::vector<Row>* rows) {
  if (order_by.empty()) return;
  CountSort(rec, static_cast<int64_t>(rows->size()));
  std::vector<size_t> idx(rows->size());
  for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
    for (size_t k = 0; k < order_by.size(); ++k) {
      const Value& x = keys[a][k];
      const Value& y = keys[b][k];
      const OrderItem& o = order_by[k];
      if (o.nulls_first.has_value() && x.is_null() != y.is_null()) {
        return x.is_null() == *o.nulls_first;  // NULLS FIRST / LAST, whichever the direction
      }
      const int cmp = SortCompare(x, y);
      if (cmp != 0) return o.descending ? cmp > 0 : cmp < 0;
    }
    return false;
  });
  std::vector<Row> sorted;
  for (size_t i : idx) sorted.push_back(std::move((*rows)[i]));
  *rows = std::move(sorted);
}

// A query's rows to its caller: their columns (`cols`: named by alias or
// heading, numbers where the first row has one) and SQL*Plus's text.
std::vector<Row> Deliver(const Select& sel, const std::vector<std::string>& headings,
                         std::vector<Row> rows, std::vector<internal::Column>* cols,
                         DataOutcome* out) {
  if (cols != nullptr) {
    cols->clear();
    for (size_t i = 0; i < headings.size(); ++i) {
      const Value* first = rows.empty() ? nullptr : &rows[0][i];
      const bool num = first != nullptr && first->kind == Value::Kind::kNumber;
      std::string name = headings[i];
      if (i < sel.items.size() && !sel.items[i].alias.empty()) name = sel.items[i].alias;
      // A NUMBER without precision (not NUMBER(4000)), a DATE, a TIMESTAMP
      // of the value's precision, else text.
      const ColType type = !num                          ? ColType::kVarchar2
                           : first->is_timestamp()       ? ColType::kTimestamp
                           : first->is_datetime()        ? ColType::kDate
                                                         : ColType::kNumber;
      cols->push_back({name, type,
                       type == ColType::kTimestamp ? first->precision : num ? 0u : 4000u});
    }
  }
  if (out != nullptr) {
    out->headings = headings;
    out->numeric.assign(headings.size(), false);
    for (const Row& r : rows) {
      std::vector<std::string> text;
      for (size_t i = 0; i < r.size(); ++i) {
        text.push_back(ValueText(r[i]));
        if (r[i].is_number()) out->numeric[i] = true;
      }
      out->rows_text.push_back(std::move(text));
    }
    out->rows = static_cast<int64_t>(rows.size());
    if (out->keep_values) out->values = rows;
  }
  return rows;
}

// OFFSET / FETCH FIRST: the rows after the first `offset_rows`, at most
// `fetch_rows` of them (after ORDER BY).
void LimitRows(const Select& sel, std::vector<Row>* rows) {
  const size_t skip = std::min<uint64_t>(sel.offset_rows.value_or(0), rows->size());
  rows->erase(rows->begin(), rows->begin() + static_cast<std::ptrdiff_t>(skip));
  if (sel.fetch_rows && *sel.fetch_rows < rows->size()) rows->resize(*sel.fetch_rows);
}

// UNION [ALL], INTERSECT, MINUS, left to right over the branches' rows (all
// but UNION ALL keep one of equal rows), then ORDER BY over the result by
// position or by a column name of the first branch (ORA-01785 otherwise).
absl::StatusOr<std::vector<Row>> CompoundRows(Ctx& c, const Select& sel,
                                              std::vector<internal::Column>* cols,
                                              DataOutcome* out)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(c.e.mu) {
  Select first = sel;
  first.set_operations.clear();
  first.order_by.clear();
  first.offset_rows.reset();
  first.fetch_rows.reset();
  std::vector<internal::Column> first_cols;
  absl::StatusOr<std::vector<Row>> result = RunSelectRows(c, first, &first_cols, nullptr);
  if (!result.ok()) return result;
  std::vector<Row> rows = *std::move(result);
  for (const SetOperation& op : sel.set_operations) {
    std::vector<internal::Column> branch_cols;
    absl::StatusOr<std::vector<Row>> branch = RunSelectRows(c, *op.query, &branch_cols, nullptr);
    if (!branch.ok()) return branch.status();
    if (branch_cols.size() != first_cols.size()) {
      return absl::InvalidArgumentError(fmt::format(
          "ORA-01789: query block has incorrect number of result columns ({} against {}, {})",
          branch_cols.size(), first_cols.size(), op.op));
    }
    // Oracle's SORT UNIQUE: of both branches' rows for UNION, of each
    // branch for INTERSECT and MINUS.
    if (op.op == "UNION ALL" || op.op == "UNION") {
      for (Row& r : *branch) rows.push_back(std::move(r));
      if (op.op == "UNION") CountSort(c.rec, static_cast<int64_t>(rows.size()));
    } else {
      CountSort(c.rec, static_cast<int64_t>(rows.size()));
      CountSort(c.rec, static_cast<int64_t>(branch->size()));
      std::unordered_set<std::string> other;
      for (const Row& r : *branch) other.insert(RowKey(r));
      const bool keep_common = op.op == "INTERSECT";
      std::erase_if(rows, [&](const Row& r) { return (other.count(RowKey(r)) != 0) != keep_common; });
    }
    if (op.op != "UNION ALL") {
      std::vector<Row> no_keys(rows.size());
      KeepFirstOfEqualRows(&rows, &no_keys);
    }
  }
  std::vector<std::string> headings;
  for (const internal::Column& col : first_cols) headings.push_back(col.name);
  std::vector<size_t> order_cols;
  for (const OrderItem& o : sel.order_by) {
    const Expr& x = *o.expr;
    std::optional<size_t> col;
    if (x.kind == Expr::Kind::kNumber && x.number == std::floor(x.number) && x.number >= 1 &&
        x.number <= static_cast<double>(headings.size())) {
      col = static_cast<size_t>(x.number) - 1;
    } else if (x.kind == Expr::Kind::kColumn && x.qualifier.empty()) {
      for (size_t i = 0; i < headings.size() && !col; ++i) {
        if (headings[i] == x.text) col = i;
      }
    }
    if (!col) {
      return absl::InvalidArgumentError(
          "ORA-01785: ORDER BY item must be the number of a SELECT-list expression (of a "
          "compound query: a position or a column name of its first query)");
    }
    order_cols.push_back(*col);
  }
  std::vector<Row> keys;
  for (const Row& r : rows) {
    Row key;
    for (size_t k : order_cols) key.push_back(r[k]);
    keys.push_back(std::move(key));
  }
  SortByKeys(c.rec, sel.order_by, keys, &rows);
  LimitRows(sel, &rows);
  return Deliver(first, headings, std::move(rows), cols, out);
}

absl::StatusOr<std::vector<Row>> RunSelectRows(Ctx& c, const Select& sel,
                                               std::vector<internal::Column>* cols,
                                               DataOutcome* out)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(c.e.mu) {
  if (!sel.set_operations.empty()) return CompoundRows(c, sel, cols, out);
  std::vector<std::string> headings;
  std::vector<Row> rows;
  std::vector<Row> keys;
  bool expanded = false;
  absl::Status st;
  if (IsGrouped(sel)) {
    st = GroupedRows(c, sel, &rows, &keys, &headings);
    expanded = true;
  } else {
    st = PlainRows(c, sel, &rows, &keys, &headings, &expanded);
  }
  if (!st.ok()) return st;
  if (sel.distinct) KeepFirstOfEqualRows(&rows, &keys);
  SortByKeys(c.rec, sel.order_by, keys, &rows);
  LimitRows(sel, &rows);
  if (!expanded) {  // no row: headings still come from the select list
    for (const SelectItem& it : sel.items) headings.push_back(it.heading);
  }
  return Deliver(sel, headings, std::move(rows), cols, out);
}

// A view's rows: its query, parsed from its text and run here, under the
// view's column names. A view reached again while it is being expanded is
// ORA-01731 (CREATE OR REPLACE can close such a loop).
absl::StatusOr<ViewRows> ViewRowsOf(Ctx& c, const ViewDef& v) ABSL_EXCLUSIVE_LOCKS_REQUIRED(c.e.mu) {
  std::vector<std::string>& open = c.sd.views_open;
  if (std::find(open.begin(), open.end(), v.name) != open.end()) {
    return absl::InvalidArgumentError(fmt::format(
        "ORA-01731: circular view definition encountered ({} -> {})", fmt::join(open, " -> "), v.name));
  }
  absl::StatusOr<DataStatement> st = ParseDataStatement(v.text);
  if (!st.ok()) return st.status();
  const Select* sel = std::get_if<Select>(&*st);
  if (sel == nullptr) return absl::InternalError(fmt::format("view {}: its text is not a query", v.name));
  open.push_back(v.name);
  // The view's subqueries' rows are keyed by nodes of `st`, gone on return.
  const std::shared_ptr<const SubqueryRows> outer_subqueries = c.env.stmt.subqueries;
  ViewRows out;
  absl::StatusOr<std::vector<Row>> rows = std::vector<Row>();
  if (!c.shape_only) rows = RunSelectRows(c, *sel, &out.columns, nullptr);
  // The columns' types as the sources have them (VARCHAR2(10), not what the
  // rows suggest), as DESC and CREATE TABLE AS SELECT need: the sources'
  // shapes (a view or subquery in the view's FROM gives its own shape, its
  // query not run again).
  if (rows.ok()) {
    Ctx shape_ctx{c.e, c.s, c.sd, c.rec, c.env, true};
    shape_ctx.e.mu.AssertHeld();  // shape_ctx.e is c.e
    absl::StatusOr<std::vector<internal::Column>> shape = ShapeOf(shape_ctx, *sel);
    if (!shape.ok()) {
      rows = shape.status();
    } else if (rows->empty() || shape->size() != out.columns.size()) {
      out.columns = *std::move(shape);
    } else {
      // An expression's shape is a plain NUMBER: its rows know better.
      for (size_t i = 0; i < shape->size(); ++i) {
        const internal::Column& sc = (*shape)[i];
        const bool unknown = sc.type == ColType::kNumber && sc.length == 0;
        if (!unknown || out.columns[i].type == ColType::kNumber) out.columns[i] = sc;
      }
    }
  }
  open.pop_back();
  c.env.stmt.subqueries = outer_subqueries;
  if (!rows.ok()) return rows.status();
  out.rows = *std::move(rows);
  if (!v.columns.empty()) {
    if (v.columns.size() != out.columns.size()) {
      return absl::InvalidArgumentError(fmt::format(
          "ORA-01730: invalid number of column names specified ({} names for the query's {} "
          "columns)", v.columns.size(), out.columns.size()));
    }
    for (size_t i = 0; i < v.columns.size(); ++i) out.columns[i].name = v.columns[i];
  }
  for (size_t i = 0; i < out.columns.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (out.columns[i].name == out.columns[j].name) {
        return absl::InvalidArgumentError(fmt::format(
            "ORA-00957: duplicate column name ({}: give the view's columns different names, by "
            "aliases or a column list)", out.columns[i].name));
      }
    }
  }
  return out;
}

}  // namespace

absl::StatusOr<ViewRows> RunView(DataEngine& e, Session::State& s, SessionData& sd, Recorder& rec,
                                 const StatementEnv& stmt, const ViewDef& v) {
  Ctx c{e, s, sd, rec, EvalEnv{stmt}};
  c.e.mu.AssertHeld();  // c.e is e, whose mu the caller holds
  return ViewRowsOf(c, v);
}

// Defined in data_dml.cc.
absl::Status RunDml(DataEngine& e, Session::State& s, SessionData& sd, Recorder& rec,
                    SequenceDraw* draw, const DataStatement& st, DataOutcome* out)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu);

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
                                           Recorder& rec, SequenceDraw* draw, const Select& sel,
                                           std::vector<internal::Column>* cols, DataOutcome* out)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu) {
  Ctx c{e, s, sd, rec, EvalEnv{StatementEnvOf(s, draw)}};
  c.e.mu.AssertHeld();  // c.e is e, whose mu the caller holds
  return RunSelectRows(c, sel, cols, out);
}

namespace {

// Runs the statement once; when it fails, undoes it (statement-level
// rollback, RollbackToKeepingRowLocks when it is to wait for a row lock).
absl::Status RunDataStatementOnce(DataEngine& e, Session::State& s, const DataStatement& st,
                                  DataOutcome* out) ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu);

absl::Status WaitForRowLock(DataEngine& e, Session::State& s, const absl::Status& conflict,
                            const RowLockConflict& c, std::chrono::steady_clock::time_point start)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu);

// What a statement that waited for a row lock until its limit fails with:
// FOR UPDATE WAIT n's ORA-30006, else the ORA-00054 (its payloads kept, for
// a caller that waits on).
absl::Status RowLockWaitExpired(const absl::Status& conflict, const RowLockConflict& c,
                                std::chrono::steady_clock::duration waited) {
  if (c.wait_limit_s) {
    return ForUpdateWaitExpired(
        c.holder_sid,
        static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(waited).count()));
  }
  const double seconds = std::chrono::duration<double>(waited).count();
  absl::Status st = absl::FailedPreconditionError(fmt::format(
      "ORA-00054: resource busy and acquire with NOWAIT specified or timeout expired (waited "
      "{:.3f} s, the session's row-lock wait limit, for a row session {}'s open transaction "
      "holds)",
      seconds, c.holder_sid));
  conflict.ForEachPayload(
      [&](absl::string_view url, const absl::Cord& payload) { st.SetPayload(url, payload); });
  return st;
}

}  // namespace

absl::Status NewTransactionRefused(std::string_view what) {
  return absl::FailedPreconditionError(fmt::format(
      "ORA-01089: immediate shutdown or close in progress - no operations are permitted (SHUTDOWN "
      "TRANSACTIONAL waits for the open transactions to end and lets no new one begin: {} refused; "
      "an open transaction still ends with COMMIT or ROLLBACK)",
      what));
}

namespace {

// After Database::RefuseNewTransactions: DML that would begin a transaction
// (the session has none), and DDL (which commits and runs its own), fail.
absl::Status RefusedAsNewTransaction(DataEngine& e, const Session::State& s,
                                     const DataStatement& st) ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu) {
  e.mu.AssertHeld();  // s.data->txn does not move meanwhile
  if (!s.db->refuse_new_transactions.load()) return absl::OkStatus();
  const bool dml = std::holds_alternative<Insert>(st) || std::holds_alternative<Update>(st) ||
                   std::holds_alternative<Delete>(st) || std::holds_alternative<Merge>(st) ||
                   (std::holds_alternative<Select>(st) && std::get<Select>(st).for_update);
  const bool ddl = std::holds_alternative<CreateTable>(st) || std::holds_alternative<DropTable>(st) ||
                   std::holds_alternative<TruncateTable>(st) ||
                   std::holds_alternative<CreateIndex>(st) || std::holds_alternative<DropIndex>(st) ||
                   std::holds_alternative<AlterTable>(st) ||
                   std::holds_alternative<SequenceOptions>(st) ||
                   std::holds_alternative<DropSequence>(st) ||
                   std::holds_alternative<CreateView>(st) || std::holds_alternative<DropView>(st);
  if (ddl || (dml && !s.data->txn.active)) return NewTransactionRefused(DataStatementKind(st));
  return absl::OkStatus();
}

// A statement that makes or changes a dictionary object, in a database
// with nowhere to keep it (DataEngine::KeepsDictionary).
absl::Status RefusedWithoutDictionary(DataEngine& e, const Session::State& s,
                                      const DataStatement& st) ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu) {
  const bool makes = std::holds_alternative<CreateTable>(st) ||
                     std::holds_alternative<CreateIndex>(st) ||
                     std::holds_alternative<AlterTable>(st) ||
                     std::holds_alternative<SequenceOptions>(st) ||
                     std::holds_alternative<CreateView>(st);
  if (!makes || e.KeepsDictionary()) return absl::OkStatus();
  return absl::FailedPreconditionError(fmt::format(
      "ORA-00959: tablespace 'SYSTEM' does not exist ({} refused: the data dictionary lives in "
      "the SYSTEM tablespace, and database {} has none, so what it made would be gone when the "
      "database closes. Create the database with its standard files (`cellsim sql "
      "--standard-files` on a new rack, DatabaseOptions::standard_files), or first CREATE "
      "TABLESPACE SYSTEM DATAFILE '+DATA' SIZE 64M)",
      DataStatementKind(st), s.db->options.db_name));
}

}  // namespace

absl::Status RunDataStatement(Session::State& s, const DataStatement& st, DataOutcome* out) {
  DataEngine& e = EngineOf(*s.db);
  MutexLock lock(&e.mu);
  if (absl::Status refused = RefusedAsNewTransaction(e, s, st); !refused.ok()) return refused;
  if (absl::Status refused = RefusedWithoutDictionary(e, s, st); !refused.ok()) return refused;
  // A session that waits for row locks (Session::SetRowLockWait) runs the
  // statement again each time the transaction holding its row has ended.
  // The rows it has changed stay locked while it waits; when it fails after
  // all, they go with it.
  const auto start = std::chrono::steady_clock::now();
  const size_t mark = s.data->txn.undo.size();
  for (;;) {
    absl::Status status = RunDataStatementOnce(e, s, st, out);
    const std::optional<RowLockConflict> c = RowLockConflictOf(status);
    if (!c.has_value() || s.row_lock_wait == kNoRowLockWait) return status;
    absl::Status waited = WaitForRowLock(e, s, status, *c, start);
    if (!waited.ok()) {
      Recorder rec = s.MakeRecorder();
      if (absl::Status st = e.RollbackTo(rec, *s.data, mark); !st.ok()) return st;
      return waited;
    }
    *out = DataOutcome{};
  }
}

namespace {

// Session s's wait for the row lock `conflict` (`c`, read from it) names,
// its statement begun at `start`: OK when the holder's transaction has
// ended, else the statement's error.
absl::Status WaitForRowLock(DataEngine& e, Session::State& s, const absl::Status& conflict,
                            const RowLockConflict& c, std::chrono::steady_clock::time_point start)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu) {
  const std::chrono::nanoseconds limit =
      c.wait_limit_s ? std::chrono::seconds(*c.wait_limit_s) : s.row_lock_wait;
  const auto deadline = limit >= std::chrono::steady_clock::time_point::max() - start
                            ? std::chrono::steady_clock::time_point::max()
                            : start + limit;
  Recorder rec = s.MakeRecorder();
  absl::Status waited = e.WaitForTransactionEnd(rec, *s.data, c, deadline, s.cancel);
  if (absl::IsDeadlineExceeded(waited)) {
    return RowLockWaitExpired(conflict, c, std::chrono::steady_clock::now() - start);
  }
  return waited;
}

// Statement-level rollback of the statement that failed with `failed`
// after `mark` (RollbackToKeepingRowLocks when it is to wait and run again):
// `failed`, or the rollback's own error.
absl::Status UndoFailedStatement(DataEngine& e, Session::State& s, Recorder& rec,
                                 const absl::Status& failed, size_t mark)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu) {
  absl::Status undone;
  if (s.row_lock_wait != kNoRowLockWait && RowLockConflictOf(failed).has_value()) {
    undone = e.RollbackToKeepingRowLocks(rec, *s.data, mark);
  } else {
    undone = e.RollbackTo(rec, *s.data, mark);
  }
  return undone.ok() ? failed : undone;
}

absl::Status RunDataStatementOnce(DataEngine& e, Session::State& s, const DataStatement& st,
                                  DataOutcome* out) {
  SessionData& sd = *s.data;
  sd.current_blocks.clear();  // a new statement (or the same one again) pins no block yet
  sd.last_current_block = ~uint64_t{0};
  Recorder rec = s.MakeRecorder();
  std::set<std::string> nextval;
  if (absl::Status placed = CheckSequencePlacement(st, &nextval); !placed.ok()) return placed;
  SequenceDraw draw(e, sd, std::move(nextval));
  if (const auto* sel = std::get_if<Select>(&st)) {
    absl::StatusOr<std::vector<Row>> rows;
    if (sel->for_update) {
      absl::StatusOr<const TableDef*> t = ForUpdateTable(e, *sel);
      if (!t.ok()) return t.status();
      const size_t mark = sd.txn.undo.size();
      Ctx c{e, s, sd, rec, EvalEnv{StatementEnvOf(s, &draw)}};
      c.for_update = sel;
      c.locked = *t;
      c.e.mu.AssertHeld();  // c.e is e
      rows = RunSelectRows(c, *sel, nullptr, out);
      if (!rows.ok()) rows = UndoFailedStatement(e, s, rec, rows.status(), mark);  // the rows it locked go
    } else {
      rows = QueryRows(e, s, sd, rec, &draw, *sel, nullptr, out);
    }
    if (!rows.ok()) return rows.status();
    out->feedback = rows->empty() ? "no rows selected"
                    : rows->size() == 1 ? "1 row selected."
                                        : fmt::format("{} rows selected.", CountWithCommas(static_cast<int64_t>(rows->size())));
    return absl::OkStatus();
  }
  const size_t mark = sd.txn.undo.size();
  absl::Status status = RunDml(e, s, sd, rec, &draw, st, out);
  if (!status.ok() && !std::holds_alternative<Commit>(st) &&
      !std::holds_alternative<Rollback>(st)) {
    status = UndoFailedStatement(e, s, rec, status, mark);  // statement-level rollback, as Oracle
  }
  return status;
}

}  // namespace

absl::Status ScanSelect(DataEngine& e, Session::State& s, SessionData& sd, Recorder& rec,
                        const StatementEnv& stmt, const Select& sel,
                        const std::function<absl::Status(const Row&)>& fn,
                        std::vector<internal::Column>* cols) {
  Ctx c{e, s, sd, rec, EvalEnv{stmt}};
  c.e.mu.AssertHeld();  // c.e is e, whose mu the caller holds
  if (IsGrouped(sel) || sel.distinct || !sel.order_by.empty() || !sel.set_operations.empty() ||
      sel.offset_rows || sel.fetch_rows || !QueryAnalytics(sel).empty()) {
    // Rows that need all the others first: the query's rows, then each.
    absl::StatusOr<std::vector<Row>> rows = RunSelectRows(c, sel, cols, nullptr);
    if (!rows.ok()) return rows.status();
    for (const Row& r : *rows) {
      BeginSequenceRow(stmt);  // what `fn` draws (an INSERT's DEFAULT s.NEXTVAL) is this row's
      if (absl::Status st = fn(r); !st.ok()) return st;
    }
    return absl::OkStatus();
  }
  std::vector<ExprPtr> exprs;
  std::vector<std::string> headings;
  std::vector<size_t> item_pos;
  bool expanded = false;
  return ForEachJoined(c, sel, [&](const Scope& scope, const RowId&) -> absl::Status {
    if (!expanded) {
      ExpandItems(sel, scope, &exprs, &headings, &item_pos);
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
    BeginSequenceRow(c.env.stmt);
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
                                                          const StatementEnv& stmt,
                                                          const Select& sel) {
  Ctx c{e, s, sd, rec, EvalEnv{stmt}, true};
  c.e.mu.AssertHeld();  // c.e is e, whose mu the caller holds
  return ShapeOf(c, sel);
}

namespace {

// The column a SELECT-list expression gives a CTAS, typed as Oracle types
// it when it parses: a source column's own type; text literals and character
// functions VARCHAR2 as long as their longest value can be (RPAD(x, 10) 10,
// UPPER(c) c's length, a || b the sum); DATE functions and DATE arithmetic
// DATE; NVL, DECODE, CASE, GREATEST, MIN/MAX their results' widest; the rest
// NUMBER.
internal::Column ExprShape(const Expr& x, const std::vector<Source>& sources);

bool IsText(const internal::Column& c) {
  return c.type == ColType::kVarchar2 || c.type == ColType::kChar;
}
// How long a value of column `c` can be as text: a NUMBER 40 characters, a
// DATE 9 (DD-MON-RR), a TIMESTAMP(p) 22 + p (DD-MON-RR HH.MI.SSXFF AM).
uint32_t TextWidth(const internal::Column& c) {
  return IsText(c)                         ? c.length
         : c.type == ColType::kDate        ? 9u
         : c.type == ColType::kTimestamp   ? 22u + c.length
                                           : 40u;
}
internal::Column Varchar2Of(uint64_t length) {
  return {"", ColType::kVarchar2, static_cast<uint32_t>(std::clamp<uint64_t>(length, 1, kMaxVarchar2))};
}

// The widest of `shapes`: text if any is (as long as the longest as text),
// else the first one's type.
internal::Column Widest(const std::vector<internal::Column>& shapes) {
  if (shapes.empty()) return {"", ColType::kNumber, 0};
  uint32_t width = 0;
  bool text = false;
  for (const internal::Column& c : shapes) {
    text |= IsText(c);
    width = std::max(width, TextWidth(c));
  }
  return text ? Varchar2Of(width) : shapes.front();
}

internal::Column FunctionShape(const Expr& x, const std::vector<Source>& sources) {
  const internal::Column number{"", ColType::kNumber, 0}, date{"", ColType::kDate, 0};
  const internal::Column timestamp9{"", ColType::kTimestamp, 9};
  auto text = [](double n) { return Varchar2Of(static_cast<uint64_t>(std::max(n, 0.0))); };
  auto arg = [&](size_t i) { return i < x.args.size() ? ExprShape(*x.args[i], sources) : number; };
  auto args = [&](size_t from, size_t step) {  // NULLs take no part in the type
    std::vector<internal::Column> out;
    for (size_t i = from; i < x.args.size(); i += step) {
      if (x.args[i]->kind != Expr::Kind::kNull) out.push_back(arg(i));
    }
    return out;
  };
  const std::string& f = x.text;
  if (f == "UPPER" || f == "LOWER" || f == "INITCAP" || f == "TRIM" || f == "LTRIM" ||
      f == "RTRIM" || f == "SUBSTR") {
    return Widest({arg(0), text(1)});
  }
  if (f == "LPAD" || f == "RPAD") {
    const bool literal = x.args.size() > 1 && x.args[1]->kind == Expr::Kind::kNumber;
    return text(literal ? x.args[1]->number : kMaxVarchar2);
  }
  if (f == "TO_CHAR") return text(x.args.size() == 1 && arg(0).type == ColType::kNumber ? 40 : kMaxVarchar2);
  if (f == "ADD_MONTHS" || f == "LAST_DAY" || f == "TO_DATE") return date;
  if (f == "TO_TIMESTAMP") return timestamp9;
  if (f == "TRUNC" || f == "ROUND") {  // (of a TIMESTAMP: a DATE)
    return arg(0).type == ColType::kDate || arg(0).type == ColType::kTimestamp ? date : number;
  }
  if (f == "NVL" || f == "COALESCE" || f == "GREATEST" || f == "LEAST") return Widest(args(0, 1));
  if (f == "MIN" || f == "MAX" || f == "FIRST_VALUE" || f == "LAST_VALUE" || f == "NTH_VALUE") {
    return arg(0);
  }
  if (f == "LISTAGG") return text(kMaxVarchar2);
  if (f == "LAG" || f == "LEAD") {  // LAG(x, n, default): x's type, or the default's
    return x.args.size() > 2 && x.args[2]->kind != Expr::Kind::kNull ? Widest({arg(0), arg(2)})
                                                                      : arg(0);
  }
  if (f == "DECODE") {  // DECODE(x, s1, r1, ..., [default])
    std::vector<internal::Column> results = args(2, 2);
    if (x.args.size() >= 4 && x.args.size() % 2 == 0 &&
        x.args.back()->kind != Expr::Kind::kNull) {
      results.push_back(arg(x.args.size() - 1));
    }
    return Widest(results);
  }
  if (f == "CAST" && x.args.size() >= 2) {  // CAST(x AS type[(n[, s])])
    internal::Column c{"", ColTypeNamed(x.args[1]->text), 0};
    if (x.args.size() > 2) c.length = static_cast<uint32_t>(x.args[2]->number);
    if (x.args.size() > 3) c.scale = static_cast<int32_t>(x.args[3]->number);
    if (c.type == ColType::kVarchar2 && c.length == 0) c.length = 1;
    if (c.type == ColType::kTimestamp && x.args.size() < 3) c.length = kDefaultTimestampPrecision;
    return c;
  }
  return number;
}

internal::Column ExprShape(const Expr& x, const std::vector<Source>& sources) {
  internal::Column col{"", ColType::kNumber, 0};
  switch (x.kind) {
    case Expr::Kind::kString:
      return Varchar2Of(x.text.size());
    case Expr::Kind::kColumn:
      switch (StatementConstantOf(x)) {
        case StatementConstant::kSysdate: return {"", ColType::kDate, 0};
        case StatementConstant::kSystimestamp:  // (WITH TIME ZONE: not a column type here)
        case StatementConstant::kLocaltimestamp:
          return {"", ColType::kTimestamp, kDefaultTimestampPrecision};
        case StatementConstant::kUser: return {"", ColType::kVarchar2, 128};
        case StatementConstant::kGetTime:
        case StatementConstant::kGetCpuTime:
        case StatementConstant::kNone: break;
      }
      for (const Source& src : sources) {
        for (const internal::Column& bc : src.columns) {
          if (bc.name == x.text) col = bc;  // its type and NOT NULL
        }
      }
      col.default_sql.clear();  // not its DEFAULT nor identity (as CTAS)
      col.identity = IdentityKind::kNone;
      return col;
    case Expr::Kind::kBinary: {
      if (x.args.size() != 2) return col;
      const internal::Column a = ExprShape(*x.args[0], sources), b = ExprShape(*x.args[1], sources);
      if (x.text == "||") return Varchar2Of(uint64_t{TextWidth(a)} + TextWidth(b));
      // A datetime plus or minus a number: a DATE (of a TIMESTAMP too).
      const auto datetime = [](const internal::Column& c) {
        return c.type == ColType::kDate || c.type == ColType::kTimestamp;
      };
      const bool da = datetime(a), db = datetime(b);
      if ((x.text == "+" || x.text == "-") && (da || db) && !(da && db)) {
        return {"", ColType::kDate, 0};
      }
      return col;
    }
    case Expr::Kind::kCase: {  // [x] WHEN w THEN t ... [ELSE e]
      const size_t first = x.text == "SIMPLE" ? 1 : 0;
      std::vector<const Expr*> picks;
      for (size_t i = first + 1; i < x.args.size(); i += 2) picks.push_back(x.args[i].get());
      if ((x.args.size() - first) % 2 == 1) picks.push_back(x.args.back().get());
      std::vector<internal::Column> results;
      for (const Expr* r : picks) {
        if (r->kind != Expr::Kind::kNull) results.push_back(ExprShape(*r, sources));
      }
      return Widest(results);
    }
    case Expr::Kind::kFunction:
      return FunctionShape(x, sources);
    default:
      return col;
  }
}

absl::StatusOr<std::vector<internal::Column>> ShapeOf(Ctx& c, const Select& sel) {
  std::vector<Source> sources;
  std::vector<internal::Column> cols;
  for (const FromSource& f : sel.from) {
    absl::StatusOr<Source> src = TableSource(c, f);
    if (!src.ok()) return src.status();
    sources.push_back(*std::move(src));
  }
  // An outer join's optional side may be NULL whatever its columns say.
  for (size_t i = 1; i < sources.size(); ++i) {
    const auto nullable = [](Source& src) {
      for (internal::Column& col : src.columns) col.not_null = false;
    };
    if (sel.from[i].KeepsRowsBefore()) nullable(sources[i]);
    if (sel.from[i].KeepsOwnRows()) std::for_each(sources.begin(), sources.begin() + i, nullable);
  }
  Scope shapes;
  for (const Source& src : sources) shapes.push_back(Binding{src.qualifier, &src.columns, nullptr});
  const auto add = [&](internal::Column col) {
    col.default_sql.clear();
    col.identity = IdentityKind::kNone;
    cols.push_back(std::move(col));
  };
  for (const SelectItem& it : sel.items) {
    if (it.expr->kind == Expr::Kind::kStar) {
      if (it.expr->qualifier.empty()) {  // as ExpandItems: USING columns once, first
        for (const StarColumn& sc : StarColumns(sel, shapes)) {
          add(sources[sc.binding].columns[sc.column]);
        }
        continue;
      }
      for (const Source& src : sources) {
        if (it.expr->qualifier != src.qualifier) continue;
        for (const internal::Column& col : src.columns) add(col);
      }
      continue;
    }
    internal::Column col = ExprShape(*it.expr, sources);
    col.name = it.alias.empty() ? it.heading : it.alias;
    if (it.expr->kind != Expr::Kind::kColumn) col.not_null = false;
    cols.push_back(col);
  }
  // A compound query's text columns are as long as the longest branch's.
  for (const SetOperation& op : sel.set_operations) {
    absl::StatusOr<std::vector<internal::Column>> branch = ShapeOf(c, *op.query);
    if (!branch.ok()) return branch.status();
    for (size_t i = 0; i < cols.size() && i < branch->size(); ++i) {
      const internal::Column& b = (*branch)[i];
      if (IsText(cols[i]) && IsText(b)) cols[i].length = std::max(cols[i].length, b.length);
      cols[i].not_null = cols[i].not_null && b.not_null;
    }
  }
  return cols;
}

}  // namespace

absl::StatusOr<Value> EvalIn(const Expr& expr, const std::vector<internal::Column>& cols,
                             const Row& row, const std::string& qualifier,
                             const std::vector<internal::Column>* cols2, const Row* row2,
                             const std::string& qualifier2, const StatementEnv& stmt,
                             uint64_t rownum) {
  Scope scope{Binding{qualifier, &cols, &row}};
  if (cols2 != nullptr) scope.push_back(Binding{qualifier2, cols2, row2});
  return Eval(expr, scope, EvalEnv{.stmt = stmt, .rownum = rownum});
}

StatementEnv StatementEnvOf(const Session::State& s, SequenceDraw* sequences) {
  // GET_TIME is Oracle's number of hundredths since an arbitrary point,
  // wrapping within a PLS_INTEGER.
  const auto time_cs = static_cast<int64_t>((s.db->clock->NowNanos() / 10'000'000) % 2'147'483'648);
  return StatementEnv{.sid = s.sid,
                      .now_unix_us = s.db->clock->UnixMicros(),
                      .time_cs = time_cs,
                      .subqueries = nullptr,
                      .sequences = sequences};
}

absl::Status RunSubqueries(DataEngine& e, Session::State& s, SessionData& sd, Recorder& rec,
                           const std::vector<const Expr*>& roots, StatementEnv* env,
                           const DmlTarget* target) {
  Ctx c{e, s, sd, rec, EvalEnv{*env}};
  c.e.mu.AssertHeld();  // c.e is e, whose mu the caller holds
  Scope holder;
  if (target != nullptr) holder.push_back(Binding{target->qualifier, &target->table.columns, nullptr});
  if (absl::Status st = AddSubqueryRows(c, roots, target != nullptr ? &holder : nullptr,
                                        target != nullptr ? &target->table.name : nullptr);
      !st.ok()) {
    return st;
  }
  *env = c.env.stmt;
  return absl::OkStatus();
}

}  // namespace cellsim::db::internal
