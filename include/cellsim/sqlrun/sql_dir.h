// An unmodified Sqlrun SQL directory (github.com/jkstill/sqlrun, docs/sqlrun.md):
// `<sqldir>/<driver>/sqlfile.conf` (which statements, how often, which bind
// file), `parameters.conf` (ALTER SESSION settings), one `.sql` file per
// statement and the bind files, parsed as Sqlrun's lib/Sqlrun/File.pm does
// (../shared/temp-undo.md §4.3-4.4):
//
//   sqlfile.conf   line 1 is the delimiter (its first whitespace run removed);
//                  then `frequency<d>sqlfile[<d>bindfile][<d>]` per line, '#'
//                  and blank lines skipped; a duplicate sqlfile keeps the last
//                  line (Sqlrun's hash), at the position of the first.
//   parameters.conf `name,value` (the value is every later field joined with
//                  ''), '#' and blank lines skipped, the last duplicate wins.
//   .sql file      every non-blank line, newlines kept, no trailing ';'.
//   bind file      one bind row per line, split by the same delimiter.
//
// Differences from Sqlrun, on purpose: statements keep the file's order (Sqlrun
// uses Perl's hash order, random per run), so a run is reproducible; a line
// with no frequency or a frequency that is not a positive integer is an error
// naming the file and line (Sqlrun would take it as 0 and skip the SQL).
//
// Thread-safety: pure functions; the result is a plain value.
#ifndef CELLSIM_SQLRUN_SQL_DIR_H_
#define CELLSIM_SQLRUN_SQL_DIR_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace cellsim::sqlrun {

// Sqlrun's classifySQL: DML (commit/rollback follow), SELECT (rows fetched and
// discarded), PLSQL (never committed by Sqlrun) or UNKNOWN.
enum class SqlType : uint8_t { kDml, kSelect, kPlsql, kUnknown };
std::string_view SqlTypeName(SqlType t);  // "DML", "SELECT", "PLSQL", "UNKNOWN"
SqlType ClassifySql(std::string_view sql);

struct SqlEntry {
  std::string file;       // as named in sqlfile.conf ("temp-insert.sql")
  int frequency = 1;      // copies in the semi-random array
  std::string bind_file;  // "" when none
  std::string text;       // the statement
  SqlType type = SqlType::kUnknown;
  std::vector<std::vector<std::string>> bind_rows;  // positional values per row
  size_t conf_line = 0;   // line of sqlfile.conf that named it
};

struct SqlDir {
  std::string dir;        // <sqldir>/<driver>
  std::string delimiter;  // from line 1 of sqlfile.conf
  std::vector<SqlEntry> entries;  // in file order
  std::vector<std::pair<std::string, std::string>> parameters;  // parameters.conf
};

struct SqlDirOptions {
  std::string sqldir;          // --sqldir; files are read from <sqldir>/<driver>/
  std::string driver = "Oracle";
  std::string sqlfile;         // --sqlfile; default <sqldir>/<driver>/sqlfile.conf
  std::string parmfile;        // --parmfile; default <sqldir>/<driver>/parameters.conf
};

// Reads and checks the directory. Errors (InvalidArgument, naming the file
// and line): a missing sqlfile.conf or SQL/bind file, an empty delimiter, a
// bad frequency, a line with no SQL file, no statement at all. A missing
// parameters.conf is not an error (Sqlrun warns and goes on).
[[nodiscard]] absl::StatusOr<SqlDir> LoadSqlDir(const SqlDirOptions& options);

// The same from texts (tests, embedders): `read(name)` returns a file of the
// directory or NotFound.
[[nodiscard]] absl::StatusOr<std::vector<SqlEntry>> ParseSqlFileConf(
    std::string_view text, std::string_view conf_name, std::string* delimiter);
[[nodiscard]] absl::StatusOr<std::vector<std::pair<std::string, std::string>>>
ParseParametersConf(std::string_view text, std::string_view conf_name);
// A bind file's rows, split by `delimiter`.
std::vector<std::vector<std::string>> ParseBindFile(std::string_view text,
                                                    std::string_view delimiter);
// A .sql file's statement: non-blank lines joined by '\n'.
std::string ParseSqlFile(std::string_view text);

}  // namespace cellsim::sqlrun

#endif  // CELLSIM_SQLRUN_SQL_DIR_H_
