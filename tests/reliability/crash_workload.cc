// The crash campaign's workload: parameters drawn from a seed, the rig (rack +
// database + session), and one operation at a time drawn from the seed and the
// model (crash_model.cc).
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <filesystem>

#include "cellsim/base/units.h"
#include "cellsim/cell/cell.h"
#include "cellsim/format/block_template.h"
#include "crash_harness.h"

namespace cellsim::reliability {
namespace {

template <typename T>
const T& Pick(std::mt19937_64& rng, const std::vector<T>& v) {
  return v[std::uniform_int_distribution<size_t>(0, v.size() - 1)(rng)];
}

}  // namespace

WorkloadParams DrawParams(uint64_t workload_seed) {
  std::mt19937_64 rng(workload_seed ^ 0x5eed5eed5eed5eedull);
  WorkloadParams p;
  asmgr::RackConfig& r = p.rack;
  r.cells = 3;
  r.cell_disks_per_cell = 2;
  const asmgr::Redundancy reco =
      Pick<asmgr::Redundancy>(rng, {asmgr::Redundancy::kNormal, asmgr::Redundancy::kNormal,
                                    asmgr::Redundancy::kHigh, asmgr::Redundancy::kExternal});
  r.disk_groups = {
      {.name = "DATA",
       .redundancy = asmgr::Redundancy::kNormal,
       .au_size = 1 * kMiB,
       .grid_disk_size = 48 * kMiB},
      {.name = "RECO", .redundancy = reco, .au_size = 1 * kMiB, .grid_disk_size = 24 * kMiB},
  };
  r.flash_size = 16 * kMiB;
  p.cell_journal_bytes = Pick<uint64_t>(rng, {64 * kKiB, 64 * kKiB, 128 * kKiB, 512 * kKiB});
  r.cache_line_size = Pick<uint32_t>(rng, {16 * 1024, 64 * 1024});
  r.flash_cache_mode = std::uniform_int_distribution<int>(0, 5)(rng) == 0
                           ? cell::FlashCacheMode::kWriteThrough
                           : cell::FlashCacheMode::kWriteBack;
  db::DatabaseOptions& d = p.db;
  d.min_log_file_bytes = 0;  // tiny racks: logs of a few KiB keep campaigns fast
  // Zero-fill requests below the cells' 1 MiB bypass threshold go through the
  // write-back cache; 1 MiB ones straight to disk.
  d.zero_fill.request_bytes = Pick<uint64_t>(rng, {256 * kKiB, 1 * kMiB});
  d.zero_fill.requests_per_batch = Pick<uint32_t>(rng, {2, 8, 64});
  d.zero_fill.batches_in_flight = Pick<uint32_t>(rng, {1, 2});
  d.smart_extents_per_call = Pick<uint32_t>(rng, {1, 2, 256});
  d.smart_requests_per_format = Pick<uint32_t>(rng, {0, 1});
  d.fast_requests_per_format = Pick<uint32_t>(rng, {0, 1});
  p.ops = std::uniform_int_distribution<uint32_t>(10, 20)(rng);
  // Where the cut may land: any write/sync/truncate/allocate of any file, or
  // only those of one kind of file (so that metadata-heavy cut points are not
  // drowned by data writes).
  constexpr uint32_t kMutating = io::kOpWrite | io::kOpSync | io::kOpTruncate | io::kOpAllocate;
  switch (std::uniform_int_distribution<int>(0, 5)(rng)) {
    case 0:
    case 1:
      p.cut_filter = {.ops = kMutating, .path_substring = ""};
      p.cut_filter_name = "any file";
      break;
    case 2:
      p.cut_filter = {.ops = kMutating, .path_substring = "flash.img"};
      p.cut_filter_name = "flash.img (cache data + cell metadata)";
      break;
    case 3:
      p.cut_filter = {.ops = kMutating, .path_substring = "/asm/"};
      p.cut_filter_name = "ASM metadata";
      break;
    case 4:
      p.cut_filter = {.ops = kMutating, .path_substring = "_CD_"};
      p.cut_filter_name = "grid disks";
      break;
    default:
      p.cut_filter = {.ops = kMutating, .path_substring = "/cel02/"};
      p.cut_filter_name = "cel02's files";
      break;
  }
  return p;
}

// ------------------------------------------------------------------ rig

absl::Status Rig::Create(const WorkloadParams& p) {
  clock = std::make_unique<ManualClock>();
  db_options = p.db;
  absl::StatusOr<std::unique_ptr<asmgr::Rack>> r =
      asmgr::Rack::Create(io, clock.get(), dir, p.rack);
  if (!r.ok()) return r.status();
  rack = *std::move(r);
  if (p.cell_journal_bytes != 0) {
    // Rack::Create gives every cell the default journal: re-create the (still
    // empty) cells with a smaller one, same names, disks and flash, and mount
    // the rack again. The disk groups find their grid disks by name and size.
    std::vector<cell::CellConfig> configs;
    for (uint32_t c = 0; c < rack->cell_count(); ++c)
      configs.push_back(rack->concrete_cell(c)->config());
    if (absl::Status st = rack->Close(); !st.ok()) return st;
    rack.reset();
    for (cell::CellConfig cfg : configs) {
      cfg.journal_bytes = p.cell_journal_bytes;
      const std::string cell_dir = dir + "/" + cfg.name;
      std::error_code ec;
      std::filesystem::remove_all(cell_dir, ec);
      if (ec)
        return absl::InternalError(fmt::format("cannot remove {}: {}", cell_dir, ec.message()));
      absl::StatusOr<std::unique_ptr<cell::Cell>> c =
          cell::Cell::Create(io, clock.get(), cell_dir, cfg, {.start_cleaner = false});
      if (!c.ok()) return c.status();
      if (absl::Status st = (*c)->Close(); !st.ok()) return st;
    }
    r = asmgr::Rack::Open(io, clock.get(), dir);
    if (!r.ok()) return r.status();
    rack = *std::move(r);
  }
  absl::StatusOr<std::unique_ptr<db::Database>> d = db::Database::Create(rack.get(), p.db);
  if (!d.ok()) return d.status();
  db = *std::move(d);
  session = db->NewSession();
  return absl::OkStatus();
}

absl::Status Rig::Open(const db::DatabaseOptions& options) {
  if (clock == nullptr) clock = std::make_unique<ManualClock>();
  db_options = options;
  absl::StatusOr<std::unique_ptr<asmgr::Rack>> r = asmgr::Rack::Open(io, clock.get(), dir);
  if (!r.ok()) return r.status();
  rack = *std::move(r);
  absl::StatusOr<std::unique_ptr<db::Database>> d = db::Database::Open(rack.get(), options);
  if (!d.ok()) return d.status();
  db = *std::move(d);
  session = db->NewSession();
  return absl::OkStatus();
}

absl::Status Rig::Drop(bool clean) {
  absl::Status first;
  session.reset();
  if (db != nullptr && clean) first = db->Close();
  db.reset();
  if (rack != nullptr && clean) {
    absl::Status st = rack->Close();
    if (first.ok()) first = st;
  }
  rack.reset();
  return first;
}

// -------------------------------------------------------------- workload

absl::Status Workload::Step(Rig& rig, Model& model, InFlight* f, Tally* tally) {
  *f = InFlight{};
  rig.clock->Advance(1'000'000'000);
  ++tally->ops_run;
  // Weighted choice; operations that do not apply (no file to write, too many
  // files to create more) are drawn again.
  enum {
    kWrite,
    kRead,
    kAddLog,
    kCreateTs,
    kAddDf,
    kDropLog,
    kDropTs,
    kFlush,
    kCleaner,
    kMode,
    kRestartClean,
    kRestartDirty,
    kKinds
  };
  static constexpr int kWeight[kKinds] = {30, 6, 10, 7, 4, 5, 4, 5, 3, 3, 3, 3};
  int total = 0;
  for (int w : kWeight) total += w;
  const size_t nfiles = model.files.size();
  for (;;) {
    int r = static_cast<int>(Uniform(0, total - 1));
    int kind = 0;
    while (r >= kWeight[kind]) r -= kWeight[kind++];
    const bool creating = kind == kAddLog || kind == kCreateTs || kind == kAddDf;
    if ((kind == kWrite || kind == kRead) && nfiles == 0) continue;
    if (creating && nfiles >= 10) continue;
    if (kind == kAddDf && model.table.tablespaces.empty()) continue;
    if (kind == kDropLog && model.table.log_groups.empty()) continue;
    if (kind == kDropTs && model.table.tablespaces.empty()) continue;
    switch (kind) {
      case kWrite:
        return Write(rig, model, f);
      case kRead:
        return Read(rig, model, f);
      case kAddLog:
      case kCreateTs:
      case kAddDf:
      case kDropLog:
      case kDropTs:
        return Ddl(rig, model, f, tally, kind - kAddLog);
      case kFlush: {
        const uint32_t c = static_cast<uint32_t>(Uniform(0, rig.rack->cell_count() - 1));
        f->kind = InFlight::kOther;
        f->what = last_ = fmt::format("flush flash cache of {}", rig.rack->cell_name(c));
        return rig.rack->cell(c)->Flush({}).status();
      }
      case kCleaner: {
        const uint32_t c = static_cast<uint32_t>(Uniform(0, rig.rack->cell_count() - 1));
        f->kind = InFlight::kOther;
        f->what = last_ = fmt::format("cleaner pass on {}", rig.rack->cell_name(c));
        return rig.rack->concrete_cell(c)->RunCleanerPass().status();
      }
      case kMode: {
        const uint32_t c = static_cast<uint32_t>(Uniform(0, rig.rack->cell_count() - 1));
        const cell::FlashCacheMode m = model.modes[c] == cell::FlashCacheMode::kWriteBack
                                           ? cell::FlashCacheMode::kWriteThrough
                                           : cell::FlashCacheMode::kWriteBack;
        f->kind = InFlight::kMode;
        f->cell = c;
        f->mode = m;
        f->what = last_ = fmt::format("alter cell {} flashCacheMode={}", rig.rack->cell_name(c),
                                      cell::FlashCacheModeName(m));
        absl::Status st = rig.rack->cell(c)->SetFlashCacheMode(m);
        if (st.ok()) model.modes[c] = m;
        return st;
      }
      case kRestartClean:
        return Restart(rig, model, f, /*clean=*/true);
      default:
        return Restart(rig, model, f, /*clean=*/false);
    }
  }
}

absl::Status Workload::Write(Rig& rig, Model& model, InFlight* f) {
  auto it = std::next(model.files.begin(), static_cast<long>(Uniform(0, model.files.size() - 1)));
  FileImage& img = it->second;
  const uint64_t size = img.bytes.size();
  std::vector<uint64_t>& hot = written_[it->first];
  std::vector<std::pair<uint64_t, std::vector<uint8_t>>> reqs;
  const uint64_t n = Uniform(1, 3);
  for (uint64_t i = 0; i < n; ++i) {
    // Mostly small writes (absorbed by a write-back cache), sometimes >= 1 MiB
    // (they bypass it), sometimes over an earlier write (an overwrite).
    uint64_t len = Uniform(0, 99) < 12 ? 512 * Uniform(2048, 2600) : 512 * Uniform(1, 64);
    len = std::min(len, size);
    uint64_t off = 512 * Uniform(0, (size - len) / 512);
    if (!hot.empty() && Uniform(0, 2) == 0) {
      off = std::min(hot[Uniform(0, hot.size() - 1)], size - len) / 512 * 512;
    }
    const bool overlaps = std::any_of(reqs.begin(), reqs.end(), [&](const auto& r) {
      return off < r.first + r.second.size() && r.first < off + len;
    });
    if (overlaps) continue;
    std::vector<uint8_t> data(len);
    for (size_t b = 0; b < len; b += 8) {
      const uint64_t v = rng_();
      std::memcpy(data.data() + b, &v, std::min<size_t>(8, len - b));
    }
    reqs.emplace_back(off, std::move(data));
  }
  f->kind = InFlight::kWrite;
  f->file = it->first;
  f->writes = reqs;
  std::string ranges;
  for (const auto& [off, data] : reqs) ranges += fmt::format(" [{}, +{})", off, data.size());
  f->what = last_ = fmt::format("write to {}:{}", img.name, ranges);
  absl::StatusOr<asmgr::DiskGroup*> dg = rig.rack->disk_group(img.disk_group);
  if (!dg.ok()) return dg.status();
  std::vector<asmgr::AsmWriteRequest> w(reqs.size());
  for (size_t i = 0; i < reqs.size(); ++i) {
    w[i].file_offset = reqs[i].first;
    w[i].data = reqs[i].second;
  }
  asmgr::AsmIoResult result;
  absl::Status st = (*dg)->Write(img.number, absl::MakeSpan(w), &result);
  // Each request carries its own result: one that succeeded is acknowledged
  // even when another request of the call failed.
  f->writes.clear();
  for (size_t i = 0; i < reqs.size(); ++i) {
    if (!w[i].status.ok()) {
      f->writes.push_back(reqs[i]);
      continue;
    }
    std::copy(reqs[i].second.begin(), reqs[i].second.end(),
              img.bytes.begin() + static_cast<long>(reqs[i].first));
    hot.push_back(reqs[i].first);
  }
  if (!st.ok()) return st;
  if (!result.failures.empty()) {
    return absl::InternalError(fmt::format("write acknowledged with a failed copy on {}: {}",
                                           result.failures[0].disk,
                                           std::string(result.failures[0].error.message())));
  }
  return absl::OkStatus();
}

absl::Status Workload::Read(Rig& rig, Model& model, InFlight* f) {
  auto it = std::next(model.files.begin(), static_cast<long>(Uniform(0, model.files.size() - 1)));
  const FileImage& img = it->second;
  const uint64_t size = img.bytes.size();
  const uint64_t len = std::min<uint64_t>(size, 512 * Uniform(1, 512));
  const uint64_t off = 512 * Uniform(0, (size - len) / 512);
  f->kind = InFlight::kOther;
  f->what = last_ = fmt::format("read {} [{}, +{})", img.name, off, len);
  absl::StatusOr<asmgr::DiskGroup*> dg = rig.rack->disk_group(img.disk_group);
  if (!dg.ok()) return dg.status();
  std::vector<uint8_t> buf(len);
  std::vector<asmgr::AsmReadRequest> r(1);
  r[0].file_offset = off;
  r[0].buffer = absl::MakeSpan(buf);
  absl::Status st = (*dg)->Read(img.number, absl::MakeSpan(r), nullptr);
  if (!st.ok()) return st;
  if (std::memcmp(buf.data(), img.bytes.data() + off, len) != 0) {
    live_failure_ = fmt::format("live read of {} [{}, +{}) differs from the acknowledged bytes",
                                img.name, off, len);
  }
  return absl::OkStatus();
}

absl::Status Workload::Ddl(Rig& rig, Model& model, InFlight* f, Tally* tally, int kind) {
  const db::FileTable& t = model.table;
  DdlEffect e;
  e.kind = static_cast<DdlEffect::Kind>(kind);
  const std::vector<std::string> dgs = {"DATA", "RECO"};
  auto sizes_k = [&] { return Uniform(1, 32) * 64; };  // 64 KiB .. 2 MiB
  switch (e.kind) {
    case DdlEffect::kAddLog: {
      e.thread = static_cast<uint32_t>(Uniform(1, 2));
      e.sql = fmt::format("alter database add logfile thread {}", e.thread);
      const uint64_t n = Uniform(1, 2);
      for (uint64_t i = 0; i < n; ++i) {
        DdlEffect::Group g;
        do {
          g.group = static_cast<uint32_t>(Uniform(1, 24));
        } while (t.FindLogGroup(g.group) != nullptr ||
                 std::any_of(e.groups.begin(), e.groups.end(),
                             [&](const DdlEffect::Group& x) { return x.group == g.group; }));
        g.block_size = Uniform(0, 3) == 0 ? 4096 : 512;
        const uint64_t k = sizes_k();
        g.size = (k * 1024 + g.block_size - 1) / g.block_size * g.block_size;
        switch (Uniform(0, 2)) {
          case 0:
            g.members = {"DATA"};
            break;
          case 1:
            g.members = {"RECO"};
            break;
          default:
            g.members = {"DATA", "RECO"};
            break;
        }
        std::string members;
        for (const std::string& m : g.members)
          members += (members.empty() ? "'+" : ", '+") + m + "'";
        e.sql += fmt::format("{} group {} ({}) size {}k{}", i == 0 ? "" : ",", g.group, members, k,
                             g.block_size == 4096 ? " blocksize 4096" : "");
        e.groups.push_back(g);
      }
      break;
    }
    case DdlEffect::kCreateTs:
    case DdlEffect::kAddDatafile: {
      if (e.kind == DdlEffect::kCreateTs) {
        do {
          e.tablespace = fmt::format("TS{}", Uniform(1, 9));
        } while (t.FindTablespace(e.tablespace) != nullptr);
        e.block_size = Pick<uint32_t>(rng_, {8192, 8192, 2048, 16384});
      } else {
        const db::Tablespace& ts = Pick(rng_, t.tablespaces);
        e.tablespace = ts.name;
        e.block_size = ts.block_size;
      }
      const uint64_t n = Uniform(1, 2);
      std::string specs;
      for (uint64_t i = 0; i < n; ++i) {
        const std::string dg = Pick(rng_, dgs);
        const uint64_t k = sizes_k();
        e.datafiles.emplace_back(dg, (k * 1024 + e.block_size - 1) / e.block_size * e.block_size);
        specs += fmt::format("{}'+{}' size {}k", i == 0 ? "" : ", ", dg, k);
      }
      e.sql =
          e.kind == DdlEffect::kCreateTs
              ? fmt::format("create tablespace {} datafile {}{}", e.tablespace, specs,
                            e.block_size == 8192 ? "" : fmt::format(" blocksize {}", e.block_size))
              : fmt::format("alter tablespace {} add datafile {}", e.tablespace, specs);
      break;
    }
    case DdlEffect::kDropLog:
      e.drop_group = Pick(rng_, t.log_groups).group;
      e.sql = fmt::format("alter database drop logfile group {}", e.drop_group);
      break;
    case DdlEffect::kDropTs:
      e.tablespace = Pick(rng_, t.tablespaces).name;
      e.sql = fmt::format("drop tablespace {} including contents and datafiles", e.tablespace);
      break;
  }
  const bool creating = e.kind <= DdlEffect::kAddDatafile;
  if (creating) {
    // The creation path: the cells' choice (fast on write-back cells, smart
    // when one is write-through), or forced zero-fill / smart by session
    // parameters (docs/sql.md).
    const uint64_t path = Uniform(0, 2);
    for (const std::string& set :
         {fmt::format("alter session set \"_cell_fast_file_create\" = {}",
                      path == 1 ? "FALSE" : "TRUE"),
          fmt::format("alter session set cellsim_fast_file_create_metadata = {}",
                      path == 2 ? "FALSE" : "TRUE")}) {
      absl::StatusOr<db::StatementResult> r = rig.session->Execute(set);
      if (!r.ok()) return r.status();
    }
  }
  f->kind = InFlight::kDdl;
  f->ddl = e;
  f->what = last_ = e.sql;
  absl::StatusOr<db::StatementResult> r = rig.session->Execute(e.sql);
  if (!r.ok()) return r.status();
  for (const db::FileCreation& c : r->files)
    ++tally->creations[std::string(db::CreationPathName(c.path))];
  const db::FileTable after = rig.db->file_table();
  if (absl::Status st = CheckEffect(model.table, after, e); !st.ok()) {
    live_failure_ = std::string(st.message());
  }
  model.table = after;
  const std::map<std::string, FileSlot> now = TableFiles(after);
  std::erase_if(model.files, [&](const auto& kv) { return now.count(kv.first) == 0; });
  std::set<std::string> added;
  for (const auto& [key, slot] : now) {
    if (model.files.count(key) == 0) added.insert(key);
  }
  for (auto& [key, img] : FormattedImages(after, &added)) model.files.emplace(key, std::move(img));
  return absl::OkStatus();
}

absl::Status Workload::Restart(Rig& rig, Model& model, InFlight* f, bool clean) {
  f->kind = InFlight::kOther;
  f->what = last_ = clean ? "restart: close and reopen the rack and the database"
                          : "restart: drop the rack and database objects unclosed, reopen";
  if (absl::Status st = rig.Drop(clean); !st.ok()) return st;
  if (absl::Status st = rig.Open(params_.db); !st.ok()) return st;
  // Nothing was in flight: the reopened database has nothing to recover and
  // the same file table.
  if (!rig.db->recovery_actions().empty()) {
    live_failure_ = fmt::format("{}: recovery actions with nothing in flight: {}", last_,
                                rig.db->recovery_actions()[0]);
  } else if (!(rig.db->file_table() == model.table)) {
    live_failure_ =
        fmt::format("{}: the file table changed\n  acknowledged: {}\n  reopened:     {}", last_,
                    TableSummary(model.table), TableSummary(rig.db->file_table()));
  }
  for (uint32_t c = 0; c < rig.rack->cell_count(); ++c) {
    if (rig.rack->concrete_cell(c)->flash_cache_mode() != model.modes[c]) {
      live_failure_ =
          fmt::format("{}: {} reopened in mode {}", last_, rig.rack->cell_name(c),
                      cell::FlashCacheModeName(rig.rack->concrete_cell(c)->flash_cache_mode()));
    }
  }
  return absl::OkStatus();
}

}  // namespace cellsim::reliability
