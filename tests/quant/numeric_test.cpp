// Scalar format conversions (quant/numeric.hpp). No fixtures: f16 is checked exhaustively
// against itself (every f16 round-trips) and against the compiler's _Float16 where it has one;
// e4m3 against its definition at the points that pin each field.
#include "quant/numeric.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

namespace r4::quant {
namespace {

TEST(Numeric, EveryF16RoundTrips) {
  for (std::uint32_t h = 0; h < 0x10000U; ++h) {
    const auto b = static_cast<std::uint16_t>(h);
    const float f = f16_bits_to_f32(b);
    if (std::isnan(f)) continue;
    EXPECT_EQ(f32_to_f16_bits(f), b) << std::hex << h;
  }
}

TEST(Numeric, F16RoundsToNearestEven) {
  EXPECT_EQ(f32_to_f16_bits(1.0F), 0x3C00);
  EXPECT_EQ(f32_to_f16_bits(-(1024.0F + 8.0F)), 0xE408);  // the layouts' scale high half
  EXPECT_EQ(f32_to_f16_bits(65504.0F), 0x7BFF);
  EXPECT_EQ(f32_to_f16_bits(65519.99F), 0x7BFF);
  EXPECT_EQ(f32_to_f16_bits(65520.0F), 0x7C00);         // tie at the top rounds to even = inf
  EXPECT_EQ(f32_to_f16_bits(1.0F + 0x1p-11F), 0x3C00);  // tie -> even
  EXPECT_EQ(f32_to_f16_bits(1.0F + 0x1p-11F + 0x1p-20F), 0x3C01);
  EXPECT_EQ(f32_to_f16_bits(0x1p-25F), 0x0000);  // half the smallest subnormal -> 0 (even)
  EXPECT_EQ(f32_to_f16_bits(0x1.8p-25F), 0x0001);
  EXPECT_EQ(f32_to_f16_bits(1e-12F), 0x0000);             // the quantiser's floor scale underflows
  EXPECT_EQ(f32_to_bf16_bits(1.0F + 0x1p-8F), 0x3F80);    // tie -> even
  EXPECT_EQ(f32_to_bf16_bits(1.0F + 0x1.8p-7F), 0x3F82);  // tie -> even (up)
  EXPECT_EQ(f32_to_bf16_bits(1.0F + 0x1.8p-8F), 0x3F81);
}

#if defined(__FLT16_MAX__) && defined(__GNUC__) && !defined(__clang__)
TEST(Numeric, F16MatchesCompilerFloat16) {
  std::mt19937 rng(3);
  std::uniform_int_distribution<std::uint32_t> bits;
  for (int i = 0; i < 2'000'000; ++i) {
    const float f = std::bit_cast<float>(bits(rng));
    if (std::isnan(f)) continue;
    const auto h = static_cast<_Float16>(f);
    EXPECT_EQ(f32_to_f16_bits(f), std::bit_cast<std::uint16_t>(h)) << f;
  }
}
#endif

TEST(Numeric, E4m3Fields) {
  EXPECT_EQ(e4m3_to_f32(0x00), 0.0F);
  EXPECT_EQ(e4m3_to_f32(0x01), 0x1p-9F);  // smallest subnormal
  EXPECT_EQ(e4m3_to_f32(0x08), 0x1p-6F);  // smallest normal
  EXPECT_EQ(e4m3_to_f32(0x38), 1.0F);
  EXPECT_EQ(e4m3_to_f32(0x7E), 448.0F);
  EXPECT_EQ(e4m3_to_f32(0xFE), -448.0F);
  EXPECT_TRUE(std::isnan(e4m3_to_f32(0x7F)));
  EXPECT_TRUE(std::isnan(e4m3_to_f32(0xFF)));
  EXPECT_EQ(e2m1_to_f32(0x7), 6.0F);
  EXPECT_EQ(e2m1_to_f32(0xB), -1.5F);
  EXPECT_EQ(e8m0_to_f32(127), 1.0F);
  EXPECT_EQ(e8m0_to_f32(0), 0x1p-127F);
}

// f32 -> e4m3 (round to nearest even, saturating) against a brute-force nearest search over all
// 254 finite codes: every code round-trips; midpoints between neighbours go to the even code;
// random values of every magnitude agree; beyond 448, inf -> +-448, NaN -> 0x7F.
std::uint8_t nearest_e4m3(float f) {
  const double v = f;
  int best = -1;
  double best_err = 0;
  for (int c = 0; c < 256; ++c) {
    const float e = e4m3_to_f32(static_cast<std::uint8_t>(c));
    if (std::isnan(e) || (std::signbit(e) != std::signbit(f))) continue;
    const double err = std::fabs(static_cast<double>(e) - v);
    if (best < 0 || err < best_err || (err == best_err && (c & 1) == 0 && (best & 1) == 1)) {
      best = c;
      best_err = err;
    }
  }
  return static_cast<std::uint8_t>(best);
}

TEST(Numeric, E4m3EncodeRoundTripsEveryCode) {
  for (int c = 0; c < 256; ++c) {
    const auto b = static_cast<std::uint8_t>(c);
    const float f = e4m3_to_f32(b);
    if (std::isnan(f)) continue;
    EXPECT_EQ(f32_to_e4m3_sat_bits(f), b) << c;
  }
}

TEST(Numeric, E4m3EncodeTiesToEvenAndSaturates) {
  for (int c = 0; c < 0x7E; ++c) {  // midpoint of c and c+1 (positive, finite)
    const double mid = (static_cast<double>(e4m3_to_f32(static_cast<std::uint8_t>(c))) +
                        e4m3_to_f32(static_cast<std::uint8_t>(c + 1))) / 2;
    const auto f = static_cast<float>(mid);  // exact: 5 significant bits
    ASSERT_EQ(static_cast<double>(f), mid);
    EXPECT_EQ(f32_to_e4m3_sat_bits(f), (c & 1) ? c + 1 : c) << c;
    EXPECT_EQ(f32_to_e4m3_sat_bits(-f), 0x80 | ((c & 1) ? c + 1 : c)) << c;
  }
  EXPECT_EQ(f32_to_e4m3_sat_bits(448.0F), 0x7E);
  EXPECT_EQ(f32_to_e4m3_sat_bits(463.9F), 0x7E);
  EXPECT_EQ(f32_to_e4m3_sat_bits(1e30F), 0x7E);
  EXPECT_EQ(f32_to_e4m3_sat_bits(-std::numeric_limits<float>::infinity()), 0xFE);
  EXPECT_EQ(f32_to_e4m3_sat_bits(std::numeric_limits<float>::quiet_NaN()), 0x7F);
  EXPECT_EQ(f32_to_e4m3_sat_bits(0x1p-10F), 0x00);        // half the smallest subnormal: even (0)
  EXPECT_EQ(f32_to_e4m3_sat_bits(0x1.000002p-10F), 0x01);  // just above it
  EXPECT_EQ(f32_to_e4m3_sat_bits(-0.0F), 0x80);
  EXPECT_EQ(f32_to_e4m3_sat_bits(0x1.fp-7F), 0x08);  // 7.75 * 2^-9 rounds up to the normal 2^-6
}

TEST(Numeric, E4m3EncodeMatchesNearestOnRandomValues) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> mant(1.0F, 2.0F);
  std::uniform_int_distribution<int> ex(-14, 9);
  for (int i = 0; i < 200000; ++i) {
    float f = std::ldexp(mant(rng), ex(rng));
    if (rng() & 1) f = -f;
    if (std::fabs(f) >= 448.0F) {
      EXPECT_EQ(f32_to_e4m3_sat_bits(f), f < 0 ? 0xFE : 0x7E) << f;
      continue;
    }
    ASSERT_EQ(f32_to_e4m3_sat_bits(f), nearest_e4m3(f)) << f;
  }
}

}  // namespace
}  // namespace r4::quant
