// Whole-stack checks shared by the kill -9 tests and the fault scenarios:
// "this file reads formatted", "no extent leaked, no orphan file", "every
// copy agrees". Each returns a Status naming what is wrong, so a test can
// assert on it and see the first breach.
#ifndef CELLSIM_TESTS_FAULTS_STACK_CHECK_H_
#define CELLSIM_TESTS_FAULTS_STACK_CHECK_H_

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "cellsim/asm/rack.h"
#include "cellsim/base/units.h"
#include "cellsim/cell/cell.h"
#include "cellsim/db/file_table.h"
#include "cellsim/format/block_template.h"
#include "fmt/format.h"

namespace cellsim::faults::testing {

// ReadAsm's request size: a multiple of every block size.
inline constexpr uint64_t kReadAsmPiece = 8 * kMiB;

// Reads [offset, offset + out.size()) of an ASM file through ASM (primary copy,
// failing over to mirrors), in kReadAsmPiece requests.
inline absl::Status ReadAsm(asmgr::DiskGroup* dg, uint32_t file, uint64_t offset,
                            absl::Span<uint8_t> out, uint64_t* failovers = nullptr) {
  for (uint64_t done = 0; done < out.size(); done += kReadAsmPiece) {
    std::vector<asmgr::AsmReadRequest> r(1);
    r[0].file_offset = offset + done;
    r[0].buffer = out.subspan(done, std::min<uint64_t>(kReadAsmPiece, out.size() - done));
    if (absl::Status s = dg->Read(file, absl::MakeSpan(r), nullptr); !s.ok()) return s;
    if (failovers != nullptr) *failovers += r[0].failovers;
  }
  return absl::OkStatus();
}

// Reads [0, length) of an ASM file a kReadAsmPiece at a time into one buffer
// and calls visit(offset, piece) with each (a whole file's buffer would be
// fresh pages, each a page fault and a sanitizer's shadow page). Returns the
// first read error, its message after `what` ("reading X: ..."), or the first
// error visit returns.
template <typename Visit>
absl::Status ReadAsmInPieces(asmgr::DiskGroup* dg, uint32_t file, uint64_t length,
                             std::string_view what, Visit visit, uint64_t* failovers = nullptr) {
  std::vector<uint8_t> piece(std::min(length, kReadAsmPiece));
  for (uint64_t off = 0; off < length; off += kReadAsmPiece) {
    const auto got = absl::MakeSpan(piece.data(), std::min(kReadAsmPiece, length - off));
    if (absl::Status s = ReadAsm(dg, file, off, got, failovers); !s.ok()) {
      return absl::Status(s.code(), fmt::format("{}: {}", what, std::string(s.message())));
    }
    if (absl::Status s = visit(off, absl::Span<const uint8_t>(got)); !s.ok()) return s;
  }
  return absl::OkStatus();
}

// The template a file of the table was formatted from, and its disk group.
inline format::BlockTemplate TemplateOf(const db::DataFile& f) {
  return {format::BlockKind::kData, f.block_size, f.file_number,
          db::OnDiskBlocks(f.size_bytes, f.block_size)};
}
// A log member is SIZE + one block (block 0, the OS header, comes first).
inline format::BlockTemplate TemplateOf(const db::LogGroup& g) {
  return {format::BlockKind::kRedo, g.block_size, g.group,
          db::OnDiskBlocks(g.size_bytes, g.block_size)};
}

// OK when the ASM file reads exactly as a freshly created file: every block
// but block 1 as the template generates it, block 1 (the header the database
// writes) with its block type and a valid checksum.
inline absl::Status VerifyFormatted(asmgr::Rack* rack, const db::AsmFileRef& ref,
                                    const format::BlockTemplate& t) {
  absl::StatusOr<asmgr::DiskGroup*> dg = rack->disk_group(ref.disk_group);
  if (!dg.ok()) return dg.status();
  const uint64_t bs = t.block_size;
  auto verify = [&](uint64_t off, absl::Span<const uint8_t> bytes) -> absl::Status {
    for (uint64_t at = 0; at + bs <= bytes.size(); at += bs) {
      const uint64_t b = (off + at) / bs;
      const auto block = bytes.subspan(at, bs);
      if (b == 1) {
        const bool redo = t.kind == format::BlockKind::kRedo;
        const uint16_t want =
            redo ? format::RedoBlockChecksum(block) : format::DataBlockChecksum(block);
        const size_t sum = redo ? 14 : 16;
        const uint16_t got = static_cast<uint16_t>(block[sum] | (block[sum + 1] << 8));
        const uint8_t type = redo ? format::kRedoSignature : 0x0B;
        if (block[0] != type || want != got) {
          return absl::DataLossError(fmt::format(
              "{}: header block 1 has type 0x{:02x} (want 0x{:02x}), checksum 0x{:04x} (want "
              "0x{:04x})",
              ref.name, block[0], type, got, want));
        }
        continue;
      }
      if (absl::Status s = format::VerifyBlock(t, b, block); !s.ok()) {
        return absl::DataLossError(
            fmt::format("{}: block {}: {}", ref.name, b, std::string(s.message())));
      }
    }
    return absl::OkStatus();
  };
  return ReadAsmInPieces(*dg, ref.number, t.file_blocks * bs, ref.name, verify);
}

// Every AVAILABLE file of the table, except data files in `skip` (files a
// workload wrote into), reads formatted.
inline absl::Status VerifyTableFormatted(asmgr::Rack* rack, const db::FileTable& table,
                                         const std::set<std::string>& skip = {}) {
  for (const db::DataFile& f : table.data_files) {
    if (f.state != db::EntryState::kAvailable || skip.count(f.file.name)) continue;
    if (absl::Status s = VerifyFormatted(rack, f.file, TemplateOf(f)); !s.ok()) return s;
  }
  for (const db::LogGroup& g : table.log_groups) {
    if (g.state != db::EntryState::kAvailable) continue;
    for (const db::LogMember& m : g.members) {
      if (absl::Status s = VerifyFormatted(rack, m.file, TemplateOf(g)); !s.ok()) return s;
    }
  }
  return absl::OkStatus();
}

// The ASM files of database `db_name` are exactly its control files and the
// files its table refers to (no orphan left by an interrupted creation), every
// disk group's extent maps and allocation maps agree (no AU leaked or owned
// twice), and every cell's cache directory is consistent.
inline absl::Status CheckNoLeaks(asmgr::Rack* rack, const db::FileTable& table) {
  std::set<std::string> referenced;
  for (const db::AsmFileRef& r : table.AllFiles()) referenced.insert(r.name);
  for (const db::AsmFileRef& r : table.kept_files) referenced.insert(r.name);
  for (asmgr::DiskGroup* dg : rack->disk_groups()) {
    if (absl::Status s = dg->CheckConsistency(); !s.ok()) return s;
    for (const asmgr::FileInfo& f : dg->ListFiles()) {
      if (f.db_name != table.db_name || f.type == asmgr::FileType::kControlFile) continue;
      if (!referenced.count(f.name)) {
        return absl::InternalError(
            fmt::format("{} is in ASM but not in the database's file table", f.name));
      }
      referenced.erase(f.name);
    }
  }
  if (!referenced.empty()) {
    return absl::InternalError(
        fmt::format("the file table refers to {} missing from ASM", *referenced.begin()));
  }
  for (uint32_t c = 0; c < rack->cell_count(); ++c) {
    if (absl::Status s = rack->concrete_cell(c)->CheckConsistency(); !s.ok()) return s;
  }
  return absl::OkStatus();
}

// Scrubs every disk group (no repair): OK when every copy of every extent is
// readable and agrees with the others.
inline absl::Status ScrubClean(asmgr::Rack* rack, uint64_t* extents_checked = nullptr) {
  for (asmgr::DiskGroup* dg : rack->disk_groups()) {
    asmgr::ScrubResult sc;
    if (absl::Status s = dg->Scrub({}, &sc); !s.ok()) return s;
    if (extents_checked != nullptr) *extents_checked += sc.extents_checked;
    if (sc.read_errors != 0 || !sc.mismatches.empty()) {
      const std::string first =
          sc.mismatches.empty()
              ? std::string("-")
              : fmt::format("file {} extent {} offset {} ({} vs {})", sc.mismatches[0].file,
                            sc.mismatches[0].extent, sc.mismatches[0].file_offset,
                            sc.mismatches[0].disk_a, sc.mismatches[0].disk_b);
      return absl::DataLossError(
          fmt::format("scrub of +{}: {} read errors, {} mismatches; first: {}", dg->name(),
                      sc.read_errors, sc.mismatches.size(), first));
    }
  }
  return absl::OkStatus();
}

}  // namespace cellsim::faults::testing

#endif  // CELLSIM_TESTS_FAULTS_STACK_CHECK_H_
