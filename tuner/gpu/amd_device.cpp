#include "tuner/gpu/amd_device.hpp"

#include <algorithm>
#include <string>

namespace r4::gpu {

std::optional<Arch> amd_arch_from_gcn_name(std::string_view gcn) {
  const auto a = Arch::parse(gcn.substr(0, gcn.find(':')));
  if (!a || a->vendor != Vendor::amd) return std::nullopt;
  return a;
}

std::int64_t amd_llc_bytes(const Arch& arch, int memory_bus_bits, std::int64_t l2_bytes) {
  constexpr std::int64_t MiB = std::int64_t{1} << 20;
  std::int64_t mall = 0;
  if (arch.name == "gfx942") {
    mall = 256 * MiB;
  } else if (arch.vendor == Vendor::amd && (arch.major == 11 || arch.major == 12)) {
    if (memory_bus_bits >= 64) {
      mall = memory_bus_bits / 64 * 16 * MiB;
    } else {
      // Largest part per target: 7900 XTX (gfx1100), 7800 XT (gfx1101), 7600 (gfx1102), RX 9060
      // XT (gfx1200), RX 9070 XT (gfx1201); APUs (gfx115x) have none.
      if (arch.name == "gfx1100") mall = 96 * MiB;
      if (arch.name == "gfx1101" || arch.name == "gfx1201") mall = 64 * MiB;
      if (arch.name == "gfx1102" || arch.name == "gfx1200") mall = 32 * MiB;
    }
    if (arch.name.starts_with("gfx115")) mall = 0;  // RDNA3.5 APUs: no Infinity Cache
  }
  return std::max(mall, l2_bytes);
}

}  // namespace r4::gpu
