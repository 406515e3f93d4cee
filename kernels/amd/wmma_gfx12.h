// AMD RDNA4 (gfx12) WMMA, wave32: v_wmma_f32_16x16x16_{f16,bf16} and v_wmma_i32_16x16x16_iu8.
//
// 1. The operand layouts as data (AMD "RDNA4 Instruction Set Architecture", section "Wave Matrix
//    Multiply Accumulate (WMMA)", the 16-bit and 8-bit matrix layouts; LLVM AMDGPUUsage and the
//    *_w32_gfx12 builtins), lane l, h = l >> 4, r = l & 15, element e of the lane's vector:
//      A (16x16, M x K), 8 elements per lane:  row r,  k = kK16[h][e]
//      B (16x16, K x N), 8 elements per lane:  col r,  k = kK16[h][e]
//      iu8 A / B, 8 bytes per lane:           row / col r, k = kK8[h][e]
//      C/D (16x16 f32 or i32), 8 per lane:     col r,  row = kCRow[h][e]
//    Gfx12Wmma16x16x16{,Iu8} below hand these tables to the host model of the instruction
//    (tests/kernels/amd/fragment_emulation_test.cpp), which is the only reader of the tables: the
//    kernel's own fragment code (2.) is written independently and checked against them.
// 2. The kernel's per-lane fragment assembly (what gemm_w4a{16,8}_nt_wmma.h call), plain C++ over
//    vector types so that the same text compiles for the host with R4_HOST_EMULATION.
//    The seed's `gfx12` weight layout (quant/layout/gfx12.h; _KOFF = (0,8,1,9,2,10,3,11) + 4h,
//    KPB = 64): lane l's 16 bytes of a (tile, 64-K block) are four B fragments (dword s = k16 step
//    s); nibble i of dword s is column r, k = 16s + 4h + _KOFF[i]; even nibbles are elements
//    0..3, odd nibbles elements 4..7. Scales: one dword per (tile, group, column r).
// 3. The instructions (device only).
// STATUS: compiled for gfx1200/gfx1201 by CI with clang-19 (every valid config, ISA checked) and
// emulated on the CPU; never run on an RDNA4 GPU. kernels/README.md says what that proves.
#ifndef R4_KERNELS_AMD_WMMA_GFX12_H
#define R4_KERNELS_AMD_WMMA_GFX12_H
#ifndef R4_HOST_EMULATION
#include "kernels/prelude.h"
#endif

// One inline namespace per generation: the kernels say r4amd::x on every target, while the
// names stay distinct where several generations meet in one program (the host emulation test,
// whose unoptimised build linked gfx12's load_a16 to gfx11's: same signature, other vector).
namespace r4amd {
inline namespace gfx12 {
typedef _Float16 v8h __attribute__((vector_size(16)));
typedef short v8s __attribute__((vector_size(16)));
typedef float v8f __attribute__((vector_size(32)));
typedef int v2i __attribute__((vector_size(8)));
typedef int v8i __attribute__((vector_size(32)));

// ---- 1. layouts as data -------------------------------------------------------------------------
// (lane, element) -> (row-or-column, k) per operand, as tables; the accessors give the same view
// as the MFMA file's (mfma_gfx942.h), which the host model reads.
struct Gfx12Tables {
  // f16/bf16 A and B: k of element e for lane half h
  static constexpr signed char kK16[2][8] = {{0, 1, 2, 3, 8, 9, 10, 11}, {4, 5, 6, 7, 12, 13, 14, 15}};
  // iu8 A and B: k of byte e (two dwords) for lane half h
  static constexpr signed char kK8[2][8] = {{0, 1, 2, 3, 8, 9, 10, 11}, {4, 5, 6, 7, 12, 13, 14, 15}};
  // C/D: row of element e for lane half h (the column is r)
  static constexpr signed char kCRow[2][8] = {{0, 1, 2, 3, 4, 5, 6, 7}, {8, 9, 10, 11, 12, 13, 14, 15}};
};
struct Gfx12Wmma16x16x16 {  // f16, bf16
  static constexpr int kLanes = 32, kM = 16, kN = 16, kK = 16, kElemsAB = 8, kElemsC = 8;
  static constexpr int a_row(int l, int) { return l % 16; }
  static constexpr int a_k(int l, int e) { return Gfx12Tables::kK16[l / 16][e]; }
  static constexpr int b_col(int l, int) { return l % 16; }
  static constexpr int b_k(int l, int e) { return Gfx12Tables::kK16[l / 16][e]; }
  static constexpr int c_row(int l, int e) { return Gfx12Tables::kCRow[l / 16][e]; }
  static constexpr int c_col(int l, int) { return l % 16; }
};
struct Gfx12Wmma16x16x16Iu8 {  // iu8
  static constexpr int kLanes = 32, kM = 16, kN = 16, kK = 16, kElemsAB = 8, kElemsC = 8;
  static constexpr int a_row(int l, int) { return l % 16; }
  static constexpr int a_k(int l, int e) { return Gfx12Tables::kK8[l / 16][e]; }
  static constexpr int b_col(int l, int) { return l % 16; }
  static constexpr int b_k(int l, int e) { return Gfx12Tables::kK8[l / 16][e]; }
  static constexpr int c_row(int l, int e) { return Gfx12Tables::kCRow[l / 16][e]; }
  static constexpr int c_col(int l, int) { return l % 16; }
};

// ---- 2. the kernel's fragment assembly ----------------------------------------------------------
// Lanes per C column group: the C row of accumulator element i in `lane`.
__device__ inline int c_row(int lane, int i) { return 8 * (lane >> 4) + i; }
// The code of nibble `nib` of a layout dword.
__device__ inline int code_at(u32 d, int nib) {
  const int c = (int)((d >> (4 * nib)) & 0xFu);
  return c >= 8 ? c - 16 : c;
}
// Nibble holding element e: (0,2,4,6,1,3,5,7)[e].
__device__ inline int nibble_of(int e) { return e < 4 ? 2 * e : 2 * (e - 4) + 1; }

// B fragment (weights) of one k16 step from one layout dword, f16, scaled by the f16 scale s.
__device__ inline v8h dequant_b_f16(u32 d, _Float16 s, int /*lane*/) {
  v8h b;
#pragma unroll
  for (int e = 0; e < 8; ++e) b[e] = (_Float16)code_at(d, nibble_of(e)) * s;
  return b;
}
// The same as bf16 bits: code * scale in f32, rounded to bf16 (nearest even).
__device__ inline v8s dequant_b_bf16(u32 d, float s, int /*lane*/) {
  v8s b;
#pragma unroll
  for (int e = 0; e < 8; ++e) b[e] = (short)r4_f32_to_bf16((float)code_at(d, nibble_of(e)) * s);
  return b;
}
// Activation A fragment, f16/bf16 bits: row pointer at k0 of this k16 step.
__device__ inline v8s load_a16(const u16* row_k0, int lane) {
  const int h = lane >> 4;
  v8s a;
#pragma unroll
  for (int e = 0; e < 8; ++e) a[e] = (short)row_k0[4 * h + 8 * (e >> 2) + (e & 3)];
  return a;
}
// int8: B bytes 16*code, elements {even nibbles, odd nibbles}; A the matching activation bytes.
__device__ inline v2i dequant_b_s8(u32 d, int /*lane*/) {
  v2i b;
  b[0] = (int)((d << 4) & 0xF0F0F0F0u);
  b[1] = (int)(d & 0xF0F0F0F0u);
  return b;
}
__device__ inline v2i load_a8(const i8* row_k0, int lane) {
  const int h = lane >> 4;
  v2i a;
  a[0] = *reinterpret_cast<const int*>(row_k0 + 4 * h);
  a[1] = *reinterpret_cast<const int*>(row_k0 + 8 + 4 * h);
  return a;
}

// ---- 3. the instructions ------------------------------------------------------------------------
#ifndef R4_HOST_EMULATION
__device__ inline v8f mma_f16(v8s a, v8h b, v8f c) {
  return __builtin_amdgcn_wmma_f32_16x16x16_f16_w32_gfx12(__builtin_bit_cast(v8h, a), b, c);
}
__device__ inline v8f mma_bf16(v8s a, v8s b, v8f c) {
  return __builtin_amdgcn_wmma_f32_16x16x16_bf16_w32_gfx12(a, b, c);
}
__device__ inline v8i mma_s8(v2i a, v2i b, v8i c) {
  return __builtin_amdgcn_wmma_i32_16x16x16_iu8_w32_gfx12(true, a, true, b, c, false);
}
#endif
}  // namespace gfx12
}  // namespace r4amd
#endif  // R4_KERNELS_AMD_WMMA_GFX12_H
