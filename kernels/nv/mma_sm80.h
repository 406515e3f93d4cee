// NVIDIA sm_80+ matrix-fragment helpers: mma.sync m16n8k16 (f16, bf16 -> f32) and m16n8k32
// (s8 -> s32), plus the 4-bit dequantisers that build their A fragments from the `sm80` layout
// (quant/layout/sm80.h). Raw instructions only; the kernels own the loops.
//
// Fragment layouts as data (PTX ISA 8.x, section 9.7.13.4.8 "Matrix Fragments for mma.m16n8k16
// with floating point type" and 9.7.13.4.9 "... mma.m16n8k32"), lane = 4*g + t:
//
//   m16n8k16 .f16/.bf16        (T32, V) -> (row, col)
//     A (16x16, 4 x b32 = 8 halves):  a0:(g,   2t+{0,1})  a1:(g+8, 2t+{0,1})
//                                     a2:(g,   2t+8+{0,1}) a3:(g+8, 2t+8+{0,1})
//     B (16x8,  2 x b32 = 4 halves):  b0:(k=2t+{0,1}, n=g)  b1:(k=2t+8+{0,1}, n=g)
//     C/D (16x8, 4 x f32):            c0:(g, 2t) c1:(g, 2t+1) c2:(g+8, 2t) c3:(g+8, 2t+1)
//   m16n8k32 .s8
//     A (16x32, 4 x b32 = 16 bytes):  a0:(g, 4t+{0..3})  a1:(g+8, 4t+{0..3})
//                                     a2:(g, 16+4t+{0..3}) a3:(g+8, 16+4t+{0..3})
//     B (32x8, 2 x b32 = 8 bytes):    b0:(k=4t+{0..3}, n=g)  b1:(k=16+4t+{0..3}, n=g)
//     C/D (16x8, 4 x s32):            as m16n8k16
//
// In this family A = 16 weight rows (output columns n), B = 8 activation rows (m), so
// D[n][m]: c0 -> (n0+g, m0+2t), c1 -> (n0+g, m0+2t+1), c2 -> (n0+g+8, m0+2t), c3 -> (n0+g+8, m0+2t+1).
#ifndef R4_KERNELS_NV_MMA_SM80_H
#define R4_KERNELS_NV_MMA_SM80_H

#include "kernels/prelude.h"

#if !defined(R4_NV)
#error "kernels/nv/mma_sm80.h is for NVIDIA targets only"
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#error "the w4 kernel family needs mma.sync m16n8k16/m16n8k32: sm_80 or newer"
#endif

namespace r4nv {

// Fragment data for tests and readers: (register, half) -> (row, k) of A in m16n8k16, as offsets
// from (g, 2t). Kept next to the instruction so the layout is written once.
struct FragPos { int row; int k; };
__device__ constexpr FragPos kA16[4][2] = {{{0, 0}, {0, 1}}, {{8, 0}, {8, 1}}, {{0, 8}, {0, 9}}, {{8, 8}, {8, 9}}};

// D = A * B + C, f16 operands, f32 accumulate.
__device__ inline void mma_f16(float (&c)[4], const u32 (&a)[4], u32 b0, u32 b1) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// D = A * B + C, bf16 operands, f32 accumulate.
__device__ inline void mma_bf16(float (&c)[4], const u32 (&a)[4], u32 b0, u32 b1) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// D = A * B + C, s8 operands, s32 accumulate (exact).
__device__ inline void mma_s8(i32 (&c)[4], const u32 (&a)[4], u32 b0, u32 b1) {
  asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
               : "+r"(c[0]), "+r"(c[1]), "+r"(c[2]), "+r"(c[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// (a & b) | c in one instruction (immLut 0xEA).
__device__ inline u32 lop3_and_or(u32 a, u32 b, u32 c) {
  u32 d;
  asm("lop3.b32 %0, %1, %2, %3, 0xEA;\n" : "=r"(d) : "r"(a), "r"(b), "r"(c));
  return d;
}

__device__ inline u32 prmt(u32 a, u32 b, u32 sel) {
  u32 d;
  asm("prmt.b32 %0, %1, %2, %3;\n" : "=r"(d) : "r"(a), "r"(b), "r"(sel));
  return d;
}

__device__ inline u32 hadd2(u32 a, u32 b) { u32 d; asm("add.rn.f16x2 %0, %1, %2;\n" : "=r"(d) : "r"(a), "r"(b)); return d; }
__device__ inline u32 hmul2(u32 a, u32 b) { u32 d; asm("mul.rn.f16x2 %0, %1, %2;\n" : "=r"(d) : "r"(a), "r"(b)); return d; }
__device__ inline u32 hfma2(u32 a, u32 b, u32 c) { u32 d; asm("fma.rn.f16x2 %0, %1, %2, %3;\n" : "=r"(d) : "r"(a), "r"(b), "r"(c)); return d; }
__device__ inline u32 bfma2(u32 a, u32 b, u32 c) { u32 d; asm("fma.rn.bf16x2 %0, %1, %2, %3;\n" : "=r"(d) : "r"(a), "r"(b), "r"(c)); return d; }

// One sm80-layout dword (8 codes, two's complement) -> the four f16x2 A registers of one k16 step,
// scaled. `s_lo`/`s_hi`: (scale, scale) f16x2 for rows g / g+8; `bias`: (-1032, -1032), the
// scale dword's high half. 1024+u is exact in f16 (u = code+8 < 16) and so is 1024+u-1032; the
// only rounding is the multiply by the scale (relative 2^-11).
__device__ inline void dequant_f16(u32 d, u32 s_lo, u32 s_hi, u32 bias, u32 (&a)[4]) {
  d ^= 0x88888888u;                                       // two's complement -> offset binary
  const u32 lo0 = lop3_and_or(d, 0x000F000Fu, 0x64006400u);       // codes 0,4: 1024+u
  const u32 hi0 = lop3_and_or(d, 0x00F000F0u, 0x64006400u);       // codes 1,5: 1024+16u
  const u32 d2 = d >> 8;
  const u32 lo1 = lop3_and_or(d2, 0x000F000Fu, 0x64006400u);      // codes 2,6
  const u32 hi1 = lop3_and_or(d2, 0x00F000F0u, 0x64006400u);      // codes 3,7
  const u32 kSixteenth = 0x2C002C00u;                              // 1/16
  const u32 kMinus72 = 0xD480D480u;                                // -(64+8)
  a[0] = hmul2(hadd2(lo0, bias), s_lo);
  a[1] = hmul2(hfma2(hi0, kSixteenth, kMinus72), s_hi);
  a[2] = hmul2(hadd2(lo1, bias), s_lo);
  a[3] = hmul2(hfma2(hi1, kSixteenth, kMinus72), s_hi);
}

// The same for bf16 operands: 128+u in bf16 (0x4300 | u) is exact; the high nibble is shifted
// down first (bf16 has 7 mantissa bits, so 16u would spill into the exponent). fma.rn.bf16x2 is
// the sm_80 bf16 arithmetic (add/mul.bf16x2 need sm_90). Rounding: the scale itself to bf16
// (2^-9) and the product (2^-9).
__device__ inline void dequant_bf16(u32 d, u32 s_lo, u32 s_hi, u32 (&a)[4]) {
  d ^= 0x88888888u;
  const u32 kOne = 0x3F803F80u;      // 1.0
  const u32 kM136 = 0xC308C308u;     // -136 = -(128+8)
  const u32 kZero = 0x80008000u;     // -0.0
  const u32 w0 = bfma2(lop3_and_or(d, 0x000F000Fu, 0x43004300u), kOne, kM136);
  const u32 w1 = bfma2(lop3_and_or(d >> 4, 0x000F000Fu, 0x43004300u), kOne, kM136);
  const u32 w2 = bfma2(lop3_and_or(d >> 8, 0x000F000Fu, 0x43004300u), kOne, kM136);
  const u32 w3 = bfma2(lop3_and_or(d >> 12, 0x000F000Fu, 0x43004300u), kOne, kM136);
  a[0] = bfma2(w0, s_lo, kZero);
  a[1] = bfma2(w1, s_hi, kZero);
  a[2] = bfma2(w2, s_lo, kZero);
  a[3] = bfma2(w3, s_hi, kZero);
}

// The unscaled forms for kernels that apply the group scale to a per-group f32 partial instead
// (the sm90a generation, kernels/nv/gemm_w4_sm90a.h): the A registers hold the codes -8..7
// themselves, exact in f16 and bf16, so each product a * code is exact in the f32 accumulator and
// the only rounding is the one f32 multiply by the scale per group. Cheaper too: no per-weight
// scale multiply (f16: 6 instead of 10 half2 ops per dword; bf16: 4 instead of 8).
__device__ inline void dequant_f16_codes(u32 d, u32 (&a)[4]) {
  d ^= 0x88888888u;                                          // two's complement -> offset binary
  const u32 lo0 = lop3_and_or(d, 0x000F000Fu, 0x64006400u);  // codes 0,4: 1024+u
  const u32 hi0 = lop3_and_or(d, 0x00F000F0u, 0x64006400u);  // codes 1,5: 1024+16u
  const u32 d2 = d >> 8;
  const u32 lo1 = lop3_and_or(d2, 0x000F000Fu, 0x64006400u);  // codes 2,6
  const u32 hi1 = lop3_and_or(d2, 0x00F000F0u, 0x64006400u);  // codes 3,7
  const u32 kMinus1032 = 0xE408E408u;                          // -(1024+8)
  const u32 kSixteenth = 0x2C002C00u;                          // 1/16
  const u32 kMinus72 = 0xD480D480u;                            // -(64+8)
  a[0] = hadd2(lo0, kMinus1032);
  a[1] = hfma2(hi0, kSixteenth, kMinus72);
  a[2] = hadd2(lo1, kMinus1032);
  a[3] = hfma2(hi1, kSixteenth, kMinus72);
}
__device__ inline void dequant_bf16_codes(u32 d, u32 (&a)[4]) {
  d ^= 0x88888888u;
  const u32 kOne = 0x3F803F80u;   // 1.0
  const u32 kM136 = 0xC308C308u;  // -136 = -(128+8)
  a[0] = bfma2(lop3_and_or(d, 0x000F000Fu, 0x43004300u), kOne, kM136);
  a[1] = bfma2(lop3_and_or(d >> 4, 0x000F000Fu, 0x43004300u), kOne, kM136);
  a[2] = bfma2(lop3_and_or(d >> 8, 0x000F000Fu, 0x43004300u), kOne, kM136);
  a[3] = bfma2(lop3_and_or(d >> 12, 0x000F000Fu, 0x43004300u), kOne, kM136);
}

// Two sm80-layout dwords (k32 step) -> the four s8x4 A registers; each byte is 16*code.
__device__ inline void dequant_s8(u32 d0, u32 d1, u32 (&a)[4]) {
  a[0] = (d0 << 4) & 0xF0F0F0F0u;
  a[1] = d0 & 0xF0F0F0F0u;
  a[2] = (d1 << 4) & 0xF0F0F0F0u;
  a[3] = d1 & 0xF0F0F0F0u;
}

// f16 scale bits -> bf16x2 (scale, scale), round to nearest even.
__device__ inline u32 f16_scale_to_bf16x2(u32 sdw) {
  const float f = r4_f16_to_f32(sdw);
  u32 d;
  asm("cvt.rn.bf16x2.f32 %0, %1, %1;\n" : "=r"(d) : "f"(f));
  return d;
}

}  // namespace r4nv

#endif  // R4_KERNELS_NV_MMA_SM80_H
