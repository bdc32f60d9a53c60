// The environment of the creation benchmarks (bench/creation_bench.cc): run
// options, the cases (path, size, redundancy, AU, members, O_DIRECT), the rack
// each case gets, and RunOnce(), which builds a fresh rack + database +
// session, times one statement and checks that it did what the case asked.
#ifndef CELLSIM_BENCH_CREATION_ENV_H_
#define CELLSIM_BENCH_CREATION_ENV_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "bench/counting_backend.h"
#include "cellsim/asm/rack.h"
#include "cellsim/base/units.h"
#include "cellsim/db/database.h"
#include "cellsim/io/io_backend.h"
#include "cellsim/stats/statistics.h"

namespace cellsim::bench {

// Run options (creation_bench --cs_* flags).
struct Options {
  int iterations = 0;  // 0: by size
  uint32_t cells = 3;
  uint32_t cell_disks = 12;
  io::BackendKind backend = io::BackendKind::kUring;
  unsigned queue_depth = 32;
};
extern Options g_opt;
extern std::string g_root;  // the mkdtemp folder holding every rack of this run

std::string Msg(const absl::Status& s);
// The text a case is skipped with: "skipped: ..." when the machine refused a
// feature the case needs (io_uring, O_DIRECT, fallocate modes), "error: ..."
// for anything else (a bug or a full disk: the smoke test fails on those).
std::string SkipText(const absl::Status& s);
// "ext4", "xfs", "tmpfs", ... of the filesystem holding `dir`.
std::string FsName(const std::string& dir);
// The run's backend (--cs_backend), wrapped to count bytes per file kind.
absl::StatusOr<std::unique_ptr<CountingBackend>> MakeIo();
// A fresh folder under g_root.
absl::StatusOr<std::string> NewDir(std::string_view what);
void RemoveDir(const std::string& dir);

enum class Path : uint8_t { kZeroFill, kSmart, kFast };
constexpr std::string_view PathName(Path p) {
  return p == Path::kZeroFill ? db::kPathZeroFill : p == Path::kSmart ? db::kPathSmart
                                                                      : db::kPathFast;
}

struct Case {
  Path path = Path::kFast;
  uint64_t logical = 256 * kMiB;  // total of the members
  asmgr::Redundancy redundancy = asmgr::Redundancy::kNormal;
  uint64_t au = 4 * kMiB;
  uint32_t members = 2;
  bool direct = false;

  uint64_t member_bytes() const { return logical / members; }
  std::string Sql() const {
    std::string list;
    for (uint32_t m = 0; m < members; ++m) {
      list += fmt::format("{}'+{}'", m == 0 ? "" : ",", m % 2 == 0 ? "DATA" : "RECO");
    }
    return fmt::format("alter database add logfile thread 2 group 5 ({}) size {}m", list,
                       member_bytes() / kMiB);
  }
};

// The rack of a case: g_opt's cells x cell disks, WriteBack, 1 GiB flash per
// cell, DATA and RECO of the case's redundancy and AU, grid disks (sparse)
// sized so every copy fits with room for ASM's placement.
asmgr::RackConfig RackFor(const Case& c);

// One rack + database + session, ready to run the case's statement.
struct Env {
  std::string dir;
  std::unique_ptr<CountingBackend> io;
  std::unique_ptr<asmgr::Rack> rack;
  std::unique_ptr<db::Database> db;
  std::unique_ptr<db::Session> session;

  ~Env();  // closes everything and removes the rack's folder
};

// Builds `env` for the case: rack, database, session with the path's
// parameter set. Nothing here is timed.
absl::Status Setup(const Case& c, Env* env);

// What one statement did, summed over iterations.
struct Totals {
  uint64_t ns = 0;
  uint64_t cpu_ns = 0;
  uint64_t logical = 0;
  stats::StatValues stats;
  stats::WaitValues waits;
  IoTally io;
  uint64_t template_ranges = 0;  // fast-creation ranges the cells track afterwards
  uint64_t extents = 0;          // extents of the created files (all members)

  void Add(const db::StatementResult& r, uint64_t elapsed_ns, const IoTally& t) {
    ns += elapsed_ns;
    cpu_ns += r.cpu_ns;
    stats += r.statistics;
    waits += r.waits;
    io += t;
  }
};

// The path's main wait: "Log file init write" (zero-fill) or "cell smart file
// creation" (smart, fast).
stats::Wait MainWait(Path p);

// Runs the case's statement on a fresh rack (Setup first); only Execute is
// timed (*elapsed_ns). Errors: the statement's, another path taken, a disk
// left offline, or fewer bytes formatted by the cells than size x copies.
absl::Status RunOnce(const Case& c, Env* env, Totals* t, uint64_t* elapsed_ns,
                     db::StatementResult* out);

}  // namespace cellsim::bench

#endif  // CELLSIM_BENCH_CREATION_ENV_H_
