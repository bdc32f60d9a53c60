// Private: block 1 of the files the database creates, which it writes itself
// after the creation path has formatted the file (docs/db.md "File headers"):
// the data file header (`db file single write`) and the redo log file header
// (`log file single write`). Both are valid blocks of their kind (Oracle cache
// header / redo block header with a correct checksum) carrying the identity
// of the file; the rest of the file is what the template generates.
#ifndef CELLSIM_DB_FILE_HEADERS_H_
#define CELLSIM_DB_FILE_HEADERS_H_

#include <cstdint>
#include <string>

#include "absl/types/span.h"

namespace cellsim::db::internal {

inline constexpr uint8_t kDataFileHeaderType = 0x0B;  // Oracle's file header block type

struct DataFileHeaderInfo {
  std::string db_name;
  uint32_t dbid = 0;
  uint32_t file_number = 0;   // relative file number
  uint32_t tablespace = 0;    // TS#
  std::string tablespace_name;
  uint32_t block_size = 8192;
  uint64_t file_blocks = 0;   // blocks incl. block 0
  uint64_t creation_change = 0;
  int64_t created_unix = 0;
};

struct LogFileHeaderInfo {
  std::string db_name;
  uint32_t dbid = 0;
  uint32_t thread = 1;
  uint32_t group = 0;
  uint32_t block_size = 512;
  uint64_t file_blocks = 0;   // blocks incl. block 0
  uint64_t creation_change = 0;
  int64_t created_unix = 0;
};

// Fill `out` (exactly one block) with block 1 of the file.
void BuildDataFileHeader(const DataFileHeaderInfo& info, absl::Span<uint8_t> out);
void BuildLogFileHeader(const LogFileHeaderInfo& info, absl::Span<uint8_t> out);

}  // namespace cellsim::db::internal

#endif  // CELLSIM_DB_FILE_HEADERS_H_
