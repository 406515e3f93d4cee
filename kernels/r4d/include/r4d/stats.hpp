// Miss accounting: every lookup and every refused launch is counted by reason, so a table that
// silently stopped serving a shape shows up in numbers rather than in a slow step.
#pragma once

#include <cstdint>

namespace r4d {

struct Stats {
  std::uint64_t lookups = 0;  // config_for / lookup / r4d::gemm table lookups
  std::uint64_t hits = 0;
  std::uint64_t unknown_shape = 0;    // declined: (N, K) not in the table
  std::uint64_t m_out_of_range = 0;   // declined: M outside 1..64 or above the last band
  std::uint64_t invalid_config = 0;   // declined or refused: is_valid() false
  std::uint64_t launches = 0;         // kernels enqueued
  std::uint64_t pdl_launches = 0;     // of those, enqueued with programmatic dependent launch
  std::uint64_t refused = 0;          // launcher calls that returned a non-ok Status
  std::uint64_t not_compiled = 0;     // refused: valid config not compiled into this build
  std::uint64_t not_initialised = 0;  // refused: no workspace registered for the device
  std::uint64_t pdl_unsupported = 0;  // refused: Pdl::on on a device without PDL
};

// A snapshot (relaxed atomics; consistent per counter, not across counters).
[[nodiscard]] Stats stats();
void reset_stats();

}  // namespace r4d
