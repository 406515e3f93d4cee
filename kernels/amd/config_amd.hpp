// The AMD part of the one is_valid (kernels/config.hpp calls it; kept in its own file so AMD and
// NVIDIA edits do not meet). Which AMD targets the GEMMs have a fragment path for, and the limits
// that differ from NVIDIA's:
//   gfx11 (RDNA3) / gfx12 (RDNA4): WMMA, wave32 (kernels/amd/wmma_gfx11.h, wmma_gfx12.h);
//   gfx942 (CDNA3, MI300X/MI325X): MFMA, wave64 (kernels/amd/mfma_gfx942.h).
// WV counts waves of the target's own width (gpu::wave_size): on gfx942 WV = 8 is 512 work-items;
// every WV of {1, 2, 4, 8} fits the 1024-work-item workgroup on both. The accumulators per lane
// halve on wave64 (a 16x16 f32 tile is 4 values per lane, not 8), so the NVIDIA-derived register
// budget NPW*MB <= 8 is kept as is: measured with clang-19 over the whole space (kernels/README.md).
// The kernels' dynamic shared memory (the NVIDIA cp.async pipeline's 48 KiB rule, which the AMD
// bodies do not use) stays part of the predicate because gemm_common.h refuses to compile a config
// over it on every target.
#pragma once

#include "tuner/gpu/arch.hpp"

namespace r4::kernels::amd {

// The arch names are compared here rather than through gpu::has_wmma_* so that the predicate stays
// usable in constant expressions (generated headers static_assert with is_valid).
[[nodiscard]] constexpr bool has_wmma_path(const gpu::Arch& a) {
  return a.vendor == gpu::Vendor::amd && (a.major == 11 || a.major == 12);
}
[[nodiscard]] constexpr bool has_mfma_path(const gpu::Arch& a) {
  return a.vendor == gpu::Vendor::amd && a.name == "gfx942";
}
[[nodiscard]] constexpr bool has_gemm_path(const gpu::Arch& a) {
  return has_wmma_path(a) || has_mfma_path(a);
}
// The fp8-activation GEMMs (issue 13) on AMD: gemm_w4a8fp8_nt on gfx12 only.
//   gfx12 (RDNA4): v_wmma_f32_16x16x16_fp8_fp8 reads OCP e4m3, what quant_act_fp8 writes
//     (kernels/amd/gemm_w4a8fp8_nt_wmma.h).
//   gfx11 (RDNA3): no fp8 WMMA at all (the RDNA3 ISA's WMMA section lists f16, bf16, iu8 and iu4
//     only; clang-19 refuses the gfx12 builtin there: "needs target feature gfx12-insts").
//   gfx942 (CDNA3, MI300): v_mfma_f32_16x16x32_fp8_fp8 exists but reads the FNUZ e4m3 variant
//     (bias 8, 0x80 is NaN, no negative zero, max 240; CDNA3 ISA "Data types"), not the OCP bytes
//     quant_act_fp8 writes, so OCP bytes would be read as half their value (and -0 as NaN).
//     Excluded until an FNUZ activation encoding (and a test of it) exists.
//   gemm_mxfp4a8fp8_nt: no AMD weight layout for MXFP4 exists (only NVIDIA's mx_sm89), so none.
[[nodiscard]] constexpr bool has_fp8_wmma_path(const gpu::Arch& a) {
  return a.vendor == gpu::Vendor::amd && a.major == 12;
}
// Work-items per workgroup for WV waves.
[[nodiscard]] constexpr int workgroup_size(const gpu::Arch& a, int wv) {
  return wv * (has_mfma_path(a) ? 64 : 32);
}
// AMD-only conditions on a config the shared ranges already accept.
[[nodiscard]] constexpr bool is_valid_amd(int wv, const gpu::Arch& a) {
  return has_gemm_path(a) && workgroup_size(a, wv) <= 1024;
}

}  // namespace r4::kernels::amd
