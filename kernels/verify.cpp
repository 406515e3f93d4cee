#include "kernels/verify.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <random>
#include <tuple>

#include <fmt/core.h>

#include "kernels/host_half.hpp"
#include "kernels/random_weights.hpp"
#include "kernels/tolerance.hpp"
#include "kernels/weight_layout.hpp"

namespace r4::kernels {

struct Verifier::Impl {
  gpu::Backend& backend;
  gpu::Context& ctx;
  gpu::Stream& stream;
  std::unique_ptr<gpu::Module> ref_module, qa_module, qa8_module;
  gpu::DeviceBuffer a_f16, a_bf16, a_q, a_s, a_e4m3, a_s8, out, result, workspace;
  // A one-byte GEMM's own activations and row scales: quantised again for each check, into the
  // order its config reads, over poison (check() says why). The references read a_q / a_e4m3.
  gpu::DeviceBuffer a_run, sa_run;
  // Each shape's random weights, kept: a sweep that races beside its compile stage sets a shape
  // up once per M group (18 times for dflash instead of 6), and drawing gate_up's 89 M weights
  // (and its MXFP4 ones) on the CPU is most of a set-up. Bounded by kWeightCacheBytes.
  struct ShapeWeights {
    gpu::DeviceBuffer wq, wsz, mx_wq, mx_wsz;
    [[nodiscard]] std::size_t bytes() const {
      return wq.bytes() + wsz.bytes() + mx_wq.bytes() + mx_wsz.bytes();
    }
  };
  static constexpr std::size_t kWeightCacheBytes = std::size_t{2} << 30;
  std::map<std::tuple<std::int64_t, std::int64_t, std::uint32_t>, ShapeWeights> weight_cache;
  // The reference per activation kind (0: f16 A, 2: int8 A, 3: e4m3 A, 4: e4m3 A x MXFP4), for
  // the current inputs.
  gpu::DeviceBuffer ref[5], norm[5];
  bool ref_ready[5] = {false, false, false, false, false};
  // The current inputs: (M, seed). Every config checked at the same (M, seed) sees the same fresh
  // activations and one reference computed once, which is what makes verifying every config of
  // a sweep affordable (13380 checks in the dflash sweep).
  std::int64_t cur_m = -1;
  std::uint32_t cur_seed = 0;

  Impl(gpu::Backend& b, gpu::Context& c, gpu::Stream& s) : backend(b), ctx(c), stream(s) {}

  std::unique_ptr<gpu::Module> build(const gpu::CompileRequest& req) {
    auto r = backend.compile(req);
    if (!r.ok) throw gpu::Error("verifier: " + req.source_name + " does not compile:\n" + r.log);
    return ctx.load(r.binary);
  }
  void ensure(gpu::DeviceBuffer& b, std::size_t bytes) {
    if (b.bytes() < bytes) b = gpu::DeviceBuffer(ctx, bytes);
  }
};

Verifier::Verifier(gpu::Backend& backend, gpu::Context& ctx, gpu::Stream& stream)
    : impl_(std::make_unique<Impl>(backend, ctx, stream)) {
  const auto& arch = ctx.info().arch;
  impl_->ref_module = impl_->build(reference_compile_request(arch));
  impl_->qa_module = impl_->build(compile_request(KernelId::quant_act, Config{}, arch));
  if (has_fp8_act_path(arch)) impl_->qa8_module = impl_->build(quant_act_fp8_compile_request(arch));
  impl_->result = gpu::DeviceBuffer(ctx, 16);
}

Verifier::~Verifier() = default;

gpu::Kernel& Verifier::quant_act_kernel() {
  return impl_->qa_module->kernel("quant_act");
}

gpu::Kernel& Verifier::quant_act_fp8_kernel() {
  if (!impl_->qa8_module)
    throw std::logic_error("Verifier: no fp8 activation path on " + impl_->ctx.info().arch.name);
  return impl_->qa8_module->kernel("quant_act_fp8");
}

const W4Weights& Verifier::weights_for(KernelId id) const {
  return id == KernelId::gemm_mxfp4a8fp8_nt ? mx_weights_ : weights_;
}

gpu::Kernel& Verifier::reference_kernel() {
  return impl_->ref_module->kernel("ref_gemm_w4");
}

gpu::Kernel& Verifier::check_kernel() {
  return impl_->ref_module->kernel("check_bf16");
}

void Verifier::set_shape(std::int64_t n, std::int64_t k, std::uint32_t seed) {
  auto& I = *impl_;
  I.cur_m = -1;  // new weights: the inputs and references must be made again
  const auto layout = weight_layout(I.ctx.info().arch);
  if (!layout)
    throw std::invalid_argument("Verifier: no GEMM path (weight layout) for " +
                                I.ctx.info().arch.name);
  const auto key = std::make_tuple(n, k, seed);
  auto it = I.weight_cache.find(key);
  if (it == I.weight_cache.end()) {
    Impl::ShapeWeights w;
    const auto p = random_packed_weights(*layout, n, k, seed, 0.005f, 0.03f);
    w.wq = gpu::DeviceBuffer(I.ctx, p.wq.size() * 4);
    w.wsz = gpu::DeviceBuffer(I.ctx, p.wsz.size() * 4);
    I.ctx.copy_to_device(w.wq.get(), p.wq.data(), p.wq.size() * 4);
    I.ctx.copy_to_device(w.wsz.get(), p.wsz.data(), p.wsz.size() * 4);
    if (has_fp8_mma(I.ctx.info().arch)) {  // the MXFP4 GEMM's own weights, same byte counts
      const auto mx = random_mx_packed_weights(n, k, seed ^ 0x6d78u);
      w.mx_wq = gpu::DeviceBuffer(I.ctx, mx.wq.size() * 4);
      w.mx_wsz = gpu::DeviceBuffer(I.ctx, mx.wsz.size() * 4);
      I.ctx.copy_to_device(w.mx_wq.get(), mx.wq.data(), mx.wq.size() * 4);
      I.ctx.copy_to_device(w.mx_wsz.get(), mx.wsz.data(), mx.wsz.size() * 4);
    }
    std::size_t held = w.bytes();
    for (const auto& [kk, v] : I.weight_cache) held += v.bytes();
    if (held > Impl::kWeightCacheBytes) I.weight_cache.clear();  // rare: many large shapes
    it = I.weight_cache.emplace(key, std::move(w)).first;
  }
  const auto& w = it->second;
  weights_ = {w.wq.get(), w.wsz.get()};
  mx_weights_ = w.mx_wq.bytes() ? W4Weights{w.mx_wq.get(), w.mx_wsz.get()} : W4Weights{};
  n_ = n;
  k_ = k;
}

CheckOutcome Verifier::check(KernelId id, gpu::Kernel& kernel, const Config& c, std::int64_t m,
                             std::uint32_t seed) {
  auto& I = *impl_;
  if (n_ == 0) throw std::logic_error("Verifier::check before set_shape");
  const Shape s{n_, k_, m};
  const auto& arch = I.ctx.info().arch;
  const auto mk = static_cast<std::size_t>(m * k_), mn = static_cast<std::size_t>(m * n_);
  if (m != I.cur_m || seed != I.cur_seed) {
    // Fresh activations: N(0, 1), rounded to f16 and bf16 (the w4a8 path quantises the bf16 copy).
    std::vector<std::uint16_t> f16(mk), bf16(mk);
    std::mt19937 rng(seed);
    std::normal_distribution<float> nd(0.0f, 1.0f);
    for (std::size_t i = 0; i < mk; ++i) {
      const float x = nd(rng);
      f16[i] = float_to_half(x);
      bf16[i] = float_to_bf16(x);
    }
    I.ensure(I.a_f16, mk * 2);
    I.ensure(I.a_bf16, mk * 2);
    I.ensure(I.a_q, mk);
    I.ensure(I.a_s, static_cast<std::size_t>(m) * 4);
    I.ctx.copy_to_device(I.a_f16.get(), f16.data(), mk * 2);
    I.ctx.copy_to_device(I.a_bf16.get(), bf16.data(), mk * 2);
    launch_quant_act(quant_act_kernel(), s, I.a_bf16.get(), I.a_q.get(), I.a_s.get(),
                     ActOrder::natural, I.stream);
    if (I.qa8_module) {
      I.ensure(I.a_e4m3, mk);
      I.ensure(I.a_s8, static_cast<std::size_t>(m) * 4);
      launch_quant_act_fp8(quant_act_fp8_kernel(), s, I.a_bf16.get(), I.a_e4m3.get(), I.a_s8.get(),
                           ActOrder::natural, I.stream);
    }
    I.cur_m = m;
    I.cur_seed = seed;
    for (bool& r : I.ref_ready) r = false;
  }
  I.ensure(I.out, mn * 2);
  const std::size_t ws = workspace_bytes(id, c, s);
  if (ws > I.workspace.bytes()) {
    I.workspace = gpu::DeviceBuffer(I.ctx, ws);
    I.ctx.memset8(I.workspace.get(), 0, ws, I.stream);  // split-K counters start at zero
  }
  I.ctx.memset8(I.out.get(), 0xFF, mn * 2, I.stream);  // poison: bf16 NaN everywhere

  int a_kind = 0;
  if (id == KernelId::gemm_w4a16_nt) {
    launch_gemm_w4a16(kernel, c, arch, s, I.a_f16.get(), weights_, I.out.get(), I.workspace.get(),
                      I.stream);
  } else if (id == KernelId::gemm_w4a8_nt || is_fp8_act(id)) {
    const bool fp8 = is_fp8_act(id);
    if (fp8 && !I.qa8_module)
      throw std::invalid_argument("Verifier::check: no fp8 path on " + arch.name);
    a_kind = !fp8 ? 2 : id == KernelId::gemm_w4a8fp8_nt ? 3 : 4;
    // The pair as the races time it and r4d launches it: the quantiser, then the GEMM under PDL
    // where the device has it (a8_gemm_options). The quantiser writes over poison (0x7F: int8 127,
    // e4m3 NaN; the row scales NaN), so a GEMM that read its activations before its
    // griddepcontrol.wait, i.e. before the quantiser finished, reads poison and fails. Into the
    // order the config reads (act_order); quant_act is deterministic, so these are the bytes of
    // the natural-order copy the reference reads, permuted, and the same row scales.
    I.ensure(I.a_run, mk);
    I.ensure(I.sa_run, static_cast<std::size_t>(m) * 4);
    I.ctx.memset8(I.a_run.get(), 0x7F, mk, I.stream);
    I.ctx.memset8(I.sa_run.get(), 0xFF, static_cast<std::size_t>(m) * 4, I.stream);
    if (fp8)
      launch_quant_act_fp8(quant_act_fp8_kernel(), s, I.a_bf16.get(), I.a_run.get(), I.sa_run.get(),
                           act_order(id, c), I.stream);
    else
      launch_quant_act(quant_act_kernel(), s, I.a_bf16.get(), I.a_run.get(), I.sa_run.get(),
                       act_order(id, c), I.stream);
    launch_gemm_a8(id, kernel, c, arch, s, I.a_run.get(), I.sa_run.get(), weights_for(id),
                   I.out.get(), I.workspace.get(), I.stream, a8_gemm_options(arch, c, m));
  } else {
    throw std::invalid_argument("Verifier::check: not a GEMM kernel");
  }
  // Reference on the same inputs (the w4a8 reference reads the quantised activations), computed
  // once per inputs and kind.
  const auto ak = static_cast<std::size_t>(a_kind);
  const auto total = static_cast<unsigned>(mn);
  I.ensure(I.ref[ak], mn * 4);
  I.ensure(I.norm[ak], mn * 4);
  gpu::DevicePtr rp = I.ref[ak].get(), np = I.norm[ak].get();
  if (!I.ref_ready[ak]) {
    const bool fp8 = a_kind >= 3;
    gpu::DevicePtr A = a_kind == 2 ? I.a_q.get() : fp8 ? I.a_e4m3.get() : I.a_f16.get();
    gpu::DevicePtr sa = fp8 ? I.a_s8.get() : I.a_s.get(), wq = weights_for(id).wq,
                   wsz = weights_for(id).wsz;
    int kind = a_kind, M = static_cast<int>(m), N = static_cast<int>(n_), K = static_cast<int>(k_);
    void* rargs[] = {&A, &kind, &sa, &wq, &wsz, &rp, &np, &M, &N, &K};
    I.ref_module->kernel("ref_gemm_w4").launch({(total + 255) / 256}, {256}, 0, I.stream, rargs);
    I.ref_ready[ak] = true;
  }

  const auto tol = tolerance(id, false, k_);
  I.ctx.memset8(I.result.get(), 0, 16, I.stream);
  gpu::DevicePtr o = I.out.get(), res = I.result.get();
  auto count = static_cast<std::int64_t>(mn);
  float rel = tol.rel, abs_coef = tol.abs_coef;
  void* cargs[] = {&o, &rp, &np, &count, &rel, &abs_coef, &res};
  I.ref_module->kernel("check_bf16").launch({(total + 255) / 256}, {256}, 0, I.stream, cargs);
  I.stream.synchronize();
  std::uint32_t v[4] = {};
  I.ctx.copy_to_host(v, I.result.get(), 16);
  CheckOutcome out;
  out.bad = v[0];
  std::memcpy(&out.max_ratio, &v[1], 4);
  out.first_bad = static_cast<std::int64_t>(v[2]) - 1;
  out.pass = out.bad == 0;
  if (!out.pass)
    out.detail = fmt::format(
        "{} of {} elements out of tolerance (first at {}); rel {:.3g}, "
        "abs_coef {:.3g}",
        out.bad, mn, out.first_bad, static_cast<double>(tol.rel),
        static_cast<double>(tol.abs_coef));
  return out;
}

}  // namespace r4::kernels
