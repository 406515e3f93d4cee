// The HTML report's x-floor plot: every shape's best 4-bit time over its read floor against M.
#include <set>

#include "reports/floor_view.hpp"
#include "reports/report_html_parts.hpp"
#include "reports/svg_plot.hpp"

namespace r4::report {

std::string html_x_floor_plot(const ReportData& d) {
  const auto series = x_floor_series(d);
  if (series.empty()) return {};
  Plot p;
  p.title = "Best 4-bit time over the read floor vs M";
  p.x_label = "M (rows)";
  p.y_label = "× read floor";
  // Linear from zero: the values sit between ~1.5x and ~7x, where a log axis buys nothing and a
  // zero-based axis shows the distance to 1x (the floor) in proportion.
  p.y_reference = 1.0;
  p.y_reference_label = "1× (read floor)";
  std::set<int> ms;
  std::size_t i = 0;
  for (const auto& sr : series) {
    Series s{sr.shape.name, palette(i++), false, {}};
    for (const auto& pt : sr.points) {
      s.points.emplace_back(pt.m, pt.x);
      ms.insert(pt.m);
    }
    p.series.push_back(std::move(s));
  }
  p.x_ticks.assign(ms.begin(), ms.end());
  if (p.x_ticks.size() > 8) p.x_ticks.clear();  // automatic ticks when every M was measured
  return "<div id=\"x-floor\">\n<div class=\"plots\">\n" + svg_line_plot(p) +
         "</div>\n<p class=\"muted\">At each M: the fastest 4-bit winner measured there (else the "
         "fastest "
         "timed config) divided by the shape's read floor, a kernel that only streams the shape's "
         "packed weight and scale bytes once, launch and tail included, measured in this run.</p>\n"
         "</div>\n";
}

}  // namespace r4::report
