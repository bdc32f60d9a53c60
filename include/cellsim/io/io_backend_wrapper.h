// IoBackendWrapper: an IoBackend that forwards every call to a target backend
// it owns, the base of decorators (like LevelDB's EnvWrapper and RocksDB's
// FileSystemWrapper). A decorator overrides only what it changes:
//
//   class SlowBackend : public IoBackendWrapper {
//    public:
//     using IoBackendWrapper::IoBackendWrapper;
//     absl::Status Sync(FileHandle f, SyncKind k) override {
//       absl::SleepFor(absl::Milliseconds(5));
//       return target()->Sync(f, k);
//     }
//   };
//
// Note on SubmitStream: the wrapper forwards it to the target's (the io_uring
// backend's keeps its queue full). A decorator that changes Submit() must also
// send streams through it, by overriding SubmitStream with
// `return IoBackend::SubmitStream(next, on_complete);` (windows of Submit()).
//
// Decorators in cellsim: FaultInjectionBackend (io/fault_injection.h) and the
// benchmarks' CountingBackend (bench/counting_backend.h).
//
// Thread-safety: as the target's (every IoBackend may be called concurrently).
#ifndef CELLSIM_IO_IO_BACKEND_WRAPPER_H_
#define CELLSIM_IO_IO_BACKEND_WRAPPER_H_

#include <memory>
#include <string>
#include <utility>

#include "cellsim/io/io_backend.h"

namespace cellsim::io {

class IoBackendWrapper : public IoBackend {
 public:
  // `target` must not be null.
  explicit IoBackendWrapper(std::unique_ptr<IoBackend> target) : target_(std::move(target)) {}

  IoBackend* target() const { return target_.get(); }

  std::string Name() const override { return target_->Name(); }
  absl::StatusOr<FileHandle> Open(const std::string& path, const OpenOptions& options) override {
    return target_->Open(path, options);
  }
  absl::Status Close(FileHandle file) override { return target_->Close(file); }
  absl::Status Submit(absl::Span<IoRequest> requests) override {
    return target_->Submit(requests);
  }
  absl::Status SubmitStream(absl::FunctionRef<bool(IoRequest&)> next,
                            absl::FunctionRef<void(IoRequest&)> on_complete) override {
    return target_->SubmitStream(next, on_complete);
  }
  absl::Status Sync(FileHandle file, SyncKind kind) override { return target_->Sync(file, kind); }
  absl::Status Allocate(FileHandle file, AllocateMode mode, uint64_t offset,
                        uint64_t length) override {
    return target_->Allocate(file, mode, offset, length);
  }
  absl::Status Truncate(FileHandle file, uint64_t size) override {
    return target_->Truncate(file, size);
  }
  absl::StatusOr<uint64_t> Size(FileHandle file) override { return target_->Size(file); }
  absl::StatusOr<std::string> PathOf(FileHandle file) const override {
    return target_->PathOf(file);
  }
  bool IsDirect(FileHandle file) const override { return target_->IsDirect(file); }
  absl::StatusOr<int> RegisterBuffer(void* data, size_t length) override {
    return target_->RegisterBuffer(data, length);
  }
  absl::Status UnregisterBuffer(int index) override { return target_->UnregisterBuffer(index); }
  IoBackendCounters Counters() const override { return target_->Counters(); }

 private:
  std::unique_ptr<IoBackend> target_;
};

}  // namespace cellsim::io

#endif  // CELLSIM_IO_IO_BACKEND_WRAPPER_H_
