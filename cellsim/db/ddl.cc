// The file statements: ADD LOGFILE, DROP LOGFILE GROUP, CREATE TABLESPACE,
// ALTER TABLESPACE ADD DATAFILE, DROP TABLESPACE.
//
// Every creating statement follows one protocol (docs/db.md "Creating a file"):
//   1. under the table lock: control-file read, validation, and CREATING
//      entries that reserve group and file numbers;
//   2. ASM creates the files (extent allocation: `KSV master wait`; the
//      disk groups at once);
//   3. under the lock: control-file read, the entries get their ASM names,
//      control-file write (a crash from here on is undone by Database::Open);
//   4. per file: open (`Disk file operations I/O`), extent map (`ASM file
//      metadata operation`), formatting by the chosen path, header block;
//   5. under the lock: control-file read, entries become AVAILABLE,
//      control-file write.
// A failure deletes the ASM files made so far and removes the entries.
#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "cellsim/base/clock.h"
#include "cellsim/db/creation.h"
#include "cellsim/db/data_engine.h"
#include "cellsim/db/database_state.h"
#include "cellsim/db/file_headers.h"
#include "cellsim/io/io_backend.h"

namespace cellsim::db::internal {
namespace {

using stats::Wait;

constexpr uint64_t kMaxDataFileBlocks = 4194303;    // smallfile limit (ORA-01144)
constexpr uint64_t kMaxLogFileBlocks = uint64_t{1} << 32;  // redo block# is 32 bits
constexpr uint64_t kMaxBigfileBlocks = 4294967295;  // bigfile limit (2^32 - 1 blocks)
constexpr uint32_t kDefaultDataBlockSize = 8192;
constexpr uint32_t kDefaultRedoBlockSize = 512;

#define DB_RETURN_IF_ERROR(expr)              \
  do {                                        \
    absl::Status _st = (expr);                \
    if (!_st.ok()) return _st;                \
  } while (0)

struct PlannedFile {
  asmgr::DiskGroup* dg = nullptr;
  asmgr::FileSpec spec;
  format::BlockTemplate block_template;
  Wait init_wait = Wait::kDataFileInitWrite;
  Wait header_wait = Wait::kDbFileSingleWrite;
  uint64_t header_offset = 0;
  uint64_t header_bytes = 0;
  std::function<void(absl::Span<uint8_t>)> build_header;
  // False for a tempfile: Oracle writes only its header and formats its
  // blocks at first use (tempfiles are created sparse), so no path runs.
  bool format_blocks = true;
  size_t owner = 0;  // index of the group / data file entry it belongs to
  // --- as it goes ---
  asmgr::FileInfo info;
  bool created = false;
};

// Changes the statement makes to the file table at steps 3 and 5, and how to
// take its reservations back.
struct Protocol {
  bool is_log = false;
  std::function<void(FileTable&, const std::vector<PlannedFile>&)> record;
  std::function<void(FileTable&)> commit;
  std::function<void(FileTable&)> rollback;
};

std::string Plus(const std::string& dg) { return "+" + dg; }

// The control-file reads a creating statement starts with (parse and
// validation: ControlFileOptions::statement_reads, at least one), from the
// last control file (+RECO's when there is one: the seed's 3 reads that were
// not flash hits [I]).
absl::Status StatementReads(Database::State& db, Recorder& rec)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(db.mu) {
  const uint32_t n = std::max<uint32_t>(1, db.options.control_files.statement_reads);
  for (uint32_t i = 0; i < n; ++i) {
    DB_RETURN_IF_ERROR(db.cf->ReadCurrent(rec, db.cf->files().size() - 1));
  }
  return absl::OkStatus();
}

// `transactions` control-file transactions (docs/statistics.md "Control-file
// transactions"): each reads the current table reads_per_transaction times and
// writes it writes_per_transaction times to every control file (begin, then
// commit); `change` is made to the table before the first one's commit.
absl::Status ControlFileTransactions(Database::State& db, Recorder& rec, uint64_t transactions,
                                     const std::function<void(FileTable&)>& change)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(db.mu) {
  const ControlFileOptions& o = db.options.control_files;
  const uint32_t writes = std::max<uint32_t>(1, o.writes_per_transaction);
  for (uint64_t x = 0; x < transactions; ++x) {
    for (uint32_t r = 0; r < o.reads_per_transaction; ++r) {
      DB_RETURN_IF_ERROR(db.cf->ReadCurrent(rec));
    }
    for (uint32_t w = 0; w + 1 < writes; ++w) DB_RETURN_IF_ERROR(db.cf->Write(db.table, rec));
    if (x == 0) change(db.table);
    DB_RETURN_IF_ERROR(db.cf->Write(db.table, rec));
  }
  return absl::OkStatus();
}

absl::Status CreationError(const absl::Status& cause, const PlannedFile& f, bool is_log) {
  const std::string what = f.created ? f.info.name : Plus(f.dg->name());
  const std::string msg(cause.message());
  if (cause.code() == absl::StatusCode::kResourceExhausted) {
    return absl::ResourceExhaustedError(
        fmt::format("ORA-15041: disk group {} space exhausted: {}", f.dg->name(), msg));
  }
  if (is_log) {
    return absl::Status(cause.code(), fmt::format("ORA-00301: error in adding log file '{}' - "
                                                  "file cannot be created: {}",
                                                  what, msg));
  }
  return absl::Status(cause.code(),
                      fmt::format("ORA-01119: error in creating database file '{}': {}", what, msg));
}

// One run of the creation protocol (the file comment) over `files`: each step
// returns the statement's error after undoing what the run did so far.
class CreationRun {
 public:
  CreationRun(Session::State& s, Recorder& rec, std::vector<PlannedFile>& files,
              const Protocol& p)
      : s_(s), db_(*s.db), rec_(rec), files_(files), p_(p) {}

  absl::Status Run(ExecOutcome* out) {
    // 1. The statement's own CPU and bookkeeping (a simulated clock charges it).
    rec_.clock()->Charge(Clock::Work::kStatement);
    DB_RETURN_IF_ERROR(AllocateExtents());
    DB_RETURN_IF_ERROR(UpdateControlFile(/*commit=*/false));
    DB_RETURN_IF_ERROR(OpenAndMap());
    std::vector<uint64_t> format_ns(files_.size(), 0);
    DB_RETURN_IF_ERROR(Format(&format_ns));
    DB_RETURN_IF_ERROR(WriteHeaders(format_ns, out));
    // 5. Commit, unless the call was cancelled meanwhile (ORA-01013 undoes it).
    if (Cancelled(s_.cancel)) return Fail(CancelStatus());
    return UpdateControlFile(/*commit=*/true);
  }

 private:
  // Deletes the ASM files made so far, takes the reservations back, and
  // returns `cause` (with what could not be undone).
  absl::Status Fail(absl::Status cause) {
    std::string cleanup;
    for (PlannedFile& f : files_) {
      if (!f.created) continue;
      absl::Status st =
          rec_.Timed(Wait::kKsvMasterWait, [&] { return f.dg->DeleteFile(f.info.number); });
      if (!st.ok()) cleanup += fmt::format("; could not delete {}: {}", f.info.name, std::string(st.message()));
    }
    {
      MutexLock lock(&db_.mu);
      p_.rollback(db_.table);
      if (recorded_) {
        absl::Status st = db_.cf->ReadCurrent(rec_);
        if (st.ok()) st = db_.cf->Write(db_.table, rec_);
        if (!st.ok()) cleanup += fmt::format("; control file: {}", std::string(st.message()));
      }
    }
    if (cleanup.empty()) return cause;
    return absl::Status(cause.code(),
                        fmt::format("{} (cleanup incomplete: the next open of the database finishes it{})",
                                    std::string(cause.message()), cleanup));
  }

  // 2. ASM allocates the extents. The files of different disk groups are
  // independent (each group has its own catalog and journal): the groups
  // create theirs at once (ForkJoin), each its own files in statement order,
  // stopping at its first failure. Each create is one `KSV master wait`,
  // recorded afterwards in file order as the foreground waits for them, one
  // after the other: file i's wait lasts from the end of file i-1's to the
  // later of that and its own create's end (so the waits add up to the step's
  // elapsed time). A failure deletes every file created, in any group.
  absl::Status AllocateExtents() {
    std::vector<asmgr::DiskGroup*> groups;
    std::vector<std::vector<size_t>> group_files;  // indexes into files_, in order
    for (size_t i = 0; i < files_.size(); ++i) {
      const size_t g = static_cast<size_t>(
          std::find(groups.begin(), groups.end(), files_[i].dg) - groups.begin());
      if (g == groups.size()) {
        groups.push_back(files_[i].dg);
        group_files.emplace_back();
      }
      group_files[g].push_back(i);
    }
    std::vector<std::optional<absl::StatusOr<asmgr::FileInfo>>> made(files_.size());
    std::vector<uint64_t> end_ns(files_.size(), 0);
    Clock* clock = rec_.clock();
    const uint64_t start = clock->NowNanos();
    ForkJoin(clock, groups.size(), [&](size_t g) {
      for (size_t i : group_files[g]) {
        made[i] = files_[i].dg->CreateFile(files_[i].spec);
        end_ns[i] = clock->NowNanos();
        if (!made[i]->ok()) break;
      }
    });
    uint64_t waited_until = start;
    const PlannedFile* failed = nullptr;
    absl::Status cause;
    for (size_t i = 0; i < files_.size(); ++i) {
      if (!made[i].has_value()) continue;  // its group stopped at an earlier failure
      const uint64_t end = std::max(waited_until, end_ns[i]);
      rec_.WaitEndedAt(Wait::kKsvMasterWait, end - waited_until, end, {});
      waited_until = end;
      if (!made[i]->ok()) {
        if (failed == nullptr) {
          failed = &files_[i];
          cause = made[i]->status();
        }
        continue;
      }
      files_[i].info = **std::move(made[i]);
      files_[i].created = true;
    }
    if (failed != nullptr) return Fail(CreationError(cause, *failed, p_.is_log));
    return absl::OkStatus();
  }

  // 3. and 5.: control-file transactions under the table lock (docs/
  // statistics.md "Control-file transactions"). Step 3 records the entries'
  // names; step 5 makes them AVAILABLE. A statement of M files runs
  // M + extra_transactions in all, at least one in each step: step 5 runs
  // extra_transactions - 1 of them (the group valid, the thread record), step 3
  // the rest (the reservation, one per file). Each reads the current table
  // reads_per_transaction times and writes it writes_per_transaction times to
  // every control file (begin, then commit with the change).
  absl::Status UpdateControlFile(bool commit) {
    const ControlFileOptions& o = db_.options.control_files;
    const uint64_t all = files_.size() + o.extra_transactions;
    const uint64_t at_commit = std::max<uint32_t>(2, o.extra_transactions) - 1;
    const uint64_t transactions =
        commit ? at_commit : std::max<uint64_t>(1, all - std::min(all, at_commit));
    absl::Status st;
    {
      MutexLock lock(&db_.mu);
      // From the first write on, the control file may hold the reservations
      // (CREATING): a failure must write them away again.
      if (!commit) recorded_ = true;
      st = ControlFileTransactions(db_, rec_, transactions, [&](FileTable& t) {
        if (commit) p_.commit(t);
        if (!commit) p_.record(t, files_);
      });
    }
    if (!st.ok()) return Fail(st);
    return absl::OkStatus();
  }

  // 4a. Open each file, check its extent map, choose its disk group's path.
  absl::Status OpenAndMap() {
    for (PlannedFile& f : files_) {
      absl::StatusOr<asmgr::FileInfo> opened = rec_.Timed(
          Wait::kDiskFileOperationsIo, [&] { return f.dg->LookupFile(f.info.number); });
      if (!opened.ok()) return Fail(CreationError(opened.status(), f, p_.is_log));
      if (opened->size_bytes != f.spec.size_bytes) {
        return Fail(absl::InternalError(fmt::format(
            "ASM file {} is {} bytes, {} were asked", f.info.name, opened->size_bytes,
            f.spec.size_bytes)));
      }
      absl::StatusOr<std::vector<asmgr::Extent>> extents = rec_.Timed(
          Wait::kAsmFileMetadataOperation, [&] { return f.dg->ExtentMap(f.info.number); });
      if (!extents.ok()) return Fail(CreationError(extents.status(), f, p_.is_log));
      const uint64_t au = f.dg->au_size();
      if (extents->size() != (f.spec.size_bytes + au - 1) / au) {
        return Fail(absl::InternalError(fmt::format(
            "ASM file {} has {} extents for {} bytes in AUs of {}", f.info.name, extents->size(),
            f.spec.size_bytes, au)));
      }
      auto choice = choices_.find(f.dg);
      if (choice == choices_.end()) {
        absl::StatusOr<PathChoice> c =
            ChoosePath(*f.dg, s_.cell_fast_file_create, s_.fast_file_create_metadata);
        if (!c.ok()) return Fail(CreationError(c.status(), f, p_.is_log));
        choice = choices_.emplace(f.dg, *std::move(c)).first;
      }
      chosen_.push_back(&choice->second);
    }
    return absl::OkStatus();
  }

  // 4b. Format every file by its path; `format_ns` gets each one's time.
  absl::Status Format(std::vector<uint64_t>* format_ns) {
    std::vector<FormatJob> jobs;
    for (const PlannedFile& f : files_) {
      jobs.push_back({f.dg, f.info, f.block_template, f.init_wait, s_.cancel});
    }
    const bool all_formatted = std::all_of(files_.begin(), files_.end(),
                                           [](const PlannedFile& f) { return f.format_blocks; });
    const bool all_fast = std::all_of(chosen_.begin(), chosen_.end(), [](const PathChoice* c) {
      return c->path == CreationPath::kFast;
    });
    if (all_formatted && all_fast && files_.size() > 1) {
      // Metadata-only requests are tiny: send those of every file at once.
      size_t failed = 0;
      absl::Status st =
          FormatFastTogether(rec_, jobs, db_.options, s_.progress, format_ns, &failed);
      if (!st.ok()) return Fail(CreationError(st, files_[failed], p_.is_log));
      return absl::OkStatus();
    }
    for (size_t i = 0; i < files_.size(); ++i) {
      if (!files_[i].format_blocks) continue;
      const uint64_t t0 = rec_.clock()->NowNanos();
      absl::Status st = FormatByPath(rec_, jobs[i], chosen_[i]->path, db_.options, s_.progress);
      (*format_ns)[i] = rec_.clock()->NowNanos() - t0;
      if (st.code() == absl::StatusCode::kCancelled) return Fail(st);
      if (!st.ok()) return Fail(CreationError(st, files_[i], p_.is_log));
    }
    return absl::OkStatus();
  }

  // 4c. Write each file's header block; `out` gets a row per file. The
  // headers go out together (DiskGroup::WriteFiles: a cell holding copies of
  // several of them gets them in one request batch); each is still its own
  // wait (P1 log# / file# of the template, P2 block#, P3 blocks), the
  // measured time shared out between them in file order.
  absl::Status WriteHeaders(const std::vector<uint64_t>& format_ns, ExecOutcome* out) {
    const size_t n = files_.size();
    std::vector<io::AlignedBuffer> headers;
    std::vector<std::vector<asmgr::AsmWriteRequest>> requests(n);
    std::vector<asmgr::FileWrite> writes(n);
    uint64_t bytes = 0;
    headers.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      PlannedFile& f = files_[i];
      headers.emplace_back(f.header_bytes);
      f.build_header(headers.back().span());
      requests[i].resize(1);
      requests[i][0].file_offset = f.header_offset;
      requests[i][0].data = headers.back().span();
      requests[i][0].redo = p_.is_log;
      writes[i] = {f.dg, f.info.number, absl::MakeSpan(requests[i]), {}};
      bytes += f.header_bytes;
    }
    asmgr::AsmIoResult hr;
    Clock* clock = rec_.clock();
    const uint64_t t0 = clock->NowNanos();
    (void)asmgr::DiskGroup::WriteFiles(absl::MakeSpan(writes), &hr);
    const uint64_t t1 = clock->NowNanos();
    for (size_t i = 0; i < n; ++i) {
      const PlannedFile& f = files_[i];
      const uint64_t bs = f.block_template.block_size;
      const stats::WaitParams p{f.block_template.file_number, f.header_offset / bs,
                                f.header_bytes / bs};
      const uint64_t begin = t0 + (t1 - t0) * i / n, end = t0 + (t1 - t0) * (i + 1) / n;
      rec_.WaitEndedAt(f.header_wait, end - begin, end, p);
    }
    AccountWrite(rec_, hr, n, bytes);
    for (size_t i = 0; i < n; ++i) {
      if (!writes[i].status.ok()) return Fail(CreationError(writes[i].status, files_[i], p_.is_log));
    }
    for (size_t i = 0; i < n; ++i) {
      const PlannedFile& f = files_[i];
      if (!f.format_blocks) continue;  // a tempfile: no path ran
      out->files.push_back(FileCreation{f.info.name, chosen_[i]->path, chosen_[i]->reason,
                                        f.spec.size_bytes, f.dg->copies(), format_ns[i]});
    }
    return absl::OkStatus();
  }

  Session::State& s_;
  Database::State& db_;
  Recorder& rec_;
  std::vector<PlannedFile>& files_;
  const Protocol& p_;
  bool recorded_ = false;  // step 3 wrote the entries' names
  std::map<asmgr::DiskGroup*, PathChoice> choices_;
  std::vector<const PathChoice*> chosen_;  // per file, into choices_
};

absl::Status CreateFiles(Session::State& s, Recorder& rec, std::vector<PlannedFile>& files,
                         const Protocol& p, ExecOutcome* out) {
  return CreationRun(s, rec, files, p).Run(out);
}

AsmFileRef RefOf(const PlannedFile& f) {
  return AsmFileRef{f.dg->name(), f.info.number, f.info.name};
}

// Deletes the ASM files of entries already removed from the control file.
absl::Status DeleteFiles(Session::State& s, Recorder& rec, const std::vector<AsmFileRef>& refs) {
  std::string errors;
  for (const AsmFileRef& r : refs) {
    absl::StatusOr<asmgr::DiskGroup*> dg = s.db->rack->disk_group(r.disk_group);
    absl::Status st = dg.status();
    if (st.ok()) {
      st = rec.Timed(Wait::kKsvMasterWait, [&] { return (*dg)->DeleteFile(r.number); });
    }
    if (!st.ok() && st.code() != absl::StatusCode::kNotFound) {
      errors += fmt::format("; {}: {}", r.name, std::string(st.message()));
    }
  }
  if (errors.empty()) return absl::OkStatus();
  return absl::UnavailableError(fmt::format(
      "ORA-15028: ASM file could not be dropped (the control file no longer refers to it; "
      "the next open of the database removes it){}",
      errors));
}

// The protocol of a statement whose reservations are entries of one list of
// the file table (`list`: data files or log groups), named by their numbers
// (`key`) in `keys`: step 3 attaches each planned file to the entry it belongs
// to, step 5 makes the entries AVAILABLE, and a rollback removes them and then
// runs `also_rollback` (if set). `keys` must outlive the protocol.
template <typename Entry>
Protocol ReservedEntriesProtocol(bool is_log, std::vector<Entry> FileTable::*list,
                                 uint32_t Entry::*key, const std::vector<uint32_t>& keys,
                                 std::function<void(Entry&, const PlannedFile&)> attach,
                                 std::function<void(FileTable&)> also_rollback = nullptr) {
  auto find = [list, key](FileTable& t, uint32_t n) -> Entry* {
    for (Entry& e : t.*list) {
      if (e.*key == n) return &e;
    }
    return nullptr;
  };
  Protocol p;
  p.is_log = is_log;
  p.record = [find, &keys, attach](FileTable& t, const std::vector<PlannedFile>& fs) {
    for (const PlannedFile& f : fs) {
      if (Entry* e = find(t, keys[f.owner])) attach(*e, f);
    }
  };
  p.commit = [find, &keys](FileTable& t) {
    for (uint32_t n : keys) {
      if (Entry* e = find(t, n)) e->state = EntryState::kAvailable;
    }
  };
  p.rollback = [list, key, &keys, also_rollback](FileTable& t) {
    std::erase_if(t.*list, [&](const Entry& e) {
      return std::find(keys.begin(), keys.end(), e.*key) != keys.end();
    });
    if (also_rollback) also_rollback(t);
  };
  return p;
}

// A data file's (or tempfile's) blocks, by the layout rule (OnDiskBlocks).
format::BlockTemplate DataFileTemplate(const DataFile& df) {
  return format::BlockTemplate{format::BlockKind::kData, df.block_size, df.file_number,
                               OnDiskBlocks(df.size_bytes, df.block_size)};
}

// What the file header of `df` (an entry of `t`) records.
DataFileHeaderInfo DataFileHeaderOf(const FileTable& t, const DataFile& df) {
  std::string ts_name;
  for (const Tablespace& ts : t.tablespaces) {
    if (ts.number == df.tablespace) ts_name = ts.name;
  }
  return DataFileHeaderInfo{t.db_name,     t.dbid,        df.file_number,
                            df.tablespace, ts_name,       df.block_size,
                            OnDiskBlocks(df.size_bytes, df.block_size),
                            df.creation_change, df.created_unix};
}

// Blocks 0 (the OS header, as the template has it: it records the file's
// size) and 1 (the file header) into `out` (two blocks): what the database
// writes of a tempfile at creation and of any data file it resizes.
void BuildDataFileStart(const format::BlockTemplate& tmpl, const DataFileHeaderInfo& h,
                        absl::Span<uint8_t> out) {
  format::GenerateBlock(tmpl, 0, out.subspan(0, tmpl.block_size));
  BuildDataFileHeader(h, out.subspan(tmpl.block_size, tmpl.block_size));
}

uint32_t LowestFree(const std::set<uint32_t>& used, uint32_t from) {
  uint32_t n = from;
  while (used.count(n) != 0) ++n;
  return n;
}

// Whether files may be added to tablespace `ts` (null: it does not exist)
// named `ts_name`: CREATE (`create`) needs a new name, ADD an existing
// smallfile tablespace of the file's kind (TEMPFILE: temporary).
absl::Status CheckFileTarget(const Tablespace* ts, const std::string& ts_name, bool create,
                             bool tempfile) {
  if (create && ts != nullptr) {
    return absl::AlreadyExistsError(
        fmt::format("ORA-01543: tablespace '{}' already exists", ts_name));
  }
  if (create) return absl::OkStatus();
  if (ts == nullptr) {
    return absl::NotFoundError(fmt::format("ORA-00959: tablespace '{}' does not exist", ts_name));
  }
  if (ts->bigfile) {
    return absl::FailedPreconditionError(fmt::format(
        "ORA-32771: cannot add file to bigfile tablespace {} (a bigfile tablespace has "
        "exactly one data file: resize it instead)",
        ts_name));
  }
  if ((ts->contents == TablespaceContents::kTemporary) != tempfile) {
    return absl::FailedPreconditionError(
        tempfile ? fmt::format("ORA-02142: missing or invalid ALTER TABLESPACE option ({} is a "
                               "{} tablespace: it takes DATAFILEs; TEMPFILEs belong to a "
                               "temporary tablespace)",
                               ts_name, TablespaceContentsName(ts->contents))
                 : fmt::format("ORA-03217: invalid option for alter of TEMPORARY TABLESPACE "
                               "({} takes TEMPFILEs: ALTER TABLESPACE {} ADD TEMPFILE ...)",
                               ts_name, ts_name));
  }
  return absl::OkStatus();
}

// Oracle-managed files (docs/sql.md "Oracle-managed files"): a file clause
// without a disk group goes to DB_CREATE_FILE_DEST, one without a SIZE is
// 100 MiB, Oracle's OMF default (its OMF data files also autoextend;
// cellsim's never do); an online log group without members gets one in each
// DB_CREATE_ONLINE_LOG_DEST_n, or without those one in DB_CREATE_FILE_DEST
// and one in DB_RECOVERY_FILE_DEST when that is set.
constexpr uint64_t kManagedFileBytes = uint64_t{100} << 20;

std::vector<FileClause> WithManagedDefaults(const Database::State& db,
                                            std::vector<FileClause> files) {
  for (FileClause& f : files) {
    if (f.disk_group.empty()) f.disk_group = db.create_file_dest();
    if (f.size_bytes == 0) f.size_bytes = kManagedFileBytes;
  }
  return files;
}

LogGroupSpec WithManagedDefaults(const Database::State& db, LogGroupSpec g) {
  if (g.members.empty() && !db.options.online_log_dests.empty()) {
    for (const std::string& dest : db.options.online_log_dests) {
      g.members.push_back(absl::AsciiStrToUpper(dest));
    }
  } else if (g.members.empty()) {
    g.members.push_back(db.create_file_dest());
    if (std::string reco = db.recovery_file_dest(); !reco.empty()) g.members.push_back(reco);
  }
  if (g.size_bytes == 0) g.size_bytes = kManagedFileBytes;
  return g;
}

// The data files (tempfiles when `tempfile`) of CREATE TABLESPACE (`created`:
// name, block size 0 for the default, bigfile, contents) or ALTER TABLESPACE
// ... ADD DATAFILE|TEMPFILE (`created` null).
absl::Status AddDataFiles(Session::State& s, const std::string& ts_name,
                          const std::vector<FileClause>& given, const Tablespace* created,
                          bool tempfile, ExecOutcome* out) {
  const bool create = created != nullptr;
  Database::State& db = *s.db;
  const std::vector<FileClause> specs = WithManagedDefaults(db, given);
  Recorder rec = s.MakeRecorder();
  std::vector<PlannedFile> files;
  std::vector<uint32_t> numbers;
  {
    MutexLock lock(&db.mu);
    DB_RETURN_IF_ERROR(StatementReads(db, rec));
    FileTable& t = db.table;
    const Tablespace* ts = t.FindTablespace(ts_name);
    DB_RETURN_IF_ERROR(CheckFileTarget(ts, ts_name, create, tempfile));
    const bool bigfile = create && created->bigfile;
    const uint32_t bs = create ? (created->block_size == 0 ? kDefaultDataBlockSize
                                                           : created->block_size)
                               : ts->block_size;
    DB_RETURN_IF_ERROR((format::BlockTemplate{format::BlockKind::kData, bs, 1, 2}.Validate()));
    uint32_t ts_number = 0;
    if (create) {
      for (const Tablespace& x : t.tablespaces) ts_number = std::max(ts_number, x.number + 1);
    } else {
      ts_number = ts->number;
    }
    std::set<uint32_t> used;
    for (const DataFile& f : t.data_files) used.insert(f.file_number);
    std::vector<asmgr::DiskGroup*> dgs;
    for (const FileClause& spec : specs) {
      absl::StatusOr<asmgr::DiskGroup*> dg = FindDiskGroup(db.rack, spec.disk_group);
      if (!dg.ok()) return dg.status();
      dgs.push_back(*dg);
      if (spec.size_bytes == 0) {
        return absl::InvalidArgumentError("ORA-03214: File Size specified is smaller than minimum");
      }
      const uint64_t blocks = spec.size_bytes / bs + (spec.size_bytes % bs != 0 ? 1 : 0);
      const uint64_t max_blocks = bigfile ? kMaxBigfileBlocks : kMaxDataFileBlocks;
      if (blocks > max_blocks) {
        return absl::InvalidArgumentError(fmt::format(
            "ORA-01144: File size ({} blocks) exceeds maximum of {} blocks", blocks,
            max_blocks));
      }
      const uint32_t number = LowestFree(used, 1);
      if (number > kMaxFileNumber) {
        return absl::ResourceExhaustedError(fmt::format(
            "ORA-00059: maximum number of DB_FILES exceeded ({} data files)", kMaxFileNumber));
      }
      used.insert(number);
      numbers.push_back(number);
    }
    // Reserve.
    if (create) {
      Tablespace added = *created;
      added.number = ts_number;
      added.block_size = bs;
      t.tablespaces.push_back(std::move(added));
    }
    const int64_t now = db.clock->UnixSeconds();
    const uint64_t change = db.cf->sequence();
    for (size_t i = 0; i < specs.size(); ++i) {
      const uint64_t blocks = specs[i].size_bytes / bs + (specs[i].size_bytes % bs != 0 ? 1 : 0);
      DataFile df;
      df.file_number = numbers[i];
      df.tablespace = ts_number;
      df.size_bytes = blocks * bs;
      df.block_size = bs;
      df.state = EntryState::kCreating;
      df.created_unix = now;
      df.creation_change = change;
      t.data_files.push_back(df);

      PlannedFile f;
      f.dg = dgs[i];
      f.block_template = DataFileTemplate(df);
      f.spec = asmgr::FileSpec{.db_name = t.db_name,
                               .type = tempfile ? asmgr::FileType::kTempFile
                                                : asmgr::FileType::kDataFile,
                               .tag = ts_name,
                               .size_bytes = f.block_template.file_blocks * bs,
                               .block_size = bs};
      f.init_wait = Wait::kDataFileInitWrite;
      f.header_wait = Wait::kDbFileSingleWrite;
      const DataFileHeaderInfo h = DataFileHeaderOf(t, df);
      if (tempfile) {
        // No path formats a tempfile: the database writes blocks 0 (the OS
        // header, as the template has it) and 1 (the file header) in one request.
        const format::BlockTemplate tmpl = f.block_template;
        f.header_offset = 0;
        f.header_bytes = 2 * uint64_t{bs};
        f.build_header = [h, tmpl](absl::Span<uint8_t> out) { BuildDataFileStart(tmpl, h, out); };
      } else {
        // The cells (or zero-fill) format block 0; the database writes block 1.
        f.header_offset = bs;
        f.header_bytes = bs;
        f.build_header = [h](absl::Span<uint8_t> out) { BuildDataFileHeader(h, out); };
      }
      f.format_blocks = !tempfile;
      f.owner = i;
      files.push_back(std::move(f));
    }
  }
  const Protocol p = ReservedEntriesProtocol<DataFile>(
      /*is_log=*/false, &FileTable::data_files, &DataFile::file_number, numbers,
      [](DataFile& df, const PlannedFile& f) { df.file = RefOf(f); },
      [&](FileTable& t) {
        if (create) {
          std::erase_if(t.tablespaces, [&](const Tablespace& x) { return x.name == ts_name; });
        }
      });
  DB_RETURN_IF_ERROR(CreateFiles(s, rec, files, p, out));
  out->current += static_cast<int64_t>(files.size());
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<asmgr::DiskGroup*> FindDiskGroup(asmgr::Rack* rack, const std::string& name) {
  absl::StatusOr<asmgr::DiskGroup*> dg = rack->disk_group(name);
  if (!dg.ok()) {
    return absl::NotFoundError(fmt::format(
        "ORA-15001: diskgroup \"{}\" does not exist or is not mounted", name));
  }
  return dg;
}

namespace {

// Checks one group of ADD LOGFILE (block size, size within Oracle's limits,
// members' disk groups); *size is rounded up to whole blocks.
absl::Status CheckLogGroupSpec(const Database::State& db, const LogGroupSpec& g, uint64_t* size,
                               uint32_t* block_size, std::vector<asmgr::DiskGroup*>* dgs) {
  const uint32_t bs = g.block_size == 0 ? kDefaultRedoBlockSize : g.block_size;
  if (bs != 512 && bs != 4096) {
    return absl::InvalidArgumentError(fmt::format(
        "ORA-01378: the logical block size ({}) of the log file is not 512 or 4096", bs));
  }
  if (g.size_bytes > UINT64_MAX - bs) {
    return absl::InvalidArgumentError(fmt::format("log file size {} too large", g.size_bytes));
  }
  *size = (g.size_bytes + bs - 1) / bs * bs;
  *block_size = bs;
  // Oracle's minimum online log is 4 MiB (8192 blocks of 512 bytes);
  // never less than block 0 and the header block.
  const uint64_t min_bytes = std::max<uint64_t>(db.options.min_log_file_bytes, 2 * bs);
  if (*size < min_bytes) {
    return absl::InvalidArgumentError(fmt::format(
        "ORA-00336: log file size {} blocks is less than minimum {} blocks", *size / bs,
        (min_bytes + bs - 1) / bs));
  }
  // The redo block# field is 32 bits (2 TiB of 512-byte blocks).
  if (*size / bs > kMaxLogFileBlocks) {
    return absl::InvalidArgumentError(fmt::format(
        "ORA-01144: File size ({} blocks) exceeds maximum of {} blocks", *size / bs,
        kMaxLogFileBlocks));
  }
  DB_RETURN_IF_ERROR(
      (format::BlockTemplate{format::BlockKind::kRedo, bs, 0, *size / bs}.Validate()));
  if (g.members.empty()) return absl::InvalidArgumentError("ORA-00352: log group has no member");
  for (const std::string& m : g.members) {
    absl::StatusOr<asmgr::DiskGroup*> dg = FindDiskGroup(db.rack, m);
    if (!dg.ok()) return dg.status();
    dgs->push_back(*dg);
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status RunAddLogfile(Session::State& s, const AddLogfile& st, ExecOutcome* out) {
  Database::State& db = *s.db;
  Recorder rec = s.MakeRecorder();
  const uint32_t thread = st.thread.value_or(1);
  std::vector<uint32_t> groups(st.groups.size());
  std::vector<PlannedFile> files;
  bool new_thread = false;
  {
    MutexLock lock(&db.mu);
    DB_RETURN_IF_ERROR(StatementReads(db, rec));
    FileTable& t = db.table;
    std::set<uint32_t> used;
    for (const LogGroup& g : t.log_groups) used.insert(g.group);
    std::set<uint32_t> explicit_groups;
    std::vector<std::vector<asmgr::DiskGroup*>> dgs(st.groups.size());
    std::vector<uint64_t> sizes(st.groups.size());
    std::vector<uint32_t> block_sizes(st.groups.size());
    for (size_t i = 0; i < st.groups.size(); ++i) {
      const LogGroupSpec g = WithManagedDefaults(db, st.groups[i]);
      DB_RETURN_IF_ERROR(CheckLogGroupSpec(db, g, &sizes[i], &block_sizes[i], &dgs[i]));
      if (g.group.has_value()) {
        if (used.count(*g.group) != 0 || !explicit_groups.insert(*g.group).second) {
          return absl::AlreadyExistsError(
              fmt::format("ORA-01184: logfile group {} already exists", *g.group));
        }
        groups[i] = *g.group;
      }
    }
    std::set<uint32_t> taken = used;
    taken.insert(explicit_groups.begin(), explicit_groups.end());
    for (size_t i = 0; i < st.groups.size(); ++i) {
      if (st.groups[i].group.has_value()) continue;
      groups[i] = LowestFree(taken, 1);
      if (groups[i] > kMaxLogGroup) {
        return absl::ResourceExhaustedError(fmt::format(
            "ORA-01185: logfile group number {} is invalid (at most {} groups)", groups[i],
            kMaxLogGroup));
      }
      taken.insert(groups[i]);
    }
    // Reserve.
    const int64_t now = db.clock->UnixSeconds();
    const uint64_t change = db.cf->sequence();
    if (std::none_of(t.threads.begin(), t.threads.end(),
                     [&](const LogThread& x) { return x.thread == thread; })) {
      t.threads.push_back(LogThread{thread, false});
      new_thread = true;
    }
    for (size_t i = 0; i < st.groups.size(); ++i) {
      LogGroup g;
      g.group = groups[i];
      g.thread = thread;
      g.size_bytes = sizes[i];
      g.block_size = block_sizes[i];
      g.state = EntryState::kCreating;
      g.created_unix = now;
      g.creation_change = change;
      t.log_groups.push_back(g);
      for (asmgr::DiskGroup* dg : dgs[i]) {
        const uint32_t bs = block_sizes[i];
        PlannedFile f;
        f.dg = dg;
        f.spec = asmgr::FileSpec{.db_name = t.db_name, .type = asmgr::FileType::kOnlineLog,
                                 .tag = fmt::format("group_{}", groups[i]),
                                 .size_bytes = OnDiskBlocks(sizes[i], bs) * bs,
                                 .block_size = bs};
        // The member is one redo block larger than v$log.bytes: block 0 is the
        // OS header (a 50 MiB log is 52,429,312 bytes on disk).
        f.block_template = format::BlockTemplate{format::BlockKind::kRedo, bs, groups[i],
                                                 OnDiskBlocks(sizes[i], bs)};
        f.init_wait = Wait::kLogFileInitWrite;
        f.header_wait = Wait::kLogFileSingleWrite;
        f.header_offset = bs;
        f.header_bytes = bs;
        LogFileHeaderInfo h{t.db_name, t.dbid, thread, groups[i], bs, sizes[i] / bs, change, now};
        f.build_header = [h](absl::Span<uint8_t> o) { BuildLogFileHeader(h, o); };
        f.owner = i;
        files.push_back(std::move(f));
      }
    }
  }
  const Protocol p = ReservedEntriesProtocol<LogGroup>(
      /*is_log=*/true, &FileTable::log_groups, &LogGroup::group, groups,
      [](LogGroup& g, const PlannedFile& f) { g.members.push_back(LogMember{RefOf(f)}); },
      [&](FileTable& t) {
        if (new_thread &&
            std::none_of(t.log_groups.begin(), t.log_groups.end(),
                         [&](const LogGroup& g) { return g.thread == thread; })) {
          std::erase_if(t.threads, [&](const LogThread& x) { return x.thread == thread; });
        }
      });
  DB_RETURN_IF_ERROR(CreateFiles(s, rec, files, p, out));
  out->current += static_cast<int64_t>(files.size());
  return absl::OkStatus();
}

absl::Status RunDropLogfileGroup(Session::State& s, const DropLogfileGroup& st,
                                 ExecOutcome* out) {
  Database::State& db = *s.db;
  Recorder rec = s.MakeRecorder();
  std::vector<AsmFileRef> refs;
  {
    MutexLock lock(&db.mu);
    DB_RETURN_IF_ERROR(db.cf->ReadCurrent(rec));
    FileTable& t = db.table;
    auto it = std::find_if(t.log_groups.begin(), t.log_groups.end(),
                           [&](const LogGroup& g) { return g.group == st.group; });
    if (it == t.log_groups.end()) {
      return absl::NotFoundError(fmt::format(
          "ORA-01514: error in log specification: no such log (group {})", st.group));
    }
    if (it->state == EntryState::kCreating) {
      return absl::FailedPreconditionError(fmt::format(
          "ORA-00054: resource busy: log group {} is being created by another session",
          st.group));
    }
    const LogGroup removed = *it;
    const FileTable before = t;
    t.log_groups.erase(it);
    // The thread goes with its last group (v$thread lists threads that have
    // logs); Database::Open would drop a thread without a group anyway, so
    // keeping it here made the table change across a restart.
    if (std::none_of(t.log_groups.begin(), t.log_groups.end(),
                     [&](const LogGroup& g) { return g.thread == removed.thread; })) {
      std::erase_if(t.threads, [&](const LogThread& x) { return x.thread == removed.thread; });
    }
    absl::Status w = db.cf->Write(t, rec);
    if (!w.ok()) {
      t = before;
      return w;
    }
    for (const LogMember& m : removed.members) refs.push_back(m.file);
  }
  out->current += static_cast<int64_t>(refs.size());
  if (refs.empty()) return absl::OkStatus();
  return DeleteFiles(s, rec, refs);
}

absl::Status RunCreateTablespace(Session::State& s, const CreateTablespace& st,
                                 ExecOutcome* out) {
  Tablespace created;
  created.name = st.name;
  created.block_size = st.block_size;
  created.bigfile = st.bigfile;
  created.contents = st.undo        ? TablespaceContents::kUndo
                     : st.temporary ? TablespaceContents::kTemporary
                                    : TablespaceContents::kPermanent;
  return AddDataFiles(s, st.name, st.datafiles, &created, st.temporary, out);
}

absl::Status RunAddDatafile(Session::State& s, const AlterTablespaceAddDatafile& st,
                            ExecOutcome* out) {
  return AddDataFiles(s, st.name, st.datafiles, /*created=*/nullptr, st.tempfile, out);
}

namespace {

// ---- Resizing a file ------------------------------------------------------
// ALTER DATABASE DATAFILE|TEMPFILE ... RESIZE (docs/db.md "Resizing a file"):
//   growing: ASM allocates the extension (`KSV master wait`); the file is
//     opened and its extent map fetched; the extension [old end, new end) is
//     formatted by its disk group's creation path, one request per AU piece
//     per copy (a tempfile's is not: its blocks are formatted at first use);
//     the database writes blocks 0-1 (the OS header and the file header both
//     record the size) in one request (`db file single write`); then one
//     control-file transaction records the new size: the commit point.
//   shrinking: refused below the highest block in use (ORA-03297); the
//     control-file transaction, blocks 0-1, then ASM frees the extents past
//     the new end.
// Either way, until the ASM file has the recorded size, Database::Open finds
// it longer than the control file says and cuts it back (RecoverResizes).
// The data engine is held all along: no extent is allocated, no undo saved,
// while the file changes size.

// The entry ALTER DATABASE DATAFILE|TEMPFILE names (ORA-01516 when none).
absl::StatusOr<DataFile> FindResized(const FileTable& t, const ResizeDataFile& st) {
  for (const DataFile& f : t.data_files) {
    const bool named = st.file_number != 0 ? f.file_number == st.file_number
                                           : absl::EqualsIgnoreCase(f.file.name, st.file_name);
    if (!named) continue;
    const Tablespace* ts = t.TablespaceOf(f);
    const bool temp = ts != nullptr && ts->contents == TablespaceContents::kTemporary;
    if (temp != st.tempfile || f.state != EntryState::kAvailable) break;
    if (ts != nullptr && ts->bigfile && st.tempfile) break;
    return f;
  }
  const std::string named =
      st.file_number != 0 ? fmt::format("{}", st.file_number) : st.file_name;
  return absl::NotFoundError(fmt::format(
      "ORA-01516: nonexistent log file, data file, or temporary file \"{}\" (no {} of that {})",
      named, st.tempfile ? "tempfile" : "data file", st.file_number != 0 ? "number" : "name"));
}

// The blocks SIZE asks for, within Oracle's limits.
absl::StatusOr<uint64_t> ResizedBlocks(const FileTable& t, const DataFile& f, uint64_t size) {
  const uint32_t bs = f.block_size;
  const uint64_t blocks = size / bs + (size % bs != 0 ? 1 : 0);
  const Tablespace* ts = t.TablespaceOf(f);
  const bool bigfile = ts != nullptr && ts->bigfile;
  const uint64_t max_blocks = bigfile ? kMaxBigfileBlocks : kMaxDataFileBlocks;
  if (blocks > max_blocks) {
    return absl::InvalidArgumentError(fmt::format(
        "ORA-01144: File size ({} blocks) exceeds maximum of {} blocks (RESIZE {} of file {})",
        blocks, max_blocks, size, f.file_number));
  }
  return blocks;
}

// Refuses a resize the data engine's use of the file forbids.
// `blocks`: the RESIZE value in blocks; the file then holds blocks 0 ..
// `blocks` on disk (OnDiskBlocks: SIZE + the header block), and data may use
// every one of them.
absl::Status CheckUse(const DataEngine::FileUse& use, const DataFile& f, uint64_t blocks) {
  if (OnDiskBlocks(blocks * f.block_size, f.block_size) < use.used_blocks) {
    return absl::FailedPreconditionError(fmt::format(
        "ORA-03297: file contains used data beyond requested RESIZE value (file {} is used up "
        "to block {}: RESIZE {} bytes = {} blocks{})",
        f.file_number, use.used_blocks - 1, blocks * f.block_size, blocks,
        use.undo_area ? "; it holds the undo area, which spans the whole file" : ""));
  }
  if (use.holds_saved_undo && blocks != f.size_bytes / f.block_size) {
    return absl::FailedPreconditionError(fmt::format(
        "ORA-30013: undo tablespace data file {} is currently in use: the last checkpoint saved "
        "the active transactions' undo in it, laid out by its size; resize it when no "
        "transaction is active at a checkpoint",
        f.file_number));
  }
  return absl::OkStatus();
}

class ResizeRun {
 public:
  ResizeRun(Session::State& s, Recorder& rec, const ResizeDataFile& st, DataEngine& e)
      : s_(s), db_(*s.db), rec_(rec), st_(st), e_(e) {}

  absl::Status Run(ExecOutcome* out) {
    MutexLock engine_lock(&e_.mu);
    rec_.clock()->Charge(Clock::Work::kStatement);
    DB_RETURN_IF_ERROR(Plan());
    if (new_.size_bytes == old_.size_bytes) return absl::OkStatus();
    const bool grow = new_.size_bytes > old_.size_bytes;
    if (grow) {
      DB_RETURN_IF_ERROR(ResizeAsm(OnDiskBytes(new_)));
      absl::Status st = FormatExtension(out);
      if (st.ok()) st = WriteStart(new_);
      if (st.ok()) st = Commit();
      if (!st.ok()) return Undo(st);
    } else {
      DB_RETURN_IF_ERROR(Commit());
      DB_RETURN_IF_ERROR(WriteStart(new_));
      DB_RETURN_IF_ERROR(ResizeAsm(OnDiskBytes(new_)));
    }
    out->current += 1;
    return absl::OkStatus();
  }

 private:
  static uint64_t OnDiskBytes(const DataFile& f) {
    return OnDiskBlocks(f.size_bytes, f.block_size) * f.block_size;
  }

  // The statement's reads, the entry, the new size checked against the
  // limits and the engine's use of the file.
  absl::Status Plan() ABSL_EXCLUSIVE_LOCKS_REQUIRED(e_.mu) {
    const FileTable before = e_.FileTableCopy();
    absl::StatusOr<DataFile> seen = FindResized(before, st_);
    if (!seen.ok()) return seen.status();
    const DataEngine::FileUse use = e_.UseOf(before, seen->file_number);
    MutexLock lock(&db_.mu);
    DB_RETURN_IF_ERROR(StatementReads(db_, rec_));
    absl::StatusOr<DataFile> f = FindResized(db_.table, st_);
    if (!f.ok()) return f.status();
    absl::StatusOr<uint64_t> blocks = ResizedBlocks(db_.table, *f, st_.size_bytes);
    if (!blocks.ok()) return blocks.status();
    DB_RETURN_IF_ERROR(CheckUse(use, *f, *blocks));
    absl::StatusOr<asmgr::DiskGroup*> dg = FindDiskGroup(db_.rack, f->file.disk_group);
    if (!dg.ok()) return dg.status();
    dg_ = *dg;
    old_ = new_ = *f;
    new_.size_bytes = *blocks * f->block_size;
    header_ = DataFileHeaderOf(db_.table, new_);
    return absl::OkStatus();
  }

  absl::Status ResizeAsm(uint64_t bytes) {
    absl::StatusOr<asmgr::FileInfo> info = rec_.Timed(
        Wait::kKsvMasterWait, [&] { return dg_->ResizeFile(old_.file.number, bytes); });
    if (!info.ok()) return ResizeError(info.status());
    info_ = *std::move(info);
    return absl::OkStatus();
  }

  // The extension, by the creation path of the file's disk group; checked
  // as a new file is (open, extent map).
  absl::Status FormatExtension(ExecOutcome* out) {
    absl::StatusOr<asmgr::FileInfo> opened = rec_.Timed(
        Wait::kDiskFileOperationsIo, [&] { return dg_->LookupFile(old_.file.number); });
    if (!opened.ok()) return ResizeError(opened.status());
    absl::StatusOr<std::vector<asmgr::Extent>> extents = rec_.Timed(
        Wait::kAsmFileMetadataOperation, [&] { return dg_->ExtentMap(old_.file.number); });
    if (!extents.ok()) return ResizeError(extents.status());
    const uint64_t au = dg_->au_size();
    if (opened->size_bytes != OnDiskBytes(new_) ||
        extents->size() != (opened->size_bytes + au - 1) / au) {
      return absl::InternalError(fmt::format("ASM file {} is {} bytes in {} extents, {} were asked",
                                             old_.file.name, opened->size_bytes, extents->size(),
                                             OnDiskBytes(new_)));
    }
    if (st_.tempfile) return absl::OkStatus();  // formatted at first use
    absl::StatusOr<PathChoice> c =
        ChoosePath(*dg_, s_.cell_fast_file_create, s_.fast_file_create_metadata);
    if (!c.ok()) return ResizeError(c.status());
    FormatJob job{dg_, *opened, DataFileTemplate(new_), Wait::kDataFileInitWrite, s_.cancel,
                  OnDiskBytes(old_)};
    const uint64_t t0 = rec_.clock()->NowNanos();
    absl::Status st = FormatByPath(rec_, job, c->path, db_.options, s_.progress);
    if (st.code() == absl::StatusCode::kCancelled) return st;
    if (!st.ok()) return ResizeError(st);
    out->files.push_back(FileCreation{old_.file.name, c->path, c->reason,
                                      OnDiskBytes(new_) - OnDiskBytes(old_), dg_->copies(),
                                      rec_.clock()->NowNanos() - t0});
    return absl::OkStatus();
  }

  // Blocks 0-1 recording `f`'s size, in one request.
  absl::Status WriteStart(const DataFile& f) {
    DataFileHeaderInfo h = header_;
    h.file_blocks = OnDiskBlocks(f.size_bytes, f.block_size);
    io::AlignedBuffer start(2 * uint64_t{f.block_size});
    BuildDataFileStart(DataFileTemplate(f), h, start.span());
    std::vector<asmgr::AsmWriteRequest> w(1);
    w[0].file_offset = 0;
    w[0].data = start.span();
    asmgr::AsmIoResult r;
    // P1 file#, P2 block# 0, P3 blocks 2 (REFRN's `db file single write`).
    const stats::WaitParams p{f.file_number, 0, 2};
    absl::Status st = rec_.Timed(Wait::kDbFileSingleWrite, p, [&] {
      return dg_->Write(old_.file.number, absl::MakeSpan(w), &r);
    });
    AccountWrite(rec_, r, 1, start.size());
    if (!st.ok()) return ResizeError(st);
    return absl::OkStatus();
  }

  // One control-file transaction records the new size (the commit point).
  absl::Status Commit() {
    MutexLock lock(&db_.mu);
    const FileTable before = db_.table;
    const uint64_t n = std::max<uint32_t>(1, db_.options.control_files.resize_transactions);
    absl::Status st = ControlFileTransactions(db_, rec_, n, [&](FileTable& t) {
      for (DataFile& f : t.data_files) {
        if (f.file_number == new_.file_number) f.size_bytes = new_.size_bytes;
      }
    });
    if (!st.ok()) db_.table = before;
    return st;
  }

  // A failed growth: the file back to its recorded size (what the next open
  // would do otherwise), then the cause.
  absl::Status Undo(absl::Status cause) {
    std::string cleanup;
    absl::Status st = WriteStart(old_);
    if (st.ok()) st = ResizeAsm(OnDiskBytes(old_));
    if (!st.ok()) {
      cleanup = fmt::format(" (the file stays longer until the next open of the database: {})",
                            std::string(st.message()));
    }
    return absl::Status(cause.code(), std::string(cause.message()) + cleanup);
  }

  absl::Status ResizeError(const absl::Status& cause) const {
    if (cause.code() == absl::StatusCode::kResourceExhausted) {
      return absl::ResourceExhaustedError(fmt::format(
          "ORA-15041: disk group {} space exhausted: {}", dg_->name(), std::string(cause.message())));
    }
    return absl::Status(cause.code(), fmt::format("ORA-01237: cannot extend datafile {}: {}",
                                                  old_.file_number, std::string(cause.message())));
  }

  Session::State& s_;
  Database::State& db_;
  Recorder& rec_;
  const ResizeDataFile& st_;
  DataEngine& e_;
  asmgr::DiskGroup* dg_ = nullptr;
  DataFile old_, new_;
  DataFileHeaderInfo header_;
  asmgr::FileInfo info_;
};

}  // namespace

absl::Status RunResizeDataFile(Session::State& s, const ResizeDataFile& st, ExecOutcome* out) {
  Recorder rec = s.MakeRecorder();
  return ResizeRun(s, rec, st, EngineOf(*s.db)).Run(out);
}

absl::Status RecoverResizes(Database::State& db, Recorder& rec) {
  for (const DataFile& f : db.table.data_files) {
    if (f.state != EntryState::kAvailable) continue;
    absl::StatusOr<asmgr::DiskGroup*> dg = FindDiskGroup(db.rack, f.file.disk_group);
    if (!dg.ok()) continue;
    absl::StatusOr<asmgr::FileInfo> info = (*dg)->LookupFile(f.file.number);
    const uint64_t bytes = OnDiskBlocks(f.size_bytes, f.block_size) * f.block_size;
    if (!info.ok() || info->size_bytes == bytes) continue;
    // Blocks 0-1 first (the ASM file is at least as long as recorded).
    io::AlignedBuffer start(2 * uint64_t{f.block_size});
    BuildDataFileStart(DataFileTemplate(f), DataFileHeaderOf(db.table, f), start.span());
    std::vector<asmgr::AsmWriteRequest> w(1);
    w[0].data = start.span();
    asmgr::AsmIoResult r;
    absl::Status st = rec.Timed(Wait::kDbFileSingleWrite, [&] {
      return (*dg)->Write(f.file.number, absl::MakeSpan(w), &r);
    });
    AccountWrite(rec, r, 1, start.size());
    if (st.ok()) {
      st = rec.Timed(Wait::kKsvMasterWait,
                     [&] { return (*dg)->ResizeFile(f.file.number, bytes).status(); });
    }
    if (!st.ok()) {
      return absl::Status(st.code(), fmt::format("data file {} ({}) was being resized: {}",
                                                 f.file_number, f.file.name,
                                                 std::string(st.message())));
    }
    db.recovery_actions.push_back(fmt::format(
        "data file {} was being resized: back to its recorded {} bytes ({} on disk)",
        f.file_number, f.size_bytes, info->size_bytes));
  }
  return absl::OkStatus();
}

absl::Status RunDropTablespace(Session::State& s, const DropTablespace& st, ExecOutcome* out) {
  Database::State& db = *s.db;
  Recorder rec = s.MakeRecorder();
  std::vector<AsmFileRef> refs;
  {
    MutexLock lock(&db.mu);
    DB_RETURN_IF_ERROR(db.cf->ReadCurrent(rec));
    FileTable& t = db.table;
    auto ts = std::find_if(t.tablespaces.begin(), t.tablespaces.end(),
                           [&](const Tablespace& x) { return x.name == st.name; });
    if (ts == t.tablespaces.end()) {
      return absl::NotFoundError(fmt::format("ORA-00959: tablespace '{}' does not exist", st.name));
    }
    const uint32_t number = ts->number;
    for (const DataFile& f : t.data_files) {
      if (f.tablespace == number && f.state == EntryState::kCreating) {
        return absl::FailedPreconditionError(fmt::format(
            "ORA-00054: resource busy: a data file of tablespace '{}' is being created", st.name));
      }
    }
    const FileTable before = t;
    std::vector<DataFile> removed;
    for (const DataFile& f : t.data_files) {
      if (f.tablespace == number) removed.push_back(f);
    }
    std::erase_if(t.data_files, [&](const DataFile& f) { return f.tablespace == number; });
    t.tablespaces.erase(ts);
    // KEEP DATAFILES: the files leave the database but stay in ASM, recorded
    // so that recovery does not take them for leftovers.
    if (st.keep_datafiles) {
      for (const DataFile& f : removed) t.kept_files.push_back(f.file);
    }
    absl::Status w = db.cf->Write(t, rec);
    if (!w.ok()) {
      t = before;
      return w;
    }
    // Oracle-managed files are removed with their tablespace (with or without
    // AND DATAFILES) unless KEEP DATAFILES; cellsim's files are all
    // Oracle-managed.
    if (!st.keep_datafiles) {
      for (const DataFile& f : removed) refs.push_back(f.file);
    }
  }
  out->current += static_cast<int64_t>(refs.size());
  return DeleteFiles(s, rec, refs);
}

}  // namespace cellsim::db::internal
