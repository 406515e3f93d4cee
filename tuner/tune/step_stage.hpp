// The sweep's decode steps (issue 11; DESIGN.md "Decode steps"): after every race, the spec's
// [step] chain of shapes timed at each of its M as one chain of dependent launches (the worker's
// `step` request, tuner/measure/step_chain.hpp), on one worker, over a pool of steps >= the LLC
// factor x the last-level cache:
//   w4 / w4_pdl       at each link the faster of the run's two 4-bit winners for the band that
//                     serves M (gemm_w4a16_nt with bf16 activations, compiled here for the
//                     winning config, or quant_act + gemm_w4a8_nt), plain and with PDL; every
//                     link's output verified against the reference first (with PDL on for w4_pdl);
//   bf16 / fp8_block  the vendor baselines' chains (block fp8 with its activation quantiser);
//   read_floor(_pdl)  each shape's read-floor kernel at its measured grid.
// Stored as steps rows (one per path and M, failures with their reason) with their samples; a
// --resume times only what the run does not have yet.
#pragma once

#include "tuner/gpu/backend.hpp"
#include "tuner/tune/plan.hpp"
#include "tuner/tune/sweep_context.hpp"
#include "tuner/tune/sweep_worker.hpp"

namespace r4::tune {

// Times itself into ctx.sec.steps (the bf16-activation compiles into ctx.sec.compile).
void run_steps(SweepContext& ctx, SweepWorker& worker, const Plan& plan, gpu::Backend& backend);

}  // namespace r4::tune
