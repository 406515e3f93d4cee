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

// Two mx_sm89-layout dwords (one k32 step: dwords 2s' and 2s'+1, quant/layout/mx_sm89.h) -> the
// four e4m3x4 A registers holding e2m1 value * 2^-6 (low nibbles row g, high nibbles row g+8).
__device__ inline void dequant_e4m3_e2m1(u32 d0, u32 d1, u32 (&a)[4]) {
  a[0] = e2m1x4_lo_to_e4m3(d0);
  a[1] = e2m1x4_hi_to_e4m3(d0);
  a[2] = e2m1x4_lo_to_e4m3(d1);
  a[3] = e2m1x4_hi_to_e4m3(d1);
}

// An e8m0 block exponent e (<= layout::mx_sm89::kMaxE8m0) -> the f32 2^(e - 127 + 6): the block
// scale times the 2^6 that the e2m1 -> e4m3 conversion took out. Exponent field e + 6, 6..254.
__device__ inline float e8m0_times_64(u32 e) { return __uint_as_float((e + 6u) << 23); }

}  // namespace r4nv

#endif  // R4_KERNELS_NV_MMA_SM89_H
