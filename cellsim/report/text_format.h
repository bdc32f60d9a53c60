// Private number and date formatting shared by the renderers: Oracle's
// TO_CHAR masks, thousands separators, CellCLI sizes and timestamps.
#ifndef CELLSIM_REPORT_TEXT_FORMAT_H_
#define CELLSIM_REPORT_TEXT_FORMAT_H_

#include <cstdint>
#include <string>

namespace cellsim::report::internal {

// 17179869184 -> "17,179,869,184"; -1234 -> "-1,234".
std::string GroupThousands(int64_t v);
// TO_CHAR(v, '999,999,999,999'): 16 characters, right-aligned (one position for
// the sign); "################" when |v| needs more than 15 digits.
std::string OracleNumber999(int64_t v);
// TO_CHAR(v, 'fm999,990.00'): "5.09", "1,234.50"; "###########" from 1e6.
std::string OracleFm999990d00(double v);
// "01-AUG-2015 10:19:32" (TO_CHAR(sysdate, 'dd-MON-YYYY hh24:mi:ss')).
std::string OracleDate(int64_t unix_seconds, bool utc);
// "2015-01-19T21:33:37-06:00" as CellCLI prints times.
std::string Iso8601(int64_t unix_seconds, bool utc);
// Left-justify / right-justify in `width`, truncating like RPAD/LPAD.
std::string Rpad(const std::string& s, size_t width);
std::string Lpad(const std::string& s, size_t width);

}  // namespace cellsim::report::internal

#endif  // CELLSIM_REPORT_TEXT_FORMAT_H_
