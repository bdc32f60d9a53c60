#include "cellsim/base/units.h"

#include <cctype>
#include <limits>

#include <fmt/format.h>

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
      return absl::OutOfRangeError(fmt::format("size '{}' is too large", text));
    }
    value = value * 10 + digit;
    ++i;
  }
  if (i == 0) {
    return absl::InvalidArgumentError(
        fmt::format("size '{}' is not a number; expected e.g. 4096M", text));
  }
  std::string suffix(t.substr(i));
  for (char& ch : suffix) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  uint64_t mult = 1;
  if (suffix.empty() || suffix == "B") {
    mult = 1;
  } else if (suffix == "K" || suffix == "KB" || suffix == "KIB") {
    mult = kKiB;
  } else if (suffix == "M" || suffix == "MB" || suffix == "MIB") {
    mult = kMiB;
  } else if (suffix == "G" || suffix == "GB" || suffix == "GIB") {
    mult = kGiB;
  } else if (suffix == "T" || suffix == "TB" || suffix == "TIB") {
    mult = kTiB;
  } else {
    return absl::InvalidArgumentError(fmt::format(
        "size '{}' has unknown unit '{}'; use K, M, G or T", text, t.substr(i)));
  }
  if (value > std::numeric_limits<uint64_t>::max() / mult) {
    return absl::OutOfRangeError(fmt::format("size '{}' is too large", text));
  }
  return value * mult;
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
