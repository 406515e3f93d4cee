// AMD RDNA4 (gfx12) WMMA, wave32: v_wmma_f32_16x16x16_{f16,bf16}, v_wmma_i32_16x16x16_iu8 and
// v_wmma_f32_16x16x16_fp8_fp8 (OCP e4m3 x OCP e4m3 -> f32; gfx12 only, RDNA3 has no fp8 WMMA).
//
// 1. The operand layouts as data (AMD "RDNA4 Instruction Set Architecture", section "Wave Matrix
//    Multiply Accumulate (WMMA)", the 16-bit and 8-bit matrix layouts; LLVM AMDGPUUsage and the
//    *_w32_gfx12 builtins), lane l, h = l >> 4, r = l & 15, element e of the lane's vector:
//      A (16x16, M x K), 8 elements per lane:  row r,  k = kK16[h][e]
//      B (16x16, K x N), 8 elements per lane:  col r,  k = kK16[h][e]
//      iu8 A / B, 8 bytes per lane:           row / col r, k = kK8[h][e]
//      fp8 A / B, 8 e4m3 bytes per lane:      row / col r, k = kKFp8[h][e]
//      C/D (16x16 f32 or i32), 8 per lane:     col r,  row = kCRow[h][e]
//    The ISA gives one layout for all 8-bit WMMA operands (IU8, FP8, BF8): the fp8 table holds the
//    same values as the iu8 one, kept apart so that the fp8 instruction's model reads its own
//    transcription (CK's wmma_gemm.hpp treats wmma_f32_16x16x16_f8f8_gfx12 and
//    wmma_i32_16x16x16_iu8_gfx12 alike: 16 k per instruction, 8 bytes per lane, two dwords).
//    Gfx12Wmma16x16x16{,Iu8,Fp8} below hand these tables to the host model of the instruction
//    (tests/kernels/amd/fragment_emulation_test.cpp), which is the only reader of the tables: the
//    kernel's own fragment code (2.) is written independently and checked against them.
// 2. The kernel's per-lane fragment assembly (what gemm_w4a{16,8}_nt_wmma.h call), plain C++ over
//    vector types so that the same text compiles for the host with R4_HOST_EMULATION.
//    The seed's `gfx12` weight layout (quant/layout/gfx12.h; _KOFF = (0,8,1,9,2,10,3,11) + 4h,
//    KPB = 64): lane l's 16 bytes of a (tile, 64-K block) are four B fragments (dword s = k16 step
//    s); nibble i of dword s is column r, k = 16s + 4h + _KOFF[i]; even nibbles are elements
//    0..3, odd nibbles elements 4..7. Scales: one dword per (tile, group, column r).
//    fp8 (gemm_w4a8fp8_nt): the same nibbles become e4m3 bytes holding code * 2^-9 exactly
//    (int4x8_to_e4m3 below, the arithmetic of kernels/nv/cvt_fp8.h), in the iu8 path's byte order.
// 3. The instructions (device only).
// STATUS: compiled for gfx1200/gfx1201 by CI with clang-19 (every valid config, ISA checked) and
// emulated on the CPU (f16, bf16, iu8 and fp8); never run on an RDNA4 GPU. kernels/README.md says
// what that proves.
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
  // fp8 (e4m3) A and B: k of byte e (two dwords) for lane half h; the 8-bit layout again
  static constexpr signed char kKFp8[2][8] = {{0, 1, 2, 3, 8, 9, 10, 11},
                                              {4, 5, 6, 7, 12, 13, 14, 15}};
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
struct Gfx12Wmma16x16x16Fp8 {  // fp8 x fp8 (OCP e4m3 on gfx12), f32 C/D
  static constexpr int kLanes = 32, kM = 16, kN = 16, kK = 16, kElemsAB = 8, kElemsC = 8;
  static constexpr int a_row(int l, int) { return l % 16; }
  static constexpr int a_k(int l, int e) { return Gfx12Tables::kKFp8[l / 16][e]; }
  static constexpr int b_col(int l, int) { return l % 16; }
  static constexpr int b_k(int l, int e) { return Gfx12Tables::kKFp8[l / 16][e]; }
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
// fp8: eight int4 codes (nibble i of d) -> e4m3 bytes holding code * 2^-9, exactly: an OCP e4m3
// byte 0000 0mmm is the subnormal m * 2^-9 and 0000 1000 the normal 2^-6 = 8 * 2^-9, so |c| in
// the low nibble with the sign in bit 7 is c * 2^-9 for every c in -8..7. Two's complement ->
// sign-magnitude for all eight nibbles at once (no carry crosses a nibble, |c| <= 8); `even` byte
// j is nibble 2j, `odd` byte j nibble 2j+1. A transcription of kernels/nv/cvt_fp8.h
// int4x8_to_e4m3 (that file compiles as host or CUDA code only; its arithmetic was checked for
// every code at every nibble and run on the H200). It relies on the WMMA taking e4m3 subnormals
// at their value, which the OCP format defines; never checked on an RDNA4 GPU (kernels/README.md).
__device__ inline void int4x8_to_e4m3(u32 d, u32& even, u32& odd) {
  const u32 s = d & 0x88888888u;          // sign bit of each nibble
  const u32 s1 = s >> 3;                  // 1 per negative nibble
  const u32 mag = (d ^ (s1 * 15u)) + s1;  // |c| per nibble, 0..8
  even = (mag & 0x0F0F0F0Fu) | ((s << 4) & 0xF0F0F0F0u);
  odd = ((mag >> 4) & 0x0F0F0F0Fu) | (s & 0xF0F0F0F0u);
}
// B fragment (weights) of one k16 step as e4m3 bytes: elements {even nibbles, odd nibbles}, the
// iu8 path's order (dequant_b_s8), so the activation bytes load as load_a8 loads them.
__device__ inline v2i dequant_b_e4m3(u32 d, int /*lane*/) {
  u32 even, odd;
  int4x8_to_e4m3(d, even, odd);
  v2i b;
  b[0] = (int)even;
  b[1] = (int)odd;
  return b;
}
// Activation A fragment, e4m3 bytes (quant_act_fp8's output): row pointer at k0 of this k16 step.
__device__ inline v2i load_a_e4m3(const unsigned char* row_k0, int lane) {
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
// e4m3 x e4m3 -> f32 (v_wmma_f32_16x16x16_fp8_fp8; clang-19: (v2i a, v2i b, v8f c) -> v8f).
__device__ inline v8f mma_fp8(v2i a, v2i b, v8f c) {
  return __builtin_amdgcn_wmma_f32_16x16x16_fp8_fp8_w32_gfx12(a, b, c);
}
#endif
}  // namespace gfx12
}  // namespace r4amd
#endif  // R4_KERNELS_AMD_WMMA_GFX12_H
