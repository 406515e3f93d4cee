// What both report writers look up per (kernel, shape, M): the run's measurements, baselines and
// winners, indexed once.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "db/store.hpp"

namespace r4::report {

struct ReportData {
  db::RunRow run;
  std::optional<db::DeviceRow> device;
  std::vector<db::MeasurementRow> measurements;
  std::vector<db::BaselineRow> baselines;
  std::vector<db::WinnerRow> winners;  // flagged, not rejected: the report shows bad rows
  std::vector<db::CompileRow> compiles;
  std::optional<double> ceiling_gbps;

  [[nodiscard]] const db::BaselineRow* baseline(db::BaselineKind kind, std::int64_t n,
                                                std::int64_t k, int m) const;
  [[nodiscard]] const db::MeasurementRow* measurement(db::Id id) const;
  [[nodiscard]] const db::WinnerRow* winner_for(const db::MeasurementRow& m) const;
};

[[nodiscard]] ReportData load_report_data(const db::Store& store, db::Id run);

}  // namespace r4::report
