// The compile stage under MPI: the plan's configs split over the ranks. Rank 0 looks up the
// compile cache (it holds the database) and says which configs need compiling; those are dealt
// round-robin over the ranks in plan order (the same on every rank), each rank compiles its share
// on all its cores, and every rank gets every result (the binaries are what the workers load).
// Rank 0 stores the fresh compiles, links the cached ones to the run and sends each config's
// compile id and status, and the binaries of cached configs, to every rank. Ranks need no GPU for
// this: `--compile-only` under MPI is this stage alone. The ranks must compile with one compiler
// version (it is part of the cache key): a mix is refused.
#pragma once

#include "tuner/gpu/backend.hpp"
#include "tuner/mpi/world.hpp"
#include "tuner/tune/plan.hpp"
#include "tuner/tune/sweep_context.hpp"

namespace r4::tune {

// Every rank calls it. Times itself into ctx.sec.compile. Throws std::runtime_error on every
// rank when the ranks' compilers differ.
void compile_split(SweepContext& ctx, Plan& plan, gpu::Backend& backend, mpi::World& world);

}  // namespace r4::tune
