// `cellsim instance DIR`: one process that owns a rack and its database and
// serves sessions, as an Oracle instance serves SQL*Plus. While it runs,
// `cellsim sql DIR` does not open the rack itself: it connects to the
// instance through DIR/instance.sock (an AF_UNIX socket), hands it its
// standard input, output and error (SCM_RIGHTS) and its options, and the
// instance runs the statements in a session of its own on a thread of its
// own. So two terminals are two sessions of one database: one sees what the
// other committed and not what it has not (read consistency), and one waits
// for a row the other holds (enq: TX - row lock contention) until it commits,
// rolls back or presses Ctrl-C. `cellsim sqlrun DIR` (its sessions),
// `cellsim asmcmd DIR`, `cellsim cellcli DIR`, `cellsim write DIR` and
// `cellsim rack info|recover DIR` run in it the same way.
//
// The wire (one connection per client run, both ends this binary):
//   client -> instance: u32 length + the three descriptors (SCM_RIGHTS),
//                       then `length` bytes of JSON {"version", "command"
//                       (sql, sqlrun, asmcmd, cellcli, write, "rack info",
//                       "rack recover"), "request" (the command's
//                       options, JSON text), "cwd"}; later 'I' + u8 signal for each
//                       signal the client gets (Ctrl-C: SIGINT).
//   instance -> client: 'F' when the session has handled the last signal
//                       (the client forgets it), then 'X' + i32 exit code.
// A client that disappears (its socket ends) is a SIGHUP: its statement is
// cancelled and its transaction rolled back, as PMON does for a dead
// session. SIGINT or SIGTERM to the instance is SHUTDOWN IMMEDIATE: every
// running statement is cancelled, every open transaction rolled back, each
// client told ORA-01089, and the database and rack close cleanly; kill -9
// leaves the next open instance recovery, and its clients ORA-03113. A
// session's SQL*Plus SHUTDOWN does the same from inside: IMMEDIATE as
// SIGTERM, NORMAL after the other sessions have ended (new ones refused:
// ORA-01090), TRANSACTIONAL once V$TRANSACTION is empty, ABORT as kill -9
// once its own client has its answer. The asking session (but ABORT's)
// goes on without a database (ORA-01034) until it ends; the process then
// ends.
#ifndef CELLSIM_CLI_INSTANCE_H_
#define CELLSIM_CLI_INSTANCE_H_

#include <sys/types.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cellsim/cli/rack_env.h"
#include "nlohmann/json.hpp"

namespace cellsim::cli {

// The instance's socket in a rack directory.
std::string InstanceSocketPath(const std::string& dir);

// A connection to the instance serving a rack. Move-only; owns its socket.
class InstanceClient {
 public:
  // Connects to the instance serving `dir`; nullopt when none answers (no
  // socket, or one an instance killed with -9 left behind).
  static std::optional<InstanceClient> Connect(const std::string& dir);
  InstanceClient(InstanceClient&& o) noexcept;
  InstanceClient& operator=(InstanceClient&&) = delete;
  InstanceClient(const InstanceClient&) = delete;
  ~InstanceClient();

  pid_t instance_pid() const { return pid_; }
  uid_t instance_uid() const { return uid_; }

  // Runs `command` ("sql"; `request`: its options as JSON; `cwd`: where its
  // relative paths start) in the instance with this process's standard
  // input, output and error, forwarding the signals an InterruptScope (which
  // the caller keeps alive) catches. Returns the exit code the command ends
  // with; 1 (after saying ORA-03113 on stderr) when the instance ends first.
  int Run(const std::string& command, const std::string& request, const std::string& cwd);

 private:
  InstanceClient(int fd, pid_t pid, uid_t uid, std::string dir)
      : fd_(fd), pid_(pid), uid_(uid), dir_(std::move(dir)) {}
  int fd_ = -1;
  pid_t pid_ = 0;
  uid_t uid_ = 0;
  std::string dir_;
};

// `cellsim COMMAND` ("sql", "sqlrun", "asmcmd", "cellcli", "write", "rack
// info", "rack recover"; `request`: its options as JSON, which the
// command's Serve function reads) run by the instance serving `dir`, if one
// does: the exit code it ends with (2, said on
// stderr, when `rack` sets options that are the instance's; 1 when the
// instance is another user's: only its own user's commands run in it); nullopt when
// no instance serves `dir` (the caller opens the rack itself). Relative
// paths in `request` are the caller's: they start from its folder, which is
// sent along.
std::optional<int> RunInInstance(const std::string& dir, const RackOptions& rack,
                                 const std::string& command, const std::string& request);

// The database flags in a command's request, as nlohmann::json converts
// them (`--all-objects-rows` null when the client did not give it: the
// instance's applies). from_json throws nlohmann::json::type_error for a
// field of the wrong type. A command's arguments (WriteArgs, SqlArgs, ...)
// convert with NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT: one list of
// the fields a client sends, a missing one taking its default.
void to_json(nlohmann::json& j, const DatabaseFlags& flags);
void from_json(const nlohmann::json& j, DatabaseFlags& flags);

// A request's list of strings `key` (a command's -e texts); nullopt when
// `request` is not an object holding one.
std::optional<std::vector<std::string>> StringsOf(const nlohmann::json& request,
                                                  const std::string& key);

}  // namespace cellsim::cli

#endif  // CELLSIM_CLI_INSTANCE_H_
