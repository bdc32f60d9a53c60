#include "cellsim/db/aggregate.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "cellsim/db/sql_functions.h"
#include "cellsim/db/data_statement.h"

namespace cellsim::db::internal {
namespace {

bool IsStatistic(std::string_view f) {
  return f == "VARIANCE" || f == "VAR_SAMP" || f == "VAR_POP" || f == "STDDEV" ||
         f == "STDDEV_SAMP" || f == "STDDEV_POP";
}

constexpr std::string_view kAggregates[] = {
    "COUNT", "SUM", "AVG", "MIN", "MAX", "LISTAGG", "MEDIAN", "VARIANCE", "VAR_SAMP", "VAR_POP",
    "STDDEV", "STDDEV_SAMP", "STDDEV_POP"};

}  // namespace

std::string_view AggregateFunctionNames() {
  static const std::string names = [] {
    std::string joined;
    for (std::string_view f : kAggregates) joined += (joined.empty() ? "" : ", ") + std::string(f);
    return joined;
  }();
  return names;
}

bool AllowsDistinct(std::string_view f) {
  return f == "COUNT" || f == "SUM" || f == "AVG" || f == "MIN" || f == "MAX" || f == "LISTAGG" ||
         f == "VARIANCE" || f == "STDDEV";
}

bool IsNumericAggregate(std::string_view f) {
  return f == "SUM" || f == "AVG" || f == "MEDIAN" || IsStatistic(f);
}

Aggregate::Aggregate(std::string_view f)
    : kind_(f == "COUNT"    ? Kind::kCount
            : f == "SUM"    ? Kind::kSum
            : f == "AVG"    ? Kind::kAvg
            : f == "MIN"    ? Kind::kMin
            : f == "MAX"    ? Kind::kMax
            : f == "MEDIAN" ? Kind::kMedian
                            : Kind::kStatistic),
      f_(f) {}

void Aggregate::Add(const Value& v, double x) {
  count_ += 1;
  switch (kind_) {
    case Kind::kCount:
      return;
    case Kind::kMin:
    case Kind::kMax: {
      const int c = count_ == 1 ? 0 : Compare(v, best_);
      if (count_ == 1 || (kind_ == Kind::kMin ? c < 0 : c > 0)) best_ = v;
      return;
    }
    case Kind::kSum:
    case Kind::kAvg:
      sum_ += x;
      return;
    case Kind::kMedian:
      sorted_ = sorted_ && (values_.empty() || values_.back() <= x);
      values_.push_back(x);
      return;
    case Kind::kStatistic: {  // Welford: only where a variance is asked for
      const double delta = x - mean_;
      mean_ += delta / count_;
      m2_ += delta * (x - mean_);
      return;
    }
  }
}

Value Aggregate::Result() const {
  if (kind_ == Kind::kCount) return Value::Num(count_);
  if (count_ == 0) return Value::Null();
  if (kind_ == Kind::kMin || kind_ == Kind::kMax) return best_;
  if (kind_ == Kind::kSum) return Value::Num(sum_);
  if (kind_ == Kind::kAvg) return Value::Num(sum_ / count_);
  if (kind_ == Kind::kMedian) {
    if (!sorted_) {
      std::sort(values_.begin(), values_.end());
      sorted_ = true;
    }
    const size_t n = values_.size();
    return Value::Num(n % 2 == 1 ? values_[n / 2] : (values_[n / 2 - 1] + values_[n / 2]) / 2);
  }
  const bool pop = f_ == "VAR_POP" || f_ == "STDDEV_POP";
  const bool samp = f_ == "VAR_SAMP" || f_ == "STDDEV_SAMP";
  if (samp && count_ == 1) return Value::Null();
  const double variance = pop ? m2_ / count_ : count_ == 1 ? 0 : m2_ / (count_ - 1);
  const bool root = f_ == "STDDEV" || f_ == "STDDEV_SAMP" || f_ == "STDDEV_POP";
  return Value::Num(root ? std::sqrt(variance) : variance);
}

}  // namespace cellsim::db::internal

namespace cellsim::db {

bool IsAggregateFunction(std::string_view name) {
  return std::find(std::begin(internal::kAggregates), std::end(internal::kAggregates), name) !=
         std::end(internal::kAggregates);
}

}  // namespace cellsim::db
