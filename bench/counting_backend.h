// CountingBackend: an IoBackend decorator that counts, per kind of rack file,
// the bytes actually written and read and the syncs issued: what a rack puts
// on its "devices" whatever the statistics say. The benchmarks use it to
// report physical bytes (grid disks, every mirror copy) and metadata bytes
// persisted (the cells' flash metadata and the ASM metadata files) of one
// statement.
//
// Files are classified by path, as a rack lays them out (asmgr::Rack):
//   DIR/asm/...             ASM metadata (journal, checkpoints)   kAsmMeta
//   DIR/celNN/flash.img     a cell's flash device                 kFlash
//   DIR/celNN/<grid>.img    a grid disk                           kGridDisk
//   anything else           (rack.meta, peers' files)             kOther
// A flash device holds metadata (superblocks, checkpoints, journal) first and
// the cache slots last (docs/cell.md "Files of a cell"); SetFlashDataStart()
// tells where the slots begin so flash writes split into metadata and cache
// data.
//
// Usage:
//   auto counting = std::make_unique<CountingBackend>(*io::MakeUringBackend());
//   auto rack = *asmgr::Rack::Create(counting.get(), SystemClock(), dir, cfg);
//   IoTally before = counting->Tally();
//   ... statement ...
//   IoTally d = counting->Tally() - before;  // d.Of(FileClass::kGridDisk).write_bytes
//
// Thread-safety: like every IoBackend, all methods may be called concurrently.
#ifndef CELLSIM_BENCH_COUNTING_BACKEND_H_
#define CELLSIM_BENCH_COUNTING_BACKEND_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>

#include "cellsim/base/mutex.h"
#include "cellsim/io/io_backend.h"
#include "cellsim/io/io_backend_wrapper.h"

namespace cellsim::bench {

enum class FileClass : uint8_t { kGridDisk, kFlash, kAsmMeta, kOther, kCount };
inline constexpr size_t kFileClassCount = static_cast<size_t>(FileClass::kCount);

FileClass ClassifyPath(const std::string& path);

struct ClassCounts {
  uint64_t writes = 0, write_bytes = 0, reads = 0, read_bytes = 0, syncs = 0;
  // The sum of the writes' latencies (submission to completion, IoRequest::
  // latency_ns). Over an interval of T ns, write_busy_ns / T is the average
  // number of writes in flight (Little's law): what a peer such as fio must
  // keep in flight (its iodepth) for a like-for-like comparison.
  uint64_t write_busy_ns = 0;
};

struct IoTally {
  std::array<ClassCounts, kFileClassCount> by_class{};
  // Flash writes split at the cache-slot area: metadata below it, cache data
  // (slots) at or past it. Sum = by_class[kFlash].write_bytes.
  uint64_t flash_meta_write_bytes = 0;
  uint64_t flash_data_write_bytes = 0;

  const ClassCounts& Of(FileClass c) const { return by_class[static_cast<size_t>(c)]; }
  IoTally operator-(const IoTally& o) const;
  IoTally& operator+=(const IoTally& o);
};

class CountingBackend final : public io::IoBackendWrapper {
 public:
  explicit CountingBackend(std::unique_ptr<io::IoBackend> inner);

  // Writes to the flash device at `path` at or past `data_start` are cache
  // data, below it metadata. Until set, every flash write counts as metadata.
  void SetFlashDataStart(const std::string& path, uint64_t data_start);
  IoTally Tally() const;
  io::IoBackend* inner() const { return target(); }

  // What is counted; the rest forwards (IoBackendWrapper).
  absl::StatusOr<io::FileHandle> Open(const std::string& path,
                                      const io::OpenOptions& options) override;
  absl::Status Close(io::FileHandle file) override;
  absl::Status Submit(absl::Span<io::IoRequest> requests) override;
  absl::Status SubmitStream(absl::FunctionRef<bool(io::IoRequest&)> next,
                            absl::FunctionRef<void(io::IoRequest&)> on_complete) override;
  absl::Status Sync(io::FileHandle file, io::SyncKind kind) override;

 private:
  struct File {
    FileClass cls = FileClass::kOther;
    std::string path;
    std::atomic<uint64_t> data_start{UINT64_MAX};
  };
  struct AtomicCounts {
    std::atomic<uint64_t> writes{0}, write_bytes{0}, reads{0}, read_bytes{0}, syncs{0};
    std::atomic<uint64_t> write_busy_ns{0};
  };

  std::shared_ptr<File> Find(io::FileHandle file) const;
  void Count(const io::IoRequest& r, const File* f);

  mutable SharedMutex mu_;
  std::unordered_map<io::FileHandle, std::shared_ptr<File>> files_ ABSL_GUARDED_BY(mu_);
  // By path, for later opens too.
  std::map<std::string, uint64_t> flash_starts_ ABSL_GUARDED_BY(mu_);
  std::array<AtomicCounts, kFileClassCount> counts_{};
  std::atomic<uint64_t> flash_meta_{0}, flash_data_{0};
};

}  // namespace cellsim::bench

#endif  // CELLSIM_BENCH_COUNTING_BACKEND_H_
