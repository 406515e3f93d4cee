// Vendor baselines behind one interface: "time a call for M, N, K" with the weight cold (a pool of
// copies >= 4x the LLC, kernels/timing.hpp), the best of the library heuristic's top algorithms.
//   bf16        C[M,N] = A[M,K] W[N,K]^T, bf16 in/out, f32 accumulate (cuBLASLt / hipBLASLt)
//   fp8_block   e4m3 W with one f32 scale per 128x128 block, e4m3 A with one f32 scale per 1x128,
//               bf16 out (cuBLASLt VEC128_32F / BLK128x128_32F scale modes, cuBLAS 12.9+, sm_90)
// Only kernels/baseline_cublaslt.cpp includes cublasLt.h; the library is dlopen'ed.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "kernels/config.hpp"
#include "kernels/timing.hpp"
#include "tuner/gpu/backend.hpp"

namespace r4::kernels {

enum class BaselineKind { bf16, fp8_block };

struct BaselineResult {
  std::optional<double> us;  // per call; empty when the library could not run it
  std::string note;          // algorithm chosen, padding applied, or why it did not run
};

// A baseline call set up once for a shape: `copies` independent weight copies (cold weights), the
// library's best algorithm already chosen (timed among the heuristic's top few). The tuner's race
// captures enqueue(0..copies-1) in a graph and samples it interleaved with the candidates.
class PreparedBaseline {
 public:
  virtual ~PreparedBaseline() = default;
  [[nodiscard]] virtual int copies() const = 0;
  virtual void enqueue(int copy, gpu::Stream& s) = 0;
  // The same call on weight copy `copy` but the caller's activations and output (a decode-step
  // chain feeds each GEMM the previous one's output): `a` is bf16 [M, K] (bf16) or e4m3 [M, K]
  // with `a_scale` f32 [K/128][M] (fp8_block), `c` bf16 [M, N].
  virtual void enqueue_on(int copy, gpu::DevicePtr a, gpu::DevicePtr a_scale, gpu::DevicePtr c,
                          gpu::Stream& s) = 0;
  [[nodiscard]] virtual const std::string& note() const = 0;  // algorithm, padding
  // The rows the call runs at: M, or M padded to 16 where the library had no algorithm at M.
  [[nodiscard]] virtual std::int64_t rows() const = 0;
};

class Baseline {
 public:
  virtual ~Baseline() = default;
  [[nodiscard]] virtual std::string_view name() const = 0;  // e.g. "cublaslt_bf16"
  // Empty when usable, else why not (library missing, not built, untested).
  [[nodiscard]] virtual std::string unavailable_reason() const = 0;
  [[nodiscard]] virtual BaselineResult time_call(const Shape& s, const TimingSpec& spec) = 0;
  // nullptr when the library cannot run this shape; `why` then says why.
  [[nodiscard]] virtual std::unique_ptr<PreparedBaseline> prepare(const Shape& s,
                                                                  const TimingSpec& spec,
                                                                  std::string& why) = 0;
};

// cuBLASLt (NVIDIA). Never throws for a missing library: unavailable_reason() says so.
[[nodiscard]] std::unique_ptr<Baseline> make_cublaslt_baseline(BaselineKind kind, gpu::Context& ctx,
                                                               gpu::Stream& stream);
// hipBLASLt (AMD): not built yet; reports "not built/untested".
[[nodiscard]] std::unique_ptr<Baseline> make_hipblaslt_baseline(BaselineKind kind,
                                                                gpu::Context& ctx,
                                                                gpu::Stream& stream);

}  // namespace r4::kernels
