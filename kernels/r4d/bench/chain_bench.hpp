// r4d_bench's chain mode: a decode step as a serving stack runs it through r4d, timed with and
// without programmatic dependent launch (kernels/r4d/README.md, "PDL").
#pragma once

namespace r4d::bench {

// usage: r4d_bench chain [rounds] [M list, e.g. 1,8,64] [shapes, e.g. 3072x5120,5120x2048]
// argv[0] is "chain". Returns the process exit code.
int run_chain(int argc, char** argv);

}  // namespace r4d::bench
