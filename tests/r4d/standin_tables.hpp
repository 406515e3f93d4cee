// TEST STAND-IN in the format `r4tune emit` writes (reports/emit_cpp.cpp); written by hand, not
// generated, for the r4d tests until configs/generated/synthetic_tables.hpp is on this branch.
// The configs are the seeds' _CFG / _CFG_A8 / _CFG_UNQUANT(_A8) (measured on gfx1201, NOT on any
// NVIDIA part) with the values the NVIDIA family's is_valid refuses replaced: SK=10 -> 8,
// WV=16 -> 8, and gate_up's w4a8 M=64 (1, 1, 2, 4, 0) -> (1, 1, 2, 2, 0) (NPW*MB <= 4).
// No speedups: nothing here was measured.
// Rows: (N, K, M limit, WV, SK, MB, NPW, NT), bands ascending per shape; the first band whose
// limit is >= M serves M. A shape with no rows is declined, never guessed. Rows of 8 integers, as
// before kernel generations: all of the mma_sync generation (gen and st default to 0).
#pragma once

#ifndef R4D_TABLE_ROW_DEFINED
#define R4D_TABLE_ROW_DEFINED
struct r4d_table_row {
  int n, k, m_limit, wv, sk, mb, npw, nt;
  int gen = 0;  // 0: mma_sync, 1: sm90a (rows of 8 integers, from before generations, are 0)
  int st = 0;   // sm90a ring stages; 0 in generation 0
};

// The generated tables' static checks: configs in range, bands ascending within each shape.
template <int N>
constexpr bool r4d_table_rows_valid(const r4d_table_row (&rows)[N]) {
  for (int i = 0; i < N; ++i) {
    const r4d_table_row& r = rows[i];
    if (r.n <= 0 || r.k <= 0 || r.m_limit <= 0) return false;
    if (r.wv < 1 || r.wv > 64 || r.sk < 1 || r.sk > 256 || r.mb < 1 || r.mb > 64) return false;
    if (r.npw < 1 || r.npw > 64 || (r.nt != 0 && r.nt != 1)) return false;
    if (r.gen != 0 && r.gen != 1) return false;
    if (r.gen == 0 ? r.st != 0 : (r.st < 1 || r.st > 64)) return false;
    if (i > 0 && rows[i - 1].n == r.n && rows[i - 1].k == r.k && rows[i - 1].m_limit >= r.m_limit)
      return false;
  }
  return true;
}
#endif

namespace r4d::generated {

inline constexpr char run_uuid[] = "TEST-STAND-IN";
inline constexpr char device[] = "no device";
inline constexpr char run_date[] = "2026-11-30";

// gemm_w4a16_nt, dtype w4a16 (Python: _CFG)
inline constexpr r4d_table_row gemm_w4a16_nt_w4a16[] = {
    {3072, 5120, 16, 1, 4, 1, 1, 1},  // qkv
    {3072, 5120, 32, 1, 2, 1, 1, 1},
    {3072, 5120, 48, 1, 2, 1, 1, 0},
    {3072, 5120, 64, 1, 8, 2, 4, 0},
    {5120, 2048, 16, 2, 4, 1, 1, 1},  // o
    {5120, 2048, 32, 4, 2, 1, 1, 1},
    {5120, 2048, 48, 2, 2, 1, 1, 1},
    {5120, 2048, 64, 1, 4, 2, 4, 1},
    {17408, 5120, 16, 2, 8, 1, 1, 1},  // gate_up
    {17408, 5120, 32, 2, 2, 2, 4, 1},
    {17408, 5120, 48, 4, 1, 1, 4, 0},
    {17408, 5120, 64, 1, 1, 2, 4, 0},
    {5120, 8704, 16, 1, 2, 1, 1, 1},  // down
    {5120, 8704, 32, 4, 1, 1, 1, 0},
    {5120, 8704, 48, 1, 4, 1, 4, 0},
    {5120, 8704, 64, 1, 4, 2, 4, 0},
    {1280, 5120, 16, 1, 4, 1, 1, 1},  // kernel_projection
    {1280, 5120, 32, 1, 4, 1, 1, 1},
    {1280, 5120, 48, 1, 4, 1, 1, 1},
    {1280, 5120, 64, 1, 4, 1, 1, 0},
    {256, 5120, 16, 1, 8, 1, 1, 0},  // hidden_projection
    {256, 5120, 32, 1, 8, 1, 1, 0},
    {256, 5120, 48, 2, 4, 1, 1, 0},
    {256, 5120, 64, 2, 4, 1, 1, 0},
};
static_assert(r4d_table_rows_valid(gemm_w4a16_nt_w4a16));

// gemm_w4a8_nt, dtype w4a8 (Python: _CFG_A8)
inline constexpr r4d_table_row gemm_w4a8_nt_w4a8[] = {
    {3072, 5120, 16, 1, 4, 1, 1, 1},  // qkv
    {3072, 5120, 32, 4, 2, 1, 1, 1},
    {3072, 5120, 48, 1, 2, 1, 2, 1},
    {3072, 5120, 64, 4, 2, 1, 2, 1},
    {5120, 2048, 16, 1, 4, 1, 1, 1},  // o
    {5120, 2048, 32, 4, 2, 1, 1, 1},
    {5120, 2048, 48, 8, 2, 1, 2, 1},
    {5120, 2048, 64, 1, 2, 1, 2, 0},
    {17408, 5120, 16, 2, 8, 1, 1, 1},  // gate_up
    {17408, 5120, 32, 2, 8, 2, 1, 1},
    {17408, 5120, 48, 4, 1, 1, 2, 0},
    {17408, 5120, 64, 1, 1, 2, 2, 0},
    {5120, 8704, 16, 2, 2, 1, 1, 1},  // down
    {5120, 8704, 32, 2, 1, 1, 1, 1},
    {5120, 8704, 48, 2, 1, 1, 1, 1},
    {5120, 8704, 64, 4, 1, 1, 2, 0},
    {1280, 5120, 16, 1, 8, 1, 1, 1},  // kernel_projection
    {1280, 5120, 32, 1, 4, 1, 1, 1},
    {1280, 5120, 48, 1, 4, 1, 1, 1},
    {1280, 5120, 64, 1, 4, 1, 2, 1},
    {256, 5120, 16, 1, 8, 1, 1, 0},  // hidden_projection
    {256, 5120, 32, 1, 8, 1, 1, 0},
    {256, 5120, 48, 2, 8, 1, 1, 1},
    {256, 5120, 64, 2, 8, 1, 1, 1},
};
static_assert(r4d_table_rows_valid(gemm_w4a8_nt_w4a8));

// Above this many rows the w4a8 table serves (the test is `m > a8_m`).
inline constexpr int a8_m = 16;

}  // namespace r4d::generated
