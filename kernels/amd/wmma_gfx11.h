// AMD RDNA3 (gfx11) WMMA, wave32: v_wmma_f32_16x16x16_{f16,bf16} and v_wmma_i32_16x16x16_iu8.
//
// 1. The operand layouts as data (AMD "RDNA3 Instruction Set Architecture", section "Wave Matrix
//    Multiply Accumulate", and LLVM's *_w32 WMMA builtins), lane l, h = l >> 4, r = l & 15:
//      A (16x16, M x K), 16 elements per lane: row r, k = e (lanes l and l ^ 16 must hold the same
//        data: the hardware reads each row from both halves)
//      B (16x16, K x N), 16 elements per lane: col r, k = e (replicated likewise)
//      iu8 A / B, 16 bytes per lane:           row / col r, k = e (replicated likewise)
//      C/D (16x16 f32 or i32), 8 per lane:     col r, row = 2e + h
//    Gfx11Wmma16x16x16{,Iu8} hold them for the host model (tests/kernels/amd/fragment_emulation_test.cpp).
// 2. The kernel's per-lane fragment assembly. The packed weight is the seed's gfx12 order (see
//    wmma_gfx12.h), where a lane holds only half of a column's 16 k (4h + {0-3, 8-11}); the other
//    half sits in lane l ^ 16, fetched with one cross-half shuffle. Both operands use the element
//    order
//      k = {0,1,2,3, 8,9,10,11, 4,5,6,7, 12,13,14,15}
//    (a permutation of k applied to both operands leaves the product unchanged).
// 3. The instructions (device only).
// STATUS: compiled for gfx1100 by CI with clang-19 (every valid config, ISA checked) and emulated
// on the CPU; never run on an RDNA3 GPU.
#ifndef R4_KERNELS_AMD_WMMA_GFX11_H
#define R4_KERNELS_AMD_WMMA_GFX11_H
#ifndef R4_HOST_EMULATION
#include "kernels/prelude.h"
#endif

// One inline namespace per generation: the kernels say r4amd::x on every target, while the
// names stay distinct where several generations meet in one program (the host emulation test,
// whose unoptimised build linked gfx12's load_a16 to gfx11's: same signature, other vector).
namespace r4amd {
inline namespace gfx11 {
typedef _Float16 v16h __attribute__((vector_size(32)));
typedef short v16s __attribute__((vector_size(32)));
typedef float v8f __attribute__((vector_size(32)));
typedef int v4i __attribute__((vector_size(16)));
typedef int v8i __attribute__((vector_size(32)));

// ---- 1. layouts as data -------------------------------------------------------------------------
struct Gfx11Tables {
  // f16/bf16 A and B: k of element e for lane half h (both halves hold all 16 k)
  static constexpr signed char kK16[2][16] = {{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
                                              {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}};
  // iu8 A and B: k of byte e (four dwords) for lane half h
  static constexpr signed char kK8[2][16] = {{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
                                             {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}};
  // C/D: row of element e for lane half h (the column is r)
  static constexpr signed char kCRow[2][8] = {{0, 2, 4, 6, 8, 10, 12, 14}, {1, 3, 5, 7, 9, 11, 13, 15}};
};
struct Gfx11Wmma16x16x16 {  // f16, bf16: two lanes per (row, k), which must agree
  static constexpr int kLanes = 32, kM = 16, kN = 16, kK = 16, kElemsAB = 16, kElemsC = 8;
  static constexpr int a_row(int l, int) { return l % 16; }
  static constexpr int a_k(int l, int e) { return Gfx11Tables::kK16[l / 16][e]; }
  static constexpr int b_col(int l, int) { return l % 16; }
  static constexpr int b_k(int l, int e) { return Gfx11Tables::kK16[l / 16][e]; }
  static constexpr int c_row(int l, int e) { return Gfx11Tables::kCRow[l / 16][e]; }
  static constexpr int c_col(int l, int) { return l % 16; }
};
struct Gfx11Wmma16x16x16Iu8 {  // iu8, replicated likewise
  static constexpr int kLanes = 32, kM = 16, kN = 16, kK = 16, kElemsAB = 16, kElemsC = 8;
  static constexpr int a_row(int l, int) { return l % 16; }
  static constexpr int a_k(int l, int e) { return Gfx11Tables::kK8[l / 16][e]; }
  static constexpr int b_col(int l, int) { return l % 16; }
  static constexpr int b_k(int l, int e) { return Gfx11Tables::kK8[l / 16][e]; }
  static constexpr int c_row(int l, int e) { return Gfx11Tables::kCRow[l / 16][e]; }
  static constexpr int c_col(int l, int) { return l % 16; }
};

// ---- 2. the kernel's fragment assembly ----------------------------------------------------------
__device__ inline int c_row(int lane, int i) { return 2 * i + (lane >> 4); }
__device__ inline int canon_k(int e) { return (e & 3) + 8 * ((e >> 2) & 1) + 4 * (e >> 3); }

// This lane's dword and its partner's (lane ^ 16) -> (the lane-half-0 dword, the half-1 dword).
__device__ inline void halves_of(u32 own, u32 partner, int lane, u32& d0, u32& d1) {
  d0 = (lane >> 4) ? partner : own;
  d1 = (lane >> 4) ? own : partner;
}
__device__ inline int code_at(u32 d0, u32 d1, int e) {
  const u32 d = e < 8 ? d0 : d1;
  const int el = e & 7;
  const int nib = el < 4 ? 2 * el : 2 * (el - 4) + 1;
  const int c = (int)((d >> (4 * nib)) & 0xFu);
  return c >= 8 ? c - 16 : c;
}
// The B fragments from both halves' dwords (the shuffle-free part, emulated on the host).
__device__ inline v16h dequant_b_f16_halves(u32 d0, u32 d1, _Float16 s) {
  v16h b;
#pragma unroll
  for (int e = 0; e < 16; ++e) b[e] = (_Float16)code_at(d0, d1, e) * s;
  return b;
}
__device__ inline v16s dequant_b_bf16_halves(u32 d0, u32 d1, float s) {
  v16s b;
#pragma unroll
  for (int e = 0; e < 16; ++e) b[e] = (short)r4_f32_to_bf16((float)code_at(d0, d1, e) * s);
  return b;
}
__device__ inline v4i dequant_b_s8_halves(u32 d0, u32 d1) {
  v4i b;
  b[0] = (int)((d0 << 4) & 0xF0F0F0F0u);
  b[1] = (int)(d0 & 0xF0F0F0F0u);
  b[2] = (int)((d1 << 4) & 0xF0F0F0F0u);
  b[3] = (int)(d1 & 0xF0F0F0F0u);
  return b;
}
__device__ inline v16s load_a16(const u16* row_k0, int) {
  v16s a;
#pragma unroll
  for (int e = 0; e < 16; ++e) a[e] = (short)row_k0[canon_k(e)];
  return a;
}
__device__ inline v4i load_a8(const i8* row_k0, int) {
  v4i a;
  a[0] = *reinterpret_cast<const int*>(row_k0 + 0);
  a[1] = *reinterpret_cast<const int*>(row_k0 + 8);
  a[2] = *reinterpret_cast<const int*>(row_k0 + 4);
  a[3] = *reinterpret_cast<const int*>(row_k0 + 12);
  return a;
}

// ---- 3. the cross-lane step and the instructions ------------------------------------------------
#ifndef R4_HOST_EMULATION
__device__ inline void halves(u32 d, int lane, u32& d0, u32& d1) {
  halves_of(d, (u32)__shfl_xor((int)d, 16, 32), lane, d0, d1);
}
__device__ inline v16h dequant_b_f16(u32 d, _Float16 s, int lane) {
  u32 d0, d1;
  halves(d, lane, d0, d1);
  return dequant_b_f16_halves(d0, d1, s);
}
__device__ inline v16s dequant_b_bf16(u32 d, float s, int lane) {
  u32 d0, d1;
  halves(d, lane, d0, d1);
  return dequant_b_bf16_halves(d0, d1, s);
}
__device__ inline v4i dequant_b_s8(u32 d, int lane) {
  u32 d0, d1;
  halves(d, lane, d0, d1);
  return dequant_b_s8_halves(d0, d1);
}
__device__ inline v8f mma_f16(v16s a, v16h b, v8f c) {
  return __builtin_amdgcn_wmma_f32_16x16x16_f16_w32(__builtin_bit_cast(v16h, a), b, c);
}
__device__ inline v8f mma_bf16(v16s a, v16s b, v8f c) {
  return __builtin_amdgcn_wmma_f32_16x16x16_bf16_w32(a, b, c);
}
__device__ inline v8i mma_s8(v4i a, v4i b, v8i c) {
  return __builtin_amdgcn_wmma_i32_16x16x16_iu8_w32(true, a, true, b, c, false);
}
#endif
}  // namespace gfx11
}  // namespace r4amd
#endif  // R4_KERNELS_AMD_WMMA_GFX11_H
