// A small line-plot writer producing inline SVG (no scripts, no fonts to fetch): axes with "nice"
// ticks, axis labels, a title, an optional horizontal reference line and a legend. Output depends
// only on the input, so reports stay byte-stable.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace r4::report {

struct Series {
  std::string label;
  std::string color;  // any SVG colour, e.g. "#1f77b4"
  bool dashed = false;
  std::vector<std::pair<double, double>> points;  // (x, y), drawn in the given order
};

struct Plot {
  std::string title;
  std::string x_label;
  std::string y_label;
  int width = 600;
  int height = 340;
  std::vector<Series> series;
  std::optional<double> y_reference;  // e.g. 1.0 on a speedup plot
  std::string y_reference_label;
  bool y_from_zero = true;
  std::vector<double> x_ticks;  // empty: automatic
};

[[nodiscard]] std::string svg_line_plot(const Plot& p);

// The palette the report uses, colour-blind safe (Okabe-Ito), indexed modulo its size.
[[nodiscard]] std::string palette(std::size_t i);

// Ticks covering [lo, hi] at a 1-2-5 step, about `count` of them.
[[nodiscard]] std::vector<double> nice_ticks(double lo, double hi, int count = 5);

}  // namespace r4::report
