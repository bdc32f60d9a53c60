// What the simulated clock costs: a real 1 GiB zero-fill (CREATE TABLESPACE ...
// SIZE 1G by the zero-fill path, NORMAL redundancy: 2 GiB written to the grid
// disks) on a default rack (3 cells x 12 disks), timed in wall-clock seconds,
// with the real clock and with the simulated clock (profile x3-2, quarter
// rack: the same shape; every cell request charged to the device model; the
// data still written). Same database options in both, so the difference is
// the clock: the device model, and running fork-join work in order.
//
//   build/release/bench/sim_clock_bench --benchmark_repetitions=3
//
// Read the ratio simulated / real of the same run (docs/sim.md).
#include <benchmark/benchmark.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>

#include "cellsim/asm/rack.h"
#include "cellsim/db/database.h"
#include "cellsim/io/io_backend.h"
#include "cellsim/sim/simulation.h"

namespace {

using namespace cellsim;  // NOLINT

std::string MakeTemp() {
  const char* t = getenv("TMPDIR");
  std::string p = std::string(t != nullptr && *t != '\0' ? t : "/tmp") + "/cellsim-simbench-XXXXXX";
  return mkdtemp(p.data()) != nullptr ? p : "";
}

void BM_ZeroFill1GiB(benchmark::State& state) {
  const bool simulated = state.range(0) == 1;
  for (auto _ : state) {
    state.PauseTiming();
    const std::string dir = MakeTemp();
    if (dir.empty()) return state.SkipWithError("cannot create a temporary directory");
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
    auto rack = asmgr::Rack::Create(io.get(), clock, dir + "/r", asmgr::DefaultRackConfig(),
                                    asmgr::RackOpenOptions{.wrap = wrap});
    if (!rack.ok()) return state.SkipWithError(std::string(rack.status().message()).c_str());
    auto db = db::Database::Create(rack->get());
    if (!db.ok()) return state.SkipWithError(std::string(db.status().message()).c_str());
    auto session = (*db)->NewSession();
    (void)session->Execute("alter session set \"_cell_fast_file_create\" = false");
    state.ResumeTiming();
    auto r = session->Execute("create tablespace t datafile '+DATA' size 1g");
    state.PauseTiming();
    if (!r.ok()) return state.SkipWithError(std::string(r.status().message()).c_str());
    if (r->path != "zero-fill") return state.SkipWithError("not the zero-fill path");
    state.counters["modeled_s"] = static_cast<double>(r->elapsed_ns) / 1e9;
    session.reset();
    db->reset();
    (void)(*rack)->Close();
    rack->reset();
    std::filesystem::remove_all(dir);
    state.ResumeTiming();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * (1ll << 30));
}
BENCHMARK(BM_ZeroFill1GiB)->ArgName("simulated")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)
    ->UseRealTime()->Iterations(3);

}  // namespace

BENCHMARK_MAIN();
