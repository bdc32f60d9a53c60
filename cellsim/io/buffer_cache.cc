#include "cellsim/io/buffer_cache.h"

#include <cstdlib>
#include <iterator>
#include <list>
#include <map>
#include <utility>

#include "cellsim/base/mutex.h"

#if defined(__SANITIZE_ADDRESS__)
#define CELLSIM_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CELLSIM_ASAN 1
#endif
#endif
#ifdef CELLSIM_ASAN
#include <sanitizer/asan_interface.h>
#define CELLSIM_POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define CELLSIM_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define CELLSIM_POISON(p, n) ((void)(p), (void)(n))
#define CELLSIM_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

namespace cellsim::io::internal {
namespace {

// Blocks by (size, alignment), least recently given at the back of `lru_`.
class BufferCache {
 public:
  void* Take(size_t bytes, size_t align) {
    {
      MutexLock l(&mu_);
      // Equal keys keep their insertion order: the last one was given most
      // recently (its pages the likeliest to be in the CPU's caches).
      auto it = by_key_.upper_bound({bytes, align});
      if (it != by_key_.begin() && (--it)->first == Key{bytes, align}) {
        void* p = it->second->block;
        lru_.erase(it->second);
        by_key_.erase(it);
        cached_bytes_ -= bytes;
        ++hits_;
        CELLSIM_UNPOISON(p, bytes);
        return p;
      }
      ++misses_;
    }
    return std::aligned_alloc(align, bytes);
  }

  void Give(void* p, size_t bytes, size_t align) {
    std::list<Entry> evicted;
    {
      MutexLock l(&mu_);
      if (bytes > kBufferCacheBytes) {
        evicted.push_back({p, bytes, align});
      } else {
        CELLSIM_POISON(p, bytes);
        lru_.push_front({p, bytes, align});
        by_key_.insert({{bytes, align}, lru_.begin()});
        cached_bytes_ += bytes;
        while (cached_bytes_ > kBufferCacheBytes) EvictOldestLocked(&evicted);
      }
    }
    for (const Entry& e : evicted) {  // freed outside the lock
      CELLSIM_UNPOISON(e.block, e.bytes);
      std::free(e.block);
    }
  }

  BufferCacheStats Stats() {
    MutexLock l(&mu_);
    return {hits_, misses_, cached_bytes_, lru_.size()};
  }

  void Trim() {
    std::list<Entry> evicted;
    {
      MutexLock l(&mu_);
      while (!lru_.empty()) EvictOldestLocked(&evicted);
    }
    for (const Entry& e : evicted) {
      CELLSIM_UNPOISON(e.block, e.bytes);
      std::free(e.block);
    }
  }

 private:
  struct Entry {
    void* block;
    size_t bytes;
    size_t align;
  };
  using Key = std::pair<size_t, size_t>;  // bytes, alignment

  void EvictOldestLocked(std::list<Entry>* out) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    auto last = std::prev(lru_.end());
    auto [lo, hi] = by_key_.equal_range({last->bytes, last->align});
    for (auto it = lo; it != hi; ++it) {
      if (it->second == last) {
        by_key_.erase(it);
        break;
      }
    }
    cached_bytes_ -= last->bytes;
    out->splice(out->end(), lru_, last);
  }

  Mutex mu_;
  std::list<Entry> lru_ ABSL_GUARDED_BY(mu_);  // most recently given first
  std::multimap<Key, std::list<Entry>::iterator> by_key_ ABSL_GUARDED_BY(mu_);
  uint64_t cached_bytes_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t hits_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t misses_ ABSL_GUARDED_BY(mu_) = 0;
};

BufferCache& Cache() {
  static BufferCache* cache = new BufferCache;  // never destroyed: see the header
  return *cache;
}

}  // namespace

void* TakeBlock(size_t bytes, size_t align) {
  if (bytes < kCachedBlockMin) return std::aligned_alloc(align, bytes);
  return Cache().Take(bytes, align);
}

void GiveBlock(void* block, size_t bytes, size_t align) {
  if (block == nullptr) return;
  if (bytes < kCachedBlockMin) {
    std::free(block);
    return;
  }
  Cache().Give(block, bytes, align);
}

BufferCacheStats GetBufferCacheStats() { return Cache().Stats(); }

void TrimBufferCache() { Cache().Trim(); }

}  // namespace cellsim::io::internal
