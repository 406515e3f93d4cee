// gemm_w4a16_nt: C[M, N] (bf16) = A[M, K] (f16, or bf16 with R4_A_BF16=1) x W[N, K]^T, W int4
// symmetric with one f16 scale per 128 K, packed in the arch's layout (NVIDIA:
// quant/layout/sm80.h). M = 1..64, N a multiple of 16, K a multiple of 128. A must be 16-byte
// aligned (K*2 bytes/row).
//
// Per warp: R4_NPW weight tiles of 16 rows x this split's K range, against the block's
// R4_MB*16 activation rows. Weights are the 16-row A operand of mma.m16n8k16 and activations the
// 8-wide B operand (operand swap: M is not padded to 16; an 8-row sub-tile with no live row is
// skipped). Weights and activations arrive through the cp.async pipeline of
// kernels/gemm_common.h; the weights are dequantised with the 1024+n magic number
// (FasterTransformer / Marlin) and scaled in f16 (one rounding, 2^-11 relative), so the
// accumulators are the output tile itself.
//
// Test-only define: R4_BROKEN_SCALE=1 reads the scale of the next group (wrapping): a wrong
// kernel that the correctness sweep must catch.
//
// R4_GEN selects the kernel generation (kernels/config.hpp): 0 the mma.sync generation below
// (sm_80+, AMD WMMA), 1 the sm90a generation (kernels/nv/gemm_w4_sm90a.h), 2 the ldg generation
// (kernels/nv/gemm_w4_ldg.h); same arguments, same results, the same packed weight.
#ifndef R4_A_BF16
#define R4_A_BF16 0
#endif
#ifndef R4_GEN
#define R4_GEN 0
#endif

#if R4_GEN == 1
#define R4_ACT_KIND (R4_A_BF16 ? 1 : 0)
#include "kernels/nv/gemm_w4_sm90a.h"

R4_EXTERN void __launch_bounds__(R4G_THREADS, 1)
    gemm_w4a16_nt(const u16* __restrict__ A, const u32x4* __restrict__ wq,
                  const u32* __restrict__ wsz, u16* __restrict__ C, void* __restrict__ ws, int M,
                  int N, int K) {
  r4g_gemm(A, nullptr, wq, wsz, C, ws, M, N, K);
}

#elif R4_GEN == 2
#define R4_ACT_KIND (R4_A_BF16 ? 1 : 0)
#include "kernels/nv/gemm_w4_ldg.h"

R4_EXTERN void R4L_LAUNCH_BOUNDS gemm_w4a16_nt(const u16* __restrict__ A,
                                               const u32x4* __restrict__ wq,
                                               const u32* __restrict__ wsz, u16* __restrict__ C,
                                               void* __restrict__ ws, int M, int N, int K) {
  r4l_gemm(A, nullptr, wq, wsz, C, ws, M, N, K);
}

#else  // R4_GEN == 0
#define R4_ACT_BYTES 2
#include "kernels/gemm_common.h"

#if defined(R4_NV)
#include "kernels/nv/mma_sm80.h"
#include "quant/layout/sm80.h"
#elif defined(R4_AMD)
#include "kernels/amd/matrix.h"
#endif

#define R4_MSUB (2 * R4_MB)  // 8-row activation sub-tiles per block

#if defined(R4_NV)

R4_EXTERN void R4_LAUNCH_BOUNDS(R4_WV * 32)
    gemm_w4a16_nt(const u16* __restrict__ A,     // [M, K] f16 or bf16 bits
                  const u32x4* __restrict__ wq,  // sm80 layout, N*K/8 dwords
                  const u32* __restrict__ wsz,   // (N/16)*(K/128)*16 scale dwords
                  u16* __restrict__ C,           // [M, N] bf16 bits
                  void* __restrict__ ws,         // split-K workspace (SK > 1), else unused
                  int M, int N, int K) {
  R4_TEST_FAULT_HOOK(C)
  if (R4_PDL_TRIGGER == 1) r4_pdl_launch_dependents();  // the next kernel may start (prelude.h)
  const int lane = r4_lane();
  const int warp = (int)(threadIdx.x >> 5);
  const int g = lane >> 2;
  const int t = lane & 3;
  const int ntiles = N >> 4;
  const int KB = K >> 6;
  const int G = K >> 7;
  const int tile_base = ((int)blockIdx.x * R4_WV + warp) * R4_NPW;
  const int kb_begin = r4_split_begin(blockIdx.y, KB);
  const int kb_end = r4_split_begin(blockIdx.y + 1, KB);
  const int m_base = (int)blockIdx.z * R4_MB * 16;

  const u32x4* wp[R4_NPW];
  const u32* sp[R4_NPW];
#pragma unroll
  for (int p = 0; p < R4_NPW; ++p) {
    const int tile = min(tile_base + p, ntiles - 1);  // idle warps re-read a valid tile
    wp[p] = wq + (i64)tile * KB * 32 + lane;
    sp[p] = wsz + (i64)tile * G * 16;
  }

  float acc[R4_NPW][R4_MSUB][4];
#pragma unroll
  for (int p = 0; p < R4_NPW; ++p)
#pragma unroll
    for (int j = 0; j < R4_MSUB; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[p][j][e] = 0.0f;

  extern __shared__ __align__(16) char r4_smem[];
  const r4_saddr wring = r4_saddr_of(r4_smem) + warp * (R4_STAGES * R4_NPW * R4_WSLOT);
  const r4_saddr abuf = r4_saddr_of(r4_smem) + R4_WV * R4_STAGES * R4_NPW * R4_WSLOT;
  const int rows_alloc = min(R4_MB * 16, (M + 7) & ~7);
  const int rows_live = min(R4_MB * 16, M - m_base);
  const int act_stage = rows_alloc * R4_ROW_BYTES;
  const char* a_src = reinterpret_cast<const char*>(A + (i64)m_base * K);
  const i64 a_stride = (i64)K * 2;

  r4_pipeline_prologue(wring, wp, sp, kb_begin, kb_end, G, lane, abuf, a_src, a_stride, rows_live);

  int chunk = 0;
  for (int kb0 = kb_begin; kb0 < kb_end; kb0 += R4_STAGES, ++chunk) {
#pragma unroll
    for (int i = 0; i < R4_STAGES; ++i) {
      const int kb = kb0 + i;
      const bool valid = kb < kb_end;     // steps past the end run on zeroed activations
      r4_cp_async_wait<R4_STAGES - 2>();  // block kb (and, at i == 0, this chunk) has landed
      if (i == 0) {
        __syncthreads();  // every thread's chunk copies are visible; the other buffer is free
        if (kb0 + R4_STAGES < kb_end)
          r4_stage_rows(abuf + ((chunk + 1) & 1) * act_stage,
                        a_src + (i64)(kb0 + R4_STAGES) * R4_BPB, a_stride, rows_live,
                        min(R4_STAGES, kb_end - kb0 - R4_STAGES) * R4_BPB);
      } else {
        __syncwarp();  // every lane is done with the slot refilled below
      }
      r4_issue_weights(wring + ((i + R4_STAGES - 1) % R4_STAGES) * R4_NPW * R4_WSLOT, wp, sp,
                       min(kb + R4_STAGES - 1, kb_end - 1), G, lane);
      r4_cp_async_commit();

      const r4_saddr slot = wring + i * R4_NPW * R4_WSLOT;
      const r4_saddr sbuf = abuf + (chunk & 1) * act_stage;
      // Activations of this block: 16 consecutive k per lane (32 bytes) per live sub-tile.
      u32x4 h[R4_MSUB][2];
#pragma unroll
      for (int j = 0; j < R4_MSUB; ++j) {
        if (m_base + 8 * j < M && valid) {
          const r4_saddr p = sbuf + (8 * j + g) * R4_ROW_BYTES + i * 128 + 32 * t;
          h[j][0] = r4_lds16(p);
          h[j][1] = r4_lds16(p + 16);
        } else {
          h[j][0] = u32x4{0u, 0u, 0u, 0u};
          h[j][1] = u32x4{0u, 0u, 0u, 0u};
        }
      }
      // Dequantise the lane's weights: four k16 steps x four A registers per tile.
      u32 a[R4_NPW][4][4];
#pragma unroll
      for (int p = 0; p < R4_NPW; ++p) {
        const u32x4 wv = r4_lds16(slot + p * R4_WSLOT + lane * 16);
        const r4_saddr sc = slot + p * R4_WSLOT + 512;  // the tile's 16 scale dwords
        const u32 s0 = r4_lds32(sc + 4 * g);
        const u32 s1 = r4_lds32(sc + 4 * (g + 8));
        const u32 w4[4] = {wv.x, wv.y, wv.z, wv.w};
#if R4_A_BF16
        const u32 s_lo = r4nv::f16_scale_to_bf16x2(s0);
        const u32 s_hi = r4nv::f16_scale_to_bf16x2(s1);
#pragma unroll
        for (int s = 0; s < 4; ++s) r4nv::dequant_bf16(w4[s], s_lo, s_hi, a[p][s]);
#else
        const u32 s_lo = r4nv::prmt(s0, 0u, 0x1010u);  // (scale, scale)
        const u32 s_hi = r4nv::prmt(s1, 0u, 0x1010u);
        const u32 bias = r4nv::prmt(s0, 0u, 0x3232u);  // (-1032, -1032): the dword's high half
#pragma unroll
        for (int s = 0; s < 4; ++s) r4nv::dequant_f16(w4[s], s_lo, s_hi, bias, a[p][s]);
#endif
      }
#pragma unroll
      for (int j = 0; j < R4_MSUB; ++j) {
        if (m_base + 8 * j < M) {  // uniform: skip sub-tiles with no live row
          const u32 hv[8] = {h[j][0].x, h[j][0].y, h[j][0].z, h[j][0].w,
                             h[j][1].x, h[j][1].y, h[j][1].z, h[j][1].w};
#pragma unroll
          for (int s = 0; s < 4; ++s) {
            // The layout's k-permutation, applied to the activations (quant/layout/sm80.h):
            // b0 = (k 4s, 4s+2), b1 = (k 4s+1, 4s+3) of the lane's 16.
            const u32 b0 = r4nv::prmt(hv[2 * s], hv[2 * s + 1], 0x5410u);
            const u32 b1 = r4nv::prmt(hv[2 * s], hv[2 * s + 1], 0x7632u);
#pragma unroll
            for (int p = 0; p < R4_NPW; ++p) {
#if R4_A_BF16
              r4nv::mma_bf16(acc[p][j], a[p][s], b0, b1);
#else
              r4nv::mma_f16(acc[p][j], a[p][s], b0, b1);
#endif
            }
          }
        }
      }
    }
  }
  r4_cp_async_wait<0>();  // no copy may still target shared memory when the block exits
  if (R4_PDL_TRIGGER == 2) r4_pdl_launch_dependents();

  const R4Out o{C, reinterpret_cast<float*>(static_cast<char*>(ws) + R4_SPLITK_COUNTER_BYTES), M,
                N};
#pragma unroll
  for (int p = 0; p < R4_NPW; ++p) {
    if (tile_base + p < ntiles) {
      const int n0 = (tile_base + p) * 16 + g;
#pragma unroll
      for (int j = 0; j < R4_MSUB; ++j) {
        const int m = m_base + 8 * j + 2 * t;
        o.put(m, n0, acc[p][j][0]);
        o.put(m + 1, n0, acc[p][j][1]);
        o.put(m, n0 + 8, acc[p][j][2]);
        o.put(m + 1, n0 + 8, acc[p][j][3]);
      }
    }
  }
  r4_splitk_finish(o, ws, (int)blockIdx.x * R4_WV * R4_NPW * 16, R4_WV * R4_NPW * 16, m_base,
                   R4_MB * 16);
}

#elif defined(R4_AMD_MFMA)
#include "kernels/amd/gemm_w4a16_nt_mfma.h"
#elif defined(R4_AMD)
#include "kernels/amd/gemm_w4a16_nt_wmma.h"
#endif
#endif  // R4_GEN
