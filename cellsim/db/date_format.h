// Private: Oracle's DATE and TIMESTAMP as the database reads and writes
// them: calendar arithmetic on seconds since the Unix epoch (proleptic
// Gregorian, no time zone, as a DATE has none), and datetime format models
// (TO_CHAR / TO_DATE / TO_TIMESTAMP and the session's NLS_DATE_FORMAT,
// NLS_TIMESTAMP_FORMAT and NLS_TIMESTAMP_TZ_FORMAT, by which datetimes print
// and text converts to one).
//
// Thread-safety: pure functions.
#ifndef CELLSIM_DB_DATE_FORMAT_H_
#define CELLSIM_DB_DATE_FORMAT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace cellsim::db::internal {

inline constexpr int64_t kDaySeconds = 86400;

// A DATE's fields.
struct Civil {
  int64_t year = 1970;
  unsigned month = 1, day = 1, hour = 0, minute = 0, second = 0;
  unsigned weekday = 4;  // 0 = Sunday (CivilFromUnix sets it; UnixFromCivil ignores it)
};
Civil CivilFromUnix(int64_t unix);
int64_t UnixFromCivil(const Civil& c);
unsigned DaysInMonth(int64_t year, unsigned month);

// The session's NLS_DATE_FORMAT, NLS_TIMESTAMP_FORMAT and
// NLS_TIMESTAMP_TZ_FORMAT (Oracle's defaults for AMERICA).
inline constexpr std::string_view kDefaultDateFormat = "DD-MON-RR";
inline constexpr std::string_view kDefaultTimestampFormat = "DD-MON-RR HH.MI.SSXFF AM";
inline constexpr std::string_view kDefaultTimestampTzFormat = "DD-MON-RR HH.MI.SSXFF AM TZR";

// The session's NLS_DATE_FORMAT, NLS_TIMESTAMP_FORMAT and
// NLS_TIMESTAMP_TZ_FORMAT (ALTER SESSION SET): how its datetimes print and
// how text converts to one where no format is given.
struct NlsFormats {
  std::string date{kDefaultDateFormat};
  std::string timestamp{kDefaultTimestampFormat};
  std::string timestamp_tz{kDefaultTimestampTzFormat};
};
// The formats of the statement the calling thread runs (ScopedNlsFormats);
// Oracle's defaults outside one.
const NlsFormats& CurrentNlsFormats();
// Makes `*formats` the calling thread's while it lives (a session's
// statement, on the thread that runs it), then restores the ones before.
class ScopedNlsFormats {
 public:
  explicit ScopedNlsFormats(const NlsFormats* formats);
  ~ScopedNlsFormats();
  ScopedNlsFormats(const ScopedNlsFormats&) = delete;
  ScopedNlsFormats& operator=(const ScopedNlsFormats&) = delete;

 private:
  const NlsFormats* saved_;
};
// ALTER SESSION SET `name` (lower case) = `value` when `name` is one of the
// three: nullopt for another name; else the format stored in `*formats`, or
// ORA-01821 when it is not a format for its type (FF in NLS_DATE_FORMAT, an
// unknown element).
std::optional<absl::Status> SetNlsFormat(NlsFormats* formats, std::string_view name,
                                         std::string_view value);

// A datetime as the format models see it: whole seconds since the epoch and
// a TIMESTAMP's fraction of a second, with the fraction's precision (the
// digits FF prints: TIMESTAMP(p)'s p; kDatePrecision for a DATE, which has
// no fraction, so FF and X are ORA-01821 for it) and whether it has a time
// zone (TZR, TZH and TZM are the database's, UTC: +00:00; ORA-01821 for a
// value without one).
inline constexpr int kDatePrecision = -1;
struct Datetime {
  int64_t unix = 0;
  uint32_t nanos = 0;  // 0 .. 999,999,999
  int precision = kDatePrecision;
  bool time_zone = false;
};

// TO_CHAR(datetime, format), TO_DATE(text, format) and TO_TIMESTAMP(text,
// format) with Oracle's format elements YYYY YY RR MM MON MONTH DD DY DAY
// HH24 HH12 HH MI SS AM PM, FM, a TIMESTAMP's FF (the precision's digits)
// and FF1..FF9 (that many, truncated), X (the decimal point), TZR, TZH and
// TZM, and punctuation or "quoted text" between them; other elements are
// ORA-01821. Parsing takes the year and month a format leaves out from
// `now_unix` (day 1, midnight), as Oracle does, reads no time zone, and says
// what is wrong with Oracle's error (ORA-01843 month, ORA-01847 day,
// ORA-01830 text left ...); `precision` is the result's (kDatePrecision:
// a DATE's, so FF is ORA-01821).
absl::StatusOr<std::string> FormatDatetime(const Datetime& t, std::string_view format);
absl::StatusOr<Datetime> ParseDatetime(std::string_view text, std::string_view format,
                                       int64_t now_unix, int precision);
absl::StatusOr<std::string> FormatDate(int64_t unix, std::string_view format);
absl::StatusOr<int64_t> ParseDate(std::string_view text, std::string_view format, int64_t now_unix);

// An interval of `seconds` in fields, rounded to `precision` digits of
// fraction (at most 6: a double of seconds keeps microseconds), so that the
// rounding carries into the seconds: `fraction` counts units of
// 10^-digits s.
struct IntervalFields {
  bool negative = false;
  uint64_t days = 0;
  unsigned hours = 0, minutes = 0, seconds = 0;
  uint64_t fraction = 0;
  int digits = 0;
};
IntervalFields IntervalFieldsOf(double seconds, int precision);

// An INTERVAL DAY(9) TO SECOND(p) as SQL*Plus prints it:
// +000000001 02:03:04.500000 (the sign, nine digits of days, the time, p
// digits of fraction, kept to the microsecond; none, and no point, for
// p = 0).
std::string FormatInterval(double seconds, int precision);

}  // namespace cellsim::db::internal

#endif  // CELLSIM_DB_DATE_FORMAT_H_
