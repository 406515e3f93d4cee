#include "tuner/tune/stats.hpp"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace r4::tune {

TEST(Stats, MedianAndOrderStatisticInterval) {
  const std::vector<double> v = {5, 1, 4, 2, 3};
  const auto s = summarize(v);
  EXPECT_EQ(s.n, 5);
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_LE(s.ci_low, s.median);
  EXPECT_GE(s.ci_high, s.median);
  const std::vector<double> even = {1, 2, 3, 4};
  EXPECT_DOUBLE_EQ(summarize(even).median, 2.5);
  EXPECT_TRUE(std::isinf(summarize({}).rel_half_width()));
}

TEST(Stats, IntervalCoversTheTrueMedianAboutNinetyFivePercentOfTheTime) {
  // Exponential(1) has median ln 2; 2000 experiments of 30 samples each.
  std::mt19937_64 rng(7);
  std::exponential_distribution<double> d(1.0);
  int covered = 0;
  const int trials = 2000;
  for (int t = 0; t < trials; ++t) {
    std::vector<double> v(30);
    for (auto& x : v) x = d(rng);
    const auto s = summarize(v);
    covered += s.ci_low <= std::log(2.0) && std::log(2.0) <= s.ci_high;
  }
  EXPECT_GE(covered, trials * 93 / 100);
  EXPECT_LE(covered, trials * 995 / 1000);
}

TEST(Stats, IntervalNarrowsWithMoreSamples) {
  std::mt19937_64 rng(1);
  std::normal_distribution<double> d(10.0, 0.2);
  std::vector<double> v;
  for (int i = 0; i < 10; ++i) v.push_back(d(rng));
  const double w10 = summarize(v).rel_half_width();
  for (int i = 0; i < 990; ++i) v.push_back(d(rng));
  EXPECT_LT(summarize(v).rel_half_width(), w10 / 3);
}

}  // namespace r4::tune
