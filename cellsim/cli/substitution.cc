#include "cellsim/cli/substitution.h"

#include <algorithm>
#include <cctype>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_split.h"
#include "fmt/format.h"

namespace cellsim::cli {
namespace {

bool IsNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '#';
}

std::string Upper(std::string_view s) { return absl::AsciiStrToUpper(absl::string_view(s.data(), s.size())); }

std::string_view Trimmed(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && (std::isspace(static_cast<unsigned char>(s.back())) || s.back() == ';')) {
    s.remove_suffix(1);
  }
  return s;
}

std::string DefineLine(const std::string& name, const std::string& value) {
  return fmt::format("DEFINE {:<15} = \"{}\" (CHAR)\n", name, value);
}

std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> lines;
  for (absl::string_view l : absl::StrSplit(absl::string_view(text.data(), text.size()), '\n')) {
    lines.emplace_back(l.data(), l.size());
  }
  return lines;
}

}  // namespace

SubstitutionVariables::SubstitutionVariables() {
  values_["_USER"] = "CELLSIM";
  values_["_CONNECT_IDENTIFIER"] = "cellsim";
}

void SubstitutionVariables::Define(std::string_view name, std::string value) {
  values_[Upper(name)] = std::move(value);
}

std::optional<absl::StatusOr<std::string>> SubstitutionVariables::Command(std::string_view text) {
  std::string_view rest = Trimmed(text);
  size_t word_end = 0;
  while (word_end < rest.size() && !std::isspace(static_cast<unsigned char>(rest[word_end]))) {
    ++word_end;
  }
  const std::string word = Upper(rest.substr(0, word_end));
  const bool define = word == "DEFINE" || word == "DEF";
  if (!define && word != "UNDEFINE" && word != "UNDEF") return std::nullopt;
  rest = Trimmed(rest.substr(word_end));
  if (!define) {  // UNDEFINE a [b ...]
    for (absl::string_view n : absl::StrSplit(absl::string_view(rest.data(), rest.size()),
                                              absl::ByAnyChar(" \t"), absl::SkipEmpty())) {
      values_.erase(Upper(std::string_view(n.data(), n.size())));
    }
    return absl::StatusOr<std::string>("");
  }
  if (rest.empty()) {  // DEFINE: every variable
    std::string all;
    for (const auto& [name, value] : values_) all += DefineLine(name, value);
    return absl::StatusOr<std::string>(all);
  }
  const size_t eq = rest.find('=');
  const std::string name = Upper(Trimmed(rest.substr(0, eq)));
  if (name.empty() || !std::all_of(name.begin(), name.end(), IsNameChar)) {
    return absl::StatusOr<std::string>(absl::InvalidArgumentError(fmt::format(
        "SP2-0552: \"{}\" is not a valid substitution variable name (DEFINE name = value)",
        rest.substr(0, eq))));
  }
  if (eq == std::string_view::npos) {  // DEFINE x: its value
    auto it = values_.find(name);
    if (it == values_.end()) {
      return absl::StatusOr<std::string>(
          absl::NotFoundError(fmt::format("SP2-0135: symbol {} is UNDEFINED", name)));
    }
    return absl::StatusOr<std::string>(DefineLine(name, it->second));
  }
  std::string_view value = Trimmed(rest.substr(eq + 1));
  if (value.size() >= 2 && (value.front() == '\'' || value.front() == '"') &&
      value.back() == value.front()) {
    value = value.substr(1, value.size() - 2);
  }
  values_[name] = std::string(value);
  return absl::StatusOr<std::string>("");
}

absl::Status SubstitutionVariables::SetDefine(std::string_view value) {
  const std::string v = Upper(value);
  if (v == "OFF") {
    enabled_ = false;
  } else if (v == "ON") {
    enabled_ = true;
    prefix_ = '&';
  } else if (v.size() == 1 && !std::isalnum(static_cast<unsigned char>(v[0])) &&
             !std::isspace(static_cast<unsigned char>(v[0]))) {
    enabled_ = true;
    prefix_ = v[0];
  } else {
    return absl::InvalidArgumentError(fmt::format(
        "SP2-0268: define option not a valid character ('{}': ON, OFF or one character)", value));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> SubstitutionVariables::Substitute(std::string_view text, const Ask& ask,
                                                              std::string* verify) {
  if (!enabled_ || text.find(prefix_) == std::string_view::npos) return std::string(text);
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const bool twice = text[i] == prefix_ && i + 1 < text.size() && text[i + 1] == prefix_;
    const size_t name_at = i + (twice ? 2 : 1);
    size_t end = name_at;
    while (text[i] == prefix_ && end < text.size() && IsNameChar(text[end])) ++end;
    if (text[i] != prefix_ || end == name_at) {  // not a variable: `&` alone stays
      out += text[i++];
      continue;
    }
    const std::string name = Upper(text.substr(name_at, end - name_at));
    auto it = values_.find(name);
    std::string value;
    if (it != values_.end()) {
      value = it->second;
    } else {
      std::optional<std::string> asked = ask ? ask(name) : std::nullopt;
      if (!asked) {
        return absl::InvalidArgumentError(fmt::format(
            "SP2-0546: substitution variable {}{} has no value: DEFINE {} = value first (or "
            "--define {}=value; SET DEFINE OFF takes {} as it is)",
            twice ? std::string(2, prefix_) : std::string(1, prefix_), name, name, name, prefix_));
      }
      value = *asked;
      if (twice) values_[name] = value;
    }
    out += value;
    i = end < text.size() && text[end] == '.' ? end + 1 : end;  // `&x.` ends the name
  }
  if (verify_ && verify != nullptr && out != text) {
    const std::vector<std::string_view> before = Lines(text), after = Lines(out);
    for (size_t l = 0; l < before.size() && l < after.size(); ++l) {
      if (before[l] == after[l]) continue;
      *verify += fmt::format("old{:4}: {}\nnew{:4}: {}\n", l + 1, before[l], l + 1, after[l]);
    }
  }
  return out;
}

}  // namespace cellsim::cli
