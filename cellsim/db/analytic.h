// Private: analytic functions (f(...) OVER (...)) over the rows of one query
// block, apart from how those rows are made (data_exec.cc evaluates each
// row's inputs, calls AnalyticValues, and evaluates the select list again
// with the values). Oracle computes them after WHERE, GROUP BY and HAVING
// and before DISTINCT and the final ORDER BY; so does cellsim.
//
// Usage:
//   std::vector<AnalyticInput> in(rows);       // per row: PARTITION BY, ORDER BY, arguments
//   absl::StatusOr<std::vector<Value>> v = AnalyticValues(node, in);  // per row, in order
//
// Thread-safety: pure functions.
#ifndef CELLSIM_DB_ANALYTIC_H_
#define CELLSIM_DB_ANALYTIC_H_

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "cellsim/db/data_statement.h"
#include "cellsim/db/row_format.h"

namespace cellsim::db::internal {

// Whether `name` (uppercased) is a function only OVER (...) gives a value:
// ROW_NUMBER, RANK, DENSE_RANK, PERCENT_RANK, CUME_DIST, NTILE, LAG, LEAD,
// FIRST_VALUE, LAST_VALUE, RATIO_TO_REPORT. (The aggregates may have OVER.)
bool IsAnalyticOnlyFunction(std::string_view name);

// The names of the functions that take OVER, for error messages.
std::string_view AnalyticFunctionNames();

// What is wrong with analytic function `name` (`distinct`: written with
// DISTINCT) taking `w`, as Oracle's parse reports it: the text and its
// ORA- code; nullopt when nothing is. ORA-30485 for a ranking function or
// LAG / LEAD / NTILE without ORDER BY, or a window frame without one;
// ORA-30487 for ORDER BY where the function takes none (DISTINCT,
// RATIO_TO_REPORT); ORA-00907 for a frame a function has no use for;
// ORA-00909 for a wrong number of arguments; ORA-30486 for a frame whose
// start is after its end or a RANGE offset over several ORDER BY keys.
struct AnalyticError {
  std::string what;
  std::string code;
};
std::optional<AnalyticError> CheckAnalytic(std::string_view name, bool distinct, const Window& w);

// LISTAGG's value: `items` (a value and its WITHIN GROUP keys) ordered by
// the keys (`keys`' directions; equal keys in their given order), NULL
// values left out, as SQL*Plus prints them, joined by `separator`; NULL when
// none is left. `distinct`: one of equal values. ORA-01489 past 4,000 bytes.
absl::StatusOr<Value> ListAgg(std::vector<std::pair<Value, Row>> items,
                              const std::vector<Window::Key>& keys, const std::string& separator,
                              bool distinct);

// LISTAGG's separator: its second argument, a string literal (the parser
// takes no other), or "" without one.
std::string ListAggSeparator(const Expr& listagg);

// One row's inputs to one analytic function, evaluated on the row.
struct AnalyticInput {
  Row partition;  // the PARTITION BY values
  Row order;      // the ORDER BY values
  Row args;       // the function's own arguments (COUNT(*): none)
};

// Analytic function `f` (f.over set, CheckAnalytic passed) on each row of
// `rows`, in their order: the rows are split by their PARTITION BY values
// (NULLs equal), ordered within a partition by ORDER BY (f.over's
// directions; rows of equal keys are peers, kept in their given order), and
// each row's value is its position's (ROW_NUMBER, RANK, DENSE_RANK,
// PERCENT_RANK, CUME_DIST, NTILE, LAG, LEAD), its window frame's
// (FIRST_VALUE, LAST_VALUE, COUNT, SUM, AVG, MIN, MAX) or its partition's
// (RATIO_TO_REPORT). Errors: a SUM / AVG of a value that is not a number
// (ORA-01722), an NTILE bucket count or LAG / LEAD offset that is not a
// non-negative number (ORA-01428, NTILE's not positive), a RANGE offset over
// a key that is not a number or a DATE (ORA-00902).
absl::StatusOr<std::vector<Value>> AnalyticValues(const Expr& f,
                                                  const std::vector<AnalyticInput>& rows);

}  // namespace cellsim::db::internal

#endif  // CELLSIM_DB_ANALYTIC_H_
