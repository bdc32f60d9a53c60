// `cellsim probe [--dir DIR] [--json]`: what this machine supports for the
// I/O layer and which mode cellsim will use there.
#include <chrono>
#include <fstream>
#include <iostream>

#include "cellsim/cli/commands.h"
#include "cellsim/io/probe.h"
#include "cellsim/sim/profile.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"

namespace cellsim::cli {
namespace {

struct ProbeArgs {
  std::string dir = ".";
  bool json = false;
  std::string profile;        // --profile FILE: measure this machine, write a profile
  bool list_profiles = false;  // --list-profiles
};

double SecondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Measures the disk under `dir` the way the device model charges it: 1 MiB
// sequential writes (synced) for bandwidth, 8 KiB synced writes for IOPS (each
// fast-creation request is one synced metadata write on this machine), 8 KiB
// reads. Every figure's source says it was measured, where and when.
absl::StatusOr<sim::DeviceProfile> MeasureProfile(const std::string& dir) {
  std::unique_ptr<io::IoBackend> io = io::MakePosixBackend();
  const std::string path = dir + "/.cellsim-probe-profile.img";
  absl::StatusOr<io::FileHandle> f = io->Open(path, {.create = true, .truncate = true});
  if (!f.ok()) return f.status();
  struct Remove {
    io::IoBackend* io; io::FileHandle f; std::string path;
    ~Remove() { (void)io->Close(f); std::remove(path.c_str()); }
  } remove{io.get(), *f, path};
  io::AlignedBuffer mib(1 << 20);
  std::fill(mib.data(), mib.data() + mib.size(), 0x5a);
  const uint64_t total = 256ull << 20;
  auto t0 = std::chrono::steady_clock::now();
  for (uint64_t off = 0; off < total; off += mib.size()) {
    if (absl::Status s = io->WriteAt(*f, off, mib.data(), mib.size()); !s.ok()) return s;
  }
  if (absl::Status s = io->Sync(*f, io::SyncKind::kData); !s.ok()) return s;
  const double write_mb_s = static_cast<double>(total) / 1e6 / SecondsSince(t0);
  uint64_t n = 0;
  t0 = std::chrono::steady_clock::now();
  while (SecondsSince(t0) < 1.0) {
    const uint64_t off = (n * 7919 % (total / 8192)) * 8192;
    if (absl::Status s = io->WriteAt(*f, off, mib.data(), 8192); !s.ok()) return s;
    if (absl::Status s = io->Sync(*f, io::SyncKind::kData); !s.ok()) return s;
    ++n;
  }
  const double synced_iops = static_cast<double>(n) / SecondsSince(t0);
  n = 0;
  t0 = std::chrono::steady_clock::now();
  while (SecondsSince(t0) < 0.5) {
    const uint64_t off = (n * 104729 % (total / 8192)) * 8192;
    if (absl::Status s = io->ReadAt(*f, off, mib.data(), 8192); !s.ok()) return s;
    ++n;
  }
  const double read_iops = static_cast<double>(n) / SecondsSince(t0);
  absl::StatusOr<sim::DeviceProfile> base = sim::LoadProfile("x3-2");
  if (!base.ok()) return base.status();
  sim::DeviceProfile p = *base;
  const std::string m = fmt::format(
      "[M] measured by `cellsim probe --profile` in {} (posix I/O, page cache as configured)", dir);
  const std::string one = "[M] this machine: one disk, seen as one cell disk and one flash card";
  p.name = "this-machine";
  p.description = "This machine's disk under " + dir + ", as one cell disk and one flash card";
  p.disks_per_cell = {1, one};
  p.flash_cards_per_cell = {1, one};
  p.disk_write_mb_s = {write_mb_s, m + ": 256 MiB of 1 MiB writes + fdatasync"};
  p.disk_read_mb_s = {write_mb_s, m + ": taken equal to the write bandwidth"};
  p.disk_iops = {synced_iops, m + ": 8 KiB writes, each followed by fdatasync"};
  p.flash_write_iops = p.disk_iops;
  p.flash_read_iops = {read_iops, m + ": 8 KiB reads"};
  p.flash_mb_s = p.disk_write_mb_s;
  p.fdfc_requests_per_s = {synced_iops, m + ": one synced metadata write per request"};
  p.network_gbit_s = {100, "[I] no network here: database and cells share the machine"};
  p.rpc_us = {5, "[I] a local call, no network round trip"};
  return p;
}

nlohmann::json FeaturesJson(const std::vector<io::ProbeFeature>& features) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& f : features) {
    out[f.name] = f.supported ? nlohmann::json(true) : nlohmann::json(f.detail);
  }
  return out;
}

void PrintText(const io::ProbeReport& p) {
  auto yes = [](bool b) { return b ? "yes" : "no"; };
  std::cout << fmt::format("kernel {}: io_uring {}\n", p.kernel,
                           p.io_uring ? "available" : "UNAVAILABLE (" + p.io_uring_error + ")");
  for (const auto& op : p.opcodes) {
    std::cout << fmt::format("  {:<24} {}{}\n", op.name, yes(op.supported),
                             op.supported ? "" : " (" + op.detail + ")");
  }
  if (p.io_uring) {
    std::cout << fmt::format("  {:<24} {}\n", "registered buffers", yes(p.registered_buffers));
  }
  std::cout << fmt::format("directory {} ({})\n", p.directory, p.filesystem);
  std::cout << fmt::format("  {:<24} {}{}\n", "O_DIRECT", yes(p.direct_io),
                           p.direct_io ? "" : " (" + p.direct_error + ")");
  for (const auto& f : p.fallocate) {
    std::cout << fmt::format("  fallocate {:<14} {}{}\n", f.name, yes(f.supported),
                             f.supported ? "" : " (" + f.detail + ")");
  }
  // The same choice `rack create`, `demo` and cellsim::Lab make by default here.
  std::cout << fmt::format("cellsim will use: {} backend, {} I/O for grid disks and flash ({})\n",
                           p.backend, p.io_mode, p.io_mode_reason);
}

}  // namespace

void RegisterProbe(CLI::App& app, CommandContext& ctx) {
  auto args = std::make_shared<ProbeArgs>();
  CLI::App* cmd = app.add_subcommand(
      "probe", "Show io_uring support, O_DIRECT and fallocate modes in a directory, and the "
               "I/O mode cellsim will use");
  cmd->add_option("--dir", args->dir, "Directory to probe (default: current directory)");
  cmd->add_flag("--json", args->json, "Print one JSON object");
  cmd->add_option("--profile", args->profile,
                  "Measure this machine's disk in --dir (about 3 s, 256 MiB written then "
                  "removed) and write it as a device profile to FILE, for --profile FILE");
  cmd->add_flag("--list-profiles", args->list_profiles,
                "Print every built-in device profile with the source of each figure (Markdown)");
  cmd->callback([args, &ctx] {
    if (args->list_profiles) {
      std::cout << sim::ProfilesMarkdown();
      return;
    }
    if (!args->profile.empty()) {
      absl::StatusOr<sim::DeviceProfile> p = MeasureProfile(args->dir);
      if (!p.ok()) return Fail(ctx, "probe --profile", p.status());
      std::ofstream out(args->profile, std::ios::trunc);
      out << sim::ProfileToJson(*p) << "\n";
      out.flush();
      if (!out) {
        return Fail(ctx, "probe --profile", fmt::format("cannot write {}", args->profile));
      }
      std::cout << fmt::format(
          "wrote {}: disk {:.0f} MB/s write, {:.0f} synced 8 KiB writes/s, {:.0f} 8 KiB reads/s\n"
          "use it as: cellsim demo --profile {} --rack quarter\n",
          args->profile, p->disk_write_mb_s.value, p->disk_iops.value, p->flash_read_iops.value,
          args->profile);
      return;
    }
    auto report = io::ProbeIo(args->dir);
    if (!report.ok()) return Fail(ctx, "probe", report.status());
    const io::ProbeReport& p = *report;
    if (!args->json) return PrintText(p);
    nlohmann::json fallocate = FeaturesJson(p.fallocate);
    nlohmann::json j = {
        {"kernel", p.kernel},
        {"io_uring", p.io_uring},
        {"io_uring_error", p.io_uring_error},
        {"opcodes", FeaturesJson(p.opcodes)},
        {"registered_buffers", p.registered_buffers},
        {"directory", p.directory},
        {"filesystem", p.filesystem},
        {"o_direct", p.direct_io},
        {"o_direct_error", p.direct_error},
        {"fallocate", fallocate},
        {"backend", p.backend},
        {"mode", p.io_mode},
        {"mode_reason", p.io_mode_reason},
    };
    std::cout << j.dump(2) << "\n";
  });
}

}  // namespace cellsim::cli
