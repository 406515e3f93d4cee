// Test data for the r4d GPU tests: random int4 codes and f16-rounded scales packed in the sm80
// layout (quant/pack.hpp), f16/bf16 activations, device buffers (RAII), and the comparison with
// the CPU references (kernels/reference.hpp) under the derived tolerance (kernels/tolerance.hpp).
#pragma once

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <span>
#include <vector>

#include "kernels/host_half.hpp"
#include "kernels/reference.hpp"
#include "kernels/tolerance.hpp"
#include "quant/pack.hpp"
#include "r4d/r4d.hpp"

namespace r4d::test {

namespace rk = r4::kernels;

inline bool have_gpu() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

// Device 0's compute capability major version (0 when unknown).
inline int device_major() {
  int major = 0;
  if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0) != cudaSuccess) return 0;
  return major;
}

// Whether r4d launches the sm90a generation on device 0: a compute capability 9.x device (the
// H100 / H200 are 9.0, which runs sm_90a code) and a build with R4D_SM90A.
inline bool sm90a_runs_here() {
  return device_major() == 9 && r4d::has_generation(r4d::kGenSm90a);
}

// What a launch of an sm90a config refuses with where it cannot run: is_valid is false off
// compute capability 9 (invalid_config); on one, the build lacks the kernel (not_compiled).
inline r4d::Status sm90a_refusal() {
  return device_major() == 9 ? r4d::Status::not_compiled : r4d::Status::invalid_config;
}

// Whether a table of the build has a band of the sm90a generation.
inline bool tables_have_sm90a() {
  for (r4d::Dtype d : {r4d::Dtype::w4a16, r4d::Dtype::w4a8})
    for (const auto& r : r4d::table(d))
      if (r.gen == r4d::kGenSm90a) return true;
  return false;
}

class DevBuf {
 public:
  explicit DevBuf(std::size_t bytes) : bytes_(bytes) {
    if (cudaMalloc(&p_, bytes) != cudaSuccess) p_ = nullptr;
  }
  DevBuf(const DevBuf&) = delete;
  DevBuf& operator=(const DevBuf&) = delete;
  ~DevBuf() {
    if (p_) (void)cudaFree(p_);
  }
  template <class T>
  void upload(const std::vector<T>& v) {
    ASSERT_EQ(cudaMemcpy(p_, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
  }
  template <class T>
  [[nodiscard]] std::vector<T> download() const {
    return download<T>(bytes_ / sizeof(T));
  }
  // The first `count` elements.
  template <class T>
  [[nodiscard]] std::vector<T> download(std::size_t count) const {
    std::vector<T> v(std::min(count, bytes_ / sizeof(T)));
    EXPECT_EQ(cudaMemcpy(v.data(), p_, v.size() * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
    return v;
  }
  void poison() { ASSERT_EQ(cudaMemset(p_, 0xFF, bytes_), cudaSuccess); }  // bf16 NaN
  [[nodiscard]] void* get() const { return p_; }

 private:
  void* p_ = nullptr;
  std::size_t bytes_ = 0;
};

struct Problem {
  int n = 0, k = 0, m = 0;
  std::vector<std::int8_t> q;       // [N, K]
  std::vector<float> scale;         // [N, K/128], f16-rounded
  std::vector<std::uint16_t> a16;   // [M, K] f16 bits
  std::vector<std::uint16_t> ab16;  // [M, K] bf16 bits
  r4::quant::Packed packed;
};

inline Problem make_problem(int n, int k, int m, unsigned seed) {
  Problem p;
  p.n = n;
  p.k = k;
  p.m = m;
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> code(-8, 7);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  p.q.resize(static_cast<std::size_t>(n) * k);
  for (auto& v : p.q) v = static_cast<std::int8_t>(code(rng));
  p.scale.resize(static_cast<std::size_t>(n) * (k / 128));
  for (auto& s : p.scale)
    s = rk::half_to_float(rk::float_to_half(0.004f + 0.01f * std::abs(unit(rng))));
  p.a16.resize(static_cast<std::size_t>(m) * k);
  p.ab16.resize(p.a16.size());
  for (std::size_t i = 0; i < p.a16.size(); ++i) {
    const float x = unit(rng);
    p.a16[i] = rk::float_to_half(x);
    p.ab16[i] = rk::float_to_bf16(x);
  }
  p.packed = r4::quant::pack_sm80(p.q, p.scale, n, k, 128);
  return p;
}

// Device copies of the packed weight.
struct DevWeights {
  DevBuf wq, wsz;
  explicit DevWeights(const Problem& p) : wq(p.packed.wq.size() * 4), wsz(p.packed.wsz.size() * 4) {
    wq.upload(p.packed.wq);
    wsz.upload(p.packed.wsz);
  }
};

// Counts elements of `c` (bf16 bits, [M, N]) outside the tolerance of the reference.
inline int mismatches(const std::vector<std::uint16_t>& c, const std::vector<double>& ref,
                      const std::vector<double>& norm, rk::Tolerance tol) {
  int bad = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    const double got = rk::bf16_to_float(c[i]);
    const double lim = tol.rel * std::abs(ref[i]) + tol.abs_coef * norm[i];
    if (!(std::abs(got - ref[i]) <= lim)) ++bad;
  }
  return bad;
}

// Against the reference of p's weights applied to activations `a` ([m, p.k], f16 or bf16 bits):
// for outputs of launches whose input was not p's own (a chain's links read what the previous
// link wrote).
inline int check_w4a16(const Problem& p, int m, std::span<const std::uint16_t> a, bool a_bf16,
                       const std::vector<std::uint16_t>& c) {
  const auto mn = static_cast<std::size_t>(m) * p.n;
  std::vector<double> ref(mn), norm(mn);
  rk::ref_gemm_w4a16(a, a_bf16, p.q, p.scale, rk::Shape{p.n, p.k, m}, rk::RefOut{ref, norm});
  return mismatches(c, ref, norm, rk::tolerance(rk::KernelId::gemm_w4a16_nt, a_bf16, p.k));
}

inline int check_w4a16(const Problem& p, bool a_bf16, const std::vector<std::uint16_t>& c) {
  return check_w4a16(p, p.m, a_bf16 ? p.ab16 : p.a16, a_bf16, c);
}

// The w4a8 path from bf16 activations `a` ([m, p.k]): reference quant_act, then the int8
// reference GEMM.
inline int check_w4a8(const Problem& p, int m, std::span<const std::uint16_t> a,
                      const std::vector<std::uint16_t>& c) {
  const auto mn = static_cast<std::size_t>(m) * p.n;
  std::vector<std::int8_t> aq(static_cast<std::size_t>(m) * p.k);
  std::vector<float> sa(static_cast<std::size_t>(m));
  rk::ref_quant_act(a, m, p.k, aq, sa);
  std::vector<double> ref(mn), norm(mn);
  rk::ref_gemm_w4a8(aq, sa, p.q, p.scale, rk::Shape{p.n, p.k, m}, rk::RefOut{ref, norm});
  return mismatches(c, ref, norm, rk::tolerance(rk::KernelId::gemm_w4a8_nt, false, p.k));
}

inline int check_w4a8(const Problem& p, const std::vector<std::uint16_t>& c) {
  return check_w4a8(p, p.m, p.ab16, c);
}

}  // namespace r4d::test
