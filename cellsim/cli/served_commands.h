// What the commands lend `cellsim instance` (instance.cc): each runs the
// same work as on its own, on a client's console and on the instance's open
// rack and database instead of its own. Each is called on a thread of its
// own per client with the request its client's InstanceClient::Run sent (its
// options as JSON) and returns the exit code the client's command ends with;
// the rack and database are shared (they are thread-safe).
#ifndef CELLSIM_CLI_SERVED_COMMANDS_H_
#define CELLSIM_CLI_SERVED_COMMANDS_H_

#include <sys/types.h>

#include <functional>
#include <optional>
#include <ostream>
#include <string>

#include "cellsim/cli/commands.h"
#include "cellsim/cli/console.h"
#include "cellsim/cli/rack_env.h"

namespace cellsim::cli {

// The rack in `dir` opened for writing, under its lock, then its database
// (created when the rack has none, with the standard files and ALL_OBJECTS
// rows asked for), what the open did said on stderr (ReportOpen);
// `between`, if given, runs between the two (the instance starts listening
// there). nullopt after an error, said as Fail says it, with ctx's exit code
// (128 + signal when a signal ended the lock wait).
std::optional<RackEnv> OpenRackAndDatabase(const std::string& dir, const RackOptions& rack,
                                           const DatabaseFlags& flags,
                                           const std::string& command, CommandContext& ctx,
                                           const std::function<absl::Status()>& between = nullptr);
// OpenRackAndDatabase's work, but what the open did said on `report`: the
// rack and database, or the error (a Cancelled one: a signal ended the lock
// wait).
absl::StatusOr<RackEnv> OpenDatabaseEnv(const std::string& dir, const RackOptions& rack,
                                        const DatabaseFlags& flags, std::ostream& report,
                                        const std::function<absl::Status()>& between = nullptr);

// What SQL*Plus prints once SHUTDOWN `mode` is done ("Database closed.
// ...", or for ABORT "ORACLE instance shut down.").
std::string ShutdownFeedback(const std::string& mode);

// What opening `db` did, as `cellsim sql` says it: "Database ORCL created
// ...", the standard files asked for too late, each recovery action.
void ReportOpen(const db::Database& db, bool created, bool standard_files, std::ostream& out);

// `cellsim sql` (sql_cmd.cc) in a new session of env.db; `client_pid` is
// V$SESSION's PROCESS. The session waits for the rows other sessions hold,
// as Oracle's do.
int ServeSql(lab::RackEnv& env, const std::string& request, pid_t client_pid, Console& console);
// `cellsim asmcmd` (asmcmd_cmd.cc) on env.rack; `cp`'s local file is the
// client's (relative to its folder).
int ServeAsmcmd(lab::RackEnv& env, const std::string& request, pid_t client_pid,
                Console& console);
// `cellsim sqlrun` (sqlrun_cmd.cc): its sessions are the instance's, beside
// the others (its paths are the client's, made absolute by it).
int ServeSqlrun(lab::RackEnv& env, const std::string& request, pid_t client_pid,
                Console& console);
// `cellsim cellcli` (cellcli_cmd.cc) on env.rack's cells.
int ServeCellCli(lab::RackEnv& env, const std::string& request, pid_t client_pid,
                 Console& console);

// `cellsim write` (write_cmd.cc) on env.rack beside the sessions: each
// acknowledged write on the client's output; the client's signal (or its
// end) stops it.
int ServeWrite(lab::RackEnv& env, const std::string& request, pid_t client_pid,
               Console& console);
// `cellsim rack info` (rack_cmd.cc): the rack as the instance has it open,
// and the instance.
int ServeRackInfo(lab::RackEnv& env, const std::string& request, pid_t client_pid,
                  Console& console);
// `cellsim rack recover` (rack_cmd.cc): nothing to do (the instance's open
// recovered the rack); what that open did.
int ServeRackRecover(lab::RackEnv& env, const std::string& request, pid_t client_pid,
                     Console& console);

}  // namespace cellsim::cli

#endif  // CELLSIM_CLI_SERVED_COMMANDS_H_
