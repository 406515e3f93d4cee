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
  EXPECT_EQ(measured_ms(d), (std::vector<int>{1, 8, 16, 32, 48, 64}));
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

TEST(Spec, MissingFileIsNamed) {
  try {
    (void)load_spec("/no/such/spec.toml");
    FAIL();
  } catch (const SpecError& e) {
    EXPECT_NE(std::string(e.what()).find("/no/such/spec.toml"), std::string::npos);
  }
}

}  // namespace r4::tune
