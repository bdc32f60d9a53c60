// The driver's run: one thread per session (lib/Sqlrun.pm's child loop), the
// monitor on the caller's thread, all paced by internal::Pacer.
#include "cellsim/sqlrun/driver.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <system_error>
#include <thread>

#include "cellsim/base/mutex.h"
#include "cellsim/sqlrun/pacer.h"
#include "cellsim/sqlrun/trace.h"
#include "cellsim/stats/statistics.h"
#include "fmt/format.h"

namespace cellsim::sqlrun {
namespace {

using stats::Stat;

uint64_t Ns(double seconds) { return static_cast<uint64_t>(std::llround(seconds * 1e9)); }

// What the sessions publish and the monitor reads.
struct Shared {
  Mutex mu;
  std::vector<SessionSummary> sessions ABSL_GUARDED_BY(mu);
  std::vector<bool> connected ABSL_GUARDED_BY(mu);
  std::vector<Event> events ABSL_GUARDED_BY(mu);
  std::vector<std::string> warnings ABSL_GUARDED_BY(mu);
  uint64_t end_ns ABSL_GUARDED_BY(mu) = 0;  // the latest session end
  // Row-lock waits: whom each waiting session waits for, as its last try
  // found (ExecuteWaitingForRowLocks), and when (`tries`' count then).
  struct RowLockWait {
    uint32_t holder = 0;
    uint64_t try_number = 0;
  };
  std::map<uint32_t, RowLockWait> waits_for ABSL_GUARDED_BY(mu);
  uint64_t tries ABSL_GUARDED_BY(mu) = 0;  // failed tries of every session so far
};

// How often a session waiting for a row lock tries its statement again: 1
// ms, doubling up to 8 ms for a long wait (fewer tries; the wake-up is late by
// at most that).
constexpr uint64_t kRowLockPollNs = 1'000'000;
constexpr uint64_t kRowLockPollMaxNs = 8'000'000;
// Under the real clock sessions wait in the engine (ExecuteWaitingForRowLocks)
// until the run's end and this long more.
constexpr uint64_t kRealClockRowLockGraceNs = 10'000'000'000;

struct RunContext {
  db::Database* db;
  const SqlDir& dir;
  const RunOptions& o;
  internal::Pacer& pacer;
  Shared& shared;
  std::vector<size_t> array;  // StatementArray
  uint64_t start_ns;          // the parent's timer start
  uint64_t deadline_ns;       // TimerDeadline
  std::atomic<bool> all_started{false};
  // 0 while the session threads are being created; then 1 (run) or 2 (a
  // thread could not be created: every session returns at once).
  std::atomic<int> gate{0};

  Clock* clock() const { return pacer.clock(); }
  bool TimeLeft(uint64_t now_ns) const { return now_ns < deadline_ns; }
};

// Sqlrun's Timer (lib/Sqlrun/Timer.pm): START = time, whole Unix seconds,
// taken in the parent before it forks; check() returns START + runtime -
// time and the sessions go on while that is > 0: until the wall clock
// reaches the second START + runtime, `runtime` less the fraction of a
// second the start came after START (a real run's window is in
// (runtime - 1, runtime] s). The Unix time of a simulated clock is whole
// seconds plus its modeled time, so the fraction is the modeled time's; a
// real clock's is the wall clock's (read once: a clock step during the run
// does not move the deadline).
uint64_t TimerDeadline(Clock* clock, uint64_t start_ns, int runtime_s) {
  const uint64_t wall_ns = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(
          std::chrono::system_clock::now().time_since_epoch())
          .count());
  const uint64_t fraction = (clock->simulated() ? start_ns : wall_ns) % 1'000'000'000;
  return start_ns - fraction + static_cast<uint64_t>(runtime_s) * 1'000'000'000;
}

// One session: its db::Session, statement choice, bind cursors, counters.
class SessionLoop {
 public:
  SessionLoop(RunContext& run, size_t index)
      : run_(run), i_(index),
        picker_(run.o.exe_mode, run.array.size(), run.o.seed + index + 1) {
    for (const SqlEntry& e : run.dir.entries) {
      size_t rows = e.bind_rows.size();
      // Sqlrun master: with bindArraySize <= rows keep bindArraySize + 1 rows.
      if (run.o.bind_array_size >= 0 && static_cast<size_t>(run.o.bind_array_size) <= rows) {
        rows = static_cast<size_t>(run.o.bind_array_size) + 1;
      }
      binds_.emplace_back(rows);
    }
  }

  void Go() {
    const uint64_t first = Start();
    run_.pacer.Turn(i_, first);
    summary_.error = RunSteps();
    Disconnect();
    run_.pacer.Finish(i_);
  }

 private:
  uint64_t Start() const {
    return run_.start_ns + (run_.o.connect_mode == ConnectMode::kTrickle
                                ? Ns(run_.o.connect_delay_s) * i_
                                : 0);
  }

  // Executes one call, charges its modeled CPU, records and traces it.
  absl::StatusOr<db::StatementResult> Call(const std::string& sql, Event::Kind kind,
                                           const std::string& file, int bind_row) {
    // Every call waits for its turn at its own start time, so the sessions'
    // requests reach the device queues in the order of modeled time.
    const uint64_t t = run_.clock()->NowNanos();
    run_.pacer.Turn(i_, t);
    absl::StatusOr<db::StatementResult> r = ExecuteWaitingForRowLocks(sql, t);
    if (r.ok()) {
      const CostModel& c = run_.o.cost;
      const double redo = static_cast<double>(r->statistics[Stat::kRedoSize]);
      run_.pacer.Charge(c.call_ns + c.row_ns * static_cast<uint64_t>(std::max<int64_t>(r->rows, 0)) +
                            static_cast<uint64_t>(redo * c.redo_byte_ns),
                        run_.clock()->NowNanos() - t);
      const uint64_t end = run_.clock()->NowNanos();
      if (trace_.is_open()) trace_.Call(sql, *r, (end - t) / 1000, end / 1000);
    }
    if (run_.o.record_events && !file.empty()) {
      MutexLock l(&run_.shared.mu);
      run_.shared.events.push_back(Event{.session = static_cast<uint32_t>(i_ + 1),
                                         .time_ns = t - run_.start_ns,
                                         .kind = r.ok() ? kind : Event::Kind::kError,
                                         .sql_file = file,
                                         .bind_row = bind_row});
    }
    return r;
  }

  // Executes `sql` (its turn at `t` taken); while it fails on a row another
  // session's open transaction holds (under the real clock: past the
  // engine's own wait, set below), waits as Oracle's session would (enq:
  // TX - row lock contention): its turn again a poll later, then the
  // statement again, until the holder's transaction ends. Each poll's wait is
  // the session's enq: TX wait (in its waits and DB time, and in the trace
  // among the WAIT lines of the call that got the lock). A cycle of such
  // waits is Oracle's deadlock: ORA-00060 for the session that finds it. A
  // holder outside the run may never let go: past the run's end that wait
  // stops with the ORA-00054 (the run's own sessions end their transactions
  // by the end of their last step). SELECT ... FOR UPDATE WAIT n waits n
  // seconds at most, then fails with ORA-30006 as Oracle's does.
  absl::StatusOr<db::StatementResult> ExecuteWaitingForRowLocks(const std::string& sql, uint64_t t) {
    if (!run_.pacer.simulated()) {
      // Under the real clock the session waits in the engine, as Oracle's
      // does: one enq: TX wait per wait, woken by the holder's commit,
      // deadlocks found the moment they close (db::Session::SetRowLockWait).
      // Up to the run's end and kRealClockRowLockGraceNs more (a holder of
      // the run ends its transaction with its last step); then the loop
      // below, which gives up on a holder outside the run.
      const uint64_t left = run_.deadline_ns - std::min(run_.deadline_ns, t);
      session_->SetRowLockWait(std::chrono::nanoseconds(left + kRealClockRowLockGraceNs));
    }
    absl::StatusOr<db::StatementResult> r = session_->Execute(sql);
    uint64_t poll = kRowLockPollNs;
    std::vector<stats::WaitEvent> lock_waits;
    uint64_t suspected = 0;  // tries' count when a cycle was first seen (0: none)
    uint64_t waited_ns = 0;
    for (std::optional<db::RowLockConflict> c; !r.ok() && (c = db::RowLockConflictOf(r.status()));) {
      if (Cancelled(run_.o.cancel)) {
        r = absl::CancelledError(std::string(db::kCancelMessage));
        break;  // Ctrl-C ends the wait, not the holder
      }
      const uint32_t holder = c->holder_sid;
      if (c->wait_limit_s && waited_ns >= uint64_t{*c->wait_limit_s} * 1'000'000'000) {
        r = db::ForUpdateWaitExpired(holder, waited_ns);
        break;  // (its wait leaves the map below)
      }
      {
        MutexLock l(&run_.shared.mu);
        if (!HolderInRun(holder) && !run_.TimeLeft(t)) break;
        run_.shared.waits_for[summary_.sid] = {holder, ++run_.shared.tries};
        if (std::optional<std::string> cycle = DeadlockCycle(suspected)) {
          run_.shared.waits_for.erase(summary_.sid);
          return absl::FailedPreconditionError(
              fmt::format("ORA-00060: deadlock detected while waiting for resource ({})", *cycle));
        }
      }
      t += poll;
      waited_ns += poll;
      run_.pacer.Turn(i_, t);
      absl::StatusOr<stats::WaitEvent> waited = session_->RecordRowLockWait(r.status(), poll);
      if (waited.ok()) lock_waits.push_back(*waited);
      poll = std::min(poll * 2, kRowLockPollMaxNs);
      r = session_->Execute(sql);
    }
    if (r.ok()) AddWaitsBefore(lock_waits, &*r);
    MutexLock l(&run_.shared.mu);
    run_.shared.waits_for.erase(summary_.sid);
    return r;
  }

  bool HolderInRun(uint32_t holder) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(run_.shared.mu) {
    for (size_t k = 0; k < run_.shared.sessions.size(); ++k) {
      if (run_.shared.connected[k] && run_.shared.sessions[k].sid == holder) return true;
    }
    return false;
  }

  // The waits from this session's back to it, if they close a cycle that is
  // a deadlock: one seen before (`suspected`, the tries' count then; 0 for
  // none) whose every wait has been found again by a later try. A wait seen
  // once may be stale (its session got the row an instant ago, or its holder
  // has since ended that transaction and begun another); a deadlock's
  // sessions find the same holders try after try. (Oracle, too, looks for a
  // deadlock only when a wait times out, after ~3 s.) The first sighting
  // sets `suspected`.
  std::optional<std::string> DeadlockCycle(uint64_t& suspected)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(run_.shared.mu) {
    std::string chain;
    bool confirmed = suspected != 0;
    uint32_t h = summary_.sid;
    for (size_t n = 0; n <= run_.shared.waits_for.size(); ++n) {
      auto next = run_.shared.waits_for.find(h);
      if (next == run_.shared.waits_for.end()) break;
      chain += n == 0 ? fmt::format("session {} waits for session {}", h, next->second.holder)
                      : fmt::format(", which waits for session {}", next->second.holder);
      confirmed &= next->second.try_number > suspected;
      if (next->second.holder == summary_.sid) {
        if (confirmed) return chain;
        if (suspected == 0) suspected = run_.shared.tries;
        return std::nullopt;
      }
      h = next->second.holder;
    }
    suspected = 0;  // no cycle (any more)
    return std::nullopt;
  }

  // Puts `waits`, which the session waited before its statement ran, into
  // the statement's result: its waits, and its trace lines when it traces.
  void AddWaitsBefore(const std::vector<stats::WaitEvent>& waits, db::StatementResult* r) const {
    stats::WaitSet set;
    for (const stats::WaitEvent& w : waits) set.Record(w.event, w.ns);
    r->waits += set.Snapshot();
    if (trace_.is_open()) r->wait_events.insert(r->wait_events.begin(), waits.begin(), waits.end());
  }

  absl::Status Connect();
  std::string RunSteps();
  absl::Status Step();
  void Publish(bool connected);
  void Disconnect();

  RunContext& run_;
  const size_t i_;
  StatementPicker picker_;
  std::vector<BindCursor> binds_;
  std::unique_ptr<db::Session> session_;
  stats::StatValues baseline_;
  SessionSummary summary_;
  TraceWriter trace_;
  int tx_counter_ = 0;
};

// lib/Sqlrun.pm child() before the loop: connect, the connection test query,
// parameters.conf, current_schema, tracing, the tsunami wait.
absl::Status SessionLoop::Connect() {
  session_ = run_.db->NewSession();
  if (!run_.o.client_program.empty()) {
    session_->SetClient(run_.o.client_program, run_.o.client_process);
  }
  // Ctrl-C ends a real-clock session's wait in the engine (ORA-01013, an
  // interruption, not an error of the run).
  if (!run_.pacer.simulated()) session_->SetCancelFlag(run_.o.cancel);
  summary_.sid = session_->sid();
  baseline_ = session_->Stats();
  Publish(true);
  // Sqlrun also selects USER, which cellsim's SQL does not know.
  absl::StatusOr<db::StatementResult> test = Call(
      "select 'Connection Test' test, sys_context('userenv','sid') SID from dual",
      Event::Kind::kExecute, "", -1);
  if (!test.ok()) return test.status();
  for (const auto& [name, value] : run_.dir.parameters) {
    absl::StatusOr<db::StatementResult> r =
        Call(fmt::format("alter session set {} = '{}'", name, value), Event::Kind::kExecute, "", -1);
    if (!r.ok()) {  // Sqlrun only warns
      MutexLock l(&run_.shared.mu);
      run_.shared.warnings.push_back(fmt::format("session {}: parameters.conf {}: {}", i_ + 1, name,
                                                 std::string(r.status().message())));
    }
  }
  if (!run_.o.schema.empty()) {
    absl::StatusOr<db::StatementResult> r = Call(
        fmt::format("alter session set current_schema = {}", run_.o.schema), Event::Kind::kExecute, "", -1);
    if (!r.ok()) return r.status();
  }
  if (!run_.o.trace_dir.empty()) {
    summary_.trace_file = fmt::format("{}/{}_ora_{}_{}.trc", run_.o.trace_dir, run_.db->name(),
                                      summary_.sid, run_.o.trace_id);
    if (absl::Status s = trace_.Open(summary_.trace_file, summary_.sid, run_.o.trace_id); !s.ok()) return s;
    for (const std::string& sql :
         {fmt::format("alter session set tracefile_identifier = '{}'", run_.o.trace_id),
          // Sqlrun sets event 10046 level 12; cellsim's parser knows sql_trace.
          std::string("alter session set sql_trace = true")}) {
      if (absl::StatusOr<db::StatementResult> r = Call(sql, Event::Kind::kExecute, "", -1); !r.ok()) {
        return r.status();
      }
    }
  }
  if (run_.o.connect_mode == ConnectMode::kTsunami) {
    // Released once the parent has started every session, polled every 250 ms.
    uint64_t t = run_.clock()->NowNanos();
    while (!run_.all_started.load() && !Cancelled(run_.o.cancel)) {
      t += 250'000'000;
      run_.pacer.Turn(i_, t);
    }
  }
  return absl::OkStatus();
}

// The main loop: while the timer has time left, one statement per step.
std::string SessionLoop::RunSteps() {
  if (absl::Status s = Connect(); !s.ok()) return std::string(s.message());
  while (run_.TimeLeft(run_.clock()->NowNanos()) && !Cancelled(run_.o.cancel)) {
    if (absl::Status s = Step(); !s.ok()) {
      // Ctrl-C stops every session as it ends a wait or a call: no error of
      // the session's own.
      if (Cancelled(run_.o.cancel) && s.code() == absl::StatusCode::kCancelled) return "";
      ++summary_.errors;
      return std::string(s.message());  // RaiseError: the child dies
    }
    Publish(true);
    run_.pacer.Turn(i_, run_.clock()->NowNanos() + Ns(run_.o.exe_delay_s));
  }
  return "";
}

absl::Status SessionLoop::Step() {
  const size_t idx = run_.array[picker_.Next()];
  const SqlEntry& e = run_.dir.entries[idx];
  std::string sql = e.text;
  int bind_row = -1;
  if (!e.bind_rows.empty()) {
    bind_row = static_cast<int>(binds_[idx].Next());
    absl::StatusOr<std::string> bound = BindSql(e.text, e.bind_rows[static_cast<size_t>(bind_row)]);
    if (!bound.ok()) {
      return absl::InvalidArgumentError(fmt::format("{} bind row {}: {}", e.file, bind_row + 1,
                                                    std::string(bound.status().message())));
    }
    sql = std::move(*bound);
  }
  absl::StatusOr<db::StatementResult> r = Call(sql, Event::Kind::kExecute, e.file, bind_row);
  if (!r.ok()) {
    return absl::Status(r.status().code(),
                        fmt::format("{}: {}", e.file, std::string(r.status().message())));
  }
  ++summary_.executions;
  if (e.type != SqlType::kDml) return absl::OkStatus();
  if (tx_counter_ < run_.o.tx_per_transaction) {
    ++tx_counter_;
    return absl::OkStatus();
  }
  tx_counter_ = 0;
  const bool rollback = run_.o.tx_behavior == TxBehavior::kRollback;
  absl::StatusOr<db::StatementResult> end =
      Call(rollback ? "rollback" : "commit",
           rollback ? Event::Kind::kRollback : Event::Kind::kCommit, e.file, -1);
  if (!end.ok()) return end.status();
  ++(rollback ? summary_.rollbacks : summary_.commits);
  return absl::OkStatus();
}

void SessionLoop::Publish(bool connected) {
  const stats::StatValues now = session_->Stats() - baseline_;
  summary_.redo_size = now[Stat::kRedoSize];
  summary_.undo_change_vector_size = now[Stat::kUndoChangeVectorSize];
  MutexLock l(&run_.shared.mu);
  run_.shared.sessions[i_] = summary_;
  run_.shared.connected[i_] = connected;
}

// $dbh->disconnect: the session rolls back what it did not commit.
void SessionLoop::Disconnect() {
  if (session_ != nullptr) {
    if (trace_.is_open()) (void)trace_.Close();
    session_.reset();  // rolls back uncommitted work (DBD::Oracle's disconnect)
  }
  MutexLock l(&run_.shared.mu);
  run_.shared.sessions[i_] = summary_;
  run_.shared.connected[i_] = false;
  run_.shared.end_ns = std::max(run_.shared.end_ns, run_.clock()->NowNanos());
}

// The seed's monitor at one instant (see Sample).
Sample TakeSample(RunContext& run, db::Session* monitor, uint64_t now_ns) {
  Sample s;
  s.t_s = static_cast<double>(now_ns - run.start_ns) / 1e9;
  {
    MutexLock l(&run.shared.mu);
    for (size_t i = 0; i < run.shared.sessions.size(); ++i) {
      const SessionSummary& x = run.shared.sessions[i];
      s.sessions += run.shared.connected[i] ? 1 : 0;
      s.transactions += x.commits + x.rollbacks;
      s.executions += x.executions;
      s.redo_size += x.redo_size;
      s.undo_change_vector_size += x.undo_change_vector_size;
    }
  }
  if (!run.o.tally_sql.empty()) {
    absl::StatusOr<db::StatementResult> r = monitor->Execute(run.o.tally_sql);
    if (r.ok()) {
      s.tally = 0;
      for (const auto& row : r->result_rows) {
        if (!row.empty()) s.tally += std::atoll(row[0].c_str());
      }
    }
  }
  return s;
}

// The monitor, on the caller's thread (participant `n`): a sample every
// interval while sessions run, then the final one.
void Monitor(RunContext& run, size_t n, RunResult* out) {
  std::unique_ptr<db::Session> monitor = run.db->NewSession();
  const uint64_t step = std::max<uint64_t>(Ns(run.o.sample_interval_s), 1'000'000);
  for (uint64_t t = run.start_ns + step;; t += step) {
    if (run.pacer.simulated()) {
      run.pacer.Turn(n, t);
    } else {
      while (run.clock()->NowNanos() < t && run.pacer.Finished(n) < n) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
    }
    if (run.pacer.Finished(n) == n) break;
    out->samples.push_back(TakeSample(run, monitor.get(), t));
    if (run.o.on_sample) run.o.on_sample(out->samples.back());
  }
  uint64_t end;
  {
    MutexLock l(&run.shared.mu);
    end = std::max(run.shared.end_ns, run.start_ns);
  }
  if (run.pacer.simulated()) run.clock()->SetThreadNanos(end);
  out->final_sample = TakeSample(run, monitor.get(), run.pacer.simulated() ? end : run.clock()->NowNanos());
  out->samples.push_back(out->final_sample);
  if (run.o.on_sample) run.o.on_sample(out->final_sample);
  out->elapsed_s = out->final_sample.t_s;
  run.pacer.Finish(n);
}

absl::Status CheckOptions(const SqlDir& dir, const RunOptions& o) {
  if (o.max_sessions < 1) return absl::InvalidArgumentError("--max-sessions must be at least 1");
  if (o.runtime_s < 1) return absl::InvalidArgumentError("--runtime must be at least 1 second");
  if (o.exe_delay_s < 0 || o.connect_delay_s < 0) {
    return absl::InvalidArgumentError("--exe-delay and --connect-delay must not be negative");
  }
  if (o.tx_per_transaction < 0) return absl::InvalidArgumentError("--tx-per-transaction must not be negative");
  if (o.sample_interval_s <= 0) return absl::InvalidArgumentError("the monitor interval must be positive");
  if (dir.entries.empty()) return absl::InvalidArgumentError("the SQL directory lists no statement");
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<RunResult> RunSqlDir(db::Database* db, const SqlDir& dir, const RunOptions& o) {
  if (absl::Status s = CheckOptions(dir, o); !s.ok()) return s;
  Clock* clock = db->rack()->clock();
  const size_t n = static_cast<size_t>(o.max_sessions);
  // Sqlrun runs against a database that has been open a while: its one-time
  // work is done before the timer starts (the sessions' connects, their
  // setup and their first parse stay inside it, as in Sqlrun).
  db->WarmUp();
  const uint64_t start = clock->NowNanos();  // the parent's Timer, before forking
  const uint64_t deadline = TimerDeadline(clock, start, o.runtime_s);
  std::vector<uint64_t> starts(n + 1, start);
  for (size_t i = 0; i < n && o.connect_mode == ConnectMode::kTrickle; ++i) {
    starts[i] = start + Ns(o.connect_delay_s) * i;
  }
  starts[n] = start + std::max<uint64_t>(Ns(o.sample_interval_s), 1'000'000);
  internal::Pacer pacer(clock, starts, o.cancel);
  Shared shared;
  {
    MutexLock l(&shared.mu);
    shared.sessions.resize(n);
    shared.connected.assign(n, false);
  }
  RunContext run{db, dir, o, pacer, shared, StatementArray(dir, o.exe_mode), start, deadline};
  std::vector<std::thread> threads;
  // Every thread waits at the gate until all exist: when the machine refuses
  // one (a session is a thread), none has started its session.
  for (size_t i = 0; i < n; ++i) {
    try {
      threads.emplace_back([&run, i] {
        run.gate.wait(0);
        if (run.gate.load() == 1) SessionLoop(run, i).Go();
      });
    } catch (const std::system_error& e) {
      run.gate.store(2);
      run.gate.notify_all();
      for (std::thread& t : threads) t.join();
      return absl::ResourceExhaustedError(fmt::format(
          "cannot start session {} of {}: {} (each session is a thread of this process; this "
          "machine allows fewer: lower --max-sessions)",
          i + 1, n, e.what()));
    }
  }
  run.gate.store(1);
  run.gate.notify_all();
  run.all_started.store(true);
  RunResult result;
  result.simulated = clock->simulated();
  result.timer_s = static_cast<double>(deadline - start) / 1e9;
  Monitor(run, n, &result);
  for (std::thread& t : threads) t.join();
  MutexLock l(&shared.mu);
  result.sessions = shared.sessions;
  result.events = std::move(shared.events);
  std::stable_sort(result.events.begin(), result.events.end(),
                   [](const Event& a, const Event& b) { return a.time_ns < b.time_ns; });
  result.warnings = std::move(shared.warnings);
  return result;
}

}  // namespace cellsim::sqlrun
