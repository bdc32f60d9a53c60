// Cell lifecycle, description, metrics, mode switches and flash loss; the
// public Cell forwards to CellImpl.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <string_view>

#include <fcntl.h>
#include <unistd.h>

#include "cellsim/cell/cell_impl.h"

namespace cellsim::cell {

std::string CellDiskName(uint32_t cell_disk, std::string_view cell) {
  return fmt::format("CD_{:02d}_{}", cell_disk, cell);
}

std::string GridDiskName(std::string_view prefix, uint32_t cell_disk, std::string_view cell) {
  return fmt::format("{}_{}", prefix, CellDiskName(cell_disk, cell));
}

std::string GridDiskFileName(std::string_view grid_disk) {
  return fmt::format("{}.img", grid_disk);
}

std::string_view FlashCacheModeName(FlashCacheMode m) {
  return m == FlashCacheMode::kWriteBack ? "WriteBack" : "WriteThrough";
}

std::string_view CachingPolicyName(CachingPolicy p) {
  return p == CachingPolicy::kNone ? "none" : "default";
}

CellIoStats& CellIoStats::operator+=(const CellIoStats& o) {
  flash_cache_writes += o.flash_cache_writes;
  flash_cache_overwrites += o.flash_cache_overwrites;
  flash_cache_partial_writes += o.flash_cache_partial_writes;
  flash_cache_read_hits += o.flash_cache_read_hits;
  generated_reads += o.generated_reads;
  generated_bytes += o.generated_bytes;
  bytes_saved_by_creation += o.bytes_saved_by_creation;
  disk_bytes_written += o.disk_bytes_written;
  disk_bytes_read += o.disk_bytes_read;
  flash_bytes_written += o.flash_bytes_written;
  flash_bytes_read += o.flash_bytes_read;
  metadata_bytes_written += o.metadata_bytes_written;
  return *this;
}

absl::Status CellConfig::Validate() const {
  auto bad = [&](std::string what) {
    return absl::InvalidArgumentError(fmt::format("cell {}: {}", name, what));
  };
  if (name.empty() || name.size() > 32 ||
      !std::all_of(name.begin(), name.end(), [](char c) { return std::isalnum(c) || c == '_'; })) {
    return absl::InvalidArgumentError(fmt::format(
        "cell name '{}' must be 1..32 letters, digits or '_'", name));
  }
  if (cell_disks < 1 || cell_disks > 99) {
    return bad(fmt::format("cell disk count {} is not in 1..99", cell_disks));
  }
  if (grid_disks.empty()) return bad("no grid disk kinds (e.g. {\"DATA\", size}) configured");
  if (cache_line_size < internal::kPage || cache_line_size > 256 * kKiB ||
      (cache_line_size & (cache_line_size - 1)) != 0) {
    return bad(fmt::format("cache line size {} is not a power of two in 4 KiB..256 KiB",
                           cache_line_size));
  }
  for (size_t i = 0; i < grid_disks.size(); ++i) {
    const GridDiskSpec& g = grid_disks[i];
    if (g.prefix.empty() || g.prefix.size() > 16 ||
        !std::all_of(g.prefix.begin(), g.prefix.end(),
                     [](char c) { return std::isupper(c) || std::isdigit(c); })) {
      return bad(fmt::format("grid disk prefix '{}' must be 1..16 upper-case letters or digits",
                             g.prefix));
    }
    for (size_t j = 0; j < i; ++j) {
      if (grid_disks[j].prefix == g.prefix) {
        return bad(fmt::format("grid disk prefix '{}' appears twice", g.prefix));
      }
    }
    if (g.size_bytes == 0 || g.size_bytes % kMiB != 0) {
      return bad(fmt::format("grid disk {} size {} is not a positive multiple of 1 MiB",
                             g.prefix, g.size_bytes));
    }
  }
  const size_t disks = size_t{cell_disks} * grid_disks.size();
  if (!caching_policies.empty() && caching_policies.size() != disks) {
    return bad(fmt::format("{} caching policies for {} grid disks", caching_policies.size(),
                           disks));
  }
  for (CachingPolicy p : caching_policies) {
    if (p != CachingPolicy::kDefault && p != CachingPolicy::kNone) {
      return bad(fmt::format("caching policy {} is not default (0) or none (1)",
                             static_cast<int>(p)));
    }
  }
  if (flash_size_bytes % internal::kPage != 0) {
    return bad(fmt::format("flash size {} is not a multiple of 4096", flash_size_bytes));
  }
  if (!(destage_low_watermark >= 0 && destage_low_watermark < destage_high_watermark &&
        destage_high_watermark <= 1.0)) {
    return bad(fmt::format("destage watermarks low={} high={} must satisfy 0 <= low < high <= 1",
                           destage_low_watermark, destage_high_watermark));
  }
  if (write_bypass_bytes == 0) return bad("write bypass threshold must be > 0");
  if (journal_bytes < 64 * kKiB) {
    return bad(fmt::format("journal of {} bytes is below the 64 KiB minimum", journal_bytes));
  }
  if (max_template_ranges == 0 || max_lost_ranges == 0) {
    return bad("max_template_ranges and max_lost_ranges must be > 0");
  }
  return absl::OkStatus();
}

namespace internal {

namespace {
constexpr const char* kFlashFile = "flash.img";
}  // namespace

CellImpl::CellImpl(io::IoBackend* io, Clock* clock, std::string dir)
    : io_(io), clock_(clock), dir_(std::move(dir)) {}

CellImpl::~CellImpl() { StopCleaner(); }

std::string CellImpl::GridDiskName(uint32_t disk) const {
  const uint32_t kind = disk / config_.cell_disks, cd = disk % config_.cell_disks;
  return cell::GridDiskName(config_.grid_disks[kind].prefix, cd, config_.name);
}

absl::StatusOr<uint32_t> CellImpl::GridDiskIndex(const std::string& name) const {
  for (uint32_t d = 0; d < disks_.size(); ++d) {
    if (GridDiskName(d) == name) return d;
  }
  return absl::NotFoundError(fmt::format("cell {} has no grid disk named {}", config_.name, name));
}

std::optional<CellImpl::Absence> CellImpl::ProbeGridDisk(const std::string& path, uint64_t size,
                                                          uint32_t disk) const {
  // A lost device (missing), or a file of the wrong size (truncated, or
  // another file in its place, whose bytes are not trusted): the cell opens
  // without it ("not present"), nothing is changed or recreated in its
  // place, and ASM serves its extents from the mirrors (rebuilding a
  // damaged disk's whole content when it is replaced or put right).
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return Absence{fmt::format("{} is missing", path)};
  const uintmax_t found = std::filesystem::file_size(path, ec);
  if (ec || found == size) return std::nullopt;  // an unreadable size: Open says why
  return Absence{fmt::format("{} is damaged: its size is {} bytes, expected {} (truncated, or "
                             "another file in its place); CREATE GRIDDISK {} replaces it",
                             path, found, size, GridDiskName(disk)),
                 /*damaged=*/true};
}

absl::Status CellImpl::AttachGridDisks(bool create) {
  const uint32_t n = config_.cell_disks * static_cast<uint32_t>(config_.grid_disks.size());
  for (uint32_t d = 0; d < n; ++d) {
    const uint64_t size = config_.grid_disks[d / config_.cell_disks].size_bytes;
    const std::string path = dir_ + "/" + GridDiskFileName(GridDiskName(d));
    const io::BlockFileOptions options{
        .block_size = kPage, .block_count = size / kPage, .direct = config_.direct_io,
        .read_only = read_only_ && !create};
    if (std::optional<Absence> absence = create ? std::nullopt : ProbeGridDisk(path, size, d)) {
      disks_.push_back(nullptr);
      disk_sizes_.push_back(size);
      absent_.push_back(std::move(*absence));
      continue;
    }
    auto f = create ? io::BlockFile::Create(io_, path, options)
                    : io::BlockFile::Open(io_, path, options);
    if (!f.ok()) return f.status();
    // fsync: the file's size (a sparse truncate) must survive a power loss.
    if (create) {
      if (absl::Status s = (*f)->Sync(io::SyncKind::kFull); !s.ok()) return s;
    }
    disks_.push_back(std::move(*f));
    disk_sizes_.push_back(size);
    absent_.emplace_back();
  }
  return absl::OkStatus();
}

absl::Status CellImpl::AbsentDiskError(uint32_t disk) const {
  return absl::UnavailableError(fmt::format("grid disk {} of cell {} is not present: {}",
                                            GridDiskName(disk), config_.name,
                                            absent_[disk].reason));
}

absl::Status CellImpl::CreateFiles(const CellConfig& config, bool replace_flash,
                                   bool lay_out_flash) {
  if (absl::Status s = config.Validate(); !s.ok()) return s;
  absl::StatusOr<FlashLayout> layout = ComputeLayout(config);
  if (!layout.ok()) return layout.status();
  config_ = config;
  if (config_.caching_policies.empty()) {
    for (const GridDiskSpec& g : config_.grid_disks) {
      config_.caching_policies.insert(config_.caching_policies.end(), config_.cell_disks,
                                      g.caching_policy);
    }
  }
  layout_ = *layout;
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  if (ec) {
    return absl::FailedPreconditionError(
        fmt::format("cell {}: cannot create folder {}: {}", config.name, dir_, ec.message()));
  }
  if (replace_flash) {
    if (absl::Status s = MoveFileAside(dir_ + "/" + kFlashFile, "lost", "lost flash device");
        !s.ok()) {
      return s;
    }
  } else if (std::filesystem::exists(dir_ + "/" + kFlashFile)) {
    return absl::AlreadyExistsError(fmt::format(
        "cell folder {} already holds a cell ({} exists)", dir_, kFlashFile));
  }
  if (absl::Status s = AttachGridDisks(/*create=*/!replace_flash); !s.ok()) return s;
  auto flash = io::BlockFile::Create(io_, dir_ + "/" + kFlashFile,
                                     {.block_size = kPage,
                                      .block_count = config.flash_size_bytes / kPage,
                                      .direct = config.direct_io});
  if (!flash.ok()) return flash.status();
  flash_ = std::move(*flash);
  // The metadata area (superblocks, checkpoint areas, journal) is allocated
  // now: a filesystem that fills up later fails data writes with ENOSPC but
  // can never leave the cell unable to journal or checkpoint.
  if (absl::Status s = io_->Allocate(flash_->handle(), io::AllocateMode::kKeepSize, 0,
                                     layout_.data_offset);
      !s.ok() && s.code() != absl::StatusCode::kUnimplemented) {
    return absl::Status(s.code(), fmt::format("allocating the metadata area of {}/{}: {}", dir_,
                                              kFlashFile, std::string(s.message())));
  }
  // The journal is written at every durable cache write: written zeros (not
  // only fallocated, whose unwritten extents each first write would convert,
  // a metadata change that fdatasync must commit) keep its syncs data-only.
  if (absl::Status s = LayOutFlash(layout_.journal_offset,
                                   layout_.journal_offset + layout_.journal_bytes);
      !s.ok()) {
    return s;
  }
  if (lay_out_flash) {
    if (absl::Status s = LayOutFlash(layout_.data_offset, layout_.file_bytes); !s.ok()) return s;
  }
  if (absl::Status s = flash_->Sync(io::SyncKind::kFull); !s.ok()) return s;
  creation_time_ = clock_->UnixSeconds();
  auto meta = MetadataStore::Format(flash_.get(), layout_, config_, creation_time_);
  if (!meta.ok()) return meta.status();
  meta_ = std::move(*meta);
  state_ = std::make_unique<CacheState>(disk_sizes_, layout_.line_size, layout_.num_slots);
  {
    MutexLock l(&state_mu_);
    slot_allocated_.assign(layout_.num_slots, lay_out_flash ? ~uint64_t{0} : 0);
  }
  mode_ = config_.flash_cache_mode;
  AdoptGridDiskSettings();
  AttachCounters();
  return absl::OkStatus();
}

absl::Status CellImpl::LayOutFlash(uint64_t from, uint64_t to) {
  constexpr uint64_t kPiece = 1 * kMiB;
  constexpr size_t kInFlight = 8;
  io::AlignedBuffer zeros(kPiece);  // zero-filled
  std::vector<io::IoRequest> io;
  for (uint64_t at = from; at < to;) {
    io.clear();
    for (; at < to && io.size() < kInFlight; at += std::min(kPiece, to - at)) {
      io.push_back(io::MakeWrite(flash_->handle(), at, zeros.data(), std::min(kPiece, to - at)));
    }
    absl::Status s = io_->Submit(absl::MakeSpan(io));
    for (const io::IoRequest& q : io) s.Update(q.status);
    if (!s.ok()) {
      return absl::Status(s.code(), fmt::format("laying out {}/{} at offset {}: {}", dir_,
                                                kFlashFile, io.front().offset,
                                                std::string(s.message())));
    }
  }
  return absl::OkStatus();
}

void CellImpl::FindAllocatedSlotPages() {
  std::vector<uint64_t> allocated(layout_.num_slots, 0);
  const int fd = ::open((dir_ + "/" + kFlashFile).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    // Data runs from SEEK_DATA to the next SEEK_HOLE; unwritten (fallocated)
    // extents may report as holes, which only keeps their pages unknown.
    const auto end = static_cast<off_t>(layout_.SlotOffset(layout_.num_slots));
    off_t at = static_cast<off_t>(layout_.data_offset);
    while (at < end) {
      const off_t data = ::lseek(fd, at, SEEK_DATA);
      if (data < 0 || data >= end) break;
      off_t hole = ::lseek(fd, data, SEEK_HOLE);
      if (hole < 0) break;
      hole = std::min(hole, end);
      for (uint64_t p = io::AlignUp(static_cast<uint64_t>(data), kPage);
           p + kPage <= static_cast<uint64_t>(hole); p += kPage) {
        const uint64_t rel = p - layout_.data_offset;
        allocated[rel / layout_.line_size] |= uint64_t{1} << (rel % layout_.line_size / kPage);
      }
      at = hole;
    }
    ::close(fd);
  }
  MutexLock l(&state_mu_);
  slot_allocated_ = std::move(allocated);
}

// A lost flash device is kept as flash.img.lost.<unix time>, a damaged grid
// disk file as <name>.img.damaged.<unix time> (evidence, never read again); a
// fresh file takes its place. An earlier one of the same name is never
// overwritten (a simulated clock can give the same second twice).
absl::Status CellImpl::MoveFileAside(const std::string& path, std::string_view why,
                                     std::string_view what) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return absl::OkStatus();
  std::string aside = fmt::format("{}.{}.{}", path, why, clock_->UnixSeconds());
  for (int n = 1; std::filesystem::exists(aside, ec); ++n) {
    aside = fmt::format("{}.{}.{}-{}", path, why, clock_->UnixSeconds(), n);
  }
  std::filesystem::rename(path, aside, ec);
  if (ec) {
    return absl::FailedPreconditionError(fmt::format("cell {}: cannot move the {} {} aside to {}: {}",
                                                     config_.name, what, path, aside,
                                                     ec.message()));
  }
  return absl::OkStatus();
}

bool FlashDeviceLost(io::IoBackend* io, const std::string& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) return false;  // the whole cell is missing
  const std::string path = dir + "/" + kFlashFile;
  if (!std::filesystem::exists(path, ec)) return true;
  auto probe = io::BlockFile::Open(io, path, {.block_size = kPage, .read_only = true});
  if (!probe.ok()) return probe.status().code() != absl::StatusCode::kPermissionDenied;
  absl::StatusOr<std::unique_ptr<MetadataStore>> meta = MetadataStore::Load(probe->get());
  (void)(*probe)->Close();
  // A newer format (FailedPrecondition) is not a lost device: refuse instead.
  if (!meta.ok()) return meta.status().code() != absl::StatusCode::kFailedPrecondition;
  // The superblock loads; the cache directory it points to (checkpoint,
  // journal) must load too, or which lines hold the newest data is unknown,
  // as when the device is gone. A read-only open replays it, writing nothing;
  // DataLoss is the directory's damage (a wrong size, a missing grid disk
  // file are other errors, refused or handled as they are).
  absl::StatusOr<std::unique_ptr<Cell>> cell =
      Cell::Open(io, SystemClock(), dir, {.start_cleaner = false, .read_only = true});
  if (cell.ok()) (void)(*cell)->Close();
  return !cell.ok() && cell.status().code() == absl::StatusCode::kDataLoss;
}

absl::Status CellImpl::CreateGridDisk(const std::string& name) {
  absl::StatusOr<uint32_t> idx = GridDiskIndex(name);
  if (!idx.ok()) return idx.status();
  WriterMutexLock mode_lock(&mode_mu_);
  RangeLocks::Guard all = locks_.Acquire({{RangeLocks::kAllDisks, 0, UINT64_MAX}});
  if (disks_[*idx] != nullptr) {
    return absl::AlreadyExistsError(fmt::format(
        "CELL-02701: grid disk {} already exists and is active on cell {}", name, config_.name));
  }
  const uint64_t size = disk_sizes_[*idx];
  const std::string path = dir_ + "/" + GridDiskFileName(name);
  // Whatever file is in its place now (the damaged one, or one put back after
  // the open) is kept, never truncated: ASM has marked the disk's whole
  // content for rebuilding.
  if (absl::Status s = MoveFileAside(path, absent_[*idx].damaged ? "damaged" : "replaced",
                                     "grid disk file");
      !s.ok()) {
    return s;
  }
  auto f = io::BlockFile::Create(
      io_, path, {.block_size = kPage, .block_count = size / kPage, .direct = config_.direct_io});
  if (!f.ok()) return f.status();
  if (absl::Status s = (*f)->Sync(io::SyncKind::kFull); !s.ok()) return s;
  disks_[*idx] = std::move(*f);
  absent_[*idx] = Absence{};
  return absl::OkStatus();
}

absl::Status CellImpl::OpenFiles() {
  const std::string flash_path = dir_ + "/" + kFlashFile;
  if (!std::filesystem::exists(flash_path)) {
    return absl::NotFoundError(
        fmt::format("no cell in folder {}: its flash device {} is missing", dir_, kFlashFile));
  }
  {
    // The superblock tells whether O_DIRECT is wanted; read it buffered first.
    auto probe = io::BlockFile::Open(io_, flash_path,
                                     {.block_size = kPage, .read_only = read_only_});
    if (!probe.ok()) return probe.status();
    auto meta = MetadataStore::Load(probe->get());
    if (!meta.ok()) return meta.status();
    config_ = (*meta)->superblock().config;
    creation_time_ = (*meta)->superblock().creation_time_unix;
    if (absl::Status s = (*probe)->Close(); !s.ok()) return s;
  }
  if (absl::Status s = config_.Validate(); !s.ok()) {
    return absl::DataLossError(fmt::format("flash superblock of {} holds an invalid config: {}",
                                           flash_path, std::string(s.message())));
  }
  absl::StatusOr<FlashLayout> layout = ComputeLayout(config_);
  if (!layout.ok()) return layout.status();
  layout_ = *layout;
  auto flash = io::BlockFile::Open(
      io_, flash_path,
      {.block_size = kPage, .direct = config_.direct_io, .read_only = read_only_});
  if (!flash.ok()) return flash.status();
  flash_ = std::move(*flash);
  if (flash_->size_bytes() != layout_.file_bytes) {
    return absl::FailedPreconditionError(fmt::format(
        "flash device {} is {} bytes but its metadata says {} (truncated or replaced?)",
        flash_path, flash_->size_bytes(), layout_.file_bytes));
  }
  auto meta = MetadataStore::Load(flash_.get());
  if (!meta.ok()) return meta.status();
  meta_ = std::move(*meta);
  meta_->set_layout(layout_);
  if (absl::Status s = AttachGridDisks(/*create=*/false); !s.ok()) return s;
  state_ = std::make_unique<CacheState>(disk_sizes_, layout_.line_size, layout_.num_slots);
  AttachCounters();
  RecoveryInfo info;
  if (absl::Status s = meta_->Recover(state_.get(), &info, !read_only_); !s.ok()) return s;
  LoadCounters(meta_->recovered_counters());
  if (!info.superblock_note.empty()) metadata_repairs_.push_back(info.superblock_note);
  // A fresh epoch: later appends never follow a torn tail. (Read-only: the
  // replayed state lives in memory only; nothing will be appended.)
  if (!read_only_) {
    if (absl::Status s = meta_->Checkpoint(state_.get(), &state_mu_); !s.ok()) return s;
  }
  FindAllocatedSlotPages();
  mode_ = config_.flash_cache_mode;
  AdoptGridDiskSettings();
  return absl::OkStatus();
}

absl::Status CellImpl::Close() {
  StopCleaner();
  if (closed_.exchange(true)) return absl::OkStatus();
  absl::Status result;
  if (meta_ && !read_only_) {
    result.Update(meta_->Sync(state_.get(), &state_mu_));
    // The metrics are cumulative across processes: a clean close stores them
    // in a checkpoint (a crash loses only what was counted since the last one).
    if (result.ok()) result.Update(meta_->PersistCounters(state_.get(), &state_mu_));
  }
  for (auto& d : disks_) {
    if (d != nullptr) result.Update(d->Close());
  }
  if (flash_) result.Update(flash_->Close());
  return result;
}

absl::Status CellImpl::CheckWritable() const {
  if (absl::Status s = CheckOpen(); !s.ok()) return s;
  if (read_only_) {
    return absl::FailedPreconditionError(
        fmt::format("cell {} is open read-only: no writes, formats or flushes", config_.name));
  }
  return absl::OkStatus();
}

absl::Status CellImpl::CheckOpen() const {
  if (closed_.load()) {
    return absl::FailedPreconditionError(fmt::format("cell {} is closed", config_.name));
  }
  return absl::OkStatus();
}

absl::Status CellImpl::ValidateIo(uint32_t disk, uint64_t offset, uint64_t length,
                                  std::string_view what) const {
  if (disk >= disks_.size()) {
    return absl::InvalidArgumentError(fmt::format(
        "cell {}: {} names grid disk #{}, the cell has {}", config_.name, what, disk,
        disks_.size()));
  }
  if (disks_[disk] == nullptr) return AbsentDiskError(disk);
  if (inactive_[disk]) {
    return absl::UnavailableError(fmt::format(
        "grid disk {} of cell {} is inactive (CellCLI ALTER GRIDDISK {} ACTIVE makes it "
        "usable)",
        GridDiskName(disk), config_.name, GridDiskName(disk)));
  }
  if (offset % 512 != 0 || length % 512 != 0 || length == 0) {
    return absl::InvalidArgumentError(fmt::format(
        "grid disk {}: {} at offset {} (+{}) is not 512-byte aligned or is empty",
        GridDiskName(disk), what, offset, length));
  }
  if (offset > disk_sizes_[disk] || length > disk_sizes_[disk] - offset) {
    return absl::OutOfRangeError(fmt::format("grid disk {}: {} at offset {} (+{}) past its end {}",
                                             GridDiskName(disk), what, offset, length,
                                             disk_sizes_[disk]));
  }
  return absl::OkStatus();
}

RangeLocks::Range CellImpl::LineRange(uint32_t disk, uint64_t offset, uint64_t length) const {
  const uint64_t ls = layout_.line_size;
  return {disk, io::AlignDown(offset, ls), io::AlignUp(offset + length, ls)};
}

void CellImpl::CountDiskIo(uint32_t disk, io::IoOp op, uint64_t bytes) {
  CellDiskCounters& c = cd_[disk % config_.cell_disks];
  const bool large = bytes > kLargeIoBytes;
  if (op == io::IoOp::kWrite) {
    (large ? c.rq_w_lg : c.rq_w_sm)++;
    (large ? c.by_w_lg : c.by_w_sm) += bytes;
  } else {
    (large ? c.rq_r_lg : c.rq_r_sm)++;
    (large ? c.by_r_lg : c.by_r_sm) += bytes;
  }
}

absl::Status CellImpl::SubmitBatch(IoBatch* batch) {
  if (batch->reqs.empty()) return absl::OkStatus();
  absl::Status s = io_->Submit(absl::MakeSpan(batch->reqs));
  for (size_t i = 0; i < batch->reqs.size(); ++i) {
    const io::IoRequest& r = batch->reqs[i];
    if (batch->disk[i] >= 0 && r.status.ok()) {
      CountDiskIo(static_cast<uint32_t>(batch->disk[i]), r.op, r.length);
    }
    if (r.status.ok() && r.op == io::IoOp::kRead && r.transferred != r.length) {
      return absl::DataLossError(fmt::format("short read at offset {}: {} of {} bytes", r.offset,
                                             r.transferred, r.length));
    }
  }
  return s;
}

absl::Status CellImpl::SyncDisks(const std::vector<uint32_t>& disks) {
  std::vector<uint32_t> d = disks;
  std::sort(d.begin(), d.end());
  d.erase(std::unique(d.begin(), d.end()), d.end());
  for (uint32_t i : d) {
    if (disks_[i] == nullptr) return AbsentDiskError(i);
    if (absl::Status s = disks_[i]->Sync(); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status CellImpl::Append(const std::vector<Record>& records, bool sync,
                              CellIoStats* stats) {
  if (records.empty()) return absl::OkStatus();
  if (stats != nullptr) {
    stats->metadata_bytes_written +=
        kChunkHeaderBytes + records.size() * 37 + ChunkDataPages(records) * kPage;
  }
  return meta_->Append(records, sync, state_.get(), &state_mu_);
}

uint64_t CellImpl::DirtyBytes() const {
  MutexLock l(&state_mu_);
  return state_->dirty_pages() * kPage;
}

uint64_t CellImpl::UsedBytes() const {
  MutexLock l(&state_mu_);
  return state_->valid_pages() * kPage;
}

size_t CellImpl::TemplateCount() const {
  MutexLock l(&state_mu_);
  return state_->template_count();
}

CellDescription CellImpl::DescribeNow() const {
  // disks_ and absent_ change under mode_mu_ (CreateGridDisk).
  ReaderMutexLock mode_lock(&mode_mu_);
  CellDescription d;
  d.name = config_.name;
  d.flash_cache_mode = mode_.load();
  for (uint32_t i = 0; i < disks_.size(); ++i) {
    d.grid_disks.push_back({GridDiskName(i),
                            CellDiskName(i % config_.cell_disks, config_.name),
                            disk_sizes_[i],
                            disks_[i] == nullptr ? "not present"
                            : inactive_[i]       ? "inactive"
                                                 : "active",
                            absent_[i].reason});
    d.grid_disks.back().content_lost = absent_[i].damaged;
    d.grid_disks.back().caching_policy = caching_[i];
  }
  d.flash_device = fmt::format("FD_00_{}", config_.name);
  d.flash_size_bytes = config_.flash_size_bytes;
  d.flash_cache_size_bytes = CapacityBytes();
  d.cache_line_size = layout_.line_size;
  d.creation_time_unix = creation_time_;
  d.flash_cache_status = "normal";
  return d;
}

std::vector<Metric> CellImpl::MetricsNow() const {
  constexpr double kMB = 1024.0 * 1024.0;
  std::vector<Metric> m;
  auto fc = [&](std::string name, double v, std::string unit) {
    m.push_back({std::move(name), "FLASHCACHE", "FLASHCACHE", v, std::move(unit)});
  };
  uint64_t used, dirty;
  {
    MutexLock l(&state_mu_);
    used = state_->valid_pages() * kPage;
    dirty = state_->dirty_pages() * kPage;
  }
  const std::string rq = "IO requests";
  fc("FC_BY_USED", used / kMB, "MB");
  fc("FC_BY_DIRTY", dirty / kMB, "MB");
  fc("FC_IO_RQ_W", fc_.rq_w.load(), rq);
  fc("FC_IO_BY_W", fc_.by_w.load() / kMB, "MB");
  fc("FC_IO_RQ_W_FIRST", fc_.rq_w_first.load(), rq);
  fc("FC_IO_RQ_W_OVERWRITE", fc_.rq_w_overwrite.load(), rq);
  fc("FC_IO_RQ_W_POPULATE", fc_.rq_w_populate.load(), rq);
  fc("FC_IO_RQ_W_SKIP", fc_.rq_w_skip.load(), rq);
  fc("FC_IO_RQ_R", fc_.rq_r.load(), rq);
  fc("FC_IO_RQ_R_MISS", fc_.rq_r_miss.load(), rq);
  fc("FC_IO_RQ_DISK_WRITE", fc_.rq_disk_write.load(), rq);
  fc("FC_IO_BY_DISK_WRITE", fc_.by_disk_write.load() / kMB, "MB");
  for (uint32_t c = 0; c < config_.cell_disks; ++c) {
    const std::string obj = CellDiskName(c, config_.name);
    const CellDiskCounters& k = cd_[c];
    auto cd = [&](std::string name, double v, std::string unit) {
      m.push_back({std::move(name), "CELLDISK", obj, v, std::move(unit)});
    };
    cd("CD_IO_RQ_W_LG", k.rq_w_lg.load(), rq);
    cd("CD_IO_RQ_W_SM", k.rq_w_sm.load(), rq);
    cd("CD_IO_BY_W_LG", k.by_w_lg.load() / kMB, "MB");
    cd("CD_IO_BY_W_SM", k.by_w_sm.load() / kMB, "MB");
    cd("CD_IO_RQ_R_LG", k.rq_r_lg.load(), rq);
    cd("CD_IO_RQ_R_SM", k.rq_r_sm.load(), rq);
  }
  return m;
}

namespace {
constexpr std::atomic<uint64_t> FlashCounters::*kFlashCounterFields[] = {
    &FlashCounters::rq_w,          &FlashCounters::by_w,          &FlashCounters::rq_w_first,
    &FlashCounters::rq_w_overwrite, &FlashCounters::rq_w_populate, &FlashCounters::by_w_populate,
    &FlashCounters::rq_r,          &FlashCounters::rq_r_miss,     &FlashCounters::by_r,
    &FlashCounters::rq_disk_write, &FlashCounters::by_disk_write, &FlashCounters::rq_generated,
    &FlashCounters::by_generated,  &FlashCounters::rq_w_skip};
constexpr std::atomic<uint64_t> CellDiskCounters::*kCellDiskCounterFields[] = {
    &CellDiskCounters::rq_w_lg, &CellDiskCounters::rq_w_sm, &CellDiskCounters::by_w_lg,
    &CellDiskCounters::by_w_sm, &CellDiskCounters::rq_r_lg, &CellDiskCounters::rq_r_sm,
    &CellDiskCounters::by_r_lg, &CellDiskCounters::by_r_sm};
}  // namespace

std::vector<uint64_t> CellImpl::CounterValues() const {
  std::vector<uint64_t> v;
  for (auto field : kFlashCounterFields) v.push_back((fc_.*field).load());
  for (uint32_t c = 0; c < config_.cell_disks; ++c) {
    for (auto field : kCellDiskCounterFields) v.push_back((cd_[c].*field).load());
  }
  return v;
}

void CellImpl::LoadCounters(const std::vector<uint64_t>& values) {
  const size_t per_disk = std::size(kCellDiskCounterFields);
  if (values.size() != std::size(kFlashCounterFields) + per_disk * config_.cell_disks) return;
  size_t i = 0;
  for (auto field : kFlashCounterFields) (fc_.*field) = values[i++];
  for (uint32_t c = 0; c < config_.cell_disks; ++c) {
    for (auto field : kCellDiskCounterFields) (cd_[c].*field) = values[i++];
  }
}

void CellImpl::AttachCounters() {
  cd_ = std::make_unique<CellDiskCounters[]>(config_.cell_disks);
  meta_->set_counters_source([this] { return CounterValues(); });
}

std::vector<LostRange> CellImpl::Lost() const {
  MutexLock l(&state_mu_);
  std::vector<LostRange> out;
  for (const CheckpointRange& r : state_->AllLost()) out.push_back({r.disk, r.offset, r.length});
  return out;
}

absl::Status CellImpl::ChangeSetting(absl::FunctionRef<bool(bool apply)> set,
                                     bool flush_first, const CellConfig& next) {
  bool changed;
  {
    WriterMutexLock l(&mode_mu_);  // waits for requests in flight
    changed = set(true);
  }
  if (!changed) return absl::OkStatus();
  absl::Status s;
  if (flush_first) s = Flush({}).status();
  if (s.ok()) s = meta_->Checkpoint(state_.get(), &state_mu_, next);
  if (!s.ok()) {
    WriterMutexLock l(&mode_mu_);
    set(false);
  }
  return s;
}

absl::Status CellImpl::SetMode(FlashCacheMode mode) {
  if (absl::Status s = CheckOpen(); !s.ok()) return s;
  // One change at a time: two overlapping ones could otherwise leave mode_ at
  // one mode and the checkpoint (the mode after a reopen) at the other.
  MutexLock change(&mode_change_mu_);
  FlashCacheMode old = mode_;
  CellConfig next = config_;
  next.flash_cache_mode = mode;
  // Disabling write-back: ALTER FLASHCACHE ALL FLUSH first, so the disks alone
  // are authoritative before the cache starts serving reads only.
  absl::Status s = ChangeSetting(
      [&](bool apply) {
        mode_ = apply ? mode : old;
        return old != mode;
      },
      mode == FlashCacheMode::kWriteThrough, next);
  if (s.ok()) config_.flash_cache_mode = mode;
  return s;
}

void CellImpl::AdoptGridDiskSettings() {
  WriterMutexLock l(&mode_mu_);
  caching_ = config_.caching_policies;  // a format-1 superblock has none: all default
  caching_.resize(disks_.size(), CachingPolicy::kDefault);
  inactive_ = config_.inactive_grid_disks;  // before format 4: all active
  inactive_.resize(disks_.size(), false);
}

absl::Status CellImpl::SetGridDiskActive(const std::string& grid_disk, bool active) {
  if (absl::Status s = CheckOpen(); !s.ok()) return s;
  absl::StatusOr<uint32_t> disk = GridDiskIndex(grid_disk);
  if (!disk.ok()) return disk.status();
  MutexLock change(&mode_change_mu_);
  CellConfig next = config_;
  next.inactive_grid_disks.resize(disks_.size(), false);
  next.inactive_grid_disks[*disk] = !active;
  bool absent = false;
  bool was_inactive = false;
  // Going inactive, its file alone holds its data from now on: destage the
  // dirty lines first.
  absl::Status s = ChangeSetting(
      [&](bool apply) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mode_mu_) {
        if (apply) {
          absent = disks_[*disk] == nullptr;
          if (absent) return false;
          was_inactive = inactive_[*disk];
        }
        inactive_[*disk] = apply ? !active : was_inactive;
        return was_inactive == active;
      },
      !active, next);
  if (absent) return AbsentDiskError(*disk);
  if (s.ok()) config_.inactive_grid_disks = std::move(next.inactive_grid_disks);
  return s;
}

absl::Status CellImpl::SetCachingPolicy(const std::string& grid_disk, CachingPolicy policy) {
  if (absl::Status s = CheckOpen(); !s.ok()) return s;
  absl::StatusOr<uint32_t> disk = GridDiskIndex(grid_disk);
  if (!disk.ok()) return disk.status();
  MutexLock change(&mode_change_mu_);
  CellConfig next = config_;
  next.caching_policies.resize(disks_.size(), CachingPolicy::kDefault);
  next.caching_policies[*disk] = policy;
  CachingPolicy old = CachingPolicy::kDefault;
  // The disk's writes stop going through the cache: destage first, so its
  // disk alone holds its current data (its clean lines stay coherent: a write
  // to disk updates or drops them, as a bypassing large write does).
  absl::Status s = ChangeSetting(
      [&](bool apply) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mode_mu_) {
        if (apply) old = caching_[*disk];
        caching_[*disk] = apply ? policy : old;
        return old != policy;
      },
      policy == CachingPolicy::kNone, next);
  if (s.ok()) config_.caching_policies = std::move(next.caching_policies);
  return s;
}

absl::Status CellImpl::LoseFlash() {
  if (absl::Status s = CheckOpen(); !s.ok()) return s;
  RangeLocks::Guard all = locks_.Acquire({{RangeLocks::kAllDisks, 0, UINT64_MAX}});
  {
    MutexLock l(&state_mu_);
    state_->LoseAll();
  }
  // The replacement device starts from a checkpoint holding only lost ranges.
  return meta_->Checkpoint(state_.get(), &state_mu_);
}

}  // namespace internal

// ---------------- Cell: forwards to CellImpl ----------------

Cell::Cell(std::unique_ptr<internal::CellImpl> impl) : impl_(std::move(impl)) {}
Cell::~Cell() { (void)impl_->Close(); }

absl::StatusOr<std::unique_ptr<Cell>> Cell::Create(io::IoBackend* io, Clock* clock,
                                                   const std::string& dir,
                                                   const CellConfig& config,
                                                   const CellOpenOptions& options) {
  auto impl = std::make_unique<internal::CellImpl>(io, clock, dir);
  if (absl::Status s = impl->CreateFiles(config, /*replace_flash=*/false, options.lay_out_flash);
      !s.ok()) {
    impl->closed_ = true;
    return s;
  }
  std::unique_ptr<Cell> cell(new Cell(std::move(impl)));
  if (options.start_cleaner) cell->StartCleaner();
  return cell;
}

absl::StatusOr<std::unique_ptr<Cell>> Cell::Open(io::IoBackend* io, Clock* clock,
                                                 const std::string& dir,
                                                 const CellOpenOptions& options) {
  auto impl = std::make_unique<internal::CellImpl>(io, clock, dir);
  impl->read_only_ = options.read_only;
  if (absl::Status s = impl->OpenFiles(); !s.ok()) {
    impl->closed_ = true;
    return s;
  }
  std::unique_ptr<Cell> cell(new Cell(std::move(impl)));
  if (options.start_cleaner && !options.read_only) cell->StartCleaner();
  return cell;
}

absl::StatusOr<std::unique_ptr<Cell>> Cell::OpenWithNewFlash(io::IoBackend* io, Clock* clock,
                                                             const std::string& dir,
                                                             const CellConfig& config,
                                                             const CellOpenOptions& options) {
  auto impl = std::make_unique<internal::CellImpl>(io, clock, dir);
  if (absl::Status s = impl->CreateFiles(config, /*replace_flash=*/true, options.lay_out_flash);
      !s.ok()) {
    impl->closed_ = true;
    return s;
  }
  std::unique_ptr<Cell> cell(new Cell(std::move(impl)));
  if (options.start_cleaner) cell->StartCleaner();
  return cell;
}

bool Cell::FlashLost(io::IoBackend* io, const std::string& dir) {
  return internal::FlashDeviceLost(io, dir);
}

absl::Status Cell::CreateGridDisk(const std::string& name) {
  if (absl::Status s = impl_->CheckWritable(); !s.ok()) return s;
  return impl_->CreateGridDisk(name);
}

absl::Status Cell::Close() { return impl_->Close(); }
std::vector<std::string> Cell::metadata_repairs() const { return impl_->metadata_repairs_; }
std::string Cell::name() const { return impl_->name(); }
absl::StatusOr<CellDescription> Cell::Describe() const {
  if (absl::Status s = impl_->CheckOpen(); !s.ok()) return s;
  return impl_->DescribeNow();
}
absl::Status Cell::Read(absl::Span<ReadRequest> r, CellIoStats* s) { return impl_->Read(r, s); }
absl::Status Cell::Write(absl::Span<WriteRequest> r, CellIoStats* s) {
  if (absl::Status st = impl_->CheckWritable(); !st.ok()) return st;
  return impl_->Write(r, s);
}
absl::Status Cell::FormatRange(absl::Span<FormatRangeRequest> r, CellIoStats* s) {
  if (absl::Status st = impl_->CheckWritable(); !st.ok()) return st;
  return impl_->FormatRange(r, s);
}
absl::StatusOr<FlushProgress> Cell::Flush(
    const std::function<void(const FlushProgress&)>& progress) {
  if (absl::Status s = impl_->CheckWritable(); !s.ok()) return s;
  return impl_->Flush(progress);
}
absl::StatusOr<std::vector<Metric>> Cell::Metrics() const {
  if (absl::Status s = impl_->CheckOpen(); !s.ok()) return s;
  return impl_->MetricsNow();
}
absl::Status Cell::SetFlashCacheMode(FlashCacheMode mode) {
  if (absl::Status s = impl_->CheckWritable(); !s.ok()) return s;
  return impl_->SetMode(mode);
}
absl::Status Cell::SetGridDiskActive(const std::string& name, bool active) {
  if (absl::Status s = impl_->CheckWritable(); !s.ok()) return s;
  return impl_->SetGridDiskActive(name, active);
}
absl::Status Cell::SetCachingPolicy(const std::string& grid_disk, CachingPolicy policy) {
  if (absl::Status s = impl_->CheckWritable(); !s.ok()) return s;
  return impl_->SetCachingPolicy(grid_disk, policy);
}
absl::StatusOr<std::vector<LostRange>> Cell::LostRanges() const {
  if (absl::Status s = impl_->CheckOpen(); !s.ok()) return s;
  return impl_->Lost();
}
absl::Status Cell::Discard(absl::Span<DiscardRequest> requests, CellIoStats* stats) {
  return impl_->Discard(requests, stats);
}
void Cell::StartCleaner() { impl_->StartCleaner(); }
void Cell::StopCleaner() { impl_->StopCleaner(); }
bool Cell::CleanerRunning() const { return impl_->CleanerRunning(); }
absl::StatusOr<uint64_t> Cell::RunCleanerPass() { return impl_->CleanerPass(); }
uint32_t Cell::grid_disk_count() const { return impl_->disk_count(); }
absl::StatusOr<uint32_t> Cell::GridDiskIndex(const std::string& name) const {
  return impl_->GridDiskIndex(name);
}
FlashCacheMode Cell::flash_cache_mode() const { return impl_->mode(); }
const CellConfig& Cell::config() const { return impl_->config(); }
uint64_t Cell::DirtyBytes() const { return impl_->DirtyBytes(); }
uint64_t Cell::UsedBytes() const { return impl_->UsedBytes(); }
uint64_t Cell::CacheCapacityBytes() const { return impl_->CapacityBytes(); }
size_t Cell::TemplateRangeCount() const { return impl_->TemplateCount(); }
absl::Status Cell::LoseFlash() {
  if (absl::Status s = impl_->CheckWritable(); !s.ok()) return s;
  return impl_->LoseFlash();
}
absl::Status Cell::CheckConsistency() const {
  MutexLock l(&impl_->state_mu_);
  return impl_->state_->CheckInvariants();
}

}  // namespace cellsim::cell
