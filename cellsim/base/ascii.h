// ASCII case folding for names (disk groups, grid disks, SQL identifiers,
// units): Oracle and CellCLI compare names case-insensitively in ASCII, never
// by locale. Private to the library.
#ifndef CELLSIM_BASE_ASCII_H_
#define CELLSIM_BASE_ASCII_H_

#include <cctype>
#include <string>
#include <string_view>

namespace cellsim::base {

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

}  // namespace cellsim::base

#endif  // CELLSIM_BASE_ASCII_H_
