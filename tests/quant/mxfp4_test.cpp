// FP4 against the seed's functions (seeds/003), fixtures made by fixtures/make_fixtures.py:
//   nvfp4.safetensors      random NVFP4 packed [64, 256] bytes, e4m3 scales [64, 32], one global
//                          divisor: the seed's unpack_e2m1 (8 rows), dequant_nvfp4, and
//                          requant_rows(.., "mse") -> packed, e8m0, relative RMS;
//   mxfp4_hash.safetensors W = hash_weights(64, 1024, seed 2, shift 17) with blocks whose amax
//                          sits a few ulps either side of 6*2^j and 4*2^j (where float32 log2
//                          rounding decides the exponent), an all-zero and an all-minus-zero
//                          block; quant_mxfp4 under mse / ocp / noclip and dequant_mxfp4.
// Codes and scales must be identical; the total squared error agrees to float summation order.
#include "quant/mxfp4.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "tests/quant/fixture.hpp"

namespace r4::quant {
namespace {

using test::values;

TEST(Mxfp4, NvfpDequantAndRequantMatchSeed) {
  const SafetensorsFile f(test::fixture_path("nvfp4.safetensors"));
  const auto pk = values<std::uint8_t>(f.at("packed_nv"));
  const auto sc = values<std::uint8_t>(f.at("scale_nv"));
  const float gdiv = values<float>(f.at("global_divisor"))[0];

  const auto un = unpack_e2m1(std::span(pk).first(8 * 256), 8, 512);
  EXPECT_EQ(un, values<float>(f.at("unpacked")));

  const auto w = dequant_nvfp4(pk, sc, gdiv, 64, 512);
  EXPECT_EQ(w, values<float>(f.at("w")));

  const auto q = quant_mxfp4(w, 64, 512, ExpRule::mse);
  EXPECT_EQ(q.packed, values<std::uint8_t>(f.at("packed_mse")));
  EXPECT_EQ(q.e8m0, values<std::uint8_t>(f.at("e8m0_mse")));
  EXPECT_NEAR(q.relative_rms(), values<float>(f.at("rel_mse"))[0], 1e-6);
}

TEST(Mxfp4, QuantiserMatchesSeedUnderEveryRule) {
  const SafetensorsFile f(test::fixture_path("mxfp4_hash.safetensors"));
  const auto w = values<float>(f.at("w"));
  for (const auto* mode : {"mse", "ocp", "noclip"}) {
    const auto rule = *parse_exp_rule(mode);
    const auto q = quant_mxfp4(w, 64, 1024, rule);
    const std::string m = mode;
    EXPECT_EQ(q.packed, values<std::uint8_t>(f.at("packed_" + m))) << m;
    EXPECT_EQ(q.e8m0, values<std::uint8_t>(f.at("e8m0_" + m))) << m;
    // err.sum(): torch's full reduction order differs from our per-row double sum; 1e-5 relative
    // covers float32 accumulation over 2048 blocks.
    const double want = values<float>(f.at("err_" + m))[0];
    EXPECT_NEAR(q.sq_error, want, 1e-5 * want) << m;
    const auto d = dequant_mxfp4(q.packed, q.e8m0, 64, 1024);
    const auto want_d = values<float>(f.at("dequant_" + m));
    EXPECT_TRUE(std::equal(want_d.begin(), want_d.end(), d.begin())) << m;
  }
}

TEST(Mxfp4, CodeRoundingIsTiesToEven) {
  EXPECT_EQ(e2m1_index(0.25F), 0);  // tie between 0 and 0.5 -> even index 0
  EXPECT_EQ(e2m1_index(0.75F), 2);  // tie between 0.5 (1) and 1.0 (2) -> 2
  EXPECT_EQ(e2m1_index(1.25F), 2);  // tie between 1.0 (2) and 1.5 (3) -> 2
  EXPECT_EQ(e2m1_index(2.5F), 4);   // tie between 2 (4) and 3 (5) -> 4
  EXPECT_EQ(e2m1_index(3.5F), 6);   // tie between 3 (5) and 4 (6) -> 6
  EXPECT_EQ(e2m1_index(5.0F), 6);   // tie between 4 (6) and 6 (7) -> 6
  EXPECT_EQ(e2m1_index(100.0F), 7);
  EXPECT_EQ(block_exponent(6.0F, ExpRule::noclip), 0.0F);
  EXPECT_EQ(block_exponent(6.0F, ExpRule::ocp), 0.0F);
  EXPECT_EQ(block_exponent(0.0F, ExpRule::ocp), 0.0F);
  EXPECT_FALSE(parse_exp_rule("max").has_value());
}

}  // namespace
}  // namespace r4::quant
