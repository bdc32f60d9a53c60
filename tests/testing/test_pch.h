// The precompiled header of every test binary (tests/CMakeLists.txt,
// CELLSIM_TEST_PCH): the standard and third-party headers the tests include
// most, which are most of a test file's parse time. Nothing of cellsim's own
// is here, so that changing a cellsim header does not rebuild every test.
// A test still includes what it uses; this only makes it faster to compile.
#ifndef CELLSIM_TESTS_TESTING_TEST_PCH_H_
#define CELLSIM_TESTS_TESTING_TEST_PCH_H_

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "fmt/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

#endif  // CELLSIM_TESTS_TESTING_TEST_PCH_H_
