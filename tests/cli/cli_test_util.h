// Helpers shared by the end-to-end CLI tests: run the real `cellsim` binary
// (its path comes from the build as CELLSIM_BIN) through the shell and capture
// its exit code, stdout and stderr.
//
//   TempDir dir;
//   CmdResult r = Cellsim(dir, "probe --dir " + dir.path());
//   ASSERT_EQ(r.exit_code, 0) << r.err;
#ifndef CELLSIM_TESTS_CLI_CLI_TEST_UTIL_H_
#define CELLSIM_TESTS_CLI_CLI_TEST_UTIL_H_

#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "testing/test_util.h"

#ifndef CELLSIM_BIN
#error "CELLSIM_BIN must name the cellsim binary (target_compile_definitions)"
#endif

namespace cellsim::cli::testing {

struct CmdResult {
  int exit_code = -1;
  std::string out, err;
};

// Runs `[ENV] cellsim ARGS` through the shell (the tests control the words:
// ARGS and ENV are shell text, not quoted here). stderr goes through a file
// in `dir` so that stdout can be read from the pipe without deadlock.
inline CmdResult Cellsim(const ::cellsim::testing::TempDir& dir, const std::string& args,
                         const std::string& env = "") {
  const std::string err_file = dir.File("stderr.txt");
  const std::string cmd = env + " " + std::string(CELLSIM_BIN) + " " + args + " 2>" + err_file;
  CmdResult run;
  FILE* pipe = popen(cmd.c_str(), "r");
  if (pipe == nullptr) return run;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) run.out.append(buf, n);
  const int status = pclose(pipe);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  run.err = ::cellsim::testing::ReadFileText(err_file);
  return run;
}

}  // namespace cellsim::cli::testing

#endif  // CELLSIM_TESTS_CLI_CLI_TEST_UTIL_H_
