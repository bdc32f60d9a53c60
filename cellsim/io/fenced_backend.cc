#include "cellsim/io/fenced_backend.h"

#include <cerrno>

#include "cellsim/io/fd_backend.h"

namespace cellsim::io {

namespace {
constexpr std::string_view kWhy = " (fenced: the process was cut off from its files, as kill -9)";
}  // namespace

absl::Status FencedBackend::Refused(std::string_view op, FileHandle file) const {
  absl::StatusOr<std::string> path = target()->PathOf(file);
  return internal::ErrnoStatus(EIO, std::string(op) + std::string(kWhy),
                               path.ok() ? *path : std::string("?"));
}

absl::StatusOr<FileHandle> FencedBackend::Open(const std::string& path,
                                               const OpenOptions& options) {
  if (fenced()) return internal::ErrnoStatus(EIO, std::string("open") + std::string(kWhy), path);
  return target()->Open(path, options);
}

absl::Status FencedBackend::Submit(absl::Span<IoRequest> requests) {
  if (!fenced()) return target()->Submit(requests);
  absl::Status first;
  for (IoRequest& r : requests) {
    r.status = Refused(r.op == IoOp::kRead ? "read" : "write", r.file);
    r.transferred = 0;
    r.latency_ns = 0;
    if (first.ok()) first = r.status;
  }
  return first;
}

absl::Status FencedBackend::SubmitStream(absl::FunctionRef<bool(IoRequest&)> next,
                                         absl::FunctionRef<void(IoRequest&)> on_complete) {
  if (fenced()) return Refused("stream", kInvalidFile);
  // Requests already in flight complete; no new one starts past the fence.
  bool cut = false;
  absl::Status s = target()->SubmitStream(
      [&](IoRequest& r) {
        if (!cut && next(r) && !fenced()) return true;
        cut = cut || fenced();  // a request made past the fence is not sent
        return false;
      },
      on_complete);
  if (s.ok() && cut) return Refused("stream", kInvalidFile);
  return s;
}

absl::Status FencedBackend::Sync(FileHandle file, SyncKind kind) {
  if (fenced()) return Refused("sync", file);
  return target()->Sync(file, kind);
}

absl::Status FencedBackend::Allocate(FileHandle file, AllocateMode mode, uint64_t offset,
                                     uint64_t length) {
  if (fenced()) return Refused("allocate", file);
  return target()->Allocate(file, mode, offset, length);
}

absl::Status FencedBackend::Truncate(FileHandle file, uint64_t size) {
  if (fenced()) return Refused("truncate", file);
  return target()->Truncate(file, size);
}

}  // namespace cellsim::io
