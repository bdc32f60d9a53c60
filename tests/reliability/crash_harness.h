// The crash campaign's harness (docs/crash-campaign.md): a seeded random
// workload over a whole rack + database running on a FaultInjectionBackend, a
// model of everything the workload got acknowledged, and the invariants
// checked after a power cut.
//
//   Rig       one rack + database + session on a backend (create, reopen,
//             clean or dirty restart)
//   Model     what was acknowledged: the file table, the expected bytes of
//             every data file and log member, each cell's flash cache mode
//   InFlight  the one operation that was running when the power went
//   Workload  draws the next operation from its seed and the model, runs it,
//             and updates the model when it is acknowledged
//   Checker   the invariants after a cut, each counted
//
// Only the thread running the campaign touches these objects; the library
// itself runs threads underneath (cells, ASM copies, zero-fill batches).
#ifndef CELLSIM_TESTS_RELIABILITY_CRASH_HARNESS_H_
#define CELLSIM_TESTS_RELIABILITY_CRASH_HARNESS_H_

#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "cellsim/asm/rack.h"
#include "cellsim/base/clock.h"
#include "cellsim/db/database.h"
#include "cellsim/io/fault_injection.h"

namespace cellsim::reliability {

// Everything one workload seed decides before the first operation.
struct WorkloadParams {
  asmgr::RackConfig rack;
  db::DatabaseOptions db;
  // Journal of each cell's flash metadata (0: the cell default, 4 MiB). A
  // small one fills within a workload, so cuts land in the checkpoints that
  // empty it; it also makes every reopen cheaper (recovery reads it whole).
  uint64_t cell_journal_bytes = 0;
  uint32_t ops = 0;             // operations in the workload
  io::OpFilter cut_filter;      // which operations count as cut points
  std::string cut_filter_name;  // for messages ("any file", "flash.img", ...)
};
WorkloadParams DrawParams(uint64_t workload_seed);

// One rack + database + session on `io`.
struct Rig {
  io::IoBackend* io = nullptr;
  std::unique_ptr<ManualClock> clock;
  std::string dir;
  std::unique_ptr<asmgr::Rack> rack;
  std::unique_ptr<db::Database> db;
  std::unique_ptr<db::Session> session;
  db::DatabaseOptions db_options;

  [[nodiscard]] absl::Status Create(const WorkloadParams& p);
  // Rack::Open + Database::Open (after a restart or a power cut).
  [[nodiscard]] absl::Status Open(const db::DatabaseOptions& options);
  // Destroys session, database and rack; with `clean` the rack is closed
  // first (checkpoints), otherwise the objects just go (a killed process).
  [[nodiscard]] absl::Status Drop(bool clean);
};

// Expected content of one ASM file of the database.
struct FileImage {
  std::string disk_group;  // "DATA"
  uint32_t number = 0;     // ASM file number
  std::string name;        // full ASM name
  std::vector<uint8_t> bytes;
};

std::string FileKey(const std::string& disk_group, uint32_t number);

struct Model {
  db::FileTable table;                      // the last acknowledged file table
  std::map<std::string, FileImage> files;   // FileKey -> image, every file of `table`
  std::vector<cell::FlashCacheMode> modes;  // per cell
};

// The bytes a freshly created file must hold on every copy, whatever the
// creation path: the block template's blocks (what zero-fill writes) with
// block 1 replaced by the header the database builds from its table entry.
std::vector<uint8_t> FormattedImage(const db::FileTable& t, const db::DataFile& f);
std::vector<uint8_t> FormattedImage(const db::FileTable& t, const db::LogGroup& g);
// Images for every data file and log member of `t` (fresh, no writes), or
// only for the keys in `only`.
std::map<std::string, FileImage> FormattedImages(const db::FileTable& t,
                                                 const std::set<std::string>* only = nullptr);
// Every data file and log member of `t` with its ASM file size (no bytes).
struct FileSlot {
  std::string disk_group;
  uint32_t number = 0;
  std::string name;
  uint64_t size = 0;
};
std::map<std::string, FileSlot> TableFiles(const db::FileTable& t);

// A DDL statement and the change it makes to the file table.
struct DdlEffect {
  enum Kind { kAddLog, kCreateTs, kAddDatafile, kDropLog, kDropTs } kind = kAddLog;
  std::string sql;
  // kAddLog: the groups (explicit numbers), their thread, sizes, members.
  struct Group {
    uint32_t group = 0;
    uint64_t size = 0;  // bytes per member, rounded to the block size
    uint32_t block_size = 512;
    std::vector<std::string> members;  // disk groups
  };
  uint32_t thread = 1;
  std::vector<Group> groups;
  // kCreateTs / kAddDatafile / kDropTs: the tablespace, its block size and
  // the data files (disk group, usable bytes rounded to blocks).
  std::string tablespace;
  uint32_t block_size = 8192;
  std::vector<std::pair<std::string, uint64_t>> datafiles;
  // kDropLog: the group.
  uint32_t drop_group = 0;
};

// One line per entry kind, for messages.
std::string TableSummary(const db::FileTable& t);

// OK when `after` is exactly `before` changed by `e` (entries AVAILABLE).
[[nodiscard]] absl::Status CheckEffect(const db::FileTable& before, const db::FileTable& after,
                                       const DdlEffect& e);

// The operation running when the power went.
struct InFlight {
  enum Kind { kNone, kDdl, kWrite, kMode, kOther } kind = kNone;
  std::string what;  // one line, for messages
  DdlEffect ddl;
  std::string file;  // kWrite: FileKey
  std::vector<std::pair<uint64_t, std::vector<uint8_t>>> writes;
  uint32_t cell = 0;  // kMode
  cell::FlashCacheMode mode = cell::FlashCacheMode::kWriteBack;
};

// Statistics of a campaign.
struct Tally {
  uint64_t iterations = 0;
  uint64_t cuts = 0;           // iterations whose power cut landed inside an operation
  uint64_t cuts_at_end = 0;    // the workload finished first: cut after its last operation
  uint64_t recovery_cuts = 0;  // of those, cut a second time while recovering
  uint64_t invariants = 0;
  uint64_t failures = 0;
  uint64_t ops_run = 0;
  std::map<std::string, uint64_t> cut_in;     // kind of the in-flight operation -> count
  std::map<std::string, uint64_t> creations;  // creation path -> acknowledged files
};

class Workload {
 public:
  Workload(uint64_t seed, const WorkloadParams& params) : rng_(seed), params_(params) {}

  // Draws and runs the next operation. On success the model is updated. On
  // failure `inflight` describes the operation and the status is returned.
  [[nodiscard]] absl::Status Step(Rig& rig, Model& model, InFlight* inflight, Tally* tally);
  const std::string& last_op() const { return last_; }
  // Set when an acknowledged result was wrong while the workload ran (a read
  // returning other bytes, a file table not as the statement asked, a reopen
  // that recovered something with nothing in flight).
  const std::string& live_failure() const { return live_failure_; }

 private:
  absl::Status Write(Rig& rig, Model& model, InFlight* f);
  absl::Status Read(Rig& rig, Model& model, InFlight* f);
  absl::Status Ddl(Rig& rig, Model& model, InFlight* f, Tally* tally, int kind);
  absl::Status Restart(Rig& rig, Model& model, InFlight* f, bool clean);
  uint64_t Uniform(uint64_t lo, uint64_t hi) {  // inclusive
    return std::uniform_int_distribution<uint64_t>(lo, hi)(rng_);
  }
  std::mt19937_64 rng_;
  WorkloadParams params_;
  std::string last_;
  std::string live_failure_;
  std::map<std::string, std::vector<uint64_t>> written_;  // offsets written per file
};

// Counts invariants; keeps the first failure.
class Checker {
 public:
  explicit Checker(Tally* tally) : tally_(tally) {}
  bool Check(bool ok, const std::string& what);
  bool CheckOk(const absl::Status& st, const std::string& what);
  bool ok() const { return first_.empty(); }
  const std::string& first_failure() const { return first_; }

  // Every invariant of docs/crash-campaign.md on a rig reopened after the cut.
  void AfterCut(Rig& rig, const Model& model, const InFlight& inflight, bool deep);

 private:
  void Cells(Rig& rig, const Model& model, const InFlight& f);
  void Space(Rig& rig);
  void Table(Rig& rig, const Model& model, const InFlight& f, db::FileTable* table);
  void Asm(Rig& rig, const db::FileTable& table);
  void Contents(Rig& rig, const db::FileTable& table, const Model& model, const InFlight& f,
                const std::string& when, bool all_via_asm = false);
  void Scrub(Rig& rig, const db::FileTable& table, const InFlight& f);

  Tally* tally_;
  std::string first_;
  // Bytes each copy of an in-flight write's extents held at the first check
  // ("file/extent/copy"): later checks (after a flush, a restart) need exactly
  // these, the cut's outcome may not change afterwards.
  std::map<std::string, std::vector<uint8_t>> resolved_;
};

}  // namespace cellsim::reliability

#endif  // CELLSIM_TESTS_RELIABILITY_CRASH_HARNESS_H_
