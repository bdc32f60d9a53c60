// Private: values, Oracle's row format and the heap data block (docs/redo.md
// "Storage layout"). A table's rows live in 8 KiB blocks laid out as Oracle
// lays them out (docs/cell.md cache header; then the transaction header with
// 2 ITL entries, the data header, the table and row directories, rows growing
// down from the tail), encoded in Oracle's row format (flag, lock, column
// count, per column a length byte (0xFF NULL, 0xFE + 2 bytes above 250) and
// the bytes; trailing NULLs not stored) with NUMBER and DATE in Oracle's
// internal encodings, so that row widths, rows per block and therefore undo
// and redo volumes follow from the data as in Oracle.
#ifndef CELLSIM_DB_ROW_FORMAT_H_
#define CELLSIM_DB_ROW_FORMAT_H_

#include <bit>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/types/span.h"
#include "cellsim/db/data_statement.h"
#include "cellsim/db/date_format.h"

namespace cellsim::db::internal {

enum class ColType : uint8_t { kNumber, kVarchar2, kChar, kDate, kTimestamp };
// The type a column definition names (NUMBER, DATE, CHAR, TIMESTAMP, else
// VARCHAR2: the parser admits only these), and the name of a type.
inline ColType ColTypeNamed(std::string_view name) {
  return name == "NUMBER" ? ColType::kNumber : name == "DATE" ? ColType::kDate
         : name == "CHAR" ? ColType::kChar : name == "TIMESTAMP" ? ColType::kTimestamp
         : ColType::kVarchar2;
}
inline const char* ColTypeName(ColType t) {
  switch (t) {
    case ColType::kNumber: return "NUMBER";
    case ColType::kDate: return "DATE";
    case ColType::kChar: return "CHAR";
    case ColType::kTimestamp: return "TIMESTAMP";
    case ColType::kVarchar2: break;
  }
  return "VARCHAR2";
}

struct Column {
  std::string name;
  ColType type = ColType::kNumber;
  uint32_t length = 0;  // VARCHAR2 / CHAR length; NUMBER's precision (0: none);
                        // TIMESTAMP's digits of fraction
  int32_t scale = 0;    // NUMBER(p, s)'s s
  bool not_null = false;
  // DEFAULT's expression as written ("" = none; dictionary format 4); an
  // identity column's is its sequence's NEXTVAL ("ISEQ$$_n".nextval).
  std::string default_sql{};
  IdentityKind identity = IdentityKind::kNone;  // dictionary format 5
  // NOT NULL only because the column is in the primary key: Oracle keeps no
  // NOT NULL constraint for it, so dropping the key allows NULLs again (the
  // dictionary's NOT NULL byte 2).
  bool not_null_by_key = false;
  // The NOT NULL constraint's name (SYS_Cnnnnnnn when not named; dictionary
  // format 10): USER_CONSTRAINTS' type C "C" IS NOT NULL. "" when the
  // column is nullable or NOT NULL only by the key.
  std::string not_null_name{};
};

// Which datetime or interval a number of seconds is (Value::temporal).
enum class Temporal : uint8_t { kNone, kDate, kTimestamp, kTimestampTz, kInterval };

// A SQL value: NULL, a number or a string. Datetimes and intervals are
// numbers of seconds, `temporal` saying which: a DATE's or TIMESTAMP's since
// the Unix epoch (a TIMESTAMP's with its fraction, which a double keeps to
// the microsecond), an INTERVAL DAY TO SECOND's length. `precision` is a
// TIMESTAMP's or INTERVAL's digits of fraction (FF prints that many).
struct Value {
  enum class Kind : uint8_t { kNull, kNumber, kString };
  Kind kind = Kind::kNull;
  double number = 0;
  std::string text;
  Temporal temporal = Temporal::kNone;
  uint8_t precision = 0;

  static Value Null() { return {}; }
  // (std::string() rather than "": no strlen and copy per value.)
  static Value Num(double d) { return Value{Kind::kNumber, d, std::string()}; }
  static Value Str(std::string s) { return Value{Kind::kString, 0, std::move(s)}; }
  static Value Date(int64_t unix) {
    return Value{Kind::kNumber, static_cast<double>(unix), std::string(), Temporal::kDate};
  }
  // SYSTIMESTAMP's kind has a time zone (the database's, UTC).
  static Value Timestamp(double unix, uint32_t precision, bool time_zone) {
    return Value{Kind::kNumber, unix, std::string(),
                 time_zone ? Temporal::kTimestampTz : Temporal::kTimestamp,
                 static_cast<uint8_t>(precision)};
  }
  // A difference of datetimes is an INTERVAL DAY(9) TO SECOND(9).
  static Value Interval(double seconds, uint32_t precision = 9) {
    return Value{Kind::kNumber, seconds, std::string(), Temporal::kInterval,
                 static_cast<uint8_t>(precision)};
  }
  bool is_null() const { return kind == Kind::kNull || (kind == Kind::kString && text.empty()); }
  // A DATE or a TIMESTAMP.
  bool is_datetime() const {
    return temporal == Temporal::kDate || temporal == Temporal::kTimestamp ||
           temporal == Temporal::kTimestampTz;
  }
  bool is_timestamp() const {
    return temporal == Temporal::kTimestamp || temporal == Temporal::kTimestampTz;
  }
  bool is_interval() const { return temporal == Temporal::kInterval; }
  // A number that is a number (not a datetime's or interval's seconds).
  bool is_number() const { return kind == Kind::kNumber && temporal == Temporal::kNone; }
};

// The type's name in Oracle's messages (ORA-00932's "expected NUMBER got
// DATE"): NUMBER, CHAR, DATE, TIMESTAMP, TIMESTAMP WITH TIME ZONE, INTERVAL
// DAY TO SECOND.
std::string_view TypeName(const Value& v);
// A datetime value's fields for the format models (date_format.h): whole
// seconds, and a TIMESTAMP's fraction to the microsecond; and back, a
// TIMESTAMP(precision) (without a time zone) rounded to that many digits.
Datetime DatetimeOf(const Value& v);
Value TimestampFrom(const Datetime& t, uint32_t precision);
// A column's type as DESCRIBE and USER_TAB_COLUMNS' DATA_TYPE show it
// beside its length: NUMBER, VARCHAR2, CHAR, DATE, TIMESTAMP(6).
std::string ColumnTypeName(const Column& c);
// The most bytes a column's value takes (USER_TAB_COLUMNS' DATA_LENGTH):
// 22 for a NUMBER, 7 for a DATE, 11 for a TIMESTAMP, else its length.
inline uint32_t ColumnMaxBytes(const Column& c) {
  switch (c.type) {
    case ColType::kNumber: return 22;
    case ColType::kDate: return 7;
    case ColType::kTimestamp: return 11;
    case ColType::kVarchar2:
    case ColType::kChar: break;
  }
  return c.length;
}
using Row = std::vector<Value>;

// SQL*Plus's rendering: integers without decimals, others to 10 significant
// digits, a fraction without the 0 before its point (.25, as Oracle);
// datetimes in the session's NLS format for their type (DD-MON-RR for a DATE
// by default), intervals as FormatInterval prints them.
std::string ValueText(const Value& v);

// Oracle NUMBER (exponent byte, base-100 digits, 102 terminator for
// negatives) and DATE (7 bytes) encodings.
std::vector<uint8_t> EncodeNumber(double d);
double DecodeNumber(absl::Span<const uint8_t> b);

// Text as a NUMBER, as Oracle reads it (blanks around it allowed, 1e3
// allowed); nullopt with `error` set otherwise: ORA-01722 for what is not a
// number ('nan' and 'inf' included), ORA-01426 for one past a double.
std::optional<double> NumberFromText(const std::string& text, std::string* error);

// x rounded (or truncated) to `digits` decimal places (negative: to tens,
// hundreds ...), taking the decimal value the double stands for, as Oracle's
// decimal NUMBER has it (1.005 -> 1.01).
double RoundDecimal(double x, int64_t digits, bool truncate);

// Converts a value for storage in a column (CHAR padded, numbers from numeric
// strings, rounded to a NUMBER(p, s)'s scale; text to a DATE in the session's
// date format); an error message when it cannot (ORA-01438 for a number
// past the precision). NOT NULL is the caller's (ORA-01400 / ORA-01407).
std::optional<std::string> CoerceForColumn(const Column& c, Value& v);

// A whole row in Oracle's row format.
std::vector<uint8_t> EncodeRow(const std::vector<Column>& cols, const Row& row);
// `wanted`, when given: only the columns it marks are decoded, the others
// left NULL (a query's scan that reads a few columns of a wide row).
Row DecodeRow(const std::vector<Column>& cols, absl::Span<const uint8_t> bytes,
              const std::vector<bool>* wanted = nullptr);
// A stored row's column images (each its length byte(s) and data; a NULL is
// the single byte 0xFF), and the row made of `images` (flag and lock of a live
// row; trailing NULLs not stored). Redo of an update carries the images that
// changed (redo_payload.h).
std::vector<std::vector<uint8_t>> ColumnImages(absl::Span<const uint8_t> row);
std::vector<uint8_t> RowFromImages(const std::vector<std::vector<uint8_t>>& images);
// Bytes of one column image (length byte(s) + data), as undo of an update holds it.
uint32_t ColumnImageBytes(const Column& c, const Value& v);

// The heap data block.
inline constexpr uint32_t kBlockSize = 8192;
inline constexpr uint32_t kItlEntries = 2;
inline constexpr uint32_t kTxnHeaderBytes = 24 + 24 * kItlEntries;  // ktbbh, 2 ITLs

// Zeroes `b` and writes what every block of a segment starts with: the cache
// header (type 0x06 trans data, format, rdba, sequence 1, checksum flag) and
// the transaction header (ktbbh `ktbbh_type`: 0x01 data, 0x02 index; object
// id; kItlEntries ITLs). Heap and index blocks add their own headers.
void FormatSegmentBlock(absl::Span<uint8_t> b, uint32_t rdba, uint32_t obj, uint8_t ktbbh_type);
// The object id FormatSegmentBlock wrote into block `b` (0: too short to hold one).
uint32_t SegmentBlockObject(absl::Span<const uint8_t> b);
inline constexpr uint32_t kDataHeaderOffset = 20 + kTxnHeaderBytes;  // kdbh
inline constexpr uint32_t kDataHeaderBytes = 14;
inline constexpr uint32_t kRowDirOffset = kDataHeaderOffset + kDataHeaderBytes + 4;  // after kdbt
inline constexpr uint32_t kBlockTailOffset = kBlockSize - 4;
inline constexpr uint32_t kPctFree = 10;
inline constexpr uint8_t kRowFlagLive = 0x2C;  // --H-FL--: head, first and last piece
inline constexpr uint8_t kRowFlagDeleted = 0x10;

// A change to one row, as undo records it and rollback reverses it. The
// values are stored in the checkpoint's undo snapshot: never renumber them.
// kLock: a row locked without a change (SELECT ... FOR UPDATE); undoing it
// changes nothing in the block.
enum class RowChange : uint8_t { kInsert, kDelete, kUpdate, kLock };

class HeapBlock {
 public:
  // Formats `b` (kBlockSize bytes) as an empty table block of object `obj`.
  static void Format(absl::Span<uint8_t> b, uint32_t rdba, uint32_t obj);
  explicit HeapBlock(absl::Span<uint8_t> b) : b_(b) {}

  // Row directory entries (deleted ones included).
  uint16_t rows() const { return Get16(kNrow); }
  // Inserts `row` (honouring PCTFREE unless `ignore_pctfree`) so that
  // `keep` bytes stay reclaimable (reclaimable_bytes) after it; the slot, or
  // nullopt when it does not fit.
  std::optional<uint16_t> Insert(absl::Span<const uint8_t> row, bool ignore_pctfree = false,
                                 uint32_t keep = 0);
  bool live(uint16_t slot) const;
  absl::Span<const uint8_t> RowBytes(uint16_t slot) const;
  void SetDeleted(uint16_t slot, bool deleted);
  // Replaces the row in place (shorter or equal) or in the free space
  // (compacting the block first when the space of rows that shrank or
  // moved is needed), leaving `keep` bytes reclaimable when the row grows;
  // false when it does not fit so (the caller migrates it).
  bool Replace(uint16_t slot, absl::Span<const uint8_t> row, uint32_t keep = 0);
  // Reverses `change` of `slot`: an insert is deleted again, a delete
  // undeleted (a deleted row keeps its bytes), an update's row replaced by
  // `before` (using any space the block has). A slot beyond the row
  // directory is left alone. False only when `before` does not fit.
  [[nodiscard]] bool Undo(RowChange change, uint16_t slot, absl::Span<const uint8_t> before);
  // Between the row directory's end (fsbo) and the row heap's start (fseo).
  uint32_t free_bytes() const {
    return Get16(kFseo) - Get16(kFsbo);
  }
  // free_bytes plus the space compaction would reclaim (rows that shrank or
  // moved): what the block could still take. Walks every row.
  uint32_t reclaimable_bytes() const;

 private:
  // Block-relative offsets of the data header (kdbh) fields.
  static constexpr uint32_t kNrow = kDataHeaderOffset + 2;
  static constexpr uint32_t kFsbo = kDataHeaderOffset + 6;  // end of the row directory
  static constexpr uint32_t kFseo = kDataHeaderOffset + 8;  // start of the row heap
  static constexpr uint32_t kAvsp = kDataHeaderOffset + 10;
  // Little-endian 16-bit fields. Inline and as whole 16-bit loads and stores
  // (byte stores then a 16-bit load stall store forwarding): every row
  // inserted or visited reads and writes the header.
  uint16_t Get16(uint32_t off) const {
    ABSL_HARDENING_ASSERT(off + 2 <= b_.size());  // as Span's operator[]
    if constexpr (std::endian::native == std::endian::little) {
      uint16_t v;
      std::memcpy(&v, b_.data() + off, 2);
      return v;
    }
    return static_cast<uint16_t>(b_.data()[off] | (b_.data()[off + 1] << 8));
  }
  void Put16(uint32_t off, uint16_t v) {
    ABSL_HARDENING_ASSERT(off + 2 <= b_.size());
    if constexpr (std::endian::native == std::endian::little) {
      std::memcpy(b_.data() + off, &v, 2);
      return;
    }
    b_.data()[off] = static_cast<uint8_t>(v);
    b_.data()[off + 1] = static_cast<uint8_t>(v >> 8);
  }
  // Packs every row (deleted ones keep their bytes) against the block's
  // end, reclaiming the space left by rows replaced with shorter ones or
  // moved, with row `slot` rewritten as `row`; slots (rowids) do not
  // change. The caller has checked that everything fits.
  void CompactWith(uint16_t slot, absl::Span<const uint8_t> row);
  absl::Span<uint8_t> b_;
};

// Cache header SCN, sequence and checksum of a block about to be written.
void SealBlock(absl::Span<uint8_t> b, uint64_t scn);

}  // namespace cellsim::db::internal

#endif  // CELLSIM_DB_ROW_FORMAT_H_
