// AMD RDNA3 (gfx11) WMMA, wave32: v_wmma_f32_16x16x16_{f16,bf16} and v_wmma_i32_16x16x16_iu8.
// Fragment layouts as data (AMD RDNA3 ISA, "Wave Matrix Multiply Accumulate"; LLVM gfx11 WMMA
// builtins), lane l, h = l >> 4, r = l & 15:
//   A (16x16, M x K), 16 elements per lane: row r, all 16 k (lanes l and l+16 hold the same data)
//   B (16x16, K x N), 16 elements per lane: col r, all 16 k (replicated likewise)
//   C/D (16x16 f32 or i32), 8 per lane:     col r, row 2i + h                       (i = 0..7)
// The packed weight is the seed's gfx12 order (see wmma_gfx12.h), where a lane holds only half
// of a column's 16 k (4h + {0-3, 8-11}); the other half sits in lane l ^ 16, fetched with one
// cross-half shuffle. Both operands use the canonical element order
//   k = {0,1,2,3, 8,9,10,11, 4,5,6,7, 12,13,14,15}
// (a permutation of k applied to both operands leaves the product unchanged).
// STATUS: written against the documented layouts; compile status in kernels/README.md; never run.
#ifndef R4_KERNELS_AMD_WMMA_GFX11_H
#define R4_KERNELS_AMD_WMMA_GFX11_H
#include "kernels/prelude.h"

namespace r4amd {
typedef _Float16 v16h __attribute__((ext_vector_type(16)));
typedef short v16s __attribute__((ext_vector_type(16)));
typedef float v8f __attribute__((ext_vector_type(8)));
typedef int v4i __attribute__((ext_vector_type(4)));
typedef int v8i __attribute__((ext_vector_type(8)));

__device__ inline int c_row(int lane, int i) { return 2 * i + (lane >> 4); }
__device__ inline int canon_k(int e) { return (e & 3) + 8 * ((e >> 2) & 1) + 4 * (e >> 3); }

// Own dword (this lane's half) and the partner's -> (low-half dword, high-half dword).
__device__ inline void halves(u32 d, int lane, u32& d0, u32& d1) {
  const u32 other = (u32)__shfl_xor((int)d, 16, 32);
  d0 = (lane >> 4) ? other : d;
  d1 = (lane >> 4) ? d : other;
}
__device__ inline int code_at(u32 d0, u32 d1, int e) {
  const u32 d = e < 8 ? d0 : d1;
  const int el = e & 7;
  const int nib = el < 4 ? 2 * el : 2 * (el - 4) + 1;
  const int c = (int)((d >> (4 * nib)) & 0xFu);
  return c >= 8 ? c - 16 : c;
}
__device__ inline v16h dequant_b_f16(u32 d, _Float16 s, int lane) {
  u32 d0, d1;
  halves(d, lane, d0, d1);
  v16h b;
#pragma unroll
  for (int e = 0; e < 16; ++e) b[e] = (_Float16)code_at(d0, d1, e) * s;
  return b;
}
__device__ inline v16s load_a16(const u16* row_k0, int) {
  v16s a;
#pragma unroll
  for (int e = 0; e < 16; ++e) a[e] = (short)row_k0[canon_k(e)];
  return a;
}
__device__ inline v8f mma_f16(v16s a, v16h b, v8f c) {
  return __builtin_amdgcn_wmma_f32_16x16x16_f16_w32(__builtin_bit_cast(v16h, a), b, c);
}
__device__ inline v8f mma_bf16(v16s a, v16s b, v8f c) {
  return __builtin_amdgcn_wmma_f32_16x16x16_bf16_w32(a, b, c);
}
__device__ inline v4i dequant_b_s8(u32 d, int lane) {
  u32 d0, d1;
  halves(d, lane, d0, d1);
  v4i b;
  b[0] = (int)((d0 << 4) & 0xF0F0F0F0u);
  b[1] = (int)(d0 & 0xF0F0F0F0u);
  b[2] = (int)((d1 << 4) & 0xF0F0F0F0u);
  b[3] = (int)(d1 & 0xF0F0F0F0u);
  return b;
}
__device__ inline v4i load_a8(const i8* row_k0, int) {
  v4i a;
  a[0] = *reinterpret_cast<const int*>(row_k0 + 0);
  a[1] = *reinterpret_cast<const int*>(row_k0 + 8);
  a[2] = *reinterpret_cast<const int*>(row_k0 + 4);
  a[3] = *reinterpret_cast<const int*>(row_k0 + 12);
  return a;
}
__device__ inline v8i mma_s8(v4i a, v4i b, v8i c) {
  return __builtin_amdgcn_wmma_i32_16x16x16_iu8_w32(true, a, true, b, c, false);
}
}  // namespace r4amd
#endif  // R4_KERNELS_AMD_WMMA_GFX11_H
