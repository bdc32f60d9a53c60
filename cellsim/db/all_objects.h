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
#include <vector>

#include "cellsim/db/row_format.h"

namespace cellsim::db::internal {

const std::vector<Column>& AllObjectsColumns();
// Row `i` (0-based) of ALL_OBJECTS.
Row AllObjectsRow(uint64_t i, int64_t created_unix);

}  // namespace cellsim::db::internal

#endif  // CELLSIM_DB_ALL_OBJECTS_H_
