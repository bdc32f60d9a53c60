// Plain value structs the report renderers take: a StatementSummary is what one
// statement did as reports and JSON show it (statistic and wait deltas, times
// in seconds, the creation path) -- the subset of the engine's
// db::StatementResult that JSON round-trips (lab::ToReportResult converts) --
// and the demo's three runs.
//
// Usage:
//   StatementSummary r{.statement = sql, .path = std::string(db::kPathFast), .elapsed_s = 0.031,
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

struct StatementSummary {
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
  std::vector<StatementSummary> paths;
};

}  // namespace cellsim::report

#endif  // CELLSIM_REPORT_RESULTS_H_
