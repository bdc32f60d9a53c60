// Private: the undo and redo byte model (docs/redo.md gives the source of
// every constant). Pure functions: how many bytes an undo record, a change
// vector and a redo record of each operation take.
#ifndef CELLSIM_DB_REDO_MODEL_H_
#define CELLSIM_DB_REDO_MODEL_H_

#include <cstdint>
#include <initializer_list>

namespace cellsim::db::internal::redo {

constexpr uint32_t Align4(uint32_t n) { return (n + 3) & ~3u; }

// Redo record header without LWN (Dyke, Redo4.php).
inline constexpr uint32_t kRecordHeader = 24;
// Change vector header (Dyke, Redo4.php), then the element-length array:
// 2 bytes per element plus one for the array's own length, 4-byte aligned;
// every element is padded to 4 bytes.
inline constexpr uint32_t kVectorHeader = 28;
inline uint32_t VectorBytes(std::initializer_list<uint32_t> elements) {
  uint32_t n = kVectorHeader + Align4(2 * (static_cast<uint32_t>(elements.size()) + 1));
  for (uint32_t e : elements) n += Align4(e);
  return n;
}

// Undo records (Adams, ixora q+a 0103/14230855): a single-row change about
// 64 bytes plus its before image, 40 more for a transaction's first change
// (ITL and transaction-table undo); array insert one record per block of
// 68 + 2 per row.
inline constexpr uint32_t kUndoSingleRow = 64;
inline constexpr uint32_t kUndoFirstChange = 40;
inline constexpr uint32_t kUndoArrayBase = 68;
inline constexpr uint32_t kUndoArrayPerRow = 2;
// ktudb: the undo-block redo header element of a 5.1 vector (Dyke, Redo5).
inline constexpr uint32_t kKtudb = 20;
// ktudh: the undo-segment-header element of 5.2 (transaction slot) (Dyke, Redo5).
inline constexpr uint32_t kKtudh = 32;
// 5.4 commit: ktucm + ktucf (Dyke, Redo5).
inline constexpr uint32_t kKtucm = 20;
inline constexpr uint32_t kKtucf = 16;
// Begin-transaction undo record written to permanent undo when the
// transaction's own undo is temporary [inference: fitted so that one such
// record (5.2 + 5.1 in one redo record) is Hatem's measured 272 bytes].
inline constexpr uint32_t kTempUndoBeginRecord = 128;
// Table (layer 11) vector elements: KTB redo and the KDO op header
// (Dyke, Redo11.php: IRP, DRP, URP, QMI).
inline constexpr uint32_t kKtb = 24;
inline constexpr uint32_t kKdoSingle = 48;  // IRP / URP header incl. row header
inline constexpr uint32_t kKdoDelete = 20;  // DRP
inline constexpr uint32_t kKdoArray = 20;   // QMI header; + 2 per row (slot array)
// LKR (11.4, lock row: SELECT ... FOR UPDATE): the row's slot and the ITL
// entry that takes it [inference: the size of DRP, which carries the same
// slot and ITL fields].
inline constexpr uint32_t kKdoLock = 20;

// The 5.1 vector of an array (QMI) undo record carries more than the record:
// the per-row piece of the undo block's row directory and the element-length
// entries of each row's slot [inference: one constant fitted to two
// measurements, AskTom's 566,304 B for 87,310 GTT rows (6.49 B/row) and the
// seed's 408,944 B per cycle; docs/redo.md shows both within 10 %].
inline constexpr uint32_t kArrayUndoVectorExtra = 80;

// Index (layer 10) vectors: KTB redo, then the kdxl header (itl, slot, row
// size, flags; Dyke, Redo10.php: "REDO: SINGLE / itl / sno / row size"),
// then for 10.2 the leaf entries (flag, lock, key length, key). An array
// (several keys into one leaf in one batch) adds a 2-byte slot per further key
// [inference: as QMI's slot array, Redo11.php].
inline constexpr uint32_t kKdxLeaf = 16;
// 10.8 init leaf block of a split: the kdxln header of the new block before
// the entries moved into it (Dyke, Redo10.php) [inference: the size of the
// kdxl header plus the new block's rdba pointers, 24].
inline constexpr uint32_t kKdxSplit = 24;

// An index entry's undo record (5.1, "index undo for leaf key operations"):
// Adams' single-row record with the key it purges or restores as its before
// image [inference: Oracle's 10.22 undo carries the whole key, the table
// insert's only the rowid], + 2 per further key of an array batch.
inline uint32_t IndexUndoRecord(uint32_t keys, uint32_t key_bytes) {
  return kUndoSingleRow + key_bytes + kUndoArrayPerRow * (keys - 1);
}
// 10.2 insert leaf row(s) / 10.4 delete leaf row(s), heap tables only.
inline uint32_t IndexInsertVector(uint32_t keys, uint32_t entry_bytes) {
  return VectorBytes({kKtb, kKdxLeaf + 2 * (keys - 1), entry_bytes});
}
inline uint32_t IndexDeleteVector(uint32_t keys) {
  return VectorBytes({kKtb, kKdxLeaf + 2 * (keys - 1)});
}

// 5.2: take a transaction-table slot in an undo segment header.
inline uint32_t BeginVector() { return VectorBytes({kKtudh}); }
// 5.1: one undo record added to an undo block.
inline uint32_t UndoVector(uint32_t undo_record) { return VectorBytes({kKtudb, undo_record}); }
// 5.4: the commit record.
inline uint32_t CommitRecord() { return kRecordHeader + VectorBytes({kKtucm, kKtucf}); }

}  // namespace cellsim::db::internal::redo

#endif  // CELLSIM_DB_REDO_MODEL_H_
