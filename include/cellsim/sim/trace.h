// TraceWriter: a timeline in the Chrome trace-event JSON format that Perfetto
// (ui.perfetto.dev) and chrome://tracing open: one process per component
// (the database, each cell), one named thread per track (a session, a cell's
// requests, a cell disk, a flash card), a complete event ("ph":"X") per slice
// and counter events ("ph":"C") for queue depths and dirty cache bytes.
//
// Tracks keep proper nesting by construction: a slice that would overlap the
// track's previous one goes to a lane below it ("cel01 requests #2"), as
// Perfetto expects of synchronous slices on one thread.
//
// Usage:
//   TraceWriter t("simulated");
//   uint32_t track = t.Track("cel01", "CD_00");
//   t.Slice(track, "write 1 MiB", start_ns, dur_ns);
//   t.Counter("cel01", "queue CD_00", at_ns, 3);
//   absl::Status s = t.WriteFile("/tmp/seed.trace.json");
//
// Thread-safety: every method may be called from any thread. One mutex guards
// all the state; it is a leaf (nothing else is locked while it is held), so
// callers may write the trace under their own locks.
#ifndef CELLSIM_SIM_TRACE_H_
#define CELLSIM_SIM_TRACE_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "cellsim/base/mutex.h"

namespace cellsim::sim {

class TraceWriter {
 public:
  // `clock_name` ("simulated" or "real") goes into the trace's metadata.
  explicit TraceWriter(std::string clock_name);

  // A track (by process and thread name), created on first use.
  uint32_t Track(const std::string& process, const std::string& thread) ABSL_LOCKS_EXCLUDED(mu_);
  void Slice(uint32_t track, const std::string& name, uint64_t start_ns, uint64_t dur_ns,
             const std::string& category = "io") ABSL_LOCKS_EXCLUDED(mu_);
  void Counter(const std::string& process, const std::string& name, uint64_t at_ns,
               double value) ABSL_LOCKS_EXCLUDED(mu_);

  size_t event_count() const ABSL_LOCKS_EXCLUDED(mu_);
  // The whole trace as JSON text; timestamps in microseconds from the first event.
  std::string Json() const ABSL_LOCKS_EXCLUDED(mu_);
  [[nodiscard]] absl::Status WriteFile(const std::string& path) const ABSL_LOCKS_EXCLUDED(mu_);

 private:
  struct Lane {
    uint32_t tid;
    uint64_t open_end;  // end of the lane's last slice
  };
  struct TrackInfo {
    uint32_t pid;
    std::string process, thread;
    std::vector<Lane> lanes;
  };
  struct Event {
    char ph;
    uint32_t pid, tid;
    std::string name, cat;
    uint64_t ts_ns, dur_ns;
    double value;
  };
  uint32_t Pid(const std::string& process) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::string clock_name_;
  mutable Mutex mu_;
  std::map<std::string, uint32_t> pids_ ABSL_GUARDED_BY(mu_);
  std::map<std::pair<std::string, std::string>, uint32_t> track_ids_ ABSL_GUARDED_BY(mu_);
  std::vector<TrackInfo> tracks_ ABSL_GUARDED_BY(mu_);
  std::vector<std::pair<uint32_t, std::pair<uint32_t, std::string>>> thread_names_
      ABSL_GUARDED_BY(mu_);
  std::vector<Event> events_ ABSL_GUARDED_BY(mu_);
  uint32_t next_tid_ ABSL_GUARDED_BY(mu_) = 1;
};

}  // namespace cellsim::sim

#endif  // CELLSIM_SIM_TRACE_H_
