// CPU references for every op of the family, accumulating in double over the dequantised
// weights (codes * f16-rounded scale). They read the UNPACKED codes, so a layout or kernel bug
// cannot hide in a shared index function. Also computes, per output, the L2 norm of the product
// terms, which scales the operand-rounding part of the tolerance (kernels/tolerance.hpp).
#pragma once

#include <cstdint>
#include <span>

#include "kernels/config.hpp"

namespace r4::kernels {

struct RefOut {
  std::span<double> c;     // [M, N]
  std::span<double> norm;  // [M, N], sqrt(sum_k (a*w)^2)
};

// A: f16 (a_bf16 = false) or bf16 bits [M, K]; q: codes [N, K] in -8..7; scale: [N, K/128] (the
// f16-rounded values, as unpack returns them).
void ref_gemm_w4a16(std::span<const std::uint16_t> a, bool a_bf16, std::span<const std::int8_t> q,
                    std::span<const float> scale, const Shape& s, RefOut out);

// Aq int8 [M, K] with per-row scale sa [M].
void ref_gemm_w4a8(std::span<const std::int8_t> aq, std::span<const float> sa,
                   std::span<const std::int8_t> q, std::span<const float> scale, const Shape& s,
                   RefOut out);

// The quant_act contract, bit for bit: amax in f32, sa = amax / 127, inv = 127 / amax (0 for a
// zero row), q = nearbyint(a * inv) (round half to even), clamped to -127..127.
void ref_quant_act(std::span<const std::uint16_t> a_bf16, std::int64_t m, std::int64_t k,
                   std::span<std::int8_t> aq, std::span<float> sa);

// The quant_act_fp8 contract (kernels/quant_act_fp8.cu), bit for bit: amax in f32, sa = amax / 448,
// inv = 448 / amax (0 for a zero row), q = e4m3 bits of a * inv, round to nearest even, saturating
// to +-448 (quant/numeric.hpp f32_to_e4m3_sat_bits).
void ref_quant_act_fp8(std::span<const std::uint16_t> a_bf16, std::int64_t m, std::int64_t k,
                       std::span<std::uint8_t> aq, std::span<float> sa);

}  // namespace r4::kernels
