#include <limits>
#include <string>
#include <utility>

#include "cellsim/base/checksum.h"
#include "cellsim/base/clock.h"
#include "cellsim/base/hash.h"
#include "cellsim/base/units.h"
#include "fmt/format.h"
#include "testing/test_util.h"

namespace cellsim {
namespace {

TEST(UnitsTest, ParsesSuffixes) {
  EXPECT_EQ(*ParseSize("4096m"), 4096 * kMiB);
  EXPECT_EQ(*ParseSize("4096M"), 4096 * kMiB);
  EXPECT_EQ(*ParseSize("1G"), kGiB);
  EXPECT_EQ(*ParseSize("16k"), 16 * kKiB);
  EXPECT_EQ(*ParseSize("2T"), 2 * kTiB);
  EXPECT_EQ(*ParseSize("512"), 512u);
  EXPECT_EQ(*ParseSize(" 8 "), 8u);
}

TEST(UnitsTest, RejectsBadInputWithClearMessages) {
  auto empty = ParseSize("");
  EXPECT_EQ(empty.status().code(), absl::StatusCode::kInvalidArgument);
  auto neg = ParseSize("-5m");
  EXPECT_THAT(std::string(neg.status().message()), ::testing::HasSubstr("negative"));
  auto unit = ParseSize("5q");
  EXPECT_THAT(std::string(unit.status().message()), ::testing::HasSubstr("unknown unit"));
  // Oracle's SIZE syntax only, in SQL and CLI options alike.
  for (const char* t : {"1GiB", "4MB", "1e3", "512b"}) {
    EXPECT_THAT(std::string(ParseSize(t).status().message()), ::testing::HasSubstr("unknown unit"))
        << t;
  }
  auto nan = ParseSize("abc");
  EXPECT_THAT(std::string(nan.status().message()), ::testing::HasSubstr("not a number"));
  auto big = ParseSize("99999999999999999999");
  EXPECT_EQ(big.status().code(), absl::StatusCode::kOutOfRange);
  auto big2 = ParseSize("17179869184T");  // 2^34 TiB overflows 64 bits
  EXPECT_EQ(big2.status().code(), absl::StatusCode::kOutOfRange);
}

TEST(UnitsTest, ParsesDurations) {
  EXPECT_EQ(*ParseDuration("300"), std::chrono::seconds(300));
  EXPECT_EQ(*ParseDuration("30s"), std::chrono::seconds(30));
  EXPECT_EQ(*ParseDuration("5m"), std::chrono::minutes(5));
  EXPECT_EQ(*ParseDuration("2H"), std::chrono::hours(2));
  EXPECT_EQ(*ParseDuration("250ms"), std::chrono::milliseconds(250));
  EXPECT_EQ(*ParseDuration("0"), std::chrono::milliseconds(0));
  for (const char* bad : {"", "-1s", "5 parsecs", "1.5s", "m", "5d"}) {
    absl::StatusOr<std::chrono::milliseconds> d = ParseDuration(bad);
    EXPECT_EQ(d.status().code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_THAT(std::string(d.status().message()), ::testing::HasSubstr("ms, s, m or h")) << bad;
  }
  EXPECT_EQ(ParseDuration("999999999h").status().code(), absl::StatusCode::kOutOfRange);
}

TEST(UnitsTest, FormatsBytes) {
  EXPECT_EQ(FormatBytes(17179869184), "16 GiB");
  EXPECT_EQ(FormatBytes(512), "512 B");
  EXPECT_EQ(FormatBytes(1536 * kMiB), "1.5 GiB");
}

TEST(ChecksumTest, EncoderDecoderRoundTrip) {
  Encoder e;
  e.PutU8(7);
  e.PutU16(0xBEEF);
  e.PutU32(0xDEADBEEF);
  e.PutU64(0x0123456789ABCDEFull);
  e.PutString("DATA");
  Decoder d(e.data());
  uint8_t a;
  uint16_t b;
  uint32_t c;
  uint64_t x;
  std::string s;
  ASSERT_TRUE(d.GetU8(&a) && d.GetU16(&b) && d.GetU32(&c) && d.GetU64(&x) && d.GetString(&s));
  EXPECT_EQ(a, 7);
  EXPECT_EQ(b, 0xBEEF);
  EXPECT_EQ(c, 0xDEADBEEFu);
  EXPECT_EQ(x, 0x0123456789ABCDEFull);
  EXPECT_EQ(s, "DATA");
  EXPECT_EQ(d.remaining(), 0u);
  EXPECT_FALSE(d.GetU8(&a));
}

TEST(ChecksumTest, DecoderRejectsHostileLengths) {
  Encoder e;
  e.PutU32(1u << 30);  // claims a 1 GiB string
  e.PutU8('x');
  Decoder d(e.data());
  std::string s;
  EXPECT_FALSE(d.GetString(&s, 1u << 31));
  EXPECT_EQ(d.position(), 0u);  // nothing consumed
  EXPECT_EQ(d.Truncated("record").code(), absl::StatusCode::kDataLoss);
}

TEST(ChecksumTest, ChecksumDependsOnDataAndSeed) {
  std::vector<uint8_t> v = {1, 2, 3};
  EXPECT_EQ(Checksum64(v), Checksum64(v));
  EXPECT_NE(Checksum64(v), Checksum64(v, 1));
  v[1] = 9;
  EXPECT_NE(Checksum64(v), Checksum64(std::vector<uint8_t>{1, 2, 3}));
}

std::string Hex(const Md5Digest& d) {
  std::string out;
  for (uint8_t b : d) out += fmt::format("{:02x}", b);
  return out;
}

// RFC 1321 appendix A.5, then the lengths around the tail's one and two
// padding blocks (the figures from Python's hashlib).
TEST(HashTest, Md5MatchesRfc1321AndEveryTailLength) {
  EXPECT_EQ(Hex(Md5("")), "d41d8cd98f00b204e9800998ecf8427e");
  EXPECT_EQ(Hex(Md5("a")), "0cc175b9c0f1b6a831c399e269772661");
  EXPECT_EQ(Hex(Md5("abc")), "900150983cd24fb0d6963f7d28e17f72");
  EXPECT_EQ(Hex(Md5("message digest")), "f96b697d7cb7938d525a2f31aaf161d0");
  EXPECT_EQ(Hex(Md5("abcdefghijklmnopqrstuvwxyz")), "c3fcd3d76192e4007dfb496cca67e13b");
  EXPECT_EQ(Hex(Md5("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")),
            "d174ab98d277d9f5a5611c2c9f419d9f");
  EXPECT_EQ(Hex(Md5("1234567890123456789012345678901234567890123456789012345678901234567890"
                    "1234567890")),
            "57edf4a22be3c955ac49da2e2107b67a");
  const std::pair<size_t, const char*> lengths[] = {
      {55, "0d7ae056b2f015cd7dc67494efd658f1"},  {56, "31fcfb5165169eb55898e7e4cf34d19a"},
      {63, "1b30c0670c15e7da3c2ba7bce77ebe99"},  {64, "a2eaf6295c32adc403865fd96a2f182b"},
      {65, "eba2cce0ca8df47e62414a736b3105a2"},  {119, "b05187e08da41fa3ef16bd56afaafd99"},
      {120, "62af9b597a9f55e16ab2b897387fc052"}, {1000, "303fb697b589019cb3edba04b794e575"}};
  for (const auto& [n, want] : lengths) {
    std::string s;
    for (size_t i = 0; i < n; ++i) s += static_cast<char>('a' + i % 26);
    EXPECT_EQ(Hex(Md5(s)), want) << n << " bytes";
  }
}

// FNV-1a's published 32-bit vectors: the function may not drift, as disk
// incarnations and cell hash values are shown to users and kept in traces.
TEST(HashTest, Fnv1a32MatchesItsPublishedVectors) {
  EXPECT_EQ(Fnv1a32(""), 0x811c9dc5u);
  EXPECT_EQ(Fnv1a32("a"), 0xe40c292cu);
  EXPECT_EQ(Fnv1a32("foobar"), 0xbf9cf968u);
}

TEST(ClockTest, ManualClockAdvances) {
  ManualClock c(100);
  EXPECT_EQ(c.NowNanos(), 100u);
  c.Advance(50);
  EXPECT_EQ(c.NowNanos(), 150u);
  EXPECT_GT(SystemClock()->UnixSeconds(), 1'600'000'000);
}

}  // namespace
}  // namespace cellsim
