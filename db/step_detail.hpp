// The `detail` of a steps row (schema v2): which kernel ran at each position of the chain. The
// sweep writes it with step_detail_json and the reports read it back with parse_step_detail, so
// the JSON has one definition:
//
//   {"chain": [{"shape": "qkv_proj", "n": 3072, "k": 5120, "kernel": "gemm_w4a16_nt",
//               "dtype": "w4a16", "generation": "mma_sync", "config": [1, 4, 1, 1, 0],
//               "algo": ""}, ...],
//    "error": ""}
//
// `generation` is the kernel generation's name (db::generation_name: "mma_sync", "sm90a");
// `config` holds the generation's knobs in its own order (the seeds' (WV, SK, MB, NPW, NT) for
// mma_sync, ST appended for sm90a); `algo` names a vendor baseline's algorithm; `error` is the
// reason a step failed ("" when it ran). Keys may be missing on read; a detail that is not JSON at
// all is read as a failure reason in plain text.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace r4::db {

struct StepLink {
  std::string shape;  // the spec's shape name
  std::int64_t n = 0, k = 0;
  std::string kernel;      // e.g. "gemm_w4a16_nt", "cublaslt_bf16", "read_floor"
  std::string dtype;       // e.g. "w4a16", "bf16"
  std::string generation;  // the kernel generation, "mma_sync" or "sm90a"; "" for vendor libraries
  std::vector<int> config;
  std::string algo;
};

struct StepDetail {
  std::vector<StepLink> chain;
  std::string error;
};

// Compact JSON, keys in the order above; stable bytes for the same input.
[[nodiscard]] std::string step_detail_json(const StepDetail& d);
// Never throws: a detail that is not a JSON object comes back as {chain = {}, error = text}.
[[nodiscard]] StepDetail parse_step_detail(std::string_view text);

}  // namespace r4::db
