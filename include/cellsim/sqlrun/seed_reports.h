// The temp-undo seed's reports, in its layouts (../shared/seeds/temp-undo-redo.txt):
//
// stats-report.sql (the 5-second monitor):
//   NAME                                                VALUE    TXCOUNT
//   ---------------------------------------- ---------------- ----------
//   redo size                                     984,328,224       2407
//   undo change vector size                       588,628,380       2407
//
// allseg.sql (V$UNDOSTAT left-joined to V$TEMPUNDOSTAT on BEGIN_TIME, ascending):
//                                              PERM                    TEMP
//                                              UNDO    PERM    TEMP    UNDO
//   BEGIN_TIME          END_TIME               BLKS    UNDO    UNDO    BLKS
//   ------------------- ------------------- ------- ------- ------- -------
//   07/05/2022 12:46:20 07/05/2022 12:56:20   98309    3618
//
// Thread-safety: Render* are pure; QueryAllseg uses the given session.
#ifndef CELLSIM_SQLRUN_SEED_REPORTS_H_
#define CELLSIM_SQLRUN_SEED_REPORTS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cellsim/db/database.h"
#include "cellsim/sqlrun/driver.h"

namespace cellsim::sqlrun {

// The monitor's report for one sample (TXCOUNT: the tally, or the driver's
// transaction count when the tally query failed).
std::string RenderStatsReport(const Sample& s);

struct AllsegRow {
  int64_t begin_unix = 0, end_unix = 0;
  int64_t perm_undo_blocks = 0, perm_txn_count = 0;
  std::optional<int64_t> temp_txn_count, temp_undo_blocks;  // no V$TEMPUNDOSTAT row: empty
};

// V$UNDOSTAT and V$TEMPUNDOSTAT through `session`, joined as allseg.sql does.
[[nodiscard]] absl::StatusOr<std::vector<AllsegRow>> QueryAllseg(db::Session& session);
std::string RenderAllseg(const std::vector<AllsegRow>& rows);

}  // namespace cellsim::sqlrun

#endif  // CELLSIM_SQLRUN_SEED_REPORTS_H_
