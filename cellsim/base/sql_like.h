// Private: SQL's LIKE on bytes, for the database's LIKE and the name filters
// of the reports (mystats like=): '%' any bytes (none, or a newline too),
// '_' one byte, any other byte itself (case-sensitive, no ESCAPE).
#ifndef CELLSIM_BASE_SQL_LIKE_H_
#define CELLSIM_BASE_SQL_LIKE_H_

#include <string_view>

namespace cellsim::internal {

// A greedy match that backtracks to the last '%' (no regex: it runs once
// per row). A '%' in the pattern is always the wildcard, also where the
// text holds a '%'.
inline bool SqlLike(std::string_view text, std::string_view pattern) {
  size_t t = 0, p = 0;
  size_t star = std::string_view::npos, star_t = 0;  // the last '%' and where it began to match
  while (t < text.size()) {
    if (p < pattern.size() && pattern[p] == '%') {
      star = p++;
      star_t = t;
    } else if (p < pattern.size() && (pattern[p] == '_' || pattern[p] == text[t])) {
      ++p;
      ++t;
    } else if (star != std::string_view::npos) {
      p = star + 1;  // the '%' takes one byte more
      t = ++star_t;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '%') ++p;
  return p == pattern.size();
}

}  // namespace cellsim::internal

#endif  // CELLSIM_BASE_SQL_LIKE_H_
