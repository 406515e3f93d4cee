// The seeds' measured tables (seeds/000: _CFG + _CFG_UNQUANT and _CFG_A8 + _CFG_UNQUANT_A8,
// gfx1201) verbatim, as r4d rows: the stand-in for config_for's band semantics. Some rows are NOT
// valid for the NVIDIA family (SK=10, WV=16, NPW*MB=8 on w4a8): r4d must decline those
// (invalid_config), never launch them. Also the seed's config_for, transcribed, as the behaviour to
// match.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>

#include "r4d/table.hpp"

namespace r4d::test {

inline constexpr std::array<r4d_table_row, 24> kSeedCfg = {{
    {3072, 5120, 16, 1, 4, 1, 1, 1},   {3072, 5120, 32, 1, 2, 1, 1, 1},
    {3072, 5120, 48, 1, 2, 1, 1, 0},   {3072, 5120, 64, 1, 8, 2, 4, 0},
    {5120, 2048, 16, 2, 4, 1, 1, 1},   {5120, 2048, 32, 4, 2, 1, 1, 1},
    {5120, 2048, 48, 2, 2, 1, 1, 1},   {5120, 2048, 64, 1, 4, 2, 4, 1},
    {17408, 5120, 16, 2, 10, 1, 1, 1}, {17408, 5120, 32, 2, 2, 2, 4, 1},
    {17408, 5120, 48, 4, 1, 1, 4, 0},  {17408, 5120, 64, 1, 1, 2, 4, 0},
    {5120, 8704, 16, 1, 2, 1, 1, 1},   {5120, 8704, 32, 4, 1, 1, 1, 0},
    {5120, 8704, 48, 1, 4, 1, 4, 0},   {5120, 8704, 64, 1, 4, 2, 4, 0},
    {1280, 5120, 16, 1, 4, 1, 1, 1},   {1280, 5120, 32, 1, 4, 1, 1, 1},
    {1280, 5120, 48, 1, 4, 1, 1, 1},   {1280, 5120, 64, 1, 4, 1, 1, 0},
    {256, 5120, 16, 1, 8, 1, 1, 0},    {256, 5120, 32, 1, 8, 1, 1, 0},
    {256, 5120, 48, 2, 4, 1, 1, 0},    {256, 5120, 64, 2, 4, 1, 1, 0},
}};

inline constexpr std::array<r4d_table_row, 24> kSeedCfgA8 = {{
    {3072, 5120, 16, 1, 4, 1, 1, 1},   {3072, 5120, 32, 4, 2, 1, 1, 1},
    {3072, 5120, 48, 1, 2, 1, 2, 1},   {3072, 5120, 64, 4, 2, 1, 2, 1},
    {5120, 2048, 16, 1, 4, 1, 1, 1},   {5120, 2048, 32, 4, 2, 1, 1, 1},
    {5120, 2048, 48, 16, 2, 1, 2, 1},  {5120, 2048, 64, 1, 2, 1, 2, 0},
    {17408, 5120, 16, 2, 10, 1, 1, 1}, {17408, 5120, 32, 2, 10, 2, 1, 1},
    {17408, 5120, 48, 4, 1, 1, 2, 0},  {17408, 5120, 64, 1, 1, 2, 4, 0},
    {5120, 8704, 16, 2, 2, 1, 1, 1},   {5120, 8704, 32, 2, 1, 1, 1, 1},
    {5120, 8704, 48, 2, 1, 1, 1, 1},   {5120, 8704, 64, 4, 1, 1, 2, 0},
    {1280, 5120, 16, 1, 8, 1, 1, 1},   {1280, 5120, 32, 1, 4, 1, 1, 1},
    {1280, 5120, 48, 1, 4, 1, 1, 1},   {1280, 5120, 64, 1, 4, 1, 2, 1},
    {256, 5120, 16, 1, 10, 1, 1, 0},   {256, 5120, 32, 1, 10, 1, 1, 0},
    {256, 5120, 48, 2, 8, 1, 1, 1},    {256, 5120, 64, 2, 8, 1, 1, 1},
}};

// seeds/000 config_for, line for line (with _GEMM present and GEMM_W4_MAX_M = 64).
inline std::optional<Config> seed_config_for(std::int64_t n, std::int64_t k, std::int64_t m,
                                             std::span<const r4d_table_row> table) {
  if (!(1 <= m && m <= 64)) return std::nullopt;
  for (const auto& r : table) {
    if (r.n != n || r.k != k) continue;
    if (m <= r.m_limit) {
      const int mtiles = static_cast<int>((m + 15) / 16);
      return Config{r.wv, r.sk, r.mb < mtiles ? r.mb : mtiles, r.npw, r.nt};
    }
  }
  return std::nullopt;
}

}  // namespace r4d::test
