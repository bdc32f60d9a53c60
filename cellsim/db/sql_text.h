// Private character and identifier helpers shared by the SQL parser and the
// statement printer/splitter.
#ifndef CELLSIM_DB_SQL_TEXT_H_
#define CELLSIM_DB_SQL_TEXT_H_

#include <cctype>
#include <string>
#include <string_view>

namespace cellsim::db::internal {

inline std::string Upper(std::string_view s) {
  std::string r(s);
  for (char& c : r) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return r;
}

inline std::string Lower(std::string_view s) {
  std::string r(s);
  for (char& c : r) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return r;
}

inline bool IsIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
inline bool IsIdentChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '#';
}

}  // namespace cellsim::db::internal

#endif  // CELLSIM_DB_SQL_TEXT_H_
