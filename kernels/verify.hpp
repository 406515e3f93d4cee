// Verification of one compiled config on the device: fresh random activations, the output
// poisoned (0xFF bytes: bf16 NaN) before the launch, the plain GPU reference (double
// accumulation; kernels/reference_gpu.cu) and an element-wise check against the tolerance that
// kernels/tolerance.hpp derives from the dtypes and K. Used by the tuner's verify step (every
// config, before it is ever timed) and the tests. A wrong kernel never passes.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "kernels/family.hpp"
#include "tuner/gpu/backend.hpp"

namespace r4::kernels {

struct CheckOutcome {
  bool pass = false;
  std::uint32_t bad = 0;  // elements out of tolerance (NaN counts: the poison never passes)
  float max_ratio = 0;    // max |err| / tol over the output (inf when any failed)
  std::int64_t first_bad = -1;
  std::string detail;
};

class Verifier {
 public:
  // Compiles the GPU reference and quant_act for the context's arch with `backend`.
  Verifier(gpu::Backend& backend, gpu::Context& ctx, gpu::Stream& stream);
  ~Verifier();
  Verifier(const Verifier&) = delete;
  Verifier& operator=(const Verifier&) = delete;

  // Random codes in -8..7 and scales in [0.005, 0.03) for (N, K), packed in the arch's layout and
  // uploaded. Host copies are kept for CPU checks.
  void set_shape(std::int64_t n, std::int64_t k, std::uint32_t seed);
  [[nodiscard]] const W4Weights& weights() const { return weights_; }
  // The weights `id` reads: the MXFP4 ones (mx_sm89, drawn by set_shape on sm_89+) for
  // gemm_mxfp4a8fp8_nt, else weights().
  [[nodiscard]] const W4Weights& weights_for(KernelId id) const;
  [[nodiscard]] std::int64_t n() const { return n_; }
  [[nodiscard]] std::int64_t k() const { return k_; }

  // Runs `kernel` (gemm_w4a16_nt with f16 A, gemm_w4a8_nt on quant_act's output, or an
  // fp8-activation GEMM on quant_act_fp8's) at M rows on activations drawn from `seed`, and checks
  // every output element. Checks with the same (M,
  // seed) share the activations and the reference (computed once); a new seed draws fresh ones.
  [[nodiscard]] CheckOutcome check(KernelId id, gpu::Kernel& kernel, const Config& c,
                                   std::int64_t m, std::uint32_t seed);

  // The quant_act kernel this verifier compiled (the w4a8 path needs it at run time too).
  [[nodiscard]] gpu::Kernel& quant_act_kernel();
  // quant_act_fp8 (compiled where an fp8-activation GEMM runs: kernels/config.hpp
  // has_fp8_act_path; NVIDIA sm_89+ and AMD gfx12).
  [[nodiscard]] gpu::Kernel& quant_act_fp8_kernel();
  // The plain GPU reference (ref_gemm_w4) and the checker (check_bf16) of kernels/reference_gpu.cu,
  // for checks this class does not run itself (the outputs of a decode-step chain).
  [[nodiscard]] gpu::Kernel& reference_kernel();
  [[nodiscard]] gpu::Kernel& check_kernel();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  W4Weights weights_, mx_weights_;
  std::int64_t n_ = 0, k_ = 0;
};

}  // namespace r4::kernels
