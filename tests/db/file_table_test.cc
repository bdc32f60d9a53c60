// FileTable encoding: round trip and hostile input.
#include "cellsim/db/file_table.h"

#include "cellsim/base/checksum.h"
#include "gtest/gtest.h"
#include "testing/test_util.h"

namespace cellsim::db {
namespace {

FileTable Sample() {
  FileTable t;
  t.db_name = "ORCL";
  t.dbid = 1234567;
  t.created_unix = 1'700'000'000;
  t.tablespaces = {{0, "USERS", 8192},
                   {1, "Mixed Case", 16384},
                   {2, "BIG", 8192, /*bigfile=*/true, TablespaceContents::kPermanent},
                   {3, "UNDOTBS1", 8192, false, TablespaceContents::kUndo}};
  t.data_files = {{1, 0, {"DATA", 256, "+DATA/ORCL/DATAFILE/USERS.256.1"}, 8 * 1024 * 1024, 8192,
                   EntryState::kAvailable, 1'700'000'001, 3}};
  t.threads = {{1, false}, {2, false}};
  LogGroup g;
  g.group = 5;
  g.thread = 2;
  g.size_bytes = 4096ull << 20;
  g.members = {{{"DATA", 257, "+DATA/ORCL/ONLINELOG/group_5.257.1"}},
               {{"RECO", 256, "+RECO/ORCL/ONLINELOG/group_5.256.1"}}};
  g.state = EntryState::kCreating;
  t.log_groups = {g};
  t.archivelog = true;
  t.archived_logs = {{1, 7, 1000, 2000, 8192, 512,
                      {"RECO", 258, "+RECO/ORCL/ARCHIVELOG/thread_1_seq_7.258.1"}, 1'700'000'002}};
  return t;
}

TEST(FileTable, RoundTrip) {
  const FileTable t = Sample();
  ASSERT_OK_AND_ASSIGN(FileTable back, FileTable::Decode(t.Encode()));
  EXPECT_EQ(back, t);
  EXPECT_EQ(back.FindLogGroup(5)->members.size(), 2u);
  EXPECT_EQ(back.FindTablespace("Mixed Case")->block_size, 16384u);
  EXPECT_TRUE(back.FindTablespace("BIG")->bigfile);
  EXPECT_FALSE(back.FindTablespace("USERS")->bigfile);
  EXPECT_EQ(back.FindTablespace("UNDOTBS1")->contents, TablespaceContents::kUndo);
  EXPECT_EQ(TablespaceContentsName(TablespaceContents::kUndo), "UNDO");
  EXPECT_EQ(back.FindDataFile(1)->file.number, 256u);
  EXPECT_EQ(back.FindDataFile(2), nullptr);
  EXPECT_EQ(back.AllFiles().size(), 4u);  // the archived log's file too
  EXPECT_TRUE(back.archivelog);
  ASSERT_EQ(back.archived_logs.size(), 1u);
  EXPECT_EQ(back.archived_logs[0].next_change, 2000u);
  ASSERT_OK_AND_ASSIGN(FileTable empty, FileTable::Decode(FileTable{}.Encode()));
  EXPECT_EQ(empty, FileTable{});
}

TEST(FileTable, HostileInputIsRejected) {
  const std::vector<uint8_t> good = Sample().Encode();
  // Every truncation fails cleanly.
  for (size_t n = 0; n < good.size(); ++n) {
    absl::StatusOr<FileTable> t =
        FileTable::Decode(absl::MakeConstSpan(good.data(), n));
    EXPECT_EQ(t.status().code(), absl::StatusCode::kDataLoss) << n;
  }
  std::vector<uint8_t> v = good;
  v[0] = 9;  // version
  EXPECT_EQ(FileTable::Decode(v).status().code(), absl::StatusCode::kDataLoss);
  v = good;
  v[0] = 0;  // version 0 never existed
  EXPECT_EQ(FileTable::Decode(v).status().code(), absl::StatusCode::kDataLoss);
  v = good;
  v.push_back(0);  // trailing byte
  EXPECT_EQ(FileTable::Decode(v).status().code(), absl::StatusCode::kDataLoss);
  // A huge count is refused before anything is allocated.
  Encoder e;
  e.PutU16(FileTable::kFormatVersion);
  e.PutString("ORCL");
  e.PutU32(1);
  e.PutU64(1);
  e.PutU32(0xFFFFFFFF);
  absl::StatusOr<FileTable> t = FileTable::Decode(e.data());
  EXPECT_EQ(t.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(std::string(t.status().message()).find("exceeds"), std::string::npos);
}

// A version 2 table (what racks made before bigfile and contents were kept)
// still opens: its tablespaces read as smallfile and permanent.
TEST(FileTable, Version2TablesStillDecode) {
  Encoder e;
  e.PutU16(2);
  e.PutString("ORCL");
  e.PutU32(7);
  e.PutU64(1'700'000'000);
  e.PutU32(1);  // one tablespace: number, name, block size (no flags in v2)
  e.PutU32(0);
  e.PutString("USERS");
  e.PutU32(8192);
  for (int list = 0; list < 4; ++list) e.PutU32(0);  // data files, threads, groups, kept
  ASSERT_OK_AND_ASSIGN(FileTable t, FileTable::Decode(e.data()));
  ASSERT_EQ(t.tablespaces.size(), 1u);
  EXPECT_FALSE(t.tablespaces[0].bigfile);
  EXPECT_EQ(t.tablespaces[0].contents, TablespaceContents::kPermanent);
  EXPECT_FALSE(t.archivelog);  // before version 4: NOARCHIVELOG, nothing archived
  EXPECT_TRUE(t.archived_logs.empty());
}

TEST(FileTable, ImpossibleTablespaceFlagsAreRejected) {
  FileTable t;
  t.db_name = "ORCL";
  t.tablespaces = {{0, "USERS", 8192}};
  std::vector<uint8_t> v = t.Encode();
  // Layout: version 2 + name (4 + 4) + dbid 4 + created 8 + count 4 + number 4
  // + name (4 + 5) + block size 4, then the bigfile flag and the contents.
  const size_t flags = 2 + 8 + 4 + 8 + 4 + 4 + 9 + 4;
  ASSERT_LT(flags + 1, v.size());
  std::vector<uint8_t> bad = v;
  bad[flags] = 2;
  absl::StatusOr<FileTable> r = FileTable::Decode(bad);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(std::string(r.status().message()).find("USERS"), std::string::npos) << r.status();
  bad = v;
  bad[flags + 1] = 7;
  EXPECT_EQ(FileTable::Decode(bad).status().code(), absl::StatusCode::kDataLoss);
}

}  // namespace
}  // namespace cellsim::db
