// The sweep's compile stage: every planned unit compiled on all cores (tuner/tune/
// compile_pool.hpp), cached in the database's `compiles` table by content key. Failed compiles
// are cached too; spilling configs are stored with status `spills` and pruned. Each unit gets its
// compile id, whether it may be verified and timed, and (unless --compile-only) its binary
// written under the context's binary_dir for the worker.
#pragma once

#include <atomic>
#include <cstddef>
#include <mutex>
#include <string>
#include <vector>

#include "tuner/gpu/backend.hpp"
#include "tuner/tune/compile_pool.hpp"
#include "tuner/tune/compile_tracker.hpp"
#include "tuner/tune/plan.hpp"
#include "tuner/tune/sweep_context.hpp"

namespace r4::tune {

// Every unit's cache key (Unit::key), hashed on `threads` threads (0 = all cores), once per
// sweep: the plan's summary, the compile stage and the MPI compile split all use it.
void set_keys(Plan& plan, const std::string& compiler_version, int threads);

// How the stage runs beside racing (sweep.cpp): on a thread of its own, with the races waiting
// on `tracker` for the units they need.
struct CompileOverlap {
  CompileTracker* tracker = nullptr;          // told of each unit as it is done
  std::mutex* store_mu = nullptr;             // held around every access to ctx.store
  const std::atomic<bool>* cancel = nullptr;  // set: no further compile is started
  bool plain_progress = false;                // plain lines, not a live one (the races draw theirs)
};

// Times itself into ctx.sec.compile. The units compile in compile_order's order.
void compile_stage(SweepContext& ctx, Plan& plan, gpu::Backend& backend,
                   const CompileOverlap& overlap = {});

// The order to compile `plan`'s units in so the races of small M can start first: by the
// smallest measured M at which a unit is valid for some shape (the races of M <= 16 need about
// half of dflash's units), then plan order.
[[nodiscard]] std::vector<std::size_t> compile_order(const Plan& plan, const Spec& spec,
                                                     const gpu::Arch& arch);

// The plan's units valid at (sh, M): what the race there needs compiled.
[[nodiscard]] std::vector<std::size_t> units_needed(const Plan& plan, const gpu::Arch& arch,
                                                    const ShapeSpec& sh, int m);

// The `compiles` row of a fresh compile of `u` (status ok, spills or compile_error).
[[nodiscard]] db::CompileRow compile_row(const Unit& u, const CompileOutcome& o,
                                         const gpu::Arch& arch, const std::string& compiler);

}  // namespace r4::tune
