// The hand-off between the compile stage's thread and the races that start beside it
// (tuner/tune/compile_tracker.hpp), and the order the stage compiles in (compile_stage.hpp).
#include "tuner/tune/compile_tracker.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>

#include "kernels/family.hpp"
#include "tuner/tune/compile_stage.hpp"
#include "tuner/tune/plan.hpp"
#include "tuner/tune/spec.hpp"

namespace r4::tune {

TEST(CompileTracker, ARaceWaitsForExactlyTheUnitsItNeeds) {
  CompileTracker t(4);
  EXPECT_FALSE(t.ready({0, 2}));
  EXPECT_TRUE(t.ready({}));
  std::atomic<bool> woke{false};
  std::jthread race([&] {
    t.wait({0, 2});
    woke = true;
  });
  t.done(0);
  t.done(1);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(woke.load()) << "unit 2 is not compiled yet";
  t.done(2);
  race.join();
  EXPECT_TRUE(woke.load());
  EXPECT_TRUE(t.ready({0, 1, 2}));
  EXPECT_FALSE(t.ready({3}));
  EXPECT_FALSE(t.finished());
}

TEST(CompileTracker, ProgressWakesOnEachUnitAndOnTheEnd) {
  CompileTracker t(3);
  std::jthread stage([&] {
    for (std::size_t i = 0; i < 3; ++i) t.done(i);
    t.finish();
  });
  std::size_t seen = 0;
  while (!t.finished() || seen < 3) {
    const std::size_t now = t.wait_progress(seen);
    EXPECT_GE(now, seen);
    if (now == seen) break;  // finished with nothing new
    seen = now;
  }
  EXPECT_EQ(seen, 3u);
  t.wait_finished();  // no error
}

TEST(CompileTracker, TheStagesErrorReachesEveryWaiter) {
  CompileTracker t(2);
  t.done(0);
  std::jthread stage([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    t.finish(std::make_exception_ptr(std::runtime_error("NVRTC could not be loaded")));
  });
  EXPECT_THROW(t.wait({0, 1}), std::runtime_error);
  EXPECT_THROW((void)t.ready({0}), std::runtime_error);
  EXPECT_THROW(t.wait_finished(), std::runtime_error);
}

// The races of small M need only the configs valid there: those compile first, in plan order.
TEST(CompileOrder, ConfigsOfTheSmallestMFirstThenPlanOrder) {
  const auto spec = load_spec(std::string(R4_SOURCE_ROOT) + "/configs/dflash.toml");
  const auto arch = gpu::Arch::from("sm_90");
  const Plan plan = make_plan(spec, arch);
  const auto order = compile_order(plan, spec, arch);
  ASSERT_EQ(order.size(), plan.units.size());
  auto sorted = order;
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t i = 0; i < sorted.size(); ++i) ASSERT_EQ(sorted[i], i) << "not a permutation";
  const auto ms = measured_ms(spec);
  const auto first_m = [&](std::size_t u) {
    for (int m : ms)
      for (const auto& sh : spec.shapes)
        if (kernels::is_valid(plan.units[u].id, plan.units[u].config, arch, {sh.n, sh.k, m}))
          return m;
    return 0;
  };
  for (std::size_t i = 1; i < order.size(); ++i) {
    const int a = first_m(order[i - 1]), b = first_m(order[i]);
    ASSERT_LE(a, b) << "position " << i;
    if (a == b) {
      ASSERT_LT(order[i - 1], order[i]) << "plan order within one M";
    }
  }
  // What a race at M = 1 needs is a prefix of the order, and smaller than the whole plan (the
  // point of the order: those races start while the rest compiles).
  const auto need = units_needed(plan, arch, spec.shapes.front(), ms.front());
  ASSERT_FALSE(need.empty());
  std::size_t last = 0;
  for (std::size_t u : need)
    last = std::max<std::size_t>(
        last, static_cast<std::size_t>(std::find(order.begin(), order.end(), u) - order.begin()));
  EXPECT_LT(last + 1, order.size());
  EXPECT_LT(need.size(), plan.units.size());
}

}  // namespace r4::tune
