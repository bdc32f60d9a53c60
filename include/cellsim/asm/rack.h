// Rack: one directory holding a set of storage cells and the ASM disk groups
// built on their grid disks: the unit a database mounts.
//
// Layout of a rack directory:
//   DIR/rack.meta0, rack.meta1   rack configuration (two identical checksummed copies)
//   DIR/cel01/ ... DIR/celNN/    one cell::Cell each (grid disks, flash, journal)
//   DIR/asm/DATA.*, RECO.*       disk-group metadata (see disk_group.h)
// Each cell has `cell_disks_per_cell` cell disks CD_00..; each cell disk
// carries one grid disk per disk group ("DATA_CD_00_cel01"); disk group G is
// made of grid disks G_CD_*_* of every cell, one failure group per cell.
//
// Usage:
//   ASSERT_OK_AND_ASSIGN(auto rack,
//       Rack::Create(io, SystemClock(), "/tmp/rack", DefaultRackConfig()));
//   DiskGroup* data = *rack->disk_group("DATA");
//   ASSERT_OK(rack->Close());
//   ASSERT_OK_AND_ASSIGN(rack, Rack::Open(io, SystemClock(), "/tmp/rack"));
//
// Thread-safety: the accessors may be called concurrently; Create/Open/Close
// and CreateDiskGroup are not to be run concurrently with other calls.
#ifndef CELLSIM_ASM_RACK_H_
#define CELLSIM_ASM_RACK_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cellsim/asm/disk_group.h"
#include "cellsim/asm/rack_lock.h"
#include "cellsim/asm/types.h"
#include "cellsim/base/clock.h"
#include "cellsim/cell/cell_service.h"
#include "cellsim/io/io_backend.h"

namespace cellsim::cell {
class Cell;
}

namespace cellsim::asmgr {

// One disk group of a rack: a grid disk of `grid_disk_size` on every cell disk
// of every cell.
struct DiskGroupSpec {
  std::string name{};  // "DATA"
  Redundancy redundancy = Redundancy::kNormal;
  uint64_t au_size = kDefaultAuSize;
  uint64_t grid_disk_size = 0;  // bytes per cell disk (multiple of au_size)
  // Its grid disks' cachingPolicy at creation (CellCLI's ALTER GRIDDISK
  // changes it later, per grid disk; the cells persist it).
  cell::CachingPolicy caching_policy = cell::CachingPolicy::kDefault;
};

struct RackConfig {
  uint32_t cells = 3;                 // named cel01, cel02, ...
  std::string cell_name_prefix = "cel";
  uint32_t cell_disks_per_cell = 12;  // CD_00 .. CD_11 (a real cell has 12 HDDs)
  std::vector<DiskGroupSpec> disk_groups{};
  uint64_t flash_size = 0;            // bytes of flash per cell (0: cell default)
  uint32_t cache_line_size = 0;       // flash cache line (0: cell default)
  cell::FlashCacheMode flash_cache_mode = cell::FlashCacheMode::kWriteBack;
  bool direct_io = false;             // O_DIRECT on grid disks and flash
  uint32_t max_partners = kMaxPartners;
};

// 3 cells (cel01..cel03) x 12 cell disks, write-back flash cache, DATA (2 GiB
// per cell disk) and RECO (1 GiB per cell disk), both NORMAL redundancy, AU
// 4 MiB: DATA has 72 GiB raw / 24 GiB usable, RECO 36 GiB raw / 12 GiB usable:
// enough for the seed (two 4096 MiB log members, one per group, mirrored) plus a
// few data files. All files are sparse.
RackConfig DefaultRackConfig();

// How a process opens a rack: RackLock's access, wait and holder record.
// kReadOnly opens every file O_RDONLY and writes nothing (cells without
// checkpoint, cleaner or read population; disk groups without checkpoint);
// any change then fails with FailedPrecondition. The default, as for a
// library user that owns the rack: read-write, failing at once (Unavailable
// naming the holder) when another process holds it.
// Wraps each cell in a CellService decorator (e.g. sim::Simulation::WrapCell,
// which charges modeled time): disk groups and Rack::cell() then see the
// wrapper; concrete_cell() still returns the cell itself. Empty: no wrapper.
using CellWrapper =
    std::function<std::unique_ptr<cell::CellService>(uint32_t index, cell::CellService* cell)>;

struct RackOpenOptions {
  RackLockOptions lock{};
  CellWrapper wrap{};  // cell decorators (the simulated clock); empty: none
};

// Validates a rack configuration without touching the disk. InvalidArgument
// naming the field: no cells, > 99 cells, no cell disks, an empty or duplicate
// disk-group name, a grid disk size that is 0 or not a multiple of the AU, and
// every rule of DiskGroup::Create (failure groups per redundancy, AU sizes).
[[nodiscard]] absl::Status ValidateRackConfig(const RackConfig& config);

class Rack {
 public:
  // Creates DIR (must be empty or missing), the cells and the disk groups,
  // under the rack's write lock (options.lock.access must be kReadWrite).
  // Errors: those of ValidateRackConfig (nothing is created), AlreadyExists
  // when DIR already holds a rack or anything else, those of RackLock, and
  // the cells' own errors (what was built is removed again).
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<Rack>> Create(
      io::IoBackend* io, Clock* clock, const std::string& dir, const RackConfig& config,
      const RackOpenOptions& options = {});
  // Takes the rack's lock (see RackOpenOptions), then opens the cells
  // (recovering their journals) and mounts every disk group. The state is
  // read under the lock, and the lock is held until Close. Metadata kept in
  // two copies (rack.meta0/1, the disk groups' checkpoints) opens at the
  // newest state and a damaged or older copy is rewritten from it (listed by
  // metadata_repairs(); a read-only rack rewrites nothing and lists what it
  // left); DataLoss naming the file
  // when no copy can be proven to hold the newest state.
  // Lost devices mount with what the redundancy allows: a missing grid-disk
  // file or cell folder leaves its disks OFFLINE (reads from the mirrors,
  // writes recorded as stale for ALTER DISKGROUP ... ONLINE); a cell whose
  // flash is lost gets a fresh flash device (read-write) and its disks are
  // rebuilt from the mirrors (listed in metadata_repairs()). A disk group that
  // would lose data refuses: FailedPrecondition "ORA-15017 ... ORA-15040:
  // diskgroup is incomplete / ORA-15042: ASM disk "X" is missing ...".
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<Rack>> Open(
      io::IoBackend* io, Clock* clock, const std::string& dir,
      const RackOpenOptions& options = {});

  ~Rack();
  Rack(const Rack&) = delete;
  Rack& operator=(const Rack&) = delete;

  // Checkpoints the disk groups and closes them and the cells (a read-only
  // rack writes nothing), then releases the lock.
  [[nodiscard]] absl::Status Close();

  // True when opened with RackAccess::kReadOnly.
  bool read_only() const;

  const std::string& dir() const;
  const RackConfig& config() const;
  // What Open repaired: "PATH was ...; rewritten from PATH (sequence N)"; on a
  // read-only rack, what it found and left: "PATH is ...; read PATH (sequence
  // N) instead" (the cells' and disk groups' lists, then the rack's).
  const std::vector<std::string>& metadata_repairs() const;
  io::IoBackend* io() const;
  Clock* clock() const;

  uint32_t cell_count() const;
  cell::CellService* cell(uint32_t index) const;
  // The concrete cell (for operations outside the iDB interface, e.g. tests
  // that fail a flash device); null for a cell that Open found absent (its
  // folder missing: its disks are OFFLINE, see Open).
  cell::Cell* concrete_cell(uint32_t index) const;
  std::string cell_name(uint32_t index) const;  // "cel01"
  // The index of the cell whose name ends grid disk name `grid_disk`
  // ("DATA_CD_00_cel03": cel03's, case-insensitively); nullopt when no
  // cell's does. Whether the cell has such a disk is not checked.
  std::optional<uint32_t> cell_of_grid_disk(std::string_view grid_disk) const;

  // By name ("DATA" or "+DATA", case-insensitive). NotFound lists the names.
  [[nodiscard]] absl::StatusOr<DiskGroup*> disk_group(std::string_view name) const;
  std::vector<DiskGroup*> disk_groups() const;

  // Creates one more disk group from grid disks of the cells. Besides
  // DiskGroup::Create's errors: InvalidArgument "disk DATA_CD_00_cel01 is
  // already in disk group DATA" when a disk belongs to another group, and
  // AlreadyExists for a duplicate name. Nothing is written on error.
  [[nodiscard]] absl::StatusOr<DiskGroup*> CreateDiskGroup(const DiskGroupConfig& config);

  // CellCLI CREATE GRIDDISK for a grid disk that is "not present" (its file
  // lost for good, the device replaced): first every disk group holding it
  // records its whole content as stale (the disk must be OFFLINE), then the
  // cell creates the new, empty file. ALTER DISKGROUP ... ONLINE DISK then
  // rebuilds it from the mirrors. NotFound for an unknown name, AlreadyExists
  // when the grid disk is present, FailedPrecondition when its cell is absent.
  [[nodiscard]] absl::Status CreateGridDisk(const std::string& name);
  // CellCLI ALTER GRIDDISK name INACTIVE | ACTIVE, as a cell asks its ASM:
  // INACTIVE first takes the disk offline in every disk group holding it
  // (refused with ASM's ORA-15066 when it holds the only current copy of an
  // extent: CellCLI's asmDeactivationOutcome), then the cell makes it
  // inactive. ACTIVE makes it active, then onlines it in those disk groups:
  // fast mirror resync copies the extents written meanwhile (`result`, may be
  // null). Returns the exact name. NotFound for an unknown name,
  // FailedPrecondition when the grid disk or its cell is not present.
  [[nodiscard]] absl::StatusOr<std::string> SetGridDiskActive(const std::string& name,
                                                              bool active,
                                                              ResyncResult* result);

  // Resyncs LostRanges of every cell in every disk group (after a flash loss).
  [[nodiscard]] absl::Status ResyncLostRanges(ResyncResult* result);

  struct State;

 private:
  // A grid disk named (case-insensitively) NAME_celNN, found on its cell.
  struct GridDiskRef {
    cell::Cell* cell = nullptr;
    std::string cell_name;
    std::string name;    // as the cell spells it
    std::string status;  // GridDiskInfo::status
  };
  // NotFound for no such grid disk; FailedPrecondition "cannot `action` grid
  // disk ...: cell ... is not present".
  [[nodiscard]] absl::StatusOr<GridDiskRef> FindGridDisk(const std::string& name,
                                                         std::string_view action) const;
  explicit Rack(std::unique_ptr<State> state);
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<Rack>> CreateLocked(
      io::IoBackend* io, Clock* clock, const std::string& dir, const RackConfig& config,
      const CellWrapper& wrap);
  std::unique_ptr<State> s_;
};

}  // namespace cellsim::asmgr

#endif  // CELLSIM_ASM_RACK_H_
