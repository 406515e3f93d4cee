// The deterministic split-K epilogue both kernel generations share (kernels/gemm_common.h,
// kernels/nv/gemm_w4_sm90a.h). Needs R4_SK (the split-K factor) defined by the includer.
//
// Split-K (SK > 1) is deterministic: each block writes its f32 partial tile to
// ws_partials[split][m][n]; the last block to arrive at a tile (one atomic counter per tile, at
// the start of the workspace) sums splits 0..SK-1 in that order, writes bf16, and resets the
// counter to 0. The workspace (kernels/family.hpp workspace_bytes) must be zeroed once when it is
// allocated; every launch leaves its counters at zero again. Under programmatic dependent launch
// a kernel touches the workspace only after its griddepcontrol.wait (kernels/prelude.h), i.e.
// after the previous kernel completed, so consecutive kernels may share one workspace.
#ifndef R4_KERNELS_SPLITK_H
#define R4_KERNELS_SPLITK_H

#include "kernels/prelude.h"

#ifndef R4_SK
#error "R4_SK (split-K factor) must be defined before kernels/splitk.h"
#endif

// Counters: the first R4_SPLITK_COUNTER_BYTES of the workspace (one u32 per (x, z) block tile).
#define R4_SPLITK_COUNTERS 16384
#define R4_SPLITK_COUNTER_BYTES (R4_SPLITK_COUNTERS * 4)

// Stores one output value (bf16) or, with split-K, one f32 partial.
struct R4Out {
  u16* c;       // [M, N] bf16
  float* part;  // [SK, M, N] f32 partials (SK > 1)
  int M, N;
  __device__ inline void put(int m, int n, float v) const {
    if (m >= M) return;
    if (R4_SK == 1) {
      c[(i64)m * N + n] = r4_f32_to_bf16(v);
    } else {
      part[((i64)blockIdx.y * M + m) * N + n] = v;
    }
  }
};

// After every thread has put() its values: with split-K, the last-arriving block reduces.
__device__ inline void r4_splitk_finish(const R4Out& o, void* ws, int n_begin, int n_count,
                                        int m_begin, int m_count) {
  if (R4_SK == 1) return;
  __shared__ int is_last;
  u32* counters = static_cast<u32*>(ws);
  const u32 tile = blockIdx.z * gridDim.x + blockIdx.x;
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) {
    const u32 prev = atomicAdd(&counters[tile], 1u);
    is_last = (prev == (u32)(R4_SK - 1));
  }
  __syncthreads();
  if (!is_last) return;
  __threadfence();
  if (m_begin + m_count > o.M) m_count = o.M - m_begin;
  if (n_begin + n_count > o.N) n_count = o.N - n_begin;
  // Four consecutive n per thread (n_count and N are multiples of 16), the SK loads issued
  // together and summed in split order: the first version chained them (one L2 round trip per
  // split per element) and spent ~13 us reducing 16 x 256 outputs at SK=8 (H200, 2026-11-30).
  const int n4 = n_count >> 2;
  const int total = m_count * n4;
  for (int i = (int)threadIdx.x; i < total; i += (int)blockDim.x) {
    const int m = m_begin + i / n4;
    const int n = n_begin + 4 * (i % n4);
    float4 v[R4_SK];
#pragma unroll
    for (int k = 0; k < R4_SK; ++k) v[k] = r4_ld_coherent4(&o.part[((i64)k * o.M + m) * o.N + n]);
    float4 s = v[0];
#pragma unroll
    for (int k = 1; k < R4_SK; ++k) {
      s.x += v[k].x;
      s.y += v[k].y;
      s.z += v[k].z;
      s.w += v[k].w;
    }
    u16* c = o.c + (i64)m * o.N + n;
    c[0] = r4_f32_to_bf16(s.x);
    c[1] = r4_f32_to_bf16(s.y);
    c[2] = r4_f32_to_bf16(s.z);
    c[3] = r4_f32_to_bf16(s.w);
  }
  if (threadIdx.x == 0) counters[tile] = 0u;
}

#endif  // R4_KERNELS_SPLITK_H
