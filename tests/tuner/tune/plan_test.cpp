// The sweep's plan (tuner/tune/plan.hpp): which (kernel, config) units are compiled, and how many
// (config, shape, M) and races they make, checked against the family's own is_valid.
#include "tuner/tune/plan.hpp"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <tuple>

#include "kernels/family.hpp"

namespace r4::tune {

namespace {

constexpr const char* kTwoKernels = R"(
name = "t"
kernels = ["gemm_w4a16_nt", "gemm_w4a8_nt"]
shapes = [{ n = 256, k = 5120 }, { n = 3072, k = 5120 }]
bands = { limits = [8, 16] }
[space.gemm_w4a16_nt]
WV = [4]
SK = [1, 8]
NT = [1]
)";

// The plan's counts, recomputed from is_valid over its own units.
std::size_t valid_uses(const Spec& spec, const gpu::Arch& arch, const Unit& u) {
  std::size_t n = 0;
  for (const auto& sh : spec.shapes)
    for (int m : measured_ms(spec)) n += kernels::is_valid(u.id, u.config, arch, {sh.n, sh.k, m});
  return n;
}

}  // namespace

TEST(Plan, UnitsAreTheFilteredSpaceValidSomewhere) {
  const auto spec = parse_spec(kTwoKernels, "t.toml");
  const auto arch = gpu::Arch::from("sm_90");
  const Plan p = make_plan(spec, arch);
  EXPECT_EQ(p.races, spec.shapes.size() * measured_ms(spec).size());
  std::size_t measurements = 0, a16 = 0, a8 = 0;
  std::set<std::tuple<int, int, int, int, int, int, int, int>> seen;
  for (const auto& u : p.units) {
    EXPECT_TRUE(u.injected.empty());
    EXPECT_FALSE(u.ok);  // nothing compiled yet
    const std::size_t uses = valid_uses(spec, arch, u);
    EXPECT_GT(uses, 0u) << kernels::to_string(u.config);
    measurements += uses;
    EXPECT_TRUE(seen.insert({static_cast<int>(u.id), u.config.wv, u.config.sk, u.config.mb,
                             u.config.npw, u.config.nt, u.config.gen, u.config.st})
                    .second)
        << "a unit planned twice";
    if (u.id == kernels::KernelId::gemm_w4a16_nt) {
      ++a16;
      EXPECT_EQ(u.config.wv, 4);
      EXPECT_TRUE(u.config.sk == 1 || u.config.sk == 8);
      EXPECT_EQ(u.config.nt, 1);
    } else {
      ++a8;
    }
  }
  EXPECT_EQ(p.measurements, measurements);
  EXPECT_GT(a16, 0u);
  // The unfiltered kernel keeps every config of its space valid for some (shape, M).
  std::size_t a8_space = 0;
  for (const auto& c : kernels::config_space(kernels::KernelId::gemm_w4a8_nt, arch)) {
    const Unit u{kernels::KernelId::gemm_w4a8_nt, c, {}, {}, {}, {}, 0, false, {}};
    a8_space += valid_uses(spec, arch, u) > 0;
  }
  EXPECT_EQ(a8, a8_space);
  EXPECT_GT(a8, a16);
}

// Both generations are planned on sm_90 (one race group per (shape, M)); `gen` keeps only the
// named ones and `ST` filters the sm90a configs' stages without touching mma_sync ones.
TEST(Plan, GenerationsAndTheirFilters) {
  const auto arch = gpu::Arch::from("sm_90");
  auto gens_of = [&](const std::string& space) {
    std::map<int, std::set<int>> st_by_gen;
    const auto spec = parse_spec(std::string(kTwoKernels) + space, "t.toml");
    for (const auto& u : make_plan(spec, arch).units)
      if (u.id == kernels::KernelId::gemm_w4a8_nt) st_by_gen[u.config.gen].insert(u.config.st);
    return st_by_gen;
  };
  const auto all = gens_of("");
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all.at(kernels::kGenMmaSync), (std::set<int>{0}));
  EXPECT_EQ(all.at(kernels::kGenSm90a), (std::set<int>{4, 6, 8}));
  EXPECT_EQ(all.at(kernels::kGenLdg), (std::set<int>{2, 4}));  // ST 8: over the register estimate
  const auto sm90a = gens_of("[space.gemm_w4a8_nt]\ngen = [\"sm90a\"]\nST = [6]\n");
  ASSERT_EQ(sm90a.size(), 1u);
  EXPECT_EQ(sm90a.at(kernels::kGenSm90a), (std::set<int>{6}));
  const auto st_only = gens_of("[space.gemm_w4a8_nt]\nST = [4]\n");
  EXPECT_EQ(st_only.at(kernels::kGenMmaSync), (std::set<int>{0}));
  EXPECT_EQ(st_only.at(kernels::kGenSm90a), (std::set<int>{4}));
  const auto mma = gens_of("[space.gemm_w4a8_nt]\ngen = [0]\n");
  EXPECT_EQ(mma.size(), 1u);
  EXPECT_TRUE(mma.count(kernels::kGenMmaSync));
  // sm_80 has no sm90a generation at all (it has mma_sync and ldg).
  const auto spec = parse_spec(kTwoKernels, "t.toml");
  for (const auto& u : make_plan(spec, gpu::Arch::from("sm_80")).units)
    EXPECT_NE(u.config.gen, kernels::kGenSm90a);
}

// A space table scoped with `arch` filters the plan on those arches only; elsewhere the kernel
// gets its default space (here: mma_sync stays on sm_80, and on gfx1201 its only generation).
TEST(Plan, ScopedSpaceAppliesOnItsArchesOnly) {
  const auto spec = parse_spec(std::string(kTwoKernels) +
                                   "[space.gemm_w4a8_nt]\ngen = [\"ldg\", \"sm90a\"]\n"
                                   "arch = [\"sm_90\"]\n",
                               "t.toml");
  auto gens = [&](const char* arch) {
    std::set<int> g;
    for (const auto& u : make_plan(spec, gpu::Arch::from(arch)).units)
      if (u.id == kernels::KernelId::gemm_w4a8_nt) g.insert(u.config.gen);
    return g;
  };
  EXPECT_EQ(gens("sm_90"), (std::set<int>{kernels::kGenSm90a, kernels::kGenLdg}));
  EXPECT_EQ(gens("sm_80"), (std::set<int>{kernels::kGenMmaSync, kernels::kGenLdg}));
  EXPECT_EQ(gens("gfx1201"), (std::set<int>{kernels::kGenMmaSync}));
}

TEST(Plan, InjectedFaultsAreExtraUnitsWithTheirOwnCompile) {
  const auto base = parse_spec(kTwoKernels, "t.toml");
  const auto spec =
      parse_spec(std::string(kTwoKernels) + "[test]\ninject = [\"oob\", \"wrong\"]\n", "t.toml");
  const auto arch = gpu::Arch::from("sm_90");
  const Plan p0 = make_plan(base, arch);
  const Plan p = make_plan(spec, arch);
  ASSERT_EQ(p.units.size(), p0.units.size() + 2);
  const Unit& oob = p.units[p.units.size() - 2];
  const Unit& wrong = p.units.back();
  EXPECT_EQ(oob.injected, "oob");
  EXPECT_EQ(wrong.injected, "wrong");
  // The first kernel's (4,1,1,1,0), compiled with a fault: a request unlike the clean one's.
  const kernels::Config c{4, 1, 1, 1, 0};
  EXPECT_EQ(oob.id, kernels::KernelId::gemm_w4a16_nt);
  EXPECT_EQ(kernels::to_string(oob.config), kernels::to_string(c));
  EXPECT_NE(oob.request.defines, wrong.request.defines);
  EXPECT_NE(oob.request.defines,
            kernels::compile_request(kernels::KernelId::gemm_w4a16_nt, c, arch).defines);
  EXPECT_EQ(p.measurements, p0.measurements + 2 * valid_uses(spec, arch, oob));
  EXPECT_EQ(p.races, p0.races);
}

}  // namespace r4::tune
