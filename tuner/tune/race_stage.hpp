// The sweep's race stage: one interleaved race per (shape, M) of every kernel's verified configs
// (one group per kernel, so each kernel gets its own winner) and the baselines, which are thus
// measured once there. In order:
//   verify   the candidates (tuner/tune/verify_stage.hpp)
//   entries  set up in the worker (`race`): the baselines it cannot run at this shape leave
//   race     tuner/tune/race.hpp over a WorkerSampler; a failed round is raced again one sample
//            per request to name the entry, which is recorded as `failed` and dropped
//   store    the measurements with their samples, the baselines and the winners in one
//            transaction, so a kill loses at most the race in flight
#pragma once

#include "tuner/tune/plan.hpp"
#include "tuner/tune/spec.hpp"
#include "tuner/tune/sweep_context.hpp"
#include "tuner/tune/sweep_worker.hpp"

namespace r4::tune {

// The race at (sh, M) on `worker`, whose shape is set up; skipped when a --resume found it done.
void run_race(SweepContext& ctx, SweepWorker& worker, Plan& plan, const ShapeSpec& sh, int m);

}  // namespace r4::tune
