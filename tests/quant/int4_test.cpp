// The int4 clip-search quantiser against the seed's own quantize()/dequantize()
// (seeds/000), run by fixtures/make_fixtures.py with torch 1.13 (AVX2 kernels) on the CPU:
//   int4_hash.safetensors    W = hash_weights(512, 2048, seed 1), group 128, 20 clip steps:
//                            q (two codes per byte, low nibble even k), scale, dequant[:16]
//   int4_special.safetensors W stored ([32, 512]: an all-zero group, groups too small for an f16
//                            scale, outliers, a constant group, a 6e4-sized group), the same
//                            outputs plus group 64 / 7 steps (the generic path).
//
// Ties: the seed keeps a later clip candidate only when its error is strictly smaller, so two
// candidates whose float32 errors differ only by summation rounding could go either way if the
// sums were ordered differently. We mirror torch's order (torch_sum_f32), so we expect zero
// mismatches; the test still allows < 1e-3 of groups to differ provided both choices' errors
// (recomputed the torch way) agree to 1e-6 relative, i.e. a genuine tie.
#include "quant/int4.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "quant/numeric.hpp"
#include "tests/quant/fixture.hpp"

namespace r4::quant {
namespace {

using test::fixture_path;
using test::values;

std::vector<std::int8_t> unpack_nibbles(const std::vector<std::uint8_t>& p) {
  std::vector<std::int8_t> q(p.size() * 2);
  for (std::size_t i = 0; i < p.size(); ++i) {
    q[2 * i] = static_cast<std::int8_t>(static_cast<int>((p[i] & 0xFU) ^ 8U) - 8);
    q[2 * i + 1] = static_cast<std::int8_t>(static_cast<int>((p[i] >> 4) ^ 8U) - 8);
  }
  return q;
}

// The seed's error for one (row, group) choice, computed the torch way.
float group_error(const float* w, const std::int8_t* q, float scale, int group) {
  const float s16 = round_f16(scale);
  std::vector<float> e2(static_cast<std::size_t>(group));
  for (int j = 0; j < group; ++j) {
    const float e = static_cast<float>(q[j]) * s16 - w[j];
    e2[static_cast<std::size_t>(j)] = e * e;
  }
  return torch_sum_f32(e2.data(), group);
}

struct Compare {
  std::int64_t groups = 0;
  std::int64_t mismatched = 0;
};

Compare compare(const std::vector<float>& w, std::int64_t n, std::int64_t k, int group,
                const Int4Quantized& got, const std::vector<std::int8_t>& want_q,
                const std::vector<float>& want_s) {
  Compare c;
  EXPECT_EQ(got.q.size(), want_q.size());
  EXPECT_EQ(got.scale.size(), want_s.size());
  for (std::int64_t r = 0; r < n; ++r)
    for (std::int64_t g = 0; g < k / group; ++g) {
      ++c.groups;
      const auto si = static_cast<std::size_t>(r * (k / group) + g);
      const auto qi = static_cast<std::size_t>(r * k + g * group);
      const bool same_s =
          std::bit_cast<std::uint32_t>(got.scale[si]) == std::bit_cast<std::uint32_t>(want_s[si]);
      const bool same_q = std::equal(got.q.begin() + static_cast<std::ptrdiff_t>(qi),
                                     got.q.begin() + static_cast<std::ptrdiff_t>(qi) + group,
                                     want_q.begin() + static_cast<std::ptrdiff_t>(qi));
      if (same_s && same_q) continue;
      ++c.mismatched;
      const float e_got = group_error(&w[qi], &got.q[qi], got.scale[si], group);
      const float e_want = group_error(&w[qi], &want_q[qi], want_s[si], group);
      EXPECT_NEAR(e_got, e_want, 1e-6 * std::max(e_got, e_want))
          << "row " << r << " group " << g << " differs from the seed and is not a tie";
    }
  return c;
}

TEST(Int4, HashInputMatchesSeed) {
  const SafetensorsFile f(fixture_path("int4_hash.safetensors"));
  const auto w = test::hash_weights(512, 2048, 1);
  const auto got = quantize_int4(w, 512, 2048, 128, 20);
  const auto want_q = unpack_nibbles(values<std::uint8_t>(f.at("q4")));
  const auto want_s = values<float>(f.at("scale"));
  const auto c = compare(w, 512, 2048, 128, got, want_q, want_s);
  EXPECT_LT(static_cast<double>(c.mismatched), 1e-3 * static_cast<double>(c.groups));
  RecordProperty("mismatched_groups", static_cast<int>(c.mismatched));
  std::printf("int4 hash fixture: %lld of %lld groups differ from the seed\n",
              static_cast<long long>(c.mismatched), static_cast<long long>(c.groups));

  // dequantize(): the first 16 rows, bf16, bit for bit.
  const auto deq = dequantize_int4(want_q, want_s, 512, 2048, 128);
  const auto want_d = values<std::uint16_t>(f.at("dequant"));
  ASSERT_EQ(want_d.size(), 16U * 2048U);
  for (std::size_t i = 0; i < want_d.size(); ++i)
    ASSERT_EQ(f32_to_bf16_bits(deq[i]), want_d[i]) << i;
}

TEST(Int4, SpecialInputsMatchSeed) {
  const SafetensorsFile f(fixture_path("int4_special.safetensors"));
  const auto w = values<float>(f.at("w"));
  const auto got = quantize_int4(w, 32, 512, 128, 20);
  const auto c =
      compare(w, 32, 512, 128, got, values<std::int8_t>(f.at("q")), values<float>(f.at("scale")));
  EXPECT_EQ(c.mismatched, 0);
  const auto got64 = quantize_int4(w, 32, 512, 64, 7);
  const auto c64 = compare(w, 32, 512, 64, got64, values<std::int8_t>(f.at("q_g64")),
                           values<float>(f.at("scale_g64")));
  EXPECT_EQ(c64.mismatched, 0);

  const auto deq =
      dequantize_int4(values<std::int8_t>(f.at("q")), values<float>(f.at("scale")), 32, 512, 128);
  const auto want_d = values<std::uint16_t>(f.at("dequant"));
  for (std::size_t i = 0; i < want_d.size(); ++i)
    ASSERT_EQ(f32_to_bf16_bits(deq[i]), want_d[i]) << i;
}

TEST(Int4, AllZeroGroupKeepsTheSeedsFloorScale) {
  const std::vector<float> w(256, 0.0F);
  const auto r = quantize_int4(w, 1, 256);
  EXPECT_EQ(r.scale[0], 1e-12F);
  for (auto q : r.q) EXPECT_EQ(q, 0);
  EXPECT_EQ(r.relative_rms(), 0.0);
}

TEST(Int4, RejectsBadShapesAndNonFinite) {
  std::vector<float> w(100, 1.0F);
  EXPECT_THROW((void)quantize_int4(w, 1, 100), std::invalid_argument);
  std::vector<float> v(128, 1.0F);
  v[3] = std::nanf("");
  EXPECT_THROW((void)quantize_int4(v, 1, 128), std::invalid_argument);
}

TEST(Int4, TorchSumOrderForOddSizes) {
  // n < 8 takes torch's scalar path, n = 8*4*16*k+r exercises the cascade levels and the tails.
  std::vector<float> x(5000);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = 1.0F + static_cast<float>(i % 7) * 1e-3F;
  for (std::int64_t n : {1, 3, 7, 8, 9, 31, 33, 128, 513, 2047, 5000}) {
    double exact = 0;
    for (std::int64_t i = 0; i < n; ++i) exact += x[static_cast<std::size_t>(i)];
    EXPECT_NEAR(torch_sum_f32(x.data(), n), exact, 1e-5 * exact) << n;
  }
}

}  // namespace
}  // namespace r4::quant
