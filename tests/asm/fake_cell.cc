#include "asm/fake_cell.h"

#include <algorithm>
#include <cstring>

#include "cellsim/cell/cell.h"
#include "cellsim/format/block_template.h"
#include "fmt/format.h"

namespace cellsim::asmgr::testing {

FakeCell::FakeCell(std::string name, std::vector<std::pair<std::string, uint64_t>> prefixes,
                   uint32_t cell_disks)
    : name_(std::move(name)) {
  for (uint32_t cd = 0; cd < cell_disks; ++cd) {
    for (const auto& [prefix, size] : prefixes) {
      Disk d;
      d.info.name = cell::GridDiskName(prefix, cd, name_);
      d.info.cell_disk = cell::CellDiskName(cd, name_);
      d.info.size_bytes = size;
      d.info.status = "active";
      disks_.push_back(std::move(d));
    }
  }
}

void FakeCell::FailWrites(uint32_t gd, bool fail) {
  MutexLock l(&mu_);
  disks_.at(gd).fail_writes = fail;
}
void FakeCell::RefuseFormats(bool refuse) {
  MutexLock l(&mu_);
  refuse_formats_ = refuse;
}
void FakeCell::FailReads(uint32_t gd, bool fail) {
  MutexLock l(&mu_);
  disks_.at(gd).fail_reads = fail;
}
void FakeCell::LoseRange(uint32_t gd, uint64_t offset, uint64_t length) {
  MutexLock l(&mu_);
  disks_.at(gd).lost[offset] = length;
}
void FakeCell::Corrupt(uint32_t gd, uint64_t offset) {
  MutexLock l(&mu_);
  uint8_t b = 0;
  Load(disks_.at(gd), offset, &b, 1);
  b ^= 0xFF;
  Store(disks_.at(gd), offset, &b, 1);
}
std::vector<uint8_t> FakeCell::Peek(uint32_t gd, uint64_t offset, uint64_t length) const {
  MutexLock l(&mu_);
  std::vector<uint8_t> out(length);
  Load(disks_.at(gd), offset, out.data(), length);
  return out;
}
uint64_t FakeCell::write_requests() const {
  MutexLock l(&mu_);
  return write_requests_;
}
uint64_t FakeCell::write_calls() const {
  MutexLock l(&mu_);
  return write_calls_;
}
uint64_t FakeCell::read_requests() const {
  MutexLock l(&mu_);
  return read_requests_;
}
uint64_t FakeCell::format_requests() const {
  MutexLock l(&mu_);
  return format_requests_;
}
uint64_t FakeCell::format_calls() const {
  MutexLock l(&mu_);
  return format_calls_;
}
uint64_t FakeCell::bytes_written() const {
  MutexLock l(&mu_);
  return bytes_written_;
}

absl::Status FakeCell::Check(uint32_t gd, uint64_t offset, uint64_t length) const {
  if (gd >= disks_.size()) {
    return absl::InvalidArgumentError(fmt::format("{}: no grid disk {}", name_, gd));
  }
  if (offset % 512 != 0 || length % 512 != 0) {
    return absl::InvalidArgumentError(fmt::format("{}: unaligned request", name_));
  }
  if (offset + length > disks_[gd].info.size_bytes) {
    return absl::OutOfRangeError(fmt::format("grid disk {}: offset {} (+{}) past its end {}",
                                             disks_[gd].info.name, offset, length,
                                             disks_[gd].info.size_bytes));
  }
  return absl::OkStatus();
}

void FakeCell::Store(Disk& d, uint64_t offset, const uint8_t* data, uint64_t length) {
  while (length > 0) {
    const uint64_t page = offset / kPage, in = offset % kPage;
    const uint64_t n = std::min(length, kPage - in);
    std::vector<uint8_t>& p = d.pages[page];
    if (p.empty()) p.assign(kPage, 0);
    std::memcpy(p.data() + in, data, n);
    offset += n;
    data += n;
    length -= n;
  }
}

void FakeCell::Load(const Disk& d, uint64_t offset, uint8_t* out, uint64_t length) const {
  while (length > 0) {
    const uint64_t page = offset / kPage, in = offset % kPage;
    const uint64_t n = std::min(length, kPage - in);
    auto it = d.pages.find(page);
    if (it == d.pages.end()) {
      std::memset(out, 0, n);
    } else {
      std::memcpy(out, it->second.data() + in, n);
    }
    offset += n;
    out += n;
    length -= n;
  }
}

void FakeCell::ClearLost(Disk& d, uint64_t offset, uint64_t length) {
  std::map<uint64_t, uint64_t> keep;
  for (const auto& [o, l] : d.lost) {
    const uint64_t e = o + l, we = offset + length;
    if (e <= offset || o >= we) {
      keep[o] = l;
      continue;
    }
    if (o < offset) keep[o] = offset - o;
    if (e > we) keep[we] = e - we;
  }
  d.lost = std::move(keep);
}

absl::StatusOr<cell::CellDescription> FakeCell::Describe() const {
  MutexLock l(&mu_);
  cell::CellDescription d;
  d.name = name_;
  d.flash_cache_mode = mode_;
  for (const Disk& x : disks_) d.grid_disks.push_back(x.info);
  d.flash_cache_status = "normal";
  return d;
}

void FakeCell::OnRead(std::function<void()> hook) {
  MutexLock l(&mu_);
  on_read_ = std::move(hook);
}

absl::Status FakeCell::Read(absl::Span<cell::ReadRequest> requests, cell::CellIoStats* stats) {
  MutexLock l(&mu_);
  if (on_read_) on_read_();
  absl::Status first;
  for (cell::ReadRequest& r : requests) {
    ++read_requests_;
    r.status = Check(r.grid_disk, r.offset, r.buffer.size());
    if (r.status.ok()) {
      const Disk& d = disks_[r.grid_disk];
      if (d.fail_reads) {
        r.status = absl::UnavailableError(fmt::format("pread {}: Input/output error", d.info.name));
      }
      for (const auto& [o, len] : d.lost) {
        if (r.status.ok() && o < r.offset + r.buffer.size() && r.offset < o + len) {
          r.status = absl::DataLossError(fmt::format(
              "{}: range at {} lost with the flash cache", d.info.name, o));
        }
      }
      if (r.status.ok()) {
        Load(d, r.offset, r.buffer.data(), r.buffer.size());
        if (stats != nullptr) stats->disk_bytes_read += r.buffer.size();
      }
    }
    if (first.ok()) first = r.status;
  }
  return first;
}

absl::Status FakeCell::Write(absl::Span<cell::WriteRequest> requests, cell::CellIoStats* stats) {
  MutexLock l(&mu_);
  ++write_calls_;
  absl::Status first;
  for (cell::WriteRequest& r : requests) {
    ++write_requests_;
    r.status = Check(r.grid_disk, r.offset, r.data.size());
    if (r.status.ok() && disks_[r.grid_disk].fail_writes) {
      r.status = absl::UnavailableError(
          fmt::format("pwrite {}: Input/output error", disks_[r.grid_disk].info.name));
    }
    if (r.status.ok()) {
      Disk& d = disks_[r.grid_disk];
      Store(d, r.offset, r.data.data(), r.data.size());
      ClearLost(d, r.offset, r.data.size());
      bytes_written_ += r.data.size();
      if (stats != nullptr) stats->disk_bytes_written += r.data.size();
    }
    if (first.ok()) first = r.status;
  }
  return first;
}

absl::Status FakeCell::FormatRange(absl::Span<cell::FormatRangeRequest> requests,
                                   cell::CellIoStats* stats) {
  MutexLock l(&mu_);
  ++format_calls_;
  absl::Status first;
  for (cell::FormatRangeRequest& r : requests) {
    ++format_requests_;
    r.status = Check(r.grid_disk, r.offset, r.length);
    if (r.status.ok() && refuse_formats_) {
      r.status = absl::FailedPreconditionError("fake cell: flash metadata is full");
    }
    if (r.status.ok() && disks_[r.grid_disk].fail_writes) {
      r.status = absl::UnavailableError(
          fmt::format("pwrite {}: Input/output error", disks_[r.grid_disk].info.name));
    }
    if (r.status.ok()) {
      std::vector<uint8_t> buf(r.length);
      format::GenerateRange(r.block_template, r.file_offset, absl::MakeSpan(buf));
      Disk& d = disks_[r.grid_disk];
      Store(d, r.offset, buf.data(), buf.size());
      ClearLost(d, r.offset, r.length);
      r.metadata_only = r.method == cell::FormatMethod::kMetadataOnly;
      if (stats != nullptr) {
        stats->bytes_saved_by_creation += r.length;
        if (!r.metadata_only) stats->disk_bytes_written += r.length;
      }
    }
    if (first.ok()) first = r.status;
  }
  return first;
}

absl::StatusOr<cell::FlushProgress> FakeCell::Flush(
    const std::function<void(const cell::FlushProgress&)>& progress) {
  cell::FlushProgress p;
  p.done = true;
  if (progress) progress(p);
  return p;
}

absl::StatusOr<std::vector<cell::Metric>> FakeCell::Metrics() const {
  return std::vector<cell::Metric>{};
}

absl::Status FakeCell::SetFlashCacheMode(cell::FlashCacheMode mode) {
  MutexLock l(&mu_);
  mode_ = mode;
  return absl::OkStatus();
}

absl::Status FakeCell::Discard(absl::Span<cell::DiscardRequest> requests,
                               cell::CellIoStats* /*stats*/) {
  MutexLock l(&mu_);
  absl::Status first;
  for (cell::DiscardRequest& r : requests) {
    r.status = Check(r.grid_disk, r.offset, r.length);
    first.Update(r.status);
    if (!r.status.ok()) continue;
    for (uint64_t p = (r.offset + kPage - 1) / kPage; (p + 1) * kPage <= r.offset + r.length; ++p) {
      disks_[r.grid_disk].pages.erase(p);
    }
    bytes_discarded_ += r.length;
  }
  return first;
}

uint64_t FakeCell::bytes_discarded() const {
  MutexLock l(&mu_);
  return bytes_discarded_;
}

absl::StatusOr<std::vector<cell::LostRange>> FakeCell::LostRanges() const {
  MutexLock l(&mu_);
  std::vector<cell::LostRange> out;
  for (uint32_t i = 0; i < disks_.size(); ++i) {
    for (const auto& [o, len] : disks_[i].lost) out.push_back({i, o, len});
  }
  return out;
}

}  // namespace cellsim::asmgr::testing
