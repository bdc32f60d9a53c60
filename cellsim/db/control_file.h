// Private: the control files. Two of them, each an ASM file of type
// CONTROLFILE: one in each of two disk groups (Oracle's OMF default with
// DB_CREATE_FILE_DEST and DB_RECOVERY_FILE_DEST), or both in one group. Each is
// kControlFileBlocks blocks of 16 KiB:
//
//   block 0              file header (magic, version, copy#, dbid, db name)
//   blocks 1..15         table slot 0
//   blocks 16..30        table slot 1
//
// The file table is written, as sequence s, into slot s % 2 of both copies at
// once, so the other slot always holds the previous complete table: a crash
// mid-write loses at most the change being written. Every block carries magic,
// dbid, sequence and an xxHash64 checksum (docs/db.md "Control file").
#ifndef CELLSIM_DB_CONTROL_FILE_H_
#define CELLSIM_DB_CONTROL_FILE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cellsim/asm/disk_group.h"
#include "cellsim/db/accounting.h"
#include "cellsim/db/file_table.h"

namespace cellsim::db::internal {

inline constexpr uint32_t kControlFileBlockSize = 16384;
inline constexpr uint32_t kControlFileSlotBlocks = 15;
inline constexpr uint32_t kControlFileBlocks = 1 + 2 * kControlFileSlotBlocks;
inline constexpr uint32_t kControlFileCopies = 2;

// One control file: its disk group and its ASM file.
struct ControlFileCopy {
  asmgr::DiskGroup* dg = nullptr;
  asmgr::FileInfo file;
};

// Decoding of one copy's blocks, exposed for the fuzz targets and the
// hostile-input tests (ControlFile::Open is the only other user).
struct Header {
  uint32_t dbid = 0;
  std::string db_name;
};
// Block 0 (kControlFileBlockSize bytes at `block`): DataLoss "ORA-00202:
// control file FILE: header block 0 is invalid: WHY" (checksum, magic, newer or
// unsupported format version, geometry).
[[nodiscard]] absl::StatusOr<Header> ParseHeader(const uint8_t* block, const std::string& file);

struct SlotContent {
  uint64_t sequence = 0;
  uint32_t blocks = 0;
  FileTable table;
};
// Parses the table in `blocks` (`available` <= kControlFileSlotBlocks blocks of
// kControlFileBlockSize bytes). Returns nullopt when the slot is empty, torn or
// foreign, and sets `why`.
std::optional<SlotContent> ParseSlot(const uint8_t* blocks, size_t available, uint32_t dbid,
                                     std::string* why);
// Writes the block's checksum into its last 8 bytes.
void SealControlFileBlock(uint8_t* block);

class ControlFile {
 public:
  // Creates the kControlFileCopies copies, copy i in dgs[i % dgs.size()],
  // formats every block (header, empty slots) and writes `table` as sequence
  // 1. On error, deletes what it created.
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<ControlFile>> Create(
      const std::vector<asmgr::DiskGroup*>& dgs, const FileTable& table, Recorder& rec);
  // Finds the copies of database `db_name` in `dgs`, reads them, returns the
  // newest valid table in `table` and rewrites a copy that is older or damaged
  // (noting it in `actions`).
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<ControlFile>> Open(
      const std::vector<asmgr::DiskGroup*>& dgs, const std::string& db_name, Recorder& rec,
      FileTable* table, std::vector<std::string>* actions);

  // Writes `table` as the next sequence to both copies concurrently: one
  // `control file parallel write` wait. On error the sequence does not move
  // (the previous slot stays intact), and the error names the copy.
  [[nodiscard]] absl::Status Write(const FileTable& table, Recorder& rec);
  // Reads the current table blocks from copy `copy` (default the first; one
  // `control file sequential read`) and checks they are the ones last
  // written. DataLoss (ORA-00227) otherwise.
  [[nodiscard]] absl::Status ReadCurrent(Recorder& rec, size_t copy = 0);

  uint64_t sequence() const { return sequence_; }
  std::vector<std::string> names() const;
  const std::vector<ControlFileCopy>& files() const { return files_; }

 private:
  ControlFile(std::vector<ControlFileCopy> files, uint32_t dbid, uint64_t sequence,
              uint32_t blocks_in_use)
      : files_(std::move(files)), dbid_(dbid), sequence_(sequence),
        blocks_in_use_(blocks_in_use) {}

  std::vector<ControlFileCopy> files_;  // the copies, by disk group then file number
  uint32_t dbid_;
  uint64_t sequence_;
  uint32_t blocks_in_use_;  // blocks of the current table in its slot
};

}  // namespace cellsim::db::internal

#endif  // CELLSIM_DB_CONTROL_FILE_H_
