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

// Screening a few hundred candidates per (shape, M) with a replay of the whole pool per sample
// costs most of a sweep (the H200 dflash run of 2026-11-30: ~47 s of its 130 s measuring went to
// full-pool samples and ~46 s to full-pool warm-ups). A screening sample therefore replays one
// slice of the pool, the slices taken in turn from one cursor shared by every entry of the race,
// so between two uses of a copy the other slices are read: (slices - 1) x slice_len copies, which
// is at least half the pool when slices >= 2, i.e. >= llc_factor / 2 x the LLC (2x by default).
// A slice holds at least `min_launches` launches (or the whole pool), so that the graph's fixed
// launch cost stays small per launch. Finalists and baselines are still timed over the whole pool.
struct PoolSlices {
  int copies = 0;     // the pool, rounded up to slices x slice_len (never smaller than asked)
  int slices = 1;     // 1: every sample replays the whole pool
  int slice_len = 0;  // launches per screening sample
};

[[nodiscard]] inline PoolSlices slice_pool(int copies, int max_slices = 4, int min_launches = 8) {
  PoolSlices p;
  copies = std::max(copies, 1);
  max_slices = std::max(max_slices, 1);
  p.slice_len = std::max((copies + max_slices - 1) / max_slices, std::min(copies, min_launches));
  p.slices = (copies + p.slice_len - 1) / p.slice_len;
  p.copies = p.slices * p.slice_len;
  return p;
}

}  // namespace r4::measure
