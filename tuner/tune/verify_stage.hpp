// The sweep's verify stage: every compiled candidate valid at a (shape, M) is checked there
// before it can be timed, in the worker, all on one fresh set of random activations drawn for
// this race (the worker computes their reference once) and a poisoned output. Each check is one
// `checks` row; only `pass` is ever timed. Checks a --resume found are not repeated.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "db/store.hpp"
#include "tuner/tune/plan.hpp"
#include "tuner/tune/spec.hpp"
#include "tuner/tune/sweep_context.hpp"
#include "tuner/tune/sweep_worker.hpp"
#include "tuner/worker/process.hpp"

namespace r4::tune {

// The candidates of the race at (sh, M) that passed, in plan order. Throws SweepStop (the sweep
// stops, the run is left partial) after opt.max_consecutive_faults checks in a row crashed the
// worker or timed out.
[[nodiscard]] std::vector<Unit*> verify_candidates(SweepContext& ctx, SweepWorker& worker,
                                                   Plan& plan, const ShapeSpec& sh, int m);

// A check's outcome from the worker's answer to `verify` (`reply` as SweepWorker::call returns
// it, `raw` the job's own result): status, detail and error. The row's ids and shape are left
// to the caller.
[[nodiscard]] db::CheckRow check_outcome(const worker::JobResult& raw, const nlohmann::json& reply);

}  // namespace r4::tune
