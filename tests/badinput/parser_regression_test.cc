// Regression tests for the text-parser bugs tests/fuzz/text_parsers_fuzzer
// found: user regular expressions (mystats r=, CellCLI LIKE) with huge repeat
// counts reached signed-overflow UB inside libstdc++'s regex compiler, and
// would build automata of gigabytes. They are now refused with a message.
#include <string>

#include "cellsim/lab/command_parsers.h"
#include "cellsim/report/mystats.h"
#include "testing/test_util.h"

namespace cellsim::badinput {
namespace {

using ::testing::HasSubstr;

TEST(ParserRegression, MystatsRegexHugeRepeatIsRefused) {
  for (const char* args : {"r=a{99999999999999999999}", "r=C{1111111111111111111}",
                           "r=x{100000000}", "r=a{1,100000}"}) {
    absl::StatusOr<report::MystatsOptions> o = report::ParseMystatsOptions(args);
    ASSERT_FALSE(o.ok()) << args;
    EXPECT_EQ(o.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(o.status().message()), HasSubstr("repeat count")) << args;
  }
  EXPECT_FALSE(report::ParseMystatsOptions("r=(a{9}){9}{9}").ok());  // three counted repeats
  EXPECT_FALSE(report::ParseMystatsOptions("r=" + std::string(300, 'a')).ok());
  // Ordinary patterns still work.
  EXPECT_OK(report::ParseMystatsOptions("r=^cell.*(physical|flash).*bytes$"));
  EXPECT_OK(report::ParseMystatsOptions("r=x{2,5} t=10"));
}

TEST(ParserRegression, CellCliLikeHugeRepeatIsRefused) {
  absl::StatusOr<lab::CellCliCommand> c =
      lab::ParseCellCliCommand("list metriccurrent where name like 'FC_{99999999999}'");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(c.status().message()), HasSubstr("repeat count"));
  EXPECT_OK(lab::ParseCellCliCommand("list metriccurrent where name like 'FC_IO_.*'"));
}

}  // namespace
}  // namespace cellsim::badinput
