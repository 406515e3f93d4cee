// How many independent copies of a problem's buffers make every launch read from DRAM
// (DESIGN.md "Measurement"): the pool must be several times the last-level cache, so that by the
// time a copy comes round again it has been evicted. cubecl #1621 measured the same 21 MB weight
// at 124 GB/s cold and over 400 GB/s warm: a single buffer measures the cache.
#pragma once

#include <algorithm>
#include <cstdint>

namespace r4::measure {

// bytes_per_copy: weight + scales + activations + output of one call. Returns >= 2 copies.
[[nodiscard]] inline int pool_copies(std::int64_t bytes_per_copy, std::int64_t llc_bytes,
                                     double llc_factor, std::int64_t max_bytes) {
  if (bytes_per_copy <= 0) return 2;
  const double want =
      llc_factor * static_cast<double>(llc_bytes) / static_cast<double>(bytes_per_copy);
  std::int64_t n = static_cast<std::int64_t>(want) + 1;
  n = std::min<std::int64_t>(n, std::max<std::int64_t>(2, max_bytes / bytes_per_copy));
  return static_cast<int>(std::clamp<std::int64_t>(n, 2, 100000));
}

}  // namespace r4::measure
