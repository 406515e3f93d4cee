// The r4tune binary's contract: exit codes and one clear message for bad input, never a crash.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <string>

namespace {

struct Result {
  int code = -1;
  std::string output;
};

Result run(const std::string& args) {
  const std::string cmd = std::string(R4_BINARY_ROOT) + "/tuner/r4tune " + args + " 2>&1";
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

}  // namespace

TEST(Cli, VersionAndHelp) {
  auto v = run("--version");
  EXPECT_EQ(v.code, 0);
  EXPECT_NE(v.output.find("r4tune "), std::string::npos);
  auto h = run("--help");
  EXPECT_EQ(h.code, 0);
  EXPECT_NE(h.output.find("devices"), std::string::npos);
  EXPECT_EQ(run("devices --help").code, 0);
  EXPECT_EQ(run("compile --help").code, 0);
}

TEST(Cli, UnknownCommandOrOptionIsAUsageError) {
  auto r = run("frobnicate");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("unknown command 'frobnicate'"), std::string::npos) << r.output;
  r = run("devices --bogus");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("--bogus"), std::string::npos) << r.output;
  EXPECT_EQ(run("").code, 2);
}

TEST(Cli, DevicesExitsZeroWithOrWithoutAGpu) {
  auto r = run("devices");
  EXPECT_EQ(r.code, 0) << r.output;
  auto j = run("devices --json");
  EXPECT_EQ(j.code, 0);
  EXPECT_NE(j.output.find("\"devices\""), std::string::npos);
}

TEST(Cli, CompilePrintsRegistersAndSpills) {
  const auto f = write_temp("ok.cu", "extern \"C\" __global__ void k(float* a) { a[0] = 1; }\n");
  auto r = run("compile " + f + " --arch sm_90");
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("registers"), std::string::npos);
  EXPECT_NE(r.output.find("spill"), std::string::npos);
}

TEST(Cli, CompileBadInputs) {
  const auto ok = write_temp("ok2.cu", "extern \"C\" __global__ void k() {}\n");
  auto r = run("compile " + ok + " --arch sm_12");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("unknown or unsupported arch 'sm_12'"), std::string::npos);
  r = run("compile /nonexistent/x.cu --arch sm_90");
  EXPECT_EQ(r.code, 3) << r.output;
  EXPECT_NE(r.output.find("cannot read"), std::string::npos);
  r = run("compile " + ok);
  EXPECT_EQ(r.code, 2) << r.output;  // --arch is required
  const auto bad = write_temp("bad.cu", "garbage {\n");
  r = run("compile " + bad + " --arch sm_90");
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_NE(r.output.find("does not compile"), std::string::npos);
  EXPECT_NE(r.output.find("error"), std::string::npos);  // the compiler log is shown
}

TEST(Cli, CompileForAnAmdTargetThatTheCompilerCannotHandleFailsCleanly) {
  const auto ok = write_temp("ok3.hip", "extern \"C\" __global__ void k() {}\n");
  auto r = run("compile " + ok + " --arch gfx1201");
  EXPECT_TRUE(r.code == 0 || r.code == 1) << r.output;  // 1 with Debian's ROCm 5.2
  EXPECT_LT(r.code, 128) << "crashed: " << r.output;
}

// A bad [step] is bad input (exit 3) found before anything runs: no database is created, no
// worker started, no compile.
TEST(Cli, SweepRefusesABadStepBeforeAnythingRuns) {
  const std::string head =
      "name = \"t\"\nkernels = [\"gemm_w4a16_nt\"]\nbands = { limits = [16] }\n";
  const std::string shapes = "shapes = [{ name = \"qkv\", n = 3072, k = 5120 }]\n";
  struct Case {
    const char* file;
    std::string text;
    const char* message;
  };
  const Case cases[] = {
      {"step_unknown.toml", head + shapes + "[step]\norder = [\"qkv\", \"o_proj\"]\n",
       "step.order[1]: unknown shape 'o_proj' (this spec's shapes: qkv)"},
      {"step_empty.toml", head + shapes + "[step]\norder = []\n", "step.order is empty"},
      {"step_no_shapes.toml", head + "[step]\norder = [\"qkv\"]\n",
       "[step] chains the spec's shapes, but this spec has none"},
  };
  for (const auto& c : cases) {
    const auto spec = write_temp(c.file, c.text);
    const std::string db = ::testing::TempDir() + std::string(c.file) + ".db";
    std::remove(db.c_str());
    auto r = run("sweep " + spec + " --db " + db + " --plain");
    EXPECT_EQ(r.code, 3) << c.file << ": " << r.output;
    EXPECT_NE(r.output.find(c.message), std::string::npos) << c.file << ": " << r.output;
    EXPECT_NE(r.output.find(c.file), std::string::npos) << r.output;  // names the spec
    std::ifstream probe(db);
    EXPECT_FALSE(probe.good()) << c.file << ": the sweep created " << db;
  }
}
