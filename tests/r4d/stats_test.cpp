// Miss counters: each decline reason and each refusal is counted; reset_stats() zeroes them.
#include <gtest/gtest.h>

#include <vector>

#include "r4d/r4d.hpp"

namespace {

TEST(R4dStats, CountsEachDeclineReasonAndResets) {
  const std::vector<r4d_table_row> t = {{3072, 5120, 64, 1, 10, 1, 1, 0},  // SK=10: invalid
                                        {5120, 2048, 32, 1, 4, 1, 1, 0}};
  r4d::reset_stats();
  (void)r4d::config_for(5120, 2048, 8, t);   // hit
  (void)r4d::config_for(5120, 2048, 40, t);  // above the last band
  (void)r4d::config_for(5120, 2048, 0, t);   // M out of range
  (void)r4d::config_for(1, 1, 8, t);         // unknown shape
  (void)r4d::config_for(3072, 5120, 8, t);   // invalid config
  const auto s = r4d::stats();
  EXPECT_EQ(s.lookups, 5u);
  EXPECT_EQ(s.hits, 1u);
  EXPECT_EQ(s.m_out_of_range, 2u);
  EXPECT_EQ(s.unknown_shape, 1u);
  EXPECT_EQ(s.invalid_config, 1u);
  r4d::reset_stats();
  const auto z = r4d::stats();
  EXPECT_EQ(z.lookups + z.hits + z.m_out_of_range + z.unknown_shape + z.invalid_config, 0u);
}

TEST(R4dStats, RefusedLaunchesAreCountedAndEnqueueNothing) {
  r4d::reset_stats();
  // No workspace registered for any device in this process (or no device, or no kernels).
  const auto st =
      r4d::gemm_w4a16_nt(nullptr, nullptr, nullptr, nullptr, 8, 5120, 3072, 1, 4, 1, 1, 1, nullptr);
  EXPECT_NE(st, r4d::Status::ok);
  EXPECT_TRUE(st == r4d::Status::not_initialised || st == r4d::Status::no_kernels);
  const auto s = r4d::stats();
  EXPECT_EQ(s.refused, 1u);
  EXPECT_EQ(s.launches, 0u);
  if (st == r4d::Status::not_initialised) {
    EXPECT_EQ(s.not_initialised, 1u);
  }
  EXPECT_FALSE(r4d::to_string(st).empty());
}

}  // namespace
