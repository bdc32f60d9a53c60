// Private: the creation engine. Formats every block of every mirror copy of
// one ASM file by one of the three paths (docs/db.md "Creation engine"):
//
//   zero-fill  GenerateRange() into batches of large requests written through
//              DiskGroup::Write (ASM mirrors them), several batches in flight
//              while the next one is generated;
//   smart      DiskGroup::FormatFile with FormatMethod::kWriteBlocks;
//   fast       DiskGroup::FormatFile with FormatMethod::kMetadataOnly.
//
// ChoosePath() decides as Oracle does: offload when every cell of the disk
// group can take it and "_cell_fast_file_create" is TRUE; the metadata-only
// path when moreover every cell is WriteBack and the session allows it.
#ifndef CELLSIM_DB_CREATION_H_
#define CELLSIM_DB_CREATION_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cellsim/asm/disk_group.h"
#include "cellsim/db/accounting.h"
#include "cellsim/db/database.h"
#include "cellsim/format/block_template.h"

namespace cellsim::db::internal {

struct PathChoice {
  CreationPath path = CreationPath::kZeroFill;
  std::string reason;
};

// Errors: those of CellService::Describe (a cell that cannot describe itself
// cannot be asked to format either).
[[nodiscard]] absl::StatusOr<PathChoice> ChoosePath(const asmgr::DiskGroup& dg, bool offload,
                                                    bool metadata_only_allowed);

struct FormatJob {
  asmgr::DiskGroup* dg = nullptr;
  asmgr::FileInfo file;
  format::BlockTemplate block_template;
  stats::Wait init_write_wait = stats::Wait::kDataFileInitWrite;  // zero-fill's wait
  // Checked between units of work (zero-fill batches, smart format calls):
  // when set, formatting stops and returns CancelStatus().
  const CancelFlag* cancel = nullptr;
  // Where formatting starts: 0 for a new file (every block but block 1, the
  // header the database writes); a resize's old end of file for its
  // extension [from, end), all of which is formatted. A multiple of 512.
  uint64_t from = 0;
};

// Cancelled, kCancelMessage (ORA-01013).
absl::Status CancelStatus();

// Formats the file (from job.from on) by `path`, recording statistics and waits in `rec`,
// reporting progress (may be empty). Returns the first error; what was
// written stays (the caller deletes the file).
[[nodiscard]] absl::Status FormatByPath(Recorder& rec, const FormatJob& job, CreationPath path,
                                        const DatabaseOptions& options,
                                        const ProgressCallback& progress);

// The fast path for several files of one statement: every range of every
// job in one DiskGroup::FormatFiles (each cell gets the metadata-only
// requests of all the files at once, in calls of fast_requests_per_format),
// the waits recorded as the foreground sees the merged replies, file after
// file. Fills format_ns[i] per job (the time of the whole format: the files
// are formatted together); on error returns the first failure and sets
// *failed_job to its index.
[[nodiscard]] absl::Status FormatFastTogether(Recorder& rec, const std::vector<FormatJob>& jobs,
                                              const DatabaseOptions& options,
                                              const ProgressCallback& progress,
                                              std::vector<uint64_t>* format_ns,
                                              size_t* failed_job);

}  // namespace cellsim::db::internal

#endif  // CELLSIM_DB_CREATION_H_
