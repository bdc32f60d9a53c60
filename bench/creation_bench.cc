// File-creation benchmarks over cellsim's public API (docs/benchmarks.md):
//
//   BM_Create/path:P/logical_mib:N/red:R/au_mib:A/members:M/io:IO
//       `alter database add logfile thread 2 group 5 ('+DATA','+RECO') size S`
//       (M members alternating +DATA/+RECO, S = N/M MiB each) by path P
//       (zero-fill, smart, fast), both disk groups of redundancy R and AU A MiB,
//       grid disks buffered or O_DIRECT (IO = buffered | direct).
//   BM_FastScaling/logical_gib:N
//       the same by the fast path, NORMAL, AU 4 MiB, 2 members, N = 1 .. 64 GiB:
//       time and metadata bytes persisted per created GiB.
//   BM_FastScalingOneMember/logical_gib:N
//       the same with one member (16, 32, 64 GiB; only when a filter asks).
//   BM_ReadAfterCreate/path:P/logical_mib:N/io:IO
//       sequential read (DiskGroup::Read, 32 x 1 MiB per call) of the members a
//       path just created, page cache dropped first: blocks generated from
//       fast-creation metadata are counted apart from blocks read from disk.
//   BM_PeerFallocateZeroRange/file_mib:N/files:F
//       the kernel's metadata-only peer: F new files, fallocate(FALLOC_FL_ZERO_RANGE)
//       of N MiB each, then one fsync per file (what `fallocate --zero-range`
//       followed by `sync FILE` does).
//
// Every creation iteration builds a fresh rack (asmgr::Rack::Create +
// db::Database::Create, session parameters) before timing and removes it
// after; only Session::Execute is timed (UseManualTime). Racks live in a
// mkdtemp folder under $TMPDIR (default /tmp), removed at exit; grid disks are
// sparse and sized from the requested size. The default run (no
// --benchmark_filter) keeps to small sizes; larger ones are registered too and
// run when a filter selects them, e.g.
//   creation_bench --benchmark_filter='BM_Create/path:zero-fill/logical_mib:8192/'
//
// Own flags (before Google Benchmark's):
//   --cs_iterations=N   iterations per case (default: 3 up to 256 MiB logical,
//                       2 up to 1 GiB, then 1; fast creation and peers 3)
//   --cs_cells=3 --cs_cell_disks=12   rack shape (a real cell has 12 disks)
//   --cs_backend=io_uring|posix       (io_uring refused: the case is skipped)
//   --cs_queue_depth=32
// CELLSIM_PERF_CTL=CTL,ACK (environment): perf's control descriptors
// (`perf record --delay=-1 --control fd:CTL,ACK`): events are on during each
// timed statement only (docs/benchmarks.md "Profiling the statement alone").
// Nothing is ever faked: a refused kernel feature (io_uring, O_DIRECT,
// FALLOC_FL_ZERO_RANGE) or any error skips the case with the reason
// (state.SkipWithError, "error_message" in the JSON).
#include <fcntl.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "bench/counting_backend.h"
#include "bench/creation_env.h"
#include "cellsim/asm/rack.h"
#include "cellsim/base/clock.h"
#include "cellsim/base/units.h"
#include "cellsim/cell/cell.h"
#include "cellsim/db/database.h"
#include "cellsim/io/io_backend.h"
#include "cellsim/stats/statistics.h"

namespace cellsim::bench {
namespace {

using stats::Stat;
using stats::Wait;

double PerIter(benchmark::State& state, uint64_t v) {
  return static_cast<double>(v) / static_cast<double>(std::max<int64_t>(1, state.iterations()));
}

void Report(benchmark::State& state, const Case& c, const Totals& t) {
  using benchmark::Counter;
  const double secs = static_cast<double>(t.ns) / 1e9;
  const auto n = static_cast<double>(std::max<int64_t>(1, state.iterations()));
  auto per = [&](uint64_t v) { return PerIter(state, v); };
  auto rate = [&](uint64_t v) { return secs > 0 ? static_cast<double>(v) / secs : 0.0; };
  const ClassCounts& disk = t.io.Of(FileClass::kGridDisk);
  const ClassCounts& flash = t.io.Of(FileClass::kFlash);
  const ClassCounts& asm_meta = t.io.Of(FileClass::kAsmMeta);
  const auto stat = [&](Stat s) { return static_cast<uint64_t>(std::max<int64_t>(0, t.stats[s])); };
  const stats::WaitValue& w = t.waits[MainWait(c.path)];
  auto& k = state.counters;
  state.SetBytesProcessed(static_cast<int64_t>(t.logical));
  // Case parameters, as numbers, for scripts.
  k["logical_bytes"] = per(t.logical);
  k["copies"] = asmgr::Copies(c.redundancy);
  k["au_mib"] = static_cast<double>(c.au / kMiB);
  k["members"] = c.members;
  k["direct"] = c.direct ? 1 : 0;
  k["path_id"] = static_cast<double>(static_cast<int>(c.path));
  // Throughput: logical bytes, Oracle's physical write bytes, bytes on disks.
  k["logical_Bps"] = rate(t.logical);
  k["oracle_write_Bps"] = rate(stat(Stat::kPhysicalWriteTotalBytes));
  k["disk_write_Bps"] = rate(disk.write_bytes);
  // Bytes per statement.
  k["oracle_write_bytes"] = per(stat(Stat::kPhysicalWriteTotalBytes));
  k["disk_write_bytes"] = per(disk.write_bytes);
  k["disk_syncs"] = per(disk.syncs);
  // Average grid-disk writes in flight over the statement (Little's law):
  // scripts/bench_compare.sh runs fio at this iodepth.
  k["disk_writes_in_flight"] =
      t.ns > 0 ? static_cast<double>(disk.write_busy_ns) / static_cast<double>(t.ns) : 0.0;
  k["flash_write_bytes"] = per(flash.write_bytes);
  k["flash_data_bytes"] = per(t.io.flash_data_write_bytes);
  k["cell_meta_bytes"] = per(t.io.flash_meta_write_bytes);
  k["asm_meta_bytes"] = per(asm_meta.write_bytes);
  k["meta_bytes"] = per(t.io.flash_meta_write_bytes + asm_meta.write_bytes);
  k["flash_syncs"] = per(flash.syncs);
  k["template_ranges"] = per(t.template_ranges);
  k["extents"] = per(t.extents);
  // Key Oracle statistics of the statement.
  k["saved_bytes"] = per(stat(Stat::kCellPhysicalIoBytesSavedDuringOptimizedFileCreation));
  k["write_requests"] = per(stat(Stat::kPhysicalWriteTotalIoRequests));
  k["multi_block_requests"] = per(stat(Stat::kPhysicalWriteTotalMultiBlockRequests));
  k["interconnect_bytes"] = per(stat(Stat::kCellPhysicalIoInterconnectBytes));
  // The main wait ("Log file init write" / "cell smart file creation"): count,
  // time, and p50/p99 of its histogram (power-of-two us buckets, as
  // v$event_histogram_micro: a percentile is its bucket's upper edge, capped
  // at the longest wait).
  k["wait_count"] = static_cast<double>(w.count) / n;
  k["wait_s"] = static_cast<double>(w.total_ns) / 1e9 / n;
  k["wait_p50_us"] = static_cast<double>(stats::WaitPercentileNs(w, 0.50)) / 1e3;
  k["wait_p99_us"] = static_cast<double>(stats::WaitPercentileNs(w, 0.99)) / 1e3;
  k["wait_max_us"] = static_cast<double>(w.max_ns) / 1e3;
  k["cpu_s"] = static_cast<double>(t.cpu_ns) / 1e9 / n;
  // Where the rest of the statement's time goes (seconds per statement).
  auto secs_of = [&](Wait x) { return static_cast<double>(t.waits[x].total_ns) / 1e9 / n; };
  k["asm_alloc_s"] = secs_of(Wait::kKsvMasterWait);               // ASM CreateFile
  k["asm_map_s"] = secs_of(Wait::kAsmFileMetadataOperation);      // extent map
  k["cf_write_s"] = secs_of(Wait::kControlFileParallelWrite);
  k["cf_read_s"] = secs_of(Wait::kControlFileSequentialRead);
  k["header_write_s"] = secs_of(Wait::kLogFileSingleWrite);
}

std::string Label(const Case& c, const std::string& backend, const std::string& reason) {
  return fmt::format("{} {} AU {} MiB, {} x {} MiB, {} {} on {} ({})", PathName(c.path),
                     asmgr::RedundancyName(c.redundancy), c.au / kMiB, c.members,
                     c.member_bytes() / kMiB, backend, c.direct ? "O_DIRECT" : "buffered",
                     FsName(g_root), reason);
}

void RunCreate(benchmark::State& state, const Case& c) {
  Totals t;
  std::string backend, reason;
  for (auto _ : state) {
    uint64_t ns = 0;
    db::StatementResult r;
    absl::Status s;
    {
      Env env;
      s = RunOnce(c, &env, &t, &ns, &r);
      if (env.io) backend = env.io->Name();
    }  // the rack is removed here, outside the timed region
    if (!s.ok()) {
      state.SkipWithError(SkipText(s).c_str());
      return;
    }
    reason = r.path_reason;
    state.SetIterationTime(static_cast<double>(ns) / 1e9);
  }
  Report(state, c, t);
  state.SetLabel(Label(c, backend, reason));
}

void RunScaling(benchmark::State& state, const Case& c) {
  RunCreate(state, c);
  if (state.error_occurred()) return;
  auto& k = state.counters;
  const double gib = static_cast<double>(c.logical) / static_cast<double>(kGiB);
  const double secs_per_iter = k["logical_Bps"] > 0 ? static_cast<double>(c.logical) /
                                                          static_cast<double>(k["logical_Bps"])
                                                    : 0;
  k["s_per_GiB"] = secs_per_iter / gib;
  k["meta_bytes_per_GiB"] = k["meta_bytes"] / gib;
  k["cell_meta_bytes_per_GiB"] = k["cell_meta_bytes"] / gib;
  k["asm_meta_bytes_per_GiB"] = k["asm_meta_bytes"] / gib;
}

// ------------------------------------------------------------ read side

// Evicts a rack's files from the page cache (they are clean: the cells
// synced them), so a buffered read goes to the disk as a cold read would.
void DropPageCache(const std::string& dir) {
  std::error_code ec;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir, ec)) {
    if (!e.is_regular_file(ec)) continue;
    const int fd = ::open(e.path().c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    (void)::fdatasync(fd);
    (void)::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    ::close(fd);
  }
}

void RunRead(benchmark::State& state, const Case& c) {
  constexpr uint64_t kRequest = 1 * kMiB;
  constexpr uint64_t kPerCall = 32;
  io::AlignedBuffer buf(kRequest * kPerCall);
  asmgr::AsmIoStats total;
  IoTally tally;
  uint64_t bytes = 0, calls = 0;
  std::string backend;
  for (auto _ : state) {
    Env env;
    Totals ignored;
    uint64_t create_ns = 0;
    db::StatementResult r;
    absl::Status s = RunOnce(c, &env, &ignored, &create_ns, &r);
    if (env.io) backend = env.io->Name();
    struct Member {
      asmgr::DiskGroup* dg;
      asmgr::FileInfo info;
    };
    std::vector<Member> members;
    for (const db::FileCreation& f : r.files) {
      if (!s.ok()) break;
      const std::string dg_name = f.name.substr(1, f.name.find('/') - 1);
      absl::StatusOr<asmgr::DiskGroup*> dg = env.rack->disk_group(dg_name);
      if (!dg.ok()) {
        s = dg.status();
        break;
      }
      absl::StatusOr<asmgr::FileInfo> info = (*dg)->LookupFile(f.name);
      if (!info.ok()) {
        s = info.status();
        break;
      }
      members.push_back({*dg, *info});
    }
    if (!s.ok()) {
      state.SkipWithError(SkipText(s).c_str());
      return;
    }
    DropPageCache(env.dir);
    const IoTally before = env.io->Tally();
    const auto t0 = std::chrono::steady_clock::now();
    for (const Member& m : members) {
      for (uint64_t off = 0; off < m.info.size_bytes && s.ok(); off += kRequest * kPerCall) {
        std::vector<asmgr::AsmReadRequest> reqs;
        for (uint64_t o = off; o < std::min(m.info.size_bytes, off + kRequest * kPerCall);
             o += kRequest) {
          asmgr::AsmReadRequest q;
          q.file_offset = o;
          q.buffer = absl::MakeSpan(buf.data() + (o - off),
                                    std::min(kRequest, m.info.size_bytes - o));
          reqs.push_back(q);
        }
        asmgr::AsmIoResult res;
        s = m.dg->Read(m.info.number, absl::MakeSpan(reqs), &res);
        total += res.io;
        ++calls;
        if (s.ok()) bytes += std::min(kRequest * kPerCall, m.info.size_bytes - off);
      }
    }
    const auto t1 = std::chrono::steady_clock::now();
    if (!s.ok()) {
      state.SkipWithError(SkipText(s).c_str());
      return;
    }
    tally += env.io->Tally() - before;
    state.SetIterationTime(std::chrono::duration<double>(t1 - t0).count());
  }
  auto& k = state.counters;
  auto per = [&](uint64_t v) { return PerIter(state, v); };
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
  k["logical_bytes"] = per(bytes);
  k["path_id"] = static_cast<double>(static_cast<int>(c.path));
  k["direct"] = c.direct ? 1 : 0;
  k["read_calls"] = per(calls);
  // Cell-side counts returned with every reply (CellIoStats).
  k["cell_read_requests"] = per(total.cell_requests);
  k["generated_reads"] = per(total.cell.generated_reads);
  k["generated_bytes"] = per(total.cell.generated_bytes);
  k["cell_disk_read_bytes"] = per(total.cell.disk_bytes_read);
  k["cell_flash_read_bytes"] = per(total.cell.flash_bytes_read);
  k["flash_read_hits"] = per(total.cell.flash_cache_read_hits);
  // The same at the I/O boundary.
  k["disk_read_bytes"] = per(tally.Of(FileClass::kGridDisk).read_bytes);
  k["flash_read_bytes"] = per(tally.Of(FileClass::kFlash).read_bytes);
  state.SetLabel(fmt::format("read after {} creation, {} x {} MiB, {} {} on {}",
                             PathName(c.path), c.members, c.member_bytes() / kMiB, backend,
                             c.direct ? "O_DIRECT" : "buffered", FsName(g_root)));
}

// ------------------------------------------------------------------ peers

void RunPeerFallocate(benchmark::State& state, uint64_t file_bytes, uint32_t files) {
  uint64_t bytes = 0;
  std::string backend;
  for (auto _ : state) {
    absl::StatusOr<std::unique_ptr<CountingBackend>> io = MakeIo();
    if (!io.ok()) {
      state.SkipWithError(SkipText(io.status()).c_str());
      return;
    }
    backend = (*io)->Name();
    absl::StatusOr<std::string> dir = NewDir("fallocate");
    if (!dir.ok()) {
      state.SkipWithError(SkipText(dir.status()).c_str());
      return;
    }
    std::vector<io::FileHandle> fds;
    absl::Status s;
    for (uint32_t i = 0; i < files && s.ok(); ++i) {
      absl::StatusOr<io::FileHandle> f =
          (*io)->Open(fmt::format("{}/peer{}.img", *dir, i), {.create = true, .truncate = true});
      if (f.ok()) fds.push_back(*f);
      s = f.status();
    }
    const auto t0 = std::chrono::steady_clock::now();
    for (io::FileHandle f : fds) {
      if (s.ok()) s = (*io)->Allocate(f, io::AllocateMode::kZeroRange, 0, file_bytes);
    }
    for (io::FileHandle f : fds) {
      if (s.ok()) s = (*io)->Sync(f, io::SyncKind::kFull);
    }
    const auto t1 = std::chrono::steady_clock::now();
    for (io::FileHandle f : fds) (void)(*io)->Close(f);
    RemoveDir(*dir);
    if (!s.ok()) {
      state.SkipWithError(
          SkipText(absl::Status(s.code(), fmt::format("fallocate zero-range + fsync on {}: {}",
                                                      FsName(g_root), Msg(s))))
              .c_str());
      return;
    }
    bytes += file_bytes * files;
    state.SetIterationTime(std::chrono::duration<double>(t1 - t0).count());
  }
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
  state.counters["logical_bytes"] = PerIter(state, bytes);
  state.counters["files"] = files;
  state.SetLabel(fmt::format("fallocate(FALLOC_FL_ZERO_RANGE) + fsync, {} x {} MiB on {}", files,
                             file_bytes / kMiB, FsName(g_root)));
}

// --------------------------------------------------------- registration

int IterationsFor(const Case& c) {
  if (g_opt.iterations > 0) return g_opt.iterations;
  if (c.path == Path::kFast) return 3;
  return c.logical <= 256 * kMiB ? 3 : c.logical <= 1 * kGiB ? 2 : 1;
}

std::string CreateName(const Case& c) {
  return fmt::format("BM_Create/path:{}/logical_mib:{}/red:{}/au_mib:{}/members:{}/io:{}",
                     PathName(c.path), c.logical / kMiB, asmgr::RedundancyName(c.redundancy),
                     c.au / kMiB, c.members, c.direct ? "direct" : "buffered");
}

void RegisterCreate(const Case& c) {
  benchmark::RegisterBenchmark(CreateName(c).c_str(),
                               [c](benchmark::State& s) { RunCreate(s, c); })
      ->UseManualTime()
      ->Iterations(IterationsFor(c))
      ->Unit(benchmark::kMillisecond);
}

void RegisterAll() {
  constexpr Path kPaths[] = {Path::kZeroFill, Path::kSmart, Path::kFast};
  // Size line: NORMAL, AU 4 MiB, 2 members (the seed's shape), buffered and O_DIRECT.
  for (bool direct : {false, true}) {
    for (Path p : kPaths) {
      for (uint64_t mib = 64; mib <= 16384; mib *= 2) {
        RegisterCreate({.path = p, .logical = mib * kMiB, .direct = direct});
      }
    }
  }
  for (Path p : kPaths) {
    // Redundancy, AU size and member count at 256 MiB.
    RegisterCreate({.path = p, .redundancy = asmgr::Redundancy::kExternal});
    RegisterCreate({.path = p, .redundancy = asmgr::Redundancy::kHigh});
    RegisterCreate({.path = p, .au = 1 * kMiB});
    RegisterCreate({.path = p, .members = 1});
    RegisterCreate({.path = p, .members = 4});
  }
  // Scaling of fast creation, 1 .. 64 GiB logical.
  for (uint64_t gib = 1; gib <= 64; gib *= 2) {
    const Case c{.path = Path::kFast, .logical = gib * kGiB};
    benchmark::RegisterBenchmark(fmt::format("BM_FastScaling/logical_gib:{}", gib).c_str(),
                                 [c](benchmark::State& s) { RunScaling(s, c); })
        ->UseManualTime()
        ->Iterations(IterationsFor(c))
        ->Unit(benchmark::kMillisecond);
  }
  // One member per statement: every range of a cell comes in one FormatRange
  // call (not in the default run: it shows where the cells' template table,
  // CellConfig::max_template_ranges, stops the fast path).
  for (uint64_t gib : {16, 32, 64}) {
    const Case c{.path = Path::kFast, .logical = gib * kGiB, .members = 1};
    benchmark::RegisterBenchmark(
        fmt::format("BM_FastScalingOneMember/logical_gib:{}", gib).c_str(),
        [c](benchmark::State& s) { RunScaling(s, c); })
        ->UseManualTime()
        ->Iterations(IterationsFor(c))
        ->Unit(benchmark::kMillisecond);
  }
  // Read side.
  for (bool direct : {false, true}) {
    for (Path p : kPaths) {
      for (uint64_t mib : {256, 1024, 8192}) {
        const Case c{.path = p, .logical = mib * kMiB, .direct = direct};
        benchmark::RegisterBenchmark(
            fmt::format("BM_ReadAfterCreate/path:{}/logical_mib:{}/io:{}", PathName(p), mib,
                        direct ? "direct" : "buffered")
                .c_str(),
            [c](benchmark::State& s) { RunRead(s, c); })
            ->UseManualTime()
            ->Iterations(g_opt.iterations > 0 ? g_opt.iterations : 1)
            ->Unit(benchmark::kMillisecond);
      }
    }
  }
  // The fallocate peer: `files` files of `file_mib` each (a creation of M
  // members of S with C copies compares with M x C files of S).
  for (uint32_t files : {2u, 4u, 6u}) {
    for (uint64_t mib = 32; mib <= 8192; mib *= 2) {
      benchmark::RegisterBenchmark(
          fmt::format("BM_PeerFallocateZeroRange/file_mib:{}/files:{}", mib, files).c_str(),
          [mib, files](benchmark::State& s) { RunPeerFallocate(s, mib * kMiB, files); })
          ->UseManualTime()
          ->Iterations(g_opt.iterations > 0 ? g_opt.iterations : 3)
          ->Unit(benchmark::kMillisecond);
    }
  }
}

// What a run without --benchmark_filter does: small sizes only (minutes, a
// few hundred MiB written), every fast-scaling point (metadata only).
constexpr const char* kDefaultFilter =
    "^BM_Create/path:[a-z-]+/logical_mib:(64|256)/"
    "|^BM_FastScaling/"
    "|^BM_ReadAfterCreate/path:[a-z-]+/logical_mib:256/io:buffered"
    "|^BM_PeerFallocateZeroRange/file_mib:(32|128)/files:4/";

bool TakeFlag(std::string_view arg, std::string_view name, std::string* value) {
  if (arg.substr(0, name.size()) != name || arg.size() <= name.size() ||
      arg[name.size()] != '=') {
    return false;
  }
  *value = std::string(arg.substr(name.size() + 1));
  return true;
}

// Parses and removes the --cs_* flags. Returns false (after printing why) on
// a bad value.
bool ParseOwnFlags(int* argc, char** argv) {
  int out = 1;
  for (int i = 1; i < *argc; ++i) {
    const std::string_view a = argv[i];
    std::string v;
    auto number = [&](const char* flag, auto* dst, long lo, long hi) {
      char* end = nullptr;
      const long n = std::strtol(v.c_str(), &end, 10);
      if (v.empty() || *end != '\0' || n < lo || n > hi) {
        fmt::print(stderr, "creation_bench: {}={} is not a number in {}..{}\n", flag, v, lo, hi);
        return false;
      }
      *dst = static_cast<std::remove_pointer_t<decltype(dst)>>(n);
      return true;
    };
    if (TakeFlag(a, "--cs_iterations", &v)) {
      if (!number("--cs_iterations", &g_opt.iterations, 1, 1000)) return false;
    } else if (TakeFlag(a, "--cs_cells", &v)) {
      if (!number("--cs_cells", &g_opt.cells, 1, 99)) return false;
    } else if (TakeFlag(a, "--cs_cell_disks", &v)) {
      if (!number("--cs_cell_disks", &g_opt.cell_disks, 1, 99)) return false;
    } else if (TakeFlag(a, "--cs_queue_depth", &v)) {
      if (!number("--cs_queue_depth", &g_opt.queue_depth, 1, 4096)) return false;
    } else if (TakeFlag(a, "--cs_backend", &v)) {
      absl::StatusOr<io::BackendKind> k = io::ParseBackendKind(v);
      if (!k.ok()) {
        fmt::print(stderr, "creation_bench: --cs_backend: {}\n", Msg(k.status()));
        return false;
      }
      g_opt.backend = *k;
    } else {
      argv[out++] = argv[i];
    }
  }
  *argc = out;
  argv[out] = nullptr;
  return true;
}

}  // namespace
}  // namespace cellsim::bench

int main(int argc, char** argv) {
  using namespace cellsim::bench;
  if (!ParseOwnFlags(&argc, argv)) return 2;
  bool filtered = false;
  for (int i = 1; i < argc; ++i) {
    if (std::string_view(argv[i]).substr(0, 18) == "--benchmark_filter") filtered = true;
  }
  const char* tmp = std::getenv("TMPDIR");
  std::string root = fmt::format("{}/cellsim-creation-bench.XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (mkdtemp(root.data()) == nullptr) {
    fmt::print(stderr, "creation_bench: mkdtemp {}: {}\n", root, std::strerror(errno));
    return 1;
  }
  g_root = root;
  RegisterAll();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) {
    RemoveDir(g_root);
    return 1;
  }
  if (!filtered) benchmark::SetBenchmarkFilter(kDefaultFilter);
  struct utsname u{};
  uname(&u);
  benchmark::AddCustomContext("cellsim_nproc", std::to_string(std::thread::hardware_concurrency()));
  benchmark::AddCustomContext("cellsim_kernel", u.release);
  benchmark::AddCustomContext("cellsim_dir", g_root);
  benchmark::AddCustomContext("cellsim_filesystem", FsName(g_root));
  benchmark::AddCustomContext(
      "cellsim_rack", fmt::format("{} cells x {} cell disks, flash 1 GiB per cell, WriteBack",
                                  g_opt.cells, g_opt.cell_disks));
  benchmark::AddCustomContext("cellsim_backend",
                              std::string(cellsim::io::BackendKindName(g_opt.backend)));
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  RemoveDir(g_root);
  return 0;
}
