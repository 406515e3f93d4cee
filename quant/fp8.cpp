#include "quant/fp8.hpp"

#include <stdexcept>
#include <string>

#include "quant/numeric.hpp"
#include "quant/parallel.hpp"

namespace r4::quant {

std::vector<float> dequant_block_fp8(std::span<const std::uint8_t> weight, std::int64_t n,
                                     std::int64_t k, std::span<const float> scale_inv,
                                     std::int64_t scale_rows, std::int64_t scale_cols, int block) {
  if (block < 1) throw std::invalid_argument("dequant_block_fp8: block must be >= 1");
  if (static_cast<std::int64_t>(weight.size()) != n * k)
    throw std::invalid_argument("dequant_block_fp8: weight is not N*K bytes");
  if (static_cast<std::int64_t>(scale_inv.size()) != scale_rows * scale_cols)
    throw std::invalid_argument("dequant_block_fp8: scale_inv size is not rows*cols");
  if (scale_rows * block < n || scale_cols * block < k)
    throw std::invalid_argument("dequant_block_fp8: scale grid [" + std::to_string(scale_rows) +
                                ", " + std::to_string(scale_cols) + "] of " +
                                std::to_string(block) + "-blocks does not cover [" +
                                std::to_string(n) + ", " + std::to_string(k) + "]");
  float lut[256];
  for (int b = 0; b < 256; ++b) lut[b] = e4m3_to_f32(static_cast<std::uint8_t>(b));
  std::vector<float> out(weight.size());
  parallel_for(
      n,
      [&](std::int64_t r0, std::int64_t r1) {
        for (std::int64_t r = r0; r < r1; ++r) {
          const float* srow = scale_inv.data() + (r / block) * scale_cols;
          for (std::int64_t c = 0; c < k; ++c) {
            const auto i = static_cast<std::size_t>(r * k + c);
            out[i] = round_bf16(lut[weight[i]] * srow[c / block]);
          }
        }
      },
      64);
  return out;
}

}  // namespace r4::quant
