// MetaStore: checkpoint slots and the change journal of a disk group.
#include "cellsim/asm/meta_store.h"

#include <filesystem>
#include <system_error>
#include <utility>

#include "cellsim/base/checksum.h"
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

// Reads a whole (small) metadata file.
absl::StatusOr<std::vector<uint8_t>> ReadAll(io::IoBackend* io, const std::string& path) {
  absl::StatusOr<io::FileHandle> f = io->Open(path, {.read_only = true});
  if (!f.ok()) return f.status();
  absl::StatusOr<uint64_t> size = io->Size(*f);
  std::vector<uint8_t> bytes;
  absl::Status st = size.status();
  if (st.ok()) {
    bytes.resize(*size);
    size_t got = 0;
    if (!bytes.empty()) st = io->ReadAt(*f, 0, bytes.data(), bytes.size(), &got);
    if (st.ok() && got != bytes.size()) {
      st = absl::DataLossError(fmt::format("{}: short read ({} of {} bytes)", path, got,
                                           bytes.size()));
    }
  }
  absl::Status close = io->Close(*f);
  if (!st.ok()) return st;
  if (!close.ok()) return close;
  return bytes;
}

// Replaces a file's content and syncs it.
absl::Status WriteAll(io::IoBackend* io, const std::string& path,
                      absl::Span<const uint8_t> bytes) {
  absl::StatusOr<io::FileHandle> f = io->Open(path, {.create = true});
  if (!f.ok()) return f.status();
  absl::Status st = io->WriteAt(*f, 0, bytes.data(), bytes.size());
  if (st.ok()) st = io->Truncate(*f, bytes.size());
  if (st.ok()) st = io->Sync(*f, io::SyncKind::kFull);
  absl::Status close = io->Close(*f);
  return st.ok() ? close : st;
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
  if (journal_ != io::kInvalidFile) (void)io_->Close(journal_);
}

std::string MetaStore::SlotPath(int slot) const {
  return fmt::format("{}/{}.ckpt{}", dir_, name_, slot);
}
std::string MetaStore::JournalPath() const { return fmt::format("{}/{}.journal", dir_, name_); }

bool MetaStore::Exists(io::IoBackend*, const std::string& dir, const std::string& name) {
  std::error_code ec;
  for (const char* suffix : {".ckpt0", ".ckpt1", ".journal"}) {
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
  // The journal first: a slot without a journal is a complete, valid group.
  absl::StatusOr<io::FileHandle> j = io->Open(m->JournalPath(), {.create = true, .truncate = true});
  if (!j.ok()) return j.status();
  m->journal_ = *j;
  absl::Status st = io->Sync(m->journal_, io::SyncKind::kFull);
  if (!st.ok()) return st;
  st = WriteAll(io, m->SlotPath(0), initial.EncodeCheckpoint());
  if (!st.ok()) return st;
  m->newest_slot_ = 0;
  return m;
}

absl::StatusOr<std::unique_ptr<MetaStore>> MetaStore::Open(io::IoBackend* io,
                                                           const std::string& dir,
                                                           const std::string& name,
                                                           Catalog* catalog) {
  if (!Exists(io, dir, name)) {
    return absl::NotFoundError(fmt::format("disk group {}: no metadata in {}", name, dir));
  }
  std::unique_ptr<MetaStore> m(new MetaStore(io, dir, name));
  std::string errors;
  bool found = false;
  for (int slot = 0; slot < 2; ++slot) {
    absl::StatusOr<std::vector<uint8_t>> bytes = ReadAll(io, m->SlotPath(slot));
    if (!bytes.ok()) {
      errors += fmt::format("; {}: {}", m->SlotPath(slot), std::string(bytes.status().message()));
      continue;
    }
    absl::StatusOr<Catalog> c = Catalog::DecodeCheckpoint(*bytes, m->SlotPath(slot));
    if (!c.ok()) {
      errors += fmt::format("; {}", std::string(c.status().message()));
      continue;
    }
    if (!found || c->seq > catalog->seq) {
      *catalog = *std::move(c);
      m->newest_slot_ = slot;
      found = true;
    }
  }
  if (!found) {
    return absl::DataLossError(
        fmt::format("disk group {}: no valid checkpoint{}", name, errors));
  }
  absl::StatusOr<io::FileHandle> j = io->Open(m->JournalPath(), {.create = true});
  if (!j.ok()) return j.status();
  m->journal_ = *j;
  absl::StatusOr<std::vector<uint8_t>> log = ReadAll(io, m->JournalPath());
  if (!log.ok()) return log.status();
  Decoder d(*log);
  uint64_t good_end = 0;
  while (d.remaining() >= kRecordHeader) {
    uint32_t magic = 0, len = 0;
    uint64_t seq = 0, sum = 0;
    absl::Span<const uint8_t> body;
    (void)d.GetU32(&magic);
    (void)d.GetU32(&len);
    (void)d.GetU64(&seq);
    (void)d.GetU64(&sum);
    if (magic != kRecordMagic || len > kMaxRecord || !d.GetBytes(len, &body) ||
        RecordSum(seq, body) != sum) {
      break;  // torn or never-written tail
    }
    if (seq > catalog->seq + 1) break;  // a gap: nothing after it can apply
    if (seq == catalog->seq + 1) {
      absl::Status st = catalog->Apply(seq, body);
      if (!st.ok()) return st;
    }
    good_end = d.position();
  }
  if (good_end != log->size()) {
    // Cut the torn tail so new records follow the last good one.
    absl::Status st = io->Truncate(m->journal_, good_end);
    if (st.ok()) st = io->Sync(m->journal_, io::SyncKind::kFull);
    if (!st.ok()) return st;
  }
  m->journal_end_ = good_end;
  return m;
}

absl::Status MetaStore::Append(uint64_t first_seq,
                               absl::Span<const std::vector<uint8_t>> bodies) {
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
  absl::Status st = io_->WriteAt(journal_, journal_end_, e.data().data(), e.size());
  if (st.ok()) st = io_->Sync(journal_, io::SyncKind::kData);
  if (!st.ok()) {
    return absl::Status(st.code(), fmt::format("disk group {}: journal write failed: {}",
                                               name_, std::string(st.message())));
  }
  journal_end_ += e.size();
  return absl::OkStatus();
}

absl::Status MetaStore::Checkpoint(const Catalog& catalog) {
  const int slot = 1 - newest_slot_;
  absl::Status st = WriteAll(io_, SlotPath(slot), catalog.EncodeCheckpoint());
  if (!st.ok()) return st;
  newest_slot_ = slot;
  // Only now may the journal go: the slot holds everything it said.
  st = io_->Truncate(journal_, 0);
  if (st.ok()) st = io_->Sync(journal_, io::SyncKind::kFull);
  if (!st.ok()) return st;
  journal_end_ = 0;
  return absl::OkStatus();
}

absl::Status MetaStore::Close() {
  if (journal_ == io::kInvalidFile) return absl::OkStatus();
  absl::Status st = io_->Close(journal_);
  journal_ = io::kInvalidFile;
  return st;
}

}  // namespace cellsim::asmgr::internal
