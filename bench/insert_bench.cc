// The temp-undo seed's hot statement, `insert into sqlrun_gtt select * from
// all_objects` (70,000 rows into a GTT, issue 16), through the whole engine
// (parse, undo and redo accounting, rows into 8 KiB blocks of the buffer
// cache), beside its floor measured in the same run: the same encoded row
// bytes memcpy'd into 8 KiB buffers (a zeroed block each, a 2-byte row
// directory entry per row, PCTFREE 10 %), and beside the row-by-row path
// the engine takes for any other SELECT (forced with WHERE 1=1).
//
//   build/release/bench/insert_bench --benchmark_counters_tabular=true
//
// Only the INSERT is timed; the COMMIT after it (which frees the GTT's
// blocks, ON COMMIT DELETE ROWS) is not. docs/benchmarks.md gives the ratios.
#include <benchmark/benchmark.h>
#include <stdlib.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cellsim/cellsim.h"
#include "cellsim/db/all_objects.h"
#include "bench/bench_lab.h"

namespace {

using namespace cellsim;  // NOLINT
using Clk = std::chrono::steady_clock;

constexpr uint64_t kRows = 70000;
constexpr size_t kBlock = 8192;

// A lab of 3 cells x 2 disks with the standard files and the seed's GTT.
struct InsertLab : bench::TempLab {
  absl::Status Start() {
    LabOptions o = bench::SmallLabOptions();
    o.database.all_objects_rows = kRows;
    if (absl::Status st = StartLab("insertbench", o); !st.ok()) return st;
    absl::StatusOr<db::StatementResult> r = lab->Sql(
        "create global temporary table sqlrun_gtt on commit delete rows as "
        "select * from all_objects where 1=0");
    return r.ok() ? absl::OkStatus() : r.status();
  }
};

// The engine: `sql` (70,000 rows into the GTT) timed, then COMMIT.
void RunInsert(benchmark::State& state, const char* sql) {
  const bool temp_undo = state.range(0) != 0;
  InsertLab env;
  if (absl::Status s = env.Start(); !s.ok()) return state.SkipWithError(s.ToString().c_str());
  std::unique_ptr<db::Session> session = env.lab->database().NewSession();
  const std::string set =
      fmt::format("alter session set temp_undo_enabled = {}", temp_undo ? "true" : "false");
  if (!session->Execute(set).ok()) return state.SkipWithError("alter session failed");
  // Untimed: the first insert encodes the ALL_OBJECTS rows (once per process)
  // and sizes the session's undo list; the seed's 2,400 inserts pay it once.
  for (const char* warm : {sql, "commit"}) {
    if (absl::StatusOr<db::StatementResult> r = session->Execute(warm); !r.ok()) {
      return state.SkipWithError(r.status().ToString().c_str());
    }
  }
  int64_t rows = 0, redo = 0;
  for (auto _ : state) {
    const int64_t redo0 = session->Stats()[stats::Stat::kRedoSize];
    const auto t0 = Clk::now();
    absl::StatusOr<db::StatementResult> r = session->Execute(sql);
    state.SetIterationTime(std::chrono::duration<double>(Clk::now() - t0).count());
    if (!r.ok()) return state.SkipWithError(r.status().ToString().c_str());
    rows += r->rows;
    redo += session->Stats()[stats::Stat::kRedoSize] - redo0;
    if (!session->Execute("commit").ok()) return state.SkipWithError("commit failed");
  }
  state.counters["rows_per_s"] = benchmark::Counter(static_cast<double>(rows), benchmark::Counter::kIsRate);
  state.counters["redo_per_insert"] =
      static_cast<double>(redo) / static_cast<double>(state.iterations());
}

void BM_GttInsertAllObjects(benchmark::State& state) {
  RunInsert(state, "insert into sqlrun_gtt select * from all_objects");
}
BENCHMARK(BM_GttInsertAllObjects)->ArgName("temp_undo")->Arg(0)->Arg(1)->UseManualTime()
    ->Unit(benchmark::kMillisecond);

void BM_GttInsertAllObjectsRowByRow(benchmark::State& state) {
  RunInsert(state, "insert into sqlrun_gtt select * from all_objects where 1=1");
}
BENCHMARK(BM_GttInsertAllObjectsRowByRow)->ArgName("temp_undo")->Arg(0)->UseManualTime()
    ->Unit(benchmark::kMillisecond);

// The floor: the same 70,000 encoded rows (the bytes the engine stores) into
// 8 KiB buffers reused between iterations, each zeroed when it is taken, rows
// from the tail down, a 2-byte offset per row, a block closed when the next
// row would eat into its last 10 %.
void BM_PeerMemcpyRowsIntoBlocks(benchmark::State& state) {
  std::shared_ptr<const db::internal::EncodedRows> rows = db::internal::EncodedAllObjectsRows(
      kRows, 1657025160, db::internal::AllObjectsColumns());
  if (rows == nullptr) return state.SkipWithError("ALL_OBJECTS rows do not encode");
  std::vector<std::vector<uint8_t>> blocks;
  constexpr size_t kHeader = 100, kReserve = kBlock / 10;
  int64_t total = 0;
  for (auto _ : state) {
    size_t used = 0;
    uint8_t* b = nullptr;
    size_t dir = 0, tail = 0;
    for (size_t i = 0; i < rows->size(); ++i) {
      const absl::Span<const uint8_t> row = rows->row(i);
      if (b == nullptr || tail - dir < row.size() + 2 + kReserve) {
        if (used == blocks.size()) blocks.emplace_back(kBlock);
        b = blocks[used++].data();
        std::memset(b, 0, kBlock);
        dir = kHeader;
        tail = kBlock - 4;
      }
      tail -= row.size();
      std::memcpy(b + tail, row.data(), row.size());
      const uint16_t off = static_cast<uint16_t>(tail);
      std::memcpy(b + dir, &off, 2);
      dir += 2;
    }
    benchmark::DoNotOptimize(b);
    benchmark::ClobberMemory();
    total += static_cast<int64_t>(rows->size());
    state.counters["blocks"] = static_cast<double>(used);
  }
  state.counters["rows_per_s"] = benchmark::Counter(static_cast<double>(total), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_PeerMemcpyRowsIntoBlocks)->Unit(benchmark::kMillisecond);

// The one-time cost: the 70,000 rows generated, coerced and encoded (a new
// creation time each iteration, so the process cache never answers).
void BM_EncodeAllObjectsRows(benchmark::State& state) {
  static int64_t created = 1657025160;  // across repetitions too
  for (auto _ : state) {
    std::shared_ptr<const db::internal::EncodedRows> rows =
        db::internal::EncodedAllObjectsRows(kRows, ++created, db::internal::AllObjectsColumns());
    if (rows == nullptr) return state.SkipWithError("ALL_OBJECTS rows do not encode");
    benchmark::DoNotOptimize(rows->row(kRows - 1).data());
  }
}
BENCHMARK(BM_EncodeAllObjectsRows)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
