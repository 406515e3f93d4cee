// AMD RDNA4 (gfx12) WMMA, wave32: v_wmma_f32_16x16x16_{f16,bf16} and v_wmma_i32_16x16x16_iu8.
// Fragment layouts as data (AMD RDNA4 ISA, "Wave Matrix Multiply Accumulate", 16-bit and 8-bit
// operand layouts; LLVM AMDGPUUsage / the gfx12 WMMA builtins), lane l, h = l >> 4, r = l & 15:
//   A (16x16, M x K), 8 elements per lane:  row r, k = 4h + 8*(e >> 2) + (e & 3)   (e = 0..7)
//   B (16x16, K x N), 8 elements per lane:  col r, k = 4h + 8*(e >> 2) + (e & 3)
//   C/D (16x16 f32 or i32), 8 per lane:     col r, row 8h + i                       (i = 0..7)
//   iu8: 8 bytes per lane; A and B use the same per-lane k assignment, so the pairing below (real
//   k {4h..4h+3} then {8+4h..8+4h+3} in both operands) computes the same dot product whatever k
//   labels the hardware gives the bytes.
// The seed's `gfx12` weight layout (quant/layout/gfx12.h; _KOFF = (0,8,1,9,2,10,3,11) + 4h, KPB =
// 64): lane l's 16 bytes of a (tile, 64-K block) are four B fragments (dword s = k16 step s);
// nibble i of dword s is column r, k = 16s + 4h + _KOFF[i]; even nibbles are elements 0..3, odd
// nibbles elements 4..7. Scales: one dword per (tile, group, column r).
// STATUS: written against the documented layouts; NOT compiled here (Debian's hipRTC 5.2 has no
// gfx12 target) and never run. kernels/README.md says what was verified.
#ifndef R4_KERNELS_AMD_WMMA_GFX12_H
#define R4_KERNELS_AMD_WMMA_GFX12_H
#include "kernels/prelude.h"

namespace r4amd {
typedef _Float16 v8h __attribute__((ext_vector_type(8)));
typedef short v8s __attribute__((ext_vector_type(8)));
typedef float v8f __attribute__((ext_vector_type(8)));
typedef int v2i __attribute__((ext_vector_type(2)));
typedef int v8i __attribute__((ext_vector_type(8)));

constexpr int kRowsPerLaneC = 8;  // C: row 8h + i
__device__ inline int c_row(int lane, int i) { return 8 * (lane >> 4) + i; }

// B fragment (weights) of k16 step from one layout dword, f16, scaled: element e = nibble
// (0,2,4,6,1,3,5,7)[e].
__device__ inline v8h dequant_b_f16(u32 d, _Float16 s) {
  v8h b;
#pragma unroll
  for (int e = 0; e < 8; ++e) {
    const int nib = e < 4 ? 2 * e : 2 * (e - 4) + 1;
    const int code = (int)((d >> (4 * nib)) & 0xFu);
    b[e] = (_Float16)(code >= 8 ? code - 16 : code) * s;
  }
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
__device__ inline v8f mma_f16(v8s a, v8h b, v8f c) {
  return __builtin_amdgcn_wmma_f32_16x16x16_f16_w32_gfx12(__builtin_bit_cast(v8h, a), b, c);
}
__device__ inline v8f mma_bf16(v8s a, v8s b, v8f c) {
  return __builtin_amdgcn_wmma_f32_16x16x16_bf16_w32_gfx12(a, b, c);
}
// int8: B bytes 16*code, elements {even nibbles, odd nibbles}; A the matching activation bytes.
__device__ inline v2i dequant_b_s8(u32 d) {
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
__device__ inline v8i mma_s8(v2i a, v2i b, v8i c) {
  return __builtin_amdgcn_wmma_i32_16x16x16_iu8_w32_gfx12(true, a, true, b, c, false);
}
}  // namespace r4amd
#endif  // R4_KERNELS_AMD_WMMA_GFX12_H
