// quant_act_fp8: A[M, K] (bf16) -> Aq[M, K] (OCP float8_e4m3fn bytes) and sa[M] (f32), per row:
//   sa = amax / 448 (amax = max |a| over the row, f32), q = e4m3(a * (448 / amax)),
// rounding to nearest even and SATURATING to +-448 (a * inv can round a hair above 448). The
// activation side of the fp8-activation GEMMs (issue 13: w4a8fp8, mxfp4a8fp8). A row of zeros
// gives sa = 0 and q = 0. One block of 256 threads per row, which reads its row once into
// registers (kernels/quant_row.h); K a multiple of 8, A 16-byte aligned; A read through L2 only
// (the previous kernel's output; under PDL after griddepcontrol.wait), as quant_act.
//
// The conversion: NVIDIA sm_89+ has it in one instruction, `cvt.rn.satfinite.e4m3x2.f32`. Elsewhere
// (sm_80, AMD) the same rounding in integer code, r4_f32_to_e4m3 below, a transcription of
// quant/numeric.hpp f32_to_e4m3_sat_bits, which the CPU reference (kernels/reference.cpp
// ref_quant_act_fp8) uses and tests/quant/numeric_test.cpp checks against a brute-force nearest
// search. AMD's own fp8 conversions are not used: gfx942's are the FNUZ variant, not OCP e4m3.
#include "kernels/quant_row.h"

// The launch is 256 threads (kernels/family.cpp launch_dims); R4_QA_THREADS as in quant_act.cu.
#ifdef R4_QA_THREADS
#define R4_QA8_THREADS R4_QA_THREADS
#else
#define R4_QA8_THREADS 256
#endif
// 16-byte vectors held per thread: rows up to K = 16384 in one read on NVIDIA; 4 on AMD, where the
// integer e4m3 rounding below spills at 8 on gfx942 (clang-19: 36 B; 0 at 4).
#if defined(R4_QA_VEC)
#define R4_QA8_VEC R4_QA_VEC
#elif !defined(R4_QA8_VEC)
#if defined(R4_NV)
#define R4_QA8_VEC 8
#else
#define R4_QA8_VEC 4
#endif
#endif
#ifndef R4_QA_LEGACY
// EXPERIMENT ONLY: 1 is the two-pass loop of sessions 1-10 (A/B, session 11)
#define R4_QA_LEGACY 0
#endif

#if defined(R4_NV)
__device__ inline u32 r4_f32_bits(float f) { return __float_as_uint(f); }
#else
__device__ inline u32 r4_f32_bits(float f) { return __builtin_bit_cast(u32, f); }
#endif

__device__ inline u32 r4_f32_to_e4m3(float f) {
  const u32 x = r4_f32_bits(f);
  const u32 sign = (x >> 24) & 0x80u;
  const u32 ax = x & 0x7FFFFFFFu;
  if (ax > 0x7F800000u) return 0x7Fu;         // NaN
  if (ax >= 0x43E00000u) return sign | 0x7Eu;  // >= 448 (or inf): saturate
  if (ax >= 0x3C800000u) {                     // >= 2^-6: normal, round the mantissa at bit 20
    const u32 r = ax + 0x0007FFFFu + ((ax >> 20) & 1u);
    if (r >= 0x43E80000u) return sign | 0x7Eu;
    return sign | ((r >> 20) - (120u << 3));
  }
  const u32 e = ax >> 23;  // below 2^-6: round_even(v * 2^9), 8 being the normal 2^-6
  if (e < 100u) return sign;
  const u32 m = (ax & 0x007FFFFFu) | 0x00800000u;
  const u32 shift = 141u - e;
  if (shift >= 32u) return sign;
  const u32 q = m >> shift;
  const u32 rem = m & ((1u << shift) - 1u);
  const u32 half = 1u << (shift - 1u);
  return sign | (q + ((rem > half || (rem == half && (q & 1u))) ? 1u : 0u));
}

// Two floats -> two e4m3 bytes in the low 16 bits: `lo` in byte 0, `hi` in byte 1.
__device__ inline u32 r4_e4m3x2(float lo, float hi) {
#if defined(R4_NV) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
  unsigned short r;
  asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;" : "=h"(r) : "f"(hi), "f"(lo));
  return r;
#else
  return r4_f32_to_e4m3(lo) | (r4_f32_to_e4m3(hi) << 8);
#endif
}

// 8 bf16 -> 8 e4m3 bytes of a * inv (round to nearest even, saturating).
struct R4QuantE4m3 {
  __device__ void operator()(const u32x4& v, float inv, u32 (&out)[2]) const {
    const u32 w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
    for (int d = 0; d < 2; ++d) {
      const u32 lo = r4_e4m3x2(r4_bf16_to_f32(w[2 * d] & 0xFFFFu) * inv,
                               r4_bf16_to_f32(w[2 * d] >> 16) * inv);
      const u32 hi = r4_e4m3x2(r4_bf16_to_f32(w[2 * d + 1] & 0xFFFFu) * inv,
                               r4_bf16_to_f32(w[2 * d + 1] >> 16) * inv);
      out[d] = lo | (hi << 16);
    }
  }
};

R4_EXTERN void R4_LAUNCH_BOUNDS(R4_QA8_THREADS)
    quant_act_fp8(const u16* __restrict__ A,       // [M, K] bf16 bits
                  unsigned char* __restrict__ Aq,  // [M, K] e4m3 bytes
                  float* __restrict__ sa,          // [M] f32
                  int M, int K,
                  int order) {  // 0 natural, 1 the sm90a order (as quant_act), 2 sm90a_mx
  r4_pdl_wait();
  r4_pdl_launch_dependents();
  const int row = (int)blockIdx.x;
  if (row >= M) return;
  u32* dst = reinterpret_cast<u32*>(Aq);  // the whole matrix: r4_act_dword places the row
  constexpr int kVec = R4_QA_LEGACY ? 0 : R4_QA8_VEC;
  r4_quant_row_fit<R4_QA8_THREADS, kVec>(A + (i64)row * K, K, 448.0f, dst, sa + row, R4QuantE4m3{}, order, row, M);
}
