// The sweep's device stage: which worker times which race, and when. A Dispatcher owns the
// workers (one per GPU), opens their devices and runs the per-shape and per-race work it is given
// on them. Today's one implementation is the single-GPU loop (SingleGpuDispatcher): one worker,
// shapes in spec order, each shape's races in M order. Several GPUs of a host (one worker per
// GPU, races to the first free one) and MPI ranks are meant to be two more implementations of
// this interface (issue 15).
#pragma once

#include <functional>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "tuner/gpu/backend.hpp"
#include "tuner/tune/spec.hpp"
#include "tuner/tune/sweep_context.hpp"
#include "tuner/tune/sweep_worker.hpp"

namespace r4::tune {

// What the dispatcher runs on its workers.
struct DispatchWork {
  // On a worker before it times any race of `sh`: sets up the shape there (set_up_shape) and runs
  // the per-shape stages that precede its races.
  std::function<void(SweepWorker&, const ShapeSpec& sh)> on_shape;
  // The race at (sh, M) on a worker that has run on_shape for sh.
  std::function<void(SweepWorker&, const ShapeSpec& sh, int m)> race;
};

struct OpenedDevices {
  std::optional<gpu::DeviceInfo> device;  // the device the races are timed on; none: `error`
  std::string error;
};

class Dispatcher {
 public:
  virtual ~Dispatcher() = default;
  // Starts the workers; each opens its device and measures its streaming-read ceiling.
  [[nodiscard]] virtual OpenedDevices open() = 0;
  // Records each device's ceiling in the run, then runs every race of the spec through `work`
  // (on_shape first for each shape on each worker that takes it) and returns. A failure that is
  // not one race's own (the worker cannot open its device, a race cannot be set up, too many
  // faults) throws; the run is then left partial.
  virtual void run(const DispatchWork& work) = 0;
  // Runs `fn` on one of the workers (the post-race stages: the decode steps).
  virtual void on_one_worker(const std::function<void(SweepWorker&)>& fn) = 0;
  // Stops the workers (after the post-race stages, which may still use them).
  virtual void stop() = 0;
};

// The shape's `shape` request (its pool of cold copies) sent to `worker` now and after any
// restart; the time goes to ctx.sec.shapes.
void set_up_shape(SweepContext& ctx, SweepWorker& worker, const ShapeSpec& sh);

// One worker on one GPU (opt.device): shapes in spec order, each shape's races in M order.
class SingleGpuDispatcher final : public Dispatcher {
 public:
  explicit SingleGpuDispatcher(SweepContext& ctx);
  [[nodiscard]] OpenedDevices open() override;
  void run(const DispatchWork& work) override;
  void on_one_worker(const std::function<void(SweepWorker&)>& fn) override { fn(worker_); }
  void stop() override { worker_.stop(); }

 private:
  SweepContext& ctx_;
  SweepWorker worker_;
  nlohmann::json open_reply_;  // the device and its ceiling, as the worker measured them
};

}  // namespace r4::tune
