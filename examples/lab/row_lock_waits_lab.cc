// The row-lock lab's second half, through cellsim's C++ API only: sessions
// that wait for each other's rows inside the database, as Oracle's do
// (db::Session::SetRowLockWait), on threads of one program. It shows what a
// DBA looks at while a session is blocked -- V$SESSION's BLOCKING_SESSION and
// V$LOCK's "who blocks whom" -- then the blocked statement finishing once the
// holder commits, and a deadlock told at once to the session that closes it.
// It checks what it shows and exits 1 if one figure is off, so the build runs
// it as a test. docs/labs/row-locks.md is the lab text.
//
//   row_lock_waits_lab [--dir DIR]
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <future>
#include <memory>
#include <string>
#include <thread>

#include "cellsim/cellsim.h"
#include "fmt/format.h"

namespace {

namespace db = cellsim::db;
using cellsim::stats::Wait;

int failures = 0;

void Check(bool ok, const std::string& what) {
  std::printf("  [%s] %s\n", ok ? "ok" : "FAIL", what.c_str());
  failures += ok ? 0 : 1;
}

// Runs `sql` in `s`, printing it and its result as SQL*Plus would.
absl::StatusOr<db::StatementResult> Show(db::Session& s, const std::string& sql) {
  absl::StatusOr<db::StatementResult> r = s.Execute(sql);
  std::printf("SQL (sid %u)> %s\n%s\n", s.sid(), sql.c_str(),
              r.ok() ? cellsim::Lab::Feedback(*r).c_str() : std::string(r.status().message()).c_str());
  return r;
}

// Waits until `n` sessions wait for a row lock, as V$LOCK shows them.
bool WaitersAre(db::Session& monitor, int n) {
  for (auto end = std::chrono::steady_clock::now() + std::chrono::seconds(20);
       std::chrono::steady_clock::now() < end;
       std::this_thread::sleep_for(std::chrono::milliseconds(5))) {
    absl::StatusOr<db::StatementResult> r =
        monitor.Execute("select count(*) from v$lock where request > 0");
    if (r.ok() && r->result_rows.at(0).at(0) == std::to_string(n)) return true;
  }
  return false;
}

int Lab(const std::string& dir) {
  cellsim::LabOptions options;
  options.database.standard_files.create = true;  // USERS for the table, online logs for LGWR
  options.database.all_objects_rows = 1000;
  absl::StatusOr<std::unique_ptr<cellsim::Lab>> lab = cellsim::Lab::Create(dir, options);
  if (!lab.ok()) return std::fprintf(stderr, "%s\n", lab.status().ToString().c_str()), 1;
  db::Database& database = (*lab)->database();
  {
    std::unique_ptr<db::Session> a = database.NewSession(), b = database.NewSession(),
                                 dba = database.NewSession();
    a->SetRowLockWait(db::kRowLockWaitForever);  // as Oracle: wait until the holder ends
    b->SetRowLockWait(db::kRowLockWaitForever);
    for (const char* sql : {"create table accounts (id number, balance number)",
                            "insert into accounts values (1, 100)",
                            "insert into accounts values (2, 100)", "commit"}) {
      if (!Show(*a, sql).ok()) return 1;
    }
    std::printf("-- Session A moves 10 from account 1 and does not commit yet.\n");
    (void)Show(*a, "update accounts set balance = balance - 10 where id = 1");
    std::printf("-- Session B, on another thread, wants the same row: it waits.\n");
    auto pending = std::async(std::launch::async, [&b] {
      return b->Execute("update accounts set balance = balance + 1 where id in (2, 1)");
    });
    Check(WaitersAre(*dba, 1), "B waits (V$LOCK has one REQUEST)");
    absl::StatusOr<db::StatementResult> blocked = Show(
        *dba, "select sid, status, event, state, blocking_session from v$session "
              "where blocking_session is not null");
    Check(blocked.ok() && blocked->result_rows.size() == 1 &&
              blocked->result_rows[0][4] == std::to_string(a->sid()),
          fmt::format("V$SESSION: B's BLOCKING_SESSION is A ({})", a->sid()));
    absl::StatusOr<db::StatementResult> who = Show(
        *dba, "select h.sid holder, w.sid waiter, h.type, h.id1, h.id2 from v$lock h, v$lock w "
              "where h.block = 1 and w.request > 0 and h.id1 = w.id1 and h.id2 = w.id2");
    Check(who.ok() && who->result_rows.size() == 1 &&
              who->result_rows[0][0] == std::to_string(a->sid()) &&
              who->result_rows[0][1] == std::to_string(b->sid()),
          "V$LOCK: A's TX blocks B's request");
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    std::printf("-- A commits; B's statement runs again on A's committed row.\n");
    (void)Show(*a, "commit");
    absl::StatusOr<db::StatementResult> done = pending.get();
    Check(done.ok() && done->rows == 2, "B's update changed its 2 rows");
    if (done.ok()) {
      const double ms = static_cast<double>(done->waits[Wait::kEnqTxRowLockContention].total_ns) / 1e6;
      std::printf("  B waited %.0f ms on 'enq: TX - row lock contention' (%lld wait)\n", ms,
                  static_cast<long long>(done->waits[Wait::kEnqTxRowLockContention].count));
      Check(done->waits[Wait::kEnqTxRowLockContention].count == 1 && ms >= 200,
            "one enq: TX wait of 200 ms or more, in B's statement");
    }
    (void)Show(*b, "commit");
    absl::StatusOr<db::StatementResult> sums = Show(*dba, "select id, balance from accounts order by id");
    Check(sums.ok() && sums->result_rows.size() == 2 && sums->result_rows[0][1] == "91" &&
              sums->result_rows[1][1] == "101",
          "balances 91 and 101: neither change lost");

    std::printf("-- A deadlock: A holds row 1, B row 2; B asks for row 1 and waits;\n"
                "-- A asks for row 2 and would close the cycle: A is told at once.\n");
    (void)Show(*a, "update accounts set balance = balance - 1 where id = 1");
    (void)Show(*b, "update accounts set balance = balance - 1 where id = 2");
    pending = std::async(std::launch::async, [&b] {
      return b->Execute("update accounts set balance = balance + 1 where id = 1");
    });
    Check(WaitersAre(*dba, 1), "B waits for A");
    absl::StatusOr<db::StatementResult> dead =
        Show(*a, "update accounts set balance = balance + 1 where id = 2");
    Check(!dead.ok() && dead.status().message().substr(0, 9) == "ORA-00060",
          "A gets ORA-00060, its transaction still open");
    std::printf("-- A rolls back (as an application does on ORA-00060); B goes on.\n");
    (void)Show(*a, "rollback");
    Check(pending.get().ok(), "B's update went through");
    (void)Show(*b, "commit");
  }
  absl::Status closed = (*lab)->Close();
  if (!closed.ok()) return std::fprintf(stderr, "%s\n", closed.ToString().c_str()), 1;
  std::printf("%s\n", failures == 0 ? "all checks passed" : "some checks FAILED");
  return failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--dir" && i + 1 < argc) {
      dir = argv[++i];
    } else {
      std::fprintf(stderr, "usage: row_lock_waits_lab [--dir DIR]\n");
      return 2;
    }
  }
  const bool temporary = dir.empty();
  if (temporary) {
    const char* tmp = std::getenv("TMPDIR");
    dir = fmt::format("{}/cellsim-row-lock-waits-{}", tmp != nullptr ? tmp : "/tmp", getpid());
  }
  const int rc = Lab(dir);
  if (temporary) std::filesystem::remove_all(dir);
  return rc;
}
