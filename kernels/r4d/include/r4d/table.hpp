// Tuned tables and the seeds' lookup (`config_for`). A table is `r4d_table_row`s, the struct the
// emitted C++ header (`r4tune emit`, reports/emit_cpp.cpp) defines: per (N, K), bands in
// ascending M limit. The build compiles one generated header in (CMake R4D_TABLES_HEADER).
// A row names the kernel generation that won its band (`gen`: 0 mma_sync, 1 sm90a, with the sm90a
// generation's ring stages `st`); config_for hands out the row's whole config, generation
// included, and the launchers that take a Config launch either generation (r4d/launch.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "r4d/status.hpp"

// Identical to the block `r4tune emit` writes (same guard), so either may come first.
#ifndef R4D_TABLE_ROW_DEFINED
#define R4D_TABLE_ROW_DEFINED
struct r4d_table_row {
  int n, k, m_limit, wv, sk, mb, npw, nt;
  int gen = 0;  // 0: mma_sync, 1: sm90a, 2: ldg (rows of 8 integers, from before generations: 0)
  int st = 0;   // sm90a ring stages, ldg batch blocks; 0 in generation 0
};

// The generated tables' static checks: configs in range, bands ascending within each shape.
template <int N>
constexpr bool r4d_table_rows_valid(const r4d_table_row (&rows)[N]) {
  for (int i = 0; i < N; ++i) {
    const r4d_table_row& r = rows[i];
    if (r.n <= 0 || r.k <= 0 || r.m_limit <= 0) return false;
    if (r.wv < 1 || r.wv > 64 || r.sk < 1 || r.sk > 256 || r.mb < 1 || r.mb > 64) return false;
    if (r.npw < 1 || r.npw > 64 || (r.nt != 0 && r.nt != 1)) return false;
    if (r.gen < 0 || r.gen > 2) return false;
    if (r.gen == 0 ? r.st != 0 : (r.st < 1 || r.st > 64)) return false;
    if (i > 0 && rows[i - 1].n == r.n && rows[i - 1].k == r.k && rows[i - 1].m_limit >= r.m_limit)
      return false;
  }
  return true;
}
#endif

namespace r4d {

// Kernel generations (kernels/config.hpp): the values of r4d_table_row::gen and Config::gen.
inline constexpr int kGenMmaSync = 0;  // mma.sync, sm_80+; the seeds' 5-tuple
inline constexpr int kGenSm90a = 1;    // bulk-copy ring + wgmma, compiled for sm_90a (cc 9.0)
inline constexpr int kGenLdg = 2;      // register batches straight from global memory, sm_80+

// (WV, SK, MB, NPW, NT), the seeds' order: warps per block, split-K factor, 16-row M tiles per
// block, 16-row N tiles per warp, evict-first weight loads (0/1); then the kernel generation and,
// for the sm90a generation, its shared-memory ring stages ST (its tuple is (WV, SK, MB, NPW, NT,
// ST), WV counting consumer warps). `Config{WV, SK, MB, NPW, NT}` is a mma_sync config, as before.
// Equality compares all seven.
struct Config {
  int wv = 1;
  int sk = 1;
  int mb = 1;
  int npw = 1;
  int nt = 0;
  int gen = kGenMmaSync;
  int st = 0;  // sm90a ring stages; 0 in the mma_sync generation
  friend constexpr bool operator==(const Config&, const Config&) = default;
};

// "mma_sync" / "sm90a" / "ldg" (the names `r4tune emit` writes), "" for any other value.
[[nodiscard]] std::string_view generation_name(int gen);
// "(WV, SK, MB, NPW, NT)" for mma_sync, "sm90a(WV, SK, MB, NPW, NT, ST)" for sm90a
// (kernels/config.hpp to_string's form).
[[nodiscard]] std::string to_string(const Config& c);

// Which kernel a table (and a config) belongs to.
enum class Dtype {
  w4a16,       // gemm_w4a16_nt: A f16 (explicit launcher) or bf16 (r4d::gemm)
  w4a8,        // gemm_w4a8_nt: A quantised per row to int8 by quant_act
  w4a8fp8,     // gemm_w4a8fp8_nt: int4 g128 (GPTQ/AutoRound symmetric) x e4m3 A (quant_act_fp8)
  mxfp4a8fp8,  // gemm_mxfp4a8fp8_nt: MXFP4 (mx_sm89 layout) x e4m3 A (quant_act_fp8)
};

// "w4a16" / "w4a8" / "w4a8fp8" / "mxfp4a8fp8"
[[nodiscard]] std::optional<Dtype> parse_dtype(std::string_view s);
[[nodiscard]] std::string_view to_string(Dtype d);

using Table = std::span<const r4d_table_row>;

// The compiled-in table of a dtype (empty when the header has none for it).
[[nodiscard]] Table table(Dtype d);
// The last M the w4a16 table serves; above it r4d::gemm takes the w4a8 path (`m > a8_m`).
[[nodiscard]] int a8_m();

struct TableInfo {
  std::string_view header;    // path of the compiled-in header, as CMake named it
  std::string_view run_uuid;  // the database run it was emitted from
  std::string_view device;
  std::string_view run_date;
};
[[nodiscard]] TableInfo table_info();

// A lookup's answer: the config, or the reason it was declined.
struct Lookup {
  std::optional<Config> config;
  Status status = Status::ok;  // ok, unknown_shape, m_out_of_range or invalid_config
};

// The seeds' config_for: the first band whose limit is >= M, MB clamped to ceil(M/16) (in either
// generation: MB counts 16-row M tiles in both); M outside 1..GEMM_W4_MAX_M, an unknown (N, K) and
// an M above the last band are declined. A row (after the clamp) that kernels/config.hpp
// is_valid() refuses for `d`'s kernel is declined too (invalid_config): a mma_sync row on sm_80
// or sm_90, an sm90a row on sm_90 (its only target). The answer carries the row's generation and
// ST. Every call is counted in r4d::stats(): a hit or one decline reason.
[[nodiscard]] Lookup lookup(std::int64_t n, std::int64_t k, std::int64_t m, Table t, Dtype d);
[[nodiscard]] std::optional<Config> config_for(std::int64_t n, std::int64_t k, std::int64_t m,
                                               Table t, Dtype d = Dtype::w4a16);
// The same against the compiled-in table of `d`.
[[nodiscard]] std::optional<Config> config_for(std::int64_t n, std::int64_t k, std::int64_t m,
                                               Dtype d = Dtype::w4a16);

}  // namespace r4d
