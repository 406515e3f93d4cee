// The two floors a sweep measures in the same run as its candidates (DESIGN.md "Measurement";
// docs/TUNER.md "Floors"), with the candidates' method: CUDA-graph replays, one launch per pool
// copy so every read comes from DRAM. Kernels: kernels/read_floor.cu (host side kernels/floors.hpp).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "kernels/floors.hpp"

namespace r4::measure {

struct FloorMeasurement {
  std::vector<double> samples_us;  // per launch, one per replay of the chosen variant
  std::string detail;              // what was timed, and the grid chosen
  kernels::ReadFloorGrid grid;     // the read floor's best grid (empty for the launch floor)
};

// r4_empty captured `launches` times in one graph, replayed `samples` times (after one untimed
// replay): microseconds per launch.
[[nodiscard]] FloorMeasurement measure_launch_floor(gpu::Context& ctx, gpu::Stream& stream,
                                                    gpu::Kernel& empty, int samples = 15,
                                                    int launches = 256);

// r4_read_floor over `pool` (independent copies of one (N, K) weight, >= the LLC factor x the
// last-level cache in all), one launch per copy per replay. Every grid of
// kernels::read_floor_grids is screened with `screen` replays; the one with the lowest median is
// then sampled `samples` times, interleaved with nothing else (it is a property of the device).
[[nodiscard]] FloorMeasurement measure_read_floor(gpu::Context& ctx, gpu::Stream& stream,
                                                  gpu::Kernel& read_floor,
                                                  std::span<const kernels::W4Weights> pool,
                                                  std::int64_t n, std::int64_t k, int samples = 15,
                                                  int screen = 3);
// The same over several floor kernels (kernels/read_floor.cu: r4_read_floor and
// r4_read_floor_fused stream the same bytes in a different order): every (kernel, grid) is
// screened and the fastest is sampled; `detail` names the kernel. The read floor is what the
// fastest way of streaming these bytes takes, so it is the minimum over the ways we have.
[[nodiscard]] FloorMeasurement measure_read_floor(gpu::Context& ctx, gpu::Stream& stream,
                                                  std::span<gpu::Kernel* const> read_floors,
                                                  std::span<const kernels::W4Weights> pool,
                                                  std::int64_t n, std::int64_t k, int samples = 15,
                                                  int screen = 3);

}  // namespace r4::measure
