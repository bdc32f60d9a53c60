// The invariants the crash campaign checks after every power cut
// (docs/crash-campaign.md lists them with their rules).
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <set>

#include "absl/strings/ascii.h"
#include "cellsim/base/units.h"
#include "cellsim/cell/cell.h"
#include "crash_harness.h"

namespace cellsim::reliability {
namespace {

constexpr uint64_t kPage = 4096;

using Writes = std::vector<std::pair<uint64_t, std::vector<uint8_t>>>;

// True when `got`, the `n` bytes at file offset `at`, equal the acknowledged
// bytes `want` with some subset of the in-flight requests applied, each one
// entirely within the page or not at all (requests are independent: a cell
// acknowledges and persists each on its own).
bool SomeSubsetMatches(const uint8_t* got, const uint8_t* want, uint64_t at, uint64_t n,
                       const Writes& writes) {
  std::vector<const std::pair<uint64_t, std::vector<uint8_t>>*> touching;
  for (const auto& w : writes) {
    if (w.first < at + n && at < w.first + w.second.size()) touching.push_back(&w);
  }
  std::vector<uint8_t> page(n);
  for (uint32_t mask = 1; mask < (1u << touching.size()); ++mask) {
    std::memcpy(page.data(), want, n);
    for (size_t i = 0; i < touching.size(); ++i) {
      if ((mask & (1u << i)) == 0) continue;
      const uint64_t lo = std::max(at, touching[i]->first);
      const uint64_t hi = std::min(at + n, touching[i]->first + touching[i]->second.size());
      std::memcpy(page.data() + (lo - at), touching[i]->second.data() + (lo - touching[i]->first),
                  hi - lo);
    }
    if (std::memcmp(page.data(), got, n) == 0) return true;
  }
  return false;
}

// First 4 KiB page (pages aligned to the file's start; `base` is the file
// offset of got[0]) that is not `want`, nor (with `writes`) `want` changed by
// some of the in-flight requests.
std::string ComparePages(absl::Span<const uint8_t> got, absl::Span<const uint8_t> want,
                         const Writes* writes, uint64_t base) {
  for (uint64_t p = 0; p < got.size(); p += kPage) {
    const uint64_t n = std::min<uint64_t>(kPage, got.size() - p);
    if (std::memcmp(got.data() + p, want.data() + p, n) == 0) continue;
    if (writes != nullptr &&
        SomeSubsetMatches(got.data() + p, want.data() + p, base + p, n, *writes)) {
      continue;
    }
    uint64_t b = 0;
    while (b < n && got[p + b] == want[p + b]) ++b;
    return fmt::format(
        "page at file offset {} differs from the acknowledged bytes{} (first at "
        "{}: {:#04x}, expected {:#04x})",
        base + p, writes == nullptr ? "" : " with or without the in-flight write", base + p + b,
        got[p + b], want[p + b]);
  }
  return "";
}

}  // namespace

bool Checker::Check(bool ok, const std::string& what) {
  ++tally_->invariants;
  if (!ok && first_.empty()) first_ = what;
  return ok;
}

bool Checker::CheckOk(const absl::Status& st, const std::string& what) {
  return Check(st.ok(), st.ok() ? what : fmt::format("{}: {}", what, st.ToString()));
}

void Checker::AfterCut(Rig& rig, const Model& model, const InFlight& f, bool deep) {
  Cells(rig, model, f);
  Space(rig);
  db::FileTable table;
  Table(rig, model, f, &table);
  if (!ok()) return;
  Asm(rig, table);
  Contents(rig, table, model, f, "after reopen");
  if (!deep || !ok()) return;
  Scrub(rig, table, f);
  // The recovered rack keeps working: flush every cache (destage dirty lines,
  // materialize fast-creation templates), then close and reopen cleanly; the
  // bytes must not move.
  for (uint32_t c = 0; c < rig.rack->cell_count(); ++c) {
    cell::Cell* cell = rig.rack->concrete_cell(c);
    CheckOk(cell->Flush({}).status(), fmt::format("flush of {} after recovery", cell->name()));
    Check(cell->DirtyBytes() == 0 && cell->TemplateRangeCount() == 0,
          fmt::format("{} still has {} dirty bytes and {} templates after a flush", cell->name(),
                      cell->DirtyBytes(), cell->TemplateRangeCount()));
  }
  Contents(rig, table, model, f, "after flushing every cell");
  if (!CheckOk(rig.Drop(/*clean=*/true), "clean close after recovery")) return;
  if (!CheckOk(rig.Open(rig.db_options), "clean reopen after recovery")) return;
  Check(rig.db->recovery_actions().empty(),
        fmt::format("clean reopen after recovery still recovers: {}",
                    rig.db->recovery_actions().empty() ? "" : rig.db->recovery_actions()[0]));
  Check(rig.db->file_table() == table, "clean reopen after recovery changed the file table");
  Cells(rig, model, f);
  Space(rig);
  Contents(rig, table, model, f, "after a clean restart", /*all_via_asm=*/true);
}

// Cell metadata: reopened (checksums, journal replay), directory consistent,
// nothing lost, the acknowledged flash cache mode.
void Checker::Cells(Rig& rig, const Model& model, const InFlight& f) {
  for (uint32_t c = 0; c < rig.rack->cell_count(); ++c) {
    cell::Cell* cell = rig.rack->concrete_cell(c);
    CheckOk(cell->CheckConsistency(), fmt::format("{} cache directory", cell->name()));
    absl::StatusOr<std::vector<cell::LostRange>> lost = cell->LostRanges();
    Check(lost.ok() && lost->empty(), fmt::format("{} reports lost ranges", cell->name()));
    const cell::FlashCacheMode m = cell->flash_cache_mode();
    Check(m == model.modes[c] || (f.kind == InFlight::kMode && f.cell == c && m == f.mode),
          fmt::format("{} is {}, acknowledged {}", cell->name(), cell::FlashCacheModeName(m),
                      cell::FlashCacheModeName(model.modes[c])));
  }
}

// ASM: the group's own cross-check, every disk online and current, and an
// independent count from the public views: every AU in at most one extent
// copy, per-disk allocation = AUs in the extent maps, free = total - used.
void Checker::Space(Rig& rig) {
  for (asmgr::DiskGroup* g : rig.rack->disk_groups()) {
    const std::string dg = g->name();
    CheckOk(g->CheckConsistency(), fmt::format("+{} CheckConsistency", dg));
    const uint64_t au = g->au_size();
    std::vector<asmgr::DiskView> disks = g->Disks();
    std::vector<uint64_t> used(disks.size(), 0);
    std::set<std::pair<uint32_t, uint64_t>> owned;
    for (const asmgr::DiskView& d : disks) {
      Check(d.mode_status == "ONLINE" && d.stale_aus == 0,
            fmt::format("+{} disk {} is {} with {} stale AUs after recovery", dg, d.name,
                        d.mode_status, d.stale_aus));
    }
    for (const asmgr::FileInfo& file : g->ListFiles()) {
      absl::StatusOr<std::vector<asmgr::Extent>> map = g->ExtentMap(file.number);
      if (!CheckOk(map.status(), fmt::format("extent map of {}", file.name))) continue;
      Check(map->size() == (file.size_bytes + au - 1) / au,
            fmt::format("{}: {} extents for {} bytes", file.name, map->size(), file.size_bytes));
      for (const asmgr::Extent& e : *map) {
        std::set<uint32_t> cells;
        for (const asmgr::ExtentCopy& c : e.copies) {
          cells.insert(c.cell);
          Check(c.disk < disks.size() && c.disk_offset % au == 0 &&
                    c.disk_offset / au < disks[c.disk].total_aus,
                fmt::format("{} extent {}: copy at disk {} offset {} is outside its disk",
                            file.name, e.index, c.disk, c.disk_offset));
          Check(owned.insert({c.disk, c.disk_offset}).second,
                fmt::format("+{}: AU {} of disk {} is allocated twice (again by {} extent {})", dg,
                            c.disk_offset / au, c.disk, file.name, e.index));
          if (c.disk < used.size()) ++used[c.disk];
        }
        Check(e.copies.size() == file.copies && cells.size() == e.copies.size(),
              fmt::format("{} extent {}: {} copies in {} failure groups, {} expected", file.name,
                          e.index, e.copies.size(), cells.size(), file.copies));
      }
    }
    uint64_t total_aus = 0, free_aus = 0;
    for (const asmgr::DiskView& d : disks) {
      Check(used[d.index] == d.allocated_aus,
            fmt::format("+{} disk {}: {} AUs in extent maps, {} allocated (leak or double count)",
                        dg, d.name, used[d.index], d.allocated_aus));
      total_aus += d.total_aus;
      free_aus += d.total_aus - std::min(d.total_aus, used[d.index]);
    }
    const asmgr::SpaceInfo s = g->Space();
    Check(s.total_mb * kMiB == total_aus * au && s.free_mb * kMiB == free_aus * au,
          fmt::format("+{}: lsdg says {} MiB total / {} MiB free, the extent maps {} / {}", dg,
                      s.total_mb, s.free_mb, total_aus * au / kMiB, free_aus * au / kMiB));
  }
}

// The database reopened (control-file checksums, recovery), its file table is
// the acknowledged one or the one the in-flight statement would have made,
// and recovery is complete: a second open finds nothing to do.
void Checker::Table(Rig& rig, const Model& model, const InFlight& f, db::FileTable* table) {
  *table = rig.db->file_table();
  bool as_acked = *table == model.table;
  std::string why;
  if (!as_acked && f.kind == InFlight::kDdl) {
    absl::Status st = CheckEffect(model.table, *table, f.ddl);
    as_acked = st.ok();
    why = std::string(st.message());
  } else if (!as_acked) {
    why = fmt::format("acknowledged: {}\n  recovered:    {}", TableSummary(model.table),
                      TableSummary(*table));
  }
  Check(as_acked, fmt::format("recovered file table is neither the acknowledged one nor the "
                              "in-flight statement's: {}",
                              why));
  const std::vector<std::string> actions = rig.db->recovery_actions();
  Check(actions.empty() || f.kind == InFlight::kDdl,
        fmt::format("recovery did something with no statement in flight: {}",
                    actions.empty() ? "" : actions[0]));
  rig.session.reset();
  rig.db.reset();
  absl::StatusOr<std::unique_ptr<db::Database>> again =
      db::Database::Open(rig.rack.get(), rig.db_options);
  if (!CheckOk(again.status(), "second Database::Open")) return;
  rig.db = *std::move(again);
  rig.session = rig.db->NewSession();
  Check(rig.db->recovery_actions().empty(),
        fmt::format("second open still recovers: {}",
                    rig.db->recovery_actions().empty() ? "" : rig.db->recovery_actions()[0]));
  Check(rig.db->file_table() == *table, "second open changed the file table");
}

// The file table and ASM agree: every entry's file exists with its name and
// size, every ASM file of the database is an entry or one of its two control
// files.
void Checker::Asm(Rig& rig, const db::FileTable& table) {
  const std::map<std::string, FileSlot> images = TableFiles(table);
  std::set<std::string> referenced;
  for (const db::AsmFileRef& r : table.AllFiles()) {
    referenced.insert(FileKey(r.disk_group, r.number));
    absl::StatusOr<asmgr::DiskGroup*> g = rig.rack->disk_group(r.disk_group);
    if (!CheckOk(g.status(), fmt::format("disk group of {}", r.name))) continue;
    absl::StatusOr<asmgr::FileInfo> info = (*g)->LookupFile(r.number);
    if (!CheckOk(info.status(), fmt::format("ASM file of entry {}", r.name))) continue;
    auto img = images.find(FileKey(r.disk_group, r.number));
    Check(info->name == r.name && img != images.end() && info->size_bytes == img->second.size,
          fmt::format("ASM has {} ({} bytes) for entry {}", info->name, info->size_bytes, r.name));
  }
  std::vector<std::string> control;
  for (asmgr::DiskGroup* g : rig.rack->disk_groups()) {
    for (const asmgr::FileInfo& file : g->ListFiles()) {
      if (absl::AsciiStrToUpper(file.db_name) != table.db_name) continue;
      if (file.type == asmgr::FileType::kControlFile) {
        control.push_back(file.name);
        continue;
      }
      Check(referenced.count(FileKey(g->name(), file.number)) != 0,
            fmt::format("ASM file {} belongs to no file-table entry (leaked)", file.name));
    }
  }
  std::vector<std::string> names = rig.db->control_files();
  std::sort(control.begin(), control.end());
  std::sort(names.begin(), names.end());
  Check(control.size() == 2 && control == names,
        fmt::format("{} control files in ASM, the database uses {}", control.size(), names.size()));
}

// Every copy of every extent of every file, read from its cell, and the file
// read through ASM: acknowledged bytes, except pages of the in-flight write,
// which may hold the old or the new bytes (each 4 KiB page one or the other).
void Checker::Contents(Rig& rig, const db::FileTable& table, const Model& model, const InFlight& f,
                       const std::string& when, bool all_via_asm) {
  for (const auto& [key, slot] : TableFiles(table)) {
    auto m = model.files.find(key);
    // A file the model does not know was created by the statement in flight
    // (Table() checked that it may exist): it must read freshly formatted.
    std::map<std::string, FileImage> fresh;
    if (m == model.files.end()) {
      const std::set<std::string> only = {key};
      fresh = FormattedImages(table, &only);
    }
    const FileImage& img = m != model.files.end() ? m->second : fresh.at(key);
    const bool in_flight = f.kind == InFlight::kWrite && f.file == key;
    absl::StatusOr<asmgr::DiskGroup*> g = rig.rack->disk_group(img.disk_group);
    if (!CheckOk(g.status(), "disk group")) return;
    absl::StatusOr<std::vector<asmgr::Extent>> map = (*g)->ExtentMap(img.number);
    if (!CheckOk(map.status(), fmt::format("extent map of {}", img.name))) continue;
    // One read batch per cell: every copy of every extent, in 64 KiB
    // requests (small buffers: the cells allocate one per request, and
    // sanitizer builds map and fault every large allocation afresh).
    constexpr uint64_t kPiece = 64 * 1024;
    struct Piece {
      const asmgr::Extent* extent;
      uint32_t copy;
      uint64_t at;  // offset within the extent
      std::vector<uint8_t> bytes;
    };
    std::map<uint32_t, std::vector<cell::ReadRequest>> by_cell;
    std::map<uint32_t, std::vector<Piece>> pieces;
    for (const asmgr::Extent& e : *map) {
      for (uint32_t c = 0; c < e.copies.size(); ++c) {
        for (uint64_t at = 0; at < e.length; at += kPiece) {
          pieces[e.copies[c].cell].push_back(
              Piece{&e, c, at, std::vector<uint8_t>(std::min(kPiece, e.length - at))});
        }
      }
    }
    const bool want_primary = in_flight || all_via_asm;
    std::vector<uint8_t> primary(want_primary ? img.bytes.size() : 0);
    for (auto& [cell_index, list] : pieces) {
      std::vector<cell::ReadRequest> reqs;
      for (Piece& p : list) {
        const asmgr::ExtentCopy& x = p.extent->copies[p.copy];
        reqs.push_back({.grid_disk = x.grid_disk,
                        .offset = x.disk_offset + p.at,
                        .buffer = absl::MakeSpan(p.bytes)});
      }
      cell::CellIoStats st;
      absl::Status s = rig.rack->cell(cell_index)->Read(absl::MakeSpan(reqs), &st);
      if (!CheckOk(s, fmt::format("{}: read of {}'s copies from {}", when, img.name,
                                  rig.rack->cell_name(cell_index)))) {
        continue;
      }
      // First difference per extent copy.
      std::map<std::pair<uint32_t, uint32_t>, std::string> diffs;
      for (const Piece& p : list) {
        const asmgr::Extent& e = *p.extent;
        const uint64_t off = e.file_offset + p.at;
        const auto got = absl::MakeConstSpan(p.bytes);
        absl::Span<const uint8_t> want = absl::MakeConstSpan(img.bytes).subspan(off, got.size());
        const Writes* writes = nullptr;
        if (in_flight) {
          const std::string k = fmt::format("{}/{}/{}/{}", key, e.index, p.copy, p.at);
          auto r = resolved_.find(k);
          if (r != resolved_.end()) {
            want = r->second;  // settled at the first check
          } else {
            writes = &f.writes;
            resolved_[k].assign(got.begin(), got.end());
          }
        }
        std::string& d = diffs[{e.index, p.copy}];
        if (d.empty()) d = ComparePages(got, want, writes, off);
        if (p.copy == 0 && want_primary) {
          std::copy(got.begin(), got.end(), primary.begin() + static_cast<long>(off));
        }
      }
      for (const auto& [where, diff] : diffs) {
        Check(diff.empty(),
              fmt::format("{}: {} copy {} of extent {} ({}): {}", when, img.name, where.second,
                          where.first, rig.rack->cell_name(cell_index), diff));
      }
    }
    // Through ASM (the path a user reads): the primary copies' bytes. Read
    // for the file the cut may have left with differing copies (the others
    // are exact on every copy already), or for all on request.
    if (!in_flight && !all_via_asm) continue;
    std::vector<uint8_t> via_asm(img.bytes.size());
    std::vector<asmgr::AsmReadRequest> r(1);
    r[0].buffer = absl::MakeSpan(via_asm);
    if (CheckOk((*g)->Read(img.number, absl::MakeSpan(r), nullptr),
                fmt::format("{}: ASM read of {}", when, img.name))) {
      Check(via_asm == primary,
            fmt::format("{}: ASM read of {} differs from its primary copies", when, img.name));
    }
  }
}

// ASM scrub: every copy readable, and copies equal except where the cut may
// have left them different (the in-flight write, or a control-file write of
// the statement in flight).
void Checker::Scrub(Rig& rig, const db::FileTable& table, const InFlight& f) {
  for (asmgr::DiskGroup* g : rig.rack->disk_groups()) {
    asmgr::ScrubResult sr;
    if (!CheckOk(g->Scrub({}, &sr), fmt::format("scrub of +{}", g->name()))) continue;
    Check(sr.read_errors == 0,
          fmt::format("scrub of +{}: {} read errors", g->name(), sr.read_errors));
    for (const asmgr::ScrubMismatch& m : sr.mismatches) {
      absl::StatusOr<asmgr::FileInfo> info = g->LookupFile(m.file);
      const bool control = info.ok() && info->type == asmgr::FileType::kControlFile;
      bool allowed = control && f.kind == InFlight::kDdl;
      if (f.kind == InFlight::kWrite && f.file == FileKey(g->name(), m.file)) {
        const uint64_t au = g->au_size();
        const uint64_t lo = uint64_t{m.extent} * au, hi = lo + au;
        for (const auto& [off, data] : f.writes) allowed |= off < hi && lo < off + data.size();
      }
      Check(allowed, fmt::format("scrub of +{}: {} extent {} differs at file offset {} between {} "
                                 "and {}",
                                 g->name(), info.ok() ? info->name : std::to_string(m.file),
                                 m.extent, m.file_offset, m.disk_a, m.disk_b));
    }
  }
  (void)table;
}

}  // namespace cellsim::reliability
