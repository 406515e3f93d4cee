// Shared by the end-to-end sweep tests that run the real r4tune binary against the replay worker
// (sweep_scale_test.cpp, sweep_mpi_test.cpp): the binaries, a shell runner, a tiny spec (8
// configs, 4 races) and counts read back.
#pragma once

#include <stdlib.h>
#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <tuple>

#include <gtest/gtest.h>

#include "db/store.hpp"

namespace r4::sweep_test {

inline const std::string kBin = std::string(R4_BINARY_ROOT) + "/tuner/r4tune";
inline const std::string kWorker = std::string(R4_BINARY_ROOT) + "/tests/tuner/replay_worker";

struct Run {
  int code = -1;
  std::string out;
};

// Runs `cmd` in sh, stdout and stderr together.
inline Run sh(const std::string& cmd) {
  Run r;
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, p)) r.out.append(buf, n);
  const int st = pclose(p);
  r.code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  return r;
}

inline std::string temp_dir() {
  std::string t = ::testing::TempDir() + "r4scaleXXXXXX";
  return ::mkdtemp(t.data());
}

// One kernel, two shapes, two bands, 8 configs: four races, about a second of replay.
inline std::string tiny_spec(const std::string& dir) {
  const std::string path = dir + "/tiny.toml";
  std::ofstream(path) << R"(name = "tiny"
kernels = ["gemm_w4a16_nt"]
baselines = ["bf16", "fp8_block"]
shapes = [
  { name = "hidden_projection", n = 256, k = 5120 },
  { name = "qkv_proj", n = 3072, k = 5120 },
]
[bands]
limits = [8, 16]
[space.gemm_w4a16_nt]
WV = [4]
SK = [1, 2]
NT = [1]
NPW = [1]
[stop]
min_samples = 5
max_samples = 15
max_seconds = 0.5
)";
  return path;
}

// `r4tune sweep SPEC --db DB` with the replay worker, plain progress.
inline std::string sweep(const std::string& spec, const std::string& db,
                         const std::string& extra = "") {
  return kBin + " sweep " + spec + " --db " + db + " --plain --worker " + kWorker +
         " --verify-timeout-ms 5000 " + extra;
}

inline db::RunCounts counts(const std::string& db, db::Id run) {
  auto s = db::Store::open_read_only(db);
  return s.counts(run);
}

// Each race stored exactly once: per (N, K, M), one baseline of each kind and the reference's
// number of measurements.
inline std::map<std::tuple<std::int64_t, std::int64_t, int>, int> measurements_per_race(
    const db::Store& s, db::Id run) {
  std::map<std::tuple<std::int64_t, std::int64_t, int>, int> out;
  for (const auto& m : s.measurements(run)) ++out[{m.n, m.k, m.m}];
  return out;
}

inline void expect_same_counts(const db::RunCounts& got, const db::RunCounts& want) {
  EXPECT_EQ(got.measurements, want.measurements);
  EXPECT_EQ(got.checks, want.checks);
  EXPECT_EQ(got.winners, want.winners);
  EXPECT_EQ(got.baselines, want.baselines);
  EXPECT_EQ(got.compiles, want.compiles);
}

}  // namespace r4::sweep_test
