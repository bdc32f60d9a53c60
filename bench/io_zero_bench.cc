// Sequential zero-fill through the io_uring backend with O_DIRECT, across
// block sizes (128 KiB, 1 MiB, 4 MiB) and queue depths (1, 8, 32): the engine
// behind `cellsim io zero` and the database's zero-fill creation path.
//
//   build/release/bench/io_zero_bench [--benchmark_filter=...]
//   CELLSIM_BENCH_DIR=/fast/disk CELLSIM_BENCH_SIZE=1g build/release/bench/io_zero_bench
//
// Each iteration zero-fills a fresh file of CELLSIM_BENCH_SIZE (default
// 256 MiB) in CELLSIM_BENCH_DIR (default: the current directory); the file is
// deleted afterwards. Counters: bytes/s, and p50/p99 request latency (us).
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "benchmark/benchmark.h"
#include "cellsim/base/units.h"
#include "cellsim/io/io_backend.h"
#include "cellsim/io/zero_fill.h"

namespace cellsim::io {
namespace {

std::string BenchDir() {
  const char* d = std::getenv("CELLSIM_BENCH_DIR");
  return d != nullptr && *d != '\0' ? d : ".";
}

uint64_t BenchSize() {
  const char* s = std::getenv("CELLSIM_BENCH_SIZE");
  if (s == nullptr || *s == '\0') return 256 * kMiB;
  auto parsed = ParseSize(s);
  return parsed.ok() ? *parsed : 256 * kMiB;
}

void BM_ZeroFill(benchmark::State& state) {
  const auto block = static_cast<uint32_t>(state.range(0));
  const auto depth = static_cast<unsigned>(state.range(1));
  const uint64_t size = AlignDown(BenchSize(), block);
  const std::string path = BenchDir() + "/cellsim_io_zero_bench.img";
  auto io = MakeUringBackend({.queue_depth = depth});
  if (!io.ok()) {
    state.SkipWithError(std::string(io.status().message()).c_str());
    return;
  }
  auto filler = ZeroFiller::Create(io->get(), {.block_size = block});
  if (!filler.ok()) {
    state.SkipWithError(std::string(filler.status().message()).c_str());
    return;
  }
  LatencyHistogram p50s, p99s;  // of the per-iteration percentiles
  uint64_t bytes = 0;
  for (auto _ : state) {
    state.PauseTiming();
    ::unlink(path.c_str());
    auto f = (*io)->Open(path, {.create = true, .truncate = true, .direct = true});
    state.ResumeTiming();
    if (!f.ok()) {
      state.SkipWithError(std::string(f.status().message()).c_str());
      break;
    }
    auto r = (*filler)->Fill(*f, 0, size);
    state.PauseTiming();
    (void)(*io)->Close(*f);
    state.ResumeTiming();
    if (!r.ok()) {
      state.SkipWithError(std::string(r.status().message()).c_str());
      break;
    }
    bytes += r->bytes;
    p50s.Record(r->p50_ns);
    p99s.Record(r->p99_ns);
  }
  ::unlink(path.c_str());
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
  state.counters["p50_us"] = static_cast<double>(p50s.Percentile(0.5)) / 1e3;
  state.counters["p99_us"] = static_cast<double>(p99s.Percentile(0.5)) / 1e3;
}

BENCHMARK(BM_ZeroFill)
    ->ArgNames({"block", "qd"})
    ->ArgsProduct({{128 << 10, 1 << 20, 4 << 20}, {1, 8, 32}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(3);

}  // namespace
}  // namespace cellsim::io

BENCHMARK_MAIN();
