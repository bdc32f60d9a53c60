// MetaStore: where a disk group's catalog lives on disk. Two checkpoint slots
// (<NAME>.ckpt0 / .ckpt1, full catalog, checksummed) and a journal
// (<NAME>.journal) of checksummed, sequence-numbered change records.
//
// A change is durable when its journal record is synced. A checkpoint goes to
// the slot not holding the newest valid checkpoint, is synced, and only then is
// the journal emptied; so a crash at any point leaves one valid slot plus the
// records after it. Open() picks the newest valid slot, replays the records
// that follow it and cuts a torn tail.
//
// Private to cellsim/asm. Not thread-safe: the disk group serializes calls.
#ifndef CELLSIM_ASM_META_STORE_H_
#define CELLSIM_ASM_META_STORE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "cellsim/asm/catalog.h"
#include "cellsim/io/io_backend.h"

namespace cellsim::asmgr::internal {

// A journal record: magic u32, body length u32, seq u64, JournalRecordSum u64,
// body (exposed for the fuzz targets, which re-seal mutated records).
inline constexpr uint32_t kJournalRecordMagic = 0x314A5341;  // "ASJ1"
uint64_t JournalRecordSum(uint64_t seq, absl::Span<const uint8_t> body);

class MetaStore {
 public:
  // Writes the initial checkpoint (slot 0) and an empty journal. AlreadyExists
  // when metadata of this name is present.
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<MetaStore>> Create(
      io::IoBackend* io, const std::string& dir, const std::string& name,
      const Catalog& initial);
  // Loads the newest valid checkpoint and replays the journal into *catalog.
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<MetaStore>> Open(
      io::IoBackend* io, const std::string& dir, const std::string& name, Catalog* catalog);
  // True when any metadata file of `name` exists in `dir`.
  static bool Exists(io::IoBackend* io, const std::string& dir, const std::string& name);

  ~MetaStore();

  // Appends records numbered first_seq, first_seq+1, ... in one write, then
  // syncs. On error nothing is known to be durable; the caller must not apply.
  [[nodiscard]] absl::Status Append(uint64_t first_seq,
                                    absl::Span<const std::vector<uint8_t>> bodies);
  [[nodiscard]] absl::Status Checkpoint(const Catalog& catalog);
  uint64_t journal_bytes() const { return journal_end_; }
  [[nodiscard]] absl::Status Close();

 private:
  MetaStore(io::IoBackend* io, std::string dir, std::string name);
  std::string SlotPath(int slot) const;
  std::string JournalPath() const;

  io::IoBackend* io_;
  std::string dir_;
  std::string name_;
  io::FileHandle journal_ = io::kInvalidFile;
  uint64_t journal_end_ = 0;
  int newest_slot_ = 0;
};

}  // namespace cellsim::asmgr::internal

#endif  // CELLSIM_ASM_META_STORE_H_
