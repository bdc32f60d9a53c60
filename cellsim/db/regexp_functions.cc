#include "cellsim/db/regexp_functions.h"

#include <fmt/format.h>

#include <cmath>
#include <list>
#include <regex>
#include <string>
#include <utility>

#include "cellsim/base/user_regex.h"
#include "cellsim/db/sql_functions.h"

namespace cellsim::db::internal {
namespace {

absl::Status Ora(const std::string& what) { return absl::InvalidArgumentError(what); }

// A pattern compiled with its flags; the last 16 a thread used are kept (a
// query compiles its pattern once, not per row).
absl::StatusOr<const std::regex*> Compiled(const std::string& pattern, const std::string& match) {
  std::regex::flag_type flags = std::regex::ECMAScript;
  bool dot_all = false;
  for (char c : match) {
    if (c == 'i') {
      flags |= std::regex::icase;
    } else if (c == 'c') {
      flags &= ~std::regex::icase;
    } else if (c == 'n') {
      dot_all = true;
    } else if (c == 'm') {
      flags |= std::regex::multiline;
    } else {
      return Ora(fmt::format("ORA-01760: illegal argument for function (match parameter '{}': "
                             "cellsim takes i, c, n and m)", match));
    }
  }
  // libstdc++'s std::regex overflows on huge repeat counts and builds a
  // state per repetition: the limits the other user patterns have.
  if (absl::Status st = ::cellsim::internal::CheckUserRegex(
          pattern, "ORA-12733: regular expression too long");
      !st.ok()) {
    return st;
  }
  // 'n': '.' matches a newline too (ECMAScript's does not): outside a
  // bracket expression, an unescaped '.' becomes [\s\S].
  std::string source = pattern;
  if (dot_all) {
    source.clear();
    bool bracket = false;
    for (size_t i = 0; i < pattern.size(); ++i) {
      const char c = pattern[i];
      if (c == '\\' && i + 1 < pattern.size()) {
        source += pattern.substr(i++, 2);
        continue;
      }
      if (c == '[') bracket = true;
      if (c == ']') bracket = false;
      source += !bracket && c == '.' ? std::string("[\\s\\S]") : std::string(1, c);
    }
  }
  struct Entry {
    std::string source;
    std::regex::flag_type flags;
    std::regex re;
  };
  thread_local std::list<Entry> cache;
  for (auto it = cache.begin(); it != cache.end(); ++it) {
    if (it->source == source && it->flags == flags) {
      cache.splice(cache.begin(), cache, it);
      return &cache.front().re;
    }
  }
  try {
    cache.push_front(Entry{source, flags, std::regex(source, flags)});
  } catch (const std::regex_error& e) {
    const char* why = e.code() == std::regex_constants::error_paren
                          ? "ORA-12725: unmatched parentheses in regular expression"
                      : e.code() == std::regex_constants::error_brack
                          ? "ORA-12726: unmatched bracket in regular expression"
                      : e.code() == std::regex_constants::error_backref
                          ? "ORA-12727: invalid back reference in regular expression"
                      : e.code() == std::regex_constants::error_range
                          ? "ORA-12728: invalid range in regular expression"
                          : "ORA-12722: regular expression internal error";
    return Ora(fmt::format("{} ('{}': {})", why, pattern, e.what()));
  }
  if (cache.size() > 16) cache.pop_back();
  return &cache.front().re;
}

// An argument that must be a positive whole number (a position, an
// occurrence), or ORA-01428.
absl::StatusOr<size_t> Positive(const Value& v, bool zero_ok) {
  absl::StatusOr<double> d = ToNumber(v);
  if (!d.ok()) return d.status();
  const double t = std::trunc(*d);
  if (t < (zero_ok ? 0 : 1)) {
    return Ora(fmt::format("ORA-01428: argument '{}' is out of range", ValueText(v)));
  }
  return static_cast<size_t>(t);
}

// The n-th match (1-based) of `re` in `s` at or after byte `from`.
std::optional<std::smatch> NthMatch(const std::string& s, const std::regex& re, size_t from,
                                    size_t n) {
  auto it = std::sregex_iterator(s.begin() + static_cast<std::ptrdiff_t>(from), s.end(), re);
  for (size_t k = 1; it != std::sregex_iterator(); ++it, ++k) {
    if (k == n) return *it;
  }
  return std::nullopt;
}

// Oracle's replacement text: \1 .. \9 are the groups, \\ a backslash.
std::string Expand(const std::smatch& m, const std::string& replacement) {
  std::string out;
  for (size_t i = 0; i < replacement.size(); ++i) {
    const char c = replacement[i];
    if (c == '\\' && i + 1 < replacement.size()) {
      const char d = replacement[i + 1];
      if (d >= '1' && d <= '9') {
        const auto g = static_cast<size_t>(d - '0');
        if (g < m.size()) out += m[g].str();
        ++i;
        continue;
      }
      if (d == '\\') {
        out += '\\';
        ++i;
        continue;
      }
    }
    out += c;
  }
  return out;
}

struct Args {
  const std::vector<Value>& a;
  // Argument i as text; "" when absent or NULL.
  std::string Text(size_t i) const { return i < a.size() && !a[i].is_null() ? ValueText(a[i]) : ""; }
  bool Null(size_t i) const { return i < a.size() && a[i].is_null(); }
};

absl::StatusOr<Value> Replace(const Args& x) {
  const std::vector<Value>& a = x.a;
  const std::string s = x.Text(0);
  if (x.Null(1)) return Value::Str(s);  // no pattern: the source
  size_t position = 1, occurrence = 0;
  if (a.size() > 3) {
    absl::StatusOr<size_t> p = Positive(a[3], false);
    if (!p.ok()) return p.status();
    position = *p;
  }
  if (a.size() > 4) {
    absl::StatusOr<size_t> o = Positive(a[4], true);
    if (!o.ok()) return o.status();
    occurrence = *o;
  }
  absl::StatusOr<const std::regex*> re = Compiled(x.Text(1), x.Text(5));
  if (!re.ok()) return re.status();
  if (position > s.size()) return Value::Str(s);
  const std::string replacement = x.Text(2);
  std::string out = s.substr(0, position - 1);
  size_t done = position - 1;
  size_t k = 0;
  for (auto it = std::sregex_iterator(s.begin() + static_cast<std::ptrdiff_t>(position - 1),
                                      s.end(), **re);
       it != std::sregex_iterator(); ++it) {
    ++k;
    const size_t at = position - 1 + static_cast<size_t>(it->position());
    if (occurrence != 0 && k != occurrence) continue;
    out += s.substr(done, at - done) + Expand(*it, replacement);
    done = at + static_cast<size_t>(it->length());
    if (occurrence != 0) break;
  }
  out += s.substr(done);
  if (out.size() > kMaxVarchar2) {
    return Ora(fmt::format("ORA-01489: result of string concatenation is too long ({} bytes)",
                           out.size()));
  }
  return out.empty() ? Value::Null() : Value::Str(out);
}

// REGEXP_SUBSTR and REGEXP_INSTR: the occurrence's text or position.
absl::StatusOr<Value> Find(std::string_view f, const Args& x) {
  const std::vector<Value>& a = x.a;
  const bool instr = f == "REGEXP_INSTR";
  size_t position = 1, occurrence = 1, return_end = 0, group = 0;
  for (size_t i = 2; i < a.size(); ++i) {
    const bool match_arg = i == (instr ? 5u : 4u);
    if (match_arg || a[i].is_null()) continue;
    const bool zero_ok = (instr && i == 4) || i == (instr ? 6u : 5u);
    absl::StatusOr<size_t> v = Positive(a[i], zero_ok);
    if (!v.ok()) return v.status();
    if (i == 2) position = *v;
    else if (i == 3) occurrence = *v;
    else if (instr && i == 4) return_end = *v;
    else group = *v;
  }
  absl::StatusOr<const std::regex*> re = Compiled(x.Text(1), x.Text(instr ? 5 : 4));
  if (!re.ok()) return re.status();
  const std::string s = x.Text(0);
  const Value none = instr ? Value::Num(0) : Value::Null();
  if (position > s.size()) return none;
  std::optional<std::smatch> m = NthMatch(s, **re, position - 1, occurrence);
  if (!m || group >= m->size() || !(*m)[group].matched) return none;
  const size_t at = position - 1 + static_cast<size_t>(m->position(group));
  if (!instr) {
    const std::string text = m->str(group);
    return text.empty() ? Value::Null() : Value::Str(text);
  }
  return Value::Num(static_cast<double>(at + 1 + (return_end != 0 ? m->length(group) : 0)));
}

}  // namespace

std::optional<absl::StatusOr<Value>> RegexpFunction(std::string_view f,
                                                    const std::vector<Value>& a) {
  struct Arity {
    std::string_view name;
    size_t min, max;
  };
  static constexpr Arity kArity[] = {{"REGEXP_LIKE", 2, 3},    {"REGEXP_COUNT", 2, 4},
                                     {"REGEXP_INSTR", 2, 7},   {"REGEXP_SUBSTR", 2, 6},
                                     {"REGEXP_REPLACE", 2, 6}};
  const Arity* arity = nullptr;
  for (const Arity& k : kArity) {
    if (k.name == f) arity = &k;
  }
  if (arity == nullptr) return std::nullopt;
  if (a.size() < arity->min || a.size() > arity->max) {
    return Ora(fmt::format("ORA-00909: invalid number of arguments ({} takes {} to {})", f,
                           arity->min, arity->max));
  }
  const Args x{a};
  if (a[0].is_null()) return Value::Null();
  if (f == "REGEXP_REPLACE") return Replace(x);
  if (x.Null(1)) return Value::Null();
  if (f == "REGEXP_LIKE") {
    absl::StatusOr<const std::regex*> re = Compiled(x.Text(1), x.Text(2));
    if (!re.ok()) return re.status();
    const std::string s = x.Text(0);
    return Value::Num(std::regex_search(s, **re) ? 1 : 0);
  }
  if (f == "REGEXP_COUNT") {
    size_t position = 1;
    if (a.size() > 2 && !a[2].is_null()) {
      absl::StatusOr<size_t> p = Positive(a[2], false);
      if (!p.ok()) return p.status();
      position = *p;
    }
    absl::StatusOr<const std::regex*> re = Compiled(x.Text(1), x.Text(3));
    if (!re.ok()) return re.status();
    const std::string s = x.Text(0);
    if (position > s.size()) return Value::Num(0);
    const auto begin = s.begin() + static_cast<std::ptrdiff_t>(position - 1);
    return Value::Num(static_cast<double>(
        std::distance(std::sregex_iterator(begin, s.end(), **re), std::sregex_iterator())));
  }
  return Find(f, x);
}

}  // namespace cellsim::db::internal
