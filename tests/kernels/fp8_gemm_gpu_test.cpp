// GPU check of the fp8-activation GEMMs (label `gpu`; skips without a device or below sm_89):
// gemm_w4a8fp8_nt (int4 g128, sm80 layout) and gemm_mxfp4a8fp8_nt (MXFP4, mx_sm89 layout) on
// quant_act_fp8's output, against a CPU reference built from the UNPACKED weights and the
// kernel's own e4m3 activations (decoded with quant/numeric.hpp, not the kernels' code), outputs
// poisoned with NaN first, at odd M (1, 7, 33) and M = 64, every third row off zero mean, the
// tolerance of kernels/tolerance.hpp (its ratio is printed: the tensor core's fp8 accumulation is
// what it bounds). Then the same configs through the tuner's Verifier (GPU reference), and the
// deliberately broken kernels (R4_BROKEN_SCALE) must fail both.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>

#include "kernels/family.hpp"
#include "kernels/host_half.hpp"
#include "kernels/reference.hpp"
#include "kernels/tolerance.hpp"
#include "kernels/verify.hpp"
#include "quant/numeric.hpp"
#include "quant/pack.hpp"
#include "quant/pack_mx.hpp"

namespace r4::kernels {
namespace {

struct Weights {
  std::vector<double> w;  // [N, K] dequantised, exact in double
  quant::Packed packed;
};

Weights int4_weights(std::int64_t n, std::int64_t k, std::mt19937& rng) {
  std::vector<std::int8_t> q(static_cast<std::size_t>(n * k));
  for (auto& x : q) x = static_cast<std::int8_t>(static_cast<int>(rng() % 16) - 8);
  std::vector<float> sc(static_cast<std::size_t>(n * k / 128));
  for (auto& x : sc)
    x = half_to_float(float_to_half(0.01f + 0.001f * static_cast<float>(rng() % 16)));
  Weights out{std::vector<double>(q.size()), quant::pack_sm80(q, sc, n, k, 128)};
  for (std::int64_t r = 0; r < n; ++r)
    for (std::int64_t c = 0; c < k; ++c) {
      const auto i = static_cast<std::size_t>(r * k + c);
      out.w[i] = q[i] * static_cast<double>(sc[static_cast<std::size_t>(r * (k / 128) + c / 128)]);
    }
  return out;
}

Weights mx_weights(std::int64_t n, std::int64_t k, std::mt19937& rng) {
  std::vector<std::uint8_t> codes(static_cast<std::size_t>(n * k / 2)),
      e8(static_cast<std::size_t>(n * k / 32));
  for (auto& x : codes) x = static_cast<std::uint8_t>(rng());
  for (auto& x : e8) x = static_cast<std::uint8_t>(118 + rng() % 4);
  Weights out{std::vector<double>(static_cast<std::size_t>(n * k)),
              quant::pack_mx_sm89(codes, e8, n, k)};
  for (std::int64_t r = 0; r < n; ++r)
    for (std::int64_t c = 0; c < k; ++c) {
      const auto byte = codes[static_cast<std::size_t>((r * k + c) / 2)];
      const auto code = static_cast<std::uint8_t>((c % 2) ? byte >> 4 : byte & 15);
      out.w[static_cast<std::size_t>(r * k + c)] =
          static_cast<double>(quant::e2m1_to_f32(code)) *
          static_cast<double>(
              quant::e8m0_to_f32(e8[static_cast<std::size_t>(r * (k / 32) + c / 32)]));
    }
  return out;
}

TEST(Fp8GemmGpu, MatchesCpuReferenceAndBrokenKernelsFail) {
  auto be = gpu::make_cuda_backend();
  if (be->device_count() == 0) GTEST_SKIP() << be->status();
  auto ctx = be->open(0);
  auto stream = ctx->create_stream();
  const auto arch = ctx->info().arch;
  if (!has_fp8_mma(arch)) GTEST_SKIP() << arch.name << " has no fp8 mma.sync";
  const std::int64_t N = 256, K = 1024;
  std::mt19937 rng(11);
  auto qa_bin = be->compile(quant_act_fp8_compile_request(arch));
  ASSERT_TRUE(qa_bin.ok) << qa_bin.log;
  auto qa_mod = ctx->load(qa_bin.binary);
  gpu::DeviceBuffer ws(*ctx, 4u << 20);
  ctx->memset8(ws.get(), 0, 4u << 20, *stream);

  // ldg configs (both kernels) and sm90a ones (on 9.x; is_valid filters: gemm_mxfp4a8fp8_nt's
  // sm90a tuples hold fewer accumulator tiles, and with two consumer warpgroups at four tiles issue
  // a stage's wgmmas in two halves: R4G_PHALF). The sm90a generation's R4_BROKEN_SCALE exists for
  // MXFP4 only (each k32 step takes the other 32-K block's exponents): gemm_w4a8fp8_nt's sm90a
  // broken-kernel check is skipped.
  const Config cfgs[] = {
      {4, 1, 1, 1, 0, kGenLdg, 4},     {2, 4, 2, 2, 1, kGenLdg, 2},   {8, 2, 1, 1, 0, kGenLdg, 8},
      {4, 16, 1, 2, 0, kGenLdg, 2},    {4, 1, 1, 1, 0, kGenSm90a, 4}, {8, 2, 2, 2, 1, kGenSm90a, 6},
      {4, 1, 4, 1, 0, kGenSm90a, 8},   {8, 4, 4, 2, 0, kGenSm90a, 4}, {8, 2, 3, 1, 1, kGenSm90a, 4},
      {8, 132, 2, 1, 0, kGenSm90a, 4}, {4, 4, 2, 2, 0, kGenSm90a, 6}, {8, 2, 4, 1, 1, kGenSm90a, 4},
      {8, 132, 4, 1, 1, kGenSm90a, 4}, {8, 1, 2, 2, 0, kGenSm90a, 8}};
  const auto no_broken = [](KernelId id, const Config& c) {
    return c.gen == kGenSm90a && id != KernelId::gemm_mxfp4a8fp8_nt;
  };
  for (KernelId id : {KernelId::gemm_w4a8fp8_nt, KernelId::gemm_mxfp4a8fp8_nt}) {
    const Weights w =
        id == KernelId::gemm_w4a8fp8_nt ? int4_weights(N, K, rng) : mx_weights(N, K, rng);
    gpu::DeviceBuffer wq(*ctx, w.packed.wq.size() * 4), wsz(*ctx, w.packed.wsz.size() * 4);
    ctx->copy_to_device(wq.get(), w.packed.wq.data(), w.packed.wq.size() * 4);
    ctx->copy_to_device(wsz.get(), w.packed.wsz.data(), w.packed.wsz.size() * 4);
    const auto tol = tolerance(id, false, K);
    for (std::int64_t m : {1, 7, 33, 64}) {
      const Shape s{N, K, m};
      std::normal_distribution<float> nd;
      std::vector<std::uint16_t> abf(static_cast<std::size_t>(m * K));
      // Every third row off zero mean (+2): a kernel whose tensor-core partials carry a bias (a
      // weight zero point taken off after the wgmmas: session 43's R4G_ZSUM, 2.4-7.7x this
      // tolerance on such rows, 0.83 on zero-mean ones) fails here, not on zero-mean rows alone.
      for (std::size_t i = 0; i < abf.size(); ++i)
        abf[i] =
            float_to_bf16(nd(rng) + ((i / static_cast<std::size_t>(K)) % 3 == 1 ? 2.0F : 0.0F));
      gpu::DeviceBuffer a(*ctx, abf.size() * 2), aq(*ctx, abf.size()),
          sa(*ctx, static_cast<std::size_t>(m) * 4);
      gpu::DeviceBuffer out(*ctx, static_cast<std::size_t>(m * N) * 2);
      ctx->copy_to_device(a.get(), abf.data(), abf.size() * 2);
      launch_quant_act_fp8(qa_mod->kernel("quant_act_fp8"), s, a.get(), aq.get(), sa.get(),
                           ActOrder::natural, *stream);
      // The sm90a generation reads them in its own orders (act_order: sm90a_mx for MXFP4).
      gpu::DeviceBuffer aq_sm90a(*ctx, abf.size()), aq_mx(*ctx, abf.size());
      launch_quant_act_fp8(qa_mod->kernel("quant_act_fp8"), s, a.get(), aq_sm90a.get(), sa.get(),
                           ActOrder::sm90a, *stream);
      launch_quant_act_fp8(qa_mod->kernel("quant_act_fp8"), s, a.get(), aq_mx.get(), sa.get(),
                           ActOrder::sm90a_mx, *stream);
      const auto aq_for = [&](const Config& c) {
        const ActOrder o = act_order(id, c);
        return o == ActOrder::sm90a      ? aq_sm90a.get()
               : o == ActOrder::sm90a_mx ? aq_mx.get()
                                         : aq.get();
      };
      std::vector<std::uint8_t> haq(abf.size());
      std::vector<float> hsa(static_cast<std::size_t>(m));
      stream->synchronize();
      ctx->copy_to_host(haq.data(), aq.get(), haq.size());
      ctx->copy_to_host(hsa.data(), sa.get(), hsa.size() * 4);
      // The CPU reference in double from the kernel's own e4m3 activations.
      std::vector<double> ref(static_cast<std::size_t>(m * N)), nrm(ref.size());
      for (std::int64_t r = 0; r < m; ++r)
        for (std::int64_t c = 0; c < N; ++c) {
          double acc = 0, sq = 0;
          for (std::int64_t kk = 0; kk < K; ++kk) {
            const double t =
                static_cast<double>(quant::e4m3_to_f32(haq[static_cast<std::size_t>(r * K + kk)])) *
                hsa[static_cast<std::size_t>(r)] * w.w[static_cast<std::size_t>(c * K + kk)];
            acc += t;
            sq += t * t;
          }
          ref[static_cast<std::size_t>(r * N + c)] = acc;
          nrm[static_cast<std::size_t>(r * N + c)] = std::sqrt(sq);
        }
      for (const Config& c : cfgs)
        for (bool broken : {false, true}) {
          if (!is_valid(id, c, arch, s) || (broken && no_broken(id, c))) continue;
          CompileOptions o;
          o.broken_scale = broken;
          auto bin = be->compile(compile_request(id, c, arch, o));
          ASSERT_TRUE(bin.ok) << bin.log;
          auto mod = ctx->load(bin.binary);
          ctx->memset8(out.get(), 0xFF, static_cast<std::size_t>(m * N) * 2, *stream);
          launch_gemm_a8(id, mod->kernel(std::string(name(id))), c, arch, s, aq_for(c), sa.get(),
                         {wq.get(), wsz.get()}, out.get(), ws.get(), *stream);
          stream->synchronize();
          std::vector<std::uint16_t> h(static_cast<std::size_t>(m * N));
          ctx->copy_to_host(h.data(), out.get(), h.size() * 2);
          std::size_t bad = 0;
          double worst = 0;
          for (std::size_t i = 0; i < h.size(); ++i) {
            const double err = std::fabs(static_cast<double>(bf16_to_float(h[i])) - ref[i]);
            const double t = tol.rel * std::fabs(ref[i]) + tol.abs_coef * nrm[i];
            if (!(err <= t)) ++bad;
            if (err == err) worst = std::max(worst, err / t);
          }
          if (!broken) {
            EXPECT_EQ(bad, 0u) << name(id) << " " << to_string(c) << " M=" << m;
            std::printf("%s %s M=%lld: max err/tol %.3f\n", std::string(name(id)).c_str(),
                        to_string(c).c_str(), static_cast<long long>(m), worst);
          } else {
            EXPECT_GT(bad, 0u) << "the broken " << name(id) << " " << to_string(c) << " passed";
          }
        }
    }
  }

  // The tuner's verifier (GPU reference, its own random weights) on the same configs.
  Verifier v(*be, *ctx, *stream);
  v.set_shape(N, K, 5);
  for (KernelId id : {KernelId::gemm_w4a8fp8_nt, KernelId::gemm_mxfp4a8fp8_nt})
    for (const Config& c : cfgs)
      for (std::int64_t m : {1, 33})
        for (bool broken : {false, true}) {
          if (!is_valid(id, c, arch, {N, K, m}) || (broken && no_broken(id, c))) continue;
          CompileOptions o;
          o.broken_scale = broken;
          auto bin = be->compile(compile_request(id, c, arch, o));
          ASSERT_TRUE(bin.ok) << bin.log;
          auto mod = ctx->load(bin.binary);
          const auto r = v.check(id, mod->kernel(std::string(name(id))), c, m, 9);
          EXPECT_EQ(r.pass, !broken) << name(id) << " " << to_string(c) << " M=" << m
                                     << " broken=" << broken << ": " << r.detail;
          if (!broken)
            std::printf("verifier %s %s M=%lld: max ratio %.3f\n", std::string(name(id)).c_str(),
                        to_string(c).c_str(), static_cast<long long>(m), r.max_ratio);
        }
}

}  // namespace
}  // namespace r4::kernels
