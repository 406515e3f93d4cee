// What the report writers look up per (kernel, shape, M): the run's measurements, baselines,
// winners, floors and steps, indexed once.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "db/store.hpp"

namespace r4::report {

struct ReportShape {
  std::int64_t n = 0, k = 0;
  std::string name;
};

struct ReportData {
  db::RunRow run;
  std::optional<db::DeviceRow> device;
  std::vector<db::MeasurementRow> measurements;
  std::vector<db::BaselineRow> baselines;
  std::vector<db::WinnerRow> winners;  // flagged, not rejected: the report shows bad rows
  std::vector<db::CompileRow> compiles;
  std::optional<double> ceiling_gbps;
  // Schema v2; empty for older runs, and every part of a report built on them is left out.
  std::vector<db::FloorRow> floors;
  std::vector<db::StepRow> steps;
  // Named shapes in the spec's order, then any other measured shape ("NxK").
  std::vector<ReportShape> shapes;

  [[nodiscard]] const db::BaselineRow* baseline(db::BaselineKind kind, std::int64_t n,
                                                std::int64_t k, int m) const;
  [[nodiscard]] const db::MeasurementRow* measurement(db::Id id) const;
  [[nodiscard]] const db::WinnerRow* winner_for(const db::MeasurementRow& m) const;
  [[nodiscard]] const db::FloorRow* launch_floor() const;
  // The read floor of the 4-bit weight of (n, k): bytes = db::w4_weight_bytes(n, k).
  [[nodiscard]] const db::FloorRow* read_floor(std::int64_t n, std::int64_t k) const;
  [[nodiscard]] std::optional<double> floor_us(std::int64_t n, std::int64_t k) const;
  // median / the shape's read floor: how many read floors a time takes. None without either.
  [[nodiscard]] std::optional<double> x_floor(std::optional<double> median_us, std::int64_t n,
                                              std::int64_t k) const;
  // The shape's name in this run, or "NxK".
  [[nodiscard]] std::string shape_name(std::int64_t n, std::int64_t k) const;
};

[[nodiscard]] ReportData load_report_data(const db::Store& store, db::Id run);

}  // namespace r4::report
