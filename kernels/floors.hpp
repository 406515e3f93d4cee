// Host side of the floor kernels (kernels/read_floor.cu): their compile request, the grid sizes
// the read floor is the best of, and the launchers. The tuner measures both floors in every sweep
// (tuner/measure/floors.hpp) and chains the read floor in decode steps (tuner/measure/step_chain).
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/family.hpp"

namespace r4::kernels {

// read_floor.cu for `arch`: r4_empty and r4_read_floor.
[[nodiscard]] gpu::CompileRequest floor_compile_request(const gpu::Arch& arch);

struct ReadFloorGrid {
  unsigned blocks = 0;
  unsigned threads = 0;
};

// The grids the read floor is the best of: 1, 2, 4 and 8 blocks per multiprocessor, each of 256
// and 512 threads (../shared/bench/h200-floors-2026-11-30.md: grids 132..1056 x 256/512 on the
// H200). Never a literal SM count: the device's own.
[[nodiscard]] std::vector<ReadFloorGrid> read_floor_grids(const gpu::DeviceInfo& info);

// Bytes r4_read_floor streams for (N, K): the packed weight and its scale dwords, exactly what a
// GEMM of the family reads (weight_bytes).
[[nodiscard]] std::int64_t read_floor_bytes(std::int64_t n, std::int64_t k);

// r4_empty, one block of one thread.
void launch_empty(gpu::Kernel& k, gpu::Stream& s, const gpu::LaunchOptions& opt = {});

// r4_read_floor over one copy of (N, K)'s packed weight. `in` (>= 64 words, or 0) is read after
// the kernel's griddepcontrol.wait, `out` (>= grid.blocks words, or 0) written after it.
void launch_read_floor(gpu::Kernel& k, const ReadFloorGrid& grid, const W4Weights& w,
                       std::int64_t n, std::int64_t kdim, gpu::DevicePtr in, gpu::DevicePtr out,
                       gpu::Stream& s, const gpu::LaunchOptions& opt = {});

}  // namespace r4::kernels
