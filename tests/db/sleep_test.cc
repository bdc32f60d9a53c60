// DBMS_SESSION.SLEEP and DBMS_LOCK.SLEEP (docs/sql.md "PL/SQL blocks"): the
// idle wait "PL/SQL lock timer" (P1 the duration in hundredths of a second),
// counted in the call's elapsed time and not in its DB time, shown in
// V$SESSION / V$SESSION_WAIT while it lasts, ended by Ctrl-C, holding the
// session's row locks meanwhile; a simulated clock moves on instead of
// waiting; the errors of a bad time or a misspelt call.
#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "cellsim/db/database.h"
#include "db/db_test_util.h"
#include "gtest/gtest.h"
#include "testing/test_util.h"

namespace cellsim::db {
namespace {

using ::testing::HasSubstr;
using stats::Stat;
using stats::Wait;
using Cells = std::vector<std::vector<std::string>>;
using Steady = std::chrono::steady_clock;

class SleepTest : public testing::SqlTest {
 protected:
  void Configure(DatabaseOptions* o) const override { o->all_objects_rows = 100; }
  // Runs `sql` in `s` on a thread of its own.
  static std::future<absl::StatusOr<StatementResult>> Start(Session* s, std::string sql) {
    return std::async(std::launch::async, [s, sql] { return s->Execute(sql); });
  }
  // Waits until `query` (in `monitor`) gives `want`; false after 20 s.
  bool Until(Session* monitor, const std::string& query, const std::string& want) {
    for (auto end = Steady::now() + std::chrono::seconds(20); Steady::now() < end;) {
      if (One(query, monitor) == want) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    return false;
  }
};

TEST_F(SleepTest, ASleepIsAnIdleWaitInTheElapsedTimeNotInDbTime) {
  const stats::StatValues s0 = s_->Stats();
  const stats::WaitValues w0 = s_->Waits();
  const auto t0 = Steady::now();
  StatementResult r = Run("begin dbms_session.sleep(0.3); end;");
  const auto real = Steady::now() - t0;
  EXPECT_GE(real, std::chrono::milliseconds(300));
  EXPECT_GE(r.elapsed_ns, 300'000'000u);
  const stats::WaitValue w = s_->Waits()[Wait::kPlsqlLockTimer];
  EXPECT_EQ(w.count - w0[Wait::kPlsqlLockTimer].count, 1);
  EXPECT_GE(w.total_ns, 300'000'000u);
  // DB time: the call's 30 cs less its idle wait (a few cs of work at most
  // under ASan).
  EXPECT_LT(s_->Stats()[Stat::kDbTime] - s0[Stat::kDbTime], 10);
  EXPECT_EQ(Run("select event, wait_class, p1text, p1 from v$session_wait where sid = "
                "sys_context('userenv', 'sid')")
                .result_rows,
            (Cells{{"PL/SQL lock timer", "Idle", "duration", "30"}}));
  EXPECT_EQ(Run("select wait_class, wait_class#, total_waits from v$system_wait_class "
                "where wait_class_id = 2723168908")
                .result_rows,
            (Cells{{"Idle", "6", "1"}}));
  EXPECT_EQ(One("select parameter1 from v$event_name where name = 'PL/SQL lock timer'"),
            "duration");
  // DBMS_LOCK.SLEEP, and SYS.-qualified names, are the same wait.
  Run("begin dbms_lock.sleep(0.01); sys.dbms_session.sleep(0); end;");
  EXPECT_EQ(s_->Waits()[Wait::kPlsqlLockTimer].count - w0[Wait::kPlsqlLockTimer].count, 3);
}

// A statement a block runs by EXECUTE IMMEDIATE is a recursive call: its time
// is in the block's call already, so DB time counts it once, and it is not a
// user call (the block is the client's one parse and one execute).
TEST_F(SleepTest, ExecuteImmediateInABlockIsARecursiveCallCountedOnce) {
  const stats::StatValues s0 = s_->Stats();
  StatementResult r = Run(
      "begin execute immediate 'create tablespace tsx datafile ''+DATA'' size 24m'; "
      "dbms_session.sleep(0.2); end;");
  const stats::StatValues s1 = s_->Stats();
  EXPECT_EQ(s1[Stat::kUserCalls] - s0[Stat::kUserCalls], 2);
  EXPECT_EQ(One("select count(*) from dba_data_files where tablespace_name = 'TSX'"), "1");
  // DB time: the call's elapsed time less the sleep, to the centisecond
  // (rounding of the running totals: 1 cs either way).
  const int64_t busy_cs = static_cast<int64_t>((r.elapsed_ns - 200'000'000) / 10'000'000);
  EXPECT_LE(s1[Stat::kDbTime] - s0[Stat::kDbTime], busy_cs + 1);
}

// While it sleeps, the session is ACTIVE in V$SESSION with the event
// WAITING, and V$SESSION_WAIT shows the duration asked; Ctrl-C ends it at
// once (ORA-01013) and the block's changes are undone.
TEST_F(SleepTest, ASleepingSessionIsSeenWaitingAndCtrlCEndsIt) {
  Run("create table t (id number)");
  std::unique_ptr<Session> sleeper = db_->NewSession();
  CancelFlag cancel;
  sleeper->SetCancelFlag(&cancel);
  const std::string sid = std::to_string(sleeper->sid());
  auto pending = Start(sleeper.get(), "begin insert into t values (1); dbms_session.sleep(60); end;");
  ASSERT_TRUE(Until(s_.get(), "select count(*) from v$session where sid = " + sid +
                                  " and event = 'PL/SQL lock timer' and state = 'WAITING'",
                    "1"));
  EXPECT_EQ(Run("select status, wait_class, blocking_session from v$session where sid = " + sid)
                .result_rows,
            (Cells{{"ACTIVE", "Idle", ""}}));
  EXPECT_EQ(Run("select event, p1, state, wait_time from v$session_wait where sid = " + sid)
                .result_rows,
            (Cells{{"PL/SQL lock timer", "6000", "WAITING", "0"}}));
  const auto t0 = Steady::now();
  cancel.Cancel();
  absl::Status st = pending.get().status();
  EXPECT_LT(Steady::now() - t0, std::chrono::seconds(5));
  EXPECT_TRUE(absl::IsCancelled(st)) << st;
  EXPECT_THAT(std::string(st.message()), HasSubstr("ORA-01013"));
  EXPECT_EQ(One("select count(*) from t"), "0");
  EXPECT_EQ(One("select state from v$session_wait where sid = " + sid), "WAITED KNOWN TIME");
  EXPECT_EQ(sleeper->Waits()[Wait::kPlsqlLockTimer].count, 1);
}

// The lab's use: a session holds a row and sleeps; another session's update
// of the row waits until the sleeper commits.
TEST_F(SleepTest, ASleepingSessionKeepsItsRowLocks) {
  Run("create table t (id number, v number)");
  Run("insert into t values (1, 0)");
  Run("commit");
  std::unique_ptr<Session> holder = db_->NewSession();
  std::unique_ptr<Session> waiter = db_->NewSession();
  waiter->SetRowLockWait(kRowLockWaitForever);
  auto held = Start(holder.get(),
                    "begin update t set v = 1 where id = 1; dbms_lock.sleep(0.5); commit; end;");
  ASSERT_TRUE(Until(s_.get(), "select count(*) from v$session where event = 'PL/SQL lock timer' "
                              "and state = 'WAITING'",
                    "1"));
  const auto t0 = Steady::now();
  StatementResult r = Run("update t set v = v + 10 where id = 1", waiter.get());
  EXPECT_GE(Steady::now() - t0, std::chrono::milliseconds(100));
  ASSERT_OK(held.get().status());
  Run("commit", waiter.get());
  EXPECT_EQ(One("select v from t"), "11");
  EXPECT_EQ(waiter->Waits()[Wait::kEnqTxRowLockContention].count, 1);
}

// DBMS_UTILITY.GET_TIME and GET_CPU_TIME, the hundredths of a second labs
// time a sleep (or anything) with, in PL/SQL and in SQL.
TEST_F(SleepTest, GetTimeAndGetCpuTimeMeasureASleep) {
  const std::vector<std::string> out =
      Run("declare t1 number; begin t1 := dbms_utility.get_time; dbms_session.sleep(0.25); "
          "dbms_output.put_line(dbms_utility.get_time - t1); end;")
          .output;
  ASSERT_EQ(out.size(), 1u);
  EXPECT_GE(std::stoi(out[0]), 25);
  EXPECT_LT(std::stoi(out[0]), 25 + 500);
  EXPECT_EQ(One("select sign(dbms_utility.get_time) from dual"), "1");
  EXPECT_THAT(Error("select dbms_utility.get_tim from dual"), HasSubstr("ORA-00904"));
  // With empty parentheses, as often written; GET_CPU_TIME is the session's
  // CPU: a busy loop uses some, a sleep almost none.
  const std::vector<std::string> cpu =
      Run("declare c0 number := dbms_utility.get_cpu_time(); n number := 0; t0 number; "
          "begin while dbms_utility.get_cpu_time() - c0 < 5 loop n := n + 1; end loop; "
          "dbms_output.put_line(dbms_utility.get_cpu_time - c0); "
          "c0 := dbms_utility.get_cpu_time; t0 := dbms_utility.get_time(); "
          "dbms_session.sleep(0.3); "
          "dbms_output.put_line(dbms_utility.get_cpu_time - c0); "
          "dbms_output.put_line(dbms_utility.get_time() - t0); end;")
          .output;
  ASSERT_EQ(cpu.size(), 3u);
  EXPECT_GE(std::stoi(cpu[0]), 5);
  EXPECT_LE(std::stoi(cpu[1]), 5);
  EXPECT_GE(std::stoi(cpu[2]), 30);
}

TEST_F(SleepTest, BadTimesAndMisspeltCallsAreRefused) {
  EXPECT_THAT(Error("begin dbms_session.sleep(3601); end;"),
              HasSubstr("ORA-38148: invalid time limit specified (DBMS_SESSION.SLEEP takes 0 to "
                        "3600 seconds; 3601 given)"));
  EXPECT_THAT(Error("begin dbms_session.sleep(-1); end;"), HasSubstr("ORA-38148"));
  EXPECT_THAT(Error("begin dbms_lock.sleep(null); end;"), HasSubstr("NULL given"));
  EXPECT_THAT(Error("begin dbms_session.sleep('soon'); end;"), HasSubstr("ORA-"));
  EXPECT_THAT(Error("begin dbms_session.slep(1); end;"),
              HasSubstr("PLS-00302: component 'SLEP' must be declared (cellsim's DBMS_SESSION: SLEEP)"));
  EXPECT_THAT(Error("begin dbms_session.sleep; end;"), HasSubstr("SECONDS is required"));
  EXPECT_THAT(Error("begin dbms_session.sleep(1, 2); end;"), HasSubstr("PLS-00306"));
  EXPECT_THAT(Error("begin dbms_session.sleep(sekonds => 1); end;"),
              HasSubstr("it has no parameter SEKONDS"));
  EXPECT_THAT(Error("begin dbms_pipe.sleep(1); end;"),
              HasSubstr("DBMS_SESSION.SLEEP and DBMS_LOCK.SLEEP"));
  EXPECT_EQ(s_->Waits()[Wait::kPlsqlLockTimer].count, 0);
  Run("begin dbms_session.sleep(seconds => 0.004); end;");  // rounds to 0 cs
  EXPECT_EQ(s_->Waits()[Wait::kPlsqlLockTimer].count, 1);
}

class SimulatedSleepTest : public SleepTest {
 protected:
  Clock* clock() const override { return &clock_; }
  mutable testing::SteppedClock clock_;
};

// With a simulated clock (--profile), a sleep moves the modeled time on:
// the call's elapsed time, the wait and GET_TIME's difference are the time
// asked, at once.
TEST_F(SimulatedSleepTest, ASleepMovesTheModeledTimeOnWithoutWaiting) {
  const auto t0 = Steady::now();
  StatementResult r =
      Run("declare t number := dbms_utility.get_time; begin dbms_lock.sleep(100); "
          "dbms_output.put_line(dbms_utility.get_time - t); end;");
  EXPECT_EQ(r.output, std::vector<std::string>{"10000"});
  EXPECT_LT(Steady::now() - t0, std::chrono::seconds(20));
  EXPECT_GE(r.elapsed_ns, 100'000'000'000u);
  EXPECT_LT(r.elapsed_ns, 101'000'000'000u);
  EXPECT_EQ(s_->Waits()[Wait::kPlsqlLockTimer].total_ns, 100'000'000'000u);
  EXPECT_EQ(s_->Stats()[Stat::kDbTime], 0);
}

}  // namespace
}  // namespace cellsim::db
