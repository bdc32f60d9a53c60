// Sessions as threads of one instance (issue 16 builds on this): several
// sessions run the seed's cycle at once; every commit is counted once, the
// instance's redo is the sum of the sessions', and LGWR's bytes add up.
#include <string>
#include <thread>
#include <vector>

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

TEST(TxnConcurrentTest, SessionsRunTheSeedCycleTogether) {
  TempDir tmp;
  std::unique_ptr<io::IoBackend> io = io::MakePosixBackend();
  ASSERT_OK_AND_ASSIGN(auto rack,
                       asmgr::Rack::Create(io.get(), SystemClock(), tmp.path() + "/rack", SmallRack()));
  DatabaseOptions o;
  o.standard_files.create = true;
  o.all_objects_rows = 3000;
  ASSERT_OK_AND_ASSIGN(auto db, Database::Create(rack.get(), o));
  {
    std::unique_ptr<Session> admin = db->NewSession();
    ASSERT_OK(admin->Execute("create global temporary table sqlrun_gtt on commit delete rows as "
                             "select * from all_objects where 1=0").status());
    ASSERT_OK(admin->Execute("create table txcount (sid number, txacts number)").status());
  }
  constexpr int kSessions = 4, kCycles = 5;
  std::vector<std::unique_ptr<Session>> sessions;
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
  sessions.clear();
  ASSERT_OK(db->Close());
  db.reset();
  ASSERT_OK(rack->Close());
}

}  // namespace
}  // namespace cellsim::db
