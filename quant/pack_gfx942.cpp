// The `gfx942` packer and its inverse (AMD CDNA3 MFMA, wave64; the index map is
// quant/layout/gfx942.h, shared with the kernels). Scales are rounded to f16 (round to nearest
// even) on packing, as every layout does.
#include <stdexcept>
#include <string>

#include "quant/layout/gfx942.h"
#include "quant/numeric.hpp"
#include "quant/pack.hpp"
#include "quant/parallel.hpp"

namespace r4::quant {
namespace {

namespace lay = r4::layout::gfx942;

void check_shape(std::int64_t n, std::int64_t k, int group, const char* who) {
  const std::string w = who;
  if (n <= 0 || n % lay::kRowsPerTile != 0)
    throw std::invalid_argument(w + ": N must be a positive multiple of 16, got " +
                                std::to_string(n));
  if (group != lay::kGroup)
    throw std::invalid_argument(w + ": the layout's group is 128, got " + std::to_string(group));
  if (k <= 0 || k % group != 0)
    throw std::invalid_argument(w + ": K must be a positive multiple of 128, got " +
                                std::to_string(k));
}

}  // namespace

Packed pack_gfx942(std::span<const std::int8_t> q, std::span<const float> scale, std::int64_t n,
                   std::int64_t k, int group) {
  check_shape(n, k, group, "pack gfx942");
  const auto nk = static_cast<std::size_t>(n * k);
  const auto groups = k / group;
  if (q.size() != nk || scale.size() != static_cast<std::size_t>(n * groups))
    throw std::invalid_argument("pack gfx942: q must hold N*K codes and scale N*K/128 values");
  for (const auto c : q)
    if (c < -8 || c > 7)
      throw std::invalid_argument("pack gfx942: code " + std::to_string(c) + " is outside -8..7");
  Packed p;
  p.wq.assign(nk / 8, 0u);
  p.wsz.assign(static_cast<std::size_t>(n * groups), 0u);
  // In memory order: each output dword is written by one thread, from its eight (n, k).
  const auto dwords = static_cast<std::int64_t>(p.wq.size());
  parallel_for(
      dwords,
      [&](std::int64_t d0, std::int64_t d1) {
        for (std::int64_t d = d0; d < d1; ++d) {
          std::uint32_t v = 0;
          for (int i = 0; i < 8; ++i) {
            const auto rc = lay::weight_at(d, i, k);
            v |= (static_cast<std::uint32_t>(q[static_cast<std::size_t>(rc.n * k + rc.k)]) & 0xFu)
                 << (4 * i);
          }
          p.wq[static_cast<std::size_t>(d)] = v;
        }
      },
      1 << 14);
  for (std::int64_t r = 0; r < n; ++r)
    for (std::int64_t g = 0; g < groups; ++g)
      p.wsz[static_cast<std::size_t>(lay::scale_index(r, g, k))] =
          f32_to_f16_bits(scale[static_cast<std::size_t>(r * groups + g)]) |
          (lay::kScaleHigh << 16);
  return p;
}

void unpack_gfx942(const Packed& p, std::int64_t n, std::int64_t k, int group,
                   std::span<std::int8_t> q_out, std::span<float> scale_out) {
  check_shape(n, k, group, "unpack gfx942");
  const auto groups = k / group;
  if (p.wq.size() != static_cast<std::size_t>(n * k / 8) ||
      p.wsz.size() != static_cast<std::size_t>(n * groups) ||
      q_out.size() != static_cast<std::size_t>(n * k) ||
      scale_out.size() != static_cast<std::size_t>(n * groups))
    throw std::invalid_argument("unpack gfx942: buffer sizes do not match N, K");
  for (std::size_t d = 0; d < p.wq.size(); ++d)
    for (int i = 0; i < 8; ++i) {
      const auto rc = lay::weight_at(static_cast<long long>(d), i, k);
      const auto nib = static_cast<int>((p.wq[d] >> (4 * i)) & 0xFu);
      q_out[static_cast<std::size_t>(rc.n * k + rc.k)] =
          static_cast<std::int8_t>(nib >= 8 ? nib - 16 : nib);
    }
  for (std::int64_t r = 0; r < n; ++r)
    for (std::int64_t g = 0; g < groups; ++g) {
      const std::uint32_t sz = p.wsz[static_cast<std::size_t>(lay::scale_index(r, g, k))];
      if ((sz >> 16) != lay::kScaleHigh)
        throw std::invalid_argument("unpack gfx942: scale dword high half is not 0xE408");
      scale_out[static_cast<std::size_t>(r * groups + g)] =
          f16_bits_to_f32(static_cast<std::uint16_t>(sz & 0xFFFFu));
    }
}

}  // namespace r4::quant
