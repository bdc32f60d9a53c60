// SQL's operators and single-row functions on values (sql_functions.h).
#include "cellsim/db/sql_functions.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <set>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_split.h"
#include "cellsim/db/regexp_functions.h"

namespace cellsim::db::internal {
namespace {

absl::Status Ora(std::string_view text) { return absl::InvalidArgumentError(std::string(text)); }

}  // namespace

absl::Status InconsistentTypes(std::string_view expected, std::string_view got) {
  return Ora(fmt::format("ORA-00932: inconsistent datatypes: expected {} got {}", expected, got));
}

int Compare(const Value& a, const Value& b) {
  if (a.kind == Value::Kind::kNumber && b.kind == Value::Kind::kNumber) {
    return a.number < b.number ? -1 : a.number > b.number ? 1 : 0;
  }
  // A datetime against text: the text in the session's format for the
  // datetime's type, as Oracle's implicit conversion (`where hired >=
  // '01-JAN-26'`).
  if ((a.is_datetime() && b.kind == Value::Kind::kString) || (b.is_datetime() && a.kind == Value::Kind::kString)) {
    absl::StatusOr<Value> d = a.is_datetime() ? ConvertLike(b, a) : ConvertLike(a, b);
    if (d.ok()) {
      const double x = a.is_datetime() ? a.number : d->number;
      const double y = b.is_datetime() ? b.number : d->number;
      return x < y ? -1 : x > y ? 1 : 0;
    }
  }
  if (a.kind == Value::Kind::kNumber || b.kind == Value::Kind::kNumber) {
    // Text against a number: the text read as one (0 when it is none).
    std::string ignored;
    auto num = [&](const Value& v) {
      return v.kind == Value::Kind::kNumber ? v.number : NumberFromText(v.text, &ignored).value_or(0);
    };
    const double dx = num(a), dy = num(b);
    return dx < dy ? -1 : dx > dy ? 1 : 0;
  }
  if (a.kind == Value::Kind::kString && b.kind == Value::Kind::kString) {
    const int c = a.text.compare(b.text);  // ValueText's text, without copying it
    return c < 0 ? -1 : c > 0 ? 1 : 0;
  }
  const std::string x = ValueText(a), y = ValueText(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

absl::StatusOr<int> CompareConverting(const Value& a, const Value& b) {
  const bool a_text = a.kind == Value::Kind::kString, b_text = b.kind == Value::Kind::kString;
  if (a_text == b_text) {
    if (!a_text && (a.is_datetime() != b.is_datetime() || a.is_interval() != b.is_interval())) {
      return InconsistentTypes(TypeName(a), TypeName(b));
    }
    return Compare(a, b);
  }
  const Value& text = a_text ? a : b;
  const Value& other = a_text ? b : a;
  absl::StatusOr<Value> converted = ConvertLike(text, other);
  if (!converted.ok()) return converted.status();
  return a_text ? Compare(*converted, b) : Compare(a, *converted);
}

absl::StatusOr<Value> ConvertLike(const Value& v, const Value& like) {
  if (like.kind == Value::Kind::kString) {
    return v.kind == Value::Kind::kString ? v : Value::Str(ValueText(v));
  }
  if (like.is_interval()) {
    if (v.is_interval()) return v;
    return InconsistentTypes(TypeName(like), TypeName(v));
  }
  if (!like.is_datetime()) {
    absl::StatusOr<double> d = ToNumber(v);
    if (!d.ok()) return d.status();
    return Value::Num(*d);
  }
  if (v.is_datetime()) return v;
  if (v.kind == Value::Kind::kNumber) return InconsistentTypes(TypeName(like), TypeName(v));
  if (like.temporal == Temporal::kDate) {
    absl::StatusOr<int64_t> d = ParseDate(v.text, CurrentNlsFormats().date, 0);
    if (!d.ok()) return d.status();
    return Value::Date(*d);
  }
  return TimestampFromText(v.text, CurrentNlsFormats().timestamp, 0);
}

absl::StatusOr<Value> TimestampFromText(std::string_view text, std::string_view format,
                                        int64_t now_unix) {
  absl::StatusOr<Datetime> t = ParseDatetime(text, format, now_unix, 9);
  if (!t.ok()) return t.status();
  return TimestampFrom(*t, 9);
}

absl::StatusOr<double> ToNumber(const Value& v) {
  if (v.temporal != Temporal::kNone) return InconsistentTypes("NUMBER", TypeName(v));
  if (v.kind == Value::Kind::kNumber) return v.number;
  std::string error;
  if (std::optional<double> d = NumberFromText(v.text, &error)) return *d;
  return Ora(error);
}

namespace {
absl::Status TooLong(size_t bytes) {
  return Ora(fmt::format("ORA-01489: result of string concatenation is too long ({} bytes; a "
                         "VARCHAR2 holds {})", bytes, kMaxVarchar2));
}
}  // namespace

absl::StatusOr<Value> Concatenate(const Value& a, const Value& b) {
  std::string s = ValueText(a) + ValueText(b);  // NULL is '' here
  if (s.size() > kMaxVarchar2) return TooLong(s.size());
  return Value::Str(std::move(s));
}

namespace {

// Arithmetic with an INTERVAL DAY TO SECOND (Oracle's datetime/interval
// arithmetic): interval ± interval and interval * / number are intervals; a
// datetime ± an interval is that datetime's type moved by it (a DATE to the
// second); the rest is ORA-00932.
absl::StatusOr<Value> IntervalArithmetic(std::string_view op, const Value& a, const Value& b) {
  const int precision = std::max(a.is_interval() ? a.precision : 0, b.is_interval() ? b.precision : 0);
  const bool additive = op == "+" || op == "-";
  if (a.is_interval() && b.is_interval() && additive) {
    return Value::Interval(op == "+" ? a.number + b.number : a.number - b.number, precision);
  }
  if (additive && (a.is_datetime() || (b.is_datetime() && op == "+"))) {
    const Value& t = a.is_datetime() ? a : b;
    const double seconds = a.is_datetime() ? (op == "+" ? b.number : -b.number) : a.number;
    if (t.temporal == Temporal::kDate) {
      return Value::Date(static_cast<int64_t>(std::floor(t.number + seconds)));
    }
    Value r = t;
    r.number += seconds;
    return r;
  }
  if ((op == "*" && (a.is_number() || b.is_number())) || (op == "/" && b.is_number())) {
    const Value& i = a.is_interval() ? a : b;
    absl::StatusOr<double> n = ToNumber(a.is_interval() ? b : a);
    if (!n.ok()) return n.status();
    if (op == "/" && *n == 0) return Ora("ORA-01476: divisor is equal to zero");
    return Value::Interval(op == "*" ? i.number * *n : i.number / *n, i.precision);
  }
  return InconsistentTypes(TypeName(a.is_interval() ? a : b), TypeName(a.is_interval() ? b : a));
}

}  // namespace

absl::StatusOr<Value> Arithmetic(std::string_view op, const Value& a, const Value& b) {
  if (a.is_interval() || b.is_interval()) return IntervalArithmetic(op, a, b);
  if (a.is_datetime() || b.is_datetime()) {
    if (a.is_datetime() && b.is_datetime()) {
      // DATE - DATE: days; with a TIMESTAMP: an INTERVAL DAY(9) TO SECOND(9).
      if (op == "-" && (a.is_timestamp() || b.is_timestamp())) {
        return Value::Interval(a.number - b.number);
      }
      if (op == "-") return Value::Num((a.number - b.number) / kDaySeconds);
      if (op == "+" && (a.is_timestamp() || b.is_timestamp())) {
        return Ora("ORA-30087: Adding two datetime values is not allowed");
      }
      if (op == "+") return Ora("ORA-00975: date + date not allowed");
      return InconsistentTypes("NUMBER", TypeName(a));
    }
    // A datetime ± days: a DATE (a TIMESTAMP's fraction dropped first).
    const Value& date = a.is_datetime() ? a : b;
    absl::StatusOr<double> days = ToNumber(a.is_datetime() ? b : a);
    if (!days.ok()) return days.status();
    if (op == "+" || (op == "-" && a.is_datetime())) {
      const double delta = std::round(*days * kDaySeconds);
      const auto whole = static_cast<double>(DatetimeOf(date).unix);
      return Value::Date(static_cast<int64_t>(whole + (op == "+" ? delta : -delta)));
    }
    return InconsistentTypes("NUMBER", TypeName(date));
  }
  absl::StatusOr<double> x = ToNumber(a);
  if (!x.ok()) return x.status();
  absl::StatusOr<double> y = ToNumber(b);
  if (!y.ok()) return y.status();
  if (op == "/" && *y == 0) return Ora("ORA-01476: divisor is equal to zero");
  return Finite(op == "+" ? *x + *y : op == "-" ? *x - *y : op == "*" ? *x * *y : *x / *y);
}

absl::StatusOr<Value> Finite(double d) {
  if (!std::isfinite(d)) return Ora("ORA-01426: numeric overflow");
  return Value::Num(d);
}

std::string_view ScalarFunctionNames() {
  return "ABS, ADD_MONTHS, CEIL, COALESCE, CONCAT, DECODE, EXP, FLOOR, GREATEST, INITCAP, INSTR, "
         "LAST_DAY, LEAST, LENGTH, LN, LOWER, LPAD, LTRIM, MOD, NULLIF, NVL, NVL2, POWER, REPLACE, "
         "REGEXP_COUNT, REGEXP_INSTR, REGEXP_LIKE, REGEXP_REPLACE, REGEXP_SUBSTR, ROUND, RPAD, "
         "NUMTODSINTERVAL, RTRIM, SIGN, SQRT, SUBSTR, SYS_CONTEXT, TO_CHAR, TO_DATE, TO_NUMBER, "
         "TO_TIMESTAMP, TRIM, TRUNC, UPPER";
}

bool IsScalarFunction(std::string_view name) {
  static const std::set<std::string, std::less<>> names = [] {
    std::set<std::string, std::less<>> set;
    const std::string_view all = ScalarFunctionNames();
    for (absl::string_view n : absl::StrSplit(absl::string_view(all.data(), all.size()), ", ")) {
      set.emplace(n);
    }
    return set;
  }();
  return names.find(name) != names.end();
}

namespace {

absl::StatusOr<Value> NumValue(const absl::StatusOr<double>& d) {
  if (!d.ok()) return d.status();
  return Value::Num(*d);
}

// TO_CHAR(number, format) for the digits-and-separators models: 9 and 0,
// one '.' (or D), ',' (or G), a leading FM or $.
absl::StatusOr<std::string> FormatNumber(double x, std::string_view format) {
  std::string f = absl::AsciiStrToUpper(std::string(format));
  bool fill = false, dollar = false;
  if (f.rfind("FM", 0) == 0) {
    fill = true;
    f = f.substr(2);
  }
  if (!f.empty() && f[0] == '$') {
    dollar = true;
    f = f.substr(1);
  }
  const size_t dot = f.find_first_of(".D");
  const std::string int_part = f.substr(0, dot);
  const std::string frac_part = dot == std::string::npos ? "" : f.substr(dot + 1);
  size_t int_digits = 0, min_int = 0;
  for (size_t k = 0; k < int_part.size(); ++k) {
    const char c = int_part[k];
    if (c == '9' || c == '0') {
      ++int_digits;
      if (c == '0' && min_int == 0) min_int = int_part.size() - k;  // digits from the first 0
    } else if (c != ',' && c != 'G') {
      return Ora(fmt::format("ORA-01481: invalid number format model ('{}')", format));
    }
  }
  for (char c : frac_part) {
    if (c != '9' && c != '0') return Ora(fmt::format("ORA-01481: invalid number format model ('{}')", format));
  }
  const double r = RoundDecimal(std::fabs(x), static_cast<int64_t>(frac_part.size()), false);
  std::string digits = fmt::format("{:.{}f}", r, frac_part.size());
  std::string ip = digits.substr(0, digits.find('.'));
  const std::string fp = frac_part.empty() ? "" : digits.substr(digits.find('.') + 1);
  if (ip == "0" && min_int == 0) ip.clear();
  if (ip.size() > int_digits) {
    return std::string(int_part.size() + frac_part.size() + (dot != std::string::npos) + 1, '#');
  }
  // Lay the integer digits into the model right to left.
  std::string out;
  size_t d = ip.size();
  for (size_t k = int_part.size(); k-- > 0;) {
    const char c = int_part[k];
    const size_t from_right = int_part.size() - k;
    if (c == ',' || c == 'G') {
      if (d > 0) out.insert(out.begin(), ',');
      else if (!fill) out.insert(out.begin(), ' ');
      continue;
    }
    if (d > 0) out.insert(out.begin(), ip[--d]);
    else if (min_int != 0 && from_right <= min_int) out.insert(out.begin(), '0');
    else if (!fill) out.insert(out.begin(), ' ');
  }
  if (dot != std::string::npos) out += "." + fp;
  // The sign's place, then the digits' padding ahead of it.
  size_t lead = 0;
  while (lead < out.size() && out[lead] == ' ') ++lead;
  const std::string sign = x < 0 ? "-" : (fill ? "" : " ");
  out = out.substr(0, lead) + sign + (dollar ? "$" : "") + out.substr(lead);
  return out;
}

// One call of a single-row function: its name, evaluated arguments and the
// statement's SYSDATE, with the helpers its groups share. Each group answers
// nullopt for a name it does not have.
class Call {
 public:
  using R = absl::StatusOr<Value>;
  Call(std::string_view f, const std::vector<Value>& a, int64_t now_unix)
      : f(f), a(a), n(a.size()), now_unix(now_unix) {}

  std::optional<R> NullAware() const;
  std::optional<R> Text() const;
  std::optional<R> Dates() const;
  std::optional<R> Numbers() const;
  R CastTo() const;
  R Extract() const;

  bool arity(size_t lo, size_t hi) const { return n >= lo && n <= hi; }
  R wrong() const {
    return Ora(fmt::format("ORA-00909: invalid number of arguments ({} to {})", n, f));
  }
  bool any_null() const {
    return std::any_of(a.begin(), a.end(), [](const Value& v) { return v.is_null(); });
  }
  std::string text(size_t i) const { return ValueText(a[i]); }
  absl::StatusOr<double> number(size_t i) const { return ToNumber(a[i]); }

  std::string_view f;
  const std::vector<Value>& a;
  size_t n;
  int64_t now_unix;
};

// Functions that look at NULLs themselves.
std::optional<Call::R> Call::NullAware() const {
  if (f == "NVL") return arity(2, 2) ? R(a[0].is_null() ? a[1] : a[0]) : wrong();
  if (f == "NVL2") return arity(3, 3) ? R(a[0].is_null() ? a[2] : a[1]) : wrong();
  if (f == "COALESCE") {
    if (n < 1) return wrong();
    for (const Value& v : a) {
      if (!v.is_null()) return R(v);
    }
    return R(Value::Null());
  }
  if (f == "NULLIF") {
    if (!arity(2, 2)) return wrong();
    if (a[0].is_null() || a[1].is_null()) return R(a[0]);
    // One datatype, as Oracle requires (no conversion).
    if (TypeName(a[0]) != TypeName(a[1])) return InconsistentTypes(TypeName(a[0]), TypeName(a[1]));
    return R(Compare(a[0], a[1]) == 0 ? Value::Null() : a[0]);
  }
  if (f == "DECODE") {
    if (n < 3) return wrong();
    // expr and each search value are converted to the first search value's
    // datatype (DECODE(1, '01', ...) compares '1' with '01').
    for (size_t k = 1; k + 1 < n; k += 2) {
      if (a[0].is_null() || a[k].is_null()) {
        if (a[0].is_null() && a[k].is_null()) return R(a[k + 1]);
        continue;
      }
      const Value& like = a[1].is_null() ? a[0] : a[1];
      absl::StatusOr<Value> x = ConvertLike(a[0], like);
      if (!x.ok()) return x;
      absl::StatusOr<Value> y = ConvertLike(a[k], like);
      if (!y.ok()) return y;
      if (Compare(*x, *y) == 0) return R(a[k + 1]);
    }
    return R(n % 2 == 0 ? a[n - 1] : Value::Null());
  }
  if (f == "CONCAT") return arity(2, 2) ? Concatenate(a[0], a[1]) : wrong();
  if (f == "REPLACE") {
    if (!arity(2, 3)) return wrong();
    if (a[0].is_null()) return R(Value::Null());
    std::string s = text(0);
    const std::string from = text(1), to = n > 2 ? text(2) : "";
    if (from.empty()) return R(Value::Str(s));
    std::string out;
    for (size_t pos = 0;;) {
      const size_t hit = s.find(from, pos);
      if (hit == std::string::npos) {
        out += s.substr(pos);
        break;
      }
      out += s.substr(pos, hit - pos) + to;
      pos = hit + from.size();
    }
    if (out.size() > kMaxVarchar2) return R(TooLong(out.size()));
    return R(Value::Str(out));
  }

  return std::nullopt;
}

// Text functions (their arguments not NULL).
std::optional<Call::R> Call::Text() const {
  if (f == "LOWER" || f == "UPPER" || f == "INITCAP") {
    if (!arity(1, 1)) return wrong();
    std::string s = text(0);
    if (f == "LOWER") return R(Value::Str(absl::AsciiStrToLower(s)));
    if (f == "UPPER") return R(Value::Str(absl::AsciiStrToUpper(s)));
    bool start = true;
    for (char& c : s) {
      c = start ? absl::ascii_toupper(c) : absl::ascii_tolower(c);
      start = !absl::ascii_isalnum(c);
    }
    return R(Value::Str(s));
  }
  if (f == "LENGTH") return arity(1, 1) ? R(Value::Num(static_cast<double>(text(0).size()))) : wrong();
  if (f == "SUBSTR") {
    if (!arity(2, 3)) return wrong();
    const std::string s = text(0);
    absl::StatusOr<double> pos = number(1);
    if (!pos.ok()) return pos.status();
    auto p = static_cast<int64_t>(std::trunc(*pos));
    const auto len = static_cast<int64_t>(s.size());
    if (p == 0) p = 1;
    if (p < 0) p = len + p + 1;
    if (p < 1 || p > len) return R(Value::Null());
    int64_t count = len - p + 1;
    if (n > 2) {
      absl::StatusOr<double> c = number(2);
      if (!c.ok()) return c.status();
      if (*c < 1) return R(Value::Null());
      count = std::min<int64_t>(count, static_cast<int64_t>(std::trunc(*c)));
    }
    return R(Value::Str(s.substr(static_cast<size_t>(p - 1), static_cast<size_t>(count))));
  }
  if (f == "INSTR") {
    if (!arity(2, 4)) return wrong();
    const std::string s = text(0), sub = text(1);
    int64_t start = 1, occurrence = 1;
    if (n > 2) {
      absl::StatusOr<double> v = number(2);
      if (!v.ok()) return v.status();
      start = static_cast<int64_t>(*v);
    }
    if (n > 3) {
      absl::StatusOr<double> v = number(3);
      if (!v.ok()) return v.status();
      occurrence = static_cast<int64_t>(*v);
    }
    if (start == 0) return R(Value::Num(0));
    if (occurrence < 1) {
      return R(absl::InvalidArgumentError(
          fmt::format("ORA-01428: argument '{}' is out of range", occurrence)));
    }
    const auto len = static_cast<int64_t>(s.size());
    int64_t found = 0;
    if (start > 0) {
      for (int64_t p = start - 1; p + static_cast<int64_t>(sub.size()) <= len; ++p) {
        if (s.compare(static_cast<size_t>(p), sub.size(), sub) == 0 && ++found == occurrence) {
          return R(Value::Num(static_cast<double>(p + 1)));
        }
      }
    } else {
      for (int64_t p = std::min(len + start, len - static_cast<int64_t>(sub.size())); p >= 0; --p) {
        if (s.compare(static_cast<size_t>(p), sub.size(), sub) == 0 && ++found == occurrence) {
          return R(Value::Num(static_cast<double>(p + 1)));
        }
      }
    }
    return R(Value::Num(0));
  }
  if (f == "TRIM" || f == "LTRIM" || f == "RTRIM") {
    if (!arity(1, f == "TRIM" ? 1 : 2)) return wrong();
    const std::string s = text(0), set = n > 1 ? text(1) : " ";
    size_t b = 0, e = s.size();
    if (f != "RTRIM") {
      while (b < e && set.find(s[b]) != std::string::npos) ++b;
    }
    if (f != "LTRIM") {
      while (e > b && set.find(s[e - 1]) != std::string::npos) --e;
    }
    return R(Value::Str(s.substr(b, e - b)));
  }
  if (f == "LPAD" || f == "RPAD") {
    if (!arity(2, 3)) return wrong();
    const std::string s = text(0), pad = n > 2 ? text(2) : " ";
    absl::StatusOr<double> w = number(1);
    if (!w.ok()) return w.status();
    if (*w < 1) return R(Value::Null());
    // A VARCHAR2 result holds at most 4,000 bytes: Oracle cuts it there.
    const auto width = static_cast<size_t>(std::min(*w, static_cast<double>(kMaxVarchar2)));
    if (s.size() >= width) return R(Value::Str(s.substr(0, width)));
    std::string fill;
    while (fill.size() < width - s.size()) fill += pad;
    fill.resize(width - s.size());
    return R(Value::Str(f == "LPAD" ? fill + s : s + fill));
  }
  if (f == "GREATEST" || f == "LEAST") {
    // Every argument converted to the first's datatype (none is NULL here).
    Value best = a[0];
    for (size_t k = 1; k < n; ++k) {
      absl::StatusOr<Value> x = ConvertLike(a[k], a[0]);
      if (!x.ok()) return x;
      const int c = Compare(*x, best);
      if ((f == "GREATEST" && c > 0) || (f == "LEAST" && c < 0)) best = *std::move(x);
    }
    return R(best);
  }
  return std::nullopt;
}

// CAST(a[0] AS a[1][(a[2][, a[3]])]): TO_NUMBER (rounded to the scale),
// TO_CHAR (ORA-25137 when longer than the length) or TO_DATE of it.
Call::R Call::CastTo() const {
  const std::string type = text(1);
  if (type == "NUMBER") {
    absl::StatusOr<double> v = number(0);  // (ORA-00932 naming a datetime's or interval's kind)
    if (!v.ok() || n < 4) return NumValue(v);
    const double scale = std::pow(10.0, a[3].number);
    return Value::Num(std::round(*v * scale) / scale);
  }
  if (type == "VARCHAR2" || type == "CHAR") {
    const std::string s = a[0].is_datetime() ? ValueText(a[0]) : text(0);
    const size_t length = n > 2 ? static_cast<size_t>(a[2].number) : (type == "CHAR" ? 1 : 4000);
    if (s.size() > length) {
      return Ora(fmt::format("ORA-25137: Data value out of range ('{}' is {} bytes, {}({}))", s,
                             s.size(), type, length));
    }
    return Value::Str(type == "CHAR" ? s + std::string(length - s.size(), ' ') : s);
  }
  if (type == "DATE") {
    if (a[0].is_datetime()) return Value::Date(DatetimeOf(a[0]).unix);
    if (a[0].kind == Value::Kind::kNumber) return InconsistentTypes("DATE", TypeName(a[0]));
    absl::StatusOr<int64_t> d = ParseDate(text(0), CurrentNlsFormats().date, now_unix);
    if (!d.ok()) return d.status();
    return Value::Date(*d);
  }
  if (type == "TIMESTAMP") {  // TIMESTAMP[(p)]: as a TIMESTAMP(p) column takes it (p 6 by default)
    const double p = n > 2 ? a[2].number : kDefaultTimestampPrecision;
    if (p < 0 || p > 9) return Ora("ORA-30088: datetime/interval precision is out of range");
    Value v = a[0];
    if (std::optional<std::string> error =
            CoerceForColumn(Column{"", ColType::kTimestamp, static_cast<uint32_t>(p)}, v)) {
      return Ora(*error);
    }
    return v;
  }
  return Ora(fmt::format(
      "ORA-00902: invalid datatype (CAST AS {}: NUMBER, VARCHAR2, CHAR, DATE or TIMESTAMP)", type));
}

// EXTRACT(field FROM a[1]): of a DATE, Oracle takes YEAR, MONTH and DAY
// (the time fields are a TIMESTAMP's: ORA-30076); of a TIMESTAMP those and
// HOUR, MINUTE, SECOND (with its fraction); of an interval DAY, HOUR,
// MINUTE and SECOND, each with the interval's sign.
Call::R Call::Extract() const {
  const std::string field = text(0);
  const Value& v = a[1];
  if (v.is_interval()) {
    const IntervalFields i = IntervalFieldsOf(v.number, v.precision);
    const double sign = i.negative ? -1 : 1;
    if (field == "DAY") return Value::Num(sign * static_cast<double>(i.days));
    if (field == "HOUR") return Value::Num(sign * i.hours);
    if (field == "MINUTE") return Value::Num(sign * i.minutes);
    if (field == "SECOND") {
      return Value::Num(sign * (i.seconds + static_cast<double>(i.fraction) / std::pow(10.0, i.digits)));
    }
    return Ora(fmt::format("ORA-30076: invalid extract field for extract source ({} of an "
                           "INTERVAL DAY TO SECOND: DAY, HOUR, MINUTE or SECOND)", field));
  }
  if (!v.is_datetime()) return InconsistentTypes("DATE", TypeName(v));
  const Datetime t = DatetimeOf(v);
  const Civil c = CivilFromUnix(t.unix);
  if (field == "YEAR") return Value::Num(static_cast<double>(c.year));
  if (field == "MONTH") return Value::Num(c.month);
  if (field == "DAY") return Value::Num(c.day);
  if (v.is_timestamp()) {
    if (field == "HOUR") return Value::Num(c.hour);
    if (field == "MINUTE") return Value::Num(c.minute);
    if (field == "SECOND") return Value::Num(c.second + t.nanos / 1e9);
    return Ora(fmt::format("ORA-30076: invalid extract field for extract source ({} of a "
                           "TIMESTAMP: YEAR, MONTH, DAY, HOUR, MINUTE or SECOND)", field));
  }
  return Ora(fmt::format("ORA-30076: invalid extract field for extract source ({} of a DATE: "
                         "YEAR, MONTH or DAY; TO_CHAR(d, 'HH24') gives the hour)", field));
}

// Conversions and DATE functions (their arguments not NULL).
std::optional<Call::R> Call::Dates() const {
  if (f == "TO_CHAR") {
    if (!arity(1, 2)) return wrong();
    if (a[0].is_datetime() && n > 1) {
      absl::StatusOr<std::string> s = FormatDatetime(DatetimeOf(a[0]), text(1));
      if (!s.ok()) return R(s.status());
      return R(Value::Str(*s));
    }
    // (An interval's text is ValueText's: its format is ignored, as Oracle's.)
    if (n == 1 || a[0].kind == Value::Kind::kString || a[0].temporal != Temporal::kNone) {
      return R(Value::Str(text(0)));
    }
    absl::StatusOr<std::string> s = FormatNumber(a[0].number, text(1));
    if (!s.ok()) return R(s.status());
    return R(Value::Str(*s));
  }
  if (f == "TO_NUMBER") return arity(1, 1) ? NumValue(number(0)) : wrong();
  if (f == "CAST") return CastTo();
  if (f == "EXTRACT") return Extract();
  if (f == "TO_TIMESTAMP") {
    if (!arity(1, 2)) return wrong();
    if (a[0].is_datetime()) return R(TimestampFrom(DatetimeOf(a[0]), 9));
    return TimestampFromText(text(0), n > 1 ? text(1) : CurrentNlsFormats().timestamp, now_unix);
  }
  if (f == "NUMTODSINTERVAL") {
    if (!arity(2, 2)) return wrong();
    absl::StatusOr<double> x = number(0);
    if (!x.ok()) return x.status();
    const std::string unit = absl::AsciiStrToUpper(text(1));
    const double seconds = unit == "DAY" ? 86400 : unit == "HOUR" ? 3600 : unit == "MINUTE" ? 60
                           : unit == "SECOND" ? 1 : 0;
    if (seconds == 0) {
      return R(Ora(fmt::format("ORA-01760: illegal argument for function (NUMTODSINTERVAL's unit "
                               "'{}': DAY, HOUR, MINUTE or SECOND)", text(1))));
    }
    return R(Value::Interval(*x * seconds));
  }
  if (f == "TO_DATE") {
    if (!arity(1, 2)) return wrong();
    if (a[0].is_datetime()) return R(a[0]);
    absl::StatusOr<int64_t> d = ParseDate(text(0), n > 1 ? text(1) : CurrentNlsFormats().date, now_unix);
    if (!d.ok()) return R(d.status());
    return R(Value::Date(*d));
  }
  if (f == "ADD_MONTHS" || f == "LAST_DAY") {
    if (!arity(f == "LAST_DAY" ? 1 : 2, f == "LAST_DAY" ? 1 : 2)) return wrong();
    if (!a[0].is_datetime()) return R(InconsistentTypes("DATE", "NUMBER"));
    Civil c = CivilFromUnix(static_cast<int64_t>(a[0].number));
    const bool last = c.day == DaysInMonth(c.year, c.month);
    if (f == "ADD_MONTHS") {
      absl::StatusOr<double> m = number(1);
      if (!m.ok()) return m.status();
      const int64_t total = c.year * 12 + (c.month - 1) + static_cast<int64_t>(std::trunc(*m));
      c.year = total >= 0 ? total / 12 : (total - 11) / 12;
      c.month = static_cast<unsigned>(total - c.year * 12 + 1);
      // Oracle: the last day stays the last day; a day past the new month's end clamps.
      if (last || c.day > DaysInMonth(c.year, c.month)) c.day = DaysInMonth(c.year, c.month);
    } else {
      c.day = DaysInMonth(c.year, c.month);
    }
    return R(Value::Date(UnixFromCivil(c)));
  }
  if ((f == "ROUND" || f == "TRUNC") && a[0].is_datetime()) {
    if (!arity(1, 2)) return wrong();
    const std::string unit = n > 1 ? absl::AsciiStrToUpper(text(1)) : "DD";
    Civil c = CivilFromUnix(static_cast<int64_t>(a[0].number));
    const bool up = f == "ROUND";
    if (unit == "DD" || unit == "DDD" || unit == "J") {
      if (up && c.hour >= 12) c = CivilFromUnix(UnixFromCivil(c) + kDaySeconds);
    } else if (unit == "MM" || unit == "MON" || unit == "MONTH") {
      if (up && c.day >= 16) c.month = c.month == 12 ? (++c.year, 1) : c.month + 1;
      c.day = 1;
    } else if (unit == "YYYY" || unit == "YEAR" || unit == "YY" || unit == "Y" || unit == "RR") {
      if (up && c.month >= 7) ++c.year;
      c.month = 1;
      c.day = 1;
    } else {
      return R(absl::InvalidArgumentError(
          fmt::format("ORA-01899: bad precision specifier ('{}': cellsim knows DD, MM, YYYY)", unit)));
    }
    c.hour = c.minute = c.second = 0;
    return R(Value::Date(UnixFromCivil(c)));
  }
  return std::nullopt;
}

// Numeric functions (their arguments not NULL).
std::optional<Call::R> Call::Numbers() const {
  // Numeric functions.
  std::vector<double> x;
  for (size_t k = 0; k < n; ++k) {
    absl::StatusOr<double> v = number(k);
    if (!v.ok()) return R(v.status());
    x.push_back(*v);
  }
  auto out_of_range = [&](double v) -> R {
    return absl::InvalidArgumentError(fmt::format("ORA-01428: argument '{}' is out of range", ValueText(Value::Num(v))));
  };
  if (f == "ROUND" || f == "TRUNC") {
    if (!arity(1, 2)) return wrong();
    return R(Value::Num(RoundDecimal(x[0], n > 1 ? static_cast<int64_t>(x[1]) : 0, f == "TRUNC")));
  }
  if (f == "POWER") return arity(2, 2) ? Finite(std::pow(x[0], x[1])) : wrong();
  if (f == "MOD") {
    if (!arity(2, 2)) return wrong();
    return R(Value::Num(x[1] == 0 ? x[0] : std::fmod(x[0], x[1])));
  }
  if (!arity(1, 1)) return wrong();
  if (f == "ABS") return R(Value::Num(std::fabs(x[0])));
  if (f == "CEIL") return R(Value::Num(std::ceil(x[0])));
  if (f == "FLOOR") return R(Value::Num(std::floor(x[0])));
  if (f == "SIGN") return R(Value::Num(x[0] > 0 ? 1 : x[0] < 0 ? -1 : 0));
  if (f == "EXP") return Finite(std::exp(x[0]));
  if (f == "SQRT") return x[0] < 0 ? out_of_range(x[0]) : R(Value::Num(std::sqrt(x[0])));
  if (f == "LN") return x[0] <= 0 ? out_of_range(x[0]) : R(Value::Num(std::log(x[0])));
  return std::nullopt;
}

}  // namespace

std::optional<absl::StatusOr<Value>> ScalarFunction(std::string_view f,
                                                    const std::vector<Value>& a,
                                                    int64_t now_unix) {
  if (std::optional<absl::StatusOr<Value>> v = RegexpFunction(f, a)) return v;
  const Call call(f, a, now_unix);
  if (std::optional<Call::R> v = call.NullAware()) return v;
  const size_t n = a.size();
  using R = Call::R;
  auto wrong = [&]() { return call.wrong(); };
  auto any_null = [&]() { return call.any_null(); };
  // The rest: NULL in, NULL out.
  static constexpr std::string_view kStrict[] = {
      "ABS", "ADD_MONTHS", "CEIL", "EXP", "FLOOR", "GREATEST", "INITCAP", "INSTR", "LAST_DAY",
      "LEAST", "LENGTH", "LN", "LOWER", "LPAD", "LTRIM", "MOD", "POWER", "ROUND", "RPAD", "RTRIM",
      "SIGN", "SQRT", "SUBSTR", "TO_CHAR", "TO_DATE", "TO_NUMBER", "TRIM", "TRUNC", "UPPER",
      "CAST", "EXTRACT", "TO_TIMESTAMP", "NUMTODSINTERVAL"};
  if (std::find(std::begin(kStrict), std::end(kStrict), f) == std::end(kStrict)) return std::nullopt;
  if (n == 0) return wrong();
  if (any_null()) {
    // Arity still matters: ORA-00909 comes first.
    const bool one = f == "ABS" || f == "CEIL" || f == "EXP" || f == "FLOOR" || f == "INITCAP" ||
                     f == "LAST_DAY" || f == "LENGTH" || f == "LN" || f == "LOWER" ||
                     f == "SIGN" || f == "SQRT" || f == "TO_NUMBER" || f == "TRIM" || f == "UPPER";
    if (one && n != 1) return wrong();
    return R(Value::Null());
  }
  if (std::optional<R> v = call.Text()) return v;
  if (std::optional<R> v = call.Dates()) return v;
  return call.Numbers();
}

}  // namespace cellsim::db::internal
