// `r4tune quant` end to end: runs the built binary on files written here, checks exit codes,
// messages and outputs. The Gaussian round trip is DESIGN.md's number: the clip-searched int4
// quantiser leaves a relative RMS error of about 1.01e-1 on N(0, 1) weights.
#include <sys/wait.h>

// std::regex trips GCC 12's -Wmaybe-uninitialized inside std::function under -fsanitize=address
// (GCC bug 105562); silenced for this file only.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <regex>
#include <string>

#include "quant/numeric.hpp"
#include "quant/pack.hpp"
#include "quant/safetensors.hpp"
#include "tests/quant/fixture.hpp"

namespace r4::quant {
namespace {

namespace fs = std::filesystem;

struct Result {
  int rc;
  std::string out;
};

Result r4tune(const std::string& args) {
  const std::string cmd = std::string(R4_BINARY_ROOT) + "/tuner/r4tune quant " + args + " 2>&1";
  FILE* p = ::popen(cmd.c_str(), "r");
  if (p == nullptr) return {-1, "popen failed"};
  std::string out;
  char buf[4096];
  while (const auto n = std::fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  const int st = ::pclose(p);
  return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, out};
}

fs::path tmp(const std::string& name) {
  const auto d = fs::path(R4_BINARY_ROOT) / "quant_cli_test";
  fs::create_directories(d);
  return d / name;
}

std::vector<float> gaussian(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> nd(0.0F, 1.0F);
  std::vector<float> v(n);
  for (auto& x : v) x = nd(rng);
  return v;
}

double total_rel(const std::string& out) {
  std::smatch m;
  static const std::regex re(R"(total: .* rel RMS ([0-9.e+-]+))");
  if (!std::regex_search(out, m, re)) return -1.0;
  return std::stod(m[1].str());
}

TEST(CmdQuant, Int4GaussianRoundTripIsAbout0101) {
  const std::int64_t n = 1024;
  const std::int64_t k = 4096;
  SafetensorsWriter w;
  const auto v = gaussian(static_cast<std::size_t>(n * k), 5);
  w.add_values<float>("layer.weight", DType::f32, {n, k}, v);
  w.add_values<float>("layer.bias", DType::f32, {n},
                      std::span(v).first(static_cast<std::size_t>(n)));
  w.write(tmp("gauss.safetensors"));
  const auto r = r4tune("int4 " + tmp("gauss.safetensors").string() + " " +
                        tmp("gauss_q.safetensors").string() + " --layout gfx12");
  ASSERT_EQ(r.rc, 0) << r.out;
  const double rel = total_rel(r.out);
  EXPECT_GE(rel, 0.095) << r.out;
  EXPECT_LE(rel, 0.105) << r.out;
  std::printf("%s", r.out.c_str());

  const SafetensorsFile f(tmp("gauss_q.safetensors"));
  EXPECT_EQ(f.tensors().size(), 4U);  // the bias is 1-D: not touched
  const auto& q = f.at("layer.weight.q");
  const auto& s = f.at("layer.weight.scale");
  EXPECT_EQ(q.dtype, DType::i8);
  EXPECT_EQ(q.shape, (std::vector<std::int64_t>{n, k}));
  EXPECT_EQ(s.shape, (std::vector<std::int64_t>{n, k / 128}));
  EXPECT_EQ(f.at("layer.weight.wq").numel(), n * k / 8);
  EXPECT_EQ(f.at("layer.weight.wsz").numel(), n * k / 128);
  Packed p{test::values<std::uint32_t>(f.at("layer.weight.wq")),
           test::values<std::uint32_t>(f.at("layer.weight.wsz"))};
  std::vector<std::int8_t> q2(static_cast<std::size_t>(n * k));
  std::vector<float> s2(static_cast<std::size_t>(n * k / 128));
  unpack(Layout::gfx12, p, n, k, 128, q2, s2);
  EXPECT_EQ(q2, test::values<std::int8_t>(q));
}

TEST(CmdQuant, Int4TakesBf16AndBlockFp8WithItsScale) {
  SafetensorsWriter w;
  const auto v = gaussian(32 * 256, 6);
  std::vector<std::uint16_t> bf(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) bf[i] = f32_to_bf16_bits(v[i]);
  w.add_values<std::uint16_t>("a.weight", DType::bf16, {32, 256}, bf);
  std::vector<std::uint8_t> e4(32 * 256, 0x38);  // 1.0
  w.add_values<std::uint8_t>("b.weight", DType::f8_e4m3, {32, 256}, e4);
  const std::vector<float> sinv = {0.5F, 0.25F};
  w.add_values<float>("b.weight_scale_inv", DType::f32, {1, 2}, sinv);
  w.write(tmp("mixed.safetensors"));
  const auto r =
      r4tune("int4 " + tmp("mixed.safetensors").string() + " " +
             tmp("mixed_q.safetensors").string() + " --group 64 --clip-steps 5 --tensors weight$");
  ASSERT_EQ(r.rc, 0) << r.out;
  const SafetensorsFile f(tmp("mixed_q.safetensors"));
  EXPECT_NE(f.find("a.weight.q"), nullptr);
  EXPECT_NE(f.find("b.weight.scale"), nullptr);
  EXPECT_EQ(f.find("b.weight_scale_inv.q"), nullptr);  // a companion, not a weight
  // b = 0.5 in the first 128 columns, 0.25 after: exact at 4 bits, error 0.
  EXPECT_NE(r.out.find("b.weight"), std::string::npos);
  const auto q = test::values<std::int8_t>(f.at("b.weight.q"));
  const auto s = test::values<float>(f.at("b.weight.scale"));
  EXPECT_EQ(q[0], 7);
  EXPECT_FLOAT_EQ(s[0], 0.5F / 7.0F);
  EXPECT_FLOAT_EQ(s[3], 0.25F / 7.0F);
}

TEST(CmdQuant, BadInputsAreCleanErrors) {
  SafetensorsWriter w;
  w.add_values<float>("odd", DType::f32, {16, 200}, std::vector<float>(16 * 200, 1.0F));
  w.write(tmp("odd_k.safetensors"));
  SafetensorsWriter w2;
  w2.add_values<float>("odd", DType::f32, {24, 128}, std::vector<float>(24 * 128, 1.0F));
  w2.write(tmp("odd_n.safetensors"));
  {
    std::FILE* f = std::fopen(tmp("junk.safetensors").c_str(), "wb");
    std::fputs("\x10\0\0\0\0\0\0\0{\"a\":", f);
    std::fclose(f);
  }
  const auto out = tmp("x.safetensors").string();
  struct Case {
    std::string args;
    int rc;
    const char* needle;
  };
  const Case cases[] = {
      {tmp("odd_k.safetensors").string() + " " + out, 3, "not a multiple of the group 128"},
      {tmp("odd_n.safetensors").string() + " " + out + " --layout gfx12", 3,
       "N = 24 is not a multiple of 16"},
      {"/nonexistent.safetensors " + out, 3, "no such file"},
      {tmp("junk.safetensors").string() + " " + out, 3, "malformed"},
      {tmp("odd_n.safetensors").string() + " " + out + " --layout mips", 2, "--layout"},
      {tmp("odd_n.safetensors").string(), 2, "out"},
      {tmp("odd_n.safetensors").string() + " " + out + " --frobnicate", 2, "frobnicate"},
      {tmp("odd_n.safetensors").string() + " " + out + " --tensors '('", 2, "regex"},
  };
  for (const auto& c : cases) {
    const auto r = r4tune("int4 " + c.args);
    EXPECT_EQ(r.rc, c.rc) << c.args << "\n" << r.out;
    EXPECT_NE(r.out.find(c.needle), std::string::npos) << c.args << "\n" << r.out;
  }
  EXPECT_EQ(r4tune("warp9 a b").rc, 2);
  EXPECT_EQ(r4tune("").rc, 2);
  EXPECT_EQ(r4tune("mxfp4 " + tmp("odd_k.safetensors").string() + " " + out + " --exp max").rc, 2);
}

TEST(CmdQuant, GptqChecksSymmetryAndTransposes) {
  const SafetensorsFile fx(test::fixture_path("gptq.safetensors"));
  auto copy = [&](SafetensorsWriter& w, const std::string& from, const std::string& to) {
    const auto& t = fx.at(from);
    w.add(to, t.dtype, t.shape, std::vector<std::byte>(t.bytes.begin(), t.bytes.end()));
  };
  SafetensorsWriter good;
  copy(good, "qweight", "l.qweight");
  copy(good, "scales", "l.scales");
  copy(good, "qzeros", "l.qzeros");
  good.write(tmp("gptq_good.safetensors"));
  SafetensorsWriter bad;
  copy(bad, "qweight", "l.qweight");
  copy(bad, "scales", "l.scales");
  copy(bad, "qzeros_bad", "l.qzeros");
  bad.write(tmp("gptq_bad.safetensors"));

  const auto r = r4tune("gptq " + tmp("gptq_good.safetensors").string() + " " +
                        tmp("gptq_out.safetensors").string());
  ASSERT_EQ(r.rc, 0) << r.out;
  const SafetensorsFile f(tmp("gptq_out.safetensors"));
  EXPECT_EQ(f.at("l.qweight").shape, (std::vector<std::int64_t>{64, 32}));
  EXPECT_EQ(test::values<std::uint32_t>(f.at("l.qweight")),
            test::values<std::uint32_t>(fx.at("qweight_t")));
  const auto rb = r4tune("gptq " + tmp("gptq_bad.safetensors").string() + " " +
                         tmp("gptq_out2.safetensors").string());
  EXPECT_EQ(rb.rc, 3) << rb.out;
  EXPECT_NE(rb.out.find("not symmetric: 2 of 16 qzeros words"), std::string::npos) << rb.out;
}

TEST(CmdQuant, Mxfp4FromFloatAndNvfp4) {
  const SafetensorsFile fx(test::fixture_path("nvfp4.safetensors"));
  SafetensorsWriter w;
  const auto& pk = fx.at("packed_nv");
  const auto& sc = fx.at("scale_nv");
  w.add("m.weight_packed", DType::u8, pk.shape, {pk.bytes.begin(), pk.bytes.end()});
  w.add("m.weight_scale", DType::f8_e4m3, sc.shape, {sc.bytes.begin(), sc.bytes.end()});
  const auto& gd = fx.at("global_divisor");
  w.add("m.weight_global_scale", DType::f32, {1}, {gd.bytes.begin(), gd.bytes.end()});
  const auto v = gaussian(64 * 256, 9);
  w.add_values<float>("d.weight", DType::f32, {64, 256}, v);
  w.write(tmp("nv.safetensors"));
  const auto r =
      r4tune("mxfp4 " + tmp("nv.safetensors").string() + " " + tmp("nv_out.safetensors").string());
  ASSERT_EQ(r.rc, 0) << r.out;
  const SafetensorsFile f(tmp("nv_out.safetensors"));
  EXPECT_EQ(test::values<std::uint8_t>(f.at("m.weight")),
            test::values<std::uint8_t>(fx.at("packed_mse")));
  EXPECT_EQ(test::values<std::uint8_t>(f.at("m.weight_scale")),
            test::values<std::uint8_t>(fx.at("e8m0_mse")));
  EXPECT_EQ(f.at("d.weight").shape, (std::vector<std::int64_t>{64, 128}));
  EXPECT_EQ(f.at("d.weight_scale").shape, (std::vector<std::int64_t>{64, 8}));
  EXPECT_NE(r.out.find("rel RMS"), std::string::npos);

  const auto ri = r4tune("inspect " + tmp("nv_out.safetensors").string());
  EXPECT_EQ(ri.rc, 0);
  EXPECT_NE(ri.out.find("m.weight_scale"), std::string::npos) << ri.out;
  EXPECT_NE(ri.out.find("[64, 8]"), std::string::npos) << ri.out;
}

}  // namespace
}  // namespace r4::quant
