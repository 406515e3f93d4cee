#include "tuner/tune/spec.hpp"

#include <gtest/gtest.h>

namespace r4::tune {

namespace {
std::string error_of(const std::string& text) {
  try {
    (void)parse_spec(text, "t.toml");
  } catch (const SpecError& e) {
    return e.what();
  }
  return "";
}
constexpr const char* kMinimal = R"(
name = "t"
kernels = ["gemm_w4a16_nt"]
shapes = [{ n = 256, k = 5120 }]
bands = { limits = [16, 64] }
)";
}  // namespace

TEST(Spec, ShippedSpecsParse) {
  for (const char* f : {"configs/dflash.toml", "configs/llama3-8b.toml"}) {
    const auto s = load_spec(std::string(R4_SOURCE_ROOT) + "/" + f);
    EXPECT_FALSE(s.shapes.empty()) << f;
    EXPECT_EQ(s.band_limits, (std::vector<int>{16, 32, 48, 64})) << f;
  }
  const auto d = load_spec(std::string(R4_SOURCE_ROOT) + "/configs/dflash.toml");
  ASSERT_EQ(d.shapes.size(), 6u);
  EXPECT_EQ(d.shapes[2].n, 17408);
  EXPECT_EQ(d.shapes[2].name, "gate_up_proj");
  EXPECT_EQ(d.baselines, (std::vector<std::string>{"bf16", "fp8_block"}));
  EXPECT_EQ(d.kernels, (std::vector<std::string>{"gemm_w4a16_nt", "gemm_w4a8_nt", "gemm_w4a8fp8_nt",
                                                 "gemm_mxfp4a8fp8_nt"}));
  EXPECT_EQ(measured_ms(d), (std::vector<int>{1, 8, 16, 32, 48, 64}));
  // The drafter's step: the seeds' order, M at each band's top plus 1 and 8.
  ASSERT_TRUE(d.step);
  EXPECT_EQ(d.step->name, "dflash");
  EXPECT_EQ(d.step->order,
            (std::vector<std::string>{"qkv_proj", "o_proj", "gate_up_proj", "down_proj",
                                      "kernel_projection", "hidden_projection"}));
  EXPECT_EQ(d.step->chain, (std::vector<std::size_t>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(d.step->m, (std::vector<int>{1, 8, 16, 32, 48, 64}));
  const auto l = load_spec(std::string(R4_SOURCE_ROOT) + "/configs/llama3-8b.toml");
  // Both shipped specs leave the mma_sync generation of the int4 GEMMs out on Hopper only
  // (docs/TUNER.md "Scoped spaces").
  for (const auto* spec : {&d, &l}) {
    for (const char* k : {"gemm_w4a16_nt", "gemm_w4a8_nt"}) {
      const auto& sp = spec->space.at(k);
      EXPECT_EQ(sp.gen, (std::vector<int>{2, 1})) << k;
      EXPECT_TRUE(sp.applies_to(gpu::Arch::from("sm_90"))) << k;
      EXPECT_FALSE(sp.applies_to(gpu::Arch::from("sm_80"))) << k;
      EXPECT_FALSE(sp.applies_to(gpu::Arch::from("gfx1201"))) << k;
    }
    // and MXFP4's ldg generation (its sm90a one won every band, session 35), where sm_89 keeps it.
    const auto& mx = spec->space.at("gemm_mxfp4a8fp8_nt");
    EXPECT_EQ(mx.gen, (std::vector<int>{1}));
    EXPECT_TRUE(mx.applies_to(gpu::Arch::from("sm_90")));
    EXPECT_FALSE(mx.applies_to(gpu::Arch::from("sm_89")));
  }
  ASSERT_TRUE(l.step);
  EXPECT_EQ(l.step->order,
            (std::vector<std::string>{"qkv_proj", "o_proj", "gate_up_proj", "down_proj"}));
}

TEST(Spec, DefaultsApply) {
  const auto s = parse_spec(kMinimal, "t.toml");
  EXPECT_DOUBLE_EQ(s.pool.llc_factor, 4.0);
  EXPECT_DOUBLE_EQ(s.stop.rel_ci, 0.01);
  EXPECT_TRUE(s.space.empty());
  EXPECT_EQ(s.compile_arch, "sm_90");
}

TEST(Spec, BadInputIsNamed) {
  EXPECT_NE(error_of("name = ").find("line"), std::string::npos);
  EXPECT_NE(error_of(std::string(kMinimal) + "bogus = 1\n").find("unknown key 'bogus'"),
            std::string::npos);
  auto bad_n = std::string(kMinimal);
  bad_n.replace(bad_n.find("n = 256"), 7, "n = 250");
  EXPECT_NE(error_of(bad_n).find("multiple of 16"), std::string::npos);
  auto bad_k = std::string(kMinimal);
  bad_k.replace(bad_k.find("k = 5120"), 8, "k = 5000");
  EXPECT_NE(error_of(bad_k).find("multiple of 128"), std::string::npos);
  auto bad_band = std::string(kMinimal);
  bad_band.replace(bad_band.find("[16, 64]"), 8, "[64, 16]");
  EXPECT_NE(error_of(bad_band).find("ascending"), std::string::npos);
  auto big_band = std::string(kMinimal);
  big_band.replace(big_band.find("[16, 64]"), 8, "[16, 65]");
  EXPECT_NE(error_of(big_band).find("outside 1..64"), std::string::npos);
  auto bad_kernel = std::string(kMinimal);
  bad_kernel.replace(bad_kernel.find("gemm_w4a16_nt"), 13, "gemm_w3a16_nt");
  EXPECT_NE(error_of(bad_kernel).find("unknown kernel 'gemm_w3a16_nt'"), std::string::npos);
  EXPECT_NE(error_of(std::string(kMinimal) + "baselines = [\"fp4\"]\n").find("unknown baseline"),
            std::string::npos);
  EXPECT_NE(error_of(std::string(kMinimal) + "[stop]\nrel_ci = 0\n").find("stop.rel_ci"),
            std::string::npos);
  EXPECT_NE(error_of(std::string(kMinimal) + "[space.gemm_w4a16_nt]\nNT = [2]\n").find("NT"),
            std::string::npos);
  EXPECT_NE(error_of("name = \"x\"\n").find("kernels"), std::string::npos);
  EXPECT_NE(error_of(std::string(kMinimal) + "[stop]\nrel_cl = 0.1\n").find("'stop.rel_cl'"),
            std::string::npos);
  EXPECT_NE(error_of(std::string(kMinimal) + "[stop]\nscreen_ratio = 1.01\n").find("screen_ratio"),
            std::string::npos);
  EXPECT_NE(error_of(std::string(kMinimal) + "[stop]\nrace_after = 1\n").find("race_after"),
            std::string::npos);
  EXPECT_NE(error_of(std::string(kMinimal) + "[stop]\nrace_margin = -0.01\n").find("race_margin"),
            std::string::npos);
  EXPECT_NE(error_of(std::string(kMinimal) + "[stop]\nrace_margin = 0.5\n").find("race_margin"),
            std::string::npos);
  EXPECT_NE(error_of(std::string(kMinimal) + "[pool]\nscreen_slices = 0\n").find("screen_slices"),
            std::string::npos);
}

// [space.<kernel>] gen (numbers or names) and ST (the sm90a generation's stages); any other key
// in a space table is an error naming it.
TEST(Spec, SpaceGenerationAndStages) {
  const auto s = parse_spec(
      std::string(kMinimal) + "[space.gemm_w4a16_nt]\ngen = [\"sm90a\", 0]\nST = [6, 8]\n",
      "t.toml");
  EXPECT_EQ(s.space.at("gemm_w4a16_nt").gen, (std::vector<int>{1, 0}));
  EXPECT_EQ(s.space.at("gemm_w4a16_nt").st, (std::vector<int>{6, 8}));
  EXPECT_EQ(parse_spec(std::string(kMinimal) + "[space.gemm_w4a16_nt]\ngen = [1]\n", "t.toml")
                .space.at("gemm_w4a16_nt")
                .gen,
            (std::vector<int>{1}));
  const std::string space = std::string(kMinimal) + "[space.gemm_w4a16_nt]\n";
  EXPECT_EQ(parse_spec(space + "gen = [\"ldg\", 2]\n", "t.toml").space.at("gemm_w4a16_nt").gen,
            (std::vector<int>{2, 2}));
  EXPECT_NE(error_of(space + "gen = [3]\n").find("space.gemm_w4a16_nt.gen"), std::string::npos);
  EXPECT_NE(error_of(space + "gen = [\"sm80\"]\n").find("space.gemm_w4a16_nt.gen"),
            std::string::npos);
  EXPECT_NE(error_of(space + "gen = 1\n").find("space.gemm_w4a16_nt.gen"), std::string::npos);
  EXPECT_NE(error_of(space + "ST = [0]\n").find("1..64"), std::string::npos);
  EXPECT_NE(error_of(space + "stages = [4]\n").find("unknown key 'space.gemm_w4a16_nt.stages'"),
            std::string::npos);
}

// `arch` scopes a space table to some GPUs (by name; "sm_90" covers sm_90a); a name
// that is no GPU arch, an empty list or a non-list is an error naming the key.
TEST(Spec, SpaceScopedToArches) {
  const std::string space = std::string(kMinimal) + "[space.gemm_w4a16_nt]\ngen = [\"ldg\"]\n";
  const auto s = parse_spec(space + "arch = [\"sm_90\", \"gfx1201\"]\n", "t.toml");
  const auto& sp = s.space.at("gemm_w4a16_nt");
  ASSERT_EQ(sp.arch.size(), 2u);
  EXPECT_TRUE(sp.applies_to(gpu::Arch::from("sm_90")));
  EXPECT_TRUE(sp.applies_to(gpu::Arch::from("sm_90a")));
  EXPECT_TRUE(sp.applies_to(gpu::Arch::from("gfx1201")));
  EXPECT_FALSE(sp.applies_to(gpu::Arch::from("sm_80")));
  EXPECT_FALSE(sp.applies_to(gpu::Arch::from("gfx1200")));
  EXPECT_TRUE(parse_spec(space, "t.toml")
                  .space.at("gemm_w4a16_nt")
                  .applies_to(gpu::Arch::from("sm_80")));  // no arch: everywhere
  EXPECT_NE(error_of(space + "arch = [\"sm_91x\"]\n").find("space.gemm_w4a16_nt.arch: \"sm_91x\""),
            std::string::npos);
  EXPECT_NE(error_of(space + "arch = []\n").find("space.gemm_w4a16_nt.arch must not be empty"),
            std::string::npos);
  EXPECT_NE(error_of(space + "arch = \"sm_90\"\n").find("space.gemm_w4a16_nt.arch"),
            std::string::npos);
}

constexpr const char* kNamed = R"(
name = "t"
kernels = ["gemm_w4a16_nt"]
shapes = [{ name = "qkv", n = 3072, k = 5120 }, { name = "o", n = 5120, k = 2048 }]
bands = { limits = [16, 64] }
)";

TEST(Spec, StepIsOptional) {
  EXPECT_FALSE(parse_spec(kNamed, "t.toml").step);
}

TEST(Spec, StepResolvesItsChainWithRepeats) {
  const auto s =
      parse_spec(std::string(kNamed) + "[step]\norder = [\"qkv\", \"o\", \"qkv\"]\n", "t.toml");
  ASSERT_TRUE(s.step);
  EXPECT_EQ(s.step->name, "t");  // the spec's name by default
  EXPECT_EQ(s.step->chain, (std::vector<std::size_t>{0, 1, 0}));
  EXPECT_EQ(s.step->m, (std::vector<int>{1, 8, 16, 64}));  // band tops plus 1 and 8
  const auto named = parse_spec(
      std::string(kNamed) + "[step]\nname = \"layer\"\norder = [\"o\"]\nm = [32, 4, 32]\n",
      "t.toml");
  EXPECT_EQ(named.step->name, "layer");
  EXPECT_EQ(named.step->m, (std::vector<int>{4, 32}));  // ascending, unique
}

TEST(Spec, BadStepIsNamed) {
  const std::string base = kNamed;
  // An unknown shape: named, with the spec's names listed.
  std::string e = error_of(base + "[step]\norder = [\"qkv\", \"gate\"]\n");
  EXPECT_NE(e.find("t.toml: step.order[1]: unknown shape 'gate'"), std::string::npos) << e;
  EXPECT_NE(e.find("this spec's shapes: qkv, o"), std::string::npos) << e;
  // Shapes without names cannot be referenced, and the message says so.
  e = error_of(std::string(kMinimal) + "[step]\norder = [\"hidden\"]\n");
  EXPECT_NE(e.find("unknown shape 'hidden'"), std::string::npos) << e;
  EXPECT_NE(e.find("1 of its 1 shapes have no name and cannot be referenced"), std::string::npos)
      << e;
  // Empty, missing or mistyped order.
  e = error_of(base + "[step]\norder = []\n");
  EXPECT_NE(e.find("step.order is empty"), std::string::npos) << e;
  e = error_of(base + "[step]\nname = \"x\"\n");
  EXPECT_NE(e.find("step.order is required"), std::string::npos) << e;
  e = error_of(base + "[step]\norder = \"qkv\"\n");
  EXPECT_NE(e.find("step.order must be an array of strings"), std::string::npos) << e;
  // A step in a spec without shapes names the missing shapes, not a generic error.
  e = error_of(
      "name = \"t\"\nkernels = [\"gemm_w4a16_nt\"]\nbands = { limits = [16] }\n[step]\n"
      "order = [\"qkv\"]\n");
  EXPECT_NE(e.find("[step] chains the spec's shapes, but this spec has none"), std::string::npos)
      << e;
  // Unknown keys and bad M.
  e = error_of(base + "[step]\norder = [\"qkv\"]\nshapes = [\"o\"]\n");
  EXPECT_NE(e.find("unknown key 'step.shapes' (known: m, name, order)"), std::string::npos) << e;
  e = error_of(base + "[step]\norder = [\"qkv\"]\nm = [0]\n");
  EXPECT_NE(e.find("step.m: 0 is outside 1..64"), std::string::npos) << e;
  e = error_of(base + "[step]\norder = [\"qkv\"]\nm = [65]\n");
  EXPECT_NE(e.find("step.m: 65 is outside 1..64"), std::string::npos) << e;
  e = error_of(base + "[step]\norder = [\"qkv\"]\nm = []\n");
  EXPECT_NE(e.find("step.m is empty"), std::string::npos) << e;
  e = error_of(base + "[step]\norder = [\"qkv\"]\nname = \"\"\n");
  EXPECT_NE(e.find("step.name must not be empty"), std::string::npos) << e;
  e = error_of(base + "step = 3\n");
  EXPECT_NE(e.find("step must be a table"), std::string::npos) << e;
}

TEST(Spec, MissingFileIsNamed) {
  try {
    (void)load_spec("/no/such/spec.toml");
    FAIL();
  } catch (const SpecError& e) {
    EXPECT_NE(std::string(e.what()).find("/no/such/spec.toml"), std::string::npos);
  }
}

}  // namespace r4::tune
