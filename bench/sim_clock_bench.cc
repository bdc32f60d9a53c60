// What the simulated clock costs: a real 1 GiB zero-fill (CREATE TABLESPACE ...
// SIZE 1G by the zero-fill path, NORMAL redundancy: 2 GiB written to the grid
// disks) on a default rack (3 cells x 12 disks), timed in wall-clock seconds,
// with the real clock and with the simulated clock (profile x3-2, quarter
// rack: the same shape; every cell request charged to the device model; the
// data still written). Same database options in both, so the difference is
// the clock: the device model, and the order it is charged in.
//
//   build/release/bench/sim_clock_bench --benchmark_repetitions=3
//
// BM_SimulatedOverReal is the figure to read (docs/labs/exadata-clock.md): each
// iteration runs the pair, real and simulated, in alternating order, so the
// ratio holds while the machine's speed drifts (a shared machine). It reports
// the median of the pair ratios, and each clock's median wall seconds.
// BM_ZeroFill1GiB times each clock on its own (all real runs, then all
// simulated ones).
#include <benchmark/benchmark.h>
#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "bench/bench_lab.h"
#include "cellsim/asm/rack.h"
#include "cellsim/db/database.h"
#include "cellsim/io/io_backend.h"
#include "cellsim/sim/simulation.h"

namespace {

using namespace cellsim;  // NOLINT

struct Run {
  double wall_s = 0;     // the statement, by this machine's clock
  double modeled_s = 0;  // the statement, by the rack's clock
};

// One zero-fill of 1 GiB on a fresh rack; only the statement is timed.
absl::StatusOr<Run> ZeroFill1GiB(bool simulated) {
  const std::string dir = bench::MakeTemp("simbench");
  if (dir.empty()) return absl::InternalError("cannot create a temporary directory");
  std::unique_ptr<io::IoBackend> io = io::MakePosixBackend();
  std::unique_ptr<sim::Simulation> sim;
  Clock* clock = SystemClock();
  asmgr::CellWrapper wrap;
  if (simulated) {
    sim::Simulation::Options o;
    o.profile = *sim::LoadProfile("x3-2");
    o.shape = *sim::ShapeFor(o.profile, "quarter");
    sim = std::make_unique<sim::Simulation>(o);
    clock = sim->clock();
    wrap = [&](uint32_t i, cell::CellService* c) { return sim->WrapCell(i, c); };
  }
  absl::StatusOr<Run> run;
  {
    asmgr::RackOpenOptions options;  // named: g++ 12 warns of a temporary's std::function
    options.wrap = wrap;
    auto rack = asmgr::Rack::Create(io.get(), clock, dir + "/r", asmgr::DefaultRackConfig(),
                                    options);
    if (!rack.ok()) return rack.status();
    auto db = db::Database::Create(rack->get());
    if (!db.ok()) return db.status();
    auto session = (*db)->NewSession();
    (void)session->Execute("alter session set \"_cell_fast_file_create\" = false");
    const auto t0 = std::chrono::steady_clock::now();
    auto r = session->Execute("create tablespace t datafile '+DATA' size 1g");
    const auto t1 = std::chrono::steady_clock::now();
    if (!r.ok()) {
      run = r.status();
    } else if (r->path != "zero-fill") {
      run = absl::InternalError("not the zero-fill path");
    } else {
      run = Run{std::chrono::duration<double>(t1 - t0).count(),
                static_cast<double>(r->elapsed_ns) / 1e9};
    }
    session.reset();
    db->reset();
    (void)(*rack)->Close();
  }
  std::filesystem::remove_all(dir);
  return run;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v.size() % 2 == 1 ? v[v.size() / 2]
                                           : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

void BM_ZeroFill1GiB(benchmark::State& state) {
  const bool simulated = state.range(0) == 1;
  for (auto _ : state) {
    absl::StatusOr<Run> r = ZeroFill1GiB(simulated);
    if (!r.ok()) return state.SkipWithError(std::string(r.status().message()).c_str());
    state.SetIterationTime(r->wall_s);
    state.counters["modeled_s"] = r->modeled_s;
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * (1ll << 30));
}
BENCHMARK(BM_ZeroFill1GiB)->ArgName("simulated")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)
    ->UseManualTime()->Iterations(3);

// The pair in alternating order; the iteration's time is the simulated run's.
void BM_SimulatedOverReal(benchmark::State& state) {
  std::vector<double> real_s, simulated_s, ratio, modeled_s;
  for (auto _ : state) {
    Run pair[2];
    const bool simulated_first = real_s.size() % 2 == 1;
    for (bool simulated : {simulated_first, !simulated_first}) {
      absl::StatusOr<Run> r = ZeroFill1GiB(simulated);
      if (!r.ok()) return state.SkipWithError(std::string(r.status().message()).c_str());
      pair[simulated ? 1 : 0] = *r;
    }
    state.SetIterationTime(pair[1].wall_s);
    real_s.push_back(pair[0].wall_s);
    simulated_s.push_back(pair[1].wall_s);
    ratio.push_back(pair[1].wall_s / pair[0].wall_s);
    modeled_s.push_back(pair[1].modeled_s);
  }
  state.counters["real_s"] = Median(real_s);
  state.counters["simulated_s"] = Median(simulated_s);
  state.counters["ratio"] = Median(ratio);  // median of the pair ratios
  state.counters["modeled_s"] = Median(modeled_s);
  state.counters["modeled_spread_s"] =
      *std::max_element(modeled_s.begin(), modeled_s.end()) -
      *std::min_element(modeled_s.begin(), modeled_s.end());  // 0: deterministic
}
BENCHMARK(BM_SimulatedOverReal)->Unit(benchmark::kMillisecond)->UseManualTime()->Iterations(5);

}  // namespace

BENCHMARK_MAIN();
