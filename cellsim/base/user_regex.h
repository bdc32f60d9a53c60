// Private: a check of user-given regular expressions (mystats r=, CellCLI
// LIKE) before std::regex compiles them. libstdc++ parses brace counts with
// signed arithmetic that overflows ("a{99999999999999999999}" is undefined
// behaviour; found by tests/fuzz/text_parsers_fuzzer) and builds one automaton
// state per repetition, so "a{100000000}" alone takes gigabytes. The patterns
// are short name filters: long patterns, repeat counts above 100 and more than
// two counted repetitions are refused.
#ifndef CELLSIM_BASE_USER_REGEX_H_
#define CELLSIM_BASE_USER_REGEX_H_

#include <cctype>
#include <string_view>

#include <fmt/format.h>

#include "absl/status/status.h"

namespace cellsim::internal {

inline constexpr size_t kMaxUserRegexLength = 256;
inline constexpr int kMaxUserRegexRepeat = 100;

// InvalidArgument naming `what` when `pattern` is outside the limits above.
inline absl::Status CheckUserRegex(std::string_view pattern, std::string_view what) {
  if (pattern.size() > kMaxUserRegexLength) {
    return absl::InvalidArgumentError(fmt::format(
        "{}: the regular expression is {} characters long, at most {} are allowed", what,
        pattern.size(), kMaxUserRegexLength));
  }
  int counted = 0;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '\\') {
      ++i;  // an escaped character is a literal
      continue;
    }
    if (pattern[i] != '{') continue;
    ++counted;
    for (size_t j = i + 1; j < pattern.size() && pattern[j] != '}'; ++j) {
      if (!std::isdigit(static_cast<unsigned char>(pattern[j]))) continue;
      size_t end = j;
      while (end < pattern.size() && std::isdigit(static_cast<unsigned char>(pattern[end]))) ++end;
      const std::string_view digits = pattern.substr(j, end - j);
      if (digits.size() > 3 || std::stoi(std::string(digits)) > kMaxUserRegexRepeat) {
        return absl::InvalidArgumentError(fmt::format(
            "{}: repeat count {{{}}} in the regular expression is above {}", what, digits,
            kMaxUserRegexRepeat));
      }
      j = end - 1;
    }
  }
  if (counted > 2) {
    return absl::InvalidArgumentError(fmt::format(
        "{}: the regular expression has {} counted repetitions {{...}}, at most 2 are allowed",
        what, counted));
  }
  return absl::OkStatus();
}

}  // namespace cellsim::internal

#endif  // CELLSIM_BASE_USER_REGEX_H_
