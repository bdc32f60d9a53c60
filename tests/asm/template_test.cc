// ASM file templates: every file has its own redundancy, from its type's
// system template in its disk group (a CONTROLFILE is HIGH, 3-way, in a NORMAL
// group), and allocation, I/O, resync, scrub, deletion, the views and the
// metadata (including the format of racks made before) follow the file's copies.
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>

#include "asm/fake_rack.h"
#include "cellsim/asm/catalog.h"
#include "cellsim/asm/disk_group.h"
#include "cellsim/base/units.h"
#include "cellsim/io/io_backend.h"
#include "fmt/format.h"
#include "gmock/gmock.h"
#include "testing/test_util.h"

namespace cellsim::asmgr {
namespace {

using ::testing::HasSubstr;
using testing::FakeRack;

DiskGroupConfig Config(const FakeRack& rack, Redundancy r) {
  return {.name = "DATA", .redundancy = r, .au_size = 1 * kMiB, .disks = rack.Disks(0),
          .max_partners = 8};
}

FileSpec Spec(FileType type, const std::string& tag, uint64_t size = 3 * kMiB) {
  return {.db_name = "ORCL", .type = type, .tag = tag, .size_bytes = size};
}

// Every extent of `f` has `copies` copies, each in its own failure group.
void ExpectCopies(const DiskGroup& dg, const FileInfo& f, uint32_t copies) {
  ASSERT_OK_AND_ASSIGN(std::vector<Extent> map, dg.ExtentMap(f.number));
  ASSERT_EQ(map.size(), f.extents);
  for (const Extent& e : map) {
    std::set<uint32_t> cells;
    for (const ExtentCopy& c : e.copies) cells.insert(c.cell);
    EXPECT_EQ(e.copies.size(), copies) << f.name << " extent " << e.index;
    EXPECT_EQ(cells.size(), copies) << f.name << " extent " << e.index;
  }
}

uint64_t AllocatedAus(const DiskGroup& dg) {
  uint64_t n = 0;
  for (const DiskView& d : dg.Disks()) n += d.allocated_aus;
  return n;
}

using ::cellsim::testing::ReadFileBytes;

void WriteAll(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

TEST(AsmTemplateTest, SystemTemplatesFollowOraclesDefaults) {
  for (const TemplateView& t : SystemTemplates(Redundancy::kNormal)) {
    EXPECT_EQ(FileRedundancyName(t.redundancy),
              t.type == FileType::kControlFile ? "HIGH" : "MIRROR") << t.name;
    EXPECT_EQ(t.stripe, t.type == FileType::kControlFile ? "FINE" : "COARSE") << t.name;
  }
  for (const TemplateView& t : SystemTemplates(Redundancy::kExternal)) {
    EXPECT_EQ(FileRedundancyName(t.redundancy), "UNPROT") << t.name;
  }
  for (const TemplateView& t : SystemTemplates(Redundancy::kHigh)) {
    EXPECT_EQ(FileRedundancyName(t.redundancy), "HIGH") << t.name;
  }
  EXPECT_EQ(SystemTemplates(Redundancy::kNormal).size(), 6u);
  EXPECT_EQ(PlacedCopies(Redundancy::kHigh, 2, 8), 2u);  // lowered: two failure groups
  EXPECT_EQ(PlacedCopies(Redundancy::kHigh, 3, 1), 2u);  // one partner each
  EXPECT_EQ(PlacedCopies(Redundancy::kNormal, 3, 8), 2u);
}

TEST(AsmTemplateTest, EachFileGetsItsTypesRedundancy) {
  struct Case {
    Redundancy group;
    uint32_t control, other;
  };
  for (const Case& c : {Case{Redundancy::kNormal, 3, 2}, Case{Redundancy::kHigh, 3, 3},
                        Case{Redundancy::kExternal, 1, 1}}) {
    SCOPED_TRACE(RedundancyName(c.group));
    FakeRack rack({2, 2, 2}, {{"DATA", 32 * kMiB}});
    cellsim::testing::TempDir dir;
    auto io = io::MakePosixBackend();
    ASSERT_OK_AND_ASSIGN(auto dg,
                         DiskGroup::Create(rack.Env(io.get(), dir.path()), Config(rack, c.group)));
    const uint64_t free_before = dg->Space().free_mb;
    ASSERT_OK_AND_ASSIGN(FileInfo cf, dg->CreateFile(Spec(FileType::kControlFile, "Current")));
    ASSERT_OK_AND_ASSIGN(FileInfo log, dg->CreateFile(Spec(FileType::kOnlineLog, "group_1")));
    ASSERT_OK_AND_ASSIGN(FileInfo df, dg->CreateFile(Spec(FileType::kDataFile, "USERS")));
    EXPECT_EQ(cf.copies, c.control);
    EXPECT_EQ(cf.redundancy, TemplateRedundancy(c.group, FileType::kControlFile));
    EXPECT_FALSE(cf.redundancy_lowered());
    EXPECT_EQ(log.copies, c.other);
    EXPECT_EQ(df.copies, c.other);
    ExpectCopies(*dg, cf, c.control);
    ExpectCopies(*dg, log, c.other);
    ExpectCopies(*dg, df, c.other);
    EXPECT_EQ(AllocatedAus(*dg), 3 * (c.control + 2 * c.other));
    EXPECT_EQ(free_before - dg->Space().free_mb, 3 * (c.control + 2 * c.other));
    for (const FileView& v : dg->Files()) {
      const bool control = v.type == "CONTROLFILE";
      EXPECT_EQ(v.copies, control ? c.control : c.other) << v.name;
      EXPECT_EQ(v.redundancy, c.group == Redundancy::kExternal ? "UNPROT"
                              : c.group == Redundancy::kHigh || control ? "HIGH"
                                                                        : "MIRROR")
          << v.name;
      EXPECT_EQ(v.striped, control ? "FINE" : "COARSE") << v.name;
      EXPECT_EQ(v.space, 3 * kMiB * v.copies) << v.name;
    }
    ASSERT_OK(dg->CheckConsistency());
    // Growing a control file keeps its 3 copies; deleting frees every one.
    ASSERT_OK_AND_ASSIGN(cf, dg->ResizeFile(cf.number, 5 * kMiB));
    ExpectCopies(*dg, cf, c.control);
    ASSERT_OK(dg->DeleteFile(cf.number));
    EXPECT_EQ(AllocatedAus(*dg), 3 * 2 * c.other);
    ASSERT_OK(dg->CheckConsistency());
  }
}

TEST(AsmTemplateTest, NormalGroupOfTwoFailureGroupsLowersAHighFile) {
  // Oracle: a HIGH file in a NORMAL group of two failure groups keeps two
  // copies, V$ASM_FILE.REDUNDANCY_LOWERED = Y (its template stays HIGH).
  FakeRack rack({2, 2}, {{"DATA", 32 * kMiB}});
  cellsim::testing::TempDir dir;
  auto io = io::MakePosixBackend();
  ASSERT_OK_AND_ASSIGN(auto dg, DiskGroup::Create(rack.Env(io.get(), dir.path()),
                                                  Config(rack, Redundancy::kNormal)));
  ASSERT_OK_AND_ASSIGN(FileInfo cf, dg->CreateFile(Spec(FileType::kControlFile, "Current")));
  EXPECT_EQ(cf.redundancy, Redundancy::kHigh);
  EXPECT_EQ(cf.copies, 2u);
  EXPECT_TRUE(cf.redundancy_lowered());
  ExpectCopies(*dg, cf, 2);
  ASSERT_EQ(dg->Files().size(), 1u);
  EXPECT_EQ(dg->Files()[0].redundancy, "HIGH");
  EXPECT_TRUE(dg->Files()[0].redundancy_lowered);
  ASSERT_OK(dg->CheckConsistency());
}

// A NORMAL group of three one-disk failure groups with a 2 MiB control file
// (three copies, from its template) holding `data`; `written` the write's
// result.
struct ThreeCopies {
  FakeRack rack{{1, 1, 1}, {{"DATA", 16 * kMiB}}};
  cellsim::testing::TempDir dir;
  std::unique_ptr<io::IoBackend> io = io::MakePosixBackend();
  std::unique_ptr<DiskGroup> dg;
  FileInfo cf;
  std::vector<uint8_t> data;
  uint32_t copies_written = 0;
  AsmIoResult written;

  void Create() {
    ASSERT_OK_AND_ASSIGN(dg, DiskGroup::Create(rack.Env(io.get(), dir.path()),
                                               Config(rack, Redundancy::kNormal)));
    ASSERT_OK_AND_ASSIGN(cf, dg->CreateFile(Spec(FileType::kControlFile, "Current", 2 * kMiB)));
    data.resize(2 * kMiB);
    for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i * 7 + 1);
    std::vector<AsmWriteRequest> w = {{.file_offset = 0, .data = data}};
    ASSERT_OK(dg->Write(cf.number, absl::MakeSpan(w), &written));
    copies_written = w[0].copies_written;
  }
};

TEST(AsmTemplateTest, ThreeCopiesAreWrittenReadResyncedAndScrubbed) {
  ThreeCopies t;
  ASSERT_NO_FATAL_FAILURE(t.Create());
  FakeRack& rack = t.rack;
  DiskGroup* dg = t.dg.get();
  const FileInfo& cf = t.cf;
  std::vector<uint8_t>& data = t.data;
  std::vector<AsmWriteRequest> w = {{.file_offset = 0, .data = data}};
  EXPECT_EQ(t.copies_written, 3u);
  EXPECT_EQ(t.written.io.cell_requests, 2u * 3);  // 2 extents x 3 copies
  // Two of the three failure groups fail: a NORMAL group's data file could not
  // stay readable, the 3-way control file does. (A DBA could not take them
  // offline: ASM refuses the second, ORA-15066, as the group keeps 2 copies.)
  ASSERT_OK(dg->OfflineDisk(0));
  EXPECT_THAT(dg->OfflineDisk(1).message(), HasSubstr("ORA-15066"));
  ASSERT_OK(dg->OnlineDisk(0, nullptr));
  // A write meanwhile lands on the one copy that takes it, takes the failed
  // disks offline and marks their copies stale.
  rack.cell(0).FailWrites(0, true);
  rack.cell(1).FailWrites(0, true);
  for (uint8_t& b : data) b ^= 0x5a;
  AsmIoResult wr2;
  ASSERT_OK(dg->Write(cf.number, absl::MakeSpan(w), &wr2));
  EXPECT_EQ(wr2.disks_taken_offline.size(), 2u);
  EXPECT_EQ(dg->Disks()[0].mode_status, "OFFLINE");
  EXPECT_EQ(dg->Disks()[1].mode_status, "OFFLINE");
  std::vector<uint8_t> back(data.size());
  std::vector<AsmReadRequest> r = {{.file_offset = 0, .buffer = absl::MakeSpan(back)}};
  ASSERT_OK(dg->Read(cf.number, absl::MakeSpan(r), nullptr));
  EXPECT_EQ(back, data);
  rack.cell(0).FailWrites(0, false);
  rack.cell(1).FailWrites(0, false);
  ResyncResult rs;
  ASSERT_OK(dg->OnlineAll(&rs));
  EXPECT_EQ(rs.extents_copied, 2u * 2);
  ScrubResult sc;
  ASSERT_OK(dg->Scrub({}, &sc));
  EXPECT_EQ(sc.extents_checked, 2u);
  EXPECT_EQ(sc.copies_compared, 2u * 2);  // copies 1 and 2 against copy 0
  EXPECT_TRUE(sc.mismatches.empty());
  // Every copy holds the new data: read with only one failure group readable
  // each time.
  for (uint32_t keep = 0; keep < 3; ++keep) {
    for (uint32_t d = 0; d < 3; ++d) rack.cell(d).FailReads(0, d != keep);
    std::fill(back.begin(), back.end(), 0);
    ASSERT_OK(dg->Read(cf.number, absl::MakeSpan(r), nullptr));
    EXPECT_EQ(back, data) << "copy on disk " << keep;
  }
  for (uint32_t d = 0; d < 3; ++d) rack.cell(d).FailReads(0, false);
  ASSERT_OK(dg->CheckConsistency());
}

// Three copies (a control file's template), one of them damaged: the two
// that agree are kept and REPAIR rewrites the third from them, though it is
// the primary.
TEST(AsmTemplateTest, ScrubRepairsTheCopyTwoOthersOutvote) {
  ThreeCopies t;
  ASSERT_NO_FATAL_FAILURE(t.Create());
  ASSERT_OK_AND_ASSIGN(std::vector<Extent> map, t.dg->ExtentMap(t.cf.number, kMiB, 1));
  const ExtentCopy primary = map[0].copies[0];
  t.rack.cell(primary.cell).Corrupt(primary.grid_disk, primary.disk_offset + 4096 + 10);
  ScrubResult sc;
  ASSERT_OK(t.dg->Scrub({}, &sc));
  ASSERT_EQ(sc.mismatches.size(), 1u);  // the damaged copy against the first that agree
  for (const ScrubMismatch& m : sc.mismatches) {
    EXPECT_EQ(m.file_offset, kMiB + 4096 + 10);
    EXPECT_EQ(m.disk_b, t.dg->Disks()[primary.disk].name);
    EXPECT_NE(m.disk_a, m.disk_b);
    EXPECT_TRUE(m.judged);
    EXPECT_THAT(m.reason, HasSubstr("2 copies agree on"));
    EXPECT_FALSE(m.repaired);
  }
  ScrubResult fix;
  ASSERT_OK(t.dg->Scrub({.repair = true}, &fix));
  EXPECT_EQ(fix.repaired, 1u);
  std::vector<uint8_t> back(t.data.size());
  std::vector<AsmReadRequest> r = {
      {.file_offset = 0, .buffer = absl::MakeSpan(back), .copy = 0}};
  ASSERT_OK(t.dg->Read(t.cf.number, absl::MakeSpan(r), nullptr));
  EXPECT_EQ(back, t.data);
  ScrubResult again;
  ASSERT_OK(t.dg->Scrub({}, &again));
  EXPECT_TRUE(again.mismatches.empty());
}

TEST(AsmTemplateTest, ReopenKeepsEachFilesRedundancy) {
  FakeRack rack({2, 2, 2}, {{"DATA", 32 * kMiB}});
  cellsim::testing::TempDir dir;
  auto io = io::MakePosixBackend();
  const DiskGroupEnv env = rack.Env(io.get(), dir.path());
  ASSERT_OK_AND_ASSIGN(auto dg, DiskGroup::Create(env, Config(rack, Redundancy::kNormal)));
  ASSERT_OK(dg->CreateFile(Spec(FileType::kControlFile, "Current")).status());
  ASSERT_OK(dg->CreateFile(Spec(FileType::kDataFile, "USERS")).status());
  auto copies_of = [](const DiskGroup& g) {
    std::vector<std::pair<std::string, uint32_t>> out;
    for (const FileInfo& f : g.ListFiles()) out.emplace_back(f.name, f.copies);
    return out;
  };
  const auto before = copies_of(*dg);
  ASSERT_EQ(before.size(), 2u);
  EXPECT_EQ(before[0].second, 3u);
  dg.reset();  // the journal alone
  ASSERT_OK_AND_ASSIGN(dg, DiskGroup::Open(env, "DATA"));
  EXPECT_EQ(copies_of(*dg), before);
  ASSERT_OK(dg->CheckConsistency());
  ASSERT_OK(dg->Close());  // the checkpoint alone
  ASSERT_OK_AND_ASSIGN(dg, DiskGroup::Open(env, "DATA"));
  EXPECT_EQ(copies_of(*dg), before);
  ASSERT_OK(dg->CheckConsistency());
}

// A rack made before per-file redundancy: checkpoint version 1 and create-file
// records of type 1, where every file is mirrored as its group.
TEST(AsmTemplateTest, FormatOfEarlierRacksOpensWithTheGroupsCopies) {
  FakeRack rack({2, 2, 2}, {{"DATA", 32 * kMiB}});
  cellsim::testing::TempDir dir;
  auto io = io::MakePosixBackend();
  const DiskGroupEnv env = rack.Env(io.get(), dir.path());
  ASSERT_OK_AND_ASSIGN(auto dg, DiskGroup::Create(env, Config(rack, Redundancy::kNormal)));
  ASSERT_OK(dg->CreateFile(Spec(FileType::kDataFile, "USERS")).status());
  ASSERT_OK(dg->Close());
  dg.reset();
  // Rewrite both checkpoint slots in version 1.
  ASSERT_OK_AND_ASSIGN(internal::Catalog cat,
                       internal::Catalog::DecodeCheckpoint(ReadFileBytes(dir.File("DATA.ckpt0")), "ckpt0"));
  const std::vector<uint8_t> v1 = cat.EncodeCheckpoint(1);
  EXPECT_EQ(v1.size() + 2, cat.EncodeCheckpoint().size());  // 2 bytes per file
  WriteAll(dir.File("DATA.ckpt0"), v1);
  WriteAll(dir.File("DATA.ckpt1"), v1);
  ASSERT_OK_AND_ASSIGN(dg, DiskGroup::Open(env, "DATA"));
  ASSERT_EQ(dg->ListFiles().size(), 1u);
  EXPECT_EQ(dg->ListFiles()[0].copies, 2u);
  EXPECT_EQ(dg->ListFiles()[0].redundancy, Redundancy::kNormal);
  ASSERT_OK(dg->CheckConsistency());
  // New files get their template; the next checkpoint is version 2.
  ASSERT_OK_AND_ASSIGN(FileInfo cf, dg->CreateFile(Spec(FileType::kControlFile, "Current")));
  EXPECT_EQ(cf.copies, 3u);
  ASSERT_OK(dg->Close());
  ASSERT_OK_AND_ASSIGN(dg, DiskGroup::Open(env, "DATA"));
  ASSERT_OK_AND_ASSIGN(FileInfo again, dg->LookupFile(cf.number));
  EXPECT_EQ(again.copies, 3u);

  // A version-1 journal record (type 1) replays with the group's copies.
  internal::Catalog c = cat;
  const uint64_t seq = c.seq;
  Encoder e;
  e.PutU8(1);
  FileInfo old{.number = 400, .incarnation = 5, .name = "+DATA/ORCL/CONTROLFILE/Current.400.5",
               .db_name = "ORCL", .type = FileType::kControlFile, .tag = "Current",
               .size_bytes = kMiB, .block_size = 16384};
  internal::Catalog::EncodeFileInfo(&e, old);
  e.PutU32(1);  // one extent, two copies (the group's)
  const uint32_t partner = c.disks[0].partners.front();
  e.PutU32(0);
  e.PutU32(c.disks[0].first_free);
  e.PutU32(partner);
  e.PutU32(c.disks[partner].first_free);
  ASSERT_OK(c.Apply(seq + 1, e.data()));
  EXPECT_EQ(c.files.at(400).copies(), 2u);
  EXPECT_EQ(c.files.at(400).info.redundancy, Redundancy::kNormal);
}

// A create record's AUs: each disk's in any order is accepted (allocation
// hands them out ascending, older or other writers need not), one named
// twice in the record is DataLoss naming it, and nothing is applied then.
TEST(AsmTemplateTest, CreateRecordNamingAnAuTwiceIsDataLoss) {
  FakeRack rack({2, 2, 2}, {{"DATA", 32 * kMiB}});
  cellsim::testing::TempDir dir;
  auto io = io::MakePosixBackend();
  ASSERT_OK_AND_ASSIGN(auto dg, DiskGroup::Create(rack.Env(io.get(), dir.path()),
                                                  Config(rack, Redundancy::kNormal)));
  ASSERT_OK(dg->Close());
  dg.reset();
  ASSERT_OK_AND_ASSIGN(internal::Catalog cat,
                       internal::Catalog::DecodeCheckpoint(ReadFileBytes(dir.File("DATA.ckpt0")), "ckpt0"));
  const uint32_t partner = cat.disks[0].partners.front();
  // Three extents of two copies: disk 0 AUs a0, a1, a2 and the partner's 5, 6, 7.
  auto record = [&](uint32_t a0, uint32_t a1, uint32_t a2) {
    Encoder e;
    e.PutU8(static_cast<uint8_t>(internal::RecordType::kCreateFile));
    internal::Catalog::EncodeFileInfo(
        &e, FileInfo{.number = 400, .incarnation = 5, .name = "+DATA/ORCL/DATAFILE/X.400.5",
                     .db_name = "ORCL", .type = FileType::kDataFile, .tag = "X",
                     .size_bytes = 3 * kMiB, .block_size = 8192});
    e.PutU8(static_cast<uint8_t>(Redundancy::kNormal));
    e.PutU8(2);
    e.PutU32(3);
    uint32_t partner_au = 5;
    for (uint32_t au : {a0, a1, a2}) {
      e.PutU32(0);
      e.PutU32(au);
      e.PutU32(partner);
      e.PutU32(partner_au++);
    }
    return e.bytes();
  };
  for (auto [a0, a1, a2] : {std::tuple{3u, 1u, 3u}, std::tuple{1u, 2u, 2u}}) {
    internal::Catalog c = cat;
    absl::Status st = c.Apply(c.seq + 1, record(a0, a1, a2));
    EXPECT_EQ(st.code(), absl::StatusCode::kDataLoss) << a0 << a1 << a2;
    EXPECT_THAT(std::string(st.message()),
                ::testing::HasSubstr(fmt::format("AU {} of disk {} allocated twice", a2,
                                                 cat.disks[0].name)));
    EXPECT_EQ(c.files.count(400), 0u);
    EXPECT_EQ(c.disks[0].used, cat.disks[0].used);
  }
  internal::Catalog c = cat;
  ASSERT_OK(c.Apply(c.seq + 1, record(3, 1, 2)));
  ASSERT_EQ(c.files.count(400), 1u);
  EXPECT_EQ(c.files.at(400).extents[1][0], (internal::CopyLoc{0, 1}));
  EXPECT_EQ(c.disks[0].used, cat.disks[0].used + 3);
}

TEST(AsmTemplateTest, UnknownOrImpossibleRedundancyIsDataLoss) {
  FakeRack rack({2, 2, 2}, {{"DATA", 32 * kMiB}});
  cellsim::testing::TempDir dir;
  auto io = io::MakePosixBackend();
  ASSERT_OK_AND_ASSIGN(auto dg, DiskGroup::Create(rack.Env(io.get(), dir.path()),
                                                  Config(rack, Redundancy::kNormal)));
  ASSERT_OK(dg->CreateFile(Spec(FileType::kDataFile, "USERS", kMiB)).status());
  ASSERT_OK(dg->Close());
  dg.reset();
  ASSERT_OK_AND_ASSIGN(internal::Catalog cat,
                       internal::Catalog::DecodeCheckpoint(ReadFileBytes(dir.File("DATA.ckpt0")), "ckpt0"));
  const std::vector<uint8_t> good = cat.EncodeCheckpoint();
  // The file's redundancy and copies bytes sit before its extents (u32 count,
  // 1 extent x 2 copies x 8 bytes) and the checksum (8 bytes).
  const size_t red_at = good.size() - 8 - (4 + 2 * 8) - 2;
  ASSERT_EQ(good[red_at], static_cast<uint8_t>(Redundancy::kNormal));
  ASSERT_EQ(good[red_at + 1], 2);
  auto reseal = [](std::vector<uint8_t> b) {
    const uint64_t sum = Checksum64(absl::MakeConstSpan(b).subspan(0, b.size() - 8),
                                    internal::kCatalogCheckpointSeed);
    Encoder e;
    e.PutU64(sum);
    std::copy(e.data().begin(), e.data().end(), b.end() - 8);
    return b;
  };
  struct Case {
    uint8_t red, copies;
    const char* message;
  };
  for (const Case& c : {Case{7, 2, "unknown redundancy code 7"},
                        Case{1, 3, "of MIRROR redundancy has 3 copies"},
                        Case{0, 0, "of UNPROT redundancy has 0 copies"}}) {
    std::vector<uint8_t> bad = good;
    bad[red_at] = c.red;
    bad[red_at + 1] = c.copies;
    absl::StatusOr<internal::Catalog> got = internal::Catalog::DecodeCheckpoint(reseal(bad), "slot");
    EXPECT_EQ(got.status().code(), absl::StatusCode::kDataLoss) << c.message;
    EXPECT_THAT(std::string(got.status().message()), ::testing::HasSubstr(c.message));
  }
  // A newer version is refused by name, never read as this one.
  std::vector<uint8_t> newer = good;
  newer[4] = 3;
  absl::StatusOr<internal::Catalog> got = internal::Catalog::DecodeCheckpoint(reseal(newer), "slot");
  EXPECT_THAT(std::string(got.status().message()), ::testing::HasSubstr("newer format version 3"));
}

}  // namespace
}  // namespace cellsim::asmgr
