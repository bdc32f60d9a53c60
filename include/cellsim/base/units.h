// Sizes as users write them ("4096m", "1G", "512K", "1073741824") and as
// reports print them, shared by the SQL parser, the CLI and the reports.
//
// Usage:
//   absl::StatusOr<uint64_t> n = ParseSize("4096m");  // 4294967296
//   std::string s = FormatBytes(17179869184);         // "16 GiB"
#ifndef CELLSIM_BASE_UNITS_H_
#define CELLSIM_BASE_UNITS_H_

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace cellsim {

inline constexpr uint64_t kKiB = 1024;
inline constexpr uint64_t kMiB = 1024 * kKiB;
inline constexpr uint64_t kGiB = 1024 * kMiB;
inline constexpr uint64_t kTiB = 1024 * kGiB;

// Parses a size as Oracle's SIZE clause writes it: a decimal integer with an
// optional K/M/G/T suffix (binary multiples, case-insensitive; no suffix:
// bytes). The one size parser: SQL statements and every CLI option use it,
// so a size means the same everywhere. Errors: InvalidArgument naming the
// text for an empty string, a non-number, a negative value or an unknown
// suffix ("4MB", "1GiB", "1e3"); OutOfRange when the value overflows 64 bits.
[[nodiscard]] absl::StatusOr<uint64_t> ParseSize(std::string_view text);

// Parses a duration as the CLI's options take it: a decimal number with an
// optional unit ms, s, m or h (case-insensitive; no unit: seconds), e.g.
// "300", "30s", "5m", "1h", "250ms", "0". Errors: InvalidArgument naming the
// text and the expected form; OutOfRange past 100 days.
[[nodiscard]] absl::StatusOr<std::chrono::milliseconds> ParseDuration(std::string_view text);

// "16 GiB", "4 MiB", "1.5 GiB", "512 B": the largest unit with <= 2 decimals.
std::string FormatBytes(uint64_t bytes);

}  // namespace cellsim

#endif  // CELLSIM_BASE_UNITS_H_
