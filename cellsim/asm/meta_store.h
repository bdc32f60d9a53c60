// MetaStore: where a disk group's catalog lives on disk. Two identical
// checkpoint copies (<NAME>.ckpt0 / .ckpt1, full catalog, checksummed) and two
// identical journal copies (<NAME>.journal / .journal1) of checksummed,
// sequence-numbered change records.
//
// Every copy is current (io/metadata_copies.h): a change is appended to both
// journal copies at once, each synced, and is durable (acknowledged) only
// when both syncs returned. A checkpoint writes ckpt0 then ckpt1 (each
// synced), and only then empties the journals. Open() picks the newest valid
// checkpoint, replays the longer valid journal prefix after it, and rewrites
// whatever copy was damaged, torn or behind (repairs()). A journal that does
// not continue the checkpoint, or copies that disagree, are refused with
// DataLoss naming the file.
//
// Why the two journal copies may be written and synced at the same time
// (docs/asm.md "Every copy current" has the same argument in prose):
//  1. An append writes only past the prefix P both copies share: Open leaves
//     both copies exactly equal to the prefix it chose, synced, before the
//     first append, and a failed append dismounts the group (no append
//     follows it without another Open). So, in whatever order the writes and
//     syncs of an append A land or tear, each copy is P plus some part of A;
//     every acknowledged record is in P of both (acknowledgement waits for
//     both syncs), and the copies can differ only in how much of A each got.
//  2. Open's choice never relied on the order: the longer valid prefix, the
//     shorter one a byte prefix of it, and a valid record behind damage that
//     goes beyond the chosen last change refused. Written in order, a copy 1
//     longer than copy 0 could only mean damage to copy 0; written together
//     it may also be an unacknowledged A that reached copy 1 alone. Open
//     keeps it either way, which is allowed for an unacknowledged change.
//  3. Open makes its choice durable in both copies before returning: it
//     rewrites each copy that differs from it (cutting torn tails) and syncs
//     the copies already equal to it. That sync is what writing together
//     needs beyond the ordered protocol: a writer that dies after both
//     writes reached the page cache but before either sync leaves A in both
//     copies undurably; an Open that showed A without syncing would lose it
//     at a power loss after it (written in order, copy 1 could hold A only
//     once copy 0 had synced it).
//  4. So nothing comes back: an Open that drops A (no copy holds it whole)
//     truncates both copies to P and syncs them, and the next append writes
//     over the same bytes. A read-only Open repairs nothing but appends
//     nothing either; the next read-write Open decides from the same bytes.
//  5. A copy damaged later (after the repair and more appends) is as before:
//     the intact copy supplies every record; both damaged is refused.
// Checkpoint slots stay in order: each is rewritten in place, so written
// together one crash could tear both and leave no valid checkpoint.
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
  // `read_only`: files opened O_RDONLY, no copy repaired (a torn tail or a
  // stale copy stays as it is), and Append/Checkpoint refused
  // (FailedPrecondition).
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<MetaStore>> Open(
      io::IoBackend* io, const std::string& dir, const std::string& name, Catalog* catalog,
      bool read_only = false);
  // True when any metadata file of `name` exists in `dir`.
  static bool Exists(io::IoBackend* io, const std::string& dir, const std::string& name);

  ~MetaStore();

  // Appends records numbered first_seq, first_seq+1, ... in one write per
  // copy, both copies at once, then syncs each. On error nothing is known to
  // be durable or not; the caller must not apply, nor append again without
  // reopening.
  [[nodiscard]] absl::Status Append(uint64_t first_seq,
                                    absl::Span<const std::vector<uint8_t>> bodies);
  [[nodiscard]] absl::Status Checkpoint(const Catalog& catalog);
  uint64_t journal_bytes() const { return journal_end_; }
  // Copies Open rewrote: "PATH was ...; rewritten from PATH ...".
  const std::vector<std::string>& repairs() const { return repairs_; }
  [[nodiscard]] absl::Status Close();

 private:
  MetaStore(io::IoBackend* io, std::string dir, std::string name);
  std::string SlotPath(int slot) const;
  std::vector<std::string> SlotPaths() const;
  std::string JournalPath(int copy) const;
  [[nodiscard]] absl::Status OpenJournals(Catalog* catalog);

  io::IoBackend* io_;
  std::string dir_;
  std::string name_;
  io::FileHandle journal_[2] = {io::kInvalidFile, io::kInvalidFile};
  uint64_t journal_end_ = 0;
  std::vector<std::string> repairs_;
  bool read_only_ = false;
  [[nodiscard]] absl::Status CheckWritable() const;
};

}  // namespace cellsim::asmgr::internal

#endif  // CELLSIM_ASM_META_STORE_H_
