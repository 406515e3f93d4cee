// r4d_bench: times table configs launched through r4d (nvcc, ahead of time) against the SAME
// config compiled the tuner's way (NVRTC through kernels/family.hpp), in the same process, with
// the tuner's cold-weight method (kernels/timing.hpp: a pool of weight copies >= 4x L2, one
// launch per copy in a graph, median replay). The two are interleaved, `rounds` times each, and
// the median of the rounds is reported with the ratio r4d / tuner (target: within 3%).
//
// usage: r4d_bench [w4a16|w4a8|all] [rounds] [band limits, e.g. 16,64 (default: all)]
// (exits 0 with a note when there is no GPU)
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "kernels/family.hpp"
#include "kernels/timing.hpp"
#include "r4d/r4d.hpp"

namespace {

using r4::gpu::DeviceBuffer;
namespace rk = r4::kernels;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

struct Row {
  r4d::Dtype dtype;
  r4d_table_row row;
};

}  // namespace

int main(int argc, char** argv) {
  const std::string which = argc > 1 ? argv[1] : "all";
  const int rounds = argc > 2 ? std::max(1, std::atoi(argv[2])) : 3;
  std::vector<int> bands;
  if (argc > 3) {
    std::stringstream list(argv[3]);
    for (std::string item; std::getline(list, item, ',');) bands.push_back(std::atoi(item.c_str()));
  }
  auto backend = r4::gpu::make_cuda_backend();
  if (backend->device_count() == 0) {
    std::printf("r4d_bench: no CUDA device (%s); nothing timed\n", backend->status().c_str());
    return 0;
  }
  auto ctx = backend->open(0);
  const auto& info = ctx->info();
  auto stream = ctx->create_stream();
  const r4d::stream_t rs = r4d::stream_from_handle(stream->native());
  if (r4d::init(0) != r4d::Status::ok) {
    std::printf("r4d_bench: r4d::init failed\n");
    return 1;
  }
  std::printf("device %s (%s), L2 %lld MiB; tables %s\n", info.name.c_str(), info.arch.name.c_str(),
              static_cast<long long>(info.l2_bytes >> 20),
              std::string(r4d::table_info().header).c_str());
  std::printf("%-6s %6s %6s %3s  %-16s %10s %10s %7s\n", "dtype", "N", "K", "M", "config", "r4d_us",
              "nvrtc_us", "ratio");

  std::vector<Row> rows;
  for (r4d::Dtype d : {r4d::Dtype::w4a16, r4d::Dtype::w4a8})
    if (which == "all" || which == r4d::to_string(d))
      for (const auto& r : r4d::table(d))
        if (bands.empty() || std::find(bands.begin(), bands.end(), r.m_limit) != bands.end())
          rows.push_back({d, r});

  std::mt19937 rng(7);
  std::vector<double> ratios;
  for (const Row& row : rows) {
    const auto& r = row.row;
    const int m = std::min(r.m_limit, r4d::GEMM_W4_MAX_M);
    const bool a8 = row.dtype == r4d::Dtype::w4a8;
    const rk::KernelId id = a8 ? rk::KernelId::gemm_w4a8_nt : rk::KernelId::gemm_w4a16_nt;
    const rk::Config kc{r.wv, r.sk, r.mb, r.npw, r.nt};
    const rk::Shape shape{r.n, r.k, m};
    const auto wq_bytes = static_cast<std::size_t>(r.n) * r.k / 2;
    const auto wsz_bytes = static_cast<std::size_t>(r.n) * (r.k / 128) * 4;
    const int pool = rk::pool_size(rk::weight_bytes(r.n, r.k), info.l2_bytes, 4);

    // Pool: weights, activations and outputs per copy (random bytes; time does not depend on them,
    // but scales are kept finite: the high half of each scale dword is the -1032 constant).
    std::vector<std::uint32_t> hw(wq_bytes / 4), hs(wsz_bytes / 4);
    for (auto& v : hw) v = static_cast<std::uint32_t>(rng());
    for (auto& v : hs) v = 0xE4082000u;  // f16 scale 0.0078 low, -1032 high
    const std::size_t a_bytes = static_cast<std::size_t>(m) * r.k * (a8 ? 1 : 2);
    std::vector<std::uint8_t> ha(a_bytes, 0x11);
    std::vector<float> hsa(static_cast<std::size_t>(m), 0.01f);
    std::vector<DeviceBuffer> wq, wsz, a, c, sa;
    for (int i = 0; i < pool; ++i) {
      wq.emplace_back(*ctx, wq_bytes);
      wsz.emplace_back(*ctx, wsz_bytes);
      a.emplace_back(*ctx, a_bytes);
      c.emplace_back(*ctx, static_cast<std::size_t>(m) * r.n * 2);
      sa.emplace_back(*ctx, static_cast<std::size_t>(m) * 4);
      ctx->copy_to_device(wq.back().get(), hw.data(), wq_bytes);
      ctx->copy_to_device(wsz.back().get(), hs.data(), wsz_bytes);
      ctx->copy_to_device(a.back().get(), ha.data(), a_bytes);
      ctx->copy_to_device(sa.back().get(), hsa.data(), hsa.size() * 4);
    }
    // The tuner's way: NVRTC compile of the same source and defines, launched via family.hpp.
    const auto res = backend->compile(rk::compile_request(id, kc, info.arch));
    if (!res.ok) {
      std::printf("nvrtc compile failed for %s\n%s\n", rk::to_string(kc).c_str(), res.log.c_str());
      return 1;
    }
    auto mod = ctx->load(res.binary);
    auto& kern = mod->kernel(std::string(rk::name(id)));
    const std::size_t ws_bytes = std::max<std::size_t>(rk::workspace_bytes(id, kc, shape), 256);
    DeviceBuffer ws(*ctx, ws_bytes);
    ctx->memset8(ws.get(), 0, ws_bytes, *stream);
    stream->synchronize();

    bool failed = false;
    auto via_r4d = [&](int i) {
      const auto p = [&](const DeviceBuffer& b) { return reinterpret_cast<void*>(b.get()); };
      const auto st = a8 ? r4d::gemm_w4a8_nt(p(a[i]), p(sa[i]), p(wq[i]), p(wsz[i]), p(c[i]), m,
                                             r.k, r.n, r.wv, r.sk, r.mb, r.npw, r.nt, rs)
                         : r4d::gemm_w4a16_nt(p(a[i]), p(wq[i]), p(wsz[i]), p(c[i]), m, r.k, r.n,
                                              r.wv, r.sk, r.mb, r.npw, r.nt, rs);
      if (st != r4d::Status::ok) failed = true;
    };
    auto via_nvrtc = [&](int i) {
      const rk::W4Weights w{wq[i].get(), wsz[i].get()};
      if (a8)
        rk::launch_gemm_w4a8(kern, kc, info.arch, shape, a[i].get(), sa[i].get(), w, c[i].get(),
                             ws.get(), *stream);
      else
        rk::launch_gemm_w4a16(kern, kc, info.arch, shape, a[i].get(), w, c[i].get(), ws.get(),
                              *stream);
    };
    std::vector<double> t_r4d, t_rtc;
    // Rounds alternate which build goes first, so an order effect cancels out of the medians.
    for (int k = 0; k < rounds; ++k) {
      if (k % 2 == 0) {
        t_r4d.push_back(rk::time_graph(*ctx, *stream, pool, via_r4d).median_us);
        t_rtc.push_back(rk::time_graph(*ctx, *stream, pool, via_nvrtc).median_us);
      } else {
        t_rtc.push_back(rk::time_graph(*ctx, *stream, pool, via_nvrtc).median_us);
        t_r4d.push_back(rk::time_graph(*ctx, *stream, pool, via_r4d).median_us);
      }
    }
    if (failed) {
      std::printf("r4d refused %s\n", rk::to_string(kc).c_str());
      return 1;
    }
    const double x = median(t_r4d), y = median(t_rtc);
    ratios.push_back(x / y);
    std::printf("%-6s %6d %6d %3d  %-16s %10.2f %10.2f %7.3f\n",
                std::string(r4d::to_string(row.dtype)).c_str(), r.n, r.k, m,
                rk::to_string(kc).c_str(), x, y, x / y);
    std::fflush(stdout);
  }
  if (!ratios.empty()) {
    std::sort(ratios.begin(), ratios.end());
    std::printf("ratio r4d/nvrtc over %zu rows: min %.3f median %.3f max %.3f\n", ratios.size(),
                ratios.front(), ratios[ratios.size() / 2], ratios.back());
  }
  return 0;
}
