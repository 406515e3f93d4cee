// The gfx12 packer against the seed's pack() (seeds/000) on fixtures/int4_special.safetensors
// (q and scale from the seed's quantize on the stored W, wq/wsz from the seed's pack, made by
// fixtures/make_fixtures.py): identical bits. Then the properties every layout owes
// (STYLE.md 9): unpack(pack(x)) == x, and the (n, k) -> (dword, nibble) map is a bijection.
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "quant/layout/gfx12.h"
#include "quant/numeric.hpp"
#include "quant/pack.hpp"
#include "tests/quant/fixture.hpp"

namespace r4::quant {
namespace {

using test::fixture_path;
using test::values;

TEST(PackGfx12, BitsMatchSeed) {
  const SafetensorsFile f(fixture_path("int4_special.safetensors"));
  const auto q = values<std::int8_t>(f.at("q"));
  const auto s = values<float>(f.at("scale"));
  const auto p = pack(Layout::gfx12, q, s, 32, 512, 128);
  EXPECT_EQ(p.wq, values<std::uint32_t>(f.at("wq")));
  EXPECT_EQ(p.wsz, values<std::uint32_t>(f.at("wsz")));
  EXPECT_EQ(p.wq.size(), 32U * 512U / 8U);
  EXPECT_EQ(p.wsz.size(), 32U * 4U);
}

TEST(PackGfx12, UnpackInvertsPack) {
  const std::int64_t n = 48;
  const std::int64_t k = 384;
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> code(-8, 7);
  std::uniform_real_distribution<float> sc(1e-4F, 3.0F);
  std::vector<std::int8_t> q(static_cast<std::size_t>(n * k));
  for (auto& c : q) c = static_cast<std::int8_t>(code(rng));
  std::vector<float> s(static_cast<std::size_t>(n * k / 128));
  for (auto& v : s) v = sc(rng);
  const auto p = pack(Layout::gfx12, q, s, n, k, 128);
  std::vector<std::int8_t> q2(q.size());
  std::vector<float> s2(s.size());
  unpack(Layout::gfx12, p, n, k, 128, q2, s2);
  EXPECT_EQ(q, q2);
  for (std::size_t i = 0; i < s.size(); ++i) EXPECT_EQ(s2[i], round_f16(s[i]));
  for (auto d : p.wsz) EXPECT_EQ(d >> 16, 0xE408U);
}

TEST(PackGfx12, IndexMapIsABijection) {
  namespace g = r4::layout::gfx12;
  const std::int64_t n = 32;
  const std::int64_t k = 256;
  std::set<std::pair<long long, int>> seen;
  for (std::int64_t r = 0; r < n; ++r)
    for (std::int64_t c = 0; c < k; ++c) {
      const auto d = g::wq_dword(r, c, k);
      ASSERT_GE(d, 0);
      ASSERT_LT(d, n * k / 8);
      ASSERT_TRUE(seen.insert({d, g::wq_nibble(c)}).second) << r << "," << c;
    }
  EXPECT_EQ(seen.size(), static_cast<std::size_t>(n * k));
  // and the packer puts a lone code exactly where the header says
  std::vector<std::int8_t> q(static_cast<std::size_t>(n * k), 0);
  const std::vector<float> s(static_cast<std::size_t>(n * k / 128), 1.0F);
  for (auto [r, c] : {std::pair<std::int64_t, std::int64_t>{0, 0}, {5, 77}, {31, 255}, {17, 130}}) {
    std::fill(q.begin(), q.end(), 0);
    q[static_cast<std::size_t>(r * k + c)] = -3;
    const auto p = pack_gfx12(q, s, n, k, 128);
    for (std::size_t i = 0; i < p.wq.size(); ++i) {
      const bool here = static_cast<long long>(i) == g::wq_dword(r, c, k);
      EXPECT_EQ(p.wq[i], here ? (0xDU << (4 * g::wq_nibble(c))) : 0U) << i;
    }
  }
}

TEST(PackGfx12, RejectsShapesTheLayoutCannotHold) {
  const std::vector<std::int8_t> q(24 * 128, 0);
  const std::vector<float> s(24, 1.0F);
  EXPECT_THROW((void)pack(Layout::gfx12, q, s, 24, 128, 128), std::invalid_argument);  // N % 16
  const std::vector<std::int8_t> q2(16 * 96, 0);
  const std::vector<float> s2(16 * 3, 1.0F);
  EXPECT_THROW((void)pack(Layout::gfx12, q2, s2, 16, 96, 32), std::invalid_argument);  // K % 64
  std::vector<std::int8_t> q3(16 * 128, 0);
  q3[5] = 9;
  const std::vector<float> s3(16, 1.0F);
  EXPECT_THROW((void)pack(Layout::gfx12, q3, s3, 16, 128, 128), std::invalid_argument);
}

TEST(PackGfx12, LayoutNames) {
  EXPECT_EQ(parse_layout("gfx12"), Layout::gfx12);
  EXPECT_EQ(parse_layout("sm80"), Layout::sm80);
  EXPECT_FALSE(parse_layout("gfx11").has_value());
  EXPECT_EQ(to_string(Layout::gfx12), "gfx12");
}

}  // namespace
}  // namespace r4::quant
