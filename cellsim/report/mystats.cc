#include "cellsim/report/mystats.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <regex>

#include <fmt/format.h>

#include "absl/status/status.h"
#include "cellsim/base/sql_like.h"
#include "cellsim/base/user_regex.h"
#include "cellsim/report/text_format.h"

namespace cellsim::report {
namespace {

using internal::Lpad;
using internal::OracleNumber999;
using internal::Rpad;

constexpr size_t kWidth = 90;  // the original's div() width

void Div(std::string& out, char c = '-') { out += std::string(kWidth, c) + "\n"; }

// The original's sh(): two blank lines, a ruled title, and the column header.
void Section(std::string& out, std::string_view title, bool header) {
  out += "\n\n";
  Div(out);
  out += fmt::format("{}\n", title);
  Div(out);
  if (header) {
    out += "\n";
    out += "Type    " + Rpad("Statistic Name", 64) + Lpad("Value", 18) + "\n";
    out += std::string(6, '-') + "  " + std::string(64, '-') + "  " + std::string(16, '-') + "\n";
  }
}

std::string RowLine(const MystatsRow& r) {
  return Rpad(r.type, 8) + Rpad(r.name, 64) + Lpad(OracleNumber999(r.value), 18) + "\n";
}

std::string TimerLine(std::string_view name, double seconds) {
  return Rpad("TIMER", 8) + Rpad(std::string(name), 64) +
         Lpad(internal::OracleFm999990d00(seconds), 18) + "\n";
}

// Sort key of the original: LEAST(ABS(delta), 2147483647), then the name in
// byte order (a VARCHAR2-indexed associative array).
int64_t SortKey(int64_t v) {
  const uint64_t mag = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  return static_cast<int64_t>(std::min<uint64_t>(mag, 2147483647));
}

uint64_t Magnitude(int64_t v) { return v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v); }

std::string FilterText(const MystatsOptions& o) {
  std::vector<std::string> parts;
  if (o.threshold) parts.push_back(fmt::format("threshold={}", *o.threshold));
  if (!o.like.empty()) parts.push_back(fmt::format("statnames like={}", o.like));
  if (!o.not_like.empty()) parts.push_back(fmt::format("statnames not like={}", o.not_like));
  if (!o.regexp.empty()) parts.push_back(fmt::format("statnames regexp={}", o.regexp));
  if (parts.empty()) return "None";
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : ", ") + p;
  return out;
}

}  // namespace

bool SqlLike(std::string_view text, std::string_view pattern) {
  return ::cellsim::internal::SqlLike(text, pattern);
}

absl::StatusOr<MystatsOptions> ParseMystatsOptions(std::string_view args) {
  MystatsOptions o;
  size_t i = 0;
  while (i < args.size()) {
    while (i < args.size() && std::isspace(static_cast<unsigned char>(args[i]))) ++i;
    if (i >= args.size()) break;
    const size_t key_start = i;
    while (i < args.size() && args[i] != '=' && !std::isspace(static_cast<unsigned char>(args[i]))) {
      ++i;
    }
    const std::string key(args.substr(key_start, i - key_start));
    if (i >= args.size() || args[i] != '=') {
      return absl::InvalidArgumentError(
          fmt::format("mystats option '{}' has no value: write t=N, l=PATTERN, n=PATTERN or r=REGEXP",
                      key));
    }
    ++i;
    std::string value;
    if (i < args.size() && (args[i] == '\'' || args[i] == '"')) {
      const char q = args[i++];
      const size_t end = args.find(q, i);
      if (end == std::string_view::npos) {
        return absl::InvalidArgumentError(
            fmt::format("mystats option {}=: unterminated quote {}", key, q));
      }
      value = std::string(args.substr(i, end - i));
      i = end + 1;
    } else {
      const size_t start = i;
      while (i < args.size() && !std::isspace(static_cast<unsigned char>(args[i]))) ++i;
      value = std::string(args.substr(start, i - start));
    }
    if (key == "t") {
      int64_t t = 0;
      bool ok = !value.empty();
      size_t k = value[0] == '-' ? 1 : 0;
      ok = ok && k < value.size();
      for (; ok && k < value.size(); ++k) {
        if (!std::isdigit(static_cast<unsigned char>(value[k])) ||
            t > (std::numeric_limits<int64_t>::max() - 9) / 10) {
          ok = false;
          break;
        }
        t = t * 10 + (value[k] - '0');
      }
      if (!ok) {
        return absl::InvalidArgumentError(
            fmt::format("mystats threshold t={} is not an integer", value));
      }
      o.threshold = value[0] == '-' ? -t : t;
    } else if (key == "l") {
      o.like = value;
    } else if (key == "n") {
      o.not_like = value;
    } else if (key == "r") {
      if (absl::Status st = ::cellsim::internal::CheckUserRegex(value, fmt::format("mystats regexp r={}", value));
          !st.ok()) {
        return st;
      }
      try {
        std::regex re(value, std::regex::extended | std::regex::icase);
      } catch (const std::regex_error& e) {
        return absl::InvalidArgumentError(
            fmt::format("mystats regexp r={} is invalid: {}", value, e.what()));
      }
      o.regexp = value;
    } else {
      return absl::InvalidArgumentError(fmt::format(
          "unknown mystats option '{}': use t=N, l=PATTERN, n=PATTERN or r=REGEXP", key));
    }
  }
  return o;
}

absl::StatusOr<std::vector<MystatsRow>> MystatsRows(const MystatsInput& in,
                                                    const MystatsOptions& o) {
  std::optional<std::regex> re;
  if (!o.regexp.empty()) {
    try {
      re.emplace(o.regexp, std::regex::extended | std::regex::icase);
    } catch (const std::regex_error& e) {
      return absl::InvalidArgumentError(
          fmt::format("mystats regexp r={} is invalid: {}", o.regexp, e.what()));
    }
  }
  std::vector<MystatsRow> all;
  if (o.include_statistics) {
    for (size_t i = 0; i < stats::kStatCount; ++i) {
      all.push_back({"STAT", std::string(stats::kStatTable[i].name), in.statistics.v[i]});
    }
  }
  if (o.include_time) {
    all.push_back({"TIME", "elapsed time", std::llround(in.interval_s * 100.0)});
    for (size_t i = 0; i < stats::kWaitCount; ++i) {
      const stats::WaitValue& w = in.waits.v[i];
      if (w.count <= 0) continue;
      all.push_back({"TIME", fmt::format("{} time waited (us)", stats::kWaitTable[i].name),
                     static_cast<int64_t>(w.total_ns / 1000)});
    }
  }
  std::vector<MystatsRow> rows;
  for (MystatsRow& r : all) {
    // The original pads names to 64 characters and so cuts longer ones.
    r.name = r.name.substr(0, 64);
    if (o.threshold && static_cast<int64_t>(std::min<uint64_t>(
                           Magnitude(r.value), std::numeric_limits<int64_t>::max())) <
                           *o.threshold) {
      continue;
    }
    if (!o.like.empty() && !SqlLike(r.name, "%" + o.like + "%")) continue;
    if (!o.not_like.empty() && SqlLike(r.name, "%" + o.not_like + "%")) continue;
    if (re && !std::regex_search(r.name, *re)) continue;
    rows.push_back(std::move(r));
  }
  std::stable_sort(rows.begin(), rows.end(), [](const MystatsRow& a, const MystatsRow& b) {
    const int64_t ka = SortKey(a.value), kb = SortKey(b.value);
    if (ka != kb) return ka < kb;
    return a.name < b.name;
  });
  return rows;
}

absl::StatusOr<std::string> RenderMystats(const MystatsInput& in, const MystatsOptions& o) {
  absl::StatusOr<std::vector<MystatsRow>> rows = MystatsRows(in, o);
  if (!rows.ok()) return rows.status();
  std::string out;
  if (o.compact) {
    out += "Type    " + Rpad("Statistic Name", 64) + Lpad("Value", 18) + "\n";
    out += std::string(6, '-') + "  " + std::string(64, '-') + "  " + std::string(16, '-') + "\n";
    for (const MystatsRow& r : *rows) out += RowLine(r);
    return out;
  }
  out += "\n";
  Div(out, '=');
  out += fmt::format("MyStats report : {}\n", internal::OracleDate(in.report_time_unix, o.utc));
  Div(out, '=');
  Section(out, "1. Summary Timings", true);
  out += TimerLine("snapshot interval (seconds)", in.interval_s);
  out += TimerLine("CPU time used (seconds)", in.cpu_s);
  Section(out, "2. Statistics Report", true);
  for (const MystatsRow& r : *rows) out += RowLine(r);
  Section(out, "3. Options", false);
  out += fmt::format("- Statistics types : statistics={}, latches=N, time model={}\n",
                     o.include_statistics ? 'Y' : 'N', o.include_time ? 'Y' : 'N');
  out += fmt::format("- Reporting filter : {}\n", FilterText(o));
  Section(out, "4. About", false);
  out += "- Layout of MyStats v3.0 by Adrian Billington (http://www.oracle-developer.net)\n";
  out += "- Based on the SNAP_MY_STATS utility by Jonathan Lewis\n";
  out += "- Values from cellsim (simulated Exadata statistics)\n";
  out += "\n";
  Div(out, '=');
  out += "End of report\n";
  Div(out, '=');
  return out;
}

}  // namespace cellsim::report
