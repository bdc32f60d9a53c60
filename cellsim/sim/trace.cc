#include "cellsim/sim/trace.h"

#include <algorithm>
#include <cstdio>
#include <fstream>

#include "fmt/format.h"
#include "nlohmann/json.hpp"

namespace cellsim::sim {

TraceWriter::TraceWriter(std::string clock_name) : clock_name_(std::move(clock_name)) {}

uint32_t TraceWriter::Pid(const std::string& process) {
  auto it = pids_.find(process);
  if (it != pids_.end()) return it->second;
  const uint32_t pid = static_cast<uint32_t>(pids_.size()) + 1;
  pids_.emplace(process, pid);
  return pid;
}

uint32_t TraceWriter::Track(const std::string& process, const std::string& thread) {
  MutexLock l(&mu_);
  auto key = std::make_pair(process, thread);
  auto it = track_ids_.find(key);
  if (it != track_ids_.end()) return it->second;
  const uint32_t id = static_cast<uint32_t>(tracks_.size());
  tracks_.push_back({Pid(process), process, thread, {}});
  track_ids_.emplace(key, id);
  return id;
}

void TraceWriter::Slice(uint32_t track, const std::string& name, uint64_t start_ns,
                        uint64_t dur_ns, const std::string& category) {
  MutexLock l(&mu_);
  TrackInfo& t = tracks_.at(track);
  const uint64_t end = start_ns + dur_ns;
  // First lane whose last slice has ended: slices on one lane never overlap.
  Lane* lane = nullptr;
  for (Lane& ln : t.lanes) {
    if (start_ns >= ln.open_end) {
      lane = &ln;
      break;
    }
  }
  if (lane == nullptr) {
    const uint32_t tid = next_tid_++;
    t.lanes.push_back({tid, 0});
    lane = &t.lanes.back();
    const std::string label =
        t.lanes.size() == 1 ? t.thread : fmt::format("{} #{}", t.thread, t.lanes.size());
    thread_names_.push_back({t.pid, {tid, label}});
  }
  lane->open_end = end;
  events_.push_back({'X', t.pid, lane->tid, name, category, start_ns, dur_ns, 0});
}

void TraceWriter::Counter(const std::string& process, const std::string& name, uint64_t at_ns,
                          double value) {
  MutexLock l(&mu_);
  events_.push_back({'C', Pid(process), 0, name, "counter", at_ns, 0, value});
}

size_t TraceWriter::event_count() const {
  MutexLock l(&mu_);
  return events_.size();
}

std::string TraceWriter::Json() const {
  MutexLock l(&mu_);
  nlohmann::json events = nlohmann::json::array();
  for (const auto& [process, pid] : pids_) {
    events.push_back({{"ph", "M"}, {"pid", pid}, {"tid", 0}, {"name", "process_name"},
                      {"args", {{"name", process}}}});
  }
  for (const auto& [pid, tn] : thread_names_) {
    events.push_back({{"ph", "M"}, {"pid", pid}, {"tid", tn.first}, {"name", "thread_name"},
                      {"args", {{"name", tn.second}}}});
  }
  uint64_t origin = UINT64_MAX;
  for (const Event& e : events_) origin = std::min(origin, e.ts_ns);
  // Stable order by time keeps viewers and diffs happy.
  std::vector<const Event*> sorted;
  for (const Event& e : events_) sorted.push_back(&e);
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const Event* a, const Event* b) { return a->ts_ns < b->ts_ns; });
  for (const Event* e : sorted) {
    const double ts = static_cast<double>(e->ts_ns - origin) / 1000.0;
    nlohmann::json j = {{"ph", std::string(1, e->ph)}, {"pid", e->pid}, {"tid", e->tid},
                        {"name", e->name}, {"cat", e->cat}, {"ts", ts}};
    if (e->ph == 'X') j["dur"] = static_cast<double>(e->dur_ns) / 1000.0;
    if (e->ph == 'C') j["args"] = {{"value", e->value}};
    events.push_back(std::move(j));
  }
  nlohmann::json doc = {{"traceEvents", std::move(events)},
                        {"displayTimeUnit", "ms"},
                        {"otherData", {{"clock", clock_name_}, {"generator", "cellsim"}}}};
  return doc.dump();
}

absl::Status TraceWriter::WriteFile(const std::string& path) const {
  const std::string text = Json();
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return absl::InvalidArgumentError(fmt::format("--trace {}: cannot create the file", path));
    out << text << "\n";
    out.flush();
    if (!out) return absl::ResourceExhaustedError(fmt::format("--trace {}: write failed", path));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    return absl::InternalError(fmt::format("--trace {}: cannot rename {} into place", path, tmp));
  }
  return absl::OkStatus();
}

}  // namespace cellsim::sim
