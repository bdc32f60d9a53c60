// Database: Create, Open (with recovery of interrupted statements), sessions
// and the instance-wide statistics.
#include "cellsim/db/database.h"

#include <unistd.h>

#include <fmt/format.h>

#include <set>

#include "absl/strings/ascii.h"
#include "cellsim/base/checksum.h"
#include "cellsim/db/data_engine.h"
#include "cellsim/db/database_state.h"

namespace cellsim::db {
namespace {

// Oracle's DB_NAME: 1 to 8 characters, a letter first, then letters, digits,
// '_', '$' or '#'.
absl::StatusOr<std::string> ValidDbName(const std::string& name) {
  bool ok = !name.empty() && name.size() <= 8 && absl::ascii_isalpha(name[0]);
  for (char c : name) {
    ok = ok && (absl::ascii_isalnum(c) || c == '_' || c == '$' || c == '#');
  }
  if (!ok) {
    return absl::InvalidArgumentError(fmt::format(
        "ORA-01501: invalid database name '{}': 1 to 8 letters, digits, _, $ or #, starting "
        "with a letter",
        name));
  }
  return absl::AsciiStrToUpper(name);
}

absl::Status CreateStandardFiles(Database& db);

std::string Key(const std::string& dg, uint32_t number) { return fmt::format("{}/{}", dg, number); }

// After a crash: entries still CREATING belong to a statement that never
// finished; files of this database no entry refers to were made (or being
// dropped) by such a statement. Both go, the control file first.
absl::Status Recover(Database::State& db) ABSL_EXCLUSIVE_LOCKS_REQUIRED(db.mu) {
  internal::Recorder rec = db.SystemRecorder();
  FileTable& t = db.table;
  const FileTable before = t;
  for (const LogGroup& g : t.log_groups) {
    if (g.state == EntryState::kCreating) {
      db.recovery_actions.push_back(fmt::format(
          "log group {} (thread {}) was being created: removed", g.group, g.thread));
    }
  }
  for (const DataFile& f : t.data_files) {
    if (f.state == EntryState::kCreating) {
      db.recovery_actions.push_back(
          fmt::format("data file {} was being created: removed", f.file_number));
    }
  }
  std::erase_if(t.log_groups, [](const LogGroup& g) { return g.state == EntryState::kCreating; });
  std::erase_if(t.data_files, [](const DataFile& f) { return f.state == EntryState::kCreating; });
  std::set<uint32_t> with_files, with_groups;  // tablespaces, threads
  for (const DataFile& f : t.data_files) with_files.insert(f.tablespace);
  for (const LogGroup& g : t.log_groups) with_groups.insert(g.thread);
  std::vector<Tablespace> kept;
  for (Tablespace& ts : t.tablespaces) {
    if (with_files.count(ts.number) != 0) {
      kept.push_back(std::move(ts));
    } else {
      db.recovery_actions.push_back(
          fmt::format("tablespace {} was being created: removed", ts.name));
    }
  }
  t.tablespaces = std::move(kept);
  std::erase_if(t.threads,
                [&](const LogThread& th) { return with_groups.count(th.thread) == 0; });
  if (!(t == before)) {
    if (absl::Status st = db.cf->Write(t, rec); !st.ok()) return st;
  }
  if (absl::Status st = internal::RecoverResizes(db, rec); !st.ok()) return st;
  std::set<std::string> referenced;
  for (const AsmFileRef& r : t.AllFiles()) {
    referenced.insert(Key(absl::AsciiStrToUpper(r.disk_group), r.number));
  }
  for (const AsmFileRef& r : t.kept_files) {
    referenced.insert(Key(absl::AsciiStrToUpper(r.disk_group), r.number));
  }
  for (asmgr::DiskGroup* dg : db.rack->disk_groups()) {
    for (const asmgr::FileInfo& f : dg->ListFiles()) {
      if (absl::AsciiStrToUpper(f.db_name) != t.db_name ||
          f.type == asmgr::FileType::kControlFile ||
          referenced.count(Key(absl::AsciiStrToUpper(dg->name()), f.number)) != 0) {
        continue;
      }
      absl::Status st = rec.Timed(stats::Wait::kKsvMasterWait,
                                  [&] { return dg->DeleteFile(f.number); });
      if (!st.ok()) return st;
      db.recovery_actions.push_back(
          fmt::format("{}: no control-file entry refers to it: deleted", f.name));
    }
  }
  return absl::OkStatus();
}

// The state Create and Open start from: the options with the validated
// (uppercased) database name, and the disk group of the control file.
absl::StatusOr<std::unique_ptr<Database::State>> NewState(asmgr::Rack* rack,
                                                          const DatabaseOptions& options) {
  absl::StatusOr<std::string> name = ValidDbName(options.db_name);
  if (!name.ok()) return name.status();
  auto state = std::make_unique<Database::State>();
  state->rack = rack;
  state->clock = rack->clock();
  state->startup_unix = state->clock->UnixSeconds();
  state->options = options;
  state->options.db_name = *name;
  absl::StatusOr<asmgr::DiskGroup*> dg =
      internal::FindDiskGroup(rack, options.control_file_disk_group);
  if (!dg.ok()) return dg.status();
  state->cf_dgs = {*dg};
  const std::string& reco = options.control_files.recovery_disk_group;
  if (!reco.empty() &&
      absl::AsciiStrToUpper(reco) != absl::AsciiStrToUpper((*dg)->name())) {
    if (absl::StatusOr<asmgr::DiskGroup*> r = rack->disk_group(reco); r.ok()) {
      state->cf_dgs.push_back(*r);
    }
  }
  return state;
}

}  // namespace

Database::Database(std::unique_ptr<State> state) : s_(std::move(state)) {}
Database::~Database() = default;

absl::StatusOr<std::unique_ptr<Database>> Database::Create(asmgr::Rack* rack,
                                                           const DatabaseOptions& options) {
  if (rack->read_only()) {
    return absl::FailedPreconditionError(fmt::format(
        "cannot create a database on the rack in {}: it is open read-only", rack->dir()));
  }
  absl::StatusOr<std::unique_ptr<State>> made = NewState(rack, options);
  if (!made.ok()) return made.status();
  std::unique_ptr<State> state = *std::move(made);
  const std::string& name = state->options.db_name;
  const std::vector<asmgr::DiskGroup*>& dgs = state->cf_dgs;
  std::vector<std::pair<asmgr::DiskGroup*, asmgr::FileInfo>> existing;
  for (asmgr::DiskGroup* dg : dgs) {
    for (const asmgr::FileInfo& f : dg->ListFiles()) {
      if (f.type == asmgr::FileType::kControlFile && absl::AsciiStrToUpper(f.db_name) == name) {
        existing.emplace_back(dg, f);
      }
    }
  }
  if (!existing.empty()) {
    // A Create cut short (a crash after ASM made the control files, before
    // they were written) leaves control files with no valid file table and
    // no other file of the database: Open fails (ORA-00227) and nothing can
    // be lost, so start again instead of refusing forever. Anything else is
    // an existing database.
    bool other_files = false;
    for (asmgr::DiskGroup* g : rack->disk_groups()) {
      for (const asmgr::FileInfo& f : g->ListFiles()) {
        other_files |= f.type != asmgr::FileType::kControlFile &&
                       absl::AsciiStrToUpper(f.db_name) == name;
      }
    }
    FileTable ignored_table;
    std::vector<std::string> ignored_actions;
    internal::Recorder probe = state->SystemRecorder();
    absl::StatusOr<std::unique_ptr<internal::ControlFile>> old =
        internal::ControlFile::Open(dgs, name, probe, &ignored_table, &ignored_actions);
    if (other_files || old.ok() || old.status().code() != absl::StatusCode::kDataLoss) {
      return absl::AlreadyExistsError(fmt::format(
          "ORA-01100: database {} already exists (control file {}): open it instead", name,
          existing[0].second.name));
    }
    for (const auto& [dg, f] : existing) {
      if (absl::Status st = dg->DeleteFile(f.number); !st.ok()) return st;
    }
  }
  // No other thread sees the state yet: mu is held for the analysis, and
  // released before the standard files' DDL (which takes it per statement).
  ReleasableMutexLock lock(&state->mu);
  FileTable& t = state->table;
  t.db_name = name;
  t.created_unix = state->clock->UnixSeconds();
  const std::string seed = fmt::format("{}/{}", name, t.created_unix);
  t.dbid = static_cast<uint32_t>(
      Checksum64(absl::MakeConstSpan(reinterpret_cast<const uint8_t*>(seed.data()), seed.size())) &
      0x7fffffff);
  internal::Recorder rec = state->SystemRecorder();
  absl::StatusOr<std::unique_ptr<internal::ControlFile>> cf =
      internal::ControlFile::Create(dgs, t, rec);
  if (!cf.ok()) {
    if (cf.status().code() == absl::StatusCode::kResourceExhausted) {
      return absl::ResourceExhaustedError(fmt::format("ORA-15041: disk group space exhausted: {}",
                                                      std::string(cf.status().message())));
    }
    return cf.status();
  }
  state->cf = *std::move(cf);
  lock.Release();
  std::unique_ptr<Database> db(new Database(std::move(state)));
  if (db->options().standard_files.create) {
    if (absl::Status st = CreateStandardFiles(*db); !st.ok()) return st;
  }
  return db;
}

absl::StatusOr<std::unique_ptr<Database>> Database::Open(asmgr::Rack* rack,
                                                         const DatabaseOptions& options) {
  absl::StatusOr<std::unique_ptr<State>> made = NewState(rack, options);
  if (!made.ok()) return made.status();
  std::unique_ptr<State> state = *std::move(made);
  const std::string& name = state->options.db_name;
  internal::Recorder rec = state->SystemRecorder();
  {
    MutexLock lock(&state->mu);  // no other thread sees the state yet
    absl::StatusOr<std::unique_ptr<internal::ControlFile>> cf = internal::ControlFile::Open(
        state->cf_dgs, name, rec, &state->table, &state->recovery_actions);
    if (!cf.ok()) return cf.status();
    state->cf = *std::move(cf);
    if (absl::Status st = Recover(*state); !st.ok()) {
      return absl::Status(st.code(), fmt::format("database {}: recovery at open failed: {}", name,
                                                 std::string(st.message())));
    }
  }
  // The data dictionary and instance recovery (the engine's mu is taken
  // before the database's).
  std::vector<std::string> actions;
  {
    internal::DataEngine& e = internal::EngineOf(*state);
    MutexLock lock(&e.mu);
    if (absl::Status st = e.OpenInstance(&actions); !st.ok()) {
      return absl::Status(st.code(), fmt::format("database {}: open failed: {}", name,
                                                 std::string(st.message())));
    }
  }
  {
    MutexLock lock(&state->mu);
    for (std::string& a : actions) state->recovery_actions.push_back(std::move(a));
  }
  return std::unique_ptr<Database>(new Database(std::move(state)));
}

absl::Status Database::Close() {
  const int open = s_->sessions.load();
  if (open != 0) {
    return absl::FailedPreconditionError(fmt::format(
        "ORA-01093: database {}: {} session(s) still open; destroy them first", name(), open));
  }
  const std::shared_ptr<internal::DataEngine> engine = s_->CurrentEngine();
  if (engine != nullptr) {
    // Shutdown: LGWR writes what is left, DBWR a final checkpoint.
    internal::DataEngine& e = *engine;
    MutexLock lock(&e.mu);
    internal::Recorder rec = s_->SystemRecorder();
    return e.Checkpoint(rec, /*clean=*/true);
  }
  return absl::OkStatus();
}

std::unique_ptr<Session> Database::NewSession() {
  auto st = std::make_unique<Session::State>();
  st->db = s_.get();
  st->sid = s_->next_sid.fetch_add(1);
  st->logon_unix = s_->clock->UnixSeconds();
  st->process = std::to_string(getpid());
  s_->sessions.fetch_add(1);
  st->data = std::make_shared<internal::SessionData>();
  st->data->sid = st->sid;
  st->data->session = st.get();
  internal::DataEngine& e = internal::EngineOf(*s_);
  {
    MutexLock lock(&e.mu);
    e.sessions[st->sid] = st->data.get();
  }
  return std::unique_ptr<Session>(new Session(std::move(st)));
}

void Database::WarmUp() { internal::WarmEngine(internal::EngineOf(*s_)); }

void Database::RefuseNewTransactions() { s_->refuse_new_transactions.store(true); }
void Database::AcceptNewTransactions() { s_->refuse_new_transactions.store(false); }
bool Database::refuses_new_transactions() const { return s_->refuse_new_transactions.load(); }

namespace {

// CREATE DATABASE's files, through the sessions' own DDL (the creation
// engine), Oracle-managed: data files in DB_CREATE_FILE_DEST, each online
// log with a member there and one in DB_RECOVERY_FILE_DEST.
absl::Status CreateStandardFiles(Database& db) {
  const DatabaseOptions::StandardFiles& f = db.options().standard_files;
  const std::vector<std::string> ddl = {
      fmt::format("create tablespace SYSTEM datafile size {}", f.system_bytes),
      fmt::format("create tablespace SYSAUX datafile size {}", f.sysaux_bytes),
      fmt::format("create undo tablespace UNDOTBS1 datafile size {}", f.undo_bytes),
      fmt::format("create temporary tablespace TEMP tempfile size {}", f.temp_bytes),
      fmt::format("create tablespace USERS datafile size {}", f.users_bytes),
      fmt::format("alter database add logfile thread 1 group 1 size {}, group 2 size {}, "
                  "group 3 size {}",
                  f.log_bytes, f.log_bytes, f.log_bytes)};
  std::unique_ptr<Session> s = db.NewSession();
  for (const std::string& sql : ddl) {
    absl::StatusOr<StatementResult> r = s->Execute(sql);
    if (!r.ok()) {
      return absl::Status(r.status().code(), fmt::format("creating the standard files ({}): {}",
                                                         sql, std::string(r.status().message())));
    }
  }
  return absl::OkStatus();
}

}  // namespace

const std::string& Database::name() const { return s_->options.db_name; }
asmgr::Rack* Database::rack() const { return s_->rack; }
const DatabaseOptions& Database::options() const { return s_->options; }

FileTable Database::file_table() const {
  MutexLock lock(&s_->mu);
  return s_->table;
}

std::vector<std::string> Database::control_files() const {
  MutexLock lock(&s_->mu);
  return s_->cf->names();
}

uint64_t Database::control_file_sequence() const {
  MutexLock lock(&s_->mu);
  return s_->cf->sequence();
}

std::vector<std::string> Database::recovery_actions() const {
  MutexLock lock(&s_->mu);
  return s_->recovery_actions;
}

stats::StatValues Database::SystemStats() const { return s_->sys_stats.Snapshot(); }
stats::WaitValues Database::SystemWaits() const { return s_->sys_waits.Snapshot(); }

}  // namespace cellsim::db
