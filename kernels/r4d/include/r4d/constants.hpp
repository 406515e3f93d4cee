// The seeds' constants (seeds/000: `r4d.GEMM_W4_GROUP`, `r4d.GEMM_W4_MAX_M`,
// `r4d.GEMM_W4A8_GROUP`). The library checks them against kernels/config.hpp at build time.
#pragma once

namespace r4d {

inline constexpr int GEMM_W4_GROUP = 128;    // K per f16 weight scale (both kernels)
inline constexpr int GEMM_W4_MAX_M = 64;     // rows the decode-band kernels serve: M in 1..64
inline constexpr int GEMM_W4A8_GROUP = 128;  // K per weight scale of the int8-activation kernel

}  // namespace r4d
