// A large AlignedBuffer made, touched and destroyed over and over (what a
// cell's open, a cache write's staging slab and a resync batch do), beside
// its peer in the same run: the same aligned, zeroed block from
// std::aligned_alloc and freed, which is what AlignedBuffer did before the
// buffer cache (cellsim/io/buffer_cache.h, docs/io.md).
//
//   build/release/bench/io_buffer_bench [--benchmark_filter=...]
//
// Each iteration zeroes the block (as AlignedBuffer does) and writes one
// byte per 4 KiB page of it (as a read into it would); counters: bytes/s and
// page faults per iteration (getrusage).
#include <sys/mman.h>
#include <sys/resource.h>

#include <cstdlib>
#include <cstring>
#include <new>

#include "benchmark/benchmark.h"
#include "cellsim/io/buffer_cache.h"
#include "cellsim/io/io_backend.h"

namespace cellsim::io {
namespace {

using internal::kHugePage;

long MinorFaults() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_minflt;
}

void TouchPages(uint8_t* p, size_t bytes) {
  for (size_t i = 0; i < bytes; i += 4096) p[i] = static_cast<uint8_t>(i >> 12);
  benchmark::DoNotOptimize(p);
}

void Report(benchmark::State& state, size_t bytes, long faults) {
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
  state.counters["faults_per_iter"] =
      benchmark::Counter(static_cast<double>(faults) / static_cast<double>(state.iterations()));
}

void BM_AlignedBuffer(benchmark::State& state) {
  const auto bytes = static_cast<size_t>(state.range(0));
  const long f0 = MinorFaults();
  for (auto _ : state) {
    AlignedBuffer b(bytes);
    TouchPages(b.data(), b.size());
  }
  Report(state, bytes, MinorFaults() - f0);
}

// The peer: AlignedBuffer's allocation without the cache.
void BM_PeerAlignedAlloc(benchmark::State& state) {
  const auto bytes = static_cast<size_t>(state.range(0));
  const size_t align = bytes >= kHugePage ? kHugePage : 4096;
  const long f0 = MinorFaults();
  for (auto _ : state) {
    auto* p = static_cast<uint8_t*>(std::aligned_alloc(align, bytes));
    if (p == nullptr) throw std::bad_alloc();
    if (align == kHugePage) (void)madvise(p, bytes, MADV_HUGEPAGE);
    std::memset(p, 0, bytes);
    TouchPages(p, bytes);
    std::free(p);
  }
  Report(state, bytes, MinorFaults() - f0);
}

// 1 MiB: an AU's resync or scrub buffer; 4 MiB: a cell's journal read at
// open; 16 MiB: a cell's staging slab; 64 MiB: a zero-fill batch buffer.
BENCHMARK(BM_AlignedBuffer)->Arg(1 << 20)->Arg(4 << 20)->Arg(16 << 20)->Arg(64 << 20);
BENCHMARK(BM_PeerAlignedAlloc)->Arg(1 << 20)->Arg(4 << 20)->Arg(16 << 20)->Arg(64 << 20);

}  // namespace
}  // namespace cellsim::io

BENCHMARK_MAIN();
