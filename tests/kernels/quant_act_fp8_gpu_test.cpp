// quant_act_fp8 on the GPU (label `gpu`; skips without a device) against its CPU reference, bit
// for bit: every e4m3 byte and every row scale. Output poisoned first (0xAB bytes, NaN scales).
// Rows of several magnitudes, a zero row, rows with values far below their amax (e4m3 subnormals
// and flushes to zero) and one with ties of the rounding. The same launch geometry and argument
// order as quant_act (kernels/family.cpp launch_quant_act).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "kernels/family.hpp"
#include "kernels/host_half.hpp"
#include "kernels/reference.hpp"

namespace r4::kernels {
namespace {

TEST(QuantActFp8Gpu, BitExactAgainstTheReference) {
  auto be = gpu::make_cuda_backend();
  if (be->device_count() == 0) GTEST_SKIP() << be->status();
  auto ctx = be->open(0);
  auto stream = ctx->create_stream();
  const Shape s{1, 4096, 33};  // N unused
  std::mt19937 rng(17);
  std::normal_distribution<float> nd;
  std::vector<std::uint16_t> a(static_cast<std::size_t>(s.m * s.k));
  for (std::int64_t r = 0; r < s.m; ++r)
    for (std::int64_t c = 0; c < s.k; ++c) {
      float x = nd(rng) * std::ldexp(1.0F, static_cast<int>(r % 11) - 5);
      if (r == 3) x = 0;                                     // a zero row
      if (r == 5 && c % 3 == 0) x *= 1e-4F;                  // far below the row's amax
      if (r == 7) x = static_cast<float>(c % 17) * 0.0625F;  // exact values, rounding ties
      a[static_cast<std::size_t>(r * s.k + c)] = float_to_bf16(x);
    }
  std::vector<std::uint8_t> want_q(a.size());
  std::vector<float> want_sa(static_cast<std::size_t>(s.m));
  ref_quant_act_fp8(a, s.m, s.k, want_q, want_sa);

  const auto r = be->compile(quant_act_fp8_compile_request(ctx->info().arch));
  ASSERT_TRUE(r.ok) << r.log;
  auto mod = ctx->load(r.binary);
  gpu::DeviceBuffer da(*ctx, a.size() * 2), dq(*ctx, a.size()), dsa(*ctx, want_sa.size() * 4);
  ctx->copy_to_device(da.get(), a.data(), a.size() * 2);
  ctx->memset8(dq.get(), 0xAB, a.size(), *stream);
  ctx->memset8(dsa.get(), 0xFF, want_sa.size() * 4, *stream);  // NaN
  launch_quant_act(mod->kernel("quant_act_fp8"), s, da.get(), dq.get(), dsa.get(), *stream);
  stream->synchronize();
  std::vector<std::uint8_t> q(a.size());
  std::vector<float> sa(want_sa.size());
  ctx->copy_to_host(q.data(), dq.get(), q.size());
  ctx->copy_to_host(sa.data(), dsa.get(), sa.size() * 4);
  std::size_t bad = 0;
  for (std::size_t i = 0; i < q.size(); ++i)
    if (q[i] != want_q[i] && bad++ < 8)
      ADD_FAILURE() << "row " << i / static_cast<std::size_t>(s.k) << " col "
                    << i % static_cast<std::size_t>(s.k) << ": " << int(q[i]) << " want "
                    << int(want_q[i]);
  EXPECT_EQ(bad, 0u);
  for (std::size_t i = 0; i < sa.size(); ++i)
    EXPECT_EQ(std::memcmp(&sa[i], &want_sa[i], 4), 0) << "sa row " << i << ": " << sa[i];
}

}  // namespace
}  // namespace r4::kernels
