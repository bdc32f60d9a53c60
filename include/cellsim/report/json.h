// JSON output of `cellsim sql --report json` and `cellsim demo --json`
// (docs/reports.md gives the schema):
//
//   {"statement": "...", "path": "fast"|"smart"|"zero-fill"|null, "elapsed_s": 0.031,
//    "cpu_s": 0.01, "statistics": {"physical write total bytes": 17180197888, ...},
//    "waits": {"cell smart file creation": {"count": 3258, "max_s": 0.13, "total_s": 4.64}}}
//
//   {"size_bytes": 4294967296, "statement": "...",
//    "paths": [{"path": "zero-fill", "elapsed_s": ..., "statistics": {...}, "waits": {...}}, ...]}
//
// "statistics" holds the exact Oracle names with non-zero deltas only, and
// "waits" the events waited on (count > 0) only: a name that is absent is zero.
//
// Usage:
//   std::string s = StatementJson(result);
//   absl::StatusOr<StatementSummary> back = ParseStatementJson(s);
//
// Thread-safety: pure functions.
#ifndef CELLSIM_REPORT_JSON_H_
#define CELLSIM_REPORT_JSON_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "cellsim/report/results.h"

namespace cellsim::report {

// indent < 0: one line; otherwise pretty-printed with that many spaces.
std::string StatementJson(const StatementSummary& result, int indent = -1);
std::string DemoJson(const DemoResult& demo, int indent = 2);

// Reads the output of StatementJson / DemoJson back. InvalidArgument naming the
// problem for malformed JSON, a missing or mistyped field, an unknown statistic
// or wait event name, or an unknown path.
[[nodiscard]] absl::StatusOr<StatementSummary> ParseStatementJson(std::string_view json);
[[nodiscard]] absl::StatusOr<DemoResult> ParseDemoJson(std::string_view json);

}  // namespace cellsim::report

#endif  // CELLSIM_REPORT_JSON_H_
