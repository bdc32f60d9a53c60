// Cell: one simulated Exadata storage cell on real files — N grid disks (sparse
// block files) and one flash device holding a persistent write-back flash cache
// (directory + journal + checkpoint) — reached through CellService.
//
// A cell lives in its own folder: "<grid disk name>.img" per grid disk and
// "flash.img" for the flash device (metadata area + cache slots). Everything
// needed to reopen it (configuration, cache directory, fast-creation template
// ranges, lost ranges) is in flash.img, so Open(dir) after a restart or a crash
// finds the cell as it was at its last acknowledged request. docs/cell.md
// describes the on-flash format, the write/read/destage rules and the metric
// rules.
//
// Usage:
//   CellConfig cfg{.name = "cel01", .cell_disks = 2,
//                  .grid_disks = {{"DATA", 256 * kMiB}, {"RECO", 64 * kMiB}}};
//   auto cell = *Cell::Create(io, SystemClock(), "/rack/cel01", cfg);
//   std::vector<WriteRequest> w = {{.grid_disk = 0, .offset = 0, .data = buf}};
//   CellIoStats st;
//   ASSERT_OK(cell->Write(absl::MakeSpan(w), &st));
//   ASSERT_OK(cell->Close());
//   cell = *Cell::Open(io, SystemClock(), "/rack/cel01", {});
//
// Thread-safety: every CellService method, Close excepted, may be called
// concurrently; requests touching the same cache lines are serialized by range
// locks, others run in parallel. The background cleaner runs on its own thread.
#ifndef CELLSIM_CELL_CELL_H_
#define CELLSIM_CELL_CELL_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cellsim/base/clock.h"
#include "cellsim/base/units.h"
#include "cellsim/cell/cell_service.h"
#include "cellsim/io/io_backend.h"

namespace cellsim::cell {

// Cell disk `cell_disk` of cell `cell`: "CD_<nn>_<cell>" (CD_00_cel01).
std::string CellDiskName(uint32_t cell_disk, std::string_view cell);
// Grid disk `prefix` on cell disk `cell_disk` of cell `cell`: "<P>_CD_<nn>_<cell>"
// (DATA_CD_00_cel01).
std::string GridDiskName(std::string_view prefix, uint32_t cell_disk, std::string_view cell);
// The file of grid disk `grid_disk` in its cell's folder: "<name>.img".
std::string GridDiskFileName(std::string_view grid_disk);

// One kind of grid disk carved from every cell disk: grid disk i of prefix P on
// cell disk n is named GridDiskName(P, n, cell).
struct GridDiskSpec {
  std::string prefix;       // "DATA", "RECO"
  uint64_t size_bytes = 0;  // multiple of 1 MiB
  // The cachingPolicy its grid disks are created with.
  CachingPolicy caching_policy = CachingPolicy::kDefault;
};

// The cell's configuration; persisted in flash.img at Create, read back by Open
// (the flash cache mode may change later through SetFlashCacheMode).
struct CellConfig {
  std::string name = "cel01";
  uint32_t cell_disks = 2;
  std::vector<GridDiskSpec> grid_disks = {{"DATA", 64 * kMiB}, {"RECO", 16 * kMiB}};
  uint64_t flash_size_bytes = 64 * kMiB;  // the whole flash device incl. metadata
  uint32_t cache_line_size = 64 * kKiB;   // power of two, 4 KiB .. 256 KiB
  FlashCacheMode flash_cache_mode = FlashCacheMode::kWriteBack;
  // Dirty bytes as a fraction of the cache's data capacity: above `high` the
  // cleaner destages the coldest dirty lines until dirty <= `low`.
  double destage_high_watermark = 0.70;
  double destage_low_watermark = 0.40;
  // Writes of at least this many bytes bypass the cache and go to disk.
  uint64_t write_bypass_bytes = 1 * kMiB;
  // Read misses of fewer bytes than this populate the cache (larger reads,
  // like Exadata's scans, do not).
  uint64_t read_populate_max_bytes = 1 * kMiB;
  bool direct_io = false;  // O_DIRECT on grid disks and flash (fails clearly if refused)
  // Capacity of the persistent metadata: fast-creation template ranges and
  // lost ranges the flash can track, and the journal size.
  uint32_t max_template_ranges = 16384;
  uint32_t max_lost_ranges = 4096;
  uint64_t journal_bytes = 4 * kMiB;
  // Each grid disk's cachingPolicy, by grid disk index (kind-major, as
  // GridDiskName numbers them); empty at Create: from grid_disks' specs.
  // Changed by SetCachingPolicy, persisted in the superblock (format 2).
  std::vector<CachingPolicy> caching_policies;
  // Each grid disk's ALTER GRIDDISK ... INACTIVE, by grid disk index; empty
  // or short: active. Changed by SetGridDiskActive, persisted in the
  // superblock (format 4).
  std::vector<bool> inactive_grid_disks;

  // InvalidArgument naming the bad field and value.
  [[nodiscard]] absl::Status Validate() const;
};

struct CellOpenOptions {
  bool start_cleaner = true;  // start the background cleaner thread
  // Open only: every file O_RDONLY and nothing written (no checkpoint at open,
  // no cleaner, no read population, no sync at close). Journal replay happens
  // in memory. Write, FormatRange, Flush, SetFlashCacheMode and LoseFlash fail
  // with FailedPrecondition naming the cell.
  bool read_only = false;
  // Create and OpenWithNewFlash only: write zeros over flash.img's whole cache
  // area now (a real flash device has no holes; fio lays out its file the same
  // way before it measures). A slot page written for the first time lands in
  // a hole, and the fdatasync that makes it durable must then also commit the
  // filesystem's allocation (one journal commit more per durable write); on a
  // laid-out device it flushes data only. Costs one write of the device's size
  // at creation (so off by default: tests use small sparse files). The
  // journal area is laid out either way.
  bool lay_out_flash = false;
};

namespace internal {
class CellImpl;
}  // namespace internal

class Cell final : public CellService {
 public:
  // Creates the cell's folder `dir` (and parents), its grid disks and its flash
  // device. Errors: InvalidArgument for a bad config; AlreadyExists when `dir`
  // already holds a cell; I/O errors from the backend. `io` and `clock` must
  // outlive the cell.
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<Cell>> Create(
      io::IoBackend* io, Clock* clock, const std::string& dir, const CellConfig& config,
      const CellOpenOptions& options = {});
  // Reopens a cell after a clean close, a restart or a crash: loads the newest
  // valid superblock and checkpoint, replays the journal (dropping a torn tail)
  // and writes a fresh checkpoint. Errors: NotFound (no flash.img in `dir`),
  // DataLoss (metadata corrupt: which structure and why), FailedPrecondition
  // (a file has the wrong size, e.g. truncated).
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<Cell>> Open(
      io::IoBackend* io, Clock* clock, const std::string& dir,
      const CellOpenOptions& options = {});

  // A lost flash device (flash.img missing, neither superblock copy valid, or
  // its cache directory damaged: which lines hold the newest data unknown):
  // keeps the grid disk files, moves the damaged device aside to
  // flash.img.lost.<unix time> and formats a fresh one from `config` (the cell's
  // configuration as its owner recorded it). Whatever the lost flash held
  // (dirty lines, fast-creation templates) is gone: the caller must already
  // have recorded that the cell's grid disks are to be rebuilt from mirrors.
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<Cell>> OpenWithNewFlash(
      io::IoBackend* io, Clock* clock, const std::string& dir, const CellConfig& config,
      const CellOpenOptions& options = {});
  // True when `dir` holds a cell whose flash device is lost (see above); false
  // when it opens, when `dir` is missing, or for a flash of a newer format.
  static bool FlashLost(io::IoBackend* io, const std::string& dir);

  ~Cell() override;  // stops the cleaner and closes files (errors ignored)
  // Stops the cleaner, syncs the journal and closes every file. Dirty data stays
  // in flash (write-back contents survive a restart). Not concurrent with
  // other calls.
  [[nodiscard]] absl::Status Close();
  // What Open repaired (a flash superblock copy found damaged or older and
  // rewritten from the current one), or opened read-only, found and left as
  // it is ("... is ...; read copy B (generation N) instead"); empty after
  // Create or a healthy open.
  std::vector<std::string> metadata_repairs() const;

  // --- CellService ---
  std::string name() const override;
  absl::StatusOr<CellDescription> Describe() const override;
  absl::Status Read(absl::Span<ReadRequest> requests, CellIoStats* stats) override;
  absl::Status Write(absl::Span<WriteRequest> requests, CellIoStats* stats) override;
  absl::Status FormatRange(absl::Span<FormatRangeRequest> requests,
                           CellIoStats* stats) override;
  absl::StatusOr<FlushProgress> Flush(
      const std::function<void(const FlushProgress&)>& progress) override;
  absl::StatusOr<std::vector<Metric>> Metrics() const override;
  absl::Status SetFlashCacheMode(FlashCacheMode mode) override;
  absl::Status SetCachingPolicy(const std::string& grid_disk, CachingPolicy policy) override;
  absl::StatusOr<std::vector<LostRange>> LostRanges() const override;
  absl::Status Discard(absl::Span<DiscardRequest> requests, CellIoStats* stats) override;

  // CREATE GRIDDISK for a grid disk that is "not present" (its file was lost
  // and the device replaced): a new, empty, sparse file. The cell cannot tell
  // what it should hold: its owner (ASM) rebuilds it. AlreadyExists when the
  // grid disk is active; NotFound for an unknown name.
  [[nodiscard]] absl::Status CreateGridDisk(const std::string& name);
  // ALTER GRIDDISK name INACTIVE | ACTIVE. An inactive grid disk refuses
  // every request (Unavailable, naming it) and LIST GRIDDISK shows it
  // `inactive`; going inactive first destages the cache's dirty lines, so its
  // file alone holds its data. Its owner (ASM) takes it offline before and
  // resyncs it after (Rack::SetGridDiskActive). Durable when acknowledged;
  // NotFound for an unknown name, FailedPrecondition for one not present.
  [[nodiscard]] absl::Status SetGridDiskActive(const std::string& name, bool active);

  // --- cleaner ---
  void StartCleaner();
  // Waits for the cleaner thread to finish its current pass. Dirty data stays
  // in flash and persistent.
  void StopCleaner();
  bool CleanerRunning() const;
  // One cleaner pass on the calling thread: when dirty bytes exceed the high
  // watermark of the cache's capacity, or lines holding dirty pages exceed it
  // of its lines, destages the coldest dirty lines until both are at or below
  // the low watermark; and evicts cold clean lines until 1/32 of the slots (at
  // least 8) are free, so that writes of new lines need not evict. Returns the
  // bytes destaged.
  [[nodiscard]] absl::StatusOr<uint64_t> RunCleanerPass();

  // --- inspection ---
  uint32_t grid_disk_count() const;
  // Index of a grid disk by name ("DATA_CD_00_cel01"), or NotFound.
  [[nodiscard]] absl::StatusOr<uint32_t> GridDiskIndex(const std::string& name) const;
  FlashCacheMode flash_cache_mode() const;
  const CellConfig& config() const;
  uint64_t DirtyBytes() const;
  uint64_t UsedBytes() const;        // valid bytes cached in flash
  uint64_t CacheCapacityBytes() const;
  size_t TemplateRangeCount() const;  // fast-creation ranges not yet materialized
  // Checks the cache directory's invariants (dirty within valid, no slot
  // shared, no page both cached and templated, counts consistent): Internal
  // naming the violation. For tests and scrubbing.
  [[nodiscard]] absl::Status CheckConsistency() const;

  // Test hook: the flash device fails and is replaced by an empty one. Every
  // dirty page and every fast-creation range not yet materialized becomes a
  // LostRange (reads fail with DataLoss until rewritten); clean data is simply
  // gone from the cache. Persistent (the new flash metadata records the lost
  // ranges).
  [[nodiscard]] absl::Status LoseFlash();

 private:
  explicit Cell(std::unique_ptr<internal::CellImpl> impl);
  std::unique_ptr<internal::CellImpl> impl_;
};

}  // namespace cellsim::cell

#endif  // CELLSIM_CELL_CELL_H_
