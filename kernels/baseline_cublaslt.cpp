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
    if (!reason_.empty()) return {std::nullopt, reason_};
    try {
      auto r = run(s, s.m, spec);
      if (!r.us && kind_ == BaselineKind::fp8_block && s.m % 16 != 0) {
        auto padded = run(s, (s.m + 15) / 16 * 16, spec);
        if (padded.us)
          padded.note = fmt::format("M padded to {}; {}", (s.m + 15) / 16 * 16, padded.note);
        else
          padded.note = r.note + "; padded: " + padded.note;
        return padded;
      }
      return r;
    } catch (const std::exception& e) {
      return {std::nullopt, e.what()};
    }
  }

 private:
  BaselineResult run(const Shape& s, std::int64_t m, const TimingSpec& spec) {
    const bool fp8 = kind_ == BaselineKind::fp8_block;
    const std::int64_t n = s.n, k = s.k;
    const std::size_t elem = fp8 ? 1 : 2;
    const auto w_bytes = static_cast<std::size_t>(n * k) * elem;
    const std::int64_t kb = (k + 127) / 128;
    const std::size_t w_scale_bytes = static_cast<std::size_t>(((n + 127) / 128) * kb * 4);
    const int pool =
        pool_size(static_cast<std::int64_t>(w_bytes + w_scale_bytes), ctx_.info().llc_bytes);
    // Weight pool: independent copies, filled with small finite values.
    std::vector<std::uint8_t> host(w_bytes);
    std::mt19937 rng(1234);
    for (std::size_t i = 0; i < host.size(); ++i) {
      const auto r = rng();
      if (fp8)
        host[i] =
            static_cast<std::uint8_t>((r & 0x80u) | (0x28u + (r >> 8) % 16));  // ~|0.03..0.06|
      else
        host[i] = static_cast<std::uint8_t>((i & 1) ? (0x3Cu | ((r >> 3) & 0x80u)) : (r & 0xFFu));
    }
    std::vector<gpu::DeviceBuffer> wpool;
    std::vector<gpu::DeviceBuffer> spool;
    std::vector<float> ones(
        std::max<std::size_t>(w_scale_bytes / 4,
                              static_cast<std::size_t>(kb * ((m + 127) / 128 * 128))),
        1.0f);
    for (int i = 0; i < pool; ++i) {
      wpool.emplace_back(ctx_, w_bytes);
      ctx_.copy_to_device(wpool.back().get(), host.data(), w_bytes);
      if (fp8) {
        spool.emplace_back(ctx_, ones.size() * 4);
        ctx_.copy_to_device(spool.back().get(), ones.data(), ones.size() * 4);
      }
    }
    const auto a_bytes = static_cast<std::size_t>(m * k) * elem;
    std::vector<std::uint8_t> ha(a_bytes);
    for (std::size_t i = 0; i < ha.size(); ++i) ha[i] = host[i % host.size()];
    gpu::DeviceBuffer a(ctx_, a_bytes), c(ctx_, static_cast<std::size_t>(m * n) * 2);
    ctx_.copy_to_device(a.get(), ha.data(), a_bytes);
    gpu::DeviceBuffer a_scale(ctx_, ones.size() * 4);
    ctx_.copy_to_device(a_scale.get(), ones.data(), ones.size() * 4);

    auto& L = lt();
    cublasLtMatmulDesc_t desc{};
    check(L.desc_create(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F), "cublasLtMatmulDescCreate");
    std::unique_ptr<std::remove_pointer_t<cublasLtMatmulDesc_t>,
                    cublasStatus_t (*)(cublasLtMatmulDesc_t)>
        desc_guard(desc, L.desc_destroy);
    const cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    check(L.desc_set(desc, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta), "TRANSA");
    check(L.desc_set(desc, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb), "TRANSB");
    if (fp8) {
      const cublasLtMatmulMatrixScale_t wmode = CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F;
      const cublasLtMatmulMatrixScale_t amode = CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F;
      check(L.desc_set(desc, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, &wmode, sizeof wmode),
            "A_SCALE_MODE");
      check(L.desc_set(desc, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, &amode, sizeof amode),
            "B_SCALE_MODE");
      const void* wp = reinterpret_cast<const void*>(spool[0].get());
      const void* ap = reinterpret_cast<const void*>(a_scale.get());
      check(L.desc_set(desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &wp, sizeof wp),
            "A_SCALE_POINTER");
      check(L.desc_set(desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &ap, sizeof ap),
            "B_SCALE_POINTER");
    }
    const cudaDataType_t in_t = fp8 ? CUDA_R_8F_E4M3 : CUDA_R_16BF;
    cublasLtMatrixLayout_t la{}, lb{}, lc{};
    check(
        L.layout_create(&la, in_t, static_cast<std::uint64_t>(k), static_cast<std::uint64_t>(n), k),
        "layout W");
    check(
        L.layout_create(&lb, in_t, static_cast<std::uint64_t>(k), static_cast<std::uint64_t>(m), k),
        "layout A");
    check(L.layout_create(&lc, CUDA_R_16BF, static_cast<std::uint64_t>(n),
                          static_cast<std::uint64_t>(m), n),
          "layout C");
    struct LayoutGuard {
      cublasLtMatrixLayout_t l;
      ~LayoutGuard() { lt().layout_destroy(l); }
    } g1{la}, g2{lb}, g3{lc};
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
    const auto hs = L.heuristic(handle_, desc, la, lb, lc, lc, pref, kTopAlgos, res, &found);
    if (hs != CUBLAS_STATUS_SUCCESS || found == 0)
      return {std::nullopt,
              fmt::format("no cuBLASLt algorithm (status {}, M={})", static_cast<int>(hs), m)};

    const float alpha = 1.0f, beta = 0.0f;
    auto stream = reinterpret_cast<cudaStream_t>(stream_.native());
    BaselineResult best{std::nullopt, ""};
    for (int i = 0; i < found; ++i) {
      auto call = [&](int e) {
        if (fp8) {
          const void* wp = reinterpret_cast<const void*>(spool[static_cast<std::size_t>(e)].get());
          check(L.desc_set(desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &wp, sizeof wp),
                "A_SCALE_POINTER");
        }
        check(L.matmul(handle_, desc, &alpha,
                       reinterpret_cast<const void*>(wpool[static_cast<std::size_t>(e)].get()), la,
                       reinterpret_cast<const void*>(a.get()), lb, &beta,
                       reinterpret_cast<void*>(c.get()), lc, reinterpret_cast<void*>(c.get()), lc,
                       &res[i].algo, reinterpret_cast<void*>(workspace_.get()), kWorkspace, stream),
              "cublasLtMatmul");
      };
      try {
        call(0);  // a failing algorithm is skipped before capture
        stream_.synchronize();
        const auto t = time_graph(ctx_, stream_, pool, call, spec);
        if (!best.us || t.median_us < *best.us) {
          best.us = t.median_us;
          best.note = fmt::format("algo {} of {}{}", i, found, m != s.m ? "" : "");
        }
      } catch (const std::exception& e) {
        if (!best.us) best.note = e.what();
      }
    }
    return best;
  }

  BaselineKind kind_;
  gpu::Context& ctx_;
  gpu::Stream& stream_;
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
