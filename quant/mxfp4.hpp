// FP4 formats (seeds/003): e2m1 codes (bit 3 sign, bits 0-2 an index into
// {0, .5, 1, 1.5, 2, 3, 4, 6}), two per byte with the LOW nibble the even k.
//   NVFP4: e2m1 * f32(e4m3 scale per 16) / global_divisor (the checkpoint's weight_global_scale as
//          stored, (6 * 448) / amax), one divisor per partition of a merged linear.
//   MXFP4: e2m1 * 2^(e8m0 - 127) per 32.
// The MXFP4 quantiser picks each 32-block's exponent by one of three rules and rounds codes to
// nearest, ties to the even code, in float32 exactly as the seed's torch code.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace r4::quant {

enum class ExpRule {
  ocp,     // floor(log2(amax)) - 2: amax lands in [4, 8), values above 6 clip
  noclip,  // ceil(log2(amax / 6)): amax lands in (3, 6], never clips
  mse,     // whichever of noclip and noclip - 1 has the smaller squared error (the default)
};
[[nodiscard]] std::string_view to_string(ExpRule r);
[[nodiscard]] std::optional<ExpRule> parse_exp_rule(std::string_view name);

// [N, K/2] packed codes -> [N, K] f32.
[[nodiscard]] std::vector<float> unpack_e2m1(std::span<const std::uint8_t> packed, std::int64_t n,
                                             std::int64_t k);

// NVFP4 rows [N, K] (packed [N, K/2], e4m3 scales [N, K/16]) with one global divisor.
[[nodiscard]] std::vector<float> dequant_nvfp4(std::span<const std::uint8_t> packed,
                                               std::span<const std::uint8_t> scale_e4m3,
                                               float global_divisor, std::int64_t n,
                                               std::int64_t k);

// |v| / block scale -> e2m1 index 0..7, round to nearest, ties to the even index (seed's
// e2m1_index; NaN maps to 0).
[[nodiscard]] std::uint8_t e2m1_index(float a);

// The block exponent (scale = 2^e) from a block's amax under `rule` (ocp or noclip); 0 for an
// all-zero block; clamped to [-127, 127].
[[nodiscard]] float block_exponent(float amax, ExpRule rule);

struct Mxfp4Quantized {
  std::vector<std::uint8_t> packed;  // [N, K/2], low nibble = even k
  std::vector<std::uint8_t> e8m0;    // [N, K/32]
  double sq_error = 0.0;             // sum over blocks of the seed's per-block squared error
  double sq_norm = 0.0;              // sum of w^2
  [[nodiscard]] double relative_rms() const;
};

// The seed's quant_mxfp4 on f32 rows (K % 32 == 0, else std::invalid_argument). All cores.
[[nodiscard]] Mxfp4Quantized quant_mxfp4(std::span<const float> w, std::int64_t n, std::int64_t k,
                                         ExpRule rule = ExpRule::mse);

[[nodiscard]] std::vector<float> dequant_mxfp4(std::span<const std::uint8_t> packed,
                                               std::span<const std::uint8_t> e8m0, std::int64_t n,
                                               std::int64_t k);

}  // namespace r4::quant
