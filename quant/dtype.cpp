#include "quant/dtype.hpp"

#include <array>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

#include "quant/numeric.hpp"

namespace r4::quant {
namespace {

constexpr std::array<std::pair<DType, std::string_view>, 15> kNames{{
    {DType::f64, "F64"},
    {DType::f32, "F32"},
    {DType::f16, "F16"},
    {DType::bf16, "BF16"},
    {DType::f8_e4m3, "F8_E4M3"},
    {DType::f8_e5m2, "F8_E5M2"},
    {DType::i64, "I64"},
    {DType::i32, "I32"},
    {DType::i16, "I16"},
    {DType::i8, "I8"},
    {DType::u64, "U64"},
    {DType::u32, "U32"},
    {DType::u16, "U16"},
    {DType::u8, "U8"},
    {DType::boolean, "BOOL"},
}};

}  // namespace

std::string_view to_string(DType t) {
  for (const auto& [d, n] : kNames)
    if (d == t) return n;
  return "?";
}

std::optional<DType> parse_dtype(std::string_view name) {
  for (const auto& [d, n] : kNames)
    if (n == name) return d;
  return std::nullopt;
}

std::size_t dtype_size(DType t) {
  switch (t) {
    case DType::f64:
    case DType::i64:
    case DType::u64:
      return 8;
    case DType::f32:
    case DType::i32:
    case DType::u32:
      return 4;
    case DType::f16:
    case DType::bf16:
    case DType::i16:
    case DType::u16:
      return 2;
    case DType::f8_e4m3:
    case DType::f8_e5m2:
    case DType::i8:
    case DType::u8:
    case DType::boolean:
      return 1;
  }
  return 1;
}

bool is_float(DType t) {
  return t == DType::f64 || t == DType::f32 || t == DType::f16 || t == DType::bf16 ||
         t == DType::f8_e4m3;
}

void load_row_f32(const MatrixView& m, std::int64_t r, std::span<float> out) {
  const auto cols = static_cast<std::size_t>(m.cols);
  if (out.size() < cols) throw std::invalid_argument("load_row_f32: output row too short");
  const std::byte* row = m.data + static_cast<std::size_t>(r) * cols * dtype_size(m.dtype);
  switch (m.dtype) {
    case DType::f32:
      std::memcpy(out.data(), row, cols * sizeof(float));
      return;
    case DType::f64:
      for (std::size_t i = 0; i < cols; ++i) {
        double d = 0;
        std::memcpy(&d, row + 8 * i, 8);
        out[i] = static_cast<float>(d);
      }
      return;
    case DType::f16:
    case DType::bf16: {
      const bool bf = m.dtype == DType::bf16;
      for (std::size_t i = 0; i < cols; ++i) {
        std::uint16_t h = 0;
        std::memcpy(&h, row + 2 * i, 2);
        out[i] = bf ? bf16_bits_to_f32(h) : f16_bits_to_f32(h);
      }
      return;
    }
    case DType::f8_e4m3:
      for (std::size_t i = 0; i < cols; ++i)
        out[i] = e4m3_to_f32(std::to_integer<std::uint8_t>(row[i]));
      return;
    default:
      throw std::invalid_argument("load_row_f32: " + std::string(to_string(m.dtype)) +
                                  " is not a floating type");
  }
}

}  // namespace r4::quant
