// DiskGroup maintenance: offline/online with fast mirror resync, resync of
// ranges cells lost with their flash, and scrub.
#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "cellsim/asm/disk_group.h"
#include "cellsim/asm/disk_group_state.h"
#include "cellsim/cell/cell_service.h"
#include "cellsim/io/io_backend.h"
#include "fmt/format.h"

namespace cellsim::asmgr {

using internal::CopyIo;
using internal::CopyLoc;
using internal::DiskRec;
using internal::FileRec;

namespace {

// Buffers of one maintenance batch stay under this many bytes.
constexpr uint64_t kBatchBytes = 64ull << 20;

// Rewrite [in_au_offset, +length) of the AU `target` from the first readable
// source (same range of another copy), or with zeros when `zero_fill`.
struct CopyJob {
  CopyLoc target;
  uint64_t in_au_offset = 0;
  uint64_t length = 0;
  std::vector<CopyLoc> sources;
  bool zero_fill = false;
  // --- results ---
  bool copied = false;        // target rewritten
  bool no_source = false;     // no source could be read
  absl::Status target_error;  // the target write failed
};

// Runs copy jobs in batches: reads with failover over the sources, then one
// write per job to its target. Adds I/O to `io`.
void RunCopyJobs(const DiskGroup::State& s, std::vector<CopyJob>& jobs, AsmIoStats* io)
    ABSL_LOCKS_EXCLUDED(s.mu) {
  size_t start = 0;
  while (start < jobs.size()) {
    size_t end = start;
    uint64_t bytes = 0;
    while (end < jobs.size() && (end == start || bytes + jobs[end].length <= kBatchBytes)) {
      bytes += jobs[end].length;
      ++end;
    }
    std::vector<io::AlignedBuffer> bufs;
    bufs.reserve(end - start);
    for (size_t j = start; j < end; ++j) bufs.emplace_back(jobs[j].length);
    std::vector<size_t> next(end - start, 0);
    std::vector<bool> have(end - start, false);
    for (size_t j = start; j < end; ++j) have[j - start] = jobs[j].zero_fill;
    for (;;) {  // read rounds: each job tries its next source
      std::vector<CopyIo> ios;
      std::vector<size_t> owner;
      for (size_t j = start; j < end; ++j) {
        const size_t k = j - start;
        if (have[k] || next[k] >= jobs[j].sources.size()) continue;
        const CopyLoc src = jobs[j].sources[next[k]++];
        const DiskRec& d = s.fixed().disks[src.disk];  // its ref
        ios.push_back(CopyIo{d.ref.cell, d.ref.grid_disk, s.AuOffset(src.au) + jobs[j].in_au_offset,
                             bufs[k].data(), jobs[j].length, {}});
        owner.push_back(k);
      }
      if (ios.empty()) break;
      internal::DoCellIo(s.env, /*write=*/false, absl::MakeSpan(ios), io);
      for (size_t i = 0; i < ios.size(); ++i) {
        if (ios[i].status.ok()) have[owner[i]] = true;
      }
    }
    std::vector<CopyIo> writes;
    std::vector<size_t> owner;
    for (size_t j = start; j < end; ++j) {
      const size_t k = j - start;
      if (!have[k]) {
        jobs[j].no_source = true;
        continue;
      }
      const DiskRec& d = s.fixed().disks[jobs[j].target.disk];  // its ref
      writes.push_back(CopyIo{d.ref.cell, d.ref.grid_disk,
                              s.AuOffset(jobs[j].target.au) + jobs[j].in_au_offset, bufs[k].data(),
                              jobs[j].length, {}});
      owner.push_back(j);
    }
    internal::DoCellIo(s.env, /*write=*/true, absl::MakeSpan(writes), io);
    for (size_t i = 0; i < writes.size(); ++i) {
      if (writes[i].status.ok()) {
        jobs[owner[i]].copied = true;
      } else {
        jobs[owner[i]].target_error = writes[i].status;
      }
    }
    start = end;
  }
}

// Other copies of the extent owning `loc` that are online and current.
std::vector<CopyLoc> SourcesOf(const DiskGroup::State& s, CopyLoc loc)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(s.mu) {
  std::vector<CopyLoc> out;
  const internal::AuOwner& o = s.cat.disks[loc.disk].owners[loc.au];
  const FileRec& f = s.cat.files.at(o.file);
  for (uint32_t c = 0; c < f.copies(); ++c) {
    const CopyLoc l = f.extents[o.extent][c];
    if (l == loc) continue;
    const DiskRec& d = s.cat.disks[l.disk];
    if (d.online && d.stale.count(l.au) == 0) out.push_back(l);
  }
  return out;
}

// Persists the outcome of copy jobs (requires mu): stale marks of rewritten
// whole AUs are cleared; targets that failed go offline.
absl::Status CommitCopyJobs(DiskGroup::State& s, const std::vector<CopyJob>& jobs,
                            bool clears_stale, ResyncResult* res)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(s.mu) {
  std::vector<CopyLoc> cleared;
  std::map<uint32_t, absl::Status> failed_disks;
  for (const CopyJob& j : jobs) {
    if (j.copied) {
      ++res->extents_copied;
      res->bytes_copied += j.length;
      if (clears_stale) cleared.push_back(j.target);
    } else if (!j.target_error.ok()) {
      failed_disks.emplace(j.target.disk, j.target_error);
    } else if (j.no_source) {
      ++res->extents_unrecoverable;
    }
  }
  std::vector<std::vector<uint8_t>> bodies;
  if (!cleared.empty()) bodies.push_back(internal::MakeStaleRecord(false, cleared));
  for (const auto& [disk, err] : failed_disks) {
    if (s.cat.disks[disk].online) {
      bodies.push_back(internal::MakeDiskStateRecord(disk, false, std::string(err.message())));
    }
  }
  absl::Status st = s.Commit(std::move(bodies));
  if (!st.ok()) return st;
  if (!failed_disks.empty()) {
    const auto& [disk, err] = *failed_disks.begin();
    return absl::Status(err.code(), fmt::format("disk group {}: resync of {} failed: {}",
                                                s.cat.name, s.cat.disks[disk].name,
                                                std::string(err.message())));
  }
  return absl::OkStatus();
}

// Copies the stale AUs of `disk` from good copies (requires io_mu exclusive).
absl::Status ResyncDisk(DiskGroup::State& s, uint32_t disk, ResyncResult* res)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(s.io_mu) ABSL_LOCKS_EXCLUDED(s.mu) {
  std::vector<CopyJob> jobs;
  {
    MutexLock lock(&s.mu);
    const DiskRec& d = s.cat.disks[disk];
    for (uint32_t au : d.stale) {
      const internal::AuOwner& o = d.owners[au];
      const FileRec& f = s.cat.files.at(o.file);
      CopyJob j;
      j.target = CopyLoc{disk, au};
      j.length = s.ExtentLength(f, o.extent);
      j.sources = SourcesOf(s, j.target);
      jobs.push_back(std::move(j));
    }
  }
  if (jobs.empty()) return absl::OkStatus();
  RunCopyJobs(s, jobs, &res->io);
  MutexLock lock(&s.mu);
  return CommitCopyJobs(s, jobs, /*clears_stale=*/true, res);
}

// Resyncs every online disk with stale AUs (requires io_mu exclusive).
absl::Status ResyncOnlineDisks(DiskGroup::State& s, ResyncResult* res)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(s.io_mu) ABSL_LOCKS_EXCLUDED(s.mu) {
  std::vector<uint32_t> todo;
  {
    MutexLock lock(&s.mu);
    for (uint32_t i = 0; i < s.cat.disks.size(); ++i) {
      if (s.cat.disks[i].online && !s.cat.disks[i].stale.empty()) todo.push_back(i);
    }
  }
  absl::Status first;
  for (uint32_t d : todo) {
    absl::Status st = ResyncDisk(s, d, res);
    if (first.ok()) first = st;
  }
  return first;
}

}  // namespace

absl::Status DiskGroup::OfflineDisk(uint32_t disk) {
  WriterMutexLock io_lock(&s_->io_mu);
  MutexLock lock(&s_->mu);
  if (disk >= s_->cat.disks.size()) {
    return absl::NotFoundError(fmt::format("disk group {} has no disk {}", s_->cat.name, disk));
  }
  if (!s_->cat.disks[disk].online) return absl::OkStatus();
  // As ASM does (ORA-15066): never take away the last current copy of an
  // extent, nor the last online partner that could hold one.
  if (std::string why = s_->cat.PartnerOfflineRefusal(disk); !why.empty()) {
    return absl::FailedPreconditionError(
        fmt::format("ORA-15066: offlining disk \"{}\" in group \"{}\" may result in a data "
                    "loss: {}",
                    s_->cat.disks[disk].name, s_->cat.name, why));
  }
  if (internal::Catalog::SoleCopy sole; s_->cat.FindSoleCurrentCopy(disk, &sole)) {
    return absl::FailedPreconditionError(fmt::format(
        "ORA-15066: offlining disk \"{}\" in group \"{}\" may result in a data loss: it "
        "holds the only current copy of extent {} of {}",
        s_->cat.disks[disk].name, s_->cat.name, sole.extent, s_->cat.files.at(sole.file).info.name));
  }
  std::vector<std::vector<uint8_t>> bodies;
  bodies.push_back(internal::MakeDiskStateRecord(disk, false, ""));
  return s_->Commit(std::move(bodies));
}

absl::Status DiskGroup::MarkDiskReplaced(uint32_t disk) {
  WriterMutexLock io_lock(&s_->io_mu);
  MutexLock lock(&s_->mu);
  if (disk >= s_->cat.disks.size()) {
    return absl::NotFoundError(fmt::format("disk group {} has no disk {}", s_->cat.name, disk));
  }
  const DiskRec& d = s_->cat.disks[disk];
  if (d.online) {
    return absl::FailedPreconditionError(fmt::format(
        "disk {} of disk group {} is ONLINE: take it offline first (alter diskgroup {} offline "
        "disk {}); its content is still current",
        d.name, s_->cat.name, s_->cat.name, d.name));
  }
  std::vector<CopyLoc> rebuild;
  for (uint32_t au = 0; au < d.total_aus; ++au) {
    if (d.owners[au].file != 0 && d.stale.count(au) == 0) rebuild.push_back(CopyLoc{disk, au});
  }
  if (rebuild.empty()) return absl::OkStatus();
  std::vector<std::vector<uint8_t>> bodies;
  bodies.push_back(internal::MakeStaleRecord(true, rebuild));
  return s_->Commit(std::move(bodies));
}

absl::Status DiskGroup::OnlineAll(ResyncResult* result) {
  std::vector<uint32_t> disks;
  {
    MutexLock lock(&s_->mu);
    for (uint32_t d = 0; d < s_->cat.disks.size(); ++d) {
      if (!s_->cat.disks[d].online || !s_->cat.disks[d].stale.empty()) disks.push_back(d);
    }
  }
  for (uint32_t d : disks) {
    if (absl::Status st = OnlineDisk(d, result); !st.ok()) return st;
  }
  return absl::OkStatus();
}

absl::Status DiskGroup::OnlineDisk(uint32_t disk, ResyncResult* result) {
  ResyncResult local;
  ResyncResult* res = result != nullptr ? result : &local;
  WriterMutexLock io_lock(&s_->io_mu);
  DiskRef ref;
  std::string name, group;
  {
    MutexLock lock(&s_->mu);
    if (disk >= s_->cat.disks.size()) {
      return absl::NotFoundError(fmt::format("disk group {} has no disk {}", s_->cat.name, disk));
    }
    ref = s_->cat.disks[disk].ref;
    name = s_->cat.disks[disk].name;
    group = s_->cat.name;
  }
  // The device must serve I/O, even when nothing is stale to copy to it: a
  // grid disk made inactive on its cell, or lost, stays offline.
  if (cell::CellService* c = ref.cell < s_->env.cells.size() ? s_->env.cells[ref.cell] : nullptr) {
    absl::StatusOr<cell::CellDescription> d = c->Describe();
    if (!d.ok()) return d.status();
    if (ref.grid_disk < d->grid_disks.size() && d->grid_disks[ref.grid_disk].status != "active") {
      const cell::GridDiskInfo& g = d->grid_disks[ref.grid_disk];
      return absl::FailedPreconditionError(fmt::format(
          "cannot online disk {} of disk group {}: grid disk {} of cell {} is {}{}", name, group,
          g.name, d->name, g.status,
          g.status == "inactive" ? fmt::format(" (CellCLI: ALTER GRIDDISK {} ACTIVE)", g.name)
                                 : g.status_reason.empty() ? "" : ": " + g.status_reason));
    }
  }
  // Copy while still offline: a failure leaves the disk offline, its
  // remaining stale AUs recorded, and a retry copies only what is left.
  absl::Status st = ResyncDisk(*s_, disk, res);
  if (!st.ok()) return st;
  {
    MutexLock lock(&s_->mu);
    if (!s_->cat.disks[disk].online) {
      std::vector<std::vector<uint8_t>> bodies;
      bodies.push_back(internal::MakeDiskStateRecord(disk, true, ""));
      st = s_->Commit(std::move(bodies));
      if (!st.ok()) return st;
    }
  }
  // Extents whose only current copy was on this disk can now be restored
  // elsewhere.
  return ResyncOnlineDisks(*s_, res);
}

absl::Status DiskGroup::ResyncStale(ResyncResult* result) {
  ResyncResult local;
  WriterMutexLock io_lock(&s_->io_mu);
  return ResyncOnlineDisks(*s_, result != nullptr ? result : &local);
}

absl::Status DiskGroup::ResyncLostRanges(ResyncResult* result) {
  ResyncResult local;
  ResyncResult* res = result != nullptr ? result : &local;
  WriterMutexLock io_lock(&s_->io_mu);
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> disk_of;  // (cell, grid disk) -> disk
  const internal::Catalog& fixed = s_->fixed();
  for (uint32_t i = 0; i < fixed.disks.size(); ++i) {
    disk_of[{fixed.disks[i].ref.cell, fixed.disks[i].ref.grid_disk}] = i;
  }
  std::vector<CopyJob> jobs;
  for (uint32_t c = 0; c < s_->env.cells.size(); ++c) {
    if (s_->env.cells[c] == nullptr) continue;
    absl::StatusOr<std::vector<cell::LostRange>> lost = s_->env.cells[c]->LostRanges();
    if (!lost.ok()) return lost.status();
    MutexLock lock(&s_->mu);
    const uint64_t au_size = s_->cat.au_size;
    for (const cell::LostRange& r : *lost) {
      auto it = disk_of.find({c, r.grid_disk});
      if (it == disk_of.end() || r.length == 0) continue;
      const uint32_t disk = it->second;
      const DiskRec& d = s_->cat.disks[disk];
      if (!d.online) continue;  // its stale extents are resynced when it returns
      for (uint64_t off = r.offset; off < r.offset + r.length;) {
        const uint32_t au = static_cast<uint32_t>(off / au_size);
        const uint64_t au_begin = uint64_t{au} * au_size;
        const uint64_t part_end = std::min(r.offset + r.length, au_begin + au_size);
        if (au >= d.total_aus) break;
        const internal::AuOwner& o = d.owners[au];
        uint64_t valid_end = au_begin;  // file data ends here inside this AU
        if (o.file != 0) {
          // Rounded up to the cell's page: a lost page takes only whole page
          // writes, and a file's end need not be page aligned (a log member
          // is SIZE + one 512-byte block). Beyond the end, the partner's
          // bytes are as good as zeros.
          valid_end = std::min(au_begin + au_size,
                               io::AlignUp(au_begin + s_->ExtentLength(s_->cat.files.at(o.file),
                                                                       o.extent),
                                           cell::kPageBytes));
        }
        if (off < valid_end) {  // owned file data: copy from a partner
          CopyJob j;
          j.target = CopyLoc{disk, au};
          j.in_au_offset = off - au_begin;
          j.length = std::min(part_end, valid_end) - off;
          j.sources = SourcesOf(*s_, j.target);
          jobs.push_back(std::move(j));
          off += jobs.back().length;
        } else {  // no file data here: zeros clear the loss
          CopyJob j;
          j.target = CopyLoc{disk, au};
          j.in_au_offset = off - au_begin;
          j.length = part_end - off;
          j.zero_fill = true;
          jobs.push_back(std::move(j));
          off = part_end;
        }
      }
    }
  }
  if (jobs.empty()) return absl::OkStatus();
  RunCopyJobs(*s_, jobs, &res->io);
  MutexLock lock(&s_->mu);
  return CommitCopyJobs(*s_, jobs, /*clears_stale=*/false, res);
}

namespace {

// One extent Scrub reads: its current copies on online disks.
struct ScrubItem {
  uint32_t file = 0, extent = 0;
  uint64_t file_offset = 0, length = 0;
  FileType type = FileType::kDataFile;
  uint32_t unit = 0;  // copies are compared and judged in units of this many bytes
  std::vector<CopyLoc> copies;
};

// A rewrite of [offset, +length) of an item's copy `target` from its copy
// `source` (offsets inside the extent); `mismatch` indexes
// ScrubResult::mismatches (-1: the target could not be read at all).
struct ScrubFix {
  size_t target = 0, source = 0;
  uint64_t offset = 0, length = 0;
  int64_t mismatch = -1;
};

// Extent `x` of file `num` as the catalog has it now (requires mu): its
// copies that are online and not stale; nullopt when options.disk is given
// and no copy of it is there.
std::optional<ScrubItem> ScrubItemOf(const DiskGroup::State& s, const ScrubOptions& options,
                                     uint32_t num, const FileRec& f, uint32_t x)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(s.mu) {
  uint32_t unit = std::max<uint32_t>(f.info.block_size, 512);
  if (s.cat.au_size % unit != 0) unit = static_cast<uint32_t>(s.cat.au_size);
  ScrubItem it{num, x, uint64_t{x} * s.cat.au_size, s.ExtentLength(f, x), f.info.type, unit, {}};
  bool on_disk = !options.disk.has_value();
  for (uint32_t c = 0; c < f.copies(); ++c) {
    const CopyLoc l = f.extents[x][c];
    const DiskRec& d = s.cat.disks[l.disk];
    on_disk = on_disk || l.disk == *options.disk;
    if (d.online && d.stale.count(l.au) == 0) it.copies.push_back(l);
  }
  if (!on_disk) return std::nullopt;
  return it;
}

// The extents to scrub (requires mu): every extent of every file, or of the
// one file, or those with a copy on the one disk.
absl::Status PlanScrub(const DiskGroup::State& s, const ScrubOptions& options,
                       std::vector<ScrubItem>* items) ABSL_EXCLUSIVE_LOCKS_REQUIRED(s.mu) {
  if (options.file.has_value() && s.cat.files.count(*options.file) == 0) {
    return absl::NotFoundError(fmt::format("scrub of {}: no file {}", s.cat.name, *options.file));
  }
  if (options.disk.has_value()) {
    if (*options.disk >= s.cat.disks.size()) {
      return absl::InvalidArgumentError(
          fmt::format("scrub of {}: no disk {}", s.cat.name, *options.disk));
    }
    const DiskRec& d = s.cat.disks[*options.disk];
    if (!d.online) {
      return absl::FailedPreconditionError(fmt::format(
          "disk {} of {} is offline: its copies cannot be read to scrub (bring it online, which "
          "resyncs it, then scrub)",
          d.name, s.cat.name));
    }
  }
  for (const auto& [num, f] : s.cat.files) {
    if (options.file.has_value() && num != *options.file) continue;
    for (uint32_t x = 0; x < f.extents.size(); ++x) {
      if (std::optional<ScrubItem> it = ScrubItemOf(s, options, num, f, x)) {
        items->push_back(*std::move(it));
      }
    }
  }
  return absl::OkStatus();
}

// `batch` as the catalog has it now (requires mu): the reads and writes that
// ran since the plan may have dropped or shrunk a file, moved a copy
// (rebalance) or taken a disk offline. An extent no longer there is left out.
void RefreshScrubBatch(const DiskGroup::State& s, const ScrubOptions& options,
                       std::vector<ScrubItem>* batch) ABSL_EXCLUSIVE_LOCKS_REQUIRED(s.mu) {
  std::vector<ScrubItem> now;
  for (const ScrubItem& it : *batch) {
    const auto f = s.cat.files.find(it.file);
    if (f == s.cat.files.end() || it.extent >= f->second.extents.size()) continue;
    if (std::optional<ScrubItem> fresh = ScrubItemOf(s, options, it.file, f->second, it.extent)) {
      now.push_back(*std::move(fresh));
    }
  }
  *batch = std::move(now);
}

// How far a copy's unit passes Oracle's block checks: 0 a block fails its
// checksum, 1 a block is not the one of its address (a data block's type and
// rdba, a redo block's number), 2 it passes both (or the file's type carries
// no checks).
int UnitScore(const ScrubItem& it, uint64_t offset, const uint8_t* data, uint64_t length) {
  const uint64_t at = it.file_offset + offset;
  if (internal::FirstBadBlock(it.type, it.unit, at, data, length, false)) return 0;
  if (internal::FirstBadBlock(it.type, it.unit, at, data, length, true)) return 1;
  return 2;
}

// Compares one extent's copies (data[c]; null for a copy that could not be
// read) unit by unit. Where they differ, the group of equal copies with the
// best UnitScore is kept, or with the same score the one most copies hold; a
// tie keeps none. Adds mismatches to `res` and the rewrites a repair makes to
// `fixes` (copies that could not be read are rewritten wherever a copy is kept).
void JudgeExtent(const DiskGroup::State& s, const ScrubItem& it,
                 const std::vector<const uint8_t*>& data, ScrubResult* res,
                 std::vector<ScrubFix>* fixes) {
  const size_t n = data.size();
  // (kept, differing, judged) -> its mismatch: the blocks judged and those
  // that could not be are reported apart.
  std::map<std::tuple<size_t, size_t, bool>, int64_t> found;
  auto record = [&](size_t keep, size_t other, uint64_t off, uint64_t len, bool judged,
                    const std::string& reason) -> int64_t {
    auto [pos, fresh] = found.emplace(std::make_tuple(keep, other, judged), 0);
    if (fresh) {
      uint64_t at = off;
      while (data[keep][at] == data[other][at]) ++at;
      pos->second = static_cast<int64_t>(res->mismatches.size());
      res->mismatches.push_back(ScrubMismatch{
          it.file, it.extent, it.file_offset + at, s.fixed().disks[it.copies[keep].disk].name,
          s.fixed().disks[it.copies[other].disk].name, 0, judged, reason, false});
    }
    res->mismatches[pos->second].blocks += (len + it.unit - 1) / it.unit;
    return pos->second;
  };
  auto fix = [&](size_t target, size_t source, uint64_t off, uint64_t len, int64_t mismatch) {
    if (!fixes->empty()) {
      ScrubFix& last = fixes->back();
      if (last.target == target && last.source == source && last.offset + last.length == off &&
          last.mismatch == mismatch) {
        last.length += len;
        return;
      }
    }
    fixes->push_back(ScrubFix{target, source, off, len, mismatch});
  };
  const uint8_t* first = nullptr;  // the usual case: every copy read and equal
  bool same = true;
  for (const uint8_t* d : data) {
    if (first == nullptr) first = d;
    same = same && d != nullptr && std::memcmp(first, d, it.length) == 0;
  }
  if (same) return;
  for (uint64_t off = 0; off < it.length; off += it.unit) {
    const uint64_t len = std::min<uint64_t>(it.unit, it.length - off);
    std::vector<std::vector<size_t>> groups;  // readable copies with equal bytes
    for (size_t c = 0; c < n; ++c) {
      if (data[c] == nullptr) continue;
      auto g = std::find_if(groups.begin(), groups.end(), [&](const std::vector<size_t>& g) {
        return std::memcmp(data[g[0]] + off, data[c] + off, len) == 0;
      });
      if (g == groups.end()) {
        groups.push_back({c});
      } else {
        g->push_back(c);
      }
    }
    if (groups.empty()) return;  // nothing readable: read_errors says so
    std::vector<int> score(groups.size(), 2);
    if (groups.size() > 1) {
      for (size_t g = 0; g < groups.size(); ++g) {
        score[g] = UnitScore(it, off, data[groups[g][0]] + off, len);
      }
    }
    auto rank = [&](size_t g) { return std::make_pair(score[g], groups[g].size()); };
    size_t best = 0;
    for (size_t g = 1; g < groups.size(); ++g) {
      if (rank(g) > rank(best)) best = g;
    }
    const size_t keep = groups[best][0];
    bool tie = false;
    for (size_t g = 0; g < groups.size(); ++g) {
      if (g != best && rank(g) == rank(best)) tie = true;
    }
    const uint64_t block = (it.file_offset + off) / it.unit;
    for (size_t g = 0; g < groups.size(); ++g) {
      if (g == best) continue;
      for (size_t c : groups[g]) {
        if (tie) {
          record(keep, c, off, len, false,
                 score[best] == 0
                     ? fmt::format("block {} differs and fails its checksum on every copy, with "
                                   "no majority: no good copy to keep",
                                   block)
                     : fmt::format("block {} differs and every copy {}, with no majority: "
                                   "which is right cannot be told",
                                   block,
                                   score[best] == 2 ? "passes the block checks"
                                                    : "passes its checksum but is not the block "
                                                      "of its address"));
          continue;
        }
        const std::string why =
            score[g] == 0   ? fmt::format("block {} fails its checksum", block)
            : score[g] == 1 ? fmt::format("block {} is not the block of its address", block)
                            : fmt::format("block {} differs from the bytes {} copies agree on",
                                          block, groups[best].size());
        fix(c, keep, off, len, record(keep, c, off, len, true, why));
      }
    }
    if (tie) continue;
    for (size_t c = 0; c < n; ++c) {
      if (data[c] == nullptr) fix(c, keep, off, len, -1);
    }
  }
}

// Scrub's repair of a batch: rewrites each fix's range of its target copy
// from the bytes read of its source copy (reads[item][copy], fixes[item]);
// marks the mismatches repaired, counts the copies rewritten, and returns
// the copies whose write failed.
std::vector<std::pair<CopyLoc, absl::Status>> RepairScrubbed(
    const DiskGroup::State& s, const std::vector<ScrubItem>& items,
    const std::vector<std::vector<ScrubFix>>& fixes, const std::vector<std::vector<CopyIo>>& reads,
    ScrubResult* res) {
  std::vector<CopyIo> writes;
  std::vector<std::pair<size_t, const ScrubFix*>> owner;  // (item, fix)
  for (size_t i = 0; i < fixes.size(); ++i) {
    for (const ScrubFix& f : fixes[i]) {
      const CopyIo& target = reads[i][f.target];
      writes.push_back(CopyIo{target.cell, target.grid_disk, target.offset + f.offset,
                              reads[i][f.source].buffer + f.offset, f.length, {}});
      owner.emplace_back(i, &f);
    }
  }
  internal::DoCellIo(s.env, /*write=*/true, absl::MakeSpan(writes), &res->io);
  std::vector<std::pair<CopyLoc, absl::Status>> failed;
  std::set<std::pair<size_t, size_t>> rewritten, broken;  // (item, copy)
  for (size_t w = 0; w < writes.size(); ++w) {
    const auto [i, f] = owner[w];
    if (!writes[w].status.ok()) {
      if (broken.insert({i, f->target}).second) {
        failed.emplace_back(items[i].copies[f->target], writes[w].status);
      }
      continue;
    }
    rewritten.insert({i, f->target});
    if (f->mismatch >= 0) res->mismatches[f->mismatch].repaired = true;
  }
  for (size_t w = 0; w < writes.size(); ++w) {  // a copy partly rewritten is not repaired
    const auto [i, f] = owner[w];
    if (f->mismatch >= 0 && broken.count({i, f->target}) != 0) {
      res->mismatches[f->mismatch].repaired = false;
    }
  }
  for (const auto& key : rewritten) res->repaired += broken.count(key) == 0 ? 1 : 0;
  return failed;
}

// Reads every copy of `batch`'s extents, judges them and (options.repair)
// rewrites the bad ones (requires io_mu exclusive: nothing writes them
// meanwhile); a copy whose rewrite fails is marked stale and its disk taken
// offline.
absl::Status ScrubBatch(DiskGroup::State& s, const ScrubOptions& options,
                        const std::vector<ScrubItem>& batch, ScrubResult* res)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(s.io_mu) ABSL_LOCKS_EXCLUDED(s.mu) {
  std::vector<io::AlignedBuffer> bufs;
  std::vector<CopyIo> ios;
  for (const ScrubItem& it : batch) {
    for (const CopyLoc l : it.copies) {
      bufs.emplace_back(it.length);
      const DiskRec& d = s.fixed().disks[l.disk];  // its ref
      ios.push_back(CopyIo{d.ref.cell, d.ref.grid_disk, s.AuOffset(l.au), bufs.back().data(),
                           it.length, {}});
    }
  }
  internal::DoCellIo(s.env, /*write=*/false, absl::MakeSpan(ios), &res->io);
  std::vector<std::vector<CopyIo>> reads(batch.size());
  std::vector<std::vector<ScrubFix>> fixes(batch.size());
  size_t k = 0;
  for (size_t i = 0; i < batch.size(); ++i) {
    const ScrubItem& it = batch[i];
    ++res->extents_checked;
    reads[i].assign(ios.begin() + static_cast<std::ptrdiff_t>(k),
                    ios.begin() + static_cast<std::ptrdiff_t>(k + it.copies.size()));
    k += it.copies.size();
    std::vector<const uint8_t*> data;
    for (const CopyIo& x : reads[i]) {
      data.push_back(x.status.ok() ? x.buffer : nullptr);
      if (!x.status.ok()) ++res->read_errors;
    }
    const size_t readable = data.size() - std::count(data.begin(), data.end(), nullptr);
    if (readable > 1) {
      res->copies_compared += readable - 1;
      res->bytes_compared += (readable - 1) * it.length;
    }
    JudgeExtent(s, it, data, res, &fixes[i]);
  }
  if (!options.repair) return absl::OkStatus();
  const std::vector<std::pair<CopyLoc, absl::Status>> failed =
      RepairScrubbed(s, batch, fixes, reads, res);
  if (failed.empty()) return absl::OkStatus();
  MutexLock lock(&s.mu);
  std::vector<std::vector<uint8_t>> bodies;
  std::vector<CopyLoc> locs;
  std::set<uint32_t> offlined;
  for (const auto& [loc, err] : failed) {
    locs.push_back(loc);
    if (s.cat.disks[loc.disk].online && offlined.insert(loc.disk).second) {
      bodies.push_back(internal::MakeDiskStateRecord(loc.disk, false, std::string(err.message())));
    }
  }
  bodies.push_back(internal::MakeStaleRecord(true, locs));
  return s.Commit(std::move(bodies));
}

}  // namespace

absl::Status DiskGroup::Scrub(const ScrubOptions& options, ScrubResult* result) {
  ScrubResult local;
  ScrubResult* res = result != nullptr ? result : &local;
  if (options.repair && s_->env.read_only) {
    return absl::FailedPreconditionError(fmt::format(
        "scrub of {} with repair: the rack is open read-only (scrub without repair only reports)",
        s_->fixed().name));
  }
  std::vector<ScrubItem> items;
  {
    MutexLock lock(&s_->mu);
    if (absl::Status st = PlanScrub(*s_, options, &items); !st.ok()) return st;
  }
  size_t start = 0;
  while (start < items.size() && !Cancelled(options.cancel)) {
    size_t end = start;
    uint64_t bytes = 0;
    while (end < items.size() &&
           (end == start || bytes + items[end].length * items[end].copies.size() <= kBatchBytes)) {
      bytes += items[end].length * items[end].copies.size();
      ++end;
    }
    std::vector<ScrubItem> batch(items.begin() + static_cast<std::ptrdiff_t>(start),
                                 items.begin() + static_cast<std::ptrdiff_t>(end));
    {
      // A batch at a time: the group's reads and writes run between batches,
      // not for the whole scrub, and none changes the copies a batch compares.
      WriterMutexLock io_lock(&s_->io_mu);
      {
        MutexLock lock(&s_->mu);
        RefreshScrubBatch(*s_, options, &batch);
      }
      if (absl::Status st = ScrubBatch(*s_, options, batch, res); !st.ok()) return st;
    }
    start = end;
    if (options.between_batches != nullptr && start < items.size()) options.between_batches();
  }
  if (start < items.size()) {
    return absl::CancelledError(fmt::format("scrub of {} stopped after {} of {} extents",
                                            s_->fixed().name, start, items.size()));
  }
  return absl::OkStatus();
}

}  // namespace cellsim::asmgr
