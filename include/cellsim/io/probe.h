// What this machine's kernel and a directory's filesystem support, for the
// I/O layer: io_uring and the opcodes cellsim uses, registered buffers,
// O_DIRECT, and each fallocate mode; plus the mode cellsim will therefore use.
// `cellsim probe` prints it; tests use it to skip what the machine lacks.
//
// Usage:
//   ProbeReport p = *ProbeIo("/rack");
//   if (!p.direct_io) std::cout << "O_DIRECT refused: " << p.direct_error;
//
// Probing creates and removes a small temporary file in the directory.
#ifndef CELLSIM_IO_PROBE_H_
#define CELLSIM_IO_PROBE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cellsim/io/io_backend.h"

namespace cellsim::io {

struct ProbeFeature {
  std::string name;
  bool supported = false;
  std::string detail;  // why not, when unsupported
};

struct ProbeReport {
  std::string kernel;  // uname -r
  bool io_uring = false;
  std::string io_uring_error;
  std::vector<ProbeFeature> opcodes;  // IORING_OP_* cellsim issues
  bool registered_buffers = false;
  std::string directory;
  std::string filesystem;  // "ext4", "xfs", "tmpfs", ... or "0x<magic>"
  bool direct_io = false;
  std::string direct_error;
  std::vector<ProbeFeature> fallocate;  // one per AllocateMode, AllocateModeName order
  std::string backend;  // what cellsim will use: "io_uring" or "posix"
  std::string io_mode;  // "O_DIRECT" or "buffered (only with --buffered)"
};

// Errors: NotFound / PermissionDenied when `directory` is missing or not
// writable (the message names it).
[[nodiscard]] absl::StatusOr<ProbeReport> ProbeIo(const std::string& directory);

}  // namespace cellsim::io

#endif  // CELLSIM_IO_PROBE_H_
