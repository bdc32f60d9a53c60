// RackLock: ownership of a rack directory across processes, as RocksDB's LOCK
// file or SQLite's locks: writers hold it exclusively, readers shared. The lock
// is an flock(2) on DIR/LOCK; the file also records who holds it (one line per
// holder: "pid PID mode read|write command TEXT") so that a process that has
// to wait can say for whom. flock locks belong to the open file description:
// they vanish when the holder exits, however it exits (kill -9 included), so
// a crashed holder never leaves the rack locked. A writer erases its record
// when it releases the lock; a writer's record found by a reader therefore
// means that writer died with the rack open, and the reader is refused
// (recovery pending: see Acquire).
//
// Usage:
//   absl::StatusOr<std::unique_ptr<RackLock>> lock = RackLock::Acquire(dir, {
//       .access = RackAccess::kReadWrite, .timeout = std::chrono::minutes(5),
//       .command = "cellsim sql ...",
//       .on_wait = [](const std::string& holders) { std::cerr << "waiting for " << holders; }});
//   ... the rack's state is read and written only while `lock` lives ...
//
// On a read-only filesystem a reader takes the shared lock through a read-only
// descriptor (or, when there is no LOCK file at all, goes without: nobody can
// write there). Thread-safety: one RackLock per thread; two RackLocks of one
// process on the same directory conflict as two processes do.
#ifndef CELLSIM_ASM_RACK_LOCK_H_
#define CELLSIM_ASM_RACK_LOCK_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "cellsim/base/cancel.h"

namespace cellsim::asmgr {

enum class RackAccess : uint8_t {
  kReadWrite,  // exclusive: the only process on the rack
  kReadOnly,   // shared with other readers; nothing is written to the rack
};
std::string_view RackAccessName(RackAccess access);  // "write", "read"

struct RackLockOptions {
  RackAccess access = RackAccess::kReadWrite;
  // How long to wait while another process holds a conflicting lock; zero
  // fails at once.
  std::chrono::milliseconds timeout{0};
  // How the timeout is set, for the message when it runs out ("--lock-timeout").
  std::string timeout_name{};
  // Recorded in the lock file for other processes' messages ("cellsim sql").
  std::string command{};
  // Called once, when the lock is busy and the call starts waiting, with the
  // holders as "pid 123 (cellsim sql /r -e ...) for write".
  std::function<void(const std::string& holders)> on_wait{};
  // When set while waiting, the wait ends with Cancelled (ORA-01013).
  const CancelFlag* cancel = nullptr;
};

class RackLock {
 public:
  // The lock file's name inside a rack directory.
  static constexpr const char* kFileName = "LOCK";

  // Takes the lock on `dir` (which must exist). Errors: Unavailable naming
  // the holders when the lock stays busy past the timeout ("rack /r is in use
  // by pid 123 (cellsim sql ...) for write; gave up after 5 s"); for a reader,
  // FailedPrecondition "recovery pending: ... last opened for write by pid N
  // (...), which ended without closing it ...; run `cellsim rack recover DIR`"
  // when the last writer died with the rack open (its recovery runs at the
  // next write open); the system's error naming the lock file when it cannot
  // be created or locked.
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<RackLock>> Acquire(
      const std::string& dir, const RackLockOptions& options);

  ~RackLock();  // releases the lock
  RackLock(const RackLock&) = delete;
  RackLock& operator=(const RackLock&) = delete;

  RackAccess access() const { return access_; }
  const std::string& path() const { return path_; }

  // The live holders recorded in DIR/LOCK, as on_wait describes them ("" when
  // none is recorded).
  static std::string DescribeHolders(const std::string& dir);

 private:
  RackLock(int fd, RackAccess access, std::string path)
      : fd_(fd), access_(access), path_(std::move(path)) {}
  int fd_ = -1;  // -1: no lock file on a read-only filesystem
  RackAccess access_;
  std::string path_;
};

}  // namespace cellsim::asmgr

#endif  // CELLSIM_ASM_RACK_LOCK_H_
