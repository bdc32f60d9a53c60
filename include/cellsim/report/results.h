// Plain value structs the report renderers take: what one statement did (its
// statistic and wait deltas, timing and the creation path used), and the demo's
// three runs. The front end (CLI, labs, tests) fills them from a session, so the
// report layer never reaches into the database engine's internals.
//
// Usage:
//   StatementResult r{.statement = sql, .path = "fast", .elapsed_s = 0.031,
//                     .statistics = after.stats - before.stats,
//                     .waits = after.waits - before.waits};
//   std::string json = StatementJson(r);          // report/json.h
//   std::string text = RenderTkprof({TkprofFromResult(r)});  // report/tkprof.h
#ifndef CELLSIM_REPORT_RESULTS_H_
#define CELLSIM_REPORT_RESULTS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "cellsim/stats/statistics.h"

namespace cellsim::report {

// Names of the three creation paths as reports and JSON spell them.
inline constexpr std::string_view kPathZeroFill = "zero-fill";
inline constexpr std::string_view kPathSmart = "smart";
inline constexpr std::string_view kPathFast = "fast";

struct StatementResult {
  std::string statement;  // the SQL text as run
  // Creation path used: "zero-fill", "smart" or "fast"; empty when the
  // statement created no file (JSON null).
  std::string path;
  double elapsed_s = 0;
  double cpu_s = 0;
  stats::StatValues statistics;  // deltas over the statement
  stats::WaitValues waits;       // deltas over the statement
};

// `cellsim demo`: one statement run by each creation path on identical racks.
struct DemoResult {
  uint64_t size_bytes = 0;  // size of each log member
  std::vector<StatementResult> paths;
};

}  // namespace cellsim::report

#endif  // CELLSIM_REPORT_RESULTS_H_
