// Interleaved, noise-driven measurement of several candidates plus baselines for one
// (shape, M): the core of the sweep's timing (PRIOR_ART.md "Measuring").
//  - every round takes one sample of each live entry, in a fresh random order, so drift and
//    ordering bias (triton #2306) spread over all entries and every ratio is a same-run ratio;
//  - an entry stops once its median's 95% CI half-width is within stop.rel_ci of the median, or
//    at stop.max_samples, or when the race's time cap is hit (nvbench's stdrel criterion);
//  - screening: after the first round, a candidate whose one sample is more than
//    stop.screen_ratio x its group's best first sample leaves at once (hipblaslt-bench
//    --skip_slow_solution_ratio; on the H200, 80% of the dflash space is over 1.3x the best,
//    while sample noise is ~1%);
//  - racing: a candidate whose CI lies wholly above the current best's CI is dropped, from
//    stop.race_after samples on (the same idea, made statistical);
//  - the best `finalists` are then re-measured together, interleaved with the baselines, and the
//    re-measured medians pick the winner. That phase runs in lockstep: every finalist and
//    baseline is sampled in every round until the last of them stops, so all see the same
//    neighbours.
#pragma once

#include <cstddef>
#include <random>
#include <vector>

#include "tuner/tune/spec.hpp"
#include "tuner/tune/stats.hpp"

namespace r4::tune {

// Takes one timing sample of entry i (microseconds per launch). Entries [0, n_candidates) are
// candidates, the rest baselines. `whole_pool` is false while screening (a sampler may then time
// a slice of its pool, measure/pool.hpp) and true for the finalists' re-measurement, whose
// times are the ones reported. device_seconds() is the device time spent so far (for caps).
class Sampler {
 public:
  virtual ~Sampler() = default;
  [[nodiscard]] virtual double sample(std::size_t entry, bool whole_pool) = 0;
  // One sample of each listed (distinct) entry, in that order: a round of the race. A sampler
  // that can run a round as one device submission overrides this.
  [[nodiscard]] virtual std::vector<double> sample_round(const std::vector<std::size_t>& entries,
                                                         bool whole_pool) {
    std::vector<double> out;
    out.reserve(entries.size());
    for (std::size_t e : entries) out.push_back(sample(e, whole_pool));
    return out;
  }
  [[nodiscard]] virtual double device_seconds() const = 0;
};

enum class EntryStatus { converged, capped, raced_out };

struct RaceEntry {
  std::vector<double> samples;     // the first phase
  std::vector<double> remeasured;  // the finalists' (and baselines') second phase; else empty
  EntryStatus status = EntryStatus::capped;
  Summary summary;        // of samples
  Summary final_summary;  // of remeasured (finalists and baselines), else == summary
};

struct RaceOutcome {
  std::vector<RaceEntry> entries;
  std::vector<std::size_t> finalists;  // candidate indices, best first within each group
  std::vector<std::size_t> winners;    // per group: the candidate index of its winner
  std::size_t winner = 0;              // group 0's winner
  double device_seconds = 0;
};

// Candidates may belong to groups (e.g. one per kernel, all timed in one interleaved race with
// the baselines): racing out compares a candidate with the best of its own group, each group has
// its own finalists and winner. `group` is empty (one group) or has one entry per candidate,
// numbered 0..G-1.
[[nodiscard]] RaceOutcome race(Sampler& sampler, std::size_t n_candidates, std::size_t n_baselines,
                               const StopSpec& stop, std::mt19937_64& rng,
                               const std::vector<int>& group = {});

}  // namespace r4::tune
