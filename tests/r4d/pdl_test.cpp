// How the Pdl launch option resolves (r4d/pdl.hpp), without a GPU: the rule that decides whether
// a device can use PDL (its compute capability and the kernel image's PTX version), what each
// option does with it, and that a device with no workspace registered reports no PDL. The GPU half
// (the rule applied to the real device, refusals, the pdl_launches counter, and a captured chain
// bit-identical with and without PDL) is tests/r4d/graph_gpu_test.cpp.
#include <gtest/gtest.h>

#include "kernels/r4d/src/detail.hpp"
#include "r4d/r4d.hpp"

namespace {

using r4d::Pdl;
using r4d::detail::pdl_capable;
using r4d::detail::PdlUse;
using r4d::detail::resolve_pdl;

TEST(R4dPdl, CapableOnlyFromComputeCapability90WithACompute90Image) {
  // The default build (80;90): an H200 runs the sm_90 image (compute_90); an A100 and an L40S
  // (8.9) have no PDL; a later device JIT-compiles the compute_90 PTX, which has griddepcontrol.
  EXPECT_TRUE(pdl_capable(9, 0, 90));
  EXPECT_FALSE(pdl_capable(8, 0, 80));
  EXPECT_FALSE(pdl_capable(8, 9, 80));
  EXPECT_TRUE(pdl_capable(10, 0, 90));
  EXPECT_TRUE(pdl_capable(12, 0, 120));
  // Built for sm_80 alone: an H200 runs the compute_80 PTX, where r4_pdl_wait is a no-op, so PDL
  // would let a kernel read activations the previous one is still writing.
  EXPECT_FALSE(pdl_capable(9, 0, 80));
  EXPECT_FALSE(pdl_capable(10, 0, 80));
  // The runtime could not say (0): no PDL.
  EXPECT_FALSE(pdl_capable(9, 0, 0));
  static_assert(pdl_capable(9, 0, 90) && !pdl_capable(8, 6, 86));  // constexpr
}

TEST(R4dPdl, OptionResolvesAsDocumented) {
  // automatic: PDL where supported, plain elsewhere (the default of every launcher).
  EXPECT_EQ(resolve_pdl(Pdl::automatic, true), PdlUse::pdl);
  EXPECT_EQ(resolve_pdl(Pdl::automatic, false), PdlUse::plain);
  // off: always plain.
  EXPECT_EQ(resolve_pdl(Pdl::off, true), PdlUse::plain);
  EXPECT_EQ(resolve_pdl(Pdl::off, false), PdlUse::plain);
  // on: PDL, or a refusal (Status::pdl_unsupported) where the device has none.
  EXPECT_EQ(resolve_pdl(Pdl::on, true), PdlUse::pdl);
  EXPECT_EQ(resolve_pdl(Pdl::on, false), PdlUse::refuse);
  EXPECT_EQ(r4d::to_string(Pdl::automatic), "automatic");
  EXPECT_EQ(r4d::to_string(Pdl::off), "off");
  EXPECT_EQ(r4d::to_string(Pdl::on), "on");
  EXPECT_NE(r4d::to_string(r4d::Status::pdl_unsupported).find("PDL"), std::string_view::npos);
}

TEST(R4dPdl, UnregisteredDeviceHasNoPdl) {
  // Nothing registered in this process (and out-of-range devices never are).
  for (int d : {-1, 0, 1, 63, 64, 1000}) {
    EXPECT_FALSE(r4d::pdl_supported(d)) << d;
    for (Pdl p : {Pdl::automatic, Pdl::off, Pdl::on}) EXPECT_FALSE(r4d::uses_pdl(p, d)) << d;
  }
}

TEST(R4dPdl, LaunchersTakeTheOptionLastAndDefaultToAutomatic) {
  // Source compatibility: the seeds' argument order still compiles without the option.
  r4d::reset_stats();
  const auto plain =
      r4d::gemm_w4a16_nt(nullptr, nullptr, nullptr, nullptr, 8, 5120, 3072, 1, 4, 1, 1, 1, nullptr);
  const auto on = r4d::gemm_w4a16_nt(nullptr, nullptr, nullptr, nullptr, 8, 5120, 3072, 1, 4, 1, 1,
                                     1, nullptr, Pdl::on);
  // Nothing registered (or no kernels): both refuse before the option matters.
  EXPECT_EQ(plain, on);
  EXPECT_TRUE(on == r4d::Status::not_initialised || on == r4d::Status::no_kernels);
  EXPECT_EQ(r4d::stats().pdl_launches, 0u);
  EXPECT_EQ(r4d::stats().pdl_unsupported, 0u);
}

}  // namespace
