// Private: the built-in ALL_OBJECTS row source (docs/redo.md "ALL_OBJECTS").
// The 19c column list (26 columns) and rows generated deterministically from
// their index, with value distributions chosen so that the stored row is as
// wide as a 19c dictionary's (about 150 bytes in Oracle's row format: long
// Java class and synonym names, 'METADATA LINK' sharing, three dates/
// timestamps) and the row count a non-SYS 19c PDB user sees (70,000 by
// default; DatabaseOptions::all_objects_rows changes it).
#ifndef CELLSIM_DB_ALL_OBJECTS_H_
#define CELLSIM_DB_ALL_OBJECTS_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/types/span.h"

#include "cellsim/db/row_format.h"

namespace cellsim::db::internal {

const std::vector<Column>& AllObjectsColumns();
// Row `i` (0-based) of ALL_OBJECTS.
Row AllObjectsRow(uint64_t i, int64_t created_unix);

// Rows 0..n-1 of ALL_OBJECTS as a table of columns `cols` stores them: each
// value coerced to its column (CoerceForColumn), then EncodeRow; exactly the
// bytes `insert into t select * from all_objects` writes row by row.
class EncodedRows {
 public:
  size_t size() const { return ends_.size(); }
  absl::Span<const uint8_t> row(size_t i) const {
    const uint32_t begin = i == 0 ? 0 : ends_[i - 1];
    return absl::MakeConstSpan(bytes_.data() + begin, ends_[i] - begin);
  }
  void Append(absl::Span<const uint8_t> row) {
    bytes_.insert(bytes_.end(), row.begin(), row.end());
    ends_.push_back(static_cast<uint32_t>(bytes_.size()));
  }

 private:
  std::vector<uint8_t> bytes_;  // the rows back to back
  std::vector<uint32_t> ends_;  // where each row ends in bytes_
};
// Made once per (n, created_unix, column types) in the process and shared
// (the most recent few are kept); null when some value does not fit its
// column (the statement's row-by-row path then reports which).
std::shared_ptr<const EncodedRows> EncodedAllObjectsRows(uint64_t n, int64_t created_unix,
                                                         const std::vector<Column>& cols);

}  // namespace cellsim::db::internal

#endif  // CELLSIM_DB_ALL_OBJECTS_H_
