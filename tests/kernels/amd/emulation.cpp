#include "tests/kernels/amd/emulation.hpp"

#include <cmath>
#include <random>

#include <fmt/core.h>

#include "kernels/host_half.hpp"
#include "kernels/reference.hpp"
#include "kernels/tolerance.hpp"
#include "quant/numeric.hpp"

namespace r4::emu {

namespace {
// Places one operand's fragments into a rows x cols matrix; false on a hole or a conflict.
bool place(const OperandMap& om, const Frag& f, int rows, int cols, bool k_major,
           std::vector<double>& mat, std::string& why, const char* what) {
  mat.assign(static_cast<std::size_t>(rows * cols), 0.0);
  std::vector<char> set(mat.size(), 0);
  for (int l = 0; l < om.lanes; ++l)
    for (int e = 0; e < om.elems; ++e) {
      const int i = om.idx(l, e);
      // A: (row, k) -> [row][k]; B: (col, k) -> [k][col]; C: (row, col) -> [row][col]
      const int r = k_major ? om.minor[static_cast<std::size_t>(i)] : om.major[static_cast<std::size_t>(i)];
      const int c = k_major ? om.major[static_cast<std::size_t>(i)] : om.minor[static_cast<std::size_t>(i)];
      if (r < 0 || r >= rows || c < 0 || c >= cols) {
        why = fmt::format("{}: lane {} element {} maps outside the matrix", what, l, e);
        return false;
      }
      const auto at = static_cast<std::size_t>(r * cols + c);
      const double v = f[static_cast<std::size_t>(l)][static_cast<std::size_t>(e)];
      if (set[at] && mat[at] != v) {
        why = fmt::format("{}: entry ({}, {}) written twice with different values (lane {})", what,
                          r, c, l);
        return false;
      }
      set[at] = 1;
      mat[at] = v;
    }
  for (std::size_t i = 0; i < set.size(); ++i)
    if (!set[i]) {
      why = fmt::format("{}: entry ({}, {}) is held by no lane", what, i / static_cast<std::size_t>(cols),
                        i % static_cast<std::size_t>(cols));
      return false;
    }
  return true;
}
}  // namespace

bool mma(const InstrModel& im, const Frag& a, const Frag& b, Frag& c, std::string& why) {
  std::vector<double> A, B, C;
  if (!place(im.a, a, im.m, im.k, false, A, why, "A") ||
      !place(im.b, b, im.k, im.n, true, B, why, "B") ||
      !place(im.c, c, im.m, im.n, false, C, why, "C")) {
    why = im.name + ": " + why;
    return false;
  }
  for (int i = 0; i < im.m; ++i)
    for (int j = 0; j < im.n; ++j) {
      double s = C[static_cast<std::size_t>(i * im.n + j)];
      for (int kk = 0; kk < im.k; ++kk)
        s += A[static_cast<std::size_t>(i * im.k + kk)] * B[static_cast<std::size_t>(kk * im.n + j)];
      C[static_cast<std::size_t>(i * im.n + j)] = s;
    }
  for (int l = 0; l < im.c.lanes; ++l)
    for (int e = 0; e < im.c.elems; ++e) {
      const int i = im.c.idx(l, e);
      c[static_cast<std::size_t>(l)][static_cast<std::size_t>(e)] =
          C[static_cast<std::size_t>(im.c.major[static_cast<std::size_t>(i)] * im.n +
                                     im.c.minor[static_cast<std::size_t>(i)])];
    }
  return true;
}

const char* to_string(Dtype d) {
  switch (d) {
    case Dtype::f16:
      return "f16";
    case Dtype::bf16:
      return "bf16";
    case Dtype::i8:
      return "i8";
    case Dtype::e4m3:
      return "e4m3";
  }
  return "?";
}

Problem make_problem(Dtype dtype, quant::Layout layout, int m, int n, int k, std::uint32_t seed) {
  Problem p;
  p.dtype = dtype;
  p.m = m;
  p.n = n;
  p.k = k;
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> code(-8, 7);
  std::uniform_real_distribution<float> sc(0.004f, 0.05f);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  p.codes.resize(static_cast<std::size_t>(n * k));
  for (auto& c : p.codes) c = static_cast<std::int8_t>(code(rng));
  std::vector<float> raw(static_cast<std::size_t>(n * (k / kernels::kGroup)));
  for (auto& s : raw) s = sc(rng);
  p.packed = quant::pack(layout, p.codes, raw, n, k, kernels::kGroup);
  p.scales.resize(raw.size());
  for (std::size_t i = 0; i < raw.size(); ++i) p.scales[i] = quant::round_f16(raw[i]);
  p.a16.resize(static_cast<std::size_t>(m * k));
  p.a8.resize(static_cast<std::size_t>(m * k));
  p.a_e4m3.resize(static_cast<std::size_t>(m * k));
  p.sa.resize(static_cast<std::size_t>(m));
  std::uniform_int_distribution<int> i8v(-127, 127);
  std::uniform_int_distribution<int> byte(0, 255);
  for (std::size_t i = 0; i < p.a16.size(); ++i) {
    const float x = nd(rng);
    p.a16[i] = dtype == Dtype::bf16 ? quant::f32_to_bf16_bits(x) : kernels::float_to_half(x);
    p.a8[i] = static_cast<std::int8_t>(i8v(rng));
    // Every finite e4m3 code (subnormals, both zeros, +-448), never NaN (0x7F / 0xFF), which
    // quant_act_fp8 never writes (it saturates).
    int b = byte(rng);
    while ((b & 0x7F) == 0x7F) b = byte(rng);
    p.a_e4m3[i] = static_cast<std::uint8_t>(b);
  }
  for (auto& s : p.sa) s = sc(rng);
  return p;
}

Check compare(const Problem& p, const std::vector<float>& out) {
  Check ch;
  const kernels::Shape s{p.n, p.k, p.m};
  std::vector<double> ref(static_cast<std::size_t>(p.m * p.n)), norm(ref.size());
  const bool w4a8 = p.dtype == Dtype::i8;
  if (w4a8) {
    kernels::ref_gemm_w4a8(p.a8, p.sa, p.codes, p.scales, s, {ref, norm});
  } else if (p.dtype == Dtype::e4m3) {
    // sum_k e4m3(a[m, k]) * sa[m] * code[n, k] * scale[n, k/128] in double, exactly decoded.
    for (int m = 0; m < p.m; ++m)
      for (int n = 0; n < p.n; ++n) {
        double acc = 0, sq = 0;
        for (int k = 0; k < p.k; ++k) {
          const auto mk = static_cast<std::size_t>(m * p.k + k);
          const auto nk = static_cast<std::size_t>(n * p.k + k);
          const double wa =
              static_cast<double>(quant::e4m3_to_f32(p.a_e4m3[mk])) *
              static_cast<double>(p.sa[static_cast<std::size_t>(m)]) * p.codes[nk] *
              static_cast<double>(p.scales[static_cast<std::size_t>(n * (p.k / 128) + k / 128)]);
          acc += wa;
          sq += wa * wa;
        }
        ref[static_cast<std::size_t>(m * p.n + n)] = acc;
        norm[static_cast<std::size_t>(m * p.n + n)] = std::sqrt(sq);
      }
  } else {
    kernels::ref_gemm_w4a16(p.a16, p.dtype == Dtype::bf16, p.codes, p.scales, s, {ref, norm});
  }
  // e4m3: the family's tolerance of gemm_w4a8fp8_nt (kernels/tolerance.hpp: rel 2^-8, abs_coef
  // 2^-10 + 4 sqrt(K/16) 2^-23, derived for a tensor core that truncates its fp8 sums). The
  // emulation is tighter than that: every product a * code * 2^-9 is exact and the model sums a
  // k16 step in double, so the only errors are the kernel's f32 steps per 128-K group (partial
  // rounded to f32, times scale * 2^9, added to the total: three roundings of <= 2^-24 of at
  // most sum_k |a w| <= sqrt(K) * norm), i.e. <= 3 * (K/128) * sqrt(K) * 2^-24 * norm, 1.1e-5 of
  // norm at K = 384, under the 9.8e-4 granted. The check keeps its teeth: a swapped k or row
  // moves an element by ~|a_i w_i - a_j w_j|, of order norm / sqrt(K) (5e-2 of it at K = 384).
  const auto tol = kernels::tolerance(w4a8                     ? kernels::KernelId::gemm_w4a8_nt
                                      : p.dtype == Dtype::e4m3 ? kernels::KernelId::gemm_w4a8fp8_nt
                                                               : kernels::KernelId::gemm_w4a16_nt,
                                      p.dtype == Dtype::bf16, p.k);
  if (out.size() != ref.size()) {
    ch.detail = "no output";
    return ch;
  }
  for (std::size_t i = 0; i < ref.size(); ++i) {
    const double err = std::abs(static_cast<double>(out[i]) - ref[i]);
    const double t = tol.rel * std::abs(ref[i]) + tol.abs_coef * norm[i] + 1e-30;
    const double r = err / t;
    if (!(r <= 1.0)) {
      if (!ch.bad)
        ch.detail = fmt::format("first bad element (m {}, n {}): {} vs reference {} (tolerance {})",
                                i / static_cast<std::size_t>(p.n), i % static_cast<std::size_t>(p.n),
                                out[i], ref[i], t);
      ++ch.bad;
    }
    if (r > ch.worst || std::isnan(r)) ch.worst = std::isnan(r) ? 1e30 : r;
  }
  ch.ok = ch.bad == 0;
  return ch;
}

}  // namespace r4::emu
