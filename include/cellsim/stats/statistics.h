// Statistics and wait events with Oracle's exact names (V$STATNAME,
// V$EVENT_NAME), one enum each with a constexpr table, and the counter sets that
// sessions, the instance and cells keep. Every layer counts through these, so a
// name is spelt in exactly one place. docs/statistics.md gives each rule.
//
// Usage:
//   StatSet s;
//   s.Add(Stat::kPhysicalWriteTotalBytes, 4 * kMiB);
//   int64_t v = s.Get(Stat::kPhysicalWriteTotalBytes);
//   std::string_view name = StatName(Stat::kPhysicalWriteTotalBytes);
//   WaitSet w; w.Record(Wait::kCellSmartFileCreation, 1'200'000 /*ns*/);
//   uint64_t p99 = WaitPercentileNs(w.Snapshot()[Wait::kCellSmartFileCreation], 0.99);
//   WaitHistory h; h.Record(Wait::kCellSmartFileCreation, {cellhash, 0, 0}, ns, end_ns);
//   std::vector<WaitEvent> last = h.Last();  // newest first, at most 10
//
// Thread-safety: StatSet and WaitSet use relaxed atomics, so one writer and any
// number of readers (an instance summing sessions) is safe; Snapshot() gives a
// plain copy for deltas. WaitHistory takes a mutex per wait (uncontended: its
// session's thread writes, a view reads now and then).
#ifndef CELLSIM_STATS_STATISTICS_H_
#define CELLSIM_STATS_STATISTICS_H_

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "absl/types/span.h"
#include "cellsim/base/mutex.h"

namespace cellsim::stats {

// V$STATNAME.CLASS bits.
enum StatClass : uint8_t {
  kClassUser = 1,
  kClassRedo = 2,
  kClassCache = 8,
  kClassOs = 16,
  kClassSql = 64,
  kClassDebug = 128,
};

// Invariants (asserted in tests):
//   multi block requests <= total IO requests; optimized requests <= total IO
//   requests; physical write IO requests <= physical write total IO requests;
//   physical write bytes <= physical write total bytes; the same of reads;
//   session logical reads = db block gets + consistent gets.
//
// One row per statistic: the enumerator, the exact V$STATNAME.NAME and its
// V$STATNAME.CLASS. The enum and kStatTable are both made from this list, so
// they cannot drift apart.
#define CELLSIM_STATISTICS(X) \
  X(kPhysicalWriteTotalIoRequests, "physical write total IO requests", kClassCache) \
  X(kPhysicalWriteTotalBytes, "physical write total bytes", kClassCache) \
  X(kPhysicalWriteTotalMultiBlockRequests, "physical write total multi block requests", kClassCache) \
  X(kPhysicalWriteRequestsOptimized, "physical write requests optimized", kClassCache) \
  X(kPhysicalWriteTotalBytesOptimized, "physical write total bytes optimized", kClassCache) \
  X(kPhysicalWriteIoRequests, "physical write IO requests", kClassCache) \
  X(kPhysicalWriteBytes, "physical write bytes", kClassCache) \
  X(kPhysicalReadTotalIoRequests, "physical read total IO requests", kClassCache) \
  X(kPhysicalReadTotalBytes, "physical read total bytes", kClassCache) \
  X(kPhysicalReadTotalMultiBlockRequests, "physical read total multi block requests", kClassCache) \
  X(kPhysicalReadRequestsOptimized, "physical read requests optimized", kClassCache) \
  X(kPhysicalReadTotalBytesOptimized, "physical read total bytes optimized", kClassCache) \
  X(kCellPhysicalIoInterconnectBytes, "cell physical IO interconnect bytes", kClassSql) \
  X(kCellPhysicalIoBytesSavedDuringOptimizedFileCreation, "cell physical IO bytes saved during optimized file creation", kClassSql) \
  X(kCellPhysicalIoBytesEligibleForPredicateOffload, "cell physical IO bytes eligible for predicate offload", kClassSql) \
  X(kCellWritesToFlashCache, "cell writes to flash cache", kClassCache) \
  X(kCellOverwritesInFlashCache, "cell overwrites in flash cache", kClassCache) \
  X(kCellPartialWritesInFlashCache, "cell partial writes in flash cache", kClassCache) \
  X(kCellFlashCacheReadHits, "cell flash cache read hits", kClassCache) \
  X(kCellLogicalWriteIoRequests, "cell logical write IO requests", kClassCache) \
  X(kRedoSize, "redo size", kClassRedo) \
  X(kRedoWrites, "redo writes", kClassRedo) \
  X(kUserCalls, "user calls", kClassUser) \
  X(kExecuteCount, "execute count", kClassSql) \
  X(kParseCountTotal, "parse count (total)", kClassSql) \
  X(kCpuUsedByThisSession, "CPU used by this session", kClassUser) /* centiseconds */ \
  X(kDbTime, "DB time", kClassUser) /* centiseconds */ \
  /* Transactions, undo and redo (docs/redo.md). */ \
  X(kRedoEntries, "redo entries", kClassRedo) \
  X(kRedoBlocksWritten, "redo blocks written", kClassRedo) \
  X(kRedoSynchWrites, "redo synch writes", kClassRedo) \
  X(kRedoWastage, "redo wastage", kClassRedo) \
  X(kUndoChangeVectorSize, "undo change vector size", kClassUser) \
  X(kUserCommits, "user commits", kClassUser) \
  X(kUserRollbacks, "user rollbacks", kClassUser) \
  X(kDbBlockChanges, "db block changes", kClassCache) \
  X(kPhysicalWrites, "physical writes", kClassCache) \
  /* Read consistency: rows rebuilt from another open transaction's undo. */ \
  X(kDataBlocksConsistentReadsUndoRecordsApplied, \
    "data blocks consistent reads - undo records applied", kClassDebug) \
  /* Logical and physical reads of the buffer cache (docs/statistics.md \
     "Logical reads"): session logical reads = db block gets + consistent gets. */ \
  X(kSessionLogicalReads, "session logical reads", kClassUser) \
  X(kDbBlockGets, "db block gets", kClassCache) \
  X(kConsistentGets, "consistent gets", kClassCache) \
  X(kPhysicalReads, "physical reads", kClassCache) \
  X(kPhysicalReadIoRequests, "physical read IO requests", kClassCache) \
  X(kPhysicalReadBytes, "physical read bytes", kClassCache) \
  X(kSortsMemory, "sorts (memory)", kClassSql) \
  X(kSortsRows, "sorts (rows)", kClassSql)

enum class Stat : uint16_t {
#define CELLSIM_STAT_ENUMERATOR(enumerator, name, stat_class) enumerator,
  CELLSIM_STATISTICS(CELLSIM_STAT_ENUMERATOR)
#undef CELLSIM_STAT_ENUMERATOR
  kCount,
};
inline constexpr size_t kStatCount = static_cast<size_t>(Stat::kCount);

struct StatInfo {
  std::string_view name;  // exact V$STATNAME.NAME
  uint8_t stat_class;
};

inline constexpr std::array<StatInfo, kStatCount> kStatTable = {{
#define CELLSIM_STAT_INFO(enumerator, name, stat_class) {name, stat_class},
    CELLSIM_STATISTICS(CELLSIM_STAT_INFO)
#undef CELLSIM_STAT_INFO
}};

constexpr std::string_view StatName(Stat s) { return kStatTable[static_cast<size_t>(s)].name; }
// Looks a statistic up by its exact Oracle name.
std::optional<Stat> StatByName(std::string_view name);

enum class WaitClass : uint8_t {
  kUserIo,
  kSystemIo,
  kOther,
  kCommit,
  kConcurrency,
  kConfiguration,
  kApplication,
  kIdle,  // a session waiting for work, not in the database's time (DB time)
};
std::string_view WaitClassName(WaitClass c);
// V$SYSTEM_WAIT_CLASS's WAIT_CLASS# and WAIT_CLASS_ID of a class, Oracle's
// fixed numbers (the same in every release since 10g).
struct WaitClassIds {
  uint32_t number;  // WAIT_CLASS#: Other 0, Application 1, ... System I/O 9
  uint32_t id;      // WAIT_CLASS_ID: User I/O 1740759767, ...
};
WaitClassIds WaitClassIdsOf(WaitClass c);

// One row per wait event: the enumerator, the exact V$EVENT_NAME.NAME, its wait
// class and the names of P1, P2, P3 (V$EVENT_NAME.PARAMETER1..3; "" when Oracle
// has none). The enum and kWaitTable are both made from it. What cellsim puts
// in each parameter, and where Oracle's meaning is unknown, is in
// docs/statistics.md "Wait parameters".
#define CELLSIM_WAIT_EVENTS(X) \
  X(kCellSmartFileCreation, "cell smart file creation", WaitClass::kUserIo, "cellhash#", "", "") \
  X(kDataFileInitWrite, "Data file init write", WaitClass::kUserIo, "count", "intr", "timeout") \
  X(kLogFileInitWrite, "Log file init write", WaitClass::kUserIo, "count", "intr", "timeout") \
  X(kControlFileParallelWrite, "control file parallel write", WaitClass::kSystemIo, "files", "block#", "requests") \
  X(kControlFileSequentialRead, "control file sequential read", WaitClass::kSystemIo, "file#", "block#", "blocks") \
  X(kLogFileSingleWrite, "log file single write", WaitClass::kSystemIo, "log#", "block#", "blocks") \
  X(kDbFileSingleWrite, "db file single write", WaitClass::kUserIo, "file#", "block#", "blocks") \
  X(kDiskFileOperationsIo, "Disk file operations I/O", WaitClass::kUserIo, "FileOperation", "fileno", "filetype") \
  X(kKsvMasterWait, "KSV master wait", WaitClass::kOther, "", "", "") \
  X(kAsmFileMetadataOperation, "ASM file metadata operation", WaitClass::kOther, "msgop", "locn", "") \
  X(kLogFileSync, "log file sync", WaitClass::kCommit, "buffer#", "sync scn", "") \
  X(kLogFileParallelWrite, "log file parallel write", WaitClass::kSystemIo, "files", "blocks", "requests") \
  X(kDbFileParallelWrite, "db file parallel write", WaitClass::kSystemIo, "requests", "interrupt", "timeout") \
  X(kCellSingleBlockPhysicalRead, "cell single block physical read", WaitClass::kUserIo, "cellhash#", "diskhash#", "bytes") \
  X(kCellMultiblockPhysicalRead, "cell multiblock physical read", WaitClass::kUserIo, "cellhash#", "diskhash#", "bytes") \
  X(kLogFileSwitchCompletion, "log file switch completion", WaitClass::kConfiguration, "", "", "") \
  X(kLogFileSwitchArchivingNeeded, "log file switch (archiving needed)", WaitClass::kConfiguration, "", "", "") \
  X(kLogArchiveIo, "Log archive I/O", WaitClass::kSystemIo, "count", "intr", "timeout") \
  X(kEnqTxRowLockContention, "enq: TX - row lock contention", WaitClass::kApplication, "name|mode", "usn<<16 | slot", "sequence") \
  X(kPlsqlLockTimer, "PL/SQL lock timer", WaitClass::kIdle, "duration", "", "")

enum class Wait : uint16_t {
#define CELLSIM_WAIT_ENUMERATOR(enumerator, ...) enumerator,
  CELLSIM_WAIT_EVENTS(CELLSIM_WAIT_ENUMERATOR)
#undef CELLSIM_WAIT_ENUMERATOR
  kCount,
};
inline constexpr size_t kWaitCount = static_cast<size_t>(Wait::kCount);

struct WaitInfo {
  std::string_view name;  // exact V$EVENT_NAME.NAME
  WaitClass wait_class;
  std::string_view p1, p2, p3;  // parameter names
};

inline constexpr std::array<WaitInfo, kWaitCount> kWaitTable = {{
#define CELLSIM_WAIT_INFO(enumerator, ...) {__VA_ARGS__},
    CELLSIM_WAIT_EVENTS(CELLSIM_WAIT_INFO)
#undef CELLSIM_WAIT_INFO
}};

constexpr std::string_view WaitName(Wait w) { return kWaitTable[static_cast<size_t>(w)].name; }
std::optional<Wait> WaitByName(std::string_view name);
// The name of parameter `i` (1..3) of `w` as a 10046 trace prints it: Oracle's
// name, or "p1".."p3" when the event has none.
std::string_view WaitParamTraceName(Wait w, int i);

// P1, P2, P3 of one wait, with the meanings kWaitTable names.
struct WaitParams {
  uint64_t p1 = 0, p2 = 0, p3 = 0;
};

// One wait of a session, as V$SESSION_WAIT_HISTORY shows it.
struct WaitEvent {
  Wait event = Wait::kCount;
  WaitParams params;
  uint64_t ns = 0;             // how long it lasted
  uint64_t end_ns = 0;         // when it ended (the database's clock)
  uint64_t since_last_ns = 0;  // from the end of the session's previous wait to its start
  uint64_t seq = 0;            // the session's waits so far, this one included (from 1)
};

// A wait of one event as it ended, for recording many at once (a fast
// creation's thousands of creation waits).
struct EndedWait {
  uint64_t ns = 0;      // how long it lasted
  uint64_t end_ns = 0;  // when it ended
  WaitParams params;
};

// A session's last waits with their parameters: a fixed ring (no allocation
// per wait), and, while a trace is on, every wait of the current call.
class WaitHistory {
 public:
  // V$SESSION_WAIT_HISTORY: "the last 10 wait events for each active session".
  static constexpr size_t kCapacity = 10;
  // A wait of `ns` that ended at `end_ns`.
  void Record(Wait w, const WaitParams& p, uint64_t ns, uint64_t end_ns);
  // Record() of each of `waits`, in order, under one lock.
  void RecordAll(Wait w, absl::Span<const EndedWait> waits);
  // The last min(kCapacity, waits so far) waits, newest first.
  std::vector<WaitEvent> Last() const;
  // Drops what was kept; from now on, when `keep`, every Record is also kept
  // in order until TakeCapture returns them and stops keeping them (a call's
  // WAIT lines in a 10046 trace).
  void ResetCapture(bool keep);
  std::vector<WaitEvent> TakeCapture();

 private:
  mutable Mutex mu_;
  void RecordLocked(Wait w, const WaitParams& p, uint64_t ns, uint64_t end_ns)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  std::array<WaitEvent, kCapacity> ring_ ABSL_GUARDED_BY(mu_);
  uint64_t count_ ABSL_GUARDED_BY(mu_) = 0;
  bool capturing_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<WaitEvent> capture_ ABSL_GUARDED_BY(mu_);
};

// A plain (non-atomic) copy of a StatSet, for deltas and reports.
struct StatValues {
  std::array<int64_t, kStatCount> v{};
  int64_t operator[](Stat s) const { return v[static_cast<size_t>(s)]; }
  int64_t& operator[](Stat s) { return v[static_cast<size_t>(s)]; }
  StatValues operator-(const StatValues& o) const;
  StatValues& operator+=(const StatValues& o);
};

class StatSet {
 public:
  void Add(Stat s, int64_t delta) {
    v_[static_cast<size_t>(s)].fetch_add(delta, std::memory_order_relaxed);
  }
  int64_t Get(Stat s) const { return v_[static_cast<size_t>(s)].load(std::memory_order_relaxed); }
  void AddAll(const StatValues& values);
  StatValues Snapshot() const;

 private:
  std::array<std::atomic<int64_t>, kStatCount> v_{};
};

// Wait-time histogram, as Oracle's V$EVENT_HISTOGRAM_MICRO: power-of-two
// buckets in microseconds. Bucket 0 counts waits under 1 us, bucket b >= 1
// waits of [2^(b-1), 2^b) us (Oracle's WAIT_TIME_MICRO column is the upper
// edge 2^b); the last bucket (35) takes every wait of 2^34 us (about 4.8
// hours) or longer.
inline constexpr size_t kWaitHistogramBuckets = 36;
// The bucket a wait of `ns` nanoseconds falls in (whole microseconds, truncated).
size_t WaitHistogramBucket(uint64_t ns);
// Upper edge of bucket b in microseconds (2^b); UINT64_MAX for the last bucket.
uint64_t WaitHistogramUpperUs(size_t bucket);

struct WaitValue {
  int64_t count = 0;
  uint64_t total_ns = 0;
  uint64_t max_ns = 0;
  // histogram[b]: waits in bucket b (see kWaitHistogramBuckets); sums to count.
  std::array<int64_t, kWaitHistogramBuckets> histogram{};
};

// The q-quantile (0 < q <= 1; q = 0.5 is p50, 0.99 is p99) of a wait's
// durations, in ns, from its histogram: the upper edge of the bucket holding
// the ceil(q * count)-th shortest wait, capped at max_ns. So at least that
// share of the waits lasted no longer than the result, and the true quantile
// is at most 2x shorter (the bucket width) -- Oracle's resolution. 0 when
// the histogram is empty (no waits, or values read back from a report that
// carries no histogram); q is clamped to (0, 1].
uint64_t WaitPercentileNs(const WaitValue& w, double q);

struct WaitValues {
  std::array<WaitValue, kWaitCount> v{};
  const WaitValue& operator[](Wait w) const { return v[static_cast<size_t>(w)]; }
  WaitValue& operator[](Wait w) { return v[static_cast<size_t>(w)]; }
  // Delta of counts, totals and histogram buckets. A max cannot be
  // subtracted: the delta's max is `this` side's max bounded by what the
  // delta itself proves -- its total (exact for a single wait) and the upper
  // edge of its highest non-empty histogram bucket -- so it never exceeds
  // the delta's total.
  WaitValues operator-(const WaitValues& o) const;
  WaitValues& operator+=(const WaitValues& o);
};

class WaitSet {
 public:
  void Record(Wait w, uint64_t ns);
  // Record() of each of `waits` (summed first: one atomic add per field).
  void RecordAll(Wait w, absl::Span<const EndedWait> waits);
  void AddAll(const WaitValues& values);
  WaitValues Snapshot() const;

 private:
  struct Cell {
    std::atomic<int64_t> count{0};
    std::atomic<uint64_t> total_ns{0};
    std::atomic<uint64_t> max_ns{0};
    std::array<std::atomic<int64_t>, kWaitHistogramBuckets> histogram{};
  };
  // Adds a plain value's count, total, buckets and max to a cell.
  static void Add(Cell& c, const WaitValue& w);
  std::array<Cell, kWaitCount> v_{};
};

}  // namespace cellsim::stats

#endif  // CELLSIM_STATS_STATISTICS_H_
