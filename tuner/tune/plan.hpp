// The sweep's plan: the spec's kernels x config space x shapes x M, minus what is_valid rejects
// and what the spec's [space.<kernel>] lists leave out, plus the test-only injected faults. One
// unit per (kernel, config) to compile; it is verified and raced at every (shape, M) it is valid
// for.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "db/store.hpp"
#include "kernels/config.hpp"
#include "tuner/gpu/arch.hpp"
#include "tuner/gpu/backend.hpp"
#include "tuner/tune/spec.hpp"

namespace r4::tune {

// One planned compile unit: a kernel and a config, valid for some (shape, M) of the spec.
struct Unit {
  kernels::KernelId id;
  kernels::Config config;
  std::string injected;  // TEST ONLY: "oob" | "hang" | "wrong" (spec [test] inject), else empty
  gpu::CompileRequest request;
  // After compiling (tuner/tune/compile_stage.hpp):
  std::string key;       // the compile cache key (compile_pool.hpp compile_key)
  std::string body_key;  // what the compiler sees (compile_body_key): shared by SK 2, 4, 8
  db::Id compile_id = 0;
  bool ok = false;
  std::string binary_path;
};

struct Plan {
  std::vector<Unit> units;
  std::size_t measurements = 0;  // (unit, shape, M) triples to verify and race
  std::size_t races = 0;         // (shape, M) pairs
};

[[nodiscard]] Plan make_plan(const Spec& spec, const gpu::Arch& arch);

}  // namespace r4::tune
