// The data statements (issue 15): tables, DML, transactions, queries and the
// SQL*Plus commands a DBA types against them, parsed into plain structs. The
// grammar (docs/sql.md "Data statements") is the subset the temp-undo seed and
// its measurement scripts use:
//
//   CREATE [GLOBAL TEMPORARY] TABLE t (c NUMBER[(p[, s])] [DEFAULT e | GENERATED
//          {ALWAYS | BY DEFAULT [ON NULL]} AS IDENTITY [(sequence options)]] [NOT NULL]
//          [[CONSTRAINT n] PRIMARY KEY | UNIQUE], d VARCHAR2(30), e CHAR(1000), f DATE, ...
//          [, [CONSTRAINT n] PRIMARY KEY | UNIQUE (c, ...)])
//          [ON COMMIT DELETE|PRESERVE ROWS] [TABLESPACE ts]
//   CREATE [GLOBAL TEMPORARY] TABLE t [ON COMMIT ...] AS SELECT ...
//   DROP TABLE t [PURGE]            TRUNCATE TABLE t
//   ALTER TABLE t ADD (c type ..., ...) | ADD [CONSTRAINT n] PRIMARY KEY | UNIQUE (c, ...)
//              | MODIFY (c [type] [DEFAULT e] [NOT NULL | NULL], ...)
//              | RENAME COLUMN a TO b | RENAME TO u
//   CREATE [UNIQUE] INDEX i ON t (c [, ...]) [TABLESPACE ts]      DROP INDEX i
//   ANALYZE TABLE t VALIDATE STRUCTURE [CASCADE]   ANALYZE INDEX i VALIDATE STRUCTURE
//   INSERT INTO t [(c, ...)] VALUES (e | DEFAULT, ...) | SELECT ...
//   UPDATE t [a] SET c = e | DEFAULT [, ...] [WHERE cond]
//   DELETE [FROM] t [a] [WHERE cond]
//   MERGE INTO t a USING (SELECT ...) s ON (cond)
//     WHEN MATCHED THEN UPDATE SET ... WHEN NOT MATCHED THEN INSERT (c, ...) VALUES (...)
//   CREATE SEQUENCE s [INCREMENT BY n] [START WITH n] [MAXVALUE n | NOMAXVALUE]
//          [MINVALUE n | NOMINVALUE] [CYCLE | NOCYCLE] [CACHE n | NOCACHE] [[NO]ORDER]
//   ALTER SEQUENCE s [the same, RESTART [START WITH n]; not START WITH alone]
//   DROP SEQUENCE s
//   COMMIT [WORK]                   ROLLBACK [WORK] [TO [SAVEPOINT] name]
//   SAVEPOINT name
//   ALTER SYSTEM SET name = value [SCOPE = MEMORY|SPFILE|BOTH] [SID = '*']
//   SHOW PARAMETER[S] [name]
//   ALTER DATABASE ARCHIVELOG | NOARCHIVELOG
//   ALTER SYSTEM SWITCH LOGFILE     ALTER SYSTEM ARCHIVE LOG CURRENT
//   ARCHIVE LOG LIST                (SQL*Plus: ends at its line's end in scripts)
//   DESC[RIBE] t                    (SQL*Plus: ends at its line's end in scripts)
//   SELECT [DISTINCT] [*|e [alias], ...] FROM src [a] [, src [a]]
//          [[LEFT [OUTER] | INNER] JOIN src [a] ON cond] [WHERE cond]
//          [CONNECT BY LEVEL <= n] [GROUP BY e, ...] [HAVING cond]
//          [{UNION [ALL] | INTERSECT | MINUS} SELECT ... ...]
//          [ORDER BY e|alias|n [ASC|DESC] [NULLS FIRST|LAST], ...]
//          [OFFSET n ROWS] [FETCH FIRST|NEXT n ROWS ONLY]
//
// Expressions: numbers, 'strings', NULL, [qualifier.]column, SYSDATE, ROWNUM,
// LEVEL, s.NEXTVAL and s.CURRVAL, + - * / ||, = <> != < <= > >= [NOT] LIKE, [NOT] IN (...),
// [NOT] BETWEEN a AND b, IS [NOT] NULL,
// AND / OR / NOT, the aggregates COUNT(*), COUNT / SUM / AVG / MIN / MAX
// ([DISTINCT] e), and the scalar functions docs/sql.md lists. In a select
// list and ORDER BY, analytic functions: f(...) OVER ([PARTITION BY e, ...]
// [ORDER BY e [ASC|DESC] [NULLS FIRST|LAST], ...] [{ROWS | RANGE} frame])
// for ROW_NUMBER, RANK, DENSE_RANK, PERCENT_RANK, CUME_DIST, NTILE, LAG,
// LEAD, FIRST_VALUE, LAST_VALUE, NTH_VALUE ([FROM FIRST | FROM LAST]
// [RESPECT | IGNORE NULLS] before OVER, or IGNORE NULLS after the first
// argument), RATIO_TO_REPORT and the aggregates; the
// ordered-set aggregate LISTAGG([DISTINCT] e [, 'separator']) WITHIN GROUP
// (ORDER BY ...) [OVER (PARTITION BY ...)].
//
// Usage:
//   if (IsDataStatement(sql)) { absl::StatusOr<DataStatement> st = ParseDataStatement(sql); }
//
// Thread-safety: pure functions.
#ifndef CELLSIM_DB_DATA_STATEMENT_H_
#define CELLSIM_DB_DATA_STATEMENT_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"

namespace cellsim::db {

struct Select;

// An analytic function's OVER (...) clause (Expr::over). Its PARTITION BY and
// ORDER BY expressions are the function node's args after the function's
// own, so that every walk of an expression's args sees them:
//   args = [own (`arguments`)..., PARTITION BY (`partition_by`)..., ORDER BY...]
// with one ORDER BY expression per `order_by` key. `frame` unset: with ORDER
// BY, RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW (the current row's
// peers included); without, the whole partition.
struct Window {
  struct Key {
    bool descending = false;
    std::optional<bool> nulls_first{};  // unset: NULLs last going up, first going down
    bool operator==(const Key&) const = default;
  };
  struct Bound {
    enum class Kind : uint8_t {
      kUnboundedPreceding, kPreceding, kCurrentRow, kFollowing, kUnboundedFollowing
    };
    Kind kind = Kind::kCurrentRow;
    double offset = 0;  // kPreceding / kFollowing: rows (ROWS) or units of the ORDER BY key (RANGE)
    bool operator==(const Bound&) const = default;
  };
  struct Frame {
    bool rows = false;  // ROWS (rows around the current one) or RANGE (by the ORDER BY key)
    Bound start{}, end{};
    bool operator==(const Frame&) const = default;
  };
  size_t arguments = 0;
  size_t partition_by = 0;
  std::vector<Key> order_by{};
  std::optional<Frame> frame{};
  // IGNORE NULLS (LAG, LEAD, FIRST_VALUE, LAST_VALUE, NTH_VALUE: rows whose
  // value is NULL do not count); FROM LAST (NTH_VALUE: counted from the
  // frame's end).
  bool ignore_nulls = false;
  bool from_last = false;
  bool operator==(const Window&) const = default;
};

// One expression node. Kind decides which members are used.
//   kCase: CASE [x] WHEN w THEN t ... [ELSE e] END; args = [x,] w1, t1, w2, t2, ... [, e];
//          text "SIMPLE" (with x) or "SEARCHED".
//   kSubquery: a scalar subquery, (SELECT ...) of one column and at most one row.
//   kInList with `subquery`: x [NOT] IN (SELECT ...); args = [x].
//   kExists: EXISTS (SELECT ...) (NOT EXISTS: a NOT around it); no args.
//   A subquery may name the columns of the query around it (correlated).
//   kSequence: s.NEXTVAL or s.CURRVAL; qualifier = the sequence, text NEXTVAL
//          or CURRVAL.
struct Expr {
  enum class Kind : uint8_t {
    kNumber, kString, kNull, kColumn, kStar, kBinary, kUnary, kFunction, kInList, kIsNull,
    kCase, kSubquery, kSequence, kExists
  };
  Kind kind = Kind::kNull;
  double number = 0;           // kNumber
  std::string text;            // kString: value; kColumn: NAME; kBinary/kUnary: operator;
                               // kFunction: NAME (uppercased); kCase: SIMPLE or SEARCHED
  std::string qualifier;       // kColumn: alias or table ("" when none); kSequence: its name
  std::vector<std::shared_ptr<Expr>> args;  // operands / arguments / IN list (args[0] is lhs)
  bool negated = false;        // NOT IN, IS NOT NULL
  bool distinct = false;       // kFunction: an aggregate's DISTINCT (COUNT(DISTINCT c))
  std::shared_ptr<Select> subquery;  // kSubquery, kInList (SELECT ...), kExists
  std::shared_ptr<const Window> over;  // kFunction: OVER (...), an analytic function
  // kFunction LISTAGG: WITHIN GROUP (ORDER BY ...), its expressions the args
  // after LISTAGG's own (`arguments`), one per order_by key (no partition).
  std::shared_ptr<const Window> within_group;
};
using ExprPtr = std::shared_ptr<Expr>;

struct SelectItem {
  ExprPtr expr;
  std::string alias;    // uppercased; "" when none
  std::string heading;  // what SQL*Plus prints: the alias, else the text as written (upper, no blanks)
};

struct FromSource {
  std::string table;                 // uppercased name ("" for a subquery)
  std::shared_ptr<Select> subquery;  // (SELECT ...)
  std::string alias;                 // uppercased ("" when none)
  // How this source joins the ones before it (the first source: kNone).
  // LEFT keeps the rows before without a match, RIGHT this source's rows
  // without a match, FULL both. A comma binds less tightly than JOIN: a
  // join's left side is the sources since the last comma (JoinGroupStart).
  enum class Join { kNone, kComma, kCross, kInner, kLeft, kRight, kFull };
  Join join = Join::kNone;
  ExprPtr on;                        // the ON condition of a JOIN
  // JOIN ... USING (c, ...): the columns equal on both sides (uppercased),
  // shown once; NATURAL JOIN: every column both sides have.
  std::vector<std::string> using_columns;
  bool natural = false;
  bool KeepsRowsBefore() const { return join == Join::kLeft || join == Join::kFull; }
  bool KeepsOwnRows() const { return join == Join::kRight || join == Join::kFull; }
};

// The first source of join `i`'s left side in `from`: the source after the
// last comma before it (0 without one). `i` may be from.size(): the group a
// source joined next would join.
inline size_t JoinGroupStart(const std::vector<FromSource>& from, size_t i) {
  size_t g = 0;
  for (size_t j = 1; j < i; ++j) {
    if (from[j].join == FromSource::Join::kComma) g = j;
  }
  return g;
}

struct OrderItem {
  ExprPtr expr;
  bool descending = false;
  std::optional<bool> nulls_first;  // NULLS FIRST / LAST; unset: last going up, first going down
};

// A further branch of a compound query: UNION, UNION ALL, INTERSECT or MINUS
// (EXCEPT), applied left to right.
struct SetOperation {
  std::string op;  // "UNION", "UNION ALL", "INTERSECT", "MINUS"
  std::shared_ptr<Select> query;
};

struct Select {
  bool distinct = false;  // SELECT DISTINCT (or UNIQUE)
  std::vector<SelectItem> items;
  std::vector<FromSource> from;
  ExprPtr where;
  std::optional<uint64_t> connect_by_level;  // CONNECT BY LEVEL <= n (on DUAL)
  std::vector<ExprPtr> group_by;
  ExprPtr having;
  std::vector<SetOperation> set_operations;  // the other branches of a compound query
  std::vector<OrderItem> order_by;           // of the whole compound query
  // OFFSET n ROWS / FETCH FIRST n ROWS ONLY, after ORDER BY (unset: none).
  std::optional<uint64_t> offset_rows{};
  std::optional<uint64_t> fetch_rows{};
  // SELECT ... FOR UPDATE [OF column, ...] [NOWAIT | WAIT n | SKIP LOCKED]
  // (a statement's own query only): the rows it returns become the
  // session's transaction's, as an UPDATE's would.
  struct ForUpdate {
    enum class Wait : uint8_t { kWait, kNoWait, kWaitSeconds, kSkipLocked };
    Wait wait = Wait::kWait;
    uint32_t wait_seconds = 0;    // WAIT n
    std::vector<std::string> of;  // OF's columns, uppercased (checked, not otherwise used)
  };
  std::optional<ForUpdate> for_update{};
};

// An identity column (Oracle 12c: GENERATED ALWAYS | BY DEFAULT [ON NULL]
// AS IDENTITY): its values come from a sequence of its own, ISEQ$$_n.
enum class IdentityKind : uint8_t { kNone, kAlways, kByDefault, kByDefaultOnNull };

// CREATE SEQUENCE, or ALTER SEQUENCE (`alter`: only the options written
// change), or an identity column's options. Numbers are integers as
// written; unset: not written.
struct SequenceOptions {
  std::string name;  // uppercased
  bool alter = false;
  std::optional<int64_t> increment_by{}, start_with{};
  std::optional<int64_t> max_value{}, min_value{};  // MAXVALUE n / MINVALUE n
  bool no_max_value = false, no_min_value = false;  // NOMAXVALUE / NOMINVALUE
  std::optional<bool> cycle{}, order{};
  std::optional<int64_t> cache{};  // CACHE n; 0 for NOCACHE
  bool restart = false;            // ALTER SEQUENCE ... RESTART
};

// A TIMESTAMP column's digits of fraction when its definition gives none
// (Oracle's default).
inline constexpr uint32_t kDefaultTimestampPrecision = 6;

struct ColumnDef {
  std::string name;   // uppercased
  std::string type;   // NUMBER, VARCHAR2, CHAR, DATE, TIMESTAMP
  // VARCHAR2 / CHAR length; NUMBER's precision (0: NUMBER without one);
  // TIMESTAMP's digits of fraction.
  uint32_t length = 0;
  int32_t scale = 0;    // NUMBER(p, s)'s s (with a precision only)
  bool not_null = false;  // NOT NULL (or PRIMARY KEY)
  std::string not_null_name{};  // CONSTRAINT n NOT NULL's n ("" = system-named)
  // DEFAULT expr: what an INSERT that leaves the column out (or gives the
  // keyword DEFAULT) stores; the text as written is what the dictionary keeps.
  ExprPtr default_value{};
  std::string default_text{};
  IdentityKind identity = IdentityKind::kNone;  // GENERATED ... AS IDENTITY [(options)]
  SequenceOptions identity_options{};
};

// PRIMARY KEY or UNIQUE, on a column or the table: kept as a unique index of
// the constraint's name (SYS_Cnnnnnnn when not named), as Oracle keeps it;
// or CHECK (condition).
// CHECK (condition): kept as its text; a row for which it is FALSE is
// refused (TRUE or NULL pass).
struct TableConstraint {
  std::string name;  // CONSTRAINT name ("" = system-named)
  bool primary_key = false;
  std::vector<std::string> columns;  // uppercased, in key order (not for CHECK)
  ExprPtr check{};                   // CHECK's condition (null: a key)
  std::string check_text{};          // as written
};

struct CreateTable {
  std::string name;
  bool global_temporary = false;
  bool on_commit_preserve = false;  // ON COMMIT PRESERVE ROWS (default DELETE ROWS)
  std::string tablespace;           // "" = the default (USERS / the temporary tablespace)
  std::vector<ColumnDef> columns;   // empty with AS SELECT
  std::vector<TableConstraint> constraints;
  std::shared_ptr<Select> as_select;
};

// ALTER TABLE t ADD (column, ...) | ADD column | ADD [CONSTRAINT n]
// PRIMARY KEY | UNIQUE (c, ...) | MODIFY (c [type] [DEFAULT e] [NOT NULL |
// NULL], ...) | RENAME COLUMN a TO b | RENAME TO u.
struct AlterTable {
  enum class Kind : uint8_t { kAdd, kModify, kRenameColumn, kRenameTable, kDropConstraint };
  std::string table;  // uppercased
  Kind kind = Kind::kAdd;
  std::vector<ColumnDef> columns;            // ADD; MODIFY (type "" when not given)
  std::vector<std::optional<bool>> not_null;  // MODIFY: NOT NULL / NULL (unset: unchanged)
  // ADD's; DROP's one: CONSTRAINT name (its name), PRIMARY KEY (primary_key)
  // or UNIQUE (columns) (its columns).
  std::vector<TableConstraint> constraints;
  std::string from, to;                      // RENAME COLUMN from TO to; RENAME TO to
  bool rename_statement = false;  // written as RENAME table TO to (kRenameTable)
};

struct DropTable {
  std::string name;
  bool purge = false;
};

struct TruncateTable {
  std::string name;
};

struct CreateIndex {
  std::string name;
  std::string table;
  std::vector<std::string> columns;  // uppercased, in key order
  bool unique = false;
  std::string tablespace;            // "" = the table's
};

struct DropIndex {
  std::string name;
};

// ANALYZE TABLE t / INDEX i:
// - VALIDATE STRUCTURE [CASCADE]: checks a table's indexes against its rows
//   (CASCADE), or one index; ORA-01499 on a cross-reference failure.
// - COMPUTE STATISTICS [FOR TABLE] (ESTIMATE STATISTICS [SAMPLE n ROWS |
//   PERCENT] computes too): gathers the optimizer statistics of the table
//   and its indexes (FOR TABLE: the table's only), or of the index;
//   DBMS_STATS.GATHER_TABLE_STATS and GATHER_INDEX_STATS run as this.
// - DELETE STATISTICS: forgets them (DBMS_STATS.DELETE_TABLE_STATS).
struct Analyze {
  enum class Action { kValidateStructure, kComputeStatistics, kDeleteStatistics };
  bool index = false;  // ANALYZE INDEX
  std::string name;
  Action action = Action::kValidateStructure;
  bool cascade = false;  // VALIDATE STRUCTURE CASCADE; statistics of the table's indexes too
};

// One INTO of a multitable INSERT: its table, columns (empty: all, in
// order) and VALUES over the subquery's columns (empty: the subquery's
// columns in order; a null value: the keyword DEFAULT).
struct InsertInto {
  std::string table;
  std::vector<std::string> columns;
  std::vector<ExprPtr> values;
};

// A multitable INSERT's WHEN condition THEN INTO ...; `when` null: every
// row (INSERT ALL INTO ... without WHEN) or, with `otherwise`, the ELSE.
struct InsertWhen {
  ExprPtr when;
  bool otherwise = false;
  std::vector<InsertInto> into;
};

struct Insert {
  std::string table;
  std::vector<std::string> columns;  // empty: all, in order
  std::vector<ExprPtr> values;       // VALUES (...); null: the keyword DEFAULT
  std::shared_ptr<Select> select;    // or INSERT ... SELECT
  // INSERT ALL | FIRST [WHEN ...] INTO ... SELECT ...: for each row of
  // `select`, the INTOs of every WHEN whose condition is TRUE (FIRST: of
  // the first such WHEN), else of the ELSE; `table` is then empty.
  std::vector<InsertWhen> multitable;
  bool first = false;  // INSERT FIRST
};

struct Assignment {
  std::string column;
  ExprPtr value;  // null: SET c = DEFAULT
};

struct Update {
  std::string table;
  std::string alias;
  std::vector<Assignment> set;
  ExprPtr where;
};

struct Delete {
  std::string table;
  std::string alias;
  ExprPtr where;
};

struct Merge {
  std::string table;
  std::string alias;
  std::shared_ptr<Select> using_select;
  std::string using_alias;
  ExprPtr on;
  std::vector<Assignment> matched_update;   // empty: no WHEN MATCHED
  std::vector<std::string> insert_columns;  // WHEN NOT MATCHED THEN INSERT (...)
  std::vector<ExprPtr> insert_values;
  bool has_insert = false;
};

struct DropSequence {
  std::string name;
};

struct Commit {};
// ROLLBACK [WORK] [TO [SAVEPOINT] name]: the whole transaction, or its
// changes since the savepoint (the transaction stays open).
struct Rollback {
  std::string to_savepoint{};  // uppercased; "" = the whole transaction
};
// SAVEPOINT name: a point ROLLBACK TO returns to (the name again moves it).
struct Savepoint {
  std::string name;  // uppercased
};

struct AlterSystemSet {
  std::string name;   // lowercased
  std::string value;  // as written, quotes removed
  std::string scope;  // MEMORY, SPFILE, BOTH ("" = BOTH)
};

struct ShowParameter {
  std::string pattern;  // lowercased; "" = all
};

// The redo log and instance commands: ALTER DATABASE ARCHIVELOG |
// NOARCHIVELOG, ALTER SYSTEM SWITCH LOGFILE, ALTER SYSTEM ARCHIVE LOG
// CURRENT, SQL*Plus's ARCHIVE LOG LIST, ALTER SYSTEM CHECKPOINT and ALTER
// SYSTEM FLUSH.
struct LogCommand {
  // kCheckpoint: ALTER SYSTEM CHECKPOINT [GLOBAL | LOCAL] (a full checkpoint).
  // kFlushBufferCache: ALTER SYSTEM FLUSH BUFFER_CACHE [GLOBAL | LOCAL];
  // kFlushSharedPool: ALTER SYSTEM FLUSH SHARED_POOL.
  enum class Kind : uint8_t {
    kArchivelog,
    kNoArchivelog,
    kSwitchLogfile,
    kArchiveCurrent,
    kList,
    kCheckpoint,
    kFlushBufferCache,
    kFlushSharedPool
  };
  Kind kind = Kind::kList;
};

// SQL*Plus's DESC[RIBE] t: a table's or view's columns (Name, Null?, Type).
struct Describe {
  std::string name;  // uppercased
};

// CREATE [OR REPLACE] [[NO]FORCE] VIEW name [(column, ...)] AS query
// [WITH READ ONLY]. The view keeps its query as written and runs it where
// it is named (docs/sql.md "Views").
struct CreateView {
  std::string name;                  // uppercased
  std::vector<std::string> columns;  // the view's column names; empty: the query's
  std::string text;                  // the query as written (USER_VIEWS.TEXT)
  std::shared_ptr<Select> query;
  bool or_replace = false;
  bool force = false;      // made even when the query fails (then INVALID)
  bool read_only = false;  // WITH READ ONLY (every cellsim view is read-only)
};

struct DropView {
  std::string name;  // uppercased
};

using DataStatement = std::variant<CreateTable, DropTable, TruncateTable, Insert, Update, Delete,
                                   Merge, Commit, Rollback, AlterSystemSet, ShowParameter,
                                   Select, CreateIndex, DropIndex, Analyze, LogCommand,
                                   Describe, SequenceOptions, DropSequence, Savepoint, AlterTable,
                                   CreateView, DropView>;

// True when the statement starts like one of the data statements (so
// Session::Execute gives it to ParseDataStatement instead of the file DDL
// parser): CREATE [GLOBAL TEMPORARY] TABLE, CREATE [UNIQUE] INDEX, DROP TABLE,
// DROP INDEX, ANALYZE, TRUNCATE, INSERT,
// UPDATE, DELETE, MERGE, COMMIT, ROLLBACK, ALTER SYSTEM, SHOW, SELECT,
// ALTER DATABASE [NO]ARCHIVELOG, ARCHIVE LOG, CREATE / ALTER / DROP SEQUENCE,
// SAVEPOINT, ALTER TABLE, CREATE [OR REPLACE] [[NO]FORCE] VIEW, DROP VIEW.
bool IsDataStatement(std::string_view sql);

// Errors: InvalidArgument "at LINE:COL: expected ..., found ..." with an
// Oracle code (ORA-00900, ORA-00905, ORA-00907, ORA-00933, ...).
[[nodiscard]] absl::StatusOr<DataStatement> ParseDataStatement(std::string_view sql);
// Whether `name` (uppercased) is one of the aggregates: COUNT, SUM, AVG,
// MIN, MAX, LISTAGG, MEDIAN, VARIANCE, VAR_SAMP, VAR_POP, STDDEV,
// STDDEV_SAMP, STDDEV_POP.
bool IsAggregateFunction(std::string_view name);
// The first node of `e` (itself, then its operands depth first; not inside
// its subqueries) for which `pred` holds, or null.
const Expr* FindExprNode(const Expr& e, const std::function<bool(const Expr&)>& pred);
// One expression of the same grammar and nothing after it (a column's
// DEFAULT as the dictionary keeps it).
[[nodiscard]] absl::StatusOr<ExprPtr> ParseDataExpression(std::string_view sql);

// "CREATE TABLE", "INSERT", "SELECT", ... (for results and feedback).
std::string_view DataStatementKind(const DataStatement& statement);

}  // namespace cellsim::db

#endif  // CELLSIM_DB_DATA_STATEMENT_H_
