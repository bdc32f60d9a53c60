// `cellsim probe [--dir DIR] [--json]`: what this machine supports for the
// I/O layer and which mode cellsim will use there.
#include <iostream>

#include "cellsim/cli/commands.h"
#include "cellsim/io/probe.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"

namespace cellsim::cli {
namespace {

struct ProbeArgs {
  std::string dir = ".";
  bool json = false;
};

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
  std::cout << fmt::format("cellsim will use: {} backend, {} I/O\n", p.backend, p.io_mode);
  if (!p.direct_io) {
    std::cout << "  O_DIRECT is unavailable here: commands that need it fail unless given "
                 "--buffered\n";
  }
}

}  // namespace

void RegisterProbe(CLI::App& app, CommandContext& ctx) {
  auto args = std::make_shared<ProbeArgs>();
  CLI::App* cmd = app.add_subcommand(
      "probe", "Show io_uring support, O_DIRECT and fallocate modes in a directory, and the "
               "I/O mode cellsim will use");
  cmd->add_option("--dir", args->dir, "Directory to probe (default: current directory)");
  cmd->add_flag("--json", args->json, "Print one JSON object");
  cmd->callback([args, &ctx] {
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
        {"mode", p.direct_io ? "O_DIRECT" : "buffered"},
    };
    std::cout << j.dump(2) << "\n";
  });
}

}  // namespace cellsim::cli
