#include "reports/svg_plot.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include <fmt/core.h>

#include "reports/html.hpp"

namespace r4::report {

std::string palette(std::size_t i) {
  static constexpr std::array<const char*, 8> kColors = {
      "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442"};
  return kColors[i % kColors.size()];
}

std::vector<double> nice_ticks(double lo, double hi, int count) {
  if (!(hi > lo)) hi = lo + 1;
  const double raw = (hi - lo) / std::max(1, count);
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double f : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (f * mag >= raw) {
      step = f * mag;
      break;
    }
  std::vector<double> t;
  for (double v = std::floor(lo / step) * step; v <= hi + step * 1e-9; v += step)
    t.push_back(std::abs(v) < step * 1e-9 ? 0.0 : v);
  if (t.empty() || t.back() < hi) t.push_back(t.empty() ? hi : t.back() + step);
  return t;
}

namespace {

std::string num(double v) {
  // Tick labels: as few digits as the value needs.
  if (std::abs(v - std::round(v)) < 1e-9)
    return fmt::format("{}", static_cast<long long>(std::round(v)));
  return fmt::format("{:.3g}", v);
}

}  // namespace

std::string svg_line_plot(const Plot& p) {
  double xmin = 1e300, xmax = -1e300, ymin = 1e300, ymax = -1e300;
  for (const auto& s : p.series)
    for (auto [x, y] : s.points) {
      xmin = std::min(xmin, x);
      xmax = std::max(xmax, x);
      ymin = std::min(ymin, y);
      ymax = std::max(ymax, y);
    }
  if (xmin > xmax) xmin = 0, xmax = 1, ymin = 0, ymax = 1;
  if (p.y_reference) {
    ymin = std::min(ymin, *p.y_reference);
    ymax = std::max(ymax, *p.y_reference);
  }
  if (p.y_from_zero) ymin = std::min(0.0, ymin);
  const auto yt = nice_ticks(ymin, ymax, 5);
  const auto xt = p.x_ticks.empty() ? nice_ticks(xmin, xmax, 6) : p.x_ticks;
  const double x0 = std::min(xt.front(), xmin), x1 = std::max(xt.back(), xmax);
  const double y0 = yt.front(), y1 = yt.back();

  const double legend_w = 190;
  const double left = 62, right = legend_w + 16, top = 34, bottom = 48;
  const double pw = p.width - left - right, ph = p.height - top - bottom;
  auto sx = [&](double x) { return left + (x1 > x0 ? (x - x0) / (x1 - x0) : 0.5) * pw; };
  auto sy = [&](double y) { return top + ph - (y1 > y0 ? (y - y0) / (y1 - y0) : 0.5) * ph; };

  std::string o = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"plot\" width=\"{}\" height=\"{}\" "
      "viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"{}\" font-family=\"sans-serif\" "
      "font-size=\"11\">\n",
      p.width, p.height, p.width, p.height, html_escape(p.title));
  o += fmt::format("<rect width=\"{}\" height=\"{}\" fill=\"#ffffff\"/>\n", p.width, p.height);
  o += fmt::format(
      "<text x=\"{:.1f}\" y=\"18\" text-anchor=\"middle\" font-size=\"13\" "
      "font-weight=\"bold\">{}</text>\n",
      left + pw / 2, html_escape(p.title));
  // Grid and ticks.
  for (double v : yt) {
    o += fmt::format(
        "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#e3e3e3\"/>"
        "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n",
        left, sy(v), left + pw, sy(v), left - 6, sy(v) + 4, num(v));
  }
  for (double v : xt) {
    o += fmt::format(
        "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#e3e3e3\"/>"
        "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n",
        sx(v), top, sx(v), top + ph, sx(v), top + ph + 16, num(v));
  }
  o += fmt::format(
      "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"none\" "
      "stroke=\"#444\"/>\n",
      left, top, pw, ph);
  o += fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", left + pw / 2,
                   p.height - 10, html_escape(p.x_label));
  o += fmt::format(
      "<text x=\"14\" y=\"{:.1f}\" text-anchor=\"middle\" transform=\"rotate(-90 14 {:.1f})\">{}"
      "</text>\n",
      top + ph / 2, top + ph / 2, html_escape(p.y_label));
  if (p.y_reference) {
    o += fmt::format(
        "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#888\" "
        "stroke-dasharray=\"2 3\"/><text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\" "
        "fill=\"#666\">{}</text>\n",
        left, sy(*p.y_reference), left + pw, sy(*p.y_reference), left + pw - 4,
        sy(*p.y_reference) - 4, html_escape(p.y_reference_label));
  }
  // Series.
  for (const auto& s : p.series) {
    if (s.points.empty()) continue;
    std::string pts;
    for (auto [x, y] : s.points) pts += fmt::format("{:.1f},{:.1f} ", sx(x), sy(y));
    pts.pop_back();
    o += fmt::format("<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"2\"{} points=\"{}\"/>\n",
                     s.color, s.dashed ? " stroke-dasharray=\"6 4\"" : "", pts);
    if (s.points.size() <= 12)
      for (auto [x, y] : s.points)
        o += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\" fill=\"{}\"/>\n", sx(x),
                         sy(y), s.color);
  }
  // Legend.
  const double lx = left + pw + 14;
  double ly = top + 4;
  for (const auto& s : p.series) {
    o += fmt::format(
        "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" "
        "stroke-width=\"2\"{}/><text x=\"{:.1f}\" y=\"{:.1f}\">{}</text>\n",
        lx, ly, lx + 22, ly, s.color, s.dashed ? " stroke-dasharray=\"6 4\"" : "", lx + 28, ly + 4,
        html_escape(s.label));
    ly += 16;
  }
  o += "</svg>\n";
  return o;
}

}  // namespace r4::report
