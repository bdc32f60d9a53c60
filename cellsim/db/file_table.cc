// FileTable encoding: a versioned sequence of little-endian fields (layout in
// docs/db.md "File table"). The control file wraps it in checksummed blocks, so
// this layer only needs bounds and sanity checks.
#include "cellsim/db/file_table.h"

#include <fmt/format.h>

#include "cellsim/base/checksum.h"

namespace cellsim::db {
namespace {

constexpr uint32_t kMaxName = 1024;

void PutRef(Encoder& e, const AsmFileRef& r) {
  e.PutString(r.disk_group);
  e.PutU32(r.number);
  e.PutString(r.name);
}

// A small reader that remembers the first failure, so decoding reads as a
// plain sequence of fields.
class Reader {
 public:
  explicit Reader(absl::Span<const uint8_t> b) : d_(b) {}
  template <typename T>
  void U(T* v, const char* what) {
    if (!ok_) return;
    bool good = false;
    if constexpr (sizeof(T) == 1) {
      good = d_.GetU8(reinterpret_cast<uint8_t*>(v));
    } else if constexpr (sizeof(T) == 2) {
      good = d_.GetU16(reinterpret_cast<uint16_t*>(v));
    } else if constexpr (sizeof(T) == 4) {
      good = d_.GetU32(reinterpret_cast<uint32_t*>(v));
    } else {
      good = d_.GetU64(reinterpret_cast<uint64_t*>(v));
    }
    if (!good) Fail(what);
  }
  void S(std::string* s, const char* what) {
    if (ok_ && !d_.GetString(s, kMaxName)) Fail(what);
  }
  void Ref(AsmFileRef* r) {
    S(&r->disk_group, "file disk group");
    U(&r->number, "file number");
    S(&r->name, "file name");
  }
  uint32_t Count(const char* what) {
    uint32_t n = 0;
    U(&n, what);
    if (ok_ && n > FileTable::kMaxEntries) {
      ok_ = false;
      error_ = absl::DataLossError(fmt::format(
          "file table: {} count {} exceeds the limit {}", what, n, FileTable::kMaxEntries));
    }
    return ok_ ? n : 0;
  }
  void State(EntryState* s, const char* what) {
    uint8_t v = 0;
    U(&v, what);
    if (ok_ && v > static_cast<uint8_t>(EntryState::kAvailable)) {
      ok_ = false;
      error_ = absl::DataLossError(fmt::format("file table: {} has unknown state {}", what, v));
    }
    *s = static_cast<EntryState>(v);
  }
  void Fail(const char* what) {
    ok_ = false;
    error_ = d_.Truncated(fmt::format("file table field '{}'", what));
  }
  bool ok() const { return ok_; }
  const absl::Status& error() const { return error_; }
  size_t remaining() const { return d_.remaining(); }

 private:
  Decoder d_;
  bool ok_ = true;
  absl::Status error_;
};

}  // namespace

std::string_view TablespaceContentsName(TablespaceContents c) {
  switch (c) {
    case TablespaceContents::kUndo:
      return "UNDO";
    case TablespaceContents::kTemporary:
      return "TEMPORARY";
    case TablespaceContents::kPermanent:
      break;
  }
  return "PERMANENT";
}

std::string_view EntryStateName(EntryState s) {
  return s == EntryState::kCreating ? "CREATING" : "AVAILABLE";
}

const Tablespace* FileTable::FindTablespace(std::string_view name) const {
  for (const Tablespace& t : tablespaces) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

const Tablespace* FileTable::TablespaceOf(const DataFile& f) const {
  for (const Tablespace& t : tablespaces) {
    if (t.number == f.tablespace) return &t;
  }
  return nullptr;
}

const DataFile* FileTable::FindDataFile(uint32_t file_number) const {
  for (const DataFile& f : data_files) {
    if (f.file_number == file_number) return &f;
  }
  return nullptr;
}

const LogGroup* FileTable::FindLogGroup(uint32_t group) const {
  for (const LogGroup& g : log_groups) {
    if (g.group == group) return &g;
  }
  return nullptr;
}

std::vector<AsmFileRef> FileTable::AllFiles() const {
  std::vector<AsmFileRef> out;
  for (const DataFile& f : data_files) {
    if (!f.file.name.empty()) out.push_back(f.file);
  }
  for (const LogGroup& g : log_groups) {
    for (const LogMember& m : g.members) out.push_back(m.file);
  }
  for (const ArchivedLog& a : archived_logs) out.push_back(a.file);
  return out;
}

std::vector<uint8_t> FileTable::Encode() const {
  Encoder e;
  e.PutU16(kFormatVersion);
  e.PutString(db_name);
  e.PutU32(dbid);
  e.PutU64(static_cast<uint64_t>(created_unix));
  e.PutU32(static_cast<uint32_t>(tablespaces.size()));
  for (const Tablespace& t : tablespaces) {
    e.PutU32(t.number);
    e.PutString(t.name);
    e.PutU32(t.block_size);
    e.PutU8(t.bigfile ? 1 : 0);
    e.PutU8(static_cast<uint8_t>(t.contents));
  }
  e.PutU32(static_cast<uint32_t>(data_files.size()));
  for (const DataFile& f : data_files) {
    e.PutU32(f.file_number);
    e.PutU32(f.tablespace);
    PutRef(e, f.file);
    e.PutU64(f.size_bytes);
    e.PutU32(f.block_size);
    e.PutU8(static_cast<uint8_t>(f.state));
    e.PutU64(static_cast<uint64_t>(f.created_unix));
    e.PutU64(f.creation_change);
  }
  e.PutU32(static_cast<uint32_t>(threads.size()));
  for (const LogThread& t : threads) {
    e.PutU32(t.thread);
    e.PutU8(t.enabled ? 1 : 0);
  }
  e.PutU32(static_cast<uint32_t>(log_groups.size()));
  for (const LogGroup& g : log_groups) {
    e.PutU32(g.group);
    e.PutU32(g.thread);
    e.PutU64(g.size_bytes);
    e.PutU32(g.block_size);
    e.PutU8(static_cast<uint8_t>(g.state));
    e.PutU64(static_cast<uint64_t>(g.created_unix));
    e.PutU64(g.creation_change);
    e.PutU32(static_cast<uint32_t>(g.members.size()));
    for (const LogMember& m : g.members) PutRef(e, m.file);
  }
  e.PutU32(static_cast<uint32_t>(kept_files.size()));
  for (const AsmFileRef& r : kept_files) PutRef(e, r);
  e.PutU8(archivelog ? 1 : 0);
  e.PutU32(static_cast<uint32_t>(archived_logs.size()));
  for (const ArchivedLog& a : archived_logs) {
    e.PutU32(a.thread);
    e.PutU64(a.sequence);
    e.PutU64(a.first_change);
    e.PutU64(a.next_change);
    e.PutU64(a.blocks);
    e.PutU32(a.block_size);
    PutRef(e, a.file);
    e.PutU64(static_cast<uint64_t>(a.completion_unix));
  }
  return std::move(e.bytes());
}

namespace {

void DecodeArchivedLogs(Reader& r, FileTable* t) {
  uint8_t mode = 0;
  r.U(&mode, "log mode");
  t->archivelog = mode != 0;
  for (uint32_t i = 0, n = r.Count("archived log"); i < n && r.ok(); ++i) {
    ArchivedLog a;
    r.U(&a.thread, "archived log thread");
    r.U(&a.sequence, "archived log sequence");
    r.U(&a.first_change, "archived log first change");
    r.U(&a.next_change, "archived log next change");
    r.U(&a.blocks, "archived log blocks");
    r.U(&a.block_size, "archived log block size");
    r.Ref(&a.file);
    uint64_t c = 0;
    r.U(&c, "archived log completion");
    a.completion_unix = static_cast<int64_t>(c);
    t->archived_logs.push_back(std::move(a));
  }
}

}  // namespace

absl::StatusOr<FileTable> FileTable::Decode(absl::Span<const uint8_t> bytes) {
  Reader r(bytes);
  FileTable t;
  uint16_t version = 0;
  r.U(&version, "version");
  if (r.ok() && (version < 1 || version > kFormatVersion)) {
    return absl::DataLossError(fmt::format(
        "file table: {} {}, this build reads version {}",
        version > kFormatVersion ? "newer format version" : "unsupported format version",
        version, kFormatVersion));
  }
  r.S(&t.db_name, "db name");
  r.U(&t.dbid, "dbid");
  uint64_t created = 0;
  r.U(&created, "created");
  t.created_unix = static_cast<int64_t>(created);
  for (uint32_t i = 0, n = r.Count("tablespace"); i < n && r.ok(); ++i) {
    Tablespace ts;
    r.U(&ts.number, "tablespace number");
    r.S(&ts.name, "tablespace name");
    r.U(&ts.block_size, "tablespace block size");
    if (version >= 3) {
      uint8_t bigfile = 0, contents = 0;
      r.U(&bigfile, "tablespace bigfile flag");
      r.U(&contents, "tablespace contents");
      if (r.ok() && (bigfile > 1 || contents > static_cast<uint8_t>(TablespaceContents::kTemporary))) {
        return absl::DataLossError(fmt::format(
            "file table: tablespace {} has bigfile flag {} and contents {} (expected 0-1 and 0-2)",
            ts.name, bigfile, contents));
      }
      ts.bigfile = bigfile != 0;
      ts.contents = static_cast<TablespaceContents>(contents);
    }
    t.tablespaces.push_back(std::move(ts));
  }
  for (uint32_t i = 0, n = r.Count("data file"); i < n && r.ok(); ++i) {
    DataFile f;
    r.U(&f.file_number, "data file number");
    r.U(&f.tablespace, "data file tablespace");
    r.Ref(&f.file);
    r.U(&f.size_bytes, "data file size");
    r.U(&f.block_size, "data file block size");
    r.State(&f.state, "data file");
    uint64_t c = 0;
    r.U(&c, "data file created");
    f.created_unix = static_cast<int64_t>(c);
    r.U(&f.creation_change, "data file creation change");
    t.data_files.push_back(std::move(f));
  }
  for (uint32_t i = 0, n = r.Count("thread"); i < n && r.ok(); ++i) {
    LogThread th;
    uint8_t enabled = 0;
    r.U(&th.thread, "thread number");
    r.U(&enabled, "thread enabled");
    th.enabled = enabled != 0;
    t.threads.push_back(th);
  }
  for (uint32_t i = 0, n = r.Count("log group"); i < n && r.ok(); ++i) {
    LogGroup g;
    r.U(&g.group, "log group number");
    r.U(&g.thread, "log group thread");
    r.U(&g.size_bytes, "log group size");
    r.U(&g.block_size, "log group block size");
    r.State(&g.state, "log group");
    uint64_t c = 0;
    r.U(&c, "log group created");
    g.created_unix = static_cast<int64_t>(c);
    r.U(&g.creation_change, "log group creation change");
    for (uint32_t k = 0, m = r.Count("log member"); k < m && r.ok(); ++k) {
      LogMember mem;
      r.Ref(&mem.file);
      g.members.push_back(std::move(mem));
    }
    t.log_groups.push_back(std::move(g));
  }
  for (uint32_t i = 0, n = version >= 2 ? r.Count("kept file") : 0; i < n && r.ok(); ++i) {
    AsmFileRef ref;
    r.Ref(&ref);
    t.kept_files.push_back(std::move(ref));
  }
  if (version >= 4) DecodeArchivedLogs(r, &t);
  if (!r.ok()) return r.error();
  if (r.remaining() != 0) {
    return absl::DataLossError(
        fmt::format("file table: {} unexpected bytes after the last entry", r.remaining()));
  }
  return t;
}

}  // namespace cellsim::db
