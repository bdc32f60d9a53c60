#include "cellsim/io/fd_backend.h"

#include <fcntl.h>
#include <linux/falloc.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "fmt/format.h"

namespace cellsim::io::internal {

uint64_t MonotonicNanos() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

absl::Status ErrnoStatus(int error_number, std::string_view message) {
  // Not absl::ErrnoToStatus: its message cache is filled by an uninstrumented
  // function-local static, which TSan reports as a race when two threads hit
  // their first error at once (a full disk under every cell). strerror_r is
  // thread-safe and intercepted.
  char buffer[128];
  const char* text = ::strerror_r(error_number, buffer, sizeof buffer);
  return absl::Status(absl::ErrnoToStatusCode(error_number), fmt::format("{}: {}", message, text));
}

absl::Status ErrnoStatus(int error_number, std::string_view op, const std::string& path,
                         uint64_t offset, uint64_t length) {
  return ErrnoStatus(error_number,
                     fmt::format("{} {} at offset {} ({} bytes)", op, path, offset, length));
}

absl::Status ErrnoStatus(int error_number, std::string_view op, const std::string& path) {
  return ErrnoStatus(error_number, fmt::format("{} {}", op, path));
}

std::string_view OpVerb(IoOp op) { return op == IoOp::kRead ? "read" : "write"; }

OpenFile::~OpenFile() {
  if (fd >= 0) ::close(fd);
}

absl::StatusOr<FileHandle> FdBackend::Open(const std::string& path,
                                           const OpenOptions& options) {
  int flags = O_CLOEXEC | (options.read_only ? O_RDONLY : O_RDWR);
  if (options.create) flags |= O_CREAT;
  if (options.truncate) flags |= O_TRUNC;
  if (options.direct) flags |= O_DIRECT;
  int fd = ::open(path.c_str(), flags, 0644);
  if (fd < 0) {
    const int err = errno;
    if (err == EINVAL && options.direct) {
      // open(2) reports a filesystem without O_DIRECT support (tmpfs on older
      // kernels, some FUSE mounts) as EINVAL; say so instead of a bare errno.
      return absl::InvalidArgumentError(fmt::format(
          "open {} with O_DIRECT: the filesystem refuses O_DIRECT ({}); open it "
          "buffered (direct = false) or use another directory",
          path, std::strerror(err)));
    }
    return ErrnoStatus(err, options.create ? "open/create" : "open", path);
  }
  auto file = std::make_shared<OpenFile>(fd, path, options.direct, options.read_only);
  WriterMutexLock lock(&files_mu_);
  const FileHandle handle = next_handle_++;
  files_.emplace(handle, std::move(file));
  return handle;
}

absl::Status FdBackend::Close(FileHandle file) {
  std::shared_ptr<OpenFile> f;
  {
    WriterMutexLock lock(&files_mu_);
    auto it = files_.find(file);
    if (it == files_.end()) {
      return absl::InvalidArgumentError(
          fmt::format("close: file handle {} is not open in {} backend", file, Name()));
    }
    f = std::move(it->second);
    files_.erase(it);
  }
  // A request still in flight on another thread holds a reference; then the
  // fd closes when it finishes and close errors cannot be reported here.
  if (f.use_count() == 1) {
    const int fd = f->fd;
    f->fd = -1;
    if (::close(fd) != 0) return ErrnoStatus(errno, "close", f->path);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<OpenFile>> FdBackend::Lookup(FileHandle file) const {
  ReaderMutexLock lock(&files_mu_);
  auto it = files_.find(file);
  if (it == files_.end()) {
    return absl::InvalidArgumentError(
        fmt::format("file handle {} is not open in {} backend", file, Name()));
  }
  return it->second;
}

absl::Status FdBackend::Sync(FileHandle file, SyncKind kind) {
  auto f = Lookup(file);
  if (!f.ok()) return f.status();
  const int rc = kind == SyncKind::kData ? ::fdatasync((*f)->fd) : ::fsync((*f)->fd);
  if (rc != 0) {
    return ErrnoStatus(errno, kind == SyncKind::kData ? "fdatasync" : "fsync", (*f)->path);
  }
  syncs_.fetch_add(1, std::memory_order_relaxed);
  return absl::OkStatus();
}

absl::Status FdBackend::Allocate(FileHandle file, AllocateMode mode, uint64_t offset,
                                 uint64_t length) {
  auto f = Lookup(file);
  if (!f.ok()) return f.status();
  int flags = 0;
  switch (mode) {
    case AllocateMode::kAllocate: flags = 0; break;
    case AllocateMode::kKeepSize: flags = FALLOC_FL_KEEP_SIZE; break;
    case AllocateMode::kZeroRange: flags = FALLOC_FL_ZERO_RANGE; break;
    case AllocateMode::kPunchHole: flags = FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE; break;
  }
  if (::fallocate((*f)->fd, flags, static_cast<off_t>(offset),
                  static_cast<off_t>(length)) != 0) {
    const int err = errno;
    absl::Status s = ErrnoStatus(err, fmt::format("fallocate({})", AllocateModeName(mode)),
                                 (*f)->path, offset, length);
    if (err == EOPNOTSUPP) {
      return absl::UnimplementedError(fmt::format(
          "{} (the filesystem does not support this fallocate mode; see `cellsim probe`)",
          std::string(s.message())));
    }
    return s;
  }
  allocates_.fetch_add(1, std::memory_order_relaxed);
  return absl::OkStatus();
}

absl::Status FdBackend::Truncate(FileHandle file, uint64_t size) {
  auto f = Lookup(file);
  if (!f.ok()) return f.status();
  if (::ftruncate((*f)->fd, static_cast<off_t>(size)) != 0) {
    return ErrnoStatus(errno, fmt::format("ftruncate to {} bytes", size), (*f)->path);
  }
  truncates_.fetch_add(1, std::memory_order_relaxed);
  return absl::OkStatus();
}

absl::StatusOr<uint64_t> FdBackend::Size(FileHandle file) {
  auto f = Lookup(file);
  if (!f.ok()) return f.status();
  struct stat st;
  if (::fstat((*f)->fd, &st) != 0) return ErrnoStatus(errno, "fstat", (*f)->path);
  return static_cast<uint64_t>(st.st_size);
}

absl::StatusOr<std::string> FdBackend::PathOf(FileHandle file) const {
  auto f = Lookup(file);
  if (!f.ok()) return f.status();
  return (*f)->path;
}

bool FdBackend::IsDirect(FileHandle file) const {
  auto f = Lookup(file);
  return f.ok() && (*f)->direct;
}

absl::StatusOr<int> FdBackend::RegisterBuffer(void* data, size_t length) {
  if (data == nullptr || length == 0) {
    return absl::InvalidArgumentError(
        fmt::format("RegisterBuffer: empty buffer ({} bytes at {})", length, data));
  }
  WriterMutexLock lock(&buffers_mu_);
  buffers_.push_back(iovec{data, length});
  ++buffers_generation_;
  return static_cast<int>(buffers_.size() - 1);
}

absl::Status FdBackend::UnregisterBuffer(int index) {
  {
    ReaderMutexLock lock(&buffers_mu_);
    if (index < 0 || static_cast<size_t>(index) >= buffers_.size() ||
        buffers_[static_cast<size_t>(index)].iov_base == nullptr) {
      return absl::InvalidArgumentError(
          fmt::format("UnregisterBuffer: buffer {} is not registered", index));
    }
  }
  MarkBufferUnusable(index);
  return absl::OkStatus();
}

std::vector<iovec> FdBackend::RegisteredBuffers(uint64_t* generation) const {
  ReaderMutexLock lock(&buffers_mu_);
  if (generation != nullptr) *generation = buffers_generation_;
  return buffers_;
}

void FdBackend::MarkBufferUnusable(int index) {
  WriterMutexLock lock(&buffers_mu_);
  if (index >= 0 && static_cast<size_t>(index) < buffers_.size()) {
    buffers_[static_cast<size_t>(index)] = iovec{nullptr, 0};
    ++buffers_generation_;
  }
}

absl::Status FdBackend::Validate(const IoRequest& r, std::shared_ptr<OpenFile>* out) const {
  auto f = Lookup(r.file);
  if (!f.ok()) {
    return absl::InvalidArgumentError(fmt::format("{} at offset {} ({} bytes): {}",
                                                  OpVerb(r.op), r.offset, r.length,
                                                  std::string(f.status().message())));
  }
  const OpenFile& file = **f;
  if (r.length > 0 && r.buffer == nullptr) {
    return absl::InvalidArgumentError(fmt::format("{} {} at offset {} ({} bytes): no buffer",
                                                  OpVerb(r.op), file.path, r.offset,
                                                  r.length));
  }
  if (r.op == IoOp::kWrite && file.read_only) {
    // The kernel would say EBADF; map it the same way but explain why.
    return ErrnoStatus(EBADF, fmt::format("write {} at offset {} ({} bytes) (the handle was "
                                          "opened read-only)",
                                          file.path, r.offset, r.length));
  }
  if (file.direct) {
    const char* what = nullptr;
    uint64_t value = 0;
    if (!IsAligned(r.offset, kDirectAlignment)) {
      what = "offset";
      value = r.offset;
    } else if (!IsAligned(r.length, kDirectAlignment)) {
      what = "length";
      value = r.length;
    } else if (!IsAligned(reinterpret_cast<uintptr_t>(r.buffer), kDirectAlignment)) {
      what = "buffer address";
      value = reinterpret_cast<uintptr_t>(r.buffer);
    }
    if (what != nullptr) {
      return absl::InvalidArgumentError(fmt::format(
          "O_DIRECT {} {} {} at offset {} ({} bytes): {} {}{} not a multiple of {} "
          "(use AlignedBuffer and block-aligned offsets, or open the file buffered)",
          OpVerb(r.op), r.op == IoOp::kRead ? "from" : "to", file.path, r.offset,
          r.length, what, what[0] == 'b' ? "0x" : "",
          what[0] == 'b' ? fmt::format("{:x}", value) : fmt::format("{}", value),
          kDirectAlignment));
    }
  }
  if (r.registered_buffer >= 0) {
    ReaderMutexLock lock(&buffers_mu_);
    const auto idx = static_cast<size_t>(r.registered_buffer);
    const auto* p = static_cast<const uint8_t*>(r.buffer);
    if (idx >= buffers_.size() || buffers_[idx].iov_base == nullptr) {
      return absl::InvalidArgumentError(fmt::format(
          "{} {} at offset {}: registered buffer {} does not exist ({} registered)",
          OpVerb(r.op), file.path, r.offset, r.registered_buffer, buffers_.size()));
    }
    const auto* base = static_cast<const uint8_t*>(buffers_[idx].iov_base);
    if (p < base || p + r.length > base + buffers_[idx].iov_len) {
      return absl::InvalidArgumentError(fmt::format(
          "{} {} at offset {} ({} bytes): buffer is not inside registered buffer {}",
          OpVerb(r.op), file.path, r.offset, r.length, r.registered_buffer));
    }
  }
  *out = std::move(*f);
  return absl::OkStatus();
}

absl::Status FdBackend::ExecuteBlocking(absl::Span<IoRequest> requests) {
  absl::Status first_error;
  for (IoRequest& r : requests) {
    ExecuteOne(r);
    if (!r.status.ok() && first_error.ok()) first_error = r.status;
  }
  return first_error;
}

void FdBackend::ExecuteOne(IoRequest& r) {
  r.transferred = 0;
  r.latency_ns = 0;
  std::shared_ptr<OpenFile> file;
  r.status = Validate(r, &file);
  if (!r.status.ok()) return;
  const uint64_t start = MonotonicNanos();
  auto* p = static_cast<uint8_t*>(r.buffer);
  // Loop over short transfers: a read stops at EOF (0), a write retries the
  // rest so that only a real error ends it early.
  while (r.transferred < r.length) {
    const size_t left = r.length - r.transferred;
    const off_t off = static_cast<off_t>(r.offset + r.transferred);
    const ssize_t n = r.op == IoOp::kRead ? ::pread(file->fd, p + r.transferred, left, off)
                                          : ::pwrite(file->fd, p + r.transferred, left, off);
    if (n < 0) {
      if (errno == EINTR) continue;
      r.status = ErrnoStatus(errno, r.op == IoOp::kRead ? "pread" : "pwrite", file->path,
                             r.offset, r.length);
      break;
    }
    if (n == 0) {
      if (r.op == IoOp::kWrite) {
        r.status = ErrnoStatus(EIO, "pwrite (wrote 0 bytes)", file->path, r.offset, r.length);
      }
      break;  // read: end of file
    }
    r.transferred += static_cast<size_t>(n);
    // O_DIRECT at an unaligned EOF: the next offset is not aligned and the
    // kernel would refuse it, but a short direct read only happens at EOF.
    if (file->direct && r.op == IoOp::kRead && !IsAligned(r.transferred, kDirectAlignment)) {
      break;
    }
  }
  r.latency_ns = MonotonicNanos() - start;
  Count(r);
}

void FdBackend::Count(const IoRequest& r) {
  if (!r.status.ok()) return;
  if (r.op == IoOp::kRead) {
    reads_.fetch_add(1, std::memory_order_relaxed);
    read_bytes_.fetch_add(r.transferred, std::memory_order_relaxed);
  } else {
    writes_.fetch_add(1, std::memory_order_relaxed);
    write_bytes_.fetch_add(r.transferred, std::memory_order_relaxed);
  }
}

IoBackendCounters FdBackend::Counters() const {
  IoBackendCounters c;
  c.reads = reads_.load(std::memory_order_relaxed);
  c.writes = writes_.load(std::memory_order_relaxed);
  c.read_bytes = read_bytes_.load(std::memory_order_relaxed);
  c.write_bytes = write_bytes_.load(std::memory_order_relaxed);
  c.syncs = syncs_.load(std::memory_order_relaxed);
  c.allocates = allocates_.load(std::memory_order_relaxed);
  c.truncates = truncates_.load(std::memory_order_relaxed);
  c.submits = submits_.load(std::memory_order_relaxed);
  return c;
}

}  // namespace cellsim::io::internal
