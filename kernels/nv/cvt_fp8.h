// 4-bit weight codes -> e4m3 bytes in registers, for the fp8-activation GEMMs (mma.sync m16n8k32
// .e4m3, kernels/nv/mma_sm89.h). Pure 32-bit integer arithmetic, so the same functions compile
// as host C++ (tests/kernels/cvt_fp8_test.cpp checks every code at every nibble position against
// quant/numeric.hpp) and as device code under NVRTC / nvcc.
//
// Both conversions produce a scaled copy of the weight, exact, and the constant goes into the
// scale the kernel promotes its f32 partials with:
//
// int4 (two's complement -8..7, the sm80 layout of gemm_w4a16_nt / gemm_w4a8_nt; GPTQ code c
// is c - 8 after r4tune quant gptq) -> c * 2^-9. An e4m3 byte 0000 0mmm is the subnormal
// m * 2^-9 and 0000 1000 the normal 2^-6 = 8 * 2^-9, so sign-magnitude |c| in the low nibble with
// the sign in bit 7 is c * 2^-9 for every c in -8..7 (PRIOR_ART.md "Hopper": FastDeploy's
// "0000xxxx read as e4m3 is x * 2^-9"). Two's complement -> sign-magnitude for all eight nibbles
// of a dword at once (no carry can cross a nibble: |c| <= 8):
//     s = d & 0x88888888 (signs), s1 = s >> 3, mag = (d ^ 15*s1) + s1
// then the even nibbles (row g of the sm80 layout) and the odd ones (row g+8) each go to the low
// nibble of their own register's bytes, the sign to bit 7: 9 instructions per 8 weights. A
// 16-entry prmt lookup (CUTLASS, vLLM) needs the even/odd nibbles compacted first: 17.
//
// e2m1 (bit 3 sign, bits 2-0 = e1 e0 m, values 0, .5, 1, 1.5, 2, 3, 4, 6) -> value * 2^-6. The
// byte s 00 e1 e0 m 00 is exactly that: exponent field 00e1e0 (bias 7 against e2m1's 1) and m as
// the mantissa's top bit; e = 0 (0 and 0.5) lands on e4m3 subnormals m * 2^-7 = 0.5m * 2^-6, so
// every e2m1 value maps, sign included (-0 stays -0: it multiplies to zero). Low nibble of a byte:
// 4 instructions, high nibble: 3 (kernels/.. mx layout, quant/layout/mx_sm89.h).
//
// Both rely on the tensor core taking e4m3 subnormals at their value (the OCP format has them;
// fp8 activations below 2^-6 of their scale need them too).
#ifndef R4_KERNELS_NV_CVT_FP8_H
#define R4_KERNELS_NV_CVT_FP8_H

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define R4_CVT_FN __host__ __device__ inline
#else
#define R4_CVT_FN inline
#endif

namespace r4nv {

// (d & keep) | (other & ~keep): one lop3 (immLut 0xE4 with keep as the selector) on the device.
R4_CVT_FN unsigned int bitselect(unsigned int keep, unsigned int d, unsigned int other) {
  return (d & keep) | (other & ~keep);
}

// Eight int4 codes (nibble i of d) -> two e4m3x4 registers holding code * 2^-9: `even` byte j is
// nibble 2j, `odd` byte j nibble 2j+1 (the s8 path's (d << 4) & 0xF0F0F0F0 and d & 0xF0F0F0F0).
R4_CVT_FN void int4x8_to_e4m3(unsigned int d, unsigned int& even, unsigned int& odd) {
  const unsigned int s = d & 0x88888888u;           // sign bit of each nibble
  const unsigned int s1 = s >> 3;                   // 1 per negative nibble
  const unsigned int mag = (d ^ (s1 * 15u)) + s1;   // |c| per nibble, 0..8
  even = bitselect(0x0F0F0F0Fu, mag, s << 4);       // low nibbles + their signs at bit 7
  odd = bitselect(0x0F0F0F0Fu, mag >> 4, s);        // high nibbles + their signs (bit 7 already)
}

// Eight int4 codes (nibble i of d, two's complement c) -> two e4m3x4 registers holding the BIASED
// code (c + 8) * 2^-9, in the byte order of int4x8_to_e4m3: c ^ 8 is the offset-binary nibble
// c + 8 in 0..15, and an e4m3 byte 0000 xxxx is x * 2^-9 for every x in 0..15. Not a GEMM's
// weights by itself (the zero point is missing); the sm90a generation's lesion bit 128 uses it to
// time what a conversion of 3 instructions per 8 weights would leave (docs/PERF.md session 42: a
// zero point added back by a second wgmma per k-step was slower than the 9-instruction form).
R4_CVT_FN void int4x8_to_e4m3_biased(unsigned int d, unsigned int& even, unsigned int& odd) {
  even = (d ^ 0x08080808u) & 0x0F0F0F0Fu;
  odd = ((d >> 4) ^ 0x08080808u) & 0x0F0F0F0Fu;
}

// Four e2m1 codes in the HIGH nibbles of d's bytes -> e4m3x4 holding value * 2^-6.
R4_CVT_FN unsigned int e2m1x4_hi_to_e4m3(unsigned int d) {
  return (d & 0x80808080u) | ((d & 0x70707070u) >> 2);
}
// Four e2m1 codes in the LOW nibbles of d's bytes -> e4m3x4 holding value * 2^-6.
R4_CVT_FN unsigned int e2m1x4_lo_to_e4m3(unsigned int d) {
  return e2m1x4_hi_to_e4m3(d << 4);
}

}  // namespace r4nv

#endif  // R4_KERNELS_NV_CVT_FP8_H
