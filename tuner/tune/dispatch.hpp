// The sweep's device stage: which worker times which race, and when. A Dispatcher owns the
// workers (one per GPU), opens their devices and runs the per-shape and per-race work it is given
// on them. Three implementations:
//   SingleGpuDispatcher  one worker on --device (the default): shapes in spec order, each
//                        shape's races in M order, or the compiled ones first while the compile
//                        stage still runs (this file);
//   HostDispatcher       --devices all|0,2,3: one worker per GPU of the host, each race to the
//                        first free worker, longest first (host_dispatch.hpp);
//   MpiDispatcher        under mpirun / srun: each rank drives its host's GPUs as the host
//                        dispatcher does, the races split over the ranks deterministically, and
//                        rank 0 writes every rank's rows (mpi_dispatch.hpp).
// The GPUs form device groups, one per GPU model; each group is timed as its own run (one group
// unless --allow-mixed).
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "db/store.hpp"
#include "tuner/gpu/backend.hpp"
#include "tuner/tune/spec.hpp"
#include "tuner/tune/sweep_context.hpp"
#include "tuner/tune/sweep_worker.hpp"

namespace r4::tune {

// What the dispatcher runs on its workers. Each call gets the context of the worker that runs
// it: the group's run, plan and resume state, and its own GPU (stamped on the rows it writes),
// ceiling, tallies and random stream.
struct DispatchWork {
  // The per-shape stages that precede its races (the shape is set up on the worker already):
  // once per shape and device group, on the worker that takes the shape's first race.
  std::function<void(SweepContext&, SweepWorker&, const ShapeSpec& sh)> on_shape;
  // The race at (sh, M) on a worker whose pool holds sh.
  std::function<void(SweepContext&, SweepWorker&, const ShapeSpec& sh, int m)> race;
  // The stages after every race of a device group (the group's winners are stored): once per
  // group, on one worker of the group in the process that holds the database, before the
  // workers stop. Optional.
  std::function<void(SweepContext&, SweepWorker&)> after_races;
};

// One GPU a sweep times on, as every process of the sweep sees it after open().
struct GpuSlot {
  int rank = 0;  // the MPI rank whose worker drives it (0 without MPI)
  std::string host;
  gpu::DeviceInfo info;       // info.index: its index on the host
  nlohmann::json open_reply;  // the worker's answer to `open` (device, streaming-read ceiling)
  std::size_t group = 0;      // its device group
  bool shared = false;        // another rank on the host times on the same GPU
  // Set by the driver once the runs exist (record_gpus): its `gpus` row and the ceiling its
  // rows are held against (a resumed run keeps the one it measured first).
  std::optional<db::Id> gpu_id;
  double ceiling_gbps = 0;
};

struct OpenedDevices {
  std::vector<GpuSlot> gpus;              // every rank's, in rank order
  std::vector<gpu::DeviceInfo> groups;    // group g's model (its first GPU)
  std::optional<gpu::DeviceInfo> device;  // the first group's model
  int exit_code = 0;                      // non-zero: `error` says why; nothing was timed
  std::string error;
};

class Dispatcher {
 public:
  virtual ~Dispatcher() = default;
  // Finds the GPUs, checks the choice (--devices, mixed models), starts the workers; each opens
  // its device and measures its streaming-read ceiling. Under MPI every rank calls it and gets
  // the same answer.
  [[nodiscard]] virtual OpenedDevices open() = 0;
  // Runs every race of every device group not yet stored (groups[g]: group g's context, with
  // its run, plan and resume state; gpus: open()'s, with the ids and ceilings record_gpus set),
  // then each group's after_races, and returns. A failure
  // that is not one race's own (too many faults, a worker that cannot open its device) throws;
  // the run is then left partial. Races that failed twice are left for --resume and listed in
  // failed_races().
  virtual void run(const std::vector<SweepContext*>& groups, const std::vector<GpuSlot>& gpus,
                   const DispatchWork& work) = 0;
  // Stops the workers.
  virtual void stop() = 0;
  // "N=.. K=.. M=..: why" for each race given up this invocation (the run is partial).
  [[nodiscard]] virtual std::vector<std::string> failed_races() const { return {}; }
};

// The shape's `shape` request (its pool of cold copies) sent to `worker` now and after any
// restart; the time goes to ctx.sec.shapes.
void set_up_shape(SweepContext& ctx, SweepWorker& worker, const ShapeSpec& sh);

// In the process that holds the database, once the group's run exists: a `gpus` row for each of
// the group's GPUs (slot.gpu_id), the run's `run_gpus` rows (rank, ceiling), the run's
// streaming_ceiling baseline (the first GPU's, kept from the first invocation on a --resume) and
// each slot's ceiling_gbps (group.ceiling_gbps is the first GPU's). `device_id`: the group's
// devices row.
void record_gpus(SweepContext& group, db::Id device_id, std::vector<GpuSlot>& gpus, std::size_t g);

// One worker on one GPU (opt.device): shapes in spec order, each shape's races in M order; while
// the compile stage runs beside the races, the next race is the set-up shape's next one whose
// configs are compiled, else the first such in that order.
class SingleGpuDispatcher final : public Dispatcher {
 public:
  SingleGpuDispatcher(SweepContext& ctx, std::string host);
  [[nodiscard]] OpenedDevices open() override;
  void run(const std::vector<SweepContext*>& groups, const std::vector<GpuSlot>& gpus,
           const DispatchWork& work) override;
  void stop() override { worker_.stop(); }

 private:
  SweepContext& ctx_;
  SweepWorker worker_;
  std::string host_;
};

}  // namespace r4::tune
