// AMD CDNA3 (gfx942: MI300X, MI300A, MI325X) MFMA, wave64. No WMMA on this target; 64 KiB LDS.
//
// 1. The operand layouts as data (AMD "CDNA3 Instruction Set Architecture", section 7 "Matrix
//    Arithmetic Instructions", and AMD's matrix instruction calculator), lane l, element v of the
//    lane's vector. One table per instruction shape; each gives, for A (M x K), B (K x N) and D
//    (M x N), the (row or column, k) or (row, column) that lane l's element v holds:
//
//    v_mfma_f32_16x16x16_f16 / v_mfma_f32_16x16x16_bf16 (the "_1k" bf16 form), 4 elements:
//      A: row l % 16, k = 4 (l / 16) + v        B: col l % 16, k = 4 (l / 16) + v
//      D: col l % 16, row = 4 (l / 16) + v
//    v_mfma_i32_16x16x32_i8 and v_mfma_f32_16x16x32_fp8_fp8 (8 bytes per lane; MI300's fp8 is
//    the FNUZ e4m3 variant, bias 8, no negative zero, not OCP e4m3), D as above (4 elements):
//      A: row l % 16, k = 8 (l / 16) + v        B: col l % 16, k = 8 (l / 16) + v
//    v_mfma_f32_32x32x8_f16, 4 elements in, 16 out:
//      A: row l % 32, k = 4 (l / 32) + v        B: col l % 32, k = 4 (l / 32) + v
//      D: col l % 32, row = 8 (v / 4) + 4 (l / 32) + v % 4
//    The tables are read only by the host model of the instructions
//    (tests/kernels/amd/fragment_emulation_test.cpp); the kernel's fragment code (2.) is written
//    independently and checked against them.
// 2. The kernel's per-lane fragment assembly for the `gfx942` weight layout
//    (quant/layout/gfx942.h: lane 16q + r holds row r at k {16s + 4q + j}; dword d nibble i is
//    k = 32d + 16 (i & 1) + 4q + (i >> 1)). Weights are the B operand, activations A:
//      f16/bf16, k16 step s = 2d + e: B half v = nibble 2v + e of dword d (k 16s + 4q + v);
//        A = activations [16s + 4q, +4): the natural order on both sides.
//      i8, k32 step u = dword u: B = {(d << 4) & 0xF0F0F0F0, d & 0xF0F0F0F0} (16 * code);
//        A = activations [32u + 4q, +4) then [32u + 16 + 4q, +4).
//      D element i: row 4q + i, column r.
// 3. The instructions (device only). The 32x32x8 and fp8 forms are here with their layouts for
//    kernels to come; the two GEMMs use the 16x16 forms (M tiles of 16 rows, like WMMA).
// STATUS: compiled for gfx942 by CI with clang-19 (every valid config, ISA checked) and emulated
// on the CPU; never run on an MI300.
#ifndef R4_KERNELS_AMD_MFMA_GFX942_H
#define R4_KERNELS_AMD_MFMA_GFX942_H
#ifndef R4_HOST_EMULATION
#include "kernels/prelude.h"
#endif

// One inline namespace per generation: the kernels say r4amd::x on every target, while the
// names stay distinct where several generations meet in one program (the host emulation test,
// whose unoptimised build linked gfx12's load_a16 to gfx11's: same signature, other vector).
namespace r4amd {
inline namespace gfx942 {
typedef _Float16 v4h __attribute__((vector_size(8)));
typedef short v4s __attribute__((vector_size(8)));
typedef float v4f __attribute__((vector_size(16)));
typedef float v16f __attribute__((vector_size(64)));
typedef int v4i __attribute__((vector_size(16)));
typedef long long i8x8;  // eight i8 (or fp8) as the MFMA builtins take them: one 64-bit integer

// ---- 1. layouts as data -------------------------------------------------------------------------
// (lane, element) -> (row-or-column, k) per operand, for an MxNxK instruction on 64 lanes.
struct Gfx942Mfma16x16x16 {  // f16, bf16
  static constexpr int kLanes = 64, kM = 16, kN = 16, kK = 16, kElemsAB = 4, kElemsC = 4;
  static constexpr int a_row(int l, int) { return l % 16; }
  static constexpr int a_k(int l, int v) { return 4 * (l / 16) + v; }
  static constexpr int b_col(int l, int) { return l % 16; }
  static constexpr int b_k(int l, int v) { return 4 * (l / 16) + v; }
  static constexpr int c_row(int l, int v) { return 4 * (l / 16) + v; }
  static constexpr int c_col(int l, int) { return l % 16; }
};
struct Gfx942Mfma16x16x32 {  // i8, fp8 (FNUZ)
  static constexpr int kLanes = 64, kM = 16, kN = 16, kK = 32, kElemsAB = 8, kElemsC = 4;
  static constexpr int a_row(int l, int) { return l % 16; }
  static constexpr int a_k(int l, int v) { return 8 * (l / 16) + v; }
  static constexpr int b_col(int l, int) { return l % 16; }
  static constexpr int b_k(int l, int v) { return 8 * (l / 16) + v; }
  static constexpr int c_row(int l, int v) { return 4 * (l / 16) + v; }
  static constexpr int c_col(int l, int) { return l % 16; }
};
struct Gfx942Mfma32x32x8 {  // f16
  static constexpr int kLanes = 64, kM = 32, kN = 32, kK = 8, kElemsAB = 4, kElemsC = 16;
  static constexpr int a_row(int l, int) { return l % 32; }
  static constexpr int a_k(int l, int v) { return 4 * (l / 32) + v; }
  static constexpr int b_col(int l, int) { return l % 32; }
  static constexpr int b_k(int l, int v) { return 4 * (l / 32) + v; }
  static constexpr int c_row(int l, int v) { return 8 * (v / 4) + 4 * (l / 32) + v % 4; }
  static constexpr int c_col(int l, int) { return l % 32; }
};

// ---- 2. the kernel's fragment assembly ----------------------------------------------------------
// The D row of accumulator element i in `lane` (its column is lane & 15).
__device__ inline int c_row(int lane, int i) { return 4 * ((lane >> 4) & 3) + i; }
__device__ inline int code_at(u32 d, int nib) {
  const int c = (int)((d >> (4 * nib)) & 0xFu);
  return c >= 8 ? c - 16 : c;
}
// B fragment of k16 step s = 2d + e from the layout dword d: half v = nibble 2v + e, scaled.
__device__ inline v4h dequant_b_f16(u32 d, int e, _Float16 s) {
  v4h b;
#pragma unroll
  for (int v = 0; v < 4; ++v) b[v] = (_Float16)code_at(d, 2 * v + e) * s;
  return b;
}
// The same as bf16 bits: code * scale in f32, rounded to bf16 (nearest even).
__device__ inline v4s dequant_b_bf16(u32 d, int e, float s) {
  v4s b;
#pragma unroll
  for (int v = 0; v < 4; ++v) b[v] = (short)r4_f32_to_bf16((float)code_at(d, 2 * v + e) * s);
  return b;
}
// Activation A fragment, f16/bf16 bits: row pointer at k0 of this k16 step; the lane's 4 halves.
__device__ inline v4s load_a16(const u16* row_k0, int lane) {
  const int q = (lane >> 4) & 3;
  v4s a;
#pragma unroll
  for (int v = 0; v < 4; ++v) a[v] = (short)row_k0[4 * q + v];
  return a;
}
// int8 B of k32 step u from dword u: bytes 0..3 the even nibbles, 4..7 the odd ones, 16*code.
__device__ inline i8x8 dequant_b_s8(u32 d) {
  const unsigned long long lo = (d << 4) & 0xF0F0F0F0u;
  const unsigned long long hi = d & 0xF0F0F0F0u;
  return (i8x8)(lo | (hi << 32));
}
// int8 A of k32 step u: row pointer at k0 = 32u; bytes [4q, +4) then [16 + 4q, +4).
__device__ inline i8x8 load_a8(const i8* row_k0, int lane) {
  const int q = (lane >> 4) & 3;
  const unsigned long long lo = *reinterpret_cast<const u32*>(row_k0 + 4 * q);
  const unsigned long long hi = *reinterpret_cast<const u32*>(row_k0 + 16 + 4 * q);
  return (i8x8)(lo | (hi << 32));
}

// ---- 3. the instructions ------------------------------------------------------------------------
#ifndef R4_HOST_EMULATION
typedef u32 r4_u32v2 __attribute__((ext_vector_type(2)));
// The lane's 8 weight bytes of a (tile, block); NT = 1: a non-temporal load.
template <int NT>
__device__ inline void ld_weight8(const u32* p, u32& d0, u32& d1) {
  const r4_u32v2 v = NT ? __builtin_nontemporal_load(reinterpret_cast<const r4_u32v2*>(p))
                        : *reinterpret_cast<const r4_u32v2*>(p);
  d0 = v.x;
  d1 = v.y;
}
__device__ inline v4f mma_f16(v4s a, v4h b, v4f c) {
  return __builtin_amdgcn_mfma_f32_16x16x16f16(__builtin_bit_cast(v4h, a), b, c, 0, 0, 0);
}
__device__ inline v4f mma_bf16(v4s a, v4s b, v4f c) {
  return __builtin_amdgcn_mfma_f32_16x16x16bf16_1k(a, b, c, 0, 0, 0);
}
__device__ inline v4i mma_s8(i8x8 a, i8x8 b, v4i c) {
  return __builtin_amdgcn_mfma_i32_16x16x32_i8(a, b, c, 0, 0, 0);
}
// FNUZ e4m3 x FNUZ e4m3 -> f32 (not used by the GEMMs yet).
__device__ inline v4f mma_fp8(i8x8 a, i8x8 b, v4f c) {
  return __builtin_amdgcn_mfma_f32_16x16x32_fp8_fp8(a, b, c, 0, 0, 0);
}
// 32x32x8 f16 (not used by the GEMMs yet: M tiles are 16 rows in this family).
__device__ inline v16f mma_f16_32x32x8(v4h a, v4h b, v16f c) {
  return __builtin_amdgcn_mfma_f32_32x32x8f16(a, b, c, 0, 0, 0);
}
#endif
}  // namespace gfx942
}  // namespace r4amd
#endif  // R4_KERNELS_AMD_MFMA_GFX942_H
