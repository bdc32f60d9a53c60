// Identical metadata copies: ordered whole-file commit, appends to every copy
// at once, newest choice, repair.
#include "cellsim/io/metadata_copies.h"

#include "cellsim/base/clock.h"
#include "fmt/format.h"

namespace cellsim::io {

absl::StatusOr<std::vector<uint8_t>> ReadWholeFile(IoBackend* io, const std::string& path) {
  absl::StatusOr<FileHandle> f = io->Open(path, {.read_only = true});
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

absl::Status ReplaceWholeFile(IoBackend* io, const std::string& path,
                              absl::Span<const uint8_t> bytes) {
  absl::StatusOr<FileHandle> f = io->Open(path, {.create = true});
  if (!f.ok()) return f.status();
  absl::Status st = io->WriteAt(*f, 0, bytes.data(), bytes.size());
  if (st.ok()) st = io->Truncate(*f, bytes.size());
  if (st.ok()) st = io->Sync(*f, SyncKind::kFull);
  absl::Status close = io->Close(*f);
  return st.ok() ? close : st;
}

absl::Status WriteCopiesInOrder(IoBackend* io, absl::Span<const std::string> paths,
                                absl::Span<const uint8_t> bytes) {
  for (const std::string& path : paths) {
    if (absl::Status st = ReplaceWholeFile(io, path, bytes); !st.ok()) {
      return absl::Status(st.code(), fmt::format("writing metadata copy {}: {}", path,
                                                 std::string(st.message())));
    }
  }
  return absl::OkStatus();
}

absl::Status AppendToCopies(IoBackend* io, absl::Span<const FileHandle> files, uint64_t offset,
                            absl::Span<const uint8_t> bytes, SyncKind kind) {
  std::vector<absl::Status> status(files.size());
  ForkJoin(SystemClock(), files.size(), [&](size_t i) {
    status[i] = io->WriteAt(files[i], offset, bytes.data(), bytes.size());
    if (status[i].ok()) status[i] = io->Sync(files[i], kind);
  });
  for (absl::Status& st : status) {
    if (!st.ok()) return st;
  }
  return absl::OkStatus();
}

absl::StatusOr<CopyChoice> ChooseNewestCopy(absl::Span<const MetadataCopy> copies,
                                            std::string_view what) {
  CopyChoice choice;
  bool found = false;
  std::string errors;
  for (size_t i = 0; i < copies.size(); ++i) {
    if (!copies[i].status.ok()) {
      errors += fmt::format("; {}", std::string(copies[i].status.message()));
      continue;
    }
    if (!found || copies[i].sequence > copies[choice.newest].sequence) choice.newest = i;
    found = true;
  }
  if (!found) {
    return absl::DataLossError(fmt::format("{}: no valid copy{}", what, errors));
  }
  for (size_t i = 0; i < copies.size(); ++i) {
    if (!copies[i].status.ok() || copies[i].sequence != copies[choice.newest].sequence ||
        copies[i].bytes != copies[choice.newest].bytes) {
      choice.to_repair.push_back(i);
    }
  }
  return choice;
}

namespace {

// Why a copy was refused, without its path (the repair message names it
// first): "ASM metadata: DIR/DATA.ckpt0: checksum mismatch" -> "ASM
// metadata: checksum mismatch".
std::string Why(const MetadataCopy& c) {
  std::string why(c.status.message());
  const std::string path = c.path + ": ";
  for (size_t at; (at = why.find(path)) != std::string::npos;) why.erase(at, path.size());
  return why;
}

// What a copy to repair holds: "damaged (why)" or "at sequence N".
std::string CopyState(const MetadataCopy& c) {
  return c.status.ok() ? fmt::format("at sequence {}", c.sequence)
                       : fmt::format("damaged ({})", Why(c));
}

}  // namespace

absl::Status RepairCopies(IoBackend* io, absl::Span<const MetadataCopy> copies,
                          const CopyChoice& choice, std::vector<std::string>* repairs) {
  const MetadataCopy& newest = copies[choice.newest];
  for (size_t i : choice.to_repair) {
    const MetadataCopy& c = copies[i];
    if (absl::Status st = ReplaceWholeFile(io, c.path, newest.bytes); !st.ok()) {
      return absl::Status(st.code(), fmt::format("repairing metadata copy {} from {}: {}",
                                                 c.path, newest.path, std::string(st.message())));
    }
    repairs->push_back(fmt::format("{} was {}; rewritten from {} (sequence {})", c.path,
                                   CopyState(c), newest.path, newest.sequence));
  }
  return absl::OkStatus();
}

void DescribeUnrepairedCopies(absl::Span<const MetadataCopy> copies, const CopyChoice& choice,
                              std::vector<std::string>* notes) {
  const MetadataCopy& newest = copies[choice.newest];
  for (size_t i : choice.to_repair) {
    notes->push_back(fmt::format("{} is {}; read {} (sequence {}) instead", copies[i].path,
                                 CopyState(copies[i]), newest.path, newest.sequence));
  }
}

}  // namespace cellsim::io
