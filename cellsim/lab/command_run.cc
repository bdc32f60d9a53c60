#include "cellsim/lab/command_run.h"

#include <algorithm>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <sstream>

#include "absl/strings/ascii.h"
#include "cellsim/base/units.h"
#include "cellsim/io/io_backend.h"
#include "cellsim/lab/env.h"
#include "cellsim/report/asmcmd.h"
#include "cellsim/report/cellcli.h"
#include "fmt/format.h"
#include "fmt/ranges.h"

namespace cellsim::lab {
namespace {

constexpr uint64_t kCopyChunk = 8 * kMiB;

// Copies the logical bytes of ASM file `name` to the local file `dest`.
absl::Status CopyOut(const asmgr::Rack& rack, const std::string& name, const std::string& dest) {
  absl::StatusOr<asmgr::DiskGroup*> dg = rack.disk_group(name.substr(0, name.find('/')));
  if (!dg.ok()) return dg.status();
  absl::StatusOr<asmgr::FileInfo> info = (*dg)->LookupFile(name);
  if (!info.ok()) return info.status();
  const int fd = open(dest.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    return absl::PermissionDeniedError(
        fmt::format("cannot write {}: {}", dest, std::strerror(errno)));
  }
  io::AlignedBuffer buf(kCopyChunk);
  absl::Status status;
  for (uint64_t off = 0; off < info->size_bytes && status.ok(); off += kCopyChunk) {
    const uint64_t n = std::min(kCopyChunk, info->size_bytes - off);
    std::vector<asmgr::AsmReadRequest> r(1);
    r[0].file_offset = off;
    r[0].buffer = absl::MakeSpan(buf.data(), n);
    status = (*dg)->Read(info->number, absl::MakeSpan(r), nullptr);
    if (!status.ok()) {
      status = absl::Status(status.code(), fmt::format("reading {} at offset {}: {}", name, off,
                                                       std::string(status.message())));
      break;
    }
    for (uint64_t done = 0; done < n;) {
      const ssize_t w = write(fd, buf.data() + done, n - done);
      if (w < 0) {
        if (errno == EINTR) continue;
        status = absl::InternalError(fmt::format("writing {}: {}", dest, std::strerror(errno)));
        break;
      }
      done += static_cast<uint64_t>(w);
    }
  }
  if (close(fd) != 0 && status.ok()) {
    status = absl::InternalError(fmt::format("closing {}: {}", dest, std::strerror(errno)));
  }
  return status;
}

// The grid disks of one cell that ALTER GRIDDISK names: every one (of the
// prefix), or the named ones of this cell (another cell's names are that
// cell's; a name of no cell is CELL-02525).
absl::StatusOr<std::vector<std::string>> AlteredGridDisks(const CellCliCommand& c,
                                                          cell::CellService* cell,
                                                          const std::vector<std::string>& cell_names) {
  absl::StatusOr<cell::CellDescription> d = cell->Describe();
  if (!d.ok()) return d.status();
  auto lower = [](std::string s) { return absl::AsciiStrToLower(s); };
  std::vector<std::string> targets;
  for (const cell::GridDiskInfo& g : d->grid_disks) {
    if (c.grid_disks.empty() &&
        (c.prefix.empty() || lower(g.name).starts_with(lower(c.prefix) + "_"))) {
      targets.push_back(g.name);
    }
  }
  for (const std::string& want : c.grid_disks) {
    bool known = false;
    for (const cell::GridDiskInfo& g : d->grid_disks) {
      if (lower(g.name) != lower(want)) continue;
      targets.push_back(g.name);
      known = true;
    }
    // "RECO_CD_00_cel02" belongs to cel02: its suffix after the last '_'.
    const size_t cut = want.rfind('_');
    const std::string owner = cut == std::string::npos ? std::string() : lower(want.substr(cut + 1));
    for (const std::string& other : cell_names) {
      if (other != d->name && lower(other) == owner) known = true;
    }
    if (!known) {
      return absl::NotFoundError(fmt::format(
          "CELL-02525: Unknown griddisk: {} (LIST GRIDDISK shows the names, e.g. {})", want,
          d->grid_disks.empty() ? "RECO_CD_00_cel01" : d->grid_disks.back().name));
    }
  }
  return targets;
}

// ALTER GRIDDISK ... {cachingPolicy = ... | ACTIVE | INACTIVE} on one cell:
// "GridDisk NAME successfully altered" per grid disk. ACTIVE and INACTIVE go
// through the rack, whose ASM offlines or resyncs the disk.
absl::StatusOr<std::string> AlterGridDisks(const CellCliCommand& c, asmgr::Rack& rack,
                                           uint32_t index) {
  std::vector<std::string> cell_names;
  for (uint32_t i = 0; i < rack.cell_count(); ++i) cell_names.push_back(rack.cell_name(i));
  absl::StatusOr<std::vector<std::string>> targets =
      AlteredGridDisks(c, rack.cell(index), cell_names);
  if (!targets.ok()) return targets.status();
  std::string out;
  std::vector<std::string> done;
  for (const std::string& t : *targets) {
    absl::Status s = c.kind == CellCliCommand::Kind::kSetCachingPolicy
                         ? rack.cell(index)->SetCachingPolicy(t, c.caching_policy)
                         : rack.SetGridDiskActive(t, c.active, nullptr).status();
    if (!s.ok()) {
      // What was altered before the failure stays altered: say so.
      return absl::Status(s.code(), fmt::format("{}{}", std::string(s.message()),
                                                done.empty() ? ""
                                                             : fmt::format(" (altered before it: {})",
                                                                           fmt::join(done, ", "))));
    }
    done.push_back(t);
    out += fmt::format("GridDisk {} successfully altered\n", t);
  }
  return out;
}

// ASM's view of the grid disks of cell `cell` (GRIDDISK's asm* attributes).
std::vector<report::GridDiskAsm> GridDisksInAsm(const asmgr::Rack& rack, uint32_t cell) {
  std::vector<report::GridDiskAsm> out;
  for (asmgr::DiskGroup* dg : rack.disk_groups()) {
    const std::string group = dg->View().name;
    for (const asmgr::DiskView& d : dg->Disks()) {
      if (d.cell != cell) continue;
      out.push_back({.grid_disk = d.name,
                     .disk_group = group,
                     .disk_name = d.name,
                     .fail_group = d.failgroup,
                     .mode_status = d.mode_status,
                     .can_deactivate = d.can_offline});
    }
  }
  return out;
}

// LIST and DESCRIBE on one cell.
absl::StatusOr<std::string> ListOnCell(const CellCliCommand& c, const asmgr::Rack& rack,
                                       uint32_t index, const CommandRunOptions& options) {
  if (c.kind == CellCliCommand::Kind::kDescribe) return report::RenderCellCliDescribe(c.object);
  cell::CellService* cell = rack.cell(index);
  absl::StatusOr<cell::CellDescription> d = cell->Describe();
  if (!d.ok()) return d.status();
  report::CellCliInputs in{.cell = &*d,
                           .now_unix = static_cast<int64_t>(time(nullptr)),
                           .utc = options.utc};
  absl::StatusOr<std::vector<cell::Metric>> metrics;
  std::vector<report::GridDiskAsm> asm_disks;
  if (c.object == report::CellCliObjectType::kMetricCurrent) {
    metrics = cell->Metrics();
    if (!metrics.ok()) return metrics.status();
    in.metrics = &*metrics;
  } else if (c.object == report::CellCliObjectType::kGridDisk) {
    asm_disks = GridDisksInAsm(rack, index);
    in.asm_disks = &asm_disks;
  }
  return report::RenderCellCliList(c.object, report::CellCliObjects(c.object, in), c.list);
}

// Runs one command on one cell and returns what CellCLI prints.
absl::StatusOr<std::string> RunOnCell(const CellCliCommand& c, asmgr::Rack& rack,
                                      uint32_t index, const CommandRunOptions& options) {
  cell::CellService* cell = rack.cell(index);
  using Kind = CellCliCommand::Kind;
  switch (c.kind) {
    case Kind::kList:
    case Kind::kDescribe:
      return ListOnCell(c, rack, index, options);
    case Kind::kFlushFlashCache: {
      absl::StatusOr<cell::FlushProgress> done =
          cell->Flush([&options, index](const cell::FlushProgress& p) {
            if (options.flush_progress) options.flush_progress(index, p);
          });
      if (!done.ok()) return done.status();
      return fmt::format("Flash cache {}_FLASHCACHE altered successfully\n", cell->name());
    }
    case Kind::kSetFlashCacheMode: {
      absl::Status s = cell->SetFlashCacheMode(c.mode);
      if (!s.ok()) return s;
      return fmt::format("Cell {} successfully altered\n", cell->name());
    }
    case Kind::kSetCachingPolicy:
    case Kind::kSetGridDiskActive:
      return AlterGridDisks(c, rack, index);
    case Kind::kCreateGridDisk:
      break;  // a rack operation (RunCellCli)
  }
  return absl::InternalError("unhandled CellCLI command");
}

}  // namespace

absl::Status RunCellCli(const CellCliCommand& c, asmgr::Rack& rack,
                        const std::vector<uint32_t>& cells, const CommandRunOptions& options,
                        const std::function<void(uint32_t, const std::string&)>& emit) {
  if (c.kind == CellCliCommand::Kind::kCreateGridDisk) {
    // The name says which cell; ASM records the disk's content as lost
    // first (Rack::CreateGridDisk), then the cell creates the file.
    if (absl::Status s = rack.CreateGridDisk(c.grid_disk); !s.ok()) return s;
    emit(rack.cell_of_grid_disk(c.grid_disk).value_or(0),
         fmt::format("GridDisk {} successfully created\n", c.grid_disk));
    return absl::OkStatus();
  }
  // As dcli: every cell runs the command; each failure is reported, named by
  // its cell, after what the others printed (the first one's code).
  bool found = false;
  std::vector<std::string> failures;
  absl::StatusCode code = absl::StatusCode::kOk;
  for (uint32_t i : cells) {
    absl::StatusOr<std::string> out = RunOnCell(c, rack, i, options);
    if (!out.ok()) {
      if (failures.empty()) code = out.status().code();
      failures.push_back(
          fmt::format("{}: {}", rack.cell_name(i), std::string(out.status().message())));
      continue;
    }
    found |= !out->empty();
    emit(i, *out);
  }
  if (!failures.empty()) return absl::Status(code, fmt::format("{}", fmt::join(failures, "\n")));
  if (c.kind == CellCliCommand::Kind::kList && !c.name.empty() && !found) {
    return absl::NotFoundError(fmt::format(
        "CELL-02525: Unknown {}: {} (LIST {} shows the names)",
        absl::AsciiStrToLower(std::string(report::CellCliObjectTypeName(c.object))), c.name,
        report::CellCliObjectTypeName(c.object)));
  }
  return absl::OkStatus();
}

std::string PrefixLines(const std::string& text, const std::string& cell) {
  std::string out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) out += cell + ": " + line + "\n";
  return out;
}

// Runs one command; `cwd` is the current ASM directory.
absl::StatusOr<std::string> RunAsmcmdCommand(const AsmcmdCommand& c, const asmgr::Rack& rack,
                                             std::string* cwd, const CommandRunOptions& options) {
  if (c.suppress_header) {
    AsmcmdCommand plain = c;
    plain.suppress_header = false;
    absl::StatusOr<std::string> out = RunAsmcmdCommand(plain, rack, cwd, options);
    // The listings with a heading line: ls only in its -l / -s layouts.
    const bool heading = c.kind != AsmcmdCommand::Kind::kLs || c.long_format || c.sizes;
    if (!out.ok() || !heading) return out;
    const size_t nl = out->find('\n');
    return nl == std::string::npos ? std::string() : out->substr(nl + 1);
  }
  const bool utc = options.utc;
  using Kind = AsmcmdCommand::Kind;
  const report::AsmSnapshot snap = SnapshotAsm(rack);
  switch (c.kind) {
    case Kind::kLsdg:
      return report::RenderLsdg(snap, c.args.empty() ? "" : c.args[0]);
    case Kind::kLsdsk:
      return report::RenderLsdsk(snap, c.lsdsk);
    case Kind::kLstmpl:
      return report::RenderLstmpl(snap, c.lstmpl);
    case Kind::kLs: {
      const std::string path = report::ResolveAsmPath(*cwd, c.args.empty() ? "" : c.args[0]);
      return report::RenderLs(snap, path,
                              {.long_format = c.long_format,
                               .sizes = c.sizes,
                               .now_unix = static_cast<int64_t>(time(nullptr)),
                               .utc = utc});
    }
    case Kind::kDu:
      return report::RenderDu(snap, report::ResolveAsmPath(*cwd, c.args.empty() ? "" : c.args[0]));
    case Kind::kFind:
      return report::RenderFind(snap, report::ResolveAsmPath(*cwd, c.args[0]), c.args[1], c.type);
    case Kind::kCd: {
      const std::string path = report::ResolveAsmPath(*cwd, c.args[0]);
      absl::StatusOr<std::string> listing = report::RenderLs(snap, path);
      if (!listing.ok()) return listing.status();
      absl::StatusOr<std::vector<std::string>> files = report::ResolveAsmFiles(snap, path);
      if (files.ok() && files->size() == 1 &&
          absl::AsciiStrToUpper((*files)[0]) == absl::AsciiStrToUpper(path)) {
        return absl::InvalidArgumentError(
            fmt::format("ASMCMD-8006: entry '{}' is a file, not a directory", path));
      }
      *cwd = path;
      return std::string();
    }
    case Kind::kOnline:
    case Kind::kOffline: {
      absl::StatusOr<asmgr::DiskGroup*> dg = rack.disk_group(c.group);
      if (!dg.ok()) return dg.status();
      asmgr::ResyncResult resync;
      absl::Status st;
      if (c.all) {
        st = (*dg)->OnlineAll(&resync);
      } else {
        absl::StatusOr<uint32_t> d = (*dg)->FindDisk(c.disk);
        if (!d.ok()) return d.status();
        st = c.kind == Kind::kOnline ? (*dg)->OnlineDisk(*d, &resync) : (*dg)->OfflineDisk(*d);
      }
      if (!st.ok()) return st;
      if (c.kind == Kind::kOffline) return std::string();
      return fmt::format("resync: {} extent copies ({} MiB) rewritten\n", resync.extents_copied,
                         resync.bytes_copied >> 20);
    }
    case Kind::kPwd:
      return *cwd + "\n";
    case Kind::kCp: {
      if (!c.args[1].empty() && c.args[1][0] == '+') {
        return absl::InvalidArgumentError(
            "ASMCMD-8016: cellsim's cp copies out of ASM only: cp +DG/PATH LOCALFILE");
      }
      const std::string src = report::ResolveAsmPath(*cwd, c.args[0]);
      absl::StatusOr<std::vector<std::string>> files = report::ResolveAsmFiles(snap, src);
      if (!files.ok()) return files.status();
      std::error_code ec;
      const bool to_dir = std::filesystem::is_directory(c.args[1], ec);
      if (files->size() > 1 && !to_dir) {
        return absl::InvalidArgumentError(fmt::format(
            "ASMCMD-8014: {} names {} files; the target {} must be a directory", c.args[0],
            files->size(), c.args[1]));
      }
      std::string out;
      for (const std::string& name : *files) {
        const std::string base = name.substr(name.rfind('/') + 1);
        const std::string dest = to_dir ? c.args[1] + "/" + base : c.args[1];
        out += fmt::format("copying {} -> {}\n", name, dest);
        absl::Status s = CopyOut(rack, name, dest);
        if (!s.ok()) return s;
      }
      return out;
    }
  }
  return absl::InternalError("unhandled asmcmd command");
}

}  // namespace cellsim::lab
