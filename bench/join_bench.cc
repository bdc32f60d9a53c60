// Joins through the whole engine (parse, scan of 8 KiB blocks, the join,
// COUNT): a 100,000-row table joined to a 100-row one by an equality, by
// USING, ON and a comma join's WHERE, each looking the joined rows up
// (join_index.h), beside two peers measured in the same run:
//   - the scan alone: `select count(*) from big where g = 7`, the rows the
//     join reads without joining them (the join's floor);
//   - the same join with the equality written `b.g + 0 = r.g`, which no
//     lookup serves: every row of one side tried for each row of the other
//     (the nested loop every join was before);
//   - the same join with grp's own term written `(gname = 'g7' or b.id <
//     0)`, which names both sources, so only WHERE decides it, after the
//     join (as every WHERE term was before a source's own terms picked its
//     rows first).
// And a join whose big side is picked by its index (`b.id = 4207`) beside
// the same with `b.id + 0`, which the index cannot serve; a self join of the
// big table on its key (100,000 x 100,000), which the nested loop could not
// finish, and an IN (SELECT ...) of 1,000 values.
//
//   build/release/bench/join_bench --benchmark_counters_tabular=true
//
// docs/benchmarks.md gives the ratios.
#include <benchmark/benchmark.h>

#include <memory>
#include <string>

#include <fmt/format.h>

#include "bench/bench_lab.h"
#include "cellsim/cellsim.h"

namespace {

using namespace cellsim;  // NOLINT

constexpr int kBigRows = 100000;

// A small lab holding big (id, g = id mod 100, s) and grp (g, gname).
struct JoinLab : bench::TempLab {
  absl::Status Start() {
    if (absl::Status st = StartLab("joinbench", bench::SmallLabOptions()); !st.ok()) return st;
    for (const std::string& sql :
         {std::string("create table big (id number, g number, s varchar2(20))"),
          fmt::format("insert into big select level, mod(level, 100), 'row' || level from dual "
                      "connect by level <= {}", kBigRows),
          std::string("create table grp (g number, gname varchar2(10))"),
          std::string("insert into grp select level - 1, 'g' || (level - 1) from dual "
                      "connect by level <= 100"),
          std::string("create index big_id on big (id)"), std::string("commit")}) {
      if (absl::StatusOr<db::StatementResult> r = lab->Sql(sql); !r.ok()) return r.status();
    }
    return absl::OkStatus();
  }
};

// Runs `sql` (a SELECT COUNT(*)) once per iteration, on a lab of its own
// (untimed); `expected`, its count.
void RunQuery(benchmark::State& state, const std::string& sql, const char* expected) {
  JoinLab env;
  if (absl::Status s = env.Start(); !s.ok()) return state.SkipWithError(s.ToString().c_str());
  std::unique_ptr<db::Session> session = env.lab->database().NewSession();
  int64_t rows = 0;
  for (auto _ : state) {
    absl::StatusOr<db::StatementResult> r = session->Execute(sql);
    if (!r.ok()) return state.SkipWithError(r.status().ToString().c_str());
    if (r->result_rows.size() != 1 || r->result_rows[0][0] != expected) {
      return state.SkipWithError(fmt::format("{} gave {} rows, not {}", sql,
                                             r->result_rows.empty() ? "no" : r->result_rows[0][0],
                                             expected).c_str());
    }
    rows += std::stoll(expected);
  }
  state.counters["rows_joined_per_s"] =
      benchmark::Counter(static_cast<double>(rows), benchmark::Counter::kIsRate);
}

void BM_PeerScanOnly(benchmark::State& state) {
  RunQuery(state, "select count(*) from big where g = 7", "1000");
}
BENCHMARK(BM_PeerScanOnly)->Unit(benchmark::kMillisecond);

void BM_JoinUsing(benchmark::State& state) {
  RunQuery(state, "select count(*) from big join grp using (g) where gname = 'g7'", "1000");
}
BENCHMARK(BM_JoinUsing)->Unit(benchmark::kMillisecond);

void BM_JoinOn(benchmark::State& state) {
  RunQuery(state, "select count(*) from big b join grp r on b.g = r.g where gname = 'g7'", "1000");
}
BENCHMARK(BM_JoinOn)->Unit(benchmark::kMillisecond);

void BM_JoinCommaWhere(benchmark::State& state) {
  RunQuery(state, "select count(*) from big b, grp r where b.g = r.g and gname = 'g7'", "1000");
}
BENCHMARK(BM_JoinCommaWhere)->Unit(benchmark::kMillisecond);

void BM_PeerJoinEveryRow(benchmark::State& state) {
  RunQuery(state, "select count(*) from big b, grp r where b.g + 0 = r.g and (gname = 'g7' or b.id < 0)",
           "1000");
}
BENCHMARK(BM_PeerJoinEveryRow)->Unit(benchmark::kMillisecond);

void BM_PeerJoinFilteredAfter(benchmark::State& state) {
  RunQuery(state, "select count(*) from big b, grp r where b.g = r.g and (gname = 'g7' or b.id < 0)",
           "1000");
}
BENCHMARK(BM_PeerJoinFilteredAfter)->Unit(benchmark::kMillisecond);

void BM_JoinByIndexOfASource(benchmark::State& state) {
  RunQuery(state, "select count(*) from big b, grp r where b.g = r.g and b.id = 4207", "1");
}
BENCHMARK(BM_JoinByIndexOfASource)->Unit(benchmark::kMillisecond);

void BM_PeerJoinScanningTheSource(benchmark::State& state) {
  RunQuery(state, "select count(*) from big b, grp r where b.g = r.g and b.id + 0 = 4207", "1");
}
BENCHMARK(BM_PeerJoinScanningTheSource)->Unit(benchmark::kMillisecond);

// IN (SELECT ...) of 1,000 values, looked up (ValueSet) for each of the
// 100,000 rows: two scans of big.
void BM_InSubquery(benchmark::State& state) {
  RunQuery(state, "select count(*) from big where id in (select id from big where id <= 1000)",
           "1000");
}
BENCHMARK(BM_InSubquery)->Unit(benchmark::kMillisecond);

// A correlated EXISTS with a subquery of its own, for 2,000 rows of big,
// beside the same query inside an IN (SELECT ...) of 10,000 values: each
// run of the correlated subquery extends the statement's subquery results,
// which copied the 10,000 values each time (7-9x slower) before they were
// shared.
constexpr const char* kCorrelated =
    "exists (select 1 from grp where grp.g = big.g and grp.gname in (select gname from grp))";
void BM_PeerCorrelatedSubquery(benchmark::State& state) {
  RunQuery(state, fmt::format("select count(*) from big where id <= 2000 and {}", kCorrelated),
           "2000");
}
BENCHMARK(BM_PeerCorrelatedSubquery)->Unit(benchmark::kMillisecond);

void BM_CorrelatedSubqueryUnderAnInList(benchmark::State& state) {
  RunQuery(state, fmt::format("select count(*) from big where id <= 2000 and id in (select id "
                              "from big where id <= 10000) and {}", kCorrelated),
           "2000");
}
BENCHMARK(BM_CorrelatedSubqueryUnderAnInList)->Unit(benchmark::kMillisecond);

void BM_SelfJoinOnKey(benchmark::State& state) {
  RunQuery(state, "select count(*) from big b join big c on b.id = c.id", "100000");
}
BENCHMARK(BM_SelfJoinOnKey)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
