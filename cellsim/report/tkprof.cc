#include "cellsim/report/tkprof.h"

#include <fmt/format.h>

#include "cellsim/db/sql_id.h"

namespace cellsim::report {
namespace {

constexpr std::string_view kStars =
    "********************************************************************************\n";
constexpr std::string_view kCallRule =
    "------- ------  -------- ---------- ---------- ---------- ----------  ----------\n";

std::string CallLine(std::string_view name, const TkprofCall& c) {
  return fmt::format("{:<7} {:>6}  {:>8.2f} {:>10.2f} {:>10} {:>10} {:>10}  {:>10}\n", name,
                     c.count, c.cpu_s, c.elapsed_s, c.disk, c.query, c.current, c.rows);
}

}  // namespace

TkprofStatement TkprofFromResult(const StatementSummary& r) {
  TkprofStatement t;
  t.sql_text = r.statement;
  t.sql_id = db::SqlIdOf(r.statement).sql_id;
  t.parse.count = 1;
  t.execute.count = 1;
  t.execute.cpu_s = r.cpu_s;
  t.execute.elapsed_s = r.elapsed_s;
  t.execute.disk = r.statistics[stats::Stat::kPhysicalReads];
  t.execute.query = r.statistics[stats::Stat::kConsistentGets];
  t.execute.current = r.statistics[stats::Stat::kDbBlockGets];
  for (size_t i = 0; i < stats::kWaitCount; ++i) {
    const stats::WaitValue& w = r.waits.v[i];
    if (w.count <= 0) continue;
    t.waits.push_back({std::string(stats::kWaitTable[i].name), w.count,
                       static_cast<double>(w.max_ns) / 1e9,
                       static_cast<double>(w.total_ns) / 1e9});
  }
  return t;
}

std::string RenderTkprofStatement(const TkprofStatement& s) {
  std::string out;
  if (!s.sql_id.empty()) out += fmt::format("SQL ID: {} Plan Hash: 0\n\n", s.sql_id);
  out += s.sql_text + "\n\n\n";
  out += "call     count       cpu    elapsed       disk      query    current        rows\n";
  out += kCallRule;
  out += CallLine("Parse", s.parse);
  out += CallLine("Execute", s.execute);
  out += CallLine("Fetch", s.fetch);
  out += kCallRule;
  TkprofCall total;
  for (const TkprofCall* c : {&s.parse, &s.execute, &s.fetch}) {
    total.count += c->count;
    total.cpu_s += c->cpu_s;
    total.elapsed_s += c->elapsed_s;
    total.disk += c->disk;
    total.query += c->query;
    total.current += c->current;
    total.rows += c->rows;
  }
  out += CallLine("total", total);
  out += "\n";
  out += fmt::format("Misses in library cache during parse: {}\n", s.misses_during_parse);
  if (s.misses_during_execute > 0) {
    out += fmt::format("Misses in library cache during execute: {}\n", s.misses_during_execute);
  }
  out += fmt::format("Optimizer mode: {}\n", s.optimizer_mode);
  out += fmt::format("Parsing user id: {}\n", s.parsing_user);
  if (!s.waits.empty()) {
    out += "\nElapsed times include waiting on following events:\n";
    out += "  Event waited on                             Times   Max. Wait  Total Waited\n";
    out += "  ----------------------------------------   Waited  ----------  ------------\n";
    for (const TkprofWait& w : s.waits) {
      // Event names longer than the column push the numbers right, as tkprof does.
      out += fmt::format("  {:<40} {:>8}  {:>10.2f}  {:>12.2f}\n", w.event, w.times_waited,
                         w.max_wait_s, w.total_waited_s);
    }
  }
  out += kStars;
  return out;
}

std::string RenderTkprof(const std::vector<TkprofStatement>& statements,
                         const TkprofOptions& options) {
  std::string out;
  if (options.legend) {
    out += kStars;
    out += "count    = number of times OCI procedure was executed\n";
    out += "cpu      = cpu time in seconds executing\n";
    out += "elapsed  = elapsed time in seconds executing\n";
    out += "disk     = number of physical reads of buffers from disk\n";
    out += "query    = number of buffers gotten for consistent read\n";
    out += "current  = number of buffers gotten in current mode (usually for update)\n";
    out += "rows     = number of rows processed by the fetch or execute call\n";
    out += kStars;
  }
  for (const TkprofStatement& s : statements) {
    out += "\n";
    out += RenderTkprofStatement(s);
  }
  return out;
}

}  // namespace cellsim::report
