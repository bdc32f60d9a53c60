#include "cellsim/sim/simulation.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <unordered_map>

#include "cellsim/sim/device_model.h"
#include "fmt/format.h"

namespace cellsim::sim {

using internal::OpKind;
using DeviceModel = internal::DeviceModel;

namespace {

std::atomic<uint64_t> next_clock_id{1};

// Modeled time of each thread, per SimClock (keyed by a never-reused id).
struct ThreadTimes {
  std::unordered_map<uint64_t, uint64_t> now;
  std::unordered_map<uint64_t, uint32_t> session;
  std::unordered_map<uint64_t, Clock::CellCalls> calls;  // absent: kChargeAndPerform
};
thread_local ThreadTimes tls;

// Writes of at least this many bytes bypass the flash cache (cell default,
// CellConfig::write_bypass_bytes).
constexpr uint64_t kBypassBytes = 1ull << 20;

}  // namespace

SimClock::SimClock(int64_t unix_seconds, uint64_t statement_ns, TraceWriter* trace,
                   std::string trace_prefix)
    : id_(next_clock_id.fetch_add(1)),
      unix_(unix_seconds),
      statement_ns_(statement_ns),
      trace_(trace),
      prefix_(std::move(trace_prefix)) {}

uint64_t SimClock::NowNanos() const {
  auto it = tls.now.find(id_);
  if (it != tls.now.end()) return it->second;
  MutexLock l(&mu_);
  tls.now[id_] = frontier_;  // a new thread starts where the model has got to
  return frontier_;
}

int64_t SimClock::UnixSeconds() const {
  return unix_ + static_cast<int64_t>(NowNanos() / 1'000'000'000);
}

int64_t SimClock::UnixMicros() const {
  return unix_ * 1'000'000 + static_cast<int64_t>(NowNanos() / 1'000);
}

void SimClock::SetThreadNanos(uint64_t ns) {
  tls.now[id_] = ns;
  MutexLock l(&mu_);
  frontier_ = std::max(frontier_, ns);
}

uint64_t SimClock::Frontier() const {
  MutexLock l(&mu_);
  return frontier_;
}

uint32_t SimClock::SessionTrack() {
  auto it = tls.session.find(id_);
  if (it != tls.session.end()) return it->second;
  uint32_t n;
  {
    MutexLock l(&mu_);
    n = ++sessions_;
  }
  const uint32_t track =
      trace_ == nullptr ? 0 : trace_->Track(prefix_ + "database", fmt::format("session {}", n));
  tls.session[id_] = track;
  return track;
}

uint64_t SimClock::ThreadTag() const {
  auto it = tls.session.find(id_);
  return it == tls.session.end() ? 0 : uint64_t{it->second} + 1;
}

void SimClock::SetThreadTag(uint64_t tag) {
  if (tag != 0) tls.session[id_] = static_cast<uint32_t>(tag - 1);
}

Clock::CellCalls SimClock::ThreadCellCalls() const {
  auto it = tls.calls.find(id_);
  return it == tls.calls.end() ? CellCalls::kChargeAndPerform : it->second;
}

void SimClock::SetThreadCellCalls(CellCalls calls) {
  if (calls == CellCalls::kChargeAndPerform) {
    tls.calls.erase(id_);
  } else {
    tls.calls[id_] = calls;
  }
}

void SimClock::Charge(Work work) {
  if (work != Work::kStatement) return;
  const uint64_t t0 = NowNanos();
  if (trace_ != nullptr) trace_->Slice(SessionTrack(), "statement CPU, ASM, CSS", t0, statement_ns_, "db");
  SetThreadNanos(t0 + statement_ns_);
}

namespace internal {

// With a real clock: a "session N" trace track per logical thread
// (Clock::ThreadTag), numbered in the order of their first cell call, as
// SimClock numbers its sessions. Thread-safe (mu_ is taken before the
// trace's lock).
class RealSessions {
 public:
  RealSessions(TraceWriter* trace, std::string prefix)
      : trace_(trace), prefix_(std::move(prefix)) {}
  uint32_t Track(uint64_t tag) ABSL_LOCKS_EXCLUDED(mu_) {
    MutexLock l(&mu_);
    auto [it, added] = tracks_.try_emplace(tag, 0);
    if (added) {
      it->second = trace_->Track(prefix_ + "database", fmt::format("session {}", tracks_.size()));
    }
    return it->second;
  }

 private:
  TraceWriter* const trace_;
  const std::string prefix_;
  Mutex mu_;
  std::unordered_map<uint64_t, uint32_t> tracks_ ABSL_GUARDED_BY(mu_);
};

}  // namespace internal

using internal::RealSessions;

namespace {

// The CellService decorator of one cell.
class SimCell : public cell::CellService {
 public:
  SimCell(uint32_t index, cell::CellService* inner, Clock* clock, SimClock* sim_clock,
          DeviceModel* model, RealSessions* real_sessions, TraceWriter* trace, std::string prefix,
          bool model_only)
      : index_(index), inner_(inner), clock_(clock), sim_(sim_clock), model_(model),
        real_sessions_(real_sessions), trace_(trace), prefix_(std::move(prefix)),
        model_only_(model_only) {
    absl::StatusOr<cell::CellDescription> d = inner->Describe();
    if (d.ok()) {
      mode_ = d->flash_cache_mode;
      for (const cell::GridDiskInfo& g : d->grid_disks) {
        // "CD_03_cel01" -> 3
        uint32_t cd = 0;
        if (g.cell_disk.size() > 5) cd = static_cast<uint32_t>(std::atoi(g.cell_disk.c_str() + 3));
        cell_disk_.push_back(cd);
        grid_size_.push_back(g.size_bytes);
      }
      uncached_ = std::vector<std::atomic<bool>>(d->grid_disks.size());
      for (size_t i = 0; i < d->grid_disks.size(); ++i) {
        uncached_[i] = d->grid_disks[i].caching_policy == cell::CachingPolicy::kNone;
      }
      name_ = d->name;
    }
    if (trace_ != nullptr) track_ = trace_->Track(prefix_ + name_, "requests");
  }

  std::string name() const override { return inner_->name(); }
  absl::StatusOr<cell::CellDescription> Describe() const override { return inner_->Describe(); }

  absl::Status Read(absl::Span<cell::ReadRequest> reqs, cell::CellIoStats* stats) override {
    const Clock::CellCalls calls = Calls();
    if (calls == Clock::CellCalls::kChargeOnly) {
      // Whether a read hits the flash cache is known only once it is done.
      const absl::Status refused = absl::FailedPreconditionError(fmt::format(
          "{}: a read cannot be charged to the device model before it is performed", name_));
      for (cell::ReadRequest& r : reqs) r.status = refused;
      return refused;
    }
    const uint64_t t0 = clock_->NowNanos();
    cell::CellIoStats local;
    absl::Status st = inner_->Read(reqs, &local);
    const bool flash = local.disk_bytes_read == 0 && local.flash_cache_read_hits > 0;
    if (calls != Clock::CellCalls::kPerformOnly) {
      uint64_t end = t0;
      if (sim_ != nullptr) {
        for (const cell::ReadRequest& r : reqs) {
          const uint64_t done = model_->Device(index_, CellDisk(r.grid_disk), flash,
                                               OpKind::kRead, r.buffer.size(),
                                               t0 + model_->half_rpc_ns());
          end = std::max(end, model_->Link(index_, r.buffer.size(), done) + model_->half_rpc_ns());
        }
      }
      Finish(fmt::format("read x{}", reqs.size()), t0, end);
    }
    if (stats != nullptr) *stats += local;
    return st;
  }

  absl::Status Write(absl::Span<cell::WriteRequest> reqs, cell::CellIoStats* stats) override {
    const Clock::CellCalls calls = Calls();
    const uint64_t t0 = clock_->NowNanos();
    cell::CellIoStats local;
    auto answered = [&](cell::WriteRequest& r) {
      const uint64_t len = r.data.size();
      if (!Answers(calls, ToFlash(r.grid_disk, len))) return false;
      if (!Valid(r.grid_disk, r.offset, len)) {
        return Refuse(calls, r.status, r.grid_disk, r.offset, len);
      }
      r.status = absl::OkStatus();
      if (calls != Clock::CellCalls::kChargeOnly) local.disk_bytes_written += len;
      return true;
    };
    absl::Status st = PerformRest(reqs, answered, [&](absl::Span<cell::WriteRequest> real) {
      return inner_->Write(real, &local);
    });
    if (calls != Clock::CellCalls::kPerformOnly) {
      uint64_t end = t0;
      if (sim_ != nullptr) {
        for (const cell::WriteRequest& r : reqs) {
          const uint64_t len = r.data.size();
          const uint64_t at = model_->Link(index_, len, t0) + model_->half_rpc_ns();
          const uint64_t done = model_->Device(index_, CellDisk(r.grid_disk),
                                               ToFlash(r.grid_disk, len), OpKind::kWrite, len, at);
          end = std::max(end, done + model_->half_rpc_ns());
        }
      }
      Finish(fmt::format("write x{}", reqs.size()), t0, end);
    }
    if (calls != Clock::CellCalls::kChargeOnly) DirtyCounter();
    if (stats != nullptr) *stats += local;
    return st;
  }

  absl::Status FormatRange(absl::Span<cell::FormatRangeRequest> reqs,
                           cell::CellIoStats* stats) override {
    const Clock::CellCalls calls = Calls();
    const uint64_t t0 = clock_->NowNanos();
    cell::CellIoStats local;
    auto answered = [&](cell::FormatRangeRequest& r) {
      if (!Answers(calls, /*cached=*/false)) return false;
      const bool fast = IsFast(r.grid_disk, r.method);
      const bool refused = r.method == cell::FormatMethod::kMetadataOnly &&
                           (mode_ != cell::FlashCacheMode::kWriteBack || Uncached(r.grid_disk));
      if (refused || !Valid(r.grid_disk, r.offset, r.length)) {
        return Refuse(calls, r.status, r.grid_disk, r.offset, r.length);
      }
      r.status = absl::OkStatus();
      r.metadata_only = fast;
      if (calls != Clock::CellCalls::kChargeOnly) {
        local.bytes_saved_by_creation += r.length;
        if (!fast) local.disk_bytes_written += r.length;
      }
      return true;
    };
    absl::Status st = PerformRest(reqs, answered, [&](absl::Span<cell::FormatRangeRequest> real) {
      return inner_->FormatRange(real, &local);
    });
    if (calls != Clock::CellCalls::kPerformOnly) ChargeFormat(reqs, t0);
    if (calls != Clock::CellCalls::kChargeOnly) DirtyCounter();
    if (stats != nullptr) *stats += local;
    return st;
  }

  absl::StatusOr<cell::FlushProgress> Flush(
      const std::function<void(const cell::FlushProgress&)>& progress) override {
    return inner_->Flush(progress);
  }
  absl::StatusOr<std::vector<cell::Metric>> Metrics() const override { return inner_->Metrics(); }
  absl::Status SetFlashCacheMode(cell::FlashCacheMode mode) override {
    absl::Status st = inner_->SetFlashCacheMode(mode);
    if (st.ok()) mode_ = mode;
    return st;
  }
  absl::Status SetCachingPolicy(const std::string& grid_disk,
                                cell::CachingPolicy policy) override {
    absl::Status st = inner_->SetCachingPolicy(grid_disk, policy);
    absl::StatusOr<cell::CellDescription> d = inner_->Describe();
    if (st.ok() && d.ok()) {
      for (size_t i = 0; i < d->grid_disks.size() && i < uncached_.size(); ++i) {
        uncached_[i] = d->grid_disks[i].caching_policy == cell::CachingPolicy::kNone;
      }
    }
    return st;
  }
  absl::Status Discard(absl::Span<cell::DiscardRequest> requests,
                       cell::CellIoStats* stats) override {
    return inner_->Discard(requests, stats);  // metadata only: not modeled
  }
  absl::StatusOr<std::vector<cell::LostRange>> LostRanges() const override {
    return inner_->LostRanges();
  }

 private:
  Clock::CellCalls Calls() const {
    return sim_ != nullptr ? sim_->ThreadCellCalls() : Clock::CellCalls::kChargeAndPerform;
  }
  // Whether the decorator answers a request itself instead of the cell: in a
  // charge-only pass every one; with --model-only those that go to disk.
  bool Answers(Clock::CellCalls calls, bool cached) const {
    return calls == Clock::CellCalls::kChargeOnly || (model_only_ && !cached);
  }
  // A request the decorator cannot answer (bad range, a refused fast format):
  // the cell reports its own error (returns false: send it), except in a
  // charge-only pass, which never calls the cell.
  bool Refuse(Clock::CellCalls calls, absl::Status& status, uint32_t grid_disk, uint64_t offset,
              uint64_t len) const {
    if (calls != Clock::CellCalls::kChargeOnly) return false;
    status = absl::InvalidArgumentError(fmt::format(
        "{}: grid disk {} at {} (+{}): not a request the model can answer without the cell",
        name_, grid_disk, offset, len));
    return true;
  }
  // Sends the requests `answered` leaves to the cell in one call (`call`), and
  // copies their outcome back.
  template <typename Req, typename Answered, typename Call>
  static absl::Status PerformRest(absl::Span<Req> reqs, Answered answered, Call call) {
    std::vector<Req> real;
    std::vector<size_t> real_idx;
    for (size_t i = 0; i < reqs.size(); ++i) {
      if (answered(reqs[i])) continue;
      real.push_back(reqs[i]);
      real_idx.push_back(i);
    }
    if (real.empty()) return absl::OkStatus();
    absl::Status st = call(absl::MakeSpan(real));
    for (size_t k = 0; k < real.size(); ++k) reqs[real_idx[k]] = std::move(real[k]);
    return st;
  }
  // Charges the format ranges that succeeded and draws the call.
  void ChargeFormat(absl::Span<const cell::FormatRangeRequest> reqs, uint64_t t0) {
    uint64_t end = t0;
    size_t fast_count = 0;
    if (sim_ != nullptr) {
      const uint64_t at = t0 + model_->half_rpc_ns();
      for (const cell::FormatRangeRequest& r : reqs) {
        if (!r.status.ok()) continue;
        fast_count += r.metadata_only ? 1 : 0;
        const uint64_t done =
            r.metadata_only
                ? model_->Device(index_, CellDisk(r.grid_disk), true, OpKind::kFastFormat, 0, at)
                : model_->Device(index_, CellDisk(r.grid_disk), false, OpKind::kFormat, r.length,
                                 at);
        end = std::max(end, done + model_->half_rpc_ns());
      }
    }
    Finish(fmt::format("format range x{} ({})", reqs.size(),
                       fast_count == reqs.size() ? "fast" : "smart"),
           t0, end);
  }
  // A grid disk with cachingPolicy=none: its I/O stays off the flash.
  bool Uncached(uint32_t grid_disk) const {
    return grid_disk < uncached_.size() && uncached_[grid_disk].load();
  }
  bool ToFlash(uint32_t grid_disk, uint64_t len) const {
    return mode_ == cell::FlashCacheMode::kWriteBack && len < kBypassBytes && !Uncached(grid_disk);
  }
  bool IsFast(uint32_t grid_disk, cell::FormatMethod m) const {
    return m == cell::FormatMethod::kMetadataOnly ||
           (m == cell::FormatMethod::kAuto && mode_ == cell::FlashCacheMode::kWriteBack &&
            !Uncached(grid_disk));
  }
  // Requests the decorator may answer itself; anything else goes to the cell,
  // which reports its own error.
  bool Valid(uint32_t grid_disk, uint64_t offset, uint64_t len) const {
    return grid_disk < grid_size_.size() && offset % 512 == 0 && len % 512 == 0 && len > 0 &&
           offset + len <= grid_size_[grid_disk];
  }
  uint32_t CellDisk(uint32_t grid_disk) const {
    return grid_disk < cell_disk_.size() ? cell_disk_[grid_disk] : 0;
  }
  // Moves the caller to the last reply (simulated) and draws the call.
  void Finish(const std::string& what, uint64_t t0, uint64_t end) {
    if (sim_ != nullptr) {
      clock_->AdvanceThreadTo(end);
    } else {
      end = clock_->NowNanos();
    }
    if (trace_ == nullptr) return;
    trace_->Slice(track_, what, t0, end - t0, "cell");
    const uint32_t session =
        sim_ != nullptr ? sim_->SessionTrack() : real_sessions_->Track(clock_->ThreadTag());
    trace_->Slice(session, fmt::format("{} -> {}", what, name_), t0, end - t0, "cell");
  }
  void DirtyCounter() {
    if (trace_ == nullptr) return;
    absl::StatusOr<std::vector<cell::Metric>> m = inner_->Metrics();
    if (!m.ok()) return;
    for (const cell::Metric& x : *m) {
      if (x.name == "FC_BY_DIRTY") {
        trace_->Counter(prefix_ + name_, "dirty flash cache MB", clock_->NowNanos(), x.value);
      }
    }
  }

  const uint32_t index_;
  cell::CellService* inner_;
  Clock* clock_;
  SimClock* sim_;  // null with a real clock
  DeviceModel* model_;
  RealSessions* real_sessions_;  // with a real clock and a trace
  TraceWriter* trace_;
  const std::string prefix_;
  const bool model_only_;
  std::atomic<cell::FlashCacheMode> mode_{cell::FlashCacheMode::kWriteBack};
  std::vector<uint32_t> cell_disk_;
  std::vector<uint64_t> grid_size_;
  std::vector<std::atomic<bool>> uncached_;  // by grid disk: cachingPolicy=none
  std::string name_;
  uint32_t track_ = 0;
};

}  // namespace

Simulation::Simulation(Options options) : o_(std::move(options)) {
  const uint64_t statement_ns =
      static_cast<uint64_t>(std::llround(o_.profile.statement_ms.value * 1e6));
  if (!o_.real_clock) {
    sim_clock_ = std::make_unique<SimClock>(o_.unix_seconds, statement_ns, o_.trace, o_.trace_prefix);
    model_ = std::make_unique<DeviceModel>(o_.profile, o_.shape, o_.trace, o_.trace_prefix);
  } else if (o_.trace != nullptr) {
    real_sessions_ = std::make_unique<RealSessions>(o_.trace, o_.trace_prefix);
  }
}

Simulation::~Simulation() = default;

Clock* Simulation::clock() {
  return sim_clock_ != nullptr ? static_cast<Clock*>(sim_clock_.get()) : SystemClock();
}

std::string Simulation::ClockDescription() const {
  if (o_.real_clock) return "real (this machine)";
  return fmt::format("simulated ({}, {} rack: {} cells x {} {} x {} flash cards{})",
                     o_.profile.name, o_.shape.rack, o_.shape.cells, o_.shape.disks_per_cell,
                     o_.profile.disks_per_cell.value < 1 ? "flash drives" : "disks",
                     o_.shape.flash_cards_per_cell, o_.model_only ? "; model only" : "");
}

std::unique_ptr<cell::CellService> Simulation::WrapCell(uint32_t index, cell::CellService* inner) {
  return std::make_unique<SimCell>(index, inner, clock(), sim_clock_.get(), model_.get(),
                                   real_sessions_.get(), o_.trace, o_.trace_prefix,
                                   o_.model_only);
}

}  // namespace cellsim::sim
