#include "kernels/random_weights.hpp"

#include <random>
#include <vector>

#include "kernels/config.hpp"
#include "quant/pack_mx.hpp"

namespace r4::kernels {

quant::Packed random_packed_weights(quant::Layout layout, std::int64_t n, std::int64_t k,
                                    std::uint32_t seed, float scale_lo, float scale_hi) {
  std::mt19937 rng(seed);
  // Codes in -8..7, eight per 32-bit draw: one draw per code cost ~1 s of the six dflash shapes'
  // set-up per sweep (CPU, 2026-11-30).
  std::vector<std::int8_t> q(static_cast<std::size_t>(n * k));
  for (std::size_t i = 0; i < q.size(); i += 8) {
    const std::uint32_t r = static_cast<std::uint32_t>(rng());
    for (std::size_t j = 0; j < 8 && i + j < q.size(); ++j)
      q[i + j] = static_cast<std::int8_t>(static_cast<int>((r >> (4 * j)) & 15u) - 8);
  }
  std::vector<float> sc(static_cast<std::size_t>(n * k / kGroup));
  std::uniform_real_distribution<float> u(scale_lo, scale_hi);
  for (auto& s : sc) s = u(rng);
  return quant::pack(layout, q, sc, n, k, kGroup);
}

quant::Packed random_mx_packed_weights(std::int64_t n, std::int64_t k, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::uint8_t> codes(static_cast<std::size_t>(n * k / 2));  // two codes per byte
  for (std::size_t i = 0; i < codes.size(); i += 4) {
    const std::uint32_t r = static_cast<std::uint32_t>(rng());
    for (std::size_t j = 0; j < 4 && i + j < codes.size(); ++j)
      codes[i + j] = static_cast<std::uint8_t>(r >> (8 * j));
  }
  std::vector<std::uint8_t> e8m0(static_cast<std::size_t>(n * k / 32));
  std::uniform_int_distribution<int> e(127 - 9, 127 - 6);
  for (auto& x : e8m0) x = static_cast<std::uint8_t>(e(rng));
  return quant::pack_mx_sm89(codes, e8m0, n, k);
}

}  // namespace r4::kernels
