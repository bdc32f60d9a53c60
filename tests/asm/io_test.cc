// Mirrored I/O through a disk group over fake cells: writes to every copy,
// read failover and repair, fast mirror resync, scrub, lost-range resync,
// smart/fast creation through FormatFile.
#include <algorithm>
#include <atomic>
#include <cctype>
#include <random>
#include <thread>

#include "asm/fake_rack.h"
#include "cellsim/asm/disk_group.h"
#include "cellsim/base/units.h"
#include "cellsim/format/block_template.h"
#include "cellsim/io/io_backend.h"
#include "gmock/gmock.h"
#include "testing/test_util.h"

namespace cellsim::asmgr {
namespace {

using ::testing::HasSubstr;
using testing::FakeRack;

std::string Upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::vector<uint8_t> Pattern(size_t n, uint64_t seed) {
  std::vector<uint8_t> v(n);
  std::mt19937_64 rng(seed);
  for (auto& b : v) b = static_cast<uint8_t>(rng());
  return v;
}

class AsmIoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    io_ = io::MakePosixBackend();
    ASSERT_OK_AND_ASSIGN(dg_, DiskGroup::Create(rack_.Env(io_.get(), dir_.path()),
                                                {.name = "DATA",
                                                 .redundancy = Redundancy::kNormal,
                                                 .au_size = 1 * kMiB,
                                                 .disks = rack_.Disks(0)}));
    ASSERT_OK_AND_ASSIGN(file_, dg_->CreateFile({.db_name = "orcl",
                                                 .type = FileType::kDataFile,
                                                 .tag = "USERS",
                                                 .size_bytes = 16 * kMiB}));
  }
  // Writes `data` at `offset` through ASM.
  void WriteAt(uint64_t offset, const std::vector<uint8_t>& data, AsmIoResult* r = nullptr) {
    std::vector<AsmWriteRequest> w = {{.file_offset = offset, .data = data}};
    AsmIoResult local;
    ASSERT_OK(dg_->Write(file_.number, absl::MakeSpan(w), r ? r : &local));
  }
  std::vector<uint8_t> ReadAt(uint64_t offset, size_t n, AsmIoResult* r = nullptr) {
    std::vector<uint8_t> out(n);
    std::vector<AsmReadRequest> rd = {{.file_offset = offset, .buffer = absl::MakeSpan(out)}};
    AsmIoResult local;
    EXPECT_OK(dg_->Read(file_.number, absl::MakeSpan(rd), r ? r : &local));
    return out;
  }
  // The bytes of copy `c` of the extent holding `offset`, `n` bytes.
  std::vector<uint8_t> CopyBytes(uint64_t offset, size_t n, size_t c) {
    auto map = dg_->ExtentMap(file_.number, offset, n);
    EXPECT_TRUE(map.ok());
    const ExtentCopy& x = (*map)[0].copies[c];
    return rack_.cell(x.cell).Peek(x.grid_disk, x.disk_offset + offset % dg_->au_size(), n);
  }

  FakeRack rack_{{2, 2, 2}, {{"DATA", 32 * kMiB}}};
  cellsim::testing::TempDir dir_;
  std::unique_ptr<io::IoBackend> io_;
  std::unique_ptr<DiskGroup> dg_;
  FileInfo file_;
};

TEST_F(AsmIoTest, NameFollowsAsm) {
  EXPECT_EQ(file_.number, 256u);
  EXPECT_EQ(file_.name, "+DATA/ORCL/DATAFILE/USERS.256." + std::to_string(file_.incarnation));
  ASSERT_OK_AND_ASSIGN(FileInfo log, dg_->CreateFile({.db_name = "ORCL",
                                                      .type = FileType::kOnlineLog,
                                                      .tag = "group_5",
                                                      .size_bytes = 4 * kMiB,
                                                      .block_size = 512}));
  EXPECT_EQ(log.number, 257u);
  EXPECT_GT(log.incarnation, file_.incarnation);
  EXPECT_EQ(log.name, "+DATA/ORCL/ONLINELOG/group_5.257." + std::to_string(log.incarnation));
  ASSERT_OK_AND_ASSIGN(FileInfo found, dg_->LookupFile(Upper(log.name)));
  EXPECT_EQ(found.number, 257u);
}

TEST_F(AsmIoTest, WriteReachesEveryCopyAndReadsBack) {
  // 3 MiB starting mid-extent: four pieces, each to 2 copies.
  const auto data = Pattern(3 * kMiB, 1);
  AsmIoResult r;
  WriteAt(512 * kKiB, data, &r);
  EXPECT_EQ(r.io.cell_requests, 8u);
  EXPECT_EQ(r.io.cell_bytes, 2 * data.size());
  EXPECT_EQ(r.io.cell.disk_bytes_written, 2 * data.size());
  EXPECT_TRUE(r.failures.empty());
  EXPECT_EQ(ReadAt(512 * kKiB, data.size()), data);
  for (size_t c = 0; c < 2; ++c) {
    EXPECT_EQ(CopyBytes(1 * kMiB, 1 * kMiB, c),
              std::vector<uint8_t>(data.begin() + 512 * kKiB, data.begin() + 1536 * kKiB));
  }
}

TEST_F(AsmIoTest, InvalidRequestsAreRefused) {
  std::vector<uint8_t> data(1000);
  std::vector<AsmWriteRequest> w = {{.file_offset = 0, .data = data}};
  EXPECT_EQ(dg_->Write(file_.number, absl::MakeSpan(w), nullptr).code(),
            absl::StatusCode::kInvalidArgument);
  std::vector<uint8_t> big(4096);
  w = {{.file_offset = 16 * kMiB - 2048, .data = big}};
  absl::Status st = dg_->Write(file_.number, absl::MakeSpan(w), nullptr);
  EXPECT_EQ(st.code(), absl::StatusCode::kOutOfRange);
  EXPECT_THAT(std::string(st.message()), ::testing::HasSubstr("past its end 16777216"));
  EXPECT_EQ(dg_->Write(999, absl::MakeSpan(w), nullptr).code(), absl::StatusCode::kNotFound);
}

TEST_F(AsmIoTest, OfflineWriteOnlineResyncScrub) {
  // The md raid1 scenario on fakes; rack_test repeats it on real cells.
  const auto base = Pattern(16 * kMiB, 2);
  WriteAt(0, base);
  ASSERT_OK_AND_ASSIGN(uint32_t victim, dg_->FindDisk("DATA_CD_01_cel02"));
  ASSERT_OK(dg_->OfflineDisk(victim));
  std::vector<uint8_t> now = base;
  // Change 64 KiB in three extents with a copy on the victim and in one
  // without: exactly three extents become stale on it.
  ASSERT_OK_AND_ASSIGN(auto map, dg_->ExtentMap(file_.number));
  std::vector<uint64_t> offsets;
  int with = 0, without = 0;
  for (const Extent& e : map) {
    const bool on = e.copies[0].disk == victim || e.copies[1].disk == victim;
    if (on && with < 3) {
      ++with;
      offsets.push_back(e.file_offset + 4096 * with);
    } else if (!on && without < 1) {
      ++without;
      offsets.push_back(e.file_offset + 65536);
    } else {
      continue;
    }
    std::vector<uint8_t> piece = Pattern(64 * kKiB, offsets.back());
    AsmIoResult r;
    WriteAt(offsets.back(), piece, &r);
    EXPECT_EQ(r.stale_extents_marked, on ? 1u : 0u);
    EXPECT_EQ(r.io.cell_requests, on ? 1u : 2u);
    std::copy(piece.begin(), piece.end(), now.begin() + offsets.back());
  }
  ASSERT_EQ(with, 3);
  const uint64_t expected = 3;
  EXPECT_EQ(dg_->Disks()[victim].stale_aus, expected);
  EXPECT_EQ(dg_->View().offline_disks, 1u);
  // Reads while offline come from the surviving copy.
  EXPECT_EQ(ReadAt(0, now.size()), now);
  ResyncResult rs;
  ASSERT_OK(dg_->OnlineDisk(victim, &rs));
  EXPECT_EQ(rs.extents_copied, expected);
  EXPECT_EQ(rs.bytes_copied, expected * kMiB);
  EXPECT_EQ(dg_->Disks()[victim].stale_aus, 0u);
  EXPECT_EQ(dg_->Disks()[victim].mode_status, "ONLINE");
  ScrubResult sc;
  ASSERT_OK(dg_->Scrub({}, &sc));
  EXPECT_TRUE(sc.mismatches.empty());
  EXPECT_EQ(sc.extents_checked, 16u);
  EXPECT_EQ(sc.copies_compared, 16u);
  EXPECT_EQ(ReadAt(0, now.size()), now);
}

TEST_F(AsmIoTest, FailingDiskGoesOfflineAndMirrorServesReads) {
  const auto data = Pattern(16 * kMiB, 3);
  ASSERT_OK_AND_ASSIGN(uint32_t bad, dg_->FindDisk("DATA_CD_00_cel01"));
  rack_.cell(0).FailWrites(dg_->disk(bad).grid_disk, true);
  AsmIoResult r;
  WriteAt(0, data, &r);  // succeeds: every extent has a copy elsewhere
  ASSERT_EQ(r.disks_taken_offline, std::vector<std::string>{"DATA_CD_00_cel01"});
  EXPECT_FALSE(r.failures.empty());
  const DiskView v = dg_->Disks()[bad];
  EXPECT_EQ(v.mode_status, "OFFLINE");
  EXPECT_THAT(v.last_error, ::testing::HasSubstr("Input/output error"));
  EXPECT_GT(v.stale_aus, 0u);
  AsmIoResult rr;
  EXPECT_EQ(ReadAt(0, data.size(), &rr), data);
  EXPECT_EQ(rr.io.cell_requests, 16u);  // one copy each, no retries needed
  // The disk comes back: only its stale extents are copied.
  rack_.cell(0).FailWrites(dg_->disk(bad).grid_disk, false);
  ResyncResult rs;
  ASSERT_OK(dg_->OnlineDisk(bad, &rs));
  EXPECT_EQ(rs.extents_copied, v.stale_aus);
  ScrubResult sc;
  ASSERT_OK(dg_->Scrub({}, &sc));
  EXPECT_TRUE(sc.mismatches.empty());
}

TEST_F(AsmIoTest, WriteFailsWhenNoCopyLands) {
  for (uint32_t c = 0; c < 3; ++c) {
    for (uint32_t g = 0; g < 2; ++g) rack_.cell(c).FailWrites(g, true);
  }
  const auto data = Pattern(64 * kKiB, 4);
  std::vector<AsmWriteRequest> w = {{.file_offset = 0, .data = data}};
  absl::Status st = dg_->Write(file_.number, absl::MakeSpan(w), nullptr);
  EXPECT_EQ(st.code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(st.message()), ::testing::HasSubstr("no copy of extent 0"));
}

// A write no copy took is not acknowledged and must not cost the extent its
// acknowledged contents: once the disks take writes again, they read back
// (before, every copy was marked stale and the extent was unreadable for good).
TEST_F(AsmIoTest, AWriteNoCopyTookLeavesTheExtentsDataReadable) {
  const auto before = Pattern(64 * kKiB, 7);
  WriteAt(0, before);
  for (uint32_t c = 0; c < 3; ++c) {
    for (uint32_t g = 0; g < 2; ++g) rack_.cell(c).FailWrites(g, true);
  }
  const auto lost = Pattern(64 * kKiB, 8);
  std::vector<AsmWriteRequest> w = {{.file_offset = 0, .data = lost}};
  AsmIoResult r;
  EXPECT_FALSE(dg_->Write(file_.number, absl::MakeSpan(w), &r).ok());
  for (uint32_t c = 0; c < 3; ++c) {
    for (uint32_t g = 0; g < 2; ++g) rack_.cell(c).FailWrites(g, false);
  }
  EXPECT_EQ(ReadAt(0, before.size()), before);
  // The copy kept current stays on an online disk; the other was marked
  // stale and resyncs from it.
  ASSERT_OK_AND_ASSIGN(auto map, dg_->ExtentMap(file_.number, 0, 1));
  ASSERT_EQ(map[0].copies.size(), 2u);
  EXPECT_TRUE(map[0].copies[0].online && !map[0].copies[0].stale);
  EXPECT_TRUE(map[0].copies[1].stale);
  EXPECT_EQ(r.disks_taken_offline.size(), 1u);
}

TEST_F(AsmIoTest, ReadFailsOverAndRepairsPrimary) {
  const auto data = Pattern(2 * kMiB, 5);
  WriteAt(0, data);
  ASSERT_OK_AND_ASSIGN(auto map, dg_->ExtentMap(file_.number, 0, 1));
  const ExtentCopy primary = map[0].copies[0];
  // The primary lost this range with its flash: reads fail with DataLoss.
  rack_.cell(primary.cell).LoseRange(primary.grid_disk, primary.disk_offset, 64 * kKiB);
  std::vector<uint8_t> out(64 * kKiB);
  std::vector<AsmReadRequest> rd = {{.file_offset = 0, .buffer = absl::MakeSpan(out)}};
  AsmIoResult r;
  ASSERT_OK(dg_->Read(file_.number, absl::MakeSpan(rd), &r));
  EXPECT_EQ(rd[0].failovers, 1u);
  EXPECT_EQ(out, std::vector<uint8_t>(data.begin(), data.begin() + 64 * kKiB));
  // The good data was written back: the primary reads again, nothing lost.
  ASSERT_OK_AND_ASSIGN(auto lost, rack_.cell(primary.cell).LostRanges());
  EXPECT_TRUE(lost.empty());
  rd[0].failovers = 0;
  ASSERT_OK(dg_->Read(file_.number, absl::MakeSpan(rd), &r));
  EXPECT_EQ(rd[0].failovers, 0u);
}

TEST_F(AsmIoTest, ResyncLostRangesRestoresFromPartners) {
  const auto data = Pattern(16 * kMiB, 6);
  WriteAt(0, data);
  // Cell 2 loses 3 ranges (as dirty lines of a failed flash), one of them
  // beyond any file data.
  ASSERT_OK_AND_ASSIGN(auto map, dg_->ExtentMap(file_.number));
  std::vector<cell::LostRange> lost;
  for (const Extent& e : map) {
    for (const ExtentCopy& c : e.copies) {
      if (c.cell == 2 && lost.size() < 2) lost.push_back({c.grid_disk, c.disk_offset + 8192, 128 * kKiB});
    }
  }
  ASSERT_EQ(lost.size(), 2u);
  for (const auto& l : lost) rack_.cell(2).LoseRange(l.grid_disk, l.offset, l.length);
  rack_.cell(2).LoseRange(0, 31 * kMiB, 64 * kKiB);  // a free AU
  ResyncResult rs;
  ASSERT_OK(dg_->ResyncLostRanges(&rs));
  EXPECT_EQ(rs.extents_copied, 3u);
  EXPECT_EQ(rs.bytes_copied, 2 * 128 * kKiB + 64 * kKiB);
  ASSERT_OK_AND_ASSIGN(auto left, rack_.cell(2).LostRanges());
  EXPECT_TRUE(left.empty());
  ScrubResult sc;
  ASSERT_OK(dg_->Scrub({}, &sc));
  EXPECT_TRUE(sc.mismatches.empty());
  EXPECT_EQ(sc.read_errors, 0u);
}

// Two copies of a block that differ where neither passes a block check the
// other fails (here, random bytes: both fail their checksum): the scrub finds
// them, says there is no good copy, and REPAIR rewrites neither.
TEST_F(AsmIoTest, ScrubFindsDifferingCopiesAndRewritesNoneItCannotJudge) {
  WriteAt(0, Pattern(16 * kMiB, 7));
  ASSERT_OK_AND_ASSIGN(auto map, dg_->ExtentMap(file_.number, 3 * kMiB, 1));
  const ExtentCopy mirror = map[0].copies[1];
  rack_.cell(mirror.cell).Corrupt(mirror.grid_disk, mirror.disk_offset + 1000);
  const std::vector<uint8_t> primary = CopyBytes(3 * kMiB, kMiB, 0);
  const std::vector<uint8_t> damaged = CopyBytes(3 * kMiB, kMiB, 1);
  ASSERT_NE(primary, damaged);
  ScrubResult sc;
  ASSERT_OK(dg_->Scrub({}, &sc));
  ASSERT_EQ(sc.mismatches.size(), 1u);
  const ScrubMismatch& m = sc.mismatches[0];
  EXPECT_EQ(m.extent, 3u);
  EXPECT_EQ(m.file_offset, 3 * kMiB + 1000);
  EXPECT_EQ(m.blocks, 1u);
  EXPECT_FALSE(m.judged);
  EXPECT_EQ(m.reason,
            "block 384 differs and fails its checksum on every copy, with no majority: no good "
            "copy to keep");
  EXPECT_EQ(m.disk_a, dg_->Disks()[map[0].copies[0].disk].name);
  EXPECT_EQ(m.disk_b, dg_->Disks()[mirror.disk].name);
  ScrubResult fix;
  ASSERT_OK(dg_->Scrub({.repair = true}, &fix));
  EXPECT_EQ(fix.repaired, 0u);
  ASSERT_EQ(fix.mismatches.size(), 1u);
  EXPECT_FALSE(fix.mismatches[0].repaired);
  EXPECT_EQ(CopyBytes(3 * kMiB, kMiB, 0), primary);
  EXPECT_EQ(CopyBytes(3 * kMiB, kMiB, 1), damaged);
}

// A redo block carries its number in the log: a copy holding another redo
// block's bytes (a misdirected write, its own checksum right) is the one the
// scrub judges wrong and rewrites, though it is the primary.
TEST_F(AsmIoTest, ScrubJudgesRedoBlocksByTheirNumber) {
  ASSERT_OK_AND_ASSIGN(FileInfo log, dg_->CreateFile({.db_name = "ORCL",
                                                      .type = FileType::kOnlineLog,
                                                      .tag = "group_5",
                                                      .size_bytes = 2 * kMiB,
                                                      .block_size = 512}));
  const format::BlockTemplate t{format::BlockKind::kRedo, 512, 5, 2 * kMiB / 512};
  std::vector<uint8_t> bytes(2 * kMiB);
  format::GenerateRange(t, 0, absl::MakeSpan(bytes));
  std::vector<AsmWriteRequest> w = {{.file_offset = 0, .data = bytes}};
  ASSERT_OK(dg_->Write(log.number, absl::MakeSpan(w), nullptr));
  ASSERT_OK_AND_ASSIGN(std::vector<Extent> map, dg_->ExtentMap(log.number, 0, 1));
  const ExtentCopy primary = map[0].copies[0];
  std::vector<cell::WriteRequest> misdirected = {
      {.grid_disk = primary.grid_disk,
       .offset = primary.disk_offset + 7 * 512,
       .data = absl::MakeConstSpan(bytes.data() + 9 * 512, 512)}};
  ASSERT_OK(rack_.cell(primary.cell).Write(absl::MakeSpan(misdirected), nullptr));
  ScrubResult fix;
  ASSERT_OK(dg_->Scrub({.repair = true, .file = log.number}, &fix));
  ASSERT_EQ(fix.mismatches.size(), 1u);
  EXPECT_EQ(fix.mismatches[0].disk_b, dg_->Disks()[primary.disk].name);
  EXPECT_EQ(fix.mismatches[0].reason, "block 7 is not the block of its address");
  EXPECT_TRUE(fix.mismatches[0].repaired);
  std::vector<uint8_t> back(2 * kMiB);
  std::vector<AsmReadRequest> r = {{.file_offset = 0, .buffer = absl::MakeSpan(back), .copy = 0}};
  ASSERT_OK(dg_->Read(log.number, absl::MakeSpan(r), nullptr));
  EXPECT_EQ(back, bytes);
}

// SCRUB FILE and SCRUB DISK: only the file's extents, or those with a copy on
// the disk; a file or disk the group lacks, or an offline disk, is an error.
TEST_F(AsmIoTest, ScrubOfOneFileOrOneDisk) {
  ASSERT_OK_AND_ASSIGN(FileInfo other, dg_->CreateFile({.db_name = "orcl",
                                                        .type = FileType::kDataFile,
                                                        .tag = "OTHER",
                                                        .size_bytes = 4 * kMiB}));
  ScrubResult all, one;
  ASSERT_OK(dg_->Scrub({}, &all));
  EXPECT_EQ(all.extents_checked, 16u + 4u);
  ASSERT_OK(dg_->Scrub({.file = other.number}, &one));
  EXPECT_EQ(one.extents_checked, 4u);
  ASSERT_OK_AND_ASSIGN(std::vector<Extent> map, dg_->ExtentMap(file_.number));
  uint64_t on_disk0 = 0;
  ASSERT_OK_AND_ASSIGN(std::vector<Extent> map2, dg_->ExtentMap(other.number));
  for (const std::vector<Extent>* m : {&map, &map2}) {
    for (const Extent& e : *m) {
      on_disk0 += std::any_of(e.copies.begin(), e.copies.end(),
                              [](const ExtentCopy& c) { return c.disk == 0; });
    }
  }
  ASSERT_GT(on_disk0, 0u);
  ScrubResult disk;
  ASSERT_OK(dg_->Scrub({.disk = 0}, &disk));
  EXPECT_EQ(disk.extents_checked, on_disk0);
  EXPECT_EQ(dg_->Scrub({.file = 9999}, nullptr).code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(dg_->Scrub({.disk = 99}, nullptr).code(), absl::StatusCode::kInvalidArgument);
  ASSERT_OK(dg_->OfflineDisk(0));
  const absl::Status offline = dg_->Scrub({.disk = 0}, nullptr);
  EXPECT_EQ(offline.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(offline.message(), HasSubstr("is offline"));
}

// A cancel stops the scrub between batches (64 MiB of copies: 32 extents of
// 1 MiB, two copies each): what the first batch found is in the result, the
// second batch is not read, and the status says where it stopped.
TEST_F(AsmIoTest, CancelledScrubStopsBetweenBatches) {
  ASSERT_OK_AND_ASSIGN(FileInfo big, dg_->CreateFile({.db_name = "orcl",
                                                      .type = FileType::kDataFile,
                                                      .tag = "BIG",
                                                      .size_bytes = 40 * kMiB}));
  WriteAt(0, Pattern(16 * kMiB, 3));
  for (const auto& [file, offset] : {std::pair{file_.number, 3 * kMiB}, {big.number, 39 * kMiB}}) {
    ASSERT_OK_AND_ASSIGN(std::vector<Extent> map, dg_->ExtentMap(file, offset, 1));
    const ExtentCopy mirror = map[0].copies[1];
    rack_.cell(mirror.cell).Corrupt(mirror.grid_disk, mirror.disk_offset + 4096);
  }
  CancelFlag cancel;
  for (uint32_t c = 0; c < 3; ++c) rack_.cell(c).OnRead([&cancel] { cancel.Cancel(); });
  ScrubResult part;
  const absl::Status st = dg_->Scrub({.cancel = &cancel}, &part);
  EXPECT_EQ(st.code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(st.message(), "scrub of DATA stopped after 32 of 56 extents");
  EXPECT_EQ(part.extents_checked, 32u);
  ASSERT_EQ(part.mismatches.size(), 1u);
  EXPECT_EQ(part.mismatches[0].file, file_.number);
  EXPECT_EQ(part.mismatches[0].extent, 3u);
  for (uint32_t c = 0; c < 3; ++c) rack_.cell(c).OnRead(nullptr);
  cancel.Reset();
  ScrubResult all;
  ASSERT_OK(dg_->Scrub({.cancel = &cancel}, &all));
  EXPECT_EQ(all.extents_checked, 56u);
  ASSERT_EQ(all.mismatches.size(), 2u);
  EXPECT_EQ(all.mismatches[1].file, big.number);
  EXPECT_EQ(all.mismatches[1].extent, 39u);
}

// The scrub holds the group's I/O lock a batch at a time: between batches a
// write and a file's deletion run (with the lock held for the whole scrub
// the hook would deadlock), and the next batch scrubs what the catalog holds
// then: the rewritten extent's copies agree, the deleted file's extents are
// left out.
TEST_F(AsmIoTest, ScrubLetsTheGroupWorkBetweenBatches) {
  ASSERT_OK_AND_ASSIGN(FileInfo big, dg_->CreateFile({.db_name = "orcl",
                                                      .type = FileType::kDataFile,
                                                      .tag = "BIG",
                                                      .size_bytes = 40 * kMiB}));
  ASSERT_OK_AND_ASSIGN(FileInfo small, dg_->CreateFile({.db_name = "orcl",
                                                        .type = FileType::kDataFile,
                                                        .tag = "SMALL",
                                                        .size_bytes = 4 * kMiB}));
  WriteAt(0, Pattern(16 * kMiB, 3));
  const std::vector<uint8_t> later = Pattern(1 * kMiB, 9);
  int calls = 0;
  ScrubResult sc;
  ASSERT_OK(dg_->Scrub({.between_batches =
                            [&] {
                              ++calls;
                              std::vector<AsmWriteRequest> w = {
                                  {.file_offset = 30 * kMiB, .data = later}};
                              EXPECT_OK(dg_->Write(big.number, absl::MakeSpan(w), nullptr));
                              EXPECT_OK(dg_->DeleteFile(small.number));
                            }},
                       &sc));
  EXPECT_EQ(calls, 1);  // 60 extents of 2 copies: a batch of 32, then the rest
  EXPECT_EQ(sc.extents_checked, 56u);  // 16 + 40; SMALL's 4 were gone
  EXPECT_TRUE(sc.mismatches.empty());
  std::vector<uint8_t> out(later.size());
  std::vector<AsmReadRequest> r = {{.file_offset = 30 * kMiB, .buffer = absl::MakeSpan(out)}};
  ASSERT_OK(dg_->Read(big.number, absl::MakeSpan(r), nullptr));
  EXPECT_EQ(out, later);
}

// A read of one copy returns that copy's bytes, damaged or not (no failover,
// no repair); a copy the file does not have is OutOfRange, an offline one
// Unavailable.
TEST_F(AsmIoTest, ReadOfOneCopyReturnsThatCopy) {
  const std::vector<uint8_t> data = Pattern(2 * kMiB, 3);
  WriteAt(0, data);
  ASSERT_OK_AND_ASSIGN(auto map, dg_->ExtentMap(file_.number, 1 * kMiB, 1));
  const ExtentCopy primary = map[0].copies[0];
  rack_.cell(primary.cell).Corrupt(primary.grid_disk, primary.disk_offset + 10);
  const auto read_copy = [&](uint32_t c, std::vector<uint8_t>* out) {
    out->assign(2 * kMiB, 0);
    std::vector<AsmReadRequest> rd = {{.file_offset = 0, .buffer = absl::MakeSpan(*out)}};
    rd[0].copy = c;
    AsmIoResult r;
    return dg_->Read(file_.number, absl::MakeSpan(rd), &r);
  };
  std::vector<uint8_t> got;
  ASSERT_OK(read_copy(1, &got));
  EXPECT_EQ(got, data);
  ASSERT_OK(read_copy(0, &got));
  EXPECT_NE(got, data);
  EXPECT_EQ(got[1 * kMiB + 10], data[1 * kMiB + 10] ^ 0xFF) << "the damaged byte, as it is";
  EXPECT_NE(CopyBytes(1 * kMiB, 16, 0), std::vector<uint8_t>(data.begin() + kMiB, data.begin() + kMiB + 16))
      << "not repaired";
  EXPECT_EQ(read_copy(2, &got).code(), absl::StatusCode::kOutOfRange);
  ASSERT_OK(dg_->OfflineDisk(map[0].copies[1].disk));
  EXPECT_EQ(read_copy(1, &got).code(), absl::StatusCode::kUnavailable);
}

TEST_F(AsmIoTest, FormatFileSendsOneRequestPerExtentCopy) {
  format::BlockTemplate t{.kind = format::BlockKind::kData, .block_size = 8192,
                          .file_number = 7, .file_blocks = 16 * kMiB / 8192};
  ASSERT_OK_AND_ASSIGN(uint32_t off, dg_->FindDisk("DATA_CD_01_cel03"));
  ASSERT_OK(dg_->OfflineDisk(off));
  FormatResult fr;
  ASSERT_OK(dg_->FormatFile(file_.number,
                            {.block_template = t, .method = cell::FormatMethod::kMetadataOnly,
                             .requests_per_call = 1},
                            &fr));
  const uint64_t skipped = fr.result.stale_extents_marked;
  EXPECT_GT(skipped, 0u);
  EXPECT_EQ(fr.copies.size() + skipped, 16u * 2);
  EXPECT_EQ(fr.result.io.cell_requests, fr.copies.size());
  EXPECT_EQ(fr.result.io.multi_block_requests, fr.copies.size());
  EXPECT_EQ(fr.result.io.cell.bytes_saved_by_creation, fr.copies.size() * kMiB);
  for (const FormatCopyResult& c : fr.copies) {
    EXPECT_OK(c.status);
    EXPECT_TRUE(c.metadata_only);
  }
  // Every readable block is the template's; the offline disk is resynced.
  ResyncResult rs;
  ASSERT_OK(dg_->OnlineDisk(off, &rs));
  EXPECT_EQ(rs.extents_copied, skipped);
  std::vector<uint8_t> want(16 * kMiB);
  format::GenerateRange(t, 0, absl::MakeSpan(want));
  EXPECT_EQ(ReadAt(0, want.size()), want);
  ScrubResult sc;
  ASSERT_OK(dg_->Scrub({}, &sc));
  EXPECT_TRUE(sc.mismatches.empty());
}

TEST_F(AsmIoTest, FormatRefusedByACellFailsWithoutTakingDisksOffline) {
  format::BlockTemplate t{.kind = format::BlockKind::kData, .block_size = 8192,
                          .file_number = 7, .file_blocks = 16 * kMiB / 8192};
  rack_.cell(1).RefuseFormats(true);
  FormatResult fr;
  absl::Status s = dg_->FormatFile(
      file_.number, {.block_template = t, .method = cell::FormatMethod::kMetadataOnly}, &fr);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_NE(std::string(s.message()).find("flash metadata is full"), std::string::npos) << s;
  EXPECT_TRUE(fr.result.disks_taken_offline.empty());
  for (const DiskView& d : dg_->Disks()) EXPECT_EQ(d.mode_status, "ONLINE") << d.name;
}

TEST_F(AsmIoTest, ConcurrentWritersAndReaders) {
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      const auto data = Pattern(4 * kMiB, 100 + t);
      for (int i = 0; i < 5; ++i) {
        std::vector<AsmWriteRequest> w = {{.file_offset = t * 4 * kMiB, .data = data}};
        EXPECT_OK(dg_->Write(file_.number, absl::MakeSpan(w), nullptr));
        std::vector<uint8_t> out(4 * kMiB);
        std::vector<AsmReadRequest> r = {{.file_offset = t * 4 * kMiB, .buffer = absl::MakeSpan(out)}};
        EXPECT_OK(dg_->Read(file_.number, absl::MakeSpan(r), nullptr));
        EXPECT_EQ(out, data);
      }
    });
  }
  for (auto& th : threads) th.join();
  ScrubResult sc;
  ASSERT_OK(dg_->Scrub({}, &sc));
  EXPECT_TRUE(sc.mismatches.empty());
}

// DiskGroup::WriteFiles: files of two disk groups on the same cells (the
// control files' +DATA and +RECO copies), each HIGH: a copy on every cell.
class WriteFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    io_ = io::MakePosixBackend();
    for (size_t g = 0; g < 2; ++g) {
      ASSERT_OK_AND_ASSIGN(dgs_[g], DiskGroup::Create(rack_.Env(io_.get(), dir_.path()),
                                                      {.name = g == 0 ? "DATA" : "RECO",
                                                       .redundancy = Redundancy::kHigh,
                                                       .au_size = 1 * kMiB,
                                                       .disks = rack_.Disks(g)}));
      ASSERT_OK_AND_ASSIGN(files_[g], dgs_[g]->CreateFile({.db_name = "orcl",
                                                           .type = FileType::kControlFile,
                                                           .tag = "Current",
                                                           .size_bytes = 2 * kMiB}));
    }
  }
  std::vector<uint8_t> ReadAt(size_t g, uint64_t offset, size_t n) {
    std::vector<uint8_t> out(n);
    std::vector<AsmReadRequest> rd = {{.file_offset = offset, .buffer = absl::MakeSpan(out)}};
    EXPECT_OK(dgs_[g]->Read(files_[g].number, absl::MakeSpan(rd), nullptr));
    return out;
  }
  std::vector<uint64_t> WriteCalls() {
    std::vector<uint64_t> v;
    for (uint32_t c = 0; c < 3; ++c) v.push_back(rack_.cell(c).write_calls());
    return v;
  }

  FakeRack rack_{{1, 1, 1}, {{"DATA", 8 * kMiB}, {"RECO", 8 * kMiB}}};
  cellsim::testing::TempDir dir_;
  std::unique_ptr<io::IoBackend> io_;
  std::unique_ptr<DiskGroup> dgs_[2];
  FileInfo files_[2];
};

TEST_F(WriteFilesTest, OneBatchPerCellAcrossDiskGroups) {
  const auto a = Pattern(16 * kKiB, 1), b = Pattern(16 * kKiB, 2);
  std::vector<AsmWriteRequest> wa = {{.file_offset = 16 * kKiB, .data = a}};
  std::vector<AsmWriteRequest> wb = {{.file_offset = 16 * kKiB, .data = b}};
  std::vector<FileWrite> writes = {{dgs_[0].get(), files_[0].number, absl::MakeSpan(wa), {}},
                                   {dgs_[1].get(), files_[1].number, absl::MakeSpan(wb), {}}};
  const std::vector<uint64_t> before = WriteCalls();
  AsmIoResult r;
  ASSERT_OK(DiskGroup::WriteFiles(absl::MakeSpan(writes), &r));
  EXPECT_OK(writes[0].status);
  EXPECT_OK(writes[1].status);
  EXPECT_EQ(wa[0].copies_written, 3u);
  EXPECT_EQ(wb[0].copies_written, 3u);
  // Both files' copies reached every cell in a single call.
  EXPECT_EQ(WriteCalls(), (std::vector<uint64_t>{before[0] + 1, before[1] + 1, before[2] + 1}));
  EXPECT_EQ(r.io.cell_requests, 6u);
  EXPECT_EQ(r.io.cell_bytes, 6 * a.size());
  EXPECT_EQ(ReadAt(0, 16 * kKiB, a.size()), a);
  EXPECT_EQ(ReadAt(1, 16 * kKiB, b.size()), b);
  // The same two writes one group at a time: two calls per cell.
  const std::vector<uint64_t> mid = WriteCalls();
  ASSERT_OK(dgs_[0]->Write(files_[0].number, absl::MakeSpan(wa), nullptr));
  ASSERT_OK(dgs_[1]->Write(files_[1].number, absl::MakeSpan(wb), nullptr));
  EXPECT_EQ(WriteCalls(), (std::vector<uint64_t>{mid[0] + 2, mid[1] + 2, mid[2] + 2}));
}

TEST_F(WriteFilesTest, EachFileKeepsItsOwnOutcome) {
  // RECO's copy on cel01 fails: its disk goes offline, the write lands on the
  // other two; DATA's write is untouched; a missing file fails alone.
  ASSERT_OK_AND_ASSIGN(uint32_t bad, dgs_[1]->FindDisk("RECO_CD_00_cel01"));
  rack_.cell(0).FailWrites(dgs_[1]->disk(bad).grid_disk, true);
  const auto a = Pattern(32 * kKiB, 3), b = Pattern(32 * kKiB, 4), c = Pattern(8 * kKiB, 5);
  std::vector<AsmWriteRequest> wa = {{.file_offset = 0, .data = a}};
  std::vector<AsmWriteRequest> wb = {{.file_offset = 1 * kMiB - 16 * kKiB, .data = b}};
  std::vector<AsmWriteRequest> wc = {{.file_offset = 0, .data = c}};
  std::vector<AsmWriteRequest> wd = {{.file_offset = 64 * kKiB, .data = c}};
  // DATA twice (one lock taken once), RECO, and a file DATA does not have.
  std::vector<FileWrite> writes = {{dgs_[1].get(), files_[1].number, absl::MakeSpan(wb), {}},
                                   {dgs_[0].get(), files_[0].number, absl::MakeSpan(wa), {}},
                                   {dgs_[0].get(), 999, absl::MakeSpan(wc), {}},
                                   {dgs_[0].get(), files_[0].number, absl::MakeSpan(wd), {}}};
  AsmIoResult r;
  absl::Status st = DiskGroup::WriteFiles(absl::MakeSpan(writes), &r);
  EXPECT_EQ(st.code(), absl::StatusCode::kNotFound) << st;
  EXPECT_OK(writes[0].status);
  EXPECT_OK(writes[1].status);
  EXPECT_EQ(writes[2].status.code(), absl::StatusCode::kNotFound);
  EXPECT_OK(writes[3].status);
  EXPECT_EQ(wb[0].copies_written, 2u);  // two pieces (an AU edge), each on 2 of 3
  EXPECT_EQ(wa[0].copies_written, 3u);
  EXPECT_EQ(r.disks_taken_offline, std::vector<std::string>{"RECO_CD_00_cel01"});
  EXPECT_EQ(dgs_[1]->Disks()[bad].mode_status, "OFFLINE");
  for (const DiskView& d : dgs_[0]->Disks()) EXPECT_EQ(d.mode_status, "ONLINE") << d.name;
  EXPECT_EQ(ReadAt(0, 0, a.size()), a);
  EXPECT_EQ(ReadAt(0, 64 * kKiB, c.size()), c);
  EXPECT_EQ(ReadAt(1, 1 * kMiB - 16 * kKiB, b.size()), b);
  // Resync brings the offline copy back to the data every other copy has.
  rack_.cell(0).FailWrites(dgs_[1]->disk(bad).grid_disk, false);
  ResyncResult rs;
  ASSERT_OK(dgs_[1]->OnlineDisk(bad, &rs));
  EXPECT_EQ(rs.extents_copied, 2u);
  ScrubResult sc;
  ASSERT_OK(dgs_[1]->Scrub({}, &sc));
  EXPECT_TRUE(sc.mismatches.empty());
}

TEST_F(WriteFilesTest, OppositeOrdersAndExclusiveLockersDoNotDeadlock) {
  // Two writers name the groups in opposite orders while a third takes each
  // group's I/O lock exclusively (DeleteFile) over and over.
  std::atomic<bool> stop{false};
  std::thread deleter([&] {
    for (int i = 0; !stop.load(); ++i) {
      for (size_t g = 0; g < 2; ++g) {
        absl::StatusOr<FileInfo> f = dgs_[g]->CreateFile(
            {.db_name = "orcl", .type = FileType::kDataFile, .tag = "T", .size_bytes = kMiB});
        ASSERT_OK(f.status());
        ASSERT_OK(dgs_[g]->DeleteFile(f->number));
      }
    }
  });
  std::vector<std::thread> writers;
  for (int t = 0; t < 2; ++t) {
    writers.emplace_back([&, t] {
      const auto a = Pattern(16 * kKiB, 10 + t), b = Pattern(16 * kKiB, 20 + t);
      for (int i = 0; i < 50; ++i) {
        std::vector<AsmWriteRequest> wa = {{.file_offset = t * 64 * kKiB, .data = a}};
        std::vector<AsmWriteRequest> wb = {{.file_offset = t * 64 * kKiB, .data = b}};
        std::vector<FileWrite> w = {{dgs_[0].get(), files_[0].number, absl::MakeSpan(wa), {}},
                                    {dgs_[1].get(), files_[1].number, absl::MakeSpan(wb), {}}};
        if (t == 1) std::swap(w[0], w[1]);
        EXPECT_OK(DiskGroup::WriteFiles(absl::MakeSpan(w), nullptr));
      }
      EXPECT_EQ(ReadAt(0, t * 64 * kKiB, a.size()), a);
      EXPECT_EQ(ReadAt(1, t * 64 * kKiB, b.size()), b);
    });
  }
  for (auto& th : writers) th.join();
  stop = true;
  deleter.join();
}

TEST_F(WriteFilesTest, FormatFilesSendsOneCallPerCellAcrossGroupsAndRanges) {
  // Block 0 and [2 blocks, end) of each file, as the fast path asks: four
  // formats, one FormatRange call per cell.
  const format::BlockTemplate t{.kind = format::BlockKind::kData, .block_size = 8192,
                                .file_number = 3, .file_blocks = 2 * kMiB / 8192};
  FormatResult results[4];
  std::vector<FileFormat> formats;
  for (size_t g = 0; g < 2; ++g) {
    for (uint64_t off : {uint64_t{0}, uint64_t{16 * kKiB}}) {
      const uint64_t len = off == 0 ? 8 * kKiB : 2 * kMiB - off;
      formats.push_back({dgs_[g].get(), files_[g].number,
                         {.block_template = t, .method = cell::FormatMethod::kMetadataOnly,
                          .file_offset = off, .length = len},
                         &results[formats.size()], {}});
    }
  }
  std::vector<uint64_t> before;
  for (uint32_t c = 0; c < 3; ++c) before.push_back(rack_.cell(c).format_calls());
  ASSERT_OK(DiskGroup::FormatFiles(absl::MakeSpan(formats)));
  for (uint32_t c = 0; c < 3; ++c) EXPECT_EQ(rack_.cell(c).format_calls(), before[c] + 1) << c;
  uint64_t saved = 0;
  for (size_t k = 0; k < 4; ++k) {
    EXPECT_OK(formats[k].status);
    // Block 0: one extent x 3 copies; the rest: 2 extents x 3 copies.
    EXPECT_EQ(results[k].copies.size(), k % 2 == 0 ? 3u : 6u) << k;
    EXPECT_EQ(results[k].result.io.cell_requests, results[k].copies.size());
    for (const FormatCopyResult& c : results[k].copies) EXPECT_TRUE(c.metadata_only);
    saved += results[k].result.io.cell.bytes_saved_by_creation;
  }
  // The cells' statistics, summed over the results, are every request's.
  EXPECT_EQ(saved, 3 * 2 * (8 * kKiB + 2 * kMiB - 16 * kKiB));
  // Each file reads as its template, except block 1 (never formatted).
  for (size_t g = 0; g < 2; ++g) {
    std::vector<uint8_t> want(2 * kMiB);
    format::GenerateRange(t, 0, absl::MakeSpan(want));
    std::fill(want.begin() + 8 * kKiB, want.begin() + 16 * kKiB, 0);
    EXPECT_EQ(ReadAt(g, 0, want.size()), want) << g;
  }
  // A format of a missing file fails alone.
  FormatResult r1, r2;
  std::vector<FileFormat> bad = {
      {dgs_[0].get(), 999, {.block_template = t, .method = cell::FormatMethod::kMetadataOnly},
       &r1, {}},
      {dgs_[1].get(), files_[1].number,
       {.block_template = t, .method = cell::FormatMethod::kMetadataOnly}, &r2, {}}};
  EXPECT_EQ(DiskGroup::FormatFiles(absl::MakeSpan(bad)).code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(bad[0].status.code(), absl::StatusCode::kNotFound);
  EXPECT_OK(bad[1].status);
  EXPECT_EQ(r2.copies.size(), 6u);
}

TEST_F(WriteFilesTest, FormatFilesMayShareOneResult) {
  // Block 0 and the rest of one file into one FormatResult: the second
  // format's rows grow the vector the first one's were planned in.
  const format::BlockTemplate t{.kind = format::BlockKind::kData, .block_size = 8192,
                                .file_number = 3, .file_blocks = 2 * kMiB / 8192};
  FormatResult shared;
  std::vector<FileFormat> formats = {
      {dgs_[0].get(), files_[0].number,
       {.block_template = t, .method = cell::FormatMethod::kMetadataOnly, .file_offset = 0,
        .length = 8 * kKiB},
       &shared, {}},
      {dgs_[0].get(), files_[0].number,
       {.block_template = t, .method = cell::FormatMethod::kMetadataOnly,
        .file_offset = 16 * kKiB, .length = 2 * kMiB - 16 * kKiB},
       &shared, {}}};
  ASSERT_OK(DiskGroup::FormatFiles(absl::MakeSpan(formats)));
  ASSERT_EQ(shared.copies.size(), 3u + 6u);
  for (const FormatCopyResult& c : shared.copies) {
    EXPECT_OK(c.status);
    EXPECT_TRUE(c.metadata_only);
  }
  EXPECT_EQ(shared.copies[0].length, 8 * kKiB);
  EXPECT_EQ(shared.result.io.cell_requests, 9u);
}

}  // namespace
}  // namespace cellsim::asmgr
