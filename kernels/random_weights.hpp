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

}  // namespace r4::kernels
