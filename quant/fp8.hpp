// Block-fp8 checkpoints (seeds/000 `_dequant_block_fp8`): an e4m3 weight [N, K] with one f32
// scale_inv per 128x128 block, [ceil(N/128), ceil(K/128)]; the last block row/column may be
// partial (the seed repeats the scales and slices s[:N, :K]).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace r4::quant {

inline constexpr int kFp8Block = 128;  // the checkpoint's block, a property of the file

// weight.float() * s[:N, :K], rounded to bf16 (returned as f32 holding bf16 values).
// Throws std::invalid_argument when the scale grid does not cover [N, K].
[[nodiscard]] std::vector<float> dequant_block_fp8(std::span<const std::uint8_t> weight,
                                                   std::int64_t n, std::int64_t k,
                                                   std::span<const float> scale_inv,
                                                   std::int64_t scale_rows, std::int64_t scale_cols,
                                                   int block = kFp8Block);

}  // namespace r4::quant
