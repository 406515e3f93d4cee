// AutoRound / GPTQ int4 checkpoints (`auto_round:auto_gptq`, seeds/002): group 128, symmetric.
//   qweight [K/8, N] int32, eight 4-bit codes packed along K (nibble j of word [kw, n] is
//           k = 8*kw + j); code c means the integer c - 8;
//   scales  [K/128, N] f16;
//   qzeros  [K/128, N/8] int32, every word 0x77777777 (GPTQ stores zero - 1: zero = 8).
// The kernel reads qweight transposed, [N, K/8], so one row's codes are contiguous.
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <vector>

namespace r4::quant {

inline constexpr int kGptqGroup = 128;
inline constexpr int kGptqPack = 8;  // codes per int32
inline constexpr std::uint32_t kGptqSymmetricZeros = 0x77777777U;

struct AsymmetricError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Number of qzeros words that differ from 0x77777777.
[[nodiscard]] std::int64_t count_asymmetric(std::span<const std::uint32_t> qzeros);
// Throws AsymmetricError ("... not symmetric: B of T qzeros words differ ...") unless all match.
void require_symmetric(std::span<const std::uint32_t> qzeros);

// [K/8, N] -> [N, K/8].
[[nodiscard]] std::vector<std::uint32_t> transpose_qweight(std::span<const std::uint32_t> qweight,
                                                           std::int64_t k, std::int64_t n);

// Codes 0..15 of a transposed qweight [N, K/8] as [N, K] (the seed's `codes`).
[[nodiscard]] std::vector<std::uint8_t> unpack_gptq(std::span<const std::uint32_t> qweight_t,
                                                    std::int64_t n, std::int64_t k);

// (codes - 8) * f32(scales[k / 128, n]) as f32 [N, K] (the seed's `w`, exact in f32).
[[nodiscard]] std::vector<float> dequant_gptq(std::span<const std::uint32_t> qweight_t,
                                              std::span<const std::uint16_t> scales_f16,
                                              std::int64_t n, std::int64_t k);

// The seed's _exact_ref: (x_fp8 * x_scale[m]) @ w^T, rounded to bf16 ([M, N], f32 holding bf16
// values). The dot products accumulate in double and round once to f32 (the seed leaves the
// order to the BLAS; any fp32 order is within K * 2^-24 relative of this).
[[nodiscard]] std::vector<float> gptq_exact_ref(std::span<const std::uint8_t> x_e4m3,
                                                std::span<const float> x_scale,
                                                std::span<const std::uint32_t> qweight_t,
                                                std::span<const std::uint16_t> scales_f16,
                                                std::int64_t m, std::int64_t n, std::int64_t k);

}  // namespace r4::quant
