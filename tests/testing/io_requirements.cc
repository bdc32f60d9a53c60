#include "testing/io_requirements.h"

#include <cstdlib>

#include "cellsim/io/probe.h"
#include "fmt/format.h"

namespace cellsim::testing {

std::string RequireUring() {
  static const std::string why = [] {
    const char* tmp = std::getenv("TMPDIR");
    const std::string dir = tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
    absl::StatusOr<io::ProbeReport> p = io::ProbeIo(dir);
    if (!p.ok()) return fmt::format("probing {} failed: {}", dir, std::string(p.status().message()));
    if (!p->io_uring) return p->io_uring_error;
    for (const io::ProbeFeature& op : p->opcodes) {
      if (!op.supported) return fmt::format("{}: {}", op.name, op.detail);
    }
    return std::string();
  }();
  return why;
}

std::string RequireDirectIo(const std::string& dir) {
  absl::StatusOr<io::ProbeReport> p = io::ProbeIo(dir);
  if (!p.ok()) return fmt::format("probing {} failed: {}", dir, std::string(p.status().message()));
  if (!p->direct_io) return fmt::format("{} ({}) refuses it: {}", dir, p->filesystem, p->direct_error);
  return std::string();
}

}  // namespace cellsim::testing
