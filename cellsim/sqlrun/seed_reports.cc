#include "cellsim/sqlrun/seed_reports.h"

#include <algorithm>
#include <ctime>
#include <map>

#include "fmt/format.h"

namespace cellsim::sqlrun {
namespace {

// 984328224 -> "984,328,224" (SQL*Plus's 999,999,999,999 format).
std::string Grouped(int64_t v) {
  std::string digits = std::to_string(v < 0 ? -v : v);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return v < 0 ? "-" + out : out;
}

std::string UsDate(int64_t unix) {
  const time_t t = static_cast<time_t>(unix);
  tm tm{};
  gmtime_r(&t, &tm);
  return fmt::format("{:02}/{:02}/{:04} {:02}:{:02}:{:02}", tm.tm_mon + 1, tm.tm_mday,
                     tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

int64_t Int(const std::string& s) { return std::atoll(s.c_str()); }

}  // namespace

std::string RenderStatsReport(const Sample& s) {
  const int64_t tx = s.tally >= 0 ? s.tally : s.transactions;
  std::string out = fmt::format("\n{:<40} {:>16} {:>10}\n{} {} {}\n", "NAME", "VALUE", "TXCOUNT",
                                std::string(40, '-'), std::string(16, '-'), std::string(10, '-'));
  out += fmt::format("{:<40} {:>16} {:>10}\n", "redo size", Grouped(s.redo_size), tx);
  out += fmt::format("{:<40} {:>16} {:>10}\n", "undo change vector size",
                     Grouped(s.undo_change_vector_size), tx);
  return out + "\n2 rows selected.\n";
}

absl::StatusOr<std::vector<AllsegRow>> QueryAllseg(db::Session& session) {
  // The dates as Unix seconds (days since 1970 times 86,400), for the join
  // and the layout.
  constexpr const char* kUnix = "round((begin_time - to_date('1970-01-01', 'YYYY-MM-DD')) * 86400)";
  absl::StatusOr<db::StatementResult> perm = session.Execute(fmt::format(
      "select {} b, round((end_time - begin_time) * 86400) + {} e, undoblks, txncount "
      "from v$undostat", kUnix, kUnix));
  if (!perm.ok()) return perm.status();
  absl::StatusOr<db::StatementResult> temp = session.Execute(
      fmt::format("select {} b, txncount, undoblkcnt from v$tempundostat", kUnix));
  if (!temp.ok()) return temp.status();
  std::map<int64_t, std::pair<int64_t, int64_t>> temp_by_begin;
  for (const auto& r : temp->result_rows) {
    if (r.size() >= 3) temp_by_begin[Int(r[0])] = {Int(r[1]), Int(r[2])};
  }
  std::vector<AllsegRow> out;
  for (const auto& r : perm->result_rows) {
    if (r.size() < 4) continue;
    AllsegRow a{.begin_unix = Int(r[0]), .end_unix = Int(r[1]), .perm_undo_blocks = Int(r[2]),
                .perm_txn_count = Int(r[3]), .temp_txn_count = {}, .temp_undo_blocks = {}};
    if (auto t = temp_by_begin.find(a.begin_unix); t != temp_by_begin.end()) {
      a.temp_txn_count = t->second.first;
      a.temp_undo_blocks = t->second.second;
    }
    out.push_back(a);
  }
  std::sort(out.begin(), out.end(),
            [](const AllsegRow& a, const AllsegRow& b) { return a.begin_unix < b.begin_unix; });
  return out;
}

std::string RenderAllseg(const std::vector<AllsegRow>& rows) {
  std::string out = fmt::format("\n{:>43}{:>4}{:>24}\n{:>43}{:>4}{:>8}{:>8}{:>8}\n", "", "PERM",
                                "TEMP", "", "UNDO", "PERM", "TEMP", "UNDO");
  out += fmt::format("{:<19} {:<19} {:>7} {:>7} {:>7} {:>7}\n", "BEGIN_TIME", "END_TIME", "BLKS",
                     "UNDO", "UNDO", "BLKS");
  out += fmt::format("{} {} {} {} {} {}\n", std::string(19, '-'), std::string(19, '-'),
                     std::string(7, '-'), std::string(7, '-'), std::string(7, '-'),
                     std::string(7, '-'));
  auto opt = [](const std::optional<int64_t>& v) {
    return v.has_value() ? fmt::format("{:>7}", *v) : std::string(7, ' ');
  };
  for (const AllsegRow& r : rows) {
    std::string line = fmt::format("{} {} {:>7} {:>7} {} {}", UsDate(r.begin_unix),
                                   UsDate(r.end_unix), r.perm_undo_blocks, r.perm_txn_count,
                                   opt(r.temp_txn_count), opt(r.temp_undo_blocks));
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out + (rows.size() == 1 ? std::string("\n1 row selected.\n")
                                 : fmt::format("\n{} rows selected.\n", rows.size()));
}

}  // namespace cellsim::sqlrun
