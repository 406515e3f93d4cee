// The step table: speedups over the vendor chains at the same step and M, the sum of the chain's
// read floors, failed rows, chains recorded on one row only, and missing floors.
#include "reports/step_view.hpp"

#include <fmt/core.h>
#include <gtest/gtest.h>

#include "db/step_detail.hpp"
#include "tests/fixtures/synthetic_fixture.hpp"
#include "tests/fixtures/temp_dir.hpp"

namespace r4::report {
namespace {

TEST(StepView, TheFixturesStep) {
  testing::TempDir dir;
  auto store = db::Store::open(dir.file("run.db"));
  const db::Id run = testing::fill_synthetic_run(store);
  const ReportData d = load_report_data(store, run);
  const StepTable t = step_table(d);
  ASSERT_EQ(t.chains.size(), 1u);
  EXPECT_EQ(t.chains[0].shapes.size(), 6u);
  // The six read floors of h200-floors-2026-11-30.md sum to 30.45 us; here each floor is the
  // median of synthetic samples around it.
  ASSERT_TRUE(t.chains[0].floor_sum_us);
  EXPECT_NEAR(*t.chains[0].floor_sum_us, 30.45, 0.1);
  ASSERT_EQ(t.lines.size(), 24u);
  for (const auto& l : t.lines) {
    const auto& r = l.row;
    SCOPED_TRACE(fmt::format("M={} {}", r.m, db::to_string(r.path)));
    if (r.status == db::StepStatus::failed) {
      EXPECT_FALSE(l.speedup_vs_bf16);
      EXPECT_FALSE(l.x_floor_sum);
      EXPECT_EQ(l.error, "no block-fp8 algorithm for M = 1 (synthetic)");
      continue;
    }
    ASSERT_TRUE(l.speedup_vs_bf16);
    ASSERT_TRUE(l.x_floor_sum);
    EXPECT_DOUBLE_EQ(*l.x_floor_sum, *r.median_us / *t.chains[0].floor_sum_us);
    if (r.path == db::StepPath::bf16) {
      EXPECT_DOUBLE_EQ(*l.speedup_vs_bf16, 1.0);
    }
    // Block-fp8 failed at M = 1, so nothing there has a speedup over it.
    EXPECT_EQ(l.speedup_vs_fp8.has_value(), r.m != 1);
  }
  // The 4-bit chain links the fastest winner of each shape, of either generation; the kernels
  // column counts sm90a links apart. At M = 64 the fixture's o, gate_up and down go to sm90a.
  for (const auto& l : t.lines)
    if (l.row.m == 64 && l.row.path == db::StepPath::w4) {
      EXPECT_NE(l.kernels.find(" sm90a ×"), std::string::npos) << l.kernels;
      const auto chain = db::parse_step_detail(l.row.detail).chain;
      ASSERT_EQ(chain.size(), 6u);
      for (const auto& link : chain)
        EXPECT_EQ(link.config.size(), link.generation == "sm90a" ? 6u : 5u) << link.generation;
    }
}

// A hand-made run: two shapes, floors for one of them only at first.
struct Small {
  testing::TempDir dir;
  db::Store store = db::Store::open(dir.file("s.db"));
  db::Id run = store.begin_run(testing::run_row("small"));

  Small() {
    store.set_shape_name(run, 3072, 5120, "qkv");
    store.set_shape_name(run, 5120, 2048, "o");
    floor(3072, 5120, 3.6);
  }
  void floor(std::int64_t n, std::int64_t k, double us) {
    db::FloorRow f;
    f.run_id = run;
    f.n = n;
    f.k = k;
    f.bytes = db::w4_weight_bytes(n, k);
    f.median_us = us;
    store.insert_floor(f);
  }
  // A step qkv -> o -> qkv, with its chain recorded unless `bare`.
  void step(int m, db::StepPath path, std::optional<double> us, bool bare = false) {
    db::StepRow r;
    r.run_id = run;
    r.name = "layer";
    r.m = m;
    r.path = path;
    r.launches = 3;
    db::StepDetail d;
    if (!bare)
      for (auto [name, n, k] : {std::tuple{"qkv", 3072, 5120}, std::tuple{"o", 5120, 2048},
                                std::tuple{"qkv", 3072, 5120}}) {
        db::StepLink l;
        l.shape = name;
        l.n = n;
        l.k = k;
        l.kernel = path == db::StepPath::bf16 ? "cublaslt_bf16" : "gemm_w4a16_nt";
        d.chain.push_back(l);
      }
    if (us) {
      r.median_us = us;
    } else {
      r.status = db::StepStatus::failed;
      d.error = "worker died";
    }
    r.detail = db::step_detail_json(d);
    store.insert_step(r);
  }
};

TEST(StepView, ChainFloorsAndSpeedups) {
  Small s;
  s.step(8, db::StepPath::fp8_block, std::nullopt, /*bare=*/true);  // failed, no chain
  s.step(8, db::StepPath::w4, 12.0);
  s.step(8, db::StepPath::bf16, 30.0);
  {
    // o has no read floor yet: no sum, no x floor; the speedup is there.
    const StepTable t = step_table(load_report_data(s.store, s.run));
    ASSERT_EQ(t.chains.size(), 1u);
    EXPECT_EQ(t.chains[0].shapes, (std::vector<std::string>{"qkv", "o", "qkv"}));
    EXPECT_FALSE(t.chains[0].floor_sum_us);
    ASSERT_EQ(t.lines.size(), 3u);
    EXPECT_EQ(t.lines[0].row.path, db::StepPath::w4);  // path order, not insertion order
    EXPECT_DOUBLE_EQ(*t.lines[0].speedup_vs_bf16, 2.5);
    EXPECT_FALSE(t.lines[0].speedup_vs_fp8);  // the fp8 chain failed
    EXPECT_FALSE(t.lines[0].x_floor_sum);
    EXPECT_EQ(t.lines[0].kernels, "gemm_w4a16_nt ×3");
    EXPECT_EQ(t.lines[2].error, "worker died");
  }
  s.floor(5120, 2048, 3.0);
  const StepTable t = step_table(load_report_data(s.store, s.run));
  // A repeated shape counts every time it runs: 3.6 + 3.0 + 3.6. The failed row, which has no
  // chain of its own, shares its step's.
  ASSERT_TRUE(t.chains[0].floor_sum_us);
  EXPECT_DOUBLE_EQ(*t.chains[0].floor_sum_us, 10.2);
  EXPECT_DOUBLE_EQ(*t.lines[0].x_floor_sum, 12.0 / 10.2);
  EXPECT_DOUBLE_EQ(*t.lines[2].floor_sum_us, 10.2);
  EXPECT_FALSE(t.lines[2].x_floor_sum);
}

TEST(StepView, NoStepsNoTable) {
  Small s;
  const StepTable t = step_table(load_report_data(s.store, s.run));
  EXPECT_TRUE(t.chains.empty());
  EXPECT_TRUE(t.lines.empty());
}

}  // namespace
}  // namespace r4::report
