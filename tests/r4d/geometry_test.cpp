// r4d launches with its own copy of the family's launch geometry (grid, block, dynamic shared
// memory) and workspace size (so that it needs neither the GPU layer nor fmt); this pins the copy
// to kernels/family.hpp for every config the family accepts on sm_90, both kernel generations,
// over the seeds' shapes and M = 1..64. (Shared memory was missing from the copy until the H200
// run of 2026-11-30 showed every r4d launch faulting.) Also: the sm90a shared memory r4d opts
// into at registration is what every launch of that config asks for, and all of it fits the
// 227 KiB opt-in; and r4d's act_order is the family's for every w4a8 config.
#include <gtest/gtest.h>

#include "kernels/config.hpp"
#include "kernels/family.hpp"
#include "kernels/r4d/src/detail.hpp"
#include "r4d/launch.hpp"

namespace {

namespace rk = r4::kernels;

TEST(R4dGeometry, MatchesFamilyLaunchDimsAndWorkspace) {
  const auto arch = r4::gpu::Arch::from("sm_90");
  const auto sm80 = r4::gpu::Arch::from("sm_80");
  const std::pair<int, int> shapes[] = {{3072, 5120}, {5120, 2048}, {17408, 5120},
                                        {5120, 8704}, {1280, 5120}, {256, 5120}};
  int checked = 0, checked_sm90a = 0;
  for (auto id : {rk::KernelId::gemm_w4a16_nt, rk::KernelId::gemm_w4a8_nt})
    for (const auto& kc : rk::config_space(id, arch))
      for (const auto& [n, k] : shapes)
        for (int m = 1; m <= 64; ++m) {
          const rk::Shape s{n, k, m};
          if (!rk::is_valid(id, kc, arch, s)) continue;
          const r4d::Config c{kc.wv, kc.sk, kc.mb, kc.npw, kc.nt, kc.gen, kc.st};
          ASSERT_EQ(r4d::detail::to_kernels(c), kc);
          const auto want = rk::launch_dims(id, kc, arch, s);
          const auto got = r4d::detail::gemm_dims(id, c, m, n, k, /*clusters=*/true);
          ASSERT_EQ(got.gx, want.grid.x);
          ASSERT_EQ(got.gy, want.grid.y);
          ASSERT_EQ(got.gz, want.grid.z);
          ASSERT_EQ(got.block, want.block.x);
          ASSERT_EQ(got.shared, want.shared_bytes);
          ASSERT_EQ(want.cluster.x, 1u);
          ASSERT_EQ(got.cluster_y, want.cluster.y);
          ASSERT_EQ(want.cluster.z, 1u);
          ASSERT_EQ(got.cluster_y > 1, kc.sk > 1 && rk::splitk_cluster(id, kc, arch));
          ASSERT_EQ(got.cluster_shared, want.cluster_shared);
          // Without clusters (a device or image without them) the same launch, minus the
          // cluster and the ldg generation's tile.
          const auto plain = r4d::detail::gemm_dims(id, c, m, n, k, /*clusters=*/false);
          ASSERT_EQ(plain.cluster_y, 1u);
          ASSERT_EQ(plain.gy, got.gy);
          if (kc.gen != rk::kGenLdg) {
            ASSERT_EQ(plain.shared, got.shared);
          }
          ASSERT_EQ(r4d::detail::workspace_bytes(c, m, n, k), rk::workspace_bytes(id, kc, s));
          // The int8 activations' order r4d asks quant_act for is the one the tuner timed.
          if (id == rk::KernelId::gemm_w4a8_nt) {
            ASSERT_EQ(static_cast<int>(r4d::act_order(r4d::Dtype::w4a8, c)),
                      static_cast<int>(rk::act_order(id, kc)));
          }
          // What config_for checks (a mma_sync or ldg config on sm_80 and sm_90, an sm90a one on
          // sm_90) accepts every config valid on sm_90; the sm90a generation is not valid on sm_80.
          ASSERT_TRUE(r4d::detail::valid_for_build(id, c, s));
          ASSERT_EQ(rk::is_valid(id, kc, sm80, s), kc.gen != rk::kGenSm90a);
          ASSERT_EQ(plain.cluster_shared, 0u);
          if (kc.gen == rk::kGenLdg) {
            ASSERT_EQ(plain.shared, 0u);
            ASSERT_EQ(got.shared, got.cluster_shared);
            // The cluster tile fits the 48 KiB a kernel gets without opting in (r4d opts in
            // only the sm90a generation).
            ASSERT_LE(got.shared, 48u * 1024u);
          }
          if (kc.gen == rk::kGenSm90a) {
            ASSERT_EQ(got.block, static_cast<unsigned>(kc.wv * 32 + 128));
            ASSERT_EQ(got.shared, r4d::detail::sm90a_opt_in_bytes(id, c));
            ASSERT_LE(got.shared, static_cast<unsigned>(rk::kSm90aSharedLimit));
            ++checked_sm90a;
          }
          ++checked;
        }
  EXPECT_GT(checked, 1000);
  EXPECT_GT(checked_sm90a, 1000);
  const auto qa = rk::launch_dims(rk::KernelId::quant_act, {}, arch, rk::Shape{5120, 5120, 7});
  EXPECT_EQ(qa.block.x, r4d::detail::kQuantActThreads);
  EXPECT_EQ(qa.grid.x, 7u);
}

}  // namespace
