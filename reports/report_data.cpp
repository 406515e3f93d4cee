#include "reports/report_data.hpp"

#include <algorithm>

#include <fmt/core.h>

namespace r4::report {

ReportData load_report_data(const db::Store& store, db::Id run_id) {
  ReportData d;
  d.run = store.run(run_id);
  d.device = store.run_device(d.run);
  d.measurements = store.measurements(run_id);
  d.baselines = store.baselines(run_id);
  d.winners = store.winners(run_id, db::OnInvalid::flag);
  d.compiles = store.compiles_for_run(run_id);
  d.floors = store.floors(run_id);
  d.steps = store.steps(run_id);
  for (const auto& b : d.baselines)
    if (b.kind == db::BaselineKind::streaming_ceiling && b.gbps) d.ceiling_gbps = b.gbps;
  for (const auto& sn : store.shape_names(run_id)) d.shapes.push_back({sn.n, sn.k, sn.name});
  for (const auto& m : d.measurements)
    if (std::none_of(d.shapes.begin(), d.shapes.end(),
                     [&](const ReportShape& s) { return s.n == m.n && s.k == m.k; }))
      d.shapes.push_back({m.n, m.k, store.shape_name(run_id, m.n, m.k)});
  return d;
}

const db::BaselineRow* ReportData::baseline(db::BaselineKind kind, std::int64_t n, std::int64_t k,
                                            int m) const {
  for (const auto& b : baselines)
    if (b.kind == kind && b.n == n && b.k == k && b.m == m) return &b;
  return nullptr;
}

const db::MeasurementRow* ReportData::measurement(db::Id id) const {
  for (const auto& m : measurements)
    if (m.id == id) return &m;
  return nullptr;
}

const db::WinnerRow* ReportData::winner_for(const db::MeasurementRow& m) const {
  for (const auto& w : winners)
    if (w.kernel == m.kernel && w.dtype == m.dtype && w.n == m.n && w.k == m.k &&
        w.m_measured == m.m && w.config == m.config)
      return &w;
  return nullptr;
}

const db::FloorRow* ReportData::launch_floor() const {
  for (const auto& f : floors)
    if (f.kind == db::FloorKind::launch) return &f;
  return nullptr;
}

const db::FloorRow* ReportData::read_floor(std::int64_t n, std::int64_t k) const {
  const std::int64_t bytes = db::w4_weight_bytes(n, k);
  for (const auto& f : floors)
    if (f.kind == db::FloorKind::read && f.n == n && f.k == k && f.bytes == bytes) return &f;
  return nullptr;
}

std::optional<double> ReportData::floor_us(std::int64_t n, std::int64_t k) const {
  const auto* f = read_floor(n, k);
  return f ? std::optional<double>(f->median_us) : std::nullopt;
}

std::optional<double> ReportData::x_floor(std::optional<double> median_us, std::int64_t n,
                                          std::int64_t k) const {
  const auto f = floor_us(n, k);
  if (!median_us || !f) return std::nullopt;
  return *median_us / *f;
}

std::string ReportData::shape_name(std::int64_t n, std::int64_t k) const {
  for (const auto& s : shapes)
    if (s.n == n && s.k == k) return s.name;
  return fmt::format("{}x{}", n, k);
}

}  // namespace r4::report
