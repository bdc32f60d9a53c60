// ALTER DISKGROUP name ONLINE DISK d | ONLINE ALL | OFFLINE DISK d, and
// ALTER DISKGROUP name SCRUB ...
#include <algorithm>
#include <map>
#include <optional>
#include <string>

#include "cellsim/asm/disk_group.h"
#include "cellsim/db/data_views.h"
#include "cellsim/db/database_state.h"
#include "absl/strings/match.h"
#include "fmt/format.h"

namespace cellsim::db::internal {

absl::Status RunAlterDiskgroupDisks(Session::State& s, const AlterDiskgroupDisks& st) {
  absl::StatusOr<asmgr::DiskGroup*> dg = FindDiskGroup(s.db->rack, st.disk_group);
  if (!dg.ok()) return dg.status();
  asmgr::ResyncResult resync;
  absl::Status r;
  if (st.disk.empty()) {
    r = (*dg)->OnlineAll(&resync);
  } else {
    absl::StatusOr<uint32_t> d = (*dg)->FindDisk(st.disk);
    if (!d.ok()) {
      return absl::NotFoundError(fmt::format(
          "ORA-15054: disk \"{}\" does not exist in diskgroup \"{}\"", st.disk, st.disk_group));
    }
    r = st.online ? (*dg)->OnlineDisk(*d, &resync) : (*dg)->OfflineDisk(*d);
  }
  if (!r.ok() && !absl::StrContains(std::string(r.message()), "ORA-")) {
    return absl::Status(r.code(), fmt::format("ORA-15032: not all alterations performed: {}",
                                              std::string(r.message())));
  }
  if (!r.ok()) return r;
  return absl::OkStatus();
}

namespace {

// SCRUB FILE 'name': its file number in `dg` (ASM names are case-insensitive).
absl::StatusOr<uint32_t> ScrubbedFile(const asmgr::DiskGroup& dg, const ScrubDiskgroup& st) {
  absl::StatusOr<asmgr::FileInfo> f = dg.LookupFile(st.file);
  if (f.ok()) return f->number;
  return absl::NotFoundError(fmt::format(
      "ORA-15012: ASM file '{}' does not exist in diskgroup \"{}\" (asmcmd ls -l +{}/... lists "
      "its files)",
      st.file, st.disk_group, st.disk_group));
}

// The scrub's findings as a result: one row per mismatch, and a summary.
void ReportScrub(const asmgr::DiskGroup& dg, const ScrubDiskgroup& st,
                 const asmgr::ScrubResult& r, ExecOutcome* out) {
  std::map<uint32_t, std::string> names;
  for (const asmgr::FileInfo& f : dg.ListFiles()) names[f.number] = f.name;
  if (!r.mismatches.empty()) {
    out->headings = {"FILE", "EXTENT", "OFFSET", "KEPT", "DIFFERING", "BLOCKS", "REPAIRED",
                     "REASON"};
    out->numeric_columns = {false, true, true, false, false, true, false, false};
  }
  uint64_t judged = 0, repaired = 0;
  for (const asmgr::ScrubMismatch& m : r.mismatches) {
    judged += m.judged ? 1 : 0;
    repaired += m.repaired ? 1 : 0;
    out->result_rows.push_back(
        {names.count(m.file) != 0 ? names[m.file] : fmt::format("file {}", m.file),
         fmt::format("{}", m.extent), fmt::format("{}", m.file_offset), m.disk_a, m.disk_b,
         fmt::format("{}", m.blocks), m.repaired ? "YES" : "NO", m.reason});
  }
  const size_t n = r.mismatches.size();
  std::string found =
      n == 0 ? "every copy matches"
             : fmt::format("{} difference{} between copies: {} judged (the copy failing the block "
                           "checks, or outvoted), {} repaired{}",
                           CountWithCommas(static_cast<int64_t>(n)), n == 1 ? "" : "s",
                           CountWithCommas(judged), CountWithCommas(repaired),
                           st.repair || judged == 0 ? "" : " (REPAIR rewrites the judged ones)");
  out->feedback = fmt::format(
      "Scrub of {}: {} extents checked, {} bytes compared, {} read error{}; {}.\n"
      "Diskgroup altered.",
      st.disk_group, CountWithCommas(static_cast<int64_t>(r.extents_checked)),
      CountWithCommas(static_cast<int64_t>(r.bytes_compared)),
      CountWithCommas(static_cast<int64_t>(r.read_errors)), r.read_errors == 1 ? "" : "s", found);
}

}  // namespace

absl::Status RunScrubDiskgroup(Session::State& s, const ScrubDiskgroup& st, ExecOutcome* out) {
  absl::StatusOr<asmgr::DiskGroup*> dg = FindDiskGroup(s.db->rack, st.disk_group);
  if (!dg.ok()) return dg.status();
  if (st.stop) {  // a scrub runs within its statement: none is left running
    out->feedback = fmt::format(
        "No scrub of {} is running (cellsim scrubs within the statement).\nDiskgroup altered.",
        st.disk_group);
    return absl::OkStatus();
  }
  asmgr::ScrubOptions options{.repair = st.repair};
  options.cancel = s.cancel;
  if (!st.file.empty()) {
    absl::StatusOr<uint32_t> f = ScrubbedFile(**dg, st);
    if (!f.ok()) return f.status();
    options.file = *f;
  }
  if (!st.disk.empty()) {
    absl::StatusOr<uint32_t> d = (*dg)->FindDisk(st.disk);
    if (!d.ok()) {
      return absl::NotFoundError(fmt::format(
          "ORA-15054: disk \"{}\" does not exist in diskgroup \"{}\"", st.disk, st.disk_group));
    }
    options.disk = *d;
  }
  asmgr::ScrubResult result;
  if (absl::Status r = (*dg)->Scrub(options, &result); absl::IsCancelled(r)) {
    // What the batches done found and repaired stands; a new SCRUB starts over.
    const auto repaired = std::count_if(result.mismatches.begin(), result.mismatches.end(),
                                        [](const asmgr::ScrubMismatch& m) { return m.repaired; });
    return absl::CancelledError(fmt::format(
        "{}: {} ({} difference{} found, {} repaired; a new SCRUB starts over)", kCancelMessage,
        std::string(r.message()), CountWithCommas(static_cast<int64_t>(result.mismatches.size())),
        result.mismatches.size() == 1 ? "" : "s", CountWithCommas(repaired)));
  } else if (!r.ok()) {
    return absl::Status(r.code(), fmt::format("ORA-15032: not all alterations performed: {}",
                                              std::string(r.message())));
  }
  ReportScrub(**dg, st, result, out);
  return absl::OkStatus();
}

}  // namespace cellsim::db::internal
