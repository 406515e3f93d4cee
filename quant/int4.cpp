#include "quant/int4.hpp"

#include <array>
#include <atomic>
#include <cmath>
#include <stdexcept>
#include <string>

#include "quant/numeric.hpp"
#include "quant/parallel.hpp"

namespace r4::quant {
namespace {

// at::native::utils::CeilLog2 (torch 1.13): 1 for x <= 2, else ceil(log2(x)).
std::int64_t ceil_log2(std::int64_t x) {
  if (x <= 2) return 1;
  std::int64_t r = 0;
  auto v = static_cast<std::uint64_t>(x - 1);
  while (v != 0) {
    v >>= 1;
    ++r;
  }
  return r;
}

// torch 1.13 SumKernel.cpp row_sum + multi_row_sum over `size` elements of W lanes each (W = 8
// for the AVX2 vector path, 1 for the scalar path); element e lane l is x[e * W + l].
template <std::size_t W>
std::array<float, W> row_sum(const float* x, std::int64_t size) {
  constexpr int kIlp = 4;
  constexpr int kLevels = 4;
  const std::int64_t size_ilp = size / kIlp;
  const std::int64_t level_power = std::max<std::int64_t>(4, ceil_log2(size_ilp) / kLevels);
  const std::int64_t level_step = std::int64_t{1} << level_power;
  const std::int64_t level_mask = level_step - 1;
  float acc[kLevels][kIlp][W] = {};
  auto add_row = [&](std::int64_t i) {
    const float* base = x + static_cast<std::size_t>(i) * kIlp * W;
    for (int k = 0; k < kIlp; ++k)
      for (std::size_t l = 0; l < W; ++l) acc[0][k][l] += base[static_cast<std::size_t>(k) * W + l];
  };
  std::int64_t i = 0;
  while (i + level_step <= size_ilp) {
    for (std::int64_t j = 0; j < level_step; ++j, ++i) add_row(i);
    for (int j = 1; j < kLevels; ++j) {
      for (int k = 0; k < kIlp; ++k)
        for (std::size_t l = 0; l < W; ++l) {
          acc[j][k][l] += acc[j - 1][k][l];
          acc[j - 1][k][l] = 0.0F;
        }
      if ((i & (level_mask << (j * level_power))) != 0) break;
    }
  }
  for (; i < size_ilp; ++i) add_row(i);
  for (int j = 1; j < kLevels; ++j)
    for (int k = 0; k < kIlp; ++k)
      for (std::size_t l = 0; l < W; ++l) acc[0][k][l] += acc[j][k][l];
  std::array<float, W> part{};
  for (std::size_t l = 0; l < W; ++l) part[l] = acc[0][0][l];
  for (std::int64_t e = size_ilp * kIlp; e < size; ++e)
    for (std::size_t l = 0; l < W; ++l) part[l] += x[static_cast<std::size_t>(e) * W + l];
  for (int k = 1; k < kIlp; ++k)
    for (std::size_t l = 0; l < W; ++l) part[l] += acc[0][k][l];
  return part;
}

// One group of 128: what row_sum<8> does for size 16 vectors (no level is ever completed, the
// four accumulators take vectors 4i+k), written out so the compiler keeps it in registers.
float torch_sum_128(const float* x) {
  float acc[32];
  for (int j = 0; j < 32; ++j) acc[j] = ((x[j] + x[32 + j]) + x[64 + j]) + x[96 + j];
  float part[8];
  for (int l = 0; l < 8; ++l) part[l] = ((acc[l] + acc[8 + l]) + acc[16 + l]) + acc[24 + l];
  float fin = 0.0F;
  for (int l = 0; l < 8; ++l) fin += part[l];
  return fin;
}

constexpr float kRoundMagic = 12582912.0F;  // 1.5 * 2^23: (t + M) - M rounds |t| < 2^22 half-even

struct GroupResult {
  float scale;
  float s16;
};

// The clip search for one (row, group). `err` is scratch of `group` floats. Mirrors, per
// candidate, `_grid`: scale = max(amax_c / 7, 1e-12); s16 = f16(scale); q = clamp(round(w /
// s16), -8, 7); err = sum((q * s16 - w)^2), every step in float32 and NaN-propagating like torch
// (an all-zero group has s16 = 0, 0/0 = NaN, and its candidate 0 is kept as in the seed).
template <int G>
[[gnu::always_inline]] inline GroupResult search_group(const float* w, int group,
                                                       const float* factors, int ncand,
                                                       float* err) {
  const int g = G > 0 ? G : group;
  float amax = 0.0F;
  for (int j = 0; j < g; ++j) {
    const float a = std::fabs(w[j]);
    amax = a > amax ? a : amax;
  }
  GroupResult best{0.0F, 0.0F};
  float best_err = 0.0F;
  for (int c = 0; c < ncand; ++c) {
    const float ac = c == 0 ? amax : amax * factors[c];
    float scale = ac / 7.0F;
    scale = scale < 1e-12F ? 1e-12F : scale;
    const float s16 = round_f16(scale);
    for (int j = 0; j < g; ++j) {
      float t = w[j] / s16;
      t = t < -9.0F ? -9.0F : t;  // clamping to +-9 first leaves round+clamp(-8, 7) unchanged
      t = t > 9.0F ? 9.0F : t;    // and keeps the magic-number rounding exact; NaN passes through
      float r = (t + kRoundMagic) - kRoundMagic;
      r = r < -8.0F ? -8.0F : r;
      r = r > 7.0F ? 7.0F : r;
      const float e = r * s16 - w[j];
      err[j] = e * e;
    }
    const float total = G == 128 ? torch_sum_128(err) : torch_sum_f32(err, g);
    if (c == 0 || total < best_err) {
      best_err = total;
      best = {scale, s16};
    }
  }
  return best;
}

template <int G>
[[gnu::always_inline]] inline void quantize_row(const float* w, std::int64_t k, int group,
                                                const float* factors, int ncand, std::int8_t* q,
                                                float* scale, float* err, double& sse,
                                                double& ssq) {
  const std::int64_t groups = k / group;
  for (std::int64_t gi = 0; gi < groups; ++gi) {
    const float* x = w + gi * group;
    const auto best = search_group<G>(x, group, factors, ncand, err);
    scale[gi] = best.scale;
    std::int8_t* qo = q + gi * group;
    double s = 0.0;
    double n = 0.0;
    for (int j = 0; j < group; ++j) {
      float t = x[j] / best.s16;
      t = t < -9.0F ? -9.0F : t;
      t = t > 9.0F ? 9.0F : t;
      float r = (t + kRoundMagic) - kRoundMagic;
      r = r < -8.0F ? -8.0F : r;
      r = r > 7.0F ? 7.0F : r;
      r = r == r ? r : 0.0F;  // NaN (0/0 in an all-zero group) -> 0, as torch's .to(int8) gives
      qo[j] = static_cast<std::int8_t>(r);
      const float e = r * best.s16 - x[j];
      s += static_cast<double>(e) * static_cast<double>(e);
      n += static_cast<double>(x[j]) * static_cast<double>(x[j]);
    }
    sse += s;
    ssq += n;
  }
}

// The row kernels, compiled once per ISA and picked at load time (GCC's target_clones). Wider
// vectors change nothing numerically: every lane does the same IEEE float32 operations, the sum
// order is fixed by torch_sum_128 / torch_sum_f32, and -ffp-contract=off keeps FMAs out. Not under
// ThreadSanitizer: the clones' resolver runs during relocation, before TSan's runtime is up, and
// its instrumented entry crashes the binary (seen with r4tune, GCC 12, session 13).
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(__SANITIZE_THREAD__)
#define R4_QUANT_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define R4_QUANT_CLONES
#endif

R4_QUANT_CLONES void quantize_row_128(const float* w, std::int64_t k, const float* factors,
                                      int ncand, std::int8_t* q, float* scale, float* err,
                                      double& sse, double& ssq) {
  quantize_row<128>(w, k, 128, factors, ncand, q, scale, err, sse, ssq);
}

R4_QUANT_CLONES void quantize_row_any(const float* w, std::int64_t k, int group,
                                      const float* factors, int ncand, std::int8_t* q, float* scale,
                                      float* err, double& sse, double& ssq) {
  quantize_row<0>(w, k, group, factors, ncand, q, scale, err, sse, ssq);
}

}  // namespace

float torch_sum_f32(const float* x, std::int64_t n) {
  constexpr std::size_t kVec = 8;
  if (n >= static_cast<std::int64_t>(kVec)) {
    const std::int64_t vec_size = n / static_cast<std::int64_t>(kVec);
    const auto part = row_sum<kVec>(x, vec_size);
    float fin = 0.0F;
    for (std::int64_t i = vec_size * static_cast<std::int64_t>(kVec); i < n; ++i) fin += x[i];
    for (float p : part) fin += p;
    return fin;
  }
  return row_sum<1>(x, n)[0];
}

double Int4Quantized::relative_rms() const {
  return sq_norm > 0.0 ? std::sqrt(sq_error / sq_norm) : 0.0;
}

Int4Quantized quantize_int4(const MatrixView& w, int group, int clip_steps, ProgressFn progress,
                            void* progress_ctx) {
  if (group < 1) throw std::invalid_argument("group must be >= 1");
  if (w.cols % group != 0)
    throw std::invalid_argument("K = " + std::to_string(w.cols) +
                                " is not a multiple of the group " + std::to_string(group));
  const std::int64_t n = w.rows;
  const std::int64_t k = w.cols;
  const int ncand = std::max(clip_steps, 1);
  // The seed's factor is a Python double, 1 - 0.5*i/clip_steps, cast to float by torch's mul.
  std::vector<float> factors(static_cast<std::size_t>(ncand), 1.0F);
  for (int i = 1; i < ncand; ++i)
    factors[static_cast<std::size_t>(i)] =
        static_cast<float>(1.0 - 0.5 * static_cast<double>(i) / static_cast<double>(clip_steps));

  Int4Quantized out;
  out.q.resize(static_cast<std::size_t>(n * k));
  out.scale.resize(static_cast<std::size_t>(n * (k / group)));
  std::vector<double> sse(static_cast<std::size_t>(n), 0.0);
  std::vector<double> ssq(static_cast<std::size_t>(n), 0.0);
  std::atomic<std::int64_t> done{0};
  std::atomic<std::int64_t> bad_row{-1};

  parallel_for(
      n,
      [&](std::int64_t r0, std::int64_t r1) {
        // Per-thread scratch, allocated once per thread: one row as f32 and one group's errors.
        std::vector<float> row(static_cast<std::size_t>(k));
        std::vector<float> err(static_cast<std::size_t>(group));
        for (std::int64_t r = r0; r < r1; ++r) {
          load_row_f32(w, r, row);
          bool finite = true;
          for (float v : row) finite &= std::fabs(v) <= 3.4028234663852886e38F;
          if (!finite) {
            bad_row.store(r);
            return;
          }
          const auto ri = static_cast<std::size_t>(r);
          std::int8_t* q = out.q.data() + r * k;
          float* s = out.scale.data() + r * (k / group);
          if (group == 128)
            quantize_row_128(row.data(), k, factors.data(), ncand, q, s, err.data(), sse[ri],
                             ssq[ri]);
          else
            quantize_row_any(row.data(), k, group, factors.data(), ncand, q, s, err.data(), sse[ri],
                             ssq[ri]);
          const auto d = done.fetch_add(1) + 1;
          if (progress != nullptr && r0 == 0 && (r % 64 == 63 || r + 1 == r1))
            progress(progress_ctx, d);
        }
      },
      16);
  if (bad_row.load() >= 0)
    throw std::invalid_argument("row " + std::to_string(bad_row.load()) +
                                " has a non-finite weight (NaN or inf)");
  for (std::int64_t r = 0; r < n; ++r) {
    out.sq_error += sse[static_cast<std::size_t>(r)];
    out.sq_norm += ssq[static_cast<std::size_t>(r)];
  }
  return out;
}

Int4Quantized quantize_int4(std::span<const float> w, std::int64_t n, std::int64_t k, int group,
                            int clip_steps) {
  if (static_cast<std::int64_t>(w.size()) != n * k)
    throw std::invalid_argument("quantize_int4: W has " + std::to_string(w.size()) +
                                " values, not N*K");
  const MatrixView m{reinterpret_cast<const std::byte*>(w.data()), DType::f32, n, k};
  return quantize_int4(m, group, clip_steps);
}

std::vector<float> dequantize_int4(std::span<const std::int8_t> q, std::span<const float> scale,
                                   std::int64_t n, std::int64_t k, int group) {
  if (group < 1 || k % group != 0) throw std::invalid_argument("K is not a multiple of the group");
  if (static_cast<std::int64_t>(q.size()) != n * k ||
      static_cast<std::int64_t>(scale.size()) != n * (k / group))
    throw std::invalid_argument("dequantize_int4: q or scale has the wrong size");
  std::vector<float> out(q.size());
  parallel_for(
      n,
      [&](std::int64_t r0, std::int64_t r1) {
        for (std::int64_t r = r0; r < r1; ++r)
          for (std::int64_t c = 0; c < k; ++c) {
            const auto i = static_cast<std::size_t>(r * k + c);
            const float s16 =
                round_f16(scale[static_cast<std::size_t>(r * (k / group) + c / group)]);
            out[i] = round_bf16(static_cast<float>(q[i]) * s16);
          }
      },
      64);
  return out;
}

}  // namespace r4::quant
