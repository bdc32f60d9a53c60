// The database's file table: what its control file records about the files it
// owns (tablespaces and their data files, redo threads, online log groups and
// their members), as plain structs, with the versioned binary encoding the
// control file stores (docs/db.md "File table").
//
// A Database keeps one FileTable in memory and writes it to both control-file
// copies on every change; front ends read a copy of it (Database::file_table())
// to show v$log / v$logfile / v$datafile / v$tablespace-like views.
//
// Usage:
//   FileTable t = db->file_table();
//   for (const LogGroup& g : t.log_groups) fmt::print("{} {}\n", g.group, g.size_bytes);
//   const DataFile* f = t.FindDataFile(5);
//
// Thread-safety: plain values.
#ifndef CELLSIM_DB_FILE_TABLE_H_
#define CELLSIM_DB_FILE_TABLE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace cellsim::db {

// Life cycle of a file-table entry. CREATING entries are written before a file
// is formatted, so that a crash part-way leaves a record Database::Open uses
// to remove the half-made files.
enum class EntryState : uint8_t {
  kCreating = 0,
  kAvailable = 1,  // data files: AVAILABLE; log groups: UNUSED (never current)
};
std::string_view EntryStateName(EntryState s);  // "CREATING", "AVAILABLE"

// Blocks of a data file, tempfile or online log member on disk: SIZE / block
// size + 1, block 0 (the OS header) first; the file header is block 1. A data
// file of SIZE 100M is 104,865,792 bytes, a 50M log member 52,429,312.
constexpr uint64_t OnDiskBlocks(uint64_t size_bytes, uint32_t block_size) {
  return size_bytes / block_size + 1;
}

// One ASM file the database owns.
struct AsmFileRef {
  std::string disk_group;  // "DATA"
  uint32_t number = 0;     // ASM file number (256, 257, ...)
  std::string name;        // "+DATA/ORCL/ONLINELOG/group_5.256.1700000000"
  bool operator==(const AsmFileRef&) const = default;
};

// DBA_TABLESPACES.CONTENTS.
enum class TablespaceContents : uint8_t { kPermanent = 0, kUndo = 1, kTemporary = 2 };
std::string_view TablespaceContentsName(TablespaceContents c);  // "PERMANENT", ...

struct Tablespace {
  uint32_t number = 0;  // TS#
  std::string name;     // "USERS"
  uint32_t block_size = 8192;
  // CREATE BIGFILE TABLESPACE: one data file of up to 2^32 - 1 blocks; ADD
  // DATAFILE is refused (ORA-32771). Format version 3.
  bool bigfile = false;
  TablespaceContents contents = TablespaceContents::kPermanent;  // format version 3
  bool operator==(const Tablespace&) const = default;
};

struct DataFile {
  uint32_t file_number = 0;  // relative file number (1..1022): rdba's file#
  uint32_t tablespace = 0;   // TS#
  AsmFileRef file;
  uint64_t size_bytes = 0;   // usable bytes (blocks x block size), without block 0
  uint32_t block_size = 8192;
  EntryState state = EntryState::kCreating;
  int64_t created_unix = 0;
  uint64_t creation_change = 0;  // control-file sequence when it was created
  bool operator==(const DataFile&) const = default;
};

struct LogThread {
  uint32_t thread = 0;
  bool enabled = false;  // cellsim never opens threads: always DISABLED
  bool operator==(const LogThread&) const = default;
};

struct LogMember {
  AsmFileRef file;
  bool operator==(const LogMember&) const = default;
};

struct LogGroup {
  uint32_t group = 0;   // GROUP# (log#)
  uint32_t thread = 1;
  uint64_t size_bytes = 0;   // bytes of each member (block 0 included)
  uint32_t block_size = 512;
  std::vector<LogMember> members;
  EntryState state = EntryState::kCreating;
  int64_t created_unix = 0;
  uint64_t creation_change = 0;
  bool operator==(const LogGroup&) const = default;
};

// One log ARCH copied (V$ARCHIVED_LOG). Format version 4.
struct ArchivedLog {
  uint32_t thread = 1;
  uint64_t sequence = 0;      // SEQUENCE#
  uint64_t first_change = 0;  // FIRST_CHANGE#: the SCN the log starts at
  uint64_t next_change = 0;   // NEXT_CHANGE#: the SCN the next log starts at
  uint64_t blocks = 0;        // redo blocks copied (block 0 and the header included)
  uint32_t block_size = 512;
  AsmFileRef file;            // "+RECO/ORCL/ARCHIVELOG/thread_1_seq_7.259.1700000000"
  int64_t completion_unix = 0;
  bool operator==(const ArchivedLog&) const = default;
};

struct FileTable {
  std::string db_name;  // "ORCL"
  uint32_t dbid = 0;
  int64_t created_unix = 0;
  std::vector<Tablespace> tablespaces;
  std::vector<DataFile> data_files;
  std::vector<LogThread> threads;
  std::vector<LogGroup> log_groups;
  // Data files of tablespaces dropped with KEEP DATAFILES: no longer part of
  // the database (not in AllFiles), but left in ASM, and recovery at open
  // never removes them as leftovers (format version 2).
  std::vector<AsmFileRef> kept_files;
  // ARCHIVELOG mode (V$DATABASE.LOG_MODE) and the logs ARCH copied, oldest
  // first; at most kMaxArchivedLogs are kept (format version 4).
  bool archivelog = false;
  std::vector<ArchivedLog> archived_logs;

  bool operator==(const FileTable&) const = default;

  const Tablespace* FindTablespace(std::string_view name) const;
  // The tablespace data file `f` belongs to (null when the table has none
  // of its number).
  const Tablespace* TablespaceOf(const DataFile& f) const;
  const DataFile* FindDataFile(uint32_t file_number) const;
  const LogGroup* FindLogGroup(uint32_t group) const;
  // Every ASM file the table refers to (archived logs included).
  std::vector<AsmFileRef> AllFiles() const;

  // Versioned, bounds-checked encoding (docs/db.md). Decode fails with DataLoss
  // naming the field on truncated or malformed input, an unknown version, or
  // counts beyond the limits below.
  std::vector<uint8_t> Encode() const;
  [[nodiscard]] static absl::StatusOr<FileTable> Decode(absl::Span<const uint8_t> bytes);

  // Version 2 added kept_files, version 3 each tablespace's bigfile flag and
  // contents, version 4 the log mode and archived logs; older tables still
  // decode (none kept; smallfile, permanent; NOARCHIVELOG).
  static constexpr uint16_t kFormatVersion = 4;
  static constexpr uint32_t kMaxEntries = 65536;  // per list
  // Archived-log records the table keeps (the control file's slot holds about
  // twice as many); ARCH deletes the oldest copy beyond it, as a recovery
  // area reclaims obsolete archived logs.
  static constexpr size_t kMaxArchivedLogs = 1000;
};

}  // namespace cellsim::db

#endif  // CELLSIM_DB_FILE_TABLE_H_
