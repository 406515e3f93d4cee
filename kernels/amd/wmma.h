// AMD fragment-helper dispatch: one file per WMMA generation. An AMD target without WMMA
// (gfx9 CDNA, gfx10) is refused at compile time.
#ifndef R4_KERNELS_AMD_WMMA_H
#define R4_KERNELS_AMD_WMMA_H
#if defined(__gfx1100__) || defined(__gfx1101__) || defined(__gfx1102__) || defined(__gfx1150__)
#include "kernels/amd/wmma_gfx11.h"
#elif defined(__gfx1200__) || defined(__gfx1201__)
#include "kernels/amd/wmma_gfx12.h"
#elif defined(__HIP_DEVICE_COMPILE__)
#error "the w4 kernel family needs AMD WMMA: gfx11 (RDNA3) or gfx12 (RDNA4)"
#endif
#endif  // R4_KERNELS_AMD_WMMA_H
