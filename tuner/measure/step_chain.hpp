// A decode step timed as what a serving stack runs: the spec's shapes in order as one chain of
// dependent launches, each reading the previous launch's output (DESIGN.md "Decode steps";
// docs/TUNER.md "Steps"). Paths, all timed over the same chain of shapes at one M, interleaved:
//
//   w4, w4_pdl                the tuned 4-bit winners (gemm_w4a16_nt with bf16 activations, or
//                             quant_act + gemm_w4a8_nt), plain stream order and with programmatic
//                             dependent launch (each kernel streams its weights while the previous
//                             one drains);
//   bf16, fp8_block           the vendor baselines (cuBLASLt), plain: bf16 GEMMs, and for block
//                             fp8 the activation quantiser (kernels/quant_fp8_block.cu) + GEMM;
//   read_floor, read_floor_pdl  kernels that only stream each shape's packed bytes (the chain of
//                             read floors, ../shared/bench/h200-floors-2026-11-30.md).
//
// Every link writes its own output buffer; link 0 reads the last link's (so a replay of the pool
// is one long chain). The pool is `copies` independent copies of every link's weights (>= the
// LLC factor x the last-level cache in all), one step per copy per replay, so each launch reads
// its weight from DRAM; a sample is one replay divided by the copies: microseconds per step.
// Before a w4 path is timed, its chain runs once on fresh random input and every link's output is
// checked against the plain GPU reference (kernels/reference_gpu.cu) with the derived tolerance:
// with PDL on, a kernel that read its input before the previous one finished would fail here.
// One split-K workspace serves the whole chain: a kernel touches it only after its PDL wait, i.e.
// after the previous kernel completed (kernels/gemm_common.h).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "kernels/baseline.hpp"
#include "kernels/family.hpp"
#include "kernels/floors.hpp"
#include "kernels/verify.hpp"

namespace r4::measure {

enum class ChainPath { w4, w4_pdl, bf16, fp8_block, read_floor, read_floor_pdl };
[[nodiscard]] const char* to_string(ChainPath p);
[[nodiscard]] bool parse_chain_path(const std::string& s, ChainPath& out);

// One link of the chain at one M.
struct ChainLink {
  std::int64_t n = 0, k = 0;
  std::string name;  // the shape's name, for messages
  // The w4 paths: gemm_w4a16_nt compiled with bf16 activations (R4_A_BF16=1), or gemm_w4a8_nt.
  kernels::KernelId kernel = kernels::KernelId::gemm_w4a16_nt;
  gpu::Kernel* gemm = nullptr;
  kernels::Config config;
  kernels::ReadFloorGrid floor_grid;  // the read-floor paths (the shape's best floor grid)
};

// The kernels and libraries a chain needs besides the links' GEMMs.
struct ChainTools {
  kernels::Verifier* verifier = nullptr;  // quant_act, the reference and the checker
  gpu::Kernel* read_floor = nullptr;      // r4_read_floor
  gpu::Kernel* quant_fp8 = nullptr;       // quant_fp8_block
  kernels::Baseline* bf16 = nullptr;      // cuBLASLt bf16, or null
  kernels::Baseline* fp8 = nullptr;       // cuBLASLt block fp8, or null
};

struct PathOutcome {
  bool ok = false;
  std::string detail;  // what ran, or why not (an unverified or failing path is not timed)
  int launches = 0;    // kernel launches per step
  std::vector<double> samples_us;
};

// The weights and buffers of one chain of shapes (the links' (N, K) in order), built once and
// reused for every M: pools depend on the shapes, not on M or the kernels.
class StepChain {
 public:
  StepChain(gpu::Context& ctx, gpu::Stream& stream, ChainTools tools,
            std::vector<std::pair<std::int64_t, std::int64_t>> shapes, double llc_factor,
            std::int64_t llc_bytes, std::int64_t max_bytes, std::uint32_t seed);
  ~StepChain();
  StepChain(const StepChain&) = delete;
  StepChain& operator=(const StepChain&) = delete;

  [[nodiscard]] int copies() const;

  // Times `paths` at M = links' m: each is set up (and, for w4 paths, verified), then all are
  // sampled `rounds` times, each round in a fresh random order. A path that cannot run or fails
  // its check comes back not ok, with the reason.
  [[nodiscard]] std::map<ChainPath, PathOutcome> time(std::int64_t m,
                                                      const std::vector<ChainLink>& links,
                                                      const std::vector<ChainPath>& paths,
                                                      int rounds, std::mt19937_64& rng);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace r4::measure
