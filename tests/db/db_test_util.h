// Helpers of the database tests: small real racks (3 cells, sparse files) and
// statistic shortcuts.
#ifndef CELLSIM_TESTS_DB_DB_TEST_UTIL_H_
#define CELLSIM_TESTS_DB_DB_TEST_UTIL_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cellsim/asm/rack.h"
#include "cellsim/base/units.h"
#include "cellsim/db/database.h"
#include "cellsim/io/fault_injection.h"
#include "cellsim/io/io_backend.h"
#include "cellsim/stats/statistics.h"
#include "gtest/gtest.h"
#include "testing/test_util.h"

namespace cellsim::db::testing {

// 3 cells x 2 cell disks; DATA 512 MiB and RECO 256 MiB per cell disk; AU
// 4 MiB. With NORMAL redundancy DATA has 1 GiB usable and RECO 512 MiB.
inline asmgr::RackConfig SmallRack(
    asmgr::Redundancy redundancy = asmgr::Redundancy::kNormal,
    cell::FlashCacheMode mode = cell::FlashCacheMode::kWriteBack) {
  asmgr::RackConfig c;
  c.cells = 3;
  c.cell_disks_per_cell = 2;
  c.disk_groups = {
      {.name = "DATA", .redundancy = redundancy, .au_size = 4 * kMiB,
       .grid_disk_size = 512 * kMiB},
      {.name = "RECO", .redundancy = redundancy, .au_size = 4 * kMiB,
       .grid_disk_size = 256 * kMiB},
  };
  c.flash_size = 64 * kMiB;
  c.flash_cache_mode = mode;
  return c;
}

inline int64_t Get(const stats::StatValues& v, stats::Stat s) { return v[s]; }
inline int64_t Count(const stats::WaitValues& v, stats::Wait w) { return v[w].count; }

// The (first) data file or tempfile of `tablespace` in `t`, or null.
inline const DataFile* FileOf(const FileTable& t, const std::string& tablespace) {
  const Tablespace* ts = t.FindTablespace(tablespace);
  if (ts == nullptr) return nullptr;
  for (const DataFile& f : t.data_files) {
    if (f.tablespace == ts->number) return &f;
  }
  return nullptr;
}

// Reads a whole ASM file through ASM (what `asmcmd cp` copies out).
inline std::vector<uint8_t> ReadAsmFile(asmgr::DiskGroup* dg, uint32_t file, uint64_t size) {
  std::vector<uint8_t> out(size);
  const uint64_t chunk = 8 * kMiB;
  for (uint64_t off = 0; off < size; off += chunk) {
    std::vector<asmgr::AsmReadRequest> r(1);
    r[0].file_offset = off;
    r[0].buffer = absl::MakeSpan(out.data() + off, std::min(chunk, size - off));
    if (!dg->Read(file, absl::MakeSpan(r), nullptr).ok()) return {};
  }
  return out;
}

// The fixture of the SQL-level tests: SmallRack() in a per-test directory, a
// database with the standard files and one session `s_`. Configure() sets
// what else the database is made and opened with (ALL_OBJECTS rows, log
// sizes). Shutdown() is a clean stop, Crash() one that closes nothing (what
// kill -9 leaves), Reopen() opens the rack and the database again after
// either.
// A simulated clock whose time moves only as the code says (a sleep moves it
// on): `start_ns` of modeled time past the wall-clock second `unix_seconds`.
class SteppedClock : public Clock {
 public:
  explicit SteppedClock(int64_t unix_seconds = 1'700'000'000, uint64_t start_ns = 1'000'000)
      : unix_(unix_seconds), ns_(start_ns) {}
  uint64_t NowNanos() const override { return ns_.load(); }
  int64_t UnixSeconds() const override {
    return unix_ + static_cast<int64_t>(ns_.load() / 1'000'000'000);
  }
  int64_t UnixMicros() const override {
    return unix_ * 1'000'000 + static_cast<int64_t>(ns_.load() / 1'000);
  }
  bool simulated() const override { return true; }
  void SetThreadNanos(uint64_t ns) override { ns_.store(ns); }

 private:
  const int64_t unix_;
  std::atomic<uint64_t> ns_;
};

class SqlTest : public ::testing::Test {
 protected:
  virtual void Configure(DatabaseOptions* o) const { (void)o; }
  // The I/O backend the rack is made and reopened with (a fault-injecting
  // wrapper in the tests of failed writes).
  virtual std::unique_ptr<io::IoBackend> MakeBackend() const { return io::MakePosixBackend(); }
  // The rack the test makes (SmallRack(), write-back flash, by default).
  virtual asmgr::RackConfig MakeRackConfig() const { return SmallRack(); }
  // The clock the rack and the database run on (a ManualClock in the tests
  // of time: V$UNDOSTAT's intervals).
  virtual Clock* clock() const { return SystemClock(); }

  void SetUp() override {
    io_ = MakeBackend();
    ASSERT_OK_AND_ASSIGN(rack_, asmgr::Rack::Create(io_.get(), clock(), dir(), MakeRackConfig()));
    DatabaseOptions o;
    o.standard_files.create = true;
    Configure(&o);
    ASSERT_OK_AND_ASSIGN(db_, Database::Create(rack_.get(), o));
    s_ = db_->NewSession();
  }
  void TearDown() override { Shutdown(); }
  std::string dir() const { return tmp_.path() + "/rack"; }

  void Shutdown() {
    s_.reset();
    if (db_) EXPECT_OK(db_->Close());
    db_.reset();
    if (rack_) EXPECT_OK(rack_->Close());
    rack_.reset();
  }
  // The sessions and the database go without Close; the rack's files close.
  void Crash() {
    s_.reset();
    db_.reset();
    if (rack_) EXPECT_OK(rack_->Close());
    rack_.reset();
  }
  absl::Status Reopen() {
    Shutdown();
    absl::StatusOr<std::unique_ptr<asmgr::Rack>> rack =
        asmgr::Rack::Open(io_.get(), clock(), dir());
    if (!rack.ok()) return rack.status();
    rack_ = *std::move(rack);
    DatabaseOptions o;
    Configure(&o);
    absl::StatusOr<std::unique_ptr<Database>> db = Database::Open(rack_.get(), o);
    if (!db.ok()) return db.status();
    db_ = *std::move(db);
    s_ = db_->NewSession();
    return absl::OkStatus();
  }

  StatementResult Run(const std::string& sql, Session* s = nullptr) {
    absl::StatusOr<StatementResult> r = (s ? s : s_.get())->Execute(sql);
    EXPECT_TRUE(r.ok()) << sql << "\n" << r.status();
    return r.ok() ? *r : StatementResult{};
  }
  // The first column of the first row ("<none>" when there is no row).
  std::string One(const std::string& sql, Session* s = nullptr) {
    StatementResult r = Run(sql, s);
    return r.result_rows.empty() ? "<none>" : r.result_rows[0][0];
  }
  // The error message of a statement that must fail.
  std::string Error(const std::string& sql, Session* s = nullptr) {
    absl::StatusOr<StatementResult> r = (s ? s : s_.get())->Execute(sql);
    EXPECT_FALSE(r.ok()) << sql;
    return r.ok() ? "" : std::string(r.status().message());
  }

  ::cellsim::testing::TempDir tmp_;
  std::unique_ptr<io::IoBackend> io_;
  std::unique_ptr<asmgr::Rack> rack_;
  std::unique_ptr<Database> db_;
  std::unique_ptr<Session> s_;
};

// A SQL-level fixture (`Base`: SqlTest or one derived from it) whose rack
// runs on a fault-injecting backend, for the tests of failed writes and of
// power cuts.
template <class Base = SqlTest>
class FaultSqlTest : public Base {
 protected:
  std::unique_ptr<io::IoBackend> MakeBackend() const override {
    return std::make_unique<io::FaultInjectionBackend>(io::MakePosixBackend());
  }
  io::FaultInjectionBackend* fault() {
    return static_cast<io::FaultInjectionBackend*>(this->io_.get());
  }
  // As kill -9 leaves things: nothing closes (a cell whose metadata write
  // failed would refuse its Close until it is reopened, as it should).
  void Kill() {
    this->s_.reset();
    this->db_.reset();
    this->rack_.reset();
  }
  // As a power cut leaves things: nothing closes and every write the files
  // had not synced is gone; the faults are cleared for the next open.
  void PowerOff() {
    Kill();
    ASSERT_OK(fault()->SimulatePowerLoss());
    fault()->ClearFaults();
  }
};

}  // namespace cellsim::db::testing

#endif  // CELLSIM_TESTS_DB_DB_TEST_UTIL_H_
