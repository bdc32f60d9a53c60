// FakeCell: an in-memory CellService for fast ASM tests. Grid disks are sparse
// maps of 4 KiB pages (unwritten bytes read as zeros). Faults can be injected
// per grid disk (every write fails, every read fails), and ranges can be
// "lost" the way a cell loses dirty lines with its flash: reads overlapping
// them fail with DataLoss until a write covers them.
//
// Usage:
//   FakeCell cel01("cel01", {{"DATA", 64 * kMiB}, {"RECO", 16 * kMiB}}, /*cell_disks=*/2);
//   cel01.FailWrites(0, true);   // DATA_CD_00_cel01 is dead for writes
//
// Thread-safety: every method may be called concurrently (one mutex).
#ifndef CELLSIM_TESTS_ASM_FAKE_CELL_H_
#define CELLSIM_TESTS_ASM_FAKE_CELL_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "cellsim/base/mutex.h"
#include "cellsim/cell/cell_service.h"

namespace cellsim::asmgr::testing {

class FakeCell : public cell::CellService {
 public:
  // Grid disk index = cell_disk * prefixes.size() + prefix index; names
  // "<PREFIX>_CD_<nn>_<cell>".
  FakeCell(std::string name, std::vector<std::pair<std::string, uint64_t>> prefixes,
           uint32_t cell_disks);

  void FailWrites(uint32_t grid_disk, bool fail);
  void FailReads(uint32_t grid_disk, bool fail);
  // Format-range requests are refused as a request error (FailedPrecondition,
  // like a cell whose flash metadata is full): the disk itself is fine.
  void RefuseFormats(bool refuse);
  void LoseRange(uint32_t grid_disk, uint64_t offset, uint64_t length);
  // Flips one byte of a grid disk behind ASM's back (silent corruption).
  void Corrupt(uint32_t grid_disk, uint64_t offset);
  // Calls `hook` at the start of every Read() call (under the cell's mutex:
  // it must not call the cell), e.g. to cancel an operation mid-way.
  void OnRead(std::function<void()> hook);
  // Reads raw bytes, bypassing faults and counters.
  std::vector<uint8_t> Peek(uint32_t grid_disk, uint64_t offset, uint64_t length) const;

  uint64_t write_requests() const;
  uint64_t write_calls() const;  // Write() calls (request batches)
  uint64_t read_requests() const;
  uint64_t format_requests() const;
  uint64_t format_calls() const;  // FormatRange() calls (request batches)
  uint64_t bytes_written() const;

  // CellService
  std::string name() const override { return name_; }
  absl::StatusOr<cell::CellDescription> Describe() const override;
  absl::Status Read(absl::Span<cell::ReadRequest> requests, cell::CellIoStats* stats) override;
  absl::Status Write(absl::Span<cell::WriteRequest> requests, cell::CellIoStats* stats) override;
  absl::Status FormatRange(absl::Span<cell::FormatRangeRequest> requests,
                           cell::CellIoStats* stats) override;
  absl::StatusOr<cell::FlushProgress> Flush(
      const std::function<void(const cell::FlushProgress&)>& progress) override;
  absl::StatusOr<std::vector<cell::Metric>> Metrics() const override;
  absl::Status SetFlashCacheMode(cell::FlashCacheMode mode) override;
  // Accepted and ignored (the fake has no cache).
  absl::Status SetCachingPolicy(const std::string&, cell::CachingPolicy) override {
    return absl::OkStatus();
  }
  absl::StatusOr<std::vector<cell::LostRange>> LostRanges() const override;
  // Drops the pages of the ranges (they read as zeros) and counts them.
  absl::Status Discard(absl::Span<cell::DiscardRequest> requests,
                       cell::CellIoStats* stats) override;
  uint64_t bytes_discarded() const;

 private:
  static constexpr uint64_t kPage = 4096;
  struct Disk {
    cell::GridDiskInfo info;
    std::unordered_map<uint64_t, std::vector<uint8_t>> pages;
    bool fail_writes = false;
    bool fail_reads = false;
    std::map<uint64_t, uint64_t> lost;  // offset -> length
  };
  absl::Status Check(uint32_t gd, uint64_t offset, uint64_t length) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Store(Disk& d, uint64_t offset, const uint8_t* data, uint64_t length)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Load(const Disk& d, uint64_t offset, uint8_t* out, uint64_t length) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void ClearLost(Disk& d, uint64_t offset, uint64_t length) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::string name_;
  mutable Mutex mu_;
  std::vector<Disk> disks_ ABSL_GUARDED_BY(mu_);
  cell::FlashCacheMode mode_ ABSL_GUARDED_BY(mu_) = cell::FlashCacheMode::kWriteBack;
  bool refuse_formats_ ABSL_GUARDED_BY(mu_) = false;
  std::function<void()> on_read_ ABSL_GUARDED_BY(mu_);
  uint64_t write_calls_ ABSL_GUARDED_BY(mu_) = 0, format_calls_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t write_requests_ ABSL_GUARDED_BY(mu_) = 0, read_requests_ ABSL_GUARDED_BY(mu_) = 0,
           format_requests_ ABSL_GUARDED_BY(mu_) = 0, bytes_written_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t bytes_discarded_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace cellsim::asmgr::testing

#endif  // CELLSIM_TESTS_ASM_FAKE_CELL_H_
