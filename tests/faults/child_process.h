// A child process for the kill -9, interrupt and multi-process tests: the
// real `cellsim` binary started with posix_spawn, its stdout on a pipe the
// test reads line by line, its stderr in a file. The test can poll it, signal
// it at a moment it chooses, and reap it. A test target that defines
// CELLSIM_BIN (the binary's path) also gets CellsimChild and Cellsim, which
// put the binary in front of the arguments.
//
//   ChildProcess c = CellsimChild({"write", dir, "--count", "0"}, tmp.File("err"));
//   ASSERT_TRUE(c.started()) << c.error();
//   while (auto line = c.ReadLine()) { ...; if (enough) c.Kill(); }
//   int status = c.Wait();   // WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL
//   std::string err = c.Stderr();
//   CmdRun r = Cellsim(tmp, {"asmcmd", dir, "-e", "lsdg"});  // runs to the end
#ifndef CELLSIM_TESTS_FAULTS_CHILD_PROCESS_H_
#define CELLSIM_TESTS_FAULTS_CHILD_PROCESS_H_

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "testing/test_util.h"

extern char** environ;

namespace cellsim::faults::testing {

class ChildProcess {
 public:
  // With `stdin_pipe` the child's standard input is a pipe the test writes
  // (WriteStdin) and closes (CloseStdin); else it inherits the test's.
  ChildProcess(const std::vector<std::string>& argv, const std::string& stderr_path,
               bool stdin_pipe = false)
      : stderr_path_(stderr_path) {
    int fds[2], in[2] = {-1, -1};
    if (pipe2(fds, O_CLOEXEC) != 0 || (stdin_pipe && pipe2(in, O_CLOEXEC) != 0)) {
      error_ = std::string("pipe2: ") + std::strerror(errno);
      return;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
    if (stdin_pipe) posix_spawn_file_actions_adddup2(&fa, in[0], STDIN_FILENO);
    posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, stderr_path.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    const int rc = posix_spawn(&pid_, args[0], &fa, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    if (stdin_pipe) {
      close(in[0]);
      in_fd_ = in[1];
    }
    if (rc != 0) {
      error_ = std::string("posix_spawn ") + argv[0] + ": " + std::strerror(rc);
      close(fds[0]);
      pid_ = -1;
      return;
    }
    out_fd_ = fds[0];
  }
  ~ChildProcess() {
    if (pid_ > 0 && !reaped_) {
      kill(pid_, SIGKILL);
      Wait();
    }
    if (out_fd_ >= 0) close(out_fd_);
    CloseStdin();
  }
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  ChildProcess(ChildProcess&& o) noexcept
      : pid_(std::exchange(o.pid_, -1)), out_fd_(std::exchange(o.out_fd_, -1)),
        in_fd_(std::exchange(o.in_fd_, -1)), reaped_(o.reaped_), status_(o.status_), buffer_(std::move(o.buffer_)),
        error_(std::move(o.error_)), stderr_path_(std::move(o.stderr_path_)) {}

  bool started() const { return pid_ > 0; }
  const std::string& error() const { return error_; }
  pid_t pid() const { return pid_; }

  // The next line of the child's stdout (without '\n'); nullopt at EOF (the
  // child closed its stdout: it exited or was killed). Blocks until then.
  std::optional<std::string> ReadLine() {
    while (true) {
      const size_t nl = buffer_.find('\n');
      if (nl != std::string::npos) {
        std::string line = buffer_.substr(0, nl);
        buffer_.erase(0, nl + 1);
        return line;
      }
      char chunk[4096];
      const ssize_t n = read(out_fd_, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        if (buffer_.empty()) return std::nullopt;
        std::string rest;
        rest.swap(buffer_);  // a last line without '\n' (a kill mid-print)
        return rest;
      }
      buffer_.append(chunk, static_cast<size_t>(n));
    }
  }

  // The child's stdout up to and including the next `marker` (a prompt
  // without '\n'); nullopt at EOF before it.
  std::optional<std::string> ReadUntil(std::string_view marker) {
    while (true) {
      const size_t at = buffer_.find(marker);
      if (at != std::string::npos) {
        std::string text = buffer_.substr(0, at + marker.size());
        buffer_.erase(0, at + marker.size());
        return text;
      }
      char chunk[4096];
      const ssize_t n = read(out_fd_, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return std::nullopt;
      buffer_.append(chunk, static_cast<size_t>(n));
    }
  }

  // Writes to the child's stdin pipe (stdin_pipe); false when it cannot.
  bool WriteStdin(std::string_view text) {
    while (!text.empty()) {
      const ssize_t n = write(in_fd_, text.data(), text.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      text.remove_prefix(static_cast<size_t>(n));
    }
    return true;
  }
  // End of input for the child.
  void CloseStdin() {
    if (in_fd_ >= 0) close(in_fd_);
    in_fd_ = -1;
  }

  // True once the child has exited (reaps it without blocking).
  bool Exited() {
    if (reaped_) return true;
    int status = 0;
    const pid_t r = waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
      reaped_ = true;
      status_ = status;
    }
    return reaped_;
  }

  // SIGKILL, as `kill -9`. Harmless when the child has already exited.
  void Kill() {
    if (!reaped_) kill(pid_, SIGKILL);
  }

  // Sends `sig` (SIGINT, SIGTERM, ...). Harmless once the child has exited.
  void Signal(int sig) {
    if (!reaped_) kill(pid_, sig);
  }

  // What the child wrote to its stderr so far.
  std::string Stderr() const;

  // Waits for the child; returns its wait status.
  int Wait() {
    while (!reaped_) {
      int status = 0;
      const pid_t r = waitpid(pid_, &status, 0);
      if (r == pid_) {
        reaped_ = true;
        status_ = status;
      } else if (r < 0 && errno != EINTR) {
        break;
      }
    }
    return status_;
  }

 private:
  pid_t pid_ = -1;
  int out_fd_ = -1;
  int in_fd_ = -1;
  bool reaped_ = false;
  int status_ = 0;
  std::string buffer_;
  std::string error_;
  std::string stderr_path_;
};

inline std::string ChildProcess::Stderr() const {
  return ::cellsim::testing::ReadFileText(stderr_path_);
}

// "killed by SIGKILL", "exited with 0", ... for messages.
inline std::string DescribeWaitStatus(int status) {
  if (WIFSIGNALED(status)) {
    return std::string("killed by signal ") + std::to_string(WTERMSIG(status));
  }
  if (WIFEXITED(status)) return "exited with " + std::to_string(WEXITSTATUS(status));
  return "status " + std::to_string(status);
}

// A finished run of the binary: wait status, stdout, stderr.
struct CmdRun {
  int status = -1;
  std::string out, err;
  bool ok() const { return WIFEXITED(status) && WEXITSTATUS(status) == 0; }
  int exit_code() const { return WIFEXITED(status) ? WEXITSTATUS(status) : -1; }
};

// Runs argv to completion, its stderr through `stderr_path` (one per
// concurrent caller).
inline CmdRun RunToEnd(const std::vector<std::string>& argv, const std::string& stderr_path) {
  ChildProcess c(argv, stderr_path);
  CmdRun r;
  if (!c.started()) {
    r.err = c.error();
    return r;
  }
  while (auto line = c.ReadLine()) r.out += *line + "\n";
  r.status = c.Wait();
  r.err = c.Stderr();
  return r;
}

#ifdef CELLSIM_BIN
// The `cellsim` binary started with `args`.
inline ChildProcess CellsimChild(std::vector<std::string> args, const std::string& stderr_path,
                                 bool stdin_pipe = false) {
  args.insert(args.begin(), CELLSIM_BIN);
  return ChildProcess(args, stderr_path, stdin_pipe);
}

// `cellsim ARGS` run to the end, its stderr through `stderr_path` (one per
// concurrent caller) or through the file "stderr.txt" of `tmp`.
inline CmdRun Cellsim(const std::string& stderr_path, std::vector<std::string> args) {
  args.insert(args.begin(), CELLSIM_BIN);
  return RunToEnd(args, stderr_path);
}
inline CmdRun Cellsim(const ::cellsim::testing::TempDir& tmp, std::vector<std::string> args) {
  return Cellsim(tmp.File("stderr.txt"), std::move(args));
}
#endif

}  // namespace cellsim::faults::testing

#endif  // CELLSIM_TESTS_FAULTS_CHILD_PROCESS_H_
