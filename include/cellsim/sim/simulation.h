// The simulated clock of a rack: a deterministic discrete-event model of every
// device queue under a DeviceProfile, and the CellService decorator that
// charges every cell request its modeled service time.
//
// Model (docs/sim.md has the formulas and why):
//   - every cell disk is a FIFO server: an operation costs max(1 / IOPS,
//     bytes / bandwidth); formatting and large writes use the write bandwidth;
//   - every flash card is a FIFO server; a request goes to the card that frees
//     first; a fast-creation (metadata-only) request costs 1 / fdfc_requests_per_s;
//   - every cell's link to the database is a FIFO server for the data bytes a
//     request carries (writes out, reads back), plus half the round trip each way;
//   - the database's own work per creating statement is charged by
//     Clock::Charge(kStatement).
// Time belongs to the thread that issues: SimClock keeps one modeled time per
// thread, a cell call starts at the caller's time and the caller continues at
// the call's last reply (a batch's requests run concurrently on their devices;
// mirror copies sent by ForkJoin cost the slowest copy).
//
// With a real clock the decorator only traces: a slice per cell call, timed by
// the real clock, on its cell's track and on the calling thread's "session N"
// track (Clock::ThreadTag: work a fork-join hands to a worker stays its
// caller's), as the simulated clock draws them.
//
// Usage:
//   Simulation::Options o{.profile = *LoadProfile("x3-2"), .shape = *ShapeFor(p, "quarter")};
//   auto sim = std::make_unique<Simulation>(o);
//   Rack::Create(io, sim->clock(), dir, config, [&](uint32_t i, CellService* c) {
//     return sim->WrapCell(i, c); });
//
// Thread-safety: every method may be called from any thread; for identical
// results across runs, issue from one thread at a time (cellsim does under a
// simulated clock: base ForkJoin runs in order).
#ifndef CELLSIM_SIM_SIMULATION_H_
#define CELLSIM_SIM_SIMULATION_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cellsim/base/clock.h"
#include "cellsim/base/mutex.h"
#include "cellsim/cell/cell_service.h"
#include "cellsim/sim/profile.h"
#include "cellsim/sim/trace.h"

namespace cellsim::sim {

// A Clock whose time is modeled: one timeline per thread (see Clock). Each
// thread's time is thread-local; mu_ guards what threads share (a leaf lock).
class SimClock : public Clock {
 public:
  SimClock(int64_t unix_seconds, uint64_t statement_ns, TraceWriter* trace,
           std::string trace_prefix);
  uint64_t NowNanos() const override ABSL_LOCKS_EXCLUDED(mu_);
  int64_t UnixSeconds() const override;
  int64_t UnixMicros() const override;
  bool simulated() const override { return true; }
  void SetThreadNanos(uint64_t ns) override ABSL_LOCKS_EXCLUDED(mu_);
  void Charge(Work work) override;
  uint64_t ThreadTag() const override;  // the thread's session track + 1 (0: none yet)
  void SetThreadTag(uint64_t tag) override;
  CellCalls ThreadCellCalls() const override;
  void SetThreadCellCalls(CellCalls calls) override;
  // The latest modeled time any thread reached.
  uint64_t Frontier() const ABSL_LOCKS_EXCLUDED(mu_);
  // The calling thread's session track ("session 1", ...) in the trace.
  uint32_t SessionTrack() ABSL_LOCKS_EXCLUDED(mu_);

 private:
  const uint64_t id_;
  const int64_t unix_;
  const uint64_t statement_ns_;
  TraceWriter* trace_;
  std::string prefix_;
  mutable Mutex mu_;
  uint64_t frontier_ ABSL_GUARDED_BY(mu_) = 0;
  uint32_t sessions_ ABSL_GUARDED_BY(mu_) = 0;
};

namespace internal {
class DeviceModel;
class RealSessions;
}

class Simulation {
 public:
  struct Options {
    DeviceProfile profile;
    RackShape shape;
    bool model_only = false;     // skip data bytes at the cells (see WrapCell)
    bool real_clock = false;     // trace with the real clock, charge nothing
    TraceWriter* trace = nullptr;  // optional, not owned
    std::string trace_prefix;      // "fast: " when one trace holds several runs
    int64_t unix_seconds = 1'700'000'000;
  };
  explicit Simulation(Options options);
  ~Simulation();

  Clock* clock();
  const Options& options() const { return o_; }
  // "simulated (x3-2-hp, quarter rack: 3 cells x 12 disks x 4 flash cards)" or "real".
  std::string ClockDescription() const;

  // The decorator for cell `index`: every request is charged (simulated) or
  // traced (real). With model_only, writes that go to disk (>= 1 MiB, or any
  // in write-through mode) and every format-range request are answered
  // without touching the cell's files, with the statistics the cell would
  // report; control-file, header and metadata writes stay real.
  std::unique_ptr<cell::CellService> WrapCell(uint32_t index, cell::CellService* inner);

 private:
  Options o_;
  std::unique_ptr<SimClock> sim_clock_;
  std::unique_ptr<internal::DeviceModel> model_;
  std::unique_ptr<internal::RealSessions> real_sessions_;  // a real clock's, traced
};

}  // namespace cellsim::sim

#endif  // CELLSIM_SIM_SIMULATION_H_
