#include "tuner/measure/pool.hpp"

#include <gtest/gtest.h>

namespace r4::measure {
namespace {

constexpr std::int64_t kL2 = 62914560;  // H200: 60 MiB

TEST(PoolCopies, CoversTheFactorTimesTheCache) {
  // 17408x5120 int4 + scales + activations + output at M=64: ~47 MB a copy.
  const std::int64_t per = 47'000'000;
  const int c = pool_copies(per, kL2, 4.0, std::int64_t{32} << 30);
  EXPECT_GE(static_cast<double>(c) * static_cast<double>(per), 4.0 * kL2);
  EXPECT_LT(static_cast<double>(c - 1) * static_cast<double>(per), 4.0 * kL2 + per);
}

TEST(PoolCopies, AtLeastTwoAndCappedByMemory) {
  EXPECT_EQ(pool_copies(1LL << 34, kL2, 4.0, 1LL << 40), 2);
  EXPECT_EQ(pool_copies(1 << 20, kL2, 4.0, 8 << 20), 8);
  EXPECT_EQ(pool_copies(0, kL2, 4.0, 1LL << 40), 2);
}

TEST(SlicePool, SmallPoolsAreOneSlice) {
  for (int c : {1, 2, 5, 8}) {
    const auto s = slice_pool(c);
    EXPECT_EQ(s.slices, 1) << c;
    EXPECT_EQ(s.slice_len, c) << c;
    EXPECT_EQ(s.copies, c) << c;
  }
}

TEST(SlicePool, LargePoolsSplitIntoUpToFourSlicesOfAtLeastEight) {
  for (int c = 1; c <= 400; ++c) {
    const auto s = slice_pool(c);
    EXPECT_GE(s.copies, c) << c;                // never a smaller pool than the cache rule asks
    EXPECT_LT(s.copies, c + s.slice_len) << c;  // rounded up by less than one slice
    EXPECT_EQ(s.copies, s.slices * s.slice_len) << c;
    EXPECT_LE(s.slices, 4) << c;
    EXPECT_GE(s.slice_len, std::min(c, 8)) << c;
    // Between two uses of a copy at least half the (rounded) pool is read when there are slices.
    if (s.slices >= 2) {
      EXPECT_GE(2 * (s.slices - 1) * s.slice_len, s.copies) << c;
    }
  }
  const auto s = slice_pool(107);  // hidden_projection 256x5120 on the H200
  EXPECT_EQ(s.slice_len, 27);
  EXPECT_EQ(s.slices, 4);
  EXPECT_EQ(s.copies, 108);
  const auto d = slice_pool(10);  // down_proj 5120x8704
  EXPECT_EQ(d.slice_len, 8);
  EXPECT_EQ(d.slices, 2);
  EXPECT_EQ(d.copies, 16);
}

}  // namespace
}  // namespace r4::measure
