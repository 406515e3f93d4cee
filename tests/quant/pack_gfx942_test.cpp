// The gfx942 (MI300 MFMA) packer: the properties every layout owes (STYLE.md 9): unpack(pack(x))
// == x, the (n, k) -> (dword, nibble) map is a bijection, and the packer puts a lone code where
// the header (quant/layout/gfx942.h, which the kernels include) says. Plus the two MFMA views of
// one lane's dwords the header documents.
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "quant/layout/gfx942.h"
#include "quant/numeric.hpp"
#include "quant/pack.hpp"

namespace r4::quant {
namespace {

namespace g = r4::layout::gfx942;

TEST(PackGfx942, UnpackInvertsPack) {
  const std::int64_t n = 48;
  const std::int64_t k = 384;
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> code(-8, 7);
  std::uniform_real_distribution<float> sc(1e-4F, 3.0F);
  std::vector<std::int8_t> q(static_cast<std::size_t>(n * k));
  for (auto& c : q) c = static_cast<std::int8_t>(code(rng));
  std::vector<float> s(static_cast<std::size_t>(n * k / 128));
  for (auto& v : s) v = sc(rng);
  const auto p = pack(Layout::gfx942, q, s, n, k, 128);
  EXPECT_EQ(p.wq.size(), static_cast<std::size_t>(n * k / 8));
  std::vector<std::int8_t> q2(q.size());
  std::vector<float> s2(s.size());
  unpack(Layout::gfx942, p, n, k, 128, q2, s2);
  EXPECT_EQ(q, q2);
  for (std::size_t i = 0; i < s.size(); ++i) EXPECT_EQ(s2[i], round_f16(s[i]));
  for (auto d : p.wsz) EXPECT_EQ(d >> 16, 0xE408U);
}

TEST(PackGfx942, IndexMapIsABijectionAndWeightAtInvertsIt) {
  const std::int64_t n = 32;
  const std::int64_t k = 256;
  std::set<std::pair<long long, int>> seen;
  for (std::int64_t r = 0; r < n; ++r)
    for (std::int64_t c = 0; c < k; ++c) {
      const auto pos = g::weight_pos(r, c, k);
      ASSERT_GE(pos.dword, 0);
      ASSERT_LT(pos.dword, n * k / 8);
      ASSERT_TRUE(seen.insert({pos.dword, pos.shift / 4}).second) << r << "," << c;
      const auto back = g::weight_at(pos.dword, pos.shift / 4, k);
      ASSERT_EQ(back.n, r);
      ASSERT_EQ(back.k, c);
    }
  EXPECT_EQ(seen.size(), static_cast<std::size_t>(n * k));
}

TEST(PackGfx942, ALoneCodeLandsWhereTheHeaderSays) {
  const std::int64_t n = 32;
  const std::int64_t k = 256;
  std::vector<std::int8_t> q(static_cast<std::size_t>(n * k), 0);
  const std::vector<float> s(static_cast<std::size_t>(n * k / 128), 1.0F);
  for (auto [r, c] : {std::pair<std::int64_t, std::int64_t>{0, 0}, {5, 77}, {31, 255}, {17, 130}}) {
    std::fill(q.begin(), q.end(), 0);
    q[static_cast<std::size_t>(r * k + c)] = -3;
    const auto p = pack_gfx942(q, s, n, k, 128);
    const auto pos = g::weight_pos(r, c, k);
    for (std::size_t i = 0; i < p.wq.size(); ++i)
      EXPECT_EQ(p.wq[i], static_cast<long long>(i) == pos.dword ? (0xDU << pos.shift) : 0U) << i;
  }
}

TEST(PackGfx942, ALanesDwordsAreItsMfmaOperands) {
  // Lane 16q + r of (tile 1, block 2): its two dwords hold row 16 + r at the k the f16 and i8
  // MFMAs give that lane, in the orders the header states.
  const std::int64_t n = 32, k = 256;
  std::vector<std::int8_t> q(static_cast<std::size_t>(n * k));
  for (std::int64_t i = 0; i < n * k; ++i) q[static_cast<std::size_t>(i)] = static_cast<std::int8_t>(i % 16 - 8);
  const std::vector<float> s(static_cast<std::size_t>(n * k / 128), 1.0F);
  const auto p = pack_gfx942(q, s, n, k, 128);
  const auto code = [&](std::uint32_t d, int nib) {
    const int c = static_cast<int>((d >> (4 * nib)) & 0xFU);
    return c >= 8 ? c - 16 : c;
  };
  for (int lane = 0; lane < 64; ++lane) {
    const int qg = lane >> 4, r = lane & 15;
    const auto base = g::lane_dword(1, 2, k / 64, lane);
    const std::int64_t row = 16 + r;
    for (int s16 = 0; s16 < 4; ++s16)  // f16 step s16, half v: nibble 2v + (s16 & 1) of dword s16 / 2
      for (int v = 0; v < 4; ++v)
        EXPECT_EQ(code(p.wq[static_cast<std::size_t>(base + s16 / 2)], 2 * v + (s16 & 1)),
                  q[static_cast<std::size_t>(row * k + 128 + 16 * s16 + 4 * qg + v)]);
    for (int u = 0; u < 2; ++u)  // i8 step u, byte v: even nibbles then odd nibbles of dword u
      for (int v = 0; v < 8; ++v) {
        const int nib = v < 4 ? 2 * v : 2 * (v - 4) + 1;
        const std::int64_t kk = 128 + 32 * u + (v < 4 ? 4 * qg + v : 16 + 4 * qg + v - 4);
        EXPECT_EQ(code(p.wq[static_cast<std::size_t>(base + u)], nib), q[static_cast<std::size_t>(row * k + kk)]);
      }
  }
}

TEST(PackGfx942, RejectsShapesTheLayoutCannotHold) {
  const std::vector<std::int8_t> q(24 * 128, 0);
  const std::vector<float> s(24, 1.0F);
  EXPECT_THROW((void)pack(Layout::gfx942, q, s, 24, 128, 128), std::invalid_argument);  // N % 16
  const std::vector<std::int8_t> q2(16 * 192, 0);
  const std::vector<float> s2(16 * 3, 1.0F);
  EXPECT_THROW((void)pack(Layout::gfx942, q2, s2, 16, 192, 64), std::invalid_argument);  // group
  std::vector<std::int8_t> q3(16 * 128, 0);
  q3[5] = 9;
  const std::vector<float> s3(16, 1.0F);
  EXPECT_THROW((void)pack(Layout::gfx942, q3, s3, 16, 128, 128), std::invalid_argument);
  EXPECT_EQ(parse_layout("gfx942"), Layout::gfx942);
  EXPECT_EQ(to_string(Layout::gfx942), "gfx942");
}

}  // namespace
}  // namespace r4::quant
