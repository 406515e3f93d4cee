// Packed 4-bit weight layouts: the contract between quant/ (CPU packer) and kernels/ (GPU
// readers). Each named layout is defined once, in quant/layout/<name>.h, a header that both the
// packer and the kernel source include (it compiles as host C++ and under NVRTC/hipRTC).
//
// Common to every layout (DESIGN.md "Packed weight"):
//   - codes are 4-bit two's complement in -8..7 (symmetric, no stored zero point);
//   - one scale dword per (16 rows, 128-K group): low half the f16 scale, high half the f16 of
//     -(1024 + 8), the constant that turns the f16 kernel's 1024+n magic into the signed value;
//   - wq has N*K/8 dwords, wsz has (N/16) * (K/group) * 16 dwords.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace r4::quant {

enum class Layout {
  gfx12,  // AMD WMMA B-fragment order; equals the seed's pack() bit for bit
  sm80,   // NVIDIA mma.sync m16n8k16 / m16n8k32 fragment order (quant/layout/sm80.h)
  gfx942,  // AMD CDNA3 MFMA (wave64) B-operand order (quant/layout/gfx942.h)
};

[[nodiscard]] std::string_view to_string(Layout l);
[[nodiscard]] std::optional<Layout> parse_layout(std::string_view name);

struct Packed {
  std::vector<std::uint32_t> wq;   // N*K/8
  std::vector<std::uint32_t> wsz;  // (N/16) * (K/group) * 16
};

// q: int8 [N, K] codes in -8..7, row-major; scale: f32 [N, K/group] (rounded to f16 on packing).
// Throws std::invalid_argument when N % 16 != 0, K % group != 0, or a layout's own constraint
// fails (the message names it).
[[nodiscard]] Packed pack(Layout layout, std::span<const std::int8_t> q,
                          std::span<const float> scale, std::int64_t n, std::int64_t k,
                          int group = 128);

// The per-layout packers behind pack(); each lives in quant/pack_<layout>.cpp.
[[nodiscard]] Packed pack_gfx12(std::span<const std::int8_t> q, std::span<const float> scale,
                                std::int64_t n, std::int64_t k, int group);
[[nodiscard]] Packed pack_sm80(std::span<const std::int8_t> q, std::span<const float> scale,
                               std::int64_t n, std::int64_t k, int group);
[[nodiscard]] Packed pack_gfx942(std::span<const std::int8_t> q, std::span<const float> scale,
                                 std::int64_t n, std::int64_t k, int group);

// Inverse of pack() (codes and f16-rounded scales), for property tests and the CPU reference.
void unpack(Layout layout, const Packed& p, std::int64_t n, std::int64_t k, int group,
            std::span<std::int8_t> q_out, std::span<float> scale_out);
void unpack_gfx12(const Packed& p, std::int64_t n, std::int64_t k, int group,
                  std::span<std::int8_t> q_out, std::span<float> scale_out);
void unpack_sm80(const Packed& p, std::int64_t n, std::int64_t k, int group,
                 std::span<std::int8_t> q_out, std::span<float> scale_out);
void unpack_gfx942(const Packed& p, std::int64_t n, std::int64_t k, int group,
                   std::span<std::int8_t> q_out, std::span<float> scale_out);

}  // namespace r4::quant
