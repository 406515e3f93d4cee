#include "tuner/measure/floors.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/core.h>

#include "tuner/measure/graph_timer.hpp"

namespace r4::measure {

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

// Each timed replay follows an untimed one that is still running when the timed one is enqueued,
// so the GPU never waits for the host to submit the timed graph (floors are sampled one at a
// time, from an idle GPU; the races enqueue many samples back to back instead). This was the
// first suspect for the sweep's 0.69 us launch floor against r4kern's 0.51 us on the same H200;
// it changed nothing measurable there. The cause was the worker's context after the streaming
// ceiling (tuner/worker/device_session.cpp `open`; docs/PERF.md, session 6). Kept: it costs one
// replay per sample and removes a dependence on the host's speed.
std::vector<double> sample(GraphTimer& t, int n) {
  std::vector<double> out;
  for (int i = 0; i < n; ++i) {
    t.launch_untimed();
    t.enqueue_timed();
    out.push_back(t.collect_us());
  }
  return out;
}

}  // namespace

FloorMeasurement measure_launch_floor(gpu::Context& ctx, gpu::Stream& stream, gpu::Kernel& empty,
                                      int samples, int launches) {
  GraphTimer t(ctx, stream, launches, [&](int, gpu::Stream& s) { kernels::launch_empty(empty, s); });
  t.warm_up(1);
  FloorMeasurement m;
  m.samples_us = sample(t, std::max(samples, 1));
  m.detail = fmt::format("empty kernel (1 block of 1 thread), {} launches per graph replay",
                         launches);
  return m;
}

FloorMeasurement measure_read_floor(gpu::Context& ctx, gpu::Stream& stream,
                                    gpu::Kernel& read_floor,
                                    std::span<const kernels::W4Weights> pool, std::int64_t n,
                                    std::int64_t k, int samples, int screen) {
  gpu::Kernel* const one[] = {&read_floor};
  return measure_read_floor(ctx, stream, one, pool, n, k, samples, screen);
}

FloorMeasurement measure_read_floor(gpu::Context& ctx, gpu::Stream& stream,
                                    std::span<gpu::Kernel* const> read_floors,
                                    std::span<const kernels::W4Weights> pool, std::int64_t n,
                                    std::int64_t k, int samples, int screen) {
  if (pool.empty()) throw std::invalid_argument("measure_read_floor: an empty pool");
  if (read_floors.empty()) throw std::invalid_argument("measure_read_floor: no floor kernel");
  const auto grids = kernels::read_floor_grids(ctx.info());
  const auto timer_for = [&](gpu::Kernel* kernel, const kernels::ReadFloorGrid& g) {
    return GraphTimer(ctx, stream, static_cast<int>(pool.size()),
                      [&, kernel, g](int i, gpu::Stream& s) {
                        kernels::launch_read_floor(*kernel, g, pool[static_cast<std::size_t>(i)],
                                                   n, k, 0, 0, s);
                      });
  };
  gpu::Kernel* best_kernel = nullptr;
  std::size_t best = 0;
  double best_us = 0;
  std::string tried;
  for (gpu::Kernel* kernel : read_floors) {
    tried += fmt::format("{}{}:", tried.empty() ? "" : "; ", kernel->name());
    for (std::size_t i = 0; i < grids.size(); ++i) {
      auto t = timer_for(kernel, grids[i]);
      t.warm_up(1);
      const double us = median(sample(t, std::max(screen, 1)));
      tried += fmt::format("{} {}x{} {:.2f}", i ? "," : "", grids[i].blocks, grids[i].threads, us);
      if (!best_kernel || us < best_us) {
        best_kernel = kernel;
        best = i;
        best_us = us;
      }
    }
  }
  auto t = timer_for(best_kernel, grids[best]);
  t.warm_up(1);
  FloorMeasurement m;
  m.samples_us = sample(t, std::max(samples, 1));
  m.grid = grids[best];
  m.detail = fmt::format(
      "{} bytes per launch, one launch per copy of a {}-copy pool; best grid {} blocks x {} "
      "threads of {} (screened, us: {})",
      kernels::read_floor_bytes(n, k), pool.size(), m.grid.blocks, m.grid.threads,
      best_kernel->name(), tried);
  return m;
}

}  // namespace r4::measure
