// The db library names and numbers kernel generations itself (it cannot link the kernel family);
// here the two are held equal, names, numbers and the config text.
#include <gtest/gtest.h>

#include "db/rows.hpp"
#include "kernels/config.hpp"

TEST(Generation, DbAndKernelsAgree) {
  static_assert(r4::db::kGenMmaSync == r4::kernels::kGenMmaSync);
  static_assert(r4::db::kGenSm90a == r4::kernels::kGenSm90a);
  static_assert(r4::db::kGenLdg == r4::kernels::kGenLdg);
  for (int g : {r4::kernels::kGenMmaSync, r4::kernels::kGenSm90a, r4::kernels::kGenLdg}) {
    EXPECT_EQ(r4::db::generation_name(g), r4::kernels::gen_name(g));
    EXPECT_EQ(r4::db::parse_generation(r4::kernels::gen_name(g)), g);
  }
  for (const r4::kernels::Config& k :
       {r4::kernels::Config{1, 4, 1, 1, 0}, r4::kernels::Config{8, 16, 4, 4, 1},
        r4::kernels::Config{4, 2, 1, 2, 1, r4::kernels::kGenSm90a, 6},
        r4::kernels::Config{4, 8, 1, 2, 1, r4::kernels::kGenLdg, 4}}) {
    const r4::db::Config d{k.wv, k.sk, k.mb, k.npw, k.nt, k.gen, k.st};
    EXPECT_EQ(r4::db::to_string(d), r4::kernels::to_string(k));
  }
}
