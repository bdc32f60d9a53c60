// On-flash metadata formats of a cell (private): the flash layout, the
// superblock (configuration + pointer to the current checkpoint), journal
// records and the checkpoint image. Pure encode/decode; docs/cell.md gives the
// byte layout. Decoders treat input as hostile: bounds-checked, checksummed,
// version-checked, and they return DataLoss naming the structure.
#ifndef CELLSIM_CELL_METADATA_H_
#define CELLSIM_CELL_METADATA_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "cellsim/cell/cell.h"
#include "cellsim/cell/cell_service.h"
#include "cellsim/format/block_template.h"

namespace cellsim::cell::internal {

// Every internal I/O unit (cache valid/dirty bits, journal chunks, superblock
// slots) is one 4 KiB page: the O_DIRECT alignment (the public kPageBytes).
inline constexpr uint64_t kPage = kPageBytes;
// The checkpoint image.
inline constexpr uint32_t kFormatVersion = 1;
// Journal chunks: version 2 may carry data pages after its records (kLineData);
// version 1 chunks (no data) still decode, so an older cell's journal replays.
inline constexpr uint32_t kChunkVersion = 2;
// The superblock: version 2 added each grid disk's cachingPolicy to the
// config; version 1 (no policies: all default) still decodes. Version 3 says
// the journal may hold version 2 chunks (data pages): a cellsim that reads
// only versions 1-2 refuses the cell (FailedPrecondition, "newer format
// version 3") instead of dropping such chunks as torn tails.
// Version 4 adds each grid disk's INACTIVE state to the config.
inline constexpr uint32_t kSuperblockVersion = 4;
// xxHash64 seeds of the superblock, journal chunks and the checkpoint image
// (public here so that the fuzz targets can re-seal mutated structures).
inline constexpr uint64_t kSeedSuperblock = 0x5342;
inline constexpr uint64_t kSeedChunk = 0x4A4E;
inline constexpr uint64_t kSeedCheckpoint = 0x434B;
inline constexpr uint64_t kSeedData = 0x4441;

// Where things are in flash.img.
struct FlashLayout {
  uint64_t superblock_offset[2] = {0, kPage};
  uint64_t checkpoint_offset[2] = {0, 0};
  uint64_t checkpoint_bytes = 0;  // capacity of each checkpoint area
  uint64_t journal_offset = 0;
  uint64_t journal_bytes = 0;
  uint64_t data_offset = 0;       // slot s is at data_offset + s * line_size
  uint32_t line_size = 0;
  uint32_t num_slots = 0;
  uint64_t file_bytes = 0;

  uint64_t SlotOffset(uint32_t slot) const { return data_offset + uint64_t{slot} * line_size; }
};

// InvalidArgument when the flash is too small for its metadata plus 4 lines.
[[nodiscard]] absl::StatusOr<FlashLayout> ComputeLayout(const CellConfig& config);

// The superblock: one 4 KiB page, two copies (A at 0, B at 4 KiB), the valid
// one with the highest generation wins.
struct Superblock {
  uint64_t generation = 0;
  uint64_t epoch = 0;             // journal epoch: records of other epochs are stale
  uint64_t journal_first_seq = 0; // seq of the first journal chunk of this epoch
  uint32_t checkpoint_area = 0;   // 0 or 1
  uint64_t checkpoint_length = 0;
  uint64_t checkpoint_checksum = 0;
  int64_t creation_time_unix = 0;
  CellConfig config;
};
// `version` is kSuperblockVersion except in tests of older formats.
void EncodeSuperblock(const Superblock& sb, absl::Span<uint8_t> page,
                      uint32_t version = kSuperblockVersion);
// DataLoss("flash superblock copy A: bad checksum") etc.; FailedPrecondition
// "... newer format version N, this build reads version M".
[[nodiscard]] absl::StatusOr<Superblock> DecodeSuperblock(absl::Span<const uint8_t> page,
                                                          char which);

enum class RecordType : uint8_t {
  kLineSet = 1,      // line -> slot with valid/dirty page bitmaps (insert or replace)
  kLineDrop = 2,     // line leaves the cache; its slot is free
  kTemplateAdd = 3,  // fast creation: drop cached pages, lost pages and templates
                     // in range, then record the template over it
  kRangeOnDisk = 4,  // the disk now holds the range: drop cached pages, templates
                     // and lost pages there
  kTemplateTrim = 5, // templates no longer cover the range (materialized or merged
                     // into cache lines)
  kLostAdd = 6,      // the range's only current copy is gone
  kLostTrim = 7,     // the range was rewritten in the cache
  kCounter = 8,      // a metric counter's value: `disk` = its index (< kMaxCounters),
                     // `offset` = the value; appended at a clean close
  kLineData = 9,     // a kLineSet whose written pages (`data_mask`) follow in the
                     // chunk's data area: replay writes them to the slot again
                     // (chunk version 2)
  kDurable = 10,     // every chunk with a sequence below `offset` was synced
                     // (with the slot pages written before it): replay writes
                     // kLineData pages again only from chunks not known durable
};
// Counters a cell may persist (kCounter indices, checkpoint counter section).
inline constexpr uint32_t kMaxCounters = 4096;

struct Record {
  RecordType type = RecordType::kLineSet;
  uint32_t disk = 0;
  uint64_t line = 0;    // line records
  uint32_t slot = 0;    // kLineSet
  uint64_t valid = 0;   // kLineSet: bit i = page i of the line holds data
  uint64_t dirty = 0;   // kLineSet: subset of valid not yet on disk
  uint64_t offset = 0;  // range records (page-aligned)
  uint64_t length = 0;
  format::BlockTemplate tmpl{};  // kTemplateAdd
  uint64_t file_offset = 0;    // kTemplateAdd: file byte offset at `offset`
  uint64_t data_mask = 0;      // kLineData: pages carried (a subset of valid)
  uint64_t data_checksum = 0;  // kLineData: DataPagesChecksum of those pages
  // kLineData, in memory only (not encoded): the line's buffer, page p of
  // data_mask at data + p * kPage, written into the chunk's data area.
  const uint8_t* data = nullptr;
  // kLineData, in memory only: the journal writes those pages into the slot
  // too, in the chunk's own submission (the cell sets it only where the
  // slot's pages are already allocated in flash.img, so the write cannot fail
  // for want of space: a write that could is done first, by the cell).
  bool write_slot = false;
};
// True for kLineSet and kLineData (both set a line's slot and bitmaps).
inline bool SetsLine(RecordType t) { return t == RecordType::kLineSet || t == RecordType::kLineData; }
// xxHash64 chained over the pages in order (each page's hash seeds the next).
uint64_t DataPagesChecksum(absl::Span<const uint8_t> pages);
// The same over the pages of `mask` of a line buffer (page p at line + p * kPage).
uint64_t LinePagesChecksum(const uint8_t* line, uint64_t mask);
void EncodeRecord(const Record& r, Encoder* e);
[[nodiscard]] bool DecodeRecord(Decoder* d, Record* r);

// A journal chunk: a 48-byte header then the records, padded to 4 KiB, then
// (version 2) the data pages of its kLineData records, in record order.
//   magic u32 "CSJ1", version u16, data pages u16 (version 1: 0), epoch u64,
//   seq u64, payload_bytes u32, record_count u32, payload checksum u64,
//   header checksum u64
// The data pages are checked by each record's data_checksum: a chunk whose
// records hold but whose data does not is a torn write (dropped at recovery).
inline constexpr uint32_t kChunkMagic = 0x314A5343;  // "CSJ1"
inline constexpr size_t kChunkHeaderBytes = 48;
// Most data pages one chunk may carry (the u16 of the header).
inline constexpr uint64_t kMaxChunkDataPages = 65535;
// Data pages the kLineData records of `records` carry.
uint64_t ChunkDataPages(absl::Span<const Record> records);
// Encodes a chunk's header and records (padded to a multiple of kPage) into
// `out`; its data pages (ChunkDataPages) are written after it by the caller.
void EncodeChunk(uint64_t epoch, uint64_t seq, absl::Span<const Record> records,
                 std::vector<uint8_t>* out);
// Parses the chunk at the start of `bytes`. Returns false when it is not a
// valid chunk of `epoch` with sequence `seq` (a torn or stale tail); on success
// appends its records, sets *chunk_bytes (padded size, data pages included)
// and, when `data` is given, appends per record its data pages (empty for
// records without data).
[[nodiscard]] bool DecodeChunk(absl::Span<const uint8_t> bytes, uint64_t epoch, uint64_t seq,
                               std::vector<Record>* records, uint64_t* chunk_bytes,
                               std::vector<absl::Span<const uint8_t>>* data = nullptr);
// True when `bytes` starts with a chunk header of `epoch` whose header checksum
// is valid and whose seq is > `after` (used to tell corruption from a torn tail).
bool LooksLikeLaterChunk(absl::Span<const uint8_t> bytes, uint64_t epoch, uint64_t after);
// True when `bytes` starts with a chunk of `epoch` after chunk `seq` whose
// records say that chunk `seq` was synced (a kDurable mark above it), or a
// version 1 chunk (which has no marks): chunk `seq` found invalid is then
// damage, not a torn write.
bool LaterChunkShowsSynced(absl::Span<const uint8_t> bytes, uint64_t epoch, uint64_t seq);
// True when `bytes` starts with a chunk DecodeChunk rejected whose header still
// names `epoch` and `seq` and which fits in one page (no data pages). A chunk page is written
// whole (the O_DIRECT unit), so such a chunk is damage, not a torn write.
bool IsDamagedWholePageChunk(absl::Span<const uint8_t> bytes, uint64_t epoch, uint64_t seq);
// True when `bytes` starts with a valid chunk header of an epoch before `epoch`.
bool IsStaleChunk(absl::Span<const uint8_t> bytes, uint64_t epoch);
// True when `bytes` starts with a valid chunk header of an epoch after `epoch`:
// a newer superblock existed and was lost (corruption, not a torn write, since
// a new epoch's superblock is durable before its first chunk is written).
bool IsNewerChunk(absl::Span<const uint8_t> bytes, uint64_t epoch);

// The checkpoint image: full cache directory, template ranges, lost ranges.
struct CheckpointLine {
  uint32_t disk = 0;
  uint64_t line = 0;
  uint32_t slot = 0;
  uint64_t valid = 0, dirty = 0;
};
struct CheckpointTemplate {
  uint32_t disk = 0;
  uint64_t offset = 0, length = 0;
  format::BlockTemplate tmpl{};
  uint64_t file_offset = 0;
};
struct CheckpointRange {
  uint32_t disk = 0;
  uint64_t offset = 0, length = 0;
};
struct CheckpointImage {
  std::vector<CheckpointLine> lines;
  std::vector<CheckpointTemplate> templates;
  std::vector<CheckpointRange> lost;
  // The cell's cumulative metric counters (LIST METRICCURRENT) at the
  // checkpoint, in the order CellImpl defines; optional: an image without
  // them (written before they were persisted) decodes with none.
  std::vector<uint64_t> counters;
};
void EncodeCheckpoint(const CheckpointImage& image, std::vector<uint8_t>* out);
[[nodiscard]] absl::StatusOr<CheckpointImage> DecodeCheckpoint(absl::Span<const uint8_t> bytes);
// Bytes of an encoded checkpoint with these counts (for sizing areas), without
// the counter section (which adds 4 + 8 bytes per counter when present).
uint64_t CheckpointBytes(uint64_t lines, uint64_t templates, uint64_t lost);

}  // namespace cellsim::cell::internal

#endif  // CELLSIM_CELL_METADATA_H_
