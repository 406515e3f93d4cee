// The dispatcher's own log: what each worker did while the races ran, so a scaling run can say
// how much of each GPU's time went idle (issue 16). One JSON object per line (--dispatch-log
// PATH), written by the process that holds the database (MPI rank 0 gets the other ranks'
// events), and a per-GPU summary on stderr at the end of the race phase:
//   {"event":"start","t":11.5,"rank":0,"host":"h","gpu":1,"group":0,"n":3072,"k":5120,"m":16,
//    "seconds":0}                                         a worker takes a race
//   {"event":"race","t":12.3,"rank":0,"host":"h","gpu":1,"group":0,"n":3072,"k":5120,"m":16,
//    "seconds":0.84}                                    a race done (set-up and per-shape work in)
//   {"event":"retry"|"failed", ..., "detail":"why"}      a race that threw: queued again / given up
//   {"event":"worker","rank":0,"host":"h","gpu":1,"group":0,"races":9,"failed":0,
//    "busy_seconds":8.1,"idle_seconds":0.7,"wall_seconds":8.8,"restarts":0}
//                                                         per GPU, once the phase is over
// A worker's wall time is the race phase's (from the dispatch to the last race of the whole
// sweep, on the writing process's clock); idle = wall - busy: waiting for work at the end, or a
// retired worker.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "db/rows.hpp"
#include "tuner/tune/progress.hpp"

namespace r4::tune {

struct DispatchEvent {
  std::string event;  // "start", "race", "retry", "failed"
  double t = 0;       // seconds since the race phase began, on the worker's process's clock
  int rank = 0;
  std::string host;
  int gpu = 0;  // the GPU's index on its host
  std::size_t group = 0;
  std::int64_t n = 0, k = 0;
  int m = 0;
  double seconds = 0;  // the worker's busy time for it
  std::string detail;
};

struct WorkerStats {
  int rank = 0;
  std::string host;
  int gpu = 0;
  std::size_t group = 0;
  std::optional<db::Id> gpu_id;
  int races = 0, failed = 0, restarts = 0;
  double busy_seconds = 0;
  bool retired = false;  // stopped taking races after failing twice in a row
};

[[nodiscard]] nlohmann::json to_json(const DispatchEvent& e);
[[nodiscard]] DispatchEvent event_from_json(const nlohmann::json& j);
[[nodiscard]] nlohmann::json to_json(const WorkerStats& s);
[[nodiscard]] WorkerStats stats_from_json(const nlohmann::json& j);

class DispatchLog {
 public:
  // path empty: no file, the summary only. Throws std::runtime_error when the file cannot be
  // written.
  DispatchLog(const std::string& path, ProgressMode mode);
  void event(const DispatchEvent& e);
  // The per-GPU lines (file and stderr) for a race phase that took `wall_seconds`; returns each
  // worker's idle seconds, in `workers` order.
  std::vector<double> finish(const std::vector<WorkerStats>& workers, double wall_seconds);

 private:
  struct Close {
    void operator()(std::FILE* f) const {
      if (f) std::fclose(f);
    }
  };
  std::unique_ptr<std::FILE, Close> file_;
  ProgressMode mode_;
};

}  // namespace r4::tune
