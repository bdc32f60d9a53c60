// `cellsim io zero FILE --size SIZE [--block-size 1m] [--queue-depth 32]
//  [--buffered] [--backend io_uring|posix] [--fsync] [--json]`: the raw
// zero-fill engine on one plain file, for comparing with fio
// (scripts/fio_compare.sh). O_DIRECT unless --buffered; never downgraded.
#include <iostream>

#include "cellsim/base/units.h"
#include "cellsim/cli/commands.h"
#include "cellsim/io/io_backend.h"
#include "cellsim/io/zero_fill.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"

namespace cellsim::cli {
namespace {

struct ZeroArgs {
  std::string file;
  std::string size;
  std::string block_size = "1m";
  unsigned queue_depth = 32;
  bool buffered = false;
  std::string backend = "io_uring";
  bool fsync = false;
  bool json = false;
};

void RunZero(const ZeroArgs& a, CommandContext& ctx) {
  const std::string cmd = "io zero";
  auto size = ParseSize(a.size);
  if (!size.ok()) return Fail(ctx, cmd, "--size: " + std::string(size.status().message()), kExitUsage);
  auto block = ParseSize(a.block_size);
  if (!block.ok()) {
    return Fail(ctx, cmd, "--block-size: " + std::string(block.status().message()), kExitUsage);
  }
  if (*size == 0) return Fail(ctx, cmd, "--size must be > 0", kExitUsage);
  if (*block == 0 || *block > (uint64_t{1} << 30)) {
    return Fail(ctx, cmd, fmt::format("--block-size {} must be between 1 byte and 1 GiB", a.block_size),
                kExitUsage);
  }
  const bool direct = !a.buffered;
  if (direct && (!io::IsAligned(*size, io::kDirectAlignment) ||
                 !io::IsAligned(*block, io::kDirectAlignment))) {
    return Fail(ctx, cmd,
                fmt::format("O_DIRECT needs --size ({}) and --block-size ({}) to be multiples of "
                            "{} bytes; adjust them or add --buffered",
                            *size, *block, io::kDirectAlignment),
                kExitUsage);
  }
  auto kind = io::ParseBackendKind(a.backend);
  if (!kind.ok()) return Fail(ctx, cmd, kind.status());
  auto backend = io::MakeBackend(*kind, {.queue_depth = a.queue_depth});
  if (!backend.ok()) return Fail(ctx, cmd, backend.status());
  io::IoBackend* io = backend->get();
  auto file = io->Open(a.file, {.create = true, .direct = direct});
  if (!file.ok()) {
    if (direct && file.status().code() == absl::StatusCode::kInvalidArgument) {
      return Fail(ctx, cmd,
                  fmt::format("O_DIRECT is not available for {}: {}. Rerun with --buffered to "
                              "write through the page cache instead",
                              a.file, std::string(file.status().message())));
    }
    return Fail(ctx, cmd, file.status());
  }
  auto result = io::ZeroFill(io, *file, 0, *size,
                             {.block_size = static_cast<uint32_t>(*block),
                              .sync_at_end = a.fsync,
                              .clock = nullptr});
  if (FailFirst(ctx, cmd, result.status(), io->Close(*file))) return;
  const io::ZeroFillResult& r = *result;
  const char* mode = direct ? "O_DIRECT" : "buffered";
  // With --backend posix requests run one at a time: queue depth 1 in effect.
  const unsigned depth = *kind == io::BackendKind::kPosix ? 1 : a.queue_depth;
  if (a.json) {
    nlohmann::json j = {
        {"file", a.file},
        {"bytes", r.bytes},
        {"requests", r.requests},
        {"elapsed_s", r.elapsed_s},
        {"mib_per_s", r.MiBPerSecond()},
        {"p50_us", r.p50_ns / 1e3},
        {"p99_us", r.p99_ns / 1e3},
        {"p999_us", r.p999_ns / 1e3},
        {"max_us", r.max_ns / 1e3},
        {"mean_us", r.mean_ns / 1e3},
        {"block_size", *block},
        {"queue_depth", depth},
        {"mode", mode},
        {"backend", std::string(io::BackendKindName(*kind))},
        {"fsync", a.fsync},
        {"prepared", r.prepared},
        {"prepare_s", r.prepare_s},
    };
    std::cout << j.dump() << "\n";
    return;
  }
  std::cout << fmt::format("zero-filled {} ({} bytes) of {}\n", FormatBytes(r.bytes), r.bytes,
                           a.file);
  std::cout << fmt::format("  backend {}, {}, block size {}, queue depth {}{}\n",
                           io::BackendKindName(*kind), mode, FormatBytes(*block), depth,
                           a.fsync ? ", fdatasync at end" : "");
  if (r.prepared != "none") {
    std::cout << fmt::format("  file extended first with {} in {:.3f} s (not counted below)\n",
                             r.prepared, r.prepare_s);
  }
  std::cout << fmt::format("  {} requests in {:.3f} s: {:.1f} MiB/s\n", r.requests, r.elapsed_s,
                           r.MiBPerSecond());
  std::cout << fmt::format("  latency per request: p50 {:.1f} us, p99 {:.1f} us, p99.9 {:.1f} us, "
                           "max {:.1f} us\n",
                           r.p50_ns / 1e3, r.p99_ns / 1e3, r.p999_ns / 1e3, r.max_ns / 1e3);
}

}  // namespace

void RegisterIo(CLI::App& app, CommandContext& ctx) {
  CLI::App* io_cmd = app.add_subcommand("io", "Raw I/O engine commands");
  io_cmd->require_subcommand(1);
  auto [zero, args] = AddCommand<ZeroArgs>(
      *io_cmd, ctx, "zero",
      "Zero-fill a plain file with the io_uring engine and report throughput and "
      "per-request latency percentiles",
      RunZero);
  zero->add_option("FILE", args->file, "File to create or overwrite")->required();
  zero->add_option("--size", args->size, "Bytes to write (e.g. 2g, 512m)")->required();
  zero->add_option("--block-size", args->block_size, "Bytes per request (default 1m)");
  zero->add_option("--queue-depth", args->queue_depth, "Requests in flight (default 32)")
      ->check(CLI::Range(1u, 32768u));
  zero->add_flag("--buffered", args->buffered,
                 "Write through the page cache instead of O_DIRECT");
  zero->add_option("--backend", args->backend, "io_uring (default) or posix")
      ->check(CLI::IsMember({"io_uring", "posix"}));
  zero->add_flag("--fsync", args->fsync, "fdatasync at the end (included in the time)");
  zero->add_flag("--json", args->json, "Print one JSON object");
}

}  // namespace cellsim::cli
