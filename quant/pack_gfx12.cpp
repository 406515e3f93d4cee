// The `gfx12` packer: the seed's pack() (seeds/000) written as loops over the output in memory
// order, with the index arithmetic taken from quant/layout/gfx12.h, the header the kernels read.
#include <stdexcept>
#include <string>

#include "quant/layout/gfx12.h"
#include "quant/numeric.hpp"
#include "quant/pack.hpp"
#include "quant/parallel.hpp"

namespace r4::quant {
namespace {

namespace lay = r4::layout::gfx12;

void check_shape(std::int64_t n, std::int64_t k, int group, std::size_t q_size,
                 std::size_t scale_size, const char* who) {
  const std::string w = who;
  if (group < 1) throw std::invalid_argument(w + ": group must be >= 1");
  if (n % lay::kTileRows != 0)
    throw std::invalid_argument(w + ": N = " + std::to_string(n) + " is not a multiple of " +
                                std::to_string(lay::kTileRows));
  if (k % group != 0)
    throw std::invalid_argument(w + ": K = " + std::to_string(k) +
                                " is not a multiple of the group " + std::to_string(group));
  if (k % lay::kKPerBlock != 0)
    throw std::invalid_argument(w + ": layout gfx12 needs K % " + std::to_string(lay::kKPerBlock) +
                                " == 0, K = " + std::to_string(k));
  if (static_cast<std::int64_t>(q_size) != n * k ||
      static_cast<std::int64_t>(scale_size) != n * (k / group))
    throw std::invalid_argument(w + ": codes or scales do not match N = " + std::to_string(n) +
                                ", K = " + std::to_string(k));
}

}  // namespace

Packed pack_gfx12(std::span<const std::int8_t> q, std::span<const float> scale, std::int64_t n,
                  std::int64_t k, int group) {
  check_shape(n, k, group, q.size(), scale.size(), "pack_gfx12");
  for (const auto c : q)
    if (c < -8 || c > 7)
      throw std::invalid_argument("pack_gfx12: code " + std::to_string(c) + " is outside -8..7");
  const std::int64_t tiles = n / lay::kTileRows;
  const std::int64_t blocks = k / lay::kKPerBlock;
  const std::int64_t groups = k / group;
  Packed p;
  p.wq.resize(static_cast<std::size_t>(n * k / lay::kNibbles));
  p.wsz.resize(static_cast<std::size_t>(n * groups));
  parallel_for(
      tiles,
      [&](std::int64_t t0, std::int64_t t1) {
        for (std::int64_t t = t0; t < t1; ++t) {
          std::uint32_t* out = p.wq.data() + t * blocks * 2 * lay::kTileRows * 4;
          for (std::int64_t kb = 0; kb < blocks; ++kb)
            for (int lh = 0; lh < 2; ++lh)
              for (int r = 0; r < lay::kTileRows; ++r) {
                const std::int8_t* row =
                    q.data() + (t * lay::kTileRows + r) * k + kb * lay::kKPerBlock;
                for (int s = 0; s < 4; ++s) {
                  std::uint32_t d = 0;
                  for (int i = 0; i < lay::kNibbles; ++i) {
                    const auto code =
                        static_cast<std::uint32_t>(row[lay::block_k(lh, s, i)]) & 0xFU;
                    d |= code << (4 * i);
                  }
                  *out++ = d;
                }
              }
          for (std::int64_t g = 0; g < groups; ++g)
            for (int r = 0; r < lay::kTileRows; ++r) {
              const std::int64_t row = t * lay::kTileRows + r;
              const std::uint32_t lo =
                  f32_to_f16_bits(scale[static_cast<std::size_t>(row * groups + g)]);
              p.wsz[static_cast<std::size_t>(lay::wsz_index(row, g, groups))] =
                  lo | (lay::kScaleHigh << 16);
            }
        }
      },
      4);
  return p;
}

void unpack_gfx12(const Packed& p, std::int64_t n, std::int64_t k, int group,
                  std::span<std::int8_t> q_out, std::span<float> scale_out) {
  check_shape(n, k, group, q_out.size(), scale_out.size(), "unpack_gfx12");
  const std::int64_t groups = k / group;
  if (static_cast<std::int64_t>(p.wq.size()) != n * k / lay::kNibbles ||
      static_cast<std::int64_t>(p.wsz.size()) != n * groups)
    throw std::invalid_argument("unpack_gfx12: wq/wsz sizes do not match N, K, group");
  parallel_for(
      n,
      [&](std::int64_t r0, std::int64_t r1) {
        for (std::int64_t r = r0; r < r1; ++r) {
          for (std::int64_t c = 0; c < k; ++c) {
            const std::uint32_t d = p.wq[static_cast<std::size_t>(lay::wq_dword(r, c, k))];
            const auto nib = (d >> (4 * lay::wq_nibble(c))) & 0xFU;
            q_out[static_cast<std::size_t>(r * k + c)] =
                static_cast<std::int8_t>(static_cast<int>(nib ^ 8U) - 8);
          }
          for (std::int64_t g = 0; g < groups; ++g) {
            const std::uint32_t sz = p.wsz[static_cast<std::size_t>(lay::wsz_index(r, g, groups))];
            if ((sz >> 16) != lay::kScaleHigh)
              throw std::invalid_argument("unpack_gfx12: scale dword high half is not 0xE408");
            scale_out[static_cast<std::size_t>(r * groups + g)] =
                f16_bits_to_f32(static_cast<std::uint16_t>(sz & 0xFFFFU));
          }
        }
      },
      16);
}

}  // namespace r4::quant
