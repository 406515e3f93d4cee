#include "reports/report_data.hpp"

namespace r4::report {

ReportData load_report_data(const db::Store& store, db::Id run_id) {
  ReportData d;
  d.run = store.run(run_id);
  d.device = store.run_device(d.run);
  d.measurements = store.measurements(run_id);
  d.baselines = store.baselines(run_id);
  d.winners = store.winners(run_id, db::OnInvalid::flag);
  d.compiles = store.compiles_for_run(run_id);
  for (const auto& b : d.baselines)
    if (b.kind == db::BaselineKind::streaming_ceiling && b.gbps) d.ceiling_gbps = b.gbps;
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

}  // namespace r4::report
