// r4tune quant {int4|mxfp4|gptq|inspect}: the quant/ library on safetensors files, CPU only.
//   int4 IN OUT    2-D floating tensors (and block-fp8 e4m3 ones, dequantised first) -> T.q,
//                  T.scale and, with --layout, the packed T.wq / T.wsz; prints relative RMS error
//   mxfp4 IN OUT   floating tensors and NVFP4 triples -> e2m1 + e8m0 per 32 and, with --layout
//                  mx_sm89, the packed T.wq / T.wsz
//   gptq IN OUT    AutoRound/GPTQ qweight/scales/qzeros -> symmetric check, qweight [N, K/8]
// The checks on checkpoint content live in quant/checkpoint.hpp (CheckpointError, which names the
// tensor), shared with the fuzz targets and the Python layer.
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
#include <filesystem>
#include <optional>
#include <regex>
#include <system_error>

#include <fmt/core.h>
#include <fmt/format.h>

#include "quant/checkpoint.hpp"
#include "quant/gptq.hpp"
#include "quant/int4.hpp"
#include "quant/mxfp4.hpp"
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
    "       r4tune quant mxfp4 IN OUT [--exp mse|ocp|noclip] [--layout mx_sm89|none] "
    "[--tensors REGEX]\n"
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

std::optional<std::regex> make_regex(const std::string& pattern) {
  if (pattern.empty()) return std::nullopt;
  try {
    return std::regex(pattern);
  } catch (const std::regex_error& e) {
    throw UsageError(fmt::format("--tensors '{}' is not a valid regex: {}", pattern, e.what()));
  }
}

q::TensorFilter make_filter(const std::optional<std::regex>& re) {
  if (!re) return {};
  return [&re](const std::string& name) { return std::regex_search(name, *re); };
}

// The 2-D weights a command quantises (quant/checkpoint.hpp); skipped fp8 ones are reported.
std::vector<q::WeightRef> weight_jobs(const q::SafetensorsFile& f,
                                      const std::optional<std::regex>& re) {
  auto sel = q::select_weights(f.parsed(), make_filter(re));
  for (const auto& name : sel.skipped)
    fmt::print(stderr, "  skip {}: F8_E4M3 without a {}_scale_inv companion\n", name, name);
  return std::move(sel.weights);
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
  const auto jobs = weight_jobs(*file, re);
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
      owned = q::weight_f32(jobs[i]);
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
  std::string in, out, rule_name = "mse", pattern, layout_name = "none";
  desc.add_options()("in", po::value(&in)->required(), "input .safetensors")(
      "out", po::value(&out)->required(), "output .safetensors")(
      "exp", po::value(&rule_name)->default_value("mse"),
      "block exponent rule: mse | ocp | noclip")(
      "layout", po::value(&layout_name)->default_value("none"), "mx_sm89 | none")(
      "tensors", po::value(&pattern), "only tensors whose name matches this regex");
  po::positional_options_description pos;
  pos.add("in", 1).add("out", 1);
  po::variables_map vm;
  if (!parse(args, kUsage, desc, pos, vm)) return ok;
  const auto rule = q::parse_exp_rule(rule_name);
  if (!rule) throw UsageError("--exp must be mse, ocp or noclip, not '" + rule_name + "'");
  if (layout_name != "mx_sm89" && layout_name != "none")
    throw UsageError("--layout must be mx_sm89 or none, not '" + layout_name + "'");
  const bool mx_sm89 = layout_name == "mx_sm89";
  const auto re = make_regex(pattern);
  const auto file = open_input(in);
  // Everything is checked before any work (quant/checkpoint.hpp), the layout's shapes too.
  const auto plan = q::plan_mxfp4(file->parsed(), make_filter(re));
  if (plan.empty()) throw InputError("no floating or NVFP4 tensors to quantise in '" + in + "'");
  if (mx_sm89)
    for (const auto& s : plan) q::check_mx_sm89_shape(s.name, s.n, s.k);

  q::SafetensorsWriter writer;
  double sse = 0, ssq = 0;
  for (const auto& s : plan) {
    const auto r = q::convert_mxfp4(s, *rule);
    std::optional<q::Packed> packed;
    if (mx_sm89) packed = q::pack_mx_sm89_checked(s.name, r, s.n, s.k);
    q::add_mxfp4_tensors(writer, s.name, r, s.n, s.k, packed ? &*packed : nullptr);
    fmt::print("{:<48} {:<14} {:<8} rel RMS {:.4e}\n", s.name, shape_str({s.n, s.k}), s.kind,
               r.relative_rms());
    std::fflush(stdout);
    sse += r.sq_error;
    ssq += r.sq_norm;
  }
  write_output(writer, out);
  fmt::print("total: {} tensors, exponent rule {}, rel RMS {:.4e} -> {}\n", plan.size(), rule_name,
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
  const auto linears = q::load_gptq(file->parsed());  // every check before any output
  if (linears.empty()) throw InputError("no '*.qweight' tensors in '" + in + "'");
  q::SafetensorsWriter writer;
  for (const auto& l : linears) {
    q::add_gptq_tensors(writer, l);
    fmt::print("{:<48} N={} K={} symmetric, qweight -> [{}, {}]\n", l.name, l.n, l.k, l.n,
               l.k / q::kGptqPack);
  }
  write_output(writer, out);
  fmt::print("total: {} GPTQ linears -> {}\n", linears.size(), out);
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
  try {
    if (mode == "int4") return run_int4(rest);
    if (mode == "mxfp4") return run_mxfp4(rest);
    if (mode == "gptq") return run_gptq(rest);
    if (mode == "inspect") return run_inspect(rest);
  } catch (const q::FormatError& e) {  // CheckpointError included: it names the tensor
    throw InputError(e.what());
  }
  throw UsageError("unknown mode '" + mode + "' (int4, mxfp4, gptq, inspect)");
}

}  // namespace r4::cli
