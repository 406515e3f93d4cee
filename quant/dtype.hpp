// Element types of checkpoint tensors, named as safetensors names them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace r4::quant {

enum class DType {
  f64,
  f32,
  f16,
  bf16,
  f8_e4m3,
  f8_e5m2,
  i64,
  i32,
  i16,
  i8,
  u64,
  u32,
  u16,
  u8,
  boolean,
};

[[nodiscard]] std::string_view to_string(DType t);  // "F32", "BF16", "F8_E4M3", ...
[[nodiscard]] std::optional<DType> parse_dtype(std::string_view name);
[[nodiscard]] std::size_t dtype_size(DType t);  // bytes per element
// Floating types a weight can be read from as f32 (F8 needs its scale: see fp8.hpp).
[[nodiscard]] bool is_float(DType t);

// A row-major 2-D view of raw little-endian bytes of one dtype (possibly unaligned).
struct MatrixView {
  const std::byte* data = nullptr;
  DType dtype = DType::f32;
  std::int64_t rows = 0;
  std::int64_t cols = 0;
};

// Row r of m as f32 (exact for F32/F16/BF16/F64-in-range; F8_E4M3 raw, unscaled).
// Throws std::invalid_argument for integer dtypes.
void load_row_f32(const MatrixView& m, std::int64_t r, std::span<float> out);

}  // namespace r4::quant
