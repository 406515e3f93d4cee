// Which worker takes which race (tuner/tune/race_queue.hpp): longest first by the estimate, once
// per shape the per-shape stages, workers kept on their shapes, and a race
// that throws retried once then given up.
#include "tuner/tune/race_queue.hpp"

#include <gtest/gtest.h>

#include <map>
#include <set>

namespace r4::tune {
namespace {

constexpr const char* kSpec = R"(
name = "q"
kernels = ["gemm_w4a16_nt"]
shapes = [{ n = 256, k = 5120 }, { n = 17408, k = 5120 }, { n = 3072, k = 5120 }]
bands = { limits = [16, 64] }
[space.gemm_w4a16_nt]
WV = [4]
SK = [1, 2]
)";

struct Fixture {
  Spec spec = parse_spec(kSpec, "q.toml");
  gpu::Arch arch = gpu::Arch::from("sm_90");
  Plan plan = make_plan(spec, arch);
  std::set<std::tuple<std::int64_t, std::int64_t, int>> raced;
  Fixture() {
    for (auto& u : plan.units) u.ok = true;
  }
  std::vector<RaceJob> jobs() { return make_jobs(spec, {{&plan, arch, &raced}}); }
};

}  // namespace

TEST(RaceQueue, JobsAreLongestFirstOncePerRaceWithOneShapeFlagEach) {
  Fixture f;
  const auto jobs = f.jobs();
  ASSERT_EQ(jobs.size(), 3u * 2u);
  for (std::size_t i = 1; i < jobs.size(); ++i) EXPECT_GE(jobs[i - 1].cost, jobs[i].cost);
  EXPECT_EQ(f.spec.shapes[jobs.front().shape].n, 17408);  // the biggest weight goes first
  std::map<std::size_t, int> flags;
  for (const auto& j : jobs) flags[j.shape] += j.first_of_shape;
  for (const auto& [s, n] : flags) EXPECT_EQ(n, 1) << "shape " << s;
  // A --resume leaves out what is stored.
  f.raced.insert({256, 5120, 16});
  EXPECT_EQ(f.jobs().size(), 5u);
}

TEST(RaceQueue, TakesByGroupPrefersItsShapeAndRetriesOnce) {
  Fixture f;
  auto jobs = f.jobs();
  RaceQueue q(jobs);
  const auto first = q.take(0, std::nullopt);
  ASSERT_TRUE(first);
  EXPECT_EQ(first->shape, jobs.front().shape);
  EXPECT_FALSE(q.take(1, std::nullopt)) << "no jobs of group 1";
  // A worker holding a shape takes its next race of that shape when it is nearly as long.
  const auto second = q.take(0, first->shape);
  ASSERT_TRUE(second);
  EXPECT_EQ(second->shape, first->shape);
  EXPECT_TRUE(q.retry(*second));
  const auto again = q.take(0, std::nullopt);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->m, second->m);
  EXPECT_FALSE(again->first_of_shape);
  EXPECT_FALSE(q.retry(*again)) << "the second failure gives it up";
  q.stop();
  EXPECT_FALSE(q.take(0, std::nullopt));
  EXPECT_TRUE(q.stopped());
}

}  // namespace r4::tune

namespace r4::tune {

// The shape rule: a worker stays on its shape while it has races, and a worker that must move
// goes to the shape with the most work left per worker already on it, so two workers starting
// together set up different shapes and every shape is set up about once.
TEST(RaceQueue, WorkersStayOnTheirShapeAndSpreadOverShapes) {
  Fixture f;
  const auto jobs = f.jobs();
  RaceQueue q(jobs);
  const auto a = q.take(0, std::nullopt);  // worker A: the biggest shape's longest race
  ASSERT_TRUE(a);
  EXPECT_EQ(f.spec.shapes[a->shape].n, 17408);
  // Worker B: the shape with the most work left per worker on it, counting A on its shape.
  std::map<std::size_t, double> left;
  for (const auto& j : jobs) left[j.shape] += j.cost;
  left[a->shape] = (left[a->shape] - a->cost) / 2;
  std::size_t want = 0;
  for (const auto& [s, w] : left)
    if (w > left[want]) want = s;
  const auto b = q.take(0, std::nullopt);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->shape, want);
  // A stays on its shape while a race of it is waiting, although longer races of others may wait.
  std::optional<std::size_t> sa = a->shape, sb = b->shape;
  int switches = 0;
  std::size_t taken = 2;
  for (bool turn = false;; turn = !turn) {
    auto& s = turn ? sb : sa;
    const auto j = q.take(0, s);
    if (!j) break;
    if (j->shape != *s) ++switches;
    s = j->shape;
    ++taken;
  }
  EXPECT_EQ(taken, jobs.size());
  EXPECT_LE(switches, 2) << "three shapes over two workers";
}

}  // namespace r4::tune
