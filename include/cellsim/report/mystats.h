// The mystats report (Adrian Billington's MyStats v3.0, github.com/oracle-developer/
// mystats): a delta of the session's statistics between `@mystats start` and
// `@mystats stop`, laid out as the original prints it:
//
//   Type    Statistic Name                                                               Value
//   ------  ----------------------------------------------------------------  ----------------
//   STAT    physical write total multi block requests                                    4,096
//
// rows Type(8) Name(64) Value(18, TO_CHAR '999,999,999,999'), sorted by the
// absolute delta ascending, then by name; with the original's sections (Summary
// Timings, Statistics Report, Options, About). Options as in `@mystats stop
// t=1000`: t= threshold, l= LIKE pattern, n= NOT LIKE pattern, r= regexp.
// docs/reports.md describes every row type.
//
// Usage:
//   MystatsInput in{.statistics = stop.stats - start.stats, .waits = stop.waits - start.waits,
//                   .interval_s = 5.12, .cpu_s = 0.37, .report_time_unix = time(nullptr)};
//   absl::StatusOr<MystatsOptions> opt = ParseMystatsOptions("t=1");
//   absl::StatusOr<std::string> text = RenderMystats(in, *opt);
//
// Thread-safety: pure functions.
#ifndef CELLSIM_REPORT_MYSTATS_H_
#define CELLSIM_REPORT_MYSTATS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "cellsim/stats/statistics.h"

namespace cellsim::report {

struct MystatsInput {
  stats::StatValues statistics;  // stop - start
  stats::WaitValues waits;       // stop - start
  double interval_s = 0;         // wall-clock time between the snapshots
  double cpu_s = 0;              // session CPU between the snapshots
  int64_t report_time_unix = 0;  // printed as "MyStats report : dd-MON-YYYY hh24:mi:ss"
};

// Filters combine with AND (the original takes one at a time).
struct MystatsOptions {
  std::optional<int64_t> threshold;  // t=N: only rows with |delta| >= N
  std::string like;      // l=: names LIKE '%pattern%' (SQL LIKE: % any, _ one char)
  std::string not_like;  // n=: drop names LIKE '%pattern%'
  std::string regexp;    // r=: names matching this POSIX extended regexp, case-insensitive
  bool include_statistics = true;  // STAT rows (V$MYSTAT)
  bool include_time = true;        // TIME rows: elapsed time and time waited per event
  bool utc = false;                // print the report time in UTC instead of local time
  bool compact = false;            // only the Statistics Report table (no other sections)
};

// One row of the Statistics Report.
struct MystatsRow {
  std::string type;  // "STAT", "LATCH" or "TIME"
  std::string name;
  int64_t value = 0;
  bool operator==(const MystatsRow&) const = default;
};

// Parses "t=1000 l=physical n=optimized r=^cell" (space-separated; values may
// be quoted with '...' or "..." to hold spaces). InvalidArgument on an unknown
// key, a non-integer threshold or an invalid regexp.
[[nodiscard]] absl::StatusOr<MystatsOptions> ParseMystatsOptions(std::string_view args);

// SQL LIKE: '%' matches any run of characters, '_' exactly one; case-sensitive.
bool SqlLike(std::string_view text, std::string_view pattern);

// The rows the report prints, filtered and in report order. STAT rows: every
// statistic of stats::kStatTable. TIME rows: "elapsed time" (hundredths of a
// second, from V$TIMER as the original) and "<event> time waited (us)" for each
// wait event the session waited on (count > 0), as V$SESSION_EVENT lists only those.
// InvalidArgument for an invalid regexp.
[[nodiscard]] absl::StatusOr<std::vector<MystatsRow>> MystatsRows(const MystatsInput& input,
                                                                  const MystatsOptions& options);

// The whole report (or only the table when options.compact), lines ending in '\n'.
[[nodiscard]] absl::StatusOr<std::string> RenderMystats(const MystatsInput& input,
                                                        const MystatsOptions& options);

}  // namespace cellsim::report

#endif  // CELLSIM_REPORT_MYSTATS_H_
