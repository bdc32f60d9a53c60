#include "cellsim/format/block_template.h"

#include <cstring>
#include <random>
#include <vector>

#include "testing/test_util.h"

namespace cellsim::format {
namespace {

uint32_t Le32(const uint8_t* p) { return p[0] | p[1] << 8 | p[2] << 16 | uint32_t{p[3]} << 24; }

TEST(BlockTemplateTest, DataBlockLayoutMatchesDomainFacts) {
  BlockTemplate t{.kind = BlockKind::kData, .block_size = 8192, .file_number = 7,
                  .file_blocks = 100};
  ASSERT_OK(t.Validate());
  std::vector<uint8_t> b(8192);
  GenerateBlock(t, 42, absl::MakeSpan(b));
  EXPECT_EQ(b[0], kDataBlockTypeNew);
  EXPECT_EQ(b[1], 0xA2);
  EXPECT_EQ(b[2], 0);
  EXPECT_EQ(b[3], 0);
  EXPECT_EQ(Le32(&b[4]), (7u << 22) | 42u);
  EXPECT_EQ(Le32(&b[8]), 0u);  // SCN base
  EXPECT_EQ(b[12], 0);         // SCN wrap
  EXPECT_EQ(b[13], 0);
  EXPECT_EQ(b[14], 1);     // sequence
  EXPECT_EQ(b[15], 0x05);  // flags: new | checksum
  EXPECT_EQ(b[18], 0);
  EXPECT_EQ(b[19], 0);
  // Tail: SCN base low 16 bits, type, sequence.
  EXPECT_EQ(b[8188], 0);
  EXPECT_EQ(b[8189], 0);
  EXPECT_EQ(b[8190], kDataBlockTypeNew);
  EXPECT_EQ(b[8191], 1);
  for (size_t i = 20; i < 8188; ++i) ASSERT_EQ(b[i], 0) << i;
  // The stored checksum makes the block XOR to zero.
  const uint16_t stored = b[16] | (b[17] << 8);
  EXPECT_NE(stored, 0);
  EXPECT_EQ(DataBlockChecksum(b), stored);
  uint16_t all = 0;
  for (size_t i = 0; i < b.size(); i += 2) all ^= b[i] | (b[i + 1] << 8);
  EXPECT_EQ(all, 0);
  EXPECT_OK(VerifyBlock(t, 42, b));
}

TEST(BlockTemplateTest, OsHeaderBlock) {
  BlockTemplate t{.kind = BlockKind::kData, .block_size = 8192, .file_number = 3,
                  .file_blocks = 1281};
  std::vector<uint8_t> b(8192);
  GenerateBlock(t, 0, absl::MakeSpan(b));
  EXPECT_EQ(b[0], kOsHeaderType);
  EXPECT_EQ(b[1], 0xA2);
  EXPECT_EQ(Le32(&b[4]), kOsHeaderRdba);
  EXPECT_EQ(Le32(&b[20]), 8192u);
  EXPECT_EQ(Le32(&b[24]), 1280u);
  EXPECT_EQ(Le32(&b[28]), 0x7A7B7C7Du);
  for (size_t i = 32; i < b.size(); ++i) ASSERT_EQ(b[i], 0) << i;
}

TEST(BlockTemplateTest, RedoBlockLayout) {
  BlockTemplate t{.kind = BlockKind::kRedo, .block_size = 512, .file_number = 5,
                  .file_blocks = 8192};
  ASSERT_OK(t.Validate());
  std::vector<uint8_t> b(512);
  GenerateBlock(t, 77, absl::MakeSpan(b));
  EXPECT_EQ(b[0], kRedoSignature);
  EXPECT_EQ(b[1], kRedoFormat);
  EXPECT_EQ(Le32(&b[4]), 77u);
  EXPECT_EQ(Le32(&b[8]), 0u);
  EXPECT_EQ(b[12] | (b[13] << 8), 0);
  EXPECT_EQ(RedoBlockChecksum(b), b[14] | (b[15] << 8));
  for (size_t i = 16; i < b.size(); ++i) ASSERT_EQ(b[i], 0) << i;
  GenerateBlock(t, 0, absl::MakeSpan(b));
  EXPECT_EQ(b[1], kRedoFormat);
  EXPECT_EQ(Le32(&b[20]), 512u);
  EXPECT_EQ(Le32(&b[28]), kOsHeaderMagic);
}

TEST(BlockTemplateTest, ZeroKindAndPastEndAreZeros) {
  BlockTemplate z{.kind = BlockKind::kZero, .block_size = 4096, .file_blocks = 4};
  std::vector<uint8_t> b(3 * 4096 + 512, 0xEE);
  GenerateRange(z, 512, absl::MakeSpan(b));
  for (uint8_t v : b) ASSERT_EQ(v, 0);
  BlockTemplate d{.kind = BlockKind::kData, .block_size = 2048, .file_number = 1,
                  .file_blocks = 2};
  std::vector<uint8_t> past(4096, 0xEE);
  GenerateRange(d, 4096, absl::MakeSpan(past));  // blocks 2 and 3: past the end
  for (uint8_t v : past) ASSERT_EQ(v, 0);
}

TEST(BlockTemplateTest, RangeEqualsConcatenatedBlocksAtAnyAlignment) {
  std::mt19937_64 rng(1234);
  const uint32_t sizes[] = {2048, 4096, 8192, 16384, 32768};
  for (int iter = 0; iter < 200; ++iter) {
    BlockTemplate t;
    if (iter % 4 == 0) {
      t = {.kind = BlockKind::kRedo, .block_size = (iter % 8 == 0) ? 512u : 4096u,
           .file_number = 2, .file_blocks = 1 + rng() % 64};
    } else {
      t = {.kind = BlockKind::kData, .block_size = sizes[rng() % 5],
           .file_number = static_cast<uint32_t>(rng() % 1024), .file_blocks = 1 + rng() % 64};
    }
    ASSERT_OK(t.Validate());
    const uint64_t file_bytes = (t.file_blocks + 2) * t.block_size;  // includes past-end
    std::vector<uint8_t> whole(file_bytes);
    for (uint64_t i = 0; i < file_bytes / t.block_size; ++i) {
      GenerateBlock(t, i, absl::MakeSpan(whole).subspan(i * t.block_size, t.block_size));
    }
    const uint64_t off = rng() % file_bytes;
    const uint64_t len = rng() % (file_bytes - off + 1);
    std::vector<uint8_t> part(len, 0xCC);
    GenerateRange(t, off, absl::MakeSpan(part));
    ASSERT_EQ(0, std::memcmp(part.data(), whole.data() + off, len))
        << t.DebugString() << " off=" << off << " len=" << len;
  }
}

TEST(BlockTemplateTest, VerifyBlockNamesTheField) {
  BlockTemplate t{.kind = BlockKind::kData, .block_size = 8192, .file_number = 9,
                  .file_blocks = 10};
  std::vector<uint8_t> b(8192);
  GenerateBlock(t, 3, absl::MakeSpan(b));
  b[5] ^= 1;
  absl::Status s = VerifyBlock(t, 3, b);
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(std::string(s.message()), ::testing::HasSubstr("rdba"));
  GenerateBlock(t, 3, absl::MakeSpan(b));
  b[8190] = 0;
  EXPECT_THAT(std::string(VerifyBlock(t, 3, b).message()), ::testing::HasSubstr("tail"));
  EXPECT_FALSE(VerifyBlock(t, 4, absl::MakeSpan(b).subspan(0, 4096)).ok());
}

TEST(BlockTemplateTest, ValidateRejectsBadTemplates) {
  EXPECT_FALSE((BlockTemplate{.kind = BlockKind::kData, .block_size = 1024}).Validate().ok());
  EXPECT_FALSE((BlockTemplate{.kind = BlockKind::kData, .block_size = 8192,
                              .file_number = 1024}).Validate().ok());
  EXPECT_FALSE((BlockTemplate{.kind = BlockKind::kData, .block_size = 8192, .file_number = 1,
                              .file_blocks = (1u << 22) + 1}).Validate().ok());
  EXPECT_FALSE((BlockTemplate{.kind = BlockKind::kRedo, .block_size = 1024}).Validate().ok());
  EXPECT_FALSE((BlockTemplate{.kind = BlockKind::kZero, .block_size = 1000}).Validate().ok());
  absl::Status s = BlockTemplate{.kind = BlockKind::kData, .block_size = 3000}.Validate();
  EXPECT_THAT(std::string(s.message()), ::testing::HasSubstr("3000"));
}

TEST(BlockTemplateTest, EncodeDecodeRoundTripAndHostileInput) {
  BlockTemplate t{.kind = BlockKind::kRedo, .block_size = 4096, .file_number = 12,
                  .file_blocks = 123456};
  Encoder e;
  t.EncodeTo(&e);
  ASSERT_EQ(e.size(), BlockTemplate::kEncodedSize);
  Decoder d(e.data());
  BlockTemplate back;
  ASSERT_TRUE(BlockTemplate::DecodeFrom(&d, &back));
  EXPECT_EQ(back, t);
  // Truncated.
  Decoder shortd(e.data().subspan(0, 19));
  EXPECT_FALSE(BlockTemplate::DecodeFrom(&shortd, &back));
  // Unknown kind, non-zero reserved byte, invalid block size.
  for (size_t pos : {size_t{0}, size_t{2}, size_t{4}}) {
    std::vector<uint8_t> bad = e.bytes();
    bad[pos] = 0x7F;
    Decoder bd(bad);
    EXPECT_FALSE(BlockTemplate::DecodeFrom(&bd, &back)) << pos;
  }
}

}  // namespace
}  // namespace cellsim::format
