// DiskGroup::State and the helpers its implementation files share.
//
// Locking: `io_mu` is taken shared by reads, writes and formats and exclusively
// by maintenance (offline/online, resync, scrub), so a resync never races a
// write to the extent it copies. `mu` guards the catalog and the metadata store
// and is never held across cell I/O. Order: io_mu, then mu (mu is
// ABSL_ACQUIRED_AFTER io_mu; clang's -Wthread-safety checks both).
//
// Private to cellsim/asm.
#ifndef CELLSIM_ASM_DISK_GROUP_STATE_H_
#define CELLSIM_ASM_DISK_GROUP_STATE_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "cellsim/asm/catalog.h"
#include "cellsim/asm/disk_group.h"
#include "cellsim/asm/meta_store.h"
#include "cellsim/base/mutex.h"

namespace cellsim::asmgr {

struct DiskGroup::State {
  DiskGroupEnv env;
  uint64_t checkpoint_after = 4ull << 20;

  mutable SharedMutex io_mu;
  mutable Mutex mu ABSL_ACQUIRED_AFTER(io_mu);
  internal::Catalog cat ABSL_GUARDED_BY(mu);
  std::unique_ptr<internal::MetaStore> store ABSL_GUARDED_BY(mu);
  // Set by a failed metadata write: the group is dismounted.
  absl::Status broken ABSL_GUARDED_BY(mu);
  // Copies rewritten by bad-block repair since mount (DiskGroupView).
  std::atomic<uint64_t> bad_blocks_repaired{0};

  // Persists `bodies` as the next records and applies them. Requires mu.
  // FailedPrecondition once the group has been dismounted by an earlier
  // metadata write error (which this call reports the first time).
  [[nodiscard]] absl::Status Commit(std::vector<std::vector<uint8_t>> bodies)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);

  // The catalog's fields that never change once the group exists: its name,
  // redundancy and AU size, and the disk list with each disk's ref, name,
  // failure group, size and partners (not online, stale, owners: those need
  // mu). The analysis cannot tell fields of one guarded member apart, so these
  // few are read through fixed() without mu.
  const internal::Catalog& fixed() const ABSL_NO_THREAD_SAFETY_ANALYSIS { return cat; }
  // The whole catalog, read-only, for a function that holds mu (clang loses
  // the lock when a const reference is bound to `cat` directly).
  const internal::Catalog& catalog() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) { return cat; }

  // The byte offset of an AU in its grid disk.
  uint64_t AuOffset(uint32_t au) const { return uint64_t{au} * fixed().au_size; }
  // Valid bytes of extent `x` of file `f`.
  uint64_t ExtentLength(const internal::FileRec& f, uint32_t x) const {
    const uint64_t off = uint64_t{x} * fixed().au_size;
    return std::min<uint64_t>(fixed().au_size, f.info.size_bytes - off);
  }
  // Its name, or "file N" (for error messages built after mu is released).
  std::string FileLabel(uint32_t file) const ABSL_LOCKS_EXCLUDED(mu);
};

namespace internal {

// One request to one copy (a grid disk of a cell) inside a batch.
struct CopyIo {
  uint32_t cell = 0;
  uint32_t grid_disk = 0;
  uint64_t offset = 0;
  uint8_t* buffer = nullptr;  // read: destination; write: source
  size_t length = 0;
  absl::Status status;
  bool redo = false;  // write: a redo-type write (cell::WriteRequest::redo)
};

// Sends every request to its cell, one batch per cell, all cells at once, and
// adds the requests, bytes and cell statistics to `io`.
void DoCellIo(const DiskGroupEnv& env, bool write, absl::Span<CopyIo> ios, AsmIoStats* io);

// The first whole block of [file_offset, +length) of a file of `type` (its
// `data`) that fails Oracle's block checks: a data or redo block's checksum
// and, with `addresses`, a data file block's type and address
// (AsmReadRequest::verify_checksums / verify_addresses). Other file types
// carry no check ASM can make: never a bad block.
std::optional<uint64_t> FirstBadBlock(FileType type, uint32_t block_size, uint64_t file_offset,
                                      const uint8_t* data, uint64_t length, bool addresses);

// Requests of one disk group (CopyIo::cell indexes env->cells).
struct CellIoBatch {
  const DiskGroupEnv* env = nullptr;
  absl::Span<CopyIo> ios;
};
// DoCellIo over the batches of several disk groups that may share cells: the
// requests bound for one cell (CellService) go to it in one call, whichever
// group they come from, all cells at once (the first batch's clock).
void DoCellIoAcross(absl::Span<const CellIoBatch> batches, bool write, AsmIoStats* io);

// The copies of `file`'s extents on online disks, as cell discard requests
// (requires mu): what DiscardCopies sends once the AUs are freed.
std::vector<std::pair<uint32_t, cell::DiscardRequest>> DiscardRequestsFor(
    const DiskGroup::State& s, const FileRec& file)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(s.mu);
// Tells each cell that its ranges of `requests` (cell, request) hold nothing
// any more (CellService::Discard), all cells at once. Call it after the commit
// that freed them and before the AUs can be written again (hold io_mu
// exclusively). Best effort: a cell that fails keeps the stale lines, which
// only costs a flush their write-back.
void DiscardCopies(const DiskGroupEnv& env,
                   std::vector<std::pair<uint32_t, cell::DiscardRequest>> requests);

// Runs fn(i) for each i in `items` concurrently: base ForkJoin (one thread per
// item but the last, or one after another in modeled time for a simulated clock).
void RunConcurrently(Clock* clock, const std::vector<uint32_t>& items,
                     const std::function<void(uint32_t)>& fn);

// Mount with what the redundancy allows: disks whose grid disk is "not
// present" (or whose content the cell lost) go OFFLINE, persistently, and
// the AUs of a content-lost disk become stale (rebuilt from the mirrors by
// OnlineDisk). Refuses (ORA-15040/ORA-15042, naming each missing disk and
// why) when disks of `copies` failure groups are missing, or an extent would
// have no current copy.
[[nodiscard]] absl::Status MountWithMissingDisks(
    DiskGroup::State& s, const std::map<uint32_t, cell::CellDescription>& described)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(s.mu);

}  // namespace internal
}  // namespace cellsim::asmgr

#endif  // CELLSIM_ASM_DISK_GROUP_STATE_H_
