// The streaming-read ceiling, measured on the device in the same run as the kernels it judges
// (DESIGN.md: report GB/s against a bandwidth ceiling measured on the same device, same run).
// A grid-stride kernel reads a buffer many times the last-level cache with 16-byte loads and
// writes one word per block; bytes read / time is the ceiling a weight-streaming GEMM can reach.
#pragma once

#include <cstdint>

#include "tuner/gpu/backend.hpp"

namespace r4::measure {

struct Ceiling {
  double gbps = 0;  // median over the samples
  double gbps_best = 0;
  std::int64_t bytes = 0;  // read per sample
  int samples = 0;
};

// Compiles the read kernel for the context's arch with `backend`.
[[nodiscard]] Ceiling measure_streaming_ceiling(gpu::Backend& backend, gpu::Context& ctx,
                                                std::int64_t bytes = 0, int samples = 15);

}  // namespace r4::measure
