// Rack: cells and disk groups in one directory.
#include "cellsim/asm/rack.h"
#include "cellsim/asm/rack_meta.h"

#include <sys/statvfs.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <set>
#include <system_error>
#include <utility>

#include "cellsim/base/ascii.h"
#include "cellsim/base/checksum.h"
#include "cellsim/base/units.h"
#include "cellsim/cell/cell.h"
#include "cellsim/io/metadata_copies.h"
#include "fmt/format.h"
#include "fmt/ranges.h"

namespace cellsim::asmgr {
namespace {

constexpr uint32_t kRackMagic = 0x4B434152;  // "RACK"

using base::Upper;

std::string CellName(const RackConfig& c, uint32_t i) {
  return fmt::format("{}{:02}", c.cell_name_prefix, i + 1);
}

// Rack::Create's target: missing, or a directory holding nothing but a lock file.
absl::Status CheckEmptyDir(const std::string& dir) {
  std::error_code ec;
  if (!std::filesystem::exists(dir, ec)) return absl::OkStatus();
  if (!std::filesystem::is_directory(dir, ec)) {
    return absl::AlreadyExistsError(fmt::format("{} exists and is not a directory", dir));
  }
  if (std::filesystem::exists(dir + "/rack.meta0", ec) ||
      std::filesystem::exists(dir + "/rack.meta1", ec)) {
    return absl::AlreadyExistsError(fmt::format("{} already holds a rack", dir));
  }
  std::vector<std::string> found;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name != RackLock::kFileName) found.push_back(name);
  }
  if (ec) return absl::FailedPreconditionError(fmt::format("cannot list {}: {}", dir, ec.message()));
  if (found.empty()) return absl::OkStatus();
  std::sort(found.begin(), found.end());
  return absl::AlreadyExistsError(fmt::format(
      "{} is not empty (it holds {}{}): a rack is created in an empty or missing directory", dir,
      found.front(), found.size() > 1 ? fmt::format(" and {} more", found.size() - 1) : ""));
}

// The space a rack writes for itself and cannot run without: each cell's flash
// metadata (superblocks, two checkpoint areas, the journal) and each disk
// group's checkpoints and journal. Grid disks and flash are sparse and grow
// as data is written; those bytes are the disk groups' own accounting
// (ORA-15041 when they run out), not a reason to refuse the rack.
uint64_t MetadataBytes(const RackConfig& c) {
  const cell::CellConfig defaults;
  const uint64_t per_cell = 2 * defaults.journal_bytes + 4 * kMiB;
  return c.cells * per_cell + c.disk_groups.size() * 2 * kMiB;
}

uint64_t LogicalBytes(const RackConfig& c) {
  uint64_t per_cell = c.flash_size;
  for (const DiskGroupSpec& g : c.disk_groups) per_cell += g.grid_disk_size * c.cell_disks_per_cell;
  return per_cell * c.cells;
}

absl::Status CheckCreateSpace(const std::string& dir, const RackConfig& c) {
  struct statvfs vfs {};
  if (statvfs(dir.c_str(), &vfs) != 0) return absl::OkStatus();  // creation will say
  if (vfs.f_blocks == 0) return absl::OkStatus();  // no size reported (ramfs): creation will say
  const uint64_t avail = static_cast<uint64_t>(vfs.f_bavail) * vfs.f_frsize;
  const uint64_t need = MetadataBytes(c);
  if (avail >= need) return absl::OkStatus();
  return absl::ResourceExhaustedError(fmt::format(
      "{} has {} free; a rack of {} cells and {} disk groups needs {} for its metadata alone "
      "(its sparse grid disks and flash can grow to {}): free space or choose another directory",
      dir, FormatBytes(avail), c.cells, c.disk_groups.size(), FormatBytes(need),
      FormatBytes(LogicalBytes(c))));
}

// Removes what a failed Rack::Create built: everything but the lock file, and
// the directory itself when Create made it.
void RemoveCreated(const std::string& dir, bool made_dir) {
  std::error_code ec;
  if (made_dir) {
    std::filesystem::remove_all(dir, ec);
    return;
  }
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    if (e.path().filename() != RackLock::kFileName) std::filesystem::remove_all(e.path(), ec);
  }
}

// The configuration Rack::Create gives cell `i` (also what replaces a lost
// flash device, and what an absent cell is described by).
cell::CellConfig CellConfigFor(const RackConfig& config, uint32_t i) {
  cell::CellConfig cc;
  cc.name = CellName(config, i);
  cc.cell_disks = config.cell_disks_per_cell;
  cc.grid_disks.clear();
  // Fast creation keeps one template range per extent copy: give the flash
  // metadata room for every AU of the cell twice over (partial re-formats
  // split ranges), so that fast creation never runs out of room before the
  // disk groups run out of space. 16384 (the cell default) at least.
  uint64_t cell_aus = 0;
  for (const DiskGroupSpec& g : config.disk_groups) {
    cc.grid_disks.push_back({Upper(g.name), g.grid_disk_size, g.caching_policy});
    if (g.au_size != 0) cell_aus += g.grid_disk_size / g.au_size * config.cell_disks_per_cell;
  }
  cc.max_template_ranges = static_cast<uint32_t>(
      std::clamp<uint64_t>(2 * cell_aus, cc.max_template_ranges, 1u << 22));
  if (config.flash_size != 0) cc.flash_size_bytes = config.flash_size;
  if (config.cache_line_size != 0) cc.cache_line_size = config.cache_line_size;
  cc.flash_cache_mode = config.flash_cache_mode;
  cc.direct_io = config.direct_io;
  return cc;
}

// Stands in for a cell that cannot be opened: its folder is missing, or its
// flash device is lost (until Open replaces it). Describes the grid disks the
// rack configuration gives the cell as "not present"; every request fails
// with Unavailable naming why, so disk groups take its disks offline.
class AbsentCell final : public cell::CellService {
 public:
  AbsentCell(cell::CellConfig config, std::string reason, bool content_lost)
      : config_(std::move(config)), reason_(std::move(reason)), content_lost_(content_lost) {}

  std::string name() const override { return config_.name; }
  absl::StatusOr<cell::CellDescription> Describe() const override {
    cell::CellDescription d;
    d.name = config_.name;
    d.flash_cache_mode = config_.flash_cache_mode;
    for (const cell::GridDiskSpec& g : config_.grid_disks) {
      for (uint32_t cd = 0; cd < config_.cell_disks; ++cd) {
        d.grid_disks.push_back({cell::GridDiskName(g.prefix, cd, config_.name),
                                cell::CellDiskName(cd, config_.name), g.size_bytes,
                                "not present", reason_, content_lost_});
      }
    }
    d.flash_device = fmt::format("FD_00_{}", config_.name);
    d.flash_size_bytes = config_.flash_size_bytes;
    d.cache_line_size = config_.cache_line_size;
    d.flash_cache_status = content_lost_ ? "lost" : "not present";
    return d;
  }
  absl::Status Read(absl::Span<cell::ReadRequest> r, cell::CellIoStats*) override {
    for (auto& x : r) x.status = Error();
    return Error();
  }
  absl::Status Write(absl::Span<cell::WriteRequest> r, cell::CellIoStats*) override {
    for (auto& x : r) x.status = Error();
    return Error();
  }
  absl::Status FormatRange(absl::Span<cell::FormatRangeRequest> r, cell::CellIoStats*) override {
    for (auto& x : r) x.status = Error();
    return Error();
  }
  absl::StatusOr<cell::FlushProgress> Flush(
      const std::function<void(const cell::FlushProgress&)>&) override {
    return Error();
  }
  // No device answers: no metrics (LIST METRICCURRENT prints none for it).
  absl::StatusOr<std::vector<cell::Metric>> Metrics() const override {
    return std::vector<cell::Metric>{};
  }
  absl::Status SetFlashCacheMode(cell::FlashCacheMode) override { return Error(); }
  absl::Status SetCachingPolicy(const std::string&, cell::CachingPolicy) override {
    return Error();
  }
  absl::StatusOr<std::vector<cell::LostRange>> LostRanges() const override {
    return std::vector<cell::LostRange>{};
  }
  absl::Status Discard(absl::Span<cell::DiscardRequest> r, cell::CellIoStats*) override {
    for (auto& x : r) x.status = Error();
    return Error();
  }

 private:
  absl::Status Error() const {
    return absl::UnavailableError(fmt::format("cell {} is not present: {}", config_.name, reason_));
  }
  cell::CellConfig config_;
  std::string reason_;
  bool content_lost_;
};

}  // namespace

struct Rack::State {
  std::unique_ptr<RackLock> lock;  // first member: released after everything else
  bool read_only = false;
  io::IoBackend* io = nullptr;
  Clock* clock = nullptr;
  std::string dir;
  RackConfig config;
  std::vector<std::string> group_names;  // every disk group, in creation order
  uint64_t meta_seq = 0;
  std::vector<std::unique_ptr<cell::Cell>> cells;  // null where the cell is absent
  std::vector<std::unique_ptr<AbsentCell>> absent;  // Open: the stand-in where cells[i] is null
  std::vector<std::unique_ptr<cell::CellService>> wrapped;  // CellWrapper's, or empty
  std::vector<std::unique_ptr<DiskGroup>> groups;

  cell::CellService* Unwrapped(size_t i) const {
    if (cells.at(i) != nullptr) return cells[i].get();
    return absent.at(i).get();
  }
  cell::CellService* Service(size_t i) const {
    return wrapped.empty() ? Unwrapped(i) : wrapped.at(i).get();
  }
  void Wrap(const CellWrapper& wrap) {
    wrapped.clear();
    if (!wrap) return;
    for (size_t i = 0; i < cells.size(); ++i) {
      wrapped.push_back(wrap(static_cast<uint32_t>(i), Unwrapped(i)));
    }
  }
  DiskGroupEnv Env() const {
    DiskGroupEnv env{.io = io, .clock = clock, .metadata_dir = dir + "/asm", .cells = {},
                     .read_only = read_only};
    for (size_t i = 0; i < cells.size(); ++i) env.cells.push_back(Service(i));
    return env;
  }
  std::vector<std::string> repairs;  // metadata copies rewritten by Open
  std::map<uint32_t, std::string> flash_lost_why;  // by cell: why Open found its flash lost
  std::vector<std::string> MetaPaths() const {
    return {fmt::format("{}/rack.meta0", dir), fmt::format("{}/rack.meta1", dir)};
  }
  [[nodiscard]] absl::Status WriteMeta();
  [[nodiscard]] absl::Status ReadMeta();
  // Opens cell i, or puts an AbsentCell in its place when its folder is
  // missing or its flash is lost (then appended to `lost_flash`).
  [[nodiscard]] absl::Status OpenCell(uint32_t i, std::vector<uint32_t>* lost_flash);
  // FailedPrecondition when no cell folder of the configuration is in `dir`
  // (the wrong folder given, the cells moved away): the rack is refused, not
  // opened with every cell absent (a rack without disk groups had nothing to
  // refuse it).
  [[nodiscard]] absl::Status CheckSomeCellIsThere() const;
  [[nodiscard]] absl::Status MountGroups();
  // Copies a failed write left stale on disks that stayed ONLINE (a full
  // filesystem refuses a write without failing the disk) are rewritten from
  // their current copies, as ASM resyncs a disk that comes back; one that
  // cannot be (still no space) stays stale. Both said in `repairs`.
  void ResyncStaleCopies();
  // Read-write Open of a rack whose cells in `lost_flash` lost their flash:
  // the disk groups have recorded every AU on those cells as stale; now each
  // gets a fresh flash device and its disks are rebuilt from the mirrors.
  [[nodiscard]] absl::Status ReplaceLostFlash(const std::vector<uint32_t>& lost_flash,
                                              const CellWrapper& wrap);
};

absl::Status Rack::State::OpenCell(uint32_t i, std::vector<uint32_t>* lost_flash) {
  const std::string path = dir + "/" + CellName(config, i);
  absl::StatusOr<std::unique_ptr<cell::Cell>> c =
      cell::Cell::Open(io, clock, path, {.read_only = read_only});
  if (c.ok()) {
    for (const std::string& r : (*c)->metadata_repairs()) repairs.push_back(r);
    cells.push_back(*std::move(c));
    absent.push_back(nullptr);
    return absl::OkStatus();
  }
  std::error_code ec;
  std::string reason;
  bool content_lost = false;
  if (!std::filesystem::exists(path, ec)) {
    reason = fmt::format("its folder {} is missing", path);
  } else if (cell::Cell::FlashLost(io, path)) {
    reason = fmt::format("its flash device is lost ({})", std::string(c.status().message()));
    flash_lost_why[i] = std::string(c.status().message());
    content_lost = true;  // dirty lines may have held the only current data
    lost_flash->push_back(i);
  } else {
    return c.status();
  }
  cells.push_back(nullptr);
  absent.push_back(std::make_unique<AbsentCell>(CellConfigFor(config, i), reason, content_lost));
  return absl::OkStatus();
}

absl::Status Rack::State::CheckSomeCellIsThere() const {
  std::error_code ec;
  for (uint32_t i = 0; i < config.cells; ++i) {
    if (std::filesystem::exists(dir + "/" + CellName(config, i), ec)) return absl::OkStatus();
  }
  return absl::FailedPreconditionError(fmt::format(
      "the rack in {0} has none of its {1} cells: its configuration names the folders {0}/{2} "
      "to {0}/{3} and none is there (give the folder the rack was created in, or return its "
      "cells' folders)",
      dir, config.cells, CellName(config, 0), CellName(config, config.cells - 1)));
}

absl::Status Rack::State::MountGroups() {
  const DiskGroupEnv env = Env();
  for (const std::string& n : group_names) {
    absl::StatusOr<std::unique_ptr<DiskGroup>> g = DiskGroup::Open(env, n);
    if (!g.ok()) return g.status();
    for (const std::string& r : (*g)->metadata_repairs()) repairs.push_back(r);
    groups.push_back(*std::move(g));
  }
  return absl::OkStatus();
}

void Rack::State::ResyncStaleCopies() {
  for (auto& g : groups) {
    uint64_t stale = 0;
    for (const DiskView& d : g->Disks()) {
      if (d.mode_status == "ONLINE") stale += d.stale_aus;
    }
    if (stale == 0) continue;
    ResyncResult res;
    if (absl::Status st = g->ResyncStale(&res); !st.ok()) {
      repairs.push_back(fmt::format(
          "{}: {} AU copies a failed write left stale on ONLINE disks stay stale (their extents "
          "run on their other copies): resync failed ({}); free space, then asmcmd online -G {} -a",
          g->name(), stale, std::string(st.message()), g->name()));
      continue;
    }
    repairs.push_back(fmt::format(
        "{}: {} AU copies a failed write left stale on ONLINE disks resynced from their current "
        "copies ({} extent copies, {})",
        g->name(), stale, res.extents_copied, FormatBytes(res.bytes_copied)));
  }
}

absl::Status Rack::State::ReplaceLostFlash(const std::vector<uint32_t>& lost_flash,
                                           const CellWrapper& wrap) {
  for (auto& g : groups) {
    if (absl::Status st = g->Close(); !st.ok()) return st;
  }
  groups.clear();
  wrapped.clear();
  for (uint32_t i : lost_flash) {
    const std::string path = dir + "/" + CellName(config, i);
    absl::StatusOr<std::unique_ptr<cell::Cell>> c =
        cell::Cell::OpenWithNewFlash(io, clock, path, CellConfigFor(config, i));
    if (!c.ok()) return c.status();
    cells[i] = *std::move(c);
    absent[i].reset();
  }
  Wrap(wrap);
  if (absl::Status st = MountGroups(); !st.ok()) return st;
  for (uint32_t i : lost_flash) {
    ResyncResult res;
    std::vector<std::string> left;
    for (auto& g : groups) {
      for (uint32_t d = 0; d < g->disk_count(); ++d) {
        if (g->disk(d).cell != i) continue;
        // A disk that cannot come back (its file missing too) stays OFFLINE.
        if (absl::Status st = g->OnlineDisk(d, &res); !st.ok()) {
          left.push_back(std::string(st.message()));
        }
      }
    }
    repairs.push_back(fmt::format(
        "{}: flash device lost; replaced by a fresh one, {} extents ({}) rebuilt from the "
        "mirrors{}; the lost device: {}",
        CellName(config, i), res.extents_copied, FormatBytes(res.bytes_copied),
        left.empty() ? "" : fmt::format("; left offline: {}", fmt::join(left, "; ")),
        flash_lost_why[i]));
  }
  return absl::OkStatus();
}

RackConfig DefaultRackConfig() {
  RackConfig c;
  c.cells = 3;
  c.cell_disks_per_cell = 12;
  c.disk_groups = {
      {.name = "DATA", .redundancy = Redundancy::kNormal, .au_size = kDefaultAuSize,
       .grid_disk_size = 2 * kGiB},
      {.name = "RECO", .redundancy = Redundancy::kNormal, .au_size = kDefaultAuSize,
       .grid_disk_size = 1 * kGiB},
  };
  c.flash_size = 1 * kGiB;
  c.flash_cache_mode = cell::FlashCacheMode::kWriteBack;
  return c;
}

absl::Status ValidateRackConfig(const RackConfig& c) {
  auto bad = [](const std::string& m) {
    return absl::InvalidArgumentError(fmt::format("rack config: {}", m));
  };
  if (c.cells == 0 || c.cells > 99) return bad(fmt::format("cells = {} is not in 1..99", c.cells));
  if (c.cell_disks_per_cell == 0 || c.cell_disks_per_cell > 99) {
    return bad(fmt::format("cell_disks_per_cell = {} is not in 1..99", c.cell_disks_per_cell));
  }
  if (c.cell_name_prefix.empty()) return bad("empty cell name prefix");
  if (c.max_partners < 1 || c.max_partners > kMaxPartners) {
    return bad(fmt::format("max_partners = {} is not in 1..{}", c.max_partners, kMaxPartners));
  }
  std::set<std::string> names;
  for (const DiskGroupSpec& g : c.disk_groups) {
    const std::string n = Upper(g.name);
    if (n.empty() || !std::isalpha(static_cast<unsigned char>(n[0])) ||
        !std::all_of(n.begin(), n.end(), [](char ch) {
          return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_';
        })) {
      return bad(fmt::format("disk group name '{}' must be letters, digits or '_'", g.name));
    }
    if (!names.insert(n).second) return bad(fmt::format("disk group {} is listed twice", n));
    absl::Status st = ValidateAuSize(g.au_size);
    if (!st.ok()) return bad(fmt::format("disk group {}: {}", n, std::string(st.message())));
    if (g.grid_disk_size == 0 || g.grid_disk_size % g.au_size != 0) {
      return bad(fmt::format("disk group {}: grid disk size {} bytes is not a positive multiple "
                             "of the AU size ({} MiB)", n, g.grid_disk_size, g.au_size >> 20));
    }
    if (c.cells < Copies(g.redundancy)) {
      return bad(fmt::format(
          "disk group {}: {} redundancy needs at least {} failure groups (cells), the rack "
          "has {}", n, RedundancyName(g.redundancy), Copies(g.redundancy), c.cells));
    }
  }
  return absl::OkStatus();
}

static void EncodeConfig(Encoder* e, const RackConfig& c) {
  e->PutU32(c.cells);
  e->PutString(c.cell_name_prefix);
  e->PutU32(c.cell_disks_per_cell);
  e->PutU32(static_cast<uint32_t>(c.disk_groups.size()));
  for (const DiskGroupSpec& g : c.disk_groups) {
    e->PutString(g.name);
    e->PutU8(static_cast<uint8_t>(g.redundancy));
    e->PutU64(g.au_size);
    e->PutU64(g.grid_disk_size);
  }
  e->PutU64(c.flash_size);
  e->PutU32(c.cache_line_size);
  e->PutU8(static_cast<uint8_t>(c.flash_cache_mode));
  e->PutU8(c.direct_io ? 1 : 0);
  e->PutU32(c.max_partners);
}

static bool DecodeConfig(Decoder* d, RackConfig* c) {
  uint32_t ngroups = 0;
  uint8_t mode = 0, direct = 0;
  if (!d->GetU32(&c->cells) || !d->GetString(&c->cell_name_prefix) ||
      !d->GetU32(&c->cell_disks_per_cell) || !d->GetU32(&ngroups) || ngroups > 64) {
    return false;
  }
  c->disk_groups.resize(ngroups);
  for (DiskGroupSpec& g : c->disk_groups) {
    uint8_t red = 0;
    if (!d->GetString(&g.name) || !d->GetU8(&red) || red > 2 || !d->GetU64(&g.au_size) ||
        !d->GetU64(&g.grid_disk_size)) {
      return false;
    }
    g.redundancy = static_cast<Redundancy>(red);
  }
  if (!d->GetU64(&c->flash_size) || !d->GetU32(&c->cache_line_size) || !d->GetU8(&mode) ||
      mode > 1 || !d->GetU8(&direct) || !d->GetU32(&c->max_partners)) {
    return false;
  }
  c->flash_cache_mode = static_cast<cell::FlashCacheMode>(mode);
  c->direct_io = direct != 0;
  return true;
}

// Every copy gets the same newest state, copy 0 then copy 1, each synced
// (io/metadata_copies.h): a damaged copy is always repaired from a current one.
absl::Status Rack::State::WriteMeta() {
  const uint64_t seq = meta_seq + 1;
  const std::vector<uint8_t> bytes =
      internal::EncodeRackMeta({.seq = seq, .config = config, .group_names = group_names});
  if (absl::Status st = io::WriteCopiesInOrder(io, MetaPaths(), bytes); !st.ok()) return st;
  meta_seq = seq;
  return absl::OkStatus();
}

// Reads both copies, takes the newest valid one and rewrites the other when it
// is damaged, torn or older. A version-1 rack wrote the copies in turn (the
// other slot held the previous state), so there a lone valid copy cannot be
// proven newest: refused, naming the damaged file.
absl::Status Rack::State::ReadMeta() {
  std::vector<io::MetadataCopy> copies;
  std::vector<internal::RackMeta> metas(2);
  bool all_current_format = true;
  for (const std::string& path : MetaPaths()) {
    io::MetadataCopy& c = copies.emplace_back();
    c.path = path;
    absl::StatusOr<std::vector<uint8_t>> bytes = io::ReadWholeFile(io, path);
    if (!bytes.ok()) {
      c.status = absl::Status(bytes.status().code(), fmt::format("{}: unreadable: {}", path,
                                                       std::string(bytes.status().message())));
      continue;
    }
    absl::StatusOr<internal::RackMeta> meta = internal::DecodeRackMeta(*bytes, path);
    // A copy written by a newer cellsim: the other copy may be stale, refuse.
    if (meta.status().code() == absl::StatusCode::kFailedPrecondition) return meta.status();
    c.status = meta.status();
    if (!meta.ok()) continue;
    c.sequence = meta->seq;
    c.bytes = *std::move(bytes);
    if (meta->version != internal::kRackMetaVersion) all_current_format = false;
    metas[copies.size() - 1] = *std::move(meta);
  }
  absl::StatusOr<io::CopyChoice> choice = io::ChooseNewestCopy(copies, "rack configuration");
  if (!choice.ok()) {
    return absl::NotFoundError(
        fmt::format("{} holds no valid rack ({})", dir, std::string(choice.status().message())));
  }
  if (!all_current_format) {
    for (const io::MetadataCopy& c : copies) {
      if (c.status.ok()) continue;
      return absl::DataLossError(fmt::format(
          "{} is damaged and the other copy, written by an older cellsim in turn with it, may "
          "hold an older configuration: refusing to open the rack with it ({})",
          c.path, std::string(c.status.message())));
    }
  }
  internal::RackMeta& meta = metas[choice->newest];
  meta_seq = meta.seq;
  config = std::move(meta.config);
  group_names = std::move(meta.group_names);
  if (!all_current_format) return absl::OkStatus();  // rewritten as version 2 at the next change
  if (read_only) {  // a read-only rack repairs nothing, and says what it left
    io::DescribeUnrepairedCopies(copies, *choice, &repairs);
    return absl::OkStatus();
  }
  return io::RepairCopies(io, copies, *choice, &repairs);
}

namespace internal {

std::vector<uint8_t> EncodeRackMeta(const RackMeta& meta) {
  Encoder e;
  e.PutU32(kRackMagic);
  e.PutU32(meta.version);
  e.PutU64(meta.seq);
  EncodeConfig(&e, meta.config);
  e.PutU32(static_cast<uint32_t>(meta.group_names.size()));
  for (const std::string& n : meta.group_names) e.PutString(n);
  e.PutU64(Checksum64(e.data(), kRackMetaSeed));
  return std::move(e.bytes());
}

absl::StatusOr<RackMeta> DecodeRackMeta(absl::Span<const uint8_t> bytes,
                                        const std::string& path) {
  auto bad = [&](const std::string& why) {
    return absl::DataLossError(fmt::format("{}: {}", path, why));
  };
  if (bytes.size() < 24) return bad(fmt::format("too short ({} bytes)", bytes.size()));
  Decoder head(bytes);
  uint32_t magic = 0, version = 0;
  (void)head.GetU32(&magic);
  (void)head.GetU32(&version);
  if (magic != kRackMagic) return bad(fmt::format("bad magic {:#x} (not a rack file)", magic));
  Decoder tail(bytes.subspan(bytes.size() - 8));
  uint64_t sum = 0;
  (void)tail.GetU64(&sum);
  const auto body = bytes.subspan(0, bytes.size() - 8);
  if (Checksum64(body, kRackMetaSeed) != sum) return bad("checksum mismatch");
  // Trusted only under a valid checksum: a damaged version field is damage.
  if (version > kRackMetaVersion) {
    return absl::FailedPreconditionError(fmt::format(
        "{}: newer format version {}, this build reads version {}: use a newer cellsim", path,
        version, kRackMetaVersion));
  }
  if (version < kRackMetaFirstVersion) {
    return bad(fmt::format("unsupported format version {}, this build reads versions {}..{}",
                           version, kRackMetaFirstVersion, kRackMetaVersion));
  }
  Decoder d(body);
  (void)d.Skip(8);
  RackMeta meta;
  meta.version = version;
  uint32_t ngroups = 0;
  if (!d.GetU64(&meta.seq) || !DecodeConfig(&d, &meta.config) || !d.GetU32(&ngroups) ||
      ngroups > 64) {
    return d.Truncated(fmt::format("{}: rack configuration", path));
  }
  for (uint32_t i = 0; i < ngroups; ++i) {
    std::string n;
    if (!d.GetString(&n, 64)) return d.Truncated(fmt::format("{}: disk group names", path));
    meta.group_names.push_back(std::move(n));
  }
  if (d.remaining() != 0) return bad(fmt::format("{} trailing bytes", d.remaining()));
  // The decoded configuration must be one Rack::Create could have written:
  // everything Open does next (cell folders, metadata paths) trusts it.
  if (absl::Status st = ValidateRackConfig(meta.config); !st.ok()) {
    return bad(fmt::format("invalid configuration: {}", std::string(st.message())));
  }
  const std::string& prefix = meta.config.cell_name_prefix;
  if (prefix.size() > 30 || !std::all_of(prefix.begin(), prefix.end(), [](char ch) {
        return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_';
      })) {
    return bad(fmt::format("invalid cell name prefix '{}'", prefix));
  }
  std::set<std::string> seen;
  for (const std::string& n : meta.group_names) {
    const bool name_ok =
        !n.empty() && n.size() <= 30 && std::isupper(static_cast<unsigned char>(n[0])) &&
        std::all_of(n.begin(), n.end(), [](char ch) {
          return std::isupper(static_cast<unsigned char>(ch)) ||
                 std::isdigit(static_cast<unsigned char>(ch)) || ch == '_';
        });
    if (!name_ok || !seen.insert(n).second) {
      return bad(fmt::format("invalid or repeated disk group name '{}'", n));
    }
  }
  return meta;
}

}  // namespace internal

Rack::Rack(std::unique_ptr<State> state) : s_(std::move(state)) {}
Rack::~Rack() = default;

absl::StatusOr<std::unique_ptr<Rack>> Rack::Create(io::IoBackend* io, Clock* clock,
                                                   const std::string& dir,
                                                   const RackConfig& config,
                                                   const RackOpenOptions& options) {
  absl::Status st = ValidateRackConfig(config);
  if (!st.ok()) return st;
  if (options.lock.access != RackAccess::kReadWrite) {
    return absl::InvalidArgumentError("a rack can only be created with write access");
  }
  if (st = CheckEmptyDir(dir); !st.ok()) return st;
  std::error_code ec;
  const bool made_dir = !std::filesystem::exists(dir, ec);
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    return absl::FailedPreconditionError(fmt::format("cannot create {}: {}", dir, ec.message()));
  }
  absl::StatusOr<std::unique_ptr<RackLock>> lock = RackLock::Acquire(dir, options.lock);
  if (!lock.ok()) return lock.status();
  // Another `rack create` may have won the race for the lock.
  if (st = CheckEmptyDir(dir); !st.ok()) return st;
  if (st = CheckCreateSpace(dir, config); !st.ok()) return st;
  absl::StatusOr<std::unique_ptr<Rack>> rack = CreateLocked(io, clock, dir, config, options.wrap);
  if (!rack.ok()) {
    RemoveCreated(dir, made_dir);
    return rack.status();
  }
  (*rack)->s_->lock = *std::move(lock);
  return rack;
}

absl::StatusOr<std::unique_ptr<Rack>> Rack::CreateLocked(io::IoBackend* io, Clock* clock,
                                                         const std::string& dir,
                                                         const RackConfig& config,
                                                         const CellWrapper& wrap) {
  absl::Status st;
  auto s = std::make_unique<State>();
  s->io = io;
  s->clock = clock;
  s->dir = dir;
  s->config = config;
  for (DiskGroupSpec& g : s->config.disk_groups) g.name = Upper(g.name);
  for (uint32_t i = 0; i < config.cells; ++i) {
    const cell::CellConfig cc = CellConfigFor(s->config, i);
    absl::StatusOr<std::unique_ptr<cell::Cell>> c =
        cell::Cell::Create(io, clock, dir + "/" + cc.name, cc);
    if (!c.ok()) return c.status();
    s->cells.push_back(*std::move(c));
  }
  s->Wrap(wrap);
  auto rack = std::unique_ptr<Rack>(new Rack(std::move(s)));
  for (const DiskGroupSpec& g : rack->s_->config.disk_groups) {
    DiskGroupConfig dc{.name = g.name, .redundancy = g.redundancy, .au_size = g.au_size,
                       .disks = {}, .max_partners = config.max_partners};
    for (uint32_t i = 0; i < config.cells; ++i) {
      for (uint32_t cd = 0; cd < config.cell_disks_per_cell; ++cd) {
        absl::StatusOr<uint32_t> idx = rack->s_->cells[i]->GridDiskIndex(
            cell::GridDiskName(g.name, cd, CellName(config, i)));
        if (!idx.ok()) return idx.status();
        dc.disks.push_back(DiskRef{i, *idx});
      }
    }
    absl::StatusOr<DiskGroup*> dg = rack->CreateDiskGroup(dc);
    if (!dg.ok()) return dg.status();
  }
  if (rack->s_->meta_seq == 0) {
    st = rack->s_->WriteMeta();
    if (!st.ok()) return st;
  }
  return rack;
}

absl::StatusOr<std::unique_ptr<Rack>> Rack::Open(io::IoBackend* io, Clock* clock,
                                                 const std::string& dir,
                                                 const RackOpenOptions& options) {
  auto s = std::make_unique<State>();
  absl::StatusOr<std::unique_ptr<RackLock>> lock = RackLock::Acquire(dir, options.lock);
  if (!lock.ok()) return lock.status();
  s->lock = *std::move(lock);
  s->read_only = options.lock.access == RackAccess::kReadOnly;
  s->io = io;
  s->clock = clock;
  s->dir = dir;
  if (absl::Status st = s->ReadMeta(); !st.ok()) return st;
  if (absl::Status st = s->CheckSomeCellIsThere(); !st.ok()) return st;
  std::vector<uint32_t> lost_flash;
  for (uint32_t i = 0; i < s->config.cells; ++i) {
    if (absl::Status st = s->OpenCell(i, &lost_flash); !st.ok()) return st;
  }
  s->Wrap(options.wrap);
  // Disks of absent cells (and missing grid disks) go OFFLINE as far as the
  // redundancy allows (DiskGroup::Open); groups that would lose data refuse.
  if (absl::Status st = s->MountGroups(); !st.ok()) return st;
  if (!lost_flash.empty() && !s->read_only) {
    if (absl::Status st = s->ReplaceLostFlash(lost_flash, options.wrap); !st.ok()) return st;
  }
  if (!s->read_only) s->ResyncStaleCopies();
  return std::unique_ptr<Rack>(new Rack(std::move(s)));
}

absl::Status Rack::Close() {
  absl::Status first;
  for (auto& g : s_->groups) {
    absl::Status st = g->Close();
    if (first.ok()) first = st;
  }
  s_->groups.clear();
  s_->wrapped.clear();  // wrappers before the cells they point to
  for (auto& c : s_->cells) {
    if (c == nullptr) continue;  // absent
    absl::Status st = c->Close();
    if (first.ok()) first = st;
  }
  s_->absent.clear();
  s_->cells.clear();
  s_->lock.reset();
  return first;
}

bool Rack::read_only() const { return s_->read_only; }

const std::string& Rack::dir() const { return s_->dir; }
const RackConfig& Rack::config() const { return s_->config; }
const std::vector<std::string>& Rack::metadata_repairs() const { return s_->repairs; }
io::IoBackend* Rack::io() const { return s_->io; }
Clock* Rack::clock() const { return s_->clock; }
uint32_t Rack::cell_count() const { return static_cast<uint32_t>(s_->cells.size()); }
cell::CellService* Rack::cell(uint32_t i) const { return s_->Service(i); }
cell::Cell* Rack::concrete_cell(uint32_t i) const { return s_->cells.at(i).get(); }
std::string Rack::cell_name(uint32_t i) const { return CellName(s_->config, i); }

absl::StatusOr<DiskGroup*> Rack::disk_group(std::string_view name) const {
  std::string want = Upper(name);
  if (!want.empty() && want[0] == '+') want.erase(0, 1);
  std::string all;
  for (const auto& g : s_->groups) {
    if (g->name() == want) return g.get();
    all += (all.empty() ? "" : ", ") + g->name();
  }
  return absl::NotFoundError(fmt::format("no disk group {} (the rack has: {})", want,
                                         all.empty() ? "none" : all));
}

std::vector<DiskGroup*> Rack::disk_groups() const {
  std::vector<DiskGroup*> out;
  for (const auto& g : s_->groups) out.push_back(g.get());
  return out;
}

absl::StatusOr<DiskGroup*> Rack::CreateDiskGroup(const DiskGroupConfig& config) {
  const std::string name = Upper(config.name);
  for (const auto& g : s_->groups) {
    if (g->name() == name) {
      return absl::AlreadyExistsError(fmt::format("disk group {} already exists", name));
    }
    for (uint32_t i = 0; i < g->disk_count(); ++i) {
      const DiskRef r = g->disk(i);
      if (std::find(config.disks.begin(), config.disks.end(), r) != config.disks.end()) {
        absl::StatusOr<cell::CellDescription> d = s_->cells.at(r.cell)->Describe();
        const std::string disk = d.ok() && r.grid_disk < d->grid_disks.size()
                                     ? d->grid_disks[r.grid_disk].name
                                     : fmt::format("{} of cell {}", r.grid_disk, r.cell);
        return absl::InvalidArgumentError(fmt::format(
            "disk group {}: disk {} is already in disk group {}", name, disk, g->name()));
      }
    }
  }
  absl::StatusOr<std::unique_ptr<DiskGroup>> g = DiskGroup::Create(s_->Env(), config);
  if (!g.ok()) return g.status();
  s_->groups.push_back(*std::move(g));
  s_->group_names.push_back(name);
  absl::Status st = s_->WriteMeta();
  if (!st.ok()) return st;
  return s_->groups.back().get();
}

std::optional<uint32_t> Rack::cell_of_grid_disk(std::string_view grid_disk) const {
  for (uint32_t i = 0; i < s_->cells.size(); ++i) {
    const std::string cell_name = CellName(s_->config, i);
    if (grid_disk.size() > cell_name.size() &&
        Upper(std::string(grid_disk.substr(grid_disk.size() - cell_name.size()))) ==
            Upper(cell_name)) {
      return i;
    }
  }
  return std::nullopt;
}

absl::StatusOr<Rack::GridDiskRef> Rack::FindGridDisk(const std::string& name,
                                                     std::string_view action) const {
  const std::optional<uint32_t> i = cell_of_grid_disk(name);
  if (i) {
    const std::string cell_name = CellName(s_->config, *i);
    cell::Cell* c = s_->cells[*i].get();
    if (c == nullptr) {
      return absl::FailedPreconditionError(fmt::format(
          "cannot {} grid disk {}: cell {} is not present", action, name, cell_name));
    }
    absl::StatusOr<cell::CellDescription> d = c->Describe();
    if (!d.ok()) return d.status();
    for (const cell::GridDiskInfo& g : d->grid_disks) {
      if (Upper(g.name) == Upper(name)) return GridDiskRef{c, cell_name, g.name, g.status};
    }
  }
  return absl::NotFoundError(fmt::format("no grid disk named {} in the rack", name));
}

absl::Status Rack::CreateGridDisk(const std::string& name) {
  absl::StatusOr<GridDiskRef> g = FindGridDisk(name, "create");
  if (!g.ok()) return g.status();
  if (g->status != "not present") {
    return absl::AlreadyExistsError(fmt::format(
        "CELL-02701: grid disk {} already exists and is {} on cell {}", g->name, g->status,
        g->cell_name));
  }
  // ASM first: the new device holds nothing, so every AU a disk group has on
  // it must be rebuilt; recorded before the empty file exists.
  for (auto& group : s_->groups) {
    absl::StatusOr<uint32_t> disk = group->FindDisk(g->name);
    if (!disk.ok()) continue;
    if (absl::Status st = group->MarkDiskReplaced(*disk); !st.ok()) return st;
  }
  return g->cell->CreateGridDisk(g->name);
}

absl::StatusOr<std::string> Rack::SetGridDiskActive(const std::string& name, bool active,
                                                    ResyncResult* result) {
  absl::StatusOr<GridDiskRef> g = FindGridDisk(name, active ? "activate" : "deactivate");
  if (!g.ok()) return g.status();
  if (g->status == "not present") {
    return absl::FailedPreconditionError(fmt::format(
        "grid disk {} of cell {} is not present: CREATE GRIDDISK {} replaces it", g->name,
        g->cell_name, g->name));
  }
  if (active) {
    if (absl::Status st = g->cell->SetGridDiskActive(g->name, true); !st.ok()) return st;
  }
  for (auto& group : s_->groups) {
    absl::StatusOr<uint32_t> disk = group->FindDisk(g->name);
    if (!disk.ok()) continue;
    absl::Status st = active ? group->OnlineDisk(*disk, result) : group->OfflineDisk(*disk);
    if (!st.ok()) {
      return absl::Status(st.code(), fmt::format("grid disk {} cannot be made {}: {}", g->name,
                                                 active ? "active" : "inactive",
                                                 std::string(st.message())));
    }
  }
  if (!active) {
    if (absl::Status st = g->cell->SetGridDiskActive(g->name, false); !st.ok()) return st;
  }
  return g->name;
}

absl::Status Rack::ResyncLostRanges(ResyncResult* result) {
  absl::Status first;
  for (auto& g : s_->groups) {
    absl::Status st = g->ResyncLostRanges(result);
    if (first.ok()) first = st;
  }
  return first;
}

}  // namespace cellsim::asmgr
