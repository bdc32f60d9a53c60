// IoBackend's non-virtual helpers, the default SubmitStream(), AlignedBuffer
// and the backend factory.
#include "cellsim/io/io_backend.h"

#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>
#include <vector>

#include "cellsim/io/buffer_cache.h"
#include "fmt/format.h"

namespace cellsim::io {

std::string_view AllocateModeName(AllocateMode mode) {
  switch (mode) {
    case AllocateMode::kAllocate: return "allocate";
    case AllocateMode::kKeepSize: return "keep-size";
    case AllocateMode::kZeroRange: return "zero-range";
    case AllocateMode::kPunchHole: return "punch-hole";
  }
  return "unknown";
}

std::string_view BackendKindName(BackendKind kind) {
  return kind == BackendKind::kUring ? "io_uring" : "posix";
}

absl::StatusOr<BackendKind> ParseBackendKind(std::string_view name) {
  if (name == "io_uring" || name == "uring") return BackendKind::kUring;
  if (name == "posix") return BackendKind::kPosix;
  return absl::InvalidArgumentError(
      fmt::format("unknown I/O backend '{}' (expected io_uring or posix)", name));
}

absl::Status IoBackend::ReadAt(FileHandle file, uint64_t offset, void* buffer,
                               size_t length, size_t* transferred) {
  IoRequest r;
  r.op = IoOp::kRead;
  r.file = file;
  r.offset = offset;
  r.buffer = buffer;
  r.length = length;
  absl::Status s = Submit(absl::MakeSpan(&r, 1));
  if (transferred != nullptr) *transferred = r.transferred;
  return s;
}

absl::Status IoBackend::WriteAt(FileHandle file, uint64_t offset, const void* buffer,
                                size_t length) {
  IoRequest r;
  r.op = IoOp::kWrite;
  r.file = file;
  r.offset = offset;
  r.buffer = const_cast<void*>(buffer);  // a write only reads its buffer
  r.length = length;
  return Submit(absl::MakeSpan(&r, 1));
}

absl::Status IoBackend::UnregisterBuffer(int /*index*/) { return absl::OkStatus(); }

absl::Status IoBackend::SubmitStream(absl::FunctionRef<bool(IoRequest&)> next,
                                     absl::FunctionRef<void(IoRequest&)> on_complete) {
  // Windows of requests through Submit(): correct for any backend, but the
  // queue drains at the end of each window (io_uring overrides this).
  std::vector<IoRequest> window(kStreamWindow);
  absl::Status first_error;
  bool more = true;
  while (more) {
    size_t n = 0;
    while (n < window.size()) {
      window[n] = IoRequest{};
      if (!next(window[n])) {
        more = false;
        break;
      }
      ++n;
    }
    if (n == 0) break;
    absl::Status s = Submit(absl::MakeSpan(window.data(), n));
    if (!s.ok() && first_error.ok()) first_error = s;
    for (size_t i = 0; i < n; ++i) on_complete(window[i]);
  }
  return first_error;
}

absl::StatusOr<std::unique_ptr<IoBackend>> MakeBackend(BackendKind kind,
                                                       const UringOptions& options) {
  if (kind == BackendKind::kPosix) return MakePosixBackend();
  return MakeUringBackend(options);
}

// Buffers of at least one huge page are 2 MiB-aligned, which the buffer
// cache advises for transparent huge pages: first touch of a 64 MiB
// zero-fill batch buffer then takes 32 page faults instead of 16384. On
// virtual machines, where a fault costs tens of microseconds, 4 KiB faults
// were most of zero-fill's CPU time. (Where THP is off the advice is ignored
// and nothing else changes.)
using internal::kHugePage;

namespace {

// The block under a buffer of `size` bytes: its length and alignment.
struct Footprint {
  size_t bytes;
  size_t align;
};
Footprint FootprintOf(size_t size) {
  const size_t align = size >= kHugePage ? kHugePage : kDirectAlignment;
  return {AlignUp(size, align), align};
}

}  // namespace

// The block comes from the buffer cache (cellsim/io/buffer_cache.h): a large
// buffer reuses the memory of one destroyed before it, already faulted in.
AlignedBuffer::AlignedBuffer(size_t size) : size_(size) {
  if (size == 0) return;
  const Footprint f = FootprintOf(size);
  data_ = static_cast<uint8_t*>(internal::TakeBlock(f.bytes, f.align));
  if (data_ == nullptr) throw std::bad_alloc();
  std::memset(data_, 0, f.bytes);
}

AlignedBuffer::AlignedBuffer(AlignedBuffer&& o) noexcept
    : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)) {}

AlignedBuffer& AlignedBuffer::operator=(AlignedBuffer&& o) noexcept {
  if (this != &o) {
    Release();
    data_ = std::exchange(o.data_, nullptr);
    size_ = std::exchange(o.size_, 0);
  }
  return *this;
}

AlignedBuffer::~AlignedBuffer() { Release(); }

void AlignedBuffer::Release() {
  if (data_ == nullptr) return;
  const Footprint f = FootprintOf(size_);
  internal::GiveBlock(std::exchange(data_, nullptr), f.bytes, f.align);
  size_ = 0;
}

}  // namespace cellsim::io
