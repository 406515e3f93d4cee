// The committed generated header compiles on its own (and twice: it is include-safe), its static
// checks pass, every row is valid for kernels/config.hpp's is_valid, and the seeds' lookup works
// on it.
#include "configs/generated/synthetic_tables.hpp"
// clang-format off
#include "configs/generated/synthetic_tables.hpp"  // again, on purpose: it must be include-safe
// clang-format on

#include <algorithm>
#include <cstddef>
#include <optional>
#include <span>
#include <string>

#include <gtest/gtest.h>

#include "kernels/config.hpp"

namespace {

using r4::kernels::KernelId;

// kernels/config.hpp's is_valid, generation and ST included, evaluated by the compiler over every
// row at its band's top M: an mma_sync row on sm_80 and sm_90, an sm90a row on sm_90 (the same
// check r4d's tables.cpp makes of the header it builds in).
constexpr bool row_valid(KernelId id, const r4d_table_row& r, int major) {
  r4::gpu::Arch a;
  a.major = major;
  const r4::kernels::Config c{r.wv, r.sk, r.mb, r.npw, r.nt, r.gen, r.st};
  return r4::kernels::is_valid(id, c, a, {r.n, r.k, std::min(r.m_limit, r4::kernels::kMaxM)});
}
template <std::size_t N>
constexpr bool rows_valid(KernelId id, const r4d_table_row (&rows)[N]) {
  for (const auto& r : rows)
    if (!row_valid(id, r, 9) || (r.gen == r4::kernels::kGenMmaSync && !row_valid(id, r, 8)))
      return false;
  return true;
}
static_assert(rows_valid(KernelId::gemm_w4a16_nt, r4d::generated::gemm_w4a16_nt_w4a16));
static_assert(rows_valid(KernelId::gemm_w4a8_nt, r4d::generated::gemm_w4a8_nt_w4a8));

template <std::size_t N>
constexpr int rows_of_generation(const r4d_table_row (&rows)[N], int gen) {
  int n = 0;
  for (const auto& r : rows) n += r.gen == gen;
  return n;
}
// The synthetic run has winners of both generations, so both row forms are compiled here.
static_assert(rows_of_generation(r4d::generated::gemm_w4a16_nt_w4a16, 0) +
                  rows_of_generation(r4d::generated::gemm_w4a8_nt_w4a8, 0) >
              0);
static_assert(rows_of_generation(r4d::generated::gemm_w4a16_nt_w4a16, 1) +
                  rows_of_generation(r4d::generated::gemm_w4a8_nt_w4a8, 1) >
              0);

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
