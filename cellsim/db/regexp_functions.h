// Private: Oracle's regular-expression functions (REGEXP_LIKE, REGEXP_COUNT,
// REGEXP_INSTR, REGEXP_SUBSTR, REGEXP_REPLACE) over evaluated arguments, on
// std::regex (ECMAScript: POSIX bracket classes such as [[:digit:]], the
// Perl classes \d \w \s, non-greedy quantifiers and back references, which
// is what Oracle's POSIX-plus-Perl syntax is used for).
//
// Thread-safety: pure functions (each thread caches its compiled patterns).
#ifndef CELLSIM_DB_REGEXP_FUNCTIONS_H_
#define CELLSIM_DB_REGEXP_FUNCTIONS_H_

#include <optional>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "cellsim/db/row_format.h"

namespace cellsim::db::internal {

// REGEXP_* function `name` (uppercased) on `args`; nullopt when `name` is
// none of them. As Oracle: NULL source gives NULL; match parameters 'i'
// (ignore case), 'c' (respect case), 'n' (. matches a newline), 'm' (^ and
// $ at each line); ORA-00909 for a wrong argument count, ORA-01760 for an
// unknown match parameter, ORA-12725..12728 for a pattern that does not
// compile, ORA-01428 for a position or occurrence out of range.
std::optional<absl::StatusOr<Value>> RegexpFunction(std::string_view name,
                                                    const std::vector<Value>& args);

}  // namespace cellsim::db::internal

#endif  // CELLSIM_DB_REGEXP_FUNCTIONS_H_
