#include "kernels/floors.hpp"

#include <stdexcept>

namespace r4::kernels {

std::vector<ReadFloorGrid> read_floor_grids(const gpu::DeviceInfo& info) {
  if (info.multiprocessors <= 0)
    throw std::invalid_argument("read_floor_grids: the device reports no multiprocessors");
  std::vector<ReadFloorGrid> out;
  for (unsigned per_sm : {1u, 2u, 4u, 8u})
    for (unsigned threads : {256u, 512u})
      out.push_back({static_cast<unsigned>(info.multiprocessors) * per_sm, threads});
  return out;
}

std::int64_t read_floor_bytes(std::int64_t n, std::int64_t k) {
  return weight_bytes(n, k);
}

void launch_empty(gpu::Kernel& k, gpu::Stream& s, const gpu::LaunchOptions& opt) {
  k.launch_with({1, 1, 1}, {1, 1, 1}, 0, s, nullptr, opt);
}

void launch_read_floor(gpu::Kernel& k, const ReadFloorGrid& grid, const W4Weights& w,
                       std::int64_t n, std::int64_t kdim, gpu::DevicePtr in, gpu::DevicePtr out,
                       gpu::Stream& s, const gpu::LaunchOptions& opt) {
  gpu::DevicePtr wq = w.wq, wsz = w.wsz;
  auto nq16 = static_cast<long long>(n * kdim / 2 / 16);
  auto ns16 = static_cast<long long>(n * kdim / kGroup * 4 / 16);
  void* args[] = {&wq, &nq16, &wsz, &ns16, &in, &out};
  k.launch_with({grid.blocks, 1, 1}, {grid.threads, 1, 1}, 0, s, args, opt);
}

}  // namespace r4::kernels
