#include "cellsim/report/text_format.h"

#include <cmath>
#include <cstdlib>
#include <ctime>

#include <fmt/format.h>

namespace cellsim::report::internal {

std::string GroupThousands(int64_t v) {
  // Through uint64_t so that INT64_MIN has a magnitude too.
  const bool negative = v < 0;
  uint64_t m = negative ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  std::string digits = fmt::format("{}", m);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return negative ? "-" + out : out;
}

std::string OracleNumber999(int64_t v) {
  constexpr int64_t kMax = 999'999'999'999'999;
  if (v > kMax || v < -kMax) return std::string(16, '#');
  return Lpad(GroupThousands(v), 16);
}

std::string OracleFm999990d00(double v) {
  const double rounded = std::round(v * 100.0) / 100.0;
  if (std::fabs(rounded) >= 1e6) return std::string(11, '#');
  const int64_t cents = std::llround(std::fabs(rounded) * 100.0);
  return fmt::format("{}{}.{:02}", rounded < 0 ? "-" : "", GroupThousands(cents / 100),
                     cents % 100);
}

namespace {
std::tm BrokenDown(int64_t unix_seconds, bool utc) {
  const std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  if (utc) {
    gmtime_r(&t, &tm);
  } else {
    localtime_r(&t, &tm);
  }
  return tm;
}
}  // namespace

std::string OracleDate(int64_t unix_seconds, bool utc) {
  static constexpr const char* kMonths[] = {"JAN", "FEB", "MAR", "APR", "MAY", "JUN",
                                            "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"};
  const std::tm tm = BrokenDown(unix_seconds, utc);
  return fmt::format("{:02}-{}-{:04} {:02}:{:02}:{:02}", tm.tm_mday, kMonths[tm.tm_mon],
                     tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

std::string Iso8601(int64_t unix_seconds, bool utc) {
  const std::tm tm = BrokenDown(unix_seconds, utc);
  const long off = utc ? 0 : tm.tm_gmtoff;
  const long abs_off = std::labs(off);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}{}{:02}:{:02}", tm.tm_year + 1900,
                     tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                     off < 0 ? '-' : '+', abs_off / 3600, (abs_off % 3600) / 60);
}

std::string Rpad(const std::string& s, size_t width) {
  if (s.size() >= width) return s.substr(0, width);
  return s + std::string(width - s.size(), ' ');
}

std::string Lpad(const std::string& s, size_t width) {
  if (s.size() >= width) return s.substr(0, width);
  return std::string(width - s.size(), ' ') + s;
}

}  // namespace cellsim::report::internal
