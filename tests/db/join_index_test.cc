// JoinIndex: the rows of a join's source by one column's value; ValueSet:
// an IN list's values.
#include "cellsim/db/join_index.h"

#include <vector>

#include "gtest/gtest.h"

namespace cellsim::db::internal {
namespace {

std::vector<uint32_t> Positions(const std::optional<absl::Span<const uint32_t>>& found) {
  EXPECT_TRUE(found.has_value());
  if (!found) return {};
  return {found->begin(), found->end()};
}

TEST(JoinIndexTest, FindsTheRowsEqualToAValueInTheirOrder) {
  const std::vector<Row> rows = {{Value::Num(3)}, {Value::Num(1)}, {Value::Null()},
                                 {Value::Num(3)}, {Value::Num(2)}, {Value::Num(3)}};
  const JoinIndex index(rows, 0);
  ASSERT_TRUE(index.usable());
  EXPECT_EQ(Positions(index.Find(Value::Num(3))), (std::vector<uint32_t>{0, 3, 5}));
  EXPECT_EQ(Positions(index.Find(Value::Num(1))), (std::vector<uint32_t>{1}));
  EXPECT_TRUE(Positions(index.Find(Value::Num(4))).empty());
  // NULL equals nothing, not even the NULL row.
  EXPECT_TRUE(Positions(index.Find(Value::Null())).empty());
  EXPECT_TRUE(Positions(index.Find(Value::Str(""))).empty());  // '' is NULL
  // Text against numbers converts: the caller tries every row.
  EXPECT_FALSE(index.Find(Value::Str("3")).has_value());
}

// One datatype each: a DATE is not a number (`=` between them is ORA-00932,
// which the caller's comparison raises), text is text.
TEST(JoinIndexTest, DatesNumbersAndTextAreEachTheirOwnDatatype) {
  const std::vector<Row> dates = {{Value::Date(86400)}, {Value::Date(0)}, {Value::Date(86400)}};
  const JoinIndex by_date(dates, 0);
  EXPECT_EQ(Positions(by_date.Find(Value::Date(86400))), (std::vector<uint32_t>{0, 2}));
  EXPECT_FALSE(by_date.Find(Value::Num(86400)).has_value());
  const std::vector<Row> mixed = {{Value::Date(86400)}, {Value::Num(86400)}};
  EXPECT_FALSE(JoinIndex(mixed, 0).usable());
  const std::vector<Row> text = {{Value::Str("b")}, {Value::Str("a")}, {Value::Str("b ")},
                                 {Value::Str("b")}};
  const JoinIndex index(text, 0);
  EXPECT_EQ(Positions(index.Find(Value::Str("b"))), (std::vector<uint32_t>{0, 3}));
  EXPECT_FALSE(index.Find(Value::Num(1)).has_value());
}

TEST(JoinIndexTest, AColumnOfTextAndNumbersIsNotLookedUp) {
  const std::vector<Row> rows = {{Value::Num(10)}, {Value::Str("010")}};
  const JoinIndex index(rows, 0);
  EXPECT_FALSE(index.usable());
  EXPECT_FALSE(index.Find(Value::Num(10)).has_value());
  // All NULL: nothing is found, whatever the value.
  const std::vector<Row> nulls = {{Value::Null()}, {Value::Null()}};
  EXPECT_TRUE(Positions(JoinIndex(nulls, 0).Find(Value::Str("x"))).empty());
}

TEST(ValueSetTest, AnswersWhetherAValueIsInTheList) {
  const std::vector<Value> numbers = {Value::Num(5), Value::Num(1), Value::Num(5), Value::Num(3)};
  const ValueSet set(numbers);
  EXPECT_EQ(set.Contains(Value::Num(5)), true);
  EXPECT_EQ(set.Contains(Value::Num(3)), true);
  EXPECT_EQ(set.Contains(Value::Num(2)), false);
  EXPECT_FALSE(set.Contains(Value::Date(3)).has_value());  // ORA-00932 is the caller's
  EXPECT_FALSE(set.has_null());
  EXPECT_FALSE(set.Contains(Value::Str("5")).has_value());  // `=` converts: compare each
  EXPECT_FALSE(set.Contains(Value::Null()).has_value());
  const std::vector<Value> letters = {Value::Str("b"), Value::Null(), Value::Str("a")};
  const ValueSet text(letters);
  EXPECT_TRUE(text.has_null());
  EXPECT_EQ(text.Contains(Value::Str("a")), true);
  EXPECT_EQ(text.Contains(Value::Str("c")), false);
  const std::vector<Value> mixed = {Value::Num(1), Value::Str("1")};
  EXPECT_FALSE(ValueSet(mixed).Contains(Value::Num(1)).has_value());
  const std::vector<Value> dated = {Value::Num(1), Value::Date(1)};
  EXPECT_FALSE(ValueSet(dated).Contains(Value::Num(1)).has_value());
  const std::vector<Value> nulls = {Value::Null()};
  EXPECT_EQ(ValueSet(nulls).Contains(Value::Num(1)), false);
}

}  // namespace
}  // namespace cellsim::db::internal
