// Bad-input catalogue, rack directories (docs/reliability.md): a corrupt,
// truncated or missing rack file (rack.meta0/1), a truncated flash device, and
// metadata written by a newer cellsim (rack.meta, a cell superblock, an ASM
// checkpoint, the control file: version field rewritten, checksum valid).
// Each case asserts the status code and the key words of the message.
#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "badinput/badinput_util.h"
#include "cellsim/asm/catalog.h"
#include "cellsim/asm/rack_meta.h"
#include "cellsim/base/checksum.h"
#include "cellsim/cell/metadata.h"
#include "cellsim/db/control_file.h"
#include "cellsim/db/database.h"

namespace cellsim::badinput {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

class RackBadInput : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = tmp_.path() + "/rack";
    auto rack = asmgr::Rack::Create(io_.get(), SystemClock(), dir_, TinyRack());
    ASSERT_TRUE(rack.ok()) << rack.status();
    auto db = db::Database::Create(rack->get());
    ASSERT_TRUE(db.ok()) << db.status();
    ASSERT_OK((*db)->Close());
    ASSERT_OK((*rack)->Close());
  }

  absl::Status Open() {
    absl::StatusOr<std::unique_ptr<asmgr::Rack>> r = asmgr::Rack::Open(io_.get(), SystemClock(), dir_);
    if (r.ok()) {
      EXPECT_OK((*r)->Close());
      return absl::OkStatus();
    }
    RecordProperty("error", std::string(r.status().ToString()));  // for the docs
    return r.status();
  }
  std::string Meta(int slot) const { return dir_ + "/rack.meta" + std::to_string(slot); }

  // Rewrites the version field of a rack.meta slot and re-seals it.
  void RackMetaVersion(int slot, uint32_t version) {
    std::vector<uint8_t> b = ReadFileBytes(Meta(slot));
    ASSERT_GE(b.size(), 24u);
    for (int i = 0; i < 4; ++i) b[4 + i] = static_cast<uint8_t>(version >> (8 * i));
    const uint64_t sum = Checksum64(absl::MakeConstSpan(b).subspan(0, b.size() - 8),
                                    asmgr::internal::kRackMetaSeed);
    for (int i = 0; i < 8; ++i) b[b.size() - 8 + i] = static_cast<uint8_t>(sum >> (8 * i));
    WriteBytes(Meta(slot), b);
  }

  cellsim::testing::TempDir tmp_;
  std::unique_ptr<io::IoBackend> io_ = io::MakePosixBackend();
  std::string dir_;
};

TEST_F(RackBadInput, RackFileCorruptBothSlots) {
  for (int slot = 0; slot < 2; ++slot) {
    std::vector<uint8_t> b = ReadFileBytes(Meta(slot));
    b[b.size() / 2] ^= 0x40;
    WriteBytes(Meta(slot), b);
  }
  const absl::Status st = Open();
  EXPECT_EQ(st.code(), absl::StatusCode::kNotFound) << st;
  EXPECT_THAT(std::string(st.message()),
              AllOf(HasSubstr("holds no valid rack"), HasSubstr("rack.meta0: checksum mismatch"),
                    HasSubstr("rack.meta1: checksum mismatch")));
}

TEST_F(RackBadInput, RackFileCorruptOneSlotOpensFromTheOther) {
  // Two slots exist so that a torn write of the newer one leaves the older;
  // a damaged slot is therefore skipped, the other one is used.
  std::vector<uint8_t> b = ReadFileBytes(Meta(1));
  b[9] ^= 0x01;
  WriteBytes(Meta(1), b);
  EXPECT_OK(Open());
}

TEST_F(RackBadInput, RackFileTruncated) {
  std::filesystem::resize_file(Meta(0), 10);
  std::filesystem::resize_file(Meta(1), std::filesystem::file_size(Meta(1)) / 2);
  const absl::Status st = Open();
  EXPECT_EQ(st.code(), absl::StatusCode::kNotFound) << st;
  EXPECT_THAT(std::string(st.message()),
              AllOf(HasSubstr("rack.meta0: too short (10 bytes)"),
                    HasSubstr("rack.meta1: checksum mismatch")));
}

TEST_F(RackBadInput, RackFileEmpty) {
  std::filesystem::resize_file(Meta(0), 0);
  std::filesystem::resize_file(Meta(1), 0);
  const absl::Status st = Open();
  EXPECT_EQ(st.code(), absl::StatusCode::kNotFound) << st;
  EXPECT_THAT(std::string(st.message()), HasSubstr("rack.meta0: too short (0 bytes)"));
}

TEST_F(RackBadInput, RackFileMissing) {
  std::filesystem::remove(Meta(0));
  std::filesystem::remove(Meta(1));
  const absl::Status st = Open();
  EXPECT_EQ(st.code(), absl::StatusCode::kNotFound) << st;
  EXPECT_THAT(std::string(st.message()),
              AllOf(HasSubstr("holds no valid rack"), HasSubstr("rack.meta0"),
                    HasSubstr("rack.meta1")));
}

TEST_F(RackBadInput, RackDirectoryMissing) {
  dir_ = tmp_.path() + "/no-such-rack";
  const absl::Status st = Open();
  EXPECT_EQ(st.code(), absl::StatusCode::kNotFound) << st;
  EXPECT_THAT(std::string(st.message()), HasSubstr("holds no valid rack"));
}

// Only the rack files copied to a new folder (or the cell folders moved
// away): no cell is there, and the rack is refused naming the folders it
// looked for, not opened with every cell absent. (Found by fuzz_rack_meta: a
// rack without disk groups, which had nothing else to refuse it, opened.)
TEST_F(RackBadInput, NoCellFolderIsThere) {
  const std::string only_meta = tmp_.path() + "/only-meta";
  std::filesystem::create_directory(only_meta);
  std::filesystem::copy_file(Meta(0), only_meta + "/rack.meta0");
  std::filesystem::copy_file(Meta(1), only_meta + "/rack.meta1");
  dir_ = only_meta;
  const absl::Status st = Open();
  EXPECT_EQ(st.code(), absl::StatusCode::kFailedPrecondition) << st;
  EXPECT_THAT(std::string(st.message()),
              AllOf(HasSubstr("has none of its"), HasSubstr(only_meta + "/cel01"),
                    HasSubstr("give the folder the rack was created in")));
}

TEST_F(RackBadInput, RackFileNotARack) {
  std::vector<uint8_t> text(100, 'x');
  WriteBytes(Meta(0), text);
  WriteBytes(Meta(1), text);
  const absl::Status st = Open();
  EXPECT_EQ(st.code(), absl::StatusCode::kNotFound) << st;
  EXPECT_THAT(std::string(st.message()), HasSubstr("bad magic 0x78787878 (not a rack file)"));
}

TEST_F(RackBadInput, RackFileNewerVersion) {
  RackMetaVersion(0, 3);
  RackMetaVersion(1, 3);
  const absl::Status st = Open();
  EXPECT_EQ(st.code(), absl::StatusCode::kFailedPrecondition) << st;
  EXPECT_THAT(std::string(st.message()),
              AllOf(HasSubstr("newer format version 3, this build reads version 2"),
                    HasSubstr("rack.meta0")));
}

TEST_F(RackBadInput, RackFileOneSlotNewerVersionRefuses) {
  // The older slot must not be used behind the newer one's back.
  RackMetaVersion(1, 7);
  const absl::Status st = Open();
  EXPECT_EQ(st.code(), absl::StatusCode::kFailedPrecondition) << st;
  EXPECT_THAT(std::string(st.message()), HasSubstr("newer format version 7"));
}

TEST_F(RackBadInput, CellSuperblockNewerVersion) {
  const std::string flash = dir_ + "/cel02/flash.img";
  const std::vector<uint8_t> pages = ReadFileBytes(flash);
  ASSERT_GE(pages.size(), 2 * cell::internal::kPage);
  int patched = 0;
  const uint32_t newer = cell::internal::kSuperblockVersion + 1;
  for (uint64_t at : {uint64_t{0}, cell::internal::kPage}) {
    if (ReadLe(pages, at, 8) == 0) continue;  // a copy never written
    PatchLe(flash, at + 8, newer, 4);         // version u32 after the u64 magic
    const uint32_t body = static_cast<uint32_t>(ReadLe(pages, at + 12, 4));
    std::vector<uint8_t> page(pages.begin() + at, pages.begin() + at + body);
    page[8] = static_cast<uint8_t>(newer);
    page[9] = page[10] = page[11] = 0;
    PatchLe(flash, at + body, Checksum64(page, cell::internal::kSeedSuperblock), 8);
    ++patched;
  }
  ASSERT_GE(patched, 1);
  const absl::Status st = Open();
  EXPECT_EQ(st.code(), absl::StatusCode::kFailedPrecondition) << st;
  EXPECT_THAT(std::string(st.message()),
              AllOf(HasSubstr("cel02/flash.img"),
                    HasSubstr(fmt::format("newer format version {}, this build reads "
                                          "versions 1 to {}",
                                          newer, cell::internal::kSuperblockVersion))));
}

TEST_F(RackBadInput, FlashDeviceTruncated) {
  const std::string flash = dir_ + "/cel01/flash.img";
  std::filesystem::resize_file(flash, std::filesystem::file_size(flash) / 2);
  const absl::Status st = Open();
  EXPECT_EQ(st.code(), absl::StatusCode::kFailedPrecondition) << st;
  EXPECT_THAT(std::string(st.message()),
              AllOf(HasSubstr("cel01/flash.img"), HasSubstr("truncated or replaced")));
}

TEST_F(RackBadInput, AsmCheckpointNewerVersion) {
  int patched = 0;
  for (int slot = 0; slot < 2; ++slot) {
    const std::string p = dir_ + "/asm/DATA.ckpt" + std::to_string(slot);
    if (!std::filesystem::exists(p)) continue;
    std::vector<uint8_t> b = ReadFileBytes(p);
    b[4] = 3;  // this build reads versions 1 and 2
    b[5] = b[6] = b[7] = 0;
    const uint64_t sum = Checksum64(absl::MakeConstSpan(b).subspan(0, b.size() - 8),
                                    asmgr::internal::kCatalogCheckpointSeed);
    for (int i = 0; i < 8; ++i) b[b.size() - 8 + i] = static_cast<uint8_t>(sum >> (8 * i));
    WriteBytes(p, b);
    ++patched;
  }
  ASSERT_GE(patched, 1);
  const absl::Status st = Open();
  EXPECT_EQ(st.code(), absl::StatusCode::kDataLoss) << st;
  EXPECT_THAT(std::string(st.message()),
              AllOf(HasSubstr("disk group DATA checkpoint: no valid copy"),
                    HasSubstr("newer format version 3, this build reads version 2")));
}

TEST_F(RackBadInput, ControlFileNewerVersion) {
  {
    ASSERT_OK_AND_ASSIGN(auto rack, asmgr::Rack::Open(io_.get(), SystemClock(), dir_));
    int copies = 0;  // one in +DATA, one in +RECO (docs/statistics.md)
    for (asmgr::DiskGroup* data : rack->disk_groups()) {
      for (const asmgr::FileInfo& f : data->ListFiles()) {
        if (f.type != asmgr::FileType::kControlFile) continue;
        std::vector<uint8_t> block(db::internal::kControlFileBlockSize);
        std::vector<asmgr::AsmReadRequest> r(1);
        r[0].file_offset = 0;
        r[0].buffer = absl::MakeSpan(block);
        ASSERT_OK(data->Read(f.number, absl::MakeSpan(r), nullptr));
        block[4] = 2;  // version u16 after the u32 magic
        block[5] = 0;
        db::internal::SealControlFileBlock(block.data());
        std::vector<asmgr::AsmWriteRequest> w(1);
        w[0].file_offset = 0;
        w[0].data = block;
        asmgr::AsmIoResult res;
        ASSERT_OK(data->Write(f.number, absl::MakeSpan(w), &res));
        ++copies;
      }
    }
    ASSERT_EQ(copies, 2);
    ASSERT_OK(rack->Close());
  }
  ASSERT_OK_AND_ASSIGN(auto rack, asmgr::Rack::Open(io_.get(), SystemClock(), dir_));
  absl::StatusOr<std::unique_ptr<db::Database>> db = db::Database::Open(rack.get());
  ASSERT_FALSE(db.ok());
  RecordProperty("error", std::string(db.status().ToString()));
  EXPECT_EQ(db.status().code(), absl::StatusCode::kDataLoss) << db.status();
  EXPECT_THAT(std::string(db.status().message()),
              AllOf(HasSubstr("ORA-00202"), HasSubstr("header block 0 is invalid"),
                    HasSubstr("newer format version 2, this build reads version 1")));
  ASSERT_OK(rack->Close());
}

}  // namespace
}  // namespace cellsim::badinput
