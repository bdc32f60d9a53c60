// Test helper: the backends every conformance test runs against, and small
// utilities (patterned aligned buffers, skipping what the machine lacks).
#ifndef CELLSIM_TESTS_IO_BACKEND_PARAMS_H_
#define CELLSIM_TESTS_IO_BACKEND_PARAMS_H_

#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "gtest/gtest.h"
#include "cellsim/io/fault_injection.h"
#include "cellsim/io/io_backend.h"
#include "testing/io_requirements.h"

namespace cellsim::io::testing {

enum class Flavor { kPosix, kUringBuffered, kUringDirect, kFaultUring };

struct BackendParam {
  Flavor flavor;
  const char* name;
  bool direct;  // files are opened with O_DIRECT
};

inline const BackendParam kAllBackends[] = {
    {Flavor::kPosix, "posix", false},
    {Flavor::kUringBuffered, "io_uring_buffered", false},
    {Flavor::kUringDirect, "io_uring_direct", true},
    {Flavor::kFaultUring, "fault_io_uring", false},
};

// gtest (and CTest test names) print the flavour, not the struct's bytes.
inline void PrintTo(const BackendParam& p, std::ostream* os) { *os << p.name; }

inline std::string ParamName(const ::testing::TestParamInfo<BackendParam>& info) {
  return info.param.name;
}

inline absl::StatusOr<std::unique_ptr<IoBackend>> MakeTestBackend(Flavor flavor,
                                                                   unsigned depth = 32) {
  switch (flavor) {
    case Flavor::kPosix:
      return MakePosixBackend();
    case Flavor::kUringBuffered:
    case Flavor::kUringDirect:
      return MakeUringBackend({.queue_depth = depth});
    case Flavor::kFaultUring: {
      auto base = MakeUringBackend({.queue_depth = depth});
      if (!base.ok()) return base.status();
      return std::unique_ptr<IoBackend>(
          std::make_unique<FaultInjectionBackend>(std::move(*base)));
    }
  }
  return absl::InternalError("unknown flavor");
}

// Whether a flavour needs io_uring (then its tests start with REQUIRE_URING()).
inline bool NeedsUring(Flavor flavor) { return flavor != Flavor::kPosix; }

// Skips the running test unless its flavour's kernel features work (io_uring,
// and O_DIRECT in `dir` for the direct flavour): testing/io_requirements.h.
#define REQUIRE_BACKEND(param, dir)                                  \
  do {                                                               \
    if (::cellsim::io::testing::NeedsUring((param).flavor)) REQUIRE_URING(); \
    if ((param).direct) REQUIRE_DIRECT_IO(dir);                      \
  } while (0)

// Byte i of the pattern for `seed`.
inline uint8_t PatternByte(uint64_t seed, uint64_t i) {
  uint64_t x = (seed + 1) * 0x9E3779B97F4A7C15ull + i * 0xBF58476D1CE4E5B9ull;
  x ^= x >> 29;
  return static_cast<uint8_t>(x | 1);  // never zero: tells data from holes
}

inline void FillPattern(uint8_t* p, size_t n, uint64_t seed, uint64_t base = 0) {
  for (size_t i = 0; i < n; ++i) p[i] = PatternByte(seed, base + i);
}

}  // namespace cellsim::io::testing

#endif  // CELLSIM_TESTS_IO_BACKEND_PARAMS_H_
