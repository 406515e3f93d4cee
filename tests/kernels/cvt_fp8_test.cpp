// The in-register weight conversions of the fp8-activation GEMMs (kernels/nv/cvt_fp8.h), compiled
// for the host, against quant/numeric.hpp's decoders: every int4 code at every nibble position
// lands in its byte as code * 2^-9 (sign-magnitude, subnormal or the normal 2^-6 for |c| = 8), and
// every e2m1 code at every byte position, low or high nibble, as its value * 2^-6; and the biased
// int4 form that the sm90a generation's lesion bit 128 times.
#include "kernels/nv/cvt_fp8.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>

#include "quant/numeric.hpp"

namespace {

using r4::quant::e2m1_to_f32;
using r4::quant::e4m3_to_f32;

std::uint8_t byte_of(unsigned int r, int j) {
  return static_cast<std::uint8_t>((r >> (8 * j)) & 0xFFU);
}

// Two's complement nibble -> its integer value.
int int4_value(unsigned int nibble) {
  return (nibble & 8U) ? static_cast<int>(nibble) - 16 : static_cast<int>(nibble);
}

// Every int4 code at every nibble position of a dword, the other nibbles random (no carry may leak
// between them): convert(d, even, odd) must put nibble 2j in byte j of `even` and nibble 2j+1 in
// byte j of `odd`, as (value + bias) * 2^-9.
template <class Convert>
void expect_every_int4_code(Convert convert, int bias, unsigned int seed) {
  std::mt19937 rng(seed);
  for (int pos = 0; pos < 8; ++pos)
    for (unsigned int code = 0; code < 16; ++code)
      for (int trial = 0; trial < 64; ++trial) {
        const unsigned int d =
            (static_cast<unsigned int>(rng()) & ~(0xFU << (4 * pos))) | (code << (4 * pos));
        unsigned int even = 0, odd = 0;
        convert(d, even, odd);
        for (int nib = 0; nib < 8; ++nib) {
          const unsigned int c = (d >> (4 * nib)) & 0xFU;
          const std::uint8_t b = byte_of(nib % 2 == 0 ? even : odd, nib / 2);
          const float want = std::ldexp(static_cast<float>(int4_value(c) + bias), -9);
          ASSERT_EQ(e4m3_to_f32(b), want) << "d=" << std::hex << d << " nibble " << nib;
        }
      }
}

}  // namespace

TEST(CvtFp8, EveryInt4CodeAtEveryNibbleIsItsValueTimes2ToTheMinus9) {
  expect_every_int4_code(r4nv::int4x8_to_e4m3, 0, 11);
}

// The biased form (the sm90a lesion bit 128): (code + 8) * 2^-9.
TEST(CvtFp8, EveryInt4CodeBiasedIsItsValuePlus8Times2ToTheMinus9) {
  expect_every_int4_code(r4nv::int4x8_to_e4m3_biased, 8, 12);
}

TEST(CvtFp8, EveryE2m1CodeInEitherNibbleIsItsValueTimes2ToTheMinus6) {
  for (int j = 0; j < 4; ++j)
    for (unsigned int code = 0; code < 16; ++code)
      for (unsigned int other = 0; other < 16; ++other) {  // the byte's other nibble
        const float want = std::ldexp(e2m1_to_f32(static_cast<std::uint8_t>(code)), -6);
        const unsigned int hi = ((code << 4) | other) << (8 * j);
        const unsigned int lo = ((other << 4) | code) << (8 * j);
        EXPECT_EQ(e4m3_to_f32(byte_of(r4nv::e2m1x4_hi_to_e4m3(hi), j)), want) << code;
        EXPECT_EQ(e4m3_to_f32(byte_of(r4nv::e2m1x4_lo_to_e4m3(lo), j)), want) << code;
      }
}
