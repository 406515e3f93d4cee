// How far the run's best 4-bit times are from the physical limit: per shape and measured M, the
// best 4-bit time over the shape's read floor ("x floor"). What the report's x-floor plot draws.
#pragma once

#include <string>
#include <vector>

#include "reports/report_data.hpp"

namespace r4::report {

struct XFloorPoint {
  int m = 0;
  double best_us = 0;   // the best 4-bit time at this M
  double floor_us = 0;  // the shape's read floor
  double x = 0;         // best_us / floor_us
  std::string kernel;   // whose time it is
  bool winner = false;  // a winner's re-measured median, else the best ok measurement
};

struct XFloorSeries {
  ReportShape shape;
  std::vector<XFloorPoint> points;  // ascending M
};

// One series per shape that has a read floor, in d.shapes order. At each M the best time is the
// fastest winner measured there (winners are re-measured over the whole pool), else the fastest
// ok measurement (at M that choose no winner, e.g. bands.extra_m). Empty without floors.
[[nodiscard]] std::vector<XFloorSeries> x_floor_series(const ReportData& d);

}  // namespace r4::report
