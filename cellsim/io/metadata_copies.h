// Metadata kept as identical copies (private to cellsim): whole files (the
// rack configuration rack.meta0/1 and the ASM catalog checkpoints
// <G>.ckpt0/1) and appended journals (the ASM change journals <G>.journal and
// <G>.journal1, cellsim/asm/meta_store.h).
//
// Whole files ("every copy current"): a commit writes the same newest state to
// copy 0, syncs it, then to copy 1, syncs it, and is acknowledged only then.
// So copy 0 never holds an older state than copy 1, and copy 1 holds at least
// every acknowledged state: whichever copy is valid holds the newest
// acknowledged state (the valid copy with the higher sequence when both are),
// and a torn or damaged copy is repaired from it, never the reverse. The order
// is what keeps one copy whole at every instant: a file is rewritten in place,
// so two copies written at once could both be torn by one crash, and no valid
// copy would remain.
//
// Appended copies (AppendToCopies): an append writes only past the prefix the
// copies share, so a crash, whatever it tears, leaves that prefix whole in
// both; the copies are written and synced at the same time. What their reader
// must do for that to be safe (take the longer valid prefix, and make it
// durable in every copy before anything follows it) is argued in
// cellsim/asm/meta_store.h and docs/asm.md.
#ifndef CELLSIM_IO_METADATA_COPIES_H_
#define CELLSIM_IO_METADATA_COPIES_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "cellsim/io/io_backend.h"

namespace cellsim::io {

// Reads a whole (small) file.
[[nodiscard]] absl::StatusOr<std::vector<uint8_t>> ReadWholeFile(IoBackend* io,
                                                                 const std::string& path);
// Replaces a file's content (create, write, truncate) and syncs it.
[[nodiscard]] absl::Status ReplaceWholeFile(IoBackend* io, const std::string& path,
                                            absl::Span<const uint8_t> bytes);
// Writes `bytes` to every path in order, each synced before the next starts.
[[nodiscard]] absl::Status WriteCopiesInOrder(IoBackend* io, absl::Span<const std::string> paths,
                                              absl::Span<const uint8_t> bytes);
// Writes `bytes` at `offset` of every file and syncs each (`kind`), all copies
// at once (one thread each, base::ForkJoin with the real clock: metadata I/O
// is not modeled). OK only when every copy was written and synced; otherwise
// the first failing copy's status, and any copy may or may not hold `bytes`.
[[nodiscard]] absl::Status AppendToCopies(IoBackend* io, absl::Span<const FileHandle> files,
                                          uint64_t offset, absl::Span<const uint8_t> bytes,
                                          SyncKind kind);

// What Open learnt about one copy.
struct MetadataCopy {
  std::string path;
  absl::Status status;       // OK when the copy read and decoded
  uint64_t sequence = 0;     // its state's sequence number when OK
  std::vector<uint8_t> bytes;  // its raw bytes when OK
};

// The outcome of choosing among the copies.
struct CopyChoice {
  size_t newest = 0;             // index of the copy holding the newest state
  std::vector<size_t> to_repair;  // copies damaged, torn, missing or older
};

// Picks the valid copy with the highest sequence. DataLoss naming every copy
// (with `what`, e.g. "rack configuration") when no copy is valid.
[[nodiscard]] absl::StatusOr<CopyChoice> ChooseNewestCopy(absl::Span<const MetadataCopy> copies,
                                                          std::string_view what);
// Rewrites every copy of `choice.to_repair` from the newest copy (each synced)
// and appends "PATH was ...; rewritten from PATH (sequence N)" to *repairs.
[[nodiscard]] absl::Status RepairCopies(IoBackend* io, absl::Span<const MetadataCopy> copies,
                                        const CopyChoice& choice,
                                        std::vector<std::string>* repairs);
// What a read-only open says instead, having repaired nothing: appends "PATH
// is ...; read PATH (sequence N) instead" for every copy of `choice.to_repair`.
void DescribeUnrepairedCopies(absl::Span<const MetadataCopy> copies, const CopyChoice& choice,
                              std::vector<std::string>* notes);

}  // namespace cellsim::io

#endif  // CELLSIM_IO_METADATA_COPIES_H_
