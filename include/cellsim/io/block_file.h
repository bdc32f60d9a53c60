// BlockFile: a fixed-size file of equal blocks (a grid disk, a flash device),
// created sparse and accessed through an IoBackend.
//
// Usage:
//   auto disk = *BlockFile::Create(io, "/rack/cel01/DATA_CD_00.img",
//                                  {.block_size = 4096, .block_count = 1 << 20});
//   ASSERT_OK(disk->Write(offset, data));        // byte offsets, block-aligned
//   ASSERT_OK(disk->Read(offset, absl::MakeSpan(buf)));
//   ASSERT_OK(disk->Sync());
//
// The file is sparse (ftruncate to size): creating a 1 TiB grid disk costs nothing
// until written. O_DIRECT is used when requested and the filesystem allows it; the
// mode in use is reported by IsDirect(). Thread-safety: concurrent calls are safe
// (the backend is); the object must outlive no backend.
#ifndef CELLSIM_IO_BLOCK_FILE_H_
#define CELLSIM_IO_BLOCK_FILE_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "cellsim/io/io_backend.h"

namespace cellsim::io {

struct BlockFileOptions {
  uint32_t block_size = 4096;  // power of two, >= 512
  uint64_t block_count = 0;    // file size = block_size * block_count
  bool direct = false;         // O_DIRECT (fails clearly if unsupported)
  bool read_only = false;      // Open only: O_RDONLY (writes fail with the system error)
};

class BlockFile {
 public:
  // Creates (or truncates) `path` as a sparse file of the given size.
  // Errors: InvalidArgument for a bad block size or zero count; AlreadyExists
  // never (an existing file is replaced).
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<BlockFile>> Create(
      IoBackend* io, const std::string& path, const BlockFileOptions& options);
  // Opens an existing block file; its size must be block_size * block_count
  // (when block_count is 0, the count is derived from the size, which must then
  // be a multiple of block_size). Errors name the path and both sizes.
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<BlockFile>> Open(
      IoBackend* io, const std::string& path, const BlockFileOptions& options);

  ~BlockFile();  // closes the handle (errors are ignored; call Close() to see them)
  [[nodiscard]] absl::Status Close();

  // Byte-addressed I/O. Offsets and lengths must be multiples of block_size
  // and inside the file (OutOfRange names the file, offset and size otherwise).
  [[nodiscard]] absl::Status Read(uint64_t offset, absl::Span<uint8_t> out) const;
  [[nodiscard]] absl::Status Write(uint64_t offset, absl::Span<const uint8_t> data);
  [[nodiscard]] absl::Status Sync(SyncKind kind = SyncKind::kData);
  // Deallocates a range (punch hole); it then reads as zeros.
  [[nodiscard]] absl::Status Discard(uint64_t offset, uint64_t length);
  // Validates that [offset, offset+length) is block-aligned and in range.
  [[nodiscard]] absl::Status CheckRange(uint64_t offset, uint64_t length) const;

  IoBackend* io() const { return io_; }
  FileHandle handle() const { return handle_; }
  const std::string& path() const { return path_; }
  uint32_t block_size() const { return block_size_; }
  uint64_t block_count() const { return block_count_; }
  uint64_t size_bytes() const { return uint64_t{block_size_} * block_count_; }
  bool IsDirect() const;

 private:
  BlockFile(IoBackend* io, FileHandle handle, std::string path, uint32_t block_size,
            uint64_t block_count);
  IoBackend* io_;
  FileHandle handle_;
  std::string path_;
  uint32_t block_size_;
  uint64_t block_count_;
};

}  // namespace cellsim::io

#endif  // CELLSIM_IO_BLOCK_FILE_H_
