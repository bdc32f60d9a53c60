// Sessions as threads of one instance (issue 16 builds on this): several
// sessions run the seed's cycle at once; every commit is counted once, the
// instance's redo is the sum of the sessions', and LGWR's bytes add up.
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "cellsim/db/database.h"
#include "cellsim/io/io_backend.h"
#include "db/db_test_util.h"
#include "gtest/gtest.h"
#include "testing/test_util.h"

namespace cellsim::db {
namespace {

using ::cellsim::db::testing::SmallRack;
using ::cellsim::testing::TempDir;
using stats::Stat;

// A database with its standard files on a small rack in a temp directory;
// each test's sessions run in threads of this process.
class TxnConcurrentTest : public ::testing::Test {
 protected:
  void SetUp() override {
    io_ = io::MakePosixBackend();
    ASSERT_OK_AND_ASSIGN(rack_, asmgr::Rack::Create(io_.get(), SystemClock(), tmp_.path() + "/rack",
                                                    SmallRack()));
    DatabaseOptions o;
    o.standard_files.create = true;
    o.all_objects_rows = 3000;
    ASSERT_OK_AND_ASSIGN(db_, Database::Create(rack_.get(), o));
  }
  // The sessions end first.
  void TearDown() override {
    sessions_.clear();
    if (db_ != nullptr) ASSERT_OK(db_->Close());
    db_.reset();
    if (rack_ != nullptr) ASSERT_OK(rack_->Close());
  }
  TempDir tmp_;
  std::unique_ptr<io::IoBackend> io_;
  std::unique_ptr<asmgr::Rack> rack_;
  std::unique_ptr<Database> db_;
  std::vector<std::unique_ptr<Session>> sessions_;
};

TEST_F(TxnConcurrentTest, SessionsRunTheSeedCycleTogether) {
  Database* db = db_.get();
  std::vector<std::unique_ptr<Session>>& sessions = sessions_;
  {
    std::unique_ptr<Session> admin = db->NewSession();
    ASSERT_OK(admin->Execute("create global temporary table sqlrun_gtt on commit delete rows as "
                             "select * from all_objects where 1=0").status());
    ASSERT_OK(admin->Execute("create table txcount (sid number, txacts number)").status());
  }
  constexpr int kSessions = 4, kCycles = 5;
  for (int i = 0; i < kSessions; ++i) sessions.push_back(db->NewSession());
  const stats::StatValues sys0 = db->SystemStats();
  std::vector<std::thread> threads;
  std::vector<std::string> errors(kSessions);
  for (int i = 0; i < kSessions; ++i) {
    threads.emplace_back([&, i] {
      Session* s = sessions[i].get();
      if (i % 2 == 1) (void)s->Execute("alter session set temp_undo_enabled = true");
      for (int c = 0; c < kCycles; ++c) {
        for (const char* sql :
             {"insert into sqlrun_gtt select * from all_objects", "commit",
              "update sqlrun_gtt set object_id = object_id + 1", "commit",
              "merge into txcount tx using (select sys_context('userenv','sid') sid from dual) s "
              "on (s.sid = tx.sid) when matched then update set tx.txacts = tx.txacts + 1 "
              "when not matched then insert (sid, txacts) values (sys_context('userenv','sid'), 1)",
              "commit", "select n.name, s.value from v$sesstat s, v$statname n where "
              "s.statistic# = n.statistic# and n.name = 'redo size'"}) {
          absl::StatusOr<StatementResult> r = s->Execute(sql);
          if (!r.ok() && errors[i].empty()) errors[i] = std::string(r.status().message());
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (const std::string& e : errors) EXPECT_EQ(e, "");
  int64_t session_redo = 0;
  for (auto& s : sessions) session_redo += s->Stats()[Stat::kRedoSize];
  const stats::StatValues d = db->SystemStats() - sys0;
  EXPECT_EQ(d[Stat::kRedoSize], session_redo);
  EXPECT_EQ(d[Stat::kUserCommits], kSessions * kCycles * 3);
  EXPECT_EQ(d[Stat::kRedoBlocksWritten] * 512,
            d[Stat::kRedoSize] + d[Stat::kRedoWastage] + 16 * d[Stat::kRedoBlocksWritten]);
  // The TRUE sessions made far less redo than the FALSE ones.
  EXPECT_LT(sessions[1]->Stats()[Stat::kRedoSize] * 10, sessions[0]->Stats()[Stat::kRedoSize]);
  ASSERT_OK_AND_ASSIGN(StatementResult tx, sessions[0]->Execute(
                                               "select sid, txacts from txcount order by sid"));
  ASSERT_EQ(tx.result_rows.size(), static_cast<size_t>(kSessions));
  for (const auto& row : tx.result_rows) EXPECT_EQ(row[1], std::to_string(kCycles));
}

// Sessions that grow and shrink rows of the same blocks at once, each rolling
// back at random: every rollback fits (the room it needs is held for it,
// DataEngine::held_space), and the committed values are exactly the model's.
TEST_F(TxnConcurrentTest, RollbacksFitWhileOtherSessionsGrowRowsOfTheSameBlocks) {
  Database* db = db_.get();
  std::vector<std::unique_ptr<Session>>& sessions = sessions_;
  constexpr int kSessions = 3, kRows = 180, kRounds = 40;
  {
    std::unique_ptr<Session> admin = db->NewSession();
    ASSERT_OK(admin->Execute("create table f (id number primary key, pad varchar2(300))").status());
    ASSERT_OK(admin->Execute(fmt::format("insert into f select level - 1, rpad('x', 100, 'x') from "
                                         "dual connect by level <= {}", kRows)).status());
    ASSERT_OK(admin->Execute("commit").status());
  }
  for (int i = 0; i < kSessions; ++i) sessions.push_back(db->NewSession());
  std::vector<std::vector<int>> committed(kSessions, std::vector<int>(kRows, 100));
  std::vector<std::string> errors(kSessions);
  std::vector<std::thread> threads;
  for (int i = 0; i < kSessions; ++i) {
    threads.emplace_back([&, i] {
      std::mt19937 rng(1234 + i);
      Session* s = sessions[i].get();
      std::vector<int> lengths = committed[i];
      for (int round = 0; round < kRounds && errors[i].empty(); ++round) {
        // Session i's rows (id % kSessions == i): some shrink, some grow.
        for (int id = i; id < kRows; id += kSessions) {
          if (rng() % 3 != 0) continue;
          const int len = rng() % 2 == 0 ? 1 + static_cast<int>(rng() % 10)
                                         : 150 + static_cast<int>(rng() % 150);
          absl::StatusOr<StatementResult> r = s->Execute(
              fmt::format("update f set pad = rpad('{}', {}, 'y') where id = {}", i, len, id));
          if (!r.ok()) errors[i] = std::string(r.status().message());
          lengths[id] = len;
        }
        const bool commit = rng() % 2 == 0;
        absl::StatusOr<StatementResult> r = s->Execute(commit ? "commit" : "rollback");
        if (!r.ok() && errors[i].empty()) errors[i] = std::string(r.status().message());
        if (commit) {
          committed[i] = lengths;
        } else {
          lengths = committed[i];
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (const std::string& e : errors) EXPECT_EQ(e, "");
  ASSERT_OK_AND_ASSIGN(StatementResult r,
                       sessions[0]->Execute("select id, length(pad) from f order by id"));
  ASSERT_EQ(r.result_rows.size(), static_cast<size_t>(kRows));
  for (int id = 0; id < kRows; ++id) {
    EXPECT_EQ(r.result_rows[id][1], std::to_string(committed[id % kSessions][id])) << "id " << id;
  }
}

}  // namespace
}  // namespace cellsim::db
