// Disk-group metadata: reopen, refused operations leave nothing behind, the
// power-loss loop (every crash point of a workload), corrupt metadata.
#include <filesystem>
#include <fstream>
#include <map>

#include "asm/fake_rack.h"
#include "cellsim/asm/disk_group.h"
#include "cellsim/base/units.h"
#include "cellsim/io/fault_injection.h"
#include "cellsim/io/io_backend.h"
#include "fmt/format.h"
#include "testing/test_util.h"

namespace cellsim::asmgr {
namespace {

using testing::FakeRack;

// Everything a disk group must remember, in comparable form.
struct Snapshot {
  std::map<uint32_t, std::string> names;
  std::map<uint32_t, uint64_t> sizes;
  std::map<uint32_t, std::vector<std::tuple<uint32_t, uint64_t, bool>>> copies;
  std::vector<std::tuple<std::string, uint64_t, uint64_t>> disks;  // state, used, stale
  SpaceInfo space;
  bool operator==(const Snapshot& o) const {
    return names == o.names && sizes == o.sizes && copies == o.copies && disks == o.disks &&
           space.free_mb == o.space.free_mb;
  }
};

Snapshot Take(const DiskGroup& dg) {
  Snapshot s;
  for (const FileInfo& f : dg.ListFiles()) {
    s.names[f.number] = f.name;
    s.sizes[f.number] = f.size_bytes;
    auto map = dg.ExtentMap(f.number);
    EXPECT_TRUE(map.ok());
    for (const Extent& e : *map) {
      for (const ExtentCopy& c : e.copies) {
        s.copies[f.number].emplace_back(c.disk, c.disk_offset, c.stale);
      }
    }
  }
  for (const DiskView& d : dg.Disks()) s.disks.emplace_back(d.mode_status, d.allocated_aus, d.stale_aus);
  s.space = dg.Space();
  return s;
}

// `got` is an intermediate state of a resync (OnlineDisk copies in batches,
// each committed, then marks the disk online): same files and maps, no more
// stale AUs than `ref` on each disk.
bool ResyncPrefix(const Snapshot& got, const Snapshot& ref) {
  if (got.names != ref.names || got.sizes != ref.sizes || got.disks.size() != ref.disks.size()) {
    return false;
  }
  for (size_t i = 0; i < got.disks.size(); ++i) {
    const auto& [gs, gu, gstale] = got.disks[i];
    const auto& [rs, ru, rstale] = ref.disks[i];
    if (gs != rs || gu != ru || gstale > rstale) return false;
  }
  return true;
}

std::string Describe(const Snapshot& s) {
  std::string out;
  for (const auto& [n, name] : s.names) out += fmt::format("{} {}; ", name, s.sizes.at(n));
  for (const auto& [st, used, stale] : s.disks) {
    out += fmt::format("{}/{}/{} ", st, used, stale);
  }
  return out;
}

DiskGroupConfig Config(const FakeRack& rack) {
  return {.name = "DATA", .redundancy = Redundancy::kNormal, .au_size = 1 * kMiB,
          .disks = rack.Disks(0), .max_partners = 8,
          .checkpoint_after_bytes = 1024};  // checkpoints often, inside the loop
}

// A deterministic workload touching every kind of metadata change. Calls
// `acked(i)` after operation i succeeded; stops at the first failure.
absl::Status Workload(DiskGroup* dg, const std::function<void(int)>& acked) {
  int step = 0;
  auto done = [&](absl::Status st) {
    if (st.ok()) acked(step++);
    return st;
  };
  std::vector<uint8_t> data(256 * kKiB, 0x5A);
  auto write = [&](uint32_t file, uint64_t off) {
    std::vector<AsmWriteRequest> w = {{.file_offset = off, .data = data}};
    return dg->Write(file, absl::MakeSpan(w), nullptr);
  };
  FileSpec a{.db_name = "ORCL", .type = FileType::kDataFile, .tag = "A", .size_bytes = 10 * kMiB};
  FileSpec b{.db_name = "ORCL", .type = FileType::kOnlineLog, .tag = "group_1",
             .size_bytes = 5 * kMiB, .block_size = 512};
  absl::Status st;
  if (!(st = done(dg->CreateFile(a).status())).ok()) return st;                 // 256
  if (!(st = done(dg->CreateFile(b).status())).ok()) return st;                 // 257
  if (!(st = done(write(256, 0))).ok()) return st;
  if (!(st = done(dg->OfflineDisk(2))).ok()) return st;
  if (!(st = done(write(256, 1 * kMiB))).ok()) return st;
  if (!(st = done(write(257, 3 * kMiB))).ok()) return st;
  if (!(st = done(write(256, 7 * kMiB))).ok()) return st;
  if (!(st = done(dg->ResizeFile(256, 14 * kMiB).status())).ok()) return st;
  if (!(st = done(dg->DeleteFile(257))).ok()) return st;
  FileSpec c{.db_name = "ORCL", .type = FileType::kDataFile, .tag = "C", .size_bytes = 3 * kMiB};
  if (!(st = done(dg->CreateFile(c).status())).ok()) return st;                 // 258
  if (!(st = done(dg->OnlineDisk(2, nullptr))).ok()) return st;
  if (!(st = done(dg->ResizeFile(256, 6 * kMiB).status())).ok()) return st;
  if (!(st = done(dg->OfflineDisk(0))).ok()) return st;
  if (!(st = done(write(258, 0))).ok()) return st;
  FileSpec d{.db_name = "ORCL", .type = FileType::kDataFile, .tag = "D", .size_bytes = 9 * kMiB};
  if (!(st = done(dg->CreateFile(d).status())).ok()) return st;
  return absl::OkStatus();
}

TEST(AsmPersistTest, ReopenKeepsDirectoryMapsAndDiskStates) {
  FakeRack rack({3, 3, 3}, {{"DATA", 64 * kMiB}});
  cellsim::testing::TempDir dir;
  auto io = io::MakePosixBackend();
  ASSERT_OK_AND_ASSIGN(auto dg, DiskGroup::Create(rack.Env(io.get(), dir.path()), Config(rack)));
  ASSERT_OK(Workload(dg.get(), [](int) {}));
  const Snapshot before = Take(*dg);
  EXPECT_GT(before.names.size(), 2u);
  dg.reset();  // no Close(): the journal alone must carry everything
  ASSERT_OK_AND_ASSIGN(dg, DiskGroup::Open(rack.Env(io.get(), dir.path()), "data"));
  EXPECT_EQ(Take(*dg), before) << Describe(Take(*dg)) << "\nvs\n" << Describe(before);
  ASSERT_OK(dg->CheckConsistency());
  ASSERT_OK(dg->Close());
  ASSERT_OK_AND_ASSIGN(dg, DiskGroup::Open(rack.Env(io.get(), dir.path()), "DATA"));
  EXPECT_EQ(Take(*dg), before);
}

TEST(AsmPersistTest, InvalidConfigurationsAreRefusedAndWriteNothing) {
  FakeRack rack({2, 2, 2}, {{"DATA", 64 * kMiB}, {"RECO", 64 * kMiB}});
  cellsim::testing::TempDir dir;
  auto io = io::MakePosixBackend();
  const DiskGroupEnv env = rack.Env(io.get(), dir.path());
  struct Case {
    DiskGroupConfig config;
    std::string message;
  };
  std::vector<Case> cases = {
      {{.name = "DATA", .redundancy = Redundancy::kNormal, .disks = {{0, 0}, {0, 2}}},
       "disk group DATA: NORMAL redundancy needs at least 2 failure groups, the disks given "
       "are in 1 (cel01)"},
      {{.name = "DATA", .redundancy = Redundancy::kHigh, .disks = {{0, 0}, {1, 0}}},
       "disk group DATA: HIGH redundancy needs at least 3 failure groups, the disks given are "
       "in 2 (cel01, cel02)"},
      {{.name = "DATA", .au_size = 3 * kMiB, .disks = rack.Disks(0)},
       "disk group DATA: AU size 3 MiB is not one of 1, 2, 4, 8, 16, 32, 64 MiB"},
      {{.name = "DATA", .au_size = 128 * kMiB, .disks = rack.Disks(0)},
       "disk group DATA: AU size 128 MiB is not one of 1, 2, 4, 8, 16, 32, 64 MiB"},
      {{.name = "DATA", .disks = {{0, 0}, {1, 0}, {0, 0}}},
       "disk group DATA: disk DATA_CD_00_cel01 is listed twice"},
      {{.name = "DATA", .disks = {{0, 0}, {5, 0}}},
       "disk group DATA: cell 5 does not exist (the rack has 3 cells)"},
      {{.name = "DATA", .disks = {{0, 0}, {1, 9}}},
       "disk group DATA: grid disk 9 of cel02 does not exist (it has 4)"},
      {{.name = "9DATA", .disks = rack.Disks(0)},
       "disk group name '9DATA' must be 1..30 letters, digits or '_', starting with a letter"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<std::unique_ptr<DiskGroup>> dg = DiskGroup::Create(env, c.config);
    ASSERT_FALSE(dg.ok()) << c.message;
    EXPECT_EQ(dg.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(std::string(dg.status().message()), c.message);
  }
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
  EXPECT_EQ(DiskGroup::Open(env, "DATA").status().code(), absl::StatusCode::kNotFound);
  // A second group of the same name in the same place is refused too.
  ASSERT_OK(DiskGroup::Create(env, {.name = "DATA", .disks = rack.Disks(0)}).status());
  EXPECT_EQ(DiskGroup::Create(env, {.name = "DATA", .disks = rack.Disks(1)}).status().code(),
            absl::StatusCode::kAlreadyExists);
}

TEST(AsmPersistTest, OutOfSpaceAllocatesNothingEvenAfterReopen) {
  FakeRack rack({2, 2, 2}, {{"DATA", 32 * kMiB}});
  cellsim::testing::TempDir dir;
  auto io = io::MakePosixBackend();
  const DiskGroupEnv env = rack.Env(io.get(), dir.path());
  ASSERT_OK_AND_ASSIGN(auto dg, DiskGroup::Create(env, {.name = "DATA", .au_size = 1 * kMiB,
                                                        .disks = rack.Disks(0)}));
  // 6 disks x 32 AUs = 192 MiB raw, 96 MiB with 2 copies.
  SpaceInfo s = dg->Space();
  EXPECT_EQ(s.total_mb, 192u);
  EXPECT_EQ(s.free_mb, 192u);
  EXPECT_EQ(s.required_mirror_free_mb, 64u);  // one cell
  EXPECT_EQ(s.usable_file_mb, 64);
  ASSERT_OK_AND_ASSIGN(FileInfo f, dg->CreateFile({.db_name = "ORCL", .tag = "BIG",
                                                   .size_bytes = 84 * kMiB}));
  s = dg->Space();
  EXPECT_EQ(s.free_mb, 24u);
  EXPECT_EQ(s.usable_file_mb, -20);  // (24 - 64) / 2: below the failure reserve
  const Snapshot before = Take(*dg);
  const uint64_t seq = dg->metadata_sequence();
  absl::StatusOr<FileInfo> big = dg->CreateFile({.db_name = "ORCL", .type = FileType::kOnlineLog,
                                                 .tag = "group_5", .size_bytes = 8192 * kMiB});
  EXPECT_EQ(big.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(std::string(big.status().message()),
            "disk group DATA has 12 MiB usable free (24 MiB raw, NORMAL redundancy), 8192 MiB "
            "requested for +DATA/ORCL/ONLINELOG/group_5");
  absl::StatusOr<FileInfo> grow = dg->ResizeFile(f.number, 100 * kMiB);
  EXPECT_EQ(grow.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(std::string(grow.status().message()),
            "disk group DATA has 12 MiB usable free (24 MiB raw, NORMAL redundancy), 16 MiB "
            "requested to grow " + f.name + " to 100 MiB");
  EXPECT_EQ(dg->metadata_sequence(), seq);
  EXPECT_EQ(Take(*dg), before);
  dg.reset();
  ASSERT_OK_AND_ASSIGN(dg, DiskGroup::Open(env, "DATA"));
  EXPECT_EQ(Take(*dg), before);
  ASSERT_OK(dg->CheckConsistency());
  // What does fit still fits (not all 12 MiB: mirrors must sit on partners,
  // so the last free AUs are not always pairable).
  ASSERT_OK(dg->CreateFile({.db_name = "ORCL", .tag = "SMALL", .size_bytes = 8 * kMiB}).status());
}

TEST(AsmPersistTest, PowerLossLoopLeaksNothing) {
  FakeRack rack({3, 3, 3}, {{"DATA", 64 * kMiB}});
  // Reference run: the state after each acknowledged operation.
  std::vector<Snapshot> ref;
  uint64_t cut_points = 0;
  {
    cellsim::testing::TempDir dir;
    auto fault = std::make_unique<io::FaultInjectionBackend>(io::MakePosixBackend());
    ASSERT_OK_AND_ASSIGN(auto dg, DiskGroup::Create(rack.Env(fault.get(), dir.path()), Config(rack)));
    ref.push_back(Take(*dg));
    fault->CrashAfter({.ops = io::kOpWrite | io::kOpSync | io::kOpTruncate,
                       .path_substring = dir.path()}, UINT64_MAX / 2);
    ASSERT_OK(Workload(dg.get(), [&](int) { ref.push_back(Take(*dg)); }));
    cut_points = fault->CrashFilterMatches();
  }
  ASSERT_GT(cut_points, 20u);
  int crashed = 0;
  for (uint64_t k = 0; k <= cut_points; ++k) {
    SCOPED_TRACE(k);
    FakeRack cells({3, 3, 3}, {{"DATA", 64 * kMiB}});
    cellsim::testing::TempDir dir;
    auto fault = std::make_unique<io::FaultInjectionBackend>(io::MakePosixBackend());
    const DiskGroupEnv env = cells.Env(fault.get(), dir.path());
    ASSERT_OK_AND_ASSIGN(auto dg, DiskGroup::Create(env, Config(cells)));
    fault->CrashAfter({.ops = io::kOpWrite | io::kOpSync | io::kOpTruncate,
                       .path_substring = dir.path()}, k);
    int acked = 0;
    absl::Status st = Workload(dg.get(), [&](int i) { acked = i + 1; });
    dg.reset();
    ASSERT_OK(fault->SimulatePowerLoss());
    fault->ClearFaults();
    ASSERT_OK_AND_ASSIGN(dg, DiskGroup::Open(env, "DATA"));
    ASSERT_OK(dg->CheckConsistency());
    const Snapshot got = Take(*dg);
    // Every acknowledged change is there; the one in flight may or may not be.
    const bool before = got == ref[acked];
    const bool after = !st.ok() && static_cast<size_t>(acked) + 1 < ref.size() &&
                       got == ref[acked + 1];
    // Operation 10 is OnlineDisk: a crash inside it may leave some stale AUs
    // already copied (and cleared) while the disk is still offline.
    const bool partial_resync = !st.ok() && acked == 10 && ResyncPrefix(got, ref[acked]);
    EXPECT_TRUE(before || after || partial_resync)
        << "acked " << acked << ": " << Describe(got) << "\nwant " << Describe(ref[acked]);
    crashed += st.ok() ? 0 : 1;
    // Nothing leaked: the free space is the total minus what the maps hold.
    uint64_t held = 0;
    for (const auto& [n, copies] : got.copies) held += copies.size();
    EXPECT_EQ(got.space.free_mb, got.space.total_mb - held);
    // And the group keeps working after recovery.
    ASSERT_OK(dg->CreateFile({.db_name = "ORCL", .tag = "AFTER", .size_bytes = 2 * kMiB}).status());
    ASSERT_OK(dg->CheckConsistency());
  }
  // Every cut point but the last few (after the final sync) failed the workload.
  EXPECT_GT(crashed, static_cast<int>(cut_points) / 2);
}

TEST(AsmPersistTest, CorruptMetadataIsDetected) {
  FakeRack rack({2, 2}, {{"DATA", 64 * kMiB}});
  cellsim::testing::TempDir dir;
  auto io = io::MakePosixBackend();
  const DiskGroupEnv env = rack.Env(io.get(), dir.path());
  DiskGroupConfig cfg{.name = "DATA", .au_size = 1 * kMiB, .disks = rack.Disks(0),
                      .max_partners = 8, .checkpoint_after_bytes = 1ull << 30};
  ASSERT_OK_AND_ASSIGN(auto dg, DiskGroup::Create(env, cfg));
  for (int i = 0; i < 4; ++i) {
    ASSERT_OK(dg->CreateFile({.db_name = "ORCL", .tag = fmt::format("F{}", i),
                              .size_bytes = 2 * kMiB}).status());
  }
  dg.reset();
  // Flip a byte inside the third record of one journal copy, then of the
  // other: each time the intact copy supplies it and the damaged one is
  // rewritten; no acknowledged change is lost.
  for (const char* name : {"DATA.journal", "DATA.journal1"}) {
    const std::string journal = dir.File(name);
    const uint64_t size = std::filesystem::file_size(journal);
    {
      std::fstream f(journal, std::ios::in | std::ios::out | std::ios::binary);
      f.seekp(static_cast<std::streamoff>(size * 5 / 8));
      f.put('\x77');
    }
    ASSERT_OK_AND_ASSIGN(dg, DiskGroup::Open(env, "DATA"));
    EXPECT_EQ(dg->ListFiles().size(), 4u);
    ASSERT_EQ(dg->metadata_repairs().size(), 1u);
    EXPECT_THAT(dg->metadata_repairs()[0], ::testing::HasSubstr(journal));
    ASSERT_OK(dg->CheckConsistency());
    dg.reset();  // no Close: the journal stays for the next round
  }
  // The same record damaged in both copies at once: the changes after it
  // cannot be proven lost or kept, refused naming the journal.
  for (const char* name : {"DATA.journal", "DATA.journal1"}) {
    std::fstream f(dir.File(name), std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(std::filesystem::file_size(dir.File(name)) / 4));
    f.put(name[12] == '1' ? '\x55' : '\x66');
  }
  absl::StatusOr<std::unique_ptr<DiskGroup>> torn = DiskGroup::Open(env, "DATA");
  EXPECT_EQ(torn.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(std::string(torn.status().message()), ::testing::HasSubstr("is damaged at byte"));
  // Both checkpoint slots damaged: a clear DataLoss, no crash.
  for (const char* slot : {"DATA.ckpt0", "DATA.ckpt1"}) {
    std::ofstream(dir.File(slot), std::ios::binary) << "garbage";
  }
  absl::StatusOr<std::unique_ptr<DiskGroup>> bad = DiskGroup::Open(env, "DATA");
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(std::string(bad.status().message()),
              ::testing::HasSubstr("disk group DATA checkpoint: no valid copy"));
}

}  // namespace
}  // namespace cellsim::asmgr
