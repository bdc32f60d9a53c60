#include "cellsim/stats/statistics.h"

#include <algorithm>

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

std::string_view WaitClassName(WaitClass c) {
  switch (c) {
    case WaitClass::kUserIo: return "User I/O";
    case WaitClass::kSystemIo: return "System I/O";
    case WaitClass::kOther: return "Other";
    case WaitClass::kCommit: return "Commit";
    case WaitClass::kConcurrency: return "Concurrency";
  }
  return "Other";
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

WaitValues WaitValues::operator-(const WaitValues& o) const {
  WaitValues r;
  for (size_t i = 0; i < kWaitCount; ++i) {
    r.v[i].count = v[i].count - o.v[i].count;
    r.v[i].total_ns = v[i].total_ns - o.v[i].total_ns;
    r.v[i].max_ns = r.v[i].count > 0 ? v[i].max_ns : 0;
  }
  return r;
}

WaitValues& WaitValues::operator+=(const WaitValues& o) {
  for (size_t i = 0; i < kWaitCount; ++i) {
    v[i].count += o.v[i].count;
    v[i].total_ns += o.v[i].total_ns;
    v[i].max_ns = std::max(v[i].max_ns, o.v[i].max_ns);
  }
  return *this;
}

void WaitSet::Record(Wait w, uint64_t ns) {
  Cell& c = v_[static_cast<size_t>(w)];
  c.count.fetch_add(1, std::memory_order_relaxed);
  c.total_ns.fetch_add(ns, std::memory_order_relaxed);
  uint64_t prev = c.max_ns.load(std::memory_order_relaxed);
  while (prev < ns && !c.max_ns.compare_exchange_weak(prev, ns, std::memory_order_relaxed)) {
  }
}

void WaitSet::AddAll(const WaitValues& values) {
  for (size_t i = 0; i < kWaitCount; ++i) {
    const WaitValue& w = values.v[i];
    if (w.count == 0 && w.total_ns == 0) continue;
    Cell& c = v_[i];
    c.count.fetch_add(w.count, std::memory_order_relaxed);
    c.total_ns.fetch_add(w.total_ns, std::memory_order_relaxed);
    uint64_t prev = c.max_ns.load(std::memory_order_relaxed);
    while (prev < w.max_ns &&
           !c.max_ns.compare_exchange_weak(prev, w.max_ns, std::memory_order_relaxed)) {
    }
  }
}

WaitValues WaitSet::Snapshot() const {
  WaitValues r;
  for (size_t i = 0; i < kWaitCount; ++i) {
    r.v[i].count = v_[i].count.load(std::memory_order_relaxed);
    r.v[i].total_ns = v_[i].total_ns.load(std::memory_order_relaxed);
    r.v[i].max_ns = v_[i].max_ns.load(std::memory_order_relaxed);
  }
  return r;
}

}  // namespace cellsim::stats
