// Random packed 4-bit weights for checks and timing pools: codes uniform in -8..7, one scale per
// (row, 128-K group) uniform in [scale_lo, scale_hi), packed in `layout` (the arch's:
// kernels/weight_layout.hpp).
#pragma once

#include <cstdint>

#include "quant/pack.hpp"

namespace r4::kernels {

[[nodiscard]] quant::Packed random_packed_weights(quant::Layout layout, std::int64_t n,
                                                  std::int64_t k, std::uint32_t seed,
                                                  float scale_lo, float scale_hi);

// Random MXFP4 weights in the mx_sm89 layout (quant/layout/mx_sm89.h): e2m1 codes uniform over
// all 16 (both zeros included), e8m0 exponents uniform in 2^-9 .. 2^-6 (so |w| <= 6 * 2^-6, the
// int4 checks' magnitude), for the MXFP4 GEMM's checks.
[[nodiscard]] quant::Packed random_mx_packed_weights(std::int64_t n, std::int64_t k,
                                                     std::uint32_t seed);

}  // namespace r4::kernels
