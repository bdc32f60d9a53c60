#include "cellsim/db/sql_lexer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "cellsim/db/sql_text.h"

namespace cellsim::db::internal {
namespace {

bool IsDigit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

class Lexer {
 public:
  Lexer(std::string_view sql, const SqlLexRules& rules) : sql_(sql), rules_(rules) {}

  SqlLexResult Run() {
    while (i_ < sql_.size() && !failed()) Step();
    if (!failed()) Push(SqlTok::kEnd, "", sql_.size());
    return std::move(result_);
  }

 private:
  bool failed() const {
    return !result_.tokens.empty() && result_.tokens.back().kind == SqlTok::kError;
  }
  void Push(SqlTok kind, std::string text, size_t end) {
    result_.tokens.push_back(SqlToken{kind, std::move(text), i_, end - i_});
    i_ = end;
  }
  void Fail(std::string message, std::string ora = "") {
    result_.error = SqlLexError{i_, std::move(message), std::move(ora)};
    result_.tokens.push_back(SqlToken{SqlTok::kError, "", i_, 0});
  }

  void Step() {
    const char c = sql_[i_];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i_;
    } else if (const size_t comment_end = CommentEnd(sql_, i_); comment_end != i_) {
      if (comment_end == std::string_view::npos) {
        return Fail("unterminated comment: '/*' has no closing '*/'");
      }
      i_ = comment_end;
    } else if (c == '\'' || c == '"') {
      Quoted(c);
    } else if (IsDigit(c) || (rules_.number_decimals && c == '.' && i_ + 1 < sql_.size() &&
                              IsDigit(sql_[i_ + 1]))) {
      size_t j = i_;
      while (j < sql_.size() && (IsDigit(sql_[j]) || (rules_.number_decimals && sql_[j] == '.'))) ++j;
      // Scientific notation (1e3, 2.5E-4), where numbers take decimals and no units.
      if (rules_.number_decimals && !rules_.number_units && j < sql_.size() &&
          (sql_[j] == 'e' || sql_[j] == 'E')) {
        size_t k = j + 1;
        if (k < sql_.size() && (sql_[k] == '+' || sql_[k] == '-')) ++k;
        if (k < sql_.size() && IsDigit(sql_[k])) {
          while (k < sql_.size() && IsDigit(sql_[k])) ++k;
          j = k;
        }
      }
      if (rules_.number_units) {
        while (j < sql_.size() && std::isalpha(static_cast<unsigned char>(sql_[j]))) ++j;
      }
      Push(SqlTok::kNumber, std::string(sql_.substr(i_, j - i_)), j);
    } else if (IsIdentStart(c)) {
      size_t j = i_;
      while (j < sql_.size() && IsIdentChar(sql_[j])) ++j;
      Push(SqlTok::kWord, std::string(sql_.substr(i_, j - i_)), j);
    } else if (rules_.punct.find(c) != std::string_view::npos) {
      size_t len = 1;
      if (rules_.two_char_operators) {
        for (std::string_view two : {"<=", ">=", "<>", "!=", "||"}) {
          if (sql_.substr(i_, 2) == two) len = 2;
        }
      }
      Push(SqlTok::kPunct, std::string(sql_.substr(i_, len)), i_ + len);
    } else {
      // A control or non-ASCII byte is shown by value: printed raw it would
      // garble the message (or the terminal).
      const unsigned char u = static_cast<unsigned char>(c);
      Fail(std::isprint(u) ? fmt::format("unexpected character '{}'", c)
                           : fmt::format("unexpected character 0x{:02x}", u),
           "ORA-00911: invalid character");
    }
  }

  void Quoted(char quote) {
    QuotedText q = ReadQuoted(sql_, i_);
    if (!q.closed) {
      return quote == '\''
                 ? Fail("unterminated string: no closing quote (')",
                        "ORA-01756: quoted string not properly terminated")
                 : Fail("unterminated identifier: no closing double quote (\")",
                        "ORA-01740: missing double quote in identifier");
    }
    if (quote == '"' && q.text.empty()) {
      return Fail("empty quoted identifier \"\"", "ORA-01741: illegal zero-length identifier");
    }
    Push(quote == '\'' ? SqlTok::kString : SqlTok::kQuotedIdent, std::move(q.text), q.end);
  }

  std::string_view sql_;
  const SqlLexRules& rules_;
  size_t i_ = 0;
  SqlLexResult result_;
};

}  // namespace

SqlLexResult LexSql(std::string_view sql, const SqlLexRules& rules) {
  return Lexer(sql, rules).Run();
}

std::string SqlErrorText(std::string_view sql, size_t pos, std::string_view message,
                         std::string_view ora) {
  pos = std::min(pos, sql.size());
  size_t line_start = sql.rfind('\n', pos == 0 ? 0 : pos - 1);
  line_start = (line_start == std::string_view::npos || pos == 0) ? 0 : line_start + 1;
  if (pos > 0 && sql[pos - 1] == '\n') line_start = pos;
  size_t line_end = sql.find('\n', pos);
  if (line_end == std::string_view::npos) line_end = sql.size();
  const size_t line_no = static_cast<size_t>(std::count(sql.begin(), sql.begin() + pos, '\n')) + 1;
  const size_t col = pos - line_start + 1;

  // Long lines are cut to a window around the error so the caret stays visible.
  constexpr size_t kWindow = 76;
  size_t from = line_start;
  size_t to = line_end;
  std::string prefix, suffix;
  if (to - from > kWindow) {
    from = pos > line_start + 40 ? pos - 40 : line_start;
    if (from > line_start) prefix = "...";
    to = std::min(line_end, from + kWindow);
    if (to < line_end) suffix = "...";
  }
  std::string excerpt = prefix + std::string(sql.substr(from, to - from)) + suffix;
  // Control and non-ASCII bytes print as '?' (one column per byte keeps the
  // caret under the error).
  for (char& ch : excerpt) {
    if (ch != '\t' && !std::isprint(static_cast<unsigned char>(ch))) ch = '?';
  }
  std::string caret(prefix.size(), ' ');
  for (size_t k = from; k < pos; ++k) caret += sql[k] == '\t' ? '\t' : ' ';
  caret += '^';
  std::string msg = fmt::format("at {}:{}: {}", line_no, col, message);
  if (!ora.empty()) msg += fmt::format(" ({})", ora);
  msg += fmt::format("\n  {}\n  {}", excerpt, caret);
  return msg;
}

}  // namespace cellsim::db::internal
