// Shared device code of the two GEMMs: the config defines, the block -> work mapping and the
// deterministic split-K epilogue. Host mirror: kernels/config.hpp and kernels/family.cpp.
//
// Config (compile-time; kernels/config.hpp says the legal ranges):
//   R4_WV   warps (waves) per block; each warp owns R4_NPW 16-row weight tiles
//   R4_SK   split-K factor: blockIdx.y takes 64-K blocks [y*KB/SK, (y+1)*KB/SK)
//   R4_MB   16-row M tiles per block (blockIdx.z steps over them)
//   R4_NPW  16-row weight tiles (N) per warp
//   R4_NT   1: weight loads with an L2 evict-first policy (non-temporal on AMD)
// Grid: x = ceil((N/16) / (WV*NPW)), y = SK, z = ceil(ceil(M/16) / MB); block = WV * wave size.
//
// Split-K (SK > 1) is deterministic: each block writes its f32 partial tile to
// ws_partials[split][m][n]; the last block to arrive at a tile (one atomic counter per tile, at
// the start of the workspace) sums splits 0..SK-1 in that order, writes bf16, and resets the
// counter to 0. The workspace (kernels/family.hpp workspace_bytes) must be zeroed once when it is
// allocated; every launch leaves its counters at zero again.
#ifndef R4_KERNELS_GEMM_COMMON_H
#define R4_KERNELS_GEMM_COMMON_H

#include "kernels/prelude.h"

#ifndef R4_WV
#error "R4_WV (warps per block) must be defined"
#endif
#ifndef R4_SK
#error "R4_SK (split-K factor) must be defined"
#endif
#ifndef R4_MB
#error "R4_MB (16-row M tiles per block) must be defined"
#endif
#ifndef R4_NPW
#error "R4_NPW (N tiles per warp) must be defined"
#endif
#ifndef R4_NT
#error "R4_NT (evict-first weight loads, 0/1) must be defined"
#endif
#ifndef R4_WAVE
#define R4_WAVE 32
#endif

// Counters: the first kSplitKCounterBytes of the workspace (one u32 per (x, z) block tile).
#define R4_SPLITK_COUNTERS 16384
#define R4_SPLITK_COUNTER_BYTES (R4_SPLITK_COUNTERS * 4)

// Activation staging. The block's warps all walk the same 64-K blocks (they split N), so the
// activations of the block's rows are copied once per chunk of R4_CB blocks into shared memory
// (cp.async, double-buffered) and every warp and every N tile reads them from there: the first
// version (2026-11-30, H200) loaded them per warp from global memory and ran 17408x5120 at
// M=1 in 30.6 us (33% of the streaming ceiling), latency-bound on the per-block activation load.
// Rows are padded by R4_ROW_PAD bytes so a warp's 16-byte reads (8 rows x 4 lanes) hit distinct
// banks. Only the live rows (rounded up to 8) are staged; the dynamic shared size is
// 2 * rows * row_bytes (kernels/family.cpp: launch_shared_bytes).
__device__ inline void r4_stage_chunk(char* dst, int row_bytes, const char* src_row0,
                                      long long src_stride, int rows, int bytes_per_row) {
  const int pieces = bytes_per_row >> 4;
  const int total = rows * pieces;
  for (int i = (int)threadIdx.x; i < total; i += (int)blockDim.x) {
    const int r = i / pieces;
    const int c = i - r * pieces;
    r4_cp_async16(dst + r * row_bytes + c * 16, src_row0 + r * src_stride + c * 16);
  }
  r4_cp_async_commit();
}

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

#endif  // R4_KERNELS_GEMM_COMMON_H
