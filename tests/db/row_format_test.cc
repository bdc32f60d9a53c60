// Oracle's NUMBER encoding (row_format.h): EncodeNumber keeps 15 significant
// digits in base-100 digits; DecodeNumber gives back the double nearest the
// decimal it holds.
#include <cmath>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cellsim/db/row_format.h"
#include "gtest/gtest.h"

namespace cellsim::db::internal {
namespace {

double Roundtrip(double d) { return DecodeNumber(EncodeNumber(d)); }

// A random decimal of 1 to 15 digits times 10^[lo, hi], either sign.
std::string RandomDecimal(std::mt19937_64& gen, int lo, int hi) {
  std::uniform_int_distribution<int> digits(1, 15), exponent(lo, hi), sign(0, 1);
  std::uniform_int_distribution<uint64_t> any;
  const int n = digits(gen);
  const uint64_t mantissa = 1 + any(gen) % static_cast<uint64_t>(std::pow(10, n));
  return fmt::format("{}{}e{}", sign(gen) ? "-" : "", mantissa, exponent(gen));
}

// Exact where the scaling power of 100 is (10^-22 .. 10^22 around the
// digits): the double nearest the decimal, as strtod reads it.
TEST(NumberFormatTest, ADecimalOfFifteenDigitsComesBackAsItsNearestDouble) {
  for (const char* text : {"0.1", "12.34", "-12.34", "123456789012345", "0.000123", "-0.5", "100",
                           "1.005", "4294967296", "-99999999999999.9", "3.14159265358979"}) {
    SCOPED_TRACE(text);
    const double d = std::strtod(text, nullptr);
    EXPECT_EQ(Roundtrip(d), d);
  }
  std::mt19937_64 gen(20261206);
  int different = 0;
  for (int i = 0; i < 100000; ++i) {
    const std::string text = RandomDecimal(gen, -20, 8);
    const double d = std::strtod(text.c_str(), nullptr);
    if (Roundtrip(d) != d && ++different <= 5) {
      ADD_FAILURE() << text << ": " << fmt::format("{:.17g}", Roundtrip(d));
    }
  }
  EXPECT_EQ(different, 0);
  EXPECT_EQ(Roundtrip(0), 0);
}

// Over NUMBER's whole range (1e-130 .. 9.99e125), within one unit in the
// last place.
TEST(NumberFormatTest, EveryDecimalOfNumbersRangeComesBackWithinAnUlp) {
  std::mt19937_64 gen(61202026);
  for (int i = 0; i < 100000; ++i) {
    const std::string text = RandomDecimal(gen, -129, 110);
    const double d = std::strtod(text.c_str(), nullptr);
    const double back = Roundtrip(d);
    ASSERT_LE(std::fabs(back - d), std::fabs(d) * 0x1p-52) << text << ": " << fmt::format("{:.17g}", back);
  }
  for (const double d : {1e-130, -1e-130, 9.99999999999999e125}) {
    EXPECT_LE(std::fabs(Roundtrip(d) - d), std::fabs(d) * 0x1p-52) << d;
  }
}

// A scan that reads some columns decodes only those; the rest stay NULL.
TEST(RowFormatTest, DecodeRowDecodesOnlyTheWantedColumns) {
  const std::vector<Column> cols = {{"ID", ColType::kNumber}, {"NAME", ColType::kVarchar2, 40},
                                    {"AT", ColType::kDate}};
  const Row row = {Value::Num(12.5), Value::Str("a name longer than fifteen"), Value::Date(86400)};
  const std::vector<uint8_t> bytes = EncodeRow(cols, row);
  const Row all = DecodeRow(cols, bytes);
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].number, 12.5);
  EXPECT_EQ(all[1].text, "a name longer than fifteen");
  EXPECT_EQ(all[2].number, 86400);
  const std::vector<bool> wanted = {false, true, true};
  const Row some = DecodeRow(cols, bytes, &wanted);
  EXPECT_TRUE(some[0].is_null());
  EXPECT_EQ(some[1].text, all[1].text);
  EXPECT_TRUE(some[2].is_datetime());
  EXPECT_EQ(some[2].number, 86400);
}

// A TIMESTAMP is Oracle's 11 bytes: the DATE's 7 (century and year + 100,
// month, day, hour/minute/second + 1), then the nanoseconds big-endian; 7
// bytes when there is no fraction. It decodes to the column's precision.
TEST(RowFormatTest, ATimestampIsTheDatesSevenBytesAndItsNanoseconds) {
  const std::vector<Column> cols = {{"AT", ColType::kTimestamp, 3}};
  // 2026-12-07 23:09:10.5
  const std::vector<uint8_t> half = EncodeRow(cols, {Value::Timestamp(1796684950.5, 3, false)});
  EXPECT_EQ(std::vector<uint8_t>(half.begin() + 3, half.end()),
            (std::vector<uint8_t>{11, 120, 126, 12, 7, 24, 10, 11, 0x1D, 0xCD, 0x65, 0x00}));
  const std::vector<uint8_t> whole = EncodeRow(cols, {Value::Timestamp(1796684950, 3, false)});
  EXPECT_EQ(whole.size(), 3u + 1 + 7);
  const Row back = DecodeRow(cols, half);
  EXPECT_TRUE(back[0].is_timestamp());
  EXPECT_EQ(back[0].precision, 3);
  EXPECT_EQ(back[0].number, 1796684950.5);
  EXPECT_EQ(ValueText(back[0]), "07-DEC-26 11.09.10.500 PM");
  EXPECT_EQ(ColumnImageBytes(cols[0], back[0]), 12u);
}

// A full block whose rows were replaced by shorter ones takes the longer
// ones back (the rollback of those updates): the space they left is
// reclaimed, every other row and every slot unchanged.
TEST(RowFormatTest, AFullBlockTakesBackRowsThatShrank) {
  const std::vector<Column> cols = {{"ID", ColType::kNumber}, {"PAD", ColType::kVarchar2, 100}};
  std::vector<uint8_t> block(kBlockSize);
  HeapBlock::Format(absl::MakeSpan(block), 0x01400090, 73002);
  HeapBlock hb(absl::MakeSpan(block));
  std::vector<std::vector<uint8_t>> rows;
  for (int i = 0;; ++i) {
    rows.push_back(EncodeRow(cols, {Value::Num(i), Value::Str(std::string(100, 'x'))}));
    if (!hb.Insert(rows.back(), /*ignore_pctfree=*/true).has_value()) {
      rows.pop_back();
      break;
    }
  }
  ASSERT_GT(rows.size(), 60u);
  const size_t shrunk = 27;
  for (size_t i = 0; i < shrunk; ++i) {
    ASSERT_TRUE(hb.Replace(static_cast<uint16_t>(i),
                           EncodeRow(cols, {Value::Num(static_cast<double>(i)), Value::Str("y")})));
  }
  hb.SetDeleted(40, true);  // a deleted row keeps its bytes through the compaction
  for (size_t i = shrunk; i-- > 0;) {
    ASSERT_TRUE(hb.Replace(static_cast<uint16_t>(i), rows[i])) << "slot " << i;
  }
  hb.SetDeleted(40, false);
  for (size_t i = 0; i < rows.size(); ++i) {
    const absl::Span<const uint8_t> got = hb.RowBytes(static_cast<uint16_t>(i));
    EXPECT_EQ(std::vector<uint8_t>(got.begin(), got.end()), rows[i]) << "slot " << i;
  }
  // Nothing more fits than before.
  EXPECT_FALSE(hb.Insert(rows[0], true).has_value());
}

// `keep`: the bytes a change must leave reclaimable (room held for other
// transactions' rollbacks); a row that grows takes the rest.
TEST(RowFormatTest, ChangesLeaveTheRoomTheyAreToKeep) {
  const std::vector<Column> cols = {{"ID", ColType::kNumber}, {"PAD", ColType::kVarchar2, 300}};
  std::vector<uint8_t> block(kBlockSize);
  HeapBlock::Format(absl::MakeSpan(block), 0x01400090, 73002);
  HeapBlock hb(absl::MakeSpan(block));
  const std::vector<uint8_t> row = EncodeRow(cols, {Value::Num(1), Value::Str(std::string(100, 'x'))});
  while (hb.Insert(row, /*ignore_pctfree=*/true).has_value()) {
  }
  ASSERT_LT(hb.free_bytes(), row.size() + 2);
  const std::vector<uint8_t> shorter = EncodeRow(cols, {Value::Num(1), Value::Str("y")});
  const uint32_t shrink = static_cast<uint32_t>(row.size() - shorter.size());
  for (uint16_t slot = 0; slot < 12; ++slot) ASSERT_TRUE(hb.Replace(slot, shorter));
  const uint32_t room = hb.reclaimable_bytes();
  ASSERT_GE(room, 10 * shrink);
  const std::vector<uint8_t> longer =
      EncodeRow(cols, {Value::Num(1), Value::Str(std::string(130, 'z'))});
  const uint32_t grow = static_cast<uint32_t>(longer.size() - row.size());
  EXPECT_FALSE(hb.Replace(20, longer, room - grow + 1));  // would eat one byte of what is kept
  EXPECT_FALSE(hb.Insert(row, true, room - row.size() - 1).has_value());
  EXPECT_EQ(hb.reclaimable_bytes(), room);
  ASSERT_TRUE(hb.Replace(20, longer, room - grow));  // exactly what is kept is left
  EXPECT_EQ(hb.reclaimable_bytes(), room - grow);
  EXPECT_EQ(std::vector<uint8_t>(hb.RowBytes(20).begin(), hb.RowBytes(20).end()), longer);
  EXPECT_FALSE(hb.Replace(21, longer, room - grow - grow + 1));
  // With what the rollbacks of ten of them need kept, they all fit.
  ASSERT_TRUE(hb.Undo(RowChange::kUpdate, 20, row));
  ASSERT_GE(room - grow, 10 * shrink);
  ASSERT_TRUE(hb.Replace(21, longer, 10 * shrink));
  for (uint16_t slot = 0; slot < 10; ++slot) EXPECT_TRUE(hb.Undo(RowChange::kUpdate, slot, row));
  EXPECT_EQ(hb.reclaimable_bytes(), room - grow - 10 * shrink);
  EXPECT_FALSE(hb.Undo(RowChange::kUpdate, 22, std::vector<uint8_t>(longer.size() + 200, 0)));
}

}  // namespace
}  // namespace cellsim::db::internal
