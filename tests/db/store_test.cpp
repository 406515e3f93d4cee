#include "db/store.hpp"

#include <algorithm>
#include <fstream>

#include <fmt/core.h>
#include <gtest/gtest.h>

#include "tests/fixtures/synthetic_fixture.hpp"
#include "tests/fixtures/temp_dir.hpp"

namespace r4::db {
namespace {

using testing::TempDir;

DeviceRow h200() {
  DeviceRow d;
  d.name = "NVIDIA H200";
  d.vendor = "nvidia";
  d.arch = "sm_90";
  d.multiprocessors = 132;
  d.l2_bytes = 60 << 20;
  d.llc_bytes = 60 << 20;
  d.memory_bytes = 1LL << 37;
  d.driver_version = "13.0";
  d.runtime_version = "NVRTC 13.0";
  d.compiler_version = "NVRTC 13.0";
  return d;
}

MeasurementRow measurement(Id run, Config c = {1, 4, 1, 1, 1}) {
  MeasurementRow m;
  m.run_id = run;
  m.kernel = "gemm_w4a16_nt";
  m.dtype = "w4a16";
  m.n = 3072;
  m.k = 5120;
  m.m = 16;
  m.config = c;
  m.median_us = 5.0;
  m.ci_low_us = 4.9;
  m.ci_high_us = 5.1;
  return m;
}

WinnerRow winner(Id run, Config c = {1, 4, 1, 1, 1}) {
  WinnerRow w;
  w.run_id = run;
  w.kernel = "gemm_w4a16_nt";
  w.dtype = "w4a16";
  w.n = 3072;
  w.k = 5120;
  w.band_limit = 16;
  w.m_measured = 16;
  w.config = c;
  w.median_us = 5.0;
  w.speedup_vs_fp8 = 3.4;
  return w;
}

TEST(Store, OpensWithWalAndForeignKeys) {
  TempDir dir;
  auto s = Store::open(dir.file("a.db"));
  EXPECT_EQ(s.connection().query_text("PRAGMA journal_mode"), "wal");
  EXPECT_EQ(s.connection().query_text("PRAGMA foreign_keys"), "1");
  EXPECT_EQ(s.schema_version().version, kSchemaVersion);
  EXPECT_EQ(s.integrity_check(), "ok");
}

TEST(Store, DevicesAreUpsertedByIdentity) {
  TempDir dir;
  auto s = Store::open(dir.file("a.db"));
  const Id a = s.upsert_device(h200());
  EXPECT_EQ(s.upsert_device(h200()), a);
  DeviceRow newer = h200();
  newer.driver_version = "13.1";  // a driver update is a new identity
  EXPECT_NE(s.upsert_device(newer), a);
  ASSERT_TRUE(s.device(a));
  EXPECT_EQ(s.device(a)->multiprocessors, 132);
}

TEST(Store, RunLifecycleAndResolve) {
  TempDir dir;
  auto s = Store::open(dir.file("a.db"));
  EXPECT_THROW((void)s.resolve_run("latest"), NotFound);
  const Id dev = s.upsert_device(h200());
  const Id r1 = s.begin_run(testing::run_row("one", dev, "2026-11-29T10:00:00Z"));
  const Id r2 = s.begin_run(testing::run_row("two", std::nullopt, "2026-11-29T11:00:00Z"));
  EXPECT_EQ(s.run(r1).status, RunStatus::running);
  EXPECT_EQ(s.run(r1).uuid.size(), 36u);
  EXPECT_NE(s.run(r1).uuid, s.run(r2).uuid);
  // Running runs are not "latest".
  EXPECT_THROW((void)s.resolve_run("latest"), NotFound);
  s.finish_run(r1);
  EXPECT_EQ(s.resolve_run("latest").id, r1);
  s.mark_partial(r2, "killed at config 12");
  s.mark_partial(r2, "resumed and killed again");
  EXPECT_EQ(s.resolve_run("latest").id, r2);
  EXPECT_EQ(s.run(r2).status, RunStatus::partial);
  EXPECT_EQ(s.run(r2).notes, "killed at config 12\nresumed and killed again");
  EXPECT_FALSE(s.run(r2).finished_at.empty());
  EXPECT_EQ(s.resolve_run(std::to_string(r2)).id, r2);
  EXPECT_EQ(s.resolve_run(s.run(r1).uuid).id, r1);
  EXPECT_EQ(s.resolve_run(s.run(r1).uuid.substr(0, 8)).id, r1);
  EXPECT_THROW((void)s.resolve_run("999"), NotFound);
  EXPECT_THROW((void)s.resolve_run("zzzzzzzz"), NotFound);
  EXPECT_THROW((void)s.resolve_run(""), NotFound);
  EXPECT_THROW(s.finish_run(999), NotFound);
  ASSERT_TRUE(s.run_device(s.run(r1)));
  EXPECT_FALSE(s.run_device(s.run(r2)));
  EXPECT_EQ(s.list_runs().size(), 2u);
}

// A uuid prefix of decimal digits only (1 uuid in 43 starts with 8 of them) is no run's id, so it
// is looked up as a prefix (the ASan CI run of 2026-12-01 drew '61245359' and failed above).
TEST(Store, AllDigitUuidPrefixResolves) {
  TempDir dir;
  auto s = Store::open(dir.file("a.db"));
  const Id r = s.begin_run(testing::run_row("one", std::nullopt, "2026-11-29T10:00:00Z"));
  s.connection().exec("UPDATE runs SET uuid = '61245359-0000-4000-8000-000000000001'");
  EXPECT_EQ(s.resolve_run("61245359").id, r);
  EXPECT_EQ(s.resolve_run(std::to_string(r)).id, r);
  EXPECT_THROW((void)s.resolve_run("61245358"), NotFound);
}

TEST(Store, CompileCacheDedupesByKeyAndKeepsBinary) {
  TempDir dir;
  auto s = Store::open(dir.file("a.db"));
  const Id run = s.begin_run(testing::run_row("x"));
  CompileRow c;
  c.kernel = "gemm_w4a16_nt";
  c.config = {2, 4, 1, 2, 1};
  c.arch = "sm_90";
  c.source_hash = "abc";
  c.options = "-DR4_WV=2";
  c.compiler_version = "NVRTC 13.0";
  c.cache_key = compile_key(c.source_hash, c.arch, c.options, c.compiler_version);
  c.registers = 96;
  c.binary = {std::byte{1}, std::byte{0}, std::byte{255}};
  EXPECT_FALSE(s.find_compile(c.cache_key));
  const Id id = s.insert_compile(c, run);
  EXPECT_EQ(s.insert_compile(c, run), id);
  const auto back = s.find_compile(c.cache_key);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->id, id);
  EXPECT_EQ(back->config, c.config);
  EXPECT_EQ(back->binary, c.binary);
  EXPECT_EQ(back->registers, 96);
  EXPECT_EQ(s.compiles_for_run(run).size(), 1u);
  EXPECT_EQ(s.counts(run).compiles, 1);

  CompileRow bad = c;
  bad.cache_key = "other";
  bad.config.wv = 0;
  EXPECT_THROW(s.insert_compile(bad), InvalidRow);
}

TEST(Store, MeasurementWithSamplesIsOneTransaction) {
  TempDir dir;
  auto s = Store::open(dir.file("a.db"));
  const Id run = s.begin_run(testing::run_row("x"));
  const std::vector<double> samples = {5.1, 4.9, 5.0};
  const Id id = s.insert_measurement(measurement(run), samples);
  EXPECT_EQ(s.samples(id), samples);
  const auto ms = s.measurements(run);
  ASSERT_EQ(ms.size(), 1u);
  EXPECT_EQ(ms[0].n_samples, 3);
  EXPECT_EQ(ms[0].config, (Config{1, 4, 1, 1, 1}));

  // A row the schema refuses (non-positive size) leaves neither it nor its samples behind.
  auto bad = measurement(run);
  bad.n = 0;
  EXPECT_THROW(s.insert_measurement(bad, samples), Error);
  EXPECT_EQ(s.measurements(run).size(), 1u);
  EXPECT_EQ(s.counts(run).samples, 3);
  // Out-of-range configs are refused before SQL.
  EXPECT_THROW(s.insert_measurement(measurement(run, {1, 4, 1, 1, 2})), InvalidRow);
  // Foreign keys are enforced: no such run.
  EXPECT_THROW(s.insert_measurement(measurement(run + 100)), Error);
}

TEST(Store, ChecksAndBaselines) {
  TempDir dir;
  auto s = Store::open(dir.file("a.db"));
  const Id run = s.begin_run(testing::run_row("x"));
  CheckRow ch;
  ch.run_id = run;
  ch.compile_id = 12345;  // no such compile
  ch.n = ch.k = 128;
  ch.m = 8;
  EXPECT_THROW(s.insert_check(ch), Error);

  BaselineRow ceiling;
  ceiling.run_id = run;
  ceiling.kind = BaselineKind::streaming_ceiling;
  ceiling.gbps = 4258;
  s.insert_baseline(ceiling);
  BaselineRow b;
  b.run_id = run;
  b.kind = BaselineKind::fp8_block;
  b.n = 3072;
  b.k = 5120;
  b.m = 16;
  b.median_us = 17.2;
  b.algo = "cublasLt";
  const Id bid = s.insert_baseline(b, std::vector<double>{17.1, 17.2, 17.3});
  EXPECT_EQ(s.baseline_samples(bid).size(), 3u);
  const auto all = s.baselines(run);
  ASSERT_EQ(all.size(), 2u);
  // A baseline needs a shape unless it is the ceiling.
  b.n = 0;
  EXPECT_THROW(s.insert_baseline(b), Error);
}

TEST(Store, WinnersAreRevalidatedOnRead) {
  TempDir dir;
  auto s = Store::open(dir.file("a.db"));
  const Id dev = s.upsert_device(h200());
  const Id run = s.begin_run(testing::run_row("x", dev));
  s.insert_winner(winner(run));
  // Re-inserting the same band replaces it.
  s.insert_winner(winner(run, {2, 4, 1, 1, 1}));
  ASSERT_EQ(s.winners(run).size(), 1u);
  EXPECT_EQ(s.winners(run)[0].config.wv, 2);

  // A row damaged behind the store's back (an older tool, a hand edit) is caught on read.
  s.connection().exec("UPDATE winners SET npw = 0");
  try {
    (void)s.winners(run);
    FAIL() << "read an out-of-range winner";
  } catch (const InvalidRow& e) {
    EXPECT_NE(std::string(e.what()).find("NPW = 0 is outside 1..64"), std::string::npos)
        << e.what();
  }
  const auto flagged = s.winners(run, OnInvalid::flag);
  ASSERT_EQ(flagged.size(), 1u);
  EXPECT_FALSE(flagged[0].problem.empty());
  s.connection().exec("UPDATE winners SET npw = 1");

  // The kernels module's is_valid hook sees the arch and the shape.
  std::string seen_arch;
  s.set_config_validator([&](const KernelConfigRow& r) {
    seen_arch = r.arch;
    return r.config.wv <= 1;
  });
  try {
    (void)s.winners(run);
    FAIL() << "validator was not applied";
  } catch (const InvalidRow& e) {
    EXPECT_NE(std::string(e.what()).find("is not valid for gemm_w4a16_nt on sm_90"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(seen_arch, "sm_90");
  s.set_config_validator({});
  EXPECT_NO_THROW((void)s.winners(run));
}

TEST(Store, ReadOnlyStoreRefusesWrites) {
  TempDir dir;
  const auto path = dir.file("a.db");
  { auto s = Store::open(path); }
  auto ro = Store::open_read_only(path);
  EXPECT_TRUE(ro.read_only());
  EXPECT_THROW(ro.begin_run(testing::run_row("x")), Error);
  EXPECT_THROW((void)Store::open_read_only(dir.file("missing.db")), Error);
  EXPECT_FALSE(std::filesystem::exists(dir.file("missing.db")));
}

TEST(Store, MergeImportsRunsOnceWithAllRows) {
  TempDir dir;
  const auto a_path = dir.file("a.db"), b_path = dir.file("b.db");
  testing::SyntheticOptions small;
  small.shapes = 2;
  small.config_stride = 12;
  {
    auto a = Store::open(a_path);
    testing::fill_synthetic_run(a, small);
  }
  {
    auto b = Store::open(b_path);
    auto other = small;
    other.uuid = "5e7d0000-0000-4000-8000-0000000000bb";
    other.started_at = "2026-11-30T09:00:00Z";
    testing::fill_synthetic_run(b, other);
  }
  auto a = Store::open(a_path);
  const Id a_run = a.resolve_run("latest").id;
  const auto compiles_before = a.connection().query_text("SELECT count(*) FROM compiles");
  const auto res = a.merge(b_path);
  EXPECT_EQ(res.runs_imported, 1);
  EXPECT_EQ(res.runs_skipped, 0);
  ASSERT_EQ(a.list_runs().size(), 2u);
  // Same kernels, same sources: the compile cache is shared, not duplicated.
  EXPECT_EQ(a.connection().query_text("SELECT count(*) FROM compiles"), compiles_before);

  auto b = Store::open_read_only(b_path);
  const Id b_run = b.resolve_run("latest").id;
  const Id merged = a.resolve_run("5e7d0000-0000-4000-8000-0000000000bb").id;
  const auto cb = b.counts(b_run), cm = a.counts(merged);
  EXPECT_EQ(cm.measurements, cb.measurements);
  EXPECT_EQ(cm.samples, cb.samples);
  EXPECT_EQ(cm.checks, cb.checks);
  EXPECT_EQ(cm.baselines, cb.baselines);
  EXPECT_EQ(cm.winners, cb.winners);
  EXPECT_EQ(cm.compiles, cb.compiles);
  // Floors and steps (schema v2) with their samples.
  EXPECT_GT(cb.floors, 0);
  EXPECT_GT(cb.steps, 0);
  EXPECT_EQ(cm.floors, cb.floors);
  EXPECT_EQ(cm.steps, cb.steps);
  const auto fb = b.floors(b_run), fm = a.floors(merged);
  ASSERT_EQ(fm.size(), fb.size());
  for (std::size_t i = 0; i < fb.size(); ++i) {
    EXPECT_EQ(fm[i].run_id, merged);
    EXPECT_EQ(fm[i].median_us, fb[i].median_us);
    EXPECT_EQ(a.floor_samples(fm[i].id), b.floor_samples(fb[i].id));
  }
  const auto sb = b.steps(b_run), sm = a.steps(merged);
  ASSERT_EQ(sm.size(), sb.size());
  for (std::size_t i = 0; i < sb.size(); ++i) {
    EXPECT_EQ(sm[i].path, sb[i].path);
    EXPECT_EQ(sm[i].status, sb[i].status);
    EXPECT_EQ(sm[i].detail, sb[i].detail);
    EXPECT_EQ(a.step_samples(sm[i].id), b.step_samples(sb[i].id));
  }
  EXPECT_EQ(a.run(merged).started_at, "2026-11-30T09:00:00Z");
  EXPECT_EQ(a.run(merged).status, RunStatus::complete);
  EXPECT_EQ(a.shape_names(merged).size(), 2u);
  // Winners still point at their (re-numbered) measurements.
  for (const auto& w : a.winners(merged)) {
    ASSERT_TRUE(w.measurement_id);
    const auto ms = a.measurements(merged);
    EXPECT_TRUE(std::any_of(ms.begin(), ms.end(), [&](const auto& m) {
      return m.id == *w.measurement_id && m.config == w.config;
    }));
  }
  // Again: nothing new.
  const auto again = a.merge(b_path);
  EXPECT_EQ(again.runs_imported, 0);
  EXPECT_EQ(again.runs_skipped, 1);
  EXPECT_EQ(a.list_runs().size(), 2u);
  EXPECT_EQ(a.counts(a_run).measurements, a.counts(merged).measurements);
  EXPECT_EQ(a.integrity_check(), "ok");
}

TEST(Store, ExportCsvHasOneRowPerMeasurement) {
  TempDir dir;
  auto s = Store::open(dir.file("a.db"));
  testing::SyntheticOptions small;
  small.shapes = 1;
  small.config_stride = 12;
  const Id run = testing::fill_synthetic_run(s, small);
  s.export_csv(dir.file("out.csv"));
  std::ifstream in(dir.file("out.csv"));
  std::string header;
  std::getline(in, header);
  EXPECT_EQ(header.rfind("run_uuid,run_status,spec_name", 0), 0u);
  EXPECT_NE(header.find("compiler_version"), std::string::npos);
  // Count records, not lines: the options field holds newlines and is quoted (RFC 4180).
  long rows = 0;
  bool quoted = false;
  for (char c; in.get(c);) {
    if (c == '"') quoted = !quoted;
    if (c == '\n' && !quoted) ++rows;
  }
  EXPECT_FALSE(quoted);
  EXPECT_EQ(rows, s.counts(run).measurements);
  // floor_us is the run's read floor of the shape and x_floor = median / floor_us.
  EXPECT_NE(header.find(",pct_of_ceiling,floor_us,x_floor,"), std::string::npos) << header;
  const auto floor = s.read_floor(run, 3072, 5120, w4_weight_bytes(3072, 5120));
  ASSERT_TRUE(floor);
  const std::string csv = testing::read_file(dir.file("out.csv"));
  const auto ms = s.measurements(run);
  const auto ok = std::find_if(ms.begin(), ms.end(),
                               [](const auto& m) { return m.status == MeasurementStatus::ok; });
  ASSERT_NE(ok, ms.end());
  // The fixture's floor is a sample rounded to 3 decimals, so SQLite and fmt print it alike.
  const std::string cells =
      fmt::format(",{},{:.4f},", floor->median_us, *ok->median_us / floor->median_us);
  EXPECT_NE(csv.find(cells), std::string::npos) << cells;
  EXPECT_THROW(s.export_csv(dir.file("no/such/dir/out.csv")), Error);
}

}  // namespace
}  // namespace r4::db
