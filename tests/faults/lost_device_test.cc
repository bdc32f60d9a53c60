// Issue 11: mount with what NORMAL redundancy allows. A rack whose grid-disk
// file, cell flash device or whole cell folder is gone opens with that
// device's ASM disks OFFLINE, serves every earlier byte from the mirrors,
// accepts new files, and resyncs (or rebuilds) when the device returns or is
// replaced; a group that would lose data refuses, naming the missing file.
// docs/reliability.md ("Lost devices") lists the cases.
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "cellsim/asm/rack.h"
#include "cellsim/base/units.h"
#include "cellsim/cell/cell.h"
#include "cellsim/db/database.h"
#include "cellsim/io/io_backend.h"
#include "faults/stack_check.h"
#include "fmt/format.h"
#include "gtest/gtest.h"
#include "testing/test_util.h"

namespace cellsim::faults {
namespace {

using ::cellsim::faults::testing::ReadAsm;
using ::cellsim::faults::testing::ScrubClean;
using ::cellsim::testing::TempDir;
using ::testing::HasSubstr;

asmgr::RackConfig SmallRack(asmgr::Redundancy redundancy, cell::FlashCacheMode mode) {
  asmgr::RackConfig c;
  c.cells = 3;
  c.cell_disks_per_cell = 2;
  c.disk_groups = {{.name = "DATA", .redundancy = redundancy, .au_size = 1 * kMiB,
                    .grid_disk_size = 64 * kMiB},
                   {.name = "RECO", .redundancy = redundancy, .au_size = 1 * kMiB,
                    .grid_disk_size = 32 * kMiB}};
  c.flash_size = 32 * kMiB;
  c.flash_cache_mode = mode;
  return c;
}

// Every ASM file of the rack, by name: its bytes read through ASM.
using Snapshot = std::map<std::string, std::vector<uint8_t>>;

absl::StatusOr<Snapshot> TakeSnapshot(asmgr::Rack* rack) {
  Snapshot out;
  for (asmgr::DiskGroup* dg : rack->disk_groups()) {
    for (const asmgr::FileInfo& f : dg->ListFiles()) {
      std::vector<uint8_t>& bytes = out[f.name];
      bytes.resize(f.size_bytes);
      if (absl::Status s = ReadAsm(dg, f.number, 0, absl::MakeSpan(bytes)); !s.ok()) {
        return absl::Status(s.code(), fmt::format("{}: {}", f.name, std::string(s.message())));
      }
    }
  }
  return out;
}

// OK when every file of `want` reads back byte for byte.
absl::Status SameBytes(asmgr::Rack* rack, const Snapshot& want) {
  absl::StatusOr<Snapshot> now = TakeSnapshot(rack);
  if (!now.ok()) return now.status();
  for (const auto& [name, bytes] : want) {
    auto it = now->find(name);
    if (it == now->end()) return absl::NotFoundError(fmt::format("{} is gone", name));
    if (it->second != bytes) {
      size_t at = 0;
      while (at < bytes.size() && it->second[at] == bytes[at]) ++at;
      return absl::DataLossError(fmt::format("{} differs at byte {}", name, at));
    }
  }
  return absl::OkStatus();
}

std::string FirstMiB(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::string bytes(1 << 20, '\0');
  f.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  bytes.resize(static_cast<size_t>(f.gcount()));
  return bytes;
}

uint32_t OfflineDisks(asmgr::Rack* rack) {
  uint32_t n = 0;
  for (asmgr::DiskGroup* dg : rack->disk_groups()) n += dg->View().offline_disks;
  return n;
}

// A rack + database in a temp dir with files made by all three creation
// paths; `snapshot` holds every ASM file's bytes.
class LostDevice : public ::testing::Test {
 protected:
  void Build(asmgr::Redundancy redundancy = asmgr::Redundancy::kNormal) {
    io_ = io::MakePosixBackend();
    ASSERT_OK_AND_ASSIGN(
        rack_, asmgr::Rack::Create(io_.get(), SystemClock(), dir(),
                                   SmallRack(redundancy, cell::FlashCacheMode::kWriteBack)));
    ASSERT_OK_AND_ASSIGN(db_, db::Database::Create(rack_.get()));
    auto s = db_->NewSession();
    ASSERT_OK(s->Execute("alter session set \"_cell_fast_file_create\" = false"));
    ASSERT_OK(s->Execute("create tablespace zf datafile '+DATA' size 6m"));
    ASSERT_OK(s->Execute("alter session set \"_cell_fast_file_create\" = true"));
    ASSERT_OK(s->Execute("alter session set cellsim_fast_file_create_metadata = false"));
    ASSERT_OK(s->Execute("create tablespace smart datafile '+DATA' size 6m"));
    ASSERT_OK(s->Execute("alter session set cellsim_fast_file_create_metadata = true"));
    ASSERT_OK(s->Execute("create tablespace fast datafile '+DATA' size 6m"));
    ASSERT_OK_AND_ASSIGN(snapshot_, TakeSnapshot(rack_.get()));
    ASSERT_GE(snapshot_.size(), 5u);
  }
  void CloseAll() {
    if (db_) ASSERT_OK(db_->Close());
    db_.reset();
    if (rack_) ASSERT_OK(rack_->Close());
    rack_.reset();
  }
  void OpenAll() {
    ASSERT_OK_AND_ASSIGN(rack_, asmgr::Rack::Open(io_.get(), SystemClock(), dir()));
    ASSERT_OK_AND_ASSIGN(db_, db::Database::Open(rack_.get()));
  }
  // While degraded: every earlier byte, a new zero-fill creation.
  void CheckDegraded() {
    ASSERT_GT(OfflineDisks(rack_.get()), 0u);
    ASSERT_OK(SameBytes(rack_.get(), snapshot_));
    auto s = db_->NewSession();
    ASSERT_OK(s->Execute("alter session set \"_cell_fast_file_create\" = false"));
    ASSERT_OK(s->Execute("create tablespace during datafile '+DATA' size 4m"));
    ASSERT_OK_AND_ASSIGN(snapshot_, TakeSnapshot(rack_.get()));
  }
  // After the device is back: ONLINE ALL resyncs, every copy agrees, and a
  // second open repairs nothing.
  void OnlineAndCheck(asmgr::ResyncResult* rs) {
    for (asmgr::DiskGroup* dg : rack_->disk_groups()) ASSERT_OK(dg->OnlineAll(rs));
    EXPECT_EQ(OfflineDisks(rack_.get()), 0u);
    ASSERT_OK(ScrubClean(rack_.get()));
    ASSERT_OK(SameBytes(rack_.get(), snapshot_));
    CloseAll();
    OpenAll();
    EXPECT_TRUE(rack_->metadata_repairs().empty()) << rack_->metadata_repairs().front();
    EXPECT_EQ(OfflineDisks(rack_.get()), 0u);
    ASSERT_OK(ScrubClean(rack_.get()));
    ASSERT_OK(SameBytes(rack_.get(), snapshot_));
    CloseAll();
  }
  uint32_t StaleAus() {
    uint32_t n = 0;
    for (asmgr::DiskGroup* dg : rack_->disk_groups()) {
      for (const asmgr::DiskView& d : dg->Disks()) n += d.stale_aus;
    }
    return n;
  }
  std::string dir() const { return tmp_.path() + "/rack"; }
  // The files a cell moved aside in its folder whose names start with `prefix`.
  std::vector<std::filesystem::directory_entry> MovedAside(const std::string& cell,
                                                           const std::string& prefix) const {
    std::vector<std::filesystem::directory_entry> out;
    for (const auto& e : std::filesystem::directory_iterator(dir() + "/" + cell)) {
      if (e.path().filename().string().rfind(prefix, 0) == 0) out.push_back(e);
    }
    return out;
  }
  // DATA_CD_00_cel03's file cut to 1 MiB while the rack is down, then opened.
  struct Victim {
    std::string path;
    uint64_t size = 0;  // its right size
    asmgr::DiskGroup* group = nullptr;
    uint32_t disk = 0;       // in `group`
    uint64_t allocated = 0;  // its allocated AUs
  };
  void OpenWithVictimTruncated(Victim* v) {
    ASSERT_NO_FATAL_FAILURE(Build());
    CloseAll();
    v->path = dir() + "/cel03/DATA_CD_00_cel03.img";
    v->size = std::filesystem::file_size(v->path);
    std::filesystem::resize_file(v->path, 1 * kMiB);
    ASSERT_NO_FATAL_FAILURE(OpenAll());
    ASSERT_OK_AND_ASSIGN(v->group, rack_->disk_group("DATA"));
    ASSERT_OK_AND_ASSIGN(v->disk, v->group->FindDisk("DATA_CD_00_cel03"));
    v->allocated = v->group->Disks()[v->disk].allocated_aus;
    ASSERT_GT(v->allocated, 0u);
  }

  TempDir tmp_;
  std::unique_ptr<io::IoBackend> io_;
  std::unique_ptr<asmgr::Rack> rack_;
  std::unique_ptr<db::Database> db_;
  Snapshot snapshot_;
};

TEST_F(LostDevice, MissingGridDiskFileOpensDegradedAndResyncsWhenReturned) {
  ASSERT_NO_FATAL_FAILURE(Build());
  CloseAll();
  const std::string disk = dir() + "/cel02/DATA_CD_01_cel02.img";
  std::filesystem::rename(disk, disk + ".away");
  ASSERT_NO_FATAL_FAILURE(OpenAll());
  ASSERT_OK_AND_ASSIGN(asmgr::DiskGroup * data, rack_->disk_group("DATA"));
  EXPECT_EQ(data->View().offline_disks, 1u);
  ASSERT_OK_AND_ASSIGN(const uint32_t victim, data->FindDisk("DATA_CD_01_cel02"));
  EXPECT_EQ(data->Disks()[victim].mode_status, "OFFLINE");
  EXPECT_THAT(data->Disks()[victim].last_error, HasSubstr("DATA_CD_01_cel02.img is missing"));
  ASSERT_OK_AND_ASSIGN(cell::CellDescription d, rack_->cell(1)->Describe());
  EXPECT_EQ(d.grid_disks[1].name, "DATA_CD_01_cel02");
  EXPECT_EQ(d.grid_disks[1].status, "not present");
  EXPECT_FALSE(std::filesystem::exists(disk));  // never recreated
  ASSERT_NO_FATAL_FAILURE(CheckDegraded());
  const uint32_t stale = StaleAus();
  EXPECT_GT(stale, 0u);
  // Still missing: ONLINE fails clearly and the disk stays offline.
  asmgr::ResyncResult early;
  absl::Status st = data->OnlineDisk(victim, &early);
  EXPECT_FALSE(st.ok());
  EXPECT_THAT(std::string(st.message()), HasSubstr("not present"));
  EXPECT_EQ(data->Disks()[victim].mode_status, "OFFLINE");
  CloseAll();
  std::filesystem::rename(disk + ".away", disk);
  ASSERT_NO_FATAL_FAILURE(OpenAll());
  EXPECT_EQ(OfflineDisks(rack_.get()), 1u);  // back, but stale until ONLINE
  asmgr::ResyncResult rs;
  ASSERT_NO_FATAL_FAILURE(OnlineAndCheck(&rs));
  EXPECT_EQ(rs.extents_copied, stale);  // exactly the stale extents
  RecordProperty("stale_extents_resynced", static_cast<int>(rs.extents_copied));
}

TEST_F(LostDevice, ReplacedGridDiskIsRebuiltWhole) {
  ASSERT_NO_FATAL_FAILURE(Build());
  CloseAll();
  const std::string disk = dir() + "/cel03/DATA_CD_00_cel03.img";
  std::filesystem::remove(disk);
  ASSERT_NO_FATAL_FAILURE(OpenAll());
  ASSERT_NO_FATAL_FAILURE(CheckDegraded());
  ASSERT_OK_AND_ASSIGN(asmgr::DiskGroup * data, rack_->disk_group("DATA"));
  ASSERT_OK_AND_ASSIGN(const uint32_t victim, data->FindDisk("DATA_CD_00_cel03"));
  const uint32_t allocated = data->Disks()[victim].allocated_aus;
  ASSERT_GT(allocated, 0u);
  // Unknown and active names are refused; the replacement is created once.
  EXPECT_EQ(rack_->CreateGridDisk("DATA_CD_07_cel03").code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(rack_->CreateGridDisk("DATA_CD_01_cel03").code(), absl::StatusCode::kAlreadyExists);
  ASSERT_OK(rack_->CreateGridDisk("data_cd_00_cel03"));
  EXPECT_TRUE(std::filesystem::exists(disk));
  EXPECT_EQ(data->Disks()[victim].stale_aus, allocated);
  asmgr::ResyncResult rs;
  ASSERT_NO_FATAL_FAILURE(OnlineAndCheck(&rs));
  EXPECT_EQ(rs.extents_copied, allocated);
  RecordProperty("extents_rebuilt", static_cast<int>(rs.extents_copied));
}

// A grid disk file cut short (a failed copy, a stray truncate): its bytes
// are not trusted. The rack opens without it, as without a missing one, and
// leaves the file as it is; its whole content is marked for rebuilding at
// that open, so CREATE GRIDDISK (which moves the file aside) and ONLINE ALL
// give back every byte from the mirrors.
TEST_F(LostDevice, TruncatedGridDiskOpensDegradedAndIsRebuiltWholeWhenReplaced) {
  Victim v;
  ASSERT_NO_FATAL_FAILURE(OpenWithVictimTruncated(&v));
  const asmgr::DiskView at_open = v.group->Disks()[v.disk];
  EXPECT_EQ(at_open.mode_status, "OFFLINE");
  EXPECT_THAT(at_open.last_error, HasSubstr("DATA_CD_00_cel03.img is damaged"));
  EXPECT_THAT(at_open.last_error,
              HasSubstr(fmt::format("its size is {} bytes, expected {}", 1 * kMiB, v.size)));
  EXPECT_THAT(at_open.last_error, HasSubstr("CREATE GRIDDISK DATA_CD_00_cel03 replaces it"));
  EXPECT_EQ(std::filesystem::file_size(v.path), 1 * kMiB);  // left as it was
  EXPECT_EQ(at_open.stale_aus, v.allocated);                 // all of it, already
  ASSERT_NO_FATAL_FAILURE(CheckDegraded());
  const uint64_t allocated = v.group->Disks()[v.disk].allocated_aus;
  ASSERT_OK(rack_->CreateGridDisk("DATA_CD_00_cel03"));
  EXPECT_EQ(std::filesystem::file_size(v.path), v.size);
  EXPECT_EQ(v.group->Disks()[v.disk].stale_aus, allocated);
  const auto aside = MovedAside("cel03", "DATA_CD_00_cel03.img.damaged.");
  ASSERT_EQ(aside.size(), 1u);
  EXPECT_EQ(aside[0].file_size(), 1 * kMiB);
  asmgr::ResyncResult rs;
  ASSERT_NO_FATAL_FAILURE(OnlineAndCheck(&rs));
  EXPECT_EQ(rs.extents_copied, allocated);
}

// The same file put right by hand (its size restored, the cut-off part now
// zeros): it is present again, but the open that found it damaged marked its
// whole content stale, so ONLINE ALL rebuilds all of it, not only what was
// written while it was away, and no zero from the cut is ever read.
TEST_F(LostDevice, TruncatedGridDiskPutRightByHandIsStillRebuiltWhole) {
  Victim v;
  ASSERT_NO_FATAL_FAILURE(OpenWithVictimTruncated(&v));
  CloseAll();
  std::filesystem::resize_file(v.path, v.size);
  ASSERT_NO_FATAL_FAILURE(OpenAll());
  ASSERT_OK_AND_ASSIGN(asmgr::DiskGroup * data, rack_->disk_group("DATA"));
  EXPECT_EQ(data->Disks()[v.disk].mode_status, "OFFLINE");  // back, but stale until ONLINE
  EXPECT_EQ(data->Disks()[v.disk].stale_aus, v.allocated);
  ASSERT_OK(SameBytes(rack_.get(), snapshot_));
  asmgr::ResyncResult rs;
  ASSERT_NO_FATAL_FAILURE(OnlineAndCheck(&rs));
  EXPECT_EQ(rs.extents_copied, v.allocated);
}

// A file put back in a missing disk's place while the rack is open (the cell
// still counts the disk absent): CREATE GRIDDISK moves it aside, never
// truncating it, and rebuilds the disk whole.
TEST_F(LostDevice, CreateGridDiskKeepsAFilePutBackWhileTheRackWasOpen) {
  ASSERT_NO_FATAL_FAILURE(Build());
  CloseAll();
  const std::string disk = dir() + "/cel03/DATA_CD_00_cel03.img";
  std::filesystem::rename(disk, disk + ".away");
  ASSERT_NO_FATAL_FAILURE(OpenAll());
  std::filesystem::copy_file(disk + ".away", disk);
  ASSERT_OK(rack_->CreateGridDisk("DATA_CD_00_cel03"));
  const auto aside = MovedAside("cel03", "DATA_CD_00_cel03.img.replaced.");
  ASSERT_EQ(aside.size(), 1u);
  EXPECT_EQ(aside[0].file_size(), std::filesystem::file_size(disk + ".away"));
  EXPECT_EQ(FirstMiB(aside[0].path().string()), FirstMiB(disk + ".away"));  // its bytes kept
  asmgr::ResyncResult rs;
  ASSERT_NO_FATAL_FAILURE(OnlineAndCheck(&rs));
  EXPECT_GT(rs.extents_copied, 0u);
}

TEST_F(LostDevice, FlashWithBothSuperblocksDestroyedIsReplacedAndRebuilt) {
  ASSERT_NO_FATAL_FAILURE(Build());
  // Fast creation left its formatted blocks only as templates in the flash of
  // every cell: the lost flash held the only copy of cel02's share.
  ASSERT_GT(rack_->concrete_cell(1)->TemplateRangeCount(), 0u);
  CloseAll();
  const std::string flash = dir() + "/cel02/flash.img";
  {
    std::fstream f(flash, std::ios::in | std::ios::out | std::ios::binary);
    const std::string junk(8192, '\x5a');  // superblock copies A and B
    f.write(junk.data(), static_cast<std::streamsize>(junk.size()));
  }
  ASSERT_NO_FATAL_FAILURE(OpenAll());
  // Read-write open: the flash was replaced and cel02's disks rebuilt.
  ASSERT_FALSE(rack_->metadata_repairs().empty());
  EXPECT_THAT(rack_->metadata_repairs().back(), HasSubstr("cel02: flash device lost"));
  EXPECT_EQ(OfflineDisks(rack_.get()), 0u);
  EXPECT_EQ(MovedAside("cel02", "flash.img.lost.").size(), 1u);
  ASSERT_OK(ScrubClean(rack_.get()));
  ASSERT_OK(SameBytes(rack_.get(), snapshot_));
  {
    auto s = db_->NewSession();
    ASSERT_OK(s->Execute("alter session set \"_cell_fast_file_create\" = false"));
    ASSERT_OK(s->Execute("create tablespace after datafile '+DATA' size 4m"));
  }
  ASSERT_OK_AND_ASSIGN(snapshot_, TakeSnapshot(rack_.get()));
  asmgr::ResyncResult rs;
  ASSERT_NO_FATAL_FAILURE(OnlineAndCheck(&rs));
  EXPECT_EQ(rs.extents_copied, 0u);
}

// The superblocks whole, the cache directory behind them (checkpoint areas,
// journal) damaged: which lines hold the newest data is unknown, as when the
// device is gone, and the cell is rebuilt from the mirrors the same way.
// Before, the rack refused to open ("the cell cannot be opened without losing
// dirty data") with every byte of it on the other cells.
TEST_F(LostDevice, FlashWithItsCacheDirectoryDamagedIsReplacedAndRebuilt) {
  ASSERT_NO_FATAL_FAILURE(Build());
  CloseAll();
  {
    std::fstream f(dir() + "/cel02/flash.img", std::ios::in | std::ios::out | std::ios::binary);
    for (std::streamoff at = 8192 + 100; at < 2 * 1024 * 1024; at += 4096) {
      f.seekg(at);
      const int c = f.get();
      f.seekp(at);
      f.put(static_cast<char>(c ^ 0x5a));
    }
  }
  ASSERT_NO_FATAL_FAILURE(OpenAll());
  ASSERT_FALSE(rack_->metadata_repairs().empty());
  EXPECT_THAT(rack_->metadata_repairs().back(), HasSubstr("cel02: flash device lost"));
  EXPECT_THAT(rack_->metadata_repairs().back(), HasSubstr("the lost device: flash device"));
  EXPECT_THAT(rack_->metadata_repairs().back(), HasSubstr("damaged"));
  EXPECT_EQ(OfflineDisks(rack_.get()), 0u);
  ASSERT_OK(ScrubClean(rack_.get()));
  ASSERT_OK(SameBytes(rack_.get(), snapshot_));
}

TEST_F(LostDevice, FlashLostOnAReadOnlyOpenLeavesTheCellOffline) {
  ASSERT_NO_FATAL_FAILURE(Build());
  CloseAll();
  std::filesystem::remove(dir() + "/cel01/flash.img");
  ASSERT_OK_AND_ASSIGN(
      rack_, asmgr::Rack::Open(io_.get(), SystemClock(), dir(),
                               {.lock = {.access = asmgr::RackAccess::kReadOnly}}));
  EXPECT_EQ(OfflineDisks(rack_.get()), 4u);  // 2 DATA + 2 RECO disks of cel01
  ASSERT_OK(SameBytes(rack_.get(), snapshot_));
  EXPECT_FALSE(std::filesystem::exists(dir() + "/cel01/flash.img"));  // nothing written
  ASSERT_OK(rack_->Close());
  rack_.reset();
  ASSERT_NO_FATAL_FAILURE(OpenAll());  // read-write: replaced and rebuilt
  EXPECT_EQ(OfflineDisks(rack_.get()), 0u);
  ASSERT_OK(SameBytes(rack_.get(), snapshot_));
  asmgr::ResyncResult rs;
  ASSERT_NO_FATAL_FAILURE(OnlineAndCheck(&rs));
}

TEST_F(LostDevice, MissingCellFolderOpensDegradedAndResyncsWhenReturned) {
  ASSERT_NO_FATAL_FAILURE(Build());
  CloseAll();
  const std::string cell = dir() + "/cel03";
  std::filesystem::rename(cell, cell + ".away");
  ASSERT_NO_FATAL_FAILURE(OpenAll());
  EXPECT_EQ(OfflineDisks(rack_.get()), 4u);
  EXPECT_EQ(rack_->concrete_cell(2), nullptr);
  ASSERT_OK_AND_ASSIGN(cell::CellDescription d, rack_->cell(2)->Describe());
  EXPECT_EQ(d.grid_disks[0].status, "not present");
  EXPECT_THAT(d.grid_disks[0].status_reason, HasSubstr("cel03 is missing"));
  EXPECT_FALSE(std::filesystem::exists(cell));  // nothing recreated
  ASSERT_NO_FATAL_FAILURE(CheckDegraded());
  const uint32_t stale = StaleAus();
  EXPECT_GT(stale, 0u);
  CloseAll();
  std::filesystem::rename(cell + ".away", cell);
  ASSERT_NO_FATAL_FAILURE(OpenAll());
  asmgr::ResyncResult rs;
  ASSERT_NO_FATAL_FAILURE(OnlineAndCheck(&rs));
  EXPECT_EQ(rs.extents_copied, stale);
}

TEST_F(LostDevice, TwoCellsMissingRefusesNamingThem) {
  ASSERT_NO_FATAL_FAILURE(Build());
  CloseAll();
  std::filesystem::rename(dir() + "/cel01", dir() + "/cel01.away");
  std::filesystem::remove(dir() + "/cel03/DATA_CD_01_cel03.img");
  absl::StatusOr<std::unique_ptr<asmgr::Rack>> r =
      asmgr::Rack::Open(io_.get(), SystemClock(), dir());
  ASSERT_FALSE(r.ok());
  const std::string msg(r.status().message());
  EXPECT_THAT(msg, HasSubstr("ORA-15040: diskgroup is incomplete"));
  EXPECT_THAT(msg, HasSubstr("ORA-15042: ASM disk \"DATA_CD_00_cel01\" is missing"));
  EXPECT_THAT(msg, HasSubstr("DATA_CD_01_cel03.img is missing"));
  EXPECT_FALSE(std::filesystem::exists(dir() + "/cel03/DATA_CD_01_cel03.img"));
  std::filesystem::rename(dir() + "/cel01.away", dir() + "/cel01");
}

TEST_F(LostDevice, ExternalRedundancyWithAMissingDiskRefusesNamingTheFile) {
  io_ = io::MakePosixBackend();
  ASSERT_OK_AND_ASSIGN(
      rack_, asmgr::Rack::Create(io_.get(), SystemClock(), dir(),
                                 SmallRack(asmgr::Redundancy::kExternal,
                                           cell::FlashCacheMode::kWriteThrough)));
  ASSERT_OK(rack_->Close());
  rack_.reset();
  const std::string disk = dir() + "/cel02/RECO_CD_01_cel02.img";
  std::filesystem::remove(disk);
  absl::StatusOr<std::unique_ptr<asmgr::Rack>> r =
      asmgr::Rack::Open(io_.get(), SystemClock(), dir());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kFailedPrecondition);
  const std::string msg(r.status().message());
  EXPECT_THAT(msg, HasSubstr("ORA-15017: diskgroup \"RECO\" cannot be mounted"));
  EXPECT_THAT(msg, HasSubstr("ORA-15040: diskgroup is incomplete"));
  EXPECT_THAT(msg, HasSubstr(disk + " is missing"));
  EXPECT_THAT(msg, HasSubstr("EXTERN redundancy keeps 1 copy"));
  EXPECT_FALSE(std::filesystem::exists(disk));  // never recreated as zeros
}

// ------------------------------------------------------- bad-block repair

// The bytes of [offset, offset + n) of a file, read with plain I/O (not
// through a cell, so no cache is populated).
std::vector<uint8_t> RawRead(const std::string& path, uint64_t offset, size_t n) {
  std::vector<uint8_t> out(n);
  std::ifstream f(path, std::ios::binary);
  f.seekg(static_cast<std::streamoff>(offset));
  f.read(reinterpret_cast<char*>(out.data()), static_cast<std::streamsize>(n));
  return out;
}

void FlipByte(const std::string& path, uint64_t offset) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(static_cast<std::streamoff>(offset));
  char c = 0;
  f.get(c);
  f.seekp(static_cast<std::streamoff>(offset));
  f.put(static_cast<char>(c ^ 0x10));
}

class BadBlock : public LostDevice {
 protected:
  // A smart-created data file on write-through cells (its formatted blocks,
  // each with its checksum, are on the grid disks); block `kBlock`'s copies.
  void SetUp() override {
    io_ = io::MakePosixBackend();
    ASSERT_OK_AND_ASSIGN(
        rack_, asmgr::Rack::Create(io_.get(), SystemClock(), dir(),
                                   SmallRack(asmgr::Redundancy::kNormal,
                                             cell::FlashCacheMode::kWriteThrough)));
    ASSERT_OK_AND_ASSIGN(db_, db::Database::Create(rack_.get()));
    {
      auto s = db_->NewSession();
      ASSERT_OK(s->Execute("alter session set cellsim_fast_file_create_metadata = false"));
      ASSERT_OK(s->Execute("create tablespace t datafile '+DATA' size 4m"));
    }
    ASSERT_OK_AND_ASSIGN(data_, rack_->disk_group("DATA"));
    for (const asmgr::FileInfo& f : data_->ListFiles()) {
      if (f.type == asmgr::FileType::kDataFile && f.tag == "T") file_ = f;
    }
    ASSERT_EQ(file_.tag, "T");
    ASSERT_OK_AND_ASSIGN(std::vector<asmgr::Extent> x,
                         data_->ExtentMap(file_.number, kBlock * kBs, kBs));
    ASSERT_EQ(x.size(), 1u);
    for (const asmgr::ExtentCopy& c : x[0].copies) {
      ASSERT_OK_AND_ASSIGN(cell::CellDescription d, rack_->cell(c.cell)->Describe());
      paths_.push_back(fmt::format("{}/{}/{}.img", dir(), d.name, d.grid_disks[c.grid_disk].name));
      offsets_.push_back(c.disk_offset + kBlock * kBs - x[0].file_offset);
      disks_.push_back(d.grid_disks[c.grid_disk].name);
    }
    good_ = RawRead(paths_[1], offsets_[1], kBs);
    ASSERT_EQ(good_, RawRead(paths_[0], offsets_[0], kBs));
    ASSERT_EQ(good_[0], 0x06);  // a formatted data block, with its checksum
  }
  absl::Status ReadBlock(asmgr::AsmIoResult* r, std::vector<uint8_t>* out,
                         bool addresses = false) {
    out->assign(kBs, 0);
    std::vector<asmgr::AsmReadRequest> q(1);
    q[0].file_offset = kBlock * kBs;
    q[0].buffer = absl::MakeSpan(*out);
    q[0].verify_checksums = true;
    q[0].verify_addresses = addresses;
    absl::Status st = data_->Read(file_.number, absl::MakeSpan(q), r);
    failovers_ = q[0].failovers;
    return st;
  }
  static constexpr uint64_t kBlock = 5, kBs = 8192;
  asmgr::DiskGroup* data_ = nullptr;
  asmgr::FileInfo file_;
  std::vector<std::string> paths_, disks_;
  std::vector<uint64_t> offsets_;
  std::vector<uint8_t> good_;
  uint32_t failovers_ = 0;
};

TEST_F(BadBlock, FlippedByteInOneCopyIsServedFromTheMirrorAndRewritten) {
  FlipByte(paths_[0], offsets_[0] + 100);  // the primary copy
  std::vector<uint8_t> got;
  asmgr::AsmIoResult r1;
  ASSERT_OK(ReadBlock(&r1, &got));
  EXPECT_EQ(got, good_);
  EXPECT_EQ(failovers_, 1u);
  EXPECT_EQ(r1.bad_blocks_repaired, 1u);
  EXPECT_EQ(data_->View().bad_blocks_repaired, 1u);
  EXPECT_EQ(RawRead(paths_[0], offsets_[0], kBs), good_);  // the bad copy rewritten
  asmgr::AsmIoResult r2;
  ASSERT_OK(ReadBlock(&r2, &got));
  EXPECT_EQ(got, good_);
  EXPECT_EQ(failovers_, 0u);
  EXPECT_EQ(r2.bad_blocks_repaired, 0u);
  EXPECT_EQ(data_->View().bad_blocks_repaired, 1u);
  ASSERT_OK(ScrubClean(rack_.get()));
  EXPECT_EQ(OfflineDisks(rack_.get()), 0u);
  CloseAll();
}

// What no checksum catches: garbage without the checksum flag, and another
// block's bytes (a misdirected write: its own checksum is right). A reader of
// segment blocks (verify_addresses, as the database reads them) gets the
// mirror's copy, and the bad one is rewritten; a reader that only verifies
// checksums gets what the primary holds.
TEST_F(BadBlock, GarbageOrAnotherBlocksBytesInOneCopyIsServedFromTheMirror) {
  const std::vector<uint8_t> next = RawRead(paths_[0], offsets_[0] + kBs, kBs);
  ASSERT_EQ(next[0], 0x06);
  for (const std::vector<uint8_t>& bad : {std::vector<uint8_t>(kBs, 0x43), next}) {
    {
      std::fstream f(paths_[0], std::ios::in | std::ios::out | std::ios::binary);
      f.seekp(static_cast<std::streamoff>(offsets_[0]));
      f.write(reinterpret_cast<const char*>(bad.data()), static_cast<std::streamsize>(kBs));
    }
    std::vector<uint8_t> got;
    asmgr::AsmIoResult r0;
    ASSERT_OK(ReadBlock(&r0, &got, /*addresses=*/false));
    EXPECT_EQ(got, bad);  // nothing to fail: the primary's bytes
    asmgr::AsmIoResult r1;
    ASSERT_OK(ReadBlock(&r1, &got, /*addresses=*/true));
    EXPECT_EQ(got, good_);
    EXPECT_EQ(failovers_, 1u);
    EXPECT_EQ(r1.bad_blocks_repaired, 1u);
    EXPECT_EQ(RawRead(paths_[0], offsets_[0], kBs), good_);  // the bad copy rewritten
  }
  ASSERT_OK(ScrubClean(rack_.get()));
  CloseAll();
}

// Scrub judges copies by the block checks, not by which is the primary: the
// copy whose block fails its checksum, or holds another block's bytes, is the
// one reported and (with REPAIR) rewritten from the good one. A block of
// zeros against a good block passes the same checks: reported as not
// judged, and rewritten by neither.
TEST_F(BadBlock, ScrubRewritesTheCopyThatFailsTheBlockChecksEvenThePrimary) {
  const std::vector<uint8_t> next = RawRead(paths_[0], offsets_[0] + kBs, kBs);
  auto write_raw = [&](size_t copy, const std::vector<uint8_t>& bytes) {
    std::fstream f(paths_[copy], std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(offsets_[copy]));
    f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(kBs));
  };
  FlipByte(paths_[0], offsets_[0] + 100);  // the primary copy
  const std::vector<uint8_t> flipped = RawRead(paths_[0], offsets_[0], kBs);
  asmgr::ScrubResult sc;
  ASSERT_OK(data_->Scrub({}, &sc));
  ASSERT_EQ(sc.mismatches.size(), 1u);
  EXPECT_EQ(sc.mismatches[0].disk_a, disks_[1]);
  EXPECT_EQ(sc.mismatches[0].disk_b, disks_[0]);
  EXPECT_EQ(sc.mismatches[0].file_offset, kBlock * kBs + 100);
  EXPECT_TRUE(sc.mismatches[0].judged);
  EXPECT_EQ(sc.mismatches[0].reason, fmt::format("block {} fails its checksum", kBlock));
  EXPECT_EQ(RawRead(paths_[0], offsets_[0], kBs), flipped);  // no REPAIR: nothing rewritten
  const std::vector<std::pair<std::vector<uint8_t>, std::string>> bad = {
      {flipped, "fails its checksum"}, {next, "is not the block of its address"}};
  for (const auto& [bytes, why] : bad) {
    write_raw(0, bytes);
    asmgr::ScrubResult fix;
    ASSERT_OK(data_->Scrub({.repair = true}, &fix));
    ASSERT_EQ(fix.mismatches.size(), 1u) << why;
    EXPECT_THAT(fix.mismatches[0].reason, HasSubstr(why));
    EXPECT_TRUE(fix.mismatches[0].repaired);
    EXPECT_EQ(fix.repaired, 1u);
    EXPECT_EQ(RawRead(paths_[0], offsets_[0], kBs), good_) << why;
    EXPECT_EQ(RawRead(paths_[1], offsets_[1], kBs), good_) << why;
  }
  write_raw(1, std::vector<uint8_t>(kBs, 0));
  asmgr::ScrubResult tie;
  ASSERT_OK(data_->Scrub({.repair = true}, &tie));
  ASSERT_EQ(tie.mismatches.size(), 1u);
  EXPECT_FALSE(tie.mismatches[0].judged);
  EXPECT_THAT(tie.mismatches[0].reason, HasSubstr("cannot be told"));
  EXPECT_EQ(tie.repaired, 0u);
  EXPECT_EQ(RawRead(paths_[0], offsets_[0], kBs), good_);
  EXPECT_EQ(RawRead(paths_[1], offsets_[1], kBs), std::vector<uint8_t>(kBs, 0));
  write_raw(1, good_);
  // A block judged and one that cannot be, between the same two copies:
  // reported apart, and only the judged one is rewritten.
  FlipByte(paths_[1], offsets_[1] + 100);
  const std::vector<uint8_t> zeros(kBs, 0);
  {
    std::fstream f(paths_[1], std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(offsets_[1] + kBs));
    f.write(reinterpret_cast<const char*>(zeros.data()), static_cast<std::streamsize>(kBs));
  }
  asmgr::ScrubResult mixed;
  ASSERT_OK(data_->Scrub({.repair = true}, &mixed));
  ASSERT_EQ(mixed.mismatches.size(), 2u);
  EXPECT_TRUE(mixed.mismatches[0].judged);
  EXPECT_TRUE(mixed.mismatches[0].repaired);
  EXPECT_EQ(mixed.mismatches[0].blocks, 1u);
  EXPECT_FALSE(mixed.mismatches[1].judged);
  EXPECT_FALSE(mixed.mismatches[1].repaired);
  EXPECT_EQ(mixed.mismatches[1].blocks, 1u);
  EXPECT_EQ(mixed.repaired, 1u);
  EXPECT_EQ(RawRead(paths_[1], offsets_[1], kBs), good_);
  EXPECT_EQ(RawRead(paths_[1], offsets_[1] + kBs, kBs), zeros);
  {
    std::fstream f(paths_[1], std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(offsets_[1] + kBs));
    f.write(reinterpret_cast<const char*>(next.data()), static_cast<std::streamsize>(kBs));
  }
  ASSERT_OK(ScrubClean(rack_.get()));
  EXPECT_EQ(OfflineDisks(rack_.get()), 0u);
  CloseAll();
}

// The same through SQL: ALTER DISKGROUP ... SCRUB reports each differing
// copy as a row, REPAIR rewrites it, and a file or disk the group lacks is
// Oracle's error naming it.
TEST_F(BadBlock, AlterDiskgroupScrubReportsAndRepairs) {
  FlipByte(paths_[0], offsets_[0] + 100);
  auto s = db_->NewSession();
  ASSERT_OK_AND_ASSIGN(db::StatementResult found, s->Execute("alter diskgroup data scrub"));
  EXPECT_EQ(found.kind, "ALTER DISKGROUP SCRUB");
  EXPECT_EQ(found.headings,
            (std::vector<std::string>{"FILE", "EXTENT", "OFFSET", "KEPT", "DIFFERING", "BLOCKS",
                                      "REPAIRED", "REASON"}));
  ASSERT_EQ(found.result_rows.size(), 1u);
  EXPECT_EQ(found.result_rows[0],
            (std::vector<std::string>{file_.name, "0", std::to_string(kBlock * kBs + 100),
                                      disks_[1], disks_[0], "1", "NO",
                                      fmt::format("block {} fails its checksum", kBlock)}));
  EXPECT_THAT(found.feedback, HasSubstr("1 difference between copies: 1 judged"));
  EXPECT_THAT(found.feedback, HasSubstr("(REPAIR rewrites the judged ones)"));
  EXPECT_THAT(found.feedback, HasSubstr("Diskgroup altered."));
  ASSERT_OK_AND_ASSIGN(
      db::StatementResult fixed,
      s->Execute(fmt::format("alter diskgroup data scrub file '{}' repair power low wait",
                             absl::AsciiStrToLower(file_.name))));
  ASSERT_EQ(fixed.result_rows.size(), 1u);
  EXPECT_EQ(fixed.result_rows[0][6], "YES");
  EXPECT_THAT(fixed.feedback, HasSubstr("1 repaired."));
  EXPECT_EQ(RawRead(paths_[0], offsets_[0], kBs), good_);
  ASSERT_OK_AND_ASSIGN(db::StatementResult clean,
                       s->Execute(fmt::format("alter diskgroup data scrub disk {}", disks_[0])));
  EXPECT_TRUE(clean.result_rows.empty());
  EXPECT_THAT(clean.feedback, HasSubstr("every copy matches"));
  EXPECT_THAT(std::string(s->Execute("alter diskgroup data scrub disk nope").status().message()),
              HasSubstr("ORA-15054: disk \"NOPE\" does not exist in diskgroup \"DATA\""));
  EXPECT_THAT(
      std::string(
          s->Execute("alter diskgroup data scrub file '+DATA/X.1.1'").status().message()),
      HasSubstr("ORA-15012: ASM file '+DATA/X.1.1' does not exist"));
  EXPECT_THAT(std::string(s->Execute("alter diskgroup nope scrub").status().message()),
              HasSubstr("ORA-15001"));
  s.reset();
  CloseAll();
}

// A cancelled scrub (Ctrl-C sets the session's cancel flag) is ORA-01013
// saying how far it got; nothing after that point is rewritten, and a new
// SCRUB starts over.
TEST_F(BadBlock, CancelledScrubIsOra01013AndRepairsNothingAfterIt) {
  FlipByte(paths_[0], offsets_[0] + 100);
  auto s = db_->NewSession();
  CancelFlag cancel;
  s->SetCancelFlag(&cancel);
  cancel.Cancel();
  const absl::Status st = s->Execute("alter diskgroup data scrub repair").status();
  EXPECT_EQ(st.code(), absl::StatusCode::kCancelled);
  EXPECT_THAT(std::string(st.message()),
              HasSubstr("ORA-01013: user requested cancel of current operation: scrub of DATA "
                        "stopped after 0 of "));
  EXPECT_THAT(std::string(st.message()),
              HasSubstr("(0 differences found, 0 repaired; a new SCRUB starts over)"));
  EXPECT_NE(RawRead(paths_[0], offsets_[0], kBs), good_);
  cancel.Reset();
  ASSERT_OK_AND_ASSIGN(db::StatementResult fixed, s->Execute("alter diskgroup data scrub repair"));
  EXPECT_THAT(fixed.feedback, HasSubstr("1 repaired."));
  EXPECT_EQ(RawRead(paths_[0], offsets_[0], kBs), good_);
  s.reset();
  CloseAll();
}

TEST_F(BadBlock, EveryCopyBadIsDataLossNamingFileBlockAndDisks) {
  FlipByte(paths_[0], offsets_[0] + 200);
  FlipByte(paths_[1], offsets_[1] + 300);
  std::vector<uint8_t> got;
  asmgr::AsmIoResult r;
  absl::Status st = ReadBlock(&r, &got);
  ASSERT_EQ(st.code(), absl::StatusCode::kDataLoss) << st;
  const std::string msg(st.message());
  EXPECT_THAT(msg, HasSubstr("ORA-01578"));
  EXPECT_THAT(msg, HasSubstr(fmt::format("block {} of {}", kBlock, file_.name)));
  EXPECT_THAT(msg, HasSubstr(disks_[0]));
  EXPECT_THAT(msg, HasSubstr(disks_[1]));
  EXPECT_EQ(r.bad_blocks_repaired, 0u);
  // Nothing was "repaired" with bad data; both copies stay as they were.
  EXPECT_NE(RawRead(paths_[0], offsets_[0], kBs), good_);
  EXPECT_NE(RawRead(paths_[1], offsets_[1], kBs), good_);
  EXPECT_EQ(OfflineDisks(rack_.get()), 0u);
  CloseAll();
}

}  // namespace
}  // namespace cellsim::faults
