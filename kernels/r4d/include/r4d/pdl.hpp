// Programmatic dependent launch (PDL) as a per-launch option of every r4d launcher.
//
// With PDL, a kernel may start while the previous kernel in the stream still runs: r4d's kernels
// (kernels/gemm_w4a16_nt.cu, gemm_w4a8_nt.cu, quant_act.cu) let the next kernel launch at their
// entry (griddepcontrol.launch_dependents), stream their weights and scales at once, and wait for
// the previous kernel (griddepcontrol.wait) before they read activations or touch their outputs
// or the split-K workspace. So a chain of r4d launches overlaps each kernel's weight stream with
// the previous kernel's tail, and its results are bit-identical to the same chain without PDL
// (tests/r4d/graph_gpu_test.cpp proves it on a device). Graph capture keeps the programmatic edges.
#pragma once

#include <string_view>

namespace r4d {

enum class Pdl {
  automatic,  // PDL where the device supports it (pdl_supported), a plain launch elsewhere
  off,        // a plain launch (cudaLaunchKernel), stream order as before
  on,         // PDL; on a device without it the launch is refused (Status::pdl_unsupported)
};

[[nodiscard]] std::string_view to_string(Pdl p);

// True when launches on `device` can use PDL: its compute capability is >= 9.0 and the image of
// r4d's kernels it runs was compiled for sm_90 or later (so it carries the griddepcontrol
// instructions; a build for sm_80 alone, JIT-compiled from its PTX on an H200, does not). Recorded
// by init() / register_workspace(); false for a device with no workspace registered, and in a
// build without kernels.
[[nodiscard]] bool pdl_supported(int device);

// Whether a launch with option `p` on `device` (registered) uses PDL: automatic -> pdl_supported,
// off -> false, on -> true where supported (elsewhere that launch is refused).
[[nodiscard]] bool uses_pdl(Pdl p, int device);

}  // namespace r4d
