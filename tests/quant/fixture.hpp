// Test helpers: fixture paths, typed copies of fixture tensors, and hash_weights(), the C++ twin
// of make_fixtures.py's deterministic input generator (same splitmix64, same bits).
#pragma once

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "quant/safetensors.hpp"

namespace r4::quant::test {

inline std::filesystem::path fixture_path(const std::string& name) {
  return std::filesystem::path(R4_SOURCE_ROOT) / "tests" / "quant" / "fixtures" / name;
}

template <class T>
std::vector<T> values(const TensorInfo& t) {
  std::vector<T> v(t.bytes.size() / sizeof(T));
  if (!v.empty()) std::memcpy(v.data(), t.bytes.data(), v.size() * sizeof(T));
  return v;
}

// splitmix64(seed * 2^32 + i); four 16-bit fields summed, minus 131070, over 2^shift.
inline std::vector<float> hash_weights(std::int64_t n, std::int64_t k, std::uint64_t seed,
                                       int shift = 15) {
  std::vector<float> w(static_cast<std::size_t>(n * k));
  for (std::size_t i = 0; i < w.size(); ++i) {
    std::uint64_t z = (seed << 32) + i + 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    std::int64_t s = 0;
    for (int f = 0; f < 4; ++f) s += static_cast<std::int64_t>((z >> (16 * f)) & 0xFFFFU);
    w[i] = static_cast<float>(static_cast<double>(s - 131070) /
                              static_cast<double>(std::int64_t{1} << shift));
  }
  return w;
}

}  // namespace r4::quant::test
