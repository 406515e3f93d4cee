// gfx12 (RDNA4) WMMA: the kernel's fragment assembly (kernels/amd/wmma_gfx12.h) compiled for the
// host, driven by a mirror of the loop in kernels/amd/gemm_w4a{16,8}_nt_wmma.h and
// gemm_w4a8fp8_nt_wmma.h (e4m3: f32 partial per 128-K group, promoted by scale * 2^9).
#include "tests/kernels/amd/host_shim.hpp"
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wold-style-cast"
#pragma GCC diagnostic ignored "-Wconversion"
#pragma GCC diagnostic ignored "-Wsign-conversion"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kernels/amd/wmma_gfx12.h"
#pragma GCC diagnostic pop

#include <cmath>

#include <fmt/core.h>

#include "quant/numeric.hpp"
#include "tests/kernels/amd/emulation.hpp"

namespace r4::emu {

namespace {
// Byte j of a v2i element pair: element e is byte e & 3 of dword e >> 2.
std::uint8_t byte_of(const r4amd::v2i& v, int e) {
  return static_cast<std::uint8_t>((static_cast<u32>(v[e >> 2]) >> (8 * (e & 3))) & 0xFFu);
}
}  // namespace

std::string check_gfx12_int4_to_e4m3() {
  // Every code c in -8..7 at every nibble i, the other nibbles random-ish (a fixed pattern that
  // holds every code, so a carry across nibbles would show).
  for (int i = 0; i < 8; ++i)
    for (int c = -8; c <= 7; ++c)
      for (u32 fill : {0x00000000u, 0x76543210u, 0x89ABCDEFu, 0xFFFFFFFFu, 0x88888888u}) {
        const u32 d = (fill & ~(0xFu << (4 * i))) | ((static_cast<u32>(c) & 0xFu) << (4 * i));
        const r4amd::v2i b = r4amd::dequant_b_e4m3(d, 0);
        for (int e = 0; e < 8; ++e) {
          const int nib = r4amd::nibble_of(e);
          const int want_code = r4amd::code_at(d, nib);
          const double want = std::ldexp(static_cast<double>(want_code), -9);
          const double got = static_cast<double>(quant::e4m3_to_f32(byte_of(b, e)));
          if (got != want)
            return fmt::format(
                "dword {:08x} element {} (nibble {}, code {}): e4m3 byte {:02x} is {}, "
                "want {}",
                d, e, nib, want_code, byte_of(b, e), got, want);
        }
      }
  return {};
}

InstrModel gfx12_model(Dtype d) {
  if (d == Dtype::i8) return model_of<r4amd::Gfx12Wmma16x16x16Iu8>("gfx12 v_wmma_i32_16x16x16_iu8");
  if (d == Dtype::e4m3)
    return model_of<r4amd::Gfx12Wmma16x16x16Fp8>("gfx12 v_wmma_f32_16x16x16_fp8_fp8");
  return model_of<r4amd::Gfx12Wmma16x16x16>(d == Dtype::f16 ? "gfx12 v_wmma_f32_16x16x16_f16"
                                                            : "gfx12 v_wmma_f32_16x16x16_bf16");
}

std::vector<float> run_gfx12(const Problem& p, const InstrModel& im, std::string& why) {
  constexpr int kLanes = 32;
  const int KB = p.k / 64, G = p.k / 128, ntiles = p.n / 16;
  std::vector<float> out(static_cast<std::size_t>(p.m * p.n), 0.0f);
  const u32* wq = p.packed.wq.data();
  const u32* wsz = p.packed.wsz.data();
  for (int m_base = 0; m_base < p.m; m_base += 16)
    for (int tile = 0; tile < ntiles; ++tile) {
      Frag acc = frag(kLanes, 8), iacc = frag(kLanes, 8);
      for (int kb = 0; kb < KB; ++kb) {
        const bool flush = (kb & 1) || kb + 1 == KB;
        for (int s = 0; s < 4; ++s) {
          Frag a = frag(kLanes, 8), b = frag(kLanes, 8);
          for (int lane = 0; lane < kLanes; ++lane) {
            const int r = lane & 15;
            const int row = m_base + r;
            // the kernel: u32x4 w = wq4[(tile * KB + kb) * 32 + lane]; wd[s]
            const u32 d = wq[(static_cast<std::size_t>(tile) * KB + kb) * 32 * 4 + lane * 4 + s];
            const u32 sdw = wsz[(static_cast<std::size_t>(tile) * G + (kb >> 1)) * 16 + r];
            auto& bl = b[static_cast<std::size_t>(lane)];
            auto& al = a[static_cast<std::size_t>(lane)];
            if (p.dtype == Dtype::e4m3) {
              // the kernel: dequant_b_e4m3(wd[s]), load_a_e4m3(Aq + row * K + kb * 64 + 16 s)
              const r4amd::v2i bv = r4amd::dequant_b_e4m3(d, lane);
              r4amd::v2i av{};
              if (row < p.m)
                av = r4amd::load_a_e4m3(
                    p.a_e4m3.data() + static_cast<std::size_t>(row) * p.k + kb * 64 + 16 * s, lane);
              for (int e = 0; e < 8; ++e) {  // exact decoding of the bytes the WMMA reads
                bl[e] = static_cast<double>(quant::e4m3_to_f32(byte_of(bv, e)));
                al[e] = static_cast<double>(quant::e4m3_to_f32(byte_of(av, e)));
              }
            } else if (p.dtype == Dtype::i8) {
              const r4amd::v2i bv = r4amd::dequant_b_s8(d, lane);
              r4amd::v2i av{};
              if (row < p.m)
                av = r4amd::load_a8(p.a8.data() + static_cast<std::size_t>(row) * p.k + kb * 64 + 16 * s, lane);
              for (int e = 0; e < 8; ++e) {
                bl[e] = static_cast<std::int8_t>((static_cast<u32>(bv[e >> 2]) >> (8 * (e & 3))) & 0xFFu);
                al[e] = static_cast<std::int8_t>((static_cast<u32>(av[e >> 2]) >> (8 * (e & 3))) & 0xFFu);
              }
            } else {
              r4amd::v8s av{};
              if (row < p.m)
                av = r4amd::load_a16(p.a16.data() + static_cast<std::size_t>(row) * p.k + kb * 64 + 16 * s, lane);
              if (p.dtype == Dtype::f16) {
                const r4amd::v8h bv = r4amd::dequant_b_f16(
                    d, __builtin_bit_cast(_Float16, static_cast<u16>(sdw & 0xFFFFu)), lane);
                for (int e = 0; e < 8; ++e) bl[e] = static_cast<double>(bv[e]);
                const r4amd::v8h ah = __builtin_bit_cast(r4amd::v8h, av);
                for (int e = 0; e < 8; ++e) al[e] = static_cast<double>(ah[e]);
              } else {
                const r4amd::v8s bv =
                    r4amd::dequant_b_bf16(d, quant::f16_bits_to_f32(static_cast<u16>(sdw & 0xFFFFu)), lane);
                for (int e = 0; e < 8; ++e) {
                  bl[e] = quant::bf16_bits_to_f32(static_cast<u16>(bv[e]));
                  al[e] = quant::bf16_bits_to_f32(static_cast<u16>(av[e]));
                }
              }
            }
          }
          // int8 and e4m3 accumulate a per-group partial (int32 / f32), the 16-bit types the total
          if (!mma(im, a, b, p.dtype == Dtype::i8 || p.dtype == Dtype::e4m3 ? iacc : acc, why))
            return {};
        }
        if (p.dtype == Dtype::e4m3 && flush) {  // the kernel: acc += part * (scale * 512) in f32
          for (int lane = 0; lane < kLanes; ++lane) {
            const u32 sdw =
                wsz[(static_cast<std::size_t>(tile) * G + (kb >> 1)) * 16 + (lane & 15)];
            const float ws9 = quant::f16_bits_to_f32(static_cast<u16>(sdw & 0xFFFFu)) * 512.0f;
            for (int i = 0; i < 8; ++i) {
              auto& x = acc[static_cast<std::size_t>(lane)][static_cast<std::size_t>(i)];
              auto& y = iacc[static_cast<std::size_t>(lane)][static_cast<std::size_t>(i)];
              x = static_cast<float>(x) + static_cast<float>(y) * ws9;
              y = 0;
            }
          }
        }
        if (p.dtype == Dtype::i8 && flush) {
          for (int lane = 0; lane < kLanes; ++lane) {
            const u32 sdw = wsz[(static_cast<std::size_t>(tile) * G + (kb >> 1)) * 16 + (lane & 15)];
            const float ws16 = quant::f16_bits_to_f32(static_cast<u16>(sdw & 0xFFFFu)) * 0.0625f;
            for (int i = 0; i < 8; ++i) {
              auto& x = acc[static_cast<std::size_t>(lane)][static_cast<std::size_t>(i)];
              auto& y = iacc[static_cast<std::size_t>(lane)][static_cast<std::size_t>(i)];
              x = static_cast<float>(x) + static_cast<float>(y) * ws16;
              y = 0;
            }
          }
        }
      }
      for (int lane = 0; lane < kLanes; ++lane)
        for (int i = 0; i < 8; ++i) {
          const int m = m_base + r4amd::c_row(lane, i);
          const int n = tile * 16 + (lane & 15);
          if (m >= p.m) continue;
          double v = acc[static_cast<std::size_t>(lane)][static_cast<std::size_t>(i)];
          if (p.dtype == Dtype::i8 || p.dtype == Dtype::e4m3)
            v *= p.sa[static_cast<std::size_t>(m)];
          out[static_cast<std::size_t>(m) * p.n + n] = static_cast<float>(v);
        }
    }
  return out;
}

}  // namespace r4::emu
