#include "cellsim/cell/metadata.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstring>

#include "cellsim/io/io_backend.h"

namespace cellsim::cell::internal {
namespace {

constexpr uint64_t kSuperblockMagic = 0x3146534D4C4C4543ull;  // "CELLMSF1"
constexpr uint32_t kCheckpointMagic = 0x314B4353;             // "SCK1"
constexpr size_t kLineEntryBytes = 4 + 8 + 4 + 8 + 8;
constexpr size_t kTemplateEntryBytes = 4 + 8 + 8 + format::BlockTemplate::kEncodedSize + 8;
constexpr size_t kRangeEntryBytes = 4 + 8 + 8;

void EncodeConfig(const CellConfig& c, uint32_t version, Encoder* e) {
  e->PutString(c.name);
  e->PutU32(c.cell_disks);
  e->PutU32(static_cast<uint32_t>(c.grid_disks.size()));
  for (const GridDiskSpec& g : c.grid_disks) {
    e->PutString(g.prefix);
    e->PutU64(g.size_bytes);
  }
  e->PutU64(c.flash_size_bytes);
  e->PutU32(c.cache_line_size);
  e->PutU8(static_cast<uint8_t>(c.flash_cache_mode));
  e->PutU64(std::bit_cast<uint64_t>(c.destage_high_watermark));
  e->PutU64(std::bit_cast<uint64_t>(c.destage_low_watermark));
  e->PutU64(c.write_bypass_bytes);
  e->PutU64(c.read_populate_max_bytes);
  e->PutU8(c.direct_io ? 1 : 0);
  e->PutU32(c.max_template_ranges);
  e->PutU32(c.max_lost_ranges);
  e->PutU64(c.journal_bytes);
  if (version >= 2) {
    e->PutU32(static_cast<uint32_t>(c.caching_policies.size()));
    for (CachingPolicy p : c.caching_policies) e->PutU8(static_cast<uint8_t>(p));
  }
  if (version >= 4) {
    e->PutU32(static_cast<uint32_t>(c.inactive_grid_disks.size()));
    for (bool inactive : c.inactive_grid_disks) e->PutU8(inactive ? 1 : 0);
  }
}

bool DecodeConfig(Decoder* d, uint32_t version, CellConfig* c) {
  uint32_t n;
  if (!d->GetString(&c->name, 256) || !d->GetU32(&c->cell_disks) || !d->GetU32(&n) || n > 64) {
    return false;
  }
  c->grid_disks.clear();
  for (uint32_t i = 0; i < n; ++i) {
    GridDiskSpec g;
    if (!d->GetString(&g.prefix, 64) || !d->GetU64(&g.size_bytes)) return false;
    c->grid_disks.push_back(g);
  }
  uint8_t mode, direct;
  uint64_t high, low;
  if (!d->GetU64(&c->flash_size_bytes) || !d->GetU32(&c->cache_line_size) ||
      !d->GetU8(&mode) || !d->GetU64(&high) || !d->GetU64(&low) ||
      !d->GetU64(&c->write_bypass_bytes) || !d->GetU64(&c->read_populate_max_bytes) ||
      !d->GetU8(&direct) || !d->GetU32(&c->max_template_ranges) ||
      !d->GetU32(&c->max_lost_ranges) || !d->GetU64(&c->journal_bytes)) {
    return false;
  }
  if (mode > 1 || direct > 1) return false;
  c->caching_policies.clear();
  if (version >= 2) {
    uint32_t policies;
    if (!d->GetU32(&policies) || policies > 64 * 64) return false;
    for (uint32_t i = 0; i < policies; ++i) {
      uint8_t p;
      if (!d->GetU8(&p) || p > static_cast<uint8_t>(CachingPolicy::kNone)) return false;
      c->caching_policies.push_back(static_cast<CachingPolicy>(p));
    }
  }
  c->inactive_grid_disks.clear();
  if (version >= 4) {
    uint32_t disks;
    if (!d->GetU32(&disks) || disks > 64 * 64) return false;
    for (uint32_t i = 0; i < disks; ++i) {
      uint8_t inactive;
      if (!d->GetU8(&inactive) || inactive > 1) return false;
      c->inactive_grid_disks.push_back(inactive != 0);
    }
  }
  c->flash_cache_mode = static_cast<FlashCacheMode>(mode);
  c->destage_high_watermark = std::bit_cast<double>(high);
  c->destage_low_watermark = std::bit_cast<double>(low);
  c->direct_io = direct != 0;
  return true;
}

}  // namespace

absl::StatusOr<FlashLayout> ComputeLayout(const CellConfig& c) {
  FlashLayout l;
  l.line_size = c.cache_line_size;
  const uint64_t max_lines = c.flash_size_bytes / c.cache_line_size;
  l.checkpoint_bytes = io::AlignUp(
      CheckpointBytes(max_lines, c.max_template_ranges, c.max_lost_ranges), kPage);
  l.checkpoint_offset[0] = 2 * kPage;
  l.checkpoint_offset[1] = l.checkpoint_offset[0] + l.checkpoint_bytes;
  l.journal_offset = l.checkpoint_offset[1] + l.checkpoint_bytes;
  l.journal_bytes = io::AlignUp(c.journal_bytes, kPage);
  l.data_offset = io::AlignUp(l.journal_offset + l.journal_bytes, kPage);
  l.file_bytes = c.flash_size_bytes;
  const uint64_t slots =
      l.data_offset >= l.file_bytes ? 0 : (l.file_bytes - l.data_offset) / l.line_size;
  if (slots < 4) {
    return absl::InvalidArgumentError(fmt::format(
        "cell {}: flash of {} bytes leaves room for {} cache lines of {} bytes after {} bytes "
        "of metadata (checkpoints for {} templates/{} lost ranges, {} byte journal); "
        "at least 4 are needed",
        c.name, c.flash_size_bytes, slots, c.cache_line_size, l.data_offset,
        c.max_template_ranges, c.max_lost_ranges, l.journal_bytes));
  }
  l.num_slots = static_cast<uint32_t>(std::min<uint64_t>(slots, UINT32_MAX));
  return l;
}

void EncodeSuperblock(const Superblock& sb, absl::Span<uint8_t> page, uint32_t version) {
  Encoder e;
  e.PutU64(kSuperblockMagic);
  e.PutU32(version);
  e.PutU32(0);  // body length, patched below
  e.PutU64(sb.generation);
  e.PutU64(sb.epoch);
  e.PutU64(sb.journal_first_seq);
  e.PutU32(sb.checkpoint_area);
  e.PutU64(sb.checkpoint_length);
  e.PutU64(sb.checkpoint_checksum);
  e.PutU64(static_cast<uint64_t>(sb.creation_time_unix));
  EncodeConfig(sb.config, version, &e);
  e.PatchU32(12, static_cast<uint32_t>(e.size()));
  e.PutU64(Checksum64(e.data(), kSeedSuperblock));
  std::memset(page.data(), 0, page.size());
  std::memcpy(page.data(), e.data().data(), std::min(e.size(), page.size()));
}

absl::StatusOr<Superblock> DecodeSuperblock(absl::Span<const uint8_t> page, char which) {
  const std::string what = fmt::format("flash superblock copy {}", which);
  Decoder d(page);
  uint64_t magic;
  uint32_t version, body;
  if (!d.GetU64(&magic) || !d.GetU32(&version) || !d.GetU32(&body)) return d.Truncated(what);
  if (magic != kSuperblockMagic) {
    return absl::DataLossError(fmt::format("{}: bad magic 0x{:016x}", what, magic));
  }
  if (body < 16 || uint64_t{body} + 8 > page.size()) {  // u32 + 8 could wrap
    return absl::DataLossError(fmt::format("{}: body length {} out of range (format version {})",
                                           what, body, version));
  }
  uint64_t stored = 0;
  std::memcpy(&stored, page.data() + body, 8);  // little-endian host (x86/arm64)
  if (Checksum64(page.subspan(0, body), kSeedSuperblock) != stored) {
    return absl::DataLossError(fmt::format("{}: bad checksum", what));
  }
  // The version is trusted only once the checksum holds: a damaged version
  // field is corruption, a valid newer one means a newer cellsim wrote it.
  if (version > kSuperblockVersion) {
    return absl::FailedPreconditionError(fmt::format(
        "{}: newer format version {}, this build reads versions 1 to {}", what, version,
        kSuperblockVersion));
  }
  if (version < 1) {
    return absl::DataLossError(fmt::format(
        "{}: unsupported format version {}, this build reads versions 1 to {}", what, version,
        kSuperblockVersion));
  }
  Superblock sb;
  uint64_t ctime;
  Decoder b(page.subspan(0, body));
  b.Skip(16);
  if (!b.GetU64(&sb.generation) || !b.GetU64(&sb.epoch) || !b.GetU64(&sb.journal_first_seq) ||
      !b.GetU32(&sb.checkpoint_area) || !b.GetU64(&sb.checkpoint_length) ||
      !b.GetU64(&sb.checkpoint_checksum) || !b.GetU64(&ctime) ||
      !DecodeConfig(&b, version, &sb.config) || sb.checkpoint_area > 1) {
    return b.Truncated(what);
  }
  sb.creation_time_unix = static_cast<int64_t>(ctime);
  return sb;
}

namespace {

// A record's encoded size: type u8, disk u32, then by type.
size_t EncodedRecordSize(const Record& r) {
  switch (r.type) {
    case RecordType::kLineSet:
      return 5 + 8 + 4 + 8 + 8;
    case RecordType::kLineData:
      return 5 + 8 + 4 + 8 + 8 + 8 + 8;
    case RecordType::kLineDrop:
      return 5 + 8;
    case RecordType::kTemplateAdd:
      return 5 + 8 + 8 + format::BlockTemplate::kEncodedSize + 8;
    default:
      return 5 + 8 + 8;
  }
}

// Writes the EncodedRecordSize(r) bytes of r at p (the layout DecodeRecord
// reads); returns the end.
uint8_t* StoreRecord(const Record& r, uint8_t* p) {
  p = StoreLe(p, static_cast<uint8_t>(r.type), 1);
  p = StoreLe(p, r.disk, 4);
  switch (r.type) {
    case RecordType::kLineSet:
    case RecordType::kLineData:
      p = StoreLe(p, r.line, 8);
      p = StoreLe(p, r.slot, 4);
      p = StoreLe(p, r.valid, 8);
      p = StoreLe(p, r.dirty, 8);
      if (r.type == RecordType::kLineData) {
        p = StoreLe(p, r.data_mask, 8);
        p = StoreLe(p, r.data_checksum, 8);
      }
      return p;
    case RecordType::kLineDrop:
      return StoreLe(p, r.line, 8);
    case RecordType::kTemplateAdd:
      p = StoreLe(p, r.offset, 8);
      p = StoreLe(p, r.length, 8);
      p = r.tmpl.EncodeTo(p);
      return StoreLe(p, r.file_offset, 8);
    default:
      p = StoreLe(p, r.offset, 8);
      return StoreLe(p, r.length, 8);
  }
}

}  // namespace

void EncodeRecord(const Record& r, Encoder* e) { StoreRecord(r, e->Extend(EncodedRecordSize(r))); }

bool DecodeRecord(Decoder* d, Record* r) {
  uint8_t type;
  if (!d->GetU8(&type) || !d->GetU32(&r->disk)) return false;
  if (type < 1 || type > 10) return false;
  r->type = static_cast<RecordType>(type);
  switch (r->type) {
    case RecordType::kLineSet:
      return d->GetU64(&r->line) && d->GetU32(&r->slot) && d->GetU64(&r->valid) &&
             d->GetU64(&r->dirty);
    case RecordType::kLineData:
      // The data pages must be a subset of the valid ones.
      return d->GetU64(&r->line) && d->GetU32(&r->slot) && d->GetU64(&r->valid) &&
             d->GetU64(&r->dirty) && d->GetU64(&r->data_mask) && d->GetU64(&r->data_checksum) &&
             r->data_mask != 0 && (r->data_mask & ~r->valid) == 0;
    case RecordType::kLineDrop:
      return d->GetU64(&r->line);
    case RecordType::kTemplateAdd:
      return d->GetU64(&r->offset) && d->GetU64(&r->length) &&
             format::BlockTemplate::DecodeFrom(d, &r->tmpl) && d->GetU64(&r->file_offset);
    default:
      return d->GetU64(&r->offset) && d->GetU64(&r->length);
  }
}

uint64_t DataPagesChecksum(absl::Span<const uint8_t> pages) {
  uint64_t h = kSeedData;
  for (size_t at = 0; at < pages.size(); at += kPage) {
    h = Checksum64(pages.subspan(at, std::min<size_t>(kPage, pages.size() - at)), h);
  }
  return h;
}

uint64_t LinePagesChecksum(const uint8_t* line, uint64_t mask) {
  uint64_t h = kSeedData;
  for (uint32_t p = 0; p < 64; ++p) {
    if ((mask >> p & 1) != 0) h = Checksum64(absl::MakeConstSpan(line + p * kPage, kPage), h);
  }
  return h;
}

uint64_t ChunkDataPages(absl::Span<const Record> records) {
  uint64_t n = 0;
  for (const Record& r : records) {
    if (r.type == RecordType::kLineData) n += static_cast<uint64_t>(std::popcount(r.data_mask));
  }
  return n;
}

void EncodeChunk(uint64_t epoch, uint64_t seq, absl::Span<const Record> records,
                 std::vector<uint8_t>* out) {
  // The records go straight after the header's place in `out` (its capacity
  // reused: a fast creation's chunk of thousands of records is neither
  // regrown nor copied on every append).
  Encoder payload;
  payload.bytes().swap(*out);
  payload.bytes().assign(kChunkHeaderBytes, 0);
  // Sized once, then written in place: a fast creation's chunk holds
  // thousands of records.
  size_t bytes = 0;
  for (const Record& r : records) bytes += EncodedRecordSize(r);
  uint8_t* p = payload.Extend(bytes);
  for (const Record& r : records) p = StoreRecord(r, p);
  const absl::Span<const uint8_t> body = payload.data().subspan(kChunkHeaderBytes);
  Encoder h;
  h.PutU32(kChunkMagic);
  h.PutU16(static_cast<uint16_t>(kChunkVersion));
  h.PutU16(static_cast<uint16_t>(std::min(ChunkDataPages(records), kMaxChunkDataPages)));
  h.PutU64(epoch);
  h.PutU64(seq);
  h.PutU32(static_cast<uint32_t>(body.size()));
  h.PutU32(static_cast<uint32_t>(records.size()));
  h.PutU64(Checksum64(body, kSeedChunk));
  h.PutU64(Checksum64(h.data(), kSeedChunk));
  out->swap(payload.bytes());
  std::memcpy(out->data(), h.data().data(), h.size());
  out->resize(io::AlignUp(out->size(), kPage), 0);
}

namespace {
struct ChunkHeader {
  uint64_t epoch = 0, seq = 0, payload_sum = 0;
  uint32_t payload = 0, count = 0;
  uint16_t version = 0, data_pages = 0;
};
bool ParseChunkHeader(absl::Span<const uint8_t> bytes, ChunkHeader* h) {
  if (bytes.size() < kChunkHeaderBytes) return false;
  Decoder d(bytes.subspan(0, kChunkHeaderBytes));
  uint32_t magic;
  uint16_t& version = h->version;
  uint64_t hsum;
  if (!d.GetU32(&magic) || !d.GetU16(&version) || !d.GetU16(&h->data_pages) ||
      !d.GetU64(&h->epoch) || !d.GetU64(&h->seq) || !d.GetU32(&h->payload) ||
      !d.GetU32(&h->count) || !d.GetU64(&h->payload_sum) || !d.GetU64(&hsum)) {
    return false;
  }
  // Version 1 (before data pages) has 0 in their place.
  if (magic != kChunkMagic || version < 1 || version > kChunkVersion ||
      (version == 1 && h->data_pages != 0)) {
    return false;
  }
  return Checksum64(bytes.subspan(0, kChunkHeaderBytes - 8), kSeedChunk) == hsum;
}

// Checks the data pages after a chunk's records against the records' checksums
// (false: a torn write) and hands them out per record.
bool CheckChunkData(absl::Span<const uint8_t> data, const std::vector<Record>& got,
                    std::vector<absl::Span<const uint8_t>>* out) {
  size_t at = 0;
  for (const Record& r : got) {
    if (r.type != RecordType::kLineData) {
      if (out != nullptr) out->emplace_back();
      continue;
    }
    const size_t n = static_cast<size_t>(std::popcount(r.data_mask)) * kPage;
    absl::Span<const uint8_t> pages = data.subspan(at, n);
    if (DataPagesChecksum(pages) != r.data_checksum) return false;
    if (out != nullptr) out->push_back(pages);
    at += n;
  }
  return true;
}
}  // namespace

bool DecodeChunk(absl::Span<const uint8_t> bytes, uint64_t epoch, uint64_t seq,
                 std::vector<Record>* records, uint64_t* chunk_bytes,
                 std::vector<absl::Span<const uint8_t>>* data) {
  ChunkHeader h;
  if (!ParseChunkHeader(bytes, &h) || h.epoch != epoch || h.seq != seq) return false;
  if (h.payload > bytes.size() - kChunkHeaderBytes) return false;
  absl::Span<const uint8_t> payload = bytes.subspan(kChunkHeaderBytes, h.payload);
  if (Checksum64(payload, kSeedChunk) != h.payload_sum) return false;
  // Every record takes at least 5 bytes: a larger count is a damaged header
  // (checked before reserving, which would otherwise allocate up to 2^32 records).
  if (h.count > h.payload / 5) return false;
  Decoder d(payload);
  std::vector<Record> got;
  got.reserve(h.count);
  for (uint32_t i = 0; i < h.count; ++i) {
    Record r;
    if (!DecodeRecord(&d, &r)) return false;
    got.push_back(r);
  }
  if (d.remaining() != 0) return false;
  const uint64_t head = io::AlignUp(kChunkHeaderBytes + h.payload, kPage);
  const uint64_t data_bytes = uint64_t{h.data_pages} * kPage;
  if (ChunkDataPages(got) != h.data_pages || head > bytes.size() ||
      data_bytes > bytes.size() - head) {
    return false;
  }
  std::vector<absl::Span<const uint8_t>> spans;
  if (!CheckChunkData(bytes.subspan(head, data_bytes), got, data != nullptr ? &spans : nullptr)) {
    return false;
  }
  records->insert(records->end(), got.begin(), got.end());
  if (data != nullptr) data->insert(data->end(), spans.begin(), spans.end());
  *chunk_bytes = head + data_bytes;
  return true;
}

bool IsDamagedWholePageChunk(absl::Span<const uint8_t> bytes, uint64_t epoch, uint64_t seq) {
  if (bytes.size() < kChunkHeaderBytes) return false;
  Decoder d(bytes.subspan(0, kChunkHeaderBytes));
  uint32_t magic = 0, payload = 0;
  uint16_t version = 0, data_pages = 0;
  uint64_t e = 0, q = 0;
  (void)d.GetU32(&magic);
  (void)d.GetU16(&version);
  (void)d.GetU16(&data_pages);
  (void)d.GetU64(&e);
  (void)d.GetU64(&q);
  (void)d.GetU32(&payload);
  // The header names the chunk expected here and the chunk fits in one page
  // (no data pages follow): its page was written whole, so a failed checksum
  // is damage.
  return magic == kChunkMagic && e == epoch && q == seq && data_pages == 0 &&
         uint64_t{payload} + kChunkHeaderBytes <= kPage;
}

bool LaterChunkShowsSynced(absl::Span<const uint8_t> bytes, uint64_t epoch, uint64_t seq) {
  ChunkHeader h;
  if (!ParseChunkHeader(bytes, &h) || h.epoch != epoch || h.seq <= seq) return false;
  if (h.version == 1) return true;
  // The records only (the chunk's own data pages may be torn).
  if (h.payload > bytes.size() - kChunkHeaderBytes || h.count > h.payload / 5) return false;
  absl::Span<const uint8_t> payload = bytes.subspan(kChunkHeaderBytes, h.payload);
  if (Checksum64(payload, kSeedChunk) != h.payload_sum) return false;
  Decoder d(payload);
  for (uint32_t i = 0; i < h.count; ++i) {
    Record r;
    if (!DecodeRecord(&d, &r)) return false;
    if (r.type == RecordType::kDurable && r.offset > seq) return true;
  }
  return false;
}

bool LooksLikeLaterChunk(absl::Span<const uint8_t> bytes, uint64_t epoch, uint64_t after) {
  ChunkHeader h;
  return ParseChunkHeader(bytes, &h) && h.epoch == epoch && h.seq > after;
}

bool IsStaleChunk(absl::Span<const uint8_t> bytes, uint64_t epoch) {
  ChunkHeader h;
  return ParseChunkHeader(bytes, &h) && h.epoch < epoch;
}

bool IsNewerChunk(absl::Span<const uint8_t> bytes, uint64_t epoch) {
  ChunkHeader h;
  return ParseChunkHeader(bytes, &h) && h.epoch > epoch;
}

uint64_t CheckpointBytes(uint64_t lines, uint64_t templates, uint64_t lost) {
  return 4 + 4 + 8 * 3 + lines * kLineEntryBytes + templates * kTemplateEntryBytes +
         lost * kRangeEntryBytes + 8;
}

void EncodeCheckpoint(const CheckpointImage& image, std::vector<uint8_t>* out) {
  Encoder e;
  e.PutU32(kCheckpointMagic);
  e.PutU32(kFormatVersion);
  e.PutU64(image.lines.size());
  e.PutU64(image.templates.size());
  e.PutU64(image.lost.size());
  for (const CheckpointLine& l : image.lines) {
    e.PutU32(l.disk);
    e.PutU64(l.line);
    e.PutU32(l.slot);
    e.PutU64(l.valid);
    e.PutU64(l.dirty);
  }
  for (const CheckpointTemplate& t : image.templates) {
    e.PutU32(t.disk);
    e.PutU64(t.offset);
    e.PutU64(t.length);
    t.tmpl.EncodeTo(&e);
    e.PutU64(t.file_offset);
  }
  for (const CheckpointRange& r : image.lost) {
    e.PutU32(r.disk);
    e.PutU64(r.offset);
    e.PutU64(r.length);
  }
  if (!image.counters.empty()) {
    e.PutU32(static_cast<uint32_t>(image.counters.size()));
    for (uint64_t c : image.counters) e.PutU64(c);
  }
  e.PutU64(Checksum64(e.data(), kSeedCheckpoint));
  *out = std::move(e.bytes());
}

absl::StatusOr<CheckpointImage> DecodeCheckpoint(absl::Span<const uint8_t> bytes) {
  constexpr std::string_view kWhat = "flash checkpoint";
  if (bytes.size() < 8) return absl::DataLossError("flash checkpoint: shorter than 8 bytes");
  uint64_t stored = 0;
  std::memcpy(&stored, bytes.data() + bytes.size() - 8, 8);
  if (Checksum64(bytes.subspan(0, bytes.size() - 8), kSeedCheckpoint) != stored) {
    return absl::DataLossError("flash checkpoint: bad checksum");
  }
  Decoder d(bytes.subspan(0, bytes.size() - 8));
  uint32_t magic, version;
  uint64_t nl, nt, nr;
  if (!d.GetU32(&magic) || !d.GetU32(&version) || !d.GetU64(&nl) || !d.GetU64(&nt) ||
      !d.GetU64(&nr)) {
    return d.Truncated(kWhat);
  }
  if (magic != kCheckpointMagic || version != kFormatVersion) {
    return absl::DataLossError(
        fmt::format("flash checkpoint: bad magic 0x{:08x} or version {}", magic, version));
  }
  // Counts are bounded before the size is computed: 20 * nr can wrap.
  // After the lost ranges an optional counter section: u32 count, u64 each.
  const uint64_t base = nl > bytes.size() || nt > bytes.size() || nr > bytes.size()
                            ? UINT64_MAX
                            : CheckpointBytes(nl, nt, nr);
  uint32_t nc = 0;
  if (base != UINT64_MAX && base + 4 <= bytes.size()) {
    std::memcpy(&nc, bytes.data() + base - 8, 4);  // little-endian host, as above
  }
  if (base == UINT64_MAX || (base != bytes.size() && base + 4 + uint64_t{nc} * 8 != bytes.size())) {
    return absl::DataLossError(fmt::format(
        "flash checkpoint: {} lines, {} templates, {} lost ranges do not fit its {} bytes", nl,
        nt, nr, bytes.size()));
  }
  CheckpointImage img;
  img.lines.resize(nl);
  for (CheckpointLine& l : img.lines) {
    if (!d.GetU32(&l.disk) || !d.GetU64(&l.line) || !d.GetU32(&l.slot) || !d.GetU64(&l.valid) ||
        !d.GetU64(&l.dirty)) {
      return d.Truncated(kWhat);
    }
  }
  img.templates.resize(nt);
  for (CheckpointTemplate& t : img.templates) {
    if (!d.GetU32(&t.disk) || !d.GetU64(&t.offset) || !d.GetU64(&t.length) ||
        !format::BlockTemplate::DecodeFrom(&d, &t.tmpl) || !d.GetU64(&t.file_offset)) {
      return d.Truncated(kWhat);
    }
  }
  img.lost.resize(nr);
  for (CheckpointRange& r : img.lost) {
    if (!d.GetU32(&r.disk) || !d.GetU64(&r.offset) || !d.GetU64(&r.length)) {
      return d.Truncated(kWhat);
    }
  }
  if (base != bytes.size()) {
    if (!d.GetU32(&nc)) return d.Truncated(kWhat);
    // The encoder writes the section only with counters in it: an image
    // decodes only from the bytes it re-encodes to.
    if (nc == 0 || nc > kMaxCounters) {
      return absl::DataLossError(
          fmt::format("flash checkpoint: {} counters, 1 to {} may be stored", nc, kMaxCounters));
    }
    img.counters.resize(nc);
    for (uint64_t& c : img.counters) {
      if (!d.GetU64(&c)) return d.Truncated(kWhat);
    }
  }
  return img;
}

}  // namespace cellsim::cell::internal
