// Test helpers shared by every test: a per-test temporary directory that is
// removed afterwards, and Status assertions.
#ifndef CELLSIM_TESTS_TESTING_TEST_UTIL_H_
#define CELLSIM_TESTS_TESTING_TEST_UTIL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace cellsim::testing {

// A fresh directory under $TMPDIR (or /tmp), removed with its contents on
// destruction. Files created in it should be small or sparse.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string File(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// Allocated bytes (st_blocks * 512) of a file, to check sparseness.
uint64_t AllocatedBytes(const std::string& path);

// The whole content of a file, read at once (empty if it cannot be read):
// byte by byte through a stream iterator, a grid disk or flash file costs
// seconds under the sanitizers.
std::vector<uint8_t> ReadFileBytes(const std::string& path);
std::string ReadFileText(const std::string& path);

}  // namespace cellsim::testing

#define CELLSIM_CONCAT_INNER(a, b) a##b
#define CELLSIM_CONCAT(a, b) CELLSIM_CONCAT_INNER(a, b)

#define ASSERT_OK(expr)                                   \
  do {                                                    \
    const absl::Status _st = ::cellsim::testing::ToStatus(expr); \
    ASSERT_TRUE(_st.ok()) << #expr << ": " << _st;        \
  } while (0)
#define EXPECT_OK(expr)                                   \
  do {                                                    \
    const absl::Status _st = ::cellsim::testing::ToStatus(expr); \
    EXPECT_TRUE(_st.ok()) << #expr << ": " << _st;        \
  } while (0)

#define ASSERT_OK_AND_ASSIGN_IMPL(tmp, lhs, expr)          \
  auto tmp = (expr);                                       \
  ASSERT_TRUE(tmp.ok()) << #expr << ": " << tmp.status(); \
  lhs = std::move(tmp).value()
#define ASSERT_OK_AND_ASSIGN(lhs, expr) \
  ASSERT_OK_AND_ASSIGN_IMPL(CELLSIM_CONCAT(_statusor_, __LINE__), lhs, expr)

namespace cellsim::testing {
inline absl::Status ToStatus(const absl::Status& s) { return s; }
template <typename T>
absl::Status ToStatus(const absl::StatusOr<T>& s) {
  return s.status();
}
}  // namespace cellsim::testing

#endif  // CELLSIM_TESTS_TESTING_TEST_UTIL_H_
