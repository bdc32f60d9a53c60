// Private: what a redo record carries (docs/redo.md "Redo record payload").
// The byte model (redo_model.h) fixes a record's size; the payload written
// into those bytes is the real change, so that instance recovery can replay
// it: a 36-byte header (length, VLD, vectors, entries, SCN, transaction id,
// kind, argument) then the change entries, zero-padded to the model's size.
//
//   entry   op u8, 0 u8, n-or-slot u16, object u32, file u32, block u32, then
//   insert  n slots (u16), then n rows (u16 length + the row's bytes)
//   delete  nothing more (the row keeps its bytes; undo clears its flag)
//   update  k u16, then k x (column# u16, before image, after image), each
//           image a u16 length + the column image (row_format.h)
//   index   n keys (u16 length + the key, btree.h) added to / removed from
//           leaf `block` of index `object`
#ifndef CELLSIM_DB_REDO_PAYLOAD_H_
#define CELLSIM_DB_REDO_PAYLOAD_H_

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/types/span.h"

namespace cellsim::db::internal::redo {

inline constexpr uint32_t kPayloadHeader = 36;
// Redo blocks: 512 bytes, a 16-byte header (signature, format, block#,
// sequence#, record bytes in the block at 12-13, checksum at 14-15).
inline constexpr uint32_t kRedoBlock = 512;
inline constexpr uint32_t kRedoBlockHeader = 16;
inline constexpr uint8_t kRecordValid = 0x01;  // the VLD byte

enum class RecordKind : uint8_t {
  kChange = 0,             // change entries of a transaction
  kCommit = 1,             // the transaction committed
  kRollback = 2,           // the transaction rolled back (all its changes undone)
  kStatementRollback = 3,  // a failed statement undid the transaction's last `arg` changes
};

// kIndexInsert / kIndexDelete (10.2 / 10.4): keys added to or removed from an
// index leaf; recovery rebuilds indexes from their tables and skips them.
enum class ChangeOp : uint8_t { kInsert = 1, kDelete = 2, kUpdate = 3, kIndexInsert = 4,
                                kIndexDelete = 5 };

struct Xid {
  uint32_t usn = 0, slot = 0, wrap = 0;
  auto operator<=>(const Xid&) const = default;
};

// One decoded change entry.
struct Change {
  ChangeOp op = ChangeOp::kInsert;
  uint32_t obj = 0, file = 0, block = 0;
  std::vector<uint16_t> slots;                    // insert: one per row; delete/update: one
  std::vector<std::vector<uint8_t>> rows;         // insert: the rows; index: the keys
  struct ColumnChange {
    uint16_t column = 0;
    std::vector<uint8_t> before, after;           // column images
  };
  std::vector<ColumnChange> columns;              // update
};

struct Record {
  uint32_t length = 0;
  uint64_t scn = 0;
  Xid xid;
  RecordKind kind = RecordKind::kChange;
  uint32_t arg = 0;
  std::vector<Change> changes;
};

// Change entries, appended to a record's body.
void AppendInsert(std::vector<uint8_t>& out, uint32_t obj, uint32_t file, uint32_t block,
                  const std::vector<uint16_t>& slots, const std::vector<uint8_t>& rows);
void AppendDelete(std::vector<uint8_t>& out, uint32_t obj, uint32_t file, uint32_t block,
                  uint16_t slot);
// The columns whose images differ between `before` and `after` (whole rows).
void AppendUpdate(std::vector<uint8_t>& out, uint32_t obj, uint32_t file, uint32_t block,
                  uint16_t slot, absl::Span<const uint8_t> before, absl::Span<const uint8_t> after);

// Index keys added to (or removed from) leaf `block` of index `obj`.
void AppendIndex(std::vector<uint8_t>& out, bool insert, uint32_t obj, uint32_t file,
                 uint32_t block, const std::vector<std::vector<uint8_t>>& keys);

// The 36-byte header, written at the start of a record's bytes.
void WriteHeader(uint8_t* at, uint32_t length, uint8_t vectors, uint16_t entries, uint64_t scn,
                 const Xid& xid, RecordKind kind, uint32_t arg);

// Parses one record at the start of `bytes` (which may hold more). nullopt
// with `why` when the bytes are not a whole, well-formed record.
std::optional<Record> ParseRecord(absl::Span<const uint8_t> bytes, std::string* why);

}  // namespace cellsim::db::internal::redo

#endif  // CELLSIM_DB_REDO_PAYLOAD_H_
