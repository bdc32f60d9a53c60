// Private character, identifier, comment and quoting helpers shared by the two
// SQL parsers (file DDL, data statements) and the statement splitter.
#ifndef CELLSIM_DB_SQL_TEXT_H_
#define CELLSIM_DB_SQL_TEXT_H_

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>

#include "cellsim/base/ascii.h"

namespace cellsim::db::internal {

using base::Lower;
using base::Upper;

inline bool IsIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
inline bool IsIdentChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '#';
}

// If a comment starts at sql[i] (-- to the end of the line, or /* to */),
// returns where it ends (the '\n', or one past the '*/'); returns `i` when none
// starts there, and npos for a /* without its */.
inline size_t CommentEnd(std::string_view sql, size_t i) {
  if (sql.substr(i, 2) == "--") {
    const size_t nl = sql.find('\n', i);
    return nl == std::string_view::npos ? sql.size() : nl;
  }
  if (sql.substr(i, 2) == "/*") {
    const size_t end = sql.find("*/", i + 2);
    return end == std::string_view::npos ? std::string_view::npos : end + 2;
  }
  return i;
}

// The first `count` words of `sql` (identifiers, spaces and comments
// before them skipped), upper case, joined by one space: how statements are
// told apart by their verb and object ("CREATE GLOBAL TEMPORARY").
inline std::string FirstWords(std::string_view sql, int count) {
  std::string out;
  size_t i = 0;
  for (int w = 0; w < count; ++w) {
    while (i < sql.size()) {
      if (std::isspace(static_cast<unsigned char>(sql[i]))) {
        ++i;
      } else if (const size_t comment_end = CommentEnd(sql, i); comment_end != i) {
        i = std::min(comment_end, sql.size());
      } else {
        break;
      }
    }
    size_t j = i;
    while (j < sql.size() && IsIdentChar(sql[j])) ++j;
    if (j == i) break;
    // (Appending piecewise: `" " + std::string` trips g++ 12's false -Wrestrict at -O3.)
    if (!out.empty()) out += ' ';
    out += Upper(sql.substr(i, j - i));
    i = j;
  }
  return out;
}

// A string literal ('...') or quoted identifier ("...") read from its opening
// quote. In a string literal '' stands for one quote, as in Oracle.
struct QuotedText {
  std::string text;     // between the quotes, '' collapsed
  size_t end = 0;       // one past the closing quote (sql.size() when unclosed)
  bool closed = false;
};
inline QuotedText ReadQuoted(std::string_view sql, size_t i) {
  const char quote = sql[i];
  QuotedText q;
  size_t j = i + 1;
  while (j < sql.size()) {
    if (sql[j] == quote) {
      if (quote == '\'' && j + 1 < sql.size() && sql[j + 1] == '\'') {
        q.text += '\'';
        j += 2;
        continue;
      }
      q.closed = true;
      break;
    }
    q.text += sql[j++];
  }
  q.end = q.closed ? j + 1 : sql.size();
  return q;
}

}  // namespace cellsim::db::internal

#endif  // CELLSIM_DB_SQL_TEXT_H_
