// Private: the state behind Database and Session, shared by database.cc
// (create, open, recovery), session.cc (Execute, ALTER SESSION) and ddl.cc
// (the file statements).
#ifndef CELLSIM_DB_DATABASE_STATE_H_
#define CELLSIM_DB_DATABASE_STATE_H_

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cellsim/base/mutex.h"
#include "cellsim/db/accounting.h"
#include "cellsim/db/control_file.h"
#include "cellsim/db/database.h"
#include "cellsim/db/date_format.h"
#include "cellsim/db/library_cache.h"

namespace cellsim::db {

namespace internal {
struct DataEngine;
struct SessionData;
}  // namespace internal

struct Database::State {
  asmgr::Rack* rack = nullptr;
  Clock* clock = nullptr;
  DatabaseOptions options;
  // Where the control files are (or go): DB_CREATE_FILE_DEST's disk group,
  // then DB_RECOVERY_FILE_DEST's when the rack has it (NewState).
  std::vector<asmgr::DiskGroup*> cf_dgs;

  // Oracle-managed files (OMF): the disk group a file without a name goes to
  // (DB_CREATE_FILE_DEST, "DATA"), and the recovery area's (DB_RECOVERY_
  // FILE_DEST, "RECO"; "" when the rack has no second group), where an
  // unnamed online log gets its second member and ARCH archives.
  const std::string& create_file_dest() const { return cf_dgs.front()->name(); }
  std::string recovery_file_dest() const {
    return cf_dgs.size() > 1 ? cf_dgs[1]->name() : std::string();
  }

  // Guards `table` and `cf`. Held while a statement validates and reserves
  // (CREATING entries), and while the control file is read and written; never
  // while files are formatted, so sessions create files concurrently. The
  // data engine reads the file table with its own mutex held: order
  // DataEngine::mu, then mu (stated on DataEngine::mu).
  mutable Mutex mu;
  FileTable table ABSL_GUARDED_BY(mu);
  std::unique_ptr<internal::ControlFile> cf ABSL_GUARDED_BY(mu);
  std::vector<std::string> recovery_actions ABSL_GUARDED_BY(mu);

  stats::StatSet sys_stats;
  stats::WaitSet sys_waits;         // every wait (V$SYSTEM_EVENT)
  stats::WaitSet background_waits;  // the instance's own (LGWR, DBWR, ARCH, open): not _FG
  int64_t startup_unix = 0;         // when this instance started (V$INSTANCE.STARTUP_TIME)
  internal::LibraryCache library_cache;  // V$SQL, V$SESSION.SQL_ID (its own leaf mutex)
  std::atomic<uint32_t> next_sid{1};
  std::atomic<bool> refuse_new_transactions{false};  // RefuseNewTransactions
  std::atomic<int> sessions{0};
  // Tables, undo, redo (data_engine.h), made at the first data statement.
  Mutex engine_mu;
  std::shared_ptr<internal::DataEngine> engine ABSL_GUARDED_BY(engine_mu);

  // The data engine if a data statement has made it, else null; the caller
  // then takes DataEngine::mu itself.
  std::shared_ptr<internal::DataEngine> CurrentEngine() ABSL_LOCKS_EXCLUDED(engine_mu) {
    MutexLock lock(&engine_mu);
    return engine;
  }

  internal::Recorder SystemRecorder() {
    return internal::Recorder(clock, nullptr, &background_waits, nullptr, &sys_stats,
                              &sys_waits);
  }
};

struct Session::State {
  Database::State* db = nullptr;
  uint32_t sid = 0;
  int64_t logon_unix = 0;  // V$SESSION.LOGON_TIME
  std::string program = "cellsim", process;  // V$SESSION.PROGRAM, PROCESS (SetClient)
  stats::StatSet stats;
  stats::WaitSet waits;
  stats::WaitHistory wait_history;  // V$SESSION_WAIT_HISTORY, the trace's WAIT lines
  bool cell_fast_file_create = true;
  bool fast_file_create_metadata = true;
  std::map<std::string, std::string> parameters;
  // NLS_DATE_FORMAT and the timestamp formats (ALTER SESSION SET), the
  // calling thread's while a statement of the session runs.
  internal::NlsFormats nls;
  ProgressCallback progress;
  std::shared_ptr<internal::SessionData> data;  // transaction, GTT segments (data_engine.h)
  const CancelFlag* cancel = nullptr;  // SetCancelFlag
  std::chrono::nanoseconds row_lock_wait = kNoRowLockWait;  // SetRowLockWait
  // Time statistics are centiseconds: keep the exact sums and add the
  // difference of their roundings, so no fraction is lost across statements.
  uint64_t cpu_ns = 0, db_time_ns = 0;
  int64_t cpu_cs = 0, db_time_cs = 0;
  // The current call's idle waits so far (DBMS_SESSION.SLEEP): in its
  // elapsed time, not in DB time.
  uint64_t call_idle_ns = 0;

  internal::Recorder MakeRecorder() {
    return internal::Recorder(db->clock, &stats, &waits, &wait_history, &db->sys_stats,
                              &db->sys_waits);
  }
};

namespace internal {

// CPU of the calling thread: the foreground's CPU, as Oracle's "CPU used by
// this session" (the cells' and ASM's helper threads are not the session)
// and DBMS_UTILITY.GET_CPU_TIME.
uint64_t ThreadCpuNs();

// What a statement did beyond statistics: for the result.
struct ExecOutcome {
  int64_t current = 0;  // file-table entries changed
  std::vector<FileCreation> files;
  // What the statement reports beside its acknowledgement (StatementResult's
  // fields of the same names): SCRUB's findings.
  std::string feedback;
  std::vector<std::string> headings;
  std::vector<bool> numeric_columns;
  std::vector<std::vector<std::string>> result_rows;
};

// The DDL statements (ddl.cc). Each runs to completion or leaves no trace.
[[nodiscard]] absl::Status RunAddLogfile(Session::State& s, const AddLogfile& st,
                                         ExecOutcome* out);
[[nodiscard]] absl::Status RunDropLogfileGroup(Session::State& s, const DropLogfileGroup& st,
                                               ExecOutcome* out);
[[nodiscard]] absl::Status RunCreateTablespace(Session::State& s, const CreateTablespace& st,
                                               ExecOutcome* out);
[[nodiscard]] absl::Status RunAddDatafile(Session::State& s,
                                          const AlterTablespaceAddDatafile& st,
                                          ExecOutcome* out);
// ALTER DATABASE DATAFILE|TEMPFILE ... RESIZE (ddl.cc, "Resizing a file").
[[nodiscard]] absl::Status RunResizeDataFile(Session::State& s, const ResizeDataFile& st,
                                             ExecOutcome* out);
// Database::Open: a data file whose ASM file is not as long as the control
// file records was being resized when the instance stopped: it gets the
// recorded size back, blocks 0-1 first (ddl.cc).
[[nodiscard]] absl::Status RecoverResizes(Database::State& db, Recorder& rec)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(db.mu);
[[nodiscard]] absl::Status RunDropTablespace(Session::State& s, const DropTablespace& st,
                                             ExecOutcome* out);
// ALTER DISKGROUP ... ONLINE/OFFLINE (disk_state.cc).
[[nodiscard]] absl::Status RunAlterDiskgroupDisks(Session::State& s,
                                                  const AlterDiskgroupDisks& st);
// ALTER DISKGROUP ... SCRUB (disk_state.cc): its findings in `out`.
[[nodiscard]] absl::Status RunScrubDiskgroup(Session::State& s, const ScrubDiskgroup& st,
                                             ExecOutcome* out);

// ORA-15001 for a disk group the rack does not have.
[[nodiscard]] absl::StatusOr<asmgr::DiskGroup*> FindDiskGroup(asmgr::Rack* rack,
                                                              const std::string& name);

}  // namespace internal
}  // namespace cellsim::db

#endif  // CELLSIM_DB_DATABASE_STATE_H_
