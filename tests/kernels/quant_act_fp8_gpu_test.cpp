// quant_act_fp8 and quant_act on the GPU (label `gpu`; skips without a device) against their CPU
// references, bit for bit: every output byte and every row scale. Output poisoned first (0xAB
// bytes, NaN scales). Rows of several magnitudes, a zero row, rows with values far below their amax
// (e4m3 subnormals and flushes to zero) and one with ties of the rounding. The same launch geometry
// and argument order as quant_act (kernels/family.cpp launch_quant_act). Every order: natural, and
// the sm90a generation's two (kernels/config.hpp act_order).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "kernels/family.hpp"
#include "kernels/host_half.hpp"
#include "kernels/nv/wgmma_layout_sm90a.h"
#include "kernels/reference.hpp"

namespace r4::kernels {
namespace {

// One (kernel, K) case: M = 33 rows as above. K = 8 (one vector), 4096, 5128 (a row that ends
// inside the last thread's vectors), 16384 (exactly the 256 x 8 vectors held in registers) and
// 20488 (past them: the loop for the remainder; kernels/quant_row.h).
// In ActOrder::sm90a (K a multiple of 128) each byte of the natural order moves to
// wgmma_layout::act_offset_8 (rows interleaved chunk-major: the runs the sm90a producer's bulk
// copies rely on), in ActOrder::sm90a_mx to act_offset_mx (both quantisers write either). M = 33 is
// no multiple of a tile's 16 rows.
void check_bit_exact(gpu::Backend& be, gpu::Context& ctx, gpu::Stream& stream, bool fp8,
                     std::int64_t k, ActOrder order) {
  SCOPED_TRACE(testing::Message() << (fp8 ? "quant_act_fp8" : "quant_act") << " K=" << k
                                  << " order=" << static_cast<int>(order));
  const Shape s{1, k, 33};  // N unused
  std::mt19937 rng(17 + static_cast<unsigned>(k));
  std::normal_distribution<float> nd;
  std::vector<std::uint16_t> a(static_cast<std::size_t>(s.m * s.k));
  for (std::int64_t r = 0; r < s.m; ++r)
    for (std::int64_t c = 0; c < s.k; ++c) {
      float x = nd(rng) * std::ldexp(1.0F, static_cast<int>(r % 11) - 5);
      if (r == 3) x = 0;                                     // a zero row
      if (r == 5 && c % 3 == 0) x *= 1e-4F;                  // far below the row's amax
      if (r == 7) x = static_cast<float>(c % 17) * 0.0625F;  // exact values, rounding ties
      if (r == 9 && c == s.k - 1) x = 1e4F;                  // the amax in the row's last element
      a[static_cast<std::size_t>(r * s.k + c)] = float_to_bf16(x);
    }
  std::vector<std::uint8_t> want_q(a.size());
  std::vector<std::int8_t> want_q8(a.size());
  std::vector<float> want_sa(static_cast<std::size_t>(s.m));
  if (fp8)
    ref_quant_act_fp8(a, s.m, s.k, want_q, want_sa);
  else
    ref_quant_act(a, s.m, s.k, want_q8, want_sa);
  if (!fp8) std::memcpy(want_q.data(), want_q8.data(), a.size());
  if (order != ActOrder::natural) {
    const auto natural = want_q;
    const auto at =
        order == ActOrder::sm90a ? wgmma_layout::act_offset_8 : wgmma_layout::act_offset_mx;
    for (std::int64_t r = 0; r < s.m; ++r)
      for (std::int64_t c = 0; c < s.k; ++c)
        want_q[static_cast<std::size_t>(
            at(static_cast<int>(r), static_cast<int>(c), static_cast<int>(s.m)))] =
            natural[static_cast<std::size_t>(r * s.k + c)];
  }
  const auto arch = ctx.info().arch;
  const auto r = be.compile(fp8 ? quant_act_fp8_compile_request(arch)
                                : compile_request(KernelId::quant_act, Config{}, arch));
  ASSERT_TRUE(r.ok) << r.log;
  auto mod = ctx.load(r.binary);
  gpu::DeviceBuffer da(ctx, a.size() * 2), dq(ctx, a.size()), dsa(ctx, want_sa.size() * 4);
  ctx.copy_to_device(da.get(), a.data(), a.size() * 2);
  ctx.memset8(dq.get(), 0xAB, a.size(), stream);
  ctx.memset8(dsa.get(), 0xFF, want_sa.size() * 4, stream);  // NaN
  launch_quant_act(mod->kernel(fp8 ? "quant_act_fp8" : "quant_act"), s, da.get(), dq.get(),
                   dsa.get(), order, stream);
  stream.synchronize();
  std::vector<std::uint8_t> q(a.size());
  std::vector<float> sa(want_sa.size());
  ctx.copy_to_host(q.data(), dq.get(), q.size());
  ctx.copy_to_host(sa.data(), dsa.get(), sa.size() * 4);
  std::size_t bad = 0;
  for (std::size_t i = 0; i < q.size(); ++i)
    if (q[i] != want_q[i] && bad++ < 8)
      ADD_FAILURE() << "byte " << i << " (row " << i / static_cast<std::size_t>(s.k)
                    << " col " << i % static_cast<std::size_t>(s.k) << " in natural order): "
                    << int(q[i]) << " want "
                    << int(want_q[i]);
  EXPECT_EQ(bad, 0u);
  for (std::size_t i = 0; i < sa.size(); ++i)
    EXPECT_EQ(std::memcmp(&sa[i], &want_sa[i], 4), 0) << "sa row " << i << ": " << sa[i];
}

// Every K above for one quantiser; skips without a device.
void check_every_k(bool fp8) {
  auto be = gpu::make_cuda_backend();
  if (be->device_count() == 0) GTEST_SKIP() << be->status();
  auto ctx = be->open(0);
  auto stream = ctx->create_stream();
  for (const std::int64_t k : {8, 4096, 5128, 16384, 20488})
    for (const ActOrder order : {ActOrder::natural, ActOrder::sm90a, ActOrder::sm90a_mx})
      if (order == ActOrder::natural || k % 128 == 0)
        check_bit_exact(*be, *ctx, *stream, fp8, k, order);
}

TEST(QuantActFp8Gpu, BitExactAgainstTheReference) {
  check_every_k(true);
}

// quant_act (int8) shares the row body (kernels/quant_row.h): the same cases.
TEST(QuantActGpu, BitExactAgainstTheReference) {
  check_every_k(false);
}

}  // namespace
}  // namespace r4::kernels
