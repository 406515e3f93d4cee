// gemm_w4a16_nt: C[M, N] (bf16) = A[M, K] (f16, or bf16 with R4_A_BF16=1) x W[N, K]^T, W int4
// symmetric with one f16 scale per 128 K, packed in the arch's layout (NVIDIA: quant/layout/sm80.h).
// M = 1..64, N a multiple of 16, K a multiple of 128. A must be 16-byte aligned (K*2 bytes/row).
//
// Per warp: R4_NPW weight tiles of 16 rows x this split's K range, against the block's
// R4_MB*16 activation rows. Weights are the 16-row A operand of mma.m16n8k16 and activations the
// 8-wide B operand (operand swap: M is not padded to 16; an 8-row sub-tile with no live row is
// skipped). Each lane streams one 16-byte chunk per (tile, 64-K block), R4_DEPTH blocks ahead in
// registers (R4_DEPTH * R4_NPW = 8 chunks = 128 B in flight per lane), and dequantises with the
// 1024+n magic number (FasterTransformer / Marlin); scales are applied to the f16 weights (one
// rounding, 2^-11 relative) so the accumulators are the output tile itself.
//
// Test-only define: R4_BROKEN_SCALE=1 reads the scale of the next group (wrapping): a wrong
// kernel that the correctness sweep must catch.
#include "kernels/gemm_common.h"

#if defined(R4_NV)
#include "kernels/nv/mma_sm80.h"
#include "quant/layout/sm80.h"
#elif defined(R4_AMD)
#include "kernels/amd/wmma.h"
#endif

#ifndef R4_A_BF16
#define R4_A_BF16 0
#endif
#ifndef R4_BROKEN_SCALE
#define R4_BROKEN_SCALE 0
#endif
#define R4_DEPTH (R4_NPW * R4_MB >= 8 ? 1 : 8 / (R4_NPW * R4_MB))  // 64-K blocks in flight (registers)
#define R4_MSUB (2 * R4_MB)  // 8-row activation sub-tiles per block
#define R4_CB (R4_MB >= 4 ? 1 : 4 / R4_MB)     // 64-K blocks per staged activation chunk
#define R4_ROW_BYTES (R4_CB * 128 + 16)         // one staged row: CB*64 halves + bank pad
#define R4_SB (R4_DEPTH > R4_CB ? R4_DEPTH : R4_CB)  // blocks per unrolled loop body

#if defined(R4_NV)

struct W4Stage {
  u32x4 w[R4_NPW];  // the lane's 16 bytes of each tile
  u32 s0[R4_NPW];   // scale dword, row g
  u32 s1[R4_NPW];   // scale dword, row g+8
};

R4_EXTERN void R4_LAUNCH_BOUNDS(R4_WV * 32)
    gemm_w4a16_nt(const u16* __restrict__ A,      // [M, K] f16 or bf16 bits
                  const u32x4* __restrict__ wq,   // sm80 layout, N*K/8 dwords
                  const u32* __restrict__ wsz,    // (N/16)*(K/128)*16 scale dwords
                  u16* __restrict__ C,            // [M, N] bf16 bits
                  void* __restrict__ ws,          // split-K workspace (SK > 1), else unused
                  int M, int N, int K) {
  const int lane = r4_lane();
  const int warp = (int)(threadIdx.x >> 5);
  const int g = lane >> 2;
  const int t = lane & 3;
  const int ntiles = N >> 4;
  const int KB = K >> 6;
  const int G = K >> 7;
  const int tile_base = ((int)blockIdx.x * R4_WV + warp) * R4_NPW;
  const int kb_begin = (int)(((i64)blockIdx.y * KB) / R4_SK);
  const int kb_end = (int)(((i64)(blockIdx.y + 1) * KB) / R4_SK);
  const int m_base = (int)blockIdx.z * R4_MB * 16;

  const u32x4* wp[R4_NPW];
  const u32* sp[R4_NPW];
#pragma unroll
  for (int p = 0; p < R4_NPW; ++p) {
    const int tile = min(tile_base + p, ntiles - 1);  // idle warps re-read a valid tile
    wp[p] = wq + (i64)tile * KB * 32 + lane;
    sp[p] = wsz + (i64)tile * G * 16 + g;
  }

  float acc[R4_NPW][R4_MSUB][4];
#pragma unroll
  for (int p = 0; p < R4_NPW; ++p)
#pragma unroll
    for (int j = 0; j < R4_MSUB; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[p][j][e] = 0.0f;

  W4Stage st[R4_DEPTH];
#pragma unroll
  for (int d = 0; d < R4_DEPTH; ++d) {
    const int kb = min(kb_begin + d, kb_end - 1);
    {
      const int grp = R4_BROKEN_SCALE ? ((kb >> 1) + 1) % G : (kb >> 1);
#pragma unroll
      for (int p = 0; p < R4_NPW; ++p) {
        st[d].w[p] = r4_ld_weight<R4_NT>(wp[p] + (i64)kb * 32);
        st[d].s0[p] = r4_ld_u32(sp[p] + grp * 16);
        st[d].s1[p] = r4_ld_u32(sp[p] + grp * 16 + 8);
      }
    }
  }

  // Activation staging (kernels/gemm_common.h): chunk q of R4_CB blocks in buffer q & 1.
  extern __shared__ __align__(16) char r4_smem[];
  const int rows_alloc = min(R4_MB * 16, (M + 7) & ~7);
  const int rows_live = min(R4_MB * 16, M - m_base);
  const int stage_bytes = rows_alloc * R4_ROW_BYTES;
  const char* a_src = reinterpret_cast<const char*>(A + (i64)m_base * K);
  const i64 a_stride = (i64)K * 2;
  r4_stage_chunk(r4_smem, R4_ROW_BYTES, a_src + (i64)kb_begin * 128, a_stride, rows_live,
                 min(R4_CB, kb_end - kb_begin) * 128);
  int chunk = 0;
  const char* sbuf = r4_smem;

  for (int kb0 = kb_begin; kb0 < kb_end; kb0 += R4_SB) {
#pragma unroll
    for (int i = 0; i < R4_SB; ++i) {
      const int kb = kb0 + i;
      const int d = i % R4_DEPTH;
      // No branch around the step: a conditional load would make ptxas wait for it where the
      // paths join, which serialises the register ring (measured 2026-11-30 on the H200: the
      // guarded version streamed 17408x5120 at M=1 in 50 us with SK=1, one DRAM latency per
      // 64-K block per warp). Steps past kb_end run on zeroed activations instead.
      const bool valid = kb < kb_end;
      {
        if (i % R4_CB == 0) {  // chunk boundary (block-uniform): stage the next chunk
          __syncthreads();      // every warp is done with the buffer about to be refilled
          sbuf = r4_smem + (chunk & 1) * stage_bytes;
          const int nk = kb + R4_CB;
          if (nk < kb_end) {
            r4_stage_chunk(r4_smem + ((chunk + 1) & 1) * stage_bytes, R4_ROW_BYTES,
                           a_src + (i64)nk * 128, a_stride, rows_live, min(R4_CB, kb_end - nk) * 128);
          } else {
            r4_cp_async_commit();
          }
          r4_cp_async_wait<1>();
          __syncthreads();
          ++chunk;
        }
        const W4Stage cur = st[d];
        const int nkb = min(kb + R4_DEPTH, kb_end - 1);  // clamped: the tail re-reads a block
        {
          const int grp = R4_BROKEN_SCALE ? ((nkb >> 1) + 1) % G : (nkb >> 1);
#pragma unroll
          for (int p = 0; p < R4_NPW; ++p) {
            st[d].w[p] = r4_ld_weight<R4_NT>(wp[p] + (i64)nkb * 32);
            st[d].s0[p] = r4_ld_u32(sp[p] + grp * 16);
            st[d].s1[p] = r4_ld_u32(sp[p] + grp * 16 + 8);
          }
        }
        // Activations of this block: 16 consecutive k per lane (32 bytes) per live sub-tile.
        u32x4 h[R4_MSUB][2];
#pragma unroll
        for (int j = 0; j < R4_MSUB; ++j) {
          if (m_base + 8 * j < M && valid) {
            const char* p = sbuf + (8 * j + g) * R4_ROW_BYTES + (i % R4_CB) * 128 + 32 * t;
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
          const u32 w4[4] = {cur.w[p].x, cur.w[p].y, cur.w[p].z, cur.w[p].w};
#if R4_A_BF16
          const u32 s_lo = r4nv::f16_scale_to_bf16x2(cur.s0[p]);
          const u32 s_hi = r4nv::f16_scale_to_bf16x2(cur.s1[p]);
#pragma unroll
          for (int s = 0; s < 4; ++s) r4nv::dequant_bf16(w4[s], s_lo, s_hi, a[p][s]);
#else
          const u32 s_lo = r4nv::prmt(cur.s0[p], 0u, 0x1010u);  // (scale, scale)
          const u32 s_hi = r4nv::prmt(cur.s1[p], 0u, 0x1010u);
          const u32 bias = r4nv::prmt(cur.s0[p], 0u, 0x3232u);  // (-1032, -1032)
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
  }

  const R4Out o{C, reinterpret_cast<float*>(static_cast<char*>(ws) + R4_SPLITK_COUNTER_BYTES), M, N};
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

#elif defined(R4_AMD)
#include "kernels/amd/gemm_w4a16_nt_wmma.h"
#endif
