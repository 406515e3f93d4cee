// The sweep's compile stage: every planned unit compiled on all cores (tuner/tune/
// compile_pool.hpp), cached in the database's `compiles` table by content key. Failed compiles
// are cached too; spilling configs are stored with status `spills` and pruned. Each unit gets its
// compile id, whether it may be verified and timed, and (unless --compile-only) its binary
// written under the context's binary_dir for the worker.
#pragma once

#include <string>

#include "tuner/gpu/backend.hpp"
#include "tuner/tune/compile_pool.hpp"
#include "tuner/tune/plan.hpp"
#include "tuner/tune/sweep_context.hpp"

namespace r4::tune {

// Every unit's cache key (Unit::key), hashed on `threads` threads (0 = all cores), once per
// sweep: the plan's summary, the compile stage and the MPI compile split all use it.
void set_keys(Plan& plan, const std::string& compiler_version, int threads);

// Times itself into ctx.sec.compile.
void compile_stage(SweepContext& ctx, Plan& plan, gpu::Backend& backend);

// The `compiles` row of a fresh compile of `u` (status ok, spills or compile_error).
[[nodiscard]] db::CompileRow compile_row(const Unit& u, const CompileOutcome& o,
                                         const gpu::Arch& arch, const std::string& compiler);

}  // namespace r4::tune
