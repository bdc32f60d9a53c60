// Recursive-descent parser for the data statements of data_statement.h. Kept
// apart from the file-DDL parser (parser.cc); both use the one lexer and error
// layout of sql_lexer.h ("at LINE:COL: expected X, found Y (ORA-...)" plus the
// line and a caret).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "cellsim/db/analytic.h"
#include "cellsim/db/data_statement.h"
#include "cellsim/db/sql_lexer.h"
#include "cellsim/db/sql_text.h"

namespace cellsim::db {
namespace {

using internal::CommentEnd;
using internal::FirstWords;
using internal::IsIdentChar;
using internal::IsIdentStart;
using internal::Lower;
using internal::Upper;

enum class Tok { kWord, kQuoted, kString, kNumber, kPunct, kEnd };

struct Token {
  Tok kind = Tok::kEnd;
  std::string text;  // words uppercased, quoted identifiers and strings as is
  std::string raw;   // as written
  size_t pos = 0;
};

// What may come between an analytic function's arguments and OVER:
// [FROM FIRST | FROM LAST] [IGNORE NULLS | RESPECT NULLS] (Window).
struct NullsAndDirection {
  bool ignore_nulls = false;
  bool from_last = false;
  bool written = false;  // any of them written
};

class DataParser {
 public:
  explicit DataParser(std::string_view sql) : sql_(sql) {}

  // One expression and nothing after it (a column's DEFAULT as stored).
  absl::StatusOr<ExprPtr> ParseExpression() {
    if (absl::Status s = Lex(); !s.ok()) return s;
    absl::StatusOr<ExprPtr> e = Or();
    if (!e.ok()) return e;
    if (Peek().kind != Tok::kEnd) {
      return Error(fmt::format("expected end of expression, found {}", Describe(Peek())),
                   "ORA-00933: SQL command not properly ended");
    }
    return e;
  }
  absl::StatusOr<DataStatement> Parse() {
    if (absl::Status s = Lex(); !s.ok()) return s;
    absl::StatusOr<DataStatement> st = Top();
    if (!st.ok()) return st;
    if (IsP(";")) Next();
    if (Peek().kind != Tok::kEnd) {
      return Error(fmt::format("expected end of statement, found {}", Describe(Peek())),
                   "ORA-00933: SQL command not properly ended");
    }
    return st;
  }

 private:
  // ---- lexer ----
  // The data statements' lexical rules: decimals and the comparison operators.
  static constexpr internal::SqlLexRules kLexRules{
      .number_decimals = true, .punct = "(),;=<>+-*/.!|", .two_char_operators = true};

  static Tok KindOf(internal::SqlTok k) {
    switch (k) {
      case internal::SqlTok::kWord:
        return Tok::kWord;
      case internal::SqlTok::kQuotedIdent:
        return Tok::kQuoted;
      case internal::SqlTok::kString:
        return Tok::kString;
      case internal::SqlTok::kNumber:
        return Tok::kNumber;
      case internal::SqlTok::kPunct:
        return Tok::kPunct;
      case internal::SqlTok::kEnd:
      case internal::SqlTok::kError:  // not reached: Lex returns the error first
        break;
    }
    return Tok::kEnd;
  }

  absl::Status Lex() {
    internal::SqlLexResult lexed = internal::LexSql(sql_, kLexRules);
    if (!lexed.ok()) return ErrorAt(lexed.error.pos, lexed.error.message, lexed.error.ora);
    for (internal::SqlToken& t : lexed.tokens) {
      const Tok kind = KindOf(t.kind);
      std::string text = kind == Tok::kWord ? Upper(t.text) : std::move(t.text);
      tokens_.push_back(Token{kind, std::move(text), std::string(sql_.substr(t.pos, t.len)), t.pos});
    }
    return absl::OkStatus();
  }

  // ---- helpers ----
  const Token& Peek(size_t k = 0) const { return tokens_[std::min(pos_ + k, tokens_.size() - 1)]; }
  const Token& Next() { return tokens_[pos_ < tokens_.size() - 1 ? pos_++ : pos_]; }
  bool IsW(std::string_view w, size_t k = 0) const {
    return Peek(k).kind == Tok::kWord && Peek(k).text == w;
  }
  bool IsP(std::string_view p, size_t k = 0) const {
    return Peek(k).kind == Tok::kPunct && Peek(k).text == p;
  }
  bool AcceptW(std::string_view w) {
    if (!IsW(w)) return false;
    Next();
    return true;
  }
  bool AcceptP(std::string_view p) {
    if (!IsP(p)) return false;
    Next();
    return true;
  }
  static std::string Describe(const Token& t) {
    if (t.kind == Tok::kEnd) return "end of statement";
    if (t.kind == Tok::kString) return fmt::format("the string {}", t.raw);  // raw has its quotes
    return fmt::format("'{}'", t.raw);
  }
  absl::Status ErrorAt(size_t pos, std::string_view what, std::string_view code) const {
    return absl::InvalidArgumentError(internal::SqlErrorText(
        sql_, pos, what, code.empty() ? "ORA-00900: invalid SQL statement" : code));
  }
  absl::Status Error(const std::string& what, std::string_view code = "") const {
    return ErrorAt(Peek().pos, what, code);
  }
  absl::Status ExpectW(std::string_view w) {
    if (AcceptW(w)) return absl::OkStatus();
    return Error(fmt::format("expected {}, found {}", w, Describe(Peek())),
                 "ORA-00905: missing keyword");
  }
  absl::Status ExpectP(std::string_view p) {
    if (AcceptP(p)) return absl::OkStatus();
    std::string_view code = p == ")" ? "ORA-00907: missing right parenthesis"
                                     : p == "(" ? "ORA-00906: missing left parenthesis"
                                                : "ORA-00917: missing comma";
    return Error(fmt::format("expected '{}', found {}", p, Describe(Peek())), code);
  }
  absl::StatusOr<std::string> Identifier(std::string_view what) {
    const Token& t = Peek();
    if (t.kind == Tok::kWord || t.kind == Tok::kQuoted) {
      Next();
      if (t.text.size() > 128) {
        return ErrorAt(t.pos, "identifier longer than 128 bytes", "ORA-00972: identifier is too long");
      }
      return t.text;
    }
    return Error(fmt::format("expected {}, found {}", what, Describe(t)), MissingNameCode(what));
  }
  // Oracle's error for a name missing where `what` was expected.
  static std::string_view MissingNameCode(std::string_view what) {
    if (what == "a table name") return "ORA-00903: invalid table name";
    if (what == "a column name") return "ORA-00904: invalid identifier";
    if (what == "a constraint name") return "ORA-02250: missing or invalid constraint name";
    if (what == "a tablespace name") return "ORA-02216: tablespace name expected";
    return "ORA-00931: missing identifier";
  }
  // The statement's text from byte `start` to byte `end` as written (a
  // select item's heading, a CHECK's or DEFAULT's text, a view's query),
  // without the blanks before the next token.
  std::string WrittenFrom(size_t start, size_t end) const {
    std::string text(sql_.substr(start, end - start));
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
    return text;
  }
  // A table name, optionally schema-qualified (the schema is accepted and ignored).
  absl::StatusOr<std::string> TableName() {
    absl::StatusOr<std::string> n = Identifier("a table name");
    if (n.ok() && IsP(".") && (Peek(1).kind == Tok::kWord || Peek(1).kind == Tok::kQuoted)) {
      Next();
      return Identifier("a table name");
    }
    return n;
  }
  bool IsReserved(const Token& t) const {
    static const char* kReserved[] = {"WHERE", "ORDER", "CONNECT", "LEFT", "JOIN", "ON",
                                      "SET", "USING", "WHEN", "FROM", "GROUP", "INNER",
                                      "AND", "OR", "VALUES", "SELECT", "UNION",
                                      "HAVING", "DISTINCT", "MINUS", "INTERSECT", "EXCEPT", "THEN",
                                      "ELSE", "END", "CASE", "WITH", "FOR"};
    if (t.kind != Tok::kWord) return false;
    for (const char* r : kReserved) {
      if (t.text == r) return true;
    }
    return false;
  }
  // OFFSET n ROWS / FETCH FIRST|NEXT ...: the row limiting clause starts here
  // (the words are not reserved: elsewhere they can name things).
  bool AtRowLimit() const {
    return (IsW("OFFSET") && Peek(1).kind == Tok::kNumber) ||
           (IsW("FETCH") && (IsW("FIRST", 1) || IsW("NEXT", 1)));
  }
  // A join's words start here: [NATURAL] [INNER | CROSS | {LEFT | RIGHT |
  // FULL} [OUTER]] JOIN (the words are not reserved: elsewhere they can be
  // aliases).
  bool AtJoin() const {
    size_t k = IsW("NATURAL") ? 1 : 0;
    if (IsW("LEFT", k) || IsW("RIGHT", k) || IsW("FULL", k)) {
      ++k;
      if (IsW("OUTER", k)) ++k;
    } else if (IsW("INNER", k) || IsW("CROSS", k)) {
      ++k;
    }
    return IsW("JOIN", k);
  }
  std::string OptionalAlias() {
    AcceptW("AS");
    if (AtRowLimit() || AtJoin()) return "";
    if ((Peek().kind == Tok::kWord && !IsReserved(Peek())) || Peek().kind == Tok::kQuoted) {
      return Next().text;
    }
    return "";
  }

  // ---- expressions ----
  static ExprPtr Make(Expr::Kind k) {
    auto e = std::make_shared<Expr>();
    e->kind = k;
    return e;
  }
  static ExprPtr Binary(std::string op, ExprPtr a, ExprPtr b) {
    ExprPtr e = Make(Expr::Kind::kBinary);
    e->text = std::move(op);
    e->args = {std::move(a), std::move(b)};
    return e;
  }
  absl::StatusOr<ExprPtr> Or() {
    absl::StatusOr<ExprPtr> a = And();
    while (a.ok() && AcceptW("OR")) {
      absl::StatusOr<ExprPtr> b = And();
      if (!b.ok()) return b;
      a = Binary("OR", *a, *b);
    }
    return a;
  }
  absl::StatusOr<ExprPtr> And() {
    absl::StatusOr<ExprPtr> a = Not();
    while (a.ok() && AcceptW("AND")) {
      absl::StatusOr<ExprPtr> b = Not();
      if (!b.ok()) return b;
      a = Binary("AND", *a, *b);
    }
    return a;
  }
  absl::StatusOr<ExprPtr> Not() {
    if (AcceptW("NOT")) {
      absl::StatusOr<ExprPtr> a = Not();
      if (!a.ok()) return a;
      ExprPtr e = Make(Expr::Kind::kUnary);
      e->text = "NOT";
      e->args = {*a};
      return e;
    }
    return Comparison();
  }
  absl::StatusOr<ExprPtr> Comparison() {
    absl::StatusOr<ExprPtr> a = Additive();
    if (!a.ok()) return a;
    static const char* kOps[] = {"=", "<>", "!=", "<", "<=", ">", ">="};
    for (const char* op : kOps) {
      if (IsP(op)) {
        Next();
        absl::StatusOr<ExprPtr> b = Additive();
        if (!b.ok()) return b;
        return Binary(op == std::string_view("!=") ? "<>" : op, *a, *b);
      }
    }
    const bool negated = IsW("NOT") && (IsW("IN", 1) || IsW("LIKE", 1) || IsW("BETWEEN", 1));
    if (negated) Next();
    if (AcceptW("BETWEEN")) {  // a [NOT] BETWEEN lo AND hi: (NOT) (a >= lo AND a <= hi)
      absl::StatusOr<ExprPtr> lo = Additive();
      if (!lo.ok()) return lo;
      if (absl::Status s = ExpectW("AND"); !s.ok()) return s;
      absl::StatusOr<ExprPtr> hi = Additive();
      if (!hi.ok()) return hi;
      ExprPtr e = Binary("AND", Binary(">=", *a, *lo), Binary("<=", *a, *hi));
      if (!negated) return e;
      ExprPtr n = Make(Expr::Kind::kUnary);
      n->text = "NOT";
      n->args = {e};
      return n;
    }
    if (AcceptW("LIKE")) {
      absl::StatusOr<ExprPtr> b = Additive();
      if (!b.ok()) return b;
      ExprPtr e = Binary("LIKE", *a, *b);
      e->negated = negated;
      return e;
    }
    if (AcceptW("IN")) {
      if (absl::Status s = ExpectP("("); !s.ok()) return s;
      ExprPtr e = Make(Expr::Kind::kInList);
      e->negated = negated;
      e->args.push_back(*a);
      if (IsQuery()) {
        absl::StatusOr<std::shared_ptr<Select>> sub = SelectBody();
        if (!sub.ok()) return sub.status();
        e->subquery = *sub;
        if (absl::Status s = ExpectP(")"); !s.ok()) return s;
        return e;
      }
      do {
        absl::StatusOr<ExprPtr> v = Additive();
        if (!v.ok()) return v;
        e->args.push_back(*v);
      } while (AcceptP(","));
      if (absl::Status s = ExpectP(")"); !s.ok()) return s;
      return e;
    }
    if (AcceptW("IS")) {
      ExprPtr e = Make(Expr::Kind::kIsNull);
      e->negated = AcceptW("NOT");
      if (absl::Status s = ExpectW("NULL"); !s.ok()) return s;
      e->args = {*a};
      return e;
    }
    return a;
  }
  absl::StatusOr<ExprPtr> Additive() {
    absl::StatusOr<ExprPtr> a = Multiplicative();
    while (a.ok() && (IsP("+") || IsP("-") || IsP("||"))) {
      std::string op = Next().text;
      absl::StatusOr<ExprPtr> b = Multiplicative();
      if (!b.ok()) return b;
      a = Binary(op, *a, *b);
    }
    return a;
  }
  absl::StatusOr<ExprPtr> Multiplicative() {
    absl::StatusOr<ExprPtr> a = Unary();
    while (a.ok() && (IsP("*") || IsP("/"))) {
      std::string op = Next().text;
      absl::StatusOr<ExprPtr> b = Unary();
      if (!b.ok()) return b;
      a = Binary(op, *a, *b);
    }
    return a;
  }
  absl::StatusOr<ExprPtr> Unary() {
    if (AcceptP("-")) {
      absl::StatusOr<ExprPtr> a = Unary();
      if (!a.ok()) return a;
      ExprPtr e = Make(Expr::Kind::kUnary);
      e->text.assign(1, '-');  // not = "-": g++ 12 -O3 gives a false -Wrestrict
      e->args = {*a};
      return e;
    }
    AcceptP("+");
    return Primary();
  }
  absl::StatusOr<ExprPtr> Primary() {
    const Token t = Peek();
    if (t.kind == Tok::kNumber) {
      Next();
      ExprPtr e = Make(Expr::Kind::kNumber);
      e->number = std::strtod(t.text.c_str(), nullptr);
      e->text = t.text;
      return e;
    }
    if (t.kind == Tok::kString) {
      Next();
      ExprPtr e = Make(Expr::Kind::kString);
      e->text = t.text;
      return e;
    }
    if (AcceptP("(")) {
      if (IsQuery()) return SubqueryRest(Expr::Kind::kSubquery);  // a scalar subquery
      absl::StatusOr<ExprPtr> e = Or();
      if (!e.ok()) return e;
      if (absl::Status s = ExpectP(")"); !s.ok()) return s;
      return e;
    }
    if (t.kind == Tok::kWord && t.text == "CASE") {
      Next();
      return Case();
    }
    if (t.kind == Tok::kWord && t.text == "NULL") {
      Next();
      return Make(Expr::Kind::kNull);
    }
    if (IsP("*")) {
      Next();
      return Make(Expr::Kind::kStar);
    }
    if (t.kind == Tok::kWord || t.kind == Tok::kQuoted) {
      if (t.kind == Tok::kWord && IsReserved(t)) {
        return Error(fmt::format("expected an expression, found {}", Describe(t)),
                     "ORA-00936: missing expression");
      }
      Next();
      if (t.kind == Tok::kWord && t.text == "EXISTS" && IsP("(") && IsQuery(1)) {
        Next();
        return SubqueryRest(Expr::Kind::kExists);
      }
      if (t.kind == Tok::kWord && IsP("(")) return Function(t.text);
      if (t.kind == Tok::kWord && (t.text == "DATE" || t.text == "TIMESTAMP") &&
          Peek().kind == Tok::kString) {
        // The ANSI literals DATE 'YYYY-MM-DD' and TIMESTAMP 'YYYY-MM-DD
        // HH24:MI:SS[.FF]': TO_DATE and TO_TIMESTAMP of them.
        const bool date = t.text == "DATE";
        ExprPtr e = Make(Expr::Kind::kFunction);
        e->text = date ? "TO_DATE" : "TO_TIMESTAMP";
        ExprPtr text = Make(Expr::Kind::kString), format = Make(Expr::Kind::kString);
        text->text = Next().text;
        format->text = date ? "YYYY-MM-DD" : "YYYY-MM-DD HH24:MI:SS.FF";
        e->args = {text, format};
        return e;
      }
      if (t.kind == Tok::kWord && t.text == "INTERVAL" && Peek().kind == Tok::kString) {
        return IntervalLiteral();
      }
      ExprPtr e = Make(Expr::Kind::kColumn);
      e->text = t.text;
      if (AcceptP(".")) {
        if (IsP("*")) {
          Next();
          ExprPtr star = Make(Expr::Kind::kStar);
          star->qualifier = t.text;
          return star;
        }
        absl::StatusOr<std::string> col = Identifier("a column name");
        if (!col.ok()) return col.status();
        e->qualifier = t.text;
        e->text = *col;
        if (*col == "NEXTVAL" || *col == "CURRVAL") e->kind = Expr::Kind::kSequence;
        // DBMS_UTILITY.GET_TIME(): a packaged function's call without
        // arguments, the same as its name alone.
        if (t.text == "DBMS_UTILITY" && IsP("(") && IsP(")", 1)) pos_ += 2;
      }
      return e;
    }
    return Error(fmt::format("expected an expression, found {}", Describe(t)),
                 "ORA-00936: missing expression");
  }
  // After the "(" of a subquery: SELECT ... ")", as a node of `kind`.
  absl::StatusOr<ExprPtr> SubqueryRest(Expr::Kind kind) {
    absl::StatusOr<std::shared_ptr<Select>> sub = SelectBody();
    if (!sub.ok()) return sub.status();
    if (absl::Status s = ExpectP(")"); !s.ok()) return s;
    ExprPtr e = Make(kind);
    e->subquery = *sub;
    return e;
  }
  // After CASE: [x] WHEN w THEN t ... [ELSE e] END.
  absl::StatusOr<ExprPtr> Case() {
    ExprPtr e = Make(Expr::Kind::kCase);
    e->text = IsW("WHEN") ? "SEARCHED" : "SIMPLE";
    if (e->text == "SIMPLE") {
      absl::StatusOr<ExprPtr> x = Or();
      if (!x.ok()) return x;
      e->args.push_back(*x);
    }
    if (!IsW("WHEN")) return Error(fmt::format("expected WHEN, found {}", Describe(Peek())));
    while (AcceptW("WHEN")) {
      absl::StatusOr<ExprPtr> w = Or();
      if (!w.ok()) return w;
      if (absl::Status s = ExpectW("THEN"); !s.ok()) return s;
      absl::StatusOr<ExprPtr> t = Or();
      if (!t.ok()) return t;
      e->args.push_back(*w);
      e->args.push_back(*t);
    }
    if (AcceptW("ELSE")) {
      absl::StatusOr<ExprPtr> x = Or();
      if (!x.ok()) return x;
      e->args.push_back(*x);
    }
    if (absl::Status s = ExpectW("END"); !s.ok()) return s;
    return e;
  }
  // CAST(x AS type[(n[, s])]): the function CAST of x, the type's name, n, s.
  absl::StatusOr<ExprPtr> Cast(ExprPtr e) {
    absl::StatusOr<ExprPtr> x = Or();
    if (!x.ok()) return x;
    e->args.push_back(*x);
    if (absl::Status s = ExpectW("AS"); !s.ok()) return s;
    if (Peek().kind != Tok::kWord) return Error("expected a data type", "ORA-00902: invalid datatype");
    ExprPtr type = Make(Expr::Kind::kString);
    type->text = Next().text;
    if (type->text == "INTEGER" || type->text == "INT") type->text = "NUMBER";
    if (type->text == "VARCHAR") type->text = "VARCHAR2";
    e->args.push_back(type);
    if (AcceptP("(")) {
      do {
        if (Peek().kind != Tok::kNumber) return Error("expected a length or precision", "ORA-00910");
        ExprPtr n = Make(Expr::Kind::kNumber);
        n->number = std::strtod(Next().text.c_str(), nullptr);
        e->args.push_back(n);
      } while (AcceptP(","));
      AcceptW("BYTE");
      AcceptW("CHAR");
      if (absl::Status s = ExpectP(")"); !s.ok()) return s;
    }
    if (absl::Status s = ExpectP(")"); !s.ok()) return s;
    return e;
  }
  // EXTRACT(field FROM x): the function EXTRACT of the field's name and x.
  absl::StatusOr<ExprPtr> Extract(ExprPtr e) {
    if (Peek().kind != Tok::kWord) return Error("expected YEAR, MONTH, DAY, HOUR, MINUTE or SECOND");
    ExprPtr field = Make(Expr::Kind::kString);
    field->text = Next().text;
    e->args.push_back(field);
    if (absl::Status s = ExpectW("FROM"); !s.ok()) return s;
    absl::StatusOr<ExprPtr> x = Or();
    if (!x.ok()) return x;
    e->args.push_back(*x);
    if (absl::Status s = ExpectP(")"); !s.ok()) return s;
    return e;
  }
  // INTERVAL 'n' DAY | HOUR | MINUTE | SECOND [(p)]: NUMTODSINTERVAL of it
  // (the literal's text read as a number when it runs: ORA-01722 if it is none).
  absl::StatusOr<ExprPtr> IntervalLiteral() {
    ExprPtr e = Make(Expr::Kind::kFunction);
    e->text = "NUMTODSINTERVAL";
    ExprPtr n = Make(Expr::Kind::kString), unit = Make(Expr::Kind::kString);
    n->text = Next().text;
    if (!IsW("DAY") && !IsW("HOUR") && !IsW("MINUTE") && !IsW("SECOND")) {
      return Error(fmt::format("expected DAY, HOUR, MINUTE or SECOND after INTERVAL '{}' (cellsim "
                               "reads INTERVAL 'n' unit; not YEAR TO MONTH, not DAY TO SECOND)",
                               n->text),
                   "ORA-00905: missing keyword");
    }
    unit->text = Next().text;
    if (AcceptP("(")) {  // the leading field's precision: any 0..9 holds what cellsim reads
      if (Peek().kind != Tok::kNumber) return Error("expected a precision", "ORA-00910");
      Next();
      if (absl::Status s = ExpectP(")"); !s.ok()) return s;
    }
    e->args = {n, unit};
    return e;
  }
  absl::StatusOr<ExprPtr> Function(const std::string& name) {
    Next();  // (
    ExprPtr e = Make(Expr::Kind::kFunction);
    e->text = name;
    if (name == "CAST") return Cast(e);
    if (name == "EXTRACT") return Extract(e);
    if (AcceptW("DISTINCT") || AcceptW("UNIQUE")) e->distinct = true;
    else AcceptW("ALL");
    // IGNORE | RESPECT NULLS after the first argument, or (with FROM FIRST |
    // FROM LAST) after the arguments: an analytic function's (Window).
    NullsAndDirection options;
    if (!IsP(")")) {
      do {
        absl::StatusOr<ExprPtr> a = Or();
        if (!a.ok()) return a;
        e->args.push_back(*a);
        if (e->args.size() == 1) AcceptNulls(&options);
      } while (AcceptP(","));
    }
    if (absl::Status s = ExpectP(")"); !s.ok()) return s;
    if (name == "LISTAGG") return WithinGroup(std::move(e));
    if (IsW("FROM") && (IsW("FIRST", 1) || IsW("LAST", 1))) {  // not a query's FROM
      Next();
      options.from_last = Next().text == "LAST";
      options.written = true;
    }
    AcceptNulls(&options);
    if (options.written && !IsW("OVER")) {
      return Error(fmt::format("expected OVER after {}(...) {}, found {}", name,
                               "IGNORE NULLS / FROM ...", Describe(Peek())),
                   "ORA-30484: missing OVER clause, or invalid identifier found for window "
                   "function");
    }
    if (IsW("OVER")) return Over(std::move(e), options);
    // Other ordered-set aggregates: say so, not "expected FROM".
    if (IsW("WITHIN") || IsW("KEEP")) {
      return Error(fmt::format("{}(...) {} is not supported: cellsim's one ordered-set "
                               "aggregate is LISTAGG, and it has no KEEP (docs/sql.md "
                               "\"Queries\")",
                               name, Peek().text),
                   "ORA-00923: FROM keyword not found where expected");
    }
    if (internal::IsAnalyticOnlyFunction(name)) {
      return Error(fmt::format("{}(...) without OVER (...): it is an analytic function", name),
                   "ORA-30484: missing OVER clause, or invalid identifier found for window "
                   "function");
    }
    return e;
  }
  // LISTAGG([DISTINCT] x [, 'separator']) WITHIN GROUP (ORDER BY e [ASC | DESC]
  // [NULLS ...], ...) [OVER (PARTITION BY ...)]: the ORDER BY expressions go
  // after LISTAGG's own arguments (Expr::within_group).
  absl::StatusOr<ExprPtr> WithinGroup(ExprPtr e) {
    if (e->args.empty() || e->args.size() > 2) {
      return Error(fmt::format("LISTAGG takes 1 or 2 arguments, not {}", e->args.size()),
                   "ORA-00909: invalid number of arguments");
    }
    if (e->args.size() == 2 && e->args[1]->kind != Expr::Kind::kString &&
        e->args[1]->kind != Expr::Kind::kNull) {
      return Error("LISTAGG's separator must be a string literal",
                   "ORA-30496: Argument should be a constant.");
    }
    if (!AcceptW("WITHIN")) {
      return Error(fmt::format("expected WITHIN GROUP (ORDER BY ...) after LISTAGG(...), found {}",
                               Describe(Peek())),
                   "ORA-02000: missing WITHIN keyword");
    }
    if (absl::Status s = ExpectW("GROUP"); !s.ok()) return s;
    if (absl::Status s = ExpectP("("); !s.ok()) return s;
    if (absl::Status s = ExpectW("ORDER"); !s.ok()) return s;
    auto w = std::make_shared<Window>();
    w->arguments = e->args.size();
    if (absl::Status s = WindowOrderBy(*e, *w); !s.ok()) return s;
    if (absl::Status s = ExpectP(")"); !s.ok()) return s;
    e->within_group = std::move(w);
    if (IsW("OVER")) return Over(std::move(e), NullsAndDirection{});
    return e;
  }
  // BY e, ... after GROUP or PARTITION: the expressions, appended to `out`.
  absl::Status ByList(std::vector<ExprPtr>* out) {
    if (absl::Status s = ExpectW("BY"); !s.ok()) return s;
    do {
      absl::StatusOr<ExprPtr> x = Or();
      if (!x.ok()) return x.status();
      out->push_back(*x);
    } while (AcceptP(","));
    return absl::OkStatus();
  }
  // BY e [ASC | DESC] [NULLS FIRST | LAST], ... after ORDER in OVER (...) or
  // WITHIN GROUP (...): each expression an arg of `e`, each direction a key of `w`.
  absl::Status WindowOrderBy(Expr& e, Window& w) {
    if (absl::Status s = ExpectW("BY"); !s.ok()) return s;
    do {
      absl::StatusOr<ExprPtr> x = Or();
      if (!x.ok()) return x.status();
      e.args.push_back(*x);
      absl::StatusOr<std::pair<bool, std::optional<bool>>> dir = SortDirection();
      if (!dir.ok()) return dir.status();
      w.order_by.push_back({dir->first, dir->second});
    } while (AcceptP(","));
    return absl::OkStatus();
  }
  // [IGNORE NULLS | RESPECT NULLS] (IGNORE or RESPECT alone is left: an
  // alias, or an error the caller reports).
  void AcceptNulls(NullsAndDirection* o) {
    if ((!IsW("IGNORE") && !IsW("RESPECT")) || !IsW("NULLS", 1)) return;
    o->ignore_nulls = Next().text == "IGNORE";
    Next();  // NULLS
    o->written = true;
  }
  // f(...) OVER ([PARTITION BY e, ...] [ORDER BY e [ASC|DESC] [NULLS FIRST|LAST],
  // ...] [{ROWS | RANGE} {BETWEEN bound AND bound | bound}]): the window's
  // expressions go after the function's own arguments (Window).
  absl::StatusOr<ExprPtr> Over(ExprPtr e, const NullsAndDirection& options) {
    const size_t at = Peek().pos;
    Next();  // OVER
    if (absl::Status s = ExpectP("("); !s.ok()) return s;
    auto w = std::make_shared<Window>();
    w->arguments = e->args.size();
    w->ignore_nulls = options.ignore_nulls;
    w->from_last = options.from_last;
    if (AcceptW("PARTITION")) {
      const size_t before = e->args.size();
      if (absl::Status s = ByList(&e->args); !s.ok()) return s;
      w->partition_by = e->args.size() - before;
    }
    if (AcceptW("ORDER")) {
      if (absl::Status s = WindowOrderBy(*e, *w); !s.ok()) return s;
    }
    if (IsW("ROWS") || IsW("RANGE")) {
      absl::StatusOr<Window::Frame> frame = WindowFrame();
      if (!frame.ok()) return frame.status();
      w->frame = *frame;
    }
    if (absl::Status s = ExpectP(")"); !s.ok()) return s;
    if (std::optional<internal::AnalyticError> bad = internal::CheckAnalytic(e->text, e->distinct, *w)) {
      return ErrorAt(at, bad->what, bad->code);
    }
    e->over = std::move(w);
    return e;
  }
  // [ASC | DESC] [NULLS FIRST | NULLS LAST] after an ORDER BY expression.
  absl::StatusOr<std::pair<bool, std::optional<bool>>> SortDirection() {
    bool descending = false;
    std::optional<bool> nulls_first;
    if (AcceptW("DESC")) descending = true;
    else AcceptW("ASC");
    if (AcceptW("NULLS")) {
      if (AcceptW("FIRST")) nulls_first = true;
      else if (AcceptW("LAST")) nulls_first = false;
      else return Error(fmt::format("expected FIRST or LAST after NULLS, found {}", Describe(Peek())));
    }
    return std::make_pair(descending, nulls_first);
  }
  // {ROWS | RANGE} {BETWEEN bound AND bound | bound}: a bound alone is the
  // start, CURRENT ROW the end.
  absl::StatusOr<Window::Frame> WindowFrame() {
    Window::Frame fr;
    fr.rows = Next().text == "ROWS";
    const bool between = AcceptW("BETWEEN");
    absl::StatusOr<Window::Bound> start = FrameBound();
    if (!start.ok()) return start.status();
    fr.start = *start;
    if (between) {
      if (absl::Status s = ExpectW("AND"); !s.ok()) return s;
      absl::StatusOr<Window::Bound> end = FrameBound();
      if (!end.ok()) return end.status();
      fr.end = *end;
    }
    return fr;
  }
  // UNBOUNDED {PRECEDING | FOLLOWING} | CURRENT ROW | n {PRECEDING | FOLLOWING}.
  absl::StatusOr<Window::Bound> FrameBound() {
    using K = Window::Bound::Kind;
    Window::Bound b;
    if (AcceptW("CURRENT")) {
      if (absl::Status s = ExpectW("ROW"); !s.ok()) return s;
      return b;
    }
    const bool unbounded = AcceptW("UNBOUNDED");
    if (!unbounded) {
      if (Peek().kind != Tok::kNumber) {
        return Error(fmt::format("expected UNBOUNDED, CURRENT ROW or a number, found {}",
                                 Describe(Peek())),
                     "ORA-00905: missing keyword");
      }
      b.offset = std::strtod(Next().text.c_str(), nullptr);
    }
    if (AcceptW("PRECEDING")) {
      b.kind = unbounded ? K::kUnboundedPreceding : K::kPreceding;
    } else if (AcceptW("FOLLOWING")) {
      b.kind = unbounded ? K::kUnboundedFollowing : K::kFollowing;
    } else {
      return Error(fmt::format("expected PRECEDING or FOLLOWING, found {}", Describe(Peek())),
                   "ORA-00905: missing keyword");
    }
    return b;
  }

  // ---- SELECT ----
  // SELECT ... [{UNION [ALL] | INTERSECT | MINUS | EXCEPT} SELECT ...] [ORDER BY ...]
  // [OFFSET n ROWS] [FETCH FIRST n ROWS ONLY]
  // A query: [WITH name AS (query), ...] SELECT ... [set operations] [ORDER BY ...].
  absl::StatusOr<std::shared_ptr<Select>> SelectBody() {
    if (AcceptW("WITH")) return WithQuery();
    absl::StatusOr<std::shared_ptr<Select>> first = SelectCore();
    if (!first.ok()) return first;
    std::shared_ptr<Select> sel = *first;
    while (IsW("UNION") || IsW("INTERSECT") || IsW("MINUS") || IsW("EXCEPT")) {
      std::string op = Next().text;
      if (op == "EXCEPT") op = "MINUS";
      if (op == "UNION" && AcceptW("ALL")) op = "UNION ALL";
      absl::StatusOr<std::shared_ptr<Select>> branch;
      if (AcceptP("(")) {
        branch = SelectBody();
        if (branch.ok()) {
          if (absl::Status s = ExpectP(")"); !s.ok()) return s;
        }
      } else {
        branch = SelectCore();
      }
      if (!branch.ok()) return branch;
      sel->set_operations.push_back({op, *branch});
    }
    if (AcceptW("ORDER")) {
      if (absl::Status s = ExpectW("BY"); !s.ok()) return s;
      do {
        absl::StatusOr<ExprPtr> e = Or();
        if (!e.ok()) return e.status();
        absl::StatusOr<std::pair<bool, std::optional<bool>>> dir = SortDirection();
        if (!dir.ok()) return dir.status();
        sel->order_by.push_back(OrderItem{*e, dir->first, dir->second});
      } while (AcceptP(","));
    }
    if (absl::Status s = RowLimit(sel.get()); !s.ok()) return s;
    return sel;
  }
  // [OFFSET n ROW[S]] [FETCH FIRST|NEXT n ROW[S] ONLY] (Oracle 12c's row
  // limiting clause, after ORDER BY).
  absl::Status RowLimit(Select* sel) {
    auto count = [&](std::optional<uint64_t>* out) -> absl::Status {
      if (Peek().kind != Tok::kNumber || Peek().text.find_first_not_of("0123456789") !=
                                             std::string::npos) {
        return Error(fmt::format("expected a whole number of rows, found {}", Describe(Peek())),
                     "ORA-00905: missing keyword");
      }
      *out = std::strtoull(Next().text.c_str(), nullptr, 10);
      if (!AcceptW("ROWS") && !AcceptW("ROW")) {
        return Error(fmt::format("expected ROWS, found {}", Describe(Peek())),
                     "ORA-00905: missing keyword");
      }
      return absl::OkStatus();
    };
    if (AcceptW("OFFSET")) {
      if (absl::Status s = count(&sel->offset_rows); !s.ok()) return s;
    }
    if (IsW("FETCH") && (IsW("FIRST", 1) || IsW("NEXT", 1))) {
      Next();
      Next();
      if (absl::Status s = count(&sel->fetch_rows); !s.ok()) return s;
      if (IsW("WITH") || IsP("%")) {
        return Error("FETCH ... PERCENT and WITH TIES are not supported (ROWS ONLY is)",
                     "ORA-00905: missing keyword");
      }
      if (absl::Status s = ExpectW("ONLY"); !s.ok()) return s;
    }
    return absl::OkStatus();
  }
  // A query as a statement: [FOR UPDATE ...] may follow.
  absl::StatusOr<DataStatement> QueryStatement() {
    absl::StatusOr<std::shared_ptr<Select>> s = SelectBody();
    if (!s.ok()) return s.status();
    if (AcceptW("FOR")) {
      absl::StatusOr<Select::ForUpdate> f = ForUpdateClause();
      if (!f.ok()) return f.status();
      (*s)->for_update = *std::move(f);
    }
    return DataStatement(**s);
  }
  // After SELECT ... FOR: UPDATE [OF [t.]column, ...] [NOWAIT | WAIT n |
  // SKIP LOCKED].
  absl::StatusOr<Select::ForUpdate> ForUpdateClause() {
    if (absl::Status s = ExpectW("UPDATE"); !s.ok()) return s;
    Select::ForUpdate f;
    if (AcceptW("OF")) {
      absl::StatusOr<std::vector<std::string>> of = ColumnNames();
      if (!of.ok()) return of.status();
      f.of = *std::move(of);
    }
    if (AcceptW("NOWAIT")) {
      f.wait = Select::ForUpdate::Wait::kNoWait;
    } else if (AcceptW("WAIT")) {
      if (Peek().kind != Tok::kNumber ||
          Peek().text.find_first_not_of("0123456789") != std::string::npos ||
          Peek().text.size() > 9) {
        return Error(fmt::format("expected a whole number of seconds after WAIT, found {}",
                                 Describe(Peek())),
                     "ORA-30005: missing or invalid WAIT interval");
      }
      f.wait = Select::ForUpdate::Wait::kWaitSeconds;
      f.wait_seconds = static_cast<uint32_t>(std::strtoul(Next().text.c_str(), nullptr, 10));
    } else if (AcceptW("SKIP")) {
      if (absl::Status s = ExpectW("LOCKED"); !s.ok()) return s;
      f.wait = Select::ForUpdate::Wait::kSkipLocked;
    }
    return f;
  }
  // After WITH: the named queries (each may read those before it), then the
  // query that reads them. A name stands for its query where a FROM names
  // it, as an inline view would (hiding a table of that name).
  absl::StatusOr<std::shared_ptr<Select>> WithQuery() {
    std::vector<std::pair<std::string, std::shared_ptr<Select>>> named;
    do {
      absl::StatusOr<std::string> name = Identifier("a query name");
      if (!name.ok()) return name.status();
      for (const auto& [n, q] : named) {
        if (n == *name) {
          return Error(fmt::format("{} is named twice in the WITH clause", *name));
        }
      }
      if (IsP("(")) {
        return Error(fmt::format("a column list after WITH {} is not supported: name the "
                                 "columns with aliases in its query", *name));
      }
      if (absl::Status s = ExpectW("AS"); !s.ok()) return s;
      if (absl::Status s = ExpectP("("); !s.ok()) return s;
      absl::StatusOr<std::shared_ptr<Select>> q = SelectBody();
      if (!q.ok()) return q;
      if (absl::Status s = ExpectP(")"); !s.ok()) return s;
      BindNamedQueries(**q, named);
      named.emplace_back(*name, *q);
    } while (AcceptP(","));
    if (!IsW("SELECT")) {
      return Error(fmt::format("expected SELECT after the WITH clause, found {}", Describe(Peek())),
                   "ORA-00928: missing SELECT keyword");
    }
    absl::StatusOr<std::shared_ptr<Select>> main = SelectBody();
    if (!main.ok()) return main;
    BindNamedQueries(**main, named);
    return main;
  }
  // Puts the named queries where `sel` (its FROM lists, set operations and
  // subqueries, not the queries put in) names them.
  static void BindNamedQueries(Select& sel,
                               const std::vector<std::pair<std::string, std::shared_ptr<Select>>>& named) {
    std::function<void(const ExprPtr&)> exprs = [&](const ExprPtr& e) {
      if (e == nullptr) return;
      if (e->subquery) BindNamedQueries(*e->subquery, named);
      for (const ExprPtr& a : e->args) exprs(a);
    };
    for (FromSource& f : sel.from) {
      exprs(f.on);
      if (f.subquery) {
        BindNamedQueries(*f.subquery, named);
        continue;
      }
      for (const auto& [n, q] : named) {
        if (f.table != n) continue;
        if (f.alias.empty()) f.alias = f.table;
        f.table.clear();
        f.subquery = q;
        break;
      }
    }
    for (const SelectItem& it : sel.items) exprs(it.expr);
    exprs(sel.where);
    for (const ExprPtr& g : sel.group_by) exprs(g);
    exprs(sel.having);
    for (const OrderItem& o : sel.order_by) exprs(o.expr);
    for (SetOperation& op : sel.set_operations) BindNamedQueries(*op.query, named);
  }
  // Whether a query starts here: SELECT or WITH.
  bool IsQuery(size_t k = 0) const { return IsW("SELECT", k) || IsW("WITH", k); }
  // One SELECT block, without ORDER BY.
  absl::StatusOr<std::shared_ptr<Select>> SelectCore() {
    if (absl::Status s = ExpectW("SELECT"); !s.ok()) return s;
    auto sel = std::make_shared<Select>();
    if (AcceptW("DISTINCT") || AcceptW("UNIQUE")) sel->distinct = true;
    else AcceptW("ALL");
    do {
      const size_t start = Peek().pos;
      absl::StatusOr<ExprPtr> e = Or();
      if (!e.ok()) return e.status();
      const size_t end = Peek().pos;
      SelectItem item{*e, OptionalAlias(), ""};
      // Oracle names a plain column (and s.NEXTVAL) by its name (no
      // qualifier), anything else by its text as written, in capitals and
      // without blanks, quoted literals' included: `empno || ' ' || ename`
      // is EMPNO||''||ENAME.
      std::string written = WrittenFrom(start, end);
      std::erase_if(written, [](char c) { return std::isspace(static_cast<unsigned char>(c)); });
      const bool named =
          item.expr->kind == Expr::Kind::kColumn || item.expr->kind == Expr::Kind::kSequence;
      item.heading = !item.alias.empty() ? item.alias : named ? item.expr->text : Upper(written);
      sel->items.push_back(std::move(item));
    } while (AcceptP(","));
    if (!AcceptW("FROM")) {
      // `select count(*) form t`: FORM was read as the column's alias.
      const std::string& alias = sel->items.back().alias;
      return Error(fmt::format("expected FROM, found {}{}", Describe(Peek()),
                               alias.empty() ? "" : fmt::format(" (after the column alias {})", alias)),
                   "ORA-00923: FROM keyword not found where expected");
    }
    if (absl::Status s = FromList(*sel); !s.ok()) return s;
    if (AcceptW("WHERE")) {
      absl::StatusOr<ExprPtr> w = Or();
      if (!w.ok()) return w.status();
      sel->where = *w;
    }
    if (AcceptW("CONNECT")) {
      if (absl::Status s = ExpectW("BY"); !s.ok()) return s;
      if (absl::Status s = ExpectW("LEVEL"); !s.ok()) return s;
      bool strict = false;
      if (!AcceptP("<=")) {
        if (!AcceptP("<")) return Error("expected CONNECT BY LEVEL <= number or LEVEL < number");
        strict = true;
      }
      if (Peek().kind != Tok::kNumber) {
        return Error("expected CONNECT BY LEVEL <= number or LEVEL < number");
      }
      // The levels n satisfies; the root row (level 1) comes whatever the
      // condition, as in Oracle (`connect by level <= 0` gives one row).
      const double n = std::strtod(Next().text.c_str(), nullptr);
      const double last = strict ? std::ceil(n) - 1 : std::floor(n);
      sel->connect_by_level = static_cast<uint64_t>(std::max(1.0, std::min(last, 1e18)));
    }
    if (AcceptW("GROUP")) {
      if (absl::Status s = ByList(&sel->group_by); !s.ok()) return s;
    }
    if (AcceptW("HAVING")) {
      absl::StatusOr<ExprPtr> h = Or();
      if (!h.ok()) return h.status();
      sel->having = *h;
    }
    return sel;
  }
  absl::StatusOr<FromSource> Source() {
    FromSource src;
    if (AcceptP("(")) {
      absl::StatusOr<std::shared_ptr<Select>> sub = SelectBody();
      if (!sub.ok()) return sub.status();
      if (absl::Status s = ExpectP(")"); !s.ok()) return s;
      src.subquery = *sub;
    } else {
      absl::StatusOr<std::string> name = TableName();
      if (!name.ok()) return name.status();
      src.table = *name;
    }
    src.alias = OptionalAlias();
    return src;
  }
  absl::Status FromList(Select& sel) {
    absl::StatusOr<FromSource> first = Source();
    if (!first.ok()) return first.status();
    sel.from.push_back(*first);
    while (true) {
      if (AcceptP(",")) {
        absl::StatusOr<FromSource> s = Source();
        if (!s.ok()) return s.status();
        s->join = FromSource::Join::kComma;
        sel.from.push_back(*s);
        continue;
      }
      if (!AtJoin()) return absl::OkStatus();
      const size_t at = Peek().pos;
      absl::StatusOr<FromSource> s = JoinedSource();
      if (!s.ok()) return s.status();
      if (s->KeepsOwnRows() && JoinGroupStart(sel.from, sel.from.size()) != 0) {
        // Oracle joins it to the sources since the comma, then crosses the
        // result with those before; cellsim would join it to them all.
        return ErrorAt(at, "a RIGHT or FULL JOIN after a comma in FROM is not supported (put the "
                       "join in a subquery: FROM a, (SELECT ... FROM b RIGHT JOIN c ON ...))",
                       "ORA-00900: invalid SQL statement");
      }
      sel.from.push_back(*s);
    }
  }
  // [NATURAL] [INNER | CROSS | {LEFT | RIGHT | FULL} [OUTER]] JOIN source
  // {ON condition | USING (column, ...)} (neither after NATURAL or CROSS).
  absl::StatusOr<FromSource> JoinedSource() {
    const bool natural = AcceptW("NATURAL");
    FromSource::Join join = FromSource::Join::kInner;
    if (AcceptW("LEFT")) {
      join = FromSource::Join::kLeft;
    } else if (AcceptW("RIGHT")) {
      join = FromSource::Join::kRight;
    } else if (AcceptW("FULL")) {
      join = FromSource::Join::kFull;
    } else if (AcceptW("CROSS")) {
      join = FromSource::Join::kCross;
    } else {
      AcceptW("INNER");
    }
    if (join != FromSource::Join::kInner && join != FromSource::Join::kCross) AcceptW("OUTER");
    if (absl::Status st = ExpectW("JOIN"); !st.ok()) return st;
    absl::StatusOr<FromSource> s = Source();
    if (!s.ok()) return s.status();
    s->join = join;
    s->natural = natural;
    if (natural || join == FromSource::Join::kCross) {
      if (IsW("ON") || IsW("USING")) {
        return Error(fmt::format("{} JOIN takes no {}", natural ? "NATURAL" : "CROSS", Peek().text),
                     "ORA-00933: SQL command not properly ended");
      }
      return s;
    }
    if (AcceptW("USING")) {
      if (absl::Status st = ExpectP("("); !st.ok()) return st;
      do {
        if (IsP(".", 1)) {
          return ErrorAt(Peek().pos, "a column of USING (...) takes no qualifier",
                         "ORA-01748: only simple column names allowed here");
        }
        absl::StatusOr<std::string> c = Identifier("a column name");
        if (!c.ok()) return c.status();
        s->using_columns.push_back(*c);
      } while (AcceptP(","));
      if (absl::Status st = ExpectP(")"); !st.ok()) return st;
      return s;
    }
    if (absl::Status st = ExpectW("ON"); !st.ok()) return st;
    absl::StatusOr<ExprPtr> on = Or();
    if (!on.ok()) return on.status();
    s->on = *on;
    return s;
  }

  // ---- statements ----
  absl::StatusOr<DataStatement> Top() {
    if (IsQuery()) return QueryStatement();
    if (AcceptW("CREATE")) {
      if (AcceptW("OR")) {
        if (absl::Status s = ExpectW("REPLACE"); !s.ok()) return s;
        return CreateViewStatement(true);
      }
      if (IsW("VIEW") || IsW("FORCE") || IsW("NOFORCE")) return CreateViewStatement(false);
      if (IsW("UNIQUE") || IsW("INDEX")) return CreateIndexStatement();
      if (AcceptW("SEQUENCE")) return SequenceStatement(false);
      return CreateTableStatement();
    }
    if (AcceptW("DROP")) {
      if (AcceptW("SEQUENCE")) {
        absl::StatusOr<std::string> n = TableName();
        if (!n.ok()) return n.status();
        return DataStatement(DropSequence{*n});
      }
      if (AcceptW("INDEX")) {
        absl::StatusOr<std::string> n = TableName();
        if (!n.ok()) return n.status();
        return DataStatement(DropIndex{*n});
      }
      if (AcceptW("VIEW")) {
        absl::StatusOr<std::string> n = TableName();
        if (!n.ok()) return n.status();
        return DataStatement(DropView{*n});
      }
      if (absl::Status s = ExpectW("TABLE"); !s.ok()) return s;
      DropTable d;
      absl::StatusOr<std::string> n = TableName();
      if (!n.ok()) return n.status();
      d.name = *n;
      d.purge = AcceptW("PURGE");
      return DataStatement(d);
    }
    if (AcceptW("ANALYZE")) {
      return AnalyzeStatement();
    }
    if (AcceptW("RENAME")) {  // RENAME t TO u: ALTER TABLE t RENAME TO u
      AlterTable a;
      a.kind = AlterTable::Kind::kRenameTable;
      a.rename_statement = true;
      absl::StatusOr<std::string> from = TableName();
      if (!from.ok()) return from.status();
      a.table = *from;
      return RenameTo(std::move(a));
    }
    if (AcceptW("TRUNCATE")) {
      if (absl::Status s = ExpectW("TABLE"); !s.ok()) return s;
      absl::StatusOr<std::string> n = TableName();
      if (!n.ok()) return n.status();
      return DataStatement(TruncateTable{*n});
    }
    if (AcceptW("INSERT")) return InsertStatement();
    if (AcceptW("UPDATE")) return UpdateStatement();
    if (AcceptW("DELETE")) return DeleteStatement();
    if (AcceptW("MERGE")) return MergeStatement();
    if (AcceptW("COMMIT")) {
      AcceptW("WORK");
      return DataStatement(Commit{});
    }
    if (AcceptW("ROLLBACK")) {
      AcceptW("WORK");
      Rollback r;
      if (AcceptW("TO")) {
        AcceptW("SAVEPOINT");
        absl::StatusOr<std::string> n = Identifier("a savepoint name");
        if (!n.ok()) return n.status();
        r.to_savepoint = *n;
      }
      return DataStatement(r);
    }
    if (AcceptW("SAVEPOINT")) {
      absl::StatusOr<std::string> n = Identifier("a savepoint name");
      if (!n.ok()) return n.status();
      return DataStatement(Savepoint{*n});
    }
    if (AcceptW("ALTER")) {
      if (AcceptW("SEQUENCE")) return SequenceStatement(true);
      if (AcceptW("TABLE")) return AlterTableStatement();
      if (AcceptW("DATABASE")) {
        // IsDataStatement sends only ARCHIVELOG and NOARCHIVELOG here.
        const bool on = AcceptW("ARCHIVELOG");
        if (!on && !AcceptW("NOARCHIVELOG")) return Error("expected ARCHIVELOG or NOARCHIVELOG");
        return DataStatement(LogCommand{on ? LogCommand::Kind::kArchivelog
                                           : LogCommand::Kind::kNoArchivelog});
      }
      return AlterSystem();
    }
    if (AcceptW("ARCHIVE")) {
      if (absl::Status s = ExpectW("LOG"); !s.ok()) return s;
      if (absl::Status s = ExpectW("LIST"); !s.ok()) return s;
      return DataStatement(LogCommand{LogCommand::Kind::kList});
    }
    if (AcceptW("DESC") || AcceptW("DESCRIBE")) {
      absl::StatusOr<std::string> t = TableName();
      if (!t.ok()) return t.status();
      return DataStatement(db::Describe{*t});
    }
    if (AcceptW("SHOW")) {
      if (!AcceptW("PARAMETER") && !AcceptW("PARAMETERS")) {
        return Error(fmt::format("expected PARAMETER after SHOW, found {}", Describe(Peek())),
                     "SP2-0158: unknown SHOW option");
      }
      ShowParameter p;
      if (Peek().kind == Tok::kWord || Peek().kind == Tok::kQuoted) p.pattern = Lower(Next().text);
      return DataStatement(p);
    }
    return Error(fmt::format("expected a statement, found {}", Describe(Peek())));
  }
  // A sequence option's integer: [+|-] digits, no fraction.
  absl::StatusOr<int64_t> SequenceNumber(const char* option) {
    bool negative = false;
    if (AcceptP("-")) negative = true;
    else (void)AcceptP("+");
    const Token& t = Peek();
    if (t.kind != Tok::kNumber) {
      return Error(fmt::format("expected an integer after {}, found {}", option, Describe(t)));
    }
    // Past 64 bits it saturates: the engine takes such a MAXVALUE as
    // NOMAXVALUE (DBMS_METADATA writes 9999999999999999999999999999).
    int64_t v = 0;
    for (char ch : t.text) {
      if (ch < '0' || ch > '9') {
        return Error(fmt::format("{} {}: a sequence's numbers are integers", option, t.text),
                     "ORA-01722: invalid number");
      }
      v = v > (INT64_MAX - 9) / 10 ? INT64_MAX : v * 10 + (ch - '0');
    }
    Next();
    return negative ? -v : v;
  }

  // CREATE / ALTER SEQUENCE's (or an identity column's) options, each at
  // most once (ORA-02247 twice), up to the end or a ')'.
  absl::Status SequenceOptionList(SequenceOptions* o) {
    std::vector<std::string> seen;
    auto once = [&](const std::string& what) -> absl::Status {
      if (std::find(seen.begin(), seen.end(), what) != seen.end()) {
        return Error(fmt::format("{} given twice", what),
                     fmt::format("ORA-02247: duplicate {} specifications", what));
      }
      seen.push_back(what);
      return absl::OkStatus();
    };
    auto number = [&](const char* option, const std::string& what,
                      std::optional<int64_t>* into) -> absl::Status {
      if (absl::Status st = once(what); !st.ok()) return st;
      absl::StatusOr<int64_t> v = SequenceNumber(option);
      if (!v.ok()) return v.status();
      *into = *v;
      return absl::OkStatus();
    };
    while (Peek().kind != Tok::kEnd && !IsP(";") && !IsP(")")) {
      absl::Status st;
      if (AcceptW("INCREMENT")) {
        if (st = ExpectW("BY"); st.ok()) st = number("INCREMENT BY", "INCREMENT", &o->increment_by);
      } else if (AcceptW("START")) {
        if (st = ExpectW("WITH"); st.ok()) st = number("START WITH", "START WITH", &o->start_with);
      } else if (o->alter && AcceptW("RESTART")) {
        st = once("RESTART");
        o->restart = true;
        if (st.ok() && AcceptW("START")) {
          if (st = ExpectW("WITH"); st.ok()) st = number("START WITH", "START WITH", &o->start_with);
        }
      } else if (AcceptW("MAXVALUE")) {
        st = number("MAXVALUE", "MAXVALUE", &o->max_value);
      } else if (AcceptW("NOMAXVALUE")) {
        st = once("MAXVALUE");
        o->no_max_value = true;
      } else if (AcceptW("MINVALUE")) {
        st = number("MINVALUE", "MINVALUE", &o->min_value);
      } else if (AcceptW("NOMINVALUE")) {
        st = once("MINVALUE");
        o->no_min_value = true;
      } else if (IsW("CYCLE") || IsW("NOCYCLE")) {
        st = once("CYCLE");
        o->cycle = Next().text == "CYCLE";
      } else if (IsW("ORDER") || IsW("NOORDER")) {
        st = once("ORDER");
        o->order = Next().text == "ORDER";
      } else if (AcceptW("NOCACHE")) {
        st = once("CACHE");
        o->cache = 0;
      } else if (AcceptW("CACHE")) {
        st = number("CACHE", "CACHE", &o->cache);
      } else {
        return Error(fmt::format("expected a sequence option (INCREMENT BY, START WITH, MAXVALUE, "
                                 "MINVALUE, CYCLE, CACHE, ORDER{}), found {}",
                                 o->alter ? ", RESTART" : "", Describe(Peek())),
                     "ORA-00933: SQL command not properly ended");
      }
      if (!st.ok()) return st;
    }
    if (o->alter && seen.empty()) {
      return Error("ALTER SEQUENCE without an option",
                   "ORA-02286: no options specified for ALTER SEQUENCE");
    }
    if (o->alter && o->start_with && !o->restart) {
      return Error("START WITH in ALTER SEQUENCE (RESTART START WITH n restarts it)",
                   "ORA-02283: cannot alter starting sequence number");
    }
    return absl::OkStatus();
  }

  absl::StatusOr<DataStatement> SequenceStatement(bool alter) {
    SequenceOptions o;
    o.alter = alter;
    absl::StatusOr<std::string> n = TableName();
    if (!n.ok()) return n.status();
    o.name = *n;
    if (absl::Status st = SequenceOptionList(&o); !st.ok()) return st;
    if (IsP(")")) return Error("unexpected ')'", "ORA-00933: SQL command not properly ended");
    return DataStatement(o);
  }

  // After a column's type: GENERATED {ALWAYS | BY DEFAULT [ON NULL]} AS
  // IDENTITY [(sequence options)] (GENERATED already read).
  absl::Status IdentityClause(ColumnDef* col) {
    col->identity = IdentityKind::kAlways;
    if (AcceptW("BY")) {
      if (absl::Status s = ExpectW("DEFAULT"); !s.ok()) return s;
      col->identity = IdentityKind::kByDefault;
      if (AcceptW("ON")) {
        if (absl::Status s = ExpectW("NULL"); !s.ok()) return s;
        col->identity = IdentityKind::kByDefaultOnNull;
      }
    } else {
      AcceptW("ALWAYS");
    }
    if (absl::Status s = ExpectW("AS"); !s.ok()) return s;
    if (absl::Status s = ExpectW("IDENTITY"); !s.ok()) return s;
    if (col->type != "NUMBER") {
      return Error(fmt::format("column {} is {}", col->name, col->type),
                   "ORA-30675: identity column must be a numeric type");
    }
    col->not_null = true;  // as Oracle: an identity column is NOT NULL
    if (!AcceptP("(")) return absl::OkStatus();
    if (absl::Status s = SequenceOptionList(&col->identity_options); !s.ok()) return s;
    return ExpectP(")");
  }

  absl::StatusOr<DataStatement> CreateIndexStatement() {
    CreateIndex c;
    c.unique = AcceptW("UNIQUE");
    if (absl::Status s = ExpectW("INDEX"); !s.ok()) return s;
    absl::StatusOr<std::string> n = TableName();
    if (!n.ok()) return n.status();
    c.name = *n;
    if (absl::Status s = ExpectW("ON"); !s.ok()) return s;
    absl::StatusOr<std::string> t = TableName();
    if (!t.ok()) return t.status();
    c.table = *t;
    if (absl::Status s = ExpectP("("); !s.ok()) return s;
    do {
      absl::StatusOr<std::string> col = Identifier("a column name");
      if (!col.ok()) return col.status();
      c.columns.push_back(*col);
    } while (AcceptP(","));
    if (absl::Status s = ExpectP(")"); !s.ok()) return s;
    if (AcceptW("TABLESPACE")) {
      absl::StatusOr<std::string> ts = Identifier("a tablespace name");
      if (!ts.ok()) return ts.status();
      c.tablespace = *ts;
    }
    return DataStatement(c);
  }
  // [CONSTRAINT name] PRIMARY KEY | UNIQUE, on `column` (inline) or, when it
  // is null, with its column list (out of line); CREATE TABLE and ALTER
  // TABLE make a primary key's columns NOT NULL. CHECK and foreign keys are
  // refused, named.
  absl::StatusOr<TableConstraint> Constraint(ColumnDef* column) {
    TableConstraint k;
    if (AcceptW("CONSTRAINT")) {
      absl::StatusOr<std::string> n = Identifier("a constraint name");
      if (!n.ok()) return n.status();
      k.name = *n;
    }
    if (AcceptW("CHECK")) return CheckConstraint(column, std::move(k));
    if (AcceptW("PRIMARY")) {
      if (absl::Status s = ExpectW("KEY"); !s.ok()) return s;
      k.primary_key = true;
    } else if (!AcceptW("UNIQUE")) {
      if (IsW("FOREIGN") || IsW("REFERENCES")) {
        return Error(fmt::format("{} constraints are not supported (cellsim keeps NOT NULL, "
                                 "PRIMARY KEY, UNIQUE and CHECK)", Peek().text));
      }
      return Error(fmt::format("expected PRIMARY KEY or UNIQUE, found {}", Describe(Peek())),
                   "ORA-02253: constraint specification not allowed here");
    }
    if (column != nullptr) {
      k.columns = {column->name};
    } else {
      absl::StatusOr<std::vector<std::string>> cols = ColumnList();
      if (!cols.ok()) return cols.status();
      k.columns = *std::move(cols);
    }
    return k;
  }
  // After CHECK: ( condition ), Oracle's refusals at parse: a subquery
  // (ORA-02251), SYSDATE, USER, ROWNUM, LEVEL or a sequence (ORA-02436), an
  // aggregate (ORA-00934); a column's own CHECK names only that column
  // (ORA-02438).
  absl::StatusOr<TableConstraint> CheckConstraint(const ColumnDef* column, TableConstraint k) {
    if (absl::Status s = ExpectP("("); !s.ok()) return s;
    const size_t start = Peek().pos;
    absl::StatusOr<ExprPtr> cond = Or();
    if (!cond.ok()) return cond.status();
    k.check_text = WrittenFrom(start, Peek().pos);
    absl::Status refused;
    FindExprNode(**cond, [&](const Expr& e) {
      const bool pseudo = e.kind == Expr::Kind::kColumn && e.qualifier.empty() &&
                          (IsClockName(e.text) || e.text == "USER" || e.text == "ROWNUM" ||
                           e.text == "LEVEL");
      if (e.subquery) {
        refused = ErrorAt(start, "a subquery in a CHECK constraint",
                          "ORA-02251: subquery not allowed here");
      } else if (pseudo || e.kind == Expr::Kind::kSequence) {
        refused = ErrorAt(start, fmt::format("{} in a CHECK constraint", e.text),
                          "ORA-02436: date or system variable wrongly specified in CHECK constraint");
      } else if (e.over) {
        refused = ErrorAt(start, fmt::format("{} OVER (...) in a CHECK constraint", e.text),
                          "ORA-30483: window functions are not allowed here");
      } else if (e.kind == Expr::Kind::kFunction && IsAggregateFunction(e.text)) {
        refused = ErrorAt(start, fmt::format("{} in a CHECK constraint", e.text),
                          "ORA-00934: group function is not allowed here");
      } else if (column != nullptr && e.kind == Expr::Kind::kColumn && e.text != column->name) {
        refused = ErrorAt(start, fmt::format("column {}'s CHECK names column {}", column->name, e.text),
                          "ORA-02438: Column check constraint cannot reference other columns");
      }
      return !refused.ok();
    });
    if (!refused.ok()) return refused;
    if (absl::Status s = ExpectP(")"); !s.ok()) return s;
    k.check = *std::move(cond);
    return k;
  }
  // NUMBER's ( precision [, scale] ), after the '(': precision 1..38 or *,
  // scale -84..127, as Oracle checks them.
  absl::Status NumberPrecision(ColumnDef* col) {
    if (AcceptP("*")) {
      col->length = 38;
    } else {
      if (Peek().kind != Tok::kNumber) return Error("expected a precision", "ORA-01727");
      const std::string p = Peek().text;
      const long v = std::strtol(p.c_str(), nullptr, 10);
      if (p.find_first_not_of("0123456789") != std::string::npos || v < 1 || v > 38) {
        return Error(fmt::format("precision {} is out of range", p),
                     "ORA-01727: numeric precision specifier is out of range (1 to 38)");
      }
      Next();
      col->length = static_cast<uint32_t>(v);
    }
    if (AcceptP(",")) {
      const bool negative = AcceptP("-");
      if (Peek().kind != Tok::kNumber) return Error("expected a scale", "ORA-01728");
      const std::string s = Peek().text;
      long v = std::strtol(s.c_str(), nullptr, 10);
      if (negative) v = -v;
      if (s.find_first_not_of("0123456789") != std::string::npos || v < -84 || v > 127) {
        return Error(fmt::format("scale {}{} is out of range", negative ? "-" : "", s),
                     "ORA-01728: numeric scale specifier is out of range (-84 to 127)");
      }
      Next();
      col->scale = static_cast<int32_t>(v);
    }
    return absl::OkStatus();
  }
  // One column of CREATE TABLE or ALTER TABLE ADD: name, type, DEFAULT or
  // identity, inline constraints (PRIMARY KEY / UNIQUE go to `constraints`).
  absl::StatusOr<ColumnDef> ColumnDefinition(std::vector<TableConstraint>* constraints) {
    ColumnDef col;
    absl::StatusOr<std::string> cn = Identifier("a column name");
    if (!cn.ok()) return cn.status();
    col.name = *cn;
    if (Peek().kind != Tok::kWord) return Error("expected a data type", "ORA-00902: invalid datatype");
    col.type = Next().text;
    if (col.type == "INTEGER" || col.type == "INT" || col.type == "SMALLINT") {
      col.type = "NUMBER";  // NUMBER(38): whole numbers
      col.length = 38;
    }
    if (col.type == "VARCHAR") col.type = "VARCHAR2";
    if (col.type == "TIMESTAMP") col.length = kDefaultTimestampPrecision;
    if (AcceptP("(")) {
      if (col.type == "NUMBER") {
        if (absl::Status s = NumberPrecision(&col); !s.ok()) return s;
      } else {
        if (Peek().kind != Tok::kNumber) return Error("expected a length", "ORA-00910");
        col.length = static_cast<uint32_t>(std::strtoul(Next().text.c_str(), nullptr, 10));
        AcceptW("BYTE");
        AcceptW("CHAR");
      }
      if (absl::Status s = ExpectP(")"); !s.ok()) return s;
    }
    if (col.type == "TIMESTAMP") {
      if (col.length > 9) {
        return Error(fmt::format("TIMESTAMP({}): the precision is 0 to 9", col.length),
                     "ORA-30088: datetime/interval precision is out of range");
      }
      if (IsW("WITH")) {
        return Error("TIMESTAMP WITH [LOCAL] TIME ZONE columns are not built in cellsim (TIMESTAMP "
                     "is)", "ORA-00902: invalid datatype");
      }
    }
    if (col.type != "NUMBER" && col.type != "VARCHAR2" && col.type != "CHAR" &&
        col.type != "DATE" && col.type != "TIMESTAMP") {
      return Error(fmt::format("unsupported data type {} (NUMBER, VARCHAR2, CHAR, DATE, TIMESTAMP)",
                               col.type),
                   "ORA-00902: invalid datatype");
    }
    if (col.type == "CHAR" && col.length == 0) col.length = 1;
    if (col.type == "VARCHAR2" && (col.length == 0 || col.length > 4000)) {
      return Error("VARCHAR2 needs a length of 1 to 4000", "ORA-00910: specified length too long for its datatype");
    }
    if (col.type == "CHAR" && col.length > 2000) {
      return Error("CHAR length above 2000", "ORA-00910: specified length too long for its datatype");
    }
    if (AcceptW("DEFAULT")) {
      absl::StatusOr<ExprPtr> dflt = DefaultExpression(&col.default_text);
      if (!dflt.ok()) return dflt.status();
      col.default_value = *dflt;
    }
    if (AcceptW("GENERATED")) {
      if (col.default_value) {
        return Error("a column with a DEFAULT cannot be an identity column",
                     "ORA-30614: cannot set a default value on an identity column");
      }
      if (absl::Status s = IdentityClause(&col); !s.ok()) return s;
    }
    // Inline constraints: [CONSTRAINT n] [NOT] NULL | PRIMARY KEY | UNIQUE.
    while (true) {
      if (IsW("CONSTRAINT") && (IsW("NOT", 1) || IsW("NULL", 1))) {  // no name
        Next();
        return Error(fmt::format("expected a constraint name, found {}", Describe(Peek())),
                     "ORA-02250: missing or invalid constraint name");
      }
      if (IsW("CONSTRAINT") && Peek(2).kind == Tok::kWord &&
          (Peek(2).text == "NOT" || Peek(2).text == "NULL")) {
        Next();
        absl::StatusOr<std::string> n = Identifier("a constraint name");
        if (!n.ok()) return n.status();
        if (Peek().text == "NOT") col.not_null_name = *n;  // a NULL "constraint" is none
        continue;
      }
      if (AcceptW("NOT")) {
        if (absl::Status s = ExpectW("NULL"); !s.ok()) return s;
        col.not_null = true;
        continue;
      }
      if (AcceptW("NULL")) continue;
      if (IsW("CONSTRAINT") || IsW("PRIMARY") || IsW("UNIQUE") || IsW("CHECK") ||
          IsW("REFERENCES")) {
        absl::StatusOr<TableConstraint> k = Constraint(&col);
        if (!k.ok()) return k.status();
        constraints->push_back(*std::move(k));
        continue;
      }
      break;
    }
    return col;
  }

  // After MODIFY: c [type[(n)]] [DEFAULT e] [NOT NULL | NULL].
  absl::Status ModifiedColumn(AlterTable* a) {
    ColumnDef col;
    absl::StatusOr<std::string> cn = Identifier("a column name");
    if (!cn.ok()) return cn.status();
    col.name = *cn;
    if (IsW("CONSTRAINT")) {  // c CONSTRAINT n NOT NULL
      Next();
      absl::StatusOr<std::string> n = Identifier("a constraint name");
      if (!n.ok()) return n.status();
      col.not_null_name = *n;
      if (!IsW("NOT")) {
        return Error(fmt::format("expected NOT NULL after CONSTRAINT {}, found {}", *n,
                                 Describe(Peek())),
                     "ORA-02253: constraint specification not allowed here");
      }
    }
    if (Peek().kind == Tok::kWord && !IsW("DEFAULT") && !IsW("NOT") && !IsW("NULL")) {
      // A type: parsed as ADD parses one (name again, then the type).
      --pos_;
      std::vector<TableConstraint> none;
      absl::StatusOr<ColumnDef> typed = ColumnDefinition(&none);
      if (!typed.ok()) return typed.status();
      if (!none.empty() || typed->identity != IdentityKind::kNone) {
        return Error("MODIFY takes a type, DEFAULT and NOT NULL / NULL here",
                     "ORA-02253: constraint specification not allowed here");
      }
      std::optional<bool> nn;
      if (typed->not_null) nn = true;
      a->columns.push_back(*std::move(typed));
      a->not_null.push_back(nn);
      return absl::OkStatus();
    }
    if (AcceptW("DEFAULT")) {
      absl::StatusOr<ExprPtr> dflt = DefaultExpression(&col.default_text);
      if (!dflt.ok()) return dflt.status();
      col.default_value = *dflt;
    }
    std::optional<bool> nn;
    if (AcceptW("NOT")) {
      if (absl::Status s = ExpectW("NULL"); !s.ok()) return s;
      nn = true;
    } else if (AcceptW("NULL")) {
      nn = false;
    }
    a->columns.push_back(std::move(col));
    a->not_null.push_back(nn);
    return absl::OkStatus();
  }

  // The rest of a rename: TO name.
  absl::StatusOr<DataStatement> RenameTo(AlterTable a) {
    if (absl::Status s = ExpectW("TO"); !s.ok()) return s;
    absl::StatusOr<std::string> to = Identifier("a name");
    if (!to.ok()) return to.status();
    a.to = *to;
    return DataStatement(std::move(a));
  }

  absl::StatusOr<DataStatement> AlterTableStatement() {
    AlterTable a;
    absl::StatusOr<std::string> t = TableName();
    if (!t.ok()) return t.status();
    a.table = *t;
    if (AcceptW("RENAME")) {
      a.kind = AcceptW("COLUMN") ? AlterTable::Kind::kRenameColumn : AlterTable::Kind::kRenameTable;
      if (a.kind == AlterTable::Kind::kRenameColumn) {
        absl::StatusOr<std::string> from = Identifier("a column name");
        if (!from.ok()) return from.status();
        a.from = *from;
      }
      return RenameTo(std::move(a));
    }
    if (AcceptW("DROP")) return DropConstraintClause(std::move(a));
    const bool modify = AcceptW("MODIFY");
    if (!modify && !AcceptW("ADD")) {
      return Error(fmt::format("expected ADD, MODIFY, RENAME or DROP, found {}", Describe(Peek())),
                   "ORA-01735: invalid ALTER TABLE option");
    }
    a.kind = modify ? AlterTable::Kind::kModify : AlterTable::Kind::kAdd;
    const bool list = AcceptP("(");
    do {
      if (!modify && (IsW("CONSTRAINT") || IsW("PRIMARY") || IsW("UNIQUE") || IsW("CHECK") ||
                      IsW("FOREIGN"))) {
        absl::StatusOr<TableConstraint> k = Constraint(nullptr);
        if (!k.ok()) return k.status();
        a.constraints.push_back(*std::move(k));
      } else if (modify) {
        if (absl::Status s = ModifiedColumn(&a); !s.ok()) return s;
      } else {
        absl::StatusOr<ColumnDef> col = ColumnDefinition(&a.constraints);
        if (!col.ok()) return col.status();
        a.columns.push_back(*std::move(col));
      }
    } while (list && AcceptP(","));
    if (list) {
      if (absl::Status s = ExpectP(")"); !s.ok()) return s;
    }
    return DataStatement(a);
  }

  // After ALTER TABLE t DROP: CONSTRAINT name | PRIMARY KEY | UNIQUE (c, ...).
  absl::StatusOr<DataStatement> DropConstraintClause(AlterTable a) {
    a.kind = AlterTable::Kind::kDropConstraint;
    TableConstraint k;
    if (AcceptW("CONSTRAINT")) {
      absl::StatusOr<std::string> n = Identifier("a constraint name");
      if (!n.ok()) return n.status();
      k.name = *n;
    } else if (AcceptW("PRIMARY")) {
      if (absl::Status s = ExpectW("KEY"); !s.ok()) return s;
      k.primary_key = true;
    } else if (AcceptW("UNIQUE")) {
      absl::StatusOr<std::vector<std::string>> cols = ColumnList();
      if (!cols.ok()) return cols.status();
      k.columns = *std::move(cols);
    } else if (IsW("COLUMN") || IsP("(")) {
      return Error("cellsim does not drop columns (ALTER TABLE ... DROP COLUMN): create the "
                   "table again without it (CREATE TABLE ... AS SELECT the other columns)",
                   "ORA-01735: invalid ALTER TABLE option");
    } else {
      return Error(fmt::format("expected CONSTRAINT, PRIMARY KEY or UNIQUE after DROP, found {}",
                               Describe(Peek())),
                   "ORA-01735: invalid ALTER TABLE option");
    }
    a.constraints.push_back(std::move(k));
    return DataStatement(a);
  }

  absl::StatusOr<DataStatement> CreateTableStatement() {
    CreateTable c;
    if (AcceptW("GLOBAL")) {
      if (absl::Status s = ExpectW("TEMPORARY"); !s.ok()) return s;
      c.global_temporary = true;
    }
    if (absl::Status s = ExpectW("TABLE"); !s.ok()) return s;
    absl::StatusOr<std::string> n = TableName();
    if (!n.ok()) return n.status();
    c.name = *n;
    if (AcceptP("(")) {
      do {
        if (IsW("CONSTRAINT") || IsW("PRIMARY") || IsW("UNIQUE") || IsW("CHECK") ||
            IsW("FOREIGN")) {  // an out-of-line constraint
          absl::StatusOr<TableConstraint> k = Constraint(nullptr);
          if (!k.ok()) return k.status();
          c.constraints.push_back(*std::move(k));
          continue;
        }
        absl::StatusOr<ColumnDef> col = ColumnDefinition(&c.constraints);
        if (!col.ok()) return col.status();
        c.columns.push_back(*std::move(col));
      } while (AcceptP(","));
      if (absl::Status s = ExpectP(")"); !s.ok()) return s;
    }
    while (true) {
      if (AcceptW("ON")) {
        if (absl::Status s = ExpectW("COMMIT"); !s.ok()) return s;
        if (AcceptW("PRESERVE")) c.on_commit_preserve = true;
        else if (absl::Status s = ExpectW("DELETE"); !s.ok()) return s;
        if (absl::Status s = ExpectW("ROWS"); !s.ok()) return s;
        continue;
      }
      if (AcceptW("TABLESPACE")) {
        absl::StatusOr<std::string> ts = Identifier("a tablespace name");
        if (!ts.ok()) return ts.status();
        c.tablespace = *ts;
        continue;
      }
      break;
    }
    if (AcceptW("AS")) {
      absl::StatusOr<std::shared_ptr<Select>> s = SelectBody();
      if (!s.ok()) return s.status();
      c.as_select = *s;
    } else if (c.columns.empty()) {
      return Error("expected a column list or AS SELECT", "ORA-00906: missing left parenthesis");
    }
    return DataStatement(c);
  }
  // After CREATE [OR REPLACE]: [[NO]FORCE] VIEW name [(column, ...)] AS
  // query [WITH READ ONLY]; the query's text is kept as written.
  absl::StatusOr<DataStatement> CreateViewStatement(bool or_replace) {
    CreateView v;
    v.or_replace = or_replace;
    v.force = AcceptW("FORCE");
    if (!v.force) AcceptW("NOFORCE");
    if (absl::Status s = ExpectW("VIEW"); !s.ok()) return s;
    absl::StatusOr<std::string> n = TableName();
    if (!n.ok()) return n.status();
    v.name = *n;
    if (IsP("(")) {
      absl::StatusOr<std::vector<std::string>> cols = ColumnList();
      if (!cols.ok()) return cols.status();
      v.columns = *std::move(cols);
    }
    if (absl::Status s = ExpectW("AS"); !s.ok()) return s;
    const size_t start = Peek().pos;
    if (!IsQuery() && !IsP("(")) {
      return Error(fmt::format("expected a query after AS, found {}", Describe(Peek())),
                   "ORA-00928: missing SELECT keyword");
    }
    absl::StatusOr<std::shared_ptr<Select>> q = SelectBody();
    if (!q.ok()) return q.status();
    v.query = *q;
    v.text = WrittenFrom(start, Peek().pos);
    if (AcceptW("WITH")) {
      if (IsW("CHECK")) {
        return Error("WITH CHECK OPTION is not supported: cellsim's views are read-only (WITH READ ONLY)",
                     "ORA-00905: missing keyword");
      }
      if (absl::Status s = ExpectW("READ"); !s.ok()) return s;
      if (absl::Status s = ExpectW("ONLY"); !s.ok()) return s;
      v.read_only = true;
    }
    return DataStatement(v);
  }
  // [qualifier.]column: the column's name.
  absl::StatusOr<std::string> ColumnName() {
    absl::StatusOr<std::string> c = Identifier("a column name");
    if (c.ok() && AcceptP(".")) c = Identifier("a column name");
    return c;
  }
  // column, ... (each may be qualified).
  absl::StatusOr<std::vector<std::string>> ColumnNames() {
    std::vector<std::string> cols;
    do {
      absl::StatusOr<std::string> c = ColumnName();
      if (!c.ok()) return c.status();
      cols.push_back(*c);
    } while (AcceptP(","));
    return cols;
  }
  absl::StatusOr<std::vector<std::string>> ColumnList() {
    if (absl::Status s = ExpectP("("); !s.ok()) return s;
    absl::StatusOr<std::vector<std::string>> cols = ColumnNames();
    if (!cols.ok()) return cols;
    if (absl::Status s = ExpectP(")"); !s.ok()) return s;
    return cols;
  }
  absl::StatusOr<std::vector<ExprPtr>> ValuesList() {
    std::vector<ExprPtr> v;
    if (absl::Status s = ExpectP("("); !s.ok()) return s;
    do {
      absl::StatusOr<ExprPtr> e = OrDefault();
      if (!e.ok()) return e.status();
      v.push_back(*e);
    } while (AcceptP(","));
    if (absl::Status s = ExpectP(")"); !s.ok()) return s;
    return v;
  }
  // A value of VALUES (...) or SET c = ...: the keyword DEFAULT (null: the
  // column's default, NULL without one) or an expression.
  absl::StatusOr<ExprPtr> OrDefault() {
    const Token& after = Peek(1);
    if (IsW("DEFAULT") &&
        (after.kind == Tok::kEnd || (after.kind == Tok::kWord && (after.text == "WHERE" || after.text == "WHEN")) ||
         (after.kind == Tok::kPunct &&
          (after.text == "," || after.text == ")" || after.text == ";")))) {
      Next();
      return ExprPtr();
    }
    return Or();
  }
  // SYSDATE, SYSTIMESTAMP, CURRENT_TIMESTAMP, LOCALTIMESTAMP: the clock's
  // names, allowed in a DEFAULT, not in a CHECK.
  static bool IsClockName(std::string_view name) {
    return name == "SYSDATE" || name == "SYSTIMESTAMP" || name == "CURRENT_TIMESTAMP" ||
           name == "LOCALTIMESTAMP";
  }
  // A column's DEFAULT expression: what Oracle allows there (constants,
  // SYSDATE, functions of them), refused as Oracle refuses the rest.
  absl::StatusOr<ExprPtr> DefaultExpression(std::string* text) {
    const size_t start = Peek().pos;
    absl::StatusOr<ExprPtr> e = Or();
    if (!e.ok()) return e;
    *text = WrittenFrom(start, Peek().pos);
    if (absl::Status s = CheckDefault(**e, start); !s.ok()) return s;
    return e;
  }
  absl::Status CheckDefault(const Expr& e, size_t start) const {
    if (e.kind == Expr::Kind::kColumn) {
      if (e.qualifier.empty() && (IsClockName(e.text) || e.text == "USER")) return absl::OkStatus();
      if (e.qualifier.empty() && (e.text == "ROWNUM" || e.text == "LEVEL")) {
        return ErrorAt(start, fmt::format("{} in a column's DEFAULT", e.text),
                       "ORA-00976: Specified pseudocolumn or operator not allowed here");
      }
      return ErrorAt(start, fmt::format("a DEFAULT cannot name a column ({})", e.text),
                     "ORA-00984: column not allowed here");
    }
    if (e.subquery || e.kind == Expr::Kind::kSubquery) {
      return ErrorAt(start, "a subquery in a column's DEFAULT",
                     "ORA-22818: subquery expressions not allowed here");
    }
    if (e.kind == Expr::Kind::kStar) {
      return ErrorAt(start, "'*' in a column's DEFAULT", "ORA-00936: missing expression");
    }
    if (e.over) {
      return ErrorAt(start, fmt::format("{} OVER (...) in a column's DEFAULT", e.text),
                     "ORA-30483: window functions are not allowed here");
    }
    if (e.kind == Expr::Kind::kFunction && IsAggregateFunction(e.text)) {
      return ErrorAt(start, fmt::format("{} in a column's DEFAULT", e.text),
                     "ORA-00934: group function is not allowed here");
    }
    for (const ExprPtr& a : e.args) {
      if (absl::Status s = CheckDefault(*a, start); !s.ok()) return s;
    }
    return absl::OkStatus();
  }
  // A multitable INSERT's INTO table [(columns)] [VALUES (...)].
  absl::StatusOr<InsertInto> IntoClause() {
    if (absl::Status s = ExpectW("INTO"); !s.ok()) return s;
    InsertInto into;
    absl::StatusOr<std::string> n = TableName();
    if (!n.ok()) return n.status();
    into.table = *n;
    if (IsP("(")) {
      absl::StatusOr<std::vector<std::string>> cols = ColumnList();
      if (!cols.ok()) return cols.status();
      into.columns = *cols;
    }
    if (AcceptW("VALUES")) {
      absl::StatusOr<std::vector<ExprPtr>> v = ValuesList();
      if (!v.ok()) return v.status();
      into.values = *v;
    }
    return into;
  }
  // One or more INTO clauses.
  absl::Status IntoClauses(std::vector<InsertInto>* into) {
    do {
      absl::StatusOr<InsertInto> one = IntoClause();
      if (!one.ok()) return one.status();
      into->push_back(*std::move(one));
    } while (IsW("INTO"));
    return absl::OkStatus();
  }
  // INSERT ALL | FIRST [WHEN c THEN] INTO ... [ELSE INTO ...] subquery.
  absl::StatusOr<DataStatement> MultitableInsert() {
    Insert ins;
    ins.first = AcceptW("FIRST");
    if (!ins.first) (void)AcceptW("ALL");
    if (!IsW("WHEN")) {
      if (ins.first) {
        return Error(fmt::format("expected WHEN after INSERT FIRST, found {}", Describe(Peek())),
                     "ORA-00905: missing keyword");
      }
      InsertWhen every;
      if (absl::Status s = IntoClauses(&every.into); !s.ok()) return s;
      ins.multitable.push_back(std::move(every));
    }
    while (AcceptW("WHEN")) {
      InsertWhen w;
      absl::StatusOr<ExprPtr> c = Or();
      if (!c.ok()) return c.status();
      w.when = *c;
      if (absl::Status s = ExpectW("THEN"); !s.ok()) return s;
      if (absl::Status s = IntoClauses(&w.into); !s.ok()) return s;
      ins.multitable.push_back(std::move(w));
    }
    if (AcceptW("ELSE")) {
      InsertWhen otherwise;
      otherwise.otherwise = true;
      if (absl::Status s = IntoClauses(&otherwise.into); !s.ok()) return s;
      ins.multitable.push_back(std::move(otherwise));
    }
    if (!IsQuery()) {
      return Error(fmt::format("expected VALUES, another INTO or the subquery whose rows the "
                               "INTOs insert (SELECT ...), found {}", Describe(Peek())),
                   "ORA-00928: missing SELECT keyword");
    }
    absl::StatusOr<std::shared_ptr<Select>> sel = SelectBody();
    if (!sel.ok()) return sel.status();
    ins.select = *sel;
    return DataStatement(ins);
  }
  // After ANALYZE: TABLE t / INDEX i, then VALIDATE STRUCTURE [CASCADE],
  // COMPUTE STATISTICS [FOR TABLE], ESTIMATE STATISTICS [SAMPLE n {ROWS |
  // PERCENT}] [FOR TABLE] (computed all the same) or DELETE STATISTICS.
  absl::StatusOr<DataStatement> AnalyzeStatement() {
    Analyze a;
    a.index = AcceptW("INDEX");
    if (!a.index) {
      if (absl::Status s = ExpectW("TABLE"); !s.ok()) return s;
    }
    absl::StatusOr<std::string> n = TableName();
    if (!n.ok()) return n.status();
    a.name = *n;
    if (AcceptW("VALIDATE")) {
      if (absl::Status s = ExpectW("STRUCTURE"); !s.ok()) return s;
      a.cascade = AcceptW("CASCADE");
      return DataStatement(a);
    }
    if (AcceptW("DELETE")) {
      a.action = Analyze::Action::kDeleteStatistics;
      a.cascade = !a.index;
      if (absl::Status s = ExpectW("STATISTICS"); !s.ok()) return s;
      return DataStatement(a);
    }
    const bool estimate = AcceptW("ESTIMATE");
    if (!estimate && !AcceptW("COMPUTE")) {
      return Error(fmt::format("expected VALIDATE STRUCTURE, COMPUTE STATISTICS, ESTIMATE "
                               "STATISTICS or DELETE STATISTICS, found {}", Describe(Peek())),
                   "ORA-01490: invalid ANALYZE command");
    }
    if (absl::Status s = ExpectW("STATISTICS"); !s.ok()) return s;
    a.action = Analyze::Action::kComputeStatistics;
    if (estimate && AcceptW("SAMPLE")) {
      if (Peek().kind != Tok::kNumber) return Error("expected the sample's size", "ORA-01490: invalid ANALYZE command");
      Next();
      if (!AcceptW("ROWS") && !AcceptW("PERCENT")) {
        return Error(fmt::format("expected ROWS or PERCENT, found {}", Describe(Peek())),
                     "ORA-01490: invalid ANALYZE command");
      }
    }
    a.cascade = !a.index;
    if (!a.index && AcceptW("FOR")) {
      if (absl::Status s = ExpectW("TABLE"); !s.ok()) return s;
      a.cascade = false;
    }
    return DataStatement(a);
  }

  absl::StatusOr<DataStatement> InsertStatement() {
    if (IsW("ALL") || IsW("FIRST")) return MultitableInsert();
    if (!IsW("INTO")) {
      return Error(fmt::format("expected INTO, ALL or FIRST, found {}", Describe(Peek())),
                   "ORA-00905: missing keyword");
    }
    absl::StatusOr<InsertInto> into = IntoClause();
    if (!into.ok()) return into.status();
    Insert ins;
    ins.table = std::move(into->table);
    ins.columns = std::move(into->columns);
    ins.values = std::move(into->values);
    if (ins.values.empty()) {  // INSERT INTO t [(c, ...)] SELECT ...
      if (!IsQuery()) {
        return Error(fmt::format("expected VALUES or SELECT, found {}", Describe(Peek())),
                     "ORA-00926: missing VALUES keyword");
      }
      absl::StatusOr<std::shared_ptr<Select>> s = SelectBody();
      if (!s.ok()) return s.status();
      ins.select = *s;
    }
    return DataStatement(ins);
  }
  absl::StatusOr<std::vector<Assignment>> SetList() {
    std::vector<Assignment> set;
    do {
      absl::StatusOr<std::string> c = ColumnName();
      if (!c.ok()) return c.status();
      if (absl::Status s = ExpectP("="); !s.ok()) {
        return Error(fmt::format("expected '=', found {}", Describe(Peek())),
                     "ORA-00927: missing equal sign");
      }
      absl::StatusOr<ExprPtr> e = OrDefault();
      if (!e.ok()) return e.status();
      set.push_back({*c, *e});
    } while (AcceptP(","));
    return set;
  }
  absl::StatusOr<DataStatement> UpdateStatement() {
    Update u;
    absl::StatusOr<std::string> n = TableName();
    if (!n.ok()) return n.status();
    u.table = *n;
    if (!IsW("SET")) u.alias = OptionalAlias();
    if (absl::Status s = ExpectW("SET"); !s.ok()) return s;
    absl::StatusOr<std::vector<Assignment>> set = SetList();
    if (!set.ok()) return set.status();
    u.set = *set;
    if (AcceptW("WHERE")) {
      absl::StatusOr<ExprPtr> w = Or();
      if (!w.ok()) return w.status();
      u.where = *w;
    }
    return DataStatement(u);
  }
  absl::StatusOr<DataStatement> DeleteStatement() {
    Delete d;
    AcceptW("FROM");
    absl::StatusOr<std::string> n = TableName();
    if (!n.ok()) return n.status();
    d.table = *n;
    d.alias = OptionalAlias();
    if (AcceptW("WHERE")) {
      absl::StatusOr<ExprPtr> w = Or();
      if (!w.ok()) return w.status();
      d.where = *w;
    }
    return DataStatement(d);
  }
  absl::StatusOr<DataStatement> MergeStatement() {
    if (absl::Status s = ExpectW("INTO"); !s.ok()) return s;
    Merge m;
    absl::StatusOr<std::string> n = TableName();
    if (!n.ok()) return n.status();
    m.table = *n;
    m.alias = OptionalAlias();
    if (absl::Status s = ExpectW("USING"); !s.ok()) return s;
    if (!IsP("(")) {
      // USING a table or view (DUAL too): its rows, as SELECT * FROM it,
      // named by its alias or, without one, by its name.
      absl::StatusOr<std::string> source = TableName();
      if (!source.ok()) {
        return Error(fmt::format("expected '(' and a query, or a table or view, found {}",
                                 Describe(Peek())),
                     "ORA-00903: invalid table name");
      }
      auto sel = std::make_shared<Select>();
      sel->items.push_back(SelectItem{Make(Expr::Kind::kStar), "", "*"});
      FromSource from;
      from.table = *source;
      sel->from.push_back(std::move(from));
      m.using_select = sel;
      m.using_alias = OptionalAlias();
      if (m.using_alias.empty()) m.using_alias = *source;
    } else {
      Next();
      absl::StatusOr<std::shared_ptr<Select>> sel = SelectBody();
      if (!sel.ok()) return sel.status();
      m.using_select = *sel;
      if (absl::Status s = ExpectP(")"); !s.ok()) return s;
      m.using_alias = OptionalAlias();
    }
    if (absl::Status s = ExpectW("ON"); !s.ok()) return s;
    if (absl::Status s = ExpectP("("); !s.ok()) return s;
    absl::StatusOr<ExprPtr> on = Or();
    if (!on.ok()) return on.status();
    m.on = *on;
    if (absl::Status s = ExpectP(")"); !s.ok()) return s;
    while (AcceptW("WHEN")) {
      const bool matched = !AcceptW("NOT");
      if (absl::Status s = ExpectW("MATCHED"); !s.ok()) return s;
      if (absl::Status s = ExpectW("THEN"); !s.ok()) return s;
      if (matched) {
        if (absl::Status s = ExpectW("UPDATE"); !s.ok()) return s;
        if (absl::Status s = ExpectW("SET"); !s.ok()) return s;
        absl::StatusOr<std::vector<Assignment>> set = SetList();
        if (!set.ok()) return set.status();
        m.matched_update = *set;
      } else {
        if (absl::Status s = ExpectW("INSERT"); !s.ok()) return s;
        m.has_insert = true;
        if (IsP("(") && !IsW("VALUES")) {
          absl::StatusOr<std::vector<std::string>> cols = ColumnList();
          if (!cols.ok()) return cols.status();
          m.insert_columns = *cols;
        }
        if (absl::Status s = ExpectW("VALUES"); !s.ok()) return s;
        absl::StatusOr<std::vector<ExprPtr>> v = ValuesList();
        if (!v.ok()) return v.status();
        m.insert_values = *v;
      }
    }
    if (m.matched_update.empty() && !m.has_insert) {
      return Error("expected WHEN MATCHED or WHEN NOT MATCHED", "ORA-00905: missing keyword");
    }
    return DataStatement(m);
  }
  absl::StatusOr<DataStatement> AlterSystem() {
    if (absl::Status s = ExpectW("SYSTEM"); !s.ok()) return s;
    if (AcceptW("SWITCH")) {
      if (absl::Status s = ExpectW("LOGFILE"); !s.ok()) return s;
      return DataStatement(LogCommand{LogCommand::Kind::kSwitchLogfile});
    }
    if (AcceptW("ARCHIVE")) {
      if (absl::Status s = ExpectW("LOG"); !s.ok()) return s;
      if (absl::Status s = ExpectW("CURRENT"); !s.ok()) return s;
      return DataStatement(LogCommand{LogCommand::Kind::kArchiveCurrent});
    }
    if (AcceptW("CHECKPOINT")) {
      if (!AcceptW("GLOBAL")) AcceptW("LOCAL");  // one instance: the same checkpoint
      return DataStatement(LogCommand{LogCommand::Kind::kCheckpoint});
    }
    if (AcceptW("FLUSH")) {
      if (AcceptW("BUFFER_CACHE")) {
        if (!AcceptW("GLOBAL")) AcceptW("LOCAL");  // one instance: the same flush
        return DataStatement(LogCommand{LogCommand::Kind::kFlushBufferCache});
      }
      if (AcceptW("SHARED_POOL")) return DataStatement(LogCommand{LogCommand::Kind::kFlushSharedPool});
      return Error(fmt::format("expected BUFFER_CACHE or SHARED_POOL after FLUSH, found {}",
                               Describe(Peek())),
                   "ORA-02065: illegal option for ALTER SYSTEM");
    }
    if (!IsW("SET")) {
      return Error(fmt::format("expected SET, SWITCH LOGFILE, ARCHIVE LOG CURRENT, CHECKPOINT or "
                               "FLUSH, found {}",
                               Describe(Peek())),
                   "ORA-02065: illegal option for ALTER SYSTEM");
    }
    if (absl::Status s = ExpectW("SET"); !s.ok()) return s;
    AlterSystemSet a;
    absl::StatusOr<std::string> n = Identifier("a parameter name");
    if (!n.ok()) return n.status();
    a.name = Lower(*n);
    if (absl::Status s = ExpectP("="); !s.ok()) return s;
    const Token& v = Peek();
    if (v.kind == Tok::kEnd || v.kind == Tok::kPunct) {
      return Error(fmt::format("expected a value, found {}", Describe(v)), "ORA-00927");
    }
    a.value = v.kind == Tok::kWord ? v.raw : v.text;
    Next();
    while (Peek().kind == Tok::kWord) {
      const std::string opt = Next().text;
      if (absl::Status s = ExpectP("="); !s.ok()) return s;
      const Token val = Next();
      if (opt == "SCOPE") {
        a.scope = Upper(val.text);
        if (a.scope != "MEMORY" && a.scope != "SPFILE" && a.scope != "BOTH") {
          return ErrorAt(val.pos, "SCOPE must be MEMORY, SPFILE or BOTH", "ORA-02065: illegal option for ALTER SYSTEM");
        }
      } else if (opt != "SID" && opt != "COMMENT") {
        return ErrorAt(val.pos, fmt::format("unknown ALTER SYSTEM option {}", opt),
                       "ORA-02065: illegal option for ALTER SYSTEM");
      }
    }
    return DataStatement(a);
  }

  std::string_view sql_;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
};

}  // namespace

bool IsDataStatement(std::string_view sql) {
  const std::string w = FirstWords(sql, 3);
  auto starts = [&](std::string_view p) {
    return w.compare(0, p.size(), p) == 0 && (w.size() == p.size() || w[p.size()] == ' ');
  };
  for (std::string_view p : {"CREATE TABLE", "CREATE GLOBAL", "CREATE INDEX", "CREATE UNIQUE",
                             "DROP TABLE", "DROP INDEX", "ANALYZE", "TRUNCATE", "INSERT",
                             "UPDATE", "DELETE", "MERGE", "COMMIT", "ROLLBACK", "ALTER SYSTEM",
                             "SHOW", "SELECT", "ALTER DATABASE ARCHIVELOG",
                             "ALTER DATABASE NOARCHIVELOG", "ARCHIVE LOG", "DESC", "DESCRIBE",
                             "CREATE SEQUENCE", "ALTER SEQUENCE", "DROP SEQUENCE", "SAVEPOINT",
                             "ALTER TABLE", "CREATE OR REPLACE", "CREATE VIEW", "CREATE FORCE",
                             "CREATE NOFORCE", "DROP VIEW", "WITH", "RENAME"}) {
    if (starts(p)) return true;
  }
  return false;
}

absl::StatusOr<DataStatement> ParseDataStatement(std::string_view sql) {
  return DataParser(sql).Parse();
}

const Expr* FindExprNode(const Expr& e, const std::function<bool(const Expr&)>& pred) {
  if (pred(e)) return &e;
  for (const ExprPtr& a : e.args) {
    if (const Expr* f = FindExprNode(*a, pred)) return f;
  }
  return nullptr;
}

absl::StatusOr<ExprPtr> ParseDataExpression(std::string_view sql) {
  return DataParser(sql).ParseExpression();
}

std::string_view DataStatementKind(const DataStatement& st) {
  if (const auto* x = std::get_if<LogCommand>(&st)) {
    switch (x->kind) {
      case LogCommand::Kind::kArchivelog:
      case LogCommand::Kind::kNoArchivelog:
        return "ALTER DATABASE";
      case LogCommand::Kind::kSwitchLogfile:
      case LogCommand::Kind::kArchiveCurrent:
      case LogCommand::Kind::kCheckpoint:
      case LogCommand::Kind::kFlushBufferCache:
      case LogCommand::Kind::kFlushSharedPool:
        return "ALTER SYSTEM";
      case LogCommand::Kind::kList:
        return "ARCHIVE LOG";
    }
  }
  if (const auto* x = std::get_if<SequenceOptions>(&st)) {
    return x->alter ? "ALTER SEQUENCE" : "CREATE SEQUENCE";
  }
  if (const auto* x = std::get_if<AlterTable>(&st); x != nullptr && x->rename_statement) {
    return "RENAME";
  }
  static constexpr std::string_view kKinds[] = {
      "CREATE TABLE", "DROP TABLE", "TRUNCATE TABLE", "INSERT", "UPDATE", "DELETE", "MERGE",
      "COMMIT", "ROLLBACK", "ALTER SYSTEM", "SHOW PARAMETER", "SELECT", "CREATE INDEX",
      "DROP INDEX", "ANALYZE", "ARCHIVE LOG", "DESCRIBE", "CREATE SEQUENCE", "DROP SEQUENCE",
      "SAVEPOINT", "ALTER TABLE", "CREATE VIEW", "DROP VIEW"};
  static_assert(std::size(kKinds) == std::variant_size_v<DataStatement>);
  return kKinds[st.index()];
}

}  // namespace cellsim::db
