// quant_act: A[M, K] (bf16) -> Aq[M, K] (int8) and sa[M] (f32), symmetric per row:
//   sa = amax / 127 (amax = max |a| over the row, f32),  q = rint(a * (127 / amax)) in -127..127,
// rounding HALF TO EVEN (rintf under the default rounding mode; the CPU reference
// kernels/reference.cpp uses std::nearbyint and the same f32 operations, so results match bit for
// bit). A row of zeros gives sa = 0 and q = 0. One block of 256 threads per row; K a multiple of 8,
// A 16-byte aligned. No config knobs: it is one read of M*K*2 bytes. A is read through L2 only
// (ld.global.cg): it is the previous kernel's output, under PDL read after griddepcontrol.wait.
#include "kernels/prelude.h"

#define R4_QA_THREADS 256

R4_EXTERN void R4_LAUNCH_BOUNDS(R4_QA_THREADS)
    quant_act(const u16* __restrict__ A,   // [M, K] bf16 bits
              i8* __restrict__ Aq,         // [M, K] int8
              float* __restrict__ sa,      // [M] f32
              int M, int K) {
  // Under programmatic dependent launch (kernels/prelude.h): A is the previous kernel's output, so
  // wait before reading it; then let the next kernel (the w4a8 GEMM) start streaming its weights.
  r4_pdl_wait();
  r4_pdl_launch_dependents();  // after the wait: the GEMM that follows starts no earlier than A is
                               // complete (a trigger at entry let it launch during the GEMM before)
  const int row = (int)blockIdx.x;
  if (row >= M) return;
  const u32x4* src = reinterpret_cast<const u32x4*>(A + (i64)row * K);
  const int n8 = K >> 3;  // 8 bf16 per 16-byte load
  float amax = 0.0f;
  for (int i = (int)threadIdx.x; i < n8; i += R4_QA_THREADS) {
    const u32x4 v = r4_ld_cg16(src + i);
    const u32 w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      amax = fmaxf(amax, fabsf(r4_bf16_to_f32(w[e] & 0xFFFFu)));
      amax = fmaxf(amax, fabsf(r4_bf16_to_f32(w[e] >> 16)));
    }
  }
  __shared__ float red[R4_QA_THREADS / 32];
#if defined(R4_NV)
  for (int off = 16; off > 0; off >>= 1) amax = fmaxf(amax, __shfl_xor_sync(0xFFFFFFFFu, amax, off));
#else
  for (int off = 16; off > 0; off >>= 1) amax = fmaxf(amax, __shfl_xor(amax, off, 32));
#endif
  if ((threadIdx.x & 31u) == 0) red[threadIdx.x >> 5] = amax;
  __syncthreads();
  amax = red[0];
#pragma unroll
  for (int w = 1; w < R4_QA_THREADS / 32; ++w) amax = fmaxf(amax, red[w]);
  const float inv = amax > 0.0f ? 127.0f / amax : 0.0f;
  if (threadIdx.x == 0) sa[row] = amax / 127.0f;
  u32* dst = reinterpret_cast<u32*>(Aq + (i64)row * K);
  for (int i = (int)threadIdx.x; i < n8; i += R4_QA_THREADS) {
    const u32x4 v = r4_ld_cg16(src + i);
    const u32 w[4] = {v.x, v.y, v.z, v.w};
    u32 out[2] = {0u, 0u};
#pragma unroll
    for (int e = 0; e < 8; ++e) {
      const u32 bits = (e & 1) ? (w[e >> 1] >> 16) : (w[e >> 1] & 0xFFFFu);
      float qf = rintf(r4_bf16_to_f32(bits) * inv);
      qf = fminf(fmaxf(qf, -127.0f), 127.0f);
      out[e >> 2] |= ((u32)(i32)qf & 0xFFu) << (8 * (e & 3));
    }
    dst[2 * i] = out[0];
    dst[2 * i + 1] = out[1];
  }
}
