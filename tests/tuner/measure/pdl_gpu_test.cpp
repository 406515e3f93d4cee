// Programmatic dependent launch, the floors and decode-step chains on the device (label gpu;
// skips cleanly without one):
//   - a GEMM launched with PDL right after a slow kernel that writes its activations late gives
//     the right result, and the same GEMM with its griddepcontrol.wait deliberately placed AFTER
//     its first activation read (R4_TEST_PDL_LATE_WAIT) gives a wrong one: the wait placement is
//     what makes PDL safe, and the check catches a wrong one;
//   - the launch floor and a read floor measure sensible values;
//   - a three-shape step chain verifies link by link with and without PDL (both kernel
//     generations where the device has the second) and times every path.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>

#include "kernels/baseline.hpp"
#include "kernels/family.hpp"
#include "kernels/floors.hpp"
#include "kernels/host_half.hpp"
#include "kernels/tolerance.hpp"
#include "kernels/verify.hpp"
#include "tuner/measure/floors.hpp"
#include "tuner/measure/step_chain.hpp"

namespace r4::measure {
namespace {

// One block spins for `ns` nanoseconds (%globaltimer), then copies `words` words: a producer of
// activations that finishes long after it let its dependents launch.
constexpr const char* kSlowCopy = R"(
extern "C" __global__ void slow_copy(const unsigned* src, unsigned* dst, int words, long long ns) {
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  unsigned long long t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do { asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); } while (t - t0 < (unsigned long long)ns);
  for (int i = threadIdx.x; i < words; i += blockDim.x) dst[i] = src[i];
})";

class Pdl : public ::testing::Test {
 protected:
  void SetUp() override {
    be_ = gpu::make_cuda_backend();
    if (be_->device_count() == 0) GTEST_SKIP() << "no GPU: " << be_->status();
    ctx_ = be_->open(0);
    if (!gpu::has_pdl(ctx_->info().arch)) GTEST_SKIP() << "no PDL on " << ctx_->info().arch.name;
    stream_ = ctx_->create_stream();
    verifier_ = std::make_unique<kernels::Verifier>(*be_, *ctx_, *stream_);
  }
  std::unique_ptr<gpu::Module> build(const gpu::CompileRequest& req) {
    auto r = be_->compile(req);
    EXPECT_TRUE(r.ok) << r.log;
    return r.ok ? ctx_->load(r.binary) : nullptr;
  }
  // Elements of `out` (bf16 [m, n]) out of tolerance against the reference of (a bf16, weights).
  std::uint32_t bad_elements(gpu::DevicePtr a, gpu::DevicePtr out, int m, int n, int k) {
    gpu::DeviceBuffer ref(*ctx_, static_cast<std::size_t>(m * n) * 4), nrm(*ctx_, ref.bytes()),
        res(*ctx_, 16);
    gpu::DevicePtr A = a, sa = 0, wq = verifier_->weights().wq, wsz = verifier_->weights().wsz,
                   rp = ref.get(), np = nrm.get(), op = out, rs = res.get();
    int kind = 1, M = m, N = n, K = k;
    const auto total = static_cast<unsigned>(m * n);
    void* rargs[] = {&A, &kind, &sa, &wq, &wsz, &rp, &np, &M, &N, &K};
    verifier_->reference_kernel().launch({(total + 255) / 256}, {256}, 0, *stream_, rargs);
    const auto tol = kernels::tolerance(kernels::KernelId::gemm_w4a16_nt, true, k);
    ctx_->memset8(rs, 0, 16, *stream_);
    auto count = static_cast<long long>(total);
    float rel = tol.rel, abs_coef = tol.abs_coef;
    void* cargs[] = {&op, &rp, &np, &count, &rel, &abs_coef, &rs};
    verifier_->check_kernel().launch({(total + 255) / 256}, {256}, 0, *stream_, cargs);
    stream_->synchronize();
    std::uint32_t v[4] = {};
    ctx_->copy_to_host(v, rs, 16);
    return v[0];
  }
  std::unique_ptr<gpu::Backend> be_;
  std::unique_ptr<gpu::Context> ctx_;
  std::unique_ptr<gpu::Stream> stream_;
  std::unique_ptr<kernels::Verifier> verifier_;
};

TEST_F(Pdl, WaitAfterTheActivationReadIsCaught) {
  const int n = 3072, k = 5120, m = 8;
  verifier_->set_shape(n, k, 41u);
  gpu::CompileRequest slow;
  slow.source = kSlowCopy;
  slow.source_name = "slow_copy.cu";
  slow.arch = ctx_->info().arch;
  auto slow_mod = build(slow);
  ASSERT_TRUE(slow_mod);
  const kernels::Config c{4, 2, 1, 1, 0};
  const auto& arch = ctx_->info().arch;
  const kernels::Shape s{n, k, m};
  std::vector<std::uint16_t> x(static_cast<std::size_t>(m * k));
  std::mt19937 rng(7);
  std::normal_distribution<float> nd;
  for (auto& v : x) v = kernels::float_to_bf16(nd(rng));
  gpu::DeviceBuffer src(*ctx_, x.size() * 2), act(*ctx_, x.size() * 2),
      out(*ctx_, static_cast<std::size_t>(m * n) * 2),
      ws(*ctx_, kernels::workspace_bytes(kernels::KernelId::gemm_w4a16_nt, c, s));
  ctx_->copy_to_device(src.get(), x.data(), x.size() * 2);
  ctx_->memset8(ws.get(), 0, ws.bytes(), *stream_);
  for (const bool late : {false, true}) {
    kernels::CompileOptions o;
    o.a_bf16 = true;
    auto req = kernels::compile_request(kernels::KernelId::gemm_w4a16_nt, c, arch, o);
    if (late) req.defines.emplace_back("R4_TEST_PDL_LATE_WAIT=1");
    auto mod = build(req);
    ASSERT_TRUE(mod);
    ctx_->memset8(act.get(), 0xFF, x.size() * 2, *stream_);  // NaN until the slow kernel copies
    ctx_->memset8(out.get(), 0xFF, static_cast<std::size_t>(m * n) * 2, *stream_);
    stream_->synchronize();
    gpu::DevicePtr sp = src.get(), dp = act.get();
    int words = static_cast<int>(x.size() / 2);
    long long ns = 200000;  // 200 us: far longer than the GEMM takes to start and stage chunk 0
    void* sargs[] = {&sp, &dp, &words, &ns};
    // Captured into a graph, as the tuner's step chains are: a dependent launched directly on a
    // stream was not started early on the H200 (2026-11-30: this test then saw no stale read),
    // while the captured read-floor chains overlapped; PTX promises no early launch either way.
    stream_->begin_capture();
    slow_mod->kernel("slow_copy").launch({1}, {256}, 0, *stream_, sargs);
    kernels::launch_gemm_w4a16(mod->kernel("gemm_w4a16_nt"), c, arch, s, act.get(),
                               verifier_->weights(), out.get(), ws.get(), *stream_,
                               gpu::LaunchOptions{true, {1, 1, 1}});
    auto graph = stream_->end_capture();
    graph->launch(*stream_);
    stream_->synchronize();
    const auto bad = bad_elements(act.get(), out.get(), m, n, k);
    std::printf("wait %s the activation read: %u of %d elements out of tolerance\n",
                late ? "AFTER" : "before", bad, m * n);
    if (late)
      EXPECT_GT(bad, 0u) << "a GEMM that reads activations before its PDL wait went unnoticed";
    else
      EXPECT_EQ(bad, 0u);
  }
}

TEST_F(Pdl, FloorsAreSensible) {
  auto mod = build(kernels::floor_compile_request(ctx_->info().arch));
  ASSERT_TRUE(mod);
  const auto lf = measure_launch_floor(*ctx_, *stream_, mod->kernel("r4_empty"), 5);
  ASSERT_EQ(lf.samples_us.size(), 5u);
  EXPECT_GT(lf.samples_us[0], 0.05);
  EXPECT_LT(lf.samples_us[0], 20.0);
  const int n = 3072, k = 5120;
  verifier_->set_shape(n, k, 5u);
  const auto bytes = kernels::weight_bytes(n, k);
  const int copies = static_cast<int>(4 * ctx_->info().llc_bytes / bytes) + 1;
  std::vector<gpu::DeviceBuffer> store;
  // `q` and `z` below are references into `store`: without room reserved first, the second
  // emplace_back may reallocate and leave `q` dangling (this test once failed so on the H200,
  // 2026-12-01: cuMemcpyDtoDAsync CUDA_ERROR_INVALID_VALUE from the freed buffer's garbage).
  store.reserve(static_cast<std::size_t>(2 * copies));
  std::vector<kernels::W4Weights> pool;
  for (int i = 0; i < copies; ++i) {
    auto& q = store.emplace_back(*ctx_, static_cast<std::size_t>(n * k / 2));
    auto& z = store.emplace_back(*ctx_, static_cast<std::size_t>(n * k / 32));
    ctx_->copy_device(q.get(), verifier_->weights().wq, q.bytes(), *stream_);
    ctx_->copy_device(z.get(), verifier_->weights().wsz, z.bytes(), *stream_);
    pool.push_back({q.get(), z.get()});
  }
  const auto rf = measure_read_floor(*ctx_, *stream_, mod->kernel("r4_read_floor"), pool, n, k, 5);
  std::vector<double> s = rf.samples_us;
  std::sort(s.begin(), s.end());
  const double gbps = static_cast<double>(bytes) / (s[s.size() / 2] * 1e3);
  std::printf("launch floor %.2f us; read floor 3072x5120 %.2f us (%.0f GB/s): %s\n",
              lf.samples_us[0], s[s.size() / 2], gbps, rf.detail.c_str());
  EXPECT_GT(gbps, 300.0);
  EXPECT_LT(gbps, 20000.0);
}

TEST_F(Pdl, StepChainVerifiesAndTimesEveryPath) {
  const std::vector<std::pair<std::int64_t, std::int64_t>> shapes = {
      {3072, 5120}, {5120, 2048}, {1280, 5120}};
  const auto& arch = ctx_->info().arch;
  auto floor_mod = build(kernels::floor_compile_request(arch));
  auto fp8_mod = build(kernels::quant_fp8_block_compile_request(arch));
  ASSERT_TRUE(floor_mod && fp8_mod);
  auto bf16 = kernels::make_cublaslt_baseline(kernels::BaselineKind::bf16, *ctx_, *stream_);
  auto fp8 = kernels::make_cublaslt_baseline(kernels::BaselineKind::fp8_block, *ctx_, *stream_);
  ChainTools tools{verifier_.get(), &floor_mod->kernel("r4_read_floor"),
                   &fp8_mod->kernel("quant_fp8_block"), bf16.get(), fp8.get()};
  StepChain chain(*ctx_, *stream_, tools, shapes, 4.0, 0, std::int64_t{32} << 30, 9u);
  // Link kernels: w4a16 (bf16 A) / w4a8 / w4a16 of the first generation, and the sm90a
  // generation in the middle where the device has it.
  std::vector<std::unique_ptr<gpu::Module>> mods;
  const auto gemm = [&](kernels::KernelId id, const kernels::Config& c) {
    kernels::CompileOptions o;
    o.a_bf16 = id == kernels::KernelId::gemm_w4a16_nt;
    mods.push_back(build(kernels::compile_request(id, c, arch, o)));
    return &mods.back()->kernel(std::string(kernels::name(id)));
  };
  const bool sm90a = gpu::has_wgmma(arch);
  const kernels::Config mid = sm90a ? kernels::Config{4, 2, 1, 1, 1, kernels::kGenSm90a, 4}
                                    : kernels::Config{4, 4, 1, 1, 1};
  std::vector<ChainLink> links(3);
  const kernels::KernelId ids[3] = {kernels::KernelId::gemm_w4a16_nt,
                                    kernels::KernelId::gemm_w4a8_nt,
                                    kernels::KernelId::gemm_w4a16_nt};
  const kernels::Config cfgs[3] = {kernels::Config{4, 8, 1, 1, 1}, mid,
                                   kernels::Config{4, 8, 1, 1, 1}};
  for (int l = 0; l < 3; ++l) {
    links[static_cast<std::size_t>(l)] = {
        shapes[static_cast<std::size_t>(l)].first,
        shapes[static_cast<std::size_t>(l)].second,
        "link" + std::to_string(l),
        ids[l],
        gemm(ids[l], cfgs[l]),
        cfgs[l],
        {static_cast<unsigned>(ctx_->info().multiprocessors), 512}};
  }
  std::mt19937_64 rng(3);
  const auto out =
      chain.time(8, links,
                 {ChainPath::w4, ChainPath::w4_pdl, ChainPath::bf16, ChainPath::fp8_block,
                  ChainPath::read_floor, ChainPath::read_floor_pdl},
                 5, rng);
  for (const auto& [p, o] : out) {
    std::vector<double> s = o.samples_us;
    std::sort(s.begin(), s.end());
    std::printf("step path %-15s %s %8.2f us/step, %d launches: %s\n", to_string(p),
                o.ok ? "ok    " : "FAILED", s.empty() ? 0.0 : s[s.size() / 2], o.launches,
                o.detail.c_str());
  }
  EXPECT_TRUE(out.at(ChainPath::w4).ok) << out.at(ChainPath::w4).detail;
  EXPECT_TRUE(out.at(ChainPath::w4_pdl).ok) << out.at(ChainPath::w4_pdl).detail;
  EXPECT_TRUE(out.at(ChainPath::read_floor_pdl).ok) << out.at(ChainPath::read_floor_pdl).detail;
  EXPECT_EQ(out.at(ChainPath::w4_pdl).samples_us.size(), 5u);
}

// Where the GEMMs trigger their dependents (kernels/prelude.h R4_PDL_TRIGGER) against the chain's
// time with and without PDL: the first generation's chains ran slower with PDL than without in the
// first H200 sweep (2026-11-30, dflash M = 1: 86.7 against 70.1 us per step) with the trigger at
// entry. Reports; it checks only that every variant verifies.
TEST_F(Pdl, TriggerPlacementTimings) {
  const std::vector<std::pair<std::int64_t, std::int64_t>> shapes = {
      {3072, 5120}, {5120, 2048}, {17408, 5120}, {5120, 8704}};
  const auto& arch = ctx_->info().arch;
  auto floor_mod = build(kernels::floor_compile_request(arch));
  ASSERT_TRUE(floor_mod);
  ChainTools tools{verifier_.get(), &floor_mod->kernel("r4_read_floor"), nullptr, nullptr, nullptr};
  StepChain chain(*ctx_, *stream_, tools, shapes, 4.0, 0, std::int64_t{32} << 30, 19u);
  std::vector<std::unique_ptr<gpu::Module>> mods;
  const bool sm90a = gpu::has_wgmma(arch);
  for (int gen : {0, 1}) {
    if (gen == 1 && !sm90a) continue;
    for (int trig : {0, 1, 2}) {
      std::vector<ChainLink> links;
      for (std::size_t l = 0; l < shapes.size(); ++l) {
        const kernels::Config c = gen == 0 ? kernels::Config{4, 4, 1, 2, 1}
                                           : kernels::Config{4, 2, 1, 2, 0, kernels::kGenSm90a, 4};
        kernels::CompileOptions o;
        o.a_bf16 = true;
        auto req = kernels::compile_request(kernels::KernelId::gemm_w4a16_nt, c, arch, o);
        req.defines.push_back("R4_PDL_TRIGGER=" + std::to_string(trig));
        mods.push_back(build(req));
        std::string name = "l";  // not "l" + to_string: GCC 12 -O3 -Werror=restrict false positive
        name += std::to_string(l);
        links.push_back({shapes[l].first,
                         shapes[l].second,
                         name,
                         kernels::KernelId::gemm_w4a16_nt,
                         &mods.back()->kernel("gemm_w4a16_nt"),
                         c,
                         {static_cast<unsigned>(ctx_->info().multiprocessors), 512}});
      }
      std::mt19937_64 rng(5);
      const auto out = chain.time(8, links, {ChainPath::w4, ChainPath::w4_pdl}, 9, rng);
      const auto med = [&](ChainPath p) {
        std::vector<double> v = out.at(p).samples_us;
        std::sort(v.begin(), v.end());
        return v.empty() ? 0.0 : v[v.size() / 2];
      };
      std::printf("gen %d trigger %d: w4 %.2f us, w4_pdl %.2f us per step (M = 8, 4 shapes)\n", gen,
                  trig, med(ChainPath::w4), med(ChainPath::w4_pdl));
      EXPECT_TRUE(out.at(ChainPath::w4_pdl).ok) << out.at(ChainPath::w4_pdl).detail;
    }
  }
}

}  // namespace
}  // namespace r4::measure
