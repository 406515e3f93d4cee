// Architecture identity: one type with named predicates (STYLE.md rule 4). Nothing else in the
// project compares arch strings or hard-codes a wave size or a multiprocessor count.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace r4::gpu {

enum class Vendor { nvidia, amd };

[[nodiscard]] std::string_view to_string(Vendor v);

// A compile target such as "sm_90" or "gfx1201". `major`/`minor` are the SM version for NVIDIA
// (sm_90 -> 9, 0) and the gfx generation for AMD (gfx1201 -> 12, 1; gfx90a -> 9, 10).
struct Arch {
  Vendor vendor = Vendor::nvidia;
  std::string name;  // canonical spelling, e.g. "sm_90", "sm_90a", "gfx1201"
  int major = 0;
  int minor = 0;

  [[nodiscard]] static std::optional<Arch> parse(std::string_view text);
  // As parse(), but throws std::invalid_argument naming the supported targets.
  [[nodiscard]] static Arch from(std::string_view text);
  friend bool operator==(const Arch&, const Arch&) = default;
};

// The arches the kernel family is written for. An arch outside this list is refused loudly.
[[nodiscard]] bool is_supported(const Arch& a);
[[nodiscard]] std::string supported_arch_list();

// Threads per wave/warp.
[[nodiscard]] int wave_size(const Arch& a);
// NVIDIA mma.sync m16n8k16 f16/bf16 and m16n8k32 s8 (sm_80 and newer).
[[nodiscard]] bool has_mma_sync(const Arch& a);
// NVIDIA Hopper wgmma, bulk copies and setmaxnreg: a device of compute capability 9.0 (code for
// them is compiled for the arch-specific target sm_90a, which such a device loads).
[[nodiscard]] bool has_wgmma(const Arch& a);
// Programmatic dependent launch (griddepcontrol) and thread-block clusters: NVIDIA sm_90+.
[[nodiscard]] bool has_pdl(const Arch& a);
// AMD WMMA, RDNA3 (gfx11) and RDNA4 (gfx12) encodings.
[[nodiscard]] bool has_wmma_gfx11(const Arch& a);
[[nodiscard]] bool has_wmma_gfx12(const Arch& a);
// AMD CDNA3 (MI300X/MI325X) MFMA, wave64: v_mfma_f32_16x16x16_f16/bf16, v_mfma_i32_16x16x32_i8.
[[nodiscard]] bool has_mfma_gfx942(const Arch& a);
// LDS one AMD workgroup may allocate (0 for NVIDIA, which asks the device).
[[nodiscard]] int lds_bytes_per_workgroup(const Arch& a);

}  // namespace r4::gpu
