// The r4tune binary on AMD targets without ROCm or a GPU: `compile` and `sweep --compile-only`
// through Debian's clang-19 (Debian's hipRTC 5.2 does not know gfx11/gfx12), the compiler named in
// the output and in the database, and the bad-input contract (README, exit codes): an unknown or
// refused arch exits 2 listing the known targets, a missing clang-19 exits 3 saying how to install
// it, a compile error exits 1 with the compiler's log.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <string>

#include "db/store.hpp"

namespace {

struct Result {
  int code = -1;
  std::string output;
};

const std::string kBin = std::string(R4_BINARY_ROOT) + "/tuner/r4tune";

Result run(const std::string& args, const std::string& env = "") {
  const std::string cmd = env + " " + kBin + " " + args + " 2>&1";
  Result r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf{};
  while (size_t n = fread(buf.data(), 1, buf.size(), p)) r.output.append(buf.data(), n);
  const int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}

std::string temp_dir() {
  std::string t = ::testing::TempDir() + "r4amdXXXXXX";
  return ::mkdtemp(t.data());
}

const char* kAxpy = "extern \"C\" __global__ void axpy(float* y, const float* x, float a, int n) {\n"
                    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                    "  if (i < n) y[i] += a * x[i];\n}\n";

TEST(CliAmd, CompileForRdna4WithClang19) {
  const auto f = write_temp("axpy_amd.cu", kAxpy);
  for (const char* arch : {"gfx1201", "gfx1100", "gfx942"}) {
    auto r = run("compile " + f + " --arch " + arch + " -q");
    EXPECT_EQ(r.code, 0) << r.output;
    EXPECT_NE(r.output.find("clang 19"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("VGPRs"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("SGPRs"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("axpy"), std::string::npos) << r.output;
  }
}

TEST(CliAmd, ACompileErrorShowsTheCompilerLog) {
  const auto f = write_temp("bad_amd.cu", "extern \"C\" __global__ void k(int* p) { p[0] = nope; }\n");
  auto r = run("compile " + f + " --arch gfx1201");
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_NE(r.output.find("does not compile for gfx1201"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("bad_amd.cu:1:"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("undeclared identifier 'nope'"), std::string::npos) << r.output;
}

TEST(CliAmd, UnknownOrRefusedArchExitsTwoListingTheKnownTargets) {
  const auto f = write_temp("axpy_amd2.cu", kAxpy);
  for (const char* arch : {"gfx950", "gfx1234"}) {
    auto r = run("compile " + f + " --arch " + arch);
    EXPECT_EQ(r.code, 2) << r.output;
    EXPECT_NE(r.output.find(arch), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("known targets:"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("gfx942"), std::string::npos) << r.output;
  }
  auto s = run("sweep " + std::string(R4_SOURCE_ROOT) +
               "/configs/test/ci.toml --compile-only --arch gfx950 --db " + temp_dir() + "/x.db");
  EXPECT_EQ(s.code, 2) << s.output;
  EXPECT_NE(s.output.find("known targets:"), std::string::npos) << s.output;
}

TEST(CliAmd, MissingClangExitsThreeSayingHowToInstallIt) {
  const auto f = write_temp("axpy_amd3.cu", kAxpy);
  const std::string env = "R4TUNE_AMD_COMPILER=clang R4TUNE_CLANG=/nonexistent/clang++-19";
  auto r = run("compile " + f + " --arch gfx1201", env);
  EXPECT_EQ(r.code, 3) << r.output;
  EXPECT_NE(r.output.find("apt-get install clang-19 lld-19 llvm-19"), std::string::npos)
      << r.output;
  auto s = run("sweep " + std::string(R4_SOURCE_ROOT) +
                   "/configs/test/ci.toml --compile-only --arch gfx1201 --db " + temp_dir() +
                   "/y.db",
               env);
  EXPECT_EQ(s.code, 3) << s.output;
  EXPECT_NE(s.output.find("apt-get install clang-19"), std::string::npos) << s.output;
}

TEST(CliAmd, SweepCompileOnlyForMi300RecordsTheCompiler) {
  const auto db = temp_dir() + "/mi300.db";
  auto r = run("sweep " + std::string(R4_SOURCE_ROOT) +
               "/configs/test/ci.toml --compile-only --arch gfx942 --plain --db " + db);
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("nothing was timed"), std::string::npos) << r.output;
  auto store = r4::db::Store::open_read_only(db);
  const auto run_row = store.resolve_run("latest");
  const auto compiles = store.compiles_for_run(run_row.id);
  ASSERT_GT(compiles.size(), 0u);
  for (const auto& c : compiles) {
    EXPECT_EQ(c.arch, "gfx942");
    EXPECT_NE(c.compiler_version.find("clang 19"), std::string::npos) << c.compiler_version;
    EXPECT_EQ(c.status, r4::db::CompileStatus::ok) << c.kernel << "\n" << c.log;
    EXPECT_GT(c.registers.value_or(0), 0);
    EXPECT_EQ(c.spill_bytes, 0);
    EXPECT_EQ(c.stack_bytes, 0);
  }
  // Again: everything comes from the compile cache, keyed with the compiler.
  auto again = run("sweep " + std::string(R4_SOURCE_ROOT) +
                   "/configs/test/ci.toml --compile-only --arch gfx942 --plain --db " + db);
  ASSERT_EQ(again.code, 0) << again.output;
  EXPECT_NE(again.output.find(std::to_string(compiles.size()) + " from cache"), std::string::npos)
      << again.output;
}

}  // namespace
