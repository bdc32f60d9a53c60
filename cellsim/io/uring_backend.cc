// The io_uring backend.
//
// Each Submit()/SubmitStream() borrows a ring from a pool (so two threads can
// submit at once without sharing a submission queue) and runs one loop: fill
// every free slot up to the queue depth, submit them with one syscall that also
// waits for at least one completion, reap every completion available, refill.
// The queue therefore never drains while work remains, which is what fio's
// io_uring engine does too. Per-ring slot arrays are allocated once, so the loop
// allocates nothing per request.
//
// Registered buffers live in the backend's table (FdBackend); a ring compares
// the table's generation with its own when it is borrowed and re-registers the
// table if it changed, so rings created later (or busy at registration time)
// also get every buffer. Sync, fallocate and truncate are plain syscalls
// (FdBackend): they are rare, and a syscall gives the same guarantees.
#include <liburing.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <vector>

#include "cellsim/base/mutex.h"
#include "cellsim/io/fd_backend.h"
#include "fmt/format.h"

namespace cellsim::io {
namespace {

using internal::OpenFile;

// A request may be longer than one SQE can carry (32-bit length); longer ones
// continue through the short-transfer path.
constexpr size_t kMaxSqeBytes = size_t{1} << 30;

struct Slot {
  IoRequest* request = nullptr;
  std::shared_ptr<OpenFile> file;
  uint64_t start_ns = 0;
};

struct Ring {
  io_uring ring{};
  unsigned depth = 0;
  uint64_t buffers_generation = 0;
  size_t registered = 0;  // entries of the buffer table registered on this ring
  std::vector<Slot> slots;
  std::vector<uint32_t> free_slots;
  std::vector<uint32_t> resubmit;
  std::vector<IoRequest> stream_storage;  // SubmitStream's request objects
  std::vector<uint32_t> stream_free;
};

class UringBackend final : public internal::FdBackend {
 public:
  explicit UringBackend(const UringOptions& options) : options_(options) {}
  ~UringBackend() override {
    for (auto& r : rings_) io_uring_queue_exit(&r->ring);
  }

  std::string Name() const override { return "io_uring"; }

  // Creates the first ring so that a kernel without io_uring fails here.
  absl::Status Init() {
    auto ring = Acquire();
    if (!ring.ok()) return ring.status();
    Release(*ring);
    return absl::OkStatus();
  }

  absl::Status Submit(absl::Span<IoRequest> requests) override {
    CountSubmit();
    if (RunsInline(requests)) return ExecuteBlocking(requests);
    auto ring = Acquire();
    if (!ring.ok()) {
      for (IoRequest& r : requests) r.status = ring.status();
      return ring.status();
    }
    size_t i = 0;
    Run(**ring, [&]() -> IoRequest* { return i < requests.size() ? &requests[i++] : nullptr; },
        [](IoRequest*) {});
    Release(*ring);
    for (const IoRequest& r : requests) {
      if (!r.status.ok()) return r.status;
    }
    return absl::OkStatus();
  }

  absl::Status SubmitStream(absl::FunctionRef<bool(IoRequest&)> next,
                            absl::FunctionRef<void(IoRequest&)> on_complete) override {
    CountSubmit();
    auto acquired = Acquire();
    if (!acquired.ok()) return acquired.status();
    Ring& ring = **acquired;
    absl::Status first_error;
    ring.stream_free.clear();
    for (uint32_t k = 0; k < ring.depth; ++k) ring.stream_free.push_back(ring.depth - 1 - k);
    Run(
        ring,
        [&]() -> IoRequest* {
          if (ring.stream_free.empty()) return nullptr;  // cannot happen: one per slot
          const uint32_t k = ring.stream_free.back();
          IoRequest& r = ring.stream_storage[k];
          r = IoRequest{};
          if (!next(r)) return nullptr;
          ring.stream_free.pop_back();
          return &r;
        },
        [&](IoRequest* r) {
          if (!r->status.ok() && first_error.ok()) first_error = r->status;
          on_complete(*r);
          ring.stream_free.push_back(static_cast<uint32_t>(r - ring.stream_storage.data()));
        });
    Release(&ring);
    return first_error;
  }

  absl::StatusOr<int> RegisterBuffer(void* data, size_t length) override {
    auto index = FdBackend::RegisterBuffer(data, length);
    if (!index.ok()) return index;
    // Register now on one ring so that a refusal (e.g. RLIMIT_MEMLOCK) is
    // reported to the caller rather than to a later Submit().
    auto ring = Acquire();
    if (!ring.ok()) {
      DisableBuffer(*index);
      return absl::Status(ring.status().code(),
                          fmt::format("RegisterBuffer({} bytes): {}", length,
                                      std::string(ring.status().message())));
    }
    Release(*ring);
    return index;
  }

 private:
  // A small batch of writes to files opened without O_DIRECT runs on the
  // calling thread (pwrite). io_uring cannot issue a buffered write without
  // blocking on a filesystem that lacks async buffered writes (ext4 here:
  // perf shows them copied into the page cache by `iou-wrk` threads), so it
  // hands each one to an io-wq worker: two thread switches around the same
  // copy, 20-200 us on a busy machine, for a write that takes a few us
  // inline. Larger batches keep the ring, whose workers run them in parallel.
  bool RunsInline(absl::Span<const IoRequest> requests) const {
    uint64_t bytes = 0;
    FileHandle checked = kInvalidFile;  // a batch is mostly one file: one lookup
    for (const IoRequest& r : requests) {
      if (r.op != IoOp::kWrite) return false;
      if (r.file != checked) {
        if (IsDirect(r.file)) return false;
        checked = r.file;
      }
      bytes += r.length;
      if (bytes > kInlineWriteBytes) return false;
    }
    return true;
  }
  static constexpr uint64_t kInlineWriteBytes = 1 << 20;

  absl::StatusOr<Ring*> Acquire() ABSL_LOCKS_EXCLUDED(pool_mu_) {
    Ring* ring = nullptr;
    {
      MutexLock lock(&pool_mu_);
      if (!idle_.empty()) {
        ring = idle_.back();
        idle_.pop_back();
      }
    }
    if (ring == nullptr) {
      auto created = CreateRing();
      if (!created.ok()) return created.status();
      ring = *created;
    }
    if (absl::Status s = SyncBuffers(*ring); !s.ok()) {
      Release(ring);
      return s;
    }
    return ring;
  }

  void Release(Ring* ring) ABSL_LOCKS_EXCLUDED(pool_mu_) {
    MutexLock lock(&pool_mu_);
    idle_.push_back(ring);
  }

  absl::StatusOr<Ring*> CreateRing() ABSL_LOCKS_EXCLUDED(pool_mu_) {
    const unsigned depth = options_.queue_depth;
    if (depth == 0 || depth > 32768) {
      return absl::InvalidArgumentError(
          fmt::format("io_uring: queue depth {} is outside 1..32768", depth));
    }
    auto ring = std::make_unique<Ring>();
    io_uring_params params{};
    params.flags = IORING_SETUP_COOP_TASKRUN;  // no IPI to interrupt us for task work
    if (options_.sqpoll) {
      params.flags |= IORING_SETUP_SQPOLL;
      params.sq_thread_idle = 1000;
    }
    int rc = io_uring_queue_init_params(depth, &ring->ring, &params);
    if (rc == -EINVAL) {  // older kernel: no COOP_TASKRUN
      params = io_uring_params{};
      if (options_.sqpoll) {
        params.flags = IORING_SETUP_SQPOLL;
        params.sq_thread_idle = 1000;
      }
      rc = io_uring_queue_init_params(depth, &ring->ring, &params);
    }
    if (rc < 0) {
      return absl::UnavailableError(
          fmt::format("io_uring_queue_init(depth {}{}): {}; use the posix backend", depth,
                      options_.sqpoll ? ", SQPOLL" : "", std::strerror(-rc)));
    }
    ring->depth = depth;
    ring->slots.resize(depth);
    ring->stream_storage.resize(depth);
    for (uint32_t i = 0; i < depth; ++i) ring->free_slots.push_back(depth - 1 - i);
    ring->resubmit.reserve(depth);
    ring->stream_free.reserve(depth);
    ring->buffers_generation = 0;  // the table's generation starts at 0, empty
    Ring* raw = ring.get();
    MutexLock lock(&pool_mu_);
    rings_.push_back(std::move(ring));
    return raw;
  }

  absl::Status SyncBuffers(Ring& ring) {
    uint64_t generation = 0;
    std::vector<iovec> table = RegisteredBuffers(&generation);
    if (generation == ring.buffers_generation) return absl::OkStatus();
    if (ring.registered > 0) {
      io_uring_unregister_buffers(&ring.ring);
      ring.registered = 0;
    }
    if (!table.empty()) {
      const int rc = io_uring_register_buffers(&ring.ring, table.data(),
                                               static_cast<unsigned>(table.size()));
      if (rc < 0) {
        return internal::ErrnoStatus(
            -rc, fmt::format("io_uring_register_buffers ({} buffers)", table.size()));
      }
      ring.registered = table.size();
    }
    ring.buffers_generation = generation;
    return absl::OkStatus();
  }

  void DisableBuffer(int index) {
    // Keep indices stable: the entry becomes an empty (sparse) slot.
    MarkBufferUnusable(index);
  }

  void Prep(Ring& ring, uint32_t slot_index) {
    Slot& slot = ring.slots[slot_index];
    IoRequest& r = *slot.request;
    io_uring_sqe* sqe = io_uring_get_sqe(&ring.ring);  // free: in flight <= depth
    auto* p = static_cast<uint8_t*>(r.buffer) + r.transferred;
    const auto len = static_cast<unsigned>(std::min(r.length - r.transferred, kMaxSqeBytes));
    const uint64_t off = r.offset + r.transferred;
    const int fd = slot.file->fd;
    const bool fixed = r.registered_buffer >= 0 &&
                       static_cast<size_t>(r.registered_buffer) < ring.registered;
    if (r.op == IoOp::kRead) {
      if (fixed) {
        io_uring_prep_read_fixed(sqe, fd, p, len, off, r.registered_buffer);
      } else {
        io_uring_prep_read(sqe, fd, p, len, off);
      }
    } else {
      if (fixed) {
        io_uring_prep_write_fixed(sqe, fd, p, len, off, r.registered_buffer);
      } else {
        io_uring_prep_write(sqe, fd, p, len, off);
      }
    }
    io_uring_sqe_set_data64(sqe, slot_index);
  }

  // Runs requests from `next` (nullptr = no more) through `ring`; `done` is
  // called for each finished request, including ones refused by validation.
  void Run(Ring& ring, absl::FunctionRef<IoRequest*()> next,
           absl::FunctionRef<void(IoRequest*)> done) {
    unsigned in_flight = 0;
    bool more = true;
    auto complete = [&](uint32_t si) {
      Slot& slot = ring.slots[si];
      IoRequest* r = slot.request;
      r->latency_ns = internal::MonotonicNanos() - slot.start_ns;
      Count(*r);
      slot.file.reset();
      slot.request = nullptr;
      ring.free_slots.push_back(si);
      --in_flight;
      done(r);
    };
    while (true) {
      for (uint32_t si : ring.resubmit) Prep(ring, si);
      ring.resubmit.clear();
      while (more && in_flight < ring.depth) {
        IoRequest* r = next();
        if (r == nullptr) {
          more = false;
          break;
        }
        r->transferred = 0;
        r->latency_ns = 0;
        std::shared_ptr<OpenFile> file;
        r->status = Validate(*r, &file);
        if (!r->status.ok() || r->length == 0) {
          if (r->status.ok()) Count(*r);
          done(r);
          continue;
        }
        const uint32_t si = ring.free_slots.back();
        ring.free_slots.pop_back();
        Slot& slot = ring.slots[si];
        slot.request = r;
        slot.file = std::move(file);
        slot.start_ns = internal::MonotonicNanos();
        ++in_flight;
        Prep(ring, si);
      }
      if (in_flight == 0) break;
      const int rc = io_uring_submit_and_wait(&ring.ring, 1);
      if (rc < 0 && rc != -EINTR && rc != -EAGAIN && rc != -EBUSY) {
        // The kernel refused the whole submission: fail what is in flight.
        for (uint32_t si = 0; si < ring.depth; ++si) {
          if (ring.slots[si].request == nullptr) continue;
          ring.slots[si].request->status =
              internal::ErrnoStatus(-rc, "io_uring_submit", ring.slots[si].file->path);
          complete(si);
        }
        ring.resubmit.clear();
        continue;
      }
      unsigned head;
      unsigned seen = 0;
      io_uring_cqe* cqe;
      io_uring_for_each_cqe(&ring.ring, head, cqe) {
        ++seen;
        const auto si = static_cast<uint32_t>(io_uring_cqe_get_data64(cqe));
        HandleCompletion(ring, si, cqe->res, complete);
      }
      io_uring_cq_advance(&ring.ring, seen);
    }
  }

  template <typename CompleteFn>
  void HandleCompletion(Ring& ring, uint32_t si, int res, CompleteFn& complete) {
    Slot& slot = ring.slots[si];
    IoRequest& r = *slot.request;
    if (res == -EAGAIN || res == -EINTR) {
      ring.resubmit.push_back(si);
      return;
    }
    if (res < 0) {
      r.status = internal::ErrnoStatus(
          -res, r.op == IoOp::kRead ? "io_uring read" : "io_uring write", slot.file->path,
          r.offset, r.length);
      complete(si);
      return;
    }
    if (res == 0) {
      if (r.op == IoOp::kWrite) {
        r.status = internal::ErrnoStatus(EIO, "io_uring write (wrote 0 bytes)",
                                         slot.file->path, r.offset, r.length);
      }
      complete(si);  // a read: end of file
      return;
    }
    r.transferred += static_cast<size_t>(res);
    const bool eof_direct = slot.file->direct && r.op == IoOp::kRead &&
                            !IsAligned(r.transferred, kDirectAlignment);
    if (r.transferred < r.length && !eof_direct) {
      ring.resubmit.push_back(si);  // short transfer: issue the rest
      return;
    }
    complete(si);
  }

  const UringOptions options_;
  Mutex pool_mu_;  // the pool of rings; a ring itself is used by one thread at a time
  std::vector<std::unique_ptr<Ring>> rings_ ABSL_GUARDED_BY(pool_mu_);
  std::vector<Ring*> idle_ ABSL_GUARDED_BY(pool_mu_);
};

}  // namespace

absl::StatusOr<std::unique_ptr<IoBackend>> MakeUringBackend(const UringOptions& options) {
  if (options.queue_depth == 0 || options.queue_depth > 32768) {
    return absl::InvalidArgumentError(fmt::format(
        "io_uring: queue depth {} is outside 1..32768", options.queue_depth));
  }
  auto backend = std::make_unique<UringBackend>(options);
  if (absl::Status s = backend->Init(); !s.ok()) return s;
  return std::unique_ptr<IoBackend>(std::move(backend));
}

}  // namespace cellsim::io
