// Scalar number formats the quantisers and checkpoints use, converted exactly as torch does on
// the CPU: f32 -> f16 / bf16 round to nearest, ties to even (overflow to inf, subnormals kept);
// e4m3fn (bias 7, no inf, S.1111.111 = NaN) and e2m1 / e8m0 decode. Header-only, constexpr where
// the bit manipulation allows, so tests can check them exhaustively.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>

namespace r4::quant {

// f32 -> IEEE binary16 bits, round to nearest even (what torch's .to(torch.float16) does).
[[nodiscard]] constexpr std::uint16_t f32_to_f16_bits(float f) {
  const std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  const auto sign = static_cast<std::uint16_t>((x >> 16) & 0x8000U);
  const std::uint32_t ax = x & 0x7FFFFFFFU;
  if (ax >= 0x7F800000U) {  // inf or NaN (NaN keeps a quiet payload bit)
    return static_cast<std::uint16_t>(sign | 0x7C00U | (ax > 0x7F800000U ? 0x0200U : 0U));
  }
  if (ax >= 0x477FF000U) return static_cast<std::uint16_t>(sign | 0x7C00U);  // rounds past 65504
  if (ax >= 0x38800000U) {                                                   // normal f16 range
    const std::uint32_t mant_lsb = (ax >> 13) & 1U;
    const std::uint32_t r = ax + 0x00000FFFU + mant_lsb;  // round half to even at bit 13
    return static_cast<std::uint16_t>(sign | ((r - 0x38000000U) >> 13));
  }
  if (ax < 0x33000000U) return sign;  // below half the smallest subnormal: +-0
  // Subnormal f16: value = m * 2^-24, m = round_even(ax_value * 2^24).
  const std::uint32_t e = ax >> 23;                          // biased f32 exponent, 102..112
  const std::uint32_t m = (ax & 0x007FFFFFU) | 0x00800000U;  // 24-bit significand
  const std::uint32_t shift = 126U - e;                      // 14..24
  const std::uint32_t q = m >> shift;
  const std::uint32_t rem = m & ((1U << shift) - 1U);
  const std::uint32_t half = 1U << (shift - 1U);
  const std::uint32_t rounded = q + ((rem > half || (rem == half && (q & 1U))) ? 1U : 0U);
  return static_cast<std::uint16_t>(sign | rounded);
}

[[nodiscard]] constexpr float f16_bits_to_f32(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000U) << 16;
  const std::uint32_t exp = (h >> 10) & 0x1FU;
  const std::uint32_t mant = h & 0x3FFU;
  if (exp == 0x1FU) return std::bit_cast<float>(sign | 0x7F800000U | (mant << 13));
  if (exp != 0) return std::bit_cast<float>(sign | ((exp + 112U) << 23) | (mant << 13));
  if (mant == 0) return std::bit_cast<float>(sign);
  // subnormal: mant * 2^-24, exact in f32
  const float v = static_cast<float>(mant) * 5.9604644775390625e-08F;
  return sign ? -v : v;
}

// f32 rounded through f16 and back: the scale the kernels actually multiply by.
[[nodiscard]] constexpr float round_f16(float f) {
  return f16_bits_to_f32(f32_to_f16_bits(f));
}

// f32 -> bfloat16 bits, round to nearest even; NaN stays a quiet NaN.
[[nodiscard]] constexpr std::uint16_t f32_to_bf16_bits(float f) {
  const std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  if ((x & 0x7FFFFFFFU) > 0x7F800000U) return static_cast<std::uint16_t>((x >> 16) | 0x0040U);
  const std::uint32_t r = x + 0x7FFFU + ((x >> 16) & 1U);
  return static_cast<std::uint16_t>(r >> 16);
}

[[nodiscard]] constexpr float bf16_bits_to_f32(std::uint16_t b) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(b) << 16);
}

[[nodiscard]] constexpr float round_bf16(float f) {
  return bf16_bits_to_f32(f32_to_bf16_bits(f));
}

// float8_e4m3fn: 1 sign, 4 exponent (bias 7), 3 mantissa; no infinities, 0x7F / 0xFF are NaN.
[[nodiscard]] constexpr float e4m3_to_f32(std::uint8_t b) {
  const std::uint32_t exp = (b >> 3) & 0xFU;
  const std::uint32_t mant = b & 0x7U;
  const bool neg = (b & 0x80U) != 0;
  if (exp == 0xFU && mant == 0x7U) return std::bit_cast<float>(0x7FC00000U);
  float v = 0.0F;
  if (exp == 0) {
    v = static_cast<float>(mant) * 0.001953125F;  // mant/8 * 2^-6
  } else {
    v = std::bit_cast<float>(((exp + 120U) << 23) | (mant << 20));
  }
  return neg ? -v : v;
}

// f32 -> float8_e4m3fn bits, round to nearest even, SATURATING: a finite value (or inf) beyond the
// largest finite e4m3, 448, gives +-448 (0x7E / 0xFE); NaN gives 0x7F. This is PTX
// `cvt.rn.satfinite.e4m3x2.f32` (sm_89+), the conversion the fp8 activation quantiser
// (kernels/quant_act_fp8.cu) runs, so its CPU reference matches it bit for bit. Subnormals
// (multiples of 2^-9 below 2^-6) are kept; a value rounding up to 2^-6 becomes the normal 0x08.
[[nodiscard]] constexpr std::uint8_t f32_to_e4m3_sat_bits(float f) {
  const std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  const auto sign = static_cast<std::uint8_t>((x >> 24) & 0x80U);
  const std::uint32_t ax = x & 0x7FFFFFFFU;
  if (ax > 0x7F800000U) return 0x7FU;                                  // NaN
  if (ax >= 0x43E00000U) return static_cast<std::uint8_t>(sign | 0x7EU);  // >= 448 (or inf)
  if (ax >= 0x3C800000U) {  // >= 2^-6: normal e4m3, round the mantissa to 3 bits at bit 20
    const std::uint32_t r = ax + 0x0007FFFFU + ((ax >> 20) & 1U);
    if (r >= 0x43E80000U) return static_cast<std::uint8_t>(sign | 0x7EU);  // 448 < v: saturate
    return static_cast<std::uint8_t>(sign | ((r >> 20) - (120U << 3)));
  }
  // Below 2^-6: q = round_even(v * 2^9) in 0..8 (8 is 2^-6, the normal 0x08).
  const std::uint32_t e = ax >> 23;
  if (e < 100U) return sign;  // v < 2^-27: far below half of 2^-9
  const std::uint32_t m = (ax & 0x007FFFFFU) | 0x00800000U;  // v = m * 2^(e - 150)
  const std::uint32_t shift = 141U - e;                      // v * 2^9 = m >> shift (21..41)
  if (shift >= 32U) return sign;
  const std::uint32_t q = m >> shift;
  const std::uint32_t rem = m & ((1U << shift) - 1U);
  const std::uint32_t half = 1U << (shift - 1U);
  const std::uint32_t rounded = q + ((rem > half || (rem == half && (q & 1U))) ? 1U : 0U);
  return static_cast<std::uint8_t>(sign | rounded);
}

// e2m1 magnitudes by 3-bit index; bit 3 of a code is the sign.
inline constexpr float kE2m1Grid[8] = {0.0F, 0.5F, 1.0F, 1.5F, 2.0F, 3.0F, 4.0F, 6.0F};

[[nodiscard]] constexpr float e2m1_to_f32(std::uint8_t code) {
  const float mag = kE2m1Grid[code & 0x7U];
  return (code & 0x8U) != 0 ? -mag : mag;
}

// e8m0: 2^(b - 127), the MXFP4 block scale (255 would be NaN; the quantiser never writes it).
[[nodiscard]] inline float e8m0_to_f32(std::uint8_t b) {
  return std::ldexp(1.0F, static_cast<int>(b) - 127);
}

}  // namespace r4::quant
