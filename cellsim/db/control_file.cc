#include "cellsim/db/control_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <optional>

#include "absl/strings/ascii.h"
#include "cellsim/base/checksum.h"
#include "cellsim/base/clock.h"
#include "cellsim/io/io_backend.h"

namespace cellsim::db::internal {
namespace {

constexpr uint32_t kBs = kControlFileBlockSize;
constexpr uint32_t kHeaderMagic = 0x46435343;  // "CSCF"
constexpr uint32_t kTableMagic = 0x54434643;   // "CFCT"
constexpr uint16_t kVersion = 1;
constexpr uint64_t kChecksumSeed = 0x636f6e74726f6cULL;  // "control"
// Table block header: magic u32, version u16, slot u16, dbid u32, sequence u64,
// index u32, count u32, payload length u32, chunk length u32.
constexpr size_t kTableHeaderBytes = 36;
constexpr size_t kChunkBytes = kBs - kTableHeaderBytes - 8;
constexpr uint64_t kFileBytes = uint64_t{kControlFileBlocks} * kBs;

uint64_t SlotOffset(uint32_t slot) { return uint64_t{1 + slot * kControlFileSlotBlocks} * kBs; }

void Seal(uint8_t* block) {
  const uint64_t sum = Checksum64(absl::MakeConstSpan(block, kBs - 8), kChecksumSeed);
  for (int i = 0; i < 8; ++i) block[kBs - 8 + i] = static_cast<uint8_t>(sum >> (8 * i));
}

bool Sealed(const uint8_t* block) {
  uint64_t stored = 0;
  for (int i = 0; i < 8; ++i) stored |= uint64_t{block[kBs - 8 + i]} << (8 * i);
  return stored == Checksum64(absl::MakeConstSpan(block, kBs - 8), kChecksumSeed);
}

void PutBytes(uint8_t* dst, const Encoder& e) { std::memcpy(dst, e.data().data(), e.size()); }

void BuildHeader(uint8_t* block, uint16_t copy, const FileTable& t) {
  std::memset(block, 0, kBs);
  Encoder e;
  e.PutU32(kHeaderMagic);
  e.PutU16(kVersion);
  e.PutU16(copy);
  e.PutU32(kBs);
  e.PutU32(kControlFileBlocks);
  e.PutU32(kControlFileSlotBlocks);
  e.PutU32(t.dbid);
  e.PutU64(static_cast<uint64_t>(t.created_unix));
  e.PutString(t.db_name);
  PutBytes(block, e);
  Seal(block);
}

}  // namespace

void SealControlFileBlock(uint8_t* block) { Seal(block); }

absl::StatusOr<Header> ParseHeader(const uint8_t* block, const std::string& file) {
  auto bad = [&](std::string_view why) {
    return absl::DataLossError(fmt::format(
        "ORA-00202: control file {}: header block 0 is invalid: {}", file, why));
  };
  if (!Sealed(block)) return bad("checksum mismatch");
  Decoder d(absl::MakeConstSpan(block, kBs - 8));
  uint32_t magic = 0, bs = 0, blocks = 0, slot_blocks = 0;
  uint16_t version = 0, copy = 0;
  uint64_t created = 0;
  Header h;
  if (!d.GetU32(&magic) || !d.GetU16(&version) || !d.GetU16(&copy) || !d.GetU32(&bs) ||
      !d.GetU32(&blocks) || !d.GetU32(&slot_blocks) || !d.GetU32(&h.dbid) ||
      !d.GetU64(&created) || !d.GetString(&h.db_name, 64)) {
    return bad("truncated");
  }
  if (magic != kHeaderMagic) return bad(fmt::format("magic {:#x}", magic));
  if (version != kVersion) {
    return bad(fmt::format("{} {}, this build reads version {}",
                           version > kVersion ? "newer format version" : "unsupported format version",
                           version, kVersion));
  }
  if (bs != kBs || blocks != kControlFileBlocks || slot_blocks != kControlFileSlotBlocks) {
    return bad(fmt::format("geometry {} blocks of {} bytes, slots of {}", blocks, bs, slot_blocks));
  }
  return h;
}

namespace {

// Builds the blocks of `payload` for slot `slot` into `out` (n * kBs bytes).
io::AlignedBuffer BuildTableBlocks(absl::Span<const uint8_t> payload, uint64_t sequence,
                                   uint32_t dbid, uint32_t* blocks) {
  const uint32_t n = std::max<uint32_t>(1, static_cast<uint32_t>((payload.size() + kChunkBytes - 1) / kChunkBytes));
  io::AlignedBuffer buf(size_t{n} * kBs);
  for (uint32_t i = 0; i < n; ++i) {
    uint8_t* b = buf.data() + size_t{i} * kBs;
    const size_t off = size_t{i} * kChunkBytes;
    const size_t len = std::min(kChunkBytes, payload.size() - std::min(payload.size(), off));
    Encoder e;
    e.PutU32(kTableMagic);
    e.PutU16(kVersion);
    e.PutU16(static_cast<uint16_t>(sequence % 2));
    e.PutU32(dbid);
    e.PutU64(sequence);
    e.PutU32(i);
    e.PutU32(n);
    e.PutU32(static_cast<uint32_t>(payload.size()));
    e.PutU32(static_cast<uint32_t>(len));
    PutBytes(b, e);
    if (len > 0) std::memcpy(b + kTableHeaderBytes, payload.data() + off, len);
    Seal(b);
  }
  *blocks = n;
  return buf;
}

}  // namespace

std::optional<SlotContent> ParseSlot(const uint8_t* blocks, size_t available, uint32_t dbid,
                                     std::string* why) {
  std::vector<uint8_t> payload;
  SlotContent out;
  uint32_t total = 0, count = 0;
  for (uint32_t i = 0; i < available; ++i) {
    const uint8_t* b = blocks + size_t{i} * kBs;
    if (!Sealed(b)) {
      *why = fmt::format("block {} of the slot fails its checksum", i);
      return std::nullopt;
    }
    Decoder d(absl::MakeConstSpan(b, kTableHeaderBytes));
    uint32_t magic = 0, bdbid = 0, index = 0, n = 0, len = 0, chunk = 0;
    uint16_t version = 0, slot = 0;
    uint64_t seq = 0;
    if (!d.GetU32(&magic) || !d.GetU16(&version) || !d.GetU16(&slot) || !d.GetU32(&bdbid) ||
        !d.GetU64(&seq) || !d.GetU32(&index) || !d.GetU32(&n) || !d.GetU32(&len) ||
        !d.GetU32(&chunk)) {
      *why = "truncated block header";
      return std::nullopt;
    }
    if (magic != kTableMagic || version != kVersion) {
      *why = fmt::format("block {} has magic {:#x} version {}", i, magic, version);
      return std::nullopt;
    }
    if (bdbid != dbid) {
      *why = fmt::format("block {} belongs to dbid {} (expected {})", i, bdbid, dbid);
      return std::nullopt;
    }
    if (i == 0) {
      out.sequence = seq;
      count = n;
      total = len;
      if (n == 0 || n > kControlFileSlotBlocks || n > available ||
          uint64_t{len} > uint64_t{n} * kChunkBytes) {
        *why = fmt::format("slot claims {} blocks and {} bytes", n, len);
        return std::nullopt;
      }
    } else if (seq != out.sequence || n != count || len != total) {
      *why = fmt::format("block {} is from sequence {} (torn write of sequence {})", i, seq,
                         out.sequence);
      return std::nullopt;
    }
    if (index != i || chunk > kChunkBytes || payload.size() + chunk > total) {
      *why = fmt::format("block {} is out of place (index {}, {} bytes)", i, index, chunk);
      return std::nullopt;
    }
    payload.insert(payload.end(), b + kTableHeaderBytes, b + kTableHeaderBytes + chunk);
    if (i + 1 == count) break;
  }
  if (payload.size() != total) {
    *why = fmt::format("slot holds {} of {} bytes", payload.size(), total);
    return std::nullopt;
  }
  absl::StatusOr<FileTable> t = FileTable::Decode(payload);
  if (!t.ok()) {
    *why = std::string(t.status().message());
    return std::nullopt;
  }
  out.blocks = count;
  out.table = *std::move(t);
  return out;
}

namespace {

// Writes data[i] (or data[0] for every copy when there is one span) at
// `offset` of every copy in `files` at once, as Oracle issues its control-file
// writes: one `control file parallel write` lasts as long as the slowest
// copy. The copies go out as one DiskGroup::WriteFiles, so a cell holding
// mirrors of several control files (+DATA's and +RECO's on the same cells)
// gets them in one request batch: one flash sync per write-back cell, all
// cells at once. Safe against a cut or a failed copy because every table
// write goes to the slot of its sequence and Open takes the newest valid
// table of any copy and rewrites the others (RepairStaleCopies): a copy
// that a cut left behind or torn is repaired from one that got the write, and
// a write that failed on one copy leaves the ControlFile's sequence where it
// was, so the next write (a statement's undo writes one at once) takes the
// same slot in every copy again.
absl::Status WriteCopies(const std::vector<ControlFileCopy>& files, uint64_t offset, const std::vector<absl::Span<const uint8_t>>& data,
                         Recorder& rec) {
  if (files.empty()) return absl::OkStatus();
  auto data_of = [&](size_t i) { return data[data.size() == 1 ? 0 : i]; };
  std::vector<std::vector<asmgr::AsmWriteRequest>> requests(files.size());
  std::vector<asmgr::FileWrite> writes(files.size());
  uint64_t bytes = 0;
  for (size_t i = 0; i < files.size(); ++i) {
    requests[i].resize(1);
    requests[i][0].file_offset = offset;
    requests[i][0].data = data_of(i);
    writes[i] = {files[i].dg, files[i].file.number, absl::MakeSpan(requests[i]), {}};
    bytes += data_of(i).size();
  }
  asmgr::AsmIoResult result;
  // P1 files, P2 blocks (of one copy), P3 requests (one per copy).
  const stats::WaitParams p{files.size(), data[0].size() / kBs, files.size()};
  rec.Timed(stats::Wait::kControlFileParallelWrite, p,
            [&] { (void)asmgr::DiskGroup::WriteFiles(absl::MakeSpan(writes), &result); });
  // One logical request per control file; the copies of all of them in
  // `result` (every control-file write is alike, so the per-request shares
  // AccountWrite takes are each file's).
  AccountWrite(rec, result, files.size(), bytes);
  for (size_t i = 0; i < files.size(); ++i) {
    if (!writes[i].status.ok()) {
      return absl::Status(writes[i].status.code(),
                          fmt::format("ORA-00221: error on write to control file {}: {}",
                                      files[i].file.name, std::string(writes[i].status.message())));
    }
  }
  return absl::OkStatus();
}

absl::Status ReadAt(const ControlFileCopy& c, size_t copy, uint64_t offset,
                    absl::Span<uint8_t> out, Recorder& rec) {
  const asmgr::FileInfo& f = c.file;
  std::vector<asmgr::AsmReadRequest> r(1);
  r[0].file_offset = offset;
  r[0].buffer = out;
  asmgr::AsmIoResult res;
  // P1 file# (the copy), P2 block#, P3 blocks.
  const stats::WaitParams p{copy, offset / kBs, out.size() / kBs};
  absl::Status st = rec.Timed(stats::Wait::kControlFileSequentialRead, p,
                              [&] { return c.dg->Read(f.number, absl::MakeSpan(r), &res); });
  AccountRead(rec, res, out.size());
  if (!st.ok()) {
    return absl::Status(st.code(), fmt::format("ORA-00202: control file {}: read failed: {}",
                                               f.name, std::string(st.message())));
  }
  return absl::OkStatus();
}

// The control-file copies of `db_name` in `dgs`, by disk group then file
// number.
absl::StatusOr<std::vector<ControlFileCopy>> ListControlFiles(
    const std::vector<asmgr::DiskGroup*>& dgs, const std::string& db_name) {
  std::vector<ControlFileCopy> out;
  std::string where;
  for (asmgr::DiskGroup* dg : dgs) {
    std::vector<asmgr::FileInfo> files;
    for (const asmgr::FileInfo& f : dg->ListFiles()) {
      if (f.type == asmgr::FileType::kControlFile &&
          absl::AsciiStrToUpper(f.db_name) == absl::AsciiStrToUpper(db_name)) {
        files.push_back(f);
      }
    }
    std::sort(files.begin(), files.end(), [](const asmgr::FileInfo& a, const asmgr::FileInfo& b) {
      return a.number < b.number;
    });
    for (asmgr::FileInfo& f : files) out.push_back({dg, std::move(f)});
    where += fmt::format("{}+{}", where.empty() ? "" : " or ", dg->name());
  }
  if (out.empty()) {
    return absl::NotFoundError(fmt::format(
        "ORA-00205: error in identifying control file: database {} has no control file in {}",
        db_name, where));
  }
  return out;
}

// What Open read from one control-file copy.
struct CopyState {
  io::AlignedBuffer image;
  absl::Status header;
  std::optional<SlotContent> best;  // its newest valid table
  std::string why;                  // why a slot holds no valid table
  std::vector<std::string> repairs;  // slots read from a mirror copy
  bool HoldsSequence(uint64_t sequence) const {
    return header.ok() && best.has_value() && best->sequence == sequence;
  }
};

// Reads one copy: its header (checked against the dbid of the first good
// header, `*header`, which it sets when unset) and the newest valid table of
// its two slots.
void ReadCopy(const ControlFileCopy& copy, size_t index, Recorder& rec, CopyState* c,
              std::optional<Header>* header) {
  const asmgr::FileInfo& file = copy.file;
  c->image = io::AlignedBuffer(kFileBytes);
  if (file.size_bytes < kFileBytes) {
    c->header = absl::DataLossError(fmt::format("control file {} is {} bytes, expected {}",
                                                file.name, file.size_bytes, kFileBytes));
    return;
  }
  c->header = ReadAt(copy, index, 0, c->image.span(), rec);
  if (!c->header.ok()) return;
  absl::StatusOr<Header> h = ParseHeader(c->image.data(), file.name);
  if (!h.ok()) {
    // Damaged as ASM first read it (its mirrors may hold it whole).
    const absl::Status first = h.status();
    const std::optional<uint32_t> mirror = ReadFromMirrors(
        rec, copy.dg, file.number, 0, absl::MakeSpan(c->image.data(), kBs), [&] {
          h = ParseHeader(c->image.data(), file.name);
          return h.ok();
        });
    if (mirror.has_value()) {
      c->repairs.push_back(fmt::format(
          "control file {} header: {} as ASM first read it; read from mirror copy {}", file.name,
          std::string(first.message()), *mirror));
    }
  }
  if (!h.ok()) {
    c->header = h.status();
    return;
  }
  if (!header->has_value()) *header = *h;
  if (h->dbid != (*header)->dbid) {
    c->header = absl::DataLossError(
        fmt::format("ORA-00200: control file {} belongs to dbid {}, another copy to {}",
                    file.name, h->dbid, (*header)->dbid));
    return;
  }
  for (uint32_t slot = 0; slot < 2; ++slot) {
    std::string why;
    uint8_t* at = c->image.data() + SlotOffset(slot);
    std::optional<SlotContent> s = ParseSlot(at, kControlFileSlotBlocks, h->dbid, &why);
    if (!s.has_value() && std::any_of(at, at + kBs, [](uint8_t b) { return b != 0; })) {
      // Written, and damaged as ASM first read it: ASM cannot check the
      // slot's checksums; its mirror copies may hold it whole.
      std::string mirror_why;
      const std::optional<uint32_t> mirror = ReadFromMirrors(
          rec, copy.dg, file.number, SlotOffset(slot),
          absl::MakeSpan(at, size_t{kControlFileSlotBlocks} * kBs), [&] {
            s = ParseSlot(at, kControlFileSlotBlocks, h->dbid, &mirror_why);
            return s.has_value();
          });
      if (mirror.has_value()) {
        c->repairs.push_back(fmt::format(
            "control file {} slot {}: {} as ASM first read it; read from mirror copy {}",
            file.name, slot, why, *mirror));
      }
    }
    if (!s.has_value()) {
      if (c->why.empty()) c->why = fmt::format("slot {}: {}", slot, why);
      continue;
    }
    if (s->sequence % 2 != slot) continue;  // a block copied into the wrong slot
    if (!c->best.has_value() || s->sequence > c->best->sequence) c->best = std::move(s);
  }
}

// The copy holding the newest valid table of `db_name`, or why there is none.
absl::StatusOr<size_t> ChooseCopy(const std::vector<ControlFileCopy>& files,
                                  const std::vector<CopyState>& copies,
                                  const std::string& db_name) {
  size_t chosen = files.size();
  for (size_t i = 0; i < files.size(); ++i) {
    if (!copies[i].header.ok() || !copies[i].best.has_value()) continue;
    if (chosen == files.size() || copies[i].best->sequence > copies[chosen].best->sequence) {
      chosen = i;
    }
  }
  if (chosen == files.size()) {
    std::string details;
    for (size_t i = 0; i < files.size(); ++i) {
      details += fmt::format("; {}: {}", files[i].file.name,
                             copies[i].header.ok() ? copies[i].why
                                                   : std::string(copies[i].header.message()));
    }
    return absl::DataLossError(fmt::format(
        "ORA-00227: corrupt block detected in control file: no copy holds a valid file table{}",
        details));
  }
  const SlotContent& best = *copies[chosen].best;
  if (absl::AsciiStrToUpper(best.table.db_name) != absl::AsciiStrToUpper(db_name)) {
    return absl::DataLossError(fmt::format("control file {} is of database {}, not {}",
                                           files[chosen].file.name, best.table.db_name, db_name));
  }
  return chosen;
}

// Brings every other copy to the chosen table (Oracle would stop with
// ORA-00214 and leave the copy to the DBA; cellsim repairs it at mount).
absl::Status RepairStaleCopies(const std::vector<ControlFileCopy>& files,
                               const std::vector<CopyState>& copies, size_t chosen,
                               Recorder& rec, std::vector<std::string>* actions) {
  const SlotContent& best = *copies[chosen].best;
  for (size_t i = 0; i < files.size(); ++i) {
    if (i == chosen || copies[i].HoldsSequence(best.sequence)) continue;
    io::AlignedBuffer image(kFileBytes);
    std::memcpy(image.data(), copies[chosen].image.data(), kFileBytes);
    BuildHeader(image.data(), static_cast<uint16_t>(i), best.table);
    absl::Status st = WriteCopies({files[i]}, 0, {image.span()}, rec);
    if (!st.ok()) return st;
    actions->push_back(fmt::format(
        "control file {} was {}; rewritten from {} (sequence {})", files[i].file.name,
        !copies[i].header.ok()          ? std::string(copies[i].header.message())
        : copies[i].best.has_value() ? fmt::format("at sequence {}", copies[i].best->sequence)
                                     : copies[i].why,
        files[chosen].file.name, best.sequence));
  }
  return absl::OkStatus();
}

// Resilvers the ASM mirrors of the copies that were already current: a
// control-file write cut short by a crash or a kill can reach one mirror of
// a copy and not the other, and nothing would ever reconcile them (scrub
// reports the mismatch; a read failing over to the other mirror sees other
// bytes). Reads come from the primary, so writing back what was read makes
// every mirror hold what this mount saw, as instance recovery resilvers
// mirrored files in Oracle.
absl::Status ResilverCurrentCopies(const std::vector<ControlFileCopy>& files,
                                   const std::vector<CopyState>& copies, uint64_t sequence,
                                   Recorder& rec) {
  std::vector<ControlFileCopy> current_files;
  std::vector<absl::Span<const uint8_t>> current_images;
  for (size_t i = 0; i < files.size(); ++i) {
    if (copies[i].HoldsSequence(sequence)) {
      current_files.push_back(files[i]);
      current_images.push_back(copies[i].image.span());
    }
  }
  return WriteCopies(current_files, 0, current_images, rec);
}

}  // namespace

std::vector<std::string> ControlFile::names() const {
  std::vector<std::string> out;
  for (const ControlFileCopy& f : files_) out.push_back(f.file.name);
  return out;
}

absl::StatusOr<std::unique_ptr<ControlFile>> ControlFile::Create(
    const std::vector<asmgr::DiskGroup*>& dgs, const FileTable& table, Recorder& rec) {
  std::vector<ControlFileCopy> files;
  auto undo = [&] {
    for (const ControlFileCopy& f : files) {
      (void)rec.Timed(stats::Wait::kKsvMasterWait,
                      [&] { return f.dg->DeleteFile(f.file.number); });
    }
  };
  for (uint32_t i = 0; i < kControlFileCopies; ++i) {
    asmgr::DiskGroup* dg = dgs[i % dgs.size()];
    asmgr::FileSpec spec{.db_name = table.db_name, .type = asmgr::FileType::kControlFile,
                         .tag = "Current", .size_bytes = kFileBytes, .block_size = kBs};
    absl::StatusOr<asmgr::FileInfo> f =
        rec.Timed(stats::Wait::kKsvMasterWait, [&] { return dg->CreateFile(spec); });
    if (!f.ok()) {
      undo();
      return f.status();
    }
    files.push_back({dg, *std::move(f)});
  }
  // Format every block of both copies: header, the table in slot 1 (sequence
  // 1), and an empty slot 0, so no stale bytes of an earlier file can ever be
  // mistaken for a table.
  const std::vector<uint8_t> payload = table.Encode();
  uint32_t n = 0;
  io::AlignedBuffer blocks = BuildTableBlocks(payload, 1, table.dbid, &n);
  if (n > kControlFileSlotBlocks) {
    undo();
    return absl::ResourceExhaustedError("ORA-00219: file table larger than a control file slot");
  }
  std::vector<io::AlignedBuffer> images;
  std::vector<absl::Span<const uint8_t>> spans;
  for (uint16_t copy = 0; copy < kControlFileCopies; ++copy) {
    images.emplace_back(kFileBytes);
    BuildHeader(images.back().data(), copy, table);
    std::memcpy(images.back().data() + SlotOffset(1), blocks.data(), blocks.size());
    spans.push_back(images.back().span());
  }
  if (absl::Status st = WriteCopies(files, 0, spans, rec); !st.ok()) {
    undo();
    return st;
  }
  return std::unique_ptr<ControlFile>(new ControlFile(std::move(files), table.dbid, 1, n));
}

absl::StatusOr<std::unique_ptr<ControlFile>> ControlFile::Open(
    const std::vector<asmgr::DiskGroup*>& dgs, const std::string& db_name, Recorder& rec,
    FileTable* table, std::vector<std::string>* actions) {
  absl::StatusOr<std::vector<ControlFileCopy>> listed = ListControlFiles(dgs, db_name);
  if (!listed.ok()) return listed.status();
  std::vector<ControlFileCopy> files = *std::move(listed);
  std::vector<CopyState> copies(files.size());
  std::optional<Header> header;
  for (size_t i = 0; i < files.size(); ++i) ReadCopy(files[i], i, rec, &copies[i], &header);
  absl::StatusOr<size_t> chosen = ChooseCopy(files, copies, db_name);
  if (!chosen.ok()) return chosen.status();
  for (const CopyState& c : copies) actions->insert(actions->end(), c.repairs.begin(), c.repairs.end());
  const SlotContent& best = *copies[*chosen].best;
  if (absl::Status st = RepairStaleCopies(files, copies, *chosen, rec, actions); !st.ok()) {
    return st;
  }
  if (absl::Status st = ResilverCurrentCopies(files, copies, best.sequence, rec); !st.ok()) {
    return st;
  }
  *table = best.table;
  return std::unique_ptr<ControlFile>(
      new ControlFile(std::move(files), header->dbid, best.sequence, best.blocks));
}

absl::Status ControlFile::Write(const FileTable& table, Recorder& rec) {
  const std::vector<uint8_t> payload = table.Encode();
  const uint64_t next = sequence_ + 1;
  uint32_t n = 0;
  io::AlignedBuffer blocks = BuildTableBlocks(payload, next, dbid_, &n);
  if (n > kControlFileSlotBlocks) {
    return absl::ResourceExhaustedError(fmt::format(
        "ORA-00219: the file table needs {} control file blocks, a slot holds {}", n,
        kControlFileSlotBlocks));
  }
  absl::Status st = WriteCopies(files_, SlotOffset(next % 2), {blocks.span()}, rec);
  if (!st.ok()) return st;
  sequence_ = next;
  blocks_in_use_ = n;
  return absl::OkStatus();
}

absl::Status ControlFile::ReadCurrent(Recorder& rec, size_t copy) {
  copy = std::min(copy, files_.size() - 1);
  const ControlFileCopy& c = files_[copy];
  io::AlignedBuffer buf(size_t{blocks_in_use_} * kBs);
  if (absl::Status st = ReadAt(c, copy, SlotOffset(sequence_ % 2), buf.span(), rec);
      !st.ok()) {
    return st;
  }
  std::string why;
  std::optional<SlotContent> s = ParseSlot(buf.data(), blocks_in_use_, dbid_, &why);
  if (!s.has_value() || s->sequence != sequence_) {
    return absl::DataLossError(fmt::format(
        "ORA-00227: corrupt block detected in control file {} (block {}, # blocks {}): {}",
        c.file.name, 1 + (sequence_ % 2) * kControlFileSlotBlocks, blocks_in_use_,
        s.has_value() ? fmt::format("sequence {} instead of {}", s->sequence, sequence_) : why));
  }
  return absl::OkStatus();
}

}  // namespace cellsim::db::internal
