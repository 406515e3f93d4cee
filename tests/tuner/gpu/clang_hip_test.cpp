// The offline AMD compiler (Debian's clang-19, tuner/gpu/clang_hip.cpp): compiles without ROCm or
// a GPU, reports resources per kernel, shows the compiler's log on errors, and says how to
// install clang-19 when it is missing. scripts/setup.sh installs clang-19, so its absence fails.
#include "tuner/gpu/clang_hip.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

#include "tuner/gpu/resource_report.hpp"

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

TEST(ClangHip, CompilesForRdna3Rdna4AndCdna3WithResources) {
  auto be = make_clang_hip_backend(nullptr);
  const std::string version = be->compiler_version();
  EXPECT_NE(version.find("clang 19"), std::string::npos) << version;
  for (const char* arch : {"gfx1100", "gfx1200", "gfx1201", "gfx942"}) {
    const auto res = be->compile(request(arch, kKernels));
    ASSERT_TRUE(res.ok) << arch << ": " << res.log;
    ASSERT_EQ(res.resources.size(), 2u) << arch << "\n" << res.log;
    EXPECT_EQ(res.resources.at("k").shared_bytes, 256) << arch;
    EXPECT_GT(res.resources.at("axpy").registers, 0) << arch;
    EXPECT_GT(res.resources.at("axpy").sgprs, 0) << arch;
    EXPECT_EQ(res.resources.at("axpy").stack_bytes, 0) << arch;
    EXPECT_FALSE(res.resources.at("axpy").spills()) << arch;
    // The code object's metadata says the same as the remarks.
    const auto meta = parse_amdgpu_metadata(res.binary);
    ASSERT_EQ(meta.size(), 2u) << arch;
    EXPECT_EQ(meta.at("axpy").registers, res.resources.at("axpy").registers) << arch;
    EXPECT_EQ(meta.at("k").shared_bytes, 256) << arch;
    // The remarks' source snippets are dropped from the log; the remarks stay.
    EXPECT_NE(res.log.find("VGPRs: "), std::string::npos);
    EXPECT_EQ(res.log.find(" | "), std::string::npos) << res.log;
    // The code object is a linked AMDGPU ELF.
    ASSERT_GT(res.binary.size(), 64u);
    EXPECT_EQ(static_cast<char>(res.binary[1]), 'E');
    EXPECT_EQ(static_cast<unsigned char>(res.binary[18]), 0xE0u);  // e_machine EM_AMDGPU
  }
}

TEST(ClangHip, DisassemblyShowsTheKernels) {
  auto be = make_clang_hip_backend(nullptr);
  const auto res = be->compile(request("gfx942", kKernels));
  ASSERT_TRUE(res.ok) << res.log;
  const auto dis = disassemble_amdgpu(res.binary);
  EXPECT_NE(dis.find("elf64-amdgpu"), std::string::npos) << dis;
  EXPECT_NE(dis.find("<axpy>:"), std::string::npos) << dis;
  EXPECT_NE(dis.find("s_endpgm"), std::string::npos) << dis;
}

TEST(ClangHip, AFailedCompileReturnsTheLogWithTheSourceLine) {
  auto be = make_clang_hip_backend(nullptr);
  const auto res = be->compile(request("gfx1201", "extern \"C\" __global__ void k() { nope; }"));
  EXPECT_FALSE(res.ok);
  EXPECT_NE(res.log.find("t.hip:1:"), std::string::npos) << res.log;
  EXPECT_NE(res.log.find("use of undeclared identifier 'nope'"), std::string::npos) << res.log;
  EXPECT_NE(res.log.find("^"), std::string::npos) << res.log;  // the caret line is kept
}

TEST(ClangHip, InMemoryHeadersAndDefinesReachTheSource) {
  auto req = request("gfx1201",
                     "#include \"lib/v.h\"\nextern \"C\" __global__ void k(int* p) { p[0] = V + W; }");
  req.headers.emplace_back("lib/v.h", "#define V 3\n");
  req.defines.push_back("W=4");
  auto be = make_clang_hip_backend(nullptr);
  const auto res = be->compile(req);
  EXPECT_TRUE(res.ok) << res.log;
  req.headers[0].first = "../escape.h";
  EXPECT_FALSE(be->compile(req).ok);
}

TEST(ClangHip, RefusesAnNvidiaTarget) {
  auto be = make_clang_hip_backend(nullptr);
  EXPECT_FALSE(be->compile(request("sm_90", kKernels)).ok);
  EXPECT_EQ(be->device_count(), 0);
  EXPECT_FALSE(be->status().empty());
}

TEST(ClangHip, AMissingClangSaysHowToInstallIt) {
  ::setenv("R4TUNE_CLANG", "/nonexistent/clang++-19", 1);
  auto be = make_clang_hip_backend(nullptr);
  try {
    (void)be->compiler_version();
    FAIL() << "no error";
  } catch (const ToolMissing& e) {
    EXPECT_NE(std::string(e.what()).find("apt-get install clang-19 lld-19 llvm-19"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW((void)be->compile(request("gfx1201", kKernels)), ToolMissing);
  ::unsetenv("R4TUNE_CLANG");
}

TEST(ClangHip, MakeBackendForAnAmdArchPicksACompilerThatKnowsIt) {
  // Debian's hipRTC (ROCm 5.2) does not know gfx12; the choice falls to clang-19.
  ::setenv("R4TUNE_AMD_COMPILER", "clang", 1);
  auto be = make_backend(Arch::from("gfx1201"));
  EXPECT_NE(be->compiler_version().find("clang"), std::string::npos);
  ::unsetenv("R4TUNE_AMD_COMPILER");
  auto chosen = make_backend(Arch::from("gfx1201"));
  const auto res = chosen->compile(request("gfx1201", kKernels));
  EXPECT_TRUE(res.ok) << chosen->compiler_version() << ": " << res.log;
  ::setenv("R4TUNE_AMD_COMPILER", "nvrtc", 1);
  EXPECT_THROW((void)make_backend(Arch::from("gfx1201")), Error);
  ::unsetenv("R4TUNE_AMD_COMPILER");
}

}  // namespace
}  // namespace r4::gpu
