// One row of a bf16 activation matrix quantised symmetrically per row, by one block: the body of
// quant_act (int8) and quant_act_fp8 (e4m3), which differ only in qmax and the conversion.
//
// The row is read ONCE, into registers: thread t holds the 16-byte vectors t, t + T, ...,
// t + (V-1) T (T threads, V vectors), which covers K <= 8 T V in one batch of independent loads.
// The block reduces the amax, and each thread converts the vectors it holds. A longer row reads
// its remainder in a loop, twice (amax, then convert): correct for any K that is a multiple of 8.
//
// Why (docs/PERF.md session 11): the loop it replaces read one vector per thread per trip, and
// read the row a second time to convert it. At K = 5120 and 256 threads that is three dependent
// trips and then three more, each an L2 round trip: 2.4-2.7 us per call on the H200 (session 4),
// against a launch floor of about 0.5 us. Padding vectors past the row are zeros, which leave the
// amax alone and are never stored. The arithmetic per element is unchanged (the CPU references in
// kernels/reference.cpp match bit for bit).
#ifndef R4_KERNELS_QUANT_ROW_H
#define R4_KERNELS_QUANT_ROW_H

#include "kernels/nv/wgmma_layout_sm90a.h"
#include "kernels/prelude.h"

__device__ inline float r4_amax8_bf16(const u32x4& v, float amax) {
  const u32 w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
  for (int e = 0; e < 4; ++e) {
    amax = fmaxf(amax, fabsf(r4_bf16_to_f32(w[e] & 0xFFFFu)));
    amax = fmaxf(amax, fabsf(r4_bf16_to_f32(w[e] >> 16)));
  }
  return amax;
}

// The block's maximum of every thread's `x` (all threads of the block must call it).
template <int kThreads>
__device__ inline float r4_block_max(float x) {
  __shared__ float red[kThreads / 32];
#if defined(R4_NV)
  for (int off = 16; off > 0; off >>= 1) x = fmaxf(x, __shfl_xor_sync(0xFFFFFFFFu, x, off));
#else
  for (int off = 16; off > 0; off >>= 1) x = fmaxf(x, __shfl_xor(x, off, 32));
#endif
  if ((threadIdx.x & 31u) == 0) red[threadIdx.x >> 5] = x;
  __syncthreads();
  x = red[0];
#pragma unroll
  for (int w = 1; w < kThreads / 32; ++w) x = fmaxf(x, red[w]);
  return x;
}

// Where dword d of row `row` goes, in dwords from the matrix's start: order 0 natural (rows of K
// bytes), 1 the sm90a generation's order for 8-bit activations (kernels/nv/wgmma_layout_sm90a.h
// act_dword_offset_8: chunk-major across the M rows; K a multiple of 128), 2 its twin for the
// MXFP4 weights' k map (act_dword_offset_mx; kernels/config.hpp ActOrder::sm90a_mx).
__device__ inline i64 r4_act_dword(int d, int order, int row, int M, int K) {
  if (order == 1) return (i64)r4::wgmma_layout::act_dword_offset_8(row, d, M);
  if (order == 2) return (i64)r4::wgmma_layout::act_dword_offset_mx(row, d, M);
  return (i64)row * (K >> 2) + d;
}

// src: row `row` (K bf16, 16-byte aligned) of M; dst: the M x K output bytes as dwords, in
// `order` (r4_act_dword); *sa: amax / qmax.
// conv(v, inv, out): 8 bf16 of v, times inv, into 8 bytes out[0], out[1] (byte e = element e).
template <int kThreads, int kVec, class Conv>
__device__ inline void r4_quant_row(const u16* __restrict__ src_row, int K, float qmax,
                                    u32* __restrict__ dst, float* __restrict__ sa, Conv conv,
                                    int order, int row, int M) {
  const u32x4* src = reinterpret_cast<const u32x4*>(src_row);
  const int n8 = K >> 3;  // 8 bf16 per 16-byte vector
  const int tid = (int)threadIdx.x;
  u32x4 v[kVec > 0 ? kVec : 1];  // kVec 0: the loops alone (R4_QA_LEGACY)
#pragma unroll
  for (int j = 0; j < kVec; ++j) {
    const int i = tid + j * kThreads;
    v[j] = i < n8 ? r4_ld_cg16(src + i) : u32x4{0u, 0u, 0u, 0u};
  }
  float amax = 0.0f;
#pragma unroll
  for (int j = 0; j < kVec; ++j) amax = r4_amax8_bf16(v[j], amax);
  for (int i = tid + kVec * kThreads; i < n8; i += kThreads)
    amax = r4_amax8_bf16(r4_ld_cg16(src + i), amax);
  amax = r4_block_max<kThreads>(amax);
  const float inv = amax > 0.0f ? qmax / amax : 0.0f;
  if (tid == 0) *sa = amax / qmax;
  u32 out[2];
#pragma unroll
  for (int j = 0; j < kVec; ++j) {
    const int i = tid + j * kThreads;
    if (i < n8) {
      conv(v[j], inv, out);
      dst[r4_act_dword(2 * i, order, row, M, K)] = out[0];
      dst[r4_act_dword(2 * i + 1, order, row, M, K)] = out[1];
    }
  }
  for (int i = tid + kVec * kThreads; i < n8; i += kThreads) {
    conv(r4_ld_cg16(src + i), inv, out);
    dst[r4_act_dword(2 * i, order, row, M, K)] = out[0];
    dst[r4_act_dword(2 * i + 1, order, row, M, K)] = out[1];
  }
}

// r4_quant_row with as few held vectors as the row needs (1, 2, 4 or kVecMax per thread; one
// uniform branch). Holding 8 where one would do cost 0.1-0.15 us at K = 2048 on the H200 (o_proj:
// 1.81-1.86 against the two-pass loop's 1.67-1.71 us, session 11), while K = 5120 gained 0.5 us.
template <int kThreads, int kVecMax, class Conv>
__device__ inline void r4_quant_row_fit(const u16* __restrict__ src_row, int K, float qmax,
                                        u32* __restrict__ dst, float* __restrict__ sa, Conv conv,
                                        int order, int row, int M) {
  const int per = ((K >> 3) + kThreads - 1) / kThreads;  // vectors per thread for the whole row
  if (kVecMax <= 1 || per <= 1)
    r4_quant_row<kThreads, (kVecMax < 1 ? kVecMax : 1)>(src_row, K, qmax, dst, sa, conv, order, row, M);
  else if (kVecMax <= 2 || per <= 2)
    r4_quant_row<kThreads, (kVecMax < 2 ? kVecMax : 2)>(src_row, K, qmax, dst, sa, conv, order, row, M);
  else if (kVecMax <= 4 || per <= 4)
    r4_quant_row<kThreads, (kVecMax < 4 ? kVecMax : 4)>(src_row, K, qmax, dst, sa, conv, order, row, M);
  else
    r4_quant_row<kThreads, kVecMax>(src_row, K, qmax, dst, sa, conv, order, row, M);
}

#endif  // R4_KERNELS_QUANT_ROW_H
