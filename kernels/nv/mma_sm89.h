// NVIDIA sm_89+ fp8 matrix fragments: mma.sync m16n8k32 with e4m3 operands and f32 accumulation
// (PTX ISA 8.4+, "mma.sync ... .e4m3.e4m3.f32", sm_89 and newer). The fragment layout is the
// m16n8k32 .s8 one (kernels/nv/mma_sm80.h: one byte per element, the same (row, k) per register
// byte), so the sm80 weight layout and the int8 path's activation order carry over unchanged;
// only the weight bytes (kernels/nv/cvt_fp8.h) and the accumulator type differ.
//
// Accumulation: the tensor core adds the 32 products of a k32 step into the f32 accumulator, but
// not with a full f32 adder on every part: DeepSeek-V3 (arXiv 2412.19437, section 3.3.2) measured
// Hopper's fp8 MMA keeping about 14 bits of the running sum. Callers therefore accumulate at most
// one 128-K group (4 steps) in the tensor core and promote with an f32 FMA (kernels/tolerance.hpp
// derives the check's bound from that).
#ifndef R4_KERNELS_NV_MMA_SM89_H
#define R4_KERNELS_NV_MMA_SM89_H

#include "kernels/nv/cvt_fp8.h"
#include "kernels/nv/mma_sm80.h"

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 890
#error "the fp8-activation kernels need mma.sync m16n8k32 .e4m3: sm_89 or newer"
#endif

namespace r4nv {

// D = A * B + C, e4m3 operands, f32 accumulate.
__device__ inline void mma_e4m3(float (&c)[4], const u32 (&a)[4], u32 b0, u32 b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
      "{%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// Two sm80-layout dwords (one k32 step) -> the four e4m3x4 A registers holding code * 2^-9 (the
// s8 path's dequant_s8 order: a0/a2 the low nibbles = row g, a1/a3 the high ones = row g+8).
__device__ inline void dequant_e4m3_int4(u32 d0, u32 d1, u32 (&a)[4]) {
  int4x8_to_e4m3(d0, a[0], a[1]);
  int4x8_to_e4m3(d1, a[2], a[3]);
}

// The same registers holding the biased code (c + 8) * 2^-9 (cvt_fp8.h; a lesion's, not a GEMM's).
__device__ inline void dequant_e4m3_int4_biased(u32 d0, u32 d1, u32 (&a)[4]) {
  int4x8_to_e4m3_biased(d0, a[0], a[1]);
  int4x8_to_e4m3_biased(d1, a[2], a[3]);
}

// Two mx_sm89-layout dwords (one k32 step: dwords 2s' and 2s'+1, quant/layout/mx_sm89.h) -> the
// four e4m3x4 A registers holding e2m1 value * 2^-6 (low nibbles row g, high nibbles row g+8).
__device__ inline void dequant_e4m3_e2m1(u32 d0, u32 d1, u32 (&a)[4]) {
  a[0] = e2m1x4_lo_to_e4m3(d0);
  a[1] = e2m1x4_hi_to_e4m3(d0);
  a[2] = e2m1x4_lo_to_e4m3(d1);
  a[3] = e2m1x4_hi_to_e4m3(d1);
}

// An e8m0 block exponent e (<= layout::mx_sm89::kMaxE8m0) -> the f32 2^(e - 127 + 6): the block
// scale times the 2^6 that the e2m1 -> e4m3 conversion took out. Exponent field e + 6, 6..246.
__device__ inline float e8m0_times_64(u32 e) { return __uint_as_float((e + 6u) << 23); }

// The f16 route for sm_90, where mma.sync .e4m3 is no tensor-core instruction of its own: ptxas
// turns each one into two HMMA.16816.F32 and twelve F2FP.F16.E4M3.UNPACK_B (SASS of the ldg
// kernels on the H200, docs/device-logs/2026-12-01-session7-*: 384 F2FP for 32 MMAs), the A
// operand's four registers converted again for every activation sub-tile. Converting once into
// f16 operands and issuing mma.sync m16n8k16 .f16 keeps every product exact (e2m1 and e4m3 values
// are exact in f16; the tensor core multiplies f16 exactly into f32) and converts A once per tile.
//
// e4m3x2 (the low 16 bits of v: byte 0 -> the low half) -> f16x2, exact.
__device__ inline u32 e4m3x2_to_f16x2(u32 v) {
  u32 d;
  const unsigned short h = static_cast<unsigned short>(v & 0xFFFFu);
  asm("cvt.rn.f16x2.e4m3x2 %0, %1;\n" : "=r"(d) : "h"(h));
  return d;
}
// One mx_sm89 dword (byte j: row g's code in the low nibble, row g+8's in the high one, real k
// consecutive in j) -> the four f16x2 A registers of one m16n8k16 step over its 4 k: a0 / a2 row g
// bytes (0, 1) / (2, 3), a1 / a3 row g+8. Each value is the e2m1 value * 2^-14: the nibble's
// e1 e0 m bits go to f16 bits 11..9 (exponent field e1 e0, bias 15 against e2m1's 1; m the top
// mantissa bit), e = 0 lands on f16 subnormals 0.5m * 2^-14, the sign to bit 15.
__device__ inline void e2m1x4_to_f16_frag(u32 d, u32 (&a)[4]) {
  const u32 t01 = prmt(d, 0u, 0x4140u);  // byte 0 -> bits 0-7, byte 1 -> bits 16-23
  const u32 t23 = prmt(d, 0u, 0x4342u);
  a[0] = ((t01 << 9) & 0x0E000E00u) | ((t01 << 12) & 0x80008000u);
  a[1] = ((t01 << 5) & 0x0E000E00u) | ((t01 << 8) & 0x80008000u);
  a[2] = ((t23 << 9) & 0x0E000E00u) | ((t23 << 12) & 0x80008000u);
  a[3] = ((t23 << 5) & 0x0E000E00u) | ((t23 << 8) & 0x80008000u);
}
// e -> the f32 2^(e - 127 + 14) for the f16 route (exponent field e + 14, <= 254 for e <= 240).
__device__ inline float e8m0_times_2p14(u32 e) { return __uint_as_float((e + 14u) << 23); }

}  // namespace r4nv

#endif  // R4_KERNELS_NV_MMA_SM89_H
