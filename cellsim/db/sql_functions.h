// Private: what SQL does to values, apart from the rows they come from
// (data_exec.cc evaluates expressions with these): comparison, arithmetic
// with Oracle's DATE rules, and the single-row functions docs/sql.md lists.
// DATE formats are date_format.h's; NUMBER precision and scale
// row_format.h's (CoerceForColumn).
//
// Thread-safety: pure functions.
#ifndef CELLSIM_DB_SQL_FUNCTIONS_H_
#define CELLSIM_DB_SQL_FUNCTIONS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "cellsim/db/date_format.h"
#include "cellsim/db/row_format.h"

namespace cellsim::db::internal {

// The longest VARCHAR2 value (bytes), as SQL's string results are bounded.
inline constexpr size_t kMaxVarchar2 = 4000;

// Conditions are three-valued, as in SQL: 1 (TRUE), 0 (FALSE) or NULL
// (UNKNOWN); WHERE, ON, HAVING and a WHEN keep a row only for TRUE.
inline bool Truthy(const Value& v) { return v.kind == Value::Kind::kNumber && v.number != 0; }

// ORA-00932: inconsistent datatypes: expected X got Y.
absl::Status InconsistentTypes(std::string_view expected, std::string_view got);

// Orders two non-NULL values, a total order for sorts and lookups (ORDER
// BY, MIN and MAX, JoinIndex): numbers (and DATEs) by value, a DATE against
// text by the text read in the session's date format, text by bytes, a
// number against text by the text's number (0 when it is none).
int Compare(const Value& a, const Value& b);

// The comparison a condition makes (=, <>, <, IN, a join's USING), a and b
// not NULL: Compare's, with Oracle's implicit conversions and their errors:
// text against a number is read as a number (ORA-01722 when it is none),
// text against a DATE in the session's date format (ParseDate's error when
// it does not match), and a DATE against a number is ORA-00932.
absl::StatusOr<int> CompareConverting(const Value& a, const Value& b);

// `v` converted to the datatype of `like` (both not NULL), as DECODE and
// GREATEST convert their arguments to their first one's: to text as
// ValueText shows it, to a number (ToNumber's errors), to a DATE or
// TIMESTAMP (text in the session's format for it; a number is ORA-00932),
// to an INTERVAL only from one (ORA-00932).
absl::StatusOr<Value> ConvertLike(const Value& v, const Value& like);

// TO_TIMESTAMP(text, format): a TIMESTAMP(9).
absl::StatusOr<Value> TimestampFromText(std::string_view text, std::string_view format,
                                        int64_t now_unix);

// A value as a number: ORA-01722 for text that is not one, ORA-00932 for a
// datetime or an interval.
absl::StatusOr<double> ToNumber(const Value& v);

// a op b for op in + - * /, neither NULL. A datetime plus or minus a number
// moves it by that many days (a DATE; a TIMESTAMP's too); DATE - DATE is the
// days between, a difference with a TIMESTAMP an INTERVAL DAY(9) TO
// SECOND(9); an interval adds to a datetime or an interval and multiplies
// by a number; anything else with a datetime or an interval is ORA-00932
// (DATE + DATE: ORA-00975). Strings convert to numbers (ORA-01722 when they
// are not); / by zero is ORA-01476.
absl::StatusOr<Value> Arithmetic(std::string_view op, const Value& a, const Value& b);

// a || b (NULL is '' here); ORA-01489 past kMaxVarchar2 bytes.
absl::StatusOr<Value> Concatenate(const Value& a, const Value& b);
// A number result; ORA-01426 when it is not finite.
absl::StatusOr<Value> Finite(double d);

// A single-row function by name (uppercased) over its evaluated arguments;
// nullopt when `name` is none of them (the caller reports it). Wrong
// argument counts are ORA-00909.
std::optional<absl::StatusOr<Value>> ScalarFunction(std::string_view name,
                                                    const std::vector<Value>& args,
                                                    int64_t now_unix);
// The names ScalarFunction knows, for error messages.
std::string_view ScalarFunctionNames();
// Whether `name` (uppercased) is one of them.
bool IsScalarFunction(std::string_view name);

}  // namespace cellsim::db::internal

#endif  // CELLSIM_DB_SQL_FUNCTIONS_H_
