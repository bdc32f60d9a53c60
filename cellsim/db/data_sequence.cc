// Sequences (docs/sql.md "Sequences"): CREATE / ALTER / DROP SEQUENCE, where
// NEXTVAL and CURRVAL may appear, and the draw of a value: the cache and its
// highwater in the dictionary (SequenceDef in data_engine.h).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "cellsim/db/data_engine.h"
#include "cellsim/db/data_views.h"

namespace cellsim::db::internal {
namespace {

// Oracle's NOMAXVALUE and NOMINVALUE, as its views list them.
constexpr double kOracleNoMax = 9999999999999999999999999999.0;
constexpr double kOracleNoMin = -999999999999999999999999999.0;

std::string SequenceText(const Expr& e) { return fmt::format("{}.{}", e.qualifier, e.text); }

const Expr* FindSequenceInSelect(const Select& sel, bool items = true);

// The first s.NEXTVAL / s.CURRVAL in `e`, in its subqueries too when `deep`.
const Expr* FindSequence(const Expr* e, bool deep) {
  if (e == nullptr) return nullptr;
  const Expr* in_subquery = nullptr;
  const Expr* found = FindExprNode(*e, [&](const Expr& n) {
    if (deep && n.subquery) in_subquery = FindSequenceInSelect(*n.subquery);
    return n.kind == Expr::Kind::kSequence || in_subquery != nullptr;
  });
  return in_subquery != nullptr ? in_subquery : found;
}

// The first in `sel`, its select list left out when `items` is false.
const Expr* FindSequenceInSelect(const Select& sel, bool items) {
  std::vector<const Expr*> roots = {sel.where.get(), sel.having.get()};
  for (const SelectItem& it : sel.items) {
    if (items) roots.push_back(it.expr.get());
  }
  for (const ExprPtr& g : sel.group_by) roots.push_back(g.get());
  for (const OrderItem& o : sel.order_by) roots.push_back(o.expr.get());
  for (const FromSource& f : sel.from) {
    roots.push_back(f.on.get());
    if (f.subquery) {
      if (const Expr* s = FindSequenceInSelect(*f.subquery)) return s;
    }
  }
  for (const Expr* r : roots) {
    if (const Expr* s = FindSequence(r, true)) return s;
  }
  for (const SetOperation& op : sel.set_operations) {
    if (const Expr* s = FindSequenceInSelect(*op.query)) return s;
  }
  return nullptr;
}

absl::Status NotAllowed(const Expr& s, std::string_view where) {
  return absl::InvalidArgumentError(fmt::format(
      "ORA-02287: sequence number not allowed here ({} {})", SequenceText(s), where));
}

bool AnyAggregate(const Expr& e) {
  if (e.kind == Expr::Kind::kFunction && IsAggregateFunction(e.text)) return true;
  return std::any_of(e.args.begin(), e.args.end(), [](const ExprPtr& a) { return AnyAggregate(*a); });
}

// The first s.NEXTVAL / s.CURRVAL inside a subquery of `e`.
const Expr* FindInSubqueries(const Expr* e) {
  if (e == nullptr) return nullptr;
  if (e->subquery) {
    if (const Expr* s = FindSequenceInSelect(*e->subquery)) return s;
  }
  for (const ExprPtr& a : e->args) {
    if (const Expr* s = FindInSubqueries(a.get())) return s;
  }
  return nullptr;
}

// An expression that may draw itself (VALUES, SET) but not in its subqueries.
absl::Status CheckValue(const Expr* e) {
  if (const Expr* s = FindInSubqueries(e)) return NotAllowed(*s, "in a subquery");
  return absl::OkStatus();
}

// A query whose select list may draw: the top level of a SELECT, of an
// INSERT ... SELECT or of a CREATE TABLE ... AS SELECT. Its other clauses
// and its subqueries may not.
absl::Status CheckTopQuery(const Select& sel) {
  const bool aggregate = std::any_of(sel.items.begin(), sel.items.end(),
                                     [](const SelectItem& it) { return AnyAggregate(*it.expr); });
  const char* why = sel.distinct                  ? "in a query with DISTINCT"
                    : !sel.group_by.empty()       ? "in a query with GROUP BY"
                    : sel.having                  ? "in a query with HAVING"
                    : aggregate                   ? "in a query with an aggregate"
                    : !sel.order_by.empty()       ? "in a query with ORDER BY"
                    : !sel.set_operations.empty() ? "in a compound query (UNION, INTERSECT, MINUS)"
                                                  : nullptr;
  for (const SelectItem& it : sel.items) {
    if (const Expr* s = FindSequence(it.expr.get(), false); s != nullptr && why != nullptr) {
      return NotAllowed(*s, why);
    }
    if (absl::Status st = CheckValue(it.expr.get()); !st.ok()) return st;
  }
  if (const Expr* s = FindSequence(sel.where.get(), true)) return NotAllowed(*s, "in a WHERE clause");
  if (const Expr* s = FindSequenceInSelect(sel, /*items=*/false)) {  // every other clause
    return NotAllowed(*s, "in a query's FROM, GROUP BY, HAVING or ORDER BY, or a compound query's "
                          "other branch");
  }
  return absl::OkStatus();
}

absl::Status Nowhere(const Expr* e, std::string_view where) {
  if (const Expr* s = FindSequence(e, true)) return NotAllowed(*s, where);
  return absl::OkStatus();
}

absl::Status CheckInsert(const Insert& x) {
  for (const ExprPtr& v : x.values) {
    if (absl::Status st = CheckValue(v.get()); !st.ok()) return st;
  }
  for (const InsertWhen& w : x.multitable) {
    if (absl::Status st = Nowhere(w.when.get(), "in a multitable INSERT's WHEN"); !st.ok()) return st;
    for (const InsertInto& into : w.into) {
      for (const ExprPtr& v : into.values) {
        if (absl::Status st = CheckValue(v.get()); !st.ok()) return st;
      }
    }
  }
  if (!x.multitable.empty()) {  // Oracle: a multitable INSERT's subquery draws none
    if (const Expr* s = FindSequenceInSelect(*x.select)) {
      return NotAllowed(*s, "in a multitable INSERT's subquery");
    }
    return absl::OkStatus();
  }
  return x.select ? CheckTopQuery(*x.select) : absl::OkStatus();
}

absl::Status CheckAssignments(const std::vector<Assignment>& set) {
  for (const Assignment& a : set) {
    if (absl::Status st = CheckValue(a.value.get()); !st.ok()) return st;
  }
  return absl::OkStatus();
}

absl::Status CheckMerge(const Merge& m) {
  if (absl::Status st = Nowhere(m.on.get(), "in MERGE's ON condition"); !st.ok()) return st;
  if (const Expr* s = FindSequenceInSelect(*m.using_select)) return NotAllowed(*s, "in MERGE's USING query");
  if (absl::Status st = CheckAssignments(m.matched_update); !st.ok()) return st;
  for (const ExprPtr& v : m.insert_values) {
    if (absl::Status st = CheckValue(v.get()); !st.ok()) return st;
  }
  return absl::OkStatus();
}

void CollectNextval(const Expr* e, std::set<std::string>* out) {
  if (e == nullptr) return;
  FindExprNode(*e, [&](const Expr& n) {
    if (n.kind == Expr::Kind::kSequence && n.text == "NEXTVAL") out->insert(n.qualifier);
    return false;
  });
}

// ---- drawing ----

bool Ascending(const SequenceDef& q) { return q.increment > 0; }

bool InRange(const SequenceDef& q, int64_t v) { return v >= q.min_value && v <= q.max_value; }

// How many values from `from` on the sequence gives before passing its bound.
int64_t ValuesLeft(const SequenceDef& q, int64_t from) {
  if (!InRange(q, from)) return 0;
  return Ascending(q) ? (q.max_value - from) / q.increment + 1
                      : (from - q.min_value) / -q.increment + 1;
}

absl::StatusOr<int64_t> DrawNext(DataEngine& e, SequenceDef& q) ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu) {
  if (q.cached == 0) {
    const SequenceDef before = q;
    if (!InRange(q, q.next)) {
      if (!q.cycle) {
        return absl::OutOfRangeError(fmt::format(
            "ORA-08004: sequence {}.NEXTVAL {} and cannot be instantiated (its last value was {}; "
            "ALTER SEQUENCE {} MAXVALUE / MINVALUE / CYCLE, or RESTART)",
            q.name, Ascending(q) ? "exceeds MAXVALUE" : "goes below MINVALUE",
            q.next - q.increment, q.name));
      }
      q.next = Ascending(q) ? q.min_value : q.max_value;
    }
    // Oracle's recursive transaction: the new highwater is in the dictionary
    // before any value it covers is handed out.
    const int64_t n = std::min(std::max<int64_t>(q.cache, 1), ValuesLeft(q, q.next));
    q.highwater = q.next + n * q.increment;
    if (absl::Status st = e.WriteDictionaryOr([&] { q = before; }); !st.ok()) {
      return absl::Status(st.code(), fmt::format("{}.NEXTVAL: the sequence's new highwater could not "
                                                 "be recorded: {}",
                                                 q.name, std::string(st.message())));
    }
    q.cached = n;
  }
  const int64_t v = q.next;
  q.next += q.increment;
  --q.cached;
  return v;
}

// ---- DDL ----

absl::Status SequenceError(std::string_view ora) { return absl::InvalidArgumentError(std::string(ora)); }

// A sequence's settings from `o` over `base` (CREATE: the defaults), checked
// as Oracle checks them.
absl::StatusOr<SequenceDef> Settle(const SequenceOptions& o, SequenceDef q) {
  if (o.increment_by) {
    if (*o.increment_by == 0) return SequenceError("ORA-04002: INCREMENT must be a non-zero integer");
    if (*o.increment_by >= kSequenceLimit || *o.increment_by <= -kSequenceLimit) {
      return SequenceError(fmt::format(
          "ORA-04005: INCREMENT {} is beyond the {} cellsim's sequence values hold exactly",
          *o.increment_by, kSequenceLimit));
    }
    q.increment = *o.increment_by;
  }
  const bool asc = q.increment > 0;
  auto clamp = [](int64_t v) { return std::clamp(v, -kSequenceLimit, kSequenceLimit); };
  if (o.max_value) q.max_value = clamp(*o.max_value);
  if (o.min_value) q.min_value = clamp(*o.min_value);
  if (o.no_max_value || (!o.alter && !o.max_value)) q.max_value = asc ? kSequenceLimit : -1;
  if (o.no_min_value || (!o.alter && !o.min_value)) q.min_value = asc ? 1 : -kSequenceLimit;
  if (o.cycle) q.cycle = *o.cycle;
  if (o.order) q.order = *o.order;
  if (o.cache) q.cache = *o.cache;
  if (q.min_value >= q.max_value) return SequenceError("ORA-04004: MINVALUE must be less than MAXVALUE");
  if (static_cast<double>(std::abs(q.increment)) >=
      static_cast<double>(q.max_value) - static_cast<double>(q.min_value)) {
    return SequenceError("ORA-04005: INCREMENT must be less than MAXVALUE minus MINVALUE");
  }
  if (q.cache == 1 || q.cache < 0) {
    return SequenceError(fmt::format(
        "ORA-04010: the number of values to CACHE must be greater than 1 (CACHE {}; NOCACHE keeps "
        "none)", q.cache));
  }
  // Oracle's rule: CACHE at most CEIL((MAXVALUE - MINVALUE) / ABS(INCREMENT)).
  const double span = static_cast<double>(q.max_value) - static_cast<double>(q.min_value);
  const double limit = std::ceil(span / static_cast<double>(std::abs(q.increment)));
  if (q.cycle && static_cast<double>(q.cache) > limit) {
    return SequenceError(fmt::format(
        "ORA-04013: number to CACHE must be less than one cycle (CACHE {}; a cycle of {} values "
        "takes at most CACHE {})",
        q.cache, std::floor(span / static_cast<double>(std::abs(q.increment))) + 1, limit));
  }
  return q;
}

absl::Status CheckStart(int64_t start, const SequenceDef& q) {
  if (start < q.min_value) return SequenceError("ORA-04006: START WITH cannot be less than MINVALUE");
  if (start > q.max_value) return SequenceError("ORA-04008: START WITH cannot be more than MAXVALUE");
  return absl::OkStatus();
}

// A new sequence called `name` from `o`, checked (not yet in the engine).
absl::StatusOr<SequenceDef> NewSequence(const std::string& name, const SequenceOptions& o) {
  absl::StatusOr<SequenceDef> q = Settle(o, SequenceDef{});
  if (!q.ok()) return q.status();
  if (o.start_with && (*o.start_with >= kSequenceLimit || *o.start_with <= -kSequenceLimit)) {
    return SequenceError(fmt::format("START WITH {} is beyond the {} cellsim's sequence values hold "
                                     "exactly", *o.start_with, kSequenceLimit));
  }
  const int64_t start = o.start_with.value_or(q->increment > 0 ? q->min_value : q->max_value);
  if (absl::Status st = CheckStart(start, *q); !st.ok()) return st;
  q->name = name;
  q->start = q->highwater = q->next = start;
  return q;
}

constexpr std::string_view kIdentityPrefix = "ISEQ$$_";

// ORA-32793 / ORA-32794: an identity column's sequence is the table's.
absl::Status CheckNotIdentitySequence(const std::string& name, bool drop) {
  if (!name.starts_with(kIdentityPrefix)) return absl::OkStatus();
  return absl::FailedPreconditionError(fmt::format(
      "{} ({}: an identity column's; {})", drop ? "ORA-32794: cannot drop a system-generated sequence"
                                               : "ORA-32793: cannot alter a system-generated sequence",
      name, drop ? "DROP TABLE drops it" : "its column's options are fixed at CREATE TABLE"));
}

absl::Status CreateSequenceRun(DataEngine& e, SessionData& sd, Recorder& rec,
                               const SequenceOptions& o, DataOutcome* out)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu) {
  if (absl::Status st = CheckNameFree(e, o.name); !st.ok()) return st;
  absl::StatusOr<SequenceDef> q = NewSequence(o.name, o);
  if (!q.ok()) return q.status();
  // DDL commits the session's transaction first.
  if (absl::Status st = e.Commit(rec, sd); !st.ok()) return st;
  DataEngine::DictionaryState before = e.BeginDdl();
  q->object_id = e.next_object_id++;
  e.sequences.emplace(o.name, *q);
  if (absl::Status st = e.WriteDictionaryOrRestore(std::move(before)); !st.ok()) return st;
  out->feedback = "Sequence created.";
  return absl::OkStatus();
}

absl::StatusOr<SequenceDef*> FindSequenceNamed(DataEngine& e, const std::string& name)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu) {
  auto it = e.sequences.find(name);
  if (it == e.sequences.end()) {
    return absl::NotFoundError(fmt::format("ORA-02289: sequence does not exist ({})", name));
  }
  return &it->second;
}

absl::Status AlterSequenceRun(DataEngine& e, SessionData& sd, Recorder& rec,
                              const SequenceOptions& o, DataOutcome* out)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu) {
  absl::StatusOr<SequenceDef*> found = FindSequenceNamed(e, o.name);
  if (!found.ok()) return found.status();
  if (absl::Status st = CheckNotIdentitySequence(o.name, false); !st.ok()) return st;
  SequenceDef& q = **found;
  absl::StatusOr<SequenceDef> changed = Settle(o, q);
  if (!changed.ok()) return changed.status();
  // The value the sequence is at: its last one handed out (none yet: its start).
  const int64_t current = q.next - q.increment;
  int64_t next = q.next;
  if (o.restart) {
    next = o.start_with.value_or(changed->increment > 0 ? changed->min_value : changed->max_value);
    if (absl::Status st = CheckStart(next, *changed); !st.ok()) return st;
  } else if (changed->increment > 0 && changed->max_value < current) {
    return SequenceError(fmt::format(
        "ORA-04009: MAXVALUE cannot be made to be less than the current value ({})", current));
  } else if (changed->increment < 0 && changed->min_value > current) {
    return SequenceError(fmt::format(
        "ORA-04007: MINVALUE cannot be made to exceed the current value ({})", current));
  } else {
    next = current + changed->increment;
  }
  if (absl::Status st = e.Commit(rec, sd); !st.ok()) return st;
  const SequenceDef before = q;
  q = *changed;
  if (o.restart) q.start = next;
  q.next = q.highwater = next;  // the cache is dropped: the next draw records its highwater
  q.cached = 0;
  if (absl::Status st = e.WriteDictionaryOr([&] { q = before; }); !st.ok()) return st;
  out->feedback = "Sequence altered.";
  return absl::OkStatus();
}

absl::Status DropSequenceRun(DataEngine& e, SessionData& sd, Recorder& rec, const DropSequence& d,
                             DataOutcome* out) ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu) {
  absl::StatusOr<SequenceDef*> found = FindSequenceNamed(e, d.name);
  if (!found.ok()) return found.status();
  if (absl::Status st = CheckNotIdentitySequence(d.name, true); !st.ok()) return st;
  if (absl::Status st = e.Commit(rec, sd); !st.ok()) return st;
  const SequenceDef before = **found;
  e.sequences.erase(d.name);
  if (absl::Status st = e.WriteDictionaryOr([&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu) {
        e.sequences.emplace(d.name, before);
      }); !st.ok()) {
    return st;
  }
  out->feedback = "Sequence dropped.";
  return absl::OkStatus();
}

}  // namespace

bool HasSequence(const Expr& e) { return FindSequence(&e, false) != nullptr; }

absl::StatusOr<std::string> AddIdentitySequence(DataEngine& e, uint32_t table_object_id,
                                                const SequenceOptions& options) {
  const std::string name = fmt::format("{}{}", kIdentityPrefix, table_object_id);
  if (absl::Status st = CheckNameFree(e, name); !st.ok()) return st;
  absl::StatusOr<SequenceDef> q = NewSequence(name, options);
  if (!q.ok()) return q.status();
  q->object_id = e.next_object_id++;
  e.sequences.emplace(name, *q);
  return fmt::format("\"{}\".nextval", name);
}

std::string IdentitySequenceOf(const Column& c) {
  if (c.identity == IdentityKind::kNone) return "";
  absl::StatusOr<ExprPtr> x = ParseDataExpression(c.default_sql);
  return x.ok() && (*x)->kind == Expr::Kind::kSequence ? (*x)->qualifier : "";
}

absl::Status CheckSequencePlacement(const DataStatement& st, std::set<std::string>* nextval) {
  absl::Status status;
  if (const auto* x = std::get_if<Select>(&st)) status = CheckTopQuery(*x);
  else if (const auto* x = std::get_if<Insert>(&st)) status = CheckInsert(*x);
  else if (const auto* x = std::get_if<Merge>(&st)) status = CheckMerge(*x);
  else if (const auto* x = std::get_if<Update>(&st)) {
    status = Nowhere(x->where.get(), "in a WHERE clause");
    if (status.ok()) status = CheckAssignments(x->set);
  } else if (const auto* x = std::get_if<Delete>(&st)) {
    status = Nowhere(x->where.get(), "in a DELETE");
  } else if (const auto* x = std::get_if<CreateTable>(&st)) {
    if (x->as_select) status = CheckTopQuery(*x->as_select);
  } else if (const auto* x = std::get_if<CreateView>(&st)) {
    if (const Expr* q = FindSequenceInSelect(*x->query)) status = NotAllowed(*q, "in a view");
  }
  if (!status.ok() || nextval == nullptr) return status;
  // CURRVAL in a statement that also draws NEXTVAL of the same sequence is
  // that row's NEXTVAL, wherever it stands (Oracle).
  std::vector<const Expr*> roots;
  auto items = [&](const Select& s) {
    for (const SelectItem& it : s.items) roots.push_back(it.expr.get());
  };
  if (const auto* x = std::get_if<Select>(&st)) items(*x);
  if (const auto* x = std::get_if<Insert>(&st)) {
    for (const ExprPtr& v : x->values) roots.push_back(v.get());
    for (const InsertWhen& w : x->multitable) {
      for (const InsertInto& into : w.into) {
        for (const ExprPtr& v : into.values) roots.push_back(v.get());
      }
    }
    if (x->select) items(*x->select);
  }
  if (const auto* x = std::get_if<Update>(&st)) {
    for (const Assignment& a : x->set) roots.push_back(a.value.get());
  }
  if (const auto* x = std::get_if<Merge>(&st)) {
    for (const Assignment& a : x->matched_update) roots.push_back(a.value.get());
    for (const ExprPtr& v : x->insert_values) roots.push_back(v.get());
  }
  if (const auto* x = std::get_if<CreateTable>(&st); x != nullptr && x->as_select) items(*x->as_select);
  for (const Expr* r : roots) CollectNextval(r, nextval);
  return absl::OkStatus();
}

absl::Status CheckNameFree(DataEngine& e, const std::string& name) {
  if (e.tables.count(name) != 0 || FindIndexNamed(e, name, nullptr) != nullptr ||
      e.sequences.count(name) != 0 || e.views.count(name) != 0) {
    return absl::AlreadyExistsError(
        fmt::format("ORA-00955: name is already used by an existing object ({})", name));
  }
  return absl::OkStatus();
}

absl::StatusOr<Value> SequenceDraw::Get(const Expr& x) {
  e_.mu.AssertHeld();  // the statement's caller holds it (see the class comment)
  absl::StatusOr<SequenceDef*> found = FindSequenceNamed(e_, x.qualifier);
  if (!found.ok()) return found.status();
  SequenceDef& q = **found;
  if (auto r = row_.find(q.object_id); r != row_.end()) return Value::Num(static_cast<double>(r->second));
  if (x.text == "CURRVAL" && nextval_.count(q.name) == 0) {
    auto c = sd_.currval.find(q.object_id);
    if (c == sd_.currval.end()) {
      return absl::FailedPreconditionError(fmt::format(
          "ORA-08002: sequence {}.CURRVAL is not yet defined in this session (draw {}.NEXTVAL "
          "first)", q.name, q.name));
    }
    return Value::Num(static_cast<double>(c->second));
  }
  absl::StatusOr<int64_t> v = DrawNext(e_, q);
  if (!v.ok()) return v.status();
  row_[q.object_id] = *v;
  sd_.currval[q.object_id] = *v;
  return Value::Num(static_cast<double>(*v));
}

bool RunSequenceDdl(DataEngine& e, SessionData& sd, Recorder& rec, const DataStatement& st,
                    DataOutcome* out, absl::Status* status) {
  if (const auto* x = std::get_if<SequenceOptions>(&st)) {
    *status = x->alter ? AlterSequenceRun(e, sd, rec, *x, out) : CreateSequenceRun(e, sd, rec, *x, out);
    return true;
  }
  if (const auto* x = std::get_if<DropSequence>(&st)) {
    *status = DropSequenceRun(e, sd, rec, *x, out);
    return true;
  }
  return false;
}

std::vector<Row> SequenceRows(DataEngine& e) {
  std::vector<Row> rows;
  for (const auto& [name, q] : e.sequences) {
    const double max = q.max_value >= kSequenceLimit ? kOracleNoMax : static_cast<double>(q.max_value);
    const double min = q.min_value <= -kSequenceLimit ? kOracleNoMin : static_cast<double>(q.min_value);
    rows.push_back({Value::Str("CELLSIM"), Value::Str(name), Value::Num(min), Value::Num(max),
                    Value::Num(static_cast<double>(q.increment)), Value::Str(q.cycle ? "Y" : "N"),
                    Value::Str(q.order ? "Y" : "N"), Value::Num(static_cast<double>(q.cache)),
                    Value::Num(static_cast<double>(q.highwater))});
  }
  return rows;
}

std::string IdentityOptionsText(DataEngine& e, const std::string& name) {
  auto it = e.sequences.find(name);
  if (it == e.sequences.end()) return "";
  const SequenceDef& q = it->second;
  auto bound = [](int64_t v, const char* oracle) {
    return std::abs(v) >= kSequenceLimit ? std::string(oracle) : fmt::format("{}", v);
  };
  return fmt::format(
      "START WITH: {}, INCREMENT BY: {}, MAX_VALUE: {}, MIN_VALUE: {}, CYCLE_FLAG: {}, "
      "CACHE_SIZE: {}, ORDER_FLAG: {}",
      q.start, q.increment, bound(q.max_value, "9999999999999999999999999999"),
      bound(q.min_value, "-999999999999999999999999999"),
      q.cycle ? "Y" : "N", q.cache, q.order ? "Y" : "N");
}

void SettleSequences(DataEngine& e) {
  for (auto& [name, q] : e.sequences) {
    q.highwater = q.next;
    q.cached = 0;
  }
}

}  // namespace cellsim::db::internal
