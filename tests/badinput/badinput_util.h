// Helpers of the hostile-input tests (docs/reliability.md "Bad-input
// catalogue"): a small real rack with a database, a snapshot of a disk group
// to prove a failed statement left it unchanged, and byte patching of the
// on-disk metadata files.
#ifndef CELLSIM_TESTS_BADINPUT_BADINPUT_UTIL_H_
#define CELLSIM_TESTS_BADINPUT_BADINPUT_UTIL_H_

#include <cstdint>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "cellsim/asm/rack.h"
#include "testing/tiny_rack.h"
#include "cellsim/base/units.h"
#include "cellsim/db/database.h"
#include "cellsim/io/io_backend.h"
#include "testing/test_util.h"

namespace cellsim::badinput {

inline asmgr::RackConfig TinyRack() { return testing::TinyRackConfig(); }

// What a failed statement must leave as it was: the files of the group, its
// free space, its consistency.
struct GroupSnapshot {
  std::vector<std::string> files;
  uint64_t free_mb = 0;
  bool operator==(const GroupSnapshot&) const = default;
};
inline GroupSnapshot Snapshot(asmgr::DiskGroup* dg) {
  GroupSnapshot s;
  for (const asmgr::FileInfo& f : dg->ListFiles()) s.files.push_back(f.name);
  s.free_mb = dg->Space().free_mb;
  return s;
}

using ::cellsim::testing::ReadFileBytes;
inline void WriteBytes(const std::string& path, const std::vector<uint8_t>& b) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}
// Overwrites `n` little-endian bytes at `offset` of a file in place.
inline void PatchLe(const std::string& path, uint64_t offset, uint64_t value, int n) {
  std::fstream f(path, std::ios::binary | std::ios::in | std::ios::out);
  f.seekp(static_cast<std::streamoff>(offset));
  for (int i = 0; i < n; ++i) f.put(static_cast<char>(value >> (8 * i)));
}
inline uint64_t ReadLe(const std::vector<uint8_t>& b, size_t offset, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v |= uint64_t{b[offset + i]} << (8 * i);
  return v;
}

}  // namespace cellsim::badinput

#endif  // CELLSIM_TESTS_BADINPUT_BADINPUT_UTIL_H_
