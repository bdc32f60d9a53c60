#include "bench/creation_env.h"

#include <sys/statfs.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string_view>
#include <utility>

#include "cellsim/base/clock.h"
#include "cellsim/cell/cell.h"

namespace cellsim::bench {

Options g_opt;
std::string g_root;

std::string Msg(const absl::Status& s) { return std::string(s.message()); }

std::string SkipText(const absl::Status& s) {
  const std::string m = Msg(s);
  const bool refused = s.code() == absl::StatusCode::kUnavailable ||
                       s.code() == absl::StatusCode::kUnimplemented ||
                       (s.code() == absl::StatusCode::kInvalidArgument &&
                        m.find("refuses O_DIRECT") != std::string::npos);
  return fmt::format("{}: {}", refused ? "skipped" : "error", m);
}

// ----------------------------------------------------------- environment

std::string FsName(const std::string& dir) {
  struct statfs sf{};
  if (statfs(dir.c_str(), &sf) != 0) return "unknown";
  switch (static_cast<uint64_t>(sf.f_type)) {
    case 0xEF53: return "ext4";
    case 0x58465342: return "xfs";
    case 0x01021994: return "tmpfs";
    case 0x9123683E: return "btrfs";
    case 0x794C7630: return "overlayfs";
    case 0x2FC12FC1: return "zfs";
    default: return fmt::format("0x{:x}", static_cast<uint64_t>(sf.f_type));
  }
}

absl::StatusOr<std::unique_ptr<CountingBackend>> MakeIo() {
  absl::StatusOr<std::unique_ptr<io::IoBackend>> io =
      io::MakeBackend(g_opt.backend, {.queue_depth = g_opt.queue_depth});
  if (!io.ok()) {
    return absl::UnavailableError(fmt::format("{} backend refused: {}",
                                              io::BackendKindName(g_opt.backend),
                                              Msg(io.status())));
  }
  return std::make_unique<CountingBackend>(*std::move(io));
}

// A fresh folder under the run's root for one iteration.
absl::StatusOr<std::string> NewDir(std::string_view what) {
  std::string tmpl = fmt::format("{}/{}.XXXXXX", g_root, what);
  if (mkdtemp(tmpl.data()) == nullptr) {
    return absl::InternalError(fmt::format("mkdtemp {}: {}", tmpl, std::strerror(errno)));
  }
  return tmpl;
}

void RemoveDir(const std::string& dir) {
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}


namespace {

// Grid disks sized so the members (every copy) and the control files fit with
// room to spare for ASM's placement (partners, even spread).
uint64_t GridDiskSize(const Case& c, uint32_t members_here, bool holds_control_file) {
  const uint32_t copies = asmgr::Copies(c.redundancy);
  uint64_t raw = uint64_t{members_here} * io::AlignUp(c.member_bytes(), c.au) * copies;
  if (holds_control_file) raw += 2 * io::AlignUp(1 * kMiB, c.au) * copies;
  const uint64_t disks = uint64_t{g_opt.cells} * g_opt.cell_disks;
  const uint64_t per_disk = raw / disks + raw / disks / 2 + 4 * c.au;
  return std::max<uint64_t>(io::AlignUp(per_disk, c.au), 64 * kMiB);
}

}  // namespace

asmgr::RackConfig RackFor(const Case& c) {
  asmgr::RackConfig r;
  r.cells = g_opt.cells;
  r.cell_disks_per_cell = g_opt.cell_disks;
  const uint32_t data_members = (c.members + 1) / 2, reco_members = c.members / 2;
  r.disk_groups = {
      {.name = "DATA", .redundancy = c.redundancy, .au_size = c.au,
       .grid_disk_size = GridDiskSize(c, data_members, true)},
      {.name = "RECO", .redundancy = c.redundancy, .au_size = c.au,
       .grid_disk_size = GridDiskSize(c, reco_members, false)},
  };
  r.flash_size = 1 * kGiB;
  r.flash_cache_mode = cell::FlashCacheMode::kWriteBack;
  r.direct_io = c.direct;
  return r;
}


Env::~Env() {
  session.reset();
  if (db) (void)db->Close();
  db.reset();
  if (rack) (void)rack->Close();
  rack.reset();
  io.reset();
  if (!dir.empty()) RemoveDir(dir);
}

absl::Status Setup(const Case& c, Env* env) {
  absl::StatusOr<std::unique_ptr<CountingBackend>> io = MakeIo();
  if (!io.ok()) return io.status();
  env->io = *std::move(io);
  absl::StatusOr<std::string> dir = NewDir("rack");
  if (!dir.ok()) return dir.status();
  env->dir = *dir;
  absl::StatusOr<std::unique_ptr<asmgr::Rack>> rack =
      asmgr::Rack::Create(env->io.get(), SystemClock(), env->dir + "/r", RackFor(c));
  if (!rack.ok()) {
    return absl::Status(rack.status().code(),
                        fmt::format("rack ({}, {}) on {}: {}", c.direct ? "O_DIRECT" : "buffered",
                                    env->io->Name(), FsName(g_root), Msg(rack.status())));
  }
  env->rack = *std::move(rack);
  // Where each flash device's cache slots begin: the slots fill the end of
  // flash.img (docs/cell.md), n slots of one line each, the remainder (< one
  // line) unused; so the slot area starts after flash - capacity - line.
  for (uint32_t i = 0; i < env->rack->cell_count(); ++i) {
    const cell::Cell* cl = env->rack->concrete_cell(i);
    const uint64_t flash = cl->config().flash_size_bytes;
    const uint64_t line = cl->config().cache_line_size;
    const uint64_t cap = cl->CacheCapacityBytes();
    const uint64_t start = io::AlignUp(flash - cap - line + 1, io::kDirectAlignment);
    env->io->SetFlashDataStart(
        fmt::format("{}/r/{}/flash.img", env->dir, env->rack->cell_name(i)), start);
  }
  absl::StatusOr<std::unique_ptr<db::Database>> db = db::Database::Create(env->rack.get());
  if (!db.ok()) return db.status();
  env->db = *std::move(db);
  env->session = env->db->NewSession();
  // zero-fill: offload off; smart: offload on, metadata-only path off; fast: defaults.
  const char* param = nullptr;
  if (c.path == Path::kZeroFill) param = "alter session set \"_cell_fast_file_create\" = false";
  if (c.path == Path::kSmart) param = "alter session set cellsim_fast_file_create_metadata = false";
  if (param != nullptr) {
    absl::StatusOr<db::StatementResult> r = env->session->Execute(param);
    if (!r.ok()) return r.status();
  }
  return absl::OkStatus();
}


stats::Wait MainWait(Path p) {
  return p == Path::kZeroFill ? stats::Wait::kLogFileInitWrite
                              : stats::Wait::kCellSmartFileCreation;
}

namespace {

// `perf record --delay=-1 --control fd:CTL,ACK` starts with its events off;
// with CELLSIM_PERF_CTL=CTL,ACK (the same descriptors, inherited) the
// statement turns them on and off around itself, so a profile holds the
// timed statement only, not the rack set-up around it (docs/benchmarks.md).
class PerfWindow {
 public:
  PerfWindow() {
    static const std::pair<int, int> fds = [] {
      const char* v = std::getenv("CELLSIM_PERF_CTL");
      int ctl = -1, ack = -1;
      if (v == nullptr || std::sscanf(v, "%d,%d", &ctl, &ack) != 2) return std::pair{-1, -1};
      return std::pair{ctl, ack};
    }();
    fds_ = fds;
    Send("enable\n");
  }
  ~PerfWindow() { Send("disable\n"); }
  PerfWindow(const PerfWindow&) = delete;
  PerfWindow& operator=(const PerfWindow&) = delete;

 private:
  void Send(std::string_view cmd) const {
    if (fds_.first < 0) return;
    if (::write(fds_.first, cmd.data(), cmd.size()) < 0) return;
    char ack[8];
    (void)::read(fds_.second, ack, sizeof(ack));  // perf's "ack\n"
  }
  std::pair<int, int> fds_;
};

}  // namespace

absl::Status RunOnce(const Case& c, Env* env, Totals* t, uint64_t* elapsed_ns,
                     db::StatementResult* out) {
  if (absl::Status s = Setup(c, env); !s.ok()) return s;
  const IoTally before = env->io->Tally();
  std::chrono::steady_clock::time_point t0, t1;
  absl::StatusOr<db::StatementResult> r;
  {
    PerfWindow profiled;
    t0 = std::chrono::steady_clock::now();
    r = env->session->Execute(c.Sql());
    t1 = std::chrono::steady_clock::now();
  }
  if (!r.ok()) return r.status();
  if (r->path != PathName(c.path)) {
    return absl::InternalError(fmt::format("expected the {} path, the statement took '{}' ({})",
                                           PathName(c.path), r->path, r->path_reason));
  }
  // A statement can succeed with a mirror copy missing (ASM takes the disk
  // offline and goes on); a figure measured that way is not the case asked
  // for, so it is an error, never a result.
  for (asmgr::DiskGroup* dg : env->rack->disk_groups()) {
    for (const asmgr::DiskView& d : dg->Disks()) {
      if (d.mode_status != "ONLINE") {
        return absl::InternalError(fmt::format(
            "the statement succeeded but disk {} of +{} went {}: {}", d.name, dg->name(),
            d.mode_status, d.last_error));
      }
    }
  }
  const uint64_t want = c.logical * asmgr::Copies(c.redundancy);
  const auto saved = static_cast<uint64_t>(
      r->statistics[stats::Stat::kCellPhysicalIoBytesSavedDuringOptimizedFileCreation]);
  if (c.path != Path::kZeroFill && saved != want) {
    return absl::InternalError(fmt::format(
        "the cells formatted {} of the {} bytes asked ({} members x {} copies)", saved, want,
        c.members, asmgr::Copies(c.redundancy)));
  }
  *elapsed_ns = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count());
  t->Add(*r, *elapsed_ns, env->io->Tally() - before);
  t->logical += c.logical;
  for (uint32_t i = 0; i < env->rack->cell_count(); ++i) {
    t->template_ranges += env->rack->concrete_cell(i)->TemplateRangeCount();
  }
  for (const db::FileCreation& f : r->files) {
    for (asmgr::DiskGroup* dg : env->rack->disk_groups()) {
      absl::StatusOr<asmgr::FileInfo> info = dg->LookupFile(f.name);
      if (info.ok()) t->extents += info->extents;
    }
  }
  *out = *std::move(r);
  return absl::OkStatus();
}

}  // namespace cellsim::bench
