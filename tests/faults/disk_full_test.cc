// Space exhaustion is not a disk failure (issue 11). A rack on a small tmpfs
// that fills up during a creation, by each path: the statement fails with an
// ORA- error and is undone, every disk stays ONLINE, earlier files read back
// byte for byte, and once space is freed the next creation succeeds (and the
// group survives a restart). Also: a DBA takes a disk offline and back online
// with ALTER DISKGROUP, and the online resyncs what changed meanwhile.
//
// Mounting a tmpfs needs root (CAP_SYS_ADMIN): without it the test skips,
// saying so.
#include <sys/mount.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "cellsim/asm/rack.h"
#include "cellsim/base/units.h"
#include "cellsim/db/database.h"
#include "faults/stack_check.h"
#include "fmt/format.h"
#include "gtest/gtest.h"
#include "testing/test_util.h"

namespace cellsim::faults {
namespace {

using ::cellsim::faults::testing::ReadAsm;
using ::cellsim::faults::testing::VerifyTableFormatted;
using ::cellsim::testing::TempDir;
using ::testing::HasSubstr;

asmgr::RackConfig SmallRack() {
  asmgr::RackConfig c;
  c.cells = 3;
  c.cell_disks_per_cell = 2;
  c.disk_groups = {{.name = "DATA", .redundancy = asmgr::Redundancy::kNormal,
                    .au_size = 1 * kMiB, .grid_disk_size = 64 * kMiB},
                   {.name = "RECO", .redundancy = asmgr::Redundancy::kNormal,
                    .au_size = 1 * kMiB, .grid_disk_size = 16 * kMiB}};
  c.flash_size = 16 * kMiB;
  c.flash_cache_mode = cell::FlashCacheMode::kWriteBack;
  return c;
}

// The session settings that select each creation path.
struct PathCase {
  const char* name;
  std::vector<const char*> settings;
};
const PathCase kPaths[] = {
    {"ZeroFill", {"alter session set \"_cell_fast_file_create\" = false"}},
    {"Smart",
     {"alter session set \"_cell_fast_file_create\" = true",
      "alter session set cellsim_fast_file_create_metadata = false"}},
    {"Fast",
     {"alter session set \"_cell_fast_file_create\" = true",
      "alter session set cellsim_fast_file_create_metadata = true"}},
};

uint64_t FreeBytes(const std::string& dir) {
  struct statvfs v {};
  if (statvfs(dir.c_str(), &v) != 0) return 0;
  return uint64_t{v.f_bavail} * v.f_frsize;
}

// Fills `path` with real (non-sparse) bytes until only `leave` bytes are free.
void FillUntil(const std::string& dir, const std::string& path, uint64_t leave) {
  std::ofstream f(path, std::ios::binary);
  const std::vector<char> chunk(1 * kMiB, 'x');
  while (FreeBytes(dir) > leave + chunk.size()) {
    f.write(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    f.flush();
  }
}

class DiskFull : public ::testing::TestWithParam<PathCase> {
 protected:
  void SetUp() override {
    mnt_ = tmp_.path() + "/mnt";
    std::filesystem::create_directories(mnt_);
    if (geteuid() != 0) GTEST_SKIP() << "mounting a tmpfs needs root";
    if (mount("tmpfs", mnt_.c_str(), "tmpfs", 0, "size=96m") != 0) {
      GTEST_SKIP() << "cannot mount a tmpfs at " << mnt_ << ": " << std::strerror(errno);
    }
    mounted_ = true;
    auto rack = asmgr::Rack::Create(io_.get(), SystemClock(), mnt_ + "/rack", SmallRack());
    ASSERT_TRUE(rack.ok()) << rack.status();
    rack_ = *std::move(rack);
    auto db = db::Database::Create(rack_.get());
    ASSERT_TRUE(db.ok()) << db.status();
    db_ = *std::move(db);
  }
  void TearDown() override {
    db_.reset();
    if (rack_) (void)rack_->Close();
    rack_.reset();
    if (mounted_) {
      EXPECT_EQ(umount2(mnt_.c_str(), MNT_DETACH), 0) << std::strerror(errno);
    }
  }

  absl::StatusOr<db::StatementResult> Sql(db::Session* s, const std::string& sql) {
    return s->Execute(sql);
  }
  // Every disk of every group ONLINE, and none holding stale copies.
  void ExpectAllOnline() {
    for (asmgr::DiskGroup* g : rack_->disk_groups()) {
      for (const asmgr::DiskView& d : g->Disks()) {
        EXPECT_EQ(d.mode_status, "ONLINE") << d.name << ": " << d.last_error;
      }
      EXPECT_OK(g->CheckConsistency());
    }
  }
  // The bytes of the data files of tablespace `ts`.
  std::vector<uint8_t> Content(const std::string& ts) {
    std::vector<uint8_t> out;
    const db::FileTable t = db_->file_table();
    const db::Tablespace* x = t.FindTablespace(ts);
    EXPECT_NE(x, nullptr) << ts;
    if (x == nullptr) return out;
    for (const db::DataFile& f : t.data_files) {
      if (f.tablespace != x->number) continue;
      asmgr::DiskGroup* g = *rack_->disk_group(f.file.disk_group);
      std::vector<uint8_t> b((*g->LookupFile(f.file.number)).size_bytes);
      EXPECT_OK(ReadAsm(g, f.file.number, 0, absl::MakeSpan(b)));
      out.insert(out.end(), b.begin(), b.end());
    }
    return out;
  }

  TempDir tmp_;
  std::string mnt_;
  bool mounted_ = false;
  std::unique_ptr<io::IoBackend> io_ = io::MakePosixBackend();
  std::unique_ptr<asmgr::Rack> rack_;
  std::unique_ptr<db::Database> db_;
};

TEST_P(DiskFull, CreationFailsUndoneDisksStayOnlineAndTheNextSucceeds) {
  auto s = db_->NewSession();
  ASSERT_OK(Sql(s.get(), "create tablespace early datafile '+DATA' size 4m").status());
  // Acknowledged data in the early file, beside its formatted blocks.
  {
    const db::FileTable t = db_->file_table();
    const db::DataFile& f = t.data_files.back();
    asmgr::DiskGroup* g = *rack_->disk_group("DATA");
    std::vector<uint8_t> d(256 * kKiB);
    for (size_t i = 0; i < d.size(); ++i) d[i] = static_cast<uint8_t>(i * 13 + 1);
    std::vector<asmgr::AsmWriteRequest> w = {{.file_offset = 1 * kMiB, .data = d}};
    ASSERT_OK(g->Write(f.file.number, absl::MakeSpan(w), nullptr));
  }
  const std::vector<uint8_t> early = Content("EARLY");
  const std::set<std::string> written = {db_->file_table().data_files.back().file.name};
  for (const char* setting : GetParam().settings) ASSERT_OK(Sql(s.get(), setting).status());
  const std::string filler = mnt_ + "/filler";
  FillUntil(mnt_, filler, 4 * kMiB);
  // 24 MiB mirrored: more than the 4 MiB left, less than what freeing the
  // filler gives back (the failed attempt's blocks stay allocated in the
  // sparse grid disk files).
  const std::string big = "create tablespace big datafile '+DATA' size 24m";
  absl::StatusOr<db::StatementResult> r = Sql(s.get(), big);
  if (r.ok()) {
    // Fast creation writes no data, only templates in the flash metadata
    // (allocated when the cell was made): it needs no space to succeed.
    EXPECT_EQ(std::string(GetParam().name), "Fast") << "a full filesystem did not stop it";
    ASSERT_OK(Sql(s.get(), "drop tablespace big including contents and datafiles").status());
  } else {
    EXPECT_EQ(r.status().code(), absl::StatusCode::kResourceExhausted) << r.status();
    EXPECT_THAT(std::string(r.status().message()),
                ::testing::AllOf(HasSubstr("ORA-15041"), HasSubstr("out of space")));
    EXPECT_EQ(db_->file_table().FindTablespace("BIG"), nullptr);
  }
  ExpectAllOnline();
  EXPECT_EQ(Content("EARLY"), early);
  // Space freed: the same creation now succeeds, and formats.
  std::filesystem::remove(filler);
  ASSERT_OK(Sql(s.get(), big).status());
  EXPECT_OK(VerifyTableFormatted(rack_.get(), db_->file_table(), written));
  ExpectAllOnline();
  // And everything survives a restart.
  s.reset();
  ASSERT_OK(db_->Close());
  db_.reset();
  ASSERT_OK(rack_->Close());
  auto rack = asmgr::Rack::Open(io_.get(), SystemClock(), mnt_ + "/rack");
  ASSERT_TRUE(rack.ok()) << rack.status();
  rack_ = *std::move(rack);
  auto db = db::Database::Open(rack_.get());
  ASSERT_TRUE(db.ok()) << db.status();
  db_ = *std::move(db);
  ExpectAllOnline();
  EXPECT_EQ(Content("EARLY"), early);
  EXPECT_OK(VerifyTableFormatted(rack_.get(), db_->file_table(), written));
}

INSTANTIATE_TEST_SUITE_P(Paths, DiskFull, ::testing::ValuesIn(kPaths),
                         [](const ::testing::TestParamInfo<PathCase>& p) {
                           return std::string(p.param.name);
                         });

// A DBA's ALTER DISKGROUP: offline a disk, write, online it (resync), and the
// refusals (unknown disk, the last current copy).
TEST(AlterDiskgroup, OfflineWriteOnlineResyncs) {
  TempDir tmp;
  std::unique_ptr<io::IoBackend> io = io::MakePosixBackend();
  auto rack = asmgr::Rack::Create(io.get(), SystemClock(), tmp.path() + "/rack", SmallRack());
  ASSERT_TRUE(rack.ok()) << rack.status();
  auto db = db::Database::Create(rack->get());
  ASSERT_TRUE(db.ok()) << db.status();
  auto s = (*db)->NewSession();
  ASSERT_OK(s->Execute("alter diskgroup data offline disk DATA_CD_00_cel01").status());
  asmgr::DiskGroup* g = *(*rack)->disk_group("DATA");
  EXPECT_EQ(g->Disks()[0].mode_status, "OFFLINE");
  ASSERT_OK(s->Execute("create tablespace t datafile '+DATA' size 8m").status());
  uint64_t stale = 0;
  for (const asmgr::DiskView& d : g->Disks()) stale += d.stale_aus;
  EXPECT_GT(stale, 0u);
  // Offlining a partner too would leave extents without a current copy.
  bool refused = false;
  for (const asmgr::DiskView& d : g->Disks()) {
    if (d.cell == 0) continue;
    absl::StatusOr<db::StatementResult> r =
        s->Execute(fmt::format("alter diskgroup data offline disk {}", d.name));
    if (!r.ok()) {
      EXPECT_THAT(std::string(r.status().message()), HasSubstr("ORA-15066"));
      refused = true;
      break;
    }
    ASSERT_OK(s->Execute(fmt::format("alter diskgroup data online disk {}", d.name)).status());
  }
  EXPECT_TRUE(refused);
  absl::StatusOr<db::StatementResult> bad = s->Execute("alter diskgroup data online disk NOPE");
  EXPECT_THAT(std::string(bad.status().message()),
              HasSubstr("ORA-15054: disk \"NOPE\" does not exist in diskgroup \"DATA\""));
  ASSERT_OK(s->Execute("alter diskgroup data online all").status());
  for (const asmgr::DiskView& d : g->Disks()) {
    EXPECT_EQ(d.mode_status, "ONLINE") << d.name;
    EXPECT_EQ(d.stale_aus, 0u) << d.name;
  }
  asmgr::ScrubResult scrub;
  ASSERT_OK(g->Scrub({}, &scrub));
  EXPECT_TRUE(scrub.mismatches.empty());
  s.reset();
  ASSERT_OK((*db)->Close());
  db->reset();
  ASSERT_OK((*rack)->Close());
}

}  // namespace
}  // namespace cellsim::faults
