// Private: the V$ views of the data engine (docs/redo.md "Views"), and the
// helpers the DML code shares with the query code (data_exec.cc).
#ifndef CELLSIM_DB_DATA_VIEWS_H_
#define CELLSIM_DB_DATA_VIEWS_H_

#include <functional>
#include <optional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "cellsim/db/data_engine.h"

namespace cellsim::db::internal {

struct ViewRows {
  std::vector<Column> columns;
  std::vector<Row> rows;
};

// A view's column of numbers, text or dates.
namespace view_columns {
inline Column N(const char* name) { return {name, ColType::kNumber, 0}; }
inline Column S(const char* name) { return {name, ColType::kVarchar2, 64}; }
inline Column D(const char* name) { return {name, ColType::kDate, 0}; }
// Oracle's wait and file views count time in hundredths of a second,
// truncated, or in microseconds.
inline Value Centis(uint64_t ns) { return Value::Num(static_cast<double>(ns / 10'000'000)); }
inline Value Micros(uint64_t ns) { return Value::Num(static_cast<double>(ns / 1000)); }
}  // namespace view_columns

// V$SESSION.SERIAL# of every session: an instance never gives a SID to a
// second session, so no SID is ever reused and each stays at serial 1.
inline constexpr int kSessionSerial = 1;

// The instance's views (data_instance_views.cc): V$SESSION_EVENT,
// V$SYSTEM_EVENT, V$SESSION_WAIT_CLASS, V$SYSTEM_WAIT_CLASS,
// V$EVENT_HISTOGRAM_MICRO, V$VERSION, V$INSTANCE, V$CONTROLFILE,
// V$ASM_DISKGROUP, V$ASM_DISK, V$ASM_FILE, V$ASM_TEMPLATE, X$KFFXP, V$SQL, V$SQLAREA;
// nullopt for another name.
std::optional<ViewRows> InstanceView(DataEngine& e, const std::string& name)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu);

// V$MYSTAT, V$SESSTAT, V$SYSSTAT, V$STATNAME, V$PARAMETER, V$TRANSACTION, V$LOCK,
// V$UNDOSTAT, V$TEMPUNDOSTAT, V$TEMPSEG_USAGE, V$LOG, V$LOGFILE, V$LOG_HISTORY, V$SESSION,
// V$CELL, V$EVENT_NAME, V$SESSION_WAIT_HISTORY, V$SESSION_WAIT,
// V$TABLESPACE, DBA_TABLESPACES, V$DATAFILE, DBA_DATA_FILES (these four copy the
// file table under Database::State::mu: the engine lock is taken before it),
// the dictionary views, V$ARCHIVED_LOG, V$DATABASE and InstanceView's;
// nullopt for another name.
std::optional<ViewRows> BuildView(DataEngine& e, SessionData& sd, const std::string& name)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu);

// One initialization parameter, as V$PARAMETER and SHOW PARAMETER show it.
struct Parameter {
  // V$PARAMETER.TYPE's numbers.
  enum class Type { kBoolean = 1, kString = 2, kInteger = 3, kBigInteger = 6 };
  std::string name;
  Type type = Type::kString;
  std::string value;  // "" shows as NULL (an unset DB_RECOVERY_FILE_DEST)
  // What cellsim lets ALTER SESSION / ALTER SYSTEM change (not always
  // what Oracle lets change: cellsim shows a value it cannot change as such).
  bool session_modifiable = false;
  bool system_modifiable = false;
  bool is_default = true;
};
// SHOW PARAMETER's type name ("big integer").
std::string_view ParameterTypeName(Parameter::Type t);
// Every parameter cellsim has, by name, with this session's values
// (temp_undo_enabled as it set it); takes Database::State::mu inside.
std::vector<Parameter> Parameters(DataEngine& e, SessionData& sd)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu);

std::string CountWithCommas(int64_t n);

class ValueSet;  // join_index.h
// The first column of a subquery's rows; for an IN (SELECT ...) of more
// than a few rows, also as a ValueSet for `x IN` to look x up.
struct SubqueryResult {
  std::vector<Value> values;
  std::shared_ptr<const ValueSet> in_set;  // over `values` (null: compare with each)
  SubqueryResult() = default;
  SubqueryResult(const SubqueryResult&) = delete;  // in_set points into `values`
  SubqueryResult& operator=(const SubqueryResult&) = delete;
};
// The subqueries a statement's expressions hold (a scalar subquery, an IN
// (SELECT ...), EXISTS), run once before the rows are. Shared, so that the
// map a query's subqueries extend (a correlated subquery's, for each row
// around it) copies pointers, not the values.
using SubqueryRows = std::unordered_map<const Expr*, std::shared_ptr<const SubqueryResult>>;
// The correlated subqueries of a statement, run for each row (data_exec.cc).
struct CorrelatedSubqueries;

struct StatementEnv {
  uint32_t sid = 0;
  int64_t now_unix_us = 0;  // SYSTIMESTAMP's instant, to the microsecond
  // SYSDATE's: the same instant, to the second.
  int64_t sysdate_unix() const {
    return now_unix_us >= 0 ? now_unix_us / 1'000'000 : (now_unix_us - 999'999) / 1'000'000;
  }
  int64_t time_cs = 0;  // DBMS_UTILITY.GET_TIME: hundredths of a second, by the clock
  std::shared_ptr<const SubqueryRows> subqueries;
  SequenceDraw* sequences = nullptr;  // NEXTVAL / CURRVAL (null: ORA-02287)
  std::shared_ptr<const CorrelatedSubqueries> correlated{};
};
StatementEnv StatementEnvOf(const Session::State& s, SequenceDraw* sequences = nullptr);
// A row's NEXTVAL draws afresh from here on (where rows are produced).
inline void BeginSequenceRow(const StatementEnv& env) {
  if (env.sequences != nullptr) env.sequences->BeginRow();
}

// Query helpers of data_exec.cc (`stmt`: the statement they serve, whose
// SYSDATE they see).
[[nodiscard]] absl::Status ScanSelect(DataEngine& e, Session::State& s, SessionData& sd,
                                      Recorder& rec, const StatementEnv& stmt, const Select& sel,
                                      const std::function<absl::Status(const Row&)>& fn,
                                      std::vector<Column>* cols)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu);
[[nodiscard]] absl::StatusOr<std::vector<Column>> SelectShape(DataEngine& e, Session::State& s,
                                                              SessionData& sd, Recorder& rec,
                                                              const StatementEnv& stmt,
                                                              const Select& sel)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu);
// What an expression sees of its session and statement: SYS_CONTEXT's SID
// and SYSDATE (the database clock as the statement began; one value for the
// whole statement, as in Oracle).

// The table an UPDATE or DELETE changes, whose row its subqueries may name
// (correlated).
struct DmlTarget {
  const TableDef& table;
  std::string qualifier;  // its alias, else its name
};
// Runs the subqueries in `roots` (null entries skipped) and adds their rows
// to `env`. With a `target`, a subquery may name its columns (correlated: it
// then runs for each row, unless it reads the target itself, which the
// statement changes as it goes: refused); without one, such a subquery fails
// with ORA-00904, saying so.
[[nodiscard]] absl::Status RunSubqueries(DataEngine& e, Session::State& s, SessionData& sd,
                                         Recorder& rec, const std::vector<const Expr*>& roots,
                                         StatementEnv* env, const DmlTarget* target = nullptr)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu);

// ORA-02290 when a CHECK of `t` is FALSE for `row` (TRUE and NULL pass)
// (data_alter.cc).
[[nodiscard]] absl::Status CheckRow(const TableDef& t, const Row& row, const StatementEnv& env);

// Evaluates `expr` over one or two bound rows; `rownum` is what ROWNUM
// gives (0: ORA-00976, not allowed here).
[[nodiscard]] absl::StatusOr<Value> EvalIn(const Expr& expr, const std::vector<Column>& cols,
                                           const Row& row, const std::string& qualifier,
                                           const std::vector<Column>* cols2, const Row* row2,
                                           const std::string& qualifier2,
                                           const StatementEnv& stmt, uint64_t rownum = 0);

// ---- views a user makes (CREATE VIEW, data_create_view.cc) ----
absl::Status CreateViewRun(DataEngine& e, Session::State& s, SessionData& sd, Recorder& rec,
                           const StatementEnv& env, const CreateView& v, DataOutcome* out)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu);
absl::Status DropViewRun(DataEngine& e, SessionData& sd, Recorder& rec, const DropView& v,
                         DataOutcome* out) ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu);
// ORA-01732 for a DML statement naming view `name` (OK for any other name).
absl::Status RefuseViewDml(const DataEngine& e, const std::string& name)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu);
// View `v`'s rows and columns (its column list applied), for the statement
// `stmt`; the query's own error when it fails (data_exec.cc).
[[nodiscard]] absl::StatusOr<ViewRows> RunView(DataEngine& e, Session::State& s, SessionData& sd,
                                               Recorder& rec, const StatementEnv& stmt,
                                               const ViewDef& v) ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu);
// {USER,ALL,DBA}_VIEWS (ALL_ and DBA_ with OWNER first), and a view's
// STATUS for USER_OBJECTS: INVALID when a table or view it names is gone.
ViewRows ViewDefinitionRows(const DataEngine& e, const std::string& name)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu);
bool ViewIsValid(const DataEngine& e, const ViewDef& v) ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu);

}  // namespace cellsim::db::internal

#endif  // CELLSIM_DB_DATA_VIEWS_H_
