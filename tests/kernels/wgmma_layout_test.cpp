// The sm90a generation's activation placement (kernels/nv/wgmma_layout_sm90a.h) checked on the
// host: a model of wgmma with the weights as the register A operand and the activations as the
// shared-memory B operand read through a no-swizzle K-major descriptor (start + (k/8) * LBO +
// (n/8) * SBO + (n%8) * 16 + (k%8) * elem), fed by the kernel's own data flow: each lane's 16-byte
// weight chunk of the sm80 layout (quant/layout/sm80.h weight_at) assembled into A registers the
// way the dequantisers do (kernels/nv/mma_sm80.h), and every activation written where
// b_offset_16 / b_offset_8 say. The emulated product must equal the plain dot product for every
// output, on random data, and a deliberately wrong k map must not.
//
// What this proves: the k-permutation the kernel applies to the activations matches the one the
// weight fragments carry, for both element sizes, and the byte offsets stay inside the stage. What
// it does not: that the hardware reads a descriptor as modelled here (PTX ISA, "Matrix Descriptor
// Format"); that is checked on the GPU by the kernel checks (tests/kernels/gpu_check_test.cpp).
#include "kernels/nv/wgmma_layout_sm90a.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <random>
#include <vector>

#include "quant/layout/mx_sm89.h"
#include "quant/layout/sm80.h"

namespace r4 {
namespace {

namespace wl = r4::wgmma_layout;
namespace sm80 = r4::layout::sm80;
namespace mx = r4::layout::mx_sm89;

using Placement = std::function<int(int n, int k, int nr)>;
// A packed layout's inverse map (dword, nibble, K) -> (row, k): sm80 or mx_sm89 (same memory
// order of (tile, block, lane, dword); the k each nibble holds differs).
struct RowK {
  long long n, k;
};
using WeightAt = std::function<RowK(long long dword, int nibble, long long K)>;
const WeightAt kSm80At = [](long long d, int i, long long K) {
  const auto rc = sm80::weight_at(d, i, K);
  return RowK{rc.n, rc.k};
};
const WeightAt kMxAt = [](long long d, int i, long long K) {
  const auto rc = mx::weight_at(d, i, K);
  return RowK{rc.n, rc.k};
};

// One stage (K = 128) of one 64-row weight tile against NR activation rows. Returns the max
// |emulated - exact| over the 64 x NR outputs. With `one_block_per_step` (the mx_sm89 weights),
// every 8-bit k32 step must also take its real k from one 32-K block: the kernel promotes each
// step's partial by that block's exponent.
double emulate_stage(int elem_bytes, int nr, const Placement& place, std::uint32_t seed,
                     const WeightAt& weight_at = kSm80At, bool one_block_per_step = false) {
  constexpr int kRows = 64, kK = 128;
  const long long K = kK;  // the stage is the whole (tiny) matrix: 4 sm80 tiles x 2 blocks
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> code(-8, 7), act(-100, 100);
  std::vector<int> w(static_cast<std::size_t>(kRows * kK)), a(static_cast<std::size_t>(nr * kK));
  for (auto& v : w) v = code(rng);
  for (auto& v : a) v = act(rng);

  // The activations as the producer writes them (values, not bytes: the model reads them back).
  const int stage = wl::stage_bytes(nr, elem_bytes);
  std::vector<int> smem(static_cast<std::size_t>(stage), 0);
  std::vector<int> written(static_cast<std::size_t>(stage), 0);
  for (int n = 0; n < nr; ++n)
    for (int k = 0; k < kK; ++k) {
      const int off = place(n, k, nr);
      EXPECT_GE(off, 0);
      EXPECT_LT(off, stage);
      EXPECT_EQ(off % elem_bytes, 0);
      smem[static_cast<std::size_t>(off)] = a[static_cast<std::size_t>(n * kK + k)];
      ++written[static_cast<std::size_t>(off)];
    }
  for (int i = 0; i < stage; i += elem_bytes) EXPECT_EQ(written[static_cast<std::size_t>(i)], 1);

  // B element (mma-k, n) of k-step `step` through the descriptor model.
  const int elems_per_row = 16 / elem_bytes;  // elements in a core-matrix row
  const auto b_at = [&](int step, int mk, int n) {
    const int addr = wl::step_offset(step, nr) + (mk / elems_per_row) * wl::lbo_bytes(nr) +
                     (n / 8) * wl::sbo_bytes() + (n % 8) * 16 + (mk % elems_per_row) * elem_bytes;
    return smem[static_cast<std::size_t>(addr)];
  };

  std::vector<long long> d(static_cast<std::size_t>(kRows * nr), 0);
  for (int warp = 0; warp < 4; ++warp) {  // warp w of the warpgroup: sm80 tile w (rows 16w..)
    for (int lane = 0; lane < 32; ++lane) {
      const int g = lane >> 2, t = lane & 3;
      for (int block = 0; block < 2; ++block) {
        // The lane's four dwords of this (tile, block): nibble i of dword s.
        const auto nib = [&](int s, int i, int& row, int& k) {
          const long long dword =
              ((static_cast<long long>(warp) * (K / 64) + block) * 32 + lane) * 4 + s;
          const auto rc = weight_at(dword, i, K);
          row = static_cast<int>(rc.n);
          k = static_cast<int>(rc.k);
        };
        if (elem_bytes == 2) {
          // dequant_f16 / dequant_bf16: k16 step s from dword s; a0 = (nib 0, nib 4), a1 = (1, 5),
          // a2 = (2, 6), a3 = (3, 7); register r holds MMA (row g + 8 (r & 1), k 2t + 8 (r >> 1) +
          // h).
          for (int s = 0; s < 4; ++s) {
            const int step = block * 4 + s;
            for (int r = 0; r < 4; ++r)
              for (int h = 0; h < 2; ++h) {
                int row = 0, k = 0;
                nib(s, r + 4 * h, row, k);
                EXPECT_EQ(row, 16 * warp + g + 8 * (r & 1));
                const int mk = 2 * t + 8 * (r >> 1) + h;
                for (int n = 0; n < nr; ++n)
                  d[static_cast<std::size_t>(row * nr + n)] +=
                      static_cast<long long>(w[static_cast<std::size_t>(row * kK + k)]) *
                      b_at(step, mk, n);
              }
          }
        } else {
          // dequant_s8: k32 step s' from dwords 2s', 2s'+1; a0 = even nibbles of d[2s'] (row g),
          // a1 = odd (row g+8), a2 / a3 the same of d[2s'+1]; byte j of register r holds MMA
          // (row g + 8 (r & 1), k 16 (r >> 1) + 4t + j).
          for (int sp = 0; sp < 2; ++sp) {
            const int step = block * 2 + sp;
            for (int r = 0; r < 4; ++r)
              for (int j = 0; j < 4; ++j) {
                int row = 0, k = 0;
                nib(2 * sp + (r >> 1), 2 * j + (r & 1), row, k);
                EXPECT_EQ(row, 16 * warp + g + 8 * (r & 1));
                if (one_block_per_step) {
                  EXPECT_EQ(k / 32, step) << "k32 step " << step << " k " << k;
                }
                const int mk = 16 * (r >> 1) + 4 * t + j;
                for (int n = 0; n < nr; ++n)
                  d[static_cast<std::size_t>(row * nr + n)] +=
                      static_cast<long long>(w[static_cast<std::size_t>(row * kK + k)]) *
                      b_at(step, mk, n);
              }
          }
        }
      }
    }
  }
  double worst = 0;
  for (int row = 0; row < kRows; ++row)
    for (int n = 0; n < nr; ++n) {
      long long exact = 0;
      for (int k = 0; k < kK; ++k)
        exact += static_cast<long long>(w[static_cast<std::size_t>(row * kK + k)]) *
                 a[static_cast<std::size_t>(n * kK + k)];
      worst = std::max(
          worst, std::abs(static_cast<double>(d[static_cast<std::size_t>(row * nr + n)] - exact)));
    }
  return worst;
}

TEST(WgmmaLayoutSm90a, SixteenBitActivationsMatchTheWeightFragments) {
  for (int nr : {16, 32, 64})
    EXPECT_EQ(emulate_stage(2, nr, wl::b_offset_16, 11u + static_cast<unsigned>(nr)), 0.0) << nr;
}

TEST(WgmmaLayoutSm90a, EightBitActivationsMatchTheWeightFragments) {
  for (int nr : {16, 32, 64})
    EXPECT_EQ(emulate_stage(1, nr, wl::b_offset_8, 21u + static_cast<unsigned>(nr)), 0.0) << nr;
}

// The sm90a activation order (quant_act's ActOrder::sm90a) within a row: chunk q of a 128-K
// group's row, put at byte 16 (q * NR + n) of the stage, puts every byte where b_offset_8 wants
// it; and the order is a permutation of each 64-K block, its own inverse.
// One 8-bit activation order: its in-row index, the B-tile placement it serves, its byte and
// dword offsets in an M-row matrix (wgmma_layout_sm90a.h: the sm90a order of the sm80 weights and
// the sm90a_mx order of the mx_sm89 ones).
struct Order8 {
  int (*index)(int k);
  int (*b_offset)(int n, int k, int nr);
  long long (*offset)(int n, int k, int M);
  long long (*dword_offset)(int n, int d, int M);
  bool self_inverse;
};
const Order8 kSm90aOrder{wl::act_index_8, wl::b_offset_8, wl::act_offset_8, wl::act_dword_offset_8,
                         true};
const Order8 kSm90aMxOrder{wl::act_index_mx, wl::b_offset_mx, wl::act_offset_mx,
                           wl::act_dword_offset_mx, false};

void chunks_into_place(const Order8& o) {
  for (int nr : {16, 32, 64})
    for (int n = 0; n < nr; ++n)
      for (int k = 0; k < 128; ++k) {
        const int p = o.index(k);
        ASSERT_EQ(o.b_offset(n, k, nr), 16 * ((p / 16) * nr + n) + p % 16)
            << "nr " << nr << " n " << n << " k " << k;
      }
  std::vector<int> seen(128, 0);
  for (int k = 0; k < 128; ++k) {
    const int p = o.index(k);
    EXPECT_EQ(p / 64, k / 64) << k;  // stays in its 64-K block
    EXPECT_EQ(p % 4, k % 4) << k;    // moves whole dwords
    if (o.self_inverse) {
      EXPECT_EQ(o.index(p), k) << k;
    }
    ++seen[static_cast<std::size_t>(p)];
  }
  for (int p = 0; p < 128; ++p) EXPECT_EQ(seen[static_cast<std::size_t>(p)], 1) << p;
}

TEST(WgmmaLayoutSm90a, EightBitSm90aOrderIsSixteenByteChunksIntoPlace) {
  chunks_into_place(kSm90aOrder);
}

// The mx_sm89 weights (gemm_mxfp4a8fp8_nt's sm90a generation): their fragments, with every k32
// step inside one 32-K exponent block, against b_offset_mx; and its order's chunks.
TEST(WgmmaLayoutSm90a, MxWeightsMatchTheirActivationsOneBlockPerStep) {
  for (int nr : {16, 32, 48, 64})
    EXPECT_EQ(emulate_stage(1, nr, wl::b_offset_mx, 31u + static_cast<unsigned>(nr), kMxAt, true),
              0.0)
        << nr;
  // The sm80 weights' own placement does not serve them, nor do theirs the sm80 ones.
  EXPECT_GT(emulate_stage(1, 16, wl::b_offset_8, 7u, kMxAt), 0.0);
  EXPECT_GT(emulate_stage(1, 16, wl::b_offset_mx, 8u), 0.0);
}

TEST(WgmmaLayoutSm90a, EightBitSm90aMxOrderIsSixteenByteChunksIntoPlace) {
  chunks_into_place(kSm90aMxOrder);
}

// Across rows (act_offset_8): the matrix is a permutation of its M * K bytes, and the producer's
// copies land every byte of a tile where b_offset_8 wants it. For each M tile (first row m0, live
// rows R = min(NR, M - m0)) and group g, the producer copies chunk q's run of 16 R bytes from
// byte 16 (M (8 g + q) + m0) to byte 16 q NR of the stage, or, when the tile holds every row
// (m0 = 0, R = M <= NR), one run of 128 M bytes from byte 128 g M, which the consumers read with a
// chunk stride of 16 M: the byte b_offset_8 puts at 16 (q NR + n) + c is then at 16 (q M + n) + c.
void bulk_copies_into_place(const Order8& ord) {
  for (int M : {1, 5, 16, 33, 48, 64})
    for (int K : {128, 384}) {
      std::vector<int> seen(static_cast<std::size_t>(M * K), 0);
      for (int n = 0; n < M; ++n)
        for (int k = 0; k < K; ++k) {
          const long long o = ord.offset(n, k, M);
          ASSERT_GE(o, 0);
          ASSERT_LT(o, static_cast<long long>(M) * K);
          ++seen[static_cast<std::size_t>(o)];
          if (k % 4 == 0) {
            ASSERT_EQ(4 * ord.dword_offset(n, k / 4, M), o) << n << " " << k;
          }
        }
      for (std::size_t i = 0; i < seen.size(); ++i) ASSERT_EQ(seen[i], 1) << "M " << M << " byte " << i;
      for (int nr : {16, 32, 48, 64}) {
        for (int m0 = 0; m0 < M; m0 += nr) {
          const int live = std::min(nr, M - m0);
          for (int g = 0; g < K / 128; ++g)
            for (int n = 0; n < live; ++n)
              for (int kk = 0; kk < 128; ++kk) {
                const long long src = ord.offset(m0 + n, 128 * g + kk, M);
                const int dst = ord.b_offset(n, kk, nr);
                // The run of chunk q = dst / (16 nr) starts at 16 (M (8 g + q) + m0) and lands at
                // 16 q nr: the byte's place in the run must agree in both.
                const int q = dst / (16 * nr);
                ASSERT_EQ(src - 16LL * (static_cast<long long>(M) * (8 * g + q) + m0),
                          dst - 16 * q * nr)
                    << "M " << M << " nr " << nr << " m0 " << m0 << " n " << n << " k " << kk;
                if (m0 == 0 && live == M) {  // every row in the tile: one run from 128 g M
                  ASSERT_EQ(src - 128LL * g * M, 16LL * q * M + (dst - 16 * q * nr));
                }
              }
        }
      }
    }
}

TEST(WgmmaLayoutSm90a, EightBitSm90aOrderIsBulkCopiesIntoPlace) {
  bulk_copies_into_place(kSm90aOrder);
}
TEST(WgmmaLayoutSm90a, EightBitSm90aMxOrderIsBulkCopiesIntoPlace) {
  bulk_copies_into_place(kSm90aMxOrder);
}

TEST(WgmmaLayoutSm90a, AWrongKMapIsCaught) {
  // Natural k order (no permutation) within each core-matrix row: what a plain row-major copy
  // of the activations would give.
  const Placement natural16 = [](int n, int k, int nr) {
    const int step = k / 16, mk = k % 16;
    return ((step * 2 + mk / 8) * (nr / 8) + n / 8) * 128 + (n % 8) * 16 + (mk % 8) * 2;
  };
  EXPECT_GT(emulate_stage(2, 16, natural16, 5u), 0.0);
  // Two adjacent real k swapped in the 8-bit map.
  const Placement swapped8 = [](int n, int k, int nr) {
    return wl::b_offset_8(n, (k & 1) ? k - 1 : k + 1, nr);
  };
  EXPECT_GT(emulate_stage(1, 16, swapped8, 6u), 0.0);
}

}  // namespace
}  // namespace r4
