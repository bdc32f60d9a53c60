// Helpers shared by the libFuzzer targets in tests/fuzz: a cursor over the
// fuzz input, a check that aborts with a message (libFuzzer reports an abort
// as a crash and saves the input), a per-process scratch directory for targets
// that drive code reading real files, and the geometry of the rack the seed
// corpus is generated from (corpus_gen.cc), so that the targets exercise the
// seeds' records against the same cell layout.
#ifndef CELLSIM_TESTS_FUZZ_FUZZ_UTIL_H_
#define CELLSIM_TESTS_FUZZ_FUZZ_UTIL_H_

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "cellsim/asm/rack.h"
#include "testing/tiny_rack.h"
#include "cellsim/base/units.h"

namespace cellsim::fuzz {

// Aborts (a libFuzzer crash) when `cond` is false.
#define FUZZ_CHECK(cond, ...)                                          \
  do {                                                                 \
    if (!(cond)) {                                                     \
      std::fprintf(stderr, "FUZZ_CHECK failed at %s:%d: %s\n", __FILE__, \
                   __LINE__, #cond);                                   \
      std::fprintf(stderr, "  " __VA_ARGS__);                          \
      std::fprintf(stderr, "\n");                                      \
      std::abort();                                                    \
    }                                                                  \
  } while (0)

// A decoder error must be a clear, non-empty message of an expected code.
inline void CheckError(const absl::Status& s, std::initializer_list<absl::StatusCode> codes) {
  bool known = false;
  for (absl::StatusCode c : codes) known = known || s.code() == c;
  FUZZ_CHECK(known, "unexpected status code: %s", std::string(s.ToString()).c_str());
  FUZZ_CHECK(!s.message().empty(), "empty error message, code %d", static_cast<int>(s.code()));
}

// Reads the fuzz input front to back; past the end every read yields zeros
// and Rest() is empty, so the targets never branch on the input's length.
class Input {
 public:
  Input(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint8_t U8() { return static_cast<uint8_t>(Le(1)); }
  uint16_t U16() { return static_cast<uint16_t>(Le(2)); }
  uint32_t U32() { return static_cast<uint32_t>(Le(4)); }
  // Up to `n` bytes (fewer at the end).
  absl::Span<const uint8_t> Bytes(size_t n) {
    n = std::min(n, size_ - pos_);
    absl::Span<const uint8_t> out(data_ + pos_, n);
    pos_ += n;
    return out;
  }
  absl::Span<const uint8_t> Rest() { return Bytes(size_ - pos_); }
  bool empty() const { return pos_ >= size_; }

 private:
  uint64_t Le(int n) {
    uint64_t v = 0;
    for (int i = 0; i < n && pos_ < size_; ++i) v |= uint64_t{data_[pos_++]} << (8 * i);
    return v;
  }
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

inline void PutLe(uint8_t* p, uint64_t v, int n) {
  for (int i = 0; i < n; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
inline uint64_t GetLe(const uint8_t* p, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v |= uint64_t{p[i]} << (8 * i);
  return v;
}

// A scratch directory of this process (tmpfs when available), removed at exit.
const std::string& ScratchDir();
// Replaces `path` with `bytes`.
void WriteFile(const std::string& path, absl::Span<const uint8_t> bytes);

inline asmgr::RackConfig CorpusRackConfig() { return testing::TinyRackConfig(); }

}  // namespace cellsim::fuzz

#endif  // CELLSIM_TESTS_FUZZ_FUZZ_UTIL_H_
