// The memory under large AlignedBuffers: blocks of 64 KiB and more are kept
// after their buffer is destroyed and handed to the next buffer of the same
// size, up to a cap, instead of going back to the allocator.
//
// Why: a block that large is mapped fresh by the allocator (glibc above its
// mmap threshold, which stops growing at 32 MiB; the sanitizers' allocators
// for every block above 128 KiB) and unmapped when freed, so each new buffer
// pays one page fault per 4 KiB page on first touch, and each free a TLB
// shootdown. On a virtual machine a fault costs several microseconds: opening
// a cell (its 4 MiB journal read into a new buffer), each cache write's
// staging lines and each resync batch spent more time in the kernel than in
// cellsim (an ASan run of the corruption campaign: 2.9 million faults, 48 s
// of system time against 30 s of user time).
//
// Thread-safe; process-wide (never destroyed, so buffers in static objects
// may outlive everything else). Under AddressSanitizer a cached block is
// poisoned, so a buffer used after its destruction is still reported.
#ifndef CELLSIM_IO_BUFFER_CACHE_H_
#define CELLSIM_IO_BUFFER_CACHE_H_

#include <cstddef>
#include <cstdint>

namespace cellsim::io::internal {

// Blocks smaller than this are not cached (the allocator's own size classes
// serve them from memory it keeps).
inline constexpr size_t kCachedBlockMin = size_t{64} << 10;
// The most bytes kept; the least recently given blocks are freed beyond it.
inline constexpr size_t kBufferCacheBytes = size_t{128} << 20;

// x86-64's transparent huge page: blocks aligned to it are advised for THP.
inline constexpr size_t kHugePage = size_t{2} << 20;

// A block of exactly `bytes` aligned to `align` (a power of two dividing
// `bytes`): a cached one when there is one, else a new one (advised for
// transparent huge pages when `align` >= kHugePage); nullptr when the
// allocation fails. Its contents are unspecified.
void* TakeBlock(size_t bytes, size_t align);
// Gives back a block from TakeBlock with the same `bytes` and `align`.
void GiveBlock(void* block, size_t bytes, size_t align);

struct BufferCacheStats {
  uint64_t hits = 0;    // TakeBlock calls served from the cache
  uint64_t misses = 0;  // TakeBlock calls of a cacheable size that allocated
  uint64_t cached_bytes = 0;
  uint64_t cached_blocks = 0;
};
BufferCacheStats GetBufferCacheStats();
// Frees every cached block (tests; a long-lived host after a burst).
void TrimBufferCache();

}  // namespace cellsim::io::internal

#endif  // CELLSIM_IO_BUFFER_CACHE_H_
