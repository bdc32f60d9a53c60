#include "cellsim/report/asmcmd.h"

#include <fnmatch.h>

#include <algorithm>
#include <cstring>
#include <ctime>
#include <map>
#include <set>

#include "absl/strings/ascii.h"
#include "fmt/format.h"

namespace cellsim::report {
namespace {

// ------------------------------------------------------------ table layout

// asmcmd prints each column as wide as the wider of its header and its values,
// two spaces apart; numbers (and their headers) are right-aligned. Trailing
// blanks of the last, left-aligned column are dropped.
struct Column {
  std::string header;
  bool right = false;
};

std::string RenderTable(const std::vector<Column>& cols,
                        const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> width(cols.size());
  for (size_t c = 0; c < cols.size(); ++c) {
    width[c] = cols[c].header.size();
    for (const auto& row : rows) width[c] = std::max(width[c], row[c].size());
  }
  std::string out;
  auto line = [&](const std::vector<std::string>& cells) {
    std::string l;
    for (size_t c = 0; c < cols.size(); ++c) {
      if (c > 0) l += "  ";
      const std::string pad(width[c] - cells[c].size(), ' ');
      l += cols[c].right ? pad + cells[c] : cells[c] + pad;
    }
    while (!l.empty() && l.back() == ' ') l.pop_back();
    out += l;
    out += '\n';
  };
  std::vector<std::string> header;
  for (const Column& c : cols) header.push_back(c.header);
  line(header);
  for (const auto& row : rows) line(row);
  return out;
}

std::string Upper(std::string_view s) { return absl::AsciiStrToUpper(std::string(s)); }

bool IEquals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && Upper(a) == Upper(b);
}

bool HasWildcard(std::string_view s) { return s.find_first_of("*?[") != std::string_view::npos; }

bool MatchPattern(std::string_view pattern, std::string_view text) {
  return fnmatch(std::string(pattern).c_str(), std::string(text).c_str(), FNM_CASEFOLD) == 0;
}

std::string StripPlus(std::string_view group) {
  if (!group.empty() && group.front() == '+') group.remove_prefix(1);
  while (!group.empty() && group.back() == '/') group.remove_suffix(1);
  return std::string(group);
}

const AsmDiskGroupSnapshot* FindGroup(const AsmSnapshot& s, std::string_view name) {
  for (const AsmDiskGroupSnapshot& g : s.groups) {
    if (IEquals(g.view.name, name)) return &g;
  }
  return nullptr;
}

absl::Status NoSuchGroup(std::string_view name) {
  return absl::NotFoundError(
      fmt::format("ASMCMD-8001: diskgroup '{}' does not exist or is not mounted", name));
}

// Splits "+DATA/ORCL/ONLINELOG" into {"DATA", "ORCL", "ONLINELOG"}; "+" gives {}.
std::vector<std::string> SplitAbsolute(std::string_view path) {
  std::vector<std::string> parts;
  if (!path.empty() && path.front() == '+') path.remove_prefix(1);
  size_t start = 0;
  while (start <= path.size()) {
    size_t slash = path.find('/', start);
    if (slash == std::string_view::npos) slash = path.size();
    if (slash > start) parts.emplace_back(path.substr(start, slash - start));
    start = slash + 1;
  }
  return parts;
}

std::string JoinAbsolute(const std::vector<std::string>& parts, size_t n) {
  std::string out = "+";
  for (size_t i = 0; i < n && i < parts.size(); ++i) {
    if (i > 0) out += '/';
    out += parts[i];
  }
  return out;
}

// ---------------------------------------------------------- name space walk

// One entry of a directory level: a subdirectory or a file.
struct Entry {
  std::string name;                  // as stored (directories without '/')
  bool directory = false;
  const asmgr::FileView* file = nullptr;  // for files
  std::vector<const asmgr::FileView*> below;  // every file at or under it
};

// The entries of directory `dir` (components after the group) of `g`, keyed
// by upper-cased name so that lookups are case-insensitive.
std::map<std::string, Entry> ListLevel(const AsmDiskGroupSnapshot& g,
                                       const std::vector<std::string>& dir) {
  std::map<std::string, Entry> out;
  for (const asmgr::FileView& f : g.files) {
    std::vector<std::string> parts = SplitAbsolute(f.name);
    if (parts.size() < dir.size() + 2) continue;  // group + dir + at least one more
    bool under = true;
    for (size_t i = 0; i < dir.size() && under; ++i) under = IEquals(parts[i + 1], dir[i]);
    if (!under) continue;
    const std::string& name = parts[dir.size() + 1];
    Entry& e = out[Upper(name)];
    e.name = name;
    e.below.push_back(&f);
    if (parts.size() == dir.size() + 2) {
      e.file = &f;
    } else {
      e.directory = true;
    }
  }
  return out;
}

absl::Status NoSuchEntry(std::string_view entry, const std::vector<std::string>& parts,
                         size_t depth) {
  std::string dir = JoinAbsolute(parts, depth);
  if (dir != "+") dir += '/';
  return absl::NotFoundError(
      fmt::format("ASMCMD-8002: entry '{}' does not exist in directory '{}'", entry, dir));
}

// What an ls path names: the entries to print and whether they are the
// contents of a directory (else the path itself named them).
struct Resolved {
  const AsmDiskGroupSnapshot* group = nullptr;  // null: the root "+"
  std::vector<Entry> entries;
  std::vector<const AsmDiskGroupSnapshot*> groups;  // root listing
};

absl::StatusOr<Resolved> Resolve(const AsmSnapshot& s, std::string_view path) {
  const std::vector<std::string> parts = SplitAbsolute(path);
  Resolved r;
  if (parts.empty()) {
    for (const AsmDiskGroupSnapshot& g : s.groups) r.groups.push_back(&g);
    return r;
  }
  if (parts.size() == 1 && HasWildcard(parts[0])) {
    for (const AsmDiskGroupSnapshot& g : s.groups) {
      if (MatchPattern(parts[0], g.view.name)) r.groups.push_back(&g);
    }
    if (r.groups.empty()) return NoSuchEntry(parts[0], parts, 0);
    return r;
  }
  r.group = FindGroup(s, parts[0]);
  if (r.group == nullptr) return NoSuchGroup(parts[0]);
  // Walk the directories named by parts[1 .. n-2]; the last part is listed.
  std::vector<std::string> dir;
  for (size_t i = 1; i < parts.size(); ++i) {
    const std::map<std::string, Entry> level = ListLevel(*r.group, dir);
    const std::string& want = parts[i];
    const bool last = i + 1 == parts.size();
    if (last && HasWildcard(want)) {
      for (const auto& [key, e] : level) {
        if (MatchPattern(want, e.name)) r.entries.push_back(e);
      }
      if (r.entries.empty()) return NoSuchEntry(want, parts, i);
      return r;
    }
    auto it = level.find(Upper(want));
    if (it == level.end()) return NoSuchEntry(want, parts, i);
    if (!it->second.directory) {
      if (!last) return NoSuchEntry(parts[i + 1], parts, i + 1);
      r.entries.push_back(it->second);  // a file names itself
      return r;
    }
    dir.push_back(it->second.name);
  }
  for (auto& [key, e] : ListLevel(*r.group, dir)) r.entries.push_back(std::move(e));
  return r;
}

}  // namespace

// ----------------------------------------------------------------- lsdg

absl::StatusOr<std::string> RenderLsdg(const AsmSnapshot& asm_state, std::string_view group) {
  const std::string want = StripPlus(group);
  std::vector<std::vector<std::string>> rows;
  for (const AsmDiskGroupSnapshot& g : asm_state.groups) {
    if (!want.empty() && !IEquals(g.view.name, want)) continue;
    const asmgr::DiskGroupView& v = g.view;
    rows.push_back({v.state, std::string(asmgr::RedundancyName(v.redundancy)), "N",
                    fmt::format("{}", v.sector_size), fmt::format("{}", v.sector_size),
                    fmt::format("{}", v.block_size), fmt::format("{}", v.au_size),
                    fmt::format("{}", v.space.total_mb), fmt::format("{}", v.space.free_mb),
                    fmt::format("{}", v.space.required_mirror_free_mb),
                    fmt::format("{}", v.space.usable_file_mb),
                    fmt::format("{}", v.offline_disks), "N", v.name + "/"});
  }
  if (!want.empty() && rows.empty()) return NoSuchGroup(want);
  return RenderTable({{"State"},
                      {"Type"},
                      {"Rebal"},
                      {"Sector", true},
                      {"Logical_Sector", true},
                      {"Block", true},
                      {"AU", true},
                      {"Total_MB", true},
                      {"Free_MB", true},
                      {"Req_mir_free_MB", true},
                      {"Usable_file_MB", true},
                      {"Offline_disks", true},
                      {"Voting_files", true},
                      {"Name"}},
                     rows);
}

// --------------------------------------------------------------- lstmpl

absl::StatusOr<std::string> RenderLstmpl(const AsmSnapshot& asm_state,
                                         const LstmplOptions& options) {
  const std::string want = StripPlus(options.group);
  if (!want.empty() && FindGroup(asm_state, want) == nullptr) return NoSuchGroup(want);
  std::vector<Column> cols = {{"Group_Name"}, {"Group_Num"}, {"Name"},
                              {"Stripe"},     {"Sys"},       {"Redund"}};
  if (options.l) cols.insert(cols.end(), {{"PriReg"}, {"MirrReg"}});
  std::vector<std::vector<std::string>> rows;
  for (size_t gi = 0; gi < asm_state.groups.size(); ++gi) {
    const AsmDiskGroupSnapshot& g = asm_state.groups[gi];
    if (!want.empty() && !IEquals(g.view.name, want)) continue;
    std::vector<const asmgr::TemplateView*> templates;
    for (const asmgr::TemplateView& t : g.templates) {
      if (options.pattern.empty() || MatchPattern(options.pattern, t.name)) templates.push_back(&t);
    }
    std::sort(templates.begin(), templates.end(),
              [](const asmgr::TemplateView* a, const asmgr::TemplateView* b) {
                return a->name < b->name;
              });
    for (const asmgr::TemplateView* t : templates) {
      std::vector<std::string> row = {g.view.name, fmt::format("{}", gi + 1), t->name, t->stripe,
                                      t->system ? "Y" : "N",
                                      std::string(asmgr::FileRedundancyName(t->redundancy))};
      if (options.l) row.insert(row.end(), {"COLD", "COLD"});
      rows.push_back(std::move(row));
    }
  }
  return RenderTable(cols, rows);
}

// ---------------------------------------------------------------- lsdsk

absl::StatusOr<std::string> RenderLsdsk(const AsmSnapshot& asm_state,
                                        const LsdskOptions& options) {
  const std::string want = StripPlus(options.group);
  if (!want.empty() && FindGroup(asm_state, want) == nullptr) return NoSuchGroup(want);
  std::vector<Column> cols;
  if (options.k) {
    for (const char* h : {"Total_MB", "Free_MB", "OS_MB"}) cols.push_back({h, true});
    for (const char* h : {"Name", "Failgroup", "Failgroup_Type", "Library", "Label", "UDID",
                          "Product", "Redund"}) {
      cols.push_back({h});
    }
  }
  if (options.p) {
    for (const char* h : {"Group_Num", "Disk_Num", "Incarn"}) cols.push_back({h, true});
    for (const char* h : {"Mount_Stat", "Header_Stat", "Mode_Stat", "State"}) cols.push_back({h});
  }
  cols.push_back({"Path"});
  std::vector<std::vector<std::string>> rows;
  for (size_t gi = 0; gi < asm_state.groups.size(); ++gi) {
    const AsmDiskGroupSnapshot& g = asm_state.groups[gi];
    if (!want.empty() && !IEquals(g.view.name, want)) continue;
    for (const asmgr::DiskView& d : g.disks) {
      if (!options.pattern.empty() && !MatchPattern(options.pattern, d.path)) continue;
      std::vector<std::string> row;
      if (options.k) {
        // OS_MB is the size of the grid disk as the cell reports it: the whole
        // disk belongs to ASM, so it equals Total_MB.
        row = {fmt::format("{}", d.total_mb), fmt::format("{}", d.free_mb),
               fmt::format("{}", d.total_mb), d.name, d.failgroup, "REGULAR", "System", "", "",
               "", "UNKNOWN"};
      }
      if (options.p) {
        row.insert(row.end(),
                   {fmt::format("{}", gi + 1), fmt::format("{}", d.index),
                    fmt::format("{}", asmgr::DiskIncarnation(d.path)),
                    std::string(asmgr::DiskMountStatus(d)), "MEMBER",
                    d.mode_status, d.state});
      }
      row.push_back(d.path);
      rows.push_back(std::move(row));
    }
  }
  return RenderTable(cols, rows);
}

// ------------------------------------------------------------------- ls

std::string AsmcmdTime(int64_t unix_seconds, int64_t now_unix, bool utc) {
  const time_t t = static_cast<time_t>(unix_seconds);
  struct tm tm {};
  if (utc) {
    gmtime_r(&t, &tm);
  } else {
    localtime_r(&t, &tm);
  }
  static constexpr const char* kMonths[] = {"JAN", "FEB", "MAR", "APR", "MAY", "JUN",
                                            "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"};
  const int64_t age = now_unix - unix_seconds;
  const int64_t kHalfYear = 183 * 86400;
  if (age > kHalfYear || age < -kHalfYear) {
    return fmt::format("{} {:02d} {}", kMonths[tm.tm_mon], tm.tm_mday, tm.tm_year + 1900);
  }
  return fmt::format("{} {:02d} {:02d}:00:00", kMonths[tm.tm_mon], tm.tm_mday, tm.tm_hour);
}

absl::StatusOr<std::string> RenderLs(const AsmSnapshot& asm_state, std::string_view path,
                                     const LsOptions& options) {
  absl::StatusOr<Resolved> r = Resolve(asm_state, path);
  if (!r.ok()) return r.status();
  if (r->group == nullptr) {  // disk groups
    if (!options.long_format) {
      std::string out;
      for (const AsmDiskGroupSnapshot* g : r->groups) out += g->view.name + "/\n";
      return out;
    }
    std::vector<std::vector<std::string>> rows;
    for (const AsmDiskGroupSnapshot* g : r->groups) {
      rows.push_back({g->view.state, std::string(asmgr::RedundancyName(g->view.redundancy)),
                      "N", g->view.name + "/"});
    }
    return RenderTable({{"State"}, {"Type"}, {"Rebal"}, {"Name"}}, rows);
  }
  std::vector<Entry> entries = r->entries;
  std::sort(entries.begin(), entries.end(),
            [](const Entry& a, const Entry& b) { return a.name < b.name; });
  if (!options.long_format && !options.sizes) {
    std::string out;
    for (const Entry& e : entries) out += e.name + (e.directory ? "/\n" : "\n");
    return out;
  }
  // -l: Type Redund Striped Time Sys; -s: Block_Size Blocks Bytes Space; then Name.
  std::vector<Column> cols;
  if (options.long_format) {
    for (const char* h : {"Type", "Redund", "Striped", "Time", "Sys"}) cols.push_back({h});
  }
  if (options.sizes) {
    for (const char* h : {"Block_Size", "Blocks", "Bytes", "Space"}) cols.push_back({h, true});
  }
  cols.push_back({"Name"});
  std::vector<std::vector<std::string>> rows;
  for (const Entry& e : entries) {
    std::vector<std::string> row;
    const asmgr::FileView* f = e.directory ? nullptr : e.file;
    if (options.long_format) {
      if (f == nullptr) {
        row.insert(row.end(), {"", "", "", "", "Y"});
      } else {
        row.insert(row.end(), {f->type, f->redundancy, f->striped,
                               AsmcmdTime(f->time_unix, options.now_unix, options.utc), "Y"});
      }
    }
    if (options.sizes) {
      if (f == nullptr || f->block_size == 0) {
        row.insert(row.end(), {"", "", "", ""});
      } else {
        row.insert(row.end(), {fmt::format("{}", f->block_size),
                               fmt::format("{}", f->bytes / f->block_size),
                               fmt::format("{}", f->bytes), fmt::format("{}", f->space)});
      }
    }
    row.push_back(e.name + (e.directory ? "/" : ""));
    rows.push_back(std::move(row));
  }
  return RenderTable(cols, rows);
}

absl::StatusOr<std::string> RenderDu(const AsmSnapshot& asm_state, std::string_view path) {
  absl::StatusOr<std::vector<std::string>> names = ResolveAsmFiles(asm_state, path);
  uint64_t used = 0, mirrored = 0;
  if (names.ok()) {
    const std::set<std::string> wanted(names->begin(), names->end());
    for (const AsmDiskGroupSnapshot& g : asm_state.groups) {
      for (const asmgr::FileView& f : g.files) {
        if (wanted.count(f.name) == 0) continue;
        used += f.copies == 0 ? f.space : f.space / f.copies;
        mirrored += f.space;
      }
    }
  } else if (absl::StatusOr<Resolved> r = Resolve(asm_state, path); !r.ok()) {
    return r.status();  // no such entry; an empty directory uses nothing
  }
  auto mb = [](uint64_t bytes) { return fmt::format("{}", (bytes + (1 << 20) - 1) >> 20); };
  return RenderTable({{"Used_MB", true}, {"Mirror_used_MB", true}}, {{mb(used), mb(mirrored)}});
}

absl::StatusOr<std::string> RenderFind(const AsmSnapshot& asm_state, std::string_view dir,
                                       std::string_view pattern, std::string_view type) {
  absl::StatusOr<Resolved> r = Resolve(asm_state, dir);
  if (!r.ok()) return r.status();
  std::vector<const AsmDiskGroupSnapshot*> groups = r->groups;
  if (r->group != nullptr) groups = {r->group};
  // Everything below `dir`: the files, and each directory on their paths.
  const std::vector<std::string> base = SplitAbsolute(dir);
  std::set<std::string> found;
  for (const AsmDiskGroupSnapshot* g : groups) {
    for (const asmgr::FileView& f : g->files) {
      const std::vector<std::string> parts = SplitAbsolute(f.name);
      bool under = parts.size() > base.size();
      for (size_t i = 0; i < base.size() && under; ++i) {
        under = HasWildcard(base[i]) ? MatchPattern(base[i], parts[i]) : IEquals(base[i], parts[i]);
      }
      if (!under) continue;
      for (size_t i = std::max<size_t>(base.size(), 1); i < parts.size(); ++i) {
        const bool file = i + 1 == parts.size();
        if (!type.empty() && (!file || !IEquals(f.type, type))) continue;
        if (MatchPattern(pattern, parts[i])) {
          found.insert(JoinAbsolute(parts, i + 1) + (file ? "" : "/"));
        }
      }
    }
  }
  std::string out;
  for (const std::string& p : found) out += p + "\n";
  return out;
}

absl::StatusOr<std::vector<std::string>> ResolveAsmFiles(const AsmSnapshot& asm_state,
                                                         std::string_view path) {
  absl::StatusOr<Resolved> r = Resolve(asm_state, path);
  if (!r.ok()) return r.status();
  std::set<std::string> names;
  if (r->group == nullptr) {
    for (const AsmDiskGroupSnapshot* g : r->groups) {
      for (const asmgr::FileView& f : g->files) names.insert(f.name);
    }
  }
  for (const Entry& e : r->entries) {
    for (const asmgr::FileView* f : e.below) names.insert(f->name);
  }
  if (names.empty()) {
    return absl::NotFoundError(fmt::format("ASMCMD-8002: no file under '{}'", path));
  }
  return std::vector<std::string>(names.begin(), names.end());
}

std::string ResolveAsmPath(std::string_view cwd, std::string_view path) {
  std::vector<std::string> parts;
  if (path.empty() || path.front() != '+') parts = SplitAbsolute(cwd);
  std::vector<std::string> rel = SplitAbsolute(path);
  for (std::string& p : rel) {
    if (p == ".") continue;
    if (p == "..") {
      if (!parts.empty()) parts.pop_back();
      continue;
    }
    parts.push_back(std::move(p));
  }
  return JoinAbsolute(parts, parts.size());
}

}  // namespace cellsim::report
