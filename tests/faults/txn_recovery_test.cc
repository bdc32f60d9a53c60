// The database's tables across processes and crashes (issue 15): `cellsim sql`
// twice sees the same tables and rows.
#include <string>
#include <vector>

#include "faults/child_process.h"
#include "gtest/gtest.h"
#include "testing/test_util.h"

namespace cellsim::faults::testing {
namespace {

using ::cellsim::testing::TempDir;
using ::testing::HasSubstr;

std::string MakeRack(const TempDir& tmp) {
  const std::string rack = tmp.File("rack");
  const CmdRun r = Cellsim(tmp.File("create.err"),
                           {"rack", "create", rack, "--cells", "3", "--disks-per-cell", "2",
                            "--disk-group", "DATA:NORMAL:512m", "--disk-group",
                            "RECO:NORMAL:256m", "--flash-size", "64m"});
  EXPECT_TRUE(r.ok()) << r.err;
  return rack;
}

TEST(TxnAcrossProcesses, TablesAndRowsPersistBetweenSqlRuns) {
  TempDir tmp;
  const std::string rack = MakeRack(tmp);
  CmdRun r = Cellsim(tmp.File("e1"),
                     {"sql", rack, "--standard-files", "--all-objects-rows", "2000", "-e",
                      "create table t (a number, b varchar2(20))", "-e",
                      "insert into t values (1, 'one')", "-e",
                      "insert into t select object_id, 'x' from all_objects", "-e", "commit", "-e",
                      "create global temporary table g (x number) on commit preserve rows", "-e",
                      "insert into g values (1)", "-e", "commit"});
  ASSERT_TRUE(r.ok()) << r.err;
  r = Cellsim(tmp.File("e2"), {"sql", rack, "-e", "select count(*) from t", "-e",
                               "select b from t where a = 1", "-e", "select count(*) from g"});
  ASSERT_TRUE(r.ok()) << r.err;
  EXPECT_THAT(r.out, HasSubstr("2001"));
  EXPECT_THAT(r.out, HasSubstr("one"));
  EXPECT_THAT(r.out, HasSubstr("\n       0\n"));  // the GTT is there, its rows are not
  r = Cellsim(tmp.File("e3"), {"sql", rack, "-e", "drop table t purge"});
  ASSERT_TRUE(r.ok()) << r.err;
  r = Cellsim(tmp.File("e4"), {"sql", rack, "-e", "select count(*) from t"});
  EXPECT_FALSE(r.ok());
  EXPECT_THAT(r.err, HasSubstr("ORA-00942"));
}

}  // namespace
}  // namespace cellsim::faults::testing
