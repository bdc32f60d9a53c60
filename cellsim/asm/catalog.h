// Catalog: the persistent state of one disk group (disks, partners, the file
// directory, extent maps, disk states and stale AUs) as plain data, with the
// one function that changes it (Apply) and its checkpoint encoding.
//
// Every change is an encoded journal record; the live disk group and journal
// replay both go through Apply(), so a reopened group is the same group by
// construction. Decoding treats the bytes as hostile: bounds, indices and AU
// ownership are checked and a breach is DataLoss naming what is wrong.
//
// Private to cellsim/asm.
#ifndef CELLSIM_ASM_CATALOG_H_
#define CELLSIM_ASM_CATALOG_H_

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "cellsim/asm/types.h"
#include "cellsim/base/checksum.h"

namespace cellsim::asmgr::internal {

// xxHash64 seed of a checkpoint (public for the fuzz targets, which re-seal
// mutated checkpoints so that the decoder behind the checksum is exercised).
inline constexpr uint64_t kCatalogCheckpointSeed = 0x41534D434B505431ull;

// A disk group's owner maps take 12 bytes per AU in memory: at most 64 Mi AUs
// (768 MiB; 64 TiB of disks at 1 MiB AUs, 4 PiB at 64 MiB). Creation refuses
// more, and so does the checkpoint decoder, so that a damaged size field cannot
// make it allocate without bound.
inline constexpr uint64_t kMaxAusPerDiskGroup = uint64_t{1} << 26;

// Where one copy of an extent lives: AU `au` of disk `disk`.
struct CopyLoc {
  uint32_t disk = 0;
  uint32_t au = 0;
  bool operator==(const CopyLoc&) const = default;
};
using ExtentLocs = std::array<CopyLoc, 3>;  // the first FileRec::copies() are used

// Who owns an AU (file 0 = free).
struct AuOwner {
  uint32_t file = 0;
  uint32_t extent = 0;
  uint8_t copy = 0;
};

struct DiskRec {
  DiskRef ref;
  std::string name;        // grid disk name
  std::string failgroup;   // cell name
  uint64_t size_bytes = 0;
  uint32_t total_aus = 0;
  bool online = true;
  std::string last_error;
  std::vector<uint32_t> partners;
  // --- derived (rebuilt by Apply / decode) ---
  std::vector<AuOwner> owners;  // size total_aus
  std::set<uint32_t> stale;     // AUs changed while offline
  uint32_t used = 0;
  uint32_t primaries = 0;
  uint32_t first_free = 0;      // every AU below it is used
};

struct FileRec {
  FileInfo info;  // info.redundancy / info.copies: the file's own mirroring
  std::vector<ExtentLocs> extents;

  uint32_t copies() const { return info.copies; }
};

enum class RecordType : uint8_t {
  // Version 1 journals (every file mirrored as its group): the file gets the
  // group's redundancy and copies. Still replayed; no longer written.
  kCreateFileGroupRedundancy = 1,
  kResizeFile = 2,
  kDeleteFile = 3,
  kDiskState = 4,
  kStale = 5,
  // A file with its own redundancy and copies (from its type's template).
  kCreateFile = 6,
};

struct Catalog {
  std::string name;
  Redundancy redundancy = Redundancy::kNormal;
  uint64_t au_size = 0;
  uint32_t max_partners = kMaxPartners;
  uint32_t next_file = 256;
  uint32_t last_incarnation = 0;
  uint64_t seq = 0;  // sequence of the last applied change
  std::vector<DiskRec> disks;
  std::map<uint32_t, FileRec> files;

  // Copies of the group's own redundancy (failure-group rules, lsdg's usable
  // space); a file's extents have FileRec::copies().
  uint32_t copies() const { return Copies(redundancy); }
  // The copies a new file of `wanted` redundancy gets here (PlacedCopies).
  uint32_t PlacedCopiesFor(Redundancy wanted) const;
  // Extents with exactly one current copy (on an online disk, not stale):
  // what taking that copy's disk offline would lose (ASM's ORA-15066). One
  // pass over every extent; `visit(disk, file, extent)` returns false to stop.
  void ForEachSoleCurrentCopy(
      const std::function<bool(uint32_t disk, uint32_t file, uint64_t extent)>& visit) const;
  // The first extent whose only current copy is on `disk`; false when none.
  struct SoleCopy {
    uint32_t file = 0;
    uint64_t extent = 0;
  };
  bool FindSoleCurrentCopy(uint32_t disk, SoleCopy* found) const;
  // ASM's partnership rule for taking online `disk` offline, which holds
  // whatever the files (ASM's own metadata is mirrored across partners too):
  // the group keeps copies() copies, so taking it offline is refused once
  // copies() - 1 other failure groups each have an offline disk partnered with
  // it (either way round), and always in an EXTERNAL group (one copy). Returns
  // why it is refused, or "" when the rule allows it (Exadata's
  // asmDeactivationOutcome "Cannot de-activate due to other offline disks").
  std::string PartnerOfflineRefusal(uint32_t disk) const;
  // The same rule without the explanation: true when it allows it.
  bool PartnerOfflineAllowed(uint32_t disk) const;
  // Other failure groups' offline disks partnered with `disk`: failure group
  // -> the disk's name.
  std::map<std::string, std::string> OfflinePartners(uint32_t disk) const;

  // Initializes owners/derived fields of freshly described disks.
  void InitDisks();

  // Applies one record body (u8 type, fields) as change number `seq`, which
  // must be this->seq + 1. DataLoss on a malformed or inconsistent record
  // (nothing is changed then).
  [[nodiscard]] absl::Status Apply(uint64_t seq, absl::Span<const uint8_t> body);

  // Checkpoint bytes (magic, version, everything, checksum). Version 2 (the
  // default) keeps each file's redundancy and copies; version 1, the format of
  // racks made before per-file redundancy, has none (its files are mirrored as
  // their group) and is written only by the compatibility tests, for files
  // mirrored as the group.
  static constexpr uint32_t kCheckpointVersion = 2;
  std::vector<uint8_t> EncodeCheckpoint(uint32_t version = kCheckpointVersion) const;
  [[nodiscard]] static absl::StatusOr<Catalog> DecodeCheckpoint(
      absl::Span<const uint8_t> bytes, const std::string& what);

  // Helpers for the record builders (body after seq/type).
  static void EncodeFileInfo(Encoder* e, const FileInfo& f);

  // Ownership bookkeeping.
  void Take(CopyLoc loc, AuOwner owner);
  void Release(CopyLoc loc);
  uint64_t FreeAus() const;
};

// Record builders: return a record body (type + fields).
std::vector<uint8_t> MakeCreateFileRecord(const FileInfo& info,
                                          absl::Span<const ExtentLocs> extents);
std::vector<uint8_t> MakeResizeFileRecord(const Catalog& cat, uint32_t file,
                                          uint64_t new_size, int64_t mtime,
                                          uint32_t new_extent_count,
                                          absl::Span<const ExtentLocs> added);
std::vector<uint8_t> MakeDeleteFileRecord(uint32_t file);
std::vector<uint8_t> MakeDiskStateRecord(uint32_t disk, bool online,
                                         const std::string& last_error);
std::vector<uint8_t> MakeStaleRecord(bool set, absl::Span<const CopyLoc> locs);

}  // namespace cellsim::asmgr::internal

#endif  // CELLSIM_ASM_CATALOG_H_
