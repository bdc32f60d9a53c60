#include "cellsim/db/join_index.h"

#include <algorithm>
#include <limits>

#include "cellsim/db/sql_functions.h"

namespace cellsim::db::internal {
namespace {

// The positions k < n whose value_at(k) is not NULL, stably sorted by
// Compare; nullopt when those values are not all of one datatype (or n does
// not fit a position). `type`: their TypeName (empty when there is none);
// `has_null`: whether a value was NULL.
template <class ValueAt>
std::optional<std::vector<uint32_t>> SortedPositions(size_t n, const ValueAt& value_at,
                                                     std::string_view* type, bool* has_null) {
  if (n > std::numeric_limits<uint32_t>::max()) return std::nullopt;
  std::vector<uint32_t> order;
  order.reserve(n);
  for (size_t k = 0; k < n; ++k) {
    const Value& v = value_at(k);
    if (v.is_null()) {
      *has_null = true;
      continue;
    }
    if (type->empty()) *type = TypeName(v);
    if (TypeName(v) != *type) return std::nullopt;
    order.push_back(static_cast<uint32_t>(k));
  }
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return Compare(value_at(a), value_at(b)) < 0;
  });
  return order;
}

// The positions in `order` (SortedPositions') whose value equals `v`.
template <class ValueAt>
absl::Span<const uint32_t> EqualPositions(const std::vector<uint32_t>& order,
                                          const ValueAt& value_at, const Value& v) {
  const auto lo = std::partition_point(order.begin(), order.end(), [&](uint32_t k) {
    return Compare(value_at(k), v) < 0;
  });
  const auto hi = std::partition_point(lo, order.end(), [&](uint32_t k) {
    return Compare(value_at(k), v) == 0;
  });
  return absl::MakeConstSpan(order.data() + (lo - order.begin()), static_cast<size_t>(hi - lo));
}

}  // namespace

JoinIndex::JoinIndex(const std::vector<Row>& rows, size_t column) : rows_(&rows), column_(column) {
  bool has_null = false;
  std::optional<std::vector<uint32_t>> order = SortedPositions(
      rows.size(), [&](size_t k) -> const Value& { return rows[k][column]; }, &type_, &has_null);
  usable_ = order.has_value();
  if (order) order_ = *std::move(order);
}

std::optional<absl::Span<const uint32_t>> JoinIndex::Find(const Value& v) const {
  if (!usable_) return std::nullopt;
  if (v.is_null() || type_.empty()) return absl::Span<const uint32_t>();
  if (TypeName(v) != type_) return std::nullopt;
  return EqualPositions(order_, [&](size_t k) -> const Value& { return (*rows_)[k][column_]; }, v);
}

ValueSet::ValueSet(const std::vector<Value>& values) : values_(&values) {
  std::optional<std::vector<uint32_t>> order =
      SortedPositions(values.size(), [&](size_t k) -> const Value& { return values[k]; }, &type_,
                      &has_null_);
  usable_ = order.has_value();
  if (order) order_ = *std::move(order);
}

std::optional<bool> ValueSet::Contains(const Value& v) const {
  if (!usable_ || v.is_null()) return std::nullopt;
  if (type_.empty()) return false;  // no value but NULLs
  if (TypeName(v) != type_) return std::nullopt;
  return !EqualPositions(order_, [&](size_t k) -> const Value& { return (*values_)[k]; }, v).empty();
}

}  // namespace cellsim::db::internal
