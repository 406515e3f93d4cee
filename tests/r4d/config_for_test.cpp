// config_for against the seeds' behaviour, on the seeds' own tables (tests/r4d/seed_tables.hpp):
// every (shape, M = -1..70) answer equals the seed's where the seed's answer is a config the
// NVIDIA family accepts; otherwise r4d declines it as invalid_config and counts it. Bands of the
// sm90a generation: served with their generation and ST, MB clamped as in the mma_sync
// generation, on hand-written tables and on the db branch's synthetic tables
// (configs/generated/synthetic_tables.hpp: 16 sm90a winners), whatever header the build compiles
// in.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <set>
#include <span>
#include <utility>
#include <vector>

#include "kernels/config.hpp"
#include "kernels/r4d/src/detail.hpp"
#include "r4d/r4d.hpp"
#include "seed_tables.hpp"

// The synthetic tables in a namespace of their own (its arrays have the names of the compiled-in
// header's; r4d_table_row and its checks come from r4d/table.hpp, which defines the same guard).
namespace synthetic {
#include "configs/generated/synthetic_tables.hpp"  // NOLINT: included for its arrays
}  // namespace synthetic

namespace {

using r4d::Config;
using r4d::Dtype;
using r4d::Status;
namespace rk = r4::kernels;

bool nvidia_valid(Dtype d, const Config& c, std::int64_t n, std::int64_t k, std::int64_t m) {
  r4::gpu::Arch a;
  a.major = 9;
  const auto id = d == Dtype::w4a16 ? rk::KernelId::gemm_w4a16_nt : rk::KernelId::gemm_w4a8_nt;
  return rk::is_valid(id, rk::Config{c.wv, c.sk, c.mb, c.npw, c.nt, c.gen, c.st}, a,
                      rk::Shape{n, k, m});
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
  // The seed would hand out MB = 3 here; the mma.sync generation has no MB = 3 (only the sm90a
  // generation has, at ST 4), so it is declined, not guessed.
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

// A band the sm90a generation won (gen 1, with its ST) is served as that generation's config, ST
// included, never as an mma_sync config of the same five knobs; the bands around it are unchanged.
TEST(R4dConfigFor, ServesBandsOfTheSm90aGeneration) {
  const std::vector<r4d_table_row> t = {{3072, 5120, 16, 1, 2, 1, 1, 0},
                                        {3072, 5120, 32, 4, 1, 2, 1, 0, 1, 6},
                                        {3072, 5120, 64, 1, 2, 4, 1, 0, 0, 0}};
  EXPECT_EQ(*r4d::config_for(3072, 5120, 16, t), (Config{1, 2, 1, 1, 0}));
  for (int m = 17; m <= 32; ++m) {
    const auto l = r4d::lookup(3072, 5120, m, t, Dtype::w4a16);
    ASSERT_EQ(l.status, Status::ok) << m;
    EXPECT_EQ(*l.config, (Config{4, 1, 2, 1, 0, r4d::kGenSm90a, 6})) << m;
    EXPECT_NE(*l.config, (Config{4, 1, 2, 1, 0})) << m;  // equality sees the generation
  }
  EXPECT_EQ(*r4d::config_for(3072, 5120, 64, t), (Config{1, 2, 4, 1, 0}));
  EXPECT_EQ(r4d::to_string(*r4d::config_for(3072, 5120, 20, t)), "sm90a(4, 1, 2, 1, 0, 6)");
  EXPECT_EQ(r4d::to_string(*r4d::config_for(3072, 5120, 1, t)), "(1, 2, 1, 1, 0)");
}

// MB counts 16-row M tiles in the sm90a generation too (the wgmma N is 16*MB): the same clamp to
// ceil(M/16). MB = 3 (N = 48) exists at ring depth 4 only (kernels/config.hpp is_valid_sm90a), so
// a depth-4 row serves M = 33..48 with MB 3 and a depth-6 row declines those M. The w4a8 kernel
// serves it as well.
TEST(R4dConfigFor, ClampsMbOfSm90aRows) {
  const std::vector<r4d_table_row> t = {{5120, 8704, 64, 4, 2, 4, 1, 0, 1, 4}};
  const std::vector<r4d_table_row> t6 = {{5120, 8704, 64, 4, 2, 4, 1, 0, 1, 6}};
  for (Dtype d : {Dtype::w4a16, Dtype::w4a8}) {
    for (int m = 1; m <= 64; ++m) {
      const int mb = std::min(4, (m + 15) / 16);
      const auto l = r4d::lookup(5120, 8704, m, t, d);
      ASSERT_TRUE(l.config) << m;
      EXPECT_EQ(*l.config, (Config{4, 2, mb, 1, 0, r4d::kGenSm90a, 4})) << m;
      const auto l6 = r4d::lookup(5120, 8704, m, t6, d);
      if (mb == 3) {
        EXPECT_EQ(l6.status, Status::invalid_config) << m;
        continue;
      }
      ASSERT_TRUE(l6.config) << m;
      EXPECT_EQ(*l6.config, (Config{4, 2, mb, 1, 0, r4d::kGenSm90a, 6})) << m;
    }
  }
}

// What is_valid refuses in the sm90a generation is declined (invalid_config), never served: a
// ring depth the generation does not have, one consumer warp (WV 1), a split the K cannot give
// (K / 128 groups < SK), and the one tuple over the register budget (w4a16 WV 8, NPW 2, MB 4,
// served below M = 49 where the clamp takes MB below 4). sm90a configs are checked on sm_90 only.
TEST(R4dConfigFor, DeclinesSm90aConfigsIsValidRefuses) {
  const auto status = [](const std::vector<r4d_table_row>& t, int m, Dtype d = Dtype::w4a16) {
    return r4d::lookup(t[0].n, t[0].k, m, t, d).status;
  };
  EXPECT_EQ(status({{3072, 5120, 64, 4, 1, 1, 1, 0, 1, 5}}, 8), Status::invalid_config);
  EXPECT_EQ(status({{3072, 5120, 64, 1, 1, 1, 1, 0, 1, 4}}, 8), Status::invalid_config);
  EXPECT_EQ(status({{3072, 256, 64, 4, 4, 1, 1, 0, 1, 4}}, 8), Status::invalid_config);
  EXPECT_EQ(status({{3072, 512, 64, 4, 4, 1, 1, 0, 1, 4}}, 8), Status::ok);
  const std::vector<r4d_table_row> big = {{17408, 5120, 64, 8, 1, 4, 2, 0, 1, 4}};
  EXPECT_EQ(status(big, 64), Status::invalid_config);
  EXPECT_EQ(status(big, 32), Status::ok);
  EXPECT_EQ(status(big, 64, Dtype::w4a8), Status::ok);  // w4a8's registers allow it
}

// Every (shape, M = 1..64) of the synthetic tables, both dtypes: the first band whose limit is
// >= M, MB clamped, generation and ST carried; counted as a hit. The synthetic header's rows are
// all valid for their generation at their band's top M (checked here at compile time, as r4d's
// src/tables.cpp checks the compiled-in header).
template <std::size_t N>
constexpr bool synthetic_rows_valid(const r4d_table_row (&rows)[N], Dtype d) {
  for (const auto& r : rows)
    if (!r4d::detail::valid_for_build(r4d::detail::kernel_of(d),
                                      Config{r.wv, r.sk, r.mb, r.npw, r.nt, r.gen, r.st},
                                      rk::Shape{r.n, r.k, std::min(r.m_limit, 64)}))
      return false;
  return true;
}
static_assert(synthetic_rows_valid(synthetic::r4d::generated::gemm_w4a16_nt_w4a16, Dtype::w4a16));
static_assert(synthetic_rows_valid(synthetic::r4d::generated::gemm_w4a8_nt_w4a8, Dtype::w4a8));

void check_synthetic(std::span<const r4d_table_row> t, Dtype d, int& sm90a_hits) {
  for (const auto& row : t)
    for (int m = 1; m <= 64; ++m) {
      const r4d_table_row* band = nullptr;
      for (const auto& r : t)
        if (r.n == row.n && r.k == row.k && m <= r.m_limit) {
          band = &r;
          break;
        }
      SCOPED_TRACE(testing::Message() << row.n << "x" << row.k << " M=" << m);
      r4d::reset_stats();
      const auto l = r4d::lookup(row.n, row.k, m, t, d);
      ASSERT_NE(band, nullptr);
      const int mb = std::min(band->mb, (m + 15) / 16);
      if (mb == 3 && !(band->gen == r4d::kGenSm90a && band->st == 4)) {
        EXPECT_EQ(l.status, Status::invalid_config);
        continue;
      }
      ASSERT_EQ(l.status, Status::ok);
      EXPECT_EQ(*l.config,
                (Config{band->wv, band->sk, mb, band->npw, band->nt, band->gen, band->st}));
      EXPECT_EQ(r4d::stats().hits, 1u);
      sm90a_hits += l.config->gen == r4d::kGenSm90a ? 1 : 0;
    }
}

TEST(R4dConfigFor, SyntheticTablesWithSm90aWinners) {
  int hits16 = 0, hits8 = 0;
  check_synthetic(synthetic::r4d::generated::gemm_w4a16_nt_w4a16, Dtype::w4a16, hits16);
  check_synthetic(synthetic::r4d::generated::gemm_w4a8_nt_w4a8, Dtype::w4a8, hits8);
  EXPECT_GT(hits16, 0);
  EXPECT_GT(hits8, 0);
}

TEST(R4dConfigFor, CompiledInTableServesEveryBandOfItsShapes) {
  for (Dtype d : {Dtype::w4a16, Dtype::w4a8}) {
    for (const auto& r : r4d::table(d)) {
      for (int m = 1; m <= std::min(r.m_limit, 64); ++m) {
        const auto l = r4d::lookup(r.n, r.k, m, r4d::table(d), d);
        // Bands of the compiled-in tables are static_asserted valid at their top M; a clamp to
        // MB = 3 (outside the sm90a generation at ST 4) is the one way a lower M can still be
        // declined.
        if (!l.config) {
          EXPECT_EQ(l.status, Status::invalid_config);
        }
      }
    }
  }
}

}  // namespace
