// The `mx_sm89` packer and its inverse (the index map is quant/layout/mx_sm89.h, shared with the
// kernel and the GPU reference). No fmt: r4d's Python module compiles this file on machines without
// it (the device build of scripts/device/r4d.sh).
#include <cstring>
#include <stdexcept>
#include <string>

#include "quant/layout/mx_sm89.h"
#include "quant/pack_mx.hpp"
#include "quant/parallel.hpp"

namespace r4::quant {
namespace {

namespace lay = r4::layout::mx_sm89;

void check_shape(std::int64_t n, std::int64_t k, std::size_t codes, std::size_t scales,
                 const char* what) {
  if (n <= 0 || n % lay::kRowsPerTile != 0)
    throw std::invalid_argument(std::string(what) +
                                " mx_sm89: N must be a positive multiple of 16, got " +
                                std::to_string(n));
  if (k <= 0 || k % lay::kKPerBlock != 0)
    throw std::invalid_argument(std::string(what) +
                                " mx_sm89: K must be a positive multiple of 64, got " +
                                std::to_string(k));
  if (codes != static_cast<std::size_t>(n * k / 2) ||
      scales != static_cast<std::size_t>(n * k / lay::kKPerScale))
    throw std::invalid_argument(std::string(what) +
                                " mx_sm89: codes must hold N*K/2 bytes and e8m0 N*K/32 (N = " +
                                std::to_string(n) + ", K = " + std::to_string(k) + ")");
}

}  // namespace

Packed pack_mx_sm89(std::span<const std::uint8_t> codes, std::span<const std::uint8_t> e8m0,
                    std::int64_t n, std::int64_t k) {
  check_shape(n, k, codes.size(), e8m0.size(), "pack");
  const std::int64_t blocks32 = k / lay::kKPerScale;
  for (std::int64_t r = 0; r < n; ++r)
    for (std::int64_t b = 0; b < blocks32; ++b) {
      const int e = e8m0[static_cast<std::size_t>(r * blocks32 + b)];
      if (e > lay::kMaxE8m0)
        throw std::invalid_argument(
            "pack mx_sm89: row " + std::to_string(r) + ", 32-K block " + std::to_string(b) +
            ": e8m0 " + std::to_string(e) + " (" +
            (e == 255 ? std::string("NaN") : "2^" + std::to_string(e - 127)) +
            ") is beyond what the kernel folds (at most " + std::to_string(lay::kMaxE8m0) +
            ": weights below 2^122)");
    }
  Packed p;
  p.wq.assign(static_cast<std::size_t>(n * k / 8), 0U);
  p.wsz.assign(static_cast<std::size_t>(n * k / 128), 0U);
  // Whole 16-row tiles per thread: every dword of a tile is written by that tile's thread only.
  parallel_for(
      n / lay::kRowsPerTile,
      [&](std::int64_t t0, std::int64_t t1) {
        for (std::int64_t r = t0 * lay::kRowsPerTile; r < t1 * lay::kRowsPerTile; ++r) {
          const std::uint8_t* row = codes.data() + r * (k / 2);
          for (std::int64_t c = 0; c < k; ++c) {
            const unsigned code = (row[c / 2] >> (4 * (c & 1))) & 0xFU;
            const auto pos = lay::weight_pos(r, c, k);
            p.wq[static_cast<std::size_t>(pos.dword)] |= code << pos.shift;
          }
          for (std::int64_t b = 0; b < blocks32; ++b) {
            const auto at = lay::scale_pos(r, b, k);
            p.wsz[static_cast<std::size_t>(at / 4)] |=
                static_cast<std::uint32_t>(e8m0[static_cast<std::size_t>(r * blocks32 + b)])
                << (8 * (at % 4));
          }
        }
      },
      4);
  return p;
}

void unpack_mx_sm89(const Packed& p, std::int64_t n, std::int64_t k,
                    std::span<std::uint8_t> codes_out, std::span<std::uint8_t> e8m0_out) {
  check_shape(n, k, codes_out.size(), e8m0_out.size(), "unpack");
  if (p.wq.size() != static_cast<std::size_t>(n * k / 8) ||
      p.wsz.size() != static_cast<std::size_t>(n * k / 128))
    throw std::invalid_argument("unpack mx_sm89: packed buffer sizes do not match N, K");
  std::memset(codes_out.data(), 0, codes_out.size());
  for (std::size_t d = 0; d < p.wq.size(); ++d)
    for (int i = 0; i < 8; ++i) {
      const auto rc = lay::weight_at(static_cast<long long>(d), i, k);
      const auto code = static_cast<std::uint8_t>((p.wq[d] >> (4 * i)) & 0xFU);
      codes_out[static_cast<std::size_t>(rc.n * (k / 2) + rc.k / 2)] |=
          static_cast<std::uint8_t>(code << (4 * (rc.k & 1)));
    }
  const std::int64_t blocks32 = k / lay::kKPerScale;
  for (std::int64_t r = 0; r < n; ++r)
    for (std::int64_t b = 0; b < blocks32; ++b) {
      const auto at = lay::scale_pos(r, b, k);
      e8m0_out[static_cast<std::size_t>(r * blocks32 + b)] =
          static_cast<std::uint8_t>(p.wsz[static_cast<std::size_t>(at / 4)] >> (8 * (at % 4)));
    }
}

}  // namespace r4::quant
