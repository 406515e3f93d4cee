#include "tuner/tune/stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace r4::tune {

double Summary::rel_half_width() const {
  if (n == 0 || median <= 0) return std::numeric_limits<double>::infinity();
  return 0.5 * (ci_high - ci_low) / median;
}

Summary summarize(std::span<const double> samples) {
  Summary s;
  s.n = static_cast<int>(samples.size());
  if (samples.empty()) return s;
  std::vector<double> v(samples.begin(), samples.end());
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  s.min = v.front();
  s.median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  // Ranks of the order statistics bracketing the median with >= 95% coverage (normal
  // approximation to Binomial(n, 1/2)): n/2 -+ 1.96 sqrt(n)/2, 1-based, clamped to the sample.
  const double half = 1.96 * std::sqrt(static_cast<double>(n)) / 2.0;
  const double centre = static_cast<double>(n) / 2.0;
  const auto lo = static_cast<long>(std::floor(centre - half));
  const auto hi = static_cast<long>(std::ceil(centre + half)) + 1;
  const auto clamp = [&](long r) {
    return static_cast<size_t>(std::clamp(r, 1L, static_cast<long>(n))) - 1;
  };
  s.ci_low = v[clamp(lo)];
  s.ci_high = v[clamp(hi)];
  return s;
}

}  // namespace r4::tune
