#include "cellsim/sqlrun/trace.h"

#include <algorithm>
#include <cctype>
#include <sstream>

#include "cellsim/db/sql_id.h"
#include "cellsim/stats/statistics.h"
#include "fmt/format.h"

namespace cellsim::sqlrun {
namespace {

uint64_t Us(uint64_t ns) { return ns / 1000; }

}  // namespace

std::string WaitLine(int cursor, const stats::WaitEvent& e) {
  using stats::WaitParamTraceName;
  return fmt::format("WAIT #{}: nam='{}' ela= {} {}={} {}={} {}={} obj#=-1 tim={}\n", cursor,
                     stats::WaitName(e.event), Us(e.ns), WaitParamTraceName(e.event, 1),
                     e.params.p1, WaitParamTraceName(e.event, 2), e.params.p2,
                     WaitParamTraceName(e.event, 3), e.params.p3, Us(e.end_ns));
}

absl::Status TraceWriter::Open(const std::string& path, uint32_t sid, std::string_view identifier) {
  out_.open(path, std::ios::trunc);
  if (!out_) return absl::InvalidArgumentError(fmt::format("--trace: cannot create {}", path));
  out_ << fmt::format(
      "Trace file {}\n{} (cellsim)\n*** TRACE FILE IDENTIFIER:({})\n*** SESSION ID:({}.1)\n\n",
      path, db::kOracleBanner, std::string(identifier), sid);
  return absl::OkStatus();
}

void TraceWriter::Call(std::string_view sql, const db::StatementResult& r, uint64_t elapsed_us,
                       uint64_t tim_us) {
  auto it = cursors_.find(sql);
  const bool first = it == cursors_.end();
  if (first) it = cursors_.emplace(std::string(sql), static_cast<int>(cursors_.size()) + 1).first;
  const int c = it->second;
  const int oct = db::CommandTypeOf(sql);
  if (first) {
    const db::SqlIdentity id = db::SqlIdOf(sql);
    out_ << fmt::format(
        "=====================\nPARSING IN CURSOR #{} len={} dep=0 uid=0 oct={} lid=0 tim={} "
        "hv={} ad='0' sqlid='{}'\n{}\nEND OF STMT\n",
        c, sql.size(), oct, tim_us, id.hash_value, id.sql_id, std::string(sql));
    out_ << fmt::format("PARSE #{}:c=0,e=0,p=0,cr=0,cu=0,mis=1,r=0,dep=0,og=1,plh=0,tim={}\n", c,
                        tim_us);
  }
  // Blocks read (p), consistent gets (cr) and current gets (cu), all on the
  // EXEC line: cellsim runs a query at its execute call; its FETCH returns
  // the rows.
  const int64_t p = r.statistics[stats::Stat::kPhysicalReads];
  const int64_t cr = r.statistics[stats::Stat::kConsistentGets];
  const int64_t cu = r.statistics[stats::Stat::kDbBlockGets];
  const bool select = oct == 3;
  // As Oracle writes them: a COMMIT's or ROLLBACK's XCTEND when the
  // transaction ends, each WAIT as the wait ends, the call's line when it
  // returns.
  if (oct == 44 || oct == 45) {
    out_ << fmt::format("XCTEND rlbk={}, rd_only=0, tim={}\n", oct == 45 ? 1 : 0, tim_us);
  }
  for (const stats::WaitEvent& e : r.wait_events) out_ << WaitLine(c, e);
  out_ << fmt::format("EXEC #{}:c={},e={},p={},cr={},cu={},mis=0,r={},dep=0,og=1,plh=0,tim={}\n",
                      c, Us(r.cpu_ns), elapsed_us, p, cr, cu, select ? 0 : r.rows, tim_us);
  if (select) {
    out_ << fmt::format("FETCH #{}:c=0,e=0,p=0,cr=0,cu=0,mis=0,r={},dep=0,og=1,plh=0,tim={}\n", c,
                        r.rows, tim_us);
  }
  // Each call reaches the file when it returns, as Oracle's trace lines do: a
  // killed run's traces hold every call its sessions saw complete (but the
  // one in progress).
  out_.flush();
}

absl::Status TraceWriter::Close() {
  out_.close();
  return out_.fail() ? absl::DataLossError("--trace: writing the trace file failed")
                     : absl::OkStatus();
}

namespace {

// "c=1,e=2,..." after "EXEC #n:" into a call line.
bool ParseCallFields(std::string_view fields, report::TkprofCall* call, bool* miss) {
  std::istringstream in{std::string(fields)};
  std::string kv;
  bool any = false;
  while (std::getline(in, kv, ',')) {
    const size_t eq = kv.find('=');
    if (eq == std::string::npos) return false;
    const std::string k = kv.substr(0, eq);
    char* end = nullptr;
    const long long v = std::strtoll(kv.c_str() + eq + 1, &end, 10);
    if (end == kv.c_str() + eq + 1) return false;
    if (k == "c") call->cpu_s += static_cast<double>(v) / 1e6;
    if (k == "e") call->elapsed_s += static_cast<double>(v) / 1e6;
    if (k == "p") call->disk += v;
    if (k == "cr") call->query += v;
    if (k == "cu") call->current += v;
    if (k == "r") call->rows += v;
    if (k == "mis" && v > 0) *miss = true;
    any = true;
  }
  ++call->count;
  return any;
}

struct TraceState {
  std::vector<report::TkprofStatement> out;
  std::map<std::string, size_t> by_text;
};

size_t StatementFor(TraceState& st, const std::string& text) {
  auto [it, added] = st.by_text.emplace(text, st.out.size());
  if (added) {
    report::TkprofStatement s;
    s.sql_text = text;
    s.sql_id = db::SqlIdOf(text).sql_id;
    s.misses_during_parse = 0;
    s.parsing_user = "SQLRUN";
    st.out.push_back(std::move(s));
  }
  return it->second;
}

absl::Status ParseOne(const std::string& text, TraceState& st) {
  std::istringstream in(text);
  std::map<int, size_t> cursor;  // cursor# -> statement (this file)
  std::string line;
  for (size_t n = 1; std::getline(in, line); ++n) {
    auto bad = [&](std::string_view why) {
      return absl::InvalidArgumentError(fmt::format("trace line {}: {}: {}", n, why, line));
    };
    int c = 0;
    if (std::sscanf(line.c_str(), "PARSING IN CURSOR #%d", &c) == 1) {
      std::string sql, l;
      for (; std::getline(in, l) && l != "END OF STMT"; ++n) sql += (sql.empty() ? "" : "\n") + l;
      ++n;
      cursor[c] = StatementFor(st, sql);
      continue;
    }
    const bool parse = line.rfind("PARSE #", 0) == 0, exec = line.rfind("EXEC #", 0) == 0;
    const bool fetch = line.rfind("FETCH #", 0) == 0, wait = line.rfind("WAIT #", 0) == 0;
    if (!parse && !exec && !fetch && !wait) continue;
    const size_t hash = line.find('#'), colon = line.find(':');
    if (colon == std::string::npos || std::sscanf(line.c_str() + hash + 1, "%d", &c) != 1) {
      return bad("expected '#cursor:'");
    }
    auto cur = cursor.find(c);
    if (cur == cursor.end()) continue;  // a cursor parsed before tracing began
    report::TkprofStatement& s = st.out[cur->second];
    if (wait) {
      const size_t nam = line.find("nam='"), ela = line.find("ela= ");
      if (nam == std::string::npos || ela == std::string::npos) return bad("expected nam='...' ela= N");
      const std::string event = line.substr(nam + 5, line.find('\'', nam + 5) - nam - 5);
      const double secs = std::strtod(line.c_str() + ela + 5, nullptr) / 1e6;
      auto w = std::find_if(s.waits.begin(), s.waits.end(),
                            [&](const report::TkprofWait& x) { return x.event == event; });
      if (w == s.waits.end()) w = s.waits.insert(s.waits.end(), report::TkprofWait{.event = event});
      ++w->times_waited;
      w->max_wait_s = std::max(w->max_wait_s, secs);
      w->total_waited_s += secs;
      continue;
    }
    bool miss = false;
    report::TkprofCall& call = parse ? s.parse : exec ? s.execute : s.fetch;
    if (!ParseCallFields(std::string_view(line).substr(colon + 1), &call, &miss)) {
      return bad("expected c=,e=,p=,cr=,cu=,mis=,r=,... fields");
    }
    if (miss) ++(parse ? s.misses_during_parse : s.misses_during_execute);
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<report::TkprofStatement>> ParseTrace(const std::vector<std::string>& texts) {
  TraceState st;
  for (const std::string& t : texts) {
    if (absl::Status s = ParseOne(t, st); !s.ok()) return s;
  }
  return std::move(st.out);
}

}  // namespace cellsim::sqlrun
