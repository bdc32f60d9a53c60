// IoBackend: the one seam through which every byte cellsim stores reaches a file.
//
// Modelled on LevelDB's Env and RocksDB's FileSystem: cells, ASM and the database
// never call open/pread/pwrite themselves; they take an IoBackend by injection, so a
// test can wrap it (FaultInjectionBackend) to fail operations, add latency or drop
// unsynced writes as a power loss would.
//
// Usage:
//   std::unique_ptr<IoBackend> io = *MakeUringBackend({.queue_depth = 32});
//   FileHandle f = *io->Open("/rack/cell01/disk00.img", {.create = true});
//   std::vector<IoRequest> reqs = ...;          // many reads/writes
//   absl::Status s = io->Submit(absl::MakeSpan(reqs));  // all in flight, waits for all
//   s = io->Sync(f, SyncKind::kData);
//   s = io->Close(f);
//
// Thread-safety: every method of every backend may be called concurrently from
// several threads (implementations keep per-thread or pooled queues).
// Errors: absl::Status whose message names the operation, the file, the offset and
// the errno text (e.g. "pwrite /r/disk0.img at offset 4096 (8192 bytes): No space
// left on device"); the code follows absl::ErrnoToStatus.
#ifndef CELLSIM_IO_IO_BACKEND_H_
#define CELLSIM_IO_IO_BACKEND_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace cellsim::io {

// Opaque per-backend handle of an open file. Valid until Close().
using FileHandle = int32_t;
inline constexpr FileHandle kInvalidFile = -1;

// The alignment O_DIRECT requests must respect here (offset, length, buffer).
inline constexpr size_t kDirectAlignment = 4096;

struct OpenOptions {
  bool create = false;     // create the file if missing (O_CREAT)
  bool truncate = false;   // truncate an existing file to 0 (O_TRUNC)
  bool read_only = false;  // O_RDONLY instead of O_RDWR
  // O_DIRECT. Requests on such a file must be kDirectAlignment-aligned in offset,
  // length and buffer address; a misaligned one fails with InvalidArgument
  // explaining which of the three is off (it is never silently bounced).
  bool direct = false;
};

enum class IoOp : uint8_t { kRead, kWrite };

// One read or write. The caller owns `buffer`, which must stay valid until
// Submit() returns. Results are filled in by Submit().
struct IoRequest {
  IoOp op = IoOp::kRead;
  FileHandle file = kInvalidFile;
  uint64_t offset = 0;
  void* buffer = nullptr;  // read: destination; write: source (not modified)
  size_t length = 0;
  // Index of a buffer registered with RegisterBuffer() that contains `buffer`,
  // or -1. Backends that support it (io_uring) use fixed-buffer opcodes.
  int registered_buffer = -1;
  // Caller's tag, untouched by backends: lets a SubmitStream() completion
  // callback tell its requests apart.
  uint64_t user_data = 0;

  // --- results ---
  absl::Status status = absl::OkStatus();  // OK, or why this request failed
  size_t transferred = 0;  // bytes read/written (a read past EOF returns fewer)
  uint64_t latency_ns = 0; // submit to completion
};

// Builders for requests (designated initializers that skip the result fields
// trip -Wmissing-field-initializers).
inline IoRequest MakeRead(FileHandle file, uint64_t offset, void* buffer, size_t length,
                          int registered_buffer = -1, uint64_t user_data = 0) {
  IoRequest r;
  r.op = IoOp::kRead;
  r.file = file;
  r.offset = offset;
  r.buffer = buffer;
  r.length = length;
  r.registered_buffer = registered_buffer;
  r.user_data = user_data;
  return r;
}
inline IoRequest MakeWrite(FileHandle file, uint64_t offset, const void* buffer,
                           size_t length, int registered_buffer = -1,
                           uint64_t user_data = 0) {
  IoRequest r = MakeRead(file, offset, const_cast<void*>(buffer), length, registered_buffer,
                         user_data);
  r.op = IoOp::kWrite;  // a write only reads its buffer
  return r;
}

enum class SyncKind : uint8_t { kData /* fdatasync */, kFull /* fsync */ };

enum class AllocateMode : uint8_t {
  kAllocate,   // reserve blocks (fallocate mode 0), extends the file
  kKeepSize,   // reserve blocks, keep size (FALLOC_FL_KEEP_SIZE)
  kZeroRange,  // FALLOC_FL_ZERO_RANGE: range reads as zeros, blocks stay allocated
  kPunchHole,  // FALLOC_FL_PUNCH_HOLE|KEEP_SIZE: deallocate, range reads as zeros
};

std::string_view AllocateModeName(AllocateMode mode);

// Counters every backend keeps (monotonic, thread-safe reads).
struct IoBackendCounters {
  uint64_t reads = 0, writes = 0, read_bytes = 0, write_bytes = 0;
  uint64_t syncs = 0, allocates = 0, truncates = 0, submits = 0;
};

class IoBackend {
 public:
  virtual ~IoBackend() = default;

  // "io_uring", "posix", "fault(io_uring)", ...
  virtual std::string Name() const = 0;

  // Opens `path`. Errors: NotFound when missing and !create; InvalidArgument when
  // `direct` is asked on a filesystem that refuses O_DIRECT (the message says so).
  [[nodiscard]] virtual absl::StatusOr<FileHandle> Open(const std::string& path,
                                                        const OpenOptions& options) = 0;
  [[nodiscard]] virtual absl::Status Close(FileHandle file) = 0;

  // Executes every request, keeping up to the backend's queue depth in flight,
  // and returns when all have completed. Each request gets its own status; the
  // return value is OK when all succeeded, else the first failure's status.
  // A short read (EOF) is not an error: `transferred` tells how much was read.
  [[nodiscard]] virtual absl::Status Submit(absl::Span<IoRequest> requests) = 0;

  // Streaming submission, for work too large to describe up front (zero-filling
  // a 2 GiB file in 1 MiB requests): `next` fills the request it is given and
  // returns true, or returns false when there is nothing more; `on_complete` is
  // called once per finished request (status, transferred and latency_ns set).
  // The request object passed to `next` is owned by the backend and reused after
  // `on_complete` returns, so memory stays O(queue depth). Both callbacks run on
  // the calling thread. The io_uring backend keeps the queue full (refilling as
  // completions arrive, never draining between requests); the default
  // implementation submits windows of up to kStreamWindow requests via Submit().
  // Returns OK when every request succeeded, else the first failure's status;
  // a failure does not stop the stream (return false from `next` to stop).
  [[nodiscard]] virtual absl::Status SubmitStream(
      absl::FunctionRef<bool(IoRequest&)> next,
      absl::FunctionRef<void(IoRequest&)> on_complete);
  static constexpr size_t kStreamWindow = 64;

  [[nodiscard]] virtual absl::Status Sync(FileHandle file, SyncKind kind) = 0;
  [[nodiscard]] virtual absl::Status Allocate(FileHandle file, AllocateMode mode,
                                              uint64_t offset, uint64_t length) = 0;
  [[nodiscard]] virtual absl::Status Truncate(FileHandle file, uint64_t size) = 0;
  [[nodiscard]] virtual absl::StatusOr<uint64_t> Size(FileHandle file) = 0;

  // The path a handle was opened with, and whether it is in O_DIRECT mode.
  virtual absl::StatusOr<std::string> PathOf(FileHandle file) const = 0;
  virtual bool IsDirect(FileHandle file) const = 0;

  // Registers a long-lived buffer (e.g. the zero or template buffer) so requests
  // may use fixed-buffer I/O. Returns its index. The buffer must outlive the
  // backend. Backends without the feature return an index and ignore it.
  [[nodiscard]] virtual absl::StatusOr<int> RegisterBuffer(void* data, size_t length) = 0;
  // Forgets registered buffer `index` (requests naming it are then refused), so
  // that its memory may be freed before the backend. Rings that still hold the
  // old registration drop it the next time they are used. Default: OK.
  [[nodiscard]] virtual absl::Status UnregisterBuffer(int index);

  virtual IoBackendCounters Counters() const = 0;

  // Convenience wrappers over Submit() for one request.
  [[nodiscard]] absl::Status ReadAt(FileHandle file, uint64_t offset, void* buffer,
                                    size_t length, size_t* transferred = nullptr);
  [[nodiscard]] absl::Status WriteAt(FileHandle file, uint64_t offset,
                                     const void* buffer, size_t length);
};

struct UringOptions {
  unsigned queue_depth = 32;  // requests in flight per Submit() call
  bool sqpoll = false;        // IORING_SETUP_SQPOLL (needs privileges)
};

// io_uring backend (liburing). Errors: Unavailable when the kernel refuses
// io_uring_setup (the message carries the errno text).
[[nodiscard]] absl::StatusOr<std::unique_ptr<IoBackend>> MakeUringBackend(
    const UringOptions& options = {});

// pread/pwrite backend: the comparison baseline and the fallback where io_uring
// is missing. Submit() executes requests one after another.
std::unique_ptr<IoBackend> MakePosixBackend();

// Which backend to use by name ("io_uring" or "posix").
enum class BackendKind : uint8_t { kUring, kPosix };
std::string_view BackendKindName(BackendKind kind);  // "io_uring", "posix"
// Parses "io_uring"/"uring" or "posix". InvalidArgument names the text otherwise.
[[nodiscard]] absl::StatusOr<BackendKind> ParseBackendKind(std::string_view name);
[[nodiscard]] absl::StatusOr<std::unique_ptr<IoBackend>> MakeBackend(
    BackendKind kind, const UringOptions& options = {});

// Rounds for O_DIRECT: helpers shared by every user of aligned I/O.
constexpr uint64_t AlignDown(uint64_t v, uint64_t a) { return v / a * a; }
constexpr uint64_t AlignUp(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }
constexpr bool IsAligned(uint64_t v, uint64_t a) { return v % a == 0; }

// A heap buffer aligned to kDirectAlignment, zero-initialised. Move-only.
// Buffers of 64 KiB and more reuse the memory of earlier ones (a process-wide
// cache of at most 128 MiB), so a large buffer made and destroyed over and
// over costs its zeroing, not fresh pages.
class AlignedBuffer {
 public:
  AlignedBuffer() = default;
  explicit AlignedBuffer(size_t size);
  AlignedBuffer(AlignedBuffer&& o) noexcept;
  AlignedBuffer& operator=(AlignedBuffer&& o) noexcept;
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
  ~AlignedBuffer();

  uint8_t* data() { return data_; }
  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  absl::Span<uint8_t> span() { return {data_, size_}; }
  absl::Span<const uint8_t> span() const { return {data_, size_}; }

 private:
  void Release();

  uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace cellsim::io

#endif  // CELLSIM_IO_IO_BACKEND_H_
