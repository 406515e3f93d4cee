// Sample statistics for timing: the median and a distribution-free 95% confidence interval of
// the median from order statistics (no normality assumption: GPU timings are skewed by clock
// and scheduling noise, so a mean +- t*sd interval would be too narrow on the slow side).
#pragma once

#include <span>

namespace r4::tune {

struct Summary {
  int n = 0;
  double median = 0;
  double ci_low = 0;  // 95% CI of the median
  double ci_high = 0;
  double min = 0;
  // Half-width of the CI relative to the median; +inf when n == 0.
  [[nodiscard]] double rel_half_width() const;
};

[[nodiscard]] Summary summarize(std::span<const double> samples);

}  // namespace r4::tune
