// Private: one aggregate's running value over the non-NULL values it is
// given, for a grouped query's aggregates (data_exec.cc) and the same
// functions with OVER (analytic.cc): COUNT, SUM, AVG, MIN, MAX, and the
// statistics VARIANCE, VAR_SAMP, VAR_POP, STDDEV, STDDEV_SAMP, STDDEV_POP
// (Welford's running mean and sum of squares, as stable as a second pass)
// and MEDIAN (PERCENTILE_CONT(0.5): the middle value, or the mean of the two
// middle ones). LISTAGG and DISTINCT are the callers'.
//
// Thread-safety: a value type; one thread at a time.
#ifndef CELLSIM_DB_AGGREGATE_H_
#define CELLSIM_DB_AGGREGATE_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "cellsim/db/row_format.h"

namespace cellsim::db::internal {

// The aggregates' names (IsAggregateFunction's), for error messages.
std::string_view AggregateFunctionNames();

// Whether `f` may take DISTINCT: COUNT, SUM, AVG, MIN, MAX, LISTAGG,
// VARIANCE, STDDEV (ORA-30482 for the others, as Oracle).
bool AllowsDistinct(std::string_view f);

// Whether the aggregate `f` (uppercased) takes its values as numbers (SUM,
// AVG, the statistics, MEDIAN): the caller converts each with ToNumber
// (ORA-01722, ORA-00932) and gives it to Add.
bool IsNumericAggregate(std::string_view f);

class Aggregate {
 public:
  // `f`: the function's name (uppercased), as IsAggregateFunction has it.
  explicit Aggregate(std::string_view f);

  // COUNT(*): one more row.
  void AddRow() { count_ += 1; }
  // A non-NULL value; `x` its number where IsNumericAggregate(f) (else 0).
  void Add(const Value& v, double x);
  // Values given (rows for COUNT(*)).
  double count() const { return count_; }
  // COUNT's count; NULL for no value; else the function's value (VARIANCE
  // and STDDEV of one value: 0, their _SAMP forms: NULL).
  Value Result() const;

 private:
  // The function, told once (Add runs per row): what it keeps.
  enum class Kind : uint8_t { kCount, kSum, kAvg, kMin, kMax, kMedian, kStatistic };
  Kind kind_;
  std::string_view f_;
  double count_ = 0;
  double sum_ = 0;
  double mean_ = 0, m2_ = 0;  // Welford: the mean and the sum of squared deviations
  Value best_;                // MIN, MAX
  mutable std::vector<double> values_;  // MEDIAN (sorted by Result when asked)
  mutable bool sorted_ = true;
};

}  // namespace cellsim::db::internal

#endif  // CELLSIM_DB_AGGREGATE_H_
