// The sim layer: device profiles (every figure sourced, user JSON profiles),
// the simulated clock (deterministic modeled times, fork-join, the seed's
// figures) and the trace-event timeline (valid JSON, tracks, nesting).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "cellsim/asm/rack.h"
#include "cellsim/base/units.h"
#include "cellsim/db/database.h"
#include "cellsim/io/io_backend.h"
#include "cellsim/sim/profile.h"
#include "cellsim/sim/simulation.h"
#include "cellsim/sim/trace.h"
#include "fmt/format.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "testing/test_util.h"

namespace cellsim::sim {
namespace {

using ::cellsim::testing::TempDir;

constexpr const char* kPathSettings[] = {
    "alter session set \"_cell_fast_file_create\" = false",
    "alter session set cellsim_fast_file_create_metadata = false",
    "alter session set \"_cell_fast_file_create\" = true",
};
enum PathIndex { kZeroFill = 0, kSmart = 1, kFast = 2 };

std::string Seed(uint64_t mib) {
  return fmt::format("alter database add logfile thread 2 group 5 ('+DATA','+RECO') size {}m",
                     mib);
}

// A cell between the simulation's decorator and the real cell that holds its
// zero-fill writes (>= 1 MiB) for delay_ms(cell, n) ms (n: its n-th such call),
// and counts how many of them were in progress at once.
class DelayingCell : public cell::CellService {
 public:
  using Delay = std::function<uint64_t(uint32_t cell, uint64_t call)>;
  DelayingCell(uint32_t index, cell::CellService* inner, Delay delay_ms)
      : index_(index), inner_(inner), delay_ms_(std::move(delay_ms)) {}
  static std::atomic<int> max_in_flight;

  std::string name() const override { return inner_->name(); }
  absl::StatusOr<cell::CellDescription> Describe() const override { return inner_->Describe(); }
  absl::Status Read(absl::Span<cell::ReadRequest> r, cell::CellIoStats* s) override {
    return inner_->Read(r, s);
  }
  absl::Status Write(absl::Span<cell::WriteRequest> reqs, cell::CellIoStats* s) override {
    if (reqs.empty() || reqs[0].data.size() < kMiB) return inner_->Write(reqs, s);
    const int now = ++in_flight_;
    int seen = max_in_flight.load();
    while (now > seen && !max_in_flight.compare_exchange_weak(seen, now)) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms_(index_, calls_++)));
    absl::Status st = inner_->Write(reqs, s);
    --in_flight_;
    return st;
  }
  absl::Status FormatRange(absl::Span<cell::FormatRangeRequest> r, cell::CellIoStats* s) override {
    return inner_->FormatRange(r, s);
  }
  absl::StatusOr<cell::FlushProgress> Flush(
      const std::function<void(const cell::FlushProgress&)>& progress) override {
    return inner_->Flush(progress);
  }
  absl::StatusOr<std::vector<cell::Metric>> Metrics() const override { return inner_->Metrics(); }
  absl::Status SetFlashCacheMode(cell::FlashCacheMode mode) override {
    return inner_->SetFlashCacheMode(mode);
  }
  absl::Status SetCachingPolicy(const std::string& grid_disk,
                                cell::CachingPolicy policy) override {
    return inner_->SetCachingPolicy(grid_disk, policy);
  }
  absl::StatusOr<std::vector<cell::LostRange>> LostRanges() const override {
    return inner_->LostRanges();
  }
  absl::Status Discard(absl::Span<cell::DiscardRequest> r, cell::CellIoStats* s) override {
    return inner_->Discard(r, s);
  }

 private:
  const uint32_t index_;
  cell::CellService* inner_;
  Delay delay_ms_;
  std::atomic<uint64_t> calls_{0};
  std::atomic<int> in_flight_{0};
};
std::atomic<int> DelayingCell::max_in_flight{0};

struct RunSpec {
  std::string profile = "x3-2";
  std::string rack = "eighth";
  PathIndex path = kFast;
  uint64_t mib = 4096;
  bool model_only = true;
  bool real_clock = false;
  TraceWriter* trace = nullptr;
  std::string prefix;
  DelayingCell::Delay delay_ms;  // set: a DelayingCell under each simulated cell
};

// The seed statement on a fresh default-sized rack shaped by the profile.
absl::StatusOr<db::StatementResult> RunSeed(const std::string& dir, const RunSpec& spec) {
  absl::StatusOr<DeviceProfile> p = LoadProfile(spec.profile);
  if (!p.ok()) return p.status();
  absl::StatusOr<RackShape> shape = ShapeFor(*p, spec.rack);
  if (!shape.ok()) return shape.status();
  Simulation::Options o;
  o.profile = *p;
  o.shape = *shape;
  o.model_only = spec.model_only;
  o.real_clock = spec.real_clock;
  o.trace = spec.trace;
  o.trace_prefix = spec.prefix;
  Simulation sim(o);
  std::unique_ptr<io::IoBackend> io = io::MakePosixBackend();
  asmgr::RackConfig config = asmgr::DefaultRackConfig();
  config.cells = shape->cells;
  config.cell_disks_per_cell = shape->disks_per_cell;
  std::vector<std::unique_ptr<cell::CellService>> delaying;  // outlives the rack
  auto wrap = [&](uint32_t i, cell::CellService* c) {
    if (spec.delay_ms) {
      delaying.push_back(std::make_unique<DelayingCell>(i, c, spec.delay_ms));
      c = delaying.back().get();
    }
    return sim.WrapCell(i, c);
  };
  absl::StatusOr<std::unique_ptr<asmgr::Rack>> rack = asmgr::Rack::Create(
      io.get(), sim.clock(), dir, config, asmgr::RackOpenOptions{.wrap = wrap});
  if (!rack.ok()) return rack.status();
  db::DatabaseOptions dbo;
  if (!spec.real_clock) {
    dbo.zero_fill.request_bytes = static_cast<uint64_t>(p->zero_fill_request_kib.value) * 1024;
    dbo.zero_fill.requests_per_batch = static_cast<uint32_t>(p->zero_fill_requests_per_batch.value);
    dbo.zero_fill.batches_in_flight = static_cast<uint32_t>(p->zero_fill_batches_in_flight.value);
    dbo.smart_extents_per_call = 0;
  }
  absl::StatusOr<db::StatementResult> result;
  {
    absl::StatusOr<std::unique_ptr<db::Database>> database = db::Database::Create(rack->get(), dbo);
    if (!database.ok()) return database.status();
    std::unique_ptr<db::Session> session = (*database)->NewSession();
    absl::StatusOr<db::StatementResult> set = session->Execute(kPathSettings[spec.path]);
    if (!set.ok()) return set.status();
    result = session->Execute(Seed(spec.mib));
  }
  absl::Status closed = (*rack)->Close();
  if (result.ok() && !closed.ok()) return closed;
  return result;
}

double Seconds(uint64_t ns) { return static_cast<double>(ns) / 1e9; }

// ---- profiles ---------------------------------------------------------------

TEST(ProfileTest, EveryFigureOfEveryProfileHasAValueAndASource) {
  const std::vector<DeviceProfile>& all = BuiltinProfiles();
  ASSERT_GE(all.size(), 16u);
  for (const DeviceProfile& p : all) {
    nlohmann::json j = nlohmann::json::parse(ProfileToJson(p));
    size_t figures = 0;
    for (const auto& [key, v] : j.items()) {
      if (!v.is_object() || !v.contains("value")) continue;
      ++figures;
      EXPECT_GE(v["value"].get<double>(), 0) << p.name << " " << key;
      EXPECT_FALSE(v["source"].get<std::string>().empty()) << p.name << " " << key;
    }
    EXPECT_EQ(figures, 15u) << p.name;
    // A user profile written from a built-in one loads back the same.
    ASSERT_OK_AND_ASSIGN(DeviceProfile back, ProfileFromJson(ProfileToJson(p), "test"));
    EXPECT_EQ(ProfileToJson(back), ProfileToJson(p));
  }
  const std::string md = ProfilesMarkdown();
  EXPECT_NE(md.find("x10m-ef"), std::string::npos);
}

TEST(ProfileTest, GenerationNamesPickTheirFirstKind) {
  for (const auto& [gen, name] : std::map<std::string, std::string>{
           {"x2-2", "x2-2-hp"}, {"x3-2", "x3-2-hp"}, {"x4-2", "x4-2-hp"}, {"x5-2", "x5-2-hc"},
           {"x7-2", "x7-2-hc"}, {"x8m-2", "x8m-2-hc"}, {"x9m-2", "x9m-2-hc"}, {"x10m", "x10m-hc"},
           {"x5-2-ef", "x5-2-ef"}}) {
    ASSERT_OK_AND_ASSIGN(DeviceProfile p, LoadProfile(gen));
    EXPECT_EQ(p.name, name);
  }
  absl::StatusOr<DeviceProfile> bad = LoadProfile("x6-2");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(bad.status().message().find("x3-2-hp"), absl::string_view::npos) << bad.status();
}

TEST(ProfileTest, UserProfilesLoadAndBadOnesSayWhatIsWrong) {
  TempDir tmp;
  ASSERT_OK_AND_ASSIGN(DeviceProfile p, LoadProfile("x3-2"));
  nlohmann::json j = nlohmann::json::parse(ProfileToJson(p));
  j["name"] = "mine";
  j["disk_write_mb_s"] = 42;  // a bare number is accepted too
  const std::string path = tmp.File("mine.json");
  std::ofstream(path) << j.dump();
  ASSERT_OK_AND_ASSIGN(DeviceProfile mine, LoadProfile(path));
  EXPECT_EQ(mine.name, "mine");
  EXPECT_EQ(mine.disk_write_mb_s.value, 42);

  auto error_of = [&](const nlohmann::json& doc) {
    std::ofstream(path, std::ios::trunc) << doc.dump();
    absl::StatusOr<DeviceProfile> r = LoadProfile(path);
    return r.ok() ? std::string("ok") : std::string(r.status().message());
  };
  nlohmann::json missing = j;
  missing.erase("fdfc_requests_per_s");
  EXPECT_NE(error_of(missing).find("\"fdfc_requests_per_s\" is missing"), std::string::npos);
  nlohmann::json negative = j;
  negative["rpc_us"] = -1;
  EXPECT_NE(error_of(negative).find("\"rpc_us\" must be a number >= 0"), std::string::npos);
  nlohmann::json zero_flash = j;
  zero_flash["flash_cards_per_cell"] = 0;
  EXPECT_NE(error_of(zero_flash).find("flash_cards_per_cell"), std::string::npos);
  std::ofstream(path, std::ios::trunc) << "{not json";
  absl::StatusOr<DeviceProfile> garbage = LoadProfile(path);
  ASSERT_FALSE(garbage.ok());
  EXPECT_NE(garbage.status().message().find("not a JSON object"), absl::string_view::npos);
  EXPECT_EQ(LoadProfile(tmp.File("absent.json")).status().code(), absl::StatusCode::kNotFound);
}

TEST(ProfileTest, RackSizes) {
  ASSERT_OK_AND_ASSIGN(DeviceProfile p, LoadProfile("x3-2"));
  ASSERT_OK_AND_ASSIGN(RackShape eighth, ShapeFor(p, "eighth"));
  EXPECT_EQ(eighth.cells, 3u);
  EXPECT_EQ(eighth.disks_per_cell, 6u);
  EXPECT_EQ(eighth.flash_cards_per_cell, 2u);
  ASSERT_OK_AND_ASSIGN(RackShape full, ShapeFor(p, "full"));
  EXPECT_EQ(full.cells, 14u);
  EXPECT_EQ(full.disks_per_cell, 12u);
  ASSERT_OK_AND_ASSIGN(DeviceProfile ef, LoadProfile("x5-2-ef"));
  ASSERT_OK_AND_ASSIGN(RackShape ef_half, ShapeFor(ef, "half"));
  EXPECT_EQ(ef_half.cells, 7u);
  EXPECT_EQ(ef_half.disks_per_cell, 8u);  // cell disks on the flash drives
  EXPECT_FALSE(ShapeFor(p, "tiny").ok());
}

// ---- the simulated clock ------------------------------------------------------

TEST(SimClockTest, ForkJoinCostsTheSlowestChild) {
  SimClock clock(1'700'000'000, 0, nullptr, "");
  clock.SetThreadNanos(1000);
  std::vector<uint64_t> starts;
  ForkJoin(&clock, 3, [&](size_t i) {
    starts.push_back(clock.NowNanos());
    clock.SetThreadNanos(clock.NowNanos() + 100 * (i + 1));
  });
  EXPECT_EQ(starts, (std::vector<uint64_t>{1000, 1000, 1000}));
  EXPECT_EQ(clock.NowNanos(), 1300u);
  clock.AdvanceThreadTo(1200);  // never backwards
  EXPECT_EQ(clock.NowNanos(), 1300u);
  EXPECT_EQ(clock.UnixSeconds(), 1'700'000'000);
}

// Everything a run reports that the model decides: elapsed, waits (with their
// histograms) and every statistic but CPU, which is this machine's (tkprof's
// cpu column is measured, not modeled: docs/sim.md).
void ExpectSameModeledFigures(const db::StatementResult& r1, const db::StatementResult& r2) {
  EXPECT_EQ(r1.elapsed_ns, r2.elapsed_ns) << r1.path;
  EXPECT_EQ(r1.execute.elapsed_ns, r2.execute.elapsed_ns) << r1.path;
  for (size_t w = 0; w < stats::kWaitCount; ++w) {
    const stats::Wait wait = static_cast<stats::Wait>(w);
    EXPECT_EQ(r1.waits[wait].count, r2.waits[wait].count) << r1.path << " wait " << w;
    EXPECT_EQ(r1.waits[wait].total_ns, r2.waits[wait].total_ns) << r1.path << " wait " << w;
    EXPECT_EQ(r1.waits[wait].max_ns, r2.waits[wait].max_ns) << r1.path << " wait " << w;
    EXPECT_EQ(r1.waits[wait].histogram, r2.waits[wait].histogram) << r1.path << " wait " << w;
  }
  stats::StatValues s1 = r1.statistics, s2 = r2.statistics;
  s1[stats::Stat::kCpuUsedByThisSession] = s2[stats::Stat::kCpuUsedByThisSession] = 0;
  EXPECT_EQ(s1.v, s2.v) << r1.path;
}

TEST(SimClockTest, SameCommandTwiceGivesIdenticalModeledTimesAndWaits) {
  for (PathIndex path : {kZeroFill, kSmart, kFast}) {
    RunSpec spec;
    spec.path = path;
    spec.mib = 256;
    spec.model_only = path != kFast;  // the fast run is real: metadata only anyway
    TempDir a, b;
    ASSERT_OK_AND_ASSIGN(db::StatementResult r1, RunSeed(a.path() + "/r", spec));
    ASSERT_OK_AND_ASSIGN(db::StatementResult r2, RunSeed(b.path() + "/r", spec));
    EXPECT_GT(r1.elapsed_ns, 450'000'000u) << r1.path;  // at least the statement's fixed cost
    ExpectSameModeledFigures(r1, r2);
  }
}

// The real writes of the zero-fill batches in flight complete in whatever
// order the machine gives; the model is charged in issue order before they
// run, so the modeled figures cannot follow that order.
TEST(SimClockTest, ModeledTimesDoNotDependOnTheRealCompletionOrder) {
  RunSpec spec;
  spec.path = kZeroFill;
  spec.mib = 16;  // 4 batches of 4 x 1 MiB per member, 3 in flight
  spec.model_only = false;
  TempDir a, b, c;
  ASSERT_OK_AND_ASSIGN(db::StatementResult plain, RunSeed(a.path() + "/r", spec));
  // Older batches held longest: later batches land first on every cell.
  spec.delay_ms = [](uint32_t, uint64_t call) -> uint64_t {
    return call % 3 == 0 ? 120 : call % 3 == 1 ? 60 : 0;
  };
  ASSERT_OK_AND_ASSIGN(db::StatementResult reversed, RunSeed(b.path() + "/r", spec));
  // Cells at different speeds, and the order changing from batch to batch.
  spec.delay_ms = [](uint32_t cell, uint64_t call) { return (cell * 37 + call * 53) % 90; };
  ASSERT_OK_AND_ASSIGN(db::StatementResult shuffled, RunSeed(c.path() + "/r", spec));
  EXPECT_EQ(plain.path, "zero-fill");
  ExpectSameModeledFigures(plain, reversed);
  ExpectSameModeledFigures(plain, shuffled);
}

// With a simulated clock the real writes of the batches in flight overlap on
// the cells as they do with a real clock (the model does not serialize them).
TEST(SimClockTest, RealWritesOfZeroFillBatchesOverlap) {
  RunSpec spec;
  spec.path = kZeroFill;
  spec.mib = 8;  // 2 batches per member, both in flight at once
  spec.model_only = false;
  spec.delay_ms = [](uint32_t, uint64_t) { return 150; };
  DelayingCell::max_in_flight = 0;
  TempDir tmp;
  ASSERT_OK_AND_ASSIGN(db::StatementResult r, RunSeed(tmp.path() + "/r", spec));
  EXPECT_EQ(r.path, "zero-fill");
  EXPECT_GE(DelayingCell::max_in_flight.load(), 2);
}

TEST(SimClockTest, SeedFiguresUnderTheirProfiles) {
  // Fast: x3-2 eighth rack (fidelity.md 5.3 H2); zero-fill: x2-2 quarter (Nash's 2011 X2).
  RunSpec fast;
  TempDir a, b;
  ASSERT_OK_AND_ASSIGN(db::StatementResult f, RunSeed(a.path() + "/r", fast));
  EXPECT_EQ(f.path, "fast");
  EXPECT_NEAR(Seconds(f.elapsed_ns), 5.09, 0.25 * 5.09);
  RunSpec zero;
  zero.profile = "x2-2";
  zero.rack = "quarter";
  zero.path = kZeroFill;
  ASSERT_OK_AND_ASSIGN(db::StatementResult z, RunSeed(b.path() + "/r", zero));
  EXPECT_EQ(z.path, "zero-fill");
  EXPECT_NEAR(Seconds(z.elapsed_ns), 37.0, 0.25 * 37.0);
}

TEST(SimClockTest, RealIoStillHappensUnderTheSimulatedClock) {
  RunSpec spec;
  spec.path = kZeroFill;
  spec.mib = 16;
  spec.model_only = false;
  TempDir tmp;
  ASSERT_OK_AND_ASSIGN(db::StatementResult r, RunSeed(tmp.path() + "/r", spec));
  // 16 MiB x 2 members x 2 copies landed on the grid disks.
  uint64_t allocated = 0;
  for (uint32_t c = 1; c <= 3; ++c) {
    for (uint32_t d = 0; d < 6; ++d) {
      for (const char* g : {"DATA", "RECO"}) {
        allocated += ::cellsim::testing::AllocatedBytes(
            fmt::format("{}/r/cel{:02}/{}_CD_{:02}_cel{:02}.img", tmp.path(), c, g, d, c));
      }
    }
  }
  EXPECT_GE(allocated, 64 * kMiB);
}

// ---- the timeline -------------------------------------------------------------

// Checks what Perfetto and chrome://tracing need of every event, and that the
// complete events of each thread nest (here: never overlap).
void ExpectValidTrace(const std::string& text, bool simulated) {
  nlohmann::json doc = nlohmann::json::parse(text);
  ASSERT_TRUE(doc.contains("traceEvents"));
  EXPECT_EQ(doc["otherData"]["clock"], simulated ? "simulated" : "real");
  std::map<std::pair<int, int>, std::string> thread_names;
  std::map<int, std::string> process_names;
  std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> slices;
  size_t counters = 0;
  for (const nlohmann::json& e : doc["traceEvents"]) {
    ASSERT_TRUE(e.contains("ph") && e["ph"].is_string()) << e;
    ASSERT_TRUE(e.contains("pid") && e["pid"].is_number_unsigned()) << e;
    ASSERT_TRUE(e.contains("tid") && e["tid"].is_number_unsigned()) << e;
    ASSERT_TRUE(e.contains("name") && e["name"].is_string()) << e;
    const std::string ph = e["ph"];
    const int pid = e["pid"], tid = e["tid"];
    if (ph == "M") {
      ASSERT_TRUE(e["args"]["name"].is_string()) << e;
      if (e["name"] == "process_name") process_names[pid] = e["args"]["name"];
      if (e["name"] == "thread_name") thread_names[{pid, tid}] = e["args"]["name"];
      continue;
    }
    ASSERT_TRUE(e.contains("ts") && e["ts"].is_number()) << e;
    EXPECT_GE(e["ts"].get<double>(), 0.0) << e;
    if (ph == "X") {
      ASSERT_TRUE(e.contains("dur") && e["dur"].is_number()) << e;
      EXPECT_GE(e["dur"].get<double>(), 0.0) << e;
      slices[{pid, tid}].push_back({e["ts"].get<double>(), e["dur"].get<double>()});
    } else if (ph == "C") {
      ASSERT_TRUE(e["args"]["value"].is_number()) << e;
      ++counters;
    } else {
      ADD_FAILURE() << "unexpected phase " << ph;
    }
  }
  EXPECT_GT(counters, 0u);
  for (auto& [key, v] : slices) {
    EXPECT_TRUE(thread_names.count(key)) << "unnamed track " << key.first << "/" << key.second;
    EXPECT_TRUE(process_names.count(key.first)) << "unnamed process " << key.first;
    std::sort(v.begin(), v.end());
    for (size_t i = 1; i < v.size(); ++i) {
      // Microsecond doubles: allow a nanosecond of rounding.
      EXPECT_GE(v[i].first + 1e-3, v[i - 1].first + v[i - 1].second)
          << thread_names[key] << " slice " << i << " overlaps the one before";
    }
  }
  std::string names;
  for (const auto& [k, n] : thread_names) names += n + ";";
  for (const char* want : {"session 1", "requests", "disk CD_00", "flash FD_00", "network link"}) {
    if (simulated) {
      EXPECT_NE(names.find(want), std::string::npos) << want << " in " << names;
    }
  }
  // A session track per thread with either clock; the cells' worker
  // threads draw on their caller's (one session here).
  EXPECT_NE(names.find("session 1"), std::string::npos) << names;
  EXPECT_EQ(names.find("session 9"), std::string::npos) << names;
}

TEST(TraceTest, SeedDemoTraceIsValidTraceEventJson) {
  TraceWriter trace("simulated");
  for (PathIndex path : {kZeroFill, kSmart, kFast}) {
    RunSpec spec;
    spec.path = path;
    spec.mib = 64;
    spec.model_only = false;
    spec.trace = &trace;
    spec.prefix = fmt::format("{}: ", static_cast<int>(path));
    TempDir tmp;
    ASSERT_OK(RunSeed(tmp.path() + "/r", spec));
  }
  ExpectValidTrace(trace.Json(), /*simulated=*/true);
  TempDir out;
  ASSERT_OK(trace.WriteFile(out.File("seed.json")));
  EXPECT_EQ(::cellsim::testing::ReadFileText(out.File("seed.json")), trace.Json() + "\n");
  EXPECT_FALSE(trace.WriteFile(out.File("no/such/dir/x.json")).ok());
}

TEST(TraceTest, RealClockTraceHasTheCellCalls) {
  TraceWriter trace("real");
  RunSpec spec;
  spec.mib = 16;
  spec.model_only = false;
  spec.real_clock = true;
  spec.trace = &trace;
  TempDir tmp;
  ASSERT_OK(RunSeed(tmp.path() + "/r", spec));
  ExpectValidTrace(trace.Json(), /*simulated=*/false);
}

TEST(TraceTest, OverlappingSlicesGoToLanes) {
  TraceWriter t("simulated");
  const uint32_t track = t.Track("cel01", "requests");
  t.Slice(track, "a", 0, 100);
  t.Slice(track, "b", 50, 100);   // overlaps a: second lane
  t.Slice(track, "c", 100, 10);   // after a: first lane again
  nlohmann::json doc = nlohmann::json::parse(t.Json());
  std::map<std::string, int> tid;
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] == "X") tid[e["name"]] = e["tid"];
  }
  EXPECT_NE(tid["a"], tid["b"]);
  EXPECT_EQ(tid["a"], tid["c"]);
}

}  // namespace
}  // namespace cellsim::sim
