// Optimizer statistics: DBMS_STATS.GATHER_* / DELETE_* and ANALYZE ...
// STATISTICS, what USER_TABLES and USER_INDEXES show, and that they last.
#include <string>

#include <fmt/format.h>

#include "cellsim/db/database.h"
#include "db/db_test_util.h"
#include "gtest/gtest.h"
#include "testing/test_util.h"

namespace cellsim::db {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

class StatsTest : public testing::SqlTest {
 protected:
  void SetUp() override {
    SqlTest::SetUp();
    // 1,000 rows in id order; `grp` takes 10 values, `scattered` spreads
    // neighbouring keys over the table's blocks.
    Run("create table t (id number primary key, grp number, scattered number, pad varchar2(100))");
    Run("insert into t select level, mod(level, 10), mod(level * 37, 1000), rpad('x', 100, 'x') "
        "from dual connect by level <= 1000");
    Run("create index t_grp on t (grp)");
    Run("create index t_scattered on t (scattered)");
    Run("commit");
  }
  std::string TableStats() {
    return One("select num_rows || ' ' || blocks || ' ' || avg_row_len || ' ' || sample_size "
               "from user_tables where table_name = 'T'");
  }
};

TEST_F(StatsTest, NoneUntilGathered) {
  EXPECT_EQ(One("select count(*) from user_tables where table_name = 'T' and num_rows is null "
                "and last_analyzed is null"),
            "1");
  EXPECT_EQ(One("select count(*) from user_indexes where table_name = 'T' and num_rows is null"),
            "3");
}

TEST_F(StatsTest, GatherTableStatsCountsRowsBlocksAndIndexes) {
  const std::string blocks = One("select blocks from user_segments where segment_name = 'T'");
  StatementResult r = Run("begin dbms_stats.gather_table_stats(user, 't'); end;");
  EXPECT_EQ(r.feedback, "PL/SQL procedure successfully completed.");
  // Rows of 3 + 3-4 + 1-3 + 1-4 + 101 bytes.
  const std::string stats = TableStats();
  EXPECT_EQ(stats.substr(0, 5), "1000 ");
  EXPECT_THAT(stats, HasSubstr(" 1000"));  // SAMPLE_SIZE: every row
  const int avg = std::stoi(One("select avg_row_len from user_tables where table_name = 'T'"));
  EXPECT_GE(avg, 112);
  EXPECT_LE(avg, 116);
  // BLOCKS: the blocks in use, at most the segment's.
  const int used = std::stoi(One("select blocks from user_tables where table_name = 'T'"));
  EXPECT_GE(used, 14);  // 1,000 rows of ~113 bytes, 90 % of 8 KiB a block
  EXPECT_LE(used, std::stoi(blocks));
  EXPECT_EQ(One("select to_char(last_analyzed, 'YYYY') from user_tables where table_name = 'T'"),
            One("select to_char(sysdate, 'YYYY') from dual"));
  // The indexes too (CASCADE's default): keys, distinct keys, levels, and the
  // clustering factor: about the table's blocks for the key in row order,
  // about the rows for the scattered one.
  EXPECT_EQ(One("select num_rows || ' ' || distinct_keys || ' ' || blevel from user_indexes "
                "where index_name = 'T_GRP'"),
            "1000 10 1");
  EXPECT_EQ(One("select distinct_keys from user_indexes where index_name = 'T_SCATTERED'"), "1000");
  const int pk_cf = std::stoi(One("select clustering_factor from user_indexes where table_name = "
                                  "'T' and uniqueness = 'UNIQUE'"));
  const int scattered_cf =
      std::stoi(One("select clustering_factor from user_indexes where index_name = 'T_SCATTERED'"));
  EXPECT_EQ(pk_cf, used);
  EXPECT_GT(scattered_cf, 10 * pk_cf);
  EXPECT_GE(std::stoi(One("select leaf_blocks from user_indexes where index_name = 'T_GRP'")), 2);
}

TEST_F(StatsTest, StatisticsAreASnapshotAndLastAcrossReopen) {
  Run("begin dbms_stats.gather_table_stats(ownname => 'CELLSIM', tabname => 'T', "
      "estimate_percent => dbms_stats.auto_sample_size, method_opt => 'FOR ALL COLUMNS SIZE 1', "
      "cascade => false); end;");
  EXPECT_EQ(TableStats().substr(0, 5), "1000 ");
  EXPECT_EQ(One("select count(*) from user_indexes where num_rows is not null"), "0");
  Run("delete from t where id > 500");
  Run("commit");
  EXPECT_EQ(TableStats().substr(0, 5), "1000 ");  // stale until gathered again
  ASSERT_OK(Reopen());
  EXPECT_EQ(TableStats().substr(0, 5), "1000 ");
  Run("analyze table t compute statistics");  // the table and its indexes
  EXPECT_EQ(TableStats().substr(0, 4), "500 ");
  EXPECT_EQ(One("select num_rows from user_indexes where index_name = 'T_GRP'"), "500");
  Run("analyze index t_grp delete statistics");
  EXPECT_EQ(One("select count(*) from user_indexes where num_rows is null"), "1");
  ASSERT_OK(Reopen());
  EXPECT_EQ(One("select count(*) from user_indexes where num_rows is null"), "1");
  Run("begin dbms_stats.delete_table_stats('CELLSIM', 'T'); end;");
  EXPECT_EQ(One("select count(*) from user_tables where num_rows is null"), "1");
  EXPECT_EQ(One("select count(*) from user_indexes where num_rows is null"), "3");
  ASSERT_OK(Reopen());
  EXPECT_EQ(One("select count(*) from user_indexes where num_rows is null"), "3");
  // A dropped table's statistics go with it.
  Run("begin dbms_stats.gather_schema_stats('CELLSIM'); end;");
  EXPECT_EQ(One("select num_rows from user_indexes where index_name = 'T_SCATTERED'"), "500");
  Run("drop table t");
  ASSERT_OK(Reopen());
  EXPECT_EQ(One("select count(*) from user_tables"), "0");
}

TEST_F(StatsTest, GatheringCommitsTheOpenTransaction) {
  Run("insert into t values (1001, 1, 1, 'y')");
  Run("begin dbms_stats.gather_index_stats(user, 'T_GRP'); end;");
  EXPECT_FALSE(s_->InTransaction());
  EXPECT_EQ(One("select num_rows from user_indexes where index_name = 'T_GRP'"), "1001");
  EXPECT_EQ(One("select count(*) from user_tables where num_rows is null"), "1");
  // A call that fails before it gathers commits nothing and undoes nothing
  // of the session's open transaction.
  Run("insert into t values (1002, 1, 1, 'z')");
  EXPECT_THAT(Error("begin dbms_stats.gather_table_stats(user, 'NOSUCH'); end;"),
              HasSubstr("ORA-20000"));
  EXPECT_TRUE(s_->InTransaction());
  EXPECT_EQ(One("select count(*) from t where id = 1002"), "1");
}

TEST_F(StatsTest, BadCallsSayWhatIsWrong) {
  EXPECT_THAT(Error("begin dbms_stats.gather_table_stats(user, 'NOSUCH'); end;"),
              AllOf(HasSubstr("ORA-20000"), HasSubstr("\"CELLSIM\".\"NOSUCH\"")));
  EXPECT_THAT(Error("begin dbms_stats.gather_table_stats('SCOTT', 'T'); end;"),
              AllOf(HasSubstr("ORA-20000"), HasSubstr("\"SCOTT\".\"T\""), HasSubstr("CELLSIM")));
  EXPECT_THAT(Error("begin dbms_stats.gather_index_stats(user, 'NOSUCH'); end;"),
              HasSubstr("ORA-20000: index \"CELLSIM\".\"NOSUCH\" does not exist"));
  EXPECT_THAT(Error("begin dbms_stats.gather_table_stats(user); end;"),
              AllOf(HasSubstr("PLS-00306"), HasSubstr("TABNAME is required")));
  EXPECT_THAT(Error("begin dbms_stats.gather_table_stats(user, 'T', tabnme => 'T'); end;"),
              AllOf(HasSubstr("PLS-00306"), HasSubstr("no parameter TABNME")));
  EXPECT_THAT(Error("begin dbms_stats.gather_tabel_stats(user, 'T'); end;"),
              AllOf(HasSubstr("PLS-00302"), HasSubstr("GATHER_TABLE_STATS")));
  EXPECT_THAT(Error("begin dbms_stats.gather_table_stats(ownname => user, 'T'); end;"),
              HasSubstr("PLS-00312"));
  EXPECT_THAT(Error("begin dbms_stats.gather_table_stats(user, 'T', cascade = false); end;"),
              AllOf(HasSubstr("PLS-00201: identifier 'CASCADE' must be declared"),
                    HasSubstr("cascade => value")));
  EXPECT_THAT(Error("begin dbms_stats.gather_table_stats(user, 'T', ); end;"),
              AllOf(HasSubstr("PLS-00306"), HasSubstr("after the last comma")));
  EXPECT_THAT(Error("analyze table t compute statistcs"), HasSubstr("ORA-00905"));
  EXPECT_THAT(Error("analyze table t gather statistics"), HasSubstr("ORA-01490"));
  EXPECT_THAT(Error("analyze table nosuch compute statistics"), HasSubstr("ORA-00942"));
  // Nothing was gathered by the failed calls.
  EXPECT_EQ(One("select count(*) from user_tables where num_rows is null"), "1");
}

}  // namespace
}  // namespace cellsim::db
