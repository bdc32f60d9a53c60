// The pread/pwrite backend: requests run one after another on the calling
// thread. It is the baseline the io_uring backend is compared with and the
// fallback where io_uring is missing.
#include <unistd.h>

#include <cerrno>
#include <memory>

#include "cellsim/io/fd_backend.h"

namespace cellsim::io {
namespace {

class PosixBackend final : public internal::FdBackend {
 public:
  std::string Name() const override { return "posix"; }

  absl::Status Submit(absl::Span<IoRequest> requests) override {
    CountSubmit();
    absl::Status first_error;
    for (IoRequest& r : requests) {
      Execute(r);
      if (!r.status.ok() && first_error.ok()) first_error = r.status;
    }
    return first_error;
  }

 private:
  void Execute(IoRequest& r) {
    r.transferred = 0;
    r.latency_ns = 0;
    std::shared_ptr<internal::OpenFile> file;
    r.status = Validate(r, &file);
    if (!r.status.ok()) return;
    const uint64_t start = internal::MonotonicNanos();
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
        r.status = internal::ErrnoStatus(errno, r.op == IoOp::kRead ? "pread" : "pwrite",
                                         file->path, r.offset, r.length);
        break;
      }
      if (n == 0) {
        if (r.op == IoOp::kWrite) {
          r.status = internal::ErrnoStatus(EIO, "pwrite (wrote 0 bytes)", file->path,
                                           r.offset, r.length);
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
    r.latency_ns = internal::MonotonicNanos() - start;
    Count(r);
  }
};

}  // namespace

std::unique_ptr<IoBackend> MakePosixBackend() { return std::make_unique<PosixBackend>(); }

}  // namespace cellsim::io
