// MetadataStore (private): the persistent side of a cell's flash-cache
// metadata in flash.img — two superblock copies, two checkpoint areas and a
// journal of checksummed chunks (metadata.h gives the formats).
//
// Protocol:
//   - Append(records, sync): one chunk = one write at the journal tail, its
//     records applied to the CacheState, then one fdatasync when `sync` (the
//     caller returns after it; slots its records free are reused only then).
//     A batch of requests therefore costs one append and one sync. Group
//     commit: appends that arrive while another is being written wait and are
//     then written together by one of them (the leader) as one chunk, those
//     that arrive while it is written as the next chunk, and so on, with one
//     sync for all, like a database's log writer. kLineData records carry their data
//     pages into the chunk, so a write-back write is durable with one sync:
//     its slot write and its chunk are made durable by the same fdatasync, and
//     if the power fails before it completes, replay writes the data pages of
//     every chunk not known durable into their slots again (a kDurable record
//     says which chunks were synced; a torn chunk fails its checksums and is
//     dropped: its write was not acknowledged). A kLineData record with
//     `write_slot` has its slot pages written here too, in the chunk's own
//     submission (one submission + one sync per group; the cell sets it only
//     for slot pages already allocated in flash.img).
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
// Thread-safety: all methods are serialized by an internal mutex (appends
// queue on a second, inner one to be grouped); the state
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
  // A superblock copy found damaged or older: "flash superblock copy A of
  // ... was ...; rewritten ...", or with `repair` false "... is ...; read
  // copy B (generation N) instead".
  std::string superblock_note;
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

  // Appends `records` as one chunk (possibly shared with concurrent appends),
  // syncs when `sync`, then applies them to `state` under `state_mu`.
  // kLineData records' `data` must stay valid until it returns. After a failed
  // write or sync the store refuses further appends (with the failure's own
  // status code, saying the store failed earlier): the cell must be reopened.
  [[nodiscard]] absl::Status Append(const std::vector<Record>& records, bool sync,
                                    CacheState* state, Mutex* state_mu)
      ABSL_LOCKS_EXCLUDED(mu_, state_mu);
  // Makes every appended chunk durable.
  [[nodiscard]] absl::Status Sync(CacheState* state, Mutex* state_mu)
      ABSL_LOCKS_EXCLUDED(mu_, state_mu);
  // Syncs flash.img even with no chunk pending: slot pages written outside
  // the journal, and every chunk so far, become durable (the next chunk tells
  // replay so).
  [[nodiscard]] absl::Status SyncAll(CacheState* state, Mutex* state_mu)
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
  // Appends that shared a chunk written by another one (group commit).
  uint64_t appends_grouped() const ABSL_LOCKS_EXCLUDED(mu_);

 private:
  // One caller of Append waiting for its records to be written.
  struct PendingAppend {
    const std::vector<Record>* records = nullptr;
    bool sync = false;
    bool done = false;
    absl::Status status;
  };
  // The leader: writes the queued appends as a chunk, then those that queued
  // meanwhile as another, ..., syncs once and acknowledges them all.
  void LeadGroup(CacheState* state, Mutex* state_mu) ABSL_LOCKS_EXCLUDED(mu_, queue_mu_);
  // Writes `records` as one chunk and applies them to `state` (a checkpoint
  // first when the journal is full); LeadGroup syncs.
  [[nodiscard]] absl::Status AppendLocked(const std::vector<Record>& records, CacheState* state,
                                          Mutex* state_mu)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) ABSL_LOCKS_EXCLUDED(state_mu);
  // Writes the chunk head and its data pages at the journal tail.
  [[nodiscard]] absl::Status WriteChunkLocked(const std::vector<Record>& records)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Makes every chunk written so far durable (a flash sync) and tells the
  // state (slots freed by them become reusable).
  [[nodiscard]] absl::Status SyncLocked(CacheState* state, Mutex* state_mu)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) ABSL_LOCKS_EXCLUDED(state_mu);
  // Sync and SyncAll (`always`: fdatasync even with no chunk pending).
  [[nodiscard]] absl::Status SyncImpl(CacheState* state, Mutex* state_mu, bool always)
      ABSL_LOCKS_EXCLUDED(mu_, state_mu);
  // A kLineData page of a chunk that may not be durable.
  struct RedoPage {
    uint64_t seq;
    uint64_t slot_offset;
    const uint8_t* page;
  };
  void CollectRedo(uint64_t seq, const std::vector<Record>& records,
                   const std::vector<absl::Span<const uint8_t>>& data,
                   std::vector<RedoPage>* redo) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Writes those pages into their slots again; read-only: checks that the
  // slots hold them (FailedPrecondition otherwise).
  [[nodiscard]] absl::Status Redo(const std::vector<RedoPage>& redo, bool repair)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
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
  // Set by Load when a copy is damaged or older (which == 0: none).
  struct SuperblockRepair {
    char which = 0;     // 'A' or 'B'
    std::string state;  // "damaged (why)" or "at generation N"
  };
  SuperblockRepair superblock_repair_ ABSL_GUARDED_BY(mu_);
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
  uint64_t appends_grouped_ ABSL_GUARDED_BY(mu_) = 0;
  // The chunk head being written (reused: no allocation per append).
  io::AlignedBuffer head_buf_ ABSL_GUARDED_BY(mu_);
  std::vector<uint8_t> head_ ABSL_GUARDED_BY(mu_);
  std::vector<io::IoRequest> chunk_io_ ABSL_GUARDED_BY(mu_);
  std::vector<Record> group_records_ ABSL_GUARDED_BY(mu_);  // LeadGroup's chunk

  // Group commit: taken after mu_ (never mu_ while holding it).
  Mutex queue_mu_ ABSL_ACQUIRED_AFTER(mu_);
  CondVar queue_cv_;
  std::vector<PendingAppend*> queue_ ABSL_GUARDED_BY(queue_mu_);
  bool leader_ ABSL_GUARDED_BY(queue_mu_) = false;
  // A group writes at most this many chunks (those queued while the one
  // before was written) before its sync: a bound on the first one's wait.
  static constexpr int kMaxGroupChunks = 8;
};

}  // namespace cellsim::cell::internal

#endif  // CELLSIM_CELL_JOURNAL_H_
