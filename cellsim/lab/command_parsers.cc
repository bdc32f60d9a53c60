#include "cellsim/lab/command_parsers.h"

#include <algorithm>
#include <iterator>
#include <regex>

#include "absl/strings/ascii.h"
#include "cellsim/base/user_regex.h"
#include "cellsim/base/units.h"
#include "fmt/format.h"

namespace cellsim::lab {
namespace {

std::string Lower(std::string_view s) { return absl::AsciiStrToLower(std::string(s)); }

absl::Status CellSyntax(std::string_view text, std::string_view why) {
  return absl::InvalidArgumentError(
      fmt::format("CELL-01504: Invalid command syntax. {} (in \"{}\")", why, text));
}

bool IsListKeyword(const std::string& word) {
  const std::string w = Lower(word);
  return w == "where" || w == "attributes" || w == "detail";
}

// CELL-01504 when `type` has no attribute `name`.
absl::Status CheckAttribute(std::string_view text, report::CellCliObjectType type,
                            const std::string& name) {
  if (report::CellCliHasAttribute(type, name)) return absl::OkStatus();
  return CellSyntax(text, fmt::format("{} has no attribute '{}' (DESCRIBE {} lists them)",
                                      report::CellCliObjectTypeName(type), name,
                                      report::CellCliObjectTypeName(type)));
}

// WHERE attribute op value [AND ...], from w[*i] (just after WHERE).
absl::Status ParseWhere(std::string_view text, const std::vector<std::string>& w, size_t* i,
                        CellCliCommand* cmd) {
  using Op = report::CellCliFilter::Op;
  static const std::pair<std::string_view, Op> kOps[] = {
      {"=", Op::kEq}, {"!=", Op::kNe}, {"like", Op::kLike}, {"<", Op::kLt},
      {"<=", Op::kLe}, {">", Op::kGt}, {">=", Op::kGe}};
  while (true) {
    if (*i + 3 > w.size()) return CellSyntax(text, "expected: WHERE attribute = 'value'");
    report::CellCliFilter f;
    f.attribute = w[*i];
    if (absl::Status s = CheckAttribute(text, cmd->object, w[*i]); !s.ok()) return s;
    const std::string op = Lower(w[*i + 1]);
    const auto* known = std::find_if(std::begin(kOps), std::end(kOps),
                                     [&](const auto& o) { return o.first == op; });
    if (known == std::end(kOps)) {
      return CellSyntax(text, fmt::format("expected =, !=, LIKE, <, <=, > or >= after {}, found "
                                          "'{}'",
                                          w[*i], w[*i + 1]));
    }
    f.op = known->second;
    f.value = w[*i + 2];
    if (f.op == Op::kLike) {
      if (absl::Status st = ::cellsim::internal::CheckUserRegex(f.value, "LIKE"); !st.ok()) {
        return CellSyntax(text, std::string(st.message()));
      }
      try {
        std::regex re(f.value, std::regex::icase | std::regex::extended);
      } catch (const std::regex_error& e) {
        return CellSyntax(text, fmt::format("invalid regular expression '{}'", f.value));
      }
    }
    cmd->list.filters.push_back(std::move(f));
    *i += 3;
    if (*i < w.size() && Lower(w[*i]) == "and") {
      ++*i;
      continue;
    }
    return absl::OkStatus();
  }
}

// ATTRIBUTES a [, b]... | ATTRIBUTES ALL, from w[*i] (just after ATTRIBUTES).
absl::Status ParseAttributeList(std::string_view text, const std::vector<std::string>& w,
                                size_t* i, CellCliCommand* cmd) {
  if (*i < w.size() && Lower(w[*i]) == "all") {
    cmd->list.all_attributes = true;
    ++*i;
    return absl::OkStatus();
  }
  bool want_name = true;
  for (; *i < w.size() && Lower(w[*i]) != "detail"; ++*i) {
    if (w[*i] == ",") {
      if (want_name) return CellSyntax(text, "an attribute name is missing before ','");
      want_name = true;
      continue;
    }
    if (!want_name && Lower(w[*i]) == "where") {
      return CellSyntax(text, fmt::format("WHERE goes before ATTRIBUTES (LIST {} WHERE ... "
                                          "ATTRIBUTES ...)", absl::AsciiStrToUpper(w[1])));
    }
    if (!want_name) return CellSyntax(text, fmt::format("expected ',' before '{}'", w[*i]));
    if (absl::Status s = CheckAttribute(text, cmd->object, w[*i]); !s.ok()) return s;
    cmd->list.attributes.push_back(w[*i]);
    want_name = false;
  }
  if (want_name) return CellSyntax(text, "ATTRIBUTES needs attribute names, or ALL");
  return absl::OkStatus();
}

// LIST type [NAME | WHERE ...] [ATTRIBUTES ...] [DETAIL], from w[2].
absl::Status ParseListTail(std::string_view text, const std::vector<std::string>& w,
                           CellCliCommand* cmd) {
  size_t i = 2;
  if (i < w.size() && !IsListKeyword(w[i])) {
    cmd->name = w[i];
    cmd->list.filters.push_back({"name", report::CellCliFilter::Op::kEq, w[i]});
    ++i;
  } else if (i < w.size() && Lower(w[i]) == "where") {
    ++i;
    if (absl::Status s = ParseWhere(text, w, &i, cmd); !s.ok()) return s;
  }
  if (i < w.size() && Lower(w[i]) == "attributes") {
    ++i;
    if (absl::Status s = ParseAttributeList(text, w, &i, cmd); !s.ok()) return s;
  }
  if (i < w.size() && Lower(w[i]) == "detail") {
    cmd->list.detail = true;
    ++i;
  }
  if (i < w.size()) {
    return CellSyntax(text, fmt::format("unexpected '{}' (LIST {} [name | WHERE ...] "
                                        "[ATTRIBUTES ...] [DETAIL])",
                                        w[i], report::CellCliObjectTypeName(cmd->object)));
  }
  return absl::OkStatus();
}

// ALTER GRIDDISK {ALL [PREFIX = p] | NAME[,NAME...]}
//     {ACTIVE | INACTIVE | cachingPolicy = 'none' | 'default'}
absl::StatusOr<CellCliCommand> ParseAlterGridDisk(std::string_view text,
                                                  const std::vector<std::string>& w) {
  constexpr std::string_view kForm =
      "expected: ALTER GRIDDISK {ALL [PREFIX=name] | name[,name...]} {ACTIVE | INACTIVE | "
      "cachingPolicy='none'|'default'}";
  CellCliCommand cmd;
  cmd.kind = CellCliCommand::Kind::kSetCachingPolicy;
  size_t i = 2;
  if (i >= w.size()) return CellSyntax(text, kForm);
  if (Lower(w[i]) == "all") {
    ++i;
    if (i + 2 < w.size() && Lower(w[i]) == "prefix" && w[i + 1] == "=") {
      cmd.prefix = w[i + 2];
      i += 3;
    }
  } else {
    // NAME[,NAME...]: SplitCommandWords makes each ',' a word.
    while (true) {
      if (i >= w.size() || w[i] == ",") {
        return CellSyntax(text, "a grid disk name is missing in the list of names");
      }
      cmd.grid_disks.push_back(w[i++]);
      if (i < w.size() && w[i] == ",") {
        ++i;
        continue;
      }
      break;
    }
  }
  if (i + 1 == w.size() && (Lower(w[i]) == "active" || Lower(w[i]) == "inactive")) {
    cmd.kind = CellCliCommand::Kind::kSetGridDiskActive;
    cmd.active = Lower(w[i]) == "active";
    return cmd;
  }
  if (i + 3 != w.size() || Lower(w[i]) != "cachingpolicy" || w[i + 1] != "=") {
    return CellSyntax(text, kForm);
  }
  const std::string policy = Lower(w[i + 2]);
  if (policy == "none") {
    cmd.caching_policy = cell::CachingPolicy::kNone;
  } else if (policy != "default") {
    return CellSyntax(text, fmt::format("cachingPolicy '{}' is not none or default (cellsim does "
                                        "not model Exadata's other policies)",
                                        w[i + 2]));
  }
  return cmd;
}

}  // namespace

absl::StatusOr<std::vector<std::string>> SplitCommandWords(std::string_view text,
                                                          bool operators) {
  std::vector<std::string> words;
  std::string cur;
  bool in_word = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\'' || c == '"') {
      const size_t end = text.find(c, i + 1);
      if (end == std::string_view::npos) {
        return absl::InvalidArgumentError(
            fmt::format("unterminated {} quote at column {} of \"{}\"", c, i + 1, text));
      }
      cur.append(text.substr(i + 1, end - i - 1));
      in_word = true;
      i = end;
    } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ';') {
      if (in_word) words.push_back(std::move(cur));
      cur.clear();
      in_word = false;
    } else if (operators && (c == '=' || c == '<' || c == '>' || c == ',' ||
                             (c == '!' && i + 1 < text.size() && text[i + 1] == '='))) {
      if (in_word) words.push_back(std::move(cur));
      cur.clear();
      in_word = false;
      const bool two = c != '=' && c != ',' && i + 1 < text.size() && text[i + 1] == '=';
      words.emplace_back(text.substr(i, two ? 2 : 1));
      if (two) ++i;
    } else {
      cur += c;
      in_word = true;
    }
  }
  if (in_word) words.push_back(std::move(cur));
  return words;
}

absl::StatusOr<CellCliCommand> ParseCellCliCommand(std::string_view text) {
  absl::StatusOr<std::vector<std::string>> words = SplitCommandWords(text, true);
  if (!words.ok()) return CellSyntax(text, std::string(words.status().message()));
  const std::vector<std::string>& w = *words;
  if (w.empty()) return CellSyntax(text, "empty command");
  CellCliCommand cmd;
  const std::string verb = Lower(w[0]);
  if (verb == "list" || verb == "describe" || verb == "desc") {
    const bool list = verb == "list";
    if (w.size() < 2) {
      return CellSyntax(text, fmt::format("{} of what? ({})", absl::AsciiStrToUpper(verb),
                                          report::CellCliObjectTypeNames(", ")));
    }
    if (!report::ParseCellCliObjectType(w[1], &cmd.object)) {
      return CellSyntax(text, fmt::format("unknown object type '{}' (cellsim knows {})", w[1],
                                          report::CellCliObjectTypeNames(", ")));
    }
    if (!list) {
      if (w.size() > 2) return CellSyntax(text, fmt::format("unexpected '{}'", w[2]));
      cmd.kind = CellCliCommand::Kind::kDescribe;
      return cmd;
    }
    cmd.kind = CellCliCommand::Kind::kList;
    if (absl::Status s = ParseListTail(text, w, &cmd); !s.ok()) return s;
    return cmd;
  }
  if (verb == "alter") {
    if (w.size() == 4 && Lower(w[1]) == "flashcache" && Lower(w[2]) == "all" &&
        Lower(w[3]) == "flush") {
      cmd.kind = CellCliCommand::Kind::kFlushFlashCache;
      return cmd;
    }
    if (w.size() >= 2 && Lower(w[1]) == "cell") {
      if (w.size() != 5 || Lower(w[2]) != "flashcachemode" || w[3] != "=") {
        return CellSyntax(text, "expected: ALTER CELL flashCacheMode = writeback|writethrough");
      }
      const std::string mode = Lower(w[4]);
      if (mode == "writeback") {
        cmd.mode = cell::FlashCacheMode::kWriteBack;
      } else if (mode == "writethrough") {
        cmd.mode = cell::FlashCacheMode::kWriteThrough;
      } else {
        return CellSyntax(text, fmt::format("flashCacheMode '{}' is not writeback or writethrough",
                                            w[4]));
      }
      cmd.kind = CellCliCommand::Kind::kSetFlashCacheMode;
      return cmd;
    }
    if (w.size() >= 2 && Lower(w[1]) == "griddisk") return ParseAlterGridDisk(text, w);
    return CellSyntax(text, "cellsim knows ALTER FLASHCACHE ALL FLUSH, ALTER CELL "
                            "flashCacheMode = ... and ALTER GRIDDISK ... cachingPolicy = ...");
  }
  if (verb == "create") {
    if (w.size() < 2 || Lower(w[1]) != "griddisk") {
      return CellSyntax(text, "cellsim knows CREATE GRIDDISK NAME");
    }
    if (w.size() != 3) {
      return CellSyntax(text, "expected: CREATE GRIDDISK NAME (cellsim recreates a grid disk that "
                              "is not present on its recorded cell disk, at its recorded size)");
    }
    cmd.kind = CellCliCommand::Kind::kCreateGridDisk;
    cmd.grid_disk = w[2];
    return cmd;
  }
  return CellSyntax(text, fmt::format("unknown command '{}' (cellsim knows LIST, DESCRIBE, ALTER and CREATE)",
                                      w[0]));
}

namespace {

absl::Status BadAsmcmdOption(const std::string& verb, const std::string& opt) {
  return absl::InvalidArgumentError(
      fmt::format("ASMCMD-8021: option '{}' of {} is not supported", opt, verb));
}

// One option of `verb` at w[*i] (it may take the next word): sets `cmd`.
absl::Status ParseAsmcmdOption(const std::string& verb, const std::vector<std::string>& w,
                               size_t* i, AsmcmdCommand* cmd) {
  const std::string& a = w[*i];
  if (a == "--suppressheader" &&
      (verb == "lsdg" || verb == "lsdsk" || verb == "lstmpl" || verb == "ls" || verb == "du")) {
    cmd->suppress_header = true;
    return absl::OkStatus();
  }
  auto value = [&](const char* what) -> absl::StatusOr<std::string> {
    if (*i + 1 >= w.size()) {
      return absl::InvalidArgumentError(fmt::format("ASMCMD-8021: {} needs {}", a, what));
    }
    return w[++*i];
  };
  if (verb == "ls") {
    for (char c : a.substr(1)) {
      if (c == 'l') {
        cmd->long_format = true;
      } else if (c == 's') {
        cmd->sizes = true;
      } else {
        return BadAsmcmdOption(verb, a);
      }
    }
    return absl::OkStatus();
  }
  if ((verb == "lsdsk" || verb == "lstmpl") && a == "-G") {
    absl::StatusOr<std::string> g = value("a disk group");
    if (!g.ok()) return g.status();
    (verb == "lsdsk" ? cmd->lsdsk.group : cmd->lstmpl.group) = *g;
    return absl::OkStatus();
  }
  if (verb == "lsdsk") {
    for (char c : a.substr(1)) {
      if (c != 'k' && c != 'p') return BadAsmcmdOption(verb, a);
      (c == 'k' ? cmd->lsdsk.k : cmd->lsdsk.p) = true;
    }
    return absl::OkStatus();
  }
  if (verb == "lstmpl") {
    if (a != "-l") return BadAsmcmdOption(verb, a);
    cmd->lstmpl.l = true;
    return absl::OkStatus();
  }
  if (verb == "find" && (a == "--type" || a == "-t")) {
    absl::StatusOr<std::string> t = value("a file type (DATAFILE, ONLINELOG, ...)");
    if (!t.ok()) return t.status();
    cmd->type = absl::AsciiStrToUpper(*t);
    return absl::OkStatus();
  }
  if (verb == "online" || verb == "offline") {
    if (a == "-a" && verb == "online") {
      cmd->all = true;
      return absl::OkStatus();
    }
    if (a == "-G" || a == "-D") {
      absl::StatusOr<std::string> v = value(a == "-G" ? "a disk group" : "a disk name");
      if (!v.ok()) return v.status();
      (a == "-G" ? cmd->group : cmd->disk) = absl::AsciiStrToUpper(*v);
      return absl::OkStatus();
    }
  }
  return BadAsmcmdOption(verb, a);
}

}  // namespace

absl::StatusOr<AsmcmdCommand> ParseAsmcmdCommand(std::string_view text) {
  absl::StatusOr<std::vector<std::string>> words = SplitCommandWords(text, false);
  if (!words.ok()) return words.status();
  const std::vector<std::string>& w = *words;
  if (w.empty()) return absl::InvalidArgumentError("ASMCMD-8022: empty command");
  AsmcmdCommand cmd;
  const std::string& verb = w[0];
  // Each command: its kind, its operand count and usage.
  struct Form {
    const char* verb;
    AsmcmdCommand::Kind kind;
    size_t min, max;
    const char* usage;
  };
  using K = AsmcmdCommand::Kind;
  static constexpr Form kForms[] = {
      {"lsdg", K::kLsdg, 0, 1, "lsdg [--suppressheader] [GROUP]"},
      {"lsdsk", K::kLsdsk, 0, 1, "lsdsk [-k] [-p] [-G GROUP] [--suppressheader] [PATTERN]"},
      {"lstmpl", K::kLstmpl, 0, 1, "lstmpl [-l] [-G GROUP] [--suppressheader] [PATTERN]"},
      {"ls", K::kLs, 0, 1, "ls [-l] [-s] [--suppressheader] [PATH]"},
      {"cd", K::kCd, 1, 1, "cd PATH"},
      {"pwd", K::kPwd, 0, 0, "pwd"},
      {"cp", K::kCp, 2, 2, "cp +DG/PATH LOCALFILE"},
      {"du", K::kDu, 0, 1, "du [--suppressheader] [PATH]"},
      {"find", K::kFind, 2, 2, "find [--type TYPE] DIR PATTERN"},
      {"online", K::kOnline, 0, 0, "online -G GROUP (-D DISK | -a)"},
      {"offline", K::kOffline, 0, 0, "offline -G GROUP -D DISK"},
  };
  const Form* form = nullptr;
  for (const Form& f : kForms) {
    if (verb == f.verb) form = &f;
  }
  // The command before its options: `lsattr -G DATA` is a command cellsim
  // lacks, not an option lsattr lacks.
  if (form == nullptr) {
    return absl::InvalidArgumentError(fmt::format(
        "ASMCMD-8022: unknown command '{}' (cellsim knows lsdg, lsdsk, lstmpl, ls, cd, pwd, cp, du, "
        "find, online, offline)",
        verb));
  }
  std::vector<std::string> operands;
  for (size_t i = 1; i < w.size(); ++i) {
    if (w[i].size() < 2 || w[i][0] != '-') {
      operands.push_back(w[i]);
      continue;
    }
    if (absl::Status s = ParseAsmcmdOption(verb, w, &i, &cmd); !s.ok()) return s;
  }
  cmd.kind = form->kind;
  const bool disk_form = cmd.kind == K::kOnline || cmd.kind == K::kOffline;
  if (operands.size() < form->min || operands.size() > form->max ||
      (disk_form && (cmd.group.empty() || cmd.disk.empty() == !cmd.all))) {
    return absl::InvalidArgumentError(fmt::format("ASMCMD-8022: usage: {}", form->usage));
  }
  if (cmd.kind == K::kLsdsk && !operands.empty()) cmd.lsdsk.pattern = operands[0];
  if (cmd.kind == K::kLstmpl && !operands.empty()) cmd.lstmpl.pattern = operands[0];
  cmd.args = std::move(operands);
  return cmd;
}

absl::StatusOr<asmgr::DiskGroupSpec> ParseDiskGroupOption(std::string_view text) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    const size_t colon = text.find(':', start);
    parts.emplace_back(text.substr(start, colon == std::string_view::npos ? text.npos : colon - start));
    if (colon == std::string_view::npos) break;
    start = colon + 1;
  }
  if (parts.size() < 3 || parts.size() > 5) {
    return absl::InvalidArgumentError(fmt::format(
        "--disk-group '{}': expected NAME:REDUNDANCY:SIZE_PER_DISK[:AU[:CACHING_POLICY]], e.g. "
        "DATA:NORMAL:2g or RECO:NORMAL:1g:4m:none",
        text));
  }
  asmgr::DiskGroupSpec spec;
  spec.name = absl::AsciiStrToUpper(parts[0]);
  if (spec.name.empty()) {
    return absl::InvalidArgumentError(fmt::format("--disk-group '{}': the name is empty", text));
  }
  absl::StatusOr<asmgr::Redundancy> red = asmgr::ParseRedundancy(parts[1]);
  if (!red.ok()) {
    return absl::InvalidArgumentError(fmt::format("--disk-group '{}': {}", text,
                                                  std::string(red.status().message())));
  }
  spec.redundancy = *red;
  absl::StatusOr<uint64_t> size = ParseSize(parts[2]);
  if (!size.ok() || *size == 0) {
    return absl::InvalidArgumentError(fmt::format(
        "--disk-group '{}': size per disk '{}' is not a size like 512m or 2g", text, parts[2]));
  }
  spec.grid_disk_size = *size;
  if (parts.size() == 5) {
    const std::string policy = absl::AsciiStrToLower(parts[4]);
    if (policy != "none" && policy != "default") {
      return absl::InvalidArgumentError(fmt::format(
          "--disk-group '{}': caching policy '{}' is not none or default", text, parts[4]));
    }
    spec.caching_policy = policy == "none" ? cell::CachingPolicy::kNone : cell::CachingPolicy::kDefault;
  }
  if (parts.size() >= 4) {
    absl::StatusOr<uint64_t> au = ParseSize(parts[3]);
    if (!au.ok()) {
      return absl::InvalidArgumentError(
          fmt::format("--disk-group '{}': AU '{}' is not a size like 4m", text, parts[3]));
    }
    absl::Status valid = asmgr::ValidateAuSize(*au);
    if (!valid.ok()) {
      return absl::InvalidArgumentError(
          fmt::format("--disk-group '{}': {}", text, std::string(valid.message())));
    }
    spec.au_size = *au;
  }
  if (spec.grid_disk_size % spec.au_size != 0) {
    return absl::InvalidArgumentError(fmt::format(
        "--disk-group '{}': size per disk {} is not a multiple of the AU ({})", text,
        FormatBytes(spec.grid_disk_size), FormatBytes(spec.au_size)));
  }
  return spec;
}

}  // namespace cellsim::lab
