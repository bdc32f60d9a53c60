// Skipping tests whose kernel feature is missing, decided by the same probe
// `cellsim probe` runs (io/probe.h), as liburing's own tests skip: a test that
// needs io_uring or O_DIRECT starts with
//
//   REQUIRE_URING();              // GTEST_SKIP()s with the probe's reason
//   REQUIRE_DIRECT_IO(dir.path());
//
// or, where only some parameters need the feature,
//
//   if (GetParam().direct) REQUIRE_DIRECT_IO(dir.path());
//
// The functions return the reason to skip ("" when the feature works).
#ifndef CELLSIM_TESTS_TESTING_IO_REQUIREMENTS_H_
#define CELLSIM_TESTS_TESTING_IO_REQUIREMENTS_H_

#include <string>

#include "gtest/gtest.h"

namespace cellsim::testing {

// "" when io_uring (and the opcodes cellsim issues) works in this process;
// otherwise why not. Probed once per process.
std::string RequireUring();
// "" when `dir`'s filesystem accepts O_DIRECT; otherwise why not.
std::string RequireDirectIo(const std::string& dir);

}  // namespace cellsim::testing

#define REQUIRE_URING()                                                        \
  do {                                                                         \
    if (const std::string _why = ::cellsim::testing::RequireUring();           \
        !_why.empty()) {                                                       \
      GTEST_SKIP() << "io_uring is needed: " << _why;                          \
    }                                                                          \
  } while (0)

#define REQUIRE_DIRECT_IO(dir)                                                 \
  do {                                                                         \
    if (const std::string _why = ::cellsim::testing::RequireDirectIo(dir);     \
        !_why.empty()) {                                                       \
      GTEST_SKIP() << "O_DIRECT is needed: " << _why;                          \
    }                                                                          \
  } while (0)

#endif  // CELLSIM_TESTS_TESTING_IO_REQUIREMENTS_H_
