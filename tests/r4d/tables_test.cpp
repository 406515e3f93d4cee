// The compiled-in table header: it compiles (here, in a TU of its own, with its own static
// checks), r4d::table() serves exactly its rows, every config config_for can hand out from it is
// compiled in (sm90a bands' configs where the build has the sm90a generation, none otherwise),
// the registry holds nothing else of the sm90a generation, and the workspace init() sizes covers
// every row.
#include <gtest/gtest.h>

#include <algorithm>
#include <span>

#include "kernels/r4d/src/detail.hpp"
#include "r4d/r4d.hpp"

#include R4D_TABLES_HEADER  // NOLINT: a path string from CMake

namespace {

using r4d::Dtype;

template <int N>
std::span<const r4d_table_row> rows(const r4d_table_row (&r)[N]) {
  return {r, static_cast<std::size_t>(N)};
}

bool same_rows(std::span<const r4d_table_row> a, std::span<const r4d_table_row> b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const auto& x, const auto& y) {
    return x.n == y.n && x.k == y.k && x.m_limit == y.m_limit && x.wv == y.wv && x.sk == y.sk &&
           x.mb == y.mb && x.npw == y.npw && x.nt == y.nt && x.gen == y.gen && x.st == y.st;
  });
}

TEST(R4dTables, ServesTheCompiledInHeader) {
  EXPECT_TRUE(same_rows(r4d::table(Dtype::w4a16), rows(r4d::generated::gemm_w4a16_nt_w4a16)));
  EXPECT_TRUE(same_rows(r4d::table(Dtype::w4a8), rows(r4d::generated::gemm_w4a8_nt_w4a8)));
  EXPECT_EQ(r4d::a8_m(), r4d::generated::a8_m);
  EXPECT_EQ(r4d::table_info().header, std::string_view(R4D_TABLES_HEADER));
  EXPECT_EQ(r4d::table_info().run_uuid, std::string_view(r4d::generated::run_uuid));
}

TEST(R4dTables, EveryConfigConfigForCanReturnIsCompiledIn) {
  if (!r4d::has_kernels()) GTEST_SKIP() << "built without kernels";
  for (Dtype d : {Dtype::w4a16, Dtype::w4a8}) {
    const auto compiled = r4d::compiled_configs(d);
    for (const auto& r : r4d::table(d))
      for (int m = 1; m <= 64; ++m) {
        const auto c = r4d::config_for(r.n, r.k, m, d);
        if (!c) continue;
        if (c->gen == r4d::kGenSm90a && !r4d::has_generation(r4d::kGenSm90a)) {
          // Built with R4D_SM90A=OFF: the band is served, its kernel is not there.
          EXPECT_EQ(std::find(compiled.begin(), compiled.end(), *c), compiled.end());
          continue;
        }
        EXPECT_NE(std::find(compiled.begin(), compiled.end(), *c), compiled.end())
            << r4d::to_string(d) << " N=" << r.n << " K=" << r.k << " M=" << m;
        // and the bf16-A variant r4d::gemm launches
        if (d == Dtype::w4a16) {
          const auto ks = r4d::detail::compiled_kernels();
          EXPECT_TRUE(std::any_of(ks.begin(), ks.end(), [&](const auto& e) {
            return e.id == r4::kernels::KernelId::gemm_w4a16_nt && e.a_bf16 && e.config == *c;
          }));
        }
      }
  }
}

TEST(R4dTables, WorkspaceCoversEveryRow) {
  if (!r4d::has_kernels()) GTEST_SKIP() << "built without kernels";
  std::size_t most = 0;
  for (Dtype d : {Dtype::w4a16, Dtype::w4a8})
    for (const auto& r : r4d::table(d))
      most =
          std::max(most, r4d::detail::workspace_bytes({r.wv, r.sk, r.mb, r.npw, r.nt, r.gen, r.st},
                                                      std::min(r.m_limit, 64), r.n, r.k));
  EXPECT_GE(r4d::workspace_bytes_required(), most);
}

// The sm90a generation's kernels in the registry: exactly where the build has the generation and
// the table has sm90a bands, every one an sm_90-only config (compiled for sm_90a), each w4a16 one
// in both activation types; compiled_configs reports them with their generation.
// r4d's TUs define R4_SK as the tuner's NVRTC compiles do (kernels/config.hpp sk_define, mirrored
// by kernels/r4d/cmake/R4dKernels.cmake): the same body, the same PTX.
TEST(R4dTables, EachKernelDefinesTheTunersSk) {
  if (!r4d::has_kernels()) GTEST_SKIP() << "built without kernels";
  int gemms = 0;
  for (const auto& e : r4d::detail::compiled_kernels()) {
    if (e.id == r4::kernels::KernelId::quant_act || e.id == r4::kernels::KernelId::quant_act_fp8)
      continue;
    ++gemms;
    EXPECT_EQ(e.r4_sk, r4::kernels::sk_define(r4d::detail::to_kernels(e.config), true))
        << r4d::to_string(e.config);
  }
  EXPECT_GT(gemms, 0);
}

TEST(R4dTables, Sm90aKernelsAreTheTablesSm90aConfigs) {
  if (!r4d::has_kernels()) GTEST_SKIP() << "built without kernels";
  EXPECT_TRUE(r4d::has_generation(r4d::kGenMmaSync));
  EXPECT_TRUE(r4d::has_generation(r4d::kGenLdg));  // compiled like mma_sync, for every target
  EXPECT_FALSE(r4d::has_generation(3));
  bool table_has_sm90a = false;
  for (Dtype d : {Dtype::w4a16, Dtype::w4a8, Dtype::w4a8fp8, Dtype::mxfp4a8fp8})
    for (const auto& r : r4d::table(d)) table_has_sm90a |= r.gen == r4d::kGenSm90a;
  const auto sm80 = r4d::detail::nvidia_arch(8, 0), sm90 = r4d::detail::nvidia_arch(9, 0);
  int sm90a = 0;
  for (const auto& e : r4d::detail::compiled_kernels()) {
    if (e.config.gen != r4d::kGenSm90a) continue;
    ++sm90a;
    const auto kc = r4d::detail::to_kernels(e.config);
    EXPECT_TRUE(r4::kernels::is_valid(e.id, kc, sm90)) << r4d::to_string(e.config);
    EXPECT_FALSE(r4::kernels::is_valid(e.id, kc, sm80)) << r4d::to_string(e.config);
    if (e.id == r4::kernels::KernelId::gemm_w4a16_nt) {
      const auto ks = r4d::detail::compiled_kernels();
      EXPECT_TRUE(std::any_of(ks.begin(), ks.end(), [&](const auto& o) {
        return o.id == e.id && o.config == e.config && o.a_bf16 != e.a_bf16;
      })) << r4d::to_string(e.config);
    }
    const auto listed =
        r4d::compiled_configs(e.id == r4::kernels::KernelId::gemm_w4a16_nt     ? Dtype::w4a16
                              : e.id == r4::kernels::KernelId::gemm_w4a8_nt    ? Dtype::w4a8
                              : e.id == r4::kernels::KernelId::gemm_w4a8fp8_nt ? Dtype::w4a8fp8
                                                                               : Dtype::mxfp4a8fp8);
    EXPECT_NE(std::find(listed.begin(), listed.end(), e.config), listed.end());
  }
  EXPECT_EQ(sm90a > 0, table_has_sm90a && r4d::has_generation(r4d::kGenSm90a));
  // The PTX-version probe is never an sm90a kernel (those load on a cc 9.0 device only).
  ASSERT_NE(r4d::detail::arch_probe_kernel(), nullptr);
  EXPECT_EQ(r4d::detail::arch_probe_kernel()->config.gen, r4d::kGenMmaSync);
}

}  // namespace
