// Private to the io layer: what the POSIX and io_uring backends share — the
// handle table (handle -> fd, path, mode), the registered-buffer table,
// request validation (O_DIRECT alignment is checked here, before anything is
// submitted, so the error can say which of offset/length/buffer is off), the
// errno -> Status mapping, and the metadata operations (sync, fallocate,
// truncate, size), which both backends run as plain syscalls.
#ifndef CELLSIM_IO_FD_BACKEND_H_
#define CELLSIM_IO_FD_BACKEND_H_

#include <sys/uio.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cellsim/base/mutex.h"
#include "cellsim/io/io_backend.h"

namespace cellsim::io::internal {

// "MESSAGE: <strerror>" with the code of absl::ErrnoToStatus.
absl::Status ErrnoStatus(int error_number, std::string_view message);
// "pwrite /r/disk0.img at offset 4096 (8192 bytes): No space left on device",
// with the code of absl::ErrnoToStatus.
absl::Status ErrnoStatus(int error_number, std::string_view op, const std::string& path,
                         uint64_t offset, uint64_t length);
// Same without a byte range ("open /r/x.img: No such file or directory").
absl::Status ErrnoStatus(int error_number, std::string_view op, const std::string& path);

std::string_view OpVerb(IoOp op);  // "read" / "write"

// One open file. The fd is closed when the last reference goes (a request in
// flight keeps it alive even if another thread closes the handle).
struct OpenFile {
  OpenFile(int fd_in, std::string path_in, bool direct_in, bool read_only_in)
      : fd(fd_in), path(std::move(path_in)), direct(direct_in), read_only(read_only_in) {}
  ~OpenFile();
  OpenFile(const OpenFile&) = delete;
  OpenFile& operator=(const OpenFile&) = delete;
  int fd;
  const std::string path;
  const bool direct;
  const bool read_only;
};

// Base of the POSIX and io_uring backends: everything except Submit().
class FdBackend : public IoBackend {
 public:
  absl::StatusOr<FileHandle> Open(const std::string& path,
                                  const OpenOptions& options) override
      ABSL_LOCKS_EXCLUDED(files_mu_);
  absl::Status Close(FileHandle file) override ABSL_LOCKS_EXCLUDED(files_mu_);
  absl::Status Sync(FileHandle file, SyncKind kind) override;
  absl::Status Allocate(FileHandle file, AllocateMode mode, uint64_t offset,
                        uint64_t length) override;
  absl::Status Truncate(FileHandle file, uint64_t size) override;
  absl::StatusOr<uint64_t> Size(FileHandle file) override;
  absl::StatusOr<std::string> PathOf(FileHandle file) const override;
  bool IsDirect(FileHandle file) const override;
  absl::StatusOr<int> RegisterBuffer(void* data, size_t length) override
      ABSL_LOCKS_EXCLUDED(buffers_mu_);
  absl::Status UnregisterBuffer(int index) override ABSL_LOCKS_EXCLUDED(buffers_mu_);
  IoBackendCounters Counters() const override;

 protected:
  absl::StatusOr<std::shared_ptr<OpenFile>> Lookup(FileHandle file) const
      ABSL_LOCKS_EXCLUDED(files_mu_);
  // Checks a request before it is issued: a known handle, a buffer, O_DIRECT
  // alignment of offset, length and buffer address, a registered-buffer index
  // whose buffer contains [buffer, buffer+length), no write on a read-only
  // handle. On success stores the file in *out.
  absl::Status Validate(const IoRequest& request, std::shared_ptr<OpenFile>* out) const
      ABSL_LOCKS_EXCLUDED(files_mu_, buffers_mu_);
  // Records a completed request in the counters.
  void Count(const IoRequest& request);
  // Validates and runs each request with pread/pwrite on the calling thread,
  // in order (short transfers continued, EINTR retried), counting each;
  // returns the first failed request's status.
  absl::Status ExecuteBlocking(absl::Span<IoRequest> requests)
      ABSL_LOCKS_EXCLUDED(files_mu_, buffers_mu_);
  void CountSubmit() { submits_.fetch_add(1, std::memory_order_relaxed); }

  // Registered buffers, in index order. Guarded by buffers_mu_; the generation
  // changes on each registration so rings can tell they are out of date.
  std::vector<iovec> RegisteredBuffers(uint64_t* generation) const
      ABSL_LOCKS_EXCLUDED(buffers_mu_);
  // Turns entry `index` into an empty slot (indices stay stable) after its
  // registration failed; requests naming it are then refused.
  void MarkBufferUnusable(int index) ABSL_LOCKS_EXCLUDED(buffers_mu_);

 private:
  void ExecuteOne(IoRequest& request) ABSL_LOCKS_EXCLUDED(files_mu_, buffers_mu_);

  // The two tables have their own locks, never held together.
  mutable SharedMutex files_mu_;
  std::unordered_map<FileHandle, std::shared_ptr<OpenFile>> files_ ABSL_GUARDED_BY(files_mu_);
  FileHandle next_handle_ ABSL_GUARDED_BY(files_mu_) = 1;

  mutable SharedMutex buffers_mu_;
  std::vector<iovec> buffers_ ABSL_GUARDED_BY(buffers_mu_);
  uint64_t buffers_generation_ ABSL_GUARDED_BY(buffers_mu_) = 0;

  std::atomic<uint64_t> reads_{0}, writes_{0}, read_bytes_{0}, write_bytes_{0};
  std::atomic<uint64_t> syncs_{0}, allocates_{0}, truncates_{0}, submits_{0};
};

// Current time for request latencies (steady clock, ns).
uint64_t MonotonicNanos();

}  // namespace cellsim::io::internal

#endif  // CELLSIM_IO_FD_BACKEND_H_
