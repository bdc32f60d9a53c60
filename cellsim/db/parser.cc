// Recursive-descent parser for the statements of statement.h. A small lexer
// turns the text into tokens that remember their byte position, so that every
// error can say where it is and what the grammar expected there.
#include <algorithm>
#include <cctype>
#include <limits>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "absl/status/status.h"
#include "cellsim/base/units.h"
#include "cellsim/db/sql_lexer.h"
#include "cellsim/db/sql_text.h"
#include "cellsim/db/statement.h"

namespace cellsim::db {
namespace {

// Every kind of statement a session runs (this parser's and data_parser's),
// for the error on a statement that starts with none of them.
constexpr std::string_view kStatementKinds =
    "CREATE, ALTER, DROP, TRUNCATE, INSERT, UPDATE, DELETE, MERGE, SELECT, COMMIT, ROLLBACK, SAVEPOINT, "
    "ANALYZE, ARCHIVE, SHOW, DESCRIBE, BEGIN or DECLARE";

using internal::IsIdentChar;
using internal::IsIdentStart;
using internal::Lower;
using internal::Upper;

using Tok = internal::SqlTok;
using Token = internal::SqlToken;

// The file DDL's lexical rules: sizes are numbers with a glued unit ("4096m").
constexpr internal::SqlLexRules kDdlLexRules{.number_units = true};

class Parser {
 public:
  explicit Parser(std::string_view sql) : sql_(sql) {}

  absl::StatusOr<Statement> Parse() {
    internal::SqlLexResult lexed = internal::LexSql(sql_, kDdlLexRules);
    // The lexer's error is reported only when the parser gets there, so
    // "select * from t" says ORA-00900 at 'select', not '*'.
    if (!lexed.ok()) lex_error_ = ErrorAt(lexed.error.pos, lexed.error.message, lexed.error.ora);
    tokens_ = std::move(lexed.tokens);
    if (Peek().kind == Tok::kError) return lex_error_;
    if (Peek().kind == Tok::kEnd || IsPunct(Peek(), ';')) {
      return ErrorAt(Peek().pos, "empty statement: expected " + std::string(kStatementKinds));
    }
    absl::StatusOr<Statement> st = ParseTop();
    if (!st.ok()) return st;
    if (IsPunct(Peek(), ';')) {
      Next();
      if (Peek().kind == Tok::kError) return lex_error_;
      if (Peek().kind != Tok::kEnd) {
        return ErrorAt(Peek().pos,
                       fmt::format("expected end of statement after ';', found {} (one "
                                   "statement at a time; split scripts with -f)",
                                   Describe(Peek())),
                       "ORA-00933: SQL command not properly ended");
      }
    }
    return st;
  }

 private:
  // ---- errors ----------------------------------------------------------
  absl::Status ErrorAt(size_t pos, std::string_view message, std::string_view ora = "") const {
    return absl::InvalidArgumentError(internal::SqlErrorText(sql_, pos, message, ora));
  }

  std::string Describe(const Token& t) const {
    if (t.kind == Tok::kEnd) return "end of statement";
    std::string_view raw = sql_.substr(t.pos, t.len);
    if (raw.size() > 40) return fmt::format("'{}...'", raw.substr(0, 40));
    if (t.kind == Tok::kString) return std::string(raw);
    return fmt::format("'{}'", raw);
  }

  absl::Status Expected(std::string_view what, std::string_view ora = "") const {
    if (Peek().kind == Tok::kError) return lex_error_;
    return ErrorAt(Peek().pos, fmt::format("expected {}, found {}", what, Describe(Peek())), ora);
  }

  // ---- token helpers ---------------------------------------------------
  const Token& Peek() const { return tokens_[std::min(next_, tokens_.size() - 1)]; }
  const Token& Next() {
    const Token& t = Peek();
    if (next_ < tokens_.size() - 1) ++next_;
    return t;
  }
  static bool IsKw(const Token& t, std::string_view kw) {
    return t.kind == Tok::kWord && Upper(t.text) == kw;
  }
  static bool IsPunct(const Token& t, char c) {
    return t.kind == Tok::kPunct && t.text[0] == c;
  }
  bool AcceptKw(std::string_view kw) {
    if (!IsKw(Peek(), kw)) return false;
    Next();
    return true;
  }
  bool AcceptPunct(char c) {
    if (!IsPunct(Peek(), c)) return false;
    Next();
    return true;
  }
  absl::Status ExpectKw(std::string_view kw, std::string_view ora = "") {
    if (AcceptKw(kw)) return absl::OkStatus();
    return Expected(kw, ora);
  }
  // The statement must end here (optionally with ';'); `alternatives` lists what
  // else could have followed, for the message.
  absl::Status ExpectEnd(std::string_view alternatives) const {
    if (Peek().kind == Tok::kEnd || IsPunct(Peek(), ';')) return absl::OkStatus();
    return Expected(fmt::format("{}end of statement", alternatives),
                    "ORA-00933: SQL command not properly ended");
  }

  // ---- terminals ---------------------------------------------------------
  absl::StatusOr<std::string> ParseIdentifier(std::string_view what) {
    const Token& t = Peek();
    std::string name;
    if (t.kind == Tok::kWord) {
      if (t.text[0] == '_') {
        return ErrorAt(t.pos, fmt::format("{} '{}' starts with '_': double-quote it", what, t.text),
                       "ORA-00911: invalid character");
      }
      name = Upper(t.text);
    } else if (t.kind == Tok::kQuotedIdent) {
      name = t.text;
    } else {
      return Expected(what);
    }
    if (name.size() > kMaxIdentifierLength) {
      return ErrorAt(t.pos, fmt::format("{} is {} characters long, at most {} allowed", what,
                                        name.size(), kMaxIdentifierLength),
                     "ORA-00972: identifier is too long");
    }
    Next();
    return name;
  }

  // '+DATA' -> "DATA"
  absl::StatusOr<std::string> ParseDiskGroup() {
    const Token& t = Peek();
    if (t.kind != Tok::kString) return Expected("a disk group in quotes, e.g. '+DATA'");
    const std::string& c = t.text;
    if (c.empty() || c[0] != '+') {
      return ErrorAt(t.pos,
                     fmt::format("file name '{}' is not a disk group: write '+NAME', e.g. '+DATA'", c),
                     "ORA-02236: invalid file name");
    }
    std::string_view name = std::string_view(c).substr(1);
    if (name.find('/') != std::string_view::npos) {
      return ErrorAt(t.pos,
                     fmt::format("'{}' names a file inside the disk group; give only the disk "
                                 "group ('+{}'): files are Oracle-managed",
                                 c, name.substr(0, name.find('/'))),
                     "ORA-02236: invalid file name");
    }
    const bool valid = !name.empty() && name.size() <= 30 &&
                       std::isalpha(static_cast<unsigned char>(name[0])) &&
                       std::all_of(name.begin(), name.end(), IsIdentChar);
    if (!valid) {
      return ErrorAt(t.pos,
                     fmt::format("invalid disk group name '{}': expected '+' and a name of up to "
                                 "30 letters, digits or _ $ #, starting with a letter",
                                 c),
                     "ORA-02236: invalid file name");
    }
    Next();
    return Upper(name);
  }

  absl::StatusOr<uint64_t> ParseSizeValue() {
    const Token& t = Peek();
    if (t.kind != Tok::kNumber) return Expected("a size such as 4096M");
    // The one size parser (base/units.h), as the CLI's options use it.
    absl::StatusOr<uint64_t> v = ParseSize(t.text);
    if (!v.ok()) return ErrorAt(t.pos, std::string(v.status().message()));
    if (*v == 0) {
      return ErrorAt(t.pos, fmt::format("size '{}' is zero: a file needs at least one block", t.text));
    }
    Next();
    return *v;
  }

  absl::StatusOr<uint32_t> ParseNumber(std::string_view what, uint32_t min, uint32_t max) {
    const Token& t = Peek();
    if (t.kind != Tok::kNumber) return Expected(fmt::format("a {} number", what));
    if (t.text.find_first_not_of("0123456789") != std::string::npos) {
      return ErrorAt(t.pos, fmt::format("{} number '{}' is not an integer", what, t.text));
    }
    uint64_t v = 0;
    for (char c : t.text) {
      v = v * 10 + static_cast<uint64_t>(c - '0');
      if (v > max) break;
    }
    if (v < min || v > max) {
      return ErrorAt(t.pos, fmt::format("{} {} is out of range {}..{}", Upper(what), t.text, min, max));
    }
    Next();
    return static_cast<uint32_t>(v);
  }

  // BLOCKSIZE 8192 | 8K
  absl::StatusOr<uint32_t> ParseBlockSize(bool log) {
    const Token& t = Peek();
    if (t.kind != Tok::kNumber) return Expected("a block size such as 8K");
    const size_t digits = t.text.find_first_not_of("0123456789");
    const std::string unit = digits == std::string::npos ? "" : Upper(t.text.substr(digits));
    uint64_t v = 0;
    if (unit.empty() || unit == "K") {
      absl::StatusOr<uint64_t> parsed = ParseSize(t.text);
      if (parsed.ok()) v = *parsed;
    }
    const bool ok = log ? (v == 512 || v == 4096)
                        : (v >= 2048 && v <= 32768 && (v & (v - 1)) == 0);
    if (!ok) {
      return ErrorAt(t.pos, log ? fmt::format("log block size '{}' is not allowed: use 512 or 4096",
                                              t.text)
                                : fmt::format("block size '{}' is not allowed: use 2K, 4K, 8K, "
                                              "16K or 32K",
                                              t.text));
    }
    Next();
    return static_cast<uint32_t>(v);
  }

  // "SIZE, " when the last file clause names a disk group without a SIZE (a
  // misspelt SIZE is then named in the error).
  static std::string SizeFirst(const std::vector<FileClause>& files) {
    return !files.empty() && files.back().size_bytes == 0 && !files.back().disk_group.empty()
               ? "SIZE, "
               : "";
  }

  // ['+DG'] [SIZE n], at least one of them: a file without a disk group is
  // Oracle-managed (DB_CREATE_FILE_DEST), one without a SIZE takes OMF's.
  absl::StatusOr<std::vector<FileClause>> ParseFileClauses() {
    std::vector<FileClause> files;
    do {
      FileClause f;
      const bool named = Peek().kind == Tok::kString;
      if (named) {
        absl::StatusOr<std::string> dg = ParseDiskGroup();
        if (!dg.ok()) return dg.status();
        f.disk_group = *dg;
      }
      if (AcceptKw("SIZE")) {
        absl::StatusOr<uint64_t> size = ParseSizeValue();
        if (!size.ok()) return size.status();
        f.size_bytes = *size;
      } else if (!named) {
        return Expected("a disk group such as '+DATA' or SIZE");
      }
      files.push_back(std::move(f));
    } while (AcceptPunct(','));
    return files;
  }

  // ---- statements --------------------------------------------------------
  absl::StatusOr<Statement> ParseTop() {
    if (AcceptKw("CREATE")) {
      const bool bigfile = AcceptKw("BIGFILE");
      if (!bigfile) (void)AcceptKw("SMALLFILE");
      const bool undo = AcceptKw("UNDO");
      const bool temporary = !undo && AcceptKw("TEMPORARY");
      if (absl::Status s = ExpectKw("TABLESPACE", "ORA-00901: invalid CREATE command"); !s.ok()) {
        return s;
      }
      return ParseCreateTablespace(bigfile, undo, temporary);
    }
    if (AcceptKw("DROP")) {
      if (absl::Status s = ExpectKw("TABLESPACE", "ORA-00950: invalid DROP option"); !s.ok()) {
        return s;
      }
      return ParseDropTablespace();
    }
    if (AcceptKw("ALTER")) {
      if (AcceptKw("TABLESPACE")) return ParseAlterTablespace();
      if (AcceptKw("DATABASE")) return ParseAlterDatabase();
      if (AcceptKw("SESSION")) return ParseAlterSession();
      if (AcceptKw("DISKGROUP")) return ParseAlterDiskgroup();
      return Expected("TABLESPACE, DATABASE, SESSION or DISKGROUP",
                      "ORA-00940: invalid ALTER command");
    }
    return Expected(kStatementKinds, "ORA-00900: invalid SQL statement");
  }

  absl::StatusOr<Statement> ParseCreateTablespace(bool bigfile, bool undo, bool temporary) {
    CreateTablespace st;
    st.bigfile = bigfile;
    st.undo = undo;
    st.temporary = temporary;
    absl::StatusOr<std::string> name = ParseIdentifier("a tablespace name");
    if (!name.ok()) return name.status();
    st.name = *name;
    // A temporary tablespace has tempfiles, any other data files; without
    // the clause, one Oracle-managed file.
    const Token& after_name = Peek();
    if (after_name.kind == Tok::kEnd || IsKw(after_name, "BLOCKSIZE")) {
      st.datafiles = {FileClause{}};
    } else {
      const absl::Status files_kw =
          temporary ? ExpectKw("TEMPFILE",
                               "ORA-25139: invalid option for CREATE TEMPORARY TABLESPACE (its "
                               "files are TEMPFILEs)")
                    : ExpectKw("DATAFILE",
                               "ORA-02180: invalid option for CREATE TABLESPACE (TEMPFILE needs "
                               "CREATE TEMPORARY TABLESPACE)");
      if (!files_kw.ok()) return files_kw;
      absl::StatusOr<std::vector<FileClause>> files = ParseFileClauses();
      if (!files.ok()) return files.status();
      st.datafiles = *std::move(files);
    }
    if (bigfile && st.datafiles.size() > 1) {
      return absl::InvalidArgumentError(fmt::format(
          "ORA-32774: more than one file was specified for bigfile tablespace {} ({} files)",
          st.name, st.datafiles.size()));
    }
    if (AcceptKw("BLOCKSIZE")) {
      absl::StatusOr<uint32_t> bs = ParseBlockSize(/*log=*/false);
      if (!bs.ok()) return bs.status();
      st.block_size = *bs;
      if (absl::Status s = ExpectEnd(""); !s.ok()) return s;
    } else if (absl::Status s = ExpectEnd(SizeFirst(st.datafiles) + "',', BLOCKSIZE or ");
               !s.ok()) {
      return s;
    }
    return st;
  }

  absl::StatusOr<Statement> ParseAlterTablespace() {
    AlterTablespaceAddDatafile st;
    absl::StatusOr<std::string> name = ParseIdentifier("a tablespace name");
    if (!name.ok()) return name.status();
    st.name = *name;
    if (absl::Status s = ExpectKw("ADD", "ORA-02142: missing or invalid ALTER TABLESPACE option");
        !s.ok()) {
      return s;
    }
    st.tempfile = AcceptKw("TEMPFILE");
    if (!st.tempfile && !AcceptKw("DATAFILE")) {
      return Expected("DATAFILE or TEMPFILE", "ORA-02142: missing or invalid ALTER TABLESPACE option");
    }
    absl::StatusOr<std::vector<FileClause>> files = ParseFileClauses();
    if (!files.ok()) return files.status();
    st.datafiles = *std::move(files);
    if (absl::Status s = ExpectEnd(SizeFirst(st.datafiles) + "',' or "); !s.ok()) return s;
    return st;
  }

  absl::StatusOr<Statement> ParseDropTablespace() {
    DropTablespace st;
    absl::StatusOr<std::string> name = ParseIdentifier("a tablespace name");
    if (!name.ok()) return name.status();
    st.name = *name;
    if (AcceptKw("INCLUDING")) {
      if (absl::Status s = ExpectKw("CONTENTS"); !s.ok()) return s;
      st.including_contents = true;
      if (AcceptKw("AND")) {
        if (absl::Status s = ExpectKw("DATAFILES"); !s.ok()) return s;
        st.and_datafiles = true;
      } else if (AcceptKw("KEEP")) {
        if (absl::Status s = ExpectKw("DATAFILES"); !s.ok()) return s;
        st.keep_datafiles = true;
      }
    }
    if (st.including_contents && AcceptKw("CASCADE")) {
      if (absl::Status s = ExpectKw("CONSTRAINTS"); !s.ok()) return s;
      st.cascade_constraints = true;
    }
    if (absl::Status s = ExpectEnd(st.including_contents ? "" : "INCLUDING or "); !s.ok()) return s;
    return st;
  }

  // ALTER DISKGROUP name ONLINE DISK d | ONLINE ALL | OFFLINE DISK d
  absl::StatusOr<Statement> ParseAlterDiskgroup() {
    AlterDiskgroupDisks st;
    absl::StatusOr<std::string> name = ParseIdentifier("a disk group name");
    if (!name.ok()) return name.status();
    st.disk_group = Upper(*name);  // ASM names are case-insensitive
    if (AcceptKw("SCRUB")) return ParseScrub(std::move(st.disk_group));
    if (AcceptKw("ONLINE")) {
      st.online = true;
      if (AcceptKw("ALL")) {
        if (absl::Status s = ExpectEnd(""); !s.ok()) return s;
        return st;
      }
    } else if (AcceptKw("OFFLINE")) {
      st.online = false;
    } else {
      return Expected("ONLINE, OFFLINE or SCRUB");
    }
    if (!AcceptKw("DISK")) return Expected(st.online ? "DISK or ALL" : "DISK");
    absl::StatusOr<std::string> disk = ParseIdentifier("a disk name");
    if (!disk.ok()) return disk.status();
    st.disk = Upper(*disk);
    if (absl::Status s = ExpectEnd(""); !s.ok()) return s;
    return st;
  }

  // ... SCRUB [FILE 'name' | DISK d] [REPAIR | NOREPAIR] [POWER p] [WAIT | NOWAIT]
  //   [FORCE | NOFORCE] [STOP], each option at most once, in Oracle's order.
  absl::StatusOr<Statement> ParseScrub(std::string disk_group) {
    ScrubDiskgroup st;
    st.disk_group = std::move(disk_group);
    if (AcceptKw("FILE")) {
      if (Peek().kind != Tok::kString || Peek().text.empty()) {
        return Expected("an ASM file name in quotes, e.g. '+DATA/ORCL/DATAFILE/USERS.256.1'");
      }
      st.file = Next().text;
    } else if (AcceptKw("DISK")) {
      absl::StatusOr<std::string> disk = ParseIdentifier("a disk name");
      if (!disk.ok()) return disk.status();
      st.disk = Upper(*disk);
    }
    if (AcceptKw("REPAIR")) {
      st.repair = true;
    } else {
      (void)AcceptKw("NOREPAIR");
    }
    if (AcceptKw("POWER")) {
      for (std::string_view p : {"AUTO", "LOW", "HIGH", "MAX"}) {
        if (AcceptKw(p)) st.power = std::string(p);
      }
      if (st.power.empty()) return Expected("AUTO, LOW, HIGH or MAX");
    }
    for (std::string_view w : {"WAIT", "NOWAIT"}) {
      if (st.wait.empty() && AcceptKw(w)) st.wait = std::string(w);
    }
    for (std::string_view f : {"FORCE", "NOFORCE"}) {
      if (st.force.empty() && AcceptKw(f)) st.force = std::string(f);
    }
    st.stop = AcceptKw("STOP");
    if (absl::Status s = ExpectEnd(st.stop ? "" : "STOP or "); !s.ok()) return s;
    return st;
  }

  absl::StatusOr<Statement> ParseAlterDatabase() {
    if (AcceptKw("ADD")) {
      if (absl::Status s = ExpectKw("LOGFILE", "ORA-02231: missing or invalid option to ALTER DATABASE");
          !s.ok()) {
        return s;
      }
      return ParseAddLogfile();
    }
    if (AcceptKw("DROP")) {
      if (absl::Status s = ExpectKw("LOGFILE", "ORA-02231: missing or invalid option to ALTER DATABASE");
          !s.ok()) {
        return s;
      }
      if (absl::Status s = ExpectKw("GROUP"); !s.ok()) return s;
      absl::StatusOr<uint32_t> g = ParseNumber("group", 1, kMaxLogGroup);
      if (!g.ok()) return g.status();
      if (absl::Status s = ExpectEnd(""); !s.ok()) return s;
      return DropLogfileGroup{*g};
    }
    const bool tempfile = AcceptKw("TEMPFILE");
    if (tempfile || AcceptKw("DATAFILE")) return ParseResize(tempfile);
    return Expected("ADD, DROP, DATAFILE, TEMPFILE, ARCHIVELOG or NOARCHIVELOG",
                    "ORA-02231: missing or invalid option to ALTER DATABASE");
  }

  // ALTER DATABASE DATAFILE|TEMPFILE 'name' | file# RESIZE size
  absl::StatusOr<Statement> ParseResize(bool tempfile) {
    ResizeDataFile st;
    st.tempfile = tempfile;
    const std::string what = tempfile ? "tempfile" : "data file";
    if (Peek().kind == Tok::kString) {
      const size_t pos = Peek().pos;
      st.file_name = Next().text;
      if (st.file_name.empty()) {
        return ErrorAt(pos, fmt::format("empty {} name", what), "ORA-02236: invalid file name");
      }
    } else if (Peek().kind == Tok::kNumber) {
      absl::StatusOr<uint32_t> n = ParseNumber("file", 1, kMaxFileNumber);
      if (!n.ok()) return n.status();
      st.file_number = *n;
    } else {
      return Expected(fmt::format("a {} name in quotes or its file number", what));
    }
    if (absl::Status s = ExpectKw("RESIZE", "ORA-01916: keyword ONLINE, OFFLINE, RESIZE, "
                                            "AUTOEXTEND or END/DROP expected");
        !s.ok()) {
      return s;
    }
    absl::StatusOr<uint64_t> size = ParseSizeValue();
    if (!size.ok()) return size.status();
    st.size_bytes = *size;
    if (absl::Status s = ExpectEnd(""); !s.ok()) return s;
    return st;
  }

  // What may follow a log group's members (or stand for them); a ',' only
  // after GROUP n (a group is more than a comma).
  static bool IsLogGroupEnd(const Token& t, bool numbered) {
    return t.kind == Tok::kEnd || (numbered && IsPunct(t, ',')) || IsKw(t, "SIZE") ||
           IsKw(t, "BLOCKSIZE") || IsKw(t, "REUSE");
  }

  absl::StatusOr<Statement> ParseAddLogfile() {
    AddLogfile st;
    if (AcceptKw("THREAD")) {
      absl::StatusOr<uint32_t> t = ParseNumber("thread", 1, kMaxLogThread);
      if (!t.ok()) return t.status();
      st.thread = *t;
    }
    std::set<uint32_t> seen;
    do {
      LogGroupSpec g;
      const bool first = st.groups.empty();
      if (Peek().kind != Tok::kEnd && IsKw(Peek(), "GROUP")) {
        Next();
        const size_t pos = Peek().pos;
        absl::StatusOr<uint32_t> n = ParseNumber("group", 1, kMaxLogGroup);
        if (!n.ok()) return n.status();
        if (!seen.insert(*n).second) {
          return ErrorAt(pos, fmt::format("group {} is given twice in this statement", *n));
        }
        g.group = *n;
      }
      if (AcceptPunct('(')) {
        do {
          absl::StatusOr<std::string> dg = ParseDiskGroup();
          if (!dg.ok()) return dg.status();
          g.members.push_back(*dg);
        } while (AcceptPunct(','));
        if (!AcceptPunct(')')) {
          return Expected("',' or ')'", "ORA-00907: missing right parenthesis");
        }
      } else if (Peek().kind == Tok::kString) {
        absl::StatusOr<std::string> dg = ParseDiskGroup();
        if (!dg.ok()) return dg.status();
        g.members.push_back(*dg);
      } else if (!IsLogGroupEnd(Peek(), g.group.has_value())) {
        std::string what = "'(', a disk group such as '+DATA', SIZE or the end";
        if (!g.group) what = (first && !st.thread ? "THREAD, GROUP, " : "GROUP, ") + what;
        return Expected(what);
      }
      // No members: Oracle-managed (DB_CREATE_FILE_DEST and
      // DB_RECOVERY_FILE_DEST); no SIZE: OMF's.
      if (AcceptKw("SIZE")) {
        absl::StatusOr<uint64_t> size = ParseSizeValue();
        if (!size.ok()) return size.status();
        g.size_bytes = *size;
      }
      if (AcceptKw("BLOCKSIZE")) {
        absl::StatusOr<uint32_t> bs = ParseBlockSize(/*log=*/true);
        if (!bs.ok()) return bs.status();
        g.block_size = *bs;
      }
      if (AcceptKw("REUSE")) g.reuse = true;
      // Only the statement's first group may be all left out (ADD LOGFILE alone).
      if (!first && g == LogGroupSpec{}) {
        return Expected("GROUP, '(', a disk group such as '+DATA' or SIZE after ','");
      }
      st.groups.push_back(std::move(g));
    } while (AcceptPunct(','));
    const LogGroupSpec& last = st.groups.back();
    std::string alternatives = !last.size_bytes && !last.block_size && !last.reuse ? "SIZE, " : "";
    alternatives += "',', ";
    if (!last.block_size && !last.reuse) alternatives += "BLOCKSIZE, ";
    if (!last.reuse) alternatives += "REUSE, ";
    alternatives.replace(alternatives.size() - 2, 2, " or ");
    if (absl::Status s = ExpectEnd(alternatives); !s.ok()) return s;
    return st;
  }

  absl::StatusOr<Statement> ParseAlterSession() {
    if (absl::Status s = ExpectKw("SET", "ORA-00922: missing or invalid option"); !s.ok()) return s;
    const Token& name_tok = Peek();
    std::string name;
    if (name_tok.kind == Tok::kWord) {
      if (name_tok.text[0] == '_') {
        return ErrorAt(name_tok.pos,
                       fmt::format("hidden parameter {} must be double-quoted: \"{}\"",
                                   name_tok.text, Lower(name_tok.text)),
                       "ORA-00911: invalid character");
      }
      name = Lower(name_tok.text);
    } else if (name_tok.kind == Tok::kQuotedIdent) {
      name = Lower(name_tok.text);
    } else {
      return Expected("a parameter name");
    }
    Next();
    if (!AcceptPunct('=')) return Expected("'='", "ORA-02248: invalid option for ALTER SESSION");
    const Token& v = Peek();
    if (name == kCellFastFileCreateParameter || name == kFastFileCreateMetadataParameter) {
      const bool is_true = IsKw(v, "TRUE");
      if (!is_true && !IsKw(v, "FALSE")) {
        return Expected(fmt::format("TRUE or FALSE for {}", name),
                        "ORA-00096: invalid value for parameter");
      }
      Next();
      if (absl::Status s = ExpectEnd(""); !s.ok()) return s;
      if (name == kCellFastFileCreateParameter) return SetCellFastFileCreate{is_true};
      return SetFastFileCreateMetadata{is_true};
    }
    if (v.kind != Tok::kWord && v.kind != Tok::kNumber && v.kind != Tok::kString) {
      return Expected(fmt::format("a value for {}", name));
    }
    SetParameter st{name, v.text, v.kind == Tok::kString};
    Next();
    if (absl::Status s = ExpectEnd(""); !s.ok()) return s;
    return st;
  }

  std::string_view sql_;
  std::vector<Token> tokens_;
  size_t next_ = 0;
  absl::Status lex_error_;
};

}  // namespace

absl::StatusOr<Statement> ParseStatement(std::string_view sql) { return Parser(sql).Parse(); }

}  // namespace cellsim::db
