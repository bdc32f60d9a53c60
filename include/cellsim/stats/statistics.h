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
//
// Thread-safety: StatSet and WaitSet use relaxed atomics, so one writer and any
// number of readers (an instance summing sessions) is safe; Snapshot() gives a
// plain copy for deltas.
#ifndef CELLSIM_STATS_STATISTICS_H_
#define CELLSIM_STATS_STATISTICS_H_

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

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
//   physical write bytes <= physical write total bytes.
enum class Stat : uint16_t {
  kPhysicalWriteTotalIoRequests,
  kPhysicalWriteTotalBytes,
  kPhysicalWriteTotalMultiBlockRequests,
  kPhysicalWriteRequestsOptimized,
  kPhysicalWriteTotalBytesOptimized,
  kPhysicalWriteIoRequests,
  kPhysicalWriteBytes,
  kPhysicalReadTotalIoRequests,
  kPhysicalReadTotalBytes,
  kPhysicalReadTotalMultiBlockRequests,
  kPhysicalReadRequestsOptimized,
  kPhysicalReadTotalBytesOptimized,
  kCellPhysicalIoInterconnectBytes,
  kCellPhysicalIoBytesSavedDuringOptimizedFileCreation,
  kCellPhysicalIoBytesEligibleForPredicateOffload,
  kCellWritesToFlashCache,
  kCellOverwritesInFlashCache,
  kCellPartialWritesInFlashCache,
  kCellFlashCacheReadHits,
  kCellLogicalWriteIoRequests,
  kRedoSize,
  kRedoWrites,
  kUserCalls,
  kExecuteCount,
  kParseCountTotal,
  kCpuUsedByThisSession,  // centiseconds
  kDbTime,                // centiseconds
  // Transactions, undo and redo (docs/redo.md).
  kRedoEntries,
  kRedoBlocksWritten,
  kRedoSynchWrites,
  kRedoWastage,
  kUndoChangeVectorSize,
  kUserCommits,
  kUserRollbacks,
  kDbBlockChanges,
  kPhysicalWrites,
  kCount,
};
inline constexpr size_t kStatCount = static_cast<size_t>(Stat::kCount);

struct StatInfo {
  std::string_view name;  // exact V$STATNAME.NAME
  uint8_t stat_class;
};

inline constexpr std::array<StatInfo, kStatCount> kStatTable = {{
    {"physical write total IO requests", kClassCache},
    {"physical write total bytes", kClassCache},
    {"physical write total multi block requests", kClassCache},
    {"physical write requests optimized", kClassCache},
    {"physical write total bytes optimized", kClassCache},
    {"physical write IO requests", kClassCache},
    {"physical write bytes", kClassCache},
    {"physical read total IO requests", kClassCache},
    {"physical read total bytes", kClassCache},
    {"physical read total multi block requests", kClassCache},
    {"physical read requests optimized", kClassCache},
    {"physical read total bytes optimized", kClassCache},
    {"cell physical IO interconnect bytes", kClassSql},
    {"cell physical IO bytes saved during optimized file creation", kClassSql},
    {"cell physical IO bytes eligible for predicate offload", kClassSql},
    {"cell writes to flash cache", kClassCache},
    {"cell overwrites in flash cache", kClassCache},
    {"cell partial writes in flash cache", kClassCache},
    {"cell flash cache read hits", kClassCache},
    {"cell logical write IO requests", kClassCache},
    {"redo size", kClassRedo},
    {"redo writes", kClassRedo},
    {"user calls", kClassUser},
    {"execute count", kClassSql},
    {"parse count (total)", kClassSql},
    {"CPU used by this session", kClassUser},
    {"DB time", kClassUser},
    {"redo entries", kClassRedo},
    {"redo blocks written", kClassRedo},
    {"redo synch writes", kClassRedo},
    {"redo wastage", kClassRedo},
    {"undo change vector size", kClassUser},
    {"user commits", kClassUser},
    {"user rollbacks", kClassUser},
    {"db block changes", kClassCache},
    {"physical writes", kClassCache},
}};

constexpr std::string_view StatName(Stat s) { return kStatTable[static_cast<size_t>(s)].name; }
// Looks a statistic up by its exact Oracle name.
std::optional<Stat> StatByName(std::string_view name);

enum class WaitClass : uint8_t { kUserIo, kSystemIo, kOther, kCommit, kConcurrency };
std::string_view WaitClassName(WaitClass c);

enum class Wait : uint16_t {
  kCellSmartFileCreation,
  kDataFileInitWrite,
  kLogFileInitWrite,
  kControlFileParallelWrite,
  kControlFileSequentialRead,
  kLogFileSingleWrite,
  kDbFileSingleWrite,
  kDiskFileOperationsIo,
  kKsvMasterWait,
  kAsmFileMetadataOperation,
  kLogFileSync,
  kLogFileParallelWrite,
  kDbFileParallelWrite,
  kCellSingleBlockPhysicalRead,
  kCellMultiblockPhysicalRead,
  kCount,
};
inline constexpr size_t kWaitCount = static_cast<size_t>(Wait::kCount);

struct WaitInfo {
  std::string_view name;  // exact V$EVENT_NAME.NAME
  WaitClass wait_class;
  std::string_view p1, p2, p3;  // parameter names
};

inline constexpr std::array<WaitInfo, kWaitCount> kWaitTable = {{
    {"cell smart file creation", WaitClass::kUserIo, "cellhash#", "", ""},
    {"Data file init write", WaitClass::kUserIo, "count", "intr", "timeout"},
    {"Log file init write", WaitClass::kUserIo, "count", "intr", "timeout"},
    {"control file parallel write", WaitClass::kSystemIo, "files", "block#", "requests"},
    {"control file sequential read", WaitClass::kSystemIo, "file#", "block#", "blocks"},
    {"log file single write", WaitClass::kSystemIo, "log#", "block#", "blocks"},
    {"db file single write", WaitClass::kUserIo, "file#", "block#", "blocks"},
    {"Disk file operations I/O", WaitClass::kUserIo, "FileOperation", "fileno", "filetype"},
    {"KSV master wait", WaitClass::kOther, "", "", ""},
    {"ASM file metadata operation", WaitClass::kOther, "msgop", "locn", ""},
    {"log file sync", WaitClass::kCommit, "buffer#", "sync scn", ""},
    {"log file parallel write", WaitClass::kSystemIo, "files", "blocks", "requests"},
    {"db file parallel write", WaitClass::kSystemIo, "requests", "interrupt", "timeout"},
    {"cell single block physical read", WaitClass::kUserIo, "cellhash#", "diskhash#", "bytes"},
    {"cell multiblock physical read", WaitClass::kUserIo, "cellhash#", "diskhash#", "bytes"},
}};

constexpr std::string_view WaitName(Wait w) { return kWaitTable[static_cast<size_t>(w)].name; }
std::optional<Wait> WaitByName(std::string_view name);

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
  void AddAll(const WaitValues& values);
  WaitValues Snapshot() const;

 private:
  struct Cell {
    std::atomic<int64_t> count{0};
    std::atomic<uint64_t> total_ns{0};
    std::atomic<uint64_t> max_ns{0};
    std::array<std::atomic<int64_t>, kWaitHistogramBuckets> histogram{};
  };
  std::array<Cell, kWaitCount> v_{};
};

}  // namespace cellsim::stats

#endif  // CELLSIM_STATS_STATISTICS_H_
