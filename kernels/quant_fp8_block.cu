// quant_fp8_block: A[M, K] (bf16) -> Aq[M, K] (e4m3, OCP) and s[K/128][M] (f32), one scale per row
// per 128 K: s = amax / 448 (448 = the largest finite e4m3), q = e4m3(a / s), round to nearest
// even, saturating. It is the activation side of the block-fp8 baseline (cuBLASLt VEC128_32F for
// the activations, BLK128x128_32F for the weight): a decode step that runs block-fp8 GEMMs pays it
// between every two GEMMs, as the w4a8 path pays quant_act, so the step chains of the block-fp8
// baseline (tuner/measure/step_chain.cpp) include it. Scale layout [K/128][M] (M contiguous): the
// chain checks no numerics of the vendor path, only its time.
//
// Grid (K/128, M), one warp per (row, 128-K block), four elements per lane. NVIDIA sm_89+ converts
// with cvt.rn.satfinite.e4m3x2.f32; elsewhere a software conversion with the same rounding.
#include "kernels/prelude.h"

// f32 -> e4m3 bits, round to nearest even, saturating to +-448 (NaN -> 0x7F).
__device__ inline u32 r4_f32_to_e4m3(float f) {
#if defined(R4_NV) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
  u16 v;
  asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;\n" : "=h"(v) : "f"(0.0f), "f"(f));
  return v & 0xFFu;
#else
  const u32 sign = __float_as_uint(f) >> 31 << 7;
  float a = fabsf(f);
  if (!(a == a)) return 0x7Fu;
  if (a >= 448.0f) return sign | 0x7Eu;  // 448 = 1.75 * 2^8, the largest finite value
  int e;
  const float m = frexpf(a, &e);  // a = m * 2^e, m in [0.5, 1)
  if (e < -5) return sign | (u32)rintf(a * 512.0f);  // below 2^-6: subnormal units of 2^-9
  float q = rintf(m * 16.0f);     // 4 significant bits (1 implicit + 3), ties to even
  if (q == 16.0f) {
    q = 8.0f;
    ++e;
  }
  return sign | ((u32)(e - 1 + 7) << 3) | ((u32)q - 8u);  // bias 7
#endif
}

R4_EXTERN void quant_fp8_block(const u16* __restrict__ A,  // [M, K] bf16 bits
                               u32* __restrict__ Aq,       // [M, K] e4m3, as words
                               float* __restrict__ s,      // [K/128][M]
                               int M, int K) {
  r4_pdl_launch_dependents();
  r4_pdl_wait();  // A is the previous kernel's output
  const int row = (int)blockIdx.y;
  const int blk = (int)blockIdx.x;
  const int lane = (int)threadIdx.x;
  if (row >= M) return;
  const i64 base = (i64)row * K + (i64)blk * 128 + 4 * lane;
  const u32* src = reinterpret_cast<const u32*>(A + base);
  const u32 w0 = src[0], w1 = src[1];
  const float v[4] = {r4_bf16_to_f32(w0 & 0xFFFFu), r4_bf16_to_f32(w0 >> 16),
                      r4_bf16_to_f32(w1 & 0xFFFFu), r4_bf16_to_f32(w1 >> 16)};
  float amax = fmaxf(fmaxf(fabsf(v[0]), fabsf(v[1])), fmaxf(fabsf(v[2]), fabsf(v[3])));
#if defined(R4_NV)
  for (int off = 16; off > 0; off >>= 1) amax = fmaxf(amax, __shfl_xor_sync(0xFFFFFFFFu, amax, off));
#else
  for (int off = 16; off > 0; off >>= 1) amax = fmaxf(amax, __shfl_xor(amax, off, 32));
#endif
  const float scale = amax > 0.0f ? amax / 448.0f : 1.0f;
  const float inv = 1.0f / scale;
  u32 q = 0;
#pragma unroll
  for (int e = 0; e < 4; ++e) q |= r4_f32_to_e4m3(v[e] * inv) << (8 * e);
  Aq[base / 4] = q;
  if (lane == 0) s[(i64)blk * M + row] = scale;
}
