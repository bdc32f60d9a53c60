// Private: the B-tree index block and the tree over such blocks (docs/db.md
// "Indexes"). An index is a segment of 8 KiB blocks in the block format of
// docs/cell.md: the cache header, the transaction header (type 2, index; 2
// ITLs), then the index header (level, entries, free space bounds, the next
// leaf, a branch's leftmost child), a directory of 2-byte entry offsets in
// key order, free space, and the entries growing down from the tail:
//
//   leaf entry    flag u8, lock u8, key length u16, key
//   branch entry  child block u32, key length u16, separator key
//   key           the indexed columns' images (row_format.h: length byte(s)
//                 and data, 0xFF for NULL) then the 6-byte rowid (rdba and
//                 slot, big-endian), so that keys are unique and sort by
//                 column values (bytewise, Oracle's NUMBER and DATE encodings
//                 sort bytewise; a NULL sorts high) and then by rowid.
//
// The root stays the segment's first block: a root split moves its entries
// into two new blocks and the root becomes a branch one level up. A leaf split
// moves the upper half of the entries into a new block (all but the new entry
// when the new key is the highest of the rightmost leaf: Oracle's 90/10
// split) and inserts the new block's first key into the parent. Entries are
// removed from leaves without merging blocks, as Oracle does.
#ifndef CELLSIM_DB_BTREE_H_
#define CELLSIM_DB_BTREE_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace cellsim::db::internal {

inline constexpr uint32_t kRowIdBytes = 6;

// The key of a row: the images of `columns` (indexes into `images`, a row's
// column images; a column past the end is NULL) and the rowid. nullopt when
// every key column is NULL (Oracle's B-tree does not index such rows).
std::optional<std::vector<uint8_t>> MakeIndexKey(
    const std::vector<std::vector<uint8_t>>& images, const std::vector<uint16_t>& columns,
    uint32_t rdba, uint16_t slot);
// Orders keys of `ncols` columns; `with_rowid` false compares the columns only.
int CompareKeys(absl::Span<const uint8_t> a, absl::Span<const uint8_t> b, uint32_t ncols,
                bool with_rowid);
// The rowid at the end of a key.
void KeyRowId(absl::Span<const uint8_t> key, uint32_t* rdba, uint16_t* slot);
// The column images of a key (without its rowid).
std::vector<std::vector<uint8_t>> KeyColumnImages(absl::Span<const uint8_t> key, uint32_t ncols);

class IndexBlock {
 public:
  static void Format(absl::Span<uint8_t> b, uint32_t rdba, uint32_t obj, uint8_t level);
  explicit IndexBlock(absl::Span<uint8_t> b) : b_(b) {}

  uint8_t level() const { return b_.data()[kHeader]; }
  uint16_t entries() const { return Get16(kHeader + 2); }
  uint32_t next() const { return Get32(kHeader + 8); }  // leaf chain (0: none)
  void set_next(uint32_t block) { Put32(kHeader + 8, block); }
  uint32_t leftmost() const { return Get32(kHeader + 12); }  // branch
  void set_leftmost(uint32_t block) { Put32(kHeader + 12, block); }
  // The whole entry i, its key and (branch) its child.
  absl::Span<const uint8_t> Entry(uint16_t i) const;
  absl::Span<const uint8_t> Key(uint16_t i) const;
  uint32_t Child(uint16_t i) const;
  // Puts `entry` at position i (compacting when the free space is in holes);
  // false when it does not fit.
  bool InsertAt(uint16_t i, absl::Span<const uint8_t> entry);
  void RemoveAt(uint16_t i);
  // Bytes free for entries (and their directory slots), holes included.
  uint32_t free_bytes() const;

  static std::vector<uint8_t> LeafEntry(absl::Span<const uint8_t> key);
  static std::vector<uint8_t> BranchEntry(uint32_t child, absl::Span<const uint8_t> key);

  static constexpr uint32_t kHeader = 92;  // after the cache and transaction headers
  static constexpr uint32_t kDir = kHeader + 20;

 private:
  uint16_t Get16(uint32_t off) const;
  uint32_t Get32(uint32_t off) const;
  void Put16(uint32_t off, uint16_t v);
  void Put32(uint32_t off, uint32_t v);
  void Compact();
  absl::Span<uint8_t> b_;
};

// Where the tree's blocks come from (the engine's buffer cache).
class BlockStore {
 public:
  virtual ~BlockStore() = default;
  // The block's bytes; `write` marks it changed.
  virtual absl::Span<uint8_t> Get(uint32_t block, bool write) = 0;
  // A new block of the segment, formatted by the caller.
  virtual absl::StatusOr<uint32_t> Allocate() = 0;
  // Its rdba and the index's object id, for formatting.
  virtual uint32_t Rdba(uint32_t block) const = 0;
  virtual uint32_t Object() const = 0;
};

class BTree {
 public:
  BTree(BlockStore& store, uint32_t root, uint32_t ncols) : s_(store), root_(root), ncols_(ncols) {}

  // Formats `root` as the empty tree's only leaf.
  static void InitRoot(BlockStore& store, uint32_t root);

  // A split made by Insert: whether a leaf, the bytes moved into the new
  // block, the separator key the parent got.
  struct Split {
    bool leaf = true;
    uint32_t moved_bytes = 0;
    uint32_t separator_bytes = 0;
  };
  // Inserts `key`; the leaf it went into. Splits are appended to `splits`.
  absl::StatusOr<uint32_t> Insert(absl::Span<const uint8_t> key, std::vector<Split>* splits);
  // Removes `key` (columns and rowid); the leaf it was in, nullopt when absent.
  std::optional<uint32_t> Remove(absl::Span<const uint8_t> key);
  // The leaf `key` belongs in.
  uint32_t LeafFor(absl::Span<const uint8_t> key);
  // Whether `key` (columns and rowid) is where a descent from the root leads.
  bool Contains(absl::Span<const uint8_t> key);
  // Visits, in order, the keys whose columns equal `probe`'s (a key; its
  // rowid is ignored); stop by returning false. Every key when `probe` is null.
  void Scan(const std::vector<uint8_t>* probe,
            const std::function<bool(absl::Span<const uint8_t>)>& fn);
  // Levels (1: the root is a leaf) and blocks in use, for views and tests.
  uint32_t Height();
  // The leaf blocks along the leaf chain (empty ones included).
  uint32_t LeafBlocks();

 private:
  struct Promote {
    std::vector<uint8_t> separator;
    uint32_t right = 0;
  };
  absl::StatusOr<std::optional<Promote>> InsertInto(uint32_t block, absl::Span<const uint8_t> key,
                                                    uint32_t* leaf, std::vector<Split>* splits);
  absl::StatusOr<std::optional<Promote>> SplitBlock(uint32_t block, uint16_t pos,
                                                    std::vector<uint8_t> entry, uint32_t* leaf,
                                                    std::vector<Split>* splits);
  // Position of the first entry whose key is >= `key` (columns only when
  // !with_rowid).
  uint16_t LowerBound(const IndexBlock& n, absl::Span<const uint8_t> key, bool with_rowid) const;
  // Position of `key` (columns and rowid) in `leaf`; nullopt when absent.
  std::optional<uint16_t> PositionIn(const IndexBlock& leaf, absl::Span<const uint8_t> key) const;
  // The child of branch `n` to descend into for `key`.
  uint32_t ChildFor(const IndexBlock& n, absl::Span<const uint8_t> key, bool with_rowid) const;

  BlockStore& s_;
  uint32_t root_;
  uint32_t ncols_;
};

}  // namespace cellsim::db::internal

#endif  // CELLSIM_DB_BTREE_H_
