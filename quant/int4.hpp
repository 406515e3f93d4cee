// Symmetric int4, one scale per (row, group of K), with the seed's clip search
// (seeds/000 `quantize`, `_grid`, `dequantize`). Per (row, group) it tries clip factors
// 1 - 0.5*i/clip_steps for i = 0..clip_steps-1 (i = 0 is the plain absolute max) and keeps the
// first candidate with the strictly smallest squared error, where the error is measured against
// the f16-rounded scale the kernel multiplies by. Every float operation mirrors torch's on the
// CPU in float32, in the same order, including the summation order of torch's AVX2 sum kernel
// (see torch_sum_f32 below and docs/QUANT.md "Ties").
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "quant/dtype.hpp"

namespace r4::quant {

struct Int4Quantized {
  std::vector<std::int8_t> q;  // [N, K], -8..7
  std::vector<float> scale;    // [N, K/group], f32 (the seed keeps the unrounded scale)
  double sq_error = 0.0;       // sum over all weights of (q*f16(scale) - w)^2
  double sq_norm = 0.0;        // sum of w^2
  [[nodiscard]] double relative_rms() const;  // sqrt(sq_error / sq_norm), 0 for an all-zero W
};

// Progress callback: rows done so far (called from worker threads, serialised by the caller).
using ProgressFn = void (*)(void* ctx, std::int64_t rows_done);

// W is read row by row as f32 (F32, F16, BF16, F64). Throws std::invalid_argument when
// K % group != 0 or group < 1. Runs on all cores.
[[nodiscard]] Int4Quantized quantize_int4(const MatrixView& w, int group = 128, int clip_steps = 20,
                                          ProgressFn progress = nullptr,
                                          void* progress_ctx = nullptr);
[[nodiscard]] Int4Quantized quantize_int4(std::span<const float> w, std::int64_t n, std::int64_t k,
                                          int group = 128, int clip_steps = 20);

// The seed's dequantize: q * f16(scale), rounded to bf16; returned as f32 holding bf16 values.
[[nodiscard]] std::vector<float> dequantize_int4(std::span<const std::int8_t> q,
                                                 std::span<const float> scale, std::int64_t n,
                                                 std::int64_t k, int group = 128);

// torch.sum over a contiguous float32 row as torch 1.13's AVX2 CPU kernel orders it
// (SumKernel.cpp: 8-lane vectors, 4 interleaved accumulators, multi-level cascade, then the
// lanes left to right). Bit-identical to torch for any n, checked in tests.
[[nodiscard]] float torch_sum_f32(const float* x, std::int64_t n);

}  // namespace r4::quant
