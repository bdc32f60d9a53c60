// The SQL statements cellsim understands, parsed into plain structs, and a
// splitter for scripts (`cellsim sql -f FILE`). The grammar (docs/sql.md) is
// the subset of Oracle DDL that creates, extends and drops files:
//
//   CREATE [BIGFILE|SMALLFILE] [UNDO] TABLESPACE T [DATAFILE FILE [, FILE ...]] [BLOCKSIZE 8K]
//   CREATE [BIGFILE|SMALLFILE] TEMPORARY TABLESPACE T [TEMPFILE FILE [, ...]]
//   ALTER TABLESPACE T ADD DATAFILE|TEMPFILE FILE [, ...]
//     FILE: '+DG' SIZE 100M | '+DG' | SIZE 100M (Oracle-managed files: without
//     a disk group, DB_CREATE_FILE_DEST's; without SIZE, 100M; without the
//     clause, one such file)
//   DROP TABLESPACE T [INCLUDING CONTENTS [AND DATAFILES | KEEP DATAFILES]
//                      [CASCADE CONSTRAINTS]]
//   ALTER DATABASE ADD LOGFILE [THREAD n] [GROUP n] [('+DG'[, '+DG' ...])] [SIZE 4096M]
//                  [BLOCKSIZE 512|4096] [REUSE] [, [GROUP n] (...) SIZE ...]
//     (without members: one in DB_CREATE_FILE_DEST and one in
//     DB_RECOVERY_FILE_DEST; without SIZE, 100M)
//   ALTER DATABASE DROP LOGFILE GROUP n
//   ALTER DATABASE DATAFILE|TEMPFILE '+DATA/ORCL/DATAFILE/users.256.1' | file# RESIZE 200M
//   ALTER SESSION SET "_cell_fast_file_create" = TRUE|FALSE
//   ALTER SESSION SET cellsim_fast_file_create_metadata = TRUE|FALSE
//   ALTER SESSION SET name = value
//
// Keywords are case-insensitive; identifiers are uppercased unless
// double-quoted, as in Oracle. Errors are InvalidArgument and point at the
// place: "at 1:44: expected SIZE, found 'sise'" followed by the line and a caret.
//
// Usage:
//   absl::StatusOr<Statement> st = ParseStatement(
//       "alter database add logfile thread 2 group 5 ('+DATA','+RECO') size 4096m");
//   if (const auto* add = std::get_if<AddLogfile>(&*st)) { ... add->groups[0].members ... }
//   for (const std::string& sql : SplitStatements(script)) { ... ParseStatement(sql) ... }
//
// Thread-safety: pure functions.
#ifndef CELLSIM_DB_STATEMENT_H_
#define CELLSIM_DB_STATEMENT_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"

namespace cellsim::db {

// The real hidden parameter: FALSE turns cell offload of file creation off, so
// the database zero-fills (Oracle's "_cell_fast_file_create").
inline constexpr std::string_view kCellFastFileCreateParameter = "_cell_fast_file_create";
// cellsim's own parameter: FALSE forbids the metadata-only (fast) path, so a
// write-back cell formats every block itself (the smart path) and the three
// creation paths can be compared on one rack. Default TRUE.
inline constexpr std::string_view kFastFileCreateMetadataParameter =
    "cellsim_fast_file_create_metadata";

// Limits the parser enforces (inferred: Oracle's real limits depend on
// MAXINSTANCES / MAXLOGFILES of the control file; 1..1000 keeps numbers sane).
inline constexpr uint32_t kMaxLogThread = 1000;
inline constexpr uint32_t kMaxLogGroup = 1000;
// FILE# of a data file or tempfile: the rdba's 10 bits less 1023 (DB_FILES).
inline constexpr uint32_t kMaxFileNumber = 1022;
inline constexpr size_t kMaxIdentifierLength = 128;  // Oracle 12.2+ (ORA-00972)

// The file clause of a statement (Oracle's file_specification): '+DATA' SIZE 4096M.
// (What the database then asks ASM for is asmgr::FileSpec.)
struct FileClause {
  std::string disk_group;  // uppercased, without the '+': "DATA"; "": DB_CREATE_FILE_DEST
  uint64_t size_bytes = 0;  // 0: not given (Oracle-managed files' 100M)
  bool operator==(const FileClause&) const = default;
};

struct CreateTablespace {
  std::string name;
  std::vector<FileClause> datafiles;  // at least one
  uint32_t block_size = 0;          // 0: the database default (8192)
  // CREATE BIGFILE TABLESPACE: one data file of up to 2^32 - 1 blocks (a 1 TB
  // file needs it); kept in the file table, so ADD DATAFILE is refused later.
  bool bigfile = false;
  // CREATE UNDO TABLESPACE: CONTENTS UNDO (where transactions' undo goes).
  bool undo = false;
  // CREATE TEMPORARY TABLESPACE ... TEMPFILE: CONTENTS TEMPORARY; its files
  // are tempfiles (`datafiles` holds their clauses), never formatted.
  bool temporary = false;
  bool operator==(const CreateTablespace&) const = default;
};

struct AlterTablespaceAddDatafile {
  std::string name;
  std::vector<FileClause> datafiles;  // at least one
  bool tempfile = false;              // ADD TEMPFILE (a temporary tablespace's)
  bool operator==(const AlterTablespaceAddDatafile&) const = default;
};

struct DropTablespace {
  std::string name;
  bool including_contents = false;
  bool and_datafiles = false;  // INCLUDING CONTENTS AND DATAFILES
  bool keep_datafiles = false;  // INCLUDING CONTENTS KEEP DATAFILES
  bool cascade_constraints = false;
  bool operator==(const DropTablespace&) const = default;
};

// One redo log group of ADD LOGFILE: its members (one per disk group) share
// the size and block size.
struct LogGroupSpec {
  std::optional<uint32_t> group;     // GROUP n; unset: the database picks the next free
  // Disk group names, uppercased, without '+'; none: Oracle-managed (one in
  // DB_CREATE_FILE_DEST, one in DB_RECOVERY_FILE_DEST when it is set).
  std::vector<std::string> members;
  uint64_t size_bytes = 0;  // 0: not given (100M)
  uint32_t block_size = 0;  // 512 or 4096; 0: the default (512)
  bool reuse = false;
  bool operator==(const LogGroupSpec&) const = default;
};

struct AddLogfile {
  std::optional<uint32_t> thread;  // THREAD n; unset: the session's thread (1)
  std::vector<LogGroupSpec> groups;  // at least one; explicit group numbers distinct
  bool operator==(const AddLogfile&) const = default;
};

struct DropLogfileGroup {
  uint32_t group = 0;
  bool operator==(const DropLogfileGroup&) const = default;
};

// ALTER DATABASE DATAFILE|TEMPFILE 'name' | file# RESIZE size: the file
// (by its full ASM name, case-insensitive, or its FILE#) grows or shrinks to
// SIZE (+ block 0, as at creation).
struct ResizeDataFile {
  bool tempfile = false;
  uint32_t file_number = 0;  // FILE#; 0: by name
  std::string file_name;     // as written, without the quotes
  uint64_t size_bytes = 0;
  bool operator==(const ResizeDataFile&) const = default;
};

// ALTER SESSION SET "_cell_fast_file_create" = TRUE|FALSE
struct SetCellFastFileCreate {
  bool enabled = true;
  bool operator==(const SetCellFastFileCreate&) const = default;
};

// ALTER SESSION SET cellsim_fast_file_create_metadata = TRUE|FALSE
struct SetFastFileCreateMetadata {
  bool enabled = true;
  bool operator==(const SetFastFileCreateMetadata&) const = default;
};

// Any other ALTER SESSION SET name = value, kept for the session to accept or
// reject (the parser does not know every Oracle parameter).
struct SetParameter {
  std::string name;   // lowercased (Oracle parameter names are case-insensitive)
  std::string value;  // as written; quotes removed from a string literal
  bool value_is_string = false;  // the value was a '...' literal
  bool operator==(const SetParameter&) const = default;
};

// ALTER DISKGROUP name ONLINE DISK d | ONLINE ALL | OFFLINE DISK d: a DBA
// managing disk state (ONLINE resyncs the extents written while the disk was
// offline, then marks it online).
struct AlterDiskgroupDisks {
  std::string disk_group;  // upper case, without '+'
  bool online = true;
  std::string disk;        // grid disk name, upper case; empty for ONLINE ALL
  bool operator==(const AlterDiskgroupDisks&) const = default;
};

// ALTER DISKGROUP name SCRUB [FILE 'name' | DISK d] [REPAIR | NOREPAIR]
//   [POWER {AUTO | LOW | HIGH | MAX}] [WAIT | NOWAIT] [FORCE | NOFORCE] [STOP]
// (ASM's disk scrubbing): reads every copy of the group's (or the file's, or
// the disk's) extents, compares them block by block, reports where they
// differ and which copy fails Oracle's block checks, and with REPAIR rewrites
// that copy from the good one (asmgr::DiskGroup::Scrub). cellsim scrubs
// within the statement, as with WAIT, at full speed: POWER, NOWAIT and FORCE
// are accepted and change nothing; STOP finds no scrub running.
struct ScrubDiskgroup {
  std::string disk_group;  // upper case, without '+'
  std::string file;        // an ASM file name as written, or empty
  std::string disk;        // a disk name, upper case, or empty
  bool repair = false;
  std::string power;       // AUTO, LOW, HIGH or MAX as written (upper case), or empty
  std::string wait;        // WAIT or NOWAIT, or empty
  std::string force;       // FORCE or NOFORCE, or empty
  bool stop = false;
  bool operator==(const ScrubDiskgroup&) const = default;
};

using Statement =
    std::variant<CreateTablespace, AlterTablespaceAddDatafile, DropTablespace, AddLogfile,
                 DropLogfileGroup, ResizeDataFile, SetCellFastFileCreate, SetFastFileCreateMetadata,
                 SetParameter, AlterDiskgroupDisks, ScrubDiskgroup>;

// Parses one statement (an optional trailing ';' is allowed). Errors:
// InvalidArgument with "at LINE:COL: what was expected, found what", the line and
// a caret; for malformed SQL, an empty statement, size 0 or sizes past 64 bits,
// a disk group not written '+NAME', THREAD / GROUP outside 1..1000, a duplicate
// group number, a block size Oracle does not allow (data files 2K..32K, logs
// 512 or 4096), a too long identifier, unterminated quotes and comments.
[[nodiscard]] absl::StatusOr<Statement> ParseStatement(std::string_view sql);

// Splits a script on ';' outside quotes and comments. Each piece is trimmed and
// has no ';'; pieces holding nothing but whitespace and comments are dropped.
// Text after the last ';' is a statement too. An unterminated quote or comment
// runs to the end of the text (ParseStatement then reports it). The SQL*Plus
// commands SHOW and WHENEVER end at their line's end. An anonymous PL/SQL
// block (IsPlsqlBlock) keeps its semicolons and runs to a line holding only
// '/' (which is dropped), or to the end of the text.
std::vector<std::string> SplitStatements(std::string_view text);
// Whether `text` starts an anonymous PL/SQL block: its first word is
// DECLARE or BEGIN (blanks and comments before it skipped).
bool IsPlsqlBlock(std::string_view text);
// Whether `text` starts with a SQL*Plus command, which ends at its line's end
// without ';' (any case, followed by a blank): SHOW, WHENEVER, ARCHIVE (LOG
// LIST), DESC[RIBE], START, the display settings the CLI takes (SET, PROMPT,
// COLUMN ...), EXEC[UTE] (a PL/SQL call on one line); EXIT or QUIT also
// alone; @script and @@script.
bool IsSqlPlusCommandStart(std::string_view text);

// "CREATE TABLESPACE", "ALTER DATABASE ADD LOGFILE", "ALTER SESSION SET", ...
std::string_view StatementKind(const Statement& statement);

// The statement in canonical Oracle form (uppercase keywords, sizes in the
// largest exact unit): ParseStatement(ToSql(s)) == s.
std::string ToSql(const Statement& statement);

}  // namespace cellsim::db

#endif  // CELLSIM_DB_STATEMENT_H_
