// The data engine: segments in the buffer cache, DBWR checkpoints, undo,
// redo generation, the log buffer and LGWR (docs/redo.md).
#include "cellsim/db/data_engine.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>

#include "absl/strings/cord.h"
#include "cellsim/db/btree.h"
#include "cellsim/db/creation.h"
#include "cellsim/db/redo_model.h"
#include "cellsim/format/block_template.h"

namespace cellsim::db::internal {
namespace {

using stats::Stat;
using stats::Wait;

constexpr uint32_t kRedoBlock = redo::kRedoBlock;
constexpr uint32_t kRedoBlockHeader = redo::kRedoBlockHeader;
constexpr uint32_t kRedoPayload = kRedoBlock - kRedoBlockHeader;
constexpr uint64_t kLogTimeoutNs = 3'000'000'000ull;  // LGWR's 3-second timeout
constexpr uint32_t kUndoBlockUsable = kBlockSize - 100;  // header, ktubh, tail [inference]
constexpr uint32_t kUndoSegments = 10;
constexpr uint32_t kSlotsPerSegment = 34;  // 8 KiB undo header transaction table

uint64_t RowLockKey(uint32_t file, uint32_t block, uint16_t slot) {
  return (uint64_t{file} << 48) | (uint64_t{block} << 16) | slot;
}

// Whether undo entry `u` holds its row's lock: a permanent table's row
// changed (its redo carries the change) or locked (FOR UPDATE).
bool HoldsRowLock(const UndoEntry& u) {
  return !u.index && (u.redo || u.op == RowChange::kLock);
}

// Releases undo entry `u`'s hold on its row's lock (DataEngine::AddRowUndo).
void UnlockRow(std::unordered_map<uint64_t, DataEngine::RowLock>& locks, const UndoEntry& u) {
  if (!HoldsRowLock(u)) return;
  auto it = locks.find(RowLockKey(u.file, u.block, u.slot));
  if (it != locks.end() && --it->second.entries == 0) locks.erase(it);
}

// A fresh transaction. What survives is the same in both uses: the undo
// list and the held room. Begin (keep_changes) keeps their contents: the
// first change is recorded before AddUndo begins the transaction. The end
// keeps only their memory: a session's next transaction usually makes as
// many changes as its last (the seed's 70,000).
void Renew(Transaction& t, bool keep_changes) {
  std::vector<UndoEntry> undo = std::move(t.undo);
  std::unordered_map<uint64_t, uint32_t> held_space = std::move(t.held_space);
  if (!keep_changes) {
    undo.clear();
    held_space.clear();
  }
  t = Transaction{};
  t.undo = std::move(undo);
  t.held_space = std::move(held_space);
}

}  // namespace

std::vector<const LogGroup*> Thread1Groups(const FileTable& t) {
  std::vector<const LogGroup*> g;
  for (const LogGroup& lg : t.log_groups) {
    if (lg.thread == 1 && lg.state == EntryState::kAvailable) g.push_back(&lg);
  }
  std::sort(g.begin(), g.end(), [](auto* a, auto* b) { return a->group < b->group; });
  return g;
}

absl::StatusOr<size_t> ColumnOf(const TableDef& t, const std::string& name) {
  for (size_t k = 0; k < t.columns.size(); ++k) {
    if (t.columns[k].name == name) return k;
  }
  return absl::InvalidArgumentError(fmt::format("ORA-00904: \"{}\": invalid identifier", name));
}

absl::StatusOr<std::vector<uint16_t>> ColumnPositions(const TableDef& t,
                                                      const std::vector<std::string>& names) {
  std::vector<uint16_t> positions;
  for (const std::string& name : names) {
    absl::StatusOr<size_t> k = ColumnOf(t, name);
    if (!k.ok()) return k.status();
    positions.push_back(static_cast<uint16_t>(*k));
  }
  return positions;
}

FileTable DataEngine::FileTableCopy() const {
  MutexLock lock(&db->mu);
  return db->table;
}

// ---- storage ----

absl::StatusOr<uint32_t> DataEngine::DataFileOf(const std::string& tablespace) const {
  const FileTable table = FileTableCopy();
  const Tablespace* ts = table.FindTablespace(tablespace);
  if (ts != nullptr) {
    for (const DataFile& f : table.data_files) {
      if (f.tablespace == ts->number && f.state == EntryState::kAvailable) return f.file_number;
    }
  }
  return absl::NotFoundError(fmt::format(
      "ORA-00959: tablespace '{}' does not exist (a database gets its standard files when it "
      "is created with them: DatabaseOptions::standard_files, `cellsim sql --standard-files` "
      "on a new rack; or CREATE TABLESPACE {} DATAFILE '+DATA' SIZE 64M)",
      tablespace, tablespace));
}

absl::Status DataEngine::Extend(Segment& seg, bool temp) {
  const FileTable table = FileTableCopy();
  const DataFile* f = table.FindDataFile(seg.file_number);
  if (f == nullptr) return absl::InternalError(fmt::format("data file {} vanished", seg.file_number));
  const uint32_t n = seg.extent_blocks;
  auto& frees = free_extents[seg.file_number];
  for (auto it = frees.begin(); it != frees.end(); ++it) {
    if (it->second == n) {
      seg.next_block = it->first;
      seg.free_in_extent = n;
      ++seg.extents;
      frees.erase(it);
      return absl::OkStatus();
    }
  }
  uint32_t& next = file_next_block[seg.file_number];
  next = std::max(next, kFirstExtentBlock);
  // Blocks 0 to SIZE / block size are on disk (OnDiskBlocks): the last
  // extent may end at the file's last block.
  const uint64_t file_blocks = OnDiskBlocks(f->size_bytes, kBlockSize);
  if (uint64_t{next} + n > file_blocks) {
    const Tablespace* ts = table.TablespaceOf(*f);
    const std::string name = ts != nullptr ? ts->name : "?";
    return absl::ResourceExhaustedError(
        temp ? fmt::format("ORA-01652: unable to extend temp segment by {} in tablespace {}", n, name)
             : fmt::format("ORA-01653: unable to extend segment by {} in tablespace {}", n, name));
  }
  seg.next_block = next;
  seg.free_in_extent = n;
  ++seg.extents;
  next += n;
  return absl::OkStatus();
}

absl::StatusOr<uint32_t> DataEngine::NewBlock(Segment& seg, bool temp, uint32_t obj) {
  const bool extend = seg.free_in_extent == 0;
  if (extend) {
    if (absl::Status st = Extend(seg, temp); !st.ok()) return st;
  }
  const uint32_t b = seg.next_block++;
  --seg.free_in_extent;
  seg.blocks.push_back(b);
  CachedBlock& cb = cache[BlockKey(seg.file_number, b)];
  if (cb.bytes.empty() && !free_block_buffers.empty()) {
    cb.bytes = std::move(free_block_buffers.back());
    free_block_buffers.pop_back();
  }
  cb.bytes.resize(kBlockSize);  // Format zeroes it
  cb.temp = temp;
  cb.dirty = !temp;
  HeapBlock::Format(absl::MakeSpan(cb.bytes), format::Rdba(seg.file_number, b), obj);
  if (extend && !temp && !defer_extent_dictionary_writes) {
    // Space management commits by itself (Oracle's recursive transaction):
    // the dictionary holds the new extent before any change in it is logged.
    if (absl::Status st = WriteDictionary(false); !st.ok()) return st;
  }
  return b;
}

CachedBlock& DataEngine::Block(uint32_t file, uint32_t block) { return cache[BlockKey(file, block)]; }

void CountConsistentGets(Recorder& rec, int64_t n) {
  rec.Add(Stat::kConsistentGets, n);
  rec.Add(Stat::kSessionLogicalReads, n);
}

void CountCurrentGets(Recorder& rec, int64_t n) {
  rec.Add(Stat::kDbBlockGets, n);
  rec.Add(Stat::kSessionLogicalReads, n);
}

void CountSort(Recorder& rec, int64_t rows) {
  rec.Add(Stat::kSortsMemory, 1);
  rec.Add(Stat::kSortsRows, rows);
}

void CountUndoRecordApplied(Recorder& rec) {
  rec.Add(Stat::kDataBlocksConsistentReadsUndoRecordsApplied, 1);
  CountConsistentGets(rec, 1);
}

void CountCurrentGet(Recorder& rec, SessionData& sd, uint32_t file, uint32_t block) {
  const uint64_t key = BlockKey(file, block);
  if (key == sd.last_current_block) return;  // the next row of the block just got
  sd.last_current_block = key;
  if (sd.current_blocks.insert(key).second) CountCurrentGets(rec, 1);
}

absl::Status CheckCancelEvery4096Rows(SessionData& sd) {
  if ((++sd.rows_since_cancel_check & 4095) != 0 || sd.session == nullptr) return absl::OkStatus();
  if (Cancelled(sd.session->cancel)) return CancelStatus();
  return absl::OkStatus();
}

void DataEngine::FreeSegment(Segment& seg) { EvictBlocks(ReleaseExtents(seg)); }

void DataEngine::FreeSessionSegment(SessionData& sd, uint32_t obj) {
  auto it = sd.gtt_segments.find(obj);
  if (it == sd.gtt_segments.end()) return;
  FreeSegment(it->second);
  sd.gtt_segments.erase(it);
}

Segment DataEngine::ReleaseExtents(Segment& seg) {
  // Extents go back whole: the blocks of each extent are consecutive.
  for (uint32_t s : seg.ExtentStarts()) free_extents[seg.file_number].push_back({s, seg.extent_blocks});
  Segment was = std::move(seg);
  seg = Segment{};
  seg.extent_blocks = was.extent_blocks;
  seg.file_number = was.file_number;
  return was;
}

void DataEngine::EvictBlocks(const Segment& seg) {
  for (uint32_t b : seg.blocks) {
    auto it = cache.find(BlockKey(seg.file_number, b));
    if (it == cache.end()) continue;
    if (free_block_buffers.size() < kPooledBlockBuffers) {
      free_block_buffers.push_back(std::move(it->second.bytes));
    }
    cache.erase(it);
  }
}

DataEngine::DictionaryState DataEngine::BeginDdl() {
  ddl_objects_from = next_object_id;
  return {.tables = tables, .sequences = sequences, .views = views, .free_extents = free_extents,
          .next_object_id = next_object_id, .dictionary_writes = dictionary_writes};
}

void DataEngine::RestoreDictionaryState(DictionaryState before, SessionData* sd) {
  const uint32_t first_new = before.next_object_id;
  auto give_back = [&](const Segment& seg) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    auto& frees = before.free_extents[seg.file_number];
    for (uint32_t s : seg.ExtentStarts()) {
      const std::pair<uint32_t, uint32_t> extent{s, seg.extent_blocks};
      if (std::find(frees.begin(), frees.end(), extent) == frees.end()) frees.push_back(extent);
    }
    EvictBlocks(seg);
  };
  for (const auto& [name, t] : tables) {
    if (t.temporary) continue;  // its segments are the sessions'
    if (t.object_id >= first_new) give_back(t.segment);
    for (const IndexDef& ix : t.indexes) {
      if (ix.object_id >= first_new) give_back(ix.segment);
    }
  }
  for (uint32_t obj = first_new; sd != nullptr && obj < next_object_id; ++obj) {
    FreeSessionSegment(*sd, obj);
  }
  tables = std::move(before.tables);
  sequences = std::move(before.sequences);
  views = std::move(before.views);
  free_extents = std::move(before.free_extents);
  next_object_id = before.next_object_id;
}

namespace {

// `error`, after memory was put back as it was before a failed DDL, with the
// dictionary written again from it: a failed write leaves its range in doubt
// (a mirror may have taken the new generation, and even the copy that failed
// may show it once its cell is reopened). Once a current copy has taken the
// state as it was (ASM marks the others stale), the disk says what memory
// says: the statement did not happen.
absl::Status WriteBack(DataEngine& e, absl::Status error) ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu) {
  bool restored = false;
  absl::Status again = e.WriteDictionary(false, &restored);
  if (again.ok() || restored) return error;
  return absl::Status(error.code(), fmt::format(
      "{}; writing the dictionary back as it was failed too ({}): whether the statement took "
      "effect is known when the database is next opened (free the space, then reopen)",
      std::string(error.message()), std::string(again.message())));
}

}  // namespace

absl::Status DataEngine::FailDdl(absl::Status error, DictionaryState before, SessionData* sd) {
  ddl_objects_from.reset();
  const bool written = dictionary_writes != before.dictionary_writes;
  RestoreDictionaryState(std::move(before), sd);
  return written ? WriteBack(*this, std::move(error)) : error;
}

absl::Status DataEngine::WriteDictionaryOr(absl::FunctionRef<void()> restore) {
  ddl_objects_from.reset();  // the statement's own write: all of it
  absl::Status st = WriteDictionary(false);
  if (st.ok()) return st;
  restore();
  return WriteBack(*this, std::move(st));
}

absl::Status DataEngine::WriteDictionaryOrRestore(DictionaryState before, SessionData* sd) {
  return WriteDictionaryOr([&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    RestoreDictionaryState(std::move(before), sd);
  });
}

Segment* DataEngine::TableSegment(SessionData& sd, TableDef& t, bool create) {
  if (!t.temporary) return &t.segment;
  auto it = sd.gtt_segments.find(t.object_id);
  if (it != sd.gtt_segments.end()) return &it->second;
  if (!create) return nullptr;
  absl::StatusOr<uint32_t> file = DataFileOf("TEMP");
  if (!file.ok()) return nullptr;
  Segment seg;
  seg.file_number = *file;
  seg.extent_blocks = kTempExtentBlocks;
  return &sd.gtt_segments.emplace(t.object_id, seg).first->second;
}

namespace {
void CountIoTime(FileIoStats& f, uint64_t ns) {
  f.last_io_ns = ns;
  f.min_io_ns = std::min(f.min_io_ns.value_or(ns), ns);
}
}  // namespace

void DataEngine::CountFileRead(uint32_t file, int64_t requests, int64_t blocks, uint64_t ns,
                               const asmgr::AsmIoResult& r) {
  FileIoStats& f = file_io[file];
  f.read_requests += requests;
  f.blocks_read += blocks;
  // The blocks of the requests the cells served from flash (all or none of
  // a call's, as a call's requests go to the same cells; else pro rata).
  const uint64_t cell = std::max<uint64_t>(r.io.cell_requests, 1);
  f.optimized_blocks_read += static_cast<int64_t>(
      static_cast<uint64_t>(blocks) * std::min(r.io.cell.flash_cache_read_hits, cell) / cell);
  if (blocks == 1) {
    ++f.single_block_reads;
    f.single_block_read_ns += ns;
  }
  f.read_ns += ns;
  f.max_read_ns = std::max(f.max_read_ns, ns);
  CountIoTime(f, ns);
}

void DataEngine::CountFileWrite(uint32_t file, int64_t requests, int64_t blocks, uint64_t ns) {
  FileIoStats& f = file_io[file];
  f.write_requests += requests;
  f.blocks_written += blocks;
  f.write_ns += ns;
  f.max_write_ns = std::max(f.max_write_ns, ns);
  CountIoTime(f, ns);
}

absl::Status DataEngine::EnsureCached(Recorder& rec, uint32_t file,
                                      absl::Span<const uint32_t> blocks, uint32_t obj) {
  std::vector<uint32_t> missing;
  for (uint32_t b : blocks) {
    if (cache.count(BlockKey(file, b)) == 0) missing.push_back(b);
  }
  if (missing.empty()) return absl::OkStatus();
  const FileTable table = FileTableCopy();
  const DataFile* f = table.FindDataFile(file);
  if (f == nullptr) {
    return absl::NotFoundError(fmt::format(
        "ORA-01116: error in opening database file {}: the file of object {} is no longer part of "
        "the database",
        file, obj));
  }
  absl::StatusOr<asmgr::DiskGroup*> dg = FindDiskGroup(db->rack, f->file.disk_group);
  if (!dg.ok()) return dg.status();
  std::sort(missing.begin(), missing.end());
  // One read per run of consecutive blocks.
  std::vector<uint8_t> buf(missing.size() * kBlockSize);
  std::vector<asmgr::AsmReadRequest> r;
  for (size_t i = 0; i < missing.size(); ++i) {
    if (i > 0 && missing[i] == missing[i - 1] + 1) {
      r.back().buffer = absl::MakeSpan(r.back().buffer.data(), r.back().buffer.size() + kBlockSize);
      continue;
    }
    asmgr::AsmReadRequest q;
    q.file_offset = uint64_t{missing[i]} * kBlockSize;
    q.buffer = absl::MakeSpan(&buf[i * kBlockSize], kBlockSize);
    q.verify_checksums = true;
    q.verify_addresses = true;  // segment blocks: data blocks of their address, or zeros
    r.push_back(q);
  }
  asmgr::AsmIoResult res;
  const stats::Wait wait =
      missing.size() == 1 ? Wait::kCellSingleBlockPhysicalRead : Wait::kCellMultiblockPhysicalRead;
  const uint64_t t0 = db->clock->NowNanos();
  absl::Status st = rec.Timed(wait, [&] { return (*dg)->Read(f->file.number, absl::MakeSpan(r), &res); });
  AccountRead(rec, res, buf.size());
  CountFileRead(file, static_cast<int64_t>(r.size()), static_cast<int64_t>(missing.size()),
                db->clock->NowNanos() - t0, res);
  if (st.ok()) {  // the buffer cache's reads: blocks, requests (runs), bytes
    rec.Add(Stat::kPhysicalReads, static_cast<int64_t>(missing.size()));
    rec.Add(Stat::kPhysicalReadIoRequests, static_cast<int64_t>(r.size()));
    rec.Add(Stat::kPhysicalReadBytes, static_cast<int64_t>(buf.size()));
  } else {
    // A block that is no data block of its address on any copy (garbage, a
    // misdirected write) is ORA-01578 from ASM, which read every mirror first.
    return absl::Status(st.code(), fmt::format("reading {} blocks of data file {} ({}): {}",
                                               missing.size(), file, f->file.name,
                                               std::string(st.message())));
  }
  for (size_t i = 0; i < missing.size(); ++i) {
    CachedBlock& cb = cache[BlockKey(file, missing[i])];
    cb.bytes.assign(buf.begin() + i * kBlockSize, buf.begin() + (i + 1) * kBlockSize);
    cb.dirty = false;
    cb.temp = false;
    if (SegmentBlockObject(cb.bytes) != obj || cb.bytes[0] == 0) {
      // Allocated to the segment but never written since (the creation's
      // format, or a dropped object's block, or freed space reading as
      // zeros): an empty block.
      HeapBlock::Format(absl::MakeSpan(cb.bytes), format::Rdba(file, missing[i]), obj);
    }
  }
  return absl::OkStatus();
}

// DBWR: every dirty permanent block to its data file (`db file parallel
// write`, one write per data file), after LGWR has written the redo that
// covers them (the write-ahead rule); then the dictionary records where
// recovery starts.
absl::Status DataEngine::Checkpoint(Recorder& rec, bool clean) {
  // No exception: a block whose redo is not on disk is not written.
  if (absl::Status st = FlushLog(rec, true); !st.ok()) return st;
  std::map<uint32_t, std::vector<std::pair<uint32_t, CachedBlock*>>> by_file;
  for (auto& [key, cb] : cache) {
    if (cb.dirty && !cb.temp) by_file[static_cast<uint32_t>(key >> 32)].push_back({static_cast<uint32_t>(key), &cb});
  }
  const FileTable table = FileTableCopy();
  for (auto& [file, blocks] : by_file) {
    const DataFile* f = table.FindDataFile(file);
    if (f == nullptr) continue;
    absl::StatusOr<asmgr::DiskGroup*> dg = FindDiskGroup(db->rack, f->file.disk_group);
    if (!dg.ok()) return dg.status();
    std::vector<asmgr::AsmWriteRequest> w;
    for (auto& [block, cb] : blocks) {
      SealBlock(absl::MakeSpan(cb->bytes), recoverable_scn);
      asmgr::AsmWriteRequest r;
      r.file_offset = uint64_t{block} * kBlockSize;
      r.data = absl::MakeConstSpan(cb->bytes);
      w.push_back(r);
    }
    asmgr::AsmIoResult res;
    Recorder dbwr = db->SystemRecorder();  // DBWR's work, not the session's
    const uint64_t t0 = db->clock->NowNanos();
    absl::Status st = dbwr.Timed(Wait::kDbFileParallelWrite, [&] {
      return (*dg)->Write(f->file.number, absl::MakeSpan(w), &res);
    });
    AccountWrite(dbwr, res, w.size(), w.size() * kBlockSize);
    const auto n = static_cast<int64_t>(w.size());  // DBWR writes each block on its own
    CountFileWrite(file, n, n, db->clock->NowNanos() - t0);
    dbwr.Add(Stat::kPhysicalWrites, static_cast<int64_t>(w.size()));
    if (!st.ok()) {
      return absl::Status(st.code(), fmt::format("DBWR: writing {} blocks of data file {}: {}",
                                                 w.size(), file, std::string(st.message())));
    }
    for (auto& [block, cb] : blocks) cb->dirty = false;
  }
  if (absl::Status st = WriteUndoSnapshot(); !st.ok()) return st;
  checkpoint = CheckpointPosition{sequence, current_group_index, log_block, scn};
  return WriteDictionary(clean);
}

absl::Status DataEngine::FlushBufferCache(Recorder& rec) {
  if (absl::Status st = Checkpoint(rec); !st.ok()) return st;
  std::set<uint32_t> changed;  // objects (tables, indexes) of open transactions
  for (const auto& [sid, sd] : sessions) {
    for (const UndoEntry& u : sd->txn.undo) changed.insert(u.obj);
  }
  for (auto it = cache.begin(); it != cache.end();) {
    if (it->second.temp || it->second.dirty ||
        changed.count(SegmentBlockObject(it->second.bytes)) != 0) {
      ++it;
      continue;
    }
    if (free_block_buffers.size() < kPooledBlockBuffers) {
      free_block_buffers.push_back(std::move(it->second.bytes));
    }
    it = cache.erase(it);
  }
  return absl::OkStatus();
}

// ---- undo and redo ----

UndoStatBucket& DataEngine::Bucket() {
  const int64_t now = db->clock->UnixSeconds();
  const int64_t begin = now - now % 600;
  if (undostat.empty() || undostat.back().begin_unix != begin) {
    undostat.push_back(UndoStatBucket{begin});
    if (undostat.size() > 576) undostat.erase(undostat.begin());
  }
  return undostat.back();
}

bool DataEngine::TempUndo(SessionData& sd, bool temporary_object) {
  if (!temporary_object) return false;
  if (!sd.temp_undo_latched) {
    sd.temp_undo_latched = sd.temp_undo_param.value_or(temp_undo_enabled);
  }
  return *sd.temp_undo_latched;
}

// Copies one redo record of `bytes` into the log buffer; LGWR writes when a
// third of the buffer is used or its 3-second timeout has passed.
absl::Status DataEngine::GenerateRedo(Recorder& rec, uint32_t bytes, uint32_t vectors,
                                      redo::RecordKind kind, Transaction& t, uint32_t arg) {
  // A change or commit that would need the next log waits until that log may
  // be reused (ARCHIVELOG: archived), before anything of it is logged; the
  // records of rollbacks always go in (recovery needs them).
  if ((kind == redo::RecordKind::kChange || kind == redo::RecordKind::kCommit) &&
      current_log_blocks != 0 &&
      log_block + (log_buffer.size() + bytes + kRedoPayload - 1) / kRedoPayload > current_log_blocks) {
    if (absl::Status st = MakeNextLogReusable(rec); !st.ok()) return st;
  }
  ++scn;
  recoverable_scn = scn;  // once written: every record goes in before DBWR writes
  // The record: the payload header and the change entries, zero-padded to the
  // model's size (a payload larger than the model, which the byte model's
  // slack makes rare, takes its own size: docs/redo.md).
  const uint32_t payload = redo::kPayloadHeader + static_cast<uint32_t>(pending_redo.size());
  bytes = std::max(bytes, payload);
  rec.Add(Stat::kRedoSize, bytes);
  rec.Add(Stat::kRedoEntries, 1);
  rec.Add(Stat::kDbBlockChanges, vectors);
  const size_t at = log_buffer.size();
  log_buffer.resize(at + bytes, 0);
  redo::WriteHeader(&log_buffer[at], bytes, static_cast<uint8_t>(vectors), pending_entries, scn,
                    redo::Xid{t.usn, t.slot, t.wrap}, kind, arg);
  std::copy(pending_redo.begin(), pending_redo.end(), log_buffer.begin() + at + redo::kPayloadHeader);
  pending_redo.clear();
  pending_entries = 0;
  // The heap changes made since the last record are now logged.
  for (size_t i = std::min(t.undo_marked, t.undo.size()); i < t.undo.size(); ++i) {
    t.undo[i].logged = t.undo[i].redo;
  }
  t.undo_marked = t.undo.size();
  const uint64_t now = db->clock->NowNanos();
  if (log_flush_bytes == 0) SetLogFlushBytes(Thread1Groups(FileTableCopy()));  // once per instance
  if (log_buffer.size() >= log_flush_bytes ||
      (last_write_ns != 0 && now >= last_write_ns + kLogTimeoutNs)) {
    return FlushLog(rec, false);
  }
  return absl::OkStatus();
}

absl::Status DataEngine::AddUndo(Recorder& rec, SessionData& sd, bool temporary_object,
                                 uint32_t undo_record, uint32_t data_vector,
                                 uint32_t block_changes, uint32_t undo_vector_extra) {
  Transaction& t = sd.txn;
  const bool temp_undo = TempUndo(sd, temporary_object);
  if (!t.active) {
    Renew(t, /*keep_changes=*/true);  // the change being made and its room
    t.active = true;
    t.start_ns = db->clock->NowNanos();
    t.start_unix = db->clock->UnixSeconds();
  }
  t.touched_gtt |= temporary_object;
  uint32_t record = 0;
  uint32_t vectors = 0;
  if (!t.perm_begun) {
    // Take a slot in a permanent undo segment's transaction table (5.2); a
    // transaction whose undo is temporary still does, with a begin record.
    t.perm_begun = true;
    CountCurrentGets(rec, 1);  // the undo segment header, for a transaction table slot
    t.usn = next_usn;
    next_usn = next_usn % kUndoSegments + 1;
    t.slot = static_cast<uint32_t>(sd.sid % kSlotsPerSegment);
    t.wrap = ++undo_slot_wrap[(t.usn << 16) | t.slot];
    record += redo::BeginVector();
    ++vectors;
    undo_record += redo::kUndoFirstChange;
    ++Bucket().txncount;
    if (temp_undo) {
      record += redo::UndoVector(redo::kTempUndoBeginRecord);
      ++vectors;
      ++t.used_urec;
      ++t.used_ublk;
      CountCurrentGets(rec, 1);
      t.undo_block_used = redo::kTempUndoBeginRecord;
      ++Bucket().undoblks;
    }
  }
  if (temp_undo) {
    if (!t.temp_begun) {
      t.temp_begun = true;
      UndoStatBucket& b = Bucket();
      b.temp_used = true;
      ++b.temp_txncount;
      if (!sd.has_temp_undo_segment) {
        absl::StatusOr<uint32_t> temp_file = DataFileOf("TEMP");
        if (!temp_file.ok()) {
          return absl::FailedPreconditionError(
              "ORA-55526: temporary tablespace to store temporary undo not available");
        }
        sd.temp_undo_segment.file_number = *temp_file;
        sd.temp_undo_segment.extent_blocks = kTempExtentBlocks;
        sd.has_temp_undo_segment = true;
        ++b.temp_uscount;
        ++b.temp_extcnt;
      }
    }
    if (t.temp_block_used == 0 || t.temp_block_used + undo_record > kUndoBlockUsable) {
      ++t.temp_ublk;
      CountCurrentGets(rec, 1);
      ++Bucket().temp_undoblks;
      t.temp_block_used = 0;
    }
    t.temp_block_used += undo_record;
    ++t.temp_urec;
    // Temporary undo: no redo for it, and none for the temp data block.
    rec.Add(Stat::kDbBlockChanges, block_changes);
    if (record == 0) return absl::OkStatus();
    return GenerateRedo(rec, redo::kRecordHeader + record, vectors, redo::RecordKind::kChange, t);
  }
  if (t.undo_block_used == 0 || t.undo_block_used + undo_record > kUndoBlockUsable) {
    ++t.used_ublk;
    CountCurrentGets(rec, 1);
    ++Bucket().undoblks;
    t.undo_block_used = 0;
  }
  t.undo_block_used += undo_record;
  ++t.used_urec;
  rec.Add(Stat::kUndoChangeVectorSize, undo_record);
  record += redo::UndoVector(undo_record) + undo_vector_extra + data_vector;
  vectors += 1 + (data_vector != 0 ? 1 : 0);
  return GenerateRedo(rec, redo::kRecordHeader + record, vectors, redo::RecordKind::kChange, t);
}

absl::Status DataEngine::Commit(Recorder& rec, SessionData& sd) {
  Transaction& t = sd.txn;
  const bool had = t.active;
  if (had && t.perm_begun && Thread1Groups(FileTableCopy()).empty()) {
    // Nowhere to write the commit: the transaction stays open (rollback works).
    return absl::FailedPreconditionError(
        "ORA-00313: open failed for members of log group: thread 1 has no online log group "
        "(create the database with its standard files, or ALTER DATABASE ADD LOGFILE THREAD 1 "
        "GROUP 1 ...); the transaction is still open");
  }
  rec.Add(Stat::kUserCommits, 1);
  if (had && t.perm_begun) {
    CountCurrentGets(rec, 1);  // the undo segment header: the transaction's slot committed
    if (absl::Status st = GenerateRedo(rec, redo::CommitRecord(), 1, redo::RecordKind::kCommit, t);
        !st.ok()) {
      return st;  // still open, its rows still locked
    }
  }
  // The commit record is in the log buffer: the rows are free (as Oracle's
  // commit frees them before its log file sync).
  for (const UndoEntry& u : t.undo) {
    UnlockRow(row_locks, u);
    if (u.index && u.op == RowChange::kDelete) ForgetDeletedUniqueKey(u.obj, u.before, sd.sid);
  }
  EndTransaction(sd);
  // ON COMMIT DELETE ROWS: the session's segments of such GTTs go.
  for (auto it = sd.gtt_segments.begin(); it != sd.gtt_segments.end();) {
    const TableDef* owner = OwnerOf(it->first);  // the GTT, or the GTT of an index
    const bool preserve = owner != nullptr && owner->preserve_rows;
    if (preserve) {
      ++it;
      continue;
    }
    FreeSegment(it->second);
    it = sd.gtt_segments.erase(it);
  }
  if (!had && !commit_unwritten) return absl::OkStatus();
  // log file sync: the foreground waits for LGWR to write up to its commit.
  const uint64_t t0 = db->clock->NowNanos();
  switch_wait_ns = 0;
  absl::Status st = FlushLog(rec, true);
  commit_unwritten = !st.ok();
  if (!st.ok()) {
    st = absl::Status(st.code(), fmt::format(
        "{}; the commit is not acknowledged: its record waits in the log buffer, so COMMIT again "
        "once the log can be written (a crash before that undoes the transaction)",
        std::string(st.message())));
  }
  const uint64_t waited = db->clock->NowNanos() - t0;
  // P2 sync scn: the SCN the commit waits to have written (P1 buffer#, a
  // redo buffer number, has no counterpart here).
  rec.Wait(Wait::kLogFileSync, waited - std::min(waited, switch_wait_ns), {0, scn, 0});
  rec.Add(Stat::kRedoSynchWrites, 1);
  return st;
}

void DataEngine::AddRowUndo(Recorder& rec, SessionData& sd, UndoEntry u) {
  CountCurrentGet(rec, sd, u.file, u.block);
  if (HoldsRowLock(u)) {
    RowLock& lock = row_locks[RowLockKey(u.file, u.block, u.slot)];
    lock.sid = sd.sid;
    ++lock.entries;
  }
  sd.txn.undo.push_back(std::move(u));
}

absl::Status DataEngine::CheckRowLock(const SessionData& sd, const TableDef& t, uint32_t file,
                                      uint32_t block, uint16_t slot) const {
  auto it = row_locks.find(RowLockKey(file, block, slot));
  if (it == row_locks.end() || it->second.sid == sd.sid) return absl::OkStatus();
  absl::Status st = absl::FailedPreconditionError(fmt::format(
      "ORA-00054: resource busy and acquire with NOWAIT specified or timeout expired (a row of {} "
      "is locked by session {}'s open transaction: Oracle would wait for it to end, cellsim does "
      "not wait; commit or roll back session {}, then run this again)",
      t.name, it->second.sid, it->second.sid));
  st.SetPayload(kRowLockHolderPayload, absl::Cord(std::to_string(it->second.sid)));
  if (auto holder = sessions.find(it->second.sid); holder != sessions.end()) {
    const Transaction& txn = holder->second->txn;
    st.SetPayload(kRowLockTransactionPayload,
                  absl::Cord(fmt::format("{}.{}.{}", txn.usn, txn.slot, txn.wrap)));
  }
  return st;
}

absl::Status DataEngine::RollbackToKeepingRowLocks(Recorder& rec, SessionData& sd, size_t mark) {
  std::vector<UndoEntry> locks;
  for (size_t k = mark; k < sd.txn.undo.size(); ++k) {
    const UndoEntry& u = sd.txn.undo[k];
    if (HoldsRowLock(u)) locks.push_back({RowChange::kLock, u.file, u.block, u.slot, {}, u.obj});
  }
  absl::Status st = RollbackTo(rec, sd, mark);
  for (UndoEntry& u : locks) {
    auto held = row_locks.find(RowLockKey(u.file, u.block, u.slot));
    if (held == row_locks.end()) AddRowUndo(rec, sd, std::move(u));  // (else already kept)
  }
  return st;
}

CommittedView::CommittedView(DataEngine& e, const SessionData& reader) : e_(e), reader_(reader) {
  for (const auto& [sid, sd] : e.sessions) {
    others_ |= sid != reader.sid && sd->txn.active && sd->txn.perm_begun;
  }
}

const UndoEntry* CommittedView::FirstChange(uint32_t holder, uint64_t key) {
  e_.mu.AssertHeld();
  auto built = first_change_.find(holder);
  if (built == first_change_.end()) {
    built = first_change_.emplace(holder, std::unordered_map<uint64_t, const UndoEntry*>{}).first;
    if (auto s = e_.sessions.find(holder); s != e_.sessions.end()) {
      for (const UndoEntry& u : s->second->txn.undo) {
        if (HoldsRowLock(u) && u.op != RowChange::kLock) {
          built->second.emplace(RowLockKey(u.file, u.block, u.slot), &u);  // the oldest stays
        }
      }
    }
  }
  auto it = built->second.find(key);
  return it == built->second.end() ? nullptr : it->second;
}

std::optional<absl::Span<const uint8_t>> CommittedView::Row(const HeapBlock& hb, uint32_t file,
                                                            uint32_t block, uint16_t slot,
                                                            bool* rebuilt) {
  e_.mu.AssertHeld();
  *rebuilt = false;
  const auto stored = [&]() -> std::optional<absl::Span<const uint8_t>> {
    if (!hb.live(slot)) return std::nullopt;
    return hb.RowBytes(slot);
  };
  if (!others_) return stored();
  const uint64_t key = RowLockKey(file, block, slot);
  auto lock = e_.row_locks.find(key);
  if (lock == e_.row_locks.end() || lock->second.sid == reader_.sid) return stored();
  const UndoEntry* first = FirstChange(lock->second.sid, key);
  if (first == nullptr) return stored();  // only locked (FOR UPDATE)
  *rebuilt = true;
  switch (first->op) {
    case RowChange::kInsert:
      return std::nullopt;
    case RowChange::kUpdate:
      return absl::MakeConstSpan(first->before);
    case RowChange::kDelete:
    case RowChange::kLock:
      break;
  }
  // Deleted: a deleted row keeps its bytes.
  if (!first->before.empty()) return absl::MakeConstSpan(first->before);
  return slot < hb.rows() ? std::optional<absl::Span<const uint8_t>>(hb.RowBytes(slot)) : std::nullopt;
}

bool CommittedView::ChangedByOthers(uint32_t file, uint32_t block, uint16_t slot) {
  e_.mu.AssertHeld();
  if (!others_) return false;
  const uint64_t key = RowLockKey(file, block, slot);
  auto lock = e_.row_locks.find(key);
  return lock != e_.row_locks.end() && lock->second.sid != reader_.sid &&
         FirstChange(lock->second.sid, key) != nullptr;
}

bool CommittedView::ChangedByOthers(uint32_t obj) {
  e_.mu.AssertHeld();
  if (!others_) return false;
  for (const auto& [sid, sd] : e_.sessions) {
    if (sid == reader_.sid || !sd->txn.active) continue;
    for (const UndoEntry& u : sd->txn.undo) {
      if (HoldsRowLock(u) && u.op != RowChange::kLock && u.obj == obj) return true;
    }
  }
  return false;
}

bool DataEngine::TransactionOpen(const RowLockConflict& c) const {
  auto it = sessions.find(c.holder_sid);
  if (it == sessions.end()) return false;
  const Transaction& t = it->second->txn;
  return t.active && t.usn == c.usn && t.slot == c.slot && t.wrap == c.sequence;
}

absl::Status DataEngine::WaitForTransactionEnd(Recorder& rec, SessionData& sd,
                                               const RowLockConflict& c,
                                               std::chrono::steady_clock::time_point deadline,
                                               const CancelFlag* cancel) {
  // A deadlock: the holder waits, through waiters whose transactions are
  // still open (a woken waiter's entry lasts until it runs), for sd.
  // (Each waiter waits for one transaction: the walk is a path, at most
  // one step per waiter.)
  std::string chain = fmt::format("session {} waits for session {}", sd.sid, c.holder_sid);
  RowLockConflict next = c;
  for (size_t step = 0; step < row_lock_waiters.size(); ++step) {
    auto w = row_lock_waiters.find(next.holder_sid);
    if (w == row_lock_waiters.end() || !TransactionOpen(w->second.on)) break;
    next = w->second.on;
    chain += fmt::format(", which waits for session {}", next.holder_sid);
    if (next.holder_sid == sd.sid) {
      return absl::FailedPreconditionError(
          fmt::format("ORA-00060: deadlock detected while waiting for resource ({})", chain));
    }
  }
  const uint64_t t0 = db->clock->NowNanos();
  row_lock_waiters[sd.sid] = RowLockWaiter{c, t0};
  absl::Status st;
  while (TransactionOpen(c)) {
    if (Cancelled(cancel)) {
      st = absl::CancelledError(std::string(kCancelMessage));
      break;
    }
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) {
      st = absl::DeadlineExceededError("row lock wait limit reached");
      break;
    }
    transaction_ended.WaitFor(&mu, std::min<std::chrono::steady_clock::duration>(
                                       deadline - now, std::chrono::milliseconds(20)));
  }
  row_lock_waiters.erase(sd.sid);
  const uint64_t t1 = db->clock->NowNanos();
  RecordRowLockWait(rec, c, t1 - std::min(t1, t0));
  return st;
}

absl::Status DataEngine::Sleep(Recorder& rec, const SessionData& sd, uint64_t duration_cs,
                               const CancelFlag* cancel, uint64_t* waited_ns) {
  const uint64_t ns = duration_cs * 10'000'000;
  const uint64_t t0 = db->clock->NowNanos();
  absl::Status st;
  if (db->clock->simulated()) {
    db->clock->AdvanceThreadTo(t0 + ns);
  } else {
    {
      MutexLock lock(&mu);
      sleepers[sd.sid] = Sleeper{duration_cs, t0};
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::nanoseconds(ns);
    for (auto now = std::chrono::steady_clock::now(); now < deadline;
         now = std::chrono::steady_clock::now()) {
      if (Cancelled(cancel)) {
        st = absl::CancelledError(std::string(kCancelMessage));
        break;
      }
      std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(
          deadline - now, std::chrono::milliseconds(20)));
    }
    MutexLock lock(&mu);
    sleepers.erase(sd.sid);
  }
  const uint64_t t1 = db->clock->NowNanos();
  *waited_ns = t1 - std::min(t1, t0);
  rec.Wait(stats::Wait::kPlsqlLockTimer, *waited_ns, {duration_cs, 0, 0});
  return st;
}

void DataEngine::ForgetDeletedUniqueKey(uint32_t obj, const std::vector<uint8_t>& key,
                                        uint32_t sid) {
  if (deleted_unique_keys.empty() || key.size() < kRowIdBytes) return;
  auto [from, to] = deleted_unique_keys.equal_range(
      {obj, std::vector<uint8_t>(key.begin(), key.end() - kRowIdBytes)});
  for (auto it = from; it != to; ++it) {
    if (it->second.first == sid && it->second.second == key) {
      deleted_unique_keys.erase(it);
      return;
    }
  }
}

bool DataEngine::ReplaceRow(SessionData& sd, uint32_t file, uint32_t block, HeapBlock& hb,
                            uint16_t slot, absl::Span<const uint8_t> row) {
  const uint64_t key = BlockKey(file, block);
  auto all = held_space.find(key);
  const uint32_t held = all == held_space.end() ? 0 : all->second;
  auto mine = sd.txn.held_space.find(key);
  const uint32_t own = mine == sd.txn.held_space.end() ? 0 : mine->second;
  // The rollback undoes the changes newest first: what it may need is the
  // most the rows grow back at any point of it. A row that shrinks adds to
  // that; one that grows takes from it (the transaction reuses its own room).
  const int64_t regrow = static_cast<int64_t>(hb.RowBytes(slot).size()) - static_cast<int64_t>(row.size());
  const uint32_t own_after = static_cast<uint32_t>(std::max<int64_t>(0, own + regrow));
  const uint32_t held_after = held - own + own_after;
  if (!hb.Replace(slot, row, held_after)) return false;
  if (own_after == own) return true;
  if (own_after == 0) {
    sd.txn.held_space.erase(key);
  } else {
    sd.txn.held_space[key] = own_after;
  }
  if (held_after == 0) {
    held_space.erase(key);
  } else {
    held_space[key] = held_after;
  }
  return true;
}

uint32_t DataEngine::HeldSpace(uint32_t file, uint32_t block) const {
  auto it = held_space.find(BlockKey(file, block));
  return it == held_space.end() ? 0 : it->second;
}

void DataEngine::EndTransaction(SessionData& sd) {
  for (const auto& [key, bytes] : sd.txn.held_space) {
    auto it = held_space.find(key);
    if (it == held_space.end()) continue;
    it->second -= std::min(it->second, bytes);
    if (it->second == 0) held_space.erase(it);
  }
  Renew(sd.txn, /*keep_changes=*/false);
  transaction_ended.SignalAll();
}

stats::WaitParams RowLockWaitParams(const RowLockConflict& c) {
  // P1: the enqueue's name ('T' 'X') and the mode asked (6, exclusive, for
  // a row; 4, share, for a unique key: V$LOCK's modes), as Oracle packs them
  // (0x54580006, 0x54580004).
  constexpr uint64_t kTxName = (uint64_t{'T'} << 24) | (uint64_t{'X'} << 16);
  return {kTxName | c.mode, (uint64_t{c.usn} << 16) | c.slot, c.sequence};
}

void RecordRowLockWait(Recorder& rec, const RowLockConflict& c, uint64_t waited_ns) {
  rec.Wait(stats::Wait::kEnqTxRowLockContention, waited_ns, RowLockWaitParams(c));
}

namespace {
// The error of a rollback that left `n` rows with a newer image.
absl::Status Unrestored(uint32_t n) {
  if (n == 0) return absl::OkStatus();
  return absl::InternalError(fmt::format(
      "ORA-00600: internal error code, arguments: [rollback], [{}]: {} updated row(s) did not "
      "fit back into their block and keep their new values; the rest was rolled back (a cellsim "
      "bug: please report it)", n, n));
}
}  // namespace

uint32_t DataEngine::ApplyUndo(Recorder& rec, SessionData& sd, size_t mark, uint32_t* unrestored) {
  std::vector<UndoEntry>& undo = sd.txn.undo;
  uint32_t logged = 0;
  while (undo.size() > mark) {
    const UndoEntry& u = undo.back();
    logged += u.logged ? 1 : 0;
    UnlockRow(row_locks, u);
    if (u.index) {
      if (u.op == RowChange::kDelete) ForgetDeletedUniqueKey(u.obj, u.before, sd.sid);
      UndoIndexEntry(sd, u);
      undo.pop_back();
      continue;
    }
    auto found = cache.find(BlockKey(u.file, u.block));
    // Else its segment was dropped (a GTT's at commit), or the block now
    // belongs to another object.
    if (found != cache.end() && (u.obj == 0 || SegmentBlockObject(found->second.bytes) == u.obj)) {
      CountCurrentGet(rec, sd, u.file, u.block);
      if (!HeapBlock(absl::MakeSpan(found->second.bytes)).Undo(u.op, u.slot, u.before)) ++*unrestored;
      found->second.dirty = !found->second.temp;
    }
    undo.pop_back();
  }
  sd.txn.undo_marked = std::min(sd.txn.undo_marked, undo.size());
  return logged;
}

absl::Status DataEngine::RollbackTo(Recorder& rec, SessionData& sd, size_t mark) {
  // Entries of the failed statement not yet in a record never reach the log.
  pending_redo.clear();
  pending_entries = 0;
  uint32_t unrestored = 0;
  const uint32_t logged = ApplyUndo(rec, sd, mark, &unrestored);
  if (logged > 0) {
    // Recovery must undo them too: one end-of-statement-rollback record
    // (sized as a commit record; docs/redo.md).
    (void)GenerateRedo(rec, redo::CommitRecord(), 1, redo::RecordKind::kStatementRollback, sd.txn,
                       logged);
  }
  return Unrestored(unrestored);
}

absl::Status DataEngine::Rollback(Recorder& rec, SessionData& sd) {
  rec.Add(Stat::kUserRollbacks, 1);
  return EndInRollback(rec, sd);
}

absl::Status DataEngine::EndInRollback(Recorder& rec, SessionData& sd) {
  uint32_t unrestored = 0;
  ApplyUndo(rec, sd, 0, &unrestored);
  Transaction& t = sd.txn;
  const bool had = t.active && t.perm_begun;
  absl::Status st;
  if (had) CountCurrentGets(rec, 1);  // the undo segment header: the slot freed
  if (had) st = GenerateRedo(rec, redo::CommitRecord(), 1, redo::RecordKind::kRollback, t);  // its end record
  EndTransaction(sd);
  return unrestored > 0 ? Unrestored(unrestored) : st;
}

// LGWR: the log buffer into 512-byte redo blocks (16-byte header each; the
// last block's unused tail is `redo wastage`), written to every member of the
// CURRENT group; switches log (and checkpoints) when it does not fit.
absl::Status DataEngine::FlushLog(Recorder& rec, bool sync) {
  (void)sync;
  if (log_buffer.empty()) return absl::OkStatus();
  const FileTable table = FileTableCopy();  // `groups` point into it
  std::vector<const LogGroup*> groups = Thread1Groups(table);
  if (groups.empty()) return absl::OkStatus();  // kept until a group exists (Commit refuses)
  const uint64_t blocks = (log_buffer.size() + kRedoPayload - 1) / kRedoPayload;
  current_group_index %= static_cast<uint32_t>(groups.size());
  const LogGroup* g = groups[current_group_index];
  uint64_t capacity = g->size_bytes / g->block_size;
  current_log_blocks = capacity;
  SetLogFlushBytes(groups);
  std::optional<uint32_t> left;  // the group a log switch left behind
  if (log_block + blocks > capacity) {
    // Log switch: the next group becomes CURRENT and takes this write; the
    // checkpoint after it makes the old one INACTIVE at once (DBWR writes
    // synchronously, after the redo that covers its blocks).
    left = g->group;
    if (absl::Status st = NextLog(rec, groups, table.archivelog); !st.ok()) return st;
    g = groups[current_group_index];
    capacity = g->size_bytes / g->block_size;
  }
  // More redo than a whole log holds: this write fills the log; the switch's
  // checkpoint writes the rest (into the next log, switching again).
  const size_t bytes =
      log_block + blocks > capacity ? (capacity - log_block) * kRedoPayload : log_buffer.size();
  if (bytes == 0) {
    return absl::ResourceExhaustedError(fmt::format(
        "LGWR: log group {} ({} bytes) has no room for redo after its header", g->group,
        g->size_bytes));
  }
  if (absl::Status st = WriteRedo(*g, bytes); !st.ok()) return st;
  if (left) return CompleteSwitch(rec, *left, table.archivelog);
  return absl::OkStatus();
}

void DataEngine::SetLogFlushBytes(const std::vector<const LogGroup*>& groups) {
  log_flush_bytes = log_buffer_size / 3;
  if (groups.size() < 2) return;
  uint64_t smallest = UINT64_MAX;  // the smallest log's redo payload
  for (const LogGroup* g : groups) {
    const uint64_t blocks = g->size_bytes / g->block_size;
    smallest = std::min<uint64_t>(smallest, (blocks > 2 ? blocks - 2 : 0) * kRedoPayload);
  }
  // What the groups other than the CURRENT one hold, less half a log of
  // slack for the record that crosses the mark.
  const uint64_t others = (groups.size() - 1) * smallest;
  log_flush_bytes = std::clamp<uint64_t>(others - std::min(others, smallest / 2), kRedoPayload,
                                         std::max<uint64_t>(log_flush_bytes, kRedoPayload));
}

// The redo blocks `out` at LGWR's position in every member of `g` not
// INVALID. As Oracle's LGWR: a member whose write fails while another
// member takes the redo becomes INVALID (invalid_log_members) and the
// write succeeds; when no member takes it, the write fails (Oracle's LGWR
// would end the instance; here the redo stays in the log buffer for the
// next write).
absl::Status DataEngine::WriteRedoToMembers(const LogGroup& g, absl::Span<const uint8_t> out) {
  Recorder lgwr = db->SystemRecorder();  // LGWR's work, not the session's
  std::vector<std::pair<const LogMember*, absl::Status>> failed;
  size_t written = 0;
  for (const LogMember& m : g.members) {
    if (invalid_log_members.count(m.file.name) != 0) continue;
    absl::StatusOr<asmgr::DiskGroup*> dg = FindDiskGroup(db->rack, m.file.disk_group);
    absl::Status st = dg.status();
    if (dg.ok()) {
      std::vector<asmgr::AsmWriteRequest> w(1);
      w[0].file_offset = log_block * redo::kRedoBlock;
      w[0].data = out;
      asmgr::AsmIoResult res;
      st = (*dg)->Write(m.file.number, absl::MakeSpan(w), &res);
      AccountWrite(lgwr, res, 1, out.size());
    }
    if (st.ok()) {
      ++written;
    } else {
      failed.emplace_back(&m, std::move(st));
    }
  }
  if (written == 0 && failed.empty()) {
    return absl::UnavailableError(fmt::format(
        "LGWR: every member of log group {} is INVALID (V$LOGFILE)", g.group));
  }
  if (written == 0) {
    // Each member's failure: they may differ (one disk group full, the
    // other's disks failing).
    std::string what;
    for (const auto& [m, st] : failed) {
      what += fmt::format("{}{}: {}", what.empty() ? "" : "; ", m->file.name,
                          std::string(st.message()));
    }
    return absl::Status(failed.front().second.code(),
                        fmt::format("LGWR: writing {}{}", what,
                                    g.members.size() > 1 ? " (no member of the group could be "
                                                           "written)" : ""));
  }
  for (const auto& [m, st] : failed) {
    invalid_log_members[m->file.name] = fmt::format(
        "ORA-00345: redo log write error block {} count {}: {}", log_block,
        out.size() / redo::kRedoBlock, std::string(st.message()));
  }
  return absl::OkStatus();
}

absl::Status DataEngine::WriteRedo(const LogGroup& g, size_t bytes) {
  const uint64_t blocks = (bytes + kRedoPayload - 1) / kRedoPayload;
  std::vector<uint8_t> out(blocks * kRedoBlock, 0);
  for (uint64_t i = 0; i < blocks; ++i) {
    uint8_t* b = &out[i * kRedoBlock];
    b[0] = format::kRedoSignature;
    b[1] = format::kRedoFormat;
    const uint32_t block_no = static_cast<uint32_t>(log_block + i);
    const uint32_t seq = static_cast<uint32_t>(sequence);
    std::memcpy(b + 4, &block_no, 4);
    std::memcpy(b + 8, &seq, 4);
    const size_t from = i * kRedoPayload;
    const size_t n = std::min<size_t>(kRedoPayload, bytes - from);
    std::memcpy(b + kRedoBlockHeader, &log_buffer[from], n);
    const uint16_t used = static_cast<uint16_t>(n);  // record bytes in this block
    std::memcpy(b + 12, &used, 2);
    const uint16_t sum = format::RedoBlockChecksum(absl::MakeConstSpan(b, kRedoBlock));
    std::memcpy(b + 14, &sum, 2);
  }
  const uint64_t wastage = blocks * kRedoPayload - bytes;
  const uint64_t t0 = db->clock->NowNanos();
  if (absl::Status st = WriteRedoToMembers(g, out); !st.ok()) return st;
  db->SystemRecorder().Wait(Wait::kLogFileParallelWrite, db->clock->NowNanos() - t0);
  db->sys_stats.Add(Stat::kRedoWrites, 1);
  db->sys_stats.Add(Stat::kRedoBlocksWritten, static_cast<int64_t>(blocks));
  db->sys_stats.Add(Stat::kRedoWastage, static_cast<int64_t>(wastage));
  log_block += blocks;
  log_buffer.erase(log_buffer.begin(), log_buffer.begin() + static_cast<std::ptrdiff_t>(bytes));
  last_write_ns = db->clock->NowNanos();
  return absl::OkStatus();
}

}  // namespace cellsim::db::internal
