// Which packed-weight layout (quant/layout/<name>.h) the GEMMs read on an arch: the host half of
// the choice the kernel sources make with their target macros (kernels/amd/matrix.h,
// kernels/reference_gpu.cu). The packer, the verifier and r4d pack with this.
#pragma once

#include <optional>

#include "quant/pack.hpp"
#include "tuner/gpu/arch.hpp"

namespace r4::kernels {

// sm80 on NVIDIA sm_80+; gfx12 (the seeds' pack()) on RDNA3 / RDNA4; gfx942 on MI300 (CDNA3).
// nullopt where the family has no GEMM path.
[[nodiscard]] std::optional<quant::Layout> weight_layout(const gpu::Arch& arch);

}  // namespace r4::kernels
