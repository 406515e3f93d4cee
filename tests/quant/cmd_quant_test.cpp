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

#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <map>
#include <random>
#include <regex>
#include <string>

#include "quant/checkpoint.hpp"
#include "quant/gptq.hpp"
#include "quant/numeric.hpp"
#include "quant/pack.hpp"
#include "quant/pack_mx.hpp"
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

// One folder per test: ctest runs the tests of this file as parallel processes, and several
// write files of the same name.
fs::path tmp(const std::string& name) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const auto d = fs::path(R4_BINARY_ROOT) / "quant_cli_test" /
                 (std::string(info->test_suite_name()) + "." + info->name());
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

// ---- Bad checkpoints (issue 13): each refused with exit 3, a message naming the tensor, and no
// output: OUT is not created, and an OUT that was there before is left as it was.

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

// Runs `r4tune quant MODE IN OUT EXTRA` twice (OUT absent, then OUT holding a sentinel) and checks
// exit 3, every needle in the message, and OUT untouched (no temporary left beside it either).
void expect_refused(const std::string& mode, const fs::path& in, const std::string& extra,
                    const std::vector<std::string>& needles) {
  const auto out = tmp("refused_out.safetensors");
  for (const bool existed : {false, true}) {
    fs::remove(out);
    if (existed) std::ofstream(out, std::ios::binary) << "sentinel";
    const auto r = r4tune(mode + " " + in.string() + " " + out.string() + " " + extra);
    EXPECT_EQ(r.rc, 3) << mode << " " << in << "\n" << r.out;
    for (const auto& n : needles)
      EXPECT_NE(r.out.find(n), std::string::npos) << "want '" << n << "' in:\n" << r.out;
    if (existed)
      EXPECT_EQ(slurp(out), "sentinel") << "OUT was changed";
    else
      EXPECT_FALSE(fs::exists(out)) << "OUT was created";
    for (const auto& e : fs::directory_iterator(out.parent_path()))
      EXPECT_EQ(e.path().filename().string().find("refused_out.safetensors.tmp"), std::string::npos)
          << e.path();
  }
}

// A valid one-linear GPTQ file (K = 128, N = 8): qweight [16, 8], scales [1, 8], qzeros [1, 1].
struct Gptq {
  std::vector<std::uint32_t> qweight = std::vector<std::uint32_t>(16 * 8, 0x12345678U);
  std::vector<std::uint16_t> scales = std::vector<std::uint16_t>(8, f32_to_f16_bits(0.01F));
  std::vector<std::uint32_t> qzeros = {kGptqSymmetricZeros};
  std::vector<std::int64_t> scales_shape = {1, 8};
  std::vector<std::int64_t> qzeros_shape = {1, 1};
  std::map<std::string, std::string> metadata;
  fs::path write(const std::string& name) const {
    SafetensorsWriter w;
    for (const auto& [k, v] : metadata) w.set_metadata(k, v);
    w.add_values<std::uint32_t>("l.qweight", DType::i32, {16, 8}, qweight);
    w.add_values<std::uint16_t>("l.scales", DType::f16, scales_shape, scales);
    w.add_values<std::uint32_t>("l.qzeros", DType::i32, qzeros_shape, qzeros);
    w.write(tmp(name));
    return tmp(name);
  }
};

TEST(CmdQuantBadInput, GptqGoodFileConverts) {
  Gptq g;
  g.metadata["quantization_config"] = R"({"bits": 4, "group_size": 128, "sym": true})";
  const auto r = r4tune("gptq " + g.write("g_ok.safetensors").string() + " " +
                        tmp("g_ok_out.safetensors").string());
  ASSERT_EQ(r.rc, 0) << r.out;
  const SafetensorsFile f(tmp("g_ok_out.safetensors"));
  EXPECT_EQ(f.at("l.qweight").shape, (std::vector<std::int64_t>{8, 16}));
}

TEST(CmdQuantBadInput, GptqAsymmetric) {
  Gptq g;
  g.qzeros = {0x77777778U};
  expect_refused("gptq", g.write("g_asym.safetensors"), "",
                 {"'l.qzeros'", "not symmetric: 1 of 1 qzeros words differ from 0x77777777"});
}

TEST(CmdQuantBadInput, GptqGroupSize64FromScalesShape) {
  Gptq g;
  g.scales.assign(16, f32_to_f16_bits(0.01F));
  g.scales_shape = {2, 8};
  g.qzeros.assign(2, kGptqSymmetricZeros);
  g.qzeros_shape = {2, 1};
  expect_refused("gptq", g.write("g_g64.safetensors"), "",
                 {"'l.scales'", "mean group size 64 for K = 128; only 128 is supported"});
}

TEST(CmdQuantBadInput, GptqGroupSizeFromMetadata) {
  Gptq g;
  g.metadata["quantization_config"] = R"({"bits": 4, "group_size": 32, "sym": true})";
  expect_refused("gptq", g.write("g_meta.safetensors"), "",
                 {"'__metadata__.quantization_config'", "group_size is 32; only 128"});
  Gptq h;
  h.metadata["sym"] = "False";
  expect_refused("gptq", h.write("g_meta_sym.safetensors"), "",
                 {"'__metadata__.sym'", "sym is false; only symmetric"});
}

TEST(CmdQuantBadInput, GptqNonFiniteScales) {
  Gptq g;
  g.scales[3] = 0x7E00;  // f16 NaN
  expect_refused("gptq", g.write("g_nan.safetensors"), "",
                 {"'l.scales'", "non-finite value (NaN) at [0, 3]"});
  Gptq h;
  h.scales[5] = 0xFC00;  // f16 -inf
  expect_refused("gptq", h.write("g_inf.safetensors"), "",
                 {"'l.scales'", "non-finite value (inf) at [0, 5]"});
}

// The file cut short in its data section: the parser names the tensor that runs past the end.
TEST(CmdQuantBadInput, TruncatedFiles) {
  const auto cut = [](const fs::path& from, const std::string& to, std::size_t drop) {
    auto bytes = slurp(from);
    bytes.resize(bytes.size() - drop);
    std::ofstream(tmp(to), std::ios::binary) << bytes;
    return tmp(to);
  };
  const auto g = cut(Gptq().write("g_full.safetensors"), "g_cut.safetensors", 3);
  expect_refused("gptq", g, "", {"malformed", "tensor 'l.qzeros'", "past the end"});
  SafetensorsWriter w;
  w.add_values<float>("a.weight", DType::f32, {16, 128}, gaussian(16 * 128, 3));
  w.write(tmp("f_full.safetensors"));
  const auto f = cut(tmp("f_full.safetensors"), "f_cut.safetensors", 100);
  expect_refused("mxfp4", f, "", {"malformed", "tensor 'a.weight'", "past the end"});
  expect_refused("int4", f, "", {"malformed", "tensor 'a.weight'", "past the end"});
}

fs::path float_file(const std::string& file, const std::string& name, DType dt, std::int64_t n,
                    std::int64_t k, std::size_t bad_index = 0, float bad = 0.0F) {
  auto v = gaussian(static_cast<std::size_t>(n * k), 11);
  if (bad != 0.0F || std::isnan(bad)) v[bad_index] = bad;
  SafetensorsWriter w;
  if (dt == DType::f32) {
    w.add_values<float>(name, dt, {n, k}, v);
  } else {
    std::vector<std::uint16_t> h(v.size());
    for (std::size_t i = 0; i < v.size(); ++i)
      h[i] = dt == DType::bf16 ? f32_to_bf16_bits(v[i]) : f32_to_f16_bits(v[i]);
    w.add_values<std::uint16_t>(name, dt, {n, k}, h);
  }
  w.write(tmp(file));
  return tmp(file);
}

TEST(CmdQuantBadInput, Mxfp4KNotMultipleOf32) {
  expect_refused("mxfp4", float_file("m_k48.safetensors", "k.weight", DType::f32, 16, 48), "",
                 {"'k.weight'", "K = 48 is not a multiple of 32"});
}

// An NVFP4 triple with K = 48: packed [16, 24], e4m3 scales [16, 3].
TEST(CmdQuantBadInput, Nvfp4KNotMultipleOf32) {
  SafetensorsWriter w;
  w.add_values<std::uint8_t>("m.weight_packed", DType::u8, {16, 24},
                             std::vector<std::uint8_t>(16 * 24, 0x21));
  w.add_values<std::uint8_t>("m.weight_scale", DType::f8_e4m3, {16, 3},
                             std::vector<std::uint8_t>(16 * 3, 0x38));
  w.add_values<float>("m.weight_global_scale", DType::f32, {1}, std::vector<float>{2688.0F});
  w.write(tmp("nv_k48.safetensors"));
  expect_refused("mxfp4", tmp("nv_k48.safetensors"), "",
                 {"'m.weight_packed'", "means K = 48, not a multiple of 32"});
}

TEST(CmdQuantBadInput, NanAndInfWeights) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const auto bf_nan =
      float_file("w_bf_nan.safetensors", "a.weight", DType::bf16, 32, 256, 3 * 256 + 7, nan);
  const auto f16_inf =
      float_file("w_f16_inf.safetensors", "b.weight", DType::f16, 32, 256, 31 * 256 + 255, -inf);
  const auto f32_inf = float_file("w_f32_inf.safetensors", "c.weight", DType::f32, 32, 256, 1, inf);
  for (const std::string mode : {"int4", "mxfp4"}) {
    expect_refused(mode, bf_nan, "",
                   {"'a.weight'", "BF16 [32, 256]: non-finite value (NaN) at [3, 7]"});
    expect_refused(mode, f16_inf, "",
                   {"'b.weight'", "F16 [32, 256]: non-finite value (inf) at [31, 255]"});
    expect_refused(mode, f32_inf, "", {"'c.weight'", "non-finite value (inf) at [0, 1]"});
  }
}

// Finite inputs whose product overflows: e4m3 448 times a block scale of 1e38.
TEST(CmdQuantBadInput, OverflowAfterScaling) {
  SafetensorsWriter w;
  w.add_values<std::uint8_t>("e.weight", DType::f8_e4m3, {16, 128},
                             std::vector<std::uint8_t>(16 * 128, 0x7E));  // 448
  w.add_values<float>("e.weight_scale_inv", DType::f32, {1, 1}, std::vector<float>{1e38F});
  w.write(tmp("overflow.safetensors"));
  expect_refused("mxfp4", tmp("overflow.safetensors"), "",
                 {"'e.weight': the dequantised weight is not finite at [0, 0] (scaled by "
                  "'e.weight_scale_inv')"});
  expect_refused("int4", tmp("overflow.safetensors"), "",
                 {"'e.weight': row 0 has a non-finite weight"});
}

// NVFP4: an e4m3 NaN scale (0x7F), and a global scale of 0 or inf.
TEST(CmdQuantBadInput, Nvfp4NonFiniteScales) {
  const auto nv = [](const std::string& file, std::uint8_t scale_byte, float global) {
    SafetensorsWriter w;
    std::vector<std::uint8_t> sc(16 * 2, 0x38);
    sc[5] = scale_byte;
    w.add_values<std::uint8_t>("m.weight_packed", DType::u8, {16, 16},
                               std::vector<std::uint8_t>(16 * 16, 0x21));
    w.add_values<std::uint8_t>("m.weight_scale", DType::f8_e4m3, {16, 2}, sc);
    w.add_values<float>("m.weight_global_scale", DType::f32, {1}, std::vector<float>{global});
    w.write(tmp(file));
    return tmp(file);
  };
  expect_refused("mxfp4", nv("nv_nan.safetensors", 0x7F, 2688.0F), "",
                 {"'m.weight_scale'", "F8_E4M3 [16, 2]: non-finite value (NaN) at [2, 1]"});
  expect_refused("mxfp4", nv("nv_g0.safetensors", 0x38, 0.0F), "",
                 {"'m.weight_global_scale'", "not a finite non-zero divisor"});
  expect_refused("mxfp4", nv("nv_ginf.safetensors", 0x38, std::numeric_limits<float>::infinity()),
                 "", {"'m.weight_global_scale'", "not a finite non-zero divisor"});
}

// mxfp4_loader_fuzz's finding: an NVFP4 m.weight_packed beside an F32 m.weight both write
// m.weight; the writer threw std::invalid_argument (exit 1) after the work. Now refused up front.
TEST(CmdQuantBadInput, Mxfp4OutputNameClash) {
  SafetensorsWriter w;
  w.add_values<std::uint8_t>("m.weight_packed", DType::u8, {16, 16},
                             std::vector<std::uint8_t>(16 * 16, 0x21));
  w.add_values<std::uint8_t>("m.weight_scale", DType::f8_e4m3, {16, 2},
                             std::vector<std::uint8_t>(16 * 2, 0x38));
  w.add_values<float>("m.weight_global_scale", DType::f32, {1}, std::vector<float>{2688.0F});
  w.add_values<float>("m.weight", DType::f32, {16, 32}, gaussian(16 * 32, 4));
  w.write(tmp("clash.safetensors"));
  expect_refused("mxfp4", tmp("clash.safetensors"), "",
                 {"'m.weight': its output 'm.weight' is also written for 'm.weight_packed'"});
  SafetensorsWriter v;
  v.add_values<float>("a", DType::f32, {2, 32}, gaussian(2 * 32, 5));
  v.add_values<float>("a_scale", DType::f32, {2, 32}, gaussian(2 * 32, 6));
  v.write(tmp("clash2.safetensors"));
  expect_refused("mxfp4", tmp("clash2.safetensors"), "",
                 {"'a_scale': its output 'a_scale' is also written for 'a'"});
}

TEST(CmdQuantBadInput, Mxfp4LayoutShape) {
  expect_refused("mxfp4", float_file("m_n24.safetensors", "n.weight", DType::f32, 24, 64),
                 "--layout mx_sm89", {"'n.weight'", "N = 24 is not a multiple of 16"});
  EXPECT_EQ(r4tune("mxfp4 " + tmp("m_n24.safetensors").string() + " " +
                   tmp("x.safetensors").string() + " --layout sm80")
                .rc,
            2);
}

TEST(CmdQuant, Mxfp4LayoutMxSm89RoundTrips) {
  const auto in = float_file("m_ok.safetensors", "p.weight", DType::bf16, 32, 256);
  const auto r = r4tune("mxfp4 " + in.string() + " " + tmp("m_ok_out.safetensors").string() +
                        " --layout mx_sm89");
  ASSERT_EQ(r.rc, 0) << r.out;
  const SafetensorsFile f(tmp("m_ok_out.safetensors"));
  const auto codes = test::values<std::uint8_t>(f.at("p.weight"));
  const auto e8m0 = test::values<std::uint8_t>(f.at("p.weight_scale"));
  const Packed p{test::values<std::uint32_t>(f.at("p.weight.wq")),
                 test::values<std::uint32_t>(f.at("p.weight.wsz"))};
  std::vector<std::uint8_t> c2(codes.size()), e2(e8m0.size());
  unpack_mx_sm89(p, 32, 256, c2, e2);
  EXPECT_EQ(c2, codes);
  EXPECT_EQ(e2, e8m0);
}

// The library functions the Python layer calls throw CheckpointError with the tensor's name.
TEST(CheckpointLoaders, ThrowTypedErrorsNamingTheTensor) {
  Gptq g;
  g.qzeros = {0x12345678U};
  const SafetensorsFile gf(g.write("lib_asym.safetensors"));
  try {
    (void)load_gptq(gf.parsed());
    ADD_FAILURE() << "no throw";
  } catch (const CheckpointError& e) {
    EXPECT_EQ(e.tensor(), "l.qzeros");
    EXPECT_EQ(e.problem(), CheckpointProblem::asymmetric);
  }
  const SafetensorsFile mf(float_file("lib_k48.safetensors", "k.weight", DType::f32, 16, 48));
  try {
    (void)plan_mxfp4(mf.parsed());
    ADD_FAILURE() << "no throw";
  } catch (const CheckpointError& e) {
    EXPECT_EQ(e.tensor(), "k.weight");
    EXPECT_EQ(e.problem(), CheckpointProblem::k_multiple);
  }
  const SafetensorsFile nf(
      float_file("lib_nan.safetensors", "a.weight", DType::bf16, 16, 64, 17, std::nanf("")));
  try {
    (void)select_weights(nf.parsed());
    ADD_FAILURE() << "no throw";
  } catch (const CheckpointError& e) {
    EXPECT_EQ(e.tensor(), "a.weight");
    EXPECT_EQ(e.problem(), CheckpointProblem::non_finite);
  }
}

// The fuzz targets' seed corpora and reproducers, replayed in the normal build: each file converts
// or throws FormatError (CheckpointError included), as the fuzz targets require.
TEST(CheckpointLoaders, FuzzCorporaAndReproducersReplay) {
  const auto dir = fs::path(R4_SOURCE_ROOT) / "quant" / "fuzz";
  int files = 0;
  for (const char* sub : {"corpus_gptq", "corpus_mxfp4", "regressions"})
    for (const auto& e : fs::directory_iterator(dir / sub)) {
      const auto bytes = slurp(e.path());
      const std::span<const std::byte> file(reinterpret_cast<const std::byte*>(bytes.data()),
                                            bytes.size());
      ++files;
      try {
        const auto p = parse_safetensors(file);
        (void)load_gptq(p);
        for (const auto& s : plan_mxfp4(p)) (void)convert_mxfp4(s, ExpRule::mse);
      } catch (const FormatError&) {
      }
    }
  EXPECT_GE(files, 19);
  // mxfp4_loader_fuzz's crash input (an NVFP4 m.weight_packed beside an F32 m.weight).
  const auto crash = slurp(dir / "regressions" / "mxfp4_name_clash.safetensors");
  const auto p =
      parse_safetensors(std::span(reinterpret_cast<const std::byte*>(crash.data()), crash.size()));
  try {
    (void)plan_mxfp4(p);
    ADD_FAILURE() << "no throw";
  } catch (const CheckpointError& e) {
    EXPECT_EQ(e.problem(), CheckpointProblem::name_clash);
    EXPECT_EQ(e.tensor(), "m.weight");
  }
}

}  // namespace
}  // namespace r4::quant
