// x floor per shape and M: the fastest winner at that M over the shape's read floor, else the
// fastest ok measurement; shapes without a read floor have no series.
#include "reports/floor_view.hpp"

#include <algorithm>

#include <gtest/gtest.h>

#include "tests/fixtures/synthetic_fixture.hpp"
#include "tests/fixtures/temp_dir.hpp"

namespace r4::report {
namespace {

TEST(FloorView, BestWinnerOverTheFloorAtEveryBand) {
  testing::TempDir dir;
  auto store = db::Store::open(dir.file("run.db"));
  const db::Id run = testing::fill_synthetic_run(store);
  const ReportData d = load_report_data(store, run);
  const auto series = x_floor_series(d);
  ASSERT_EQ(series.size(), 6u);
  EXPECT_EQ(series[0].shape.name, "qkv");  // spec order
  for (const auto& s : series) {
    ASSERT_EQ(s.points.size(), 4u) << s.shape.name;  // the four band tops
    for (const auto& p : s.points) {
      EXPECT_TRUE(p.winner);
      double best = 1e30;
      for (const auto& w : d.winners)
        if (w.n == s.shape.n && w.k == s.shape.k && w.m_measured == p.m)
          best = std::min(best, w.median_us);
      EXPECT_EQ(p.best_us, best);
      EXPECT_EQ(p.x, best / *d.floor_us(s.shape.n, s.shape.k));
      EXPECT_GT(p.x, 1.0);
    }
  }
}

TEST(FloorView, WithoutAWinnerTheBestOkMeasurementCounts) {
  testing::TempDir dir;
  auto store = db::Store::open(dir.file("s.db"));
  const db::Id run = store.begin_run(testing::run_row("small"));
  store.set_shape_name(run, 3072, 5120, "qkv");
  store.set_shape_name(run, 256, 5120, "hidden");  // no read floor: no series
  db::FloorRow f;
  f.run_id = run;
  f.n = 3072;
  f.k = 5120;
  f.bytes = db::w4_weight_bytes(3072, 5120);
  f.median_us = 4.0;
  store.insert_floor(f);
  auto meas = [&](std::int64_t n, int m, double us, db::MeasurementStatus st) {
    db::MeasurementRow r;
    r.run_id = run;
    r.kernel = "gemm_w4a16_nt";
    r.dtype = "w4a16";
    r.n = n;
    r.k = 5120;
    r.m = m;
    r.status = st;
    r.median_us = us;
    return store.insert_measurement(r);
  };
  // M = 8 (an extra M): no winner, so the fastest ok measurement; raced-out ones do not count.
  meas(3072, 8, 10.0, db::MeasurementStatus::ok);
  meas(3072, 8, 9.0, db::MeasurementStatus::ok);
  meas(3072, 8, 5.0, db::MeasurementStatus::raced_out);
  meas(256, 8, 3.0, db::MeasurementStatus::ok);
  // M = 16: the winner's re-measured time wins over a faster screening median.
  const db::Id wm = meas(3072, 16, 12.0, db::MeasurementStatus::ok);
  meas(3072, 16, 11.0, db::MeasurementStatus::ok);
  db::WinnerRow w;
  w.run_id = run;
  w.measurement_id = wm;
  w.kernel = "gemm_w4a16_nt";
  w.dtype = "w4a16";
  w.n = 3072;
  w.k = 5120;
  w.band_limit = 16;
  w.m_measured = 16;
  w.median_us = 12.0;
  store.insert_winner(w);
  const auto series = x_floor_series(load_report_data(store, run));
  ASSERT_EQ(series.size(), 1u);
  ASSERT_EQ(series[0].points.size(), 2u);
  EXPECT_EQ(series[0].points[0].m, 8);
  EXPECT_FALSE(series[0].points[0].winner);
  EXPECT_DOUBLE_EQ(series[0].points[0].x, 9.0 / 4.0);
  EXPECT_EQ(series[0].points[1].m, 16);
  EXPECT_TRUE(series[0].points[1].winner);
  EXPECT_DOUBLE_EQ(series[0].points[1].x, 3.0);
}

}  // namespace
}  // namespace r4::report
