// NVIDIA epilogue stores of the mma / wgmma accumulator layout, packed across lanes: two shuffles
// per 8-row step turn a thread's four scattered bf16 outputs into four consecutive outputs of one
// row, stored with one 8-byte store (a warp then fills eight 32-byte sectors instead of
// half-filling sixteen with four 2-byte stores). Used by the sm90a generation's SK 1 epilogue
// (R4G_EPI_PACK, session 31: MB 4 and 3 tiles 2.5-4% faster on an H100). The ldg generation's SK
// 1 epilogue with it ran 0.1-0.2 us slower on its two M = 64 winners (MB 1), and 8-byte stores in
// the split-K reductions changed nothing measurable (session 31; both removed). The callers check
// that C is 8-byte aligned and N a multiple of 8 (r4d accepts a 2-byte aligned C, which keeps the
// 2-byte stores).
#ifndef R4_KERNELS_NV_EPILOGUE_PACK_H
#define R4_KERNELS_NV_EPILOGUE_PACK_H

#include "kernels/prelude.h"

// One 8-row step. Lane 4 g + t holds rows m = 2 t (+ the caller's base) and m + 1 at columns
// n0 = 16 t16 + g and n0 + 8: v0 (m, n0), v1 (m + 1, n0), v2 (m, n0 + 8), v3 (m + 1, n0 + 8).
// Shuffle 1 (lane ^ 4, g ^ 1) leaves lane g row m + (g & 1) at the column pairs 16 t16 + (g & 6)
// and + 8; shuffle 2 (lane ^ 8, g ^ 2) gives it four columns of that row: 16 t16 + (g & 4)
// (g & 2 = 0) or 16 t16 + 8 + (g & 4) (g & 2 = 2). Every lane of the warp must call it (the
// callers' conditions are uniform per warp); only rows < M are stored.
__device__ inline void r4_store_bf16_packed(u16* __restrict__ C, int M, int N, int m, int t16,
                                            int g, float v0, float v1, float v2, float v3) {
  const u32 b0 = r4_f32_to_bf16(v0), b1 = r4_f32_to_bf16(v1), b2 = r4_f32_to_bf16(v2),
            b3 = r4_f32_to_bf16(v3);
  const bool odd = g & 1;  // keeps row m + 1, sends row m
  const u32 keep = odd ? (b1 | b3 << 16) : (b0 | b2 << 16);
  const u32 got = __shfl_xor_sync(0xffffffffu, odd ? (b0 | b2 << 16) : (b1 | b3 << 16), 4);
  // The pairs at columns n0 & ~1 (lo) and (n0 + 8) & ~1 (hi), lower column in the low half.
  const u32 lo = odd ? (got & 0xFFFFu) | keep << 16 : (keep & 0xFFFFu) | got << 16;
  const u32 hi = odd ? (got >> 16) | (keep & 0xFFFF0000u) : (keep >> 16) | (got & 0xFFFF0000u);
  const bool upper = g & 2;  // keeps the n0 + 8 block
  const u32 got2 = __shfl_xor_sync(0xffffffffu, upper ? lo : hi, 8);
  const int row = m + (odd ? 1 : 0);
  if (row >= M) return;
  const uint2 w = upper ? make_uint2(got2, hi) : make_uint2(lo, got2);
  *reinterpret_cast<uint2*>(C + (i64)row * N + t16 * 16 + (upper ? 8 : 0) + (g & 4)) = w;
}

// Whether C and N allow the 8-byte stores (uniform over the launch).
__device__ inline bool r4_epilogue_wide(const u16* C, int N) {
  return ((reinterpret_cast<unsigned long long>(C) | (unsigned)N) & 7) == 0;
}

#endif  // R4_KERNELS_NV_EPILOGUE_PACK_H
