// Launches through r4d against the CPU references (label gpu; skips without a device): the
// explicit launchers with the table's configs, quant_act bit for bit, the automatic gemm on both
// paths, and the refusals (which must enqueue nothing).
#include <gtest/gtest.h>

#include <algorithm>

#include "gpu_problem.hpp"
#include "r4d/r4d.hpp"

namespace {

using r4d::Dtype;
using r4d::Status;
using namespace r4d::test;

class R4dLaunch : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
    if (!r4d::has_kernels()) GTEST_SKIP() << "built without kernels";
    ASSERT_EQ(r4d::init(0), Status::ok);
  }
};

// Shapes of the compiled-in table (the stand-in's are the seeds' six), a few per test for time.
std::vector<std::pair<int, int>> table_shapes(Dtype d, std::size_t most) {
  std::vector<std::pair<int, int>> out;
  for (const auto& r : r4d::table(d))
    if (std::find(out.begin(), out.end(), std::make_pair(r.n, r.k)) == out.end())
      out.emplace_back(r.n, r.k);
  std::sort(out.begin(), out.end(),
            [](auto a, auto b) { return a.first * a.second < b.first * b.second; });
  if (out.size() > most) out.resize(most);
  return out;
}

TEST_F(R4dLaunch, W4a16TableConfigsMatchReference) {
  for (const auto& [n, k] : table_shapes(Dtype::w4a16, 4))
    for (int m : {1, 7, 16, 17, 40, 64}) {
      SCOPED_TRACE(testing::Message() << "N=" << n << " K=" << k << " M=" << m);
      const auto cfg = r4d::config_for(n, k, m, Dtype::w4a16);
      if (!cfg) continue;
      const Problem p = make_problem(n, k, m, 100u + static_cast<unsigned>(m));
      DevWeights w(p);
      DevBuf a(p.a16.size() * 2), c(static_cast<std::size_t>(m) * n * 2);
      a.upload(p.a16);
      c.poison();
      ASSERT_EQ(r4d::gemm_w4a16_nt(a.get(), w.wq.get(), w.wsz.get(), c.get(), m, k, n, cfg->wv,
                                   cfg->sk, cfg->mb, cfg->npw, cfg->nt, nullptr),
                Status::ok);
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      EXPECT_EQ(check_w4a16(p, false, c.download<std::uint16_t>()), 0);
    }
}

TEST_F(R4dLaunch, QuantActBitExactAndW4a8MatchesReference) {
  for (const auto& [n, k] : table_shapes(Dtype::w4a8, 4))
    for (int m : {17, 33, 64}) {
      SCOPED_TRACE(testing::Message() << "N=" << n << " K=" << k << " M=" << m);
      const auto cfg = r4d::config_for(n, k, m, Dtype::w4a8);
      if (!cfg) continue;
      const Problem p = make_problem(n, k, m, 200u + static_cast<unsigned>(m));
      DevWeights w(p);
      DevBuf a(p.ab16.size() * 2), q(static_cast<std::size_t>(m) * k),
          sc(static_cast<std::size_t>(m) * 4), c(static_cast<std::size_t>(m) * n * 2);
      a.upload(p.ab16);
      c.poison();
      ASSERT_EQ(r4d::quant_act(a.get(), q.get(), sc.get(), m, k, nullptr), Status::ok);
      ASSERT_EQ(r4d::gemm_w4a8_nt(q.get(), sc.get(), w.wq.get(), w.wsz.get(), c.get(), m, k, n,
                                  cfg->wv, cfg->sk, cfg->mb, cfg->npw, cfg->nt, nullptr),
                Status::ok);
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      std::vector<std::int8_t> rq(static_cast<std::size_t>(m) * k);
      std::vector<float> rs(static_cast<std::size_t>(m));
      r4::kernels::ref_quant_act(p.ab16, m, k, rq, rs);
      EXPECT_EQ(q.download<std::int8_t>(), rq);
      EXPECT_EQ(sc.download<float>(), rs);
      EXPECT_EQ(check_w4a8(p, c.download<std::uint16_t>()), 0);
    }
}

TEST_F(R4dLaunch, AutomaticGemmTakesThePathTheTableSays) {
  for (const auto& [n, k] : table_shapes(Dtype::w4a16, 3))
    for (int m : {1, 16, 17, 64}) {
      SCOPED_TRACE(testing::Message() << "N=" << n << " K=" << k << " M=" << m);
      const bool a8 = m > r4d::a8_m() && r4d::config_for(n, k, m, Dtype::w4a8).has_value();
      const Problem p = make_problem(n, k, m, 300u + static_cast<unsigned>(m));
      DevWeights w(p);
      DevBuf a(p.ab16.size() * 2), c(static_cast<std::size_t>(m) * n * 2);
      a.upload(p.ab16);
      c.poison();
      r4d::reset_stats();
      ASSERT_EQ(r4d::gemm(a.get(), w.wq.get(), w.wsz.get(), c.get(), m, k, n, nullptr), Status::ok);
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      EXPECT_EQ(r4d::stats().launches, a8 ? 2u : 1u);
      const auto out = c.download<std::uint16_t>();
      EXPECT_EQ(a8 ? check_w4a8(p, out) : check_w4a16(p, true, out), 0);
    }
}

TEST_F(R4dLaunch, RefusesWithoutLaunching) {
  const Problem p = make_problem(256, 5120, 8, 400u);
  DevWeights w(p);
  DevBuf a(p.a16.size() * 2 + 16), c(8 * 256 * 2);
  r4d::reset_stats();
  // SK = 10: is_valid refuses it.
  EXPECT_EQ(r4d::gemm_w4a16_nt(a.get(), w.wq.get(), w.wsz.get(), c.get(), 8, 5120, 256, 1, 10, 1, 1,
                               0, nullptr),
            Status::invalid_config);
  // M = 65: outside the decode band.
  EXPECT_EQ(r4d::gemm_w4a16_nt(a.get(), w.wq.get(), w.wsz.get(), c.get(), 65, 5120, 256, 1, 1, 1, 1,
                               0, nullptr),
            Status::invalid_config);
  // A valid config that no table row produces: not compiled in.
  const auto compiled = r4d::compiled_configs(Dtype::w4a16);
  r4d::Config missing{};
  bool found = false;
  for (int wv : {1, 2, 4, 8})
    for (int sk : {1, 2, 4, 8, 16})
      for (int nt : {0, 1})
        if (!found) {
          const r4d::Config cand{wv, sk, 1, 1, nt};
          if (std::find(compiled.begin(), compiled.end(), cand) == compiled.end()) {
            missing = cand;
            found = true;
          }
        }
  ASSERT_TRUE(found);
  EXPECT_EQ(r4d::gemm_w4a16_nt(a.get(), w.wq.get(), w.wsz.get(), c.get(), 8, 5120, 256, missing.wv,
                               missing.sk, missing.mb, missing.npw, missing.nt, nullptr),
            Status::not_compiled);
  // Misaligned activations.
  const auto cfg = *r4d::config_for(256, 5120, 8, Dtype::w4a16);
  EXPECT_EQ(r4d::gemm_w4a16_nt(static_cast<char*>(a.get()) + 2, w.wq.get(), w.wsz.get(), c.get(), 8,
                               5120, 256, cfg.wv, cfg.sk, cfg.mb, cfg.npw, cfg.nt, nullptr),
            Status::bad_argument);
  // An unknown shape through the automatic path is declined, not guessed.
  EXPECT_EQ(r4d::gemm(a.get(), w.wq.get(), w.wsz.get(), c.get(), 8, 5120, 272, nullptr),
            Status::unknown_shape);
  const auto s = r4d::stats();
  EXPECT_EQ(s.launches, 0u);
  EXPECT_EQ(s.refused, 4u);
  EXPECT_EQ(s.invalid_config, 2u);
  EXPECT_EQ(s.not_compiled, 1u);
  EXPECT_EQ(s.unknown_shape, 1u);
}

}  // namespace
