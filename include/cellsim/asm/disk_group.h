// DiskGroup: an ASM disk group over grid disks of several cells.
//
// A disk group hands out space in allocation units (AU) and keeps, per file, an
// extent map (one AU per extent; docs/asm.md says why). Every extent has 1, 2 or
// 3 copies (EXTERNAL / NORMAL / HIGH) in distinct failure groups, one failure
// group per cell; mirror copies go to partners of the primary's disk (<= 8 per
// disk). I/O goes through the cells' CellService only: a write is sent to every
// live copy at once and succeeds when at least one copy landed; a copy that fails
// takes its disk offline (the error is kept); reads go to the primary copy and
// fail over to the others. While a disk is offline the extents written meanwhile
// are tracked (persistently), so OnlineDisk() copies only those (fast mirror
// resync). The directory and extent maps live in a journal + two checkpoint slots
// in `metadata_dir`, checksummed and versioned; every operation is acknowledged
// only after its metadata is synced.
//
// Usage:
//   DiskGroupEnv env{.io = io, .clock = clock, .metadata_dir = dir + "/asm",
//                    .cells = {cel01, cel02, cel03}};
//   DiskGroupConfig cfg{.name = "DATA", .redundancy = Redundancy::kNormal,
//                       .disks = {{0, 0}, {1, 0}, {2, 0}}};
//   ASSERT_OK_AND_ASSIGN(auto dg, DiskGroup::Create(env, cfg));
//   ASSERT_OK_AND_ASSIGN(FileInfo f, dg->CreateFile({.db_name = "ORCL",
//       .type = FileType::kOnlineLog, .tag = "group_5", .size_bytes = 64 * kMiB}));
//   std::vector<AsmWriteRequest> w = {{.file_offset = 0, .data = bytes}};
//   AsmIoResult r;
//   ASSERT_OK(dg->Write(f.number, absl::MakeSpan(w), &r));
//
// Thread-safety: every method may be called from several threads at once.
// Reads, writes and formats run concurrently; maintenance (OnlineDisk, Resync*)
// runs alone, Scrub alone one batch at a time. The CellService objects must outlive the disk group.
#ifndef CELLSIM_ASM_DISK_GROUP_H_
#define CELLSIM_ASM_DISK_GROUP_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "cellsim/asm/types.h"
#include "cellsim/base/clock.h"
#include "cellsim/cell/cell_service.h"
#include "cellsim/io/io_backend.h"

namespace cellsim::asmgr {

// What a disk group runs on.
struct DiskGroupEnv {
  io::IoBackend* io = nullptr;    // metadata files go through it
  Clock* clock = nullptr;         // creation times, incarnations
  std::string metadata_dir{};       // holds <NAME>.journal, <NAME>.ckpt0/.ckpt1
  std::vector<cell::CellService*> cells{};  // index = DiskRef::cell = failure group
  // Open only: mount without writing (metadata files O_RDONLY, no checkpoint
  // at Close); every change fails with FailedPrecondition.
  bool read_only = false;
};

struct DiskGroupConfig {
  std::string name{};  // "DATA": letters, digits, '_'; upper-cased
  Redundancy redundancy = Redundancy::kNormal;
  uint64_t au_size = kDefaultAuSize;
  std::vector<DiskRef> disks{};
  uint32_t max_partners = kMaxPartners;  // 1..8
  // A checkpoint is written (and the journal emptied) when the journal grows
  // beyond this many bytes.
  uint64_t checkpoint_after_bytes = 4ull << 20;
};

class DiskGroup;

// One file's part of DiskGroup::WriteFiles.
struct FileWrite {
  DiskGroup* disk_group = nullptr;
  uint32_t file = 0;
  absl::Span<AsmWriteRequest> requests{};
  absl::Status status{};  // result: as DiskGroup::Write's for these requests
};

// One file's part of DiskGroup::FormatFiles.
struct FileFormat {
  DiskGroup* disk_group = nullptr;
  uint32_t file = 0;
  FormatOptions options{};
  FormatResult* result = nullptr;  // rows appended, I/O added (not owned)
  absl::Status status{};           // result: as DiskGroup::FormatFile's
};

class DiskGroup {
 public:
  // Creates a disk group on `config.disks` and persists its (empty) directory.
  // Errors (InvalidArgument, nothing is written):
  //   "disk group DATA: NORMAL redundancy needs at least 2 failure groups, the
  //    disks given are in 1 (cel01)"; HIGH likewise with 3;
  //   "disk group DATA: AU size 3 MiB is not one of 1, 2, 4, 8, 16, 32, 64 MiB";
  //   "disk group DATA: disk DATA_CD_00_cel01 is listed twice";
  //   "disk group DATA: cell 5 does not exist (the rack has 3 cells)";
  //   "disk group DATA: grid disk 7 of cel01 does not exist (it has 2)";
  //   "disk group DATA: grid disk DATA_CD_00_cel01 (X MiB) is smaller than one AU";
  // AlreadyExists when metadata of a group of that name is in metadata_dir.
  // (A disk already in another group is refused by Rack::CreateDiskGroup.)
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<DiskGroup>> Create(
      const DiskGroupEnv& env, const DiskGroupConfig& config);
  // Mounts an existing group: loads the newest valid checkpoint, replays the
  // journal (a torn tail is dropped), and checks that each disk's cell still
  // has a grid disk of the recorded name and size. Errors: NotFound when there
  // is no metadata; DataLoss when no checkpoint slot is valid, naming the files.
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<DiskGroup>> Open(
      const DiskGroupEnv& env, const std::string& name);

  ~DiskGroup();
  DiskGroup(const DiskGroup&) = delete;
  DiskGroup& operator=(const DiskGroup&) = delete;

  // Writes a checkpoint and closes the metadata files. Safe to skip (the
  // journal is always synced); the destructor closes without checkpointing.
  [[nodiscard]] absl::Status Close();

  const std::string& name() const;
  Redundancy redundancy() const;
  // Copies of the group's redundancy (a file's own are FileInfo::copies, from
  // its type's template: a control file in a NORMAL group has 3).
  uint32_t copies() const { return Copies(redundancy()); }
  uint64_t au_size() const;
  uint32_t disk_count() const;
  DiskRef disk(uint32_t index) const;
  // Partner disks of `index` (disk indices, all in other failure groups).
  std::vector<uint32_t> Partners(uint32_t index) const;
  // The disk index of a grid disk name ("DATA_CD_01_cel02"), case-insensitive.
  [[nodiscard]] absl::StatusOr<uint32_t> FindDisk(std::string_view grid_disk_name) const;
  cell::CellService* cell(uint32_t cell_index) const;
  uint32_t cell_count() const;

  // ----------------------------------------------------------- files

  // Allocates ceil(size / AU) extents x the file's copies (its type's template
  // in this group: TemplateRedundancy, lowered by PlacedCopies) and records
  // the file. ResourceExhausted when it does not fit, nothing allocated:
  //   "disk group DATA has 12 MiB usable free (24 MiB raw, NORMAL redundancy),
  //    8192 MiB requested for +DATA/ORCL/ONLINELOG/group_5" (usable: raw / the
  //    file's copies)
  // InvalidArgument for an empty db name or tag, a size of 0 or not a multiple of
  // 512, or a tag with '/' or '.'.
  [[nodiscard]] absl::StatusOr<FileInfo> CreateFile(const FileSpec& spec);
  // Grows (allocating extents, same error as CreateFile) or shrinks (freeing
  // whole extents past the new end) a file. NotFound for an unknown file.
  [[nodiscard]] absl::StatusOr<FileInfo> ResizeFile(uint32_t file, uint64_t new_size);
  // Frees every extent of the file. NotFound for an unknown file.
  [[nodiscard]] absl::Status DeleteFile(uint32_t file);
  // By file number, or by full name ("+DATA/ORCL/ONLINELOG/group_5.256.123",
  // case-insensitive). NotFound otherwise.
  [[nodiscard]] absl::StatusOr<FileInfo> LookupFile(uint32_t file) const;
  [[nodiscard]] absl::StatusOr<FileInfo> LookupFile(std::string_view name) const;
  std::vector<FileInfo> ListFiles() const;
  // The extent map of a file (all extents, or those overlapping
  // [file_offset, file_offset + length)).
  [[nodiscard]] absl::StatusOr<std::vector<Extent>> ExtentMap(
      uint32_t file, uint64_t file_offset = 0, uint64_t length = UINT64_MAX) const;

  // ----------------------------------------------------------- I/O

  // Mirrored write: each request is split at extent boundaries and every piece
  // is sent to every copy whose disk is online, batched per cell, all cells at
  // once. A piece succeeds when >= 1 copy landed; a failed copy takes its disk
  // offline (recorded in `result->failures` and the disk's last error) and the
  // extent is marked stale on it, persistently, before the call returns.
  // Copies on disks already offline are marked stale. Returns OK when every
  // request succeeded, else the first failed request's status. Offsets and
  // lengths must be multiples of 512 and inside the file (OutOfRange otherwise).
  [[nodiscard]] absl::Status Write(uint32_t file, absl::Span<AsmWriteRequest> requests,
                                   AsmIoResult* result);
  // Write of several files, in one or more disk groups, at once: the copies
  // bound for one cell go to it in one request batch whichever group they
  // belong to (a write-back cell journals and syncs them together: one flash
  // sync per cell, where separate Writes would take one per group). Each
  // FileWrite gets its own status under Write's rules; `result` sums the I/O
  // of all of them. Returns the first failed write's status. Thread-safe; the
  // groups' I/O locks are taken shared, in a fixed order.
  [[nodiscard]] static absl::Status WriteFiles(absl::Span<FileWrite> writes,
                                               AsmIoResult* result);
  // Reads each piece from its primary copy; on error (or an offline/stale
  // primary) from the next copy. A copy that returned an error is repaired by
  // rewriting the good data onto it; if that write fails its disk goes offline.
  [[nodiscard]] absl::Status Read(uint32_t file, absl::Span<AsmReadRequest> requests,
                                  AsmIoResult* result);
  // Smart / fast file creation: one FormatRangeRequest per extent copy of the
  // range, batched per cell (see FormatOptions::requests_per_call), all cells at
  // once. Failure rules as for Write.
  [[nodiscard]] absl::Status FormatFile(uint32_t file, const FormatOptions& options,
                                        FormatResult* result);
  // FormatFile of several files (or ranges of one), in one or more disk
  // groups, at once: the requests bound for one cell go to it together,
  // whichever format they belong to, in calls of the smallest
  // requests_per_call of the formats (0: one call per cell, which a
  // write-back cell journals and syncs once). Each FileFormat gets its own
  // status and rows under FormatFile's rules; the cells' statistics of a call
  // that carried several formats' requests are added to the result of the
  // format of its first request (sums over the results are exact). Returns
  // the first failed format's status. Thread-safe, as WriteFiles.
  [[nodiscard]] static absl::Status FormatFiles(absl::Span<FileFormat> formats);

  // ---------------------------------------------------- maintenance

  // ALTER DISKGROUP ... OFFLINE DISK: later writes mark their extents stale on it.
  [[nodiscard]] absl::Status OfflineDisk(uint32_t disk);
  // ALTER DISKGROUP ... ONLINE DISK: fast mirror resync (copies only the stale
  // extents from a good copy), then marks the disk online.
  [[nodiscard]] absl::Status OnlineDisk(uint32_t disk, ResyncResult* result);
  // The offline disk's device was replaced by an empty one (CellCLI CREATE
  // GRIDDISK after a loss): every AU it holds becomes stale, so OnlineDisk
  // rebuilds its whole content from the mirrors. Persisted before the new
  // device exists, so a crash in between never trusts an empty disk.
  // FailedPrecondition when the disk is online.
  [[nodiscard]] absl::Status MarkDiskReplaced(uint32_t disk);
  // ALTER DISKGROUP ... ONLINE ALL: OnlineDisk for every disk that is offline
  // or holds stale copies (e.g. copies a full filesystem refused).
  [[nodiscard]] absl::Status OnlineAll(ResyncResult* result);
  // Resyncs the stale extents of every online disk (e.g. after a crash during a
  // resync), without changing disk states.
  [[nodiscard]] absl::Status ResyncStale(ResyncResult* result);
  // Asks every cell for LostRanges (dirty flash lines lost with a flash device)
  // and rewrites the parts of this group's extents they cover from good copies.
  [[nodiscard]] absl::Status ResyncLostRanges(ResyncResult* result);
  // Reads every copy of every extent and compares them (up to the file size),
  // judging and (with options.repair) rewriting copies as ScrubMismatch says.
  // Cancelled when options.cancel stops it between batches; `result` then
  // holds what it found and repaired so far. It excludes the group's reads
  // and writes one batch (64 MiB of copies) at a time, each batch's extents
  // taken as the catalog has them then (an extent dropped since the start
  // is left out; files created since are not scrubbed).
  [[nodiscard]] absl::Status Scrub(const ScrubOptions& options, ScrubResult* result);

  // --------------------------------------------------------- views

  SpaceInfo Space() const;
  DiskGroupView View() const;
  std::vector<DiskView> Disks() const;
  std::vector<FileView> Files() const;
  // V$ASM_TEMPLATE / asmcmd lstmpl: the group's system templates (the
  // redundancy each file type is created with; TemplateRedundancy).
  std::vector<TemplateView> Templates() const;
  // Cross-checks the extent maps with the per-disk allocation maps: every AU
  // owned exactly once, every copy in a distinct failure group on a partner of
  // the primary, free counts right. Internal error describing the first breach.
  [[nodiscard]] absl::Status CheckConsistency() const;
  // Metadata sequence number (grows with every persisted change).
  uint64_t metadata_sequence() const;
  // Metadata copies (checkpoint, journal) that Open found damaged, torn or
  // behind and rewrote from a current copy; mounted read-only, the
  // checkpoint copies it found so and left as they are.
  std::vector<std::string> metadata_repairs() const;

  struct State;  // implementation detail (cellsim/asm)

 private:
  explicit DiskGroup(std::unique_ptr<State> state);
  std::unique_ptr<State> s_;
};

}  // namespace cellsim::asmgr

#endif  // CELLSIM_ASM_DISK_GROUP_H_
