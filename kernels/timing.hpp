// Cold-weight timing, shared by the kernel sweep and the vendor baselines (DESIGN.md
// "Measurement"): a pool of independent weight copies several times the last-level cache, one
// launch per pool entry captured in a graph (launches back to back, entry i uses copy i), warm-up
// replays first, then `reps` timed replays; the result is the median replay time divided by the
// launches in it. Times are microseconds per launch.
#pragma once

#include <functional>
#include <vector>

#include "tuner/gpu/backend.hpp"

namespace r4::kernels {

struct TimingSpec {
  int warmup = 2;         // graph replays before timing
  int reps = 7;           // timed replays (median)
  int min_launches = 24;  // a graph holds at least this many launches (cycling the pool)
};

struct Timing {
  double median_us = 0;            // per launch
  std::vector<double> samples_us;  // per launch, one per replay
};

// Number of pool copies of `bytes_per_copy` needed to cover `factor` x `llc_bytes` (>= 2): the
// tuner's rule (tuner/measure/pool.hpp), without its memory cap.
[[nodiscard]] int pool_size(std::int64_t bytes_per_copy, std::int64_t llc_bytes, int factor = 4);

// `launch(i)` enqueues launch i (pool entry i % pool) on `s`.
[[nodiscard]] Timing time_graph(gpu::Context& ctx, gpu::Stream& s, int pool,
                                const std::function<void(int)>& launch,
                                const TimingSpec& spec = {});

}  // namespace r4::kernels
