// What this machine's kernel and a directory's filesystem support, for the
// I/O layer: io_uring and the opcodes cellsim uses, registered buffers,
// O_DIRECT, and each fallocate mode; plus the mode cellsim will therefore use.
// `cellsim probe` prints it; tests use it to skip what the machine lacks.
//
// Usage:
//   ProbeReport p = *ProbeIo("/rack");
//   if (!p.direct_io) std::cout << "O_DIRECT refused: " << p.direct_error;
//   IoChoice c = *ChooseIo("/rack", {});   // what a rack created there uses
//   std::cout << c.Describe();   // "io_uring backend, O_DIRECT (ext4 accepts it)"
//
// Probing creates and removes a small temporary file in the directory.
#ifndef CELLSIM_IO_PROBE_H_
#define CELLSIM_IO_PROBE_H_

#include <cstdint>
#include <string>
#include <string_view>
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
  std::string backend;  // what cellsim will use by default: "io_uring" or "posix"
  std::string io_mode;  // what a rack created here uses by default: "O_DIRECT" or "buffered"
  std::string io_mode_reason;  // why: "ext4 accepts O_DIRECT", "tmpfs refuses O_DIRECT (...)"
};

// Errors: NotFound / PermissionDenied when `directory` is missing or not
// writable (the message names it).
[[nodiscard]] absl::StatusOr<ProbeReport> ProbeIo(const std::string& directory);

// What grid disks and flash are opened with. kAuto (the default of racks, the
// demo and cellsim::Lab): O_DIRECT where the directory's filesystem accepts it
// (as a real cell bypasses the page cache), buffered where it refuses it
// (tmpfs), saying so. kDirect fails when refused; kBuffered never probes.
enum class IoModeRequest : uint8_t { kAuto, kDirect, kBuffered };
std::string_view IoModeRequestName(IoModeRequest r);  // "auto", "direct", "buffered"
// "auto", "direct" (or "o_direct"), "buffered"; InvalidArgument otherwise.
[[nodiscard]] absl::StatusOr<IoModeRequest> ParseIoModeRequest(std::string_view name);

// Which backend: kAuto is io_uring where the kernel allows it, else posix.
enum class BackendRequest : uint8_t { kAuto, kUring, kPosix };
std::string_view BackendRequestName(BackendRequest r);  // "auto", "io_uring", "posix"
// "auto", "io_uring" (or "uring"), "posix"; InvalidArgument otherwise.
[[nodiscard]] absl::StatusOr<BackendRequest> ParseBackendRequest(std::string_view name);

struct IoPreference {
  BackendRequest backend = BackendRequest::kAuto;
  IoModeRequest mode = IoModeRequest::kAuto;
};

// The outcome of probing for an IoPreference: what will be used and why.
struct IoChoice {
  BackendKind backend = BackendKind::kPosix;
  std::string backend_reason;  // "io_uring available", "io_uring refused (...): posix"
  bool direct = false;
  std::string mode_reason;     // "ext4 accepts O_DIRECT", "tmpfs refuses O_DIRECT (...)"
  bool fell_back = false;      // kAuto had to take the slower choice (posix or buffered)
  // "io_uring backend, O_DIRECT (ext4 accepts O_DIRECT)"
  std::string Describe() const;
};

// The choice an already probed directory gives (ProbeIo's report).
[[nodiscard]] absl::StatusOr<IoChoice> ChooseIo(const ProbeReport& probe, const IoPreference& request);
// Probes `directory` (which must exist) and chooses. Errors: those of ProbeIo;
// FailedPrecondition when the request names what the machine refuses
// (io_uring, or O_DIRECT on this filesystem), saying what to use instead.
[[nodiscard]] absl::StatusOr<IoChoice> ChooseIo(const std::string& directory,
                                                const IoPreference& request);

}  // namespace cellsim::io

#endif  // CELLSIM_IO_PROBE_H_
