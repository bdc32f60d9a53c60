// CREATE [OR REPLACE] [[NO]FORCE] VIEW and DROP VIEW. A view is its query's
// text in the dictionary (format 6), parsed and run where a statement names
// it (data_exec.cc, RunView); {USER,ALL,DBA}_VIEWS list them. Every cellsim
// view is read-only (docs/sql.md "Views").
#include <string>
#include <vector>

#include "cellsim/db/data_engine.h"
#include "cellsim/db/data_views.h"
#include "fmt/format.h"

namespace cellsim::db::internal {
namespace {

// Oracle's ORA-00998: without a column list, each column of a view is named
// by its alias or by the column it is.
absl::Status CheckColumnsNamed(const CreateView& v) {
  if (!v.columns.empty()) return absl::OkStatus();
  for (const SelectItem& it : v.query->items) {
    const Expr::Kind k = it.expr->kind;
    if (it.alias.empty() && k != Expr::Kind::kColumn && k != Expr::Kind::kStar) {
      return absl::InvalidArgumentError(fmt::format(
          "ORA-00998: must name this expression with a column alias ({} in view {})", it.heading,
          v.name));
    }
  }
  return absl::OkStatus();
}

// The names `sel` reads from (FROM, its subqueries' and its branches' too).
void CollectSourceNames(const Select& sel, std::vector<std::string>* names) {
  for (const FromSource& f : sel.from) {
    if (f.subquery) CollectSourceNames(*f.subquery, names);
    else names->push_back(f.table);
  }
  for (const SetOperation& op : sel.set_operations) CollectSourceNames(*op.query, names);
  std::vector<const Expr*> roots = {sel.where.get(), sel.having.get()};
  for (const SelectItem& it : sel.items) roots.push_back(it.expr.get());
  for (const Expr* r : roots) {
    if (r == nullptr) continue;
    (void)FindExprNode(*r, [&](const Expr& n) {
      if (n.subquery) CollectSourceNames(*n.subquery, names);
      return false;
    });
  }
}

// The dictionary and dynamic performance views every schema sees.
bool IsSystemViewName(const std::string& n) {
  return n == "DUAL" || n == "TAB" || n == "CAT" || n.starts_with("V$") || n.starts_with("USER_") ||
         n.starts_with("ALL_") || n.starts_with("DBA_");
}

}  // namespace

bool ViewIsValid(const DataEngine& e, const ViewDef& v) {
  absl::StatusOr<DataStatement> st = ParseDataStatement(v.text);
  const Select* sel = st.ok() ? std::get_if<Select>(&*st) : nullptr;
  if (sel == nullptr) return false;
  std::vector<std::string> names;
  CollectSourceNames(*sel, &names);
  for (const std::string& n : names) {
    if (e.tables.count(n) == 0 && e.views.count(n) == 0 && !IsSystemViewName(n)) return false;
  }
  return true;
}

absl::Status CreateViewRun(DataEngine& e, Session::State& s, SessionData& sd, Recorder& rec,
                           const StatementEnv& env, const CreateView& v, DataOutcome* out) {
  auto existing = e.views.find(v.name);
  const bool replace = existing != e.views.end() && v.or_replace;
  if (!replace) {
    if (absl::Status st = CheckNameFree(e, v.name); !st.ok()) return st;
  }
  if (absl::Status st = CheckColumnsNamed(v); !st.ok()) return st;
  // DDL commits the session's transaction first.
  if (absl::Status st = e.Commit(rec, sd); !st.ok()) return st;
  DataEngine::DictionaryState before = e.BeginDdl();
  ViewDef def;
  def.name = v.name;
  def.object_id = replace ? existing->second.object_id : e.next_object_id++;  // kept by OR REPLACE
  def.columns = v.columns;
  def.text = v.text;
  def.read_only = v.read_only;
  e.views[v.name] = def;
  // Oracle compiles the view; cellsim runs its query once, the new
  // definition in place (so a loop through other views is found).
  absl::StatusOr<ViewRows> rows = RunView(e, s, sd, rec, env, def);
  if (!rows.ok() && !v.force) return e.FailDdl(rows.status(), std::move(before), &sd);
  if (absl::Status st = e.WriteDictionaryOrRestore(std::move(before)); !st.ok()) return st;
  out->feedback = rows.ok() ? "View created."
                            : fmt::format("Warning: View created with compilation errors ({}).",
                                          std::string(rows.status().message()));
  return absl::OkStatus();
}

absl::Status DropViewRun(DataEngine& e, SessionData& sd, Recorder& rec, const DropView& v,
                         DataOutcome* out) {
  if (e.views.count(v.name) == 0) {
    return absl::NotFoundError(fmt::format("ORA-00942: table or view \"{}\" does not exist", v.name));
  }
  if (absl::Status st = e.Commit(rec, sd); !st.ok()) return st;
  DataEngine::DictionaryState before = e.BeginDdl();
  e.views.erase(v.name);
  if (absl::Status st = e.WriteDictionaryOrRestore(std::move(before)); !st.ok()) return st;
  out->feedback = "View dropped.";
  return absl::OkStatus();
}

absl::Status RefuseViewDml(const DataEngine& e, const std::string& name) {
  auto it = e.views.find(name);
  if (it == e.views.end()) return absl::OkStatus();
  if (it->second.read_only) {
    return absl::FailedPreconditionError(fmt::format(
        "ORA-42399: cannot perform a DML operation on a read-only view ({})", name));
  }
  return absl::FailedPreconditionError(fmt::format(
      "ORA-01732: data manipulation operation not legal on this view ({}: cellsim's views are "
      "read-only; change the tables it selects from)", name));
}

ViewRows ViewDefinitionRows(const DataEngine& e, const std::string& name) {
  ViewRows r;
  const bool owner = !name.starts_with("USER_");
  if (owner) r.columns.push_back({"OWNER", ColType::kVarchar2, 128});
  for (Column c : {Column{"VIEW_NAME", ColType::kVarchar2, 128}, Column{"TEXT_LENGTH", ColType::kNumber, 0},
                   Column{"TEXT", ColType::kVarchar2, 4000}, Column{"READ_ONLY", ColType::kVarchar2, 1}}) {
    r.columns.push_back(std::move(c));
  }
  for (const auto& [vname, v] : e.views) {
    Row row;
    if (owner) row.push_back(Value::Str("CELLSIM"));
    row.push_back(Value::Str(vname));
    row.push_back(Value::Num(static_cast<double>(v.text.size())));
    row.push_back(Value::Str(v.text.substr(0, 4000)));
    row.push_back(Value::Str(v.read_only ? "Y" : "N"));
    r.rows.push_back(std::move(row));
  }
  return r;
}

}  // namespace cellsim::db::internal
