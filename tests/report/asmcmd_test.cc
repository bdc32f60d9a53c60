#include "cellsim/report/asmcmd.h"

#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_split.h"
#include "cellsim/base/units.h"
#include "testing/test_util.h"

namespace cellsim::report {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr int64_t kNow = 1'438'424'372;   // 2015-08-01T10:19:32Z
constexpr int64_t kMade = 1'438'420'000;  // 2015-08-01T09:06:40Z

asmgr::DiskView Disk(uint32_t index, const std::string& name, const std::string& cell,
                     uint64_t total, uint64_t free, const std::string& mode = "ONLINE") {
  asmgr::DiskView d;
  d.index = index;
  d.name = name;
  d.path = "o/" + cell + "/" + name;
  d.failgroup = absl::AsciiStrToUpper(cell);
  d.mode_status = mode;
  d.total_mb = total;
  d.free_mb = free;
  return d;
}

asmgr::FileView File(const std::string& type, const std::string& name, int64_t t = kMade) {
  asmgr::FileView f;
  f.type = type;
  f.redundancy = "MIRROR";
  f.time_unix = t;
  f.name = name;
  return f;
}

AsmSnapshot Snapshot() {
  AsmSnapshot s;
  AsmDiskGroupSnapshot data;
  data.view.name = "DATA";
  data.view.au_size = 4194304;
  data.view.space = {.total_mb = 73728, .free_mb = 65520, .required_mirror_free_mb = 24576,
                     .usable_file_mb = 20472};
  data.disks = {Disk(0, "DATA_CD_00_cel01", "cel01", 2048, 1820),
                Disk(1, "DATA_CD_00_cel02", "cel02", 2048, 1824, "OFFLINE")};
  data.files = {File("CONTROLFILE", "+DATA/ORCL/CONTROLFILE/Current.256.1438420000"),
                File("ONLINELOG", "+DATA/ORCL/ONLINELOG/group_5.258.1438420000"),
                File("ONLINELOG", "+DATA/ORCL/ONLINELOG/group_4.257.1438420000",
                     kNow - 400 * 86400)};
  data.view.offline_disks = 1;
  AsmDiskGroupSnapshot reco;
  reco.view.name = "RECO";
  reco.view.redundancy = asmgr::Redundancy::kHigh;
  reco.view.au_size = 1048576;
  reco.view.space = {.total_mb = 36864, .free_mb = 36864, .required_mirror_free_mb = 12288,
                     .usable_file_mb = 8192};
  reco.disks = {Disk(0, "RECO_CD_00_cel01", "cel01", 1024, 1024)};
  s.groups = {data, reco};
  return s;
}

TEST(AsmcmdTest, LsdgMatchesAsmcmdLayout) {
  const std::string expected =
      "State    Type    Rebal  Sector  Logical_Sector  Block       AU  Total_MB  Free_MB  "
      "Req_mir_free_MB  Usable_file_MB  Offline_disks  Voting_files  Name\n"
      "MOUNTED  NORMAL  N         512             512   4096  4194304     73728    65520  "
      "          24576           20472              1             N  DATA/\n"
      "MOUNTED  HIGH    N         512             512   4096  1048576     36864    36864  "
      "          12288            8192              0             N  RECO/\n";
  ASSERT_OK_AND_ASSIGN(std::string text, RenderLsdg(Snapshot()));
  EXPECT_EQ(text, expected);
}

TEST(AsmcmdTest, LsdgOfOneGroupAndUnknownGroup) {
  ASSERT_OK_AND_ASSIGN(std::string text, RenderLsdg(Snapshot(), "+reco"));
  EXPECT_THAT(text, HasSubstr("RECO/"));
  EXPECT_THAT(text, ::testing::Not(HasSubstr("DATA/")));
  absl::StatusOr<std::string> bad = RenderLsdg(Snapshot(), "FOO");
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(std::string(bad.status().message()),
            "ASMCMD-8001: diskgroup 'FOO' does not exist or is not mounted");
}

TEST(AsmcmdTest, LsdskListsPaths) {
  ASSERT_OK_AND_ASSIGN(std::string text, RenderLsdsk(Snapshot()));
  EXPECT_EQ(text,
            "Path\n"
            "o/cel01/DATA_CD_00_cel01\n"
            "o/cel02/DATA_CD_00_cel02\n"
            "o/cel01/RECO_CD_00_cel01\n");
}

TEST(AsmcmdTest, LsdskKMatchesAsmcmdLayout) {
  ASSERT_OK_AND_ASSIGN(std::string text, RenderLsdsk(Snapshot(), {.k = true, .group = "DATA"}));
  const std::string expected =
      "Total_MB  Free_MB  OS_MB  Name              Failgroup  Failgroup_Type  Library  Label  "
      "UDID  Product  Redund   Path\n"
      "    2048     1820   2048  DATA_CD_00_cel01  CEL01      REGULAR         System                "
      "         UNKNOWN  o/cel01/DATA_CD_00_cel01\n"
      "    2048     1824   2048  DATA_CD_00_cel02  CEL02      REGULAR         System                "
      "         UNKNOWN  o/cel02/DATA_CD_00_cel02\n";
  EXPECT_EQ(text, expected);
}

TEST(AsmcmdTest, LsdskPShowsModeStatus) {
  ASSERT_OK_AND_ASSIGN(std::string text, RenderLsdsk(Snapshot(), {.p = true, .pattern = "*cel02*"}));
  const std::vector<std::string> lines = absl::StrSplit(text, '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 2u) << text;
  EXPECT_EQ(lines[0],
            "Group_Num  Disk_Num      Incarn  Mount_Stat  Header_Stat  Mode_Stat  State   Path");
  EXPECT_THAT(lines[1], ::testing::StartsWith("        1         1  "));
  EXPECT_THAT(lines[1], HasSubstr("  CACHED      MEMBER       OFFLINE    NORMAL  "
                                  "o/cel02/DATA_CD_00_cel02"));
  EXPECT_EQ(RenderLsdsk(Snapshot(), {.group = "NOPE"}).status().code(),
            absl::StatusCode::kNotFound);
}

asmgr::TemplateView Template(const std::string& name, const std::string& stripe,
                             asmgr::Redundancy r) {
  asmgr::TemplateView t;
  t.name = name;
  t.stripe = stripe;
  t.redundancy = r;
  return t;
}

// Oracle's example (OSTMG 12.1 "lstmpl"): `lstmpl -l -G data`.
TEST(AsmcmdTest, LstmplMatchesAsmcmdLayout) {
  AsmSnapshot s = Snapshot();
  s.groups[0].templates = {Template("ONLINELOG", "COARSE", asmgr::Redundancy::kNormal),
                           Template("CONTROLFILE", "FINE", asmgr::Redundancy::kHigh),
                           Template("DATAFILE", "COARSE", asmgr::Redundancy::kNormal)};
  s.groups[1].templates = {Template("DATAFILE", "COARSE", asmgr::Redundancy::kHigh)};
  ASSERT_OK_AND_ASSIGN(std::string text, RenderLstmpl(s, {.l = true, .group = "data"}));
  EXPECT_EQ(text,
            "Group_Name  Group_Num  Name         Stripe  Sys  Redund  PriReg  MirrReg\n"
            "DATA        1          CONTROLFILE  FINE    Y    HIGH    COLD    COLD\n"
            "DATA        1          DATAFILE     COARSE  Y    MIRROR  COLD    COLD\n"
            "DATA        1          ONLINELOG    COARSE  Y    MIRROR  COLD    COLD\n");
  // Every group without -G, a pattern on the name, no regions without -l.
  ASSERT_OK_AND_ASSIGN(text, RenderLstmpl(s, {.pattern = "data*"}));
  EXPECT_EQ(text,
            "Group_Name  Group_Num  Name      Stripe  Sys  Redund\n"
            "DATA        1          DATAFILE  COARSE  Y    MIRROR\n"
            "RECO        2          DATAFILE  COARSE  Y    HIGH\n");
  EXPECT_EQ(RenderLstmpl(s, {.group = "NOPE"}).status().code(), absl::StatusCode::kNotFound);
}

TEST(AsmcmdTest, LsWalksDirectoryLevels) {
  const AsmSnapshot s = Snapshot();
  ASSERT_OK_AND_ASSIGN(std::string root, RenderLs(s, "+"));
  EXPECT_EQ(root, "DATA/\nRECO/\n");
  ASSERT_OK_AND_ASSIGN(std::string root_l, RenderLs(s, "+", {.long_format = true}));
  EXPECT_EQ(root_l,
            "State    Type    Rebal  Name\n"
            "MOUNTED  NORMAL  N      DATA/\n"
            "MOUNTED  HIGH    N      RECO/\n");
  ASSERT_OK_AND_ASSIGN(std::string dg, RenderLs(s, "+data", {.long_format = true}));
  EXPECT_EQ(dg,
            "Type  Redund  Striped  Time  Sys  Name\n"
            "                             Y    ORCL/\n");
  ASSERT_OK_AND_ASSIGN(std::string db, RenderLs(s, "+DATA/orcl/"));
  EXPECT_EQ(db, "CONTROLFILE/\nONLINELOG/\n");
  ASSERT_OK_AND_ASSIGN(std::string empty, RenderLs(s, "+RECO"));
  EXPECT_EQ(empty, "");
}

TEST(AsmcmdTest, LsLongListsFilesLikeAsmcmd) {
  ASSERT_OK_AND_ASSIGN(std::string text,
                       RenderLs(Snapshot(), "+DATA/ORCL/ONLINELOG",
                                {.long_format = true, .now_unix = kNow, .utc = true}));
  EXPECT_EQ(text,
            "Type       Redund  Striped  Time             Sys  Name\n"
            "ONLINELOG  MIRROR  COARSE   JUN 27 2014      Y    group_4.257.1438420000\n"
            "ONLINELOG  MIRROR  COARSE   AUG 01 09:00:00  Y    group_5.258.1438420000\n");
  ASSERT_OK_AND_ASSIGN(std::string one,
                       RenderLs(Snapshot(), "+DATA/ORCL/ONLINELOG/GROUP_5.258.1438420000",
                                {.long_format = true, .now_unix = kNow, .utc = true}));
  EXPECT_EQ(one,
            "Type       Redund  Striped  Time             Sys  Name\n"
            "ONLINELOG  MIRROR  COARSE   AUG 01 09:00:00  Y    group_5.258.1438420000\n");
  ASSERT_OK_AND_ASSIGN(std::string wild, RenderLs(Snapshot(), "+DATA/ORCL/ONLINELOG/group_5*"));
  EXPECT_EQ(wild, "group_5.258.1438420000\n");
}

// Sizes for ls -s and du: a 4 GiB online log of 512-byte blocks plus its
// header block, mirrored in 1025 AUs of 4 MiB; a 16 KiB control file.
AsmSnapshot SizedSnapshot() {
  AsmSnapshot s = Snapshot();
  for (asmgr::FileView& f : s.groups[0].files) {
    f.block_size = f.type == "ONLINELOG" ? 512 : 16384;
    f.copies = f.type == "ONLINELOG" ? 2 : 3;
    f.bytes = f.type == "ONLINELOG" ? 4 * kGiB + 512 : 16384 * 100;
    f.space = f.type == "ONLINELOG" ? 1025ull * 4 * kMiB * 2 : 3 * 4 * kMiB;
  }
  return s;
}

TEST(AsmcmdTest, LsSizesDuAndFind) {
  const AsmSnapshot s = SizedSnapshot();
  ASSERT_OK_AND_ASSIGN(std::string text, RenderLs(s, "+DATA/ORCL/ONLINELOG", {.sizes = true}));
  EXPECT_EQ(text,
            "Block_Size   Blocks       Bytes       Space  Name\n"
            "       512  8388609  4294967808  8598323200  group_4.257.1438420000\n"
            "       512  8388609  4294967808  8598323200  group_5.258.1438420000\n");
  ASSERT_OK_AND_ASSIGN(text, RenderLs(s, "+DATA/ORCL", {.sizes = true}));
  EXPECT_EQ(text, "Block_Size  Blocks  Bytes  Space  Name\n"
                  "                                  CONTROLFILE/\n"
                  "                                  ONLINELOG/\n");
  // du: without mirroring (space / copies) and with, in MiB rounded up.
  ASSERT_OK_AND_ASSIGN(text, RenderDu(s, "+DATA/ORCL"));
  EXPECT_EQ(text, "Used_MB  Mirror_used_MB\n"
                  "   8204           16412\n");
  ASSERT_OK_AND_ASSIGN(text, RenderDu(s, "+DATA/ORCL/CONTROLFILE/*"));
  EXPECT_EQ(text, "Used_MB  Mirror_used_MB\n"
                  "      4              12\n");
  ASSERT_OK_AND_ASSIGN(text, RenderDu(s, "+RECO"));  // nothing in it
  EXPECT_EQ(text, "Used_MB  Mirror_used_MB\n"
                  "      0               0\n");
  EXPECT_EQ(RenderDu(s, "+DATA/NOPE").status().code(), absl::StatusCode::kNotFound);
  // find: directories and files by name, or files by type.
  ASSERT_OK_AND_ASSIGN(text, RenderFind(s, "+DATA", "*LINE*"));
  EXPECT_EQ(text, "+DATA/ORCL/ONLINELOG/\n");
  ASSERT_OK_AND_ASSIGN(text, RenderFind(s, "+", "group_*", "onlinelog"));
  EXPECT_EQ(text, "+DATA/ORCL/ONLINELOG/group_4.257.1438420000\n"
                  "+DATA/ORCL/ONLINELOG/group_5.258.1438420000\n");
  ASSERT_OK_AND_ASSIGN(text, RenderFind(s, "+DATA/ORCL", "*", "CONTROLFILE"));
  EXPECT_EQ(text, "+DATA/ORCL/CONTROLFILE/Current.256.1438420000\n");
  ASSERT_OK_AND_ASSIGN(text, RenderFind(s, "+RECO", "*"));
  EXPECT_EQ(text, "");
  EXPECT_EQ(RenderFind(s, "+FRA", "*").status().code(), absl::StatusCode::kNotFound);
}

TEST(AsmcmdTest, LsOfMissingEntriesNamesTheDirectory) {
  const AsmSnapshot s = Snapshot();
  absl::Status st = RenderLs(s, "+DATA/ORCL/TEMPFILE").status();
  EXPECT_EQ(st.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(std::string(st.message()),
            "ASMCMD-8002: entry 'TEMPFILE' does not exist in directory '+DATA/ORCL/'");
  st = RenderLs(s, "+DATA/ORCL/ONLINELOG/group_5.258.1438420000/x").status();
  EXPECT_EQ(std::string(st.message()),
            "ASMCMD-8002: entry 'x' does not exist in directory "
            "'+DATA/ORCL/ONLINELOG/group_5.258.1438420000/'");
  st = RenderLs(s, "+FRA").status();
  EXPECT_EQ(std::string(st.message()),
            "ASMCMD-8001: diskgroup 'FRA' does not exist or is not mounted");
  EXPECT_EQ(RenderLs(s, "+DATA/ORCL/ONLINELOG/nothing*").status().code(),
            absl::StatusCode::kNotFound);
}

TEST(AsmcmdTest, ResolveAsmFilesFindsFilesBelowAPath) {
  const AsmSnapshot s = Snapshot();
  ASSERT_OK_AND_ASSIGN(std::vector<std::string> one,
                       ResolveAsmFiles(s, "+DATA/ORCL/ONLINELOG/group_5.*"));
  EXPECT_THAT(one, ElementsAre("+DATA/ORCL/ONLINELOG/group_5.258.1438420000"));
  ASSERT_OK_AND_ASSIGN(std::vector<std::string> logs, ResolveAsmFiles(s, "+DATA/ORCL/ONLINELOG"));
  EXPECT_EQ(logs.size(), 2u);
  ASSERT_OK_AND_ASSIGN(std::vector<std::string> all, ResolveAsmFiles(s, "+DATA"));
  EXPECT_EQ(all.size(), 3u);
  EXPECT_EQ(ResolveAsmFiles(s, "+RECO").status().code(), absl::StatusCode::kNotFound);
}

TEST(AsmcmdTest, ResolveAsmPathFollowsCwd) {
  EXPECT_EQ(ResolveAsmPath("+", "DATA"), "+DATA");
  EXPECT_EQ(ResolveAsmPath("+DATA/ORCL", "ONLINELOG/"), "+DATA/ORCL/ONLINELOG");
  EXPECT_EQ(ResolveAsmPath("+DATA/ORCL", ".."), "+DATA");
  EXPECT_EQ(ResolveAsmPath("+DATA", "../.."), "+");
  EXPECT_EQ(ResolveAsmPath("+DATA/ORCL", "+RECO/x"), "+RECO/x");
  EXPECT_EQ(ResolveAsmPath("+DATA", "./ORCL"), "+DATA/ORCL");
}

TEST(AsmcmdTest, TimeKeepsTheHourOrTheYear) {
  EXPECT_EQ(AsmcmdTime(kMade, kNow, true), "AUG 01 09:00:00");
  EXPECT_EQ(AsmcmdTime(kMade - 200 * 86400, kNow, true), "JAN 13 2015");
}

}  // namespace
}  // namespace cellsim::report
