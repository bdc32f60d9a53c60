// The zero-fill engine: writes zeros over [offset, offset+length) of a file as
// fast as the backend allows, the way Oracle's database writes a new data file
// or redo log when the cell cannot format it (the "slow" creation path), and the
// way `cellsim io zero` compares with fio.
//
// One zero buffer of block_size bytes is registered with the backend (fixed
// buffers on io_uring) and every request points at it; requests are streamed
// through IoBackend::SubmitStream, so memory stays O(queue depth) whatever the
// size, and the io_uring queue never drains until the end. Latencies go into a
// fixed-size log-linear histogram (LatencyHistogram), also O(1) in memory.
//
// Usage:
//   auto io = *MakeUringBackend({.queue_depth = 32});
//   FileHandle f = *io->Open(path, {.create = true, .direct = true});
//   auto filler = *ZeroFiller::Create(io.get(), {.block_size = 1 << 20});
//   ZeroFillResult r = *filler->Fill(f, 0, 2ull << 30);
//   printf("%.0f MiB/s p99 %.0f us\n", r.MiBPerSecond(), r.p99_ns / 1e3);
//
// The queue depth is the backend's (UringOptions::queue_depth): the engine
// keeps the backend's queue full. Thread-safety: one ZeroFiller per thread
// (Fill() itself may run concurrently with other users of the backend).
#ifndef CELLSIM_IO_ZERO_FILL_H_
#define CELLSIM_IO_ZERO_FILL_H_

#include <array>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "cellsim/base/clock.h"
#include "cellsim/io/io_backend.h"

namespace cellsim::io {

// Latency histogram with ~1.6% relative precision (64 linear sub-buckets per
// power of two) over 1 ns .. 2^40 ns; constant memory, exact count.
class LatencyHistogram {
 public:
  void Record(uint64_t ns);
  // The value below which a fraction `q` (0..1) of the samples fall (the
  // bucket's upper bound); 0 when empty.
  uint64_t Percentile(double q) const;
  uint64_t count() const { return count_; }
  uint64_t max() const { return max_; }
  double mean() const { return count_ ? static_cast<double>(sum_) / count_ : 0.0; }

 private:
  static constexpr int kSubBits = 6;
  static constexpr int kBuckets = (41 - kSubBits + 1) << kSubBits;
  static int BucketOf(uint64_t ns);
  static uint64_t UpperBound(int bucket);
  std::array<uint64_t, kBuckets> counts_{};
  uint64_t count_ = 0, max_ = 0, sum_ = 0;
};

struct ZeroFillerOptions {
  uint32_t block_size = 1 << 20;  // bytes per request (a multiple of 4096 for O_DIRECT)
  bool sync_at_end = false;       // fdatasync when done (counted in elapsed)
  // Before writing past the end of the file, extend it to offset+length with
  // fallocate (or ftruncate where fallocate is refused), as fio does. Extending
  // O_DIRECT writes are serialised by ext4 and xfs (they update the size), so
  // without this a queue depth of 32 behaves like 1. Not counted in elapsed_s.
  bool preallocate = true;
  Clock* clock = nullptr;         // nullptr: SystemClock()
};

struct ZeroFillResult {
  uint64_t bytes = 0;
  uint64_t requests = 0;
  double elapsed_s = 0;
  uint64_t p50_ns = 0, p99_ns = 0, p999_ns = 0, max_ns = 0;
  double mean_ns = 0;
  // How the file was extended first: "fallocate", "ftruncate" or "none"
  // (already large enough, or preallocate off), and how long it took.
  std::string prepared = "none";
  double prepare_s = 0;
  double MiBPerSecond() const {
    return elapsed_s > 0 ? static_cast<double>(bytes) / (1024.0 * 1024.0) / elapsed_s : 0;
  }
};

class ZeroFiller {
 public:
  // Allocates and registers the zero buffer. Errors: InvalidArgument for a
  // zero block size; the backend's RegisterBuffer() error.
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<ZeroFiller>> Create(
      IoBackend* io, const ZeroFillerOptions& options);
  ~ZeroFiller();  // unregisters the buffer
  ZeroFiller(const ZeroFiller&) = delete;
  ZeroFiller& operator=(const ZeroFiller&) = delete;

  // Zero-fills [offset, offset+length) of `file` (extending it if needed).
  // On an O_DIRECT file, offset and length must be multiples of 4096
  // (InvalidArgument otherwise, before any write). The first failed request's
  // status is returned (naming file and offset); the others are still issued.
  [[nodiscard]] absl::StatusOr<ZeroFillResult> Fill(FileHandle file, uint64_t offset,
                                                    uint64_t length);

 private:
  ZeroFiller(IoBackend* io, const ZeroFillerOptions& options, AlignedBuffer buffer, int index);
  IoBackend* io_;
  ZeroFillerOptions options_;
  AlignedBuffer buffer_;
  int index_;
};

// One-shot convenience over ZeroFiller.
[[nodiscard]] absl::StatusOr<ZeroFillResult> ZeroFill(IoBackend* io, FileHandle file,
                                                      uint64_t offset, uint64_t length,
                                                      const ZeroFillerOptions& options = {});

}  // namespace cellsim::io

#endif  // CELLSIM_IO_ZERO_FILL_H_
