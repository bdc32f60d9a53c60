// TIMESTAMP and INTERVAL DAY TO SECOND (docs/sql.md "Datetimes"):
// SYSTIMESTAMP, LOCALTIMESTAMP and CURRENT_TIMESTAMP to the microsecond,
// printed in the session's NLS_TIMESTAMP[_TZ]_FORMAT; a difference of
// timestamps an INTERVAL DAY(9) TO SECOND(9); TIMESTAMP(p) columns stored in
// Oracle's 11 bytes and kept across a restart; TO_TIMESTAMP, TO_CHAR's FF,
// EXTRACT, CAST, NUMTODSINTERVAL and INTERVAL literals; PL/SQL TIMESTAMP and
// INTERVAL variables timing a sleep; and the errors of what is not allowed.
#include <memory>
#include <string>
#include <vector>

#include "cellsim/db/database.h"
#include "db/db_test_util.h"
#include "gtest/gtest.h"
#include "testing/test_util.h"

namespace cellsim::db {
namespace {

using ::testing::HasSubstr;
using Cells = std::vector<std::vector<std::string>>;

// On a simulated clock that starts 0.123456 s past 2026-12-07 23:09:10 UTC
// and moves only as the code says (a sleep moves it on).
class TimestampTest : public testing::SqlTest {
 protected:
  void Configure(DatabaseOptions* o) const override { o->all_objects_rows = 100; }
  Clock* clock() const override { return &clock_; }
  mutable testing::SteppedClock clock_{1'796'684'950, 123'456'000};
};

TEST_F(TimestampTest, SystimestampPrintsInTheSessionsFormatAndDifferencesAreIntervals) {
  EXPECT_EQ(One("select systimestamp from dual"), "07-DEC-26 11.09.10.123456 PM +00:00");
  EXPECT_EQ(One("select current_timestamp from dual"), "07-DEC-26 11.09.10.123456 PM +00:00");
  EXPECT_EQ(One("select localtimestamp from dual"), "07-DEC-26 11.09.10.123456 PM");
  EXPECT_EQ(One("select to_char(systimestamp, 'YYYY-MM-DD HH24:MI:SS.FF3 TZH:TZM') from dual"),
            "2026-12-07 23:09:10.123 +00:00");
  EXPECT_EQ(One("select to_char(localtimestamp, 'HH24:MI:SSXFF') from dual"), "23:09:10.123456");
  // SYSDATE is the same instant, to the second.
  EXPECT_EQ(One("select to_char(sysdate, 'HH24:MI:SS') from dual"), "23:09:10");
  // TIMESTAMP - TIMESTAMP (or DATE): an INTERVAL DAY(9) TO SECOND(9).
  EXPECT_EQ(One("select systimestamp - timestamp '2026-12-07 23:09:00' from dual"),
            "+000000000 00:00:10.123456000");
  EXPECT_EQ(One("select timestamp '2026-12-06 21:00:00.5' - localtimestamp from dual"),
            "-000000001 02:09:09.623456000");
  EXPECT_EQ(One("select localtimestamp - date '2026-12-01' from dual"),
            "+000000006 23:09:10.123456000");
  EXPECT_EQ(One("select extract(second from systimestamp - timestamp '2026-12-07 23:09:00') "
                "from dual"),
            "10.123456");
  EXPECT_EQ(One("select extract(day from localtimestamp - date '2026-12-01') from dual"), "6");
  EXPECT_EQ(One("select extract(hour from localtimestamp) from dual"), "23");
  // A datetime plus days is a DATE; plus an interval it keeps its type.
  EXPECT_EQ(One("select localtimestamp + 1 from dual"), "08-DEC-26");
  EXPECT_EQ(One("select localtimestamp + interval '90' minute from dual"),
            "08-DEC-26 12.39.10.123456 AM");
  EXPECT_EQ(One("select numtodsinterval(90, 'minute') * 2 from dual"),
            "+000000000 03:00:00.000000000");
  EXPECT_EQ(One("select count(*) from dual where localtimestamp > systimestamp - interval '1' "
                "second"),
            "1");
  EXPECT_EQ(One("select to_timestamp('2026-12-07 10:11:12.5', 'YYYY-MM-DD HH24:MI:SS.FF') "
                "from dual"),
            "07-DEC-26 10.11.12.500000000 AM");
  EXPECT_EQ(One("select cast(localtimestamp as timestamp(2)) from dual"),
            "07-DEC-26 11.09.10.12 PM");
  EXPECT_EQ(One("select cast(localtimestamp as date) from dual"), "07-DEC-26");
}

TEST_F(TimestampTest, TimestampColumnsKeepTheirFractionAcrossARestart) {
  Run("create table ev (id number, at timestamp(3) default systimestamp, d date)");
  Run("insert into ev (id, d) values (1, localtimestamp)");
  Run("insert into ev values (2, timestamp '2026-01-02 03:04:05', null)");
  Run("insert into ev values (3, '02-JAN-26 03.04.05.678901 PM', null)");
  Run("insert into ev values (4, '02-JAN-26 03.04.05 PM', null)");  // no fraction
  Run("commit");
  const Cells want = {{"1", "07-DEC-26 11.09.10.123 PM", "23:09:10"},
                      {"2", "02-JAN-26 03.04.05.000 AM", ""},
                      {"3", "02-JAN-26 03.04.05.679 PM", ""},
                      {"4", "02-JAN-26 03.04.05.000 PM", ""}};
  const std::string query =
      "select id, at, to_char(d, 'HH24:MI:SS') from ev order by id";
  EXPECT_EQ(Run(query).result_rows, want);
  EXPECT_EQ(Run("select data_type, data_length, data_scale from user_tab_columns "
                "where table_name = 'EV' and column_name = 'AT'")
                .result_rows,
            (Cells{{"TIMESTAMP(3)", "11", "3"}}));
  EXPECT_EQ(Run("describe ev").result_rows[1], (std::vector<std::string>{"AT", "", "TIMESTAMP(3)"}));
  EXPECT_EQ(One("select count(*) from ev where at < timestamp '2026-06-01 00:00:00'"), "3");
  // A fraction cannot shrink under rows; it can grow.
  EXPECT_THAT(Error("alter table ev modify (at timestamp(0))"), HasSubstr("ORA-30082"));
  Run("alter table ev modify (at timestamp(6))");
  ASSERT_OK(Reopen());
  EXPECT_EQ(One("select at from ev where id = 3"), "02-JAN-26 03.04.05.679000 PM");
  EXPECT_EQ(One("select max(at) - min(at) from ev"), "+000000339 20:05:05.123000000");
}

TEST_F(TimestampTest, PlsqlTimesASleepWithTimestampAndIntervalVariables) {
  Run("create table laps (n number, started timestamp)");
  StatementResult r = Run(
      "declare t0 timestamp := systimestamp; e interval day to second; begin "
      "dbms_session.sleep(0.25); e := systimestamp - t0; "
      "insert into laps values (1, t0); "
      "dbms_output.put_line('took ' || e); "
      "dbms_output.put_line(extract(second from e)); end;");
  EXPECT_EQ(r.output, (std::vector<std::string>{"took +000000000 00:00:00.250000000", ".25"}));
  EXPECT_EQ(One("select started from laps"), "07-DEC-26 11.09.10.123456 PM");
}

// ALTER SESSION SET NLS_DATE_FORMAT / NLS_TIMESTAMP_FORMAT /
// NLS_TIMESTAMP_TZ_FORMAT: how the session's datetimes print and its text
// converts; checked when set; other sessions keep Oracle's defaults.
TEST_F(TimestampTest, AlterSessionSetsTheNlsFormats) {
  Run("create table d (x date, t timestamp)");
  Run("alter session set nls_date_format = 'YYYY-MM-DD HH24:MI:SS'");
  EXPECT_EQ(One("select sysdate from dual"), "2026-12-07 23:09:10");
  Run("insert into d values ('2026-01-02 03:04:05', null)");
  Run("commit");
  EXPECT_EQ(One("select to_char(x, 'DD-MON-YYYY HH24:MI') from d"), "02-JAN-2026 03:04");
  EXPECT_EQ(One("select 'at ' || x from d"), "at 2026-01-02 03:04:05");
  EXPECT_EQ(One("select count(*) from d where x = '2026-01-02 03:04:05'"), "1");
  Run("alter session set nls_timestamp_format = 'YYYY-MM-DD HH24:MI:SS.FF3'");
  EXPECT_EQ(One("select localtimestamp from dual"), "2026-12-07 23:09:10.123");
  Run("update d set t = '2026-01-02 03:04:05.25'");
  Run("commit");
  EXPECT_EQ(One("select t from d"), "2026-01-02 03:04:05.250");
  Run("alter session set nls_timestamp_tz_format = 'HH24:MI:SSXFF TZR'");
  EXPECT_EQ(One("select systimestamp from dual"), "23:09:10.123456 +00:00");
  EXPECT_EQ(Run("show parameter nls_date_format").result_rows,
            (Cells{{"nls_date_format", "string", "YYYY-MM-DD HH24:MI:SS"}}));
  // Checked when set, as Oracle checks it; the format before stays.
  EXPECT_THAT(Error("alter session set nls_date_format = 'HH24:MI:SS.FF'"), HasSubstr("ORA-01821"));
  EXPECT_THAT(Error("alter session set nls_timestamp_format = 'YYYY-Q'"), HasSubstr("ORA-01821"));
  EXPECT_EQ(One("select sysdate from dual"), "2026-12-07 23:09:10");
  std::unique_ptr<Session> other = db_->NewSession();
  EXPECT_EQ(One("select sysdate from dual", other.get()), "07-DEC-26");
  EXPECT_EQ(One("select t from d", other.get()), "02-JAN-26 03.04.05.250000 AM");
}

TEST_F(TimestampTest, WhatOracleRefusesIsRefusedWithItsError) {
  EXPECT_THAT(Error("create table x (t timestamp(10))"), HasSubstr("ORA-30088"));
  EXPECT_THAT(Error("create table x (t timestamp with time zone)"), HasSubstr("ORA-00902"));
  EXPECT_THAT(Error("select systimestamp + systimestamp from dual"), HasSubstr("ORA-30087"));
  EXPECT_THAT(Error("select numtodsinterval(1, 'second') + 1 from dual"), HasSubstr("ORA-00932"));
  EXPECT_THAT(Error("select numtodsinterval(1, 'week') from dual"), HasSubstr("ORA-01760"));
  EXPECT_THAT(Error("select to_char(sysdate, 'HH24:MI:SS.FF') from dual"), HasSubstr("ORA-01821"));
  EXPECT_THAT(Error("select to_char(localtimestamp, 'TZR') from dual"), HasSubstr("ORA-01821"));
  EXPECT_THAT(Error("select extract(hour from sysdate) from dual"), HasSubstr("ORA-30076"));
  EXPECT_THAT(Error("select extract(year from numtodsinterval(1, 'day')) from dual"),
              HasSubstr("ORA-30076"));
  EXPECT_THAT(Error("select interval '5' week from dual"), HasSubstr("ORA-00905"));
  Run("create table n (x number)");
  EXPECT_THAT(Error("insert into n values (systimestamp - systimestamp)"),
              HasSubstr("expected NUMBER got INTERVAL DAY TO SECOND"));
  EXPECT_THAT(Error("create table c (t timestamp, check (t > systimestamp))"),
              HasSubstr("ORA-02436"));
}

}  // namespace
}  // namespace cellsim::db
