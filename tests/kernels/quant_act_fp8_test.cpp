// The fp8 activation quantiser (kernels/quant_act_fp8.cu, issue 13) without a GPU: its CPU
// reference on hand-made rows, and the kernel compiled for every target it is meant for
// (NVRTC: sm_80's integer path, sm_89 / sm_90's cvt.rn.satfinite.e4m3x2; clang-19: gfx1201,
// gfx942), no errors, no spills. Bit-exactness of kernel against reference needs a GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "kernels/family.hpp"
#include "kernels/host_half.hpp"
#include "kernels/reference.hpp"
#include "quant/numeric.hpp"
#include "tuner/gpu/backend.hpp"
#include "tuner/gpu/clang_hip.hpp"

namespace r4::kernels {
namespace {

// quant_act_fp8 for `arch` compiles, reports its resources, and nothing spills.
void expect_compiles(gpu::Backend& be, const char* arch) {
  const auto r = be.compile(quant_act_fp8_compile_request(gpu::Arch::from(arch)));
  ASSERT_TRUE(r.ok) << arch << ":\n" << r.log;
  ASSERT_FALSE(r.resources.empty()) << arch;
  for (const auto& [name, res] : r.resources) EXPECT_FALSE(res.spills()) << arch << " " << name;
}

TEST(QuantActFp8, ReferenceScalesEachRowToPlusMinus448) {
  const std::int64_t m = 3, k = 8;
  std::vector<float> rows = {0,     0,      0,     0, 0,  0, 0,     0,      // a zero row
                             1,     -2,     0.5F,  4, -4, 3, 0.25F, 2,      // amax 4
                             1e-3F, -1e-3F, 2e-3F, 0, 0,  0, 0,     0.5F};  // amax 0.5
  std::vector<std::uint16_t> a;
  for (float f : rows) a.push_back(float_to_bf16(f));
  std::vector<std::uint8_t> q(static_cast<std::size_t>(m * k));
  std::vector<float> sa(static_cast<std::size_t>(m));
  ref_quant_act_fp8(a, m, k, q, sa);
  EXPECT_EQ(sa[0], 0.0F);
  for (int c = 0; c < k; ++c) EXPECT_EQ(q[static_cast<std::size_t>(c)], 0);
  EXPECT_EQ(sa[1], bf16_to_float(a[11]) / 448.0F);
  EXPECT_EQ(q[8 + 3], 0x7E);  // +amax -> +448
  EXPECT_EQ(q[8 + 4], 0xFE);  // -amax -> -448
  EXPECT_EQ(q[8 + 0], 0x6E);  // 1 * 112 = 112 = 1.75 * 2^6: exponent 13, mantissa 110
  // Every element decodes to within half an e4m3 step (2^-4 relative, or 2^-10 absolute below
  // 2^-6) of a / sa.
  for (std::int64_t r = 1; r < m; ++r)
    for (std::int64_t c = 0; c < k; ++c) {
      const auto i = static_cast<std::size_t>(r * k + c);
      const float want = bf16_to_float(a[i]) / sa[static_cast<std::size_t>(r)];
      const float got = quant::e4m3_to_f32(q[i]);
      EXPECT_LE(std::fabs(got - want), std::max(std::fabs(want) * 0x1p-4F, 0x1p-10F))
          << r << "," << c;
    }
}

TEST(QuantActFp8, CompilesForNvidiaWithoutSpills) {
  auto be = gpu::make_cuda_backend();
  try {
    (void)be->compiler_version();
  } catch (const gpu::Error& e) {
    GTEST_SKIP() << "NVRTC not available: " << e.what();
  }
  for (const char* a : {"sm_80", "sm_89", "sm_90"}) expect_compiles(*be, a);
}

TEST(QuantActFp8, CompilesForAmdWithClang19WithoutSpills) {
  auto be = gpu::make_clang_hip_backend(nullptr);
  for (const char* a : {"gfx1201", "gfx942"}) expect_compiles(*be, a);
}

}  // namespace
}  // namespace r4::kernels
