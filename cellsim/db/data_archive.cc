// Log switches and ARCH: ARCHIVELOG mode copies every filled online log into
// the archive destination (+RECO) before its group is reused (docs/redo.md
// "Log switches and ARCHIVELOG").
#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "absl/strings/ascii.h"
#include "cellsim/db/data_engine.h"
#include "cellsim/format/block_template.h"

namespace cellsim::db::internal {
namespace {

using stats::Wait;

// The archive destination: cellsim archives into the recovery area
// (DB_RECOVERY_FILE_DEST, the RECO disk group), as an Exadata database
// whose LOG_ARCHIVE_DEST_1 is USE_DB_RECOVERY_FILE_DEST does.
// The disk group ARCH archives into: LOG_ARCHIVE_DEST_1's, else the
// recovery area's ("" when neither is set).
std::string ArchiveDiskGroup(const Database::State& db) {
  return !db.options.archive_dest.empty() ? absl::AsciiStrToUpper(db.options.archive_dest)
                                          : db.recovery_file_dest();
}

absl::StatusOr<asmgr::DiskGroup*> ArchiveDestination(const Database::State& db) {
  const std::string dest = ArchiveDiskGroup(db);
  if (dest.empty()) {
    const std::string& reco = db.options.control_files.recovery_disk_group;
    return absl::FailedPreconditionError(
        reco.empty()
            ? std::string("ORA-19802: the database has no recovery area, where cellsim archives "
                          "(DB_RECOVERY_FILE_DEST is not set: DatabaseOptions::control_files."
                          "recovery_disk_group is empty), nor a LOG_ARCHIVE_DEST_1 "
                          "(DatabaseOptions::archive_dest)")
            : fmt::format("ORA-19802: the database has no recovery area, where cellsim archives "
                          "(DB_RECOVERY_FILE_DEST is not set: the rack has no disk group +{} "
                          "beside +{}; make the rack with --disk-group {}:NORMAL:SIZE)",
                          reco, db.create_file_dest(), reco));
  }
  return FindDiskGroup(db.rack, dest);
}

// ARCHIVE LOG LIST's name for the destination.
std::string ArchiveDestinationName(const Database::State& db) {
  return db.options.archive_dest.empty() ? std::string("USE_DB_RECOVERY_FILE_DEST")
                                         : "+" + ArchiveDiskGroup(db);
}

bool Archived(const FileTable& t, uint64_t sequence) {
  return std::any_of(t.archived_logs.begin(), t.archived_logs.end(),
                     [&](const ArchivedLog& a) { return a.thread == 1 && a.sequence == sequence; });
}

// Reads the first out.size() bytes of log group `g` from the first member
// whose copy reads whole (ASM checking each redo block); the status of the
// last member tried when none does.
absl::Status ReadFromFirstWholeMember(asmgr::Rack* rack, Recorder& arch, const LogGroup& g,
                                      absl::Span<uint8_t> out) {
  absl::Status read = absl::NotFoundError("the group has no member");
  for (const LogMember& m : g.members) {
    absl::StatusOr<asmgr::DiskGroup*> dg = FindDiskGroup(rack, m.file.disk_group);
    if (!dg.ok()) return dg.status();
    std::vector<asmgr::AsmReadRequest> r(1);
    r[0].buffer = out;
    r[0].verify_checksums = true;
    asmgr::AsmIoResult res;
    read = arch.Timed(Wait::kLogArchiveIo,
                      [&] { return (*dg)->Read(m.file.number, absl::MakeSpan(r), &res); });
    AccountRead(arch, res, out.size());
    if (read.ok()) break;
  }
  return read;
}

// Whether `image` (log `g` read from one member) holds every redo block
// LGWR wrote of sequence u.sequence (blocks 2 to u.blocks).
bool HoldsSequence(const LogGroup& g, const LogUse& u, absl::Span<const uint8_t> image) {
  if (g.block_size != redo::kRedoBlock) return true;  // 4 KiB logs: numbered otherwise
  for (uint64_t b = 2; b < u.blocks && (b + 1) * redo::kRedoBlock <= image.size(); ++b) {
    if (!ValidRedoBlock(image.subspan(b * redo::kRedoBlock, redo::kRedoBlock), b, u.sequence)) {
      return false;
    }
  }
  return true;
}

}  // namespace

absl::Status DataEngine::MakeReusable(Recorder& rec, const LogGroup& g) {
  auto found = log_use.find(g.group);
  if (found == log_use.end() || !found->second.needs_archive || found->second.archived) {
    return absl::OkStatus();
  }
  // The log still waits for ARCH (an earlier copy failed): the session waits
  // while ARCH copies it; it cannot be overwritten before.
  const uint64_t t0 = db->clock->NowNanos();
  absl::Status st = ArchiveLog(g, found->second);
  const uint64_t waited = db->clock->NowNanos() - t0;
  rec.Wait(Wait::kLogFileSwitchArchivingNeeded, waited);
  switch_wait_ns += waited;
  if (st.ok()) return st;
  return absl::Status(st.code(), fmt::format(
      "ORA-00257: archiver error: log group {} (sequence {}) is not archived, so LGWR cannot "
      "reuse it; nothing of this statement is committed (free space in +{}, then retry): {}",
      g.group, found->second.sequence, ArchiveDiskGroup(*db), std::string(st.message())));
}

absl::Status DataEngine::MakeNextLogReusable(Recorder& rec) {
  {
    MutexLock lock(&db->mu);  // the common case, without copying the table
    if (!db->table.archivelog) return absl::OkStatus();
  }
  const FileTable table = FileTableCopy();  // `groups` point into it
  if (!table.archivelog) return absl::OkStatus();
  const std::vector<const LogGroup*> groups = Thread1Groups(table);
  if (groups.size() < 2) return absl::OkStatus();
  const uint32_t next = (current_group_index + 1) % static_cast<uint32_t>(groups.size());
  return MakeReusable(rec, *groups[next]);
}

absl::Status DataEngine::NextLog(Recorder& rec, const std::vector<const LogGroup*>& groups,
                                 bool archivelog) {
  const uint32_t next = (current_group_index + 1) % static_cast<uint32_t>(groups.size());
  const LogGroup* g = groups[next];
  // The next group last held sequence + 1 - groups: crash recovery still
  // needs it while the checkpoint is in it or before. Every switch takes its
  // checkpoint once this write is done, so only redo larger than the other
  // groups hold comes back to it first (log_flush_bytes keeps LGWR's writes
  // below that; a single redo record can still be larger).
  if (next != current_group_index && sequence + 1 >= groups.size() &&
      sequence + 1 - groups.size() >= std::max<uint64_t>(checkpoint.sequence, 1)) {
    return absl::ResourceExhaustedError(fmt::format(
        "LGWR: log group {} cannot be reused yet: it holds log sequence {}, which crash recovery "
        "still needs (the checkpoint is in sequence {}); this redo ({} bytes) is more than the "
        "other online logs hold: add log groups or make them larger",
        g->group, sequence + 1 - groups.size(), checkpoint.sequence, log_buffer.size()));
  }
  if (archivelog && next != current_group_index) {
    if (absl::Status st = MakeReusable(rec, *g); !st.ok()) return st;
  }
  // LGWR tries the group's INVALID members again: they take this sequence
  // from its first block, or become INVALID again.
  for (const LogMember& m : g->members) invalid_log_members.erase(m.file.name);
  const LogGroup* old = groups[current_group_index];
  ++scn;  // a log switch advances the SCN: each log's range is not empty
  const int64_t now = db->clock->UnixSeconds();
  LogUse& left = log_use[old->group] = CurrentLogUse();
  left.next_change = scn;
  left.next_time = now;
  left.needs_archive = archivelog;
  RecordLogSwitch(left);
  current_group_index = next;
  ++sequence;
  log_block = 2;
  log_first_change = scn;
  log_first_time = now;
  current_log_blocks = g->size_bytes / g->block_size;
  return absl::OkStatus();
}

absl::Status DataEngine::CompleteSwitch(Recorder& rec, uint32_t left_group, bool archivelog) {
  const uint64_t t0 = db->clock->NowNanos();
  absl::Status st = Checkpoint(rec);
  if (st.ok() && archivelog) {
    const FileTable table = FileTableCopy();
    const LogGroup* g = table.FindLogGroup(left_group);
    auto u = log_use.find(left_group);
    if (g != nullptr && u != log_use.end() && u->second.needs_archive && !u->second.archived) {
      // Not the statement's error: its redo is written; the log waits for
      // ARCH, who tries again before the group is reused.
      (void)ArchiveLog(*g, u->second);
    }
  }
  const uint64_t waited = db->clock->NowNanos() - t0;
  rec.Wait(Wait::kLogFileSwitchCompletion, waited);
  switch_wait_ns += waited;
  return st;
}

absl::Status DataEngine::AssembleLog(Recorder& arch, const LogGroup& g, const LogUse& u,
                                     std::vector<uint8_t>* image) {
  constexpr uint64_t kHeaderBlocks = 2;  // the OS header and the log file header
  if (u.blocks <= kHeaderBlocks) return absl::DataLossError("no member holds the log header whole");
  std::vector<uint8_t> out;
  std::vector<uint64_t> missing;
  std::vector<std::pair<uint64_t, size_t>> from_other;
  absl::Status st = arch.Timed(Wait::kLogArchiveIo, [&] {
    return ReadRedoBlocks(arch, g, u.sequence, kHeaderBlocks, u.blocks - kHeaderBlocks, &out,
                          &missing, &from_other);
  });
  if (!st.ok()) return st;
  // Blocks missing only at the end: past the end of the redo (a log copied
  // whole). One before a whole block: damage on every member.
  if (!missing.empty() && missing.back() - missing.front() + 1 != missing.size()) {
    missing.erase(missing.begin() + 1, missing.end());  // the first (not resize: a g++ 12 warning)
  } else if (!missing.empty() && missing.back() + 1 == u.blocks) {
    missing.clear();
  }
  if (!missing.empty()) {
    std::vector<std::string> names;
    for (const LogMember& m : g.members) names.push_back(m.file.name);
    return absl::DataLossError(fmt::format(
        "ORA-00354: corrupt redo log block header: block {} of sequence {} is not whole in any "
        "member ({})", missing.front(), u.sequence, fmt::join(names, ", ")));
  }
  // The headers: from the first member whose copy reads (the image read
  // before holds them unless the DataLoss was theirs).
  st = ReadFromFirstWholeMember(db->rack, arch, g,
                                absl::MakeSpan(image->data(), kHeaderBlocks * g.block_size));
  if (!st.ok()) return st;
  std::copy(out.begin(), out.end(), image->begin() + kHeaderBlocks * g.block_size);
  return absl::OkStatus();
}

absl::Status DataEngine::ArchiveLog(const LogGroup& g, LogUse& u) {
  absl::StatusOr<asmgr::DiskGroup*> dest = ArchiveDestination(*db);
  if (!dest.ok()) return dest.status();
  Recorder arch = db->SystemRecorder();  // ARCH's work, not the session's
  const uint64_t bytes = u.blocks * g.block_size;
  std::vector<uint8_t> image(bytes);
  absl::Status read = ReadFromFirstWholeMember(db->rack, arch, g, absl::MakeSpan(image));
  // A member LGWR stopped writing (INVALID) reads whole but holds an older
  // log past that point: then the log is assembled block by block from the
  // members that hold each block of this sequence.
  if (read.ok() && !HoldsSequence(g, u, image)) read = absl::DataLossError("a stale member");
  if (read.code() == absl::StatusCode::kDataLoss) read = AssembleLog(arch, g, u, &image);
  if (!read.ok()) {
    return absl::Status(read.code(), fmt::format("ARCH: reading log group {} (sequence {}): {}",
                                                 g.group, u.sequence, std::string(read.message())));
  }
  const FileTable before = FileTableCopy();
  asmgr::FileSpec spec{.db_name = before.db_name, .type = asmgr::FileType::kArchiveLog,
                       .tag = fmt::format("thread_1_seq_{}", u.sequence), .size_bytes = bytes,
                       .block_size = g.block_size};
  absl::StatusOr<asmgr::FileInfo> f = (*dest)->CreateFile(spec);
  if (!f.ok()) {
    return absl::Status(f.status().code(), fmt::format("ARCH: creating the archived log of sequence {}: {}",
                                              u.sequence, std::string(f.status().message())));
  }
  std::vector<asmgr::AsmWriteRequest> w(1);
  w[0].file_offset = 0;
  w[0].data = absl::MakeConstSpan(image);
  asmgr::AsmIoResult res;
  absl::Status st = arch.Timed(Wait::kLogArchiveIo, [&] { return (*dest)->Write(f->number, absl::MakeSpan(w), &res); });
  AccountWrite(arch, res, 1, bytes);
  std::vector<AsmFileRef> aged;
  if (st.ok()) {
    // Recorded in the control file only once the copy is whole: a crash
    // before leaves a file no entry names, which the next open deletes.
    MutexLock lock(&db->mu);
    FileTable& t = db->table;
    st = db->cf->ReadCurrent(arch);
    if (st.ok()) {
      const FileTable kept = t;
      t.archived_logs.push_back(ArchivedLog{1, u.sequence, u.first_change, u.next_change, u.blocks,
                                            g.block_size, AsmFileRef{(*dest)->name(), f->number, f->name},
                                            db->clock->UnixSeconds()});
      while (t.archived_logs.size() > FileTable::kMaxArchivedLogs) {
        aged.push_back(t.archived_logs.front().file);
        t.archived_logs.erase(t.archived_logs.begin());
      }
      st = db->cf->Write(t, arch);
      if (!st.ok()) t = kept;
    }
  }
  if (!st.ok()) {
    (void)(*dest)->DeleteFile(f->number);
    return absl::Status(st.code(), fmt::format("ARCH: archiving log sequence {}: {}", u.sequence,
                                               std::string(st.message())));
  }
  u.archived = true;
  for (const AsmFileRef& r : aged) {
    absl::StatusOr<asmgr::DiskGroup*> dg = FindDiskGroup(db->rack, r.disk_group);
    if (dg.ok()) (void)(*dg)->DeleteFile(r.number);  // no entry names it: open would delete it
  }
  return absl::OkStatus();
}

void DataEngine::ArchiveClosedLog(const CheckpointPosition& closed) {
  const FileTable table = FileTableCopy();  // `groups` point into it
  const std::vector<const LogGroup*> groups = Thread1Groups(table);
  if (!table.archivelog || closed.sequence == 0 || closed.group_index >= groups.size() ||
      Archived(table, closed.sequence)) {
    return;
  }
  const LogGroup* g = groups[closed.group_index];
  LogUse& u = UseOf(g->group, closed.sequence);
  u.next_change = closed.scn;
  u.blocks = closed.block;
  u.needs_archive = true;
  u.archived = false;
  (void)ArchiveLog(*g, u);  // else retried before the group is reused
}

std::map<uint32_t, LogUse> DataEngine::LogUseWithCurrent(const FileTable& t) const {
  std::map<uint32_t, LogUse> out = log_use;
  const std::vector<const LogGroup*> groups = Thread1Groups(t);
  if (current_group_index < groups.size()) out[groups[current_group_index]->group] = CurrentLogUse();
  std::erase_if(out, [&](const auto& u) { return t.FindLogGroup(u.first) == nullptr; });
  return out;
}

LogUse DataEngine::CurrentLogUse() const {
  LogUse u;
  u.sequence = sequence;
  u.first_change = log_first_change;
  u.blocks = log_block;
  u.first_time = log_first_time;
  return u;
}

void DataEngine::RecordLogSwitch(const LogUse& u) {
  if (!log_history.empty() && log_history.back().log.sequence >= u.sequence) return;
  const uint64_t recid = log_history.empty() ? 1 : log_history.back().recid + 1;
  log_history.push_back(LogHistoryEntry{recid, u});
  if (log_history.size() > kMaxLogHistory) {
    log_history.erase(log_history.begin(), log_history.end() - kMaxLogHistory);
  }
}

LogUse& DataEngine::UseOf(uint32_t group, uint64_t seq) {
  LogUse& u = log_use[group];
  if (u.sequence != seq) u = LogUse{.sequence = seq};
  return u;
}

void DataEngine::SettleLogUse(uint64_t first_seq, uint64_t last_seq, uint32_t last_group,
                              const std::map<uint64_t, uint64_t>& first_redo_scn) {
  const FileTable table = FileTableCopy();  // `groups` point into it
  for (auto& [group, u] : log_use) u.archived = Archived(table, u.sequence);
  const std::vector<const LogGroup*> groups = Thread1Groups(table);
  first_seq = std::max<uint64_t>(first_seq, 1);  // (0: no checkpoint since creation)
  if (groups.empty() || last_seq < first_seq) return;
  const uint64_t n = groups.size();
  // Walking back from the last log: the one before each is in the group
  // before. Oldest first in `walked`.
  std::vector<LogUse*> walked;
  for (uint64_t k = 0; k <= last_seq - first_seq && k < n; ++k) {
    const LogGroup* g = groups[(last_group + n - k) % n];
    LogUse& u = UseOf(g->group, last_seq - k);
    if (k == 0) {  // it ends where the log this open makes CURRENT begins
      u.next_change = scn;
      u.next_time = log_first_time;
    }
    walked.insert(walked.begin(), &u);
  }
  // A log's range ends where the next one's begins; a crash between a switch
  // and its checkpoint leaves one side known.
  for (size_t i = 0; i + 1 < walked.size(); ++i) {
    LogUse& a = *walked[i];
    LogUse& b = *walked[i + 1];
    if (a.next_change == 0 && b.first_change == 0) {
      if (auto f = first_redo_scn.find(b.sequence); f != first_redo_scn.end()) b.first_change = f->second;
    }
    if (a.next_change == 0) a.next_change = b.first_change;
    if (b.first_change == 0) b.first_change = a.next_change;
    // No time is in the redo: a switch whose time was not kept is dated
    // with the open that found it.
    if (a.next_time == 0) a.next_time = b.first_time != 0 ? b.first_time : log_first_time;
    if (b.first_time == 0) b.first_time = a.next_time;
  }
  for (const LogUse* u : walked) RecordLogSwitch(*u);
}

void DataEngine::ArchiveAfterOpen() {
  const FileTable table = FileTableCopy();  // `groups` point into it
  if (!table.archivelog) return;
  uint64_t newest = 0;
  for (const ArchivedLog& a : table.archived_logs) newest = std::max(newest, a.sequence);
  for (const LogGroup* g : Thread1Groups(table)) {
    // The sequence a log holds is in its redo blocks' headers (block 2 on).
    uint64_t seq = 0;
    for (const LogMember& m : g->members) {
      absl::StatusOr<asmgr::DiskGroup*> dg = FindDiskGroup(db->rack, m.file.disk_group);
      if (!dg.ok()) continue;
      std::vector<uint8_t> b(g->block_size);
      std::vector<asmgr::AsmReadRequest> r(1);
      r[0].file_offset = 2 * uint64_t{g->block_size};
      r[0].buffer = absl::MakeSpan(b);
      asmgr::AsmIoResult res;
      if (!(*dg)->Read(m.file.number, absl::MakeSpan(r), &res).ok()) continue;
      if (b[0] == format::kRedoSignature && b[1] == format::kRedoFormat) {
        uint32_t s32 = 0;
        std::memcpy(&s32, &b[8], 4);
        seq = s32;
      }
      break;
    }
    if (seq == 0 || seq >= sequence || seq <= newest || Archived(table, seq)) continue;
    LogUse& u = UseOf(g->group, seq);
    u.blocks = g->size_bytes / g->block_size;
    u.needs_archive = true;
    u.archived = false;
    (void)ArchiveLog(*g, u);  // else retried before the group is reused
  }
}

absl::Status DataEngine::SetLogMode(Recorder& rec, bool archivelog) {
  if (archivelog) {
    if (absl::StatusOr<asmgr::DiskGroup*> dest = ArchiveDestination(*db); !dest.ok()) {
      return dest.status();
    }
  }
  MutexLock lock(&db->mu);
  if (absl::Status st = db->cf->ReadCurrent(rec); !st.ok()) return st;
  FileTable& t = db->table;
  if (t.archivelog == archivelog) return absl::OkStatus();
  t.archivelog = archivelog;
  absl::Status st = db->cf->Write(t, rec);
  if (!st.ok()) t.archivelog = !archivelog;
  return st;
}

absl::Status DataEngine::SwitchLogfile(Recorder& rec, bool archive_current) {
  if (absl::Status st = FlushLog(rec, true); !st.ok()) return st;
  const FileTable table = FileTableCopy();  // `groups` point into it
  const std::vector<const LogGroup*> groups = Thread1Groups(table);
  if (groups.empty()) {
    return absl::FailedPreconditionError(
        "ORA-00313: thread 1 has no online log group to switch to");
  }
  if (archive_current && !table.archivelog) {
    return absl::FailedPreconditionError(
        "ORA-00258: manual archiving in NOARCHIVELOG mode must identify log: the database is in "
        "NOARCHIVELOG mode (ALTER DATABASE ARCHIVELOG first)");
  }
  current_group_index %= static_cast<uint32_t>(groups.size());
  const uint32_t left = groups[current_group_index]->group;
  if (absl::Status st = NextLog(rec, groups, table.archivelog); !st.ok()) return st;
  if (absl::Status st = CompleteSwitch(rec, left, table.archivelog); !st.ok()) return st;
  if (archive_current && !log_use[left].archived) {
    const LogGroup* g = table.FindLogGroup(left);
    if (g == nullptr) return absl::NotFoundError(fmt::format("log group {} is gone", left));
    if (absl::Status st = ArchiveLog(*g, log_use[left]); !st.ok()) return st;
  }
  return absl::OkStatus();
}

// SQL*Plus's ARCHIVE LOG LIST.
std::string ArchiveLogList(DataEngine& e) ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu) {
  const FileTable t = e.FileTableCopy();
  uint64_t oldest = e.sequence, next_to_archive = e.sequence;
  for (const LogGroup* g : Thread1Groups(t)) {
    auto u = e.log_use.find(g->group);
    if (u == e.log_use.end() || u->second.sequence == 0) continue;
    oldest = std::min(oldest, u->second.sequence);
    if (u->second.needs_archive && !u->second.archived) {
      next_to_archive = std::min(next_to_archive, u->second.sequence);
    }
  }
  std::string out = fmt::format("{:<31}{}\n{:<31}{}\n{:<31}{}\n{:<31}{}\n", "Database log mode",
                                t.archivelog ? "Archive Mode" : "No Archive Mode",
                                "Automatic archival", t.archivelog ? "Enabled" : "Disabled",
                                "Archive destination", ArchiveDestinationName(*e.db),
                                "Oldest online log sequence", oldest);
  if (t.archivelog) out += fmt::format("{:<31}{}\n", "Next log sequence to archive", next_to_archive);
  out += fmt::format("{:<31}{}", "Current log sequence", e.sequence);
  return out;
}

absl::Status RunLogCommand(DataEngine& e, Recorder& rec, const LogCommand& c, DataOutcome* out) {
  switch (c.kind) {
    case LogCommand::Kind::kArchivelog:
    case LogCommand::Kind::kNoArchivelog:
      out->feedback = "Database altered.";
      return e.SetLogMode(rec, c.kind == LogCommand::Kind::kArchivelog);
    case LogCommand::Kind::kSwitchLogfile:
    case LogCommand::Kind::kArchiveCurrent:
      out->feedback = "System altered.";
      return e.SwitchLogfile(rec, c.kind == LogCommand::Kind::kArchiveCurrent);
    case LogCommand::Kind::kList:
      out->feedback = ArchiveLogList(e);
      return absl::OkStatus();
    case LogCommand::Kind::kCheckpoint:
      // LGWR writes the log buffer, DBWR every dirty block, and the
      // checkpoint moves to the end of the log: the logs before the current
      // one are no longer needed for crash recovery (V$LOG INACTIVE).
      out->feedback = "System altered.";
      return e.Checkpoint(rec);
    case LogCommand::Kind::kFlushBufferCache:
      out->feedback = "System altered.";
      return e.FlushBufferCache(rec);
    case LogCommand::Kind::kFlushSharedPool:
      out->feedback = "System altered.";
      e.db->library_cache.Flush();
      return absl::OkStatus();
  }
  return absl::InternalError("unhandled log command");
}

}  // namespace cellsim::db::internal
