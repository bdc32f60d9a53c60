// DiskGroup I/O: mirrored writes, reads with failover and repair, and
// smart/fast file creation through the cells' FormatRange.
#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <thread>

#include "cellsim/asm/disk_group.h"
#include "cellsim/asm/disk_group_state.h"
#include "cellsim/format/block_template.h"
#include "fmt/format.h"
#include "fmt/ranges.h"

namespace cellsim::asmgr {

using internal::CopyIo;
using internal::CopyLoc;
using internal::DiskRec;
using internal::ExtentLocs;
using internal::FileRec;

namespace internal {

void RunConcurrently(Clock* clock, const std::vector<uint32_t>& items,
                     const std::function<void(uint32_t)>& fn) {
  // One item per cell: the cells' modeled devices are disjoint.
  ForkJoin(clock, items.size(), [&](size_t i) { fn(items[i]); }, /*disjoint=*/true);
}

// Items bound for cells, one entry per cell (CellService) whichever disk
// group the items come from (the groups of a rack share its cells).
template <typename T>
using ByCell = std::vector<std::pair<cell::CellService*, std::vector<T>>>;

// Adds one group's items (by_cell[c]: those for its cell number c) to `out`:
// by cell number, a cell already there getting them after its own (so one
// group's order is its cell numbers', as a simulated clock expects).
template <typename T>
void AddByCell(const DiskGroupEnv& env, std::vector<std::vector<T>> by_cell, ByCell<T>* out) {
  for (size_t c = 0; c < by_cell.size(); ++c) {
    if (by_cell[c].empty()) continue;
    cell::CellService* service = env.cells[c];
    auto it = std::find_if(out->begin(), out->end(),
                           [&](const auto& e) { return e.first == service; });
    if (it == out->end()) {
      out->emplace_back(service, std::move(by_cell[c]));
    } else {
      it->second.insert(it->second.end(), by_cell[c].begin(), by_cell[c].end());
    }
  }
}

void DoCellIo(const DiskGroupEnv& env, bool write, absl::Span<CopyIo> ios, AsmIoStats* io) {
  const CellIoBatch batch{&env, ios};
  DoCellIoAcross(absl::MakeConstSpan(&batch, 1), write, io);
}

void DoCellIoAcross(absl::Span<const CellIoBatch> batches, bool write, AsmIoStats* io) {
  // The requests bound for each cell, whichever disk group they come from:
  // one call per cell (for a write-back cell, one journal append and one
  // flash sync for all of them).
  ByCell<CopyIo*> cells;
  Clock* clock = nullptr;
  for (const CellIoBatch& b : batches) {
    if (clock == nullptr) clock = b.env->clock;
    std::vector<std::vector<CopyIo*>> by_cell(b.env->cells.size());
    for (CopyIo& x : b.ios) by_cell[x.cell].push_back(&x);
    AddByCell(*b.env, std::move(by_cell), &cells);
  }
  std::vector<cell::CellIoStats> stats(cells.size());
  // One item per cell: the cells' modeled devices are disjoint.
  ForkJoin(clock, cells.size(), [&](size_t i) {
    cell::CellService* service = cells[i].first;
    const std::vector<CopyIo*>& idx = cells[i].second;
    absl::Status st;
    if (write) {
      std::vector<cell::WriteRequest> reqs(idx.size());
      for (size_t k = 0; k < idx.size(); ++k) {
        const CopyIo& x = *idx[k];
        reqs[k].grid_disk = x.grid_disk;
        reqs[k].offset = x.offset;
        reqs[k].data = absl::Span<const uint8_t>(x.buffer, x.length);
        reqs[k].redo = x.redo;
      }
      st = service->Write(absl::MakeSpan(reqs), &stats[i]);
      for (size_t k = 0; k < idx.size(); ++k) idx[k]->status = reqs[k].status;
    } else {
      std::vector<cell::ReadRequest> reqs(idx.size());
      for (size_t k = 0; k < idx.size(); ++k) {
        const CopyIo& x = *idx[k];
        reqs[k].grid_disk = x.grid_disk;
        reqs[k].offset = x.offset;
        reqs[k].buffer = absl::Span<uint8_t>(x.buffer, x.length);
      }
      st = service->Read(absl::MakeSpan(reqs), &stats[i]);
      for (size_t k = 0; k < idx.size(); ++k) idx[k]->status = reqs[k].status;
    }
    // A cell that failed the whole call without blaming a request: every
    // request of the call failed.
    if (!st.ok() && std::all_of(idx.begin(), idx.end(), [](const CopyIo* x) { return x->status.ok(); })) {
      for (CopyIo* x : idx) x->status = st;
    }
  }, /*disjoint=*/true);
  for (const cell::CellIoStats& s : stats) io->cell += s;
  for (const CellIoBatch& b : batches) {
    for (const CopyIo& x : b.ios) {
      ++io->cell_requests;
      io->cell_bytes += x.length;
    }
  }
}

std::vector<std::pair<uint32_t, cell::DiscardRequest>> DiscardRequestsFor(
    const DiskGroup::State& s, const FileRec& file) {
  std::vector<std::pair<uint32_t, cell::DiscardRequest>> out;
  for (const ExtentLocs& x : file.extents) {
    for (uint32_t c = 0; c < file.copies(); ++c) {
      const DiskRec& d = s.cat.disks[x[c].disk];
      if (!d.online) continue;
      out.push_back({d.ref.cell, cell::DiscardRequest{.grid_disk = d.ref.grid_disk,
                                                      .offset = s.AuOffset(x[c].au),
                                                      .length = s.cat.au_size}});
    }
  }
  return out;
}

void DiscardCopies(const DiskGroupEnv& env,
                   std::vector<std::pair<uint32_t, cell::DiscardRequest>> requests) {
  std::map<uint32_t, std::vector<cell::DiscardRequest>> by_cell;
  for (auto& [c, r] : requests) by_cell[c].push_back(r);
  std::vector<uint32_t> cells;
  for (const auto& [c, v] : by_cell) cells.push_back(c);
  RunConcurrently(env.clock, cells, [&](uint32_t c) {
    cell::CellIoStats ignored;
    (void)env.cells[c]->Discard(absl::MakeSpan(by_cell[c]), &ignored);
  });
}

}  // namespace internal

namespace {

// A part of a request inside one extent.
struct Piece {
  size_t request = 0;
  uint32_t extent = 0;
  uint64_t file_offset = 0;
  uint64_t length = 0;
  uint8_t* data = nullptr;
  ExtentLocs locs;
  uint32_t copies = 0;           // the file's
  std::array<bool, 3> online{};  // its disk is online
  std::array<bool, 3> usable{};  // disk online and the copy current
  uint32_t landed = 0;           // current copies written
  absl::Status error;            // first copy error
};

absl::Status CheckRange(const FileRec& f, uint64_t offset, uint64_t length) {
  if (offset % 512 != 0 || length % 512 != 0 || length == 0) {
    return absl::InvalidArgumentError(fmt::format(
        "{}: offset {} and length {} must be non-zero multiples of 512", f.info.name, offset,
        length));
  }
  if (offset > f.info.size_bytes || length > f.info.size_bytes - offset) {
    return absl::OutOfRangeError(fmt::format("{}: offset {} (+{}) past its end {}", f.info.name,
                                             offset, length, f.info.size_bytes));
  }
  return absl::OkStatus();
}

}  // namespace

// Splits requests into pieces at extent boundaries (requires mu). Requests that
// are invalid get their status set and produce no piece.
template <typename Req, typename GetPtr>
static std::vector<Piece> SplitRequests(const DiskGroup::State& s, const FileRec& f,
                                        absl::Span<Req> requests, GetPtr get_ptr)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(s.mu) {
  std::vector<Piece> pieces;
  const uint64_t au = s.cat.au_size;
  for (size_t r = 0; r < requests.size(); ++r) {
    auto [ptr, len] = get_ptr(requests[r]);
    requests[r].status = CheckRange(f, requests[r].file_offset, len);
    if (!requests[r].status.ok()) continue;
    uint64_t off = requests[r].file_offset;
    const uint64_t end = off + len;
    while (off < end) {
      Piece p;
      p.request = r;
      p.extent = static_cast<uint32_t>(off / au);
      p.file_offset = off;
      p.length = std::min(end, (p.extent + uint64_t{1}) * au) - off;
      p.data = ptr + (off - requests[r].file_offset);
      p.locs = f.extents[p.extent];
      p.copies = f.copies();
      for (uint32_t c = 0; c < p.copies; ++c) {
        const internal::DiskRec& d = s.cat.disks[p.locs[c].disk];
        p.online[c] = d.online;
        p.usable[c] = d.online && d.stale.count(p.locs[c].au) == 0;
      }
      pieces.push_back(p);
      off += p.length;
    }
  }
  return pieces;
}

// The catalog record of `file` (requires mu).
static absl::StatusOr<const FileRec*> FindFile(const DiskGroup::State& s, uint32_t file)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(s.mu) {
  auto it = s.cat.files.find(file);
  if (it == s.cat.files.end()) {
    return absl::NotFoundError(fmt::format("disk group {} has no file {}", s.cat.name, file));
  }
  return &it->second;
}

// The common start of Write and Read (requires mu): finds `file`, its block
// size (at least 512, for the multi-block count) and splits the requests into
// pieces (see SplitRequests).
template <typename Req, typename GetPtr>
static absl::Status SplitFileRequests(const DiskGroup::State& s, uint32_t file,
                                      absl::Span<Req> requests, GetPtr get_ptr,
                                      std::vector<Piece>* pieces, uint32_t* block_size)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(s.mu) {
  absl::StatusOr<const FileRec*> f = FindFile(s, file);
  if (!f.ok()) return f.status();
  *block_size = std::max<uint32_t>((*f)->info.block_size, 512);
  *pieces = SplitRequests(s, **f, requests, get_ptr);
  return absl::OkStatus();
}

// The cell request for copy `c` of piece `p`.
static CopyIo PieceCopyIo(const DiskGroup::State& s, const Piece& p, uint32_t c) {
  const internal::DiskRec& d = s.fixed().disks[p.locs[c].disk];  // its ref
  return CopyIo{d.ref.cell, d.ref.grid_disk,
                s.AuOffset(p.locs[c].au) + p.file_offset % s.fixed().au_size, p.data, p.length,
                {}};
}

// ENOSPC / EDQUOT under a grid disk (absl maps both to ResourceExhausted):
// the filesystem holding the disk is full, the device itself is healthy.
static bool IsOutOfSpace(const absl::Status& st) {
  return st.code() == absl::StatusCode::kResourceExhausted;
}

// The first copy failure that is space exhaustion, as the operation's error:
// ResourceExhausted naming the file and the disk (which stays online).
static absl::Status OutOfSpaceError(const DiskGroup::State& s, const std::string& op,
                                    uint32_t file,
                                    const std::vector<std::pair<CopyLoc, absl::Status>>& failed)
    ABSL_LOCKS_EXCLUDED(s.mu) {
  for (const auto& [loc, err] : failed) {
    if (!IsOutOfSpace(err)) continue;
    return absl::ResourceExhaustedError(fmt::format(
        "{} of {}: grid disk {} is out of space ({}); the disk stays online, free space on its "
        "filesystem and retry",
        op, s.FileLabel(file), s.fixed().disks[loc.disk].name, std::string(err.message())));
  }
  return absl::OkStatus();
}

// After I/O: takes the disks of failed copies offline and marks the copies
// stale, in one synced journal append (requires mu). A copy that failed for
// lack of space is marked stale (reads skip it, resync rewrites it) but its
// disk stays online: a full filesystem is not a failed disk.
static absl::Status RecordCopyFailures(DiskGroup::State& s,
                                       const std::vector<std::pair<CopyLoc, absl::Status>>& failed,
                                       AsmIoResult* result) ABSL_EXCLUSIVE_LOCKS_REQUIRED(s.mu) {
  if (failed.empty()) return absl::OkStatus();
  std::vector<std::vector<uint8_t>> bodies;
  std::vector<CopyLoc> locs;
  std::set<uint32_t> offlined;
  for (const auto& [loc, err] : failed) {
    const internal::DiskRec& d = s.cat.disks[loc.disk];
    result->failures.push_back(CopyFailure{d.name, err});
    locs.push_back(loc);
    if (d.online && !IsOutOfSpace(err) && offlined.insert(loc.disk).second) {
      bodies.push_back(internal::MakeDiskStateRecord(loc.disk, false, std::string(err.message())));
      result->disks_taken_offline.push_back(d.name);
    }
  }
  // Stale marks after the offline records: an AU is marked stale only when owned.
  bodies.push_back(internal::MakeStaleRecord(true, locs));
  return s.Commit(std::move(bodies));
}

// The failed copies of a write to mark stale. A piece that no copy took (a
// full filesystem, a read-only one, a dead path to every copy) is not
// acknowledged: as ASM, which never offlines the last copy of an extent, its
// first current copy stays current and its disk online (marking every copy
// stale would make the extent's acknowledged contents unreadable for good,
// even once the disks work again; a torn block there fails its checksum);
// the others are marked stale and resync from it.
static std::vector<std::pair<CopyLoc, absl::Status>> CopiesToMarkStale(
    const std::vector<Piece>& pieces, const std::vector<CopyIo>& ios,
    const std::vector<std::pair<size_t, uint32_t>>& owner) {
  std::vector<std::pair<CopyLoc, absl::Status>> out;
  std::set<size_t> kept;  // pieces that keep a current copy
  for (size_t k = 0; k < ios.size(); ++k) {
    const auto [i, c] = owner[k];
    if (ios[k].status.ok()) continue;
    if (pieces[i].landed == 0 && pieces[i].usable[c] && kept.insert(i).second) {
      continue;
    }
    out.emplace_back(pieces[i].locs[c], ios[k].status);
  }
  return out;
}

namespace {

// One file's write in flight (DiskGroup::WriteFiles): its pieces and the
// cell requests of their copies.
struct WriteRun {
  uint32_t file = 0;
  absl::Span<AsmWriteRequest> requests;
  std::vector<Piece> pieces;
  std::vector<CopyIo> ios;
  std::vector<std::pair<size_t, uint32_t>> owner;  // ios[k]: (piece, copy)
};

// Before the cells (caller holds io_mu shared): splits the requests, marks
// copies on offline disks stale and lists the copies to send.
absl::Status PrepareWrite(DiskGroup::State& s, WriteRun& run, AsmIoResult* res)
    ABSL_LOCKS_EXCLUDED(s.mu) {
  uint32_t block_size = 0;
  {
    MutexLock lock(&s.mu);
    absl::Status found = SplitFileRequests(
        s, run.file, run.requests,
        [](AsmWriteRequest& r) {
          return std::make_pair(const_cast<uint8_t*>(r.data.data()), uint64_t{r.data.size()});
        },
        &run.pieces, &block_size);
    if (!found.ok()) return found;
    // Copies on offline disks are marked stale before anything is written, so
    // a crash can never leave a changed extent that resync would not copy.
    std::vector<CopyLoc> stale;
    for (const Piece& p : run.pieces) {
      for (uint32_t c = 0; c < p.copies; ++c) {
        const internal::DiskRec& d = s.cat.disks[p.locs[c].disk];
        if (!d.online && d.stale.count(p.locs[c].au) == 0) stale.push_back(p.locs[c]);
      }
    }
    std::sort(stale.begin(), stale.end(), [](CopyLoc a, CopyLoc b) {
      return std::tie(a.disk, a.au) < std::tie(b.disk, b.au);
    });
    stale.erase(std::unique(stale.begin(), stale.end()), stale.end());
    if (!stale.empty()) {
      std::vector<std::vector<uint8_t>> bodies;
      bodies.push_back(internal::MakeStaleRecord(true, stale));
      absl::Status st = s.Commit(std::move(bodies));
      if (!st.ok()) {
        for (AsmWriteRequest& r : run.requests) if (r.status.ok()) r.status = st;
        return st;
      }
      res->stale_extents_marked += stale.size();
    }
  }
  // Every copy whose disk is online gets the piece (a stale copy on an online
  // disk too: resync will rewrite the whole extent anyway).
  for (size_t i = 0; i < run.pieces.size(); ++i) {
    Piece& p = run.pieces[i];
    for (uint32_t c = 0; c < p.copies; ++c) {
      if (!p.online[c]) continue;
      run.ios.push_back(PieceCopyIo(s, p, c));
      run.ios.back().redo = run.requests[p.request].redo;
      run.owner.emplace_back(i, c);
      if (p.length >= 2 * uint64_t{block_size}) ++res->io.multi_block_requests;
    }
  }
  return absl::OkStatus();
}

// After the cells: records failed copies (disks offline, extents stale) and
// sets each request's status and copies_written.
absl::Status FinishWrite(DiskGroup::State& s, WriteRun& run, AsmIoResult* res)
    ABSL_LOCKS_EXCLUDED(s.mu) {
  std::vector<Piece>& pieces = run.pieces;
  const std::vector<CopyIo>& ios = run.ios;
  std::vector<std::pair<CopyLoc, absl::Status>> failed;
  std::set<size_t> pieces_with_failure;
  for (size_t k = 0; k < ios.size(); ++k) {
    Piece& p = pieces[run.owner[k].first];
    if (ios[k].status.ok()) {
      // Only a current copy holds the piece for readers: a stale one (on an
      // online disk) is written too but stays stale until resync.
      if (p.usable[run.owner[k].second]) ++p.landed;
    } else {
      if (p.error.ok()) p.error = ios[k].status;
      failed.emplace_back(p.locs[run.owner[k].second], ios[k].status);
      pieces_with_failure.insert(run.owner[k].first);
    }
  }
  absl::Status meta;
  {
    MutexLock lock(&s.mu);
    meta = RecordCopyFailures(s, CopiesToMarkStale(pieces, ios, run.owner), res);
  }
  // A piece that lost a copy to a full filesystem is not acknowledged: the
  // statement fails and is undone rather than running on fewer copies.
  for (const auto& [loc, err] : failed) {
    if (!IsOutOfSpace(err)) continue;
    for (size_t i : pieces_with_failure) {
      AsmWriteRequest& r = run.requests[pieces[i].request];
      if (r.status.ok()) r.status = OutOfSpaceError(s, "write", run.file, failed);
    }
    break;
  }
  for (AsmWriteRequest& r : run.requests) r.copies_written = r.status.ok() ? UINT32_MAX : 0;
  for (size_t i = 0; i < pieces.size(); ++i) {
    const Piece& p = pieces[i];
    AsmWriteRequest& r = run.requests[p.request];
    r.copies_written = std::min(r.copies_written, p.landed);
    if (!r.status.ok()) continue;
    if (p.landed == 0) {
      r.status = absl::Status(
          p.error.ok() ? absl::StatusCode::kUnavailable : p.error.code(),
          fmt::format("write of {} at offset {}: no copy of extent {} could be written{}",
                      s.FileLabel(run.file), p.file_offset, p.extent,
                      p.error.ok() ? " (no current copy on an online disk: resync with ALTER "
                                     "DISKGROUP ... ONLINE ALL)"
                                   : ": " + std::string(p.error.message())));
    } else if (!meta.ok() && pieces_with_failure.count(i) != 0) {
      // The failed copy could not be marked stale: it might later be read as
      // current, so this write is not acknowledged.
      r.status = meta;
    }
  }
  for (AsmWriteRequest& r : run.requests) {
    if (r.copies_written == UINT32_MAX) r.copies_written = 0;
  }
  for (const AsmWriteRequest& r : run.requests) {
    if (!r.status.ok()) return r.status;
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status DiskGroup::Write(uint32_t file, absl::Span<AsmWriteRequest> requests,
                              AsmIoResult* result) {
  FileWrite w{this, file, requests, {}};
  return WriteFiles(absl::MakeSpan(&w, 1), result);
}

namespace {

// The io_mu of several groups, shared, for the life of the object: taken in
// address order (each once), so two calls naming the same groups in
// opposite orders cannot wait for each other. The thread-safety analysis
// cannot follow a variable set of locks.
class SharedIoLocks {
 public:
  explicit SharedIoLocks(std::vector<DiskGroup::State*> groups) ABSL_NO_THREAD_SAFETY_ANALYSIS
      : groups_(std::move(groups)) {
    std::sort(groups_.begin(), groups_.end());
    groups_.erase(std::unique(groups_.begin(), groups_.end()), groups_.end());
    for (DiskGroup::State* g : groups_) g->io_mu.ReaderLock();
  }
  ~SharedIoLocks() ABSL_NO_THREAD_SAFETY_ANALYSIS {
    for (auto g = groups_.rbegin(); g != groups_.rend(); ++g) (*g)->io_mu.ReaderUnlock();
  }
  SharedIoLocks(const SharedIoLocks&) = delete;
  SharedIoLocks& operator=(const SharedIoLocks&) = delete;

 private:
  std::vector<DiskGroup::State*> groups_;
};

}  // namespace

absl::Status DiskGroup::WriteFiles(absl::Span<FileWrite> writes, AsmIoResult* result) {
  AsmIoResult local;
  AsmIoResult* res = result != nullptr ? result : &local;
  std::vector<State*> groups;
  for (const FileWrite& w : writes) groups.push_back(w.disk_group->s_.get());
  const SharedIoLocks io_locks(std::move(groups));
  std::vector<WriteRun> runs(writes.size());
  std::vector<internal::CellIoBatch> batches;
  for (size_t i = 0; i < writes.size(); ++i) {
    State& s = *writes[i].disk_group->s_;
    runs[i].file = writes[i].file;
    runs[i].requests = writes[i].requests;
    writes[i].status = PrepareWrite(s, runs[i], res);
    if (writes[i].status.ok()) batches.push_back({&s.env, absl::MakeSpan(runs[i].ios)});
  }
  if (!batches.empty()) internal::DoCellIoAcross(batches, /*write=*/true, &res->io);
  for (size_t i = 0; i < writes.size(); ++i) {
    if (!writes[i].status.ok()) continue;
    writes[i].status = FinishWrite(*writes[i].disk_group->s_, runs[i], res);
  }
  for (const FileWrite& w : writes) {
    if (!w.status.ok()) return w.status;
  }
  return absl::OkStatus();
}

namespace {

bool IsZero(absl::Span<const uint8_t> b) {
  return std::all_of(b.begin(), b.end(), [](uint8_t x) { return x == 0; });
}

}  // namespace

namespace internal {

// Oracle's block checksum as the database checks it on every read
// (DB_BLOCK_CHECKSUM): a data block whose flags say "checksum present" (byte
// 15 & 0x04) and a redo block (signature 0x01 0x22) must XOR to zero over
// their 16-bit words. Block 0 (the OS header), never-written (zero) blocks and
// control-file blocks (sealed by the database itself) carry no such checksum.
// With `addresses` (AsmReadRequest::verify_addresses), a data file's block
// must also be a data block of its own address, and a redo block of a log of
// 512-byte blocks must carry its own block number. Returns the first whole
// block of [file_offset, +length) that fails.

std::optional<uint64_t> FirstBadBlock(FileType type, uint32_t block_size, uint64_t file_offset,
                                      const uint8_t* data, uint64_t length, bool addresses) {
  const bool data_file = type == FileType::kDataFile || type == FileType::kTempFile;
  const bool redo = type == FileType::kOnlineLog || type == FileType::kArchiveLog;
  if ((!data_file && !redo) || block_size < 512 || block_size % 2 != 0) return std::nullopt;
  for (uint64_t b = (file_offset + block_size - 1) / block_size;
       (b + 1) * block_size <= file_offset + length; ++b) {
    const auto block = absl::MakeConstSpan(data + (b * block_size - file_offset), block_size);
    if (data_file && addresses && b > 0 && !IsZero(block)) {
      const uint32_t rdba = uint32_t{block[4]} | uint32_t{block[5]} << 8 |
                            uint32_t{block[6]} << 16 | uint32_t{block[7]} << 24;
      if (block[0] != format::kDataBlockTypeNew || (rdba & 0x3FFFFF) != (b & 0x3FFFFF)) return b;
    }
    if (data_file && block[0] != 0 && (block[15] & 0x04) != 0) {
      if (format::DataBlockChecksum(block) != (block[16] | (block[17] << 8))) return b;
    } else if (redo && block[0] == format::kRedoSignature && block[1] == format::kRedoFormat) {
      if (format::RedoBlockChecksum(block) != (block[14] | (block[15] << 8))) return b;
      // LGWR's blocks carry their number in the log at bytes 4..7 (logs of
      // 512-byte blocks: LGWR writes 512-byte blocks into a 4 KiB log too).
      const uint32_t number = uint32_t{block[4]} | uint32_t{block[5]} << 8 |
                              uint32_t{block[6]} << 16 | uint32_t{block[7]} << 24;
      if (addresses && block_size == 512 && number != b) return b;
    }
  }
  return std::nullopt;
}

}  // namespace internal

namespace {

using internal::FirstBadBlock;

// Per piece of a read: which copy served it and which copies failed (an I/O
// error, or a block failing its checksum: the bad copies ASM repairs).
struct ReadOutcome {
  int served = -1;
  uint32_t next = 0;
  std::vector<uint32_t> errored;
  std::vector<uint32_t> bad_checksum;  // subset of errored
  uint64_t bad_block = 0;              // the first block that failed its checksum
};

// ASM's repair: rewrites the good data onto every copy that returned an error
// (a media error, a range a cell lost with its flash) or failed its checksum
// (bad-block repair, counted). A failed repair only takes its disk offline.
void RepairBadCopies(DiskGroup::State& s, const std::vector<Piece>& pieces,
                     absl::Span<AsmReadRequest> requests, const std::vector<ReadOutcome>& out,
                     AsmIoResult* res) {
  std::vector<CopyIo> repairs;
  std::vector<CopyLoc> repair_locs;
  std::vector<bool> bad_block;
  for (size_t i = 0; i < pieces.size(); ++i) {
    const Piece& p = pieces[i];
    if (out[i].served < 0) continue;
    if (out[i].served > 0) ++requests[p.request].failovers;
    for (uint32_t c : out[i].errored) {
      repairs.push_back(PieceCopyIo(s, p, c));
      repair_locs.push_back(p.locs[c]);
      bad_block.push_back(std::count(out[i].bad_checksum.begin(), out[i].bad_checksum.end(), c));
    }
  }
  if (repairs.empty() || s.env.read_only) return;  // a read-only mount writes nothing
  internal::DoCellIo(s.env, /*write=*/true, absl::MakeSpan(repairs), &res->io);
  std::vector<std::pair<CopyLoc, absl::Status>> failed;
  uint64_t repaired = 0;
  for (size_t k = 0; k < repairs.size(); ++k) {
    if (!repairs[k].status.ok()) {
      failed.emplace_back(repair_locs[k], repairs[k].status);
    } else if (bad_block[k]) {
      ++repaired;
    }
  }
  res->bad_blocks_repaired += repaired;
  s.bad_blocks_repaired += repaired;
  MutexLock lock(&s.mu);
  (void)RecordCopyFailures(s, failed, res);
}

// Why no copy of a piece could be read: DataLoss naming the file, the block
// and every disk tried when they all failed their checksum.
absl::Status UnreadablePieceError(const DiskGroup::State& s, uint32_t file, const Piece& p,
                                  const ReadOutcome& out) {
  if (!out.bad_checksum.empty() && out.bad_checksum.size() == out.errored.size()) {
    std::vector<std::string> disks;
    for (uint32_t c : out.errored) disks.push_back(s.fixed().disks[p.locs[c].disk].name);
    return absl::DataLossError(fmt::format(
        "ORA-01578: ORACLE data block corrupted: block {} of {} fails its checksum (or holds no "
        "data block of its address) on every copy tried ({}): no good copy to repair it from",
        out.bad_block, s.FileLabel(file), fmt::join(disks, ", ")));
  }
  return absl::Status(
      p.error.ok() ? absl::StatusCode::kUnavailable : p.error.code(),
      fmt::format("read of {} at offset {}: no readable current copy of extent {}{}{}",
                  s.FileLabel(file), p.file_offset, p.extent, p.error.ok() ? "" : ": ",
                  std::string(p.error.message())));
}

}  // namespace

absl::Status DiskGroup::Read(uint32_t file, absl::Span<AsmReadRequest> requests,
                             AsmIoResult* result) {
  AsmIoResult local;
  AsmIoResult* res = result != nullptr ? result : &local;
  ReaderMutexLock io_lock(&s_->io_mu);
  std::vector<Piece> pieces;
  uint32_t block_size = 0;
  FileType type = FileType::kDataFile;
  uint32_t copies = 0;  // the file's
  {
    MutexLock lock(&s_->mu);
    absl::Status found = SplitFileRequests(
        *s_, file, requests,
        [](AsmReadRequest& r) { return std::make_pair(r.buffer.data(), uint64_t{r.buffer.size()}); },
        &pieces, &block_size);
    if (!found.ok()) return found;
    type = s_->cat.files.at(file).info.type;
    copies = s_->cat.files.at(file).copies();
  }
  // A request for one copy: the others are not read.
  for (Piece& p : pieces) {
    const std::optional<uint32_t> only = requests[p.request].copy;
    if (!only.has_value()) continue;
    if (*only >= copies) {
      return absl::OutOfRangeError(fmt::format("read of {}: copy {} asked, the file has {}",
                                               s_->FileLabel(file), *only, copies));
    }
    for (uint32_t c = 0; c < copies; ++c) p.usable[c] = p.usable[c] && c == *only;
  }
  std::vector<ReadOutcome> out(pieces.size());
  for (uint32_t round = 0; round < copies; ++round) {
    std::vector<CopyIo> ios;
    std::vector<size_t> owner;
    for (size_t i = 0; i < pieces.size(); ++i) {
      Piece& p = pieces[i];
      if (out[i].served >= 0) continue;
      while (out[i].next < copies && !p.usable[out[i].next]) ++out[i].next;
      if (out[i].next >= copies) continue;
      const uint32_t c = out[i].next++;
      ios.push_back(PieceCopyIo(*s_, p, c));
      owner.push_back(i);
      if (p.length >= 2 * uint64_t{block_size}) ++res->io.multi_block_requests;
    }
    if (ios.empty()) break;
    internal::DoCellIo(s_->env, /*write=*/false, absl::MakeSpan(ios), &res->io);
    for (size_t k = 0; k < ios.size(); ++k) {
      const size_t i = owner[k];
      const uint32_t c = out[i].next - 1;
      std::optional<uint64_t> bad;
      if (ios[k].status.ok()) {
        if (requests[pieces[i].request].verify_checksums) {
          bad = FirstBadBlock(type, block_size, pieces[i].file_offset, pieces[i].data,
                              pieces[i].length, requests[pieces[i].request].verify_addresses);
        }
        if (!bad) {
          out[i].served = static_cast<int>(c);
          continue;
        }
        if (out[i].bad_checksum.empty()) out[i].bad_block = *bad;
        out[i].bad_checksum.push_back(c);
      }
      if (pieces[i].error.ok()) {
        pieces[i].error = bad ? absl::DataLossError(fmt::format(
                                    "block {} fails its checksum on {}", *bad,
                                    s_->fixed().disks[pieces[i].locs[c].disk].name))
                              : ios[k].status;
      }
      out[i].errored.push_back(c);
    }
  }
  RepairBadCopies(*s_, pieces, requests, out, res);
  for (size_t i = 0; i < pieces.size(); ++i) {
    const Piece& p = pieces[i];
    AsmReadRequest& r = requests[p.request];
    if (out[i].served >= 0 || !r.status.ok()) continue;
    r.status = UnreadablePieceError(*s_, file, p, out[i]);
  }
  for (const AsmReadRequest& r : requests) {
    if (!r.status.ok()) return r.status;
  }
  return absl::OkStatus();
}

// One extent copy of a format: where it lives and which file bytes it holds.
struct FormatCopyJob {
  uint32_t extent, copy;
  CopyLoc loc;
  uint32_t cell, grid_disk;
  uint64_t disk_offset, length, file_offset;
};

// The copies a format of `file` must write (requires mu). Copies on offline
// disks are not sent but marked stale (one journal append), so that resync
// rewrites them.
struct FormatPlan {
  std::vector<FormatCopyJob> jobs;
  std::vector<uint32_t> extents_in_range;
  uint32_t block_size = 512;
};
static absl::Status PlanFormat(DiskGroup::State& s, uint32_t file, const FormatOptions& options,
                               FormatPlan* plan, FormatResult* res)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(s.mu) {
  absl::StatusOr<const FileRec*> found = FindFile(s, file);
  if (!found.ok()) return found.status();
  const FileRec& f = **found;
  plan->block_size = std::max<uint32_t>(f.info.block_size, 512);
  const uint64_t begin = options.file_offset;
  const uint64_t end = options.length >= f.info.size_bytes
                           ? f.info.size_bytes
                           : std::min(f.info.size_bytes, begin + options.length);
  if (begin % 512 != 0 || end % 512 != 0 || begin >= end) {
    return absl::InvalidArgumentError(fmt::format(
        "format of {}: range [{}, {}) is empty or not 512-aligned", f.info.name, begin, end));
  }
  std::vector<CopyLoc> stale;
  const uint64_t au = s.cat.au_size;
  const uint64_t extents = (end + au - 1) / au - begin / au;
  plan->extents_in_range.reserve(extents);
  plan->jobs.reserve(extents * f.copies());
  for (uint64_t x = begin / au; x * au < end; ++x) {
    const uint64_t lo = std::max(begin, x * au), hi = std::min(end, (x + 1) * au);
    plan->extents_in_range.push_back(static_cast<uint32_t>(x));
    for (uint32_t c = 0; c < f.copies(); ++c) {
      const CopyLoc l = f.extents[x][c];
      const internal::DiskRec& d = s.cat.disks[l.disk];
      if (!d.online) {
        if (d.stale.count(l.au) == 0) stale.push_back(l);
        continue;
      }
      plan->jobs.push_back(FormatCopyJob{static_cast<uint32_t>(x), c, l, d.ref.cell,
                                         d.ref.grid_disk, s.AuOffset(l.au) + lo % au, hi - lo,
                                         lo});
    }
  }
  if (!stale.empty()) {
    std::vector<std::vector<uint8_t>> bodies;
    bodies.push_back(internal::MakeStaleRecord(true, stale));
    absl::Status st = s.Commit(std::move(bodies));
    if (!st.ok()) return st;
    res->result.stale_extents_marked += stale.size();
  }
  return absl::OkStatus();
}

// One format's requests for SendFormatRequests: copies[j] (filled from
// jobs[j] by the caller) gets job j's outcome and latency; `io` the cells'
// statistics of the calls this format's requests started.
struct FormatSend {
  const DiskGroup::State* s = nullptr;
  const std::vector<FormatCopyJob>* jobs = nullptr;
  const FormatOptions* options = nullptr;
  absl::Span<FormatCopyResult> copies;
  AsmIoStats* io = nullptr;
};

// Sends the jobs of every format to their cells, every cell at once: the
// requests bound for one cell (CellService), whichever format and disk group
// they come from, in calls of the smallest requests_per_call of the formats
// (0: all in one call, which a write-back cell journals and syncs once).
static void SendFormatRequests(absl::Span<const FormatSend> sends) {
  struct Item {
    size_t send, job;
  };
  internal::ByCell<Item> cells;
  Clock* clock = nullptr;
  size_t per_call = 0;
  for (size_t f = 0; f < sends.size(); ++f) {
    const FormatSend& fs = sends[f];
    if (clock == nullptr) clock = fs.s->env.clock;
    const size_t pc = fs.options->requests_per_call;
    if (pc != 0 && (per_call == 0 || pc < per_call)) per_call = pc;
    std::vector<std::vector<Item>> by_cell(fs.s->env.cells.size());
    for (size_t j = 0; j < fs.jobs->size(); ++j) by_cell[(*fs.jobs)[j].cell].push_back({f, j});
    internal::AddByCell(fs.s->env, std::move(by_cell), &cells);
  }
  // stats[cell][call]: a call's statistics go to the format of its first request.
  std::vector<std::vector<std::pair<size_t, cell::CellIoStats>>> stats(cells.size());
  ForkJoin(clock, cells.size(), [&](size_t ci) {
    cell::CellService* service = cells[ci].first;
    const std::vector<Item>& items = cells[ci].second;
    const size_t n_call = per_call == 0 ? items.size() : per_call;
    std::vector<cell::FormatRangeRequest> batch;
    for (size_t start = 0; start < items.size(); start += n_call) {
      const size_t n = std::min(n_call, items.size() - start);
      batch.assign(n, {});
      for (size_t k = 0; k < n; ++k) {
        const Item& it = items[start + k];
        const FormatOptions& o = *sends[it.send].options;
        const FormatCopyJob& j = (*sends[it.send].jobs)[it.job];
        batch[k].grid_disk = j.grid_disk;
        batch[k].offset = j.disk_offset;
        batch[k].length = j.length;
        batch[k].block_template = o.block_template;
        batch[k].file_offset = j.file_offset;
        batch[k].method = o.method;
      }
      stats[ci].emplace_back(items[start].send, cell::CellIoStats{});
      const uint64_t t0 = clock->NowNanos();
      (void)service->FormatRange(absl::MakeSpan(batch), &stats[ci].back().second);
      const uint64_t ns = clock->NowNanos() - t0;
      for (size_t k = 0; k < n; ++k) {
        const Item& it = items[start + k];
        FormatCopyResult& out = sends[it.send].copies[it.job];
        out.status = std::move(batch[k].status);
        out.metadata_only = batch[k].metadata_only;
        out.latency_ns = ns;
      }
    }
  }, /*disjoint=*/true);
  for (const auto& calls : stats) {
    for (const auto& [f, st] : calls) sends[f].io->cell += st;
  }
}

// How the copies of a format fared.
struct FormatTally {
  // Copies formatted, by extent (index i: plan.extents_in_range[i], which are
  // consecutive): a vector, not a map, so a 64 GiB file's 16,384 extents cost
  // no allocation each.
  std::vector<uint32_t> landed;
  std::map<uint32_t, absl::Status> first_error;
  std::vector<std::pair<CopyLoc, absl::Status>> failed;
  // The failed copies to mark stale: all but the first of an extent no copy
  // of which was formatted (as a write's, CopiesToMarkStale).
  std::vector<std::pair<CopyLoc, absl::Status>> stale;
  // A cell that refuses the request itself (a bad range, a fast creation its
  // flash metadata has no room for, a write-through cell asked for metadata
  // only) has a working disk: the format fails, but no disk goes offline.
  absl::Status refused;
};

// Counts the copies (copies[j]: plan.jobs[j]'s outcome) and sorts their
// outcomes.
static FormatTally TallyFormat(const FormatPlan& plan, absl::Span<const FormatCopyResult> copies,
                               FormatResult* res) {
  FormatTally t;
  t.landed.assign(plan.extents_in_range.size(), 0);
  const uint32_t first = plan.extents_in_range.empty() ? 0 : plan.extents_in_range.front();
  auto is_refusal = [](const absl::Status& st) {
    return st.code() == absl::StatusCode::kInvalidArgument ||
           st.code() == absl::StatusCode::kFailedPrecondition ||
           st.code() == absl::StatusCode::kOutOfRange;
  };
  for (size_t j = 0; j < plan.jobs.size(); ++j) {
    const FormatCopyJob& jb = plan.jobs[j];
    ++res->result.io.cell_requests;
    if (jb.length >= 2 * uint64_t{plan.block_size}) ++res->result.io.multi_block_requests;
    const absl::Status& st = copies[j].status;
    if (st.ok()) {
      ++t.landed[jb.extent - first];
    } else if (is_refusal(st)) {
      t.refused.Update(st);
    } else {
      t.failed.emplace_back(jb.loc, st);
      t.first_error.emplace(jb.extent, st);
    }
  }
  std::set<uint32_t> kept;  // extents that keep a current copy
  for (size_t j = 0; j < plan.jobs.size(); ++j) {
    const FormatCopyJob& jb = plan.jobs[j];
    const absl::Status& st = copies[j].status;
    if (st.ok() || is_refusal(st)) continue;
    if (t.landed[jb.extent - first] == 0 && kept.insert(jb.extent).second) continue;
    t.stale.emplace_back(jb.loc, st);
  }
  return t;
}

// The format's error: a refusal, a full filesystem, an extent no copy of
// which was formatted, or (when some copy failed) the journal's own error.
static absl::Status FormatError(const DiskGroup::State& s, uint32_t file, const FormatPlan& plan,
                                const FormatTally& t, const absl::Status& meta) {
  if (!t.refused.ok()) {
    return absl::Status(t.refused.code(), fmt::format("format of {}: {}", s.FileLabel(file),
                                                      std::string(t.refused.message())));
  }
  if (absl::Status space = OutOfSpaceError(s, "format", file, t.failed); !space.ok()) {
    return space;
  }
  for (size_t i = 0; i < plan.extents_in_range.size(); ++i) {
    const uint32_t x = plan.extents_in_range[i];
    if (t.landed[i] == 0) {
      auto e = t.first_error.find(x);
      return absl::Status(
          e == t.first_error.end() ? absl::StatusCode::kUnavailable : e->second.code(),
          fmt::format("format of {}: no copy of extent {} could be formatted{}{}",
                      s.FileLabel(file), x, e == t.first_error.end() ? "" : ": ",
                      e == t.first_error.end() ? "" : std::string(e->second.message())));
    }
  }
  if (!t.failed.empty() && !meta.ok()) return meta;
  return absl::OkStatus();
}

absl::Status DiskGroup::FormatFile(uint32_t file, const FormatOptions& options,
                                   FormatResult* result) {
  FormatResult local;
  FileFormat f{this, file, options, result != nullptr ? result : &local, {}};
  return FormatFiles(absl::MakeSpan(&f, 1));
}

absl::Status DiskGroup::FormatFiles(absl::Span<FileFormat> formats) {
  std::vector<State*> groups;
  for (const FileFormat& f : formats) groups.push_back(f.disk_group->s_.get());
  const SharedIoLocks io_locks(std::move(groups));
  std::vector<FormatPlan> plans(formats.size());
  std::vector<size_t> base(formats.size(), 0);  // each format's first row
  std::vector<FormatSend> sends;
  std::vector<size_t> sent;  // formats with a plan
  for (size_t i = 0; i < formats.size(); ++i) {
    FileFormat& f = formats[i];
    State& s = *f.disk_group->s_;
    {
      MutexLock lock(&s.mu);
      f.status = PlanFormat(s, f.file, f.options, &plans[i], f.result);
    }
    if (!f.status.ok()) continue;
    // A row per copy, filled in place by the cells' answers.
    FormatResult* res = f.result;
    base[i] = res->copies.size();
    for (const FormatCopyJob& jb : plans[i].jobs) {
      res->copies.push_back(FormatCopyResult{.extent = jb.extent, .copy = jb.copy, .cell = jb.cell,
                                             .grid_disk = jb.grid_disk,
                                             .disk_offset = jb.disk_offset, .length = jb.length});
    }
    sent.push_back(i);
  }
  // The rows' spans once every format has added its own (formats may share a
  // result, whose vector then grew after an earlier format's rows).
  for (size_t i : sent) {
    FormatResult* res = formats[i].result;
    sends.push_back({formats[i].disk_group->s_.get(), &plans[i].jobs, &formats[i].options,
                     absl::MakeSpan(res->copies).subspan(base[i], plans[i].jobs.size()),
                     &res->result.io});
  }
  if (!sends.empty()) SendFormatRequests(sends);
  for (size_t k = 0; k < sent.size(); ++k) {
    FileFormat& f = formats[sent[k]];
    State& s = *f.disk_group->s_;
    FormatTally tally = TallyFormat(plans[sent[k]], sends[k].copies, f.result);
    absl::Status meta;
    {
      MutexLock lock(&s.mu);
      meta = RecordCopyFailures(s, tally.stale, &f.result->result);
    }
    f.status = FormatError(s, f.file, plans[sent[k]], tally, meta);
  }
  for (const FileFormat& f : formats) {
    if (!f.status.ok()) return f.status;
  }
  return absl::OkStatus();
}

}  // namespace cellsim::asmgr
