#include "quant/mxfp4.hpp"

#include <cfloat>
#include <cmath>
#include <stdexcept>
#include <string>

#include "quant/int4.hpp"  // torch_sum_f32
#include "quant/numeric.hpp"
#include "quant/parallel.hpp"

namespace r4::quant {
namespace {

constexpr int kMxBlock = 32;
constexpr int kNvBlock = 16;

struct Encoded {
  std::uint8_t idx[kMxBlock];
  float err;
};

float sign_of(float v) {
  return static_cast<float>(static_cast<int>(0.0F < v) - static_cast<int>(v < 0.0F));
}

// _encode_blocks for one block: v = w / 2^e, idx = e2m1_index(|v|),
// q = grid[idx] * sign(v) * 2^e, err = torch.sum((q - w)^2) in torch's order.
void encode_block(const float* w, float e, Encoded& out) {
  const float scale = std::ldexp(1.0F, static_cast<int>(e));
  float d2[kMxBlock];
  for (int j = 0; j < kMxBlock; ++j) {
    const float v = w[j] / scale;
    const std::uint8_t idx = e2m1_index(std::fabs(v));
    out.idx[j] = idx;
    const float q = kE2m1Grid[idx] * sign_of(v) * scale;
    const float d = q - w[j];
    d2[j] = d * d;
  }
  out.err = torch_sum_f32(d2, kMxBlock);
}

}  // namespace

std::string_view to_string(ExpRule r) {
  switch (r) {
    case ExpRule::ocp:
      return "ocp";
    case ExpRule::noclip:
      return "noclip";
    case ExpRule::mse:
      return "mse";
  }
  return "?";
}

std::optional<ExpRule> parse_exp_rule(std::string_view name) {
  if (name == "ocp") return ExpRule::ocp;
  if (name == "noclip") return ExpRule::noclip;
  if (name == "mse") return ExpRule::mse;
  return std::nullopt;
}

std::vector<float> unpack_e2m1(std::span<const std::uint8_t> packed, std::int64_t n,
                               std::int64_t k) {
  if (k % 2 != 0 || static_cast<std::int64_t>(packed.size()) * 2 != n * k)
    throw std::invalid_argument("unpack_e2m1: packed is not [N, K/2]");
  std::vector<float> out(static_cast<std::size_t>(n * k));
  for (std::size_t i = 0; i < packed.size(); ++i) {
    out[2 * i] = e2m1_to_f32(packed[i] & 0x0FU);
    out[2 * i + 1] = e2m1_to_f32(static_cast<std::uint8_t>(packed[i] >> 4));
  }
  return out;
}

std::vector<float> dequant_nvfp4(std::span<const std::uint8_t> packed,
                                 std::span<const std::uint8_t> scale_e4m3, float global_divisor,
                                 std::int64_t n, std::int64_t k) {
  if (k % kNvBlock != 0) throw std::invalid_argument("dequant_nvfp4: K is not a multiple of 16");
  if (static_cast<std::int64_t>(scale_e4m3.size()) != n * (k / kNvBlock))
    throw std::invalid_argument("dequant_nvfp4: scale is not [N, K/16]");
  auto v = unpack_e2m1(packed, n, k);
  for (std::int64_t r = 0; r < n; ++r)
    for (std::int64_t c = 0; c < k; ++c) {
      const auto si = static_cast<std::size_t>(r * (k / kNvBlock) + c / kNvBlock);
      const float s = e4m3_to_f32(scale_e4m3[si]) / global_divisor;
      v[static_cast<std::size_t>(r * k + c)] *= s;
    }
  return v;
}

std::uint8_t e2m1_index(float a) {
  a = a > 6.0F ? 6.0F : a;  // clamp(max=6)
  if (!(a == a)) return 0;
  const float lo = std::nearbyint(a * 2.0F);
  const float mid = std::nearbyint(a) + 2.0F;
  const float hi = std::nearbyint(a * 0.5F) + 4.0F;
  const float idx = a < 2.0F ? lo : (a < 4.0F ? mid : hi);
  return static_cast<std::uint8_t>(idx);
}

float block_exponent(float amax, ExpRule rule) {
  const float safe = amax < FLT_MIN ? FLT_MIN : amax;
  float e = 0.0F;
  if (rule == ExpRule::ocp)
    e = std::floor(std::log2(safe)) - 2.0F;
  else
    e = std::ceil(std::log2(safe / 6.0F));
  if (!(amax > 0.0F)) e = 0.0F;
  return e < -127.0F ? -127.0F : (e > 127.0F ? 127.0F : e);
}

double Mxfp4Quantized::relative_rms() const {
  return sq_norm > 0.0 ? std::sqrt(sq_error / sq_norm) : 0.0;
}

Mxfp4Quantized quant_mxfp4(std::span<const float> w, std::int64_t n, std::int64_t k, ExpRule rule) {
  if (k % kMxBlock != 0)
    throw std::invalid_argument("quant_mxfp4: K = " + std::to_string(k) +
                                " is not a multiple of 32");
  if (static_cast<std::int64_t>(w.size()) != n * k)
    throw std::invalid_argument("quant_mxfp4: W is not N*K values");
  const std::int64_t blocks = k / kMxBlock;
  Mxfp4Quantized out;
  out.packed.resize(static_cast<std::size_t>(n * k / 2));
  out.e8m0.resize(static_cast<std::size_t>(n * blocks));
  std::vector<double> sse(static_cast<std::size_t>(n));
  std::vector<double> ssq(static_cast<std::size_t>(n));
  parallel_for(
      n,
      [&](std::int64_t r0, std::int64_t r1) {
        Encoded a{};
        Encoded b{};
        for (std::int64_t r = r0; r < r1; ++r) {
          double row_err = 0.0;
          double row_sq = 0.0;
          for (std::int64_t bi = 0; bi < blocks; ++bi) {
            const float* wb = w.data() + r * k + bi * kMxBlock;
            float amax = 0.0F;
            for (int j = 0; j < kMxBlock; ++j) {
              const float v = std::fabs(wb[j]);
              amax = v > amax ? v : amax;
              row_sq += static_cast<double>(wb[j]) * static_cast<double>(wb[j]);
            }
            float e = 0.0F;
            const Encoded* pick = &a;
            if (rule == ExpRule::mse) {
              const float e0 = block_exponent(amax, ExpRule::noclip);
              encode_block(wb, e0, a);
              encode_block(wb, e0 - 1.0F, b);  // finer grid, the top of the block clips at 6
              const bool take1 = b.err < a.err;
              e = take1 ? e0 - 1.0F : e0;
              pick = take1 ? &b : &a;
            } else {
              e = block_exponent(amax, rule);
              encode_block(wb, e, a);
            }
            row_err += static_cast<double>(pick->err);
            out.e8m0[static_cast<std::size_t>(r * blocks + bi)] =
                static_cast<std::uint8_t>(static_cast<int>(e + 127.0F) & 0xFF);
            std::uint8_t* dst = out.packed.data() + (r * k + bi * kMxBlock) / 2;
            for (int j = 0; j < kMxBlock; j += 2) {
              std::uint8_t c[2];
              for (int h = 0; h < 2; ++h) {
                const std::uint8_t idx = pick->idx[j + h];
                const bool neg = std::signbit(wb[j + h]) && idx != 0;  // -0 stays code 0
                c[h] = static_cast<std::uint8_t>(idx | (neg ? 8U : 0U));
              }
              dst[j / 2] = static_cast<std::uint8_t>(c[0] | (c[1] << 4));
            }
          }
          sse[static_cast<std::size_t>(r)] = row_err;
          ssq[static_cast<std::size_t>(r)] = row_sq;
        }
      },
      16);
  for (std::int64_t r = 0; r < n; ++r) {
    out.sq_error += sse[static_cast<std::size_t>(r)];
    out.sq_norm += ssq[static_cast<std::size_t>(r)];
  }
  return out;
}

std::vector<float> dequant_mxfp4(std::span<const std::uint8_t> packed,
                                 std::span<const std::uint8_t> e8m0, std::int64_t n,
                                 std::int64_t k) {
  if (k % kMxBlock != 0 || static_cast<std::int64_t>(e8m0.size()) != n * (k / kMxBlock))
    throw std::invalid_argument("dequant_mxfp4: scales are not [N, K/32]");
  auto v = unpack_e2m1(packed, n, k);
  for (std::int64_t r = 0; r < n; ++r)
    for (std::int64_t c = 0; c < k; ++c) {
      const float s = std::exp2(
          static_cast<float>(e8m0[static_cast<std::size_t>(r * (k / kMxBlock) + c / kMxBlock)]) -
          127.0F);
      v[static_cast<std::size_t>(r * k + c)] *= s;
    }
  return v;
}

}  // namespace r4::quant
