#include "cellsim/cli/instance.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <list>
#include <memory>
#include <thread>
#include <type_traits>

#include "cellsim/base/mutex.h"
#include "cellsim/cli/commands.h"
#include "cellsim/cli/console.h"
#include "cellsim/cli/interrupt.h"
#include "cellsim/cli/rack_env.h"
#include "cellsim/cli/served_commands.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"

namespace cellsim::cli {
namespace {

constexpr int kWireVersion = 2;
constexpr char kSignalMsg = 'I';  // client -> instance: + u8 signal
constexpr char kForgotMsg = 'F';  // instance -> client: the last signal is handled
constexpr char kExitMsg = 'X';    // instance -> client: + i32 exit code

// The socket's address. A path too long for sun_path goes through
// /proc/self/fd/N of the directory, opened O_PATH (*dir_fd, which the caller
// closes after bind or connect).
bool SocketAddress(const std::string& dir, sockaddr_un* addr, int* dir_fd) {
  *dir_fd = -1;
  std::string path = InstanceSocketPath(dir);
  *addr = {};
  addr->sun_family = AF_UNIX;
  if (path.size() >= sizeof addr->sun_path) {
    *dir_fd = open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (*dir_fd < 0) return false;
    path = fmt::format("/proc/self/fd/{}/instance.sock", *dir_fd);
  }
  std::memcpy(addr->sun_path, path.c_str(), path.size() + 1);
  return true;
}

bool SendAll(int fd, const void* data, size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

// Reads exactly `n` bytes, waiting up to `timeout_ms` in all (-1: forever).
bool RecvAll(int fd, void* data, size_t n, int timeout_ms) {
  char* p = static_cast<char*>(data);
  while (n > 0) {
    pollfd pf{fd, POLLIN, 0};
    const int ready = poll(&pf, 1, timeout_ms);
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return false;
    const ssize_t r = recv(fd, p, n, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    p += r;
    n -= static_cast<size_t>(r);
  }
  return true;
}

}  // namespace

std::string InstanceSocketPath(const std::string& dir) { return dir + "/instance.sock"; }

std::optional<InstanceClient> InstanceClient::Connect(const std::string& dir) {
  sockaddr_un addr;
  int dir_fd = -1;
  if (!SocketAddress(dir, &addr, &dir_fd)) return std::nullopt;
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    if (dir_fd >= 0) close(dir_fd);
    return std::nullopt;
  }
  int rc;
  do {
    rc = connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr);
  } while (rc != 0 && errno == EINTR);
  if (dir_fd >= 0) close(dir_fd);
  ucred peer{};
  socklen_t len = sizeof peer;
  if (rc != 0 || getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &len) != 0) {
    close(fd);  // ENOENT: no instance; ECONNREFUSED: a killed one's socket
    return std::nullopt;
  }
  return InstanceClient(fd, peer.pid, peer.uid, dir);
}

InstanceClient::InstanceClient(InstanceClient&& o) noexcept
    : fd_(std::exchange(o.fd_, -1)), pid_(o.pid_), uid_(o.uid_), dir_(std::move(o.dir_)) {}

InstanceClient::~InstanceClient() {
  if (fd_ >= 0) close(fd_);
}

int InstanceClient::Run(const std::string& command, const std::string& request,
                        const std::string& cwd) {
  const std::string body =
      nlohmann::json{{"version", kWireVersion}, {"command", command}, {"request", request},
                     {"cwd", cwd}}
          .dump();
  const uint32_t length = static_cast<uint32_t>(body.size());
  const int fds[3] = {STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof fds)] = {};
  iovec iov{const_cast<uint32_t*>(&length), sizeof length};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  cmsghdr* cm = CMSG_FIRSTHDR(&msg);
  cm->cmsg_level = SOL_SOCKET;
  cm->cmsg_type = SCM_RIGHTS;
  cm->cmsg_len = CMSG_LEN(sizeof fds);
  std::memcpy(CMSG_DATA(cm), fds, sizeof fds);
  ssize_t sent;
  do {
    sent = sendmsg(fd_, &msg, MSG_NOSIGNAL);
  } while (sent < 0 && errno == EINTR);
  const auto gone = [this] {
    std::cerr << fmt::format(
        "cellsim: ORA-03113: end-of-file on communication channel: the instance serving {} "
        "(pid {}) ended before this session did\n",
        dir_, pid_);
    return kExitFailure;
  };
  if (sent != static_cast<ssize_t>(sizeof length) || !SendAll(fd_, body.data(), body.size())) {
    return gone();
  }
  bool forwarded = false;  // the pending signal went to the instance
  while (true) {
    const int sig = InterruptSignal();
    if (sig != 0 && !forwarded) {
      const char m[2] = {kSignalMsg, static_cast<char>(sig)};
      forwarded = SendAll(fd_, m, sizeof m);
    }
    pollfd pf{fd_, POLLIN, 0};
    const int ready = poll(&pf, 1, /*timeout_ms=*/50);
    if (ready == 0 || (ready < 0 && errno == EINTR)) continue;
    char what = 0;
    if (ready < 0 || !RecvAll(fd_, &what, 1, -1)) return gone();
    if (what == kForgotMsg) {
      ForgetInterrupt();
      forwarded = false;
    } else if (what == kExitMsg) {
      int32_t code = 0;
      if (!RecvAll(fd_, &code, sizeof code, -1)) return gone();
      return code;
    }
  }
}

std::optional<int> RunInInstance(const std::string& dir, const RackOptions& rack,
                                 const std::string& command, const std::string& request) {
  std::optional<InstanceClient> instance = InstanceClient::Connect(dir);
  if (!instance.has_value()) return std::nullopt;
  if (instance->instance_uid() != geteuid()) {  // it would refuse us
    std::cerr << fmt::format(
        "cellsim {}: the instance serving {} (pid {}) runs as uid {}, and only that user's "
        "commands run in it (this one is uid {}): run it as that user, or stop the instance\n",
        command, dir, instance->instance_pid(), instance->instance_uid(), geteuid());
    return kExitFailure;
  }
  if (const std::string given = RackOptionsGiven(rack); !given.empty()) {
    std::cerr << fmt::format(
        "cellsim {}: {}: the instance serving {} (pid {}) was started with its own rack options, "
        "which its sessions share: give them to `cellsim instance`, or stop it (Ctrl-C or kill "
        "{})\n",
        command, given, dir, instance->instance_pid(), instance->instance_pid());
    return kExitUsage;
  }
  std::error_code ec;
  const std::string cwd = std::filesystem::current_path(ec).string();
  InterruptScope interrupts;  // Ctrl-C and kill go to the instance's session
  return instance->Run(command, request, cwd);
}

void to_json(nlohmann::json& j, const DatabaseFlags& flags) {
  j = {{"standard_files", flags.standard_files},
       {"all_objects_rows", flags.all_objects_rows.has_value()
                                ? nlohmann::json(*flags.all_objects_rows)
                                : nlohmann::json(nullptr)}};
}

void from_json(const nlohmann::json& j, DatabaseFlags& flags) {
  flags = DatabaseFlags();
  flags.standard_files = j.value("standard_files", false);
  if (const auto it = j.find("all_objects_rows"); it != j.end() && !it->is_null()) {
    flags.all_objects_rows = it->get<uint64_t>();
  }
}

std::optional<std::vector<std::string>> StringsOf(const nlohmann::json& request,
                                                  const std::string& key) {
  if (!request.is_object() || !request.contains(key) || !request[key].is_array()) {
    return std::nullopt;
  }
  std::vector<std::string> out;
  for (const nlohmann::json& s : request[key]) {
    if (!s.is_string()) return std::nullopt;
    out.push_back(s.get<std::string>());
  }
  return out;
}

namespace {

// A client's signals, as the instance's reader receives them; the session's
// Forget tells the client.
class ClientInterrupts final : public Interrupts {
 public:
  explicit ClientInterrupts(int socket) : socket_(socket) {}
  const CancelFlag* flag() const override { return &flag_; }
  int signal() const override { return signal_.load(std::memory_order_relaxed); }
  std::string cause() const override {
    const char* cause = cause_.load();
    return cause != nullptr ? cause : "a signal";
  }
  void Forget() override {
    signal_.store(0, std::memory_order_relaxed);
    cause_.store(nullptr);
    flag_.Reset();
    const char m = kForgotMsg;
    (void)SendAll(socket_, &m, 1);
  }
  // `cause` (a literal) names the sender when it is not the client's own
  // signal.
  void Raise(int sig, const char* cause = nullptr) {
    int expected = 0;
    if (signal_.compare_exchange_strong(expected, sig, std::memory_order_relaxed)) {
      cause_.store(cause);
      flag_.Cancel();
    }
  }

 private:
  const int socket_;
  CancelFlag flag_;
  std::atomic<int> signal_{0};
  std::atomic<const char*> cause_{nullptr};
};

// One client's run: its socket, its interrupts and the thread serving it.
struct Client {
  Client(int fd, int number, pid_t client_pid)
      : socket(fd), id(number), pid(client_pid), interrupts(fd) {}
  ~Client() { close(socket); }
  const int socket;
  const int id;
  const pid_t pid;  // the client's process (SO_PEERCRED)
  ClientInterrupts interrupts;
  // The main loop polls its socket for signals: once its request is in
  // (until then the serving thread reads it), until it ends.
  std::atomic<bool> reading{false};
  std::atomic<bool> done{false};
  std::atomic<bool> shut_down{false};  // the instance's shutdown cancelled it
  std::thread thread;
};

// A session's SHUTDOWN, shared by the sessions' threads and the main loop.
// The session asks (Request) from its statement, ends its run, and says so
// (Ended); from then on new sessions are refused (ORA-01090). NORMAL: the
// main loop waits for the other sessions to end; TRANSACTIONAL: for their
// transactions to end (no new one begins meanwhile), then cancels them;
// IMMEDIATE: it cancels them at once; all then close the database (Begin,
// Closed) and tell the asking session's thread, which tells its client.
// Until the main loop begins, the asker's Ctrl-C withdraws a waiting NORMAL
// or TRANSACTIONAL (WaitClosed), and another session's ABORT takes its
// place. ABORT: the session's thread ends the process once its client has
// its exit code (as kill -9: the next open recovers).
class ShutdownRequest {
 public:
  explicit ShutdownRequest(db::Database* db) : db_(db) {}

  // From session `by`'s statement: OK, or why not.
  absl::Status Request(const Client* by, const std::string& mode) {
    MutexLock l(&mu_);
    if (begun_) {
      return absl::FailedPreconditionError(
          "ORA-01089: immediate shutdown or close in progress - no operations are permitted");
    }
    if (by_ != nullptr && mode != "ABORT") {
      return absl::FailedPreconditionError(fmt::format(
          "ORA-10997: another startup/shutdown operation of this instance in progress (session "
          "{}'s SHUTDOWN {} waits; SHUTDOWN ABORT ends the instance now)",
          by_->id, mode_));
    }
    by_ = by;  // (an ABORT over a waiting one: that asker's client sees the instance end)
    mode_ = mode;
    ended_ = false;
    // The open transactions end; none begins from now on (the asker has none).
    if (mode == "TRANSACTIONAL") db_->RefuseNewTransactions();
    return absl::OkStatus();
  }
  // From session `c`'s thread once its db::Session is gone (Console::close,
  // or the end of its run): the mode it asked for ("" if none). Again is
  // harmless.
  std::string Ended(const Client* c) {
    MutexLock l(&mu_);
    if (by_ != c) return "";
    ended_ = true;
    done_.SignalAll();
    return mode_;
  }
  // From session `c`'s thread, which asked: the close's status, once closed;
  // or, when `cancel` comes before the main loop begins closing, the
  // shutdown withdrawn (ORA-01013): new sessions and transactions are
  // accepted again.
  absl::Status WaitClosed(const Client* c, const CancelFlag& cancel) {
    MutexLock l(&mu_);
    while (!closed_.has_value()) {
      if (by_ == c && !begun_ && cancel.cancelled()) {
        const std::string mode = std::exchange(mode_, "");
        by_ = nullptr;
        ended_ = false;
        db_->AcceptNewTransactions();
        return absl::CancelledError(fmt::format(
            "{} (SHUTDOWN {} withdrawn before it ended any session: the instance stays open, "
            "and takes new sessions and transactions again)",
            db::kCancelMessage, mode));
      }
      done_.WaitFor(&mu_, std::chrono::milliseconds(50));
    }
    return *closed_;
  }
  // Whether a shutdown was asked for: new sessions are refused.
  bool asked() const {
    MutexLock l(&mu_);
    return by_ != nullptr || begun_;
  }
  // NORMAL, TRANSACTIONAL or IMMEDIATE asked by `*by` whose session has
  // ended (else ""), for the main loop.
  std::string pending(const Client** by) const {
    MutexLock l(&mu_);
    *by = by_;
    return mode_ == "ABORT" || !ended_ ? "" : mode_;
  }
  // From the main loop, once `pending` said `mode` of `by` is due: begins the
  // shutdown, unless it was withdrawn or replaced meanwhile (false).
  bool BeginPending(const Client* by, const std::string& mode) {
    MutexLock l(&mu_);
    if (by_ != by || mode_ != mode || !ended_) return false;
    begun_ = true;
    return true;
  }
  // From the main loop, once it shuts down: later requests are refused; the
  // session that asked for NORMAL, TRANSACTIONAL or IMMEDIATE (null: none, a
  // signal) and its mode ("" for a signal's IMMEDIATE).
  // Waits for that session to end (a signal may have come first):
  // its db::Session must be gone before the database closes.
  const Client* Begin(std::string* mode) {
    MutexLock l(&mu_);
    begun_ = true;
    *mode = mode_ == "ABORT" ? "" : mode_;
    if (mode_ == "ABORT" || by_ == nullptr) return nullptr;
    while (!ended_) done_.Wait(&mu_);
    return by_;
  }
  // From the main loop: the database is closed; the session that asked goes on.
  void Closed(const absl::Status& status) {
    MutexLock l(&mu_);
    closed_ = status;
    done_.SignalAll();
  }

 private:
  db::Database* const db_;
  mutable Mutex mu_;
  CondVar done_;
  const Client* by_ ABSL_GUARDED_BY(mu_) = nullptr;
  std::string mode_ ABSL_GUARDED_BY(mu_);
  bool begun_ ABSL_GUARDED_BY(mu_) = false;
  bool ended_ ABSL_GUARDED_BY(mu_) = false;  // by_'s db::Session is gone
  std::optional<absl::Status> closed_ ABSL_GUARDED_BY(mu_);
};

// Receives the client's descriptors and request. False: a client that
// spoke no cellsim (or too slowly).
bool ReceiveRequest(int sock, int fds[3], nlohmann::json* request) {
  uint32_t length = 0;
  alignas(cmsghdr) char control[CMSG_SPACE(3 * sizeof(int))] = {};
  iovec iov{&length, sizeof length};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  pollfd pf{sock, POLLIN, 0};
  if (poll(&pf, 1, /*timeout_ms=*/10'000) <= 0) return false;
  if (recvmsg(sock, &msg, MSG_CMSG_CLOEXEC) != static_cast<ssize_t>(sizeof length)) return false;
  cmsghdr* cm = CMSG_FIRSTHDR(&msg);
  if (cm == nullptr || cm->cmsg_type != SCM_RIGHTS || cm->cmsg_len != CMSG_LEN(3 * sizeof(int))) {
    return false;
  }
  std::memcpy(fds, CMSG_DATA(cm), 3 * sizeof(int));
  std::string body(length, '\0');
  if (length > (1u << 26) || !RecvAll(sock, body.data(), length, 10'000)) {
    for (int i = 0; i < 3; ++i) close(fds[i]);
    return false;
  }
  *request = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (request->is_discarded()) {
    for (int i = 0; i < 3; ++i) close(fds[i]);
    return false;
  }
  return true;
}

struct InstanceArgs {
  std::string dir;
  DatabaseFlags database;  // --standard-files, --all-objects-rows
  RackOptions rack;
};

// What the instance says to a request that sets what only the instance
// sets (the open database's --all-objects-rows, when it differs); "" when
// nothing.
std::string InstanceSettingGiven(const std::string& request, const InstanceArgs& instance) {
  const nlohmann::json r = nlohmann::json::parse(request, nullptr, /*allow_exceptions=*/false);
  const uint64_t rows = instance.database.Apply({}).all_objects_rows;
  DatabaseFlags given;  // the request's, read as every command reads them (from_json)
  try {
    if (r.is_object() && r.contains("database")) given = r["database"].get<DatabaseFlags>();
  } catch (const nlohmann::json::exception&) {
    return "";  // a field of the wrong type: the command's own reading reports it
  }
  if (!given.all_objects_rows.has_value() || *given.all_objects_rows == rows) return "";
  return fmt::format(
      "--all-objects-rows {}: the instance serving {} (pid {}) opened its database with {}, "
      "which its sessions share: give it to `cellsim instance`, or leave it out",
      *given.all_objects_rows, instance.dir, getpid(), rows);
}

// A served session's STARTUP after its SHUTDOWN: `cellsim instance` starts
// the instance, a session does not; the message names the rack's absolute
// path (the client's working directory is not the instance's).
absl::StatusOr<OpenedDatabase> StartupInSession(const InstanceArgs& instance) {
  std::error_code ec;
  const std::filesystem::path abs = std::filesystem::absolute(instance.dir, ec);
  const std::string dir = ec ? instance.dir : abs.string();
  return absl::FailedPreconditionError(fmt::format(
      "cellsim: STARTUP: the instance (`cellsim instance`) this session ran in has shut down, and "
      "a session does not start it: start it again with `cellsim instance {}`, or run `cellsim "
      "sql {}` on its own",
      dir, dir));
}

// Serves one client on its own thread: its command (`cellsim sql`: a
// session of env.db), then its exit code.
void Serve(lab::RackEnv& env, const InstanceArgs& instance, ShutdownRequest& shutdown,
           Client& c) {
  int fds[3] = {-1, -1, -1};
  nlohmann::json request;
  int code = kExitUsage;
  std::string shutdown_mode;  // the SHUTDOWN this session asked for
  const bool received = ReceiveRequest(c.socket, fds, &request);
  c.reading.store(received);
  if (!received) {
    std::cerr << fmt::format(
        "session {}: no request came (the client gave up, or is not a cellsim client)\n", c.id);
  }
  if (received) {
    // Output nobody reads any more (`cellsim sql ... | head`) ends the
    // session as SIGPIPE ends a process writing it.
    const auto broken = [&c](int error) {
      if (error == EPIPE) c.interrupts.Raise(SIGPIPE, "its closed output (SIGPIPE)");
    };
    FdOStream out(fds[1], broken), err(fds[2], broken);
    // A field of the wrong type is the client's error, not the instance's end.
    const auto field = [&request](const char* key, const auto& otherwise) {
      using T = std::decay_t<decltype(otherwise)>;
      const auto it = request.find(key);
      const bool fits = it != request.end() &&
                        (std::is_same_v<T, std::string> ? it->is_string() : it->is_number_integer());
      return fits ? it->template get<T>() : otherwise;
    };
    Console console{.in = fds[0], .out = &out, .err = &err, .err_fd = fds[2],
                    .interrupts = &c.interrupts, .cwd = field("cwd", std::string()),
                    .shutdown = [&shutdown, &c](const std::string& mode) {
                      absl::Status asked = shutdown.Request(&c, mode);
                      if (asked.ok()) {
                        std::cerr << fmt::format(
                            "session {}: SHUTDOWN {}{}\n", c.id, mode,
                            mode == "NORMAL" ? " (new sessions are refused; waiting for the "
                                               "others to end)"
                            : mode == "TRANSACTIONAL"
                                ? " (new sessions and new transactions are refused; waiting "
                                  "for the open transactions to end)"
                                : "");
                      }
                      return asked;
                    },
                    // Once this session's run has let its db::Session go.
                    .close = [&shutdown, &c](const std::string& mode) {
                      (void)shutdown.Ended(&c);
                      absl::Status closed = shutdown.WaitClosed(&c, *c.interrupts.flag());
                      if (closed.code() == absl::StatusCode::kCancelled) {
                        std::cerr << fmt::format(
                            "session {}: SHUTDOWN {} withdrawn ({}): new sessions and "
                            "transactions are taken again\n",
                            c.id, mode, c.interrupts.cause());
                      }
                      return closed;
                    },
                    .startup = [&instance] { return StartupInSession(instance); }};
    using ServeFn = int (*)(lab::RackEnv&, const std::string&, pid_t, Console&);
    const std::string command = field("command", std::string());
    std::cerr << fmt::format("session {}: cellsim {:.40}\n", c.id, command);
    const ServeFn serve = command == "sql"       ? ServeSql
                          : command == "asmcmd"  ? ServeAsmcmd
                          : command == "cellcli" ? ServeCellCli
                          : command == "sqlrun"  ? ServeSqlrun
                          : command == "rack info" ? ServeRackInfo
                          : command == "rack recover" ? ServeRackRecover
                          : command == "write"   ? ServeWrite
                                                 : nullptr;
    if (shutdown.asked()) {
      code = ReportFailure(console, command,
                           absl::FailedPreconditionError(
                               "ORA-01090: shutdown in progress - connection is not permitted"));
    } else if (field("version", 0) != kWireVersion || serve == nullptr) {
      err << fmt::format("cellsim: the instance (cellsim of wire version {}) cannot run this "
                         "client's request: stop it, or use the cellsim that started it\n",
                         kWireVersion)
          << std::flush;
    } else if (const std::string given = InstanceSettingGiven(field("request", std::string()),
                                                              instance);
               !given.empty()) {
      code = ReportFailure(console, command, absl::InvalidArgumentError(given));
    } else {
      try {
        code = serve(env, field("request", std::string()), c.pid, console);
      } catch (const nlohmann::json::exception& e) {  // a request field of the wrong type
        code = ReportFailure(console, command,
                             absl::InvalidArgumentError(fmt::format(
                                 "the instance cannot read this request: {}", e.what())));
      }
      // Ended by the shutdown (not by its client's own signal, nor done
      // before the shutdown reached it: then its exit code stands).
      if (c.shut_down.load() && code == c.interrupts.ExitCode()) {
        err << "ORA-01089: immediate shutdown or close in progress - no operations are permitted\n"
            << std::flush;
        code = kExitFailure;
      }
      // This session's SHUTDOWN ABORT: its run has ended, the instance ends
      // (the others' close through Console::close, as the run goes on).
      shutdown_mode = shutdown.Ended(&c);
      if (shutdown_mode == "ABORT") out << ShutdownFeedback(shutdown_mode);
    }
    out.flush();
    err.flush();
    for (int fd : fds) close(fd);
  }
  char m[1 + sizeof(int32_t)] = {kExitMsg};
  const int32_t code32 = code;
  std::memcpy(m + 1, &code32, sizeof code32);
  (void)SendAll(c.socket, m, sizeof m);
  std::cerr << fmt::format("session {}: ended (exit {})\n", c.id, code);
  if (shutdown_mode == "ABORT") {  // as kill -9: nothing closed, the next open recovers
    unlink(InstanceSocketPath(instance.dir).c_str());
    std::cerr << fmt::format("Instance ended by SHUTDOWN ABORT (session {}): the next open of {} "
                             "runs instance recovery.\n",
                             c.id, instance.dir)
              << std::flush;
    _exit(0);
  }
  c.done.store(true);
}

// The listening socket at DIR/instance.sock (a stale one replaced: the rack
// lock, which the caller holds, says no other instance serves DIR).
absl::StatusOr<int> Listen(const std::string& dir) {
  sockaddr_un addr;
  int dir_fd = -1;
  if (!SocketAddress(dir, &addr, &dir_fd)) {
    return absl::InternalError(fmt::format("cannot open {}: {}", dir, strerror(errno)));
  }
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  unlink(addr.sun_path);
  const bool ok = fd >= 0 && bind(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0 &&
                  listen(fd, 16) == 0;
  const int saved = errno;
  if (dir_fd >= 0) close(dir_fd);
  if (!ok) {
    if (fd >= 0) close(fd);
    return absl::InternalError(fmt::format("cannot listen on {}: {}", InstanceSocketPath(dir),
                                           strerror(saved)));
  }
  return fd;
}

// Reads what a client sent while its session runs: signals, or its end.
void ReadClient(Client& c) {
  char m[2];
  const ssize_t n = recv(c.socket, m, sizeof m, MSG_DONTWAIT);
  if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
  if (n == 2 && m[0] == kSignalMsg) {
    c.interrupts.Raise(static_cast<unsigned char>(m[1]));
    return;
  }
  if (n == 1 && m[0] == kSignalMsg && RecvAll(c.socket, m + 1, 1, 1000)) {
    c.interrupts.Raise(static_cast<unsigned char>(m[1]));
    return;
  }
  // The client is gone (or spoke nonsense): its session ends, its work undone.
  c.interrupts.Raise(SIGHUP);
  c.reading.store(false);
}

// Whether a session's SHUTDOWN ends the main loop now: IMMEDIATE at once,
// TRANSACTIONAL once no transaction is open (V$TRANSACTION, asked through
// `*probe`, made on first use; the database refuses new ones since the
// request), NORMAL once every other session has ended; and the shutdown
// begins, unless it was withdrawn meanwhile.
bool ShutdownDue(ShutdownRequest& shutdown, const std::list<std::unique_ptr<Client>>& clients,
                 db::Database& db, std::unique_ptr<db::Session>* probe) {
  const Client* by = nullptr;
  const std::string mode = shutdown.pending(&by);
  if (mode != "TRANSACTIONAL") probe->reset();  // (a withdrawn one's)
  bool due = mode == "IMMEDIATE";
  if (mode == "TRANSACTIONAL") {
    if (*probe == nullptr) *probe = db.NewSession();
    absl::StatusOr<db::StatementResult> open =
        (*probe)->Execute("select count(*) from v$transaction");
    due = open.ok() && !open->result_rows.empty() && open->result_rows[0][0] == "0";
  } else if (mode == "NORMAL") {
    due = std::all_of(clients.begin(), clients.end(),
                      [by](const auto& c) { return c.get() == by || c->done.load(); });
  }
  return due && shutdown.BeginPending(by, mode);
}

// Accepts clients and watches them until the instance's own signal or a
// session's SHUTDOWN.
void ServeUntilShutdown(lab::RackEnv& env, const InstanceArgs& instance,
                        ShutdownRequest& shutdown, int listener,
                        std::list<std::unique_ptr<Client>>& clients) {
  int next_id = 1;
  std::unique_ptr<db::Session> probe;  // SHUTDOWN TRANSACTIONAL's
  while (!InterruptFlag()->cancelled() && !ShutdownDue(shutdown, clients, *env.db, &probe)) {
    std::vector<pollfd> pf{{listener, POLLIN, 0}};
    std::vector<Client*> polled;
    for (auto it = clients.begin(); it != clients.end();) {
      if ((*it)->done.load()) {  // reap
        (*it)->thread.join();
        it = clients.erase(it);
        continue;
      }
      if ((*it)->reading.load()) {
        pf.push_back({(*it)->socket, POLLIN, 0});
        polled.push_back(it->get());
      }
      ++it;
    }
    const int ready = poll(pf.data(), pf.size(), /*timeout_ms=*/100);
    if (ready <= 0) continue;
    for (size_t i = 1; i < pf.size(); ++i) {
      if (pf[i].revents != 0) ReadClient(*polled[i - 1]);
    }
    if ((pf[0].revents & POLLIN) == 0) continue;
    const int fd = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    ucred peer{};
    socklen_t len = sizeof peer;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &len) != 0 || peer.uid != geteuid()) {
      close(fd);  // only the instance's own user runs sessions in it
      continue;
    }
    auto c = std::make_unique<Client>(fd, next_id++, peer.pid);
    std::cerr << fmt::format("session {}: pid {} connected\n", c->id, peer.pid);
    Client& ref = *c;
    c->thread = std::thread(
        [&env, &instance, &shutdown, &ref] { Serve(env, instance, shutdown, ref); });
    clients.push_back(std::move(c));
  }
}

void RunInstance(const InstanceArgs& a, CommandContext& ctx) {
  const std::string cmd = "instance";
  signal(SIGPIPE, SIG_IGN);  // a client gone mid-write is an EPIPE, not the instance's end
  InterruptScope interrupts;
  // Listening before the database opens (its creation may take a while):
  // a client that comes meanwhile waits in the queue, not for the lock.
  int listener = -1;
  std::optional<RackEnv> env = OpenRackAndDatabase(
      a.dir, a.rack, a.database, cmd, ctx, [&]() -> absl::Status {
        absl::StatusOr<int> fd = Listen(a.dir);
        if (!fd.ok()) return fd.status();
        listener = *fd;
        return absl::OkStatus();
      });
  if (!env.has_value()) {
    if (listener >= 0) {
      close(listener);
      unlink(InstanceSocketPath(a.dir).c_str());
    }
    return;
  }
  std::cerr << fmt::format(
      "Instance {} started (pid {}, clock: {}): `cellsim sql|sqlrun|asmcmd|cellcli|write|rack "
      "info {}` run in it. Ctrl-C or kill {} shuts it down (SHUTDOWN IMMEDIATE).\n",
      env->db->name(), getpid(), env->io.ClockDescription(), a.dir, getpid());
  std::list<std::unique_ptr<Client>> clients;
  ShutdownRequest shutdown(env->db.get());
  ServeUntilShutdown(*env, a, shutdown, listener, clients);
  close(listener);
  unlink(InstanceSocketPath(a.dir).c_str());
  std::string mode;
  const Client* by = shutdown.Begin(&mode);  // the session that asked, which goes on
  if (mode.empty()) mode = "IMMEDIATE";      // a signal's
  // The cause each ended session names ("ended by SHUTDOWN TRANSACTIONAL").
  const char* cause = mode == "NORMAL"          ? "SHUTDOWN NORMAL"
                      : mode == "TRANSACTIONAL" ? "SHUTDOWN TRANSACTIONAL"
                                                : "SHUTDOWN IMMEDIATE";
  size_t cancelled = 0;
  for (auto& c : clients) {
    if (c.get() == by || c->done.load()) continue;  // ended on its own: not the shutdown's
    c->shut_down.store(true);  // before the signal its session answers
    c->interrupts.Raise(SIGTERM, cause);
    ++cancelled;
  }
  std::cerr << fmt::format(
      "Instance {}: shutting down ({}{}): {} session(s) ended{}\n", env->db->name(), cause,
      by == nullptr ? std::string() : fmt::format(" by session {}", by->id), cancelled,
      cancelled == 0             ? ""
      : mode == "TRANSACTIONAL" ? " once V$TRANSACTION was empty"
                                : ", their open transactions rolled back");
  for (auto& c : clients) {
    if (c.get() != by) c->thread.join();
  }
  const absl::Status closed = env->Close();
  if (closed.ok()) {
    std::cerr << fmt::format("Instance shut down: the rack in {} is closed{}.\n", a.dir,
                             by == nullptr ? std::string()
                                           : fmt::format(" (session {} goes on without a "
                                                         "database until it ends)",
                                                         by->id))
              << std::flush;
  }
  shutdown.Closed(closed);  // the session that asked says so, or the close's error
  for (auto& c : clients) {
    if (c.get() == by) c->thread.join();
  }
  clients.clear();
  if (!closed.ok()) return Fail(ctx, cmd, closed);
  ctx.exit_code = 0;  // stopping it by a signal is how it ends
}

}  // namespace

void RegisterInstance(CLI::App& app, CommandContext& ctx) {
  auto [instance, args] = AddCommand<InstanceArgs>(
      app, ctx, "instance",
      "Start an instance on rack DIR: one process that keeps the database open and serves "
      "`cellsim sql DIR` from other terminals as sessions of one database (read consistency, "
      "row locks, waits), until Ctrl-C or kill (SHUTDOWN IMMEDIATE); see docs/cli.md",
      RunInstance);
  AddRackDirArgument(instance, &args->dir);
  AddDatabaseFlags(instance, &args->database);
  AddRackOptions(instance, &args->rack);
}

}  // namespace cellsim::cli
