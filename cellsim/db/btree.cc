// The B-tree index block and the tree (btree.h).
#include "cellsim/db/btree.h"

#include <algorithm>
#include <cstring>

#include "cellsim/db/row_format.h"
#include "cellsim/format/block_template.h"

namespace cellsim::db::internal {
namespace {

// One column image at `p` of `k`: its data (empty span and null for NULL),
// advancing p. A truncated image ends the key.
absl::Span<const uint8_t> NextImage(absl::Span<const uint8_t> k, size_t& p, bool* null) {
  *null = false;
  if (p >= k.size()) {
    *null = true;
    return {};
  }
  uint32_t len = k[p++];
  if (len == 0xFF) {
    *null = true;
    return {};
  }
  if (len == 0xFE) {
    if (p + 2 > k.size()) return {};
    len = (uint32_t{k[p]} << 8) | k[p + 1];
    p += 2;
  }
  len = static_cast<uint32_t>(std::min<size_t>(len, k.size() - p));
  absl::Span<const uint8_t> d = k.subspan(p, len);
  p += len;
  return d;
}

}  // namespace

std::optional<std::vector<uint8_t>> MakeIndexKey(const std::vector<std::vector<uint8_t>>& images,
                                                 const std::vector<uint16_t>& columns,
                                                 uint32_t rdba, uint16_t slot) {
  std::vector<uint8_t> key;
  bool any = false;
  for (uint16_t c : columns) {
    if (c >= images.size() || images[c].empty() || images[c][0] == 0xFF) {
      key.push_back(0xFF);
      continue;
    }
    any = true;
    key.insert(key.end(), images[c].begin(), images[c].end());
  }
  if (!any) return std::nullopt;
  for (int shift = 24; shift >= 0; shift -= 8) key.push_back(static_cast<uint8_t>(rdba >> shift));
  key.push_back(static_cast<uint8_t>(slot >> 8));
  key.push_back(static_cast<uint8_t>(slot));
  return key;
}

int CompareKeys(absl::Span<const uint8_t> a, absl::Span<const uint8_t> b, uint32_t ncols,
                bool with_rowid) {
  size_t pa = 0, pb = 0;
  for (uint32_t i = 0; i < ncols; ++i) {
    bool na = false, nb = false;
    const absl::Span<const uint8_t> da = NextImage(a, pa, &na);
    const absl::Span<const uint8_t> db = NextImage(b, pb, &nb);
    if (na || nb) {
      if (na && nb) continue;
      return na ? 1 : -1;  // NULL sorts high
    }
    const size_t n = std::min(da.size(), db.size());
    const int c = n == 0 ? 0 : std::memcmp(da.data(), db.data(), n);
    if (c != 0) return c < 0 ? -1 : 1;
    if (da.size() != db.size()) return da.size() < db.size() ? -1 : 1;
  }
  if (!with_rowid) return 0;
  const absl::Span<const uint8_t> ra = a.subspan(std::min(pa, a.size()));
  const absl::Span<const uint8_t> rb = b.subspan(std::min(pb, b.size()));
  const size_t n = std::min(ra.size(), rb.size());
  const int c = n == 0 ? 0 : std::memcmp(ra.data(), rb.data(), n);
  if (c != 0) return c < 0 ? -1 : 1;
  return ra.size() == rb.size() ? 0 : ra.size() < rb.size() ? -1 : 1;
}

void KeyRowId(absl::Span<const uint8_t> key, uint32_t* rdba, uint16_t* slot) {
  *rdba = 0;
  *slot = 0;
  if (key.size() < kRowIdBytes) return;
  const uint8_t* r = key.data() + key.size() - kRowIdBytes;
  *rdba = (uint32_t{r[0]} << 24) | (uint32_t{r[1]} << 16) | (uint32_t{r[2]} << 8) | r[3];
  *slot = static_cast<uint16_t>((r[4] << 8) | r[5]);
}

std::vector<std::vector<uint8_t>> KeyColumnImages(absl::Span<const uint8_t> key, uint32_t ncols) {
  std::vector<std::vector<uint8_t>> out;
  size_t p = 0;
  for (uint32_t i = 0; i < ncols; ++i) {
    const size_t from = p;
    bool null = false;
    NextImage(key, p, &null);
    out.emplace_back(key.begin() + static_cast<ptrdiff_t>(from),
                     key.begin() + static_cast<ptrdiff_t>(std::min(p, key.size())));
  }
  return out;
}

// ---- IndexBlock ----
// The accessors index the block's bytes through data(): at -O1 (the
// sanitizer builds) Span::operator[] stays a call, and these are the
// innermost loops of every index descent and compaction.

uint16_t IndexBlock::Get16(uint32_t off) const {
  const uint8_t* p = b_.data() + off;
  return static_cast<uint16_t>(p[0] | (p[1] << 8));
}
uint32_t IndexBlock::Get32(uint32_t off) const {
  uint32_t v = 0;
  std::memcpy(&v, b_.data() + off, 4);
  return v;
}
void IndexBlock::Put16(uint32_t off, uint16_t v) {
  uint8_t* p = b_.data() + off;
  p[0] = static_cast<uint8_t>(v);
  p[1] = static_cast<uint8_t>(v >> 8);
}
void IndexBlock::Put32(uint32_t off, uint32_t v) { std::memcpy(b_.data() + off, &v, 4); }

void IndexBlock::Format(absl::Span<uint8_t> b, uint32_t rdba, uint32_t obj, uint8_t level) {
  FormatSegmentBlock(b, rdba, obj, /*ktbbh_type=*/0x02);
  IndexBlock n(b);
  b[kHeader] = level;
  b[kHeader + 1] = 0x01;  // index block
  n.Put16(kHeader + 4, static_cast<uint16_t>(kDir));              // free space begins
  n.Put16(kHeader + 6, static_cast<uint16_t>(kBlockTailOffset));  // and ends
}

absl::Span<const uint8_t> IndexBlock::Entry(uint16_t i) const {
  const uint16_t off = Get16(kDir + 2u * i);
  const uint32_t head = level() == 0 ? 4 : 6;
  const uint16_t klen = Get16(off + head - 2);
  return absl::Span<const uint8_t>(b_.data() + off, head + klen);
}

absl::Span<const uint8_t> IndexBlock::Key(uint16_t i) const {
  return Entry(i).subspan(level() == 0 ? 4 : 6);
}

uint32_t IndexBlock::Child(uint16_t i) const { return Get32(Get16(kDir + 2u * i)); }

uint32_t IndexBlock::free_bytes() const {
  uint32_t live = 0;
  for (uint16_t i = 0; i < entries(); ++i) live += static_cast<uint32_t>(Entry(i).size());
  return kBlockTailOffset - kDir - 2u * entries() - live;
}

void IndexBlock::Compact() {
  // The entries are laid back from a copy of the block (one copy, not one
  // per entry).
  std::vector<uint8_t> copy(b_.begin(), b_.end());
  const IndexBlock old(absl::MakeSpan(copy));
  const uint16_t n = entries();
  uint16_t fseo = static_cast<uint16_t>(kBlockTailOffset);
  for (uint16_t i = 0; i < n; ++i) {
    const absl::Span<const uint8_t> e = old.Entry(i);
    fseo = static_cast<uint16_t>(fseo - e.size());
    std::memcpy(b_.data() + fseo, e.data(), e.size());
    Put16(kDir + 2u * i, fseo);
  }
  std::memset(b_.data() + kDir + 2u * n, 0, fseo - (kDir + 2u * n));
  Put16(kHeader + 6, fseo);
}

bool IndexBlock::InsertAt(uint16_t i, absl::Span<const uint8_t> entry) {
  const uint32_t need = static_cast<uint32_t>(entry.size()) + 2;
  if (static_cast<uint32_t>(Get16(kHeader + 6) - Get16(kHeader + 4)) < need) {
    if (free_bytes() < need) return false;
    Compact();
  }
  const uint16_t n = entries();
  const uint16_t fseo = static_cast<uint16_t>(Get16(kHeader + 6) - entry.size());
  std::memcpy(b_.data() + fseo, entry.data(), entry.size());
  std::memmove(b_.data() + kDir + 2u * (i + 1), b_.data() + kDir + 2u * i, 2u * (n - i));
  Put16(kDir + 2u * i, fseo);
  Put16(kHeader + 2, static_cast<uint16_t>(n + 1));
  Put16(kHeader + 4, static_cast<uint16_t>(kDir + 2u * (n + 1)));
  Put16(kHeader + 6, fseo);
  return true;
}

void IndexBlock::RemoveAt(uint16_t i) {
  const uint16_t n = entries();
  std::memmove(b_.data() + kDir + 2u * i, b_.data() + kDir + 2u * (i + 1), 2u * (n - i - 1));
  Put16(kHeader + 2, static_cast<uint16_t>(n - 1));
  Put16(kHeader + 4, static_cast<uint16_t>(kDir + 2u * (n - 1)));
}

// Sized once and filled with memcpy: g++ 12 -O3 reports a false
// -Warray-bounds for a vector of 4 bytes grown by insert.
std::vector<uint8_t> IndexBlock::LeafEntry(absl::Span<const uint8_t> key) {
  std::vector<uint8_t> e(4 + key.size(), 0);
  e[2] = static_cast<uint8_t>(key.size());
  e[3] = static_cast<uint8_t>(key.size() >> 8);
  if (!key.empty()) std::memcpy(e.data() + 4, key.data(), key.size());
  return e;
}

std::vector<uint8_t> IndexBlock::BranchEntry(uint32_t child, absl::Span<const uint8_t> key) {
  std::vector<uint8_t> e(6 + key.size(), 0);
  std::memcpy(e.data(), &child, 4);
  e[4] = static_cast<uint8_t>(key.size());
  e[5] = static_cast<uint8_t>(key.size() >> 8);
  if (!key.empty()) std::memcpy(e.data() + 6, key.data(), key.size());
  return e;
}

// ---- BTree ----

void BTree::InitRoot(BlockStore& store, uint32_t root) {
  IndexBlock::Format(store.Get(root, true), store.Rdba(root), store.Object(), 0);
}

uint16_t BTree::LowerBound(const IndexBlock& n, absl::Span<const uint8_t> key,
                           bool with_rowid) const {
  uint16_t lo = 0, hi = n.entries();
  while (lo < hi) {
    const uint16_t mid = static_cast<uint16_t>((lo + hi) / 2);
    if (CompareKeys(n.Key(mid), key, ncols_, with_rowid) < 0) {
      lo = static_cast<uint16_t>(mid + 1);
    } else {
      hi = mid;
    }
  }
  return lo;
}

uint32_t BTree::ChildFor(const IndexBlock& n, absl::Span<const uint8_t> key,
                         bool with_rowid) const {
  // With the rowid: the last separator <= key. Columns only: the last
  // separator < key, as equal keys may start in the child to its left.
  uint16_t lo = 0, hi = n.entries();
  while (lo < hi) {
    const uint16_t mid = static_cast<uint16_t>((lo + hi) / 2);
    const int c = CompareKeys(n.Key(mid), key, ncols_, with_rowid);
    if (with_rowid ? c <= 0 : c < 0) {
      lo = static_cast<uint16_t>(mid + 1);
    } else {
      hi = mid;
    }
  }
  return lo == 0 ? n.leftmost() : n.Child(static_cast<uint16_t>(lo - 1));
}

uint32_t BTree::LeafFor(absl::Span<const uint8_t> key) {
  uint32_t block = root_;
  while (true) {
    IndexBlock n(s_.Get(block, false));
    if (n.level() == 0) return block;
    block = ChildFor(n, key, true);
  }
}

absl::StatusOr<uint32_t> BTree::Insert(absl::Span<const uint8_t> key, std::vector<Split>* splits) {
  uint32_t leaf = 0;
  absl::StatusOr<std::optional<Promote>> p = InsertInto(root_, key, &leaf, splits);
  if (!p.ok()) return p.status();
  return leaf;
}

absl::StatusOr<std::optional<BTree::Promote>> BTree::InsertInto(uint32_t block,
                                                                absl::Span<const uint8_t> key,
                                                                uint32_t* leaf,
                                                                std::vector<Split>* splits) {
  IndexBlock n(s_.Get(block, true));
  if (n.level() == 0) {
    const uint16_t pos = LowerBound(n, key, true);
    std::vector<uint8_t> entry = IndexBlock::LeafEntry(key);
    *leaf = block;
    if (n.InsertAt(pos, entry)) return std::optional<Promote>();
    return SplitBlock(block, pos, std::move(entry), leaf, splits);
  }
  const uint16_t pos = static_cast<uint16_t>(LowerBound(n, key, true));
  // The child: the last separator <= key (pos is the first >= key).
  uint16_t at = pos;
  if (pos < n.entries() && CompareKeys(n.Key(pos), key, ncols_, true) == 0) ++at;
  const uint32_t child = at == 0 ? n.leftmost() : n.Child(static_cast<uint16_t>(at - 1));
  absl::StatusOr<std::optional<Promote>> p = InsertInto(child, key, leaf, splits);
  if (!p.ok() || !p->has_value()) return p;
  std::vector<uint8_t> entry = IndexBlock::BranchEntry((*p)->right, (*p)->separator);
  IndexBlock again(s_.Get(block, true));  // the child's split may have moved nothing here
  if (again.InsertAt(at, entry)) return std::optional<Promote>();
  return SplitBlock(block, at, std::move(entry), leaf, splits);
}

absl::StatusOr<std::optional<BTree::Promote>> BTree::SplitBlock(uint32_t block, uint16_t pos,
                                                                std::vector<uint8_t> entry,
                                                                uint32_t* leaf,
                                                                std::vector<Split>* splits) {
  IndexBlock n(s_.Get(block, true));
  const uint8_t level = n.level();
  const uint32_t old_next = n.next();
  const uint32_t old_leftmost = n.leftmost();
  std::vector<std::vector<uint8_t>> all;
  for (uint16_t i = 0; i < n.entries(); ++i) all.emplace_back(n.Entry(i).begin(), n.Entry(i).end());
  all.insert(all.begin() + pos, std::move(entry));
  // Where to split: 90/10 when the new key is the highest of the rightmost
  // leaf (ascending keys fill leaves), else half the bytes.
  size_t m = all.size() - 1;
  if (!(level == 0 && old_next == 0 && pos == all.size() - 1)) {
    size_t total = 0, acc = 0;
    for (const auto& e : all) total += e.size();
    for (m = 0; m + 1 < all.size() && acc + all[m].size() <= total / 2; ++m) acc += all[m].size();
    m = std::max<size_t>(m, 1);
    if (level > 0) m = std::min(m, all.size() - 2);  // a branch's right node keeps an entry
  }
  const uint32_t head = level == 0 ? 4 : 6;
  std::vector<uint8_t> sep(all[m].begin() + head, all[m].end());
  uint32_t sep_child = 0;
  if (level > 0) std::memcpy(&sep_child, all[m].data(), 4);
  // Branch: the middle entry moves up; its child is the right node's leftmost.
  const size_t right_from = level == 0 ? m : m + 1;
  auto fill = [&](uint32_t b, size_t from, size_t to, uint32_t next, uint32_t leftmost) {
    absl::Span<uint8_t> bytes = s_.Get(b, true);
    IndexBlock::Format(bytes, s_.Rdba(b), s_.Object(), level);
    IndexBlock x(bytes);
    x.set_next(next);
    x.set_leftmost(leftmost);
    for (size_t i = from; i < to; ++i) (void)x.InsertAt(static_cast<uint16_t>(i - from), all[i]);
  };
  uint32_t moved = 0;
  for (size_t i = right_from; i < all.size(); ++i) moved += static_cast<uint32_t>(all[i].size());
  if (splits != nullptr) {
    splits->push_back(Split{level == 0, moved, static_cast<uint32_t>(sep.size())});
  }
  absl::StatusOr<uint32_t> right = s_.Allocate();
  if (!right.ok()) return right.status();
  uint32_t left = block;
  if (block == root_) {
    absl::StatusOr<uint32_t> l = s_.Allocate();
    if (!l.ok()) return l.status();
    left = *l;
  }
  fill(left, 0, m, level == 0 ? *right : 0, old_leftmost);
  fill(*right, right_from, all.size(), level == 0 ? old_next : 0, sep_child);
  if (level == 0) *leaf = pos < m ? left : *right;
  if (block != root_) return std::optional<Promote>(Promote{std::move(sep), *right});
  // The root stays where it is, one level up.
  absl::Span<uint8_t> root = s_.Get(root_, true);
  IndexBlock::Format(root, s_.Rdba(root_), s_.Object(), static_cast<uint8_t>(level + 1));
  IndexBlock r(root);
  r.set_leftmost(left);
  (void)r.InsertAt(0, IndexBlock::BranchEntry(*right, sep));
  return std::optional<Promote>();
}

std::optional<uint16_t> BTree::PositionIn(const IndexBlock& leaf,
                                          absl::Span<const uint8_t> key) const {
  const uint16_t pos = LowerBound(leaf, key, true);
  if (pos >= leaf.entries() || CompareKeys(leaf.Key(pos), key, ncols_, true) != 0) {
    return std::nullopt;
  }
  return pos;
}

std::optional<uint32_t> BTree::Remove(absl::Span<const uint8_t> key) {
  const uint32_t leaf = LeafFor(key);
  IndexBlock n(s_.Get(leaf, true));
  const std::optional<uint16_t> pos = PositionIn(n, key);
  if (!pos.has_value()) return std::nullopt;
  n.RemoveAt(*pos);
  return leaf;
}

bool BTree::Contains(absl::Span<const uint8_t> key) {
  return PositionIn(IndexBlock(s_.Get(LeafFor(key), false)), key).has_value();
}

void BTree::Scan(const std::vector<uint8_t>* probe,
                 const std::function<bool(absl::Span<const uint8_t>)>& fn) {
  // Each block is got once: the root, a branch per level, then the leaves
  // in key order (a store counting logical reads sees a get per block).
  absl::Span<uint8_t> bytes = s_.Get(root_, false);
  while (IndexBlock(bytes).level() != 0) {
    IndexBlock n(bytes);
    bytes = s_.Get(probe == nullptr ? n.leftmost() : ChildFor(n, *probe, false), false);
  }
  bool first = true;
  while (true) {
    IndexBlock n(bytes);
    uint16_t i = probe == nullptr || !first ? 0 : LowerBound(n, *probe, false);
    first = false;
    for (; i < n.entries(); ++i) {
      if (probe != nullptr && CompareKeys(n.Key(i), *probe, ncols_, false) != 0) return;
      if (!fn(n.Key(i))) return;
    }
    if (n.next() == 0) return;
    bytes = s_.Get(n.next(), false);
  }
}

uint32_t BTree::Height() {
  IndexBlock n(s_.Get(root_, false));
  return n.level() + 1u;
}

uint32_t BTree::LeafBlocks() {
  absl::Span<uint8_t> bytes = s_.Get(root_, false);
  while (IndexBlock(bytes).level() != 0) bytes = s_.Get(IndexBlock(bytes).leftmost(), false);
  uint32_t leaves = 1;
  for (uint32_t next = IndexBlock(bytes).next(); next != 0; next = IndexBlock(bytes).next()) {
    bytes = s_.Get(next, false);
    ++leaves;
  }
  return leaves;
}

}  // namespace cellsim::db::internal
