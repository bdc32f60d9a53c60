// MetadataStore (private): the persistent side of a cell's flash-cache
// metadata in flash.img — two superblock copies, two checkpoint areas and a
// journal of checksummed chunks (metadata.h gives the formats).
//
// Protocol:
//   - Append(records, sync): one chunk = one write at the journal tail (and one
//     fdatasync when `sync`), then the records are applied to the CacheState.
//     A batch of requests therefore costs one append and one sync.
//   - Checkpoint(): writes the full state to the inactive checkpoint area,
//     syncs, then writes the superblock with generation+1 pointing to it and a
//     new journal epoch to copy A, syncs, then to copy B, syncs (every copy
//     current: a copy found damaged or older at Recover is rewritten). The journal restarts at its beginning;
//     chunks of older epochs are ignored. Taken when the journal is full, at
//     every Open (so the journal never has to be appended after a torn tail)
//     and when the configuration changes.
//   - Recover(): newest valid superblock -> its checkpoint (checksum from the
//     superblock) -> chunks of the current epoch with consecutive sequence
//     numbers until the first invalid one (a torn tail, dropped). A valid chunk
//     after an invalid one means corruption, not a torn tail: DataLoss.
//
// Thread-safety: all methods are serialized by an internal mutex; the state
// mutex passed in is taken (after it: call them without holding it) only to
// apply records or snapshot. Recover runs before the store is shared (Open):
// it changes `state` without the state mutex.
#ifndef CELLSIM_CELL_JOURNAL_H_
#define CELLSIM_CELL_JOURNAL_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cellsim/base/mutex.h"
#include "cellsim/cell/cache_state.h"
#include "cellsim/cell/metadata.h"
#include "cellsim/io/block_file.h"

namespace cellsim::cell::internal {

struct RecoveryInfo {
  uint64_t chunks_replayed = 0;
  uint64_t records_replayed = 0;
  bool torn_tail_dropped = false;  // a non-empty invalid chunk ended the journal
  std::string superblock_repaired;  // "flash superblock copy A of ... was ...; rewritten ..."
};

class MetadataStore {
 public:
  // Initializes the metadata area of a new flash device.
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<MetadataStore>> Format(
      io::BlockFile* flash, const FlashLayout& layout, const CellConfig& config,
      int64_t creation_time_unix);
  // Reads the newest valid superblock (its config tells the layout).
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<MetadataStore>> Load(io::BlockFile* flash);

  Superblock superblock() const ABSL_LOCKS_EXCLUDED(mu_) {
    MutexLock l(&mu_);
    return sb_;
  }
  void set_layout(const FlashLayout& layout) ABSL_LOCKS_EXCLUDED(mu_) {
    MutexLock l(&mu_);
    layout_ = layout;
  }

  // Loads the checkpoint and replays the journal into `state`.
  // `repair` false (a read-only cell): a superblock copy to repair is left
  // as it is.
  [[nodiscard]] absl::Status Recover(CacheState* state, RecoveryInfo* info, bool repair = true)
      ABSL_LOCKS_EXCLUDED(mu_);

  // Appends `records` as one chunk, syncs when `sync`, then applies them to
  // `state` under `state_mu`. After a failed write or sync the store refuses
  // further appends (FailedPrecondition): the cell must be reopened.
  [[nodiscard]] absl::Status Append(const std::vector<Record>& records, bool sync,
                                    CacheState* state, Mutex* state_mu)
      ABSL_LOCKS_EXCLUDED(mu_, state_mu);
  // Makes every appended chunk durable.
  [[nodiscard]] absl::Status Sync(CacheState* state, Mutex* state_mu)
      ABSL_LOCKS_EXCLUDED(mu_, state_mu);
  // Writes a checkpoint of `state` (and `new_config` if given).
  [[nodiscard]] absl::Status Checkpoint(CacheState* state, Mutex* state_mu,
                                        const std::optional<CellConfig>& new_config = {})
      ABSL_LOCKS_EXCLUDED(mu_, state_mu);

  // The cell's metric counters: every checkpoint stores what `source` returns
  // (set before the first checkpoint); Recover makes the newest ones (the
  // checkpoint's, then kCounter records of the journal) available through
  // recovered_counters() (empty when none were stored).
  // `source` is called with the store's mutex held: it must take no cell lock.
  void set_counters_source(std::function<std::vector<uint64_t>()> source)
      ABSL_LOCKS_EXCLUDED(mu_) {
    MutexLock l(&mu_);
    counters_source_ = std::move(source);
  }
  std::vector<uint64_t> recovered_counters() const ABSL_LOCKS_EXCLUDED(mu_) {
    MutexLock l(&mu_);
    return recovered_counters_;
  }
  // Appends the counters as kCounter records (one synced chunk) when they
  // differ from the last ones stored: a clean close, so that the next process
  // sees them. A no-op otherwise.
  [[nodiscard]] absl::Status PersistCounters(CacheState* state, Mutex* state_mu)
      ABSL_LOCKS_EXCLUDED(mu_, state_mu);

  uint64_t chunks_appended() const ABSL_LOCKS_EXCLUDED(mu_);
  uint64_t syncs() const ABSL_LOCKS_EXCLUDED(mu_);

 private:
  MetadataStore(io::BlockFile* flash, Superblock sb) : flash_(flash), sb_(std::move(sb)) {}
  [[nodiscard]] absl::Status CheckpointLocked(CacheState* state, Mutex* state_mu,
                                              const std::optional<CellConfig>& new_config)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) ABSL_LOCKS_EXCLUDED(state_mu);
  [[nodiscard]] absl::Status Failed(absl::Status s) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  io::BlockFile* const flash_;
  // Taken before the cell's state mutex (passed to the methods as state_mu).
  mutable Mutex mu_;
  FlashLayout layout_ ABSL_GUARDED_BY(mu_);
  Superblock sb_ ABSL_GUARDED_BY(mu_);
  // Set by Load when a copy is damaged or older.
  std::string superblock_repair_ ABSL_GUARDED_BY(mu_);
  uint64_t tail_ ABSL_GUARDED_BY(mu_) = 0;        // bytes used in the journal of this epoch
  uint64_t next_seq_ ABSL_GUARDED_BY(mu_) = 0;    // seq of the next chunk
  uint64_t synced_seq_ ABSL_GUARDED_BY(mu_) = 0;  // chunks below this are durable
  bool dirty_ ABSL_GUARDED_BY(mu_) = false;       // appended since the last sync
  absl::Status failed_ ABSL_GUARDED_BY(mu_);
  uint64_t chunks_appended_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t syncs_ ABSL_GUARDED_BY(mu_) = 0;
  std::function<std::vector<uint64_t>()> counters_source_ ABSL_GUARDED_BY(mu_);
  std::vector<uint64_t> recovered_counters_ ABSL_GUARDED_BY(mu_);
  // The newest counters on flash.
  std::vector<uint64_t> stored_counters_ ABSL_GUARDED_BY(mu_);
};

}  // namespace cellsim::cell::internal

#endif  // CELLSIM_CELL_JOURNAL_H_
