// GPU check (label `gpu`; skips without a device): a few configs of each kernel against the CPU
// reference on a small shape, outputs poisoned with NaN first. The full sweep over every config
// and the seed shapes is `r4kern --check` (kernels/tools/r4kern.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "kernels/family.hpp"
#include "kernels/host_half.hpp"
#include "kernels/reference.hpp"
#include "kernels/tolerance.hpp"
#include "quant/pack.hpp"

namespace r4::kernels {
namespace {

// Each config of `cfgs` that is valid for shape s, on w4a16 (f16 and bf16) and w4a8, against the
// CPU reference over NaN-poisoned outputs.
void check_configs(const Shape& s, std::initializer_list<Config> cfgs, unsigned seed) {
  auto be = gpu::make_cuda_backend();
  if (be->device_count() == 0) GTEST_SKIP() << be->status();
  auto ctx = be->open(0);
  auto stream = ctx->create_stream();
  const auto arch = ctx->info().arch;
  std::mt19937 rng(seed);
  std::vector<std::int8_t> q(static_cast<std::size_t>(s.n * s.k));
  for (auto& x : q) x = static_cast<std::int8_t>(static_cast<int>(rng() % 16) - 8);
  std::vector<float> sc(static_cast<std::size_t>(s.n * s.k / 128));
  for (auto& x : sc)
    x = half_to_float(float_to_half(0.01f + 0.001f * static_cast<float>(rng() % 16)));
  const auto p = quant::pack_sm80(q, sc, s.n, s.k, 128);
  std::normal_distribution<float> nd;
  std::vector<std::uint16_t> a16(static_cast<std::size_t>(s.m * s.k)), abf(a16.size());
  for (std::size_t i = 0; i < a16.size(); ++i) {
    const float x = nd(rng);
    a16[i] = float_to_half(x);
    abf[i] = float_to_bf16(x);
  }
  auto up = [&](const void* src, std::size_t bytes) {
    gpu::DeviceBuffer b(*ctx, bytes);
    ctx->copy_to_device(b.get(), src, bytes);
    return b;
  };
  auto wq = up(p.wq.data(), p.wq.size() * 4), wsz = up(p.wsz.data(), p.wsz.size() * 4);
  auto d16 = up(a16.data(), a16.size() * 2), dbf = up(abf.data(), abf.size() * 2);
  gpu::DeviceBuffer aq(*ctx, a16.size()), sa(*ctx, static_cast<std::size_t>(s.m) * 4);
  gpu::DeviceBuffer out(*ctx, static_cast<std::size_t>(s.m * s.n) * 2);
  gpu::DeviceBuffer ws(*ctx, 4u << 20);  // the balanced grid's 40 x 3 partial tiles at MB 3: 1.5 MB
  ctx->memset8(ws.get(), 0, 4u << 20, *stream);

  auto qa_bin = be->compile(compile_request(KernelId::quant_act, Config{}, arch));
  ASSERT_TRUE(qa_bin.ok) << qa_bin.log;
  auto qa_mod = ctx->load(qa_bin.binary);
  launch_quant_act(qa_mod->kernel("quant_act"), s, dbf.get(), aq.get(), sa.get(), ActOrder::natural,
                   *stream);
  // The same activations in the sm90a order, for that generation's w4a8 GEMM (act_order).
  gpu::DeviceBuffer aq_sm90a(*ctx, a16.size());
  launch_quant_act(qa_mod->kernel("quant_act"), s, dbf.get(), aq_sm90a.get(), sa.get(),
                   ActOrder::sm90a, *stream);
  stream->synchronize();
  std::vector<std::int8_t> haq(a16.size());
  std::vector<float> hsa(static_cast<std::size_t>(s.m));
  ctx->copy_to_host(haq.data(), aq.get(), haq.size());
  ctx->copy_to_host(hsa.data(), sa.get(), hsa.size() * 4);

  const auto mn = static_cast<std::size_t>(s.m * s.n);
  for (KernelId id : {KernelId::gemm_w4a16_nt, KernelId::gemm_w4a8_nt})
    for (bool bf : {false, true}) {
      if (id == KernelId::gemm_w4a8_nt && bf) continue;
      std::vector<double> ref(mn), nrm(mn);
      if (id == KernelId::gemm_w4a16_nt)
        ref_gemm_w4a16(bf ? abf : a16, bf, q, sc, s, {ref, nrm});
      else
        ref_gemm_w4a8(haq, hsa, q, sc, s, {ref, nrm});
      const auto tol = tolerance(id, bf, s.k);
      for (const Config c : cfgs) {
        if (!is_valid(id, c, arch, s)) continue;
        auto bin = be->compile(compile_request(id, c, arch, {bf, false}));
        ASSERT_TRUE(bin.ok) << bin.log;
        auto mod = ctx->load(bin.binary);
        ctx->memset8(out.get(), 0xFF, mn * 2, *stream);
        ASSERT_LE(workspace_bytes(id, c, s), 4u << 20) << to_string(c);
        const W4Weights w{wq.get(), wsz.get()};
        if (id == KernelId::gemm_w4a16_nt)
          launch_gemm_w4a16(mod->kernel(std::string(name(id))), c, arch, s,
                            bf ? dbf.get() : d16.get(), w, out.get(), ws.get(), *stream);
        else
          launch_gemm_w4a8(mod->kernel(std::string(name(id))), c, arch, s,
                           act_order(id, c) == ActOrder::sm90a ? aq_sm90a.get() : aq.get(),
                           sa.get(), w, out.get(), ws.get(), *stream);
        stream->synchronize();
        std::vector<std::uint16_t> h(mn);
        ctx->copy_to_host(h.data(), out.get(), mn * 2);
        for (std::size_t i = 0; i < mn; ++i) {
          const double err = std::fabs(static_cast<double>(bf16_to_float(h[i])) - ref[i]);
          ASSERT_LE(err, tol.rel * std::fabs(ref[i]) + tol.abs_coef * nrm[i])
              << name(id) << " " << to_string(c) << " bf16=" << bf << " at " << i;
        }
      }
    }
}

TEST(GpuCheck, SmallShapeMatchesCpuReference) {
  // K = 1152 is 18 blocks of 64: the ldg generation's unchecked main loop runs, then its checked
  // tail (kernels/nv/gemm_w4_ldg.h), whole (SK 1), on a 9-block split and on one that starts at
  // an odd block (SK 2), and not at all on 4- and 5-block splits (SK 4). The first generation, and
  // the sm90a and ldg ones where the device has them (is_valid filters).
  check_configs({64, 1152, 33},
                {Config{1, 1, 1, 1, 0}, Config{2, 2, 2, 2, 1}, Config{4, 4, 1, 1, 0},
                 Config{4, 1, 1, 1, 0, kGenSm90a, 4}, Config{4, 2, 2, 1, 1, kGenSm90a, 6},
                 Config{4, 1, 2, 1, 0, kGenSm90a, 8}, Config{2, 1, 1, 1, 0, kGenLdg, 2},
                 Config{2, 2, 1, 2, 0, kGenLdg, 2}, Config{4, 2, 2, 1, 1, kGenLdg, 4},
                 Config{2, 4, 1, 1, 0, kGenLdg, 2}},
                3);
}

// The sm90a balanced grid (SK = kSm90aBalanced, kernels/config.hpp balanced) on a shape with more
// N tiles than one wave: 11008 = 172 tiles of 64 rows, 132 whole-K blocks and 40 tiles split 3
// ways (K = 1280: 10 groups, splits of 3, 3 and 4), at odd M, one M tile per block
// (MB = ceil(M / 16)).
TEST(GpuCheck, BalancedGridMatchesCpuReference) {
  for (std::int64_t m : {1, 7, 33})
    check_configs({11008, 1280, m},
                  {Config{4, kSm90aBalanced, 1, 1, 1, kGenSm90a, 4},
                   Config{4, kSm90aBalanced, 1, 1, 0, kGenSm90a, 6},
                   Config{4, kSm90aBalanced, 3, 1, 1, kGenSm90a, 4}},
                  static_cast<unsigned>(m));
}

}  // namespace
}  // namespace r4::kernels
