// End-to-end tests of the rack-level front ends through the real `cellsim`
// binary (its path comes from the build as CELLSIM_BIN): demo, rack, sql,
// cellcli and asmcmd, on small sparse racks in per-test temp directories.
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "absl/strings/str_split.h"
#include "cli_test_util.h"
#include "nlohmann/json.hpp"
#include "testing/test_util.h"

namespace cellsim {
namespace {

using ::cellsim::testing::TempDir;
using ::cellsim::cli::testing::Cellsim;
using ::cellsim::cli::testing::CmdResult;
using ::cellsim::testing::ReadFileText;
using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::Not;

// 3 cells x 2 cell disks: DATA 1.5 GiB raw, RECO 768 MiB raw, 64 MiB flash.
constexpr const char* kSmallRack =
    "--cells 3 --disks-per-cell 2 --disk-group DATA:NORMAL:256m "
    "--disk-group RECO:NORMAL:128m --flash-size 64m";
constexpr const char* kFixedTime = "--fixed-time 1700000000";
constexpr const char* kSeed16m =
    "\"alter database add logfile thread 2 group 5 ('+DATA','+RECO') size 16m\"";

int64_t Stat(const nlohmann::json& path, const char* name) {
  const nlohmann::json& s = path["statistics"];
  return s.contains(name) ? s[name].get<int64_t>() : 0;
}

TEST(CliDemoTest, JsonHasThreePathsWithExactSizeDerivedFigures) {
  TempDir dir;
  const std::string tmp = dir.File("tmp");
  std::filesystem::create_directories(tmp);
  CmdResult r = Cellsim(dir, "demo --size 16m --json", "TMPDIR=" + tmp);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  const int64_t size = 16 << 20;
  EXPECT_EQ(j["size_bytes"].get<int64_t>(), size);
  ASSERT_EQ(j["paths"].size(), 3u);
  EXPECT_EQ(j["paths"][0]["path"], "zero-fill");
  EXPECT_EQ(j["paths"][1]["path"], "smart");
  EXPECT_EQ(j["paths"][2]["path"], "fast");
  const int64_t formatted = size * 2 /*members*/ * 2 /*copies*/;
  for (int i : {1, 2}) {
    const nlohmann::json& p = j["paths"][i];
    SCOPED_TRACE(p["path"].get<std::string>());
    EXPECT_EQ(Stat(p, "cell physical IO bytes saved during optimized file creation"), formatted);
    EXPECT_EQ(Stat(p, "cell physical IO bytes eligible for predicate offload"), formatted);
    EXPECT_EQ(Stat(p, "physical write total multi block requests"), formatted / (4 << 20));
    EXPECT_TRUE(p["waits"].contains("cell smart file creation"));
    EXPECT_FALSE(p["waits"].contains("Log file init write"));
    // The offloaded paths send requests, not the 64 MiB of blocks.
    EXPECT_LT(Stat(p, "cell physical IO interconnect bytes"), formatted / 16);
  }
  const nlohmann::json& zero = j["paths"][0];
  EXPECT_TRUE(zero["waits"].contains("Log file init write"));
  EXPECT_FALSE(zero["waits"].contains("cell smart file creation"));
  EXPECT_EQ(Stat(zero, "cell physical IO bytes saved during optimized file creation"), 0);
  EXPECT_GE(Stat(zero, "cell physical IO interconnect bytes"), formatted);
  // Zero-fill's writes count once per logical request (before ASM mirrors
  // them), creation requests once per copy (docs/statistics.md).
  EXPECT_GE(Stat(zero, "physical write total bytes"), formatted / 2);
  for (const nlohmann::json& p : j["paths"]) {
    if (p["path"] != "zero-fill") {
      EXPECT_GE(Stat(p, "physical write total bytes"), formatted);
    }
    EXPECT_LE(Stat(p, "physical write total multi block requests"),
              Stat(p, "physical write total IO requests"));
    EXPECT_GT(p["elapsed_s"].get<double>(), 0);
  }
  EXPECT_EQ(j["statement"],
            "alter database add logfile thread 2 group 5 ('+DATA','+RECO') size 16m");
  // The temporary racks are gone.
  EXPECT_TRUE(std::filesystem::is_empty(tmp)) << "demo left files in " << tmp;
}

TEST(CliDemoTest, TextTableAndKeptRacks) {
  TempDir dir;
  const std::string racks = dir.File("racks");
  CmdResult r = Cellsim(dir, "demo --size 8m --dir " + racks);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("zero-fill"));
  EXPECT_THAT(r.out, HasSubstr("cell physical IO bytes saved during optimized file creation"));
  EXPECT_THAT(r.out, HasSubstr("fast vs zero-fill: "));
  EXPECT_THAT(r.out, HasSubstr("33,554,432"));  // 8 MiB x 2 members x 2 copies
  for (const char* path : {"zero-fill", "smart", "fast"}) {
    EXPECT_TRUE(std::filesystem::is_directory(racks + "/" + path)) << path;
  }
  // A kept rack is a rack like any other.
  r = Cellsim(dir, "asmcmd " + racks + "/fast -e \"ls +RECO/ORCL/ONLINELOG\"");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("group_5."));
}

TEST(CliDemoTest, BadSizeIsAUsageError) {
  TempDir dir;
  CmdResult r = Cellsim(dir, "demo --size 12x");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("cellsim demo: --size"));
  EXPECT_THAT(r.err, HasSubstr("12x"));
  r = Cellsim(dir, "demo --size 1000k");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("whole number of MiB"));
}

// Issue 11, end to end: a grid-disk file lost for good. The rack still opens
// (lsdg shows the offline disk, cellcli the missing one), the database works,
// CREATE GRIDDISK makes the replacement and asmcmd online rebuilds it.
TEST(CliLostDeviceTest, MissingGridDiskIsReplacedAndRebuilt) {
  TempDir dir;
  const std::string rack = dir.File("rack");
  ASSERT_EQ(Cellsim(dir, "rack create " + rack + " " + kSmallRack).exit_code, 0);
  CmdResult r = Cellsim(dir, "sql " + rack + " -e \"create tablespace users datafile '+DATA' size 8m\"");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string disk = rack + "/cel02/DATA_CD_01_cel02.img";
  ASSERT_TRUE(std::filesystem::remove(disk));

  r = Cellsim(dir, "asmcmd " + rack + " -e lsdg");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("Offline_disks"));
  EXPECT_THAT(r.out, ContainsRegex("  1 +N +DATA/"));
  r = Cellsim(dir, "cellcli " + rack + " -c cel02 -e \"list griddisk\" -e \"list celldisk\"");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, ContainsRegex("DATA_CD_01_cel02 +not present"));
  EXPECT_THAT(r.out, ContainsRegex("DATA_CD_00_cel02 +active"));
  EXPECT_THAT(r.out, ContainsRegex("CD_01_cel02 +critical"));
  EXPECT_FALSE(std::filesystem::exists(disk));  // never recreated by an open

  r = Cellsim(dir, "sql " + rack + " -e \"create tablespace during datafile '+DATA' size 4m\"");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Every command that opens the rack says which disk is away and why.
  EXPECT_THAT(r.err, HasSubstr("grid disk DATA_CD_01_cel02 of cell cel02 is not present (ASM "
                               "serves it from the mirrors): "));
  EXPECT_THAT(r.err, HasSubstr("DATA_CD_01_cel02.img is missing"));
  r = Cellsim(dir, "asmcmd " + rack + " -e \"online -G DATA -D DATA_CD_01_cel02\"");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.err, HasSubstr("not present"));

  r = Cellsim(dir, "cellcli " + rack + " -e \"create griddisk DATA_CD_01_cel02\"");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("cel02: GridDisk DATA_CD_01_cel02 successfully created"));
  EXPECT_TRUE(std::filesystem::exists(disk));
  r = Cellsim(dir, "cellcli " + rack + " -e \"create griddisk DATA_CD_01_cel02\"");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.err, HasSubstr("already exists"));

  r = Cellsim(dir, "asmcmd " + rack + " -e \"online -G DATA -D DATA_CD_01_cel02\" -e lsdg");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, ContainsRegex("resync: [1-9][0-9]* extent copies"));
  EXPECT_THAT(r.out, ContainsRegex("  0 +N +DATA/"));
  r = Cellsim(dir, "cellcli " + rack + " -c cel02 -e \"list griddisk\"");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, Not(HasSubstr("not present")));
  r = Cellsim(dir, "sql " + rack + " -e \"drop tablespace during including contents and datafiles\"");
  ASSERT_EQ(r.exit_code, 0) << r.err;
}

TEST(CliRackTest, CreateInfoSqlCellCliAsmcmdFlow) {
  TempDir dir;
  const std::string rack = dir.File("rack");
  CmdResult r = Cellsim(dir, "rack create " + rack + " " + kSmallRack);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("Rack created in " + rack));
  EXPECT_THAT(r.out, HasSubstr("MOUNTED  NORMAL  N"));

  r = Cellsim(dir, "sql " + rack + " -e \"create tablespace users datafile '+DATA' size 8m\" -e " +
                       kSeed16m + " --report mystats");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("Database ORCL created"));
  EXPECT_THAT(r.out, HasSubstr("Tablespace created.  Elapsed: "));
  EXPECT_THAT(r.out, HasSubstr("Database altered.  Elapsed: "));
  EXPECT_THAT(r.out, HasSubstr("(fast path)"));
  EXPECT_THAT(r.out, HasSubstr("cell physical IO bytes saved during optimized file creation"));

  r = Cellsim(dir, "sql " + rack + " -e \"alter database drop logfile group 5\" --report tkprof");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, Not(HasSubstr("created")));  // the database is reopened
  EXPECT_THAT(r.out, HasSubstr("Database altered."));
  EXPECT_THAT(r.out, HasSubstr("call     count       cpu    elapsed"));

  r = Cellsim(dir, "rack info " + rack);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("+DATA/ORCL/CONTROLFILE/"));
  EXPECT_THAT(r.out, HasSubstr("cel03: flashCacheMode WriteBack"));

  r = Cellsim(dir, "cellcli " + rack + " -e \"LIST CELL DETAIL\" -e \"list flashcache detail\"");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("cel01:          flashCacheMode:"));
  EXPECT_THAT(r.out, HasSubstr("cel03:          name:                   cel03_FLASHCACHE"));

  r = Cellsim(dir, "cellcli " + rack + " -c cel02 -e \"alter flashcache all flush\" -e "
                   "\"list metriccurrent FC_BY_DIRTY\" -e \"alter cell flashCacheMode=writethrough\" "
                   "-e \"list cell detail\"");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("Flash cache cel02_FLASHCACHE altered successfully\n"));
  EXPECT_THAT(r.out, HasSubstr("FC_BY_DIRTY"));
  EXPECT_THAT(r.out, HasSubstr("0.000 MB"));  // nothing dirty after the flush
  EXPECT_THAT(r.out, HasSubstr("Cell cel02 successfully altered\n"));
  EXPECT_THAT(r.out, HasSubstr("WriteThrough"));
  EXPECT_THAT(r.out, Not(HasSubstr("cel02: ")));  // one cell named: no dcli prefix

  r = Cellsim(dir, "cellcli " + rack + " -e \"list metriccurrent where objectType = 'FLASHCACHE'\"");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("cel01: "));
  EXPECT_THAT(r.out, Not(HasSubstr("CELLDISK")));

  r = Cellsim(dir, "asmcmd " + rack + " -e lsdg -e \"lsdsk -k -G DATA\" -e \"ls -l +DATA/ORCL\" "
                   "-e \"cd +DATA/ORCL/DATAFILE\" -e pwd -e \"ls -l\"");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("Usable_file_MB  Offline_disks  Voting_files  Name\n"));
  EXPECT_THAT(r.out, HasSubstr("o/cel03/DATA_CD_01_cel03\n"));
  EXPECT_THAT(r.out, HasSubstr("Y    DATAFILE/\n"));
  EXPECT_THAT(r.out, Not(HasSubstr("ONLINELOG/")));  // group 5 was dropped
  EXPECT_THAT(r.out, HasSubstr("+DATA/ORCL/DATAFILE\n"));
  EXPECT_THAT(r.out, HasSubstr("DATAFILE  MIRROR  COARSE"));
  // The 8 MiB users data file (+ its header block): 3 AUs of 4 MiB, 2 copies.
  r = Cellsim(dir, "asmcmd " + rack + " -e \"cd +DATA/ORCL\" -e \"du DATAFILE/USERS*\" "
                   "-e \"find --type datafile . users*\" -e \"ls -s DATAFILE/USERS*\"");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("Used_MB  Mirror_used_MB\n     12              24\n"));
  EXPECT_THAT(r.out, ContainsRegex("\n\\+DATA/ORCL/DATAFILE/USERS\\.[0-9.]+\n"));
  EXPECT_THAT(r.out, ContainsRegex("      8192    1025  8396800  25165824  USERS\\.[0-9.]+\n"));

  // A command on the command line itself, as asmcmd and cellcli -e take one:
  // after DIR and the options, its own options included; -e ones run first.
  r = Cellsim(dir, "asmcmd " + rack + " --utc lsdsk -k -G RECO '*cel02'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("o/cel02/RECO_CD_00_cel02\n"));
  EXPECT_THAT(r.out, Not(HasSubstr("DATA_CD")));
  EXPECT_THAT(r.out, Not(HasSubstr("cel01")));
  r = Cellsim(dir, "asmcmd " + rack + " -e pwd lsdg RECO");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, ::testing::StartsWith("+\nState"));
  EXPECT_THAT(r.out, HasSubstr("RECO/\n"));
  EXPECT_THAT(r.out, Not(HasSubstr("DATA/\n")));
  // --suppressheader, as scripts use it: the rows alone.
  r = Cellsim(dir, "asmcmd " + rack + " lsdg --suppressheader RECO");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, ::testing::StartsWith("MOUNTED  NORMAL"));
  EXPECT_THAT(r.out, ::testing::EndsWith("RECO/\n"));
  r = Cellsim(dir, "asmcmd " + rack + " -e \"du --suppressheader +DATA/ORCL/DATAFILE/USERS*\" "
                   "-e \"ls --suppressheader +DATA/ORCL\"");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, ::testing::StartsWith("     12              24\n"));
  EXPECT_THAT(r.out, HasSubstr("\nDATAFILE/\n"));  // plain ls has no heading to drop
  r = Cellsim(dir, "cellcli " + rack + " -c cel01 -c cel03 -e 'list cell' list griddisk");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("cel03:          cel03   online\n"));
  EXPECT_THAT(r.out, HasSubstr("cel03:          RECO_CD_01_cel03        active\n"));
  EXPECT_THAT(r.out, Not(HasSubstr("cel02")));
  r = Cellsim(dir, "cellcli " + rack);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("nothing to run: give a command (`cellcli DIR list cell`)"));
  r = Cellsim(dir, "asmcmd " + rack + " lsdg --bogus");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--bogus"));
}

// Issue 5, item 3: a log member made by the fast path, copied out of ASM,
// equals byte for byte the member the zero-fill path made on an identically
// built rack (same configuration and the same fixed wall-clock time, so the
// dbid, the ASM incarnations and the log header agree).
TEST(CliAsmcmdTest, FastMemberEqualsZeroFilledMemberByteForByte) {
  TempDir dir;
  std::map<std::string, std::string> copies;
  for (const std::string path : {"zero-fill", "fast"}) {
    const std::string rack = dir.File(path);
    CmdResult r = Cellsim(dir, "rack create " + rack + " " + kSmallRack + " " + kFixedTime);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string setting =
        path == "zero-fill" ? "-e 'alter session set \"_cell_fast_file_create\" = false' " : "";
    r = Cellsim(dir, "sql " + rack + " " + kFixedTime + " " + setting + "-e " + kSeed16m +
                         " --report json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    // stdout is JSON only: one object per statement, one per line.
    const std::vector<std::string> lines = absl::StrSplit(r.out, '\n', absl::SkipEmpty());
    ASSERT_EQ(lines.size(), path == "zero-fill" ? 2u : 1u) << r.out;
    const std::string& last_line = lines.back();
    EXPECT_EQ(nlohmann::json::parse(last_line)["path"], path);
    for (const char* dg : {"DATA", "RECO"}) {
      const std::string out = dir.File(path + "-" + dg + ".log");
      r = Cellsim(dir, "asmcmd " + rack + " -e \"cp +" + dg + "/ORCL/ONLINELOG/group_5.* " + out +
                           "\"");
      ASSERT_EQ(r.exit_code, 0) << r.err;
      EXPECT_THAT(r.out, HasSubstr("copying +" + std::string(dg) + "/ORCL/ONLINELOG/group_5."));
      copies[path + dg] = ReadFileText(out);
    }
  }
  for (const char* dg : {"DATA", "RECO"}) {
    const std::string& zero = copies[std::string("zero-fill") + dg];
    const std::string& fast = copies[std::string("fast") + dg];
    ASSERT_EQ(zero.size(), (16u << 20) + 512) << dg;  // SIZE + one redo block
    ASSERT_EQ(fast.size(), zero.size()) << dg;
    // Formatted is not all-zero: every redo block has its header.
    EXPECT_NE(zero.find_first_not_of('\0', 2 * 512), std::string::npos);
    EXPECT_TRUE(zero == fast) << dg << " members differ first at byte "
                              << std::distance(zero.begin(),
                                               std::mismatch(zero.begin(), zero.end(),
                                                             fast.begin()).first);
  }
}

TEST(CliAsmcmdTest, CopyIntoADirectoryAndErrors) {
  TempDir dir;
  const std::string rack = dir.File("rack");
  ASSERT_EQ(Cellsim(dir, "rack create " + rack + " " + kSmallRack).exit_code, 0);
  CmdResult r = Cellsim(dir, "sql " + rack + " -e \"alter database add logfile ('+RECO') size 4m\"");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string out_dir = dir.File("out");
  std::filesystem::create_directories(out_dir);
  r = Cellsim(dir, "asmcmd " + rack + " -e \"cd +RECO/ORCL\" -e \"cp ONLINELOG " + out_dir + "\"");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(out_dir)) {
    EXPECT_EQ(std::filesystem::file_size(e.path()), (4u << 20) + 512);  // SIZE + one block
    ++files;
  }
  EXPECT_EQ(files, 1u);

  r = Cellsim(dir, "asmcmd " + rack + " -e \"ls +DATA/ORCL/TEMPFILE\"");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("ASMCMD-8002: entry 'TEMPFILE' does not exist in directory "
                               "'+DATA/ORCL/'"));
  r = Cellsim(dir, "asmcmd " + rack + " -e \"frobnicate\"");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("ASMCMD-8022: unknown command 'frobnicate'"));
  r = Cellsim(dir, "asmcmd " + rack + " -e \"cp +RECO/ORCL " + dir.File("x") + "\"");
  EXPECT_EQ(r.exit_code, 2);  // a control file and a log member into one file
  EXPECT_THAT(r.err, HasSubstr("must be a directory"));
  r = Cellsim(dir, "asmcmd " + rack + " -e \"cp /etc/hostname +DATA/x\"");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("copies out of ASM only"));
}

TEST(CliBadInputTest, ErrorsSayWhatAndExitNonZero) {
  TempDir dir;
  CmdResult r = Cellsim(dir, "frobnicate");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.err, HasSubstr("subcommand"));
  EXPECT_THAT(r.out, Not(HasSubstr("Database")));

  r = Cellsim(dir, "sql " + dir.File("nope") + " -e \"alter session set x = 1\"");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr(dir.File("nope") + " is not a directory"));

  r = Cellsim(dir, "rack create " + dir.File("r") + " --disk-group DATA:MIRRORED:1g");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--disk-group 'DATA:MIRRORED:1g'"));
  r = Cellsim(dir, "rack create " + dir.File("r") + " --disk-group DATA:NORMAL:1g:3m");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("3 MiB"));

  const std::string rack = dir.File("rack");
  ASSERT_EQ(Cellsim(dir, "rack create " + rack + " " + kSmallRack).exit_code, 0);
  // Malformed SQL: the statement, the position and what was expected.
  r = Cellsim(dir, "sql " + rack + " -e \"alter database add logfile ('+DATA') sise 4m\"");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("statement 1 failed"));
  EXPECT_THAT(r.err, HasSubstr("alter database add logfile ('+DATA') sise 4m"));
  EXPECT_THAT(r.err, HasSubstr("at 1:"));
  EXPECT_THAT(r.err, HasSubstr("expected SIZE"));
  EXPECT_THAT(r.err, HasSubstr("^"));
  // A statement that parses but fails; the ones before it still report.
  r = Cellsim(dir, "sql " + rack + " -e \"alter database add logfile group 7 ('+DATA') size 4m\" "
                   "-e \"alter database add logfile group 8 ('+NOPE') size 4m\"");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.out, HasSubstr("Database altered."));
  EXPECT_THAT(r.err, HasSubstr("statement 2 failed"));
  EXPECT_THAT(r.err, HasSubstr("NOPE"));
  // Too big for the disk group: nothing created, a clear message.
  r = Cellsim(dir, "sql " + rack + " -e \"alter database add logfile ('+RECO') size 1g\"");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("RECO"));

  r = Cellsim(dir, "cellcli " + rack + " -e \"list spaceships\"");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("CELL-01504"));
  r = Cellsim(dir, "cellcli " + rack + " -c cel09 -e \"list cell\"");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("-c cel09: no such cell (the rack has cel01, cel02, cel03)"));
  r = Cellsim(dir, "sql " + rack + " --report pdf -e \"alter session set x = 1\"");
  EXPECT_NE(r.exit_code, 0);
}

// Issue 11: every parse error exits 2 (CLI11's own codes were 105/106/109),
// an unknown subcommand is named, and `rack create` refuses a directory that
// holds something, never names internal APIs, and leaves nothing behind when
// it fails.
TEST(CliBadInputTest, UsageErrorsExitTwoAndNameTheUnknownSubcommand) {
  TempDir dir;
  CmdResult r = Cellsim(dir, "sq " + dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("cellsim: unknown subcommand 'sq' (subcommands: probe, io, demo, "
                               "rack, sql, cellcli, asmcmd, write, sqlrun, tkprof, instance)"));
  r = Cellsim(dir, "rack craete " + dir.File("r"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("cellsim rack: unknown subcommand 'craete' (subcommands: create, "
                               "info, recover)"));
  for (const std::string& args :
       {std::string("sql"),                                          // missing DIR (was 106)
        "rack create " + dir.File("r") + " --cells 500",            // out of range (was 105)
        "asmcmd " + dir.path() + " -e lsdg --no-such-option",       // extra (was 109)
        "rack info " + dir.path() + " --lock-timeout soon", std::string("")}) {
    r = Cellsim(dir, args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.err;
    EXPECT_FALSE(r.err.empty()) << args;
  }
  EXPECT_EQ(Cellsim(dir, "--version").exit_code, 0);
}

TEST(CliRackTest, CreateRefusesANonEmptyDirectoryAndCleansUpAFailure) {
  TempDir dir;
  const std::string full = dir.File("full");
  std::filesystem::create_directories(full);
  std::ofstream(full + "/notes.txt") << "mine";
  CmdResult r = Cellsim(dir, "rack create " + full + " " + kSmallRack);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr(full + " is not empty (it holds notes.txt): a rack is created in "
                               "an empty or missing directory"));
  EXPECT_EQ(ReadFileText(full + "/notes.txt"), "mine");
  const std::string rack = dir.File("rack");
  ASSERT_EQ(Cellsim(dir, "rack create " + rack + " " + kSmallRack).exit_code, 0);
  r = Cellsim(dir, "rack create " + rack + " " + kSmallRack);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr(rack + " already holds a rack"));
  EXPECT_THAT(r.err, Not(HasSubstr("::")));
}

// The sum over every cell and cell disk of one metric in `list metriccurrent`
// output ("cel01: CD_IO_BY_W_LG  CD_00_cel01  16.000 MB").
double SumMetric(const std::string& out, const std::string& name) {
  double sum = 0;
  const std::vector<std::string> lines = absl::StrSplit(out, '\n');
  for (const std::string& line : lines) {
    std::vector<std::string> w = absl::StrSplit(line, ' ', absl::SkipEmpty());
    for (size_t i = 0; i + 2 < w.size(); ++i) {
      if (w[i] != name) continue;
      std::string v = w[i + 2];
      std::erase(v, ',');
      sum += std::stod(v);
    }
  }
  return sum;
}

// Issue 11: cell metrics are cumulative across processes (stored with the
// cell's metadata), so a `cellcli` run after a `sql` run shows what the
// statements did, and the next statements add to it.
TEST(CliCellCliTest, MetricsSurviveAcrossProcesses) {
  TempDir dir;
  const std::string rack = dir.File("rack");
  CmdResult r = Cellsim(dir, "rack create " + rack + " " + kSmallRack);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string list =
      "cellcli " + rack + " -e \"list metriccurrent where name like 'CD_IO_BY_W_LG|FC_IO_RQ_W'\"";
  r = Cellsim(dir, list);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const double lg0 = SumMetric(r.out, "CD_IO_BY_W_LG");
  // Smart creation: the cells write every block of both copies (8 MiB x 2),
  // but block 1 (the header the database writes); block 0 is a small write.
  auto smart = [](const std::string& ts) {
    return "-e \"alter session set cellsim_fast_file_create_metadata = false\" "
           "-e \"create tablespace " + ts + " datafile '+DATA' size 8m\"";
  };
  r = Cellsim(dir, "sql " + rack + " " + smart("t1"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = Cellsim(dir, list);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const double lg1 = SumMetric(r.out, "CD_IO_BY_W_LG");
  EXPECT_GE(lg1 - lg0, 16.0 - 2 * 2 * 8192 / 1e6) << r.out;
  EXPECT_GT(SumMetric(r.out, "FC_IO_RQ_W"), 0) << r.out;  // the control file's small writes
  // Reading changes nothing; the next statement adds to the figures.
  EXPECT_EQ(Cellsim(dir, list).out, r.out);
  r = Cellsim(dir, "sql " + rack + " " + smart("t2"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = Cellsim(dir, list);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_GE(SumMetric(r.out, "CD_IO_BY_W_LG") - lg1, 16.0 - 2 * 2 * 8192 / 1e6) << r.out;
}

// CellCLI's LIST grammar over a real rack: a name, WHERE, ATTRIBUTES, DETAIL,
// DESCRIBE, and ASM's view of each grid disk (asmModeStatus,
// asmDeactivationOutcome) as a disk goes offline and comes back.
TEST(CliCellCliTest, ListAsksAsmWhichGridDisksCanBeDeactivated) {
  TempDir dir;
  const std::string rack = dir.File("rack");
  ASSERT_EQ(Cellsim(dir, "rack create " + rack + " " + kSmallRack).exit_code, 0);
  CmdResult r = Cellsim(dir, "sql " + rack + " -e \"create tablespace users datafile '+DATA' size 8m\"");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string outcome =
      "cellcli " + rack + " -e \"list griddisk where asmDiskGroupName = DATA attributes name, "
      "asmModeStatus, asmDeactivationOutcome\"";
  r = Cellsim(dir, outcome);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("cel01:          DATA_CD_00_cel01        ONLINE  Yes\n"));
  EXPECT_THAT(r.out, Not(HasSubstr("RECO_")));
  EXPECT_THAT(r.out, Not(HasSubstr("Cannot")));

  ASSERT_EQ(Cellsim(dir, "asmcmd " + rack + " -e \"offline -G DATA -D DATA_CD_00_cel01\"").exit_code, 0);
  r = Cellsim(dir, outcome);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("cel01:          DATA_CD_00_cel01        OFFLINE Yes\n"));
  // Its partners hold the only current copies of what it held.
  EXPECT_THAT(r.out, ContainsRegex("cel0[23]: +DATA_CD_0[01]_cel0[23] +ONLINE +Cannot de-activate "
                                   "due to other offline disks in the diskgroup\n"));
  r = Cellsim(dir, "cellcli " + rack + " -e \"list griddisk where asmModeStatus != ONLINE\"");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "cel01:          DATA_CD_00_cel01        active\n");

  // A name: only its cell prints it; DETAIL leaves out the asked-only attributes.
  r = Cellsim(dir, "cellcli " + rack + " list griddisk data_cd_00_cel01 detail");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("cel01:          name:                   DATA_CD_00_cel01\n"));
  EXPECT_THAT(r.out, HasSubstr("cel01:          asmDiskGroupName:       DATA\n"));
  EXPECT_THAT(r.out, HasSubstr("cel01:          asmFailGroupName:       CEL01\n"));
  EXPECT_THAT(r.out, HasSubstr("cel01:          size:                   256M\n"));
  EXPECT_THAT(r.out, Not(HasSubstr("asmModeStatus")));
  EXPECT_THAT(r.out, Not(HasSubstr("cel02")));
  r = Cellsim(dir, "cellcli " + rack + " -e \"list griddisk DATA_CD_09_cel01\"");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("CELL-02525: Unknown griddisk: DATA_CD_09_cel01"));
  r = Cellsim(dir, "cellcli " + rack + " -e \"list griddisk attributes name, colour\"");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.err, HasSubstr("GRIDDISK has no attribute 'colour' (DESCRIBE GRIDDISK lists them)"));
  r = Cellsim(dir, "cellcli " + rack + " -c cel01 -e \"describe celldisk\" -e \"list celldisk "
                   "where size > 300M attributes name, size, freeSpace\"");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("         freeSpace\n"));
  EXPECT_THAT(r.out, HasSubstr("         CD_00_cel01     384M    0\n"));

  r = Cellsim(dir, "asmcmd " + rack + " -e \"online -G DATA -a\"");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = Cellsim(dir, outcome);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, Not(HasSubstr("Cannot")));
  EXPECT_THAT(r.out, Not(HasSubstr("OFFLINE")));
}

// Rolling cell maintenance through the binary: ALTER GRIDDISK ALL INACTIVE on
// one cell, refused on the next while the first is out (ASM's ORA-15066), the
// database writes meanwhile, ALTER GRIDDISK ALL ACTIVE resyncs, each in its
// own process.
TEST(CliCellCliTest, GridDisksGoInactiveAndComeBackResynced) {
  TempDir dir;
  const std::string rack = dir.File("rack");
  ASSERT_EQ(Cellsim(dir, "rack create " + rack + " " + kSmallRack).exit_code, 0);
  CmdResult r = Cellsim(dir, "sql " + rack + " -e \"create tablespace users datafile '+DATA' size 8m\"");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = Cellsim(dir, "cellcli " + rack + " -c cel01 alter griddisk all inactive");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("GridDisk DATA_CD_00_cel01 successfully altered\n"));
  EXPECT_THAT(r.out, HasSubstr("GridDisk RECO_CD_01_cel01 successfully altered\n"));
  r = Cellsim(dir, "cellcli " + rack + " -c cel01 list griddisk attributes name, status, asmModeStatus");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("         DATA_CD_01_cel01        inactive        OFFLINE\n"));
  r = Cellsim(dir, "cellcli " + rack + " -c cel02 alter griddisk all inactive");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("cannot be made inactive: ORA-15066"));
  r = Cellsim(dir, "asmcmd " + rack + " -e \"online -G DATA -D DATA_CD_00_cel01\"");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("grid disk DATA_CD_00_cel01 of cell cel01 is inactive (CellCLI: "
                               "ALTER GRIDDISK DATA_CD_00_cel01 ACTIVE)"));
  r = Cellsim(dir, "sql " + rack + " -e \"create tablespace during datafile '+DATA' size 4m\"");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, Not(HasSubstr("not present")));  // inactive disks are not absent
  r = Cellsim(dir, "cellcli " + rack + " -c cel01 alter griddisk all active");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = Cellsim(dir, "cellcli " + rack + " -e \"list griddisk where status != active or asmModeStatus != ONLINE\"");
  EXPECT_NE(r.exit_code, 0);  // no OR in CellCLI: AND only
  r = Cellsim(dir, "cellcli " + rack + " -e \"list griddisk where asmModeStatus != ONLINE\" "
                   "-e \"list griddisk where status != active\"");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  r = Cellsim(dir, "asmcmd " + rack + " -e lsdg");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, ContainsRegex("  0 +N +DATA/"));
}

// ALTER GRIDDISK ALL INACTIVE on every cell at once (no -c) of a rack with no
// database yet: it once took every disk of both groups offline (no extent to
// protect), leaving "MOUNTED" groups with nowhere to write. ASM's partnership
// rule refuses it on every cell after the first, whose disks say why.
TEST(CliCellCliTest, AllInactiveOnEveryCellIsRefusedFromTheSecondOn) {
  TempDir dir;
  const std::string rack = dir.File("rack");
  ASSERT_EQ(Cellsim(dir, "rack create " + rack + " " + kSmallRack).exit_code, 0);
  CmdResult r = Cellsim(dir, "cellcli " + rack + " alter griddisk all inactive");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.out, HasSubstr("cel01: GridDisk DATA_CD_00_cel01 successfully altered"));
  EXPECT_THAT(r.out, Not(HasSubstr("cel02: GridDisk")));
  EXPECT_THAT(r.err, HasSubstr("cel02: grid disk DATA_CD_00_cel02 cannot be made inactive: "
                               "ORA-15066"));
  // As dcli runs it on each cell: cel03 tried too, and refused the same way.
  EXPECT_THAT(r.err, HasSubstr("cel03: grid disk DATA_CD_00_cel03 cannot be made inactive: "
                               "ORA-15066"));
  r = Cellsim(dir, "cellcli " + rack + " -c cel02 list griddisk attributes name, status, "
                   "asmDeactivationOutcome");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("DATA_CD_00_cel02        active  Cannot de-activate due to other "
                               "offline disks in the diskgroup"));
  r = Cellsim(dir, "sql " + rack + " -e \"create tablespace users datafile '+DATA' size 8m\"");
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

// `cellsim write` (random writes for kill -9 tests) into a file the database
// keeps data in would silently destroy committed rows (it did: 5,000 rows read
// back as 1,313): it refuses, naming why, unless --force; an empty
// tablespace's data file is fine.
TEST(CliWriteTest, RefusesFilesHoldingTheDatabasesData) {
  TempDir dir;
  const std::string rack = dir.File("rack");
  ASSERT_EQ(Cellsim(dir, "rack create " + rack + " " + kSmallRack).exit_code, 0);
  CmdResult r = Cellsim(dir, "sql " + rack + " --standard-files -e \"create table t (a number)\" "
                             "-e \"insert into t select level from dual connect by level <= 3000\" "
                             "-e commit -e \"create tablespace scratch datafile '+DATA' size 8m\"");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* file : {"+DATA/ORCL/DATAFILE/USERS.*", "+DATA/ORCL/DATAFILE/SYSTEM.*",
                           "+DATA/ORCL/DATAFILE/UNDOTBS1.*", "+DATA/ORCL/ONLINELOG/group_1.*"}) {
    r = Cellsim(dir, "write " + rack + " --count 500 --file '" + file + "'");
    EXPECT_EQ(r.exit_code, 1) << file << r.err;
    EXPECT_THAT(r.err, HasSubstr("refusing to write random data into")) << file;
    EXPECT_EQ(r.out, "") << file;
  }
  EXPECT_THAT(r.err, HasSubstr("an online redo log"));
  r = Cellsim(dir, "write " + rack + " --count 500 --file '+DATA/ORCL/DATAFILE/USERS.*'");
  EXPECT_THAT(r.err, HasSubstr("tablespace USERS, which holds 1 table or index segments"));
  r = Cellsim(dir, "write " + rack + " --count 50 --file '+DATA/ORCL/DATAFILE/SCRATCH.*'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = Cellsim(dir, "sql " + rack + " -e \"select count(*), sum(a) from t\"");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, ContainsRegex("3000 +4501500"));
}

TEST(CliHelpTest, EverySubcommandHasHelp) {
  TempDir dir;
  for (const char* sub : {"demo", "rack", "rack create", "rack info", "rack recover", "sql", "cellcli", "asmcmd"}) {
    CmdResult r = Cellsim(dir, std::string(sub) + " --help");
    EXPECT_EQ(r.exit_code, 0) << sub;
    EXPECT_THAT(r.out, HasSubstr("Usage:")) << sub;
  }
}

// A first `cellsim sql` without --standard-files creates a database without
// them; a second one with the option used to change nothing in silence, and
// ORA-00959 then told the user to use the very option they had used.
TEST(CliRackTest, StandardFilesOnAnExistingDatabaseSaysWhyNothingChanged) {
  TempDir dir;
  const std::string rack = dir.File("rack");
  ASSERT_EQ(Cellsim(dir, "rack create " + rack + " " + kSmallRack).exit_code, 0);
  CmdResult r = Cellsim(dir, "sql " + rack + " -e \"select 1 from dual\"");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = Cellsim(dir, "sql " + rack + " --standard-files -e \"create table t (a number)\"");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("--standard-files changed nothing: database ORCL already exists"));
  EXPECT_THAT(r.err, HasSubstr("it has no SYSTEM, SYSAUX, UNDOTBS1, TEMP, USERS"));
  EXPECT_THAT(r.err, HasSubstr("ORA-00959"));
  EXPECT_THAT(r.err, HasSubstr("on a new rack"));
  // With them all there, the option says nothing.
  const std::string fresh = dir.File("fresh");
  ASSERT_EQ(Cellsim(dir, "rack create " + fresh + " " + kSmallRack).exit_code, 0);
  ASSERT_EQ(Cellsim(dir, "sql " + fresh + " --standard-files -e \"select 1 from dual\"").exit_code, 0);
  r = Cellsim(dir, "sql " + fresh + " --standard-files -e \"select 1 from dual\"");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, Not(HasSubstr("--standard-files")));
}

}  // namespace
}  // namespace cellsim
