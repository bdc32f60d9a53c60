// Oracle's DATE: calendar arithmetic and format models (date_format.h).
#include "cellsim/db/date_format.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "absl/strings/ascii.h"

namespace cellsim::db::internal {
namespace {

constexpr const char* kMonths[] = {"JANUARY", "FEBRUARY", "MARCH",     "APRIL",   "MAY",      "JUNE",
                                   "JULY",    "AUGUST",   "SEPTEMBER", "OCTOBER", "NOVEMBER", "DECEMBER"};
constexpr const char* kDays[] = {"SUNDAY", "MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY",
                                 "SATURDAY"};

absl::Status DateError(std::string_view text) { return absl::InvalidArgumentError(std::string(text)); }

// Days since 1970-01-01 of a proleptic Gregorian date, and back (H. Hinnant's
// algorithms: no time zone, any year).
int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2 ? 1 : 0;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

bool LeapYear(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

// ---- date format models ----

struct Element {
  enum class Kind : uint8_t {
    kLiteral, kYYYY, kYY, kRR, kMM, kMON, kMONTH, kDD, kDY, kDAY, kHH24, kHH12, kMI, kSS, kAM,
    kFF, kX, kTZR, kTZH, kTZM
  };
  Kind kind = Kind::kLiteral;
  std::string text;  // kLiteral: the text; else the element as written (for its case)
  bool fill = false;  // FM: no padding
  int digits = 0;     // FFn's n (0: FF, the precision's)
};

// ORA-01821 for an element the value has not: a DATE's fraction, a time zone
// of a value without one.
absl::Status NotForThisValue(std::string_view element, std::string_view format,
                             std::string_view why) {
  return DateError(fmt::format("ORA-01821: date format not recognized ({} in '{}': {})", element,
                               format, why));
}

absl::StatusOr<std::vector<Element>> ParseFormat(std::string_view f) {
  struct Name {
    std::string_view name;
    Element::Kind kind;
  };
  static constexpr Name kNames[] = {
      {"YYYY", Element::Kind::kYYYY}, {"HH24", Element::Kind::kHH24}, {"HH12", Element::Kind::kHH12},
      {"MONTH", Element::Kind::kMONTH}, {"MON", Element::Kind::kMON}, {"DAY", Element::Kind::kDAY},
      {"DY", Element::Kind::kDY},     {"YY", Element::Kind::kYY},     {"RR", Element::Kind::kRR},
      {"MM", Element::Kind::kMM},     {"DD", Element::Kind::kDD},     {"HH", Element::Kind::kHH12},
      {"MI", Element::Kind::kMI},     {"SS", Element::Kind::kSS},     {"AM", Element::Kind::kAM},
      {"PM", Element::Kind::kAM},     {"TZR", Element::Kind::kTZR},   {"TZH", Element::Kind::kTZH},
      {"TZM", Element::Kind::kTZM},   {"X", Element::Kind::kX}};
  std::vector<Element> out;
  bool fill = false;
  size_t i = 0;
  while (i < f.size()) {
    const std::string rest = absl::AsciiStrToUpper(std::string(f.substr(i)));
    if (rest.rfind("FM", 0) == 0) {
      fill = !fill;
      i += 2;
      continue;
    }
    if (rest.rfind("FF", 0) == 0) {
      const bool n = rest.size() > 2 && rest[2] >= '1' && rest[2] <= '9';
      out.push_back({Element::Kind::kFF, std::string(f.substr(i, n ? 3 : 2)), fill,
                     n ? rest[2] - '0' : 0});
      i += n ? 3 : 2;
      continue;
    }
    bool matched = false;
    for (const Name& n : kNames) {
      if (rest.rfind(n.name, 0) == 0) {
        out.push_back({n.kind, std::string(f.substr(i, n.name.size())), fill});
        i += n.name.size();
        matched = true;
        break;
      }
    }
    if (matched) continue;
    const char c = f[i];
    if (c == '"') {
      const size_t end = f.find('"', i + 1);
      if (end == std::string_view::npos) return DateError("ORA-01821: date format not recognized");
      out.push_back({Element::Kind::kLiteral, std::string(f.substr(i + 1, end - i - 1)), fill});
      i = end + 1;
      continue;
    }
    if (std::string_view(" -/,.;:").find(c) == std::string_view::npos) {
      return DateError(fmt::format("ORA-01821: date format not recognized (at '{}' in '{}')",
                             f.substr(i), f));
    }
    out.push_back({Element::Kind::kLiteral, std::string(1, c), fill});
    ++i;
  }
  return out;
}

// A name in the case the element is written in: MON -> JAN, Mon -> Jan, mon -> jan.
std::string InCase(std::string_view upper_name, const std::string& element) {
  std::string s(upper_name);
  const bool first_lower = !element.empty() && absl::ascii_islower(element[0]);
  const bool second_lower = element.size() > 1 && absl::ascii_islower(element[1]);
  if (first_lower) return absl::AsciiStrToLower(s);
  if (second_lower) {
    for (size_t i = 1; i < s.size(); ++i) s[i] = absl::ascii_tolower(s[i]);
  }
  return s;
}

int64_t CurrentCentury(int64_t now_unix) { return CivilFromUnix(now_unix).year / 100; }

}  // namespace

Civil CivilFromUnix(int64_t unix) {
  int64_t z = unix >= 0 ? unix / kDaySeconds : -((-unix + kDaySeconds - 1) / kDaySeconds);
  const int64_t secs = unix - z * kDaySeconds;
  Civil c;
  c.weekday = static_cast<unsigned>(((z + 4) % 7 + 7) % 7);
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const auto doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  c.day = doy - (153 * mp + 2) / 5 + 1;
  c.month = mp < 10 ? mp + 3 : mp - 9;
  c.year = static_cast<int64_t>(yoe) + era * 400 + (c.month <= 2 ? 1 : 0);
  c.hour = static_cast<unsigned>(secs / 3600);
  c.minute = static_cast<unsigned>(secs / 60 % 60);
  c.second = static_cast<unsigned>(secs % 60);
  return c;
}

int64_t UnixFromCivil(const Civil& c) {
  return DaysFromCivil(c.year, c.month, c.day) * kDaySeconds + c.hour * 3600 + c.minute * 60 +
         c.second;
}

unsigned DaysInMonth(int64_t y, unsigned m) {
  static constexpr unsigned kLen[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && LeapYear(y) ? 29 : kLen[m - 1];
}


absl::StatusOr<std::string> FormatDate(int64_t unix, std::string_view format) {
  return FormatDatetime(Datetime{unix}, format);
}

absl::StatusOr<std::string> FormatDatetime(const Datetime& t, std::string_view format) {
  absl::StatusOr<std::vector<Element>> elements = ParseFormat(format);
  if (!elements.ok()) return elements.status();
  const Civil c = CivilFromUnix(t.unix);
  std::string out;
  auto num = [&](int64_t v, int width, bool fill) {
    out += fill ? fmt::format("{}", v) : fmt::format("{:0{}d}", v, width);
  };
  for (const Element& e : *elements) {
    switch (e.kind) {
      case Element::Kind::kLiteral: out += e.text; break;
      case Element::Kind::kYYYY: num(c.year, 4, e.fill); break;
      case Element::Kind::kYY:
      case Element::Kind::kRR: num(c.year % 100, 2, e.fill); break;
      case Element::Kind::kMM: num(c.month, 2, e.fill); break;
      case Element::Kind::kDD: num(c.day, 2, e.fill); break;
      case Element::Kind::kHH24: num(c.hour, 2, e.fill); break;
      case Element::Kind::kHH12: num(c.hour % 12 == 0 ? 12 : c.hour % 12, 2, e.fill); break;
      case Element::Kind::kMI: num(c.minute, 2, e.fill); break;
      case Element::Kind::kSS: num(c.second, 2, e.fill); break;
      case Element::Kind::kMON:
        out += InCase(std::string_view(kMonths[c.month - 1]).substr(0, 3), e.text);
        break;
      case Element::Kind::kMONTH: {
        std::string m = InCase(kMonths[c.month - 1], e.text);
        if (!e.fill) m.resize(9, ' ');
        out += m;
        break;
      }
      case Element::Kind::kDY:
        out += InCase(std::string_view(kDays[c.weekday]).substr(0, 3), e.text);
        break;
      case Element::Kind::kDAY: {
        std::string d = InCase(kDays[c.weekday], e.text);
        if (!e.fill) d.resize(9, ' ');
        out += d;
        break;
      }
      case Element::Kind::kAM: out += InCase(c.hour < 12 ? "AM" : "PM", e.text); break;
      case Element::Kind::kFF:
      case Element::Kind::kX: {
        if (t.precision == kDatePrecision) {
          return NotForThisValue(e.text, format, "a DATE has no fraction of a second");
        }
        const int digits = e.digits != 0 ? e.digits : t.precision;
        if (e.kind == Element::Kind::kX) {
          if (digits > 0 || e.digits != 0) out += '.';
          break;
        }
        // (A TIMESTAMP(0) prints no fraction, and XFF no point.)
        if (digits > 0) {
          uint32_t f = t.nanos;
          for (int k = digits; k < 9; ++k) f /= 10;
          out += fmt::format("{:0{}d}", f, digits);
        }
        break;
      }
      case Element::Kind::kTZR:
      case Element::Kind::kTZH:
      case Element::Kind::kTZM:
        if (!t.time_zone) return NotForThisValue(e.text, format, "the value has no time zone");
        out += e.kind == Element::Kind::kTZR ? "+00:00" : e.kind == Element::Kind::kTZH ? "+00" : "00";
        break;
    }
  }
  return out;
}

IntervalFields IntervalFieldsOf(double seconds, int precision) {
  IntervalFields f;
  f.negative = seconds < 0;
  f.digits = std::clamp(precision, 0, 6);
  // Microseconds, then whole units of the last digit kept.
  uint64_t units = static_cast<uint64_t>(std::llround(std::fabs(seconds) * 1e6)), per_second = 1'000'000;
  for (int p = 6; p > f.digits; --p) {
    units = (units + 5) / 10;
    per_second /= 10;
  }
  const uint64_t whole = units / per_second;
  f.fraction = units % per_second;
  f.days = whole / 86400;
  f.hours = static_cast<unsigned>(whole / 3600 % 24);
  f.minutes = static_cast<unsigned>(whole / 60 % 60);
  f.seconds = static_cast<unsigned>(whole % 60);
  return f;
}

namespace {
thread_local const NlsFormats* current_nls = nullptr;
}  // namespace

const NlsFormats& CurrentNlsFormats() {
  static const NlsFormats kDefaults;
  return current_nls != nullptr ? *current_nls : kDefaults;
}

ScopedNlsFormats::ScopedNlsFormats(const NlsFormats* formats) : saved_(current_nls) {
  current_nls = formats;
}

ScopedNlsFormats::~ScopedNlsFormats() { current_nls = saved_; }

std::optional<absl::Status> SetNlsFormat(NlsFormats* formats, std::string_view name,
                                         std::string_view value) {
  std::string* target = name == "nls_date_format"           ? &formats->date
                        : name == "nls_timestamp_format"    ? &formats->timestamp
                        : name == "nls_timestamp_tz_format" ? &formats->timestamp_tz
                                                            : nullptr;
  if (target == nullptr) return std::nullopt;
  // A value of the parameter's type must print by it.
  Datetime sample;
  if (target != &formats->date) sample.precision = 6;
  sample.time_zone = target == &formats->timestamp_tz;
  if (absl::StatusOr<std::string> s = FormatDatetime(sample, value); !s.ok()) return s.status();
  if (value.empty()) return DateError(fmt::format("ORA-01821: date format not recognized ({} '')", name));
  *target = std::string(value);
  return absl::OkStatus();
}

std::string FormatInterval(double seconds, int precision) {
  const IntervalFields f = IntervalFieldsOf(seconds, precision);
  std::string out = fmt::format("{}{:09d} {:02d}:{:02d}:{:02d}", f.negative ? '-' : '+', f.days,
                                f.hours, f.minutes, f.seconds);
  if (precision > 0) {
    out += fmt::format(".{:0{}d}", f.fraction, f.digits);
    if (precision > f.digits) out += std::string(static_cast<size_t>(precision - f.digits), '0');
  }
  return out;
}

namespace {

// Up to `max` digits of `text` from *i (blanks before them skipped) into *v;
// ORA-01858 when there is none.
absl::Status ReadDigits(std::string_view text, std::string_view format, size_t max, size_t* i,
                        int64_t* v) {
  while (*i < text.size() && text[*i] == ' ') ++*i;
  size_t n = 0;
  *v = 0;
  while (*i < text.size() && n < max && absl::ascii_isdigit(text[*i])) {
    *v = *v * 10 + (text[*i] - '0');
    ++*i;
    ++n;
  }
  if (n == 0) {
    return DateError(fmt::format(
        "ORA-01858: a non-numeric character was found where a numeric was expected ('{}' "
        "against the format '{}')", text, format));
  }
  return absl::OkStatus();
}

// FF's digits (up to `max`, blanks before them skipped) from *i, as
// nanoseconds into *nanos: .5 is 500,000,000. A text without them has no
// fraction ('07-DEC-26 10.00.00 PM' against XFF), as Oracle reads it.
absl::Status ReadFraction(std::string_view text, std::string_view format, size_t max, size_t* i,
                          uint32_t* nanos) {
  while (*i < text.size() && text[*i] == ' ') ++*i;
  *nanos = 0;
  if (*i >= text.size() || !absl::ascii_isdigit(text[*i])) return absl::OkStatus();
  const size_t from = *i;
  int64_t v = 0;
  if (absl::Status st = ReadDigits(text, format, max, i, &v); !st.ok()) return st;
  for (size_t k = *i - from; k < 9; ++k) v *= 10;
  *nanos = static_cast<uint32_t>(v);
  return absl::OkStatus();
}

// The seconds of a parsed date, or Oracle's error for its year or day.
absl::StatusOr<int64_t> CheckedUnix(const Civil& c) {
  if (c.year < 1 || c.year > 9999) {
    return DateError("ORA-01841: (full) year must be between -4713 and +9999, and not be 0");
  }
  if (c.day < 1 || c.day > DaysInMonth(c.year, c.month)) {
    return DateError("ORA-01847: day of month must be between 1 and last day of month");
  }
  return UnixFromCivil(c);
}

// The index of the name (or its first three letters) `text` has at *i, any
// case, moving *i past it; -1 for none.
int ReadName(std::string_view text, const char* const* names, size_t count, size_t* i) {
  const std::string rest = absl::AsciiStrToUpper(std::string(text.substr(*i)));
  for (size_t k = 0; k < count; ++k) {
    if (rest.rfind(names[k], 0) == 0) {
      *i += std::string_view(names[k]).size();
      return static_cast<int>(k);
    }
  }
  for (size_t k = 0; k < count; ++k) {
    if (rest.rfind(std::string_view(names[k]).substr(0, 3), 0) == 0) {
      *i += 3;
      return static_cast<int>(k);
    }
  }
  return -1;
}

}  // namespace

absl::StatusOr<int64_t> ParseDate(std::string_view text, std::string_view format,
                                  int64_t now_unix) {
  absl::StatusOr<Datetime> t = ParseDatetime(text, format, now_unix, kDatePrecision);
  if (!t.ok()) return t.status();
  return t->unix;
}

absl::StatusOr<Datetime> ParseDatetime(std::string_view text, std::string_view format,
                                       int64_t now_unix, int precision) {
  absl::StatusOr<std::vector<Element>> elements = ParseFormat(format);
  if (!elements.ok()) return elements.status();
  const Civil now = CivilFromUnix(now_unix);
  Civil c;
  c.year = now.year;
  c.month = now.month;
  c.day = 1;
  std::optional<bool> pm;
  uint32_t nanos = 0;
  size_t i = 0;
  auto digits = [&](size_t max, int64_t* v) { return ReadDigits(text, format, max, &i, v); };
  for (const Element& e : *elements) {
    if (i >= text.size()) break;  // the rest of the format takes its defaults
    int64_t v = 0;
    absl::Status st;
    switch (e.kind) {
      case Element::Kind::kLiteral:
      case Element::Kind::kX:
        if (e.kind == Element::Kind::kX && precision == kDatePrecision) {
          return NotForThisValue(e.text, format, "a DATE has no fraction of a second");
        }
        while (i < text.size() && !absl::ascii_isalnum(text[i])) ++i;
        break;
      case Element::Kind::kFF:
        if (precision == kDatePrecision) {
          return NotForThisValue(e.text, format, "a DATE has no fraction of a second");
        }
        st = ReadFraction(text, format, e.digits != 0 ? static_cast<size_t>(e.digits) : 9, &i,
                          &nanos);
        break;
      case Element::Kind::kTZR:
      case Element::Kind::kTZH:
      case Element::Kind::kTZM:
        return NotForThisValue(e.text, format, "cellsim reads no time zone");
      case Element::Kind::kYYYY:
        st = digits(4, &v);
        c.year = v;
        break;
      case Element::Kind::kYY:
      case Element::Kind::kRR: {
        const size_t from = i;
        st = digits(4, &v);
        if (!st.ok() || i - from > 2) {
          c.year = v;
          break;
        }
        const int64_t century = CurrentCentury(now_unix), now2 = now.year % 100;
        if (e.kind == Element::Kind::kYY) c.year = century * 100 + v;
        else if (v < 50) c.year = (now2 < 50 ? century : century + 1) * 100 + v;
        else c.year = (now2 < 50 ? century - 1 : century) * 100 + v;
        break;
      }
      case Element::Kind::kMM:
        st = digits(2, &v);
        if (st.ok() && (v < 1 || v > 12)) st = DateError("ORA-01843: not a valid month");
        c.month = static_cast<unsigned>(v);
        break;
      case Element::Kind::kMON:
      case Element::Kind::kMONTH: {
        const int m = ReadName(text, kMonths, 12, &i);
        if (m < 0) st = DateError(fmt::format("ORA-01843: not a valid month ('{}')", text));
        c.month = static_cast<unsigned>(m + 1);
        break;
      }
      case Element::Kind::kDY:
      case Element::Kind::kDAY:
        if (ReadName(text, kDays, 7, &i) < 0) st = DateError("ORA-01846: not a valid day of the week");
        break;
      case Element::Kind::kDD:
        st = digits(2, &v);
        c.day = static_cast<unsigned>(v);
        break;
      case Element::Kind::kHH24:
        st = digits(2, &v);
        if (st.ok() && v > 23) st = DateError("ORA-01850: hour must be between 0 and 23");
        c.hour = static_cast<unsigned>(v);
        break;
      case Element::Kind::kHH12:
        st = digits(2, &v);
        if (st.ok() && (v < 1 || v > 12)) st = DateError("ORA-01849: hour must be between 1 and 12");
        c.hour = static_cast<unsigned>(v % 12);
        if (!pm.has_value()) pm = false;
        break;
      case Element::Kind::kMI:
        st = digits(2, &v);
        if (st.ok() && v > 59) st = DateError("ORA-01851: minutes must be between 0 and 59");
        c.minute = static_cast<unsigned>(v);
        break;
      case Element::Kind::kSS:
        st = digits(2, &v);
        if (st.ok() && v > 59) st = DateError("ORA-01852: seconds must be between 0 and 59");
        c.second = static_cast<unsigned>(v);
        break;
      case Element::Kind::kAM: {
        const std::string rest = absl::AsciiStrToUpper(std::string(text.substr(i, 2)));
        if (rest != "AM" && rest != "PM") st = DateError("ORA-01855: AM/A.M. or PM/P.M. required");
        pm = rest == "PM";
        i += 2;
        break;
      }
    }
    if (!st.ok()) return st;
  }
  while (i < text.size() && text[i] == ' ') ++i;
  if (i < text.size()) {
    return DateError(fmt::format(
        "ORA-01830: date format picture ends before converting entire input string ('{}' "
        "against the format '{}')", text, format));
  }
  if (pm.value_or(false)) c.hour += 12;
  absl::StatusOr<int64_t> unix = CheckedUnix(c);
  if (!unix.ok()) return unix.status();
  return Datetime{*unix, nanos, precision, false};
}

}  // namespace cellsim::db::internal
