// The AMD kernels' matrix fragments, checked on the CPU (no AMD GPU is reachable from this
// project's machines). For each target (gfx11 WMMA, gfx12 WMMA, gfx942 MFMA) and operand type
// (f16, bf16, int8; e4m3 on gfx12), random int4 weights are packed with the CPU packer of the
// target's layout (quant/pack_*.cpp), each lane's fragments are built by the kernel's own fragment
// code (kernels/amd/*.h compiled for the host, emulate_*.cpp) in the kernel body's loop order, the
// instruction is a host model reading the operand layouts written as data in those same headers
// (emulation.cpp), and the result must match the CPU reference on the unpacked codes
// (kernels/reference.hpp) within the derived tolerance (kernels/tolerance.hpp).
//
// What this proves: the packed layout, the kernel's unpacking (nibble order, 16*code bytes, k
// ranges of the activation loads), the k/m/n mapping of every fragment and the output placement
// agree with the ISA layouts AS TRANSCRIBED in the headers, for every k step, tile and 128-K
// group. What it does not prove: that the transcription matches the silicon (only a GPU run can),
// the cross-lane shuffle of gfx11 (modelled, not run), the loads, LDS, barriers, split-K,
// scheduling or anything else of the kernels outside their fragment code. The mutation tests show
// the check has teeth: one swapped k (or row) in a layout table fails it.
#include <gtest/gtest.h>

#include <functional>
#include <random>

#include <fmt/core.h>

#include "tests/kernels/amd/emulation.hpp"
#include "tests/kernels/amd/host_shim.hpp"
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wold-style-cast"
#pragma GCC diagnostic ignored "-Wconversion"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kernels/amd/mfma_gfx942.h"
#pragma GCC diagnostic pop

namespace r4::emu {
namespace {

struct Target {
  const char* name;
  quant::Layout layout;
  std::function<InstrModel(Dtype)> model;
  std::function<std::vector<float>(const Problem&, const InstrModel&, std::string&)> run;
  std::vector<Dtype> dtypes;  // the operand types the target's GEMMs use
};

// e4m3 on gfx12 only: the one target with an fp8 GEMM (kernels/amd/config_amd.hpp
// has_fp8_wmma_path: gfx11 has no fp8 WMMA, gfx942's fp8 is FNUZ).
const std::vector<Dtype> kNoFp8 = {Dtype::f16, Dtype::bf16, Dtype::i8};
const std::vector<Dtype> kWithFp8 = {Dtype::f16, Dtype::bf16, Dtype::i8, Dtype::e4m3};
const Target kTargets[] = {
    {"gfx11", quant::Layout::gfx12, gfx11_model, run_gfx11, kNoFp8},
    {"gfx12", quant::Layout::gfx12, gfx12_model, run_gfx12, kWithFp8},
    {"gfx942", quant::Layout::gfx942, gfx942_model, run_gfx942, kNoFp8},
};

// Runs the emulation; ok only if the model accepted every operand and the output matches.
Check emulate(const Target& t, Dtype d, const InstrModel& im, int m, int n, int k,
              std::uint32_t seed) {
  const Problem p = make_problem(d, t.layout, m, n, k, seed);
  std::string why;
  const auto out = t.run(p, im, why);
  if (out.empty()) return Check{false, 0, 0, "the model refused an operand: " + why};
  return compare(p, out);
}

// The layout with two k entries (or C rows) exchanged for the lanes of the first 16-lane group.
InstrModel swapped(InstrModel im, char operand, int e1, int e2) {
  OperandMap& om = operand == 'A' ? im.a : operand == 'B' ? im.b : im.c;
  auto& v = operand == 'C' ? om.major : om.minor;
  for (int l = 0; l < 16; ++l) std::swap(v[static_cast<std::size_t>(om.idx(l, e1))],
                                         v[static_cast<std::size_t>(om.idx(l, e2))]);
  im.name += fmt::format(" with {} elements {} and {} swapped", operand, e1, e2);
  return im;
}

TEST(FragmentEmulation, EveryTargetAndTypeMatchesTheReference) {
  // M = 16 and M = 7 (the rows past M are zeroed as the kernels do); N = 48 (three tiles);
  // K = 384 (six 64-K blocks, three 128-K groups: every scale dword and step is used).
  for (const auto& t : kTargets)
    for (Dtype d : t.dtypes)
      for (int m : {16, 7, 33}) {
        const auto im = t.model(d);
        const auto c = emulate(t, d, im, m, 48, 384, 1000u + static_cast<unsigned>(m));
        EXPECT_TRUE(c.ok) << im.name << " M=" << m << ": " << c.detail;
        fmt::print("{:<34} M={:<2} max err/tol {:.3f}\n", im.name, m, c.worst);
      }
}

// The fp8 GEMM's weights: gfx12's int4 -> e4m3 conversion is exact (code * 2^-9) for every code
// at every nibble position; the e4m3 runs above then check where those bytes go.
TEST(FragmentEmulation, Gfx12Int4ToE4m3IsExactForEveryCode) {
  const std::string bad = check_gfx12_int4_to_e4m3();
  EXPECT_TRUE(bad.empty()) << bad;
}

// More random e4m3 problems on gfx12 (each a fresh draw of codes, scales, e4m3 bytes and row
// scales; M over the tile edge cases, K = 640: five 128-K groups).
TEST(FragmentEmulation, Gfx12Fp8RandomProblemsMatchTheReference) {
  const auto& t = kTargets[1];
  const auto im = t.model(Dtype::e4m3);
  for (std::uint32_t seed = 0; seed < 6; ++seed)
    for (int m : {1, 15, 64}) {
      const auto c =
          emulate(t, Dtype::e4m3, im, m, 32, 640, 5000u + 97u * seed + static_cast<unsigned>(m));
      EXPECT_TRUE(c.ok) << im.name << " seed " << seed << " M=" << m << ": " << c.detail;
    }
}

TEST(FragmentEmulation, ASwappedKInTheWeightLayoutFails) {
  for (const auto& t : kTargets)
    for (Dtype d : t.dtypes) {
      const auto im = swapped(t.model(d), 'B', 0, 1);
      const auto c = emulate(t, d, im, 16, 48, 384, 7);
      EXPECT_FALSE(c.ok) << im.name << " passed";
      fmt::print("{}: fails as it must ({})\n", im.name, c.detail.substr(0, 120));
    }
}

TEST(FragmentEmulation, ASwappedKInTheActivationLayoutFails) {
  for (const auto& t : kTargets)
    for (Dtype d : t.dtypes) {
      const auto im = swapped(t.model(d), 'A', 1, 2);
      EXPECT_FALSE(emulate(t, d, im, 16, 48, 384, 8).ok) << im.name << " passed";
    }
}

TEST(FragmentEmulation, SwappedOutputRowsFail) {
  for (const auto& t : kTargets)
    for (Dtype d : t.dtypes) {
      const auto im = swapped(t.model(d), 'C', 0, 1);
      EXPECT_FALSE(emulate(t, d, im, 16, 48, 384, 9).ok) << im.name << " passed";
    }
}

// The tables of every instruction shape the headers describe, including those no GEMM uses yet
// (MFMA 32x32x8 f16, 16x16x32 fp8): each covers its matrices (every entry held by some lane,
// replicated entries consistent), so a product computed through them is the plain product. This
// checks the tables' shape only; their meaning is checked above for the shapes the GEMMs use.
TEST(FragmentEmulation, EveryLayoutTableCoversItsMatrices) {
  const InstrModel models[] = {
      gfx11_model(Dtype::f16),
      gfx11_model(Dtype::i8),
      gfx12_model(Dtype::f16),
      gfx12_model(Dtype::i8),
      gfx12_model(Dtype::e4m3),
      gfx942_model(Dtype::f16),
      gfx942_model(Dtype::i8),
      model_of<r4amd::Gfx942Mfma32x32x8>("gfx942 v_mfma_f32_32x32x8_f16"),
      model_of<r4amd::Gfx942Mfma16x16x32>("gfx942 v_mfma_f32_16x16x32_fp8_fp8")};
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> v(-9, 9);
  for (const auto& im : models) {
    std::vector<double> A(static_cast<std::size_t>(im.m * im.k)), B(static_cast<std::size_t>(im.k * im.n));
    for (auto& x : A) x = v(rng);
    for (auto& x : B) x = v(rng);
    Frag a = frag(im.a.lanes, im.a.elems), b = frag(im.b.lanes, im.b.elems),
         c = frag(im.c.lanes, im.c.elems);
    for (int l = 0; l < im.a.lanes; ++l)
      for (int e = 0; e < im.a.elems; ++e) {
        const auto i = static_cast<std::size_t>(im.a.idx(l, e));
        a[static_cast<std::size_t>(l)][static_cast<std::size_t>(e)] =
            A[static_cast<std::size_t>(im.a.major[i] * im.k + im.a.minor[i])];
        b[static_cast<std::size_t>(l)][static_cast<std::size_t>(e)] =
            B[static_cast<std::size_t>(im.b.minor[i] * im.n + im.b.major[i])];
      }
    std::string why;
    ASSERT_TRUE(mma(im, a, b, c, why)) << why;
    for (int l = 0; l < im.c.lanes; ++l)
      for (int e = 0; e < im.c.elems; ++e) {
        const auto i = static_cast<std::size_t>(im.c.idx(l, e));
        double want = 0;
        for (int kk = 0; kk < im.k; ++kk)
          want += A[static_cast<std::size_t>(im.c.major[i] * im.k + kk)] *
                  B[static_cast<std::size_t>(kk * im.n + im.c.minor[i])];
        ASSERT_EQ(c[static_cast<std::size_t>(l)][static_cast<std::size_t>(e)], want) << im.name;
      }
  }
}

}  // namespace
}  // namespace r4::emu
