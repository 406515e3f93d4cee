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

// The sum of the four e4m3 values in the bytes of q, in units of 2^-9 (every e4m3 value is an
// integer multiple of 2^-9: m * 2^-9 for a subnormal, (8 + m) * 2^(e - 1) * 2^-9 for exponent
// field e >= 1). NaN (0x7F / 0xFF) never comes out of the saturating conversion.
__device__ inline int r4_e4m3x4_units(u32 q) {
  int s = 0;
#pragma unroll
  for (int e = 0; e < 4; ++e) {
    const u32 b = (q >> (8 * e)) & 0xFFu, ex = (b >> 3) & 15u, m = b & 7u;
    const int mag = (int)(ex != 0u ? (8u | m) << (ex - 1u) : m);
    s += (b & 0x80u) != 0u ? -mag : mag;
  }
  return s;
}

// The group sums of the fp8 quantiser (kernels/quant_act_fp8.cu): `units`, this thread's part of
// 128-K group i / 16 of the row (vector i holds 8 elements; 16 consecutive threads hold one group's
// 16 vectors, since i = tid + j * kThreads), is summed over the group's half-warp (the integer sum
// is exact, so its order does not matter: the CPU reference matches it bit for bit) and stored
// once per group as f32, units * 2^-9 rounded once. Every thread of the block calls it (the
// shuffles are unconditional); vectors past the row count 0. gs: the row's first group sum, groups
// gs_stride floats apart; nullptr for int8 (no sums).
__device__ inline void r4_group_sum_store(int units, int i, int n8, float* __restrict__ gs,
                                          int gs_stride) {
#pragma unroll
  for (int off = 1; off < 16; off <<= 1)
#if defined(R4_NV)
    units += __shfl_xor_sync(0xFFFFFFFFu, units, off);
#else
    units += __shfl_xor(units, off, 32);
#endif
  if ((i & 15) == 0 && i < n8) gs[(i64)(i >> 4) * gs_stride] = (float)units * (1.0f / 512.0f);
}

// src: row `row` (K bf16, 16-byte aligned) of M; dst: the M x K output bytes as dwords, in
// `order` (r4_act_dword); *sa: amax / qmax.
// conv(v, inv, out): 8 bf16 of v, times inv, into 8 bytes out[0], out[1] (byte e = element e).
// kSums (e4m3 only): the row's 128-K group sums too (r4_group_sum_store; gs, gs_stride).
template <int kThreads, int kVec, bool kSums, class Conv>
__device__ inline void r4_quant_row(const u16* __restrict__ src_row, int K, float qmax,
                                    u32* __restrict__ dst, float* __restrict__ sa, Conv conv,
                                    int order, int row, int M, float* __restrict__ gs,
                                    int gs_stride) {
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
    int units = 0;
    if (i < n8) {
      conv(v[j], inv, out);
      dst[r4_act_dword(2 * i, order, row, M, K)] = out[0];
      dst[r4_act_dword(2 * i + 1, order, row, M, K)] = out[1];
      if (kSums) units = r4_e4m3x4_units(out[0]) + r4_e4m3x4_units(out[1]);
    }
    if (kSums && j * kThreads < n8) r4_group_sum_store(units, i, n8, gs, gs_stride);
  }
  // The remainder, in trips uniform across the block (the group sums' shuffles need every lane).
  for (int b = kVec * kThreads; b < n8; b += kThreads) {
    const int i = b + tid;
    int units = 0;
    if (i < n8) {
      conv(r4_ld_cg16(src + i), inv, out);
      dst[r4_act_dword(2 * i, order, row, M, K)] = out[0];
      dst[r4_act_dword(2 * i + 1, order, row, M, K)] = out[1];
      if (kSums) units = r4_e4m3x4_units(out[0]) + r4_e4m3x4_units(out[1]);
    }
    if (kSums) r4_group_sum_store(units, i, n8, gs, gs_stride);
  }
}

// r4_quant_row with as few held vectors as the row needs (1, 2, 4 or kVecMax per thread; one
// uniform branch). Holding 8 where one would do cost 0.1-0.15 us at K = 2048 on the H200 (o_proj:
// 1.81-1.86 against the two-pass loop's 1.67-1.71 us, session 11), while K = 5120 gained 0.5 us.
template <int kThreads, int kVecMax, bool kSums, class Conv>
__device__ inline void r4_quant_row_fit(const u16* __restrict__ src_row, int K, float qmax,
                                        u32* __restrict__ dst, float* __restrict__ sa, Conv conv,
                                        int order, int row, int M, float* __restrict__ gs,
                                        int gs_stride) {
  const int per = ((K >> 3) + kThreads - 1) / kThreads;  // vectors per thread for the whole row
  if (kVecMax <= 1 || per <= 1)
    r4_quant_row<kThreads, (kVecMax < 1 ? kVecMax : 1), kSums>(src_row, K, qmax, dst, sa, conv,
                                                               order, row, M, gs, gs_stride);
  else if (kVecMax <= 2 || per <= 2)
    r4_quant_row<kThreads, (kVecMax < 2 ? kVecMax : 2), kSums>(src_row, K, qmax, dst, sa, conv,
                                                               order, row, M, gs, gs_stride);
  else if (kVecMax <= 4 || per <= 4)
    r4_quant_row<kThreads, (kVecMax < 4 ? kVecMax : 4), kSums>(src_row, K, qmax, dst, sa, conv,
                                                               order, row, M, gs, gs_stride);
  else
    r4_quant_row<kThreads, kVecMax, kSums>(src_row, K, qmax, dst, sa, conv, order, row, M, gs,
                                           gs_stride);
}

#endif  // R4_KERNELS_QUANT_ROW_H
