#include "kernels/reference.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "kernels/host_half.hpp"

namespace r4::kernels {
namespace {

TEST(Reference, GemmW4a16MatchesHandComputation) {
  const Shape s{16, 128, 2};
  std::vector<std::int8_t> q(16 * 128);
  std::vector<float> scale(16, 0.5f);
  std::vector<std::uint16_t> a(2 * 128);
  for (int k = 0; k < 128; ++k) {
    a[static_cast<std::size_t>(k)] = float_to_half(1.0f);
    a[static_cast<std::size_t>(128 + k)] = float_to_half(k % 2 ? -2.0f : 2.0f);
    for (int n = 0; n < 16; ++n)
      q[static_cast<std::size_t>(n * 128 + k)] = static_cast<std::int8_t>((n + k) % 16 - 8);
  }
  std::vector<double> c(32), nrm(32);
  ref_gemm_w4a16(a, false, q, scale, s, {c, nrm});
  for (int n = 0; n < 16; ++n) {
    double e0 = 0, e1 = 0;
    for (int k = 0; k < 128; ++k) {
      e0 += 0.5 * ((n + k) % 16 - 8);
      e1 += (k % 2 ? -2.0 : 2.0) * 0.5 * ((n + k) % 16 - 8);
    }
    EXPECT_DOUBLE_EQ(c[static_cast<std::size_t>(n)], e0);
    EXPECT_DOUBLE_EQ(c[static_cast<std::size_t>(16 + n)], e1);
  }
}

TEST(Reference, QuantActRoundsHalfToEvenAndHandlesZeroRows) {
  std::vector<std::uint16_t> a(2 * 8, float_to_bf16(0.0f));
  a[0] = float_to_bf16(127.0f);  // amax 127 -> inv 1
  a[1] = float_to_bf16(2.5f);    // ties to even: 2
  a[2] = float_to_bf16(3.5f);    // 4
  a[3] = float_to_bf16(-2.5f);   // -2
  std::vector<std::int8_t> q(16);
  std::vector<float> sa(2);
  ref_quant_act(a, 2, 8, q, sa);
  EXPECT_EQ(q[0], 127);
  EXPECT_EQ(q[1], 2);
  EXPECT_EQ(q[2], 4);
  EXPECT_EQ(q[3], -2);
  EXPECT_EQ(sa[0], 1.0f);
  EXPECT_EQ(sa[1], 0.0f);
  for (int i = 8; i < 16; ++i) EXPECT_EQ(q[static_cast<std::size_t>(i)], 0);
}

TEST(HostHalf, RoundTripsAndRoundsToNearestEven) {
  for (std::uint32_t h = 0; h < 0x7C00u; ++h)
    EXPECT_EQ(float_to_half(half_to_float(static_cast<std::uint16_t>(h))), h);
  EXPECT_EQ(float_to_half(1.0f + 1.0f / 2048.0f), float_to_half(1.0f));  // tie -> even
  EXPECT_EQ(float_to_bf16(1.0f + 1.0f / 256.0f), float_to_bf16(1.0f));
}

}  // namespace
}  // namespace r4::kernels
