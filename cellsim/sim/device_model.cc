#include "cellsim/sim/device_model.h"

#include <algorithm>
#include <cmath>

#include "fmt/format.h"

namespace cellsim::sim::internal {
namespace {

uint64_t Ns(double seconds) { return static_cast<uint64_t>(std::llround(seconds * 1e9)); }
double PerSecond(double rate) { return rate > 0 ? 1.0 / rate : 0.0; }

}  // namespace

DeviceModel::DeviceModel(const DeviceProfile& p, const RackShape& shape, TraceWriter* trace,
                         const std::string& prefix)
    : p_(p),
      shape_(shape),
      trace_(trace),
      prefix_(prefix),
      half_rpc_ns_(Ns(p.rpc_us.value / 2e6)),
      ef_(p.disks_per_cell.value < 1) {
  for (uint32_t c = 0; c < shape.cells; ++c) {
    cell_names_.push_back(fmt::format("cel{:02}", c + 1));
    disks_.emplace_back();
    flash_.emplace_back();
    for (uint32_t d = 0; d < shape.disks_per_cell; ++d) {
      disks_.back().push_back(MakeServer(c, fmt::format("{} CD_{:02}", ef_ ? "flash" : "disk", d)));
    }
    for (uint32_t f = 0; f < shape.flash_cards_per_cell; ++f) {
      flash_.back().push_back(MakeServer(c, fmt::format("flash FD_{:02}", f)));
    }
    links_.push_back(MakeServer(c, "network link"));
  }
}

DeviceModel::Server DeviceModel::MakeServer(uint32_t cell, const std::string& name) {
  Server s;
  s.process = prefix_ + fmt::format("cel{:02}", cell + 1);
  s.name = name;
  if (trace_ != nullptr) s.track = trace_->Track(s.process, name);
  return s;
}

uint64_t DeviceModel::ServiceNs(bool flash, bool ef, OpKind op, uint64_t bytes) const {
  const double b = static_cast<double>(bytes);
  if (flash || ef) {
    if (op == OpKind::kFastFormat) return Ns(PerSecond(p_.fdfc_requests_per_s.value));
    const double iops = op == OpKind::kRead ? p_.flash_read_iops.value : p_.flash_write_iops.value;
    return Ns(std::max(PerSecond(iops), b / (p_.flash_mb_s.value * 1e6)));
  }
  const double bw = op == OpKind::kRead ? p_.disk_read_mb_s.value : p_.disk_write_mb_s.value;
  // An operation costs the larger of its share of the disk's IOPS and its
  // transfer time: small I/Os are seek-bound, large ones bandwidth-bound.
  return Ns(std::max(PerSecond(p_.disk_iops.value), b / (bw * 1e6)));
}

uint64_t DeviceModel::Book(Server& s, uint64_t arrive_ns, uint64_t service_ns, const char* what) {
  const uint64_t start = std::max(arrive_ns, s.free_at);
  s.free_at = start + service_ns;
  if (trace_ != nullptr) {
    while (!s.pending.empty() && s.pending.front() <= arrive_ns) s.pending.pop_front();
    s.pending.push_back(s.free_at);
    trace_->Slice(s.track, what, start, service_ns);
    trace_->Counter(s.process, "queue " + s.name, arrive_ns, static_cast<double>(s.pending.size()));
  }
  return s.free_at;
}

uint64_t DeviceModel::Device(uint32_t cell, uint32_t cell_disk, bool to_flash, OpKind op,
                             uint64_t bytes, uint64_t arrive_ns) {
  MutexLock l(&mu_);
  const uint32_t c = cell % shape_.cells;
  static constexpr const char* kWhat[] = {"read", "write", "format", "fast format"};
  const char* what = kWhat[static_cast<int>(op)];
  if (to_flash || op == OpKind::kFastFormat) {
    // The card that frees first (lowest index on ties): deterministic.
    std::vector<Server>& cards = flash_[c];
    Server* best = &cards[0];
    for (Server& s : cards) {
      if (s.free_at < best->free_at) best = &s;
    }
    return Book(*best, arrive_ns, ServiceNs(true, ef_, op, bytes), what);
  }
  Server& d = disks_[c][cell_disk % disks_[c].size()];
  return Book(d, arrive_ns, ServiceNs(false, ef_, op, bytes), what);
}

uint64_t DeviceModel::Link(uint32_t cell, uint64_t bytes, uint64_t ready_ns) {
  if (bytes == 0) return ready_ns;
  MutexLock l(&mu_);
  const double gbit = p_.network_gbit_s.value;
  return Book(links_[cell % links_.size()], ready_ns,
              Ns(static_cast<double>(bytes) * 8.0 / (gbit * 1e9)), "transfer");
}

}  // namespace cellsim::sim::internal
