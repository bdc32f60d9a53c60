#include "cellsim/io/fault_injection.h"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

#include "cellsim/base/mutex.h"
#include "cellsim/io/fd_backend.h"
#include "cellsim/io/undo_log.h"
#include "fmt/format.h"

namespace cellsim::io {
namespace {

struct CountRule {
  bool active = false;
  OpFilter filter;
  uint64_t n = 0;
  uint64_t seen = 0;
  int error_number = EIO;
};

struct BadRange {
  std::string path_substring;
  uint64_t begin, end;
};

bool Matches(const OpFilter& f, uint32_t op, const std::string& path) {
  return (f.ops & op) != 0 &&
         (f.path_substring.empty() || path.find(f.path_substring) != std::string::npos);
}

std::string_view OpName(uint32_t op) {
  switch (op) {
    case kOpRead: return "read";
    case kOpWrite: return "write";
    case kOpSync: return "sync";
    case kOpAllocate: return "fallocate";
    case kOpTruncate: return "truncate";
    case kOpOpen: return "open";
  }
  return "op";
}

// One operation as the rules see it.
struct OpInfo {
  uint32_t op;
  const std::string& path;
  uint64_t offset = 0;
  uint64_t length = 0;
  bool has_range = false;
};

}  // namespace

// Two locks, never held together: `mu` (the rules and counters) is taken
// around each decision, `undo_mu` around each mutating operation and its undo
// record; no operation holds one while it takes the other.
struct FaultInjectionBackend::State {
  mutable Mutex mu;  // rules and counters
  CountRule nth ABSL_GUARDED_BY(mu), one_in ABSL_GUARDED_BY(mu), all ABSL_GUARDED_BY(mu),
      crash ABSL_GUARDED_BY(mu);
  std::mt19937_64 rng ABSL_GUARDED_BY(mu);
  bool crashed ABSL_GUARDED_BY(mu) = false;
  OpFilter latency_filter ABSL_GUARDED_BY(mu);
  uint64_t latency_ns ABSL_GUARDED_BY(mu) = 0;
  std::vector<BadRange> bad ABSL_GUARDED_BY(mu);
  uint64_t injected ABSL_GUARDED_BY(mu) = 0;

  // Serialises every mutating operation with its undo record, and Sync() with
  // the discarding of the records it makes durable.
  mutable Mutex undo_mu;
  internal::UndoLog undo ABSL_GUARDED_BY(undo_mu);

  absl::Status Fail(const OpInfo& op, int error_number, std::string_view why)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    ++injected;
    const std::string what = fmt::format("{} (injected: {})", OpName(op.op), why);
    return op.has_range ? internal::ErrnoStatus(error_number, what, op.path, op.offset,
                                                op.length)
                        : internal::ErrnoStatus(error_number, what, op.path);
  }

  // Decides the fate of one operation (mu held); adds matching latency to
  // *latency_ns.
  absl::Status Check(const OpInfo& op, uint64_t* latency) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    if (crashed) return Fail(op, EIO, "crashed, the power is gone");
    if (latency_ns > 0 && Matches(latency_filter, op.op, op.path)) {
      *latency = std::max(*latency, latency_ns);
    }
    if (all.active && Matches(all.filter, op.op, op.path)) {
      return Fail(op, all.error_number, "FailAll");
    }
    if (nth.active && Matches(nth.filter, op.op, op.path) && ++nth.seen == nth.n) {
      return Fail(op, nth.error_number, fmt::format("FailNth, operation #{}", nth.n));
    }
    if (one_in.active && Matches(one_in.filter, op.op, op.path) &&
        rng() % one_in.n == 0) {
      return Fail(op, one_in.error_number, fmt::format("FailOneIn({})", one_in.n));
    }
    if (op.op == kOpRead && op.has_range) {
      for (const BadRange& b : bad) {
        if (op.path.find(b.path_substring) != std::string::npos && op.offset < b.end &&
            op.offset + op.length > b.begin) {
          return Fail(op, EIO, fmt::format("bad block range [{}, {})", b.begin, b.end));
        }
      }
    }
    if (crash.active && Matches(crash.filter, op.op, op.path)) {
      ++crash.seen;
      if (crash.seen >= crash.n) crashed = true;  // this one completes, later ones fail
    }
    return absl::OkStatus();
  }

  // A successful write rewrites the media: its bad ranges heal.
  void Heal(const std::string& path, uint64_t begin, uint64_t end)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    std::vector<BadRange> kept;
    for (const BadRange& b : bad) {
      if (path.find(b.path_substring) == std::string::npos || end <= b.begin || begin >= b.end) {
        kept.push_back(b);
        continue;
      }
      if (b.begin < begin) kept.push_back({b.path_substring, b.begin, begin});
      if (end < b.end) kept.push_back({b.path_substring, end, b.end});
    }
    bad = std::move(kept);
  }
};

namespace {
void Sleep(uint64_t ns) {
  if (ns > 0) std::this_thread::sleep_for(std::chrono::nanoseconds(ns));
}
}  // namespace

FaultInjectionBackend::FaultInjectionBackend(std::unique_ptr<IoBackend> base)
    : IoBackendWrapper(std::move(base)), state_(std::make_unique<State>()) {}

FaultInjectionBackend::~FaultInjectionBackend() = default;

void FaultInjectionBackend::FailNth(const OpFilter& filter, uint64_t n, int error_number) {
  MutexLock lock(&state_->mu);
  state_->nth = {n > 0, filter, n, 0, error_number};
}

void FaultInjectionBackend::FailOneIn(const OpFilter& filter, uint64_t n, uint64_t seed,
                                      int error_number) {
  MutexLock lock(&state_->mu);
  state_->one_in = {n > 0, filter, n, 0, error_number};
  state_->rng.seed(seed);
}

void FaultInjectionBackend::FailAll(const OpFilter& filter, int error_number) {
  MutexLock lock(&state_->mu);
  state_->all = {true, filter, 0, 0, error_number};
}

void FaultInjectionBackend::CrashAfter(const OpFilter& filter, uint64_t n) {
  MutexLock lock(&state_->mu);
  state_->crash = {true, filter, n, 0, EIO};
  state_->crashed = n == 0;
}

void FaultInjectionBackend::AddLatency(const OpFilter& filter, uint64_t latency_ns) {
  MutexLock lock(&state_->mu);
  state_->latency_filter = filter;
  state_->latency_ns = latency_ns;
}

void FaultInjectionBackend::AddBadBlocks(const std::string& path_substring, uint64_t offset,
                                         uint64_t length) {
  MutexLock lock(&state_->mu);
  if (length > 0) state_->bad.push_back({path_substring, offset, offset + length});
}

void FaultInjectionBackend::ClearFaults() {
  MutexLock lock(&state_->mu);
  const uint64_t crash_seen = state_->crash.seen;
  state_->nth = {};
  state_->one_in = {};
  state_->all = {};
  state_->crash = {};
  state_->crash.seen = crash_seen;
  state_->crashed = false;
  state_->latency_ns = 0;
  state_->bad.clear();
}

absl::Status FaultInjectionBackend::SimulatePowerLoss() { return SimulateReorderedPowerLoss(0); }

absl::Status FaultInjectionBackend::SimulateReorderedPowerLoss(uint64_t seed) {
  absl::Status s;
  {
    MutexLock undo_lock(&state_->undo_mu);
    s = state_->undo.Rollback(seed);
  }
  MutexLock lock(&state_->mu);
  state_->crashed = false;
  state_->crash.active = false;
  return s;
}

uint64_t FaultInjectionBackend::CrashFilterMatches() const {
  MutexLock lock(&state_->mu);
  return state_->crash.seen;
}

bool FaultInjectionBackend::Crashed() const {
  MutexLock lock(&state_->mu);
  return state_->crashed;
}

uint64_t FaultInjectionBackend::InjectedFailures() const {
  MutexLock lock(&state_->mu);
  return state_->injected;
}

uint64_t FaultInjectionBackend::UnsyncedUndoBytes() const {
  MutexLock lock(&state_->undo_mu);
  return state_->undo.SavedBytes();
}

std::string FaultInjectionBackend::Name() const { return "fault(" + base()->Name() + ")"; }

absl::StatusOr<FileHandle> FaultInjectionBackend::Open(const std::string& path,
                                                       const OpenOptions& options) {
  uint64_t latency = 0;
  {
    MutexLock lock(&state_->mu);
    if (absl::Status s = state_->Check({kOpOpen, path}, &latency); !s.ok()) return s;
  }
  Sleep(latency);
  if (options.read_only) return base()->Open(path, options);
  MutexLock undo_lock(&state_->undo_mu);
  // Creating or truncating changes the file: remember its size (a missing
  // file undoes to an empty one, as its directory entry may have been synced).
  if (options.truncate || options.create) {
    absl::Status s = options.truncate ? state_->undo.RecordResize(path, 0)
                                      : state_->undo.Record(path, 0, 0);
    if (!s.ok()) return s;
  }
  return base()->Open(path, options);
}

absl::Status FaultInjectionBackend::Submit(absl::Span<IoRequest> requests) {
  std::vector<std::string> paths(requests.size());
  std::vector<size_t> pass;  // indices that reach the base backend
  uint64_t latency = 0;
  bool writes = false;
  {
    MutexLock lock(&state_->mu);
    for (size_t i = 0; i < requests.size(); ++i) {
      IoRequest& r = requests[i];
      r.transferred = 0;
      r.latency_ns = 0;
      auto path = base()->PathOf(r.file);
      if (!path.ok()) {  // let the base backend report the bad handle
        pass.push_back(i);
        continue;
      }
      paths[i] = *path;
      r.status = state_->Check({r.op == IoOp::kRead ? kOpRead : kOpWrite, paths[i], r.offset,
                                r.length, true},
                               &latency);
      if (r.status.ok()) {
        pass.push_back(i);
        writes |= r.op == IoOp::kWrite;
      }
    }
  }
  std::vector<IoRequest> batch;
  batch.reserve(pass.size());
  for (size_t i : pass) batch.push_back(requests[i]);
  if (writes) {
    MutexLock undo_lock(&state_->undo_mu);
    // Every record sees the state before the batch, so undoing them newest
    // first restores it even when writes of the batch overlap.
    for (size_t k = 0; k < batch.size(); ++k) {
      const size_t i = pass[k];
      if (batch[k].op != IoOp::kWrite || paths[i].empty()) continue;
      if (absl::Status s = state_->undo.Record(paths[i], batch[k].offset, batch[k].length);
          !s.ok()) {
        return s;
      }
    }
    (void)base()->Submit(absl::MakeSpan(batch));  // not empty: it holds a write
  } else if (!batch.empty()) {
    (void)base()->Submit(absl::MakeSpan(batch));
  }
  Sleep(latency);
  {
    MutexLock lock(&state_->mu);
    for (size_t k = 0; k < batch.size(); ++k) {
      const size_t i = pass[k];
      IoRequest& r = requests[i];
      r.status = batch[k].status;
      r.transferred = batch[k].transferred;
      r.latency_ns = batch[k].latency_ns + latency;
      if (r.op == IoOp::kWrite && r.status.ok() && !state_->bad.empty()) {
        state_->Heal(paths[i], r.offset, r.offset + r.transferred);
      }
    }
  }
  for (const IoRequest& r : requests) {
    if (!r.status.ok()) return r.status;
  }
  return absl::OkStatus();
}

absl::Status FaultInjectionBackend::Sync(FileHandle file, SyncKind kind) {
  auto path = base()->PathOf(file);
  if (!path.ok()) return path.status();
  uint64_t latency = 0;
  {
    MutexLock lock(&state_->mu);
    if (absl::Status s = state_->Check({kOpSync, *path}, &latency); !s.ok()) return s;
  }
  Sleep(latency);
  MutexLock undo_lock(&state_->undo_mu);
  absl::Status s = base()->Sync(file, kind);
  if (s.ok()) state_->undo.Synced(*path);
  return s;
}

absl::Status FaultInjectionBackend::Allocate(FileHandle file, AllocateMode mode,
                                             uint64_t offset, uint64_t length) {
  auto path = base()->PathOf(file);
  if (!path.ok()) return path.status();
  uint64_t latency = 0;
  {
    MutexLock lock(&state_->mu);
    if (absl::Status s =
            state_->Check({kOpAllocate, *path, offset, length, true}, &latency);
        !s.ok()) {
      return s;
    }
  }
  Sleep(latency);
  MutexLock undo_lock(&state_->undo_mu);
  // kAllocate may extend the file (record its size only); zero-range and
  // punch-hole destroy the range's bytes; kKeepSize changes no byte.
  absl::Status s;
  switch (mode) {
    case AllocateMode::kAllocate: s = state_->undo.Record(*path, 0, 0); break;
    case AllocateMode::kKeepSize: break;
    case AllocateMode::kZeroRange:
    case AllocateMode::kPunchHole: s = state_->undo.Record(*path, offset, length); break;
  }
  if (!s.ok()) return s;
  return base()->Allocate(file, mode, offset, length);
}

absl::Status FaultInjectionBackend::Truncate(FileHandle file, uint64_t size) {
  auto path = base()->PathOf(file);
  if (!path.ok()) return path.status();
  uint64_t latency = 0;
  {
    MutexLock lock(&state_->mu);
    if (absl::Status s = state_->Check({kOpTruncate, *path, size, 0, false}, &latency);
        !s.ok()) {
      return s;
    }
  }
  Sleep(latency);
  MutexLock undo_lock(&state_->undo_mu);
  if (absl::Status s = state_->undo.RecordResize(*path, size); !s.ok()) return s;
  return base()->Truncate(file, size);
}


}  // namespace cellsim::io
