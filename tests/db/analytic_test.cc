// Analytic functions (f(...) OVER (...)): partitions, ORDER BY and peers,
// window frames, where Oracle computes them (after WHERE, GROUP BY and
// HAVING, before DISTINCT and the final ORDER BY), and Oracle's errors.
#include <string>
#include <vector>

#include "cellsim/db/data_statement.h"
#include "db/db_test_util.h"
#include "gtest/gtest.h"

namespace cellsim::db {
namespace {

using ::testing::HasSubstr;
using Cells = std::vector<std::vector<std::string>>;

class AnalyticTest : public testing::SqlTest {
 protected:
  void Configure(DatabaseOptions* o) const override { o->all_objects_rows = 100; }
  void SetUp() override {
    testing::SqlTest::SetUp();
    Run("create table emp (id number, name varchar2(10), dept number, sal number)");
    // dept 10: 1000, 1500, 1500; dept 20: 2000, 500; no dept: NULL sal.
    for (const char* row : {"1, 'alice', 10, 1000", "2, 'bob', 20, 2000", "3, 'carol', 10, 1500",
                            "4, 'dave', null, null", "5, 'erin', 20, 500", "6, 'fay', 10, 1500"}) {
      Run(std::string("insert into emp values (") + row + ")");
    }
    Run("commit");
  }
};

TEST_F(AnalyticTest, RankingFunctionsTakePeersAsOracleDoes) {
  EXPECT_EQ(Run("select id, row_number() over (order by sal, id), rank() over (order by sal), "
                "dense_rank() over (order by sal), percent_rank() over (order by sal), "
                "cume_dist() over (order by sal) from emp order by id")
                .result_rows,
            (Cells{{"1", "2", "2", "2", ".2", ".3333333333"},
                   {"2", "5", "5", "4", ".8", ".8333333333"},
                   {"3", "3", "3", "3", ".4", ".6666666667"},
                   {"4", "6", "6", "5", "1", "1"},  // NULLs last going up
                   {"5", "1", "1", "1", "0", ".1666666667"},
                   {"6", "4", "3", "3", ".4", ".6666666667"}}));
  // PARTITION BY restarts the numbering; NULLS FIRST and DESC as in ORDER BY.
  EXPECT_EQ(Run("select name, dept, rank() over (partition by dept order by sal desc nulls first) r "
                "from emp order by dept, r, name")
                .result_rows,
            (Cells{{"carol", "10", "1"}, {"fay", "10", "1"}, {"alice", "10", "3"},
                   {"bob", "20", "1"}, {"erin", "20", "2"}, {"dave", "", "1"}}));
  // NTILE: buckets differing by at most one row, the larger first.
  EXPECT_EQ(Run("select id, ntile(4) over (order by id) from emp order by id").result_rows,
            (Cells{{"1", "1"}, {"2", "1"}, {"3", "2"}, {"4", "2"}, {"5", "3"}, {"6", "4"}}));
}

TEST_F(AnalyticTest, AggregatesTakeTheirWindowFrame) {
  // Without ORDER BY: the partition; with: up to the current row's last peer
  // (RANGE), so carol and fay, peers at 1500, share their running sum.
  EXPECT_EQ(Run("select id, sum(sal) over (partition by dept), sum(sal) over (partition by dept "
                "order by sal), count(*) over (), count(sal) over (), avg(sal) over (partition "
                "by dept), max(name) over (partition by dept) from emp order by id")
                .result_rows,
            (Cells{{"1", "4000", "1000", "6", "5", "1333.333333", "fay"},
                   {"2", "2500", "2500", "6", "5", "1250", "erin"},
                   {"3", "4000", "4000", "6", "5", "1333.333333", "fay"},
                   {"4", "", "", "6", "5", "", "dave"},
                   {"5", "2500", "500", "6", "5", "1250", "erin"},
                   {"6", "4000", "4000", "6", "5", "1333.333333", "fay"}}));
  // ROWS: physical rows around the current one; RANGE n: by the key's value.
  EXPECT_EQ(Run("select id, sum(sal) over (order by id rows 1 preceding), "
                "sum(sal) over (order by id rows between current row and unbounded following), "
                "avg(sal) over (order by id rows between 1 preceding and 1 following), "
                "count(*) over (order by sal range between 500 preceding and current row) "
                "from emp order by id")
                .result_rows,
            (Cells{{"1", "1000", "6500", "1500", "2"},
                   {"2", "3000", "5500", "1500", "3"},
                   {"3", "3500", "3500", "1750", "3"},
                   {"4", "1500", "2000", "1000", "1"},  // a NULL key's range is its peers
                   {"5", "500", "2000", "1000", "1"},
                   {"6", "2000", "1500", "1000", "3"}}));
  // FIRST_VALUE / LAST_VALUE take the frame: the default one ends at the
  // current row's peers (the classic surprise), the whole partition's does not.
  EXPECT_EQ(Run("select id, first_value(name) over (partition by dept order by sal), "
                "last_value(name) over (partition by dept order by sal, id), "
                "last_value(name) over (partition by dept order by sal rows between unbounded "
                "preceding and unbounded following) from emp where dept = 10 order by id")
                .result_rows,
            (Cells{{"1", "alice", "alice", "fay"},
                   {"3", "alice", "carol", "fay"},
                   {"6", "alice", "fay", "fay"}}));
}

TEST_F(AnalyticTest, LagLeadAndRatioToReport) {
  EXPECT_EQ(Run("select id, lag(sal) over (order by id), lead(sal, 2, -1) over (order by id), "
                "lag(name, 1, 'none') over (partition by dept order by id), "
                "ratio_to_report(sal) over (partition by dept) from emp order by id")
                .result_rows,
            (Cells{{"1", "", "1500", "none", ".25"},
                   {"2", "1000", "", "none", ".8"},
                   {"3", "2000", "500", "alice", ".375"},
                   {"4", "1500", "1500", "none", ""},
                   {"5", "", "-1", "bob", ".2"},
                   {"6", "500", "-1", "carol", ".375"}}));
}

// IGNORE NULLS: rows whose value is NULL do not count (LAG / LEAD skip
// them; LAST_VALUE ... IGNORE NULLS fills down the last known value);
// NTH_VALUE counts from the frame's start, or FROM LAST from its end.
TEST_F(AnalyticTest, IgnoreNullsAndNthValue) {
  EXPECT_EQ(Run("select id, lag(sal) ignore nulls over (order by id), "
                "lead(sal) ignore nulls over (order by id), "
                "lag(sal ignore nulls, 2) over (order by id), "
                "last_value(sal) ignore nulls over (order by id rows between unbounded preceding "
                "and current row), "
                "nth_value(sal, 2) over (order by id), "
                "nth_value(sal, 2) from last over (order by id rows between unbounded preceding "
                "and unbounded following), "
                "nth_value(sal, 4) ignore nulls over (order by id rows between unbounded "
                "preceding and unbounded following), "
                "nth_value(sal, 4) respect nulls over (order by id rows between unbounded "
                "preceding and unbounded following) from emp order by id")
                .result_rows,
            (Cells{{"1", "", "2000", "", "1000", "", "500", "500", ""},
                   {"2", "1000", "1500", "", "2000", "2000", "500", "500", ""},
                   {"3", "2000", "500", "1000", "1500", "2000", "500", "500", ""},
                   {"4", "1500", "500", "2000", "1500", "2000", "500", "500", ""},
                   {"5", "1500", "1500", "2000", "500", "2000", "500", "500", ""},
                   {"6", "500", "", "1500", "1500", "2000", "500", "500", ""}}));
  EXPECT_THAT(Error("select rank() ignore nulls over (order by id) from emp"),
              HasSubstr("RANK takes no IGNORE NULLS"));
  EXPECT_THAT(Error("select lag(sal) from last over (order by id) from emp"),
              HasSubstr("LAG takes no FROM FIRST / FROM LAST"));
  EXPECT_THAT(Error("select lag(sal) ignore nulls from emp"), HasSubstr("ORA-30484"));
  EXPECT_THAT(Error("select nth_value(sal, 0) over (order by id) from emp"),
              HasSubstr("ORA-01428"));
  EXPECT_THAT(Error("select nth_value(sal) over (order by id) from emp"), HasSubstr("ORA-00909"));
}

// After WHERE, GROUP BY and HAVING; before DISTINCT, ORDER BY and the row
// limit; in a subquery, a view, INSERT ... SELECT and CTAS.
TEST_F(AnalyticTest, ComputedWhereOracleComputesThem) {
  EXPECT_EQ(Run("select dept, sum(sal) s, rank() over (order by sum(sal) desc) r, "
                "sum(sum(sal)) over () total from emp where dept is not null group by dept "
                "having count(*) > 1 order by r")
                .result_rows,
            (Cells{{"10", "4000", "1", "6500"}, {"20", "2500", "2", "6500"}}));
  EXPECT_EQ(Run("select distinct dept, count(*) over (partition by dept) from emp "
                "where sal > 600 order by 1")
                .result_rows,
            (Cells{{"10", "3"}, {"20", "1"}}));
  // Top-N per group: the analytic in a subquery, filtered outside it.
  EXPECT_EQ(Run("select name from (select name, row_number() over (partition by dept order by "
                "sal desc, id) rn from emp where dept is not null) where rn = 1 order by name")
                .result_rows,
            (Cells{{"bob"}, {"carol"}}));
  EXPECT_EQ(Run("select name, rank() over (order by sal desc) r from emp order by r "
                "fetch first 2 rows only")
                .result_rows,
            (Cells{{"dave", "1"}, {"bob", "2"}}));
  // ORDER BY an analytic function that is not in the select list.
  EXPECT_EQ(Run("select name from emp where dept = 20 order by row_number() over (order by sal)")
                .result_rows,
            (Cells{{"erin"}, {"bob"}}));
  Run("create view ranked as select name, dense_rank() over (order by sal) dr from emp");
  EXPECT_EQ(One("select name from ranked where dr = 1"), "erin");
  Run("create table ranks as select id, rank() over (order by sal) r, lag(name) over (order by "
      "id) prev from emp");
  EXPECT_EQ(One("select r from ranks where id = 6"), "3");
  EXPECT_EQ(One("select prev from ranks where id = 2"), "alice");
  Run("insert into ranks select id + 10, row_number() over (order by id), null from emp");
  EXPECT_EQ(One("select sum(r) from ranks where id > 10"), "21");
}

TEST_F(AnalyticTest, OracleErrorsForAnalyticsWhereTheyCannotBe) {
  EXPECT_THAT(Error("select id from emp where row_number() over (order by id) = 1"),
              HasSubstr("ORA-30483: window functions are not allowed here"));
  EXPECT_THAT(Error("select dept from emp group by rank() over (order by dept)"),
              HasSubstr("ORA-30483: window functions are not allowed here (RANK OVER (...) in "
                        "GROUP BY"));
  EXPECT_THAT(Error("select dept from emp group by dept having rank() over (order by dept) = 1"),
              HasSubstr("in HAVING"));
  EXPECT_THAT(Error("select e.id from emp e join emp f on rank() over (order by f.id) = e.id"),
              HasSubstr("in ON"));
  EXPECT_THAT(Error("update emp set sal = rank() over (order by id)"), HasSubstr("ORA-30483"));
  EXPECT_THAT(Error("select sum(rank() over (order by id)) over () from emp"),
              HasSubstr("ORA-30483"));
  EXPECT_THAT(Error("select rank() over () from emp"), HasSubstr("ORA-30485"));
  EXPECT_THAT(Error("select lag(sal) over (partition by dept) from emp"), HasSubstr("ORA-30485"));
  EXPECT_THAT(Error("select sum(sal) over (rows 1 preceding) from emp"), HasSubstr("ORA-30485"));
  EXPECT_THAT(Error("select count(distinct sal) over (order by id) from emp"),
              HasSubstr("ORA-30487"));
  EXPECT_THAT(Error("select row_number() over (order by id rows 1 preceding) from emp"),
              HasSubstr("ORA-00907"));
  EXPECT_THAT(Error("select sum(sal) over (order by id rows between 1 following and current row) "
                    "from emp"),
              HasSubstr("ORA-30486"));
  EXPECT_THAT(Error("select sum(sal) over (order by id, sal range 1 preceding) from emp"),
              HasSubstr("ORA-30486"));
  EXPECT_THAT(Error("select row_number() from emp"), HasSubstr("ORA-30484"));
  EXPECT_THAT(Error("select rank(sal) over (order by sal) from emp"), HasSubstr("ORA-00909"));
  EXPECT_THAT(Error("select upper(name) over () from emp"), HasSubstr("UPPER takes no OVER clause"));
  EXPECT_THAT(Error("select ntile(0) over (order by id) from emp"), HasSubstr("ORA-01428"));
  EXPECT_THAT(Error("select sum(name) over () from emp"), HasSubstr("ORA-01722"));
  EXPECT_THAT(Error("select dept from emp group by dept order by sum(sal) over ()"),
              HasSubstr("ORA-00979: not a GROUP BY expression (SAL)"));
  EXPECT_THAT(Error("select count(*) over (order by name range 1 preceding) from emp"),
              HasSubstr("ORA-00902"));
}

// Over many rows the frames that grow (running totals) are summed once, not
// once per row: 20,000 rows' running sum is right and quick.
TEST_F(AnalyticTest, RunningTotalsOverManyRows) {
  Run("create table big as select level n from dual connect by level <= 20000");
  EXPECT_EQ(One("select max(s) from (select sum(n) over (order by n) s from big)"), "200010000");
  EXPECT_EQ(One("select min(s) from (select sum(n) over (order by n rows between current row and "
                "unbounded following) s from big)"),
            "20000");
  EXPECT_EQ(One("select count(*) from (select n, lag(n) over (order by n) p from big) "
                "where n - p = 1"),
            "19999");
}

// LISTAGG ... WITHIN GROUP (ORDER BY ...): an aggregate of a group's
// values in order, NULLs left out; with OVER (PARTITION BY ...) each row
// gets its partition's list.
TEST_F(AnalyticTest, ListAggJoinsAGroupsValuesInOrder) {
  EXPECT_EQ(Run("select dept, listagg(name, ', ') within group (order by sal desc, name) names, "
                "listagg(sal) within group (order by sal) from emp group by dept")
                .result_rows,
            (Cells{{"10", "carol, fay, alice", "100015001500"},
                   {"20", "bob, erin", "5002000"},
                   {"", "dave", ""}}));  // dave's NULL sal: no value, NULL
  EXPECT_EQ(One("select listagg(distinct dept, '/') within group (order by dept desc) from emp"),
            "20/10");
  EXPECT_EQ(One("select listagg(name, ',') within group (order by id) from emp where id > 9"), "");
  EXPECT_EQ(Run("select name, listagg(name, '+') within group (order by id) over (partition by "
                "dept) from emp where dept = 20 order by id")
                .result_rows,
            (Cells{{"bob", "bob+erin"}, {"erin", "bob+erin"}}));
  Run("create table lists as select dept, listagg(name, ',') within group (order by name) l "
      "from emp group by dept");
  EXPECT_EQ(One("select l from lists where dept = 10"), "alice,carol,fay");
  EXPECT_THAT(Error("select listagg(name, ',') from emp"), HasSubstr("ORA-02000"));
  EXPECT_THAT(Error("select listagg(name, sal) within group (order by id) from emp"),
              HasSubstr("ORA-30496"));
  EXPECT_THAT(Error("select listagg(name) within group (order by id) over (order by id) from emp"),
              HasSubstr("ORA-30487"));
  EXPECT_THAT(Error("select dept, listagg(name) within group (order by id) from emp"),
              HasSubstr("ORA-00937"));
  Run("create table wide as select level n, rpad('x', 900, 'x') pad from dual connect by level <= 5");
  EXPECT_THAT(Error("select listagg(pad, ',') within group (order by n) from wide"),
              HasSubstr("ORA-01489: result of string concatenation is too long"));
}

// VARIANCE, STDDEV (sample; 0 for one value), their _SAMP (NULL for one
// value) and _POP forms, and MEDIAN (the middle value, or the mean of the
// two middle ones): as aggregates and over a window.
TEST_F(AnalyticTest, StatisticsAndMedianAsAggregatesAndOverAWindow) {
  EXPECT_EQ(Run("select dept, variance(sal), var_samp(sal), var_pop(sal), stddev(sal), "
                "stddev_samp(sal), stddev_pop(sal), median(sal) from emp group by dept order by dept")
                .result_rows,
            (Cells{{"10", "83333.33333", "83333.33333", "55555.55556", "288.6751346", "288.6751346",
                    "235.7022604", "1500"},
                   {"20", "1125000", "1125000", "562500", "1060.660172", "1060.660172", "750", "1250"},
                   {"", "", "", "", "", "", "", ""}}));
  EXPECT_EQ(Run("select variance(sal), var_samp(sal), stddev(sal), stddev_samp(sal), median(sal) "
                "from emp where id = 1").result_rows,
            (Cells{{"0", "", "0", "", "1000"}}));
  EXPECT_EQ(Run("select variance(distinct sal), stddev(distinct sal) from emp where dept = 10")
                .result_rows,
            (Cells{{"125000", "353.5533906"}}));
  EXPECT_EQ(Run("select id, median(sal) over (partition by dept), stddev(sal) over (order by id) "
                "from emp order by id").result_rows,
            (Cells{{"1", "1500", "0"},
                   {"2", "1250", "707.1067812"},
                   {"3", "1500", "500"},
                   {"4", "", "500"},
                   {"5", "1250", "645.4972244"},
                   {"6", "1500", "570.0877125"}}));
  EXPECT_THAT(Error("select median(distinct sal) from emp"), HasSubstr("ORA-30482"));
  EXPECT_THAT(Error("select median(sal) over (order by id) from emp"), HasSubstr("ORA-30487"));
  EXPECT_THAT(Error("select stddev(name) from emp"), HasSubstr("ORA-01722"));
  // A function cellsim lacks is named as such, not taken for a column
  // outside GROUP BY.
  EXPECT_THAT(Error("select stdev(sal) from emp"),
              HasSubstr("ORA-00904: \"STDEV\": invalid identifier (cellsim's functions:"));
  EXPECT_THAT(Error("select dept, stdev(sal) from emp group by dept"), HasSubstr("ORA-00904"));
  EXPECT_THAT(Error("select count(*), soundex(name) from emp"), HasSubstr("\"SOUNDEX\""));
}

TEST(AnalyticParseTest, TheWindowIsPartOfTheExpression) {
  absl::StatusOr<DataStatement> st = ParseDataStatement(
      "select sum(sal) over (partition by dept, x order by sal desc nulls last, id rows between "
      "2 preceding and unbounded following) from emp");
  ASSERT_TRUE(st.ok()) << st.status();
  const Expr& e = *std::get<Select>(*st).items[0].expr;
  ASSERT_NE(e.over, nullptr);
  EXPECT_EQ(e.args.size(), 5u);  // sal; dept, x; sal, id
  EXPECT_EQ(e.over->arguments, 1u);
  EXPECT_EQ(e.over->partition_by, 2u);
  ASSERT_EQ(e.over->order_by.size(), 2u);
  EXPECT_TRUE(e.over->order_by[0].descending);
  EXPECT_EQ(e.over->order_by[0].nulls_first, false);
  ASSERT_TRUE(e.over->frame.has_value());
  EXPECT_TRUE(e.over->frame->rows);
  EXPECT_EQ(e.over->frame->start.kind, Window::Bound::Kind::kPreceding);
  EXPECT_EQ(e.over->frame->start.offset, 2);
  EXPECT_EQ(e.over->frame->end.kind, Window::Bound::Kind::kUnboundedFollowing);
}

}  // namespace
}  // namespace cellsim::db
