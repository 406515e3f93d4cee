// The `sm80` packer and its inverse (the index map is quant/layout/sm80.h, shared with the
// kernels). Scales are rounded to f16 (round to nearest even) on packing.
#include <bit>
#include <cstring>
#include <stdexcept>
#include <string>

#include "quant/layout/sm80.h"
#include "quant/pack.hpp"

namespace r4::quant {
namespace {

namespace lay = r4::layout::sm80;

// float -> f16 bits, round to nearest even (kept local: quant/ has no half header of its own yet).
std::uint16_t to_f16(float f) {
  const std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  const std::uint32_t sign = (x >> 16) & 0x8000u;
  const std::uint32_t ax = x & 0x7FFFFFFFu;
  if (ax >= 0x7F800000u)
    return static_cast<std::uint16_t>(sign | 0x7C00u | (ax > 0x7F800000u ? 0x200u : 0u));
  if (ax >= 0x477FF000u) return static_cast<std::uint16_t>(sign | 0x7C00u);
  if (ax < 0x38800000u) {
    const float scaled = std::bit_cast<float>(ax) * 16777216.0f;
    const auto i = static_cast<std::uint32_t>(scaled);
    const float frac = scaled - static_cast<float>(i);
    std::uint32_t r = i;
    if (frac > 0.5f || (frac == 0.5f && (i & 1u))) ++r;
    return static_cast<std::uint16_t>(sign | r);
  }
  return static_cast<std::uint16_t>(sign |
                                    ((ax + 0xFFFu + ((ax >> 13) & 1u) - (112u << 23)) >> 13));
}

float from_f16(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t exp = (h >> 10) & 0x1Fu;
  std::uint32_t man = h & 0x3FFu;
  if (exp == 0) {
    // subnormal or zero: exact in float
    const float v = static_cast<float>(man) / 16777216.0f;
    return sign ? -v : v;
  }
  if (exp == 31) return std::bit_cast<float>(sign | 0x7F800000u | (man << 13));
  return std::bit_cast<float>(sign | ((exp + 112u) << 23) | (man << 13));
}

void check_shape(std::int64_t n, std::int64_t k, int group) {
  if (n <= 0 || n % lay::kRowsPerTile != 0)
    throw std::invalid_argument("pack sm80: N must be a positive multiple of 16, got " +
                                std::to_string(n));
  if (group != lay::kGroup)
    throw std::invalid_argument("pack sm80: the layout's group is 128, got " +
                                std::to_string(group));
  if (k <= 0 || k % group != 0)
    throw std::invalid_argument("pack sm80: K must be a positive multiple of 128, got " +
                                std::to_string(k));
}

}  // namespace

Packed pack_sm80(std::span<const std::int8_t> q, std::span<const float> scale, std::int64_t n,
                 std::int64_t k, int group) {
  check_shape(n, k, group);
  const auto nk = static_cast<std::size_t>(n * k);
  const auto groups = k / group;
  if (q.size() != nk || scale.size() != static_cast<std::size_t>(n * groups))
    throw std::invalid_argument("pack sm80: q must hold N*K codes and scale N*K/128 values");
  Packed p;
  p.wq.assign(nk / 8, 0u);
  p.wsz.assign(static_cast<std::size_t>(n * groups), 0u);
  for (std::int64_t r = 0; r < n; ++r) {
    const std::int8_t* row = q.data() + r * k;
    for (std::int64_t c = 0; c < k; ++c) {
      const int v = row[c];
      if (v < -8 || v > 7)
        throw std::invalid_argument("pack sm80: code out of -8..7 at row " + std::to_string(r) +
                                    ", column " + std::to_string(c));
      const auto pos = lay::weight_pos(r, c, k);
      p.wq[static_cast<std::size_t>(pos.dword)] |= (static_cast<std::uint32_t>(v) & 0xFu)
                                                   << pos.shift;
    }
    for (std::int64_t g = 0; g < groups; ++g) {
      const std::uint32_t s = to_f16(scale[static_cast<std::size_t>(r * groups + g)]);
      p.wsz[static_cast<std::size_t>(lay::scale_index(r, g, k))] = s | (lay::kScaleHigh << 16);
    }
  }
  return p;
}

void unpack_sm80(const Packed& p, std::int64_t n, std::int64_t k, int group,
                 std::span<std::int8_t> q_out, std::span<float> scale_out) {
  check_shape(n, k, group);
  const auto groups = k / group;
  if (p.wq.size() != static_cast<std::size_t>(n * k / 8) ||
      p.wsz.size() != static_cast<std::size_t>(n * groups) ||
      q_out.size() != static_cast<std::size_t>(n * k) ||
      scale_out.size() != static_cast<std::size_t>(n * groups))
    throw std::invalid_argument("unpack sm80: buffer sizes do not match N, K");
  for (std::size_t d = 0; d < p.wq.size(); ++d) {
    for (int i = 0; i < 8; ++i) {
      const auto rc = lay::weight_at(static_cast<long long>(d), i, k);
      const auto nib = static_cast<int>((p.wq[d] >> (4 * i)) & 0xFu);
      q_out[static_cast<std::size_t>(rc.n * k + rc.k)] =
          static_cast<std::int8_t>(nib >= 8 ? nib - 16 : nib);
    }
  }
  for (std::int64_t r = 0; r < n; ++r)
    for (std::int64_t g = 0; g < groups; ++g)
      scale_out[static_cast<std::size_t>(r * groups + g)] = from_f16(static_cast<std::uint16_t>(
          p.wsz[static_cast<std::size_t>(lay::scale_index(r, g, k))] & 0xFFFFu));
}

}  // namespace r4::quant
