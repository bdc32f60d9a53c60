// The pread/pwrite backend: requests run one after another on the calling
// thread. It is the baseline the io_uring backend is compared with and the
// fallback where io_uring is missing.
#include "cellsim/io/fd_backend.h"

namespace cellsim::io {
namespace {

class PosixBackend final : public internal::FdBackend {
 public:
  std::string Name() const override { return "posix"; }

  absl::Status Submit(absl::Span<IoRequest> requests) override {
    CountSubmit();
    return ExecuteBlocking(requests);
  }

};

}  // namespace

std::unique_ptr<IoBackend> MakePosixBackend() { return std::make_unique<PosixBackend>(); }

}  // namespace cellsim::io
