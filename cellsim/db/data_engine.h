// Private: the transaction engine behind the data statements (docs/redo.md).
//
//   dictionary   tables (heap in a permanent tablespace, GTT definitions)
//   segments     extents of 8 KiB blocks in a data file of the tablespace
//                (heap, undo) or of TEMP (GTT data, temporary undo), held in
//                the buffer cache; DBWR writes dirty permanent blocks to the
//                data files through ASM at each checkpoint (log switch, close)
//   undo         ten undo segments in UNDOTBS1 with transaction tables;
//                records sized by redo_model.h and written into undo blocks;
//                the logical records roll a transaction back
//   redo         records sized by redo_model.h copied into the log buffer;
//                LGWR writes 512-byte redo blocks with 16-byte headers into
//                every member of the CURRENT group at commit, at a third full
//                and every 3 s of the database's clock; log switches go round
//                the thread's groups, each switch a checkpoint.
//
// One mutex serialises the engine (sessions are threads of one instance); the
// file table it reads belongs to the database and its own mutex (taken after).
#ifndef CELLSIM_DB_DATA_ENGINE_H_
#define CELLSIM_DB_DATA_ENGINE_H_

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "absl/functional/function_ref.h"
#include "cellsim/db/data_statement.h"
#include "cellsim/db/database_state.h"
#include "cellsim/db/redo_payload.h"
#include "cellsim/db/row_format.h"

namespace cellsim::db::internal {

inline constexpr uint32_t kTempExtentBlocks = 128;  // 1 MiB uniform TEMP extents
// A permanent data file's extents start at this block: the blocks below hold
// the file's headers and space maps (in SYSTEM, the dictionary; in the undo
// tablespace's file, before the undo area), as in Oracle's locally managed
// files. A permanent segment's extents are kExtentBlocks blocks (64 KiB).
inline constexpr uint32_t kFirstExtentBlock = 128;
inline constexpr uint32_t kExtentBlocks = 8;

struct Segment {
  uint32_t file_number = 0;       // relative file number of the data file / tempfile
  std::vector<uint32_t> blocks;   // data blocks in order
  uint32_t extent_blocks = kExtentBlocks;  // blocks per extent
  uint32_t extents = 0;
  uint32_t free_in_extent = 0;    // unused blocks left in the last extent
  uint32_t next_block = 0;        // next unused block of the last extent

  // The first block of each extent: blocks are used in order, extent after
  // extent, and every extent has at least its first block in use.
  std::vector<uint32_t> ExtentStarts() const;
  // The segment whose extents start at `starts`, `used` blocks in use (the
  // dictionary's form, data_dictionary.cc).
  static Segment FromExtents(uint32_t file, uint32_t extent_blocks,
                             const std::vector<uint32_t>& starts, uint32_t used);
};

// An index (data_index.cc, docs/db.md "Indexes"): a B-tree (btree.h) on
// columns of one table; a heap table's in its own segment, a GTT's per
// session in TEMP (SessionData::gtt_segments, by the index's object id).
// The constraint an index enforces (USER_CONSTRAINTS' P and U): none for
// CREATE [UNIQUE] INDEX's.
enum class KeyConstraint : uint8_t { kNone, kUnique, kPrimaryKey };

// Optimizer statistics, as DBMS_STATS.GATHER_*_STATS and ANALYZE ... COMPUTE
// STATISTICS set them: none until gathered (the views show NULL), kept in
// the dictionary (version 9) until deleted or the object dropped.
struct TableStats {
  uint64_t num_rows = 0;
  uint64_t blocks = 0;       // formatted blocks below the high-water mark
  uint64_t avg_row_len = 0;  // bytes, rounded
  int64_t last_analyzed = 0;  // unix seconds
};
struct IndexStats {
  uint64_t num_rows = 0;           // entries (rows with a non-NULL key)
  uint64_t leaf_blocks = 0;
  uint64_t blevel = 0;             // branch levels above the leaves
  uint64_t distinct_keys = 0;
  uint64_t clustering_factor = 0;  // table block changes along the index
  int64_t last_analyzed = 0;
};

struct IndexDef {
  std::string name;
  uint32_t object_id = 0;
  std::vector<uint16_t> columns;  // positions in the table's columns
  bool unique = false;
  // A PRIMARY KEY's or UNIQUE constraint's index (unique, named after the
  // constraint): DROP INDEX refuses it (ORA-02429). Dictionary version 8
  // keeps it in the uniqueness byte (2, 3), which older builds read as unique.
  KeyConstraint constraint = KeyConstraint::kNone;
  std::string tablespace;
  Segment segment;  // heap tables only; its first block is the root
  std::optional<IndexStats> stats;
};

// A CHECK constraint: its condition as written, parsed once.
struct CheckDef {
  std::string name;
  std::string condition;
  std::shared_ptr<const Expr> parsed;
};

struct TableDef {
  std::string name;
  uint32_t object_id = 0;
  std::vector<Column> columns;
  bool temporary = false;       // a GTT
  bool preserve_rows = false;   // ON COMMIT PRESERVE ROWS
  std::string tablespace;       // heap: where the segment lives
  Segment segment;              // heap tables only; GTT data is per session
  std::vector<IndexDef> indexes;
  std::vector<CheckDef> checks;  // dictionary format 5
  std::optional<TableStats> stats;
};

// The position of column `name` in `t`, or ORA-00904 (invalid identifier).
absl::StatusOr<size_t> ColumnOf(const TableDef& t, const std::string& name);
// The positions of columns `names` in `t`, in that order; ORA-00904 for one
// it lacks (a key's columns, as IndexDef::columns holds them).
absl::StatusOr<std::vector<uint16_t>> ColumnPositions(const TableDef& t,
                                                      const std::vector<std::string>& names);

struct IndexRowId {
  uint32_t file = 0, block = 0;
  uint16_t slot = 0;
};

// A row a statement inserted or deleted, for index maintenance: its bytes and
// rowid (an update is a delete and an insert).
struct IndexedRow {
  bool insert = true;
  std::vector<uint8_t> row;
  uint32_t file = 0, block = 0;
  uint16_t slot = 0;
};

// One logical undo entry (what rollback applies), newest last.
struct UndoEntry {
  RowChange op = RowChange::kInsert;
  uint32_t file = 0, block = 0;
  uint16_t slot = 0;
  std::vector<uint8_t> before;  // kUpdate: the old row
  uint32_t obj = 0;             // the data object the block belongs to
  bool redo = false;            // a heap change: its redo carries it
  bool logged = false;          // that redo is in the log buffer (or written)
  // An index entry: op kInsert / kDelete of key `before` in index `obj`;
  // never in redo (recovery rebuilds indexes), so never `logged`.
  bool index = false;
};

// A block's key in the engine's maps: (file# << 32) | block#.
inline uint64_t BlockKey(uint32_t file, uint32_t block) { return (uint64_t{file} << 32) | block; }

struct Transaction {
  bool active = false;
  uint32_t usn = 0, slot = 0, wrap = 0;
  uint64_t start_ns = 0;
  int64_t start_unix = 0;
  std::vector<UndoEntry> undo;
  size_t undo_marked = 0;  // entries before this one have had their redo generated
  uint64_t used_ublk = 0, used_urec = 0;       // permanent undo
  uint64_t temp_ublk = 0, temp_urec = 0;       // temporary undo
  uint32_t undo_block_used = 0, temp_block_used = 0;  // bytes in the current undo block
  bool perm_begun = false;   // a slot in a permanent undo segment is held
  bool temp_begun = false;   // bound to the session's temp undo segment
  bool touched_gtt = false;
  // SAVEPOINT name -> the undo entries before it, in the order set.
  std::vector<std::pair<std::string, size_t>> savepoints;
  // By BlockKey: how many bytes this transaction's rollback may grow the
  // block's rows by (rows it shrank), room no other change may take
  // (DataEngine::held_space).
  std::unordered_map<uint64_t, uint32_t> held_space;
};

// A sequence (CREATE SEQUENCE): Oracle's SEQ$ row and its cache. NEXTVAL
// hands out `next`; when the values cached since the last dictionary write
// are used up it first moves `highwater` (LAST_NUMBER: the first value not
// yet covered) CACHE values on and writes the dictionary, so a crash loses
// at most the cached values and never hands one out twice. A clean close
// writes `next` as the highwater (no gap, as SHUTDOWN IMMEDIATE).
struct SequenceDef {
  std::string name;
  uint32_t object_id = 0;
  int64_t increment = 1;
  int64_t min_value = 1, max_value = 0;  // max_value: see kSequenceNoMax
  int64_t cache = 20;                    // 0: NOCACHE
  bool cycle = false, order = false;
  int64_t start = 1;      // START WITH (or RESTART's)
  int64_t highwater = 1;  // persisted
  int64_t next = 1;       // in memory: the next value to hand out
  int64_t cached = 0;     // values from `next` on that `highwater` covers
};
// NOMAXVALUE (ascending) and NOMINVALUE (descending) as Oracle shows them
// (10^28 - 1 and -(10^27 - 1)) do not fit 64 bits: cellsim keeps its
// sequences' values exact below 2^53 (what a NUMBER's double here holds),
// and lists the bound Oracle would.
inline constexpr int64_t kSequenceLimit = int64_t{1} << 53;

// A view (CREATE VIEW, data_create_view.cc): its query as written, parsed
// and run where the view is named, so a view whose table went away fails
// there (ORA-04063, Oracle's invalid view) and works again once it is back.
struct ViewDef {
  std::string name;
  uint32_t object_id = 0;
  std::vector<std::string> columns;  // CREATE VIEW v (c1, ...); empty: the query's names
  std::string text;                  // the query (USER_VIEWS.TEXT)
  bool read_only = false;            // WITH READ ONLY, as written
};

struct SessionData {
  uint32_t sid = 0;
  Session::State* session = nullptr;
  std::map<uint32_t, Segment> gtt_segments;   // by GTT object id, in TEMP
  std::optional<bool> temp_undo_latched;      // fixed at the first temp-object undo
  std::optional<bool> temp_undo_param;        // ALTER SESSION value (unset: the system's)
  Segment temp_undo_segment;                  // in TEMP, made at first temp undo
  bool has_temp_undo_segment = false;
  Transaction txn;
  std::map<uint32_t, int64_t> currval;  // CURRVAL by sequence object id
  // The views the running statement is expanding, outermost first (a view
  // that names itself through others is ORA-01731).
  std::vector<std::string> views_open;
  // Rows the session's statements looked at since Ctrl-C was last checked
  // (CheckCancelEvery4096Rows): one count for every scan of a statement, so
  // many short scans (a correlated subquery per outer row) check as often as
  // one long one.
  uint32_t rows_since_cancel_check = 0;
  // The blocks the running statement has got in current mode (to change
  // them): each counts one `db block gets` per statement (CountCurrentGet).
  // The last one is checked first: rows mostly change block by block.
  std::unordered_set<uint64_t> current_blocks;
  uint64_t last_current_block = ~uint64_t{0};
};

// Logical reads (docs/statistics.md "Logical reads"). `n` consistent gets:
// blocks a statement read as of its start (a scan's blocks, an index
// probe's, a row rebuilt from undo).
void CountConsistentGets(Recorder& rec, int64_t n);
// `n` current-mode gets that are not of one data or index block: the undo
// segment header when a transaction begins and ends, a new undo block.
void CountCurrentGets(Recorder& rec, int64_t n);
// The running statement changes block `block` of data file `file`: one
// current-mode get the first time (the statement keeps it pinned after).
void CountCurrentGet(Recorder& rec, SessionData& sd, uint32_t file, uint32_t block);
// One in-memory sort of `rows` rows (`sorts (memory)`, `sorts (rows)`): an
// ORDER BY, a CREATE INDEX, the SORT UNIQUE of UNION, INTERSECT and MINUS.
void CountSort(Recorder& rec, int64_t rows);
// A row read as of the statement's start from another transaction's undo:
// the undo record applied, and the consistent get of its undo block.
void CountUndoRecordApplied(Recorder& rec);

// Ctrl-C while a statement reads rows: every 4,096th row the session looks
// at (any scan, any query level) checks the session's cancel flag and, when
// it is set, returns ORA-01013 (a DML around it undoes itself).
[[nodiscard]] absl::Status CheckCancelEvery4096Rows(SessionData& sd);

struct CachedBlock {
  std::vector<uint8_t> bytes;
  bool dirty = false;
  bool temp = false;  // TEMP blocks are never written back (no cache pressure)
};

struct UndoStatBucket {
  int64_t begin_unix = 0;
  int64_t undoblks = 0, txncount = 0, maxconcurrency = 0;
  int64_t temp_undoblks = 0, temp_txncount = 0, temp_uscount = 0, temp_extcnt = 0;
  bool temp_used = false;
};

// What a data statement did, for the result and SQL*Plus.
struct DataOutcome {
  int64_t rows = 0;
  std::vector<std::string> headings;
  std::vector<std::vector<std::string>> rows_text;
  std::vector<bool> numeric;  // right-align the column
  std::string feedback;       // "70,000 rows created." ...
  // A query's rows as values too, when asked (PL/SQL's SELECT INTO).
  bool keep_values = false;
  std::vector<Row> values;
};

// Where instance recovery starts: the log position up to which every change
// is in the data files (the last complete checkpoint) and the SCN there.
struct CheckpointPosition {
  uint64_t sequence = 0;      // log sequence# (0: no redo yet)
  uint32_t group_index = 0;   // into thread 1's groups, by group#
  uint64_t block = 2;         // redo block of that log
  uint64_t scn = 0;
  bool operator==(const CheckpointPosition&) const = default;
};

// Where the checkpoint left the undo of the transactions active at it (in
// UNDOTBS1, data_recovery.cc); length 0: none.
struct UndoSnapshot {
  uint32_t file = 0;      // relative file number
  uint32_t area = 0;      // which half of the file
  uint64_t length = 0;    // bytes
  uint64_t checksum = 0;  // xxHash64 of them
  bool operator==(const UndoSnapshot&) const = default;
};

// One online log's use, kept until the group is reused: V$LOG's SEQUENCE#,
// FIRST_CHANGE#, FIRST_TIME, NEXT_CHANGE#, NEXT_TIME, ARCHIVED; what ARCH
// copies.
struct LogUse {
  uint64_t sequence = 0;
  uint64_t first_change = 0, next_change = 0;
  uint64_t blocks = 0;  // block 0 and the header included
  bool needs_archive = false;  // filled in ARCHIVELOG mode
  bool archived = false;
  // Unix seconds the log became CURRENT and was switched out (0: not known,
  // a dictionary written before version 8, or still CURRENT).
  int64_t first_time = 0, next_time = 0;
};

// One log switch (V$LOG_HISTORY): the log left behind, numbered by `recid`
// from 1 on. The dictionary keeps the newest kMaxLogHistory.
struct LogHistoryEntry {
  uint64_t recid = 0;
  LogUse log;  // its sequence, SCN range and times
};
inline constexpr size_t kMaxLogHistory = 292;  // a default control file's LOG HISTORY section

// One data file's physical I/O since the instance opened (V$FILESTAT): the
// buffer cache's reads, DBWR's writes, and the dictionary's and the undo
// snapshot's reads and writes. Not the file's creation (the cells format it)
// nor instance recovery's reads.
struct FileIoStats {
  int64_t read_requests = 0, blocks_read = 0, optimized_blocks_read = 0;
  int64_t single_block_reads = 0;
  int64_t write_requests = 0, blocks_written = 0;
  uint64_t read_ns = 0, write_ns = 0, single_block_read_ns = 0;
  uint64_t max_read_ns = 0, max_write_ns = 0, last_io_ns = 0;
  std::optional<uint64_t> min_io_ns;
};

struct DataEngine {
  Database::State* db = nullptr;  // set when made
  // Serialises the engine (sessions are threads of one instance). Taken
  // before the database's mu, which guards the file table it reads.
  Mutex mu ABSL_ACQUIRED_BEFORE(db->mu);
  std::map<std::string, TableDef> tables ABSL_GUARDED_BY(mu);
  std::map<std::string, SequenceDef> sequences ABSL_GUARDED_BY(mu);
  std::map<std::string, ViewDef> views ABSL_GUARDED_BY(mu);
  uint32_t next_object_id ABSL_GUARDED_BY(mu) = 73000;
  std::unordered_map<uint64_t, CachedBlock> cache ABSL_GUARDED_BY(mu);  // by BlockKey
  // By BlockKey: the sum of the open transactions' Transaction::held_space,
  // the room kept for their rollbacks (as Oracle keeps the space a
  // transaction freed for it until it ends). Inserts and growing updates
  // leave it free (ReplaceRow, HeldSpace); EndTransaction gives it back.
  std::unordered_map<uint64_t, uint32_t> held_space ABSL_GUARDED_BY(mu);
  // Buffers of blocks freed (a GTT's at commit) for the next new blocks: the
  // seed's sessions free and refill ~1,500 blocks per transaction.
  static constexpr size_t kPooledBlockBuffers = 4096;
  std::vector<std::vector<uint8_t>> free_block_buffers ABSL_GUARDED_BY(mu);
  // The locked rows (AddRowUndo), by RowLockKey: the holder and how many of
  // its undo entries name the row.
  struct RowLock {
    uint32_t sid = 0;
    uint32_t entries = 0;
  };
  std::unordered_map<uint64_t, RowLock> row_locks ABSL_GUARDED_BY(mu);
  // Rewrites row `slot` of block `block` of file `file` (`hb`) as `row` for
  // sd's transaction, leaving the room open transactions' rollbacks hold
  // (held_space) and holding what this one's needs; false when it does not
  // fit so (the caller migrates the row).
  bool ReplaceRow(SessionData& sd, uint32_t file, uint32_t block, HeapBlock& hb, uint16_t slot,
                  absl::Span<const uint8_t> row) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  // The bytes held in the block for rollbacks: what an insert must leave.
  uint32_t HeldSpace(uint32_t file, uint32_t block) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  // The sessions waiting in WaitForTransactionEnd (Session::SetRowLockWait),
  // by sid: the transaction each waits for, and since when (by the clock):
  // V$LOCK's REQUEST and BLOCK, V$SESSION's BLOCKING_SESSION.
  struct RowLockWaiter {
    RowLockConflict on;
    uint64_t since_ns = 0;
  };
  std::map<uint32_t, RowLockWaiter> row_lock_waiters ABSL_GUARDED_BY(mu);
  // The sessions in DBMS_SESSION.SLEEP (Sleep), by sid: the duration asked
  // in hundredths of a second (the wait's P1) and since when (by the
  // clock): V$SESSION's and V$SESSION_WAIT's "PL/SQL lock timer", WAITING.
  struct Sleeper {
    uint64_t duration_cs = 0;
    uint64_t since_ns = 0;
  };
  std::map<uint32_t, Sleeper> sleepers ABSL_GUARDED_BY(mu);
  // Signalled (all) when a transaction ends: what row-lock waiters wait on.
  CondVar transaction_ended;
  // Keys of permanent tables' unique indexes that open transactions have
  // deleted (a row deleted, or updated to another key), by (index object,
  // key columns): the whole key (its rowid the row's) and the session. Such
  // a key is not free for another session until that transaction commits
  // (DuplicateKey); its rollback puts it back.
  std::multimap<std::pair<uint32_t, std::vector<uint8_t>>,
                std::pair<uint32_t, std::vector<uint8_t>>>
      deleted_unique_keys ABSL_GUARDED_BY(mu);
  // Forgets session `sid`'s deletion of `key` (with its rowid) of index `obj`.
  void ForgetDeletedUniqueKey(uint32_t obj, const std::vector<uint8_t>& key, uint32_t sid)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  std::map<uint32_t, uint32_t> file_next_block ABSL_GUARDED_BY(mu);  // bump allocator per data file
  // Set while recovery rebuilds the indexes: a new extent does not write the
  // dictionary (recovery's checkpoint writes it once, after the blocks; a
  // crash before that rebuilds the indexes again from the old dictionary).
  bool defer_extent_dictionary_writes ABSL_GUARDED_BY(mu) = false;
  // file -> (start, n)
  std::map<uint32_t, std::vector<std::pair<uint32_t, uint32_t>>> free_extents ABSL_GUARDED_BY(mu);
  // By data file number (V$FILESTAT).
  std::map<uint32_t, FileIoStats> file_io ABSL_GUARDED_BY(mu);
  // One read of `blocks` blocks of data file `file` in `requests` requests
  // (runs of adjacent blocks) that took `ns`; `r` says how many the cells
  // served from flash.
  void CountFileRead(uint32_t file, int64_t requests, int64_t blocks, uint64_t ns,
                     const asmgr::AsmIoResult& r) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  void CountFileWrite(uint32_t file, int64_t requests, int64_t blocks, uint64_t ns)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  std::map<uint32_t, SessionData*> sessions ABSL_GUARDED_BY(mu);
  uint64_t scn ABSL_GUARDED_BY(mu) = 1000;
  // The SCN instance recovery would go on from if the power went now: the
  // newest redo record's (LGWR writes it before DBWR writes a block it
  // covers) or the dictionary's, whichever is higher. DBWR stamps the blocks
  // it writes with it, not with `scn`, which log switches advance without
  // redo: a block stamped beyond the SCN recovery goes on from would make
  // the next changes to it look older than the block, and the recovery after
  // them skip them as already written.
  uint64_t recoverable_scn ABSL_GUARDED_BY(mu) = 0;
  bool temp_undo_enabled ABSL_GUARDED_BY(mu) = false;  // the system value
  uint32_t next_usn ABSL_GUARDED_BY(mu) = 1;
  std::map<uint32_t, uint32_t> undo_slot_wrap ABSL_GUARDED_BY(mu);  // (usn << 16 | slot) -> wrap#
  uint64_t all_objects_rows ABSL_GUARDED_BY(mu) = 70000;
  std::vector<UndoStatBucket> undostat ABSL_GUARDED_BY(mu);  // oldest first

  // Change entries of the statement running, for its next redo record.
  std::vector<uint8_t> pending_redo ABSL_GUARDED_BY(mu);
  uint16_t pending_entries ABSL_GUARDED_BY(mu) = 0;

  // The log buffer and LGWR.
  std::vector<uint8_t> log_buffer ABSL_GUARDED_BY(mu);  // redo generated and not yet written
  uint64_t log_buffer_size ABSL_GUARDED_BY(mu) = 16u << 20;
  uint32_t current_group_index ABSL_GUARDED_BY(mu) = 0;  // into thread 1's groups, by group#
  uint64_t sequence ABSL_GUARDED_BY(mu) = 1;
  uint64_t log_block ABSL_GUARDED_BY(mu) = 2;  // next redo block of the CURRENT log
  uint64_t last_write_ns ABSL_GUARDED_BY(mu) = 0;
  bool log_started ABSL_GUARDED_BY(mu) = false;
  uint64_t log_first_change ABSL_GUARDED_BY(mu) = 0;  // SCN the CURRENT log starts at
  int64_t log_first_time ABSL_GUARDED_BY(mu) = 0;     // when it became CURRENT (0: not known)
  std::map<uint32_t, LogUse> log_use ABSL_GUARDED_BY(mu);  // by group#, the logs left behind
  std::vector<LogHistoryEntry> log_history ABSL_GUARDED_BY(mu);  // oldest first (V$LOG_HISTORY)
  // Online log members LGWR could not write while another member of their
  // group took the redo (V$LOGFILE STATUS INVALID), by member name: why.
  // LGWR writes them no more while their group is CURRENT and tries them
  // again when it next switches into it. Kept in memory only: after a
  // restart LGWR tries every member again (recovery and ARCH take each redo
  // block from a member that holds it whole, for its number and sequence).
  std::map<std::string, std::string> invalid_log_members ABSL_GUARDED_BY(mu);
  // A COMMIT's log write failed: its commit record waits in log_buffer, and
  // the next COMMIT (of any session, with a transaction or without) writes
  // it before it is acknowledged.
  bool commit_unwritten ABSL_GUARDED_BY(mu) = false;
  // Time the last FlushLog spent on a log switch (checkpoint, ARCH): the
  // session's `log file switch ...` waits, which its `log file sync` excludes.
  uint64_t switch_wait_ns ABSL_GUARDED_BY(mu) = 0;
  uint64_t current_log_blocks ABSL_GUARDED_BY(mu) = 0;  // the CURRENT log's size (0: not known yet)
  // LGWR writes once the log buffer holds this much (FlushLog sets it): a
  // third of the buffer, and less than what the groups other than the
  // CURRENT one hold. A larger write would switch into every other group and
  // come back to the one the checkpoint is in before any of those switches'
  // checkpoints is taken (they follow the write), overwriting redo that
  // crash recovery needs.
  uint64_t log_flush_bytes ABSL_GUARDED_BY(mu) = 0;  // 0: not set yet
  // log_use is kept in the dictionary (with the CURRENT log's), so V$LOG
  // shows every group's last sequence after a restart; so is log_history.

  // The persistent dictionary (data_dictionary.cc): both copies in the SYSTEM
  // data file hold generation `dictionary_generation` (0: never written).
  uint64_t dictionary_generation ABSL_GUARDED_BY(mu) = 0;
  // Dictionary writes begun (each may have landed, failed or not): FailDdl's
  // test for "written since".
  uint64_t dictionary_writes ABSL_GUARDED_BY(mu) = 0;
  // While a DDL statement builds (BeginDdl): its objects are numbered from
  // this on, and the dictionary's images leave them out.
  std::optional<uint32_t> ddl_objects_from ABSL_GUARDED_BY(mu);
  // The copy the next write overwrites first: 0, or the one that is damaged
  // or a generation behind (WriteDictionary).
  uint32_t dictionary_first_copy ABSL_GUARDED_BY(mu) = 0;
  CheckpointPosition checkpoint ABSL_GUARDED_BY(mu);
  UndoSnapshot undo_snapshot ABSL_GUARDED_BY(mu);

  // Every method requires mu.
  // A copy of the database's file table, taken under the database's mu (held
  // for the copy only): the engine keeps no pointer into the table, which DDL
  // of other sessions changes meanwhile.
  FileTable FileTableCopy() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) ABSL_LOCKS_EXCLUDED(db->mu);

  // ---- storage ----
  absl::StatusOr<uint32_t> DataFileOf(const std::string& tablespace) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  absl::Status Extend(Segment& seg, bool temp) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  absl::StatusOr<uint32_t> NewBlock(Segment& seg, bool temp, uint32_t obj)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  // A block already in the cache (EnsureCached brings a segment's blocks in).
  CachedBlock& Block(uint32_t file, uint32_t block) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  // Reads the blocks of `seg` that are not in the buffer cache from its data
  // file (a block never written since its extent was allocated reads as an
  // empty block of the segment's object). TEMP segments live in the cache only.
  absl::Status EnsureCached(Recorder& rec, uint32_t file, absl::Span<const uint32_t> blocks,
                            uint32_t obj) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  // Full checkpoint: LGWR writes the log buffer, DBWR every dirty block, then
  // the dictionary records the log position recovery starts from; `clean`
  // (at Close only) marks the database closed cleanly.
  absl::Status Checkpoint(Recorder& rec, bool clean = false) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  // ALTER SYSTEM FLUSH BUFFER_CACHE: a checkpoint (DBWR writes every dirty
  // block), then the cache forgets every permanent block, but those of the
  // objects an open transaction changed (its rollback changes them in the
  // cache; Oracle's would read them back). TEMP blocks stay: they are never
  // written.
  absl::Status FlushBufferCache(Recorder& rec) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  // ---- the persistent dictionary (data_dictionary.cc) ----
  // Writes the dictionary (tables, segments' extents, allocators, SCN, the
  // checkpoint position) as the next generation into both copies in the
  // SYSTEM data file, one after the other. A database without a SYSTEM
  // tablespace keeps its dictionary in memory (docs/redo.md). `*landed`
  // (when given): the first copy written is what readers get now, even if
  // the write failed (on another mirror).
  absl::Status WriteDictionary(bool clean, bool* landed = nullptr) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  // Whether the database has a SYSTEM data file to keep its dictionary in.
  // Without one, a statement that would make or change a table, index,
  // sequence or view fails (ORA-00959 naming SYSTEM): what it made would be
  // gone when the database closes, after its "Table created.".
  bool KeepsDictionary() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  // Reads it at open; DataLoss naming the file and the damage when no copy is
  // valid. Sets `*clean` (true for a database that has no dictionary yet).
  absl::Status LoadDictionary(std::vector<std::string>* actions, bool* clean)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  // ---- instance recovery (data_recovery.cc) ----
  // After a crash: rolls forward from the checkpoint position through the
  // online logs, rolls back every transaction without a commit record, then
  // checkpoints.
  absl::Status RecoverInstance(std::vector<std::string>* actions) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  // Redo blocks [first, first + count) of log `g` as LGWR wrote them for
  // sequence `seq`, appended to `out` (512 bytes each). LGWR writes a block of
  // a sequence once, the same bytes to every member, so each block comes from
  // the first member that holds it whole (ASM serving each member's read from
  // a mirror copy that passes the redo checksum, and repairing the bad one).
  // A block no member holds whole (past the end of the redo, a write cut
  // short, damage on every member) is zeros in `out` and listed in `missing`;
  // `from_other` gets each block read from a member other than the first
  // (block, member index). An error only when no member can be read at all.
  // `rec`: whose reads these are (recovery's, ARCH's).
  absl::Status ReadRedoBlocks(Recorder& rec, const LogGroup& g, uint64_t seq, uint64_t first,
                              uint64_t count, std::vector<uint8_t>* out,
                              std::vector<uint64_t>* missing,
                              std::vector<std::pair<uint64_t, size_t>>* from_other);
  // At a checkpoint: the logged undo of the transactions active now, into
  // UNDOTBS1 (the half the next dictionary generation names).
  absl::Status WriteUndoSnapshot() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  // What of data file `file_number` (an entry of `t`) the engine uses, for
  // ALTER DATABASE DATAFILE ... RESIZE: the blocks from block 0 up to the
  // highest one in use, and whether the undo the last checkpoint saved lies
  // in it (its place depends on the file's size).
  struct FileUse {
    uint64_t used_blocks = 2;  // block 0 and the file header
    bool holds_saved_undo = false;
    bool undo_area = false;    // the file holds the undo area: all of it is in use
  };
  FileUse UseOf(const FileTable& t, uint32_t file_number) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);

  // Database::Open: loads the dictionary, recovers the instance after a crash,
  // and marks the database open (not closed cleanly) before any change, in a
  // new log sequence. `actions` gets what it had to do.
  absl::Status OpenInstance(std::vector<std::string>* actions) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  // Gives the segment's extents back to its file and drops its blocks from
  // the buffer cache: ReleaseExtents, then EvictBlocks of what it returns.
  void FreeSegment(Segment& seg) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  // Frees `sd`'s segment of GTT object `obj` (a GTT's rows or one of its
  // indexes' entries), if the session has one.
  void FreeSessionSegment(SessionData& sd, uint32_t obj) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  // The dictionary half of FreeSegment: the extents go to the file's free
  // list and `seg` is emptied; returns the segment as it was, whose cached
  // blocks a DDL evicts only once its dictionary write succeeded.
  Segment ReleaseExtents(Segment& seg) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  void EvictBlocks(const Segment& seg) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  // What a DDL statement changes in memory before it writes the dictionary
  // (tables, sequences, views, free extents, the object-id allocator): saved
  // by BeginDdl and put back when the statement fails, so that a refused DDL
  // leaves memory as the disk is (a later dictionary write would otherwise
  // make it durable).
  struct DictionaryState {
    std::map<std::string, TableDef> tables;
    std::map<std::string, SequenceDef> sequences;
    std::map<std::string, ViewDef> views;
    std::map<uint32_t, std::vector<std::pair<uint32_t, uint32_t>>> free_extents;
    uint32_t next_object_id = 0;
    uint64_t dictionary_writes = 0;  // to tell whether the dictionary was written since
  };
  // A DDL statement begins: returns the state to put back if it fails. The
  // objects numbered from now on are the statement's, and until its own
  // dictionary write (WriteDictionaryOr / FailDdl, or the statement's end)
  // the dictionary writes of new extents leave them out, their extents free:
  // a crash in the middle finds none of them (not a table with one of its
  // two keys' indexes).
  DictionaryState BeginDdl() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  // Puts `before` back. What the statement created (the objects numbered
  // from before.next_object_id on) goes: its extents back to the free list
  // (also those it took from the end of its file), its blocks out of the
  // cache, and `sd`'s segments of it when it was a GTT's (when `sd` is given).
  void RestoreDictionaryState(DictionaryState before, SessionData* sd = nullptr)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  // A DDL statement that failed before its own dictionary write: restores
  // `before` and, when the dictionary was written since (a new extent writes
  // it: Oracle's recursive transaction), writes it again as it was. Returns
  // `error` (extended as WriteDictionaryOr's when that write fails too).
  absl::Status FailDdl(absl::Status error, DictionaryState before, SessionData* sd = nullptr)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  // Writes the dictionary; on failure runs `restore` (which puts memory back
  // as it was before the statement), writes that back over any copy that may
  // have taken the failed generation, and returns the error (saying so when
  // the outcome stays in doubt until the next open).
  absl::Status WriteDictionaryOr(absl::FunctionRef<void()> restore) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  // WriteDictionaryOr(RestoreDictionaryState(before, sd)).
  absl::Status WriteDictionaryOrRestore(DictionaryState before, SessionData* sd = nullptr)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  // The table's segment: a heap table's own, or this session's segment of a
  // GTT in TEMP (made when `create`; null when there is none or no TEMP).
  Segment* TableSegment(SessionData& sd, TableDef& t, bool create)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);

  // ---- indexes (data_index.cc) ----
  // The index's segment: a heap table's own, or this session's in TEMP for a
  // GTT; with `create`, an empty tree gets its root block. Null when there
  // is none (and, with `create`, when TEMP is missing).
  absl::StatusOr<Segment*> IndexSegment(Recorder& rec, SessionData& sd, const TableDef& t,
                                        IndexDef& ix, bool create) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  // Maintains every index of `t` for `changes` (in order): the B-tree entries,
  // their undo entries, and the undo and redo records the byte model gives
  // (one per leaf block and batch; leaf splits as recursive transactions).
  // With `deferred`, unique keys are checked by CheckUnique at the
  // statement's end instead (an UPDATE may pass through duplicates).
  absl::Status MaintainIndexes(Recorder& rec, SessionData& sd, TableDef& t,
                               const std::vector<IndexedRow>& changes,
                               std::vector<std::pair<IndexDef*, std::vector<uint8_t>>>* deferred =
                                   nullptr) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  absl::Status CheckUnique(Recorder& rec, SessionData& sd, TableDef& t,
                           const std::vector<std::pair<IndexDef*, std::vector<uint8_t>>>& keys)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  // Rollback of one index undo entry (the key removed again, or put back).
  void UndoIndexEntry(SessionData& sd, const UndoEntry& u) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  // Index range scan: the rowids of `t`'s rows whose column `column` equals
  // `value`, in key order, through an index that leads with that column;
  // nullopt when none does (or `value` cannot be stored in the column).
  absl::StatusOr<std::optional<std::vector<IndexRowId>>> IndexRange(
      Recorder& rec, SessionData& sd, TableDef& t, uint16_t column, const Value& value)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  // Fills `ix` (empty) from the rows of heap table `t` (CREATE INDEX, recovery).
  absl::Status BuildIndex(Recorder& rec, SessionData* sd, TableDef& t, IndexDef& ix)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  // After instance recovery: every heap table's indexes rebuilt from the
  // recovered table (docs/db.md: the simplification).
  absl::Status RebuildIndexes(std::vector<std::string>* actions) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  // The table owning data object `obj` (a table's or one of its indexes').
  TableDef* OwnerOf(uint32_t obj, IndexDef** index = nullptr) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);

  // ---- transactions, undo, redo ----
  bool TempUndo(SessionData& sd, bool temporary_object) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  // One redo record of the model's `bytes` for transaction `t`: the payload
  // (redo_payload.h) is the header and, for kChange, the change entries
  // collected in pending_redo since the last record.
  absl::Status GenerateRedo(Recorder& rec, uint32_t bytes, uint32_t vectors,
                            redo::RecordKind kind, Transaction& t, uint32_t arg = 0)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  absl::Status AddUndo(Recorder& rec, SessionData& sd, bool temporary_object,
                       uint32_t undo_record, uint32_t data_vector, uint32_t block_changes,
                       uint32_t undo_vector_extra = 0) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  absl::Status Commit(Recorder& rec, SessionData& sd) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  // ROLLBACK: `user rollbacks`, then EndInRollback.
  absl::Status Rollback(Recorder& rec, SessionData& sd) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  // The transaction undone and ended with its rollback record (a failed DDL
  // ends the transaction it began this way: no `user rollbacks`).
  absl::Status EndInRollback(Recorder& rec, SessionData& sd) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  // Statement-level rollback: undoes the transaction's changes made after
  // the first `mark` undo entries (a failed statement leaves no change); when
  // some of them were logged, a record says so, for recovery. An error only
  // when a row could not be restored (ApplyUndo).
  absl::Status RollbackTo(Recorder& rec, SessionData& sd, size_t mark) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  // The same for a statement that is to wait for a row lock and run again:
  // the rows it changed or locked stay locked by sd's transaction (unlogged
  // lock entries), as an Oracle session keeps the rows it has while it waits
  // for the next one (so that two such statements deadlock as in Oracle).
  absl::Status RollbackToKeepingRowLocks(Recorder& rec, SessionData& sd, size_t mark)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  // Applies and drops the undo entries after `mark`; the number of them whose
  // redo was logged. `*unrestored` counts the updated rows whose old image
  // did not fit back in their block (held_space keeps that from happening;
  // the rest of the undo is applied all the same).
  uint32_t ApplyUndo(Recorder& rec, SessionData& sd, size_t mark, uint32_t* unrestored)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);

  // Row locks (Oracle's TX locks on rows): a row of a permanent table that an
  // open transaction inserted, updated or deleted is that session's until the
  // transaction ends or the statement that changed it is undone. Another
  // session changing it would see its change undone by the holder's
  // rollback (or undo the holder's by its own), so the statement fails
  // (ORA-00054, statement-level rollback); a session that waits
  // (Session::SetRowLockWait) then waits for the holder's transaction to end
  // (WaitForTransactionEnd) and runs the statement again, as Oracle restarts
  // a statement whose rows changed under it.
  // A row change of sd's transaction: its undo entry, its row's lock, and
  // the statement's current-mode get of the row's block (CountCurrentGet).
  void AddRowUndo(Recorder& rec, SessionData& sd, UndoEntry u) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  // OK, or ORA-00054 naming the session whose open transaction holds row
  // (file, block, slot) of `t`.
  absl::Status CheckRowLock(const SessionData& sd, const TableDef& t, uint32_t file, uint32_t block,
                            uint16_t slot) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  // Whether the transaction `c` names is still open: its session is there
  // and has that transaction (XID) open.
  bool TransactionOpen(const RowLockConflict& c) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  // Session sd waits (mu released meanwhile) for the transaction `c` names
  // to end, as Oracle's enq: TX - row lock contention, recorded in `rec`
  // however the wait ends. OK when it has ended; ORA-00060 (FailedPrecondition)
  // at once when the holder waits, through other waiters, for sd (a
  // deadlock: the waits form a cycle the moment the last of them begins, and
  // that session is told); DeadlineExceeded at `deadline`; Cancelled
  // (ORA-01013) when `cancel` is set (checked every 20 ms).
  absl::Status WaitForTransactionEnd(Recorder& rec, SessionData& sd, const RowLockConflict& c,
                                     std::chrono::steady_clock::time_point deadline,
                                     const CancelFlag* cancel) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  // Session sd sleeps `duration_cs` hundredths of a second (DBMS_SESSION.SLEEP,
  // DBMS_LOCK.SLEEP), holding its transaction and row locks: Oracle's idle
  // wait "PL/SQL lock timer" (P1 the duration), recorded in `rec` however it
  // ends; `sleepers` shows it meanwhile. With a real clock the thread waits
  // (mu released meanwhile); with a simulated one its modeled time moves on
  // instead. Cancelled (ORA-01013) when `cancel` is set (checked every 20 ms).
  // `waited_ns`: how long it lasted.
  absl::Status Sleep(Recorder& rec, const SessionData& sd, uint64_t duration_cs,
                     const CancelFlag* cancel, uint64_t* waited_ns) ABSL_LOCKS_EXCLUDED(mu);
  // Ends sd's transaction (Commit, Rollback): a fresh one, its waiters woken.
  void EndTransaction(SessionData& sd) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  absl::Status FlushLog(Recorder& rec, bool sync) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  // LGWR's write of the first `bytes` of the log buffer (whole redo blocks
  // but the last) at the CURRENT log's position in every member of `g`
  // (WriteRedoToMembers: those not INVALID; OK when one took it).
  absl::Status WriteRedo(const LogGroup& g, size_t bytes)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  absl::Status WriteRedoToMembers(const LogGroup& g, absl::Span<const uint8_t> out)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  // log_flush_bytes for thread 1's `groups`.
  void SetLogFlushBytes(const std::vector<const LogGroup*>& groups) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  UndoStatBucket& Bucket() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);

  // ---- log switches and ARCH (data_archive.cc) ----
  // Makes the next of `groups` CURRENT in a new sequence and remembers the
  // log left behind (log_use). In ARCHIVELOG mode a next group whose log was
  // never archived is archived first (`log file switch (archiving needed)`);
  // ORA-00257 when that fails, nothing switched.
  absl::Status NextLog(Recorder& rec, const std::vector<const LogGroup*>& groups, bool archivelog)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  // In ARCHIVELOG mode: group `g` (or the one after CURRENT) may be reused
  // once ARCH copied its log; copies it now if an earlier copy failed.
  absl::Status MakeReusable(Recorder& rec, const LogGroup& g) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  absl::Status MakeNextLogReusable(Recorder& rec) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  // After a switch: the checkpoint, then (ARCHIVELOG) ARCH copies the log left
  // behind to the archive destination; the session waits `log file switch
  // completion` for both. An ARCH failure leaves the log unarchived (retried
  // before the group is reused) and is not the statement's error.
  absl::Status CompleteSwitch(Recorder& rec, uint32_t left_group, bool archivelog)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  // ARCH: copies `u`'s blocks of group `g` (the first member that reads whole,
  // else assembled block by block from the members: AssembleLog) into
  // a new ARCHIVELOG file in the archive destination and records it in the
  // control file (the oldest beyond FileTable::kMaxArchivedLogs deleted).
  absl::Status ArchiveLog(const LogGroup& g, LogUse& u) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  // When no member reads whole (DataLoss): `u`'s blocks of `g` into `image`,
  // each redo block from a member that holds it whole (ReadRedoBlocks), the
  // blocks past the end of the sequence's redo as zeros; DataLoss (ORA-00354)
  // naming a block none holds whole before the end.
  absl::Status AssembleLog(Recorder& arch, const LogGroup& g, const LogUse& u,
                           std::vector<uint8_t>* image) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  // At open in ARCHIVELOG mode: ARCH copies (whole) every online log whose
  // sequence is older than the CURRENT one and newer than the newest archived
  // one (a restart forgets which logs it filled); a failure is retried before
  // the group is reused.
  void ArchiveAfterOpen() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  // At an open after a clean close, in ARCHIVELOG mode: ARCH copies the log
  // the close left CURRENT (its sequence, group and end are the checkpoint's),
  // even one without redo, so the archived sequences have no gap.
  void ArchiveClosedLog(const CheckpointPosition& closed) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  // What the dictionary keeps of the online logs (V$LOG across restarts):
  // log_use and the CURRENT log's use so far (NEXT_CHANGE# 0), of the groups
  // `t` still has.
  std::map<uint32_t, LogUse> LogUseWithCurrent(const FileTable& t) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  // The CURRENT log's use so far (NEXT_CHANGE# 0).
  LogUse CurrentLogUse() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  // Adds the log switch that left `u` behind to log_history, unless a switch
  // of its sequence or a later one is there already; the oldest entries
  // beyond kMaxLogHistory go.
  void RecordLogSwitch(const LogUse& u) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  // Group `group`'s use as log sequence `seq`: the one remembered when it is
  // that sequence's (its SCN range kept), else a new one (range unknown: 0).
  LogUse& UseOf(uint32_t group, uint64_t seq) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  // At open, after the dictionary's log uses are loaded: the logs from
  // sequence `first_seq` (the checkpoint's) to `last_seq`, in group index
  // `last_group`, are the ones last used (each in the group after the one
  // before), the last one ending at the SCN now and at log_first_time (the
  // open's: set before this is called); whether each is archived is
  // the control file's word. Each of them but the CURRENT one is a switch
  // for log_history. Where a crash left a log's SCN range unknown (after a
  // switch, before its checkpoint) it is taken from its neighbours', else
  // from `first_redo_scn` (recovery's: each log's first redo record's SCN,
  // by sequence).
  void SettleLogUse(uint64_t first_seq, uint64_t last_seq, uint32_t last_group,
                    const std::map<uint64_t, uint64_t>& first_redo_scn = {})
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  // ALTER DATABASE ARCHIVELOG | NOARCHIVELOG.
  absl::Status SetLogMode(Recorder& rec, bool archivelog) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  // ALTER SYSTEM SWITCH LOGFILE; `archive_current`: ALTER SYSTEM ARCHIVE LOG
  // CURRENT (also waits until ARCH copied the log; an ARCH error is returned).
  absl::Status SwitchLogfile(Recorder& rec, bool archive_current) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
};

// CREATE INDEX / DROP INDEX / ANALYZE: true when `st` is one, with its
// outcome in `status` (data_index.cc).
bool RunIndexDdl(DataEngine& e, SessionData& sd, Recorder& rec, const DataStatement& st,
                 DataOutcome* out, absl::Status* status) ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu);
// Adds index `c` to table `t` and builds it, without writing the dictionary
// (the caller does, once its whole DDL is in place: CREATE INDEX right
// after, CREATE TABLE after all its constraints' indexes); on an error the
// index is gone again (data_index.cc).
absl::Status AddIndex(DataEngine& e, SessionData& sd, Recorder& rec, TableDef& t,
                      const CreateIndex& c) ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu);
// A PRIMARY KEY or UNIQUE constraint `k` (not a CHECK) on `t`: its unique
// index, named after it (SYS_Cnnnnnnn when `k` has no name), as AddIndex
// adds it; ORA-02260 for a second primary key, ORA-02261 for a column list a
// constraint has already (data_index.cc). A primary key's columns are made
// NOT NULL by the caller, which knows whether rows must be checked first.
absl::Status AddKeyConstraint(DataEngine& e, SessionData& sd, Recorder& rec, TableDef& t,
                              const TableConstraint& k) ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu);
// CREATE / ALTER / DROP SEQUENCE: true when `st` is one, with its outcome in
// `status` (data_sequence.cc).
bool RunSequenceDdl(DataEngine& e, SessionData& sd, Recorder& rec, const DataStatement& st,
                    DataOutcome* out, absl::Status* status) ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu);
// ORA-02287 before a statement runs: NEXTVAL and CURRVAL only where Oracle
// takes them (a top-level query's select list without DISTINCT, GROUP BY,
// aggregates, ORDER BY or set operators; INSERT's VALUES and its query's
// select list; UPDATE's and MERGE's SET; MERGE's INSERT VALUES; CREATE
// TABLE AS SELECT's select list; a column's DEFAULT).
// `nextval`: the sequences whose NEXTVAL the statement draws.
absl::Status CheckSequencePlacement(const DataStatement& st, std::set<std::string>* nextval);
// Whether `e` holds s.NEXTVAL or s.CURRVAL (not looking into subqueries).
bool HasSequence(const Expr& e);
// An identity column's sequence, ISEQ$$_`table_object_id`, made with
// `options` (not yet in the dictionary: CREATE TABLE writes it once);
// returns the column's DEFAULT text.
absl::StatusOr<std::string> AddIdentitySequence(DataEngine& e, uint32_t table_object_id,
                                                const SequenceOptions& options)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu);
// The sequence an identity column draws from ("" for another column).
std::string IdentitySequenceOf(const Column& c);
// ORA-00955 when `name` is a table's, an index's or a sequence's.
absl::Status CheckNameFree(DataEngine& e, const std::string& name)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu);

// s.NEXTVAL and s.CURRVAL within one statement: every NEXTVAL of a sequence
// in one row gives one value, drawn once per row (BeginRow starts the next
// row), and CURRVAL is the session's last NEXTVAL (this row's, once drawn).
// NEXTVAL is not transactional: a rollback does not give it back.
//
// It lives inside one statement, whose caller holds the engine's mu.
class SequenceDraw {
 public:
  // `nextval`: the sequences whose NEXTVAL the statement draws (their
  // CURRVAL is the row's NEXTVAL, wherever it stands).
  SequenceDraw(DataEngine& e, SessionData& sd, std::set<std::string> nextval)
      : e_(e), sd_(sd), nextval_(std::move(nextval)) {}
  void BeginRow() { row_.clear(); }
  absl::StatusOr<Value> Get(const Expr& e);

 private:
  DataEngine& e_;
  SessionData& sd_;
  const std::set<std::string> nextval_;
  std::map<uint32_t, int64_t> row_;  // this row's NEXTVAL, by object id
};
// SEQUENCE_NAME ... LAST_NUMBER for {DBA,ALL,USER}_SEQUENCES, the first
// column SEQUENCE_OWNER (data_sequence.cc).
std::vector<Row> SequenceRows(DataEngine& e) ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu);
// USER_TAB_IDENTITY_COLS.IDENTITY_OPTIONS of sequence `name`, as Oracle
// writes it ("START WITH: 1, INCREMENT BY: 1, ...").
std::string IdentityOptionsText(DataEngine& e, const std::string& name)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu);
// Before a clean close: each sequence's next value becomes its highwater.
void SettleSequences(DataEngine& e) ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu);

// DDL on `t` needs it free of other sessions' work: their rows of a GTT
// (ORA-14452), their open transactions on a heap table (ORA-00054)
// (data_index.cc).
absl::Status CheckTableNotInUse(DataEngine& e, const SessionData& sd, const TableDef& t,
                                bool own_gtt_rows_too) ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu);
// Each live row of `t` this session sees (another session's GTT rows are
// theirs), in block order, until `fn` returns false (data_index.cc).
using LiveRowVisitor =
    std::function<bool(uint32_t file, uint32_t block, uint16_t slot, absl::Span<const uint8_t> row)>;
absl::Status ForEachLiveRow(DataEngine& e, SessionData& sd, Recorder& rec, TableDef& t,
                            const LiveRowVisitor& fn) ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu);
// CHECK constraints (data_alter.cc): `k`'s condition names only columns of
// `t` (ORA-00904), and its name is free (ORA-02264); the CheckDef to add.
absl::StatusOr<CheckDef> NewCheck(DataEngine& e, const TableDef& t, const TableConstraint& k)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu);
// Constraint names are one namespace (data_alter.cc): ORA-02264 when
// `name` is a key's, a CHECK's or a NOT NULL's, of any table or of `t` (a
// table being created is not in e.tables yet).
absl::Status CheckConstraintNameFree(const DataEngine& e, const TableDef& t, const std::string& name)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu);
// Gives column `c` of `t`, NOT NULL now by its own constraint, that
// constraint's name: `wanted`, or SYS_Cnnnnnnn when "" (data_alter.cc).
absl::Status NameNotNull(DataEngine& e, const TableDef& t, Column& c, const std::string& wanted)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu);
// ALTER TABLE (data_alter.cc).
absl::Status AlterTableRun(DataEngine& e, SessionData& sd, Recorder& rec, const AlterTable& a,
                           DataOutcome* out) ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu);

// An index DROP INDEX or DROP CONSTRAINT takes out of its table's
// definition (data_index.cc). Nothing is freed for good before the
// statement's dictionary write succeeds: its extents are released at once
// (given back by the statement's restore when that write fails), its cached
// blocks (or, for a GTT's, the session's segment of it) go only in Forget,
// once the dictionary no longer names it.
class DroppedIndex {
 public:
  DroppedIndex() = default;  // none
  // Takes `*ix` out of `t.indexes`.
  DroppedIndex(DataEngine& e, TableDef& t, std::vector<IndexDef>::iterator ix)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu);
  // After the dictionary write: its blocks leave the buffer cache, or `sd`'s
  // segment of it goes.
  void Forget(DataEngine& e, SessionData& sd) ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu);

 private:
  uint32_t object_id_ = 0;  // 0: none
  bool temporary_ = false;
  Segment freed_;
};

// The index called `name` and its table; null when there is none.
IndexDef* FindIndexNamed(DataEngine& e, const std::string& name, TableDef** table)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu);
// A permanent object's segment may live in `tablespace` (not TEMP, not undo).
absl::Status CheckSegmentTablespace(DataEngine& e, const std::string& tablespace)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu);

// Whether `b` is a redo block as LGWR wrote it for log sequence `seq` at
// `block_no` (its number, sequence and checksum; data_recovery.cc).
bool ValidRedoBlock(absl::Span<const uint8_t> b, uint64_t block_no, uint64_t seq);
// Thread 1's online log groups, by group# (data_engine.cc).
std::vector<const LogGroup*> Thread1Groups(const FileTable& t);
// Read consistency (statement level): a statement of `reader` sees a row
// another session's open transaction has changed as it was committed,
// before that transaction, as Oracle's consistent read rebuilds it from
// undo: a row the transaction inserted is not there, one it updated has its
// old bytes, one it deleted is still there. The reader's own changes, and
// rows no open transaction changed, are as stored. Statements run under the
// engine's mu, so what is committed does not move while one runs: a view is
// made per scan, and costs one pass over the sessions while no other session
// holds a changed row (trivial()).
class CommittedView {
 public:
  // Every method requires e.mu (held by the caller of the constructor for
  // the view's life; asserted inside, where the analysis cannot see it).
  CommittedView(DataEngine& e, const SessionData& reader) ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu);
  bool trivial() const { return !others_; }
  // Row `slot` of block `block` of data file `file`, whose bytes `hb` holds,
  // as the reader sees it: its bytes, or nullopt when it is not there.
  // `rebuilt`: another open transaction changed it (the bytes are undo's).
  std::optional<absl::Span<const uint8_t>> Row(const HeapBlock& hb, uint32_t file, uint32_t block,
                                               uint16_t slot, bool* rebuilt);
  // Whether another open transaction changed a row of data object `obj`
  // (an index of it may then lack rows the reader sees).
  bool ChangedByOthers(uint32_t obj);
  // Whether another open transaction changed row `slot` of block `block` of
  // data file `file` (inserted, updated or deleted it).
  bool ChangedByOthers(uint32_t file, uint32_t block, uint16_t slot);

 private:
  // The oldest change entry of `holder`'s transaction for row `key`, if any.
  const UndoEntry* FirstChange(uint32_t holder, uint64_t key);

  DataEngine& e_;
  const SessionData& reader_;
  bool others_ = false;
  std::unordered_map<uint32_t, std::unordered_map<uint64_t, const UndoEntry*>> first_change_;
};

// Records that a session waited `waited_ns` for the row lock of the
// transaction `c` names: one "enq: TX - row lock contention" (P1 TX in mode
// 6, P2 usn<<16 | slot, P3 sequence), as Oracle's session records it.
void RecordRowLockWait(Recorder& rec, const RowLockConflict& c, uint64_t waited_ns);
stats::WaitParams RowLockWaitParams(const RowLockConflict& c);  // those P1-P3

// ALTER DATABASE [NO]ARCHIVELOG, ALTER SYSTEM SWITCH LOGFILE / ARCHIVE LOG
// CURRENT, ARCHIVE LOG LIST (data_archive.cc).
absl::Status RunLogCommand(DataEngine& e, Recorder& rec, const LogCommand& c, DataOutcome* out)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu);

// What a statement that would begin a transaction gets once
// Database::RefuseNewTransactions has been called (`what`: its kind, e.g.
// "INSERT"): ORA-01089 (data_exec.cc).
absl::Status NewTransactionRefused(std::string_view what);

// Runs one data statement in session `s` (data_exec.cc).
[[nodiscard]] absl::Status RunDataStatement(Session::State& s, const DataStatement& st,
                                            DataOutcome* out);
// The data engine of the database, made on first use.
DataEngine& EngineOf(Database::State& db);
// Database::WarmUp (data_dml.cc).
void WarmEngine(DataEngine& e) ABSL_LOCKS_EXCLUDED(e.mu);
// ALTER SESSION SET temp_undo_enabled: true when handled.
bool SetDataSessionParameter(Session::State& s, const std::string& name, const std::string& value,
                             absl::Status* status);

}  // namespace cellsim::db::internal

#endif  // CELLSIM_DB_DATA_ENGINE_H_
