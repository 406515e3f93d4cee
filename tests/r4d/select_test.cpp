// select(): the seeds' capability query. It names a kernel for a problem class this build can
// launch; a shape's table rows are config_for's business (the seed asks for N = K = 5120).
#include <gtest/gtest.h>

#include "r4d/r4d.hpp"

namespace {

TEST(R4dSelect, SeedQueries) {
  if (!r4d::has_kernels()) {
    EXPECT_FALSE(r4d::select("gemm_nt", 64, 5120, 5120, "w4a16"));
    GTEST_SKIP() << "built without kernels: select answers none for every kernel";
  }
  EXPECT_EQ(r4d::select("gemm_nt", 64, 5120, 5120, "w4a16"), "gemm_w4a16_nt");
  const bool a8 = !r4d::compiled_configs(r4d::Dtype::w4a8).empty();
  if (a8) {
    EXPECT_EQ(r4d::select("gemm_nt", 64, 5120, 5120, "w4a8"), "gemm_w4a8_nt");
  }
  EXPECT_EQ(r4d::select("quant_act", 0, 5120, 0, "bf16"), "quant_act");
}

TEST(R4dSelect, DeclinesOutsideTheFamily) {
  EXPECT_FALSE(r4d::select("gemm_nt", 0, 5120, 5120, "w4a16"));
  EXPECT_FALSE(r4d::select("gemm_nt", 65, 5120, 5120, "w4a16"));
  EXPECT_FALSE(r4d::select("gemm_nt", 8, 5000, 5120, "w4a16"));  // K % 128
  EXPECT_FALSE(r4d::select("gemm_nt", 8, 5120, 5128, "w4a16"));  // N % 16
  EXPECT_FALSE(r4d::select("gemm_nt", 8, 5120, 5120, "fp8"));
  EXPECT_FALSE(r4d::select("gemm_tn", 8, 5120, 5120, "w4a16"));
  EXPECT_FALSE(r4d::select("quant_act", 0, 5121, 0, "bf16"));
  EXPECT_FALSE(r4d::select("quant_act", 0, 5120, 0, "f16"));
}

TEST(R4dSelect, Constants) {
  EXPECT_EQ(r4d::GEMM_W4_GROUP, 128);
  EXPECT_EQ(r4d::GEMM_W4_MAX_M, 64);
  EXPECT_EQ(r4d::GEMM_W4A8_GROUP, 128);
}

}  // namespace
