// CacheState (private): the in-memory image of a cell's persistent flash-cache
// metadata — the directory of cache lines (grid disk, line) -> flash slot with
// per-page valid/dirty bitmaps, the fast-creation template ranges, the lost
// ranges — plus the volatile slot allocator and LRU order.
//
// Every persistent change goes through Apply(record), both live (after the
// journal append) and during replay, so the two cannot disagree. Pages are
// 4 KiB; a line has at most 64 pages (one uint64_t bitmap).
//
// Invariants (checked by CheckInvariants in tests):
//   dirty ⊆ valid for every line; no page is both valid in the cache and
//   covered by a template range; template ranges of a disk never overlap;
//   lost ranges never overlap templates.
//
// Thread-safety: none; the cell guards it with its state mutex.
#ifndef CELLSIM_CELL_CACHE_STATE_H_
#define CELLSIM_CELL_CACHE_STATE_H_

#include <cstdint>
#include <functional>
#include <list>
#include <map>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "cellsim/cell/metadata.h"

namespace cellsim::cell::internal {

struct LineState {
  uint32_t slot = 0;
  uint64_t valid = 0;
  uint64_t dirty = 0;
  std::list<uint64_t>::iterator lru;
};

struct TemplateRange {
  uint64_t end = 0;  // exclusive
  format::BlockTemplate tmpl;
  uint64_t file_offset = 0;  // file byte offset at the range's start
};

class CacheState {
 public:
  CacheState(std::vector<uint64_t> disk_sizes, uint32_t line_size, uint32_t num_slots);

  static uint64_t Key(uint32_t disk, uint64_t line) { return (uint64_t{disk} << 44) | line; }
  static uint32_t KeyDisk(uint64_t key) { return static_cast<uint32_t>(key >> 44); }
  static uint64_t KeyLine(uint64_t key) { return key & ((uint64_t{1} << 44) - 1); }

  uint32_t line_size() const { return line_size_; }
  uint32_t pages_per_line() const { return pages_per_line_; }
  uint32_t num_slots() const { return num_slots_; }
  uint64_t full_mask() const { return full_mask_; }

  // Applies one journal record. `seq` is its chunk's sequence: slots it frees
  // may be reused only once that chunk is durable (MarkSynced), because until
  // then a crash would bring back the old mapping to the slot. DataLoss when a
  // record contradicts the state (a corrupt journal).
  [[nodiscard]] absl::Status Apply(const Record& r, uint64_t seq);
  void MarkSynced(uint64_t seq);

  [[nodiscard]] absl::Status LoadCheckpoint(const CheckpointImage& image);
  CheckpointImage Snapshot() const;

  // --- lines ---
  const LineState* Find(uint64_t key) const;
  void Touch(uint64_t key);
  size_t line_count() const { return lines_.size(); }
  uint64_t valid_pages() const { return valid_pages_; }
  uint64_t dirty_pages() const { return dirty_pages_; }
  // Lines holding at least one dirty page (each pins its slot until destaged).
  uint64_t dirty_lines() const { return dirty_lines_; }
  // Up to `n` lines from the cold end of the LRU that are dirty (want_dirty) or
  // clean-and-valid, and that `accept` takes (e.g. it could lock them).
  std::vector<uint64_t> ColdLines(bool want_dirty, size_t n,
                                  const std::function<bool(uint64_t)>& accept) const;
  std::vector<uint64_t> DirtyLines() const;

  // --- slots ---
  std::optional<uint32_t> ReserveSlot();
  void UnreserveSlot(uint32_t slot);
  size_t free_slots() const {
    RebuildFreeList();
    return free_.size();
  }
  size_t pending_free_slots() const { return pending_.size(); }

  // --- templates ---
  // The template range covering byte `offset` of `disk`, with its start.
  const TemplateRange* FindTemplate(uint32_t disk, uint64_t offset, uint64_t* start) const;
  bool AnyTemplate(uint32_t disk, uint64_t offset, uint64_t length) const;
  // Template pieces clipped to [offset, offset+length).
  std::vector<CheckpointTemplate> TemplatesIn(uint32_t disk, uint64_t offset,
                                              uint64_t length) const;
  std::optional<CheckpointTemplate> FirstTemplate() const;
  size_t template_count() const { return template_count_; }
  uint64_t template_bytes() const { return template_bytes_; }

  // --- lost ranges ---
  bool AnyLost(uint32_t disk, uint64_t offset, uint64_t length) const;
  std::vector<CheckpointRange> AllLost() const;
  size_t lost_count() const { return lost_count_; }

  // True when any cached page lies in the range.
  bool AnyCached(uint32_t disk, uint64_t offset, uint64_t length) const;

  // Drops everything (flash device replaced); returns the lost ranges created
  // from dirty pages and templates, which are added to the lost set.
  std::vector<CheckpointRange> LoseAll();

  // OK or Internal naming the violated invariant.
  [[nodiscard]] absl::Status CheckInvariants() const;

 private:
  enum SlotState : uint8_t { kFree, kReserved, kUsed, kPending };
  [[nodiscard]] absl::Status CheckRange(const Record& r) const;
  void SetLine(uint32_t disk, uint64_t line, uint32_t slot, uint64_t valid, uint64_t dirty,
               uint64_t seq);
  void DropLine(uint64_t key, uint64_t seq);
  void DropPages(uint32_t disk, uint64_t offset, uint64_t length, uint64_t seq);
  using TemplateMap = std::map<uint64_t, TemplateRange>;  // by start
  // Removes the templates' parts in [a, b); returns where a template starting
  // at `a` goes (the first one left at or after b).
  TemplateMap::iterator TrimTemplates(uint32_t disk, uint64_t a, uint64_t b);
  void TrimLost(uint32_t disk, uint64_t a, uint64_t b);
  void AddLost(uint32_t disk, uint64_t a, uint64_t b);
  void FreeSlot(uint32_t slot, uint64_t seq);
  void RebuildFreeList() const;

  std::vector<uint64_t> disk_sizes_;
  uint32_t line_size_;
  uint32_t pages_per_line_;
  uint32_t num_slots_;
  uint64_t full_mask_;
  std::unordered_map<uint64_t, LineState> lines_;
  // Cached lines per disk: DropPages skips a disk that has none without a
  // lookup per line (a fast creation drops the pages of every AU it formats).
  std::vector<uint32_t> lines_on_disk_;
  std::list<uint64_t> lru_;  // front = most recently used
  std::vector<uint8_t> slot_state_;
  mutable std::vector<uint32_t> free_;
  mutable bool free_stale_ = false;
  std::vector<std::pair<uint64_t, uint32_t>> pending_;  // (seq, slot), seq ascending
  uint64_t valid_pages_ = 0;
  uint64_t dirty_pages_ = 0;
  uint64_t dirty_lines_ = 0;
  std::vector<TemplateMap> templates_;  // per disk
  std::vector<std::map<uint64_t, uint64_t>> lost_;            // per disk: start -> end
  size_t template_count_ = 0;
  uint64_t template_bytes_ = 0;
  size_t lost_count_ = 0;
};

}  // namespace cellsim::cell::internal

#endif  // CELLSIM_CELL_CACHE_STATE_H_
