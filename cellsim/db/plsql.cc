#include "cellsim/db/plsql.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <utility>
#include <variant>

#include "absl/strings/match.h"
#include "cellsim/db/data_engine.h"
#include "cellsim/db/data_views.h"
#include "cellsim/db/date_format.h"
#include "cellsim/db/sql_functions.h"
#include "cellsim/db/sql_lexer.h"
#include "cellsim/db/sql_text.h"
#include "fmt/format.h"

namespace cellsim::db::internal {

namespace {

// ---- the block as parsed ----

struct Block;

// A variable's declared type: a column's (NUMBER(p, s), VARCHAR2(n), CHAR(n),
// DATE), BOOLEAN, EXCEPTION, or the type of a table's column or another
// variable (%TYPE, looked up when the declaration runs).
struct VarType {
  Column column;
  bool boolean = false;
  bool exception = false;
  std::string type_of;  // "T.C" or "V" of T.C%TYPE / V%TYPE
  std::string rowtype_of;  // "T" or "C" of T%ROWTYPE / C%ROWTYPE: a record
  bool any = false;        // a cursor record's field: takes any value as it is
};

struct PlStatement;
using Body = std::vector<PlStatement>;

// What runs a package's procedures (Packages): DBMS_STATS's as ANALYZE
// statements, the SLEEPs as DataEngine::Sleep.
enum class PackageHandler : uint8_t { kStats, kSleep };

struct Declaration {
  std::string name;
  VarType type;
  bool constant = false;
  bool not_null = false;
  ExprPtr init;  // null: NULL
  size_t pos = 0;
  // CURSOR name IS SELECT ...: its query (a kForQuery statement's fields).
  std::shared_ptr<const PlStatement> cursor;
};

struct PlStatement {
  enum class Kind : uint8_t {
    kNull, kAssign, kIf, kLoop, kWhile, kForRange, kForQuery, kExit, kContinue, kBlock, kSql,
    kSelectInto, kExecuteImmediate, kPutLine, kPut, kNewLine, kRaiseApplicationError, kRaise,
    kReturn, kOpen, kFetch, kClose, kCall
  };
  Kind kind = Kind::kNull;
  size_t pos = 0;           // where it starts in the block's text
  std::string name;         // the assigned variable, the loop's variable, the raised exception
  std::string label;        // a loop's <<label>>; EXIT / CONTINUE's
  ExprPtr a, b;             // value / condition / range bounds / error number and message
  bool reverse = false;     // FOR ... IN REVERSE
  std::vector<std::pair<ExprPtr, Body>> branches;  // IF: (condition, body); ELSE: (null, body)
  Body body;
  std::shared_ptr<const DataStatement> sql;  // kSql, kSelectInto, kForQuery
  std::vector<std::string> into;             // SELECT ... INTO's variables
  std::set<std::string> words;               // the SQL's words (which may name tables)
  std::string cursor;                        // OPEN, FETCH, CLOSE's cursor
  std::shared_ptr<const Block> block;        // kBlock
  // kCall: a package's procedure (`package`, `name`: Packages), what runs
  // it, and its arguments by parameter name (positional ones named by their
  // position).
  std::string package;
  PackageHandler handler = PackageHandler::kStats;
  std::map<std::string, ExprPtr> args;
};

// A DBMS_ package procedure cellsim runs (besides DBMS_OUTPUT's): its
// parameters in order, as Oracle's (those past the ones listed are not
// accepted), the first `required` of which have no default.
struct PackageProcedure {
  std::vector<std::string> params;
  size_t required = 1;
};
using Procedures = std::map<std::string, PackageProcedure, std::less<>>;
// A package: what runs its procedures, and them by name.
struct Package {
  PackageHandler handler;
  Procedures procedures;
};

// By name.
const std::map<std::string, Package, std::less<>>& Packages() {
  static const auto* m = new std::map<std::string, Package, std::less<>>{
      {"DBMS_STATS",
       {PackageHandler::kStats,
        {{"GATHER_TABLE_STATS",
         {{"OWNNAME", "TABNAME", "PARTNAME", "ESTIMATE_PERCENT", "BLOCK_SAMPLE", "METHOD_OPT",
           "DEGREE", "GRANULARITY", "CASCADE", "STATTAB", "STATID", "STATOWN", "NO_INVALIDATE",
           "STATTYPE", "FORCE"},
          2}},
        {"GATHER_INDEX_STATS",
         {{"OWNNAME", "INDNAME", "PARTNAME", "ESTIMATE_PERCENT", "STATTAB", "STATID", "STATOWN",
           "DEGREE", "GRANULARITY", "NO_INVALIDATE", "FORCE"},
          2}},
        {"GATHER_SCHEMA_STATS",
         {{"OWNNAME", "ESTIMATE_PERCENT", "BLOCK_SAMPLE", "METHOD_OPT", "DEGREE", "GRANULARITY",
           "CASCADE", "STATTAB", "STATID", "OPTIONS", "OBJLIST", "STATOWN", "NO_INVALIDATE",
           "GATHER_TEMP", "GATHER_FIXED", "STATTYPE", "FORCE"},
          1}},
        {"DELETE_TABLE_STATS",
         {{"OWNNAME", "TABNAME", "PARTNAME", "STATTAB", "STATID", "CASCADE_PARTS",
           "CASCADE_COLUMNS", "CASCADE_INDEXES", "STATOWN", "NO_INVALIDATE", "FORCE"},
          2}},
        {"DELETE_INDEX_STATS",
         {{"OWNNAME", "INDNAME", "PARTNAME", "STATTAB", "STATID", "CASCADE_PARTS", "STATOWN",
           "NO_INVALIDATE", "STATTYPE", "FORCE"},
          2}},
        {"DELETE_SCHEMA_STATS",
         {{"OWNNAME", "STATTAB", "STATID", "STATOWN", "NO_INVALIDATE", "FORCE"}, 1}}}}},
      // DBMS_SESSION.SLEEP (18c on) and the older DBMS_LOCK.SLEEP.
      {"DBMS_SESSION", {PackageHandler::kSleep, {{"SLEEP", {{"SECONDS"}, 1}}}}},
      {"DBMS_LOCK", {PackageHandler::kSleep, {{"SLEEP", {{"SECONDS"}, 1}}}}},
  };
  return *m;
}

struct Handler {
  std::vector<std::string> names;  // OTHERS, NO_DATA_FOUND, ..., a declared exception
  Body body;
};

struct Block {
  std::vector<Declaration> declarations;
  Body body;
  std::vector<Handler> handlers;
};

// The predefined exceptions and the errors they stand for.
const std::map<std::string, std::string, std::less<>>& PredefinedExceptions() {
  static const auto* m = new std::map<std::string, std::string, std::less<>>{
      {"NO_DATA_FOUND", "ORA-01403: no data found"},
      {"TOO_MANY_ROWS", "ORA-01422: exact fetch returns more than requested number of rows"},
      {"DUP_VAL_ON_INDEX", "ORA-00001: unique constraint violated"},
      {"ZERO_DIVIDE", "ORA-01476: divisor is equal to zero"},
      {"VALUE_ERROR", "ORA-06502: PL/SQL: numeric or value error"},
      {"INVALID_NUMBER", "ORA-01722: invalid number"},
      {"CASE_NOT_FOUND", "ORA-06592: CASE not found while executing CASE statement"},
      {"INVALID_CURSOR", "ORA-01001: invalid cursor"},
      {"CURSOR_ALREADY_OPEN", "ORA-06511: PL/SQL: cursor already open"},
  };
  return *m;
}

bool SameWord(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::toupper(static_cast<unsigned char>(x)) ==
                  std::toupper(static_cast<unsigned char>(y));
         });
}

// "line L, column C" of byte `pos` of `text`, both from 1.
std::pair<size_t, size_t> LineColumn(std::string_view text, size_t pos) {
  size_t line = 1, column = 1;
  for (size_t i = 0; i < pos && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return {line, column};
}

class BlockParser {
 public:
  explicit BlockParser(std::string_view text) : text_(text) {}

  absl::StatusOr<std::shared_ptr<const Block>> Parse() {
    SqlLexResult lexed =
        LexSql(text_, SqlLexRules{.number_decimals = false, .punct = "(),;=<>+-*/.!|:%@"});
    if (!lexed.ok()) {
      return Error(lexed.error.pos, lexed.error.message);
    }
    toks_ = std::move(lexed.tokens);
    absl::StatusOr<std::shared_ptr<const Block>> b = ParseBlock();
    if (!b.ok()) return b.status();
    AcceptP("/");  // SQL*Plus's terminator, when it came with the text
    if (Peek().kind != SqlTok::kEnd) {
      return Error(Peek().pos, fmt::format("Encountered the symbol \"{}\" after the block's END;",
                                           Peek().text));
    }
    return b;
  }

 private:
  const SqlToken& Peek(size_t k = 0) const { return toks_[std::min(i_ + k, toks_.size() - 1)]; }
  bool IsW(std::string_view w, size_t k = 0) const {
    const SqlToken& t = Peek(k);
    return t.kind == SqlTok::kWord && SameWord(t.text, w);
  }
  bool IsP(std::string_view p, size_t k = 0) const {
    return Peek(k).kind == SqlTok::kPunct && Peek(k).text == p;
  }
  bool AcceptW(std::string_view w) {
    if (!IsW(w)) return false;
    ++i_;
    return true;
  }
  bool AcceptP(std::string_view p) {
    if (!IsP(p)) return false;
    ++i_;
    return true;
  }
  std::string Found() const {
    return Peek().kind == SqlTok::kEnd ? std::string("end-of-file")
                                       : fmt::format("\"{}\"", Peek().text);
  }
  absl::Status ExpectW(std::string_view w) {
    if (AcceptW(w)) return absl::OkStatus();
    return Error(Peek().pos, fmt::format("Encountered the symbol {} when expecting {}", Found(), w));
  }
  absl::Status ExpectP(std::string_view p) {
    if (AcceptP(p)) return absl::OkStatus();
    return Error(Peek().pos,
                 fmt::format("Encountered the symbol {} when expecting \"{}\"", Found(), p));
  }
  absl::Status Error(size_t pos, std::string_view what, std::string_view pls = "PLS-00103") const {
    const auto [line, column] = LineColumn(text_, pos);
    return absl::InvalidArgumentError(
        fmt::format("ORA-06550: line {}, column {}:\n{}: {}", line, column, pls, what));
  }
  absl::StatusOr<std::string> Name() {
    const SqlToken& t = Peek();
    if (t.kind != SqlTok::kWord && t.kind != SqlTok::kQuotedIdent) {
      return Error(t.pos, fmt::format("Encountered the symbol {} when expecting an identifier",
                                      Found()));
    }
    ++i_;
    return t.kind == SqlTok::kWord ? Upper(t.text) : t.text;
  }

  // ---- scopes: which names a block declares (targets must be declared) ----
  bool Declared(const std::string& name) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      if (it->count(name) != 0) return true;
    }
    return false;
  }
  absl::Status CheckTarget(const std::string& name, size_t pos) const {
    if (Declared(name)) return absl::OkStatus();
    return Error(pos, fmt::format("identifier '{}' must be declared", name), "PLS-00201");
  }

  absl::StatusOr<std::shared_ptr<const Block>> ParseBlock() {
    auto block = std::make_shared<Block>();
    scopes_.emplace_back();
    if (AcceptW("DECLARE")) {
      while (!IsW("BEGIN") && Peek().kind != SqlTok::kEnd) {
        absl::StatusOr<Declaration> d = ParseDeclaration();
        if (!d.ok()) return d.status();
        scopes_.back().insert(d->name);
        if (d->type.boolean) booleans_.insert(d->name);
        block->declarations.push_back(std::move(*d));
      }
    }
    if (absl::Status st = ExpectW("BEGIN"); !st.ok()) return st;
    absl::StatusOr<Body> body = ParseBody();
    if (!body.ok()) return body.status();
    block->body = std::move(*body);
    if (AcceptW("EXCEPTION")) {
      while (AcceptW("WHEN")) {
        Handler h;
        do {
          absl::StatusOr<std::string> n = Name();
          if (!n.ok()) return n.status();
          if (*n != "OTHERS" && !PredefinedExceptions().contains(*n) && !Declared(*n)) {
            return Error(Peek().pos, fmt::format("identifier '{}' must be declared", *n),
                         "PLS-00201");
          }
          h.names.push_back(std::move(*n));
        } while (AcceptW("OR"));
        if (absl::Status st = ExpectW("THEN"); !st.ok()) return st;
        ++handler_depth_;
        absl::StatusOr<Body> hb = ParseBody();
        --handler_depth_;
        if (!hb.ok()) return hb.status();
        h.body = std::move(*hb);
        block->handlers.push_back(std::move(h));
      }
    }
    if (absl::Status st = ExpectW("END"); !st.ok()) return st;
    if (Peek().kind == SqlTok::kWord) ++i_;  // END name
    if (absl::Status st = ExpectP(";"); !st.ok()) return st;
    scopes_.pop_back();
    return block;
  }

  absl::StatusOr<VarType> ParseType() {
    VarType t;
    const size_t at = Peek().pos;
    absl::StatusOr<std::string> n = Name();
    if (!n.ok()) return n.status();
    if (AcceptP(".")) {  // T.C%TYPE
      absl::StatusOr<std::string> c = Name();
      if (!c.ok()) return c.status();
      *n += "." + *c;
    }
    if (AcceptP("%")) {
      if (AcceptW("ROWTYPE")) {
        if (n->find('.') != std::string::npos) {
          return Error(at, fmt::format("'{}%ROWTYPE' names no table or cursor", *n), "PLS-00310");
        }
        t.rowtype_of = *n;
        return t;
      }
      if (absl::Status st = ExpectW("TYPE"); !st.ok()) return st;
      t.type_of = *n;
      return t;
    }
    const auto size = [&](uint32_t* length, int32_t* scale) -> absl::Status {
      if (!AcceptP("(")) return absl::OkStatus();
      if (Peek().kind != SqlTok::kNumber) return Error(Peek().pos, "expected a length");
      *length = static_cast<uint32_t>(std::stoul(Next().text));
      if (scale != nullptr && AcceptP(",")) {
        const bool negative = AcceptP("-");
        if (Peek().kind != SqlTok::kNumber) return Error(Peek().pos, "expected a scale");
        *scale = static_cast<int32_t>(std::stol(Next().text)) * (negative ? -1 : 1);
      }
      if (!AcceptW("BYTE")) AcceptW("CHAR");
      return ExpectP(")");
    };
    Column& c = t.column;
    if (*n == "NUMBER" || *n == "NUMERIC" || *n == "DECIMAL" || *n == "FLOAT") {
      c.type = ColType::kNumber;
      if (absl::Status st = size(&c.length, &c.scale); !st.ok()) return st;
    } else if (*n == "INTEGER" || *n == "INT" || *n == "PLS_INTEGER" || *n == "BINARY_INTEGER" ||
               *n == "SIMPLE_INTEGER" || *n == "NATURAL" || *n == "POSITIVE" ||
               *n == "SMALLINT") {
      c.type = ColType::kNumber;
      c.length = 38;
    } else if (*n == "VARCHAR2" || *n == "VARCHAR" || *n == "NVARCHAR2" || *n == "STRING") {
      c.type = ColType::kVarchar2;
      if (!IsP("(")) {
        return Error(Peek().pos, "a VARCHAR2 variable needs its length, as VARCHAR2(30)",
                     "PLS-00215");
      }
      if (absl::Status st = size(&c.length, nullptr); !st.ok()) return st;
    } else if (*n == "CHAR" || *n == "NCHAR") {
      c.type = ColType::kChar;
      c.length = 1;
      if (absl::Status st = size(&c.length, nullptr); !st.ok()) return st;
    } else if (*n == "DATE") {
      c.type = ColType::kDate;
    } else if (*n == "TIMESTAMP") {
      c.type = ColType::kTimestamp;
      c.length = kDefaultTimestampPrecision;
      if (absl::Status st = size(&c.length, nullptr); !st.ok()) return st;
      if (c.length > 9) return Error(at, "a TIMESTAMP's precision is 0 to 9", "PLS-00216");
    } else if (*n == "INTERVAL" && IsW("DAY")) {
      // INTERVAL DAY [(p)] TO SECOND [(p)]: holds the interval it is given.
      Next();
      uint32_t ignored = 0;
      if (absl::Status st = size(&ignored, nullptr); !st.ok()) return st;
      if (absl::Status st = ExpectW("TO"); !st.ok()) return st;
      if (absl::Status st = ExpectW("SECOND"); !st.ok()) return st;
      if (absl::Status st = size(&ignored, nullptr); !st.ok()) return st;
      t.any = true;
    } else if (*n == "BOOLEAN") {
      t.boolean = true;
    } else if (*n == "EXCEPTION") {
      t.exception = true;
    } else {
      return Error(at, fmt::format("identifier '{}' must be declared (cellsim's PL/SQL types: "
                                   "NUMBER, INTEGER, PLS_INTEGER, VARCHAR2(n), CHAR(n), DATE, "
                                   "TIMESTAMP, INTERVAL DAY TO SECOND, BOOLEAN, EXCEPTION, "
                                   "t.c%TYPE)",
                                   *n),
                   "PLS-00201");
    }
    return t;
  }

  const SqlToken& Next() { return toks_[i_++]; }

  absl::StatusOr<Declaration> ParseDeclaration() {
    Declaration d;
    d.pos = Peek().pos;
    if (AcceptW("CURSOR")) {  // CURSOR name IS SELECT ...;
      absl::StatusOr<std::string> n = Name();
      if (!n.ok()) return n.status();
      d.name = *n;
      if (absl::Status st = ExpectW("IS"); !st.ok()) return st;
      if (!IsW("SELECT") && !IsW("WITH")) {
        return Error(Peek().pos, fmt::format("Encountered the symbol {} when expecting SELECT "
                                             "(cursors with parameters are not built)", Found()));
      }
      absl::StatusOr<size_t> end = EndOf({";"});
      if (!end.ok()) return end.status();
      auto q = std::make_shared<PlStatement>();
      q->kind = PlStatement::Kind::kForQuery;
      q->pos = d.pos;
      if (absl::Status st = SqlStatement(i_, *end, q.get()); !st.ok()) return st;
      i_ = *end + 1;
      d.cursor = std::move(q);
      cursors_[d.name] = d.cursor;
      return d;
    }
    absl::StatusOr<std::string> n = Name();
    if (!n.ok()) return n.status();
    d.name = *n;
    d.constant = AcceptW("CONSTANT");
    absl::StatusOr<VarType> t = ParseType();
    if (!t.ok()) return t.status();
    d.type = std::move(*t);
    d.type.column.name = d.name;
    if (AcceptW("NOT")) {
      if (absl::Status st = ExpectW("NULL"); !st.ok()) return st;
      d.not_null = true;
    }
    if ((IsP(":") && IsP("=", 1)) || IsW("DEFAULT")) {
      i_ += IsW("DEFAULT") ? 1 : 2;
      absl::StatusOr<ExprPtr> init = ExpressionUntil({";"}, d.type.boolean);
      if (!init.ok()) return init.status();
      d.init = std::move(*init);
    } else if (d.constant || d.not_null) {
      return Error(d.pos, fmt::format("a variable declared {} must be initialized ('{}')",
                                      d.constant ? "CONSTANT" : "NOT NULL", d.name),
                   d.constant ? "PLS-00322" : "PLS-00218");
    }
    if (absl::Status st = ExpectP(";"); !st.ok()) return st;
    return d;
  }

  // Statements up to END, ELSE, ELSIF, EXCEPTION or a handler's WHEN.
  absl::StatusOr<Body> ParseBody() {
    Body body;
    while (!(IsW("END") || IsW("ELSE") || IsW("ELSIF") || IsW("EXCEPTION") || IsW("WHEN") ||
             Peek().kind == SqlTok::kEnd)) {
      absl::StatusOr<PlStatement> st = ParseStatement();
      if (!st.ok()) return st.status();
      body.push_back(std::move(*st));
    }
    if (body.empty()) {
      return Error(Peek().pos,
                   fmt::format("Encountered the symbol {} when expecting a statement (NULL; "
                               "does nothing)",
                               Found()));
    }
    return body;
  }

  // Where the expression starting here ends: the first of `ends` (words
  // or punctuation) outside parentheses; ".." for a range's bound.
  absl::StatusOr<size_t> EndOf(std::initializer_list<std::string_view> ends) const {
    int depth = 0;
    for (size_t k = i_; k < toks_.size(); ++k) {
      const SqlToken& t = toks_[k];
      if (t.kind == SqlTok::kEnd) break;
      if (t.kind == SqlTok::kPunct && t.text == "(") ++depth;
      if (t.kind == SqlTok::kPunct && t.text == ")") --depth;
      if (depth > 0) continue;
      for (std::string_view e : ends) {
        const bool word = t.kind == SqlTok::kWord && SameWord(t.text, e);
        const bool punct = t.kind == SqlTok::kPunct && t.text == e;
        const bool range = e == ".." && t.kind == SqlTok::kPunct && t.text == "." &&
                           k + 1 < toks_.size() && toks_[k + 1].text == "." &&
                           toks_[k + 1].pos == t.pos + 1;
        if (word || punct || range) return k;
      }
      if (depth < 0) break;
    }
    std::string expected;
    for (std::string_view e : ends) expected += (expected.empty() ? "" : " or ") + std::string(e);
    return Error(Peek().pos, fmt::format("the expression starting here has no {} after it",
                                         expected));
  }

  // The ')' closing the parenthesis the parser stands just inside of.
  absl::StatusOr<size_t> Closing() const {
    int depth = 0;
    for (size_t k = i_; k < toks_.size() && toks_[k].kind != SqlTok::kEnd; ++k) {
      if (toks_[k].kind != SqlTok::kPunct) continue;
      if (toks_[k].text == "(") ++depth;
      if (toks_[k].text == ")" && depth-- == 0) return k;
    }
    return Error(Peek().pos, "this '(' has no ')'");
  }

  // The text of tokens [from, to) as SQL: the attributes X%ROWCOUNT,
  // X%FOUND, X%NOTFOUND and X%ISOPEN (of SQL or a cursor) become the quoted
  // names the runner gives values.
  std::string SqlText(size_t from, size_t to) const {
    std::string out;
    size_t copied = toks_[from].pos;
    for (size_t k = from; k + 2 < to; ++k) {
      const std::string attr = base::Upper(toks_[k + 2].text);
      if (toks_[k].kind == SqlTok::kWord && toks_[k + 1].text == "%" &&
          toks_[k + 2].kind == SqlTok::kWord &&
          (attr == "ROWCOUNT" || attr == "FOUND" || attr == "NOTFOUND" || attr == "ISOPEN")) {
        out += text_.substr(copied, toks_[k].pos - copied);
        out += "\"" + base::Upper(toks_[k].text) + "%" + attr + "\"";
        copied = toks_[k + 2].pos + toks_[k + 2].len;
        k += 2;
      }
    }
    const size_t end = to < toks_.size() ? toks_[to].pos : text_.size();
    if (end > copied) out += text_.substr(copied, end - copied);
    return out;
  }

  // An expression (or, `condition`, a condition) up to the first of `ends`,
  // parsed by the SQL parser; the parser stays before that end.
  absl::StatusOr<ExprPtr> ExpressionUntil(std::initializer_list<std::string_view> ends,
                                          bool condition = false) {
    absl::StatusOr<size_t> end = EndOf(ends);
    if (!end.ok()) return end.status();
    if (*end == i_) return Error(Peek().pos, fmt::format("Encountered the symbol {} when "
                                                         "expecting an expression", Found()));
    const size_t at = Peek().pos;
    const std::string text = SqlText(i_, *end);
    i_ = *end;
    return ParseExpression(text, at, condition);
  }

  absl::StatusOr<ExprPtr> ParseExpression(const std::string& text, size_t at, bool condition) {
    const std::string sql = condition ? "SELECT 1 FROM DUAL WHERE " + text
                                      : "SELECT " + text + " FROM DUAL";
    absl::StatusOr<DataStatement> st = ParseDataStatement(sql);
    const Select* sel = st.ok() ? std::get_if<Select>(&*st) : nullptr;
    if (sel == nullptr || (condition ? sel->where == nullptr : sel->items.size() != 1) ||
        sel->from.size() != 1 || sel->from[0].table != "DUAL" || !sel->group_by.empty() ||
        !sel->order_by.empty() || !sel->set_operations.empty()) {
      std::string why = st.ok() ? "not one expression" : std::string(st.status().message());
      return Error(at, fmt::format("{} '{}' does not parse: {}",
                                   condition ? "the condition" : "the expression", text, why));
    }
    ExprPtr e = condition ? sel->where : sel->items[0].expr;
    if (HasSubquery(*e)) {
      return Error(at, "subquery not allowed in this context (SELECT ... INTO a variable first)",
                   "PLS-00405");
    }
    return e;
  }

  static bool HasSubquery(const Expr& e) {
    if (e.subquery) return true;
    return std::any_of(e.args.begin(), e.args.end(), [](const ExprPtr& a) { return HasSubquery(*a); });
  }

  absl::StatusOr<PlStatement> ParseStatement() {
    std::string label;
    if (IsP("<") && IsP("<", 1)) {  // <<label>>
      i_ += 2;
      absl::StatusOr<std::string> l = Name();
      if (!l.ok()) return l.status();
      label = *l;
      if (absl::Status st = ExpectP(">"); !st.ok()) return st;
      if (absl::Status st = ExpectP(">"); !st.ok()) return st;
    }
    PlStatement s;
    s.pos = Peek().pos;
    s.label = label;
    if (AcceptW("NULL")) {
      s.kind = PlStatement::Kind::kNull;
      return Terminated(std::move(s));
    }
    if (IsW("IF")) return ParseIf(std::move(s));
    if (IsW("CASE")) return ParseCase(std::move(s));
    if (IsW("OPEN") || IsW("FETCH") || IsW("CLOSE")) return ParseCursorStatement(std::move(s));
    if (IsW("LOOP") || IsW("WHILE") || IsW("FOR")) return ParseLoop(std::move(s));
    if (IsW("EXIT") || IsW("CONTINUE")) {
      s.kind = IsW("EXIT") ? PlStatement::Kind::kExit : PlStatement::Kind::kContinue;
      ++i_;
      if (Peek().kind == SqlTok::kWord && !IsW("WHEN")) s.label = Upper(Next().text);
      if (AcceptW("WHEN")) {
        absl::StatusOr<ExprPtr> c = ExpressionUntil({";"}, true);
        if (!c.ok()) return c.status();
        s.a = std::move(*c);
      }
      return Terminated(std::move(s));
    }
    if (IsW("DECLARE") || IsW("BEGIN")) {
      absl::StatusOr<std::shared_ptr<const Block>> b = ParseNestedBlock();
      if (!b.ok()) return b.status();
      s.kind = PlStatement::Kind::kBlock;
      s.block = std::move(*b);
      return s;
    }
    if (AcceptW("RETURN")) {
      s.kind = PlStatement::Kind::kReturn;
      return Terminated(std::move(s));
    }
    if (AcceptW("RAISE")) {
      s.kind = PlStatement::Kind::kRaise;
      if (!IsP(";")) {
        absl::StatusOr<std::string> n = Name();
        if (!n.ok()) return n.status();
        if (!PredefinedExceptions().contains(*n)) {
          if (absl::Status st = CheckTarget(*n, s.pos); !st.ok()) return st;
        }
        s.name = *n;
      } else if (handler_depth_ == 0) {
        return Error(s.pos, "a RAISE statement with no exception name must be inside an "
                            "exception handler", "PLS-00367");
      }
      return Terminated(std::move(s));
    }
    if (IsW("EXECUTE") && IsW("IMMEDIATE", 1)) {
      i_ += 2;
      s.kind = PlStatement::Kind::kExecuteImmediate;
      absl::StatusOr<ExprPtr> e = ExpressionUntil({";"});
      if (!e.ok()) return e.status();
      s.a = std::move(*e);
      return Terminated(std::move(s));
    }
    SkipPackageOwner();
    if (IsW("DBMS_OUTPUT") && IsP(".", 1)) return ParseOutput(std::move(s));
    if (Peek().kind == SqlTok::kWord && IsP(".", 1) &&
        Packages().count(Upper(Peek().text)) != 0) {
      return ParseCall(std::move(s));
    }
    if (IsW("RAISE_APPLICATION_ERROR")) return ParseRaiseApplicationError(std::move(s));
    for (std::string_view w : {"SELECT", "WITH", "INSERT", "UPDATE", "DELETE", "MERGE", "COMMIT",
                               "ROLLBACK", "SAVEPOINT"}) {
      if (IsW(w)) return ParseSql(std::move(s));
    }
    const bool field = Peek().kind == SqlTok::kWord && IsP(".", 1) &&
                       Peek(2).kind == SqlTok::kWord && IsP(":", 3) && IsP("=", 4);
    if (field || (Peek().kind == SqlTok::kWord && IsP(":", 1) && IsP("=", 2))) {
      s.kind = PlStatement::Kind::kAssign;
      s.name = Upper(Next().text);
      if (absl::Status st = CheckTarget(s.name, s.pos); !st.ok()) return st;
      if (field) {  // a record's field: r.f := ...
        ++i_;
        s.name += "." + Upper(Next().text);
      }
      i_ += 2;
      absl::StatusOr<ExprPtr> e = ExpressionUntil({";"}, booleans_.count(s.name) != 0);
      if (!e.ok()) return e.status();
      s.a = std::move(*e);
      return Terminated(std::move(s));
    }
    if (Peek().kind == SqlTok::kWord && IsP("=", 1)) {  // v = 1: SQL's '=', not PL/SQL's ':='
      return Error(Peek(1).pos, "Encountered the symbol \"=\" when expecting \":=\" (an "
                                "assignment is v := value)");
    }
    if (IsW("CREATE") || IsW("DROP") || IsW("ALTER") || IsW("TRUNCATE") || IsW("RENAME")) {
      return Error(s.pos, fmt::format("Encountered the symbol \"{}\": DDL runs in PL/SQL only "
                                      "through EXECUTE IMMEDIATE '...'",
                                      Upper(Peek().text)));
    }
    if (Peek().kind == SqlTok::kWord && (IsP(".", 1) || IsP("(", 1) || IsP(";", 1))) {
      std::string name = base::Upper(Peek().text);
      if (IsP(".", 1) && Peek(2).kind == SqlTok::kWord) name += "." + base::Upper(Peek(2).text);
      return Error(s.pos, fmt::format("identifier '{}' must be declared (cellsim's PL/SQL has no "
                                      "stored procedures, functions or packages: of the DBMS_ "
                                      "packages it runs DBMS_OUTPUT, DBMS_STATS, "
                                      "DBMS_SESSION.SLEEP and DBMS_LOCK.SLEEP)",
                                      name),
                   "PLS-00201");
    }
    return Error(s.pos, fmt::format("Encountered the symbol {} when expecting a statement "
                                    "(NULL, an assignment, IF, CASE, LOOP, WHILE, FOR, EXIT, "
                                    "BEGIN, SQL, OPEN, FETCH, CLOSE, EXECUTE IMMEDIATE, "
                                    "DBMS_OUTPUT.PUT_LINE, RAISE)",
                                    Found()));
  }

  // CASE [selector] WHEN x THEN ... [ELSE ...] END CASE: an IF chain; no
  // ELSE and no match is ORA-06592 (CASE_NOT_FOUND).
  absl::StatusOr<PlStatement> ParseCase(PlStatement s) {
    s.kind = PlStatement::Kind::kIf;
    ++i_;  // CASE
    ExprPtr selector;
    if (!IsW("WHEN")) {
      absl::StatusOr<ExprPtr> x = ExpressionUntil({"WHEN"});
      if (!x.ok()) return x.status();
      selector = std::move(*x);
    }
    while (AcceptW("WHEN")) {
      absl::StatusOr<ExprPtr> c = ExpressionUntil({"THEN"}, selector == nullptr);
      if (!c.ok()) return c.status();
      ++i_;
      if (selector != nullptr) {
        auto eq = std::make_shared<Expr>();
        eq->kind = Expr::Kind::kBinary;
        eq->text = "=";
        eq->args = {selector, std::move(*c)};
        *c = std::move(eq);
      }
      absl::StatusOr<Body> body = ParseBody();
      if (!body.ok()) return body.status();
      s.branches.emplace_back(std::move(*c), std::move(*body));
    }
    if (s.branches.empty()) {
      return Error(Peek().pos, fmt::format("Encountered the symbol {} when expecting WHEN", Found()));
    }
    Body otherwise;
    if (AcceptW("ELSE")) {
      absl::StatusOr<Body> body = ParseBody();
      if (!body.ok()) return body.status();
      otherwise = std::move(*body);
    } else {
      PlStatement raise;
      raise.kind = PlStatement::Kind::kRaise;
      raise.pos = s.pos;
      raise.name = "CASE_NOT_FOUND";
      otherwise.push_back(std::move(raise));
    }
    s.branches.emplace_back(nullptr, std::move(otherwise));
    if (absl::Status st = ExpectW("END"); !st.ok()) return st;
    if (absl::Status st = ExpectW("CASE"); !st.ok()) return st;
    return Terminated(std::move(s));
  }

  // OPEN c; FETCH c INTO v, ...; CLOSE c;
  absl::StatusOr<PlStatement> ParseCursorStatement(PlStatement s) {
    s.kind = IsW("OPEN") ? PlStatement::Kind::kOpen
             : IsW("FETCH") ? PlStatement::Kind::kFetch : PlStatement::Kind::kClose;
    ++i_;
    const size_t at = Peek().pos;
    absl::StatusOr<std::string> c = Name();
    if (!c.ok()) return c.status();
    if (cursors_.count(*c) == 0) {
      return Error(at, fmt::format("identifier '{}' must be declared (a CURSOR {} IS SELECT ...)",
                                   *c, *c), "PLS-00201");
    }
    s.cursor = *c;
    if (s.kind == PlStatement::Kind::kFetch) {
      if (absl::Status st = ExpectW("INTO"); !st.ok()) return st;
      do {
        const size_t v_at = Peek().pos;
        absl::StatusOr<std::string> v = Name();
        if (!v.ok()) return v.status();
        if (absl::Status st = CheckTarget(*v, v_at); !st.ok()) return st;
        s.into.push_back(*v);
      } while (AcceptP(","));
    }
    return Terminated(std::move(s));
  }

  // RAISE_APPLICATION_ERROR(number, message);
  absl::StatusOr<PlStatement> ParseRaiseApplicationError(PlStatement s) {
    ++i_;
    s.kind = PlStatement::Kind::kRaiseApplicationError;
    if (absl::Status st = ExpectP("("); !st.ok()) return st;
    absl::StatusOr<ExprPtr> n = ExpressionUntil({","});
    if (!n.ok()) return n.status();
    ++i_;
    absl::StatusOr<size_t> rparen = Closing();
    if (!rparen.ok()) return rparen.status();
    absl::StatusOr<ExprPtr> m = ParseExpression(SqlText(i_, *rparen), Peek().pos, false);
    if (!m.ok()) return m.status();
    i_ = *rparen + 1;
    s.a = std::move(*n);
    s.b = std::move(*m);
    return Terminated(std::move(s));
  }

  absl::StatusOr<PlStatement> Terminated(PlStatement s) {
    if (absl::Status st = ExpectP(";"); !st.ok()) return st;
    return s;
  }

  absl::StatusOr<std::shared_ptr<const Block>> ParseNestedBlock() {
    const std::set<std::string> booleans = booleans_;
    absl::StatusOr<std::shared_ptr<const Block>> b = ParseBlock();
    booleans_ = booleans;
    return b;
  }

  absl::StatusOr<PlStatement> ParseIf(PlStatement s) {
    s.kind = PlStatement::Kind::kIf;
    ++i_;  // IF
    do {
      absl::StatusOr<ExprPtr> c = ExpressionUntil({"THEN"}, true);
      if (!c.ok()) return c.status();
      ++i_;
      absl::StatusOr<Body> body = ParseBody();
      if (!body.ok()) return body.status();
      s.branches.emplace_back(std::move(*c), std::move(*body));
    } while (AcceptW("ELSIF"));
    if (AcceptW("ELSE")) {
      absl::StatusOr<Body> body = ParseBody();
      if (!body.ok()) return body.status();
      s.branches.emplace_back(nullptr, std::move(*body));
    }
    if (absl::Status st = ExpectW("END"); !st.ok()) return st;
    if (absl::Status st = ExpectW("IF"); !st.ok()) return st;
    return Terminated(std::move(s));
  }

  absl::StatusOr<PlStatement> ParseLoop(PlStatement s) {
    bool scoped = false;  // FOR's variable is the loop's own
    if (AcceptW("WHILE")) {
      s.kind = PlStatement::Kind::kWhile;
      absl::StatusOr<ExprPtr> c = ExpressionUntil({"LOOP"}, true);
      if (!c.ok()) return c.status();
      s.a = std::move(*c);
    } else if (AcceptW("FOR")) {
      absl::StatusOr<std::string> v = Name();
      if (!v.ok()) return v.status();
      s.name = *v;
      if (absl::Status st = ExpectW("IN"); !st.ok()) return st;
      if (IsP("(") && (IsW("SELECT", 1) || IsW("WITH", 1))) {
        absl::Status st = ParseQueryRange(&s);
        if (!st.ok()) return st;
      } else if (Peek().kind == SqlTok::kWord && cursors_.count(base::Upper(Peek().text)) != 0 &&
                 IsW("LOOP", 1)) {
        const PlStatement& q = *cursors_.at(base::Upper(Next().text));
        s.kind = PlStatement::Kind::kForQuery;
        s.sql = q.sql;
        s.words = q.words;
      } else {
        s.kind = PlStatement::Kind::kForRange;
        s.reverse = AcceptW("REVERSE");
        absl::StatusOr<ExprPtr> lo = ExpressionUntil({".."});
        if (!lo.ok()) return lo.status();
        i_ += 2;
        absl::StatusOr<ExprPtr> hi = ExpressionUntil({"LOOP"});
        if (!hi.ok()) return hi.status();
        s.a = std::move(*lo);
        s.b = std::move(*hi);
      }
      scopes_.emplace_back();
      scopes_.back().insert(s.name);
      scoped = true;
    } else {
      s.kind = PlStatement::Kind::kLoop;
    }
    if (absl::Status st = ExpectW("LOOP"); !st.ok()) return st;
    absl::StatusOr<Body> body = ParseBody();
    if (!body.ok()) return body.status();
    if (scoped) scopes_.pop_back();
    s.body = std::move(*body);
    if (absl::Status st = ExpectW("END"); !st.ok()) return st;
    if (absl::Status st = ExpectW("LOOP"); !st.ok()) return st;
    if (Peek().kind == SqlTok::kWord) ++i_;  // END LOOP label
    return Terminated(std::move(s));
  }

  // FOR r IN (SELECT ...): the query, whose columns are r.<name>.
  absl::Status ParseQueryRange(PlStatement* s) {
    s->kind = PlStatement::Kind::kForQuery;
    ++i_;  // (
    int depth = 1;
    size_t k = i_;
    for (; k < toks_.size() && toks_[k].kind != SqlTok::kEnd; ++k) {
      if (toks_[k].text == "(" && toks_[k].kind == SqlTok::kPunct) ++depth;
      if (toks_[k].text == ")" && toks_[k].kind == SqlTok::kPunct && --depth == 0) break;
    }
    if (depth != 0) return Error(Peek().pos, "the query of FOR ... IN (...) has no ')'");
    absl::Status st = SqlStatement(i_, k, s);
    i_ = k + 1;
    return st;
  }

  // Tokens [from, to) as a SQL statement of the block.
  absl::Status SqlStatement(size_t from, size_t to, PlStatement* s) {
    const std::string text = SqlText(from, to);
    absl::StatusOr<DataStatement> st = ParseDataStatement(text);
    if (!st.ok()) {
      return Error(toks_[from].pos, fmt::format("SQL Statement ignored: {}", std::string(st.status().message())),
                   "PL/SQL");
    }
    for (size_t k = from; k < to; ++k) {
      if (toks_[k].kind == SqlTok::kWord) s->words.insert(Upper(toks_[k].text));
    }
    s->sql = std::make_shared<const DataStatement>(std::move(*st));
    return absl::OkStatus();
  }

  absl::StatusOr<PlStatement> ParseSql(PlStatement s) {
    s.kind = PlStatement::Kind::kSql;
    absl::StatusOr<size_t> end = EndOf({";"});
    if (!end.ok()) return end.status();
    // SELECT ... INTO v, ... FROM: the variables out of the query's text.
    size_t into = 0, from = 0;
    if (IsW("SELECT") || IsW("WITH")) {
      int depth = 0;
      for (size_t k = i_; k < *end; ++k) {
        const SqlToken& t = toks_[k];
        if (t.kind == SqlTok::kPunct) depth += t.text == "(" ? 1 : t.text == ")" ? -1 : 0;
        if (depth != 0 || t.kind != SqlTok::kWord) continue;
        if (into == 0 && SameWord(t.text, "INTO")) into = k;
        if (into != 0 && SameWord(t.text, "FROM")) {
          from = k;
          break;
        }
      }
      if (into == 0) {
        return Error(s.pos, "an INTO clause is expected in this SELECT statement", "PLS-00428");
      }
      if (from == 0) return Error(toks_[into].pos, "SELECT ... INTO ... has no FROM after INTO");
      s.kind = PlStatement::Kind::kSelectInto;
      for (size_t k = into + 1; k < from; ++k) {
        if (toks_[k].kind == SqlTok::kPunct && toks_[k].text == ",") continue;
        if (toks_[k].kind != SqlTok::kWord) {
          return Error(toks_[k].pos, "INTO takes variables separated by commas");
        }
        const std::string v = Upper(toks_[k].text);
        if (absl::Status st = CheckTarget(v, toks_[k].pos); !st.ok()) return st;
        s.into.push_back(v);
      }
      const std::string text = SqlText(i_, into) + " " + SqlText(from, *end);
      absl::StatusOr<DataStatement> st = ParseDataStatement(text);
      if (!st.ok()) {
        return Error(s.pos, fmt::format("SQL Statement ignored: {}", std::string(st.status().message())),
                     "PL/SQL");
      }
      for (size_t k = i_; k < *end; ++k) {
        if (toks_[k].kind == SqlTok::kWord) s.words.insert(Upper(toks_[k].text));
      }
      s.sql = std::make_shared<const DataStatement>(std::move(*st));
    } else if (absl::Status st = SqlStatement(i_, *end, &s); !st.ok()) {
      return st;
    }
    i_ = *end;
    return Terminated(std::move(s));
  }

  // SYS.DBMS_OUTPUT..., SYS.DBMS_SESSION.SLEEP: the packages' owner named,
  // passed over.
  void SkipPackageOwner() {
    if (IsW("SYS") && IsP(".", 1) && IsP(".", 3) &&
        (IsW("DBMS_OUTPUT", 2) || Packages().count(Upper(Peek(2).text)) != 0)) {
      i_ += 2;
    }
  }

  absl::StatusOr<PlStatement> ParseOutput(PlStatement s) {
    i_ += 2;  // DBMS_OUTPUT .
    absl::StatusOr<std::string> proc = Name();
    if (!proc.ok()) return proc.status();
    if (*proc == "NEW_LINE" || *proc == "ENABLE" || *proc == "DISABLE") {
      s.kind = *proc == "NEW_LINE" ? PlStatement::Kind::kNewLine : PlStatement::Kind::kNull;
      if (AcceptP("(")) {  // ENABLE(buffer_size)
        absl::StatusOr<size_t> close = Closing();
        if (!close.ok()) return close.status();
        i_ = *close + 1;
      }
      return Terminated(std::move(s));
    }
    if (*proc != "PUT_LINE" && *proc != "PUT") {
      return Error(s.pos, fmt::format("component '{}' must be declared (cellsim's DBMS_OUTPUT: "
                                      "PUT_LINE, PUT, NEW_LINE, ENABLE, DISABLE)",
                                      *proc),
                   "PLS-00302");
    }
    s.kind = *proc == "PUT" ? PlStatement::Kind::kPut : PlStatement::Kind::kPutLine;
    if (absl::Status st = ExpectP("("); !st.ok()) return st;
    absl::StatusOr<size_t> rparen = Closing();
    if (!rparen.ok()) return rparen.status();
    if (*rparen == i_) return Error(s.pos, fmt::format("expected DBMS_OUTPUT.{}(text)", *proc));
    absl::StatusOr<ExprPtr> e = ParseExpression(SqlText(i_, *rparen), Peek().pos, false);
    if (!e.ok()) return e.status();
    s.a = std::move(*e);
    i_ = *rparen + 1;
    return Terminated(std::move(s));
  }

  // PACKAGE.proc(arg, ..., name => arg, ...) of Packages: each
  // argument's expression under its parameter's name (not evaluated until
  // the call runs).
  absl::StatusOr<PlStatement> ParseCall(PlStatement s) {
    s.package = Upper(Next().text);
    ++i_;  // .
    const Package& package = Packages().find(s.package)->second;
    const Procedures& procedures = package.procedures;
    s.handler = package.handler;
    absl::StatusOr<std::string> proc = Name();
    if (!proc.ok()) return proc.status();
    auto known = procedures.find(*proc);
    if (known == procedures.end()) {
      std::string names;
      for (const auto& [n, unused] : procedures) names += (names.empty() ? "" : ", ") + n;
      return Error(s.pos, fmt::format("component '{}' must be declared (cellsim's {}: {})", *proc,
                                      s.package, names),
                   "PLS-00302");
    }
    const std::vector<std::string>& params = known->second.params;
    s.kind = PlStatement::Kind::kCall;
    s.name = *proc;
    const auto wrong = [&](const std::string& why) {
      return Error(s.pos, fmt::format("wrong number or types of arguments in call to '{}' ({})",
                                      *proc, why),
                   "PLS-00306");
    };
    if (AcceptP("(")) {
      absl::StatusOr<size_t> rparen = Closing();
      if (!rparen.ok()) return rparen.status();
      bool named = false;
      while (i_ < *rparen) {
        size_t end = i_;  // the argument's end: a comma or the ')' at its depth
        for (int depth = 0; end < *rparen; ++end) {
          const std::string& t = toks_[end].text;
          if (toks_[end].kind != SqlTok::kPunct) continue;
          if (t == "(") ++depth;
          if (t == ")") --depth;
          if (t == "," && depth == 0) break;
        }
        std::string param;
        if (Peek().kind == SqlTok::kWord && IsP("=", 1) && IsP(">", 2)) {
          param = Upper(Next().text);
          i_ += 2;
          if (std::find(params.begin(), params.end(), param) == params.end()) {
            return wrong(fmt::format("it has no parameter {}", param));
          }
          named = true;
        } else if (named) {
          return Error(Peek().pos, "a positional argument may not follow a named one", "PLS-00312");
        } else if (s.args.size() >= params.size()) {
          return wrong(fmt::format("more than its {} arguments", params.size()));
        } else {
          param = params[s.args.size()];
        }
        if (i_ >= end) return wrong(fmt::format("no value for {}", param));
        absl::StatusOr<ExprPtr> e = ParseExpression(SqlText(i_, end), Peek().pos, false);
        if (!e.ok()) return e.status();
        // `cascade = false`: a comparison with a parameter's name, meant as
        // the named argument `cascade => false`.
        const Expr& x = **e;
        if (x.kind == Expr::Kind::kBinary && x.text == "=" && !x.args.empty() &&
            x.args[0]->kind == Expr::Kind::kColumn && x.args[0]->qualifier.empty() &&
            std::find(params.begin(), params.end(), Upper(x.args[0]->text)) != params.end()) {
          return Error(toks_[i_].pos, fmt::format("identifier '{}' must be declared (a named "
                                                  "argument is {} => value)",
                                                  Upper(x.args[0]->text), base::Lower(x.args[0]->text)),
                       "PLS-00201");
        }
        if (!s.args.emplace(param, std::move(*e)).second) {
          return wrong(fmt::format("{} given twice", param));
        }
        if (end + 1 == *rparen) return wrong("no value after the last comma");
        i_ = end < *rparen ? end + 1 : end;
      }
      i_ = *rparen + 1;
    }
    for (size_t k = 0; k < known->second.required; ++k) {
      if (s.args.count(params[k]) == 0) return wrong(fmt::format("{} is required", params[k]));
    }
    return Terminated(std::move(s));
  }

  std::string_view text_;
  std::vector<SqlToken> toks_;
  size_t i_ = 0;
  std::vector<std::set<std::string>> scopes_;
  std::set<std::string> booleans_;  // declared BOOLEAN (their values are conditions)
  int handler_depth_ = 0;  // inside an exception handler: RAISE; re-raises
  std::map<std::string, std::shared_ptr<const PlStatement>> cursors_;  // declared so far
};

// ---- running it ----

struct Variable {
  VarType type;
  bool constant = false;
  bool not_null = false;
  Value value;
  // A %ROWTYPE record: its fields' names, in column order (each field is
  // the variable "NAME.FIELD"); empty for a cursor's until its first FETCH.
  std::optional<std::vector<std::string>> fields;
};

// How a statement list ended: on, or by EXIT / CONTINUE (of `label`, or the
// innermost loop) or RETURN.
struct Flow {
  enum class Kind : uint8_t { kNext, kExit, kContinue, kReturn };
  Kind kind = Kind::kNext;
  std::string label;
};

// An explicit cursor of the block: its rows fetched at OPEN.
struct CursorState {
  bool open = false;
  std::optional<bool> found;  // the last FETCH's (none before the first)
  int64_t rowcount = 0;       // rows fetched
  size_t next = 0;
  std::vector<Row> rows;
  std::vector<std::string> headings;
};

// The error a statement raised, as the handlers see it.
struct Raised {
  absl::Status status;
  std::string exception;  // a declared exception's name ("" otherwise)
};

class Runner {
 public:
  Runner(Session::State& s, std::string_view text, PlsqlOutcome* out,
         const std::function<absl::Status(std::string_view)>& execute_other)
      : s_(s), text_(text), out_(out), execute_other_(execute_other) {}

  // Runs the block; an error it did not handle carries "ORA-06512: at line N".
  absl::Status Run(const Block& b) {
    absl::StatusOr<Flow> f = RunBlock(b);
    if (f.ok()) return absl::OkStatus();
    if (f.status().code() == absl::StatusCode::kCancelled) return f.status();
    const size_t line = LineColumn(text_, error_pos_).first;
    std::string message(f.status().message());
    if (!raised_exception_.empty()) {
      message = fmt::format("ORA-06510: PL/SQL: unhandled user-defined exception ({})",
                            raised_exception_);
    }
    absl::Status st(f.status().code(), fmt::format("{}\nORA-06512: at line {}", message, line));
    // The error's details (a locked row's holder: RowLockConflictOf) go
    // with it while the call-level rollback undoes the whole block, so a
    // caller that waits and runs the call again (the sqlrun driver under a
    // simulated clock) redoes exactly the block; not once the block has
    // committed part of its work, which a second run would do twice.
    if (!ended_transaction_) {
      f.status().ForEachPayload([&](absl::string_view url, const absl::Cord& payload) {
        st.SetPayload(url, payload);
      });
    }
    return st;
  }

 private:
  using Scope = std::map<std::string, Variable>;

  Variable* Find(const std::string& name) {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      if (auto v = it->find(name); v != it->end()) return &v->second;
    }
    return nullptr;
  }

  // What a name the SQL parser read as a column stands for in the block:
  // a variable, a FOR record's field (qualified), SQL%ROWCOUNT and its
  // kin, SQLCODE / SQLERRM in a handler, TRUE / FALSE.
  std::optional<Value> Resolve(const std::string& qualifier, const std::string& name) {
    if (!qualifier.empty()) {
      if (Variable* v = Find(qualifier + "." + name)) return v->value;
      return std::nullopt;
    }
    if (Variable* v = Find(name)) {
      if (v->type.exception) return std::nullopt;
      return v->value;
    }
    if (const size_t pct = name.find('%'); pct != std::string::npos && pct > 0 &&
        name.compare(0, pct, "SQL") != 0) {  // a cursor's attribute
      const auto c = cursors_.find(name.substr(0, pct));
      if (c == cursors_.end()) return std::nullopt;
      const std::string attr = name.substr(pct + 1);
      const CursorState& st = c->second;
      if (attr == "ISOPEN") return Value::Num(st.open ? 1 : 0);
      if (!st.open) return std::nullopt;  // ORA-01001 (Evaluate says so)
      if (attr == "ROWCOUNT") return Value::Num(static_cast<double>(st.rowcount));
      if (!st.found.has_value()) return Value::Null();
      return Value::Num((attr == "FOUND") == *st.found ? 1 : 0);
    }
    if (name == "SQL%ROWCOUNT") return Value::Num(static_cast<double>(rowcount_));
    if (name == "SQL%FOUND") return Value::Num(rowcount_ > 0 ? 1 : 0);
    if (name == "SQL%NOTFOUND") return Value::Num(rowcount_ > 0 ? 0 : 1);
    if (name == "TRUE") return Value::Num(1);
    if (name == "FALSE") return Value::Num(0);
    if (!handling_.empty() && name == "SQLCODE") return Value::Num(SqlCode(handling_.back()));
    if (!handling_.empty() && name == "SQLERRM") {
      return Value::Str(std::string(handling_.back().status.message()));
    }
    return std::nullopt;
  }

  static double SqlCode(const Raised& r) {
    if (!r.exception.empty()) return 1;  // a user-defined exception's SQLCODE
    int code = 0;
    const std::string m(r.status.message());
    if (m.size() >= 9 && m.compare(0, 4, "ORA-") == 0) code = std::atoi(m.substr(4, 5).c_str());
    return code == 1403 ? 100 : -code;
  }

  static ExprPtr StringLiteral(std::string text) {
    auto e = std::make_shared<Expr>();
    e->kind = Expr::Kind::kString;
    e->text = std::move(text);
    return e;
  }
  static ExprPtr NumberLiteral(double number) {
    auto e = std::make_shared<Expr>();
    e->kind = Expr::Kind::kNumber;
    e->number = number;
    return e;
  }
  // `v` as an expression that gives it back.
  static ExprPtr Literal(const Value& v) {
    auto e = std::make_shared<Expr>();
    if (v.is_null()) {
      e->kind = Expr::Kind::kNull;
    } else if (v.kind == Value::Kind::kString) {
      e->kind = Expr::Kind::kString;
      e->text = v.text;
    } else if (v.is_number()) {
      e->kind = Expr::Kind::kNumber;
      e->number = v.number;
    } else if (v.is_interval()) {  // NUMTODSINTERVAL(seconds, 'SECOND')
      e->kind = Expr::Kind::kFunction;
      e->text = "NUMTODSINTERVAL";
      e->args = {NumberLiteral(v.number), StringLiteral("SECOND")};
    } else {
      // TO_DATE('YYYY-MM-DD HH24:MI:SS', that format); a TIMESTAMP's
      // CAST(TO_TIMESTAMP('... .FF9', that format) AS TIMESTAMP(p)).
      const bool timestamp = v.is_timestamp();
      const std::string_view format = timestamp ? "YYYY-MM-DD HH24:MI:SS.FF9" : "YYYY-MM-DD HH24:MI:SS";
      absl::StatusOr<std::string> text = FormatDatetime(DatetimeOf(v), format);
      e->kind = Expr::Kind::kFunction;
      e->text = timestamp ? "TO_TIMESTAMP" : "TO_DATE";
      e->args = {StringLiteral(text.ok() ? *text : std::string()), StringLiteral(std::string(format))};
      if (timestamp) {
        auto cast = std::make_shared<Expr>();
        cast->kind = Expr::Kind::kFunction;
        cast->text = "CAST";
        cast->args = {e, StringLiteral("TIMESTAMP"), NumberLiteral(v.precision)};
        return cast;
      }
    }
    return e;
  }

  // `e` with the block's names as values, copied where it changes. A name
  // that is a column of a table the statement names (`columns`) stays the
  // column, as Oracle resolves it.
  ExprPtr Bind(const ExprPtr& e, const std::set<std::string>& columns,
               const std::set<std::string>& tables) {
    if (e == nullptr) return e;
    if (e->kind == Expr::Kind::kColumn) {
      const bool column = e->qualifier.empty() ? columns.count(e->text) != 0
                                               : tables.count(e->qualifier) != 0;
      if (!column) {
        if (std::optional<Value> v = Resolve(e->qualifier, e->text)) return Literal(*v);
      }
      return e;
    }
    std::shared_ptr<Expr> copy;
    for (size_t i = 0; i < e->args.size(); ++i) {
      ExprPtr a = Bind(e->args[i], columns, tables);
      if (a == e->args[i]) continue;
      if (copy == nullptr) copy = std::make_shared<Expr>(*e);
      copy->args[i] = std::move(a);
    }
    if (e->subquery) {
      if (copy == nullptr) copy = std::make_shared<Expr>(*e);
      copy->subquery = BindSelect(e->subquery, columns, tables);
    }
    return copy != nullptr ? copy : e;
  }

  std::shared_ptr<Select> BindSelect(const std::shared_ptr<Select>& sel,
                                     const std::set<std::string>& columns,
                                     const std::set<std::string>& tables) {
    if (sel == nullptr) return sel;
    auto b = std::make_shared<Select>(*sel);
    for (SelectItem& it : b->items) it.expr = Bind(it.expr, columns, tables);
    for (FromSource& f : b->from) {
      f.on = Bind(f.on, columns, tables);
      f.subquery = BindSelect(f.subquery, columns, tables);
    }
    b->where = Bind(b->where, columns, tables);
    for (ExprPtr& g : b->group_by) g = Bind(g, columns, tables);
    b->having = Bind(b->having, columns, tables);
    for (SetOperation& op : b->set_operations) op.query = BindSelect(op.query, columns, tables);
    for (OrderItem& o : b->order_by) o.expr = Bind(o.expr, columns, tables);
    return b;
  }

  // The statement as it runs now: the block's values in it.
  DataStatement BindStatement(const PlStatement& p) {
    std::set<std::string> columns, tables;
    {
      DataEngine& e = EngineOf(*s_.db);
      MutexLock lock(&e.mu);
      for (const std::string& w : p.words) {
        if (auto t = e.tables.find(w); t != e.tables.end()) {
          tables.insert(w);
          for (const Column& c : t->second.columns) columns.insert(c.name);
        } else if (auto v = e.views.find(w); v != e.views.end()) {
          tables.insert(w);
          columns.insert(v->second.columns.begin(), v->second.columns.end());
        } else {
          tables.insert(w);  // (maybe an alias: a qualifier that names no record)
        }
      }
    }
    for (auto it = tables.begin(); it != tables.end();) {  // a record's name is not an alias
      it = Find(*it) != nullptr || HasRecord(*it) ? tables.erase(it) : std::next(it);
    }
    DataStatement st = *p.sql;
    const auto bind = [&](ExprPtr& x) { x = Bind(x, columns, tables); };
    const auto bind_all = [&](std::vector<ExprPtr>& xs) {
      for (ExprPtr& x : xs) bind(x);
    };
    std::visit(
        [&](auto& x) {
          using T = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<T, Select>) {
            x = *BindSelect(std::make_shared<Select>(x), columns, tables);
          } else if constexpr (std::is_same_v<T, Insert>) {
            bind_all(x.values);
            x.select = BindSelect(x.select, columns, tables);
            for (InsertWhen& w : x.multitable) {
              bind(w.when);
              for (InsertInto& i : w.into) bind_all(i.values);
            }
          } else if constexpr (std::is_same_v<T, Update>) {
            for (Assignment& a : x.set) bind(a.value);
            bind(x.where);
          } else if constexpr (std::is_same_v<T, Delete>) {
            bind(x.where);
          } else if constexpr (std::is_same_v<T, Merge>) {
            x.using_select = BindSelect(x.using_select, columns, tables);
            bind(x.on);
            for (Assignment& a : x.matched_update) bind(a.value);
            bind_all(x.insert_values);
          }
        },
        st);
    return st;
  }

  bool HasRecord(const std::string& name) const {
    for (const Scope& sc : scopes_) {
      for (const auto& [k, v] : sc) {
        if (k.size() > name.size() && k.compare(0, name.size(), name) == 0 && k[name.size()] == '.') {
          return true;
        }
      }
    }
    return false;
  }

  absl::StatusOr<Value> Evaluate(const ExprPtr& e) {
    const ExprPtr bound = Bind(e, {}, {});
    static const std::vector<Column> kNoColumns;
    static const Row kNoRow;
    absl::StatusOr<Value> v =
        EvalIn(*bound, kNoColumns, kNoRow, "", nullptr, nullptr, "", StatementEnvOf(s_));
    if (!v.ok() && absl::StrContains(v.status().message(), "%") &&
        absl::StrContains(v.status().message(), "ORA-00904")) {
      return absl::FailedPreconditionError(fmt::format(
          "ORA-01001: invalid cursor (a cursor's attribute read while it is not open: {})",
          std::string(v.status().message())));
    }
    if (!v.ok() && absl::StrContains(v.status().message(), "ORA-00904")) {
      return absl::InvalidArgumentError(fmt::format(
          "{} (PLS-00201: not a variable of the block either: declare it)",
          std::string(v.status().message())));
    }
    return v;
  }

  absl::StatusOr<bool> Condition(const ExprPtr& e) {
    absl::StatusOr<Value> v = Evaluate(e);
    if (!v.ok()) return v.status();
    return Truthy(*v);
  }

  // `v` into variable `name` as its type takes it (ORA-06502 otherwise).
  absl::Status Assign(const std::string& name, Value v) {
    Variable* var = Find(name);
    if (var == nullptr) {
      return absl::InvalidArgumentError(fmt::format("PLS-00201: identifier '{}' must be declared", name));
    }
    if (var->constant) {
      return absl::InvalidArgumentError(fmt::format(
          "PLS-00363: expression '{}' cannot be used as an assignment target (a CONSTANT)", name));
    }
    if (var->fields.has_value()) {
      return absl::InvalidArgumentError(fmt::format(
          "PLS-00382: expression is of wrong type ('{}' is a record: assign its fields)", name));
    }
    return Store(*var, name, std::move(v));
  }

  static absl::Status Store(Variable& var, const std::string& name, Value v) {
    if (var.not_null && v.is_null()) {
      return absl::InvalidArgumentError(fmt::format(
          "ORA-06502: PL/SQL: numeric or value error (NULL into {}, declared NOT NULL)", name));
    }
    if (var.type.any) {
      var.value = std::move(v);
      return absl::OkStatus();
    }
    if (var.type.boolean) {
      if (!v.is_null() && v.kind != Value::Kind::kNumber) {
        return absl::InvalidArgumentError(fmt::format(
            "PLS-00382: expression is of wrong type ('{}' is BOOLEAN)", name));
      }
      var.value = v.is_null() ? Value::Null() : Value::Num(v.number != 0 ? 1 : 0);
      return absl::OkStatus();
    }
    if (std::optional<std::string> error = CoerceForColumn(var.type.column, v)) {
      const bool too_long = absl::StartsWith(*error, "ORA-12899");
      return absl::InvalidArgumentError(fmt::format(
          "ORA-06502: PL/SQL: {} ({} into {})",
          too_long ? "numeric or value error: character string buffer too small"
                   : "numeric or value error",
          too_long ? fmt::format("{} characters", v.text.size()) : *error, name));
    }
    var.value = std::move(v);
    return absl::OkStatus();
  }

  // A declaration's type, %TYPE looked up now.
  absl::StatusOr<VarType> TypeOf(const Declaration& d) {
    if (d.type.type_of.empty()) return d.type;
    VarType t;
    const std::string& of = d.type.type_of;
    if (const size_t dot = of.find('.'); dot != std::string::npos) {
      DataEngine& e = EngineOf(*s_.db);
      MutexLock lock(&e.mu);
      auto table = e.tables.find(of.substr(0, dot));
      if (table != e.tables.end()) {
        for (const Column& c : table->second.columns) {
          if (c.name == of.substr(dot + 1)) {
            t.column = c;
            t.column.not_null = false;
            t.column.default_sql.clear();
            t.column.identity = IdentityKind::kNone;
            t.column.name = d.name;
            return t;
          }
        }
      }
    } else if (Variable* v = Find(of)) {
      t = v->type;
      t.column.name = d.name;
      return t;
    }
    return absl::InvalidArgumentError(
        fmt::format("PLS-00201: identifier '{}' must be declared ({}%TYPE)", of, of));
  }

  // NAME T%ROWTYPE: a field per column of table T, typed as it; NAME
  // C%ROWTYPE of a cursor: its fields come with the first row put in it.
  absl::Status DeclareRecord(const Declaration& d) {
    Scope& scope = scopes_.back();
    Variable record;
    record.fields.emplace();
    if (cursor_queries_.count(d.type.rowtype_of) == 0) {
      DataEngine& e = EngineOf(*s_.db);
      MutexLock lock(&e.mu);
      auto table = e.tables.find(d.type.rowtype_of);
      if (table == e.tables.end()) {
        return absl::InvalidArgumentError(fmt::format(
            "PLS-00201: identifier '{}' must be declared ({}%ROWTYPE: no such table or cursor)",
            d.type.rowtype_of, d.type.rowtype_of));
      }
      for (const Column& c : table->second.columns) {
        Variable& field = scope[d.name + "." + c.name];
        field.type.column = Column{c.name, c.type, c.length, c.scale};
        record.fields->push_back(c.name);
      }
    }
    scope[d.name] = std::move(record);
    return absl::OkStatus();
  }

  // A row into record `name` (SELECT ... INTO r, FETCH c INTO r), its
  // columns by position; a cursor's record takes the row's headings as its
  // fields the first time.
  absl::Status AssignRecord(const std::string& name, const Row& row,
                            const std::vector<std::string>& headings) {
    Scope* home = nullptr;
    for (auto it = scopes_.rbegin(); it != scopes_.rend() && home == nullptr; ++it) {
      if (it->count(name) != 0) home = &*it;
    }
    std::vector<std::string>& fields = *(*home)[name].fields;
    if (fields.empty()) {
      for (const std::string& h : headings) {
        fields.push_back(base::Upper(h));
        (*home)[name + "." + fields.back()].type.any = true;
      }
    }
    if (row.size() != fields.size()) {
      return absl::InvalidArgumentError(fmt::format(
          "PLS-00394: wrong number of values in the INTO list ({} columns into record {} of {} "
          "fields)", row.size(), name, fields.size()));
    }
    for (size_t i = 0; i < row.size(); ++i) {
      if (absl::Status st = Store((*home)[name + "." + fields[i]], name + "." + fields[i], row[i]);
          !st.ok()) {
        return st;
      }
    }
    return absl::OkStatus();
  }

  // A row into the INTO list `into` of `statement` (SELECT ... INTO,
  // FETCH ... INTO): one record, or one variable per column.
  absl::Status AssignInto(const std::vector<std::string>& into, const Row& row,
                          const std::vector<std::string>& headings, std::string_view statement) {
    if (into.size() == 1) {
      const Variable* v = Find(into[0]);
      if (v != nullptr && v->fields.has_value()) return AssignRecord(into[0], row, headings);
    }
    if (row.size() != into.size() && statement == "FETCH") {
      return absl::InvalidArgumentError(fmt::format(
          "PLS-00394: wrong number of values in the INTO list of a FETCH statement ({} columns "
          "into {} variables)", row.size(), into.size()));
    }
    if (row.size() != into.size()) {  // SELECT ... INTO, as Oracle's SQL says it
      return absl::InvalidArgumentError(fmt::format(
          "{} ({} columns selected into {} variables)",
          row.size() > into.size() ? "ORA-00913: too many values" : "ORA-00947: not enough values",
          row.size(), into.size()));
    }
    for (size_t i = 0; i < row.size(); ++i) {
      if (absl::Status st = Assign(into[i], row[i]); !st.ok()) return st;
    }
    return absl::OkStatus();
  }

  absl::StatusOr<Flow> RunBlock(const Block& b) {
    scopes_.emplace_back();
    absl::StatusOr<Flow> f = RunDeclarationsAndBody(b);
    if (!f.ok() && f.status().code() != absl::StatusCode::kCancelled) f = Handle(b, f.status());
    scopes_.pop_back();
    return f;
  }

  absl::StatusOr<Flow> RunDeclarationsAndBody(const Block& b) {
    for (const Declaration& d : b.declarations) {
      error_pos_ = d.pos;
      if (d.cursor != nullptr) {
        cursor_queries_[d.name] = d.cursor.get();
        cursors_[d.name] = CursorState{};
        continue;
      }
      if (!d.type.rowtype_of.empty()) {
        if (absl::Status st = DeclareRecord(d); !st.ok()) return st;
        continue;
      }
      absl::StatusOr<VarType> t = TypeOf(d);
      if (!t.ok()) return t.status();
      Variable var{*t, d.constant, false, Value::Null(), std::nullopt};
      if (d.init != nullptr) {
        absl::StatusOr<Value> v = Evaluate(d.init);
        if (!v.ok()) return v.status();
        if (absl::Status st = Store(var, d.name, *v); !st.ok()) return st;
      }
      var.not_null = d.not_null;
      scopes_.back()[d.name] = std::move(var);
    }
    return RunBody(b.body);
  }

  // The block's handler for `error`, if one takes it.
  absl::StatusOr<Flow> Handle(const Block& b, const absl::Status& error) {
    const std::string exception = std::exchange(raised_exception_, "");
    for (const Handler& h : b.handlers) {
      const bool takes = std::any_of(h.names.begin(), h.names.end(), [&](const std::string& n) {
        if (n == "OTHERS") return true;
        if (!exception.empty()) return n == exception;
        auto p = PredefinedExceptions().find(n);
        return p != PredefinedExceptions().end() &&
               absl::StartsWith(error.message(), p->second.substr(0, 9));
      });
      if (!takes) continue;
      handling_.push_back(Raised{error, exception});
      absl::StatusOr<Flow> f = RunBody(h.body);
      handling_.pop_back();
      return f;
    }
    raised_exception_ = exception;
    return error;
  }

  absl::StatusOr<Flow> RunBody(const Body& body) {
    for (const PlStatement& p : body) {
      if (s_.cancel != nullptr && s_.cancel->cancelled()) {
        return absl::CancelledError(std::string(kCancelMessage));
      }
      absl::StatusOr<Flow> f = RunStatement(p);
      if (!f.ok()) {
        if (!failed_) error_pos_ = p.pos;
        failed_ = true;
        return f;
      }
      failed_ = false;
      if (f->kind != Flow::Kind::kNext) return f;
    }
    return Flow{};
  }

  // A loop's body once: whether the loop goes on, or the flow that leaves it.
  absl::StatusOr<std::optional<Flow>> Iterate(const PlStatement& loop) {
    absl::StatusOr<Flow> f = RunBody(loop.body);
    if (!f.ok()) return f.status();
    const bool ours = f->label.empty() || f->label == loop.label;
    if (f->kind == Flow::Kind::kNext || (f->kind == Flow::Kind::kContinue && ours)) {
      return std::optional<Flow>();
    }
    if (f->kind == Flow::Kind::kExit && ours) return std::optional<Flow>(Flow{});
    return std::optional<Flow>(*f);
  }

  absl::StatusOr<Flow> RunStatement(const PlStatement& p) {
    using K = PlStatement::Kind;
    switch (p.kind) {
      case K::kNull:
        return Flow{};
      case K::kAssign: {
        absl::StatusOr<Value> v = Evaluate(p.a);
        if (!v.ok()) return v.status();
        if (absl::Status st = Assign(p.name, *v); !st.ok()) return st;
        return Flow{};
      }
      case K::kIf:
        for (const auto& [cond, body] : p.branches) {
          bool take = cond == nullptr;
          if (!take) {
            absl::StatusOr<bool> c = Condition(cond);
            if (!c.ok()) return c.status();
            take = *c;
          }
          if (take) return RunBody(body);
        }
        return Flow{};
      case K::kLoop:
      case K::kWhile:
        for (;;) {
          if (p.kind == K::kWhile) {
            absl::StatusOr<bool> c = Condition(p.a);
            if (!c.ok()) return c.status();
            if (!*c) return Flow{};
          }
          absl::StatusOr<std::optional<Flow>> it = Iterate(p);
          if (!it.ok()) return it.status();
          if (it->has_value()) return **it;
          if (s_.cancel != nullptr && s_.cancel->cancelled()) {
            return absl::CancelledError(std::string(kCancelMessage));
          }
        }
      case K::kForRange:
        return ForRange(p);
      case K::kForQuery:
        return ForQuery(p);
      case K::kExit:
      case K::kContinue: {
        if (p.a != nullptr) {
          absl::StatusOr<bool> c = Condition(p.a);
          if (!c.ok()) return c.status();
          if (!*c) return Flow{};
        }
        return Flow{p.kind == K::kExit ? Flow::Kind::kExit : Flow::Kind::kContinue, p.label};
      }
      case K::kBlock:
        return RunBlock(*p.block);
      case K::kReturn:
        return Flow{Flow::Kind::kReturn, ""};
      case K::kSql:
      case K::kSelectInto:
        return RunSql(p);
      case K::kExecuteImmediate:
        return ExecuteImmediate(p);
      case K::kPutLine:
      case K::kPut:
      case K::kNewLine:
        return Output(p);
      case K::kRaiseApplicationError:
        return RaiseApplicationError(p);
      case K::kRaise:
        return Raise(p);
      case K::kOpen:
      case K::kFetch:
      case K::kClose:
        return CursorStatement(p);
      case K::kCall:
        switch (p.handler) {
          case PackageHandler::kStats: return Stats(p);
          case PackageHandler::kSleep: return Sleep(p);
        }
        break;
    }
    return Flow{};
  }

  // A DBMS_STATS name argument (OWNNAME, TABNAME, INDNAME) as its object's
  // name: in capitals, unless in double quotes. OWNNAME absent or NULL is
  // the user's schema; another name absent or NULL (the schema calls' never
  // read TABNAME) is empty.
  absl::StatusOr<std::string> StatsName(const PlStatement& p, const std::string& param) {
    const std::string absent = param == "OWNNAME" ? "CELLSIM" : "";
    auto a = p.args.find(param);
    if (a == p.args.end()) return absent;
    absl::StatusOr<Value> v = Evaluate(a->second);
    if (!v.ok()) return v.status();
    if (v->is_null()) return absent;
    const std::string text = ValueText(*v);
    if (text.size() >= 2 && text.front() == '"' && text.back() == '"') return text.substr(1, text.size() - 2);
    return Upper(text);
  }

  // Whether a BOOLEAN argument (CASCADE, CASCADE_INDEXES, GATHER_TEMP) is
  // TRUE; `absent` when not given, or given as DBMS_STATS.AUTO_CASCADE.
  absl::StatusOr<bool> StatsFlag(const PlStatement& p, const std::string& param, bool absent) {
    auto a = p.args.find(param);
    if (a == p.args.end()) return absent;
    const Expr& e = *a->second;
    if (e.kind == Expr::Kind::kColumn && Upper(e.qualifier) == "DBMS_STATS" &&
        Upper(e.text) == "AUTO_CASCADE") {
      return absent;
    }
    absl::StatusOr<bool> b = Condition(a->second);
    if (!b.ok()) return b.status();
    return *b;
  }

  // DBMS_STATS.GATHER_* / DELETE_*: each object's ANALYZE ... COMPUTE or
  // DELETE STATISTICS (a DDL: it commits).
  absl::StatusOr<Flow> Stats(const PlStatement& p) {
    absl::StatusOr<std::string> owner = StatsName(p, "OWNNAME");
    if (!owner.ok()) return owner.status();
    const bool index = p.name.find("INDEX") != std::string::npos;
    const bool schema = p.name.find("SCHEMA") != std::string::npos;
    absl::StatusOr<std::string> object = StatsName(p, index ? "INDNAME" : "TABNAME");
    if (!object.ok()) return object.status();
    absl::StatusOr<bool> cascade = StatsFlag(p, p.name.starts_with("DELETE") ? "CASCADE_INDEXES" : "CASCADE", true);
    if (!cascade.ok()) return cascade.status();
    absl::StatusOr<bool> temp = StatsFlag(p, "GATHER_TEMP", false);
    if (!temp.ok()) return temp.status();
    const auto missing = [&](const std::string& name) {
      const std::string what =
          index ? fmt::format("index \"{}\".\"{}\" does not exist or insufficient privileges", *owner, name)
                : fmt::format("Unable to analyze TABLE \"{}\".\"{}\", insufficient privileges or does "
                              "not exist", *owner, name);
      return absl::NotFoundError(fmt::format(
          "ORA-20000: {} (cellsim's one schema is CELLSIM)\nORA-06512: at \"SYS.DBMS_STATS\"", what));
    };
    std::vector<std::string> names;
    if (*owner != "CELLSIM") {
      if (!schema) return missing(*object);
      return absl::NotFoundError(fmt::format(
          "ORA-20000: Schema \"{}\" does not exist or insufficient privileges (cellsim's one "
          "schema is CELLSIM)\nORA-06512: at \"SYS.DBMS_STATS\"", *owner));
    }
    if (schema) {
      DataEngine& e = EngineOf(*s_.db);
      MutexLock lock(&e.mu);
      for (const auto& [name, t] : e.tables) {
        if (!t.temporary || *temp) names.push_back(name);
      }
    } else {
      names.push_back(*object);
    }
    for (const std::string& name : names) {
      Analyze a;
      a.index = index;
      a.name = name;
      a.action = p.name.starts_with("DELETE") ? Analyze::Action::kDeleteStatistics
                                              : Analyze::Action::kComputeStatistics;
      a.cascade = !index && *cascade;
      DataOutcome o;
      absl::Status st = Execute(DataStatement(a), &o);
      // A DDL: the transaction before it was committed (one refused before
      // that, an unknown table's, leaves it open, and the block's rollback
      // must not reach past the block's start).
      if (st.ok()) ended_transaction_ = true;
      if (absl::IsNotFound(st)) return missing(name);
      if (!st.ok()) return st;
    }
    return Flow{};
  }

  // DBMS_SESSION.SLEEP / DBMS_LOCK.SLEEP(seconds), to the hundredth of a
  // second (DataEngine::Sleep): an idle wait, in the call's elapsed time but
  // not its DB time. DBMS_SESSION's takes at most an hour, as Oracle's.
  absl::StatusOr<Flow> Sleep(const PlStatement& p) {
    absl::StatusOr<Value> v = Evaluate(p.args.at("SECONDS"));
    if (!v.ok()) return v.status();
    const double limit = p.package == "DBMS_SESSION" ? 3600 : 42'949'672;  // 2^32 - 1 cs
    std::string why = "NULL";
    if (!v->is_null()) {
      absl::StatusOr<double> seconds = ToNumber(*v);
      if (!seconds.ok()) return seconds.status();
      if (*seconds >= 0 && *seconds <= limit) {
        DataEngine& e = EngineOf(*s_.db);
        Recorder rec = s_.MakeRecorder();
        uint64_t waited_ns = 0;
        absl::Status st = e.Sleep(rec, *s_.data, static_cast<uint64_t>(std::llround(*seconds * 100)),
                                  s_.cancel, &waited_ns);
        s_.call_idle_ns += waited_ns;
        if (!st.ok()) return st;
        return Flow{};
      }
      why = ValueText(Value::Num(*seconds));
    }
    return absl::InvalidArgumentError(fmt::format(
        "ORA-38148: invalid time limit specified ({}.SLEEP takes 0 to {} seconds; {} given)\n"
        "ORA-06512: at \"SYS.{}\"",
        p.package, ValueText(Value::Num(limit)), why, p.package));
  }

  absl::StatusOr<Flow> ForRange(const PlStatement& p) {
    double bounds[2];
    for (int i = 0; i < 2; ++i) {
      absl::StatusOr<Value> v = Evaluate(i == 0 ? p.a : p.b);
      if (!v.ok()) return v.status();
      absl::StatusOr<double> d = v->is_null() ? absl::InvalidArgumentError(
                                                    "ORA-06502: PL/SQL: numeric or value error "
                                                    "(a NULL bound of FOR ... IN lo..hi)")
                                              : ToNumber(*v);
      if (!d.ok()) return d.status();
      bounds[i] = std::round(*d);
    }
    double i = p.reverse ? bounds[1] : bounds[0];
    return Loop(p, [&](Scope& scope) {
      if (p.reverse ? i < bounds[0] : i > bounds[1]) return false;
      Variable& var = scope[p.name];
      var.type.column.type = ColType::kNumber;
      var.constant = true;  // the loop's index is not assigned to
      var.value = Value::Num(i);
      i += p.reverse ? -1 : 1;
      return true;
    });
  }

  absl::StatusOr<Flow> ForQuery(const PlStatement& p) {
    DataOutcome o;
    o.keep_values = true;
    if (absl::Status st = Execute(BindStatement(p), &o); !st.ok()) return st;
    size_t next = 0;
    return Loop(p, [&](Scope& scope) {
      if (next == o.values.size()) return false;
      const Row& row = o.values[next++];
      for (size_t i = 0; i < row.size() && i < o.headings.size(); ++i) {
        Variable& field = scope[p.name + "." + Upper(o.headings[i])];
        field.type.column.type = ColType::kNumber;
        field.constant = true;
        field.value = row[i];
      }
      return true;
    });
  }

  // A FOR loop: its body while `next` puts the next value of its variable
  // in the loop's own scope.
  absl::StatusOr<Flow> Loop(const PlStatement& p, const std::function<bool(Scope&)>& next) {
    scopes_.emplace_back();
    absl::StatusOr<Flow> result = Flow{};
    while (next(scopes_.back())) {
      absl::StatusOr<std::optional<Flow>> it = Iterate(p);
      if (!it.ok() || it->has_value()) {
        result = it.ok() ? **it : absl::StatusOr<Flow>(it.status());
        break;
      }
    }
    scopes_.pop_back();
    return result;
  }

  // One SQL statement of the block, counted as Oracle's recursive SQL.
  absl::Status Execute(const DataStatement& st, DataOutcome* o) {
    Recorder rec = s_.MakeRecorder();
    rec.Add(stats::Stat::kExecuteCount, 1);
    ++out_->sql_executions;
    absl::Status status = RunDataStatement(s_, st, o);
    rowcount_ = status.ok() ? o->rows : 0;
    if (std::holds_alternative<Commit>(st) || std::holds_alternative<Rollback>(st)) {
      ended_transaction_ = ended_transaction_ || status.ok();
    }
    return status;
  }

  absl::StatusOr<Flow> RunSql(const PlStatement& p) {
    DataOutcome o;
    o.keep_values = p.kind == PlStatement::Kind::kSelectInto;
    if (absl::Status st = Execute(BindStatement(p), &o); !st.ok()) return st;
    if (p.kind != PlStatement::Kind::kSelectInto) return Flow{};
    if (o.values.empty()) return absl::NotFoundError("ORA-01403: no data found");
    if (o.values.size() > 1) {
      return absl::FailedPreconditionError(
          "ORA-01422: exact fetch returns more than requested number of rows");
    }
    rowcount_ = 1;
    if (absl::Status st = AssignInto(p.into, o.values[0], o.headings, "SELECT"); !st.ok()) return st;
    return Flow{};
  }

  absl::StatusOr<Flow> ExecuteImmediate(const PlStatement& p) {
    absl::StatusOr<Value> v = Evaluate(p.a);
    if (!v.ok()) return v.status();
    std::string sql = v->is_null() ? "" : v->kind == Value::Kind::kString ? v->text : ValueText(*v);
    while (!sql.empty() && (std::isspace(static_cast<unsigned char>(sql.back())) || sql.back() == ';')) {
      sql.pop_back();
    }
    if (IsDataStatement(sql)) {
      absl::StatusOr<DataStatement> st = ParseDataStatement(sql);
      if (!st.ok()) return st.status();
      DataOutcome o;
      if (absl::Status run = Execute(*st, &o); !run.ok()) return run;
    } else {
      ++out_->sql_executions;
      if (absl::Status run = execute_other_(sql); !run.ok()) return run;
    }
    ended_transaction_ = true;  // DDL commits
    return Flow{};
  }

  absl::StatusOr<Flow> Output(const PlStatement& p) {
    if (p.kind == PlStatement::Kind::kNewLine) {
      out_->output.push_back(std::exchange(line_, ""));
      return Flow{};
    }
    absl::StatusOr<Value> v = Evaluate(p.a);
    if (!v.ok()) return v.status();
    absl::StatusOr<Value> text = Concatenate(Value::Str(""), *v);  // as || shows it
    if (!text.ok()) return text.status();
    line_ += text->is_null() ? "" : text->text;
    if (p.kind == PlStatement::Kind::kPutLine) out_->output.push_back(std::exchange(line_, ""));
    return Flow{};
  }

  absl::StatusOr<Flow> CursorStatement(const PlStatement& p) {
    CursorState& c = cursors_[p.cursor];
    const auto invalid = [] { return absl::FailedPreconditionError("ORA-01001: invalid cursor"); };
    if (p.kind == PlStatement::Kind::kOpen) {
      if (c.open) return absl::FailedPreconditionError("ORA-06511: PL/SQL: cursor already open");
      DataOutcome o;
      o.keep_values = true;
      if (absl::Status st = Execute(BindStatement(*cursor_queries_.at(p.cursor)), &o); !st.ok()) {
        return st;
      }
      c = CursorState();
      c.open = true;
      c.rows = std::move(o.values);
      c.headings = std::move(o.headings);
      return Flow{};
    }
    if (!c.open) return invalid();
    if (p.kind == PlStatement::Kind::kClose) {
      c = CursorState{};
      return Flow{};
    }
    c.found = c.next < c.rows.size();
    if (!*c.found) return Flow{};  // the variables keep their values
    const Row& row = c.rows[c.next++];
    ++c.rowcount;
    if (absl::Status st = AssignInto(p.into, row, c.headings, "FETCH"); !st.ok()) return st;
    return Flow{};
  }

  absl::StatusOr<Flow> RaiseApplicationError(const PlStatement& p) {
    absl::StatusOr<Value> n = Evaluate(p.a);
    if (!n.ok()) return n.status();
    absl::StatusOr<double> number = ToNumber(*n);
    if (!number.ok()) return number.status();
    if (*number > -20000 || *number < -20999) {
      return absl::InvalidArgumentError(fmt::format(
          "ORA-21000: error number argument to raise_application_error of {} is out of range "
          "(-20000 .. -20999)",
          *number));
    }
    absl::StatusOr<Value> m = Evaluate(p.b);
    if (!m.ok()) return m.status();
    absl::StatusOr<Value> text = Concatenate(Value::Str(""), *m);
    if (!text.ok()) return text.status();
    return absl::FailedPreconditionError(
        fmt::format("ORA{:06}: {}", static_cast<int64_t>(*number), text->text));
  }

  absl::StatusOr<Flow> Raise(const PlStatement& p) {
    if (p.name.empty()) {  // RAISE; in a handler: the error it handles, again
      raised_exception_ = handling_.back().exception;
      return handling_.back().status;
    }
    if (auto it = PredefinedExceptions().find(p.name); it != PredefinedExceptions().end()) {
      return absl::FailedPreconditionError(it->second);
    }
    raised_exception_ = p.name;
    return absl::FailedPreconditionError(
        fmt::format("ORA-06510: PL/SQL: unhandled user-defined exception ({})", p.name));
  }

 public:
  // Whether a COMMIT, ROLLBACK or DDL of the block ended a transaction.
  bool ended_transaction() const { return ended_transaction_; }

 private:
  Session::State& s_;
  std::string_view text_;
  PlsqlOutcome* out_;
  const std::function<absl::Status(std::string_view)>& execute_other_;
  std::vector<Scope> scopes_;
  std::vector<Raised> handling_;  // the errors the running handlers handle
  std::string raised_exception_;  // the declared exception in flight
  std::string line_;              // DBMS_OUTPUT.PUT's line so far
  std::map<std::string, CursorState> cursors_;               // explicit cursors, by name
  std::map<std::string, const PlStatement*> cursor_queries_;  // their queries
  int64_t rowcount_ = 0;          // SQL%ROWCOUNT
  size_t error_pos_ = 0;          // where the error in flight was raised
  bool failed_ = false;           // error_pos_ is set for it
  bool ended_transaction_ = false;
};

}  // namespace

}  // namespace cellsim::db::internal

namespace cellsim::db::internal {

absl::Status ParsePlsqlBlock(std::string_view sql) { return BlockParser(sql).Parse().status(); }

absl::Status RunPlsqlBlock(Session::State& s, std::string_view sql,
                           const std::function<absl::Status(std::string_view)>& execute_other,
                           PlsqlOutcome* out) {
  absl::StatusOr<std::shared_ptr<const Block>> block = BlockParser(sql).Parse();
  if (!block.ok()) return block.status();
  // Where the call began: an error it does not handle undoes its work back
  // to here (or, after a COMMIT of its own, its open transaction).
  DataEngine& e = EngineOf(*s.db);
  size_t mark = 0;
  {
    MutexLock lock(&e.mu);
    if (s.data != nullptr && s.data->txn.active) mark = s.data->txn.undo.size();
  }
  Runner runner(s, sql, out, execute_other);
  absl::Status status = runner.Run(**block);
  if (status.ok() || s.data == nullptr) return status;
  if (runner.ended_transaction()) mark = 0;
  MutexLock lock(&e.mu);
  Recorder rec = s.MakeRecorder();
  absl::Status undone = e.RollbackTo(rec, *s.data, std::min(mark, s.data->txn.undo.size()));
  return undone.ok() ? status : undone;
}

}  // namespace cellsim::db::internal
