// FencedBackend: a decorator that can cut its process off from the files, as
// kill -9 does: after Fence(), every operation fails and nothing more reaches
// the files, so what they hold is what a killed process would have left
// (writes completed before the fence stay, in the page cache or on the
// device). SHUTDOWN ABORT in one process (lab::RackEnv::Abort) fences the
// rack's backend, then drops the rack and database: their closing writes
// fail unseen, and the next open runs instance recovery.
//
//   auto fenced = std::make_unique<FencedBackend>(MakePosixBackend());
//   FencedBackend* fence = fenced.get();
//   ... open a rack on std::move(fenced), work ...
//   fence->Fence();  // from here the files do not change
//
// A request already handed to the target when Fence() is called completes
// (kill -9 does not stop I/O the kernel has), a stream stops taking new
// requests. Thread-safety: every method may be called concurrently.
#ifndef CELLSIM_IO_FENCED_BACKEND_H_
#define CELLSIM_IO_FENCED_BACKEND_H_

#include <atomic>
#include <memory>
#include <string>

#include "cellsim/io/io_backend_wrapper.h"

namespace cellsim::io {

class FencedBackend : public IoBackendWrapper {
 public:
  using IoBackendWrapper::IoBackendWrapper;

  // From now on every operation (open, read, write, sync, allocate,
  // truncate) fails with EIO naming the fence. Closing a handle still works.
  void Fence() { fenced_.store(true); }
  bool fenced() const { return fenced_.load(); }

  absl::StatusOr<FileHandle> Open(const std::string& path, const OpenOptions& options) override;
  absl::Status Submit(absl::Span<IoRequest> requests) override;
  absl::Status SubmitStream(absl::FunctionRef<bool(IoRequest&)> next,
                            absl::FunctionRef<void(IoRequest&)> on_complete) override;
  absl::Status Sync(FileHandle file, SyncKind kind) override;
  absl::Status Allocate(FileHandle file, AllocateMode mode, uint64_t offset,
                        uint64_t length) override;
  absl::Status Truncate(FileHandle file, uint64_t size) override;

 private:
  // EIO for `op` on `file` (its path when the target knows it).
  absl::Status Refused(std::string_view op, FileHandle file) const;

  std::atomic<bool> fenced_{false};
};

}  // namespace cellsim::io

#endif  // CELLSIM_IO_FENCED_BACKEND_H_
