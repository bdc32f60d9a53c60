#include "cellsim/db/join_index.h"

#include <algorithm>
#include <limits>
#include <type_traits>

#include "cellsim/db/sql_functions.h"

namespace cellsim::db::internal {

JoinIndex::JoinIndex(const std::vector<Row>& rows, size_t column) : rows_(&rows), column_(column) {
  if (rows.size() > std::numeric_limits<uint32_t>::max()) {
    usable_ = false;
    return;
  }
  order_.reserve(rows.size());
  for (size_t k = 0; k < rows.size(); ++k) {
    const Value& v = rows[k][column];
    if (v.is_null()) continue;
    if (kind_ == Value::Kind::kNull) kind_ = v.kind;
    if (v.kind != kind_) {
      usable_ = false;
      order_.clear();
      return;
    }
    order_.push_back(static_cast<uint32_t>(k));
  }
  std::stable_sort(order_.begin(), order_.end(), [&](uint32_t a, uint32_t b) {
    return Compare(rows[a][column], rows[b][column]) < 0;
  });
}

std::optional<absl::Span<const uint32_t>> JoinIndex::Find(const Value& v) const {
  if (!usable_) return std::nullopt;
  if (v.is_null() || kind_ == Value::Kind::kNull) return absl::Span<const uint32_t>();
  if (v.kind != kind_) return std::nullopt;
  const std::vector<Row>& rows = *rows_;
  const auto [lo, hi] = std::equal_range(
      order_.begin(), order_.end(), v, [&](const auto& a, const auto& b) {
        // One of a, b is a position, the other `v`.
        if constexpr (std::is_same_v<std::decay_t<decltype(a)>, uint32_t>) {
          return Compare(rows[a][column_], b) < 0;
        } else {
          return Compare(a, rows[b][column_]) < 0;
        }
      });
  return absl::MakeConstSpan(order_.data() + (lo - order_.begin()), static_cast<size_t>(hi - lo));
}

ValueSet::ValueSet(std::vector<Value> values) {
  sorted_.reserve(values.size());
  for (Value& v : values) {
    if (v.is_null()) {
      has_null_ = true;
      continue;
    }
    if (kind_ == Value::Kind::kNull) kind_ = v.kind;
    if (v.kind != kind_) usable_ = false;
    sorted_.push_back(std::move(v));
  }
  if (!usable_) {
    sorted_.clear();
    return;
  }
  std::sort(sorted_.begin(), sorted_.end(),
            [](const Value& a, const Value& b) { return Compare(a, b) < 0; });
}

std::optional<bool> ValueSet::Contains(const Value& v) const {
  if (!usable_ || v.is_null()) return std::nullopt;
  if (kind_ == Value::Kind::kNull) return false;  // no value but NULLs
  if (v.kind != kind_) return std::nullopt;
  const auto it = std::lower_bound(sorted_.begin(), sorted_.end(), v,
                                   [](const Value& a, const Value& b) { return Compare(a, b) < 0; });
  return it != sorted_.end() && Compare(*it, v) == 0;
}

}  // namespace cellsim::db::internal
