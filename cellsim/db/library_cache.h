// Private: the instance's library cache, one cursor per distinct statement
// text with what its executions cost (V$SQL, V$SQLAREA), and the statement
// each session runs and ran last (V$SESSION.SQL_ID, PREV_SQL_ID).
//
// Threading: every method is safe from any thread; one leaf mutex (nothing
// is taken while holding it). Sessions call Begin and End around a statement
// without the data engine's mutex; the views read Cursors and SqlOf under it.
#ifndef CELLSIM_DB_LIBRARY_CACHE_H_
#define CELLSIM_DB_LIBRARY_CACHE_H_

#include <cstdint>
#include <functional>
#include <list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cellsim/base/mutex.h"
#include "cellsim/db/sql_id.h"
#include "cellsim/stats/statistics.h"

namespace cellsim::db::internal {

struct Cursor {
  std::string text;
  SqlIdentity id;
  int command_type = 0;
  int64_t parse_calls = 0, executions = 0, users_executing = 0, rows_processed = 0;
  uint64_t elapsed_ns = 0, cpu_ns = 0;
  // Wait time by class (V$SQL's *_WAIT_TIME).
  uint64_t application_wait_ns = 0, concurrency_wait_ns = 0, user_io_wait_ns = 0;
  // What the executions' statistics add up to (the I/O columns).
  stats::StatValues stats;
  int64_t first_load_unix = 0, last_active_unix = 0;
};

// One execution's figures, success or failure.
struct CursorExecution {
  uint64_t elapsed_ns = 0, cpu_ns = 0;
  int64_t rows = 0;
  const stats::StatValues* stats = nullptr;  // the statement's deltas
  const stats::WaitValues* waits = nullptr;
  // It failed with an error Oracle raises when it parses (a table or column
  // that does not exist, ...): Oracle never loaded a cursor for it, so Begin
  // is undone (the cursor goes if nothing else used it).
  bool failed_in_parse = false;
};

class LibraryCache {
 public:
  // At most `capacity` cursors: a new one ages out the least recently used
  // cursor no session is running (Oracle's shared pool ages cursors out too).
  static constexpr size_t kDefaultCapacity = 10'000;
  explicit LibraryCache(size_t capacity = kDefaultCapacity) : capacity_(capacity) {}
  LibraryCache(const LibraryCache&) = delete;
  LibraryCache& operator=(const LibraryCache&) = delete;

  // Session `sid` parsed `text` and starts it: the cursor (loaded if new),
  // one more parse call and execution, one more user executing it; it is the
  // session's current statement.
  void Begin(uint32_t sid, std::string_view text, int64_t now_unix) ABSL_LOCKS_EXCLUDED(mu_);
  // The execution Begin started ended: its time, rows, waits and I/O; the
  // statement becomes the session's previous one (unless it failed in parse).
  void End(uint32_t sid, std::string_view text, const CursorExecution& x, int64_t now_unix)
      ABSL_LOCKS_EXCLUDED(mu_);
  // A session ended: it runs nothing.
  void Forget(uint32_t sid) ABSL_LOCKS_EXCLUDED(mu_);
  // ALTER SYSTEM FLUSH SHARED_POOL: every cursor no session is running goes
  // (the next parse of its text loads it again, its counts from 0).
  void Flush() ABSL_LOCKS_EXCLUDED(mu_);

  // Every cursor, the most recently used first.
  std::vector<Cursor> Cursors() const ABSL_LOCKS_EXCLUDED(mu_);
  struct SessionSql {
    std::optional<SqlIdentity> current, previous;
  };
  SessionSql SqlOf(uint32_t sid) const ABSL_LOCKS_EXCLUDED(mu_);

 private:
  // Most recently used first; `by_text_` points into it.
  using CursorList = std::list<Cursor>;
  void AgeOutLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const size_t capacity_;
  mutable Mutex mu_;
  CursorList lru_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, CursorList::iterator, std::less<>> by_text_ ABSL_GUARDED_BY(mu_);
  std::map<uint32_t, SessionSql> sessions_ ABSL_GUARDED_BY(mu_);
};

}  // namespace cellsim::db::internal

#endif  // CELLSIM_DB_LIBRARY_CACHE_H_
