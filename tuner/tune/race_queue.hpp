// Which worker takes which race when there are several (tuner/tune/host_dispatch.hpp, one worker
// per GPU; tuner/tune/mpi_dispatch.hpp, ranks of such workers). Races go longest first, with the
// length estimated before any is timed as (candidates + baselines) x the shape's weight bytes: a
// race samples every candidate, and a sample streams the weight. Across MPI ranks the split is
// deterministic (every rank computes the same one from the same plan): greedy longest-first to
// the rank with the least estimated work per GPU. Within a rank a race goes to the first free
// worker. Pure logic, tested without a GPU.
#pragma once

#include <cstddef>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "tuner/gpu/arch.hpp"
#include "tuner/tune/plan.hpp"
#include "tuner/tune/spec.hpp"

namespace r4::tune {

struct RaceJob {
  std::size_t group = 0;  // the device group (one run per GPU model)
  std::size_t shape = 0;  // index into the spec's shapes
  int m = 0;
  double cost = 0;  // the estimate above
  // The first of its (group, shape) in the global order: its worker runs the per-shape stages
  // (DispatchWork::on_shape) before the race, so they run once per shape and group.
  bool first_of_shape = false;
  // The first of its group: its per-shape stages also measure the run's launch floor.
  bool first_of_group = false;
};

// One device group as the planner sees it: its plan and arch, and the races a --resume found.
struct GroupPlan {
  const Plan* plan = nullptr;
  gpu::Arch arch;
  const std::set<std::tuple<std::int64_t, std::int64_t, int>>* raced = nullptr;
};

// (units that compiled and are valid at (shape, M)) + baselines, times the weight's bytes.
[[nodiscard]] double race_cost(const Plan& plan, const gpu::Arch& arch, const ShapeSpec& sh, int m,
                               std::size_t baselines);

// Every race of every group not raced yet, longest first; ties keep (group, shape, M) order.
[[nodiscard]] std::vector<RaceJob> make_jobs(const Spec& spec,
                                             const std::vector<GroupPlan>& groups);

// The rank of each job: longest first to the rank with the least estimated work per worker of
// the job's group, ties to the lower rank. workers[r][g]: rank r's workers in group g (a rank
// without any in g takes none of g's races). Same inputs, same answer, on every rank.
[[nodiscard]] std::vector<int> assign_ranks(const std::vector<RaceJob>& jobs,
                                            const std::vector<std::vector<int>>& workers);

// One process's races, taken by its workers' threads.
class RaceQueue {
 public:
  explicit RaceQueue(std::vector<RaceJob> jobs) : jobs_(std::move(jobs)) {}
  // The next race for a worker of `group` whose pool holds `shape` (none: no shape yet): the
  // longest waiting, or a race of its own shape if that one is within 10% of the longest (a
  // shape change costs the worker a new pool). None when the group has nothing left or stop()
  // was called.
  [[nodiscard]] std::optional<RaceJob> take(std::size_t group, std::optional<std::size_t> shape);
  // A race that threw: queued again, first, the first time (true); the second time it is given
  // up (false) and is left for --resume.
  [[nodiscard]] bool retry(const RaceJob& job);
  void stop();
  [[nodiscard]] bool stopped() const;
  [[nodiscard]] std::size_t waiting() const;

 private:
  mutable std::mutex mu_;
  std::vector<RaceJob> jobs_;
  std::map<std::tuple<std::size_t, std::size_t, int>, int> attempts_;
  bool stopped_ = false;
};

}  // namespace r4::tune
