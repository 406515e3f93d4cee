// Property tests of the sm80 layout (quant/layout/sm80.h) and its packer: the index map is a
// bijection, unpack(pack(x)) == x, and the documented fragment positions hold.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "quant/layout/sm80.h"
#include "quant/pack.hpp"

namespace r4::quant {
namespace {

namespace lay = r4::layout::sm80;

TEST(Sm80Layout, IndexMapIsABijection) {
  const long long n = 48, k = 256;
  std::vector<int> hits(static_cast<std::size_t>(n * k / 8) * 8, 0);
  for (long long r = 0; r < n; ++r)
    for (long long c = 0; c < k; ++c) {
      const auto p = lay::weight_pos(r, c, k);
      ASSERT_EQ(p.shift % 4, 0);
      ++hits[static_cast<std::size_t>(p.dword * 8 + p.shift / 4)];
      const auto back = lay::weight_at(p.dword, p.shift / 4, k);
      EXPECT_EQ(back.n, r);
      EXPECT_EQ(back.k, c);
    }
  for (int h : hits) EXPECT_EQ(h, 1);
}

TEST(Sm80Layout, LaneHoldsRowsGAndG8AtSixteenConsecutiveK) {
  // lane 4g+t, dword s, nibble i: row g + 8(i&1), k = 16t + 4s + (i>>1)
  const auto p = lay::weight_pos(3 + 8, 64 + 16 * 2 + 4 * 1 + 3, 128);
  EXPECT_EQ(p.dword, ((0 * 2 + 1) * 32 + (4 * 3 + 2)) * 4 + 1);
  EXPECT_EQ(p.shift, 4 * (2 * 3 + 1));
}

TEST(PackSm80, UnpackInvertsPack) {
  const std::int64_t n = 32, k = 384;
  std::mt19937 rng(7);
  std::vector<std::int8_t> q(static_cast<std::size_t>(n * k));
  for (auto& x : q) x = static_cast<std::int8_t>(static_cast<int>(rng() % 16) - 8);
  std::vector<float> s(static_cast<std::size_t>(n * k / 128));
  for (std::size_t i = 0; i < s.size(); ++i) s[i] = 0.25f * static_cast<float>(i % 7 + 1);
  const auto p = pack_sm80(q, s, n, k, 128);
  ASSERT_EQ(p.wq.size(), static_cast<std::size_t>(n * k / 8));
  ASSERT_EQ(p.wsz.size(), static_cast<std::size_t>(n * k / 128));
  for (auto w : p.wsz) EXPECT_EQ(w >> 16, 0xE408u);  // f16 -(1024+8) in the high half
  std::vector<std::int8_t> q2(q.size());
  std::vector<float> s2(s.size());
  unpack_sm80(p, n, k, 128, q2, s2);
  EXPECT_EQ(q, q2);
  EXPECT_EQ(s, s2);  // multiples of 1/4 are exact in f16
}

TEST(PackSm80, RejectsBadShapes) {
  std::vector<std::int8_t> q(16 * 100);
  std::vector<float> s(16);
  EXPECT_THROW((void)pack_sm80(q, s, 16, 100, 128), std::invalid_argument);
  std::vector<std::int8_t> q2(8 * 128);
  EXPECT_THROW((void)pack_sm80(q2, s, 8, 128, 128), std::invalid_argument);
}

}  // namespace
}  // namespace r4::quant
