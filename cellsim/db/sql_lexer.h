// The one SQL lexer of the database (private to the db layer): the file-DDL
// parser (parser.cc) and the data-statement parser (data_parser.cc) differ only
// in the rules below, and both report errors in one layout (SqlErrorText).
#ifndef CELLSIM_DB_SQL_LEXER_H_
#define CELLSIM_DB_SQL_LEXER_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace cellsim::db::internal {

// kError stands where lexing failed (the last token then): a parser may report
// the error only when it gets there.
enum class SqlTok { kWord, kQuotedIdent, kString, kNumber, kPunct, kEnd, kError };

struct SqlToken {
  SqlTok kind = SqlTok::kEnd;
  std::string text;  // words, numbers, punctuation as written; quoted content unescaped
  size_t pos = 0;    // byte offset in the statement
  size_t len = 0;    // bytes in the source
};

struct SqlLexRules {
  bool number_units = false;     // "4096m", "8k": digits with glued letters are one number
  bool number_decimals = false;  // "1.5", ".5"
  std::string_view punct = "(),=;";
  bool two_char_operators = false;  // <= >= <> != || are one token
};

struct SqlLexError {
  size_t pos = 0;
  std::string message;  // "unterminated comment: '/*' has no closing '*/'"
  std::string ora;      // "ORA-01756: quoted string not properly terminated", or empty
};

struct SqlLexResult {
  std::vector<SqlToken> tokens;  // ends with kEnd, or with kError at error.pos
  SqlLexError error;             // meaningful when tokens.back().kind == kError
  bool ok() const { return tokens.back().kind != SqlTok::kError; }
};

SqlLexResult LexSql(std::string_view sql, const SqlLexRules& rules);

// "at L:C: message (ORA-...)\n  <line excerpt>\n  <caret under pos>"; long
// lines are cut to a window around pos, control bytes shown as '?'.
std::string SqlErrorText(std::string_view sql, size_t pos, std::string_view message,
                         std::string_view ora);

}  // namespace cellsim::db::internal

#endif  // CELLSIM_DB_SQL_LEXER_H_
