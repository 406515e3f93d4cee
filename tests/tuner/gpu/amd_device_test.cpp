// What r4tune makes of an AMD device's properties, without one: the arch from gcnArchName, the
// last-level cache (Infinity Cache) per part, and the measurement pool that follows from it.
#include "tuner/gpu/amd_device.hpp"

#include <gtest/gtest.h>

#include "tuner/measure/pool.hpp"

namespace r4::gpu {
namespace {

constexpr std::int64_t MiB = std::int64_t{1} << 20;

TEST(AmdDevice, ArchFromGcnArchName) {
  const auto mi300 = amd_arch_from_gcn_name("gfx942:sramecc+:xnack-");
  ASSERT_TRUE(mi300);
  EXPECT_EQ(mi300->name, "gfx942");
  EXPECT_EQ(wave_size(*mi300), 64);
  EXPECT_TRUE(has_mfma_gfx942(*mi300));
  EXPECT_FALSE(has_wmma_gfx12(*mi300));
  EXPECT_EQ(amd_arch_from_gcn_name("gfx1201")->name, "gfx1201");
  EXPECT_EQ(amd_arch_from_gcn_name("gfx1100:xnack-")->major, 11);
  EXPECT_FALSE(amd_arch_from_gcn_name("sm_90"));
  EXPECT_FALSE(amd_arch_from_gcn_name(""));
  EXPECT_FALSE(amd_arch_from_gcn_name(":sramecc+"));
}

TEST(AmdDevice, InfinityCachePerPart) {
  // MI300X as ROCm reports it: 304 CUs, 4 MiB L2, an 8192-bit HBM3 bus.
  const auto gfx942 = Arch::from("gfx942");
  EXPECT_EQ(amd_llc_bytes(gfx942, 8192, 4 * MiB), 256 * MiB);
  // RX 9070 XT (256-bit), RX 9060 XT (128-bit), RX 7900 XTX (384-bit), 7900 XT (320-bit).
  EXPECT_EQ(amd_llc_bytes(Arch::from("gfx1201"), 256, 8 * MiB), 64 * MiB);
  EXPECT_EQ(amd_llc_bytes(Arch::from("gfx1200"), 128, 4 * MiB), 32 * MiB);
  EXPECT_EQ(amd_llc_bytes(Arch::from("gfx1100"), 384, 6 * MiB), 96 * MiB);
  EXPECT_EQ(amd_llc_bytes(Arch::from("gfx1100"), 320, 6 * MiB), 80 * MiB);
  // No bus width reported: the largest part of the arch.
  EXPECT_EQ(amd_llc_bytes(Arch::from("gfx1201"), 0, 8 * MiB), 64 * MiB);
  // MI200 has no Infinity Cache; APUs neither: L2.
  EXPECT_EQ(amd_llc_bytes(Arch::from("gfx90a"), 4096, 8 * MiB), 8 * MiB);
  EXPECT_EQ(amd_llc_bytes(Arch::from("gfx1150"), 128, 2 * MiB), 2 * MiB);
}

TEST(AmdDevice, PoolOnAnMi300CoversFourTimesTheInfinityCache) {
  // gate_up (N 17408, K 5120) at M = 64: weights + scales + f16 activations + bf16 output.
  const std::int64_t n = 17408, k = 5120, m = 64;
  const std::int64_t per_copy = n * k / 2 + n * k / 128 * 4 + m * k * 2 + m * n * 2;
  const auto llc = amd_llc_bytes(Arch::from("gfx942"), 8192, 4 * MiB);
  const int copies = measure::pool_copies(per_copy, llc, 4.0, std::int64_t{32} << 30);
  EXPECT_GE(copies * per_copy, 4 * llc);
  EXPECT_LT((copies - 1) * per_copy, 4 * llc);
  EXPECT_EQ(copies, 22);  // 1 GiB / 50.2 MB per copy, rounded down, + 1
  // The smallest dflash shape needs many more copies (hidden_projection: 256 x 5120).
  const std::int64_t small = 256 * 5120 / 2 + 256 * 5120 / 128 * 4 + m * 5120 * 2 + m * 256 * 2;
  EXPECT_EQ(measure::pool_copies(small, llc, 4.0, std::int64_t{32} << 30),
            static_cast<int>(4 * llc / small) + 1);
}

}  // namespace
}  // namespace r4::gpu
