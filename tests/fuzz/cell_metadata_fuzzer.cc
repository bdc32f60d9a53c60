// Fuzz target: every on-flash metadata decoder of a cell (cellsim/cell/
// metadata.h) — superblock, journal chunk and its records (including the block
// template inside a template record), checkpoint image — and the CacheState
// that recovery feeds them into.
//
// The first input byte picks the operation; "sealed" operations recompute the
// checksums over the mutated bytes first, so that the structure decoders
// behind the checksum see the mutations too:
//   0 superblock, raw              1 superblock, sealed
//   2 journal chunk, raw           3 journal chunk, sealed, records applied
//   4 checkpoint image, raw        5 checkpoint, sealed, loaded into a CacheState
//   6 recovery: u16 length + superblock, u32 length + checkpoint, then journal
//     segments (u16 length + bytes, each at the next 4 KiB boundary, as chunks
//     lie in the journal area); everything sealed and the superblock pointed at
//     the checkpoint, then the steps of MetadataStore::Recover on those bytes.
// Properties: no crash, hang or leak; errors are DataLoss (InvalidArgument for
// a config the cell refuses) with a message; what decodes re-encodes to bytes
// that decode again; a CacheState that accepted everything keeps its
// invariants (CheckInvariants) and survives a checkpoint round trip.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "cellsim/base/checksum.h"
#include "cellsim/cell/cache_state.h"
#include "cellsim/cell/metadata.h"
#include "cellsim/io/io_backend.h"
#include "fuzz/fuzz_util.h"

namespace cellsim::fuzz {
namespace {

using namespace ::cellsim::cell::internal;  // NOLINT: the formats under test

enum Op : uint8_t {
  kSuperblockRaw,
  kSuperblockSealed,
  kChunkRaw,
  kChunkSealed,
  kCheckpointRaw,
  kCheckpointSealed,
  kRecovery,
  kOps
};

// Superblock field offsets (metadata.cc EncodeSuperblock).
constexpr size_t kSbBodyLength = 12;
constexpr size_t kSbCheckpointLength = 44;
constexpr size_t kSbCheckpointChecksum = 52;

std::vector<uint8_t> Page(absl::Span<const uint8_t> bytes) {
  std::vector<uint8_t> p(kPage, 0);
  std::memcpy(p.data(), bytes.data(), std::min<size_t>(bytes.size(), kPage));
  return p;
}

void SealSuperblock(std::vector<uint8_t>& page) {
  const uint32_t body = static_cast<uint32_t>(GetLe(page.data() + kSbBodyLength, 4));
  if (body < 16 || uint64_t{body} + 8 > page.size()) return;
  PutLe(page.data() + body,
        Checksum64(absl::MakeConstSpan(page).subspan(0, body), kSeedSuperblock), 8);
}

// Re-seals the chunk at the start of `bytes` (payload sum when the payload
// length fits, then the header sum).
void SealChunk(absl::Span<uint8_t> bytes) {
  if (bytes.size() < kChunkHeaderBytes) return;
  uint8_t* h = bytes.data();
  const uint32_t payload = static_cast<uint32_t>(GetLe(h + 24, 4));
  if (payload <= bytes.size() - kChunkHeaderBytes) {
    PutLe(h + 32, Checksum64(bytes.subspan(kChunkHeaderBytes, payload), kSeedChunk), 8);
  }
  PutLe(h + 40, Checksum64(bytes.subspan(0, kChunkHeaderBytes - 8), kSeedChunk), 8);
}

void SealCheckpoint(std::vector<uint8_t>& ck) {
  if (ck.size() < 8) return;
  const size_t n = ck.size() - 8;
  PutLe(ck.data() + n, Checksum64(absl::MakeConstSpan(ck).subspan(0, n), kSeedCheckpoint), 8);
}

// The cell of the corpus rack (fuzz_util.h): its grid disks and layout.
struct Geometry {
  std::vector<uint64_t> disk_sizes;
  FlashLayout layout;
};

absl::StatusOr<Geometry> GeometryOf(const cell::CellConfig& c) {
  absl::StatusOr<FlashLayout> layout = ComputeLayout(c);
  if (!layout.ok()) return layout.status();
  Geometry g{.disk_sizes = {}, .layout = *layout};
  for (uint32_t d = 0; d < c.cell_disks * c.grid_disks.size(); ++d) {
    g.disk_sizes.push_back(c.grid_disks[d / c.cell_disks].size_bytes);
  }
  return g;
}

const Geometry& CorpusGeometry() {
  static const Geometry* g = [] {
    const asmgr::RackConfig rc = CorpusRackConfig();
    cell::CellConfig c;
    c.cell_disks = rc.cell_disks_per_cell;
    c.grid_disks.clear();
    for (const asmgr::DiskGroupSpec& s : rc.disk_groups) c.grid_disks.push_back({s.name, s.grid_disk_size});
    c.flash_size_bytes = rc.flash_size;
    absl::StatusOr<Geometry> geo = GeometryOf(c);
    FUZZ_CHECK(geo.ok(), "corpus geometry: %s", std::string(geo.status().message()).c_str());
    return new Geometry(*std::move(geo));
  }();
  return *g;
}

// A state that accepted its input: invariants hold, and a checkpoint of it
// encodes, decodes and loads into a fresh state.
void CheckState(const CacheState& state, const Geometry& g) {
  absl::Status inv = state.CheckInvariants();
  FUZZ_CHECK(inv.ok(), "invariant broken by accepted metadata: %s",
             std::string(inv.message()).c_str());
  std::vector<uint8_t> bytes;
  EncodeCheckpoint(state.Snapshot(), &bytes);
  absl::StatusOr<CheckpointImage> img = DecodeCheckpoint(bytes);
  FUZZ_CHECK(img.ok(), "re-encoded checkpoint does not decode: %s",
             std::string(img.status().message()).c_str());
  CacheState again(g.disk_sizes, g.layout.line_size, g.layout.num_slots);
  absl::Status load = again.LoadCheckpoint(*img);
  FUZZ_CHECK(load.ok(), "re-encoded checkpoint does not load: %s",
             std::string(load.message()).c_str());
  FUZZ_CHECK(again.valid_pages() == state.valid_pages() &&
                 again.dirty_pages() == state.dirty_pages() &&
                 again.template_count() == state.template_count() &&
                 again.lost_count() == state.lost_count(),
             "checkpoint round trip changed the state");
}

// Applies records as replay does; false after the first rejected one.
bool ApplyAll(CacheState& state, const std::vector<Record>& records, uint64_t seq) {
  for (const Record& r : records) {
    absl::Status s = state.Apply(r, seq);
    if (!s.ok()) {
      CheckError(s, {absl::StatusCode::kDataLoss});
      return false;
    }
  }
  return true;
}

void SuperblockOp(absl::Span<const uint8_t> bytes, bool seal) {
  std::vector<uint8_t> page = Page(bytes);
  if (seal) SealSuperblock(page);
  absl::StatusOr<Superblock> sb = DecodeSuperblock(page, 'A');
  if (!sb.ok()) {
    CheckError(sb.status(), {absl::StatusCode::kDataLoss, absl::StatusCode::kFailedPrecondition});
    return;
  }
  std::vector<uint8_t> again(kPage);
  EncodeSuperblock(*sb, absl::MakeSpan(again));
  absl::StatusOr<Superblock> sb2 = DecodeSuperblock(again, 'B');
  FUZZ_CHECK(sb2.ok(), "re-encoded superblock does not decode: %s",
             std::string(sb2.status().message()).c_str());
  FUZZ_CHECK(sb2->generation == sb->generation && sb2->epoch == sb->epoch &&
                 sb2->config.name == sb->config.name &&
                 sb2->config.grid_disks.size() == sb->config.grid_disks.size(),
             "superblock round trip changed fields");
  // What Cell::Open does next with the decoded configuration.
  if (sb->config.Validate().ok()) (void)ComputeLayout(sb->config);
}

void ChunkOp(absl::Span<const uint8_t> bytes, bool seal) {
  std::vector<uint8_t> chunk(bytes.begin(), bytes.end());
  if (seal) SealChunk(absl::MakeSpan(chunk));
  const uint64_t epoch = chunk.size() >= 16 ? GetLe(chunk.data() + 8, 8) : 0;
  const uint64_t seq = chunk.size() >= 24 ? GetLe(chunk.data() + 16, 8) : 0;
  (void)LooksLikeLaterChunk(chunk, epoch, seq == 0 ? 0 : seq - 1);
  (void)IsStaleChunk(chunk, epoch + 1);
  (void)IsNewerChunk(chunk, epoch == 0 ? 0 : epoch - 1);
  std::vector<Record> records;
  uint64_t chunk_bytes = 0;
  if (!DecodeChunk(chunk, epoch, seq, &records, &chunk_bytes)) return;
  FUZZ_CHECK(chunk_bytes % kPage == 0 && chunk_bytes >= kPage, "chunk size %llu",
             static_cast<unsigned long long>(chunk_bytes));
  // Re-encoding the records gives a chunk that decodes to the same records.
  std::vector<uint8_t> again;
  EncodeChunk(epoch, seq, records, &again);
  std::vector<Record> records2;
  uint64_t bytes2 = 0;
  FUZZ_CHECK(DecodeChunk(again, epoch, seq, &records2, &bytes2) &&
                 records2.size() == records.size(),
             "re-encoded chunk does not decode");
  if (!seal) return;
  const Geometry& g = CorpusGeometry();
  CacheState state(g.disk_sizes, g.layout.line_size, g.layout.num_slots);
  ApplyAll(state, records, seq);
  // Records may contradict each other (a line over a template range);
  // recovery checks the invariants after replay and reports DataLoss then.
  absl::Status inv = state.CheckInvariants();
  if (!inv.ok()) CheckError(inv, {absl::StatusCode::kInternal});
}

void CheckpointOp(absl::Span<const uint8_t> bytes, bool seal) {
  std::vector<uint8_t> ck(bytes.begin(), bytes.end());
  if (seal) SealCheckpoint(ck);
  absl::StatusOr<CheckpointImage> img = DecodeCheckpoint(ck);
  if (!img.ok()) {
    CheckError(img.status(), {absl::StatusCode::kDataLoss});
    return;
  }
  std::vector<uint8_t> again;
  EncodeCheckpoint(*img, &again);
  FUZZ_CHECK(again == ck, "checkpoint re-encodes to different bytes");
  const Geometry& g = CorpusGeometry();
  CacheState state(g.disk_sizes, g.layout.line_size, g.layout.num_slots);
  absl::Status load = state.LoadCheckpoint(*img);
  if (!load.ok()) {
    CheckError(load, {absl::StatusCode::kDataLoss});
    return;
  }
  CheckState(state, g);
}

// The steps of MetadataStore::Recover (journal.cc) over in-memory areas:
// superblock -> configuration -> layout -> checkpoint -> journal replay.
void RecoveryOp(Input& in) {
  std::vector<uint8_t> page = Page(in.Bytes(in.U16()));
  const absl::Span<const uint8_t> ck_in = in.Bytes(in.U32() % (1u << 20));
  std::vector<uint8_t> ck(ck_in.begin(), ck_in.end());
  SealCheckpoint(ck);
  std::vector<uint8_t> journal;
  while (!in.empty() && journal.size() < 64 * kPage) {
    const absl::Span<const uint8_t> seg = in.Bytes(in.U16());
    const size_t at = journal.size();
    journal.resize(at + io::AlignUp(std::max<size_t>(seg.size(), 1), kPage), 0);
    std::memcpy(journal.data() + at, seg.data(), seg.size());
    SealChunk(absl::MakeSpan(journal).subspan(at));
  }
  if (journal.empty()) journal.resize(kPage, 0);
  PutLe(page.data() + kSbCheckpointLength, ck.size(), 8);
  PutLe(page.data() + kSbCheckpointChecksum, Checksum64(ck), 8);
  SealSuperblock(page);

  absl::StatusOr<Superblock> sb = DecodeSuperblock(page, 'A');
  if (!sb.ok()) {
    CheckError(sb.status(), {absl::StatusCode::kDataLoss, absl::StatusCode::kFailedPrecondition});
    return;
  }
  if (!sb->config.Validate().ok()) return;  // Cell::Open refuses it (DataLoss)
  absl::StatusOr<Geometry> g = GeometryOf(sb->config);
  if (!g.ok()) {
    CheckError(g.status(), {absl::StatusCode::kInvalidArgument});
    return;
  }
  // A larger cache directory needs a flash device of that size on disk (Open
  // checks the file size against the layout): not a decoding question.
  if (g->layout.num_slots > (1u << 16)) return;
  if (sb->checkpoint_length > g->layout.checkpoint_bytes) return;  // DataLoss in Recover
  CacheState state(g->disk_sizes, g->layout.line_size, g->layout.num_slots);
  absl::StatusOr<CheckpointImage> img = DecodeCheckpoint(ck);
  if (!img.ok()) {
    CheckError(img.status(), {absl::StatusCode::kDataLoss});
    return;
  }
  if (absl::Status s = state.LoadCheckpoint(*img); !s.ok()) {
    CheckError(s, {absl::StatusCode::kDataLoss});
    return;
  }
  const absl::Span<const uint8_t> j(journal);
  if (IsNewerChunk(j, sb->epoch)) return;  // DataLoss in Recover
  uint64_t pos = 0, seq = sb->journal_first_seq;
  std::vector<Record> records;
  while (pos < j.size()) {
    records.clear();
    uint64_t bytes = 0;
    if (!DecodeChunk(j.subspan(pos), sb->epoch, seq, &records, &bytes)) break;
    FUZZ_CHECK(bytes > 0 && bytes % kPage == 0, "chunk of %llu bytes",
               static_cast<unsigned long long>(bytes));
    if (!ApplyAll(state, records, seq)) return;
    pos += bytes;
    ++seq;
  }
  if (pos < j.size()) {
    for (uint64_t p = pos + kPage; p + kChunkHeaderBytes <= j.size(); p += kPage) {
      if (LooksLikeLaterChunk(j.subspan(p), sb->epoch, seq - 1)) return;  // DataLoss
    }
    (void)IsStaleChunk(j.subspan(pos, std::min<uint64_t>(kPage, j.size() - pos)), sb->epoch);
  }
  if (!state.CheckInvariants().ok()) return;  // DataLoss in Recover
  state.MarkSynced(UINT64_MAX);
  CheckState(state, *g);
}

}  // namespace
}  // namespace cellsim::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cellsim::fuzz;  // NOLINT
  Input in(data, size);
  const uint8_t op = in.U8() % kOps;
  switch (op) {
    case kSuperblockRaw:
    case kSuperblockSealed:
      SuperblockOp(in.Rest(), op == kSuperblockSealed);
      break;
    case kChunkRaw:
    case kChunkSealed:
      ChunkOp(in.Rest(), op == kChunkSealed);
      break;
    case kCheckpointRaw:
    case kCheckpointSealed:
      CheckpointOp(in.Rest(), op == kCheckpointSealed);
      break;
    default:
      RecoveryOp(in);
      break;
  }
  return 0;
}
