#include "kernels/weight_layout.hpp"

#include "kernels/amd/config_amd.hpp"

namespace r4::kernels {

std::optional<quant::Layout> weight_layout(const gpu::Arch& arch) {
  if (arch.vendor == gpu::Vendor::nvidia)
    return arch.major >= 8 ? std::optional(quant::Layout::sm80) : std::nullopt;
  if (amd::has_mfma_path(arch)) return quant::Layout::gfx942;
  if (amd::has_wmma_path(arch)) return quant::Layout::gfx12;
  return std::nullopt;
}

}  // namespace r4::kernels
