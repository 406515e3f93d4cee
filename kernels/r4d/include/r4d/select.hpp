// The seeds' capability query: `select("gemm_nt", M, K, N, dtype)` names the kernel this build
// launches for that problem class, or none. It answers "is there a kernel", not "is there a
// config": the shape's table rows are config_for's business (the seed asks select for
// N=K=5120, a shape its table does not carry).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace r4d {

// op "gemm_nt": dtype "w4a16" -> "gemm_w4a16_nt", "w4a8" -> "gemm_w4a8_nt", when this build has
// kernels of that dtype, 1 <= M <= GEMM_W4_MAX_M, N a positive multiple of 16 and K of 128.
// op "quant_act": dtype "bf16" -> "quant_act" when built, K a positive multiple of 8 (M and N
// are not consulted; pass 0). Anything else: std::nullopt.
[[nodiscard]] std::optional<std::string_view> select(std::string_view op, std::int64_t m,
                                                     std::int64_t k, std::int64_t n,
                                                     std::string_view dtype);

}  // namespace r4d
