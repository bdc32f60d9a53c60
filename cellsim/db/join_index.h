// Private: lookups by value where a query would otherwise try every row.
//
// JoinIndex: the rows of a join's source by one column's value, so that an
// equality between it and a source before it (JOIN ... USING, ON a.x = b.y,
// or a WHERE's a.x = b.y between inner joins) visits only the rows it can
// keep rather than all of them for each row before (a nested loop). The
// rows found keep their order in `rows`, so a join gives its rows in the
// same order either way.
//
// ValueSet: the values of an IN (SELECT ...) list, so that `x IN (...)`
// does not compare x with each.
//
// Both order values by Compare, the order `=` uses, so that what they find
// is exactly what `=` finds TRUE: they answer only when the values are all
// of one datatype (TypeName's NUMBER, DATE or CHAR) and so is the value
// looked up, as `=` converts between datatypes (or raises their error);
// otherwise the caller compares each value as before.
//
// Both keep positions into what they were built over, which must outlive
// them unchanged.
//
// Thread-safety: immutable once built.
#ifndef CELLSIM_DB_JOIN_INDEX_H_
#define CELLSIM_DB_JOIN_INDEX_H_

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "absl/types/span.h"
#include "cellsim/db/row_format.h"

namespace cellsim::db::internal {

class JoinIndex {
 public:
  // Orders `rows` by their column `column` (rows whose value is NULL left
  // out: `=` is never TRUE for them).
  JoinIndex(const std::vector<Row>& rows, size_t column);

  // Whether lookups can answer: the column's non-NULL values are of one datatype.
  bool usable() const { return usable_; }

  // The positions in `rows` of the rows whose value equals `v`, in their
  // order in `rows`; none for a NULL `v`. nullopt when the index cannot
  // answer (not usable, or `v` of another datatype than the column's): the
  // caller then visits every row.
  std::optional<absl::Span<const uint32_t>> Find(const Value& v) const;

 private:
  const std::vector<Row>* rows_;
  size_t column_;
  std::string_view type_;  // TypeName of the non-NULL values (empty: none)
  bool usable_ = true;
  std::vector<uint32_t> order_;  // positions of the non-NULL rows, stable-sorted by value
};

class ValueSet {
 public:
  // Orders `values` (kept where they are).
  explicit ValueSet(const std::vector<Value>& values);
  explicit ValueSet(const std::vector<Value>&& values) = delete;  // must outlive it

  // Whether a value of the list is NULL (`x IN` it is then UNKNOWN where
  // not TRUE).
  bool has_null() const { return has_null_; }

  // Whether `v` (not NULL) equals a value of the list; nullopt when the set
  // cannot answer (values of two datatypes, or `v` of another than theirs).
  std::optional<bool> Contains(const Value& v) const;

 private:
  const std::vector<Value>* values_;
  std::vector<uint32_t> order_;  // positions of the non-NULL values, sorted by value
  std::string_view type_;  // TypeName of the non-NULL values (empty: none)
  bool usable_ = true;
  bool has_null_ = false;
};

}  // namespace cellsim::db::internal

#endif  // CELLSIM_DB_JOIN_INDEX_H_
