// Which worker takes which race when there are several (tuner/tune/host_dispatch.hpp, one worker
// per GPU; tuner/tune/mpi_dispatch.hpp, ranks of such workers). Races go longest first, with the
// length estimated before any is timed as (candidates + baselines) x the shape's weight bytes: a
// race samples every candidate, and a sample streams the weight. A race goes to the first free
// worker; under MPI every rank's workers take from one queue on rank 0 (remote_queue.hpp), so no
// rank waits while another has races left. Pure logic, tested without a GPU.
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
  bool retried = false;  // queued again after it threw: taken before anything else
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

// Where a worker's thread gets its races: the queue itself (RaceQueue, in the process that holds
// it) or, on an MPI rank other than 0, a proxy that asks rank 0's queue (RemoteQueue).
class RaceSource {
 public:
  virtual ~RaceSource() = default;
  // The next race for a worker of `group` whose pool holds `shape` (none: no shape yet); none
  // when the group has nothing left or stop() was called. May block (RemoteQueue).
  [[nodiscard]] virtual std::optional<RaceJob> take(std::size_t group,
                                                    std::optional<std::size_t> shape) = 0;
  // A race that threw: queued again, first, the first time (true); the second time it is given
  // up (false) and is left for --resume.
  [[nodiscard]] virtual bool retry(const RaceJob& job) = 0;
  virtual void stop() = 0;
  // Races queued here and not taken.
  [[nodiscard]] virtual std::size_t waiting() const = 0;
};

// The races, taken by workers' threads (this process's, and under MPI the other ranks' through
// rank 0).
class RaceQueue final : public RaceSource {
 public:
  explicit RaceQueue(std::vector<RaceJob> jobs) : jobs_(std::move(jobs)) {}
  // The next race for a worker of `group` whose pool holds `shape` (none: no shape yet). A race
  // queued again after it threw comes first. Then the worker stays on its shape: the longest
  // race of `shape` left. Else it moves to the shape with the most estimated work left per worker
  // already on it (left / (1 + holders)), and takes that shape's longest race. A shape change
  // costs the worker a new pool (~0.2 s on the H200), and the first 4-GPU scaling run
  // (docs/TUNER.md, 2026-11-30) changed shape 68 times for 14 shapes under the previous rule
  // (longest first, own shape only within 10% of it): 10 s of its 84 s of summed race time.
  // None when the group has nothing left or stop() was called.
  [[nodiscard]] std::optional<RaceJob> take(std::size_t group,
                                            std::optional<std::size_t> shape) override;
  [[nodiscard]] bool retry(const RaceJob& job) override;
  void stop() override;
  [[nodiscard]] bool stopped() const;
  [[nodiscard]] std::size_t waiting() const override;

 private:
  mutable std::mutex mu_;
  std::vector<RaceJob> jobs_;
  std::map<std::tuple<std::size_t, std::size_t, int>, int> attempts_;
  std::map<std::pair<std::size_t, std::size_t>, int> holders_;  // (group, shape): workers on it
  bool stopped_ = false;
};

}  // namespace r4::tune
