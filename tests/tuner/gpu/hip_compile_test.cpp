// hipRTC compiles need no GPU. Debian 12's ROCm 5.2 hipRTC compiles gfx1030, gfx90a and gfx908
// here; it aborts (inside comgr) on gfx11/gfx12 targets and on any failed compile, which the
// backend turns into ok=false through a forked compile (seen 2026-11-30).
#include <gtest/gtest.h>

#include "tuner/gpu/backend.hpp"

namespace r4::gpu {

namespace {
CompileRequest request(const std::string& arch, std::string source) {
  CompileRequest req;
  req.source = std::move(source);
  req.source_name = "t.hip";
  req.arch = Arch::from(arch);
  return req;
}
constexpr const char* kKernels = R"(
extern "C" __global__ void k(float* a) {
  __shared__ float s[64];
  s[threadIdx.x] = a[0];
  __syncthreads();
  a[threadIdx.x] *= s[3];
}
extern "C" __global__ void axpy(float* y, const float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += a * x[i];
})";
}  // namespace

TEST(HipCompile, CompilesForRdna2AndCdna2AndReadsResourcesFromTheCodeObject) {
  auto be = make_hip_backend();
  ASSERT_TRUE(be);
  for (const char* arch : {"gfx1030", "gfx90a"}) {
    const auto res = be->compile(request(arch, kKernels));
    ASSERT_TRUE(res.ok) << arch << ": " << res.log;
    ASSERT_EQ(res.resources.size(), 2u) << arch;
    EXPECT_EQ(res.resources.at("k").shared_bytes, 256) << arch;
    EXPECT_GT(res.resources.at("axpy").registers, 0) << arch;
  }
}

TEST(HipCompile, AFailedCompileIsReportedNotACrash) {
  auto be = make_hip_backend();
  ASSERT_TRUE(be);
  const auto res = be->compile(request("gfx1030", "extern \"C\" __global__ void k() { nope; }"));
  EXPECT_FALSE(res.ok);
  EXPECT_FALSE(res.log.empty());
}

TEST(HipCompile, RefusesAnNvidiaTarget) {
  auto be = make_hip_backend();
  ASSERT_TRUE(be);
  const auto res = be->compile(request("sm_90", kKernels));
  EXPECT_FALSE(res.ok);
}

}  // namespace r4::gpu
