#include "tuner/gpu/resource_report.hpp"

#include <gtest/gtest.h>

namespace r4::gpu {

// Verbatim NVRTC 13.0 output for two kernels (`-Xptxas -v`, sm_90), captured 2026-11-30.
constexpr const char* kPtxasLog = R"(ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'k2' for 'sm_90'
ptxas info    : Function properties for k2
ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 10 registers, used 1 barriers, 1024 bytes smem
ptxas info    : Compile time = 6.897 ms
ptxas info    : Compiling entry function 'k' for 'sm_90'
ptxas info    : Function properties for k
ptxas         .     264 bytes stack frame, 8 bytes spill stores, 12 bytes spill loads
ptxas info    : Used 72 registers, used 0 barriers
ptxas info    : Compile time = 17.890 ms)";

TEST(ResourceReport, ParsesPtxasVerboseLog) {
  auto r = parse_ptxas_report(kPtxasLog);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r["k2"].registers, 10);
  EXPECT_EQ(r["k2"].shared_bytes, 1024);
  EXPECT_FALSE(r["k2"].spills());
  EXPECT_EQ(r["k"].registers, 72);
  EXPECT_EQ(r["k"].stack_bytes, 264);
  EXPECT_EQ(r["k"].spill_stores, 8);
  EXPECT_EQ(r["k"].spill_loads, 12);
  EXPECT_TRUE(r["k"].spills());
}

TEST(ResourceReport, EmptyOrForeignLogGivesNothing) {
  EXPECT_TRUE(parse_ptxas_report("").empty());
  EXPECT_TRUE(parse_ptxas_report("Used 10 registers").empty());
}

TEST(ResourceReport, ParsesAmdgpuRemarks) {
  auto r = parse_amdgpu_remarks(
      "remark: t.hip:1:0: Function Name: k [-Rpass-analysis=kernel-resource-usage]\n"
      "remark: t.hip:1:0:     SGPRs: 10 [-Rpass-analysis=kernel-resource-usage]\n"
      "remark: t.hip:1:0:     VGPRs: 12 [-Rpass-analysis=kernel-resource-usage]\n"
      "remark: t.hip:1:0:     VGPRs Spill: 2 [-Rpass-analysis=kernel-resource-usage]\n"
      "remark: t.hip:1:0:     ScratchSize [bytes/lane]: 16 "
      "[-Rpass-analysis=kernel-resource-usage]\n"
      "remark: t.hip:1:0:     LDS Size [bytes/block]: 512 "
      "[-Rpass-analysis=kernel-resource-usage]\n");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r["k"].registers, 12);
  EXPECT_EQ(r["k"].spill_stores, 8);
  EXPECT_EQ(r["k"].stack_bytes, 16);
  EXPECT_EQ(r["k"].shared_bytes, 512);
}

// Verbatim clang-19 remarks for gemm_w4a16_nt (4, 2, 2, 2, 1) on gfx942 (2026-11-30): SGPRs and
// the CDNA accumulation registers (AGPRs) come with VGPRs.
TEST(ResourceReport, ParsesClang19RemarksWithSgprsAndAgprs) {
  auto r = parse_amdgpu_remarks(
      "In file included from kernels/gemm_w4a16_nt.cu:190:\n"
      "gemm_w4a16_nt_mfma.h:16:1: remark: Function Name: gemm_w4a16_nt [-Rpass-analysis=kernel-resource-usage]\n"
      "gemm_w4a16_nt_mfma.h:16:1: remark:     SGPRs: 43 [-Rpass-analysis=kernel-resource-usage]\n"
      "gemm_w4a16_nt_mfma.h:16:1: remark:     VGPRs: 37 [-Rpass-analysis=kernel-resource-usage]\n"
      "gemm_w4a16_nt_mfma.h:16:1: remark:     AGPRs: 16 [-Rpass-analysis=kernel-resource-usage]\n"
      "gemm_w4a16_nt_mfma.h:16:1: remark:     ScratchSize [bytes/lane]: 0 [-Rpass-analysis=kernel-resource-usage]\n"
      "gemm_w4a16_nt_mfma.h:16:1: remark:     Dynamic Stack: False [-Rpass-analysis=kernel-resource-usage]\n"
      "gemm_w4a16_nt_mfma.h:16:1: remark:     Occupancy [waves/SIMD]: 8 [-Rpass-analysis=kernel-resource-usage]\n"
      "gemm_w4a16_nt_mfma.h:16:1: remark:     SGPRs Spill: 0 [-Rpass-analysis=kernel-resource-usage]\n"
      "gemm_w4a16_nt_mfma.h:16:1: remark:     VGPRs Spill: 0 [-Rpass-analysis=kernel-resource-usage]\n"
      "gemm_w4a16_nt_mfma.h:16:1: remark:     LDS Size [bytes/block]: 4 [-Rpass-analysis=kernel-resource-usage]\n");
  ASSERT_EQ(r.size(), 1u);
  const auto& k = r["gemm_w4a16_nt"];
  EXPECT_EQ(k.registers, 37);
  EXPECT_EQ(k.sgprs, 43);
  EXPECT_EQ(k.agprs, 16);
  EXPECT_EQ(k.stack_bytes, 0);
  EXPECT_EQ(k.shared_bytes, 4);
  EXPECT_FALSE(k.spills());
}

TEST(ResourceReport, AmdgpuMetadataScanSurvivesGarbage) {
  std::vector<std::byte> junk(4096);
  for (size_t i = 0; i < junk.size(); ++i) junk[i] = static_cast<std::byte>((i * 131) ^ 0xa5);
  EXPECT_NO_THROW((void)parse_amdgpu_metadata(junk));
  EXPECT_TRUE(parse_amdgpu_metadata({}).empty());
}

}  // namespace r4::gpu
