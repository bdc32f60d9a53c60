// RackLock: flock(2) on DIR/LOCK plus a record of the holders.
#include "cellsim/asm/rack_lock.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sstream>
#include <thread>
#include <vector>

#include "fmt/format.h"

namespace cellsim::asmgr {
namespace {

std::string LockPath(const std::string& dir) { return dir + "/" + RackLock::kFileName; }

std::string Errno(int err) { return std::strerror(err); }

bool Alive(long pid) { return pid > 0 && (kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM); }

// One line per holder; the command is the rest of the line.
std::string HolderLine(RackAccess access, const std::string& command) {
  std::string cmd = command.empty() ? "(library)" : command;
  for (char& c : cmd) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  if (cmd.size() > 200) cmd = cmd.substr(0, 197) + "...";
  return fmt::format("pid {} mode {} command {}\n", getpid(), RackAccessName(access), cmd);
}

// Opens (creating) the lock file. A reader on a read-only filesystem opens it
// read-only, or goes without when there is none (*fd = -1).
absl::Status OpenLockFile(const std::string& dir, RackAccess access, int* fd) {
  const std::string path = LockPath(dir);
  *fd = open(path.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (*fd >= 0) return absl::OkStatus();
  const int err = errno;
  if ((err == EROFS || err == EACCES) && access == RackAccess::kReadOnly) {
    *fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (*fd >= 0 || errno == ENOENT) return absl::OkStatus();
    return absl::PermissionDeniedError(
        fmt::format("cannot open the rack lock {}: {}", path, Errno(errno)));
  }
  if (err == EROFS || err == EACCES) {
    return absl::FailedPreconditionError(fmt::format(
        "the rack in {} is read-only ({}: {}): this command writes to the rack; only read "
        "commands (rack info, asmcmd, cellcli list) work there",
        dir, path, Errno(err)));
  }
  if (err == ENOENT || err == ENOTDIR) {
    return absl::NotFoundError(fmt::format("{} holds no valid rack: no such directory", dir));
  }
  return absl::InternalError(fmt::format("cannot open the rack lock {}: {}", path, Errno(err)));
}

std::string FormatWait(std::chrono::milliseconds ms) {
  if (ms.count() % 1000 == 0) return fmt::format("{} s", ms.count() / 1000);
  return fmt::format("{:.1f} s", static_cast<double>(ms.count()) / 1000.0);
}

// Reads DIR/LOCK through `fd` (from its start).
std::string ReadRecord(int fd) {
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = pread(fd, buf, sizeof buf, static_cast<off_t>(text.size()))) > 0 &&
                  text.size() < (1 << 16);) {
    text.append(buf, static_cast<size_t>(n));
  }
  return text;
}

// One line of the record: "pid PID mode read|write command TEXT".
struct Holder {
  long pid = 0;
  std::string mode, command;
};

std::vector<Holder> ParseHolders(const std::string& text) {
  std::vector<Holder> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    long pid = 0;
    char mode[8] = {};
    int used = 0;
    if (std::sscanf(line.c_str(), "pid %ld mode %7s command %n", &pid, mode, &used) < 2 ||
        used == 0) {
      continue;
    }
    out.push_back({pid, mode, line.substr(static_cast<size_t>(used))});
  }
  return out;
}

// FailedPrecondition when the record names a writer that is gone: it ended
// without releasing the rack (killed or crashed), so its recovery is pending.
absl::Status CheckNoDeadWriter(const std::string& dir, int fd) {
  for (const Holder& h : ParseHolders(ReadRecord(fd))) {
    if (h.mode != "write" || Alive(h.pid)) continue;
    const bool writable = (fcntl(fd, F_GETFL) & O_ACCMODE) != O_RDONLY;
    return absl::FailedPreconditionError(fmt::format(
        "recovery pending: the rack in {} was last opened for write by pid {} ({}), which ended "
        "without closing it (killed or crashed); what it left half-done would show here as if "
        "complete. Run `cellsim rack recover {}` (or any writing command, e.g. `cellsim sql`) "
        "to recover it, then read it again{}",
        dir, h.pid, h.command, dir,
        writable ? "" : "; this filesystem is read-only: copy the rack to writable storage "
                        "and recover it there"));
  }
  return absl::OkStatus();
}

}  // namespace

std::string_view RackAccessName(RackAccess access) {
  return access == RackAccess::kReadWrite ? "write" : "read";
}

std::string RackLock::DescribeHolders(const std::string& dir) {
  const int fd = open(LockPath(dir).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  const std::string text = ReadRecord(fd);
  close(fd);
  std::string out;
  for (const Holder& h : ParseHolders(text)) {
    if (!Alive(h.pid)) continue;
    const std::string entry = fmt::format("pid {} ({}) for {}", h.pid, h.command, h.mode);
    if (out.find(entry) == std::string::npos) out += (out.empty() ? "" : ", ") + entry;
  }
  return out;
}

absl::StatusOr<std::unique_ptr<RackLock>> RackLock::Acquire(const std::string& dir,
                                                            const RackLockOptions& options) {
  int fd = -1;
  if (absl::Status st = OpenLockFile(dir, options.access, &fd); !st.ok()) return st;
  const std::string path = LockPath(dir);
  if (fd < 0) return std::unique_ptr<RackLock>(new RackLock(-1, options.access, path));
  const int op = options.access == RackAccess::kReadWrite ? LOCK_EX : LOCK_SH;
  const auto deadline = std::chrono::steady_clock::now() + options.timeout;
  bool announced = false;
  auto pause = std::chrono::milliseconds(5);
  while (flock(fd, op | LOCK_NB) != 0) {
    const int err = errno;
    if (err == EINTR) continue;
    if (err != EWOULDBLOCK) {
      close(fd);
      return absl::InternalError(fmt::format("cannot lock {}: {}", path, Errno(err)));
    }
    if (Cancelled(options.cancel)) {
      close(fd);
      return absl::CancelledError(fmt::format(
          "ORA-01013: user requested cancel of current operation (while waiting for the rack "
          "lock of {})", dir));
    }
    std::string holders = DescribeHolders(dir);
    if (holders.empty()) holders = "another process";
    if (std::chrono::steady_clock::now() >= deadline) {
      close(fd);
      return absl::UnavailableError(fmt::format(
          "the rack in {} is in use by {}; gave up waiting for the {} lock after {}{}", dir,
          holders, RackAccessName(options.access), FormatWait(options.timeout),
          options.timeout_name.empty() ? "" : fmt::format(" ({})", options.timeout_name)));
    }
    if (!announced && options.on_wait) options.on_wait(holders);
    announced = true;
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(100));
  }
  // A writer's record outlives it only when it ended without releasing the
  // lock (kill -9, a crash): its recovery is pending, and a reader would see
  // its half-done work as if it were complete.
  if (options.access == RackAccess::kReadOnly) {
    if (absl::Status st = CheckNoDeadWriter(dir, fd); !st.ok()) {
      close(fd);
      return st;
    }
  }
  // Record ourselves: a writer replaces the record, a reader adds its line.
  // (Best effort on a read-only descriptor: the lock itself is what counts.)
  if (options.access == RackAccess::kReadWrite && ftruncate(fd, 0) != 0) {
    close(fd);
    return absl::InternalError(fmt::format("cannot write {}: {}", path, Errno(errno)));
  }
  const std::string line = HolderLine(options.access, options.command);
  if (write(fd, line.data(), line.size()) < 0 && options.access == RackAccess::kReadWrite) {
    const int err = errno;
    close(fd);
    return absl::InternalError(fmt::format("cannot write {}: {}", path, Errno(err)));
  }
  return std::unique_ptr<RackLock>(new RackLock(fd, options.access, path));
}

RackLock::~RackLock() {
  if (fd_ < 0) return;
  // A writer that ends cleanly erases its record (still under the lock), so
  // a record found later means the writer died (CheckNoDeadWriter).
  if (access_ == RackAccess::kReadWrite) (void)!ftruncate(fd_, 0);
  close(fd_);  // releases the flock
}

}  // namespace cellsim::asmgr
