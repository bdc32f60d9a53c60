// Commit latency and sustained redo through the whole stack (issue 15): a
// session's COMMIT waits on `log file sync` while LGWR writes the log buffer
// into both members of the CURRENT online log group, each mirrored by ASM onto
// write-back cells; bulk inserts make redo that LGWR writes at a third of the
// log buffer and at each commit. Each figure sits beside its peer measured in
// the same run on the same filesystem: O_DIRECT pwrite + fdatasync of the same
// sizes, one write at a time (fio `--rw=write --direct=1 --fdatasync=1
// --iodepth=1 --bs=<size>`).
//
//   build/release/bench/commit_bench --benchmark_counters_tabular=true
//
// Order matters: each peer writes the size its cellsim case measured just
// before it (LGWR's average write per member), so run the file whole.
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "cellsim/cellsim.h"
#include "bench/bench_lab.h"

namespace {

using namespace cellsim;  // NOLINT
using Clk = std::chrono::steady_clock;

// What the cellsim cases measured, for the peers that follow them.
std::atomic<uint64_t> g_commit_write_bytes{1024};
std::atomic<uint64_t> g_bulk_write_bytes{1u << 20};

using bench::MakeTemp;

// A lab of 3 write-back cells x 2 disks with the standard files (SYSTEM ...
// USERS, thread 1's groups 1-3 with a member in +DATA and one in +RECO).
struct CommitLab : bench::TempLab {
  absl::Status Start() {
    LabOptions o = bench::SmallLabOptions();
    o.database.standard_files.users_bytes = 256ull << 20;
    o.database.standard_files.log_bytes = 128ull << 20;
    return StartLab("commitbench", o);
  }
};

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t i = std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())));
  return v[i];
}

// LGWR's average write per member since `before`: redo blocks written x 512
// over redo writes, over the members of a group (2 here).
uint64_t LgwrWriteBytes(const stats::StatValues& d) {
  const int64_t writes = d[stats::Stat::kRedoWrites];
  if (writes <= 0) return 0;
  return static_cast<uint64_t>(d[stats::Stat::kRedoBlocksWritten]) * 512 /
         static_cast<uint64_t>(writes);
}

void SetLatencyCounters(benchmark::State& state, const std::vector<double>& us) {
  state.counters["p50_us"] = Percentile(us, 0.50);
  state.counters["p99_us"] = Percentile(us, 0.99);
  state.counters["commits_per_s"] = benchmark::Counter(static_cast<double>(us.size()),
                                                       benchmark::Counter::kIsRate);
}

// `sessions` sessions, each inserting one row and committing `per_session`
// times; the COMMIT's wall time is the latency.
void BM_Commit(benchmark::State& state) {
  const int sessions = static_cast<int>(state.range(0));
  const int per_session = static_cast<int>(state.range(1));
  for (auto _ : state) {
    CommitLab env;
    if (absl::Status s = env.Start(); !s.ok()) return state.SkipWithError(s.ToString().c_str());
    if (auto r = env.lab->Sql("create table t (id number, pad varchar2(100))"); !r.ok()) {
      return state.SkipWithError(r.status().ToString().c_str());
    }
    const stats::StatValues before = env.lab->database().SystemStats();
    std::vector<std::vector<double>> lat(static_cast<size_t>(sessions));
    std::atomic<bool> failed{false};
    const auto t0 = Clk::now();
    std::vector<std::thread> threads;
    for (int s = 0; s < sessions; ++s) {
      threads.emplace_back([&, s] {
        std::unique_ptr<db::Session> session = env.lab->database().NewSession();
        for (int i = 0; i < per_session && !failed; ++i) {
          const std::string ins = fmt::format(
              "insert into t values ({}, 'commit latency row of the commit benchmark')", i);
          if (!session->Execute(ins).ok()) failed = true;
          const auto c0 = Clk::now();
          if (!session->Execute("commit").ok()) failed = true;
          lat[static_cast<size_t>(s)].push_back(
              std::chrono::duration<double, std::micro>(Clk::now() - c0).count());
        }
      });
    }
    for (std::thread& t : threads) t.join();
    state.SetIterationTime(std::chrono::duration<double>(Clk::now() - t0).count());
    if (failed) return state.SkipWithError("a statement failed");
    std::vector<double> all;
    for (const auto& v : lat) all.insert(all.end(), v.begin(), v.end());
    SetLatencyCounters(state, all);
    const stats::StatValues d = env.lab->database().SystemStats() - before;
    const uint64_t per_member = LgwrWriteBytes(d) / 2;
    if (per_member > 0) g_commit_write_bytes = std::max<uint64_t>(512, per_member);
    state.counters["lgwr_write_bytes"] = static_cast<double>(per_member);
    state.counters["redo_per_commit"] =
        static_cast<double>(d[stats::Stat::kRedoSize]) / static_cast<double>(all.size());
  }
}
BENCHMARK(BM_Commit)
    ->ArgNames({"sessions", "commits"})
    ->Args({1, 2000})
    ->Args({4, 500})
    ->UseManualTime()
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

// The peer file: O_DIRECT (buffered where the filesystem refuses it),
// preallocated as fio lays out its file.
struct PeerFile {
  std::string dir;
  int fd = -1;
  bool direct = true;
  static constexpr uint64_t kSize = 256ull << 20;

  absl::Status Open() {
    dir = MakeTemp("commitpeer");
    if (dir.empty()) return absl::InternalError("cannot create a temporary directory");
    const std::string path = dir + "/peer";
    fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_DIRECT, 0644);
    if (fd < 0 && errno == EINVAL) {
      direct = false;
      fd = ::open(path.c_str(), O_RDWR | O_CREAT, 0644);
    }
    if (fd < 0) return absl::InternalError(fmt::format("open {}: {}", path, std::strerror(errno)));
    if (::posix_fallocate(fd, 0, kSize) != 0) return absl::InternalError("posix_fallocate");
    return ::fdatasync(fd) == 0 ? absl::OkStatus() : absl::InternalError("fdatasync");
  }
  ~PeerFile() {
    if (fd >= 0) ::close(fd);
    std::error_code ec;
    if (!dir.empty()) std::filesystem::remove_all(dir, ec);
  }
};

// Writes `bytes` (a multiple of 512) `count` times, sequentially, each made
// durable by fdatasync before the next; returns each write's latency in µs.
absl::StatusOr<std::vector<double>> PeerWrites(PeerFile& f, uint64_t bytes, int count) {
  void* buf = nullptr;
  if (posix_memalign(&buf, 4096, bytes) != 0) return absl::InternalError("posix_memalign");
  std::unique_ptr<void, decltype(&free)> owned(buf, &free);
  std::memset(buf, 0x5A, bytes);
  std::vector<double> us;
  uint64_t off = 0;
  for (int i = 0; i < count; ++i) {
    if (off + bytes > PeerFile::kSize) off = 0;
    const auto t0 = Clk::now();
    if (::pwrite(f.fd, buf, bytes, static_cast<off_t>(off)) != static_cast<ssize_t>(bytes) ||
        ::fdatasync(f.fd) != 0) {
      return absl::InternalError(fmt::format("peer write: {}", std::strerror(errno)));
    }
    us.push_back(std::chrono::duration<double, std::micro>(Clk::now() - t0).count());
    off += bytes;
  }
  return us;
}

// The commit's peer: one write of LGWR's per-member commit write size, then
// fdatasync, one at a time.
void BM_PeerFdatasyncCommitSize(benchmark::State& state) {
  const uint64_t bytes = (g_commit_write_bytes.load() + 511) / 512 * 512;
  const int count = static_cast<int>(state.range(0));
  for (auto _ : state) {
    PeerFile f;
    if (absl::Status s = f.Open(); !s.ok()) return state.SkipWithError(s.ToString().c_str());
    const auto t0 = Clk::now();
    absl::StatusOr<std::vector<double>> us = PeerWrites(f, bytes, count);
    state.SetIterationTime(std::chrono::duration<double>(Clk::now() - t0).count());
    if (!us.ok()) return state.SkipWithError(us.status().ToString().c_str());
    SetLatencyCounters(state, *us);
    state.counters["write_bytes"] = static_cast<double>(bytes);
    state.counters["direct"] = f.direct ? 1 : 0;
  }
}
BENCHMARK(BM_PeerFdatasyncCommitSize)
    ->ArgName("writes")
    ->Arg(2000)
    ->UseManualTime()
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

// Sustained redo: one session inserting ALL_OBJECTS (70,000 rows) into a heap
// table and committing, `rounds` times; redo MB/s = redo size / wall time.
void BM_RedoThroughput(benchmark::State& state) {
  const int rounds = static_cast<int>(state.range(0));
  for (auto _ : state) {
    CommitLab env;
    if (absl::Status s = env.Start(); !s.ok()) return state.SkipWithError(s.ToString().c_str());
    if (auto r = env.lab->Sql("create table t as select * from all_objects where 1=0"); !r.ok()) {
      return state.SkipWithError(r.status().ToString().c_str());
    }
    const stats::StatValues before = env.lab->database().SystemStats();
    const auto t0 = Clk::now();
    for (int i = 0; i < rounds; ++i) {
      for (const char* sql : {"insert into t select * from all_objects", "commit",
                              "truncate table t"}) {
        if (auto r = env.lab->Sql(sql); !r.ok()) {
          return state.SkipWithError(r.status().ToString().c_str());
        }
      }
    }
    const double secs = std::chrono::duration<double>(Clk::now() - t0).count();
    state.SetIterationTime(secs);
    const stats::StatValues d = env.lab->database().SystemStats() - before;
    const uint64_t per_member = LgwrWriteBytes(d) / 2;
    if (per_member > 0) g_bulk_write_bytes = std::max<uint64_t>(512, per_member);
    state.counters["redo_MBps"] = static_cast<double>(d[stats::Stat::kRedoSize]) / 1e6 / secs;
    state.counters["lgwr_write_bytes"] = static_cast<double>(per_member);
    state.counters["redo_writes"] = static_cast<double>(d[stats::Stat::kRedoWrites]);
  }
}
BENCHMARK(BM_RedoThroughput)
    ->ArgName("rounds")
    ->Arg(5)
    ->UseManualTime()
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

// The redo peer: sequential writes of LGWR's average bulk write per member,
// each followed by fdatasync; MB/s.
void BM_PeerFdatasyncRedoSize(benchmark::State& state) {
  const uint64_t bytes = (g_bulk_write_bytes.load() + 511) / 512 * 512;
  const uint64_t total = static_cast<uint64_t>(state.range(0)) << 20;
  const int count = static_cast<int>(std::max<uint64_t>(1, total / bytes));
  for (auto _ : state) {
    PeerFile f;
    if (absl::Status s = f.Open(); !s.ok()) return state.SkipWithError(s.ToString().c_str());
    const auto t0 = Clk::now();
    absl::StatusOr<std::vector<double>> us = PeerWrites(f, bytes, count);
    const double secs = std::chrono::duration<double>(Clk::now() - t0).count();
    state.SetIterationTime(secs);
    if (!us.ok()) return state.SkipWithError(us.status().ToString().c_str());
    state.counters["redo_MBps"] = static_cast<double>(bytes) * count / 1e6 / secs;
    state.counters["write_bytes"] = static_cast<double>(bytes);
  }
}
BENCHMARK(BM_PeerFdatasyncRedoSize)
    ->ArgName("total_mib")
    ->Arg(128)
    ->UseManualTime()
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
