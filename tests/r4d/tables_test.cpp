// The compiled-in table header: it compiles (here, in a TU of its own, with its own static
// checks), r4d::table() serves exactly its rows, every config config_for can hand out from it is
// compiled in, and the workspace init() sizes covers every row.
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
           x.mb == y.mb && x.npw == y.npw && x.nt == y.nt;
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
      most = std::max(most, r4d::detail::workspace_bytes({r.wv, r.sk, r.mb, r.npw, r.nt},
                                                         std::min(r.m_limit, 64), r.n));
  EXPECT_GE(r4d::workspace_bytes_required(), most);
}

}  // namespace
