// Packed MXFP4 weights for the fp8-activation kernel (kernels/gemm_mxfp4a8fp8_nt.cu): the
// contract between the CPU packer and the GPU reader, defined once in quant/layout/mx_sm89.h.
// Input is the MXFP4 format `r4tune quant mxfp4` writes (seeds/003): e2m1 codes [N, K/2], two per
// byte with the LOW nibble the even k, and e8m0 exponents [N, K/32].
#pragma once

#include <cstdint>
#include <span>

#include "quant/pack.hpp"

namespace r4::quant {

// wq: N*K/8 dwords in the mx_sm89 order; wsz: N*K/32 e8m0 bytes as N*K/128 dwords (little
// endian). Throws std::invalid_argument when N % 16 != 0, K % 64 != 0, the spans do not match
// N and K, or a block exponent is 255 (NaN) or above layout::mx_sm89::kMaxE8m0 (the message names
// the row and the 32-K block).
[[nodiscard]] Packed pack_mx_sm89(std::span<const std::uint8_t> codes,
                                  std::span<const std::uint8_t> e8m0, std::int64_t n,
                                  std::int64_t k);

// Inverse of pack_mx_sm89.
void unpack_mx_sm89(const Packed& p, std::int64_t n, std::int64_t k,
                    std::span<std::uint8_t> codes_out, std::span<std::uint8_t> e8m0_out);

}  // namespace r4::quant
