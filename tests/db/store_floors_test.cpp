// Floors (schema v2): stored with their samples in one transaction, read back in order, looked up
// by (run, N, K, bytes); bad rows are refused with a reason and leave nothing behind.
#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "db/store.hpp"
#include "tests/fixtures/synthetic_fixture.hpp"
#include "tests/fixtures/temp_dir.hpp"

namespace r4::db {
namespace {

using testing::TempDir;

FloorRow read_floor_row(Id run, std::int64_t n = 3072, std::int64_t k = 5120) {
  FloorRow f;
  f.run_id = run;
  f.kind = FloorKind::read;
  f.n = n;
  f.k = k;
  f.bytes = w4_weight_bytes(n, k);
  f.median_us = 3.64;
  f.ci_low_us = 3.62;
  f.ci_high_us = 3.66;
  f.gbps = static_cast<double>(f.bytes) / (3.64 * 1e3);
  f.detail = "grid 528 x 256";
  return f;
}

FloorRow launch_row(Id run) {
  FloorRow f;
  f.run_id = run;
  f.kind = FloorKind::launch;
  f.median_us = 0.51;
  return f;
}

std::string error_of(Store& s, const FloorRow& f, std::vector<double> samples = {}) {
  try {
    s.insert_floor(f, samples);
  } catch (const InvalidRow& e) {
    return e.what();
  }
  return "";
}

TEST(StoreFloors, StoredWithSamplesAndReadBack) {
  TempDir dir;
  auto s = Store::open(dir.file("a.db"));
  const Id run = s.begin_run(testing::run_row("floors"));
  const std::vector<double> v = {3.65, 3.63, 3.64};
  const Id rf = s.insert_floor(read_floor_row(run), v);
  const Id lf = s.insert_floor(launch_row(run), std::vector<double>{0.5, 0.51, 0.52, 0.51});
  s.insert_floor(read_floor_row(run, 256, 5120));
  const auto all = s.floors(run);
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].id, lf);  // launch first, then read floors by N, K
  EXPECT_EQ(all[1].n, 256);
  EXPECT_EQ(all[2].id, rf);
  EXPECT_EQ(all[2].n_samples, 3);  // from the samples
  EXPECT_EQ(all[2].detail, "grid 528 x 256");
  EXPECT_EQ(all[2].bytes, 3072LL * 5120 / 2 + 3072LL * 5120 / 32);
  EXPECT_EQ(s.floor_samples(rf), v);
  EXPECT_EQ(s.launch_floor(run)->median_us, 0.51);
  EXPECT_EQ(s.read_floor(run, 3072, 5120, w4_weight_bytes(3072, 5120))->id, rf);
  EXPECT_FALSE(s.read_floor(run, 3072, 5120, 1000));  // another byte count is another floor
  EXPECT_FALSE(s.read_floor(run, 5120, 2048, w4_weight_bytes(5120, 2048)));
  EXPECT_EQ(s.counts(run).floors, 3);
}

TEST(StoreFloors, BadRowsAreRefusedAndLeaveNothing) {
  TempDir dir;
  auto s = Store::open(dir.file("a.db"));
  const Id run = s.begin_run(testing::run_row("floors"));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto bad = [&](auto edit, const std::string& want, std::vector<double> samples = {}) {
    FloorRow f = read_floor_row(run);
    edit(f);
    const std::string e = error_of(s, f, samples);
    EXPECT_NE(e.find(want), std::string::npos) << "want '" << want << "', got '" << e << "'";
    EXPECT_NE(e.find("refusing to store"), std::string::npos) << e;
  };
  bad([](FloorRow& f) { f.median_us = 0; }, "median_us = 0 is not a positive time");
  bad([](FloorRow& f) { f.median_us = -1; }, "not a positive time");
  bad([&](FloorRow& f) { f.median_us = nan; }, "not a positive time");
  bad([](FloorRow& f) { f.median_us = INFINITY; }, "not a positive time");
  bad([](FloorRow& f) { f.ci_low_us = 3.7; }, "ci_low_us = 3.7 is above");
  bad(
      [](FloorRow& f) {
        f.ci_low_us = 2.9;
        f.ci_high_us = 3.0;
      },
      "ci_high_us = 3 is below the median");
  bad([](FloorRow& f) { f.gbps = 0; }, "gbps = 0");
  bad([](FloorRow& f) { f.bytes = 0; }, "a read floor needs positive N, K and bytes");
  bad([](FloorRow& f) { f.n = 0; }, "a read floor needs positive N, K and bytes");
  bad([](FloorRow& f) { f.kind = FloorKind::launch; }, "a launch floor has N = K = bytes = 0");
  bad([](FloorRow& f) { f.kind = static_cast<FloorKind>(7); }, "unknown floor kind 7");
  bad([](FloorRow& f) { f.run_id = 99; }, "no run 99");
  bad([](FloorRow&) {}, "sample 1 = -2 is not a positive time", {3.6, -2.0});
  EXPECT_EQ(s.counts(run).floors, 0);
  EXPECT_EQ(s.connection().query_text("SELECT count(*) FROM floor_samples"), "0");
  // A second floor for the same key is refused; the first stays as it was.
  const Id first = s.insert_floor(read_floor_row(run), std::vector<double>{3.64});
  FloorRow again = read_floor_row(run);
  again.median_us = 3.65;
  const std::string e = error_of(s, again, {3.65});
  EXPECT_NE(e.find("stored already (floor " + std::to_string(first) + ")"), std::string::npos) << e;
  EXPECT_EQ(s.floors(run).at(0).median_us, 3.64);
  EXPECT_EQ(s.floor_samples(first), std::vector<double>{3.64});
  EXPECT_EQ(s.integrity_check(), "ok");
}

TEST(StoreFloors, SchemaRefusesWhatTheStoreWouldToo) {
  // Rows written around the Store (raw SQL, an older or foreign writer) meet the same rules.
  TempDir dir;
  auto s = Store::open(dir.file("a.db"));
  const Id run = s.begin_run(testing::run_row("floors"));
  const auto& c = s.connection();
  auto insert = [&](const std::string& values) {
    c.exec("INSERT INTO floors(run_id, kind, n, k, bytes, median_us) VALUES (" +
           std::to_string(run) + ", " + values + ")");
  };
  EXPECT_NO_THROW(insert("'launch', 0, 0, 0, 0.5"));
  EXPECT_THROW(insert("'read', 0, 0, 0, 0.5"), Error);       // a read floor of nothing
  EXPECT_THROW(insert("'launch', 16, 128, 0, 0.5"), Error);  // a launch floor with a shape
  EXPECT_THROW(insert("'read', 16, 128, 1024, 0"), Error);   // a zero time
  EXPECT_THROW(insert("'read', 16, 128, 1024, NULL"), Error);
  EXPECT_THROW(insert("'copy', 16, 128, 1024, 1.0"), Error);
}

TEST(StoreFloors, DeletingARunDeletesItsFloors) {
  TempDir dir;
  auto s = Store::open(dir.file("a.db"));
  const Id run = s.begin_run(testing::run_row("floors"));
  s.insert_floor(read_floor_row(run), std::vector<double>{3.6, 3.7});
  s.connection().exec("DELETE FROM runs WHERE id = " + std::to_string(run));
  EXPECT_EQ(s.connection().query_text("SELECT count(*) FROM floors"), "0");
  EXPECT_EQ(s.connection().query_text("SELECT count(*) FROM floor_samples"), "0");
}

}  // namespace
}  // namespace r4::db
