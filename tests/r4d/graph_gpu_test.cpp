// r4d launches inside CUDA-graph capture (label gpu; skips without a device): the automatic gemm
// (both paths, split-K included) and an explicit launcher are captured on a side stream, the graph
// is replayed twice over poisoned outputs, and the results match the references. A launch on a
// device with no registered workspace refuses inside capture without breaking it.
//
// Programmatic dependent launch (r4d/pdl.hpp): the Pdl option resolves on the device as
// documented, and a chain of r4d launches in which every launch reads what the previous one wrote
// (the table's shapes, w4a8 links and split-K configs included, through the explicit launchers and
// through r4d::gemm) is captured once with PDL and once without; every replay with PDL gives
// bit-identical outputs at every link to the replay without, which matches the references. Where
// the table has sm90a bands on the chain's shapes (and the device runs them), one more chain
// prefers them at every link, so that sm90a kernels run under PDL next to each other and next to
// mma_sync ones.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <future>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "gpu_problem.hpp"
#include "kernels/r4d/src/detail.hpp"
#include "r4d/r4d.hpp"

namespace {

using r4d::Dtype;
using r4d::Status;
using namespace r4d::test;

struct Case {
  Problem p;
  std::unique_ptr<DevWeights> w;
  std::unique_ptr<DevBuf> a, c;
  bool a8 = false;
};

TEST(R4dGraph, CapturedLaunchesReplayCorrectly) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
  if (!r4d::has_kernels()) GTEST_SKIP() << "built without kernels";
  ASSERT_EQ(r4d::init(0), Status::ok);
  std::vector<Case> cases;
  for (const auto& r : r4d::table(Dtype::w4a16)) {
    if (cases.size() >= 4) break;
    if (r.n * static_cast<long long>(r.k) > 5120LL * 5120) continue;
    for (int m : {8, 64}) {
      // A band of the sm90a generation where the device cannot run it would refuse (the launch
      // tests check that); it is left out here.
      const auto c8 = r4d::config_for(r.n, r.k, m, Dtype::w4a8);
      const auto cfg = m > r4d::a8_m() && c8 ? c8 : r4d::config_for(r.n, r.k, m, Dtype::w4a16);
      if (cfg && cfg->gen == r4d::kGenSm90a && !sm90a_runs_here()) continue;
      Case cs;
      cs.p = make_problem(r.n, r.k, m, 500u + static_cast<unsigned>(cases.size()));
      cs.w = std::make_unique<DevWeights>(cs.p);
      cs.a = std::make_unique<DevBuf>(cs.p.ab16.size() * 2);
      cs.c = std::make_unique<DevBuf>(static_cast<std::size_t>(m) * r.n * 2);
      cs.a->upload(cs.p.ab16);
      cs.a8 = m > r4d::a8_m() && r4d::config_for(r.n, r.k, m, Dtype::w4a8).has_value();
      cases.push_back(std::move(cs));
    }
  }
  ASSERT_FALSE(cases.empty());
  cudaStream_t s{};
  ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  ASSERT_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal), cudaSuccess);
  for (auto& cs : cases)
    EXPECT_EQ(r4d::gemm(cs.a->get(), cs.w->wq.get(), cs.w->wsz.get(), cs.c->get(), cs.p.m, cs.p.k,
                        cs.p.n, s),
              Status::ok);
  cudaGraph_t g{};
  ASSERT_EQ(cudaStreamEndCapture(s, &g), cudaSuccess);
  cudaGraphExec_t exec{};
  ASSERT_EQ(cudaGraphInstantiate(&exec, g, 0), cudaSuccess);
  for (int replay = 0; replay < 2; ++replay) {
    for (auto& cs : cases) cs.c->poison();
    ASSERT_EQ(cudaGraphLaunch(exec, s), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    for (auto& cs : cases) {
      SCOPED_TRACE(testing::Message()
                   << "replay " << replay << " N=" << cs.p.n << " K=" << cs.p.k << " M=" << cs.p.m);
      const auto out = cs.c->download<std::uint16_t>();
      EXPECT_EQ(cs.a8 ? check_w4a8(cs.p, out) : check_w4a16(cs.p, true, out), 0);
    }
  }
  (void)cudaGraphExecDestroy(exec);
  (void)cudaGraphDestroy(g);
  (void)cudaStreamDestroy(s);
}

TEST(R4dGraph, UninitialisedLaunchRefusesInsideCaptureWithoutBreakingIt) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
  if (!r4d::has_kernels()) GTEST_SKIP() << "built without kernels";
  r4d::release(0);
  const Problem p = make_problem(256, 5120, 8, 600u);
  DevWeights w(p);
  DevBuf a(p.ab16.size() * 2), c(8 * 256 * 2);
  cudaStream_t s{};
  ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  ASSERT_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal), cudaSuccess);
  EXPECT_EQ(r4d::gemm(a.get(), w.wq.get(), w.wsz.get(), c.get(), 8, 5120, 256, s),
            Status::not_initialised);
  EXPECT_EQ(r4d::ensure_initialised(s), Status::not_initialised);  // allocates nothing in capture
  cudaGraph_t g{};
  ASSERT_EQ(cudaStreamEndCapture(s, &g), cudaSuccess);
  (void)cudaGraphDestroy(g);
  (void)cudaStreamDestroy(s);
  EXPECT_EQ(r4d::init(0), Status::ok);
}

// ---- programmatic dependent launch -------------------------------------------------------------

// The rule of r4d/pdl.hpp applied to device 0, from the runtime's answers: compute capability,
// and the PTX version of the kernel image it runs (every mma_sync kernel and quant_act are
// compiled for the same arches; the sm90a kernels, sm_90a code, are never the probe).
struct DevicePdl {
  int major = 0, minor = 0, ptx = 0;
  [[nodiscard]] bool capable() const { return r4d::detail::pdl_capable(major, minor, ptx); }
};
DevicePdl device_pdl() {
  DevicePdl d;
  cudaFuncAttributes fa{};
  if (cudaDeviceGetAttribute(&d.major, cudaDevAttrComputeCapabilityMajor, 0) == cudaSuccess &&
      cudaDeviceGetAttribute(&d.minor, cudaDevAttrComputeCapabilityMinor, 0) == cudaSuccess &&
      cudaFuncGetAttributes(&fa, r4d::detail::arch_probe_kernel()->entry()) == cudaSuccess)
    d.ptx = fa.ptxVersion;
  return d;
}

TEST(R4dPdlDevice, OptionResolvesAsDocumented) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
  if (!r4d::has_kernels()) GTEST_SKIP() << "built without kernels";
  using r4d::Pdl;
  const DevicePdl dev = device_pdl();
  const bool has = dev.capable();
  std::printf("device cc %d.%d, r4d kernel image compute_%d: PDL %s\n", dev.major, dev.minor,
              dev.ptx, has ? "yes" : "no");
  // A cc 9.0 device (the H200) with a build that has an sm_90 image must have it: else the chain
  // test below would compare two plain graphs and prove nothing.
  const std::string archs = R4D_TEST_CUDA_ARCHITECTURES;  // e.g. "80,90"
  if (dev.major == 9 && dev.minor == 0 && ("," + archs).find(",90") != std::string::npos) {
    EXPECT_TRUE(has) << "R4D_CUDA_ARCHITECTURES " << archs;
  }
  // Recorded at registration: nothing before it, the device's answer after init and after
  // register_workspace with caller memory, nothing after release.
  r4d::release(0);
  EXPECT_FALSE(r4d::pdl_supported(0));
  EXPECT_FALSE(r4d::uses_pdl(Pdl::automatic, 0));
  {
    DevBuf own(r4d::workspace_bytes_required() + 256);
    ASSERT_EQ(cudaMemset(own.get(), 0, r4d::workspace_bytes_required() + 256), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    ASSERT_EQ(r4d::register_workspace(0, own.get(), r4d::workspace_bytes_required() + 256),
              Status::ok);
    EXPECT_EQ(r4d::pdl_supported(0), has);
    r4d::release(0);
    EXPECT_FALSE(r4d::pdl_supported(0));
  }
  ASSERT_EQ(r4d::init(0), Status::ok);
  EXPECT_EQ(r4d::pdl_supported(0), has);
  EXPECT_EQ(r4d::uses_pdl(Pdl::automatic, 0), has);
  EXPECT_EQ(r4d::uses_pdl(Pdl::on, 0), has);
  EXPECT_FALSE(r4d::uses_pdl(Pdl::off, 0));
  // Each option on real launches (quant_act: config-free; r4d::gemm's w4a8 path: two kernels),
  // counted by stats(): launches, pdl_launches, and the refusal of `on` where there is no PDL.
  const int k = r4d::table(Dtype::w4a8).empty() ? 5120 : r4d::table(Dtype::w4a8)[0].k;
  DevBuf a(static_cast<std::size_t>(64) * k * 2), q(static_cast<std::size_t>(64) * k), sc(64 * 4);
  ASSERT_EQ(cudaMemset(a.get(), 0, static_cast<std::size_t>(64) * k * 2), cudaSuccess);
  const auto run = [&](Pdl p) {
    return r4d::quant_act(a.get(), q.get(), sc.get(), 8, k, nullptr, p);
  };
  struct Want {
    Pdl p;
    Status status;
    std::uint64_t launches, pdl_launches;
  };
  const Want wants[] = {
      {Pdl::off, Status::ok, 1, 0},
      {Pdl::automatic, Status::ok, 1, has ? 1u : 0u},
      {Pdl::on, has ? Status::ok : Status::pdl_unsupported, has ? 1u : 0u, has ? 1u : 0u},
  };
  for (const Want& w : wants) {
    SCOPED_TRACE(testing::Message() << "pdl " << r4d::to_string(w.p));
    r4d::reset_stats();
    EXPECT_EQ(run(w.p), w.status);
    const auto st = r4d::stats();
    EXPECT_EQ(st.launches, w.launches);
    EXPECT_EQ(st.pdl_launches, w.pdl_launches);
    EXPECT_EQ(st.pdl_unsupported, w.status == Status::pdl_unsupported ? 1u : 0u);
    EXPECT_EQ(st.refused, w.status == Status::ok ? 0u : 1u);
  }
  // The default argument is automatic.
  r4d::reset_stats();
  EXPECT_EQ(r4d::quant_act(a.get(), q.get(), sc.get(), 8, k, nullptr), Status::ok);
  EXPECT_EQ(r4d::stats().pdl_launches, has ? 1u : 0u);
  // r4d::gemm passes the option to both of its kernels (w4a8 path above a8_m rows).
  if (!r4d::table(Dtype::w4a8).empty()) {
    const auto& r = r4d::table(Dtype::w4a8)[0];
    const int m = std::min(64, r4d::a8_m() + 1);
    const auto c8 = r4d::config_for(r.n, r.k, m, Dtype::w4a8);
    if (c8 && (c8->gen == r4d::kGenMmaSync || sm90a_runs_here())) {
      const Problem p = make_problem(r.n, r.k, m, 700u);
      DevWeights w(p);
      DevBuf ab(p.ab16.size() * 2), c(static_cast<std::size_t>(m) * r.n * 2);
      ab.upload(p.ab16);
      r4d::reset_stats();
      EXPECT_EQ(r4d::gemm(ab.get(), w.wq.get(), w.wsz.get(), c.get(), m, r.k, r.n, nullptr,
                          has ? Pdl::on : Pdl::automatic),
                Status::ok);
      EXPECT_EQ(r4d::stats().launches, 2u);
      EXPECT_EQ(r4d::stats().pdl_launches, has ? 2u : 0u);
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      EXPECT_EQ(check_w4a8(p, c.download<std::uint16_t>()), 0);
    }
  }
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
}

// One link of a chain: a table shape's weights, its output buffer (room for M = 64) and, for the
// explicit w4a8 path, its int8 activations and row scales.
struct Link {
  Problem w;  // the weights (w.q, w.scale, w.packed); its activations are not used
  std::unique_ptr<DevWeights> dev;
  std::unique_ptr<DevBuf> out, q, sc;
};

// How a link is launched at one M.
struct Plan {
  bool a8 = false;  // quant_act + gemm_w4a8_nt (explicit), or r4d::gemm's w4a8 path
  r4d::Config cfg;  // the explicit launchers' config
};

enum class Via { explicit_launchers, automatic_gemm };

// The table's shapes in table order, greedily: after the first, the next unused shape whose K is
// at most the previous N, so that every activation a link reads ([M, K] row-major, the first M*K
// elements of the previous link's [M, N] output) was written by the previous kernel. With the
// seeds' six shapes: qkv 3072x5120, o 5120x2048, gate_up 17408x5120, down 5120x8704,
// kernel_projection 1280x5120 (o's K 2048 reads the first 2048 columns' worth of qkv's output;
// hidden_projection's K = 5120 fits after none of the rest).
std::vector<std::pair<int, int>> chain_shapes() {
  std::vector<std::pair<int, int>> all;
  for (Dtype d : {Dtype::w4a16, Dtype::w4a8})
    for (const auto& r : r4d::table(d))
      if (std::find(all.begin(), all.end(), std::make_pair(r.n, r.k)) == all.end())
        all.emplace_back(r.n, r.k);
  std::vector<std::pair<int, int>> chain;
  while (!all.empty() && chain.size() < 6) {
    const auto next = std::find_if(all.begin(), all.end(), [&](const auto& sh) {
      return chain.empty() || sh.second <= chain.back().first;
    });
    if (next == all.end()) break;
    chain.push_back(*next);
    all.erase(next);
  }
  return chain;
}

// Enqueues the chain at `m` on `s`: link 0 reads `input`, link l > 0 the output of link l - 1.
// Returns the number of kernels launched, or -1 at the first refusal.
int enqueue_chain(std::vector<Link>& links, const std::vector<Plan>& plans, const DevBuf& input,
                  int m, Via via, r4d::Pdl pdl, cudaStream_t s) {
  int launches = 0;
  for (std::size_t l = 0; l < links.size(); ++l) {
    Link& L = links[l];
    const void* in = l == 0 ? input.get() : links[l - 1].out->get();
    const int n = L.w.n, k = L.w.k;
    const auto& c = plans[l].cfg;
    Status st = Status::ok;
    if (via == Via::automatic_gemm) {
      st = r4d::gemm(in, L.dev->wq.get(), L.dev->wsz.get(), L.out->get(), m, k, n, s, pdl);
    } else if (plans[l].a8) {
      st = r4d::quant_act(in, L.q->get(), L.sc->get(), m, k, r4d::act_order(r4d::Dtype::w4a8, c), s,
                          pdl);
      if (st == Status::ok)
        st = r4d::gemm_w4a8_nt(L.q->get(), L.sc->get(), L.dev->wq.get(), L.dev->wsz.get(),
                               L.out->get(), m, k, n, c, s, pdl);
    } else {
      st = r4d::gemm_w4a16_nt_bf16(in, L.dev->wq.get(), L.dev->wsz.get(), L.out->get(), m, k, n, c,
                                   s, pdl);
    }
    if (st != Status::ok) {
      ADD_FAILURE() << "link " << l << " (" << n << "x" << k << ", M=" << m
                    << "): " << r4d::to_string(st);
      return -1;
    }
    launches += plans[l].a8 ? 2 : 1;
  }
  return launches;
}

// A captured graph (RAII).
struct Graph {
  cudaGraph_t g{};
  cudaGraphExec_t exec{};
  Graph() = default;
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;
  ~Graph() {
    if (exec) (void)cudaGraphExecDestroy(exec);
    if (g) (void)cudaGraphDestroy(g);
  }
};

// One link's output to check against the reference once every replay is done.
struct Pending {
  std::string what;
  const Problem* w = nullptr;
  int m = 0;
  bool a8 = false;
  std::vector<std::uint16_t> input, output;  // [m, K] the link read, [m, N] it wrote
};

TEST(R4dPdlDevice, CapturedChainIsBitIdenticalWithAndWithoutPdl) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
  if (!r4d::has_kernels()) GTEST_SKIP() << "built without kernels";
  if (tables_have_sm90a() && !sm90a_runs_here())
    GTEST_SKIP() << "the tables have sm90a bands, which this device (cc major " << device_major()
                 << ") or build does not run";
  ASSERT_EQ(r4d::init(0), Status::ok);
  const bool has = r4d::pdl_supported(0);
  // `on` where the device has PDL (a refusal would fail the test there); elsewhere the default,
  // which launches plainly, and the test still checks the chain.
  const r4d::Pdl with = has ? r4d::Pdl::on : r4d::Pdl::automatic;
  const auto shapes = chain_shapes();
  ASSERT_GE(shapes.size(), 2u) << "the table has no two shapes that chain";

  std::vector<Link> links;
  int max_k = 0;
  for (std::size_t l = 0; l < shapes.size(); ++l) {
    const auto [n, k] = shapes[l];
    Link L;
    L.w = make_problem(n, k, 1, 900u + static_cast<unsigned>(l));
    L.dev = std::make_unique<DevWeights>(L.w);
    L.out = std::make_unique<DevBuf>(static_cast<std::size_t>(64) * n * 2);
    L.q = std::make_unique<DevBuf>(static_cast<std::size_t>(64) * k);
    L.sc = std::make_unique<DevBuf>(64 * 4);
    max_k = std::max(max_k, k);
    links.push_back(std::move(L));
  }
  DevBuf input(static_cast<std::size_t>(64) * max_k * 2);
  cudaStream_t s{};
  ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);

  std::vector<Pending> pending;
  int a8_links = 0, splitk_links = 0, sm90a_links = 0, balanced_links = 0, runs = 0;
  bool could_splitk = false;  // some link at some M has a split-K config in either table
  std::mt19937 rng(1234);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  // The first sm90a band (its top M) of a chain shape in either table, for the chain that
  // prefers that generation: 0 when there is none.
  int sm90a_m = 0;
  for (Dtype d : {Dtype::w4a16, Dtype::w4a8})
    for (const auto& r : r4d::table(d))
      if (sm90a_m == 0 && r.gen == r4d::kGenSm90a &&
          std::find(shapes.begin(), shapes.end(), std::make_pair(r.n, r.k)) != shapes.end() &&
          r4d::config_for(r.n, r.k, std::min(r.m_limit, 64), d))
        sm90a_m = std::min(r.m_limit, 64);
  struct Run {
    Via via;
    std::vector<int> ms;
    bool prefer_sm90a;
  };
  std::vector<Run> runs_of = {
      {Via::explicit_launchers, {1, 8, 24, 64}, false},
      {Via::automatic_gemm, {8, 64}, false},
  };
  if (sm90a_m > 0) runs_of.push_back({Via::explicit_launchers, {sm90a_m}, true});
  for (const auto& [via, ms, prefer_sm90a] : runs_of)
    for (int m : ms) {
      const char* via_name = via == Via::automatic_gemm ? "r4d::gemm"
                             : prefer_sm90a             ? "explicit, sm90a first"
                                                        : "explicit";
      SCOPED_TRACE(testing::Message() << via_name << " M=" << m);
      // Plans: explicit links alternate w4a16 and w4a8 (odd links, where the w4a8 table has the
      // shape), or take whichever dtype's band is of the sm90a generation (prefer_sm90a);
      // r4d::gemm decides by itself (w4a8 above a8_m rows).
      std::vector<Plan> plans(links.size());
      // GEMMs that launch plainly in the PDL capture too: a balanced sm90a grid (SK 255) never
      // runs under PDL (kernels/config.hpp pdl_allowed; r4d's prepare() asks it). Session 41's H100
      // run of the session 39 tables (gate_up w4a8 M 1..16 balanced) counted 19 PDL launches of 20.
      int plain_gemms = 0;
      for (std::size_t l = 0; l < links.size(); ++l) {
        const int n = links[l].w.n, k = links[l].w.k;
        const auto c8 = r4d::config_for(n, k, m, Dtype::w4a8);
        const auto c16 = r4d::config_for(n, k, m, Dtype::w4a16);
        Plan& p = plans[l];
        if (via == Via::automatic_gemm) {
          p.a8 = m > r4d::a8_m() && c8.has_value();
          if (const auto& c = p.a8 ? c8 : c16) p.cfg = *c;
        } else {
          p.a8 = c8.has_value() && (l % 2 == 1 || !c16.has_value());
          if (prefer_sm90a && c8 && c8->gen == r4d::kGenSm90a) p.a8 = true;
          if (prefer_sm90a && c16 && c16->gen == r4d::kGenSm90a) p.a8 = false;
          ASSERT_TRUE(p.a8 || c16.has_value()) << n << "x" << k << " has no config at M=" << m;
          p.cfg = p.a8 ? *c8 : *c16;
        }
        a8_links += p.a8 ? 1 : 0;
        splitk_links += p.cfg.sk > 1 ? 1 : 0;
        sm90a_links += p.cfg.gen == r4d::kGenSm90a ? 1 : 0;
        const bool pdl_ok = r4::kernels::pdl_allowed(r4d::detail::to_kernels(p.cfg), m);
        plain_gemms += pdl_ok ? 0 : 1;
        balanced_links += pdl_ok ? 0 : 1;
        could_splitk |= (c8 && c8->sk > 1) || (c16 && c16->sk > 1);
      }
      // Capture the chain plainly and with PDL; the PDL capture is the only one with PDL launches.
      Graph plain, pdl;
      for (Graph* g : {&plain, &pdl}) {
        const r4d::Pdl opt = g == &pdl ? with : r4d::Pdl::off;
        r4d::reset_stats();
        ASSERT_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal), cudaSuccess);
        const int launched = enqueue_chain(links, plans, input, m, via, opt, s);
        ASSERT_EQ(cudaStreamEndCapture(s, &g->g), cudaSuccess);
        ASSERT_GT(launched, 0);
        ASSERT_EQ(cudaGraphInstantiate(&g->exec, g->g, 0), cudaSuccess);
        const auto st = r4d::stats();
        EXPECT_EQ(st.launches, static_cast<std::uint64_t>(launched));
        EXPECT_EQ(st.pdl_launches,
                  g == &pdl && has ? static_cast<std::uint64_t>(launched - plain_gemms) : 0u);
      }
      // Fresh input for this M (bf16 in -1..1).
      const int k0 = links[0].w.k;
      std::vector<std::uint16_t> x(static_cast<std::size_t>(m) * k0);
      for (auto& v : x) v = r4::kernels::float_to_bf16(unit(rng));
      input.upload(x);
      // Replays: the plain graph once, the PDL graph three times, and the chain once more with
      // PDL outside a graph (eager launches); outputs (and the w4a8 scratch) poisoned before each.
      const auto replay = [&](Graph* g) {
        for (auto& L : links) {
          L.out->poison();
          L.q->poison();
          L.sc->poison();
        }
        EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);  // the poison lands before the chain
        if (g != nullptr) {
          EXPECT_EQ(cudaGraphLaunch(g->exec, s), cudaSuccess);
        } else {
          EXPECT_GT(enqueue_chain(links, plans, input, m, via, with, s), 0);
        }
        EXPECT_EQ(cudaStreamSynchronize(s), cudaSuccess);
        std::vector<std::vector<std::uint16_t>> outs;
        for (auto& L : links)
          outs.push_back(L.out->download<std::uint16_t>(static_cast<std::size_t>(m) * L.w.n));
        return outs;
      };
      const auto ref_outs = replay(&plain);
      for (int r = 0; r < 4; ++r) {
        const auto outs = replay(r < 3 ? &pdl : nullptr);
        for (std::size_t l = 0; l < links.size(); ++l) {
          std::size_t differ = 0;
          for (std::size_t i = 0; i < outs[l].size(); ++i) differ += outs[l][i] != ref_outs[l][i];
          EXPECT_EQ(differ, 0u) << (r < 3 ? "PDL graph replay " : "eager PDL chain ") << r
                                << ": link " << l << " (" << links[l].w.n << "x" << links[l].w.k
                                << ") differs from the plain replay in " << differ << " of "
                                << outs[l].size() << " elements";
        }
      }
      // Every link of the plain replay against its reference, from the input it actually read
      // (checked below, all at once, on the host's cores). Bit-identity carries it to PDL.
      for (std::size_t l = 0; l < links.size(); ++l) {
        const auto& L = links[l];
        const auto& src = l == 0 ? x : ref_outs[l - 1];
        Pending p;
        p.what = std::string(via_name) + " M=" + std::to_string(m) + " link " + std::to_string(l) +
                 " " + std::to_string(L.w.n) + "x" + std::to_string(L.w.k) +
                 (plans[l].a8 ? " w4a8 " : " w4a16 ") + r4d::to_string(plans[l].cfg);
        p.w = &L.w;
        p.m = m;
        p.a8 = plans[l].a8;
        p.input.assign(src.begin(), src.begin() + static_cast<std::ptrdiff_t>(m) * L.w.k);
        p.output = ref_outs[l];
        pending.push_back(std::move(p));
      }
      ++runs;
    }
  (void)cudaStreamDestroy(s);

  std::vector<std::future<int>> checks;
  for (const Pending& p : pending)
    checks.push_back(std::async(std::launch::async, [&p] {
      return p.a8 ? check_w4a8(*p.w, p.m, p.input, p.output)
                  : check_w4a16(*p.w, p.m, p.input, true, p.output);
    }));
  for (std::size_t i = 0; i < checks.size(); ++i)
    EXPECT_EQ(checks[i].get(), 0) << pending[i].what << ": elements outside the tolerance";

  // The chains covered a w4a8 link (quant_act + gemm_w4a8_nt) and a split-K config, where the
  // table has them (issue 11).
  if (!r4d::table(Dtype::w4a8).empty()) {
    EXPECT_GT(a8_links, 0) << "no w4a8 link in any chain";
  }
  if (could_splitk) {
    EXPECT_GT(splitk_links, 0) << "no split-K link in any chain";
  }
  if (sm90a_m > 0) {
    EXPECT_GT(sm90a_links, 0) << "no sm90a link in any chain";
  }
  std::printf(
      "PDL %s: %d chains of %zu links (%d w4a8, %d split-K, %d sm90a, %d plain balanced links), "
      "%zu outputs checked\n",
      has ? "on" : "unavailable (both graphs plain)", runs, links.size(), a8_links, splitk_links,
      sm90a_links, balanced_links, pending.size());
}

}  // namespace
