// Search logic tested on a replay backend: each entry draws from synthetic timing
// distributions (lognormal noise around a true time), no GPU involved. The sweep's device
// sampler implements the same interface.
#include "tuner/tune/race.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace r4::tune {

namespace {
class ReplaySampler final : public Sampler {
 public:
  // slice_bias[i]: a screening (slice) sample's time over the whole-pool time, per entry (the
  // device's slices and whole pool differ by a few percent, not uniformly across configs).
  ReplaySampler(std::vector<double> true_us, double noise, std::uint64_t seed,
                std::vector<double> slice_bias = {})
      : true_us_(std::move(true_us)),
        noise_(noise),
        rng_(seed),
        counts_(true_us_.size()),
        whole_(true_us_.size()),
        slice_bias_(slice_bias.empty() ? std::vector<double>(true_us_.size(), 1.0)
                                       : std::move(slice_bias)) {}
  double sample(std::size_t i, bool whole_pool) override {
    std::lognormal_distribution<double> d(0.0, noise_);
    const double v = true_us_.at(i) * d(rng_) * (whole_pool ? 1.0 : slice_bias_.at(i));
    // One screening sample = a 16-launch slice, one whole-pool sample = 64 launches.
    seconds_ += v * 1e-6 * (whole_pool ? 64 : 16);
    ++counts_[i];
    whole_[i] += whole_pool;
    return v;
  }
  double device_seconds() const override { return seconds_; }
  std::vector<int> counts() const { return counts_; }
  std::vector<int> whole() const { return whole_; }

 private:
  std::vector<double> true_us_;
  double noise_;
  std::mt19937_64 rng_;
  std::vector<int> counts_, whole_;
  std::vector<double> slice_bias_;
  double seconds_ = 0;
};
}  // namespace

TEST(Race, FindsTheFastestAndRacesOutTheClearlySlow) {
  // Candidates 0..5, baselines 6, 7.
  ReplaySampler s({30, 12, 11.5, 50, 11.9, 80, 48, 38}, 0.02, 3);
  StopSpec stop;
  stop.max_samples = 40;
  stop.max_seconds = 10;
  std::mt19937_64 rng(5);
  const auto r = race(s, 6, 2, stop, rng);
  EXPECT_EQ(r.winner, 2u);
  EXPECT_EQ(r.entries[5].status, EntryStatus::raced_out);
  EXPECT_EQ(r.entries[3].status, EntryStatus::raced_out);
  // Slow candidates stopped early: far fewer samples than the finalists.
  EXPECT_LT(r.entries[5].samples.size(), r.entries[2].samples.size() + 1);
  EXPECT_LE(r.finalists.size(), 3u);
  EXPECT_EQ(r.finalists.front(), 2u);
  // Baselines are never raced out and are re-measured with the finalists.
  EXPECT_NE(r.entries[6].status, EntryStatus::raced_out);
  EXPECT_FALSE(r.entries[7].remeasured.empty());
  EXPECT_NEAR(r.entries[7].final_summary.median, 38, 38 * 0.03);
  // Screening samples are slices; only the re-measurement times whole pools, and only the
  // finalists and baselines are re-measured.
  const auto whole = s.whole();
  for (std::size_t i = 0; i < 8; ++i) {
    const bool final = std::find(r.finalists.begin(), r.finalists.end(), i) != r.finalists.end();
    EXPECT_EQ(static_cast<std::size_t>(whole[i]), r.entries[i].remeasured.size()) << i;
    EXPECT_EQ(whole[i] > 0, final || i >= 6) << i;
  }
}

TEST(Race, TheClearlySlowLeaveAfterRaceAfterSamples) {
  ReplaySampler s({10, 10.2, 20, 40}, 0.005, 4);
  StopSpec stop;
  stop.screen_ratio = 0;  // racing alone
  stop.min_samples = 5;
  stop.race_after = 3;
  stop.max_seconds = 10;
  std::mt19937_64 rng(6);
  const auto r = race(s, 4, 0, stop, rng);
  EXPECT_EQ(r.entries[2].status, EntryStatus::raced_out);
  EXPECT_EQ(r.entries[3].status, EntryStatus::raced_out);
  EXPECT_EQ(r.entries[2].samples.size(), 3u);
  EXPECT_EQ(r.entries[3].samples.size(), 3u);
  // Converging still takes min_samples.
  EXPECT_GE(r.entries[0].samples.size(), 5u);
}

TEST(Race, TheMarginKeepsANearTieWhoseSlicesMisleadForTheWholePool) {
  // The case seen on the H200 (dflash, w4a8 5120x8704 at M=32, 2026-11-30): on slices, entry 0
  // looks 2.5% faster than entry 1; over the whole pool entry 1 is 2% faster. With no margin,
  // entry 1 is raced out on its slice samples and entry 0 wins; with the default 3% margin both
  // reach the whole-pool re-measurement, which picks entry 1.
  const std::vector<double> whole_us{10.0, 9.8, 14.0};
  const std::vector<double> bias{0.97, 1.015, 1.0};
  StopSpec stop;
  stop.max_seconds = 10;
  {
    ReplaySampler s(whole_us, 0.001, 11, bias);
    StopSpec no_margin = stop;
    no_margin.race_margin = 0;
    std::mt19937_64 rng(12);
    const auto r = race(s, 3, 0, no_margin, rng);
    EXPECT_EQ(r.entries[1].status, EntryStatus::raced_out);
    EXPECT_EQ(r.winner, 0u);
  }
  ReplaySampler s(whole_us, 0.001, 11, bias);
  std::mt19937_64 rng(12);
  const auto r = race(s, 3, 0, stop, rng);
  EXPECT_NE(r.entries[1].status, EntryStatus::raced_out);
  EXPECT_EQ(r.entries[2].status, EntryStatus::raced_out);  // 40% slower still leaves early
  EXPECT_EQ(r.winner, 1u);
}

TEST(Race, FinalistsAndBaselinesAreRemeasuredInLockstep) {
  // Entries converge at different rounds, yet all get the same number of re-measured samples,
  // so no entry is ever timed back to back with itself alone.
  ReplaySampler s({10, 30, 20}, 0.02, 8);
  StopSpec stop;
  stop.race = false;
  stop.finalists = 2;
  stop.max_samples = 25;
  stop.max_seconds = 100;
  std::mt19937_64 rng(9);
  const auto r = race(s, 2, 1, stop, rng);
  EXPECT_FALSE(r.entries[0].remeasured.empty());
  EXPECT_EQ(r.entries[0].remeasured.size(), r.entries[1].remeasured.size());
  EXPECT_EQ(r.entries[0].remeasured.size(), r.entries[2].remeasured.size());
}

TEST(Race, ScreeningDropsTheFarSlowerAfterOneSample) {
  // Candidates 0..3 in group 0, 4..5 in group 1 (compared only within their group).
  ReplaySampler s({10, 11, 13, 30, 20, 24}, 0.005, 5);
  StopSpec stop;
  stop.screen_ratio = 1.25;
  stop.max_seconds = 10;
  std::mt19937_64 rng(8);
  const auto r = race(s, 6, 0, stop, rng, {0, 0, 0, 0, 1, 1});
  EXPECT_EQ(r.entries[2].samples.size(), 1u);  // 1.3x its group's best
  EXPECT_EQ(r.entries[3].samples.size(), 1u);
  EXPECT_EQ(r.entries[3].status, EntryStatus::raced_out);
  EXPECT_GT(r.entries[1].samples.size(), 1u);  // 1.1x: left to the statistical race
  EXPECT_GT(r.entries[5].samples.size(), 1u);  // 1.2x of group 1's best
  EXPECT_EQ(r.winners[0], 0u);
  EXPECT_EQ(r.winners[1], 4u);
}

TEST(Race, WithoutRacingNothingStopsBeforeMinSamples) {
  ReplaySampler s({10, 40}, 0.0001, 4);
  StopSpec stop;
  stop.race = false;
  stop.min_samples = 6;
  stop.race_after = 3;
  std::mt19937_64 rng(7);
  const auto r = race(s, 2, 0, stop, rng);
  EXPECT_EQ(r.entries[1].status, EntryStatus::converged);
  EXPECT_EQ(r.entries[1].samples.size(), 6u);
}

TEST(Race, StopsOnNoiseNotOnACount) {
  ReplaySampler quiet({10, 20}, 0.001, 1);
  StopSpec stop;
  stop.max_samples = 200;
  std::mt19937_64 rng(1);
  const auto r = race(quiet, 2, 0, stop, rng);
  EXPECT_EQ(r.entries[0].status, EntryStatus::converged);
  EXPECT_LE(r.entries[0].samples.size(), 10u);
}

TEST(Race, NoisyEntriesHitTheCap) {
  ReplaySampler noisy({10, 10.5}, 0.5, 2);
  StopSpec stop;
  stop.race = false;
  stop.max_samples = 12;
  stop.max_seconds = 100;
  std::mt19937_64 rng(2);
  const auto r = race(noisy, 2, 0, stop, rng);
  EXPECT_EQ(r.entries[0].status, EntryStatus::capped);
  EXPECT_EQ(r.entries[0].samples.size(), 12u);
}

TEST(Race, TheTimeCapBoundsDeviceTime) {
  ReplaySampler s(std::vector<double>(50, 100.0), 0.3, 9);
  StopSpec stop;
  stop.max_samples = 1000;
  stop.max_seconds = 0.05;
  std::mt19937_64 rng(3);
  const auto r = race(s, 50, 0, stop, rng);
  // One round may overrun the cap: 50 entries x 64 launches x ~100 us = 0.32 s at most.
  EXPECT_LT(r.device_seconds, 2 * 0.32 + 0.05);
}

}  // namespace r4::tune
