// Cell benchmarks (Release build):
//   BM_RandomWrite8K/mode:0|1/direct:0|1  8 KiB random writes through a cell,
//                               write-back (0) vs write-through (1); one request
//                               per call, acknowledged when durable; grid disks
//                               and flash buffered (0) or O_DIRECT (1).
//   BM_RandomWrite8KWriters/direct:0|1/devices:1|2/threads:1|8  write-back,
//                               1 vs 8 concurrent writers (group commit:
//                               syncs_per_write < 1 with 8); devices:2 puts
//                               the grid disks on another filesystem than
//                               flash.img ($CELLSIM_BENCH_GRID_DIR, default
//                               /dev/shm; buffered only), as a cell's hard
//                               disks are other devices than its flash cards
//   BM_PeerSyncedPages/pages:1|8  the device's own group commit: N random
//                               8 KiB pages + a journal write per fdatasync
//   BM_FormatRange1GiB/path:0|1 format 1 GiB as 256 x 4 MiB format-range requests
//                               in one batch: fast (0, metadata only) vs smart
//                               (1, blocks written to the grid disk).
// The write benchmarks measure a cell in its steady state (Precondition: a
// full cache whose new lines evict old ones while the cleaner destages).
// Files live in a temporary folder under $TMPDIR (default /tmp), removed at the
// end; grid disks are sparse. The backend is io_uring, or POSIX where io_uring
// is refused (the label says which).
#include <benchmark/benchmark.h>

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "cellsim/base/clock.h"
#include "cellsim/cell/cell.h"

namespace cellsim::cell {
namespace {

struct Bench {
  std::string dir;
  std::string grid_dir;  // the grid disks' own folder (devices:2), or empty
  std::unique_ptr<io::IoBackend> io;
  std::string backend;
  std::unique_ptr<Cell> cell;

  ~Bench() {
    if (cell) (void)cell->Close();
    cell.reset();
    std::error_code ec;
    if (!dir.empty()) std::filesystem::remove_all(dir, ec);
    if (!grid_dir.empty()) std::filesystem::remove_all(grid_dir, ec);
  }
};

absl::StatusOr<std::string> MakeTempDir(const char* base) {
  std::string tmpl = std::string(base) + "/cellsim-bench.XXXXXX";
  if (mkdtemp(tmpl.data()) == nullptr) {
    return absl::FailedPreconditionError(
        fmt::format("cannot create a folder in {}: {}", base, std::strerror(errno)));
  }
  return tmpl;
}

// The cell's grid disk files become symlinks into a new folder under
// `grid_base` (the cell creates them through the links): flash.img and the
// grid disks then sit on different filesystems, and the cleaner's destage
// writes and syncs do not queue on flash.img's device.
absl::Status PlaceGridDisksIn(Bench* b, const CellConfig& config, const char* grid_base) {
  absl::StatusOr<std::string> grid = MakeTempDir(grid_base);
  if (!grid.ok()) return grid.status();
  b->grid_dir = *grid;
  const std::string cell_dir = b->dir + "/" + config.name;
  std::error_code ec;
  std::filesystem::create_directories(cell_dir, ec);
  for (const GridDiskSpec& g : config.grid_disks) {
    for (uint32_t n = 0; n < config.cell_disks; ++n) {
      const std::string file = GridDiskFileName(GridDiskName(g.prefix, n, config.name));
      std::filesystem::create_symlink(b->grid_dir + "/" + file, cell_dir + "/" + file, ec);
      if (ec) return absl::InternalError(fmt::format("symlink {}: {}", file, ec.message()));
    }
  }
  return absl::OkStatus();
}

absl::Status Setup(Bench* b, const CellConfig& config, bool separate_grid_device = false) {
  const char* base = std::getenv("TMPDIR");
  absl::StatusOr<std::string> dir = MakeTempDir(base && *base ? base : "/tmp");
  if (!dir.ok()) return dir.status();
  b->dir = *dir;
  if (separate_grid_device) {
    const char* grid = std::getenv("CELLSIM_BENCH_GRID_DIR");
    if (absl::Status s = PlaceGridDisksIn(b, config, grid && *grid ? grid : "/dev/shm");
        !s.ok()) {
      return s;
    }
  }
  auto uring = io::MakeUringBackend({.queue_depth = 32});
  if (uring.ok()) {
    b->io = std::move(*uring);
  } else {
    b->io = io::MakePosixBackend();
  }
  b->backend = b->io->Name();
  // The flash device laid out like fio's file (fio writes its file before it
  // measures): no slot write lands in a hole of flash.img.
  auto cell = Cell::Create(b->io.get(), SystemClock(), b->dir + "/" + config.name, config,
                           {.start_cleaner = true, .lay_out_flash = true});
  if (!cell.ok()) return cell.status();
  b->cell = std::move(*cell);
  return absl::OkStatus();
}

// Brings a write-back cell to its steady state before it is measured: random
// 8 KiB writes over its 1 GiB grid disk (64 per request batch, so this takes a
// fraction of a second) until the cache has taken 1.25 lines per slot, so that
// every slot is in use and new lines evict old ones, as they do through the
// measured run. (A cell measured from empty would count its first few thousand
// writes, which need no eviction and leave nothing to destage, at a rate it
// cannot keep.)
absl::Status Precondition(Cell* cell, std::mt19937_64& rng) {
  const uint64_t slots = cell->CacheCapacityBytes() / cell->config().cache_line_size;
  std::vector<uint8_t> data(8192, 0x3C);
  for (uint64_t done = 0; done < slots + slots / 4;) {
    std::vector<WriteRequest> w;
    for (int i = 0; i < 64; ++i, ++done) {
      w.push_back({.grid_disk = 0, .offset = (rng() % (1 * kGiB / 8192)) * 8192, .data = data});
    }
    if (absl::Status s = cell->Write(absl::MakeSpan(w), nullptr); !s.ok()) return s;
  }
  return absl::OkStatus();
}

uint64_t Percentile(std::vector<uint64_t>& v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())))];
}

void BM_RandomWrite8K(benchmark::State& state) {
  const bool write_through = state.range(0) == 1;
  CellConfig c;
  c.cell_disks = 1;
  c.grid_disks = {{"DATA", 1 * kGiB}};
  c.flash_size_bytes = 256 * kMiB;
  c.direct_io = state.range(1) == 1;
  c.flash_cache_mode = write_through ? FlashCacheMode::kWriteThrough : FlashCacheMode::kWriteBack;
  Bench b;
  if (absl::Status s = Setup(&b, c); !s.ok()) {
    state.SkipWithError(std::string(s.message()).c_str());
    return;
  }
  std::mt19937_64 rng(1);
  if (absl::Status s = Precondition(b.cell.get(), rng); !s.ok()) {
    state.SkipWithError(std::string(s.message()).c_str());
    return;
  }
  std::vector<uint8_t> data(8192, 0x5A);
  std::vector<uint64_t> lat;
  const io::IoBackendCounters before = b.io->Counters();
  for (auto _ : state) {
    std::vector<WriteRequest> w = {
        {.grid_disk = 0, .offset = (rng() % (1 * kGiB / 8192)) * 8192, .data = data}};
    CellIoStats st;
    const uint64_t t0 = SystemClock()->NowNanos();
    absl::Status s = b.cell->Write(absl::MakeSpan(w), &st);
    lat.push_back(SystemClock()->NowNanos() - t0);
    if (!s.ok()) {
      state.SkipWithError(std::string(s.message()).c_str());
      break;
    }
  }
  state.SetBytesProcessed(state.iterations() * 8192);
  state.counters["IOPS"] = benchmark::Counter(static_cast<double>(state.iterations()),
                                              benchmark::Counter::kIsRate);
  state.counters["p50_us"] = static_cast<double>(Percentile(lat, 0.50)) / 1e3;
  state.counters["p99_us"] = static_cast<double>(Percentile(lat, 0.99)) / 1e3;
  // Load-independent: fdatasyncs and io_uring submissions per durable write
  // (the cleaner's destage I/O included).
  const io::IoBackendCounters after = b.io->Counters();
  const double n = static_cast<double>(std::max<uint64_t>(1, state.iterations()));
  state.counters["syncs_per_write"] = static_cast<double>(after.syncs - before.syncs) / n;
  state.counters["submits_per_write"] = static_cast<double>(after.submits - before.submits) / n;
  state.SetLabel(std::string(write_through ? "WriteThrough" : "WriteBack") +
                 (c.direct_io ? " O_DIRECT " : " buffered ") + b.backend);
}
BENCHMARK(BM_RandomWrite8K)
    ->ArgNames({"mode", "direct"})
    ->ArgsProduct({{0, 1}, {0, 1}})
    ->UseRealTime()
    ->MinTime(2.0);

// The same durable 8 KiB random writes to one write-back cell from 1 or 8
// threads, one request each at a time: concurrent writers share journal
// chunks and syncs (group commit), so 8 writers should reach well above the
// one-writer IOPS. syncs_per_write = flash/disk fdatasyncs per write.
// devices:1 has every file on $TMPDIR's one device: there the cleaner's
// destage (a random write per write, and a grid disk sync per batch) shares
// the device with the flash journal, which 8 writers keep busy. devices:2
// gives the grid disks a device of their own, as a cell has.
std::unique_ptr<Bench> shared_bench;
std::atomic<uint64_t> shared_writes{0};
void BM_RandomWrite8KWriters(benchmark::State& state) {
  if (state.thread_index() == 0) {
    CellConfig c;
    c.cell_disks = 1;
    c.grid_disks = {{"DATA", 1 * kGiB}};
    c.flash_size_bytes = 256 * kMiB;
    c.direct_io = state.range(0) == 1;
    shared_bench = std::make_unique<Bench>();
    shared_writes = 0;
    std::mt19937_64 rng(99);
    absl::Status s = Setup(shared_bench.get(), c, /*separate_grid_device=*/state.range(1) == 2);
    if (s.ok()) s = Precondition(shared_bench->cell.get(), rng);
    if (!s.ok()) state.SkipWithError(std::string(s.message()).c_str());
  }
  std::mt19937_64 rng(static_cast<uint64_t>(state.thread_index()) + 1);
  std::vector<uint8_t> data(8192, static_cast<uint8_t>(0x5A + state.thread_index()));
  uint64_t syncs0 = 0;
  for (auto _ : state) {
    if (shared_bench->cell == nullptr) {  // thread 0's set-up failed
      state.SkipWithError("set-up failed");
      break;
    }
    if (syncs0 == 0) syncs0 = shared_bench->io->Counters().syncs + 1;
    std::vector<WriteRequest> w = {
        {.grid_disk = 0, .offset = (rng() % (1 * kGiB / 8192)) * 8192, .data = data}};
    if (absl::Status s = shared_bench->cell->Write(absl::MakeSpan(w), nullptr); !s.ok()) {
      state.SkipWithError(std::string(s.message()).c_str());
      break;
    }
    shared_writes.fetch_add(1);
  }
  state.counters["IOPS"] = benchmark::Counter(static_cast<double>(state.iterations()),
                                              benchmark::Counter::kIsRate);
  if (state.thread_index() == 0 && shared_bench->cell != nullptr) {
    const uint64_t syncs = shared_bench->io->Counters().syncs + 1 - syncs0;
    // Only this thread sets it (thread counters are summed).
    state.counters["syncs_per_write"] =
        static_cast<double>(syncs) / static_cast<double>(std::max<uint64_t>(1, shared_writes));
    state.SetLabel(fmt::format("WriteBack {} writers {} {}{}", state.threads(),
                               state.range(0) == 1 ? "O_DIRECT" : "buffered",
                               shared_bench->backend,
                               shared_bench->grid_dir.empty()
                                   ? ""
                                   : " grid disks in " + shared_bench->grid_dir));
  }
}
BENCHMARK(BM_RandomWrite8KWriters)
    ->ArgNames({"direct", "devices"})
    ->Args({0, 1})
    ->Args({1, 1})
    ->Args({0, 2})
    ->Threads(1)
    ->Threads(8)
    ->UseRealTime()
    ->MinTime(2.0);

// The peer of the group-commit pair: what this device gives a perfect group
// commit. One thread writes N random 8 KiB pages into a laid-out 256 MiB file
// (a flash.img's slots) and one sequential write of 4 KiB + N x 8 KiB (a
// journal chunk carrying them), then fdatasync: N durable writes per sync,
// no waiting for writers, no cache, no cleaner. IOPS(N=8) / IOPS(N=1) is the
// most that 8 writers sharing syncs can gain over one on this device.
void BM_PeerSyncedPages(benchmark::State& state) {
  const auto pages = static_cast<uint64_t>(state.range(0));
  const char* base = std::getenv("TMPDIR");
  absl::StatusOr<std::string> dir = MakeTempDir(base && *base ? base : "/tmp");
  if (!dir.ok()) {
    state.SkipWithError(std::string(dir.status().message()).c_str());
    return;
  }
  const std::string path = *dir + "/peer.img";
  constexpr uint64_t kFile = 256 * kMiB, kJournal = 16 * kMiB;
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT, 0644);
  std::vector<uint8_t> buf(1 * kMiB, 0x5A);
  bool ok = fd >= 0;
  for (uint64_t o = 0; ok && o < kFile; o += buf.size()) {
    ok = ::pwrite(fd, buf.data(), buf.size(), static_cast<off_t>(o)) ==
         static_cast<ssize_t>(buf.size());
  }
  ok = ok && ::fsync(fd) == 0;
  std::mt19937_64 rng(7);
  uint64_t tail = 0;
  const uint64_t chunk = 4 * kKiB + pages * 8 * kKiB;
  for (auto _ : state) {
    if (!ok) break;
    for (uint64_t i = 0; i < pages; ++i) {
      const uint64_t slot = kJournal + (rng() % ((kFile - kJournal) / (8 * kKiB))) * 8 * kKiB;
      ok = ok && ::pwrite(fd, buf.data(), 8 * kKiB, static_cast<off_t>(slot)) == 8 * 1024;
    }
    if (tail + chunk > kJournal) tail = 0;
    ok = ok && ::pwrite(fd, buf.data(), chunk, static_cast<off_t>(tail)) ==
                   static_cast<ssize_t>(chunk);
    tail += chunk;
    ok = ok && ::fdatasync(fd) == 0;
  }
  if (!ok) state.SkipWithError(fmt::format("{}: {}", path, std::strerror(errno)).c_str());
  if (fd >= 0) ::close(fd);
  std::error_code ec;
  std::filesystem::remove_all(*dir, ec);
  state.counters["IOPS"] = benchmark::Counter(static_cast<double>(state.iterations() * pages),
                                              benchmark::Counter::kIsRate);
  state.SetLabel(fmt::format("{} pages per fdatasync, buffered", pages));
}
BENCHMARK(BM_PeerSyncedPages)->ArgName("pages")->Arg(1)->Arg(8)->UseRealTime()->MinTime(2.0);

void BM_FormatRange1GiB(benchmark::State& state) {
  const bool smart = state.range(0) == 1;
  CellConfig c;
  c.cell_disks = 1;
  c.grid_disks = {{"DATA", 1 * kGiB}};
  c.flash_size_bytes = 64 * kMiB;
  Bench b;
  if (absl::Status s = Setup(&b, c); !s.ok()) {
    state.SkipWithError(std::string(s.message()).c_str());
    return;
  }
  const format::BlockTemplate t{.kind = format::BlockKind::kData, .block_size = 8192,
                                .file_number = 7, .file_blocks = 1 * kGiB / 8192};
  uint64_t disk_bytes = 0;
  for (auto _ : state) {
    std::vector<FormatRangeRequest> f;
    for (uint64_t off = 0; off < 1 * kGiB; off += 4 * kMiB) {
      f.push_back({.grid_disk = 0, .offset = off, .length = 4 * kMiB, .block_template = t,
                   .file_offset = off,
                   .method = smart ? FormatMethod::kWriteBlocks : FormatMethod::kMetadataOnly});
    }
    CellIoStats st;
    absl::Status s = b.cell->FormatRange(absl::MakeSpan(f), &st);
    if (!s.ok()) {
      state.SkipWithError(std::string(s.message()).c_str());
      break;
    }
    disk_bytes += st.disk_bytes_written;
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(1 * kGiB));
  state.counters["disk_MiB_per_iter"] =
      static_cast<double>(disk_bytes) / static_cast<double>(state.iterations()) / kMiB;
  state.SetLabel(std::string(smart ? "smart" : "fast") + " " + b.backend);
}
BENCHMARK(BM_FormatRange1GiB)->ArgName("path")->Arg(0)->Arg(1)->UseRealTime()
    ->Unit(benchmark::kMillisecond)->MinTime(2.0);

// Fast creation's per-range cost at one cell: N format-range requests of one
// 4 MiB AU each (metadata only, one FormatRange call, as ASM sends a cell its
// AU copies) on a sparse 128 GiB grid disk; a fresh cell per iteration (not
// timed). N = 256 and 16384 give the marginal cost per AU copy:
// (t(16384) - t(256)) / 16128, printed by scripts/bench_compare.sh --scaling.
void BM_FormatRangeAus(benchmark::State& state) {
  const auto n = static_cast<uint64_t>(state.range(0));
  CellConfig c;
  c.cell_disks = 1;
  c.grid_disks = {{"DATA", 128 * kGiB}};
  c.flash_size_bytes = 64 * kMiB;
  // 16 KiB blocks: a 64 GiB data file fits the 2^22 blocks a file addresses.
  const format::BlockTemplate t{.kind = format::BlockKind::kData, .block_size = 16384,
                                .file_number = 7, .file_blocks = n * 4 * kMiB / 16384};
  std::string backend;
  for (auto _ : state) {
    state.PauseTiming();
    auto b = std::make_unique<Bench>();
    absl::Status s = Setup(b.get(), c);
    std::vector<FormatRangeRequest> f;
    // Every other AU: the copies of one file on one disk are not adjacent.
    for (uint64_t i = 0; i < n; ++i) {
      f.push_back({.grid_disk = 0, .offset = 2 * i * 4 * kMiB, .length = 4 * kMiB,
                   .block_template = t, .file_offset = i * 4 * kMiB,
                   .method = FormatMethod::kMetadataOnly});
    }
    state.ResumeTiming();
    if (s.ok()) s = b->cell->FormatRange(absl::MakeSpan(f), nullptr);
    state.PauseTiming();
    if (!s.ok()) {
      state.SkipWithError(std::string(s.message()).c_str());
      break;
    }
    backend = b->backend;
    b.reset();  // closes the cell and removes its files (not timed)
    state.ResumeTiming();
  }
  state.counters["us_per_range"] = benchmark::Counter(
      static_cast<double>(state.iterations() * n), benchmark::Counter::kIsRate |
                                                       benchmark::Counter::kInvert);
  state.SetLabel(fmt::format("fast, {} x 4 MiB ranges {}", n, backend));
}
BENCHMARK(BM_FormatRangeAus)->ArgName("ranges")->Arg(256)->Arg(16384)->UseRealTime()
    ->Unit(benchmark::kMillisecond)->Iterations(5);

}  // namespace
}  // namespace cellsim::cell

BENCHMARK_MAIN();
