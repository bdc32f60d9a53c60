// Instance recovery (docs/redo.md "Instance recovery"): the undo of the
// transactions active at the last checkpoint (saved in UNDOTBS1 by that
// checkpoint), then roll forward through the online logs from the checkpoint
// position, applying each change to a block whose SCN is older than the
// record's, and roll back every transaction without a commit record.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <utility>
#include <vector>

#include "cellsim/base/checksum.h"
#include "cellsim/db/data_engine.h"
#include "cellsim/format/block_template.h"

namespace cellsim::db::internal {
namespace {


uint64_t BlockScn(const std::vector<uint8_t>& b) {
  uint32_t base = 0;
  uint16_t wrap = 0;
  std::memcpy(&base, &b[8], 4);
  std::memcpy(&wrap, &b[12], 2);
  return (uint64_t{wrap} << 32) | base;
}

void SetBlockScn(std::vector<uint8_t>& b, uint64_t scn) {
  const uint32_t base = static_cast<uint32_t>(scn);
  const uint16_t wrap = static_cast<uint16_t>(scn >> 32);
  std::memcpy(&b[8], &base, 4);
  std::memcpy(&b[12], &wrap, 2);
}

// One change to undo: a row inserted (delete it), deleted (restore it) or
// updated (the whole before row from a checkpoint's snapshot, or the changed
// columns' before images from redo).
struct RecUndo {
  RowChange op = RowChange::kInsert;
  uint32_t obj = 0, file = 0, block = 0;
  uint16_t slot = 0;
  std::vector<uint8_t> before_row;
  std::vector<redo::Change::ColumnChange> columns;
};
using TxnUndo = std::map<redo::Xid, std::vector<RecUndo>>;

// The UNDOTBS1 data file and the half of it an undo snapshot of `area` uses.
struct UndoArea {
  const DataFile* file = nullptr;
  uint64_t first_block = 0, blocks = 0;
};

std::optional<UndoArea> FindUndoArea(const FileTable& t, uint32_t area) {
  const Tablespace* ts = t.FindTablespace("UNDOTBS1");
  for (const Tablespace& x : t.tablespaces) {
    if (ts == nullptr && x.contents == TablespaceContents::kUndo) ts = &x;
  }
  if (ts == nullptr) return std::nullopt;
  for (const DataFile& f : t.data_files) {
    if (f.tablespace != ts->number || f.state != EntryState::kAvailable) continue;
    // Block n (the file's last, OnDiskBlocks) stays out of the area: a
    // saved snapshot's place is derived from n, so moving it would misplace
    // the undo a database has saved.
    const uint64_t n = f.size_bytes / kBlockSize;
    if (n <= kFirstExtentBlock + 2) return std::nullopt;
    const uint64_t half = (n - kFirstExtentBlock) / 2;
    return UndoArea{&f, kFirstExtentBlock + area * half, half};
  }
  return std::nullopt;
}

std::vector<uint8_t> EncodeSnapshot(const std::map<uint32_t, SessionData*>& sessions) {
  Encoder e;
  uint32_t n = 0;
  e.PutU32(0);
  for (const auto& [sid, sd] : sessions) {
    const Transaction& t = sd->txn;
    if (!t.active) continue;
    std::vector<const UndoEntry*> logged;
    for (const UndoEntry& u : t.undo) {
      if (u.logged) logged.push_back(&u);
    }
    if (logged.empty()) continue;
    ++n;
    e.PutU32(t.usn);
    e.PutU32(t.slot);
    e.PutU32(t.wrap);
    e.PutU32(static_cast<uint32_t>(logged.size()));
    for (const UndoEntry* u : logged) {
      e.PutU8(static_cast<uint8_t>(u->op));
      e.PutU32(u->obj);
      e.PutU32(u->file);
      e.PutU32(u->block);
      e.PutU16(u->slot);
      e.PutU32(static_cast<uint32_t>(u->before.size()));
      e.PutBytes(u->before);
    }
  }
  if (n == 0) return {};
  e.PatchU32(0, n);
  return std::move(e.bytes());
}

bool DecodeSnapshot(absl::Span<const uint8_t> bytes, TxnUndo* out) {
  Decoder d(bytes);
  uint32_t ntx = 0;
  if (!d.GetU32(&ntx)) return false;
  for (uint32_t i = 0; i < ntx; ++i) {
    redo::Xid x;
    uint32_t n = 0;
    if (!d.GetU32(&x.usn) || !d.GetU32(&x.slot) || !d.GetU32(&x.wrap) || !d.GetU32(&n)) return false;
    std::vector<RecUndo>& list = (*out)[x];
    for (uint32_t k = 0; k < n; ++k) {
      RecUndo u;
      uint8_t op = 0;
      uint32_t len = 0;
      absl::Span<const uint8_t> before;
      if (!d.GetU8(&op) || op > 2 || !d.GetU32(&u.obj) || !d.GetU32(&u.file) ||
          !d.GetU32(&u.block) || !d.GetU16(&u.slot) || !d.GetU32(&len) || !d.GetBytes(len, &before)) {
        return false;
      }
      u.op = static_cast<RowChange>(op);
      u.before_row.assign(before.begin(), before.end());
      list.push_back(std::move(u));
    }
  }
  return d.remaining() == 0;
}

}  // namespace

bool ValidRedoBlock(absl::Span<const uint8_t> b, uint64_t block_no, uint64_t seq) {
  uint32_t no = 0, s = 0;
  uint16_t used = 0, sum = 0;
  std::memcpy(&no, &b[4], 4);
  std::memcpy(&s, &b[8], 4);
  std::memcpy(&used, &b[12], 2);
  std::memcpy(&sum, &b[14], 2);
  if (b[0] != format::kRedoSignature || b[1] != format::kRedoFormat || no != block_no ||
      s != static_cast<uint32_t>(seq) || used > redo::kRedoBlock - redo::kRedoBlockHeader) {
    return false;
  }
  return format::RedoBlockChecksum(b) == sum;  // takes bytes 14..15 as zero
}

namespace {

// Recovery's work and what it tells.
struct Replay {
  TxnUndo undo;
  std::map<uint32_t, TableDef*> heap;  // by object id
  uint64_t records = 0, changes = 0, applied = 0, skipped_unknown = 0, committed = 0,
           rolled_back = 0, first_scn = 0, last_scn = 0;
};

}  // namespace

DataEngine::FileUse DataEngine::UseOf(const FileTable& t, uint32_t file_number) const {
  FileUse use;
  const DataFile* f = t.FindDataFile(file_number);
  if (f == nullptr) return use;
  // Extents come from a bump allocator above the headers and space maps
  // (freed ones are reused below it): everything under it stays.
  if (auto it = file_next_block.find(file_number); it != file_next_block.end()) {
    use.used_blocks = std::max<uint64_t>(use.used_blocks, it->second);
  }
  const Tablespace* system = t.FindTablespace("SYSTEM");
  if (system != nullptr && f->tablespace == system->number) {
    use.used_blocks = std::max<uint64_t>(use.used_blocks, kFirstExtentBlock);  // the dictionary
  }
  std::optional<UndoArea> undo = FindUndoArea(t, 0);
  if (undo.has_value() && undo->file->file_number == file_number) {
    use.undo_area = true;
    use.used_blocks = std::max<uint64_t>(use.used_blocks, f->size_bytes / f->block_size);
    use.holds_saved_undo = undo_snapshot.length != 0;
  }
  return use;
}

absl::Status DataEngine::WriteUndoSnapshot() {
  const std::vector<uint8_t> bytes = EncodeSnapshot(sessions);
  if (bytes.empty()) {
    undo_snapshot = UndoSnapshot{};
    return absl::OkStatus();
  }
  const uint32_t area = static_cast<uint32_t>((dictionary_generation + 1) % 2);
  const FileTable table = FileTableCopy();
  std::optional<UndoArea> a = FindUndoArea(table, area);
  if (!a.has_value()) {
    undo_snapshot = UndoSnapshot{};  // no undo tablespace: documented limit
    return absl::OkStatus();
  }
  std::vector<uint8_t> padded = bytes;
  padded.resize((bytes.size() + kBlockSize - 1) / kBlockSize * kBlockSize, 0);
  if (padded.size() > a->blocks * kBlockSize) {
    return absl::ResourceExhaustedError(fmt::format(
        "ORA-30036: unable to extend segment in undo tablespace: the undo of the active "
        "transactions ({} bytes) does not fit half of {} ({} bytes) at this checkpoint",
        bytes.size(), a->file->file.name, a->blocks * kBlockSize));
  }
  absl::StatusOr<asmgr::DiskGroup*> dg = FindDiskGroup(db->rack, a->file->file.disk_group);
  if (!dg.ok()) return dg.status();
  std::vector<asmgr::AsmWriteRequest> w(1);
  w[0].file_offset = a->first_block * kBlockSize;
  w[0].data = absl::MakeConstSpan(padded);
  asmgr::AsmIoResult res;
  Recorder dbwr = db->SystemRecorder();
  const uint64_t t0 = db->clock->NowNanos();
  absl::Status st = dbwr.Timed(stats::Wait::kDbFileParallelWrite,
                               [&] { return (*dg)->Write(a->file->file.number, absl::MakeSpan(w), &res); });
  AccountWrite(dbwr, res, 1, padded.size());
  CountFileWrite(a->file->file_number, 1, static_cast<int64_t>(padded.size() / kBlockSize),
                 db->clock->NowNanos() - t0);
  if (!st.ok()) {
    return absl::Status(st.code(), fmt::format("DBWR: writing the active transactions' undo into {}: {}",
                                               a->file->file.name, std::string(st.message())));
  }
  undo_snapshot = UndoSnapshot{a->file->file_number, area, bytes.size(),
                               Checksum64(absl::MakeConstSpan(bytes))};
  return absl::OkStatus();
}

namespace {

// What recovery needs from the engine, with its lock held by the caller.
class Recovery {
 public:
  explicit Recovery(DataEngine& e) ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu) : e_(e), rec_(e.db->SystemRecorder()) {}

  // `notes`: a copy read from a mirror.
  absl::Status ReadSnapshot(TxnUndo* undo, std::vector<std::string>* notes) {
    e_.mu.AssertHeld();
    const UndoSnapshot u = e_.undo_snapshot;
    if (u.length == 0) return absl::OkStatus();
    const FileTable table = e_.FileTableCopy();
    std::optional<UndoArea> a = FindUndoArea(table, u.area);
    if (!a.has_value() || a->file->file_number != u.file || u.length > a->blocks * kBlockSize) {
      return absl::DataLossError(fmt::format(
          "instance recovery: the checkpoint's undo (data file {}, {} bytes) is not where the "
          "dictionary says: the transactions active at the checkpoint cannot be rolled back",
          u.file, u.length));
    }
    std::vector<uint8_t> bytes((u.length + kBlockSize - 1) / kBlockSize * kBlockSize);
    const uint64_t offset = a->first_block * kBlockSize;
    absl::Status st = ReadFile(a->file->file, offset, absl::MakeSpan(bytes));
    const auto whole = [&] {
      return Checksum64(absl::MakeConstSpan(bytes).first(u.length)) == u.checksum;
    };
    if (st.ok() && !whole()) {
      // ASM served the primary copies; the mirrors may hold it whole.
      absl::StatusOr<asmgr::DiskGroup*> dg = FindDiskGroup(e_.db->rack, a->file->file.disk_group);
      const std::optional<uint32_t> copy =
          dg.ok() ? ReadFromMirrors(rec_, *dg, a->file->file.number, offset, absl::MakeSpan(bytes), whole)
                  : std::nullopt;
      if (copy.has_value()) {
        notes->push_back(fmt::format(
            "instance recovery: the undo the last checkpoint saved in {} (blocks {}-{}) failed its "
            "checksum as ASM first read it; read from mirror copy {}",
            a->file->file.name, a->first_block, a->first_block + bytes.size() / kBlockSize - 1, *copy));
      } else {
        st = absl::DataLossError("checksum mismatch on every copy");
      }
    }
    bytes.resize(u.length);
    if (st.ok() && !DecodeSnapshot(bytes, undo)) st = absl::DataLossError("malformed");
    if (!st.ok()) {
      return absl::DataLossError(fmt::format(
          "instance recovery: the undo the last checkpoint saved in {} (blocks {}-{}) is "
          "unreadable ({}): the transactions active at that checkpoint cannot be rolled back",
          a->file->file.name, a->first_block, a->first_block + u.length / kBlockSize,
          std::string(st.message())));
    }
    return absl::OkStatus();
  }

  // The redo from the checkpoint position to the end of the online logs, as
  // one stream of records; sets where it ended.
  // `log_starts`: each log's sequence and the offset in `stream` its redo
  // begins at, in order.
  absl::Status ReadRedo(std::vector<uint8_t>* stream, uint64_t* last_seq, uint32_t* last_group,
                        std::vector<std::pair<uint64_t, size_t>>* log_starts,
                        std::vector<std::string>* notes) {
    e_.mu.AssertHeld();
    const FileTable table = e_.FileTableCopy();
    const std::vector<const LogGroup*> groups = Thread1Groups(table);
    CheckpointPosition p = e_.checkpoint;
    if (p.sequence == 0) p = CheckpointPosition{1, 0, 2, 0};  // no checkpoint since creation
    *last_seq = p.sequence;
    *last_group = p.group_index;
    if (groups.empty()) return absl::OkStatus();
    uint32_t gi = p.group_index % static_cast<uint32_t>(groups.size());
    uint64_t seq = p.sequence, block = p.block;
    // Each group once: LGWR never switches into the group the checkpoint is
    // in (NextLog), so the walk cannot come back to it with newer redo.
    for (size_t logs = 0; logs < groups.size(); ++logs) {
      const LogGroup* g = groups[gi];
      bool any = false;
      const size_t start = stream->size();
      if (absl::Status st = ReadLog(*g, seq, block, stream, &any, notes); !st.ok()) return st;
      if (!any && logs > 0) break;  // the next log does not continue the sequence
      log_starts->push_back({seq, start});
      *last_seq = seq;
      *last_group = gi;
      gi = (gi + 1) % static_cast<uint32_t>(groups.size());
      ++seq;
      block = 2;
    }
    return absl::OkStatus();
  }

  absl::Status Apply(const redo::Record& r, Replay& rp) {
    e_.mu.AssertHeld();
    ++rp.records;
    decided_.clear();
    if (rp.first_scn == 0) rp.first_scn = r.scn;
    rp.last_scn = r.scn;
    switch (r.kind) {
      case redo::RecordKind::kChange:
        for (const redo::Change& c : r.changes) {
          if (absl::Status st = ApplyChange(r, c, rp); !st.ok()) return st;
        }
        return absl::OkStatus();
      case redo::RecordKind::kCommit:
        rp.undo.erase(r.xid);
        ++rp.committed;
        return absl::OkStatus();
      case redo::RecordKind::kRollback:
      case redo::RecordKind::kStatementRollback: {
        auto it = rp.undo.find(r.xid);
        if (it == rp.undo.end()) return absl::OkStatus();
        std::vector<RecUndo>& list = it->second;
        const size_t n = r.kind == redo::RecordKind::kRollback ? list.size()
                                                               : std::min<size_t>(r.arg, list.size());
        for (size_t i = 0; i < n; ++i) {
          if (absl::Status st = Undo(list.back(), r.scn); !st.ok()) return st;
          list.pop_back();
        }
        if (r.kind == redo::RecordKind::kRollback) rp.undo.erase(it);
        return absl::OkStatus();
      }
    }
    return absl::OkStatus();
  }

  // Undoes `u`: only where the block is older than `gate` (0: always).
  absl::Status Undo(const RecUndo& u, uint64_t gate) {
    e_.mu.AssertHeld();
    absl::StatusOr<std::vector<uint8_t>*> b = BlockOf(u.obj, u.file, u.block);
    if (!b.ok()) return b.status();
    if (*b == nullptr || SegmentBlockObject(**b) != u.obj ||
        (gate != 0 && !Decide(u.file, u.block, **b, gate))) {
      return absl::OkStatus();
    }
    HeapBlock hb(absl::MakeSpan(**b));
    if (u.slot >= hb.rows()) return absl::OkStatus();
    std::vector<uint8_t> before = u.before_row;
    if (u.op == RowChange::kUpdate && before.empty()) {
      before = Patched(hb.RowBytes(u.slot), u.columns, /*after=*/false);
    }
    if (!hb.Undo(u.op, u.slot, before)) {
      return absl::DataLossError(fmt::format(
          "instance recovery: the rollback of an update of row {} of block {} of data file {} "
          "does not fit back into its block", u.slot, u.block, u.file));
    }
    if (gate != 0) SetBlockScn(**b, gate);
    e_.cache[BlockKey(u.file, u.block)].dirty = true;
    return absl::OkStatus();
  }

 private:
  absl::Status ReadFile(const AsmFileRef& f, uint64_t offset, absl::Span<uint8_t> out) {
    absl::StatusOr<asmgr::DiskGroup*> dg = FindDiskGroup(e_.db->rack, f.disk_group);
    if (!dg.ok()) return dg.status();
    std::vector<asmgr::AsmReadRequest> r(1);
    r[0].file_offset = offset;
    r[0].buffer = out;
    asmgr::AsmIoResult res;
    absl::Status st = (*dg)->Read(f.number, absl::MakeSpan(r), &res);
    AccountRead(rec_, res, out.size());
    return st;
  }

  // Appends the records of log `g` from `block` while its blocks belong to
  // sequence `seq`; `any` when block `block` did. Blocks a member did not hold
  // whole, read from another, are told in `notes`.
  absl::Status ReadLog(const LogGroup& g, uint64_t seq, uint64_t block, std::vector<uint8_t>* stream,
                       bool* any, std::vector<std::string>* notes) {
    const uint64_t capacity = g.size_bytes / g.block_size;
    constexpr uint64_t kChunk = 2048;  // redo blocks per read (1 MiB)
    std::vector<std::pair<uint64_t, size_t>> from_other;
    for (uint64_t b = block; b < capacity; b += kChunk) {
      const uint64_t n = std::min(kChunk, capacity - b);
      std::vector<uint8_t> blocks;
      std::vector<uint64_t> missing;
      if (absl::Status st = e_.ReadRedoBlocks(rec_, g, seq, b, n, &blocks, &missing, &from_other);
          !st.ok()) {
        return absl::Status(st.code(), fmt::format("instance recovery: reading log group {}: {}",
                                                   g.group, std::string(st.message())));
      }
      // The redo ends at the first block no member holds whole.
      const uint64_t whole = missing.empty() ? n : missing[0] - b;
      while (!from_other.empty() && from_other.back().first >= b + whole) from_other.pop_back();
      *any |= b == block && whole > 0;
      for (uint64_t i = 0; i < whole; ++i) {
        const uint8_t* rb = &blocks[i * redo::kRedoBlock];
        uint16_t used = 0;
        std::memcpy(&used, rb + 12, 2);
        stream->insert(stream->end(), rb + redo::kRedoBlockHeader, rb + redo::kRedoBlockHeader + used);
      }
      if (whole < n) break;  // the end of the sequence's redo
    }
    if (!from_other.empty()) notes->push_back(FromOtherMembers(g, seq, from_other));
    return absl::OkStatus();
  }

  // "instance recovery: log group 1 (sequence 7): redo blocks 40, 52-60 were
  // not whole in +DATA/...; read from +RECO/..." (one clause per member read).
  static std::string FromOtherMembers(const LogGroup& g, uint64_t seq,
                                      const std::vector<std::pair<uint64_t, size_t>>& from_other) {
    std::map<size_t, std::vector<std::pair<uint64_t, uint64_t>>> ranges;  // by member read
    for (const auto& [b, m] : from_other) {
      std::vector<std::pair<uint64_t, uint64_t>>& r = ranges[m];
      if (!r.empty() && r.back().second + 1 == b) {
        r.back().second = b;
      } else {
        r.emplace_back(b, b);
      }
    }
    std::vector<std::string> clauses;
    for (const auto& [m, r] : ranges) {
      std::vector<std::string> blocks, bad;
      for (const auto& [lo, hi] : r) blocks.push_back(lo == hi ? fmt::format("{}", lo) : fmt::format("{}-{}", lo, hi));
      for (size_t k = 0; k < m; ++k) bad.push_back(g.members[k].file.name);
      clauses.push_back(fmt::format("redo block{} {} not whole in {}; read from {}",
                                    blocks.size() == 1 && r[0].first == r[0].second ? "" : "s",
                                    fmt::join(blocks, ", "), fmt::join(bad, " or "),
                                    g.members[m].file.name));
    }
    return fmt::format("instance recovery: log group {} (sequence {}): {}", g.group, seq,
                       fmt::join(clauses, "; "));
  }

  // The block of object `obj` (read through the cache); null when the object
  // is gone (dropped or truncated since) or the block is not in its segment.
  absl::StatusOr<std::vector<uint8_t>*> BlockOf(uint32_t obj, uint32_t file, uint32_t block) {
    e_.mu.AssertHeld();
    TableDef* t = nullptr;
    for (auto& [name, td] : e_.tables) {
      if (td.object_id == obj && !td.temporary) t = &td;
    }
    if (t == nullptr || t->segment.file_number != file || !InSegment(t->segment, block)) {
      return nullptr;
    }
    const uint32_t blocks[1] = {block};
    if (absl::Status st = e_.EnsureCached(rec_, file, blocks, obj); !st.ok()) return st;
    return &e_.cache[BlockKey(file, block)].bytes;
  }

  // Blocks are used in order: a block past the dictionary's count of used
  // blocks, in the segment's last extent, was taken since; it joins.
  static bool InSegment(Segment& seg, uint32_t block) {
    if (std::find(seg.blocks.rbegin(), seg.blocks.rend(), block) != seg.blocks.rend()) return true;
    if (block < seg.next_block || block >= seg.next_block + seg.free_in_extent) return false;
    while (seg.next_block <= block) {
      seg.blocks.push_back(seg.next_block++);
      --seg.free_in_extent;
    }
    return true;
  }

  // Whether the record at `scn` applies to the block: decided once per record
  // (its SCN is older than the record's), as a record may change a block
  // several times.
  bool Decide(uint32_t file, uint32_t block, const std::vector<uint8_t>& bytes, uint64_t scn) {
    auto [it, fresh] = decided_.try_emplace(BlockKey(file, block), false);
    if (fresh) it->second = BlockScn(bytes) < scn;
    return it->second;
  }

  static std::vector<uint8_t> Patched(absl::Span<const uint8_t> row,
                                      const std::vector<redo::Change::ColumnChange>& cols,
                                      bool after) {
    std::vector<std::vector<uint8_t>> images = ColumnImages(row);
    for (const redo::Change::ColumnChange& c : cols) {
      if (images.size() <= c.column) images.resize(c.column + 1, {0xFF});
      images[c.column] = after ? c.after : c.before;
    }
    return RowFromImages(images);
  }

  absl::Status ApplyChange(const redo::Record& r, const redo::Change& c, Replay& rp);

  DataEngine& e_;
  Recorder rec_;
  std::map<uint64_t, bool> decided_;  // blocks of the record being applied
};

absl::Status Recovery::ApplyChange(const redo::Record& r, const redo::Change& c, Replay& rp) {
  e_.mu.AssertHeld();
  if (c.op == redo::ChangeOp::kIndexInsert || c.op == redo::ChangeOp::kIndexDelete) {
    return absl::OkStatus();  // indexes are rebuilt from their tables after the roll back
  }
  ++rp.changes;
  absl::StatusOr<std::vector<uint8_t>*> b = BlockOf(c.obj, c.file, c.block);
  if (!b.ok()) return b.status();
  if (*b == nullptr) {
    ++rp.skipped_unknown;  // its table was dropped or truncated afterwards
    return absl::OkStatus();
  }
  std::vector<RecUndo>& undo = rp.undo[r.xid];
  const bool apply = Decide(c.file, c.block, **b, r.scn);
  HeapBlock hb(absl::MakeSpan(**b));
  const uint16_t slot0 = c.slots.empty() ? 0 : c.slots[0];
  if (c.op != redo::ChangeOp::kInsert && apply && slot0 >= hb.rows()) {
    return absl::DataLossError(fmt::format(
        "instance recovery: redo at SCN {} changes row {} of block {} of data file {}, which has "
        "{} rows",
        r.scn, slot0, c.block, c.file, hb.rows()));
  }
  switch (c.op) {
    case redo::ChangeOp::kInsert:
      for (size_t i = 0; i < c.slots.size(); ++i) {
        undo.push_back(RecUndo{RowChange::kInsert, c.obj, c.file, c.block, c.slots[i], {}, {}});
        if (!apply) continue;
        std::optional<uint16_t> got = hb.rows() == c.slots[i] ? hb.Insert(c.rows[i], true) : std::nullopt;
        if (got != c.slots[i]) {
          return absl::DataLossError(fmt::format(
              "instance recovery: redo at SCN {} inserts row {} into block {} of data file {}, "
              "which has {} rows",
              r.scn, c.slots[i], c.block, c.file, hb.rows()));
        }
      }
      break;
    case redo::ChangeOp::kDelete:
      undo.push_back(RecUndo{RowChange::kDelete, c.obj, c.file, c.block, slot0, {}, {}});
      if (apply) hb.SetDeleted(slot0, true);
      break;
    case redo::ChangeOp::kUpdate:
      undo.push_back(RecUndo{RowChange::kUpdate, c.obj, c.file, c.block, slot0, {}, c.columns});
      if (apply && !hb.Replace(slot0, Patched(hb.RowBytes(slot0), c.columns, /*after=*/true))) {
        return absl::DataLossError(fmt::format(
            "instance recovery: redo at SCN {} updates row {} of block {} of data file {}, which "
            "has no room for it", r.scn, slot0, c.block, c.file));
      }
      break;
    case redo::ChangeOp::kIndexInsert:
    case redo::ChangeOp::kIndexDelete:
      break;  // skipped above
  }
  if (apply) {
    ++rp.applied;
    SetBlockScn(**b, r.scn);
    e_.cache[BlockKey(c.file, c.block)].dirty = true;
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status DataEngine::ReadRedoBlocks(Recorder& rec, const LogGroup& g, uint64_t seq,
                                        uint64_t first, uint64_t count, std::vector<uint8_t>* out,
                                        std::vector<uint64_t>* missing,
                                        std::vector<std::pair<uint64_t, size_t>>* from_other) {
  constexpr uint64_t kBlock = redo::kRedoBlock;
  std::vector<std::vector<uint8_t>> copy(g.members.size());  // each member's blocks, once read
  std::vector<bool> tried(g.members.size(), false);
  absl::Status last = absl::NotFoundError("the group has no member");
  const auto member_blocks = [&](size_t m) -> const std::vector<uint8_t>* {
    if (!tried[m]) {
      tried[m] = true;
      copy[m].resize(count * kBlock);
      absl::StatusOr<asmgr::DiskGroup*> dg = FindDiskGroup(db->rack, g.members[m].file.disk_group);
      absl::Status st = dg.status();
      // ASM checks each redo block's checksum and serves a bad one from a
      // mirror copy; a block bad on every copy (DataLoss) is read as it is,
      // for the check below to find.
      for (bool verify : {true, false}) {
        if (!st.ok() && st.code() != absl::StatusCode::kDataLoss) break;
        std::vector<asmgr::AsmReadRequest> r(1);
        r[0].file_offset = first * kBlock;
        r[0].buffer = absl::MakeSpan(copy[m]);
        r[0].verify_checksums = verify;
        asmgr::AsmIoResult res;
        st = (*dg)->Read(g.members[m].file.number, absl::MakeSpan(r), &res);
        AccountRead(rec, res, copy[m].size());
        if (st.code() != absl::StatusCode::kDataLoss) break;
      }
      if (!st.ok()) {
        last = absl::Status(st.code(), fmt::format("{}: {}", g.members[m].file.name, std::string(st.message())));
        copy[m].clear();
      }
    }
    return copy[m].empty() ? nullptr : &copy[m];
  };
  const size_t base = out->size();
  out->resize(base + count * kBlock, 0);
  for (uint64_t i = 0; i < count; ++i) {
    bool readable = false, served = false;
    for (size_t m = 0; m < g.members.size() && !served; ++m) {
      const std::vector<uint8_t>* c = member_blocks(m);
      if (c == nullptr) continue;
      readable = true;
      const absl::Span<const uint8_t> b = absl::MakeConstSpan(*c).subspan(i * kBlock, kBlock);
      if (!ValidRedoBlock(b, first + i, seq)) continue;
      std::copy(b.begin(), b.end(), out->begin() + static_cast<std::ptrdiff_t>(base + i * kBlock));
      if (m > 0) from_other->emplace_back(first + i, m);
      served = true;
    }
    if (!readable) return last;  // no member can be read
    if (!served) missing->push_back(first + i);
  }
  return absl::OkStatus();
}

absl::Status DataEngine::RecoverInstance(std::vector<std::string>* actions) {
  Recovery rcv(*this);
  Replay rp;
  std::vector<std::string> read_notes;  // copies read from a mirror, blocks from another member
  if (absl::Status st = rcv.ReadSnapshot(&rp.undo, &read_notes); !st.ok()) return st;
  const size_t active_at_checkpoint = rp.undo.size();
  std::vector<uint8_t> stream;
  uint64_t last_seq = 0;
  uint32_t last_group = 0;
  std::vector<std::pair<uint64_t, size_t>> log_starts;
  if (absl::Status st = rcv.ReadRedo(&stream, &last_seq, &last_group, &log_starts, &read_notes);
      !st.ok()) {
    return st;
  }
  size_t pos = 0;
  std::string why;
  std::map<uint64_t, uint64_t> first_redo_scn;  // by sequence: its first record's SCN
  size_t next_log = 0;
  while (pos < stream.size()) {
    std::optional<redo::Record> r = redo::ParseRecord(absl::MakeConstSpan(stream).subspan(pos), &why);
    if (!r.has_value()) break;  // the end of what LGWR wrote completely
    for (; next_log < log_starts.size() && log_starts[next_log].second <= pos; ++next_log) {
      first_redo_scn[log_starts[next_log].first] = r->scn;
    }
    if (absl::Status st = rcv.Apply(*r, rp); !st.ok()) return st;
    pos += r->length;
  }
  // Roll back: every transaction without a commit record, newest change first.
  for (auto& [xid, list] : rp.undo) {
    if (list.empty()) continue;
    ++rp.rolled_back;
    for (auto it = list.rbegin(); it != list.rend(); ++it) {
      if (absl::Status st = rcv.Undo(*it, 0); !st.ok()) return st;
    }
  }
  actions->push_back(fmt::format(
      "instance recovery: the database was not closed cleanly; {} redo records (SCN {}-{}) read "
      "from log sequence {} block {} to sequence {}, {} changes applied ({} already in the data "
      "files, {} to tables dropped or truncated since), {} transactions committed, {} rolled back; "
      "{} transactions were active at the checkpoint",
      rp.records, rp.first_scn, rp.last_scn, std::max<uint64_t>(checkpoint.sequence, 1),
      checkpoint.block, last_seq, rp.applied, rp.changes - rp.applied - rp.skipped_unknown,
      rp.skipped_unknown, rp.committed, rp.rolled_back, active_at_checkpoint));
  actions->insert(actions->end(), read_notes.begin(), read_notes.end());
  if (stream.size() > pos) {
    actions->push_back(fmt::format("instance recovery: the last {} bytes of redo were not a whole "
                                   "record (a write cut short: never acknowledged): {}",
                                   stream.size() - pos, why));
  }
  scn = std::max(scn, rp.last_scn) + 1;
  recoverable_scn = scn;  // what a recovery cut short would come to again
  SettleLogUse(checkpoint.sequence, last_seq, last_group, first_redo_scn);
  sequence = last_seq + 1;
  const size_t groups = Thread1Groups(FileTableCopy()).size();
  current_group_index = static_cast<uint32_t>((last_group + 1) % std::max<size_t>(groups, 1));
  log_block = 2;
  log_first_change = scn;  // before the checkpoint, whose dictionary keeps the CURRENT log's use
  // Indexes: rebuilt from the recovered tables (docs/db.md "Indexes").
  if (absl::Status st = RebuildIndexes(actions); !st.ok()) return st;
  Recorder rec = db->SystemRecorder();
  return Checkpoint(rec);
}

}  // namespace cellsim::db::internal
