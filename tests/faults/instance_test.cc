// `cellsim instance` (cellsim/cli/instance.h): one process serves the
// `cellsim sql` runs of other processes as sessions of one database. Through
// the real binary, as users meet it: two terminals (one a SQL> prompt on a
// pipe) see each other's commits and not each other's uncommitted changes,
// and one waits for a row the other holds; Ctrl-C reaches the session; a
// client killed with -9 loses only its own uncommitted work; SIGTERM to the
// instance is SHUTDOWN IMMEDIATE; kill -9 of the instance leaves its clients
// ORA-03113 and the next open instance recovery; options that belong to the
// instance are refused by its clients; sqlrun (its sessions in V$SESSION),
// asmcmd and cellcli run in it too, and
// a second instance (or a command that opens the rack itself) waits for the
// rack's lock naming the first.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <iterator>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cellsim/cli/write_workload.h"
#include "faults/child_process.h"
#include "gtest/gtest.h"
#include "gmock/gmock.h"
#include "testing/test_util.h"

#ifndef CELLSIM_BIN
#error "CELLSIM_BIN must name the cellsim binary (target_compile_definitions)"
#endif

namespace cellsim::faults::testing {
namespace {

using ::cellsim::testing::TempDir;
using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::Not;

std::string MakeRack(const TempDir& tmp) {
  const std::string rack = tmp.File("rack");
  const CmdRun r = Cellsim(tmp.File("create.err"),
                           {"rack", "create", rack, "--cells", "1", "--disks-per-cell", "2",
                            "--disk-group", "DATA:EXTERNAL:512m", "--disk-group",
                            "RECO:EXTERNAL:256m", "--flash-size", "64m"});
  EXPECT_TRUE(r.ok()) << r.err;
  return rack;
}

// Waits up to a minute for `pred`; false when it never held.
template <typename Pred>
bool WaitUntil(Pred pred) {
  for (int i = 0; i < 1200; ++i) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

// `cellsim instance RACK` started and serving (its "started" line written).
ChildProcess StartInstance(const std::string& rack, const std::string& err,
                           std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"instance", rack};
  args.insert(args.end(), extra.begin(), extra.end());
  ChildProcess instance = CellsimChild(args, err);
  EXPECT_TRUE(instance.started()) << instance.error();
  EXPECT_TRUE(WaitUntil([&] {
    return instance.Exited() || instance.Stderr().find(" started (pid") != std::string::npos;
  }));
  EXPECT_FALSE(instance.Exited()) << instance.Stderr();
  EXPECT_TRUE(std::filesystem::exists(rack + "/instance.sock"));
  return instance;
}

// Table T with one row (1, 1), made through the instance serving `rack`.
CmdRun MakeTableT(const TempDir& tmp, const std::string& rack) {
  return Cellsim(tmp.File("t.err"), {"sql", rack, "-e", "create table t (id number, x number)",
                                     "-e", "insert into t values (1, 1)", "-e", "commit"});
}

// Waits for `child` to exit within a minute; its wait status, or -1 (killed).
int WaitBriefly(ChildProcess& child) {
  if (!WaitUntil([&] { return child.Exited(); })) {
    child.Kill();
    child.Wait();
    return -1;
  }
  return child.Wait();
}

TEST(Instance, TwoTerminalsAreTwoSessionsOfOneDatabase) {
  TempDir tmp;
  const std::string rack = MakeRack(tmp);
  ChildProcess instance = StartInstance(rack, tmp.File("instance.err"), {"--standard-files"});
  CmdRun r = Cellsim(tmp.File("e1"), {"sql", rack, "-e", "create table acct (id number primary key, "
                                      "bal number)", "-e", "insert into acct values (1, 100)",
                                      "-e", "insert into acct values (2, 200)", "-e", "commit"});
  ASSERT_TRUE(r.ok()) << r.err;

  // Terminal A: a SQL> prompt that changes row 1 and does not commit.
  ChildProcess a = CellsimChild({"sql", rack, "-i"}, tmp.File("a.err"), /*stdin_pipe=*/true);
  ASSERT_TRUE(a.ReadUntil("SQL> ")) << a.Stderr();
  ASSERT_TRUE(a.WriteStdin("update acct set bal = bal - 30 where id = 1;\n"));
  std::optional<std::string> out = a.ReadUntil("SQL> ");
  ASSERT_TRUE(out) << a.Stderr();
  EXPECT_THAT(*out, HasSubstr("1 row updated."));

  // Terminal B reads at once (no lock wait: A's session is not the rack's
  // owner) and sees the committed 100, not A's uncommitted 70.
  r = Cellsim(tmp.File("e2"), {"sql", rack, "-e", "select bal from acct where id = 1"});
  ASSERT_TRUE(r.ok()) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\n100\n"));

  // Terminal C changes the same row: it waits for A's transaction, and a
  // fourth session sees it waiting and who blocks it.
  ChildProcess c = CellsimChild({"sql", rack, "-e", "update acct set bal = bal + 5 where id = 1",
                                 "-e", "commit"},
                                tmp.File("c.err"));
  ASSERT_TRUE(WaitUntil([&] {
    const CmdRun s = Cellsim(tmp.File("e3"),
                             {"sql", rack, "-e",
                              "select process, program, event, blocking_session from v$session "
                              "where blocking_session is not null"});
    // The waiting session is C's `cellsim sql`, named by its pid.
    return s.out.find("enq: TX - row lock contention") != std::string::npos &&
           s.out.find(std::to_string(c.pid()) + " ") != std::string::npos &&
           s.out.find("cellsim sql") != std::string::npos;
  })) << c.Stderr();
  EXPECT_FALSE(c.Exited()) << c.Stderr();

  ASSERT_TRUE(a.WriteStdin("commit;\n"));
  out = a.ReadUntil("SQL> ");
  ASSERT_TRUE(out) << a.Stderr();
  EXPECT_THAT(*out, HasSubstr("Commit complete."));
  const int c_status = WaitBriefly(c);
  EXPECT_TRUE(WIFEXITED(c_status) && WEXITSTATUS(c_status) == 0) << c.Stderr();
  ASSERT_TRUE(a.WriteStdin("select bal from acct where id = 1;\nexit\n"));
  out = a.ReadUntil("SQL> ");
  ASSERT_TRUE(out) << a.Stderr();
  EXPECT_THAT(*out, HasSubstr("\n 75\n"));  // A's commit, then C's
  int a_status = WaitBriefly(a);
  EXPECT_TRUE(WIFEXITED(a_status) && WEXITSTATUS(a_status) == 0) << a.Stderr();

  r = Cellsim(tmp.File("e4"), {"sql", rack, "-e", "select sum(bal) from acct"});
  ASSERT_TRUE(r.ok()) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\n     275\n"));  // 100 - 30 + 5 + 200: nothing lost
  instance.Signal(SIGTERM);
  const int status = WaitBriefly(instance);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << instance.Stderr();
  EXPECT_FALSE(std::filesystem::exists(rack + "/instance.sock"));
  EXPECT_THAT(instance.Stderr(), HasSubstr("Instance shut down"));
}

TEST(Instance, CtrlCAndAKilledClientEndOnlyTheirOwnWork) {
  TempDir tmp;
  const std::string rack = MakeRack(tmp);
  ChildProcess instance = StartInstance(rack, tmp.File("instance.err"), {"--standard-files"});
  CmdRun r = MakeTableT(tmp, rack);
  ASSERT_TRUE(r.ok()) << r.err;

  // Ctrl-C of a client mid-statement: the statement is cancelled in the
  // instance (ORA-01013), the client ends 128 + SIGINT, the instance goes on.
  ChildProcess q = CellsimChild({"sql", rack, "-e", "update t set x = 2", "-e",
                                 "select count(*) from all_objects a, all_objects b"},
                                tmp.File("q.err"));
  std::optional<std::string> line;
  while ((line = q.ReadLine()) && line->find("1 row updated.") == std::string::npos) {
  }
  ASSERT_TRUE(line) << q.Stderr();
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // the join is running
  EXPECT_FALSE(q.Exited()) << q.Stderr();
  q.Signal(SIGINT);
  int status = WaitBriefly(q);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 128 + SIGINT)
      << DescribeWaitStatus(status) << q.Stderr();
  EXPECT_THAT(q.Stderr(), HasSubstr("ORA-01013"));

  // A client killed with -9 while its transaction holds the row: the
  // instance rolls it back (as PMON does), so the row is free again and its
  // change is gone.
  ChildProcess a = CellsimChild({"sql", rack, "-i"}, tmp.File("a.err"), /*stdin_pipe=*/true);
  ASSERT_TRUE(a.ReadUntil("SQL> ")) << a.Stderr();
  ASSERT_TRUE(a.WriteStdin("update t set x = 50 where id = 1;\n"));
  ASSERT_TRUE(a.ReadUntil("SQL> ")) << a.Stderr();
  a.Kill();
  a.Wait();
  ChildProcess b = CellsimChild({"sql", rack, "-e", "update t set x = x + 10", "-e", "commit",
                                 "-e", "select x from t"},
                                tmp.File("b.err"));
  status = WaitBriefly(b);  // a row never freed would keep it waiting: killed after a minute
  std::string b_out;
  while (auto line = b.ReadLine()) b_out += *line + "\n";
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << b.Stderr();
  EXPECT_THAT(b_out, HasSubstr("\n11\n"));  // 1 + 10: neither 2 nor 50 stayed
  EXPECT_THAT(instance.Stderr(), HasSubstr("ended (exit 130)"));
  EXPECT_FALSE(instance.Exited()) << instance.Stderr();

  // A client whose output nobody reads any more (`| head`) ends as SIGPIPE
  // ends a `cellsim sql` on its own: the statements after are not run.
  std::ofstream(tmp.File("long.sql")) << "select level from dual connect by level <= 200000;\n"
                                         "update t set x = 99;\ncommit;\n";
  std::ofstream(tmp.File("pipe.sh"))
      << "'" << CELLSIM_BIN << "' sql '" << rack << "' -f '" << tmp.File("long.sql")
      << "' 2>/dev/null | head -c 10 >/dev/null\necho ${PIPESTATUS[0]}\n";
  r = RunToEnd({"/bin/bash", tmp.File("pipe.sh")}, tmp.File("pipe.err"));
  ASSERT_TRUE(r.ok()) << r.err;
  EXPECT_EQ(r.out, std::to_string(128 + SIGPIPE) + "\n");
  r = Cellsim(tmp.File("e3"), {"sql", rack, "-e", "select x from t"});
  EXPECT_THAT(r.out, HasSubstr("\n11\n"));  // not 99
  EXPECT_FALSE(instance.Exited()) << instance.Stderr();
}

TEST(Instance, ShutdownImmediateAndKillNineKeepOnlyCommittedWork) {
  TempDir tmp;
  const std::string rack = MakeRack(tmp);
  ChildProcess instance = StartInstance(rack, tmp.File("i1.err"), {"--standard-files"});
  CmdRun r = MakeTableT(tmp, rack);
  ASSERT_TRUE(r.ok()) << r.err;
  ChildProcess a = CellsimChild({"sql", rack, "-i"}, tmp.File("a.err"), /*stdin_pipe=*/true);
  ASSERT_TRUE(a.ReadUntil("SQL> ")) << a.Stderr();
  ASSERT_TRUE(a.WriteStdin("update t set x = 99;\n"));
  ASSERT_TRUE(a.ReadUntil("SQL> ")) << a.Stderr();
  instance.Signal(SIGTERM);  // SHUTDOWN IMMEDIATE: A's transaction is rolled back
  int status = WaitBriefly(a);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 1) << DescribeWaitStatus(status);
  EXPECT_THAT(a.Stderr(), HasSubstr("ended by SHUTDOWN IMMEDIATE at the SQL> prompt"));
  EXPECT_THAT(a.Stderr(), HasSubstr("ORA-01089"));
  status = WaitBriefly(instance);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << instance.Stderr();
  EXPECT_THAT(instance.Stderr(), HasSubstr("rolled back"));
  EXPECT_THAT(instance.Stderr(), HasSubstr(": cellsim sql\n"));  // each session's command

  // No instance: `cellsim sql` opens the rack itself, and finds x = 1.
  r = Cellsim(tmp.File("e2"), {"sql", rack, "-e", "select x from t"});
  ASSERT_TRUE(r.ok()) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\n1\n"));
  EXPECT_THAT(r.err, Not(HasSubstr("recovery")));  // the shutdown closed it cleanly

  // kill -9 of the instance: a client mid-statement gets ORA-03113; the
  // socket it leaves is ignored, and the next open recovers the commits.
  ChildProcess second = StartInstance(rack, tmp.File("i2.err"));
  r = Cellsim(tmp.File("e3"), {"sql", rack, "-e", "update t set x = 7", "-e", "commit"});
  ASSERT_TRUE(r.ok()) << r.err;
  ChildProcess q = CellsimChild({"sql", rack, "-e", "update t set x = 8", "-e",
                                 "select count(*) from all_objects a, all_objects b"},
                                tmp.File("q.err"));
  std::this_thread::sleep_for(std::chrono::seconds(1));
  second.Kill();
  second.Wait();
  status = WaitBriefly(q);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 1) << DescribeWaitStatus(status);
  EXPECT_THAT(q.Stderr(), HasSubstr("ORA-03113"));
  EXPECT_TRUE(std::filesystem::exists(rack + "/instance.sock"));
  r = Cellsim(tmp.File("e4"), {"sql", rack, "-e", "select x from t"});
  ASSERT_TRUE(r.ok()) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\n7\n"));
  EXPECT_THAT(r.err, HasSubstr("instance recovery"));
}

// A Sqlrun workload run through the instance: its sessions are the
// instance's (another terminal sees them in V$SESSION, named by the
// client's pid), and every commit it counts is in the table.
TEST(Instance, SqlrunSessionsAreTheInstances) {
  TempDir tmp;
  const std::string rack = MakeRack(tmp);
  ChildProcess instance = StartInstance(rack, tmp.File("instance.err"), {"--standard-files"});
  CmdRun r = MakeTableT(tmp, rack);
  ASSERT_TRUE(r.ok()) << r.err;
  const std::string sql = tmp.File("SQL/Oracle");
  std::filesystem::create_directories(sql);
  std::ofstream(sql + "/sqlfile.conf") << ",\n1,bump.sql,\n";
  std::ofstream(sql + "/bump.sql") << "update t set x = x + 1 where id = 1\n";
  ChildProcess w = CellsimChild({"sqlrun", rack, "--sqldir", tmp.File("SQL"), "--max-sessions",
                                 "2", "--runtime", "3", "--exe-delay", "0.05", "--tx-behavior",
                                 "commit", "--connect-mode", "flood"},
                                tmp.File("w.err"));
  ASSERT_TRUE(WaitUntil([&] {
    const CmdRun s = Cellsim(tmp.File("e2"), {"sql", rack, "-e",
                                              "select count(*) from v$session where program = "
                                              "'cellsim sqlrun' and process = '" +
                                                  std::to_string(w.pid()) + "'"});
    return w.Exited() || std::regex_search(s.out, std::regex("\n *2\n"));
  })) << w.Stderr();
  EXPECT_FALSE(w.Exited()) << w.Stderr();
  const int status = WaitBriefly(w);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << w.Stderr();
  std::string out;
  while (auto line = w.ReadLine()) out += *line + "\n";
  const size_t at = out.find("commits ");
  ASSERT_NE(at, std::string::npos) << out;
  const int commits = std::stoi(out.substr(at + 8));
  EXPECT_GT(commits, 0);
  r = Cellsim(tmp.File("e3"), {"sql", rack, "-e", "select x - 1 from t"});
  ASSERT_TRUE(r.ok()) << r.err;
  EXPECT_THAT(r.out, ContainsRegex("\n *" + std::to_string(commits) + "\n"));
}

TEST(Instance, ItsOptionsAndItsRackAreItsOwn) {
  TempDir tmp;
  const std::string rack = MakeRack(tmp);
  ChildProcess instance = StartInstance(rack, tmp.File("instance.err"));
  // A client asking for another clock cannot have it: the instance's is shared.
  CmdRun r = Cellsim(tmp.File("e1"), {"sql", rack, "--profile", "x3-2", "-e", "select 1 from dual"});
  EXPECT_EQ(r.exit_code(), 2);
  EXPECT_THAT(r.err, HasSubstr("--profile"));
  EXPECT_THAT(r.err, HasSubstr("cellsim instance"));
  // --lock-timeout has nothing to wait for: accepted.
  r = Cellsim(tmp.File("e2"), {"sql", rack, "--lock-timeout", "1s", "-e", "select 1 from dual"});
  EXPECT_TRUE(r.ok()) << r.err;
  // A second instance, or a command that opens the rack itself, waits for
  // the lock and names the instance holding it.
  r = Cellsim(tmp.File("e3"), {"instance", rack, "--lock-timeout", "0"});
  EXPECT_EQ(r.exit_code(), 1);
  EXPECT_THAT(r.err, HasSubstr("cellsim instance"));
  // A setting of the open database is the instance's too; the same value is
  // no conflict.
  r = Cellsim(tmp.File("e4"), {"sql", rack, "--all-objects-rows", "10", "-e",
                               "select count(*) from all_objects"});
  EXPECT_EQ(r.exit_code(), 2);
  EXPECT_THAT(r.err, HasSubstr("--all-objects-rows 10: the instance serving"));
  EXPECT_THAT(r.err, HasSubstr("opened its database with 70000"));
  r = Cellsim(tmp.File("e4"), {"sql", rack, "--all-objects-rows", "70000", "-e",
                               "select count(*) from all_objects"});
  EXPECT_TRUE(r.ok()) << r.err;
  EXPECT_THAT(r.out, ContainsRegex("\n *70000\n"));
  // asmcmd and cellcli run in the instance, beside its sessions, on its
  // open rack; their errors and exit codes reach the client.
  r = Cellsim(tmp.File("e5"), {"asmcmd", rack, "lsdg", "--suppressheader"});
  EXPECT_TRUE(r.ok()) << r.err;
  EXPECT_THAT(r.out, HasSubstr("DATA/"));
  EXPECT_THAT(r.out, HasSubstr("RECO/"));
  r = Cellsim(tmp.File("e6"), {"cellcli", rack, "-e", "list griddisk attributes name, status"});
  EXPECT_TRUE(r.ok()) << r.err;
  EXPECT_THAT(r.out, HasSubstr("DATA_CD_00_cel01"));
  r = Cellsim(tmp.File("e7"), {"cellcli", rack, "-c", "cel09", "-e", "list cell"});
  EXPECT_EQ(r.exit_code(), 2);
  EXPECT_THAT(r.err, HasSubstr("cel09: no such cell"));
  r = Cellsim(tmp.File("e8"), {"asmcmd", rack, "--profile", "x3-2", "lsdg"});
  EXPECT_EQ(r.exit_code(), 2);
  EXPECT_THAT(r.err, HasSubstr("cellsim asmcmd: --profile"));
  // A script piped in, @ with a relative path (the client's folder, not
  // the instance's), and a failing statement's exit code all reach the client.
  {
    std::ofstream(tmp.File("inner.sql")) << "select 'inner' from dual;\n";
  }
  ChildProcess s = CellsimChild({"sql", rack}, tmp.File("s.err"), /*stdin_pipe=*/true);
  ASSERT_TRUE(s.WriteStdin("@" + tmp.File("inner.sql") + "\nselect nosuch from dual;\n"));
  s.CloseStdin();
  std::string s_out;
  while (auto line = s.ReadLine()) s_out += *line + "\n";
  const int status = WaitBriefly(s);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 2) << DescribeWaitStatus(status);
  EXPECT_THAT(s_out, HasSubstr("inner"));
  EXPECT_THAT(s.Stderr(), HasSubstr("ORA-00904"));
  instance.Signal(SIGINT);
  EXPECT_EQ(WaitBriefly(instance), 0) << instance.Stderr();
}

// SQL*Plus's SHUTDOWN from a session: IMMEDIATE rolls the others back and
// closes; NORMAL waits for them to end, refusing new ones (ORA-01090);
// TRANSACTIONAL waits for their transactions; ABORT ends the instance as kill -9 does (the next open recovers); a
// session in a transaction may not (ORA-01097). On its own the same.
TEST(Instance, ASessionShutsTheInstanceDown) {
  TempDir tmp;
  const std::string rack = MakeRack(tmp);
  ChildProcess instance = StartInstance(rack, tmp.File("i1.err"), {"--standard-files"});
  CmdRun r = MakeTableT(tmp, rack);
  ASSERT_TRUE(r.ok()) << r.err;
  r = Cellsim(tmp.File("e1"), {"sql", rack, "-e", "insert into t values (2, 2)", "-e", "shutdown"});
  EXPECT_EQ(r.exit_code(), 1);
  EXPECT_THAT(r.err, HasSubstr("ORA-01097"));
  ChildProcess a = CellsimChild({"sql", rack, "-i"}, tmp.File("a.err"), /*stdin_pipe=*/true);
  ASSERT_TRUE(a.ReadUntil("SQL> ")) << a.Stderr();
  ASSERT_TRUE(a.WriteStdin("update t set x = 99;\n"));
  ASSERT_TRUE(a.ReadUntil("SQL> ")) << a.Stderr();
  r = Cellsim(tmp.File("e2"), {"sql", rack, "-e", "shutdown immediate"});
  EXPECT_TRUE(r.ok()) << r.err;
  EXPECT_THAT(r.out, HasSubstr("Database closed.\nDatabase dismounted.\nORACLE instance shut down."));
  int status = WaitBriefly(a);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 1) << DescribeWaitStatus(status);
  EXPECT_THAT(a.Stderr(), HasSubstr("ORA-01089"));
  EXPECT_EQ(WaitBriefly(instance), 0) << instance.Stderr();
  EXPECT_THAT(instance.Stderr(), HasSubstr("SHUTDOWN IMMEDIATE by session"));

  // NORMAL waits for the other session, and refuses a new one meanwhile.
  ChildProcess second = StartInstance(rack, tmp.File("i2.err"));
  ChildProcess b = CellsimChild({"sql", rack, "-i"}, tmp.File("b.err"), /*stdin_pipe=*/true);
  ASSERT_TRUE(b.ReadUntil("SQL> ")) << b.Stderr();
  ChildProcess n = CellsimChild({"sql", rack, "-e", "shutdown normal"}, tmp.File("n.err"));
  ASSERT_TRUE(WaitUntil([&] {
    return n.Exited() || second.Stderr().find("session 2: SHUTDOWN NORMAL") != std::string::npos;
  }));
  r = Cellsim(tmp.File("e3"), {"sql", rack, "-e", "select 1 from dual"});
  EXPECT_EQ(r.exit_code(), 1);
  EXPECT_THAT(r.err, HasSubstr("ORA-01090"));
  EXPECT_FALSE(n.Exited()) << n.Stderr();  // still waiting for B
  b.CloseStdin();                            // B ends its session
  EXPECT_EQ(WaitBriefly(b), 0) << b.Stderr();
  status = WaitBriefly(n);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << n.Stderr();
  EXPECT_THAT(n.ReadUntil("ORACLE instance shut down."), ::testing::Optional(HasSubstr("Database closed.")));
  EXPECT_EQ(WaitBriefly(second), 0) << second.Stderr();

  // TRANSACTIONAL waits for the other session's transaction, then ends it.
  ChildProcess fourth = StartInstance(rack, tmp.File("i4.err"));
  ChildProcess d = CellsimChild({"sql", rack, "-i"}, tmp.File("d.err"), /*stdin_pipe=*/true);
  ASSERT_TRUE(d.ReadUntil("SQL> ")) << d.Stderr();
  ASSERT_TRUE(d.WriteStdin("update t set x = 17;\n"));
  ASSERT_TRUE(d.ReadUntil("SQL> ")) << d.Stderr();
  // E, connected but in no transaction, may not begin one meanwhile.
  ChildProcess idle = CellsimChild({"sql", rack, "-i"}, tmp.File("idle.err"), /*stdin_pipe=*/true);
  ASSERT_TRUE(idle.ReadUntil("SQL> ")) << idle.Stderr();
  // The asking session goes on without a database (ORA-01034), and its
  // STARTUP cannot start the instance.
  ChildProcess tx = CellsimChild({"sql", rack, "-e", "whenever sqlerror continue", "-e",
                                  "shutdown transactional", "-e", "select 1 from dual", "-e",
                                  "startup"},
                                 tmp.File("tx.err"));
  ASSERT_TRUE(WaitUntil([&] {
    return tx.Exited() ||
           fourth.Stderr().find("session 3: SHUTDOWN TRANSACTIONAL") != std::string::npos;
  }));
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  EXPECT_FALSE(tx.Exited()) << tx.Stderr();  // D's transaction is open
  ASSERT_TRUE(idle.WriteStdin("insert into t values (5, 5);\nselect 'alive' from dual;\n"));
  std::optional<std::string> seen = idle.ReadUntil("alive\n");  // a query still runs
  ASSERT_TRUE(seen) << idle.Stderr();
  EXPECT_THAT(idle.Stderr(), HasSubstr("ORA-01089"));
  EXPECT_THAT(idle.Stderr(), HasSubstr("lets no new one begin: INSERT refused"));
  EXPECT_FALSE(tx.Exited()) << tx.Stderr();
  ASSERT_TRUE(d.WriteStdin("commit;\n"));
  EXPECT_TRUE(WIFEXITED(WaitBriefly(tx)) && tx.Wait() == 0) << tx.Stderr();
  EXPECT_THAT(tx.Stderr(), HasSubstr("ORA-01034: ORACLE not available"));
  // (naming the rack, whose path the instance was started with made absolute)
  EXPECT_THAT(tx.Stderr(), HasSubstr("start it again with `cellsim instance " +
                                     std::filesystem::absolute(rack).string() + "`"));
  status = WaitBriefly(d);  // ended by the shutdown, its commit kept
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 1) << DescribeWaitStatus(status);
  EXPECT_THAT(d.Stderr(), HasSubstr("ended by SHUTDOWN TRANSACTIONAL at the SQL> prompt"));
  status = WaitBriefly(idle);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 1) << DescribeWaitStatus(status);
  EXPECT_THAT(idle.Stderr(), HasSubstr("ended by SHUTDOWN TRANSACTIONAL at the SQL> prompt"));
  EXPECT_EQ(WaitBriefly(fourth), 0) << fourth.Stderr();
  EXPECT_THAT(fourth.Stderr(), HasSubstr("2 session(s) ended once V$TRANSACTION was empty"));
  r = Cellsim(tmp.File("e8"), {"sql", rack, "-e", "select x from t"});
  EXPECT_THAT(r.out, HasSubstr("\n17\n"));

  // ABORT: the instance ends at once; the next open recovers the commit.
  ChildProcess third = StartInstance(rack, tmp.File("i3.err"));
  r = Cellsim(tmp.File("e4"), {"sql", rack, "-e", "update t set x = 43", "-e", "commit", "-e",
                               "shutdown abort", "-e", "select 1 from dual", "-e", "exit"});
  EXPECT_EQ(r.exit_code(), 1) << r.err;  // the instance is gone, and the select not run
  EXPECT_THAT(r.err, HasSubstr("the 1 statement(s) after it were not run"));
  EXPECT_THAT(r.out, HasSubstr("ORACLE instance shut down."));
  EXPECT_THAT(r.out, Not(HasSubstr("Database closed.")));
  EXPECT_EQ(WaitBriefly(third), 0) << third.Stderr();
  EXPECT_FALSE(std::filesystem::exists(rack + "/instance.sock"));
  r = Cellsim(tmp.File("e5"), {"sql", rack, "-e", "select x from t", "-e", "shutdown abort"});
  EXPECT_TRUE(r.ok()) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\n43\n"));
  EXPECT_THAT(r.err, HasSubstr("instance recovery"));  // after the instance's ABORT
  // On its own too: its own ABORT leaves recovery to the next open, and
  // IMMEDIATE closes (the open after it has nothing to recover).
  // A statement after it is not lost silently: ORA-01034, and it stops the
  // script (cellsim's WHENEVER SQLERROR EXIT).
  r = Cellsim(tmp.File("e6"), {"sql", rack, "-e", "shutdown immediate", "-e",
                               "insert into t values (5, 5)", "-e", "commit"});
  EXPECT_EQ(r.exit_code(), 1);
  EXPECT_THAT(r.err, HasSubstr("instance recovery"));
  EXPECT_THAT(r.out, HasSubstr("Database dismounted."));
  EXPECT_THAT(r.err, HasSubstr("statement 2 failed:\n  insert into t values (5, 5)\n"
                               "ORA-01034: ORACLE not available"));
  r = Cellsim(tmp.File("e7"), {"sql", rack, "-e", "startup"});
  EXPECT_EQ(r.exit_code(), 1);
  EXPECT_THAT(r.err, HasSubstr("ORA-01081"));
  EXPECT_THAT(r.err, Not(HasSubstr("instance recovery")));
  // STARTUP after SHUTDOWN opens it again in the same run: after a clean
  // one with nothing to recover, after ABORT (the files as kill -9 leaves
  // them) with instance recovery, the commit kept.
  r = Cellsim(tmp.File("e9"), {"sql", rack, "-e", "shutdown", "-e", "startup", "-e",
                               "insert into t values (6, 6)", "-e", "commit", "-e",
                               "shutdown abort", "-e", "select 1 from dual"});
  EXPECT_EQ(r.exit_code(), 1) << r.err;
  EXPECT_THAT(r.out, HasSubstr("ORACLE instance shut down.\nORACLE instance started.\n"
                               "Database mounted.\nDatabase opened.\n\n1 row created."));
  EXPECT_THAT(r.err, Not(HasSubstr("instance recovery")));
  EXPECT_THAT(r.err, HasSubstr("statement 6 failed:\n  select 1 from dual\nORA-01034"));
  r = Cellsim(tmp.File("e10"), {"sql", rack, "-e", "startup", "-e", "shutdown abort", "-e",
                                "startup", "-e", "select count(*) from t where x in (5, 6)"});
  EXPECT_EQ(r.exit_code(), 1) << r.err;  // the first STARTUP: ORA-01081, and the run stops
  EXPECT_THAT(r.err, HasSubstr("instance recovery"));  // the open after e9's ABORT
  r = Cellsim(tmp.File("e11"), {"sql", rack, "-e", "shutdown abort", "-e", "startup", "-e",
                                "select count(*) from t where x in (5, 6)"});
  EXPECT_TRUE(r.ok()) << r.err;
  EXPECT_THAT(r.out, HasSubstr("ORACLE instance shut down.\nORACLE instance started.\n"
                               "Database mounted.\nDatabase opened.\n"));
  EXPECT_THAT(r.err, HasSubstr("instance recovery"));  // STARTUP's, after this run's ABORT
  EXPECT_THAT(r.out, ContainsRegex("\n *1\n"));
}

// Parses "ack INDEX OFFSET LENGTH XXH64" (`cellsim write`).
// A SHUTDOWN that waits is not a trap: its asker's Ctrl-C withdraws it
// (ORA-01013; the instance takes sessions and transactions again), another
// session's SHUTDOWN IMMEDIATE is ORA-10997, and its SHUTDOWN ABORT ends
// the instance at once (the waiting asker's client: ORA-03113).
TEST(Instance, AWaitingShutdownIsWithdrawnByCtrlCOrOvertakenByAbort) {
  TempDir tmp;
  const std::string rack = MakeRack(tmp);
  ChildProcess instance = StartInstance(rack, tmp.File("i.err"), {"--standard-files"});
  CmdRun r = MakeTableT(tmp, rack);
  ASSERT_TRUE(r.ok()) << r.err;
  ChildProcess a = CellsimChild({"sql", rack, "-i"}, tmp.File("a.err"), /*stdin_pipe=*/true);
  ASSERT_TRUE(a.ReadUntil("SQL> ")) << a.Stderr();
  ASSERT_TRUE(a.WriteStdin("update t set x = 2;\n"));
  ASSERT_TRUE(a.ReadUntil("SQL> ")) << a.Stderr();
  ChildProcess idle = CellsimChild({"sql", rack, "-i"}, tmp.File("idle.err"), /*stdin_pipe=*/true);
  ASSERT_TRUE(idle.ReadUntil("SQL> ")) << idle.Stderr();
  // TRANSACTIONAL waits for A's transaction; Ctrl-C withdraws it.
  ChildProcess tx = CellsimChild({"sql", rack, "-e", "shutdown transactional"}, tmp.File("tx.err"));
  ASSERT_TRUE(WaitUntil([&] {
    return tx.Exited() || instance.Stderr().find("SHUTDOWN TRANSACTIONAL (") != std::string::npos;
  }));
  ASSERT_TRUE(idle.WriteStdin("insert into t values (3, 3);\nselect 'one' from dual;\n"));
  ASSERT_TRUE(idle.ReadUntil("one\n")) << idle.Stderr();
  EXPECT_THAT(idle.Stderr(), HasSubstr("ORA-01089"));  // refused while it waits
  EXPECT_FALSE(tx.Exited()) << tx.Stderr();
  tx.Signal(SIGINT);
  int status = WaitBriefly(tx);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 130) << DescribeWaitStatus(status);
  EXPECT_THAT(tx.Stderr(), HasSubstr("ORA-01013: user requested cancel of current operation "
                                     "(SHUTDOWN TRANSACTIONAL withdrawn before it ended any "
                                     "session: the instance stays open"));
  EXPECT_THAT(instance.Stderr(), HasSubstr("SHUTDOWN TRANSACTIONAL withdrawn"));
  ASSERT_TRUE(idle.WriteStdin("insert into t values (4, 4);\ncommit;\nselect 'two' from dual;\n"));
  ASSERT_TRUE(idle.ReadUntil("two\n")) << idle.Stderr();
  const std::string said = idle.Stderr();  // only the first INSERT was refused
  EXPECT_EQ(said.find("ORA-01089"), said.rfind("ORA-01089")) << said;
  r = Cellsim(tmp.File("e1"), {"sql", rack, "-e", "select count(*) from t where id = 4"});
  EXPECT_TRUE(r.ok()) << r.err;  // a new session is taken again, and sees the insert
  EXPECT_THAT(r.out, ContainsRegex("\n *1\n"));

  // NORMAL waits for A and the idle session; IMMEDIATE asked meanwhile is
  // ORA-10997; ABORT overtakes it.
  ChildProcess n = CellsimChild({"sql", rack, "-e", "shutdown normal"}, tmp.File("n.err"));
  ASSERT_TRUE(WaitUntil([&] {
    return n.Exited() || instance.Stderr().find("SHUTDOWN NORMAL (") != std::string::npos;
  }));
  ASSERT_TRUE(idle.WriteStdin("shutdown immediate\nselect 'three' from dual;\n"));
  ASSERT_TRUE(idle.ReadUntil("three\n")) << idle.Stderr();
  EXPECT_THAT(idle.Stderr(), HasSubstr("ORA-10997: another startup/shutdown operation of this "
                                       "instance in progress (session 6's SHUTDOWN NORMAL waits"));
  ASSERT_TRUE(idle.WriteStdin("shutdown abort\n"));
  EXPECT_EQ(WaitBriefly(instance), 0) << instance.Stderr();
  EXPECT_THAT(instance.Stderr(), HasSubstr("Instance ended by SHUTDOWN ABORT"));
  status = WaitBriefly(n);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 1) << DescribeWaitStatus(status);
  EXPECT_THAT(n.Stderr(), HasSubstr("ORA-03113"));
  EXPECT_NE(WaitBriefly(a), -1);
  EXPECT_NE(WaitBriefly(idle), -1);
  // The next open recovers: the idle session's commit kept, A's update not.
  r = Cellsim(tmp.File("e2"), {"sql", rack, "-e", "select sum(x) from t"});
  EXPECT_TRUE(r.ok()) << r.err;
  EXPECT_THAT(r.out, ContainsRegex("\n *5\n"));
  EXPECT_THAT(r.err, HasSubstr("instance recovery"));
}

bool ParseWriteAck(const std::string& line, uint64_t* index, uint64_t* offset) {
  std::istringstream in(line);
  std::string word;
  uint64_t length = 0;
  return static_cast<bool>(in >> word >> *index >> *offset >> length) && word == "ack";
}

// `cp`'s copy of ASM file `file` out through the instance serving `rack`.
std::vector<uint8_t> CopyOut(const TempDir& tmp, const std::string& rack, const std::string& file,
                             const std::string& local) {
  const CmdRun r = Cellsim(tmp.File("cp.err"), {"asmcmd", rack, "cp", file, local});
  EXPECT_TRUE(r.ok()) << r.err;
  std::ifstream in(local, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

TEST(Instance, WriteAndRackInfoAndRecoverRunInIt) {
  TempDir tmp;
  const std::string rack = MakeRack(tmp);
  ChildProcess instance = StartInstance(rack, tmp.File("instance.err"), {"--standard-files"});
  CmdRun r = Cellsim(tmp.File("e1"), {"sql", rack, "-e",
                                      "create tablespace scratch datafile '+DATA' size 8m"});
  ASSERT_TRUE(r.ok()) << r.err;
  // rack info describes the rack the instance has open, and the instance.
  r = Cellsim(tmp.File("e2"), {"rack", "info", rack});
  ASSERT_TRUE(r.ok()) << r.err;
  EXPECT_THAT(r.out, HasSubstr("disk group +DATA"));
  EXPECT_THAT(r.out, HasSubstr("database control files:"));
  EXPECT_THAT(r.out, HasSubstr("instance: pid " + std::to_string(instance.pid())));
  // rack recover has nothing to do: the instance's open recovered the rack.
  r = Cellsim(tmp.File("e3"), {"rack", "recover", rack});
  ASSERT_TRUE(r.ok()) << r.err;
  EXPECT_THAT(r.out, HasSubstr("is open in the instance (pid " + std::to_string(instance.pid())));

  // A write workload runs in the instance until its client's Ctrl-C; what
  // it acknowledged is what the file holds, then and after a restart. A
  // data file the database keeps is refused there as on its own.
  r = Cellsim(tmp.File("e4"), {"write", rack, "--file", "+DATA/ORCL/DATAFILE/SYSTEM.*"});
  EXPECT_EQ(r.exit_code(), 1);
  EXPECT_THAT(r.err, HasSubstr("refusing to write random data into a data file of tablespace "
                               "SYSTEM"));
  const std::string file = "+DATA/ORCL/DATAFILE/SCRATCH.*";
  std::vector<uint8_t> expected = CopyOut(tmp, rack, file, tmp.File("before"));
  ASSERT_FALSE(expected.empty());
  ChildProcess w = CellsimChild({"write", rack, "--file", file, "--count", "0"},
                                tmp.File("w.err"));
  std::vector<std::pair<uint64_t, uint64_t>> acks;  // index, offset
  while (auto line = w.ReadLine()) {
    uint64_t index = 0, offset = 0;
    ASSERT_TRUE(ParseWriteAck(*line, &index, &offset)) << *line;
    ASSERT_EQ(index, acks.size());
    acks.emplace_back(index, offset);
    if (acks.size() == 200) w.Signal(SIGINT);
  }
  const int status = WaitBriefly(w);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 130) << DescribeWaitStatus(status);
  EXPECT_THAT(w.Stderr(), HasSubstr("then a signal stopped them"));
  ASSERT_GE(acks.size(), 200u);
  const cli::WriteWorkloadSpec spec{.seed = 1, .file_size = expected.size()};
  for (const auto& [index, offset] : acks) {
    const cli::WorkloadWrite write = cli::MakeWorkloadWrite(spec, index);
    ASSERT_EQ(write.offset, offset);
    std::copy(write.data.begin(), write.data.end(), expected.begin() + write.offset);
  }
  EXPECT_TRUE(CopyOut(tmp, rack, file, tmp.File("after")) == expected);
  instance.Signal(SIGTERM);
  EXPECT_EQ(WaitBriefly(instance), 0) << instance.Stderr();
  EXPECT_TRUE(CopyOut(tmp, rack, file, tmp.File("restarted")) == expected);
  r = Cellsim(tmp.File("e5"), {"rack", "info", rack});  // on its own now: no instance
  ASSERT_TRUE(r.ok()) << r.err;
  EXPECT_THAT(r.out, Not(HasSubstr("instance: pid")));
}

}  // namespace
}  // namespace cellsim::faults::testing
