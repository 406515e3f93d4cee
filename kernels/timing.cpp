#include "kernels/timing.hpp"

#include <algorithm>
#include <limits>

#include "tuner/measure/pool.hpp"

namespace r4::kernels {

int pool_size(std::int64_t bytes_per_copy, std::int64_t llc_bytes, int factor) {
  return measure::pool_copies(bytes_per_copy, llc_bytes, factor,
                              std::numeric_limits<std::int64_t>::max());
}

Timing time_graph(gpu::Context& ctx, gpu::Stream& s, int pool,
                  const std::function<void(int)>& launch, const TimingSpec& spec) {
  const int launches = std::max(pool, spec.min_launches);
  s.begin_capture();
  for (int i = 0; i < launches; ++i) launch(i % pool);
  auto graph = s.end_capture();
  auto e0 = ctx.create_event();
  auto e1 = ctx.create_event();
  for (int i = 0; i < spec.warmup; ++i) graph->launch(s);
  Timing t;
  for (int r = 0; r < spec.reps; ++r) {
    e0->record(s);
    graph->launch(s);
    e1->record(s);
    e1->synchronize();
    t.samples_us.push_back(1000.0 * e1->elapsed_ms_since(*e0) / launches);
  }
  std::vector<double> sorted = t.samples_us;
  std::sort(sorted.begin(), sorted.end());
  t.median_us = sorted[sorted.size() / 2];
  return t;
}

}  // namespace r4::kernels
