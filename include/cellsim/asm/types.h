// Plain value types of the ASM layer: redundancy, allocation-unit sizes, file
// identity and naming, extent maps, I/O requests and results, and the views
// behind `asmcmd lsdg` / `lsdsk` / `ls -l`.
//
// Everything here is a plain struct, so front ends (report, cli) and the
// database can use them without touching a DiskGroup's internals.
//
// The C++ namespace is `cellsim::asmgr` ("ASM manager") because `asm` is a C++
// keyword; the layer, folder and library are still called `asm`.
//
// Usage:
//   FileSpec spec{.db_name = "ORCL", .type = FileType::kOnlineLog,
//                 .tag = "group_5", .size_bytes = 4096 * kMiB, .block_size = 512};
//   absl::StatusOr<FileInfo> f = data->CreateFile(spec);
//   // f->name == "+DATA/ORCL/ONLINELOG/group_5.256.1700000000"
#ifndef CELLSIM_ASM_TYPES_H_
#define CELLSIM_ASM_TYPES_H_

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "cellsim/base/cancel.h"
#include "cellsim/cell/cell_service.h"
#include "cellsim/format/block_template.h"

namespace cellsim::asmgr {

// ---------------------------------------------------------------- redundancy

enum class Redundancy : uint8_t {
  kExternal = 0,  // 1 copy (lsdg type EXTERN)
  kNormal = 1,    // 2 copies, >= 2 failure groups
  kHigh = 2,      // 3 copies, >= 3 failure groups
};

// Number of copies of every extent: 1, 2 or 3.
constexpr uint32_t Copies(Redundancy r) { return static_cast<uint32_t>(r) + 1; }
// "EXTERN", "NORMAL", "HIGH" (the spelling of lsdg's Type column).
std::string_view RedundancyName(Redundancy r);
// Accepts EXTERNAL/EXTERN/NORMAL/HIGH, case-insensitive. InvalidArgument
// naming the text otherwise.
[[nodiscard]] absl::StatusOr<Redundancy> ParseRedundancy(std::string_view text);
// A file's (or a template's) redundancy as V$ASM_FILE, V$ASM_TEMPLATE and
// `asmcmd ls -l` spell it: "UNPROT" (1 copy), "MIRROR" (2), "HIGH" (3).
std::string_view FileRedundancyName(Redundancy r);

// Allocation-unit sizes ASM allows: 1, 2, 4, 8, 16, 32, 64 MiB.
inline constexpr std::array<uint64_t, 7> kAllowedAuSizes = {
    1ull << 20, 2ull << 20, 4ull << 20, 8ull << 20, 16ull << 20, 32ull << 20, 64ull << 20};
inline constexpr uint64_t kDefaultAuSize = 4ull << 20;  // the Exadata default
// InvalidArgument "AU size 3 MiB is not one of 1, 2, 4, 8, 16, 32, 64 MiB".
[[nodiscard]] absl::Status ValidateAuSize(uint64_t au_size);

// At most this many partner disks per disk (ASM's limit).
inline constexpr uint32_t kMaxPartners = 8;

// --------------------------------------------------------------------- files

enum class FileType : uint8_t {
  kControlFile,
  kOnlineLog,
  kDataFile,
  kTempFile,
  kArchiveLog,
  kParameterFile,
};
// The directory name ASM uses: "CONTROLFILE", "ONLINELOG", "DATAFILE",
// "TEMPFILE", "ARCHIVELOG", "PARAMETERFILE".
std::string_view FileTypeName(FileType t);

// What the database asks for when it creates a file.
struct FileSpec {
  std::string db_name{};   // "ORCL" (upper-cased in the name)
  FileType type = FileType::kDataFile;
  std::string tag{};       // "group_5" (redo), "USERS" (tablespace), "Current"...
  uint64_t size_bytes = 0;
  uint32_t block_size = 8192;  // the file's block size (recorded, shown by ls -l)
};

// A file of a disk group. ASM file numbers start at 256; the incarnation is a
// number derived from the creation time, unique within the group.
struct FileInfo {
  uint32_t number = 0;       // 256, 257, ...
  uint32_t incarnation = 0;
  std::string name{};          // "+DATA/ORCL/ONLINELOG/group_5.256.1700000000"
  std::string db_name{};
  FileType type = FileType::kDataFile;
  std::string tag{};
  uint64_t size_bytes = 0;   // logical size
  uint32_t block_size = 0;
  uint32_t extents = 0;      // number of extents (one AU each)
  // The file's redundancy, from its type's template in the group.
  Redundancy redundancy = Redundancy::kNormal;
  // Copies of every extent: Copies(redundancy), or fewer when the group has
  // fewer failure groups (PlacedCopies; redundancy_lowered()).
  uint32_t copies = 2;
  bool redundancy_lowered() const { return copies < Copies(redundancy); }
  int64_t creation_time_unix = 0;
  int64_t modification_time_unix = 0;
};

// ----------------------------------------------------------------- templates

// A disk group's system template of one file type (V$ASM_TEMPLATE, `asmcmd
// lstmpl`): the redundancy and striping every file of that type is created with.
struct TemplateView {
  uint32_t entry = 0;          // ENTRY_NUMBER
  std::string name{};          // "CONTROLFILE" (the file type's name)
  FileType type = FileType::kDataFile;
  Redundancy redundancy = Redundancy::kNormal;  // shown by FileRedundancyName
  std::string stripe{};        // "FINE" / "COARSE" (shown; cellsim lays out whole AUs)
  bool system = true;
};

// The redundancy Oracle's default template gives a file of `type` in a disk
// group of redundancy `group` (OSTMG "Template Attributes", table 5-6): in an
// EXTERNAL group every file is UNPROT; in a NORMAL group CONTROLFILE is HIGH
// (3-way) and every other type MIRROR (2-way); in a HIGH group every file is
// 3-way (HIGH).
Redundancy TemplateRedundancy(Redundancy group, FileType type);
// The striping of `type`'s system template: "FINE" for CONTROLFILE, "COARSE"
// for the others (11.2+).
std::string_view TemplateStripe(FileType type);
// The system templates of a group of redundancy `group`, one per file type.
std::vector<TemplateView> SystemTemplates(Redundancy group);
// Copies a file of redundancy `wanted` gets in a group with `failure_groups`
// failure groups whose disks have `max_partners` partners: Copies(wanted),
// lowered to what the group can place (a HIGH control file in a NORMAL group of
// two cells keeps 2 copies: V$ASM_FILE.REDUNDANCY_LOWERED = Y).
uint32_t PlacedCopies(Redundancy wanted, uint32_t failure_groups, uint32_t max_partners);

// Builds "+<DG>/<DB>/<TYPE>/<tag>.<number>.<incarnation>".
std::string AsmFileName(std::string_view disk_group, const FileSpec& spec,
                        uint32_t number, uint32_t incarnation);

// ------------------------------------------------------------------- extents

// A grid disk of a cell, as a disk group sees it: the failure group is the cell.
struct DiskRef {
  uint32_t cell = 0;       // index of the cell in the rack (= failure group)
  uint32_t grid_disk = 0;  // index of the grid disk within that cell
  bool operator==(const DiskRef&) const = default;
};

// One copy of an extent. Copy 0 is the primary.
struct ExtentCopy {
  uint32_t disk = 0;         // index of the disk within the disk group
  uint32_t cell = 0;         // cell index (failure group)
  uint32_t grid_disk = 0;    // grid disk index within the cell
  uint64_t disk_offset = 0;  // byte offset of the AU in the grid disk
  bool stale = false;        // written while its disk was offline; not readable
  bool online = true;        // its disk is online
};

// One extent of a file: one AU of file data, stored in 1..3 copies.
struct Extent {
  uint32_t index = 0;        // extent number within the file
  uint64_t file_offset = 0;  // index * au_size
  uint64_t length = 0;       // valid bytes: min(au_size, file size - file_offset)
  std::vector<ExtentCopy> copies{};  // primary first
};

// ----------------------------------------------------------------- I/O

// I/O of one disk-group operation, summed, for session statistics.
struct AsmIoStats {
  uint64_t cell_requests = 0;   // requests sent to cells (one per extent copy piece)
  uint64_t cell_bytes = 0;      // data bytes those requests carried / returned
  uint64_t multi_block_requests = 0;  // requests covering >= 2 file blocks
  cell::CellIoStats cell{};       // summed over every cell

  AsmIoStats& operator+=(const AsmIoStats& o);
};

// A write of `data` at `file_offset` (both 512-aligned). It is split at extent
// boundaries; every piece goes to every live copy.
struct AsmWriteRequest {
  uint64_t file_offset = 0;
  absl::Span<const uint8_t> data{};
  // A redo-type write (a log file header): the cells write it to disk, never
  // into the write-back flash cache (cell::WriteRequest::redo).
  bool redo = false;
  // --- results ---
  absl::Status status{};          // OK when every piece reached >= 1 current copy
  uint32_t copies_written = 0;  // min over pieces of current copies that landed (not stale ones)
};

struct AsmReadRequest {
  uint64_t file_offset = 0;
  absl::Span<uint8_t> buffer{};   // 512-aligned length; caller-owned
  // Check Oracle's block checksum of every whole block read (data/temp files
  // and logs): a copy that fails is repaired from a mirror (bad-block repair,
  // docs/asm.md). For readers that know the file holds database blocks; ASM
  // files written as raw bytes (tests, tools) would fail it.
  bool verify_checksums = false;
  // With verify_checksums, on a data or temp file: every block past block 0
  // that is not all zeros must also be an Oracle data block (type 0x06)
  // carrying its own block number in its rdba. For readers of segment blocks
  // only (the database's dictionary copies in SYSTEM are raw bytes): a copy
  // holding garbage without a checksum flag, or another block's bytes (a
  // misdirected write), is then bad like a checksum failure: the next copy
  // serves the read and the bad one is repaired. On a log of 512-byte
  // blocks, a redo block must carry its own block number (bytes 4..7).
  bool verify_addresses = false;
  // Read only this copy of each extent (0 the primary, 1 and 2 its mirrors),
  // without failing over or repairing: for readers that check what they
  // read themselves (raw bytes under their own checksum, which ASM cannot
  // check) and try each copy in turn. A copy number the file does not have
  // is OutOfRange; an offline or stale copy is Unavailable.
  std::optional<uint32_t> copy{};
  // --- results ---
  absl::Status status{};
  uint32_t failovers = 0;       // pieces served by a non-primary copy
};

// A copy that failed during an operation; its disk was taken offline.
struct CopyFailure {
  std::string disk{};     // "DATA_CD_01_cel02"
  absl::Status error{};   // what the cell reported
};

struct AsmIoResult {
  AsmIoStats io;
  std::vector<CopyFailure> failures{};
  std::vector<std::string> disks_taken_offline{};
  uint64_t stale_extents_marked = 0;  // copies skipped because their disk is offline
  // Read: copies whose data failed its block checksum, served from a mirror
  // and rewritten with the good data (ASM's bad-block repair).
  uint64_t bad_blocks_repaired = 0;
};

// Smart / fast file creation through ASM: one FormatRangeRequest per extent
// copy of [file_offset, file_offset + length) of the file.
struct FormatOptions {
  format::BlockTemplate block_template{};
  cell::FormatMethod method = cell::FormatMethod::kAuto;
  uint64_t file_offset = 0;
  uint64_t length = UINT64_MAX;  // clipped to the file size
  // Requests per CellService::FormatRange call. 0 sends each cell's requests in
  // one batch (all in flight); 1 times every request on its own, which gives a
  // latency per request (one `cell smart file creation` wait each).
  uint32_t requests_per_call = 0;
};

struct FormatCopyResult {
  uint32_t extent = 0;
  uint32_t copy = 0;
  uint32_t cell = 0;
  uint32_t grid_disk = 0;
  uint64_t disk_offset = 0;
  uint64_t length = 0;
  bool metadata_only = false;  // done by the fast path
  uint64_t latency_ns = 0;     // of the FormatRange call that carried it
  absl::Status status{};
};

struct FormatResult {
  AsmIoResult result;
  std::vector<FormatCopyResult> copies{};  // one per request sent
};

// ----------------------------------------------------------- maintenance

struct ResyncResult {
  uint64_t extents_copied = 0;  // extent copies rewritten from a good copy
  uint64_t bytes_copied = 0;
  uint64_t extents_unrecoverable = 0;  // no readable good copy was found
  AsmIoStats io;
};

// Where two copies of an extent differ (DiskGroup::Scrub). The copies are
// compared block by block (the file's block size); where they differ, the one
// to keep is the copy whose block passes Oracle's checks when the other's
// fails them (a data or redo block's checksum, a data block's type and
// address, a redo block's number: FirstBadBlock in disk_group_io.cc), else
// the bytes most copies hold (HIGH redundancy). One mismatch per extent, kept
// copy and differing copy, and judgment: where some of the differing blocks
// can be judged and others cannot, they are two mismatches.
struct ScrubMismatch {
  uint32_t file = 0;
  uint32_t extent = 0;
  uint64_t file_offset = 0;  // of the first byte of disk_b's copy that differs
  // disk_b's copy differs from disk_a's. With `judged`, disk_a's copy is the
  // one kept and disk_b's the one repaired (or, without REPAIR, to repair);
  // without, neither could be told right and nothing is rewritten.
  std::string disk_a{};
  std::string disk_b{};
  uint64_t blocks = 0;  // blocks (of the file's block size) that differ
  bool judged = false;
  // Why disk_b's copy is the wrong one ("block 5 fails its checksum"), or
  // why neither could be told right.
  std::string reason{};
  bool repaired = false;
};

struct ScrubOptions {
  // Rewrite each copy judged wrong from the copy judged right. Copies that
  // differ where neither can be told right are reported, never rewritten.
  bool repair = false;
  std::optional<uint32_t> file{};  // only this file (SCRUB FILE)
  std::optional<uint32_t> disk{};  // only extents with a copy on this disk (SCRUB DISK)
  // Checked between batches of extents (64 MiB of copies): when set, Scrub
  // stops there and returns Cancelled, its result holding what the batches
  // done found and repaired (each batch's repairs are whole). Not owned;
  // must outlive the call.
  const CancelFlag* cancel = nullptr;
  // Called between batches, with no lock held: the group's reads, writes
  // and file changes may run there (a test's hook; empty: none).
  std::function<void()> between_batches{};
};

struct ScrubResult {
  uint64_t extents_checked = 0;
  uint64_t copies_compared = 0;
  uint64_t bytes_compared = 0;
  uint64_t read_errors = 0;
  uint64_t repaired = 0;  // extent copies rewritten
  std::vector<ScrubMismatch> mismatches{};
  AsmIoStats io;
};

// ------------------------------------------------------------------ views

// V$ASM_DISKGROUP / asmcmd lsdg. Sizes in MiB, as Oracle shows them.
struct SpaceInfo {
  uint64_t total_mb = 0;
  uint64_t free_mb = 0;
  // Space needed to restore redundancy after losing the largest failure group
  // (a whole cell on Exadata); 0 for EXTERNAL.
  uint64_t required_mirror_free_mb = 0;
  // (free_mb - required_mirror_free_mb) / copies; negative when the group could
  // not restore redundancy after a failure, as in Oracle.
  int64_t usable_file_mb = 0;
};

struct DiskGroupView {
  std::string name{};
  std::string state = "MOUNTED";
  Redundancy redundancy = Redundancy::kNormal;
  uint32_t sector_size = 512;
  uint32_t block_size = 4096;  // ASM metadata block size
  uint64_t au_size = 0;
  SpaceInfo space{};
  uint32_t offline_disks = 0;
  uint32_t disks = 0;
  // Copies rewritten by bad-block repair since the group was mounted.
  uint64_t bad_blocks_repaired = 0;
  uint32_t failure_groups = 0;
  uint32_t files = 0;
};

// V$ASM_DISK / asmcmd lsdsk.
struct DiskView {
  uint32_t index = 0;
  std::string name{};           // grid disk name, "DATA_CD_00_cel01"
  std::string path{};           // "o/cel01/DATA_CD_00_cel01"
  std::string failgroup{};      // cell name, "CEL01"
  uint32_t cell = 0;
  uint32_t grid_disk = 0;
  std::string mode_status{};    // "ONLINE" / "OFFLINE"
  std::string state = "NORMAL";
  uint64_t total_mb = 0;
  uint64_t free_mb = 0;
  uint64_t total_aus = 0;
  uint64_t allocated_aus = 0;
  uint64_t primary_aus = 0;
  uint64_t stale_aus = 0;     // changed while offline, waiting for resync
  std::vector<uint32_t> partners{};  // disk indices
  std::string last_error{};     // why it went offline (empty if never)
  // Whether taking the disk offline now keeps a current copy of every extent
  // (CellCLI's asmDeactivationOutcome "Yes"); an offline disk: true.
  bool can_offline = true;
};

// V$ASM_DISK.INCARNATION (asmcmd lsdsk -p Incarn), which cellsim does not
// keep: a stable stand-in, FNV-1a of the disk's path folded into 10 digits
// (as Oracle's are), so the column is filled and the same across runs.
uint32_t DiskIncarnation(std::string_view path);
// V$ASM_DISK.MOUNT_STATUS (lsdsk -p Mount_Stat): MISSING for an offline disk
// ASM no longer counts as NORMAL (its cell or grid disk is gone), else CACHED.
std::string_view DiskMountStatus(const DiskView& d);

// asmcmd ls -l.
struct FileView {
  std::string type{};        // "ONLINELOG"
  std::string redundancy{};  // "MIRROR", "HIGH", "UNPROT" (the file's template)
  std::string striped = "COARSE";  // the template's STRIPE
  uint32_t copies = 0;       // copies of each extent actually kept
  bool redundancy_lowered = false;  // copies < the redundancy's (too few failure groups)
  int64_t time_unix = 0;
  std::string name{};        // full ASM name
  uint64_t bytes = 0;      // logical size
  uint32_t block_size = 0;  // the database's block size of the file
  uint64_t space = 0;      // raw bytes allocated (AUs x copies)
};

}  // namespace cellsim::asmgr

#endif  // CELLSIM_ASM_TYPES_H_
