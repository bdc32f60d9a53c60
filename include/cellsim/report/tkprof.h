// tkprof's text layout for the statements of a session: per statement the SQL
// text, the call table, library-cache misses, optimizer mode, parsing user and
// "Elapsed times include waiting on following events", column for column as
// Oracle's tkprof prints them:
//
//   call     count       cpu    elapsed       disk      query    current        rows
//   ------- ------  -------- ---------- ---------- ---------- ----------  ----------
//   Execute      1      0.37       5.09          0          0          2           0
//   ...
//   Elapsed times include waiting on following events:
//     Event waited on                             Times   Max. Wait  Total Waited
//     ----------------------------------------   Waited  ----------  ------------
//     cell smart file creation                     3258        0.13          4.64
//
// Usage:
//   TkprofStatement t = TkprofFromResult(result);   // result: report/results.h
//   t.execute.current = 2;                          // what the engine counted
//   std::string text = RenderTkprof({t});
//
// Thread-safety: pure functions.
#ifndef CELLSIM_REPORT_TKPROF_H_
#define CELLSIM_REPORT_TKPROF_H_

#include <cstdint>
#include <string>
#include <vector>

#include "cellsim/report/results.h"

namespace cellsim::report {

// One line of the call table (Parse, Execute or Fetch).
struct TkprofCall {
  int64_t count = 0;
  double cpu_s = 0;
  double elapsed_s = 0;
  int64_t disk = 0;     // blocks read from disk
  int64_t query = 0;    // consistent gets
  int64_t current = 0;  // current gets
  int64_t rows = 0;
};

struct TkprofWait {
  std::string event;
  int64_t times_waited = 0;
  double max_wait_s = 0;
  double total_waited_s = 0;
};

struct TkprofStatement {
  std::string sql_id;  // printed as "SQL ID: x Plan Hash: 0" when not empty
  std::string sql_text;
  TkprofCall parse, execute, fetch;
  int64_t misses_during_parse = 1;    // DDL is always hard-parsed
  int64_t misses_during_execute = 0;  // line printed only when > 0
  std::string optimizer_mode = "ALL_ROWS";
  std::string parsing_user = "SYS";
  std::vector<TkprofWait> waits;  // printed in this order; section omitted when empty
};

struct TkprofOptions {
  // The legend tkprof prints before the first statement (count = ..., cpu = ...).
  bool legend = true;
};

// A statement as tkprof shows one DDL call: Parse count 1 (no time: cellsim does
// not time parsing), Execute count 1 with the result's CPU and elapsed time,
// Fetch count 0; the waits of every event with count > 0 in the order of
// stats::kWaitTable (a trace would list them by first occurrence, which a
// WaitValues delta does not keep).
TkprofStatement TkprofFromResult(const StatementSummary& result);

// One statement's block, ending with tkprof's line of 80 '*'.
std::string RenderTkprofStatement(const TkprofStatement& statement);
// The legend (when options.legend) and every statement.
std::string RenderTkprof(const std::vector<TkprofStatement>& statements,
                         const TkprofOptions& options = {});

}  // namespace cellsim::report

#endif  // CELLSIM_REPORT_TKPROF_H_
