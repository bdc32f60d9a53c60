#include "cellsim/stats/statistics.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <utility>

namespace cellsim::stats {

std::optional<Stat> StatByName(std::string_view name) {
  for (size_t i = 0; i < kStatCount; ++i) {
    if (kStatTable[i].name == name) return static_cast<Stat>(i);
  }
  return std::nullopt;
}

std::optional<Wait> WaitByName(std::string_view name) {
  for (size_t i = 0; i < kWaitCount; ++i) {
    if (kWaitTable[i].name == name) return static_cast<Wait>(i);
  }
  return std::nullopt;
}

std::string_view WaitParamTraceName(Wait w, int i) {
  static constexpr std::string_view kUnnamed[] = {"p1", "p2", "p3"};
  const WaitInfo& info = kWaitTable[static_cast<size_t>(w)];
  const std::string_view name = i == 1 ? info.p1 : i == 2 ? info.p2 : info.p3;
  return name.empty() ? kUnnamed[std::clamp(i, 1, 3) - 1] : name;
}

std::string_view WaitClassName(WaitClass c) {
  switch (c) {
    case WaitClass::kUserIo: return "User I/O";
    case WaitClass::kSystemIo: return "System I/O";
    case WaitClass::kOther: return "Other";
    case WaitClass::kCommit: return "Commit";
    case WaitClass::kConcurrency: return "Concurrency";
    case WaitClass::kConfiguration: return "Configuration";
    case WaitClass::kApplication: return "Application";
    case WaitClass::kIdle: return "Idle";
  }
  return "Other";
}

WaitClassIds WaitClassIdsOf(WaitClass c) {
  switch (c) {
    case WaitClass::kOther: return {0, 1893977003};
    case WaitClass::kApplication: return {1, 4217450380};
    case WaitClass::kConfiguration: return {2, 3290255840};
    case WaitClass::kConcurrency: return {4, 3875070507};
    case WaitClass::kCommit: return {5, 3386400367};
    case WaitClass::kIdle: return {6, 2723168908};
    case WaitClass::kUserIo: return {8, 1740759767};
    case WaitClass::kSystemIo: return {9, 4108307767};
  }
  return {0, 1893977003};
}

StatValues StatValues::operator-(const StatValues& o) const {
  StatValues r;
  for (size_t i = 0; i < kStatCount; ++i) r.v[i] = v[i] - o.v[i];
  return r;
}

StatValues& StatValues::operator+=(const StatValues& o) {
  for (size_t i = 0; i < kStatCount; ++i) v[i] += o.v[i];
  return *this;
}

void StatSet::AddAll(const StatValues& values) {
  for (size_t i = 0; i < kStatCount; ++i) {
    if (values.v[i] != 0) v_[i].fetch_add(values.v[i], std::memory_order_relaxed);
  }
}

StatValues StatSet::Snapshot() const {
  StatValues r;
  for (size_t i = 0; i < kStatCount; ++i) r.v[i] = v_[i].load(std::memory_order_relaxed);
  return r;
}

size_t WaitHistogramBucket(uint64_t ns) {
  // bit_width(us) is b for us in [2^(b-1), 2^b), and 0 for us = 0.
  const auto b = static_cast<size_t>(std::bit_width(ns / 1000));
  return std::min(b, kWaitHistogramBuckets - 1);
}

uint64_t WaitHistogramUpperUs(size_t bucket) {
  if (bucket >= kWaitHistogramBuckets - 1) return UINT64_MAX;
  return uint64_t{1} << bucket;
}

uint64_t WaitPercentileNs(const WaitValue& w, double q) {
  int64_t total = 0;
  for (int64_t n : w.histogram) total += n;
  if (total <= 0) return 0;
  if (!(q > 0)) q = 0;  // also maps NaN to the smallest rank
  q = std::min(q, 1.0);
  const auto rank = std::max<int64_t>(
      1, static_cast<int64_t>(std::ceil(q * static_cast<double>(total))));
  int64_t seen = 0;
  for (size_t b = 0; b < kWaitHistogramBuckets; ++b) {
    seen += w.histogram[b];
    if (seen >= rank) {
      const uint64_t upper_us = WaitHistogramUpperUs(b);
      const uint64_t upper_ns = upper_us > UINT64_MAX / 1000 ? UINT64_MAX : upper_us * 1000;
      return std::min(upper_ns, w.max_ns);
    }
  }
  return w.max_ns;
}

WaitValues WaitValues::operator-(const WaitValues& o) const {
  WaitValues r;
  for (size_t i = 0; i < kWaitCount; ++i) {
    r.v[i].count = v[i].count - o.v[i].count;
    r.v[i].total_ns = v[i].total_ns - o.v[i].total_ns;
    uint64_t bucket_edge_ns = 0;
    for (size_t b = 0; b < kWaitHistogramBuckets; ++b) {
      r.v[i].histogram[b] = v[i].histogram[b] - o.v[i].histogram[b];
      if (r.v[i].histogram[b] > 0) {
        const uint64_t us = WaitHistogramUpperUs(b);
        bucket_edge_ns = us > UINT64_MAX / 1000 ? UINT64_MAX : us * 1000;
      }
    }
    uint64_t max = r.v[i].count > 0 ? std::min(v[i].max_ns, r.v[i].total_ns) : 0;
    if (bucket_edge_ns != 0) max = std::min(max, bucket_edge_ns);
    r.v[i].max_ns = r.v[i].count == 1 ? r.v[i].total_ns : max;
  }
  return r;
}

WaitValues& WaitValues::operator+=(const WaitValues& o) {
  for (size_t i = 0; i < kWaitCount; ++i) {
    v[i].count += o.v[i].count;
    v[i].total_ns += o.v[i].total_ns;
    v[i].max_ns = std::max(v[i].max_ns, o.v[i].max_ns);
    for (size_t b = 0; b < kWaitHistogramBuckets; ++b) v[i].histogram[b] += o.v[i].histogram[b];
  }
  return *this;
}

void WaitSet::Record(Wait w, uint64_t ns) {
  Cell& c = v_[static_cast<size_t>(w)];
  c.count.fetch_add(1, std::memory_order_relaxed);
  c.total_ns.fetch_add(ns, std::memory_order_relaxed);
  c.histogram[WaitHistogramBucket(ns)].fetch_add(1, std::memory_order_relaxed);
  uint64_t prev = c.max_ns.load(std::memory_order_relaxed);
  while (prev < ns && !c.max_ns.compare_exchange_weak(prev, ns, std::memory_order_relaxed)) {
  }
}

void WaitSet::RecordAll(Wait w, absl::Span<const EndedWait> waits) {
  WaitValue sum;
  for (const EndedWait& e : waits) {
    ++sum.count;
    sum.total_ns += e.ns;
    ++sum.histogram[WaitHistogramBucket(e.ns)];
    sum.max_ns = std::max(sum.max_ns, e.ns);
  }
  Add(v_[static_cast<size_t>(w)], sum);
}

void WaitSet::AddAll(const WaitValues& values) {
  for (size_t i = 0; i < kWaitCount; ++i) Add(v_[i], values.v[i]);
}

void WaitSet::Add(Cell& c, const WaitValue& w) {
  if (w.count == 0 && w.total_ns == 0) return;
  c.count.fetch_add(w.count, std::memory_order_relaxed);
  c.total_ns.fetch_add(w.total_ns, std::memory_order_relaxed);
  for (size_t b = 0; b < kWaitHistogramBuckets; ++b) {
    if (w.histogram[b] != 0) c.histogram[b].fetch_add(w.histogram[b], std::memory_order_relaxed);
  }
  uint64_t prev = c.max_ns.load(std::memory_order_relaxed);
  while (prev < w.max_ns &&
         !c.max_ns.compare_exchange_weak(prev, w.max_ns, std::memory_order_relaxed)) {
  }
}

WaitValues WaitSet::Snapshot() const {
  WaitValues r;
  for (size_t i = 0; i < kWaitCount; ++i) {
    r.v[i].count = v_[i].count.load(std::memory_order_relaxed);
    r.v[i].total_ns = v_[i].total_ns.load(std::memory_order_relaxed);
    r.v[i].max_ns = v_[i].max_ns.load(std::memory_order_relaxed);
    for (size_t b = 0; b < kWaitHistogramBuckets; ++b) {
      r.v[i].histogram[b] = v_[i].histogram[b].load(std::memory_order_relaxed);
    }
  }
  return r;
}

void WaitHistory::Record(Wait w, const WaitParams& p, uint64_t ns, uint64_t end_ns) {
  MutexLock lock(&mu_);
  RecordLocked(w, p, ns, end_ns);
}

void WaitHistory::RecordAll(Wait w, absl::Span<const EndedWait> waits) {
  MutexLock lock(&mu_);
  for (const EndedWait& e : waits) RecordLocked(w, e.params, e.ns, e.end_ns);
}

void WaitHistory::RecordLocked(Wait w, const WaitParams& p, uint64_t ns, uint64_t end_ns) {
  WaitEvent e{w, p, ns, end_ns, 0, count_ + 1};
  if (count_ > 0) {
    const uint64_t previous_end = ring_[(count_ - 1) % kCapacity].end_ns;
    const uint64_t start = end_ns - std::min(ns, end_ns);
    e.since_last_ns = start - std::min(start, previous_end);
  }
  ring_[count_ % kCapacity] = e;
  ++count_;
  if (capturing_) capture_.push_back(e);
}

std::vector<WaitEvent> WaitHistory::Last() const {
  MutexLock lock(&mu_);
  std::vector<WaitEvent> out;
  for (uint64_t k = 0; k < std::min<uint64_t>(count_, kCapacity); ++k) {
    out.push_back(ring_[(count_ - 1 - k) % kCapacity]);
  }
  return out;
}

void WaitHistory::ResetCapture(bool keep) {
  MutexLock lock(&mu_);
  capture_.clear();
  capturing_ = keep;
}

std::vector<WaitEvent> WaitHistory::TakeCapture() {
  MutexLock lock(&mu_);
  capturing_ = false;
  return std::exchange(capture_, {});
}

}  // namespace cellsim::stats
