#include "cellsim/base/units.h"

#include <cctype>
#include <limits>

#include <fmt/format.h>

#include "cellsim/base/ascii.h"

namespace cellsim {

absl::StatusOr<uint64_t> ParseSize(std::string_view text) {
  std::string_view t = text;
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.front()))) t.remove_prefix(1);
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.remove_suffix(1);
  if (t.empty()) return absl::InvalidArgumentError("size is empty; expected e.g. 4096M");
  if (t[0] == '-') {
    return absl::InvalidArgumentError(fmt::format("size '{}' is negative", text));
  }
  size_t i = 0;
  uint64_t value = 0;
  while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) {
    uint64_t digit = static_cast<uint64_t>(t[i] - '0');
    if (value > (std::numeric_limits<uint64_t>::max() - digit) / 10) {
      return absl::OutOfRangeError(
          fmt::format("size '{}' is too large: it does not fit in 64 bits", text));
    }
    value = value * 10 + digit;
    ++i;
  }
  if (i == 0) {
    return absl::InvalidArgumentError(
        fmt::format("size '{}' is not a number; expected e.g. 4096M", text));
  }
  const std::string suffix = base::Upper(t.substr(i));
  uint64_t mult = 1;
  if (suffix.empty()) {
    mult = 1;
  } else if (suffix == "K") {
    mult = kKiB;
  } else if (suffix == "M") {
    mult = kMiB;
  } else if (suffix == "G") {
    mult = kGiB;
  } else if (suffix == "T") {
    mult = kTiB;
  } else {
    return absl::InvalidArgumentError(fmt::format(
        "size '{}' has unknown unit '{}': use K, M, G or T", text, t.substr(i)));
  }
  if (value > std::numeric_limits<uint64_t>::max() / mult) {
    return absl::OutOfRangeError(
        fmt::format("size '{}' is too large: it does not fit in 64 bits", text));
  }
  return value * mult;
}

absl::StatusOr<std::chrono::milliseconds> ParseDuration(std::string_view text) {
  auto bad = [&] {
    return absl::InvalidArgumentError(fmt::format(
        "duration '{}' is not a number with an optional unit ms, s, m or h (e.g. 30s, 5m)",
        text));
  };
  std::string_view t = text;
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.front()))) t.remove_prefix(1);
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.remove_suffix(1);
  size_t i = 0;
  uint64_t value = 0;
  for (; i < t.size() && std::isdigit(static_cast<unsigned char>(t[i])); ++i) {
    if (value > 1'000'000'000'000ull) return bad();
    value = value * 10 + static_cast<uint64_t>(t[i] - '0');
  }
  if (i == 0) return bad();
  const std::string unit = base::Lower(t.substr(i));
  uint64_t ms_per = 0;
  if (unit == "ms") {
    ms_per = 1;
  } else if (unit.empty() || unit == "s") {
    ms_per = 1000;
  } else if (unit == "m" || unit == "min") {
    ms_per = 60'000;
  } else if (unit == "h") {
    ms_per = 3'600'000;
  } else {
    return bad();
  }
  constexpr uint64_t kMaxMs = 100ull * 24 * 3'600'000;
  if (value > kMaxMs / ms_per) {
    return absl::OutOfRangeError(fmt::format("duration '{}' is longer than 100 days", text));
  }
  return std::chrono::milliseconds(static_cast<int64_t>(value * ms_per));
}

std::string FormatBytes(uint64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int unit = 0;
  double v = static_cast<double>(bytes);
  while (v >= 1024.0 && unit < 5) {
    v /= 1024.0;
    ++unit;
  }
  if (unit == 0) return fmt::format("{} B", bytes);
  std::string s = fmt::format("{:.2f}", v);
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return fmt::format("{} {}", s, kUnits[unit]);
}

}  // namespace cellsim
