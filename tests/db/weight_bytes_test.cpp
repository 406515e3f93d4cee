// db::w4_weight_bytes (the bytes a read floor is keyed on) must be kernels::weight_bytes: the db
// library cannot link the kernel family, so the formula is written twice and held equal here.
#include <gtest/gtest.h>

#include "db/rows.hpp"
#include "kernels/family.hpp"

TEST(WeightBytes, DbAndKernelsAgree) {
  for (std::int64_t n : {16, 256, 1280, 3072, 5120, 17408, 28672})
    for (std::int64_t k : {128, 2048, 4096, 5120, 8704, 14336})
      EXPECT_EQ(r4::db::w4_weight_bytes(n, k), r4::kernels::weight_bytes(n, k)) << n << "x" << k;
  static_assert(r4::db::w4_weight_bytes(3072, 5120) == 3072LL * 5120 * 17 / 32);
}
