// CellService: the narrow request interface between the database/ASM side and a
// storage cell, shaped like Oracle's iDB protocol: plain values in, plain values
// out (plus caller-owned data buffers), so that a cell could later run in another
// process behind an RPC layer without touching asm or db.
//
// Requests come in batches: a cell keeps every request of a batch in flight at
// once (io_uring), the way a real cell serves many outstanding iDB requests.
// Each request carries its own result status; the call's Status is OK only when
// every request succeeded.
//
// Every response also reports the cell-side statistics it caused (CellIoStats),
// which the database adds to the session that issued it, as Oracle does with
// the statistics carried back in iDB replies.
//
// Usage:
//   std::vector<WriteRequest> w = {{.grid_disk = 0, .offset = 0, .data = buf}};
//   CellIoStats st;
//   absl::Status s = cell->Write(absl::MakeSpan(w), &st);
//
// Thread-safety: every method may be called from several threads at once.
#ifndef CELLSIM_CELL_CELL_SERVICE_H_
#define CELLSIM_CELL_CELL_SERVICE_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "cellsim/format/block_template.h"

namespace cellsim::cell {

// The cell's page: the unit of its cache bitmaps, O_DIRECT I/O and journal
// chunks, and the unit the lost-page rule works in (a lost page is healed only
// by a write of the whole page; a sub-page write over it fails).
inline constexpr uint64_t kPageBytes = 4096;

enum class FlashCacheMode : uint8_t { kWriteBack, kWriteThrough };
std::string_view FlashCacheModeName(FlashCacheMode m);  // "WriteBack" / "WriteThrough"

// A grid disk's cachingPolicy (CellCLI): `default` lets the flash cache take
// its writes and read misses; `none` keeps its I/O off the flash cache (writes
// go to disk, reads do not populate), and fast data file creation, which
// lives in the write-back cache, does not apply to it. Oracle suggests `none`
// for RECO ("Write back caching can be disabled on the grid disks that do not
// need caching, such as the grid disks in the RECO disk group", SAGUG,
// alter-cell-caching-attributes).
enum class CachingPolicy : uint8_t { kDefault = 0, kNone = 1 };
std::string_view CachingPolicyName(CachingPolicy p);  // "default" / "none"

// How a FormatRange request is to be carried out.
enum class FormatMethod : uint8_t {
  kAuto,          // fast (metadata-only) in write-back mode, else smart
  kWriteBlocks,   // smart file creation: the cell writes every formatted block to disk
  kMetadataOnly,  // fast data file creation: persist the template only (write-back
                  // mode required; FailedPrecondition otherwise)
};

// Counts a request caused on the cell (the statistics a cell reports back).
struct CellIoStats {
  // cell writes to flash cache: write requests written entirely to flash.
  uint64_t flash_cache_writes = 0;
  // cell overwrites in flash cache: writes that hit a line already dirty.
  uint64_t flash_cache_overwrites = 0;
  // cell partial writes in flash cache: writes that covered part of a line.
  uint64_t flash_cache_partial_writes = 0;
  // cell flash cache read hits: read requests served entirely from flash.
  uint64_t flash_cache_read_hits = 0;
  // read requests answered (in whole or part) by generating blocks from a
  // fast-creation template: counted apart from flash hits and disk reads.
  uint64_t generated_reads = 0;
  uint64_t generated_bytes = 0;
  // bytes the cell formatted on behalf of the database (smart and fast paths):
  // cell physical IO bytes saved during optimized file creation.
  uint64_t bytes_saved_by_creation = 0;
  // bytes physically written to / read from grid disks and flash by this request.
  uint64_t disk_bytes_written = 0;
  uint64_t disk_bytes_read = 0;
  uint64_t flash_bytes_written = 0;
  uint64_t flash_bytes_read = 0;
  // metadata bytes persisted (journal records) by this request.
  uint64_t metadata_bytes_written = 0;

  CellIoStats& operator+=(const CellIoStats& o);
};

struct ReadRequest {
  uint32_t grid_disk = 0;
  uint64_t offset = 0;         // byte offset in the grid disk, 512-aligned
  absl::Span<uint8_t> buffer{};  // length 512-aligned; caller-owned
  absl::Status status{};       // result
};

struct WriteRequest {
  uint32_t grid_disk = 0;
  uint64_t offset = 0;               // 512-aligned
  absl::Span<const uint8_t> data{};  // length 512-aligned; caller-owned
  // A redo-type write (log file header): written to disk, not into the
  // write-back flash cache, as Exadata's write-back cache leaves redo to the
  // Smart Flash Log (the seed's header writes are no flash-cache writes).
  bool redo = false;
  absl::Status status{};             // result
};

struct FormatRangeRequest {
  uint32_t grid_disk = 0;
  uint64_t offset = 0;       // grid-disk byte offset of the range (512-aligned)
  uint64_t length = 0;       // bytes (512-aligned)
  format::BlockTemplate block_template{};
  uint64_t file_offset = 0;  // byte offset within the file that `offset` holds
  FormatMethod method = FormatMethod::kAuto;
  absl::Status status{};     // result
  bool metadata_only = false;  // result: true when done by the fast path
};

// A grid-disk range whose contents nobody needs any more: ASM freed its AUs
// (a dropped or shrunk file).
struct DiscardRequest {
  uint32_t grid_disk = 0;
  uint64_t offset = 0;   // 512-aligned; only whole 4 KiB pages inside are discarded
  uint64_t length = 0;   // 512-aligned
  absl::Status status{};  // result
};

struct GridDiskInfo {
  std::string name;        // e.g. "DATA_CD_00_cel01"
  std::string cell_disk;   // e.g. "CD_00_cel01"
  uint64_t size_bytes = 0;
  std::string status;      // "active", "inactive" (ALTER GRIDDISK ... INACTIVE), "not present"
  // Why a grid disk is "not present" ("DIR/cel02/DATA_CD_00_cel02.img is
  // missing"); empty when active.
  std::string status_reason{};
  // True when the cell cannot vouch for what the grid disk holds (its
  // write-back flash, which may have held newer data, was lost; its file has
  // the wrong size): ASM rebuilds the disk's whole content from the mirrors
  // instead of trusting it.
  bool content_lost = false;
  CachingPolicy caching_policy = CachingPolicy::kDefault;
};

struct CellDescription {
  std::string name;  // "cel01"
  FlashCacheMode flash_cache_mode = FlashCacheMode::kWriteBack;
  std::vector<GridDiskInfo> grid_disks;
  std::string flash_device;      // "FD_00_cel01"
  uint64_t flash_size_bytes = 0;
  uint64_t flash_cache_size_bytes = 0;  // effective cache size (data slots)
  uint32_t cache_line_size = 0;
  int64_t creation_time_unix = 0;
  std::string flash_cache_status;  // "normal", "degraded", "lost"
};

// One CellCLI metric value (LIST METRICCURRENT).
struct Metric {
  std::string name;         // "FC_BY_DIRTY"
  std::string object_type;  // "FLASHCACHE", "CELLDISK", "GRIDDISK", "CELL"
  std::string object;       // "FLASHCACHE", "CD_00_cel01", ...
  double value = 0;
  std::string unit;         // "MB", "IO requests", ...
};

struct FlushProgress {
  uint64_t dirty_bytes_remaining = 0;
  uint64_t bytes_destaged = 0;       // so far in this flush
  uint64_t ranges_materialized = 0;  // fast-creation ranges written out so far
  bool done = false;
};

// A range of a grid disk whose only up-to-date copy was lost (dirty lines of a
// failed flash device). Reads of it fail with DataLoss until it is rewritten.
struct LostRange {
  uint32_t grid_disk = 0;
  uint64_t offset = 0;
  uint64_t length = 0;
};

class CellService {
 public:
  virtual ~CellService() = default;

  virtual std::string name() const = 0;
  [[nodiscard]] virtual absl::StatusOr<CellDescription> Describe() const = 0;

  [[nodiscard]] virtual absl::Status Read(absl::Span<ReadRequest> requests,
                                          CellIoStats* stats) = 0;
  // Acknowledged (status OK) only when durable: in write-back mode after the
  // flash write and its metadata record are synced, in write-through mode after
  // the disk write is synced.
  [[nodiscard]] virtual absl::Status Write(absl::Span<WriteRequest> requests,
                                           CellIoStats* stats) = 0;
  // Formats ranges by the smart or fast path; acknowledged only when durable
  // (blocks synced, or template metadata synced).
  [[nodiscard]] virtual absl::Status FormatRange(absl::Span<FormatRangeRequest> requests,
                                                 CellIoStats* stats) = 0;
  // ALTER FLASHCACHE ALL FLUSH: destages every dirty line and materializes every
  // fast-creation range on disk, so the disks alone are authoritative. Calls
  // `progress` now and then (may be empty).
  [[nodiscard]] virtual absl::StatusOr<FlushProgress> Flush(
      const std::function<void(const FlushProgress&)>& progress) = 0;
  [[nodiscard]] virtual absl::StatusOr<std::vector<Metric>> Metrics() const = 0;
  // ALTER CELL flashCacheMode=...: switching WriteBack -> WriteThrough flushes first.
  [[nodiscard]] virtual absl::Status SetFlashCacheMode(FlashCacheMode mode) = 0;
  // ALTER GRIDDISK name cachingPolicy='none'|'default': switching a grid disk
  // to `none` first destages the cache's dirty lines (ALTER FLASHCACHE ALL
  // FLUSH), so its disk alone is authoritative; durable when acknowledged.
  // NotFound for an unknown grid disk.
  [[nodiscard]] virtual absl::Status SetCachingPolicy(const std::string& grid_disk,
                                                      CachingPolicy policy) = 0;
  // Ranges that lost their only current copy (see LostRange); ASM resyncs them.
  [[nodiscard]] virtual absl::StatusOr<std::vector<LostRange>> LostRanges() const = 0;
  // Forgets ranges whose contents are no longer needed (ASM freed the AUs of a
  // dropped file): their cache lines, dirty ones included, and fast-creation
  // templates are dropped without being written to disk, so no later flush or
  // cleaner pass writes a dropped file's data over AUs that may already hold a
  // new file; the grid-disk space is deallocated (punch hole) where the
  // filesystem allows (the ranges then read as zeros; elsewhere they keep
  // their old disk bytes). Durable when acknowledged.
  [[nodiscard]] virtual absl::Status Discard(absl::Span<DiscardRequest> requests,
                                             CellIoStats* stats) = 0;
};

}  // namespace cellsim::cell

#endif  // CELLSIM_CELL_CELL_SERVICE_H_
