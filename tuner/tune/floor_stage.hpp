// The sweep's floors (issue 11; DESIGN.md "Measurement"): on the worker that set up a shape, before
// its races, the shape's read floor (a kernel that only streams its packed weight and scale bytes,
// best of a few grids, over the same pool of cold copies the candidates are timed on) and, once per
// run, the launch floor (an empty kernel). Stored as the run's floors rows with their samples;
// a --resume skips what the run already has. The read floor's grid is kept for the step chains.
#pragma once

#include "tuner/tune/spec.hpp"
#include "tuner/tune/sweep_context.hpp"
#include "tuner/tune/sweep_worker.hpp"

namespace r4::tune {

// Times itself into ctx.sec.floors. What is stored already is what ctx says (load_floors; a
// worker's context has it from its group's), not a query: a worker's thread must not read the
// database, and an MPI rank has none. The rows go through ctx.write (with the worker's GPU).
void measure_floors(SweepContext& ctx, SweepWorker& worker, const ShapeSpec& sh);

// In the process that holds the database, with no worker writing: the run's stored floors into
// ctx (floor_grids, launch_floor_done), for a --resume and before the step chains.
void load_floors(SweepContext& ctx);

}  // namespace r4::tune
