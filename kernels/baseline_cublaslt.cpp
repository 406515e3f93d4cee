// cuBLASLt baselines (bf16 and block-scaled fp8), loaded with dlopen (libcublasLt.so.13). The one
// file outside the GPU backends that includes a vendor header, for types and signatures only.
//
// Orientation: cuBLASLt is column-major. C[M,N] row-major is D (N x M, ld N); W[N,K] row-major is
// the column-major K x N matrix, transposed (op A = T); A[M,K] row-major is column-major K x M
// (op B = N). So a "TN" GEMM with m = N, n = M, k = K: the layout fp8 requires on Hopper.
// Block fp8: W (cuBLASLt's A) scaled per 128x128 block (BLK128x128_32F), activations (cuBLASLt's
// B) per 1x128 (VEC128_32F). Scale values are 1.0 and the fp8 data small finite values: this
// measures time only. When a shape has no algorithm at its own M, M is padded to 16 and the note
// says so.
#include <cublasLt.h>

#include <algorithm>
#include <random>
#include <vector>

#include <fmt/core.h>

#include "kernels/baseline.hpp"
#include "tuner/gpu/dynlib.hpp"

namespace r4::kernels {
namespace {

struct LtApi {
  gpu::DynLib lib;
  decltype(&cublasLtCreate) create{};
  decltype(&cublasLtDestroy) destroy{};
  decltype(&cublasLtMatmulDescCreate) desc_create{};
  decltype(&cublasLtMatmulDescDestroy) desc_destroy{};
  decltype(&cublasLtMatmulDescSetAttribute) desc_set{};
  decltype(&cublasLtMatrixLayoutCreate) layout_create{};
  decltype(&cublasLtMatrixLayoutDestroy) layout_destroy{};
  decltype(&cublasLtMatmulPreferenceCreate) pref_create{};
  decltype(&cublasLtMatmulPreferenceDestroy) pref_destroy{};
  decltype(&cublasLtMatmulPreferenceSetAttribute) pref_set{};
  decltype(&cublasLtMatmulAlgoGetHeuristic) heuristic{};
  decltype(&cublasLtMatmul) matmul{};
  std::string error;

  LtApi()
      : lib(gpu::library_candidates("CUDA_HOME", "/usr/local/cuda/lib64",
                                    {"libcublasLt.so.13", "libcublasLt.so"})) {
    if (!lib.loaded()) {
      error = "cuBLASLt not found: " + lib.error();
      return;
    }
    try {
      lib.bind(create, "cublasLtCreate");
      lib.bind(destroy, "cublasLtDestroy");
      lib.bind(desc_create, "cublasLtMatmulDescCreate");
      lib.bind(desc_destroy, "cublasLtMatmulDescDestroy");
      lib.bind(desc_set, "cublasLtMatmulDescSetAttribute");
      lib.bind(layout_create, "cublasLtMatrixLayoutCreate");
      lib.bind(layout_destroy, "cublasLtMatrixLayoutDestroy");
      lib.bind(pref_create, "cublasLtMatmulPreferenceCreate");
      lib.bind(pref_destroy, "cublasLtMatmulPreferenceDestroy");
      lib.bind(pref_set, "cublasLtMatmulPreferenceSetAttribute");
      lib.bind(heuristic, "cublasLtMatmulAlgoGetHeuristic");
      lib.bind(matmul, "cublasLtMatmul");
    } catch (const std::exception& e) {
      error = e.what();
    }
  }
};

LtApi& lt() {
  static LtApi api;  // library handle: the one kind of global state STYLE.md allows
  return api;
}

void check(cublasStatus_t st, const char* what) {
  if (st != CUBLAS_STATUS_SUCCESS)
    throw gpu::Error(fmt::format("{}: cublasStatus {}", what, static_cast<int>(st)));
}

constexpr std::size_t kWorkspace = 32u << 20;
constexpr int kTopAlgos = 6;

class CublasLtBaseline final : public Baseline {
 public:
  CublasLtBaseline(BaselineKind kind, gpu::Context& ctx, gpu::Stream& s)
      : kind_(kind), ctx_(ctx), stream_(s) {
    if (!lt().error.empty()) {
      reason_ = lt().error;
      return;
    }
    if (lt().create(&handle_) != CUBLAS_STATUS_SUCCESS) {
      reason_ = "cublasLtCreate failed";
      handle_ = nullptr;
      return;
    }
    workspace_ = gpu::DeviceBuffer(ctx_, kWorkspace);
  }
  ~CublasLtBaseline() override {
    if (handle_) lt().destroy(handle_);
  }
  CublasLtBaseline(const CublasLtBaseline&) = delete;
  CublasLtBaseline& operator=(const CublasLtBaseline&) = delete;

  [[nodiscard]] std::string_view name() const override {
    return kind_ == BaselineKind::bf16 ? "cublaslt_bf16" : "cublaslt_fp8_block";
  }
  [[nodiscard]] std::string unavailable_reason() const override { return reason_; }

  [[nodiscard]] BaselineResult time_call(const Shape& s, const TimingSpec& spec) override {
    std::string why;
    auto p = prepare(s, spec, why);
    if (!p) return {std::nullopt, why};
    try {
      const auto t = time_graph(
          ctx_, stream_, p->copies(), [&](int e) { p->enqueue(e, stream_); }, spec);
      return {t.median_us, p->note()};
    } catch (const std::exception& e) {
      return {std::nullopt, e.what()};
    }
  }

  [[nodiscard]] std::unique_ptr<PreparedBaseline> prepare(const Shape& s, const TimingSpec& spec,
                                                          std::string& why) override {
    if (!reason_.empty()) {
      why = reason_;
      return nullptr;
    }
    try {
      auto p = std::make_unique<Plan>(*this, s, s.m, spec);
      if (p->ok()) return p;
      why = p->note();
      if (kind_ == BaselineKind::fp8_block && s.m % 16 != 0) {
        const std::int64_t padded = (s.m + 15) / 16 * 16;
        auto q = std::make_unique<Plan>(*this, s, padded, spec);
        if (q->ok()) {
          q->prefix_note(fmt::format("M padded to {}; ", padded));
          return q;
        }
        why += "; padded: " + q->note();
      }
    } catch (const std::exception& e) {
      why = e.what();
    }
    return nullptr;
  }

 private:
  // One shape's pools, descriptors and chosen algorithm.
  class Plan final : public PreparedBaseline {
   public:
    Plan(CublasLtBaseline& b, const Shape& s, std::int64_t m, const TimingSpec& spec)
        : b_(b), rows_(m) {
      auto& ctx = b.ctx_;
      fp8_ = b.kind_ == BaselineKind::fp8_block;
      const std::int64_t n = s.n, k = s.k;
      const std::size_t elem = fp8_ ? 1 : 2;
      const auto w_bytes = static_cast<std::size_t>(n * k) * elem;
      const std::int64_t kb = (k + 127) / 128;
      const std::size_t w_scale_bytes = static_cast<std::size_t>(((n + 127) / 128) * kb * 4);
      const auto a_bytes = static_cast<std::size_t>(m * k) * elem;
      const auto c_bytes = static_cast<std::size_t>(m * n) * 2;
      copies_ = pool_size(static_cast<std::int64_t>(w_bytes + w_scale_bytes + a_bytes + c_bytes),
                          ctx.info().llc_bytes);
      // Weights: small finite random values, uploaded once and copied device-to-device.
      const auto& host = b.random_weights(w_bytes);
      std::vector<float> ones(
          std::max<std::size_t>(w_scale_bytes / 4,
                                static_cast<std::size_t>(kb * ((m + 127) / 128 * 128))),
          1.0f);
      for (int i = 0; i < copies_; ++i) {
        wpool_.emplace_back(ctx, w_bytes);
        if (i == 0)
          ctx.copy_to_device(wpool_[0].get(), host.data(), w_bytes);
        else
          ctx.copy_device(wpool_.back().get(), wpool_[0].get(), w_bytes, b.stream_);
        apool_.emplace_back(ctx, a_bytes);
        ctx.copy_to_device(apool_.back().get(), host.data(), std::min(a_bytes, w_bytes));
        cpool_.emplace_back(ctx, c_bytes);
        if (fp8_) {
          spool_.emplace_back(ctx, ones.size() * 4);
          ctx.copy_to_device(spool_.back().get(), ones.data(), ones.size() * 4);
        }
      }
      a_scale_ = gpu::DeviceBuffer(ctx, ones.size() * 4);
      ctx.copy_to_device(a_scale_.get(), ones.data(), ones.size() * 4);
      b.stream_.synchronize();

      auto& L = lt();
      check(L.desc_create(&desc_, CUBLAS_COMPUTE_32F, CUDA_R_32F), "cublasLtMatmulDescCreate");
      const cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
      check(L.desc_set(desc_, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta), "TRANSA");
      check(L.desc_set(desc_, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb), "TRANSB");
      if (fp8_) {
        const cublasLtMatmulMatrixScale_t wmode = CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F;
        const cublasLtMatmulMatrixScale_t amode = CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F;
        check(L.desc_set(desc_, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, &wmode, sizeof wmode),
              "A_SCALE_MODE");
        check(L.desc_set(desc_, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, &amode, sizeof amode),
              "B_SCALE_MODE");
        const void* wp = reinterpret_cast<const void*>(spool_[0].get());
        const void* ap = reinterpret_cast<const void*>(a_scale_.get());
        check(L.desc_set(desc_, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &wp, sizeof wp),
              "A_SCALE_POINTER");
        check(L.desc_set(desc_, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &ap, sizeof ap),
              "B_SCALE_POINTER");
      }
      const cudaDataType_t in_t = fp8_ ? CUDA_R_8F_E4M3 : CUDA_R_16BF;
      check(L.layout_create(&la_, in_t, static_cast<std::uint64_t>(k),
                            static_cast<std::uint64_t>(n), k),
            "layout W");
      check(L.layout_create(&lb_, in_t, static_cast<std::uint64_t>(k),
                            static_cast<std::uint64_t>(m), k),
            "layout A");
      check(L.layout_create(&lc_, CUDA_R_16BF, static_cast<std::uint64_t>(n),
                            static_cast<std::uint64_t>(m), n),
            "layout C");
      cublasLtMatmulPreference_t pref{};
      check(L.pref_create(&pref), "cublasLtMatmulPreferenceCreate");
      std::unique_ptr<std::remove_pointer_t<cublasLtMatmulPreference_t>,
                      cublasStatus_t (*)(cublasLtMatmulPreference_t)>
          pref_guard(pref, L.pref_destroy);
      const std::size_t ws = kWorkspace;
      check(L.pref_set(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws),
            "MAX_WORKSPACE");
      cublasLtMatmulHeuristicResult_t res[kTopAlgos] = {};
      int found = 0;
      const auto hs =
          L.heuristic(b.handle_, desc_, la_, lb_, lc_, lc_, pref, kTopAlgos, res, &found);
      if (hs != CUBLAS_STATUS_SUCCESS || found == 0) {
        note_ = fmt::format("no cuBLASLt algorithm (status {}, M={})", static_cast<int>(hs), m);
        return;
      }
      // The best of the heuristic's top algorithms, each timed cold (library defaults can be
      // more than 2x off: ROCm/Tensile #2081).
      double best_us = 0;
      for (int i = 0; i < found; ++i) {
        algo_ = res[i].algo;
        try {
          enqueue(0, b.stream_);  // a failing algorithm is skipped before capture
          b.stream_.synchronize();
          const auto t = time_graph(
              ctx, b.stream_, copies_, [&](int e) { enqueue(e, b.stream_); }, spec);
          if (!ok_ || t.median_us < best_us) {
            best_us = t.median_us;
            best_ = i;
            ok_ = true;
          }
        } catch (const std::exception& e) {
          if (!ok_) note_ = e.what();
        }
      }
      if (ok_) {
        algo_ = res[best_].algo;
        note_ = fmt::format("cuBLASLt algo {} of the heuristic's top {}", best_, found);
      }
    }
    ~Plan() override {
      auto& L = lt();
      if (la_) L.layout_destroy(la_);
      if (lb_) L.layout_destroy(lb_);
      if (lc_) L.layout_destroy(lc_);
      if (desc_) L.desc_destroy(desc_);
    }
    Plan(const Plan&) = delete;
    Plan& operator=(const Plan&) = delete;

    [[nodiscard]] bool ok() const { return ok_; }
    [[nodiscard]] int copies() const override { return copies_; }
    [[nodiscard]] const std::string& note() const override { return note_; }
    [[nodiscard]] std::int64_t rows() const override { return rows_; }
    void prefix_note(const std::string& p) { note_ = p + note_; }

    void enqueue(int e, gpu::Stream& stream) override {
      const auto i = static_cast<std::size_t>(e);
      enqueue_on(e, apool_[i].get(), a_scale_.get(), cpool_[i].get(), stream);
    }

    void enqueue_on(int e, gpu::DevicePtr a, gpu::DevicePtr a_scale, gpu::DevicePtr c,
                    gpu::Stream& stream) override {
      auto& L = lt();
      const auto i = static_cast<std::size_t>(e) % wpool_.size();
      if (fp8_) {
        // The descriptor holds the scale pointers; cuBLASLt reads them when the call is enqueued
        // (and captured), so setting them per call is what per-copy scales need.
        const void* wp = reinterpret_cast<const void*>(spool_[i].get());
        check(L.desc_set(desc_, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &wp, sizeof wp),
              "A_SCALE_POINTER");
        const void* ap = reinterpret_cast<const void*>(a_scale);
        check(L.desc_set(desc_, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &ap, sizeof ap),
              "B_SCALE_POINTER");
      }
      const float alpha = 1.0f, beta = 0.0f;
      void* cp = reinterpret_cast<void*>(c);
      check(L.matmul(b_.handle_, desc_, &alpha, reinterpret_cast<const void*>(wpool_[i].get()), la_,
                     reinterpret_cast<const void*>(a), lb_, &beta, cp, lc_, cp, lc_, &algo_,
                     reinterpret_cast<void*>(b_.workspace_.get()), kWorkspace,
                     reinterpret_cast<cudaStream_t>(stream.native())),
            "cublasLtMatmul");
    }

   private:
    CublasLtBaseline& b_;
    std::int64_t rows_;
    bool fp8_ = false, ok_ = false;
    int copies_ = 2, best_ = 0;
    std::vector<gpu::DeviceBuffer> wpool_, spool_, apool_, cpool_;
    gpu::DeviceBuffer a_scale_;
    cublasLtMatmulDesc_t desc_{};
    cublasLtMatrixLayout_t la_{}, lb_{}, lc_{};
    cublasLtMatmulAlgo_t algo_{};
    std::string note_;
  };

  // The first `bytes` of one deterministic stream of small finite values of this kind (seed 1234),
  // made once and grown on demand: a sweep prepares every shape at six M values, and filling
  // 178 MB of bf16 weights for gate_up each time was host work the device waited for.
  const std::vector<std::uint8_t>& random_weights(std::size_t bytes) {
    if (host_w_.size() >= bytes) return host_w_;
    host_w_.assign(bytes, 0);
    std::mt19937 rng(1234);
    const bool fp8 = kind_ == BaselineKind::fp8_block;
    for (std::size_t i = 0; i < host_w_.size(); i += 4) {
      const auto r = rng();
      for (std::size_t j = 0; j < 4 && i + j < host_w_.size(); ++j) {
        const auto byte = static_cast<std::uint8_t>(r >> (8 * j));
        if (fp8)
          host_w_[i + j] = static_cast<std::uint8_t>((byte & 0x80u) | (0x28u + byte % 16));
        else
          host_w_[i + j] = ((i + j) & 1) ? static_cast<std::uint8_t>(0x3Cu | (byte & 0x80u)) : byte;
      }
    }
    return host_w_;
  }

  BaselineKind kind_;
  gpu::Context& ctx_;
  gpu::Stream& stream_;
  std::vector<std::uint8_t> host_w_;
  cublasLtHandle_t handle_ = nullptr;
  gpu::DeviceBuffer workspace_;
  std::string reason_;
};

}  // namespace

std::unique_ptr<Baseline> make_cublaslt_baseline(BaselineKind kind, gpu::Context& ctx,
                                                 gpu::Stream& stream) {
  return std::make_unique<CublasLtBaseline>(kind, ctx, stream);
}

}  // namespace r4::kernels
