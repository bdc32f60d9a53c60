// MetaStore: checkpoint slots and the change journal of a disk group.
#include "cellsim/asm/meta_store.h"

#include <algorithm>
#include <filesystem>
#include <system_error>
#include <utility>

#include "cellsim/base/checksum.h"
#include "cellsim/io/metadata_copies.h"
#include "fmt/format.h"

namespace cellsim::asmgr::internal {
namespace {

constexpr uint32_t kRecordMagic = kJournalRecordMagic;
constexpr uint64_t kRecordSeed = 0x41534D4A524E4C31ull;
constexpr size_t kRecordHeader = 4 + 4 + 8 + 8;  // magic, length, seq, checksum
constexpr uint32_t kMaxRecord = 1u << 30;

uint64_t RecordSum(uint64_t seq, absl::Span<const uint8_t> body) {
  return JournalRecordSum(seq, body);
}

// One journal copy's valid records: where they end and the seq of each.
struct JournalScan {
  uint64_t good_end = 0;
  std::vector<uint64_t> seqs;
  std::vector<absl::Span<const uint8_t>> bodies;
};

// Parses the record at the decoder's position; false when it is not a whole
// record with a valid checksum.
bool NextRecord(Decoder* d, uint64_t* seq, absl::Span<const uint8_t>* body) {
  if (d->remaining() < kRecordHeader) return false;
  uint32_t magic = 0, len = 0;
  uint64_t sum = 0;
  (void)d->GetU32(&magic);
  (void)d->GetU32(&len);
  (void)d->GetU64(seq);
  (void)d->GetU64(&sum);
  return magic == kRecordMagic && len <= kMaxRecord && d->GetBytes(len, body) &&
         RecordSum(*seq, *body) == sum;
}

JournalScan ScanJournal(absl::Span<const uint8_t> log) {
  JournalScan scan;
  Decoder d(log);
  uint64_t seq = 0;
  absl::Span<const uint8_t> body;
  while (NextRecord(&d, &seq, &body)) {  // stops at a torn, unwritten or damaged record
    scan.seqs.push_back(seq);
    scan.bodies.push_back(body);
    scan.good_end = d.position();
  }
  return scan;
}

// The highest seq of a valid record starting after `from` (0 if none): a
// record behind an invalid one means damage, not a torn tail.
uint64_t LaterValidRecord(absl::Span<const uint8_t> log, uint64_t from) {
  uint64_t best = 0;
  for (uint64_t pos = from + 1; pos + kRecordHeader <= log.size(); ++pos) {
    if (log[pos] != (kRecordMagic & 0xFF)) continue;
    Decoder d(log.subspan(pos));
    uint64_t seq = 0;
    absl::Span<const uint8_t> body;
    if (NextRecord(&d, &seq, &body)) best = std::max(best, seq);
  }
  return best;
}

}  // namespace

uint64_t JournalRecordSum(uint64_t seq, absl::Span<const uint8_t> body) {
  Encoder e;
  e.PutU64(seq);
  e.PutBytes(body);
  return Checksum64(e.data(), kRecordSeed);
}

MetaStore::MetaStore(io::IoBackend* io, std::string dir, std::string name)
    : io_(io), dir_(std::move(dir)), name_(std::move(name)) {}

MetaStore::~MetaStore() {
  for (io::FileHandle j : journal_) {
    if (j != io::kInvalidFile) (void)io_->Close(j);
  }
}

std::string MetaStore::SlotPath(int slot) const {
  return fmt::format("{}/{}.ckpt{}", dir_, name_, slot);
}
std::vector<std::string> MetaStore::SlotPaths() const { return {SlotPath(0), SlotPath(1)}; }
std::string MetaStore::JournalPath(int copy) const {
  return fmt::format("{}/{}.journal{}", dir_, name_, copy == 0 ? "" : "1");
}

bool MetaStore::Exists(io::IoBackend*, const std::string& dir, const std::string& name) {
  std::error_code ec;
  for (const char* suffix : {".ckpt0", ".ckpt1", ".journal", ".journal1"}) {
    if (std::filesystem::exists(fmt::format("{}/{}{}", dir, name, suffix), ec)) return true;
  }
  return false;
}

absl::StatusOr<std::unique_ptr<MetaStore>> MetaStore::Create(io::IoBackend* io,
                                                             const std::string& dir,
                                                             const std::string& name,
                                                             const Catalog& initial) {
  if (Exists(io, dir, name)) {
    return absl::AlreadyExistsError(
        fmt::format("disk group {}: metadata already exists in {}", name, dir));
  }
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    return absl::InternalError(fmt::format("cannot create {}: {}", dir, ec.message()));
  }
  std::unique_ptr<MetaStore> m(new MetaStore(io, dir, name));
  // The journals first: checkpoints without a journal are a complete group.
  for (int copy = 0; copy < 2; ++copy) {
    absl::StatusOr<io::FileHandle> j =
        io->Open(m->JournalPath(copy), {.create = true, .truncate = true});
    if (!j.ok()) return j.status();
    m->journal_[copy] = *j;
    if (absl::Status st = io->Sync(*j, io::SyncKind::kFull); !st.ok()) return st;
  }
  absl::Status st = io::WriteCopiesInOrder(io, m->SlotPaths(), initial.EncodeCheckpoint());
  if (!st.ok()) return st;
  return m;
}

absl::StatusOr<std::unique_ptr<MetaStore>> MetaStore::Open(io::IoBackend* io,
                                                           const std::string& dir,
                                                           const std::string& name,
                                                           Catalog* catalog,
                                                           bool read_only) {
  if (!Exists(io, dir, name)) {
    return absl::NotFoundError(fmt::format("disk group {}: no metadata in {}", name, dir));
  }
  std::unique_ptr<MetaStore> m(new MetaStore(io, dir, name));
  m->read_only_ = read_only;
  std::vector<io::MetadataCopy> copies;
  std::vector<Catalog> catalogs(2);
  for (int slot = 0; slot < 2; ++slot) {
    io::MetadataCopy& c = copies.emplace_back();
    c.path = m->SlotPath(slot);
    absl::StatusOr<std::vector<uint8_t>> bytes = io::ReadWholeFile(io, c.path);
    if (!bytes.ok()) {
      c.status = absl::Status(bytes.status().code(),
                              fmt::format("{}: {}", c.path, std::string(bytes.status().message())));
      continue;
    }
    absl::StatusOr<Catalog> cat = Catalog::DecodeCheckpoint(*bytes, c.path);
    c.status = cat.status();
    if (!cat.ok()) continue;
    c.sequence = cat->seq;
    c.bytes = *std::move(bytes);
    catalogs[slot] = *std::move(cat);
  }
  absl::StatusOr<io::CopyChoice> choice =
      io::ChooseNewestCopy(copies, fmt::format("disk group {} checkpoint", name));
  if (!choice.ok()) return choice.status();
  *catalog = std::move(catalogs[choice->newest]);
  if (absl::Status st = m->OpenJournals(catalog); !st.ok()) return st;
  // Only after the journal replayed: a checkpoint copy is rewritten from one
  // whose state the journal continues.
  if (read_only) {  // nothing is repaired; what was left is said
    io::DescribeUnrepairedCopies(copies, *choice, &m->repairs_);
    return m;
  }
  if (absl::Status st = io::RepairCopies(io, copies, *choice, &m->repairs_); !st.ok()) return st;
  return m;
}

// Reads both journal copies, keeps the longer valid prefix (a record only one
// copy holds was either never acknowledged, an append being acknowledged only
// once both copies are synced, or lost its twin to damage: kept either way),
// replays the records that follow the checkpoint into *catalog and rewrites
// each copy to exactly that prefix, syncing even the copies already equal to
// it (meta_store.h: what this open shows is durable before anything follows
// it). A gap between the checkpoint and the journal, or copies that
// disagree, cannot be proven newest: DataLoss naming the journal.
absl::Status MetaStore::OpenJournals(Catalog* catalog) {
  std::vector<uint8_t> logs[2];
  JournalScan scans[2];
  for (int copy = 0; copy < 2; ++copy) {
    absl::StatusOr<io::FileHandle> j =
        io_->Open(JournalPath(copy), {.create = !read_only_, .read_only = read_only_});
    if (!j.ok()) return j.status();
    journal_[copy] = *j;
    absl::StatusOr<std::vector<uint8_t>> log = io::ReadWholeFile(io_, JournalPath(copy));
    if (!log.ok()) return log.status();
    logs[copy] = *std::move(log);
    scans[copy] = ScanJournal(logs[copy]);
  }
  const int longer = scans[1].good_end > scans[0].good_end ? 1 : 0;
  const JournalScan& scan = scans[longer];
  const uint64_t shorter_end = scans[1 - longer].good_end;
  if (!std::equal(logs[0].begin(), logs[0].begin() + shorter_end, logs[1].begin())) {
    return absl::DataLossError(fmt::format(
        "disk group {}: the journal copies {} and {} disagree: refusing to guess which holds the "
        "newest changes", name_, JournalPath(0), JournalPath(1)));
  }
  const uint64_t last_seq = scan.seqs.empty() ? 0 : scan.seqs.back();
  for (int copy = 0; copy < 2; ++copy) {
    const uint64_t later = LaterValidRecord(logs[copy], scans[copy].good_end);
    if (later > last_seq) {
      return absl::DataLossError(fmt::format(
          "disk group {}: {} is damaged at byte {} and change {} follows it, which no intact "
          "copy holds: refusing to open at an older state",
          name_, JournalPath(copy), scans[copy].good_end, later));
    }
  }
  const uint64_t checkpoint_seq = catalog->seq;
  for (size_t i = 0; i < scan.seqs.size(); ++i) {
    const uint64_t seq = scan.seqs[i];
    if (seq > catalog->seq + 1) {
      return absl::DataLossError(fmt::format(
          "disk group {}: {} continues at change {} but the newest checkpoint holds change {}: "
          "the changes in between are lost; refusing to open at an older state",
          name_, JournalPath(longer), seq, catalog->seq));
    }
    if (seq == catalog->seq + 1) {
      absl::Status st = catalog->Apply(seq, scan.bodies[i]);
      if (!st.ok()) return st;
    }
  }
  // Records the checkpoint already holds (a cut between emptying the two
  // copies) are dropped rather than copied over.
  const bool fresh = catalog->seq > checkpoint_seq;
  const std::vector<uint8_t> good(logs[longer].begin(),
                                  logs[longer].begin() + (fresh ? scan.good_end : 0));
  for (int copy = 0; copy < 2; ++copy) {
    if (read_only_) {  // nothing is rewritten; a copy missing changes is said
      if (fresh && scans[copy].good_end < scan.good_end) {
        repairs_.push_back(fmt::format("{} lacks changes {}..{}; read them from {} instead",
                                       JournalPath(copy), scan.seqs.front(), scan.seqs.back(),
                                       JournalPath(longer)));
      }
      continue;
    }
    if (logs[copy] == good) {
      // The bytes are right but may be in the page cache only (a writer
      // that died between its two copies' writes and their syncs): make them
      // durable before a later append builds on them.
      if (absl::Status st = io_->Sync(journal_[copy], io::SyncKind::kData); !st.ok()) return st;
      continue;
    }
    if (fresh && scans[copy].good_end < scan.good_end) {
      repairs_.push_back(fmt::format("{} lacked changes {}..{}; rewritten from {}",
                                     JournalPath(copy), scan.seqs.front(), scan.seqs.back(),
                                     JournalPath(longer)));
    }
    // Also cuts a torn tail, so that new records follow the last good one.
    absl::Status st = io_->WriteAt(journal_[copy], 0, good.data(), good.size());
    if (st.ok()) st = io_->Truncate(journal_[copy], good.size());
    if (st.ok()) st = io_->Sync(journal_[copy], io::SyncKind::kFull);
    if (!st.ok()) return st;
  }
  journal_end_ = good.size();
  return absl::OkStatus();
}

absl::Status MetaStore::Append(uint64_t first_seq,
                               absl::Span<const std::vector<uint8_t>> bodies) {
  if (absl::Status st = CheckWritable(); !st.ok()) return st;
  Encoder e;
  uint64_t seq = first_seq;
  for (const std::vector<uint8_t>& body : bodies) {
    e.PutU32(kRecordMagic);
    e.PutU32(static_cast<uint32_t>(body.size()));
    e.PutU64(seq);
    e.PutU64(RecordSum(seq, body));
    e.PutBytes(body);
    ++seq;
  }
  // Both copies at once (why that is safe: the file comment of meta_store.h).
  absl::Status st =
      io::AppendToCopies(io_, journal_, journal_end_, e.data(), io::SyncKind::kData);
  if (!st.ok()) {
    return absl::Status(st.code(), fmt::format("disk group {}: journal write failed: {}",
                                               name_, std::string(st.message())));
  }
  journal_end_ += e.size();
  return absl::OkStatus();
}

absl::Status MetaStore::CheckWritable() const {
  if (!read_only_) return absl::OkStatus();
  return absl::FailedPreconditionError(
      fmt::format("disk group {} is mounted read-only: its metadata cannot change", name_));
}

absl::Status MetaStore::Checkpoint(const Catalog& catalog) {
  if (absl::Status st = CheckWritable(); !st.ok()) return st;
  absl::Status st = io::WriteCopiesInOrder(io_, SlotPaths(), catalog.EncodeCheckpoint());
  if (!st.ok()) return st;
  // Only now may the journal go: both slots hold everything it said.
  for (int copy = 0; copy < 2 && st.ok(); ++copy) {
    st = io_->Truncate(journal_[copy], 0);
    if (st.ok()) st = io_->Sync(journal_[copy], io::SyncKind::kFull);
  }
  if (!st.ok()) return st;
  journal_end_ = 0;
  return absl::OkStatus();
}

absl::Status MetaStore::Close() {
  absl::Status first;
  for (io::FileHandle& j : journal_) {
    if (j == io::kInvalidFile) continue;
    absl::Status st = io_->Close(j);
    j = io::kInvalidFile;
    if (first.ok()) first = st;
  }
  return first;
}

}  // namespace cellsim::asmgr::internal
