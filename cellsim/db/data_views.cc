// The V$ views of the data engine, built from its state when queried.
#include "cellsim/db/data_views.h"

#include <fmt/format.h>

#include <algorithm>
#include <initializer_list>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/str_join.h"
#include "cellsim/asm/disk_group.h"
#include "cellsim/asm/rack.h"
#include "cellsim/db/date_format.h"

namespace cellsim::db::internal {
namespace {

using stats::Stat;
using namespace view_columns;  // NOLINT(build/namespaces): N, S, D

// A count, SCN, sequence or size as a NUMBER.
Value NumberOf(uint64_t v) { return Value::Num(static_cast<double>(v)); }

// The optimizer statistics columns of USER_TABLES / USER_INDEXES: the
// counts then LAST_ANALYZED, all NULL until the object is gathered.
void AppendStatistics(Row& row, bool gathered, std::initializer_list<uint64_t> counts,
                      int64_t last_analyzed) {
  for (uint64_t v : counts) row.push_back(gathered ? NumberOf(v) : Value::Null());
  row.push_back(gathered ? Value::Date(last_analyzed) : Value::Null());
}

ViewRows StatRows(const stats::StatValues& v, bool with_sid, uint32_t sid, bool names) {
  ViewRows r;
  if (with_sid) r.columns.push_back(N("SID"));
  r.columns.push_back(N("STATISTIC#"));
  if (names) {
    r.columns.push_back(S("NAME"));
    r.columns.push_back(N("CLASS"));
  }
  r.columns.push_back(N("VALUE"));
  for (size_t i = 0; i < stats::kStatCount; ++i) {
    Row row;
    if (with_sid) row.push_back(Value::Num(sid));
    row.push_back(Value::Num(static_cast<double>(i)));
    if (names) {
      row.push_back(Value::Str(std::string(stats::kStatTable[i].name)));
      row.push_back(Value::Num(stats::kStatTable[i].stat_class));
    }
    row.push_back(Value::Num(static_cast<double>(v.v[i])));
    r.rows.push_back(std::move(row));
  }
  return r;
}

ViewRows UndoStat(DataEngine& e, bool temp) ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu) {
  ViewRows r;
  if (temp) {
    r.columns = {D("BEGIN_TIME"), D("END_TIME"), N("UNDOTSN"), N("TXNCOUNT"), N("MAXCONCURRENCY"),
                 N("MAXQUERYLEN"), S("MAXQUERYID"), N("UNDOBLKCNT"), N("EXTCNT"), N("USCOUNT"),
                 N("SSOLDERRCNT"), N("NOSPACEERRCNT"), N("CON_ID")};
  } else {
    r.columns = {D("BEGIN_TIME"), D("END_TIME"), N("UNDOTSN"), N("UNDOBLKS"), N("TXNCOUNT"),
                 N("MAXQUERYLEN"), S("MAXQUERYID"), N("MAXCONCURRENCY"), N("SSOLDERRCNT"),
                 N("NOSPACEERRCNT"), N("ACTIVEBLKS"), N("TUNED_UNDORETENTION"), N("CON_ID")};
  }
  const FileTable table = e.FileTableCopy();
  const Tablespace* undo = table.FindTablespace("UNDOTBS1");
  const double tsn = undo != nullptr ? undo->number : 0;
  // V$UNDOSTAT: a row for every 10-minute interval since the instance
  // started, the current (partial) one first, at most 576 (4 days), as
  // Oracle's histogram (an interval without undo has zeros); V$TEMPUNDOSTAT:
  // the intervals that used temporary undo.
  std::vector<UndoStatBucket> rows;
  if (temp) {
    for (auto it = e.undostat.rbegin(); it != e.undostat.rend(); ++it) {
      if (it->temp_used) rows.push_back(*it);
    }
  } else {
    const int64_t now = e.db->clock->UnixSeconds();
    const int64_t current = now - now % 600;
    int64_t first = e.db->startup_unix - e.db->startup_unix % 600;
    if (!e.undostat.empty()) first = std::min(first, e.undostat.front().begin_unix);
    first = std::max(first, current - 575 * 600);
    auto it = e.undostat.rbegin();
    for (int64_t begin = current; begin >= first; begin -= 600) {
      while (it != e.undostat.rend() && it->begin_unix > begin) ++it;
      rows.push_back(it != e.undostat.rend() && it->begin_unix == begin ? *it
                                                                       : UndoStatBucket{begin});
    }
  }
  for (const UndoStatBucket& b : rows) {  // newest first
    const Value begin = Value::Date(b.begin_unix), end = Value::Date(b.begin_unix + 600);
    if (temp) {
      r.rows.push_back({begin, end, Value::Num(tsn), Value::Num(b.temp_txncount),
                        Value::Num(b.maxconcurrency), Value::Num(0), Value::Null(),
                        Value::Num(b.temp_undoblks), Value::Num(b.temp_extcnt),
                        Value::Num(b.temp_uscount), Value::Num(0), Value::Num(0), Value::Num(0)});
    } else {
      r.rows.push_back({begin, end, Value::Num(tsn), Value::Num(b.undoblks), Value::Num(b.txncount),
                        Value::Num(0), Value::Null(), Value::Num(b.maxconcurrency), Value::Num(0),
                        Value::Num(0), Value::Num(0), Value::Num(900), Value::Num(0)});
    }
  }
  return r;
}

// V$LOCK: what each open transaction holds. Its TX enqueue in exclusive
// mode (ID1 usn<<16 | slot, ID2 sequence: what an enq: TX wait names in P2
// and P3) and a TM lock in row-exclusive mode (3) on each table it changed
// or locked (ID1 the table's object id). CTIME: seconds since the
// transaction began (since the wait began, for a request). A session waiting
// for a row (Session::SetRowLockWait) REQUESTs the holder's TX in mode 6,
// one waiting for a unique key in mode 4 (LMODE 0), and the holder's TX row says BLOCK 1: Oracle's "who blocks
// whom" join of V$LOCK to itself on ID1, ID2.
ViewRows Locks(DataEngine& e) ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu) {
  ViewRows r;
  r.columns = {N("SID"),   S("TYPE"),    N("ID1"),   N("ID2"),
               N("LMODE"), N("REQUEST"), N("CTIME"), N("BLOCK")};
  const uint64_t now = e.db->clock->NowNanos();
  auto seconds_since = [now](uint64_t t) {
    return Value::Num(static_cast<double>((now - std::min(now, t)) / 1'000'000'000));
  };
  auto tx_id1 = [](uint32_t usn, uint32_t slot) {
    return Value::Num(static_cast<double>((uint64_t{usn} << 16) | slot));
  };
  for (auto& [sid, sd] : e.sessions) {
    const Transaction& t = sd->txn;
    if (!t.active) continue;
    const Value holder = Value::Num(sid);
    const Value ctime = seconds_since(t.start_ns);
    std::set<uint32_t> tables;
    for (const UndoEntry& u : t.undo) {
      if (!u.index) tables.insert(u.obj);
    }
    for (uint32_t obj : tables) {
      r.rows.push_back({holder, Value::Str("TM"), Value::Num(obj), Value::Num(0), Value::Num(3),
                        Value::Num(0), ctime, Value::Num(0)});
    }
    if (!t.perm_begun) continue;
    bool blocks = false;
    for (const auto& [waiter, w] : e.row_lock_waiters) {
      blocks |= w.on.holder_sid == sid && e.TransactionOpen(w.on);
    }
    r.rows.push_back({holder, Value::Str("TX"), tx_id1(t.usn, t.slot), Value::Num(t.wrap),
                      Value::Num(6), Value::Num(0), ctime, Value::Num(blocks ? 1 : 0)});
  }
  for (const auto& [waiter, w] : e.row_lock_waiters) {
    if (!e.TransactionOpen(w.on)) continue;  // ended: the waiter is about to run again
    r.rows.push_back({Value::Num(waiter), Value::Str("TX"), tx_id1(w.on.usn, w.on.slot),
                      Value::Num(w.on.sequence), Value::Num(0), Value::Num(w.on.mode),
                      seconds_since(w.since_ns), Value::Num(0)});
  }
  return r;
}

// A time the engine may not know (0): NULL then.
Value DateOrNull(int64_t unix_seconds) {
  return unix_seconds == 0 ? Value::Null() : Value::Date(unix_seconds);
}

ViewRows Logs(DataEngine& e, bool files) ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu) {
  ViewRows r;
  const FileTable table = e.FileTableCopy();  // `groups` point into it
  std::vector<const LogGroup*> groups;
  for (const LogGroup& g : table.log_groups) {
    if (g.state == EntryState::kAvailable) groups.push_back(&g);
  }
  if (files) {
    r.columns = {N("GROUP#"), S("STATUS"), S("TYPE"), S("MEMBER"), S("IS_RECOVERY_DEST_FILE"),
                 N("CON_ID")};
    for (const LogGroup* g : groups) {
      for (const LogMember& m : g->members) {
        const bool invalid = e.invalid_log_members.count(m.file.name) != 0;
        r.rows.push_back({Value::Num(g->group), invalid ? Value::Str("INVALID") : Value::Null(),
                          Value::Str("ONLINE"),
                          Value::Str(m.file.name), Value::Str("NO"), Value::Num(0)});
      }
    }
    return r;
  }
  r.columns = {N("GROUP#"), N("THREAD#"), N("SEQUENCE#"), N("BYTES"), N("BLOCKSIZE"), N("MEMBERS"),
               S("ARCHIVED"), S("STATUS"), N("FIRST_CHANGE#"), D("FIRST_TIME"), N("NEXT_CHANGE#"),
               D("NEXT_TIME"), N("CON_ID")};
  size_t index = 0;
  for (const LogGroup* g : groups) {
    std::string status = "UNUSED";
    LogUse use;  // sequence 0: never used since this instance opened
    bool archived = false;
    if (g->thread == 1) {
      if (index == e.current_group_index) {
        status = "CURRENT";
        use = e.CurrentLogUse();
      } else if (auto u = e.log_use.find(g->group); u != e.log_use.end()) {
        status = "INACTIVE";  // checkpointed at the switch
        use = u->second;
        archived = u->second.archived;
      } else if (index < e.sequence && e.log_use.empty()) {
        // Used before this instance opened, by a database whose dictionary
        // kept no log uses (written before version 7); with them, a group
        // that has none was never used.
        status = "INACTIVE";
      }
      ++index;
    }
    r.rows.push_back({Value::Num(g->group), Value::Num(g->thread), NumberOf(use.sequence),
                      NumberOf(g->size_bytes), Value::Num(g->block_size), NumberOf(g->members.size()),
                      Value::Str(archived ? "YES" : "NO"), Value::Str(status),
                      NumberOf(use.first_change), DateOrNull(use.first_time),
                      use.next_change == 0 ? Value::Null() : NumberOf(use.next_change),
                      DateOrNull(use.next_time), Value::Num(0)});
  }
  return r;
}

// Oracle's record stamp of a time: seconds since 1988-01-01 00:00:00 with
// every month 31 days long (RMAN's STAMP, "stamp2date"), UTC here.
uint64_t OracleStamp(int64_t unix_seconds) {
  const Civil t = CivilFromUnix(unix_seconds);
  if (t.year < 1988) return 0;
  const int64_t days = ((t.year - 1988) * 12 + (t.month - 1)) * 31 + (t.day - 1);
  return static_cast<uint64_t>(((days * 24 + t.hour) * 60 + t.minute) * 60 + t.second);
}

// V$LOG_HISTORY: each log switch the dictionary keeps (the newest
// kMaxLogHistory), oldest first. cellsim has no RESETLOGS: the database's
// incarnation starts at SCN 1 when it was created.
ViewRows LogHistory(DataEngine& e) ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu) {
  const int64_t created = e.FileTableCopy().created_unix;
  ViewRows r;
  r.columns = {N("RECID"), N("STAMP"), N("THREAD#"), N("SEQUENCE#"), N("FIRST_CHANGE#"),
               D("FIRST_TIME"), N("NEXT_CHANGE#"), N("RESETLOGS_CHANGE#"), D("RESETLOGS_TIME"),
               N("CON_ID")};
  for (const LogHistoryEntry& h : e.log_history) {
    r.rows.push_back({NumberOf(h.recid), NumberOf(OracleStamp(h.log.next_time)), Value::Num(1),
                      NumberOf(h.log.sequence), NumberOf(h.log.first_change), DateOrNull(h.log.first_time),
                      NumberOf(h.log.next_change), Value::Num(1), Value::Date(created), Value::Num(0)});
  }
  return r;
}

// V$ARCHIVED_LOG (the control file's records) and V$DATABASE.
ViewRows ArchiveViews(DataEngine& e, bool database) ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu) {
  const FileTable t = e.FileTableCopy();
  ViewRows r;
  if (database) {
    r.columns = {N("DBID"), S("NAME"), D("CREATED"), S("LOG_MODE"), N("CURRENT_SCN"),
                 S("OPEN_MODE"), N("CON_ID")};
    r.rows.push_back({NumberOf(t.dbid), Value::Str(t.db_name), Value::Date(t.created_unix),
                      Value::Str(t.archivelog ? "ARCHIVELOG" : "NOARCHIVELOG"), NumberOf(e.scn),
                      Value::Str("READ WRITE"), Value::Num(0)});
    return r;
  }
  r.columns = {N("RECID"), S("NAME"), N("THREAD#"), N("SEQUENCE#"), N("FIRST_CHANGE#"),
               N("NEXT_CHANGE#"), N("BLOCKS"), N("BLOCK_SIZE"), S("ARCHIVED"), S("DELETED"),
               S("STATUS"), D("COMPLETION_TIME"), N("CON_ID")};
  uint64_t recid = 1;
  for (const ArchivedLog& a : t.archived_logs) {
    r.rows.push_back({NumberOf(recid++), Value::Str(a.file.name), NumberOf(a.thread), NumberOf(a.sequence),
                      NumberOf(a.first_change), NumberOf(a.next_change), NumberOf(a.blocks), NumberOf(a.block_size),
                      Value::Str("YES"), Value::Str("NO"), Value::Str("A"),
                      Value::Date(a.completion_unix), Value::Num(0)});
  }
  return r;
}

const char* YesNo(bool b) { return b ? "YES" : "NO"; }

// V$DATAFILE / DBA_DATA_FILES (the files of permanent and undo tablespaces)
// or V$TEMPFILE / DBA_TEMP_FILES (a temporary tablespace's tempfiles), with
// Oracle's leading columns. Tempfiles share the relative file numbers of data
// files here (Oracle numbers them apart, from 1; docs/redo.md).
ViewRows FileRows(const FileTable& t, bool v_view, bool temp) {
  ViewRows r;
  if (v_view) {
    r.columns = {N("FILE#"), N("CREATION_CHANGE#"), D("CREATION_TIME"), N("TS#"), S("STATUS"),
                 S("ENABLED"), N("BYTES"), N("BLOCKS"), N("BLOCK_SIZE"), S("NAME")};
  } else {
    r.columns = {S("FILE_NAME"), N("FILE_ID"), S("TABLESPACE_NAME"), N("BYTES"), N("BLOCKS"),
                 S("STATUS"), N("RELATIVE_FNO"), S("AUTOEXTENSIBLE")};
    if (!temp) r.columns.push_back(S("ONLINE_STATUS"));
  }
  for (const DataFile& f : t.data_files) {
    if (f.state != EntryState::kAvailable) continue;  // being created (or left by a crash)
    const Tablespace* ts = t.TablespaceOf(f);
    if ((ts != nullptr && ts->contents == TablespaceContents::kTemporary) != temp) continue;
    const std::string ts_name = ts != nullptr ? ts->name : "";
    const double blocks = static_cast<double>(f.size_bytes / f.block_size);
    const char* online = ts_name == "SYSTEM" ? "SYSTEM" : "ONLINE";
    if (v_view) {
      r.rows.push_back({Value::Num(f.file_number), Value::Num(static_cast<double>(f.creation_change)),
                        Value::Date(f.created_unix), Value::Num(f.tablespace), Value::Str(online),
                        Value::Str("READ WRITE"), Value::Num(static_cast<double>(f.size_bytes)),
                        Value::Num(blocks), Value::Num(f.block_size), Value::Str(f.file.name)});
      continue;
    }
    r.rows.push_back({Value::Str(f.file.name), Value::Num(f.file_number), Value::Str(ts_name),
                      Value::Num(static_cast<double>(f.size_bytes)), Value::Num(blocks),
                      Value::Str(temp ? "ONLINE" : "AVAILABLE"), Value::Num(f.file_number),
                      Value::Str("NO")});
    if (!temp) r.rows.back().push_back(Value::Str(online));
  }
  return r;
}

// DBA_FREE_SPACE: the free runs of each permanent data file, adjacent ones
// merged: the extents dropped and truncated segments gave back (below the
// file's allocation mark, DataEngine::Extend) and the whole extents above
// that mark (from kFirstExtentBlock). The file of the undo area is all in
// use (DataEngine::UseOf) and shows none; temporary tablespaces are not in
// it (Oracle's DBA_TEMP_FREE_SPACE).
ViewRows FreeSpaceRows(DataEngine& e, const FileTable& t) ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu) {
  ViewRows r;
  r.columns = {S("TABLESPACE_NAME"), N("FILE_ID"), N("BLOCK_ID"), N("BYTES"), N("BLOCKS"),
               N("RELATIVE_FNO")};
  for (const DataFile& f : t.data_files) {
    const Tablespace* ts = t.TablespaceOf(f);
    if (f.state != EntryState::kAvailable || ts == nullptr ||
        ts->contents == TablespaceContents::kTemporary) {
      continue;
    }
    const DataEngine::FileUse use = e.UseOf(t, f.file_number);
    if (use.undo_area) continue;
    std::vector<std::pair<uint64_t, uint64_t>> runs;  // (first block, blocks)
    if (auto it = e.free_extents.find(f.file_number); it != e.free_extents.end()) {
      for (const auto& [start, n] : it->second) runs.push_back({start, n});
    }
    const uint64_t mark = std::max<uint64_t>(use.used_blocks, kFirstExtentBlock);
    const uint64_t file_blocks = OnDiskBlocks(f.size_bytes, kBlockSize);
    if (const uint64_t tail = file_blocks > mark ? (file_blocks - mark) / kExtentBlocks : 0) {
      runs.push_back({mark, tail * kExtentBlocks});
    }
    std::sort(runs.begin(), runs.end());
    for (size_t i = 0; i < runs.size(); ++i) {
      const uint64_t first = runs[i].first;
      uint64_t blocks = runs[i].second;
      while (i + 1 < runs.size() && first + blocks == runs[i + 1].first) {
        blocks += runs[++i].second;
      }
      r.rows.push_back({Value::Str(ts->name), Value::Num(f.file_number),
                        Value::Num(static_cast<double>(first)),
                        Value::Num(static_cast<double>(blocks * f.block_size)),
                        Value::Num(static_cast<double>(blocks)), Value::Num(f.file_number)});
    }
  }
  return r;
}

// V$FILESTAT (each data file) or V$TEMPSTAT (each tempfile): the physical
// I/O DataEngine::file_io counted since the instance opened. Times are
// hundredths of a second, as Oracle's; OPTIMIZED_PHYBLKRD the blocks the
// cells served from flash. TEMP blocks are never written (V$TEMPSTAT: zeros).
ViewRows FileStatRows(DataEngine& e, const FileTable& t, bool temp)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu) {
  ViewRows r;
  r.columns = {N("FILE#"),          N("PHYRDS"),   N("PHYWRTS"),        N("PHYBLKRD"),
               N("OPTIMIZED_PHYBLKRD"), N("PHYBLKWRT"), N("SINGLEBLKRDS"), N("READTIM"),
               N("WRITETIM"),       N("SINGLEBLKRDTIM"), N("AVGIOTIM"),  N("LSTIOTIM"),
               N("MINIOTIM"),       N("MAXIORTM"), N("MAXIOWTM"),       N("CON_ID")};
  if (temp) r.columns.erase(r.columns.begin() + 4);  // V$TEMPSTAT has no OPTIMIZED_PHYBLKRD
  const auto n = [](int64_t v) { return Value::Num(static_cast<double>(v)); };
  for (const DataFile& f : t.data_files) {
    if (f.state != EntryState::kAvailable) continue;
    const Tablespace* ts = t.TablespaceOf(f);
    if ((ts != nullptr && ts->contents == TablespaceContents::kTemporary) != temp) continue;
    FileIoStats io;
    if (auto it = e.file_io.find(f.file_number); it != e.file_io.end()) io = it->second;
    const int64_t ios = io.read_requests + io.write_requests;
    Row row{Value::Num(f.file_number), n(io.read_requests), n(io.write_requests),
            n(io.blocks_read), n(io.optimized_blocks_read), n(io.blocks_written),
            n(io.single_block_reads), Centis(io.read_ns), Centis(io.write_ns),
            Centis(io.single_block_read_ns),
            Centis(ios == 0 ? 0 : (io.read_ns + io.write_ns) / static_cast<uint64_t>(ios)),
            Centis(io.last_io_ns), Centis(io.min_io_ns.value_or(0)), Centis(io.max_read_ns),
            Centis(io.max_write_ns), Value::Num(0)};
    if (temp) row.erase(row.begin() + 4);
    r.rows.push_back(std::move(row));
  }
  return r;
}

// V$TABLESPACE, DBA_TABLESPACES, V$DATAFILE, DBA_DATA_FILES, V$TEMPFILE and
// DBA_TEMP_FILES (Oracle's leading columns), from the file table; DBA_FREE_SPACE,
// V$FILESTAT and V$TEMPSTAT.
std::optional<ViewRows> FileViews(DataEngine& e, const std::string& name)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu) {
  if (name != "V$TABLESPACE" && name != "DBA_TABLESPACES" && name != "V$DATAFILE" &&
      name != "DBA_DATA_FILES" && name != "V$TEMPFILE" && name != "DBA_TEMP_FILES" &&
      name != "DBA_FREE_SPACE" && name != "V$FILESTAT" && name != "V$TEMPSTAT") {
    return std::nullopt;
  }
  const FileTable t = e.FileTableCopy();
  if (name == "DBA_FREE_SPACE") return FreeSpaceRows(e, t);
  if (name == "V$FILESTAT" || name == "V$TEMPSTAT") return FileStatRows(e, t, name == "V$TEMPSTAT");
  ViewRows r;
  if (name == "V$TABLESPACE") {
    r.columns = {N("TS#"), S("NAME"), S("INCLUDED_IN_DATABASE_BACKUP"), S("BIGFILE"),
                 S("FLASHBACK_ON"), S("ENCRYPT_IN_BACKUP"), N("CON_ID")};
    for (const Tablespace& ts : t.tablespaces) {
      r.rows.push_back({Value::Num(ts.number), Value::Str(ts.name), Value::Str("YES"),
                        Value::Str(YesNo(ts.bigfile)), Value::Str("YES"), Value::Null(),
                        Value::Num(0)});
    }
    return r;
  }
  if (name == "DBA_TABLESPACES") {
    r.columns = {S("TABLESPACE_NAME"), N("BLOCK_SIZE"), S("STATUS"), S("CONTENTS"), S("LOGGING"),
                 S("EXTENT_MANAGEMENT"), S("SEGMENT_SPACE_MANAGEMENT"), S("BIGFILE")};
    for (const Tablespace& ts : t.tablespaces) {
      const bool permanent = ts.contents == TablespaceContents::kPermanent;
      r.rows.push_back({Value::Str(ts.name), Value::Num(ts.block_size), Value::Str("ONLINE"),
                        Value::Str(std::string(TablespaceContentsName(ts.contents))),
                        Value::Str(ts.contents == TablespaceContents::kTemporary ? "NOLOGGING"
                                                                                 : "LOGGING"),
                        Value::Str("LOCAL"), Value::Str(permanent ? "AUTO" : "MANUAL"),
                        Value::Str(YesNo(ts.bigfile))});
    }
    return r;
  }
  return FileRows(t, /*v_view=*/name[0] == 'V',
                  /*temp=*/name == "V$TEMPFILE" || name == "DBA_TEMP_FILES");
}

// USER_OBJECTS: the schema's tables, indexes and sequences (ALL_OBJECTS and
// DBA_OBJECTS are the seed's synthetic catalogue, all_objects.h); CAT and
// TAB are Oracle's short lists (TAB: tables only). No CREATED: cellsim does
// not keep when an object was made.
ViewRows SchemaObjectRows(DataEngine& e, const std::string& name) ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu) {
  ViewRows r;
  r.columns = {S("OBJECT_NAME"), N("OBJECT_ID"), N("DATA_OBJECT_ID"), S("OBJECT_TYPE"),
               S("STATUS"), S("TEMPORARY"), S("GENERATED")};
  auto add = [&](const std::string& n, uint32_t id, const std::string& type, bool temp,
                 bool valid = true) {
    const bool generated = n.starts_with("SYS_C") || n.starts_with("ISEQ$$_");
    const bool segment = type == "TABLE" || type == "INDEX";  // DATA_OBJECT_ID
    r.rows.push_back({Value::Str(n), Value::Num(id), segment ? Value::Num(id) : Value::Null(),
                      Value::Str(type), Value::Str(valid ? "VALID" : "INVALID"),
                      Value::Str(temp ? "Y" : "N"), Value::Str(generated ? "Y" : "N")});
  };
  for (auto& [tname, t] : e.tables) {
    add(tname, t.object_id, "TABLE", t.temporary);
    for (const IndexDef& ix : t.indexes) add(ix.name, ix.object_id, "INDEX", t.temporary);
  }
  for (const auto& [qname, q] : e.sequences) add(qname, q.object_id, "SEQUENCE", false);
  for (const auto& [vname, v] : e.views) add(vname, v.object_id, "VIEW", false, ViewIsValid(e, v));
  if (name != "USER_OBJECTS") {
    ViewRows shortlist;
    shortlist.columns = name == "TAB" ? std::vector<Column>{S("TNAME"), S("TABTYPE"), N("CLUSTERID")}
                                      : std::vector<Column>{S("TABLE_NAME"), S("TABLE_TYPE")};
    for (const Row& row : r.rows) {
      const std::string type = row[3].text;
      // CAT: tables, views, sequences; TAB: tables and views (Oracle's TABTYPE).
      if (type == "INDEX" || (name == "TAB" && type == "SEQUENCE")) continue;
      if (name == "TAB") shortlist.rows.push_back({row[0], row[3], Value::Null()});
      else shortlist.rows.push_back({row[0], row[3]});
    }
    return shortlist;
  }
  return r;
}

// Each permanent segment, as DBA_SEGMENTS and DBA_EXTENTS list them: every
// heap table's and its indexes' (a GTT's live in each session's temporary
// segment; undo segments are not segments here).
template <typename Fn>
void ForEachSegment(DataEngine& e, Fn fn) ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu) {
  for (auto& [tname, t] : e.tables) {
    if (t.temporary) continue;
    fn(tname, "TABLE", t.tablespace, t.segment);
    for (const IndexDef& ix : t.indexes) fn(ix.name, "INDEX", ix.tablespace, ix.segment);
  }
}

// DBA_EXTENTS and USER_EXTENTS (no OWNER, FILE_ID, BLOCK_ID, RELATIVE_FNO, as
// Oracle's): one row per extent of each segment, EXTENT_ID from 0 in the
// order the segment took them. With DBA_FREE_SPACE they tile each permanent
// data file above its first kFirstExtentBlock blocks.
ViewRows ExtentRows(DataEngine& e, bool user) ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu) {
  ViewRows r;
  r.columns = {S("OWNER"),     S("SEGMENT_NAME"), S("PARTITION_NAME"), S("SEGMENT_TYPE"),
               S("TABLESPACE_NAME"), N("EXTENT_ID"), N("FILE_ID"), N("BLOCK_ID"),
               N("BYTES"),     N("BLOCKS"),       N("RELATIVE_FNO")};
  ForEachSegment(e, [&](const std::string& seg_name, const char* type,
                        const std::string& tablespace, const Segment& g) {
    const std::vector<uint32_t> starts = g.ExtentStarts();
    for (size_t i = 0; i < starts.size(); ++i) {
      Row row{Value::Str("CELLSIM"), Value::Str(seg_name), Value::Null(), Value::Str(type),
              Value::Str(tablespace), Value::Num(static_cast<double>(i)),
              Value::Num(g.file_number), Value::Num(starts[i]),
              Value::Num(static_cast<double>(uint64_t{g.extent_blocks} * kBlockSize)),
              Value::Num(g.extent_blocks), Value::Num(g.file_number)};
      if (user) {
        row = {row[1], row[2], row[3], row[4], row[5], row[8], row[9]};
      }
      r.rows.push_back(std::move(row));
    }
  });
  if (user) {
    const std::vector<Column> all = r.columns;
    r.columns = {all[1], all[2], all[3], all[4], all[5], all[8], all[9]};
  }
  return r;
}

// {DBA,ALL,USER}_CONSTRAINTS: each table's NOT NULL constraints (C,
// SEARCH_CONDITION "COL" IS NOT NULL, as Oracle's; a primary key's columns
// have none of their own), PRIMARY KEY (P) and UNIQUE (U) constraints
// (their indexes, INDEX_NAME) and CHECK constraints (C, SEARCH_CONDITION
// as written).
ViewRows ConstraintRows(DataEngine& e) ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu) {
  ViewRows r;
  r.columns = {S("OWNER"),      S("CONSTRAINT_NAME"), S("CONSTRAINT_TYPE"), S("TABLE_NAME"),
               S("SEARCH_CONDITION"), S("STATUS"),    S("DEFERRABLE"),      S("DEFERRED"),
               S("VALIDATED"),  S("GENERATED"),       S("INDEX_NAME")};
  const auto row = [&](const std::string& table, const std::string& name, const char* type,
                       Value condition, Value index) {
    r.rows.push_back({Value::Str("CELLSIM"), Value::Str(name), Value::Str(type), Value::Str(table),
                      std::move(condition), Value::Str("ENABLED"), Value::Str("NOT DEFERRABLE"),
                      Value::Str("IMMEDIATE"), Value::Str("VALIDATED"),
                      Value::Str(name.starts_with("SYS_C") ? "GENERATED NAME" : "USER NAME"),
                      std::move(index)});
  };
  for (auto& [tname, t] : e.tables) {
    for (const Column& c : t.columns) {
      if (c.not_null_name.empty()) continue;
      row(tname, c.not_null_name, "C", Value::Str(fmt::format("\"{}\" IS NOT NULL", c.name)),
          Value::Null());
    }
    for (const IndexDef& ix : t.indexes) {
      if (ix.constraint == KeyConstraint::kNone) continue;
      row(tname, ix.name, ix.constraint == KeyConstraint::kPrimaryKey ? "P" : "U", Value::Null(),
          Value::Str(ix.name));
    }
    for (const CheckDef& c : t.checks) row(tname, c.name, "C", Value::Str(c.condition), Value::Null());
  }
  return r;
}

// {DBA,ALL,USER}_CONS_COLUMNS: a key's columns in key order (POSITION from
// 1); a CHECK's columns, in the table's order, without a POSITION.
ViewRows ConstraintColumnRows(DataEngine& e) ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu) {
  ViewRows r;
  r.columns = {S("OWNER"), S("CONSTRAINT_NAME"), S("TABLE_NAME"), S("COLUMN_NAME"), N("POSITION")};
  for (auto& [tname, t] : e.tables) {
    for (const IndexDef& ix : t.indexes) {
      if (ix.constraint == KeyConstraint::kNone) continue;
      for (size_t i = 0; i < ix.columns.size(); ++i) {
        r.rows.push_back({Value::Str("CELLSIM"), Value::Str(ix.name), Value::Str(tname),
                          Value::Str(t.columns[ix.columns[i]].name),
                          Value::Num(static_cast<double>(i + 1))});
      }
    }
    for (const Column& col : t.columns) {
      if (col.not_null_name.empty()) continue;
      r.rows.push_back({Value::Str("CELLSIM"), Value::Str(col.not_null_name), Value::Str(tname),
                        Value::Str(col.name), Value::Null()});
    }
    for (const CheckDef& c : t.checks) {
      std::set<std::string> named;
      if (c.parsed == nullptr) continue;
      FindExprNode(*c.parsed, [&](const Expr& n) {
        if (n.kind == Expr::Kind::kColumn) named.insert(n.text);
        return false;
      });
      for (const Column& col : t.columns) {
        if (named.count(col.name) == 0) continue;
        r.rows.push_back({Value::Str("CELLSIM"), Value::Str(c.name), Value::Str(tname),
                          Value::Str(col.name), Value::Null()});
      }
    }
  }
  return r;
}

// The dictionary's views of tables, their columns, indexes and segments:
// {DBA,ALL,USER}_TABLES, _TAB_COLUMNS, _INDEXES, _SEQUENCES and {DBA,USER}_SEGMENTS and
// _EXTENTS (every table, index and sequence of the one schema, CELLSIM; USER_ views have
// no OWNER column).
// Segments are the heap tables' and indexes': a GTT's live in each
// session's temporary segment and are not listed, nor are undo segments.
std::optional<ViewRows> DictionaryView(DataEngine& e, const std::string& name)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu) {
  auto kind = [&](const char* what) {
    return name == std::string("USER_") + what || name == std::string("DBA_") + what ||
           name == std::string("ALL_") + what;
  };
  if (name == "USER_OBJECTS" || name == "CAT" || name == "TAB") return SchemaObjectRows(e, name);
  if (kind("VIEWS")) return ViewDefinitionRows(e, name);
  if (name == "DBA_EXTENTS" || name == "USER_EXTENTS") return ExtentRows(e, name == "USER_EXTENTS");
  ViewRows r;
  if (kind("INDEXES")) {
    // The statistics (BLEVEL to LAST_ANALYZED) are NULL until gathered.
    r.columns = {S("OWNER"),       S("INDEX_NAME"),  S("INDEX_TYPE"),    S("TABLE_NAME"),
                 S("UNIQUENESS"),  S("TABLESPACE_NAME"), S("TEMPORARY"), S("STATUS"),
                 N("BLEVEL"),      N("LEAF_BLOCKS"), N("DISTINCT_KEYS"), N("CLUSTERING_FACTOR"),
                 N("NUM_ROWS"),    N("SAMPLE_SIZE"), D("LAST_ANALYZED")};
    for (auto& [tname, t] : e.tables) {
      for (const IndexDef& ix : t.indexes) {
        // A GTT's index lives in each session's temporary segment: no tablespace.
        Row row = {Value::Str("CELLSIM"), Value::Str(ix.name), Value::Str("NORMAL"),
                   Value::Str(tname), Value::Str(ix.unique ? "UNIQUE" : "NONUNIQUE"),
                   t.temporary ? Value::Null() : Value::Str(ix.tablespace),
                   Value::Str(t.temporary ? "Y" : "N"), Value::Str("VALID")};
        const IndexStats x = ix.stats.value_or(IndexStats{});
        AppendStatistics(row, ix.stats.has_value(),
                         {x.blevel, x.leaf_blocks, x.distinct_keys, x.clustering_factor,
                          x.num_rows, x.num_rows},
                         x.last_analyzed);
        r.rows.push_back(std::move(row));
      }
    }
  } else if (kind("TABLES")) {
    // The statistics (NUM_ROWS to LAST_ANALYZED) are NULL until gathered;
    // EMPTY_BLOCKS is 0 then, as DBMS_STATS leaves it.
    r.columns = {S("OWNER"),     S("TABLE_NAME"), S("TABLESPACE_NAME"), S("TEMPORARY"),
                 S("DURATION"),  S("STATUS"),     N("NUM_ROWS"),        N("BLOCKS"),
                 N("EMPTY_BLOCKS"), N("AVG_ROW_LEN"), N("SAMPLE_SIZE"), D("LAST_ANALYZED")};
    for (auto& [tname, t] : e.tables) {
      Row row = {Value::Str("CELLSIM"), Value::Str(tname),
                 t.temporary ? Value::Null() : Value::Str(t.tablespace),
                 Value::Str(t.temporary ? "Y" : "N"),
                 !t.temporary      ? Value::Null()
                 : t.preserve_rows ? Value::Str("SYS$SESSION")
                                   : Value::Str("SYS$TRANSACTION"),
                 Value::Str("VALID")};
      const TableStats x = t.stats.value_or(TableStats{});
      AppendStatistics(row, t.stats.has_value(),
                       {x.num_rows, x.blocks, 0, x.avg_row_len, x.num_rows}, x.last_analyzed);
      r.rows.push_back(std::move(row));
    }
  } else if (kind("TAB_COLUMNS")) {
    // As Oracle lists them: DATA_LENGTH 22 for NUMBER, 7 for DATE, 11 for
    // TIMESTAMP(p), whose DATA_TYPE says p and whose DATA_SCALE is p; a
    // NUMBER without a precision has neither precision nor scale;
    // DATA_DEFAULT is the DEFAULT's text as written.
    r.columns = {S("OWNER"),          S("TABLE_NAME"), S("COLUMN_NAME"), S("DATA_TYPE"),
                 N("DATA_LENGTH"),    N("DATA_PRECISION"), N("DATA_SCALE"), S("NULLABLE"),
                 N("COLUMN_ID"),      S("DATA_DEFAULT"),   S("IDENTITY_COLUMN")};
    for (auto& [tname, t] : e.tables) {
      for (size_t i = 0; i < t.columns.size(); ++i) {
        const Column& c = t.columns[i];
        const bool number = c.type == ColType::kNumber;
        const bool timestamp = c.type == ColType::kTimestamp;
        r.rows.push_back({Value::Str("CELLSIM"), Value::Str(tname), Value::Str(c.name),
                          Value::Str(ColumnTypeName(c)), Value::Num(ColumnMaxBytes(c)),
                          number && c.length != 0 ? Value::Num(c.length) : Value::Null(),
                          number && c.length != 0 ? Value::Num(c.scale)
                          : timestamp             ? Value::Num(c.length)
                                                  : Value::Null(),
                          Value::Str(c.not_null ? "N" : "Y"), Value::Num(static_cast<double>(i + 1)),
                          c.default_sql.empty() ? Value::Null() : Value::Str(c.default_sql),
                          Value::Str(c.identity == IdentityKind::kNone ? "NO" : "YES")});
      }
    }
  } else if (kind("TAB_IDENTITY_COLS")) {
    r.columns = {S("OWNER"), S("TABLE_NAME"), S("COLUMN_NAME"), S("GENERATION_TYPE"),
                 S("SEQUENCE_NAME"), S("IDENTITY_OPTIONS")};
    for (auto& [tname, t] : e.tables) {
      for (const Column& c : t.columns) {
        if (c.identity == IdentityKind::kNone) continue;
        const std::string seq = IdentitySequenceOf(c);
        r.rows.push_back({Value::Str("CELLSIM"), Value::Str(tname), Value::Str(c.name),
                          Value::Str(c.identity == IdentityKind::kAlways ? "ALWAYS" : "BY DEFAULT"),
                          Value::Str(seq), Value::Str(IdentityOptionsText(e, seq))});
      }
    }
  } else if (kind("CONSTRAINTS")) {
    r = ConstraintRows(e);
  } else if (kind("CONS_COLUMNS")) {
    r = ConstraintColumnRows(e);
  } else if (kind("SEQUENCES")) {
    r.columns = {S("SEQUENCE_OWNER"), S("SEQUENCE_NAME"), N("MIN_VALUE"), N("MAX_VALUE"),
                 N("INCREMENT_BY"),   S("CYCLE_FLAG"),    S("ORDER_FLAG"), N("CACHE_SIZE"),
                 N("LAST_NUMBER")};
    r.rows = SequenceRows(e);
  } else if (name == "USER_SEGMENTS" || name == "DBA_SEGMENTS") {
    r.columns = {S("OWNER"),       S("SEGMENT_NAME"), S("SEGMENT_TYPE"), S("TABLESPACE_NAME"),
                 N("HEADER_FILE"), N("HEADER_BLOCK"), N("BYTES"),        N("BLOCKS"),
                 N("EXTENTS")};
    ForEachSegment(e, [&](const std::string& seg_name, const char* type,
                          const std::string& tablespace, const Segment& g) {
      const std::vector<uint32_t> starts = g.ExtentStarts();
      const double blocks = static_cast<double>(uint64_t{g.extents} * g.extent_blocks);
      r.rows.push_back({Value::Str("CELLSIM"), Value::Str(seg_name), Value::Str(type),
                        Value::Str(tablespace), Value::Num(g.file_number),
                        starts.empty() ? Value::Null() : Value::Num(starts.front()),
                        Value::Num(blocks * kBlockSize), Value::Num(blocks),
                        Value::Num(g.extents)});
    });
  } else {
    return std::nullopt;
  }
  if (name.starts_with("USER_")) {  // no OWNER column
    r.columns.erase(r.columns.begin());
    for (Row& row : r.rows) row.erase(row.begin());
  }
  return r;
}

// V$CELL: one row per cell of the rack; CELL_HASHVAL is the cellhash# the
// cell waits carry as P1 (join on it). CELL_PATH is the cell's name here
// (Oracle's is the cell's network path).
ViewRows CellRows(DataEngine& e) {
  ViewRows r;
  r.columns = {S("CELL_PATH"), N("CELL_HASHVAL"), N("CON_ID")};
  if (e.db == nullptr || e.db->rack == nullptr) return r;
  for (uint32_t c = 0; c < e.db->rack->cell_count(); ++c) {
    const std::string name = e.db->rack->cell(c)->name();
    r.rows.push_back({Value::Str(name), Value::Num(CellHashValue(name)), Value::Num(0)});
  }
  return r;
}

// A parameter's name as the wait views show it (NULL when the event has none)
// and its value in hexadecimal as Oracle's P1RAW (RAW(8)) prints it.
Value ParamText(std::string_view name) {
  return name.empty() ? Value::Null() : Value::Str(std::string(name));
}
Value ParamRaw(uint64_t v) { return Value::Str(fmt::format("{:016X}", v)); }
Value Micro(uint64_t ns) { return Value::Num(static_cast<double>(ns / 1000)); }

// V$EVENT_NAME: every wait event cellsim records; EVENT# is what
// V$SESSION_WAIT_HISTORY.EVENT# refers to.
ViewRows EventNames() {
  ViewRows r;
  r.columns = {N("EVENT#"), S("NAME"), S("PARAMETER1"), S("PARAMETER2"), S("PARAMETER3"),
               S("WAIT_CLASS"), N("CON_ID")};
  for (size_t i = 0; i < stats::kWaitCount; ++i) {
    const stats::WaitInfo& w = stats::kWaitTable[i];
    r.rows.push_back({Value::Num(static_cast<double>(i)), Value::Str(std::string(w.name)),
                      ParamText(w.p1), ParamText(w.p2), ParamText(w.p3),
                      Value::Str(std::string(stats::WaitClassName(w.wait_class))), Value::Num(0)});
  }
  return r;
}

// Session `sid`'s wait for a row lock, if it is in one.
// The wait session `sid` is in at `now`: a row lock's (`blocker` its
// holder) or a sleep's; its SEQ# follows the session's last wait's.
struct WaitInProgress {
  stats::WaitEvent wait;  // ns: the time so far
  std::optional<uint32_t> blocker;
};
std::optional<WaitInProgress> WaitInProgressOf(DataEngine& e, uint32_t sid, uint64_t now,
                                               const std::vector<stats::WaitEvent>& last)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu) {
  WaitInProgress w;
  w.wait.seq = (last.empty() ? 0 : last.front().seq) + 1;
  auto lock = e.row_lock_waiters.find(sid);
  if (lock != e.row_lock_waiters.end() && e.TransactionOpen(lock->second.on)) {
    w.wait.event = stats::Wait::kEnqTxRowLockContention;
    w.wait.params = RowLockWaitParams(lock->second.on);
    w.wait.ns = now - std::min(now, lock->second.since_ns);
    w.blocker = lock->second.on.holder_sid;
    return w;
  }
  auto sleep = e.sleepers.find(sid);
  if (sleep == e.sleepers.end()) return std::nullopt;
  w.wait.event = stats::Wait::kPlsqlLockTimer;
  w.wait.params = {sleep->second.duration_cs, 0, 0};
  w.wait.ns = now - std::min(now, sleep->second.since_ns);
  return w;
}

// V$SESSION: each session; ACTIVE when in a call (the one asking, and a
// session waiting for a row lock or sleeping), else INACTIVE; USERNAME
// and SCHEMANAME CELLSIM, TYPE USER, PROCESS and PROGRAM its client's
// (Session::SetClient; this process, cellsim). EVENT, WAIT_CLASS, STATE
// and SECONDS_IN_WAIT: the wait it is in (WaitInProgressOf: STATE WAITING;
// a row lock's with BLOCKING_SESSION its holder), else its last wait
// (WAITED KNOWN TIME or WAITED SHORT TIME; all null before its first).
ViewRows Sessions(DataEngine& e, SessionData& self) ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu) {
  ViewRows r;
  r.columns = {N("SID"),        N("SERIAL#"),         S("USERNAME"),        S("STATUS"),
               S("SCHEMANAME"), S("TYPE"),            S("PROCESS"),         S("PROGRAM"),
               N("SQL_HASH_VALUE"),
               S("SQL_ID"),     N("PREV_HASH_VALUE"), S("PREV_SQL_ID"),     D("LOGON_TIME"),
               S("EVENT"),      S("WAIT_CLASS"),      S("STATE"),           N("SECONDS_IN_WAIT"),
               N("BLOCKING_SESSION")};
  // The statement a session runs (its SQL_ID; NULL when idle) and ran last.
  auto sql = [](const std::optional<SqlIdentity>& id, std::vector<Value>* row) {
    row->push_back(id ? Value::Num(id->hash_value) : Value::Num(0));
    row->push_back(id ? Value::Str(id->sql_id) : Value::Null());
  };
  const uint64_t now = e.db->clock->NowNanos();
  for (auto& [sid, other] : e.sessions) {
    const std::vector<stats::WaitEvent> last = other->session->wait_history.Last();
    const std::optional<WaitInProgress> w = WaitInProgressOf(e, sid, now, last);
    Row row{Value::Num(sid),         Value::Num(kSessionSerial), Value::Str("CELLSIM"),
            Value::Str(w.has_value() || other == &self ? "ACTIVE" : "INACTIVE"),
            Value::Str("CELLSIM"),   Value::Str("USER"),     Value::Str(other->session->process),
            Value::Str(other->session->program)};
    const LibraryCache::SessionSql running = e.db->library_cache.SqlOf(sid);
    sql(running.current, &row);
    sql(running.previous, &row);
    row.push_back(Value::Date(other->session->logon_unix));
    if (w.has_value()) {
      const stats::WaitInfo& info = stats::kWaitTable[static_cast<size_t>(w->wait.event)];
      row.insert(row.end(), {Value::Str(std::string(info.name)),
                             Value::Str(std::string(stats::WaitClassName(info.wait_class))),
                             Value::Str("WAITING"),
                             Value::Num(static_cast<double>(w->wait.ns / 1'000'000'000)),
                             w->blocker ? Value::Num(*w->blocker) : Value::Null()});
      r.rows.push_back(std::move(row));
      continue;
    }
    if (last.empty()) {
      row.insert(row.end(), {Value::Null(), Value::Null(), Value::Null(), Value::Null()});
    } else {
      const stats::WaitInfo& info = stats::kWaitTable[static_cast<size_t>(last.front().event)];
      const bool known = last.front().ns >= 10'000'000;  // a hundredth of a second or more
      row.insert(row.end(), {Value::Str(std::string(info.name)),
                             Value::Str(std::string(stats::WaitClassName(info.wait_class))),
                             Value::Str(known ? "WAITED KNOWN TIME" : "WAITED SHORT TIME"),
                             Value::Num(0)});
    }
    row.push_back(Value::Null());
    r.rows.push_back(std::move(row));
  }
  return r;
}

// V$SESSION_WAIT_HISTORY (`history`: each session's last 10 waits, SEQ# 1 the
// newest) or V$SESSION_WAIT (each session's wait: the one it is in, a row
// lock's or a sleep's, STATE WAITING, WAIT_TIME 0 and WAIT_TIME_MICRO the time so far; else
// its last wait, WAITED KNOWN TIME or WAITED SHORT TIME). A session shows
// once it has run a data statement and waited.
ViewRows WaitRows(DataEngine& e, bool history) ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu) {
  ViewRows r;
  if (history) {
    r.columns = {N("SID"), N("SEQ#"), N("EVENT#"), S("EVENT"), S("P1TEXT"), N("P1"), S("P2TEXT"),
                 N("P2"), S("P3TEXT"), N("P3"), N("WAIT_TIME"), N("WAIT_TIME_MICRO"),
                 N("TIME_SINCE_LAST_WAIT_MICRO"), N("CON_ID")};
  } else {
    r.columns = {N("SID"), N("SEQ#"), S("EVENT"), S("P1TEXT"), N("P1"), S("P1RAW"), S("P2TEXT"),
                 N("P2"), S("P2RAW"), S("P3TEXT"), N("P3"), S("P3RAW"), S("WAIT_CLASS"),
                 N("WAIT_TIME"), S("STATE"), N("WAIT_TIME_MICRO"),
                 N("TIME_SINCE_LAST_WAIT_MICRO"), N("CON_ID")};
  }
  const uint64_t now = e.db->clock->NowNanos();
  for (auto& [sid, other] : e.sessions) {
    std::vector<stats::WaitEvent> last = other->session->wait_history.Last();
    const std::optional<WaitInProgress> in_wait =
        history ? std::nullopt : WaitInProgressOf(e, sid, now, last);
    if (in_wait.has_value()) last.insert(last.begin(), in_wait->wait);
    for (size_t k = 0; k < (history ? last.size() : std::min<size_t>(1, last.size())); ++k) {
      const stats::WaitEvent& w = last[k];
      const stats::WaitInfo& info = stats::kWaitTable[static_cast<size_t>(w.event)];
      const auto cs = static_cast<double>(w.ns / 10'000'000);  // hundredths of a second
      const Value num_p1 = Value::Num(static_cast<double>(w.params.p1));
      const Value num_p2 = Value::Num(static_cast<double>(w.params.p2));
      const Value num_p3 = Value::Num(static_cast<double>(w.params.p3));
      if (history) {
        r.rows.push_back({Value::Num(sid), Value::Num(static_cast<double>(k + 1)),
                          Value::Num(static_cast<double>(w.event)), Value::Str(std::string(info.name)),
                          ParamText(info.p1), num_p1, ParamText(info.p2), num_p2,
                          ParamText(info.p3), num_p3, Value::Num(cs), Micro(w.ns),
                          Micro(w.since_last_ns), Value::Num(0)});
        continue;
      }
      r.rows.push_back({Value::Num(sid), Value::Num(static_cast<double>(w.seq)),
                        Value::Str(std::string(info.name)), ParamText(info.p1), num_p1,
                        ParamRaw(w.params.p1), ParamText(info.p2), num_p2, ParamRaw(w.params.p2),
                        ParamText(info.p3), num_p3, ParamRaw(w.params.p3),
                        Value::Str(std::string(stats::WaitClassName(info.wait_class))),
                        Value::Num(in_wait.has_value() ? 0 : cs > 0 ? cs : -1),
                        Value::Str(in_wait.has_value() ? "WAITING"
                                   : cs > 0           ? "WAITED KNOWN TIME"
                                                      : "WAITED SHORT TIME"),
                        Micro(w.ns), Micro(w.since_last_ns), Value::Num(0)});
    }
  }
  return r;
}

}  // namespace

std::string_view ParameterTypeName(Parameter::Type t) {
  switch (t) {
    case Parameter::Type::kBoolean: return "boolean";
    case Parameter::Type::kInteger: return "integer";
    case Parameter::Type::kBigInteger: return "big integer";
    case Parameter::Type::kString: break;
  }
  return "string";
}

std::vector<Parameter> Parameters(DataEngine& e, SessionData& sd)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu) {
  const bool temp_undo = sd.temp_undo_param.value_or(e.temp_undo_enabled);
  std::string control_files, create_dest, recovery_dest;
  {
    MutexLock lock(&e.db->mu);  // DataEngine::mu, then Database::State::mu
    if (e.db->cf != nullptr) {
      std::vector<std::string> names;
      for (const ControlFileCopy& c : e.db->cf->files()) names.push_back(c.file.name);
      control_files = absl::StrJoin(names, ", ");
    }
  }
  create_dest = "+" + e.db->create_file_dest();
  if (std::string reco = e.db->recovery_file_dest(); !reco.empty()) recovery_dest = "+" + reco;
  std::vector<std::string> log_dests(5);  // DB_CREATE_ONLINE_LOG_DEST_1..5
  for (size_t i = 0; i < e.db->options.online_log_dests.size() && i < log_dests.size(); ++i) {
    log_dests[i] = "+" + absl::AsciiStrToUpper(e.db->options.online_log_dests[i]);
  }
  const std::string archive_dest =
      e.db->options.archive_dest.empty()
          ? std::string()
          : "LOCATION=+" + absl::AsciiStrToUpper(e.db->options.archive_dest);
  using T = Parameter::Type;
  const NlsFormats& nls = sd.session->nls;
  // SHOW PARAMETER's order is by name; V$PARAMETER's NUM follows it here.
  // Those the database was created with are not defaults (ISDEFAULT FALSE).
  std::vector<Parameter> p = {
      {"control_files", T::kString, control_files, false, false, false},
      {"db_block_size", T::kInteger, fmt::format("{}", kBlockSize), false, false},
      {"db_create_file_dest", T::kString, create_dest, false, false, false},
      {"db_create_online_log_dest_1", T::kString, log_dests[0], false, false, log_dests[0].empty()},
      {"db_create_online_log_dest_2", T::kString, log_dests[1], false, false, log_dests[1].empty()},
      {"db_create_online_log_dest_3", T::kString, log_dests[2], false, false, log_dests[2].empty()},
      {"db_create_online_log_dest_4", T::kString, log_dests[3], false, false, log_dests[3].empty()},
      {"db_create_online_log_dest_5", T::kString, log_dests[4], false, false, log_dests[4].empty()},
      {"db_name", T::kString, e.db->options.db_name, false, false, false},
      {"db_recovery_file_dest", T::kString, recovery_dest, false, false, recovery_dest.empty()},
      {"log_archive_dest_1", T::kString, archive_dest, false, false, archive_dest.empty()},
      {"log_buffer", T::kBigInteger, fmt::format("{}", e.log_buffer_size), false, false},
      // The session's (ALTER SESSION SET).
      {"nls_date_format", T::kString, nls.date, true, false, nls.date == kDefaultDateFormat},
      {"nls_timestamp_format", T::kString, nls.timestamp, true, false,
       nls.timestamp == kDefaultTimestampFormat},
      {"nls_timestamp_tz_format", T::kString, nls.timestamp_tz, true, false,
       nls.timestamp_tz == kDefaultTimestampTzFormat},
      {"temp_undo_enabled", T::kBoolean, temp_undo ? "TRUE" : "FALSE", true, true, !temp_undo},
      {"undo_management", T::kString, "AUTO", false, false},
      {"undo_tablespace", T::kString, "UNDOTBS1", false, false},
  };
  return p;
}

std::optional<ViewRows> BuildView(DataEngine& e, SessionData& sd, const std::string& name)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu) {
  if (name == "V$MYSTAT") {
    ViewRows r = StatRows(sd.session->stats.Snapshot(), true, sd.sid, false);
    return r;
  }
  if (name == "V$SESSTAT") {
    ViewRows all;
    for (auto& [sid, other] : e.sessions) {
      ViewRows r = StatRows(other->session->stats.Snapshot(), true, sid, false);
      all.columns = r.columns;
      for (Row& row : r.rows) all.rows.push_back(std::move(row));
    }
    return all;
  }
  if (name == "V$SYSSTAT") return StatRows(e.db->sys_stats.Snapshot(), false, 0, true);
  if (name == "V$STATNAME") {
    ViewRows r = StatRows(stats::StatValues{}, false, 0, true);
    r.columns.pop_back();
    for (Row& row : r.rows) row.pop_back();
    return r;
  }
  if (name == "V$SESSION") return Sessions(e, sd);
  if (name == "V$PARAMETER") {
    ViewRows r;
    r.columns = {N("NUM"), S("NAME"), N("TYPE"), S("VALUE"), S("ISDEFAULT"), S("ISSES_MODIFIABLE"),
                 S("ISSYS_MODIFIABLE")};
    double num = 1;
    for (const Parameter& p : Parameters(e, sd)) {
      r.rows.push_back({Value::Num(num++), Value::Str(p.name),
                        Value::Num(static_cast<double>(p.type)),
                        p.value.empty() ? Value::Null() : Value::Str(p.value),
                        Value::Str(p.is_default ? "TRUE" : "FALSE"),
                        Value::Str(p.session_modifiable ? "TRUE" : "FALSE"),
                        Value::Str(p.system_modifiable ? "IMMEDIATE" : "FALSE")});
    }
    return r;
  }
  if (name == "V$TRANSACTION") {
    ViewRows r;
    r.columns = {N("XIDUSN"), N("XIDSLOT"), N("XIDSQN"), S("STATUS"), N("USED_UBLK"),
                 N("USED_UREC"), N("SES_SID")};
    for (auto& [sid, other] : e.sessions) {
      const Transaction& t = other->txn;
      if (!t.active) continue;
      r.rows.push_back({Value::Num(t.usn), Value::Num(t.slot), Value::Num(t.wrap),
                        Value::Str("ACTIVE"), Value::Num(static_cast<double>(t.used_ublk)),
                        Value::Num(static_cast<double>(t.used_urec)), Value::Num(sid)});
    }
    return r;
  }
  if (name == "V$LOCK") return Locks(e);
  if (name == "V$TEMPSEG_USAGE" || name == "V$SORT_USAGE") {
    ViewRows r;
    r.columns = {S("USERNAME"), N("SESSION_NUM"), S("TABLESPACE"), S("CONTENTS"), S("SEGTYPE"),
                 N("EXTENTS"), N("BLOCKS")};
    for (auto& [sid, other] : e.sessions) {
      for (auto& [obj, seg] : other->gtt_segments) {
        IndexDef* ix = nullptr;
        e.OwnerOf(obj, &ix);
        r.rows.push_back({Value::Str("CELLSIM"), Value::Num(sid), Value::Str("TEMP"),
                          Value::Str("TEMPORARY"), Value::Str(ix != nullptr ? "INDEX" : "DATA"),
                          Value::Num(seg.extents),
                          Value::Num(seg.extents * seg.extent_blocks)});
      }
      if (other->has_temp_undo_segment) {
        r.rows.push_back({Value::Str("CELLSIM"), Value::Num(sid), Value::Str("TEMP"),
                          Value::Str("TEMPORARY"), Value::Str("TEMP_UNDO"), Value::Num(1),
                          Value::Num(other->temp_undo_segment.extent_blocks)});
      }
    }
    return r;
  }
  if (std::optional<ViewRows> d = DictionaryView(e, name); d.has_value()) return d;
  if (name == "V$UNDOSTAT") return UndoStat(e, false);
  if (name == "V$TEMPUNDOSTAT") return UndoStat(e, true);
  if (name == "V$LOG") return Logs(e, false);
  if (name == "V$LOGFILE") return Logs(e, true);
  if (name == "V$LOG_HISTORY") return LogHistory(e);
  if (name == "V$ARCHIVED_LOG") return ArchiveViews(e, false);
  if (name == "V$DATABASE") return ArchiveViews(e, true);
  if (name == "V$CELL") return CellRows(e);
  if (name == "V$EVENT_NAME") return EventNames();
  if (name == "V$SESSION_WAIT_HISTORY") return WaitRows(e, true);
  if (name == "V$SESSION_WAIT") return WaitRows(e, false);
  if (std::optional<ViewRows> v = InstanceView(e, name); v.has_value()) return v;
  return FileViews(e, name);
}

}  // namespace cellsim::db::internal
