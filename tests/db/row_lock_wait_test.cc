// Sessions that wait for row locks inside the engine (Session::SetRowLockWait),
// as Oracle's do: the wait until the holder's transaction ends, the statement
// run again from its start, V$LOCK / V$SESSION / V$SESSION_WAIT while it
// waits, deadlocks told at once to the session that closes the cycle, the
// limits (the session's, FOR UPDATE WAIT n, NOWAIT), Ctrl-C, a holder that
// disconnects, and many sessions on a few rows (TSan runs these).
#include <fmt/format.h>

#include <chrono>
#include <future>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "cellsim/db/database.h"
#include "db/db_test_util.h"
#include "gtest/gtest.h"
#include "testing/test_util.h"

namespace cellsim::db {
namespace {

using ::testing::HasSubstr;
using stats::Wait;
using Cells = std::vector<std::vector<std::string>>;
using Clock = std::chrono::steady_clock;

class RowLockWaitTest : public testing::SqlTest {
 public:
  using testing::SqlTest::One;
  using testing::SqlTest::Run;

 protected:
  void Configure(DatabaseOptions* o) const override { o->all_objects_rows = 100; }
  void SetUp() override {
    testing::SqlTest::SetUp();
    monitor_ = db_->NewSession();
    Run("create table t (id number, v number)");
    Run("insert into t values (1, 0)");
    Run("insert into t values (2, 0)");
    Run("commit");
  }
  void TearDown() override {
    monitor_.reset();
    testing::SqlTest::TearDown();
  }

  // Runs `sql` in `s` on a thread of its own.
  static std::future<absl::StatusOr<StatementResult>> Start(Session* s, std::string sql) {
    return std::async(std::launch::async, [s, sql] { return s->Execute(sql); });
  }
  // Waits until `n` sessions wait for a row lock (V$LOCK REQUEST 6, or 4
  // for a unique key).
  bool WaitersAre(int n) {
    for (auto end = Clock::now() + std::chrono::seconds(20); Clock::now() < end;) {
      if (One("select count(*) from v$lock where request > 0", monitor_.get()) == std::to_string(n)) {
        return true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    return false;
  }
  // s's open transaction as V$LOCK's ID1 and ID2 name it.
  std::vector<std::string> XidOf(Session* s) {
    StatementResult r = Run(fmt::format("select xidusn * 65536 + xidslot, xidsqn from v$transaction "
                                        "where ses_sid = {}",
                                        s->sid()),
                            monitor_.get());
    return r.result_rows.empty() ? std::vector<std::string>{} : r.result_rows[0];
  }

  std::unique_ptr<Session> monitor_;
};

// B's statement changes row 1, finds row 2 held by A and waits, keeping row
// 1 (A cannot have it) as Oracle's session does; when A commits, B's
// statement runs again and builds on what A committed.
TEST_F(RowLockWaitTest, AWaitingStatementRunsAgainOnTheHoldersCommittedRows) {
  std::unique_ptr<Session> b = db_->NewSession();
  b->SetRowLockWait(kRowLockWaitForever);
  Run("update t set v = 100 where id = 2");
  const std::vector<std::string> xid = XidOf(s_.get());
  ASSERT_EQ(xid.size(), 2u);
  auto pending = Start(b.get(), "update t set v = v + 1 where id in (1, 2)");
  ASSERT_TRUE(WaitersAre(1));
  // V$LOCK: B requests A's TX in mode 6 (a row); A's TX blocks.
  EXPECT_EQ(Run(fmt::format("select type, id1, id2, lmode, request, block from v$lock where sid = "
                            "{} and request > 0",
                            b->sid()),
                monitor_.get())
                .result_rows,
            (Cells{{"TX", xid[0], xid[1], "0", "6", "0"}}));
  EXPECT_EQ(Run("select h.sid, w.sid from v$lock h, v$lock w where h.block = 1 and "
                "w.request > 0 and h.id1 = w.id1 and h.id2 = w.id2",
                monitor_.get())
                .result_rows,
            (Cells{{std::to_string(s_->sid()), std::to_string(b->sid())}}));
  EXPECT_EQ(Run(fmt::format("select status, event, wait_class, state, blocking_session from "
                            "v$session where sid = {}",
                            b->sid()),
                monitor_.get())
                .result_rows,
            (Cells{{"ACTIVE", "enq: TX - row lock contention", "Application", "WAITING",
                    std::to_string(s_->sid())}}));
  EXPECT_EQ(Run(fmt::format("select event, state, wait_time, p2, p3 from v$session_wait where sid = {}",
                            b->sid()),
                monitor_.get())
                .result_rows,
            (Cells{{"enq: TX - row lock contention", "WAITING", "0", xid[0], xid[1]}}));
  EXPECT_EQ(One(fmt::format("select status from v$session where sid = {}", s_->sid()),
                monitor_.get()),
            "INACTIVE");
  // B keeps row 1 while it waits (its change undone, the row locked by its
  // transaction): A, which does not wait, is refused it.
  EXPECT_EQ(One(fmt::format("select count(*) from v$lock where sid = {} and type = 'TX' and "
                            "lmode = 6",
                            b->sid()),
                monitor_.get()),
            "1");
  EXPECT_THAT(Error("update t set v = 50 where id = 1"),
              HasSubstr(fmt::format("is locked by session {}'s open transaction", b->sid())));
  EXPECT_EQ(One("select v from t where id = 1", monitor_.get()), "0");
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  ASSERT_EQ(pending.wait_for(std::chrono::milliseconds(0)), std::future_status::timeout);
  Run("commit");
  absl::StatusOr<StatementResult> r = pending.get();
  ASSERT_OK(r.status());
  EXPECT_EQ(r->rows, 2);
  EXPECT_EQ(r->waits[Wait::kEnqTxRowLockContention].count, 1);
  EXPECT_GE(r->waits[Wait::kEnqTxRowLockContention].total_ns, 30'000'000u);
  EXPECT_EQ(b->Waits()[Wait::kEnqTxRowLockContention].count, 1);
  EXPECT_EQ(One("select count(*) from v$lock where request > 0 or block > 0", monitor_.get()), "0");
  Run("commit", b.get());
  EXPECT_EQ(Run("select id, v from t order by id").result_rows, (Cells{{"1", "1"}, {"2", "101"}}));
}

// Each session holds a row the other wants: the second wait would close the
// cycle, and its session gets ORA-00060 at once; its statement is undone, its
// transaction (and the row it holds) stays until it rolls back.
TEST_F(RowLockWaitTest, TheSessionThatClosesADeadlockIsTold) {
  std::unique_ptr<Session> b = db_->NewSession();
  b->SetRowLockWait(kRowLockWaitForever);
  s_->SetRowLockWait(kRowLockWaitForever);
  Run("update t set v = 1 where id = 1");
  Run("update t set v = 2 where id = 2", b.get());
  auto pending = Start(b.get(), "update t set v = 1 where id = 1");
  ASSERT_TRUE(WaitersAre(1));
  const auto t0 = Clock::now();
  EXPECT_EQ(Error("update t set v = 2 where id = 2"),
            fmt::format("ORA-00060: deadlock detected while waiting for resource (session {} waits "
                        "for session {}, which waits for session {})",
                        s_->sid(), b->sid(), s_->sid()));
  EXPECT_LT(Clock::now() - t0, std::chrono::seconds(2));
  EXPECT_TRUE(s_->InTransaction());
  ASSERT_EQ(pending.wait_for(std::chrono::milliseconds(20)), std::future_status::timeout);
  Run("rollback");
  ASSERT_OK(pending.get().status());
  Run("commit", b.get());
  EXPECT_EQ(Run("select id, v from t order by id").result_rows, (Cells{{"1", "1"}, {"2", "2"}}));
}

// A unique key another open transaction has just written is neither free
// nor a duplicate until it ends: a session adding it waits (or gets the
// ORA-00054 naming the holder, when it does not wait), then gets ORA-00001
// if the holder committed, the key if it rolled back. A committed key is
// ORA-00001 at once.
TEST_F(RowLockWaitTest, AUniqueKeyAnOpenTransactionWroteIsWaitedFor) {
  Run("create table k (id number primary key, v number)");
  Run("insert into k values (1, 0)");
  Run("commit");
  std::unique_ptr<Session> b = db_->NewSession();
  EXPECT_THAT(Error("insert into k values (1, 1)", b.get()), HasSubstr("ORA-00001"));
  Run("insert into k values (7, 0)");  // A, not committed
  absl::Status st = b->Execute("insert into k values (7, 1)").status();
  EXPECT_THAT(std::string(st.message()), HasSubstr("ORA-00054"));
  ASSERT_TRUE(RowLockConflictOf(st).has_value());
  EXPECT_EQ(RowLockConflictOf(st)->holder_sid, s_->sid());
  EXPECT_EQ(RowLockConflictOf(st)->mode, 4u);  // a key: Oracle waits in share mode
  // An update to that key, too (the check at the statement's end).
  EXPECT_THAT(Error("update k set id = 7 where id = 1", b.get()), HasSubstr("ORA-00054"));
  Run("rollback");  // A: 7 is free
  EXPECT_EQ(Run("insert into k values (7, 1)", b.get()).rows, 1);
  Run("commit", b.get());
  // A waiting session: ORA-00001 once the holder commits its key.
  b->SetRowLockWait(kRowLockWaitForever);
  Run("insert into k values (8, 0)");
  auto pending = Start(b.get(), "insert into k values (8, 1)");
  ASSERT_TRUE(WaitersAre(1));
  // The wait asks A's TX in share mode: V$LOCK REQUEST 4, P1 0x54580004.
  EXPECT_EQ(One(fmt::format("select request from v$lock where sid = {} and request > 0", b->sid()),
                monitor_.get()),
            "4");
  EXPECT_EQ(One(fmt::format("select p1 from v$session_wait where sid = {}", b->sid()),
                monitor_.get()),
            "1415053316");
  Run("commit");
  st = pending.get().status();
  EXPECT_THAT(std::string(st.message()), HasSubstr("ORA-00001: unique constraint"));
  EXPECT_EQ(b->Waits()[Wait::kEnqTxRowLockContention].count, 1);
  EXPECT_EQ(Run("select id, v from k order by id").result_rows,
            (Cells{{"1", "0"}, {"7", "1"}, {"8", "0"}}));
}

// A unique key another open transaction deleted (its row deleted, or updated
// to another key) is not free until it commits: its rollback puts the key
// back. (Before, the key was taken at once and the rollback left it twice
// in the table.)
TEST_F(RowLockWaitTest, AUniqueKeyAnOpenTransactionDeletedIsWaitedFor) {
  Run("create table k (id number primary key, v number)");
  Run("insert into k values (1, 0)");
  Run("insert into k values (7, 0)");
  Run("commit");
  std::unique_ptr<Session> b = db_->NewSession();
  Run("delete from k where id = 1");
  Run("update k set id = 70 where id = 7");
  absl::Status st = b->Execute("insert into k values (1, 5)").status();
  EXPECT_THAT(std::string(st.message()), HasSubstr("ORA-00054"));
  EXPECT_EQ(RowLockConflictOf(st)->holder_sid, s_->sid());
  EXPECT_EQ(RowLockConflictOf(st)->mode, 4u);
  EXPECT_THAT(Error("insert into k values (7, 5)", b.get()), HasSubstr("ORA-00054"));
  Run("insert into k values (1, 1)");  // A's own deletion: the key is A's to reuse
  Run("rollback");                     // 1 and 7 are back
  EXPECT_THAT(Error("insert into k values (1, 5)", b.get()), HasSubstr("ORA-00001"));
  EXPECT_THAT(Error("insert into k values (7, 5)", b.get()), HasSubstr("ORA-00001"));
  // A waiting session gets the key once the deletion commits.
  b->SetRowLockWait(kRowLockWaitForever);
  Run("delete from k where id = 1");
  auto pending = Start(b.get(), "insert into k values (1, 5)");
  ASSERT_TRUE(WaitersAre(1));
  Run("commit");
  ASSERT_OK(pending.get().status());
  Run("commit", b.get());
  EXPECT_EQ(Run("select id, v from k order by id").result_rows, (Cells{{"1", "5"}, {"7", "0"}}));
}

// A waiter stays in the engine's waits until it runs again: a holder that
// commits and at once waits for a row of that waiter's is no deadlock (the
// wait it would close the cycle with is over).
TEST_F(RowLockWaitTest, AWaitThatHasEndedClosesNoCycle) {
  std::unique_ptr<Session> b = db_->NewSession();
  b->SetRowLockWait(kRowLockWaitForever);
  s_->SetRowLockWait(kRowLockWaitForever);
  for (int round = 0; round < 20; ++round) {
    Run("update t set v = v + 1 where id = 1");
    Run("update t set v = v + 1 where id = 2", b.get());
    auto pending = std::async(std::launch::async, [&b] {
      absl::Status st = b->Execute("update t set v = v + 1 where id = 1").status();
      return st.ok() ? b->Execute("commit").status() : st;
    });
    ASSERT_TRUE(WaitersAre(1));
    Run("commit");
    // At once, most often before B has run again: waits for B's commit.
    const absl::Status mine = s_->Execute("update t set v = v + 1 where id = 2").status();
    ASSERT_TRUE(mine.ok()) << "round " << round << ": " << mine;
    ASSERT_OK(pending.get());
    Run("commit");
  }
  EXPECT_EQ(Run("select id, v from t order by id").result_rows, (Cells{{"1", "40"}, {"2", "40"}}));
}

// The session's limit ends the wait with the ORA-00054 (a caller may wait on
// with its payloads); FOR UPDATE WAIT n with ORA-30006 after n seconds;
// NOWAIT and a session that does not wait fail at once.
TEST_F(RowLockWaitTest, LimitsEndTheWait) {
  Run("update t set v = 1 where id = 1");
  std::unique_ptr<Session> b = db_->NewSession();
  b->SetRowLockWait(std::chrono::milliseconds(200));
  auto t0 = Clock::now();
  absl::Status st = b->Execute("update t set v = 9 where id in (2, 1)").status();
  EXPECT_GE(Clock::now() - t0, std::chrono::milliseconds(200));
  EXPECT_THAT(std::string(st.message()),
              HasSubstr("ORA-00054: resource busy and acquire with NOWAIT specified or timeout "
                        "expired (waited 0.2"));
  ASSERT_TRUE(RowLockConflictOf(st).has_value());
  EXPECT_EQ(RowLockConflictOf(st)->holder_sid, s_->sid());
  EXPECT_EQ(b->Waits()[Wait::kEnqTxRowLockContention].count, 1);
  EXPECT_FALSE(b->InTransaction());  // row 2's change undone
  t0 = Clock::now();
  st = b->Execute("select * from t where id = 1 for update wait 1").status();
  EXPECT_GE(Clock::now() - t0, std::chrono::seconds(1));
  EXPECT_THAT(std::string(st.message()), HasSubstr("ORA-30006: resource busy; acquire with WAIT "
                                                   "timeout expired (waited 1.0"));
  t0 = Clock::now();
  st = b->Execute("select * from t where id = 1 for update nowait").status();
  EXPECT_LT(Clock::now() - t0, std::chrono::milliseconds(150));
  EXPECT_THAT(std::string(st.message()), HasSubstr("ORA-00054"));
  std::unique_ptr<Session> c = db_->NewSession();  // kNoRowLockWait, the default
  t0 = Clock::now();
  st = c->Execute("update t set v = 9 where id = 1").status();
  EXPECT_LT(Clock::now() - t0, std::chrono::milliseconds(150));
  EXPECT_THAT(std::string(st.message()), HasSubstr("cellsim does not wait"));
  EXPECT_EQ(c->Waits()[Wait::kEnqTxRowLockContention].count, 0);
  EXPECT_EQ(One("select v from t where id = 2", c.get()), "0");
}

// Ctrl-C (the session's cancel flag) ends the wait with ORA-01013, the
// statement undone; a holder that disconnects (its transaction rolled back)
// lets its waiter go on.
TEST_F(RowLockWaitTest, CancelOrTheHoldersDisconnectEndsTheWait) {
  std::unique_ptr<Session> holder = db_->NewSession();
  Run("update t set v = 7 where id = 1", holder.get());
  std::unique_ptr<Session> b = db_->NewSession();
  b->SetRowLockWait(kRowLockWaitForever);
  CancelFlag cancel;
  b->SetCancelFlag(&cancel);
  auto pending = Start(b.get(), "update t set v = v + 1 where id in (2, 1)");
  ASSERT_TRUE(WaitersAre(1));
  cancel.Cancel();
  absl::Status st = pending.get().status();
  EXPECT_TRUE(absl::IsCancelled(st)) << st;
  EXPECT_EQ(std::string(st.message()), kCancelMessage);
  EXPECT_FALSE(b->InTransaction());
  cancel.Reset();
  pending = Start(b.get(), "update t set v = v + 1 where id in (2, 1)");
  ASSERT_TRUE(WaitersAre(1));
  holder.reset();  // its update of row 1 rolled back
  ASSERT_OK(pending.get().status());
  Run("commit", b.get());
  EXPECT_EQ(Run("select id, v from t order by id").result_rows, (Cells{{"1", "1"}, {"2", "1"}}));
}

// Many sessions on two rows, each transaction taking both: no update is
// lost (each row ends at the commits' count) and every wait ends. In a
// random order, deadlocks happen and are told (the session rolls back and
// tries again); in one order none can, and none is told. The number of
// deadlocks told.
int RunSessionsOnTwoRows(RowLockWaitTest& test, Database* db, bool random_order) {
  constexpr int kSessions = 4, kCommits = 25;
  std::vector<std::unique_ptr<Session>> sessions;
  for (int i = 0; i < kSessions; ++i) {
    sessions.push_back(db->NewSession());
    sessions.back()->SetRowLockWait(kRowLockWaitForever);
  }
  std::vector<std::string> errors(kSessions);
  std::vector<int> deadlocks(kSessions, 0);
  std::vector<std::thread> threads;
  for (int i = 0; i < kSessions; ++i) {
    threads.emplace_back([&, i] {
      Session* s = sessions[static_cast<size_t>(i)].get();
      std::mt19937 random(static_cast<uint32_t>(i));
      for (int done = 0; done < kCommits && errors[i].empty();) {
        const int first = random_order ? 1 + static_cast<int>(random() % 2) : 1;
        absl::Status st = s->Execute(fmt::format("update t set v = v + 1 where id = {}", first)).status();
        if (st.ok()) {
          st = s->Execute(fmt::format("update t set v = v + 1 where id = {}", 3 - first)).status();
        }
        if (st.ok()) st = s->Execute("commit").status();
        if (st.ok()) {
          ++done;
        } else if (absl::StrContains(st.message(), "ORA-00060")) {
          ++deadlocks[i];
          if (absl::Status rb = s->Execute("rollback").status(); !rb.ok()) errors[i] = rb.ToString();
        } else {
          errors[i] = st.ToString();
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (const std::string& e : errors) EXPECT_EQ(e, "");
  const std::string n = std::to_string(kSessions * kCommits);
  EXPECT_EQ(test.Run("select id, v from t order by id").result_rows, (Cells{{"1", n}, {"2", n}}));
  int total_deadlocks = 0;
  for (int d : deadlocks) total_deadlocks += d;
  EXPECT_EQ(test.One("select count(*) from v$lock"), "0");
  std::printf("%d commits, %d deadlocks told\n", kSessions * kCommits, total_deadlocks);
  return total_deadlocks;
}

TEST_F(RowLockWaitTest, ManySessionsOnTwoRowsInRandomOrderLoseNoUpdate) {
  RunSessionsOnTwoRows(*this, db_.get(), true);
}

TEST_F(RowLockWaitTest, ManySessionsOnTwoRowsInOneOrderFindNoDeadlock) {
  EXPECT_EQ(RunSessionsOnTwoRows(*this, db_.get(), false), 0);
}

}  // namespace
}  // namespace cellsim::db
