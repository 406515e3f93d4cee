// Every GPU of a host (`r4tune sweep SPEC --devices all|0,2,3`): one worker process per GPU, each
// driven by its own thread of the sweep, and the races (race_queue.hpp) to the first free worker,
// longest first. Compiles are shared (the driver compiles once per config and arch; every worker
// loads the same binaries). Each worker writes through its own context (its GPU stamped on every
// row) into one sink. A worker that dies is restarted on its own GPU by its next request
// (sweep_worker.hpp); a race that throws is queued again once and then given up (left for
// --resume, the run partial); a worker that fails two races in a row takes no more.
//
// HostLanes is that machinery for one process; HostDispatcher uses it alone, MpiDispatcher on
// every rank (mpi_dispatch.hpp).
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tuner/tune/dispatch.hpp"
#include "tuner/tune/dispatch_log.hpp"
#include "tuner/tune/race_queue.hpp"
#include "tuner/tune/row_sink.hpp"

namespace r4::tune {

// Device groups over `gpus` (slot.group set): one per GPU model, in order of first appearance.
// More than one without `allow_mixed` is refused: exit 2 with every GPU named.
[[nodiscard]] OpenedDevices group_gpus(std::vector<GpuSlot> gpus, bool allow_mixed);

class HostLanes {
 public:
  HostLanes(const SweepOptions& opt, int rank, std::string host);
  ~HostLanes();
  HostLanes(const HostLanes&) = delete;
  HostLanes& operator=(const HostLanes&) = delete;

  // The host's GPUs, from a worker that opens none (the `devices` request). Empty with `error`
  // set when the worker cannot say.
  [[nodiscard]] std::vector<gpu::DeviceInfo> probe(std::string& error);

  // One worker per ordinal, started together; each opens its GPU and measures its ceiling.
  struct Opened {
    int ordinal = 0;
    bool ok = false;
    nlohmann::json reply;  // ok: the worker's answer (device, ceiling)
    std::string error;
  };
  [[nodiscard]] std::vector<Opened> open(const std::vector<int>& ordinals);

  // Runs `jobs` (longest first) on the workers until none is left or `stop` is set: worker i
  // times on slots[i] and belongs to its group; groups[g] is group g's context. Rows go to
  // `sink`; `on_event` (called one at a time) gets every race done, retried or given up.
  // Throws the first failure that stops the sweep (SweepStop) after every thread has ended.
  void run(std::vector<RaceJob> jobs, const std::vector<GpuSlot>& slots,
           const std::vector<SweepContext*>& groups, const DispatchWork& work, RowSink& sink,
           const std::function<void(const DispatchEvent&)>& on_event, std::atomic<bool>& stop);
  // The same with the races from `source` (under MPI: rank 0's queue, shared with the other
  // ranks, or a RemoteQueue). With `report_left`, races still waiting in `source` when every
  // worker has ended are reported as not run (rank 0 says it itself once every rank has ended).
  void run(RaceSource& source, bool report_left, const std::vector<GpuSlot>& slots,
           const std::vector<SweepContext*>& groups, const DispatchWork& work, RowSink& sink,
           const std::function<void(const DispatchEvent&)>& on_event, std::atomic<bool>& stop);

  // After run(): worker i's context (tallies, its GPU) and its worker, for the stages after the
  // races; what each worker did; the races given up.
  [[nodiscard]] std::size_t size() const { return lanes_.size(); }
  [[nodiscard]] SweepContext& context(std::size_t i);
  [[nodiscard]] SweepWorker& worker(std::size_t i);
  [[nodiscard]] std::vector<WorkerStats> stats() const;
  [[nodiscard]] std::vector<std::string> failed_races() const;
  // Adds the workers' tallies and phase seconds to their groups' contexts.
  void add_tallies_to(const std::vector<SweepContext*>& groups) const;
  void stop();

 private:
  struct Lane;
  void drive(Lane& lane, RaceSource& queue, const std::vector<SweepContext*>& groups,
             const DispatchWork& work, const std::function<void(const DispatchEvent&)>& emit,
             std::atomic<bool>& stop, SweepClock::time_point t0);

  const SweepOptions& opt_;
  int rank_;
  std::string host_;
  std::vector<std::unique_ptr<Lane>> lanes_;
  mutable std::mutex mu_;  // events, failures, the first stopping error
  std::vector<std::string> failed_;
  std::exception_ptr error_;
};

// In the process that holds the database, after the races: each worker's races, busy and idle
// seconds added to its run's `run_gpus` row (idle[i] is stats[i]'s), holding `store_mu` (the
// StoreSink's mutex; null where the sink is not the store): the sweep's compile thread may still
// be linking compiles through the same connection (a clean-clone CI run failed so, 2026-12-03).
void record_worker_time(const std::vector<SweepContext*>& groups,
                        const std::vector<WorkerStats>& stats, const std::vector<double>& idle,
                        std::mutex* store_mu);

// Adds `from`'s tallies and phase seconds to `to`.
void add_tally(SweepContext& to, const SweepTally& tally, const PhaseSeconds& sec);

class HostDispatcher final : public Dispatcher {
 public:
  HostDispatcher(SweepContext& ctx, std::string host);
  [[nodiscard]] OpenedDevices open() override;
  void run(const std::vector<SweepContext*>& groups, const std::vector<GpuSlot>& gpus,
           const DispatchWork& work) override;
  void stop() override { lanes_.stop(); }
  [[nodiscard]] std::vector<std::string> failed_races() const override {
    return lanes_.failed_races();
  }

 private:
  SweepContext& ctx_;
  HostLanes lanes_;
};

// The seed of the race at (shape, M): races taken by whichever worker is free still draw the same
// inputs and orders wherever they run.
[[nodiscard]] std::uint64_t race_seed(const ShapeSpec& sh, int m);

}  // namespace r4::tune
