// The committed generated header compiles on its own (and twice: it is include-safe), its static
// checks pass, and the seeds' lookup works on it.
#include "configs/generated/synthetic_tables.hpp"
// clang-format off
#include "configs/generated/synthetic_tables.hpp"  // again, on purpose: it must be include-safe
// clang-format on

#include <algorithm>
#include <optional>
#include <span>
#include <string>

#include <gtest/gtest.h>

namespace {

// The seeds' config_for over one generated table.
std::optional<r4d_table_row> config_for(std::span<const r4d_table_row> table, int n, int k, int m) {
  for (const auto& r : table)
    if (r.n == n && r.k == k && m <= r.m_limit) {
      auto out = r;
      out.mb = std::min(r.mb, (m + 15) / 16);
      return out;
    }
  return std::nullopt;
}

TEST(SyntheticTables, SeedLookup) {
  using namespace r4d::generated;
  EXPECT_EQ(std::string(device), "NVIDIA H200 (sm_90, 132 SMs)");
  const auto qkv8 = config_for(gemm_w4a16_nt_w4a16, 3072, 5120, 8);
  ASSERT_TRUE(qkv8);
  EXPECT_EQ(qkv8->m_limit, 16);
  EXPECT_EQ(qkv8->mb, 1);
  EXPECT_TRUE(config_for(gemm_w4a8_nt_w4a8, 17408, 5120, 64));
  EXPECT_FALSE(config_for(gemm_w4a16_nt_w4a16, 5120, 25600, 8));  // fc: declined, never guessed
  EXPECT_FALSE(config_for(gemm_w4a16_nt_w4a16, 3072, 5120, 65));
  EXPECT_GE(a8_m, 0);
  EXPECT_LE(a8_m, 64);
}

}  // namespace
