// A host model of AMD's matrix instructions (WMMA, MFMA) driven by the operand layouts written as
// data next to the kernels (kernels/amd/wmma_gfx11.h, wmma_gfx12.h, mfma_gfx942.h), and the
// problem / check plumbing of the fragment-emulation test (fragment_emulation_test.cpp).
//
// The model: one instruction of one wave. Every lane's fragment elements are placed into the A
// (M x K), B (K x N) and C (M x N) matrices where the layout says they sit; every matrix entry
// must be written (and, where the layout gives one entry to several lanes, as gfx11 does, with
// the same value), else the call fails; D = A x B + C is computed in double and handed back to
// the lanes through the C layout.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/config.hpp"
#include "quant/pack.hpp"

namespace r4::emu {

// Per (lane, element): the row (A, C) or column (B) it holds, and its k (A, B) or column (C).
struct OperandMap {
  int lanes = 0, elems = 0;
  std::vector<int> major, minor;
  [[nodiscard]] int idx(int lane, int e) const { return lane * elems + e; }
};

struct InstrModel {
  std::string name;
  int m = 0, n = 0, k = 0;
  OperandMap a, b, c;  // a: (row, k); b: (col, k); c: (row, col)
};

// Reads a layout struct's accessors (a_row, a_k, b_col, b_k, c_row, c_col).
template <class L>
InstrModel model_of(std::string name) {
  InstrModel im;
  im.name = std::move(name);
  im.m = L::kM;
  im.n = L::kN;
  im.k = L::kK;
  auto fill = [](OperandMap& om, int elems, auto major, auto minor) {
    om.lanes = L::kLanes;
    om.elems = elems;
    for (int l = 0; l < L::kLanes; ++l)
      for (int e = 0; e < elems; ++e) {
        om.major.push_back(major(l, e));
        om.minor.push_back(minor(l, e));
      }
  };
  fill(im.a, L::kElemsAB, L::a_row, L::a_k);
  fill(im.b, L::kElemsAB, L::b_col, L::b_k);
  fill(im.c, L::kElemsC, L::c_row, L::c_col);
  return im;
}

// Fragments of one wave: [lane][element], as exact values (f16 / bf16 / int8 all fit a double).
using Frag = std::vector<std::vector<double>>;
[[nodiscard]] inline Frag frag(int lanes, int elems) {
  return Frag(static_cast<std::size_t>(lanes), std::vector<double>(static_cast<std::size_t>(elems)));
}

// c = A x B + c. False (with `why`) when an operand leaves a matrix entry unwritten, or writes one
// entry twice with different values.
bool mma(const InstrModel& im, const Frag& a, const Frag& b, Frag& c, std::string& why);

// e4m3: OCP e4m3 activations x int4 weights turned into e4m3 bytes (gfx12 fp8 WMMA only).
enum class Dtype { f16, bf16, i8, e4m3 };
[[nodiscard]] const char* to_string(Dtype d);

// Random weights (codes -8..7, scales), packed in `layout`, and activations for `dtype`.
struct Problem {
  Dtype dtype = Dtype::f16;
  int m = 0, n = 0, k = 0;
  std::vector<std::int8_t> codes;   // [N, K]
  std::vector<float> scales;        // [N, K/128], f16-rounded
  quant::Packed packed;
  std::vector<std::uint16_t> a16;   // [M, K] f16 or bf16 bits
  std::vector<std::int8_t> a8;      // [M, K] int8
  std::vector<std::uint8_t> a_e4m3;  // [M, K] OCP e4m3 bytes: every finite code, uniformly
  std::vector<float> sa;             // [M] (int8 and e4m3)
};
[[nodiscard]] Problem make_problem(Dtype dtype, quant::Layout layout, int m, int n, int k,
                                   std::uint32_t seed);

// The emulated output [M, N] (f32, before the bf16 store) against the CPU reference
// (kernels/reference.hpp, on the unpacked codes; for e4m3 a plain double loop here, decoding the
// activation bytes exactly with quant::e4m3_to_f32) with the derived tolerance
// (kernels/tolerance.hpp). `worst` is the largest err / tol.
struct Check {
  bool ok = false;
  double worst = 0;
  std::size_t bad = 0;
  std::string detail;
};
[[nodiscard]] Check compare(const Problem& p, const std::vector<float>& out);

// The per-arch runners (emulate_gfx11.cpp, emulate_gfx12.cpp, emulate_gfx942.cpp): the kernel
// body's loop for one wave over every N tile and 64-K block of `p`, its fragment assembly
// compiled for the host, the instruction through `im`. Empty output, with `why`, when the model
// refused an operand.
std::vector<float> run_gfx11(const Problem& p, const InstrModel& im, std::string& why);
std::vector<float> run_gfx12(const Problem& p, const InstrModel& im, std::string& why);
std::vector<float> run_gfx942(const Problem& p, const InstrModel& im, std::string& why);

// gfx12's int4 -> e4m3 conversion (wmma_gfx12.h int4x8_to_e4m3) for every code at every nibble
// position: each byte must decode (quant::e4m3_to_f32) to exactly code * 2^-9 and sit where the
// iu8 path puts that nibble. Empty when all pass, else the first mismatch.
[[nodiscard]] std::string check_gfx12_int4_to_e4m3();

// The models of the instructions each runner drives, from the layouts in the kernels' files.
[[nodiscard]] InstrModel gfx11_model(Dtype d);
[[nodiscard]] InstrModel gfx12_model(Dtype d);
[[nodiscard]] InstrModel gfx942_model(Dtype d);

}  // namespace r4::emu
