// Statement utilities that do not parse: canonical SQL (ToSql), statement
// kinds, and the script splitter.
#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cellsim/base/units.h"
#include "cellsim/db/sql_text.h"
#include "cellsim/db/statement.h"

namespace cellsim::db {
namespace {

using internal::IsIdentChar;
using internal::Upper;

// 4294967296 -> "4G": the largest unit that divides the size exactly.
std::string SizeSql(uint64_t bytes) {
  static constexpr std::pair<uint64_t, char> kUnits[] = {
      {kTiB, 'T'}, {kGiB, 'G'}, {kMiB, 'M'}, {kKiB, 'K'}};
  for (const auto& [unit, suffix] : kUnits) {
    if (bytes % unit == 0) return fmt::format("{}{}", bytes / unit, suffix);
  }
  return fmt::format("{}", bytes);
}

// Quotes an identifier unless it reads back unchanged unquoted.
std::string IdentSql(const std::string& name) {
  const bool plain = !name.empty() && std::isalpha(static_cast<unsigned char>(name[0])) &&
                     std::all_of(name.begin(), name.end(), IsIdentChar) && Upper(name) == name;
  return plain ? name : fmt::format("\"{}\"", name);
}

// A string literal: in quotes, a quote doubled.
std::string StringSql(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("''") : std::string(1, c);
  return quoted + "'";
}

// ['+DG'] [SIZE n] (Oracle-managed files leave out either).
std::string FilesSql(const std::vector<FileClause>& files) {
  std::vector<std::string> out;
  for (const FileClause& f : files) {
    std::vector<std::string> words;
    if (!f.disk_group.empty()) words.push_back(fmt::format("'+{}'", f.disk_group));
    if (f.size_bytes != 0) words.push_back("SIZE " + SizeSql(f.size_bytes));
    out.push_back(fmt::format("{}", fmt::join(words, " ")));
  }
  return fmt::format("{}", fmt::join(out, ", "));
}

struct SqlPrinter {
  std::string operator()(const CreateTablespace& s) const {
    std::string out = fmt::format("CREATE {}{}TABLESPACE {}", s.bigfile ? "BIGFILE " : "",
                                  s.undo ? "UNDO " : s.temporary ? "TEMPORARY " : "",
                                  IdentSql(s.name));
    // One Oracle-managed file of the default size is written without the clause.
    if (s.datafiles != std::vector<FileClause>{FileClause{}}) {
      out += fmt::format(" {} {}", s.temporary ? "TEMPFILE" : "DATAFILE", FilesSql(s.datafiles));
    }
    if (s.block_size) out += fmt::format(" BLOCKSIZE {}", s.block_size);
    return out;
  }
  std::string operator()(const AlterTablespaceAddDatafile& s) const {
    return fmt::format("ALTER TABLESPACE {} ADD {} {}", IdentSql(s.name),
                       s.tempfile ? "TEMPFILE" : "DATAFILE", FilesSql(s.datafiles));
  }
  std::string operator()(const DropTablespace& s) const {
    std::string out = fmt::format("DROP TABLESPACE {}", IdentSql(s.name));
    if (s.including_contents) out += " INCLUDING CONTENTS";
    if (s.and_datafiles) out += " AND DATAFILES";
    if (s.keep_datafiles) out += " KEEP DATAFILES";
    if (s.cascade_constraints) out += " CASCADE CONSTRAINTS";
    return out;
  }
  std::string operator()(const AddLogfile& s) const {
    std::string out = "ALTER DATABASE ADD LOGFILE";
    if (s.thread) out += fmt::format(" THREAD {}", *s.thread);
    bool first = true;
    for (const LogGroupSpec& g : s.groups) {
      const char* separator = first ? " " : ", ";
      first = false;
      std::vector<std::string> words;  // each may be left out (Oracle-managed files)
      if (g.group) words.push_back(fmt::format("GROUP {}", *g.group));
      std::vector<std::string> members;
      for (const std::string& m : g.members) members.push_back(fmt::format("'+{}'", m));
      if (!members.empty()) words.push_back(fmt::format("({})", fmt::join(members, ", ")));
      if (g.size_bytes != 0) words.push_back("SIZE " + SizeSql(g.size_bytes));
      if (g.block_size) words.push_back(fmt::format("BLOCKSIZE {}", g.block_size));
      if (g.reuse) words.push_back("REUSE");
      // (ALTER DATABASE ADD LOGFILE alone: one Oracle-managed group)
      if (!words.empty()) out += fmt::format("{}{}", separator, fmt::join(words, " "));
    }
    return out;
  }
  std::string operator()(const DropLogfileGroup& s) const {
    return fmt::format("ALTER DATABASE DROP LOGFILE GROUP {}", s.group);
  }
  std::string operator()(const ResizeDataFile& s) const {
    const std::string file = s.file_number != 0 ? fmt::format("{}", s.file_number)
                                                : fmt::format("'{}'", s.file_name);
    return fmt::format("ALTER DATABASE {} {} RESIZE {}", s.tempfile ? "TEMPFILE" : "DATAFILE",
                       file, SizeSql(s.size_bytes));
  }
  // Disk group and disk names are upper case (ASM's are case-insensitive).
  std::string operator()(const AlterDiskgroupDisks& s) const {
    if (s.disk.empty()) return fmt::format("ALTER DISKGROUP {} ONLINE ALL", IdentSql(s.disk_group));
    return fmt::format("ALTER DISKGROUP {} {} DISK {}", IdentSql(s.disk_group),
                       s.online ? "ONLINE" : "OFFLINE", IdentSql(s.disk));
  }
  std::string operator()(const ScrubDiskgroup& s) const {
    std::string out = fmt::format("ALTER DISKGROUP {} SCRUB", IdentSql(s.disk_group));
    if (!s.file.empty()) out += " FILE " + StringSql(s.file);
    if (!s.disk.empty()) out += " DISK " + IdentSql(s.disk);
    if (s.repair) out += " REPAIR";
    if (!s.power.empty()) out += " POWER " + s.power;
    for (const std::string* w : {&s.wait, &s.force}) {
      if (!w->empty()) out += " " + *w;
    }
    if (s.stop) out += " STOP";
    return out;
  }
  std::string operator()(const SetCellFastFileCreate& s) const {
    return fmt::format("ALTER SESSION SET \"{}\" = {}", kCellFastFileCreateParameter,
                       s.enabled ? "TRUE" : "FALSE");
  }
  std::string operator()(const SetFastFileCreateMetadata& s) const {
    return fmt::format("ALTER SESSION SET {} = {}", kFastFileCreateMetadataParameter,
                       s.enabled ? "TRUE" : "FALSE");
  }
  std::string operator()(const SetParameter& s) const {
    std::string name = s.name;
    const bool plain = !name.empty() && std::isalpha(static_cast<unsigned char>(name[0])) &&
                       std::all_of(name.begin(), name.end(), IsIdentChar);
    if (!plain) name = fmt::format("\"{}\"", name);
    return fmt::format("ALTER SESSION SET {} = {}", name,
                       s.value_is_string ? StringSql(s.value) : s.value);
  }
};

struct KindNamer {
  std::string_view operator()(const CreateTablespace&) const { return "CREATE TABLESPACE"; }
  std::string_view operator()(const AlterTablespaceAddDatafile&) const {
    return "ALTER TABLESPACE ADD DATAFILE";
  }
  std::string_view operator()(const DropTablespace&) const { return "DROP TABLESPACE"; }
  std::string_view operator()(const AddLogfile&) const { return "ALTER DATABASE ADD LOGFILE"; }
  std::string_view operator()(const DropLogfileGroup&) const {
    return "ALTER DATABASE DROP LOGFILE";
  }
  std::string_view operator()(const ResizeDataFile& s) const {
    return s.tempfile ? "ALTER DATABASE TEMPFILE RESIZE" : "ALTER DATABASE DATAFILE RESIZE";
  }
  std::string_view operator()(const AlterDiskgroupDisks& s) const {
    return s.online ? "ALTER DISKGROUP ONLINE" : "ALTER DISKGROUP OFFLINE";
  }
  std::string_view operator()(const ScrubDiskgroup&) const { return "ALTER DISKGROUP SCRUB"; }
  std::string_view operator()(const SetCellFastFileCreate&) const { return "ALTER SESSION SET"; }
  std::string_view operator()(const SetFastFileCreateMetadata&) const {
    return "ALTER SESSION SET";
  }
  std::string_view operator()(const SetParameter&) const { return "ALTER SESSION SET"; }
};

std::string Trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

}  // namespace

bool IsSqlPlusCommandStart(std::string_view text) {
  if (!text.empty() && text[0] == '@') return true;  // @script, @@script
  for (std::string_view word : {"START", "SHOW", "WHENEVER", "ARCHIVE", "EXIT", "QUIT", "DESC", "DESCRIBE",
                                "SET", "PROMPT", "COLUMN", "COL", "SPOOL", "REM", "REMARK",
                                "TTITLE", "BTITLE", "BREAK", "CLEAR", "PAUSE", "DEFINE", "DEF",
                                "UNDEFINE", "UNDEF", "SHUTDOWN", "STARTUP", "EXEC", "EXECUTE"}) {
    if (text.size() < word.size() || internal::Upper(text.substr(0, word.size())) != word) continue;
    if (text.size() > word.size() && std::isspace(static_cast<unsigned char>(text[word.size()]))) {
      return true;
    }
    const bool alone_ok = word == "EXIT" || word == "QUIT" || word == "PROMPT" || word == "PAUSE" ||
                          word == "DEFINE" || word == "DEF" || word == "SHUTDOWN" ||
                          word == "STARTUP";
    if (alone_ok && (text.size() == word.size() || text[word.size()] == ';')) return true;
  }
  return false;
}

bool IsPlsqlBlock(std::string_view text) {
  const std::string w = internal::FirstWords(text, 1);
  return w == "BEGIN" || w == "DECLARE";
}

namespace {

// Where the PL/SQL block starting at `from` ends: the start of the first
// line after it holding only '/' (`*next`: past that line), else the end.
size_t BlockEnd(std::string_view text, size_t from, size_t* next) {
  size_t line = text.find('\n', from);
  while (line != std::string_view::npos) {
    const size_t begin = line + 1;
    size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    std::string_view l = text.substr(begin, end - begin);
    while (!l.empty() && std::isspace(static_cast<unsigned char>(l.back()))) l.remove_suffix(1);
    while (!l.empty() && std::isspace(static_cast<unsigned char>(l.front()))) l.remove_prefix(1);
    if (l == "/") {
      *next = end;
      return begin;
    }
    line = end < text.size() ? end : std::string_view::npos;
  }
  *next = text.size();
  return text.size();
}

}  // namespace

std::vector<std::string> SplitStatements(std::string_view text) {
  std::vector<std::string> out;
  size_t start = 0;
  bool has_code = false;  // the current piece holds more than blanks and comments
  auto flush = [&](size_t end) {
    if (has_code) out.push_back(Trim(text.substr(start, end - start)));
    start = end + 1;
    has_code = false;
  };
  const size_t n = text.size();
  size_t i = 0;
  while (i < n) {
    const char c = text[i];
    if (const size_t comment_end = internal::CommentEnd(text, i); comment_end != i) {
      i = std::min(comment_end, n);
    } else if (c == '\'' || c == '"') {
      has_code = true;
      ++i;
      while (i < n && text[i] != c) ++i;  // '' is two adjacent strings: same effect
      if (i < n) ++i;
    } else if (c == ';') {
      flush(i);
      ++i;
    } else if (!has_code && IsPlsqlBlock(text.substr(i))) {
      size_t next = 0;
      const size_t end = BlockEnd(text, i, &next);
      has_code = true;
      flush(end);
      start = i = next;
    } else if (!has_code && IsSqlPlusCommandStart(text.substr(i))) {
      // A SQL*Plus command (SHOW PARAMETER ..., WHENEVER SQLERROR ...) ends at
      // its line's end.
      has_code = true;
      size_t end = text.find('\n', i);
      if (end == std::string_view::npos) end = n;
      // PROMPT and REM[ARK] take the whole line as their text, ';' included.
      const std::string first = internal::Upper(text.substr(i, std::min<size_t>(6, end - i)));
      const bool whole_line = first.rfind("PROMPT", 0) == 0 || first.rfind("REM", 0) == 0;
      const size_t semi = whole_line ? std::string_view::npos : text.substr(i, end - i).find(';');
      flush(semi == std::string_view::npos ? end : i + semi);
      i = start;
    } else {
      if (!std::isspace(static_cast<unsigned char>(c))) has_code = true;
      ++i;
    }
  }
  if (start < n) flush(n);
  return out;
}

std::string_view StatementKind(const Statement& statement) {
  return std::visit(KindNamer{}, statement);
}

std::string ToSql(const Statement& statement) { return std::visit(SqlPrinter{}, statement); }

}  // namespace cellsim::db
