// The deterministic split-K epilogue both kernel generations share (kernels/gemm_common.h,
// kernels/nv/gemm_w4_sm90a.h). Needs R4_SK (the split-K factor) defined by the includer.
//
// R4_SK 0: split-K whose factor is the launch's gridDim.y, 2, 4 or 8 (kernels/config.hpp
// sk_define), so one compiled body serves those three SKs of a config: the sweep compiled every SK
// apart (docs/PERF.md "Session 27"). Only the K range and the reduction read it: the range's
// division becomes a shift (the three are powers of two), and each reduction below is instantiated
// per factor and picked by a switch, so a split count runs the code a compile-time R4_SK of that
// value runs. SK 16 stays a body of its own: its reduction keeps 16 float4 loads in flight, 64
// registers that a body shared with it would hold whatever its SK (sm90a w4a8 (8,*,1,1,1,4): 50
// registers at SK 2 and 4, 54 at SK 8, 86 at SK 16 or in a body of all four; nvcc 13.0).
#ifndef R4_KERNELS_SPLITK_H
#define R4_KERNELS_SPLITK_H

#include "kernels/prelude.h"

#ifndef R4_SK
#error "R4_SK (split-K factor) must be defined before kernels/splitk.h"
#endif

// The launch's split count: R4_SK, or under R4_SK 0 the grid's y extent.
#if R4_SK == 0
#define R4_SPLITS ((int)gridDim.y)
#else
#define R4_SPLITS R4_SK
#endif

// The first of `count` units (64-K blocks, 128-K groups) that split y of R4_SPLITS takes:
// y * count / SK. Under R4_SK 0 the division is a shift, SK being a power of two there (a
// run-time 64-bit division would sit on every block's path to its first load).
__device__ inline int r4_split_begin(u32 y, int count) {
#if R4_SK == 0
  return (int)((y * (u32)count) >> (__ffs((int)gridDim.y) - 1));
#else
  return (int)(((i64)y * count) / R4_SK);
#endif
}

// F<S>(args...) for the launch's split count S: R4_SK, or under R4_SK 0 gridDim.y, where a count
// other than 2, 4 or 8 traps (kernels/config.hpp sk_define sends no other).
#if R4_SK == 0
#ifdef R4_AMD
#define R4_SPLITK_TRAP() __builtin_trap()
#else
#define R4_SPLITK_TRAP() __trap()
#endif
#define R4_SPLITK_DISPATCH(F, ...) \
  switch (gridDim.y) {             \
    case 2:                        \
      F<2>(__VA_ARGS__);           \
      break;                       \
    case 4:                        \
      F<4>(__VA_ARGS__);           \
      break;                       \
    case 8:                        \
      F<8>(__VA_ARGS__);           \
      break;                       \
    default:                       \
      R4_SPLITK_TRAP();            \
  }
#else
#define R4_SPLITK_DISPATCH(F, ...) F<R4_SK>(__VA_ARGS__)
#endif

// Cluster split-K (sm_90+; the ldg generation, which defines R4_SPLITK_CLUSTER before including
// this file; kernels/config.hpp splitk_cluster says why not the sm90a one). Launched as a
// thread-block cluster of the SK blocks of one output tile (cluster (1, SK, 1): rank ==
// blockIdx.y == the split), each block puts its f32 partial tile into its own shared memory
// (r4_splitk_tile_put), and after one cluster barrier every block sums a share of the tile over
// the SK blocks' shared memory (ld.shared::cluster), in split order 0..SK-1 as the global path
// does (the same bits), and writes bf16. No workspace, counter, fence or L2 round trip: the
// global path's tail is a __threadfence, an atomic and SK partial reads from L2 after the main
// loop, all on the critical path of a memory-bound launch (docs/PERF.md, "Session 17"). The path
// is taken only when the launch's cluster really has SK blocks (%cluster_nctarank), so a launch
// without the cluster attribute still runs the global path (the launchers send a grid whose
// clusters do not all fit on the device at once that way: kernels/family.hpp cluster_launch).
#ifndef R4_SPLITK_LESION
// EXPERIMENT ONLY (kernels/nv/gemm_w4_ldg.h R4L_LESION): the cluster reduction stops after its
// first barrier (1) or leaves out its output stores (2); wrong results, timed to price the parts.
#define R4_SPLITK_LESION 0
#endif
#if defined(R4_SPLITK_CLUSTER) && !defined(R4_AMD) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define R4_SKC_CODE 1
#else
#define R4_SKC_CODE 0
#endif
// A block's tile: the 16 * R4_MB activation rows of its M tile by the R4_WV * R4_NPW 16-row
// weight tiles of its N range, each row padded by 4 floats so that put()'s
// lanes (g: 8 consecutive n; t: rows 2t, 2t + 1) hit distinct banks; mirrored by
// kernels/config.hpp splitk_cluster_tile_bytes.
#define R4_SKC_STRIDE (R4_WV * R4_NPW * 16 + 4)

// Counters: the first R4_SPLITK_COUNTER_BYTES of the workspace (one u32 per (x, z) block tile).
#define R4_SPLITK_COUNTERS 16384
#define R4_SPLITK_COUNTER_BYTES (R4_SPLITK_COUNTERS * 4)

// Stores one output value (bf16) or, with split-K, one f32 partial.
struct R4Out {
  u16* c;       // [M, N] bf16
  float* part;  // [SK, M, N] f32 partials (SK > 1, global path)
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

// Both reductions' last step: the SK partials of four consecutive outputs summed in split order
// (the same bits on either path), written as bf16 with four 2-byte stores (r4d accepts an output
// aligned to 2 bytes only).
template <int S>
__device__ inline void r4_splitk_sum_store(const float4 (&v)[S], u16* c) {
  float4 s = v[0];
#pragma unroll
  for (int k = 1; k < S; ++k) {
    s.x += v[k].x;
    s.y += v[k].y;
    s.z += v[k].z;
    s.w += v[k].w;
  }
  c[0] = r4_f32_to_bf16(s.x);
  c[1] = r4_f32_to_bf16(s.y);
  c[2] = r4_f32_to_bf16(s.z);
  c[3] = r4_f32_to_bf16(s.w);
}

// Whether this launch takes the cluster path: a cluster of exactly the SK splits.
__device__ inline bool r4_splitk_cluster() {
#if R4_SKC_CODE
  if (R4_SK == 1) return false;
  u32 nct;
  // volatile: kept here, not hoisted into (and live through) the main loop
  asm volatile("mov.u32 %0, %%cluster_nctarank;\n" : "=r"(nct));
  return nct == (u32)R4_SPLITS;
#else
  return false;
#endif
}

// The cluster path's put(): value (r, col) of the block's tile at shared address `tile`, r and
// col relative to the tile's first row and column. Rows at or past M may be written (the
// reduction reads only live rows), so the caller needs no bound check. No R4Out field carries the
// tile: fields set before the main loop stay live through it (tried on the sm90a generation at its
// 168-register cap: 4-20 B of spill; nvcc 13.0).
__device__ inline void r4_splitk_tile_put(u32 tile, int r, int col, float v) {
#if R4_SKC_CODE
  asm volatile("st.shared.f32 [%0], %1;\n" ::"r"(tile + 4u * (u32)(r * R4_SKC_STRIDE + col)), "f"(v)
               : "memory");
#endif
}

#if R4_SKC_CODE
// Every thread of every block of the cluster: writes before it are visible to reads after it.
__device__ inline void r4_cluster_sync() {
  asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;\n" ::: "memory");
}
// The cluster path's reduction (r4_splitk_finish), S splits: the tile's float4s dealt over the
// cluster's threads; each sums the S blocks' values in split order.
template <int S>
__device__ inline void r4_splitk_cluster_sum(const R4Out& o, u32 tile, int n_begin, int n_count,
                                             int m_begin, int m_count) {
  const int n4 = n_count >> 2;
  const int total = m_count * n4;
  const int step = S * (int)blockDim.x;
  for (int i = (int)(blockIdx.y * blockDim.x + threadIdx.x); i < total; i += step) {
    const int r = i / n4, col = 4 * (i % n4);
    const u32 local = tile + 4u * (u32)(r * R4_SKC_STRIDE + col);
    float4 v[S];
#pragma unroll
    for (int k = 0; k < S; ++k) {
      u32 remote;
      asm("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(remote) : "r"(local), "r"(k));
      asm volatile("ld.shared::cluster.v4.f32 {%0,%1,%2,%3}, [%4];\n"
                   : "=f"(v[k].x), "=f"(v[k].y), "=f"(v[k].z), "=f"(v[k].w)
                   : "r"(remote)
                   : "memory");
    }
    if (!(R4_SPLITK_LESION & 2))
      r4_splitk_sum_store(v, o.c + (i64)(m_begin + r) * o.N + n_begin + col);
  }
}
__device__ inline void r4_splitk_cluster_reduce(const R4Out& o, u32 tile, int n_begin, int n_count,
                                                int m_begin, int m_count) {
  r4_cluster_sync();                 // every split's partials are in its tile
  if (R4_SPLITK_LESION & 1) return;  // no peer reads this block's tile: it may exit
  R4_SPLITK_DISPATCH(r4_splitk_cluster_sum, o, tile, n_begin, n_count, m_begin, m_count);
  r4_cluster_sync();  // a block's tile stays until every peer has read it
}
#endif

// The global path's reduction by the last-arriving block, S splits. Four consecutive n per thread
// (n_count and N are multiples of 16), the S loads issued together and summed in split order: the
// first version chained them (one L2 round trip per split per element) and spent ~13 us reducing
// 16 x 256 outputs at SK=8 (H200, 2026-11-30).
template <int S>
__device__ inline void r4_splitk_global_sum(const R4Out& o, int n_begin, int n_count, int m_begin,
                                            int m_count) {
  const int n4 = n_count >> 2;
  const int total = m_count * n4;
  for (int i = (int)threadIdx.x; i < total; i += (int)blockDim.x) {
    const int m = m_begin + i / n4;
    const int n = n_begin + 4 * (i % n4);
    float4 v[S];
#pragma unroll
    for (int k = 0; k < S; ++k) v[k] = r4_ld_coherent4(&o.part[((i64)k * o.M + m) * o.N + n]);
    r4_splitk_sum_store(v, o.c + (i64)m * o.N + n);
  }
}

// After every thread has put() its values: with split-K, the last-arriving block reduces.
// `skc_tile`: the cluster path's tile (r4_splitk_tile_put), unused on the global path.
__device__ inline void r4_splitk_finish(const R4Out& o, void* ws, int n_begin, int n_count,
                                        int m_begin, int m_count, u32 skc_tile = 0) {
  if (R4_SK == 1) return;
#if R4_SKC_CODE
  if (r4_splitk_cluster()) {
    if (m_begin + m_count > o.M) m_count = o.M - m_begin;
    if (n_begin + n_count > o.N) n_count = o.N - n_begin;
    r4_splitk_cluster_reduce(o, skc_tile, n_begin, n_count, m_begin, m_count);
    return;
  }
#else
  (void)skc_tile;
#endif
  __shared__ int is_last;
  u32* counters = static_cast<u32*>(ws);
  const u32 tile = blockIdx.z * gridDim.x + blockIdx.x;
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) {
    const u32 prev = atomicAdd(&counters[tile], 1u);
    is_last = (prev == (u32)(R4_SPLITS - 1));
  }
  __syncthreads();
  if (!is_last) return;
  __threadfence();
  if (m_begin + m_count > o.M) m_count = o.M - m_begin;
  if (n_begin + n_count > o.N) n_count = o.N - n_begin;
  R4_SPLITK_DISPATCH(r4_splitk_global_sum, o, n_begin, n_count, m_begin, m_count);
  if (threadIdx.x == 0) counters[tile] = 0u;
}

#endif  // R4_KERNELS_SPLITK_H
