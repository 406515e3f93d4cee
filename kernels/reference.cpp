#include "kernels/reference.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "kernels/host_half.hpp"
#include "quant/numeric.hpp"

namespace r4::kernels {
namespace {

void check_sizes(const Shape& s, std::size_t a_size, std::span<const std::int8_t> q,
                 std::span<const float> scale, const RefOut& out) {
  const auto mk = static_cast<std::size_t>(s.m * s.k);
  const auto nk = static_cast<std::size_t>(s.n * s.k);
  const auto mn = static_cast<std::size_t>(s.m * s.n);
  if (a_size != mk || q.size() != nk || scale.size() != nk / kGroup || out.c.size() != mn ||
      out.norm.size() != mn)
    throw std::invalid_argument("reference: buffer sizes do not match the shape");
}

template <class ActAt>
void gemm(ActAt act, std::span<const std::int8_t> q, std::span<const float> scale, const Shape& s,
          RefOut out) {
  const std::int64_t groups = s.k / kGroup;
  for (std::int64_t n = 0; n < s.n; ++n) {
    for (std::int64_t m = 0; m < s.m; ++m) {
      double acc = 0.0, nrm = 0.0;
      for (std::int64_t g = 0; g < groups; ++g) {
        const double sc = scale[static_cast<std::size_t>(n * groups + g)];
        for (std::int64_t kk = 0; kk < kGroup; ++kk) {
          const std::int64_t k = g * kGroup + kk;
          const double wa = act(m, k) * q[static_cast<std::size_t>(n * s.k + k)] * sc;
          acc += wa;
          nrm += wa * wa;
        }
      }
      out.c[static_cast<std::size_t>(m * s.n + n)] = acc;
      out.norm[static_cast<std::size_t>(m * s.n + n)] = std::sqrt(nrm);
    }
  }
}

}  // namespace

void ref_gemm_w4a16(std::span<const std::uint16_t> a, bool a_bf16, std::span<const std::int8_t> q,
                    std::span<const float> scale, const Shape& s, RefOut out) {
  check_sizes(s, a.size(), q, scale, out);
  gemm(
      [&](std::int64_t m, std::int64_t k) {
        const auto bits = a[static_cast<std::size_t>(m * s.k + k)];
        return static_cast<double>(a_bf16 ? bf16_to_float(bits) : half_to_float(bits));
      },
      q, scale, s, out);
}

void ref_gemm_w4a8(std::span<const std::int8_t> aq, std::span<const float> sa,
                   std::span<const std::int8_t> q, std::span<const float> scale, const Shape& s,
                   RefOut out) {
  check_sizes(s, aq.size(), q, scale, out);
  if (sa.size() != static_cast<std::size_t>(s.m))
    throw std::invalid_argument("reference: sa must hold M scales");
  gemm(
      [&](std::int64_t m, std::int64_t k) {
        return static_cast<double>(aq[static_cast<std::size_t>(m * s.k + k)]) *
               static_cast<double>(sa[static_cast<std::size_t>(m)]);
      },
      q, scale, s, out);
}

void ref_quant_act(std::span<const std::uint16_t> a_bf16, std::int64_t m, std::int64_t k,
                   std::span<std::int8_t> aq, std::span<float> sa) {
  if (a_bf16.size() != static_cast<std::size_t>(m * k) || aq.size() != a_bf16.size() ||
      sa.size() != static_cast<std::size_t>(m))
    throw std::invalid_argument("ref_quant_act: buffer sizes do not match M, K");
  for (std::int64_t r = 0; r < m; ++r) {
    float amax = 0.0f;
    for (std::int64_t c = 0; c < k; ++c)
      amax = std::max(amax, std::fabs(bf16_to_float(a_bf16[static_cast<std::size_t>(r * k + c)])));
    const float inv = amax > 0.0f ? 127.0f / amax : 0.0f;
    sa[static_cast<std::size_t>(r)] = amax / 127.0f;
    for (std::int64_t c = 0; c < k; ++c) {
      const float x = bf16_to_float(a_bf16[static_cast<std::size_t>(r * k + c)]) * inv;
      const float v = std::clamp(std::nearbyint(x), -127.0f, 127.0f);
      aq[static_cast<std::size_t>(r * k + c)] = static_cast<std::int8_t>(v);
    }
  }
}

void ref_quant_act_fp8(std::span<const std::uint16_t> a_bf16, std::int64_t m, std::int64_t k,
                       std::span<std::uint8_t> aq, std::span<float> sa) {
  if (a_bf16.size() != static_cast<std::size_t>(m * k) || aq.size() != a_bf16.size() ||
      sa.size() != static_cast<std::size_t>(m))
    throw std::invalid_argument("ref_quant_act_fp8: buffer sizes do not match M, K");
  for (std::int64_t r = 0; r < m; ++r) {
    float amax = 0.0f;
    for (std::int64_t c = 0; c < k; ++c)
      amax = std::max(amax, std::fabs(bf16_to_float(a_bf16[static_cast<std::size_t>(r * k + c)])));
    const float inv = amax > 0.0f ? 448.0f / amax : 0.0f;
    sa[static_cast<std::size_t>(r)] = amax / 448.0f;
    for (std::int64_t c = 0; c < k; ++c) {
      const float x = bf16_to_float(a_bf16[static_cast<std::size_t>(r * k + c)]) * inv;
      aq[static_cast<std::size_t>(r * k + c)] = quant::f32_to_e4m3_sat_bits(x);
    }
  }
}

}  // namespace r4::kernels
