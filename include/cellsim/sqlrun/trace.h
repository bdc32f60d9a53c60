// 10046-style SQL trace files (event 10046 level 12, what `sqlrun --trace`
// sets): what the driver writes per session and what `cellsim tkprof` reads
// back into report::TkprofStatement (include/cellsim/report/tkprof.h renders
// them). Lines written, as Oracle's trace has them:
//
//   PARSING IN CURSOR #1 len=48 dep=0 uid=0 oct=2 lid=0 tim=1700000000123456 hv=... ad='0' sqlid='...'
//   insert into sqlrun_gtt select * from all_objects
//   END OF STMT
//   PARSE #1:c=0,e=12,p=0,cr=0,cu=0,mis=1,r=0,dep=0,og=1,plh=0,tim=...
//   EXEC #1:c=412000,e=455123,p=0,cr=0,cu=1291,mis=0,r=70000,dep=0,og=1,plh=0,tim=...
//   WAIT #1: nam='log file sync' ela= 511 buffer#=0 sync scn=0 p3=0 obj#=-1 tim=...
//   WAIT #2: nam='cell smart file creation' ela= 980 cellhash#=2393838416 p2=0 p3=0 obj#=-1 tim=...
//   XCTEND rlbk=0, rd_only=0, tim=...
//
// c and e are microseconds (c: this machine's CPU, e: the run's clock). One
// WAIT line per wait of the call (StatementResult::wait_events), in order:
// its time, its parameters by their V$EVENT_NAME names ("p1".."p3" for an
// unnamed one, as Oracle prints them) and `tim` its end.
//
// Thread-safety: a TraceWriter belongs to one session's thread; ParseTrace is pure.
#ifndef CELLSIM_SQLRUN_TRACE_H_
#define CELLSIM_SQLRUN_TRACE_H_

#include <cstdint>
#include <fstream>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cellsim/db/database.h"
#include "cellsim/report/tkprof.h"

namespace cellsim::sqlrun {

// One wait's WAIT line (with its newline) for cursor `cursor`.
std::string WaitLine(int cursor, const stats::WaitEvent& e);

class TraceWriter {
 public:
  // Creates `path` (truncating it) with Oracle's trace-file header lines.
  [[nodiscard]] absl::Status Open(const std::string& path, uint32_t sid, std::string_view identifier);
  // One call of `sql` (parsed on its first call): PARSE (first time), EXEC,
  // the waits and, for COMMIT/ROLLBACK, XCTEND. `elapsed_us` is the call's
  // time by the run's clock, `tim_us` its end.
  void Call(std::string_view sql, const db::StatementResult& r, uint64_t elapsed_us,
            uint64_t tim_us);
  [[nodiscard]] absl::Status Close();
  bool is_open() const { return out_.is_open(); }

 private:
  std::ofstream out_;
  std::map<std::string, int, std::less<>> cursors_;
};

// Reads trace files' text and aggregates the calls per statement text, in
// the order each statement was first parsed: what tkprof prints. Lines of
// other kinds are skipped; a truncated trace (killed session) keeps what it
// holds. InvalidArgument naming the line for a malformed PARSING/PARSE/EXEC/WAIT line.
[[nodiscard]] absl::StatusOr<std::vector<report::TkprofStatement>> ParseTrace(
    const std::vector<std::string>& texts);

}  // namespace cellsim::sqlrun

#endif  // CELLSIM_SQLRUN_TRACE_H_
