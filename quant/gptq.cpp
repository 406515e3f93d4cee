#include "quant/gptq.hpp"

#include <string>

#include "quant/numeric.hpp"
#include "quant/parallel.hpp"

namespace r4::quant {
namespace {

void check_k(std::int64_t k) {
  if (k % kGptqGroup != 0)
    throw std::invalid_argument("GPTQ: K = " + std::to_string(k) + " is not a multiple of " +
                                std::to_string(kGptqGroup));
}

}  // namespace

std::int64_t count_asymmetric(std::span<const std::uint32_t> qzeros) {
  std::int64_t bad = 0;
  for (auto z : qzeros) bad += z != kGptqSymmetricZeros ? 1 : 0;
  return bad;
}

void require_symmetric(std::span<const std::uint32_t> qzeros) {
  const auto bad = count_asymmetric(qzeros);
  if (bad != 0)
    throw AsymmetricError("AutoRound checkpoint is not symmetric: " + std::to_string(bad) + " of " +
                          std::to_string(qzeros.size()) +
                          " qzeros words differ from 0x77777777 (zero != 8)");
}

std::vector<std::uint32_t> transpose_qweight(std::span<const std::uint32_t> qweight, std::int64_t k,
                                             std::int64_t n) {
  check_k(k);
  const std::int64_t kw = k / kGptqPack;
  if (static_cast<std::int64_t>(qweight.size()) != kw * n)
    throw std::invalid_argument("GPTQ: qweight is not [K/8, N]");
  std::vector<std::uint32_t> t(qweight.size());
  for (std::int64_t r = 0; r < kw; ++r)
    for (std::int64_t c = 0; c < n; ++c)
      t[static_cast<std::size_t>(c * kw + r)] = qweight[static_cast<std::size_t>(r * n + c)];
  return t;
}

std::vector<std::uint8_t> unpack_gptq(std::span<const std::uint32_t> qweight_t, std::int64_t n,
                                      std::int64_t k) {
  check_k(k);
  if (static_cast<std::int64_t>(qweight_t.size()) * kGptqPack != n * k)
    throw std::invalid_argument("GPTQ: transposed qweight is not [N, K/8]");
  std::vector<std::uint8_t> codes(static_cast<std::size_t>(n * k));
  for (std::size_t i = 0; i < qweight_t.size(); ++i)
    for (int j = 0; j < kGptqPack; ++j)
      codes[i * kGptqPack + static_cast<std::size_t>(j)] =
          static_cast<std::uint8_t>((qweight_t[i] >> (4 * j)) & 0xFU);
  return codes;
}

std::vector<float> dequant_gptq(std::span<const std::uint32_t> qweight_t,
                                std::span<const std::uint16_t> scales_f16, std::int64_t n,
                                std::int64_t k) {
  const auto codes = unpack_gptq(qweight_t, n, k);
  if (static_cast<std::int64_t>(scales_f16.size()) != (k / kGptqGroup) * n)
    throw std::invalid_argument("GPTQ: scales is not [K/128, N]");
  std::vector<float> w(codes.size());
  for (std::int64_t r = 0; r < n; ++r)
    for (std::int64_t c = 0; c < k; ++c) {
      const auto i = static_cast<std::size_t>(r * k + c);
      const float s =
          f16_bits_to_f32(scales_f16[static_cast<std::size_t>((c / kGptqGroup) * n + r)]);
      w[i] = (static_cast<float>(codes[i]) - 8.0F) * s;
    }
  return w;
}

std::vector<float> gptq_exact_ref(std::span<const std::uint8_t> x_e4m3,
                                  std::span<const float> x_scale,
                                  std::span<const std::uint32_t> qweight_t,
                                  std::span<const std::uint16_t> scales_f16, std::int64_t m,
                                  std::int64_t n, std::int64_t k) {
  if (static_cast<std::int64_t>(x_e4m3.size()) != m * k ||
      static_cast<std::int64_t>(x_scale.size()) != m)
    throw std::invalid_argument("GPTQ: x is not [M, K] or x_scale not [M]");
  const auto w = dequant_gptq(qweight_t, scales_f16, n, k);
  std::vector<float> xr(x_e4m3.size());
  for (std::int64_t r = 0; r < m; ++r)
    for (std::int64_t c = 0; c < k; ++c) {
      const auto i = static_cast<std::size_t>(r * k + c);
      xr[i] = e4m3_to_f32(x_e4m3[i]) * x_scale[static_cast<std::size_t>(r)];
    }
  std::vector<float> out(static_cast<std::size_t>(m * n));
  parallel_for(
      n,
      [&](std::int64_t c0, std::int64_t c1) {
        for (std::int64_t r = 0; r < m; ++r)
          for (std::int64_t c = c0; c < c1; ++c) {
            double acc = 0.0;
            for (std::int64_t j = 0; j < k; ++j)
              acc += static_cast<double>(xr[static_cast<std::size_t>(r * k + j)]) *
                     static_cast<double>(w[static_cast<std::size_t>(c * k + j)]);
            out[static_cast<std::size_t>(r * n + c)] = round_bf16(static_cast<float>(acc));
          }
      },
      16);
  return out;
}

}  // namespace r4::quant
