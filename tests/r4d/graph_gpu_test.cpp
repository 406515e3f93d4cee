// r4d launches inside CUDA-graph capture (label gpu; skips without a device): the automatic gemm
// (both paths, split-K included) and an explicit launcher are captured on a side stream, the graph
// is replayed twice over poisoned outputs, and the results match the references. A launch on a
// device with no registered workspace refuses inside capture without breaking it.
#include <gtest/gtest.h>

#include <memory>

#include "gpu_problem.hpp"
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

}  // namespace
