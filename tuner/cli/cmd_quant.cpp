// r4tune quant {int4|mxfp4|gptq|inspect}: the quant/ library on safetensors files, CPU only.
//   int4 IN OUT    2-D floating tensors (and block-fp8 e4m3 ones, dequantised first) -> T.q,
//                  T.scale and, with --layout, the packed T.wq / T.wsz; prints relative RMS error
//   mxfp4 IN OUT   floating tensors and NVFP4 triples -> e2m1 + e8m0 per 32
//   gptq IN OUT    AutoRound/GPTQ qweight/scales/qzeros -> symmetric check, qweight [N, K/8]
//   inspect FILE   names, dtypes, shapes, bytes
// Bad files and shapes are InputError (exit 3), bad command lines UsageError (exit 2).
#include <unistd.h>

// GCC 12 reports a "potential null pointer dereference" inside Boost.Program_options'
// typed_value<std::string>::notify once it is inlined into this file's parsers (a middle-end
// false positive: the pointer is the address of a local std::string). Silenced for this file only.
// Likewise std::regex's "may be used uninitialized" in std::function under -fsanitize=address
// (GCC bug 105562, a GCC 12 regression).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wnull-dereference"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>
#include <regex>
#include <set>
#include <system_error>

#include <fmt/core.h>
#include <fmt/format.h>

#include "quant/fp8.hpp"
#include "quant/gptq.hpp"
#include "quant/int4.hpp"
#include "quant/mxfp4.hpp"
#include "quant/numeric.hpp"
#include "quant/pack.hpp"
#include "quant/safetensors.hpp"
#include "tuner/cli/command.hpp"
#include "tuner/cli/options.hpp"

namespace r4::cli {
namespace {

namespace q = r4::quant;

constexpr const char* kUsage =
    "r4tune quant int4 IN OUT [--group 128] [--clip-steps 20] [--layout gfx12|gfx942|sm80|none] "
    "[--tensors REGEX]\n"
    "       r4tune quant mxfp4 IN OUT [--exp mse|ocp|noclip] [--tensors REGEX]\n"
    "       r4tune quant gptq IN OUT\n"
    "       r4tune quant inspect FILE";

std::unique_ptr<q::SafetensorsFile> open_input(const std::string& path) {
  if (!std::filesystem::exists(path)) throw InputError("cannot read '" + path + "': no such file");
  try {
    return std::make_unique<q::SafetensorsFile>(path);
  } catch (const q::FormatError& e) {
    throw InputError(fmt::format("malformed safetensors file: {}", e.what()));
  } catch (const std::system_error& e) {
    throw InputError(e.what());
  }
}

std::string shape_str(const std::vector<std::int64_t>& s) {
  return fmt::format("[{}]", fmt::join(s, ", "));
}

// A live "\r" progress line on a terminal; nothing when stderr is a pipe or file.
class Progress {
 public:
  Progress() : tty_(::isatty(::fileno(stderr)) == 1) {}
  void start(std::string label, std::int64_t total) {
    label_ = std::move(label);
    total_ = total;
    update(0);
  }
  void update(std::int64_t done) const {
    if (!tty_) return;
    fmt::print(stderr, "\r  {} {:>3}%", label_, total_ > 0 ? 100 * done / total_ : 100);
    std::fflush(stderr);
  }
  void clear() const {
    if (!tty_) return;
    fmt::print(stderr, "\r{:<{}}\r", "", label_.size() + 8);
    std::fflush(stderr);
  }
  static void callback(void* self, std::int64_t done) {
    static_cast<Progress*>(self)->update(done);
  }

 private:
  bool tty_;
  std::string label_;
  std::int64_t total_ = 0;
};

// Companion scale of an e4m3 weight T: T_scale_inv, else T_scale (the seed's weight_scale_inv /
// weight_scale fallback); nullptr if none.
const q::TensorInfo* fp8_companion(const q::SafetensorsFile& f, const q::TensorInfo& t) {
  if (const auto* s = f.find(t.name + "_scale_inv")) return s;
  return f.find(t.name + "_scale");
}

std::vector<float> as_f32(const q::TensorInfo& t) {
  std::vector<float> v(static_cast<std::size_t>(t.numel()));
  const q::MatrixView m{t.bytes.data(), t.dtype, 1, t.numel()};
  q::load_row_f32(m, 0, v);
  return v;
}

// The weight of a block-fp8 (or per-channel fp8) tensor as f32 [N, K], the seed's
// _dequant_block_fp8 (bf16-rounded) for a [ceil(N/128), ceil(K/128)] scale, w * s[n] for [N, 1].
std::vector<float> dequant_fp8_weight(const q::TensorInfo& t, const q::TensorInfo& s) {
  const auto m = t.matrix();
  if (!q::is_float(s.dtype) || s.dtype == q::DType::f8_e4m3)
    throw InputError(
        fmt::format("'{}': scale '{}' is {}, not a float", t.name, s.name, q::to_string(s.dtype)));
  const auto sv = as_f32(s);
  std::vector<std::uint8_t> w(t.bytes.size());
  std::memcpy(w.data(), t.bytes.data(), w.size());
  const std::int64_t sr = s.shape.size() == 2 ? s.shape[0] : s.numel();
  const std::int64_t sc = s.shape.size() == 2 ? s.shape[1] : 1;
  if (sr == m.rows && sc == 1 && m.rows != 1) {  // per output channel
    std::vector<float> out(w.size());
    for (std::int64_t r = 0; r < m.rows; ++r)
      for (std::int64_t c = 0; c < m.cols; ++c) {
        const auto i = static_cast<std::size_t>(r * m.cols + c);
        out[i] = q::e4m3_to_f32(w[i]) * sv[static_cast<std::size_t>(r)];
      }
    return out;
  }
  try {
    return q::dequant_block_fp8(w, m.rows, m.cols, sv, sr, sc);
  } catch (const std::invalid_argument& e) {
    throw InputError(fmt::format("'{}': {}", t.name, e.what()));
  }
}

// One weight to quantise: either a view of the mapped file or an owned f32 copy.
struct Job {
  const q::TensorInfo* tensor;
  const q::TensorInfo* scale = nullptr;  // fp8 companion
};

std::optional<std::regex> make_regex(const std::string& pattern) {
  if (pattern.empty()) return std::nullopt;
  try {
    return std::regex(pattern);
  } catch (const std::regex_error& e) {
    throw UsageError(fmt::format("--tensors '{}' is not a valid regex: {}", pattern, e.what()));
  }
}

// The floating 2-D tensors of a file (and fp8 ones with a companion scale), minus companions.
std::vector<Job> weight_jobs(const q::SafetensorsFile& f, const std::optional<std::regex>& re,
                             const std::set<std::string>& also_skip) {
  std::set<std::string> companions = also_skip;
  for (const auto& t : f.tensors())
    if (t.dtype == q::DType::f8_e4m3 && t.shape.size() == 2)
      if (const auto* s = fp8_companion(f, t)) companions.insert(s->name);
  std::vector<Job> jobs;
  for (const auto& t : f.tensors()) {
    if (companions.count(t.name) || t.shape.size() != 2 || !q::is_float(t.dtype)) continue;
    if (re && !std::regex_search(t.name, *re)) continue;
    if (t.dtype == q::DType::f8_e4m3) {
      const auto* s = fp8_companion(f, t);
      if (s == nullptr) {
        fmt::print(stderr, "  skip {}: F8_E4M3 without a {}_scale_inv companion\n", t.name, t.name);
        continue;
      }
      jobs.push_back({&t, s});
    } else {
      jobs.push_back({&t, nullptr});
    }
  }
  return jobs;
}

void write_output(const q::SafetensorsWriter& w, const std::string& path) {
  try {
    w.write(path);
  } catch (const std::exception& e) {
    throw InputError(e.what());
  }
}

int run_int4(std::span<const std::string> args) {
  po::options_description desc("quant int4 options");
  std::string in, out, layout_name = "none", pattern;
  int group = 128, clip = 20;
  desc.add_options()("in", po::value(&in)->required(), "input .safetensors")(
      "out", po::value(&out)->required(), "output .safetensors")(
      "group", po::value(&group)->default_value(128), "K per scale")(
      "clip-steps", po::value(&clip)->default_value(20), "clip candidates (1 = plain absmax)")(
      "layout", po::value(&layout_name)->default_value("none"), "gfx12 | gfx942 | sm80 | none")(
      "tensors", po::value(&pattern), "only tensors whose name matches this regex");
  po::positional_options_description pos;
  pos.add("in", 1).add("out", 1);
  po::variables_map vm;
  if (!parse(args, kUsage, desc, pos, vm)) return ok;
  if (group < 1) throw UsageError("--group must be >= 1");
  std::optional<q::Layout> layout;
  if (layout_name != "none") {
    layout = q::parse_layout(layout_name);
    if (!layout)
      throw UsageError("--layout must be gfx12, gfx942, sm80 or none, not '" + layout_name + "'");
  }
  if (layout) {
    // Fail before any work when the layout's packer is not linked in (sm80 until the merge);
    // an empty pack either succeeds or complains about its (empty) shape, both fine here.
    try {
      (void)q::pack(*layout, {}, {}, 0, 0, group);
    } catch (const std::invalid_argument&) {
    }
  }
  const auto re = make_regex(pattern);
  const auto file = open_input(in);
  const auto jobs = weight_jobs(*file, re, {});
  if (jobs.empty()) throw InputError("no 2-D floating tensors to quantise in '" + in + "'");
  for (const auto& j : jobs) {  // check every shape before any work
    const auto& s = j.tensor->shape;
    if (s[1] % group != 0)
      throw InputError(fmt::format("'{}' {}: K = {} is not a multiple of the group {}",
                                   j.tensor->name, shape_str(s), s[1], group));
    if (layout && s[0] % 16 != 0)
      throw InputError(fmt::format("'{}' {}: N = {} is not a multiple of 16, which layout {} needs",
                                   j.tensor->name, shape_str(s), s[0], layout_name));
    if (layout == q::Layout::gfx12 && s[1] % 64 != 0)
      throw InputError(
          fmt::format("'{}' {}: K = {} is not a multiple of 64, which layout gfx12 needs",
                      j.tensor->name, shape_str(s), s[1]));
  }
  q::SafetensorsWriter writer;
  Progress progress;
  double sse = 0, ssq = 0;
  std::int64_t weights = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const auto& t = *jobs[i].tensor;
    const auto n = t.shape[0];
    const auto k = t.shape[1];
    std::vector<float> owned;
    q::MatrixView m = t.matrix();
    if (jobs[i].scale != nullptr) {
      owned = dequant_fp8_weight(t, *jobs[i].scale);
      m = {reinterpret_cast<const std::byte*>(owned.data()), q::DType::f32, n, k};
    }
    progress.start(fmt::format("[{}/{}] {}", i + 1, jobs.size(), t.name), n);
    q::Int4Quantized r;
    try {
      r = q::quantize_int4(m, group, clip, &Progress::callback, &progress);
    } catch (const std::invalid_argument& e) {
      progress.clear();
      throw InputError(fmt::format("'{}': {}", t.name, e.what()));
    }
    progress.clear();
    if (layout) {
      const auto p = q::pack(*layout, r.q, r.scale, n, k, group);
      writer.add_values<std::uint32_t>(t.name + ".wq", q::DType::u32,
                                       {static_cast<std::int64_t>(p.wq.size())}, p.wq);
      writer.add_values<std::uint32_t>(t.name + ".wsz", q::DType::u32,
                                       {static_cast<std::int64_t>(p.wsz.size())}, p.wsz);
    }
    writer.add_values<std::int8_t>(t.name + ".q", q::DType::i8, {n, k}, r.q);
    writer.add_values<float>(t.name + ".scale", q::DType::f32, {n, k / group}, r.scale);
    fmt::print("{:<48} {:<14} {:<8} rel RMS {:.4e}\n", t.name, shape_str(t.shape),
               jobs[i].scale ? "F8+scale" : std::string(q::to_string(t.dtype)), r.relative_rms());
    std::fflush(stdout);
    sse += r.sq_error;
    ssq += r.sq_norm;
    weights += n * k;
  }
  write_output(writer, out);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  fmt::print("total: {} tensors, {} weights, rel RMS {:.4e}, {:.2f} s -> {}\n", jobs.size(),
             weights, ssq > 0 ? std::sqrt(sse / ssq) : 0.0, secs, out);
  return ok;
}

int run_mxfp4(std::span<const std::string> args) {
  po::options_description desc("quant mxfp4 options");
  std::string in, out, rule_name = "mse", pattern;
  desc.add_options()("in", po::value(&in)->required(), "input .safetensors")(
      "out", po::value(&out)->required(), "output .safetensors")(
      "exp", po::value(&rule_name)->default_value("mse"),
      "block exponent rule: mse | ocp | noclip")("tensors", po::value(&pattern),
                                                 "only tensors whose name matches this regex");
  po::positional_options_description pos;
  pos.add("in", 1).add("out", 1);
  po::variables_map vm;
  if (!parse(args, kUsage, desc, pos, vm)) return ok;
  const auto rule = q::parse_exp_rule(rule_name);
  if (!rule) throw UsageError("--exp must be mse, ocp or noclip, not '" + rule_name + "'");
  const auto re = make_regex(pattern);
  const auto file = open_input(in);

  q::SafetensorsWriter writer;
  double sse = 0, ssq = 0;
  int count = 0;
  auto emit = [&](const std::string& base, const std::string& kind, std::int64_t n, std::int64_t k,
                  const q::Mxfp4Quantized& r) {
    writer.add_values<std::uint8_t>(base, q::DType::u8, {n, k / 2}, r.packed);
    writer.add_values<std::uint8_t>(base + "_scale", q::DType::u8, {n, k / 32}, r.e8m0);
    fmt::print("{:<48} {:<14} {:<8} rel RMS {:.4e}\n", base, shape_str({n, k}), kind,
               r.relative_rms());
    std::fflush(stdout);
    sse += r.sq_error;
    ssq += r.sq_norm;
    ++count;
  };
  // NVFP4 triples first: X.weight_packed + X.weight_scale (e4m3 per 16) + X.weight_global_scale.
  std::set<std::string> consumed;
  for (const auto& t : file->tensors()) {
    const std::string suffix = ".weight_packed";
    if (t.name.size() <= suffix.size() ||
        t.name.compare(t.name.size() - suffix.size(), suffix.size(), suffix) != 0)
      continue;
    const std::string x = t.name.substr(0, t.name.size() - suffix.size());
    const auto* sc = file->find(x + ".weight_scale");
    const auto* gs = file->find(x + ".weight_global_scale");
    if (sc == nullptr || gs == nullptr)
      throw InputError(
          fmt::format("'{}' has no {}.weight_scale / {}.weight_global_scale", t.name, x, x));
    if (re && !std::regex_search(x + ".weight", *re)) continue;
    if (t.dtype != q::DType::u8 || t.shape.size() != 2 || sc->dtype != q::DType::f8_e4m3 ||
        sc->shape.size() != 2 || !q::is_float(gs->dtype) || gs->dtype == q::DType::f8_e4m3)
      throw InputError(
          fmt::format("'{}': NVFP4 needs U8 [N, K/2], F8_E4M3 [N, K/16] and a float "
                      "global scale; got {} {}, {} {}, {} {}",
                      x, q::to_string(t.dtype), shape_str(t.shape), q::to_string(sc->dtype),
                      shape_str(sc->shape), q::to_string(gs->dtype), shape_str(gs->shape)));
    const std::int64_t n = t.shape[0];
    const std::int64_t k = t.shape[1] * 2;
    if (k % 32 != 0 || sc->shape[0] != n || sc->shape[1] * 16 != k)
      throw InputError(
          fmt::format("'{}': K = {} must be a multiple of 32 with scales [N, K/16]", x, k));
    const auto g = as_f32(*gs);
    const auto parts = static_cast<std::int64_t>(g.size());
    if (parts < 1 || n % parts != 0)
      throw InputError(
          fmt::format("'{}': {} global scales do not split N = {} evenly", x, parts, n));
    // One global divisor per partition of a merged linear (equal partitions of N).
    const std::int64_t width = n / parts;
    q::Mxfp4Quantized all;
    for (std::int64_t p = 0; p < parts; ++p) {
      const auto pk =
          std::span(reinterpret_cast<const std::uint8_t*>(t.bytes.data()), t.bytes.size())
              .subspan(static_cast<std::size_t>(p * width * k / 2),
                       static_cast<std::size_t>(width * k / 2));
      const auto sv =
          std::span(reinterpret_cast<const std::uint8_t*>(sc->bytes.data()), sc->bytes.size())
              .subspan(static_cast<std::size_t>(p * width * k / 16),
                       static_cast<std::size_t>(width * k / 16));
      const auto w = q::dequant_nvfp4(pk, sv, g[static_cast<std::size_t>(p)], width, k);
      auto r = q::quant_mxfp4(w, width, k, *rule);
      all.packed.insert(all.packed.end(), r.packed.begin(), r.packed.end());
      all.e8m0.insert(all.e8m0.end(), r.e8m0.begin(), r.e8m0.end());
      all.sq_error += r.sq_error;
      all.sq_norm += r.sq_norm;
    }
    emit(x + ".weight", "NVFP4", n, k, all);
    consumed.insert({t.name, sc->name, gs->name, x + ".input_global_scale"});
  }
  for (const auto& j : weight_jobs(*file, re, consumed)) {
    const auto& t = *j.tensor;
    const auto n = t.shape[0];
    const auto k = t.shape[1];
    if (k % 32 != 0)
      throw InputError(
          fmt::format("'{}' {}: K = {} is not a multiple of 32", t.name, shape_str(t.shape), k));
    std::vector<float> w;
    if (j.scale != nullptr) {
      w = dequant_fp8_weight(t, *j.scale);
    } else {
      w.resize(static_cast<std::size_t>(n * k));
      const auto m = t.matrix();
      for (std::int64_t r = 0; r < n; ++r)
        q::load_row_f32(
            m, r,
            std::span(w).subspan(static_cast<std::size_t>(r * k), static_cast<std::size_t>(k)));
    }
    emit(t.name, j.scale ? "F8+scale" : std::string(q::to_string(t.dtype)), n, k,
         q::quant_mxfp4(w, n, k, *rule));
  }
  if (count == 0) throw InputError("no floating or NVFP4 tensors to quantise in '" + in + "'");
  write_output(writer, out);
  fmt::print("total: {} tensors, exponent rule {}, rel RMS {:.4e} -> {}\n", count, rule_name,
             ssq > 0 ? std::sqrt(sse / ssq) : 0.0, out);
  return ok;
}

int run_gptq(std::span<const std::string> args) {
  po::options_description desc("quant gptq options");
  std::string in, out;
  desc.add_options()("in", po::value(&in)->required(), "input .safetensors")(
      "out", po::value(&out)->required(), "output .safetensors");
  po::positional_options_description pos;
  pos.add("in", 1).add("out", 1);
  po::variables_map vm;
  if (!parse(args, kUsage, desc, pos, vm)) return ok;
  const auto file = open_input(in);
  q::SafetensorsWriter writer;
  int count = 0;
  for (const auto& t : file->tensors()) {
    const std::string suffix = ".qweight";
    if (t.name.size() <= suffix.size() ||
        t.name.compare(t.name.size() - suffix.size(), suffix.size(), suffix) != 0)
      continue;
    const std::string x = t.name.substr(0, t.name.size() - suffix.size());
    const auto* sc = file->find(x + ".scales");
    const auto* qz = file->find(x + ".qzeros");
    if (sc == nullptr || qz == nullptr)
      throw InputError(fmt::format("'{}' has no {}.scales / {}.qzeros", t.name, x, x));
    const bool int32 = t.dtype == q::DType::i32 || t.dtype == q::DType::u32;
    const bool zint32 = qz->dtype == q::DType::i32 || qz->dtype == q::DType::u32;
    if (!int32 || t.shape.size() != 2 || sc->dtype != q::DType::f16 || sc->shape.size() != 2 ||
        !zint32 || qz->shape.size() != 2)
      throw InputError(fmt::format(
          "'{}': want qweight I32 [K/8, N], scales F16 [K/128, N], qzeros I32 [K/128, N/8]; got "
          "{} {}, {} {}, {} {}",
          x, q::to_string(t.dtype), shape_str(t.shape), q::to_string(sc->dtype),
          shape_str(sc->shape), q::to_string(qz->dtype), shape_str(qz->shape)));
    const std::int64_t k = t.shape[0] * q::kGptqPack;
    const std::int64_t n = t.shape[1];
    if (k % q::kGptqGroup != 0 || n % q::kGptqPack != 0 ||
        sc->shape != std::vector<std::int64_t>{k / q::kGptqGroup, n} ||
        qz->shape != std::vector<std::int64_t>{k / q::kGptqGroup, n / q::kGptqPack})
      throw InputError(fmt::format(
          "'{}': shapes disagree: qweight {} means K = {}, N = {}; scales {} and qzeros {} must "
          "be [K/128, N] and [K/128, N/8] with K % 128 == 0",
          x, shape_str(t.shape), k, n, shape_str(sc->shape), shape_str(qz->shape)));
    std::vector<std::uint32_t> zw(qz->bytes.size() / 4);
    std::memcpy(zw.data(), qz->bytes.data(), qz->bytes.size());
    try {
      q::require_symmetric(zw);
    } catch (const q::AsymmetricError& e) {
      throw InputError(fmt::format("'{}': {}", x, e.what()));
    }
    std::vector<std::uint32_t> qw(t.bytes.size() / 4);
    std::memcpy(qw.data(), t.bytes.data(), t.bytes.size());
    const auto qt = q::transpose_qweight(qw, k, n);
    writer.add_values<std::uint32_t>(x + ".qweight", t.dtype, {n, k / q::kGptqPack}, qt);
    writer.add(x + ".scales", q::DType::f16, sc->shape,
               std::vector<std::byte>(sc->bytes.begin(), sc->bytes.end()));
    fmt::print("{:<48} N={} K={} symmetric, qweight -> [{}, {}]\n", x, n, k, n, k / q::kGptqPack);
    ++count;
  }
  if (count == 0) throw InputError("no '*.qweight' tensors in '" + in + "'");
  write_output(writer, out);
  fmt::print("total: {} GPTQ linears -> {}\n", count, out);
  return ok;
}

int run_inspect(std::span<const std::string> args) {
  po::options_description desc("quant inspect options");
  std::string in;
  desc.add_options()("file", po::value(&in)->required(), ".safetensors file");
  po::positional_options_description pos;
  pos.add("file", 1);
  po::variables_map vm;
  if (!parse(args, kUsage, desc, pos, vm)) return ok;
  const auto file = open_input(in);
  std::size_t total = 0;
  fmt::print("{:<56} {:<8} {:<20} {:>12}\n", "name", "dtype", "shape", "bytes");
  for (const auto& t : file->tensors()) {
    fmt::print("{:<56} {:<8} {:<20} {:>12}\n", t.name, q::to_string(t.dtype), shape_str(t.shape),
               t.bytes.size());
    total += t.bytes.size();
  }
  for (const auto& [k, v] : file->metadata()) fmt::print("metadata {} = {}\n", k, v);
  fmt::print("{} tensors, {} bytes of data\n", file->tensors().size(), total);
  return ok;
}

}  // namespace

int run_quant(std::span<const std::string> args) {
  if (args.empty()) throw UsageError("missing mode: int4, mxfp4, gptq or inspect");
  const std::string& mode = args[0];
  const auto rest = args.subspan(1);
  if (mode == "--help" || mode == "-h") {
    fmt::print("usage: {}\n", kUsage);
    return ok;
  }
  if (mode == "int4") return run_int4(rest);
  if (mode == "mxfp4") return run_mxfp4(rest);
  if (mode == "gptq") return run_gptq(rest);
  if (mode == "inspect") return run_inspect(rest);
  throw UsageError("unknown mode '" + mode + "' (int4, mxfp4, gptq, inspect)");
}

}  // namespace r4::cli
