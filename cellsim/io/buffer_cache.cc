#include "cellsim/io/buffer_cache.h"

#include <sys/mman.h>

#include <cstdlib>
#include <iterator>
#include <list>

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

// Cached blocks, most recently given first. A list scanned for an exact
// (size, alignment) match: it holds at most kBufferCacheBytes / 64 KiB
// blocks, in practice a few dozen, and every take is followed by zeroing at
// least 64 KiB, which costs far more than the scan.
class BufferCache {
 public:
  void* Take(size_t bytes, size_t align) {
    {
      MutexLock l(&mu_);
      // The newest match: its pages are the likeliest to be in the CPU's caches.
      for (auto it = blocks_.begin(); it != blocks_.end(); ++it) {
        if (it->bytes != bytes || it->align != align) continue;
        void* p = it->block;
        blocks_.erase(it);
        cached_bytes_ -= bytes;
        ++hits_;
        CELLSIM_UNPOISON(p, bytes);
        return p;
      }
      ++misses_;
    }
    void* p = std::aligned_alloc(align, bytes);
    // A new block of huge-page alignment is advised for transparent huge
    // pages (io_backend.cc says why); a reused one already was.
    if (p != nullptr && align >= kHugePage) (void)madvise(p, bytes, MADV_HUGEPAGE);
    return p;
  }

  void Give(void* p, size_t bytes, size_t align) {
    if (bytes > kBufferCacheBytes) {  // never cached
      std::free(p);
      return;
    }
    std::list<Entry> evicted;
    {
      MutexLock l(&mu_);
      CELLSIM_POISON(p, bytes);
      blocks_.push_front({p, bytes, align});
      cached_bytes_ += bytes;
      while (cached_bytes_ > kBufferCacheBytes) {
        cached_bytes_ -= blocks_.back().bytes;
        evicted.splice(evicted.end(), blocks_, std::prev(blocks_.end()));
      }
    }
    Free(evicted);  // outside the lock
  }

  BufferCacheStats Stats() {
    MutexLock l(&mu_);
    return {hits_, misses_, cached_bytes_, blocks_.size()};
  }

  void Trim() {
    std::list<Entry> evicted;
    {
      MutexLock l(&mu_);
      evicted.swap(blocks_);
      cached_bytes_ = 0;
    }
    Free(evicted);
  }

 private:
  struct Entry {
    void* block;
    size_t bytes;
    size_t align;
  };

  static void Free(const std::list<Entry>& blocks) {
    for (const Entry& e : blocks) {
      CELLSIM_UNPOISON(e.block, e.bytes);
      std::free(e.block);
    }
  }

  Mutex mu_;
  std::list<Entry> blocks_ ABSL_GUARDED_BY(mu_);  // most recently given first
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
