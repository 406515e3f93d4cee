// gemm_w4a8_nt: C[M, N] (bf16) = diag(sa) Aq[M, K] (int8, per-row f32 scale sa from quant_act)
// x W[N, K]^T, the same packed W as gemm_w4a16_nt. int8 MMA (mma.sync m16n8k32 s8): the weight
// nibble is shifted into its byte's high half (byte = 16*code) and 1/16 goes into the scale; each
// 128-K group accumulates exactly in int32, then one multiply by (group scale / 16) into f32, and
// one multiply by the row's activation scale at the end (QServe: no per-partial dequant).
// M = 1..64, N a multiple of 16, K a multiple of 128; Aq 16-byte aligned.
//
// Work mapping, cp.async pipeline and split-K as gemm_w4a16_nt (kernels/gemm_common.h). Under
// the sm80 layout the lane's 16 activation bytes (k 16t..16t+15 of the block) are, in natural
// order, the B registers of the block's two k32 steps: no shuffling on this path.
//
// Test-only define: R4_BROKEN_SCALE=1 reads the scale of the next group (wrapping).
// R4_GEN: 0 the mma.sync generation below, 1 the sm90a generation (kernels/nv/gemm_w4_sm90a.h),
// 2 the ldg generation (kernels/nv/gemm_w4_ldg.h).
#ifndef R4_GEN
#define R4_GEN 0
#endif

#if R4_GEN == 1
#define R4_ACT_KIND 2
#include "kernels/nv/gemm_w4_sm90a.h"

R4_EXTERN void __launch_bounds__(R4G_THREADS, 1)
    gemm_w4a8_nt(const i8* __restrict__ Aq, const float* __restrict__ sa,
                 const u32x4* __restrict__ wq, const u32* __restrict__ wsz, u16* __restrict__ C,
                 void* __restrict__ ws, int M, int N, int K) {
  r4g_gemm(Aq, sa, wq, wsz, C, ws, M, N, K);
}

#elif R4_GEN == 2
#define R4_ACT_KIND 2
#include "kernels/nv/gemm_w4_ldg.h"

R4_EXTERN void R4L_LAUNCH_BOUNDS gemm_w4a8_nt(const i8* __restrict__ Aq,
                                              const float* __restrict__ sa,
                                              const u32x4* __restrict__ wq,
                                              const u32* __restrict__ wsz, u16* __restrict__ C,
                                              void* __restrict__ ws, int M, int N, int K) {
  r4l_gemm(Aq, sa, wq, wsz, C, ws, M, N, K);
}

#else  // R4_GEN == 0
#define R4_ACT_BYTES 1
#include "kernels/gemm_common.h"

#if defined(R4_NV)
#include "kernels/nv/mma_sm80.h"
#include "quant/layout/sm80.h"
#elif defined(R4_AMD)
#include "kernels/amd/matrix.h"
#endif

#define R4_MSUB (2 * R4_MB)

#if defined(R4_NV)

R4_EXTERN void R4_LAUNCH_BOUNDS(R4_WV * 32)
    gemm_w4a8_nt(const i8* __restrict__ Aq,     // [M, K] int8
                 const float* __restrict__ sa,  // [M] f32 activation scales
                 const u32x4* __restrict__ wq,  // sm80 layout
                 const u32* __restrict__ wsz,   // scale dwords
                 u16* __restrict__ C,           // [M, N] bf16 bits
                 void* __restrict__ ws,         // split-K workspace (SK > 1)
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
    const int tile = min(tile_base + p, ntiles - 1);
    wp[p] = wq + (i64)tile * KB * 32 + lane;
    sp[p] = wsz + (i64)tile * G * 16;
  }

  float acc[R4_NPW][R4_MSUB][4];
  i32 iacc[R4_NPW][R4_MSUB][4];
#pragma unroll
  for (int p = 0; p < R4_NPW; ++p)
#pragma unroll
    for (int j = 0; j < R4_MSUB; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        acc[p][j][e] = 0.0f;
        iacc[p][j][e] = 0;
      }

  extern __shared__ __align__(16) char r4_smem[];
  const r4_saddr wring = r4_saddr_of(r4_smem) + warp * (R4_STAGES * R4_NPW * R4_WSLOT);
  const r4_saddr abuf = r4_saddr_of(r4_smem) + R4_WV * R4_STAGES * R4_NPW * R4_WSLOT;
  const int rows_alloc = min(R4_MB * 16, (M + 7) & ~7);
  const int rows_live = min(R4_MB * 16, M - m_base);
  const int act_stage = rows_alloc * R4_ROW_BYTES;
  const char* a_src = reinterpret_cast<const char*>(Aq + (i64)m_base * K);
  const i64 a_stride = (i64)K;

  r4_pipeline_prologue(wring, wp, sp, kb_begin, kb_end, G, lane, abuf, a_src, a_stride, rows_live);

  int chunk = 0;
  for (int kb0 = kb_begin; kb0 < kb_end; kb0 += R4_STAGES, ++chunk) {
#pragma unroll
    for (int i = 0; i < R4_STAGES; ++i) {
      const int kb = kb0 + i;
      const bool valid = kb < kb_end;
      r4_cp_async_wait<R4_STAGES - 2>();  // block kb (and, at i == 0, this chunk) has landed
      if (i == 0) {
        __syncthreads();
        if (kb0 + R4_STAGES < kb_end)
          r4_stage_rows(abuf + ((chunk + 1) & 1) * act_stage,
                        a_src + (i64)(kb0 + R4_STAGES) * R4_BPB, a_stride, rows_live,
                        min(R4_STAGES, kb_end - kb0 - R4_STAGES) * R4_BPB);
      } else {
        __syncwarp();
      }
      r4_issue_weights(wring + ((i + R4_STAGES - 1) % R4_STAGES) * R4_NPW * R4_WSLOT, wp, sp,
                       min(kb + R4_STAGES - 1, kb_end - 1), G, lane);
      r4_cp_async_commit();

      const r4_saddr slot = wring + i * R4_NPW * R4_WSLOT;
      const r4_saddr sbuf = abuf + (chunk & 1) * act_stage;
      u32x4 q[R4_MSUB];
#pragma unroll
      for (int j = 0; j < R4_MSUB; ++j) {
        if (m_base + 8 * j < M && valid) {
          q[j] = r4_lds16(sbuf + (8 * j + g) * R4_ROW_BYTES + i * 64 + 16 * t);
        } else {
          q[j] = u32x4{0u, 0u, 0u, 0u};
        }
      }
      const bool flush = (kb & 1) || kb + 1 == kb_end;  // end of a 128-K group or of the split
#pragma unroll
      for (int p = 0; p < R4_NPW; ++p) {
        const u32x4 wv = r4_lds16(slot + p * R4_WSLOT + lane * 16);
        u32 a0[4], a1[4];
        r4nv::dequant_s8(wv.x, wv.y, a0);  // k32 step 0
        r4nv::dequant_s8(wv.z, wv.w, a1);  // k32 step 1
#pragma unroll
        for (int j = 0; j < R4_MSUB; ++j) {
          if (m_base + 8 * j < M) {
            r4nv::mma_s8(iacc[p][j], a0, q[j].x, q[j].y);
            r4nv::mma_s8(iacc[p][j], a1, q[j].z, q[j].w);
          }
        }
        if (flush) {  // one scale multiply per accumulator per group
          const r4_saddr sc = slot + p * R4_WSLOT + 512;  // the tile's 16 scale dwords
          const float w0 = r4_f16_to_f32(r4_lds32(sc + 4 * g)) * 0.0625f;
          const float w1 = r4_f16_to_f32(r4_lds32(sc + 4 * (g + 8))) * 0.0625f;
#pragma unroll
          for (int j = 0; j < R4_MSUB; ++j) {
            acc[p][j][0] += (float)iacc[p][j][0] * w0;
            acc[p][j][1] += (float)iacc[p][j][1] * w0;
            acc[p][j][2] += (float)iacc[p][j][2] * w1;
            acc[p][j][3] += (float)iacc[p][j][3] * w1;
#pragma unroll
            for (int e = 0; e < 4; ++e) iacc[p][j][e] = 0;
          }
        }
      }
    }
  }
  r4_cp_async_wait<0>();
  if (R4_PDL_TRIGGER == 2) r4_pdl_launch_dependents();

  const R4Out o{C, reinterpret_cast<float*>(static_cast<char*>(ws) + R4_SPLITK_COUNTER_BYTES), M,
                N};
#pragma unroll
  for (int j = 0; j < R4_MSUB; ++j) {
    const int m = m_base + 8 * j + 2 * t;
    const float sa0 = m < M ? sa[m] : 0.0f;
    const float sa1 = m + 1 < M ? sa[m + 1] : 0.0f;
#pragma unroll
    for (int p = 0; p < R4_NPW; ++p) {
      if (tile_base + p < ntiles) {
        const int n0 = (tile_base + p) * 16 + g;
        o.put(m, n0, acc[p][j][0] * sa0);
        o.put(m + 1, n0, acc[p][j][1] * sa1);
        o.put(m, n0 + 8, acc[p][j][2] * sa0);
        o.put(m + 1, n0 + 8, acc[p][j][3] * sa1);
      }
    }
  }
  r4_splitk_finish(o, ws, (int)blockIdx.x * R4_WV * R4_NPW * 16, R4_WV * R4_NPW * 16, m_base,
                   R4_MB * 16);
}

#elif defined(R4_AMD_MFMA)
#include "kernels/amd/gemm_w4a8_nt_mfma.h"
#elif defined(R4_AMD)
#include "kernels/amd/gemm_w4a8_nt_wmma.h"
#endif
#endif  // R4_GEN
