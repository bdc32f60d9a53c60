// REGEXP_LIKE, REGEXP_COUNT, REGEXP_INSTR, REGEXP_SUBSTR and REGEXP_REPLACE:
// Oracle's results and errors, on values (pure) and in a query.
#include "cellsim/db/regexp_functions.h"

#include <string>
#include <vector>

#include "db/db_test_util.h"
#include "gtest/gtest.h"

namespace cellsim::db {
namespace {

using internal::RegexpFunction;
using internal::Value;
using ::testing::HasSubstr;

Value S(const char* s) { return Value::Str(s); }
Value N(double d) { return Value::Num(d); }

// The function's value as SQL*Plus prints it ("" for NULL), or its error.
std::string Call(const char* f, std::vector<Value> args) {
  std::optional<absl::StatusOr<Value>> v = RegexpFunction(f, args);
  if (!v) return "<not a regexp function>";
  if (!v->ok()) return std::string(v->status().message());
  return (*v)->is_null() ? "" : internal::ValueText(**v);
}

TEST(RegexpFunctions, ReplaceSubstrInstrCountAsOracle) {
  EXPECT_EQ(Call("REGEXP_REPLACE", {S("abc abc"), S("b"), S("x")}), "axc axc");
  // Occurrence 2 only, groups swapped; no replacement: the matches go.
  EXPECT_EQ(Call("REGEXP_REPLACE", {S("abc abc"), S("(a)(b)"), S("\\2\\1"), N(1), N(2)}),
            "abc bac");
  EXPECT_EQ(Call("REGEXP_REPLACE", {S("a.b.c"), S("\\.")}), "abc");
  EXPECT_EQ(Call("REGEXP_REPLACE", {S("abc"), Value::Null(), S("x")}), "abc");
  EXPECT_EQ(Call("REGEXP_SUBSTR", {S("foo123bar45"), S("[0-9]+")}), "123");
  EXPECT_EQ(Call("REGEXP_SUBSTR", {S("foo123bar45"), S("[0-9]+"), N(1), N(2)}), "45");
  EXPECT_EQ(Call("REGEXP_SUBSTR", {S("foo123bar45"), S("[0-9]+"), N(1), N(3)}), "");
  EXPECT_EQ(Call("REGEXP_SUBSTR", {S("k=v; k2=v2"), S("(\\w+)=(\\w+)"), N(1), N(2), Value::Null(),
                                   N(2)}),
            "v2");
  EXPECT_EQ(Call("REGEXP_INSTR", {S("foo123bar45"), S("[0-9]+"), N(1), N(2)}), "10");
  EXPECT_EQ(Call("REGEXP_INSTR", {S("foo123bar45"), S("[0-9]+"), N(1), N(1), N(1)}), "7");
  EXPECT_EQ(Call("REGEXP_INSTR", {S("foo"), S("[0-9]")}), "0");
  EXPECT_EQ(Call("REGEXP_COUNT", {S("a1b22c333"), S("\\d+")}), "3");
  EXPECT_EQ(Call("REGEXP_COUNT", {S("AbAb"), S("a"), N(1), S("i")}), "2");
  EXPECT_EQ(Call("REGEXP_COUNT", {S("AbAb"), S("a"), N(2), S("i")}), "1");
  EXPECT_EQ(Call("REGEXP_LIKE", {S("x"), S("^[[:alpha:]]$")}), "1");
  EXPECT_EQ(Call("REGEXP_LIKE", {S("Hello"), S("^h")}), "0");
  EXPECT_EQ(Call("REGEXP_LIKE", {S("Hello"), S("^h"), S("i")}), "1");
  // 'n': '.' matches a newline too.
  EXPECT_EQ(Call("REGEXP_LIKE", {S("a\nb"), S("a.b")}), "0");
  EXPECT_EQ(Call("REGEXP_LIKE", {S("a\nb"), S("a.b"), S("n")}), "1");
  // NULL in, NULL out.
  EXPECT_EQ(Call("REGEXP_SUBSTR", {Value::Null(), S("a")}), "");
  EXPECT_EQ(Call("REGEXP_LIKE", {Value::Null(), S("a")}), "");
  EXPECT_EQ(Call("UPPER", {S("a")}), "<not a regexp function>");
}

TEST(RegexpFunctions, BadArgumentsAreOracleErrors) {
  EXPECT_THAT(Call("REGEXP_REPLACE", {S("abc"), S("(b")}), HasSubstr("ORA-12725"));
  EXPECT_THAT(Call("REGEXP_LIKE", {S("abc"), S("[b")}), HasSubstr("ORA-12726"));
  EXPECT_THAT(Call("REGEXP_LIKE", {S("abc"), S("b"), S("q")}), HasSubstr("ORA-01760"));
  EXPECT_THAT(Call("REGEXP_COUNT", {S("abc"), S("b"), N(0)}), HasSubstr("ORA-01428"));
  EXPECT_THAT(Call("REGEXP_SUBSTR", {S("abc")}), HasSubstr("ORA-00909"));
  // What std::regex cannot take safely (a repeat count that overflows its
  // parser, or a state per repetition) is refused before it compiles.
  EXPECT_THAT(Call("REGEXP_LIKE", {S("a"), S("a{99999999999999999999}")}), HasSubstr("ORA-12733"));
  EXPECT_THAT(Call("REGEXP_LIKE", {S("a"), S("a{100000000}")}), HasSubstr("ORA-12733"));
}

class RegexpQueryTest : public testing::SqlTest {
 protected:
  void Configure(DatabaseOptions* o) const override { o->all_objects_rows = 100; }
};

TEST_F(RegexpQueryTest, RegexpLikeIsAConditionAndTheOthersAreValues) {
  Run("create table t (s varchar2(20))");
  for (const char* s : {"alpha1", "Beta22", "gamma", "delta333"}) {
    Run(std::string("insert into t values ('") + s + "')");
  }
  EXPECT_EQ(Run("select s from t where regexp_like(s, '^[a-d]', 'i') and regexp_count(s, "
                "'[0-9]') >= 2 order by s").result_rows,
            (std::vector<std::vector<std::string>>{{"Beta22"}, {"delta333"}}));
  EXPECT_EQ(One("select listagg(regexp_substr(s, '[0-9]+'), ',') within group (order by s) "
                "from t"),
            "22,1,333");
}

// LIKE (its own matcher, not a regex): '%' any bytes, a newline too, '_'
// one byte, regex characters themselves.
TEST_F(RegexpQueryTest, LikeMatchesAsOracle) {
  const auto like = [&](const std::string& text, const std::string& pattern) {
    return One("select count(*) from dual where '" + text + "' like '" + pattern + "'");
  };
  EXPECT_EQ(like("abc", "a%"), "1");
  EXPECT_EQ(like("abc", "%c"), "1");
  EXPECT_EQ(like("abc", "a_c"), "1");
  EXPECT_EQ(like("abc", "_"), "0");
  EXPECT_EQ(like("abc", "ab"), "0");
  EXPECT_EQ(like("abc", "a%%"), "1");
  EXPECT_EQ(like("aXbYbZc", "a%b%c"), "1");  // the first %b must give way
  EXPECT_EQ(like("aXbYbZ", "a%b%c"), "0");
  EXPECT_EQ(like("a.c", "a.c"), "1");
  EXPECT_EQ(like("abc", "a.c"), "0");
  EXPECT_EQ(like("a(b", "a(%"), "1");
  EXPECT_EQ(like("a\nb", "a%b"), "1");  // a newline in the literal
  EXPECT_EQ(like("a\nb", "a_b"), "1");
  EXPECT_EQ(One("select count(*) from dual where 'abc' not like '%z%'"), "1");
  EXPECT_EQ(One("select count(*) from dual where null like '%'"), "0");
}

}  // namespace
}  // namespace cellsim::db
