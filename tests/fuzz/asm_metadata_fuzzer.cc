// Fuzz target: the ASM metadata of a disk group — the catalog checkpoint
// decoder (cellsim/asm/catalog.h) and the change journal replayed by
// MetaStore::Open (meta_store.h), whose records go through Catalog::Apply.
//
// The first input byte picks the operation:
//   0 checkpoint, raw             1 checkpoint, re-sealed (checksum recomputed)
//   2 journal: u32 length + checkpoint (re-sealed), then the journal file as is
//   3 the same with every journal record's checksum recomputed
// Operations 2 and 3 write <scratch>/FZ.ckpt0 and FZ.journal and open them with
// the real MetaStore::Open (POSIX backend), as a disk group mount does.
// Properties: no crash, hang or leak; errors are DataLoss with a message; a
// catalog that was accepted re-encodes to a checkpoint that decodes to the same
// catalog, and its AU accounting matches its extent maps.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "cellsim/asm/catalog.h"
#include "cellsim/asm/meta_store.h"
#include "cellsim/base/checksum.h"
#include "cellsim/io/io_backend.h"
#include "fuzz/fuzz_util.h"

namespace cellsim::fuzz {
namespace {

using asmgr::internal::AuOwner;
using asmgr::internal::Catalog;
using asmgr::internal::DiskRec;

enum Op : uint8_t { kCheckpointRaw, kCheckpointSealed, kJournalRaw, kJournalSealed, kOps };

void SealCheckpoint(std::vector<uint8_t>& ck) {
  if (ck.size() < 16) return;
  const size_t n = ck.size() - 8;
  PutLe(ck.data() + n,
        Checksum64(absl::MakeConstSpan(ck).subspan(0, n), asmgr::internal::kCatalogCheckpointSeed),
        8);
}

// Recomputes the checksum of every record whose length fits.
void SealJournal(std::vector<uint8_t>& j) {
  constexpr size_t kHeader = 24;
  size_t pos = 0;
  while (pos + kHeader <= j.size()) {
    const uint32_t len = static_cast<uint32_t>(GetLe(j.data() + pos + 4, 4));
    if (len > j.size() - pos - kHeader) break;
    const uint64_t seq = GetLe(j.data() + pos + 8, 8);
    PutLe(j.data() + pos + 16,
          asmgr::internal::JournalRecordSum(
              seq, absl::MakeConstSpan(j).subspan(pos + kHeader, len)),
          8);
    pos += kHeader + len;
  }
}

// An accepted catalog: accounting consistent, checkpoint round trip exact.
void CheckCatalog(const Catalog& c) {
  for (size_t i = 0; i < c.disks.size(); ++i) {
    const DiskRec& d = c.disks[i];
    FUZZ_CHECK(d.owners.size() == d.total_aus, "disk %zu owners %zu of %u AUs", i,
               d.owners.size(), d.total_aus);
    uint32_t used = 0, primaries = 0;
    for (const AuOwner& o : d.owners) {
      used += o.file != 0;
      primaries += o.file != 0 && o.copy == 0;
    }
    FUZZ_CHECK(used == d.used && primaries == d.primaries, "disk %zu: used %u/%u primaries %u/%u",
               i, used, d.used, primaries, d.primaries);
    FUZZ_CHECK(d.first_free <= d.total_aus, "disk %zu first_free past the end", i);
    for (uint32_t au = 0; au < d.first_free; ++au) {
      FUZZ_CHECK(d.owners[au].file != 0, "disk %zu: AU %u below first_free is free", i, au);
    }
  }
  for (const auto& [num, f] : c.files) {
    FUZZ_CHECK(f.info.extents == f.extents.size(), "file %u extent count", num);
    for (uint32_t x = 0; x < f.extents.size(); ++x) {
      for (uint32_t k = 0; k < f.copies(); ++k) {
        const auto& loc = f.extents[x][k];
        FUZZ_CHECK(loc.disk < c.disks.size() && loc.au < c.disks[loc.disk].total_aus,
                   "file %u extent %u copy %u out of range", num, x, k);
        const AuOwner& o = c.disks[loc.disk].owners[loc.au];
        FUZZ_CHECK(o.file == num && o.extent == x && o.copy == k,
                   "file %u extent %u copy %u: AU owned by file %u", num, x, k, o.file);
      }
    }
  }
  const std::vector<uint8_t> bytes = c.EncodeCheckpoint();
  absl::StatusOr<Catalog> again = Catalog::DecodeCheckpoint(bytes, "re-encoded checkpoint");
  FUZZ_CHECK(again.ok(), "re-encoded checkpoint does not decode: %s",
             std::string(again.status().message()).c_str());
  FUZZ_CHECK(again->EncodeCheckpoint() == bytes, "checkpoint round trip changed the catalog");
}

void CheckpointOp(absl::Span<const uint8_t> bytes, bool seal) {
  std::vector<uint8_t> ck(bytes.begin(), bytes.end());
  if (seal) SealCheckpoint(ck);
  absl::StatusOr<Catalog> c = Catalog::DecodeCheckpoint(ck, "DATA.ckpt0");
  if (!c.ok()) {
    CheckError(c.status(), {absl::StatusCode::kDataLoss});
    return;
  }
  CheckCatalog(*c);
}

void JournalOp(Input& in, bool seal) {
  const absl::Span<const uint8_t> ck_in = in.Bytes(in.U32() % (1u << 20));
  std::vector<uint8_t> ck(ck_in.begin(), ck_in.end());
  SealCheckpoint(ck);
  const absl::Span<const uint8_t> rest = in.Rest();
  std::vector<uint8_t> journal(rest.begin(), rest.end());
  if (seal) SealJournal(journal);
  const std::string& dir = ScratchDir();
  WriteFile(dir + "/FZ.ckpt0", ck);
  WriteFile(dir + "/FZ.journal", journal);
  unlink((dir + "/FZ.ckpt1").c_str());
  unlink((dir + "/FZ.journal1").c_str());  // Open rewrites it from FZ.journal
  static const std::unique_ptr<io::IoBackend> io = io::MakePosixBackend();
  Catalog cat;
  absl::StatusOr<std::unique_ptr<asmgr::internal::MetaStore>> m =
      asmgr::internal::MetaStore::Open(io.get(), dir, "FZ", &cat);
  if (!m.ok()) {
    CheckError(m.status(), {absl::StatusCode::kDataLoss});
    return;
  }
  FUZZ_CHECK((*m)->journal_bytes() <= journal.size(), "journal end past the file");
  FUZZ_CHECK((*m)->Close().ok(), "close failed");
  CheckCatalog(cat);
}

}  // namespace
}  // namespace cellsim::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cellsim::fuzz;  // NOLINT
  Input in(data, size);
  const uint8_t op = in.U8() % kOps;
  if (op == kCheckpointRaw || op == kCheckpointSealed) {
    CheckpointOp(in.Rest(), op == kCheckpointSealed);
  } else {
    JournalOp(in, op == kJournalSealed);
  }
  return 0;
}
