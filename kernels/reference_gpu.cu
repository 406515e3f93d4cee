// Plain GPU reference kernels (NVIDIA and AMD alike: no MMA, no layout tricks beyond the shared
// index functions) so that large shapes verify fast, the output checker, and the streaming-read
// kernel that measures the bandwidth ceiling.
#include "kernels/prelude.h"

// The packed-weight layout this target's GEMMs read; kernels/weight_layout.cpp picks the same one
// for the packer (sm80 on NVIDIA, gfx942 on MI300, the seeds' gfx12 on RDNA3/RDNA4).
#if defined(R4_NV)
#include "quant/layout/sm80.h"
__device__ inline int r4_ref_code(const u32* wq, int n, int k, int K) {
  const r4::layout::sm80::Pos p = r4::layout::sm80::weight_pos(n, k, K);
  return (int)((wq[p.dword] >> p.shift) & 0xFu);
}
__device__ inline long long r4_ref_scale(int n, int grp, int K) { return r4::layout::sm80::scale_index(n, grp, K); }
#elif defined(__gfx942__)
#include "quant/layout/gfx942.h"
__device__ inline int r4_ref_code(const u32* wq, int n, int k, int K) {
  const r4::layout::gfx942::Pos p = r4::layout::gfx942::weight_pos(n, k, K);
  return (int)((wq[p.dword] >> p.shift) & 0xFu);
}
__device__ inline long long r4_ref_scale(int n, int grp, int K) { return r4::layout::gfx942::scale_index(n, grp, K); }
#else
#include "quant/layout/gfx12.h"
__device__ inline int r4_ref_code(const u32* wq, int n, int k, int K) {
  return (int)((wq[r4::layout::gfx12::wq_dword(n, k, K)] >> (4 * r4::layout::gfx12::wq_nibble(k))) & 0xFu);
}
__device__ inline long long r4_ref_scale(int n, int grp, int K) { return r4::layout::gfx12::wsz_index(n, grp, K / 128); }
#endif

// OCP e4m3fn byte -> its value (0x7F / 0xFF, NaN, never come out of quant_act_fp8: it saturates).
__device__ inline double r4_ref_e4m3(unsigned char b) {
  const int e = (b >> 3) & 15, m = b & 7;
  // Powers of two by integer shifts: the offline AMD compile has no ldexp (no math headers).
  const double v = e == 0 ? (double)m / 512.0 : (double)(8 + m) * (double)(1 << e) / 1024.0;
  return (b & 0x80) ? -v : v;
}

#if defined(R4_NV)
#include "quant/layout/mx_sm89.h"
// MXFP4 weight (n, k) in the mx_sm89 layout: e2m1 value times 2^(e8m0 - 127).
__device__ inline double r4_ref_mx_weight(const u32* wq, const u32* wsz, int n, int k, int K) {
  const r4::layout::mx_sm89::Pos p = r4::layout::mx_sm89::weight_pos(n, k, K);
  const int code = (int)((wq[p.dword] >> p.shift) & 0xFu);
  const double mag[8] = {0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0};
  const long long sb = r4::layout::mx_sm89::scale_pos(n, k / 32, K);
  const int e = (int)((wsz[sb >> 2] >> (8 * (sb & 3))) & 0xFFu);
  const double v = ldexp(mag[code & 7], e - 127);
  return (code & 8) ? -v : v;
}
#endif

// ref[m, n] = sum_k a(m, k) * code(n, k) * scale(n, k/128), accumulated in double (f64 FMA), and
// norm[m, n] = sqrt(sum_k (a * w)^2) in double, the scale of the operand-rounding term of the
// tolerance. a_kind: 0 = f16 A, 1 = bf16 A, 2 = int8 A times sa[m], 3 = e4m3 A times sa[m]; int4
// weights in the target's layout. a_kind 4 (NVIDIA): e4m3 A times sa[m], MXFP4 weights in the
// mx_sm89 layout. One thread per (m, n), m fastest so a warp shares its weight loads.
R4_EXTERN void ref_gemm_w4(const void* __restrict__ A, int a_kind, const float* __restrict__ sa,
                           const u32* __restrict__ wq, const u32* __restrict__ wsz,
                           float* __restrict__ ref, float* __restrict__ norm, int M, int N, int K) {
  const i64 idx = (i64)blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= (i64)M * N) return;
  const int m = (int)(idx % M);
  const int n = (int)(idx / M);
  double acc = 0.0, nrm = 0.0;
#if defined(R4_NV)
  if (a_kind == 4) {
    const unsigned char* q = static_cast<const unsigned char*>(A) + (i64)m * K;
    for (int k = 0; k < K; ++k) {
      const double wa = r4_ref_e4m3(q[k]) * (double)sa[m] * r4_ref_mx_weight(wq, wsz, n, k, K);
      acc += wa;
      nrm += wa * wa;
    }
    ref[(i64)m * N + n] = (float)acc;
    norm[(i64)m * N + n] = (float)sqrt(nrm);
    return;
  }
#endif
  for (int grp = 0; grp < K / 128; ++grp) {
    const double s = (double)r4_f16_to_f32(wsz[r4_ref_scale(n, grp, K)] & 0xFFFFu);
    for (int kk = 0; kk < 128; ++kk) {
      const int k = grp * 128 + kk;
      int code = r4_ref_code(wq, n, k, K);
      if (code >= 8) code -= 16;
      double a;
      if (a_kind == 0) a = (double)r4_f16_to_f32(static_cast<const u16*>(A)[(i64)m * K + k]);
      else if (a_kind == 1) a = (double)r4_bf16_to_f32(static_cast<const u16*>(A)[(i64)m * K + k]);
      else if (a_kind == 2) a = (double)static_cast<const i8*>(A)[(i64)m * K + k] * (double)sa[m];
      else a = r4_ref_e4m3(static_cast<const unsigned char*>(A)[(i64)m * K + k]) * (double)sa[m];
      const double wa = a * (double)code * s;
      acc += wa;
      nrm += wa * wa;
    }
  }
  ref[(i64)m * N + n] = (float)acc;
  norm[(i64)m * N + n] = (float)sqrt(nrm);
}

// Checks a bf16 output against ref/norm. An element passes when
//   |out - ref| <= rel * |ref| + abs_coef * norm
// (kernels/tolerance.hpp derives rel and abs_coef from the dtypes and K). NaN (the poison) never
// passes. result[0] += failures; result[1] = max of err/tol as f32 bits (atomicMax on the bits
// orders non-negative floats); result[2] = index of one failure + 1.
R4_EXTERN void check_bf16(const u16* __restrict__ out, const float* __restrict__ ref,
                          const float* __restrict__ norm, i64 count, float rel, float abs_coef,
                          u32* __restrict__ result) {
  const i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const float v = r4_bf16_to_f32(out[i]);
  const float err = fabsf(v - ref[i]);
  const float tol = rel * fabsf(ref[i]) + abs_coef * norm[i] + 1e-30f;
  if (!(err <= tol)) {
    atomicAdd(&result[0], 1u);
    atomicMax(&result[1], 0x7F800000u);  // +inf: a failure
    result[2] = (u32)(i + 1);
  } else {
    atomicMax(&result[1], __float_as_uint(err / tol));
  }
}

// Streaming read of `n16` 16-byte words: the bandwidth ceiling kernel. Grid-stride, four
// independent loads in flight per iteration; the XOR only keeps the loads alive.
R4_EXTERN void stream_read(const u32x4* __restrict__ p, i64 n16, u32* __restrict__ sink) {
  const i64 stride = (i64)gridDim.x * blockDim.x;
  i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
  u32 acc = 0;
  for (; i + 3 * stride < n16; i += 4 * stride) {
    const u32x4 a = r4_ld_weight<1>(p + i);
    const u32x4 b = r4_ld_weight<1>(p + i + stride);
    const u32x4 c = r4_ld_weight<1>(p + i + 2 * stride);
    const u32x4 d = r4_ld_weight<1>(p + i + 3 * stride);
    acc ^= a.x ^ a.y ^ a.z ^ a.w ^ b.x ^ b.y ^ b.z ^ b.w ^ c.x ^ c.y ^ c.z ^ c.w ^ d.x ^ d.y ^ d.z ^ d.w;
  }
  for (; i < n16; i += stride) {
    const u32x4 a = r4_ld_weight<1>(p + i);
    acc ^= a.x ^ a.y ^ a.z ^ a.w;
  }
  if (acc == 0x9E3779B9u) sink[0] = acc;
}
