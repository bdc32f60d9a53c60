// Helpers shared by the cell tests: a small cell configuration, one-request
// read/write wrappers and a reference model (the bytes every grid disk should
// hold) to compare a cell against.
#ifndef CELLSIM_TESTS_CELL_CELL_TEST_UTIL_H_
#define CELLSIM_TESTS_CELL_CELL_TEST_UTIL_H_

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "cellsim/cell/cell.h"
#include "cellsim/format/block_template.h"
#include "cellsim/io/block_file.h"
#include "fmt/format.h"
#include "testing/test_util.h"

namespace cellsim::cell::testing {

// 2 cell disks x {DATA 4 MiB, RECO 2 MiB}, 64 KiB lines, a flash with about
// two dozen cache lines, small metadata areas.
inline CellConfig SmallConfig(const std::string& name = "cel01") {
  CellConfig c;
  c.name = name;
  c.cell_disks = 2;
  c.grid_disks = {{"DATA", 4 * kMiB}, {"RECO", 2 * kMiB}};
  c.cache_line_size = 64 * kKiB;
  c.max_template_ranges = 512;
  c.max_lost_ranges = 256;
  c.journal_bytes = 256 * kKiB;
  c.flash_size_bytes = 2 * kMiB;
  c.write_bypass_bytes = 256 * kKiB;
  c.read_populate_max_bytes = 256 * kKiB;
  return c;
}

inline absl::Status WriteOne(Cell* cell, uint32_t disk, uint64_t off,
                             const std::vector<uint8_t>& data, CellIoStats* st = nullptr) {
  std::vector<WriteRequest> w = {{.grid_disk = disk, .offset = off, .data = data}};
  CellIoStats local;
  return cell->Write(absl::MakeSpan(w), st ? st : &local);
}

// Reads buf.size() bytes at `off` of grid disk `disk` into `buf` (a loop
// reading a whole disk reuses one buffer: a fresh large one per read is
// faulted in page by page, most of such a test's time under ASan).
inline absl::Status ReadInto(Cell* cell, uint32_t disk, uint64_t off, absl::Span<uint8_t> buf,
                             CellIoStats* st = nullptr) {
  std::vector<ReadRequest> r = {{.grid_disk = disk, .offset = off, .buffer = buf}};
  CellIoStats local;
  return cell->Read(absl::MakeSpan(r), st ? st : &local);
}

inline absl::StatusOr<std::vector<uint8_t>> ReadOne(Cell* cell, uint32_t disk, uint64_t off,
                                                    uint64_t len, CellIoStats* st = nullptr) {
  std::vector<uint8_t> buf(len);
  absl::Status s = ReadInto(cell, disk, off, absl::MakeSpan(buf), st);
  if (!s.ok()) return s;
  return buf;
}

inline absl::Status FormatOne(Cell* cell, uint32_t disk, uint64_t off, uint64_t len,
                              const format::BlockTemplate& t, uint64_t file_offset,
                              FormatMethod method, CellIoStats* st = nullptr,
                              bool* metadata_only = nullptr) {
  std::vector<FormatRangeRequest> f = {{.grid_disk = disk, .offset = off, .length = len,
                                        .block_template = t, .file_offset = file_offset,
                                        .method = method}};
  CellIoStats local;
  absl::Status s = cell->FormatRange(absl::MakeSpan(f), st ? st : &local);
  if (metadata_only) *metadata_only = f[0].metadata_only;
  return s;
}

inline std::vector<uint8_t> RandomBytes(std::mt19937_64& rng, size_t n) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; i += 8) {
    const uint64_t x = rng();
    std::memcpy(v.data() + i, &x, std::min<size_t>(8, n - i));
  }
  return v;
}

inline double MetricValue(Cell* cell, const std::string& name, const std::string& object = "") {
  auto m = cell->Metrics();
  if (!m.ok()) return -1;
  double sum = 0;
  bool found = false;
  for (const Metric& x : *m) {
    if (x.name == name && (object.empty() || x.object == object)) {
      sum += x.value;
      found = true;
    }
  }
  return found ? sum : -1;
}

// What every grid disk of a cell should read as.
class Model {
 public:
  explicit Model(const CellConfig& c) {
    disks_.reserve(c.grid_disks.size() * c.cell_disks);
    for (const GridDiskSpec& g : c.grid_disks) {
      for (uint32_t i = 0; i < c.cell_disks; ++i) disks_.emplace_back(g.size_bytes, 0);
    }
  }
  // Every disk zero again, in the memory it has (a new model's pages are
  // each a page fault, which a loop of cut points pays for hundreds of times).
  void Reset() {
    for (std::vector<uint8_t>& d : disks_) std::fill(d.begin(), d.end(), 0);
  }
  void Write(uint32_t disk, uint64_t off, const std::vector<uint8_t>& data) {
    std::memcpy(disks_[disk].data() + off, data.data(), data.size());
  }
  void Format(uint32_t disk, uint64_t off, uint64_t len, const format::BlockTemplate& t,
              uint64_t file_offset) {
    format::GenerateRange(t, file_offset, absl::MakeSpan(disks_[disk].data() + off, len));
  }
  const std::vector<uint8_t>& disk(uint32_t d) const { return disks_[d]; }
  std::vector<uint8_t>& disk(uint32_t d) { return disks_[d]; }
  uint32_t count() const { return static_cast<uint32_t>(disks_.size()); }

 private:
  std::vector<std::vector<uint8_t>> disks_;
};

// Reads every grid disk of `cell` and compares with `model`: OK or a message
// naming the first differing byte.
inline absl::Status VerifyAgainst(Cell* cell, const Model& model, uint64_t chunk = 256 * kKiB) {
  for (uint32_t d = 0; d < model.count(); ++d) {
    const std::vector<uint8_t>& want = model.disk(d);
    for (uint64_t off = 0; off < want.size(); off += chunk) {
      const uint64_t len = std::min<uint64_t>(chunk, want.size() - off);
      auto got = ReadOne(cell, d, off, len);
      if (!got.ok()) return got.status();
      if (std::memcmp(got->data(), want.data() + off, len) != 0) {
        for (uint64_t i = 0; i < len; ++i) {
          if ((*got)[i] != want[off + i]) {
            return absl::InternalError(fmt::format("disk {} byte {}: got 0x{:02x}, want 0x{:02x}",
                                                   d, off + i, (*got)[i], want[off + i]));
          }
        }
      }
    }
  }
  return absl::OkStatus();
}

// Every grid disk file of `cell` (in its folder `dir`), read directly and not
// through the cell, equals `model`: after a flush the disks alone must be
// authoritative. Fatal failures end this check only.
inline void ExpectRawDisksEqualModel(io::IoBackend* io, const std::string& dir, Cell* cell,
                                     const Model& model) {
  ASSERT_OK_AND_ASSIGN(CellDescription d, cell->Describe());
  for (uint32_t i = 0; i < model.count(); ++i) {
    auto f = io::BlockFile::Open(io, dir + "/" + d.grid_disks[i].name + ".img",
                                 {.block_size = 4096});
    ASSERT_TRUE(f.ok()) << f.status();
    std::vector<uint8_t> raw(model.disk(i).size());
    ASSERT_OK((*f)->Read(0, absl::MakeSpan(raw)));
    ASSERT_TRUE(raw == model.disk(i)) << d.grid_disks[i].name;
  }
}

}  // namespace cellsim::cell::testing

#endif  // CELLSIM_TESTS_CELL_CELL_TEST_UTIL_H_
