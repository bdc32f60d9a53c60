#include "cellsim/io/block_file.h"

#include <utility>

#include "fmt/format.h"

namespace cellsim::io {
namespace {

absl::Status CheckOptions(const std::string& path, const BlockFileOptions& o,
                          bool count_required) {
  if (o.block_size < 512 || (o.block_size & (o.block_size - 1)) != 0) {
    return absl::InvalidArgumentError(fmt::format(
        "block file {}: block size {} is not a power of two >= 512", path, o.block_size));
  }
  if (o.direct && o.block_size < kDirectAlignment) {
    return absl::InvalidArgumentError(
        fmt::format("block file {}: block size {} is below the O_DIRECT alignment {}", path,
                    o.block_size, kDirectAlignment));
  }
  if (count_required && o.block_count == 0) {
    return absl::InvalidArgumentError(
        fmt::format("block file {}: block count must be > 0", path));
  }
  if (o.block_count > UINT64_MAX / o.block_size) {
    return absl::InvalidArgumentError(fmt::format(
        "block file {}: {} blocks of {} bytes overflow 64 bits", path, o.block_count,
        o.block_size));
  }
  return absl::OkStatus();
}

}  // namespace

BlockFile::BlockFile(IoBackend* io, FileHandle handle, std::string path,
                     uint32_t block_size, uint64_t block_count)
    : io_(io),
      handle_(handle),
      path_(std::move(path)),
      block_size_(block_size),
      block_count_(block_count) {}

absl::StatusOr<std::unique_ptr<BlockFile>> BlockFile::Create(
    IoBackend* io, const std::string& path, const BlockFileOptions& options) {
  if (absl::Status s = CheckOptions(path, options, true); !s.ok()) return s;
  auto handle = io->Open(path, {.create = true, .truncate = true, .direct = options.direct});
  if (!handle.ok()) return handle.status();
  // ftruncate makes the file sparse: no block is allocated until written.
  const uint64_t size = uint64_t{options.block_size} * options.block_count;
  if (absl::Status s = io->Truncate(*handle, size); !s.ok()) {
    (void)io->Close(*handle);
    return s;
  }
  return std::unique_ptr<BlockFile>(
      new BlockFile(io, *handle, path, options.block_size, options.block_count));
}

absl::StatusOr<std::unique_ptr<BlockFile>> BlockFile::Open(IoBackend* io,
                                                           const std::string& path,
                                                           const BlockFileOptions& options) {
  if (absl::Status s = CheckOptions(path, options, false); !s.ok()) return s;
  auto handle = io->Open(path, {.read_only = options.read_only, .direct = options.direct});
  if (!handle.ok()) return handle.status();
  auto size = io->Size(*handle);
  if (!size.ok()) {
    (void)io->Close(*handle);
    return size.status();
  }
  uint64_t count = options.block_count;
  absl::Status mismatch;
  if (count == 0) {
    if (*size % options.block_size != 0 || *size == 0) {
      mismatch = absl::FailedPreconditionError(fmt::format(
          "block file {}: size {} bytes is not a non-zero multiple of the block size {}",
          path, *size, options.block_size));
    }
    count = *size / options.block_size;
  } else if (*size != count * options.block_size) {
    mismatch = absl::FailedPreconditionError(fmt::format(
        "block file {}: size is {} bytes, expected {} ({} blocks of {} bytes)", path, *size,
        count * options.block_size, count, options.block_size));
  }
  if (!mismatch.ok()) {
    (void)io->Close(*handle);
    return mismatch;
  }
  return std::unique_ptr<BlockFile>(
      new BlockFile(io, *handle, path, options.block_size, count));
}

BlockFile::~BlockFile() {
  if (handle_ != kInvalidFile) (void)io_->Close(handle_);
}

absl::Status BlockFile::Close() {
  if (handle_ == kInvalidFile) return absl::OkStatus();
  const FileHandle h = std::exchange(handle_, kInvalidFile);
  return io_->Close(h);
}

absl::Status BlockFile::CheckRange(uint64_t offset, uint64_t length) const {
  if (!IsAligned(offset, block_size_) || !IsAligned(length, block_size_)) {
    return absl::InvalidArgumentError(fmt::format(
        "block file {}: offset {} (+{}) is not a multiple of the block size {}", path_,
        offset, length, block_size_));
  }
  if (offset > size_bytes() || length > size_bytes() - offset) {
    return absl::OutOfRangeError(fmt::format(
        "block file {}: offset {} (+{}) past its end {}", path_, offset, length,
        size_bytes()));
  }
  return absl::OkStatus();
}

absl::Status BlockFile::Read(uint64_t offset, absl::Span<uint8_t> out) const {
  if (absl::Status s = CheckRange(offset, out.size()); !s.ok()) return s;
  if (handle_ == kInvalidFile) {
    return absl::FailedPreconditionError(fmt::format("block file {} is closed", path_));
  }
  size_t got = 0;
  if (absl::Status s = io_->ReadAt(handle_, offset, out.data(), out.size(), &got); !s.ok()) {
    return s;
  }
  if (got != out.size()) {
    // Inside the file's size a read cannot stop early unless the file shrank
    // behind our back.
    return absl::DataLossError(fmt::format(
        "block file {}: read at offset {} returned {} of {} bytes (file truncated?)", path_,
        offset, got, out.size()));
  }
  return absl::OkStatus();
}

absl::Status BlockFile::Write(uint64_t offset, absl::Span<const uint8_t> data) {
  if (absl::Status s = CheckRange(offset, data.size()); !s.ok()) return s;
  if (handle_ == kInvalidFile) {
    return absl::FailedPreconditionError(fmt::format("block file {} is closed", path_));
  }
  return io_->WriteAt(handle_, offset, data.data(), data.size());
}

absl::Status BlockFile::Sync(SyncKind kind) {
  if (handle_ == kInvalidFile) {
    return absl::FailedPreconditionError(fmt::format("block file {} is closed", path_));
  }
  return io_->Sync(handle_, kind);
}

absl::Status BlockFile::Discard(uint64_t offset, uint64_t length) {
  if (absl::Status s = CheckRange(offset, length); !s.ok()) return s;
  if (length == 0) return absl::OkStatus();
  return io_->Allocate(handle_, AllocateMode::kPunchHole, offset, length);
}

bool BlockFile::IsDirect() const {
  return handle_ != kInvalidFile && io_->IsDirect(handle_);
}

}  // namespace cellsim::io
