// Property tests of the mx_sm89 layout (quant/layout/mx_sm89.h) and its packer: the index maps
// are bijections, unpack(pack(x)) == x, every k32 MMA step stays inside one 32-K scale block, and
// the documented fragment positions hold.
#include <gtest/gtest.h>

#include <random>
#include <set>
#include <vector>

#include "quant/layout/mx_sm89.h"
#include "quant/pack_mx.hpp"

namespace r4::quant {
namespace {

namespace lay = r4::layout::mx_sm89;

TEST(MxSm89Layout, WeightIndexMapIsABijection) {
  const long long n = 48, k = 256;
  std::vector<int> hits(static_cast<std::size_t>(n * k), 0);
  for (long long r = 0; r < n; ++r)
    for (long long c = 0; c < k; ++c) {
      const auto p = lay::weight_pos(r, c, k);
      ASSERT_EQ(p.shift % 4, 0);
      ASSERT_LT(p.dword, n * k / 8);
      ++hits[static_cast<std::size_t>(p.dword * 8 + p.shift / 4)];
      const auto back = lay::weight_at(p.dword, p.shift / 4, k);
      EXPECT_EQ(back.n, r);
      EXPECT_EQ(back.k, c);
    }
  for (int h : hits) EXPECT_EQ(h, 1);
}

TEST(MxSm89Layout, ScaleIndexMapIsABijection) {
  const long long n = 32, k = 384;
  std::vector<int> hits(static_cast<std::size_t>(n * k / 32), 0);
  for (long long r = 0; r < n; ++r)
    for (long long b = 0; b < k / 32; ++b) ++hits[static_cast<std::size_t>(lay::scale_pos(r, b, k))];
  for (int h : hits) EXPECT_EQ(h, 1);
}

// A k32 MMA step of a lane reads dwords 2s' and 2s'+1 of its 16 bytes; across the warp's 32 lanes
// those must hold exactly the 32 K of one scale block, for both rows of every lane.
TEST(MxSm89Layout, EachMmaStepCoversOneScaleBlock) {
  const long long K = 128;
  for (int step = 0; step < 2; ++step) {
    std::set<long long> ks_g, ks_g8;
    for (int lane = 0; lane < 32; ++lane)
      for (int h = 0; h < 2; ++h)
        for (int nib = 0; nib < 8; ++nib) {
          const long long dword = (0LL * 32 + lane) * 4 + 2 * step + h;
          const auto rc = lay::weight_at(dword, nib, K);
          EXPECT_EQ(rc.k / 32, step);
          EXPECT_EQ(rc.n % 16, (lane >> 2) + 8 * (nib & 1));
          (nib & 1 ? ks_g8 : ks_g).insert(rc.k);
        }
    EXPECT_EQ(ks_g.size(), 32U);
    EXPECT_EQ(ks_g8.size(), 32U);
  }
}

TEST(MxSm89Layout, DocumentedPositions) {
  // row 11 = g 3 + 8, k = 64 + 32 + 8*2 + 4 + 3: block 1, step 1, t 2, h 1, j 3.
  const auto p = lay::weight_pos(11, 64 + 32 + 16 + 4 + 3, 128);
  EXPECT_EQ(p.dword, ((0 * 2 + 1) * 32 + (4 * 3 + 2)) * 4 + 3);
  EXPECT_EQ(p.shift, 8 * 3 + 4);
  // row 11, 32-K block 3 (block 1, step 1): byte 32 + 4*3 + 2 + 1.
  EXPECT_EQ(lay::scale_pos(11, 3, 128), 32 + 12 + 2 + 1);
}

TEST(PackMxSm89, UnpackInvertsPack) {
  const std::int64_t n = 48, k = 320;
  std::mt19937 rng(11);
  std::vector<std::uint8_t> codes(static_cast<std::size_t>(n * k / 2)), e(static_cast<std::size_t>(n * k / 32));
  for (auto& c : codes) c = static_cast<std::uint8_t>(rng());
  for (auto& x : e) x = static_cast<std::uint8_t>(rng() % 241);
  const auto p = pack_mx_sm89(codes, e, n, k);
  ASSERT_EQ(p.wq.size(), static_cast<std::size_t>(n * k / 8));
  ASSERT_EQ(p.wsz.size(), static_cast<std::size_t>(n * k / 128));
  std::vector<std::uint8_t> codes2(codes.size()), e2(e.size());
  unpack_mx_sm89(p, n, k, codes2, e2);
  EXPECT_EQ(codes, codes2);
  EXPECT_EQ(e, e2);
}

TEST(PackMxSm89, LoneCodeLandsWhereTheHeaderSays) {
  const std::int64_t n = 16, k = 128;
  std::vector<std::uint8_t> codes(static_cast<std::size_t>(n * k / 2), 0), e(static_cast<std::size_t>(n * k / 32), 127);
  codes[static_cast<std::size_t>(5 * (k / 2) + 77 / 2)] = static_cast<std::uint8_t>(0xB << 4);  // k 77 odd
  const auto p = pack_mx_sm89(codes, e, n, k);
  const auto pos = lay::weight_pos(5, 77, k);
  for (std::size_t d = 0; d < p.wq.size(); ++d)
    EXPECT_EQ(p.wq[d], static_cast<long long>(d) == pos.dword ? 0xBU << pos.shift : 0U) << d;
}

TEST(PackMxSm89, RejectsBadShapesAndExponents) {
  std::vector<std::uint8_t> codes(16 * 96 / 2), e(16 * 96 / 32, 127);
  EXPECT_THROW((void)pack_mx_sm89(codes, e, 16, 96), std::invalid_argument);  // K % 64
  std::vector<std::uint8_t> c2(8 * 128 / 2), e2(8 * 128 / 32, 127);
  EXPECT_THROW((void)pack_mx_sm89(c2, e2, 8, 128), std::invalid_argument);  // N % 16
  std::vector<std::uint8_t> c3(16 * 128 / 2), e3(16 * 128 / 32, 127);
  e3[9] = 255;
  try {
    (void)pack_mx_sm89(c3, e3, 16, 128);
    FAIL() << "NaN exponent accepted";
  } catch (const std::invalid_argument& ex) {
    EXPECT_NE(std::string(ex.what()).find("row 2, 32-K block 1"), std::string::npos) << ex.what();
  }
  e3[9] = 241;
  EXPECT_THROW((void)pack_mx_sm89(c3, e3, 16, 128), std::invalid_argument);
  e3[9] = 240;
  EXPECT_NO_THROW((void)pack_mx_sm89(c3, e3, 16, 128));
}

}  // namespace
}  // namespace r4::quant
