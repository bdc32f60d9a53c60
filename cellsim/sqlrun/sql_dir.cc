#include "cellsim/sqlrun/sql_dir.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "fmt/format.h"

namespace cellsim::sqlrun {
namespace {

std::vector<std::string> Lines(std::string_view text) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : text) {
    if (c == '\n') {
      if (!cur.empty() && cur.back() == '\r') cur.pop_back();
      out.push_back(std::move(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(std::move(cur));
  return out;
}

std::string LStrip(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  return std::string(s.substr(i));
}

std::string Strip(std::string_view s) {
  std::string l = LStrip(s);
  while (!l.empty() && std::isspace(static_cast<unsigned char>(l.back()))) l.pop_back();
  return l;
}

// Perl's split with a literal delimiter: trailing empty fields dropped.
std::vector<std::string> Split(std::string_view line, std::string_view delim) {
  std::vector<std::string> f;
  size_t at = 0;
  while (true) {
    const size_t next = line.find(delim, at);
    if (next == std::string_view::npos) {
      f.emplace_back(line.substr(at));
      break;
    }
    f.emplace_back(line.substr(at, next - at));
    at = next + delim.size();
  }
  while (!f.empty() && f.back().empty()) f.pop_back();
  return f;
}

absl::StatusOr<std::string> ReadText(const std::string& path, std::string_view what) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    return absl::InvalidArgumentError(fmt::format("{} {}: no such file", what, path));
  }
  std::ifstream in(path);
  if (!in) return absl::InvalidArgumentError(fmt::format("{} {}: cannot read it", what, path));
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

std::string_view SqlTypeName(SqlType t) {
  switch (t) {
    case SqlType::kDml: return "DML";
    case SqlType::kSelect: return "SELECT";
    case SqlType::kPlsql: return "PLSQL";
    case SqlType::kUnknown: break;
  }
  return "UNKNOWN";
}

SqlType ClassifySql(std::string_view sql) {
  // Whole-line "--" comments out, newlines to spaces, the first word uppercased.
  std::string flat;
  for (const std::string& line : Lines(sql)) {
    if (LStrip(line).rfind("--", 0) == 0) continue;
    flat += line + " ";
  }
  std::istringstream in(flat);
  std::string word;
  in >> word;
  for (char& c : word) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  auto has = [&](std::string_view k) { return word.find(k) != std::string::npos; };
  if (has("UPDATE") || has("DELETE") || has("INSERT") || has("MERGE")) return SqlType::kDml;
  if (has("SELECT") || has("WITH")) return SqlType::kSelect;
  if (has("BEGIN") || has("DECLARE")) return SqlType::kPlsql;
  return SqlType::kUnknown;
}

absl::StatusOr<std::vector<SqlEntry>> ParseSqlFileConf(std::string_view text,
                                                       std::string_view conf_name,
                                                       std::string* delimiter) {
  const std::vector<std::string> lines = Lines(text);
  if (lines.empty()) {
    return absl::InvalidArgumentError(fmt::format(
        "{}: empty; line 1 must be the delimiter (e.g. ',')", conf_name));
  }
  // Line 1: the delimiter, its first whitespace run removed (", " -> ",").
  std::string d = lines[0];
  const size_t ws = d.find_first_of(" \t");
  if (ws != std::string::npos) {
    const size_t end = d.find_first_not_of(" \t", ws);
    d.erase(ws, (end == std::string::npos ? d.size() : end) - ws);
  }
  if (d.empty()) {
    return absl::InvalidArgumentError(fmt::format(
        "{}:1: the first line must be the delimiter (e.g. ','), found an empty line", conf_name));
  }
  *delimiter = d;
  std::vector<SqlEntry> entries;
  for (size_t i = 1; i < lines.size(); ++i) {
    const std::string line = LStrip(lines[i]);
    if (line.empty() || line[0] == '#') continue;
    const std::vector<std::string> f = Split(line, d);
    auto bad = [&](const std::string& why) {
      // A delimiter with letters or digits is most often an entry the file
      // starts with: say what line 1 was taken for.
      if (std::any_of(d.begin(), d.end(), [](unsigned char c) { return std::isalnum(c) != 0; })) {
        return absl::InvalidArgumentError(fmt::format(
            "{}:{}: {}: '{}'; line 1, '{}', was taken as the delimiter (the format: a first "
            "line holding only the delimiter, e.g. ',', then FREQUENCY,SQLFILE[,BINDFILE] lines)",
            conf_name, i + 1, why, lines[i], lines[0]));
      }
      return absl::InvalidArgumentError(fmt::format(
          "{}:{}: {}: '{}' (expected frequency{}sqlfile[{}bindfile])", conf_name, i + 1, why,
          lines[i], d, d));
    };
    const std::string freq = f.empty() ? "" : Strip(f[0]);
    if (freq.empty() || freq.size() > 6 ||
        !std::all_of(freq.begin(), freq.end(), [](char c) { return std::isdigit(c); }) ||
        std::stoi(freq) < 1) {
      return bad(fmt::format("the frequency '{}' is not a positive integer", freq));
    }
    if (f.size() < 2 || Strip(f[1]).empty()) return bad("no SQL file named");
    if (f.size() > 3) return bad(fmt::format("{} fields, at most 3", f.size()));
    SqlEntry e;
    e.file = Strip(f[1]);
    e.frequency = std::stoi(freq);
    e.bind_file = f.size() > 2 ? Strip(f[2]) : "";
    e.conf_line = i + 1;
    auto same = std::find_if(entries.begin(), entries.end(),
                             [&](const SqlEntry& x) { return x.file == e.file; });
    if (same != entries.end()) {
      *same = std::move(e);  // Sqlrun's hash: the last line wins
    } else {
      entries.push_back(std::move(e));
    }
  }
  if (entries.empty()) {
    // Often a file that starts with an entry: say what line 1 was taken for.
    return absl::InvalidArgumentError(fmt::format(
        "{}: no SQL file listed: line 1, '{}', is the delimiter, and every line after it is "
        "blank or '#' (the format: a first line holding only the delimiter, e.g. ',', then "
        "FREQUENCY,SQLFILE[,BINDFILE] lines)",
        conf_name, lines[0]));
  }
  return entries;
}

absl::StatusOr<std::vector<std::pair<std::string, std::string>>> ParseParametersConf(
    std::string_view text, std::string_view conf_name) {
  std::vector<std::pair<std::string, std::string>> out;
  const std::vector<std::string> lines = Lines(text);
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string line = LStrip(lines[i]);
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> f = Split(line, ",");
    const std::string name = f.empty() ? "" : Strip(f[0]);
    if (name.empty() || f.size() < 2) {
      return absl::InvalidArgumentError(fmt::format(
          "{}:{}: expected 'name,value': '{}'", conf_name, i + 1, lines[i]));
    }
    std::string value;
    for (size_t k = 1; k < f.size(); ++k) value += f[k];  // commas inside disappear
    auto same = std::find_if(out.begin(), out.end(), [&](const auto& p) { return p.first == name; });
    if (same != out.end()) {
      same->second = value;
    } else {
      out.emplace_back(name, value);
    }
  }
  return out;
}

std::vector<std::vector<std::string>> ParseBindFile(std::string_view text,
                                                    std::string_view delimiter) {
  std::vector<std::vector<std::string>> rows;
  for (const std::string& line : Lines(text)) rows.push_back(Split(line, delimiter));
  return rows;
}

std::string ParseSqlFile(std::string_view text) {
  std::string out;
  for (const std::string& line : Lines(text)) {
    if (Strip(line).empty()) continue;
    if (!out.empty()) out += '\n';
    out += line;
  }
  return out;
}

absl::StatusOr<SqlDir> LoadSqlDir(const SqlDirOptions& options) {
  SqlDir d;
  d.dir = options.sqldir.empty() ? options.driver : options.sqldir + "/" + options.driver;
  const std::string conf = options.sqlfile.empty() ? d.dir + "/sqlfile.conf" : options.sqlfile;
  absl::StatusOr<std::string> text = ReadText(conf, "--sqlfile");
  if (!text.ok()) return text.status();
  absl::StatusOr<std::vector<SqlEntry>> entries = ParseSqlFileConf(*text, conf, &d.delimiter);
  if (!entries.ok()) return entries.status();
  for (SqlEntry& e : *entries) {
    const std::string where = fmt::format("{}:{}: SQL file", conf, e.conf_line);
    absl::StatusOr<std::string> sql = ReadText(d.dir + "/" + e.file, where);
    if (!sql.ok()) return sql.status();
    e.text = ParseSqlFile(*sql);
    if (e.text.empty()) {
      return absl::InvalidArgumentError(fmt::format("{} {}/{} holds no statement", where, d.dir, e.file));
    }
    e.type = ClassifySql(e.text);
    if (!e.bind_file.empty()) {
      absl::StatusOr<std::string> binds =
          ReadText(d.dir + "/" + e.bind_file, fmt::format("{}:{}: bind file", conf, e.conf_line));
      if (!binds.ok()) return binds.status();
      e.bind_rows = ParseBindFile(*binds, d.delimiter);
    }
  }
  d.entries = std::move(*entries);
  const std::string parm = options.parmfile.empty() ? d.dir + "/parameters.conf" : options.parmfile;
  std::error_code ec;
  if (std::filesystem::exists(parm, ec) || !options.parmfile.empty()) {
    absl::StatusOr<std::string> p = ReadText(parm, "--parmfile");
    if (!p.ok()) return p.status();
    absl::StatusOr<std::vector<std::pair<std::string, std::string>>> parms =
        ParseParametersConf(*p, parm);
    if (!parms.ok()) return parms.status();
    d.parameters = std::move(*parms);
  }
  return d;
}

}  // namespace cellsim::sqlrun
