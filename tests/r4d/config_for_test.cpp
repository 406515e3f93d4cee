// config_for against the seeds' behaviour, on the seeds' own tables (tests/r4d/seed_tables.hpp):
// every (shape, M = -1..70) answer equals the seed's where the seed's answer is a config the
// NVIDIA family accepts; otherwise r4d declines it as invalid_config and counts it.
#include <gtest/gtest.h>

#include <set>
#include <utility>
#include <vector>

#include "kernels/config.hpp"
#include "r4d/r4d.hpp"
#include "seed_tables.hpp"

namespace {

using r4d::Config;
using r4d::Dtype;
using r4d::Status;
namespace rk = r4::kernels;

bool nvidia_valid(Dtype d, const Config& c, std::int64_t n, std::int64_t k, std::int64_t m) {
  r4::gpu::Arch a;
  a.major = 9;
  const auto id = d == Dtype::w4a16 ? rk::KernelId::gemm_w4a16_nt : rk::KernelId::gemm_w4a8_nt;
  return rk::is_valid(id, rk::Config{c.wv, c.sk, c.mb, c.npw, c.nt}, a, rk::Shape{n, k, m});
}

void check_against_seed(std::span<const r4d_table_row> table, Dtype d) {
  std::set<std::pair<int, int>> shapes;
  for (const auto& r : table) shapes.insert({r.n, r.k});
  shapes.insert({5120, 25600});  // the drafter's fc: deliberately absent from the seed's table
  for (const auto& [n, k] : shapes) {
    for (int m = -1; m <= 70; ++m) {
      r4d::reset_stats();
      const auto seed = r4d::test::seed_config_for(n, k, m, table);
      const auto got = r4d::lookup(n, k, m, table, d);
      const auto s = r4d::stats();
      EXPECT_EQ(s.lookups, 1u);
      SCOPED_TRACE(testing::Message() << "N=" << n << " K=" << k << " M=" << m);
      if (!seed) {
        EXPECT_FALSE(got.config);
        // M is checked first (the seed's order), then the shape, then the bands.
        const bool known = n != 5120 || k != 25600;
        const bool m_out = m < 1 || m > 64 || known;
        EXPECT_EQ(got.status, m_out ? Status::m_out_of_range : Status::unknown_shape);
        EXPECT_EQ(m_out ? s.m_out_of_range : s.unknown_shape, 1u);
      } else if (nvidia_valid(d, *seed, n, k, m)) {
        ASSERT_TRUE(got.config);
        EXPECT_EQ(*got.config, *seed);
        EXPECT_EQ(got.status, Status::ok);
        EXPECT_EQ(s.hits, 1u);
      } else {
        EXPECT_FALSE(got.config);
        EXPECT_EQ(got.status, Status::invalid_config);
        EXPECT_EQ(s.invalid_config, 1u);
      }
    }
  }
}

TEST(R4dConfigFor, MatchesSeedOnSeedTableW4a16) {
  check_against_seed(r4d::test::kSeedCfg, Dtype::w4a16);
}

TEST(R4dConfigFor, MatchesSeedOnSeedTableW4a8) {
  check_against_seed(r4d::test::kSeedCfgA8, Dtype::w4a8);
}

TEST(R4dConfigFor, BandsAreFirstLimitAtOrAboveM) {
  const auto& t = r4d::test::kSeedCfg;
  for (int m = 1; m <= 16; ++m)
    EXPECT_EQ(*r4d::config_for(3072, 5120, m, t), (Config{1, 4, 1, 1, 1}));
  for (int m = 17; m <= 32; ++m)
    EXPECT_EQ(*r4d::config_for(3072, 5120, m, t), (Config{1, 2, 1, 1, 1}));
  for (int m = 33; m <= 48; ++m)
    EXPECT_EQ(*r4d::config_for(3072, 5120, m, t), (Config{1, 2, 1, 1, 0}));
  for (int m = 49; m <= 64; ++m)
    EXPECT_EQ(*r4d::config_for(3072, 5120, m, t), (Config{1, 8, 2, 4, 0}));
}

TEST(R4dConfigFor, ClampsMbToTheTilesNeeded) {
  // One band serving every M: MB follows ceil(M/16) up to the row's MB.
  const std::vector<r4d_table_row> t = {{3072, 5120, 64, 1, 2, 4, 2, 0}};
  for (int m = 1; m <= 16; ++m) EXPECT_EQ(r4d::config_for(3072, 5120, m, t)->mb, 1);
  for (int m = 17; m <= 32; ++m) EXPECT_EQ(r4d::config_for(3072, 5120, m, t)->mb, 2);
  // The seed would hand out MB = 3 here; the family has no MB = 3, so it is declined, not guessed.
  for (int m = 33; m <= 48; ++m) {
    const auto l = r4d::lookup(3072, 5120, m, t, Dtype::w4a16);
    EXPECT_FALSE(l.config);
    EXPECT_EQ(l.status, Status::invalid_config);
    EXPECT_EQ(r4d::test::seed_config_for(3072, 5120, m, t)->mb, 3);
  }
  for (int m = 49; m <= 64; ++m) EXPECT_EQ(r4d::config_for(3072, 5120, m, t)->mb, 4);
}

TEST(R4dConfigFor, DeclinesAboveTheLastBandAndOutsideTheDecodeBand) {
  const std::vector<r4d_table_row> t = {{256, 5120, 16, 1, 8, 1, 1, 0},
                                        {256, 5120, 32, 1, 8, 1, 1, 0}};
  EXPECT_TRUE(r4d::config_for(256, 5120, 32, t));
  EXPECT_EQ(r4d::lookup(256, 5120, 33, t, Dtype::w4a16).status, Status::m_out_of_range);
  EXPECT_EQ(r4d::lookup(256, 5120, 0, t, Dtype::w4a16).status, Status::m_out_of_range);
  EXPECT_EQ(r4d::lookup(256, 5120, 65, t, Dtype::w4a16).status, Status::m_out_of_range);
  EXPECT_EQ(r4d::lookup(512, 5120, 8, t, Dtype::w4a16).status, Status::unknown_shape);
  EXPECT_EQ(r4d::lookup(256, 5120, 8, {}, Dtype::w4a16).status, Status::unknown_shape);
}

// A band the sm90a generation won (gen 1, with its ST) is declined until r4d launches that
// generation, never handed to the mma_sync kernel as the same five knobs; the bands around it
// still serve.
TEST(R4dConfigFor, DeclinesBandsOfTheSm90aGeneration) {
  const std::vector<r4d_table_row> t = {{3072, 5120, 16, 1, 2, 1, 1, 0},
                                        {3072, 5120, 32, 4, 1, 2, 1, 0, 1, 6},
                                        {3072, 5120, 64, 1, 2, 4, 1, 0, 0, 0}};
  EXPECT_EQ(*r4d::config_for(3072, 5120, 16, t), (Config{1, 2, 1, 1, 0}));
  for (int m = 17; m <= 32; ++m)
    EXPECT_EQ(r4d::lookup(3072, 5120, m, t, Dtype::w4a16).status, Status::invalid_config) << m;
  EXPECT_EQ(*r4d::config_for(3072, 5120, 64, t), (Config{1, 2, 4, 1, 0}));
}

TEST(R4dConfigFor, CompiledInTableServesEveryBandOfItsShapes) {
  for (Dtype d : {Dtype::w4a16, Dtype::w4a8}) {
    for (const auto& r : r4d::table(d)) {
      for (int m = 1; m <= std::min(r.m_limit, 64); ++m) {
        const auto l = r4d::lookup(r.n, r.k, m, r4d::table(d), d);
        // Bands of the compiled-in tables are static_asserted valid at their top M; a clamp to
        // MB = 3 is the one way a lower M can still be declined.
        if (!l.config) {
          EXPECT_EQ(l.status, Status::invalid_config);
        }
      }
    }
  }
}

}  // namespace
