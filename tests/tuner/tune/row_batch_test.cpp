// A batch of rows (tuner/tune/row_batch.hpp) is what an MPI rank sends rank 0: it must survive
// JSON/CBOR exactly, stamp its GPU, and write in one transaction with winners pointing at the
// batch's own measurements.
#include "tuner/tune/row_batch.hpp"

#include <gtest/gtest.h>

#include "tests/fixtures/synthetic_fixture.hpp"
#include "tests/fixtures/temp_dir.hpp"
#include "tuner/tune/ranks.hpp"

namespace r4::tune {
namespace {

RowBatch race_batch(db::Id run, db::Id compile) {
  RowBatch b;
  db::CheckRow c;
  c.run_id = run;
  c.compile_id = compile;
  c.n = 3072;
  c.k = 5120;
  c.m = 16;
  c.status = db::CheckStatus::pass;
  c.max_error = 0.1234567890123;
  c.tolerance = 1;
  b.checks.push_back(c);
  for (int i = 0; i < 2; ++i) {
    db::MeasurementRow m;
    m.run_id = run;
    m.compile_id = compile;
    m.kernel = "gemm_w4a16_nt";
    m.dtype = "w4a16";
    m.n = 3072;
    m.k = 5120;
    m.m = 16;
    m.config = {4, 1 + i, 1, 1, 1, 1 + i, 4};  // sm90a / ldg, with their stage counts
    m.median_us = 10.1 + 1.0 / 3.0 + i;
    m.detail = "finalist \"quoted\"\n";
    b.measurements.push_back({m, {10.0 + 1e-9, 10.5, 11.0 / 3.0}});
  }
  db::BaselineRow base;
  base.run_id = run;
  base.kind = db::BaselineKind::fp8_block;
  base.n = 3072;
  base.k = 5120;
  base.m = 16;
  base.median_us = 25.0;
  base.algo = "cublasLt algo 7";
  b.baselines.push_back({base, {25.0, 25.1}});
  db::WinnerRow w;
  w.run_id = run;
  w.kernel = "gemm_w4a16_nt";
  w.dtype = "w4a16";
  w.n = 3072;
  w.k = 5120;
  w.band_limit = 16;
  w.m_measured = 16;
  w.config = {4, 2, 1, 1, 1, 2, 4};
  w.median_us = 11.1;
  w.speedup_vs_fp8 = 25.0 / 11.1;
  b.winners.emplace_back(w, 1);
  return b;
}

}  // namespace

TEST(RowBatch, TravelsExactlyAndWritesWithItsGpuInOneTransaction) {
  testing::TempDir dir;
  auto s = db::Store::open(dir.file("b.db"));
  const db::Id run = s.begin_run(testing::run_row("batch"));
  db::CompileRow cr;
  cr.cache_key = "k";
  cr.kernel = "gemm_w4a16_nt";
  cr.arch = "sm_90";
  const db::Id compile = s.insert_compile(cr, run);
  db::DeviceRow d;
  d.name = "GPU";
  d.vendor = "nvidia";
  d.arch = "sm_90";
  d.multiprocessors = 1;
  const db::Id gpu = s.upsert_gpu({0, s.upsert_device(d), "h", 0, ""});

  RowBatch b = race_batch(run, compile);
  stamp_gpu(b, gpu);
  const auto j = to_json(b);
  const RowBatch back = batch_from_json(unpack(pack(j)));
  EXPECT_EQ(to_json(back), j);
  EXPECT_EQ(back.measurements[0].row.median_us, b.measurements[0].row.median_us);
  EXPECT_EQ(back.measurements[1].samples, b.measurements[1].samples);
  EXPECT_EQ(*back.checks[0].max_error, 0.1234567890123);
  // The whole config, generation and stages included (not only the JSON equal to itself).
  EXPECT_EQ(back.measurements[0].row.config, b.measurements[0].row.config);
  EXPECT_EQ(back.measurements[1].row.config, b.measurements[1].row.config);
  EXPECT_EQ(back.winners[0].first.config, b.winners[0].first.config);

  const auto mids = write_batch(s, back);
  ASSERT_EQ(mids.size(), 2u);
  const auto winners = s.winners(run, db::OnInvalid::flag);
  ASSERT_EQ(winners.size(), 1u);
  EXPECT_EQ(*winners[0].measurement_id, mids[1]);
  for (const auto& m : s.measurements(run)) EXPECT_EQ(*m.gpu_id, gpu);
  EXPECT_EQ(*s.checks(run)[0].gpu_id, gpu);
  EXPECT_EQ(*s.baselines(run)[0].gpu_id, gpu);
  EXPECT_EQ(s.samples(mids[0]).size(), 3u);

  // All or nothing: a bad row (a config out of range) leaves none of the batch behind.
  RowBatch bad = race_batch(run, compile);
  bad.measurements[1].row.config.wv = 99;
  EXPECT_THROW((void)write_batch(s, bad), db::Error);
  EXPECT_EQ(s.counts(run).measurements, 2);
  EXPECT_EQ(s.counts(run).checks, 1);

  // append keeps winners pointing at their own measurements.
  RowBatch two = race_batch(run, compile);
  two.append(race_batch(run, compile));
  EXPECT_EQ(two.measurements.size(), 4u);
  EXPECT_EQ(*two.winners[1].second, 3u);
}

}  // namespace r4::tune
