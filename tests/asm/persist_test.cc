// Disk-group metadata: reopen, refused operations leave nothing behind, the
// power-loss loop (every crash point of a workload), corrupt metadata.
#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>

#include "asm/fake_rack.h"
#include "cellsim/asm/disk_group.h"
#include "cellsim/base/units.h"
#include "cellsim/io/fault_injection.h"
#include "cellsim/io/io_backend.h"
#include "cellsim/io/io_backend_wrapper.h"
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

// Decides, per journal copy, how far the next append gets: not written,
// written but not synced, or written and synced. A refused write or sync fails
// with EIO and never reaches the target, so copy 1 can be made to hold a
// change copy 0 lacks however the two threads of an append interleave.
class JournalGate : public io::IoBackendWrapper {
 public:
  enum Reach : int { kNone, kWritten, kSynced };
  using IoBackendWrapper::IoBackendWrapper;
  void Arm(Reach copy0, Reach copy1) {
    reach_[0] = copy0;
    reach_[1] = copy1;
    armed_ = true;
  }
  void Disarm() { armed_ = false; }

  absl::Status Submit(absl::Span<io::IoRequest> requests) override {
    for (io::IoRequest& r : requests) {
      if (r.op == io::IoOp::kWrite && Refused(r.file, kWritten)) {
        for (io::IoRequest& q : requests) q.status = absl::InternalError("gate");
        return absl::UnavailableError("journal write refused by the test");
      }
    }
    return target()->Submit(requests);
  }
  absl::Status SubmitStream(absl::FunctionRef<bool(io::IoRequest&)> next,
                            absl::FunctionRef<void(io::IoRequest&)> on_complete) override {
    return IoBackend::SubmitStream(next, on_complete);
  }
  absl::Status Sync(io::FileHandle file, io::SyncKind kind) override {
    if (Refused(file, kSynced)) return absl::UnavailableError("journal sync refused by the test");
    return target()->Sync(file, kind);
  }

 private:
  // Whether an op needing `reach` on `file` is refused: only journal copies,
  // only while armed.
  bool Refused(io::FileHandle file, Reach reach) const {
    if (!armed_) return false;
    absl::StatusOr<std::string> path = PathOf(file);
    if (!path.ok()) return false;
    const int copy = path->ends_with(".journal1") ? 1 : path->ends_with(".journal") ? 0 : -1;
    return copy >= 0 && reach_[copy] < reach;
  }
  std::atomic<bool> armed_{false};
  std::atomic<int> reach_[2] = {kSynced, kSynced};
};

// Flips one byte of a journal copy, `fraction` of the way into it.
void DamageJournal(const std::string& path, double fraction) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  const auto at = static_cast<std::streamoff>(
      static_cast<double>(std::filesystem::file_size(path)) * fraction);
  f.seekg(at);
  const int old = f.get();
  f.seekp(at);
  f.put(static_cast<char>(old ^ 0xFF));
}

// The journal copies of one append are written and synced at once
// (meta_store.h). For every way an append can stop in each copy (not written,
// written, written and synced), and then a power loss (undoing every unsynced
// write, or keeping some of them), or a process death whose page cache
// survives until a power loss after the next open: the open shows every
// acknowledged change, the change in flight or not, and once an open has
// shown or dropped it every later open agrees, through a later append and
// through damage to either copy afterwards.
TEST(AsmPersistTest, JournalCopiesWrittenTogetherSurviveAnyCrash) {
  const FileSpec a{.db_name = "ORCL", .tag = "A", .size_bytes = 3 * kMiB};
  const FileSpec b{.db_name = "ORCL", .tag = "B", .size_bytes = 5 * kMiB};
  const FileSpec c{.db_name = "ORCL", .tag = "C", .size_bytes = 2 * kMiB};
  auto config = [](const FakeRack& rack) {
    DiskGroupConfig cfg = Config(rack);
    cfg.checkpoint_after_bytes = 1ull << 30;  // the journal alone carries the changes
    return cfg;
  };
  // Reference: the states without B and with it.
  Snapshot without_b, with_b;
  {
    FakeRack cells({3, 3, 3}, {{"DATA", 64 * kMiB}});
    cellsim::testing::TempDir dir;
    auto io = io::MakePosixBackend();
    ASSERT_OK_AND_ASSIGN(auto dg, DiskGroup::Create(cells.Env(io.get(), dir.path()), config(cells)));
    ASSERT_OK(dg->CreateFile(a).status());
    without_b = Take(*dg);
    ASSERT_OK(dg->CreateFile(b).status());
    with_b = Take(*dg);
  }
  ASSERT_FALSE(without_b == with_b);
  enum class Then { kPowerLoss, kReorderedPowerLoss, kDeathThenPowerLoss };
  int shown = 0, dropped = 0;
  for (int r0 = JournalGate::kNone; r0 <= JournalGate::kSynced; ++r0) {
    for (int r1 = JournalGate::kNone; r1 <= JournalGate::kSynced; ++r1) {
      for (Then then : {Then::kPowerLoss, Then::kReorderedPowerLoss, Then::kDeathThenPowerLoss}) {
        for (uint64_t seed = 1; seed <= (then == Then::kReorderedPowerLoss ? 8u : 1u); ++seed) {
          SCOPED_TRACE(fmt::format("copy 0 reach {}, copy 1 reach {}, then {}, seed {}", r0, r1,
                                   static_cast<int>(then), seed));
          FakeRack cells({3, 3, 3}, {{"DATA", 64 * kMiB}});
          cellsim::testing::TempDir dir;
          auto owned = std::make_unique<io::FaultInjectionBackend>(io::MakePosixBackend());
          io::FaultInjectionBackend* fault = owned.get();
          JournalGate gate(std::move(owned));
          const DiskGroupEnv env = cells.Env(&gate, dir.path());
          ASSERT_OK_AND_ASSIGN(auto dg, DiskGroup::Create(env, config(cells)));
          ASSERT_OK(dg->CreateFile(a).status());
          gate.Arm(static_cast<JournalGate::Reach>(r0), static_cast<JournalGate::Reach>(r1));
          const bool acked = dg->CreateFile(b).ok();
          gate.Disarm();
          EXPECT_EQ(acked, r0 == JournalGate::kSynced && r1 == JournalGate::kSynced);
          dg.reset();  // the process ends here, without Close()
          if (then == Then::kPowerLoss) ASSERT_OK(fault->SimulatePowerLoss());
          if (then == Then::kReorderedPowerLoss) ASSERT_OK(fault->SimulateReorderedPowerLoss(seed));
          ASSERT_OK_AND_ASSIGN(dg, DiskGroup::Open(env, "DATA"));
          const Snapshot first = Take(*dg);
          EXPECT_TRUE(first == with_b || (!acked && first == without_b)) << Describe(first);
          (first == with_b ? shown : dropped) += 1;
          if (then == Then::kDeathThenPowerLoss) {
            // What the first open showed may have come from the dead
            // writer's page cache: a power loss now must not change it.
            dg.reset();
            ASSERT_OK(fault->SimulatePowerLoss());
            ASSERT_OK_AND_ASSIGN(dg, DiskGroup::Open(env, "DATA"));
            EXPECT_TRUE(Take(*dg) == first) << Describe(Take(*dg)) << "\nwant " << Describe(first);
          }
          // A later append, acknowledged, then a power loss: B stays as the
          // first open decided, C is there.
          ASSERT_OK(dg->CreateFile(c).status());
          const Snapshot with_c = Take(*dg);
          dg.reset();
          ASSERT_OK(fault->SimulatePowerLoss());
          ASSERT_OK_AND_ASSIGN(dg, DiskGroup::Open(env, "DATA"));
          EXPECT_TRUE(Take(*dg) == with_c) << Describe(Take(*dg)) << "\nwant " << Describe(with_c);
          // Either copy damaged later (the other one first repairs it).
          for (const char* name : {"DATA.journal", "DATA.journal1"}) {
            dg.reset();
            DamageJournal(dir.File(name), 0.6);
            ASSERT_OK_AND_ASSIGN(dg, DiskGroup::Open(env, "DATA"));
            EXPECT_TRUE(Take(*dg) == with_c) << name << ": " << Describe(Take(*dg));
            ASSERT_EQ(dg->metadata_repairs().size(), 1u);
            EXPECT_THAT(dg->metadata_repairs()[0],
                        ::testing::StartsWith(dir.File(name) + " lacked changes"));
          }
          ASSERT_OK(dg->CheckConsistency());
        }
      }
    }
  }
  // Both outcomes of the change in flight occurred (a case that can only
  // keep or only drop it would not test the choice).
  EXPECT_GT(shown, 0);
  EXPECT_GT(dropped, 0);
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
  // One checkpoint slot damaged: rewritten from the other, and the message
  // names the file once, then why.
  {
    const std::string slot = dir.File("DATA.ckpt0");
    {
      std::fstream f(slot, std::ios::in | std::ios::out | std::ios::binary);
      f.seekp(static_cast<std::streamoff>(std::filesystem::file_size(slot) / 2));
      f.put('\x5A');
    }
    // Mounted read-only first: the damage is said and left as it is.
    {
      auto bytes = [](const std::string& path) { return ::cellsim::testing::ReadFileText(path); };
      const std::string damaged = bytes(slot);
      DiskGroupEnv read_only = env;
      read_only.read_only = true;
      ASSERT_OK_AND_ASSIGN(dg, DiskGroup::Open(read_only, "DATA"));
      EXPECT_EQ(dg->ListFiles().size(), 4u);
      ASSERT_EQ(dg->metadata_repairs().size(), 1u);
      EXPECT_THAT(dg->metadata_repairs()[0],
                  ::testing::MatchesRegex(slot + " is damaged \\([^/]*\\); read " +
                                          dir.File("DATA.ckpt1") + " \\(sequence [0-9]+\\) instead"));
      dg.reset();
      EXPECT_EQ(bytes(slot), damaged);
    }
    ASSERT_OK_AND_ASSIGN(dg, DiskGroup::Open(env, "DATA"));
    EXPECT_EQ(dg->ListFiles().size(), 4u);
    ASSERT_EQ(dg->metadata_repairs().size(), 1u);
    EXPECT_THAT(dg->metadata_repairs()[0],
                ::testing::MatchesRegex(slot + " was damaged \\([^/]*\\); rewritten from " +
                                        dir.File("DATA.ckpt1") + " \\(sequence [0-9]+\\)"));
    dg.reset();
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
