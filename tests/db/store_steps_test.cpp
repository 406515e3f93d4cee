// Decode steps (schema v2): stored with their samples in one transaction, read back by name, M
// and path; a failed step has no time; bad rows are refused with a reason and leave nothing.
#include <gtest/gtest.h>

#include "db/step_detail.hpp"
#include "db/store.hpp"
#include "tests/fixtures/synthetic_fixture.hpp"
#include "tests/fixtures/temp_dir.hpp"

namespace r4::db {
namespace {

using testing::TempDir;

StepRow step_row(Id run, StepPath path = StepPath::w4, int m = 8) {
  StepRow r;
  r.run_id = run;
  r.name = "dflash";
  r.m = m;
  r.path = path;
  r.median_us = 73.4;
  r.ci_low_us = 73.0;
  r.ci_high_us = 73.9;
  r.launches = 6;
  StepDetail d;
  StepLink l;
  l.shape = "qkv_proj";
  l.n = 3072;
  l.k = 5120;
  l.kernel = "gemm_w4a16_nt";
  l.dtype = "w4a16";
  l.generation = "sm80";
  l.config = {1, 4, 1, 1, 0};
  d.chain.push_back(l);
  r.detail = step_detail_json(d);
  return r;
}

std::string error_of(Store& s, const StepRow& r, std::vector<double> samples = {}) {
  try {
    s.insert_step(r, samples);
  } catch (const InvalidRow& e) {
    return e.what();
  }
  return "";
}

TEST(StoreSteps, StoredWithSamplesAndReadBackInPathOrder) {
  TempDir dir;
  auto s = Store::open(dir.file("a.db"));
  const Id run = s.begin_run(testing::run_row("steps"));
  // Inserted out of order: read back by name, M, then path in kStepPaths order.
  for (StepPath p : {StepPath::read_floor_pdl, StepPath::bf16, StepPath::w4_pdl, StepPath::w4})
    s.insert_step(step_row(run, p, 8));
  const Id first = s.insert_step(step_row(run, StepPath::w4, 1), std::vector<double>{73.5, 73.3});
  StepRow failed = step_row(run, StepPath::fp8_block, 8);
  failed.status = StepStatus::failed;
  failed.median_us.reset();
  failed.ci_low_us.reset();
  failed.ci_high_us.reset();
  failed.detail = "cuBLASLt: no algorithm";
  s.insert_step(failed);
  const auto all = s.steps(run);
  ASSERT_EQ(all.size(), 6u);
  EXPECT_EQ(all[0].id, first);
  EXPECT_EQ(all[0].n_samples, 2);
  EXPECT_EQ(s.step_samples(first), (std::vector<double>{73.5, 73.3}));
  const std::vector<StepPath> want = {StepPath::w4, StepPath::w4_pdl, StepPath::bf16,
                                      StepPath::fp8_block, StepPath::read_floor_pdl};
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_EQ(all[i + 1].path, want[i]) << i;
  EXPECT_EQ(all[4].status, StepStatus::failed);
  EXPECT_FALSE(all[4].median_us);
  EXPECT_EQ(all[4].detail, "cuBLASLt: no algorithm");
  EXPECT_EQ(parse_step_detail(all[1].detail).chain.at(0).config, (std::vector<int>{1, 4, 1, 1, 0}));
  EXPECT_EQ(s.counts(run).steps, 6);
}

TEST(StoreSteps, BadRowsAreRefusedAndLeaveNothing) {
  TempDir dir;
  auto s = Store::open(dir.file("a.db"));
  const Id run = s.begin_run(testing::run_row("steps"));
  auto bad = [&](auto edit, const std::string& want, std::vector<double> samples = {}) {
    StepRow r = step_row(run);
    edit(r);
    const std::string e = error_of(s, r, samples);
    EXPECT_NE(e.find(want), std::string::npos) << "want '" << want << "', got '" << e << "'";
  };
  bad([](StepRow& r) { r.name.clear(); }, "the step has no name");
  bad([](StepRow& r) { r.m = 0; }, "M = 0 is outside 1..64");
  bad([](StepRow& r) { r.m = 65; }, "M = 65 is outside 1..64");
  bad([](StepRow& r) { r.path = static_cast<StepPath>(9); }, "unknown step path 9");
  bad([](StepRow& r) { r.status = static_cast<StepStatus>(4); }, "unknown step status 4");
  bad([](StepRow& r) { r.median_us = 0.0; }, "median_us = 0 is not a positive time");
  bad([](StepRow& r) { r.median_us.reset(); }, "an ok step needs its median_us");
  bad([](StepRow& r) { r.ci_low_us = 80.0; }, "ci_low_us = 80 is above");
  bad([](StepRow& r) { r.launches = 0; }, "launches at least one kernel");
  bad([](StepRow& r) { r.launches = -1; }, "launches = -1 is negative");
  bad([](StepRow& r) { r.run_id = 42; }, "no run 42");
  bad([](StepRow&) {}, "sample 0 = 0 is not a positive time", {0.0});
  bad([](StepRow& r) { r.status = StepStatus::failed; }, "a failed step has no time");
  bad(
      [](StepRow& r) {
        r.status = StepStatus::failed;
        r.median_us.reset();
        r.ci_low_us.reset();
        r.ci_high_us.reset();
      },
      "a failed step has no time", {70.0});
  EXPECT_EQ(s.counts(run).steps, 0);
  EXPECT_EQ(s.connection().query_text("SELECT count(*) FROM step_samples"), "0");
  const Id first = s.insert_step(step_row(run));
  const std::string e = error_of(s, step_row(run));
  EXPECT_NE(e.find("step 'dflash' M=8 path w4 of run"), std::string::npos) << e;
  EXPECT_NE(e.find("stored already (step " + std::to_string(first) + ")"), std::string::npos) << e;
  EXPECT_EQ(s.integrity_check(), "ok");
}

TEST(StoreSteps, SchemaRefusesWhatTheStoreWouldToo) {
  TempDir dir;
  auto s = Store::open(dir.file("a.db"));
  const Id run = s.begin_run(testing::run_row("steps"));
  auto insert = [&](const std::string& values) {
    s.connection().exec(
        "INSERT INTO steps(run_id, name, m, path, status, median_us, launches) "
        "VALUES (" +
        std::to_string(run) + ", " + values + ")");
  };
  EXPECT_NO_THROW(insert("'a', 8, 'w4', 'ok', 70.0, 6"));
  EXPECT_NO_THROW(insert("'a', 8, 'bf16', 'failed', NULL, 6"));
  EXPECT_THROW(insert("'a', 16, 'w4', 'ok', NULL, 6"), Error);      // ok without a time
  EXPECT_THROW(insert("'a', 16, 'w4', 'failed', 70.0, 6"), Error);  // failed with one
  EXPECT_THROW(insert("'a', 16, 'w4', 'ok', 70.0, 0"), Error);
  EXPECT_THROW(insert("'a', 0, 'w4', 'ok', 70.0, 6"), Error);
  EXPECT_THROW(insert("'a', 16, 'int8', 'ok', 70.0, 6"), Error);
  EXPECT_THROW(insert("'', 16, 'w4', 'ok', 70.0, 6"), Error);
  EXPECT_THROW(insert("'a', 8, 'w4', 'ok', 71.0, 6"), Error);  // UNIQUE (run, name, m, path)
}

}  // namespace
}  // namespace r4::db
