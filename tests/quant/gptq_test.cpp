// AutoRound/GPTQ against the seed (seeds/002) on fixtures/gptq.safetensors: random qweight
// [K/8, N] = [32, 64], f16 scales [2, 64], symmetric qzeros and a copy with two words changed;
// the seed's process_weights_after_loading statements give the bad-word count (0 and 2) and the
// transposed qweight, its _exact_ref the bf16 product with e4m3 activations [4, 256].
#include "quant/gptq.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "quant/numeric.hpp"
#include "tests/quant/fixture.hpp"

namespace r4::quant {
namespace {

using test::values;

TEST(Gptq, SymmetryCheckAndTransposeMatchSeed) {
  const SafetensorsFile f(test::fixture_path("gptq.safetensors"));
  const auto qz = values<std::uint32_t>(f.at("qzeros"));
  const auto bad = values<std::uint32_t>(f.at("qzeros_bad"));
  EXPECT_EQ(count_asymmetric(qz), 0);
  EXPECT_NO_THROW(require_symmetric(qz));
  EXPECT_EQ(count_asymmetric(bad), 2);
  try {
    require_symmetric(bad);
    FAIL() << "no throw";
  } catch (const AsymmetricError& e) {
    EXPECT_NE(std::string(e.what()).find("2 of 16 qzeros words"), std::string::npos) << e.what();
  }
  const auto qt = transpose_qweight(values<std::uint32_t>(f.at("qweight")), 256, 64);
  EXPECT_EQ(qt, values<std::uint32_t>(f.at("qweight_t")));
}

TEST(Gptq, ExactRefMatchesSeed) {
  const SafetensorsFile f(test::fixture_path("gptq.safetensors"));
  const auto qt = values<std::uint32_t>(f.at("qweight_t"));
  const auto sc = values<std::uint16_t>(f.at("scales"));
  const auto got = gptq_exact_ref(values<std::uint8_t>(f.at("x_fp8")),
                                  values<float>(f.at("x_scale")), qt, sc, 4, 64, 256);
  const auto want = values<std::uint16_t>(f.at("ref"));
  ASSERT_EQ(got.size(), want.size());
  // Tolerance: the seed's fp32 matmul order (BLAS) and our double accumulation differ by at most
  // K * 2^-24 relative of sum |x w| (~1.5e-5 for K = 256), far below bf16's 2^-8, so the bf16
  // results agree except where the exact value sits on a bf16 rounding boundary: then one ulp.
  int one_ulp = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    const int d = std::abs(static_cast<int>(f32_to_bf16_bits(got[i])) - static_cast<int>(want[i]));
    EXPECT_LE(d, 1) << i;
    one_ulp += d;
  }
  EXPECT_LE(one_ulp, 4);
}

TEST(Gptq, UnpackedCodesAreTheNibbles) {
  std::vector<std::uint32_t> row(16, 0x76543210U);
  const auto c = unpack_gptq(row, 1, 128);
  for (int j = 0; j < 8; ++j) EXPECT_EQ(c[static_cast<std::size_t>(j)], j);
  const std::vector<std::uint16_t> s(1, f32_to_f16_bits(0.5F));
  const auto w = dequant_gptq(row, s, 1, 128);
  EXPECT_EQ(w[0], -4.0F);
  EXPECT_EQ(w[7], -0.5F);
  EXPECT_THROW((void)unpack_gptq(row, 1, 96), std::invalid_argument);
}

}  // namespace
}  // namespace r4::quant
