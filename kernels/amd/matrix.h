// AMD fragment-helper dispatch: one file per matrix-instruction generation, and which GEMM bodies
// go with it. An AMD target without a path (gfx9 before gfx942, gfx10) fails to compile here;
// kernels/amd/config_amd.hpp is the same list for is_valid.
//   gfx11 (RDNA3) WMMA wave32   kernels/amd/wmma_gfx11.h   bodies kernels/amd/gemm_*_wmma.h
//   gfx12 (RDNA4) WMMA wave32   kernels/amd/wmma_gfx12.h   bodies kernels/amd/gemm_*_wmma.h
//   gfx942 (CDNA3) MFMA wave64  kernels/amd/mfma_gfx942.h  bodies kernels/amd/gemm_*_mfma.h
#ifndef R4_KERNELS_AMD_MATRIX_H
#define R4_KERNELS_AMD_MATRIX_H
#if defined(__gfx1100__) || defined(__gfx1101__) || defined(__gfx1102__) || defined(__gfx1150__)
#include "kernels/amd/wmma_gfx11.h"
#define R4_AMD_WMMA 1
#elif defined(__gfx1200__) || defined(__gfx1201__)
#include "kernels/amd/wmma_gfx12.h"
#define R4_AMD_WMMA 1
#elif defined(__gfx942__)
#include "kernels/amd/mfma_gfx942.h"
#include "quant/layout/gfx942.h"
#define R4_AMD_MFMA 1
#elif defined(__HIP_DEVICE_COMPILE__)
#error "the w4 kernel family needs AMD WMMA (gfx11 RDNA3, gfx12 RDNA4) or gfx942 MFMA (CDNA3)"
#endif
#endif  // R4_KERNELS_AMD_MATRIX_H
