// gemm_w4a8fp8_nt: C[M, N] (bf16) = diag(sa) Aq[M, K] (OCP e4m3, per-row f32 scale sa from
// quant_act_fp8) x W[N, K]^T, W the int4 g128 weight of gemm_w4a16_nt / gemm_w4a8_nt in the same
// packed sm80 layout (a GPTQ / AutoRound symmetric checkpoint after `r4tune quant gptq`: code
// c - 8). Seed 002's W4A8-fp8 on NVIDIA: fp8 mma.sync m16n8k32 (sm_89+); the weight nibble becomes
// the exact e4m3 byte code * 2^-9 in registers (kernels/nv/cvt_fp8.h), each 128-K group
// accumulates in an f32 partial promoted once by (group scale * 2^9), and the row's activation
// scale multiplies at the end. M = 1..64, N a multiple of 16, K a multiple of 128. The same on
// AMD RDNA4 with the gfx12 layout and fp8 WMMA (below).
//
// Generations (kernels/config.hpp): R4_GEN=2 the ldg generation (kernels/nv/gemm_w4_ldg.h, sm_89+)
// and R4_GEN=1 the sm90a generation (kernels/nv/gemm_w4_sm90a.h: wgmma .e4m3, compute capability
// 9.x); no mma.sync-ring (R4_GEN=0) body on NVIDIA. On AMD, R4_GEN=0 (the family's AMD
// generation, the default there) is the RDNA4 body (kernels/amd/gemm_w4a8fp8_nt_wmma.h:
// v_wmma_f32_16x16x16_fp8_fp8, the seeds' gfx12 layout); gfx11 has no fp8 WMMA and gfx942's fp8 is
// FNUZ, so neither has a body (kernels/amd/config_amd.hpp says why).
// Test-only define: R4_BROKEN_SCALE=1 reads the scale of the next group (wrapping).
#include "kernels/prelude.h"  // R4_AMD / R4_NV

#ifndef R4_GEN
#if defined(R4_AMD)
#define R4_GEN 0
#else
#define R4_GEN 2
#endif
#endif
#define R4_ACT_KIND 3

#if R4_GEN == 1
#include "kernels/nv/gemm_w4_sm90a.h"

R4_EXTERN void __launch_bounds__(R4G_THREADS, 1)
    gemm_w4a8fp8_nt(const unsigned char* __restrict__ Aq, const float* __restrict__ sa,
                    const u32x4* __restrict__ wq, const u32* __restrict__ wsz, u16* __restrict__ C,
                    void* __restrict__ ws, int M, int N, int K) {
  r4g_gemm(Aq, sa, wq, wsz, C, ws, M, N, K);
}

#elif R4_GEN == 2
#include "kernels/nv/gemm_w4_ldg.h"

R4_EXTERN void R4L_LAUNCH_BOUNDS gemm_w4a8fp8_nt(const unsigned char* __restrict__ Aq,
                                                 const float* __restrict__ sa,
                                                 const u32x4* __restrict__ wq,
                                                 const u32* __restrict__ wsz, u16* __restrict__ C,
                                                 void* __restrict__ ws, int M, int N, int K) {
  r4l_gemm(Aq, sa, wq, wsz, C, ws, M, N, K);
}

#elif R4_GEN == 0 && defined(R4_AMD)
#define R4_ACT_BYTES 1
#include "kernels/gemm_common.h"  // first: config defines, split-K epilogue

#include "kernels/amd/matrix.h"  // the fragment file (wmma_gfx12.h on gfx12)

#include "kernels/amd/gemm_w4a8fp8_nt_wmma.h"  // the body; #error off gfx12

#else
#error "gemm_w4a8fp8_nt: R4_GEN 1 (sm90a) / 2 (ldg) on NVIDIA, 0 (gfx12 WMMA) on AMD"
#endif
