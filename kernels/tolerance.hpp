// Pass/fail tolerance of a GEMM output element, derived from the dtypes and K:
//   |out - ref| <= rel * |ref| + abs_coef * norm,   norm = sqrt(sum_k (a_k w_k)^2)
// - rel = 2^-8: the output is bf16 (8-bit significand; rounding to nearest is within 2^-9
//   relative, and the reference itself is rounded to f32; one bf16 ulp covers both).
// - abs_coef = 4 * u_op + 4 * sqrt(K/16) * 2^-23: each product term a_k*w_k carries an operand
//   rounding error of at most u_op relative (f16 weights q*s: one rounding, u_op = 2^-11; bf16:
//   the scale rounded to bf16 and the product rounded, u_op = 2 * 2^-8; int8 path: weights and
//   activations are exact integers, u_op = 0). Those errors are independent across k, so their
//   sum grows like u_op * ||a w||_2 (sqrt(K) growth, not K); 4x is a >6-sigma margin for uniform
//   rounding errors. The second term bounds f32 accumulation: one rounding (<= 2^-24, 2^-23 for
//   the tensor cores' truncating adds) per 16-K MMA step, again independent.
// A wrong scale index or k-permutation moves an element by O(|w a|) ~ ||a w||_2 / sqrt(K)
// (~1e-2 of it at K = 5120) or more; the f16 margin is 4 * 2^-11 = 2e-3 of it, so such bugs fail.
#pragma once

#include <cmath>
#include <cstdint>

#include "kernels/config.hpp"

namespace r4::kernels {

struct Tolerance {
  float rel = 0;
  float abs_coef = 0;
};

// The fp8-activation GEMMs (gemm_w4a8fp8_nt, gemm_mxfp4a8fp8_nt): the reference reads the same
// e4m3 activations and the exact weights, so u_op = 0 again; what remains is the tensor core's
// fp8 accumulation, which keeps only ~14 bits of the running sum (DeepSeek-V3, arXiv 2412.19437
// section 3.3.2, on Hopper; kernels/nv/mma_sm89.h): each k32 step's sum is off by up to 2^-13 of
// the partial it adds into. The kernels restart that partial at every 128-K group (int4) or every
// 32-K step (MXFP4) and promote it in f32, and a partial is ~ the 2-norm of its products (random
// signs), so the step errors are independent with total ~ 2^-13 * sqrt(steps per partial) *
// ||a w||_2: sqrt(4) = 2 for int4, 1 for MXFP4. 4x margin as above: 2^-10 and 2^-11, plus the f32
// term. Measured on the H200: see the sweep's max_ratio in docs/PERF.md.
[[nodiscard]] inline Tolerance tolerance(KernelId id, bool a_bf16, std::int64_t k) {
  if (is_fp8_act(id)) {
    const double acc = 4.0 * std::sqrt(static_cast<double>(k) / 16.0) * std::ldexp(1.0, -23);
    const double tc = id == KernelId::gemm_w4a8fp8_nt ? std::ldexp(1.0, -10) : std::ldexp(1.0, -11);
    return Tolerance{static_cast<float>(std::ldexp(1.0, -8)), static_cast<float>(tc + acc)};
  }
  const double u_op = id == KernelId::gemm_w4a8_nt ? 0.0 : (a_bf16 ? 2.0 / 256.0 : 1.0 / 2048.0);
  const double acc = 4.0 * std::sqrt(static_cast<double>(k) / 16.0) * std::ldexp(1.0, -23);
  return Tolerance{static_cast<float>(std::ldexp(1.0, -8)), static_cast<float>(4.0 * u_op + acc)};
}

}  // namespace r4::kernels
