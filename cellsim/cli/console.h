// A SQL session's terminal: where its feedback and errors go, where its
// prompt and scripts read, what interrupts it and which folder its relative
// paths start from. `cellsim sql` run on its own uses the process's
// (Console{}); a session `cellsim instance` serves uses its client's
// standard input, output and error, received over the instance's socket
// (FdOStream), and the signals the client forwards.
//
//   FdOStream out(fd1), err(fd2);
//   Console c{.in = fd0, .out = &out, .err = &err, .err_fd = fd2, .interrupts = &mine};
//
// Thread-safety: a Console belongs to one session's thread; its streams are
// not shared.
#ifndef CELLSIM_CLI_CONSOLE_H_
#define CELLSIM_CLI_CONSOLE_H_

#include <unistd.h>

#include <array>
#include <functional>
#include <iostream>
#include <ostream>
#include <streambuf>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "cellsim/cli/interrupt.h"

namespace cellsim {
class Clock;
namespace db {
class Database;
}  // namespace db
}  // namespace cellsim

namespace cellsim::cli {

// A database a session's STARTUP opened, and its clock.
struct OpenedDatabase {
  db::Database* db = nullptr;
  const Clock* clock = nullptr;
};

struct Console {
  int in = STDIN_FILENO;           // the prompt's and `-`'s input
  std::ostream* out = &std::cout;  // feedback, query results, reports
  std::ostream* err = &std::cerr;  // errors and notes
  int err_fd = STDERR_FILENO;      // `err`'s descriptor: the progress bar draws there
  Interrupts* interrupts = &ProcessInterrupts();
  std::string cwd;  // where relative paths (@script) start; "": the process's own folder
  // SQL*Plus's SHUTDOWN and STARTUP, for `cellsim sql`'s run:
  // - shutdown: asks for SHUTDOWN `mode` (NORMAL, IMMEDIATE, TRANSACTIONAL
  //   or ABORT) when a session `cellsim instance` serves: an error when it
  //   cannot (ORA-01090: another is under way). Empty on its own.
  // - close: once the session that asked for SHUTDOWN has ended, closes the
  //   database (on its own: the rack, or for ABORT drops it as kill -9 would,
  //   lab::RackEnv::Abort; served: waits for the instance to close it): OK
  //   or the close's error. The run then goes on without a database
  //   (ORA-01034), as SQL*Plus does connected to an idle instance. A served
  //   session's ABORT ends its run instead, and the instance as kill -9 does.
  // - startup: STARTUP after that: the database opened again, or why not.
  //   Empty: STARTUP cannot (a served session: the instance has ended).
  std::function<absl::Status(const std::string& mode)> shutdown;
  std::function<absl::Status(const std::string& mode)> close;
  std::function<absl::StatusOr<OpenedDatabase>()> startup;
};

// `status`'s message on the console's error stream as a command's error
// ("cellsim asmcmd: ..."), and the exit code it means: 2 for
// InvalidArgument (bad input), else 1.
int ReportFailure(Console& console, std::string_view command, const absl::Status& status);

// Everything `fd` holds until its end, watching `interrupts` while it waits
// (Cancelled "ORA-01013 ..." when one arrives).
absl::StatusOr<std::string> ReadAll(int fd, Interrupts& interrupts);

// An output stream on a descriptor it does not own, buffered until a flush
// (std::flush, std::endl) or 4 KiB. A write that fails (the reader is gone:
// EPIPE) sets badbit and calls `on_broken` (if given) once with its errno;
// nothing raises SIGPIPE (a process writing to its clients' descriptors
// ignores it).
class FdOStream : public std::ostream {
 public:
  explicit FdOStream(int fd, std::function<void(int error)> on_broken = nullptr);
  ~FdOStream() override;
  FdOStream(const FdOStream&) = delete;
  FdOStream& operator=(const FdOStream&) = delete;

 private:
  class Buf : public std::streambuf {
   public:
    Buf(int fd, std::function<void(int)> on_broken);
    int sync() override;
    int_type overflow(int_type c) override;

   private:
    bool Drain();
    const int fd_;
    std::function<void(int)> on_broken_;  // reset once called
    std::array<char, 4096> buf_{};
  };
  Buf buf_;
};

}  // namespace cellsim::cli

#endif  // CELLSIM_CLI_CONSOLE_H_
