// Private: the queues of the device model (see include/cellsim/sim/simulation.h).
#ifndef CELLSIM_SIM_DEVICE_MODEL_H_
#define CELLSIM_SIM_DEVICE_MODEL_H_

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "cellsim/base/mutex.h"
#include "cellsim/sim/profile.h"
#include "cellsim/sim/trace.h"

namespace cellsim::sim::internal {

enum class OpKind : uint8_t { kRead, kWrite, kFormat, kFastFormat };

// Thread-safe: mu_ guards the servers' queues. Device() and Link() write
// the trace while holding it (mu_ before the TraceWriter's lock).
class DeviceModel {
 public:
  DeviceModel(const DeviceProfile& p, const RackShape& shape, TraceWriter* trace,
              const std::string& prefix);

  // One request arriving at `arrive_ns` on cell `cell`; `cell_disk` is the
  // cell disk the grid disk lives on; `to_flash` for cache reads/writes.
  // Returns the completion time on the device.
  uint64_t Device(uint32_t cell, uint32_t cell_disk, bool to_flash, OpKind op, uint64_t bytes,
                  uint64_t arrive_ns) ABSL_LOCKS_EXCLUDED(mu_);
  // Data bytes over the cell's link, ready at `ready_ns`; returns when sent.
  uint64_t Link(uint32_t cell, uint64_t bytes, uint64_t ready_ns) ABSL_LOCKS_EXCLUDED(mu_);
  uint64_t half_rpc_ns() const { return half_rpc_ns_; }
  const std::string& CellName(uint32_t cell) const { return cell_names_.at(cell); }

 private:
  struct Server {
    std::string process, name;
    uint32_t track = 0;
    uint64_t free_at = 0;
    std::deque<uint64_t> pending;  // completion times (for the queue-depth counter)
  };
  // Queues a request on `s` (one of the servers below).
  uint64_t Book(Server& s, uint64_t arrive_ns, uint64_t service_ns, const char* what)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  uint64_t ServiceNs(bool flash, bool ef, OpKind op, uint64_t bytes) const;
  Server MakeServer(uint32_t cell, const std::string& name);

  DeviceProfile p_;
  RackShape shape_;
  TraceWriter* trace_;
  std::string prefix_;
  uint64_t half_rpc_ns_;
  bool ef_;
  std::vector<std::string> cell_names_;  // set by the constructor
  Mutex mu_;
  std::vector<std::vector<Server>> disks_ ABSL_GUARDED_BY(mu_);  // [cell][cell disk]
  std::vector<std::vector<Server>> flash_ ABSL_GUARDED_BY(mu_);  // [cell][card]
  std::vector<Server> links_ ABSL_GUARDED_BY(mu_);               // [cell]
};

}  // namespace cellsim::sim::internal

#endif  // CELLSIM_SIM_DEVICE_MODEL_H_
