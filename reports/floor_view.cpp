#include "reports/floor_view.hpp"

#include <map>

namespace r4::report {

std::vector<XFloorSeries> x_floor_series(const ReportData& d) {
  std::vector<XFloorSeries> out;
  for (const auto& s : d.shapes) {
    const auto floor = d.floor_us(s.n, s.k);
    if (!floor) continue;
    std::map<int, XFloorPoint> by_m;
    for (const auto& w : d.winners) {
      if (w.n != s.n || w.k != s.k || !w.problem.empty()) continue;
      auto& p = by_m[w.m_measured];
      if (!p.winner || w.median_us < p.best_us)
        p = {w.m_measured, w.median_us, *floor, w.median_us / *floor, w.kernel, true};
    }
    for (const auto& m : d.measurements) {
      if (m.n != s.n || m.k != s.k || m.status != db::MeasurementStatus::ok || !m.median_us)
        continue;
      auto [it, fresh] = by_m.try_emplace(m.m);
      auto& p = it->second;
      if (p.winner) continue;
      if (fresh || *m.median_us < p.best_us)
        p = {m.m, *m.median_us, *floor, *m.median_us / *floor, m.kernel, false};
    }
    XFloorSeries series{s, {}};
    for (auto& [m, p] : by_m) series.points.push_back(std::move(p));
    if (!series.points.empty()) out.push_back(std::move(series));
  }
  return out;
}

}  // namespace r4::report
