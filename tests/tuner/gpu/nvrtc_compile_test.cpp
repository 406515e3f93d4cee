// NVRTC compiles need no GPU: these run everywhere, CI included.
#include <gtest/gtest.h>

#include "tuner/gpu/backend.hpp"

namespace r4::gpu {

namespace {
constexpr const char* kAxpy = R"(
#include "lib/scale.h"
extern "C" __global__ void axpy(float* y, const float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = scale(a, x[i]) + y[i];
})";

CompileRequest axpy_request(const std::string& arch) {
  CompileRequest req;
  req.source = kAxpy;
  req.source_name = "axpy.cu";
  req.arch = Arch::from(arch);
  req.headers = {
      {"lib/scale.h", "__device__ inline float scale(float a, float x) { return a * x; }"}};
  return req;
}
}  // namespace

TEST(NvrtcCompile, CompilesForSm90WithInMemoryHeadersAndReportsResources) {
  auto be = make_cuda_backend();
  const auto res = be->compile(axpy_request("sm_90"));
  ASSERT_TRUE(res.ok) << res.log;
  EXPECT_GT(res.binary.size(), 100u);
  ASSERT_TRUE(res.resources.count("axpy")) << res.log;
  EXPECT_GT(res.resources.at("axpy").registers, 0);
  EXPECT_FALSE(res.resources.at("axpy").spills());
  EXPECT_NE(be->compiler_version().find("nvrtc"), std::string::npos);
}

TEST(NvrtcCompile, CompilesForSm80AndDefinesReachTheSource) {
  auto be = make_cuda_backend();
  auto req = axpy_request("sm_80");
  req.source = "#if !defined(WV) || WV != 4\n#error WV not passed\n#endif\n" + req.source;
  req.defines = {"WV=4"};
  const auto res = be->compile(req);
  ASSERT_TRUE(res.ok) << res.log;
}

TEST(NvrtcCompile, BadSourceFailsWithTheCompilerLog) {
  auto be = make_cuda_backend();
  CompileRequest req;
  req.source = "extern \"C\" __global__ void k() { this is not cuda; }";
  req.source_name = "broken.cu";
  req.arch = Arch::from("sm_90");
  const auto res = be->compile(req);
  EXPECT_FALSE(res.ok);
  EXPECT_TRUE(res.binary.empty());
  EXPECT_NE(res.log.find("broken.cu"), std::string::npos) << res.log;
  EXPECT_NE(res.log.find("error"), std::string::npos) << res.log;
}

TEST(NvrtcCompile, MissingHeaderFailsCleanly) {
  auto be = make_cuda_backend();
  auto req = axpy_request("sm_90");
  req.headers.clear();
  const auto res = be->compile(req);
  EXPECT_FALSE(res.ok);
  EXPECT_NE(res.log.find("lib/scale.h"), std::string::npos) << res.log;
}

TEST(NvrtcCompile, RefusesAnAmdTarget) {
  auto be = make_cuda_backend();
  auto req = axpy_request("sm_90");
  req.arch = Arch::from("gfx1201");
  const auto res = be->compile(req);
  EXPECT_FALSE(res.ok);
  EXPECT_NE(res.log.find("gfx1201"), std::string::npos);
}

TEST(NvrtcCompile, SpillsAreReported) {
  // A per-thread array indexed at run time lands in local memory: the report must show it.
  auto be = make_cuda_backend();
  CompileRequest req;
  req.source = R"(extern "C" __global__ void k(float* a, int j) {
    float x[256];
    for (int i = 0; i < 256; ++i) x[i] = a[i * (threadIdx.x + 1)];
    a[threadIdx.x] = x[j & 255];
  })";
  req.source_name = "local.cu";
  req.arch = Arch::from("sm_90");
  const auto res = be->compile(req);
  ASSERT_TRUE(res.ok) << res.log;
  EXPECT_GT(res.resources.at("k").stack_bytes, 0) << res.log;
}

}  // namespace r4::gpu
