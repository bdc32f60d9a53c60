// Unit tests of the front ends' small parsers and formatters (no rack needed).
#include "cellsim/lab/command_parsers.h"

#include <unistd.h>

#include <algorithm>
#include <csignal>

#include "cellsim/base/units.h"
#include "cellsim/cli/interrupt.h"
#include "cellsim/cli/progress.h"
#include "cellsim/cli/rack_env.h"
#include "cellsim/cli/substitution.h"
#include "testing/test_util.h"

namespace cellsim::cli {
namespace {

using report::CellCliFilter;
using report::CellCliObjectType;
using lab::SplitCommandWords;

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using Kind = CellCliCommand::Kind;

TEST(SplitCommandWordsTest, QuotesAndOperators) {
  ASSERT_OK_AND_ASSIGN(auto w, SplitCommandWords("list metriccurrent where name!='FC BY'", true));
  EXPECT_THAT(w, ElementsAre("list", "metriccurrent", "where", "name", "!=", "FC BY"));
  ASSERT_OK_AND_ASSIGN(w, SplitCommandWords("where size>=1G and x<2 attributes a,b", true));
  EXPECT_THAT(w, ElementsAre("where", "size", ">=", "1G", "and", "x", "<", "2", "attributes", "a",
                             ",", "b"));
  ASSERT_OK_AND_ASSIGN(w, SplitCommandWords("cp \"+DATA/a b\" x=y", false));
  EXPECT_THAT(w, ElementsAre("cp", "+DATA/a b", "x=y"));
  EXPECT_EQ(SplitCommandWords("ls 'oops", false).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(CellCliParserTest, ListCommandsAreCaseInsensitive) {
  ASSERT_OK_AND_ASSIGN(CellCliCommand c, ParseCellCliCommand("LIST Cell DETAIL"));
  EXPECT_EQ(c.kind, Kind::kList);
  EXPECT_EQ(c.object, CellCliObjectType::kCell);
  EXPECT_TRUE(c.list.detail);
  ASSERT_OK_AND_ASSIGN(c, ParseCellCliCommand("list flashcache"));
  EXPECT_EQ(c.object, CellCliObjectType::kFlashCache);
  EXPECT_FALSE(c.list.detail);
  ASSERT_OK_AND_ASSIGN(c, ParseCellCliCommand("list griddisk;"));
  EXPECT_EQ(c.object, CellCliObjectType::kGridDisk);
  ASSERT_OK_AND_ASSIGN(c, ParseCellCliCommand("describe GridDisk"));
  EXPECT_EQ(c.kind, Kind::kDescribe);
  EXPECT_EQ(c.object, CellCliObjectType::kGridDisk);
}

TEST(CellCliParserTest, ListNamesFiltersAttributesAndDetail) {
  ASSERT_OK_AND_ASSIGN(CellCliCommand c,
                       ParseCellCliCommand("list metriccurrent where objectType = 'FLASHCACHE' "
                                           "and name like 'FC_BY_.*'"));
  EXPECT_EQ(c.object, CellCliObjectType::kMetricCurrent);
  ASSERT_EQ(c.list.filters.size(), 2u);
  EXPECT_EQ(c.list.filters[0].attribute, "objectType");
  EXPECT_EQ(c.list.filters[1].op, CellCliFilter::Op::kLike);
  ASSERT_OK_AND_ASSIGN(c, ParseCellCliCommand("LIST METRICCURRENT fc_by_dirty DETAIL"));
  EXPECT_TRUE(c.list.detail);
  EXPECT_EQ(c.name, "fc_by_dirty");
  ASSERT_EQ(c.list.filters.size(), 1u);
  EXPECT_EQ(c.list.filters[0].attribute, "name");
  ASSERT_OK_AND_ASSIGN(
      c, ParseCellCliCommand("list griddisk where size>=1G and asmModeStatus!=ONLINE attributes "
                             "name,asmmodestatus , asmDeactivationOutcome detail"));
  ASSERT_EQ(c.list.filters.size(), 2u);
  EXPECT_EQ(c.list.filters[0].op, CellCliFilter::Op::kGe);
  EXPECT_EQ(c.list.filters[0].value, "1G");
  EXPECT_EQ(c.list.filters[1].op, CellCliFilter::Op::kNe);
  EXPECT_THAT(c.list.attributes, ElementsAre("name", "asmmodestatus", "asmDeactivationOutcome"));
  EXPECT_TRUE(c.list.detail);
  ASSERT_OK_AND_ASSIGN(c, ParseCellCliCommand("list celldisk attributes all"));
  EXPECT_TRUE(c.list.all_attributes);
}

TEST(CellCliParserTest, AlterCommands) {
  ASSERT_OK_AND_ASSIGN(CellCliCommand c, ParseCellCliCommand("ALTER FLASHCACHE ALL FLUSH"));
  EXPECT_EQ(c.kind, Kind::kFlushFlashCache);
  ASSERT_OK_AND_ASSIGN(c, ParseCellCliCommand("alter cell flashCacheMode=WriteThrough"));
  EXPECT_EQ(c.kind, Kind::kSetFlashCacheMode);
  EXPECT_EQ(c.mode, cell::FlashCacheMode::kWriteThrough);
  ASSERT_OK_AND_ASSIGN(c, ParseCellCliCommand("alter cell flashcachemode = \"writeback\""));
  EXPECT_EQ(c.mode, cell::FlashCacheMode::kWriteBack);
  ASSERT_OK_AND_ASSIGN(
      c, ParseCellCliCommand("ALTER GRIDDISK RECO_CD_00_cel01,RECO_CD_01_cel01 cachingPolicy='none'"));
  EXPECT_EQ(c.kind, Kind::kSetCachingPolicy);
  EXPECT_EQ(c.grid_disks, (std::vector<std::string>{"RECO_CD_00_cel01", "RECO_CD_01_cel01"}));
  EXPECT_EQ(c.caching_policy, cell::CachingPolicy::kNone);
  ASSERT_OK_AND_ASSIGN(c, ParseCellCliCommand("alter griddisk all prefix=RECO cachingpolicy=default"));
  EXPECT_TRUE(c.grid_disks.empty());
  EXPECT_EQ(c.prefix, "RECO");
  EXPECT_EQ(c.caching_policy, cell::CachingPolicy::kDefault);
  ASSERT_OK_AND_ASSIGN(c, ParseCellCliCommand("alter griddisk all cachingPolicy = 'none'"));
  EXPECT_EQ(c.prefix, "");
  ASSERT_OK_AND_ASSIGN(c, ParseCellCliCommand("ALTER GRIDDISK ALL INACTIVE"));
  EXPECT_EQ(c.kind, Kind::kSetGridDiskActive);
  EXPECT_FALSE(c.active);
  EXPECT_TRUE(c.grid_disks.empty());
  ASSERT_OK_AND_ASSIGN(c, ParseCellCliCommand("alter griddisk DATA_CD_00_cel01, RECO_CD_00_cel01 active"));
  EXPECT_EQ(c.kind, Kind::kSetGridDiskActive);
  EXPECT_TRUE(c.active);
  EXPECT_THAT(c.grid_disks, ElementsAre("DATA_CD_00_cel01", "RECO_CD_00_cel01"));
}

TEST(CellCliParserTest, BadCommandsSayWhatWasExpected) {
  for (const char* bad : {"", "list", "list spaceships", "list cell detail brief", "drop cell",
                          "list griddisk attributes", "list griddisk attributes name,,size",
                          "list griddisk attributes name size", "list griddisk where size > ",
                          "list griddisk attributes colour", "describe griddisk detail",
                          "alter cell flashCacheMode = fast", "alter flashcache all",
                          "list metriccurrent where color = 'red'",
                          "list metriccurrent where name like '('",
                          "list metriccurrent where name", "alter griddisk",
                          "alter griddisk all cachingPolicy='keep'",
                          "alter griddisk all prefix=RECO", "alter griddisk a,,b cachingPolicy=none",
                          "alter griddisk all size=1g", "alter griddisk all sleepy",
                          "alter griddisk all active now"}) {
    absl::StatusOr<CellCliCommand> c = ParseCellCliCommand(bad);
    ASSERT_FALSE(c.ok()) << bad;
    EXPECT_EQ(c.status().code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_THAT(std::string(c.status().message()), HasSubstr("CELL-01504")) << bad;
  }
  EXPECT_THAT(std::string(ParseCellCliCommand("list spaceships").status().message()),
              HasSubstr("'spaceships'"));
  // CellCLI's order is WHERE, then ATTRIBUTES: the other order is named.
  EXPECT_THAT(std::string(ParseCellCliCommand("list griddisk attributes name, status where "
                                              "status = active").status().message()),
              HasSubstr("WHERE goes before ATTRIBUTES (LIST GRIDDISK WHERE ... ATTRIBUTES ...)"));
}

// The same interrupt delivered again just after the command's scope ended (it
// unwound quickly) is still one interrupt: the command exits 128 + signal
// instead of dying by the signal's default action. (A forked child: the
// handlers and the flag are the process's.)
TEST(InterruptScopeTest, ARepeatAfterTheScopeEndedIsStillOneInterrupt) {
  EXPECT_EXIT(
      {
        {
          InterruptScope scope;
          raise(SIGINT);
          if (!InterruptFlag()->cancelled()) _exit(3);
        }
        raise(SIGINT);
        _exit(InterruptExitCode());
      },
      ::testing::ExitedWithCode(128 + SIGINT), "");
  // Without an interrupt the scope gives the old disposition back.
  EXPECT_EXIT(
      {
        { InterruptScope scope; }
        raise(SIGINT);
        _exit(0);
      },
      ::testing::KilledBySignal(SIGINT), "");
}

TEST(AsmcmdParserTest, CommandsAndOptions) {
  ASSERT_OK_AND_ASSIGN(AsmcmdCommand c, ParseAsmcmdCommand("ls -l +DATA/ORCL"));
  EXPECT_EQ(c.kind, AsmcmdCommand::Kind::kLs);
  EXPECT_TRUE(c.long_format);
  EXPECT_THAT(c.args, ElementsAre("+DATA/ORCL"));
  ASSERT_OK_AND_ASSIGN(c, ParseAsmcmdCommand("lsdsk -kp -G reco *cel02*"));
  EXPECT_EQ(c.kind, AsmcmdCommand::Kind::kLsdsk);
  EXPECT_TRUE(c.lsdsk.k);
  EXPECT_TRUE(c.lsdsk.p);
  EXPECT_EQ(c.lsdsk.group, "reco");
  EXPECT_EQ(c.lsdsk.pattern, "*cel02*");
  ASSERT_OK_AND_ASSIGN(c, ParseAsmcmdCommand("cp +DATA/ORCL/ONLINELOG/group_5.* /tmp/x"));
  EXPECT_EQ(c.kind, AsmcmdCommand::Kind::kCp);
  EXPECT_THAT(c.args, ElementsAre("+DATA/ORCL/ONLINELOG/group_5.*", "/tmp/x"));
  ASSERT_OK_AND_ASSIGN(c, ParseAsmcmdCommand("lsdg"));
  EXPECT_EQ(c.kind, AsmcmdCommand::Kind::kLsdg);
  EXPECT_TRUE(c.args.empty());
  ASSERT_OK_AND_ASSIGN(c, ParseAsmcmdCommand("ls -ls +DATA"));
  EXPECT_TRUE(c.long_format);
  EXPECT_TRUE(c.sizes);
  ASSERT_OK_AND_ASSIGN(c, ParseAsmcmdCommand("du"));
  EXPECT_EQ(c.kind, AsmcmdCommand::Kind::kDu);
  ASSERT_OK_AND_ASSIGN(c, ParseAsmcmdCommand("find --type onlinelog + *"));
  EXPECT_EQ(c.kind, AsmcmdCommand::Kind::kFind);
  EXPECT_EQ(c.type, "ONLINELOG");
  EXPECT_THAT(c.args, ElementsAre("+", "*"));
  ASSERT_OK_AND_ASSIGN(c, ParseAsmcmdCommand("lstmpl -l -G reco CONTROL*"));
  EXPECT_EQ(c.kind, AsmcmdCommand::Kind::kLstmpl);
  EXPECT_TRUE(c.lstmpl.l);
  EXPECT_EQ(c.lstmpl.group, "reco");
  EXPECT_EQ(c.lstmpl.pattern, "CONTROL*");
  ASSERT_OK_AND_ASSIGN(c, ParseAsmcmdCommand("lsdsk --suppressheader -G DATA"));
  EXPECT_TRUE(c.suppress_header);
  EXPECT_EQ(c.lsdsk.group, "DATA");
  for (const char* bad : {"find +DATA", "find --type", "du a b", "ls -x", "lsdsk -G", "lstmpl -k",
                          "lstmpl -G", "lstmpl a b", "find --suppressheader + x", "cd --suppressheader +"}) {
    EXPECT_EQ(ParseAsmcmdCommand(bad).status().code(), absl::StatusCode::kInvalidArgument) << bad;
  }
}

TEST(AsmcmdParserTest, BadCommands) {
  // A command cellsim lacks is named as such, before any of its options
  // (it said "option '-rf' of rm is not supported", "option '-G' of lsattr").
  EXPECT_THAT(std::string(ParseAsmcmdCommand("rm -rf +DATA").status().message()),
              HasSubstr("ASMCMD-8022: unknown command 'rm'"));
  EXPECT_THAT(std::string(ParseAsmcmdCommand("lsattr -l -G DATA").status().message()),
              HasSubstr("ASMCMD-8022: unknown command 'lsattr'"));
  EXPECT_THAT(std::string(ParseAsmcmdCommand("mkdg x").status().message()),
              HasSubstr("ASMCMD-8022: unknown command 'mkdg'"));
  EXPECT_THAT(std::string(ParseAsmcmdCommand("cp +DATA/x").status().message()),
              HasSubstr("usage: cp +DG/PATH LOCALFILE"));
  EXPECT_THAT(std::string(ParseAsmcmdCommand("ls -z").status().message()),
              HasSubstr("option '-z' of ls"));
  EXPECT_FALSE(ParseAsmcmdCommand("lsdsk -G").ok());
  EXPECT_FALSE(ParseAsmcmdCommand("cd").ok());
  EXPECT_FALSE(ParseAsmcmdCommand("").ok());
}

TEST(DiskGroupOptionTest, ParsesAndValidates) {
  ASSERT_OK_AND_ASSIGN(asmgr::DiskGroupSpec g, ParseDiskGroupOption("data:normal:2g"));
  EXPECT_EQ(g.name, "DATA");
  EXPECT_EQ(g.redundancy, asmgr::Redundancy::kNormal);
  EXPECT_EQ(g.grid_disk_size, 2 * kGiB);
  EXPECT_EQ(g.au_size, asmgr::kDefaultAuSize);
  ASSERT_OK_AND_ASSIGN(g, ParseDiskGroupOption("RECO:HIGH:512m:1m"));
  EXPECT_EQ(g.redundancy, asmgr::Redundancy::kHigh);
  EXPECT_EQ(g.au_size, kMiB);
  ASSERT_OK_AND_ASSIGN(g, ParseDiskGroupOption("X:external:64m"));
  EXPECT_EQ(g.redundancy, asmgr::Redundancy::kExternal);
  EXPECT_EQ(g.caching_policy, cell::CachingPolicy::kDefault);
  ASSERT_OK_AND_ASSIGN(g, ParseDiskGroupOption("RECO:NORMAL:1g:4m:None"));
  EXPECT_EQ(g.caching_policy, cell::CachingPolicy::kNone);
  for (const char* bad : {"DATA", "DATA:NORMAL", ":NORMAL:1g", "DATA:MIRROR:1g", "DATA:NORMAL:0",
                          "DATA:NORMAL:lots", "DATA:NORMAL:1g:3m", "DATA:NORMAL:6m:4m",
                          "DATA:NORMAL:1g:4m:x", "DATA:NORMAL:1g:4m:none:y"}) {
    absl::StatusOr<asmgr::DiskGroupSpec> s = ParseDiskGroupOption(bad);
    ASSERT_FALSE(s.ok()) << bad;
    EXPECT_THAT(std::string(s.status().message()), HasSubstr(bad)) << bad;
  }
}

TEST(ProgressLineTest, FitsTheWidthAndShowsTheFraction) {
  const std::string line = RenderProgressLine("zero-fill", 512 * kMiB, 1024 * kMiB, 2.0, 80);
  EXPECT_EQ(line.size(), 80u) << line;
  EXPECT_THAT(line, HasSubstr(" 50%  512 MiB / 1 GiB  256 MiB/s"));
  const size_t hashes = std::count(line.begin(), line.end(), '#');
  const size_t dashes = std::count(line.begin(), line.end(), '-') - 1;  // "zero-fill"
  EXPECT_LE(std::max(hashes, dashes) - std::min(hashes, dashes), 1u) << line;
  EXPECT_GE(hashes + dashes, 30u) << line;
  EXPECT_THAT(RenderProgressLine("x", 3, 0, 0, 60), HasSubstr("  0%"));
  EXPECT_THAT(RenderProgressLine("x", 10, 10, 1, 20), HasSubstr("100%"));  // narrow: 10 cells
}

TEST(SqlPlusTest, FeedbackAndElapsed) {
  EXPECT_EQ(SqlPlusFeedback("ALTER DATABASE ADD LOGFILE"), "Database altered.");
  EXPECT_EQ(SqlPlusFeedback("CREATE TABLESPACE"), "Tablespace created.");
  EXPECT_EQ(SqlPlusFeedback("ALTER TABLESPACE ADD DATAFILE"), "Tablespace altered.");
  EXPECT_EQ(SqlPlusFeedback("DROP TABLESPACE"), "Tablespace dropped.");
  EXPECT_EQ(SqlPlusFeedback("ALTER SESSION SET"), "Session altered.");
  EXPECT_EQ(SqlPlusElapsed(5'090'000'000), "00:00:05.09");
  EXPECT_EQ(SqlPlusElapsed(3'725'004'999'999), "01:02:05.00");
  EXPECT_EQ(SqlPlusElapsed(0), "00:00:00.00");
}

TEST(FixedWallClockTest, WallStandsStillMonotonicMoves) {
  FixedWallClock c(1'700'000'000);
  EXPECT_EQ(c.UnixSeconds(), 1'700'000'000);
  const uint64_t a = c.NowNanos();
  EXPECT_GE(c.NowNanos(), a);
  EXPECT_EQ(c.UnixSeconds(), 1'700'000'000);
}

// &name, &&name and &name. as SQL*Plus reads them; `&` before no name stays.
TEST(SubstitutionVariablesTest, ReplacesNamesAsSqlPlusReadsThem) {
  SubstitutionVariables v;
  v.Define("x", "5");
  v.Define("T", "emp");
  std::string verify;
  EXPECT_EQ(*v.Substitute("select &x, &X. || 'a', '&t._1', 'a & b', '&' from &&t", nullptr, &verify),
            "select 5, 5 || 'a', 'emp_1', 'a & b', '&' from emp");
  EXPECT_EQ(verify, "old   1: select &x, &X. || 'a', '&t._1', 'a & b', '&' from &&t\n"
                    "new   1: select 5, 5 || 'a', 'emp_1', 'a & b', '&' from emp\n");
  // Asked once for &&y, which then keeps its value; asked each time for &z.
  int asked = 0;
  const SubstitutionVariables::Ask ask = [&](std::string_view name) {
    ++asked;
    return std::optional<std::string>(std::string(name) == "Y" ? "7" : "8");
  };
  EXPECT_EQ(*v.Substitute("&&y &y &z &z", ask, nullptr), "7 7 8 8");
  EXPECT_EQ(asked, 3);
  EXPECT_FALSE(v.Substitute("&nothing", nullptr, nullptr).ok());
  ASSERT_TRUE(v.SetDefine("^").ok());
  EXPECT_EQ(*v.Substitute("^x & &x", nullptr, nullptr), "5 & &x");
  ASSERT_TRUE(v.SetDefine("off").ok());
  EXPECT_EQ(*v.Substitute("^x", nullptr, nullptr), "^x");
  EXPECT_FALSE(v.SetDefine("maybe").ok());
  // DEFINE and UNDEFINE.
  ASSERT_TRUE(v.Command("define w = 'a b'").has_value());
  EXPECT_EQ(**v.Command("define W"), "DEFINE W               = \"a b\" (CHAR)\n");
  EXPECT_EQ(**v.Command("undefine w x"), "");
  EXPECT_FALSE(v.Command("def w")->ok());
  EXPECT_FALSE(v.Command("define a-b = 1")->ok());
  EXPECT_FALSE(v.Command("select 1 from dual").has_value());
  EXPECT_FALSE(v.Command("defined").has_value());
}

}  // namespace
}  // namespace cellsim::cli
