// Database and Session: the instance side of cellsim. A Database lives on an
// ASM rack (asmgr::Rack): its control file (two copies in +DATA, 16 KiB blocks)
// holds the file table, and every change to the table is written to both
// copies before a statement returns. Sessions run the supported DDL (see
// statement.h), creating, formatting and dropping data files and online redo
// logs through ASM by one of Oracle's three creation paths (domain.md §2):
//
//   zero-fill  the database generates every formatted block and writes it,
//              mirrored by ASM, in large pipelined requests ("Log file init
//              write" / "Data file init write");
//   smart      one format-range request per extent copy, the cell writes the
//              blocks ("cell smart file creation");
//   fast       one format-range request per extent copy, the write-back cell
//              persists only the template (same wait, few and short).
//
// Each session counts Oracle statistics and wait events (v$mystat,
// v$session_event); the Database adds every increment to its instance-wide
// sums too (v$sysstat, v$system_event). docs/statistics.md gives every rule,
// docs/db.md the control-file format, the creation engine and the error codes.
//
// Usage:
//   ASSERT_OK_AND_ASSIGN(auto rack, asmgr::Rack::Create(io, clock, dir, cfg));
//   ASSERT_OK_AND_ASSIGN(auto db, db::Database::Create(rack.get()));
//   std::unique_ptr<db::Session> s = db->NewSession();
//   ASSERT_OK_AND_ASSIGN(db::StatementResult r, s->Execute(
//       "alter database add logfile thread 2 group 5 ('+DATA','+RECO') size 64m"));
//   // r.path == "fast" on a write-back rack; r.statistics[Stat::k...] deltas
//   ASSERT_OK(db->Close());
//   db = *db::Database::Open(rack.get());   // after a restart or a crash
//
// Thread-safety: Database methods may be called from any thread. A Session is
// used by one thread at a time (like an Oracle session); different sessions may
// run statements concurrently. Sessions must be destroyed before their
// Database, and the Database before its Rack.
#ifndef CELLSIM_DB_DATABASE_H_
#define CELLSIM_DB_DATABASE_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cellsim/asm/rack.h"
#include "cellsim/base/cancel.h"
#include "cellsim/db/file_table.h"
#include "cellsim/db/statement.h"
#include "cellsim/stats/statistics.h"

namespace cellsim::db {

// Names of the creation paths, as results, reports and JSON spell them.
inline constexpr std::string_view kPathZeroFill = "zero-fill";
inline constexpr std::string_view kPathSmart = "smart";
inline constexpr std::string_view kPathFast = "fast";

// The release the database answers as: V$VERSION.BANNER, V$INSTANCE.VERSION,
// a 10046 trace file's header.
inline constexpr std::string_view kOracleBanner =
    "Oracle Database 19c Enterprise Edition Release 19.0.0.0.0 - Production";
inline constexpr std::string_view kOracleVersion = "19.0.0.0.0";

enum class CreationPath : uint8_t { kZeroFill, kSmart, kFast };
std::string_view CreationPathName(CreationPath p);  // kPathZeroFill, ...

// How the zero-fill path writes (docs/db.md "zero-fill"). The defaults keep
// 2 batches of 64 x 1 MiB in flight (each batch mirrored by ASM to every copy,
// all cells at once) while the next batch is generated. Larger batches mean
// fewer cell-side syncs; measured on this project's test machine, 64 x 1 MiB
// with 2 in flight wrote fastest (docs/db.md gives the figures).
struct ZeroFillOptions {
  uint64_t request_bytes = 1 << 20;  // one write request (Oracle's 1 MiB init writes)
  uint32_t requests_per_batch = 64;  // requests per DiskGroup::Write (one wait each)
  uint32_t batches_in_flight = 2;    // concurrent DiskGroup::Write calls
};

// How the foreground's waits for creation I/O are recorded: only when it must
// block for a reply, as Oracle's foreground does with asynchronous I/O
// (docs/statistics.md "Waits by blocking"). The real requests run as fast as
// cellsim's pipeline allows; this model decides which replies the foreground
// would have blocked for, and the measured time of the real formatting is
// spread over those waits in proportion to the model's wait lengths. Every
// value here is inferred or calibrated (fidelity.md §2, §5 [I]).
struct CreationWaitOptions {
  // Creation requests the foreground keeps in flight per cell; it reaps the
  // replies in the order it sent the requests.
  uint32_t cell_window = 1;
  // Foreground CPU to build, send and reap one creation request (the seed's
  // 0.37 s of CPU for 4,104 requests).
  uint64_t foreground_ns_per_request = 90'000;
  // A cell's mean service time per request: fast creation (metadata) and smart
  // creation (bytes written to disk); exponentially distributed.
  double fast_requests_per_sec_per_cell = 624;
  double smart_bytes_per_sec_per_cell = 0.9e9;
  // Zero-fill: formatting writes in flight (_db_file_format_io_buffers = 4)
  // and the latency of one mirrored 1 MiB write, per file kind.
  uint32_t init_writes_in_flight = 4;
  uint64_t log_init_write_ns = 16'700'000;
  uint64_t data_init_write_ns = 10'000'000;
  // Seed of the service-time draws (the figures are the same on every run).
  uint64_t seed = 0x636f756e74;
};

// Control files: where they are, and the control-file transactions a creating
// statement runs (docs/statistics.md "Control-file transactions").
struct ControlFileOptions {
  // DB_RECOVERY_FILE_DEST: with DB_CREATE_FILE_DEST (control_file_disk_group)
  // Oracle's OMF puts one control file in each [S]. When this group does not
  // exist in the rack (or is empty, or the same), cellsim keeps two control
  // files in control_file_disk_group, so that one always survives a torn write.
  std::string recovery_disk_group = "RECO";
  // A creating statement of M files runs M + extra_transactions control-file
  // transactions; each writes writes_per_transaction blocks to every control
  // file (one `control file parallel write` each: begin and commit) and
  // reads reads_per_transaction blocks first; the statement starts with
  // statement_reads reads of the last control file. The seed's ADD LOGFILE
  // with 2 members gives W = 2(2+3) = 10, R = 3 + 4 x 5 = 23 [I: fitted to
  // one data point, fidelity.md §3].
  uint32_t extra_transactions = 3;
  uint32_t writes_per_transaction = 2;
  uint32_t reads_per_transaction = 4;
  uint32_t statement_reads = 3;
  // ALTER DATABASE DATAFILE|TEMPFILE ... RESIZE changes one entry: one
  // transaction (after the statement's reads) [I: no trace of a resize's
  // control-file I/O is published].
  uint32_t resize_transactions = 1;
};

struct DatabaseOptions {
  std::string db_name = "ORCL";              // up to 8 characters, as Oracle's DB_NAME
  std::string control_file_disk_group = "DATA";
  ZeroFillOptions zero_fill;
  CreationWaitOptions creation_waits;
  ControlFileOptions control_files;
  // Smart path: extents per DiskGroup::FormatFile call (progress is reported
  // after each) and format-range requests per CellService::FormatRange call
  // (one `cell smart file creation` wait each; 0: all of a cell's requests of
  // the call in one batch). Every FormatRange call ends with a sync on the
  // cell, so large calls are much faster than Oracle-like small ones.
  uint32_t smart_extents_per_call = 256;
  uint32_t smart_requests_per_format = 0;
  // The smallest online log member ADD LOGFILE accepts (ORA-00336): Oracle's
  // 4 MiB. Tests of tiny racks lower it (never below 2 blocks).
  uint64_t min_log_file_bytes = 4 << 20;
  // Fast path: requests per FormatRange call (0: each cell's requests of a
  // file in one call, so a member costs one synced metadata record per cell).
  uint32_t fast_requests_per_format = 0;
  // DB_CREATE_ONLINE_LOG_DEST_1..5: the disk groups ("DATA", without '+')
  // where an online log added without members (Oracle-managed, ALTER
  // DATABASE ADD LOGFILE SIZE 1G) has one member each. Empty: one in
  // DB_CREATE_FILE_DEST (control_file_disk_group) and one in
  // DB_RECOVERY_FILE_DEST (control_files.recovery_disk_group) when the rack
  // has it. (Oracle also puts the control files there; cellsim keeps them
  // where control_file_disk_group and recovery_disk_group say.)
  std::vector<std::string> online_log_dests;
  // LOG_ARCHIVE_DEST_1 ('LOCATION=+RECO'): the disk group ARCH archives
  // into in ARCHIVELOG mode. Empty: the recovery area (DB_RECOVERY_FILE_DEST,
  // Exadata's USE_DB_RECOVERY_FILE_DEST); a database without either cannot
  // archive (ORA-19802).
  std::string archive_dest;
  // The standard files of CREATE DATABASE, made by Create through the
  // creation engine (docs/redo.md "Storage layout"), Oracle-managed:
  // SYSTEM, SYSAUX, UNDOTBS1, TEMP and USERS in DB_CREATE_FILE_DEST (+DATA),
  // and thread 1's online log groups 1-3, their members where an unnamed
  // log's go (+DATA and +RECO, see online_log_dests). Off by
  // default: a bare database holds only its control files (the file-creation
  // labs add their own groups 1-3).
  struct StandardFiles {
    bool create = false;
    uint64_t system_bytes = 16ull << 20;
    uint64_t sysaux_bytes = 16ull << 20;
    uint64_t undo_bytes = 64ull << 20;
    uint64_t temp_bytes = 64ull << 20;
    uint64_t users_bytes = 64ull << 20;
    uint64_t log_bytes = 32ull << 20;
  } standard_files;
  // Rows of the built-in ALL_OBJECTS view (a 19c PDB user sees about 70,000).
  uint64_t all_objects_rows = 70000;
};

// Progress of one file's formatting (the CLI draws a bar from it).
struct CreationProgress {
  std::string file;          // ASM file name
  CreationPath path = CreationPath::kZeroFill;
  uint64_t bytes_done = 0;   // file bytes formatted so far (every copy written)
  uint64_t bytes_total = 0;  // file size
};
using ProgressCallback = std::function<void(const CreationProgress&)>;

// tkprof's call-table line for one call kind.
struct CallStats {
  int64_t count = 0;
  uint64_t cpu_ns = 0;
  uint64_t elapsed_ns = 0;
  // Buffers gotten in current mode (`db block gets`): a data statement's
  // blocks changed, a file-creation statement's file-table entries changed
  // (docs/statistics.md "Logical reads").
  int64_t current = 0;
  int64_t rows = 0;
  int64_t disk = 0;   // blocks read into the buffer cache (`physical reads`)
  int64_t query = 0;  // buffers gotten for consistent read (`consistent gets`)
};

// One file a statement created.
struct FileCreation {
  std::string name;            // ASM file name
  CreationPath path = CreationPath::kZeroFill;
  std::string path_reason;     // why this path ("all 3 cells of +DATA are WriteBack")
  uint64_t size_bytes = 0;     // logical bytes formatted
  uint32_t copies = 1;         // mirror copies written
  uint64_t format_ns = 0;      // time spent formatting it
};

struct StatementResult {
  std::string statement;  // the SQL text (canonical ToSql form for a parsed Statement)
  std::string kind;       // StatementKind(): "ALTER DATABASE ADD LOGFILE", ...
  // "zero-fill", "smart" or "fast"; "" when no file was created; several
  // distinct paths (a rack with mixed cells) are joined with '+'.
  std::string path;
  std::string path_reason;
  uint64_t elapsed_ns = 0;  // parse + execute, by the database's Clock
  uint64_t cpu_ns = 0;      // CPU of the calling thread (getrusage RUSAGE_THREAD)
  stats::StatValues statistics;  // session statistics delta
  stats::WaitValues waits;       // session wait delta
  // Every wait of the statement in order, with its P1-P3, when the session
  // traces (ALTER SESSION SET sql_trace = TRUE, or events naming 10046);
  // empty otherwise. Its counts and times add up to `waits`.
  std::vector<stats::WaitEvent> wait_events;
  CallStats parse, execute;
  int64_t rows = 0;
  std::vector<FileCreation> files;
  // Data statements: SQL*Plus's feedback line ("70,000 rows created.",
  // "Commit complete.") and a query's result as text.
  std::string feedback;
  std::vector<std::string> headings;
  std::vector<bool> numeric_columns;
  std::vector<std::vector<std::string>> result_rows;
  // What a PL/SQL block wrote with DBMS_OUTPUT.PUT_LINE, line by line
  // (SQL*Plus prints it after the block under SET SERVEROUTPUT ON; a block
  // that fails carries its lines in kDbmsOutputPayload).
  std::vector<std::string> output;
};

// Oracle's error for a cancelled call (Session::SetCancelFlag).
inline constexpr std::string_view kCancelMessage =
    "ORA-01013: user requested cancel of current operation";

// The payload (absl::Status::GetPayload) of the ORA-00054 a statement gets
// when it would change a row another session's open transaction holds: that
// session's sid, in decimal. Oracle would make the statement wait: a session
// does too when told to (Session::SetRowLockWait); else the caller that
// wants it runs the statement again once the holder's transaction has ended
// (the sqlrun driver does, in its modelled time).
inline constexpr char kRowLockHolderPayload[] = "cellsim.row_lock_holder";
// The payload of a PL/SQL block's error when the block wrote DBMS_OUTPUT
// lines before it failed: the lines, each ended by '\n' (SQL*Plus prints
// them after the error under SET SERVEROUTPUT ON).
inline constexpr char kDbmsOutputPayload[] = "cellsim.dbms_output";
// And the holder's transaction, "usn.slot.sequence" in decimal (V$TRANSACTION
// XIDUSN, XIDSLOT, XIDSQN): what Session::RecordRowLockWait names.
inline constexpr char kRowLockTransactionPayload[] = "cellsim.row_lock_transaction";
// And, for SELECT ... FOR UPDATE WAIT n, n in decimal: a caller that waits
// gives up after n seconds with ORA-30006. (FOR UPDATE NOWAIT's ORA-00054
// carries no payload: it is not to be waited for.)
inline constexpr char kRowLockWaitLimitPayload[] = "cellsim.row_lock_wait_limit_s";
// And, when the wait is for a unique key another open transaction wrote or
// deleted (not for the row itself), "4": Oracle waits for that transaction
// in share mode (TX mode 4), not exclusive (6).
inline constexpr char kRowLockModePayload[] = "cellsim.row_lock_mode";

// What such an ORA-00054 says, read from its payloads: for a caller that
// waits (and for Session::RecordRowLockWait).
struct RowLockConflict {
  uint32_t holder_sid = 0;
  // The holder's transaction (V$TRANSACTION XIDUSN, XIDSLOT, XIDSQN).
  uint32_t usn = 0, slot = 0, sequence = 0;
  std::optional<uint32_t> wait_limit_s{};  // SELECT ... FOR UPDATE WAIT n
  // The TX mode the wait asks: 6 (exclusive) for a row, 4 (share) for a
  // unique key (kRowLockModePayload).
  uint32_t mode = 6;
};
// nullopt when `st` is no ORA-00054 of a locked row to be waited for (any
// other error, or FOR UPDATE NOWAIT's).
std::optional<RowLockConflict> RowLockConflictOf(const absl::Status& st);
// The ORA-30006 of a SELECT ... FOR UPDATE WAIT n that waited `waited_ns`
// for session `holder_sid`'s transaction in vain: what the engine's wait
// (Session::SetRowLockWait) and a caller that waits itself both return.
absl::Status ForUpdateWaitExpired(uint32_t holder_sid, uint64_t waited_ns);

// Session::SetRowLockWait's limits: no wait (the default), and Oracle's
// (wait until the holder's transaction ends, however long).
inline constexpr std::chrono::nanoseconds kNoRowLockWait{0};
inline constexpr std::chrono::nanoseconds kRowLockWaitForever = std::chrono::nanoseconds::max();

class Session;

class Database {
 public:
  // Creates the database: two control files (ASM type CONTROLFILE), one in
  // +<control_file_disk_group> and one in +<control_files.recovery_disk_group>
  // (both in the first when the second is missing), formatted and holding an
  // empty file table.
  // Errors: InvalidArgument for a bad name; NotFound (ORA-15001) when the disk
  // group is missing; AlreadyExists when a control file of that database is
  // already there (except the leftovers of a Create cut short: control files
  // holding no valid file table and no other file of the database, which are
  // replaced); ResourceExhausted (ORA-15041) when it does not fit.
  // `rack` must outlive the database.
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<Database>> Create(
      asmgr::Rack* rack, const DatabaseOptions& options = {});
  // Mounts an existing database after a clean close, a restart or a crash:
  // reads both control-file copies, keeps the newest valid table (rewriting a
  // stale or damaged copy), then removes what an interrupted statement left
  // (CREATING entries and ASM files of this database no entry refers to).
  // Errors: NotFound when no control file exists; DataLoss (ORA-00227 /
  // ORA-00202) when no copy holds a valid table.
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<Database>> Open(
      asmgr::Rack* rack, const DatabaseOptions& options = {});

  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  // Every change is already written; Close only checks that no session is
  // left. FailedPrecondition when sessions are still open.
  [[nodiscard]] absl::Status Close();

  std::unique_ptr<Session> NewSession();

  // Does the one-time work an instance that has been open a while has done
  // before a timed workload connects (cellsim sqlrun calls it before its
  // timer starts), so that the workload's first seconds do not pay it: the
  // ALL_OBJECTS rows encoded for the tables made from it (a running
  // instance has the view's dictionary blocks cached) and the pool of block
  // buffers GTT segments reuse allocated and touched (an Exadata instance
  // touches its whole SGA at startup: PRE_PAGE_SGA). Changes nothing a
  // statement, a statistic or the clock shows.
  void WarmUp();

  // SHUTDOWN TRANSACTIONAL's "no client can start a new transaction": from
  // now on a statement that would begin one fails with ORA-01089 (DML of a
  // session not in a transaction; DDL, which commits and runs one of its
  // own, always), so the open transactions end and nothing new delays the
  // shutdown. Queries, COMMIT and ROLLBACK still run, until
  // AcceptNewTransactions (the SHUTDOWN was withdrawn before it ended any
  // session). Thread-safe.
  void RefuseNewTransactions();
  void AcceptNewTransactions();
  bool refuses_new_transactions() const;

  const std::string& name() const;
  asmgr::Rack* rack() const;
  const DatabaseOptions& options() const;
  FileTable file_table() const;             // a copy
  std::vector<std::string> control_files() const;  // ASM names of the two copies
  uint64_t control_file_sequence() const;   // grows with every control-file write
  // What Open() did to recover (empty after Create or a clean open).
  std::vector<std::string> recovery_actions() const;

  // v$sysstat / v$system_event: every session's increments, plus the
  // instance's own work (control-file I/O of Create/Open).
  stats::StatValues SystemStats() const;
  stats::WaitValues SystemWaits() const;

  struct State;

 private:
  explicit Database(std::unique_ptr<State> state);
  std::unique_ptr<State> s_;
  friend class Session;
};

class Session {
 public:
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Parses and runs one statement. Errors carry Oracle-like codes
  // (docs/db.md "Errors"), e.g. "ORA-01184: logfile group 5 already exists",
  // "ORA-15041: disk group RECO space exhausted: ...", "ORA-15001: diskgroup
  // \"FOO\" does not exist or is not mounted"; parse errors are the parser's.
  // A failed statement leaves no file behind and the control file as before;
  // its statistics and waits still count in the session.
  [[nodiscard]] absl::StatusOr<StatementResult> Execute(std::string_view sql);
  // Runs an already parsed statement (no parse call is counted).
  [[nodiscard]] absl::StatusOr<StatementResult> Execute(const Statement& statement);

  uint32_t sid() const;
  // Who the session serves, as V$SESSION shows it: PROGRAM (default
  // "cellsim") and PROCESS, the client's operating-system process id
  // (default: this process's). `cellsim instance` names each client's
  // `cellsim sql` and its pid. Thread-compatible, like Execute.
  void SetClient(std::string program, std::string process);
  // Whether the session has a transaction open (changes not yet committed or
  // rolled back): the destructor rolls it back.
  bool InTransaction() const;
  // Whether that transaction holds changes (or row locks) its end would undo:
  // not after its only statements failed (each undid itself), though it
  // stays open, as Oracle's does.
  bool HasUncommittedChanges() const;
  // v$mystat / v$session_event of this session.
  stats::StatValues Stats() const;
  stats::WaitValues Waits() const;

  // How long a statement of this session waits for a row another session's
  // open transaction holds (each statement, in all; SELECT ... FOR UPDATE
  // WAIT n waits n seconds instead, NOWAIT not at all). kNoRowLockWait, the
  // default: Execute returns that ORA-00054 at once (RowLockConflictOf reads
  // it) for the caller to wait as it likes. Otherwise the statement's changes
  // are undone and it waits, as Oracle's session, for the holder's
  // transaction to end ("enq: TX - row lock contention": in the statement's
  // waits and wait_events, V$LOCK REQUEST 6, V$SESSION BLOCKING_SESSION),
  // then runs again from its start, seeing what the holder committed.
  // It fails with ORA-00060 (deadlock detected) when the holder waits for
  // this session, directly or through others, the moment the wait would
  // close the cycle (the statement undone, the transaction left open, as in
  // Oracle); with the ORA-00054 past `limit`; with ORA-30006 past FOR
  // UPDATE WAIT n; with ORA-01013 when the cancel flag is set. The time is
  // the database's Clock; the limits are wall time. Waiting needs the
  // holder to run on another thread (one thread driving two sessions that
  // wait for each other would wait until `limit`). Thread-compatible.
  void SetRowLockWait(std::chrono::nanoseconds limit);

  // For a caller that waits for row locks itself (the engine does not wait
  // unless SetRowLockWait says so: Execute returns ORA-00054 with
  // kRowLockHolderPayload): records that
  // this session waited `waited_ns`, ending now, for the row lock `conflict`
  // (that ORA-00054) names, as Oracle's session would have: one
  // "enq: TX - row lock contention" wait (wait class Application; P1
  // name|mode = TX in the conflict's mode, 6 for a row and 4 for a unique
  // key, P2 usn<<16 | slot and P3 sequence of the
  // holder's transaction) in the session's and the system's waits and the
  // session's wait history, and its time in DB time. Returns the wait as
  // recorded, which a caller adds to the result of the statement it runs
  // again (Oracle counts the wait inside that call; a 10046 trace lists it
  // among the call's WAIT lines).
  // InvalidArgument when RowLockConflictOf(conflict) is nullopt.
  // Thread-compatible, like Execute.
  [[nodiscard]] absl::StatusOr<stats::WaitEvent> RecordRowLockWait(const absl::Status& conflict,
                                                                   uint64_t waited_ns);

  // Session parameters (ALTER SESSION SET).
  bool cell_fast_file_create() const;      // "_cell_fast_file_create", default TRUE
  bool fast_file_create_metadata() const;  // kFastFileCreateMetadataParameter, default TRUE
  // Other accepted parameters as set ("" if never set).
  std::string Parameter(std::string_view name) const;

  // Called on the executing thread while files are formatted.
  void SetProgressCallback(ProgressCallback callback);

  // A statement that creates files checks `flag` between units of its work
  // (zero-fill batches, smart format calls, each file) and once more before
  // it commits; when set, the statement undoes what it did (files deleted,
  // control file as before) and fails with Cancelled "ORA-01013: user
  // requested cancel of current operation". The flag is not reset by the
  // session. nullptr (the default) turns cancellation off; `flag` must outlive
  // its use.
  void SetCancelFlag(const CancelFlag* flag);

  struct State;

 private:
  friend class Database;
  explicit Session(std::unique_ptr<State> state);
  std::unique_ptr<State> s_;
};

}  // namespace cellsim::db

#endif  // CELLSIM_DB_DATABASE_H_
