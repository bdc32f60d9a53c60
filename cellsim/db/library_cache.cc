#include "cellsim/db/library_cache.h"

#include <algorithm>

namespace cellsim::db::internal {

void LibraryCache::Begin(uint32_t sid, std::string_view text, int64_t now_unix) {
  MutexLock lock(&mu_);
  auto it = by_text_.find(text);
  if (it == by_text_.end()) {
    AgeOutLocked();
    Cursor c;
    c.text = std::string(text);
    c.id = SqlIdOf(text);
    c.command_type = CommandTypeOf(text);
    c.first_load_unix = now_unix;
    lru_.push_front(std::move(c));
    it = by_text_.emplace(lru_.front().text, lru_.begin()).first;
  } else {
    lru_.splice(lru_.begin(), lru_, it->second);
  }
  Cursor& c = *it->second;
  ++c.parse_calls;
  ++c.executions;
  ++c.users_executing;
  c.last_active_unix = now_unix;
  sessions_[sid].current = c.id;
}

void LibraryCache::End(uint32_t sid, std::string_view text, const CursorExecution& x,
                       int64_t now_unix) {
  MutexLock lock(&mu_);
  SessionSql& s = sessions_[sid];
  if (!x.failed_in_parse) s.previous = std::move(s.current);
  s.current.reset();
  const auto it = by_text_.find(text);
  if (it == by_text_.end()) return;  // Begin never saw it (cannot be aged out while running)
  Cursor& c = *it->second;
  c.users_executing = std::max<int64_t>(0, c.users_executing - 1);
  if (x.failed_in_parse) {
    --c.parse_calls;
    --c.executions;
    if (c.parse_calls <= 0 && c.users_executing == 0) {
      lru_.erase(it->second);
      by_text_.erase(it);
    }
    return;
  }
  c.rows_processed += x.rows;
  c.elapsed_ns += x.elapsed_ns;
  c.cpu_ns += x.cpu_ns;
  c.last_active_unix = now_unix;
  if (x.stats != nullptr) c.stats += *x.stats;
  if (x.waits == nullptr) return;
  for (size_t i = 0; i < stats::kWaitCount; ++i) {
    const uint64_t ns = static_cast<uint64_t>(x.waits->v[i].total_ns);
    switch (stats::kWaitTable[i].wait_class) {
      case stats::WaitClass::kApplication:
        c.application_wait_ns += ns;
        break;
      case stats::WaitClass::kConcurrency:
        c.concurrency_wait_ns += ns;
        break;
      case stats::WaitClass::kUserIo:
        c.user_io_wait_ns += ns;
        break;
      default:
        break;
    }
  }
}

void LibraryCache::Forget(uint32_t sid) {
  MutexLock lock(&mu_);
  sessions_.erase(sid);
}

void LibraryCache::Flush() {
  MutexLock lock(&mu_);
  for (auto it = lru_.begin(); it != lru_.end();) {
    if (it->users_executing > 0) {
      ++it;
      continue;
    }
    by_text_.erase(it->text);
    it = lru_.erase(it);
  }
}

void LibraryCache::AgeOutLocked() {
  if (lru_.size() < capacity_) return;
  for (auto it = lru_.end(); it != lru_.begin();) {
    --it;
    if (it->users_executing > 0) continue;
    by_text_.erase(it->text);
    lru_.erase(it);
    return;
  }
}

std::vector<Cursor> LibraryCache::Cursors() const {
  MutexLock lock(&mu_);
  return std::vector<Cursor>(lru_.begin(), lru_.end());
}

LibraryCache::SessionSql LibraryCache::SqlOf(uint32_t sid) const {
  MutexLock lock(&mu_);
  const auto it = sessions_.find(sid);
  return it == sessions_.end() ? SessionSql{} : it->second;
}

}  // namespace cellsim::db::internal
