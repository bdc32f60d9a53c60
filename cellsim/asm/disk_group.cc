// DiskGroup: creation, mounting, the file directory, views and self-checks.
// I/O is in disk_group_io.cc, maintenance in disk_group_maint.cc.
#include "cellsim/asm/disk_group.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <utility>

#include "cellsim/asm/disk_group_state.h"
#include "cellsim/asm/placement.h"
#include "cellsim/base/ascii.h"
#include "fmt/format.h"
#include "fmt/ranges.h"

namespace cellsim::asmgr {

using internal::Catalog;
using internal::CopyLoc;
using internal::DiskRec;
using internal::ExtentLocs;
using internal::FileRec;

namespace {

using base::Upper;

absl::Status ValidateName(std::string_view what, const std::string& name, size_t max_len) {
  bool ok = !name.empty() && name.size() <= max_len &&
            std::isalpha(static_cast<unsigned char>(name[0]));
  for (char c : name) ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
  if (ok) return absl::OkStatus();
  return absl::InvalidArgumentError(fmt::format(
      "{} '{}' must be 1..{} letters, digits or '_', starting with a letter",
      std::string(what), name, max_len));
}

uint64_t MiB(uint64_t bytes) { return bytes >> 20; }

}  // namespace

absl::Status DiskGroup::State::Commit(std::vector<std::vector<uint8_t>> bodies) {
  if (!broken.ok()) {
    return absl::FailedPreconditionError(
        fmt::format("disk group {} is dismounted after a metadata write error: {}", cat.name,
                    std::string(broken.message())));
  }
  if (bodies.empty()) return absl::OkStatus();
  absl::Status st = store->Append(cat.seq + 1, bodies);
  if (!st.ok()) {
    broken = st;
    return st;
  }
  for (const std::vector<uint8_t>& body : bodies) {
    st = cat.Apply(cat.seq + 1, body);
    if (!st.ok()) {
      broken = st;  // a record we built does not apply: a bug; stop changing things
      return absl::InternalError(std::string(st.message()));
    }
  }
  if (store->journal_bytes() > checkpoint_after) {
    // A failed checkpoint loses nothing (the journal still holds every
    // record); the next commit tries again.
    (void)store->Checkpoint(cat);
  }
  return absl::OkStatus();
}

std::string DiskGroup::State::FileLabel(uint32_t file) const {
  MutexLock lock(&mu);
  auto it = cat.files.find(file);
  return it == cat.files.end() ? fmt::format("file {}", file) : it->second.info.name;
}

DiskGroup::DiskGroup(std::unique_ptr<State> state) : s_(std::move(state)) {}
DiskGroup::~DiskGroup() = default;

absl::StatusOr<std::unique_ptr<DiskGroup>> DiskGroup::Create(const DiskGroupEnv& env,
                                                             const DiskGroupConfig& config) {
  const std::string name = Upper(config.name);
  absl::Status st = ValidateName("disk group name", name, 30);
  if (!st.ok()) return st;
  auto fail = [&](const std::string& msg) {
    return absl::InvalidArgumentError(fmt::format("disk group {}: {}", name, msg));
  };
  st = ValidateAuSize(config.au_size);
  if (!st.ok()) return fail(std::string(st.message()));
  if (config.disks.empty()) return fail("no disks given");
  if (config.max_partners < 1 || config.max_partners > kMaxPartners) {
    return fail(fmt::format("max_partners {} is not in 1..{}", config.max_partners, kMaxPartners));
  }
  if (env.io == nullptr || env.clock == nullptr) return fail("no I/O backend or clock given");
  std::map<uint32_t, cell::CellDescription> described;
  Catalog cat;
  cat.name = name;
  cat.redundancy = config.redundancy;
  cat.au_size = config.au_size;
  cat.max_partners = config.max_partners;
  std::set<std::pair<uint32_t, uint32_t>> seen;
  for (const DiskRef& ref : config.disks) {
    if (ref.cell >= env.cells.size() || env.cells[ref.cell] == nullptr) {
      return fail(fmt::format("cell {} does not exist (the rack has {} cells)", ref.cell,
                              env.cells.size()));
    }
    if (described.count(ref.cell) == 0) {
      absl::StatusOr<cell::CellDescription> d = env.cells[ref.cell]->Describe();
      if (!d.ok()) return d.status();
      described.emplace(ref.cell, *std::move(d));
    }
    const cell::CellDescription& cd = described[ref.cell];
    if (ref.grid_disk >= cd.grid_disks.size()) {
      return fail(fmt::format("grid disk {} of {} does not exist (it has {})", ref.grid_disk,
                              cd.name, cd.grid_disks.size()));
    }
    const cell::GridDiskInfo& gd = cd.grid_disks[ref.grid_disk];
    if (!seen.insert({ref.cell, ref.grid_disk}).second) {
      return fail(fmt::format("disk {} is listed twice", gd.name));
    }
    if (gd.size_bytes < config.au_size) {
      return fail(fmt::format("grid disk {} ({} MiB) is smaller than one AU ({} MiB)", gd.name,
                              MiB(gd.size_bytes), MiB(config.au_size)));
    }
    DiskRec r;
    r.ref = ref;
    r.name = gd.name;
    r.failgroup = Upper(cd.name);
    r.size_bytes = gd.size_bytes;
    r.total_aus = static_cast<uint32_t>(std::min<uint64_t>(gd.size_bytes / config.au_size,
                                                           UINT32_MAX - 1));
    cat.disks.push_back(std::move(r));
  }
  const uint32_t fgs = static_cast<uint32_t>(described.size());
  if (fgs < Copies(config.redundancy)) {
    std::string names;
    for (const auto& [i, cd] : described) names += (names.empty() ? "" : ", ") + cd.name;
    return fail(fmt::format(
        "{} redundancy needs at least {} failure groups, the disks given are in {} ({})",
        RedundancyName(config.redundancy), Copies(config.redundancy), fgs, names));
  }
  uint64_t group_aus = 0;
  for (const DiskRec& r : cat.disks) group_aus += r.total_aus;
  if (group_aus > internal::kMaxAusPerDiskGroup) {
    return fail(fmt::format("its disks hold {} AUs of {} MiB, at most {} are supported: use a "
                            "larger AU size",
                            group_aus, MiB(config.au_size), internal::kMaxAusPerDiskGroup));
  }
  std::vector<uint32_t> fg_of;
  for (const DiskRec& r : cat.disks) fg_of.push_back(r.ref.cell);
  std::vector<std::vector<uint32_t>> partners = internal::ComputePartners(
      fg_of, config.redundancy == Redundancy::kExternal ? 0 : config.max_partners);
  for (size_t i = 0; i < cat.disks.size(); ++i) cat.disks[i].partners = partners[i];
  cat.InitDisks();

  absl::StatusOr<std::unique_ptr<internal::MetaStore>> store =
      internal::MetaStore::Create(env.io, env.metadata_dir, name, cat);
  if (!store.ok()) return store.status();
  auto state = std::make_unique<State>();
  state->env = env;
  state->checkpoint_after = config.checkpoint_after_bytes;
  {
    MutexLock lock(&state->mu);  // no other thread sees the state yet
    state->cat = std::move(cat);
    state->store = *std::move(store);
  }
  return std::unique_ptr<DiskGroup>(new DiskGroup(std::move(state)));
}

absl::StatusOr<std::unique_ptr<DiskGroup>> DiskGroup::Open(const DiskGroupEnv& env,
                                                           const std::string& name_in) {
  const std::string name = Upper(name_in);
  auto state = std::make_unique<State>();
  state->env = env;
  // No other thread sees the state yet; holding mu keeps the catalog's
  // invariant (and the analysis) simple.
  MutexLock lock(&state->mu);
  absl::StatusOr<std::unique_ptr<internal::MetaStore>> store =
      internal::MetaStore::Open(env.io, env.metadata_dir, name, &state->cat, env.read_only);
  if (!store.ok()) return store.status();
  state->store = *std::move(store);
  if (state->cat.name != name) {
    return absl::DataLossError(fmt::format("disk group {}: metadata names group {}", name,
                                           state->cat.name));
  }
  std::map<uint32_t, cell::CellDescription> described;
  for (const DiskRec& r : state->cat.disks) {
    if (r.ref.cell >= env.cells.size() || env.cells[r.ref.cell] == nullptr) {
      return absl::FailedPreconditionError(fmt::format(
          "disk group {}: disk {} is on cell {}, which the rack does not have", name, r.name,
          r.ref.cell));
    }
    if (described.count(r.ref.cell) == 0) {
      absl::StatusOr<cell::CellDescription> d = env.cells[r.ref.cell]->Describe();
      if (!d.ok()) return d.status();
      described.emplace(r.ref.cell, *std::move(d));
    }
    const cell::CellDescription& cd = described[r.ref.cell];
    if (r.ref.grid_disk >= cd.grid_disks.size() ||
        Upper(cd.grid_disks[r.ref.grid_disk].name) != Upper(r.name) ||
        cd.grid_disks[r.ref.grid_disk].size_bytes < uint64_t{r.total_aus} * state->cat.au_size) {
      return absl::FailedPreconditionError(fmt::format(
          "disk group {}: disk {} ({} MiB) is not grid disk {} of {} any more", name, r.name,
          MiB(r.size_bytes), r.ref.grid_disk, cd.name));
    }
  }
  if (absl::Status st = internal::MountWithMissingDisks(*state, described); !st.ok()) return st;
  return std::unique_ptr<DiskGroup>(new DiskGroup(std::move(state)));
}

namespace internal {

// "DATA_CD_00_cel02 (DIR/cel02/DATA_CD_00_cel02.img is missing)"
static std::string MissingLabel(const DiskRec& d, const cell::GridDiskInfo& g) {
  return g.status_reason.empty() ? d.name : fmt::format("{} ({})", d.name, g.status_reason);
}

absl::Status MountWithMissingDisks(DiskGroup::State& s,
                                   const std::map<uint32_t, cell::CellDescription>& described) {
  Catalog& cat = s.cat;
  std::vector<bool> missing(cat.disks.size()), lost(cat.disks.size());
  std::set<uint32_t> missing_fgs;
  std::vector<std::string> labels;
  for (uint32_t i = 0; i < cat.disks.size(); ++i) {
    const DiskRec& d = cat.disks[i];
    const cell::GridDiskInfo& g = described.at(d.ref.cell).grid_disks[d.ref.grid_disk];
    missing[i] = g.status == "not present";
    lost[i] = g.content_lost;
    if (!missing[i] && !lost[i]) continue;
    missing_fgs.insert(d.ref.cell);
    labels.push_back(fmt::format("ORA-15042: ASM disk \"{}\" is missing from group \"{}\": {}",
                                 d.name, cat.name, MissingLabel(d, g)));
  }
  if (labels.empty()) return absl::OkStatus();
  constexpr std::string_view kReturnThem =
      "return the missing files, and damaged ones as they were (nothing is recreated in "
      "their place)";
  const std::string head = fmt::format(
      "ORA-15017: diskgroup \"{}\" cannot be mounted\nORA-15040: diskgroup is incomplete\n",
      cat.name);
  if (missing_fgs.size() >= cat.copies()) {
    return absl::FailedPreconditionError(fmt::format(
        "{}{}\n{} redundancy keeps {} cop{} of every extent; disks of {} failure group{} are "
        "missing: {}",
        head, fmt::join(labels, "\n"), RedundancyName(cat.redundancy), cat.copies(),
        cat.copies() == 1 ? "y" : "ies", missing_fgs.size(), missing_fgs.size() == 1 ? "" : "s",
        kReturnThem));
  }
  // Every extent needs a current copy on a present disk.
  for (const auto& [number, f] : cat.files) {
    for (size_t x = 0; x < f.extents.size(); ++x) {
      bool current = false;
      for (uint32_t c = 0; c < f.copies(); ++c) {
        const CopyLoc l = f.extents[x][c];
        const DiskRec& d = cat.disks[l.disk];
        current |= !missing[l.disk] && !lost[l.disk] && d.online && d.stale.count(l.au) == 0;
      }
      if (!current) {
        return absl::FailedPreconditionError(fmt::format(
            "{}{}\nextent {} of {} has no current copy on a present disk: {}", head,
            fmt::join(labels, "\n"), x, f.info.name, kReturnThem));
      }
    }
  }
  std::vector<std::vector<uint8_t>> bodies;
  std::vector<CopyLoc> rebuild;
  for (uint32_t i = 0; i < cat.disks.size(); ++i) {
    const DiskRec& d = cat.disks[i];
    if (!missing[i] && !lost[i]) continue;
    if (d.online) {
      const cell::GridDiskInfo& g = described.at(d.ref.cell).grid_disks[d.ref.grid_disk];
      bodies.push_back(MakeDiskStateRecord(
          i, false, fmt::format("not present at mount: {}", MissingLabel(d, g))));
    }
    if (!lost[i]) continue;
    for (uint32_t au = 0; au < d.total_aus; ++au) {  // nothing on it can be trusted
      if (d.owners[au].file != 0 && d.stale.count(au) == 0) rebuild.push_back(CopyLoc{i, au});
    }
  }
  if (!rebuild.empty()) bodies.push_back(MakeStaleRecord(true, rebuild));
  if (!s.env.read_only) return s.Commit(std::move(bodies));
  for (const std::vector<uint8_t>& body : bodies) {  // read-only: in memory only
    if (absl::Status st = cat.Apply(cat.seq + 1, body); !st.ok()) return st;
  }
  return absl::OkStatus();
}

}  // namespace internal

absl::Status DiskGroup::Close() {
  WriterMutexLock io_lock(&s_->io_mu);
  MutexLock lock(&s_->mu);
  absl::Status st = s_->env.read_only ? absl::OkStatus()
                    : s_->broken.ok() ? s_->store->Checkpoint(s_->cat)
                                      : s_->broken;
  absl::Status close = s_->store->Close();
  return st.ok() ? close : st;
}

const std::string& DiskGroup::name() const { return s_->fixed().name; }
Redundancy DiskGroup::redundancy() const { return s_->fixed().redundancy; }
uint64_t DiskGroup::au_size() const { return s_->fixed().au_size; }
uint32_t DiskGroup::disk_count() const { return static_cast<uint32_t>(s_->fixed().disks.size()); }
DiskRef DiskGroup::disk(uint32_t index) const { return s_->fixed().disks.at(index).ref; }
std::vector<uint32_t> DiskGroup::Partners(uint32_t index) const {
  return s_->fixed().disks.at(index).partners;
}
cell::CellService* DiskGroup::cell(uint32_t i) const { return s_->env.cells.at(i); }
uint32_t DiskGroup::cell_count() const { return static_cast<uint32_t>(s_->env.cells.size()); }
uint64_t DiskGroup::metadata_sequence() const {
  MutexLock lock(&s_->mu);
  return s_->cat.seq;
}

std::vector<std::string> DiskGroup::metadata_repairs() const {
  MutexLock lock(&s_->mu);
  return s_->store->repairs();
}

absl::StatusOr<uint32_t> DiskGroup::FindDisk(std::string_view grid_disk_name) const {
  const std::string want = Upper(grid_disk_name);
  const Catalog& cat = s_->fixed();
  for (uint32_t i = 0; i < cat.disks.size(); ++i) {
    if (Upper(cat.disks[i].name) == want) return i;
  }
  return absl::NotFoundError(fmt::format("disk group {} has no disk {}", cat.name,
                                         std::string(grid_disk_name)));
}

// ------------------------------------------------------------------- files

namespace {

absl::Status ValidateSpec(const FileSpec& spec) {
  absl::Status st = ValidateName("database name", Upper(spec.db_name), 30);
  if (!st.ok()) return st;
  if (spec.tag.empty() || spec.tag.size() > 64 ||
      spec.tag.find_first_of("/.+ ") != std::string::npos) {
    return absl::InvalidArgumentError(fmt::format(
        "file tag '{}' must be 1..64 characters without '/', '.', '+' or spaces", spec.tag));
  }
  if (spec.size_bytes == 0 || spec.size_bytes % 512 != 0) {
    return absl::InvalidArgumentError(fmt::format(
        "file size {} bytes is not a positive multiple of 512", spec.size_bytes));
  }
  return absl::OkStatus();
}

}  // namespace

// "Usable free" is free raw / the file's copies: what that file could still take.
static absl::Status NoSpace(const Catalog& cat, const std::string& what, uint64_t extents,
                            uint32_t copies) {
  const uint64_t free_raw = cat.FreeAus() * cat.au_size;
  return absl::ResourceExhaustedError(fmt::format(
      "disk group {} has {} MiB usable free ({} MiB raw, {} redundancy), {} MiB requested{}",
      cat.name, MiB(free_raw / copies), MiB(free_raw), RedundancyName(cat.redundancy),
      MiB(extents * cat.au_size), what));
}

absl::StatusOr<FileInfo> DiskGroup::CreateFile(const FileSpec& spec_in) {
  FileSpec spec = spec_in;
  spec.db_name = Upper(spec.db_name);
  absl::Status st = ValidateSpec(spec);
  if (!st.ok()) return st;
  MutexLock lock(&s_->mu);
  Catalog& cat = s_->cat;
  const uint64_t count = (spec.size_bytes + cat.au_size - 1) / cat.au_size;
  const uint32_t number = cat.next_file;
  FileInfo info;
  info.redundancy = TemplateRedundancy(cat.redundancy, spec.type);
  info.copies = cat.PlacedCopiesFor(info.redundancy);
  absl::StatusOr<std::vector<ExtentLocs>> plan =
      internal::PlanExtents(cat, count, number, info.copies);
  if (!plan.ok()) {
    return NoSpace(cat,
                   fmt::format(" for +{}/{}/{}/{}", cat.name, spec.db_name,
                               std::string(FileTypeName(spec.type)), spec.tag),
                   count, info.copies);
  }
  info.number = number;
  const int64_t now = s_->env.clock->UnixSeconds();
  info.incarnation = std::max<uint32_t>(cat.last_incarnation + 1,
                                        static_cast<uint32_t>(std::max<int64_t>(now, 1)));
  info.name = AsmFileName(cat.name, spec, number, info.incarnation);
  info.db_name = spec.db_name;
  info.type = spec.type;
  info.tag = spec.tag;
  info.size_bytes = spec.size_bytes;
  info.block_size = spec.block_size;
  info.creation_time_unix = info.modification_time_unix = now;
  std::vector<std::vector<uint8_t>> bodies;
  bodies.push_back(internal::MakeCreateFileRecord(info, *plan));
  st = s_->Commit(std::move(bodies));
  if (!st.ok()) return st;
  return cat.files.at(number).info;
}

absl::StatusOr<FileInfo> DiskGroup::ResizeFile(uint32_t file, uint64_t new_size) {
  if (new_size == 0 || new_size % 512 != 0) {
    return absl::InvalidArgumentError(fmt::format(
        "file size {} bytes is not a positive multiple of 512", new_size));
  }
  // A shrink frees the extents past the new end: as DeleteFile, exclusive I/O
  // until the cells have forgotten those AUs, so no write of a file that
  // reuses them comes before the discards.
  WriterMutexLock io_lock(&s_->io_mu);
  std::vector<std::pair<uint32_t, cell::DiscardRequest>> discards;
  FileInfo info;
  {
    MutexLock lock(&s_->mu);
    Catalog& cat = s_->cat;
    auto it = cat.files.find(file);
    if (it == cat.files.end()) {
      return absl::NotFoundError(fmt::format("disk group {} has no file {}", cat.name, file));
    }
    const uint64_t old_count = it->second.extents.size();
    const uint64_t count = (new_size + cat.au_size - 1) / cat.au_size;
    std::vector<ExtentLocs> added;
    if (count > old_count) {
      absl::StatusOr<std::vector<ExtentLocs>> plan =
          internal::PlanExtents(cat, count - old_count, file + old_count, it->second.copies());
      if (!plan.ok()) {
        return NoSpace(cat,
                       fmt::format(" to grow {} to {} MiB", it->second.info.name, MiB(new_size)),
                       count - old_count, it->second.copies());
      }
      added = *std::move(plan);
    } else if (count < old_count) {
      FileRec freed{.info = it->second.info,
                    .extents = std::vector<ExtentLocs>(
                        it->second.extents.begin() + static_cast<ptrdiff_t>(count),
                        it->second.extents.end())};
      discards = internal::DiscardRequestsFor(*s_, freed);
    }
    std::vector<std::vector<uint8_t>> bodies;
    bodies.push_back(internal::MakeResizeFileRecord(cat, file, new_size,
                                                    s_->env.clock->UnixSeconds(),
                                                    static_cast<uint32_t>(count), added));
    if (absl::Status st = s_->Commit(std::move(bodies)); !st.ok()) return st;
    info = cat.files.at(file).info;
  }
  internal::DiscardCopies(s_->env, std::move(discards));
  return info;
}

absl::Status DiskGroup::DeleteFile(uint32_t file) {
  // Exclusive I/O until the cells have forgotten the freed AUs: no write of a
  // file that reuses them can come before the discards (issue 11).
  WriterMutexLock io_lock(&s_->io_mu);
  std::vector<std::pair<uint32_t, cell::DiscardRequest>> discards;
  {
    MutexLock lock(&s_->mu);
    auto it = s_->cat.files.find(file);
    if (it == s_->cat.files.end()) {
      return absl::NotFoundError(fmt::format("disk group {} has no file {}", s_->cat.name, file));
    }
    discards = internal::DiscardRequestsFor(*s_, it->second);
    std::vector<std::vector<uint8_t>> bodies;
    bodies.push_back(internal::MakeDeleteFileRecord(file));
    if (absl::Status st = s_->Commit(std::move(bodies)); !st.ok()) return st;
  }
  internal::DiscardCopies(s_->env, std::move(discards));
  return absl::OkStatus();
}

absl::StatusOr<FileInfo> DiskGroup::LookupFile(uint32_t file) const {
  MutexLock lock(&s_->mu);
  auto it = s_->cat.files.find(file);
  if (it == s_->cat.files.end()) {
    return absl::NotFoundError(fmt::format("disk group {} has no file {}", s_->cat.name, file));
  }
  return it->second.info;
}

absl::StatusOr<FileInfo> DiskGroup::LookupFile(std::string_view name) const {
  const std::string want = Upper(name);
  MutexLock lock(&s_->mu);
  for (const auto& [n, f] : s_->cat.files) {
    if (Upper(f.info.name) == want) return f.info;
  }
  return absl::NotFoundError(fmt::format("disk group {} has no file {}", s_->cat.name,
                                         std::string(name)));
}

std::vector<FileInfo> DiskGroup::ListFiles() const {
  MutexLock lock(&s_->mu);
  std::vector<FileInfo> out;
  for (const auto& [n, f] : s_->cat.files) out.push_back(f.info);
  return out;
}

absl::StatusOr<std::vector<Extent>> DiskGroup::ExtentMap(uint32_t file, uint64_t file_offset,
                                                         uint64_t length) const {
  MutexLock lock(&s_->mu);
  const Catalog& cat = s_->catalog();
  auto it = cat.files.find(file);
  if (it == cat.files.end()) {
    return absl::NotFoundError(fmt::format("disk group {} has no file {}", cat.name, file));
  }
  const FileRec& f = it->second;
  std::vector<Extent> out;
  const uint64_t end = length > f.info.size_bytes ? f.info.size_bytes
                                                  : std::min(f.info.size_bytes, file_offset + length);
  for (uint64_t x = file_offset / cat.au_size; x < f.extents.size(); ++x) {
    const uint64_t off = x * cat.au_size;
    if (off >= end) break;
    Extent e;
    e.index = static_cast<uint32_t>(x);
    e.file_offset = off;
    e.length = s_->ExtentLength(f, e.index);
    for (uint32_t c = 0; c < f.copies(); ++c) {
      const CopyLoc l = f.extents[x][c];
      const DiskRec& d = cat.disks[l.disk];
      e.copies.push_back(ExtentCopy{.disk = l.disk,
                                    .cell = d.ref.cell,
                                    .grid_disk = d.ref.grid_disk,
                                    .disk_offset = s_->AuOffset(l.au),
                                    .stale = d.stale.count(l.au) != 0,
                                    .online = d.online});
    }
    out.push_back(std::move(e));
  }
  return out;
}

// ------------------------------------------------------------------- views

static SpaceInfo SpaceOf(const Catalog& cat) {
  SpaceInfo s;
  uint64_t total = 0;
  std::map<uint32_t, uint64_t> per_fg;
  for (const DiskRec& d : cat.disks) {
    total += uint64_t{d.total_aus} * cat.au_size;
    per_fg[d.ref.cell] += uint64_t{d.total_aus} * cat.au_size;
  }
  s.total_mb = MiB(total);
  s.free_mb = MiB(cat.FreeAus() * cat.au_size);
  if (cat.copies() > 1) {
    for (const auto& [fg, bytes] : per_fg) s.required_mirror_free_mb = std::max(s.required_mirror_free_mb, MiB(bytes));
  }
  s.usable_file_mb = (static_cast<int64_t>(s.free_mb) -
                      static_cast<int64_t>(s.required_mirror_free_mb)) /
                     static_cast<int64_t>(cat.copies());
  return s;
}

SpaceInfo DiskGroup::Space() const {
  MutexLock lock(&s_->mu);
  return SpaceOf(s_->cat);
}

DiskGroupView DiskGroup::View() const {
  MutexLock lock(&s_->mu);
  const Catalog& cat = s_->catalog();
  DiskGroupView v;
  v.name = cat.name;
  v.state = s_->broken.ok() ? "MOUNTED" : "DISMOUNTED";
  v.redundancy = cat.redundancy;
  v.au_size = cat.au_size;
  v.space = SpaceOf(cat);
  std::set<uint32_t> fgs;
  for (const DiskRec& d : cat.disks) {
    if (!d.online) ++v.offline_disks;
    fgs.insert(d.ref.cell);
  }
  v.disks = static_cast<uint32_t>(cat.disks.size());
  v.failure_groups = static_cast<uint32_t>(fgs.size());
  v.files = static_cast<uint32_t>(cat.files.size());
  v.bad_blocks_repaired = s_->bad_blocks_repaired.load();
  return v;
}

std::vector<DiskView> DiskGroup::Disks() const {
  MutexLock lock(&s_->mu);
  const Catalog& cat = s_->catalog();
  std::vector<DiskView> out;
  // Disks holding the only current copy of some extent: one pass for all.
  std::vector<bool> sole(cat.disks.size(), false);
  cat.ForEachSoleCurrentCopy([&](uint32_t disk, uint32_t, uint64_t) {
    sole[disk] = true;
    return true;
  });
  for (uint32_t i = 0; i < cat.disks.size(); ++i) {
    const DiskRec& d = cat.disks[i];
    DiskView v;
    v.index = i;
    v.name = d.name;
    v.failgroup = d.failgroup;
    v.path = fmt::format("o/{}/{}", base::Lower(d.failgroup), d.name);
    v.cell = d.ref.cell;
    v.grid_disk = d.ref.grid_disk;
    v.mode_status = d.online ? "ONLINE" : "OFFLINE";
    v.total_mb = MiB(uint64_t{d.total_aus} * cat.au_size);
    v.free_mb = MiB(uint64_t{d.total_aus - d.used} * cat.au_size);
    v.total_aus = d.total_aus;
    v.allocated_aus = d.used;
    v.primary_aus = d.primaries;
    v.stale_aus = d.stale.size();
    v.partners = d.partners;
    v.last_error = d.last_error;
    v.can_offline = !d.online || (!sole[i] && cat.PartnerOfflineAllowed(i));
    out.push_back(std::move(v));
  }
  return out;
}

std::vector<FileView> DiskGroup::Files() const {
  MutexLock lock(&s_->mu);
  const Catalog& cat = s_->catalog();
  std::vector<FileView> out;
  for (const auto& [n, f] : cat.files) {
    FileView v;
    v.type = std::string(FileTypeName(f.info.type));
    v.redundancy = std::string(FileRedundancyName(f.info.redundancy));
    v.striped = std::string(TemplateStripe(f.info.type));
    v.copies = f.copies();
    v.redundancy_lowered = f.info.redundancy_lowered();
    v.time_unix = f.info.modification_time_unix;
    v.name = f.info.name;
    v.bytes = f.info.size_bytes;
    v.block_size = f.info.block_size;
    v.space = uint64_t{f.info.extents} * cat.au_size * f.copies();
    out.push_back(std::move(v));
  }
  return out;
}

std::vector<TemplateView> DiskGroup::Templates() const {
  return SystemTemplates(s_->fixed().redundancy);
}

absl::Status DiskGroup::CheckConsistency() const {
  MutexLock lock(&s_->mu);
  const Catalog& cat = s_->catalog();
  auto breach = [&](const std::string& msg) {
    return absl::InternalError(fmt::format("disk group {}: {}", cat.name, msg));
  };
  std::vector<std::vector<uint8_t>> seen(cat.disks.size());
  for (size_t i = 0; i < cat.disks.size(); ++i) seen[i].assign(cat.disks[i].total_aus, 0);
  for (const auto& [num, f] : cat.files) {
    if (f.extents.size() != (f.info.size_bytes + cat.au_size - 1) / cat.au_size) {
      return breach(fmt::format("{} has {} extents for {} bytes", f.info.name, f.extents.size(),
                                f.info.size_bytes));
    }
    for (uint32_t x = 0; x < f.extents.size(); ++x) {
      std::set<uint32_t> fgs;
      for (uint32_t c = 0; c < f.copies(); ++c) {
        const CopyLoc l = f.extents[x][c];
        if (l.disk >= cat.disks.size() || l.au >= cat.disks[l.disk].total_aus) {
          return breach(fmt::format("{} extent {} copy {} out of range", f.info.name, x, c));
        }
        const DiskRec& d = cat.disks[l.disk];
        if (seen[l.disk][l.au]++ != 0) {
          return breach(fmt::format("AU {} of {} is used twice", l.au, d.name));
        }
        const internal::AuOwner& o = d.owners[l.au];
        if (o.file != num || o.extent != x || o.copy != c) {
          return breach(fmt::format("AU {} of {} not recorded as {} extent {} copy {}", l.au,
                                    d.name, f.info.name, x, c));
        }
        if (!fgs.insert(d.ref.cell).second) {
          return breach(fmt::format("{} extent {} has two copies in failure group {}",
                                    f.info.name, x, d.failgroup));
        }
        if (c > 0) {
          const auto& p = cat.disks[f.extents[x][0].disk].partners;
          if (std::find(p.begin(), p.end(), l.disk) == p.end()) {
            return breach(fmt::format("{} extent {} copy {} on {} is not a partner of {}",
                                      f.info.name, x, c, d.name,
                                      cat.disks[f.extents[x][0].disk].name));
          }
        }
      }
    }
  }
  for (size_t i = 0; i < cat.disks.size(); ++i) {
    const DiskRec& d = cat.disks[i];
    uint32_t used = 0;
    for (uint32_t au = 0; au < d.total_aus; ++au) {
      if (d.owners[au].file != 0 && seen[i][au] == 0) {
        return breach(fmt::format("AU {} of {} is leaked (owned by no extent)", au, d.name));
      }
      used += seen[i][au];
    }
    if (used != d.used) return breach(fmt::format("{} counts {} used AUs, has {}", d.name, d.used, used));
    for (uint32_t au : d.stale) {
      if (d.owners[au].file == 0) return breach(fmt::format("free AU {} of {} is stale", au, d.name));
    }
    if (d.partners.size() > kMaxPartners) return breach(fmt::format("{} has {} partners", d.name, d.partners.size()));
    for (uint32_t p : d.partners) {
      if (cat.disks[p].ref.cell == d.ref.cell) {
        return breach(fmt::format("{} partners {} in its own failure group", d.name, cat.disks[p].name));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace cellsim::asmgr
