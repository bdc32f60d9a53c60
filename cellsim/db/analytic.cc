#include "cellsim/db/analytic.h"

#include "cellsim/db/aggregate.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <set>
#include <string>

#include "cellsim/db/sql_functions.h"
#include "fmt/format.h"

namespace cellsim::db::internal {

namespace {

using Bound = Window::Bound;

constexpr std::array<std::string_view, 12> kAnalyticOnly = {
    "ROW_NUMBER", "RANK",        "DENSE_RANK", "PERCENT_RANK", "CUME_DIST",      "NTILE",
    "LAG",        "LEAD",        "FIRST_VALUE", "LAST_VALUE",  "NTH_VALUE",      "RATIO_TO_REPORT"};

// The functions that may IGNORE NULLS.
bool TakesNulls(std::string_view f) {
  return f == "LAG" || f == "LEAD" || f == "FIRST_VALUE" || f == "LAST_VALUE" || f == "NTH_VALUE";
}

bool IsRanking(std::string_view f) {
  return f == "ROW_NUMBER" || f == "RANK" || f == "DENSE_RANK" || f == "PERCENT_RANK" ||
         f == "CUME_DIST";
}

// Whether the function's value depends on a window frame (the others take
// their position or their whole partition).
bool TakesFrame(std::string_view f) {
  return f == "FIRST_VALUE" || f == "LAST_VALUE" || f == "NTH_VALUE" ||
         (IsAggregateFunction(f) && f != "LISTAGG" && f != "MEDIAN");
}

// The numbers of arguments `f` takes: [fewest, most].
std::pair<size_t, size_t> ArgumentCounts(std::string_view f) {
  if (IsRanking(f)) return {0, 0};
  if (f == "LISTAGG") return {1, SIZE_MAX};  // its own and its WITHIN GROUP's (checked by the parser)
  if (f == "LAG" || f == "LEAD") return {1, 3};
  if (f == "NTH_VALUE") return {2, 2};
  return {1, 1};
}

std::optional<AnalyticError> CheckFrame(const Window& w) {
  const Window::Frame& fr = *w.frame;
  using K = Bound::Kind;
  const auto rank = [](K k) { return static_cast<int>(k); };
  const bool backwards = fr.start.kind == K::kUnboundedFollowing ||
                         fr.end.kind == K::kUnboundedPreceding ||
                         rank(fr.end.kind) < rank(fr.start.kind) ||
                         (fr.start.kind == fr.end.kind && fr.start.kind == K::kPreceding &&
                          fr.end.offset > fr.start.offset) ||
                         (fr.start.kind == fr.end.kind && fr.start.kind == K::kFollowing &&
                          fr.end.offset < fr.start.offset);
  if (backwards) {
    return AnalyticError{"the window frame ends before it starts",
                         "ORA-30486: invalid window aggregation group in the window specification"};
  }
  const bool offset = fr.start.kind == K::kPreceding || fr.start.kind == K::kFollowing ||
                      fr.end.kind == K::kPreceding || fr.end.kind == K::kFollowing;
  if (!fr.rows && offset && w.order_by.size() > 1) {
    return AnalyticError{
        "a RANGE frame with an offset takes one ORDER BY key (ROWS takes several)",
        "ORA-30486: invalid window aggregation group in the window specification"};
  }
  return std::nullopt;
}

// A partition's rows, ordered: positions into the caller's rows.
struct Partition {
  std::vector<size_t> at;
};

int KeyCompare(const Value& a, const Value& b, const Window::Key& k) {
  if (a.is_null() != b.is_null()) {
    const bool nulls_first = k.nulls_first.value_or(k.descending);
    return a.is_null() == nulls_first ? -1 : 1;
  }
  if (a.is_null()) return 0;
  const int c = Compare(a, b);
  return k.descending ? -c : c;
}

int OrderCompare(const Window& w, const Row& a, const Row& b) {
  for (size_t k = 0; k < w.order_by.size(); ++k) {
    const int c = KeyCompare(a[k], b[k], w.order_by[k]);
    if (c != 0) return c;
  }
  return 0;
}

int PartitionCompare(const Row& a, const Row& b) {
  for (size_t k = 0; k < a.size(); ++k) {
    if (a[k].is_null() != b[k].is_null()) return a[k].is_null() ? 1 : -1;
    if (a[k].is_null()) continue;
    const int c = Compare(a[k], b[k]);
    if (c != 0) return c;
  }
  return 0;
}

std::vector<Partition> Partitions(const Window& w, const std::vector<AnalyticInput>& rows) {
  std::vector<size_t> idx(rows.size());
  std::iota(idx.begin(), idx.end(), size_t{0});
  std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
    const int p = PartitionCompare(rows[a].partition, rows[b].partition);
    if (p != 0) return p < 0;
    return OrderCompare(w, rows[a].order, rows[b].order) < 0;
  });
  std::vector<Partition> out;
  for (size_t i = 0; i < idx.size(); ++i) {
    if (i == 0 || PartitionCompare(rows[idx[i - 1]].partition, rows[idx[i]].partition) != 0) {
      out.emplace_back();
    }
    out.back().at.push_back(idx[i]);
  }
  return out;
}

// A non-negative whole number argument (NTILE's buckets, LAG's offset).
absl::StatusOr<std::optional<int64_t>> Count(const Value& v, std::string_view f, bool positive) {
  if (v.is_null()) return std::optional<int64_t>();
  absl::StatusOr<double> d = ToNumber(v);
  if (!d.ok()) return d.status();
  const double n = std::trunc(*d);
  if (n < (positive ? 1 : 0) || !std::isfinite(n) || n > 1e15) {
    return absl::InvalidArgumentError(
        fmt::format("ORA-01428: argument '{}' is out of range ({})", ValueText(v), f));
  }
  return std::optional<int64_t>(static_cast<int64_t>(n));
}

// The values of a function of a row's position in its partition.
class PartitionValues {
 public:
  PartitionValues(const Expr& f, const std::vector<AnalyticInput>& rows, const Partition& p,
                  std::vector<Value>* out)
      : f_(f), w_(*f.over), rows_(rows), at_(p.at), out_(*out) {
    // Peer groups: [peer_start_[i], peer_end_[i]) holds the rows of i's ORDER BY keys.
    const size_t n = at_.size();
    peer_start_.resize(n);
    peer_end_.resize(n);
    for (size_t i = 0; i < n; ++i) {
      const bool same = i > 0 && OrderCompare(w_, Order(i - 1), Order(i)) == 0;
      peer_start_[i] = same ? peer_start_[i - 1] : i;
    }
    for (size_t i = n; i-- > 0;) {
      const bool same = i + 1 < n && peer_start_[i + 1] == peer_start_[i];
      peer_end_[i] = same ? peer_end_[i + 1] : i + 1;
    }
  }

  absl::Status Run() {
    const std::string& f = f_.text;
    if (IsRanking(f)) return Ranking();
    if (f == "NTILE") return Ntile();
    if (f == "LAG" || f == "LEAD") return Offset(f == "LAG" ? -1 : 1);
    if (f == "RATIO_TO_REPORT") return Ratio();
    if (f == "LISTAGG") return ListAggOfPartition();
    return Framed();
  }

 private:
  const Row& Order(size_t i) const { return rows_[at_[i]].order; }
  const Row& Args(size_t i) const { return rows_[at_[i]].args; }
  void Set(size_t i, Value v) { out_[at_[i]] = std::move(v); }

  absl::Status Ranking() {
    const std::string& f = f_.text;
    const double n = static_cast<double>(at_.size());
    double dense = 0;
    for (size_t i = 0; i < at_.size(); ++i) {
      if (peer_start_[i] == i) dense += 1;
      const double rank = static_cast<double>(peer_start_[i]) + 1;
      if (f == "ROW_NUMBER") Set(i, Value::Num(static_cast<double>(i) + 1));
      if (f == "RANK") Set(i, Value::Num(rank));
      if (f == "DENSE_RANK") Set(i, Value::Num(dense));
      if (f == "PERCENT_RANK") Set(i, Value::Num(n > 1 ? (rank - 1) / (n - 1) : 0));
      if (f == "CUME_DIST") Set(i, Value::Num(static_cast<double>(peer_end_[i]) / n));
    }
    return absl::OkStatus();
  }

  // NTILE(k): k buckets of sizes differing by at most one, the larger first.
  absl::Status Ntile() {
    absl::StatusOr<std::optional<int64_t>> k = Count(Args(0)[0], "NTILE", true);
    if (!k.ok()) return k.status();
    const size_t n = at_.size();
    for (size_t i = 0; i < n; ++i) {
      if (!k->has_value()) {
        Set(i, Value::Null());
        continue;
      }
      const size_t buckets = static_cast<size_t>(**k);
      const size_t size = n / buckets, big = n % buckets;  // `big` buckets hold size + 1
      const size_t bucket =
          i < big * (size + 1) ? i / (size + 1) : big + (i - big * (size + 1)) / std::max<size_t>(size, 1);
      Set(i, Value::Num(static_cast<double>(bucket) + 1));
    }
    return absl::OkStatus();
  }

  // The rows whose value (first argument) counts: all, or with IGNORE NULLS
  // those whose value is not NULL; in order.
  std::vector<size_t> Counted() const {
    std::vector<size_t> out;
    for (size_t i = 0; i < at_.size(); ++i) {
      if (!w_.ignore_nulls || !Args(i)[0].is_null()) out.push_back(i);
    }
    return out;
  }

  // LAG (-1) / LEAD (+1): the value `offset` counted rows away, else the default.
  absl::Status Offset(int direction) {
    const std::vector<size_t> counted = Counted();
    for (size_t i = 0; i < at_.size(); ++i) {
      const Row& a = Args(i);
      absl::StatusOr<std::optional<int64_t>> off = std::optional<int64_t>(1);
      if (a.size() > 1) off = Count(a[1], f_.text, false);
      if (!off.ok()) return off.status();
      if (!off->has_value()) {
        Set(i, Value::Null());
        continue;
      }
      // Counted rows before i, or (LEAD) up to and including i.
      const int64_t before = std::lower_bound(counted.begin(), counted.end(), direction < 0 ? i : i + 1) - counted.begin();
      const int64_t k = direction < 0 ? before - **off : before + **off - 1;
      const bool self = **off == 0;  // offset 0: the row itself, counted or not
      if (self) {
        Set(i, a[0]);
      } else if (k >= 0 && k < static_cast<int64_t>(counted.size())) {
        Set(i, Args(counted[static_cast<size_t>(k)])[0]);
      } else {
        Set(i, a.size() > 2 ? a[2] : Value::Null());
      }
    }
    return absl::OkStatus();
  }

  absl::Status Ratio() {
    double total = 0;
    for (size_t i = 0; i < at_.size(); ++i) {
      if (Args(i)[0].is_null()) continue;
      absl::StatusOr<double> x = ToNumber(Args(i)[0]);
      if (!x.ok()) return x.status();
      total += *x;
    }
    for (size_t i = 0; i < at_.size(); ++i) {
      if (Args(i)[0].is_null() || total == 0) {
        Set(i, Value::Null());
        continue;
      }
      Set(i, Value::Num(*ToNumber(Args(i)[0]) / total));
    }
    return absl::OkStatus();
  }

  // LISTAGG ... OVER (PARTITION BY ...): the partition's list on each row.
  absl::Status ListAggOfPartition() {
    const size_t own = f_.within_group->arguments;
    std::vector<std::pair<Value, Row>> items;
    for (size_t i = 0; i < at_.size(); ++i) {
      const Row& a = Args(i);
      items.emplace_back(a[0], Row(a.begin() + static_cast<std::ptrdiff_t>(own), a.end()));
    }
    absl::StatusOr<Value> list =
        ListAgg(std::move(items), f_.within_group->order_by, ListAggSeparator(f_), f_.distinct);
    if (!list.ok()) return list.status();
    for (size_t i = 0; i < at_.size(); ++i) Set(i, *list);
    return absl::OkStatus();
  }

  // The rows [first, last] of row i's frame, or first > last when empty.
  absl::StatusOr<std::pair<int64_t, int64_t>> FrameOf(size_t i) const {
    const int64_t n = static_cast<int64_t>(at_.size());
    if (w_.order_by.empty()) return std::make_pair(int64_t{0}, n - 1);
    if (!w_.frame) return std::make_pair(int64_t{0}, static_cast<int64_t>(peer_end_[i]) - 1);
    const Window::Frame& fr = *w_.frame;
    int64_t first = 0, last = 0;
    for (const bool start : {true, false}) {
      const Bound& b = start ? fr.start : fr.end;
      int64_t at = 0;
      switch (b.kind) {
        case Bound::Kind::kUnboundedPreceding: at = 0; break;
        case Bound::Kind::kUnboundedFollowing: at = n - 1; break;
        case Bound::Kind::kCurrentRow:
          at = fr.rows ? static_cast<int64_t>(i)
               : start ? static_cast<int64_t>(peer_start_[i])
                       : static_cast<int64_t>(peer_end_[i]) - 1;
          break;
        default: {
          const double sign = b.kind == Bound::Kind::kPreceding ? -1 : 1;
          if (fr.rows) {
            at = static_cast<int64_t>(i) + static_cast<int64_t>(sign * std::floor(b.offset));
          } else {
            absl::StatusOr<int64_t> r = RangeBound(i, sign * b.offset, start);
            if (!r.ok()) return r.status();
            at = *r;
          }
        }
      }
      (start ? first : last) = at;
    }
    return std::make_pair(std::max<int64_t>(first, 0), std::min<int64_t>(last, n - 1));
  }

  // RANGE n PRECEDING / FOLLOWING: the first (start) or last row whose key
  // is within `delta` of row i's, in the ORDER BY's direction (DATE keys in
  // days). A NULL key's frame is its peers.
  absl::StatusOr<int64_t> RangeBound(size_t i, double delta, bool start) const {
    const Value& key = Order(i)[0];
    if (key.is_null()) {
      return start ? static_cast<int64_t>(peer_start_[i]) : static_cast<int64_t>(peer_end_[i]) - 1;
    }
    if (key.kind != Value::Kind::kNumber) {
      return absl::InvalidArgumentError(fmt::format(
          "ORA-00902: invalid datatype (a RANGE offset over the key '{}', which is not a NUMBER "
          "or a DATE)", ValueText(key)));
    }
    const bool descending = w_.order_by[0].descending;
    const double bound = key.number + (descending ? -delta : delta) * (key.is_datetime() ? 86400 : 1);
    // Rows in order: keys rise (fall, descending); NULLs at one end.
    const auto before = [&](size_t j) {  // row j is before the bound in the order
      const Value& k = Order(j)[0];
      if (k.is_null()) return w_.order_by[0].nulls_first.value_or(descending);
      return descending ? k.number > bound : k.number < bound;
    };
    const auto not_after = [&](size_t j) {  // row j is not after the bound
      const Value& k = Order(j)[0];
      if (k.is_null()) return w_.order_by[0].nulls_first.value_or(descending);
      return descending ? k.number >= bound : k.number <= bound;
    };
    // Both hold for a first run of rows and fail after it: binary search.
    const int64_t n = static_cast<int64_t>(at_.size());
    const auto first_failing = [&](const auto& holds) {
      int64_t lo = 0, hi = n;
      while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (holds(static_cast<size_t>(mid))) lo = mid + 1;
        else hi = mid;
      }
      return lo;
    };
    return start ? first_failing(before) : first_failing(not_after) - 1;
  }

  // FIRST_VALUE, LAST_VALUE, NTH_VALUE(x, n) [FROM LAST]: the value of the
  // frame's first, last or n-th counted row (NULL when there is none).
  absl::Status NthInFrame(const std::vector<std::pair<int64_t, int64_t>>& frames) {
    const std::string& f = f_.text;
    const std::vector<size_t> counted = Counted();
    for (size_t i = 0; i < at_.size(); ++i) {
      int64_t nth = 1;
      if (f == "NTH_VALUE") {
        absl::StatusOr<std::optional<int64_t>> n = Count(Args(i)[1], f, true);
        if (!n.ok()) return n.status();
        if (!n->has_value()) {
          Set(i, Value::Null());
          continue;
        }
        nth = **n;
      }
      const bool from_last = f == "LAST_VALUE" || w_.from_last;
      const auto [first, last] = frames[i];
      // The counted rows in [first, last]: [lo, hi) of `counted`.
      const int64_t lo = std::lower_bound(counted.begin(), counted.end(), static_cast<size_t>(std::max<int64_t>(first, 0))) - counted.begin();
      const int64_t hi = last < first ? lo : std::upper_bound(counted.begin(), counted.end(), static_cast<size_t>(last)) - counted.begin();
      if (hi - lo < nth) {
        Set(i, Value::Null());
        continue;
      }
      Set(i, Args(counted[static_cast<size_t>(from_last ? hi - nth : lo + nth - 1)])[0]);
    }
    return absl::OkStatus();
  }

  // One frame's aggregate, rows added one at a time.
  struct Accumulator {
    explicit Accumulator(std::string_view f) : value(f) {}
    Aggregate value;
    std::set<std::string> seen;  // DISTINCT
  };

  void Add(Accumulator& a, size_t r, bool star, const std::vector<double>& num) const {
    if (star) {
      a.value.AddRow();
      return;
    }
    const Value& v = Args(r)[0];
    if (v.is_null()) return;
    if (f_.distinct && !a.seen.insert(fmt::format("{}{}:{}", v.number, v.is_datetime(), v.text)).second) {
      return;
    }
    a.value.Add(v, num[r]);
  }

  static Value Result(const Accumulator& a) { return a.value.Result(); }

  // The frame functions. Frames start and end no earlier than the row
  // before's (the rows are in order): frames that all start at the
  // partition's first row grow forward, frames that all end at its last
  // grow backward, each one row at a time; other frames (n PRECEDING ...)
  // are summed row by row.
  absl::Status Framed() {
    const std::string& f = f_.text;
    const size_t n = at_.size();
    std::vector<std::pair<int64_t, int64_t>> frames(n);
    for (size_t i = 0; i < n; ++i) {
      absl::StatusOr<std::pair<int64_t, int64_t>> fr = FrameOf(i);
      if (!fr.ok()) return fr.status();
      frames[i] = *fr;
    }
    if (f == "FIRST_VALUE" || f == "LAST_VALUE" || f == "NTH_VALUE") return NthInFrame(frames);
    const bool star = Args(0).empty();  // COUNT(*)
    std::vector<double> num(n, 0);
    if (IsNumericAggregate(f)) {
      for (size_t i = 0; i < n; ++i) {
        if (Args(i)[0].is_null()) continue;
        absl::StatusOr<double> x = ToNumber(Args(i)[0]);
        if (!x.ok()) return x.status();
        num[i] = *x;
      }
    }
    const bool forward =
        std::all_of(frames.begin(), frames.end(), [](const auto& fr) { return fr.first == 0; });
    const bool backward = std::all_of(frames.begin(), frames.end(), [&](const auto& fr) {
      return fr.second == static_cast<int64_t>(n) - 1;
    });
    Accumulator grown(f);
    int64_t reached = forward ? -1 : static_cast<int64_t>(n);
    for (size_t k = 0; k < n; ++k) {
      const size_t i = backward && !forward ? n - 1 - k : k;
      const auto [first, last] = frames[i];
      if (forward) {
        while (reached < last) Add(grown, static_cast<size_t>(++reached), star, num);
        Set(i, Result(grown));
      } else if (backward) {
        while (reached > first) Add(grown, static_cast<size_t>(--reached), star, num);
        Set(i, Result(grown));
      } else {
        Accumulator a(f);
        for (int64_t j = first; j <= last; ++j) Add(a, static_cast<size_t>(j), star, num);
        Set(i, Result(a));
      }
    }
    return absl::OkStatus();
  }

  const Expr& f_;
  const Window& w_;
  const std::vector<AnalyticInput>& rows_;
  const std::vector<size_t>& at_;
  std::vector<Value>& out_;
  std::vector<size_t> peer_start_, peer_end_;
};

}  // namespace

bool IsAnalyticOnlyFunction(std::string_view name) {
  return std::find(kAnalyticOnly.begin(), kAnalyticOnly.end(), name) != kAnalyticOnly.end();
}

std::string_view AnalyticFunctionNames() {
  return "ROW_NUMBER, RANK, DENSE_RANK, PERCENT_RANK, CUME_DIST, NTILE, LAG, LEAD, FIRST_VALUE, "
         "LAST_VALUE, NTH_VALUE, RATIO_TO_REPORT, COUNT, SUM, AVG, MIN, MAX, VARIANCE, VAR_SAMP, "
         "VAR_POP, STDDEV, STDDEV_SAMP, STDDEV_POP, LISTAGG and MEDIAN (PARTITION BY only)";
}

std::optional<AnalyticError> CheckAnalytic(std::string_view name, bool distinct, const Window& w) {
  if (!IsAnalyticOnlyFunction(name) && !IsAggregateFunction(name)) {
    return AnalyticError{fmt::format("{} takes no OVER clause (the functions that do: {})", name,
                                     AnalyticFunctionNames()),
                         "ORA-00923: FROM keyword not found where expected"};
  }
  const auto [fewest, most] = ArgumentCounts(name);
  if (w.arguments < fewest || w.arguments > most) {
    return AnalyticError{fmt::format("{} takes {} argument{}, not {}", name,
                                     fewest == most ? fmt::format("{}", fewest)
                                                    : fmt::format("{} to {}", fewest, most),
                                     most == 1 ? "" : "s", w.arguments),
                         "ORA-00909: invalid number of arguments"};
  }
  if (w.ignore_nulls && !TakesNulls(name)) {
    return AnalyticError{fmt::format("{} takes no IGNORE NULLS (those that do: LAG, LEAD, "
                                     "FIRST_VALUE, LAST_VALUE, NTH_VALUE)", name),
                         "ORA-30484: missing OVER clause, or invalid identifier found for window "
                         "function"};
  }
  if (w.from_last && name != "NTH_VALUE") {
    return AnalyticError{fmt::format("{} takes no FROM FIRST / FROM LAST (NTH_VALUE does)", name),
                         "ORA-30484: missing OVER clause, or invalid identifier found for window "
                         "function"};
  }
  const bool ordered = !w.order_by.empty();
  const bool needs_order = IsRanking(name) || name == "NTILE" || name == "LAG" || name == "LEAD";
  if (needs_order && !ordered) {
    return AnalyticError{fmt::format("{} needs ORDER BY in its OVER clause", name),
                         "ORA-30485: missing ORDER BY expression in the window specification"};
  }
  if (distinct && !AllowsDistinct(name)) {
    return AnalyticError{fmt::format("{} takes no DISTINCT", name),
                         "ORA-30482: DISTINCT option not allowed for this function"};
  }
  if (ordered && (distinct || name == "RATIO_TO_REPORT" || name == "LISTAGG" || name == "MEDIAN")) {
    return AnalyticError{fmt::format("{}{} takes no ORDER BY in its OVER clause",
                                     distinct ? "DISTINCT in " : "", name),
                         "ORA-30487: ORDER BY not allowed here"};
  }
  if (w.frame) {
    if (!TakesFrame(name) || distinct) {
      return AnalyticError{fmt::format("{}{} takes no window frame (ROWS / RANGE)",
                                       distinct ? "DISTINCT in " : "", name),
                           "ORA-00907: missing right parenthesis"};
    }
    if (!ordered) {
      return AnalyticError{"a window frame (ROWS / RANGE) needs ORDER BY before it",
                           "ORA-30485: missing ORDER BY expression in the window specification"};
    }
    return CheckFrame(w);
  }
  return std::nullopt;
}

std::string ListAggSeparator(const Expr& listagg) {
  const size_t own = listagg.within_group ? listagg.within_group->arguments : 0;
  return own > 1 && listagg.args[1]->kind == Expr::Kind::kString ? listagg.args[1]->text : "";
}

absl::StatusOr<Value> ListAgg(std::vector<std::pair<Value, Row>> items,
                              const std::vector<Window::Key>& keys, const std::string& separator,
                              bool distinct) {
  std::erase_if(items, [](const auto& x) { return x.first.is_null(); });
  std::stable_sort(items.begin(), items.end(), [&](const auto& a, const auto& b) {
    for (size_t k = 0; k < keys.size(); ++k) {
      const int c = KeyCompare(a.second[k], b.second[k], keys[k]);
      if (c != 0) return c < 0;
    }
    return false;
  });
  std::set<std::string> seen;
  std::string out;
  bool first = true;
  for (const auto& [v, key] : items) {
    const std::string text = ValueText(v);
    if (distinct && !seen.insert(text).second) continue;
    if (!first) out += separator;
    out += text;
    first = false;
    if (out.size() > kMaxVarchar2) {
      return absl::InvalidArgumentError(fmt::format(
          "ORA-01489: result of string concatenation is too long (LISTAGG past {} bytes)",
          kMaxVarchar2));
    }
  }
  return first ? Value::Null() : Value::Str(std::move(out));
}

absl::StatusOr<std::vector<Value>> AnalyticValues(const Expr& f,
                                                  const std::vector<AnalyticInput>& rows) {
  std::vector<Value> out(rows.size());
  for (const Partition& p : Partitions(*f.over, rows)) {
    PartitionValues values(f, rows, p, &out);
    if (absl::Status st = values.Run(); !st.ok()) return st;
  }
  return out;
}

}  // namespace cellsim::db::internal
