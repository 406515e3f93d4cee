#include "tuner/tune/race.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace r4::tune {

namespace {

// One phase: sample `ids` interleaved until each converges or caps. `out(i)` is where entry i's
// samples go. Candidates listed in `raceable` may be raced out.
void run_phase(Sampler& sampler, const std::vector<std::size_t>& ids,
               const std::vector<bool>& raceable, const std::vector<int>& grp, const StopSpec& stop,
               std::mt19937_64& rng, std::vector<std::vector<double>*>& out,
               std::vector<EntryStatus>& status, double time_cap_s, bool whole_pool,
               bool lockstep) {
  std::vector<bool> live(ids.size(), true);
  const double t0 = sampler.device_seconds();
  for (int round = 0;; ++round) {
    // Lockstep: every entry is sampled in every round until all are decided, so each sample has
    // the same neighbours (other entries' pools) whatever its own stopping point. Without it the
    // last entry left runs back to back with itself and measured 3-4% faster on the H200
    // (2026-11-30: 11.25 against 11.65 us, same config, same run), which moved a winner's time
    // between runs by more than the 2% the acceptance allows.
    std::vector<std::size_t> order;
    for (std::size_t j = 0; j < ids.size(); ++j)
      if (live[j]) order.push_back(j);
    if (order.empty()) return;
    if (lockstep) {
      order.clear();
      for (std::size_t j = 0; j < ids.size(); ++j) order.push_back(j);
    }
    std::shuffle(order.begin(), order.end(), rng);
    std::vector<std::size_t> which;
    for (std::size_t j : order) which.push_back(ids[j]);
    const auto got = sampler.sample_round(which, whole_pool);
    for (std::size_t x = 0; x < order.size(); ++x) out[order[x]]->push_back(got.at(x));

    if (round == 0 && stop.race && stop.screen_ratio > 0) {
      // Screening on the first sample: far slower than the group's best leaves now.
      std::vector<double> best;
      for (std::size_t j = 0; j < ids.size(); ++j) {
        if (!raceable[j] || out[j]->empty()) continue;
        const auto g = static_cast<std::size_t>(grp[j]);
        if (best.size() <= g) best.resize(g + 1, std::numeric_limits<double>::infinity());
        best[g] = std::min(best[g], out[j]->front());
      }
      for (std::size_t j = 0; j < ids.size(); ++j) {
        const auto g = static_cast<std::size_t>(grp[j]);
        if (raceable[j] && live[j] && g < best.size() &&
            out[j]->front() > stop.screen_ratio * best[g]) {
          status[j] = EntryStatus::raced_out;
          live[j] = false;
        }
      }
    }

    const bool over_time = sampler.device_seconds() - t0 > time_cap_s;
    // No decision before race_after samples (racing) or min_samples (stopping), unless out of time.
    const int first_decision =
        stop.race ? std::min(stop.race_after, stop.min_samples) : stop.min_samples;
    if (round + 1 < first_decision && !over_time) continue;
    std::vector<Summary> sum(ids.size());
    for (std::size_t j = 0; j < ids.size(); ++j) sum[j] = summarize(*out[j]);
    // Per group, the best raceable candidate (live or finished) by upper CI bound.
    std::vector<double> best_hi;
    for (std::size_t j = 0; j < ids.size(); ++j) {
      if (!raceable[j] || status[j] == EntryStatus::raced_out) continue;
      const auto g = static_cast<std::size_t>(grp[j]);
      if (best_hi.size() <= g) best_hi.resize(g + 1, std::numeric_limits<double>::infinity());
      best_hi[g] = std::min(best_hi[g], sum[j].ci_high);
    }
    for (std::size_t j = 0; j < ids.size(); ++j) {
      if (!live[j]) continue;
      const auto g = static_cast<std::size_t>(grp[j]);
      // The margin: screening samples time slices of the pool, and a config's slice time is not
      // its whole-pool time (finalists' whole-pool / screening medians spread 0.94..1.03 in a
      // dflash run, H200 2026-11-30), while a 3-sample "CI" is the sample's min..max (75%
      // coverage). Without it, that run raced out a config 1.6% faster than its winner.
      if (stop.race && raceable[j] && g < best_hi.size() &&
          sum[j].ci_low > best_hi[g] * (1.0 + stop.race_margin)) {
        status[j] = EntryStatus::raced_out;
        live[j] = false;
      } else if (static_cast<int>(out[j]->size()) >= stop.min_samples &&
                 sum[j].rel_half_width() <= stop.rel_ci) {
        status[j] = EntryStatus::converged;
        live[j] = false;
      } else if (static_cast<int>(out[j]->size()) >= stop.max_samples || over_time) {
        status[j] = EntryStatus::capped;
        live[j] = false;
      }
    }
  }
}

}  // namespace

RaceOutcome race(Sampler& sampler, std::size_t n_candidates, std::size_t n_baselines,
                 const StopSpec& stop, std::mt19937_64& rng, const std::vector<int>& group_in) {
  if (n_candidates == 0) throw std::invalid_argument("race: no candidates");
  const std::size_t n = n_candidates + n_baselines;
  std::vector<int> group = group_in.empty() ? std::vector<int>(n_candidates, 0) : group_in;
  if (group.size() != n_candidates) throw std::invalid_argument("race: one group per candidate");
  const int n_groups = *std::max_element(group.begin(), group.end()) + 1;
  group.resize(n, -1);  // baselines belong to no group
  RaceOutcome r;
  r.entries.resize(n);
  const double t0 = sampler.device_seconds();

  // Phase 1: everyone, candidates raceable. The time cap leaves a quarter for the finalists.
  {
    std::vector<std::size_t> ids(n);
    std::iota(ids.begin(), ids.end(), 0);
    std::vector<bool> raceable(n);
    for (std::size_t i = 0; i < n; ++i) raceable[i] = i < n_candidates;
    std::vector<std::vector<double>*> out(n);
    for (std::size_t i = 0; i < n; ++i) out[i] = &r.entries[i].samples;
    std::vector<EntryStatus> status(n, EntryStatus::capped);
    run_phase(sampler, ids, raceable, group, stop, rng, out, status, 0.75 * stop.max_seconds, false,
              false);
    for (std::size_t i = 0; i < n; ++i) {
      r.entries[i].status = status[i];
      r.entries[i].summary = summarize(r.entries[i].samples);
      r.entries[i].final_summary = r.entries[i].summary;
    }
  }

  // Finalists: per group, the best medians among candidates not raced out.
  std::vector<std::size_t> alive;
  for (int g = 0; g < n_groups; ++g) {
    std::vector<std::size_t> in_group;
    for (std::size_t i = 0; i < n_candidates; ++i)
      if (group[i] == g && r.entries[i].status != EntryStatus::raced_out) in_group.push_back(i);
    std::sort(in_group.begin(), in_group.end(), [&](std::size_t a, std::size_t b) {
      return r.entries[a].summary.median < r.entries[b].summary.median;
    });
    in_group.resize(
        std::min<std::size_t>(in_group.size(), static_cast<std::size_t>(stop.finalists)));
    alive.insert(alive.end(), in_group.begin(), in_group.end());
  }
  r.finalists = alive;

  // Phase 2: finalists and baselines again, interleaved, nobody raced out.
  {
    std::vector<std::size_t> ids = alive;
    for (std::size_t b = n_candidates; b < n; ++b) ids.push_back(b);
    std::vector<bool> raceable(ids.size(), false);
    std::vector<int> grp(ids.size(), -1);
    std::vector<std::vector<double>*> out(ids.size());
    for (std::size_t j = 0; j < ids.size(); ++j) out[j] = &r.entries[ids[j]].remeasured;
    std::vector<EntryStatus> status(ids.size(), EntryStatus::capped);
    StopSpec second = stop;
    second.race = false;
    run_phase(sampler, ids, raceable, grp, second, rng, out, status,
              std::max(0.25 * stop.max_seconds, 1e-9), true, true);
    for (std::size_t id : ids) r.entries[id].final_summary = summarize(r.entries[id].remeasured);
  }
  const auto by_final = [&](std::size_t a, std::size_t b) {
    return r.entries[a].final_summary.median < r.entries[b].final_summary.median;
  };
  r.winners.assign(static_cast<std::size_t>(n_groups), n_candidates);  // n_candidates: no winner
  for (std::size_t i : alive) {
    auto& w = r.winners[static_cast<std::size_t>(group[i])];
    if (w == n_candidates || by_final(i, w)) w = i;
  }
  r.winner = r.winners[0];
  std::stable_sort(r.finalists.begin(), r.finalists.end(), [&](std::size_t a, std::size_t b) {
    return group[a] != group[b] ? group[a] < group[b] : by_final(a, b);
  });
  r.device_seconds = sampler.device_seconds() - t0;
  return r;
}

}  // namespace r4::tune
