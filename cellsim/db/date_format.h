// Private: Oracle's DATE as the database reads and writes it: calendar
// arithmetic on seconds since the Unix epoch (proleptic Gregorian, no time
// zone, as a DATE has none), and date format models (TO_CHAR / TO_DATE and
// the session's NLS_DATE_FORMAT, DD-MON-RR, by which DATEs print and text
// converts to a DATE).
//
// Thread-safety: pure functions.
#ifndef CELLSIM_DB_DATE_FORMAT_H_
#define CELLSIM_DB_DATE_FORMAT_H_

#include <cstdint>
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

// The session's NLS_DATE_FORMAT.
inline constexpr std::string_view kDefaultDateFormat = "DD-MON-RR";

// TO_CHAR(date, format) and TO_DATE(text, format) with Oracle's format
// elements YYYY YY RR MM MON MONTH DD DY DAY HH24 HH12 HH MI SS AM PM, FM,
// and punctuation or "quoted text" between them; other elements are
// ORA-01821. Parsing takes the year and month a format leaves out from
// `now_unix` (day 1, midnight), as Oracle does, and says what is wrong with
// Oracle's error (ORA-01843 month, ORA-01847 day, ORA-01830 text left ...).
absl::StatusOr<std::string> FormatDate(int64_t unix, std::string_view format);
absl::StatusOr<int64_t> ParseDate(std::string_view text, std::string_view format, int64_t now_unix);

}  // namespace cellsim::db::internal

#endif  // CELLSIM_DB_DATE_FORMAT_H_
