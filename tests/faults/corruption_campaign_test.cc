// Corruption campaign (issue 11): one byte flipped at many offsets of every
// kind of metadata file, one copy at a time, on a rack + database left as a
// kill -9 leaves it (journals not yet folded into checkpoints). After each
// flip the rack and database are opened and their whole logical state
// (configuration, disk groups, every ASM file's name, size and content, the
// control file's file table) is compared with the state the unflipped rack
// opens at. Each case must end in one of:
//   - opened at the same state, a repair reported for the damaged copy and a
//     second open reporting none (the copy was rewritten);
//   - opened at the same state without a repair (the byte was not part of any
//     structure read: padding, an unused slot);
//   - refused with an error naming the damaged file.
// Anything else (a changed state, a refusal not naming the file) fails.
// docs/reliability.md ("Corruption campaign") gives the figures.
#include <algorithm>
#include <cstdlib>
#include <functional>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "cellsim/asm/rack.h"
#include "cellsim/base/checksum.h"
#include "cellsim/base/units.h"
#include "cellsim/cell/cell.h"
#include "cellsim/cell/metadata.h"
#include "cellsim/db/database.h"
#include "cellsim/db/file_table.h"
#include "faults/stack_check.h"
#include "fmt/format.h"
#include "gtest/gtest.h"
#include "testing/sanitizer.h"
#include "testing/test_util.h"

namespace cellsim::faults {
namespace {

using ::cellsim::faults::testing::ReadAsm;
using ::cellsim::testing::TempDir;

asmgr::RackConfig CampaignRack() {
  asmgr::RackConfig c;
  c.cells = 3;
  c.cell_disks_per_cell = 2;
  c.disk_groups = {{.name = "DATA", .redundancy = asmgr::Redundancy::kNormal,
                    .au_size = 1 * kMiB, .grid_disk_size = 32 * kMiB},
                   {.name = "RECO", .redundancy = asmgr::Redundancy::kNormal,
                    .au_size = 1 * kMiB, .grid_disk_size = 16 * kMiB}};
  c.flash_size = 16 * kMiB;
  c.flash_cache_mode = cell::FlashCacheMode::kWriteBack;
  return c;
}

using ::cellsim::testing::ReadFileBytes;

void FlipByte(const std::string& path, uint64_t offset) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(static_cast<std::streamoff>(offset));
  const int c = f.get();
  f.seekp(static_cast<std::streamoff>(offset));
  f.put(static_cast<char>(c ^ 0x5A));
}

void CopyTree(const std::string& from, const std::string& to) {
  std::filesystem::remove_all(to);
  const std::string cmd = fmt::format("cp -a --sparse=always '{}' '{}'", from, to);
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
}

// The rack and database as a kill -9 leaves them: creations by all three
// paths, a log group, data written through the write-back cache; the
// database closed, the rack never closed (its journals hold the changes).
void BuildBase(const std::string& dir) {
  std::unique_ptr<io::IoBackend> io = io::MakePosixBackend();
  auto rack = asmgr::Rack::Create(io.get(), SystemClock(), dir, CampaignRack());
  ASSERT_TRUE(rack.ok()) << rack.status();
  db::DatabaseOptions options;
  options.min_log_file_bytes = 0;  // 2 MiB logs on this tiny rack (Oracle's minimum is 4 MiB)
  auto db = db::Database::Create(rack->get(), options);
  ASSERT_TRUE(db.ok()) << db.status();
  {
    auto s = (*db)->NewSession();
    for (const char* sql :
         {"alter session set \"_cell_fast_file_create\" = false",
          "create tablespace zf datafile '+DATA' size 4m",
          "alter session set \"_cell_fast_file_create\" = true",
          "alter session set cellsim_fast_file_create_metadata = false",
          "create tablespace smart datafile '+DATA' size 4m",
          "alter session set cellsim_fast_file_create_metadata = true",
          "create tablespace fast datafile '+RECO' size 4m",
          "alter database add logfile group 3 ('+DATA','+RECO') size 2m"}) {
      ASSERT_TRUE(s->Execute(sql).ok()) << sql;
    }
  }
  asmgr::DiskGroup* data = *(*rack)->disk_group("DATA");
  std::vector<uint8_t> bytes(64 * kKiB);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(i * 7 + 3);
  for (const asmgr::FileInfo& f : data->ListFiles()) {
    if (f.type != asmgr::FileType::kDataFile) continue;
    std::vector<asmgr::AsmWriteRequest> w = {{.file_offset = 64 * kKiB, .data = bytes}};
    asmgr::AsmIoResult r;
    ASSERT_TRUE(data->Write(f.number, absl::MakeSpan(w), &r).ok());
  }
  ASSERT_TRUE((*db)->Close().ok());
  db->reset();
  rack->reset();  // no Close: as after kill -9
}

struct Opened {
  absl::Status status;
  std::string state;                 // the logical state, when opened
  std::vector<std::string> repairs;  // rack + database repairs
};

// Opens the rack and the database at `dir` and describes their logical state.
Opened OpenAndDescribe(const std::string& dir) {
  Opened out;
  std::unique_ptr<io::IoBackend> io = io::MakePosixBackend();
  auto rack = asmgr::Rack::Open(io.get(), SystemClock(), dir);
  if (!rack.ok()) {
    out.status = rack.status();
    return out;
  }
  out.repairs = (*rack)->metadata_repairs();
  auto db = db::Database::Open(rack->get());
  if (!db.ok()) {
    out.status = db.status();
    (void)(*rack)->Close();
    return out;
  }
  for (const std::string& a : (*db)->recovery_actions()) out.repairs.push_back(a);
  std::string s = fmt::format("cells {}\n", (*rack)->cell_count());
  for (asmgr::DiskGroup* g : (*rack)->disk_groups()) {
    s += fmt::format("group {} disks {}\n", g->name(), g->disk_count());
    for (const asmgr::FileInfo& f : g->ListFiles()) {
      if (f.type == asmgr::FileType::kControlFile) {
        // Its meaning is the file table (below); unused blocks carry none.
        s += fmt::format("  {} {}\n", f.name, f.size_bytes);
        continue;
      }
      // One buffer for every file of every case: a fresh one per file was
      // faulted in page by page, most of the campaign's time under ASan.
      static std::vector<uint8_t> content;
      content.resize(f.size_bytes);
      absl::Status st = ReadAsm(g, f.number, 0, absl::MakeSpan(content));
      s += fmt::format("  {} {} {}\n", f.name, f.size_bytes,
                       st.ok() ? fmt::format("{:016x}", Checksum64(content))
                               : std::string(st.message()));
    }
  }
  s += fmt::format("file table {:016x}\n", Checksum64((*db)->file_table().Encode()));
  out.state = s;
  (void)(*db)->Close();
  db->reset();
  out.status = (*rack)->Close();
  return out;
}

struct Tally {
  std::map<std::string, std::map<std::string, int>> by_kind;  // kind -> outcome -> n
  int cases = 0;
};

// `n` offsets spread over [begin, end).
std::vector<uint64_t> Spread(uint64_t begin, uint64_t end, int n) {
  std::vector<uint64_t> out;
  if (end <= begin) return out;
  for (int i = 0; i < n; ++i) out.push_back(begin + (end - begin) * (2 * i + 1) / (2 * n));
  return out;
}

class CorruptionCampaign : public ::testing::Test {
 protected:
  void SetUp() override {
    BuildBase(base());
    CopyTree(base(), work());
    baseline_ = OpenAndDescribe(work());
    ASSERT_TRUE(baseline_.status.ok()) << baseline_.status;
  }
  std::string base() const { return tmp_.path() + "/base"; }
  std::string work() const { return tmp_.path() + "/work"; }

  // Copies the base, lets `damage` change the copy, opens it and classifies.
  void Case(const std::string& kind, const std::string& name, uint64_t offset,
            const std::function<void()>& damage) {
    CopyTree(base(), work());
    damage();
    const Opened got = OpenAndDescribe(work());
    std::string outcome;
    if (!got.status.ok()) {
      const std::string msg(got.status.message());
      outcome = msg.find(name) != std::string::npos ? "refused naming the file"
                                                    : "FAIL: refused without naming it";
      if (outcome[0] == 'F') ADD_FAILURE() << kind << " " << name << " @" << offset << ": " << msg;
    } else if (got.state != baseline_.state) {
      outcome = "FAIL: silent change";
      ADD_FAILURE() << kind << " " << name << " @" << offset << ": state changed:\n"
                    << got.state << "\nwas:\n" << baseline_.state;
    } else if (got.repairs != baseline_.repairs) {
      const Opened again = OpenAndDescribe(work());
      outcome = again.status.ok() && again.state == baseline_.state && again.repairs.empty()
                    ? "newest state, copy repaired"
                    : "FAIL: repair did not hold";
      if (outcome[0] == 'F') ADD_FAILURE() << kind << " " << name << " @" << offset;
    } else {
      outcome = "newest state, byte unused";
    }
    tally_.by_kind[kind][outcome]++;
    tally_.cases++;
  }

  void FlipCases(const std::string& kind, const std::string& rel,
                 const std::vector<uint64_t>& offsets) {
    const std::string name = std::filesystem::path(rel).filename();
    for (uint64_t off : offsets) {
      Case(kind, name, off, [&] { FlipByte(work() + "/" + rel, off); });
    }
  }

  // A control-file copy lives in ASM: the byte is flipped in the primary
  // copy of its first extent through the cell (so that the current bytes,
  // wherever the write-back cache holds them, are the damaged ones).
  // The two copies: one in +DATA, one in +RECO (docs/statistics.md).
  void ControlFileCases(int n) {
    std::vector<std::pair<std::string, asmgr::FileInfo>> copies;  // disk group, file
    {
      std::unique_ptr<io::IoBackend> io = io::MakePosixBackend();
      CopyTree(base(), work());
      auto rack = asmgr::Rack::Open(io.get(), SystemClock(), work());
      ASSERT_TRUE(rack.ok()) << rack.status();
      for (asmgr::DiskGroup* g : (*rack)->disk_groups()) {
        for (const asmgr::FileInfo& f : g->ListFiles()) {
          if (f.type == asmgr::FileType::kControlFile) copies.emplace_back(g->name(), f);
        }
      }
      ASSERT_TRUE((*rack)->Close().ok());
    }
    ASSERT_EQ(copies.size(), 2u);
    // The header block and the first block of each file-table slot (16 KiB
    // blocks: header, slot 0 at block 1, slot 1 at block 16).
    std::vector<uint64_t> offsets;
    for (uint64_t block : {0, 1, 16}) {
      for (uint64_t off : Spread(block * 16 * kKiB, block * 16 * kKiB + 256, std::max(1, n / 3))) {
        offsets.push_back(off);
      }
    }
    for (const auto& copy : copies) {
      const std::string& group = copy.first;
      const asmgr::FileInfo& f = copy.second;
      for (uint64_t off : offsets) {
        Case("control file copy", f.name, off, [&] { FlipInAsmFile(group, f.number, off); });
      }
    }
  }

  void FlipInAsmFile(const std::string& group, uint32_t file, uint64_t offset) {
    std::unique_ptr<io::IoBackend> io = io::MakePosixBackend();
    auto rack = asmgr::Rack::Open(io.get(), SystemClock(), work());
    ASSERT_TRUE(rack.ok()) << rack.status();
    asmgr::DiskGroup* dg = *(*rack)->disk_group(group);
    auto extents = dg->ExtentMap(file, offset, 1);
    ASSERT_TRUE(extents.ok() && !extents->empty());
    const asmgr::ExtentCopy& primary = extents->front().copies.front();
    const uint64_t at = primary.disk_offset + (offset - extents->front().file_offset);
    std::vector<uint8_t> page(4096);
    std::vector<cell::ReadRequest> r = {
        {.grid_disk = primary.grid_disk, .offset = at & ~uint64_t{4095}, .buffer = absl::MakeSpan(page)}};
    ASSERT_TRUE((*rack)->cell(primary.cell)->Read(absl::MakeSpan(r), nullptr).ok());
    page[at & 4095] ^= 0x5A;
    std::vector<cell::WriteRequest> w = {
        {.grid_disk = primary.grid_disk, .offset = at & ~uint64_t{4095}, .data = page}};
    ASSERT_TRUE((*rack)->cell(primary.cell)->Write(absl::MakeSpan(w), nullptr).ok());
    ASSERT_TRUE((*rack)->Close().ok());
  }

  void Report() {
    std::string text = fmt::format("corruption campaign: {} cases\n", tally_.cases);
    for (const auto& [kind, outcomes] : tally_.by_kind) {
      for (const auto& [outcome, n] : outcomes) {
        text += fmt::format("  {:<34} {:<32} {}\n", kind, outcome, n);
      }
    }
    std::fputs(text.c_str(), stdout);
  }

  TempDir tmp_;
  Opened baseline_;
  Tally tally_;
};

TEST_F(CorruptionCampaign, OneFlippedByteInEveryMetadataFileKind) {
  // Offsets per file region (ASan, in CI's time budget, 8); TSan (which
  // looks for races, not for more checksums) takes one per region.
  constexpr int kOffsets = cellsim::testing::BySanitizer(12, 8, 1);
  for (const char* f : {"rack.meta0", "rack.meta1"}) {
    FlipCases("rack configuration", f,
              Spread(0, std::filesystem::file_size(base() + "/" + f), kOffsets));
  }
  for (const char* g : {"DATA", "RECO"}) {
    for (const char* suffix : {".ckpt0", ".ckpt1", ".journal", ".journal1"}) {
      const std::string rel = fmt::format("asm/{}{}", g, suffix);
      const bool journal = std::string(suffix).find("journal") != std::string::npos;
      FlipCases(journal ? "ASM journal" : "ASM checkpoint", rel,
                Spread(0, std::filesystem::file_size(base() + "/" + rel), kOffsets));
    }
  }
  // One cell's flash metadata: both superblock copies, the current
  // checkpoint area and the journal chunks of the current epoch.
  const std::string flash = "cel02/flash.img";
  const std::vector<uint8_t> sb_pages = [&] {
    std::vector<uint8_t> b = ReadFileBytes(base() + "/" + flash);
    return b;
  }();
  auto sb = cell::internal::DecodeSuperblock(absl::MakeConstSpan(sb_pages).subspan(0, 4096), 'A');
  ASSERT_TRUE(sb.ok()) << sb.status();
  auto layout = cell::internal::ComputeLayout(sb->config);
  ASSERT_TRUE(layout.ok());
  FlipCases("cell superblock", flash, Spread(0, 256, kOffsets));
  FlipCases("cell superblock", flash, Spread(4096, 4096 + 256, kOffsets));
  const uint64_t ck = layout->checkpoint_offset[sb->checkpoint_area];
  FlipCases("cell checkpoint", flash, Spread(ck, ck + sb->checkpoint_length, kOffsets));
  // Journal chunks are padded to 4 KiB: flip inside headers and payloads
  // (what the checksums cover), in the first, a middle and the last chunk.
  std::vector<uint64_t> chunk_bytes;
  uint64_t tail = 0, seq = sb->journal_first_seq;
  for (;;) {
    std::vector<cell::internal::Record> records;
    uint64_t bytes = 0;
    const uint64_t at = layout->journal_offset + tail;
    const auto j = absl::MakeConstSpan(sb_pages).subspan(at, layout->journal_bytes - tail);
    if (!cell::internal::DecodeChunk(j, sb->epoch, seq, &records, &bytes)) break;
    const uint32_t payload = j[24] | j[25] << 8 | j[26] << 16 | uint32_t{j[27]} << 24;
    chunk_bytes.push_back(at);
    chunk_bytes.push_back(at + cell::internal::kChunkHeaderBytes + payload);
    tail += bytes;
    ++seq;
  }
  ASSERT_GE(chunk_bytes.size(), 6u) << "the base should leave journal chunks on the flash";
  const size_t chunks = chunk_bytes.size() / 2;
  for (size_t c : {size_t{0}, chunks / 2, chunks - 1}) {
    FlipCases("cell journal", flash, Spread(chunk_bytes[2 * c], chunk_bytes[2 * c + 1], std::max(1, kOffsets / 2)));
  }
  ControlFileCases(kOffsets);
  Report();
}

}  // namespace
}  // namespace cellsim::faults
