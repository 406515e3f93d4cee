// gemm_mxfp4a8fp8_nt: C[M, N] (bf16) = diag(sa) Aq[M, K] (OCP e4m3, per-row f32 scale sa from
// quant_act_fp8) x W[N, K]^T, W MXFP4: e2m1 codes with one e8m0 exponent per 32 K, packed in the
// mx_sm89 layout (quant/layout/mx_sm89.h; `r4tune quant mxfp4`, NVFP4 checkpoints through it).
// Seed 003's W4A8-fp8 on NVIDIA: fp8 mma.sync m16n8k32 (sm_89+); every e2m1 code becomes the
// exact e4m3 byte value * 2^-6 in registers (kernels/nv/cvt_fp8.h), each k32 step's f32 partial
// is promoted by 2^(e - 127 + 6), and the row's activation scale multiplies at the end.
// M = 1..64, N a multiple of 16, K a multiple of 128 (the family's K granule; MXFP4 itself needs
// 32). Weight bytes: N*K/2 + N*K/32, as many as the int4 layouts' (scales are e8m0 bytes).
//
// Generations (kernels/config.hpp): R4_GEN=2 the ldg generation (kernels/nv/gemm_w4_ldg.h, sm_89+)
// and R4_GEN=1 the sm90a generation (kernels/nv/gemm_w4_sm90a.h, R4_ACT_KIND 4: wgmma .e4m3, a
// partial per k32 step promoted by its block's exponent; activations in ActOrder::sm90a_mx).
// Test-only define: R4_BROKEN_SCALE=1 reads the exponents of the next group's first block (ldg).
#ifndef R4_GEN
#define R4_GEN 2
#endif
#define R4_ACT_KIND 4

#if R4_GEN == 1
#include "kernels/nv/gemm_w4_sm90a.h"

R4_EXTERN void __launch_bounds__(R4G_THREADS, 1)
    gemm_mxfp4a8fp8_nt(const unsigned char* __restrict__ Aq, const float* __restrict__ sa,
                       const u32x4* __restrict__ wq, const u32* __restrict__ wsz,
                       u16* __restrict__ C, void* __restrict__ ws, int M, int N, int K) {
  r4g_gemm(Aq, sa, wq, wsz, C, ws, M, N, K);
}

#elif R4_GEN == 2
#include "kernels/nv/gemm_w4_ldg.h"

R4_EXTERN void R4L_LAUNCH_BOUNDS gemm_mxfp4a8fp8_nt(const unsigned char* __restrict__ Aq,
                                                    const float* __restrict__ sa,
                                                    const u32x4* __restrict__ wq,
                                                    const u32* __restrict__ wsz,
                                                    u16* __restrict__ C, void* __restrict__ ws,
                                                    int M, int N, int K) {
  r4l_gemm(Aq, sa, wq, wsz, C, ws, M, N, K);
}

#else
#error "gemm_mxfp4a8fp8_nt: R4_GEN 1 (sm90a) or 2 (ldg), NVIDIA only"
#endif
