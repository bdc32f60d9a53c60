// Private to the io layer: the undo log behind FaultInjectionBackend's power
// loss. Before each write, truncate, allocation or hole punch, the wrapper
// records what the operation is about to destroy: the file's size and the
// non-zero bytes of the affected range that lie inside that size. Power loss
// replays the entries newest first; a completed Sync() of a file discards its
// entries, so what remains afterwards is exactly the synced state.
//
// Large sparse files stay cheap: only the touched range is examined, holes are
// found with SEEK_DATA/SEEK_HOLE and skipped, and all-zero chunks are not stored
// (undo re-zeroes the whole range, then writes back the stored chunks).
//
// The log reads and restores through its own POSIX descriptors on the path, not
// through the wrapped backend: this keeps the wrapped backend's counters and
// faults out of the bookkeeping, and works whatever mode (O_DIRECT, read-only)
// the caller's handle is in. It therefore wraps backends of real files.
//
// Thread-safety: none; FaultInjectionBackend serialises calls.
#ifndef CELLSIM_IO_UNDO_LOG_H_
#define CELLSIM_IO_UNDO_LOG_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace cellsim::io::internal {

class UndoLog {
 public:
  // Before `path`'s bytes [offset, offset+length) are overwritten or zeroed
  // (write, zero-range, punch-hole) or the file is resized (length 0).
  [[nodiscard]] absl::Status Record(const std::string& path, uint64_t offset,
                                    uint64_t length);
  // Before a truncate of `path` to `new_size` (also O_TRUNC at open, and a
  // missing file about to be created, which undoes to size 0).
  [[nodiscard]] absl::Status RecordResize(const std::string& path, uint64_t new_size);

  // `path` completed a Sync(): everything so far is durable.
  void Synced(const std::string& path) { files_.erase(path); }

  // Undoes every entry, newest first per file, then forgets them. A file
  // removed since is skipped. With `keep_seed` non-zero, each entry of a range
  // (a write, a zeroed range) is kept instead with probability 1/2 (seeded):
  // a disk that wrote some of its cached writes and not others.
  [[nodiscard]] absl::Status Rollback(uint64_t keep_seed = 0);

  // Bytes of old data held (for tests of the sparse-file economy).
  uint64_t SavedBytes() const;
  size_t Entries() const;

 private:
  struct Chunk {
    uint64_t offset;
    std::vector<uint8_t> bytes;
  };
  struct Entry {
    uint64_t old_size;
    uint64_t begin, end;  // range to re-zero before writing the chunks back
    std::vector<Chunk> chunks;
  };
  std::map<std::string, std::vector<Entry>> files_;
};

}  // namespace cellsim::io::internal

#endif  // CELLSIM_IO_UNDO_LOG_H_
