#include "cellsim/io/probe.h"

#include <fcntl.h>
#include <liburing.h>
#include <linux/falloc.h>
#include <sys/statfs.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <utility>

#include "cellsim/io/fd_backend.h"
#include "fmt/format.h"
#include "fmt/ranges.h"

namespace cellsim::io {
namespace {

std::string FilesystemName(long magic) {
  switch (static_cast<unsigned long>(magic)) {
    case 0xEF53: return "ext4";
    case 0x58465342: return "xfs";
    case 0x9123683E: return "btrfs";
    case 0x01021994: return "tmpfs";
    case 0x858458F6: return "ramfs";
    case 0x794C7630: return "overlayfs";
    case 0x6969: return "nfs";
    case 0x65735546: return "fuse";
    case 0x2FC12FC1: return "zfs";
    case 0xF2F52010: return "f2fs";
  }
  return fmt::format("0x{:x}", static_cast<unsigned long>(magic));
}

void ProbeUring(ProbeReport& report) {
  io_uring ring;
  const int rc = io_uring_queue_init(4, &ring, 0);
  if (rc < 0) {
    report.io_uring_error = fmt::format("io_uring_queue_init: {}", std::strerror(-rc));
    return;
  }
  report.io_uring = true;
  io_uring_probe* probe = io_uring_get_probe_ring(&ring);
  const std::pair<const char*, int> ops[] = {
      {"IORING_OP_READ", IORING_OP_READ},
      {"IORING_OP_WRITE", IORING_OP_WRITE},
      {"IORING_OP_READ_FIXED", IORING_OP_READ_FIXED},
      {"IORING_OP_WRITE_FIXED", IORING_OP_WRITE_FIXED},
  };
  for (const auto& [name, op] : ops) {
    const bool ok = probe != nullptr && io_uring_opcode_supported(probe, op);
    report.opcodes.push_back({name, ok, ok ? "" : "not supported by this kernel"});
  }
  if (probe != nullptr) io_uring_free_probe(probe);
  AlignedBuffer buf(kDirectAlignment);
  iovec iov{buf.data(), buf.size()};
  report.registered_buffers = io_uring_register_buffers(&ring, &iov, 1) == 0;
  io_uring_queue_exit(&ring);
}

}  // namespace

absl::StatusOr<ProbeReport> ProbeIo(const std::string& directory) {
  ProbeReport report;
  report.directory = directory;
  utsname u;
  if (uname(&u) == 0) report.kernel = u.release;
  ProbeUring(report);

  struct statfs fs;
  if (statfs(directory.c_str(), &fs) != 0) {
    return internal::ErrnoStatus(errno, "probe: statfs", directory);
  }
  report.filesystem = FilesystemName(fs.f_type);

  std::string tmpl = directory + "/.cellsim-probe.XXXXXX";
  const int fd = mkstemp(tmpl.data());
  if (fd < 0) return internal::ErrnoStatus(errno, "probe: create a file in", directory);
  // O_DIRECT: open and write one aligned block.
  const int dfd = ::open(tmpl.c_str(), O_RDWR | O_DIRECT | O_CLOEXEC);
  if (dfd < 0) {
    report.direct_error = fmt::format("open with O_DIRECT: {}", std::strerror(errno));
  } else {
    AlignedBuffer block(kDirectAlignment);
    if (::pwrite(dfd, block.data(), block.size(), 0) == static_cast<ssize_t>(block.size())) {
      report.direct_io = true;
    } else {
      report.direct_error = fmt::format("O_DIRECT write: {}", std::strerror(errno));
    }
    ::close(dfd);
  }
  const std::pair<AllocateMode, int> modes[] = {
      {AllocateMode::kAllocate, 0},
      {AllocateMode::kKeepSize, FALLOC_FL_KEEP_SIZE},
      {AllocateMode::kZeroRange, FALLOC_FL_ZERO_RANGE},
      {AllocateMode::kPunchHole, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE},
  };
  for (const auto& [mode, flags] : modes) {
    const bool ok = ::fallocate(fd, flags, 0, 1 << 16) == 0;
    report.fallocate.push_back(
        {std::string(AllocateModeName(mode)), ok, ok ? "" : std::strerror(errno)});
  }
  ::close(fd);
  ::unlink(tmpl.c_str());

  absl::StatusOr<IoChoice> choice = ChooseIo(report, IoPreference{});
  if (!choice.ok()) return choice.status();
  report.backend = std::string(BackendKindName(choice->backend));
  report.io_mode = choice->direct ? "O_DIRECT" : "buffered";
  report.io_mode_reason = choice->mode_reason;
  return report;
}

namespace {

// Each request kind and its name; the parsers also take the aliases.
constexpr std::pair<IoModeRequest, std::string_view> kIoModeNames[] = {
    {IoModeRequest::kAuto, "auto"},
    {IoModeRequest::kDirect, "direct"},
    {IoModeRequest::kBuffered, "buffered"}};
constexpr std::pair<BackendRequest, std::string_view> kBackendNames[] = {
    {BackendRequest::kAuto, "auto"},
    {BackendRequest::kUring, "io_uring"},
    {BackendRequest::kPosix, "posix"}};

template <typename E, size_t N>
std::string_view NameIn(const std::pair<E, std::string_view> (&table)[N], E value) {
  for (const auto& [e, name] : table) {
    if (e == value) return name;
  }
  return "?";
}

template <typename E, size_t N>
absl::StatusOr<E> ParseIn(const std::pair<E, std::string_view> (&table)[N], std::string_view text,
                          std::string_view what) {
  std::vector<std::string_view> names;
  for (const auto& [e, name] : table) {
    if (text == name) return e;
    names.push_back(name);
  }
  // (Not `table | std::views::values`: clang 14 cannot compile libstdc++ 12's ranges.)
  return absl::InvalidArgumentError(
      fmt::format("unknown {} '{}': expected {}", what, text, fmt::join(names, ", ")));
}

}  // namespace

std::string_view IoModeRequestName(IoModeRequest r) { return NameIn(kIoModeNames, r); }

absl::StatusOr<IoModeRequest> ParseIoModeRequest(std::string_view name) {
  return ParseIn(kIoModeNames, name == "o_direct" ? "direct" : name, "I/O mode");
}

std::string_view BackendRequestName(BackendRequest r) { return NameIn(kBackendNames, r); }

absl::StatusOr<BackendRequest> ParseBackendRequest(std::string_view name) {
  return ParseIn(kBackendNames, name == "uring" ? "io_uring" : name, "backend");
}

std::string IoChoice::Describe() const {
  return fmt::format("{} backend ({}), {} ({})", BackendKindName(backend), backend_reason,
                     direct ? "O_DIRECT" : "buffered", mode_reason);
}

absl::StatusOr<IoChoice> ChooseIo(const ProbeReport& p, const IoPreference& request) {
  IoChoice c;
  switch (request.backend) {
    case BackendRequest::kPosix:
      c.backend = BackendKind::kPosix;
      c.backend_reason = "asked for";
      break;
    case BackendRequest::kUring:
      if (!p.io_uring) {
        return absl::FailedPreconditionError(fmt::format(
            "io_uring is not available here ({}); use the posix backend (--backend posix) or "
            "auto",
            p.io_uring_error));
      }
      c.backend = BackendKind::kUring;
      c.backend_reason = "asked for";
      break;
    case BackendRequest::kAuto:
      c.backend = p.io_uring ? BackendKind::kUring : BackendKind::kPosix;
      c.backend_reason =
          p.io_uring ? "available" : fmt::format("io_uring refused: {}", p.io_uring_error);
      c.fell_back = !p.io_uring;
      break;
  }
  const std::string where = fmt::format("{} at {}", p.filesystem, p.directory);
  switch (request.mode) {
    case IoModeRequest::kBuffered:
      c.direct = false;
      c.mode_reason = "asked for";
      break;
    case IoModeRequest::kDirect:
      if (!p.direct_io) {
        return absl::FailedPreconditionError(fmt::format(
            "O_DIRECT is refused by {} ({}); use buffered I/O (--io buffered) or auto, or "
            "another directory",
            where, p.direct_error));
      }
      c.direct = true;
      c.mode_reason = fmt::format("asked for; {} accepts it", where);
      break;
    case IoModeRequest::kAuto:
      c.direct = p.direct_io;
      c.mode_reason = p.direct_io ? fmt::format("{} accepts O_DIRECT", where)
                                  : fmt::format("fell back: {} refuses O_DIRECT ({})", where,
                                                p.direct_error);
      c.fell_back = c.fell_back || !p.direct_io;
      break;
  }
  return c;
}

absl::StatusOr<IoChoice> ChooseIo(const std::string& directory, const IoPreference& request) {
  absl::StatusOr<ProbeReport> probe = ProbeIo(directory);
  if (!probe.ok()) return probe.status();
  return ChooseIo(*probe, request);
}

}  // namespace cellsim::io
