#include "quant/checkpoint.hpp"

#include <cmath>
#include <cstring>
#include <set>
#include <stdexcept>

#include <fmt/core.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "quant/fp8.hpp"
#include "quant/gptq.hpp"
#include "quant/numeric.hpp"
#include "quant/pack_mx.hpp"

namespace r4::quant {
namespace {

using Shape = std::vector<std::int64_t>;

std::string shape_str(const Shape& s) {
  return fmt::format("[{}]", fmt::join(s, ", "));
}

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() > suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool is_int32(DType t) {
  return t == DType::i32 || t == DType::u32;
}

// A float tensor the loaders read as f32 values (not F8_E4M3, which needs its own scale).
bool is_plain_float(DType t) {
  return is_float(t) && t != DType::f8_e4m3;
}

[[noreturn]] void fail(CheckpointProblem p, const std::string& tensor, const std::string& msg) {
  throw CheckpointError(p, tensor, msg);
}

// Every element of t in f32, flat (t is floating: see is_float).
std::vector<float> flat_f32(const TensorInfo& t) {
  std::vector<float> v(static_cast<std::size_t>(t.numel()));
  if (v.empty()) return v;
  const MatrixView m{t.bytes.data(), t.dtype, 1, t.numel()};
  load_row_f32(m, 0, v);
  return v;
}

// Index of the first non-finite value, or -1.
std::int64_t first_non_finite(std::span<const float> v) {
  for (std::size_t i = 0; i < v.size(); ++i)
    if (!std::isfinite(v[i])) return static_cast<std::int64_t>(i);
  return -1;
}

std::string where(const TensorInfo& t, std::int64_t i) {
  if (t.shape.size() == 2 && t.shape[1] > 0)
    return fmt::format("[{}, {}]", i / t.shape[1], i % t.shape[1]);
  return fmt::format("flat index {}", i);
}

const TensorInfo* find(const Parsed& f, const std::string& name) {
  for (const auto& t : f.tensors)
    if (t.name == name) return &t;
  return nullptr;
}

const TensorInfo* fp8_companion(const Parsed& f, const TensorInfo& t) {
  if (const auto* s = find(f, t.name + "_scale_inv")) return s;
  return find(f, t.name + "_scale");
}

void require_2d_nonempty(const TensorInfo& t) {
  if (t.shape.size() != 2 || t.shape[0] == 0 || t.shape[1] == 0)
    fail(CheckpointProblem::shape, t.name,
         fmt::format("shape {} is not a non-empty 2-D matrix", shape_str(t.shape)));
}

// One metadata value (a JSON value from quantization_config, or a flat string) against what the
// kernels take.
void check_gptq_key(const std::string& where_key, const std::string& key, const nlohmann::json& v) {
  if (key == "group_size") {
    if (!v.is_number_integer() || v.get<std::int64_t>() != kGptqGroup)
      fail(CheckpointProblem::group_size, where_key,
           fmt::format("group_size is {}; only {} is supported (the kernels' K slab is one group)",
                       v.dump(), kGptqGroup));
  } else if (key == "bits") {
    if (!v.is_number_integer() || v.get<std::int64_t>() != 4)
      fail(CheckpointProblem::metadata, where_key,
           fmt::format("bits is {}; only 4-bit checkpoints are supported", v.dump()));
  } else if (key == "sym") {
    if (!v.is_boolean() || !v.get<bool>())
      fail(CheckpointProblem::asymmetric, where_key,
           fmt::format("sym is {}; only symmetric checkpoints (zero = 8) are supported", v.dump()));
  }
}

}  // namespace

std::string_view to_string(CheckpointProblem p) {
  switch (p) {
    case CheckpointProblem::missing:
      return "missing";
    case CheckpointProblem::dtype:
      return "dtype";
    case CheckpointProblem::shape:
      return "shape";
    case CheckpointProblem::group_size:
      return "group_size";
    case CheckpointProblem::asymmetric:
      return "asymmetric";
    case CheckpointProblem::k_multiple:
      return "k_multiple";
    case CheckpointProblem::non_finite:
      return "non_finite";
    case CheckpointProblem::layout:
      return "layout";
    case CheckpointProblem::name_clash:
      return "name_clash";
    case CheckpointProblem::metadata:
      return "metadata";
  }
  return "?";
}

CheckpointError::CheckpointError(CheckpointProblem problem, std::string tensor,
                                 const std::string& message)
    : FormatError(tensor.empty() ? message : fmt::format("'{}': {}", tensor, message)),
      problem_(problem),
      tensor_(std::move(tensor)) {}

void require_finite(const TensorInfo& t) {
  if (!is_float(t.dtype)) return;
  const auto v = flat_f32(t);
  const auto i = first_non_finite(v);
  if (i >= 0)
    fail(CheckpointProblem::non_finite, t.name,
         fmt::format("{} {}: non-finite value ({}) at {}", to_string(t.dtype), shape_str(t.shape),
                     std::isnan(v[static_cast<std::size_t>(i)]) ? "NaN" : "inf", where(t, i)));
}

WeightSelection select_weights(const Parsed& file, const TensorFilter& select,
                               const std::vector<std::string>& skip) {
  std::set<std::string> companions(skip.begin(), skip.end());
  for (const auto& t : file.tensors)
    if (t.dtype == DType::f8_e4m3 && t.shape.size() == 2)
      if (const auto* s = fp8_companion(file, t)) companions.insert(s->name);
  WeightSelection out;
  for (const auto& t : file.tensors) {
    if (companions.count(t.name) != 0 || t.shape.size() != 2 || !is_float(t.dtype)) continue;
    if (select && !select(t.name)) continue;
    const TensorInfo* scale = nullptr;
    if (t.dtype == DType::f8_e4m3) {
      scale = fp8_companion(file, t);
      if (scale == nullptr) {
        out.skipped.push_back(t.name);
        continue;
      }
      require_finite(*scale);
    }
    require_finite(t);
    out.weights.push_back({&t, scale});
  }
  return out;
}

std::vector<float> weight_f32(const WeightRef& w) {
  const auto& t = *w.tensor;
  const auto m = t.matrix();
  if (w.scale == nullptr) {
    std::vector<float> out(static_cast<std::size_t>(m.rows * m.cols));
    for (std::int64_t r = 0; r < m.rows; ++r)
      load_row_f32(m, r,
                   std::span(out).subspan(static_cast<std::size_t>(r * m.cols),
                                          static_cast<std::size_t>(m.cols)));
    return out;
  }
  const auto& s = *w.scale;
  if (!is_plain_float(s.dtype))
    fail(CheckpointProblem::dtype, t.name,
         fmt::format("scale '{}' is {}, not a float", s.name, to_string(s.dtype)));
  const auto sv = flat_f32(s);
  std::vector<std::uint8_t> bytes(t.bytes.size());
  if (!bytes.empty()) std::memcpy(bytes.data(), t.bytes.data(), bytes.size());
  const std::int64_t sr = s.shape.size() == 2 ? s.shape[0] : s.numel();
  const std::int64_t sc = s.shape.size() == 2 ? s.shape[1] : 1;
  if (sr == m.rows && sc == 1 && m.rows != 1) {  // per output channel
    std::vector<float> out(bytes.size());
    for (std::int64_t r = 0; r < m.rows; ++r)
      for (std::int64_t c = 0; c < m.cols; ++c) {
        const auto i = static_cast<std::size_t>(r * m.cols + c);
        out[i] = e4m3_to_f32(bytes[i]) * sv[static_cast<std::size_t>(r)];
      }
    return out;
  }
  try {
    return dequant_block_fp8(bytes, m.rows, m.cols, sv, sr, sc);
  } catch (const std::invalid_argument& e) {
    fail(CheckpointProblem::shape, t.name, e.what());
  }
}

void check_gptq_metadata(const std::map<std::string, std::string>& metadata) {
  if (const auto it = metadata.find("quantization_config"); it != metadata.end()) {
    const std::string key = "__metadata__.quantization_config";
    const auto j = nlohmann::json::parse(it->second, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.is_object())
      fail(CheckpointProblem::metadata, key, "is not a JSON object");
    for (const char* k : {"bits", "group_size", "sym"})
      if (const auto v = j.find(k); v != j.end()) check_gptq_key(key, k, *v);
  }
  for (const char* k : {"bits", "group_size", "sym"}) {
    const auto it = metadata.find(k);
    if (it == metadata.end()) continue;
    // Flat string values: "128", "4", "true" / "True" (Python's str(True)).
    const std::string& s = it->second;
    nlohmann::json v = s;
    if (s == "true" || s == "True")
      v = true;
    else if (s == "false" || s == "False")
      v = false;
    else if (!s.empty() && s.size() < 19 && s.find_first_not_of("0123456789") == std::string::npos)
      v = std::stoll(s);
    check_gptq_key(std::string("__metadata__.") + k, k, v);
  }
}

std::vector<GptqLinear> load_gptq(const Parsed& file) {
  check_gptq_metadata(file.metadata);
  struct Triple {
    const TensorInfo* qw;
    const TensorInfo* sc;
    const TensorInfo* qz;
    std::string x;
    std::int64_t n, k;
  };
  std::vector<Triple> found;
  for (const auto& t : file.tensors) {
    if (!ends_with(t.name, ".qweight")) continue;
    const std::string x = t.name.substr(0, t.name.size() - std::string_view(".qweight").size());
    const auto* sc = find(file, x + ".scales");
    const auto* qz = find(file, x + ".qzeros");
    if (sc == nullptr || qz == nullptr)
      fail(CheckpointProblem::missing, t.name, fmt::format("has no {}.scales / {}.qzeros", x, x));
    if (!is_int32(t.dtype) || sc->dtype != DType::f16 || !is_int32(qz->dtype))
      fail(CheckpointProblem::dtype, x,
           fmt::format("want qweight I32 [K/8, N], scales F16 [K/128, N], qzeros I32 "
                       "[K/128, N/8]; got {} {}, {} {}, {} {}",
                       to_string(t.dtype), shape_str(t.shape), to_string(sc->dtype),
                       shape_str(sc->shape), to_string(qz->dtype), shape_str(qz->shape)));
    require_2d_nonempty(t);
    require_2d_nonempty(*sc);
    require_2d_nonempty(*qz);
    const std::int64_t k = t.shape[0] * kGptqPack;
    const std::int64_t n = t.shape[1];
    // The group size the scales imply: K / rows of scales, when that divides.
    if (sc->shape[1] == n && k % sc->shape[0] == 0 && k / sc->shape[0] != kGptqGroup)
      fail(CheckpointProblem::group_size, sc->name,
           fmt::format("scales {} mean group size {} for K = {}; only {} is supported",
                       shape_str(sc->shape), k / sc->shape[0], k, kGptqGroup));
    if (k % kGptqGroup != 0)
      fail(CheckpointProblem::k_multiple, t.name,
           fmt::format("qweight {} means K = {}, not a multiple of the group {}",
                       shape_str(t.shape), k, kGptqGroup));
    if (n % kGptqPack != 0 || sc->shape != Shape{k / kGptqGroup, n} ||
        qz->shape != Shape{k / kGptqGroup, n / kGptqPack})
      fail(CheckpointProblem::shape, x,
           fmt::format("shapes disagree: qweight {} means K = {}, N = {}; scales {} and qzeros {} "
                       "must be [K/128, N] and [K/128, N/8] with N % 8 == 0",
                       shape_str(t.shape), k, n, shape_str(sc->shape), shape_str(qz->shape)));
    std::vector<std::uint32_t> zw(qz->bytes.size() / 4);
    std::memcpy(zw.data(), qz->bytes.data(), zw.size() * 4);
    try {
      require_symmetric(zw);
    } catch (const AsymmetricError& e) {
      fail(CheckpointProblem::asymmetric, qz->name, e.what());
    }
    require_finite(*sc);
    found.push_back({&t, sc, qz, x, n, k});
  }
  std::vector<GptqLinear> out;
  out.reserve(found.size());
  for (const auto& f : found) {
    GptqLinear g;
    g.name = f.x;
    g.qweight_dtype = f.qw->dtype;
    g.n = f.n;
    g.k = f.k;
    std::vector<std::uint32_t> qw(f.qw->bytes.size() / 4);
    std::memcpy(qw.data(), f.qw->bytes.data(), qw.size() * 4);
    g.qweight_t = transpose_qweight(qw, f.k, f.n);
    g.scales.resize(f.sc->bytes.size() / 2);
    std::memcpy(g.scales.data(), f.sc->bytes.data(), g.scales.size() * 2);
    out.push_back(std::move(g));
  }
  return out;
}

void add_gptq_tensors(SafetensorsWriter& w, const GptqLinear& l) {
  w.add_values<std::uint32_t>(l.name + ".qweight", l.qweight_dtype, {l.n, l.k / kGptqPack},
                              l.qweight_t);
  w.add_values<std::uint16_t>(l.name + ".scales", DType::f16, {l.k / kGptqGroup, l.n}, l.scales);
}

std::vector<Mxfp4Source> plan_mxfp4(const Parsed& file, const TensorFilter& select) {
  std::vector<Mxfp4Source> out;
  std::vector<std::string> consumed;
  // NVFP4 triples first: X.weight_packed + X.weight_scale (e4m3 per 16) + X.weight_global_scale.
  for (const auto& t : file.tensors) {
    if (!ends_with(t.name, ".weight_packed")) continue;
    const std::string x =
        t.name.substr(0, t.name.size() - std::string_view(".weight_packed").size());
    const auto* sc = find(file, x + ".weight_scale");
    const auto* gs = find(file, x + ".weight_global_scale");
    if (sc == nullptr || gs == nullptr)
      fail(CheckpointProblem::missing, t.name,
           fmt::format("has no {}.weight_scale / {}.weight_global_scale", x, x));
    if (select && !select(x + ".weight")) continue;
    if (t.dtype != DType::u8 || t.shape.size() != 2 || sc->dtype != DType::f8_e4m3 ||
        sc->shape.size() != 2 || !is_plain_float(gs->dtype))
      fail(CheckpointProblem::dtype, x,
           fmt::format("NVFP4 needs U8 [N, K/2], F8_E4M3 [N, K/16] and a float global scale; "
                       "got {} {}, {} {}, {} {}",
                       to_string(t.dtype), shape_str(t.shape), to_string(sc->dtype),
                       shape_str(sc->shape), to_string(gs->dtype), shape_str(gs->shape)));
    require_2d_nonempty(t);
    const std::int64_t n = t.shape[0];
    const std::int64_t k = t.shape[1] * 2;
    if (k % 32 != 0)
      fail(CheckpointProblem::k_multiple, t.name,
           fmt::format("{} means K = {}, not a multiple of 32 (the MXFP4 block)",
                       shape_str(t.shape), k));
    if (sc->shape != Shape{n, k / 16})
      fail(CheckpointProblem::shape, sc->name,
           fmt::format("is {}, not [N, K/16] = [{}, {}]", shape_str(sc->shape), n, k / 16));
    const auto g = flat_f32(*gs);
    const auto parts = static_cast<std::int64_t>(g.size());
    if (parts < 1 || n % parts != 0)
      fail(CheckpointProblem::shape, gs->name,
           fmt::format("{} global scales do not split N = {} evenly", parts, n));
    for (std::size_t i = 0; i < g.size(); ++i)
      if (!std::isfinite(g[i]) || g[i] == 0.0F)
        fail(CheckpointProblem::non_finite, gs->name,
             fmt::format("global scale {} at flat index {} is not a finite non-zero divisor", g[i],
                         i));
    require_finite(*sc);
    Mxfp4Source s;
    s.name = x + ".weight";
    s.kind = "NVFP4";
    s.n = n;
    s.k = k;
    s.packed = &t;
    s.scale = sc;
    s.global_scale = gs;
    out.push_back(std::move(s));
    consumed.insert(consumed.end(), {t.name, sc->name, gs->name, x + ".input_global_scale"});
  }
  const auto sel = select_weights(file, select, consumed);
  for (const auto& w : sel.weights) {
    const auto& t = *w.tensor;
    require_2d_nonempty(t);
    const std::int64_t n = t.shape[0];
    const std::int64_t k = t.shape[1];
    if (k % 32 != 0)
      fail(CheckpointProblem::k_multiple, t.name,
           fmt::format("{} {}: K = {} is not a multiple of 32 (the MXFP4 block)",
                       to_string(t.dtype), shape_str(t.shape), k));
    Mxfp4Source s;
    s.name = t.name;
    s.kind = w.scale != nullptr ? "F8+scale" : std::string(to_string(t.dtype));
    s.n = n;
    s.k = k;
    s.weight = w;
    out.push_back(std::move(s));
  }
  // Found by mxfp4_loader_fuzz: m.weight_packed (NVFP4) beside an F32 m.weight made the writer
  // throw std::invalid_argument ("duplicate name") after all the work.
  std::map<std::string, std::string> outputs;  // output name -> the input tensor it comes from
  for (const auto& s : out) {
    const std::string& input = s.packed != nullptr ? s.packed->name : s.weight.tensor->name;
    for (const auto& o : {s.name, s.name + "_scale", s.name + ".wq", s.name + ".wsz"})
      if (const auto [it, fresh] = outputs.emplace(o, input); !fresh)
        fail(CheckpointProblem::name_clash, input,
             fmt::format("its output '{}' is also written for '{}'", o, it->second));
  }
  return out;
}

Mxfp4Quantized convert_mxfp4(const Mxfp4Source& s, ExpRule rule) {
  std::vector<float> w;
  std::string culprit = s.name;
  if (s.packed != nullptr) {
    const auto g = flat_f32(*s.global_scale);
    const std::int64_t parts = static_cast<std::int64_t>(g.size());
    const std::int64_t width = s.n / parts;
    const auto pk = std::span(reinterpret_cast<const std::uint8_t*>(s.packed->bytes.data()),
                              s.packed->bytes.size());
    const auto sv = std::span(reinterpret_cast<const std::uint8_t*>(s.scale->bytes.data()),
                              s.scale->bytes.size());
    w.reserve(static_cast<std::size_t>(s.n * s.k));
    // One global divisor per partition of a merged linear (equal partitions of N).
    for (std::int64_t p = 0; p < parts; ++p) {
      const auto part = dequant_nvfp4(pk.subspan(static_cast<std::size_t>(p * width * s.k / 2),
                                                 static_cast<std::size_t>(width * s.k / 2)),
                                      sv.subspan(static_cast<std::size_t>(p * width * s.k / 16),
                                                 static_cast<std::size_t>(width * s.k / 16)),
                                      g[static_cast<std::size_t>(p)], width, s.k);
      w.insert(w.end(), part.begin(), part.end());
    }
    culprit = s.global_scale->name;
  } else {
    w = weight_f32(s.weight);
    if (s.weight.scale != nullptr) culprit = s.weight.scale->name;
  }
  // Finite inputs can still overflow f32 once scaled (e4m3 448 * a huge scale, or a tiny NVFP4
  // global divisor); the quantiser would clip them silently.
  if (const auto i = first_non_finite(w); i >= 0)
    fail(CheckpointProblem::non_finite, s.name,
         fmt::format("the dequantised weight is not finite at [{}, {}] (scaled by '{}')", i / s.k,
                     i % s.k, culprit));
  return quant_mxfp4(w, s.n, s.k, rule);
}

void check_mx_sm89_shape(const std::string& name, std::int64_t n, std::int64_t k) {
  if (n % 16 != 0)
    fail(CheckpointProblem::shape, name,
         fmt::format("N = {} is not a multiple of 16, which layout mx_sm89 needs", n));
  if (k % 64 != 0)
    fail(CheckpointProblem::k_multiple, name,
         fmt::format("K = {} is not a multiple of 64, which layout mx_sm89 needs", k));
}

Packed pack_mx_sm89_checked(const std::string& name, const Mxfp4Quantized& q, std::int64_t n,
                            std::int64_t k) {
  check_mx_sm89_shape(name, n, k);
  try {
    return pack_mx_sm89(q.packed, q.e8m0, n, k);
  } catch (const std::invalid_argument& e) {
    fail(CheckpointProblem::layout, name, e.what());
  }
}

void add_mxfp4_tensors(SafetensorsWriter& w, const std::string& name, const Mxfp4Quantized& q,
                       std::int64_t n, std::int64_t k, const Packed* mx_sm89) {
  if (mx_sm89 != nullptr) {
    w.add_values<std::uint32_t>(name + ".wq", DType::u32,
                                {static_cast<std::int64_t>(mx_sm89->wq.size())}, mx_sm89->wq);
    w.add_values<std::uint32_t>(name + ".wsz", DType::u32,
                                {static_cast<std::int64_t>(mx_sm89->wsz.size())}, mx_sm89->wsz);
  }
  w.add_values<std::uint8_t>(name, DType::u8, {n, k / 2}, q.packed);
  w.add_values<std::uint8_t>(name + "_scale", DType::u8, {n, k / 32}, q.e8m0);
}

}  // namespace r4::quant
