// Catalog: apply, encode and decode of a disk group's persistent state.
#include "cellsim/asm/catalog.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "fmt/format.h"
#include "fmt/ranges.h"

namespace cellsim::asmgr::internal {
namespace {

constexpr uint32_t kCheckpointMagic = 0x4B434741;  // "AGCK"
// Version 1 (every file mirrored as its group) is still read, its files
// taking the group's redundancy and copies (Catalog::kCheckpointVersion is 2).
constexpr uint32_t kGroupRedundancyCheckpointVersion = 1;
constexpr uint32_t kMaxExtents = 1u << 26;  // 64 Mi extents = 256 TiB at 4 MiB AU
constexpr uint32_t kMaxDisks = 1u << 16;

absl::Status Corrupt(const std::string& what) {
  return absl::DataLossError(fmt::format("ASM metadata: {}", what));
}

void EncodeLocs(Encoder* e, uint32_t copies, absl::Span<const ExtentLocs> extents) {
  e->PutU32(static_cast<uint32_t>(extents.size()));
  for (const ExtentLocs& x : extents) {
    for (uint32_t c = 0; c < copies; ++c) {
      e->PutU32(x[c].disk);
      e->PutU32(x[c].au);
    }
  }
}

bool DecodeFileInfo(Decoder* d, FileInfo* f) {
  uint8_t type = 0;
  uint64_t ctime = 0, mtime = 0;
  if (!d->GetU32(&f->number) || !d->GetU32(&f->incarnation) || !d->GetString(&f->name) ||
      !d->GetString(&f->db_name) || !d->GetU8(&type) || !d->GetString(&f->tag) ||
      !d->GetU64(&f->size_bytes) || !d->GetU32(&f->block_size) || !d->GetU64(&ctime) ||
      !d->GetU64(&mtime)) {
    return false;
  }
  if (type > static_cast<uint8_t>(FileType::kParameterFile)) return false;
  f->type = static_cast<FileType>(type);
  f->creation_time_unix = static_cast<int64_t>(ctime);
  f->modification_time_unix = static_cast<int64_t>(mtime);
  return true;
}

// Reads a file's redundancy and copies (u8 each) and checks them: an unknown
// redundancy code or a copy count the redundancy cannot have is DataLoss,
// never a guess.
absl::Status DecodeFileRedundancy(Decoder* d, FileInfo* f, const std::string& what) {
  uint8_t red = 0, copies = 0;
  if (!d->GetU8(&red) || !d->GetU8(&copies)) return d->Truncated(what);
  if (red > static_cast<uint8_t>(Redundancy::kHigh)) {
    return Corrupt(fmt::format("{}: file {} has unknown redundancy code {}", what, f->number,
                               red));
  }
  f->redundancy = static_cast<Redundancy>(red);
  if (copies < 1 || copies > Copies(f->redundancy)) {
    return Corrupt(fmt::format("{}: file {} of {} redundancy has {} copies", what, f->number,
                               FileRedundancyName(f->redundancy), copies));
  }
  f->copies = copies;
  return absl::OkStatus();
}

void EncodeFileRedundancy(Encoder* e, const FileInfo& f) {
  e->PutU8(static_cast<uint8_t>(f.redundancy));
  e->PutU8(static_cast<uint8_t>(f.copies));
}

}  // namespace

uint32_t Catalog::PlacedCopiesFor(Redundancy wanted) const {
  std::set<uint32_t> fgs;
  for (const DiskRec& d : disks) fgs.insert(d.ref.cell);
  return PlacedCopies(wanted, static_cast<uint32_t>(fgs.size()),
                      redundancy == Redundancy::kExternal ? 0 : max_partners);
}

void Catalog::ForEachSoleCurrentCopy(
    const std::function<bool(uint32_t disk, uint32_t file, uint64_t extent)>& visit) const {
  for (const auto& [number, f] : files) {
    for (size_t x = 0; x < f.extents.size(); ++x) {
      uint32_t current = 0, on = 0;
      for (uint32_t c = 0; c < f.copies(); ++c) {
        const CopyLoc& l = f.extents[x][c];
        const DiskRec& d = disks[l.disk];
        if (d.online && d.stale.count(l.au) == 0) {
          ++current;
          on = l.disk;
        }
      }
      if (current == 1 && !visit(on, number, x)) return;
    }
  }
}

bool Catalog::FindSoleCurrentCopy(uint32_t disk, SoleCopy* found) const {
  bool any = false;
  ForEachSoleCurrentCopy([&](uint32_t d, uint32_t file, uint64_t extent) {
    if (d != disk) return true;
    *found = {file, extent};
    any = true;
    return false;
  });
  return any;
}

std::map<std::string, std::string> Catalog::OfflinePartners(uint32_t disk) const {
  const DiskRec& d = disks[disk];
  std::map<std::string, std::string> offline;  // failure group -> its offline partner
  for (uint32_t q = 0; q < disks.size(); ++q) {
    const DiskRec& o = disks[q];
    if (o.online || o.failgroup == d.failgroup) continue;
    const bool partnered =
        std::find(d.partners.begin(), d.partners.end(), q) != d.partners.end() ||
        std::find(o.partners.begin(), o.partners.end(), disk) != o.partners.end();
    if (partnered) offline.emplace(o.failgroup, o.name);
  }
  return offline;
}

bool Catalog::PartnerOfflineAllowed(uint32_t disk) const {
  return copies() > 1 && OfflinePartners(disk).size() + 1 < copies();
}

std::string Catalog::PartnerOfflineRefusal(uint32_t disk) const {
  if (copies() == 1) {
    return "the group has EXTERNAL redundancy: its disks hold the only copy of everything";
  }
  const std::map<std::string, std::string> offline = OfflinePartners(disk);
  if (offline.size() + 1 < copies()) return "";
  std::vector<std::string> names;
  for (const auto& [fg, name] : offline) names.push_back(fmt::format("\"{}\"", name));
  return fmt::format("its partner disk{} {} {} offline, and {} redundancy keeps {} copies",
                     names.size() == 1 ? "" : "s", fmt::join(names, ", "),
                     names.size() == 1 ? "is already" : "are already",
                     RedundancyName(redundancy), copies());
}

void Catalog::InitDisks() {
  for (DiskRec& d : disks) {
    d.owners.assign(d.total_aus, AuOwner{});
    d.stale.clear();
    d.used = d.primaries = d.first_free = 0;
  }
}

void Catalog::Take(CopyLoc loc, AuOwner owner) {
  DiskRec& d = disks[loc.disk];
  d.owners[loc.au] = owner;
  ++d.used;
  if (owner.copy == 0) ++d.primaries;
  // An AU allocated on an offline disk holds nothing current: resync fills it.
  if (!d.online) d.stale.insert(loc.au);
  while (d.first_free < d.total_aus && d.owners[d.first_free].file != 0) ++d.first_free;
}

void Catalog::Release(CopyLoc loc) {
  DiskRec& d = disks[loc.disk];
  if (d.owners[loc.au].copy == 0) --d.primaries;
  d.owners[loc.au] = AuOwner{};
  --d.used;
  d.stale.erase(loc.au);
  d.first_free = std::min(d.first_free, loc.au);
}

uint64_t Catalog::FreeAus() const {
  uint64_t n = 0;
  for (const DiskRec& d : disks) n += d.total_aus - d.used;
  return n;
}

void Catalog::EncodeFileInfo(Encoder* e, const FileInfo& f) {
  e->PutU32(f.number);
  e->PutU32(f.incarnation);
  e->PutString(f.name);
  e->PutString(f.db_name);
  e->PutU8(static_cast<uint8_t>(f.type));
  e->PutString(f.tag);
  e->PutU64(f.size_bytes);
  e->PutU32(f.block_size);
  e->PutU64(static_cast<uint64_t>(f.creation_time_unix));
  e->PutU64(static_cast<uint64_t>(f.modification_time_unix));
}

// A location that appears twice in `extents`, if any. Allocation hands out
// each disk's AUs in increasing order, so one pass that checks that order
// settles it without allocating per location; only a record that breaks the
// order (an older journal or a hostile one) pays for a sort.
static std::optional<CopyLoc> RepeatedLocation(const Catalog& cat,
                                               absl::Span<const ExtentLocs> extents,
                                               uint32_t copies) {
  std::vector<uint64_t> next_au(cat.disks.size(), 0);  // every AU seen so far is below
  bool ascending = true;
  for (const ExtentLocs& x : extents) {
    for (uint32_t c = 0; c < copies && ascending; ++c) {
      ascending = x[c].au >= next_au[x[c].disk];
      next_au[x[c].disk] = uint64_t{x[c].au} + 1;
    }
  }
  if (ascending) return std::nullopt;
  std::vector<uint64_t> keys;
  keys.reserve(extents.size() * copies);
  for (const ExtentLocs& x : extents) {
    for (uint32_t c = 0; c < copies; ++c) keys.push_back(uint64_t{x[c].disk} << 32 | x[c].au);
  }
  std::sort(keys.begin(), keys.end());
  const auto twice = std::adjacent_find(keys.begin(), keys.end());
  if (twice == keys.end()) return std::nullopt;
  return CopyLoc{static_cast<uint32_t>(*twice >> 32), static_cast<uint32_t>(*twice)};
}

// Decodes `n` extents' locations and checks them against the catalog: every
// location inside its disk, free now, and not used twice by the record itself.
static absl::Status DecodeNewExtents(const Catalog& cat, Decoder* d, uint32_t copies,
                                     std::vector<ExtentLocs>* out, const char* what) {
  uint32_t n = 0;
  if (!d->GetU32(&n) || n > kMaxExtents) return Corrupt(fmt::format("{}: bad extent count", what));
  if (d->remaining() < uint64_t{n} * copies * 8) return d->Truncated(what);
  out->resize(n);
  for (uint32_t i = 0; i < n; ++i) {
    for (uint32_t c = 0; c < copies; ++c) {
      CopyLoc& l = (*out)[i][c];
      if (!d->GetU32(&l.disk) || !d->GetU32(&l.au)) return d->Truncated(what);
      if (l.disk >= cat.disks.size() || l.au >= cat.disks[l.disk].total_aus) {
        return Corrupt(fmt::format("{}: extent {} copy {} at disk {} AU {} is out of range",
                                   what, i, c, l.disk, l.au));
      }
      if (cat.disks[l.disk].owners[l.au].file != 0) {
        return Corrupt(fmt::format("{}: AU {} of disk {} allocated twice", what, l.au,
                                   cat.disks[l.disk].name));
      }
    }
  }
  if (std::optional<CopyLoc> l = RepeatedLocation(cat, *out, copies)) {
    return Corrupt(fmt::format("{}: AU {} of disk {} allocated twice", what, l->au,
                               cat.disks[l->disk].name));
  }
  return absl::OkStatus();
}

absl::Status Catalog::Apply(uint64_t new_seq, absl::Span<const uint8_t> body) {
  if (new_seq != seq + 1) {
    return Corrupt(fmt::format("record sequence {} follows {}", new_seq, seq));
  }
  Decoder d(body);
  uint8_t type = 0;
  if (!d.GetU8(&type)) return d.Truncated("record type");
  switch (static_cast<RecordType>(type)) {
    case RecordType::kCreateFileGroupRedundancy:
    case RecordType::kCreateFile: {
      FileRec f;
      if (!DecodeFileInfo(&d, &f.info)) return d.Truncated("create-file record");
      if (f.info.number < 256 || files.count(f.info.number) != 0) {
        return Corrupt(fmt::format("create of file {} which exists", f.info.number));
      }
      f.info.redundancy = redundancy;
      f.info.copies = copies();
      if (static_cast<RecordType>(type) == RecordType::kCreateFile) {
        absl::Status st = DecodeFileRedundancy(&d, &f.info, "create-file record");
        if (!st.ok()) return st;
      }
      absl::Status st =
          DecodeNewExtents(*this, &d, f.copies(), &f.extents, "create-file record");
      if (!st.ok()) return st;
      for (uint32_t i = 0; i < f.extents.size(); ++i) {
        for (uint32_t c = 0; c < f.copies(); ++c) {
          Take(f.extents[i][c], AuOwner{f.info.number, i, static_cast<uint8_t>(c)});
        }
      }
      f.info.extents = static_cast<uint32_t>(f.extents.size());
      next_file = std::max(next_file, f.info.number + 1);
      last_incarnation = std::max(last_incarnation, f.info.incarnation);
      files.emplace(f.info.number, std::move(f));
      break;
    }
    case RecordType::kResizeFile: {
      uint32_t file = 0, count = 0;
      uint64_t size = 0, mtime = 0;
      if (!d.GetU32(&file) || !d.GetU64(&size) || !d.GetU64(&mtime) || !d.GetU32(&count)) {
        return d.Truncated("resize record");
      }
      auto it = files.find(file);
      if (it == files.end()) return Corrupt(fmt::format("resize of missing file {}", file));
      FileRec& f = it->second;
      std::vector<ExtentLocs> added;
      absl::Status st = DecodeNewExtents(*this, &d, f.copies(), &added, "resize record");
      if (!st.ok()) return st;
      if (count < f.extents.size() ? !added.empty()
                                   : f.extents.size() + added.size() != count) {
        return Corrupt(fmt::format("resize of file {} to {} extents is inconsistent", file,
                                   count));
      }
      while (f.extents.size() > count) {
        for (uint32_t c = 0; c < f.copies(); ++c) Release(f.extents.back()[c]);
        f.extents.pop_back();
      }
      for (const ExtentLocs& x : added) {
        const uint32_t i = static_cast<uint32_t>(f.extents.size());
        for (uint32_t c = 0; c < f.copies(); ++c) {
          Take(x[c], AuOwner{file, i, static_cast<uint8_t>(c)});
        }
        f.extents.push_back(x);
      }
      f.info.size_bytes = size;
      f.info.modification_time_unix = static_cast<int64_t>(mtime);
      f.info.extents = count;
      break;
    }
    case RecordType::kDeleteFile: {
      uint32_t file = 0;
      if (!d.GetU32(&file)) return d.Truncated("delete record");
      auto it = files.find(file);
      if (it == files.end()) return Corrupt(fmt::format("delete of missing file {}", file));
      for (const ExtentLocs& x : it->second.extents) {
        for (uint32_t c = 0; c < it->second.copies(); ++c) Release(x[c]);
      }
      files.erase(it);
      break;
    }
    case RecordType::kDiskState: {
      uint32_t disk = 0;
      uint8_t online = 0;
      std::string err;
      if (!d.GetU32(&disk) || !d.GetU8(&online) || !d.GetString(&err)) {
        return d.Truncated("disk-state record");
      }
      if (disk >= disks.size()) return Corrupt(fmt::format("state of missing disk {}", disk));
      disks[disk].online = online != 0;
      if (!err.empty() || online == 0) disks[disk].last_error = err;
      break;
    }
    case RecordType::kStale: {
      uint8_t set = 0;
      uint32_t n = 0;
      if (!d.GetU8(&set) || !d.GetU32(&n)) return d.Truncated("stale record");
      if (d.remaining() < uint64_t{n} * 8) return d.Truncated("stale record");
      std::vector<CopyLoc> locs(n);
      for (CopyLoc& l : locs) {
        if (!d.GetU32(&l.disk) || !d.GetU32(&l.au)) return d.Truncated("stale record");
        if (l.disk >= disks.size() || l.au >= disks[l.disk].total_aus) {
          return Corrupt(fmt::format("stale mark of disk {} AU {} out of range", l.disk, l.au));
        }
      }
      for (const CopyLoc& l : locs) {
        // Only owned AUs can be stale; a file freed meanwhile needs no resync.
        if (set != 0 && disks[l.disk].owners[l.au].file != 0) {
          disks[l.disk].stale.insert(l.au);
        } else if (set == 0) {
          disks[l.disk].stale.erase(l.au);
        }
      }
      break;
    }
    default:
      return Corrupt(fmt::format("unknown record type {}", type));
  }
  seq = new_seq;
  return absl::OkStatus();
}

std::vector<uint8_t> Catalog::EncodeCheckpoint(uint32_t version) const {
  Encoder e;
  e.PutU32(kCheckpointMagic);
  e.PutU32(version);
  e.PutU64(seq);
  e.PutString(name);
  e.PutU8(static_cast<uint8_t>(redundancy));
  e.PutU64(au_size);
  e.PutU32(max_partners);
  e.PutU32(next_file);
  e.PutU32(last_incarnation);
  e.PutU32(static_cast<uint32_t>(disks.size()));
  for (const DiskRec& d : disks) {
    e.PutU32(d.ref.cell);
    e.PutU32(d.ref.grid_disk);
    e.PutString(d.name);
    e.PutString(d.failgroup);
    e.PutU64(d.size_bytes);
    e.PutU32(d.total_aus);
    e.PutU8(d.online ? 1 : 0);
    e.PutString(d.last_error);
    e.PutU32(static_cast<uint32_t>(d.partners.size()));
    for (uint32_t p : d.partners) e.PutU32(p);
    e.PutU32(static_cast<uint32_t>(d.stale.size()));
    for (uint32_t au : d.stale) e.PutU32(au);
  }
  e.PutU32(static_cast<uint32_t>(files.size()));
  for (const auto& [num, f] : files) {
    EncodeFileInfo(&e, f.info);
    if (version != kGroupRedundancyCheckpointVersion) EncodeFileRedundancy(&e, f.info);
    EncodeLocs(&e, f.copies(), f.extents);
  }
  e.PutU64(Checksum64(e.data(), kCatalogCheckpointSeed));
  return std::move(e.bytes());
}

absl::StatusOr<Catalog> Catalog::DecodeCheckpoint(absl::Span<const uint8_t> bytes,
                                                  const std::string& what) {
  if (bytes.size() < 16) return Corrupt(fmt::format("{}: {} bytes is too short", what, bytes.size()));
  const auto body = bytes.subspan(0, bytes.size() - 8);
  Decoder tail(bytes.subspan(bytes.size() - 8));
  uint64_t sum = 0;
  (void)tail.GetU64(&sum);
  if (Checksum64(body, kCatalogCheckpointSeed) != sum) {
    return Corrupt(fmt::format("{}: checksum mismatch", what));
  }
  Decoder d(body);
  Catalog c;
  uint32_t magic = 0, version = 0, ndisks = 0, nfiles = 0;
  uint8_t red = 0;
  if (!d.GetU32(&magic) || !d.GetU32(&version)) return d.Truncated(what);
  if (magic != kCheckpointMagic) return Corrupt(fmt::format("{}: bad magic {:#x}", what, magic));
  if (version != kCheckpointVersion && version != kGroupRedundancyCheckpointVersion) {
    return Corrupt(fmt::format("{}: {} {}, this build reads version {}", what,
                               version > kCheckpointVersion ? "newer format version"
                                                            : "unsupported format version",
                               version, kCheckpointVersion));
  }
  if (!d.GetU64(&c.seq) || !d.GetString(&c.name) || !d.GetU8(&red) || !d.GetU64(&c.au_size) ||
      !d.GetU32(&c.max_partners) || !d.GetU32(&c.next_file) ||
      !d.GetU32(&c.last_incarnation) || !d.GetU32(&ndisks)) {
    return d.Truncated(what);
  }
  if (red > 2 || !ValidateAuSize(c.au_size).ok() || ndisks == 0 || ndisks > kMaxDisks) {
    return Corrupt(fmt::format("{}: bad header (redundancy {}, AU {}, {} disks)", what, red,
                               c.au_size, ndisks));
  }
  c.redundancy = static_cast<Redundancy>(red);
  c.disks.resize(ndisks);
  std::vector<std::vector<uint32_t>> stale(ndisks);
  uint64_t group_aus = 0;
  for (uint32_t i = 0; i < ndisks; ++i) {
    DiskRec& r = c.disks[i];
    uint8_t online = 0;
    uint32_t np = 0, ns = 0;
    if (!d.GetU32(&r.ref.cell) || !d.GetU32(&r.ref.grid_disk) || !d.GetString(&r.name) ||
        !d.GetString(&r.failgroup) || !d.GetU64(&r.size_bytes) || !d.GetU32(&r.total_aus) ||
        !d.GetU8(&online) || !d.GetString(&r.last_error) || !d.GetU32(&np)) {
      return d.Truncated(what);
    }
    group_aus += r.total_aus;
    if (np > kMaxPartners || r.total_aus > r.size_bytes / c.au_size ||
        group_aus > kMaxAusPerDiskGroup) {
      return Corrupt(fmt::format(
          "{}: disk {} has bad sizes ({} AUs of {} bytes in {} bytes; a group holds at most {} "
          "AUs) or {} partners",
          what, i, r.total_aus, c.au_size, r.size_bytes, kMaxAusPerDiskGroup, np));
    }
    r.online = online != 0;
    r.partners.resize(np);
    for (uint32_t& p : r.partners) {
      if (!d.GetU32(&p)) return d.Truncated(what);
      if (p >= ndisks) return Corrupt(fmt::format("{}: partner {} out of range", what, p));
    }
    if (!d.GetU32(&ns) || ns > r.total_aus || d.remaining() < uint64_t{ns} * 4) {
      return Corrupt(fmt::format("{}: stale list of disk {} ({} AUs) is malformed", what, i, ns));
    }
    stale[i].resize(ns);
    for (uint32_t& au : stale[i]) {
      if (!d.GetU32(&au)) return d.Truncated(what);
      if (au >= r.total_aus) return Corrupt(fmt::format("{}: stale AU out of range", what));
    }
  }
  c.InitDisks();
  if (!d.GetU32(&nfiles)) return d.Truncated(what);
  for (uint32_t i = 0; i < nfiles; ++i) {
    FileRec f;
    if (!DecodeFileInfo(&d, &f.info)) return d.Truncated(what);
    if (f.info.number < 256 || c.files.count(f.info.number) != 0) {
      return Corrupt(fmt::format("{}: file number {} invalid or repeated", what, f.info.number));
    }
    f.info.redundancy = c.redundancy;
    f.info.copies = c.copies();
    if (version != kGroupRedundancyCheckpointVersion) {
      if (absl::Status st = DecodeFileRedundancy(&d, &f.info, what); !st.ok()) return st;
    }
    absl::Status st = DecodeNewExtents(c, &d, f.copies(), &f.extents, what.c_str());
    if (!st.ok()) return st;
    for (uint32_t x = 0; x < f.extents.size(); ++x) {
      for (uint32_t k = 0; k < f.copies(); ++k) {
        CopyLoc loc = f.extents[x][k];
        DiskRec& r = c.disks[loc.disk];
        // Take() without the offline stale rule: the stale set is restored below.
        r.owners[loc.au] = AuOwner{f.info.number, x, static_cast<uint8_t>(k)};
        ++r.used;
        if (k == 0) ++r.primaries;
      }
    }
    f.info.extents = static_cast<uint32_t>(f.extents.size());
    c.files.emplace(f.info.number, std::move(f));
  }
  if (d.remaining() != 0) return Corrupt(fmt::format("{}: {} trailing bytes", what, d.remaining()));
  for (uint32_t i = 0; i < ndisks; ++i) {
    DiskRec& r = c.disks[i];
    for (uint32_t au : stale[i]) r.stale.insert(au);
    while (r.first_free < r.total_aus && r.owners[r.first_free].file != 0) ++r.first_free;
  }
  return c;
}

std::vector<uint8_t> MakeCreateFileRecord(const FileInfo& info,
                                          absl::Span<const ExtentLocs> extents) {
  Encoder e;
  e.PutU8(static_cast<uint8_t>(RecordType::kCreateFile));
  Catalog::EncodeFileInfo(&e, info);
  EncodeFileRedundancy(&e, info);
  EncodeLocs(&e, info.copies, extents);
  return std::move(e.bytes());
}

std::vector<uint8_t> MakeResizeFileRecord(const Catalog& cat, uint32_t file, uint64_t new_size,
                                          int64_t mtime, uint32_t new_extent_count,
                                          absl::Span<const ExtentLocs> added) {
  Encoder e;
  e.PutU8(static_cast<uint8_t>(RecordType::kResizeFile));
  e.PutU32(file);
  e.PutU64(new_size);
  e.PutU64(static_cast<uint64_t>(mtime));
  e.PutU32(new_extent_count);
  EncodeLocs(&e, cat.files.at(file).copies(), added);
  return std::move(e.bytes());
}

std::vector<uint8_t> MakeDeleteFileRecord(uint32_t file) {
  Encoder e;
  e.PutU8(static_cast<uint8_t>(RecordType::kDeleteFile));
  e.PutU32(file);
  return std::move(e.bytes());
}

std::vector<uint8_t> MakeDiskStateRecord(uint32_t disk, bool online,
                                         const std::string& last_error) {
  Encoder e;
  e.PutU8(static_cast<uint8_t>(RecordType::kDiskState));
  e.PutU32(disk);
  e.PutU8(online ? 1 : 0);
  e.PutString(last_error.substr(0, 1024));
  return std::move(e.bytes());
}

std::vector<uint8_t> MakeStaleRecord(bool set, absl::Span<const CopyLoc> locs) {
  Encoder e;
  e.PutU8(static_cast<uint8_t>(RecordType::kStale));
  e.PutU8(set ? 1 : 0);
  e.PutU32(static_cast<uint32_t>(locs.size()));
  for (const CopyLoc& l : locs) {
    e.PutU32(l.disk);
    e.PutU32(l.au);
  }
  return std::move(e.bytes());
}

}  // namespace cellsim::asmgr::internal
