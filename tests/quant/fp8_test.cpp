// Block-fp8 dequantisation against the seed's _dequant_block_fp8 (seeds/000) on
// fixtures/fp8_block.safetensors: random e4m3 bytes [200, 300] (NaN codes excluded) and a 2 x 3
// scale_inv grid, so both the last block row and column are partial. Output bf16, bit for bit.
// (torch 1.13 has no float8 dtype; make_fixtures.py decodes e4m3 by its definition first.)
#include "quant/fp8.hpp"

#include <gtest/gtest.h>

#include "quant/numeric.hpp"
#include "tests/quant/fixture.hpp"

namespace r4::quant {
namespace {

TEST(Fp8, BlockDequantMatchesSeed) {
  const SafetensorsFile f(test::fixture_path("fp8_block.safetensors"));
  const auto w = test::values<std::uint8_t>(f.at("weight"));
  const auto s = test::values<float>(f.at("scale_inv"));
  const auto out = dequant_block_fp8(w, 200, 300, s, 2, 3);
  const auto want = test::values<std::uint16_t>(f.at("out"));
  ASSERT_EQ(out.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) ASSERT_EQ(f32_to_bf16_bits(out[i]), want[i]) << i;
}

TEST(Fp8, RejectsAScaleGridThatDoesNotCover) {
  const std::vector<std::uint8_t> w(200 * 300, 0x38);
  const std::vector<float> s(2 * 2, 1.0F);
  EXPECT_THROW((void)dequant_block_fp8(w, 200, 300, s, 2, 2), std::invalid_argument);
}

}  // namespace
}  // namespace r4::quant
