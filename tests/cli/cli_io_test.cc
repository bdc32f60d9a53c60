// End-to-end: `cellsim probe` and `cellsim io zero` through the real binary
// (its path comes from the build as CELLSIM_BIN).
#include <fstream>
#include <string>

#include "cli_test_util.h"
#include "testing/io_requirements.h"
#include "nlohmann/json.hpp"
#include "testing/test_util.h"

namespace cellsim {
namespace {

using ::cellsim::testing::TempDir;
using ::cellsim::cli::testing::Cellsim;
using ::cellsim::cli::testing::CmdResult;
using ::cellsim::testing::ReadFileText;
using ::testing::HasSubstr;

TEST(CliProbeTest, PrintsSupportAndMode) {
  TempDir dir;
  CmdResult r = Cellsim(dir, "probe --dir " + dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("io_uring"));
  EXPECT_THAT(r.out, HasSubstr("O_DIRECT"));
  EXPECT_THAT(r.out, HasSubstr("fallocate punch-hole"));
  EXPECT_THAT(r.out, HasSubstr("cellsim will use:"));

  r = Cellsim(dir, "probe --json --dir " + dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["directory"], dir.path());
  EXPECT_EQ(j["o_direct"].get<bool>(), ::cellsim::testing::RequireDirectIo(dir.path()).empty());
  EXPECT_TRUE(j["fallocate"].contains("zero-range"));
  EXPECT_TRUE(j["backend"] == "io_uring" || j["backend"] == "posix");
  if (j["io_uring"].get<bool>()) {
    EXPECT_TRUE(j["opcodes"].contains("IORING_OP_WRITE_FIXED"));
  }
}

TEST(CliProbeTest, MissingDirectoryFails) {
  TempDir dir;
  CmdResult r = Cellsim(dir, "probe --dir " + dir.File("nope"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("cellsim probe:"));
  EXPECT_THAT(r.err, HasSubstr(dir.File("nope")));
}

TEST(CliIoZeroTest, ZeroFillsAndReportsJson) {
  TempDir dir;
  REQUIRE_URING();  // `io zero` runs on io_uring unless --backend posix
  REQUIRE_DIRECT_IO(dir.path());
  const std::string file = dir.File("zero.img");
  {  // non-zero content, so the test sees the zeros being written
    std::ofstream out(file);
    out << std::string(1 << 20, 'x');
  }
  CmdResult r = Cellsim(dir, "io zero " + file + " --size 4m --block-size 256k --queue-depth 4 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["bytes"], 4u << 20);
  EXPECT_EQ(j["requests"], 16);
  EXPECT_EQ(j["mode"], "O_DIRECT");
  EXPECT_EQ(j["backend"], "io_uring");
  EXPECT_EQ(j["queue_depth"], 4);
  for (const char* key : {"elapsed_s", "mib_per_s", "p50_us", "p99_us", "p999_us"}) {
    ASSERT_TRUE(j.contains(key)) << key;
    EXPECT_GT(j[key].get<double>(), 0) << key;
  }
  EXPECT_LE(j["p50_us"].get<double>(), j["p999_us"].get<double>());
  const std::string content = ReadFileText(file);
  ASSERT_EQ(content.size(), 4u << 20);
  EXPECT_EQ(content.find_first_not_of('\0'), std::string::npos);
}

TEST(CliIoZeroTest, BufferedPosixAndTextOutput) {
  TempDir dir;
  const std::string file = dir.File("b.img");
  CmdResult r = Cellsim(dir, "io zero " + file + " --size 100k --block-size 4k --buffered "
                       "--backend posix --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["mode"], "buffered");
  EXPECT_EQ(j["backend"], "posix");
  EXPECT_EQ(j["bytes"], 100u << 10);
  r = Cellsim(dir, "io zero " + file + " --size 64k --buffered");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("MiB/s"));
  EXPECT_THAT(r.out, HasSubstr("p99.9"));
  EXPECT_THAT(r.out, HasSubstr("buffered"));
}

TEST(CliIoZeroTest, BadInputFailsClearly) {
  TempDir dir;
  const std::string file = dir.File("bad.img");
  CmdResult r = Cellsim(dir, "io zero " + file + " --size 5x");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--size"));
  EXPECT_THAT(r.err, HasSubstr("unknown unit"));

  r = Cellsim(dir, "io zero " + file + " --size 4097");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("O_DIRECT"));
  EXPECT_THAT(r.err, HasSubstr("--buffered"));

  r = Cellsim(dir, "io zero " + file);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.err, HasSubstr("--size"));

  r = Cellsim(dir, "io zero " + file + " --size 1m --queue-depth 0");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.err, HasSubstr("queue-depth"));

  r = Cellsim(dir, "io zero " + file + " --size 1m --backend spdk");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.err, HasSubstr("backend"));

  r = Cellsim(dir, "io zero " + dir.File("no/such/dir.img") + " --size 1m");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr(dir.File("no/such/dir.img")));
  EXPECT_THAT(r.err, HasSubstr("No such file or directory"));

  r = Cellsim(dir, "frobnicate");
  EXPECT_NE(r.exit_code, 0);
}

}  // namespace
}  // namespace cellsim
