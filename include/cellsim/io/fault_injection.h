// FaultInjectionBackend: a decorator over any IoBackend that makes storage
// misbehave on purpose (RocksDB's FaultInjectionTestFS, SPDK's error bdev).
//
// It can fail the N-th operation or 1-in-N operations (seeded) filtered by op type
// and file path, add latency, mark bad-block ranges whose reads fail, and simulate a
// power loss: every write not covered by a completed Sync() of its file is undone,
// so the files then hold exactly what had been synced.
//
// Usage (a crash loop):
//   auto fault = std::make_shared<FaultInjectionBackend>(MakePosixBackend());
//   fault->CrashAfter({.ops = kOpWrite | kOpSync, .path_substring = "flash"}, k);
//   RunWorkload(fault);                    // ops after the k-th matching one fail
//   ASSERT_OK(fault->SimulatePowerLoss()); // undo unsynced writes, re-arm
//   Reopen(fault); Verify();
//
// Thread-safety: all methods may be called concurrently.
#ifndef CELLSIM_IO_FAULT_INJECTION_H_
#define CELLSIM_IO_FAULT_INJECTION_H_

#include <cstdint>
#include <memory>
#include <string>

#include "cellsim/io/io_backend.h"
#include "cellsim/io/io_backend_wrapper.h"

namespace cellsim::io {

// Bit set of operation kinds a fault rule applies to.
enum OpMask : uint32_t {
  kOpRead = 1u << 0,
  kOpWrite = 1u << 1,
  kOpSync = 1u << 2,
  kOpAllocate = 1u << 3,
  kOpTruncate = 1u << 4,
  kOpOpen = 1u << 5,
  kOpAll = 0xffffffffu,
};

// Which operations a rule matches: op kinds, and files whose path contains
// `path_substring` (empty matches every file).
struct OpFilter {
  uint32_t ops = kOpAll;
  std::string path_substring = "";
};

class FaultInjectionBackend : public IoBackendWrapper {
 public:
  // Takes ownership of the wrapped backend.
  explicit FaultInjectionBackend(std::unique_ptr<IoBackend> base);
  ~FaultInjectionBackend() override;

  // --- fault rules (each replaces the previous rule of its kind) ---

  // The n-th matching operation (1-based, counted from this call) fails with
  // `code` (default EIO); later ones succeed.
  void FailNth(const OpFilter& filter, uint64_t n, int error_number = 5 /*EIO*/);
  // Each matching operation fails with probability 1/n (seeded, reproducible).
  void FailOneIn(const OpFilter& filter, uint64_t n, uint64_t seed,
                 int error_number = 5 /*EIO*/);
  // Every matching operation fails (a dead disk) until ClearFaults().
  void FailAll(const OpFilter& filter, int error_number = 5 /*EIO*/);
  // After `n` more matching operations have completed, every later operation of
  // any kind on any file fails with EIO ("the power is gone"), until
  // SimulatePowerLoss() or ClearFaults(). n = 0 crashes at once.
  void CrashAfter(const OpFilter& filter, uint64_t n);
  // Adds `latency_ns` to every matching operation.
  void AddLatency(const OpFilter& filter, uint64_t latency_ns);
  // Reads overlapping [offset, offset+length) of files matching `path_substring`
  // fail with EIO (a media error); writes there succeed and heal the range.
  void AddBadBlocks(const std::string& path_substring, uint64_t offset, uint64_t length);
  // Removes every rule above.
  void ClearFaults();

  // Power loss: for every file, undoes all writes, truncates and allocations made
  // since the file's last completed Sync(), newest first, restoring the synced
  // bytes and size. Clears a CrashAfter() trip; other rules stay. Handles stay
  // valid (callers normally close and reopen everything anyway).
  [[nodiscard]] absl::Status SimulatePowerLoss();
  // A power loss where the disk had written some unsynced writes and not
  // others: each unsynced write is kept or undone at random (seeded by
  // `seed`, non-zero), in any order, so a later write may survive without
  // an earlier one (what crash-consistency of a journal must survive).
  [[nodiscard]] absl::Status SimulateReorderedPowerLoss(uint64_t seed);

  // Number of matching operations seen by CrashAfter's filter so far, and whether
  // the crash has tripped. Crash loops use this to learn how many cut points a
  // workload has.
  uint64_t CrashFilterMatches() const;
  bool Crashed() const;
  // Number of operations that failed because of an injected fault.
  uint64_t InjectedFailures() const;
  // Bytes of old data the power-loss undo log holds (non-zero data of ranges
  // overwritten since their file's last Sync; holes cost nothing).
  uint64_t UnsyncedUndoBytes() const;

  // IoBackend: what faults apply to (the rest forwards, IoBackendWrapper).
  std::string Name() const override;
  absl::StatusOr<FileHandle> Open(const std::string& path,
                                  const OpenOptions& options) override;
  absl::Status Submit(absl::Span<IoRequest> requests) override;
  // Streams go through Submit(), so they meet the faults too.
  absl::Status SubmitStream(absl::FunctionRef<bool(IoRequest&)> next,
                            absl::FunctionRef<void(IoRequest&)> on_complete) override {
    return IoBackend::SubmitStream(next, on_complete);
  }
  absl::Status Sync(FileHandle file, SyncKind kind) override;
  absl::Status Allocate(FileHandle file, AllocateMode mode, uint64_t offset,
                        uint64_t length) override;
  absl::Status Truncate(FileHandle file, uint64_t size) override;

 private:
  struct State;
  IoBackend* base() const { return target(); }
  std::unique_ptr<State> state_;
};

}  // namespace cellsim::io

#endif  // CELLSIM_IO_FAULT_INJECTION_H_
