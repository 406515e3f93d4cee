// f16 / bf16 <-> f32 on the host, bit-exact round-to-nearest-even (what the GPU's cvt.rn does),
// for the packers' scale rounding, the CPU references and the test data. No vendor header.
#pragma once

#include <bit>
#include <cstdint>

namespace r4::kernels {

[[nodiscard]] inline float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t exp = (h >> 10) & 0x1Fu;
  std::uint32_t man = h & 0x3FFu;
  std::uint32_t bits = 0;
  if (exp == 0) {
    if (man == 0) {
      bits = sign;
    } else {  // subnormal: renormalise
      int e = -1;
      do {
        ++e;
        man <<= 1;
      } while ((man & 0x400u) == 0);
      bits = sign | (static_cast<std::uint32_t>(127 - 15 - e) << 23) | ((man & 0x3FFu) << 13);
    }
  } else if (exp == 31) {
    bits = sign | 0x7F800000u | (man << 13);
  } else {
    bits = sign | ((exp + 127 - 15) << 23) | (man << 13);
  }
  return std::bit_cast<float>(bits);
}

[[nodiscard]] inline std::uint16_t float_to_half(float f) {
  const std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  const std::uint32_t sign = (x >> 16) & 0x8000u;
  const std::uint32_t ax = x & 0x7FFFFFFFu;
  if (ax >= 0x7F800000u)
    return static_cast<std::uint16_t>(sign | 0x7C00u | (ax > 0x7F800000u ? 0x200u : 0u));
  if (ax >= 0x477FF000u) return static_cast<std::uint16_t>(sign | 0x7C00u);  // rounds to inf
  if (ax < 0x38800000u) {  // result is subnormal or zero: scale so the integer part is the code
    const float a = std::bit_cast<float>(ax);
    const float scaled = a * 16777216.0f;  // 2^24: one f16 subnormal ulp = 2^-24
    // round half to even on the integer
    const auto i = static_cast<std::uint32_t>(scaled);
    const float frac = scaled - static_cast<float>(i);
    std::uint32_t r = i;
    if (frac > 0.5f || (frac == 0.5f && (i & 1u))) ++r;
    return static_cast<std::uint16_t>(sign | r);
  }
  const std::uint32_t mant_round = ax + 0xFFFu + ((ax >> 13) & 1u);
  return static_cast<std::uint16_t>(sign | ((mant_round - (112u << 23)) >> 13));
}

[[nodiscard]] inline float bf16_to_float(std::uint16_t h) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(h) << 16);
}

[[nodiscard]] inline std::uint16_t float_to_bf16(float f) {
  const std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  if ((x & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<std::uint16_t>((x >> 16) | 0x40u);
  return static_cast<std::uint16_t>((x + 0x7FFFu + ((x >> 16) & 1u)) >> 16);
}

}  // namespace r4::kernels
