// `cellsim asmcmd DIR -e "COMMAND" [-e ...]`: asmcmd against the disk groups
// of a rack: lsdg, lsdsk [-k] [-p] [-G DG], ls [-l] [PATH], cd, pwd, and
// `cp +DG/PATH LOCALFILE`, which copies a file's logical bytes out of ASM
// through DiskGroup::Read (the primary copy, failing over to mirrors) as
// Oracle's asmcmd cp does. Commands of one invocation share the current
// directory (it starts at '+'), so `-e "cd +DATA/ORCL" -e "ls -l ONLINELOG"` works.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "absl/strings/ascii.h"
#include "cellsim/base/units.h"
#include "cellsim/cli/command_parsers.h"
#include "cellsim/cli/commands.h"
#include "cellsim/cli/rack_env.h"
#include "cellsim/io/io_backend.h"
#include "cellsim/report/asmcmd.h"
#include "fmt/format.h"

namespace cellsim::cli {
namespace {

struct AsmcmdArgs {
  std::string dir;
  std::vector<std::string> commands;
  bool utc = false;
  RackOptions rack;
};

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

// Runs one command; `cwd` is the current ASM directory.
absl::StatusOr<std::string> RunCommand(const AsmcmdCommand& c, const asmgr::Rack& rack,
                                       std::string* cwd, bool utc) {
  using Kind = AsmcmdCommand::Kind;
  const report::AsmSnapshot snap = SnapshotAsm(rack);
  switch (c.kind) {
    case Kind::kLsdg:
      return report::RenderLsdg(snap, c.args.empty() ? "" : c.args[0]);
    case Kind::kLsdsk:
      return report::RenderLsdsk(snap, c.lsdsk);
    case Kind::kLs: {
      const std::string path = report::ResolveAsmPath(*cwd, c.args.empty() ? "" : c.args[0]);
      return report::RenderLs(snap, path,
                              {.long_format = c.long_format,
                               .now_unix = static_cast<int64_t>(time(nullptr)),
                               .utc = utc});
    }
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
  }
  return absl::InternalError("unhandled asmcmd command");
}

void RunAsmcmd(const AsmcmdArgs& a, CommandContext& ctx) {
  const std::string cmd = "asmcmd";
  if (a.commands.empty()) return Fail(ctx, cmd, "nothing to run: give -e COMMAND", kExitUsage);
  std::vector<AsmcmdCommand> parsed;
  for (const std::string& text : a.commands) {
    absl::StatusOr<AsmcmdCommand> c = ParseAsmcmdCommand(text);
    if (!c.ok()) return Fail(ctx, cmd, c.status());
    parsed.push_back(*c);
  }
  // Every asmcmd command here only reads (cp copies out of ASM), but online
  // and offline, which change disk states and resync.
  bool writes = false;
  for (const AsmcmdCommand& c : parsed) {
    writes |= c.kind == AsmcmdCommand::Kind::kOnline || c.kind == AsmcmdCommand::Kind::kOffline;
  }
  absl::StatusOr<RackEnv> env = OpenRackEnv(
      a.dir, a.rack, writes ? asmgr::RackAccess::kReadWrite : asmgr::RackAccess::kReadOnly);
  if (!env.ok()) return Fail(ctx, cmd, env.status());
  std::string cwd = "+";
  absl::Status failure;
  for (const AsmcmdCommand& c : parsed) {
    absl::StatusOr<std::string> out = RunCommand(c, *env->rack, &cwd, a.utc);
    if (!out.ok()) {
      failure = out.status();
      break;
    }
    std::cout << *out;
    std::cout.flush();
  }
  absl::Status closed = env->Close();
  if (!failure.ok()) return Fail(ctx, cmd, failure);
  if (!closed.ok()) return Fail(ctx, cmd, closed);
}

}  // namespace

void RegisterAsmcmd(CLI::App& app, CommandContext& ctx) {
  auto args = std::make_shared<AsmcmdArgs>();
  CLI::App* c = app.add_subcommand(
      "asmcmd",
      "asmcmd on the disk groups of rack DIR: lsdg [DG], lsdsk [-k] [-p] [-G DG] [PATTERN], "
      "ls [-l] [PATH], cd PATH, pwd, cp +DG/PATH LOCALFILE (copies the file's logical bytes "
      "out of ASM), online -G DG (-D DISK | -a) (resyncs, then onlines), offline -G DG -D DISK");
  c->add_option("DIR", args->dir, "Rack directory")->required();
  c->add_option("-e,--execute", args->commands,
                "An asmcmd command (repeatable, in order; they share the current directory)");
  c->add_flag("--utc", args->utc, "Print times in UTC");
  AddRackOptions(c, &args->rack);
  c->callback([args, &ctx] { RunAsmcmd(*args, ctx); });
}

}  // namespace cellsim::cli
