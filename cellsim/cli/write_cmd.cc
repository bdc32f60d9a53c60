// `cellsim write DIR --file +DG/PATH [--seed S] [--count N] [--block-size 8k]
// [--max-blocks 8] [--batch 1]`: a deterministic write workload on one ASM
// file, through DiskGroup::Write (every mirror copy; writes below the cells'
// 1 MiB bypass threshold go through the write-back flash cache). Each write
// is a pure function of the seed and its index (cellsim/cli/write_workload.h).
//
// Every acknowledged write is printed on stdout, and stdout is flushed after
// each batch, as soon as DiskGroup::Write has returned OK:
//
//   ack INDEX OFFSET LENGTH XXH64
//
// so a harness that kills the process (kill -9) knows exactly which writes the
// storage acknowledged: after a reopen each of them must read back. --count 0
// writes until the process is killed. Exit codes as every command: 1 when a
// write fails (its error on stderr), 2 for bad input. While `cellsim
// instance` serves the rack, the instance runs the workload beside its
// sessions (the acks still come on this process's stdout); this process's
// Ctrl-C, kill or end stops it after the batch in flight.
#include <chrono>
#include <cstdio>
#include <iostream>
#include <tuple>

#include "cellsim/base/checksum.h"
#include "cellsim/base/units.h"
#include "cellsim/cli/commands.h"
#include "cellsim/cli/console.h"
#include "cellsim/cli/instance.h"
#include "cellsim/cli/rack_env.h"
#include "cellsim/cli/served_commands.h"
#include "cellsim/cli/write_workload.h"
#include "cellsim/db/database.h"
#include "cellsim/report/asmcmd.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"

namespace cellsim::cli {
namespace {

struct WriteArgs {
  std::string dir;
  std::string file;
  uint64_t seed = 1;
  uint64_t count = 1000;
  std::string block_size = "8k";
  uint32_t max_blocks = 8;
  uint32_t batch = 1;
  bool force = false;
  RackOptions rack;
};
// What a client sends the instance serving the rack.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(WriteArgs, file, seed, count, block_size,
                                                max_blocks, batch, force)

// The ASM file a --file argument names: a full name or a pattern matching
// exactly one file ("+DATA/ORCL/DATAFILE/USERS.*").
absl::StatusOr<std::pair<asmgr::DiskGroup*, asmgr::FileInfo>> FindTarget(const asmgr::Rack& rack,
                                                                         const std::string& path) {
  absl::StatusOr<std::vector<std::string>> names = report::ResolveAsmFiles(SnapshotAsm(rack), path);
  if (!names.ok()) return names.status();
  if (names->size() != 1) {
    return absl::InvalidArgumentError(
        fmt::format("--file {} matches {} files; name exactly one", path, names->size()));
  }
  const std::string& name = names->front();
  absl::StatusOr<asmgr::DiskGroup*> dg = rack.disk_group(name.substr(0, name.find('/')));
  if (!dg.ok()) return dg.status();
  absl::StatusOr<asmgr::FileInfo> info = (*dg)->LookupFile(name);
  if (!info.ok()) return info.status();
  if (info->type == asmgr::FileType::kControlFile) {
    return absl::InvalidArgumentError(fmt::format(
        "--file {}: refusing to write into a control file (it would corrupt the database)", name));
  }
  return std::make_pair(*dg, *info);
}

// FailedPrecondition when the rack's database keeps something in `info` that
// random writes would destroy: an online log, or a data file of SYSTEM,
// SYSAUX, an undo tablespace or one holding a table or index segment. A data
// file of an empty tablespace, a tempfile, or a rack without a database is
// fine. The database asked is env.db when it is open (an instance's), else
// it is opened to ask its dictionary, then closed.
absl::Status CheckNotDatabaseData(RackEnv& env, const asmgr::FileInfo& info) {
  auto refuse = [&](const std::string& what) {
    return absl::FailedPreconditionError(fmt::format(
        "--file {}: refusing to write random data into {}: it would destroy committed data "
        "(--force writes anyway)",
        info.name, what));
  };
  if (info.type == asmgr::FileType::kOnlineLog) return refuse("an online redo log of the database");
  if (info.type != asmgr::FileType::kDataFile) return absl::OkStatus();
  std::unique_ptr<db::Database> opened;
  db::Database* db = env.db.get();
  if (db == nullptr) {
    absl::StatusOr<std::unique_ptr<db::Database>> o = db::Database::Open(env.rack.get());
    if (o.status().code() == absl::StatusCode::kNotFound) return absl::OkStatus();
    if (!o.ok()) return o.status();
    opened = std::move(*o);
    db = opened.get();
  }
  auto ask = [&](const std::string& sql) -> absl::StatusOr<std::vector<std::vector<std::string>>> {
    absl::StatusOr<db::StatementResult> r = db->NewSession()->Execute(sql);
    if (!r.ok()) return r.status();
    return r->result_rows;
  };
  absl::StatusOr<std::vector<std::vector<std::string>>> ts = ask(fmt::format(
      "select t.tablespace_name, t.contents from dba_data_files d, dba_tablespaces t "
      "where d.tablespace_name = t.tablespace_name and d.file_name = '{}'",
      info.name));
  absl::Status verdict = ts.status();
  if (ts.ok() && !ts->empty()) {
    const std::string& name = (*ts)[0][0];
    absl::StatusOr<std::vector<std::vector<std::string>>> segments = ask(fmt::format(
        "select count(*) from dba_segments where tablespace_name = '{}'", name));
    verdict = segments.status();
    if (name == "SYSTEM" || name == "SYSAUX" || (*ts)[0][1] == "UNDO") {
      verdict = refuse(fmt::format("a data file of tablespace {}", name));
    } else if (segments.ok() && (*segments)[0][0] != "0") {
      verdict = refuse(fmt::format("a data file of tablespace {}, which holds {} table or index "
                                   "segments (DBA_SEGMENTS)",
                                   name, (*segments)[0][0]));
    }
  }
  absl::Status closed = opened != nullptr ? opened->Close() : absl::OkStatus();
  return verdict.ok() ? closed : verdict;
}

// The workload's target and shape, checked: InvalidArgument for bad input,
// FailedPrecondition for a file the database keeps.
absl::StatusOr<std::tuple<asmgr::DiskGroup*, asmgr::FileInfo, WriteWorkloadSpec>> PrepareWrite(
    RackEnv& env, const WriteArgs& a) {
  absl::StatusOr<uint64_t> block_size = ParseSize(a.block_size);
  if (!block_size.ok() || *block_size > (1u << 30)) {
    return absl::InvalidArgumentError(
        fmt::format("--block-size '{}' is not a size like 8k", a.block_size));
  }
  auto target = FindTarget(*env.rack, a.file);
  if (!target.ok()) return target.status();
  auto [dg, info] = *target;
  if (!a.force) {
    if (absl::Status s = CheckNotDatabaseData(env, info); !s.ok()) return s;
  }
  const WriteWorkloadSpec spec{.seed = a.seed,
                               .file_size = info.size_bytes,
                               .block_size = static_cast<uint32_t>(*block_size),
                               .max_blocks = a.max_blocks,
                               .batch = a.batch};
  if (absl::Status v = spec.Validate(); !v.ok()) {
    return absl::InvalidArgumentError(
        fmt::format("--file {}: {}", info.name, std::string(v.message())));
  }
  return std::make_tuple(dg, info, spec);
}

// Runs the workload `a` asks for on env.rack, each acknowledged batch's
// lines written to the console at once; stops at the console's signal.
// Its exit code (128 + signal when a signal stopped it).
int RunWriteWorkload(RackEnv& env, const WriteArgs& a, Console& console) {
  auto prepared = PrepareWrite(env, a);
  if (!prepared.ok()) return ReportFailure(console, "write", prepared.status());
  auto& [dg, info, spec] = *prepared;
  *console.err << fmt::format("writing to {} ({}), seed {}, {} writes{}, batches of {}\n",
                              info.name, FormatBytes(info.size_bytes), a.seed,
                              a.count == 0 ? std::string("unlimited") : std::to_string(a.count),
                              a.count == 0 ? " (until killed)" : "", a.batch)
               << std::flush;
  const auto t0 = std::chrono::steady_clock::now();
  uint64_t done = 0, bytes = 0;
  while ((a.count == 0 || done < a.count) && !console.interrupts->flag()->cancelled()) {
    const uint64_t n = a.count == 0 ? a.batch : std::min<uint64_t>(a.batch, a.count - done);
    std::vector<WorkloadWrite> writes;
    std::vector<asmgr::AsmWriteRequest> requests;
    for (uint64_t i = 0; i < n; ++i) writes.push_back(MakeWorkloadWrite(spec, done + i));
    for (const WorkloadWrite& w : writes) {
      requests.push_back({.file_offset = w.offset, .data = w.data});
    }
    asmgr::AsmIoResult result;
    if (absl::Status failure = dg->Write(info.number, absl::MakeSpan(requests), &result);
        !failure.ok()) {
      return ReportFailure(console, "write",
                           absl::Status(failure.code(),
                                        fmt::format("write {} of {}: {}", done, info.name,
                                                    std::string(failure.message()))));
    }
    std::string lines;
    for (const WorkloadWrite& w : writes) {
      lines += fmt::format("ack {} {} {} {:016x}\n", w.index, w.offset, w.data.size(),
                           Checksum64(w.data));
      bytes += w.data.size();
    }
    // Written at once: what was printed is what was acknowledged.
    *console.out << lines << std::flush;
    done += n;
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  *console.err << fmt::format("{} writes ({}) acknowledged in {:.2f} s{}\n", done,
                              FormatBytes(bytes), s,
                              console.interrupts->signal() != 0
                                  ? ", then " + console.interrupts->cause() + " stopped them"
                                  : std::string())
               << std::flush;
  return console.interrupts->signal() != 0 ? console.interrupts->ExitCode() : 0;
}

void RunWrite(const WriteArgs& a, CommandContext& ctx) {
  const std::string cmd = "write";
  if (std::optional<int> code = RunInInstance(a.dir, a.rack, cmd, nlohmann::json(a).dump())) {
    ctx.exit_code = *code;
    return;
  }
  absl::StatusOr<RackEnv> env = OpenRackEnv(a.dir, a.rack);
  if (!env.ok()) return Fail(ctx, cmd, env.status());
  Console console;
  ctx.exit_code = RunWriteWorkload(*env, a, console);
  const absl::Status closed = env->Close();
  if (ctx.exit_code == 0 && !closed.ok()) Fail(ctx, cmd, closed);
}

}  // namespace

int ServeWrite(lab::RackEnv& env, const std::string& request, pid_t /*client_pid*/,
               Console& console) {
  const nlohmann::json j = nlohmann::json::parse(request, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) {
    return ReportFailure(console, "write",
                         absl::InvalidArgumentError("the instance cannot read this request"));
  }
  // A field of the wrong type throws: the caller reports it.
  return RunWriteWorkload(env, j.get<WriteArgs>(), console);
}

void RegisterWrite(CLI::App& app, CommandContext& ctx) {
  auto [w, args] = AddCommand<WriteArgs>(
      app, ctx, "write",
      "Run a deterministic write workload on one ASM file of rack DIR (through the flash "
      "cache) and print each acknowledged write as `ack INDEX OFFSET LENGTH XXH64`, flushed "
      "at once (for kill -9 tests)",
      RunWrite);
  AddRackDirArgument(w, &args->dir);
  w->add_option("--file", args->file,
                "The ASM file: a full name or a pattern matching one file, e.g. "
                "'+DATA/ORCL/DATAFILE/USERS.*' (control files are refused)")
      ->required();
  w->add_option("--seed", args->seed, "Seed of the workload (offsets, lengths, data)")
      ->capture_default_str();
  w->add_option("--count", args->count, "Number of writes; 0 = until killed")
      ->capture_default_str();
  w->add_option("--block-size", args->block_size, "Write unit and alignment (a multiple of 512)")
      ->capture_default_str();
  w->add_option("--max-blocks", args->max_blocks, "Blocks per write: 1..N, chosen by the seed")
      ->check(CLI::Range(1, 1 << 16))
      ->capture_default_str();
  w->add_option("--batch", args->batch,
                "Writes per DiskGroup::Write call (non-overlapping; acknowledged together)")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  w->add_flag("--force", args->force,
              "Write even into a file holding the database's data (an online log, SYSTEM, "
              "SYSAUX, undo, or a tablespace with tables or indexes), destroying it");
  AddRackOptions(w, &args->rack);
}

}  // namespace cellsim::cli
