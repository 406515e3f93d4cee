// What an AMD device is, from what the HIP runtime reports (hipDeviceProp_t): the compile target
// from gcnArchName and the last-level cache. Plain functions over plain values, so they are
// unit-tested on machines without an AMD GPU (tests/tuner/gpu/amd_device_test.cpp); the HIP
// backend calls them (backend_hip.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "tuner/gpu/arch.hpp"

namespace r4::gpu {

// "gfx942:sramecc+:xnack-" -> gfx942 (the target is the part before the first ':'); nullopt when
// that part is not an arch spelling.
[[nodiscard]] std::optional<Arch> amd_arch_from_gcn_name(std::string_view gcn_arch_name);

// The last-level cache a measurement pool must exceed: the Infinity Cache (MALL) where the part
// has one, which HIP does not report (ROCm 5.x/6.x hipDeviceProp_t has no field for it), else L2.
//   gfx942 (MI300X, MI300A, MI325X): 256 MiB Infinity Cache (AMD CDNA3 white paper).
//   gfx11 / gfx12 (RDNA3 / RDNA4): 16 MiB per 64-bit memory channel (7900 XTX 384-bit 96 MiB,
//     7800 XT 256-bit 64 MiB, 7600 128-bit 32 MiB, RX 9070 XT 256-bit 64 MiB, 9060 XT 128-bit
//     32 MiB); when the bus width is not reported, the largest part of the arch.
//   gfx90a (MI200) and anything else: L2.
// Never less than L2.
[[nodiscard]] std::int64_t amd_llc_bytes(const Arch& arch, int memory_bus_bits,
                                         std::int64_t l2_bytes);

}  // namespace r4::gpu
