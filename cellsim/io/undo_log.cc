#include "cellsim/io/undo_log.h"

#include <fcntl.h>
#include <linux/falloc.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <random>

#include "cellsim/io/fd_backend.h"

namespace cellsim::io::internal {
namespace {

// Granularity at which all-zero old data is not stored.
constexpr uint64_t kChunk = 64 * 1024;

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

absl::Status ReadFull(int fd, const std::string& path, uint64_t offset, uint8_t* out,
                      size_t length) {
  size_t done = 0;
  while (done < length) {
    const ssize_t n = ::pread(fd, out + done, length - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoStatus(errno, "undo log: pread", path, offset, length);
    if (n == 0) {  // shrank meanwhile: the rest reads as zeros
      std::memset(out + done, 0, length - done);
      break;
    }
    done += static_cast<size_t>(n);
  }
  return absl::OkStatus();
}

absl::Status WriteFull(int fd, const std::string& path, uint64_t offset, const uint8_t* data,
                       size_t length) {
  size_t done = 0;
  while (done < length) {
    const ssize_t n = ::pwrite(fd, data + done, length - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return ErrnoStatus(n < 0 ? errno : EIO, "undo log: pwrite", path, offset, length);
    done += static_cast<size_t>(n);
  }
  return absl::OkStatus();
}

absl::Status ZeroRange(int fd, const std::string& path, uint64_t begin, uint64_t end) {
  if (end <= begin) return absl::OkStatus();
  if (::fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(begin),
                  static_cast<off_t>(end - begin)) == 0) {
    return absl::OkStatus();
  }
  // No hole punching here: write zeros.
  std::vector<uint8_t> zeros(static_cast<size_t>(std::min<uint64_t>(end - begin, kChunk * 16)));
  for (uint64_t off = begin; off < end;) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(end - off, zeros.size()));
    if (absl::Status s = WriteFull(fd, path, off, zeros.data(), n); !s.ok()) return s;
    off += n;
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status UndoLog::Record(const std::string& path, uint64_t offset, uint64_t length) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) {
    if (errno == ENOENT) {  // about to be created: undo to an empty file
      files_[path].push_back(Entry{0, 0, 0, {}});
      return absl::OkStatus();
    }
    return ErrnoStatus(errno, "undo log: open", path);
  }
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) return ErrnoStatus(errno, "undo log: fstat", path);
  const auto old_size = static_cast<uint64_t>(st.st_size);
  Entry entry{old_size, std::min(offset, old_size), std::min(offset + length, old_size), {}};
  // Walk the data segments of [begin, end); holes need no saving.
  uint64_t pos = entry.begin;
  std::vector<uint8_t> buf(static_cast<size_t>(std::min(kChunk, entry.end - entry.begin)));
  while (pos < entry.end) {
    off_t data = ::lseek(fd.get(), static_cast<off_t>(pos), SEEK_DATA);
    if (data < 0) {
      if (errno == ENXIO) break;  // only a hole remains
      data = static_cast<off_t>(pos);  // no SEEK_DATA: treat everything as data
    }
    const auto data_begin = static_cast<uint64_t>(data);
    if (data_begin >= entry.end) break;
    off_t hole = ::lseek(fd.get(), data, SEEK_HOLE);
    const uint64_t data_end =
        std::min(entry.end, hole < 0 ? entry.end : static_cast<uint64_t>(hole));
    for (uint64_t off = data_begin; off < data_end;) {
      // Chunks aligned to kChunk so that re-recording a range stores the same
      // pieces; the first and last may be partial.
      const uint64_t next = std::min(data_end, AlignDown(off, kChunk) + kChunk);
      const auto n = static_cast<size_t>(next - off);
      if (absl::Status s = ReadFull(fd.get(), path, off, buf.data(), n); !s.ok()) return s;
      if (std::any_of(buf.begin(), buf.begin() + static_cast<ptrdiff_t>(n),
                      [](uint8_t b) { return b != 0; })) {
        entry.chunks.push_back(Chunk{off, std::vector<uint8_t>(buf.begin(), buf.begin() + static_cast<ptrdiff_t>(n))});
      }
      off = next;
    }
    pos = data_end;
  }
  files_[path].push_back(std::move(entry));
  return absl::OkStatus();
}

absl::Status UndoLog::RecordResize(const std::string& path, uint64_t new_size) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) {
      files_[path].push_back(Entry{0, 0, 0, {}});
      return absl::OkStatus();
    }
    return ErrnoStatus(errno, "undo log: stat", path);
  }
  const auto old_size = static_cast<uint64_t>(st.st_size);
  // Shrinking destroys [new_size, old_size); growing destroys nothing.
  if (new_size < old_size) return Record(path, new_size, old_size - new_size);
  files_[path].push_back(Entry{old_size, 0, 0, {}});
  return absl::OkStatus();
}

absl::Status UndoLog::Rollback(uint64_t keep_seed) {
  absl::Status first_error;
  std::mt19937_64 rng(keep_seed);
  for (auto& [path, entries] : files_) {
    Fd fd(::open(path.c_str(), O_RDWR | O_CLOEXEC));
    if (fd.get() < 0) {
      if (errno == ENOENT) continue;
      if (first_error.ok()) first_error = ErrnoStatus(errno, "power loss: open", path);
      continue;
    }
    for (auto it = entries.rbegin(); it != entries.rend(); ++it) {
      // Kept: this write reached the medium (only range entries; a resize
      // entry is always undone).
      if (keep_seed != 0 && it->end > it->begin && (rng() & 1) != 0) continue;
      absl::Status s;
      if (::ftruncate(fd.get(), static_cast<off_t>(it->old_size)) != 0) {
        s = ErrnoStatus(errno, "power loss: ftruncate", path);
      }
      if (s.ok()) s = ZeroRange(fd.get(), path, it->begin, it->end);
      for (const Chunk& c : it->chunks) {
        if (!s.ok()) break;
        s = WriteFull(fd.get(), path, c.offset, c.bytes.data(), c.bytes.size());
      }
      if (!s.ok() && first_error.ok()) first_error = s;
    }
    // The restored state is what was synced; make it durable as such.
    if (::fsync(fd.get()) != 0 && first_error.ok()) {
      first_error = ErrnoStatus(errno, "power loss: fsync", path);
    }
  }
  files_.clear();
  return first_error;
}

uint64_t UndoLog::SavedBytes() const {
  uint64_t total = 0;
  for (const auto& [path, entries] : files_) {
    for (const Entry& e : entries) {
      for (const Chunk& c : e.chunks) total += c.bytes.size();
    }
  }
  return total;
}

size_t UndoLog::Entries() const {
  size_t n = 0;
  for (const auto& [path, entries] : files_) n += entries.size();
  return n;
}

}  // namespace cellsim::io::internal
