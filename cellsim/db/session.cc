// Session: Execute (parse, dispatch, call statistics, deltas) and ALTER SESSION.
#include <fmt/format.h>
#include <sys/resource.h>

#include <algorithm>
#include <utility>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "cellsim/db/data_engine.h"
#include "cellsim/db/database_state.h"
#include "cellsim/db/plsql.h"

namespace cellsim::db {

uint64_t internal::ThreadCpuNs() {
  rusage ru{};
  if (getrusage(RUSAGE_THREAD, &ru) != 0) return 0;
  auto ns = [](const timeval& tv) {
    return static_cast<uint64_t>(tv.tv_sec) * 1'000'000'000ull +
           static_cast<uint64_t>(tv.tv_usec) * 1000ull;
  };
  return ns(ru.ru_utime) + ns(ru.ru_stime);
}

namespace {

using stats::Stat;
using internal::ThreadCpuNs;

// Parameters cellsim accepts and remembers without acting on them, so that
// scripts written for Oracle (tracing, statistics level) run unchanged.
const std::set<std::string>& KnownParameters() {
  static const std::set<std::string> k = {
      "sql_trace",      "timed_statistics", "statistics_level", "tracefile_identifier",
      "events",         "current_schema",   "max_dump_file_size",
      "optimizer_mode", "db_file_multiblock_read_count"};
  return k;
}

template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};
template <class... Ts>
Overloaded(Ts...) -> Overloaded<Ts...>;

}  // namespace

std::string_view CreationPathName(CreationPath p) {
  switch (p) {
    case CreationPath::kZeroFill:
      return kPathZeroFill;
    case CreationPath::kSmart:
      return kPathSmart;
    case CreationPath::kFast:
      return kPathFast;
  }
  return "unknown";
}

Session::Session(std::unique_ptr<State> state) : s_(std::move(state)) {}
Session::~Session() {
  const std::shared_ptr<internal::DataEngine> engine = s_->db->CurrentEngine();
  if (s_->data != nullptr && engine != nullptr) {
    // A session that ends rolls back what it did not commit; its GTT rows go.
    internal::DataEngine& e = *engine;
    MutexLock lock(&e.mu);
    internal::Recorder rec = s_->MakeRecorder();
    if (s_->data->txn.active) (void)e.Rollback(rec, *s_->data);
    for (auto& [obj, seg] : s_->data->gtt_segments) e.FreeSegment(seg);
    e.sessions.erase(s_->sid);
  }
  s_->db->library_cache.Forget(s_->sid);
  s_->db->sessions.fetch_sub(1);
}

uint32_t Session::sid() const { return s_->sid; }
void Session::SetClient(std::string program, std::string process) {
  // Other sessions read them (V$SESSION) under the engine's lock.
  const std::shared_ptr<internal::DataEngine> engine = s_->db->CurrentEngine();
  if (engine == nullptr) {
    s_->program = std::move(program);
    s_->process = std::move(process);
    return;
  }
  MutexLock lock(&engine->mu);
  s_->program = std::move(program);
  s_->process = std::move(process);
}

bool Session::InTransaction() const {
  const std::shared_ptr<internal::DataEngine> engine = s_->db->CurrentEngine();
  if (s_->data == nullptr || engine == nullptr) return false;
  MutexLock lock(&engine->mu);
  return s_->data->txn.active;
}

bool Session::HasUncommittedChanges() const {
  const std::shared_ptr<internal::DataEngine> engine = s_->db->CurrentEngine();
  if (s_->data == nullptr || engine == nullptr) return false;
  MutexLock lock(&engine->mu);
  return s_->data->txn.active && !s_->data->txn.undo.empty();
}
stats::StatValues Session::Stats() const { return s_->stats.Snapshot(); }
stats::WaitValues Session::Waits() const { return s_->waits.Snapshot(); }
bool Session::cell_fast_file_create() const { return s_->cell_fast_file_create; }
bool Session::fast_file_create_metadata() const { return s_->fast_file_create_metadata; }
void Session::SetCancelFlag(const CancelFlag* flag) { s_->cancel = flag; }
void Session::SetRowLockWait(std::chrono::nanoseconds limit) {
  s_->row_lock_wait = std::max(limit, kNoRowLockWait);
}

void Session::SetProgressCallback(ProgressCallback callback) {
  s_->progress = std::move(callback);
}

std::string Session::Parameter(std::string_view name) const {
  auto it = s_->parameters.find(absl::AsciiStrToLower(std::string(name)));
  return it == s_->parameters.end() ? "" : it->second;
}

namespace {

// Adds the statement's CPU and elapsed time to the centisecond statistics:
// DB time is the elapsed time less the call's idle waits.
void AddTimes(Session::State& s, internal::Recorder& rec, uint64_t cpu_ns, uint64_t elapsed_ns) {
  s.cpu_ns += cpu_ns;
  s.db_time_ns += elapsed_ns - std::min(elapsed_ns, s.call_idle_ns);
  s.call_idle_ns = 0;
  const int64_t cpu_cs = static_cast<int64_t>(s.cpu_ns / 10'000'000);
  const int64_t db_cs = static_cast<int64_t>(s.db_time_ns / 10'000'000);
  rec.Add(Stat::kCpuUsedByThisSession, cpu_cs - s.cpu_cs);
  rec.Add(Stat::kDbTime, db_cs - s.db_time_cs);
  s.cpu_cs = cpu_cs;
  s.db_time_cs = db_cs;
}

// File DDL after Database::RefuseNewTransactions: it is a transaction of its
// own (ALTER SESSION and ALTER DISKGROUP are not).
absl::Status RefusedFileDdl(const Session::State& s, const Statement& statement) {
  const bool ddl = !std::holds_alternative<SetCellFastFileCreate>(statement) &&
                   !std::holds_alternative<SetFastFileCreateMetadata>(statement) &&
                   !std::holds_alternative<db::SetParameter>(statement) &&
                   !std::holds_alternative<AlterDiskgroupDisks>(statement) &&
                   !std::holds_alternative<ScrubDiskgroup>(statement);
  if (!ddl || !s.db->refuse_new_transactions.load()) return absl::OkStatus();
  return internal::NewTransactionRefused(StatementKind(statement));
}

absl::Status SetParameter(Session::State& s, const db::SetParameter& p) {
  const std::string name = absl::AsciiStrToLower(p.name);
  if (std::optional<absl::Status> st = internal::SetNlsFormat(&s.nls, name, p.value)) {
    if (st->ok()) s.parameters[name] = p.value;
    return *st;
  }
  absl::Status data_status;
  if (internal::SetDataSessionParameter(s, name, p.value, &data_status)) {
    if (data_status.ok()) s.parameters[name] = p.value;
    return data_status;
  }
  if (KnownParameters().count(name) == 0) {
    return absl::InvalidArgumentError(fmt::format(
        "ORA-02248: invalid option for ALTER SESSION: cellsim does not know parameter \"{}\" "
        "(it knows \"{}\", {} and a few tracing parameters)",
        p.name, kCellFastFileCreateParameter, kFastFileCreateMetadataParameter));
  }
  s.parameters[name] = p.value;
  return absl::OkStatus();
}

struct Timing {
  uint64_t t0 = 0, c0 = 0;  // statement start (wall, cpu)
  CallStats parse;
  stats::StatValues stats0;
  stats::WaitValues waits0;
};

// Oracle writes WAIT lines under event 10046 at level 8 or 12; cellsim takes
// sql_trace = TRUE for it as well (what `cellsim sqlrun --trace` sets).
bool TracesWaits(const Session::State& s) {
  const auto trace = s.parameters.find("sql_trace");
  if (trace != s.parameters.end() && absl::AsciiStrToUpper(trace->second) == "TRUE") return true;
  const auto events = s.parameters.find("events");
  return events != s.parameters.end() && events->second.find("10046") != std::string::npos;
}

// A statement's start: the session's statistics and waits so far, then the
// wall and CPU clocks.
Timing StartTiming(Session::State& s) {
  s.wait_history.ResetCapture(TracesWaits(s));
  Timing tm;
  tm.stats0 = s.stats.Snapshot();
  tm.waits0 = s.waits.Snapshot();
  tm.t0 = s.db->clock->NowNanos();
  tm.c0 = ThreadCpuNs();
  return tm;
}

// A parsed statement starts: its cursor in the library cache.
void BeginCursor(Session::State& s, std::string_view text) {
  s.db->library_cache.Begin(s.sid, text, s.db->clock->UnixSeconds());
}

// What the statement changed in the session's statistics and waits since
// StartTiming.
struct StatementDeltas {
  stats::StatValues stats;
  stats::WaitValues waits;
};
StatementDeltas DeltasSince(Session::State& s, const Timing& tm) {
  return StatementDeltas{s.stats.Snapshot() - tm.stats0, s.waits.Snapshot() - tm.waits0};
}

// Whether `status` is an error Oracle raises while it parses a statement:
// ORA-00900 to ORA-00999 (syntax, names, ORA-00942), but ORA-00955 and
// ORA-00959 (a DDL's object exists, a tablespace does not), and the
// ORA-017xx query-shape errors. cellsim's engine finds these when it runs
// the statement; Oracle would have loaded no cursor.
bool FailedInParse(const absl::Status& status) {
  int ora = 0;
  if (status.ok() || !absl::StartsWith(status.message(), "ORA-") ||
      !absl::SimpleAtoi(status.message().substr(4, 5), &ora)) {
    return false;
  }
  if (ora >= 900 && ora <= 999) return ora != 955 && ora != 959;
  return ora == 1731 || ora == 1785 || ora == 1786 || ora == 1788 || ora == 1789 ||
         ora == 1791 || ora == 2287;
}

// A parsed statement ended, whether it succeeded or failed (Oracle counts a
// failed execution as well): its deltas, which its cursor gets too.
StatementDeltas EndCursor(Session::State& s, std::string_view text, const Timing& tm,
                          uint64_t t2, uint64_t c2, int64_t rows, const absl::Status& status) {
  StatementDeltas d = DeltasSince(s, tm);
  s.db->library_cache.End(s.sid, text,
                          internal::CursorExecution{t2 - tm.t0, c2 - tm.c0, rows, &d.stats,
                                                    &d.waits, FailedInParse(status)},
                          s.db->clock->UnixSeconds());
  return d;
}

// Who made the call: the client (a user call, whose time is the session's
// CPU and DB time) or a PL/SQL block's EXECUTE IMMEDIATE (a recursive call,
// whose time is already in the block's call: adding it again would count it
// twice).
enum class CallLevel : uint8_t { kUser, kRecursive };

absl::StatusOr<StatementResult> Run(Session::State& s, const Statement& statement,
                                    std::string text, const Timing& tm,
                                    CallLevel level = CallLevel::kUser) {
  BeginCursor(s, text);
  Clock* clock = s.db->clock;
  internal::Recorder rec = s.MakeRecorder();
  const uint64_t t1 = clock->NowNanos(), c1 = ThreadCpuNs();
  rec.Add(Stat::kExecuteCount, 1);
  if (level == CallLevel::kUser) rec.Add(Stat::kUserCalls, 1);
  internal::ExecOutcome out;
  absl::Status status = RefusedFileDdl(s, statement);
  if (status.ok()) status = std::visit(
      Overloaded{
          [&](const AddLogfile& x) { return internal::RunAddLogfile(s, x, &out); },
          [&](const DropLogfileGroup& x) { return internal::RunDropLogfileGroup(s, x, &out); },
          [&](const ResizeDataFile& x) { return internal::RunResizeDataFile(s, x, &out); },
          [&](const CreateTablespace& x) { return internal::RunCreateTablespace(s, x, &out); },
          [&](const AlterTablespaceAddDatafile& x) {
            return internal::RunAddDatafile(s, x, &out);
          },
          [&](const DropTablespace& x) { return internal::RunDropTablespace(s, x, &out); },
          [&](const SetCellFastFileCreate& x) {
            s.cell_fast_file_create = x.enabled;
            return absl::OkStatus();
          },
          [&](const SetFastFileCreateMetadata& x) {
            s.fast_file_create_metadata = x.enabled;
            return absl::OkStatus();
          },
          [&](const db::SetParameter& x) { return SetParameter(s, x); },
          [&](const AlterDiskgroupDisks& x) { return internal::RunAlterDiskgroupDisks(s, x); },
          [&](const ScrubDiskgroup& x) { return internal::RunScrubDiskgroup(s, x, &out); },
      },
      statement);
  // Its changes to the file table are its current-mode gets (the seed's
  // ADD LOGFILE: 2, tkprof's `current`).
  internal::CountCurrentGets(rec, out.current);
  const uint64_t t2 = clock->NowNanos(), c2 = ThreadCpuNs();
  if (level == CallLevel::kUser) AddTimes(s, rec, c2 - tm.c0, t2 - tm.t0);
  StatementDeltas deltas = EndCursor(s, text, tm, t2, c2, 0, status);
  if (!status.ok()) return status;

  StatementResult r;
  r.statement = std::move(text);
  r.kind = std::string(StatementKind(statement));
  std::set<CreationPath> paths;
  std::vector<std::string> reasons;
  for (const FileCreation& f : out.files) {
    paths.insert(f.path);
    if (std::find(reasons.begin(), reasons.end(), f.path_reason) == reasons.end()) {
      reasons.push_back(f.path_reason);
    }
  }
  for (CreationPath p : paths) {
    if (!r.path.empty()) r.path += "+";
    r.path += CreationPathName(p);
  }
  for (const std::string& x : reasons) {
    if (!r.path_reason.empty()) r.path_reason += "; ";
    r.path_reason += x;
  }
  r.elapsed_ns = t2 - tm.t0;
  r.cpu_ns = c2 - tm.c0;
  r.statistics = deltas.stats;
  r.waits = std::move(deltas.waits);
  r.wait_events = s.wait_history.TakeCapture();
  r.parse = tm.parse;
  r.execute.count = 1;
  r.execute.cpu_ns = c2 - c1;
  r.execute.elapsed_ns = t2 - t1;
  r.execute.current = out.current;
  r.files = std::move(out.files);
  r.feedback = std::move(out.feedback);
  r.headings = std::move(out.headings);
  r.numeric_columns = std::move(out.numeric_columns);
  r.result_rows = std::move(out.result_rows);
  return r;
}

}  // namespace

namespace {

// A data statement (data_statement.h): parse, run in the data engine, result.
absl::StatusOr<StatementResult> ExecuteData(Session::State& s, std::string_view sql,
                                            Timing& tm) {
  // An anonymous PL/SQL block is parsed as it runs (internal::RunPlsqlBlock).
  const bool block = IsPlsqlBlock(sql);
  std::optional<DataStatement> st;  // a data statement's (a block has none)
  absl::Status parsed;              // and why it did not parse
  if (!block) {
    absl::StatusOr<DataStatement> p = ParseDataStatement(sql);
    if (p.ok()) {
      st = *std::move(p);
    } else {
      parsed = p.status();
    }
  }
  internal::Recorder rec = s.MakeRecorder();
  const uint64_t t1 = s.db->clock->NowNanos(), c1 = ThreadCpuNs();
  rec.Add(Stat::kParseCountTotal, 1);
  rec.Add(Stat::kUserCalls, 2);
  rec.Add(Stat::kExecuteCount, 1);
  tm.parse = CallStats{1, c1 - tm.c0, t1 - tm.t0, 0, 0};
  internal::DataOutcome out;
  internal::PlsqlOutcome plsql;
  absl::Status status = parsed;
  // SHOW, DESCRIBE and ARCHIVE LOG LIST are SQL*Plus's commands, which it
  // answers without sending them: no cursor.
  const std::string_view kind = block ? "PL/SQL EXECUTE" : st ? DataStatementKind(*st) : "";
  const bool cursor =
      parsed.ok() && kind != "SHOW PARAMETER" && kind != "DESCRIBE" && kind != "ARCHIVE LOG";
  if (cursor) BeginCursor(s, sql);
  if (block) {
    // EXECUTE IMMEDIATE of a statement that is not a data statement.
    const auto other = [&s](std::string_view text) -> absl::Status {
      absl::StatusOr<Statement> parsed = ParseStatement(text);
      if (!parsed.ok()) return parsed.status();
      return Run(s, *parsed, std::string(text), StartTiming(s), CallLevel::kRecursive).status();
    };
    status = internal::RunPlsqlBlock(s, sql, other, &plsql);
    if (status.ok()) out.feedback = "PL/SQL procedure successfully completed.";
    if (!status.ok() && !plsql.output.empty()) {  // what it wrote before it failed
      std::string lines;
      for (const std::string& line : plsql.output) lines += line + "\n";
      status.SetPayload(kDbmsOutputPayload, absl::Cord(lines));
    }
  } else if (st) {
    status = internal::RunDataStatement(s, *st, &out);
  }
  const uint64_t t2 = s.db->clock->NowNanos(), c2 = ThreadCpuNs();
  AddTimes(s, rec, c2 - tm.c0, t2 - tm.t0);
  if (!parsed.ok()) return status;
  StatementDeltas deltas =
      cursor ? EndCursor(s, sql, tm, t2, c2, status.ok() ? out.rows : 0, status)
             : DeltasSince(s, tm);
  if (!status.ok()) return status;
  StatementResult r;
  r.statement = std::string(sql);
  r.kind = std::string(kind);
  r.elapsed_ns = t2 - tm.t0;
  r.cpu_ns = c2 - tm.c0;
  r.statistics = deltas.stats;
  r.waits = std::move(deltas.waits);
  r.wait_events = s.wait_history.TakeCapture();
  r.parse = tm.parse;
  r.execute = CallStats{1, c2 - c1, t2 - t1, deltas.stats[Stat::kDbBlockGets], out.rows,
                        deltas.stats[Stat::kPhysicalReads], deltas.stats[Stat::kConsistentGets]};
  r.rows = out.rows;
  r.feedback = std::move(out.feedback);
  r.headings = std::move(out.headings);
  r.numeric_columns = std::move(out.numeric);
  r.result_rows = std::move(out.rows_text);
  r.output = std::move(plsql.output);
  return r;
}

}  // namespace

std::optional<RowLockConflict> RowLockConflictOf(const absl::Status& st) {
  auto number = [&](const char* payload, auto* out) {
    const absl::optional<absl::Cord> p = st.GetPayload(payload);
    return p.has_value() && absl::SimpleAtoi(std::string(*p), out);
  };
  RowLockConflict c;
  if (!number(kRowLockHolderPayload, &c.holder_sid)) return std::nullopt;
  if (const absl::optional<absl::Cord> xid = st.GetPayload(kRowLockTransactionPayload)) {
    const std::vector<std::string> parts = absl::StrSplit(std::string(*xid), '.');
    if (parts.size() != 3 || !absl::SimpleAtoi(parts[0], &c.usn) ||
        !absl::SimpleAtoi(parts[1], &c.slot) || !absl::SimpleAtoi(parts[2], &c.sequence)) {
      return std::nullopt;
    }
  }
  if (uint32_t limit = 0; number(kRowLockWaitLimitPayload, &limit)) c.wait_limit_s = limit;
  if (uint32_t mode = 0; number(kRowLockModePayload, &mode) && (mode == 4 || mode == 6)) {
    c.mode = mode;
  }
  return c;
}

absl::Status ForUpdateWaitExpired(uint32_t holder_sid, uint64_t waited_ns) {
  return absl::FailedPreconditionError(fmt::format(
      "ORA-30006: resource busy; acquire with WAIT timeout expired (waited {:.3f} s for "
      "session {})",
      static_cast<double>(waited_ns) / 1e9, holder_sid));
}

absl::StatusOr<stats::WaitEvent> Session::RecordRowLockWait(const absl::Status& conflict,
                                                            uint64_t waited_ns) {
  const std::optional<RowLockConflict> c = RowLockConflictOf(conflict);
  if (!c.has_value()) {
    return absl::InvalidArgumentError(fmt::format(
        "RecordRowLockWait: the status is not the ORA-00054 of a locked row: {}",
        conflict.ToString()));
  }
  State& s = *s_;
  internal::Recorder rec = s.MakeRecorder();
  internal::RecordRowLockWait(rec, *c, waited_ns);
  AddTimes(s, rec, 0, waited_ns);
  return s.wait_history.Last().front();
}

absl::StatusOr<StatementResult> Session::Execute(std::string_view sql) {
  State& s = *s_;
  const internal::ScopedNlsFormats nls(&s.nls);
  Timing tm = StartTiming(s);
  if (IsDataStatement(sql) || IsPlsqlBlock(sql)) return ExecuteData(s, sql, tm);
  absl::StatusOr<Statement> st = ParseStatement(sql);
  const uint64_t t1 = s.db->clock->NowNanos(), c1 = ThreadCpuNs();
  internal::Recorder rec = s.MakeRecorder();
  rec.Add(Stat::kParseCountTotal, 1);
  rec.Add(Stat::kUserCalls, 1);
  tm.parse = CallStats{1, c1 - tm.c0, t1 - tm.t0, 0, 0};
  if (!st.ok()) {
    AddTimes(s, rec, c1 - tm.c0, t1 - tm.t0);
    return st.status();
  }
  return Run(s, *st, std::string(sql), tm);
}

absl::StatusOr<StatementResult> Session::Execute(const Statement& statement) {
  State& s = *s_;
  const internal::ScopedNlsFormats nls(&s.nls);
  Timing tm = StartTiming(s);
  return Run(s, statement, ToSql(statement), tm);
}

}  // namespace cellsim::db
